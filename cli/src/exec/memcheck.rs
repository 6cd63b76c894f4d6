//! `memcheck on|off|stop` and `memcheck` (the report) against the daemon
//! (issue 17). They work in any state of the app, before a launch too
//! (`gldbg run --memcheck` sends `memcheck on` first).

use gldbg_proto::pb;

use super::{Failure, Outcome, Session, status_message};
use crate::command::MemcheckSet;

/// The request's mode for `memcheck [WORD]`.
pub fn mode_of(set: Option<MemcheckSet>) -> pb::MemcheckMode {
    match set {
        None => pb::MemcheckMode::MemcheckReport,
        Some(MemcheckSet::On) => pb::MemcheckMode::MemcheckOn,
        Some(MemcheckSet::Off) => pb::MemcheckMode::MemcheckOff,
        Some(MemcheckSet::Stop) => pb::MemcheckMode::MemcheckStop,
    }
}

impl Session {
    /// `memcheck [on|off|stop]`.
    pub async fn memcheck(&mut self, set: Option<MemcheckSet>) -> Result<Outcome, Failure> {
        let reply = self
            .client
            .memcheck(pb::MemcheckRequest {
                mode: mode_of(set) as i32,
            })
            .await
            .map_err(status_message)?
            .into_inner();
        Ok(Outcome::Memcheck(reply))
    }
}
