//! Pixel history in the editor (issue 16): the custom requests
//! `pixelHistory` (`{x, y, texture?, level?, layer?, untilDraw?}`: the CLI's
//! `history`, answered with the keys of its JSON line) and `debugHistory`
//! (`{entry}`: `debug history K`, answered with the stop's keys).
//!
//! Both run the app (to the frame's end, or to the same draw of the next
//! frame): the stop they end at is reported as a `stopped` event after
//! the response, and the variable references of the old stop are dropped.
//! A request that fails is an error response; if the app moved anyway
//! (e.g. it ended before the frame did), the new stop is reported too.

use gldbg_proto::pb;
use serde_json::Value;

use super::adapter::{Adapter, Reply};
use crate::command::{Command, HistoryArgs};
use crate::exec::Outcome;
use crate::render;

/// An optional non-negative integer argument below `max`.
fn opt_uint(args: &Value, key: &str, max: u64) -> Result<Option<u64>, String> {
    match args.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => match v.as_u64() {
            Some(n) if n <= max => Ok(Some(n)),
            _ => Err(format!(
                "argument '{key}' must be an integer from 0 to {max}"
            )),
        },
    }
}

fn req_uint(args: &Value, key: &str, max: u64) -> Result<u64, String> {
    opt_uint(args, key, max)?.ok_or_else(|| format!("missing argument '{key}'"))
}

/// `pixelHistory`'s arguments as the CLI's `history` command.
pub fn history_args(args: &Value) -> Result<HistoryArgs, String> {
    let x = req_uint(args, "x", u64::from(u32::MAX))? as u32;
    let y = req_uint(args, "y", u64::from(u32::MAX))? as u32;
    let texture = opt_uint(args, "texture", u64::from(u32::MAX))?;
    let level = opt_uint(args, "level", i32::MAX as u64)?;
    let layer = opt_uint(args, "layer", i32::MAX as u64)?;
    if texture.is_none() && (level.is_some() || layer.is_some()) {
        return Err("'level' and 'layer' need 'texture' (a texel of a texture)".into());
    }
    let until_draw = match opt_uint(args, "untilDraw", u64::MAX)? {
        Some(0) => return Err("argument 'untilDraw': draws are counted from 1".into()),
        d => d,
    };
    Ok(HistoryArgs {
        x,
        y,
        texture: texture.map(|t| (t as u32, level.unwrap_or(0) as i32, layer.map(|l| l as i32))),
        until_draw,
    })
}

/// A command's JSON line without `cmd` and `ok`: the response's body (or
/// the command's error).
fn body_of(cmd: &str, result: &Result<Outcome, String>) -> Result<Value, String> {
    if let Err(e) = result {
        return Err(e.clone());
    }
    let mut body = render::result_json(cmd, result);
    if let Value::Object(o) = &mut body {
        o.remove("cmd");
        o.remove("ok");
    }
    Ok(body)
}

/// Where the app stands, to tell whether a failed request moved it.
fn place(r: &pb::StateReply) -> (i32, Option<(u64, u32)>, bool) {
    (
        r.state,
        r.stop.as_ref().map(|c| (c.call, c.thread)),
        r.shader.is_some(),
    )
}

impl Adapter {
    /// The app's state (None when it cannot be read).
    async fn state_now(&mut self) -> Option<pb::StateReply> {
        match self.stopped_session().ok()?.get_state().await {
            Ok(Outcome::State(r)) => Some(r),
            _ => None,
        }
    }

    /// Run a command that moves the app; its outcome, the stop to report
    /// after the response (also when it failed after moving the app).
    async fn run_move(&mut self, cmd: &Command) -> Result<Outcome, String> {
        let before = self.state_now().await;
        let result = self.stopped_session()?.execute(cmd).await;
        self.refs.clear();
        if result.is_err() {
            let after = self.state_now().await;
            let moved = match (&before, &after) {
                (Some(b), Some(a)) => place(b) != place(a),
                _ => false,
            };
            if let Some(a) = after.filter(|_| moved) {
                self.pending_stop = Some((Outcome::State(a), None));
            }
        }
        result
    }

    /// `pixelHistory`: the history of a pixel (or texel) from the stop to
    /// the frame's end; the app stops there.
    pub async fn pixel_history(&mut self, args: &Value) -> Reply {
        let h = history_args(args)?;
        self.stopped_session()?;
        let result = self.run_move(&Command::History(h)).await;
        let body = body_of("history", &result)?;
        if let Some(state) = self.state_now().await {
            self.pending_stop = Some((Outcome::State(state), Some("history".into())));
        }
        Ok(body)
    }

    /// `debugHistory`: `debug history K`, a shader stop at the entry's draw
    /// of the next frame, focused on the pixel.
    pub async fn debug_history(&mut self, args: &Value) -> Reply {
        let entry = match req_uint(args, "entry", u64::from(u32::MAX))? {
            0 => return Err("argument 'entry': entries are counted from 1".into()),
            k => k as u32,
        };
        self.stopped_session()?;
        let result = self.run_move(&Command::DebugHistory(entry)).await;
        let body = body_of("debug history", &result)?;
        if let Ok(outcome) = result {
            self.pending_stop = Some((outcome, Some(format!("debug history {entry}"))));
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn arguments_become_the_history_command() {
        let h = history_args(&json!({"x": 46, "y": 45})).unwrap();
        assert_eq!((h.x, h.y, h.texture, h.until_draw), (46, 45, None, None));
        let h = history_args(&json!({"x": 1, "y": 2, "texture": 3, "layer": 2, "untilDraw": 7}))
            .unwrap();
        assert_eq!(h.texture, Some((3, 0, Some(2))));
        assert_eq!(h.until_draw, Some(7));
        for (bad, why) in [
            (json!({"y": 1}), "missing argument 'x'"),
            (json!({"x": -1, "y": 1}), "argument 'x'"),
            (json!({"x": 1.5, "y": 1}), "argument 'x'"),
            (json!({"x": "1", "y": 1}), "argument 'x'"),
            (json!({"x": 1, "y": 1, "level": 1}), "need 'texture'"),
            (json!({"x": 1, "y": 1, "untilDraw": 0}), "counted from 1"),
            (
                json!({"x": 1, "y": 1, "texture": 1, "level": 1u64 << 40}),
                "'level'",
            ),
        ] {
            let e = history_args(&bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }
}
