//! Pixel reads whose memory safety does not depend on the caller's pack
//! state: a read into our memory sets the state that moves where GL writes
//! (pack buffer, skipped rows and pixels) for itself and puts it back; a
//! read into a buffer object binds that buffer itself (GL bounds-checks
//! writes into a buffer object).

use super::*;

/// The pack state that moves where `glReadPixels` writes, set tight for
/// one read and put back on drop.
struct TightPack {
    /// (parameter, the caller's value), set to 0 for the read.
    params: Vec<(u32, i32)>,
    /// The caller's pack buffer, unbound for the read (contexts with one).
    buffer: Option<u32>,
}

impl TightPack {
    /// No pack buffer, no row length, nothing skipped. OpenGL ES 2.0 and
    /// 1.x have none of these (only the alignment, which does not move the
    /// first row); desktop GL before 2.1 has no pack buffer.
    fn set() -> TightPack {
        let version = get_string(VERSION);
        let es = version.starts_with("OpenGL ES");
        let number = version
            .trim_start_matches(|c: char| !c.is_ascii_digit())
            .split(|c: char| !c.is_ascii_digit() && c != '.')
            .next()
            .unwrap_or("");
        let mut parts = number.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
        let at = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
        let (skips, buffers) = match es {
            true => (at >= (3, 0), at >= (3, 0)),
            false => (true, at >= (2, 1)),
        };
        let mut t = TightPack {
            params: Vec::new(),
            buffer: None,
        };
        if buffers {
            let b = get_i(PIXEL_PACK_BUFFER_BINDING) as u32;
            if b != 0 {
                bind_buffer(PIXEL_PACK_BUFFER, 0);
                t.buffer = Some(b);
            }
        }
        if skips {
            for p in [PACK_ROW_LENGTH, PACK_SKIP_ROWS, PACK_SKIP_PIXELS] {
                let v = get_i(p);
                if v != 0 {
                    pixel_store(p, 0);
                    t.params.push((p, v));
                }
            }
        }
        t
    }
}

impl Drop for TightPack {
    fn drop(&mut self) {
        for &(p, v) in &self.params {
            pixel_store(p, v);
        }
        if let Some(b) = self.buffer {
            bind_buffer(PIXEL_PACK_BUFFER, b);
        }
    }
}

/// The number of float channels of a read `format` (RED, RG, RGB, RGBA).
fn channels(format: u32) -> usize {
    match format {
        RGBA => 4,
        RGB => 3,
        RG => 2,
        _ => 1,
    }
}

/// The pixel at (`x`, `y`) of the read buffer as `format` floats (their
/// bits; unread channels 0), whatever pack state the caller left.
pub fn read_pixel_words(x: i32, y: i32, format: u32) -> [u32; 4] {
    let mut v = [0u32; 4];
    let _tight = TightPack::set();
    debug_assert!(channels(format) <= v.len());
    // SAFETY: see the module comment; with no pack buffer bound and nothing
    // skipped, one pixel of at most four floats is written at `v`'s start
    // (the alignment pads only between rows; there is one).
    unsafe { real::glReadPixels(x, y, 1, 1, format, FLOAT, v.as_mut_ptr().cast()) };
    v
}

/// The pixel at (`x`, `y`) of the read framebuffer as `format` (`RGBA`,
/// `RGBA_INTEGER`, `DEPTH_COMPONENT`, `STENCIL_INDEX`) of 32-bit `ty`
/// (`FLOAT`, `INT`, `UNSIGNED_INT`): at most four words, unread ones 0.
pub fn read_pixel_as(x: i32, y: i32, format: u32, ty: u32) -> [u32; 4] {
    let mut v = [0u32; 4];
    let _tight = TightPack::set();
    // SAFETY: see the module comment; one pixel of at most four 32-bit
    // components (every format asked here) is written at `v`'s start.
    unsafe { real::glReadPixels(x, y, 1, 1, format, ty, v.as_mut_ptr().cast()) };
    v
}

/// The read buffer's `w` x `h` floats of `format` into buffer object
/// `buffer` at offset 0 (bound as the pack buffer for the read; the pack
/// buffer binding is put back). GL refuses a read that does not fit.
pub fn read_pixels_to_buffer(buffer: u32, w: i32, h: i32, format: u32) {
    let old = get_i(PIXEL_PACK_BUFFER_BINDING) as u32;
    bind_buffer(PIXEL_PACK_BUFFER, buffer);
    // The binding must have taken (a context without pack buffers raises
    // an error instead): else the null offset would be a client pointer.
    if buffer != 0 && get_i(PIXEL_PACK_BUFFER_BINDING) as u32 == buffer {
        // SAFETY: see the module comment; with a pack buffer bound the
        // pointer is an offset (0) into it and GL checks the write against
        // the buffer's size.
        unsafe { real::glReadPixels(0, 0, w, h, format, FLOAT, core::ptr::null_mut()) };
    }
    bind_buffer(PIXEL_PACK_BUFFER, old);
}

/// `glDispatchCompute` of `x` x `y` x `z` work groups with the current
/// compute program (no memory of ours is involved).
pub fn dispatch_compute(x: u32, y: u32, z: u32) {
    // SAFETY: see the module comment; no pointers.
    unsafe { real::glDispatchCompute(x, y, z) }
}
