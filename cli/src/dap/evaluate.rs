//! The debug console, hovers and watches (`evaluate`), the value image
//! (`valueImage`: an expression over the draw, every value exact, for the
//! editor's heatmap), `exceptionInfo` of a crash or a memcheck finding,
//! and `pause`.
//!
//! The console runs any gldbg command line and answers with the CLI's text;
//! a command that moves (a step, `focus`, `frame`) is followed by a
//! `stopped` event so the editor shows the new place (`history` and
//! `debug history` too: they run the app). `continue` in the
//! console runs as the editor's continue does, so `pause` still works.

use gldbg_proto::pb;
use serde_json::{Value, json};

use super::adapter::{Adapter, Reply, parse_line};
use super::args::{opt_str, req_str};
use super::frames::SHADER_FRAME;
use super::model::Plan;
use crate::command::Command;
use crate::exec::{self, Outcome};
use crate::render;

const NO_SHADER: &str = "no shader is being debugged here (stop at a shader line first, or run `debug STAGE` in the console)";

/// A value image's body from a raw dump (f64 × 4 per pixel, rows
/// bottom-up, then one coverage byte per pixel).
pub fn image_body(expr: &str, d: &pb::DumpReply) -> Result<Value, String> {
    let n = d.width as usize * d.height as usize;
    if d.data.len() != n * 33 {
        return Err(format!(
            "the daemon's raw dump has {} bytes, not {} for {}x{}",
            d.data.len(),
            n * 33,
            d.width,
            d.height
        ));
    }
    let (values, covered) = d.data.split_at(n * 32);
    let components = components_of(&d.r#type);
    let mut min = vec![f64::INFINITY; components];
    let mut max = vec![f64::NEG_INFINITY; components];
    for (px, &c) in covered.iter().enumerate() {
        if c == 0 {
            continue;
        }
        for (k, (lo, hi)) in min.iter_mut().zip(max.iter_mut()).enumerate() {
            let at = (px * 4 + k) * 8;
            let v = f64::from_le_bytes(values[at..at + 8].try_into().expect("8 bytes"));
            if v.is_finite() {
                *lo = lo.min(v);
                *hi = hi.max(v);
            }
        }
    }
    let finite = |v: Vec<f64>| -> Vec<Value> {
        v.into_iter()
            .map(|x| if x.is_finite() { json!(x) } else { Value::Null })
            .collect()
    };
    Ok(json!({
        "expression": expr,
        "type": d.r#type,
        "width": d.width,
        "height": d.height,
        "components": components,
        "values": super::base64::encode(values),
        "covered": super::base64::encode(covered),
        "reached": d.reached,
        // Names drawn as read whose writes gldbg cannot follow: their
        // pixels may show values not yet written.
        "writtenUnknown": d.written_unknown,
        "min": finite(min),
        "max": finite(max),
    }))
}

/// Components of a scalar or vector type name (1 for anything else: the
/// dump refuses what it cannot draw).
fn components_of(ty: &str) -> usize {
    ty.chars()
        .last()
        .and_then(|c| c.to_digit(10))
        .filter(|_| ty.contains("vec"))
        .map(|n| n as usize)
        .unwrap_or(1)
}

impl Adapter {
    pub async fn evaluate(&mut self, args: &Value) -> Reply {
        let expr = req_str(args, "expression")?.to_string();
        match opt_str(args, "context")? {
            None | Some("repl") => self.console_line(&expr).await,
            Some(_) => {
                let frame = args.get("frameId").and_then(Value::as_i64);
                self.print_focused(&expr, frame).await
            }
        }
    }

    /// One debug-console line.
    async fn console_line(&mut self, line: &str) -> Reply {
        let cmd = parse_line(line)?;
        match cmd {
            Command::Quit | Command::Kill | Command::Detach => {
                return Err("end the session with the editor's stop or disconnect".into());
            }
            Command::Continue => {
                self.stopped_session()?;
                self.pending_move = Some(("continue".into(), Plan::ShaderThenApp, "breakpoint"));
                return Ok(json!({"result": "continuing", "variablesReference": 0}));
            }
            // The app's own moves run as the editor's do (pause still works).
            Command::Step(_) | Command::Next(_) | Command::Finish | Command::Skip
                if !self.shader_now().await? =>
            {
                self.pending_move = Some((line.trim().to_string(), Plan::Once, "step"));
                return Ok(json!({"result": "running", "variablesReference": 0}));
            }
            _ => {}
        }
        let moves = matches!(
            cmd,
            Command::Focus(_)
                | Command::Frame(_)
                | Command::Debug(..)
                | Command::End
                | Command::History(_)
                | Command::DebugHistory(_)
        );
        let result = self.stopped_session()?.execute(&cmd).await;
        let text = render::result_text(&result);
        let outcome = result?;
        if moves || matches!(outcome, Outcome::ShaderStop(_) | Outcome::State(_)) {
            self.refs.clear();
            // The command's word ("focus", "frame") says why the editor refreshes.
            let word = line
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_string();
            self.pending_stop = Some((outcome, Some(word)));
        }
        Ok(json!({"result": text, "variablesReference": 0}))
    }

    /// A hover's or watch's value at the focused invocation (in the frame
    /// asked for).
    async fn print_focused(&mut self, expr: &str, frame: Option<i64>) -> Reply {
        let state = match self.stopped_session()?.get_state().await? {
            Outcome::State(r) => r,
            _ => return Err(NO_SHADER.into()),
        };
        let stop = state.shader.ok_or(NO_SHADER)?;
        let at = exec::invocation_at(stop.focus.as_ref());
        let level = frame
            .and_then(|f| f.checked_sub(SHADER_FRAME))
            .and_then(|l| u32::try_from(l).ok())
            .unwrap_or(0);
        self.select_frame(level).await?;
        let printed = self
            .stopped_session()?
            .execute(&Command::Print {
                expr: expr.to_string(),
                at,
            })
            .await;
        let Outcome::Print { reply, .. } = printed? else {
            return Err("no value".into());
        };
        if at.is_some() && !reply.reached {
            return Ok(
                json!({"result": "not reached by the focused invocation", "variablesReference": 0}),
            );
        }
        if at.is_none() {
            // No focus: the summary over every invocation, as the CLI says it.
            let outcome = Outcome::Print {
                reply,
                at: None,
                stage: stop.stage,
            };
            return Ok(
                json!({"result": render::result_text(&Ok(outcome)), "variablesReference": 0}),
            );
        }
        let value = pb::LocalValue {
            name: expr.to_string(),
            r#type: reply.r#type.clone(),
            value: reply.value.clone(),
            undefined: reply.undefined.clone(),
            written_unknown: !reply.written_unknown.is_empty(),
            parts: reply.parts.clone(),
            ..Default::default()
        };
        let var = self.value_variable(&value);
        Ok(
            json!({"result": var["value"], "type": reply.r#type, "variablesReference": var["variablesReference"]}),
        )
    }

    pub async fn value_image(&mut self, args: &Value) -> Reply {
        let expr = req_str(args, "expression")?.to_string();
        self.stopped_session()?;
        let mut client = self.client.clone().ok_or(NO_SHADER)?;
        let dump = client
            .dump(pb::DumpRequest {
                expr: expr.clone(),
                format: pb::DumpFormat::Raw as i32,
                ..Default::default()
            })
            .await
            .map_err(|s| s.message().to_string())?
            .into_inner();
        image_body(&expr, &dump)
    }

    pub fn exception_info(&mut self) -> Reply {
        if let (None, Some(f)) = (&self.crash, &self.finding) {
            return Ok(super::memcheck::exception_info(f));
        }
        let crash = self
            .crash
            .as_ref()
            .ok_or("no exception: the app has not crashed")?;
        let call = crash.call.as_ref().filter(|c| !c.function.is_empty());
        let entered = crash.entered.as_ref().filter(|_| !crash.in_call);
        let place = match (call, entered) {
            (Some(c), _) if crash.in_call => format!(" in {}", super::frames::call_name(c)),
            (_, Some(e)) => format!(
                " after entering {} (call {} of the thread; in flight or returned: gldbg cannot tell)",
                e.function, e.call
            ),
            (Some(c), None) => format!(
                " (the last GL call gldbg saw on that thread: {})",
                super::frames::call_name(c)
            ),
            (None, None) => String::new(),
        };
        let description = format!(
            "{} (signal {}) at address {:#x}{place}",
            crash.signal_name, crash.signal, crash.fault_address
        );
        Ok(json!({
            "exceptionId": crash.signal_name,
            "description": description,
            "breakMode": "always",
            "details": {"message": description, "typeName": crash.signal_name,
                        "stackTrace": super::frames::crash_frame_name(crash)},
        }))
    }

    pub async fn pause(&mut self) -> Reply {
        let mut client = self.client.clone().ok_or(super::adapter::NOT_LAUNCHED)?;
        if self.session.is_some() && !self.running_unwatched {
            // Already stopped: nothing to do (DAP allows it).
            return Ok(json!({}));
        }
        // A move of many calls (`step N`) stops at each one for an instant:
        // a pause that lands there finds the app stopped; it is asked again
        // until it lands while the app runs (or the move has ended).
        let mut tries = 0;
        let reply = loop {
            match client.pause(pb::Empty {}).await {
                Ok(r) => break r.into_inner(),
                Err(s) if s.code() == tonic::Code::FailedPrecondition && tries < 200 => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
                }
                Err(s) => return Err(s.message().to_string()),
            }
        };
        if self.running_unwatched {
            // No move waits for this stop: report it here.
            self.running_unwatched = false;
            self.pending_stop = Some((Outcome::State(reply), None));
        }
        self.moving_reason = "pause";
        Ok(json!({}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_dump_to_image_body() {
        // 2x1: pixel 0 covered with (1.5, -2), pixel 1 not reached.
        let mut data = Vec::new();
        for v in [1.5f64, -2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        data.extend_from_slice(&[1, 0]);
        let d = pb::DumpReply {
            width: 2,
            height: 1,
            r#type: "vec2".into(),
            data,
            reached: 1,
            ..Default::default()
        };
        let b = image_body("p", &d).unwrap();
        assert_eq!(b["components"], 2);
        assert_eq!(b["min"], json!([1.5, -2.0]));
        assert_eq!(
            b["max"],
            json!([1.5, -2.0]),
            "the uncovered pixel's zeros count for nothing"
        );
        assert_eq!(b["covered"], "AQA=");
        let short = pb::DumpReply {
            width: 2,
            height: 1,
            data: vec![0; 10],
            ..Default::default()
        };
        assert!(image_body("p", &short).is_err());
    }

    #[test]
    fn component_counts() {
        assert_eq!(components_of("float"), 1);
        assert_eq!(components_of("vec3"), 3);
        assert_eq!(components_of("ivec4"), 4);
        assert_eq!(components_of("uint"), 1);
    }
}
