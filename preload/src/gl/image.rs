//! Textures and images: snapshots of writable images (DSA, GL 4.5).

#[allow(unused_imports)]
use super::*;

// SAFETY (for every `unsafe` block below unless it says otherwise): as in
// the parent module's comment: a real GL entry point called on the stopped
// app thread with its context current; out-pointers point at live local
// buffers at least as large as the query's result; in-pointers point at
// live data of the length passed.

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
