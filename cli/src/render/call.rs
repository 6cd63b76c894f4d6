//! GL calls, exits and crashes: `info call` / `set arg` results, the call
//! a stop is at, and the pieces state lines and events share.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};

use gldbg_proto::pb;
use serde::Serialize;

use super::{is_false, is_zero};

/// `#12 glDrawArrays(mode=GL_TRIANGLES, first=0, count=6) [thread 1234]`
pub fn call_line(call: &pb::CallInfo) -> String {
    if call.paused {
        return format!(
            "pause, outside GL: pc {:#x} [thread {}]",
            call.pc, call.thread
        );
    }
    let args: Vec<String> = call
        .args
        .iter()
        .map(|a| format!("{}={}", a.name, a.value))
        .collect();
    let mut s = format!("#{} {}({})", call.call, call.function, args.join(", "));
    if !call.returned.is_empty() {
        let _ = write!(s, " = {}", call.returned);
    }
    if !call.error.is_empty() {
        let _ = write!(s, " raised {}", call.error);
    }
    let _ = write!(s, " [thread {}]", call.thread);
    s
}

/// A call in brief (`"stopped"`, a crash's calls): which call, where.
#[derive(Serialize)]
pub struct CallBrief<'a> {
    function: &'a str,
    call: u64,
    thread: u32,
    #[serde(skip_serializing_if = "is_zero")]
    draw: u64,
    #[serde(skip_serializing_if = "is_zero")]
    frame: u64,
    #[serde(skip_serializing_if = "str::is_empty")]
    error: &'a str,
    #[serde(skip_serializing_if = "is_false")]
    paused: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pc: Option<u64>,
    #[serde(skip_serializing_if = "is_zero")]
    pid: u32,
}

impl<'a> CallBrief<'a> {
    pub fn new(call: &'a pb::CallInfo) -> CallBrief<'a> {
        CallBrief {
            function: &call.function,
            call: call.call,
            thread: call.thread,
            draw: call.draw,
            frame: call.frame,
            error: &call.error,
            paused: call.paused,
            pc: call.paused.then_some(call.pc),
            pid: call.pid,
        }
    }
}

/// One argument of a call, as decoded and as passed (`raw`).
#[derive(Serialize)]
pub struct Arg<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    value: &'a str,
    raw: u64,
    #[serde(skip_serializing_if = "str::is_empty")]
    contents: &'a str,
}

fn args(call: &pb::CallInfo) -> Vec<Arg<'_>> {
    call.args
        .iter()
        .map(|a| Arg {
            name: &a.name,
            ty: &a.r#type,
            value: &a.value,
            raw: a.raw,
            contents: &a.contents,
        })
        .collect()
}

/// `info call`, `set arg`: the call with its arguments, one per line.
#[derive(Serialize)]
pub struct CallReply<'a> {
    function: &'a str,
    call: u64,
    thread: u32,
    #[serde(skip_serializing_if = "is_zero")]
    draw: u64,
    #[serde(skip_serializing_if = "is_zero")]
    frame: u64,
    args: Vec<Arg<'a>>,
    #[serde(skip_serializing_if = "str::is_empty")]
    returned: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    gl_error: &'a str,
    stopped: CallBrief<'a>,
    #[serde(skip)]
    info: &'a pb::CallInfo,
}

impl<'a> CallReply<'a> {
    pub fn new(call: &'a pb::CallInfo) -> CallReply<'a> {
        CallReply {
            function: &call.function,
            call: call.call,
            thread: call.thread,
            draw: call.draw,
            frame: call.frame,
            args: args(call),
            returned: &call.returned,
            gl_error: &call.error,
            stopped: CallBrief::new(call),
            info: call,
        }
    }
}

impl fmt::Display for CallReply<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let call = self.info;
        f.write_str(&call_line(call))?;
        match (call.draw, call.frame) {
            (0, 0) => {}
            (0, fr) => write!(f, " (frame {fr})")?,
            (d, 0) => write!(f, " (draw {d})")?,
            (d, fr) => write!(f, " (draw {d}, frame {fr})")?,
        }
        let name_w = call.args.iter().map(|a| a.name.len()).max().unwrap_or(0);
        let type_w = call.args.iter().map(|a| a.r#type.len()).max().unwrap_or(0);
        for a in &call.args {
            write!(
                f,
                "\n  {:name_w$}  {:type_w$}  = {}",
                a.name, a.r#type, a.value
            )?;
            for line in a.contents.lines() {
                write!(f, "\n      | {line}")?;
            }
        }
        if !call.returned.is_empty() {
            write!(f, "\n  returned {}", call.returned)?;
        }
        if !call.error.is_empty() {
            write!(
                f,
                "\n  raised {} (the app still gets it from glGetError)",
                call.error
            )?;
        }
        Ok(())
    }
}

/// How the app exited (`"exited"`, the `exited` event).
#[derive(Serialize)]
pub struct ExitView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    signal: Option<i32>,
    #[serde(skip_serializing_if = "str::is_empty")]
    description: &'a str,
}

impl<'a> ExitView<'a> {
    pub fn new(exit: &'a pb::Exit) -> ExitView<'a> {
        ExitView {
            code: exit.code,
            signal: exit.signal,
            description: &exit.description,
        }
    }
}

impl fmt::Display for ExitView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let desc = self.description;
        match (self.code, self.signal) {
            (Some(code), _) => write!(f, "Program exited with code {code}."),
            (None, Some(sig)) if desc.is_empty() => {
                write!(f, "Program terminated by signal {sig}.")
            }
            (None, Some(sig)) => write!(f, "Program terminated by signal {sig} ({desc})."),
            (None, None) if desc.is_empty() => f.write_str("Program exited."),
            (None, None) => write!(f, "Program exited ({desc})."),
        }
    }
}

/// The call a crash happened in or after: in brief, with its arguments.
#[derive(Serialize)]
struct CrashCall<'a> {
    #[serde(flatten)]
    brief: CallBrief<'a>,
    args: Vec<Arg<'a>>,
}

/// A crash of the app (`"crashed"`, the `crashed` event).
#[derive(Serialize)]
pub struct CrashView<'a> {
    signal: i32,
    signal_name: &'a str,
    fault_address: u64,
    thread: u32,
    in_call: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    call: Option<CrashCall<'a>>,
    /// The last GL call the thread entered (function and call number).
    #[serde(skip_serializing_if = "Option::is_none")]
    entered: Option<CallBrief<'a>>,
    #[serde(skip_serializing_if = "is_zero")]
    pid: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    stopped_calls_seen: Vec<CallBrief<'a>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    registers: BTreeMap<&'a str, u64>,
    #[serde(skip)]
    crash: &'a pb::Crash,
}

impl<'a> CrashView<'a> {
    pub fn new(crash: &'a pb::Crash) -> CrashView<'a> {
        CrashView {
            signal: crash.signal,
            signal_name: &crash.signal_name,
            fault_address: crash.fault_address,
            thread: crash.thread,
            in_call: crash.in_call,
            call: crash.call.as_ref().map(|c| CrashCall {
                brief: CallBrief::new(c),
                args: args(c),
            }),
            entered: crash
                .entered
                .as_ref()
                .filter(|_| !crash.in_call)
                .map(CallBrief::new),
            pid: crash.pid,
            stopped_calls_seen: crash
                .stopped_calls_seen
                .iter()
                .map(CallBrief::new)
                .collect(),
            registers: crash
                .registers
                .iter()
                .map(|(k, v)| (k.as_str(), *v))
                .collect(),
            crash,
        }
    }
}

impl fmt::Display for CrashView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let crash = self.crash;
        write!(
            f,
            "Program crashed: {} (signal {}) at address {:#x} [thread {}]",
            if crash.signal_name.is_empty() {
                "signal"
            } else {
                &crash.signal_name
            },
            crash.signal,
            crash.fault_address,
            crash.thread
        )?;
        if let Some(call) = &crash.call {
            let where_ = if crash.in_call {
                "in"
            } else {
                "after the last GL call seen,"
            };
            write!(f, "\n  {where_} {}", call_line(call))?;
        }
        if let Some(e) = crash.entered.as_ref().filter(|_| !crash.in_call) {
            write!(
                f,
                "\n  the last GL call the thread entered: #{} {} (in flight or returned: gldbg cannot tell)",
                e.call, e.function
            )?;
        }
        if !crash.stopped_calls_seen.is_empty() {
            write!(
                f,
                "\n  last calls gldbg stopped at on that thread (not every call):"
            )?;
            for c in &crash.stopped_calls_seen {
                write!(f, "\n    {}", call_line(c))?;
            }
        }
        Ok(())
    }
}
