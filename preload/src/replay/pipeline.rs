//! The one pipeline of every debug step:
//!
//! 1. [`command`]: read the request, check the stopped call before any GL
//!    state is touched, hold the app's GL errors, run the step, write the
//!    reply (its log from the typed [`Error`]).
//! 2. [`Replay::begin`]: save the app's state and suspend what must not
//!    see our work; restored when the guard drops (RAII, every path).
//! 3. [`Replay::program`]: the debug program, cached or built, made
//!    current with the app's uniforms, blocks, subroutines and loop path.
//! 4. [`Replay::writes`]: what the shader may write copied aside (put
//!    back when that guard drops).
//! 5. The strategy's capture set up (framebuffer, transform feedback,
//!    storage buffers, ES 2 packing), then [`Replay::replay`]: the call
//!    replayed, our errors after it a failure that names it.
//! 6. [`Replay::read_back`]: the strategy's read into the bulk region,
//!    then a trace shader's buffer where the request asks (`trace.rs`,
//!    bound at [`Replay::writes`]).

use std::time::Instant;

use gldbg_proto::api::{Abi, CALL_SHAPES, CallShape, FUNCTIONS, class};
use gldbg_proto::shm::{self, BulkRef, ShaderRef};

use crate::generated::{CLASS, invoke};
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

use super::bulk::{Bulk, StepReply, write_reply};
use super::context::has_context;
use super::error::Error;
use super::program::{DebugProgram, Kind, Mark, cached_or_build};
use super::state::Saved;
use super::trace::Trace;
use super::uniforms::{load_app_uniforms, set_path};
use super::writes::ShaderWrites;

/// The stopped call a step replays: its function and argument words.
#[derive(Clone, Copy)]
pub(crate) struct Call<'a> {
    pub(crate) id: u32,
    pub(crate) args: &'a [u64],
}

impl Call<'_> {
    pub(crate) fn name(&self) -> &'static str {
        FUNCTIONS[self.id as usize].name
    }

    /// Argument `i` as a 32-bit word (0 if absent).
    pub(crate) fn arg(&self, i: usize) -> u32 {
        self.args.get(i).copied().unwrap_or(0) as u32
    }

    /// What the call's parameters say about its shape (generated table).
    pub(crate) fn shape(&self) -> CallShape {
        CALL_SHAPES[self.id as usize]
    }

    /// Whether the call takes its primitive mode first.
    pub(crate) fn has_mode(&self) -> bool {
        self.shape().mode == Some(0)
    }

    /// Whether the call is a compute dispatch.
    pub(crate) fn is_dispatch(&self) -> bool {
        CLASS[self.id as usize] & class::DISPATCH != 0
    }

    /// Whether this is a draw a debug step can replay (`replayable_form`:
    /// the step's own condition on the call's form) on this thread's
    /// current context. A `glEnd` is, after a deferred `glBegin`
    /// (immediate mode under a debugger).
    pub(crate) fn replayable(&self, replayable_form: bool) -> Result<(), Error> {
        let name = self.name();
        let replayable_form = match self.id {
            gldbg_proto::api::ids::glEnd => crate::intercept::immediate::pending(),
            _ => replayable_form,
        };
        if CLASS[self.id as usize] & class::DRAW == 0 || !replayable_form {
            return Err(Error::NotReplayable { name });
        }
        if !has_context() {
            return Err(Error::NoContext);
        }
        if crate::intercept::lists::compiling() {
            return Err(Error::InsideList { name });
        }
        Ok(())
    }

    /// Replay the stopped draw with the app's arguments, its primitive mode
    /// replaced by `mode` where given; at `glEnd`, the deferred
    /// immediate-mode sequence; at `glCallList(s)`, the lists.
    pub(crate) fn draw(&self, mode: Option<u32>) {
        // Neutral blend functions on every draw buffer while the replay runs: a
        // function reading the second source (dual-source blending) on more
        // draw buffers than GL allows fails the draw, and our framebuffers have
        // two or more.
        let _blend =
            super::blend::Neutral::set(gl::get_i(gl::MAX_DRAW_BUFFERS).clamp(1, 32) as u32);
        self.issue(mode);
    }

    /// Replay the stopped draw exactly as the app issues it, with the app's
    /// blending (a pixel history passes fragments through it; the draw's
    /// own framebuffer has one colour attachment of ours, so no draw
    /// buffer limit of dual-source blending applies).
    pub(crate) fn draw_as_app(&self) {
        self.issue(None);
    }

    /// Issue the stopped draw, its mode replaced by `mode` where given; at
    /// `glEnd`, the deferred immediate-mode sequence; at `glCallList(s)`,
    /// the lists.
    fn issue(&self, mode: Option<u32>) {
        if self.id == gldbg_proto::api::ids::glEnd {
            crate::intercept::immediate::replay(mode);
            return;
        }
        if matches!(
            self.id,
            gldbg_proto::api::ids::glCallList | gldbg_proto::api::ids::glCallLists
        ) {
            crate::intercept::lists::replay(self.id, self.args);
            return;
        }
        let mut args = self.args.to_vec();
        if let (Some(mode), Some(first)) = (mode, args.first_mut()) {
            *first = u64::from(mode);
        }
        // SAFETY: the stopped call's own arguments (its pointers are still
        // valid: the app thread is inside this very call), the mode (its first
        // argument) replaced only where the caller checked it has one.
        unsafe { invoke(self.id, &args) };
    }

    /// Run the stopped dispatch again as it is.
    pub(crate) fn dispatch(&self) {
        // SAFETY: the stopped call's own arguments (an indirect dispatch
        // reads the app's indirect buffer, still bound as it was).
        unsafe { invoke(self.id, self.args) };
    }

    /// How many vertices the draw feeds to the vertex stage, read from its
    /// arguments (`count` × `instancecount`, or the sum of a multi-draw's
    /// counts); `None` when they do not say (indirect draws).
    pub(crate) fn vertex_count(&self) -> Option<usize> {
        let shape = self.shape();
        let params = FUNCTIONS[self.id as usize].params;
        let arg = |i: Option<u8>| {
            let i = usize::from(i?);
            Some((params[i].abi, *self.args.get(i)?))
        };
        let instances = match arg(shape.instances) {
            Some((Abi::Ptr, _)) => return None,
            Some((_, n)) => (n as u32 as i32).max(0) as usize,
            None => 1,
        };
        let count = match arg(shape.count)? {
            (Abi::Ptr, counts) => {
                let draws = (arg(shape.draw_count)?.1 as u32 as i32).clamp(0, 1 << 20) as usize;
                if counts == 0 {
                    return None;
                }
                // SAFETY: the app's own array of `drawcount` GLsizei counts,
                // valid while its thread is stopped inside this call.
                let counts =
                    unsafe { core::slice::from_raw_parts(counts as usize as *const i32, draws) };
                counts.iter().map(|&c| c.max(0) as usize).sum()
            }
            (_, n) => (n as u32 as i32).max(0) as usize,
        };
        Some(count.saturating_mul(instances))
    }
}

/// The request of a debug step: what every kind shares.
pub(crate) trait StepRequest: Copy + Default {
    /// The debug program's shaders (the valid entries).
    fn shaders(&self) -> &[ShaderRef];
    /// The loop-path uniform's name and the path.
    fn path(&self) -> (BulkRef, &[i32]);
}

macro_rules! step_request {
    ($($t:ty),*) => {$(
        impl StepRequest for $t {
            fn shaders(&self) -> &[ShaderRef] {
                &self.shaders[..(self.shader_count as usize).min(self.shaders.len())]
            }
            fn path(&self) -> (BulkRef, &[i32]) {
                (self.path_uniform, &self.path[..(self.path_len as usize).min(shm::MAX_PATH)])
            }
        }
    )*};
}
step_request!(
    shm::FragmentStepRequest,
    shm::VertexStepRequest,
    shm::ComputeStepRequest
);

/// A step's way of running, given the bulk region, the call, the request
/// and the reply to fill.
pub(crate) type StepFn<Q, R> = fn(&mut Bulk, Call, &Q, &mut R) -> Result<(), Error>;

/// Run one debug step command at the stopped call `id` with `args`: read
/// the request, `check` the call (before any GL state is touched), hold
/// the app's pending GL errors, run `step`, write the reply; returns the
/// command's status.
pub(crate) fn command<Q: Copy + Default, R: StepReply>(
    id: u32,
    args: &[u64],
    check: fn(Call, &Q) -> Result<(), Error>,
    step: StepFn<Q, R>,
) -> u32 {
    let Some(mut bulk) = Bulk::get() else {
        return shm::STATUS_BULK_UNAVAILABLE;
    };
    let call = Call { id, args };
    let req: Q = bulk.read(shm::BULK_REQUEST);
    let mut reply = R::default();
    // Before `check`: its queries may raise errors of ours (GL_MAJOR_VERSION
    // before GL 3.0), which must not reach the app as its own.
    hold_app_errors();
    let result = check(call, &req).and_then(|()| step(&mut bulk, call, &req, &mut reply));
    // A refusing check leaves no `Replay` to drain them.
    drain_own_errors();
    write_reply(&mut bulk, reply, result)
}

/// One replay in progress: the app's state saved (restored on drop, with
/// our GL errors drained), the reply being filled and the step's timings.
pub(crate) struct Replay<'a, R: StepReply> {
    pub(crate) bulk: &'a mut Bulk,
    pub(crate) call: Call<'a>,
    pub(crate) saved: Saved,
    pub(crate) reply: &'a mut R,
    /// The trace buffer the request asks for (`tracing`).
    trace: Trace,
    cached: bool,
    build_ns: u64,
    replay_ns: u64,
    readback_ns: u64,
}

impl<'a, R: StepReply> Replay<'a, R> {
    /// Save the app's state (per-buffer state of `draw_buffers` draw
    /// buffers) and suspend what must not see our work.
    pub(crate) fn begin(
        bulk: &'a mut Bulk,
        call: Call<'a>,
        reply: &'a mut R,
        draw_buffers: u32,
    ) -> Self {
        let mut saved = Saved::capture(draw_buffers);
        saved.suspend();
        Self::with(bulk, call, reply, saved)
    }

    /// As [`Replay::begin`], for a call that runs for the app (a memcheck
    /// call in place): the app's counting queries and transform feedback go
    /// on counting and capturing it; nothing else is suspended.
    pub(crate) fn begin_for_app(
        bulk: &'a mut Bulk,
        call: Call<'a>,
        reply: &'a mut R,
        draw_buffers: u32,
    ) -> Self {
        let saved = Saved::capture(draw_buffers);
        // What capturing raised is ours (as `suspend` drains it).
        drain_own_errors();
        Self::with(bulk, call, reply, saved)
    }

    fn with(bulk: &'a mut Bulk, call: Call<'a>, reply: &'a mut R, saved: Saved) -> Self {
        Replay {
            bulk,
            call,
            saved,
            reply,
            trace: Trace::default(),
            cached: false,
            build_ns: 0,
            replay_ns: 0,
            readback_ns: 0,
        }
    }

    /// Bind the trace buffer `ask` names (ABI 12) for a debug shader of
    /// `stage` (GL shader type) at [`Replay::writes`], read it back at
    /// [`Replay::read_back`].
    pub(crate) fn tracing(mut self, ask: shm::TraceRequest, stage: u32) -> Self {
        self.trace = Trace::new(ask, stage);
        self
    }

    /// As [`Replay::tracing`], into the caller's buffer (memcheck's armed
    /// runs: each its own, read after a fence), zeroed already or not.
    pub(crate) fn tracing_into(
        mut self,
        ask: shm::TraceRequest,
        stage: u32,
        into: (u32, bool),
    ) -> Self {
        self.trace = Trace::into_buffer(ask, stage, into);
        self
    }

    /// The name of the trace block asked for (empty: none).
    pub(crate) fn trace_block(&self) -> String {
        self.trace.block(self.bulk)
    }

    /// The debug program of `kind` for the app's program `app` and cache
    /// `key`: the cached one while it has the mark and `still_ours` says
    /// so, else `build`'s;
    /// made current with the app's uniform values, subroutine selections
    /// and block bindings and the request's loop path.
    pub(crate) fn program(
        &mut self,
        (kind, app, key): (Kind, u32, u64),
        path: (BulkRef, &[i32]),
        still_ours: (&Mark, impl Fn(&DebugProgram) -> bool),
        build: impl FnOnce(&Bulk, &Saved) -> Result<DebugProgram, Error>,
    ) -> Result<DebugProgram, Error> {
        let t0 = Instant::now();
        let context = crate::intercept::context::current_context();
        let (bulk, saved) = (&*self.bulk, &self.saved);
        let (dbg, cached) =
            cached_or_build(context, (kind, app, key), still_ours, || build(bulk, saved))?;
        self.cached = cached;
        gl::use_program(dbg.program);
        load_app_uniforms(dbg.program, &self.saved);
        set_path(self.bulk, dbg.program, path.0, path.1);
        self.build_ns = t0.elapsed().as_nanos() as u64;
        Ok(dbg)
    }

    /// Copy aside what program `prog` (current, its bindings final) can
    /// write; put back when the returned guard drops. Then, where the
    /// request asks for a trace, its block is placed and our buffer bound
    /// (not copied aside: the replay's writes to it are what we read).
    pub(crate) fn writes(&mut self, prog: u32) -> Result<ShaderWrites, Error> {
        self.trace.plan(self.bulk, prog, self.reply.trace_mut())?;
        let writes = ShaderWrites::snapshot(prog, &Vec::from_iter(self.trace.block_index()))?;
        self.trace.bind()?;
        Ok(writes)
    }

    /// As [`Replay::writes`], for a call that may run for the app
    /// (`memcheck.rs`): where `aside`, copy aside what `prog` can write but
    /// its storage blocks `ours` (buffers of ours) and the trace block;
    /// else copy nothing (the call's writes are the app's). Then the trace
    /// block placed and bound.
    pub(crate) fn writes_but(
        &mut self,
        prog: u32,
        aside: bool,
        ours: &[u32],
    ) -> Result<Option<ShaderWrites>, Error> {
        self.trace.plan(self.bulk, prog, self.reply.trace_mut())?;
        let mut skip = ours.to_vec();
        skip.extend(self.trace.block_index());
        let writes = match aside {
            true => Some(ShaderWrites::snapshot(prog, &skip)?),
            false => None,
        };
        self.trace.bind()?;
        Ok(writes)
    }

    /// Replay the stopped call with `run` (timed); our GL errors after it
    /// fail the step, naming `what` was replayed.
    pub(crate) fn replay(
        &mut self,
        what: &'static str,
        run: impl FnOnce(Call),
    ) -> Result<(), Error> {
        let t = Instant::now();
        run(self.call);
        let result = match drain_own_errors() {
            0 => Ok(()),
            code => Err(Error::Replay { what, code }),
        };
        self.replay_ns = t.elapsed().as_nanos() as u64;
        result
    }

    /// Read the captured values back with `read` (timed), then the trace
    /// after them.
    pub(crate) fn read_back(
        &mut self,
        read: impl FnOnce(&mut Self) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let t = Instant::now();
        let result = read(self).and_then(|()| {
            let end = self.reply.data_end();
            self.trace.read(self.bulk, end, self.reply.trace_mut())
        });
        self.readback_ns = t.elapsed().as_nanos() as u64;
        result
    }
}

impl<R: StepReply> Drop for Replay<'_, R> {
    fn drop(&mut self) {
        self.reply
            .set_timing(self.cached, self.build_ns, self.replay_ns, self.readback_ns);
        self.trace.unbind();
        self.saved.restore();
        drain_own_errors();
    }
}

/// Fail with [`Error::Gl`] (`doing`) if our GL work raised an error.
pub(crate) fn check_gl(doing: &'static str) -> Result<(), Error> {
    match drain_own_errors() {
        0 => Ok(()),
        code => Err(Error::Gl { doing, code }),
    }
}
