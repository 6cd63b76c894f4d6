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
//! block of its own, fenced ([`defer`]); the call is done.
//!
//! [`resolve`] reads the runs whose fences passed: at every slow-path
//! entry of the thread (without waiting at a dispatch; waiting elsewhere:
//! a stop is slow anyway). A run is counted as checked
//! (`Header::memcheck_fast_calls`) once it is read: runs still outstanding
//! when the app ends, with no later slow-path call on their thread, are
//! neither read nor counted. (Making memcheck stop the calls that release
//! a context, to read them there, hung piglit's shader_runner at its
//! exit: left for an issue.) A run that found something (or failed after
//! its call ran) becomes pending, and the thread stops before its next
//! call with `Slot::memcheck_ran`: the daemon takes every pending run with
//! `CMD_MEMCHECK_TAKE` ([`take`]) and records each at the call it ran at,
//! then handles the stop as any other. A run that failed before its call
//! ran disarms the program, and the call stops as before.

use core::cell::RefCell;
use core::sync::atomic::Ordering;

use gldbg_proto::shm::{self, MemcheckReply, MemcheckRequest};

use super::bulk::{Bulk, write_reply};
use super::error::Error;
use super::memcheck::{Lists, MemcheckReplay, Run, check, put_runs, step_as};
use super::memcheck_arm::{any_armed, disarm, disarm_all, request_for};
use super::pipeline::{Call, check_gl};
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

/// The private reply area: the reply, its log.
const REPLY_BYTES: usize = 8 << 10;

thread_local! {
    /// This thread's runs whose findings are on their way back.
    static OUTSTANDING: RefCell<Vec<Outstanding>> = const { RefCell::new(Vec::new()) };
    /// This thread's runs that found something (or failed after their
    /// call ran), for the daemon at the thread's next stop ([`take`]).
    static PENDING: RefCell<Vec<Kept>> = const { RefCell::new(Vec::new()) };
    /// Findings blocks read and free for the next runs.
    static FREE: RefCell<Vec<FindingsBuffer>> = const { RefCell::new(Vec::new()) };
}

/// An armed run whose findings block `buffer` is read after `fence`; its
/// reply so far and lists.
struct Outstanding {
    fence: gl::Sync,
    buffer: FindingsBuffer,
    reply: MemcheckReply,
    lists: Lists,
}

/// A findings block of ours: one per armed run until it is read, then
/// kept for the next runs of its context ([`FREE`]).
#[derive(Clone, Copy)]
struct FindingsBuffer {
    context: u64,
    buffer: u32,
    bytes: usize,
}

/// A run's reply for the daemon, what it refers to (byte runs to put in
/// the bulk region at their offsets) and its status.
struct Kept {
    reply: MemcheckReply,
    runs: Vec<(usize, Vec<u8>)>,
    status: u32,
}

/// Outstanding runs kept unread at most: past them a dispatch waits for
/// the oldest.
const OUTSTANDING_MAX: usize = 64;
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
    let Some(findings) = findings_buffer(context, req.log_words as usize * 4) else {
        drain_own_errors();
        return Outcome::No;
    };
    let run = Run::Armed {
        findings: (findings.buffer, findings.bytes),
        defer,
    };
    let result = check(call, &req).and_then(|()| step_as(&mut bulk, call, &req, &mut reply, run));
    if result.is_err() {
        give_back(findings);
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
        }
    }
    Outcome::Ran
}

/// The end of an armed run (`memcheck.rs`, its call done, its findings
/// block `findings`): a fence after it, the run outstanding until
/// [`resolve`] reads the block.
fn defer(
    r: &mut MemcheckReplay<'_>,
    lists: Lists,
    (buffer, bytes): (u32, usize),
) -> Result<(), Error> {
    let buffer = FindingsBuffer {
        context: crate::intercept::context::current_context(),
        buffer,
        bytes,
    };
    let fence = gl::fence();
    if let Err(e) = check_gl("fencing the memcheck findings") {
        if fence != 0 {
            gl::delete_sync(fence);
        }
        return Err(e);
    }
    let mut reply = *r.reply;
    reply.call_number = crate::thread_calls::count();
    reply.function = r.call.id;
    let run = Outstanding {
        fence,
        buffer,
        reply,
        lists,
    };
    OUTSTANDING.with(|o| o.borrow_mut().push(run));
    let oldest_waits = OUTSTANDING.with(|o| o.borrow().len() > OUTSTANDING_MAX);
    if oldest_waits {
        resolve(true);
    }
    Ok(())
}

/// Read this thread's outstanding runs of the current context whose
/// fences passed (waiting for them where `wait`): those that found
/// something join the pending ones. Whether any run is pending.
pub(crate) fn resolve(wait: bool) -> bool {
    let outstanding = OUTSTANDING
        .try_with(|o| !o.borrow().is_empty())
        .unwrap_or(false);
    if outstanding && super::context::has_context() {
        let context = crate::intercept::context::current_context();
        hold_app_errors();
        let timeout = if wait { WAIT_NS } else { 0 };
        let done: Vec<Outstanding> = OUTSTANDING
            .try_with(|o| {
                let mut o = o.borrow_mut();
                let mut done = Vec::new();
                let mut i = 0;
                while i < o.len() {
                    if o[i].buffer.context == context && gl::wait_sync(o[i].fence, timeout) {
                        done.push(o.remove(i));
                    } else {
                        i += 1;
                    }
                }
                done
            })
            .unwrap_or_default();
        let kept: Vec<Kept> = done.into_iter().filter_map(read_run).collect();
        drain_own_errors();
        let _ = PENDING.try_with(|p| p.borrow_mut().extend(kept));
    }
    PENDING
        .try_with(|p| !p.borrow().is_empty())
        .unwrap_or(false)
}

/// A run whose fence passed: its findings block read, our objects gone;
/// the run for the daemon if it found something.
fn read_run(run: Outstanding) -> Option<Kept> {
    let h = crate::session::header();
    h.memcheck_fast_calls.fetch_add(1, Ordering::Relaxed);
    let mut words = vec![0u8; run.buffer.bytes];
    let read = gl::get_i(gl::COPY_READ_BUFFER) as u32;
    gl::bind_buffer(gl::COPY_READ_BUFFER, run.buffer.buffer);
    gl::get_buffer_bytes(gl::COPY_READ_BUFFER, &mut words, super::context::is_es());
    gl::bind_buffer(gl::COPY_READ_BUFFER, read);
    gl::delete_sync(run.fence);
    give_back(run.buffer);
    let header = FINDINGS_HEADER_WORDS * 4;
    if words.len() >= header && words[header..].iter().all(|&b| b == 0) {
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

/// A findings block of `bytes` for a run in `context`: a free one of the
/// context's that is still ours, or a new one (bound at
/// `GL_COPY_WRITE_BUFFER` to make it; that binding put back).
fn findings_buffer(context: u64, bytes: usize) -> Option<FindingsBuffer> {
    let reuse = FREE
        .try_with(|f| {
            let mut f = f.borrow_mut();
            let i = f
                .iter()
                .position(|b| b.context == context && b.bytes == bytes)?;
            Some(f.remove(i))
        })
        .ok()
        .flatten();
    let write = gl::get_i(gl::COPY_WRITE_BUFFER) as u32;
    let found = match reuse {
        Some(b) if still_ours(&b) => Some(b),
        _ => {
            let buffer = gl::gen_buffer();
            gl::bind_buffer(gl::COPY_WRITE_BUFFER, buffer);
            gl::buffer_data_uninit(gl::COPY_WRITE_BUFFER, bytes as i64, gl::DYNAMIC_READ);
            Some(FindingsBuffer {
                context,
                buffer,
                bytes,
            })
        }
    };
    gl::bind_buffer(gl::COPY_WRITE_BUFFER, write);
    (drain_own_errors() == 0).then_some(found).flatten()
}

/// Whether `b`'s name is still our buffer of its size (the app may delete
/// names it never made; bound at `GL_COPY_WRITE_BUFFER` to look).
fn still_ours(b: &FindingsBuffer) -> bool {
    gl::is_buffer(b.buffer) && {
        gl::bind_buffer(gl::COPY_WRITE_BUFFER, b.buffer);
        gl::buffer_size(gl::COPY_WRITE_BUFFER) == b.bytes as i64
    }
}

/// A findings block read (or unused): kept for the context's next runs
/// (armed runs are never made in a compatibility context, `try_run`).
fn give_back(b: FindingsBuffer) {
    let _ = FREE.try_with(|f| {
        let mut f = f.borrow_mut();
        if f.len() >= FREE_MAX {
            gl::delete_buffer(f.remove(0).buffer);
        }
        f.push(b);
    });
}

/// Findings blocks kept free per thread.
const FREE_MAX: usize = 16;

/// The findings block's header words (glsl-instrument's
/// `memcheck::HEADER_WORDS`: the dispatch's sizes); the records follow.
const FINDINGS_HEADER_WORDS: usize = 8;
