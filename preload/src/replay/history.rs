//! `CMD_PIXEL_HISTORY` (issue 16): the stopped draw's fragments at one
//! pixel of the image a pixel history follows, found and passed through
//! the app's own tests and blending one primitive at a time. The draw is
//! replayed with the history shader (glsl-instrument's `history.rs`: the
//! app's shader, its `main` wrapped):
//!
//! 1. *record*: into the app's framebuffer with every colour, depth and
//!    stencil write masked, every test off and the scissor on the pixel
//!    alone; each fragment at the pixel writes a record (primitive, front
//!    facing, depth, the output of the image's draw buffer, whether `main`
//!    returned) to the trace block. Nothing of the app's is written.
//! 2. *passes*: the pixel copied (colour from the image, depth and stencil
//!    from the draw framebuffer) into a framebuffer of ours of the same
//!    size and formats, the app's tests, masks and blending in force and
//!    the scissor narrowed to the pixel (intersected with the app's); for
//!    each recorded primitive in order, the draw replayed with only that
//!    primitive's fragments (the shader discards the others) inside an
//!    occlusion query, and the pixel read after it: the fragment's samples
//!    that passed, and the colour, depth and stencil it left. Fragments at
//!    one pixel are processed in primitive order, so each pass sees what
//!    the real draw's earlier primitives left.
//!
//! The reply holds the tests' state (the daemon tells which one rejected a
//! fragment), the pixel before the draw and the passes. Everything the
//! replays change is put back by the `Replay` guard and `ShaderWrites`.

use std::sync::Mutex;

use gldbg_proto::shm::{
    self, BulkRef, FragmentPass, FragmentTests, PixelHistoryReply, PixelHistoryRequest, PixelValue,
    TexelRef,
};

use crate::gl;

use super::bulk::{Bulk, align8};
use super::error::Error;
use super::pipeline::{Call, Replay, check_gl, command};
use super::pixel_scissor::PixelScissor;
use super::program::{DebugProgram, Kind, Mark, link};
use super::query::output_index;
use super::state::Saved;
use super::target::{depth_stencil_format, framebuffer_size};
use super::texel::{ReadImage, copy_of, draw_buffer_of, read_color, read_depth_stencil};
use super::uniforms::bind_app_attributes;

/// [`PixelHistoryReply::passed`]: the passes ran.
pub const PASSES_RUN: u32 = 1;
/// The image's format has no copy gldbg knows (sRGB other than RGBA8,
/// packed formats): no passes.
pub const PASSES_NO_FORMAT: u32 = 2;
/// Two records had one primitive id (instances, a multi-draw's draws, a
/// geometry shader's ids, or no `gl_PrimitiveID`): their order is unknown.
pub const PASSES_AMBIGUOUS: u32 = 3;
/// More fragments than the request's `max_passes`.
pub const PASSES_TOO_MANY: u32 = 4;
/// The draw framebuffer is multisampled: a pixel is several samples.
pub const PASSES_MULTISAMPLE: u32 = 5;

/// `CMD_PIXEL_HISTORY` for the stopped call `id` with `args`.
pub fn pixel_history(id: u32, args: &[u64]) -> u32 {
    command(id, args, check, step)
}

fn check(call: Call, _: &PixelHistoryRequest) -> Result<(), Error> {
    call.replayable(true)?;
    // GL ES lacks what the passes rely on (depth and stencil reads, float
    // reads of normalized buffers, a draw buffer at another index than its
    // attachment's): refused rather than half right.
    if super::context::is_es() {
        return Err(Error::Unsupported(
            "a draw's fragments are looked into on desktop GL only (not GL ES yet)".into(),
        ));
    }
    Ok(())
}

/// Whether fragments at one pixel are told apart and ordered by
/// `gl_PrimitiveID` alone: it restarts with every instance, every draw of
/// a multi-draw or display list, and a geometry or tessellation stage
/// sets it freely.
fn primitive_order_known(call: Call, req: &PixelHistoryRequest) -> bool {
    use gldbg_proto::api::{Abi, FUNCTIONS, ids};
    if matches!(call.id, ids::glCallList | ids::glCallLists | ids::glEnd) {
        return false;
    }
    let shape = call.shape();
    let params = FUNCTIONS[call.id as usize].params;
    let one = |i: Option<u8>| match i {
        None => true,
        Some(i) => {
            let i = usize::from(i);
            params[i].abi != Abi::Ptr && call.args.get(i).is_some_and(|&n| n as u32 as i32 <= 1)
        }
    };
    let indirect = params.iter().any(|p| p.name == "indirect");
    let stages = &req.shaders[..(req.shader_count as usize).min(req.shaders.len())];
    let free_ids = stages.iter().any(|s| {
        matches!(
            s.gl_type,
            gl::GEOMETRY_SHADER | gl::TESS_CONTROL_SHADER | gl::TESS_EVALUATION_SHADER
        )
    });
    !indirect && one(shape.instances) && one(shape.draw_count) && !free_ids
}

/// The uniforms of the history shader (-1: optimised away).
struct Uniforms {
    prim: i32,
    pixel: i32,
    output: i32,
}

fn step(
    bulk: &mut Bulk,
    call: Call,
    req: &PixelHistoryRequest,
    reply: &mut PixelHistoryReply,
) -> Result<(), Error> {
    let max_db = gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32;
    let mut r = Replay::begin(bulk, call, reply, max_db).tracing(req.trace, gl::FRAGMENT_SHADER);
    r.reply.program = r.saved.primary();
    r.reply.framebuffer = r.saved.draw_fb;
    (r.reply.draw_buffer, r.reply.output) = (-1, -1);
    let t = req.texel;
    let Some(db) = draw_buffer_of(&t, r.saved.draw_fb) else {
        return Ok(());
    };
    r.reply.draw_buffer = db as i32;
    r.saved.check_programs()?;
    // The daemon builds the history shader for the program it is told of.
    r.reply.program = r.saved.primary();
    if req.shader_count == 0 || req.program != r.reply.program {
        return Ok(());
    }
    let dbg = program(&mut r, req)?;
    let names = list(r.bulk, req.outputs);
    r.reply.output = output_for(&r.saved, &names, db);
    let u = Uniforms {
        prim: gl::uniform_location(dbg.program, &r.bulk.str(req.prim_uniform)),
        pixel: gl::uniform_location(dbg.program, &r.bulk.str(req.pixel_uniform)),
        output: gl::uniform_location(dbg.program, &r.bulk.str(req.output_uniform)),
    };
    gl::uniform_2i(u.pixel, [t.x, t.y]);
    gl::uniform_1i(u.output, r.reply.output);
    gl::uniform_1i(u.prim, -1);
    let writes = r.writes(dbg.program)?;
    if r.reply.trace.status == shm::TRACE_UNSUPPORTED {
        return Err(Error::Unsupported(
            "the history shader's storage block could not be bound here".into(),
        ));
    }
    let recorded = record(&mut r, (t.x, t.y));
    r.saved.restore_fragment_ops();
    recorded?;
    r.read_back(|_| Ok(()))?;
    if r.reply.trace.records == 0 {
        // No fragment at the pixel (most draws): no pixel read, no sync.
        writes.finish()?;
        return Ok(());
    }
    // The pixel before the draw: the record pass wrote nothing of it.
    let ds = depth_stencil_format(r.saved.draw_fb);
    r.reply.tests = tests_state(&r.saved, ds);
    let format = {
        let image = ReadImage::bind(&t)?;
        if !image.holds(&t) {
            return Err(Error::Unsupported(format!(
                "pixel {},{} is outside the image ({}x{})",
                t.x, t.y, image.size.0, image.size.1
            )));
        }
        r.reply.kind = image.kind;
        r.reply.before.color = image.color(t.x, t.y);
        image.format()
    };
    gl::bind_framebuffer(gl::READ_FRAMEBUFFER, r.saved.draw_fb);
    read_depth_stencil(t.x, t.y, ds, &mut r.reply.before);
    let prims = primitives(r.bulk, r.reply.trace.data).and_then(|p| {
        match p.len() < 2 || primitive_order_known(call, req) {
            true => Ok(p),
            false => Err(()),
        }
    });
    let multisampled = gl::get_i(gl::SAMPLES) > 0;
    let passes = match (prims, format) {
        (Ok(p), _) if !p.is_empty() && multisampled => {
            r.reply.passed = PASSES_MULTISAMPLE;
            Vec::new()
        }
        (Ok(p), _) if p.is_empty() => Vec::new(),
        (Err(()), _) => {
            r.reply.passed = PASSES_AMBIGUOUS;
            Vec::new()
        }
        (_, None) => {
            r.reply.passed = PASSES_NO_FORMAT;
            Vec::new()
        }
        (Ok(p), _) if p.len() > req.max_passes as usize => {
            r.reply.passed = PASSES_TOO_MANY;
            Vec::new()
        }
        (Ok(p), Some(format)) => {
            let passes = pass(&mut r, (&t, db, format, ds), &u, &p)?;
            r.reply.passed = PASSES_RUN;
            passes
        }
    };
    writes.finish()?;
    let at = align8(r.reply.trace.data.offset as usize + r.reply.trace.data.len as usize);
    let bytes: Vec<u8> = passes.iter().flat_map(pass_bytes).collect();
    r.reply.passes = r.bulk.put(at, &bytes);
    if r.reply.passes.len as usize != bytes.len() {
        return Err(Error::NoRoom(
            "the fragments' passes do not fit after the records",
        ));
    }
    Ok(())
}

/// The record replay: every write masked, every test off, the pixel alone.
fn record(r: &mut Replay<PixelHistoryReply>, pixel: (i32, i32)) -> Result<(), Error> {
    gl::color_mask([0; 4]);
    gl::depth_mask(gl::FALSE);
    gl::stencil_mask_separate(gl::FRONT_AND_BACK, 0);
    gl::set_enabled(gl::DEPTH_TEST, false);
    gl::set_enabled(gl::STENCIL_TEST, false);
    if r.saved.alpha_test.is_some() {
        gl::set_enabled(gl::ALPHA_TEST, false);
    }
    let Some(_scissor) = PixelScissor::only(pixel) else {
        return Err(Error::Unsupported(
            "this context's scissors cannot be narrowed to the pixel (GL ES viewport arrays)"
                .into(),
        ));
    };
    r.replay("draw", |c| c.draw(None))
}

/// Pass each of `prims` through the app's tests and blending into a copy
/// of the pixel (see the module documentation).
fn pass(
    r: &mut Replay<PixelHistoryReply>,
    (t, db, format, ds): (&TexelRef, u32, u32, Option<(u32, u32)>),
    u: &Uniforms,
    prims: &[u32],
) -> Result<Vec<FragmentPass>, Error> {
    let size = framebuffer_size(r.saved.draw_fb);
    let (format, alpha_one) = copy_of(format);
    let copy = Copy::get(size, format, ds)?;
    // Blits honour the scissor: off while the pixel is copied.
    gl::set_enabled(gl::SCISSOR_TEST, false);
    {
        let _image = ReadImage::bind(t)?;
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, copy.fbo);
        gl::blit_pixel(t.x, t.y, gl::COLOR_BUFFER_BIT);
    }
    if let Some((_, att)) = ds {
        let mask = match att {
            gl::DEPTH_STENCIL_ATTACHMENT => gl::DEPTH_BUFFER_BIT | gl::STENCIL_BUFFER_BIT,
            gl::DEPTH_ATTACHMENT => gl::DEPTH_BUFFER_BIT,
            _ => gl::STENCIL_BUFFER_BIT,
        };
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, r.saved.draw_fb);
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, copy.fbo);
        gl::blit_pixel(t.x, t.y, mask);
    }
    gl::set_enabled(gl::SCISSOR_TEST, r.saved.scissor);
    check_gl("copying the pixel into gldbg's framebuffer")?;
    gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, copy.fbo);
    gl::bind_framebuffer(gl::READ_FRAMEBUFFER, copy.fbo);
    let mut bufs = vec![gl::NONE; db as usize + 1];
    bufs[db as usize] = gl::COLOR_ATTACHMENT0;
    gl::draw_buffers(&bufs);
    gl::read_buffer(gl::COLOR_ATTACHMENT0);
    if alpha_one {
        // The image has no alpha to write (it reads 1): nor has the copy.
        let mut mask = r.saved.color_mask(db);
        mask[3] = 0;
        gl::color_maski(db, mask);
    }
    let Some(_scissor) = PixelScissor::narrow((t.x, t.y)) else {
        return Err(Error::Unsupported(
            "this context's scissors cannot be narrowed to the pixel (GL ES viewport arrays)"
                .into(),
        ));
    };
    let target = match super::context::is_es() {
        true => gl::ANY_SAMPLES_PASSED,
        false => gl::SAMPLES_PASSED,
    };
    let query = Query(gl::gen_query());
    let mut out = Vec::with_capacity(prims.len());
    for &k in prims {
        gl::uniform_1i(u.prim, k as i32);
        gl::begin_query(target, 0, query.0);
        let replayed = r.replay("draw", |c| c.draw_as_app());
        gl::end_query(target, 0);
        replayed?;
        let samples = gl::query_object_u64(query.0, gl::QUERY_RESULT) as u32;
        let mut after = PixelValue {
            color: read_color(t.x, t.y, r.reply.kind),
            ..Default::default()
        };

        read_depth_stencil(t.x, t.y, ds, &mut after);
        out.push(FragmentPass {
            primitive: k,
            samples,
            after,
        });
    }
    check_gl("passing the fragments")?;
    Ok(out)
}

/// A query object of ours, deleted on drop.
struct Query(u32);

impl Drop for Query {
    fn drop(&mut self) {
        gl::delete_query(self.0);
    }
}

/// Our framebuffer of the draw's size with a colour renderbuffer of the
/// image's format and a depth/stencil one like the app's, bound as the
/// draw framebuffer (the `Replay` guard rebinds the app's framebuffers and
/// renderbuffer). Kept per context while size and formats stay (a 1080p
/// pair costs more to allocate than a pass), deleted on `CMD_RELEASE`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Copy {
    context: u64,
    key: ((i32, i32), u32, Option<(u32, u32)>),
    fbo: u32,
    renderbuffers: Vec<u32>,
}

static COPIES: Mutex<Vec<Copy>> = Mutex::new(Vec::new());

impl Copy {
    fn get(size: (i32, i32), format: u32, ds: Option<(u32, u32)>) -> Result<Copy, Error> {
        let (w, h) = size;
        if w <= 0 || h <= 0 {
            return Err(Error::FramebufferSize { w, h });
        }
        let context = crate::intercept::context::current_context();
        let key = (size, format, ds);
        let Ok(mut copies) = COPIES.lock() else {
            return Err(Error::Poisoned("history copy"));
        };
        if let Some(i) = copies.iter().position(|c| c.context == context) {
            let old = copies.remove(i);
            if old.key == key && old.still_ours() {
                gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, old.fbo);
                copies.push(old.clone());
                return Ok(old);
            }
            if old.still_ours() {
                old.delete();
            }
        }
        let copy = Copy::create(context, key)?;
        copies.push(copy.clone());
        Ok(copy)
    }

    fn create(context: u64, key: ((i32, i32), u32, Option<(u32, u32)>)) -> Result<Copy, Error> {
        let ((w, h), format, ds) = key;
        let mut copy = Copy {
            context,
            key,
            fbo: gl::gen_framebuffer(),
            renderbuffers: Vec::new(),
        };
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, copy.fbo);
        let layers = std::iter::once((format, gl::COLOR_ATTACHMENT0)).chain(ds);
        for (fmt, att) in layers {
            let rb = gl::gen_renderbuffer();
            copy.renderbuffers.push(rb);
            gl::bind_renderbuffer(rb);
            gl::renderbuffer_storage(fmt, w, h);
            gl::framebuffer_renderbuffer(gl::DRAW_FRAMEBUFFER, att, rb);
        }
        let status = gl::check_framebuffer_status(gl::DRAW_FRAMEBUFFER);
        let made = check_gl("making gldbg's copy of the pixel");
        if status != gl::FRAMEBUFFER_COMPLETE || made.is_err() {
            copy.delete();
            made?;
            return Err(Error::Incomplete(status));
        }
        Ok(copy)
    }

    /// Whether the names are still ours (a new context may reuse a dead
    /// one's handle, the app the names).
    fn still_ours(&self) -> bool {
        gl::is_framebuffer(self.fbo) && self.renderbuffers.iter().all(|&rb| gl::is_renderbuffer(rb))
    }

    fn delete(&self) {
        gl::bind_framebuffer(gl::FRAMEBUFFER, 0);
        gl::delete_framebuffer(self.fbo);
        gl::bind_renderbuffer(0);
        for &rb in &self.renderbuffers {
            gl::delete_renderbuffer(rb);
        }
    }
}

/// `CMD_RELEASE`: delete the current context's copy, the app's bindings
/// and errors kept.
pub(crate) fn release_copies() {
    if !super::context::has_context() {
        return;
    }
    let context = crate::intercept::context::current_context();
    let mine = match COPIES.lock() {
        Ok(mut copies) => {
            let (mine, rest): (Vec<Copy>, Vec<Copy>) =
                copies.drain(..).partition(|c| c.context == context);
            *copies = rest;
            mine
        }
        Err(_) => return,
    };
    if mine.is_empty() {
        return;
    }
    let _kept = super::target::KeepBindings::save();
    for c in mine.iter().filter(|c| c.still_ours()) {
        c.delete();
    }
}

/// The history program: the request's shaders, the app's attribute and
/// output locations bound before linking; cached as any debug program.
fn program(
    r: &mut Replay<PixelHistoryReply>,
    req: &PixelHistoryRequest,
) -> Result<DebugProgram, Error> {
    let app = r.saved.primary();
    let shaders = &req.shaders[..(req.shader_count as usize).min(req.shaders.len())];
    let still_ours = |d: &DebugProgram| gl::is_program(d.program);
    r.program(
        (Kind::History, app, req.cache_key),
        (BulkRef::default(), &[]),
        (&Mark::Blocks, still_ours),
        |bulk, saved| {
            let fragment_program = saved.program_for(gl::FRAGMENT_SHADER);
            let names = list(bulk, req.outputs);
            let prog = link(bulk, shaders, |prog| {
                bind_app_attributes(app, prog);
                for name in names.iter().filter_map(|n| base_name(n)) {
                    let loc = gl::frag_data_location(fragment_program, name);
                    if loc >= 0 && output_index(fragment_program, name) < 1 {
                        gl::bind_frag_data_location(prog, loc as u32, name);
                    }
                }
                Ok(())
            })?;
            Ok(DebugProgram::plain(prog))
        },
    )
}

/// The variable an output name binds (`o` for `o[0]`; none for other
/// elements and the built-ins).
fn base_name(name: &str) -> Option<&str> {
    if name.starts_with("gl_") {
        return None;
    }
    match name.split_once('[') {
        Some((base, "0]")) => Some(base),
        Some(_) => None,
        None => Some(name),
    }
}

/// The index into `names` of the output draw buffer `db` takes (-1: none).
fn output_for(saved: &Saved, names: &[String], db: u32) -> i32 {
    let prog = saved.program_for(gl::FRAGMENT_SHADER);
    let position = names.iter().position(|n| match n.as_str() {
        "gl_FragColor" => true,
        n if n.starts_with("gl_FragData[") => n == format!("gl_FragData[{db}]"),
        n => gl::frag_data_location(prog, n) == db as i32 && output_index(prog, n) < 1,
    });
    position.map_or(-1, |i| i as i32)
}

/// A list of [`BulkRef`] strings (its own bytes checked first).
fn list(bulk: &Bulk, list: BulkRef) -> Vec<String> {
    let refs = bulk.bytes(list).len() / size_of::<BulkRef>();
    (0..refs.min(list.list_len()))
        .map(|i| bulk.str(bulk.read::<BulkRef>(list.list_item(i))))
        .collect()
}

/// The recorded primitives in order, each once; `Err` where two records
/// share one (their order is unknown).
fn primitives(bulk: &Bulk, data: BulkRef) -> Result<Vec<u32>, ()> {
    let words: Vec<u32> = bulk
        .bytes(data)
        .as_chunks::<4>()
        .0
        .iter()
        .map(|w| u32::from_ne_bytes(*w))
        .collect();
    let mut prims: Vec<u32> = words
        .chunks_exact(shm::HISTORY_RECORD_WORDS)
        .map(|r| r[0])
        .collect();
    let n = prims.len();
    prims.sort_unstable();
    prims.dedup();
    if prims.len() != n {
        return Err(());
    }
    Ok(prims)
}

/// The fixed-function tests' state of the draw.
fn tests_state(saved: &Saved, ds: Option<(u32, u32)>) -> FragmentTests {
    let i = |p| gl::get_i(p);
    let (depth, stencil) = match ds {
        None => (false, false),
        Some((_, att)) => (att != gl::STENCIL_ATTACHMENT, att != gl::DEPTH_ATTACHMENT),
    };
    FragmentTests {
        scissor_on: u32::from(saved.scissor),
        scissor: gl::scissor_box(None),
        depth_on: u32::from(gl::is_enabled(gl::DEPTH_TEST)),
        depth_func: i(gl::DEPTH_FUNC) as u32,
        stencil_on: u32::from(gl::is_enabled(gl::STENCIL_TEST)),
        stencil_func: [i(gl::STENCIL_FUNC) as u32, i(gl::STENCIL_BACK_FUNC) as u32],
        stencil_ref: [i(gl::STENCIL_REF), i(gl::STENCIL_BACK_REF)],
        stencil_mask: [
            i(gl::STENCIL_VALUE_MASK) as u32,
            i(gl::STENCIL_BACK_VALUE_MASK) as u32,
        ],
        alpha_on: u32::from(saved.alpha_test == Some(true)),
        alpha_func: if saved.alpha_test.is_some() {
            i(gl::ALPHA_TEST_FUNC) as u32
        } else {
            0
        },
        alpha_ref: if saved.alpha_test.is_some() {
            gl::get_f(gl::ALPHA_TEST_REF)
        } else {
            0.0
        },
        buffers: u32::from(depth) | u32::from(stencil) << 1,
    }
}

/// A pass as the bytes of its `#[repr(C)]` layout (4-byte fields, no padding).
fn pass_bytes(p: &FragmentPass) -> Vec<u8> {
    let v = &p.after;
    let words = [
        p.primitive,
        p.samples,
        v.color[0],
        v.color[1],
        v.color[2],
        v.color[3],
        v.depth.to_bits(),
        v.stencil,
        v.has_depth,
        v.has_stencil,
    ];
    const _: () = assert!(size_of::<FragmentPass>() == 40);
    words.iter().flat_map(|w| w.to_ne_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::base_name;

    #[test]
    fn outputs_bind_by_their_variable() {
        assert_eq!(base_name("color"), Some("color"));
        assert_eq!(base_name("o[0]"), Some("o"));
        assert_eq!(base_name("o[1]"), None);
        assert_eq!(base_name("gl_FragData[0]"), None);
    }
}
