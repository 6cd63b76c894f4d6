//! The fragment step in an OpenGL ES 2.x context, which has no float render
//! target, no `glReadBuffer`, no separate draw and read framebuffers and
//! no per-buffer state. The debug shader (glsl-instrument's `Api::Es2`)
//! writes each value component's IEEE-754 bits into an RGBA8 output of its
//! own (`gl_FragData[k..k+4]`, through GL_EXT_draw_buffers) and the
//! coverage code into `gl_FragData[k+4]`; here they are rendered into
//! RGBA8 textures of ours, read back one at a time through a framebuffer
//! of ours, and put into the bulk region in the layout of the float step
//! (four f32 per pixel, one coverage byte per pixel). The app's depth and
//! stencil buffers cannot be copied (no `glBlitFramebuffer`): a test the
//! app has on needs `depth=clear|off` / `stencil=off`.

use std::time::Instant;

use gldbg_proto::shm::{self, BulkRef, FragmentStepReply, FragmentStepRequest};

use crate::generated::real;
use crate::gl;
use crate::intercept::errors::drain_own_errors;

use super::bulk::Bulk;
use super::error::Error;
use super::pipeline::{Call, StepRequest, check_gl};
use super::program::link;
use super::records::VALUE_BYTES;
use super::target::framebuffer_size;
use super::uniforms::{bind_app_attributes, copy_uniforms, set_path};

const TEXTURE_2D: u32 = 0x0DE1;
const TEXTURE_BINDING_2D: u32 = 0x8069;
const FRAMEBUFFER: u32 = 0x8D40;
const FRAMEBUFFER_BINDING: u32 = 0x8CA6;
const CURRENT_PROGRAM: u32 = 0x8B8D;
const COLOR_WRITEMASK: u32 = 0x0C23;
const COLOR_CLEAR_VALUE: u32 = 0x0C22;
const DEPTH_BITS: u32 = 0x0D56;
const STENCIL_BITS: u32 = 0x0D57;
const RGBA: u32 = 0x1908;
const UNSIGNED_BYTE: u32 = 0x1401;
const TEXTURE_MIN_FILTER: u32 = 0x2801;
const NEAREST: i32 = 0x2600;
const DEPTH_COMPONENT16: u32 = 0x81A5;
const MAX_DRAW_BUFFERS: u32 = 0x8824;

/// Outputs of a packed value: four components, then the coverage.
const OUTPUTS: u32 = 5;
/// Bytes per pixel in the bulk region: the value, the coverage byte and
/// one RGBA8 texel of scratch (read one texture at a time), with room.
const PIXEL_BYTES: usize = 24;

fn get_f4(pname: u32) -> [f32; 4] {
    let mut v = [0f32; 16];
    // SAFETY: real GL on the stopped app thread; at most 16 floats written.
    unsafe { real::glGetFloatv(pname, v.as_mut_ptr().cast()) };
    [v[0], v[1], v[2], v[3]]
}

fn get_b4(pname: u32) -> [u8; 4] {
    let mut v = [0u8; 16];
    // SAFETY: real GL on the stopped app thread; at most 16 booleans written.
    unsafe { real::glGetBooleanv(pname, v.as_mut_ptr().cast()) };
    [v[0], v[1], v[2], v[3]]
}

fn color_mask(m: [u8; 4]) {
    // SAFETY: real GL on the stopped app thread.
    unsafe { real::glColorMask(m[0], m[1], m[2], m[3]) }
}

fn clear(c: [f32; 4], bits: u32) {
    // SAFETY: real GL on the stopped app thread.
    unsafe {
        real::glClearColor(c[0], c[1], c[2], c[3]);
        real::glClear(bits);
    }
}

fn bind_texture(tex: u32) {
    // SAFETY: real GL on the stopped app thread.
    unsafe { real::glBindTexture(TEXTURE_2D, tex) }
}

/// A new `w` x `h` RGBA8 texture, bound.
fn rgba8_texture(w: i32, h: i32) -> u32 {
    let mut t = 0u32;
    // SAFETY: real GL on the stopped app thread; one name written to `t`,
    // no pixel data read (null).
    unsafe {
        real::glGenTextures(1, (&mut t as *mut u32).cast());
        real::glBindTexture(TEXTURE_2D, t);
        real::glTexParameteri(TEXTURE_2D, TEXTURE_MIN_FILTER, NEAREST);
        real::glTexImage2D(
            TEXTURE_2D,
            0,
            RGBA as i32,
            w,
            h,
            0,
            RGBA,
            UNSIGNED_BYTE,
            std::ptr::null_mut(),
        );
    }
    t
}

fn attach_texture(attachment: u32, tex: u32) {
    // SAFETY: real GL on the stopped app thread.
    unsafe { real::glFramebufferTexture2D(FRAMEBUFFER, attachment, TEXTURE_2D, tex, 0) }
}

fn draw_buffers_ext(bufs: &[u32]) {
    // SAFETY: real GL on the stopped app thread; `bufs` holds `len` enums.
    unsafe { real::glDrawBuffersEXT(bufs.len() as i32, bufs.as_ptr() as *mut _) }
}

fn read_rgba8(w: i32, h: i32, dst: &mut [u8]) {
    assert!(dst.len() >= (w as usize) * (h as usize) * 4);
    // SAFETY: real GL on the stopped app thread; `dst` holds w*h RGBA8
    // pixels (asserted) and PACK_ALIGNMENT is 1 (rows of 4*w bytes).
    unsafe { real::glReadPixels(0, 0, w, h, RGBA, UNSIGNED_BYTE, dst.as_mut_ptr().cast()) }
}

/// What the step changes, as the app had it.
struct Saved2 {
    program: u32,
    framebuffer: u32,
    renderbuffer: u32,
    texture: u32,
    blend: bool,
    scissor: bool,
    depth_test: bool,
    stencil_test: bool,
    mask: [u8; 4],
    clear: [f32; 4],
    pack_alignment: i32,
}

impl Saved2 {
    fn capture() -> Saved2 {
        Saved2 {
            program: gl::get_i(CURRENT_PROGRAM) as u32,
            framebuffer: gl::get_i(FRAMEBUFFER_BINDING) as u32,
            renderbuffer: gl::get_i(gl::RENDERBUFFER_BINDING) as u32,
            texture: gl::get_i(TEXTURE_BINDING_2D) as u32,
            blend: gl::is_enabled(gl::BLEND),
            scissor: gl::is_enabled(gl::SCISSOR_TEST),
            depth_test: gl::is_enabled(gl::DEPTH_TEST),
            stencil_test: gl::is_enabled(gl::STENCIL_TEST),
            mask: get_b4(COLOR_WRITEMASK),
            clear: get_f4(COLOR_CLEAR_VALUE),
            pack_alignment: gl::get_i(gl::PACK_ALIGNMENT),
        }
    }

    fn restore(&self) {
        gl::use_program(self.program);
        gl::bind_framebuffer(FRAMEBUFFER, self.framebuffer);
        gl::bind_renderbuffer(self.renderbuffer);
        bind_texture(self.texture);
        gl::set_enabled(gl::BLEND, self.blend);
        gl::set_enabled(gl::SCISSOR_TEST, self.scissor);
        gl::set_enabled(gl::DEPTH_TEST, self.depth_test);
        gl::set_enabled(gl::STENCIL_TEST, self.stencil_test);
        color_mask(self.mask);
        // SAFETY: real GL on the stopped app thread.
        unsafe { real::glClearColor(self.clear[0], self.clear[1], self.clear[2], self.clear[3]) };
        gl::pixel_store(gl::PACK_ALIGNMENT, self.pack_alignment);
    }
}

/// The objects of one step, deleted after it.
#[derive(Default)]
struct Objects {
    program: u32,
    fbo: u32,
    read_fbo: u32,
    textures: Vec<u32>,
    depth_rb: u32,
}

impl Objects {
    fn delete(&self) {
        if self.program != 0 {
            gl::delete_program(self.program);
        }
        for &f in [self.fbo, self.read_fbo].iter().filter(|&&f| f != 0) {
            gl::delete_framebuffer(f);
        }
        for &t in &self.textures {
            gl::delete_texture(t);
        }
        if self.depth_rb != 0 {
            gl::delete_renderbuffer(self.depth_rb);
        }
    }
}

/// One ES 2 step's state: the app's, put back when dropped, and our
/// objects, deleted then.
struct Es2Replay {
    saved: Saved2,
    objects: Objects,
}

impl Drop for Es2Replay {
    fn drop(&mut self) {
        self.saved.restore();
        self.objects.delete();
        drain_own_errors();
    }
}

/// `CMD_FRAGMENT_STEP` in an ES 2.x context (the app's errors held).
pub(crate) fn step(
    bulk: &mut Bulk,
    call: Call,
    req: &FragmentStepRequest,
    reply: &mut FragmentStepReply,
) -> Result<(), Error> {
    let mut r = Es2Replay {
        saved: Saved2::capture(),
        objects: Objects::default(),
    };
    reply.program = r.saved.program;
    reply.framebuffer = r.saved.framebuffer;
    let (k, depth) = check(req, &r.saved)?;

    let t0 = Instant::now();
    let prog = link(bulk, req.shaders(), |prog| {
        bind_app_attributes(r.saved.program, prog);
        Ok(())
    })?;
    r.objects.program = prog;
    gl::use_program(prog);
    copy_uniforms(r.saved.program, prog);
    let (uniform, path) = req.path();
    set_path(bulk, prog, uniform, path);
    reply.build_ns = t0.elapsed().as_nanos() as u64;

    let (w, h) = framebuffer(&mut r, req, k, depth)?;
    (reply.width, reply.height) = (w as u32, h as u32);
    // The replay: the app's scissor; its depth test unless switched off;
    // never blending (the values are written as they are).
    gl::set_enabled(gl::SCISSOR_TEST, r.saved.scissor);
    gl::set_enabled(gl::BLEND, false);
    if !depth || req.depth == shm::TEST_OFF {
        gl::set_enabled(gl::DEPTH_TEST, false);
    }
    if req.stencil == shm::TEST_OFF {
        gl::set_enabled(gl::STENCIL_TEST, false);
    }
    drain_own_errors();
    let t1 = Instant::now();
    call.draw(None);
    let replayed = match drain_own_errors() {
        0 => Ok(()),
        code => Err(Error::Replay { what: "draw", code }),
    };
    reply.replay_ns = t1.elapsed().as_nanos() as u64;
    replayed?;

    let t2 = Instant::now();
    read_back(bulk, (w, h), &mut r.objects, reply)?;
    reply.readback_ns = t2.elapsed().as_nanos() as u64;
    Ok(())
}

/// What the step needs of the request and the app's state: the packed
/// outputs' first location `k` (within the draw buffers), and whether the
/// draw has a depth test (then cleared or off: ES 2 cannot copy it).
fn check(req: &FragmentStepRequest, saved: &Saved2) -> Result<(u32, bool), Error> {
    let k = req.value_output.frag_data_index;
    if k < 0 || req.coverage_output.frag_data_index != k + OUTPUTS as i32 - 1 {
        return Err(Error::Call(
            "an OpenGL ES 2 fragment step needs the packed debug outputs (internal)".into(),
        ));
    }
    let k = k as u32;
    let max_db = gl::get_i(MAX_DRAW_BUFFERS).max(1) as u32;
    if k + OUTPUTS > max_db {
        return Err(Error::Unsupported(format!(
            "fragment debugging in OpenGL ES 2 writes {} outputs after the app's {k}; this \
             context has {max_db} draw buffers (GL_EXT_draw_buffers)",
            OUTPUTS
        )));
    }
    let depth = saved.depth_test && gl::get_i(DEPTH_BITS) > 0;
    if depth && req.depth == shm::BUFFER_COPY {
        return Err(Error::Unsupported(
            "the draw has a depth test, and copying the app's depth buffer needs \
             glBlitFramebuffer (OpenGL ES 3.0), which this OpenGL ES 2 context lacks: use \
             `debug fragment depth=clear` or `depth=off`"
                .into(),
        ));
    }
    if saved.stencil_test && gl::get_i(STENCIL_BITS) > 0 && req.stencil != shm::TEST_OFF {
        return Err(Error::Unsupported(
            "the draw has a stencil test, and this OpenGL ES 2 context cannot copy or keep \
             the app's stencil buffer: use `debug fragment stencil=off`"
                .into(),
        ));
    }
    Ok((k, depth))
}

/// Our framebuffer of the draw's size, bound and cleared: RGBA8 textures
/// at the packed outputs `k..k + OUTPUTS`, a depth buffer where the draw's
/// depth test runs on a cleared one. Returns the size.
fn framebuffer(
    r: &mut Es2Replay,
    req: &FragmentStepRequest,
    k: u32,
    depth: bool,
) -> Result<(i32, i32), Error> {
    gl::bind_framebuffer(FRAMEBUFFER, r.saved.framebuffer);
    let (w, h) = framebuffer_size(r.saved.framebuffer);
    if w <= 0 || h <= 0 {
        return Err(Error::FramebufferSize { w, h });
    }
    let npix = (w as usize) * (h as usize);
    if shm::BULK_DATA + npix * PIXEL_BYTES > shm::BULK_SIZE {
        return Err(Error::TooLarge { w, h });
    }
    let objects = &mut r.objects;
    objects.fbo = gl::gen_framebuffer();
    gl::bind_framebuffer(FRAMEBUFFER, objects.fbo);
    let mut bufs = vec![gl::NONE; (k + OUTPUTS) as usize];
    for i in 0..OUTPUTS {
        let tex = rgba8_texture(w, h);
        objects.textures.push(tex);
        attach_texture(gl::COLOR_ATTACHMENT0 + k + i, tex);
        bufs[(k + i) as usize] = gl::COLOR_ATTACHMENT0 + k + i;
    }
    if depth && req.depth == shm::BUFFER_CLEAR {
        objects.depth_rb = gl::gen_renderbuffer();
        gl::bind_renderbuffer(objects.depth_rb);
        gl::renderbuffer_storage(DEPTH_COMPONENT16, w, h);
        gl::framebuffer_renderbuffer(FRAMEBUFFER, gl::DEPTH_ATTACHMENT, objects.depth_rb);
    }
    draw_buffers_ext(&bufs);
    let status = gl::check_framebuffer_status(FRAMEBUFFER);
    if status != gl::FRAMEBUFFER_COMPLETE {
        return Err(Error::Incomplete(status));
    }
    gl::set_enabled(gl::SCISSOR_TEST, false);
    color_mask([1; 4]);
    let app_depth_mask = gl::get_b(gl::DEPTH_WRITEMASK);
    let bits = gl::COLOR_BUFFER_BIT
        | if objects.depth_rb != 0 {
            gl::DEPTH_BUFFER_BIT
        } else {
            0
        };
    gl::depth_mask(gl::TRUE);
    clear([0.0; 4], bits);
    gl::depth_mask(app_depth_mask);
    Ok((w, h))
}

/// Read the five textures back, one at a time at attachment 0 of a
/// framebuffer of ours (ES 2 reads only there), and lay the values out as
/// the float step does: four f32 per pixel, then one coverage byte each.
fn read_back(
    bulk: &mut Bulk,
    (w, h): (i32, i32),
    objects: &mut Objects,
    reply: &mut FragmentStepReply,
) -> Result<(), Error> {
    let npix = (w as usize) * (h as usize);
    let values_off = shm::BULK_DATA;
    let coverage_off = values_off + npix * VALUE_BYTES;
    let scratch_off = coverage_off + npix;
    let [scratch, values, coverage] = bulk
        .disjoint_mut([
            (scratch_off, npix * 4),
            (values_off, npix * VALUE_BYTES),
            (coverage_off, npix),
        ])
        .ok_or(Error::NoRoom("bulk region too small"))?;
    objects.read_fbo = gl::gen_framebuffer();
    gl::bind_framebuffer(FRAMEBUFFER, objects.read_fbo);
    gl::pixel_store(gl::PACK_ALIGNMENT, 1);
    for (i, &tex) in objects.textures.iter().enumerate() {
        attach_texture(gl::COLOR_ATTACHMENT0, tex);
        read_rgba8(w, h, scratch);
        if i < 4 {
            for (p, b) in scratch.chunks_exact(4).enumerate() {
                let v = unpack([b[0], b[1], b[2], b[3]]);
                let at = p * VALUE_BYTES + i * 4;
                values[at..at + 4].copy_from_slice(&v.to_ne_bytes());
            }
        } else {
            for (d, b) in coverage.iter_mut().zip(scratch.chunks_exact(4)) {
                *d = if b[0] != 0 { 255 } else { 0 };
                if b[0] != 0 && reply.coverage_code == 0 {
                    reply.coverage_code = u32::from(b[0]);
                }
            }
        }
    }
    check_gl("reading the debug images back")?;
    reply.values = BulkRef::at(values_off, npix * VALUE_BYTES);
    reply.value_components = 4;
    reply.coverage = BulkRef::at(coverage_off, npix);
    Ok(())
}

/// The float of four packed bytes: its IEEE-754 bits, least significant
/// byte in red (glsl-instrument's `Api::Es2` outputs).
fn unpack(rgba: [u8; 4]) -> f32 {
    f32::from_bits(u32::from_le_bytes(rgba))
}
