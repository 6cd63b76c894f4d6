//! One DAP client's session: the adapter's state, the loop that serves
//! requests while a move runs and the daemon's events arrive, the moves
//! (continue, steps, reverse moves) and the `stopped` events they end in.
//!
//! A move takes the CLI session (`exec::Session`) into its future and gives
//! it back when the app stops: while it runs, requests that need a stopped
//! app are answered with an error, `pause`, `threads`, breakpoints,
//! `terminate` and `disconnect` still work (they use a clone of the gRPC
//! client). Every request gets exactly one response.

use std::collections::BTreeSet;
use std::future::Future;
use std::pin::Pin;

use gldbg_proto::pb;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::sync::mpsc;

use super::model::{Breakpoints, Launched, Refs};
use super::wire::{self, Incoming, Request};
use crate::client::Client;
use crate::command::{self, Command};
use crate::exec::{Failure, Outcome, Session};

/// A request's result: its body, or the message of its error response.
pub type Reply = Result<Value, String>;

/// The app is running: what a request that needs it stopped says.
pub const RUNNING: &str = "the app is running: pause it first (or wait for a stop)";
/// No app yet.
pub const NOT_LAUNCHED: &str = "no app yet: send launch or attach first";

/// Messages to the client, numbered by the writer task.
#[derive(Clone)]
pub struct Outbox(mpsc::UnboundedSender<Value>);

impl Outbox {
    pub fn send(&self, msg: Value) {
        let _ = self.0.send(msg);
    }
    pub fn event(&self, name: &str, body: Value) {
        self.send(wire::event(name, body));
    }
    /// Text in the debug console.
    pub fn console(&self, category: &str, text: &str) {
        self.event("output", json!({"category": category, "output": text}));
    }
}

/// A move in progress: it owns the CLI session until the app stops.
type Moving = Pin<Box<dyn Future<Output = (Session, Vec<Step>)> + Send>>;

/// One command of a move and its result.
pub struct Step {
    pub line: String,
    pub result: Result<Outcome, Failure>,
}

/// How a move goes on after each command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// One command.
    Once,
    /// The shader's `continue`; when the draw has no further hit, `end`
    /// and the app's `continue` (to the next breakpoint of any kind).
    ShaderThenApp,
}

/// Whether the loop goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    Go,
    End,
}

pub struct Adapter {
    pub out: Outbox,
    /// The CLI session (None before launch/attach and while a move runs).
    pub session: Option<Session>,
    /// A clone of the gRPC client, usable while a move runs.
    pub client: Option<Client>,
    pub launched: Option<Launched>,
    /// A move to start once the request that asked for it is answered.
    pub pending_move: Option<(String, Plan, &'static str)>,
    /// A stop reached while answering the request, reported after its response.
    /// With the console command that moved, as the event's description.
    pub pending_stop: Option<(Outcome, Option<String>)>,
    /// The reason the running move's stop will give, unless the stop says better.
    pub moving_reason: &'static str,
    pub configured: bool,
    pub breakpoints: Breakpoints,
    pub refs: Refs,
    /// Thread ids seen at stops (DAP threads: the app's GL threads).
    pub threads: BTreeSet<u32>,
    /// The last stop's thread.
    pub thread: u32,
    /// The crash, once the app crashed (exceptionInfo).
    pub crash: Option<pb::Crash>,
    /// `exited` and `terminated` were sent.
    pub ended: bool,
    /// An attached app runs and no move waits for its stop: the daemon's
    /// `stopped` event reports it.
    pub running_unwatched: bool,
    /// Events that follow the current request's response.
    pub pending_events: Vec<(String, Value)>,
    pub events: Option<mpsc::UnboundedReceiver<pb::Event>>,
}

/// Serve one client on `reader`/`writer` until it disconnects or goes away.
pub async fn serve<R, W>(reader: R, writer: W) -> anyhow::Result<()>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let writer_task = tokio::spawn(write_loop(writer, out_rx));
    let (in_tx, mut in_rx) = mpsc::unbounded_channel();
    tokio::spawn(read_loop(reader, in_tx));
    let mut a = Adapter::new(Outbox(out_tx));
    let mut moving: Option<Moving> = None;
    let mut events: Option<mpsc::UnboundedReceiver<pb::Event>> = None;
    loop {
        if events.is_none() {
            events = a.events.take();
        }
        tokio::select! {
            // The daemon's events first: the app's output and log messages
            // reach the client before the stop or the exit that follows them.
            biased;
            ev = async { events.as_mut().expect("guarded").recv().await }, if events.is_some() => {
                match ev {
                    Some(ev) => a.daemon_event(ev).await,
                    None => events = None,
                }
            }
            msg = in_rx.recv() => {
                let Some(msg) = msg else {
                    a.client_gone(moving.take()).await;
                    break;
                };
                if a.incoming(msg).await == Flow::End {
                    break;
                }
                if let Some((line, plan, reason)) = a.pending_move.take() {
                    if let Some(m) = a.start_move(line, plan, reason) {
                        moving = Some(m);
                    }
                }
            }
            done = async { moving.as_mut().expect("guarded").await }, if moving.is_some() => {
                moving = None;
                let (session, steps) = done;
                a.session = Some(session);
                if let Some(ev) = events.as_mut() {
                    a.drain_to_stop(ev).await;
                }
                a.moved(steps).await;
            }
        }
    }
    if let Some(ev) = events.as_mut() {
        // What the app said last (its exit's output) still reaches the client.
        while let Ok(e) = ev.try_recv() {
            a.daemon_event(e).await;
        }
    }
    a.shutdown().await;
    drop(a);
    let _ = writer_task.await;
    Ok(())
}

async fn write_loop<W: AsyncWrite + Unpin>(mut w: W, mut rx: mpsc::UnboundedReceiver<Value>) {
    let mut seq = 0i64;
    while let Some(mut msg) = rx.recv().await {
        seq += 1;
        msg["seq"] = json!(seq);
        if wire::write_message(&mut w, &msg).await.is_err() {
            break;
        }
    }
}

async fn read_loop<R: AsyncBufRead + Unpin>(mut r: R, tx: mpsc::UnboundedSender<Incoming>) {
    while let Ok(Some(msg)) = wire::read_message(&mut r).await {
        if tx.send(msg).is_err() {
            break;
        }
    }
}

impl Adapter {
    fn new(out: Outbox) -> Adapter {
        Adapter {
            out,
            session: None,
            client: None,
            launched: None,
            pending_move: None,
            pending_stop: None,
            moving_reason: "step",
            configured: false,
            breakpoints: Breakpoints::default(),
            refs: Refs::default(),
            threads: BTreeSet::new(),
            thread: 0,
            crash: None,
            ended: false,
            running_unwatched: false,
            pending_events: Vec::new(),
            events: None,
        }
    }

    async fn incoming(&mut self, msg: Incoming) -> Flow {
        let req = match msg {
            Incoming::Request(r) => r,
            Incoming::Malformed { why, seq } => {
                match seq {
                    Some(seq) => self.out.send(wire::error_response(seq, "", &why)),
                    None => self.out.console(
                        "important",
                        &format!("gldbg dap: ignored a malformed message: {why}\n"),
                    ),
                }
                return Flow::Go;
            }
        };
        let (reply, flow) = self.request(&req).await;
        match reply {
            Ok(body) => self.out.send(wire::response(req.seq, &req.command, body)),
            Err(msg) => self
                .out
                .send(wire::error_response(req.seq, &req.command, &msg)),
        }
        self.after_request(&req.command).await;
        flow
    }

    /// What follows a request's response (DAP orders some events after it).
    async fn after_request(&mut self, command: &str) {
        if matches!(command, "launch" | "attach") && self.session.is_some() {
            self.out.event("initialized", json!({}));
        }
        for (name, body) in std::mem::take(&mut self.pending_events) {
            self.out.event(&name, body);
        }
        if let Some((outcome, said)) = self.pending_stop.take() {
            self.report_stop(&outcome, "step", said);
            self.breakpoints_changed().await;
        }
    }

    async fn request(&mut self, req: &Request) -> (Reply, Flow) {
        let args = &req.arguments;
        let reply = match req.command.as_str() {
            "initialize" => Ok(capabilities()),
            "launch" => self.launch(args).await,
            "attach" => self.attach(args).await,
            "configurationDone" => self.configuration_done().await,
            "disconnect" => return (self.disconnect(args).await, Flow::End),
            "terminate" => self.terminate().await,
            "setBreakpoints" => self.set_breakpoints(args).await,
            "setFunctionBreakpoints" => self.set_function_breakpoints(args).await,
            "setExceptionBreakpoints" => Ok(json!({"breakpoints": []})),
            "threads" => Ok(self.threads_body()),
            "stackTrace" => self.stack_trace(args).await,
            "scopes" => self.scopes(args),
            "variables" => self.variables(args).await,
            "source" => self.source(args).await,
            "loadedSources" => self.loaded_sources().await,
            "evaluate" => self.evaluate(args).await,
            "valueImage" => self.value_image(args).await,
            "exceptionInfo" => self.exception_info(),
            "pause" => self.pause().await,
            "continue" => self.resume_continue(),
            "next" => self.resume_step("next", Some("step")).await,
            "stepIn" => self.resume_step("step", Some("step")).await,
            "stepOut" => self.resume_step("finish", Some("step")).await,
            "stepBack" => self.resume_step("reverse-next", None).await,
            "reverseContinue" => self.resume_step("reverse-continue", None).await,
            other => Err(format!("unknown request {}", wire::clip(other))),
        };
        (reply, Flow::Go)
    }

    /// The session, if the app is stopped under it.
    pub fn stopped_session(&mut self) -> Result<&mut Session, String> {
        if self.launched.is_none() {
            return Err(NOT_LAUNCHED.into());
        }
        if self.ended {
            return Err("the app has ended".into());
        }
        self.session.as_mut().ok_or_else(|| RUNNING.to_string())
    }

    /// Run one command line on the stopped app.
    pub async fn exec_line(&mut self, line: &str) -> Result<Outcome, Failure> {
        let cmd = parse_line(line)?;
        let session = self.stopped_session()?;
        session.execute(&cmd).await
    }

    fn resume_continue(&mut self) -> Reply {
        self.stopped_session()?;
        self.pending_move = Some(("continue".into(), Plan::ShaderThenApp, "breakpoint"));
        Ok(json!({"allThreadsContinued": true}))
    }

    /// Whether a shader is being debugged at the app's stop.
    pub async fn shader_now(&mut self) -> Result<bool, String> {
        Ok(match self.stopped_session()?.get_state().await? {
            Outcome::State(r) => r.shader.is_some(),
            _ => false,
        })
    }

    /// A step: in a shader, answered here (from the trace, or one replay)
    /// so that a step the shader cannot take is an error response; at the
    /// GL level a move to the next call.
    async fn resume_step(&mut self, shader_line: &str, gl_line: Option<&str>) -> Reply {
        if !self.shader_now().await? {
            let Some(gl) = gl_line else {
                return Err(format!(
                    "{shader_line} needs a shader's recorded run: stop at a shader line first"
                ));
            };
            self.pending_move = Some((gl.into(), Plan::Once, "step"));
            return Ok(json!({}));
        }
        let outcome = self.exec_line(shader_line).await?;
        self.refs.clear();
        self.pending_stop = Some((outcome, None));
        Ok(json!({}))
    }

    /// Take the session into a move's future.
    fn start_move(&mut self, line: String, plan: Plan, reason: &'static str) -> Option<Moving> {
        let mut session = self.session.take()?;
        self.refs.clear();
        self.moving_reason = reason;
        Some(Box::pin(async move {
            let steps = run_plan(&mut session, line, plan).await;
            (session, steps)
        }))
    }

    /// A move ended: tell the client where the app is.
    async fn moved(&mut self, steps: Vec<Step>) {
        let Some(last) = steps.last() else { return };
        if self.ended {
            // Terminated meanwhile: the client has had `terminated`.
            return;
        }
        match &last.result {
            Ok(outcome) => self.report_stop(outcome, self.moving_reason, None),
            Err(msg) => {
                // The move failed where it stood (e.g. reverse-next without a
                // trace): the app did not move; say why and where it is.
                self.out
                    .console("stderr", &format!("{}: {msg}\n", last.line));
                self.stopped_event("step", Some(msg.clone()), &[]);
            }
        }
        self.breakpoints_changed().await;
    }

    /// The `stopped` (or `exited`) event of an outcome.
    /// `said`: the console command that moved (the event's description).
    pub fn report_stop(
        &mut self,
        outcome: &Outcome,
        default_reason: &'static str,
        said: Option<String>,
    ) {
        self.refs.clear();
        match outcome {
            Outcome::State(r) | Outcome::Detached(r) => self.report_state(r, default_reason),
            Outcome::ShaderStop(stop) => {
                let reason = if stop.trace.as_ref().and_then(|t| t.watch.as_ref()).is_some() {
                    "data breakpoint"
                } else if stop.breakpoint_line != 0 || stop.hits.is_some() {
                    "breakpoint"
                } else {
                    default_reason
                };
                let description =
                    said.or_else(|| stop.finished.then(|| "the shader has finished".to_string()));
                let ids = match (&stop.source, reason) {
                    (Some(at), "breakpoint") => self.breakpoints.at(&at.file, at.line),
                    _ => Vec::new(),
                };
                self.stopped_event(reason, description, &ids);
            }
            _ => self.stopped_event(default_reason, said, &[]),
        }
    }

    pub fn report_state(&mut self, r: &pb::StateReply, default_reason: &'static str) {
        if let Some(crash) = &r.crash {
            self.crash = Some(crash.clone());
            if crash.thread != 0 {
                self.thread = crash.thread;
                self.threads.insert(crash.thread);
            }
            let text = format!("the app crashed: {}", crash.signal_name);
            self.stopped_event("exception", Some(text), &[]);
            return;
        }
        if r.state() == pb::RunState::Exited {
            self.app_ended(r.exit.as_ref());
            return;
        }
        if let Some(call) = &r.stop {
            if call.thread != 0 {
                self.thread = call.thread;
                self.threads.insert(call.thread);
            }
        }
        let (reason, ids) = match r.breakpoint_id {
            0 if r.stop.as_ref().is_some_and(|c| c.paused) => ("pause", vec![]),
            0 => (default_reason, vec![]),
            id if self.breakpoints.is_function(id) => ("function breakpoint", vec![id]),
            id => ("breakpoint", vec![id]),
        };
        self.stopped_event(reason, None, &ids);
    }

    pub fn stopped_event(&mut self, reason: &str, description: Option<String>, ids: &[u32]) {
        let body = self.stopped_body(reason, description, ids);
        self.out.event("stopped", body);
    }

    pub fn stopped_body(&self, reason: &str, description: Option<String>, ids: &[u32]) -> Value {
        let mut body = json!({
            "reason": reason,
            "threadId": self.thread_id(),
            "allThreadsStopped": true,
            "hitBreakpointIds": ids,
        });
        if let Some(d) = description {
            body["description"] = json!(d);
            body["text"] = json!(d);
        }
        body
    }

    /// The DAP id of the thread of the last stop (1 until one is known).
    pub fn thread_id(&self) -> i64 {
        if self.thread != 0 {
            i64::from(self.thread)
        } else {
            1
        }
    }

    pub fn app_ended(&mut self, exit: Option<&pb::Exit>) {
        if self.ended {
            return;
        }
        self.ended = true;
        let code = exit
            .and_then(|e| e.code)
            .or_else(|| exit.and_then(|e| e.signal).map(|s| 128 + s))
            .unwrap_or(0);
        if let Some(e) = exit.filter(|e| !e.description.is_empty()) {
            self.out.console("console", &format!("{}\n", e.description));
        }
        self.out.event("exited", json!({"exitCode": code}));
        self.out.event("terminated", json!({}));
    }

    async fn daemon_event(&mut self, ev: pb::Event) {
        use pb::event::Kind;
        if let Some(s) = self.session.as_mut() {
            s.note_event(&ev);
        }
        match ev.kind {
            Some(Kind::Stopped(_)) if self.running_unwatched => {
                // An attached app that was running reached a breakpoint.
                self.running_unwatched = false;
                if let Some(Ok(Outcome::State(r))) = match self.session.as_mut() {
                    Some(s) => Some(s.get_state().await),
                    None => None,
                } {
                    self.report_state(&r, "breakpoint");
                }
            }
            Some(Kind::Output(o)) => {
                let category = if o.stream == "stderr" {
                    "stderr"
                } else {
                    "stdout"
                };
                self.out.console(category, &o.text);
            }
            Some(Kind::Warning(w)) => self.out.console("important", &format!("gldbg: {w}\n")),
            Some(Kind::Dprintf(d)) => self.out.console("console", &format!("{}\n", d.text)),
            Some(Kind::Exited(e)) => {
                // A move's own reply reports the exit; this is for an app
                // that ends while no move runs (e.g. after detach).
                if self.session.is_some() {
                    self.app_ended(Some(&e));
                }
            }
            _ => {}
        }
    }

    /// The client closed the connection without `disconnect`: the move in
    /// flight is dropped (its request cancelled: the daemon commits nothing
    /// of it) and the app ends or is detached, as configured.
    async fn client_gone(&mut self, moving: Option<Moving>) {
        drop(moving);
        let _ = self.disconnect(&json!({})).await;
    }

    /// Before a move's stop is reported: the daemon's events that came
    /// before it (the app's output, log messages), up to the daemon's own
    /// stop or exit event, or until none came for a moment.
    async fn drain_to_stop(&mut self, events: &mut mpsc::UnboundedReceiver<pb::Event>) {
        use pb::event::Kind;
        let quiet = std::time::Duration::from_millis(50);
        while let Ok(Some(ev)) = tokio::time::timeout(quiet, events.recv()).await {
            let last = matches!(ev.kind, Some(Kind::Stopped(_) | Kind::Exited(_) | Kind::Crashed(_)));
            self.daemon_event(ev).await;
            if last {
                break;
            }
        }
    }
}

/// The commands of one move.
async fn run_plan(session: &mut Session, line: String, plan: Plan) -> Vec<Step> {
    let mut steps = Vec::new();
    let result = run_one(session, &line).await;
    let finished_shader = matches!(&result, Ok(Outcome::ShaderStop(s)) if s.finished && s.hits.is_none() && s.breakpoint_line == 0);
    let was_shader = matches!(&result, Ok(Outcome::ShaderStop(_)));
    steps.push(Step { line, result });
    if plan == Plan::ShaderThenApp && was_shader && finished_shader {
        for line in ["end", "continue"] {
            let result = run_one(session, line).await;
            let failed = result.is_err();
            steps.push(Step {
                line: line.into(),
                result,
            });
            if failed {
                break;
            }
        }
    }
    steps
}

async fn run_one(session: &mut Session, line: &str) -> Result<Outcome, Failure> {
    let cmd = parse_line(line)?;
    session.execute(&cmd).await
}

/// A command line of the CLI's language.
pub fn parse_line(line: &str) -> Result<Command, Failure> {
    match command::parse(line) {
        Ok(Some(cmd)) => Ok(cmd),
        Ok(None) => Err("an empty command".into()),
        Err(e) => Err(e.to_string()),
    }
}

/// The `initialize` response's capabilities.
fn capabilities() -> Value {
    json!({
        "supportsConfigurationDoneRequest": true,
        "supportsFunctionBreakpoints": true,
        "supportsConditionalBreakpoints": true,
        "supportsHitConditionalBreakpoints": true,
        "supportsLogPoints": true,
        "supportsStepBack": true,
        "supportsEvaluateForHovers": true,
        "supportsExceptionInfoRequest": true,
        "supportsLoadedSourcesRequest": true,
        "supportsTerminateRequest": true,
        "supportTerminateDebuggee": true,
        "supportsDelayedStackTraceLoading": false,
        "exceptionBreakpointFilters": [],
    })
}
