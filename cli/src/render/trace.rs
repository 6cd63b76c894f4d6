//! Results of the trace era: `info locals` / `info args` and `backtrace`
//! (values of the focused invocation from its trace, each as `print` shows
//! one: components by type, parts, `undefined` where not written yet), and
//! the trace budget.

use std::fmt;

use gldbg_proto::pb;
use serde::Serialize;

use super::stop::Timing;
use super::values::{Layout, Written};

/// A part of a value in parts.
#[derive(Serialize)]
struct Part<'a> {
    path: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    components: u32,
}

/// One variable: `{"name","type","value"}` or `{"name","type","undefined":true}`
/// (traced), or `{"name","type","summary"}` (over every invocation).
#[derive(Serialize)]
pub struct LocalView<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    #[serde(flatten)]
    value: Option<Written<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<super::print::SummaryJson>,
    /// A summary of a variable some invocations may read before writing.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    maybe_undefined: bool,
    /// Written through a dynamic index: shown as read.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    written_unknown: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parts: Vec<Part<'a>>,
    #[serde(skip)]
    text: String,
}

impl<'a> LocalView<'a> {
    pub(super) fn new(l: &'a pb::LocalValue) -> LocalView<'a> {
        let layout = Layout::new(&l.r#type, &l.parts);
        let summary = l.summary.as_ref();
        LocalView {
            name: &l.name,
            ty: &l.r#type,
            value: summary
                .is_none()
                .then(|| layout.written_json(&l.value, &l.undefined)),
            summary: summary.map(|s| {
                let json = super::print::SummaryJson::new(s, &layout).without("total");
                // No invocation gave it a finite value: no range (not NaN).
                match s.min.iter().all(|m| m.is_nan()) {
                    true => json.without("min").without("max"),
                    false => json,
                }
            }),
            maybe_undefined: l.maybe_undefined,
            written_unknown: l.written_unknown,
            parts: l
                .parts
                .iter()
                .map(|p| Part {
                    path: &p.path,
                    ty: &p.r#type,
                    components: p.components,
                })
                .collect(),
            text: match summary {
                Some(s) => super::print::summary_text(s, &layout),
                None => layout.written_text(&l.value, &l.undefined),
            },
        }
    }
}

impl LocalView<'_> {
    /// The value as text, as `info locals` shows it after `TYPE NAME = `.
    pub(super) fn value_text(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for LocalView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} = {}", self.ty, self.name, self.text)?;
        if self.maybe_undefined {
            f.write_str(
                " (some invocations may not have written it yet: those values are undefined)",
            )?;
        }
        if self.written_unknown {
            f.write_str(" (written through a dynamic index: parts may not be written yet)")?;
        }
        Ok(())
    }
}

/// `info locals` / `info args`.
#[derive(Serialize)]
pub struct LocalsView<'a> {
    locals: Vec<LocalView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
    #[serde(skip)]
    args: bool,
}

impl<'a> LocalsView<'a> {
    pub fn new(args: bool, reply: &'a pb::Locals) -> LocalsView<'a> {
        LocalsView {
            locals: reply.locals.iter().map(LocalView::new).collect(),
            timing: Timing::of(reply.timing.as_ref()),
            args,
        }
    }
}

impl fmt::Display for LocalsView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.locals.is_empty() {
            return f.write_str(match self.args {
                true => "No arguments.",
                false => "No locals.",
            });
        }
        let lines: Vec<String> = self.locals.iter().map(ToString::to_string).collect();
        f.write_str(&lines.join("\n"))
    }
}

/// One frame of `backtrace`.
#[derive(Serialize)]
struct FrameView<'a> {
    level: u32,
    function: &'a str,
    line: u32,
    column: u32,
    args: Vec<LocalView<'a>>,
    /// The frame's place in the user's file (issue 15).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_line: Option<u32>,
}

/// `backtrace` in shader mode: the focused invocation's call stack.
#[derive(Serialize)]
pub struct FramesView<'a> {
    frames: Vec<FrameView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
}

impl<'a> FramesView<'a> {
    pub fn new(reply: &'a pb::CallStack) -> FramesView<'a> {
        FramesView {
            frames: reply
                .frames
                .iter()
                .map(|f| FrameView {
                    level: f.level,
                    function: &f.function,
                    line: f.line,
                    column: f.column,
                    args: f.args.iter().map(LocalView::new).collect(),
                    file: f.source.as_ref().map(|s| s.file.as_str()),
                    file_line: f.source.as_ref().map(|s| s.line),
                })
                .collect(),
            timing: Timing::of(reply.timing.as_ref()),
        }
    }
}

impl fmt::Display for FramesView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.frames.is_empty() {
            return f.write_str("No stack (the shader has finished).");
        }
        let lines: Vec<String> = self
            .frames
            .iter()
            .map(|fr| {
                let args: Vec<String> = fr
                    .args
                    .iter()
                    .map(|a| format!("{}={}", a.name, a.text))
                    .collect();
                let at = match (fr.file, fr.file_line) {
                    (Some(file), Some(n)) => format!(" ({file}:{n})"),
                    _ => String::new(),
                };
                format!(
                    "#{}  {} ({}) at line {}:{}{at}",
                    fr.level,
                    fr.function,
                    args.join(", "),
                    fr.line,
                    fr.column
                )
            })
            .collect();
        f.write_str(&lines.join("\n"))
    }
}

/// `set trace-records` / `set trace-bytes`: the budget now.
#[derive(Serialize)]
pub struct BudgetView {
    trace_budget: Budget,
}

#[derive(Serialize)]
struct Budget {
    records: u64,
    bytes: u64,
}

impl BudgetView {
    pub fn new(b: &pb::TraceBudget) -> BudgetView {
        BudgetView {
            trace_budget: Budget {
                records: b.records,
                bytes: b.bytes,
            },
        }
    }
}

impl fmt::Display for BudgetView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.trace_budget;
        write!(
            f,
            "A trace recording holds up to {} records and {} bytes of values.",
            b.records, b.bytes
        )
    }
}

/// `catch nan|inf [off]`: what `continue` catches now.
#[derive(Serialize)]
pub struct CatchesView {
    catch: Catch,
}

#[derive(Serialize)]
struct Catch {
    nan: bool,
    inf: bool,
}

impl CatchesView {
    pub fn new(c: &pb::CatchReply) -> CatchesView {
        CatchesView {
            catch: Catch {
                nan: c.nan,
                inf: c.inf,
            },
        }
    }
}

impl fmt::Display for CatchesView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.catch;
        match (c.nan, c.inf) {
            (false, false) => f.write_str("Catching nothing."),
            (true, false) => f.write_str("Catching NaN."),
            (false, true) => f.write_str("Catching Inf."),
            (true, true) => f.write_str("Catching NaN and Inf."),
        }
    }
}

/// `dprintf`: the messages (shown as events before it) and those dropped.
#[derive(Serialize)]
pub struct DprintfView {
    messages: u64,
    dropped: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
}

impl DprintfView {
    pub fn new(d: &pb::DprintfReply) -> DprintfView {
        DprintfView {
            messages: d.messages,
            dropped: d.dropped,
            timing: Timing::of(d.timing.as_ref()),
        }
    }
}

impl fmt::Display for DprintfView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} messages", self.messages)?;
        if self.dropped > 0 {
            write!(f, " ({} more dropped: over the limit)", self.dropped)?;
        }
        Ok(())
    }
}
