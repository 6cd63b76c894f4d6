//! One DAP client's session: the adapter's state, the loop that serves
//! requests while a move runs and the daemon's events arrive, and the
//! dispatch of each request to its handler (`impl Adapter` blocks in
//! `launch`, `breakpoints`, `frames`, `sources`, `evaluate`, `history`,
//! `moves`).
//!
//! A move takes the CLI session (`exec::Session`) into its future and gives
//! it back when the app stops: while it runs, requests that need a stopped
//! app are answered with an error, `pause`, `threads`, breakpoints,
//! `terminate` and `disconnect` still work (they use a clone of the gRPC
//! client). Every request gets exactly one response.

use std::collections::BTreeSet;

use gldbg_proto::pb;
use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio::sync::mpsc;

use super::model::{Breakpoints, Launched, Moving, Plan, Refs};
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
    /// The memcheck finding the app is stopped at (exceptionInfo).
    pub finding: Option<pb::MemcheckFinding>,
    /// `exited` and `terminated` were sent.
    pub ended: bool,
    /// An attached app runs and no move waits for its stop: the daemon's
    /// `stopped` event reports it.
    pub running_unwatched: bool,
    /// The events before a move's stop are being drained: the move's own
    /// outcome reports the app's exit.
    pub draining: bool,
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
            finding: None,
            ended: false,
            running_unwatched: false,
            draining: false,
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
            "pixelHistory" => self.pixel_history(args).await,
            "debugHistory" => self.debug_history(args).await,
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
            Some(Kind::Memcheck(f)) => self.out.console(
                "important",
                &format!("{}\n", super::memcheck::finding_text(&f)),
            ),
            Some(Kind::Exited(e)) => {
                // A move's own reply reports the exit (its events are
                // drained before it); this is for an app that ends while
                // no move runs (e.g. after detach). After a crash the
                // exception stop stays until the client ends the session.
                if self.session.is_some() && !self.draining && self.crash.is_none() {
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
        self.draining = true;
        while let Ok(Some(ev)) = tokio::time::timeout(quiet, events.recv()).await {
            let last = matches!(
                ev.kind,
                Some(Kind::Stopped(_) | Kind::Exited(_) | Kind::Crashed(_))
            );
            self.daemon_event(ev).await;
            if last {
                break;
            }
        }
        self.draining = false;
    }
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
