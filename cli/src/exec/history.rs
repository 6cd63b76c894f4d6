//! The pixel-history commands against the daemon: `history` and `debug
//! history K` (the daemon runs the app; the outcome is the table, or the
//! shader stop of the entry's fragment in the next frame), and `info
//! sources` (the focused invocation's texture reads: where a history's
//! value came from).

use gldbg_proto::pb;

use super::{Failure, Outcome, Session, status_message};
use crate::command::HistoryArgs;

impl Session {
    /// `history X,Y ...`.
    pub(super) async fn history(&mut self, h: HistoryArgs) -> Result<Outcome, Failure> {
        self.need_app()?;
        let request = pb::PixelHistoryRequest {
            x: h.x,
            y: h.y,
            texture: h.texture.map(|t| t.0),
            level: h.texture.map_or(0, |t| t.1),
            layer: h.texture.and_then(|t| t.2),
            until_draw: h.until_draw,
        };
        let reply = self
            .client
            .pixel_history(request)
            .await
            .map_err(status_message)?
            .into_inner();
        // The app moved: any shader debugging ended.
        self.shader = None;
        self.shader_breaks.clear();
        Ok(Outcome::History(reply))
    }

    /// `debug history K`.
    pub(super) async fn debug_history(&mut self, entry: u32) -> Result<Outcome, Failure> {
        self.need_app()?;
        self.shader = None;
        let reply = self
            .client
            .debug_history(pb::DebugHistoryRequest { entry })
            .await
            .map_err(status_message)?
            .into_inner();
        let stop = reply.stop.clone().unwrap_or_default();
        self.shader = Some(match stop.stage.is_empty() {
            true => "fragment".into(),
            false => stop.stage.clone(),
        });
        self.shader_breaks.clear();
        Ok(Outcome::HistoryDebug(reply))
    }
}

impl Session {
    /// `info sources`.
    pub(super) async fn info_sources(&mut self) -> Result<Outcome, Failure> {
        self.need_shader()?;
        let reply = self
            .client
            .info_sources(pb::Empty {})
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Sources(reply))
    }
}
