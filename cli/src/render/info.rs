//! Results about the session rather than a value: breakpoints, `info
//! program`, `info state`, watches and `help`.

use std::fmt;

use gldbg_proto::pb;
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::command::help_entries;
use crate::exec::Deleted;
use crate::numbers;

fn join_u32(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// A GL-call breakpoint: its number, what it stops at, how often it did.
#[derive(Serialize)]
pub struct BreakpointJson<'a> {
    id: u32,
    description: &'a str,
    hits: u64,
    /// A source breakpoint's file, line and state (issue 15).
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<SourceJson<'a>>,
}

/// A source breakpoint (`break FILE:LINE`): where, and whether a shader
/// seen so far has that file and line (`verified`, in which `shaders`),
/// else why not (`message`).
#[derive(Serialize)]
struct SourceJson<'a> {
    file: &'a str,
    line: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    condition: &'a str,
    #[serde(skip_serializing_if = "is_zero_u64")]
    ignore: u64,
    temporary: bool,
    #[serde(skip_serializing_if = "str::is_empty")]
    log_format: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    log_args: &'a [String],
    verified: bool,
    shaders: &'a [String],
    #[serde(skip_serializing_if = "str::is_empty")]
    message: &'a str,
}

fn is_zero_u64(n: &u64) -> bool {
    *n == 0
}

impl<'a> BreakpointJson<'a> {
    fn new(b: &'a pb::Breakpoint) -> BreakpointJson<'a> {
        BreakpointJson {
            id: b.id,
            description: &b.description,
            hits: b.hits,
            source: b.source.as_ref().map(|s| SourceJson {
                file: &s.file,
                line: s.line,
                condition: &s.condition,
                ignore: s.ignore,
                temporary: s.temporary,
                log_format: &s.log_format,
                log_args: &s.log_args,
                verified: s.verified,
                shaders: &s.shaders,
                message: &s.message,
            }),
        }
    }

    /// A source breakpoint's state as text: ` (in shader 2 fragment,
    /// program 3)`, ` (pending: ...)`; empty for other breakpoints.
    fn state_text(&self) -> String {
        match &self.source {
            Some(s) if s.verified => format!(" (in {})", s.shaders.join("; ")),
            Some(s) if s.message.is_empty() => " (pending)".into(),
            Some(s) => format!(" (pending: {})", s.message),
            None => String::new(),
        }
    }
}

/// `break` of a GL call: the breakpoint set.
#[derive(Serialize)]
pub struct BreakpointSet<'a> {
    breakpoint: BreakpointJson<'a>,
}

impl<'a> BreakpointSet<'a> {
    pub fn new(b: &'a pb::Breakpoint) -> BreakpointSet<'a> {
        BreakpointSet {
            breakpoint: BreakpointJson::new(b),
        }
    }
}

impl fmt::Display for BreakpointSet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.breakpoint;
        write!(
            f,
            "Breakpoint {}: {}{}",
            b.id,
            b.description,
            b.state_text()
        )
    }
}

/// `break LINE` in shader mode: the line, and all shader breakpoint lines.
#[derive(Serialize)]
pub struct ShaderBreakSet<'a> {
    line: u32,
    shader_breakpoints: &'a [u32],
}

impl<'a> ShaderBreakSet<'a> {
    pub fn new(line: u32, lines: &'a [u32]) -> ShaderBreakSet<'a> {
        ShaderBreakSet {
            line,
            shader_breakpoints: lines,
        }
    }
}

impl fmt::Display for ShaderBreakSet<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Shader breakpoint at line {} (all: lines {}).",
            self.line,
            join_u32(self.shader_breakpoints)
        )
    }
}

/// What a `delete` removed, in JSON: `"all"`, or the number or line.
struct DeletedJson(Deleted);

impl Serialize for DeletedJson {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            Deleted::AllGl | Deleted::AllShader => s.serialize_str("all"),
            Deleted::Gl(n) | Deleted::ShaderLine(n) => s.serialize_u32(n),
        }
    }
}

/// `info breakpoints`, `delete`: what was deleted and what is left.
#[derive(Serialize)]
pub struct BreakpointsView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<DeletedJson>,
    breakpoints: Vec<BreakpointJson<'a>>,
    shader_breakpoints: &'a [u32],
    /// Conditions, ignore counts and hits (executions, invocations) of the
    /// shader breakpoints.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    shader_breakpoint_hits: Vec<ShaderHitsJson<'a>>,
}

/// A shader breakpoint's condition and hits.
#[derive(Serialize)]
struct ShaderHitsJson<'a> {
    line: u32,
    #[serde(skip_serializing_if = "str::is_empty")]
    condition: &'a str,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    temporary: bool,
    #[serde(skip_serializing_if = "super::is_zero")]
    ignore: u32,
    /// `None`: not counted (the hit replay cannot run this shader).
    executions: Option<u64>,
    invocations: Option<u64>,
}

impl<'a> BreakpointsView<'a> {
    pub fn new(
        deleted: Option<Deleted>,
        gl: &'a [pb::Breakpoint],
        shader: &'a [u32],
        details: &'a [pb::ShaderBreakpoint],
    ) -> BreakpointsView<'a> {
        BreakpointsView {
            deleted: deleted.map(DeletedJson),
            breakpoints: gl.iter().map(BreakpointJson::new).collect(),
            shader_breakpoints: shader,
            shader_breakpoint_hits: details
                .iter()
                .map(|b| ShaderHitsJson {
                    line: b.line,
                    condition: &b.condition,
                    temporary: b.temporary,
                    ignore: b.ignore,
                    executions: b.counted.then_some(b.executions),
                    invocations: b.counted.then_some(b.invocations),
                })
                .collect(),
        }
    }
}

impl fmt::Display for BreakpointsView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut lines = Vec::new();
        match self.deleted.as_ref().map(|d| d.0) {
            Some(Deleted::AllGl) => lines.push("Deleted all breakpoints.".to_string()),
            Some(Deleted::Gl(id)) => lines.push(format!("Deleted breakpoint {id}.")),
            Some(Deleted::AllShader) => lines.push("Deleted all shader breakpoints.".to_string()),
            Some(Deleted::ShaderLine(l)) => {
                lines.push(format!("Deleted the shader breakpoint at line {l}."))
            }
            None => {
                let gl = &self.breakpoints;
                if gl.is_empty() {
                    lines.push("No breakpoints.".into());
                } else {
                    let w = gl.iter().map(|b| b.description.len()).max().unwrap_or(0);
                    let w = w.max(4);
                    lines.push(format!("Num  {:w$}  Hits", "What"));
                    for b in gl {
                        lines.push(format!(
                            "{:<4} {:w$}  {}{}",
                            b.id,
                            b.description,
                            b.hits,
                            b.state_text()
                        ));
                    }
                }
                if !self.shader_breakpoints.is_empty() {
                    let at = join_u32(self.shader_breakpoints);
                    lines.push(format!("Shader breakpoints at lines {at}."));
                }
                for b in &self.shader_breakpoint_hits {
                    let mut what = format!("  line {}", b.line);
                    if !b.condition.is_empty() {
                        what += &format!(" if {}", b.condition);
                    }
                    if b.temporary {
                        what += " (temporary)";
                    }
                    if b.ignore > 0 {
                        what += &format!(", next {} hits ignored", b.ignore);
                    }
                    match (b.executions, b.invocations) {
                        (Some(e), Some(i)) => {
                            what += &format!(": hit {e} times by {i} invocations")
                        }
                        _ => what += ": hits not counted (the shader's GLSL has no uint)",
                    }
                    lines.push(what);
                }
            }
        }
        f.write_str(&lines.join("\n"))
    }
}

/// A uniform, attribute or output of `info program`.
#[derive(Serialize)]
struct VariableJson<'a> {
    name: &'a str,
    #[serde(rename = "type")]
    ty: &'a str,
    size: i32,
    location: i32,
    value: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    block: &'a str,
    /// Outputs: the dual-source blending index (-1 where GL does not say).
    #[serde(skip_serializing_if = "Option::is_none")]
    index: Option<i32>,
}

fn variables(vars: &[pb::Variable], outputs: bool) -> Vec<VariableJson<'_>> {
    vars.iter()
        .map(|v| VariableJson {
            name: &v.name,
            ty: &v.r#type,
            size: v.size,
            location: v.location,
            value: &v.value,
            block: &v.block,
            index: outputs.then_some(v.index),
        })
        .collect()
}

/// A shader of a program: its stage, source and where that came from.
#[derive(Serialize)]
struct ShaderJson<'a> {
    stage: &'a str,
    id: u32,
    version: &'a str,
    source: &'a str,
    recorded: bool,
}

/// `info program`: the current program's shaders and interface.
#[derive(Serialize)]
pub struct ProgramView<'a> {
    program: u32,
    shaders: Vec<ShaderJson<'a>>,
    uniforms: Vec<VariableJson<'a>>,
    attributes: Vec<VariableJson<'a>>,
    outputs: Vec<VariableJson<'a>>,
    #[serde(skip_serializing_if = "str::is_empty")]
    note: &'a str,
}

impl<'a> ProgramView<'a> {
    pub fn new(p: &'a pb::ProgramInfo) -> ProgramView<'a> {
        ProgramView {
            program: p.program,
            shaders: p
                .shaders
                .iter()
                .map(|s| ShaderJson {
                    stage: &s.stage,
                    id: s.id,
                    version: &s.version,
                    source: &s.source,
                    recorded: s.recorded,
                })
                .collect(),
            uniforms: variables(&p.uniforms, false),
            attributes: variables(&p.attributes, false),
            outputs: variables(&p.outputs, true),
            note: &p.note,
        }
    }
}

/// An output's location with its dual-source blending index, where the
/// program has a second source (`dual`).
fn output_text(v: &VariableJson<'_>, dual: bool) -> String {
    let s = variable_text(v);
    let index = v.index.unwrap_or(-1);
    match (dual && index >= 0, s.strip_suffix(')')) {
        (true, Some(head)) if v.location >= 0 => format!("{head}, index {index})"),
        _ => s,
    }
}

fn variable_text(v: &VariableJson<'_>) -> String {
    let mut s = if v.ty.is_empty() {
        v.name.to_string()
    } else {
        format!("{} {}", v.ty, v.name)
    };
    if v.size > 1 {
        s.push_str(&format!("[{}]", v.size));
    }
    if v.location >= 0 {
        s.push_str(&format!(" (location {})", v.location));
    }
    if !v.block.is_empty() {
        s.push_str(&format!(
            " (uniform block {}; its value is in the bound buffer)",
            v.block
        ));
    }
    if !v.value.is_empty() {
        s.push_str(&format!(" = {}", v.value));
    }
    s
}

impl fmt::Display for ProgramView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Program {}", self.program)?;
        if self.shaders.is_empty() {
            f.write_str("\n  (no shaders)")?;
        }
        if !self.note.is_empty() {
            write!(f, "\n  {}", self.note)?;
        }
        for sh in &self.shaders {
            write!(f, "\n  {} shader {}", sh.stage, sh.id)?;
            if !sh.version.is_empty() {
                write!(f, ", #version {}", sh.version)?;
            }
            if sh.source.is_empty() {
                f.write_str(" (source unknown)")?;
            } else if !sh.recorded {
                f.write_str(" (source queried from the driver)")?;
            }
        }
        for (title, vars) in [
            ("Uniforms", &self.uniforms),
            ("Attributes", &self.attributes),
            ("Outputs", &self.outputs),
        ] {
            if !vars.is_empty() {
                write!(f, "\n{title}:")?;
                let dual = title == "Outputs" && vars.iter().any(|v| v.index > Some(0));
                for v in vars {
                    write!(f, "\n  {}", output_text(v, dual))?;
                }
            }
        }
        Ok(())
    }
}

/// `info state`: each value by name, and the values GL refused to give.
#[derive(Serialize)]
pub struct GlStateView<'a> {
    state: Map<String, Value>,
    #[serde(skip_serializing_if = "Map::is_empty")]
    state_errors: Map<String, Value>,
    #[serde(skip)]
    st: &'a pb::GlState,
}

impl<'a> GlStateView<'a> {
    pub fn new(st: &'a pb::GlState) -> GlStateView<'a> {
        let mut state = Map::new();
        let mut state_errors = Map::new();
        for v in &st.values {
            if v.error.is_empty() {
                let values = v.values.iter().map(|&x| numbers::float_json(x, false));
                state.insert(v.name.clone(), Value::Array(values.collect()));
            } else {
                state_errors.insert(v.name.clone(), Value::from(v.error.as_str()));
            }
        }
        GlStateView {
            state,
            state_errors,
            st,
        }
    }
}

/// One value of `info state` as text: enum-valued state by name; a value GL
/// keeps as a float (it converts exactly to f32) as that float: 0.1, not
/// 0.10000000149011612.
fn gl_value_text(v: &pb::GlStateValue) -> String {
    if !v.error.is_empty() {
        return format!("<{}>", v.error);
    }
    let each: Vec<String> = if gldbg_debugd::glstate::value_is_enum(&v.name) {
        v.values
            .iter()
            .map(|x| {
                gldbg_proto::api::gl_enum_name(*x as u32, "")
                    .map_or_else(|| x.to_string(), str::to_string)
            })
            .collect()
    } else {
        v.values
            .iter()
            .map(|&x| numbers::float_text(x, x as f32 as f64 == x))
            .collect()
    };
    each.join(" ")
}

impl fmt::Display for GlStateView<'_> {
    /// One line per value, the names aligned.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let values = &self.st.values;
        let w = values.iter().map(|v| v.name.len()).max().unwrap_or(0);
        for (i, v) in values.iter().enumerate() {
            let sep = if i == 0 { "" } else { "\n" };
            write!(f, "{sep}{:w$} = {}", v.name, gl_value_text(v))?;
        }
        Ok(())
    }
}

/// `display`/`undisplay` (`"displays"`) and `watch`/`unwatch`
/// (`"watches"`): the expressions now.
pub struct ExprsView<'a> {
    key: &'static str,
    exprs: &'a [String],
}

impl<'a> ExprsView<'a> {
    pub fn displays(exprs: &'a [String]) -> ExprsView<'a> {
        ExprsView {
            key: "displays",
            exprs,
        }
    }

    pub fn watches(exprs: &'a [String]) -> ExprsView<'a> {
        ExprsView {
            key: "watches",
            exprs,
        }
    }
}

impl Serialize for ExprsView<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(1))?;
        m.serialize_entry(self.key, self.exprs)?;
        m.end()
    }
}

impl fmt::Display for ExprsView<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (none, some) = match self.key {
            "displays" => ("No displayed expressions.", "Displaying"),
            _ => ("No watchpoints.", "Watching"),
        };
        match self.exprs {
            [] => f.write_str(none),
            list => write!(f, "{some}: {}", list.join("; ")),
        }
    }
}

/// A command and its one-line help.
#[derive(Serialize)]
struct HelpEntry {
    command: &'static str,
    help: &'static str,
}

/// `help [CMD]`: the commands (matching the topic) with their help.
#[derive(Serialize)]
pub struct HelpView {
    commands: Vec<HelpEntry>,
}

impl HelpView {
    pub fn new(topic: Option<&str>) -> HelpView {
        let commands = help_entries(topic)
            .into_iter()
            .map(|(command, help)| HelpEntry { command, help })
            .collect();
        HelpView { commands }
    }
}

impl fmt::Display for HelpView {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const W: usize = 32;
        for (i, e) in self.commands.iter().enumerate() {
            let (c, m) = (e.command, e.help);
            let sep = if i == 0 { "" } else { "\n" };
            if c.len() <= W {
                write!(f, "{sep}  {c:W$}  {m}")?;
            } else {
                write!(f, "{sep}  {c}\n  {:W$}  {m}", "")?;
            }
        }
        Ok(())
    }
}
