//! What a debug step reads back after its replay, when the daemon asks for
//! less than everything (`ReadbackRequest`, ABI 9): one invocation (a
//! `print @`), or a summary reduced on the GPU by a compute pass of ours
//! (`reduce.rs`) and read back as a few words.
//!
//! Each function answers `None` where it cannot do what was asked (no
//! compute shaders, a GL error): the step then reads everything, as it
//! always did, and the reply says so. A debugger never shows a value it is
//! not sure of.

use super::bulk::Bulk;
use super::context::is_es;
use super::reduce::{self, Words};
use super::state::{PACK_TIGHT, pack_params_here};
use crate::gl;
use crate::intercept::errors::drain_own_errors;
use gldbg_proto::shm::{
    self, BulkRef, FragmentStepReply, READBACK_ONE, READBACK_SUMMARY, ReadbackReply,
    ReadbackRequest, VertexStepReply,
};

/// What a point or summary readback put in the shared memory: the reply's
/// `values` and `coverage` (one byte per held invocation) and its
/// `readback`.
pub(crate) struct Held {
    pub(crate) values: BulkRef,
    pub(crate) coverage: BulkRef,
    pub(crate) reply: ReadbackReply,
    /// Fragment: floats per held invocation in `values`.
    pub(crate) components: u32,
    /// Vertex, compute: invocations of the draw.
    pub(crate) invocations: u32,
}

/// The invocation's linear index in an extent of `[w, h, d]`; `None`
/// outside.
fn linear([x, y, z]: [u32; 3], [w, h, d]: [u32; 3]) -> Option<u32> {
    (x < w && y < h && z < d).then(|| {
        let i = u64::from(x) + u64::from(y) * u64::from(w) + u64::from(z) * u64::from(w * h);
        i as u32
    })
}

/// A reply that holds nothing: the cell is outside the draw.
fn outside() -> Held {
    Held {
        components: 0,
        invocations: 0,
        values: BulkRef::default(),
        coverage: BulkRef::default(),
        reply: ReadbackReply {
            mode: READBACK_ONE,
            index: u32::MAX,
            ..Default::default()
        },
    }
}

/// The type code a coverage word holds (0: not reached).
fn code_of(word: u32) -> u32 {
    match word << 1 {
        0 => 0,
        _ => f32::from_bits(word) as u32,
    }
}

/// [`from_buffers`] of a transform feedback capture of `n` records (in
/// `buffer`) of `record` bytes: the value's `value_len` bytes, then the
/// coverage word (and, with `emission`, more: never read here).
pub(crate) fn from_capture(
    bulk: &mut Bulk,
    req: &ReadbackRequest,
    n: usize,
    (buffer, record, value_len, emission): (u32, usize, usize, bool),
) -> Option<Held> {
    if value_len == 0 || emission {
        return None;
    }
    let words = |offset| Words {
        buffer,
        stride: (record / 4) as u32,
        offset,
    };
    let sources = (words(0), words((value_len / 4) as u32));
    from_buffers(bulk, req, n, [n as u32, 1, 1], sources)
}

/// [`from_buffers`] of the storage blocks a vertex or compute step's debug
/// shader writes: a `vec4` value and a `float` coverage per invocation of
/// `extent`.
pub(crate) fn from_blocks(
    bulk: &mut Bulk,
    req: &ReadbackRequest,
    extent: [u32; 3],
    (values, coverage): (u32, u32),
) -> Option<Held> {
    let n = extent.iter().map(|&d| d as usize).product();
    let words = |buffer, stride| Words {
        buffer,
        stride,
        offset: 0,
    };
    from_buffers(bulk, req, n, extent, (words(values, 4), words(coverage, 1)))
}

/// The read back of a step whose values and coverage are in buffer
/// objects (vertex and compute steps): `n` invocations of `extent`,
/// values of `stride` words (`values.stride`), coverage one word each.
/// `None`: read everything (`READBACK_ALL` asked, or the GPU could not).
pub(crate) fn from_buffers(
    bulk: &mut Bulk,
    req: &ReadbackRequest,
    n: usize,
    extent: [u32; 3],
    sources: (Words, Words),
) -> Option<Held> {
    let held = held_from_buffers(bulk, req, n, extent, sources)?;
    Some(Held {
        invocations: n as u32,
        ..held
    })
}

fn held_from_buffers(
    bulk: &mut Bulk,
    req: &ReadbackRequest,
    n: usize,
    extent: [u32; 3],
    (values, coverage): (Words, Words),
) -> Option<Held> {
    match req.mode {
        READBACK_ONE => {
            let Some(index) = linear(req.cell, extent).filter(|&i| (i as usize) < n) else {
                return Some(outside());
            };
            let value = reduce::read_words(values, index as usize, 1, 4)?;
            let cov = reduce::read_words(coverage, index as usize, 1, 1)?;
            let mut code = code_of(cov[0]);
            let reached = code != 0;
            if !reached {
                // The type still comes from the draw's reached invocations.
                code = common_code(&reduce::reduce(values, coverage, n, 0, 0)?)?;
            }
            Some(put(bulk, &value, &[u8::from(reached)], one(index, code)))
        }
        READBACK_SUMMARY if reduce::summaries_here() => {
            let comps = req.components.clamp(1, 4);
            let words = reduce::reduce(values, coverage, n, comps, req.base)?;
            let head = (req.head as usize).min(n);
            let v = reduce::read_words(values, 0, head, 4)?;
            let c = reduce::read_words(coverage, 0, head, 1)?;
            let reached: Vec<u8> = c.iter().map(|&w| u8::from(code_of(w) != 0)).collect();
            Some(put(bulk, &v, &reached, summary(words, head)))
        }
        _ => None,
    }
}

/// A narrowed point whose pixel could not be read: not reached, type
/// unknown (the daemon reads the draw again whole).
fn unknown_point(bulk: &mut Bulk, index: u32, comps: usize) -> Held {
    let reply = ReadbackReply {
        narrowed: 1,
        ..one(index, 0)
    };
    let held = put(bulk, &vec![0; comps], &[0], reply);
    Held {
        components: comps as u32,
        ..held
    }
}

fn one(index: u32, code: u32) -> ReadbackReply {
    ReadbackReply {
        mode: READBACK_ONE,
        held: 1,
        index,
        code,
        ..Default::default()
    }
}

fn summary(words: [u32; shm::SUMMARY_WORDS], held: usize) -> ReadbackReply {
    ReadbackReply {
        mode: READBACK_SUMMARY,
        held: held as u32,
        index: u32::MAX,
        code: summary_code(&words),
        summary: words,
        ..Default::default()
    }
}

/// The type code of a summary's reached invocations (the greatest: they
/// all write one, which the daemon checks).
fn summary_code(words: &[u32; shm::SUMMARY_WORDS]) -> u32 {
    match words[shm::SUMMARY_COUNT] {
        0 => 0,
        _ => code_of(words[shm::SUMMARY_CODE_MAX]),
    }
}

/// The one type code every reached invocation wrote (0: none reached);
/// `None` when they disagree (then the step reads everything and the
/// daemon sees why): a point's type must not be another invocation's.
fn common_code(words: &[u32; shm::SUMMARY_WORDS]) -> Option<u32> {
    match words[shm::SUMMARY_COUNT] {
        0 => Some(0),
        _ if words[shm::SUMMARY_CODE_MIN] == words[shm::SUMMARY_CODE_MAX] => {
            Some(code_of(words[shm::SUMMARY_CODE_MAX]))
        }
        _ => None,
    }
}

/// Write the held values and coverage bytes at `BULK_DATA`.
fn put(bulk: &mut Bulk, values: &[u32], coverage: &[u8], reply: ReadbackReply) -> Held {
    let bytes: Vec<u8> = values.iter().flat_map(|w| w.to_ne_bytes()).collect();
    let values = bulk.put(shm::BULK_DATA, &bytes);
    let coverage = bulk.put(shm::BULK_DATA + bytes.len().next_multiple_of(8), coverage);
    Held {
        values,
        coverage,
        reply,
        components: 4,
        invocations: 0,
    }
}

/// The fragment step's images: the debug framebuffer, its value and
/// coverage attachments' locations, its size, the value components a full
/// readback would read.
pub(crate) struct Images {
    pub(crate) fbo: u32,
    pub(crate) value_loc: u32,
    pub(crate) coverage_loc: u32,
    pub(crate) size: (i32, i32),
    pub(crate) components: usize,
    /// The context clamps read colours (compatibility): unclamp first.
    pub(crate) unclamp: bool,
    /// The replay shaded the printed pixel alone (`pixel_scissor.rs`): an
    /// unreached pixel's type cannot come from the others (code 0: the
    /// daemon asks again whole).
    pub(crate) scissored: bool,
}

/// A point or summary readback as the vertex step's reply.
pub(crate) fn vertex_reply(reply: &mut VertexStepReply, held: Held) {
    reply.vertices = held.invocations;
    (reply.values, reply.coverage) = (held.values, held.coverage);
    reply.coverage_code = held.reply.code;
    reply.readback = held.reply;
}

/// [`from_images`] into the fragment step's reply; false: nothing was
/// read (read everything).
pub(crate) fn fragment_reply(
    bulk: &mut Bulk,
    req: &ReadbackRequest,
    im: &Images,
    reply: &mut FragmentStepReply,
) -> bool {
    let Some(held) = from_images(bulk, req, im) else {
        return false;
    };
    reply.values = held.values;
    reply.coverage = held.coverage;
    reply.value_components = held.components;
    reply.coverage_code = held.reply.code;
    reply.readback = held.reply;
    true
}

/// The read back of a fragment step (`None`: read everything). The
/// framebuffer's attachments are read into buffers of ours for the
/// reduction (a copy on the GPU), or one pixel of each to memory.
pub(crate) fn from_images(bulk: &mut Bulk, req: &ReadbackRequest, im: &Images) -> Option<Held> {
    if !matches!(req.mode, READBACK_ONE | READBACK_SUMMARY) || im.components == 0 {
        return None; // everything; a step's coverage is always whole
    }
    let (w, h) = im.size;
    // GL ES reads float images as RGBA only.
    let comps = match is_es() {
        true => 4,
        false => im.components.clamp(1, 4),
    };
    let cov_comps = if is_es() { 4 } else { 1 };
    gl::bind_framebuffer(gl::READ_FRAMEBUFFER, im.fbo);
    gl::bind_buffer(gl::PIXEL_PACK_BUFFER, 0);
    // Tight rows, no skips, no swapped bytes (the app's are put back by `Saved`).
    for (p, v) in pack_params_here(is_es()).iter().zip(PACK_TIGHT) {
        gl::pixel_store(*p, v);
    }
    if im.unclamp {
        gl::clamp_color(gl::CLAMP_READ_COLOR, gl::FALSE as u32);
    }
    let att = |loc: u32| gl::COLOR_ATTACHMENT0 + loc;
    let n = w as usize * h as usize;
    match req.mode {
        READBACK_ONE => {
            let Some(index) = linear(req.cell, [w as u32, h as u32, 1]) else {
                return Some(outside());
            };
            let (x, y) = (req.cell[0] as i32, req.cell[1] as i32);
            let value = reduce::read_pixel(att(im.value_loc), (x, y), comps);
            let cov = reduce::read_pixel(att(im.coverage_loc), (x, y), cov_comps);
            // A failed read must not pass for "not reached": read whole, or
            // (the images hold the one pixel) "type unknown", read again.
            if drain_own_errors() != 0 {
                return im.scissored.then(|| unknown_point(bulk, index, comps));
            }
            let mut code = code_of(cov[0]);
            let reached = code != 0;
            if !reached && !im.scissored {
                let c = reduce::image_words(att(im.coverage_loc), (w, h), cov_comps)?;
                let words = reduce::reduce(c, c, n, 0, 0);
                gl::delete_buffer(c.buffer);
                code = common_code(&words?)?;
            }
            if drain_own_errors() != 0 {
                return None;
            }
            let reply = ReadbackReply {
                narrowed: u32::from(im.scissored),
                ..one(index, code)
            };
            let held = put(bulk, &value, &[u8::from(reached)], reply);
            Some(Held {
                components: comps as u32,
                ..held
            })
        }
        // The value image holds `comps` words a pixel: never reduce more.
        READBACK_SUMMARY if reduce::summaries_here() && req.components as usize <= comps => {
            let v = reduce::image_words(att(im.value_loc), (w, h), comps)?;
            let c = reduce::image_words(att(im.coverage_loc), (w, h), cov_comps);
            let words =
                c.and_then(|c| reduce::reduce(v, c, n, req.components.clamp(1, 4), req.base));
            gl::delete_buffer(v.buffer);
            if let Some(c) = c {
                gl::delete_buffer(c.buffer);
            }
            let held = put(bulk, &[], &[], summary(words?, 0));
            Some(Held {
                components: comps as u32,
                ..held
            })
        }
        _ => None,
    }
}
