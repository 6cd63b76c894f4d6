//! Where the app stands: the result of launch, `continue`, `step`, `skip`,
//! `end`, `kill`, `pause` and `detach` (and `connect`'s first look).

use std::fmt;

use gldbg_proto::pb;
use serde::Serialize;

use super::call::{CallBrief, CrashView, ExitView, call_line};
use super::memcheck::FindingView;
use super::stop::ShaderStopView;

fn state_name(state: pb::RunState) -> &'static str {
    match state {
        pb::RunState::Unspecified => "unknown",
        pb::RunState::NotStarted => "not-started",
        pb::RunState::Running => "running",
        pb::RunState::Stopped => "stopped",
        pb::RunState::Exited => "exited",
    }
}

use super::is_zero;

/// The app's state: stopped at a call (and in a shader), exited, crashed.
#[derive(Serialize)]
pub struct StateView<'a> {
    state: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<CallBrief<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    breakpoint: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    exited: Option<ExitView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    crashed: Option<CrashView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    shader: Option<ShaderStopView<'a>>,
    /// The finding a `memcheck stop` stopped at.
    #[serde(skip_serializing_if = "Option::is_none")]
    memcheck: Option<FindingView<'a>>,
    #[serde(skip)]
    reply: &'a pb::StateReply,
}

impl<'a> StateView<'a> {
    pub fn new(reply: &'a pb::StateReply) -> StateView<'a> {
        let state = reply.state();
        StateView {
            state: state_name(state),
            stopped: reply
                .stop
                .as_ref()
                .filter(|_| state == pb::RunState::Stopped)
                .map(CallBrief::new),
            breakpoint: reply.breakpoint_id,
            exited: reply
                .exit
                .as_ref()
                .filter(|_| state == pb::RunState::Exited)
                .map(ExitView::new),
            crashed: reply.crash.as_ref().map(CrashView::new),
            shader: reply.shader.as_ref().map(ShaderStopView::new),
            memcheck: reply.memcheck.as_ref().map(FindingView::new),
            reply,
        }
    }

    /// `Stopped at #12 glDrawArrays(...) [thread 1] (draw 1, breakpoint 1)`
    fn stopped_line(&self, call: &pb::CallInfo) -> String {
        let mut s = format!("Stopped at {}", call_line(call));
        let mut extras = Vec::new();
        if call.draw != 0 {
            extras.push(format!("draw {}", call.draw));
        }
        if call.frame > 1 || (call.frame == 1 && call.draw == 0) {
            extras.push(format!("frame {}", call.frame));
        }
        if self.breakpoint != 0 {
            extras.push(format!("breakpoint {}", self.breakpoint));
        }
        if !extras.is_empty() {
            s.push_str(&format!(" ({})", extras.join(", ")));
        }
        s
    }
}

impl fmt::Display for StateView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::new();
        if let Some(crash) = &self.crashed {
            lines.push(crash.to_string());
        }
        let reply = self.reply;
        lines.push(match reply.state() {
            pb::RunState::Stopped => match &reply.stop {
                Some(call) => self.stopped_line(call),
                None => "Stopped.".into(),
            },
            pb::RunState::Exited => reply
                .exit
                .as_ref()
                .map(|e| ExitView::new(e).to_string())
                .unwrap_or_else(|| "Program exited.".into()),
            pb::RunState::Running => "The app is running.".into(),
            pb::RunState::NotStarted => "No app has been started.".into(),
            pb::RunState::Unspecified => "State unknown.".into(),
        });
        if let Some(m) = &self.memcheck {
            lines.push(m.to_string());
        }
        if let Some(stop) = &self.shader {
            lines.push(stop.to_string());
        }
        f.write_str(&lines.join("\n"))
    }
}

/// `detach`: the state's keys; as text, that the app runs on.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Detached<'a>(pub StateView<'a>);

impl fmt::Display for Detached<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Detached: the app runs on without gldbg.")
    }
}
