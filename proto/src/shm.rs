//! The shared-memory ABI between the preload (inside the app) and the daemon.
//!
//! The daemon creates a memfd of [`SHM_SIZE`] bytes (sparse: pages cost
//! memory only once touched), writes the [`Header`], and names it to the
//! app in [`ENV_PATH`] (`/proc/<daemon pid>/fd/<n>`; the older [`ENV_FD`],
//! an inherited fd number, still works). The preload maps it in its
//! constructor, checks [`MAGIC`] and [`ABI_VERSION`] and closes its fd; the
//! first process to call GL claims the session (`Header::preload_pid`). Layout: `Header` at offset 0, then the bulk region at
//! [`BULK_OFFSET`].
//!
//! Every field says which side writes it. Fields are only ever appended;
//! a change of meaning bumps [`ABI_VERSION`].
//!
//! ## The stop protocol (one [`Slot`] per app thread that called GL)
//!
//! 1. The preload, in a wrapper whose breakpoint bit is set, claims its
//!    thread's slot, fills `function`, `arg_count`, `args`, `call_number`,
//!    sets `state = STATE_STOPPED`, bumps `Header::stop_seq` and futex-wakes it.
//! 2. The daemon (waiting on `stop_seq`) sees the stopped slot. To give a
//!    command it writes `command` (and, for debug work, a request in the
//!    bulk region), then increments `command_seq` and futex-wakes it.
//! 3. The preload (waiting on `command_seq`) runs the command, writes
//!    `status` (and replies in the bulk region), stores `done_seq =
//!    command_seq` and futex-wakes `done_seq`.
//! 4. `CMD_CONTINUE` / `CMD_SKIP` release the thread: the preload sets
//!    `state = STATE_IN_CALL` (executing) and then `STATE_RUNNING`.
//!    `CMD_FINISH` executes the call, stores `ret`, sets
//!    `state = STATE_RETURNED`, acknowledges, and waits for the next command.
//!
//! 5. Error breakpoints (ABI 2): while `Header::check_errors` is 1, every
//!    GL call takes the slow path; it stops before the call only if its
//!    `Header::stop_bits` bit is set, and after the call the preload asks
//!    the real `glGetError`. An error is held for the app (its next
//!    `glGetError` gets it first, unchanged) and the thread stops after the
//!    call: `state = STATE_STOPPED` with `Slot::error` set and `ret` valid;
//!    `CMD_CONTINUE`/`CMD_SKIP` then just return `ret`.
//!
//! 6. Step loops (ABI 3): while `Header::spin_us` is nonzero both sides
//!    spin instead of sleeping, so `step N` costs a cache-line hand-off per
//!    call rather than two thread wake-ups.
//!
//! 7. Wake-ups (ABI 3): a waiter announces itself (`Slot::app_sleeping`,
//!    `Slot::daemon_sleeping`, `Header::stop_sleepers`) with a sequentially
//!    consistent store, re-checks its word, then futex-waits; a waker stores
//!    its word sequentially consistent and calls `futex_wake` only if a
//!    waiter is announced. Either the waiter sees the new word or the
//!    waker sees the waiter (store→load order on both sides), so no wake-up
//!    is lost, and a hand-off between spinning sides makes no system call.
//!
//! 8. Stop and command identity (ABI 8): each stop of a slot gets a new
//!    `Slot::stop_id` (the preload's per-slot count, never 0), stored before
//!    `state = STATE_STOPPED`. The daemon takes a stop (its claim) only if,
//!    at the moment of taking it, the slot is still `STATE_STOPPED` at that
//!    `stop_id`: a slow scanner's old snapshot of an earlier stop is never
//!    taken twice. Every command names the stop it is meant for in
//!    `Slot::command_stop`; the preload waits from the last sequence it
//!    acknowledged (`done_seq`), not from `command_seq` as it finds it at a
//!    new stop, so a command posted while the thread ran between two stops
//!    is seen at the next stop and answered [`STATUS_STALE_STOP`] at once
//!    instead of being swallowed (the daemon would wait for an
//!    acknowledgement that never comes).
//!
//! Futex waits on both sides use timeouts: the preload checks that the
//! daemon (`Header::daemon_pid`) is alive and otherwise falls back to
//! pass-through, so the app never hangs on a dead daemon.

use core::sync::atomic::{AtomicU32, AtomicU64};

/// `b"GLDBGSHM"` as a little-endian word.
pub const MAGIC: u64 = u64::from_le_bytes(*b"GLDBGSHM");
/// Bumped on any incompatible change of this module. 9: the step requests
/// and replies end with a [`ReadbackRequest`] / [`ReadbackReply`] (a
/// print reads back one invocation or a GPU-reduced summary). 10: a
/// fragment step's `app_outputs` is a list of names (a [`BulkRef`] list),
/// not one `\n`-separated text. 11: [`ReadbackReply::narrowed`]. 12: the
/// step requests and replies end with a [`TraceRequest`] / [`TraceReply`]
/// (a trace shader's storage buffer bound and read back). 15:
/// [`CMD_MEMCHECK`]. 16: memcheck's armed programs (issue 17's speed):
/// [`MemcheckRequest::arm`], [`CMD_MEMCHECK_TAKE`], [`Slot::memcheck_ran`],
/// [`Header::memcheck_fast`], [`Header::memcheck_fast_calls`],
/// [`MemcheckReply::cache_key`].
pub const ABI_VERSION: u32 = 16;

/// Environment variable carrying the inherited memfd number.
pub const ENV_FD: &str = "GLDBG_SHM_FD";
/// Environment variable carrying a path the preload opens itself
/// (`/proc/<daemon pid>/fd/<n>`): it survives `exec` chains (a launcher
/// script) because the preload leaves it in the environment. The first
/// process whose thread calls GL claims the session
/// (`Header::preload_pid`, compare-and-swap from 0); every other process
/// that maps it (the shell, the app's own children) runs pass-through.
pub const ENV_PATH: &str = "GLDBG_SHM";

/// Number of function ids the breakpoint bitset can hold.
pub const MAX_FUNCTIONS: usize = 4096;
/// Threads that can stop at once (each GL-calling thread claims one slot).
pub const MAX_SLOTS: usize = 64;
/// Arguments stored per call.
pub const MAX_ARGS: usize = crate::api::MAX_ARGS;

/// Offset of the bulk region from the start of the mapping.
pub const BULK_OFFSET: usize = 64 << 10;
/// Size of the bulk region (sparse; only touched pages use memory).
pub const BULK_SIZE: usize = 512 << 20;
/// Total size of the memfd.
pub const SHM_SIZE: usize = BULK_OFFSET + BULK_SIZE;

/// Where requests (daemon-written) live inside the bulk region.
pub const BULK_REQUEST: usize = 0;
/// Where replies (preload-written) live inside the bulk region.
pub const BULK_REPLY: usize = 4 << 20;
/// Where images and buffers read back by the preload start.
pub const BULK_DATA: usize = 8 << 20;

// Slot states (written by the preload).
/// The thread is not inside a stop.
pub const STATE_RUNNING: u32 = 0;
/// Stopped before executing `function`; waiting for commands.
pub const STATE_STOPPED: u32 = 1;
/// Executing the call it had stopped at (a crash now happened inside it).
pub const STATE_IN_CALL: u32 = 2;
/// Executed the call (after `CMD_FINISH`); `ret` is valid; waiting for commands.
pub const STATE_RETURNED: u32 = 3;

// Commands (written by the daemon).
/// Execute the call (with `args` as they are now) and let the thread run.
pub const CMD_CONTINUE: u32 = 1;
/// Do not execute the call; return 0 to the app and let the thread run.
pub const CMD_SKIP: u32 = 2;
/// Execute the call, store `ret`, stay stopped (`STATE_RETURNED`).
pub const CMD_FINISH: u32 = 3;
/// Run a fragment debug step: request [`FragmentStepRequest`] at
/// `BULK_REQUEST`, reply [`FragmentStepReply`] at `BULK_REPLY`.
pub const CMD_FRAGMENT_STEP: u32 = 4;
/// Describe the current program: reply [`ProgramReply`] at `BULK_REPLY`.
pub const CMD_QUERY_PROGRAM: u32 = 5;
/// Read GL state with the real `glGet*`/`glIsEnabled` (ABI 2): request
/// [`StateRequest`] at `BULK_REQUEST` (followed by its [`StateQuery`]s),
/// reply one [`StateValue`] per query at `BULK_REPLY`. The app's pending
/// GL errors are held for it; errors of the queries are reported per query
/// and never left for the app.
pub const CMD_QUERY_STATE: u32 = 6;
/// Run a vertex debug step (ABI 3): request [`VertexStepRequest`] at
/// `BULK_REQUEST`, reply [`VertexStepReply`] at `BULK_REPLY`. The draw is
/// replayed as `GL_POINTS` with rasterizer discard into a transform
/// feedback buffer of the preload's own transform feedback object: one
/// record per vertex of the draw, in the draw's vertex order.
pub const CMD_VERTEX_STEP: u32 = 7;
/// Run a compute or tess-control debug step (ABI 4): request
/// [`ComputeStepRequest`] at `BULK_REQUEST`, reply [`ComputeStepReply`] at
/// `BULK_REPLY`. The stopped dispatch (or draw, with rasterizer discard)
/// runs again with the instrumented shader, its debug values going to two
/// storage buffers of the preload's own; every buffer the app's shader can
/// write (storage and atomic counter bindings) and every bound image is
/// snapshotted before and restored after.
pub const CMD_COMPUTE_STEP: u32 = 8;
/// The debugging of the stopped draw ended: delete the GL objects the
/// debug steps kept for the current context (its framebuffer-sized debug
/// targets). The app's bindings and GL errors stay as they were. A
/// preload that predates it answers `STATUS_UNKNOWN_COMMAND` (harmless).
pub const CMD_RELEASE: u32 = 9;
/// (ABI 14) Read one texel of the image a pixel history follows, and say
/// how the current draw framebuffer writes it: request
/// [`PixelReadRequest`] at `BULK_REQUEST`, reply [`PixelReadReply`] at
/// `BULK_REPLY`. Runs at a stop before or after the call (`CMD_FINISH`).
pub const CMD_PIXEL_READ: u32 = 10;
/// (ABI 14) The stopped draw's fragments at one pixel: request
/// [`PixelHistoryRequest`] at `BULK_REQUEST`, reply [`PixelHistoryReply`]
/// at `BULK_REPLY`. The draw is replayed with the history shader, first
/// with every write masked and every test off (the fragments recorded in
/// the request's trace block), then once per recorded primitive, in
/// primitive order, through the app's own tests and blending into a copy
/// of the pixel (our framebuffer of the same formats): one
/// [`FragmentPass`] each. The app's framebuffer is never written.
pub const CMD_PIXEL_HISTORY: u32 = 11;
/// (ABI 15, issue 17) Run the stopped dispatch or draw with a memcheck
/// program (the app's shader with its memory accesses checked): request
/// [`MemcheckRequest`] at `BULK_REQUEST`, reply [`MemcheckReply`] at
/// `BULK_REPLY`. The program gets the app's uniforms and bindings as every
/// debug program does; its findings block and storage shadow are buffers
/// of the preload's own at free storage bindings, zeroed before the call.
/// In place, the call runs exactly as the app's would (its buffers,
/// images and framebuffer written: the daemon then answers the stop with
/// `CMD_SKIP`); not in place, what the shader writes is copied aside and
/// put back, and a draw's framebuffer writes are masked.
pub const CMD_MEMCHECK: u32 = 12;
/// (ABI 16) At a stop with [`Slot::memcheck_ran`] set (earlier dispatches
/// of the thread ran checked without a stop, from armed programs, and
/// found something): the oldest such run's [`MemcheckReply`] at
/// `BULK_REPLY` (its `call_number` and `function` name the call it ran
/// at), its lists and words in the bulk region as `CMD_MEMCHECK` writes
/// them; with none left, a default reply (`cache_key` 0). No request; no
/// GL work.
pub const CMD_MEMCHECK_TAKE: u32 = 13;

// Command status (written by the preload).
pub const STATUS_OK: u32 = 0;
/// The command is not known to this preload.
pub const STATUS_UNKNOWN_COMMAND: u32 = 1;
/// The stopped call is not a draw call the executor can replay.
pub const STATUS_NOT_A_DRAW: u32 = 2;
/// No program is current (or it is not linked).
pub const STATUS_NO_PROGRAM: u32 = 3;
/// A debug shader failed to compile; the driver's log is in the reply.
pub const STATUS_COMPILE_FAILED: u32 = 4;
/// The debug program failed to link; the driver's log is in the reply.
pub const STATUS_LINK_FAILED: u32 = 5;
/// Some other GL failure (framebuffer incomplete, GL error); log in the reply.
pub const STATUS_GL_FAILED: u32 = 6;
/// No GL context is current on the stopped thread.
pub const STATUS_NO_CONTEXT: u32 = 7;
/// (ABI 8) The command named a stop (`Slot::command_stop`) the thread is
/// not at: it was meant for an earlier stop. Nothing was done.
pub const STATUS_STALE_STOP: u32 = 8;
/// (ABI 9) The command could not take the bulk region (another command of
/// the process held it, or it could not be mapped; the app's stderr says
/// which): nothing was done and no reply was written.
pub const STATUS_BULK_UNAVAILABLE: u32 = 9;

/// `FragmentStepRequest::depth` / `stencil`: the app's buffer is copied
/// into the debug framebuffer; the test runs as the app set it.
pub const BUFFER_COPY: u32 = 0;
/// The buffer is cleared (depth 1.0, stencil 0); the test runs as the app set it.
pub const BUFFER_CLEAR: u32 = 1;
/// The test is switched off for the step: every fragment passes it.
pub const TEST_OFF: u32 = 2;

/// [`TexelRef::kind`]: the default framebuffer's colour buffer (the back
/// buffer) of the current context.
pub const TEXEL_WINDOW: u32 = 0;
/// [`TexelRef::kind`]: a level (and layer) of a texture.
pub const TEXEL_TEXTURE: u32 = 1;
/// [`TexelRef::kind`]: a renderbuffer.
pub const TEXEL_RENDERBUFFER: u32 = 2;
/// [`TexelRef::kind`] of a `CMD_PIXEL_READ` request: the image draw buffer
/// 0 of the current draw framebuffer writes (the reply's `resolved`).
pub const TEXEL_CURRENT: u32 = 3;

/// The texel a pixel history follows (ABI 14).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TexelRef {
    /// `TEXEL_*`.
    pub kind: u32,
    /// The texture or renderbuffer (0 for the window).
    pub name: u32,
    pub level: i32,
    /// The layer of an array, 3D or cube map texture; -1: not layered.
    pub layer: i32,
    pub x: i32,
    pub y: i32,
}

/// [`PixelValue::kind`]: float components (normalized or float formats).
pub const PIXEL_FLOAT: u32 = 0;
/// [`PixelValue::kind`]: signed integer components.
pub const PIXEL_INT: u32 = 1;
/// [`PixelValue::kind`]: unsigned integer components.
pub const PIXEL_UINT: u32 = 2;

/// A pixel's colour, depth and stencil as read (ABI 14).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PixelValue {
    /// The colour's components as bits (`PIXEL_*` says which kind).
    pub color: [u32; 4],
    /// Window depth (valid where `has_depth`).
    pub depth: f32,
    pub stencil: u32,
    pub has_depth: u32,
    pub has_stencil: u32,
}

/// Request of `CMD_PIXEL_READ` (daemon → preload, at `BULK_REQUEST`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PixelReadRequest {
    pub texel: TexelRef,
}

/// Reply of `CMD_PIXEL_READ` (preload → daemon, at `BULK_REPLY`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PixelReadReply {
    /// 1: the image exists and the texel is inside it; `value` is valid.
    pub found: u32,
    /// `PIXEL_*`.
    pub kind: u32,
    /// The image's size.
    pub width: i32,
    pub height: i32,
    /// The draw buffer of the current draw framebuffer that writes the
    /// image (-1: none).
    pub draw_buffer: i32,
    /// The current draw framebuffer (0: the window's).
    pub framebuffer: u32,
    /// The scissor test (GL_SCISSOR_TEST) and box.
    pub scissor_on: u32,
    pub scissor: [i32; 4],
    /// The colour (the texel); depth and stencil of the draw framebuffer
    /// at the texel where `draw_buffer >= 0`.
    pub value: PixelValue,
    /// Why `found` is 0, or a GL failure.
    pub log: BulkRef,
    /// The image read: the request's, or for `TEXEL_CURRENT` the one the
    /// current draw framebuffer's draw buffer 0 writes.
    pub resolved: TexelRef,
    /// The image's sized internal format as gldbg copies it (0: one it
    /// does not know).
    pub format: u32,
}

/// Request of `CMD_PIXEL_HISTORY` (daemon → preload, at `BULK_REQUEST`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PixelHistoryRequest {
    /// Cache key of the history program (equal keys: equal sources).
    pub cache_key: u64,
    pub shader_count: u32,
    /// The app program the shaders are for: a draw of another (or a
    /// request without shaders) is only answered which draw buffer writes
    /// the image and which program it uses, nothing replayed.
    pub program: u32,
    /// The history fragment shader plus the app program's other stages.
    pub shaders: [ShaderRef; 6],
    /// The names of the uniforms: primitive filter (`int`), pixel
    /// (`ivec2`), output index (`int`).
    pub prim_uniform: BulkRef,
    pub pixel_uniform: BulkRef,
    pub output_uniform: BulkRef,
    /// The shader's colour outputs by GL name, a list of [`BulkRef`]s
    /// (`gl_FragColor` matches every draw buffer, `gl_FragData[i]` draw
    /// buffer i, another name the location the app program gives it).
    pub outputs: BulkRef,
    pub texel: TexelRef,
    /// Most fragments to pass one by one (the records beyond are kept,
    /// their passes not run).
    pub max_passes: u32,
    pub _pad2: u32,
    /// The record block (glsl-instrument's `PixelHistory::block`).
    pub trace: TraceRequest,
}

/// One primitive's fragment passed through the app's tests and blending
/// (preload → daemon, a list at [`PixelHistoryReply::passes`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FragmentPass {
    pub primitive: u32,
    /// Samples that passed the depth and stencil tests (an occlusion query).
    pub samples: u32,
    /// The pixel after this fragment.
    pub after: PixelValue,
}

/// The fixed-function tests of the draw, for the daemon to tell which one
/// rejected a fragment (ABI 14).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FragmentTests {
    pub scissor_on: u32,
    pub scissor: [i32; 4],
    pub depth_on: u32,
    pub depth_func: u32,
    pub stencil_on: u32,
    /// Front, then back: function, reference, value mask.
    pub stencil_func: [u32; 2],
    pub stencil_ref: [i32; 2],
    pub stencil_mask: [u32; 2],
    /// Compatibility contexts: the alpha test, function and reference.
    pub alpha_on: u32,
    pub alpha_func: u32,
    pub alpha_ref: f32,
    /// Bit 0: the draw framebuffer has depth; bit 1: it has stencil.
    pub buffers: u32,
}

/// Words of one fragment record of the history shader (glsl-instrument's
/// `HISTORY_RECORD_WORDS`): primitive, state, front facing, depth bits,
/// the output's four components.
pub const HISTORY_RECORD_WORDS: usize = 8;

/// Reply of `CMD_PIXEL_HISTORY` (preload → daemon, at `BULK_REPLY`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct PixelHistoryReply {
    /// The app program and draw framebuffer of the draw.
    pub program: u32,
    pub framebuffer: u32,
    /// The draw buffer writing the followed image (-1: the draw does not
    /// write it; nothing was replayed).
    pub draw_buffer: i32,
    /// Index into the request's outputs of the draw buffer's output (-1:
    /// the shader has none for it).
    pub output: i32,
    /// `PIXEL_*` of the image.
    pub kind: u32,
    /// 1: the passes ran (else `log` says why: a format gldbg cannot copy).
    pub passed: u32,
    pub tests: FragmentTests,
    /// The pixel before the draw (colour, depth, stencil).
    pub before: PixelValue,
    /// The passes, [`FragmentPass`] each, in primitive order.
    pub passes: BulkRef,
    pub log: BulkRef,
    /// 1 if the program came from the preload's cache.
    pub cached: u32,
    pub _pad: u32,
    pub build_ns: u64,
    pub replay_ns: u64,
    pub readback_ns: u64,
    /// The recorded fragments (the trace block).
    pub trace: TraceReply,
}

/// Request of `CMD_MEMCHECK` (daemon → preload, at `BULK_REQUEST`; ABI 15).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MemcheckRequest {
    /// Cache key of the checked program (equal keys: equal sources).
    pub cache_key: u64,
    pub shader_count: u32,
    /// The app program the shaders are for: a call of another program is
    /// refused (`STATUS_GL_FAILED`, nothing run).
    pub program: u32,
    /// The checked stage's shader first (`GL_COMPUTE_SHADER` or
    /// `GL_FRAGMENT_SHADER`), then the app program's other stages as
    /// recorded.
    pub shaders: [ShaderRef; 6],
    /// 1: the call runs for the app (in place, nothing copied aside); 0:
    /// what it writes is copied aside and put back, a draw's framebuffer
    /// writes masked.
    pub in_place: u32,
    /// 1: the shader declares `counter_uniform` (`uint[8]`: the bytes of
    /// the range bound at each atomic counter binding).
    pub counters: u32,
    /// Most bytes of storage shadow (4 words per tracked component).
    pub budget_bytes: u64,
    /// The findings block's name (std430, no binding in the source) and
    /// its words: the buffer bound there holds exactly `log_words` words,
    /// all zeroed before the call.
    pub log_block: BulkRef,
    pub log_words: u32,
    /// (ABI 16, in what was padding) 1: after an in-place run that ran,
    /// arm the app program for this context: its later dispatches run
    /// checked without a stop while [`Header::memcheck_fast`] is 1, until
    /// a program is linked or a shader recorded (any `SHADER_RECORD` call)
    /// or a run fails. Their findings are read later, behind a fence; what
    /// they found makes the thread's next stop one with
    /// [`Slot::memcheck_ran`].
    pub arm: u32,
    /// The storage shadow's block name (empty: the shader has none).
    pub shadow_block: BulkRef,
    /// The tracked arrays' storage block names in shadow order, a list of
    /// [`BulkRef`]s (`BulkRef::list_bytes`).
    pub tracked: BulkRef,
    /// The names of the `uint[K]` shadow base and cap uniforms (K: the
    /// tracked arrays) and of the `uint[8]` counter size uniform.
    pub base_uniform: BulkRef,
    pub cap_uniform: BulkRef,
    pub counter_uniform: BulkRef,
    /// Storage block names whose bindings the reply gives, a list of
    /// [`BulkRef`]s.
    pub asked: BulkRef,
}

/// Reply of `CMD_MEMCHECK` (preload → daemon, at `BULK_REPLY`; ABI 15).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MemcheckReply {
    /// The app program the call used.
    pub program: u32,
    /// 1: the call ran without a GL error (in place: the app's call is
    /// done, skip it; 0: it did nothing, run the app's).
    pub ran: u32,
    /// Driver log (compile/link) or error text.
    pub log: BulkRef,
    /// The findings block after the call: exactly `log_words` words.
    pub words: BulkRef,
    /// Per tracked array (request order), a `u32` each: the shadow
    /// components given (`gldbg_mc_scap[k]`; 0: not shadowed, over the
    /// budget or nothing bound) and the components its bound range holds.
    pub caps: BulkRef,
    pub needed: BulkRef,
    /// Per asked block, a `u32` each: its storage binding (`u32::MAX`:
    /// not an active block of the checked program).
    pub bindings: BulkRef,
    /// Where the findings block and the shadow were bound (`u32::MAX`: none).
    pub log_binding: u32,
    pub shadow_binding: u32,
    /// 1 if the program came from the preload's cache.
    pub cached: u32,
    /// Not in place: buffers and images copied aside and put back.
    pub restored_buffers: u32,
    pub restored_images: u32,
    pub _pad: u32,
    /// Bytes of storage shadow bound for the call.
    pub shadow_bytes: u64,
    /// The call's GPU time (a `GL_TIME_ELAPSED` query around it; 0 where
    /// the context has none or the app's own timer query was active).
    pub gpu_ns: u64,
    pub build_ns: u64,
    pub replay_ns: u64,
    pub readback_ns: u64,
    /// The findings block as bound and read (its first four words in
    /// `hits`..`full`, the rest in `data`; `words` has them together).
    pub trace: TraceReply,
    /// (ABI 16) The request's `cache_key` (which checked program ran).
    pub cache_key: u64,
    /// (ABI 16) The call that ran: its number on its thread and function
    /// id (a run `CMD_MEMCHECK_TAKE` hands over ran at an earlier call than
    /// the stop's).
    pub call_number: u64,
    pub function: u32,
    pub _pad1: u32,
}

/// Start of the mapping. Written by the daemon before the app starts,
/// except where a field says otherwise.
#[repr(C)]
pub struct Header {
    /// [`MAGIC`].
    pub magic: u64,
    /// [`ABI_VERSION`].
    pub abi_version: u32,
    /// `size_of::<Header>()`, to catch layout drift.
    pub header_size: u32,
    /// Total mapping size ([`SHM_SIZE`]).
    pub total_size: u64,
    /// pid of the daemon, for the preload's liveness check.
    pub daemon_pid: u32,
    /// Number of functions in the table the daemon was built with.
    pub function_count: u32,
    /// Daemon: 1 = stop every call on every thread (single-step), 0 = use bits.
    pub step_all: AtomicU32,
    /// Preload: bumped (and futex-woken) whenever a slot stops or returns.
    pub stop_seq: AtomicU32,
    /// Preload: number of draw calls made so far (all threads).
    pub draw_count: AtomicU64,
    /// Preload: 1 once the preload has mapped the region and accepted it.
    pub preload_attached: AtomicU32,
    /// Preload: pid of the process that attached.
    pub preload_pid: AtomicU32,
    /// Daemon: one bit per function id; a set bit sends that function's
    /// calls to the stop path. The wrappers' fast path reads only this.
    pub breakpoints: [AtomicU64; MAX_FUNCTIONS / 64],
    /// Per-thread call slots.
    pub slots: [Slot; MAX_SLOTS],
    /// Daemon (ABI 2): 1 while an error breakpoint exists. Then the daemon
    /// sets every `breakpoints` bit (every GL call takes the slow path),
    /// `stop_bits` says which calls stop *before* executing, and after each
    /// GL call the preload asks the real `glGetError`: an error is kept for
    /// the app (the `glGetError` hook hands it back first) and the thread
    /// stops after the call with `Slot::error` set.
    pub check_errors: AtomicU32,
    /// Daemon (ABI 3): while nonzero, the daemon is in a step loop and
    /// answers a stop within microseconds, so a stopped thread spins this
    /// many microseconds for its command before it sleeps on the futex. A
    /// virtual CPU woken from a futex sleep costs 50–250 µs; a spinning
    /// hand-off costs well under one.
    pub spin_us: AtomicU32,
    /// Daemon (ABI 2): the stop-before-call bits while `check_errors` is 1.
    pub stop_bits: [AtomicU64; MAX_FUNCTIONS / 64],
    /// Daemon (ABI 3): number of daemon threads sleeping (or about to) on
    /// `stop_seq`; the preload issues the futex wake only when nonzero.
    pub stop_sleepers: AtomicU32,
    pub _pad1: u32,
    /// Preload (ABI 3): frame-end calls (swaps) started so far, all threads.
    pub frame_count: AtomicU64,
    /// Preload (ABI 13): where each thread's call word lies, as an offset
    /// from its thread pointer (`%fs` base on x86-64; two's complement):
    /// [`ThreadCalls`]. 0: not published (other targets). A crashing
    /// thread's word names the last GL call it entered, which the stack
    /// cannot show (the wrappers tail-call the real function).
    pub tls_offset: AtomicU64,
    /// Preload (ABI 14): `draw_count` when the last frame-end call started
    /// (the draws of the frame in progress are numbered from it).
    pub frame_first_draw: AtomicU64,
    /// Daemon (ABI 16): 1 while armed memcheck programs may run without a
    /// stop (`memcheck on`, nothing else stopping dispatches: no GL or
    /// source breakpoint covering them, no stepping, no error breakpoint).
    pub memcheck_fast: AtomicU32,
    pub _pad2: u32,
    /// Preload (ABI 16): dispatches armed memcheck programs ran without a
    /// stop, all threads.
    pub memcheck_fast_calls: AtomicU64,
}

/// Preload (ABI 13): one app thread's call word, in its static TLS at
/// [`Header::tls_offset`]: written on every wrapper's fast path.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ThreadCalls {
    /// GL calls the thread made (the per-thread call number of the last).
    pub calls: u64,
    /// The function id of the last call the thread entered, plus one (0:
    /// none yet). Whether that call had returned is not recorded.
    pub entered: u32,
    pub _pad: u32,
}

/// One app thread's stop state. Cache-line aligned so threads never share lines.
#[repr(C, align(64))]
pub struct Slot {
    /// Preload: the owning thread's tid (0 = free), claimed by CAS.
    pub tid: AtomicU32,
    /// Preload: `STATE_*`.
    pub state: AtomicU32,
    /// Daemon: incremented after each new `command`; the preload waits on it.
    pub command_seq: AtomicU32,
    /// Preload: set to `command_seq` once that command is done; the daemon waits on it.
    pub done_seq: AtomicU32,
    /// Daemon: `CMD_*`.
    pub command: AtomicU32,
    /// Preload: `STATUS_*` of the last command.
    pub status: AtomicU32,
    /// Preload: function id of the stopped call.
    pub function: AtomicU32,
    /// Preload: number of valid entries in `args`.
    pub arg_count: AtomicU32,
    /// Preload: 1-based number of this call among the GL calls of its thread.
    pub call_number: AtomicU64,
    /// Preload writes at the stop; the daemon may rewrite (`set arg`) before
    /// `CMD_CONTINUE`/`CMD_FINISH`. Integers zero/sign-extended, f32 as bits
    /// in the low half, f64 as bits, pointers as addresses.
    pub args: [AtomicU64; MAX_ARGS],
    /// Preload: return value after `CMD_FINISH` (same encoding as `args`).
    pub ret: AtomicU64,
    /// Preload: current EGL/GLX context handle at the stop (0 if none).
    pub context: AtomicU64,
    /// Preload (ABI 2): the GL error the call raised when the thread stopped
    /// *after* the call for an error breakpoint (the call was executed and
    /// `ret` is valid); 0 for an ordinary stop before the call.
    pub error: AtomicU32,
    /// Preload (ABI 3): 1 while the thread sleeps (or is about to) on
    /// `command_seq`; the daemon issues the futex wake only then.
    pub app_sleeping: AtomicU32,
    /// Daemon (ABI 3): 1 while a daemon thread sleeps (or is about to) on
    /// `done_seq`; the preload issues the futex wake only then.
    pub daemon_sleeping: AtomicU32,
    /// Preload (ABI 7, in what was padding: older preloads leave 0): 1 when
    /// the stopped call is a draw call that draws nothing (compiled into a
    /// display list by `glNewList(GL_COMPILE)`, or a `glCallList` of lists
    /// that draw nothing): it has no draw number.
    pub not_drawn: AtomicU32,
    /// Preload (ABI 8): identity of the current (or last) stop of this slot,
    /// bumped (skipping 0) at every stop before `state = STATE_STOPPED`.
    pub stop_id: AtomicU32,
    /// Daemon (ABI 8): the `stop_id` the posted `command` is meant for,
    /// written with `command` before `command_seq` is bumped.
    pub command_stop: AtomicU32,
    /// Preload (ABI 16): 1 at a stop (before its call, as any) where runs of
    /// armed memcheck programs that found something wait for
    /// [`CMD_MEMCHECK_TAKE`]: earlier dispatches of the thread, run checked
    /// without a stop. 0 at every other stop.
    pub memcheck_ran: AtomicU32,
}

/// A string or byte range inside the bulk region.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BulkRef {
    /// Offset from the start of the bulk region.
    pub offset: u32,
    /// Length in bytes.
    pub len: u32,
}

impl BulkRef {
    /// The range of `len` bytes at `offset` (both inside the bulk region,
    /// which is smaller than 4 GiB).
    pub const fn at(offset: usize, len: usize) -> BulkRef {
        BulkRef {
            offset: offset as u32,
            len: len as u32,
        }
    }

    /// The bytes of a list of refs as a request carries it: the refs one
    /// after another (`list_len`, `list_item` read it).
    pub fn list_bytes(refs: &[BulkRef]) -> Vec<u8> {
        refs.iter()
            .flat_map(|r| [r.offset.to_ne_bytes(), r.len.to_ne_bytes()])
            .flatten()
            .collect()
    }

    /// How many refs the list at `self` holds.
    pub const fn list_len(self) -> usize {
        self.len as usize / size_of::<BulkRef>()
    }

    /// The bulk offset of ref `i` of the list at `self`.
    pub const fn list_item(self, i: usize) -> usize {
        self.offset as usize + i * size_of::<BulkRef>()
    }
}

/// One shader of a debug program: a GL stage enum (`GL_VERTEX_SHADER`, ...) and its source.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ShaderRef {
    pub gl_type: u32,
    pub _pad: u32,
    pub source: BulkRef,
}

/// Where a debug output of the fragment shader goes.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct OutputRef {
    /// `>= 0`: the shader writes `gl_FragData[index]`; `-1`: a named `out`
    /// variable whose location the preload chooses (free location, bound
    /// with `glBindFragDataLocation` before linking).
    pub frag_data_index: i32,
    pub _pad: u32,
    /// Name of the `out` variable (empty for `gl_FragData`).
    pub name: BulkRef,
}

/// Maximum loop-path length passed to a debug shader.
pub const MAX_PATH: usize = 16;

/// Request of `CMD_FRAGMENT_STEP` (daemon → preload, at `BULK_REQUEST`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct FragmentStepRequest {
    /// Cache key of the debug program: equal keys mean equal sources.
    /// The preload keeps linked programs per (app program, key).
    pub cache_key: u64,
    /// Number of valid entries in `shaders`.
    pub shader_count: u32,
    /// `BUFFER_COPY`, `BUFFER_CLEAR` or `TEST_OFF`, for the depth buffer
    /// and test.
    pub depth: u32,
    /// The same for the stencil buffer and test.
    pub stencil: u32,
    /// Nonzero: the alpha test (compatibility contexts) is off for the step.
    pub alpha_test_off: u32,
    /// The debug program's shaders: the instrumented fragment shader plus
    /// the app program's other stages, unchanged.
    pub shaders: [ShaderRef; 6],
    /// The debug value output (vec4, read back as RGBA32F).
    pub value_output: OutputRef,
    /// The coverage output (float; 0 = the fragment did not reach the step,
    /// otherwise a type code), read back as R32F.
    pub coverage_output: OutputRef,
    /// Names of the app's own fragment outputs, a list of [`BulkRef`]s
    /// (`BulkRef::list_bytes`): the preload gives each the location it has
    /// in the app program.
    pub app_outputs: BulkRef,
    /// Name of a uniform `int[]` the debug shader reads its loop path from
    /// (empty: none).
    pub path_uniform: BulkRef,
    /// Number of valid entries in `path`.
    pub path_len: u32,
    /// How many of the value's components to read back (1..=4: R, RG,
    /// RGB, RGBA); 0: none, the coverage alone (a step, not a print).
    pub value_components: u32,
    pub path: [i32; MAX_PATH],
    /// (ABI 9) What to read back after the replay.
    pub readback: ReadbackRequest,
    /// (ABI 12) The trace buffer to bind and read back.
    pub trace: TraceRequest,
}

/// Reply of `CMD_FRAGMENT_STEP` (preload → daemon, at `BULK_REPLY`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct FragmentStepReply {
    /// The app program the draw used.
    pub program: u32,
    /// The app's draw framebuffer (0 = default).
    pub framebuffer: u32,
    /// Size of the images.
    pub width: u32,
    pub height: u32,
    /// The values, `value_components` floats per pixel, rows bottom-up
    /// (GL order); empty when none were asked for.
    pub values: BulkRef,
    /// Coverage, one byte per pixel (0: not reached, else reached), rows
    /// bottom-up: the R32F coverage image read as normalized bytes, a
    /// quarter of its size, converted on the GPU.
    pub coverage: BulkRef,
    /// Driver log (compile/link) or error text.
    pub log: BulkRef,
    /// 1 if the program came from the preload's cache.
    pub cached: u32,
    /// Floats per pixel in `values`: as asked, or 4 where the context
    /// reads float images only as RGBA (GL ES).
    pub value_components: u32,
    /// The type code the reached pixels wrote (they all write the same:
    /// one expression, one type); 0 when none was reached.
    pub coverage_code: u32,
    pub _pad: u32,
    /// Nanoseconds spent building (compile+link), replaying, reading back.
    pub build_ns: u64,
    pub replay_ns: u64,
    pub readback_ns: u64,
    /// (ABI 9) What `values` and `coverage` hold.
    pub readback: ReadbackReply,
    /// (ABI 12) What the trace buffer held.
    pub trace: TraceReply,
}

/// Request of `CMD_VERTEX_STEP` (daemon → preload, at `BULK_REQUEST`):
/// the vertex stage, or (ABI 4) the tessellation evaluation or geometry
/// stage, captured per vertex it outputs.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VertexStepRequest {
    /// Cache key of the debug program (as [`FragmentStepRequest::cache_key`]).
    pub cache_key: u64,
    /// Number of valid entries in `shaders`.
    pub shader_count: u32,
    /// GL shader type of the instrumented stage (`GL_VERTEX_SHADER`,
    /// `GL_TESS_EVALUATION_SHADER`, `GL_GEOMETRY_SHADER`; 0 = vertex).
    pub stage: u32,
    /// The instrumented shader first, then the app program's other stages
    /// unchanged. Vertex: the preload links the vertex shader alone (desktop
    /// GL) or with the fragment shader (GL ES needs one), and replays the
    /// draw as `GL_POINTS`. Tess-eval, geometry: every stage but the
    /// fragment shader (kept on GL ES), the draw replayed as it is, captured
    /// in the primitive type the last stage outputs.
    pub shaders: [ShaderRef; 6],
    /// The `vec4` debug value varying; empty: capture the coverage alone.
    pub value_varying: BulkRef,
    /// The `float` coverage varying (0 = not reached, else a type code).
    pub coverage_varying: BulkRef,
    /// As in [`FragmentStepRequest`].
    pub path_uniform: BulkRef,
    pub path_len: u32,
    pub _pad1: u32,
    pub path: [i32; MAX_PATH],
    /// Geometry: the `vec3` emission varying (emit index, input primitive,
    /// invocation), captured after the coverage; empty: none.
    pub emission_varying: BulkRef,
    /// A vertex shader at a non-indexed draw (ABI 7) may write storage
    /// blocks instead of varyings: the `vec4` value block at
    /// `value_binding`, the `float` coverage block at `value_binding + 1`,
    /// indexed by `gl_VertexID - first + gl_InstanceID * count` with these
    /// `uint` uniforms set to the draw's `first` and `count`. Empty:
    /// transform feedback.
    pub first_uniform: BulkRef,
    pub count_uniform: BulkRef,
    pub value_binding: u32,
    /// With storage blocks: 1 if the value is wanted (else the coverage alone
    /// is read back).
    pub want_value: u32,
    /// (ABI 9) What to read back after the replay (the vertex stage; the
    /// others read back everything).
    pub readback: ReadbackRequest,
    /// (ABI 12) The trace buffer to bind and read back.
    pub trace: TraceRequest,
}

/// Reply of `CMD_VERTEX_STEP` (preload → daemon, at `BULK_REPLY`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct VertexStepReply {
    /// The app program the draw used.
    pub program: u32,
    /// Vertices captured (vertex: the draw's vertices, instances one after
    /// another; tess-eval, geometry: the vertices of the primitives the
    /// stage output, in order).
    pub vertices: u32,
    /// RGBA32F per vertex, `vertices*16` bytes.
    pub values: BulkRef,
    /// Coverage, one byte per vertex (0: not reached, else reached).
    pub coverage: BulkRef,
    /// Driver log (compile/link) or error text.
    pub log: BulkRef,
    /// 1 if the program came from the preload's cache.
    pub cached: u32,
    /// 1 if the draw had more vertices than the capture could hold.
    pub truncated: u32,
    /// Geometry: the emission of each vertex, 3 `f32`s (emit index, input
    /// primitive, invocation); empty when not asked for.
    pub emission: BulkRef,
    /// The type code the reached vertices wrote (one expression, one
    /// type); 0 when none was reached.
    pub coverage_code: u32,
    pub _pad: u32,
    pub build_ns: u64,
    pub replay_ns: u64,
    pub readback_ns: u64,
    /// (ABI 9) What `values` and `coverage` hold.
    pub readback: ReadbackReply,
    /// (ABI 12) What the trace buffer held.
    pub trace: TraceReply,
}

/// Request of `CMD_COMPUTE_STEP` (daemon → preload, at `BULK_REQUEST`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ComputeStepRequest {
    /// Cache key of the debug program (as [`FragmentStepRequest::cache_key`]).
    pub cache_key: u64,
    /// The instrumented shader, then the app program's other shaders
    /// unchanged (compute: a program may link several compute shaders).
    pub shader_count: u32,
    /// Binding of the `vec4` value storage block; the `float` coverage
    /// block is at `value_binding + 1`.
    pub value_binding: u32,
    pub shaders: [ShaderRef; 6],
    /// Compute: a `uniform uvec3` to set to the program's work group size;
    /// tess-control: a `uniform uint` to set to its output patch size
    /// (empty: the shader declares its own).
    pub local_size_uniform: BulkRef,
    /// `GL_COMPUTE_SHADER` (0 too) or `GL_TESS_CONTROL_SHADER`.
    pub stage: u32,
    pub _pad0: u32,
    /// As in [`FragmentStepRequest`].
    pub path_uniform: BulkRef,
    pub path_len: u32,
    pub _pad: u32,
    pub path: [i32; MAX_PATH],
    /// (ABI 9) What to read back after the replay.
    pub readback: ReadbackRequest,
    /// (ABI 12) The trace buffer to bind and read back.
    pub trace: TraceRequest,
}

/// Reply of `CMD_COMPUTE_STEP` (preload → daemon, at `BULK_REPLY`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ComputeStepReply {
    /// The app program the dispatch used.
    pub program: u32,
    /// Invocations in the dispatch (values and coverage per invocation,
    /// by linear global index x + y*W + z*W*H, W and H in invocations);
    /// tess-control: patches × output vertices, by patch then vertex.
    pub invocations: u32,
    /// Work groups of the dispatch and invocations per work group
    /// (tess-control: [patches, 1, 1] and [output vertices, 1, 1]).
    pub groups: [u32; 3],
    pub local_size: [u32; 3],
    /// RGBA32F per invocation, `invocations*16` bytes.
    pub values: BulkRef,
    /// f32 coverage/type code per invocation, `invocations*4` bytes.
    pub coverage: BulkRef,
    /// Driver log (compile/link) or error text.
    pub log: BulkRef,
    /// 1 if the program came from the preload's cache.
    pub cached: u32,
    /// Buffers and images snapshotted for the replay and restored after it.
    pub restored_buffers: u32,
    pub restored_images: u32,
    pub _pad: u32,
    pub build_ns: u64,
    pub replay_ns: u64,
    pub readback_ns: u64,
    /// (ABI 9) What `values` and `coverage` hold.
    pub readback: ReadbackReply,
    /// (ABI 12) What the trace buffer held.
    pub trace: TraceReply,
}

/// [`ReadbackRequest::mode`] (ABI 9): read back every invocation's value
/// and coverage (the default; what a step, `dump`, `focus` and `info flow`
/// need).
pub const READBACK_ALL: u32 = 0;
/// Read back one invocation ([`ReadbackRequest::cell`]): its value and
/// coverage, and the type code the draw's reached invocations wrote.
pub const READBACK_ONE: u32 = 1;
/// Reduce on the GPU: how many invocations reached the step, per
/// component the least and greatest finite value, how many have a NaN or
/// an infinite component ([`ReadbackReply`]'s summary words).
pub const READBACK_SUMMARY: u32 = 2;

/// [`ReadbackRequest::base`]: how a summary compares the value's words.
/// IEEE floats (NaN and infinities counted apart).
pub const SUMMARY_FLOAT: u32 = 0;
/// Two's-complement `int`s (carried bit-exact in the float words).
pub const SUMMARY_INT: u32 = 1;
/// `uint`s (bit-exact).
pub const SUMMARY_UINT: u32 = 2;
/// `bool`s: a word is true where it is not ±0.0.
pub const SUMMARY_BOOL: u32 = 3;

/// What a debug step reads back (ABI 9; appended to the three step
/// requests). A preload that cannot do what is asked (no compute shaders
/// for a summary, a capture of unknown length) reads back everything and
/// says so in [`ReadbackReply::mode`].
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadbackRequest {
    /// `READBACK_ALL`, `READBACK_ONE` or `READBACK_SUMMARY`.
    pub mode: u32,
    /// Summary: `SUMMARY_*`.
    pub base: u32,
    /// Summary: how many of the value's components to reduce (1..=4).
    pub components: u32,
    /// Summary: the first `head` invocations are also read back whole, in
    /// the layout of a full readback (a vertex table).
    pub head: u32,
    /// One: the invocation. Fragment: pixel (x, y, 0); vertex: (N, 0, 0);
    /// compute: its global invocation id.
    pub cell: [u32; 3],
    pub _pad: u32,
}

/// Words of [`ReadbackReply::summary`].
pub const SUMMARY_WORDS: usize = 13;
/// Index in the summary words: invocations that reached the step.
pub const SUMMARY_COUNT: usize = 0;
/// Invocations with a NaN component.
pub const SUMMARY_NAN: usize = 1;
/// Invocations with an infinite component.
pub const SUMMARY_INF: usize = 2;
/// The least and greatest coverage word (the type code, as float bits) of
/// the reached invocations: equal when all wrote one type.
pub const SUMMARY_CODE_MIN: usize = 3;
pub const SUMMARY_CODE_MAX: usize = 4;
/// Per component, the least finite value as an order-preserving word:
/// floats with the sign bit flipped (negative: all bits), ints with the
/// sign bit flipped, uints and bools as they are. `!0` where no finite value.
pub const SUMMARY_MIN: usize = 5;
/// Per component, the greatest (0 where no finite value).
pub const SUMMARY_MAX: usize = 9;

/// What a debug step read back (ABI 9; appended to the three step replies).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadbackReply {
    /// The mode it read back in (`READBACK_*`): the reply's `values` and
    /// `coverage` hold every invocation (ALL, as before ABI 9), the
    /// invocation asked for (ONE: at most one), or the head (SUMMARY). The
    /// extent fields (`width`/`height`, `vertices`, `invocations`) always
    /// count the whole draw.
    pub mode: u32,
    /// One, summary: invocations in `values` and `coverage` (coverage then
    /// one byte each, 0: not reached; values as many floats each as a full
    /// readback has).
    pub held: u32,
    /// One: the held invocation's linear index (fragment: x + y*width;
    /// vertex: N; compute: x + y*W + z*W*H); `u32::MAX` when the cell is
    /// outside the draw (nothing held).
    pub index: u32,
    /// One, summary: the type code the reached invocations wrote, as the
    /// coverage float's value (0: none reached).
    pub code: u32,
    /// Summary: the reduction ([`SUMMARY_COUNT`] ...).
    pub summary: [u32; SUMMARY_WORDS],
    /// One (ABI 11): 1 if the replay shaded the asked pixel alone (a
    /// fragment point): an unreached pixel then comes with code 0, its
    /// type unknown, and the daemon reads the draw again whole.
    pub narrowed: u32,
    pub _pad: [u32; 2],
}

/// Words of a trace buffer before its data: `hits`, `records`, `words`,
/// `full` (glsl-instrument's `TRACE_HEADER_WORDS`, `trace.rs`).
pub const TRACE_HEADER_WORDS: usize = 4;

/// What a trace step binds (ABI 12; appended to the three step requests).
/// Written by the daemon. A trace shader writes one std430 storage block
/// `buffer NAME { uint hits; uint records; uint words; uint full; uint
/// data[]; }` declared without a binding; the preload binds a buffer of
/// its own there, its header zeroed, its range `TRACE_HEADER_WORDS +
/// capacity_words` words (so `data.length()` is the capacity).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceRequest {
    /// The block's name (empty: no trace; the reply says `TRACE_NONE`).
    pub block: BulkRef,
    /// Words of `data` the buffer holds.
    pub capacity_words: u32,
    /// Daemon (in what was padding; 0 before): nonzero to zero `data` too,
    /// not only the header (a block the shader updates with atomics, as a
    /// summary of every invocation's locals does, starts from zeros); the
    /// reply's `data` then holds all `capacity_words`, not `words`.
    pub zero_data: u32,
}

/// [`TraceReply::status`]: no trace was asked for.
pub const TRACE_NONE: u32 = 0;
/// The buffer was bound and read back: the counts and `data` are valid.
pub const TRACE_OK: u32 = 1;
/// The context cannot write a storage buffer from the debugged stage (no
/// program interface query, no storage blocks for the stage, or the
/// linked debug program has no block of that name; ES 2 contexts): the
/// step itself ran and answered as usual, nothing was bound.
pub const TRACE_UNSUPPORTED: u32 = 2;

/// What a trace buffer held after the replay (ABI 12; appended to the
/// three step replies). Written by the preload.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceReply {
    /// `TRACE_NONE`, `TRACE_OK` or `TRACE_UNSUPPORTED`.
    pub status: u32,
    /// The header words as the shader left them (OK only).
    pub hits: u32,
    pub records: u32,
    /// May exceed the capacity (a shader that wrote past it): `data` holds
    /// at most `capacity_words` words.
    pub words: u32,
    pub full: u32,
    /// The storage binding the buffer was bound at for the replay (the
    /// app's binding there was put back after it).
    pub binding: u32,
    /// `min(words, capacity_words)` words of `data`, in the bulk data area
    /// after the step's other data.
    pub data: BulkRef,
}

/// Reply of `CMD_QUERY_PROGRAM` (preload → daemon, at `BULK_REPLY`).
///
/// `text` holds one record per line, tab-separated:
/// `api\tes` (a GL ES context), `program\tID`, `shader\tID\tGL_TYPE` (attached shaders),
/// `attribute\tNAME\tGL_TYPE\tSIZE\tLOCATION`,
/// `uniform\tNAME\tGL_TYPE\tSIZE\tLOCATION\tVALUE` (VALUE as GLSL writes it; ABI 3),
/// `output\tNAME\tLOCATION` (fragment outputs, where queryable),
/// `source\tSHADER_ID\tBYTE_LEN` followed by that many bytes and a newline
/// (the driver's copy of each attached shader's source, a fallback for
/// sources the daemon did not record).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct ProgramReply {
    pub program: u32,
    pub _pad: u32,
    pub text: BulkRef,
}

/// `StateQuery::kind`: `glGetIntegerv`.
pub const QUERY_INT: u32 = 0;
/// `StateQuery::kind`: `glGetFloatv`.
pub const QUERY_FLOAT: u32 = 1;
/// `StateQuery::kind`: `glIsEnabled`.
pub const QUERY_ENABLED: u32 = 2;
/// `StateQuery::kind` (ABI 14): `glGetIntegerv` of a texture binding
/// (`name`) of texture unit `arg` (the active unit put back).
pub const QUERY_UNIT_INT: u32 = 3;
/// `StateQuery::kind` (ABI 14): `glGetTextureLevelParameteriv(arg, 0,
/// name)` (GL 4.5 or `ARB_direct_state_access`; else a GL error).
pub const QUERY_TEXTURE_LEVEL_INT: u32 = 4;
/// Most values one state query returns.
pub const MAX_STATE_VALUES: usize = 16;

/// One GL state value to read (daemon → preload).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct StateQuery {
    /// The GL enum (`GL_VIEWPORT`, ...).
    pub name: u32,
    /// `QUERY_*`.
    pub kind: u32,
    /// Values the query writes (at most [`MAX_STATE_VALUES`]); the preload
    /// gives the driver a buffer of `MAX_STATE_VALUES` either way.
    pub count: u32,
    /// (ABI 14; padding before) the unit or texture of `QUERY_UNIT_INT`
    /// and `QUERY_TEXTURE_LEVEL_INT`.
    pub arg: u32,
}

/// Request of `CMD_QUERY_STATE` (at `BULK_REQUEST`; the queries follow it).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct StateRequest {
    pub count: u32,
    pub _pad: u32,
}

/// Reply of one [`StateQuery`] (an array of them at `BULK_REPLY`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct StateValue {
    /// The GL error the query raised (0: none; then `values` is valid).
    pub error: u32,
    pub count: u32,
    pub values: [f64; MAX_STATE_VALUES],
}

// Compile-time layout checks: both sides are built from this file, but a
// stale preload must still be caught by `header_size`.
const _: () = {
    assert!(core::mem::size_of::<Slot>().is_multiple_of(64));
    assert!(core::mem::size_of::<Header>() <= BULK_OFFSET);
    assert!(crate::api::FUNCTIONS.len() <= MAX_FUNCTIONS);
    assert!(core::mem::align_of::<Header>() == 64);
    // ABI 9 appended whole 8-byte words: no implicit padding moved.
    assert!(core::mem::size_of::<ReadbackRequest>() == 32);
    assert!(core::mem::size_of::<ReadbackReply>() == 80);
    assert!(core::mem::offset_of!(FragmentStepRequest, readback) % 8 == 0);
    assert!(core::mem::offset_of!(VertexStepRequest, readback) % 8 == 0);
    assert!(core::mem::offset_of!(ComputeStepRequest, readback) % 8 == 0);
    assert!(core::mem::size_of::<FragmentStepReply>() % 8 == 0);
    assert!(core::mem::size_of::<VertexStepReply>() % 8 == 0);
    assert!(core::mem::size_of::<ComputeStepReply>() % 8 == 0);
    // ABI 12 appended whole 8-byte words too.
    assert!(core::mem::size_of::<TraceRequest>() == 16);
    assert!(core::mem::size_of::<TraceReply>() == 32);
    assert!(core::mem::offset_of!(FragmentStepRequest, trace) % 8 == 0);
    assert!(core::mem::offset_of!(VertexStepRequest, trace) % 8 == 0);
    assert!(core::mem::offset_of!(ComputeStepRequest, trace) % 8 == 0);
    assert!(core::mem::offset_of!(FragmentStepReply, trace) % 8 == 0);
    assert!(core::mem::offset_of!(VertexStepReply, trace) % 8 == 0);
    assert!(core::mem::offset_of!(ComputeStepReply, trace) % 8 == 0);
    // ABI 14.
    assert!(core::mem::offset_of!(PixelHistoryRequest, trace) % 8 == 0);
    assert!(core::mem::offset_of!(PixelHistoryReply, trace) % 4 == 0);
    // ABI 15.
    assert!(core::mem::size_of::<MemcheckRequest>().is_multiple_of(8));
    assert!(core::mem::offset_of!(MemcheckRequest, budget_bytes) % 8 == 0);
    assert!(core::mem::offset_of!(MemcheckReply, shadow_bytes) % 8 == 0);
    assert!(core::mem::size_of::<MemcheckReply>().is_multiple_of(8));
};

#[cfg(test)]
mod tests {
    use super::BulkRef;

    #[test]
    fn a_list_of_refs_reads_back_as_written() {
        let refs = [BulkRef::at(64, 4), BulkRef::at(72, 0), BulkRef::at(80, 9)];
        let bytes = BulkRef::list_bytes(&refs);
        let list = BulkRef::at(1000, bytes.len());
        assert_eq!(list.list_len(), 3);
        for (i, r) in refs.iter().enumerate() {
            let at = list.list_item(i) - 1000;
            let word = |o: usize| u32::from_ne_bytes(bytes[o..o + 4].try_into().unwrap());
            assert_eq!((word(at), word(at + 4)), (r.offset, r.len), "ref {i}");
        }
    }
}
