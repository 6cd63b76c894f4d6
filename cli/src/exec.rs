//! Running parsed commands against the daemon: one [`Session`] per connection.
//!
//! The session keeps the little state the command language needs on the client
//! side: whether a shader is being debugged (so `step`, `continue`, `break N`
//! and `delete` go to the shader), the shader breakpoint lines, whether the app
//! is gone. Every command yields an [`Outcome`] (rendered by `render`) or an
//! error message meant for the user.

use std::path::{Path, PathBuf};

use gldbg_proto::pb;
use tonic::Status;

mod history;
mod memcheck;
mod trace;

use crate::client::Client;
use crate::command::{
    At, BreakTarget, BufferMode, Command, DumpFormat, DumpOptions, FragmentOptions, Stage, q,
};

/// The result value of one successful command.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Launch, continue, step, skip, end, kill (and `connect`'s first look).
    State(pb::StateReply),
    /// `detach`: the app runs on without gldbg.
    Detached(pb::StateReply),
    /// `info call`, `set arg`.
    Call(pb::CallInfo),
    /// `break` of a GL call.
    Breakpoint(pb::Breakpoint),
    /// `break LINE` in shader mode: the line and all shader breakpoint lines now.
    ShaderBreak {
        line: u32,
        lines: Vec<u32>,
    },
    /// `info breakpoints`, `delete`.
    Breakpoints {
        deleted: Option<Deleted>,
        gl: Vec<pb::Breakpoint>,
        shader: Vec<u32>,
        /// Shader breakpoints' conditions and hit counts.
        details: Vec<pb::ShaderBreakpoint>,
    },
    /// `catch nan|inf [off]`: what is caught now.
    Catches(pb::CatchReply),
    /// `dprintf`: how many messages came (as events) and were dropped.
    Dprintf(pb::DprintfReply),
    /// `info program`.
    Program(pb::ProgramInfo),
    /// `info state`.
    GlState(pb::GlState),
    /// `debug STAGE` and the shader-mode step/next/finish/continue.
    ShaderStop(pb::ShaderStop),
    /// `list`.
    Listing(pb::SourceListing),
    /// `print`: the reply, the invocation asked for, the stage (for words like "fragments").
    Print {
        reply: pb::PrintReply,
        at: Option<At>,
        stage: String,
    },
    /// `dump`: the file written and what was in it.
    Dump {
        file: PathBuf,
        width: u32,
        height: u32,
        ty: String,
        reached: u64,
        stage: String,
        /// PNG: the range mapped onto each colour channel drawn.
        mapped: Vec<(f64, f64)>,
        viridis: bool,
        /// Columns of the legend bar at the image's right (0: none).
        legend_width: u32,
        /// Names gldbg cannot tell were written (drawn as read).
        written_unknown: Vec<String>,
    },
    /// `display`, `undisplay`: the displayed expressions now.
    Displays(Vec<String>),
    /// `watch`, `unwatch`: the watched expressions now.
    Watches(Vec<String>),
    /// `info locals` / `info args`.
    Locals {
        args: bool,
        reply: pb::Locals,
    },
    /// `backtrace` in shader mode.
    Frames(pb::CallStack),
    /// `set trace-records` / `set trace-bytes`: the budget now.
    TraceBudget(pb::TraceBudget),
    /// `info flow`, and the chart file written if one was asked for.
    Flow {
        info: pb::FlowInfo,
        chart: Option<PathBuf>,
    },
    /// `history`: the texel's history.
    History(pb::PixelHistoryReply),
    /// `debug history K`: the stop at the entry's draw of the next frame.
    HistoryDebug(pb::HistoryDebug),
    /// `info sources`.
    Sources(pb::SourceReads),
    /// `memcheck [on|off|stop]`: the mode now and the report.
    Memcheck(pb::MemcheckReport),
    /// `help [CMD]`: the topic asked for.
    Help(Option<String>),
    Quit,
}

/// What a `delete` removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deleted {
    AllGl,
    Gl(u32),
    AllShader,
    ShaderLine(u32),
}

/// Why the app can no longer be debugged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Gone {
    Exited,
    Detached,
    NotStarted,
}

/// A failed command: the message shown to the user.
pub type Failure = String;

fn status_message(s: Status) -> Failure {
    if s.message().is_empty() {
        format!("{:?}", s.code())
    } else {
        s.message().to_string()
    }
}

/// The client side of one debugging session.
pub struct Session {
    client: Client,
    /// The stage being debugged (shader mode), if any.
    shader: Option<String>,
    /// Shader breakpoint lines, as last reported by the daemon.
    shader_breaks: Vec<u32>,
    /// Why the app can no longer be debugged, once it cannot.
    gone: Option<Gone>,
    /// `display` expressions, printed after every shader stop.
    displays: Vec<String>,
    /// The invocation steps follow (`focus`): watches are printed there.
    focus: Option<At>,
}

const NO_SHADER: &str = "no shader is being debugged (use `debug STAGE` at a draw call first)";

impl Session {
    pub fn new(client: Client) -> Session {
        Session {
            client,
            shader: None,
            shader_breaks: Vec::new(),
            gone: None,
            displays: Vec::new(),
            focus: None,
        }
    }

    /// A clone of the client (for the Events stream).
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// True while the app is still there and gldbg still controls it.
    pub fn app_alive(&self) -> bool {
        self.gone.is_none()
    }

    /// True once the app has exited (or was killed).
    pub fn exited(&self) -> bool {
        self.gone == Some(Gone::Exited)
    }

    /// Take note of an event seen on the Events stream.
    pub fn note_event(&mut self, event: &pb::Event) {
        if let Some(pb::event::Kind::Exited(_)) = event.kind {
            self.gone = Some(Gone::Exited);
            self.leave_shader();
        }
    }

    fn note_state(&mut self, reply: &pb::StateReply) {
        match reply.state() {
            pb::RunState::Exited => {
                self.gone = Some(Gone::Exited);
                self.leave_shader();
            }
            _ => match &reply.shader {
                Some(stop) => {
                    // A source breakpoint's stop is focused on its first hit.
                    if self.shader.is_none() {
                        self.focus = invocation_at(stop.focus.as_ref());
                    }
                    self.shader = Some(stop.stage.clone());
                }
                None => self.leave_shader(),
            },
        }
    }

    fn leave_shader(&mut self) {
        self.shader = None;
        self.shader_breaks.clear();
        self.displays.clear();
        self.focus = None;
    }

    /// The displayed expressions' values at the current shader stop (at the
    /// focused invocation, else over all), each with the `display` command
    /// that set it up; nothing outside shader mode.
    pub async fn displayed(&mut self) -> Vec<(String, Result<Outcome, Failure>)> {
        let mut out = Vec::new();
        if self.shader.is_none() || !self.app_alive() {
            return out;
        }
        for expr in self.displays.clone() {
            let print = Command::Print {
                expr: expr.clone(),
                at: self.focus,
            };
            out.push((
                format!("display {expr}"),
                Box::pin(self.execute(&print)).await,
            ));
        }
        out
    }

    /// Start the program (run mode).
    /// `interactive`: the REPL runs on a terminal; the app gets its own
    /// process group so Ctrl-C reaches only gldbg (which pauses the app).
    /// `capture_output`: the app's stdout and stderr come as `output`
    /// events (JSON lines stay whole lines, never glued to app text).
    pub async fn launch(
        &mut self,
        program: &str,
        args: &[String],
        cwd: &str,
        interactive: bool,
        capture_output: bool,
    ) -> Result<Outcome, Failure> {
        let request = pb::LaunchRequest {
            program: program.to_string(),
            args: args.to_vec(),
            env: Vec::new(),
            cwd: cwd.to_string(),
            own_process_group: interactive,
            capture_output,
            stdin_null: false,
        };
        let reply = self
            .client
            .launch(request)
            .await
            .map_err(status_message)?
            .into_inner();
        self.note_state(&reply);
        Ok(Outcome::State(reply))
    }

    /// Where the session stands (connect mode's first look).
    pub async fn get_state(&mut self) -> Result<Outcome, Failure> {
        let reply = self
            .client
            .get_state(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        if reply.state() == pb::RunState::NotStarted {
            // Nothing to kill at the end, nothing to debug.
            self.gone = Some(Gone::NotStarted);
        }
        self.note_state(&reply);
        Ok(Outcome::State(reply))
    }

    /// End the app if gldbg still controls it (end of a batch run, `quit`).
    pub async fn kill_if_alive(&mut self) -> Result<Option<Outcome>, Failure> {
        if !self.app_alive() {
            return Ok(None);
        }
        let state = self
            .client
            .get_state(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        match state.state() {
            pb::RunState::Stopped | pb::RunState::Running => {
                let reply = self
                    .client
                    .kill(pb::Empty {})
                    .await
                    .map_err(status_message)?
                    .into_inner();
                self.note_state(&reply);
                self.gone = Some(Gone::Exited);
                Ok(Some(Outcome::State(reply)))
            }
            _ => {
                self.gone = Some(Gone::Exited);
                Ok(None)
            }
        }
    }

    fn need_app(&self) -> Result<(), Failure> {
        match self.gone {
            None => Ok(()),
            Some(Gone::Exited) => Err("the app is not running (it has exited)".into()),
            Some(Gone::Detached) => Err("the app was detached".into()),
            Some(Gone::NotStarted) => {
                Err("no app has been started (the daemon has no program)".into())
            }
        }
    }

    fn need_shader(&self) -> Result<String, Failure> {
        self.need_app()?;
        self.shader.clone().ok_or_else(|| NO_SHADER.to_string())
    }

    async fn shader_step(&mut self, mode: pb::StepMode, count: u64) -> Result<Outcome, Failure> {
        let request = pb::ShaderStepRequest {
            mode: mode as i32,
            count,
        };
        let stop = self
            .client
            .shader_step(request)
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::ShaderStop(stop))
    }

    async fn state_rpc(
        &mut self,
        reply: Result<tonic::Response<pb::StateReply>, Status>,
    ) -> Result<Outcome, Failure> {
        let reply = reply.map_err(status_message)?.into_inner();
        self.note_state(&reply);
        Ok(Outcome::State(reply))
    }

    /// Run one command.
    pub async fn execute(&mut self, cmd: &Command) -> Result<Outcome, Failure> {
        let out = self.run_command(cmd).await;
        // A conditional stop focuses its first hit: displays follow it.
        if let Ok(Outcome::ShaderStop(stop)) = &out {
            self.focus = invocation_at(stop.focus.as_ref());
        }
        out
    }

    async fn run_command(&mut self, cmd: &Command) -> Result<Outcome, Failure> {
        match cmd {
            Command::Help(topic) => Ok(Outcome::Help(topic.clone())),
            Command::Quit => Ok(Outcome::Quit),
            Command::Continue => self.cont().await,
            Command::Step(n) => self.step(pb::StepMode::Into, *n).await,
            Command::Next(n) => self.step(pb::StepMode::Over, *n).await,
            Command::Finish => {
                self.need_shader().map_err(|_| {
                    "finish: only while debugging a shader (out of the current function)"
                        .to_string()
                })?;
                self.shader_step(pb::StepMode::Out, 1).await
            }
            Command::Skip => {
                self.need_app()?;
                let r = self.client.skip(pb::Empty {}).await;
                self.state_rpc(r).await
            }
            Command::Pause => {
                self.need_app()?;
                let r = self.client.pause(pb::Empty {}).await;
                self.state_rpc(r).await
            }
            Command::Break(target) => self.gl_break(target).await,
            Command::InfoBreakpoints => self.info_breakpoints().await,
            Command::Delete(id) if self.shader.is_some() => self.delete_shader_break(*id).await,
            Command::Delete(id) => self.delete_gl_break(*id).await,
            Command::InfoCall => self.info_call().await,
            Command::SetArg {
                index,
                element,
                value,
            } => self.set_arg(*index, *element, value).await,
            Command::InfoState(name) => self.info_state(name.as_deref()).await,
            Command::InfoProgram => self.info_program().await,
            Command::Debug(stage, options) => self.debug(*stage, options).await,
            Command::List(line) => self.list(*line).await,
            Command::Print { expr, at } => self.print(expr, *at).await,
            Command::Dump {
                expr,
                file,
                format,
                options,
            } => self.dump(expr, file, *format, options).await,
            Command::Display(expr) => self.display(expr),
            Command::Undisplay(expr) => self.undisplay(expr.as_deref()),
            Command::Focus(at) => self.focus(*at).await,
            Command::Watch(expr) => self.watch(expr, false).await,
            Command::Unwatch(expr) => self.watch(expr.as_deref().unwrap_or(""), true).await,
            Command::Reverse(r) => self.reverse(*r).await,
            Command::InfoLocals { args } => self.info_locals(*args).await,
            Command::Backtrace if self.shader.is_some() => self.backtrace().await,
            Command::Backtrace => self.info_call().await,
            Command::Frame(m) => self.frame(*m).await,
            Command::SetTraceBudget { records, bytes } => {
                self.set_trace_budget(*records, *bytes).await
            }
            Command::ShaderBreak {
                line,
                condition,
                temporary,
            } => {
                self.conditional_break(*line, condition.as_deref(), *temporary)
                    .await
            }
            Command::Condition { line, condition } => {
                self.break_condition(*line, Some(condition.as_deref()), None)
                    .await
            }
            Command::Ignore { line, count } => {
                self.break_condition(*line, None, Some(*count)).await
            }
            Command::Catch { nan, inf, off } => self.catch(*nan, *inf, *off).await,
            Command::Dprintf { line, format, args } => self.dprintf(*line, format, args).await,
            Command::History(h) => self.history(*h).await,
            Command::DebugHistory(k) => self.debug_history(*k).await,
            Command::InfoSources => self.info_sources().await,
            Command::Memcheck(set) => self.memcheck(*set).await,
            Command::SourceBreak {
                file,
                line,
                condition,
                temporary,
                log,
            } => {
                let spec = pb::SourceBreakpoint {
                    file: file.clone(),
                    line: *line,
                    condition: condition.clone().unwrap_or_default(),
                    temporary: *temporary,
                    log_format: log.as_ref().map(|l| l.0.clone()).unwrap_or_default(),
                    log_args: log.as_ref().map(|l| l.1.clone()).unwrap_or_default(),
                    ..Default::default()
                };
                self.source_break(spec).await
            }
            Command::InfoFlow(file) => self.info_flow(file.as_deref()).await,
            Command::End => self.end().await,
            Command::Detach => self.detach().await,
            Command::Kill => self.kill().await,
        }
    }

    // ------------------------------------------------------------ running

    /// `continue`: to the next shader stop in shader mode, else the next GL stop.
    async fn cont(&mut self) -> Result<Outcome, Failure> {
        self.need_app()?;
        if self.shader.is_some() {
            let stop = self
                .client
                .shader_continue(pb::Empty {})
                .await
                .map_err(status_message)?
                .into_inner();
            Ok(Outcome::ShaderStop(stop))
        } else {
            let r = self.client.r#continue(pb::Empty {}).await;
            self.state_rpc(r).await
        }
    }

    /// `step N` / `next N`: shader steps (into or over calls) in shader
    /// mode, else GL calls.
    async fn step(&mut self, mode: pb::StepMode, count: u64) -> Result<Outcome, Failure> {
        self.need_app()?;
        if self.shader.is_some() {
            self.shader_step(mode, count).await
        } else {
            let r = self.client.step(pb::StepRequest { count }).await;
            self.state_rpc(r).await
        }
    }

    /// `end`: leave the shader, back at its draw call.
    async fn end(&mut self) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let r = self.client.end_debug(pb::Empty {}).await;
        let out = self.state_rpc(r).await?;
        self.leave_shader();
        Ok(out)
    }

    /// `detach`: the app runs on without gldbg.
    async fn detach(&mut self) -> Result<Outcome, Failure> {
        self.need_app()?;
        let reply = self
            .client
            .detach(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        self.gone = Some(Gone::Detached);
        self.leave_shader();
        Ok(Outcome::Detached(reply))
    }

    async fn kill(&mut self) -> Result<Outcome, Failure> {
        self.need_app()?;
        let r = self.client.kill(pb::Empty {}).await;
        let out = self.state_rpc(r).await?;
        self.gone = Some(Gone::Exited);
        self.leave_shader();
        Ok(out)
    }

    // ------------------------------------------------------------ breakpoints

    /// `break LINE` in shader mode.
    async fn shader_break(&mut self, line: u32) -> Result<Outcome, Failure> {
        self.need_shader()
            .map_err(|m| format!("break {line}: {m}"))?;
        let reply = self
            .client
            .shader_break(pb::ShaderBreakRequest {
                line,
                ..Default::default()
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

    /// `break`: a shader line, or a GL call, draw, frame, GL error or shader switch.
    async fn gl_break(&mut self, target: &BreakTarget) -> Result<Outcome, Failure> {
        use pb::breakpoint_spec::Kind;
        let kind = match target {
            BreakTarget::Function(f) => Kind::Function(f.clone()),
            BreakTarget::Draw => Kind::Draw(pb::Empty {}),
            BreakTarget::DrawNumber(n) => Kind::DrawNumber(*n),
            BreakTarget::ShaderSwitch => Kind::ShaderSwitch(pb::Empty {}),
            BreakTarget::Frame => Kind::Frame(pb::Empty {}),
            BreakTarget::GlError => Kind::GlError(pb::Empty {}),
            BreakTarget::Line(line) => return self.shader_break(*line).await,
        };
        let bp = self
            .client
            .add_breakpoint(pb::BreakpointSpec { kind: Some(kind) })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Breakpoint(bp))
    }

    /// `break FILE:LINE`, `tbreak FILE:LINE`, `dprintf FILE:LINE,...`: the
    /// file is read here (the daemon may run elsewhere) and sent with it.
    async fn source_break(&mut self, mut spec: pb::SourceBreakpoint) -> Result<Outcome, Failure> {
        spec.text = std::fs::read_to_string(&spec.file)
            .map_err(|e| format!("{}: cannot read the shader file: {e}", spec.file))?;
        let bp = self
            .client
            .add_breakpoint(pb::BreakpointSpec {
                kind: Some(pb::breakpoint_spec::Kind::Source(spec)),
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Breakpoint(bp))
    }

    /// The GL breakpoints, after `deleted` (if any) was removed.
    async fn breakpoints(&mut self, deleted: Option<Deleted>) -> Result<Outcome, Failure> {
        let list = self
            .client
            .list_breakpoints(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        let details = match self.shader.is_some() {
            true => {
                let list = self
                    .client
                    .shader_breakpoint_list(pb::Empty {})
                    .await
                    .map_err(status_message)?
                    .into_inner();
                // The daemon's list (a `tbreak` goes at its stop).
                self.shader_breaks = list.lines;
                list.breakpoints
            }
            false => Vec::new(),
        };
        Ok(Outcome::Breakpoints {
            deleted,
            gl: list.breakpoints,
            shader: self.shader_breaks.clone(),
            details,
        })
    }

    async fn info_breakpoints(&mut self) -> Result<Outcome, Failure> {
        self.breakpoints(None).await
    }

    /// `delete [LINE]` in shader mode: one shader breakpoint, or all.
    async fn delete_shader_break(&mut self, line: Option<u32>) -> Result<Outcome, Failure> {
        let reply = self
            .client
            .shader_delete_break(pb::ShaderBreakRequest {
                line: line.unwrap_or(0),
                ..Default::default()
            })
            .await
            .map_err(status_message)?
            .into_inner();
        self.shader_breaks = reply.lines;
        let deleted = match line {
            Some(l) => Deleted::ShaderLine(l),
            None => Deleted::AllShader,
        };
        self.breakpoints(Some(deleted)).await
    }

    /// `delete [ID]`: one GL breakpoint, or all.
    async fn delete_gl_break(&mut self, id: Option<u32>) -> Result<Outcome, Failure> {
        let list = self
            .client
            .delete_breakpoint(pb::DeleteBreakpointRequest {
                id: id.unwrap_or(0),
            })
            .await
            .map_err(status_message)?
            .into_inner();
        let deleted = match id {
            Some(i) => Deleted::Gl(i),
            None => Deleted::AllGl,
        };
        Ok(Outcome::Breakpoints {
            deleted: Some(deleted),
            gl: list.breakpoints,
            shader: self.shader_breaks.clone(),
            details: Vec::new(),
        })
    }

    // ------------------------------------------------------------ GL calls

    async fn info_call(&mut self) -> Result<Outcome, Failure> {
        self.need_app()?;
        let call = self
            .client
            .info_call(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Call(call))
    }

    async fn set_arg(
        &mut self,
        index: u32,
        element: Option<u32>,
        value: &str,
    ) -> Result<Outcome, Failure> {
        self.need_app()?;
        let call = self
            .client
            .set_arg(pb::SetArgRequest {
                index,
                value: value.to_string(),
                element,
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Call(call))
    }

    async fn info_state(&mut self, name: Option<&str>) -> Result<Outcome, Failure> {
        self.need_app()?;
        let state = self
            .client
            .info_state(pb::InfoStateRequest {
                name: name.unwrap_or_default().to_string(),
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::GlState(state))
    }

    async fn info_program(&mut self) -> Result<Outcome, Failure> {
        self.need_app()?;
        let program = self
            .client
            .info_program(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Program(program))
    }

    // ------------------------------------------------------------ shaders

    /// `debug STAGE [options]`: enter shader mode at the current draw.
    async fn debug(&mut self, stage: Stage, options: &FragmentOptions) -> Result<Outcome, Failure> {
        self.need_app()?;
        let mode = |m: BufferMode| match m {
            BufferMode::Copy => pb::FragmentBuffer::BufferCopy,
            BufferMode::Clear => pb::FragmentBuffer::BufferClear,
            BufferMode::Off => pb::FragmentBuffer::TestOff,
        } as i32;
        let request = pb::DebugShaderRequest {
            stage: stage.name().to_string(),
            clear_depth_stencil: false,
            depth: mode(options.depth),
            stencil: mode(options.stencil),
            alpha_test_off: options.alpha_test_off,
        };
        let stop = self
            .client
            .debug_shader(request)
            .await
            .map_err(status_message)?
            .into_inner();
        self.shader = Some(if stop.stage.is_empty() {
            stage.name().to_string()
        } else {
            stop.stage.clone()
        });
        self.shader_breaks.clear();
        Ok(Outcome::ShaderStop(stop))
    }

    async fn list(&mut self, line: Option<u32>) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let request = pb::ShaderListRequest {
            line: line.unwrap_or(0),
            context: 0,
        };
        let listing = self
            .client
            .shader_list(request)
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Listing(listing))
    }

    async fn print(&mut self, expr: &str, at: Option<At>) -> Result<Outcome, Failure> {
        let stage = self.need_shader()?;
        let request = pb::PrintRequest {
            expr: expr.to_string(),
            at: at.map(invocation),
        };
        let reply = self
            .client
            .print(request)
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Print { reply, at, stage })
    }

    /// `dump EXPR FILE`: the values into a PNG or .npy file.
    async fn dump(
        &mut self,
        expr: &str,
        file: &Path,
        format: DumpFormat,
        options: &DumpOptions,
    ) -> Result<Outcome, Failure> {
        let stage = self.need_shader()?;
        let format = match format {
            DumpFormat::Png => pb::DumpFormat::Png,
            DumpFormat::Npy => pb::DumpFormat::Npy,
        };
        let (lo, hi) = options.range.unwrap_or_default();
        let request = pb::DumpRequest {
            expr: expr.to_string(),
            format: format as i32,
            fixed_range: options.range.is_some(),
            range_min: lo,
            range_max: hi,
            colormap: if options.viridis {
                pb::DumpColormap::Viridis
            } else {
                pb::DumpColormap::Channels
            } as i32,
        };
        let reply = self
            .client
            .dump(request)
            .await
            .map_err(status_message)?
            .into_inner();
        std::fs::write(file, &reply.data)
            .map_err(|e| format!("cannot write {}: {e}", q(&file.display().to_string())))?;
        Ok(Outcome::Dump {
            file: file.to_path_buf(),
            width: reply.width,
            height: reply.height,
            ty: reply.r#type,
            reached: reply.reached,
            stage,
            mapped: reply
                .mapped_min
                .iter()
                .zip(&reply.mapped_max)
                .map(|(&lo, &hi)| (lo, hi))
                .collect(),
            viridis: options.viridis,
            legend_width: reply.legend_width,
            written_unknown: reply.written_unknown,
        })
    }

    fn display(&mut self, expr: &str) -> Result<Outcome, Failure> {
        self.need_shader()?;
        if !self.displays.iter().any(|w| w == expr) {
            self.displays.push(expr.to_string());
        }
        Ok(Outcome::Displays(self.displays.clone()))
    }

    /// `undisplay EXPR`, or every display.
    fn undisplay(&mut self, expr: Option<&str>) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let Some(expr) = expr else {
            self.displays.clear();
            return Ok(Outcome::Displays(Vec::new()));
        };
        let before = self.displays.len();
        self.displays.retain(|w| w != expr);
        if self.displays.len() == before {
            return Err(format!("`{}` is not displayed", q(expr)));
        }
        Ok(Outcome::Displays(self.displays.clone()))
    }

    /// `focus AT` / `focus off`: the invocation steps follow.
    async fn focus(&mut self, at: Option<At>) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let stop = self
            .client
            .focus(pb::FocusRequest {
                at: at.map(invocation),
            })
            .await
            .map_err(status_message)?
            .into_inner();
        self.focus = at;
        Ok(Outcome::ShaderStop(stop))
    }

    /// `info flow [FILE.png]`: the branch or loop here, and its chart.
    async fn info_flow(&mut self, file: Option<&Path>) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let info = self
            .client
            .info_flow(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        if let Some(f) = file {
            std::fs::write(f, &info.chart_png)
                .map_err(|e| format!("cannot write {}: {e}", q(&f.display().to_string())))?;
        }
        Ok(Outcome::Flow {
            info,
            chart: file.map(Path::to_path_buf),
        })
    }
}

/// An invocation of the wire as the command language writes it.
pub fn invocation_at(inv: Option<&pb::Invocation>) -> Option<At> {
    use pb::invocation::Kind;
    match inv.and_then(|i| i.kind.as_ref()) {
        Some(Kind::Pixel(p)) => Some(At::Pixel { x: p.x, y: p.y }),
        Some(Kind::Vertex(n)) => Some(At::Vertex(*n)),
        Some(Kind::Primitive(n)) => Some(At::Primitive(*n)),
        Some(Kind::Invocation(w)) => Some(At::Invocation {
            x: w.x,
            y: w.y,
            z: w.z,
        }),
        None => None,
    }
}

/// The wire form of an `@` invocation.
pub fn invocation(at: At) -> pb::Invocation {
    use pb::invocation::Kind;
    let kind = match at {
        At::Pixel { x, y } => Kind::Pixel(pb::Pixel { x, y }),
        At::Vertex(n) => Kind::Vertex(n),
        At::Primitive(n) => Kind::Primitive(n),
        At::Invocation { x, y, z } => Kind::Invocation(pb::Workgroup { x, y, z }),
    };
    pb::Invocation { kind: Some(kind) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invocation_forms() {
        use pb::invocation::Kind;
        assert_eq!(
            invocation(At::Pixel { x: 10, y: 5 }).kind,
            Some(Kind::Pixel(pb::Pixel { x: 10, y: 5 }))
        );
        assert_eq!(invocation(At::Vertex(2)).kind, Some(Kind::Vertex(2)));
        assert_eq!(invocation(At::Primitive(3)).kind, Some(Kind::Primitive(3)));
        assert_eq!(
            invocation(At::Invocation { x: 1, y: 2, z: 3 }).kind,
            Some(Kind::Invocation(pb::Workgroup { x: 1, y: 2, z: 3 }))
        );
    }
}
