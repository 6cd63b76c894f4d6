//! Breakpoints: source breakpoints in shader files (`break FILE:LINE`, with
//! a condition, a hit count or a log message: the daemon's pending source
//! breakpoints and log points), function breakpoints (the GL-level
//! targets: `glDrawArrays`, `draw`, `draw N`, `frame`, `shader-switch`,
//! `error`), and `breakpoint` events when a source breakpoint becomes
//! verified (the app made a shader with that file).

use std::collections::BTreeMap;

use gldbg_proto::pb;
use serde_json::{Value, json};

use super::adapter::{Adapter, NOT_LAUNCHED, Reply};
use super::args::{opt_str, req_i64};
use super::model::SourceBp;

/// DAP's hit condition as the executions to skip: "N" and ">=N" stop at the
/// N-th execution and the later ones, ">N" after it (gdb's `ignore`).
/// "==N" (the N-th only) is refused: a breakpoint goes on stopping.
pub fn ignore_count(hit: &str) -> Result<u64, String> {
    let h = hit.trim();
    let (rest, extra) = if let Some(r) = h.strip_prefix(">=") {
        (r, 0)
    } else if let Some(r) = h.strip_prefix('>') {
        (r, 1)
    } else {
        (h, 0)
    };
    match rest.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n - 1 + extra),
        _ => Err(format!(
            "hit condition {} is not N, >= N or > N with N >= 1 (the N-th execution and later ones)",
            super::wire::clip(hit)
        )),
    }
}

/// The `sourceMap` files, read (an unreadable one is an error naming it).
pub fn mapped_files(map: &[(String, String)]) -> Result<Vec<pb::SourceFile>, String> {
    map.iter()
        .map(|(shader, path)| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("sourceMap: cannot read {path}: {e}"))?;
            Ok(pb::SourceFile {
                path: path.clone(),
                text,
                shader: shader.clone(),
            })
        })
        .collect()
}

/// A function breakpoint's name as a GL-level breakpoint.
pub fn function_spec(name: &str) -> Result<pb::BreakpointSpec, String> {
    use pb::breakpoint_spec::Kind;
    let name = name.trim();
    let words: Vec<&str> = name.split_whitespace().collect();
    let kind = match words.as_slice() {
        ["draw"] => Kind::Draw(pb::Empty {}),
        ["draw", n] => match n.parse::<u64>() {
            Ok(n) if n >= 1 => Kind::DrawNumber(n),
            _ => {
                return Err(format!(
                    "draw {}: draw numbers count from 1",
                    super::wire::clip(n)
                ));
            }
        },
        ["frame"] => Kind::Frame(pb::Empty {}),
        ["shader-switch"] => Kind::ShaderSwitch(pb::Empty {}),
        ["error"] => Kind::GlError(pb::Empty {}),
        [f] => Kind::Function(f.to_string()),
        _ => {
            return Err(format!(
                "{}: expected a GL function, draw, draw N, frame, shader-switch or error",
                super::wire::clip(name)
            ));
        }
    };
    Ok(pb::BreakpointSpec { kind: Some(kind) })
}

/// A DAP log message (`text {expr} text`) is the daemon's log format as it is.
fn source_spec(file: &str, text: &str, bp: &Value) -> Result<pb::SourceBreakpoint, String> {
    let line = req_i64(bp, "line")?;
    let line = u32::try_from(line)
        .ok()
        .filter(|l| *l >= 1)
        .ok_or_else(|| format!("line {line} is out of range"))?;
    let ignore = match opt_str(bp, "hitCondition")? {
        Some(h) if !h.trim().is_empty() => ignore_count(h)?,
        _ => 0,
    };
    Ok(pb::SourceBreakpoint {
        file: file.to_string(),
        text: text.to_string(),
        line,
        condition: opt_str(bp, "condition")?.unwrap_or("").trim().to_string(),
        ignore,
        log_format: opt_str(bp, "logMessage")?.unwrap_or("").to_string(),
        ..Default::default()
    })
}

fn bp_json(id: u32, line: i64, verified: bool, message: &str, path: &str) -> Value {
    let mut b = json!({"id": id, "verified": verified, "line": line, "source": {"path": path}});
    if !message.is_empty() {
        b["message"] = json!(message);
    }
    b
}

impl Adapter {
    pub async fn set_breakpoints(&mut self, args: &Value) -> Reply {
        let mut client = self.client.clone().ok_or(NOT_LAUNCHED)?;
        let source = args.get("source").ok_or("missing argument 'source'")?;
        let Some(path) = opt_str(source, "path")? else {
            return Err(
                "breakpoints go in the shader's file (this source has no path: \
                        map the shader to its file with sourceMap)"
                    .into(),
            );
        };
        let wanted: Vec<Value> = match args.get("breakpoints") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a.clone(),
            Some(_) => return Err("argument 'breakpoints' must be a list".into()),
        };
        for old in self.breakpoints.files.remove(path).unwrap_or_default() {
            let _ = client
                .delete_breakpoint(pb::DeleteBreakpointRequest { id: old.id })
                .await;
        }
        let text = std::fs::read_to_string(path);
        let mut set = Vec::new();
        let mut out = Vec::new();
        for bp in &wanted {
            let line = bp.get("line").and_then(Value::as_i64).unwrap_or(0);
            let text = match &text {
                Ok(t) => t,
                Err(e) => {
                    out.push(json!({"verified": false, "line": line, "message": format!("cannot read {path}: {e}")}));
                    continue;
                }
            };
            let added = match source_spec(path, text, bp) {
                Ok(spec) => client
                    .add_breakpoint(pb::BreakpointSpec {
                        kind: Some(pb::breakpoint_spec::Kind::Source(spec)),
                    })
                    .await
                    .map(|r| r.into_inner())
                    .map_err(|s| s.message().to_string()),
                Err(e) => Err(e),
            };
            match added {
                Ok(b) => {
                    let src = b.source.unwrap_or_default();
                    let line = if src.line != 0 {
                        i64::from(src.line)
                    } else {
                        line
                    };
                    out.push(bp_json(b.id, line, src.verified, &src.message, path));
                    set.push(SourceBp {
                        id: b.id,
                        line,
                        verified: src.verified,
                        message: src.message,
                    });
                }
                Err(msg) => out.push(json!({"verified": false, "line": line, "message": msg})),
            }
        }
        if !set.is_empty() {
            self.breakpoints.files.insert(path.to_string(), set);
        }
        Ok(json!({"breakpoints": out}))
    }

    pub async fn set_function_breakpoints(&mut self, args: &Value) -> Reply {
        let mut client = self.client.clone().ok_or(NOT_LAUNCHED)?;
        let wanted: Vec<Value> = match args.get("breakpoints") {
            Some(Value::Array(a)) => a.clone(),
            None | Some(Value::Null) => return Err("missing argument 'breakpoints'".into()),
            Some(_) => return Err("argument 'breakpoints' must be a list".into()),
        };
        for id in std::mem::take(&mut self.breakpoints.function) {
            let _ = client
                .delete_breakpoint(pb::DeleteBreakpointRequest { id })
                .await;
        }
        let mut out = Vec::new();
        for bp in &wanted {
            let name = match opt_str(bp, "name") {
                Ok(Some(n)) => n,
                Ok(None) => {
                    out.push(json!({"verified": false, "message": "missing 'name'"}));
                    continue;
                }
                Err(e) => {
                    out.push(json!({"verified": false, "message": e}));
                    continue;
                }
            };
            if opt_str(bp, "condition")
                .ok()
                .flatten()
                .is_some_and(|c| !c.trim().is_empty())
            {
                out.push(json!({"verified": false, "message":
                    "GL breakpoints take no condition (conditions are for shader lines)"}));
                continue;
            }
            let added = match function_spec(name) {
                Ok(spec) => client
                    .add_breakpoint(spec)
                    .await
                    .map(|r| r.into_inner())
                    .map_err(|s| s.message().to_string()),
                Err(e) => Err(e),
            };
            match added {
                Ok(b) => {
                    self.breakpoints.function.push(b.id);
                    out.push(json!({"id": b.id, "verified": true, "message": b.description}));
                }
                Err(msg) => out.push(json!({"verified": false, "message": msg})),
            }
        }
        Ok(json!({"breakpoints": out}))
    }

    /// The files to map shaders to: the launch configuration's `sourceMap`
    /// (by shader name) and every file with breakpoints (by content).
    pub async fn send_source_files(&mut self) -> Result<(), String> {
        let Some(mut client) = self.client.clone() else {
            return Ok(());
        };
        let files = mapped_files(&self.breakpoints.mapped)?;
        if files.is_empty() {
            return Ok(());
        }
        if let Err(s) = client.set_source_files(pb::SourceFiles { files }).await {
            self.out.console(
                "important",
                &format!(
                    "gldbg: the shader files of sourceMap are not used: {}\n",
                    s.message()
                ),
            );
        }
        Ok(())
    }

    /// `breakpoint` events for source breakpoints whose state changed (a
    /// shader with their file appeared).
    pub async fn breakpoints_changed(&mut self) {
        let Some(mut client) = self.client.clone() else {
            return;
        };
        let Ok(list) = client.list_breakpoints(pb::Empty {}).await else {
            return;
        };
        let now: BTreeMap<u32, pb::SourceBreakpoint> = list
            .into_inner()
            .breakpoints
            .into_iter()
            .filter_map(|b| b.source.map(|s| (b.id, s)))
            .collect();
        let mut events = Vec::new();
        for (path, bps) in self.breakpoints.files.iter_mut() {
            for bp in bps.iter_mut() {
                let Some(src) = now.get(&bp.id) else { continue };
                if src.verified != bp.verified || src.message != bp.message {
                    bp.verified = src.verified;
                    bp.message = src.message.clone();
                    events.push(bp_json(bp.id, bp.line, bp.verified, &bp.message, path));
                }
            }
        }
        for b in events {
            self.out
                .event("breakpoint", json!({"reason": "changed", "breakpoint": b}));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hit_conditions() {
        assert_eq!(ignore_count("1"), Ok(0));
        assert_eq!(ignore_count("5"), Ok(4));
        assert_eq!(ignore_count(">= 3"), Ok(2));
        assert!(
            ignore_count("==2").is_err(),
            "it would stop again after the 2nd"
        );
        assert_eq!(ignore_count("> 3"), Ok(3));
        assert!(ignore_count("0").is_err());
        assert!(ignore_count("% 2").is_err());
        assert!(ignore_count("x").is_err());
    }

    #[test]
    fn function_breakpoint_names() {
        use pb::breakpoint_spec::Kind;
        let k = |n: &str| function_spec(n).map(|s| s.kind.unwrap());
        assert_eq!(k("draw 12"), Ok(Kind::DrawNumber(12)));
        assert_eq!(k(" draw "), Ok(Kind::Draw(pb::Empty {})));
        assert_eq!(k("glDrawArrays"), Ok(Kind::Function("glDrawArrays".into())));
        assert_eq!(k("frame"), Ok(Kind::Frame(pb::Empty {})));
        assert_eq!(k("error"), Ok(Kind::GlError(pb::Empty {})));
        assert!(k("draw 0").is_err());
        assert!(k("draw x").is_err());
        assert!(k("a b c").is_err());
    }
}
