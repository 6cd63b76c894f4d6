//! The session's requests answered from the focused invocation's trace
//! (`shader/traced.rs`): the reverse moves, `info locals` / `info args`,
//! `backtrace`, `frame`, `watch`, and the trace budget.

use super::*;
use crate::shader::reply::{Frame, Local, ShaderStop};
use crate::shader::trace::Budget;
use crate::shader::{Direction, Until};

impl Session {
    /// `reverse-step` / `reverse-next` / `reverse-finish` (by `mode`), `count` times.
    pub fn shader_reverse_step(&self, mode: StepMode, count: u64) -> Result<ShaderStop> {
        let until = match mode {
            StepMode::Into => Until::Any,
            StepMode::Over => Until::Over,
            StepMode::Out => Until::Out,
        };
        self.with_traced(|d, link| {
            for i in 0..count.max(1) {
                match d.trace_move(Direction::Backward, until, link) {
                    Ok(_) => {}
                    // Moved some: stop at the start.
                    Err(Error::FailedPrecondition(_)) if i > 0 => break,
                    Err(e) => return Err(e),
                }
            }
            Ok(d.stop_with_timing())
        })
    }

    /// `reverse-continue`: back to a shader breakpoint's line or a watched
    /// value's change, else the start of the run.
    pub fn shader_reverse_continue(&self) -> Result<ShaderStop> {
        self.with_traced(|d, link| {
            d.trace_move(Direction::Backward, Until::Breakpoint, link)?;
            Ok(d.stop_with_timing())
        })
    }

    /// `info locals` / `info args` of the selected frame.
    pub fn info_locals(
        &self,
        args: bool,
    ) -> Result<(Vec<Local>, Option<crate::shader::reply::Timing>)> {
        self.with_debug(|d, link| {
            let l = d.info_locals(args, link)?;
            Ok((l, Some(d.take_timing().unwrap_or_default())))
        })
    }

    /// `backtrace`: the shader call stack, innermost first.
    pub fn backtrace(&self) -> Result<(Vec<Frame>, Option<crate::shader::reply::Timing>)> {
        self.with_debug(|d, link| {
            let f = d.backtrace(link)?;
            Ok((f, Some(d.take_timing().unwrap_or_default())))
        })
    }

    /// `frame N` / `up N` / `down N`.
    pub fn select_frame(&self, level: i64, relative: bool) -> Result<ShaderStop> {
        self.with_debug(|d, link| d.select_frame(level, relative, link))
    }

    /// `watch EXPR` (add) or its removal; the watch list.
    pub fn shader_watch(&self, expr: &str, remove: bool) -> Result<Vec<String>> {
        self.with_debug(|d, _| d.watch(expr, remove))
    }

    /// The trace budget (0 fields unchanged); the active debug's too.
    pub fn set_trace_budget(&self, records: u64, bytes: u64) -> Result<Budget> {
        let mut b = *self.trace_budget.lock().unwrap_or_else(|p| p.into_inner());
        if records != 0 {
            b.records = u32::try_from(records)
                .map_err(|_| crate::error::out_of_range("records", records, "1..=4294967295"))?;
        }
        if bytes != 0 {
            b.bytes = bytes;
        }
        if b.bytes < 64 || b.bytes > MAX_TRACE_BYTES {
            return Err(crate::error::out_of_range(
                "bytes",
                b.bytes,
                &format!("64..={MAX_TRACE_BYTES}, what the shared memory can carry back"),
            ));
        }
        if let Some(d) = self.debug_lock().as_mut() {
            d.set_budget(b)?;
        }
        *self.trace_budget.lock().unwrap_or_else(|p| p.into_inner()) = b;
        Ok(b)
    }

    /// `dprintf`: one replay; each message a `dprintf` event; (messages, dropped).
    pub fn dprintf(
        &self,
        line: u32,
        format: &str,
        args: &[String],
        limit: u32,
        focused: bool,
    ) -> Result<(u64, u64, Option<crate::shader::reply::Timing>)> {
        let limit = if limit == 0 {
            crate::shader::DPRINTF_LIMIT
        } else {
            limit
        };
        let printed = self.with_debug(|d, link| {
            let p = d.dprintf(line, format, args, limit, focused, link)?;
            Ok((p, d.take_timing()))
        })?;
        let (p, timing) = printed;
        self.emit_dprintf(&p);
        Ok((p.messages.len() as u64, p.dropped, timing))
    }

    /// Each message of a `dprintf` replay as a `dprintf` event.
    pub(super) fn emit_dprintf(&self, p: &crate::shader::DprintfPrinted) {
        for m in &p.messages {
            self.emit(pb::event::Kind::Dprintf(pb::DprintfMessage {
                invocation: m.invocation.map(Into::into),
                text: m.text.clone(),
                id_names: m.ids.iter().map(|(n, _)| n.to_string()).collect(),
                id_values: m.ids.iter().map(|(_, v)| *v).collect(),
            }));
        }
    }

    /// [`Session::with_debug`] for a request that needs the trace.
    fn with_traced<T>(
        &self,
        f: impl FnOnce(&mut ShaderDebug, &mut dyn crate::shader::Link) -> Result<T>,
    ) -> Result<T> {
        self.with_debug(|d, link| {
            if !d.traced_now(link)? {
                return Err(Error::FailedPrecondition(match d.trace_off() {
                    Some(why) => format!(
                        "reverse execution needs a trace, which is not available here: {why}"
                    ),
                    None => "reverse execution needs a trace of the focused invocation: \
                             `focus X,Y` (or `focus vertex N`, ...) first"
                        .into(),
                }));
            }
            f(d, link)
        })
    }
}

/// The most record bytes one recording may bring back: what the bulk
/// region's data area holds.
const MAX_TRACE_BYTES: u64 = (abi::BULK_SIZE - abi::BULK_DATA) as u64 - (1 << 20);
