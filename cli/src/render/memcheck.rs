//! memcheck (issue 17): a finding (the `memcheck` event, and the stop a
//! `memcheck stop` finding makes) and the report of `memcheck`.

use std::fmt;

use gldbg_proto::pb;
use serde::Serialize;

use super::{is_false, is_zero};

/// One finding: CLI.md's keys (`kind`, `line`, `column`, `expr`,
/// `binding`, `element`, `invocations`, `call`, `count`) first.
#[derive(Serialize)]
pub struct FindingView<'a> {
    kind: &'a str,
    line: u32,
    column: u32,
    expr: &'a str,
    /// null: shared memory, a local, or a binding gldbg could not tell.
    binding: Option<u32>,
    element: &'a [i64],
    invocations: Vec<InvocationView<'a>>,
    call: u64,
    count: u64,
    variable: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    stage: &'a str,
    #[serde(skip_serializing_if = "is_zero")]
    program: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    function: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    file_line: Option<u32>,
}

/// An invocation of a finding: compute `workgroup` and `local` ids, or a
/// fragment's `x`, `y`; whether its access wrote; a race's other side
/// with its access's place.
#[derive(Serialize)]
pub struct InvocationView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    workgroup: Option<&'a [u32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    local: Option<&'a [u32]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    x: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    y: Option<u32>,
    /// A race's sides only (other records do not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    write: Option<bool>,
    /// The verb of the text: what the access is known to do.
    #[serde(skip)]
    access: Access,
    #[serde(skip_serializing_if = "is_zero")]
    line: u32,
    #[serde(skip_serializing_if = "is_zero")]
    column: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    expr: &'a str,
    #[serde(skip_serializing_if = "is_false")]
    atomic: bool,
    /// A race's other side whose invocation is not known.
    #[serde(skip_serializing_if = "is_false")]
    unknown: bool,
}

/// What an invocation's access is known to do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    /// A race's side: its record says.
    Race,
    /// An uninitialised read.
    Read,
    /// Out of bounds: a read or a write, the record does not say.
    Unknown,
}

impl<'a> InvocationView<'a> {
    fn new(i: &'a pb::MemcheckInvocation, access: Access) -> InvocationView<'a> {
        let compute = i.pixel.is_none() && !i.unknown;
        InvocationView {
            workgroup: compute.then_some(&i.workgroup[..]),
            local: compute.then_some(&i.local[..]),
            x: i.pixel.as_ref().map(|p| p.x),
            y: i.pixel.as_ref().map(|p| p.y),
            write: (access == Access::Race).then_some(i.write),
            access,
            line: i.line,
            column: i.column,
            expr: &i.expr,
            atomic: i.atomic,
            unknown: i.unknown,
        }
    }
}

impl fmt::Display for InvocationView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ids = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(",");
        match (self.workgroup, self.local, self.x, self.y) {
            (Some(w), Some(l), _, _) => write!(f, "workgroup ({}) local ({})", ids(w), ids(l))?,
            (_, _, Some(x), Some(y)) => write!(f, "pixel {x},{y}")?,
            _ => f.write_str("another invocation of the workgroup (which one is not known)")?,
        }
        let verb = match (self.access, self.write.unwrap_or(false), self.atomic) {
            (Access::Unknown, ..) => "",
            (Access::Read, ..) => " reads",
            (Access::Race, true, true) => " writes atomically",
            (Access::Race, true, false) => " writes",
            (Access::Race, false, true) => " reads atomically",
            (Access::Race, false, false) => " reads",
        };
        f.write_str(verb)?;
        if self.line != 0 {
            write!(f, " at line {}:{}", self.line, self.column)?;
            if !self.expr.is_empty() {
                write!(f, " `{}`", self.expr)?;
            }
        }
        Ok(())
    }
}

impl<'a> FindingView<'a> {
    pub fn new(m: &'a pb::MemcheckFinding) -> FindingView<'a> {
        FindingView {
            kind: &m.kind,
            line: m.line,
            column: m.column,
            expr: &m.expr,
            binding: m.binding,
            element: &m.element,
            invocations: {
                let access = match m.kind.as_str() {
                    "race" => Access::Race,
                    "uninitialized" => Access::Read,
                    _ => Access::Unknown,
                };
                m.invocations
                    .iter()
                    .map(|i| InvocationView::new(i, access))
                    .collect()
            },
            call: m.call,
            count: m.count,
            variable: &m.variable,
            stage: &m.stage,
            program: m.program,
            function: &m.function,
            file: Some(m.file.as_str()).filter(|f| !f.is_empty()),
            file_line: Some(m.file_line).filter(|_| !m.file.is_empty()),
        }
    }
}

/// `memcheck: race at line 12:9 (sum.comp:12) `data[i]` (buf.data,
/// binding 0) element [4]: workgroup (0,0,0) local (1,0,0) writes; other
/// side: ...; call 40 glDispatchCompute, 3 times`
impl fmt::Display for FindingView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "memcheck: {} at line {}:{}",
            self.kind, self.line, self.column
        )?;
        if let (Some(file), Some(n)) = (self.file, self.file_line) {
            write!(f, " ({file}:{n})")?;
        }
        write!(f, " `{}`", self.expr)?;
        let mut what = Vec::new();
        if !self.variable.is_empty() {
            what.push(self.variable.to_string());
        }
        if let Some(b) = self.binding {
            what.push(format!("binding {b}"));
        }
        if !what.is_empty() {
            write!(f, " ({})", what.join(", "))?;
        }
        if !self.element.is_empty() {
            let e: Vec<String> = self.element.iter().map(i64::to_string).collect();
            write!(f, " element [{}]", e.join(","))?;
        }
        let mut sides = self.invocations.iter();
        if let Some(first) = sides.next() {
            write!(f, ": {first}")?;
        }
        for other in sides {
            write!(f, "; other side: {other}")?;
        }
        let times = if self.count == 1 { "time" } else { "times" };
        write!(f, "; call {}", self.call)?;
        if !self.function.is_empty() {
            write!(f, " {}", self.function)?;
        }
        write!(f, ", {} {times}", self.count)
    }
}

fn mode_name(mode: pb::MemcheckMode) -> &'static str {
    match mode {
        pb::MemcheckMode::MemcheckOn => "on",
        pb::MemcheckMode::MemcheckStop => "stop",
        pb::MemcheckMode::MemcheckOff | pb::MemcheckMode::MemcheckReport => "off",
    }
}

/// `memcheck [on|off|stop]`: the mode now and the report.
#[derive(Serialize)]
pub struct ReportView<'a> {
    memcheck: &'static str,
    findings: Vec<FindingView<'a>>,
    calls_checked: u64,
    #[serde(skip_serializing_if = "is_zero")]
    calls_armed: u64,
    shadow_bytes: u64,
    budget_bytes: u64,
    not_checked: &'a [String],
    #[serde(skip_serializing_if = "is_zero")]
    gpu_ns: u64,
}

impl<'a> ReportView<'a> {
    pub fn new(r: &'a pb::MemcheckReport) -> ReportView<'a> {
        ReportView {
            memcheck: mode_name(r.mode()),
            findings: r.findings.iter().map(FindingView::new).collect(),
            calls_checked: r.calls_checked,
            calls_armed: r.calls_armed,
            shadow_bytes: r.shadow_bytes,
            budget_bytes: r.budget_bytes,
            not_checked: &r.not_checked,
            gpu_ns: r.gpu_ns,
        }
    }
}

impl fmt::Display for ReportView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let calls = if self.calls_checked == 1 {
            "call"
        } else {
            "calls"
        };
        let armed = match self.calls_armed {
            0 => String::new(),
            n => format!(" ({n} without a stop)"),
        };
        write!(
            f,
            "memcheck is {}: {} {calls} checked{armed}, {} finding{}; shadow memory {} of {} bytes",
            self.memcheck,
            self.calls_checked,
            self.findings.len(),
            if self.findings.len() == 1 { "" } else { "s" },
            self.shadow_bytes,
            self.budget_bytes
        )?;
        for finding in &self.findings {
            write!(
                f,
                "\n  {}",
                finding.to_string().trim_start_matches("memcheck: ")
            )?;
        }
        for n in self.not_checked {
            write!(f, "\n  not checked: {n}")?;
        }
        Ok(())
    }
}
