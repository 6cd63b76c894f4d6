//! The daemon's error type. The first five variants carry a message and
//! name the gRPC code they become; the others are failures inside the
//! daemon (INTERNAL) kept typed, with their source. Only the service
//! module turns an [`Error`] into a `tonic::Status` (mapping each variant
//! to its code); the one other `Status` is the auth interceptor's
//! UNAUTHENTICATED in `lib.rs`.

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
    /// An operating-system call of the daemon failed (`what`: "thread",
    /// "current directory", "pipe for the app's output").
    #[error("{what}: {source}")]
    Os {
        what: &'static str,
        #[source]
        source: std::io::Error,
    },
    /// Reading or writing the app's memory failed (`access`: "reading", "writing").
    #[error("{access} the app's memory: {source}")]
    AppMemory {
        access: &'static str,
        #[source]
        source: nix::errno::Errno,
    },
    /// A resume command did not reach the stopped thread.
    #[error("the app did not take the command: {0}")]
    NotTaken(#[source] crate::shm::ShmError),
    /// The tracer thread failed a request (pause, resume, detach).
    #[error(transparent)]
    Tracer(#[from] crate::launch::TraceError),
    /// A preload command answered a status its caller cannot use.
    #[error("{what} failed (status {status})")]
    Preload { what: &'static str, status: u32 },
    /// A preload command that must succeed did not (`CMD_FINISH`).
    #[error("{command} failed with status {status}")]
    Command { command: &'static str, status: u32 },
    /// A debug replay failed in the preload, with the preload's log.
    #[error("the debug replay failed (status {status}): {log}")]
    Replay { status: u32, log: String },
    /// The preload does not know a command (an older preload).
    #[error("the preload does not know {0}")]
    UnknownCommand(&'static str),
}

impl Error {
    /// An operating-system failure of the daemon.
    pub(crate) fn os(what: &'static str) -> impl FnOnce(std::io::Error) -> Error {
        move |source| Error::Os { what, source }
    }

    /// A failed access to the app's memory (`access`: "reading", "writing").
    pub(crate) fn app_memory(access: &'static str) -> impl Fn(nix::errno::Errno) -> Error + Copy {
        move |source| Error::AppMemory { access, source }
    }

    pub(crate) fn not_launched() -> Self {
        Error::FailedPrecondition("the program is not running (launch it first)".into())
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

/// The most characters of a client's text an error message quotes.
pub const QUOTE_CHARS: usize = 80;

/// The longest error message sent back (bytes). A gRPC status travels in an
/// HTTP/2 header (percent-encoded, up to 3 bytes a byte) and peers refuse
/// header lists over 16 KiB: a longer message would turn the error into
/// RESOURCE_EXHAUSTED and lose it.
pub const MAX_MESSAGE: usize = 4096;

/// `input` as an error message quotes it: whole when short, else its first
/// [`QUOTE_CHARS`] characters, `…` and its length (`aaaa… (1048576 bytes)`).
/// Every error that repeats what a client sent goes through this, so a
/// 1 MB name gives a short message.
pub fn quote(input: &str) -> String {
    match input.char_indices().nth(QUOTE_CHARS) {
        None => input.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &input[..end], input.len()),
    }
}

/// `message` cut to [`MAX_MESSAGE`] bytes (on a character boundary, with
/// `…` and the full length): the last line of defence where a status is
/// built, for messages that embed text not quoted with [`quote`].
pub fn clip(message: String) -> String {
    if message.len() <= MAX_MESSAGE {
        return message;
    }
    let mut end = MAX_MESSAGE - 64;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes in all)", &message[..end], message.len())
}

/// A number from a client outside the range the request allows:
/// INVALID_ARGUMENT naming the field and the range.
pub(crate) fn out_of_range(field: &str, value: impl std::fmt::Display, range: &str) -> Error {
    Error::InvalidArgument(format!("{field} = {value} is out of range ({range})"))
}

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

#[cfg(test)]
mod tests {
    use super::{MAX_MESSAGE, clip, quote};

    #[test]
    fn quotes_a_short_prefix_of_long_input() {
        assert_eq!(quote("glDrawArrays"), "glDrawArrays");
        let long = "é".repeat(1 << 19); // 1 MiB, 2-byte characters
        let q = quote(&long);
        assert_eq!(q, format!("{}… (1048576 bytes)", "é".repeat(80)));
        assert_eq!(quote(&"x".repeat(80)), "x".repeat(80));
    }

    #[test]
    fn clips_long_messages_on_a_character_boundary() {
        assert_eq!(clip("short".into()), "short");
        let m = clip(format!("unknown `{}`", "ü".repeat(1 << 20)));
        assert!(m.len() <= MAX_MESSAGE, "{}", m.len());
        assert!(m.ends_with("… (2097162 bytes in all)"), "{m}");
    }
}
