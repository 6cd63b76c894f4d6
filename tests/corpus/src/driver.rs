//! The driver as oracle: compile GLSL in-process on a headless EGL context
//! (surfaceless platform, no config, OpenGL compatibility profile 4.5, so
//! every desktop version and the ES versions Mesa accepts compile).

use std::ffi::{CString, c_char, c_void};

type EglDisplay = *mut c_void;
type EglContext = *mut c_void;

const EGL_PLATFORM_SURFACELESS_MESA: u32 = 0x31DD;
const EGL_OPENGL_API: u32 = 0x30A2;
const EGL_CONTEXT_MAJOR_VERSION: i32 = 0x3098;
const EGL_CONTEXT_MINOR_VERSION: i32 = 0x30FB;
const EGL_CONTEXT_OPENGL_PROFILE_MASK: i32 = 0x30FD;
const EGL_CONTEXT_OPENGL_COMPATIBILITY_PROFILE_BIT: i32 = 0x2;
const EGL_NONE: i32 = 0x3038;
const GL_COMPILE_STATUS: u32 = 0x8B81;
const GL_INFO_LOG_LENGTH: u32 = 0x8B84;

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
    fn eglGetProcAddress(name: *const c_char) -> *mut c_void;
}

struct Gl {
    create_shader: unsafe extern "C" fn(u32) -> u32,
    shader_source: unsafe extern "C" fn(u32, i32, *const *const c_char, *const i32),
    compile_shader: unsafe extern "C" fn(u32),
    get_shader_iv: unsafe extern "C" fn(u32, u32, *mut i32),
    get_shader_info_log: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    delete_shader: unsafe extern "C" fn(u32),
}

/// A current GL context on this thread (not Send: GL contexts are per thread).
pub struct Driver {
    gl: Gl,
    _not_send: std::marker::PhantomData<*mut ()>,
}

fn proc_address(name: &str) -> Result<*mut c_void, String> {
    let c = CString::new(name).unwrap();
    // SAFETY: eglGetProcAddress takes a NUL-terminated name.
    let p = unsafe { eglGetProcAddress(c.as_ptr()) };
    if p.is_null() {
        Err(format!("no {name}"))
    } else {
        Ok(p)
    }
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
            let gl = Gl {
                create_shader: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(u32) -> u32>(
                    proc_address("glCreateShader")?,
                ),
                shader_source: std::mem::transmute::<
                    *mut c_void,
                    unsafe extern "C" fn(u32, i32, *const *const c_char, *const i32),
                >(proc_address("glShaderSource")?),
                compile_shader: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(u32)>(
                    proc_address("glCompileShader")?,
                ),
                get_shader_iv: std::mem::transmute::<
                    *mut c_void,
                    unsafe extern "C" fn(u32, u32, *mut i32),
                >(proc_address("glGetShaderiv")?),
                get_shader_info_log: std::mem::transmute::<
                    *mut c_void,
                    unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
                >(proc_address("glGetShaderInfoLog")?),
                delete_shader: std::mem::transmute::<*mut c_void, unsafe extern "C" fn(u32)>(
                    proc_address("glDeleteShader")?,
                ),
            };
            Ok(Driver {
                gl,
                _not_send: std::marker::PhantomData,
            })
        }
    }

    /// Compile `source` as a shader of type `gl_enum`: Ok or the info log.
    pub fn compile(&self, gl_enum: u32, source: &str) -> Result<(), String> {
        // SAFETY: the context is current on this thread (Driver is !Send);
        // pointers passed are valid for the calls.
        unsafe {
            let sh = (self.gl.create_shader)(gl_enum);
            if sh == 0 {
                return Err("glCreateShader failed (stage unsupported?)".into());
            }
            let ptr = source.as_ptr() as *const c_char;
            let len = source.len() as i32;
            (self.gl.shader_source)(sh, 1, &ptr, &len);
            (self.gl.compile_shader)(sh);
            let mut ok = 0;
            (self.gl.get_shader_iv)(sh, GL_COMPILE_STATUS, &mut ok);
            let r = if ok != 0 {
                Ok(())
            } else {
                let mut n = 0;
                (self.gl.get_shader_iv)(sh, GL_INFO_LOG_LENGTH, &mut n);
                let mut buf = vec![0u8; n.max(1) as usize];
                let mut written = 0;
                (self.gl.get_shader_info_log)(
                    sh,
                    buf.len() as i32,
                    &mut written,
                    buf.as_mut_ptr() as *mut c_char,
                );
                buf.truncate(written.max(0) as usize);
                Err(String::from_utf8_lossy(&buf).into_owned())
            };
            (self.gl.delete_shader)(sh);
            r
        }
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
