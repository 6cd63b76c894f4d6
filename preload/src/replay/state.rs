//! The app's GL state across a debug step: what any step changes, captured
//! before it ([`Saved::capture`]), what must not see our work suspended
//! ([`Saved::suspend`]), and all of it put back after ([`Saved::restore`]).

use crate::gl;

use super::context::{compatibility_context, gl_at_least, is_es};
use super::error::Error;

/// The programs a draw would run: (current program, bound pipeline when
/// no program is current, the programs: the current one or the distinct
/// programs of the pipeline's stages, vertex first). Call with the app's
/// errors held: without separate shader objects the pipeline query raises
/// an error of ours.
pub(crate) fn app_programs() -> (u32, u32, Vec<u32>) {
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

/// The GL state a debug step changes, captured before and restored after
/// (by the `Replay` guard, `pipeline.rs`).
pub(crate) struct Saved {
    /// The current program (0 when a separable pipeline is used).
    pub(crate) program: u32,
    /// The bound program pipeline, when no program is current (else 0).
    pipeline: u32,
    /// The programs the draw runs: the current program, or the distinct
    /// programs of the pipeline's stages, vertex first (empty: none).
    pub(crate) programs: Vec<u32>,
    pub(crate) draw_fb: u32,
    read_fb: u32,
    renderbuffer: u32,
    pub(crate) scissor: bool,
    pub(crate) discard: bool,
    depth_test: bool,
    stencil_test: bool,
    /// `None` where the context has no alpha test (core profiles, GL ES).
    pub(crate) alpha_test: Option<bool>,
    blend: Vec<bool>,
    color_masks: Vec<[u8; 4]>,
    pub(crate) depth_mask: u8,
    pub(crate) stencil_mask: (u32, u32),
    pack_buffer: u32,
    pack: [(u32, i32); PACK_PARAMS.len()],
    pub(crate) clamp_read: i32,
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

/// Pack parameters for reading our images tightly into the bulk region
/// (alignment 1, nothing skipped, no byte swap), in `PACK_PARAMS` order.
pub(crate) const PACK_TIGHT: [i32; PACK_PARAMS.len()] = [1, 0, 0, 0, 0];

/// The pack parameters this context has: GL ES has no `GL_PACK_SWAP_BYTES`
/// (setting it raises GL_INVALID_ENUM), desktop GL has them all.
pub(crate) fn pack_params_here(es: bool) -> &'static [u32] {
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
    pub(crate) fn check_programs(&self) -> Result<(), Error> {
        if self.programs.is_empty() {
            return Err(Error::NoProgram);
        }
        match self
            .programs
            .iter()
            .find(|&&p| gl::get_program_i(p, gl::LINK_STATUS) == 0)
        {
            Some(&p) => Err(Error::NotLinked(p)),
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
                .map(|i| match super::es::has_get_booleani() {
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

    /// Put back the app's front and back stencil write masks.
    pub(crate) fn restore_stencil_masks(&self) {
        gl::stencil_mask_separate(gl::FRONT, self.stencil_mask.0);
        gl::stencil_mask_separate(gl::BACK, self.stencil_mask.1);
    }

    /// The app's colour write mask of draw buffer `i`.
    pub(crate) fn color_mask(&self, i: u32) -> [u8; 4] {
        self.color_masks.get(i as usize).copied().unwrap_or([1; 4])
    }

    /// Put back the tests' enables and the write masks (a replay that
    /// masked everything goes on with the app's).
    pub(crate) fn restore_fragment_ops(&self) {
        gl::set_enabled(gl::SCISSOR_TEST, self.scissor);
        gl::set_enabled(gl::DEPTH_TEST, self.depth_test);
        gl::set_enabled(gl::STENCIL_TEST, self.stencil_test);
        if let Some(on) = self.alpha_test {
            gl::set_enabled(gl::ALPHA_TEST, on);
        }
        for (i, &m) in self.color_masks.iter().enumerate() {
            gl::color_maski(i as u32, m);
        }
        gl::depth_mask(self.depth_mask);
        self.restore_stencil_masks();
    }

    pub(crate) fn restore(&self) {
        gl::use_program(self.program);
        for (stage, indices) in &self.subroutines {
            gl::uniform_subroutines(*stage, indices);
        }
        gl::bind_framebuffer(gl::DRAW_FRAMEBUFFER, self.draw_fb);
        gl::bind_framebuffer(gl::READ_FRAMEBUFFER, self.read_fb);
        gl::bind_renderbuffer(self.renderbuffer);
        gl::set_enabled(gl::RASTERIZER_DISCARD, self.discard);
        for (i, &b) in self.blend.iter().enumerate() {
            gl::set_enabledi(gl::BLEND, i as u32, b);
        }
        self.restore_fragment_ops();
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
