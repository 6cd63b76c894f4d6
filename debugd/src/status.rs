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
        st => Err(other(st)),
    }
}
