//! Pixel history (issue 16): the table of a `history` (colour swatches on
//! a terminal that has colour) and its JSON (CLI.md: `"history"`, a list
//! of `{"call","function","draw","fragments":[...],"after":[...]}`), and
//! `debug history K`'s stop with what differs from the history's draw.

use std::fmt;
use std::io::IsTerminal;

use gldbg_proto::pb;
use serde::Serialize;
use serde_json::Value;

use super::call::{CallBrief, call_line};
use super::stop::ShaderStopView;
use crate::numbers::{float_json, float_text};

/// A colour as JSON: its components, or null where unknown.
fn color_json(c: Option<&pb::PixelColor>, kind: &str) -> Value {
    match c.filter(|c| !c.value.is_empty()) {
        None => Value::Null,
        Some(c) => Value::Array(c.value.iter().map(|&v| number(v, kind)).collect()),
    }
}

fn number(v: f64, kind: &str) -> Value {
    match kind {
        "int" | "uint" if v.is_finite() => Value::from(v as i64),
        _ => float_json(v, true),
    }
}

fn color_text(c: Option<&pb::PixelColor>) -> String {
    match c.filter(|c| !c.value.is_empty()) {
        None => "unknown".into(),
        Some(c) => {
            let parts: Vec<String> = c.value.iter().map(|&v| float_text(v, true)).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// Whether swatches are drawn: a terminal, and no `NO_COLOR`.
fn swatches() -> bool {
    std::env::var_os("NO_COLOR").is_none() && std::io::stdout().is_terminal()
}

/// Two cells in the colour (24-bit ANSI background), or nothing.
fn swatch(c: Option<&pb::PixelColor>, kind: &str, on: bool) -> String {
    let Some(c) = c.filter(|c| on && kind == "float" && c.value.len() >= 3) else {
        return String::new();
    };
    let byte = |v: f64| (v.clamp(0.0, 1.0) * 255.0).round() as u8;
    let (r, g, b) = (byte(c.value[0]), byte(c.value[1]), byte(c.value[2]));
    format!("\x1b[48;2;{r};{g};{b}m  \x1b[0m ")
}

#[derive(Serialize)]
struct Pixel {
    x: u32,
    y: u32,
}

#[derive(Serialize)]
struct FragmentJson<'a> {
    primitive: u32,
    output: Value,
    depth: Option<f64>,
    passed: Option<bool>,
    rejected_by: Option<&'a str>,
    front_facing: bool,
    color_before: Value,
    color_after: Value,
    depth_before: Option<f64>,
    depth_after: Option<f64>,
    stencil_before: Option<u32>,
    stencil_after: Option<u32>,
}

#[derive(Serialize)]
struct EntryJson<'a> {
    entry: u32,
    call: u64,
    function: &'a str,
    draw: u64,
    frame: u64,
    program: u32,
    framebuffer: u32,
    thread: u32,
    before: Value,
    after: Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    fragments: Option<Vec<FragmentJson<'a>>>,
    #[serde(skip_serializing_if = "str::is_empty")]
    note: &'a str,
}

/// `history`'s result.
#[derive(Serialize)]
pub struct HistoryView<'a> {
    pixel: Pixel,
    image: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    format: &'a str,
    kind: &'a str,
    end: &'a str,
    start: Value,
    history: Vec<EntryJson<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
    #[serde(skip)]
    reply: &'a pb::PixelHistoryReply,
}

impl<'a> HistoryView<'a> {
    pub fn new(r: &'a pb::PixelHistoryReply) -> HistoryView<'a> {
        let kind = r.kind.as_str();
        let draw = |e: &'a pb::HistoryEntry| {
            (e.global_draw != 0).then(|| {
                e.fragments
                    .iter()
                    .map(|f| FragmentJson {
                        primitive: f.primitive,
                        output: match f.output.is_empty() {
                            true => Value::Null,
                            false => {
                                Value::Array(f.output.iter().map(|&v| number(v, kind)).collect())
                            }
                        },
                        depth: f.depth,
                        passed: f.passed,
                        rejected_by: Some(f.rejected_by.as_str()).filter(|r| !r.is_empty()),
                        front_facing: f.front_facing,
                        color_before: color_json(f.color_before.as_ref(), kind),
                        color_after: color_json(f.color_after.as_ref(), kind),
                        depth_before: f.depth_before,
                        depth_after: f.depth_after,
                        stencil_before: f.stencil_before,
                        stencil_after: f.stencil_after,
                    })
                    .collect()
            })
        };
        HistoryView {
            pixel: Pixel { x: r.x, y: r.y },
            image: &r.image,
            format: &r.format,
            kind,
            end: &r.end,
            start: color_json(r.start.as_ref(), kind),
            history: r
                .entries
                .iter()
                .map(|e| EntryJson {
                    entry: e.entry,
                    call: e.call,
                    function: &e.function,
                    draw: e.draw,
                    frame: e.frame,
                    program: e.program,
                    framebuffer: e.framebuffer,
                    thread: e.thread,
                    before: color_json(e.before.as_ref(), kind),
                    after: color_json(e.after.as_ref(), kind),
                    fragments: draw(e),
                    note: &e.note,
                })
                .collect(),
            notes: &r.notes,
            reply: r,
        }
    }
}

impl fmt::Display for HistoryView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = self.reply;
        let on = swatches();
        let kind = r.kind.as_str();
        let end = match r.end.as_str() {
            "swap" => "to the frame's end (the app is stopped at the swap)".to_string(),
            "exit" => "until the app ended".to_string(),
            "cancelled" => "until the request was cancelled (the app is stopped there)".to_string(),
            d => format!("to {d} of the frame (the app is stopped there)"),
        };
        writeln!(
            f,
            "History of pixel {},{} of the {}, {end}:",
            r.x, r.y, r.image
        )?;
        writeln!(
            f,
            "  start  {}{}",
            swatch(r.start.as_ref(), kind, on),
            color_text(r.start.as_ref())
        )?;
        if r.entries.is_empty() {
            write!(f, "  no call wrote it")?;
        }
        for (i, e) in r.entries.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let mut head = format!("  #{} call {} {}", e.entry, e.call, e.function);
            if e.global_draw != 0 {
                head.push_str(&format!(
                    " (draw {} of frame {}, program {}, framebuffer {})",
                    e.draw, e.frame, e.program, e.framebuffer
                ));
            }
            write!(
                f,
                "{head}\n      after {}{}",
                swatch(e.after.as_ref(), kind, on),
                color_text(e.after.as_ref())
            )?;
            for fr in &e.fragments {
                write!(f, "\n      primitive {}: ", fr.primitive)?;
                match fr.output.is_empty() {
                    true => write!(f, "no output")?,
                    false => {
                        let out = pb::PixelColor {
                            value: fr.output.clone(),
                        };
                        write!(f, "output {}", color_text(Some(&out)))?;
                    }
                }
                if let Some(d) = fr.depth {
                    write!(f, " depth {}", float_text(d, true))?;
                }
                match (fr.passed, fr.rejected_by.as_str()) {
                    (Some(true), _) => write!(f, ", passed")?,
                    (Some(false), by) => write!(f, ", rejected by {by}")?,
                    (None, _) => write!(f, ", tests not known")?,
                }
                if fr.passed == Some(true) {
                    write!(
                        f,
                        ": {}{} -> {}{}",
                        swatch(fr.color_before.as_ref(), kind, on),
                        color_text(fr.color_before.as_ref()),
                        swatch(fr.color_after.as_ref(), kind, on),
                        color_text(fr.color_after.as_ref())
                    )?;
                    if let (Some(a), Some(b)) = (fr.depth_before, fr.depth_after) {
                        write!(
                            f,
                            ", depth {} -> {}",
                            float_text(a, true),
                            float_text(b, true)
                        )?;
                    }
                    if let (Some(a), Some(b)) = (fr.stencil_before, fr.stencil_after) {
                        write!(f, ", stencil {a} -> {b}")?;
                    }
                }
            }
            if !e.note.is_empty() {
                write!(f, "\n      note: {}", e.note)?;
            }
        }
        for n in &r.notes {
            write!(f, "\n  note: {n}")?;
        }
        Ok(())
    }
}

/// `debug history K`'s result: the shader stop's keys, the call stopped
/// at and what differs from the history's draw.
#[derive(Serialize)]
pub struct HistoryDebugView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    stopped: Option<CallBrief<'a>>,
    differences: &'a [String],
    #[serde(flatten)]
    stop: Option<ShaderStopView<'a>>,
    #[serde(skip)]
    reply: &'a pb::HistoryDebug,
}

impl<'a> HistoryDebugView<'a> {
    pub fn new(r: &'a pb::HistoryDebug) -> HistoryDebugView<'a> {
        HistoryDebugView {
            stopped: r.call.as_ref().map(CallBrief::new),
            differences: &r.differences,
            stop: r.stop.as_ref().map(ShaderStopView::new),
            reply: r,
        }
    }
}

impl fmt::Display for HistoryDebugView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = &self.reply.call {
            write!(f, "Stopped at {}", call_line(c))?;
            if c.draw != 0 {
                write!(f, " (draw {}, frame {})", c.draw, c.frame)?;
            }
            writeln!(f)?;
        }
        for d in &self.reply.differences {
            writeln!(f, "note: not the history's draw: {d}")?;
        }
        match &self.stop {
            Some(s) => s.fmt(f),
            None => Ok(()),
        }
    }
}

#[derive(Serialize)]
struct ReadJson<'a> {
    line: u32,
    column: u32,
    function: &'a str,
    sampler: &'a str,
    coord_expr: &'a str,
    coord: Vec<Value>,
    unit: Option<u32>,
    texture: Option<u32>,
    size: Option<[u32; 2]>,
    texel: Option<&'a [i64]>,
}

/// `info sources`' result.
#[derive(Serialize)]
pub struct SourcesView<'a> {
    sources: Vec<ReadJson<'a>>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    notes: &'a [String],
}

impl<'a> SourcesView<'a> {
    pub fn new(r: &'a pb::SourceReads) -> SourcesView<'a> {
        SourcesView {
            sources: r
                .reads
                .iter()
                .map(|s| ReadJson {
                    line: s.line,
                    column: s.column,
                    function: &s.function,
                    sampler: &s.sampler,
                    coord_expr: &s.coord_expr,
                    coord: s.coord.iter().map(|&v| float_json(v, true)).collect(),
                    unit: s.unit,
                    texture: s.texture,
                    size: s.width.zip(s.height).map(|(w, h)| [w, h]),
                    texel: (!s.texel.is_empty()).then_some(s.texel.as_slice()),
                })
                .collect(),
            notes: &r.notes,
        }
    }
}

impl fmt::Display for SourcesView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.sources.is_empty() {
            write!(f, "The focused invocation read no texture.")?;
        }
        for (i, s) in self.sources.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let coord: Vec<String> = s
                .coord
                .iter()
                .map(|v| match v {
                    Value::Number(n) => float_text(n.as_f64().unwrap_or(f64::NAN), true),
                    other => other.to_string().trim_matches('"').to_string(),
                })
                .collect();
            write!(
                f,
                "line {}: {}({}, {}) with {} = ({})",
                s.line,
                s.function,
                s.sampler,
                s.coord_expr,
                s.coord_expr,
                coord.join(", ")
            )?;
            match (s.unit, s.texture) {
                (Some(u), Some(t)) => write!(f, ": unit {u}, texture {t}")?,
                (Some(u), None) => write!(f, ": unit {u} (no texture gldbg can name)")?,
                _ => write!(f, ": its unit is not known")?,
            }
            if let Some([w, h]) = s.size {
                write!(f, " ({w}x{h})")?;
            }
            if let Some(t) = s.texel {
                let t: Vec<String> = t.iter().map(i64::to_string).collect();
                write!(f, ", texel {}", t.join(","))?;
            }
        }
        for n in self.notes {
            write!(f, "\nnote: {n}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swatches_are_24_bit_backgrounds_of_float_colours() {
        let c = pb::PixelColor {
            value: vec![1.0, 0.5, -1.0, 1.0],
        };
        assert_eq!(
            swatch(Some(&c), "float", true),
            "\x1b[48;2;255;128;0m  \x1b[0m "
        );
        assert_eq!(swatch(Some(&c), "float", false), "", "no colour: no swatch");
        assert_eq!(
            swatch(Some(&c), "uint", true),
            "",
            "integers have no colour"
        );
        assert_eq!(swatch(None, "float", true), "");
        assert_eq!(color_text(None), "unknown");
        assert_eq!(
            color_json(Some(&pb::PixelColor { value: vec![] }), "float"),
            Value::Null
        );
    }
}
