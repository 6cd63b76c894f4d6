//! Blend functions across a debug replay (any stage).
//!
//! A replay writes its debug values unblended, and GL checks the blend
//! functions of every draw buffer at the draw, enabled or not (Mesa): a
//! function that reads the second source of dual-source blending
//! (`GL_SRC1_COLOR` ...) on more draw buffers than
//! `GL_MAX_DUAL_SOURCE_DRAW_BUFFERS` makes the draw fail with
//! `GL_INVALID_OPERATION`. [`Neutral`] sets (ONE, ZERO) on every draw
//! buffer while it lives and puts the app's functions back when dropped.

use crate::gl;

const BLEND_SRC_RGB: u32 = 0x80C9;
const BLEND_DST_RGB: u32 = 0x80C8;
const BLEND_SRC_ALPHA: u32 = 0x80CB;
const BLEND_DST_ALPHA: u32 = 0x80CA;
const ONE: u32 = 1;
const ZERO: u32 = 0;

/// The app's blend functions, saved; (ONE, ZERO) set while this lives.
pub struct Neutral {
    /// (src rgb, dst rgb, src alpha, dst alpha) per draw buffer, or one
    /// entry for all of them where GL has no per-buffer functions.
    funcs: Vec<[u32; 4]>,
}

const PNAMES: [u32; 4] = [
    BLEND_SRC_RGB,
    BLEND_DST_RGB,
    BLEND_SRC_ALPHA,
    BLEND_DST_ALPHA,
];

fn indexed() -> bool {
    super::context::gl_at_least(4, 0) && !super::context::is_es()
}

impl Neutral {
    /// Save the functions of draw buffers `0..draw_buffers` and set (ONE, ZERO).
    pub fn set(draw_buffers: u32) -> Neutral {
        let funcs = if indexed() {
            (0..draw_buffers)
                .map(|i| PNAMES.map(|p| gl::get_i_indexed(p, i) as u32))
                .collect()
        } else {
            vec![PNAMES.map(|p| gl::get_i(p) as u32)]
        };
        gl::blend_func_separate(None, [ONE, ZERO, ONE, ZERO]);
        Neutral { funcs }
    }
}

impl Drop for Neutral {
    fn drop(&mut self) {
        match self.funcs.as_slice() {
            [all] if !indexed() => gl::blend_func_separate(None, *all),
            per_buffer => {
                for (i, f) in per_buffer.iter().enumerate() {
                    gl::blend_func_separate(Some(i as u32), *f);
                }
            }
        }
    }
}
