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

use crate::replay::fragment::{
    Bulk, Failure, bind_app_attributes, cleanup, compile_attach, copy_uniforms,
    framebuffer_size, replay_draw, replay_errors, set_path,
};
use crate::generated::real;
use crate::gl;
use crate::intercept::errors::drain_own_errors;

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
const FRAGMENT_SHADER: u32 = 0x8B30;
const HIGH_FLOAT: u32 = 0x8DF2;
const MAX_DRAW_BUFFERS: u32 = 0x8824;

/// Outputs of a packed value: four components, then the coverage.
const OUTPUTS: u32 = 5;

/// Whether fragment shaders have 32-bit floats here (`highp`).
pub(crate) fn fragment_highp() -> bool {
    let (mut range, mut precision) = ([0i32; 2], 0i32);
    // SAFETY: a real GL entry point on the stopped app thread; it writes two
    // ints to `range` and one to `precision`, both local.
    unsafe {
        real::glGetShaderPrecisionFormat(
            FRAGMENT_SHADER,
            HIGH_FLOAT,
            range.as_mut_ptr().cast(),
            (&mut precision as *mut i32).cast(),
        )
    };
    precision >= 23
}

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

/// `CMD_FRAGMENT_STEP` in an ES 2.x context (the app's errors held).
pub(crate) fn fragment_step(
    bulk: &Bulk,
    id: u32,
    args: &[u64],
    req: &FragmentStepRequest,
    reply: &mut FragmentStepReply,
) -> Result<(), Failure> {
    let saved = Saved2::capture();
    reply.program = saved.program;
    reply.framebuffer = saved.framebuffer;
    let mut objects = Objects::default();
    let result = step(bulk, id, args, req, &saved, &mut objects, reply);
    saved.restore();
    objects.delete();
    drain_own_errors();
    result
}

fn failed(log: String) -> Failure {
    (shm::STATUS_GL_FAILED, log)
}

#[allow(clippy::too_many_arguments)]
fn step(
    bulk: &Bulk,
    id: u32,
    args: &[u64],
    req: &FragmentStepRequest,
    saved: &Saved2,
    objects: &mut Objects,
    reply: &mut FragmentStepReply,
) -> Result<(), Failure> {
    let k = req.value_output.frag_data_index;
    if k < 0 || req.coverage_output.frag_data_index != k + OUTPUTS as i32 - 1 {
        return Err(failed(
            "an OpenGL ES 2 fragment step needs the packed debug outputs (internal)".into(),
        ));
    }
    let k = k as u32;
    let max_db = gl::get_i(MAX_DRAW_BUFFERS).max(1) as u32;
    if k + OUTPUTS > max_db {
        return Err(failed(format!(
            "fragment debugging in OpenGL ES 2 writes {} outputs after the app's {k}; this \
             context has {max_db} draw buffers (GL_EXT_draw_buffers)",
            OUTPUTS
        )));
    }
    let depth = saved.depth_test && gl::get_i(DEPTH_BITS) > 0;
    if depth && req.depth == shm::BUFFER_COPY {
        return Err(failed(
            "the draw has a depth test, and copying the app's depth buffer needs \
             glBlitFramebuffer (OpenGL ES 3.0), which this OpenGL ES 2 context lacks: use \
             `debug fragment depth=clear` or `depth=off`"
                .into(),
        ));
    }
    if saved.stencil_test && gl::get_i(STENCIL_BITS) > 0 && req.stencil != shm::TEST_OFF {
        return Err(failed(
            "the draw has a stencil test, and this OpenGL ES 2 context cannot copy or keep \
             the app's stencil buffer: use `debug fragment stencil=off`"
                .into(),
        ));
    }

    // The debug program.
    let t0 = Instant::now();
    let app = saved.program;
    let prog = gl::create_program();
    objects.program = prog;
    let shaders = compile_attach(bulk, prog, &req.shaders[..req.shader_count as usize])?;
    bind_app_attributes(app, prog);
    gl::link_program(prog);
    let linked = gl::get_program_i(prog, gl::LINK_STATUS) != 0;
    cleanup(prog, &shaders, false);
    if !linked {
        return Err((shm::STATUS_LINK_FAILED, gl::program_info_log(prog)));
    }
    gl::use_program(prog);
    copy_uniforms(app, prog);
    let path_len = (req.path_len as usize).min(shm::MAX_PATH);
    set_path(bulk, prog, req.path_uniform, &req.path[..path_len]);
    reply.build_ns = t0.elapsed().as_nanos() as u64;

    // The framebuffer: RGBA8 textures at the debug outputs.
    gl::bind_framebuffer(FRAMEBUFFER, saved.framebuffer);
    let (w, h) = framebuffer_size(saved.framebuffer);
    if w <= 0 || h <= 0 {
        return Err(failed(format!(
            "cannot tell the draw framebuffer's size ({w}x{h})"
        )));
    }
    let npix = (w as usize) * (h as usize);
    if shm::BULK_DATA + npix * 24 > shm::BULK_SIZE {
        return Err(failed(format!("{w}x{h} does not fit in the shared memory")));
    }
    reply.width = w as u32;
    reply.height = h as u32;
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
        return Err(failed(format!(
            "debug framebuffer incomplete ({status:#x})"
        )));
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
    // The replay: the app's scissor; its depth test unless switched off;
    // never blending (the values are written as they are).
    gl::set_enabled(gl::SCISSOR_TEST, saved.scissor);
    gl::set_enabled(gl::BLEND, false);
    if !depth || req.depth == shm::TEST_OFF {
        gl::set_enabled(gl::DEPTH_TEST, false);
    }
    if req.stencil == shm::TEST_OFF {
        gl::set_enabled(gl::STENCIL_TEST, false);
    }
    drain_own_errors();
    let t1 = Instant::now();
    replay_draw(id, args, None);
    let replayed = replay_errors("draw");
    reply.replay_ns = t1.elapsed().as_nanos() as u64;
    replayed?;

    let t2 = Instant::now();
    read_back(bulk, (w, h), objects, reply)?;
    reply.readback_ns = t2.elapsed().as_nanos() as u64;
    Ok(())
}

/// Read the five textures back, one at a time at attachment 0 of a
/// framebuffer of ours (ES 2 reads only there), and lay the values out as
/// the float step does: four f32 per pixel, then one coverage byte each.
fn read_back(
    bulk: &Bulk,
    (w, h): (i32, i32),
    objects: &mut Objects,
    reply: &mut FragmentStepReply,
) -> Result<(), Failure> {
    let npix = (w as usize) * (h as usize);
    let too_small = || failed("bulk region too small".into());
    let values_off = shm::BULK_DATA;
    let coverage_off = values_off + npix * 16;
    let scratch_off = coverage_off + npix;
    objects.read_fbo = gl::gen_framebuffer();
    gl::bind_framebuffer(FRAMEBUFFER, objects.read_fbo);
    gl::pixel_store(gl::PACK_ALIGNMENT, 1);
    for (i, &tex) in objects.textures.iter().enumerate() {
        attach_texture(gl::COLOR_ATTACHMENT0, tex);
        let scratch = bulk
            .slice_mut(scratch_off, npix * 4)
            .ok_or_else(too_small)?;
        read_rgba8(w, h, scratch);
        let scratch = bulk
            .slice_mut(scratch_off, npix * 4)
            .ok_or_else(too_small)?;
        if i < 4 {
            let values = bulk
                .slice_mut(values_off, npix * 16)
                .ok_or_else(too_small)?;
            for (p, b) in scratch.chunks_exact(4).enumerate() {
                let v = unpack([b[0], b[1], b[2], b[3]]);
                values[p * 16 + i * 4..p * 16 + i * 4 + 4].copy_from_slice(&v.to_ne_bytes());
            }
        } else {
            let coverage = bulk.slice_mut(coverage_off, npix).ok_or_else(too_small)?;
            for (d, b) in coverage.iter_mut().zip(scratch.chunks_exact(4)) {
                *d = if b[0] != 0 { 255 } else { 0 };
                if b[0] != 0 && reply.coverage_code == 0 {
                    reply.coverage_code = u32::from(b[0]);
                }
            }
        }
    }
    let read_error = drain_own_errors();
    if read_error != 0 {
        return Err(failed(format!(
            "reading the debug images back raised GL error {read_error:#x}"
        )));
    }
    reply.values = BulkRef::at(values_off, npix * 16);
    reply.value_components = 4;
    reply.coverage = BulkRef::at(coverage_off, npix);
    Ok(())
}

/// The float of four packed bytes: its IEEE-754 bits, least significant
/// byte in red (glsl-instrument's `Api::Es2` outputs).
fn unpack(rgba: [u8; 4]) -> f32 {
    f32::from_bits(u32::from_le_bytes(rgba))
}
