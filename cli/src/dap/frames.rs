//! Threads, the stack, scopes and variables.
//!
//! The stack of a shader stop is the focused invocation's shader call
//! stack (`backtrace`, innermost first) above one frame for the GL call the
//! app is stopped in (`glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) draw 2, frame
//! 1`). A shader frame's scopes are its locals and arguments (`frame N`,
//! `info locals`, `info args`: from the trace) and the program's uniforms
//! (printed at the focused invocation); the GL frame's scope is the call's
//! arguments. Variable references live until the app or the shader moves:
//! a reference from before is refused as stale, never answered with
//! another stop's values.

use gldbg_proto::pb;
use serde_json::{Value, json};

use super::adapter::{Adapter, Reply};
use super::args::req_i64;
use super::model::{Refs, Scope, Var};
use crate::command::Command;
use crate::exec::{self, Outcome};
use crate::render;

/// The GL call's frame id; shader frame N is `SHADER_FRAME + N`.
pub const GL_FRAME: i64 = 1;
pub const SHADER_FRAME: i64 = 1000;

/// The GL frame's name: `glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) draw 2, frame 1`.
pub fn call_name(call: &pb::CallInfo) -> String {
    if call.paused {
        return format!("paused outside GL (pc {:#x})", call.pc);
    }
    let args: Vec<&str> = call.args.iter().map(|a| a.value.as_str()).collect();
    let mut s = format!("{}({})", call.function, args.join(", "));
    if call.draw != 0 {
        s.push_str(&format!(" draw {}", call.draw));
    }
    if call.frame != 0 {
        s.push_str(&format!(
            "{} frame {}",
            if call.draw != 0 { "," } else { "" },
            call.frame
        ));
    }
    s
}

/// The crashing thread's GL frame: the call in flight, else the last one it
/// entered (its arguments unknown: `…`), else the last one gldbg saw.
pub fn crash_frame_name(crash: &pb::Crash) -> String {
    match (&crash.call, &crash.entered) {
        (Some(c), _) if crash.in_call => call_name(c),
        (_, Some(e)) => {
            // Its arguments are not known, and whether it had returned: the
            // frame is the crash's (it may have entered the call earlier).
            let mut s = format!("{}(…) entered", e.function);
            if e.frame != 0 {
                s.push_str(&format!(", crashed in frame {}", e.frame));
            }
            s
        }
        (Some(c), None) => format!("after {}", call_name(c)),
        (None, None) => "the crashing thread".into(),
    }
}

/// A shader frame's source: the user's file where the shader maps to one,
/// else the recorded source by reference.
fn frame_source(
    loc: Option<&pb::SourceLocation>,
    line: u32,
    stop: &pb::ShaderStop,
) -> (Value, u32) {
    if let Some(loc) = loc.filter(|l| !l.file.is_empty()) {
        let name = std::path::Path::new(&loc.file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| loc.file.clone());
        return (json!({"name": name, "path": loc.file}), loc.line);
    }
    if stop.shader != 0 {
        let name = super::sources::shader_name(stop.shader, &stop.stage);
        return (
            json!({"name": name, "sourceReference": stop.shader, "presentationHint": "deemphasize"}),
            line,
        );
    }
    (Value::Null, line)
}

fn shader_frame(
    level: u32,
    function: &str,
    line: u32,
    column: u32,
    loc: Option<&pb::SourceLocation>,
    stop: &pb::ShaderStop,
) -> Value {
    let (source, line) = frame_source(loc, line, stop);
    let mut f = json!({
        "id": SHADER_FRAME + i64::from(level),
        "name": if function.is_empty() { "main" } else { function },
        "line": line,
        "column": column.max(1),
    });
    if !source.is_null() {
        f["source"] = source;
    }
    f
}

/// A local as a DAP variable, its parts as children.
fn variable(refs: &mut Refs, l: &pb::LocalValue) -> Value {
    let children = if children_of(l).is_empty() {
        0
    } else {
        refs.add(Var::Children(l.clone()))
    };
    let mut value = render::local_text(l);
    if l.written_unknown {
        value.push_str(" (written through a dynamic index: parts may not be written yet)");
    }
    json!({
        "name": l.name,
        "value": value,
        "type": l.r#type,
        "evaluateName": l.name,
        "variablesReference": children,
    })
}

/// A traced value's parts (matrix columns, array elements, struct fields)
/// or a vector's components, each a value of its own.
fn children_of(l: &pb::LocalValue) -> Vec<pb::LocalValue> {
    if l.summary.is_some() || l.value.len() < 2 {
        return Vec::new();
    }
    let part = |name: String, ty: String, start: usize, n: usize| pb::LocalValue {
        name,
        r#type: ty,
        value: l.value.get(start..start + n).unwrap_or_default().to_vec(),
        undefined: l
            .undefined
            .iter()
            .filter(|&&u| (u as usize) >= start && (u as usize) < start + n)
            .map(|&u| u - start as u32)
            .collect(),
        written_unknown: l.written_unknown,
        ..Default::default()
    };
    if !l.parts.is_empty() {
        let mut start = 0;
        return l
            .parts
            .iter()
            .map(|p| {
                let n = p.components as usize;
                let c = part(format!("{}{}", l.name, p.path), p.r#type.clone(), start, n);
                start += n;
                c
            })
            .collect();
    }
    let scalar = match l.r#type.chars().next() {
        Some('i') => "int",
        Some('u') => "uint",
        Some('b') => "bool",
        Some('d') => "double",
        _ => "float",
    };
    // Exactly `vecN` (any scalar prefix) with N components: an array or
    // struct without parts has no component names.
    let n = l
        .r#type
        .strip_prefix(['i', 'u', 'b', 'd'])
        .unwrap_or(&l.r#type)
        .strip_prefix("vec")
        .and_then(|n| n.parse::<usize>().ok());
    if n != Some(l.value.len()) || l.value.len() > 4 {
        return Vec::new();
    }
    (0..l.value.len())
        .map(|i| {
            part(
                format!("{}.{}", l.name, ["x", "y", "z", "w"][i]),
                scalar.into(),
                i,
                1,
            )
        })
        .collect()
}

impl Adapter {
    /// Make shader frame `level` the daemon's selected frame: a request
    /// names its frame, and the daemon's selection (the console's `frame
    /// N` changes it) must not decide whose locals are shown. Frame 0 of a
    /// stage without a trace has nothing to select: that is no error.
    pub async fn select_frame(&mut self, level: u32) -> Result<(), String> {
        match self.exec_line(&format!("frame {level}")).await {
            Err(e) if level != 0 => Err(e),
            _ => Ok(()),
        }
    }

    /// A value as a variable, with its parts as children.
    pub fn value_variable(&mut self, l: &pb::LocalValue) -> Value {
        variable(&mut self.refs, l)
    }

    pub fn threads_body(&self) -> Value {
        let mut ids: Vec<u32> = self.threads.iter().copied().collect();
        if ids.is_empty() {
            return json!({"threads": [{"id": self.thread_id(), "name": "app"}]});
        }
        ids.sort_unstable();
        let threads: Vec<Value> = ids
            .iter()
            .map(|t| json!({"id": t, "name": format!("GL thread {t}")}))
            .collect();
        json!({"threads": threads})
    }

    /// Where the app stands, from the daemon.
    async fn state(&mut self) -> Result<pb::StateReply, String> {
        let session = self.stopped_session()?;
        match session.get_state().await? {
            Outcome::State(r) => Ok(r),
            _ => Err("no state".into()),
        }
    }

    pub async fn stack_trace(&mut self, args: &Value) -> Reply {
        if let Some(crash) = &self.crash {
            // The app died of it: its crashing thread's call is all there is.
            let frame = json!({
                "id": GL_FRAME, "name": crash_frame_name(crash), "line": 0, "column": 0,
                "presentationHint": "label",
            });
            self.refs.frames = vec![GL_FRAME];
            return Ok(json!({"stackFrames": [frame], "totalFrames": 1}));
        }
        let state = self.state().await?;
        let mut frames = Vec::new();
        if let Some(stop) = &state.shader {
            if let Ok(Outcome::Frames(cs)) = self.exec_line("backtrace").await {
                for f in &cs.frames {
                    frames.push(shader_frame(
                        f.level,
                        &f.function,
                        f.line,
                        f.column,
                        f.source.as_ref(),
                        stop,
                    ));
                }
            }
            if frames.is_empty() && !stop.finished {
                frames.push(shader_frame(
                    0,
                    &stop.function,
                    stop.line,
                    stop.column,
                    stop.source.as_ref(),
                    stop,
                ));
            }
        }
        if let Some(call) = &state.stop {
            frames.push(json!({
                "id": GL_FRAME, "name": call_name(call), "line": 0, "column": 0,
                "presentationHint": "label",
            }));
        }
        self.refs.frames = frames.iter().filter_map(|f| f["id"].as_i64()).collect();
        let total = frames.len();
        let start = args.get("startFrame").and_then(Value::as_u64).unwrap_or(0) as usize;
        let levels = match args.get("levels").and_then(Value::as_u64).unwrap_or(0) as usize {
            0 => total,
            n => n,
        };
        let page: Vec<Value> = frames.into_iter().skip(start).take(levels).collect();
        Ok(json!({"stackFrames": page, "totalFrames": total}))
    }

    pub fn scopes(&mut self, args: &Value) -> Reply {
        let frame = req_i64(args, "frameId")?;
        if self.crash.is_some() && self.refs.frames.contains(&frame) {
            // The crashed app has no state left to read.
            return Ok(json!({"scopes": []}));
        }
        self.stopped_session()?;
        if !self.refs.frames.contains(&frame) {
            return Err(format!(
                "no frame {frame} at this stop (ask stackTrace again)"
            ));
        }
        let scopes: Vec<(&str, Scope, u32)> = if frame == GL_FRAME {
            vec![("Call", Scope::Call, 0)]
        } else if let Some(level) = frame
            .checked_sub(SHADER_FRAME)
            .and_then(|l| u32::try_from(l).ok())
        {
            vec![
                ("Locals", Scope::Locals, level),
                ("Arguments", Scope::Args, level),
                ("Uniforms", Scope::Uniforms, level),
            ]
        } else {
            return Err(format!(
                "no frame {frame} at this stop (ask stackTrace again)"
            ));
        };
        let scopes: Vec<Value> = scopes
            .into_iter()
            .map(|(name, kind, level)| {
                let r = self.refs.add(Var::Scope(kind, level));
                json!({"name": name, "variablesReference": r, "expensive": kind == Scope::Uniforms,
                       "presentationHint": match kind { Scope::Locals => "locals", Scope::Args => "arguments", _ => "registers" }})
            })
            .collect();
        Ok(json!({"scopes": scopes}))
    }

    pub async fn variables(&mut self, args: &Value) -> Reply {
        self.stopped_session()?;
        let r = req_i64(args, "variablesReference")?;
        let Some(var) = self.refs.vars.get(&r).cloned() else {
            return Err(format!(
                "variables reference {r} is stale or unknown: the app or the shader moved since (ask stackTrace again)"
            ));
        };
        let vars = match var {
            Var::Children(l) => children_of(&l)
                .iter()
                .map(|c| variable(&mut self.refs, c))
                .collect(),
            Var::Scope(Scope::Locals, level) => self.frame_locals(level, false).await?,
            Var::Scope(Scope::Args, level) => self.frame_locals(level, true).await?,
            Var::Scope(Scope::Uniforms, _) => self.uniforms().await?,
            Var::Scope(Scope::Call, _) => self.call_args().await?,
        };
        Ok(json!({"variables": vars}))
    }

    async fn frame_locals(&mut self, level: u32, args: bool) -> Result<Vec<Value>, String> {
        self.select_frame(level).await?;
        let result = self
            .exec_line(if args { "info args" } else { "info locals" })
            .await;
        match result? {
            Outcome::Locals { reply, .. } => Ok(reply
                .locals
                .iter()
                .map(|l| variable(&mut self.refs, l))
                .collect()),
            _ => Err("no locals".into()),
        }
    }

    async fn uniforms(&mut self) -> Result<Vec<Value>, String> {
        let state = self.state().await?;
        let at = exec::invocation_at(state.shader.as_ref().and_then(|s| s.focus.as_ref()));
        let Outcome::Program(program) = self.exec_line("info program").await? else {
            return Err("no program".into());
        };
        let mut out = Vec::new();
        for u in &program.uniforms {
            if u.r#type.contains("sampler")
                || u.r#type.contains("image")
                || u.r#type.contains("atomic")
            {
                out.push(json!({"name": u.name, "value": format!("({} : opaque)", u.r#type), "type": u.r#type, "variablesReference": 0}));
                continue;
            }
            let session = self.stopped_session()?;
            let printed = session
                .execute(&Command::Print {
                    expr: u.name.clone(),
                    at,
                })
                .await;
            let value = match printed {
                Ok(Outcome::Print { reply, .. }) if at.is_some() && reply.reached => {
                    render::value_text(&reply.r#type, &reply.parts, &reply.value, &reply.undefined)
                }
                Ok(Outcome::Print { reply, .. }) => match reply.summary {
                    Some(s) if s.min == s.max && !s.min.is_empty() => {
                        render::value_text(&reply.r#type, &reply.parts, &s.min, &[])
                    }
                    _ => "(not one value: focus an invocation)".into(),
                },
                Ok(_) => "(no value)".into(),
                // A uniform of another stage.
                Err(e) if e.contains("undeclared identifier") => continue,
                Err(e) => format!("(cannot read: {e})"),
            };
            out.push(json!({"name": u.name, "value": value, "type": u.r#type, "evaluateName": u.name, "variablesReference": 0}));
        }
        Ok(out)
    }

    async fn call_args(&mut self) -> Result<Vec<Value>, String> {
        let Outcome::Call(call) = self.exec_line("info call").await? else {
            return Err("no call".into());
        };
        Ok(call
            .args
            .iter()
            .map(|a| {
                let value = if a.contents.is_empty() {
                    a.value.clone()
                } else {
                    format!("{} → {}", a.value, a.contents)
                };
                json!({"name": a.name, "value": value, "type": a.r#type, "variablesReference": 0})
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(name: &str, ty: &str, value: &[f64], undefined: &[u32]) -> pb::LocalValue {
        pb::LocalValue {
            name: name.into(),
            r#type: ty.into(),
            value: value.to_vec(),
            undefined: undefined.to_vec(),
            ..Default::default()
        }
    }

    #[test]
    fn vector_components_keep_their_undefined_marks() {
        let c = children_of(&local("p", "vec3", &[1.0, 2.0, 0.0], &[2]));
        assert_eq!(c.len(), 3);
        assert_eq!(
            (c[1].name.as_str(), c[1].value.as_slice()),
            ("p.y", &[2.0][..])
        );
        assert_eq!(c[2].undefined, vec![0], "z is not written yet");
        assert!(c[0].undefined.is_empty());
        assert_eq!(c[0].r#type, "float");
        assert!(children_of(&local("k", "float", &[1.0], &[])).is_empty());
        assert_eq!(
            children_of(&local("n", "ivec2", &[1.0, 2.0], &[]))[0].r#type,
            "int"
        );
    }

    #[test]
    fn parts_are_children() {
        let mut m = local("w", "float[3]", &[1.0, 2.0, 3.0], &[]);
        m.parts = (0..3)
            .map(|i| pb::ValuePart {
                path: format!("[{i}]"),
                r#type: "float".into(),
                components: 1,
            })
            .collect();
        let c = children_of(&m);
        assert_eq!(
            c.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["w[0]", "w[1]", "w[2]"]
        );
        assert_eq!(c[2].value, vec![3.0]);
    }

    #[test]
    fn gl_frame_names() {
        let call = pb::CallInfo {
            function: "glDrawArrays".into(),
            args: ["GL_TRIANGLE_STRIP", "0", "4"]
                .iter()
                .map(|v| pb::Argument {
                    value: v.to_string(),
                    ..Default::default()
                })
                .collect(),
            draw: 2,
            frame: 1,
            ..Default::default()
        };
        assert_eq!(
            call_name(&call),
            "glDrawArrays(GL_TRIANGLE_STRIP, 0, 4) draw 2, frame 1"
        );
    }
}
