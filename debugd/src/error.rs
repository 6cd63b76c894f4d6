//! The daemon's error type. Each variant says which gRPC code it becomes;
//! `tonic::Status` itself appears only in the service module.

/// An error of a session operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The request itself is wrong (unknown function, bad pixel, shader that does not parse).
    #[error("{0}")]
    InvalidArgument(String),
    /// The program to launch does not exist.
    #[error("{0}")]
    NotFound(String),
    /// The session is not in the state the request needs (app running, not launched, not at a draw).
    #[error("{0}")]
    FailedPrecondition(String),
    /// Not done yet (e.g. debugging stages other than fragment).
    #[error("{0}")]
    Unimplemented(String),
    /// Something broke inside (the preload did not answer, the driver failed).
    #[error("{0}")]
    Internal(String),
}

impl Error {
    pub(crate) fn not_launched() -> Self {
        Error::FailedPrecondition("the program is not running (launch it first)".into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

impl From<crate::launch::LaunchError> for Error {
    fn from(e: crate::launch::LaunchError) -> Self {
        use crate::launch::LaunchError as L;
        match e {
            L::NotFound(_) => Error::NotFound(e.to_string()),
            L::NotExecutable(_) | L::BadArgument(_) => Error::InvalidArgument(e.to_string()),
            L::Exec { .. } => Error::FailedPrecondition(e.to_string()),
            L::Trace(_) => Error::Internal(e.to_string()),
        }
    }
}

impl From<crate::shm::ShmError> for Error {
    fn from(e: crate::shm::ShmError) -> Self {
        match e {
            // Not a fault of the daemon: the app is gone (a probe in flight when it died).
            crate::shm::ShmError::AppGone(why) => Error::FailedPrecondition(why),
            e => Error::Internal(format!("shared memory: {e}")),
        }
    }
}
