//! memcheck's armed programs (issue 17, its speed): a compute program the
//! daemon checked once at a stop runs checked at its later dispatches
//! without a stop, and nothing waits for its findings.
//!
//! A stop costs a round trip to the daemon and wake-ups on both sides
//! (about 0.28 ms per dispatch on the H100 machine, where reduce's two
//! dispatches take 36 µs), and reading a run's findings back at once makes
//! the CPU wait for the GPU. So after an in-place `CMD_MEMCHECK` that ran,
//! with [`MemcheckRequest::arm`] set, the app program is *armed* for the
//! context (`memcheck_arm.rs` keeps the request's bytes; the checked
//! program itself is in the debug program cache, `program.rs`). At a
//! later dispatch that takes the slow path ([`try_run`], from `stop.rs`),
//! while
//! `Header::memcheck_fast` is 1 and the same program is current, the
//! preload runs `memcheck.rs`'s step itself on a private bulk region
//! (`Bulk::private`): in place, exactly as at a stop, but into a findings
//! block of its own (`memcheck_findings.rs`); the call is done.
//!
//! Runs are fenced in batches ([`defer`]): a fence flushes the app's
//! commands (about 20 µs on NVIDIA's driver, with the GPU left idle
//! while the next dispatch is prepared), so one fence follows every
//! [`FENCE_EVERY`] runs of a context, and one is made for the runs still
//! unfenced where the thread waits for them. [`resolve`] reads the
//! batches whose fences passed: at every slow-path entry of the thread
//! (without waiting or flushing at a dispatch: the app's own flushes move
//! them on; waiting elsewhere, a stop is slow anyway). While runs wait to
//! be read ([`runs_waiting`]), the calls where the app waits for the GPU
//! (`glFinish`, read-backs, buffer maps: `class::GPU_SYNC`) take the slow
//! path too and read them, without a stop unless they found something:
//! an app reads its results before it ends. A run is counted as checked
//! (`Header::memcheck_fast_calls`) once it is read: runs still outstanding
//! when the app ends, with no later such call on their thread, are
//! neither read nor counted. (Making memcheck stop the calls that release
//! a context, to read them there, hung piglit's shader_runner at its
//! exit.) A run that found something (or failed after its call ran)
//! becomes pending, and the thread stops before its next slow-path
//! call with `Slot::memcheck_ran`: the daemon takes every pending run with
//! `CMD_MEMCHECK_TAKE` ([`take`]) and records each at the call it ran at,
//! then handles the stop as any other. A run that failed before its call
//! ran disarms the program, and the call stops as before.

use core::cell::RefCell;
use core::sync::atomic::{AtomicUsize, Ordering};

use gldbg_proto::shm::{self, MemcheckReply, MemcheckRequest};

use super::bulk::{Bulk, write_reply};
use super::error::Error;
use super::memcheck::{Lists, MemcheckReplay, Run, check, put_runs, step_as};
use super::memcheck_arm::{any_armed, disarm, disarm_all, request_for};
use super::memcheck_findings::{self as findings, Block};
use super::pipeline::{Call, check_gl};
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

/// The private reply area: the reply, its log.
const REPLY_BYTES: usize = 8 << 10;

thread_local! {
    /// This thread's runs whose findings are on their way back, in
    /// batches in the order they ran.
    static OUTSTANDING: RefCell<Vec<Batch>> = const { RefCell::new(Vec::new()) };
    /// This thread's runs that found something (or failed after their
    /// call ran), for the daemon at the thread's next stop ([`take`]).
    static PENDING: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
}

/// This process's armed runs outstanding or pending (all threads; a
/// thread that ends with some leaves them counted).
static WAITING: AtomicUsize = AtomicUsize::new(0);

/// Whether armed runs of any thread wait to be read or taken: the calls
/// that wait for the GPU then take the slow path (`stop::hit_or_reads`).
#[inline(always)]
pub(crate) fn runs_waiting() -> bool {
    WAITING.load(Ordering::Relaxed) != 0
}

/// Armed runs of one context read after one fence (none yet: the batch
/// still takes runs).
struct Batch {
    context: u64,
    fence: Option<gl::Sync>,
    runs: Vec<Outstanding>,
}

/// An armed run whose findings block is read once its batch's fence
/// passed; its reply so far and lists.
struct Outstanding {
    block: Block,
    reply: MemcheckReply,
    lists: Lists,
}

/// A run's reply for the daemon, what it refers to (byte runs to put in
/// the bulk region at their offsets) and its status.
struct Kept {
    reply: MemcheckReply,
    runs: Vec<(usize, Vec<u8>)>,
    status: u32,
}

/// Outstanding runs kept unread at most: past them a dispatch waits for
/// them.
const OUTSTANDING_MAX: usize = 64;
/// Runs of a context fenced together.
const FENCE_EVERY: usize = 8;
/// How long a waiting read waits for a run's fence (a run that takes
/// longer is read at a later stop).
const WAIT_NS: u64 = 10_000_000_000;

/// What [`try_run`] did with a dispatch.
pub(crate) enum Outcome {
    /// Nothing armed for it: it stops as any call.
    No,
    /// It ran checked: the call is done.
    Ran,
}

/// At dispatch `id` with `args` on the slow path: run it checked if its
/// program is armed here (module documentation).
pub(crate) fn try_run(id: u32, args: &[u64]) -> Outcome {
    if !any_armed() {
        return Outcome::No;
    }
    let call = Call { id, args };
    let h = crate::session::header();
    if h.memcheck_fast.load(Ordering::Acquire) == 0 {
        // While armed runs wait, programs may be linked unseen (detached):
        // the daemon checks each one at a stop again.
        disarm_all();
        return Outcome::No;
    }
    // In a compatibility context the app may bind names it never made:
    // one of our findings blocks, alive until read, could become its.
    if h.step_all.load(Ordering::Acquire) != 0
        || !call.is_dispatch()
        || !super::context::has_context()
        || super::context::compatibility_context()
    {
        return Outcome::No;
    }
    let context = crate::intercept::context::current_context();
    hold_app_errors();
    let program = gl::get_i(gl::CURRENT_PROGRAM) as u32;
    drain_own_errors();
    let Some(request) = request_for(context, program) else {
        return Outcome::No;
    };
    let req: MemcheckRequest = Bulk::private(&request, 0, 0).read(shm::BULK_REQUEST);
    let mut bulk = Bulk::private(&request, REPLY_BYTES, 0);
    let mut reply = MemcheckReply::default();
    hold_app_errors();
    let Some(block) = findings::take(context, req.log_words as usize * 4) else {
        return Outcome::No;
    };
    let run = Run::Armed {
        findings: block,
        defer,
    };
    let result = check(call, &req).and_then(|()| step_as(&mut bulk, call, &req, &mut reply, run));
    if result.is_err() {
        // The dispatch may be running: the block is not reused.
        gl::delete_buffer(block.buffer);
    }
    drain_own_errors();
    let ran = reply.ran != 0;
    match result {
        Ok(()) => {}
        Err(_) if !ran => {
            disarm(context, program);
            return Outcome::No;
        }
        Err(e) => {
            // Whatever failed after the call ran would fail again: the
            // next dispatch stops. The daemon hears why at the next stop.
            disarm(context, program);
            reply.call_number = crate::thread_calls::count();
            reply.function = id;
            reply.cache_key = req.cache_key;
            let status = write_reply(&mut bulk, reply, Err(e));
            let reply: MemcheckReply = bulk.read(shm::BULK_REPLY);
            let runs = (reply.log.len > 0)
                .then(|| (reply.log.offset as usize, bulk.bytes(reply.log).to_vec()))
                .into_iter()
                .collect();
            let kept = Kept {
                reply,
                runs,
                status,
            };
            PENDING.with(|p| p.borrow_mut().push(kept));
            WAITING.fetch_add(1, Ordering::Relaxed);
        }
    }
    Outcome::Ran
}

/// The end of an armed run (`memcheck.rs`, its call done, its findings
/// block `block`): outstanding in its context's open batch until
/// [`resolve`] reads it; the batch fenced once it has [`FENCE_EVERY`] runs.
fn defer(r: &mut MemcheckReplay<'_>, lists: Lists, block: Block) -> Result<(), Error> {
    let mut reply = *r.reply;
    reply.call_number = crate::thread_calls::count();
    reply.function = r.call.id;
    let run = Outstanding {
        block,
        reply,
        lists,
    };
    let (open, total) = OUTSTANDING.with(|o| {
        let mut o = o.borrow_mut();
        let open = match o
            .iter()
            .rposition(|b| b.context == block.context && b.fence.is_none())
        {
            Some(i) => i,
            None => {
                o.push(Batch {
                    context: block.context,
                    fence: None,
                    runs: Vec::new(),
                });
                o.len() - 1
            }
        };
        o[open].runs.push(run);
        WAITING.fetch_add(1, Ordering::Relaxed);
        (
            o[open].runs.len(),
            o.iter().map(|b| b.runs.len()).sum::<usize>(),
        )
    });
    if open >= FENCE_EVERY {
        fence_open(block.context)?;
    }
    if total > OUTSTANDING_MAX {
        resolve(true);
    }
    Ok(())
}

/// Fence `context`'s open batch of this thread, if any.
fn fence_open(context: u64) -> Result<(), Error> {
    let open = OUTSTANDING
        .try_with(|o| {
            o.borrow()
                .iter()
                .any(|b| b.context == context && b.fence.is_none())
        })
        .unwrap_or(false);
    if !open {
        return Ok(());
    }
    let fence = gl::fence();
    if let Err(e) = check_gl("fencing the memcheck findings") {
        if fence != 0 {
            gl::delete_sync(fence);
        }
        return Err(e);
    }
    let _ = OUTSTANDING.try_with(|o| {
        if let Some(b) = o
            .borrow_mut()
            .iter_mut()
            .find(|b| b.context == context && b.fence.is_none())
        {
            b.fence = Some(fence);
        }
    });
    Ok(())
}

/// Read this thread's outstanding runs of the current context whose
/// fences passed (where `wait`, the runs not fenced yet fenced, and
/// waited for): those that found something join the pending ones.
/// Whether any run is pending.
pub(crate) fn resolve(wait: bool) -> bool {
    let outstanding = OUTSTANDING
        .try_with(|o| !o.borrow().is_empty())
        .unwrap_or(false);
    if outstanding && super::context::has_context() {
        let context = crate::intercept::context::current_context();
        hold_app_errors();
        // A batch that cannot be fenced is read at a later stop.
        let _ = if wait { fence_open(context) } else { Ok(()) };
        let timeout = if wait { WAIT_NS } else { 0 };
        let done: Vec<Batch> = OUTSTANDING
            .try_with(|o| {
                let mut o = o.borrow_mut();
                let mut done = Vec::new();
                let mut i = 0;
                while i < o.len() {
                    let passed = o[i].context == context
                        && o[i].fence.is_some_and(|f| gl::wait_sync(f, timeout, wait));
                    match passed {
                        true => done.push(o.remove(i)),
                        false => i += 1,
                    }
                }
                done
            })
            .unwrap_or_default();
        let mut kept = Vec::new();
        for batch in done {
            if let Some(fence) = batch.fence {
                gl::delete_sync(fence);
            }
            WAITING.fetch_sub(batch.runs.len(), Ordering::Relaxed);
            kept.extend(batch.runs.into_iter().filter_map(read_run));
        }
        WAITING.fetch_add(kept.len(), Ordering::Relaxed);
        drain_own_errors();
        let _ = PENDING.try_with(|p| p.borrow_mut().extend(kept));
    }
    PENDING
        .try_with(|p| !p.borrow().is_empty())
        .unwrap_or(false)
}

/// A run whose fence passed: its findings block read and given back; the
/// run for the daemon if it found something. A block no longer ours says
/// nothing: the run is not counted as checked.
fn read_run(run: Outstanding) -> Option<Kept> {
    let words = findings::read(&run.block)?;
    let h = crate::session::header();
    h.memcheck_fast_calls.fetch_add(1, Ordering::Relaxed);
    findings::give_back(run.block);
    if !findings::holds_findings(&words) {
        return None;
    }
    let mut reply = run.reply;
    let need = words.len() + run.lists.caps.len() + run.lists.needed.len();
    let mut bulk = Bulk::private(&[], 0, need + run.lists.bindings.len() + 64);
    let status = match put_runs(&mut bulk, &mut reply, shm::BULK_DATA, &words, &run.lists) {
        Ok(()) => shm::STATUS_OK,
        Err(e) => return Some(failed(reply, e)),
    };
    let runs = [reply.words, reply.caps, reply.needed, reply.bindings]
        .into_iter()
        .map(|r| (r.offset as usize, bulk.bytes(r).to_vec()))
        .collect();
    Some(Kept {
        reply,
        runs,
        status,
    })
}

/// A run that found something but cannot be handed over: why, for the daemon.
fn failed(reply: MemcheckReply, e: Error) -> Kept {
    let mut bulk = Bulk::private(&[], REPLY_BYTES, 0);
    let status = write_reply(&mut bulk, reply, Err(e));
    let reply: MemcheckReply = bulk.read(shm::BULK_REPLY);
    let runs = vec![(reply.log.offset as usize, bulk.bytes(reply.log).to_vec())];
    Kept {
        reply,
        runs,
        status,
    }
}

/// `CMD_MEMCHECK_TAKE`: this thread's oldest pending run into the bulk
/// region (its status); with none left, an empty reply (cache key 0).
pub(crate) fn take() -> u32 {
    let Some(mut bulk) = Bulk::get() else {
        return shm::STATUS_BULK_UNAVAILABLE;
    };
    let kept = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        (!p.is_empty()).then(|| p.remove(0))
    });
    let Some(kept) = kept else {
        bulk.write(shm::BULK_REPLY, &MemcheckReply::default());
        return shm::STATUS_OK;
    };
    WAITING.fetch_sub(1, Ordering::Relaxed);
    for (at, bytes) in &kept.runs {
        if bulk.put(*at, bytes).len as usize != bytes.len() {
            let e = Error::NoRoom("the memcheck findings do not fit in the shared memory");
            let mut reply = kept.reply;
            (reply.words, reply.caps, reply.needed, reply.bindings) = Default::default();
            return write_reply(&mut bulk, reply, Err(e));
        }
    }
    bulk.write(shm::BULK_REPLY, &kept.reply);
    kept.status
}
