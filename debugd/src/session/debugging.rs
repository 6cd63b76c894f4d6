//! The session's shader-debugging requests: `debug`, shader steps and
//! breakpoints, `print`, `dump`, `focus`, `info flow`, `end`.

use super::*;
use crate::image::DumpEncoding;
use crate::shader::reply::{Dumped, Flow, Invocation, Printed, ShaderStop, SourceLine};
use std::collections::BTreeMap;

use crate::shader::{self, BreakExtras, Catches, DebugRequest, FocusOn, Link, Reports, ShmLink};

impl Session {
    /// `debug STAGE` at the draw or dispatch the app is stopped at: the
    /// stage's model from the current program, probed at the entry of `main`.
    pub fn debug_shader(&self, request: DebugRequest) -> Result<ShaderStop> {
        let DebugRequest {
            stage,
            fragment_options,
        } = request;
        let mut dbg = self.debug_lock();
        let AtStop { stop, shm } = self.stopped()?;
        cancel::check()?;
        if dbg.as_ref().is_some_and(|d| d.stop_serial != stop.serial) {
            // A new draw: the last one's probes go first (the GL objects
            // stay for this one).
            self.release_debug(&mut dbg, Some(&shm), None);
        }
        let at = function_name(stop.function);
        match stage {
            Stage::Compute if class_of(stop.function) & class::DISPATCH == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "not stopped at a compute dispatch (stopped at {at}); use `break glDispatchCompute` and `continue`"
                )));
            }
            Stage::Compute => {}
            _ if class_of(stop.function) & class::DRAW == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "not stopped at a draw call (stopped at {at}); use `break draw` and `continue`"
                )));
            }
            _ if stop.draw == 0 => {
                return Err(Error::FailedPrecondition(format!(
                    "{at} draws nothing here (it is compiled into a display list, or calls \
                     lists that draw nothing); use `break draw` and `continue`"
                )));
            }
            _ => {}
        }
        let program = self.query_program()?;
        let mut d = self.start_debug(&stop, &shm, &program, stage, fragment_options)?;
        let s = d.stop_with_timing();
        *dbg = Some(d);
        self.control().shader_stop = Some(s.clone());
        Ok(s)
    }

    /// A shader debug of `stage` of `program` at `stop` (probed at the
    /// entry of `main`), its lines mapped to the user's files.
    pub(super) fn start_debug(
        &self,
        stop: &Stop,
        shm: &SharedMemory,
        program: &recording::CurrentProgram,
        stage: Stage,
        fragment_options: shader::FragmentOptions,
    ) -> Result<ShaderDebug> {
        let at = function_name(stop.function);
        let recording::CurrentProgram { text, stages, note } = program;
        let because = note.as_ref().map_or(String::new(), |n| format!(": {n}"));
        // A direct array draw's vertices are gl_VertexID - first (plus whole
        // instances): the vertex shader can write them in place. The same
        // test as the preload's (the generated call shapes).
        let vertex_buffer =
            stage == Stage::Vertex && gldbg_proto::api::CallShape::direct_array_draw(at);
        let target = shader::Target {
            model: shader::stage_model(stages, stage, text.api, &because)?,
            stop_serial: stop.serial,
            others: shader::other_stages(stages, stage, text.api),
            fragment_options,
            vertex_buffer,
        };
        let object = sources::stage_object(stages, stage, target.model.source());
        let mut link = ShmLink {
            reports: self,
            shm,
            slot: stop.slot,
        };
        let mut d = ShaderDebug::start(target, &mut link)?;
        d.set_budget(*self.trace_budget.lock().unwrap_or_else(|p| p.into_inner()))?;
        d.set_files(object, &sources::user_files(&self.control()));
        Ok(d)
    }

    /// Run `f` on the active shader debug state with the preload link of the current stop.
    pub(super) fn with_debug<T>(
        &self,
        f: impl FnOnce(&mut ShaderDebug, &mut dyn Link) -> Result<T>,
    ) -> Result<T> {
        let mut dbg = self.debug_lock();
        let Some(d) = dbg.as_mut() else {
            return Err(Error::FailedPrecondition(
                "not debugging a shader (use `debug fragment` at a draw call)".into(),
            ));
        };
        let AtStop { stop, shm } = self.stopped()?;
        if stop.serial != d.stop_serial {
            self.release_debug(&mut dbg, Some(&shm), None);
            self.control().shader_stop = None;
            return Err(Error::FailedPrecondition(
                "the app moved on from the draw call that was being debugged".into(),
            ));
        }
        cancel::check()?;
        let mut link = ShmLink {
            reports: self,
            shm: &shm,
            slot: stop.slot,
        };
        // Each command reports the cost of its own probes.
        let _ = d.take_timing();
        let r = f(d, &mut link);
        for w in d.take_warnings() {
            self.warn(w);
        }
        let s = d.stop();
        self.control().shader_stop = Some(s);
        r
    }

    pub fn shader_step(&self, mode: StepMode, count: u64) -> Result<ShaderStop> {
        self.with_debug(|d, r| {
            for _ in 0..count.max(1) {
                if !d.step_once(mode, r)? {
                    break;
                }
            }
            Ok(d.stop_with_timing())
        })
    }

    pub fn shader_continue(&self) -> Result<ShaderStop> {
        self.with_debug(|d, r| {
            d.continue_to_breakpoint(r)?;
            Ok(d.stop_with_timing())
        })
    }

    /// `break LINE [if COND]` / `tbreak LINE` in the shader; returns the
    /// shader breakpoints.
    pub fn shader_break(
        &self,
        line: u32,
        condition: Option<String>,
        temporary: bool,
    ) -> Result<BTreeMap<u32, BreakExtras>> {
        self.with_debug(|d, _| {
            d.add_conditional_breakpoint(line, condition, temporary)?;
            Ok(d.breakpoint_list())
        })
    }

    /// `delete LINE` (0: all); returns the shader breakpoints.
    pub fn shader_delete_break(&self, line: u32) -> Result<BTreeMap<u32, BreakExtras>> {
        self.with_debug(|d, _| {
            d.delete_breakpoint(line)?;
            Ok(d.breakpoint_list())
        })
    }

    /// `condition LINE [COND]` / `ignore LINE N`; returns the shader breakpoints.
    pub fn shader_break_condition(
        &self,
        line: u32,
        condition: Option<Option<String>>,
        ignore: Option<u32>,
    ) -> Result<BTreeMap<u32, BreakExtras>> {
        self.with_debug(|d, _| {
            d.set_break_extras(line, condition, ignore)?;
            Ok(d.breakpoint_list())
        })
    }

    /// `info breakpoints` of a shader: each breakpoint's hits over the
    /// draw (one replay for each not counted yet).
    pub fn shader_breakpoint_list(&self) -> Result<BTreeMap<u32, BreakExtras>> {
        self.with_debug(|d, link| {
            d.count_hits(link)?;
            Ok(d.breakpoint_list())
        })
    }

    /// `catch nan` / `catch inf` (or off): what is caught now.
    pub fn shader_catch(&self, nan: bool, inf: bool, on: bool) -> Result<Catches> {
        self.with_debug(|d, _| Ok(d.set_catch(nan, inf, on)))
    }

    /// `list`: the lines, and the user's file their `file_line`s are of.
    pub fn shader_list(&self, line: u32, context: u32) -> Result<(Vec<SourceLine>, String)> {
        self.with_debug(|d, _| Ok((d.listing(line, context)?, d.mapped_file().to_string())))
    }

    pub fn print(&self, expr: &str, at: Option<Invocation>) -> Result<Printed> {
        if expr.trim().is_empty() {
            return Err(Error::InvalidArgument("print needs an expression".into()));
        }
        self.with_debug(|d, link| d.print(expr, at, link))
    }

    /// `dump`: the value of `expr` over every invocation as an NPY file or
    /// as a PNG drawn with `png` (the range it mapped comes back).
    pub fn dump(&self, expr: &str, encoding: DumpEncoding, png: PngOptions) -> Result<Dumped> {
        if expr.trim().is_empty() {
            return Err(Error::InvalidArgument("dump needs an expression".into()));
        }
        if encoding != DumpEncoding::Png && png != PngOptions::default() {
            return Err(Error::InvalidArgument(
                "range= and colormap= are for .png dumps (a .npy file holds the values)".into(),
            ));
        }
        if let Some((lo, hi)) = png.range
            && !(lo.is_finite() && hi.is_finite() && lo < hi)
        {
            return Err(Error::InvalidArgument(format!(
                "range={lo},{hi}: the range needs two finite numbers, the first below the second"
            )));
        }
        self.with_debug(|d, link| d.dump(expr, encoding, png, link))
    }

    pub fn end_debug(&self) -> Result<pb::StateReply> {
        let mut dbg = self.debug_lock();
        if dbg.is_none() {
            return Err(Error::FailedPrecondition("not debugging a shader".into()));
        }
        // The app ended: its shader debugging ended with it (the release
        // after its exit may not have run yet; it is done here then).
        if self.control().launched.is_none() {
            self.release_debug(&mut dbg, None, None);
            self.control().shader_stop = None;
            return Err(Error::FailedPrecondition(
                "not debugging a shader: it ended with the app".into(),
            ));
        }
        cancel::check()?;
        match self.stopped() {
            Ok(AtStop { stop, shm }) => self.release_debug(&mut dbg, Some(&shm), Some(stop.slot)),
            Err(_) => self.release_debug(&mut dbg, None, None),
        };
        let mut c = self.control();
        c.shader_stop = None;
        Ok(self.state_reply(&c))
    }

    /// `focus`: steps follow the invocation `at` names (or any).
    pub fn focus(&self, at: FocusOn) -> Result<ShaderStop> {
        self.with_debug(|d, link| d.set_focus(at, link))
    }

    /// `info flow`: branch sides or loop iterations at the current step.
    pub fn info_flow(&self) -> Result<Flow> {
        self.with_debug(|d, r| d.flow(r))
    }
}

impl Reports for Session {
    /// Save a rejected debug shader and its log; returns the error for the RPC.
    fn rejected_shader(&self, what: &str, stage: Stage, source: &str, log: &str) -> Error {
        let n = self.rejected.fetch_add(1, Ordering::Relaxed) + 1;
        let saved = match self.saved_shaders().as_ref() {
            Some(s) => s.save(n, file_extension(stage), source, log),
            None => Err(std::io::Error::other("the app's session has ended")),
        };
        let mut head: Vec<&str> = log
            .lines()
            .filter(|l| l.to_lowercase().contains("error"))
            .take(3)
            .collect();
        if head.is_empty() {
            head = log
                .lines()
                .filter(|l| !l.trim().is_empty())
                .take(3)
                .collect();
        }
        let msg = match saved {
            Ok((src_path, log_path)) => format!(
                "the driver rejected the debug shader ({what}): {}; generated source saved to {}, driver log to {}{}",
                head.join(" | "),
                src_path.display(),
                log_path.display(),
                crate::saved_shaders::lifetime_note()
            ),
            Err(e) => format!(
                "the driver rejected the debug shader ({what}): {}; could not save it: {e}",
                head.join(" | "),
            ),
        };
        self.emit(pb::event::Kind::Warning(msg.clone()));
        Error::Internal(msg)
    }

    fn warn(&self, message: String) {
        self.emit(pb::event::Kind::Warning(message));
    }
}

/// The file extension of a shader of `stage` (glslang's convention).
pub(super) fn file_extension(stage: Stage) -> &'static str {
    match stage {
        Stage::Vertex => "vert",
        Stage::TessControl => "tesc",
        Stage::TessEval => "tese",
        Stage::Geometry => "geom",
        Stage::Fragment => "frag",
        Stage::Compute => "comp",
    }
}
