//! `gldbg instrument FILE`: the instrumenter offline, for users and checks.
//!
//! Parses a shader file with glsl-instrument directly (no daemon, no GL),
//! then either lists its static steps (`--list-steps`) or prints the debug
//! shader for one step (`--step N [--expr E]`, default: the entry step,
//! coverage only). `--json` gives the same as one JSON value on stdout.
//!
//! Step numbers are glsl-instrument's step ids (from 0, source order per
//! function). A step outside `main` is instrumented at the first dynamic
//! position that reaches it from the entry (breadth first over `step`
//! successors: the shortest call chain, the earliest loop iterations).

use std::collections::{HashSet, VecDeque};
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;
use glsl_instrument::{
    Instrumented, OutputSlot, ParseError, Position, Probe, Semantics, ShaderModel, Stage, Step,
    StepId, StepMode,
};
use serde_json::{Value, json};

/// The arguments of `gldbg instrument`.
#[derive(Args, Debug, Clone)]
pub struct InstrumentArgs {
    /// The shader source file.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// vertex, tess-control, tess-eval, geometry, fragment or compute, or
    /// glslang's vert, tesc, tese, geom, frag, comp
    /// (default: from the extension: .vert .tesc .tese .geom .frag .comp, .vs .gs .fs).
    #[arg(long, value_name = "S")]
    pub stage: Option<String>,
    /// Print the step list: number, kind, line:column, text, variables in scope.
    #[arg(long, conflicts_with_all = ["step", "expr"])]
    pub list_steps: bool,
    /// Instrument step N (default: the first step of main).
    #[arg(long, value_name = "N")]
    pub step: Option<u32>,
    /// The expression whose value the debug shader hands out (default: coverage only).
    #[arg(long, value_name = "E")]
    pub expr: Option<String>,
    /// Debugger view: a `discard` in main after the probe returns instead, so
    /// discarded fragments keep their debug value (default: the original
    /// outputs stay bit-identical).
    #[arg(long, conflicts_with = "list_steps")]
    pub report_discarded: bool,
    /// Print the trace shader instead (what `step` records with a focus):
    /// PRED is the GLSL `bool` that picks the traced invocation, e.g.
    /// `gl_GlobalInvocationID == uvec3(1u, 0u, 0u)`.
    #[arg(long, value_name = "PRED", conflicts_with_all = ["list_steps", "step", "expr"])]
    pub trace: Option<String>,
    /// Machine-readable output: one JSON value on stdout.
    #[arg(long)]
    pub json: bool,
}

/// Why the command failed.
#[derive(Debug)]
enum Failure {
    /// The shader does not parse: reported as `FILE:LINE:COLUMN: message`.
    Parse(ParseError),
    /// Anything else, one line.
    Other(String),
}

/// Positions the search for a step's first dynamic position may visit; a
/// guard against loops with huge or unknown trip counts.
const SEARCH_LIMIT: usize = 20_000;

/// Runs `gldbg instrument`; prints results on stdout, errors on stderr (and,
/// with `--json`, as `{"ok": false, ...}` on stdout). Exit status 1 on error.
pub fn run(args: &InstrumentArgs) -> ExitCode {
    let file = args.file.display().to_string();
    match execute(args) {
        Ok(out) => {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(out.as_bytes());
            if !out.ends_with('\n') {
                let _ = stdout.write_all(b"\n");
            }
            let _ = stdout.flush();
            ExitCode::SUCCESS
        }
        Err(failure) => {
            let (text, value) = match &failure {
                Failure::Parse(e) => (
                    format!("{file}:{}:{}: {}", e.line, e.column, e.message),
                    json!({"ok": false, "file": file, "line": e.line, "column": e.column,
                           "error": e.message}),
                ),
                Failure::Other(msg) => (
                    format!("gldbg: {msg}"),
                    json!({"ok": false, "file": file, "error": msg}),
                ),
            };
            if args.json {
                println!("{value}");
            }
            eprintln!("{text}");
            ExitCode::FAILURE
        }
    }
}

/// Everything but the printing: the text to put on stdout.
fn execute(args: &InstrumentArgs) -> Result<String, Failure> {
    let stage = match &args.stage {
        Some(name) => crate::command::parse_stage(name).ok_or_else(|| {
            Failure::Other(format!(
                "unknown stage `{name}` (expected one of: {})",
                stage_names()
            ))
        })?,
        None => stage_from_path(&args.file).ok_or_else(|| {
            Failure::Other(format!(
                "{}: cannot tell the stage from the file name; give --stage ({})",
                args.file.display(),
                stage_names()
            ))
        })?,
    };
    let source = std::fs::read_to_string(&args.file)
        .map_err(|e| Failure::Other(format!("cannot read {}: {e}", args.file.display())))?;
    let model = ShaderModel::parse(&source, stage).map_err(Failure::Parse)?;
    // Steps as shown: lines numbered as the driver numbers them (`#line`).
    let shown: Vec<Step> = model
        .steps()
        .iter()
        .map(|s| Step {
            line: model.driver_line(s.line),
            ..s.clone()
        })
        .collect();

    if args.list_steps {
        return Ok(if args.json {
            Value::Array(shown.iter().map(step_json).collect()).to_string()
        } else {
            steps_text(&shown)
        });
    }

    if let Some(focus) = &args.trace {
        return trace_shader(&model, focus, args.json);
    }
    let position = match args.step {
        None => model.entry(),
        Some(n) => position_of(&model, n)?,
    };
    let probe = Probe {
        position: &position,
        expr: args.expr.as_deref(),
        semantics: if args.report_discarded {
            Semantics::ReportDiscarded
        } else {
            Semantics::Equivalent
        },
    };
    let out = model.instrument(&probe).map_err(|e| {
        let at = step_brief(&shown[position.step.0 as usize]);
        Failure::Other(format!(
            "cannot instrument step {} ({at}): {e}",
            position.step.0
        ))
    })?;
    if args.json {
        Ok(instrumented_json(&model, &position, args.expr.as_deref(), &out).to_string())
    } else {
        // stdout stays a compilable shader; where the outputs are goes to stderr.
        eprintln!(
            "// step {} ({}){}",
            position.step.0,
            step_brief(&shown[position.step.0 as usize]),
            position_note(&position)
        );
        for (role, slot) in output_slots(&out) {
            let o = slot_json(role, slot, &out.source);
            eprintln!(
                "// {role}: {} {} {}{}",
                o["kind"].as_str().unwrap_or(""),
                o["type"].as_str().unwrap_or("?"),
                o["name"].as_str().unwrap_or(""),
                match (&o["location"], &o["binding"]) {
                    (Value::Number(l), _) => format!(" (location {l})"),
                    (_, Value::Number(b)) => format!(" (binding {b})"),
                    _ => String::new(),
                }
            );
        }
        if let Some(u) = &out.path_uniform {
            eprintln!("// set uniform {u} to {:?}", position.iterations);
        }
        if let Some(u) = &out.local_size_uniform {
            eprintln!("// set uniform {u} to the program's GL_COMPUTE_WORK_GROUP_SIZE");
        }
        if let Some(u) = &out.output_vertices_uniform {
            eprintln!("// set uniform {u} to the program's GL_TESS_CONTROL_OUTPUT_VERTICES");
        }
        Ok(out.source)
    }
}

/// `--trace PRED`: the trace shader, its block and record count (stderr,
/// or JSON).
fn trace_shader(model: &ShaderModel, focus: &str, json: bool) -> Result<String, Failure> {
    let spec = glsl_instrument::TraceSpec {
        focus,
        start: 0,
        max_records: u32::MAX,
    };
    let t = model
        .instrument_trace(&spec)
        .map_err(|e| Failure::Other(format!("cannot make the trace shader: {e}")))?;
    let words: u32 = t
        .layout
        .records
        .values()
        .map(|r| r.words)
        .max()
        .unwrap_or(0);
    if json {
        return Ok(json!({
            "ok": true,
            "source": t.shader.source,
            "block": t.block,
            "record_ids": t.layout.records.len(),
            "largest_record_words": words,
        })
        .to_string());
    }
    eprintln!(
        "// trace block: buffer {} ({} record ids; the largest holds {words} value words)",
        t.block,
        t.layout.records.len()
    );
    Ok(t.shader.source)
}

fn stage_names() -> String {
    format!(
        "{}, or glslang's vert, tesc, tese, geom, frag, comp",
        Stage::ALL.map(Stage::name).join(", ")
    )
}

/// The stage a file name implies: `.vert .tesc .tese .geom .frag .comp`,
/// `.vs .gs .fs`, also with a trailing `.glsl` (`x.frag.glsl`).
pub fn stage_from_path(path: &Path) -> Option<Stage> {
    let mut path = path.to_path_buf();
    if path.extension().is_some_and(|e| e == "glsl") {
        path.set_extension("");
    }
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    Some(match ext.as_str() {
        "vert" | "vs" => Stage::Vertex,
        "tesc" => Stage::TessControl,
        "tese" => Stage::TessEval,
        "geom" | "gs" => Stage::Geometry,
        "frag" | "fs" => Stage::Fragment,
        "comp" => Stage::Compute,
        _ => return None,
    })
}

/// The first dynamic position of step `n`: breadth first from the entry.
fn position_of(model: &ShaderModel, n: u32) -> Result<Position, Failure> {
    let count = model.steps().len();
    if n as usize >= count {
        return Err(Failure::Other(format!(
            "no step {n}: the shader has steps 0 to {} (see --list-steps)",
            count.saturating_sub(1)
        )));
    }
    let target = StepId(n);
    let mut seen = HashSet::new();
    let mut queue = VecDeque::new();
    let entry = model.entry();
    seen.insert(entry.clone());
    queue.push_back(entry);
    while let Some(pos) = queue.pop_front() {
        if pos.step == target {
            return Ok(pos);
        }
        if seen.len() >= SEARCH_LIMIT {
            continue;
        }
        for next in model.successors(&pos, StepMode::Into) {
            if seen.insert(next.clone()) {
                queue.push_back(next);
            }
        }
    }
    let step = model.step(target);
    if step.function == "main" {
        // Dead code of main (after a return): still a position to instrument.
        return Ok(Position {
            step: target,
            calls: Vec::new(),
            iterations: vec![0; step.loop_depth as usize],
        });
    }
    Err(Failure::Other(format!(
        "step {n} ({}) is not reached from main()",
        step_brief(step)
    )))
}

/// `statement 9:13 in shade(): acc += x;`
fn step_brief(step: &Step) -> String {
    format!(
        "{} {}:{} in {}(): {}",
        step.kind.name(),
        step.line,
        step.column,
        step.function,
        step.text
    )
}

/// `, call chain [9.0], loop iterations [0]` (empty for a plain position in main).
fn position_note(pos: &Position) -> String {
    let mut s = String::new();
    if !pos.calls.is_empty() {
        let chain: Vec<String> = pos
            .calls
            .iter()
            .map(|(site, k)| format!("step {} call {k}", site.0))
            .collect();
        s += &format!(", called from [{}]", chain.join(", "));
    }
    if !pos.iterations.is_empty() {
        s += &format!(", loop iterations {:?}", pos.iterations);
    }
    s
}

fn steps_text(steps: &[Step]) -> String {
    let mut out = String::new();
    let width = steps.len().saturating_sub(1).to_string().len();
    for step in steps {
        out += &format!(
            "{:>width$}  {:<14}  {:>7}  {}(): {}\n",
            step.id.0,
            step.kind.name(),
            format!("{}:{}", step.line, step.column),
            step.function,
            step.text,
        );
        let vars: Vec<String> = step
            .scope
            .iter()
            .map(|v| format!("{} {}", v.ty, v.name))
            .collect();
        out += &format!("{:width$}  in scope: {}\n", "", vars.join(", "));
    }
    out
}

fn step_json(step: &Step) -> Value {
    json!({
        "step": step.id.0,
        "kind": step.kind.name(),
        "function": step.function,
        "line": step.line,
        "column": step.column,
        "text": step.text,
        "loop_depth": step.loop_depth,
        "calls": step.calls,
        "scope": step.scope.iter()
            .map(|v| json!({"name": v.name, "type": v.ty}))
            .collect::<Vec<_>>(),
    })
}

/// The debug outputs of `out` with their roles.
fn output_slots(out: &Instrumented) -> Vec<(&'static str, &OutputSlot)> {
    let mut slots = vec![("value", &out.value), ("coverage", &out.coverage)];
    if let Some(slot) = &out.emission {
        slots.push(("emission", slot));
    }
    slots
}

fn instrumented_json(
    model: &ShaderModel,
    pos: &Position,
    expr: Option<&str>,
    out: &Instrumented,
) -> Value {
    let step = model.step(pos.step);
    json!({
        "stage": model.stage().name(),
        "step": step_json(step),
        "position": {
            "step": pos.step.0,
            "calls": pos.calls.iter()
                .map(|(site, k)| json!({"step": site.0, "call": k}))
                .collect::<Vec<_>>(),
            "iterations": pos.iterations,
        },
        "expr": expr,
        "source": out.source,
        "outputs": output_slots(out).into_iter()
            .map(|(role, slot)| slot_json(role, slot, &out.source))
            .collect::<Vec<_>>(),
        "app_outputs": out.app_outputs,
        "path_uniform": out.path_uniform,
        "path": pos.iterations,
        "local_size_uniform": out.local_size_uniform,
        "output_vertices_uniform": out.output_vertices_uniform,
    })
}

/// One debug output: role, kind, where (location or binding), name, GLSL type.
fn slot_json(role: &str, slot: &OutputSlot, source: &str) -> Value {
    let (kind, name) = match slot {
        OutputSlot::Named(name) => ("named", name.clone()),
        OutputSlot::FragData(k) => ("frag_data", format!("gl_FragData[{k}]")),
        OutputSlot::Varying(name) => ("varying", name.clone()),
        OutputSlot::Buffer { block, .. } => ("buffer", block.clone()),
    };
    let mut o = serde_json::Map::new();
    o.insert("role".into(), json!(role));
    o.insert("kind".into(), json!(kind));
    match slot {
        OutputSlot::FragData(k) => {
            o.insert("location".into(), json!(k));
        }
        OutputSlot::Buffer { binding, .. } => {
            o.insert("binding".into(), json!(binding));
        }
        OutputSlot::Named(n) | OutputSlot::Varying(n) => {
            // Explicit in the source (ES) or picked by whoever links the program.
            o.insert(
                "location".into(),
                json!(declared(source, n).and_then(|d| d.1)),
            );
        }
    }
    o.insert("name".into(), json!(name));
    if let OutputSlot::Buffer { member, .. } = slot {
        o.insert("member".into(), json!(member));
    }
    let ty = match slot {
        OutputSlot::FragData(_) => Some("vec4".to_string()),
        OutputSlot::Buffer { member, .. } => declared(source, member).map(|d| d.0),
        OutputSlot::Named(n) | OutputSlot::Varying(n) => declared(source, n).map(|d| d.0),
    };
    o.insert("type".into(), json!(ty));
    Value::Object(o)
}

/// The type and `layout(location = N)` of the declaration of `name` in
/// `source` (a global, or a member of a block): the type is the word before
/// the name, array brackets after it are not part of it.
fn declared(source: &str, name: &str) -> Option<(String, Option<u32>)> {
    for chunk in source.split(';') {
        // The declaration is what follows the last brace (a function body
        // or a block's opening).
        let decl = chunk.rsplit(['{', '}']).next().unwrap_or(chunk);
        let words = tokens(decl);
        let Some(at) = words.iter().rposition(|w| w == name) else {
            continue;
        };
        // Only `name` or `name[...]` may end the declaration.
        let rest = &words[at + 1..];
        if !(rest.is_empty() || rest.first().is_some_and(|w| w == "[")) {
            continue;
        }
        let Some(ty) = at.checked_sub(1).map(|i| &words[i]) else {
            continue;
        };
        if !ty.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            continue;
        }
        let location = words
            .windows(3)
            .find(|w| w[0] == "location" && w[1] == "=")
            .and_then(|w| w[2].parse().ok());
        return Some((ty.clone(), location));
    }
    None
}

/// Identifiers, numbers and single punctuation characters of `text`.
fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || c == '_' {
            word.push(c);
            continue;
        }
        if !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_from_extension() {
        let s = |p: &str| stage_from_path(Path::new(p));
        assert_eq!(s("a/b.frag"), Some(Stage::Fragment));
        assert_eq!(s("b.FS"), Some(Stage::Fragment));
        assert_eq!(s("b.vert"), Some(Stage::Vertex));
        assert_eq!(s("b.vs"), Some(Stage::Vertex));
        assert_eq!(s("b.tesc"), Some(Stage::TessControl));
        assert_eq!(s("b.tese"), Some(Stage::TessEval));
        assert_eq!(s("b.geom"), Some(Stage::Geometry));
        assert_eq!(s("b.gs"), Some(Stage::Geometry));
        assert_eq!(s("b.comp"), Some(Stage::Compute));
        assert_eq!(s("b.frag.glsl"), Some(Stage::Fragment));
        assert_eq!(s("b.glsl"), None);
        assert_eq!(s("b"), None);
    }

    #[test]
    fn declarations_in_generated_source() {
        let src = "#version 310 es\nlayout(location = 0) out vec4 color;\n\
                   layout(location = 1) out highp vec4 gldbg_value;\nout float gldbg_cov[2];\n\
                   layout(std430, binding = 3) buffer gldbg_b { vec4 gldbg_v[]; };\n\
                   void main() { color = vec4(1.0); }\n";
        assert_eq!(declared(src, "gldbg_value"), Some(("vec4".into(), Some(1))));
        assert_eq!(declared(src, "gldbg_cov"), Some(("float".into(), None)));
        assert_eq!(declared(src, "gldbg_v"), Some(("vec4".into(), None)));
        assert_eq!(declared(src, "nothing"), None);
    }
}
