//! The in-context executor: GL work the daemon asks for while an app thread
//! is stopped in a wrapper, run on that thread with the app's context current.
//!
//! * [`query_program`]: describe the current program (`ProgramReply`).
//! * [`fragment_step`]: build (or reuse) a debug program from the daemon's
//!   finished sources, replay the stopped draw into a private FBO of the
//!   draw's size, read values and coverage straight into the shared mapping
//!   (`FragmentStepReply`).
//!
//! Every state touched is captured first and restored after (`Saved`); the
//! app's pending GL errors are held back for it (`hooks::hold_error`) and our
//! own errors are drained. No object of ours stays bound; the debug programs
//! stay alive (unbound) in a small cache keyed by (context, app program,
//! cache key). Running transform feedback is paused for the replay; the
//! app's subroutine selections, which `glUseProgram` resets, are put back.
//!
//! Known limits (FIXME): the replay repeats the draw's side effects on
//! app-visible memory (SSBO and image stores, atomic counters) and adds its
//! samples to an active occlusion/primitive query; program pipelines and GL
//! ES contexts (no `glBindFragDataLocation`) are not supported yet.

use crate::generated::{CLASS, invoke};
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};
use crate::replay::writes::ShaderWrites;
use gldbg_proto::api::{FUNCTIONS, class};
use gldbg_proto::shm::{self, BulkRef, FragmentStepReply, FragmentStepRequest, ProgramReply};
use std::sync::Mutex;
use std::time::Instant;

/// The bulk region of the shared mapping, for one command: its areas are
/// mapped as accesses need them (`bulk.rs`), and stay mapped while this
/// lives (it holds a lease).
pub(crate) struct Bulk {
    lease: crate::bulk::Lease,
}

impl Bulk {
    /// None without a session, or when the request and reply areas
    /// cannot be mapped (stderr says why).
    pub(crate) fn get() -> Option<Bulk> {
        crate::session::session()?;
        let bulk = Bulk {
            lease: crate::bulk::lease(),
        };
        bulk.at(shm::BULK_REQUEST, 1)?;
        bulk.at(shm::BULK_REPLY, 1)?;
        Some(bulk)
    }
    /// A pointer to `len` bytes at `off`, if they are inside one area of
    /// the region and it can be mapped.
    fn at(&self, off: usize, len: usize) -> Option<*mut u8> {
        crate::session::bulk_window(&self.lease, off, len)
    }
    pub(crate) fn read<T: Copy + Default>(&self, off: usize) -> T {
        let Some(p) = self.at(off, size_of::<T>()) else {
            return T::default();
        };
        // SAFETY: mapped for size_of::<T>() bytes while the lease lives;
        // `T` is a plain #[repr(C)] Copy struct; unaligned read.
        unsafe { p.cast::<T>().read_unaligned() }
    }
    pub(crate) fn write<T: Copy>(&self, off: usize, v: &T) {
        if let Some(p) = self.at(off, size_of::<T>()) {
            // SAFETY: mapped (as above); the daemon does not touch the reply while a command runs.
            unsafe { p.cast::<T>().write_unaligned(*v) }
        }
    }
    pub(crate) fn bytes(&self, r: BulkRef) -> &[u8] {
        let (off, len) = (r.offset as usize, r.len as usize);
        let Some(p) = self.at(off, len) else {
            return &[];
        };
        // SAFETY: mapped for `len` bytes while the lease (in self) lives; a
        // window stays mapped once grown out of; the daemon wrote the
        // request before the command.
        unsafe { core::slice::from_raw_parts(p, len) }
    }
    pub(crate) fn str(&self, r: BulkRef) -> String {
        String::from_utf8_lossy(self.bytes(r)).into_owned()
    }
    /// Mutable view of `len` bytes at `off` (None if out of bounds).
    #[allow(clippy::mut_from_ref)]
    pub(crate) fn slice_mut(&self, off: usize, len: usize) -> Option<&mut [u8]> {
        let p = self.at(off, len)?;
        crate::bulk::populate(&self.lease, off, len);
        // SAFETY: mapped for `len` bytes while the lease (in self) lives;
        // only this thread writes the reply area during a command.
        Some(unsafe { core::slice::from_raw_parts_mut(p, len) })
    }
    /// Copy `data` to `off`, returning its `BulkRef` (empty if it does not fit).
    pub(crate) fn put(&self, off: usize, data: &[u8]) -> BulkRef {
        match self.slice_mut(off, data.len()) {
            Some(dst) => {
                dst.copy_from_slice(data);
                BulkRef::at(off, data.len())
            }
            None => BulkRef::default(),
        }
    }
}

pub(crate) fn align8(x: usize) -> usize {
    (x + 7) & !7
}

pub(crate) fn has_context() -> bool {
    crate::intercept::context::current_context() != 0 || gl::has_version()
}

/// `CMD_QUERY_PROGRAM`: write a `ProgramReply` at `BULK_REPLY`.
pub fn query_program() -> u32 {
    let Some(bulk) = Bulk::get() else {
        return shm::STATUS_GL_FAILED;
    };
    let reply_off = shm::BULK_REPLY;
    let text_off = align8(reply_off + size_of::<ProgramReply>());
    if !has_context() {
        bulk.write(reply_off, &ProgramReply::default());
        return shm::STATUS_NO_CONTEXT;
    }
    hold_app_errors();
    let (current, pipeline, programs) = app_programs();
    let prog = programs.first().copied().unwrap_or(0);
    let mut text = Vec::new();
    let status = if prog == 0 {
        shm::STATUS_NO_PROGRAM
    } else {
        use std::io::Write as _;
        match crate::replay::es::version() {
            // A shader without `#version` is GLSL ES 1.00 here; ES 2 has
            // no float render target (packed fragment outputs, es2.rs).
            Some((2, _)) => _ = writeln!(text, "api\tes2"),
            Some(_) => _ = writeln!(text, "api\tes"),
            None => {}
        }
        if current == 0 {
            let _ = writeln!(text, "pipeline\t{pipeline}");
        }
        for p in programs {
            describe_program(p, &mut text);
        }
        shm::STATUS_OK
    };
    drain_own_errors();
    let r = bulk.put(text_off, &text);
    bulk.write(
        reply_off,
        &ProgramReply {
            program: prog,
            _pad: 0,
            text: r,
        },
    );
    status
}

/// Most array elements `info program` shows of a uniform array.
const UNIFORM_ELEMENTS_SHOWN: i32 = 16;

/// A uniform's current value; an array's elements as `[a, b, ...]` (the
/// first [`UNIFORM_ELEMENTS_SHOWN`]); empty when it has no location (a
/// block member) or a type this context cannot read.
fn uniform_values(prog: u32, name: &str, size: i32, ty: u32, loc: i32) -> String {
    if loc < 0 {
        return String::new();
    }
    let Some(base) = name.strip_suffix("[0]").filter(|_| size > 1) else {
        return gl::uniform_value(prog, loc, ty).unwrap_or_default();
    };
    let mut parts = Vec::new();
    for i in 0..size.min(UNIFORM_ELEMENTS_SHOWN) {
        let l = gl::uniform_location(prog, &format!("{base}[{i}]"));
        parts.push(
            match (l >= 0).then(|| gl::uniform_value(prog, l, ty)).flatten() {
                Some(v) => v,
                None => "?".into(),
            },
        );
    }
    if size > UNIFORM_ELEMENTS_SHOWN {
        parts.push(format!("... ({size} elements)"));
    }
    format!("[{}]", parts.join(", "))
}

fn describe_program(prog: u32, text: &mut Vec<u8>) {
    use std::io::Write as _;
    let _ = writeln!(text, "program\t{prog}");
    let shaders = gl::attached_shaders(prog);
    for &s in &shaders {
        let _ = writeln!(
            text,
            "shader\t{s}\t{}",
            gl::get_shader_i(s, gl::SHADER_TYPE)
        );
    }
    let n = gl::get_program_i(prog, gl::ACTIVE_ATTRIBUTES).max(0) as u32;
    let max = gl::get_program_i(prog, gl::ACTIVE_ATTRIBUTE_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, size, ty) = gl::active_variable(prog, i, true, max);
        let loc = gl::attrib_location(prog, &name);
        let _ = writeln!(text, "attribute\t{name}\t{ty}\t{size}\t{loc}");
    }
    let n = gl::get_program_i(prog, gl::ACTIVE_UNIFORMS).max(0) as u32;
    let max = gl::get_program_i(prog, gl::ACTIVE_UNIFORM_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, size, ty) = gl::active_variable(prog, i, false, max);
        let loc = gl::uniform_location(prog, &name);
        let value = uniform_values(prog, &name, size, ty, loc);
        let block = if loc < 0 {
            uniform_block_of(prog, i)
        } else {
            String::new()
        };
        let _ = writeln!(
            text,
            "uniform\t{name}\t{ty}\t{size}\t{loc}\t{value}\t{block}"
        );
    }
    if program_interface_query() {
        let n = gl::program_interface_i(prog, gl::PROGRAM_OUTPUT, gl::ACTIVE_RESOURCES).clamp(0, 64)
            as u32;
        for i in 0..n {
            let name = gl::program_resource_name(prog, gl::PROGRAM_OUTPUT, i);
            let loc = gl::program_resource_location(prog, gl::PROGRAM_OUTPUT, &name);
            let index = output_index(prog, &name);
            let _ = writeln!(text, "output\t{name}\t{loc}\t{index}");
        }
    }
    for &s in &shaders {
        let src = gl::shader_source_of(s);
        let _ = writeln!(text, "source\t{s}\t{}", src.len());
        text.extend_from_slice(&src);
        text.push(b'\n');
    }
}

/// "NAME, binding N" of the uniform block holding active uniform `index`,
/// empty where it is in the default block (ES 2 has no blocks, nor
/// glGetActiveUniformsiv to ask).
fn uniform_block_of(prog: u32, index: u32) -> String {
    if crate::replay::es::version().is_some_and(|v| v.0 < 3) {
        return String::new();
    }
    let b = gl::active_uniform_param(prog, index, gl::UNIFORM_BLOCK_INDEX);
    if b < 0 {
        return String::new();
    }
    let b = b as u32;
    let binding = gl::uniform_block_param(prog, b, gl::UNIFORM_BLOCK_BINDING);
    format!("{}, binding {binding}", gl::uniform_block_name(prog, b))
}

/// A fragment output's index (dual-source blending), -1 for other stages
/// outputs and where GL cannot say (GL ES).
fn output_index(prog: u32, name: &str) -> i32 {
    if is_es() {
        return -1;
    }
    gl::frag_data_index(prog, name)
}

/// Whether GL_PROGRAM_INTERFACE queries exist (GL 4.3+ or
/// `GL_ARB_program_interface_query`, ES 3.1+).
pub(crate) fn program_interface_query() -> bool {
    let available = crate::intercept::resolve::available(gldbg_proto::api::ids::glGetProgramInterfaceiv);
    available
        && match crate::replay::es::version() {
            Some(v) => v >= (3, 1),
            // NVIDIA offers the extension in 3.x contexts too (dual-source
            // programs are 3.3): their outputs can be listed there.
            None => {
                let v = (gl::get_i(gl::MAJOR_VERSION), gl::get_i(gl::MINOR_VERSION));
                v >= (4, 3) || (v >= (3, 0) && gl::has_extension("GL_ARB_program_interface_query"))
            }
        }
}

pub(crate) fn is_es() -> bool {
    let v = {
        // SAFETY: a real GL entry point on the stopped app thread; returns a static string or null.
        let p = unsafe { crate::generated::real::glGetString(gl::VERSION) };
        if p.is_null() {
            return false;
        }
        // SAFETY: GL returns a NUL-terminated string.
        unsafe { core::ffi::CStr::from_ptr(p.cast()) }
            .to_bytes()
            .to_vec()
    };
    v.starts_with(b"OpenGL ES")
}

/// The programs a draw would run: (current program, bound pipeline when
/// no program is current, the programs: the current one or the distinct
/// programs of the pipeline's stages, vertex first). Call with the app's
/// errors held: without separate shader objects the pipeline query raises
/// an error of ours.
fn app_programs() -> (u32, u32, Vec<u32>) {
    let program = gl::get_i(gl::CURRENT_PROGRAM) as u32;
    if program != 0 {
        return (program, 0, vec![program]);
    }
    let pipeline = gl::get_i(gl::PROGRAM_PIPELINE_BINDING) as u32;
    let mut programs = Vec::new();
    if pipeline != 0 {
        for stage in gl::ALL_STAGES {
            let p = gl::program_pipeline_i(pipeline, stage) as u32;
            if p != 0 && !programs.contains(&p) {
                programs.push(p);
            }
        }
    }
    (0, pipeline, programs)
}

/// The GL state a fragment step changes, captured before and restored after.
pub(crate) struct Saved {
    /// The current program (0 when a separable pipeline is used).
    pub(crate) program: u32,
    /// The bound program pipeline, when no program is current (else 0).
    pipeline: u32,
    /// The programs the draw runs: the current program, or the distinct
    /// programs of the pipeline's stages, vertex first (empty: none).
    pub(crate) programs: Vec<u32>,
    draw_fb: u32,
    read_fb: u32,
    renderbuffer: u32,
    scissor: bool,
    discard: bool,
    depth_test: bool,
    stencil_test: bool,
    /// `None` where the context has no alpha test (core profiles, GL ES).
    pub(crate) alpha_test: Option<bool>,
    blend: Vec<bool>,
    color_masks: Vec<[u8; 4]>,
    depth_mask: u8,
    stencil_mask: (u32, u32),
    pack_buffer: u32,
    pack: [(u32, i32); 5],
    clamp_read: i32,
    /// The app's transform feedback was active and running: paused for the
    /// replay (nothing of ours is captured), resumed after.
    feedback_running: bool,
    /// The app program's subroutine selections per stage (GL 4.0+):
    /// `glUseProgram` resets them, so they are put back after restoring it.
    pub(crate) subroutines: Vec<(u32, Vec<u32>)>,
    /// The app's counting queries, ended for the replay (`suspend`).
    queries: Option<crate::intercept::queries::Suspended>,
}

const PACK_PARAMS: [u32; 5] = [
    gl::PACK_ALIGNMENT,
    gl::PACK_ROW_LENGTH,
    gl::PACK_SKIP_ROWS,
    gl::PACK_SKIP_PIXELS,
    gl::PACK_SWAP_BYTES,
];

/// The pack parameters this context has: GL ES has no `GL_PACK_SWAP_BYTES`
/// (setting it raises GL_INVALID_ENUM), desktop GL has them all.
fn pack_params_here(es: bool) -> &'static [u32] {
    if es { &PACK_PARAMS[..4] } else { &PACK_PARAMS }
}

impl Saved {
    /// The program of `stage` (a pipeline's stage program, else the
    /// current program).
    pub(crate) fn program_for(&self, stage: u32) -> u32 {
        match self.pipeline {
            0 => self.program,
            pipe => gl::program_pipeline_i(pipe, stage) as u32,
        }
    }

    /// The first of `programs` (the vertex stage's): attribute locations
    /// and the preload's program caches go by it.
    pub(crate) fn primary(&self) -> u32 {
        self.programs.first().copied().unwrap_or(0)
    }

    /// Err for the step's log when the draw has no program to replay with.
    pub(crate) fn check_programs(&self) -> Result<(), Failure> {
        if self.programs.is_empty() {
            return Err((
                shm::STATUS_NO_PROGRAM,
                "no program is current and no program pipeline is bound".into(),
            ));
        }
        match self
            .programs
            .iter()
            .find(|&&p| gl::get_program_i(p, gl::LINK_STATUS) == 0)
        {
            Some(p) => Err((shm::STATUS_NO_PROGRAM, format!("program {p} is not linked"))),
            None => Ok(()),
        }
    }

    pub(crate) fn capture(draw_buffers: u32) -> Saved {
        let (program, pipeline, programs) = app_programs();
        Saved {
            program,
            pipeline,
            programs,
            draw_fb: gl::get_i(gl::DRAW_FRAMEBUFFER_BINDING) as u32,
            read_fb: gl::get_i(gl::READ_FRAMEBUFFER_BINDING) as u32,
            renderbuffer: gl::get_i(gl::RENDERBUFFER_BINDING) as u32,
            scissor: gl::is_enabled(gl::SCISSOR_TEST),
            discard: gl::is_enabled(gl::RASTERIZER_DISCARD),
            depth_test: gl::is_enabled(gl::DEPTH_TEST),
            stencil_test: gl::is_enabled(gl::STENCIL_TEST),
            alpha_test: compatibility_context().then(|| gl::is_enabled(gl::ALPHA_TEST)),
            blend: (0..draw_buffers)
                .map(|i| gl::is_enabledi(gl::BLEND, i))
                .collect(),
            color_masks: (0..draw_buffers)
                .map(|i| match crate::replay::es::has_get_booleani() {
                    true => gl::get_b4_indexed(gl::COLOR_WRITEMASK, i),
                    false => gl::get_i4_indexed_as_b4(gl::COLOR_WRITEMASK, i),
                })
                .collect(),
            depth_mask: gl::get_b(gl::DEPTH_WRITEMASK),
            stencil_mask: (
                gl::get_i(gl::STENCIL_WRITEMASK) as u32,
                gl::get_i(gl::STENCIL_BACK_WRITEMASK) as u32,
            ),
            pack_buffer: gl::get_i(gl::PIXEL_PACK_BUFFER_BINDING) as u32,
            pack: PACK_PARAMS.map(|p| (p, gl::get_i(p))),
            // GL ES has no read clamping (Mesa answers the query, but
            // glClampColor raises GL_INVALID_OPERATION there).
            clamp_read: if is_es() {
                0
            } else {
                gl::get_i(gl::CLAMP_READ_COLOR)
            },
            feedback_running: gl::get_b(gl::TRANSFORM_FEEDBACK_ACTIVE) != 0
                && gl::get_b(gl::TRANSFORM_FEEDBACK_PAUSED) == 0,
            subroutines: capture_subroutines(),
            queries: None,
        }
    }

    /// Suspend what must not see our work (before binding anything of
    /// ours): the app's transform feedback and its counting queries.
    pub(crate) fn suspend(&mut self) {
        self.queries = Some(crate::intercept::queries::suspend());
        if self.feedback_running {
            gl::pause_transform_feedback(true);
        }
    }

    pub(crate) fn restore(&self) {
        gl::use_program(self.program);
        for (stage, indices) in &self.subroutines {
            gl::uniform_subroutines(*stage, indices);
        }
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, self.draw_fb);
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, self.read_fb);
        gl::bind_renderbuffer(self.renderbuffer);
        gl::set_enabled(gl::SCISSOR_TEST, self.scissor);
        gl::set_enabled(gl::RASTERIZER_DISCARD, self.discard);
        gl::set_enabled(gl::DEPTH_TEST, self.depth_test);
        gl::set_enabled(gl::STENCIL_TEST, self.stencil_test);
        if let Some(on) = self.alpha_test {
            gl::set_enabled(gl::ALPHA_TEST, on);
        }
        for (i, &b) in self.blend.iter().enumerate() {
            gl::set_enabledi(gl::BLEND, i as u32, b);
        }
        for (i, &m) in self.color_masks.iter().enumerate() {
            gl::color_maski(i as u32, m);
        }
        gl::depth_mask(self.depth_mask);
        gl::stencil_mask_separate(0x0404, self.stencil_mask.0);
        gl::stencil_mask_separate(0x0405, self.stencil_mask.1);
        gl::bind_buffer(gl::PIXEL_PACK_BUFFER, self.pack_buffer);
        let here = pack_params_here(is_es());
        for (p, v) in self.pack.into_iter().filter(|(p, _)| here.contains(p)) {
            gl::pixel_store(p, v);
        }
        if self.clamp_read != 0 {
            gl::clamp_color(gl::CLAMP_READ_COLOR, self.clamp_read as u32);
        }
        // Last: resuming requires the app's program to be current again.
        if self.feedback_running {
            gl::pause_transform_feedback(false);
        }
        if let Some(queries) = &self.queries {
            queries.resume();
        }
    }
}

/// After a replay of the stopped `call` (draw or dispatch): our own GL
/// errors drained, the first one a failure that names it.
pub(crate) fn replay_errors(call: &str) -> Result<(), Failure> {
    match drain_own_errors() {
        0 => Ok(()),
        e => Err((
            shm::STATUS_GL_FAILED,
            format!("replaying the {call} with the debug program raised GL error {e:#x}"),
        )),
    }
}

/// Whether the context is desktop GL before 3.2 (where `GL_MAJOR_VERSION`
/// may not exist: 0) or a compatibility profile: it has the fixed-function
/// alpha test, and an app may bind object names it never generated.
pub(crate) fn compatibility_context() -> bool {
    !is_es()
        && (!gl_at_least(3, 2)
            || gl::get_i(gl::CONTEXT_PROFILE_MASK) & gl::CONTEXT_COMPATIBILITY_PROFILE_BIT != 0)
}

/// Whether the context is desktop GL of at least `major.minor`.
pub(crate) fn gl_at_least(major: i32, minor: i32) -> bool {
    !is_es() && (gl::get_i(gl::MAJOR_VERSION), gl::get_i(gl::MINOR_VERSION)) >= (major, minor)
}

/// The current program's subroutine selections, per stage that has any.
fn capture_subroutines() -> Vec<(u32, Vec<u32>)> {
    let prog = gl::get_i(gl::CURRENT_PROGRAM) as u32;
    if prog == 0 || !gl_at_least(4, 0) {
        return Vec::new();
    }
    let mut out = Vec::new();
    for stage in gl::DRAW_STAGES {
        let n = gl::program_stage_i(prog, stage, gl::ACTIVE_SUBROUTINE_UNIFORM_LOCATIONS)
            .clamp(0, 1024);
        if n > 0 {
            out.push((
                stage,
                (0..n)
                    .map(|loc| gl::uniform_subroutine(stage, loc))
                    .collect(),
            ));
        }
    }
    out
}

/// Give the debug program (current) the app's subroutine selections, by
/// uniform and function names. A stage where some location cannot be
/// matched keeps the driver's defaults.
fn copy_subroutines(app: u32, dbg: u32, saved: &[(u32, Vec<u32>)]) {
    for (stage, app_indices) in saved {
        let stage = *stage;
        let n = gl::program_stage_i(dbg, stage, gl::ACTIVE_SUBROUTINE_UNIFORM_LOCATIONS)
            .clamp(0, 1024) as usize;
        if n == 0 {
            continue;
        }
        let mut indices: Vec<Option<u32>> = vec![None; n];
        let uniforms =
            gl::program_stage_i(app, stage, gl::ACTIVE_SUBROUTINE_UNIFORMS).max(0) as u32;
        for u in 0..uniforms {
            let name = gl::active_subroutine_uniform_name(app, stage, u);
            let (src, dst) = (
                gl::subroutine_uniform_location(app, stage, &name),
                gl::subroutine_uniform_location(dbg, stage, &name),
            );
            let Some(&selected) = usize::try_from(src).ok().and_then(|l| app_indices.get(l)) else {
                continue;
            };
            let function = gl::active_subroutine_name(app, stage, selected);
            let index = gl::subroutine_index(dbg, stage, &function);
            if let Some(slot) = usize::try_from(dst).ok().and_then(|l| indices.get_mut(l))
                && index != u32::MAX
            {
                *slot = Some(index);
            }
        }
        if let Some(all) = indices.into_iter().collect::<Option<Vec<u32>>>() {
            gl::uniform_subroutines(stage, &all);
        }
    }
}

/// A linked debug program and where its two debug outputs went.
#[derive(Clone, Copy)]
struct DebugProgram {
    context: u64,
    app_program: u32,
    key: u64,
    program: u32,
    value_loc: u32,
    coverage_loc: u32,
}

static CACHE: Mutex<Vec<DebugProgram>> = Mutex::new(Vec::new());
const CACHE_MAX: usize = 32;

/// Linked debug programs of one step kind (vertex, compute), keyed by
/// (context, app program, cache key); the oldest goes when it is full.
pub(crate) struct ProgramCache {
    entries: Mutex<Vec<(u64, u32, u64, u32)>>,
    max: usize,
}

impl ProgramCache {
    pub(crate) const fn new(max: usize) -> ProgramCache {
        ProgramCache {
            entries: Mutex::new(Vec::new()),
            max,
        }
    }

    /// The cached program, if `key` is a real key and the program is still
    /// ours (`still_ours`: the app may have deleted or reused the name).
    pub(crate) fn get(
        &self,
        context: u64,
        app: u32,
        key: u64,
        still_ours: impl Fn(u32) -> bool,
    ) -> Option<u32> {
        let p = self.entries.lock().ok().and_then(|c| {
            c.iter()
                .find(|e| e.0 == context && e.1 == app && e.2 == key)
                .map(|e| e.3)
        })?;
        (key != 0 && still_ours(p)).then_some(p)
    }

    pub(crate) fn put(
        &self,
        context: u64,
        app: u32,
        key: u64,
        program: u32,
        still_ours: impl Fn(u32) -> bool,
    ) {
        let Ok(mut c) = self.entries.lock() else {
            return;
        };
        c.retain(|e| !(e.0 == context && e.1 == app && e.2 == key));
        if c.len() >= self.max {
            let old = c.remove(0);
            if old.0 == context && still_ours(old.3) {
                gl::delete_program(old.3);
            }
        }
        c.push((context, app, key, program));
    }
}

/// The reply of a debug step command, written at `BULK_REPLY` with the
/// driver's log or the error text after it.
pub(crate) trait StepReply: Copy + Default {
    fn log_mut(&mut self) -> &mut BulkRef;
}

macro_rules! step_reply {
    ($($t:ty),*) => {$(
        impl StepReply for $t {
            fn log_mut(&mut self) -> &mut BulkRef {
                &mut self.log
            }
        }
    )*};
}
step_reply!(
    shm::FragmentStepReply,
    shm::VertexStepReply,
    shm::ComputeStepReply
);

/// Write a step's reply (with the failure's log, if it failed); returns the
/// command's status.
pub(crate) fn write_reply<R: StepReply>(
    bulk: &Bulk,
    mut reply: R,
    outcome: Result<(), Failure>,
) -> u32 {
    let log_off = align8(shm::BULK_REPLY + size_of::<R>());
    let status = match outcome {
        Ok(()) => {
            *reply.log_mut() = BulkRef::default();
            shm::STATUS_OK
        }
        Err((status, log)) => {
            *reply.log_mut() = bulk.put(log_off, log.as_bytes());
            status
        }
    };
    bulk.write(shm::BULK_REPLY, &reply);
    status
}

/// A failed step: status and a log for the reply.
pub(crate) type Failure = (u32, String);

/// Replay the stopped draw `id` with the app's `args`, its primitive mode
/// replaced by `mode` where given; at `glEnd`, the deferred immediate-mode
/// sequence (`immediate.rs`).
pub(crate) fn replay_draw(id: u32, args: &[u64], mode: Option<u32>) {
    // Neutral blend functions on every draw buffer while the replay runs: a
    // function reading the second source (dual-source blending) on more
    // draw buffers than GL allows fails the draw, and our framebuffers have
    // two or more.
    let _blend = crate::replay::blend::Neutral::set(gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32);
    if id == gldbg_proto::api::ids::glEnd {
        crate::intercept::immediate::replay(mode);
        return;
    }
    if matches!(
        id,
        gldbg_proto::api::ids::glCallList | gldbg_proto::api::ids::glCallLists
    ) {
        crate::intercept::lists::replay(id, args);
        return;
    }
    let mut args = args.to_vec();
    if let (Some(mode), Some(first)) = (mode, args.first_mut()) {
        *first = u64::from(mode);
    }
    // SAFETY: the stopped call's own arguments (its pointers are still
    // valid: the app thread is inside this very call), the mode (its first
    // argument) replaced only where the caller checked it has one.
    unsafe { invoke(id, &args) };
}

/// Whether the stopped call `id` is a draw a debug step can replay
/// (`replayable_form`: the step's own condition on the call's form) on
/// this thread's current context. A `glEnd` is, after a deferred
/// `glBegin` (immediate mode under a debugger).
pub(crate) fn replayable(id: u32, replayable_form: bool) -> Result<(), Failure> {
    let name = FUNCTIONS[id as usize].name;
    let replayable_form = match id {
        gldbg_proto::api::ids::glEnd => crate::intercept::immediate::pending(),
        _ => replayable_form,
    };
    if CLASS[id as usize] & class::DRAW == 0 || !replayable_form {
        return Err((
            shm::STATUS_NOT_A_DRAW,
            format!("{name} is not a draw call that can be replayed"),
        ));
    }
    if !has_context() {
        return Err((
            shm::STATUS_NO_CONTEXT,
            "no GL context is current on the stopped thread".into(),
        ));
    }
    if crate::intercept::lists::compiling() {
        return Err((
            shm::STATUS_NOT_A_DRAW,
            format!(
                "{name} is inside glNewList(GL_COMPILE_AND_EXECUTE): GL would record the \
                 replay into the display list; debug a later glCallList of that list"
            ),
        ));
    }
    Ok(())
}

/// Give the current debug program `dbg` the app program's uniform values,
/// subroutine selections and block bindings (at every step: a cached debug
/// program must follow what the app set since).
pub(crate) fn load_app_uniforms(dbg: u32, saved: &Saved) {
    // Block bindings too: the app may have moved its blocks since we linked.
    bind_app_blocks(&saved.programs, dbg);
    // A pipeline's stage programs each hold their own uniforms; a name in
    // two of them is one uniform of the debug program (the later stage's value).
    for &p in &saved.programs {
        copy_uniforms(p, dbg);
        // Sampler and image uniforms the app set to bindless handles.
        crate::intercept::bindless::copy(p, dbg);
    }
    if saved.program != 0 {
        copy_subroutines(saved.program, dbg, &saved.subroutines);
    }
}

/// Set the debug program's loop-path uniform (`int[]`, named in the bulk
/// region; nothing to do for a step outside loops).
pub(crate) fn set_path(bulk: &Bulk, prog: u32, uniform: BulkRef, path: &[i32]) {
    let name = bulk.str(uniform);
    if name.is_empty() || path.is_empty() {
        return;
    }
    let loc = gl::uniform_location(prog, &name);
    if loc >= 0 {
        gl::uniform_1iv(loc, &path[..path.len().min(shm::MAX_PATH)]);
    }
}

/// `CMD_FRAGMENT_STEP` for the stopped call `id` with `args`.
pub fn fragment_step(id: u32, args: &[u64]) -> u32 {
    let Some(bulk) = Bulk::get() else {
        return shm::STATUS_GL_FAILED;
    };
    let fail = |status: u32, log: &str| {
        write_reply(
            &bulk,
            FragmentStepReply::default(),
            Err((status, log.to_string())),
        )
    };
    if let Err((status, log)) = replayable(id, true) {
        return fail(status, &log);
    }
    // Before any state is touched: what this GL ES context lacks.
    if let Some(why) = crate::replay::es::fragment_unsupported() {
        return fail(shm::STATUS_GL_FAILED, &why);
    }
    let req: FragmentStepRequest = bulk.read(shm::BULK_REQUEST);
    if crate::replay::es::version().is_some_and(|v| v.0 < 3) {
        hold_app_errors();
        let mut reply = FragmentStepReply::default();
        let result = crate::replay::es2::fragment_step(&bulk, id, args, &req, &mut reply);
        return write_reply(&bulk, reply, result);
    }
    hold_app_errors();
    let max_db = gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32;
    let mut saved = Saved::capture(max_db);
    saved.suspend();
    let mut reply = FragmentStepReply {
        program: saved.program,
        framebuffer: saved.draw_fb,
        ..Default::default()
    };
    let result = step(&bulk, id, args, &req, &saved, max_db, &mut reply);
    saved.restore();
    drain_own_errors();
    write_reply(&bulk, reply, result)
}

#[allow(clippy::too_many_arguments)]
fn step(
    bulk: &Bulk,
    id: u32,
    args: &[u64],
    req: &FragmentStepRequest,
    saved: &Saved,
    max_db: u32,
    reply: &mut FragmentStepReply,
) -> Result<(), Failure> {
    saved.check_programs()?;
    let app = saved.primary();

    // Build or reuse the debug program.
    let t0 = Instant::now();
    let context = crate::intercept::context::current_context();
    let cached = CACHE
        .lock()
        .map(|c| {
            c.iter()
                .find(|d| d.context == context && d.app_program == app && d.key == req.cache_key)
                .copied()
        })
        .unwrap_or(None);
    // A context handle can be reused after the app destroys its context:
    // trust a cached program only if it still has our value output.
    let value_name = bulk.str(req.value_output.name);
    let still_ours = |d: &DebugProgram| {
        gl::is_program(d.program)
            && (req.value_output.frag_data_index >= 0
                || gl::frag_data_location(d.program, &value_name) == d.value_loc as i32)
    };
    let dbg = match cached {
        Some(d) if req.cache_key != 0 && still_ours(&d) => {
            reply.cached = 1;
            d
        }
        _ => {
            let d = build_program(bulk, saved, req, max_db)?;
            let d = DebugProgram {
                context,
                key: req.cache_key,
                ..d
            };
            if let Ok(mut c) = CACHE.lock() {
                if let Some(old) = c.iter().position(|e| {
                    e.context == context && e.app_program == app && e.key == req.cache_key
                }) {
                    if still_ours(&c[old]) {
                        gl::delete_program(c[old].program);
                    }
                    c.remove(old);
                }
                if c.len() >= CACHE_MAX {
                    let old = c.remove(0);
                    if old.context == context {
                        gl::delete_program(old.program);
                    }
                }
                c.push(d);
            }
            d
        }
    };
    gl::use_program(dbg.program);
    load_app_uniforms(dbg.program, saved);
    let path_len = (req.path_len as usize).min(shm::MAX_PATH);
    set_path(bulk, dbg.program, req.path_uniform, &req.path[..path_len]);
    reply.build_ns = t0.elapsed().as_nanos() as u64;

    // The draw's size and depth/stencil layout.
    let (w, h) = framebuffer_size(saved.draw_fb);
    if w <= 0 || h <= 0 {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("cannot tell the draw framebuffer's size ({w}x{h})"),
        ));
    }
    // Values (16 B/pixel) + coverage (4 B/pixel), plus, on GL ES, room to
    // read coverage as RGBA first (ES has no GL_RED/GL_FLOAT read format).
    let need = (w as usize) * (h as usize) * if is_es() { 36 } else { 20 };
    if shm::BULK_DATA + need > shm::BULK_SIZE {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("{w}x{h} does not fit in the shared memory"),
        ));
    }
    reply.width = w as u32;
    reply.height = h as u32;
    let ds = depth_stencil_format(saved.draw_fb);

    let target = DebugTarget::get(
        crate::intercept::context::current_context(),
        Purpose::Fragment,
        (w, h),
        ds,
        (dbg.value_loc, dbg.coverage_loc),
    )?;
    let fbo = target.fbo;
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
        gl::depth_mask(gl::TRUE);
        gl::stencil_mask_separate(0x0408, !0);
        clear_depth_stencil(att);
        let copy = (if req.depth == shm::BUFFER_COPY {
            gl::DEPTH_BUFFER_BIT
        } else {
            0
        }) | (if req.stencil == shm::BUFFER_COPY {
            gl::STENCIL_BUFFER_BIT
        } else {
            0
        });
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
        gl::stencil_mask_separate(0x0404, saved.stencil_mask.0);
        gl::stencil_mask_separate(0x0405, saved.stencil_mask.1);
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

    let writes = ShaderWrites::snapshot(dbg.program).map_err(|e| (shm::STATUS_GL_FAILED, e))?;
    let t1 = Instant::now();
    replay_draw(id, args, None);
    writes.restore();
    let replayed = replay_errors("draw");
    reply.replay_ns = t1.elapsed().as_nanos() as u64;
    replayed?;

    let t2 = Instant::now();
    let components = req.value_components.min(4) as usize;
    read_back(bulk, saved, (w, h), (&dbg, components), &target, reply)?;
    reply.readback_ns = t2.elapsed().as_nanos() as u64;
    Ok(())
}

/// Clear the depth and/or stencil of the bound draw framebuffer's `att`
/// (depth 1.0, stencil 0), with the masks open.
fn clear_depth_stencil(att: u32) {
    match att {
        gl::DEPTH_STENCIL_ATTACHMENT => gl::clear_buffer_fi(1.0, 0),
        gl::DEPTH_ATTACHMENT => gl::clear_buffer_depth(1.0),
        _ => gl::clear_buffer_stencil(0),
    }
}

/// Read the coverage (R32F) and the value's first `components` channels
/// (of RGBA32F; none for 0) of `fbo` into the bulk region, and say where
/// in `reply`: a step needs the coverage alone, a scalar one channel of
/// four, so most of a 1080p readback is never made.
fn read_back(
    bulk: &Bulk,
    saved: &Saved,
    (w, h): (i32, i32),
    (dbg, components): (&DebugProgram, usize),
    target: &DebugTarget,
    reply: &mut FragmentStepReply,
) -> Result<(), Failure> {
    let fbo = target.fbo;
    let too_small = || (shm::STATUS_GL_FAILED, "bulk region too small".to_string());
    gl::bind_framebuffer(gl::READ_FRAMEBUFFER, fbo);
    gl::bind_buffer(gl::PIXEL_PACK_BUFFER, 0);
    for (p, v) in pack_params_here(is_es()).iter().zip([1, 0, 0, 0, 0]) {
        gl::pixel_store(*p, v);
    }
    if saved.clamp_read != 0 {
        gl::clamp_color(gl::CLAMP_READ_COLOR, gl::FALSE as u32);
    }
    let npix = (w as usize) * (h as usize);
    // GL ES reads float images as RGBA only.
    let components = match components {
        0 => 0,
        _ if is_es() => 4,
        n => n,
    };
    let values_off = shm::BULK_DATA;
    let values_len = npix * 4 * components;
    let coverage_off = values_off + npix * 16;
    if components > 0 {
        let dst = bulk
            .slice_mut(values_off, values_len)
            .ok_or_else(too_small)?;
        gl::read_buffer(gl::COLOR_ATTACHMENT0 + dbg.value_loc);
        let format = [gl::RED, gl::RG, gl::RGB, gl::RGBA][components - 1];
        gl::read_pixels_f32(w, h, format, dst);
    }
    gl::read_buffer(gl::COLOR_ATTACHMENT0 + dbg.coverage_loc);
    let coverage = bulk.slice_mut(coverage_off, npix).ok_or_else(too_small)?;
    if is_es() {
        // GL ES reads float attachments only as RGBA/FLOAT: read into the
        // space after the coverage, then keep one byte per pixel.
        let rgba_off = coverage_off + npix * 4;
        let rgba = bulk.slice_mut(rgba_off, npix * 16).ok_or_else(too_small)?;
        gl::read_pixels_f32(w, h, gl::RGBA, rgba);
        for (d, t) in coverage.iter_mut().zip(rgba.chunks_exact(16)) {
            let red = f32::from_ne_bytes([t[0], t[1], t[2], t[3]]);
            *d = if red != 0.0 { 255 } else { 0 };
            if red != 0.0 && reply.coverage_code == 0 {
                reply.coverage_code = red as u32;
            }
        }
    } else {
        if target.bytes_fbo != 0 {
            // The blit clamps the codes (1..=17) to 1.0: 255. No scissor,
            // discard or mask of the app's applies to it (`saved` restores).
            gl::set_enabled(gl::SCISSOR_TEST, false);
            gl::set_enabled(gl::RASTERIZER_DISCARD, false);
            gl::color_maski(0, [1, 1, 1, 1]);
            gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, target.bytes_fbo);
            gl::blit_framebuffer(w, h, gl::COLOR_BUFFER_BIT);
            gl::bind_framebuffer(gl::READ_FRAMEBUFFER, target.bytes_fbo);
            gl::read_buffer(gl::COLOR_ATTACHMENT0);
        }
        gl::read_pixels_red_u8(w, h, coverage);
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, fbo);
        gl::read_buffer(gl::COLOR_ATTACHMENT0 + dbg.coverage_loc);
        // The type code, from one reached pixel.
        if let Some(i) = coverage.iter().position(|&c| c != 0) {
            let (x, y) = ((i % w as usize) as i32, (i / w as usize) as i32);
            reply.coverage_code = gl::read_pixel_red_f32(x, y) as u32;
        }
    }
    let read_error = drain_own_errors();
    if read_error != 0 {
        return Err((
            shm::STATUS_GL_FAILED,
            format!("reading the debug images back raised GL error {read_error:#x}"),
        ));
    }
    reply.values = BulkRef::at(values_off, values_len);
    reply.value_components = components as u32;
    reply.coverage = BulkRef::at(coverage_off, npix);
    Ok(())
}

/// The private framebuffer of fragment steps: the value (RGBA32F) and
/// coverage (R32F) renderbuffers at the debug outputs' locations, and a
/// depth/stencil renderbuffer like the app's. Kept per context and reused
/// while size, layout and locations stay the same: allocating three
/// 1080p renderbuffers costs more than replaying a typical draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DebugTarget {
    context: u64,
    purpose: Purpose,
    fbo: u32,
    value_rb: u32,
    coverage_rb: u32,
    /// 0 when the app's framebuffer has no depth or stencil.
    ds_rb: u32,
    /// An R8 renderbuffer (and its framebuffer) the coverage is blitted
    /// into before it is read: the driver then reads its native format
    /// (NVIDIA converts float to bytes on the CPU, 2.5 ms at 1080p). 0 on
    /// GL ES (no float-to-fixed blit) or where it cannot be made.
    bytes_fbo: u32,
    bytes_rb: u32,
    size: (i32, i32),
    ds: Option<(u32, u32)>,
    /// (value, coverage) output locations.
    locs: (u32, u32),
}

/// What a [`DebugTarget`] is for: one of each is kept per context.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Purpose {
    /// The fragment step's values and coverage.
    Fragment,
    /// 1x1, bound while a replay rasterizes nothing (vertex, tess and
    /// geometry steps): GL still validates the draw buffers, and Mesa
    /// refuses a draw into the app's integer buffers from a compatibility
    /// context when the debug program has no fragment shader.
    Discard,
}

static TARGETS: Mutex<Vec<DebugTarget>> = Mutex::new(Vec::new());
/// Targets kept (contexts x purposes): the oldest goes.
const TARGETS_MAX: usize = 8;

/// `CMD_RELEASE`: delete the current context's debug targets (the
/// framebuffer-sized renderbuffers of the fragment step: 1080p takes some
/// 45 MB); the next step makes them again. The app's framebuffer and
/// renderbuffer bindings and its pending GL errors are kept. A driver may
/// hold the storage until the app's next draw rebinds its framebuffer
/// (Mesa frees it when that draw validates its state). The bulk windows
/// are unmapped too.
pub fn release_targets() -> u32 {
    let status = release_gl_targets();
    release_memory();
    status
}

fn release_gl_targets() -> u32 {
    if !has_context() {
        return shm::STATUS_OK;
    }
    let context = crate::intercept::context::current_context();
    let mine: Vec<DebugTarget> = {
        let Ok(mut targets) = TARGETS.lock() else {
            return shm::STATUS_GL_FAILED;
        };
        let (mine, rest) = targets.drain(..).partition(|t| t.context == context);
        *targets = rest;
        mine
    };
    // No GL call at all unless there is something to delete.
    if mine.is_empty() {
        return shm::STATUS_OK;
    }
    hold_app_errors();
    // GL ES 2 has one framebuffer binding (its enum is the draw binding's).
    let es2 = matches!(crate::replay::es::version(), Some((2, _)));
    let draw = gl::get_i(gl::DRAW_FRAMEBUFFER_BINDING) as u32;
    let read = match es2 {
        true => draw,
        false => gl::get_i(gl::READ_FRAMEBUFFER_BINDING) as u32,
    };
    let renderbuffer = gl::get_i(gl::RENDERBUFFER_BINDING) as u32;
    for t in mine {
        if t.still_ours() {
            t.delete();
        }
    }
    if es2 {
        gl::bind_framebuffer(gl::FRAMEBUFFER, draw);
    } else {
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, draw);
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, read);
    }
    gl::bind_renderbuffer(renderbuffer);
    drain_own_errors();
    shm::STATUS_OK
}

/// Give the app back the address space of a debug session: the bulk
/// windows (16 MiB or more) and the heap pages freed above.
fn release_memory() {
    crate::bulk::release();
    // A 1080p RGBA32F target (31.6 MiB) is under glibc's largest mmap
    // threshold: freed, it may stay in the heap.
    // SAFETY: malloc_trim only returns free pages of glibc's arenas; no
    // allocation of the app changes.
    unsafe { libc::malloc_trim(0) };
}

/// Bind this context's 1x1 framebuffer of ours as the draw framebuffer, for
/// a replay with rasterizer discard (the caller's `Saved` rebinds the app's).
pub(crate) fn bind_discard_target() -> Result<(), Failure> {
    let context = crate::intercept::context::current_context();
    DebugTarget::get(context, Purpose::Discard, (1, 1), None, (0, 1)).map(|_| ())
}

impl DebugTarget {
    /// This context's target for `purpose`, `size`, `ds` and `locs`, bound
    /// as the draw framebuffer: the cached one, or a new one replacing it.
    fn get(
        context: u64,
        purpose: Purpose,
        size: (i32, i32),
        ds: Option<(u32, u32)>,
        locs: (u32, u32),
    ) -> Result<DebugTarget, Failure> {
        let Ok(mut targets) = TARGETS.lock() else {
            return Err((shm::STATUS_GL_FAILED, "debug target cache poisoned".into()));
        };
        if let Some(i) = targets
            .iter()
            .position(|t| t.context == context && t.purpose == purpose)
        {
            let old = targets.remove(i);
            if old.still_ours() {
                if old.size == size && old.ds == ds && old.locs == locs {
                    targets.push(old);
                    return Ok(old);
                }
                old.delete();
            }
        }
        let new = DebugTarget::create(context, purpose, size, ds, locs)?;
        if targets.len() >= TARGETS_MAX {
            // Another context's: its names mean nothing here, let them go with it.
            targets.remove(0);
        }
        targets.push(new);
        Ok(new)
    }

    fn create(
        context: u64,
        purpose: Purpose,
        (w, h): (i32, i32),
        ds: Option<(u32, u32)>,
        (value_loc, coverage_loc): (u32, u32),
    ) -> Result<DebugTarget, Failure> {
        let t = DebugTarget {
            context,
            purpose,
            fbo: gl::gen_framebuffer(),
            value_rb: gl::gen_renderbuffer(),
            coverage_rb: gl::gen_renderbuffer(),
            ds_rb: if ds.is_some() {
                gl::gen_renderbuffer()
            } else {
                0
            },
            bytes_fbo: 0,
            bytes_rb: 0,
            size: (w, h),
            ds,
            locs: (value_loc, coverage_loc),
        };
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.fbo);
        let mut storage = vec![
            (t.value_rb, gl::RGBA32F, gl::COLOR_ATTACHMENT0 + value_loc),
            (
                t.coverage_rb,
                gl::R32F,
                gl::COLOR_ATTACHMENT0 + coverage_loc,
            ),
        ];
        if let Some((fmt, att)) = ds {
            storage.push((t.ds_rb, fmt, att));
        }
        for (rb, fmt, att) in storage {
            gl::bind_renderbuffer(rb);
            gl::renderbuffer_storage(fmt, w, h);
            gl::framebuffer_renderbuffer(gl::DRAW_FRAMEBUFFER, att, rb);
        }
        let n = value_loc.max(coverage_loc) + 1;
        let bufs: Vec<u32> = (0..n)
            .map(|i| match i == value_loc || i == coverage_loc {
                true => gl::COLOR_ATTACHMENT0 + i,
                false => gl::NONE,
            })
            .collect();
        gl::draw_buffers(&bufs);
        let status = gl::check_framebuffer_status(gl::DRAW_FRAMEBUFFER);
        if status != gl::FRAMEBUFFER_COMPLETE {
            t.delete();
            return Err((
                shm::STATUS_GL_FAILED,
                format!("debug framebuffer incomplete ({status:#x})"),
            ));
        }
        let mut t = t;
        if purpose == Purpose::Fragment && !is_es() {
            t.bytes_fbo = gl::gen_framebuffer();
            t.bytes_rb = gl::gen_renderbuffer();
            gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.bytes_fbo);
            gl::bind_renderbuffer(t.bytes_rb);
            gl::renderbuffer_storage(gl::R8, w, h);
            gl::framebuffer_renderbuffer(gl::DRAW_FRAMEBUFFER, gl::COLOR_ATTACHMENT0, t.bytes_rb);
            if gl::check_framebuffer_status(gl::DRAW_FRAMEBUFFER) != gl::FRAMEBUFFER_COMPLETE {
                gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.fbo);
                gl::delete_framebuffer(t.bytes_fbo);
                gl::delete_renderbuffer(t.bytes_rb);
                (t.bytes_fbo, t.bytes_rb) = (0, 0);
            }
            gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, t.fbo);
        }
        Ok(t)
    }

    /// Whether the names are still ours, and binds the framebuffer: the app
    /// may have destroyed the context and a new one may reuse its handle
    /// and the names.
    fn still_ours(&self) -> bool {
        let rb_is = |rb: u32, fmt: u32| {
            gl::is_renderbuffer(rb) && {
                gl::bind_renderbuffer(rb);
                gl::get_renderbuffer_param(gl::RENDERBUFFER_INTERNAL_FORMAT) as u32 == fmt
                    && gl::get_renderbuffer_param(gl::RENDERBUFFER_WIDTH) == self.size.0
                    && gl::get_renderbuffer_param(gl::RENDERBUFFER_HEIGHT) == self.size.1
            }
        };
        if !gl::is_framebuffer(self.fbo)
            || !rb_is(self.value_rb, gl::RGBA32F)
            || !rb_is(self.coverage_rb, gl::R32F)
        {
            return false;
        }
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, self.fbo);
        let attached = |loc: u32| {
            gl::fb_attachment_param(
                gl::DRAW_FRAMEBUFFER,
                gl::COLOR_ATTACHMENT0 + loc,
                gl::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
            ) as u32
        };
        attached(self.locs.0) == self.value_rb && attached(self.locs.1) == self.coverage_rb
    }

    /// Delete the objects (the caller rebinds the app's framebuffer after).
    fn delete(&self) {
        gl::bind_framebuffer(gl::FRAMEBUFFER, 0);
        gl::bind_renderbuffer(0);
        gl::delete_framebuffer(self.fbo);
        if self.bytes_fbo != 0 {
            gl::delete_framebuffer(self.bytes_fbo);
        }
        for rb in [self.value_rb, self.coverage_rb, self.ds_rb, self.bytes_rb] {
            if rb != 0 {
                gl::delete_renderbuffer(rb);
            }
        }
    }
}

/// Compile, bind locations and link the debug program of a request.
fn build_program(
    bulk: &Bulk,
    saved: &Saved,
    req: &FragmentStepRequest,
    max_db: u32,
) -> Result<DebugProgram, Failure> {
    let app = saved.primary();
    let prog = gl::create_program();
    let shaders = compile_attach(bulk, prog, &req.shaders[..req.shader_count as usize])?;
    bind_app_attributes(app, prog);
    let fragment_program = saved.program_for(gl::FRAGMENT_SHADER);
    // The app's outputs keep their locations; the debug outputs take free ones.
    let mut used = Vec::new();
    let app_outputs = bulk.str(req.app_outputs);
    let app_outputs: Vec<&str> = app_outputs
        .split('\n')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    // A dual-source blending output (index 1) goes to a free location of
    // its own at index 0: with a second source a driver may allow no other
    // colour output (NVIDIA), and the debug program adds two.
    let mut second_sources = Vec::new();
    for &name in &app_outputs {
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
        let loc = (0..max_db).find(|l| !used.contains(l)).ok_or((
            shm::STATUS_GL_FAILED,
            format!("no free fragment output location for the second source {name}"),
        ))?;
        gl::bind_frag_data_location(prog, loc, name);
        used.push(loc);
    }
    let value_name = bulk.str(req.value_output.name);
    let coverage_name = bulk.str(req.coverage_output.name);
    let mut choose = |out: &shm::OutputRef, name: &str| -> Result<u32, Failure> {
        if out.frag_data_index >= 0 {
            used.push(out.frag_data_index as u32);
            return Ok(out.frag_data_index as u32);
        }
        let loc = (0..max_db).find(|l| !used.contains(l)).ok_or((
            shm::STATUS_GL_FAILED,
            format!("no free fragment output location for {name}"),
        ))?;
        used.push(loc);
        gl::bind_frag_data_location(prog, loc, name);
        Ok(loc)
    };
    let chosen = choose(&req.value_output, &value_name)
        .and_then(|v| Ok((v, choose(&req.coverage_output, &coverage_name)?)));
    let (mut value_loc, mut coverage_loc) = match chosen {
        Ok(x) => x,
        Err(e) => {
            cleanup(prog, &shaders, true);
            return Err(e);
        }
    };
    gl::link_program(prog);
    if gl::get_program_i(prog, gl::LINK_STATUS) == 0 {
        let log = gl::program_info_log(prog);
        cleanup(prog, &shaders, true);
        return Err((shm::STATUS_LINK_FAILED, log));
    }
    cleanup(prog, &shaders, false);
    // Explicit layout locations in the shader win over our bindings: ask.
    if req.value_output.frag_data_index < 0 {
        let l = gl::frag_data_location(prog, &value_name);
        if l >= 0 {
            value_loc = l as u32;
        }
    }
    if req.coverage_output.frag_data_index < 0 {
        let l = gl::frag_data_location(prog, &coverage_name);
        if l >= 0 {
            coverage_loc = l as u32;
        }
    }
    if value_loc == coverage_loc || value_loc >= max_db || coverage_loc >= max_db {
        gl::delete_program(prog);
        return Err((
            shm::STATUS_LINK_FAILED,
            format!(
                "debug outputs at unusable locations (value {value_loc}, coverage {coverage_loc})"
            ),
        ));
    }
    Ok(DebugProgram {
        context: 0,
        app_program: app,
        key: req.cache_key,
        program: prog,
        value_loc,
        coverage_loc,
    })
}

/// Detach and delete the shaders of a debug program; delete the program too
/// when `delete_program` (its build failed).
pub(crate) fn cleanup(prog: u32, shaders: &[u32], delete_program: bool) {
    for &s in shaders {
        gl::detach_shader(prog, s);
        gl::delete_shader(s);
    }
    if delete_program {
        gl::delete_program(prog);
    }
}

/// Compile the request's shaders and attach them to `prog`; on a compile
/// error, everything is deleted and the driver's log returned.
pub(crate) fn compile_attach(
    bulk: &Bulk,
    prog: u32,
    sources: &[shm::ShaderRef],
) -> Result<Vec<u32>, Failure> {
    let mut shaders = Vec::new();
    for sr in sources.iter().take(6) {
        let s = gl::create_shader(sr.gl_type);
        gl::shader_source(s, bulk.bytes(sr.source));
        gl::compile_shader(s);
        shaders.push(s);
        gl::attach_shader(prog, s);
        if gl::get_shader_i(s, gl::COMPILE_STATUS) == 0 {
            let log = gl::shader_info_log(s);
            cleanup(prog, &shaders, true);
            return Err((
                shm::STATUS_COMPILE_FAILED,
                format!("{} shader: {log}", stage_name(sr.gl_type)),
            ));
        }
    }
    Ok(shaders)
}

/// Give the debug program the app program's attribute locations (before linking).
pub(crate) fn bind_app_attributes(app: u32, prog: u32) {
    let n = gl::get_program_i(app, gl::ACTIVE_ATTRIBUTES).max(0) as u32;
    let max = gl::get_program_i(app, gl::ACTIVE_ATTRIBUTE_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        let (name, _, _) = gl::active_variable(app, i, true, max);
        if name.starts_with("gl_") {
            continue;
        }
        let loc = gl::attrib_location(app, &name);
        if loc >= 0 {
            gl::bind_attrib_location(prog, loc as u32, &name);
        }
    }
}

/// Give `prog`'s uniform and storage blocks the bindings the blocks of the
/// same names have in the app's `programs`.
pub(crate) fn bind_app_blocks(programs: &[u32], prog: u32) {
    for &app in programs {
        bind_blocks_of(app, prog);
    }
}

fn bind_blocks_of(app: u32, prog: u32) {
    let blocks = gl::get_program_i(app, gl::ACTIVE_UNIFORM_BLOCKS).max(0) as u32;
    for b in 0..blocks {
        let name = gl::uniform_block_name(app, b);
        let binding = gl::uniform_block_param(app, b, gl::UNIFORM_BLOCK_BINDING);
        let idx = gl::uniform_block_index(prog, &name);
        if idx != u32::MAX {
            gl::uniform_block_binding(prog, idx, binding.max(0) as u32);
        }
    }
    // Shader storage block bindings by name (GL 4.3+).
    if program_interface_query() {
        let n = gl::program_interface_i(app, gl::SHADER_STORAGE_BLOCK, gl::ACTIVE_RESOURCES)
            .clamp(0, 256) as u32;
        for b in 0..n {
            let name = gl::program_resource_name(app, gl::SHADER_STORAGE_BLOCK, b);
            let binding =
                gl::program_resource_i(app, gl::SHADER_STORAGE_BLOCK, b, gl::BUFFER_BINDING);
            let idx = gl::program_resource_index(prog, gl::SHADER_STORAGE_BLOCK, &name);
            if idx != u32::MAX {
                gl::shader_storage_block_binding(prog, idx, binding.max(0) as u32);
            }
        }
    }
}

fn stage_name(ty: u32) -> &'static str {
    match ty {
        gl::VERTEX_SHADER => "vertex",
        gl::FRAGMENT_SHADER => "fragment",
        0x8DD9 => "geometry",
        0x8E88 => "tessellation control",
        0x8E87 => "tessellation evaluation",
        0x91B9 => "compute",
        _ => "unknown",
    }
}

/// Copy every default-block uniform value of `app` into `dbg` (current program).
pub(crate) fn copy_uniforms(app: u32, dbg: u32) {
    // (ES 2 has no uniform blocks, nor glGetActiveUniformsiv to ask.)
    let blocks = crate::replay::es::version().is_none_or(|v| v.0 >= 3);
    let n = gl::get_program_i(app, gl::ACTIVE_UNIFORMS).max(0) as u32;
    let max = gl::get_program_i(app, gl::ACTIVE_UNIFORM_MAX_LENGTH).max(0) as usize;
    for i in 0..n {
        if blocks && gl::active_uniform_param(app, i, gl::UNIFORM_BLOCK_INDEX) != -1 {
            continue;
        }
        let (name, size, ty) = gl::active_variable(app, i, false, max);
        if name.starts_with("gl_") {
            continue;
        }
        let (kind, _, _) = gl::uniform_shape(ty);
        let base = name.strip_suffix("[0]").unwrap_or(&name);
        for e in 0..size.max(1) {
            let elem = if size > 1 || name.ends_with("[0]") {
                format!("{base}[{e}]")
            } else {
                name.clone()
            };
            let (src, dst) = (
                gl::uniform_location(app, &elem),
                gl::uniform_location(dbg, &elem),
            );
            if src < 0 || dst < 0 {
                continue;
            }
            let v = gl::get_uniform(app, src, kind);
            gl::set_uniform(dst, ty, &v);
        }
    }
}

/// Width and height of the draw framebuffer.
pub(crate) fn framebuffer_size(draw_fb: u32) -> (i32, i32) {
    let viewport = || {
        let v = gl::get_i4(gl::VIEWPORT);
        (v[0] + v[2], v[1] + v[3])
    };
    if draw_fb == 0 {
        return gl::window_size().unwrap_or_else(viewport);
    }
    let mut atts: Vec<u32> = (0..8).map(|i| gl::COLOR_ATTACHMENT0 + i).collect();
    atts.extend([gl::DEPTH_ATTACHMENT, gl::STENCIL_ATTACHMENT]);
    for att in atts {
        let ty = gl::fb_attachment_param(
            gl::DRAW_FRAMEBUFFER,
            att,
            gl::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE,
        ) as u32;
        let name = gl::fb_attachment_param(
            gl::DRAW_FRAMEBUFFER,
            att,
            gl::FRAMEBUFFER_ATTACHMENT_OBJECT_NAME,
        ) as u32;
        match ty {
            gl::RENDERBUFFER => {
                gl::bind_renderbuffer(name);
                let (w, h) = (
                    gl::get_renderbuffer_param(gl::RENDERBUFFER_WIDTH),
                    gl::get_renderbuffer_param(gl::RENDERBUFFER_HEIGHT),
                );
                if w > 0 && h > 0 {
                    return (w, h);
                }
            }
            gl::TEXTURE => {
                let level = gl::fb_attachment_param(
                    gl::DRAW_FRAMEBUFFER,
                    att,
                    gl::FRAMEBUFFER_ATTACHMENT_TEXTURE_LEVEL,
                );
                let dsa =
                    crate::intercept::resolve::available(gldbg_proto::api::ids::glGetTextureLevelParameteriv);
                if dsa {
                    let (w, h) = (
                        gl::texture_level_param(name, level, gl::TEXTURE_WIDTH),
                        gl::texture_level_param(name, level, gl::TEXTURE_HEIGHT),
                    );
                    if w > 0 && h > 0 {
                        return (w, h);
                    }
                }
            }
            _ => {}
        }
    }
    viewport()
}

/// Depth/stencil layout of the draw framebuffer, mirrored by the debug FBO:
/// (renderbuffer format, attachment point), or `None` when it has neither
/// (then no depth or stencil test can fail, as in the app).
fn depth_stencil_format(draw_fb: u32) -> Option<(u32, u32)> {
    let (datt, satt) = if draw_fb == 0 {
        (gl::DEPTH, gl::STENCIL)
    } else {
        (gl::DEPTH_ATTACHMENT, gl::STENCIL_ATTACHMENT)
    };
    let q = |att: u32, pname: u32| gl::fb_attachment_param(gl::DRAW_FRAMEBUFFER, att, pname);
    let present = |att: u32| q(att, gl::FRAMEBUFFER_ATTACHMENT_OBJECT_TYPE) as u32 != gl::NONE;
    let depth = if present(datt) {
        q(datt, gl::FRAMEBUFFER_ATTACHMENT_DEPTH_SIZE)
    } else {
        0
    };
    let float_depth =
        depth > 0 && q(datt, gl::FRAMEBUFFER_ATTACHMENT_COMPONENT_TYPE) as u32 == gl::FLOAT;
    let stencil = if present(satt) {
        q(satt, gl::FRAMEBUFFER_ATTACHMENT_STENCIL_SIZE)
    } else {
        0
    };
    drain_own_errors();
    match (depth, stencil > 0) {
        (0, false) => None,
        (0, true) => Some((gl::STENCIL_INDEX8, gl::STENCIL_ATTACHMENT)),
        (_, true) if float_depth => Some((gl::DEPTH32F_STENCIL8, gl::DEPTH_STENCIL_ATTACHMENT)),
        (_, true) => Some((gl::DEPTH24_STENCIL8, gl::DEPTH_STENCIL_ATTACHMENT)),
        (_, false) if float_depth => Some((gl::DEPTH_COMPONENT32F, gl::DEPTH_ATTACHMENT)),
        (d, false) if d <= 16 => Some((gl::DEPTH_COMPONENT16, gl::DEPTH_ATTACHMENT)),
        (d, false) if d <= 24 => Some((gl::DEPTH_COMPONENT24, gl::DEPTH_ATTACHMENT)),
        // GL ES has no 32-bit fixed-point depth renderbuffer (glmark2-es2's
        // shadow map is a DEPTH_COMPONENT/UNSIGNED_INT texture): the
        // framebuffer would be incomplete.
        (_, false) if is_es() => Some((gl::DEPTH_COMPONENT32F, gl::DEPTH_ATTACHMENT)),
        (_, false) => Some((gl::DEPTH_COMPONENT32, gl::DEPTH_ATTACHMENT)),
    }
}

/// `CMD_QUERY_STATE`: read each requested GL state value with the real
/// `glGetIntegerv` / `glGetFloatv` / `glIsEnabled` into a buffer of
/// `MAX_STATE_VALUES`; one `StateValue` per query at `BULK_REPLY`. The
/// app's pending errors are held for it first; an error a query raises is
/// reported in its `StateValue` and drained (never left for the app).
pub fn query_state() -> u32 {
    use gldbg_proto::shm::{
        MAX_STATE_VALUES, QUERY_ENABLED, QUERY_FLOAT, StateQuery, StateRequest, StateValue,
    };
    let Some(bulk) = Bulk::get() else {
        return shm::STATUS_GL_FAILED;
    };
    if !has_context() {
        return shm::STATUS_NO_CONTEXT;
    }
    let req: StateRequest = bulk.read(shm::BULK_REQUEST);
    let first = align8(shm::BULK_REQUEST + size_of::<StateRequest>());
    let max = (shm::BULK_REPLY - first) / size_of::<StateQuery>();
    hold_app_errors();
    for i in 0..(req.count as usize).min(max) {
        let q: StateQuery = bulk.read(first + i * size_of::<StateQuery>());
        let mut v = StateValue {
            count: q.count.min(MAX_STATE_VALUES as u32),
            ..Default::default()
        };
        match q.kind {
            QUERY_ENABLED => {
                // SAFETY: a real GL entry point on the stopped app thread with its context current.
                v.values[0] = f64::from(unsafe { crate::generated::real::glIsEnabled(q.name) });
                v.count = 1;
            }
            QUERY_FLOAT => {
                let mut buf = [0f32; MAX_STATE_VALUES];
                // SAFETY: as above; the buffer holds MAX_STATE_VALUES floats, more than any state value.
                unsafe { crate::generated::real::glGetFloatv(q.name, buf.as_mut_ptr().cast()) };
                for (d, s) in v.values.iter_mut().zip(buf) {
                    *d = f64::from(s);
                }
            }
            _ => {
                let mut buf = [0i32; MAX_STATE_VALUES];
                // SAFETY: as above; the buffer holds MAX_STATE_VALUES ints.
                unsafe { crate::generated::real::glGetIntegerv(q.name, buf.as_mut_ptr().cast()) };
                for (d, s) in v.values.iter_mut().zip(buf) {
                    *d = f64::from(s);
                }
            }
        }
        v.error = drain_own_errors();
        bulk.write(shm::BULK_REPLY + i * size_of::<StateValue>(), &v);
    }
    shm::STATUS_OK
}
