//! The other shader-mode results: `list` (the source), `info flow` (a
//! branch's sides or a loop's iterations), `dump` (the file written).

use std::fmt;
use std::path::Path;

use gldbg_proto::pb;
use serde::Serialize;
use serde_json::Value;

use super::glsl_type::{GlslType, Scalar};
use super::stop::noun;
use crate::numbers;

/// One source line of `list`.
#[derive(Serialize)]
struct Line<'a> {
    line: u32,
    text: &'a str,
    current: bool,
    breakpoint: bool,
    /// Where the line comes from the user's file (issue 15).
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_line: Option<u32>,
}

/// `list`: the source lines, the current one and breakpoints marked.
#[derive(Serialize)]
pub struct ListingView<'a> {
    lines: Vec<Line<'a>>,
}

impl<'a> ListingView<'a> {
    pub fn new(listing: &'a pb::SourceListing) -> ListingView<'a> {
        let lines = listing
            .lines
            .iter()
            .map(|l| {
                let mapped = l.file_line != 0 && !listing.file.is_empty();
                Line {
                    line: l.line,
                    text: &l.text,
                    current: l.current,
                    breakpoint: l.breakpoint,
                    file: mapped.then_some(listing.file.as_str()),
                    file_line: mapped.then_some(l.file_line),
                }
            })
            .collect();
        ListingView { lines }
    }
}

impl fmt::Display for ListingView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Lines from the user's file: its line numbers in a second column.
        let file = self.lines.iter().find_map(|l| l.file);
        if let Some(file) = file {
            writeln!(f, "  shader   {file}")?;
        }
        for (i, l) in self.lines.iter().enumerate() {
            let marker = match (l.current, l.breakpoint) {
                (true, true) => "=*",
                (true, false) => "=>",
                (false, true) => " *",
                (false, false) => "  ",
            };
            let sep = if i == 0 { "" } else { "\n" };
            match (file, l.file_line) {
                (None, _) => write!(f, "{sep}{marker}{:>5}  {}", l.line, l.text)?,
                (Some(_), Some(n)) => write!(f, "{sep}{marker}{:>5} {n:>7}  {}", l.line, l.text)?,
                (Some(_), None) => write!(f, "{sep}{marker}{:>5} {:>7}  {}", l.line, "", l.text)?,
            }
        }
        Ok(())
    }
}

/// A side of a branch and how many invocations took it.
#[derive(Serialize)]
struct Side<'a> {
    label: &'a str,
    count: u64,
}

/// A loop iteration: invocations that evaluated its condition, that stayed in.
#[derive(Serialize)]
struct Iteration {
    iteration: u32,
    evaluated: u64,
    entered: u64,
}

/// Per side of a branch, or per loop iteration.
#[derive(Serialize)]
#[serde(untagged)]
enum Counts<'a> {
    Loop { iterations: Vec<Iteration> },
    Branch { sides: Vec<Side<'a>> },
}

/// `info flow`: where the invocations went at a branch or loop.
#[derive(Serialize)]
pub struct FlowView<'a> {
    kind: &'a str,
    line: u32,
    condition: &'a str,
    reached: u64,
    #[serde(flatten)]
    counts: Counts<'a>,
    /// The chart written, if one was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    #[serde(skip)]
    info: &'a pb::FlowInfo,
}

impl<'a> FlowView<'a> {
    pub fn new(info: &'a pb::FlowInfo, chart: Option<&Path>) -> FlowView<'a> {
        let counts = if info.kind == "loop" {
            Counts::Loop {
                iterations: info
                    .iterations
                    .iter()
                    .map(|i| Iteration {
                        iteration: i.iteration,
                        evaluated: i.evaluated,
                        entered: i.entered,
                    })
                    .collect(),
            }
        } else {
            Counts::Branch {
                sides: info
                    .sides
                    .iter()
                    .map(|s| Side {
                        label: &s.label,
                        count: s.count,
                    })
                    .collect(),
            }
        };
        FlowView {
            kind: &info.kind,
            line: info.line,
            condition: &info.condition,
            reached: info.reached,
            counts,
            file: chart.map(|f| f.display().to_string()),
            info,
        }
    }
}

impl fmt::Display for FlowView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let info = self.info;
        write!(
            f,
            "{} at line {}: {}  [{} invocations]",
            info.kind, info.line, info.condition, info.reached
        )?;
        for side in &info.sides {
            write!(f, "\n  {:<10} {}", side.label, side.count)?;
        }
        if !info.iterations.is_empty() {
            f.write_str("\n  iteration  evaluated  stay in")?;
            for it in &info.iterations {
                write!(
                    f,
                    "\n  {:>9}  {:>9}  {:>7}",
                    it.iteration, it.evaluated, it.entered
                )?;
            }
        }
        if let Some(file) = &self.file {
            write!(f, "\nWrote {file}.")?;
        }
        Ok(())
    }
}

/// What `dump` wrote (the fields of `Outcome::Dump`).
pub struct Dumped<'a> {
    pub file: &'a Path,
    pub width: u32,
    pub height: u32,
    pub ty: &'a str,
    pub reached: u64,
    pub stage: &'a str,
    /// PNG: the range mapped onto each colour channel drawn.
    pub mapped: &'a [(f64, f64)],
    pub viridis: bool,
    /// Columns of the legend bar at the image's right (0: none).
    pub legend_width: u32,
    /// Names gldbg cannot tell were written (drawn as read).
    pub written_unknown: &'a [String],
}

/// The ranges a PNG dump mapped onto its channels.
#[derive(Serialize)]
struct Mapped {
    min: Vec<Value>,
    max: Vec<Value>,
}

use super::is_zero;

/// `dump`: the file written and what is in it.
#[derive(Serialize)]
pub struct DumpView<'a> {
    file: String,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    written_unknown: &'a [String],
    width: u32,
    height: u32,
    #[serde(rename = "type")]
    ty: &'a str,
    reached: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    mapped: Option<Mapped>,
    #[serde(skip_serializing_if = "Option::is_none")]
    colormap: Option<&'static str>,
    #[serde(skip_serializing_if = "is_zero")]
    legend_width: u32,
    #[serde(skip)]
    dumped: Dumped<'a>,
    /// Whether the values are single precision (bounds as f32).
    #[serde(skip)]
    single: bool,
}

impl<'a> DumpView<'a> {
    pub fn new(d: Dumped<'a>) -> DumpView<'a> {
        let single = GlslType::scalar_of(d.ty) != Scalar::Double;
        let bound = |v: f64| numbers::float_json(v, single);
        let any = !d.mapped.is_empty();
        DumpView {
            file: d.file.display().to_string(),
            written_unknown: d.written_unknown,
            width: d.width,
            height: d.height,
            ty: d.ty,
            reached: d.reached,
            mapped: any.then(|| Mapped {
                min: d.mapped.iter().map(|r| bound(r.0)).collect(),
                max: d.mapped.iter().map(|r| bound(r.1)).collect(),
            }),
            colormap: any.then_some(if d.viridis { "viridis" } else { "channels" }),
            legend_width: if any { d.legend_width } else { 0 },
            dumped: d,
            single,
        }
    }

    /// What a PNG dump mapped: `; mapped 0..1`, `; mapped r 0..1, g -2..3`, or
    /// `; viridis over 0..1, legend at x 64..75 (top max, bottom min)`.
    fn mapped_text(&self) -> String {
        let d = &self.dumped;
        let range = |&(lo, hi): &(f64, f64)| {
            if lo.is_nan() {
                "no finite value".to_string()
            } else {
                let (lo, hi) = (
                    numbers::float_text(lo, self.single),
                    numbers::float_text(hi, self.single),
                );
                format!("{lo}..{hi}")
            }
        };
        match d.mapped {
            [] => String::new(),
            [one] if d.viridis => format!(
                "; viridis over {}, legend at x {}..{} (top max, bottom min)",
                range(one),
                d.width,
                d.width.saturating_add(d.legend_width.max(1) - 1)
            ),
            [one] => format!("; mapped {}", range(one)),
            many => {
                let parts: Vec<String> = many
                    .iter()
                    .zip(["r", "g", "b"])
                    .map(|(r, c)| format!("{c} {}", range(r)))
                    .collect();
                format!("; mapped {}", parts.join(", "))
            }
        }
    }
}

impl fmt::Display for DumpView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = &self.dumped;
        write!(
            f,
            "Wrote {} ({}x{}, {}, {} {} reached{}).",
            self.file,
            d.width,
            d.height,
            d.ty,
            d.reached,
            noun(d.stage),
            self.mapped_text()
        )?;
        if !d.written_unknown.is_empty() {
            write!(
                f,
                "\n  note: gldbg cannot tell whether {} was written at this step; drawn as read",
                d.written_unknown.join(", ")
            )?;
        }
        Ok(())
    }
}
