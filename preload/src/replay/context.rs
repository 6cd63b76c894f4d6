//! What the current context is: desktop GL or GL ES, its version and
//! profile, and the queries it offers. Every step asks here before it
//! picks a path.

use crate::gl;
use crate::intercept::context::current_context;

/// Whether a GL context is current on this thread.
pub(crate) fn has_context() -> bool {
    current_context() != 0 || gl::has_version()
}

/// Whether GL_PROGRAM_INTERFACE queries exist (GL 4.3+ or
/// `GL_ARB_program_interface_query`, ES 3.1+).
pub(crate) fn program_interface_query() -> bool {
    let available =
        crate::intercept::resolve::available(gldbg_proto::api::ids::glGetProgramInterfaceiv);
    available
        && match es_version() {
            Some(v) => v >= (3, 1),
            // NVIDIA offers the extension in 3.x contexts too (dual-source
            // programs are 3.3): their outputs can be listed there.
            None => {
                let v = (gl::get_i(gl::MAJOR_VERSION), gl::get_i(gl::MINOR_VERSION));
                v >= (4, 3) || (v >= (3, 0) && gl::has_extension("GL_ARB_program_interface_query"))
            }
        }
}

/// The context's GL ES version (major, minor); `None` on desktop GL. Read
/// from the version string: ES 2.0 has no `GL_MAJOR_VERSION` (asking would
/// raise an error).
pub(crate) fn es_version() -> Option<(i32, i32)> {
    if !is_es() {
        return None;
    }
    let v = gl::get_string(gl::VERSION);
    let number = v.strip_prefix("OpenGL ES")?.split_whitespace().next()?;
    let (major, minor) = number.split_once('.')?;
    let minor: String = minor.chars().take_while(char::is_ascii_digit).collect();
    Some((major.parse().ok()?, minor.parse().ok()?))
}

/// Whether the context is OpenGL ES.
pub(crate) fn is_es() -> bool {
    gl::get_string(gl::VERSION).starts_with("OpenGL ES")
}

/// Whether the context is desktop GL before 3.2 (where `GL_MAJOR_VERSION`
/// may not exist: 0) or a compatibility profile: it has the fixed-function
/// alpha test, and an app may bind object names it never generated.
pub(crate) fn compatibility_context() -> bool {
    !is_es()
        && (!gl_at_least(3, 2)
            || gl::get_i(gl::CONTEXT_PROFILE_MASK) & gl::CONTEXT_COMPATIBILITY_PROFILE_BIT != 0)
}

/// Whether the context is desktop GL of at least `major.minor`.
pub(crate) fn gl_at_least(major: i32, minor: i32) -> bool {
    !is_es() && (gl::get_i(gl::MAJOR_VERSION), gl::get_i(gl::MINOR_VERSION)) >= (major, minor)
}
