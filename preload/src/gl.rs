//! GL constants and small safe wrappers over the real GL functions, for the
//! executor.
//!
//! Every function here calls the *real* function (never our wrappers), on the
//! app thread that is stopped inside a wrapper, with the app's context
//! current. Out-pointers always point at local buffers of the size the query
//! writes. A GL error from a wrong enum is harmless: the executor drains and
//! discards its own errors.

#![allow(missing_docs)]

use crate::generated::real;
use core::ffi::c_void;

pub const NONE: u32 = 0;
pub const FALSE: u8 = 0;
pub const TRUE: u8 = 1;
pub const DEPTH_BUFFER_BIT: u32 = 0x0100;
pub const COLOR_BUFFER_BIT: u32 = 0x4000;
pub const STENCIL_BUFFER_BIT: u32 = 0x0400;
pub const BLEND: u32 = 0x0BE2;
/// Compatibility contexts only: `glCallLists`' offset.
pub const LIST_BASE: u32 = 0x0B32;
pub const DEPTH_TEST: u32 = 0x0B71;
pub const PRIMITIVE_RESTART: u32 = 0x8F9D;
pub const PRIMITIVE_RESTART_FIXED_INDEX: u32 = 0x8D69;
pub const STENCIL_TEST: u32 = 0x0B90;
/// Faces of per-face state (stencil masks).
pub const FRONT: u32 = 0x0404;
pub const BACK: u32 = 0x0405;
pub const FRONT_AND_BACK: u32 = 0x0408;
/// Compatibility contexts only.
pub const ALPHA_TEST: u32 = 0x0BC0;
pub const CONTEXT_PROFILE_MASK: u32 = 0x9126;
pub const CONTEXT_COMPATIBILITY_PROFILE_BIT: i32 = 0x2;
pub const SCISSOR_TEST: u32 = 0x0C11;
pub const RASTERIZER_DISCARD: u32 = 0x8C89;
pub const COLOR_WRITEMASK: u32 = 0x0C23;
pub const DEPTH_WRITEMASK: u32 = 0x0B72;
pub const STENCIL_WRITEMASK: u32 = 0x0B98;
pub const STENCIL_BACK_WRITEMASK: u32 = 0x8CA5;
pub const VIEWPORT: u32 = 0x0BA2;
pub const VERSION: u32 = 0x1F02;
pub const MAX_DRAW_BUFFERS: u32 = 0x8824;
pub const CURRENT_PROGRAM: u32 = 0x8B8D;
pub const PROGRAM_PIPELINE_BINDING: u32 = 0x825A;
pub const ACTIVE_PROGRAM: u32 = 0x8259;
pub const DRAW_FRAMEBUFFER_BINDING: u32 = 0x8CA6;
pub const READ_FRAMEBUFFER_BINDING: u32 = 0x8CAA;
pub const RENDERBUFFER_BINDING: u32 = 0x8CA7;
pub const PIXEL_PACK_BUFFER: u32 = 0x88EB;
pub const PIXEL_PACK_BUFFER_BINDING: u32 = 0x88ED;
pub const PACK_SWAP_BYTES: u32 = 0x0D00;
pub const PACK_ROW_LENGTH: u32 = 0x0D02;
pub const PACK_SKIP_ROWS: u32 = 0x0D03;
pub const PACK_SKIP_PIXELS: u32 = 0x0D04;
pub const PACK_ALIGNMENT: u32 = 0x0D05;
pub const CLAMP_READ_COLOR: u32 = 0x891C;
pub const FRAMEBUFFER: u32 = 0x8D40;
pub const READ_FRAMEBUFFER: u32 = 0x8CA8;
pub const DRAW_FRAMEBUFFER: u32 = 0x8CA9;
pub const RENDERBUFFER: u32 = 0x8D41;
pub const TEXTURE: u32 = 0x1702;
pub const FRAMEBUFFER_COMPLETE: u32 = 0x8CD5;
pub const COLOR_ATTACHMENT0: u32 = 0x8CE0;
pub const DEPTH_ATTACHMENT: u32 = 0x8D00;
pub const STENCIL_ATTACHMENT: u32 = 0x8D20;
pub const DEPTH_STENCIL_ATTACHMENT: u32 = 0x821A;
pub const DEPTH: u32 = 0x1801;
pub const STENCIL: u32 = 0x1802;
pub const COLOR: u32 = 0x1800;
pub const DEPTH_STENCIL: u32 = 0x84F9;
pub const FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE: u32 = 0x8CD0;
pub const FRAMEBUFFER_ATTACHMENT_OBJECT_NAME: u32 = 0x8CD1;
pub const FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL: u32 = 0x8CD2;
pub const FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE: u32 = 0x8211;
pub const FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE: u32 = 0x8216;
pub const FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE: u32 = 0x8217;
pub const RENDERBUFFER_WIDTH: u32 = 0x8D42;
pub const RENDERBUFFER_INTERNAL_FORMAT: u32 = 0x8D44;
pub const RENDERBUFFER_HEIGHT: u32 = 0x8D43;
pub const TEXTURE_WIDTH: u32 = 0x1000;
pub const TEXTURE_HEIGHT: u32 = 0x1001;
pub const RGBA32F: u32 = 0x8814;
pub const R8: u32 = 0x8229;
pub const R32F: u32 = 0x822E;
pub const DEPTH24_STENCIL8: u32 = 0x88F0;
pub const DEPTH32F_STENCIL8: u32 = 0x8CAD;
pub const DEPTH_COMPONENT16: u32 = 0x81A5;
pub const DEPTH_COMPONENT24: u32 = 0x81A6;
pub const DEPTH_COMPONENT32: u32 = 0x81A7;
pub const DEPTH_COMPONENT32F: u32 = 0x8CAC;
pub const STENCIL_INDEX8: u32 = 0x8D48;
pub const FLOAT: u32 = 0x1406;
pub const RGBA: u32 = 0x1908;
pub const UNSIGNED_BYTE: u32 = 0x1401;
pub const RED: u32 = 0x1903;
pub const RG: u32 = 0x8227;
pub const RGB: u32 = 0x1907;
pub const NEAREST: u32 = 0x2600;
pub const FRAGMENT_SHADER: u32 = 0x8B30;
pub const VERTEX_SHADER: u32 = 0x8B31;
pub const COMPILE_STATUS: u32 = 0x8B81;
pub const LINK_STATUS: u32 = 0x8B82;
pub const INFO_LOG_LENGTH: u32 = 0x8B84;
pub const ATTACHED_SHADERS: u32 = 0x8B85;
pub const ACTIVE_UNIFORMS: u32 = 0x8B86;
pub const ACTIVE_UNIFORM_MAX_LENGTH: u32 = 0x8B87;
pub const SHADER_SOURCE_LENGTH: u32 = 0x8B88;
pub const ACTIVE_ATTRIBUTES: u32 = 0x8B89;
pub const ACTIVE_ATTRIBUTE_MAX_LENGTH: u32 = 0x8B8A;
pub const SHADER_TYPE: u32 = 0x8B4F;
pub const ACTIVE_UNIFORM_BLOCKS: u32 = 0x8A36;
pub const UNIFORM_BLOCK_BINDING: u32 = 0x8A3F;
pub const UNIFORM_BLOCK_INDEX: u32 = 0x8A3A;
pub const PROGRAM_OUTPUT: u32 = 0x92E4;
pub const ACTIVE_RESOURCES: u32 = 0x92F5;
pub const MAJOR_VERSION: u32 = 0x821B;
pub const TRANSFORM_FEEDBACK_ACTIVE: u32 = 0x8E24;
pub const ACTIVE_SUBROUTINE_UNIFORMS: u32 = 0x8DE6;
pub const ACTIVE_SUBROUTINE_UNIFORM_LOCATIONS: u32 = 0x8E47;
pub const SHADER_STORAGE_BLOCK: u32 = 0x92E6;
pub const BUFFER_BINDING: u32 = 0x9302;
/// The stages that can have subroutine uniforms in a draw's program.
pub const DRAW_STAGES: [u32; 5] = [0x8B31, 0x8E88, 0x8E87, 0x8DD9, 0x8B30];
pub const TRANSFORM_FEEDBACK_PAUSED: u32 = 0x8E23;
pub const MINOR_VERSION: u32 = 0x821C;
pub const TESS_CONTROL_OUTPUT_VERTICES: u32 = 0x8E75;
pub const PATCH_VERTICES: u32 = 0x8E72;
pub const TESS_CONTROL_SHADER: u32 = 0x8E88;
pub const ISOLINES: u32 = 0x8E7A;
pub const TESS_GEN_POINT_MODE: u32 = 0x8E79;
pub const TESS_GEN_MODE: u32 = 0x8E76;
pub const GEOMETRY_OUTPUT_TYPE: u32 = 0x8918;
pub const TESS_EVALUATION_SHADER: u32 = 0x8E87;
pub const GEOMETRY_SHADER: u32 = 0x8DD9;

pub const GLX_WIDTH: i32 = 0x801D;
pub const GLX_HEIGHT: i32 = 0x801E;
pub const EGL_WIDTH: i32 = 0x3057;
pub const EGL_HEIGHT: i32 = 0x3056;
pub const EGL_DRAW: i32 = 0x3059;

#[inline]
fn p<T>(x: &mut T) -> *mut c_void {
    (x as *mut T).cast()
}

/// A string GL writes into a caller's buffer of `capacity` bytes (NUL
/// included) and whose length it reports: `fill(buf_size, length, buffer)`
/// makes the GL call.
fn gl_string(capacity: usize, fill: impl FnOnce(i32, *mut c_void, *mut c_void)) -> String {
    let mut buf = vec![0u8; capacity];
    let mut len = 0i32;
    fill(buf.len() as i32, p(&mut len), buf.as_mut_ptr().cast());
    String::from_utf8_lossy(&buf[..(len.max(0) as usize).min(capacity - 1)]).into_owned()
}

// SAFETY (for every `unsafe` block below unless it says otherwise): a real
// GL entry point called on the stopped app thread with its context current;
// out-pointers point at live local buffers at least as large as the query's
// result; in-pointers point at live data of the length passed.

pub fn get_error() -> u32 {
    // SAFETY: see the module comment.
    unsafe { real::glGetError() }
}
pub fn get_i(pname: u32) -> i32 {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment (4 ints cover every query used here).
    unsafe { real::glGetIntegerv(pname, p(&mut v)) };
    v[0]
}
pub fn get_i4(pname: u32) -> [i32; 4] {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetIntegerv(pname, p(&mut v)) };
    v
}
pub fn get_b(pname: u32) -> u8 {
    let mut v = [0u8; 16];
    // SAFETY: see the module comment.
    unsafe { real::glGetBooleanv(pname, p(&mut v)) };
    v[0]
}
pub fn get_b4_indexed(pname: u32, i: u32) -> [u8; 4] {
    let mut v = [0u8; 16];
    // SAFETY: see the module comment.
    unsafe { real::glGetBooleani_v(pname, i, p(&mut v)) };
    [v[0], v[1], v[2], v[3]]
}
/// [`get_b4_indexed`] through `glGetIntegeri_v` (GL ES 3.0 has no `glGetBooleani_v`).
pub fn get_i4_indexed_as_b4(pname: u32, i: u32) -> [u8; 4] {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetIntegeri_v(pname, i, p(&mut v)) };
    v.map(|x| u8::from(x != 0))
}
pub fn is_enabled(cap: u32) -> bool {
    // SAFETY: see the module comment.
    unsafe { real::glIsEnabled(cap) != 0 }
}
pub fn is_enabledi(cap: u32, i: u32) -> bool {
    // SAFETY: see the module comment.
    unsafe { real::glIsEnabledi(cap, i) != 0 }
}
pub fn set_enabled(cap: u32, on: bool) {
    // SAFETY: see the module comment.
    unsafe {
        if on {
            real::glEnable(cap)
        } else {
            real::glDisable(cap)
        }
    }
}
pub fn set_enabledi(cap: u32, i: u32, on: bool) {
    // SAFETY: see the module comment.
    unsafe {
        if on {
            real::glEnablei(cap, i)
        } else {
            real::glDisablei(cap, i)
        }
    }
}
pub fn has_version() -> bool {
    // SAFETY: see the module comment; glGetString returns a static string or null.
    unsafe { !real::glGetString(VERSION).is_null() }
}
pub fn color_maski(i: u32, m: [u8; 4]) {
    // SAFETY: see the module comment.
    unsafe { real::glColorMaski(i, m[0], m[1], m[2], m[3]) }
}
pub fn depth_mask(on: u8) {
    // SAFETY: see the module comment.
    unsafe { real::glDepthMask(on) }
}
pub fn stencil_mask_separate(face: u32, mask: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glStencilMaskSeparate(face, mask) }
}
pub fn pixel_store(pname: u32, v: i32) {
    // SAFETY: see the module comment.
    unsafe { real::glPixelStorei(pname, v) }
}
pub fn clamp_color(target: u32, v: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glClampColor(target, v) }
}
/// Pause (`true`) or resume the active transform feedback.
pub fn pause_transform_feedback(pause: bool) {
    // SAFETY: see the module comment.
    unsafe {
        if pause {
            real::glPauseTransformFeedback()
        } else {
            real::glResumeTransformFeedback()
        }
    }
}
pub fn bind_buffer(target: u32, b: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindBuffer(target, b) }
}
pub fn use_program(prog: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glUseProgram(prog) }
}
pub fn bind_framebuffer(target: u32, fb: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindFramebuffer(target, fb) }
}
pub fn bind_renderbuffer(rb: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindRenderbuffer(RENDERBUFFER, rb) }
}
pub fn gen_framebuffer() -> u32 {
    let mut v = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenFramebuffers(1, p(&mut v)) };
    v
}
pub fn is_framebuffer(fb: u32) -> bool {
    // SAFETY: see the module comment.
    unsafe { real::glIsFramebuffer(fb) != 0 }
}
pub fn is_renderbuffer(rb: u32) -> bool {
    // SAFETY: see the module comment.
    unsafe { real::glIsRenderbuffer(rb) != 0 }
}
pub fn delete_framebuffer(mut fb: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteFramebuffers(1, p(&mut fb)) }
}
pub fn gen_renderbuffer() -> u32 {
    let mut v = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenRenderbuffers(1, p(&mut v)) };
    v
}
pub fn delete_renderbuffer(mut rb: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteRenderbuffers(1, p(&mut rb)) }
}
pub fn renderbuffer_storage(format: u32, w: i32, h: i32) {
    // SAFETY: see the module comment.
    unsafe { real::glRenderbufferStorage(RENDERBUFFER, format, w, h) }
}
pub fn get_renderbuffer_param(pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetRenderbufferParameteriv(RENDERBUFFER, pname, p(&mut v)) };
    v
}
pub fn framebuffer_renderbuffer(target: u32, attachment: u32, rb: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glFramebufferRenderbuffer(target, attachment, RENDERBUFFER, rb) }
}
pub fn check_framebuffer_status(target: u32) -> u32 {
    // SAFETY: see the module comment.
    unsafe { real::glCheckFramebufferStatus(target) }
}
pub fn fb_attachment_param(target: u32, attachment: u32, pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetFramebufferAttachmentParameteriv(target, attachment, pname, p(&mut v)) };
    v
}
pub fn texture_level_param(tex: u32, level: i32, pname: u32) -> i32 {
    let mut v = 0i32;
    // SAFETY: see the module comment (DSA query; the caller checks availability).
    unsafe { real::glGetTextureLevelParameteriv(tex, level, pname, p(&mut v)) };
    v
}
pub fn draw_buffers(bufs: &[u32]) {
    // SAFETY: see the module comment.
    unsafe { real::glDrawBuffers(bufs.len() as i32, bufs.as_ptr() as *mut c_void) }
}
pub fn read_buffer(b: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glReadBuffer(b) }
}
pub fn clear_buffer_fv(buffer: u32, drawbuffer: i32, v: [f32; 4]) {
    // SAFETY: see the module comment.
    unsafe { real::glClearBufferfv(buffer, drawbuffer, v.as_ptr() as *mut c_void) }
}
pub fn clear_buffer_fi(depth: f32, stencil: i32) {
    // SAFETY: see the module comment.
    unsafe { real::glClearBufferfi(DEPTH_STENCIL, 0, depth, stencil) }
}
pub fn clear_buffer_depth(depth: f32) {
    clear_buffer_fv(DEPTH, 0, [depth, 0.0, 0.0, 0.0]);
}
pub fn clear_buffer_stencil(stencil: i32) {
    let v = [stencil, 0, 0, 0];
    // SAFETY: see the module comment.
    unsafe { real::glClearBufferiv(STENCIL, 0, v.as_ptr() as *mut c_void) }
}
#[allow(clippy::too_many_arguments)]
pub fn blit_framebuffer(w: i32, h: i32, mask: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBlitFramebuffer(0, 0, w, h, 0, 0, w, h, mask, NEAREST) }
}
/// `glReadPixels` into `dst`, which must hold `w*h*components*4` bytes.
pub fn read_pixels_f32(w: i32, h: i32, format: u32, dst: &mut [u8]) {
    let comps = match format {
        RGBA => 4,
        RGB => 3,
        RG => 2,
        _ => 1,
    };
    assert!(dst.len() >= (w as usize) * (h as usize) * comps * 4);
    // SAFETY: see the module comment; `dst` is large enough (asserted) and pack state is tight.
    unsafe { real::glReadPixels(0, 0, w, h, format, FLOAT, dst.as_mut_ptr().cast()) }
}

/// `glReadPixels` of a `w` x `h` single-channel image as normalized
/// unsigned bytes into `dst` (`w*h` bytes).
pub fn read_pixels_red_u8(w: i32, h: i32, dst: &mut [u8]) {
    assert!(dst.len() >= (w as usize) * (h as usize));
    // SAFETY: see the module comment; `dst` is large enough (asserted) and pack state is tight.
    unsafe { real::glReadPixels(0, 0, w, h, RED, UNSIGNED_BYTE, dst.as_mut_ptr().cast()) }
}
/// The red channel of the pixel at (`x`, `y`) as a float.
pub fn read_pixel_red_f32(x: i32, y: i32) -> f32 {
    let mut v = [0f32; 4];
    // SAFETY: see the module comment; one RED/FLOAT pixel fits in `v`.
    unsafe { real::glReadPixels(x, y, 1, 1, RED, FLOAT, v.as_mut_ptr().cast()) };
    v[0]
}

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

/// NUL-terminated copy for GL name parameters.
fn cname(name: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(name.len() + 1);
    v.extend_from_slice(name.as_bytes());
    v.push(0);
    v
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

// ----- transform feedback capture (vertex debug steps) -----

pub const POINTS: u32 = 0x0000;
pub const LINES: u32 = 0x0001;
pub const LINE_STRIP: u32 = 0x0003;
pub const TRIANGLES: u32 = 0x0004;
pub const TRANSFORM_FEEDBACK: u32 = 0x8E22;
pub const TRANSFORM_FEEDBACK_BINDING: u32 = 0x8E25;
pub const TRANSFORM_FEEDBACK_BUFFER: u32 = 0x8C8E;
pub const TRANSFORM_FEEDBACK_BUFFER_BINDING: u32 = 0x8C8F;
pub const INTERLEAVED_ATTRIBS: u32 = 0x8C8C;
pub const TRANSFORM_FEEDBACK_VARYINGS: u32 = 0x8C83;
pub const STREAM_READ: u32 = 0x88E1;
pub const MAP_READ_BIT: u32 = 0x0001;

pub fn gen_buffer() -> u32 {
    let mut b = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenBuffers(1, p(&mut b)) };
    b
}
pub fn delete_buffer(mut b: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteBuffers(1, p(&mut b)) }
}
/// Storage of `data.len()` bytes for the buffer bound at `target`, filled from `data`.
pub fn buffer_data(target: u32, data: &[u8], usage: u32) {
    // SAFETY: see the module comment; `data` holds `len` bytes.
    unsafe {
        real::glBufferData(
            target,
            data.len() as i64,
            data.as_ptr() as *mut c_void,
            usage,
        )
    }
}
/// Storage of `size` bytes, contents undefined, for the buffer bound at `target`.
pub fn buffer_data_uninit(target: u32, size: i64, usage: u32) {
    // SAFETY: see the module comment; a null pointer asks for no initial data.
    unsafe { real::glBufferData(target, size, core::ptr::null_mut(), usage) }
}
/// Copy the first `out.len()` bytes of the buffer bound at `target` into `out`.
pub fn get_buffer_bytes(target: u32, out: &mut [u8], es: bool) {
    get_buffer_bytes_at(target, 0, out, es)
}
pub fn bind_buffer_base(target: u32, index: u32, b: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindBufferBase(target, index, b) }
}
pub fn gen_transform_feedback() -> u32 {
    let mut t = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenTransformFeedbacks(1, p(&mut t)) };
    t
}
pub fn delete_transform_feedback(mut t: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteTransformFeedbacks(1, p(&mut t)) }
}
pub fn bind_transform_feedback(t: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBindTransformFeedback(TRANSFORM_FEEDBACK, t) }
}
/// Capture `names` interleaved, in this order (before linking).
pub fn transform_feedback_varyings(prog: u32, names: &[&str]) {
    let owned: Vec<Vec<u8>> = names.iter().map(|n| cname(n)).collect();
    let mut ptrs: Vec<*const u8> = owned.iter().map(|n| n.as_ptr()).collect();
    // SAFETY: see the module comment; `ptrs` holds `len` NUL-terminated names.
    unsafe {
        real::glTransformFeedbackVaryings(
            prog,
            ptrs.len() as i32,
            ptrs.as_mut_ptr().cast(),
            INTERLEAVED_ATTRIBS,
        )
    }
}
pub fn begin_transform_feedback(mode: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBeginTransformFeedback(mode) }
}
pub fn end_transform_feedback() {
    // SAFETY: see the module comment.
    unsafe { real::glEndTransformFeedback() }
}

// Compute debugging: indexed buffer bindings, buffer copies, barriers.
pub const COMPUTE_SHADER: u32 = 0x91B9;
pub const COMPUTE_WORK_GROUP_SIZE: u32 = 0x8267;
pub const SHADER_STORAGE_BUFFER: u32 = 0x90D2;
pub const SHADER_STORAGE_BUFFER_BINDING: u32 = 0x90D3;
pub const SHADER_STORAGE_BUFFER_START: u32 = 0x90D4;
pub const SHADER_STORAGE_BUFFER_SIZE: u32 = 0x90D5;
pub const MAX_SHADER_STORAGE_BUFFER_BINDINGS: u32 = 0x90DD;
pub const ATOMIC_COUNTER_BUFFER: u32 = 0x92C0;
pub const ATOMIC_COUNTER_BUFFER_BINDING: u32 = 0x92C1;
pub const ATOMIC_COUNTER_BUFFER_START: u32 = 0x92C2;
pub const ATOMIC_COUNTER_BUFFER_SIZE: u32 = 0x92C3;
pub const MAX_ATOMIC_COUNTER_BUFFER_BINDINGS: u32 = 0x92DC;
pub const COPY_READ_BUFFER: u32 = 0x8F36;
pub const COPY_WRITE_BUFFER: u32 = 0x8F37;
pub const BUFFER_SIZE: u32 = 0x8764;
pub const DISPATCH_INDIRECT_BUFFER: u32 = 0x90EE;
pub const DISPATCH_INDIRECT_BUFFER_BINDING: u32 = 0x90EF;
pub const ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;
pub const DYNAMIC_COPY: u32 = 0x88EA;
pub const MAX_IMAGE_UNITS: u32 = 0x8F38;
pub const IMAGE_BINDING_NAME: u32 = 0x8F3A;
pub const IMAGE_BINDING_ACCESS: u32 = 0x8F3E;
pub const READ_ONLY: u32 = 0x88B8;

/// `glBlendFuncSeparate[i]`: (src rgb, dst rgb, src alpha, dst alpha) of
/// draw buffer `buffer`, or of all of them.
pub fn blend_func_separate(buffer: Option<u32>, f: [u32; 4]) {
    // SAFETY: see the module comment.
    unsafe {
        match buffer {
            Some(i) => real::glBlendFuncSeparatei(i, f[0], f[1], f[2], f[3]),
            None => real::glBlendFuncSeparate(f[0], f[1], f[2], f[3]),
        }
    }
}
pub fn get_i_indexed(pname: u32, i: u32) -> i32 {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetIntegeri_v(pname, i, p(&mut v)) };
    v[0]
}
pub fn get_i64_indexed(pname: u32, i: u32) -> i64 {
    let mut v = [0i64; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetInteger64i_v(pname, i, p(&mut v)) };
    v[0]
}
pub fn bind_buffer_range(target: u32, index: u32, b: u32, offset: i64, size: i64) {
    // SAFETY: see the module comment.
    unsafe { real::glBindBufferRange(target, index, b, offset, size) }
}
/// Size in bytes of the buffer bound at `target`.
pub fn buffer_size(target: u32) -> i64 {
    let mut v = 0i64;
    // SAFETY: see the module comment.
    unsafe { real::glGetBufferParameteri64v(target, BUFFER_SIZE, p(&mut v)) };
    v
}
/// The usage hint of the buffer bound at `target` (`GL_BUFFER_USAGE`).
pub fn buffer_usage(target: u32) -> u32 {
    const BUFFER_USAGE: u32 = 0x8765;
    let mut v = 0i32;
    // SAFETY: see the module comment.
    unsafe { real::glGetBufferParameteriv(target, BUFFER_USAGE, p(&mut v)) };
    v as u32
}
pub fn copy_buffer_sub_data(read: u32, write: u32, size: i64) {
    // SAFETY: see the module comment.
    unsafe { real::glCopyBufferSubData(read, write, 0, 0, size) }
}
pub fn is_buffer(b: u32) -> bool {
    // SAFETY: see the module comment.
    b != 0 && unsafe { real::glIsBuffer(b) } != 0
}
pub fn memory_barrier(bits: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glMemoryBarrier(bits) }
}
/// Three integers of a program (e.g. `GL_COMPUTE_WORK_GROUP_SIZE`).
pub fn get_program_i3(prog: u32, pname: u32) -> [i32; 3] {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetProgramiv(prog, pname, p(&mut v)) };
    [v[0], v[1], v[2]]
}
pub fn uniform_3ui(loc: i32, v: [u32; 3]) {
    // SAFETY: see the module comment.
    unsafe { real::glUniform3ui(loc, v[0], v[1], v[2]) }
}
/// Run `f` over the first `len` bytes of the buffer bound at `target`,
/// mapped for reading (`None` when it cannot be mapped); unmapped after.
pub fn with_mapped<T>(target: u32, len: usize, f: impl FnOnce(&[u8]) -> T) -> Option<T> {
    if len == 0 {
        return Some(f(&[]));
    }
    // SAFETY: see the module comment; the mapping holds `len` readable
    // bytes until glUnmapBuffer, and `f` cannot keep the slice.
    unsafe {
        let m = real::glMapBufferRange(target, 0, len as i64, MAP_READ_BIT);
        if m.is_null() {
            return None;
        }
        let r = f(core::slice::from_raw_parts(m.cast::<u8>(), len));
        real::glUnmapBuffer(target);
        Some(r)
    }
}
/// Copy `out.len()` bytes at `offset` of the buffer bound at `target` into `out`.
pub fn get_buffer_bytes_at(target: u32, offset: i64, out: &mut [u8], es: bool) {
    if out.is_empty() {
        return;
    }
    // SAFETY: see the module comment; `out` holds `len` bytes; a mapping is
    // read only while mapped and unmapped before returning.
    unsafe {
        if es {
            let m = real::glMapBufferRange(target, offset, out.len() as i64, MAP_READ_BIT);
            if !m.is_null() {
                core::ptr::copy_nonoverlapping(m.cast::<u8>(), out.as_mut_ptr(), out.len());
                real::glUnmapBuffer(target);
            }
        } else {
            real::glGetBufferSubData(target, offset, out.len() as i64, out.as_mut_ptr().cast());
        }
    }
}

// Image snapshots (DSA, GL 4.5).
pub const TEXTURE_TARGET: u32 = 0x1006;
pub const TEXTURE_INTERNAL_FORMAT: u32 = 0x1003;
pub const TEXTURE_DEPTH: u32 = 0x8071;
pub const TEXTURE_1D: u32 = 0x0DE0;
pub const TEXTURE_2D: u32 = 0x0DE1;
pub const TEXTURE_3D: u32 = 0x806F;
pub const TEXTURE_1D_ARRAY: u32 = 0x8C18;
pub const TEXTURE_2D_ARRAY: u32 = 0x8C1A;
pub const TEXTURE_RECTANGLE: u32 = 0x84F5;
pub const TEXTURE_CUBE_MAP: u32 = 0x8513;
pub const TEXTURE_CUBE_MAP_ARRAY: u32 = 0x9009;
pub const IMAGE_BINDING_LEVEL: u32 = 0x8F3B;

pub fn texture_param_i(tex: u32, pname: u32) -> i32 {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment (DSA query; the caller checks availability).
    unsafe { real::glGetTextureParameteriv(tex, pname, p(&mut v)) };
    v[0]
}
pub fn create_texture(target: u32) -> u32 {
    let mut t = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glCreateTextures(target, 1, p(&mut t)) };
    t
}
pub fn delete_texture(mut t: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteTextures(1, p(&mut t)) }
}
/// Immutable storage of one level: 1D (`h` = `d` = 1), 2D-shaped
/// (1D arrays, rectangles, cube maps: `d` = 1) or 3D-shaped (3D, arrays).
pub fn texture_storage(tex: u32, dims: u32, format: u32, w: i32, h: i32, d: i32) {
    // SAFETY: see the module comment.
    unsafe {
        match dims {
            1 => real::glTextureStorage1D(tex, 1, format, w),
            2 => real::glTextureStorage2D(tex, 1, format, w, h),
            _ => real::glTextureStorage3D(tex, 1, format, w, h, d),
        }
    }
}
/// Copy `size` texels (width, height, depth or layers) from level
/// `levels.0` of `src` to level `levels.1` of `dst`, two textures of `target`.
pub fn copy_image(target: u32, src: u32, dst: u32, levels: (i32, i32), size: [i32; 3]) {
    let [w, h, d] = size;
    // SAFETY: see the module comment.
    unsafe {
        real::glCopyImageSubData(
            src, target, levels.0, 0, 0, 0, dst, target, levels.1, 0, 0, 0, w, h, d,
        )
    }
}

/// The query active on `target` (0: none): `glGetQueryiv(GL_CURRENT_QUERY)`.
pub fn current_query(target: u32) -> u32 {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetQueryiv(target, 0x8865, p(&mut v)) };
    v[0] as u32
}
pub fn uniform_1ui(loc: i32, v: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glUniform1ui(loc, v) }
}

pub const EXTENSIONS: u32 = 0x1F03;

/// `glGetString(name)` (empty where GL returns null).
pub fn get_string(name: u32) -> String {
    // SAFETY: see the module comment; GL returns a static NUL-terminated string or null.
    let p = unsafe { real::glGetString(name) };
    if p.is_null() {
        return String::new();
    }
    // SAFETY: non-null strings from GL are NUL-terminated.
    unsafe { core::ffi::CStr::from_ptr(p.cast()) }
        .to_string_lossy()
        .into_owned()
}

/// Whether the context lists `name` among its extensions (GL 3.0+ / ES 3.0+:
/// `glGetStringi`).
pub fn has_extension(name: &str) -> bool {
    let n = get_i(0x821D).clamp(0, 4096) as u32; // GL_NUM_EXTENSIONS
    (0..n).any(|i| {
        // SAFETY: see the module comment; GL returns a static NUL-terminated string or null.
        let p = unsafe { real::glGetStringi(0x1F03, i) }; // GL_EXTENSIONS
        // SAFETY: non-null strings from GL are NUL-terminated.
        !p.is_null() && unsafe { core::ffi::CStr::from_ptr(p.cast()) }.to_bytes() == name.as_bytes()
    })
}

// ----- query objects (queries.rs) -----

pub const CURRENT_QUERY: u32 = 0x8865;
pub const QUERY_RESULT: u32 = 0x8866;
pub const QUERY_RESULT_AVAILABLE: u32 = 0x8867;
pub const QUERY_RESULT_NO_WAIT: u32 = 0x9194;
pub const QUERY_BUFFER: u32 = 0x9192;
pub const QUERY_BUFFER_BINDING: u32 = 0x9193;

pub fn gen_query() -> u32 {
    let mut q = 0u32;
    // SAFETY: see the module comment.
    unsafe { real::glGenQueries(1, p(&mut q)) };
    q
}
pub fn delete_query(mut q: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glDeleteQueries(1, p(&mut q)) }
}
/// `glBeginQuery`, or `glBeginQueryIndexed` for a vertex stream above 0.
pub fn begin_query(target: u32, index: u32, q: u32) {
    // SAFETY: see the module comment.
    unsafe {
        if index == 0 {
            real::glBeginQuery(target, q)
        } else {
            real::glBeginQueryIndexed(target, index, q)
        }
    }
}
pub fn end_query(target: u32, index: u32) {
    // SAFETY: see the module comment.
    unsafe {
        if index == 0 {
            real::glEndQuery(target)
        } else {
            real::glEndQueryIndexed(target, index)
        }
    }
}
/// The query active on `target`'s vertex stream `index` (0: none).
pub fn current_query_indexed(target: u32, index: u32) -> u32 {
    if index == 0 {
        return current_query(target);
    }
    let mut v = [0i32; 4];
    // SAFETY: see the module comment.
    unsafe { real::glGetQueryIndexediv(target, index, CURRENT_QUERY, p(&mut v)) };
    v[0] as u32
}
/// A query object's `pname` (result, availability) as 64 bits where the
/// context has `glGetQueryObjectui64v`, else through the 32-bit query.
/// The caller unbinds `GL_QUERY_BUFFER` (else GL writes into that buffer).
pub fn query_object_u64(q: u32, pname: u32) -> u64 {
    use gldbg_proto::api::ids;
    let mut v = [0u64; 2];
    // SAFETY: see the module comment.
    unsafe {
        if crate::intercept::resolve::available(ids::glGetQueryObjectui64v) {
            real::glGetQueryObjectui64v(q, pname, p(&mut v));
        } else {
            real::glGetQueryObjectuiv(q, pname, p(&mut v));
            v[0] &= 0xffff_ffff;
        }
    }
    v[0]
}
pub fn buffer_sub_data(target: u32, offset: usize, data: &[u8]) {
    // SAFETY: see the module comment; `data` holds `len` bytes.
    unsafe {
        real::glBufferSubData(
            target,
            offset as i64,
            data.len() as i64,
            data.as_ptr() as *mut c_void,
        )
    }
}
pub fn named_buffer_sub_data(buffer: u32, offset: usize, data: &[u8]) {
    // SAFETY: see the module comment; `data` holds `len` bytes.
    unsafe {
        real::glNamedBufferSubData(
            buffer,
            offset as i64,
            data.len() as i64,
            data.as_ptr() as *mut c_void,
        )
    }
}
pub fn begin_conditional_render(q: u32, mode: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBeginConditionalRender(q, mode) }
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
