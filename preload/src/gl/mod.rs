//! GL constants and small safe wrappers over the real GL functions, for the
//! executor.
//!
//! Every function here calls the *real* function (never our wrappers), on the
//! app thread that is stopped inside a wrapper, with the app's context
//! current. Out-pointers always point at local buffers of the size the query
//! writes. A GL error from a wrong enum is harmless: the executor drains and
//! discards its own errors. State queries and framebuffers are here; the
//! rest by concern in [`program`], [`buffer`], [`image`], [`pixels`] and
//! [`query`].

#![allow(missing_docs)]

use crate::generated::real;
use core::ffi::c_void;

mod buffer;
mod history;
mod image;
mod pixels;
mod program;
mod query;

pub use buffer::*;
pub use history::*;
pub use image::*;
pub use pixels::*;
pub use program::*;
pub use query::*;

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
pub const RENDERER: u32 = 0x1F01;
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
pub const TRANSFORM_FEEDBACK_VARYING: u32 = 0x92F4;
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

/// NUL-terminated copy for GL name parameters.
fn cname(name: &str) -> Vec<u8> {
    let mut v = Vec::with_capacity(name.len() + 1);
    v.extend_from_slice(name.as_bytes());
    v.push(0);
    v
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

pub const SCISSOR_BOX: u32 = 0x0C10;
pub const MAX_VIEWPORTS: u32 = 0x825B;

/// The scissor rectangle (x, y, width, height), of viewport `i` where the
/// context has several (`None`: the one rectangle of older contexts).
pub fn scissor_box(i: Option<u32>) -> [i32; 4] {
    let mut v = [0i32; 4];
    // SAFETY: see the module comment (a scissor box is 4 ints).
    unsafe {
        match i {
            Some(i) => real::glGetIntegeri_v(SCISSOR_BOX, i, p(&mut v)),
            None => real::glGetIntegerv(SCISSOR_BOX, p(&mut v)),
        }
    }
    v
}
/// Set the scissor rectangle (of viewport `i`, or the one of older contexts).
pub fn set_scissor(i: Option<u32>, [x, y, w, h]: [i32; 4]) {
    // SAFETY: see the module comment.
    unsafe {
        match i {
            Some(i) => real::glScissorIndexed(i, x, y, w, h),
            None => real::glScissor(x, y, w, h),
        }
    }
}
