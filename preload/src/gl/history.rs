//! What a pixel history reads of the GL (`replay/texel.rs`,
//! `replay/history.rs`): attachments and their formats, the fragment
//! tests' state, pixel rectangles copied between framebuffers.

#[allow(unused_imports)]
use super::*;

// SAFETY (for every `unsafe` block below unless it says otherwise): as in
// the parent module's comment: a real GL entry point called on the stopped
// app thread with its context current; out-pointers point at live local
// buffers at least as large as the query's result.

pub const DRAW_BUFFER0: u32 = 0x8825;
pub const READ_BUFFER: u32 = 0x0C02;
pub const BACK_LEFT: u32 = 0x0402;
pub const FRONT_LEFT: u32 = 0x0400;
pub const FRAMEBUFFER_ATTACHMENT_TEXTURE_LAYER: u32 = 0x8CD4;
pub const FRAMEBUFFER_ATTACHMENT_RED_SIZE: u32 = 0x8212;
pub const FRAMEBUFFER_ATTACHMENT_GREEN_SIZE: u32 = 0x8213;
pub const FRAMEBUFFER_ATTACHMENT_BLUE_SIZE: u32 = 0x8214;
pub const FRAMEBUFFER_ATTACHMENT_ALPHA_SIZE: u32 = 0x8215;
pub const FRAMEBUFFER_ATTACHMENT_COLOR_ENCODING: u32 = 0x8210;
pub const SRGB: u32 = 0x8C40;
pub const INT: u32 = 0x1404;
pub const UNSIGNED_INT: u32 = 0x1405;
pub const RGBA_INTEGER: u32 = 0x8D99;
pub const DEPTH_COMPONENT: u32 = 0x1902;
pub const STENCIL_INDEX: u32 = 0x1901;
pub const SAMPLES_PASSED: u32 = 0x8914;
pub const ANY_SAMPLES_PASSED: u32 = 0x8C2F;
pub const DEPTH_FUNC: u32 = 0x0B74;
pub const STENCIL_FUNC: u32 = 0x0B92;
pub const STENCIL_VALUE_MASK: u32 = 0x0B93;
pub const STENCIL_REF: u32 = 0x0B97;
pub const STENCIL_BACK_FUNC: u32 = 0x8800;
pub const STENCIL_BACK_REF: u32 = 0x8CA3;
pub const STENCIL_BACK_VALUE_MASK: u32 = 0x8CA4;
pub const ALPHA_TEST_FUNC: u32 = 0x0BC1;
pub const ALPHA_TEST_REF: u32 = 0x0BC2;
pub const RGBA8: u32 = 0x8058;
pub const RGB8: u32 = 0x8051;
pub const SRGB8_ALPHA8: u32 = 0x8C43;
pub const SRGB8: u32 = 0x8C41;
pub const RGB10_A2: u32 = 0x8059;
pub const RGB565: u32 = 0x8D62;
pub const RGBA16F: u32 = 0x881A;
pub const RGBA8I: u32 = 0x8D8E;
pub const RGBA8UI: u32 = 0x8D7C;
pub const RGBA16I: u32 = 0x8D88;
pub const RGBA16UI: u32 = 0x8D76;
pub const RGBA32I: u32 = 0x8D82;
pub const RGBA32UI: u32 = 0x8D70;
pub const RGBA16: u32 = 0x805B;
pub const RG8: u32 = 0x822B;
pub const RG32F: u32 = 0x8230;
pub const R16F: u32 = 0x822D;
pub const RG16F: u32 = 0x822F;
pub const R11F_G11F_B10F: u32 = 0x8C3A;
pub const SIGNED_NORMALIZED: u32 = 0x8F9C;
pub const UNSIGNED_NORMALIZED: u32 = 0x8C17;

pub fn get_f(pname: u32) -> f32 {
    let mut v = [0f32; 16];
    // SAFETY: see the module comment (16 floats cover every query used here).
    unsafe { real::glGetFloatv(pname, v.as_mut_ptr().cast()) };
    v[0]
}

/// Attach `level` of texture `tex` to the bound `target` framebuffer at
/// `att`: layer `layer` of a layered texture (>= 0), else the level whole.
pub fn framebuffer_texture(target: u32, att: u32, tex: u32, level: i32, layer: i32) {
    // SAFETY: see the module comment.
    unsafe {
        if layer >= 0 {
            real::glFramebufferTextureLayer(target, att, tex, level, layer)
        } else {
            real::glFramebufferTexture(target, att, tex, level)
        }
    }
}

/// Copy the one pixel (`x`, `y`) of the read framebuffer to the same pixel
/// of the draw framebuffer (`mask`: colour, depth, stencil bits).
pub fn blit_pixel(x: i32, y: i32, mask: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glBlitFramebuffer(x, y, x + 1, y + 1, x, y, x + 1, y + 1, mask, NEAREST) }
}

pub fn uniform_1i(loc: i32, v: i32) {
    // SAFETY: see the module comment.
    unsafe { real::glUniform1i(loc, v) }
}

pub fn uniform_2i(loc: i32, v: [i32; 2]) {
    // SAFETY: see the module comment.
    unsafe { real::glUniform2i(loc, v[0], v[1]) }
}

pub fn is_texture(t: u32) -> bool {
    // SAFETY: see the module comment.
    unsafe { real::glIsTexture(t) != 0 }
}

pub const FRAMEBUFFER_ATTACHMENT_LAYERED: u32 = 0x8DA7;
pub const TEXTURE_2D_MULTISAMPLE: u32 = 0x9100;

pub const SAMPLES: u32 = 0x80A9;

/// `glColorMask`: every draw buffer at once.
pub fn color_mask(m: [u8; 4]) {
    // SAFETY: see the module comment.
    unsafe { real::glColorMask(m[0], m[1], m[2], m[3]) }
}

pub const FRAMEBUFFER_ATTACHMENT_TEXTURE_CUBE_MAP_FACE: u32 = 0x8CD3;
pub const TEXTURE_CUBE_MAP_POSITIVE_X: u32 = 0x8515;
pub const TEXTURE_2D_MULTISAMPLE_ARRAY: u32 = 0x9102;

pub const ACTIVE_TEXTURE: u32 = 0x84E0;
pub const TEXTURE0: u32 = 0x84C0;

pub fn active_texture(unit: u32) {
    // SAFETY: see the module comment.
    unsafe { real::glActiveTexture(unit) }
}
