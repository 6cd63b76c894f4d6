//! `libgldbg_preload.so`: loaded into an unmodified OpenGL application with
//! `LD_PRELOAD`, it stands between the app and its GL/GLX/EGL libraries.
//!
//! Its one job: stop the app at GL calls the daemon asks for, and while a
//! thread is stopped, run the daemon's commands on that thread, in the app's
//! own GL context (execute, skip, finish the call; describe the current
//! program; build a debug program, replay the draw, read the values back into
//! shared memory).
//!
//! Map:
//! * `generated` (from `build.rs`): one exported wrapper per GL/GLX/EGL
//!   function, typed `real::*` calls, the `invoke` dispatcher.
//! * [`intercept`]: the app's view (real functions, the `dlopen`
//!   interception, the hooks and their bookkeeping, held GL errors).
//! * [`session`]: the shared mapping (constructor); [`bulk`]: its bulk
//!   region, mapped on demand; [`stop`]: the fast path test and the stop
//!   protocol, which hands every command of ours to [`replay`].
//! * [`replay`]: our GL work while the app is stopped (debug steps,
//!   program and state queries); [`gl`]: the small safe GL wrappers it uses.
//!
//! Layers: `stop` uses `intercept` and `replay`; `replay` uses
//! `intercept`'s bookkeeping; `intercept` never uses `replay` or `stop`.
//!
//! **Architecture invariants:**
//! * The fast path (a wrapper whose breakpoint bit is clear) takes no lock,
//!   makes no syscall and never allocates: a thread-local counter increment,
//!   a pointer load, a word load, a bit test, the real call.
//! * The preload never parses GLSL: debug shaders arrive as finished sources
//!   from the daemon.
//! * The app never notices: every GL state the executor touches is restored,
//!   the app's pending GL errors are held back and handed to it later, no
//!   object of ours stays bound.
//! * A missing or dead daemon, or a foreign shared-memory layout, means
//!   pass-through, never a hang or a crash.

pub mod bulk;
pub mod gl;
pub mod intercept;
pub mod replay;
pub mod session;
pub mod stop;
pub mod thread_calls;
pub mod word;

/// Generated from `gldbg_proto::api::FUNCTIONS` by `build.rs`.
#[allow(non_snake_case, unused_unsafe, clippy::all)]
pub mod generated {
    include!(concat!(env!("OUT_DIR"), "/wrappers.rs"));
}

/// One line on stderr, prefixed with the library's name.
pub(crate) fn log(args: core::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "gldbg-preload: {args}");
}

extern "C" fn constructor() {
    session::attach_from_env();
}

/// Runs [`constructor`] when the library is loaded, before `main`.
#[used]
#[unsafe(link_section = ".init_array")]
static INIT: extern "C" fn() = constructor;
