//! Shaders, programs, subroutines and storage blocks: compiling and linking
//! debug programs, reading and setting the app's uniforms.

#[allow(unused_imports)]
use super::*;

// SAFETY (for every `unsafe` block below unless it says otherwise): as in
// the parent module's comment: a real GL entry point called on the stopped
// app thread with its context current; out-pointers point at live local
// buffers at least as large as the query's result; in-pointers point at
// live data of the length passed.

// Shaders and programs.
pub fn create_program() -> u32 {
    // SAFETY: see the module comment.
    unsafe { real::glCreateProgram() }
}
pub fn is_program(p: u32) -> bool {
    // SAFETY: see the module comment.
    unsafe { real::glIsProgram(p) != 0 }
}
pub fn delete_program(p: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteProgram(p) }
}
pub fn create_shader(ty: u32) -> u32 {
    // SAFETY: see the module comment.
    unsafe { real::glCreateShader(ty) }
}
pub fn delete_shader(s: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteShader(s) }
}
pub fn shader_source(s: u32, src: &[u8]) {
    let mut ptr = src.as_ptr();
    let mut len = src.len() as i32;
    // SAFETY: see the module comment; one string of `len` bytes.
    unsafe { real::glShaderSource(s, 1, p(&mut ptr), p(&mut len)) }
}
pub fn compile_shader(s: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glCompileShader(s) }
}
pub fn attach_shader(prog: u32, s: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glAttachShader(prog, s) }
}
pub fn detach_shader(prog: u32, s: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDetachShader(prog, s) }
}
pub fn link_program(prog: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glLinkProgram(prog) }
}
pub fn get_shader_i(s: u32, pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetShaderiv(s, pname, p(&mut v)) };
    v
}
pub fn get_program_i(prog: u32, pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetProgramiv(prog, pname, p(&mut v)) };
    v
}
pub fn shader_info_log(s: u32) -> String {
    let n = get_shader_i(s, INFO_LOG_LENGTH).clamp(0, 1 << 20) as usize;
    // SAFETY: see the module comment; the buffer holds `size` bytes.
    gl_string(n + 1, |size, len, buf| unsafe {
        real::glGetShaderInfoLog(s, size, len, buf)
    })
}
pub fn program_info_log(prog: u32) -> String {
    let n = get_program_i(prog, INFO_LOG_LENGTH).clamp(0, 1 << 20) as usize;
    // SAFETY: see the module comment; the buffer holds `size` bytes.
    gl_string(n + 1, |size, len, buf| unsafe {
        real::glGetProgramInfoLog(prog, size, len, buf)
    })
}
pub fn attached_shaders(prog: u32) -> Vec<u32> {
    let n = get_program_i(prog, ATTACHED_SHADERS).clamp(0, 64) as usize;
    let mut v = vec![0u32; n.max(1)];
    let mut count = 0i32;
    // SAFETY: see the module comment; room for n names.
    unsafe { real::glGetAttachedShaders(prog, n as i32, p(&mut count), v.as_mut_ptr().cast()) };
    v.truncate((count.max(0) as usize).min(n));
    v
}
pub fn shader_source_of(s: u32) -> Vec<u8> {
    let n = get_shader_i(s, SHADER_SOURCE_LENGTH).clamp(0, 64 << 20) as usize;
    let mut buf = vec![0u8; n + 1];
    let mut len = 0i32;
    // SAFETY: see the module comment; `buf` holds n+1 bytes.
    unsafe { real::glGetShaderSource(s, buf.len() as i32, p(&mut len), buf.as_mut_ptr().cast()) };
    buf.truncate((len.max(0) as usize).min(n));
    buf
}

/// Name, size and type of an active attribute (`attrib = true`) or uniform.
pub fn active_variable(prog: u32, index: u32, attrib: bool, max_len: usize) -> (String, i32, u32) {
    let mut buf = vec![0u8; max_len.clamp(1, 4096) + 1];
    let (mut len, mut size, mut ty) = (0i32, 0i32, 0u32);
    // SAFETY: see the module comment; `buf` holds buf.len() bytes.
    unsafe {
        if attrib {
            real::glGetActiveAttrib(
                prog,
                index,
                buf.len() as i32,
                p(&mut len),
                p(&mut size),
                p(&mut ty),
                buf.as_mut_ptr().cast(),
            )
        } else {
            real::glGetActiveUniform(
                prog,
                index,
                buf.len() as i32,
                p(&mut len),
                p(&mut size),
                p(&mut ty),
                buf.as_mut_ptr().cast(),
            )
        }
    };
    buf.truncate((len.max(0) as usize).min(buf.len() - 1));
    (String::from_utf8_lossy(&buf).into_owned(), size, ty)
}

pub fn attrib_location(prog: u32, name: &str) -> i32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetAttribLocation(prog, c.as_mut_ptr().cast()) }
}
pub fn bind_attrib_location(prog: u32, loc: u32, name: &str) {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glBindAttribLocation(prog, loc, c.as_mut_ptr().cast()) }
}
pub fn frag_data_location(prog: u32, name: &str) -> i32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetFragDataLocation(prog, c.as_mut_ptr().cast()) }
}
pub fn bind_frag_data_location(prog: u32, loc: u32, name: &str) {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glBindFragDataLocation(prog, loc, c.as_mut_ptr().cast()) }
}
/// The index (0, or 1 for the second source of dual-source blending) of
/// fragment output `name`; -1 when it is not one, or without the query
/// (GL before 3.3, GL ES).
pub fn frag_data_index(prog: u32, name: &str) -> i32 {
    if !crate::intercept::resolve::available(gldbg_proto::api::ids::glGetFragDataIndex) {
        return -1;
    }
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name; the function exists.
    unsafe { real::glGetFragDataIndex(prog, c.as_mut_ptr().cast()) }
}
pub fn bind_frag_data_location_indexed(prog: u32, loc: u32, index: u32, name: &str) {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glBindFragDataLocationIndexed(prog, loc, index, c.as_mut_ptr().cast()) }
}
pub fn uniform_location(prog: u32, name: &str) -> i32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetUniformLocation(prog, c.as_mut_ptr().cast()) }
}
/// The current value of the uniform at `loc` whose type is `ty` (a GL
/// type enum of `glGetActiveUniform`), formatted as GLSL writes it: `0.5`,
/// `vec3(1, 0, 0)`, `mat2(...)` (column-major), `bvec2(true, false)`;
/// samplers and images show their unit. `None` where this context cannot
/// read the kind (doubles without GL 4, unsigned without GL 3 / ES 3).
pub fn uniform_value(prog: u32, loc: i32, ty: u32) -> Option<String> {
    use UniformKind::*;
    let (kind, cols, rows) = uniform_shape(ty);
    let getter = match kind {
        Float => gldbg_proto::api::ids::glGetUniformfv,
        Int => gldbg_proto::api::ids::glGetUniformiv,
        Uint => gldbg_proto::api::ids::glGetUniformuiv,
        Double => gldbg_proto::api::ids::glGetUniformdv,
        Int64 => gldbg_proto::api::ids::glGetUniformi64vARB,
        Uint64 => gldbg_proto::api::ids::glGetUniformui64vARB,
    };
    if !crate::intercept::resolve::available(getter) {
        return None;
    }
    let words = get_uniform(prog, loc, kind);
    let n = (cols * rows) as usize;
    let boolean = (0x8B56..=0x8B59).contains(&ty);
    // Float, int and uint values are packed 32-bit values in the words.
    let half = |i: usize| (words[i / 2] >> (32 * (i % 2))) as u32;
    let parts: Vec<String> = (0..n)
        .map(|i| match kind {
            Float => gldbg_proto::api::float_text(f32::from_bits(half(i)) as f64, true),
            Double => gldbg_proto::api::float_text(f64::from_bits(words[i]), false),
            Int if boolean => (half(i) != 0).to_string(),
            Int => (half(i) as i32).to_string(),
            Uint => format!("{}u", half(i)),
            Int64 => format!("{}l", words[i] as i64),
            Uint64 => format!("{}ul", words[i]),
        })
        .collect();
    if n == 1 {
        return parts.into_iter().next();
    }
    let prefix = match (kind, boolean) {
        (_, true) => "b",
        (Float, _) => "",
        (Double, _) => "d",
        (Int, _) => "i",
        (Uint, _) => "u",
        (Int64, _) => "i64",
        (Uint64, _) => "u64",
    };
    let ty_name = match (cols, rows) {
        (1, r) => format!("{prefix}vec{r}"),
        (c, r) if c == r => format!("{prefix}mat{c}"),
        (c, r) => format!("{prefix}mat{c}x{r}"),
    };
    Some(format!("{ty_name}({})", parts.join(", ")))
}

pub fn uniform_block_index(prog: u32, name: &str) -> u32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetUniformBlockIndex(prog, c.as_mut_ptr().cast()) }
}
pub fn uniform_block_name(prog: u32, index: u32) -> String {
    // SAFETY: see the module comment; the buffer holds `size` bytes.
    gl_string(512, |size, len, buf| unsafe {
        real::glGetActiveUniformBlockName(prog, index, size, len, buf)
    })
}
pub fn uniform_block_param(prog: u32, index: u32, pname: u32) -> i32 {
    let mut v = [0i32; 64];
    // SAFETY: see the module comment (single-valued pnames only).
    unsafe { real::glGetActiveUniformBlockiv(prog, index, pname, p(&mut v)) };
    v[0]
}
pub fn uniform_block_binding(prog: u32, index: u32, binding: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glUniformBlockBinding(prog, index, binding) }
}
pub fn active_uniform_param(prog: u32, index: u32, pname: u32) -> i32 {
    let mut idx = index;
    let mut v = 0i32;
    // SAFETY: see the module comment; one index, one result.
    unsafe { real::glGetActiveUniformsiv(prog, 1, p(&mut idx), pname, p(&mut v)) };
    v
}
pub fn program_interface_i(prog: u32, interface: u32, pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetProgramInterfaceiv(prog, interface, pname, p(&mut v)) };
    v
}
pub fn program_resource_name(prog: u32, interface: u32, index: u32) -> String {
    // SAFETY: see the module comment; the buffer holds `size` bytes.
    gl_string(512, |size, len, buf| unsafe {
        real::glGetProgramResourceName(prog, interface, index, size, len, buf)
    })
}
pub fn program_resource_location(prog: u32, interface: u32, name: &str) -> i32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetProgramResourceLocation(prog, interface, c.as_mut_ptr().cast()) }
}

/// Raw uniform value of `prog` at `loc`, read as the given base kind into 16 words.
pub fn get_uniform(prog: u32, loc: i32, kind: UniformKind) -> [u64; 16] {
    let mut v = [0u64; 16];
    // SAFETY: see the module comment; 16 words hold a dmat4.
    unsafe {
        match kind {
            UniformKind::Float => real::glGetUniformfv(prog, loc, p(&mut v)),
            UniformKind::Int => real::glGetUniformiv(prog, loc, p(&mut v)),
            UniformKind::Uint => real::glGetUniformuiv(prog, loc, p(&mut v)),
            UniformKind::Double => real::glGetUniformdv(prog, loc, p(&mut v)),
            UniformKind::Int64 => real::glGetUniformi64vARB(prog, loc, p(&mut v)),
            UniformKind::Uint64 => real::glGetUniformui64vARB(prog, loc, p(&mut v)),
        }
    }
    v
}

/// Scalar kind of a uniform's components.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UniformKind {
    Float,
    Int,
    Uint,
    Double,
    /// `GL_ARB_gpu_shader_int64`'s types: one word per component.
    Int64,
    Uint64,
}

/// (kind, columns, rows) of a uniform type; samplers, images and unknown
/// opaque types are one `int`.
pub fn uniform_shape(ty: u32) -> (UniformKind, u32, u32) {
    use UniformKind::*;
    match ty {
        0x1406 => (Float, 1, 1),
        0x8B50 => (Float, 1, 2),
        0x8B51 => (Float, 1, 3),
        0x8B52 => (Float, 1, 4),
        0x1404 | 0x8B56 => (Int, 1, 1),
        0x8B53 | 0x8B57 => (Int, 1, 2),
        0x8B54 | 0x8B58 => (Int, 1, 3),
        0x8B55 | 0x8B59 => (Int, 1, 4),
        0x1405 => (Uint, 1, 1),
        0x8DC6 => (Uint, 1, 2),
        0x8DC7 => (Uint, 1, 3),
        0x8DC8 => (Uint, 1, 4),
        0x140E => (Int64, 1, 1),
        0x8FE9 => (Int64, 1, 2),
        0x8FEA => (Int64, 1, 3),
        0x8FEB => (Int64, 1, 4),
        0x140F => (Uint64, 1, 1),
        0x8FF5 => (Uint64, 1, 2),
        0x8FF6 => (Uint64, 1, 3),
        0x8FF7 => (Uint64, 1, 4),
        0x140A => (Double, 1, 1),
        0x8FFC => (Double, 1, 2),
        0x8FFD => (Double, 1, 3),
        0x8FFE => (Double, 1, 4),
        0x8B5A => (Float, 2, 2),
        0x8B5B => (Float, 3, 3),
        0x8B5C => (Float, 4, 4),
        0x8B65 => (Float, 2, 3),
        0x8B66 => (Float, 2, 4),
        0x8B67 => (Float, 3, 2),
        0x8B68 => (Float, 3, 4),
        0x8B69 => (Float, 4, 2),
        0x8B6A => (Float, 4, 3),
        0x8F46 => (Double, 2, 2),
        0x8F47 => (Double, 3, 3),
        0x8F48 => (Double, 4, 4),
        0x8F49 => (Double, 2, 3),
        0x8F4A => (Double, 2, 4),
        0x8F4B => (Double, 3, 2),
        0x8F4C => (Double, 3, 4),
        0x8F4D => (Double, 4, 2),
        0x8F4E => (Double, 4, 3),
        _ => (Int, 1, 1),
    }
}

/// Set one uniform (one array element) of the *current* program from raw words
/// as read by [`get_uniform`].
pub fn set_uniform(loc: i32, ty: u32, v: &[u64; 16]) {
    use UniformKind::*;
    let (kind, cols, rows) = uniform_shape(ty);
    let ptr = v.as_ptr() as *mut c_void;
    // SAFETY: see the module comment; `v` holds at least cols*rows components of `kind`.
    unsafe {
        match (kind, cols, rows) {
            (Float, 1, 1) => real::glUniform1fv(loc, 1, ptr),
            (Float, 1, 2) => real::glUniform2fv(loc, 1, ptr),
            (Float, 1, 3) => real::glUniform3fv(loc, 1, ptr),
            (Float, 1, 4) => real::glUniform4fv(loc, 1, ptr),
            (Int, 1, 1) => real::glUniform1iv(loc, 1, ptr),
            (Int, 1, 2) => real::glUniform2iv(loc, 1, ptr),
            (Int, 1, 3) => real::glUniform3iv(loc, 1, ptr),
            (Int, 1, 4) => real::glUniform4iv(loc, 1, ptr),
            (Uint, 1, 1) => real::glUniform1uiv(loc, 1, ptr),
            (Uint, 1, 2) => real::glUniform2uiv(loc, 1, ptr),
            (Uint, 1, 3) => real::glUniform3uiv(loc, 1, ptr),
            (Uint, 1, 4) => real::glUniform4uiv(loc, 1, ptr),
            (Int64, 1, 1) => real::glUniform1i64vARB(loc, 1, ptr),
            (Int64, 1, 2) => real::glUniform2i64vARB(loc, 1, ptr),
            (Int64, 1, 3) => real::glUniform3i64vARB(loc, 1, ptr),
            (Int64, 1, 4) => real::glUniform4i64vARB(loc, 1, ptr),
            (Uint64, 1, 1) => real::glUniform1ui64vARB(loc, 1, ptr),
            (Uint64, 1, 2) => real::glUniform2ui64vARB(loc, 1, ptr),
            (Uint64, 1, 3) => real::glUniform3ui64vARB(loc, 1, ptr),
            (Uint64, 1, 4) => real::glUniform4ui64vARB(loc, 1, ptr),
            (Double, 1, 1) => real::glUniform1dv(loc, 1, ptr),
            (Double, 1, 2) => real::glUniform2dv(loc, 1, ptr),
            (Double, 1, 3) => real::glUniform3dv(loc, 1, ptr),
            (Double, 1, 4) => real::glUniform4dv(loc, 1, ptr),
            (Float, 2, 2) => real::glUniformMatrix2fv(loc, 1, FALSE, ptr),
            (Float, 3, 3) => real::glUniformMatrix3fv(loc, 1, FALSE, ptr),
            (Float, 4, 4) => real::glUniformMatrix4fv(loc, 1, FALSE, ptr),
            (Float, 2, 3) => real::glUniformMatrix2x3fv(loc, 1, FALSE, ptr),
            (Float, 2, 4) => real::glUniformMatrix2x4fv(loc, 1, FALSE, ptr),
            (Float, 3, 2) => real::glUniformMatrix3x2fv(loc, 1, FALSE, ptr),
            (Float, 3, 4) => real::glUniformMatrix3x4fv(loc, 1, FALSE, ptr),
            (Float, 4, 2) => real::glUniformMatrix4x2fv(loc, 1, FALSE, ptr),
            (Float, 4, 3) => real::glUniformMatrix4x3fv(loc, 1, FALSE, ptr),
            (Double, 2, 2) => real::glUniformMatrix2dv(loc, 1, FALSE, ptr),
            (Double, 3, 3) => real::glUniformMatrix3dv(loc, 1, FALSE, ptr),
            (Double, 4, 4) => real::glUniformMatrix4dv(loc, 1, FALSE, ptr),
            (Double, 2, 3) => real::glUniformMatrix2x3dv(loc, 1, FALSE, ptr),
            (Double, 2, 4) => real::glUniformMatrix2x4dv(loc, 1, FALSE, ptr),
            (Double, 3, 2) => real::glUniformMatrix3x2dv(loc, 1, FALSE, ptr),
            (Double, 3, 4) => real::glUniformMatrix3x4dv(loc, 1, FALSE, ptr),
            (Double, 4, 2) => real::glUniformMatrix4x2dv(loc, 1, FALSE, ptr),
            (Double, 4, 3) => real::glUniformMatrix4x3dv(loc, 1, FALSE, ptr),
            _ => {}
        }
    }
}
pub fn uniform_1iv(loc: i32, v: &[i32]) {
    // SAFETY: see the module comment; `v.len()` ints.
    unsafe { real::glUniform1iv(loc, v.len() as i32, v.as_ptr() as *mut c_void) }
}

/// Size of the default framebuffer from the window system (GLX or EGL,
/// whichever has a current context; only already loaded libraries are asked).
pub fn window_size() -> Option<(i32, i32)> {
    use crate::intercept::resolve::ptr_noload;
    use gldbg_proto::api::ids;
    let loaded = |id: u32| ptr_noload(id).is_some();
    if loaded(ids::glXGetCurrentContext) && loaded(ids::glXQueryDrawable) {
        // SAFETY: GLX is loaded; the current display/drawable belong to this thread's context.
        unsafe {
            if !real::glXGetCurrentContext().is_null() {
                let dpy = real::glXGetCurrentDisplay();
                let draw = real::glXGetCurrentDrawable();
                if !dpy.is_null() && draw != 0 {
                    let (mut w, mut h) = (0u32, 0u32);
                    real::glXQueryDrawable(dpy, draw, GLX_WIDTH, p(&mut w));
                    real::glXQueryDrawable(dpy, draw, GLX_HEIGHT, p(&mut h));
                    if w > 0 && h > 0 {
                        return Some((w as i32, h as i32));
                    }
                }
            }
        }
    }
    if loaded(ids::eglGetCurrentContext) && loaded(ids::eglQuerySurface) {
        // SAFETY: EGL is loaded; the current display/surface belong to this thread's context.
        unsafe {
            if !real::eglGetCurrentContext().is_null() {
                let dpy = real::eglGetCurrentDisplay();
                let surf = real::eglGetCurrentSurface(EGL_DRAW);
                if !dpy.is_null() && !surf.is_null() {
                    let (mut w, mut h) = (0i32, 0i32);
                    real::eglQuerySurface(dpy, surf, EGL_WIDTH, p(&mut w));
                    real::eglQuerySurface(dpy, surf, EGL_HEIGHT, p(&mut h));
                    if w > 0 && h > 0 {
                        return Some((w, h));
                    }
                }
            }
        }
    }
    None
}

// Subroutines (GL 4.0) and storage blocks (GL 4.3).
pub fn program_stage_i(prog: u32, stage: u32, pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetProgramStageiv(prog, stage, pname, p(&mut v)) };
    v
}
/// The subroutine index selected at `loc` of `stage` in the *current* program.
pub fn uniform_subroutine(stage: u32, loc: i32) -> u32 {
    let mut v = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGetUniformSubroutineuiv(stage, loc, p(&mut v)) };
    v
}
/// Select the subroutines of every location of `stage` in the current program.
pub fn uniform_subroutines(stage: u32, indices: &[u32]) {
    // SAFETY: see the module comment; `indices.len()` values.
    unsafe {
        real::glUniformSubroutinesuiv(stage, indices.len() as i32, indices.as_ptr() as *mut c_void)
    }
}
pub fn active_subroutine_uniform_name(prog: u32, stage: u32, index: u32) -> String {
    // SAFETY: see the module comment; the buffer holds `size` bytes.
    gl_string(256, |size, len, buf| unsafe {
        real::glGetActiveSubroutineUniformName(prog, stage, index, size, len, buf)
    })
}
pub fn active_subroutine_name(prog: u32, stage: u32, index: u32) -> String {
    // SAFETY: see the module comment; the buffer holds `size` bytes.
    gl_string(256, |size, len, buf| unsafe {
        real::glGetActiveSubroutineName(prog, stage, index, size, len, buf)
    })
}
pub fn subroutine_uniform_location(prog: u32, stage: u32, name: &str) -> i32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetSubroutineUniformLocation(prog, stage, c.as_mut_ptr().cast()) }
}
pub fn subroutine_index(prog: u32, stage: u32, name: &str) -> u32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetSubroutineIndex(prog, stage, c.as_mut_ptr().cast()) }
}
pub fn program_resource_index(prog: u32, interface: u32, name: &str) -> u32 {
    let mut c = cname(name);
    // SAFETY: see the module comment; NUL-terminated name.
    unsafe { real::glGetProgramResourceIndex(prog, interface, c.as_mut_ptr().cast()) }
}
/// One integer property of a program resource.
pub fn program_resource_i(prog: u32, interface: u32, index: u32, prop: u32) -> i32 {
    let mut props = [prop];
    let mut v = [0i32; 4];
    let mut len = 0i32;
    // SAFETY: see the module comment; one property, room for 4 values.
    unsafe {
        real::glGetProgramResourceiv(
            prog,
            interface,
            index,
            1,
            p(&mut props),
            4,
            p(&mut len),
            p(&mut v),
        )
    };
    v[0]
}
pub fn shader_storage_block_binding(prog: u32, index: u32, binding: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glShaderStorageBlockBinding(prog, index, binding) }
}

/// The stages a separable program pipeline can hold, vertex first.
pub const ALL_STAGES: [u32; 6] = [
    VERTEX_SHADER,
    0x8E88, // GL_TESS_CONTROL_SHADER
    0x8E87, // GL_TESS_EVALUATION_SHADER
    0x8DD9, // GL_GEOMETRY_SHADER
    FRAGMENT_SHADER,
    0x91B9, // GL_COMPUTE_SHADER
];
/// `glGetProgramPipelineiv` (a stage's enum as `pname`: its program).
pub fn program_pipeline_i(pipeline: u32, pname: u32) -> i32 {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetProgramPipelineiv(pipeline, pname, p(&mut v)) };
    v[0]
}
