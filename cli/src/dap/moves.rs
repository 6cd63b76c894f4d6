//! Moves and stops: the editor's continue and steps (a shader step is
//! answered in its request, from the trace or one replay; the app's moves
//! run as a `Moving` future that owns the CLI session until the app
//! stops), and the `stopped`, `exited` and `terminated` events their
//! outcomes become.

use gldbg_proto::pb;
use serde_json::{Value, json};

use super::adapter::{Adapter, Reply, parse_line};
use super::model::{Moving, Plan, Step};
use crate::exec::{Failure, Outcome, Session};

impl Adapter {
    pub fn resume_continue(&mut self) -> Reply {
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
    pub async fn resume_step(&mut self, shader_line: &str, gl_line: Option<&str>) -> Reply {
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
    pub fn start_move(&mut self, line: String, plan: Plan, reason: &'static str) -> Option<Moving> {
        let mut session = self.session.take()?;
        self.refs.clear();
        self.moving_reason = reason;
        Some(Box::pin(async move {
            let steps = run_plan(&mut session, line, plan).await;
            (session, steps)
        }))
    }

    /// A move ended: tell the client where the app is.
    pub async fn moved(&mut self, steps: Vec<Step>) {
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
        self.finding = r.memcheck.clone();
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
        if let Some(f) = &r.memcheck {
            // `memcheck stop`: the finding is the exception (exceptionInfo).
            let text = super::memcheck::finding_text(f);
            self.stopped_event("exception", Some(text), &[]);
            return;
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
