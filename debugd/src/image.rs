//! Fields of per-fragment values: summary statistics, PNG (value range or
//! a fixed one, colour channels or viridis with a legend) and NPY encoding.
//!
//! A [`Field`] is in GL order (row 0 = bottom). Both encoders write rows
//! top-down (image convention): PNG row 0 and NPY `[0, :, :]` are the top
//! row of the framebuffer, so the value at window pixel (x, y) is at
//! `[height - 1 - y, x]`.

use crate::colormap;

/// Checkerboard colours of uncovered fragments in PNG dumps (odd channels).
pub const CHECKER_MAGENTA: [u8; 4] = [255, 0, 255, 255];
pub const CHECKER_GREY: [u8; 4] = [64, 64, 64, 255];

/// Width of the legend bar of a colormapped PNG: a black gap, then the bar.
pub const LEGEND_WIDTH: u32 = 12;
const LEGEND_GAP: usize = 4;

/// How [`Field::render_png`] maps values onto colours.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PngOptions {
    /// Map this range (every channel) instead of the values' own min..max.
    pub range: Option<(f64, f64)>,
    /// A scalar through viridis, with a legend bar.
    pub viridis: bool,
}

/// A PNG dump and how it was drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Png {
    pub data: Vec<u8>,
    /// The value range mapped onto each colour channel drawn (one for a
    /// scalar): NaN bounds when no value of that component was finite.
    pub mapped: Vec<(f64, f64)>,
    /// Columns of the legend bar at the right (0: none).
    pub legend_width: u32,
}

/// `v` on 0..=1 over `(lo, hi)`, clamped; +Inf at 1, -Inf and NaN at 0; a
/// single value (lo == hi) at 1 unless it is 0.
fn unit(v: f64, (lo, hi): (f64, f64)) -> f64 {
    if !v.is_finite() || lo.is_nan() {
        if v == f64::INFINITY { 1.0 } else { 0.0 }
    } else if hi > lo {
        ((v - lo) / (hi - lo)).clamp(0.0, 1.0)
    } else if v != 0.0 {
        1.0
    } else {
        0.0
    }
}

/// Column `x` of the legend bar at image row `row` (top-down) of `height`:
/// a black gap, then viridis from max (top) to min (bottom).
fn legend_pixel(x: usize, row: usize, height: usize) -> [u8; 4] {
    if x < LEGEND_GAP {
        return [0, 0, 0, 255];
    }
    let t = if height > 1 {
        (height - 1 - row) as f64 / (height - 1) as f64
    } else {
        1.0
    };
    let c = colormap::viridis(t);
    [c[0], c[1], c[2], 255]
}

/// Per-fragment values of one expression at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct Field {
    pub width: u32,
    pub height: u32,
    /// Components of the value type (1..=4).
    pub components: usize,
    /// Per pixel, rows bottom-up: `Some(components)` if the fragment reached the step.
    pub values: Vec<Option<[f64; 4]>>,
}

/// Statistics over the reached fragments.
#[derive(Clone, Debug, PartialEq)]
pub struct Stats {
    pub count: u64,
    /// Per component, over finite values (NaN when no finite value).
    pub min: Vec<f64>,
    pub max: Vec<f64>,
    /// Fragments with at least one NaN / infinite component.
    pub nan: u64,
    pub inf: u64,
}

impl Stats {
    /// Empty statistics of `components`-component values.
    pub fn new(components: usize) -> Stats {
        let n = components.max(1);
        Stats {
            count: 0,
            min: vec![f64::INFINITY; n],
            max: vec![f64::NEG_INFINITY; n],
            nan: 0,
            inf: 0,
        }
    }

    /// Count one reached invocation's value (its first `components`).
    pub fn add(&mut self, v: &[f64]) {
        let comps = &v[..self.min.len()];
        self.count += 1;
        if comps.iter().any(|c| c.is_nan()) {
            self.nan += 1;
        }
        if comps.iter().any(|c| c.is_infinite()) {
            self.inf += 1;
        }
        for (i, c) in comps.iter().enumerate() {
            if c.is_finite() {
                self.min[i] = self.min[i].min(*c);
                self.max[i] = self.max[i].max(*c);
            }
        }
    }

    /// Components without a finite value get NaN bounds.
    pub fn finish(mut self) -> Stats {
        for i in 0..self.min.len() {
            if self.min[i] > self.max[i] {
                self.min[i] = f64::NAN;
                self.max[i] = f64::NAN;
            }
        }
        self
    }
}

impl Field {
    pub fn at(&self, x: u32, y: u32) -> Option<&[f64; 4]> {
        if x >= self.width || y >= self.height {
            return None;
        }
        self.values[(y * self.width + x) as usize].as_ref()
    }

    pub fn stats(&self) -> Stats {
        let mut s = Stats::new(self.components);
        for v in self.values.iter().flatten() {
            s.add(v);
        }
        s.finish()
    }

    /// RGBA8 PNG with the default mapping (see [`Field::render_png`]).
    pub fn to_png(&self) -> Result<Vec<u8>, String> {
        self.render_png(&PngOptions::default()).map(|png| png.data)
    }

    /// RGBA8 PNG: each component (up to 3, alpha 255) normalised over the
    /// mapped range, by default min..max of the reached fragments (a scalar
    /// is drawn grey, or through viridis with a legend bar at the right:
    /// top = max, bottom = min); fragments that did not reach the step are a
    /// magenta / dark-grey checkerboard. +Inf maps to the top, -Inf to the
    /// bottom; NaN to black, or red with viridis (a colour it never takes).
    ///
    /// A covered pixel whose colour would equal a checker colour exactly gets
    /// its green channel moved by one, so uncovered is always told apart.
    pub fn render_png(&self, opts: &PngOptions) -> Result<Png, String> {
        let st = self.stats();
        let n = self.components.clamp(1, 4);
        let channels = if n == 1 { 1 } else { n.min(3) };
        let mapped: Vec<(f64, f64)> = (0..channels)
            .map(|i| opts.range.unwrap_or((st.min[i], st.max[i])))
            .collect();
        let legend = if opts.viridis { LEGEND_WIDTH } else { 0 };
        let (w, h) = (self.width as usize, self.height as usize);
        let full = w + legend as usize;
        let mut rgba = vec![0u8; full * h * 4];
        let colour = |v: &[f64; 4]| -> [u8; 4] {
            let byte = |t: f64| (t * 255.0).round() as u8;
            let mut p = if opts.viridis {
                let rgb = if v[0].is_nan() {
                    colormap::NAN_COLOUR
                } else {
                    colormap::viridis(unit(v[0], mapped[0]))
                };
                [rgb[0], rgb[1], rgb[2], 255]
            } else if n == 1 {
                let g = byte(unit(v[0], mapped[0]));
                [g, g, g, 255]
            } else {
                let mut p = [0, 0, 0, 255];
                for (i, item) in p.iter_mut().enumerate().take(channels) {
                    *item = byte(unit(v[i], mapped[i]));
                }
                p
            };
            if p == CHECKER_MAGENTA || p == CHECKER_GREY {
                p[1] ^= 1;
            }
            p
        };
        for row in 0..h {
            let gl_row = h - 1 - row;
            for x in 0..full {
                let px = if x >= w {
                    legend_pixel(x - w, row, h)
                } else {
                    match &self.values[gl_row * w + x] {
                        Some(v) => colour(v),
                        None if ((x / 8) + (gl_row / 8)) % 2 == 0 => CHECKER_MAGENTA,
                        None => CHECKER_GREY,
                    }
                };
                let o = (row * full + x) * 4;
                rgba[o..o + 4].copy_from_slice(&px);
            }
        }
        Ok(Png {
            data: encode_rgba(full as u32, self.height, &rgba)?,
            mapped,
            legend_width: legend,
        })
    }

    /// Raw (`DUMP_FORMAT_RAW`, editors' value images): little-endian f64, 4
    /// components per pixel (0 beyond the value's type), rows bottom-up as
    /// `gl_FragCoord` counts them, then one byte per pixel: 1 where the
    /// fragment reached the step with a value, 0 where it did not (its
    /// components are 0). Nothing is rounded, and no NaN stands for "none".
    pub fn to_raw(&self) -> Vec<u8> {
        let n = self.width as usize * self.height as usize;
        let mut out = Vec::with_capacity(n * 33);
        let used = self.components.clamp(1, 4);
        for v in self.values.iter().take(n) {
            let mut p = [0f64; 4];
            if let Some(v) = v {
                p[..used].copy_from_slice(&v[..used]);
            }
            for c in p {
                out.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend(self.values.iter().take(n).map(|v| u8::from(v.is_some())));
        out
    }

    /// NPY (version 1.0): little-endian float32, shape (height, width, 4),
    /// rows top-down, NaN in all four components where the fragment did not
    /// reach the step, 0 in components beyond the value's type.
    pub fn to_npy(&self) -> Vec<u8> {
        let (w, h) = (self.width as usize, self.height as usize);
        let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({h}, {w}, 4), }}");
        let mut header = dict.into_bytes();
        let unpadded = 10 + header.len() + 1;
        let pad = (64 - unpadded % 64) % 64;
        header.extend(std::iter::repeat_n(b' ', pad));
        header.push(b'\n');
        let mut out = Vec::with_capacity(10 + header.len() + w * h * 16);
        out.extend_from_slice(b"\x93NUMPY\x01\x00");
        out.extend_from_slice(&(header.len() as u16).to_le_bytes());
        out.extend_from_slice(&header);
        let n = self.components.clamp(1, 4);
        for row in 0..h {
            let gl_row = h - 1 - row;
            for x in 0..w {
                let px = match &self.values[gl_row * w + x] {
                    Some(v) => {
                        let mut p = [0f32; 4];
                        for i in 0..n {
                            p[i] = v[i] as f32;
                        }
                        p
                    }
                    None => [f32::NAN; 4],
                };
                for c in px {
                    out.extend_from_slice(&c.to_le_bytes());
                }
            }
        }
        out
    }
}

/// How `dump` encodes its field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpEncoding {
    Png,
    Npy,
    Raw,
}

/// RGBA8 pixels, rows top-down, as a PNG file.
fn encode_rgba(width: u32, height: u32, rgba: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut out, width, height);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let mut wr = enc.write_header().map_err(|e| e.to_string())?;
        wr.write_image_data(rgba).map_err(|e| e.to_string())?;
        wr.finish().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Height of a bar chart's plot area, in pixels.
const CHART_PLOT: u32 = 128;
const CHART_BAR: u32 = 10;
const CHART_GAP: u32 = 4;
const CHART_MARGIN: u32 = 8;

/// `info flow` as a bar chart: one bar per `(total, part)`, left to right,
/// a grey bar of `total` with its `part` in blue over it (a loop: the
/// invocations evaluating each iteration's condition and those staying in;
/// a branch: each side, all blue). Heights are to scale, the tallest bar
/// filling the plot; a zero count draws nothing.
pub fn bar_chart(bars: &[(u64, u64)]) -> Result<Vec<u8>, String> {
    const BACKGROUND: [u8; 4] = [255, 255, 255, 255];
    const TOTAL: [u8; 4] = [190, 190, 190, 255];
    const PART: [u8; 4] = [40, 90, 200, 255];
    const AXIS: [u8; 4] = [0, 0, 0, 255];
    let n = bars.len().max(1) as u32;
    let width = 2 * CHART_MARGIN + n * (CHART_BAR + CHART_GAP);
    let height = CHART_PLOT + 2 * CHART_MARGIN;
    let max = bars.iter().map(|b| b.0.max(b.1)).max().unwrap_or(0).max(1);
    let mut rgba = BACKGROUND.repeat((width * height) as usize);
    let mut fill = |x0: u32, h: u32, color: [u8; 4]| {
        let bottom = CHART_MARGIN + CHART_PLOT; // row below the plot (top-down)
        for y in bottom - h..bottom {
            for x in x0..x0 + CHART_BAR {
                let o = ((y * width + x) * 4) as usize;
                rgba[o..o + 4].copy_from_slice(&color);
            }
        }
    };
    let scale = |v: u64| ((v as f64 / max as f64) * CHART_PLOT as f64).round() as u32;
    for (i, &(total, part)) in bars.iter().enumerate() {
        let x0 = CHART_MARGIN + CHART_GAP / 2 + i as u32 * (CHART_BAR + CHART_GAP);
        fill(x0, scale(total), TOTAL);
        fill(x0, scale(part), PART);
    }
    let axis = CHART_MARGIN + CHART_PLOT;
    for x in CHART_MARGIN..width - CHART_MARGIN {
        let o = ((axis * width + x) * 4) as usize;
        rgba[o..o + 4].copy_from_slice(&AXIS);
    }
    encode_rgba(width, height, &rgba)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field() -> Field {
        // 2x2, bottom row reached with 0 and 2; top-left reached with 1; top-right not.
        Field {
            width: 2,
            height: 2,
            components: 1,
            values: vec![
                Some([0.0; 4]),
                Some([2.0, 0.0, 0.0, 0.0]),
                Some([1.0, 0.0, 0.0, 0.0]),
                None,
            ],
        }
    }

    #[test]
    fn stats() {
        let mut f = field();
        let s = f.stats();
        assert_eq!(s.count, 3);
        assert_eq!((s.min[0], s.max[0], s.nan, s.inf), (0.0, 2.0, 0, 0));
        f.values[3] = Some([f64::NAN, 0.0, 0.0, 0.0]);
        f.values[0] = Some([f64::INFINITY, 0.0, 0.0, 0.0]);
        let s = f.stats();
        assert_eq!(
            (s.count, s.nan, s.inf, s.min[0], s.max[0]),
            (4, 1, 1, 1.0, 2.0)
        );
    }

    /// Width, height and RGBA8 pixels (rows top-down) of a PNG.
    fn decode(bytes: Vec<u8>) -> (u32, u32, Vec<u8>) {
        let dec = png::Decoder::new(std::io::Cursor::new(bytes));
        let mut r = dec.read_info().unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        (info.width, info.height, buf)
    }

    #[test]
    fn fixed_range_and_what_was_mapped() {
        let png = field().render_png(&PngOptions::default()).unwrap();
        assert_eq!(png.mapped, vec![(0.0, 2.0)]);
        assert_eq!(png.legend_width, 0);
        let fixed = PngOptions {
            range: Some((0.0, 4.0)),
            viridis: false,
        };
        let png = field().render_png(&fixed).unwrap();
        assert_eq!(png.mapped, vec![(0.0, 4.0)]);
        let (_, _, buf) = decode(png.data);
        // 1 of 0..4 -> 64 (not the checker grey: nudged), 2 -> 128, 0 -> 0.
        assert_eq!(&buf[0..4], &[64, 65, 64, 255]);
        assert_eq!(&buf[12..16], &[128, 128, 128, 255]);
        // Values beyond a fixed range clamp.
        let narrow = PngOptions {
            range: Some((0.5, 1.0)),
            viridis: false,
        };
        let (_, _, buf) = decode(field().render_png(&narrow).unwrap().data);
        assert_eq!(&buf[8..12], &[0, 0, 0, 255]);
        assert_eq!(&buf[12..16], &[255, 255, 255, 255]);
    }

    #[test]
    fn viridis_with_a_legend_and_the_checkerboard() {
        let mut f = field();
        f.values[2] = Some([f64::NAN; 4]);
        let opts = PngOptions {
            range: None,
            viridis: true,
        };
        let png = f.render_png(&opts).unwrap();
        assert_eq!(png.legend_width, LEGEND_WIDTH);
        let (w, h, buf) = decode(png.data);
        assert_eq!((w, h), (2 + LEGEND_WIDTH, 2));
        let px = |x: u32, row: u32| &buf[((row * w + x) * 4) as usize..][..4];
        assert_eq!(px(0, 0), &[255, 0, 0, 255], "NaN is red");
        assert_eq!(px(1, 0), &CHECKER_MAGENTA, "uncovered stays a checker");
        assert_eq!(px(0, 1), &[68, 1, 84, 255], "min: viridis' first colour");
        assert_eq!(px(1, 1), &[253, 231, 37, 255], "max: its last");
        // The legend: a black gap, then max at the top, min at the bottom.
        assert_eq!(px(2, 0), &[0, 0, 0, 255]);
        assert_eq!(px(w - 1, 0), &[253, 231, 37, 255]);
        assert_eq!(px(w - 1, 1), &[68, 1, 84, 255]);
    }

    #[test]
    fn png_roundtrip() {
        let (width, height, buf) = decode(field().to_png().unwrap());
        assert_eq!((width, height), (2, 2));
        // Top row (GL row 1): x=0 value 1 -> 128 grey, x=1 uncovered -> checker.
        assert_eq!(&buf[0..4], &[128, 128, 128, 255]);
        assert_eq!(&buf[4..8], &CHECKER_MAGENTA);
        // Bottom row: 0 -> black, 2 -> white.
        assert_eq!(&buf[8..12], &[0, 0, 0, 255]);
        assert_eq!(&buf[12..16], &[255, 255, 255, 255]);
    }

    #[test]
    fn values_never_take_checker_colours() {
        // vec3 values at (max, min, max) and a grey level at 64 of 255.
        let f = Field {
            width: 2,
            height: 1,
            components: 3,
            values: vec![Some([1.0, 0.0, 1.0, 0.0]), Some([0.0, 1.0, 0.0, 0.0])],
        };
        let g = Field {
            width: 3,
            height: 1,
            components: 1,
            values: vec![
                Some([0.0; 4]),
                Some([64.0, 0.0, 0.0, 0.0]),
                Some([255.0, 0.0, 0.0, 0.0]),
            ],
        };
        for field in [f, g] {
            let bytes = field.to_png().unwrap();
            let mut r = png::Decoder::new(std::io::Cursor::new(bytes))
                .read_info()
                .unwrap();
            let mut buf = vec![0; r.output_buffer_size().unwrap()];
            r.next_frame(&mut buf).unwrap();
            for px in buf.chunks(4) {
                assert_ne!(px, CHECKER_MAGENTA);
                assert_ne!(px, CHECKER_GREY);
            }
        }
    }

    #[test]
    fn raw_layout_is_exact_and_bottom_up() {
        let mut f = field();
        f.values[1] = Some([16777217.0, 0.0, 0.0, 0.0]); // not a float32
        let b = f.to_raw();
        assert_eq!(b.len(), 4 * 33);
        let v = |i: usize| f64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().unwrap());
        assert_eq!(v(4), 16777217.0, "bottom-right, whole");
        assert_eq!(v(8), 1.0, "top-left: third pixel, rows bottom-up");
        assert_eq!(v(12), 0.0, "uncovered: zeros");
        assert_eq!(&b[128..], &[1, 1, 1, 0], "coverage after the values");
    }

    #[test]
    fn npy_layout() {
        let b = field().to_npy();
        assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
        let hl = u16::from_le_bytes([b[8], b[9]]) as usize;
        assert_eq!((10 + hl) % 64, 0);
        let header = std::str::from_utf8(&b[10..10 + hl]).unwrap();
        assert!(header.contains("'shape': (2, 2, 4)"));
        assert!(header.ends_with('\n'));
        let data: Vec<f32> = b[10 + hl..]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(data.len(), 16);
        assert_eq!(data[0], 1.0); // top-left
        assert!(data[4].is_nan()); // top-right uncovered
        assert_eq!(data[12], 2.0); // bottom-right
    }

    #[test]
    fn bar_chart_bars_are_to_scale() {
        let png = bar_chart(&[(100, 100), (100, 50), (0, 0)]).unwrap();
        let mut r = png::Decoder::new(std::io::Cursor::new(png))
            .read_info()
            .unwrap();
        let mut buf = vec![0; r.output_buffer_size().unwrap()];
        let info = r.next_frame(&mut buf).unwrap();
        let (w, h) = (info.width, info.height);
        assert_eq!(w, 2 * CHART_MARGIN + 3 * (CHART_BAR + CHART_GAP));
        assert_eq!(h, CHART_PLOT + 2 * CHART_MARGIN);
        let px = |x: u32, y: u32| {
            let o = ((y * w + x) * 4) as usize;
            [buf[o], buf[o + 1], buf[o + 2]]
        };
        let bar_x = |i: u32| CHART_MARGIN + CHART_GAP / 2 + i * (CHART_BAR + CHART_GAP) + 1;
        let top = CHART_MARGIN; // the tallest bar's first row
        let blue = [40, 90, 200];
        let grey = [190, 190, 190];
        assert_eq!(px(bar_x(0), top), blue, "bar 0 fills the plot");
        assert_eq!(px(bar_x(1), top), grey, "bar 1: total to the top");
        assert_eq!(px(bar_x(1), top + CHART_PLOT / 2), blue, "bar 1: half blue");
        assert_eq!(px(bar_x(1), top + CHART_PLOT / 2 - 1), grey);
        assert_eq!(
            px(bar_x(2), top + CHART_PLOT - 1),
            [255, 255, 255],
            "zero: no bar"
        );
    }
}
