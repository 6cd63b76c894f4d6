//! What an OpenGL ES context offers the debug steps, and what a step
//! needs that it lacks: each step asks before it touches any GL state, so
//! a context that cannot run it gets an error naming the missing feature
//! and the app's state is never half changed.
//!
//! Desktop GL contexts pass every check here (their needs are checked
//! where each step starts).

use crate::gl;

use super::context::es_version as version;

/// `GL_HIGH_FLOAT` (shader precision formats).
const HIGH_FLOAT: u32 = 0x8DF2;

/// Whether the context lists `name` among its extensions. ES 2.0 has no
/// `glGetStringi` (nor `GL_NUM_EXTENSIONS`): the one string is searched.
fn has_extension(name: &str, (major, _): (i32, i32)) -> bool {
    if major >= 3 {
        return gl::has_extension(name);
    }
    gl::get_string(gl::EXTENSIONS)
        .split_ascii_whitespace()
        .any(|e| e == name)
}

fn describe((major, minor): (i32, i32)) -> String {
    format!("this context is OpenGL ES {major}.{minor}")
}

/// Why the fragment step cannot run in this context, if it cannot: it
/// renders a float value and a float coverage into two render targets of
/// its own (multiple render targets, float color buffers) and reads them
/// back as floats, with the blend state and color mask set per buffer.
pub(crate) fn fragment_unsupported() -> Option<String> {
    let v = version()?;
    if v.0 < 3 {
        // es2.rs: the values' bits in RGBA8 outputs, through draw buffers.
        if !has_extension("GL_EXT_draw_buffers", v) {
            return Some(format!(
                "fragment debugging needs several render targets (OpenGL ES 3.0 or \
                 GL_EXT_draw_buffers), which this context lacks; {}",
                describe(v)
            ));
        }
        if !fragment_highp() {
            return Some(format!(
                "fragment debugging without float render targets packs 32-bit floats \
                 into bytes, which needs highp floats in fragment shaders; {} and has none",
                describe(v)
            ));
        }
        return None;
    }
    if v < (3, 2) && !has_extension("GL_EXT_color_buffer_float", v) {
        return Some(format!(
            "fragment debugging needs float render targets (OpenGL ES 3.2 or \
             GL_EXT_color_buffer_float), which this context lacks; {}",
            describe(v)
        ));
    }
    if v < (3, 2)
        && !has_extension("GL_OES_draw_buffers_indexed", v)
        && !has_extension("GL_EXT_draw_buffers_indexed", v)
    {
        return Some(format!(
            "fragment debugging needs blending and color masks per draw buffer (OpenGL ES \
             3.2 or GL_OES_draw_buffers_indexed), which this context lacks; {}",
            describe(v)
        ));
    }
    None
}

/// Whether per-buffer state is read with `glGetBooleani_v` (desktop GL,
/// ES 3.1+); ES 3.0 reads it with `glGetIntegeri_v`.
pub(crate) fn has_get_booleani() -> bool {
    version().is_none_or(|v| v >= (3, 1))
}

/// Whether the context has storage buffers, atomic counters and image
/// units (desktop GL: asked by the callers; ES: 3.1 and later).
pub(crate) fn has_shader_writes() -> bool {
    version().is_none_or(|v| v >= (3, 1))
}

/// Whether fragment shaders have 32-bit floats here (`highp`).
fn fragment_highp() -> bool {
    let (mut range, mut precision) = ([0i32; 2], 0i32);
    // SAFETY: a real GL entry point on the stopped app thread; it writes two
    // ints to `range` and one to `precision`, both local.
    unsafe {
        crate::generated::real::glGetShaderPrecisionFormat(
            gl::FRAGMENT_SHADER,
            HIGH_FLOAT,
            range.as_mut_ptr().cast(),
            (&mut precision as *mut i32).cast(),
        )
    };
    precision >= 23
}
