//! `print`: a value at one invocation, a summary over all (with a table of
//! the first vertices), or the vertices a primitive emitted.

use std::fmt::{self, Write as _};

use gldbg_proto::pb;
use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::stop::{AtJson, Timing, invocation_at, noun};
use super::values::{Layout, Written};
use crate::command::At;

use super::is_false;

/// The result of one `print`.
#[derive(Serialize)]
pub struct PrintView<'a> {
    expr: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    /// Not claimed written or not written: shown as read.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    written_unknown: &'a [String],
    #[serde(flatten)]
    shape: Shape<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    parts: Vec<Part<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timing: Option<Timing>,
    #[serde(skip)]
    reply: &'a pb::PrintReply,
    /// The invocation printed at: the reply's, else the one asked for.
    #[serde(skip)]
    at: Option<At>,
    #[serde(skip)]
    stage: &'a str,
    #[serde(skip)]
    layout: Layout<'a>,
}

/// What a print shows.
#[derive(Serialize)]
#[serde(untagged)]
enum Shape<'a> {
    /// `@ primitive N` of a geometry shader: the vertices it emitted.
    Emitted {
        #[serde(skip_serializing_if = "Option::is_none")]
        invocation: Option<AtJson>,
        reached: bool,
        emitted: Vec<Emit>,
    },
    /// One invocation's value (or why there is none).
    At {
        invocation: AtJson,
        reached: bool,
        #[serde(flatten)]
        value: Option<Written<'a>>,
        #[serde(skip_serializing_if = "is_false")]
        discarded: bool,
    },
    /// Over all invocations.
    Summary {
        summary: SummaryJson,
        #[serde(skip_serializing_if = "Option::is_none")]
        table: Option<Vec<Row<'a>>>,
    },
    /// A value that is the same everywhere (uniforms, constants).
    Whole { value: Vec<Value> },
}

/// A vertex a primitive emitted.
#[derive(Serialize)]
struct Emit {
    emit: u32,
    invocation: u32,
    vertex: u32,
    reached: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    value: Option<Vec<Value>>,
}

/// A summary's counts and range, as text (`info locals` over every invocation).
pub(super) fn summary_text(sum: &pb::Summary, layout: &Layout<'_>) -> String {
    let mut s = format!("{} reached", sum.count);
    // A component no invocation gave a finite value has no range (NaN).
    if sum.min.iter().any(|m| m.is_finite()) {
        let _ = write!(
            s,
            "; min {}, max {}",
            layout.text(&sum.min),
            layout.text(&sum.max)
        );
    } else if sum.count > 0 {
        s += "; no finite value";
    }
    let _ = write!(s, "; NaN {}, Inf {}", sum.nan, sum.inf);
    s
}

/// A row of a summary's table (the first vertices).
#[derive(Serialize)]
struct Row<'a> {
    vertex: u32,
    reached: bool,
    #[serde(flatten)]
    value: Option<Written<'a>>,
}

/// A part of a value in parts: its path, type and component count.
#[derive(Serialize)]
struct Part<'a> {
    path: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    components: u32,
}

/// A summary over all invocations: count reached, min, max (none when no
/// reached invocation wrote the value), NaN, Inf, total, and the discarded
/// and undefined counts where not 0.
pub(super) struct SummaryJson {
    entries: Vec<(&'static str, Value)>,
}

impl SummaryJson {
    /// Without `key` (a locals summary knows no `total`).
    pub(super) fn without(mut self, key: &str) -> SummaryJson {
        self.entries.retain(|(k, _)| *k != key);
        self
    }

    pub(super) fn new(sum: &pb::Summary, layout: &Layout<'_>) -> SummaryJson {
        let mut entries = vec![
            ("count", Value::from(sum.count)),
            ("min", Value::Array(layout.json(&sum.min))),
            ("max", Value::Array(layout.json(&sum.max))),
            ("nan", Value::from(sum.nan)),
            ("inf", Value::from(sum.inf)),
            ("total", Value::from(sum.total)),
        ];
        for (k, n) in [("discarded", sum.discarded), ("undefined", sum.undefined)] {
            if n > 0 {
                entries.push((k, Value::from(n)));
            }
        }
        // No written value: there is no min or max (not NaN). Removed as
        // `swap_remove`s, the key order scripts have always seen.
        if sum.count <= sum.undefined {
            for key in ["min", "max"] {
                if let Some(i) = entries.iter().position(|(k, _)| *k == key) {
                    entries.swap_remove(i);
                }
            }
        }
        SummaryJson { entries }
    }
}

impl Serialize for SummaryJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.entries.len()))?;
        for (k, v) in &self.entries {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'a> PrintView<'a> {
    pub fn new(reply: &'a pb::PrintReply, asked: Option<At>, stage: &'a str) -> PrintView<'a> {
        let layout = Layout::of(reply);
        let at = invocation_at(reply.at.as_ref()).or(asked);
        let emitted = !reply.emitted.is_empty();
        let shape = match (emitted, at, &reply.summary) {
            (true, _, _) => Shape::Emitted {
                invocation: at.map(AtJson),
                reached: reply.reached,
                emitted: reply
                    .emitted
                    .iter()
                    .map(|e| Emit {
                        emit: e.emit,
                        invocation: e.invocation,
                        vertex: e.vertex,
                        reached: e.reached,
                        value: e.reached.then(|| layout.json(&e.value)),
                    })
                    .collect(),
            },
            (false, Some(at), _) => Shape::At {
                invocation: AtJson(at),
                reached: reply.reached,
                value: reply
                    .reached
                    .then(|| layout.written_json(&reply.value, &reply.undefined)),
                discarded: reply.discarded,
            },
            (false, None, Some(sum)) => Shape::Summary {
                summary: SummaryJson::new(sum, &layout),
                table: (!reply.table.is_empty()).then(|| {
                    reply
                        .table
                        .iter()
                        .map(|row| Row {
                            vertex: row.vertex,
                            reached: row.reached,
                            value: row
                                .reached
                                .then(|| layout.written_json(&row.value, &row.undefined)),
                        })
                        .collect()
                }),
            },
            (false, None, None) => Shape::Whole {
                value: layout.json(&reply.value),
            },
        };
        // The emitted vertices' line has no parts (CLI.md).
        let parts = match emitted {
            true => Vec::new(),
            false => reply
                .parts
                .iter()
                .map(|p| Part {
                    path: &p.path,
                    ty: &p.r#type,
                    components: p.components,
                })
                .collect(),
        };
        PrintView {
            expr: &reply.expr,
            ty: &reply.r#type,
            written_unknown: &reply.written_unknown,
            shape,
            parts,
            timing: Timing::of(reply.timing.as_ref()),
            reply,
            at,
            stage,
            layout,
        }
    }

    /// `print EXPR @ primitive N`: one line per vertex the primitive emitted.
    fn emitted_text(&self) -> String {
        let reply = self.reply;
        let at = self.at.map(|a| format!(" @ {a}")).unwrap_or_default();
        let mut s = format!(
            "{}{at} ({}): {} vertices emitted",
            reply.expr,
            self.ty,
            reply.emitted.len()
        );
        for e in &reply.emitted {
            let who = match e.invocation {
                0 => format!("  #{}", e.emit),
                i => format!("  #{} (invocation {i})", e.emit),
            };
            let what = match e.reached {
                true => self.layout.text(&e.value),
                false => "not reached when emitted".into(),
            };
            let _ = write!(s, "\n{who} [vertex {}]: {what}", e.vertex);
        }
        s
    }

    /// The value at one invocation, or why there is none.
    fn at_text(&self, at: At) -> String {
        let (reply, ty) = (self.reply, self.ty);
        if reply.reached && reply.undefined.len() >= reply.value.len().max(1) {
            format!("{} @ {at}: not yet written at this step ({ty})", reply.expr)
        } else if reply.reached {
            let value = self.layout.written_text(&reply.value, &reply.undefined);
            format!("{} = {value} ({ty}) @ {at}", reply.expr)
        } else if reply.discarded {
            format!("{} @ {at}: discarded before the end of main", reply.expr)
        } else {
            format!("{} @ {at}: not reached at this step", reply.expr)
        }
    }

    /// The summary over all invocations, and the table of the first vertices.
    fn summary_text(&self, sum: &pb::Summary) -> String {
        let (reply, ty) = (self.reply, self.ty);
        let mut s = format!(
            "{} ({ty}): {} of {} {} reached",
            reply.expr,
            sum.count,
            sum.total,
            noun(self.stage)
        );
        if sum.discarded > 0 {
            let _ = write!(s, ", {} discarded", sum.discarded);
        }
        if sum.undefined > 0 {
            let _ = write!(
                s,
                "; {} not yet written at this step (left out of min/max)",
                sum.undefined
            );
        }
        if sum.count > sum.undefined {
            let (min, max) = (self.layout.text(&sum.min), self.layout.text(&sum.max));
            let _ = write!(s, "; min {min}, max {max}");
        }
        let _ = write!(s, "; NaN {}, Inf {}", sum.nan, sum.inf);
        if !reply.table.is_empty() {
            let _ = write!(s, "\n  first {} of {}:", reply.table.len(), sum.total);
        }
        for row in &reply.table {
            let what = match row.reached {
                true => self.layout.written_text(&row.value, &row.undefined),
                false => "not reached".into(),
            };
            let _ = write!(s, "\n  vertex {}: {what}", row.vertex);
        }
        s
    }
}

impl fmt::Display for PrintView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let reply = self.reply;
        let text = match (&self.shape, self.at, &reply.summary) {
            (Shape::Emitted { .. }, _, _) => self.emitted_text(),
            (_, Some(at), _) => self.at_text(at),
            (_, None, Some(sum)) => self.summary_text(sum),
            (_, None, None) => {
                let value = self.layout.text(&reply.value);
                format!("{} = {value} ({})", reply.expr, self.ty)
            }
        };
        f.write_str(&text)?;
        if !reply.written_unknown.is_empty() {
            write!(
                f,
                "\n  note: gldbg cannot tell whether {} was written at this step; shown as read",
                reply.written_unknown.join(", ")
            )?;
        }
        Ok(())
    }
}
