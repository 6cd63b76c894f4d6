//! Rendering command results and events: gdb-like text, or JSON lines (CLI.md).
//!
//! Text is for people and may change; the JSON keys are the contract scripts
//! and tests rely on (CLI.md "JSON lines").

use std::fmt::Write as _;

use gldbg_proto::pb;
use serde_json::{Map, Value, json};

use crate::command::{At, help_entries};
use crate::exec::{Deleted, Failure, Outcome};
use crate::numbers;

type Obj = Map<String, Value>;

// ---------------------------------------------------------------- numbers

/// How the components of a GLSL type are best shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar {
    Bool,
    Int,
    Float,
    Double,
}

fn scalar_of(ty: &str) -> Scalar {
    let ty = ty.trim();
    if ty.starts_with("bool") || ty.starts_with("bvec") {
        Scalar::Bool
    } else if ty.starts_with("int")
        || ty.starts_with("uint")
        || ty.starts_with("ivec")
        || ty.starts_with("uvec")
    {
        Scalar::Int
    } else if ty.starts_with("double") || ty.starts_with("dvec") || ty.starts_with("dmat") {
        Scalar::Double
    } else {
        Scalar::Float
    }
}

/// One component as text: floats in their shortest round-trip form, `%g`-like
/// (`numbers::float_text`).
fn component_text(v: f64, s: Scalar) -> String {
    match s {
        Scalar::Bool if v.is_finite() => (v != 0.0).to_string(),
        Scalar::Int if v.is_finite() && v.fract() == 0.0 => format!("{}", v as i64),
        Scalar::Float => numbers::float_text(v, true),
        _ => numbers::float_text(v, false),
    }
}

/// One component as JSON: a number (floats rounded to the shortest decimal of
/// their f32, so 0.1f reads 0.1), `"NaN"`, `"Inf"`, `"-Inf"` for the others.
fn component_json(v: f64, s: Scalar) -> Value {
    match s {
        Scalar::Bool | Scalar::Int if v.is_finite() && v.fract() == 0.0 => json!(v as i64),
        Scalar::Float => numbers::float_json(v, true),
        _ => numbers::float_json(v, false),
    }
}

fn components_text(values: &[f64], ty: &str) -> String {
    let s = scalar_of(ty);
    let parts: Vec<String> = values.iter().map(|v| component_text(*v, s)).collect();
    if parts.len() == 1 {
        parts[0].clone()
    } else {
        format!("({})", parts.join(", "))
    }
}

fn components_json(values: &[f64], ty: &str) -> Value {
    let s = scalar_of(ty);
    Value::Array(values.iter().map(|v| component_json(*v, s)).collect())
}

/// The components of a printed value, each part of a value in parts
/// (`PrintReply.parts`) as its own type: `values` holds the parts'
/// components one after the other.
fn split_parts<'a>(
    values: &'a [f64],
    reply: &'a pb::PrintReply,
) -> Vec<(&'a pb::ValuePart, &'a [f64])> {
    let mut rest = values;
    reply
        .parts
        .iter()
        .map(|p| {
            let (mine, tail) = rest.split_at((p.components as usize).min(rest.len()));
            rest = tail;
            (p, mine)
        })
        .collect()
}

/// A printed value as text: `(1, 2)`, or a value in parts at their paths,
/// `{[0] = (1, 2, 3), [1] = (4, 5, 6)}`, as gdb prints an aggregate.
fn value_text(values: &[f64], reply: &pb::PrintReply) -> String {
    if reply.parts.is_empty() {
        return components_text(values, &reply.r#type);
    }
    let items: Vec<String> = split_parts(values, reply)
        .into_iter()
        .map(|(p, v)| format!("{} = {}", p.path, components_text(v, &p.r#type)))
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// A printed value as JSON: its components in one array.
fn value_json(values: &[f64], reply: &pb::PrintReply) -> Value {
    if reply.parts.is_empty() {
        return components_json(values, &reply.r#type);
    }
    Value::Array(
        split_parts(values, reply)
            .into_iter()
            .flat_map(|(p, v)| v.iter().map(|&x| component_json(x, scalar_of(&p.r#type))))
            .collect(),
    )
}

// ---------------------------------------------------------------- pieces

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

fn call_brief_json(call: &pb::CallInfo) -> Value {
    let mut o = Obj::new();
    o.insert("function".into(), json!(call.function));
    o.insert("call".into(), json!(call.call));
    o.insert("thread".into(), json!(call.thread));
    if call.draw != 0 {
        o.insert("draw".into(), json!(call.draw));
    }
    if call.frame != 0 {
        o.insert("frame".into(), json!(call.frame));
    }
    if !call.error.is_empty() {
        o.insert("error".into(), json!(call.error));
    }
    if call.paused {
        o.insert("paused".into(), json!(true));
        o.insert("pc".into(), json!(call.pc));
    }
    if call.pid != 0 {
        o.insert("pid".into(), json!(call.pid));
    }
    Value::Object(o)
}

fn args_json(call: &pb::CallInfo) -> Value {
    Value::Array(
        call.args
            .iter()
            .map(|a| {
                let mut o = Obj::new();
                o.insert("name".into(), json!(a.name));
                o.insert("type".into(), json!(a.r#type));
                o.insert("value".into(), json!(a.value));
                o.insert("raw".into(), json!(a.raw));
                if !a.contents.is_empty() {
                    o.insert("contents".into(), json!(a.contents));
                }
                Value::Object(o)
            })
            .collect(),
    )
}

fn exit_text(exit: &pb::Exit) -> String {
    let desc = &exit.description;
    match (exit.code, exit.signal) {
        (Some(code), _) => format!("Program exited with code {code}."),
        (None, Some(sig)) if desc.is_empty() => format!("Program terminated by signal {sig}."),
        (None, Some(sig)) => format!("Program terminated by signal {sig} ({desc})."),
        (None, None) if desc.is_empty() => "Program exited.".to_string(),
        (None, None) => format!("Program exited ({desc})."),
    }
}

fn exit_json(exit: &pb::Exit) -> Obj {
    let mut o = Obj::new();
    if let Some(code) = exit.code {
        o.insert("code".into(), json!(code));
    }
    if let Some(sig) = exit.signal {
        o.insert("signal".into(), json!(sig));
    }
    if !exit.description.is_empty() {
        o.insert("description".into(), json!(exit.description));
    }
    o
}

fn crash_text(crash: &pb::Crash) -> String {
    let mut s = format!(
        "Program crashed: {} (signal {}) at address {:#x} [thread {}]",
        if crash.signal_name.is_empty() {
            "signal"
        } else {
            &crash.signal_name
        },
        crash.signal,
        crash.fault_address,
        crash.thread
    );
    if let Some(call) = &crash.call {
        let where_ = if crash.in_call {
            "in"
        } else {
            "after the last GL call seen,"
        };
        let _ = write!(s, "\n  {where_} {}", call_line(call));
    }
    if !crash.stopped_calls_seen.is_empty() {
        let _ = write!(
            s,
            "\n  last calls gldbg stopped at on that thread (not every call):"
        );
        for c in &crash.stopped_calls_seen {
            let _ = write!(s, "\n    {}", call_line(c));
        }
    }
    s
}

fn crash_json(crash: &pb::Crash) -> Obj {
    let mut o = Obj::new();
    o.insert("signal".into(), json!(crash.signal));
    o.insert("signal_name".into(), json!(crash.signal_name));
    o.insert("fault_address".into(), json!(crash.fault_address));
    o.insert("thread".into(), json!(crash.thread));
    o.insert("in_call".into(), json!(crash.in_call));
    if let Some(call) = &crash.call {
        let mut c = match call_brief_json(call) {
            Value::Object(c) => c,
            _ => unreachable!(),
        };
        c.insert("args".into(), args_json(call));
        o.insert("call".into(), Value::Object(c));
    }
    if crash.pid != 0 {
        o.insert("pid".into(), json!(crash.pid));
    }
    if !crash.stopped_calls_seen.is_empty() {
        o.insert(
            "stopped_calls_seen".into(),
            Value::Array(
                crash
                    .stopped_calls_seen
                    .iter()
                    .map(call_brief_json)
                    .collect(),
            ),
        );
    }
    if !crash.registers.is_empty() {
        let regs: std::collections::BTreeMap<_, _> = crash.registers.iter().collect();
        o.insert("registers".into(), json!(regs));
    }
    o
}

fn state_name(state: pb::RunState) -> &'static str {
    match state {
        pb::RunState::Unspecified => "unknown",
        pb::RunState::NotStarted => "not-started",
        pb::RunState::Running => "running",
        pb::RunState::Stopped => "stopped",
        pb::RunState::Exited => "exited",
    }
}

fn noun(stage: &str) -> &'static str {
    match stage {
        "fragment" => "fragments",
        "vertex" | "tess-eval" | "geometry" => "vertices",
        _ => "invocations",
    }
}

fn shader_stop_text(stop: &pb::ShaderStop) -> String {
    let stage = if stop.stage.is_empty() {
        "shader"
    } else {
        &stop.stage
    };
    let mut s = format!("{stage} shader: ");
    if stop.finished {
        s.push_str("finished (end of main)");
    } else {
        let _ = write!(s, "line {}:{}", stop.line, stop.column);
        if !stop.function.is_empty() {
            let _ = write!(s, " in {}()", stop.function);
        }
        if !stop.text.is_empty() {
            let _ = write!(s, ": {}", stop.text);
        }
    }
    let mut extras = vec![format!("reached by {} {}", stop.reached, noun(&stop.stage))];
    match stop.iterations.as_slice() {
        [] => {}
        [i] => extras.push(format!("loop iteration {i}")),
        its => extras.push(format!(
            "loop iterations {}",
            its.iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
    if stop.breakpoint_line != 0 {
        extras.push(format!("breakpoint at line {}", stop.breakpoint_line));
    }
    if let Some(at) = invocation_at(stop.focus.as_ref()) {
        extras.push(format!(
            "focus {at}{}",
            if stop.focus_reached {
                ""
            } else {
                " (not here)"
            }
        ));
    }
    let _ = write!(s, "  [{}]", extras.join(", "));
    s
}

/// The keys a shader stop adds to a result line.
fn shader_stop_json(o: &mut Obj, stop: &pb::ShaderStop) {
    o.insert("stage".into(), json!(stop.stage));
    o.insert("line".into(), json!(stop.line));
    o.insert("column".into(), json!(stop.column));
    o.insert("step".into(), json!(stop.step));
    o.insert("function".into(), json!(stop.function));
    o.insert("text".into(), json!(stop.text));
    o.insert("kind".into(), json!(stop.kind));
    o.insert("reached".into(), json!(stop.reached));
    o.insert("finished".into(), json!(stop.finished));
    o.insert("iterations".into(), json!(stop.iterations));
    o.insert("calls".into(), json!(stop.calls));
    if stop.breakpoint_line != 0 {
        o.insert("breakpoint_line".into(), json!(stop.breakpoint_line));
    }
    if let Some(at) = invocation_at(stop.focus.as_ref()) {
        o.insert("focus".into(), at_json(at));
        o.insert("focus_reached".into(), json!(stop.focus_reached));
    }
    timing_json(o, stop.timing.as_ref());
}

/// What a command's probes cost (`"timing"`, nanoseconds), when it ran any.
fn timing_json(o: &mut Obj, timing: Option<&pb::ProbeTiming>) {
    if let Some(t) = timing {
        o.insert(
            "timing".into(),
            json!({"probes": t.probes, "cached_programs": t.cached_programs,
                   "instrument_ns": t.instrument_ns, "build_ns": t.build_ns,
                   "replay_ns": t.replay_ns, "readback_ns": t.readback_ns,
                   "readback_bytes": t.readback_bytes, "total_ns": t.total_ns}),
        );
    }
}

/// `info flow`: per side of a branch, or per loop iteration.
fn flow_text(info: &pb::FlowInfo, chart: Option<&std::path::Path>) -> String {
    let mut s = format!(
        "{} at line {}: {}  [{} invocations]",
        info.kind, info.line, info.condition, info.reached
    );
    for side in &info.sides {
        let _ = write!(s, "\n  {:<10} {}", side.label, side.count);
    }
    if !info.iterations.is_empty() {
        s.push_str("\n  iteration  evaluated  stay in");
        for it in &info.iterations {
            let _ = write!(
                s,
                "\n  {:>9}  {:>9}  {:>7}",
                it.iteration, it.evaluated, it.entered
            );
        }
    }
    if let Some(f) = chart {
        let _ = write!(s, "\nWrote {}.", f.display());
    }
    s
}

fn flow_json(o: &mut Obj, info: &pb::FlowInfo, chart: Option<&std::path::Path>) {
    o.insert("kind".into(), json!(info.kind));
    o.insert("line".into(), json!(info.line));
    o.insert("condition".into(), json!(info.condition));
    o.insert("reached".into(), json!(info.reached));
    if info.kind == "loop" {
        o.insert(
            "iterations".into(),
            Value::Array(
                info.iterations
                    .iter()
                    .map(|i| json!({"iteration": i.iteration, "evaluated": i.evaluated, "entered": i.entered}))
                    .collect(),
            ),
        );
    } else {
        o.insert(
            "sides".into(),
            Value::Array(
                info.sides
                    .iter()
                    .map(|s| json!({"label": s.label, "count": s.count}))
                    .collect(),
            ),
        );
    }
    if let Some(f) = chart {
        o.insert("file".into(), json!(f.display().to_string()));
    }
}

fn state_text(reply: &pb::StateReply) -> String {
    let mut lines = Vec::new();
    if let Some(crash) = &reply.crash {
        lines.push(crash_text(crash));
    }
    match reply.state() {
        pb::RunState::Stopped => match &reply.stop {
            Some(call) => {
                let mut s = format!("Stopped at {}", call_line(call));
                let mut extras = Vec::new();
                if call.draw != 0 {
                    extras.push(format!("draw {}", call.draw));
                }
                if call.frame > 1 || (call.frame == 1 && call.draw == 0) {
                    extras.push(format!("frame {}", call.frame));
                }
                if reply.breakpoint_id != 0 {
                    extras.push(format!("breakpoint {}", reply.breakpoint_id));
                }
                if !extras.is_empty() {
                    let _ = write!(s, " ({})", extras.join(", "));
                }
                lines.push(s);
            }
            None => lines.push("Stopped.".into()),
        },
        pb::RunState::Exited => lines.push(
            reply
                .exit
                .as_ref()
                .map(exit_text)
                .unwrap_or_else(|| "Program exited.".into()),
        ),
        pb::RunState::Running => lines.push("The app is running.".into()),
        pb::RunState::NotStarted => lines.push("No app has been started.".into()),
        pb::RunState::Unspecified => lines.push("State unknown.".into()),
    }
    if let Some(stop) = &reply.shader {
        lines.push(shader_stop_text(stop));
    }
    lines.join("\n")
}

fn state_json(o: &mut Obj, reply: &pb::StateReply) {
    o.insert("state".into(), json!(state_name(reply.state())));
    if let Some(call) = &reply.stop
        && reply.state() == pb::RunState::Stopped
    {
        o.insert("stopped".into(), call_brief_json(call));
    }
    if reply.breakpoint_id != 0 {
        o.insert("breakpoint".into(), json!(reply.breakpoint_id));
    }
    if let Some(exit) = &reply.exit
        && reply.state() == pb::RunState::Exited
    {
        o.insert("exited".into(), Value::Object(exit_json(exit)));
    }
    if let Some(crash) = &reply.crash {
        o.insert("crashed".into(), Value::Object(crash_json(crash)));
    }
    if let Some(stop) = &reply.shader {
        let mut s = Obj::new();
        shader_stop_json(&mut s, stop);
        o.insert("shader".into(), Value::Object(s));
    }
}

/// `info state`: one line per value; enum-valued state by name.
fn gl_state_text(st: &pb::GlState) -> String {
    let w = st.values.iter().map(|v| v.name.len()).max().unwrap_or(0);
    st.values
        .iter()
        .map(|v| {
            let value = if !v.error.is_empty() {
                format!("<{}>", v.error)
            } else if gldbg_debugd::glstate::value_is_enum(&v.name) {
                v.values
                    .iter()
                    .map(|x| {
                        gldbg_proto::api::gl_enum_name(*x as u32, "")
                            .map_or_else(|| x.to_string(), str::to_string)
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                // A value GL keeps as a float (it converts exactly to f32)
                // shows as that float: 0.1, not 0.10000000149011612.
                v.values
                    .iter()
                    .map(|&x| numbers::float_text(x, x as f32 as f64 == x))
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            format!("{:w$} = {value}", v.name)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn call_text(call: &pb::CallInfo) -> String {
    let mut s = call_line(call);
    match (call.draw, call.frame) {
        (0, 0) => {}
        (0, f) => {
            let _ = write!(s, " (frame {f})");
        }
        (d, 0) => {
            let _ = write!(s, " (draw {d})");
        }
        (d, f) => {
            let _ = write!(s, " (draw {d}, frame {f})");
        }
    }
    let name_w = call.args.iter().map(|a| a.name.len()).max().unwrap_or(0);
    let type_w = call.args.iter().map(|a| a.r#type.len()).max().unwrap_or(0);
    for a in &call.args {
        let _ = write!(
            s,
            "\n  {:name_w$}  {:type_w$}  = {}",
            a.name, a.r#type, a.value
        );
        if !a.contents.is_empty() {
            for line in a.contents.lines() {
                let _ = write!(s, "\n      | {line}");
            }
        }
    }
    if !call.returned.is_empty() {
        let _ = write!(s, "\n  returned {}", call.returned);
    }
    if !call.error.is_empty() {
        let _ = write!(
            s,
            "\n  raised {} (the app still gets it from glGetError)",
            call.error
        );
    }
    s
}

fn breakpoints_text(deleted: &Option<Deleted>, gl: &[pb::Breakpoint], shader: &[u32]) -> String {
    let mut lines = Vec::new();
    match deleted {
        Some(Deleted::AllGl) => lines.push("Deleted all breakpoints.".to_string()),
        Some(Deleted::Gl(id)) => lines.push(format!("Deleted breakpoint {id}.")),
        Some(Deleted::AllShader) => lines.push("Deleted all shader breakpoints.".to_string()),
        Some(Deleted::ShaderLine(l)) => {
            lines.push(format!("Deleted the shader breakpoint at line {l}."))
        }
        None => {}
    }
    if deleted.is_none() {
        if gl.is_empty() {
            lines.push("No breakpoints.".into());
        } else {
            let w = gl
                .iter()
                .map(|b| b.description.len())
                .max()
                .unwrap_or(0)
                .max(4);
            lines.push(format!("Num  {:w$}  Hits", "What"));
            for b in gl {
                lines.push(format!("{:<4} {:w$}  {}", b.id, b.description, b.hits));
            }
        }
        if !shader.is_empty() {
            lines.push(format!("Shader breakpoints at lines {}.", join_u32(shader)));
        }
    }
    lines.join("\n")
}

fn join_u32(v: &[u32]) -> String {
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

fn breakpoint_json(b: &pb::Breakpoint) -> Value {
    json!({"id": b.id, "description": b.description, "hits": b.hits})
}

/// An output's location with its dual-source blending index, where the
/// program has a second source (`dual`).
fn output_text(v: &pb::Variable, dual: bool) -> String {
    let s = variable_text(v);
    match (dual && v.index >= 0, s.strip_suffix(')')) {
        (true, Some(head)) if v.location >= 0 => format!("{head}, index {})", v.index),
        _ => s,
    }
}

fn variable_text(v: &pb::Variable) -> String {
    let mut s = if v.r#type.is_empty() {
        v.name.clone()
    } else {
        format!("{} {}", v.r#type, v.name)
    };
    if v.size > 1 {
        let _ = write!(s, "[{}]", v.size);
    }
    if v.location >= 0 {
        let _ = write!(s, " (location {})", v.location);
    }
    if !v.block.is_empty() {
        let _ = write!(
            s,
            " (uniform block {}; its value is in the bound buffer)",
            v.block
        );
    }
    if !v.value.is_empty() {
        let _ = write!(s, " = {}", v.value);
    }
    s
}

fn variables_json(vars: &[pb::Variable]) -> Value {
    Value::Array(
        vars.iter()
            .map(|v| {
                let mut j = json!({"name": v.name, "type": v.r#type, "size": v.size, "location": v.location, "value": v.value});
                if !v.block.is_empty() {
                    j["block"] = json!(v.block);
                }
                j
            })
            .collect(),
    )
}

/// Outputs as [`variables_json`], each with its dual-source blending
/// `index` (-1 where GL does not say).
fn outputs_json(vars: &[pb::Variable]) -> Value {
    let mut v = variables_json(vars);
    if let Value::Array(items) = &mut v {
        for (item, var) in items.iter_mut().zip(vars) {
            item["index"] = json!(var.index);
        }
    }
    v
}

fn program_text(p: &pb::ProgramInfo) -> String {
    let mut s = format!("Program {}", p.program);
    if p.shaders.is_empty() {
        s.push_str("\n  (no shaders)");
    }
    if !p.note.is_empty() {
        let _ = write!(s, "\n  {}", p.note);
    }
    for sh in &p.shaders {
        let _ = write!(s, "\n  {} shader {}", sh.stage, sh.id);
        if !sh.version.is_empty() {
            let _ = write!(s, ", #version {}", sh.version);
        }
        if sh.source.is_empty() {
            s.push_str(" (source unknown)");
        } else if !sh.recorded {
            s.push_str(" (source queried from the driver)");
        }
    }
    for (title, vars) in [
        ("Uniforms", &p.uniforms),
        ("Attributes", &p.attributes),
        ("Outputs", &p.outputs),
    ] {
        if !vars.is_empty() {
            let _ = write!(s, "\n{title}:");
            let dual = title == "Outputs" && vars.iter().any(|v| v.index > 0);
            for v in vars {
                let _ = write!(s, "\n  {}", output_text(v, dual));
            }
        }
    }
    s
}

fn listing_text(listing: &pb::SourceListing) -> String {
    listing
        .lines
        .iter()
        .map(|l| {
            let marker = match (l.current, l.breakpoint) {
                (true, true) => "=*",
                (true, false) => "=>",
                (false, true) => " *",
                (false, false) => "  ",
            };
            format!("{marker}{:>5}  {}", l.line, l.text)
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn at_of(reply: &pb::PrintReply, asked: Option<At>) -> Option<At> {
    invocation_at(reply.at.as_ref()).or(asked)
}

/// An invocation of the wire as the command language writes it.
fn invocation_at(inv: Option<&pb::Invocation>) -> Option<At> {
    use pb::invocation::Kind;
    match inv.and_then(|i| i.kind.as_ref()) {
        Some(Kind::Pixel(p)) => Some(At::Pixel { x: p.x, y: p.y }),
        Some(Kind::Vertex(n)) => Some(At::Vertex(*n)),
        Some(Kind::Primitive(n)) => Some(At::Primitive(*n)),
        Some(Kind::Invocation(w)) => Some(At::Invocation {
            x: w.x,
            y: w.y,
            z: w.z,
        }),
        None => None,
    }
}

fn at_json(at: At) -> Value {
    match at {
        At::Pixel { x, y } => json!({"x": x, "y": y}),
        At::Vertex(n) => json!({"vertex": n}),
        At::Primitive(n) => json!({"primitive": n}),
        At::Invocation { x, y, z } => json!({"x": x, "y": y, "z": z}),
    }
}

/// Components of a value; those in `undefined` (not written yet at this
/// step) as `undefined`, never as a number.
fn written_text(values: &[f64], undefined: &[u32], reply: &pb::PrintReply) -> String {
    if undefined.is_empty() {
        return value_text(values, reply);
    }
    if undefined.len() >= values.len() {
        return "not yet written at this step".into();
    }
    let mut types = Vec::new();
    if reply.parts.is_empty() {
        types.resize(values.len(), reply.r#type.as_str());
    }
    for p in &reply.parts {
        types.extend(std::iter::repeat_n(
            p.r#type.as_str(),
            p.components as usize,
        ));
    }
    let items: Vec<String> = values
        .iter()
        .enumerate()
        .map(|(i, &v)| match undefined.contains(&(i as u32)) {
            true => "undefined".into(),
            false => components_text(&[v], types.get(i).copied().unwrap_or("float")),
        })
        .collect();
    format!("({})", items.join(", "))
}

/// A reached invocation's value as JSON (CLI.md): not written at all,
/// `"undefined": true` and no `"value"`; partly, the components not written
/// as the string `"undefined"` in `"value"`, their indices in
/// `"undefined_components"`.
fn undefined_json(o: &mut Obj, values: &[f64], undefined: &[u32], reply: &pb::PrintReply) {
    if !undefined.is_empty() && undefined.len() >= values.len() {
        o.insert("undefined".into(), json!(true));
        return;
    }
    let mut v = value_json(values, reply);
    if let Value::Array(items) = &mut v {
        for &i in undefined {
            if let Some(x) = items.get_mut(i as usize) {
                *x = json!("undefined");
            }
        }
    }
    o.insert("value".into(), v);
    if !undefined.is_empty() {
        o.insert("undefined_components".into(), json!(undefined));
    }
}

fn print_text(reply: &pb::PrintReply, asked: Option<At>, stage: &str) -> String {
    let mut s = print_value_text(reply, asked, stage);
    if !reply.written_unknown.is_empty() {
        let _ = write!(
            s,
            "\n  note: gldbg cannot tell whether {} was written at this step; shown as read",
            reply.written_unknown.join(", ")
        );
    }
    s
}

fn print_value_text(reply: &pb::PrintReply, asked: Option<At>, stage: &str) -> String {
    let ty = &reply.r#type;
    if !reply.emitted.is_empty() {
        return emitted_text(reply, asked);
    }
    match (at_of(reply, asked), &reply.summary) {
        (Some(at), _) => {
            if reply.reached && reply.undefined.len() >= reply.value.len().max(1) {
                format!("{} @ {at}: not yet written at this step ({ty})", reply.expr)
            } else if reply.reached {
                format!(
                    "{} = {} ({ty}) @ {at}",
                    reply.expr,
                    written_text(&reply.value, &reply.undefined, reply)
                )
            } else if reply.discarded {
                format!("{} @ {at}: discarded before the end of main", reply.expr)
            } else {
                format!("{} @ {at}: not reached at this step", reply.expr)
            }
        }
        (None, Some(sum)) => {
            let mut s = format!(
                "{} ({ty}): {} of {} {} reached",
                reply.expr,
                sum.count,
                sum.total,
                noun(stage)
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
                let _ = write!(
                    s,
                    "; min {}, max {}",
                    value_text(&sum.min, reply),
                    value_text(&sum.max, reply)
                );
            }
            let _ = write!(s, "; NaN {}, Inf {}", sum.nan, sum.inf);
            if !reply.table.is_empty() {
                let _ = write!(s, "\n  first {} of {}:", reply.table.len(), sum.total);
            }
            for row in &reply.table {
                let what = match row.reached {
                    true => written_text(&row.value, &row.undefined, reply),
                    false => "not reached".into(),
                };
                let _ = write!(s, "\n  vertex {}: {what}", row.vertex);
            }
            s
        }
        (None, None) => format!(
            "{} = {} ({ty})",
            reply.expr,
            value_text(&reply.value, reply)
        ),
    }
}

/// `print EXPR @ primitive N`: one line per vertex the primitive emitted.
fn emitted_text(reply: &pb::PrintReply, asked: Option<At>) -> String {
    let ty = &reply.r#type;
    let at = at_of(reply, asked)
        .map(|a| format!(" @ {a}"))
        .unwrap_or_default();
    let mut s = format!(
        "{}{at} ({ty}): {} vertices emitted",
        reply.expr,
        reply.emitted.len()
    );
    for e in &reply.emitted {
        let who = match e.invocation {
            0 => format!("  #{}", e.emit),
            i => format!("  #{} (invocation {i})", e.emit),
        };
        let what = match e.reached {
            true => value_text(&e.value, reply),
            false => "not reached when emitted".into(),
        };
        let _ = write!(s, "\n{who} [vertex {}]: {what}", e.vertex);
    }
    s
}

fn print_json(o: &mut Obj, reply: &pb::PrintReply, asked: Option<At>) {
    let ty = &reply.r#type;
    o.insert("expr".into(), json!(reply.expr));
    o.insert("type".into(), json!(ty));
    if !reply.written_unknown.is_empty() {
        // Not claimed written or not written: shown as read.
        o.insert("written_unknown".into(), json!(reply.written_unknown));
    }
    if !reply.emitted.is_empty() {
        if let Some(at) = at_of(reply, asked) {
            o.insert("invocation".into(), at_json(at));
        }
        o.insert("reached".into(), json!(reply.reached));
        let emitted: Vec<Value> = reply
            .emitted
            .iter()
            .map(|e| {
                let mut v = json!({
                    "emit": e.emit,
                    "invocation": e.invocation,
                    "vertex": e.vertex,
                    "reached": e.reached,
                });
                if e.reached {
                    v["value"] = value_json(&e.value, reply);
                }
                v
            })
            .collect();
        o.insert("emitted".into(), Value::Array(emitted));
        timing_json(o, reply.timing.as_ref());
        return;
    }
    match at_of(reply, asked) {
        Some(at) => {
            o.insert("invocation".into(), at_json(at));
            o.insert("reached".into(), json!(reply.reached));
            if reply.reached {
                undefined_json(o, &reply.value, &reply.undefined, reply);
            }
            if reply.discarded {
                o.insert("discarded".into(), json!(true));
            }
        }
        None => {
            if let Some(sum) = &reply.summary {
                o.insert(
                    "summary".into(),
                    json!({
                        "count": sum.count,
                        "min": value_json(&sum.min, reply),
                        "max": value_json(&sum.max, reply),
                        "nan": sum.nan,
                        "inf": sum.inf,
                        "total": sum.total,
                    }),
                );
                for (k, n) in [("discarded", sum.discarded), ("undefined", sum.undefined)] {
                    if n > 0 {
                        o["summary"][k] = json!(n);
                    }
                }
                // No written value: there is no min or max (not NaN).
                if sum.count <= sum.undefined
                    && let Some(s) = o["summary"].as_object_mut()
                {
                    s.remove("min");
                    s.remove("max");
                }
                if !reply.table.is_empty() {
                    let rows: Vec<Value> = reply
                        .table
                        .iter()
                        .map(|row| {
                            let mut v = Obj::new();
                            v.insert("vertex".into(), json!(row.vertex));
                            v.insert("reached".into(), json!(row.reached));
                            if row.reached {
                                undefined_json(&mut v, &row.value, &row.undefined, reply);
                            }
                            Value::Object(v)
                        })
                        .collect();
                    o.insert("table".into(), Value::Array(rows));
                }
            } else {
                o.insert("value".into(), value_json(&reply.value, reply));
            }
        }
    }
    if !reply.parts.is_empty() {
        let parts: Vec<Value> = reply
            .parts
            .iter()
            .map(|p| json!({"path": p.path, "type": p.r#type, "components": p.components}))
            .collect();
        o.insert("parts".into(), Value::Array(parts));
    }
    timing_json(o, reply.timing.as_ref());
}

/// What a PNG dump mapped: `; mapped 0..1`, `; mapped r 0..1, g -2..3`, or
/// `; viridis over 0..1, legend at x 64..75 (top max, bottom min)`.
fn mapped_text(mapped: &[(f64, f64)], ty: &str, viridis: bool, width: u32, legend: u32) -> String {
    let single = scalar_of(ty) != Scalar::Double;
    let range = |&(lo, hi): &(f64, f64)| {
        if lo.is_nan() {
            "no finite value".to_string()
        } else {
            format!(
                "{}..{}",
                numbers::float_text(lo, single),
                numbers::float_text(hi, single)
            )
        }
    };
    match mapped {
        [] => String::new(),
        [one] if viridis => format!(
            "; viridis over {}, legend at x {}..{} (top max, bottom min)",
            range(one),
            width,
            width + legend.max(1) - 1
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

fn help_text(topic: Option<&str>) -> String {
    const W: usize = 32;
    help_entries(topic)
        .into_iter()
        .map(|(c, m)| {
            if c.len() <= W {
                format!("  {c:W$}  {m}")
            } else {
                format!("  {c}\n  {:W$}  {m}", "")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

// ---------------------------------------------------------------- results

/// The text of a command result (no trailing newline; may be empty).
pub fn result_text(result: &Result<Outcome, Failure>) -> String {
    let outcome = match result {
        Ok(o) => o,
        Err(msg) => return format!("Error: {msg}"),
    };
    match outcome {
        Outcome::State(reply) => state_text(reply),
        Outcome::Detached(_) => "Detached: the app runs on without gldbg.".into(),
        Outcome::Call(call) => call_text(call),
        Outcome::Breakpoint(b) => format!("Breakpoint {}: {}", b.id, b.description),
        Outcome::ShaderBreak { line, lines } => {
            format!(
                "Shader breakpoint at line {line} (all: lines {}).",
                join_u32(lines)
            )
        }
        Outcome::Breakpoints {
            deleted,
            gl,
            shader,
        } => breakpoints_text(deleted, gl, shader),
        Outcome::Program(p) => program_text(p),
        Outcome::GlState(st) => gl_state_text(st),
        Outcome::ShaderStop(stop) => shader_stop_text(stop),
        Outcome::Listing(l) => listing_text(l),
        Outcome::Print { reply, at, stage } => print_text(reply, *at, stage),
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
        } => {
            let mut s = format!(
                "Wrote {} ({width}x{height}, {ty}, {reached} {} reached{}).",
                file.display(),
                noun(stage),
                mapped_text(mapped, ty, *viridis, *width, *legend_width)
            );
            if !written_unknown.is_empty() {
                let _ = write!(
                    s,
                    "\n  note: gldbg cannot tell whether {} was written at this step; drawn as read",
                    written_unknown.join(", ")
                );
            }
            s
        }
        Outcome::Watches(list) if list.is_empty() => "No watched expressions.".into(),
        Outcome::Watches(list) => format!("Watching: {}", list.join("; ")),
        Outcome::Flow { info, chart } => flow_text(info, chart.as_deref()),
        Outcome::Help(topic) => help_text(topic.as_deref()),
        Outcome::Quit => String::new(),
    }
}

/// A watched expression's value after a shader stop (text).
pub fn watch_text(result: &Result<Outcome, Failure>) -> String {
    match result {
        Ok(_) => format!("watch: {}", result_text(result)),
        Err(e) => format!("watch: error: {e}"),
    }
}

/// A watched expression's value after a shader stop: a `watch` event with
/// the keys of a `print` result (`expr`, `type`, `value` or `summary`, ...).
pub fn watch_json(watch: &str, result: &Result<Outcome, Failure>) -> Value {
    let mut v = result_json(watch, result);
    if let Value::Object(o) = &mut v {
        o.remove("cmd");
        o.insert("event".into(), json!("watch"));
    }
    v
}

/// The JSON line of a command result: `cmd`, `ok`, `error` or the outcome's keys.
pub fn result_json(cmd: &str, result: &Result<Outcome, Failure>) -> Value {
    let mut o = Obj::new();
    o.insert("cmd".into(), json!(cmd));
    let outcome = match result {
        Ok(outcome) => {
            o.insert("ok".into(), json!(true));
            outcome
        }
        Err(msg) => {
            o.insert("ok".into(), json!(false));
            o.insert("error".into(), json!(msg));
            return Value::Object(o);
        }
    };
    match outcome {
        Outcome::State(reply) | Outcome::Detached(reply) => state_json(&mut o, reply),
        Outcome::Call(call) => {
            o.insert("function".into(), json!(call.function));
            o.insert("call".into(), json!(call.call));
            o.insert("thread".into(), json!(call.thread));
            if call.draw != 0 {
                o.insert("draw".into(), json!(call.draw));
            }
            if call.frame != 0 {
                o.insert("frame".into(), json!(call.frame));
            }
            o.insert("args".into(), args_json(call));
            if !call.returned.is_empty() {
                o.insert("returned".into(), json!(call.returned));
            }
            if !call.error.is_empty() {
                o.insert("gl_error".into(), json!(call.error));
            }
            o.insert("stopped".into(), call_brief_json(call));
        }
        Outcome::Breakpoint(b) => {
            o.insert("breakpoint".into(), breakpoint_json(b));
        }
        Outcome::ShaderBreak { line, lines } => {
            o.insert("line".into(), json!(line));
            o.insert("shader_breakpoints".into(), json!(lines));
        }
        Outcome::Breakpoints {
            deleted,
            gl,
            shader,
        } => {
            match deleted {
                Some(Deleted::AllGl | Deleted::AllShader) => {
                    o.insert("deleted".into(), json!("all"));
                }
                Some(Deleted::Gl(id)) => {
                    o.insert("deleted".into(), json!(id));
                }
                Some(Deleted::ShaderLine(l)) => {
                    o.insert("deleted".into(), json!(l));
                }
                None => {}
            }
            o.insert(
                "breakpoints".into(),
                Value::Array(gl.iter().map(breakpoint_json).collect()),
            );
            o.insert("shader_breakpoints".into(), json!(shader));
        }
        Outcome::GlState(st) => {
            let mut m = Obj::new();
            let mut errors = Obj::new();
            for v in &st.values {
                if v.error.is_empty() {
                    let values = v.values.iter().map(|&x| numbers::float_json(x, false));
                    m.insert(v.name.clone(), Value::Array(values.collect()));
                } else {
                    errors.insert(v.name.clone(), json!(v.error));
                }
            }
            o.insert("state".into(), Value::Object(m));
            if !errors.is_empty() {
                o.insert("state_errors".into(), Value::Object(errors));
            }
        }
        Outcome::Program(p) => {
            o.insert("program".into(), json!(p.program));
            o.insert(
                "shaders".into(),
                Value::Array(
                    p.shaders
                        .iter()
                        .map(|s| {
                            json!({"stage": s.stage, "id": s.id, "version": s.version,
                                   "source": s.source, "recorded": s.recorded})
                        })
                        .collect(),
                ),
            );
            o.insert("uniforms".into(), variables_json(&p.uniforms));
            o.insert("attributes".into(), variables_json(&p.attributes));
            o.insert("outputs".into(), outputs_json(&p.outputs));
            if !p.note.is_empty() {
                o.insert("note".into(), json!(p.note));
            }
        }
        Outcome::ShaderStop(stop) => shader_stop_json(&mut o, stop),
        Outcome::Listing(l) => {
            o.insert(
                "lines".into(),
                Value::Array(
                    l.lines
                        .iter()
                        .map(|l| {
                            json!({"line": l.line, "text": l.text, "current": l.current,
                                   "breakpoint": l.breakpoint})
                        })
                        .collect(),
                ),
            );
        }
        Outcome::Print { reply, at, .. } => print_json(&mut o, reply, *at),
        Outcome::Dump {
            file,
            width,
            height,
            ty,
            reached,
            mapped,
            viridis,
            legend_width,
            written_unknown,
            ..
        } => {
            o.insert("file".into(), json!(file.display().to_string()));
            if !written_unknown.is_empty() {
                o.insert("written_unknown".into(), json!(written_unknown));
            }
            o.insert("width".into(), json!(width));
            o.insert("height".into(), json!(height));
            o.insert("type".into(), json!(ty));
            o.insert("reached".into(), json!(reached));
            if !mapped.is_empty() {
                let single = scalar_of(ty) != Scalar::Double;
                let bound = |v: f64| numbers::float_json(v, single);
                o.insert(
                    "mapped".into(),
                    json!({
                        "min": mapped.iter().map(|r| bound(r.0)).collect::<Vec<_>>(),
                        "max": mapped.iter().map(|r| bound(r.1)).collect::<Vec<_>>(),
                    }),
                );
                let colormap = if *viridis { "viridis" } else { "channels" };
                o.insert("colormap".into(), json!(colormap));
                if *legend_width > 0 {
                    o.insert("legend_width".into(), json!(legend_width));
                }
            }
        }
        Outcome::Watches(list) => {
            o.insert("watches".into(), json!(list));
        }
        Outcome::Flow { info, chart } => flow_json(&mut o, info, chart.as_deref()),
        Outcome::Help(topic) => {
            o.insert(
                "commands".into(),
                Value::Array(
                    help_entries(topic.as_deref())
                        .into_iter()
                        .map(|(c, m)| json!({"command": c, "help": m}))
                        .collect(),
                ),
            );
        }
        Outcome::Quit => {}
    }
    Value::Object(o)
}

// ---------------------------------------------------------------- events

/// The text of an event worth showing between commands (`None`: not shown).
pub fn event_text(event: &pb::Event) -> Option<String> {
    use pb::event::Kind;
    match event.kind.as_ref()? {
        Kind::Crashed(c) => Some(crash_text(c)),
        Kind::Exited(e) => Some(exit_text(e)),
        Kind::Warning(w) => Some(format!("warning: {w}")),
        Kind::Output(o) => Some(o.text.trim_end_matches('\n').to_string()),
        Kind::Stopped(_) | Kind::Running(_) => None,
    }
}

/// The JSON line of an event worth showing (`None`: not shown).
pub fn event_json(event: &pb::Event) -> Option<Value> {
    use pb::event::Kind;
    let (name, fields) = match event.kind.as_ref()? {
        Kind::Crashed(c) => ("crashed", crash_json(c)),
        Kind::Exited(e) => ("exited", exit_json(e)),
        Kind::Warning(w) => {
            let mut o = Obj::new();
            o.insert("message".into(), json!(w));
            ("warning", o)
        }
        Kind::Output(out) => {
            let mut o = Obj::new();
            o.insert("stream".into(), json!(out.stream));
            o.insert("text".into(), json!(out.text));
            ("output", o)
        }
        Kind::Stopped(_) | Kind::Running(_) => return None,
    };
    let mut o = Obj::new();
    o.insert("event".into(), json!(name));
    o.insert("seq".into(), json!(event.seq));
    o.extend(fields);
    Some(Value::Object(o))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn arg(name: &str, ty: &str, value: &str) -> pb::Argument {
        pb::Argument {
            name: name.into(),
            r#type: ty.into(),
            raw: 0,
            value: value.into(),
            contents: String::new(),
        }
    }

    fn draw_call() -> pb::CallInfo {
        pb::CallInfo {
            function: "glDrawArrays".into(),
            function_id: 7,
            call: 12,
            thread: 1234,
            args: vec![
                arg("mode", "GLenum", "GL_TRIANGLES"),
                arg("first", "GLint", "0"),
                arg("count", "GLsizei", "6"),
            ],
            draw: 1,
            returned: String::new(),
            ..Default::default()
        }
    }

    #[test]
    fn gl_state_error_stops_and_pauses() {
        let st = pb::GlState {
            values: vec![
                pb::GlStateValue {
                    name: "GL_VIEWPORT".into(),
                    values: vec![0.0, 0.0, 64.0, 48.0],
                    error: String::new(),
                },
                pb::GlStateValue {
                    name: "GL_BLEND_SRC_RGB".into(),
                    values: vec![1.0],
                    error: String::new(),
                },
                pb::GlStateValue {
                    name: "GL_TEXTURE_2D".into(),
                    values: vec![],
                    error: "GL_INVALID_ENUM".into(),
                },
                pb::GlStateValue {
                    name: "GL_FOG_COLOR".into(),
                    values: vec![0.1f32 as f64, 1e-30f32 as f64, 0.1, f64::NAN],
                    error: String::new(),
                },
            ],
        };
        let v = j("info state", Ok(Outcome::GlState(st.clone())));
        assert_eq!(v["state"]["GL_VIEWPORT"], json!([0.0, 0.0, 64.0, 48.0]));
        assert_eq!(v["state_errors"]["GL_TEXTURE_2D"], "GL_INVALID_ENUM");
        let t = result_text(&Ok(Outcome::GlState(st)));
        assert!(t.contains("GL_VIEWPORT      = 0 0 64 48"), "{t}");
        assert!(t.contains("GL_BLEND_SRC_RGB = GL_ONE"), "{t}");
        assert!(t.contains("<GL_INVALID_ENUM>"), "{t}");
        // A float GL keeps reads as that float; a true double keeps its digits.
        assert!(t.contains("= 0.1 1e-30 0.1 NaN"), "{t}");
        let clear = &v["state"]["GL_FOG_COLOR"];
        assert_eq!(clear[3], "NaN", "{v}");

        let mut r = stopped();
        r.stop.as_mut().unwrap().error = "GL_INVALID_ENUM".into();
        let v = j("c", Ok(Outcome::State(r.clone())));
        assert_eq!(v["stopped"]["error"], "GL_INVALID_ENUM");
        assert!(result_text(&Ok(Outcome::State(r))).contains("raised GL_INVALID_ENUM"));

        let paused = pb::StateReply {
            state: pb::RunState::Stopped as i32,
            stop: Some(pb::CallInfo {
                paused: true,
                thread: 77,
                pc: 0x401000,
                pid: 77,
                ..Default::default()
            }),
            ..Default::default()
        };
        let v = j("pause", Ok(Outcome::State(paused.clone())));
        assert_eq!(v["stopped"]["paused"], true);
        assert_eq!(v["stopped"]["thread"], 77);
        assert_eq!(v["stopped"]["pc"], 0x401000);
        let t = result_text(&Ok(Outcome::State(paused)));
        assert!(
            t.contains("pause, outside GL: pc 0x401000 [thread 77]"),
            "{t}"
        );
    }

    fn stopped() -> pb::StateReply {
        pb::StateReply {
            state: pb::RunState::Stopped as i32,
            stop: Some(draw_call()),
            breakpoint_id: 2,
            ..Default::default()
        }
    }

    fn shader_stop() -> pb::ShaderStop {
        pb::ShaderStop {
            stage: "fragment".into(),
            step: 7,
            line: 14,
            column: 5,
            function: "shade".into(),
            text: "for (int i = 0; i < 4; ++i)".into(),
            kind: "loop-condition".into(),
            iterations: vec![],
            calls: vec!["main".into(), "shade".into()],
            reached: 4096,
            finished: false,
            breakpoint_line: 0,
            focus: None,
            focus_reached: false,
            timing: None,
        }
    }

    fn j(cmd: &str, r: Result<Outcome, Failure>) -> Value {
        result_json(cmd, &r)
    }

    #[test]
    fn error_line() {
        let v = j("frob", Err("unknown command `frob`".into()));
        assert_eq!(
            v,
            json!({"cmd": "frob", "ok": false, "error": "unknown command `frob`"})
        );
        assert_eq!(result_text(&Err("boom".into())), "Error: boom");
    }

    #[test]
    fn stopped_state() {
        let v = j("c", Ok(Outcome::State(stopped())));
        assert_eq!(
            v,
            json!({"cmd": "c", "ok": true, "state": "stopped",
                   "stopped": {"function": "glDrawArrays", "call": 12, "thread": 1234, "draw": 1},
                   "breakpoint": 2})
        );
        assert_eq!(
            result_text(&Ok(Outcome::State(stopped()))),
            "Stopped at #12 glDrawArrays(mode=GL_TRIANGLES, first=0, count=6) [thread 1234] (draw 1, breakpoint 2)"
        );
    }

    #[test]
    fn exited_and_crashed_state() {
        let exited = pb::StateReply {
            state: pb::RunState::Exited as i32,
            exit: Some(pb::Exit {
                code: Some(0),
                signal: None,
                description: String::new(),
            }),
            ..Default::default()
        };
        assert_eq!(
            j("continue", Ok(Outcome::State(exited.clone()))),
            json!({"cmd": "continue", "ok": true, "state": "exited", "exited": {"code": 0}})
        );
        assert_eq!(
            result_text(&Ok(Outcome::State(exited))),
            "Program exited with code 0."
        );

        let crash = pb::Crash {
            signal: 11,
            signal_name: "SIGSEGV".into(),
            fault_address: 0,
            thread: 1234,
            registers: Default::default(),
            call: Some(draw_call()),
            in_call: true,
            stopped_calls_seen: vec![draw_call()],
            pid: 1234,
        };
        let crashed = pb::StateReply {
            state: pb::RunState::Exited as i32,
            exit: Some(pb::Exit {
                code: None,
                signal: Some(11),
                description: String::new(),
            }),
            crash: Some(crash.clone()),
            ..Default::default()
        };
        let v = j("c", Ok(Outcome::State(crashed.clone())));
        assert_eq!(v["exited"], json!({"signal": 11}));
        assert_eq!(v["crashed"]["signal"], json!(11));
        assert_eq!(v["crashed"]["signal_name"], json!("SIGSEGV"));
        assert_eq!(v["crashed"]["fault_address"], json!(0));
        assert_eq!(v["crashed"]["in_call"], json!(true));
        assert_eq!(v["crashed"]["call"]["function"], json!("glDrawArrays"));
        assert_eq!(v["crashed"]["call"]["call"], json!(12));
        let t = result_text(&Ok(Outcome::State(crashed)));
        assert!(t.starts_with("Program crashed: SIGSEGV (signal 11) at address 0x0 [thread 1234]\n  in #12 glDrawArrays("));
        assert!(t.ends_with("Program terminated by signal 11."));

        let ev = pb::Event {
            seq: 9,
            kind: Some(pb::event::Kind::Crashed(crash)),
        };
        let e = event_json(&ev).unwrap();
        assert_eq!(e["event"], json!("crashed"));
        assert_eq!(e["seq"], json!(9));
        assert_eq!(e["signal_name"], json!("SIGSEGV"));
        assert_eq!(e["call"]["function"], json!("glDrawArrays"));
        assert_eq!(
            e["stopped_calls_seen"][0]["function"],
            json!("glDrawArrays")
        );
        assert!(crash_text(ev.kind.as_ref().map(|k| match k {
            pb::event::Kind::Crashed(c) => c,
            _ => unreachable!(),
        }).unwrap())
        .contains("last calls gldbg stopped at on that thread (not every call):\n    #12 glDrawArrays("));
    }

    #[test]
    fn events() {
        let exited = pb::Event {
            seq: 3,
            kind: Some(pb::event::Kind::Exited(pb::Exit {
                code: Some(2),
                signal: None,
                description: String::new(),
            })),
        };
        assert_eq!(
            event_json(&exited).unwrap(),
            json!({"event": "exited", "seq": 3, "code": 2})
        );
        assert_eq!(event_text(&exited).unwrap(), "Program exited with code 2.");
        let warning = pb::Event {
            seq: 4,
            kind: Some(pb::event::Kind::Warning("saved /tmp/x.frag".into())),
        };
        assert_eq!(
            event_json(&warning).unwrap(),
            json!({"event": "warning", "seq": 4, "message": "saved /tmp/x.frag"})
        );
        assert_eq!(event_text(&warning).unwrap(), "warning: saved /tmp/x.frag");
        let stopped = pb::Event {
            seq: 5,
            kind: Some(pb::event::Kind::Stopped(draw_call())),
        };
        assert!(event_json(&stopped).is_none());
        assert!(event_text(&stopped).is_none());
    }

    #[test]
    fn info_call() {
        let mut call = draw_call();
        call.args[0].contents = "void main() {}".into();
        let v = j("info call", Ok(Outcome::Call(call.clone())));
        assert_eq!(v["function"], json!("glDrawArrays"));
        assert_eq!(v["call"], json!(12));
        assert_eq!(v["thread"], json!(1234));
        assert_eq!(v["draw"], json!(1));
        assert_eq!(
            v["args"][0],
            json!({"name": "mode", "type": "GLenum", "value": "GL_TRIANGLES", "raw": 0, "contents": "void main() {}"})
        );
        assert_eq!(
            v["args"][1],
            json!({"name": "first", "type": "GLint", "value": "0", "raw": 0})
        );
        assert_eq!(v["stopped"]["function"], json!("glDrawArrays"));
        let t = result_text(&Ok(Outcome::Call(call)));
        assert!(t.starts_with(
            "#12 glDrawArrays(mode=GL_TRIANGLES, first=0, count=6) [thread 1234] (draw 1)\n"
        ));
        assert!(t.contains("\n  mode   GLenum   = GL_TRIANGLES"));
        assert!(t.contains("\n      | void main() {}"));
    }

    #[test]
    fn breakpoints() {
        let b = pb::Breakpoint {
            id: 1,
            description: "glDrawArrays".into(),
            hits: 0,
        };
        assert_eq!(
            j("break glDrawArrays", Ok(Outcome::Breakpoint(b.clone()))),
            json!({"cmd": "break glDrawArrays", "ok": true,
                   "breakpoint": {"id": 1, "description": "glDrawArrays", "hits": 0}})
        );
        assert_eq!(
            result_text(&Ok(Outcome::Breakpoint(b.clone()))),
            "Breakpoint 1: glDrawArrays"
        );
        let list = Outcome::Breakpoints {
            deleted: None,
            gl: vec![b],
            shader: vec![14],
        };
        assert_eq!(
            j("info breakpoints", Ok(list.clone())),
            json!({"cmd": "info breakpoints", "ok": true,
                   "breakpoints": [{"id": 1, "description": "glDrawArrays", "hits": 0}],
                   "shader_breakpoints": [14]})
        );
        assert_eq!(
            result_text(&Ok(list)),
            "Num  What          Hits\n1    glDrawArrays  0\nShader breakpoints at lines 14."
        );
        let del = Outcome::Breakpoints {
            deleted: Some(Deleted::Gl(1)),
            gl: vec![],
            shader: vec![],
        };
        assert_eq!(j("delete 1", Ok(del.clone()))["deleted"], json!(1));
        assert_eq!(result_text(&Ok(del)), "Deleted breakpoint 1.");
        let sb = Outcome::ShaderBreak {
            line: 14,
            lines: vec![14, 20],
        };
        assert_eq!(
            j("break 14", Ok(sb.clone())),
            json!({"cmd": "break 14", "ok": true, "line": 14, "shader_breakpoints": [14, 20]})
        );
        assert_eq!(
            result_text(&Ok(sb)),
            "Shader breakpoint at line 14 (all: lines 14, 20)."
        );
    }

    #[test]
    fn shader_stops() {
        let v = j("debug fragment", Ok(Outcome::ShaderStop(shader_stop())));
        assert_eq!(
            v,
            json!({"cmd": "debug fragment", "ok": true, "stage": "fragment", "line": 14, "column": 5,
                   "step": 7, "function": "shade", "text": "for (int i = 0; i < 4; ++i)",
                   "kind": "loop-condition", "reached": 4096, "finished": false, "iterations": [],
                   "calls": ["main", "shade"]})
        );
        assert_eq!(
            result_text(&Ok(Outcome::ShaderStop(shader_stop()))),
            "fragment shader: line 14:5 in shade(): for (int i = 0; i < 4; ++i)  [reached by 4096 fragments]"
        );
        let mut s = shader_stop();
        s.iterations = vec![2];
        s.breakpoint_line = 14;
        assert_eq!(
            result_text(&Ok(Outcome::ShaderStop(s.clone()))),
            "fragment shader: line 14:5 in shade(): for (int i = 0; i < 4; ++i)  \
             [reached by 4096 fragments, loop iteration 2, breakpoint at line 14]"
        );
        assert_eq!(
            j("c", Ok(Outcome::ShaderStop(s)))["breakpoint_line"],
            json!(14)
        );
        let done = pb::ShaderStop {
            stage: "fragment".into(),
            finished: true,
            reached: 10,
            ..Default::default()
        };
        assert_eq!(
            result_text(&Ok(Outcome::ShaderStop(done))),
            "fragment shader: finished (end of main)  [reached by 10 fragments]"
        );
    }

    #[test]
    fn prints_what_a_primitive_emitted() {
        let vertex = |emit, invocation, vertex, value: Option<f64>| pb::EmittedVertex {
            emit,
            invocation,
            vertex,
            reached: value.is_some(),
            value: value.into_iter().collect(),
        };
        let reply = pb::PrintReply {
            expr: "s".into(),
            r#type: "float".into(),
            reached: true,
            at: Some(crate::exec::invocation(At::Primitive(1))),
            emitted: vec![
                vertex(0, 0, 3, None),
                vertex(1, 0, 4, Some(2.5)),
                vertex(0, 1, 9, Some(1.0)),
            ],
            ..Default::default()
        };
        let out = Outcome::Print {
            reply,
            at: Some(At::Primitive(1)),
            stage: "geometry".into(),
        };
        assert_eq!(
            result_text(&Ok(out.clone())),
            "s @ primitive 1 (float): 3 vertices emitted\n  #0 [vertex 3]: not reached when emitted\n  \
             #1 [vertex 4]: 2.5\n  #0 (invocation 1) [vertex 9]: 1"
        );
        let v = j("print s @ primitive 1", Ok(out));
        assert_eq!(v["invocation"], json!({"primitive": 1}));
        assert_eq!(
            v["emitted"],
            json!([
                {"emit": 0, "invocation": 0, "vertex": 3, "reached": false},
                {"emit": 1, "invocation": 0, "vertex": 4, "reached": true, "value": [2.5]},
                {"emit": 0, "invocation": 1, "vertex": 9, "reached": true, "value": [1.0]},
            ])
        );
    }

    #[test]
    fn a_vertex_summary_shows_a_table() {
        let reply = pb::PrintReply {
            expr: "p".into(),
            r#type: "vec2".into(),
            reached: true,
            summary: Some(pb::Summary {
                count: 1,
                min: vec![1.0, 2.0],
                max: vec![1.0, 2.0],
                total: 2,
                ..Default::default()
            }),
            table: vec![
                pb::TableRow {
                    vertex: 0,
                    reached: true,
                    value: vec![1.0, 2.0],
                    ..Default::default()
                },
                pb::TableRow {
                    vertex: 1,
                    reached: false,
                    value: vec![],
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let out = Outcome::Print {
            reply,
            at: None,
            stage: "vertex".into(),
        };
        assert_eq!(
            result_text(&Ok(out.clone())),
            "p (vec2): 1 of 2 vertices reached; min (1, 2), max (1, 2); NaN 0, Inf 0\n  \
             first 2 of 2:\n  vertex 0: (1, 2)\n  vertex 1: not reached"
        );
        assert_eq!(
            j("print p", Ok(out))["table"],
            json!([{"vertex": 0, "reached": true, "value": [1.0, 2.0]},
                   {"vertex": 1, "reached": false}])
        );
    }

    #[test]
    fn values_in_parts_print_each_part_at_its_path_and_type() {
        let part = |path: &str, ty: &str, components| pb::ValuePart {
            path: path.into(),
            r#type: ty.into(),
            components,
        };
        let reply = pb::PrintReply {
            expr: "light".into(),
            r#type: "Light".into(),
            value: vec![0.5, 1.0, 0.0, 7.0, 1.0],
            reached: true,
            parts: vec![
                part(".color", "vec3", 3),
                part(".count", "int", 1),
                part(".on", "bool", 1),
            ],
            ..Default::default()
        };
        let out = Outcome::Print {
            reply,
            at: Some(At::Pixel { x: 1, y: 2 }),
            stage: "fragment".into(),
        };
        assert_eq!(
            result_text(&Ok(out.clone())),
            "light = {.color = (0.5, 1, 0), .count = 7, .on = true} (Light) @ 1,2"
        );
        let v = j("print light @ 1,2", Ok(out));
        assert_eq!(v["value"], json!([0.5, 1.0, 0.0, 7, 1]));
        assert_eq!(
            v["parts"],
            json!([{"path": ".color", "type": "vec3", "components": 3},
                   {"path": ".count", "type": "int", "components": 1},
                   {"path": ".on", "type": "bool", "components": 1}])
        );
    }

    #[test]
    fn unwritten_components_and_discarded_fragments_are_no_numbers() {
        let at = Some(At::Pixel { x: 3, y: 4 });
        let reply = pb::PrintReply {
            expr: "gl_FragColor".into(),
            r#type: "vec4".into(),
            value: vec![0.5, 0.25, 1.0, -8e-38],
            reached: true,
            at: Some(crate::exec::invocation(At::Pixel { x: 3, y: 4 })),
            undefined: vec![3],
            ..Default::default()
        };
        let out = |reply: pb::PrintReply| Outcome::Print {
            reply,
            at,
            stage: "fragment".into(),
        };
        assert_eq!(
            result_text(&Ok(out(reply.clone()))),
            "gl_FragColor = (0.5, 0.25, 1, undefined) (vec4) @ 3,4"
        );
        let v = j("print gl_FragColor @ 3,4", Ok(out(reply.clone())));
        assert_eq!(v["value"], json!([0.5, 0.25, 1.0, "undefined"]));
        assert_eq!(v["undefined_components"], json!([3]));
        let none = pb::PrintReply {
            undefined: vec![0, 1, 2, 3],
            ..reply.clone()
        };
        assert_eq!(
            result_text(&Ok(out(none.clone()))),
            "gl_FragColor @ 3,4: not yet written at this step (vec4)"
        );
        let v = j("print gl_FragColor @ 3,4", Ok(out(none)));
        assert_eq!(v["undefined"], json!(true), "{v}");
        assert!(v.get("value").is_none(), "{v}");
        // Where gldbg cannot tell: the value as read, with the note.
        let unknown = pb::PrintReply {
            undefined: vec![],
            written_unknown: vec!["gl_FragColor".into()],
            ..reply.clone()
        };
        assert_eq!(
            result_text(&Ok(out(unknown.clone()))),
            "gl_FragColor = (0.5, 0.25, 1, -8e-38) (vec4) @ 3,4\n  note: gldbg cannot tell \
             whether gl_FragColor was written at this step; shown as read"
        );
        let v = j("print gl_FragColor @ 3,4", Ok(out(unknown)));
        assert_eq!(v["written_unknown"], json!(["gl_FragColor"]), "{v}");
        assert!(v.get("undefined").is_none(), "{v}");
        let discarded = pb::PrintReply {
            reached: false,
            discarded: true,
            value: vec![],
            undefined: vec![],
            ..reply.clone()
        };
        assert_eq!(
            result_text(&Ok(out(discarded.clone()))),
            "gl_FragColor @ 3,4: discarded before the end of main"
        );
        assert_eq!(
            j("print gl_FragColor @ 3,4", Ok(out(discarded)))["discarded"],
            json!(true)
        );
        let sum = pb::PrintReply {
            at: None,
            value: vec![],
            undefined: vec![],
            summary: Some(pb::Summary {
                count: 10,
                min: vec![0.0; 4],
                max: vec![1.0; 4],
                total: 12,
                discarded: 2,
                undefined: 4,
                ..Default::default()
            }),
            ..reply
        };
        let out = Outcome::Print {
            reply: sum,
            at: None,
            stage: "fragment".into(),
        };
        assert_eq!(
            result_text(&Ok(out.clone())),
            "gl_FragColor (vec4): 10 of 12 fragments reached, 2 discarded; 4 not yet written at \
             this step (left out of min/max); min (0, 0, 0, 0), max (1, 1, 1, 1); NaN 0, Inf 0"
        );
        let v = j("print gl_FragColor", Ok(out));
        assert_eq!(v["summary"]["discarded"], json!(2));
        assert_eq!(v["summary"]["undefined"], json!(4));
    }

    #[test]
    fn prints() {
        let one = pb::PrintReply {
            expr: "v".into(),
            r#type: "float".into(),
            value: vec![31.5],
            reached: true,
            at: Some(crate::exec::invocation(At::Pixel { x: 10, y: 5 })),
            summary: None,
            timing: None,
            emitted: Vec::new(),
            table: Vec::new(),
            parts: Vec::new(),
            ..Default::default()
        };
        let out = Outcome::Print {
            reply: one.clone(),
            at: Some(At::Pixel { x: 10, y: 5 }),
            stage: "fragment".into(),
        };
        assert_eq!(
            j("print v @ 10,5", Ok(out.clone())),
            json!({"cmd": "print v @ 10,5", "ok": true, "expr": "v", "type": "float",
                   "invocation": {"x": 10, "y": 5}, "reached": true, "value": [31.5]})
        );
        assert_eq!(result_text(&Ok(out)), "v = 31.5 (float) @ 10,5");

        // f32 values print in their shortest form; NaN is a string in JSON.
        let vec = pb::PrintReply {
            expr: "c".into(),
            r#type: "vec3".into(),
            value: vec![0.1f32 as f64, 1.0, f64::NAN],
            reached: true,
            at: None,
            summary: None,
            timing: None,
            emitted: Vec::new(),
            table: Vec::new(),
            parts: Vec::new(),
            ..Default::default()
        };
        let out = Outcome::Print {
            reply: vec,
            at: Some(At::Vertex(2)),
            stage: "vertex".into(),
        };
        let v = j("p c @ vertex 2", Ok(out.clone()));
        assert_eq!(v["value"], json!([0.1, 1.0, "NaN"]));
        assert_eq!(v["invocation"], json!({"vertex": 2}));
        assert_eq!(result_text(&Ok(out)), "c = (0.1, 1, NaN) (vec3) @ vertex 2");

        let ints = pb::PrintReply {
            expr: "i".into(),
            r#type: "int".into(),
            value: vec![3.0],
            reached: true,
            ..Default::default()
        };
        let out = Outcome::Print {
            reply: ints,
            at: Some(At::Invocation { x: 1, y: 2, z: 3 }),
            stage: "compute".into(),
        };
        assert_eq!(
            j("p i @ invocation 1,2,3", Ok(out.clone()))["value"],
            json!([3])
        );
        assert_eq!(
            j("p i @ invocation 1,2,3", Ok(out.clone()))["invocation"],
            json!({"x": 1, "y": 2, "z": 3})
        );
        assert_eq!(result_text(&Ok(out)), "i = 3 (int) @ invocation 1,2,3");

        let missed = pb::PrintReply {
            expr: "v".into(),
            r#type: "float".into(),
            reached: false,
            ..Default::default()
        };
        let out = Outcome::Print {
            reply: missed,
            at: Some(At::Pixel { x: 0, y: 0 }),
            stage: "fragment".into(),
        };
        assert_eq!(
            j("print v @ 0,0", Ok(out.clone())),
            json!({"cmd": "print v @ 0,0", "ok": true, "expr": "v", "type": "float",
                   "invocation": {"x": 0, "y": 0}, "reached": false})
        );
        assert_eq!(result_text(&Ok(out)), "v @ 0,0: not reached at this step");

        let sum = pb::PrintReply {
            expr: "v".into(),
            r#type: "vec2".into(),
            summary: Some(pb::Summary {
                count: 4096,
                min: vec![0.0, 0.5],
                max: vec![1.0, 31.5],
                nan: 0,
                inf: 1,
                total: 5000,
                ..Default::default()
            }),
            ..Default::default()
        };
        let out = Outcome::Print {
            reply: sum,
            at: None,
            stage: "fragment".into(),
        };
        assert_eq!(
            j("print v", Ok(out.clone())),
            json!({"cmd": "print v", "ok": true, "expr": "v", "type": "vec2",
                   "summary": {"count": 4096, "min": [0.0, 0.5], "max": [1.0, 31.5], "nan": 0, "inf": 1, "total": 5000}})
        );
        assert_eq!(
            result_text(&Ok(out)),
            "v (vec2): 4096 of 5000 fragments reached; min (0, 0.5), max (1, 31.5); NaN 0, Inf 1"
        );

        // Nothing written yet anywhere: no min or max, in JSON as in text.
        let none = pb::PrintReply {
            expr: "y".into(),
            r#type: "float".into(),
            summary: Some(pb::Summary {
                count: 10,
                min: vec![f64::NAN],
                max: vec![f64::NAN],
                total: 10,
                undefined: 10,
                ..Default::default()
            }),
            ..Default::default()
        };
        let out = Outcome::Print {
            reply: none,
            at: None,
            stage: "fragment".into(),
        };
        assert_eq!(
            j("print y", Ok(out)),
            json!({"cmd": "print y", "ok": true, "expr": "y", "type": "float",
                   "summary": {"count": 10, "nan": 0, "inf": 0, "total": 10, "undefined": 10}})
        );
    }

    #[test]
    fn program_listing_dump() {
        let p = pb::ProgramInfo {
            program: 3,
            shaders: vec![pb::ShaderInfo {
                stage: "fragment".into(),
                id: 2,
                version: "330 core".into(),
                source: "void main(){}".into(),
                recorded: true,
            }],
            uniforms: vec![pb::Variable {
                name: "t".into(),
                r#type: "float".into(),
                size: 1,
                location: 0,
                value: "1.5".into(),
                ..Default::default()
            }],
            attributes: vec![pb::Variable {
                name: "pos".into(),
                r#type: "vec2".into(),
                size: 1,
                location: 0,
                value: String::new(),
                ..Default::default()
            }],
            outputs: vec![],
            ..Default::default()
        };
        let v = j("info program", Ok(Outcome::Program(p.clone())));
        assert_eq!(v["program"], json!(3));
        assert_eq!(
            v["shaders"],
            json!([{"stage": "fragment", "id": 2, "version": "330 core", "source": "void main(){}", "recorded": true}])
        );
        assert_eq!(
            v["uniforms"],
            json!([{"name": "t", "type": "float", "size": 1, "location": 0, "value": "1.5"}])
        );
        assert_eq!(v["attributes"][0]["name"], json!("pos"));
        assert_eq!(v["outputs"], json!([]));
        assert_eq!(
            result_text(&Ok(Outcome::Program(p))),
            "Program 3\n  fragment shader 2, #version 330 core\nUniforms:\n  float t (location 0) = 1.5\nAttributes:\n  vec2 pos (location 0)"
        );

        let listing = pb::SourceListing {
            lines: vec![
                pb::SourceLine {
                    line: 13,
                    text: "float acc = 0.0;".into(),
                    current: false,
                    breakpoint: false,
                },
                pb::SourceLine {
                    line: 14,
                    text: "for (;;)".into(),
                    current: true,
                    breakpoint: true,
                },
            ],
        };
        assert_eq!(
            result_text(&Ok(Outcome::Listing(listing.clone()))),
            "     13  float acc = 0.0;\n=*   14  for (;;)"
        );
        assert_eq!(
            j("list", Ok(Outcome::Listing(listing)))["lines"][1],
            json!({"line": 14, "text": "for (;;)", "current": true, "breakpoint": true})
        );

        let dump = Outcome::Dump {
            file: PathBuf::from("x.png"),
            width: 64,
            height: 32,
            ty: "float".into(),
            reached: 100,
            stage: "fragment".into(),
            mapped: vec![(0.0, 1.5e-30)],
            viridis: false,
            legend_width: 0,
            written_unknown: Vec::new(),
        };
        assert_eq!(
            j("dump v x.png", Ok(dump.clone())),
            json!({"cmd": "dump v x.png", "ok": true, "file": "x.png", "width": 64, "height": 32,
                   "type": "float", "reached": 100, "mapped": {"min": [0.0], "max": [1.5e-30]},
                   "colormap": "channels"})
        );
        assert_eq!(
            result_text(&Ok(dump)),
            "Wrote x.png (64x32, float, 100 fragments reached; mapped 0..1.5e-30)."
        );
        let viridis = Outcome::Dump {
            file: PathBuf::from("x.png"),
            width: 64,
            height: 32,
            ty: "float".into(),
            reached: 100,
            stage: "fragment".into(),
            mapped: vec![(0.0, 1.0)],
            viridis: true,
            legend_width: 12,
            written_unknown: Vec::new(),
        };
        assert_eq!(
            j("dump v x.png colormap=viridis", Ok(viridis.clone()))["legend_width"],
            12
        );
        assert_eq!(
            result_text(&Ok(viridis)),
            "Wrote x.png (64x32, float, 100 fragments reached; viridis over 0..1, legend at x \
             64..75 (top max, bottom min))."
        );
        let channels = Outcome::Dump {
            file: PathBuf::from("c.png"),
            width: 4,
            height: 4,
            ty: "vec3".into(),
            reached: 0,
            stage: "fragment".into(),
            mapped: vec![(f64::NAN, f64::NAN), (-2.0, 3.0), (0.0, 0.0)],
            viridis: false,
            legend_width: 0,
            written_unknown: Vec::new(),
        };
        assert_eq!(
            j("dump c c.png", Ok(channels.clone()))["mapped"],
            json!({"min": ["NaN", -2.0, 0.0], "max": ["NaN", 3.0, 0.0]})
        );
        assert_eq!(
            result_text(&Ok(channels)),
            "Wrote c.png (4x4, vec3, 0 fragments reached; mapped r no finite value, g -2..3, b 0..0)."
        );
    }

    #[test]
    fn flow_and_focus_render() {
        let info = pb::FlowInfo {
            kind: "loop".into(),
            line: 25,
            condition: "n < idx % 5u".into(),
            reached: 512,
            sides: vec![],
            iterations: vec![
                pb::FlowIteration {
                    iteration: 0,
                    evaluated: 512,
                    entered: 410,
                },
                pb::FlowIteration {
                    iteration: 1,
                    evaluated: 410,
                    entered: 0,
                },
            ],
            chart_png: vec![],
        };
        let out = Ok(Outcome::Flow { info, chart: None });
        assert_eq!(
            result_text(&out),
            "loop at line 25: n < idx % 5u  [512 invocations]\n  iteration  evaluated  stay in\n          0        512      410\n          1        410        0"
        );
        let v = j("info flow", out);
        assert_eq!(v["iterations"][0]["entered"], 410);
        assert!(v.get("sides").is_none());

        let mut s = shader_stop();
        s.focus = Some(crate::exec::invocation(At::Pixel { x: 3, y: 4 }));
        s.focus_reached = false;
        assert!(
            result_text(&Ok(Outcome::ShaderStop(s.clone()))).ends_with("focus 3,4 (not here)]"),
            "{}",
            result_text(&Ok(Outcome::ShaderStop(s.clone())))
        );
        let v = j("step", Ok(Outcome::ShaderStop(s)));
        assert_eq!(v["focus"], json!({"x": 3, "y": 4}));
        assert_eq!(v["focus_reached"], false);
    }
}
