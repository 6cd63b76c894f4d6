//! The statuses every preload command shares, as errors.

use gldbg_proto::shm as abi;

use crate::error::{Error, Result};

/// The outcome of a preload command's status, for the statuses every
/// command shares; `other` describes any other failure.
pub(crate) fn check_status(
    command: &'static str,
    status: u32,
    other: impl FnOnce(u32) -> Error,
) -> Result<()> {
    let refused = |what: &str| Err(Error::FailedPrecondition(what.into()));
    match status {
        abi::STATUS_OK => Ok(()),
        abi::STATUS_NOT_A_DRAW => refused("not stopped at a draw call the debugger can replay"),
        abi::STATUS_NO_PROGRAM => refused(
            "no program is current (a draw here uses the fixed-function pipeline: there is no \
             shader to debug; `break shader-switch` stops where the app makes a program current)",
        ),
        abi::STATUS_NO_CONTEXT => refused("no GL context is current on the stopped thread"),
        abi::STATUS_UNKNOWN_COMMAND => Err(Error::UnknownCommand(command)),
        // No reply was written: the reply area holds an earlier command's.
        abi::STATUS_BULK_UNAVAILABLE => Err(Error::Internal(format!(
            "{command}: the preload could not take the shared bulk region (another command \
             held it, or it could not be mapped: the app's stderr says which); nothing was done"
        ))),
        st => Err(other(st)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A command that could not take the bulk region wrote no reply: its
    /// failure says so instead of reading (through `other`) the log an
    /// earlier command left there.
    #[test]
    fn an_unavailable_bulk_region_reads_no_reply() {
        let e = check_status("CMD_VERTEX_STEP", abi::STATUS_BULK_UNAVAILABLE, |_| {
            panic!("the stale reply was read")
        })
        .unwrap_err();
        let text = e.to_string();
        assert!(text.contains("CMD_VERTEX_STEP"), "{text}");
        assert!(text.contains("bulk region"), "{text}");
    }
}
