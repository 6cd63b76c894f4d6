//! A point print's fragment replay limited to its pixel: every scissor
//! rectangle the draw may use is narrowed to that pixel (intersected with
//! the app's where it scissors), so the GPU shades the pixel's 2x2 quad
//! (helper invocations keep derivatives as they were) instead of the whole
//! draw: on an H100 the 1080p replay of a loop shader took ~0.9 ms of a
//! 1.5 ms `print @`. The same fragments reach the pixel in the same order,
//! so its value and coverage are those of the whole replay. Every other
//! pixel is left unshaded: a point readback must then never fall back to
//! reading the images whole (`readback.rs` knows it is scissored). The
//! app's rectangles and enables come back when the guard drops.

use crate::gl;

/// The scissor state narrowed to one pixel; restored on drop.
pub(crate) struct PixelScissor {
    /// Per viewport (`None`: the one rectangle of a context without
    /// viewport arrays): the app's rectangle and whether it scissored.
    saved: Vec<(Option<u32>, [i32; 4], bool)>,
}

impl PixelScissor {
    /// Narrow every scissor rectangle to pixel (`x`, `y`) of the draw
    /// framebuffer, each intersected with its rectangle where the replay
    /// scissors (as the app's state stands for it). `None`: this context's
    /// scissors cannot be narrowed and put back here (GL ES viewport
    /// arrays have only `OES` entry points).
    pub(crate) fn narrow(pixel: (i32, i32)) -> Option<PixelScissor> {
        PixelScissor::set(pixel, true)
    }

    /// Every scissor rectangle set to pixel (`x`, `y`) alone, whatever the
    /// app's (a pixel history records the fragments its scissor rejects).
    pub(crate) fn only(pixel: (i32, i32)) -> Option<PixelScissor> {
        PixelScissor::set(pixel, false)
    }

    fn set((x, y): (i32, i32), keep_app: bool) -> Option<PixelScissor> {
        let viewports = match viewport_arrays()? {
            true => gl::get_i(gl::MAX_VIEWPORTS).clamp(1, 64) as u32,
            false => 0,
        };
        let indices: Vec<Option<u32>> = match viewports {
            0 => vec![None],
            n => (0..n).map(Some).collect(),
        };
        let saved: Vec<_> = indices
            .iter()
            .map(|&i| {
                let on = match i {
                    Some(i) => gl::is_enabledi(gl::SCISSOR_TEST, i),
                    None => gl::is_enabled(gl::SCISSOR_TEST),
                };
                (i, gl::scissor_box(i), on)
            })
            .collect();
        for &(i, app, on) in &saved {
            let pixel = [x, y, 1, 1];
            gl::set_scissor(
                i,
                if on && keep_app {
                    intersect(app, pixel)
                } else {
                    pixel
                },
            );
        }
        gl::set_enabled(gl::SCISSOR_TEST, true);
        Some(PixelScissor { saved })
    }
}

impl Drop for PixelScissor {
    fn drop(&mut self) {
        for &(i, app, on) in &self.saved {
            gl::set_scissor(i, app);
            if let Some(i) = i {
                gl::set_enabledi(gl::SCISSOR_TEST, i, on);
            }
        }
        if let [(None, _, on)] = self.saved[..] {
            gl::set_enabled(gl::SCISSOR_TEST, on);
        }
    }
}

/// Whether the context has several viewports with their own scissors;
/// `None` for GL ES with `GL_OES_viewport_array` (not handled: no narrowing).
fn viewport_arrays() -> Option<bool> {
    use super::context::{es_version, gl_at_least};
    match es_version() {
        Some(_) => (!gl::has_extension("GL_OES_viewport_array")).then_some(false),
        None => Some(gl_at_least(4, 1) || gl::has_extension("GL_ARB_viewport_array")),
    }
}

/// The intersection of two rectangles (x, y, width, height); empty (zero
/// size) when they do not meet.
fn intersect([ax, ay, aw, ah]: [i32; 4], [bx, by, bw, bh]: [i32; 4]) -> [i32; 4] {
    let (x0, y0) = (ax.max(bx), ay.max(by));
    let x1 = (ax.saturating_add(aw)).min(bx.saturating_add(bw));
    let y1 = (ay.saturating_add(ah)).min(by.saturating_add(bh));
    [x0, y0, (x1 - x0).max(0), (y1 - y0).max(0)]
}

#[cfg(test)]
mod tests {
    use super::intersect;

    #[test]
    fn a_pixel_meets_a_rectangle_or_nothing() {
        assert_eq!(intersect([0, 0, 100, 50], [10, 20, 1, 1]), [10, 20, 1, 1]);
        assert_eq!(
            intersect([0, 0, 10, 20], [10, 5, 1, 1])[2],
            0,
            "right edge is out"
        );
        assert_eq!(intersect([5, 5, 10, 10], [4, 6, 1, 1])[2], 0, "left of it");
        assert_eq!(intersect([5, 5, 10, 10], [14, 14, 1, 1]), [14, 14, 1, 1]);
        assert_eq!(intersect([5, 5, 10, 10], [14, 15, 1, 1])[3], 0, "above it");
    }
}
