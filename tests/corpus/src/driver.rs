//! The driver as oracle: compile GLSL in-process on a headless EGL context
//! (surfaceless platform, no config, OpenGL compatibility profile 4.5, so
//! every desktop version and the ES versions Mesa accepts compile). The
//! GL entry points of that context and the calls made with them are
//! [`crate::gl_run`]'s.

use std::ffi::c_void;

use crate::gl_run::Gl;

type EglDisplay = *mut c_void;
type EglContext = *mut c_void;

const EGL_PLATFORM_SURFACELESS_MESA: u32 = 0x31DD;
const EGL_OPENGL_API: u32 = 0x30A2;
const EGL_CONTEXT_MAJOR_VERSION: i32 = 0x3098;
const EGL_CONTEXT_MINOR_VERSION: i32 = 0x30FB;
const EGL_CONTEXT_OPENGL_PROFILE_MASK: i32 = 0x30FD;
const EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT: i32 = 0x2;
const EGL_NONE: i32 = 0x3038;

#[link(name = "EGL")]
unsafe extern "C" {
    fn eglGetPlatformDisplay(
        platform: u32,
        native: *mut c_void,
        attribs: *const isize,
    ) -> EglDisplay;
    fn eglInitialize(dpy: EglDisplay, major: *mut i32, minor: *mut i32) -> u32;
    fn eglBindAPI(api: u32) -> u32;
    fn eglCreateContext(
        dpy: EglDisplay,
        config: *mut c_void,
        share: EglContext,
        attribs: *const i32,
    ) -> EglContext;
    fn eglMakeCurrent(
        dpy: EglDisplay,
        draw: *mut c_void,
        read: *mut c_void,
        ctx: EglContext,
    ) -> u32;
}

/// A current GL context on this thread (not Send: GL contexts are per thread).
pub struct Driver {
    gl: Gl,
    _not_send: std::marker::PhantomData<*mut ()>,
}

impl Driver {
    /// Create the context and make it current on the calling thread.
    pub fn new() -> Result<Driver, String> {
        // SAFETY: plain EGL calls with valid arguments; results checked.
        unsafe {
            let dpy = eglGetPlatformDisplay(
                EGL_PLATFORM_SURFACELESS_MESA,
                std::ptr::null_mut(),
                std::ptr::null(),
            );
            if dpy.is_null() {
                return Err("no surfaceless EGL display".into());
            }
            let (mut major, mut minor) = (0, 0);
            if eglInitialize(dpy, &mut major, &mut minor) == 0 {
                return Err("eglInitialize failed".into());
            }
            if eglBindAPI(EGL_OPENGL_API) == 0 {
                return Err("eglBindAPI(EGL_OPENGL_API) failed".into());
            }
            let attribs = [
                EGL_CONTEXT_MAJOR_VERSION,
                4,
                EGL_CONTEXT_MINOR_VERSION,
                5,
                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT,
                EGL_NONE,
            ];
            let ctx = eglCreateContext(
                dpy,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                attribs.as_ptr(),
            );
            if ctx.is_null() {
                return Err("eglCreateContext (4.5 compatibility, no config) failed".into());
            }
            if eglMakeCurrent(dpy, std::ptr::null_mut(), std::ptr::null_mut(), ctx) == 0 {
                return Err("eglMakeCurrent failed".into());
            }
            let gl = Gl::load()?;
            Ok(Driver {
                gl,
                _not_send: std::marker::PhantomData,
            })
        }
    }

    /// Compile `source` as a shader of type `gl_enum`: Ok or the info log.
    pub fn compile(&self, gl_enum: u32, source: &str) -> Result<(), String> {
        self.gl.compile(gl_enum, source)
    }

    /// The GL entry points of this context (current on this thread).
    pub fn gl(&self) -> &Gl {
        &self.gl
    }
}

/// The first error line of an info log (warnings skipped).
pub fn first_error(log: &str) -> String {
    log.lines()
        .find(|l| l.contains("error"))
        .or_else(|| log.lines().next())
        .unwrap_or("")
        .trim()
        .to_string()
}
