//! The commands of the trace era against the daemon: the reverse moves,
//! `info locals` / `info args`, `backtrace`, `frame`, `watch`, the trace
//! budget (the daemon answers them from the focused invocation's trace).

use gldbg_proto::pb;

use super::{Failure, Outcome, Session, status_message};
use crate::command::{FrameMove, Reverse};

impl Session {
    /// `reverse-step`, `reverse-next`, `reverse-finish`, `reverse-continue`.
    pub(super) async fn reverse(&mut self, r: Reverse) -> Result<Outcome, Failure> {
        self.need_shader().map_err(|_| {
            "reverse execution runs back through a shader's traced run: `debug STAGE` first"
                .to_string()
        })?;
        let step = |mode: pb::StepMode, count: u64| pb::ShaderStepRequest {
            mode: mode as i32,
            count,
        };
        let reply = match r {
            Reverse::Step(n) => {
                self.client
                    .shader_reverse_step(step(pb::StepMode::Into, n))
                    .await
            }
            Reverse::Next(n) => {
                self.client
                    .shader_reverse_step(step(pb::StepMode::Over, n))
                    .await
            }
            Reverse::Finish => {
                self.client
                    .shader_reverse_step(step(pb::StepMode::Out, 1))
                    .await
            }
            Reverse::Continue => self.client.shader_reverse_continue(pb::Empty {}).await,
        };
        Ok(Outcome::ShaderStop(
            reply.map_err(status_message)?.into_inner(),
        ))
    }

    /// `info locals` / `info args`.
    pub(super) async fn info_locals(&mut self, args: bool) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .info_locals(pb::InfoLocalsRequest { args })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Locals { args, reply })
    }

    /// `backtrace` while debugging a shader.
    pub(super) async fn backtrace(&mut self) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .backtrace(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Frames(reply))
    }

    /// `frame [N]`, `up [N]`, `down [N]`.
    pub(super) async fn frame(&mut self, m: FrameMove) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let (level, relative) = match m {
            FrameMove::Current => (0, true),
            FrameMove::To(n) => (i64::from(n), false),
            FrameMove::By(d) => (d, true),
        };
        let stop = self
            .client
            .select_frame(pb::SelectFrameRequest { level, relative })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::ShaderStop(stop))
    }

    /// `watch EXPR` / `unwatch [EXPR]`.
    pub(super) async fn watch(&mut self, expr: &str, remove: bool) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .shader_watch(pb::ShaderWatchRequest {
                expr: expr.to_string(),
                remove,
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Watches(reply.exprs))
    }

    /// `set trace-records N` / `set trace-bytes N`.
    pub(super) async fn set_trace_budget(
        &mut self,
        records: u64,
        bytes: u64,
    ) -> Result<Outcome, Failure> {
        self.need_app()?;
        let reply = self
            .client
            .set_trace_budget(pb::TraceBudget { records, bytes })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::TraceBudget(reply))
    }
}

impl Session {
    /// `break LINE if COND` / `tbreak LINE [if COND]`.
    pub(super) async fn conditional_break(
        &mut self,
        line: u32,
        condition: Option<&str>,
        temporary: bool,
    ) -> Result<Outcome, Failure> {
        self.need_shader()
            .map_err(|m| format!("break {line}: {m}"))?;
        let reply = self
            .client
            .shader_break(pb::ShaderBreakRequest {
                line,
                condition: condition.unwrap_or_default().to_string(),
                temporary,
            })
            .await
            .map_err(status_message)?
            .into_inner();
        self.shader_breaks = reply.lines.clone();
        Ok(Outcome::ShaderBreak {
            line,
            lines: reply.lines,
        })
    }

    /// `condition LINE [COND]` (`Some`), `ignore LINE N` (`ignore`).
    pub(super) async fn break_condition(
        &mut self,
        line: u32,
        condition: Option<Option<&str>>,
        ignore: Option<u32>,
    ) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .shader_break_condition(pb::ShaderBreakConditionRequest {
                line,
                set_condition: condition.is_some(),
                condition: condition.flatten().unwrap_or_default().to_string(),
                set_ignore: ignore.is_some(),
                ignore: ignore.unwrap_or(0),
            })
            .await
            .map_err(status_message)?
            .into_inner();
        self.shader_breaks = reply.lines.clone();
        self.breakpoints(None).await
    }

    /// `catch nan|inf [off]`.
    pub(super) async fn catch(
        &mut self,
        nan: bool,
        inf: bool,
        off: bool,
    ) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .shader_catch(pb::CatchRequest {
                nan,
                inf,
                remove: off,
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Catches(reply))
    }
}

impl Session {
    /// `dprintf LINE,"FORMAT",ARG...`.
    pub(super) async fn dprintf(
        &mut self,
        line: u32,
        format: &str,
        args: &[String],
    ) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .dprintf(pb::DprintfRequest {
                line,
                format: format.to_string(),
                args: args.to_vec(),
                limit: 0,
                focused: false,
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Dprintf(reply))
    }
}
