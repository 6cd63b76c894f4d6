//! Rendering command results and events: gdb-like text, or JSON lines (CLI.md).
//!
//! Each command's result is one typed view ([`Reply`]: a struct per kind of
//! result, built from the daemon's reply), shown two ways: its `Display` is
//! the text, its serde `Serialize` the JSON keys. Text is for people and may
//! change; the JSON keys are the contract scripts and tests rely on (CLI.md
//! "JSON lines"). Components are shown by the kind of their GLSL type,
//! parsed once from the reply's type name (`glsl_type`).
//!
//! Modules: `glsl_type` (type names), `values` (components, parts,
//! undefined), `call` (calls, exits, crashes), `stop` (shader stops,
//! invocations, timing), `state` (where the app stands), `print`, `shader`
//! (`list`, `info flow`, `dump`), `info` (breakpoints, program, GL state,
//! displays and watches, help), `trace` (locals, frames, the trace budget),
//! `history` (pixel history and `debug history`), `memcheck` (findings
//! and the report).

mod call;
mod glsl_type;
mod history;
mod info;
mod memcheck;
mod print;
mod shader;
mod state;
mod stop;
mod trace;
mod values;

use std::fmt;

use gldbg_proto::pb;

/// serde's `skip_serializing_if` for numbers left out when zero.
fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

/// serde's `skip_serializing_if` for flags left out when false.
fn is_false(b: &bool) -> bool {
    !*b
}

use serde::Serialize;
use serde_json::{Value, json};

use crate::exec::{Failure, Outcome};

/// The typed result of one successful command: one variant per kind of
/// result, each its own text (`Display`) and JSON keys (`Serialize`).
#[derive(Serialize)]
#[serde(untagged)]
enum Reply<'a> {
    State(state::StateView<'a>),
    Detached(state::Detached<'a>),
    Call(call::CallReply<'a>),
    Breakpoint(info::BreakpointSet<'a>),
    ShaderBreak(info::ShaderBreakSet<'a>),
    Breakpoints(info::BreakpointsView<'a>),
    Program(info::ProgramView<'a>),
    GlState(info::GlStateView<'a>),
    ShaderStop(stop::ShaderStopView<'a>),
    Listing(shader::ListingView<'a>),
    Print(print::PrintView<'a>),
    Dump(shader::DumpView<'a>),
    Exprs(info::ExprsView<'a>),
    Locals(trace::LocalsView<'a>),
    Frames(trace::FramesView<'a>),
    Budget(trace::BudgetView),
    Catches(trace::CatchesView),
    Dprintf(trace::DprintfView),
    Flow(shader::FlowView<'a>),
    History(history::HistoryView<'a>),
    HistoryDebug(history::HistoryDebugView<'a>),
    Sources(history::SourcesView<'a>),
    Memcheck(memcheck::ReportView<'a>),
    Help(info::HelpView),
    /// `quit`: no keys, no text.
    Quit {},
}

impl<'a> Reply<'a> {
    fn new(outcome: &'a Outcome) -> Reply<'a> {
        match outcome {
            Outcome::State(r) => Reply::State(state::StateView::new(r)),
            Outcome::Detached(r) => Reply::Detached(state::Detached(state::StateView::new(r))),
            Outcome::Call(c) => Reply::Call(call::CallReply::new(c)),
            Outcome::Breakpoint(b) => Reply::Breakpoint(info::BreakpointSet::new(b)),
            Outcome::ShaderBreak { line, lines } => {
                Reply::ShaderBreak(info::ShaderBreakSet::new(*line, lines))
            }
            Outcome::Breakpoints {
                deleted,
                gl,
                shader,
                details,
            } => Reply::Breakpoints(info::BreakpointsView::new(*deleted, gl, shader, details)),
            Outcome::Catches(c) => Reply::Catches(trace::CatchesView::new(c)),
            Outcome::Dprintf(d) => Reply::Dprintf(trace::DprintfView::new(d)),
            Outcome::Program(p) => Reply::Program(info::ProgramView::new(p)),
            Outcome::GlState(st) => Reply::GlState(info::GlStateView::new(st)),
            Outcome::ShaderStop(stop) => Reply::ShaderStop(stop::ShaderStopView::new(stop)),
            Outcome::Listing(l) => Reply::Listing(shader::ListingView::new(l)),
            Outcome::Print { reply, at, stage } => {
                Reply::Print(print::PrintView::new(reply, *at, stage))
            }
            Outcome::Dump {
                file,
                width,
                height,
                ty,
                reached,
                stage,
                mapped,
                viridis,
                legend_width,
                written_unknown,
            } => Reply::Dump(shader::DumpView::new(shader::Dumped {
                file,
                width: *width,
                height: *height,
                ty,
                reached: *reached,
                stage,
                mapped,
                viridis: *viridis,
                legend_width: *legend_width,
                written_unknown,
            })),
            Outcome::Displays(list) => Reply::Exprs(info::ExprsView::displays(list)),
            Outcome::Watches(list) => Reply::Exprs(info::ExprsView::watches(list)),
            Outcome::Locals { args, reply } => Reply::Locals(trace::LocalsView::new(*args, reply)),
            Outcome::Frames(r) => Reply::Frames(trace::FramesView::new(r)),
            Outcome::TraceBudget(b) => Reply::Budget(trace::BudgetView::new(b)),
            Outcome::Flow { info, chart } => {
                Reply::Flow(shader::FlowView::new(info, chart.as_deref()))
            }
            Outcome::History(h) => Reply::History(history::HistoryView::new(h)),
            Outcome::HistoryDebug(d) => Reply::HistoryDebug(history::HistoryDebugView::new(d)),
            Outcome::Sources(r) => Reply::Sources(history::SourcesView::new(r)),
            Outcome::Memcheck(r) => Reply::Memcheck(memcheck::ReportView::new(r)),
            Outcome::Help(topic) => Reply::Help(info::HelpView::new(topic.as_deref())),
            Outcome::Quit => Reply::Quit {},
        }
    }
}

impl fmt::Display for Reply<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::State(v) => v.fmt(f),
            Reply::Detached(v) => v.fmt(f),
            Reply::Call(v) => v.fmt(f),
            Reply::Breakpoint(v) => v.fmt(f),
            Reply::ShaderBreak(v) => v.fmt(f),
            Reply::Breakpoints(v) => v.fmt(f),
            Reply::Program(v) => v.fmt(f),
            Reply::GlState(v) => v.fmt(f),
            Reply::ShaderStop(v) => v.fmt(f),
            Reply::Listing(v) => v.fmt(f),
            Reply::Print(v) => v.fmt(f),
            Reply::Dump(v) => v.fmt(f),
            Reply::Exprs(v) => v.fmt(f),
            Reply::Locals(v) => v.fmt(f),
            Reply::Frames(v) => v.fmt(f),
            Reply::Budget(v) => v.fmt(f),
            Reply::Catches(v) => v.fmt(f),
            Reply::Dprintf(v) => v.fmt(f),
            Reply::Flow(v) => v.fmt(f),
            Reply::History(v) => v.fmt(f),
            Reply::HistoryDebug(v) => v.fmt(f),
            Reply::Sources(v) => v.fmt(f),
            Reply::Memcheck(v) => v.fmt(f),
            Reply::Help(v) => v.fmt(f),
            Reply::Quit {} => Ok(()),
        }
    }
}

/// One result line: the command, whether it worked, and the error or the
/// result's own keys.
#[derive(Serialize)]
struct ResultLine<'a> {
    cmd: &'a str,
    ok: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a str>,
    #[serde(flatten)]
    reply: Option<Reply<'a>>,
}

/// The text of a command result (no trailing newline; may be empty).
pub fn result_text(result: &Result<Outcome, Failure>) -> String {
    match result {
        Ok(outcome) => Reply::new(outcome).to_string(),
        Err(msg) => format!("Error: {msg}"),
    }
}

/// A displayed expression's value after a shader stop (text).
pub fn display_text(result: &Result<Outcome, Failure>) -> String {
    match result {
        Ok(_) => format!("display: {}", result_text(result)),
        Err(e) => format!("display: error: {e}"),
    }
}

/// A displayed expression's value after a shader stop: a `display` event with
/// the keys of a `print` result (`expr`, `type`, `value` or `summary`, ...).
pub fn display_json(display: &str, result: &Result<Outcome, Failure>) -> Value {
    let mut v = result_json(display, result);
    if let Value::Object(o) = &mut v {
        o.remove("cmd");
        o.insert("event".into(), json!("display"));
    }
    v
}

/// The JSON line of a command result: `cmd`, `ok`, `error` or the outcome's keys.
pub fn result_json(cmd: &str, result: &Result<Outcome, Failure>) -> Value {
    let line = ResultLine {
        cmd,
        ok: result.is_ok(),
        error: result.as_ref().err().map(String::as_str),
        reply: result.as_ref().ok().map(Reply::new),
    };
    to_json(&line)
}

/// A view as a JSON value (its maps keep their keys' order).
fn to_json(view: &impl Serialize) -> Value {
    serde_json::to_value(view).expect("a result view is always valid JSON")
}

/// An event worth showing between commands: its name and view.
#[derive(Serialize)]
#[serde(untagged)]
enum EventView<'a> {
    Crashed(call::CrashView<'a>),
    Exited(call::ExitView<'a>),
    Warning {
        message: &'a str,
    },
    Output {
        stream: &'a str,
        text: &'a str,
    },
    Dprintf {
        #[serde(skip_serializing_if = "Option::is_none")]
        invocation: Option<stop::AtJson>,
        /// Vertex and tessellation invocations: their built-ins.
        #[serde(skip_serializing_if = "serde_json::Map::is_empty")]
        ids: serde_json::Map<String, Value>,
        text: &'a str,
    },
    Memcheck(memcheck::FindingView<'a>),
}

/// The view and name of an event worth showing (`None`: not shown).
fn event_view(event: &pb::Event) -> Option<(&'static str, EventView<'_>)> {
    use pb::event::Kind;
    Some(match event.kind.as_ref()? {
        Kind::Crashed(c) => ("crashed", EventView::Crashed(call::CrashView::new(c))),
        Kind::Exited(e) => ("exited", EventView::Exited(call::ExitView::new(e))),
        Kind::Warning(w) => ("warning", EventView::Warning { message: w }),
        Kind::Output(o) => (
            "output",
            EventView::Output {
                stream: &o.stream,
                text: &o.text,
            },
        ),
        Kind::Dprintf(d) => (
            "dprintf",
            EventView::Dprintf {
                invocation: stop::invocation_at(d.invocation.as_ref()).map(stop::AtJson),
                ids: d
                    .id_names
                    .iter()
                    .zip(&d.id_values)
                    // Ids are integers; a tess coordinate is a float.
                    .map(|(n, &v)| match n.starts_with("gl_TessCoord") {
                        true => (n.clone(), json!(v)),
                        false => (n.clone(), json!(v as i64)),
                    })
                    .collect(),
                text: &d.text,
            },
        ),
        Kind::Memcheck(m) => (
            "memcheck",
            EventView::Memcheck(memcheck::FindingView::new(m)),
        ),
        Kind::Stopped(_) | Kind::Running(_) => return None,
    })
}

/// The text of an event worth showing between commands (`None`: not shown).
pub fn event_text(event: &pb::Event) -> Option<String> {
    Some(match event_view(event)?.1 {
        EventView::Crashed(c) => c.to_string(),
        EventView::Exited(e) => e.to_string(),
        EventView::Warning { message } => format!("warning: {message}"),
        EventView::Output { text, .. } => text.trim_end_matches('\n').to_string(),
        EventView::Dprintf {
            invocation,
            ids,
            text,
        } => match invocation {
            Some(stop::AtJson(at)) => format!("dprintf @ {at}: {text}"),
            None => {
                let ids: Vec<String> = ids.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("dprintf [{}]: {text}", ids.join(", "))
            }
        },
        EventView::Memcheck(m) => m.to_string(),
    })
}

/// One event line: its name, sequence number and the event's own keys.
#[derive(Serialize)]
struct EventLine<'a> {
    event: &'static str,
    seq: u64,
    #[serde(flatten)]
    view: EventView<'a>,
}

/// The JSON line of an event worth showing (`None`: not shown).
pub fn event_json(event: &pb::Event) -> Option<Value> {
    let (name, view) = event_view(event)?;
    Some(to_json(&EventLine {
        event: name,
        seq: event.seq,
        view,
    }))
}

#[cfg(test)]
mod tests;

/// A value's components as the CLI shows them, components not written yet
/// named as such, never as a number (DAP's variables and hovers).
pub fn value_text(ty: &str, parts: &[pb::ValuePart], values: &[f64], undefined: &[u32]) -> String {
    values::Layout::new(ty, parts).written_text(values, undefined)
}

/// A local's value as `info locals` shows it (a traced value, or a summary
/// over every invocation), without its type and name.
pub fn local_text(l: &pb::LocalValue) -> String {
    trace::LocalView::new(l).value_text().to_string()
}
