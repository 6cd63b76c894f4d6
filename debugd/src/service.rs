//! The gRPC edge: thin tonic handlers that convert requests, call the
//! session (blocking work in `spawn_blocking`) and convert back. This is
//! the only place that knows `tonic::Status`.

use std::pin::Pin;
use std::sync::Arc;

use gldbg_proto::pb;
use glsl_instrument::StepMode;
use tokio_stream::wrappers::BroadcastStream;
use tokio_stream::{Stream, StreamExt};
use tonic::{Code, Request, Response, Status};

use crate::convert;
use crate::error::{Error, clip, quote};
use crate::session::{BreakKind, LaunchOptions, Session};
use crate::shader;

impl From<Error> for Status {
    /// Every message is [`clip`]ped: a status travels in an HTTP/2 header.
    fn from(e: Error) -> Status {
        let code = match &e {
            Error::InvalidArgument(_) => Code::InvalidArgument,
            Error::NotFound(_) => Code::NotFound,
            Error::FailedPrecondition(_) => Code::FailedPrecondition,
            Error::Unimplemented(_) => Code::Unimplemented,
            Error::Internal(_)
            | Error::Os { .. }
            | Error::AppMemory { .. }
            | Error::NotTaken(_)
            | Error::Tracer(_)
            | Error::Preload { .. }
            | Error::Command { .. }
            | Error::Replay { .. }
            | Error::UnknownCommand(_) => Code::Internal,
        };
        Status::new(code, clip(e.to_string()))
    }
}

/// INVALID_ARGUMENT with `message` (clipped).
fn invalid(message: impl Into<String>) -> Status {
    Error::InvalidArgument(message.into()).into()
}

/// A proto enum field from the client: prost keeps unknown numbers as they
/// came (`i32`), so each is checked here rather than read as its default.
fn known_enum<E: TryFrom<i32>>(field: &str, value: i32, names: &str) -> Result<E, Status> {
    E::try_from(value)
        .map_err(|_| invalid(format!("{field} = {value} is not a known value ({names})")))
}

/// A step request's mode.
fn step_mode(mode: i32) -> Result<StepMode, Status> {
    Ok(match known_enum("mode", mode, "0 into, 1 over, 2 out")? {
        pb::StepMode::Into => StepMode::Into,
        pb::StepMode::Over => StepMode::Over,
        pb::StepMode::Out => StepMode::Out,
    })
}

/// The `Debugger` service over one session.
#[derive(Clone)]
pub struct Service {
    session: Arc<Session>,
    /// Becomes true when the server shuts down: event streams end then, so
    /// a graceful shutdown does not wait for subscribers.
    shutdown: tokio::sync::watch::Receiver<bool>,
}

impl Service {
    pub fn new(session: Arc<Session>, shutdown: tokio::sync::watch::Receiver<bool>) -> Self {
        Service { session, shutdown }
    }

    /// Run `f` on the blocking pool.
    async fn run<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Arc<Session>) -> Result<T, Error> + Send + 'static,
    ) -> Result<Response<T>, Status> {
        let s = self.session.clone();
        // Dropped with this future when the client cancels: the blocking
        // work then commits no effect (see `cancel`).
        let guard = crate::cancel::Guard::new();
        let flag = guard.flag();
        let r = tokio::task::spawn_blocking(move || crate::cancel::scope(flag, || f(&s))).await;
        drop(guard);
        match r {
            Ok(Ok(v)) => Ok(Response::new(v)),
            Ok(Err(e)) => Err(e.into()),
            Err(e) => Err(Status::internal(clip(format!(
                "the request handler failed: {e}"
            )))),
        }
    }
}

type EventStream = Pin<Box<dyn Stream<Item = Result<pb::Event, Status>> + Send + 'static>>;

#[tonic::async_trait]
impl pb::debugger_server::Debugger for Service {
    async fn launch(
        &self,
        req: Request<pb::LaunchRequest>,
    ) -> Result<Response<pb::StateReply>, Status> {
        let r = req.into_inner();
        if r.program.is_empty() {
            return Err(invalid("no program given"));
        }
        let opts = LaunchOptions {
            program: r.program,
            args: r.args,
            env: r.env,
            cwd: (!r.cwd.is_empty()).then(|| r.cwd.into()),
            own_process_group: r.own_process_group,
            capture_output: r.capture_output,
            stdin_null: r.stdin_null,
        };
        // A Launch whose client goes away starts no app, or kills the one
        // it started (see `cancel`, `Session::launch`).
        self.run(move |s| s.launch(opts)).await
    }

    async fn get_state(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        Ok(Response::new(self.session.get_state()))
    }

    async fn r#continue(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        self.run(|s| s.continue_()).await
    }

    async fn step(
        &self,
        req: Request<pb::StepRequest>,
    ) -> Result<Response<pb::StateReply>, Status> {
        let n = req.into_inner().count;
        self.run(move |s| s.step(n)).await
    }

    async fn pause(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        self.run(|s| s.pause()).await
    }

    async fn info_state(
        &self,
        req: Request<pb::InfoStateRequest>,
    ) -> Result<Response<pb::GlState>, Status> {
        let name = req.into_inner().name;
        self.run(move |s| s.info_state(&name)).await
    }

    async fn skip(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        self.run(|s| s.skip()).await
    }

    async fn set_arg(
        &self,
        req: Request<pb::SetArgRequest>,
    ) -> Result<Response<pb::CallInfo>, Status> {
        let r = req.into_inner();
        self.run(move |s| s.set_arg(r.index, r.element, &r.value))
            .await
    }

    async fn add_breakpoint(
        &self,
        req: Request<pb::BreakpointSpec>,
    ) -> Result<Response<pb::Breakpoint>, Status> {
        use pb::breakpoint_spec::Kind;
        let kind = match req.into_inner().kind {
            Some(Kind::Function(name)) => match gldbg_proto::api::function_id(name.trim()) {
                Some(id) => BreakKind::Function(id),
                None => {
                    let near = crate::format::nearest_functions(&name, 5);
                    let hint = if near.is_empty() {
                        String::new()
                    } else {
                        format!(" (did you mean {}?)", near.join(", "))
                    };
                    return Err(invalid(format!(
                        "unknown GL/GLX/EGL function: {}{hint}",
                        quote(name.trim())
                    )));
                }
            },
            Some(Kind::Draw(_)) => BreakKind::Draw,
            Some(Kind::DrawNumber(0)) => {
                return Err(invalid(
                    "draw_number = 0 is out of range (draw numbers count from 1)",
                ));
            }
            Some(Kind::DrawNumber(n)) => BreakKind::DrawNumber(n),
            Some(Kind::ShaderSwitch(_)) => BreakKind::ShaderSwitch,
            Some(Kind::Frame(_)) => BreakKind::Frame,
            Some(Kind::GlError(_)) => BreakKind::GlError,
            Some(Kind::Source(spec)) => {
                return self.run(move |s| s.add_source_breakpoint(spec)).await;
            }
            None => return Err(invalid("no breakpoint kind given")),
        };
        Ok(Response::new(self.session.add_breakpoint(kind)))
    }

    async fn delete_breakpoint(
        &self,
        req: Request<pb::DeleteBreakpointRequest>,
    ) -> Result<Response<pb::BreakpointList>, Status> {
        let id = req.into_inner().id;
        self.run(move |s| s.delete_breakpoint(id)).await
    }

    async fn list_breakpoints(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::BreakpointList>, Status> {
        Ok(Response::new(self.session.list_breakpoints()))
    }

    async fn info_call(&self, _: Request<pb::Empty>) -> Result<Response<pb::CallInfo>, Status> {
        self.run(|s| s.info_call()).await
    }

    async fn info_program(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::ProgramInfo>, Status> {
        self.run(|s| s.info_program()).await
    }

    async fn detach(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        self.run(|s| s.detach()).await
    }

    async fn kill(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        self.run(|s| s.kill()).await
    }

    async fn debug_shader(
        &self,
        req: Request<pb::DebugShaderRequest>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        let r = shader::DebugRequest::try_from(&req.into_inner())?;
        self.run(move |s| s.debug_shader(r).map(Into::into)).await
    }

    async fn shader_step(
        &self,
        req: Request<pb::ShaderStepRequest>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        let r = req.into_inner();
        let mode = step_mode(r.mode)?;
        self.run(move |s| s.shader_step(mode, r.count).map(Into::into))
            .await
    }

    async fn shader_reverse_step(
        &self,
        req: Request<pb::ShaderStepRequest>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        let r = req.into_inner();
        let mode = step_mode(r.mode)?;
        self.run(move |s| s.shader_reverse_step(mode, r.count).map(Into::into))
            .await
    }

    async fn shader_reverse_continue(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        self.run(|s| s.shader_reverse_continue().map(Into::into))
            .await
    }

    async fn info_locals(
        &self,
        req: Request<pb::InfoLocalsRequest>,
    ) -> Result<Response<pb::Locals>, Status> {
        let args = req.into_inner().args;
        self.run(move |s| {
            let (locals, timing) = s.info_locals(args)?;
            Ok(pb::Locals {
                locals: locals.into_iter().map(Into::into).collect(),
                timing: timing.map(Into::into),
            })
        })
        .await
    }

    async fn backtrace(&self, _: Request<pb::Empty>) -> Result<Response<pb::CallStack>, Status> {
        self.run(|s| {
            let (frames, timing) = s.backtrace()?;
            Ok(pb::CallStack {
                frames: frames.into_iter().map(Into::into).collect(),
                timing: timing.map(Into::into),
            })
        })
        .await
    }

    async fn select_frame(
        &self,
        req: Request<pb::SelectFrameRequest>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        let r = req.into_inner();
        self.run(move |s| s.select_frame(r.level, r.relative).map(Into::into))
            .await
    }

    async fn shader_watch(
        &self,
        req: Request<pb::ShaderWatchRequest>,
    ) -> Result<Response<pb::ShaderWatches>, Status> {
        let r = req.into_inner();
        self.run(move |s| {
            s.shader_watch(&r.expr, r.remove)
                .map(|exprs| pb::ShaderWatches { exprs })
        })
        .await
    }

    async fn pixel_history(
        &self,
        req: Request<pb::PixelHistoryRequest>,
    ) -> Result<Response<pb::PixelHistoryReply>, Status> {
        let ask = convert::history_ask(&req.into_inner()).map_err(Status::from)?;
        self.run(move |s| s.pixel_history(ask).map(Into::into))
            .await
    }

    async fn debug_history(
        &self,
        req: Request<pb::DebugHistoryRequest>,
    ) -> Result<Response<pb::HistoryDebug>, Status> {
        let entry = req.into_inner().entry;
        self.run(move |s| {
            s.debug_history(entry).map(|d| pb::HistoryDebug {
                stop: Some(d.stop.into()),
                differences: d.differences,
                call: Some(d.call),
            })
        })
        .await
    }

    async fn info_sources(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::SourceReads>, Status> {
        self.run(|s| s.info_sources().map(convert::source_reads))
            .await
    }

    async fn dprintf(
        &self,
        req: Request<pb::DprintfRequest>,
    ) -> Result<Response<pb::DprintfReply>, Status> {
        let r = req.into_inner();
        if r.line == 0 {
            return Err(invalid(
                "line = 0 is out of range (shader lines count from 1)",
            ));
        }
        self.run(move |s| {
            let (messages, dropped, timing) =
                s.dprintf(r.line, &r.format, &r.args, r.limit, r.focused)?;
            Ok(pb::DprintfReply {
                messages,
                dropped,
                timing: timing.map(Into::into),
            })
        })
        .await
    }

    async fn set_source_files(
        &self,
        req: Request<pb::SourceFiles>,
    ) -> Result<Response<pb::SourceFiles>, Status> {
        let files = req.into_inner();
        self.run(move |s| s.set_source_files(files)).await
    }

    async fn list_shaders(
        &self,
        _req: Request<pb::Empty>,
    ) -> Result<Response<pb::ShaderSources>, Status> {
        Ok(Response::new(self.session.list_shaders()))
    }

    async fn memcheck(
        &self,
        req: Request<pb::MemcheckRequest>,
    ) -> Result<Response<pb::MemcheckReport>, Status> {
        let n = req.into_inner().mode;
        let mode = pb::MemcheckMode::try_from(n).map_err(|_| {
            Status::invalid_argument(format!(
                "memcheck: unknown mode {n} (REPORT 0, OFF 1, ON 2, STOP 3)"
            ))
        })?;
        self.run(move |s| Ok(s.memcheck(mode))).await
    }

    async fn set_trace_budget(
        &self,
        req: Request<pb::TraceBudget>,
    ) -> Result<Response<pb::TraceBudget>, Status> {
        let r = req.into_inner();
        self.run(move |s| {
            s.set_trace_budget(r.records, r.bytes)
                .map(|b| pb::TraceBudget {
                    records: u64::from(b.records),
                    bytes: b.bytes,
                })
        })
        .await
    }

    async fn shader_break(
        &self,
        req: Request<pb::ShaderBreakRequest>,
    ) -> Result<Response<pb::ShaderBreakpoints>, Status> {
        let r = req.into_inner();
        if r.line == 0 {
            return Err(invalid(
                "line = 0 is out of range (shader lines count from 1)",
            ));
        }
        let condition = Some(r.condition).filter(|c| !c.trim().is_empty());
        self.run(move |s| {
            s.shader_break(r.line, condition, r.temporary)
                .map(convert::shader_breakpoints)
        })
        .await
    }

    async fn shader_break_condition(
        &self,
        req: Request<pb::ShaderBreakConditionRequest>,
    ) -> Result<Response<pb::ShaderBreakpoints>, Status> {
        let r = req.into_inner();
        let condition = r
            .set_condition
            .then(|| Some(r.condition).filter(|c| !c.trim().is_empty()));
        let ignore = r.set_ignore.then_some(r.ignore);
        self.run(move |s| {
            s.shader_break_condition(r.line, condition, ignore)
                .map(convert::shader_breakpoints)
        })
        .await
    }

    async fn shader_breakpoint_list(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::ShaderBreakpoints>, Status> {
        self.run(|s| s.shader_breakpoint_list().map(convert::shader_breakpoints))
            .await
    }

    async fn shader_catch(
        &self,
        req: Request<pb::CatchRequest>,
    ) -> Result<Response<pb::CatchReply>, Status> {
        let r = req.into_inner();
        if !r.nan && !r.inf {
            return Err(invalid("catch needs nan or inf"));
        }
        self.run(move |s| {
            s.shader_catch(r.nan, r.inf, !r.remove)
                .map(|c| pb::CatchReply {
                    nan: c.nan,
                    inf: c.inf,
                })
        })
        .await
    }

    async fn shader_delete_break(
        &self,
        req: Request<pb::ShaderBreakRequest>,
    ) -> Result<Response<pb::ShaderBreakpoints>, Status> {
        let line = req.into_inner().line;
        self.run(move |s| s.shader_delete_break(line).map(convert::shader_breakpoints))
            .await
    }

    async fn shader_continue(
        &self,
        _: Request<pb::Empty>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        self.run(|s| s.shader_continue().map(Into::into)).await
    }

    async fn shader_list(
        &self,
        req: Request<pb::ShaderListRequest>,
    ) -> Result<Response<pb::SourceListing>, Status> {
        let r = req.into_inner();
        self.run(move |s| {
            s.shader_list(r.line, r.context)
                .map(|(lines, file)| convert::listing(lines, file))
        })
        .await
    }

    async fn print(
        &self,
        req: Request<pb::PrintRequest>,
    ) -> Result<Response<pb::PrintReply>, Status> {
        let r = req.into_inner();
        let at = convert::invocation(r.at);
        self.run(move |s| s.print(&r.expr, at).map(Into::into))
            .await
    }

    async fn dump(&self, req: Request<pb::DumpRequest>) -> Result<Response<pb::DumpReply>, Status> {
        let r = req.into_inner();
        let format: pb::DumpFormat = known_enum("format", r.format, "0 png, 1 npy, 2 raw")?;
        let colormap: pb::DumpColormap =
            known_enum("colormap", r.colormap, "0 channels, 1 viridis")?;
        let encoding = match format {
            pb::DumpFormat::Png => crate::image::DumpEncoding::Png,
            pb::DumpFormat::Npy => crate::image::DumpEncoding::Npy,
            pb::DumpFormat::Raw => crate::image::DumpEncoding::Raw,
        };
        let png = crate::image::PngOptions {
            range: r.fixed_range.then_some((r.range_min, r.range_max)),
            viridis: colormap == pb::DumpColormap::Viridis,
        };
        self.run(move |s| s.dump(&r.expr, encoding, png).map(Into::into))
            .await
    }

    async fn end_debug(&self, _: Request<pb::Empty>) -> Result<Response<pb::StateReply>, Status> {
        self.run(|s| s.end_debug()).await
    }

    async fn focus(
        &self,
        req: Request<pb::FocusRequest>,
    ) -> Result<Response<pb::ShaderStop>, Status> {
        let at = convert::focus_on(req.into_inner().at);
        self.run(move |s| s.focus(at).map(Into::into)).await
    }

    async fn info_flow(&self, _: Request<pb::Empty>) -> Result<Response<pb::FlowInfo>, Status> {
        self.run(|s| s.info_flow().map(Into::into)).await
    }

    type EventsStream = EventStream;

    async fn events(&self, _: Request<pb::Empty>) -> Result<Response<Self::EventsStream>, Status> {
        let rx = self.session.subscribe();
        let mut events = BroadcastStream::new(rx).map(|r| match r {
            Ok(ev) => Ok(ev),
            Err(tokio_stream::wrappers::errors::BroadcastStreamRecvError::Lagged(n)) => {
                Ok(pb::Event {
                    kind: Some(pb::event::Kind::Warning(format!(
                        "{n} events were dropped (the client reads too slowly)"
                    ))),
                    seq: 0,
                })
            }
        });
        let (tx, out) = tokio::sync::mpsc::channel(64);
        let mut shutdown = self.shutdown.clone();
        if *shutdown.borrow_and_update() {
            return Err(Status::unavailable("the server is shutting down"));
        }
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    ev = events.next() => match ev {
                        Some(ev) => if tx.send(ev).await.is_err() { return },
                        None => return,
                    },
                    _ = tx.closed() => return,
                    // Only `true` is ever sent: any change (or the sender gone) is the shutdown.
                    _ = shutdown.changed() => return,
                }
            }
        });
        Ok(Response::new(Box::pin(
            tokio_stream::wrappers::ReceiverStream::new(out),
        )))
    }
}

#[cfg(test)]
mod tests {
    use tonic::{Code, Status};

    use crate::error::Error;
    use crate::launch::TraceError;
    use crate::shm::ShmError;

    fn status(e: Error) -> (Code, String) {
        let s = Status::from(e);
        (s.code(), s.message().to_string())
    }

    #[test]
    fn typed_errors_keep_their_codes_and_words() {
        assert_eq!(
            status(Error::NotTaken(ShmError::Timeout)),
            (
                Code::Internal,
                "the app did not take the command: timeout".into()
            )
        );
        assert_eq!(
            status(TraceError::Ended.into()),
            (Code::Internal, "the tracer has ended".into())
        );
        assert_eq!(
            status(Error::app_memory("reading")(nix::errno::Errno::EFAULT)),
            (
                Code::Internal,
                "reading the app's memory: EFAULT: Bad address".into()
            )
        );
        assert_eq!(
            status(Error::Preload {
                what: "querying the program",
                status: 6
            }),
            (
                Code::Internal,
                "querying the program failed (status 6)".into()
            )
        );
        assert_eq!(
            status(Error::FailedPrecondition("the app has exited".into())),
            (Code::FailedPrecondition, "the app has exited".into())
        );
        // The source stays reachable for logs.
        let e = Error::os("thread")(std::io::Error::other("no threads"));
        assert_eq!(e.to_string(), "thread: no threads");
        assert!(std::error::Error::source(&e).is_some());
    }
}
