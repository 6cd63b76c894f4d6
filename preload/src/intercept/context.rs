//! The app thread's current GL context, as the window-system library names
//! it: the key of every per-context record (ours and the hooks').

use gldbg_proto::api;

use crate::generated::invoke;

/// The current GLX or EGL context of this thread (0 if none), asking only
/// window-system libraries that are already loaded.
pub fn current_context() -> u64 {
    for id in [
        api::ids::glXGetCurrentContext,
        api::ids::eglGetCurrentContext,
    ] {
        if super::resolve::ptr_noload(id).is_some() {
            // SAFETY: no arguments; the function is loaded.
            let c = unsafe { invoke(id, &[]) };
            if c != 0 {
                return c;
            }
        }
    }
    0
}
