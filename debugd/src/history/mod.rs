//! Pixel history (issue 16): what each call of a frame did to one texel.
//! This module knows neither the session nor protobuf: the session's
//! `history.rs` runs the app from stop to stop and hands each writing
//! call's stop here.
//!
//! * [`calls`] — which calls can write a texel and how each is judged
//!   (a draw by its fragments, a clear or blit by its destination, every
//!   other writer by the value changing).
//! * [`link`] — the preload commands: `CMD_PIXEL_READ` (one texel, and
//!   how the draw framebuffer writes its image) and `CMD_PIXEL_HISTORY` (a
//!   draw's fragments at the pixel, passed one by one through the app's
//!   tests).
//! * [`fragments`] — a draw's reply turned into [`Fragment`]s: which test
//!   rejected each (scissor, discard, alpha, stencil by the recorded
//!   values; depth by elimination, the GPU's occlusion count deciding).
//!
//! **Invariant:** a value is shown only as GL read it back; what gldbg
//! cannot know (a format it cannot copy, primitives it cannot tell apart)
//! is an empty value and a note, never a guess.

pub mod calls;
pub mod fragments;
pub mod link;

use gldbg_proto::shm::{self as abi, TexelRef};

use crate::shader::Sampled;

/// A colour as read, by the image's component kind; empty: unknown.
pub type Color = Vec<f64>;

/// One fragment of a draw at the pixel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fragment {
    pub primitive: u32,
    pub front_facing: bool,
    /// The shader's output for the image's draw buffer (empty: it never
    /// finished, or has no such output).
    pub output: Color,
    pub depth: Option<f64>,
    /// `None`: unknown (the entry's note says why).
    pub passed: Option<bool>,
    /// "scissor", "discard", "alpha", "stencil", "depth" or "other".
    pub rejected_by: Option<&'static str>,
    pub color_before: Color,
    pub color_after: Color,
    pub depth_before: Option<f64>,
    pub depth_after: Option<f64>,
    pub stencil_before: Option<u32>,
    pub stencil_after: Option<u32>,
}

/// One call that wrote (or had fragments at) the texel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Entry {
    /// 1-based.
    pub entry: u32,
    pub call: u64,
    pub function: String,
    /// The draw's number in its frame (from 1); 0 for other calls.
    pub draw: u64,
    /// The global draw number; 0 for other calls.
    pub global_draw: u64,
    pub frame: u64,
    pub program: u32,
    pub framebuffer: u32,
    pub thread: u32,
    pub before: Color,
    pub after: Color,
    pub fragments: Vec<Fragment>,
    pub note: String,
}

/// A pixel history.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// The image and texel followed.
    pub texel: TexelRef,
    /// The context whose window (for `TEXEL_WINDOW`) or share group it is.
    pub context: u64,
    /// `abi::PIXEL_*` of the image.
    pub kind: u32,
    /// Its sized internal format (0: unknown).
    pub format: u32,
    /// Where it ended: "swap", "draw N" or "exit".
    pub end: String,
    /// The value before the first call.
    pub start: Color,
    pub entries: Vec<Entry>,
    pub notes: Vec<String>,
}

impl History {
    /// The image as the user names it.
    pub fn image(&self) -> String {
        image_name(&self.texel)
    }

    /// The format's GL name (`GL_RGBA8`), empty where unknown.
    pub fn format_name(&self) -> String {
        match self.format {
            0 => String::new(),
            f => gldbg_proto::api::gl_enum_name(f, "InternalFormat")
                .map_or_else(|| format!("0x{f:04X}"), str::to_string),
        }
    }

    /// "float", "int" or "uint".
    pub fn kind_name(&self) -> &'static str {
        match self.kind {
            abi::PIXEL_INT => "int",
            abi::PIXEL_UINT => "uint",
            _ => "float",
        }
    }
}

/// "window", "texture T level L [layer K]" or "renderbuffer R".
pub fn image_name(t: &TexelRef) -> String {
    match t.kind {
        abi::TEXEL_TEXTURE if t.layer >= 0 => {
            format!("texture {} level {} layer {}", t.name, t.level, t.layer)
        }
        abi::TEXEL_TEXTURE => format!("texture {} level {}", t.name, t.level),
        abi::TEXEL_RENDERBUFFER => format!("renderbuffer {}", t.name),
        _ => "window".into(),
    }
}

/// A colour's bits as numbers of `kind` (`abi::PIXEL_*`).
pub fn color(bits: [u32; 4], kind: u32) -> Color {
    bits.iter()
        .map(|&b| match kind {
            abi::PIXEL_INT => f64::from(b as i32),
            abi::PIXEL_UINT => f64::from(b),
            _ => f64::from(f32::from_bits(b)),
        })
        .collect()
}

/// A `history` request in domain terms.
#[derive(Clone, Copy, Debug, Default)]
pub struct HistoryAsk {
    pub x: u32,
    pub y: u32,
    /// A texture's (name, level, layer or -1) instead of the current
    /// draw framebuffer's image.
    pub texture: Option<(u32, i32, i32)>,
    /// End after this draw of the frame.
    pub until_draw: Option<u64>,
}

/// One read with the texture it went to (what gldbg could tell).
#[derive(Clone, Debug)]
pub struct SourceRead {
    pub read: Sampled,
    pub unit: Option<u32>,
    pub texture: Option<u32>,
    /// Level 0's width and height.
    pub size: Option<(u32, u32)>,
    /// The texel under the coordinate (x, y; and the layer of an array).
    pub texel: Option<Vec<i64>>,
}
