//! A CPU model of egl_history's frame (`scene::SCENE`): the final window and
//! texture, and the pixel history of one pixel or texel, as gldbg's
//! `history` must report it.
//!
//! Rules it follows (GL's, and what llvmpipe does for this scene): RGBA8
//! stores round(clamp(v) * 255); the window depth of NDC z is z * 0.5 + 0.5
//! in f32, a D24 buffer stores round(d * (2^24 - 1)); fragment tests in the
//! order scissor, fragment shader (discard), stencil, depth; stencil and
//! depth write only where the fragment passes; depth writes only with the
//! depth test on. Pixel centres never fall on a rectangle's edge; where one
//! falls on a rectangle's diagonal, which of its two triangles owns it is
//! left open (`primitive` panics for such a pixel: the tests avoid them).
//!
//! Blending is computed in f64 and rounded to nearest; the driver's fixed
//! point may differ by one step, so each value carries a `slack` (the
//! number of blends it went through) that the comparisons allow.

use super::scene::*;

/// The largest D24 value (depth 1.0).
pub const D24_MAX: u32 = (1 << 24) - 1;

/// Depth `d` in [0, 1] as a D24 buffer stores it.
pub fn d24(d: f64) -> u32 {
    (d * f64::from(D24_MAX)).round() as u32
}

/// The window depth of NDC `z` (default depth range), in f32 as the
/// viewport transform computes it.
pub fn window_depth(z: f32) -> f32 {
    z * 0.5 + 0.5
}

/// A colour channel `v` as RGBA8 stores it.
pub fn unorm8(v: f64) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// A byte as the float GL reads from RGBA8 (and as the app passes colours).
pub fn float8(b: u8) -> f32 {
    f32::from(b) / 255.0
}

/// One pixel of an image.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pixel {
    pub color: [u8; 4],
    /// Blends the colour went through (each may be one step off).
    pub slack: u8,
    /// D24 value; None where the image has no depth buffer.
    pub depth: Option<u32>,
    /// None where the image has no stencil buffer.
    pub stencil: Option<u8>,
}

/// An image with its depth and stencil: the window or the texture's framebuffer.
#[derive(Clone, Debug)]
pub struct Image {
    pub size: u32,
    pub pixels: Vec<Pixel>,
}

impl Image {
    fn new(size: u32, stencil: bool) -> Image {
        let p = Pixel {
            color: [0; 4],
            slack: 0,
            depth: Some(0),
            stencil: stencil.then_some(0),
        };
        Image {
            size,
            pixels: vec![p; (size * size) as usize],
        }
    }

    pub fn at(&self, x: u32, y: u32) -> Pixel {
        self.pixels[(y * self.size + x) as usize]
    }

    fn at_mut(&mut self, x: u32, y: u32) -> &mut Pixel {
        &mut self.pixels[(y * self.size + x) as usize]
    }
}

/// The window and the texture.
#[derive(Clone, Debug)]
pub struct Frame {
    pub window: Image,
    pub rtt: Image,
}

impl Frame {
    fn image(&mut self, t: Target) -> &mut Image {
        match t {
            Target::Window => &mut self.window,
            Target::Rtt => &mut self.rtt,
        }
    }
}

/// One fragment at the watched pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Fragment {
    pub primitive: u32,
    /// The fragment shader's output; None when discarded or scissored.
    pub output: Option<[f32; 4]>,
    /// The fragment's window depth.
    pub depth: f32,
    /// None: passed; else "scissor", "discard", "stencil" or "depth".
    pub rejected_by: Option<&'static str>,
    pub before: Pixel,
    pub after: Pixel,
}

/// One call of the frame that wrote the watched pixel.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub function: &'static str,
    /// The draw number counted from 1 at the frame's start (draws only).
    pub draw: Option<u32>,
    pub target: Target,
    pub before: Pixel,
    pub after: Pixel,
    /// Draws only: one per primitive covering the pixel, in primitive order.
    pub fragments: Vec<Fragment>,
}

/// The primitive of rectangle `i` of a draw covering pixel (x, y): 2i
/// below the diagonal from (x0, y0) to (x1, y1), 2i + 1 above; None on it.
pub fn primitive(r: &Rect, i: u32, x: u32, y: u32) -> Option<u32> {
    let (w, h) = (i64::from(r.x1 - r.x0), i64::from(r.y1 - r.y0));
    // Twice the centre's offset from (x0, y0), in integers.
    let (cx, cy) = (
        2 * i64::from(x) + 1 - 2 * i64::from(r.x0),
        2 * i64::from(y) + 1 - 2 * i64::from(r.y0),
    );
    match (w * cy - h * cx).signum() {
        -1 => Some(2 * i),
        1 => Some(2 * i + 1),
        _ => None,
    }
}

fn in_box(b: Scissor, x: u32, y: u32) -> bool {
    b.is_none_or(|[bx, by, bw, bh]| (bx..bx + bw).contains(&x) && (by..by + bh).contains(&y))
}

/// The blend of source `src` over destination `dst`.
fn blend(mode: Blend, src: [f32; 4], dst: [u8; 4]) -> [u8; 4] {
    let s = src.map(|c| f64::from(c).clamp(0.0, 1.0));
    let d = dst.map(|c| f64::from(c) / 255.0);
    let sa = s[3];
    std::array::from_fn(|c| {
        unorm8(match mode {
            Blend::Off => s[c],
            Blend::Alpha => s[c] * sa + d[c] * (1.0 - sa),
            Blend::Add => s[c] + d[c],
            Blend::Min => s[c].min(d[c]),
        })
    })
}

/// Runs fragment (x, y) of rectangle `r` of draw `d`; returns it.
fn fragment(d: &Draw, r: &Rect, prim: u32, x: u32, y: u32, frame: &mut Frame) -> Fragment {
    let depth = window_depth(r.z);
    let output = match d.mode {
        Mode::Plain => Some(r.rgba.map(float8)),
        Mode::Discard if x.is_multiple_of(2) => None,
        Mode::Discard => Some(r.rgba.map(float8)),
        Mode::Composite => Some(
            frame
                .rtt
                .at(x - COMPOSITE[0], y - COMPOSITE[1])
                .color
                .map(float8),
        ),
    };
    let image = frame.image(d.target);
    let before = image.at(x, y);
    let mut after = before;
    let rejected_by = if !in_box(d.scissor, x, y) {
        Some("scissor")
    } else if output.is_none() {
        Some("discard")
    } else if d.stencil == Stencil::Equal1 && before.stencil != Some(1) {
        Some("stencil")
    } else if d.depth_less && d24(f64::from(depth)) >= before.depth.unwrap() {
        Some("depth")
    } else {
        None
    };
    let output = if rejected_by == Some("scissor") {
        None
    } else {
        output
    };
    if rejected_by.is_none() {
        let out = output.unwrap();
        after.color = blend(d.blend, out, before.color);
        after.slack = match d.blend {
            Blend::Off => 0,
            Blend::Alpha => before.slack + 1,
            // Exact: sums and minimums of k/255 values.
            Blend::Add | Blend::Min => before.slack,
        };
        if d.stencil == Stencil::Write1 {
            after.stencil = Some(1);
        }
        if d.depth_less {
            after.depth = Some(d24(f64::from(depth)));
        }
        *image.at_mut(x, y) = after;
    }
    Fragment {
        primitive: prim,
        output,
        depth,
        rejected_by,
        before,
        after,
    }
}

/// What [`run`] watches: an image and a pixel of it.
pub type Watch = (Target, u32, u32);

/// Clears `image` inside `scissor`; whether that wrote the watched pixel.
fn clear(
    image: &mut Image,
    color: [f32; 4],
    depth_stencil: bool,
    scissor: Scissor,
    watched: Option<Watch>,
) -> bool {
    let mut touched = false;
    for y in 0..image.size {
        for x in 0..image.size {
            if !in_box(scissor, x, y) {
                continue;
            }
            let p = image.at_mut(x, y);
            p.color = color.map(|c| unorm8(f64::from(c)));
            p.slack = 0;
            if depth_stencil {
                p.depth = p.depth.map(|_| D24_MAX);
                p.stencil = p.stencil.map(|_| 0);
            }
            touched |= watched.is_some_and(|w| (w.1, w.2) == (x, y));
        }
    }
    touched
}

/// Runs op `op` (draw number `draw` if a draw) on `frame`; the entry of
/// the watched pixel if the op writes it.
fn run_op(op: &Op, draw: Option<u32>, frame: &mut Frame, watch: Option<Watch>) -> Option<Entry> {
    let watched = watch.filter(|w| w.0 == op.target());
    let before = watched.map(|(t, x, y)| frame.image(t).at(x, y));
    let mut fragments = Vec::new();
    let mut touched = false;
    match *op {
        Op::Clear {
            target,
            color,
            depth_stencil,
            scissor,
        } => touched = clear(frame.image(target), color, depth_stencil, scissor, watched),
        Op::ClearBuffer {
            target,
            color,
            scissor,
        } => touched = clear(frame.image(target), color, false, scissor, watched),
        Op::Draw(ref d) => {
            for (i, r) in d.rects.iter().enumerate() {
                for y in r.y0..r.y1 {
                    for x in r.x0..r.x1 {
                        let is_watched = watched.is_some_and(|w| (w.1, w.2) == (x, y));
                        let prim = primitive(r, i as u32, x, y);
                        if is_watched && prim.is_none() {
                            panic!(
                                "pixel ({x}, {y}) is on the diagonal of a rectangle of draw {draw:?}: which triangle owns it is the rasteriser's choice"
                            );
                        }
                        let f = fragment(d, r, prim.unwrap_or(2 * i as u32), x, y, frame);
                        if is_watched {
                            fragments.push(f);
                            touched = true;
                        }
                    }
                }
            }
        }
        Op::Blit { src, dst } => {
            for j in 0..BLIT_SIZE {
                for i in 0..BLIT_SIZE {
                    let s = frame.rtt.at(src[0] + i, src[1] + j);
                    let p = frame.window.at_mut(dst[0] + i, dst[1] + j);
                    p.color = s.color;
                    p.slack = s.slack;
                    touched |= watched.is_some_and(|w| (w.1, w.2) == (dst[0] + i, dst[1] + j));
                }
            }
        }
    }
    let (t, x, y) = watched.filter(|_| touched)?;
    Some(Entry {
        function: op.function(),
        draw,
        target: t,
        before: before.unwrap(),
        after: frame.image(t).at(x, y),
        fragments,
    })
}

/// Runs the frame from `start`: the frame after it and the watched pixel's history.
fn run_from(start: Frame, watch: Option<Watch>) -> (Frame, Vec<Entry>) {
    let mut frame = start;
    let mut entries = Vec::new();
    let mut draws = 0;
    for op in SCENE {
        let draw = matches!(op, Op::Draw(_)).then(|| {
            draws += 1;
            draws
        });
        entries.extend(run_op(op, draw, &mut frame, watch));
    }
    (frame, entries)
}

/// The frame as every frame ends (each frame starts where the last one
/// ended; the first clears everything it reads).
pub fn final_frame() -> Frame {
    let blank = Frame {
        window: Image::new(SIZE, true),
        rtt: Image::new(RTT_SIZE, false),
    };
    let first = run_from(blank, None).0;
    run_from(first, None).0
}

/// The history of `watch` over a frame after another frame.
pub fn history(watch: Watch) -> Vec<Entry> {
    let (_, entries) = run_from(final_frame(), Some(watch));
    entries
}
