//! Why a debug step failed: one typed error per cause, each with the
//! status code the daemon acts on ([`Error::status`]) and the words of the
//! log it shows the user (`Display`).

use gldbg_proto::shm;

use super::writes::WritesError;

/// A failed step (or a check before it).
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    #[error("{name} is not a draw call that can be replayed")]
    NotReplayable { name: &'static str },
    #[error(
        "{name} is inside glNewList(GL_COMPILE_AND_EXECUTE): GL would record the replay into \
         the display list; debug a later glCallList of that list"
    )]
    InsideList { name: &'static str },
    #[error("{name} is not a compute dispatch")]
    NotADispatch { name: &'static str },
    #[error("no GL context is current on the stopped thread")]
    NoContext,
    #[error("no program is current and no program pipeline is bound")]
    NoProgram,
    #[error("program {0} is not linked")]
    NotLinked(u32),
    #[error("no program of the debugged stage is in use")]
    NoStageProgram,
    /// The driver's compile log of one debug shader.
    #[error("{stage} shader: {log}")]
    Compile { stage: &'static str, log: String },
    /// The driver's link log of the debug program.
    #[error("{0}")]
    Link(String),
    #[error("debug outputs at unusable locations (value {value}, coverage {coverage})")]
    OutputLocations { value: u32, coverage: u32 },
    #[error("no free fragment output location for {0}")]
    NoOutputLocation(String),
    #[error("replaying the {what} with the debug program raised GL error {code:#x}")]
    Replay { what: &'static str, code: u32 },
    /// Our own GL work around the replay raised an error.
    #[error("{doing} raised GL error {code:#x}")]
    Gl { doing: &'static str, code: u32 },
    /// What the step reads back (named) exceeds the bulk region.
    #[error("{0} do not fit in the shared memory")]
    TooMany(String),
    #[error("{w}x{h} does not fit in the shared memory")]
    TooLarge { w: i32, h: i32 },
    /// A slice of the bulk region could not be had (named).
    #[error("{0}")]
    NoRoom(&'static str),
    #[error("cannot tell the draw framebuffer's size ({w}x{h})")]
    FramebufferSize { w: i32, h: i32 },
    #[error("debug framebuffer incomplete ({0:#x})")]
    Incomplete(u32),
    #[error("{0} cache poisoned")]
    Poisoned(&'static str),
    #[error(
        "the debug buffers need two free storage bindings; the app's blocks take those this \
         context has ({0})"
    )]
    NoStorageBindings(u32),
    /// What the call or its bound state lacks for this step.
    #[error("{0}")]
    Call(String),
    /// What this context lacks for this step.
    #[error("{0}")]
    Unsupported(String),
    #[error(transparent)]
    Writes(#[from] WritesError),
}

impl Error {
    /// The command status the daemon acts on.
    pub(crate) fn status(&self) -> u32 {
        match self {
            Error::NotReplayable { .. } | Error::InsideList { .. } | Error::NotADispatch { .. } => {
                shm::STATUS_NOT_A_DRAW
            }
            Error::NoContext => shm::STATUS_NO_CONTEXT,
            Error::NoProgram | Error::NotLinked(_) | Error::NoStageProgram => {
                shm::STATUS_NO_PROGRAM
            }
            Error::Compile { .. } => shm::STATUS_COMPILE_FAILED,
            Error::Link(_) | Error::OutputLocations { .. } => shm::STATUS_LINK_FAILED,
            _ => shm::STATUS_GL_FAILED,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_words() {
        let e = Error::Compile {
            stage: "vertex",
            log: "0:1: oops".into(),
        };
        assert_eq!(e.status(), shm::STATUS_COMPILE_FAILED);
        assert_eq!(e.to_string(), "vertex shader: 0:1: oops");
        let e = Error::Replay {
            what: "draw",
            code: 0x502,
        };
        assert_eq!(e.status(), shm::STATUS_GL_FAILED);
        assert_eq!(
            e.to_string(),
            "replaying the draw with the debug program raised GL error 0x502"
        );
        assert_eq!(Error::NoProgram.status(), shm::STATUS_NO_PROGRAM);
        assert_eq!(
            Error::TooMany("7 vertices".into()).to_string(),
            "7 vertices do not fit in the shared memory"
        );
        let e = Error::from(WritesError::NeedsGl45 { unit: 3 });
        assert_eq!(
            e.to_string(),
            "image unit 3 is bound for writing; copying it aside for the replay needs GL 4.5"
        );
        assert!(std::error::Error::source(&e).is_none() || e.status() == shm::STATUS_GL_FAILED);
    }
}
