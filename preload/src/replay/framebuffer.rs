//! The framebuffer strategy (`CMD_FRAGMENT_STEP`): the stopped draw
//! replayed with the debug program into a private framebuffer of the
//! draw's size ([`DebugTarget`]), the value and coverage outputs read
//! straight into the shared mapping (`FragmentStepReply`). A GL ES 2
//! context, without float render targets, packs the values instead
//! (`es2.rs`).

use gldbg_proto::shm::{self, BulkRef, FragmentStepReply, FragmentStepRequest};

use crate::gl;
use crate::intercept::errors::drain_own_errors;

use super::bulk::Bulk;
use super::context::is_es;
use super::error::Error;
use super::pipeline::{Call, Replay, StepRequest, check_gl, command};
use super::pixel_scissor::PixelScissor;
use super::program::{DebugProgram, Kind, Mark, link};
use super::query::output_index;
use super::records::{COVERAGE_WORD, VALUE_BYTES};
use super::state::{PACK_TIGHT, Saved, pack_params_here};
use super::target::{
    DebugTarget, Purpose, clear_depth_stencil, depth_stencil_format, framebuffer_size,
};
use super::uniforms::bind_app_attributes;

/// Bytes per pixel the step reads back: the value (RGBA32F) and the
/// coverage (one byte after its R32F is read).
const PIXEL_BYTES: usize = VALUE_BYTES + COVERAGE_WORD;
/// On GL ES also the coverage read as RGBA32F first (ES reads float
/// images only as RGBA).
const PIXEL_BYTES_ES: usize = PIXEL_BYTES + VALUE_BYTES;

/// `CMD_FRAGMENT_STEP` for the stopped call `id` with `args`.
pub fn fragment_step(id: u32, args: &[u64]) -> u32 {
    command(id, args, check, step)
}

fn check(call: Call, _: &FragmentStepRequest) -> Result<(), Error> {
    call.replayable(true)?;
    // Before any state is touched: what this GL ES context lacks.
    match super::es::fragment_unsupported() {
        Some(why) => Err(Error::Unsupported(why)),
        None => Ok(()),
    }
}

fn step(
    bulk: &mut Bulk,
    call: Call,
    req: &FragmentStepRequest,
    reply: &mut FragmentStepReply,
) -> Result<(), Error> {
    if super::context::es_version().is_some_and(|v| v.0 < 3) {
        // No storage buffers in GL ES 2: the step runs without its trace.
        if req.trace.block.len > 0 {
            reply.trace.status = shm::TRACE_UNSUPPORTED;
        }
        return super::es2::step(bulk, call, req, reply);
    }
    let max_db = gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32;
    let mut r = Replay::begin(bulk, call, reply, max_db).tracing(req.trace, gl::FRAGMENT_SHADER);
    r.reply.program = r.saved.program;
    r.reply.framebuffer = r.saved.draw_fb;
    r.saved.check_programs()?;
    let dbg = debug_program(&mut r, req, max_db)?;
    let size = draw_size(&r.saved)?;
    (r.reply.width, r.reply.height) = (size.0 as u32, size.1 as u32);
    let target = prepare(&r.saved, req, &dbg, size, max_db)?;
    let writes = r.writes(dbg.program)?;
    let components = req.value_components.min(4) as usize;
    // A point print shades its pixel alone (pixel_scissor.rs) where no
    // invocation can see another's work: nothing written to buffers or
    // images, no subgroup or helper-invocation functions. A trace asked
    // with a point is that pixel's (the daemon's predicate): our block is
    // not among the writes.
    let point = point_of(req, components, size)
        .filter(|_| writes.counts() == (0, 0) && !sees_other_invocations(r.bulk, req));
    let scissor = point.and_then(PixelScissor::narrow);
    let narrowed = scissor.is_some();
    let replayed = r.replay("draw", |call| call.draw(None));
    drop(scissor);
    let restored = writes.finish();
    replayed?;
    restored?;
    r.read_back(|r| {
        // One pixel or a GPU summary where asked (and possible), else everything.
        let images = super::readback::Images {
            fbo: target.fbo,
            value_loc: dbg.value_loc,
            coverage_loc: dbg.coverage_loc,
            size,
            components,
            unclamp: r.saved.clamp_read != 0,
            scissored: narrowed,
        };
        if super::readback::fragment_reply(r.bulk, &req.readback, &images, r.reply) {
            return Ok(());
        }
        if narrowed {
            // The images hold the one pixel: never read them as the draw's.
            return Err(match drain_own_errors() {
                0 => Error::NoRoom("cannot read the printed pixel back"),
                code => Error::Gl {
                    doing: "reading the printed pixel back",
                    code,
                },
            });
        }
        read_back(r, size, (&dbg, components), &target)
    })
}

/// The pixel of a point print inside the draw's `size`, if this step is
/// one (a value asked for, one invocation read back).
fn point_of(req: &FragmentStepRequest, components: usize, size: (i32, i32)) -> Option<(i32, i32)> {
    let [x, y, _] = req.readback.cell;
    let inside = (x as i64) < i64::from(size.0) && (y as i64) < i64::from(size.1);
    (req.readback.mode == shm::READBACK_ONE && components > 0 && inside)
        .then_some((x as i32, y as i32))
}

/// Whether the fragment shader may use functions whose result depends on
/// other invocations than the pixel's quad running (subgroup and ballot
/// functions, `gl_HelperInvocation`, shuffles; by name, so a false alarm
/// only costs the narrowing).
fn sees_other_invocations(bulk: &Bulk, req: &FragmentStepRequest) -> bool {
    const WORDS: [&str; 4] = ["subgroup", "ballot", "invocation", "shuffle"];
    let count = (req.shader_count as usize).min(req.shaders.len());
    req.shaders[..count]
        .iter()
        .filter(|s| s.gl_type == gl::FRAGMENT_SHADER)
        .any(|s| {
            let source = bulk.str(s.source).to_ascii_lowercase();
            WORDS.iter().any(|w| source.contains(w))
        })
}

/// The cached or new debug program, current with the app's resources.
fn debug_program(
    r: &mut Replay<FragmentStepReply>,
    req: &FragmentStepRequest,
    max_db: u32,
) -> Result<DebugProgram, Error> {
    // A context handle can be reused after the app destroys its context:
    // trust a cached program only if it still has our value output.
    let value_name = r.bulk.str(req.value_output.name);
    let still_ours = |d: &DebugProgram| {
        gl::is_program(d.program)
            && (req.value_output.frag_data_index >= 0
                || gl::frag_data_location(d.program, &value_name) == d.value_loc as i32)
    };
    let mark = match req.value_output.frag_data_index >= 0 {
        true => Mark::Linked,
        false => Mark::Output(value_name.clone()),
    };
    let app = r.saved.primary();
    r.program(
        (Kind::Fragment, app, req.cache_key),
        req.path(),
        (&mark, still_ours),
        |bulk, saved| build_program(bulk, saved, req, max_db),
    )
}

/// The draw framebuffer's size, if the step's readback fits.
fn draw_size(saved: &Saved) -> Result<(i32, i32), Error> {
    let (w, h) = framebuffer_size(saved.draw_fb);
    if w <= 0 || h <= 0 {
        return Err(Error::FramebufferSize { w, h });
    }
    let per_pixel = if is_es() { PIXEL_BYTES_ES } else { PIXEL_BYTES };
    if shm::BULK_DATA + (w as usize) * (h as usize) * per_pixel > shm::BULK_SIZE {
        return Err(Error::TooLarge { w, h });
    }
    Ok((w, h))
}

/// Bind our target of the draw's size and depth/stencil layout, cleared
/// (the app's depth and stencil copied in where asked), with the app's
/// scissor, discard and tests (unless the user switched them off) and no
/// blending.
fn prepare(
    saved: &Saved,
    req: &FragmentStepRequest,
    dbg: &DebugProgram,
    (w, h): (i32, i32),
    max_db: u32,
) -> Result<DebugTarget, Error> {
    let ds = depth_stencil_format(saved.draw_fb);
    let context = crate::intercept::context::current_context();
    let locs = (dbg.value_loc, dbg.coverage_loc);
    let target = DebugTarget::get(context, Purpose::Fragment, (w, h), ds, locs)?;
    // Clears: no scissor, no discard, all masks open.
    gl::set_enabled(gl::SCISSOR_TEST, false);
    gl::set_enabled(gl::RASTERIZER_DISCARD, false);
    for i in [dbg.value_loc, dbg.coverage_loc] {
        gl::color_maski(i, [1, 1, 1, 1]);
    }
    // Blending never applies to the debug outputs: a value is written as it
    // is. It is off on every draw buffer (the app's are NONE here).
    for i in 0..max_db {
        gl::set_enabledi(gl::BLEND, i, false);
    }
    // Only the coverage needs clearing: a value counts where it is nonzero.
    gl::clear_buffer_fv(gl::COLOR, dbg.coverage_loc as i32, [0.0; 4]);
    if let Some((_, att)) = ds {
        copy_depth_stencil(saved, req, (w, h), att, target.fbo);
    }
    // The replay runs with the app's scissor and discard state, and its
    // tests unless the user switched them off.
    gl::set_enabled(gl::SCISSOR_TEST, saved.scissor);
    gl::set_enabled(gl::RASTERIZER_DISCARD, saved.discard);
    if req.depth == shm::TEST_OFF {
        gl::set_enabled(gl::DEPTH_TEST, false);
    }
    if req.stencil == shm::TEST_OFF {
        gl::set_enabled(gl::STENCIL_TEST, false);
    }
    if req.alpha_test_off != 0 && saved.alpha_test.is_some() {
        gl::set_enabled(gl::ALPHA_TEST, false);
    }
    drain_own_errors();
    Ok(target)
}

/// Clear our depth/stencil attachment `att`, then copy the app's in where
/// the request asks (a format mismatch keeps the cleared one).
fn copy_depth_stencil(
    saved: &Saved,
    req: &FragmentStepRequest,
    (w, h): (i32, i32),
    att: u32,
    fbo: u32,
) {
    gl::depth_mask(gl::TRUE);
    gl::stencil_mask_separate(gl::FRONT_AND_BACK, !0);
    clear_depth_stencil(att);
    let bit = |buffer: u32, bit: u32| if buffer == shm::BUFFER_COPY { bit } else { 0 };
    let copy = bit(req.depth, gl::DEPTH_BUFFER_BIT) | bit(req.stencil, gl::STENCIL_BUFFER_BIT);
    if copy != 0 {
        drain_own_errors();
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, saved.draw_fb);
        gl::blit_framebuffer(w, h, copy);
        if drain_own_errors() != 0 {
            // Formats differ: keep the cleared depth/stencil.
            clear_depth_stencil(att);
        }
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, fbo);
    }
    gl::depth_mask(saved.depth_mask);
    saved.restore_stencil_masks();
}

/// Read the coverage (R32F) and the value's first `components` channels
/// (of RGBA32F; none for 0) of the target into the bulk region, and say
/// where in the reply: a step needs the coverage alone, a scalar one
/// channel of four, so most of a 1080p readback is never made.
fn read_back(
    r: &mut Replay<FragmentStepReply>,
    (w, h): (i32, i32),
    (dbg, components): (&DebugProgram, usize),
    target: &DebugTarget,
) -> Result<(), Error> {
    let es = is_es();
    gl::bind_framebuffer(gl::READ_FRAMEBUFFER, target.fbo);
    gl::bind_buffer(gl::PIXEL_PACK_BUFFER, 0);
    for (p, v) in pack_params_here(es).iter().zip(PACK_TIGHT) {
        gl::pixel_store(*p, v);
    }
    if r.saved.clamp_read != 0 {
        gl::clamp_color(gl::CLAMP_READ_COLOR, gl::FALSE as u32);
    }
    let npix = (w as usize) * (h as usize);
    // GL ES reads float images as RGBA only.
    let components = match components {
        0 => 0,
        _ if es => 4,
        n => n,
    };
    let values_off = shm::BULK_DATA;
    let values_len = npix * 4 * components;
    let coverage_off = values_off + npix * VALUE_BYTES;
    // GL ES: the coverage read as RGBA into the space after it.
    let rgba = (
        coverage_off + npix * COVERAGE_WORD,
        if es { npix * VALUE_BYTES } else { 0 },
    );
    let [values, coverage, rgba] = r
        .bulk
        .disjoint_mut([(values_off, values_len), (coverage_off, npix), rgba])
        .ok_or(Error::NoRoom("bulk region too small"))?;
    if components > 0 {
        gl::read_buffer(gl::COLOR_ATTACHMENT0 + dbg.value_loc);
        let format = [gl::RED, gl::RG, gl::RGB, gl::RGBA][components - 1];
        gl::read_pixels_f32(w, h, format, values);
    }
    gl::read_buffer(gl::COLOR_ATTACHMENT0 + dbg.coverage_loc);
    r.reply.coverage_code = match es {
        true => coverage_from_rgba(w, h, rgba, coverage),
        false => read_coverage(w, h, dbg, target, coverage),
    };
    check_gl("reading the debug images back")?;
    r.reply.values = BulkRef::at(values_off, values_len);
    r.reply.value_components = components as u32;
    r.reply.coverage = BulkRef::at(coverage_off, npix);
    Ok(())
}

/// GL ES reads float attachments only as RGBA/FLOAT: read into `rgba`,
/// then keep one byte per pixel; returns the type code.
fn coverage_from_rgba(w: i32, h: i32, rgba: &mut [u8], coverage: &mut [u8]) -> u32 {
    gl::read_pixels_f32(w, h, gl::RGBA, rgba);
    let mut code = 0;
    for (d, t) in coverage.iter_mut().zip(rgba.chunks_exact(VALUE_BYTES)) {
        let red = f32::from_ne_bytes([t[0], t[1], t[2], t[3]]);
        *d = if red != 0.0 { 255 } else { 0 };
        if red != 0.0 && code == 0 {
            code = red as u32;
        }
    }
    code
}

/// The coverage as one byte per pixel (through the R8 target where there
/// is one: the driver then reads its native format); returns the type
/// code, read from one reached pixel.
fn read_coverage(
    w: i32,
    h: i32,
    dbg: &DebugProgram,
    target: &DebugTarget,
    coverage: &mut [u8],
) -> u32 {
    if target.bytes_fbo != 0 {
        // The blit clamps the codes (1..=17) to 1.0: 255. No scissor,
        // discard or mask of the app's applies to it (`Saved` restores).
        gl::set_enabled(gl::SCISSOR_TEST, false);
        gl::set_enabled(gl::RASTERIZER_DISCARD, false);
        gl::color_maski(0, [1, 1, 1, 1]);
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, target.bytes_fbo);
        gl::blit_framebuffer(w, h, gl::COLOR_BUFFER_BIT);
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, target.bytes_fbo);
        gl::read_buffer(gl::COLOR_ATTACHMENT0);
    }
    gl::read_pixels_red_u8(w, h, coverage);
    gl::bind_framebuffer(gl::READ_FRAMEBUFFER, target.fbo);
    gl::read_buffer(gl::COLOR_ATTACHMENT0 + dbg.coverage_loc);
    match coverage.iter().position(|&c| c != 0) {
        Some(i) => {
            let (x, y) = ((i % w as usize) as i32, (i / w as usize) as i32);
            gl::read_pixel_red_f32(x, y) as u32
        }
        None => 0,
    }
}

/// Compile, bind locations and link the debug program of a request.
fn build_program(
    bulk: &Bulk,
    saved: &Saved,
    req: &FragmentStepRequest,
    max_db: u32,
) -> Result<DebugProgram, Error> {
    let app = saved.primary();
    let value_name = bulk.str(req.value_output.name);
    let coverage_name = bulk.str(req.coverage_output.name);
    let mut locs = (0, 0);
    let prog = link(bulk, req.shaders(), |prog| {
        bind_app_attributes(app, prog);
        let mut used = bind_app_outputs(bulk, saved, req, prog, max_db)?;
        let mut choose = |out: &shm::OutputRef, name: &str| -> Result<u32, Error> {
            if out.frag_data_index >= 0 {
                used.push(out.frag_data_index as u32);
                return Ok(out.frag_data_index as u32);
            }
            let loc = (0..max_db)
                .find(|l| !used.contains(l))
                .ok_or_else(|| Error::NoOutputLocation(name.to_string()))?;
            used.push(loc);
            gl::bind_frag_data_location(prog, loc, name);
            Ok(loc)
        };
        locs = (
            choose(&req.value_output, &value_name)?,
            choose(&req.coverage_output, &coverage_name)?,
        );
        Ok(())
    })?;
    let (mut value_loc, mut coverage_loc) = locs;
    // Explicit layout locations in the shader win over our bindings: ask.
    let asked = |out: &shm::OutputRef, name: &str, loc: &mut u32| {
        if out.frag_data_index < 0 {
            let l = gl::frag_data_location(prog, name);
            if l >= 0 {
                *loc = l as u32;
            }
        }
    };
    asked(&req.value_output, &value_name, &mut value_loc);
    asked(&req.coverage_output, &coverage_name, &mut coverage_loc);
    if value_loc == coverage_loc || value_loc >= max_db || coverage_loc >= max_db {
        gl::delete_program(prog);
        return Err(Error::OutputLocations {
            value: value_loc,
            coverage: coverage_loc,
        });
    }
    Ok(DebugProgram {
        program: prog,
        value_loc,
        coverage_loc,
    })
}

/// Give the app's fragment outputs their locations in `prog`; returns the
/// locations taken. A dual-source blending output (index 1) goes to a
/// free location of its own at index 0: with a second source a driver may
/// allow no other colour output (NVIDIA), and the debug program adds two.
fn bind_app_outputs(
    bulk: &Bulk,
    saved: &Saved,
    req: &FragmentStepRequest,
    prog: u32,
    max_db: u32,
) -> Result<Vec<u32>, Error> {
    let fragment_program = saved.program_for(gl::FRAGMENT_SHADER);
    let mut used = Vec::new();
    // The list's own bytes first: a bad length reads nothing, not 2^29 names.
    let list = req.app_outputs;
    let refs = bulk.bytes(list).len() / size_of::<BulkRef>();
    let app_outputs: Vec<String> = (0..refs.min(list.list_len()))
        .map(|i| bulk.str(bulk.read::<BulkRef>(list.list_item(i))))
        .filter(|name| !name.trim().is_empty())
        .collect();
    let mut second_sources = Vec::new();
    for name in app_outputs.iter().map(String::as_str) {
        let loc = gl::frag_data_location(fragment_program, name);
        if loc >= 0 {
            if output_index(fragment_program, name) >= 1 {
                second_sources.push(name);
                continue;
            }
            gl::bind_frag_data_location(prog, loc as u32, name);
            used.push(loc as u32);
        }
    }
    for name in second_sources {
        let loc = (0..max_db)
            .find(|l| !used.contains(l))
            .ok_or_else(|| Error::NoOutputLocation(format!("the second source {name}")))?;
        gl::bind_frag_data_location(prog, loc, name);
        used.push(loc);
    }
    Ok(used)
}
