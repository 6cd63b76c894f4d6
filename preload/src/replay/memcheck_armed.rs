//! memcheck's armed programs (issue 17, its speed): a compute program the
//! daemon checked once at a stop runs checked at its later dispatches
//! without a stop.
//!
//! A stop costs a round trip to the daemon and wake-ups on both sides
//! (about 0.28 ms per dispatch on the H100 machine, where reduce's two
//! dispatches take 36 µs). So after an in-place `CMD_MEMCHECK` that ran,
//! with [`MemcheckRequest::arm`] set, the app program is *armed* for the
//! context: the request's bytes are kept (the checked program itself is
//! in the debug program cache, `program.rs`). At a later dispatch that
//! takes the slow path ([`try_run`], from `stop.rs`), while
//! `Header::memcheck_fast` is 1 and the same program is current, the
//! preload runs `memcheck.rs`'s step itself on a private bulk region
//! (`Bulk::private`): in place, exactly as at a stop. Then:
//! * nothing found: the call is done; `Header::memcheck_fast_calls` counts it;
//! * something found (or the run failed after the call ran): the reply is
//!   kept and the thread stops *after* the call with
//!   `Slot::memcheck_ran` (continuing or skipping returns without running
//!   it again); the daemon takes the reply with `CMD_MEMCHECK_TAKE`
//!   ([`take`]) and records the findings as at any checked call;
//! * the run failed before the call ran: the program is disarmed and the
//!   call stops as before (the daemon checks it there).
//!
//! Any shader or program recording call (`SHADER_RECORD`: a link, a
//! program binary, a new shader source) disarms every program: the next
//! dispatch stops and the daemon builds the checked program of what is
//! current then.

use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use gldbg_proto::shm::{self, BulkRef, MemcheckReply, MemcheckRequest};

use super::bulk::{Bulk, write_reply};
use super::error::Error;
use super::memcheck::{Run, check, step_as};
use super::pipeline::Call;
use crate::gl;
use crate::intercept::errors::{drain_own_errors, hold_app_errors};

/// One armed program: the context and app program it is for, and the
/// request area's bytes the daemon wrote for it.
struct Armed {
    context: u64,
    program: u32,
    request: Vec<u8>,
}

static ARMED: Mutex<Vec<Armed>> = Mutex::new(Vec::new());
/// Whether any program is armed (the slow path's test before a lock).
static ANY: AtomicBool = AtomicBool::new(false);
/// Programs kept armed; the oldest go.
const ARMED_MAX: usize = 16;
/// The private reply area: the reply, its log.
const REPLY_BYTES: usize = 64 << 10;

thread_local! {
    /// This thread's last armed run that stopped: its reply, what the
    /// reply refers to (byte runs to put in the bulk region at their
    /// offsets) and its status; taken by [`take`].
    static PENDING: RefCell<Option<Kept>> = const { RefCell::new(None) };
}

struct Kept {
    reply: MemcheckReply,
    runs: Vec<(usize, Vec<u8>)>,
    status: u32,
}

/// What [`try_run`] did with a dispatch.
pub(crate) enum Outcome {
    /// Nothing armed for it: it stops as any call.
    No,
    /// It ran checked and found nothing: the call is done.
    Ran,
    /// It ran checked and its reply waits for the daemon: stop after it.
    RanFound,
}

/// Arm `req`'s app program for the current context (after its in-place
/// run at a stop ran): `bulk`'s request area holds the request.
pub(crate) fn arm(bulk: &Bulk, req: &MemcheckRequest) {
    let Some(request) = bulk.request_bytes(request_extent(bulk, req)) else {
        return;
    };
    let context = crate::intercept::context::current_context();
    let Ok(mut all) = ARMED.lock() else { return };
    all.retain(|a| !(a.context == context && a.program == req.program));
    if all.len() >= ARMED_MAX {
        all.remove(0);
    }
    all.push(Armed {
        context,
        program: req.program,
        request: request.to_vec(),
    });
    ANY.store(true, Ordering::Release);
}

/// Disarm every program (a shader or program was recorded).
pub(crate) fn disarm_all() {
    if ANY.swap(false, Ordering::AcqRel)
        && let Ok(mut all) = ARMED.lock()
    {
        all.clear();
    }
}

/// At dispatch `id` with `args` on the slow path: run it checked if its
/// program is armed here (module documentation).
pub(crate) fn try_run(id: u32, args: &[u64]) -> Outcome {
    if !ANY.load(Ordering::Acquire) {
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
    if h.step_all.load(Ordering::Acquire) != 0
        || !call.is_dispatch()
        || !super::context::has_context()
    {
        return Outcome::No;
    }
    let context = crate::intercept::context::current_context();
    hold_app_errors();
    let program = gl::get_i(gl::CURRENT_PROGRAM) as u32;
    drain_own_errors();
    let request = {
        let Ok(all) = ARMED.lock() else {
            return Outcome::No;
        };
        let found = all
            .iter()
            .find(|a| a.context == context && a.program == program);
        match found {
            Some(a) => a.request.clone(),
            None => return Outcome::No,
        }
    };
    let req: MemcheckRequest = Bulk::private(&request, 0, 0).read(shm::BULK_REQUEST);
    let mut bulk = Bulk::private(&request, REPLY_BYTES, data_bytes(&req));
    let mut reply = MemcheckReply::default();
    hold_app_errors();
    let result =
        check(call, &req).and_then(|()| step_as(&mut bulk, call, &req, &mut reply, Run::Armed));
    drain_own_errors();
    let ran = reply.ran != 0;
    let failed = result.is_err();
    if failed && !ran {
        disarm(context, program);
        return Outcome::No;
    }
    let status = write_reply(&mut bulk, reply, result);
    if !failed && !found_any(&bulk, &reply) {
        h.memcheck_fast_calls.fetch_add(1, Ordering::Relaxed);
        return Outcome::Ran;
    }
    if failed {
        // Whatever failed after the call ran would fail again: the next
        // dispatch stops.
        disarm(context, program);
    }
    let reply: MemcheckReply = bulk.read(shm::BULK_REPLY);
    let runs = [
        reply.log,
        reply.words,
        reply.caps,
        reply.needed,
        reply.bindings,
    ]
    .into_iter()
    .filter(|r| r.len > 0)
    .map(|r| (r.offset as usize, bulk.bytes(r).to_vec()))
    .collect();
    let kept = Kept {
        reply,
        runs,
        status,
    };
    PENDING.with(|p| *p.borrow_mut() = Some(kept));
    Outcome::RanFound
}

/// `CMD_MEMCHECK_TAKE`: this thread's kept reply into the bulk region;
/// its run's status.
pub(crate) fn take() -> u32 {
    let Some(mut bulk) = Bulk::get() else {
        return shm::STATUS_BULK_UNAVAILABLE;
    };
    let Some(kept) = PENDING.with(|p| p.borrow_mut().take()) else {
        let none = Err(Error::Call(
            "no checked run's findings wait at this stop".into(),
        ));
        return write_reply(&mut bulk, MemcheckReply::default(), none);
    };
    for (at, bytes) in &kept.runs {
        if bulk.put(*at, bytes).len as usize != bytes.len() {
            let e = Error::NoRoom("the memcheck findings do not fit in the shared memory");
            return write_reply(&mut bulk, MemcheckReply::default(), Err(e));
        }
    }
    bulk.write(shm::BULK_REPLY, &kept.reply);
    kept.status
}

fn disarm(context: u64, program: u32) {
    if let Ok(mut all) = ARMED.lock() {
        all.retain(|a| !(a.context == context && a.program == program));
        ANY.store(!all.is_empty(), Ordering::Release);
    }
}

/// The findings block's header words (glsl-instrument's
/// `memcheck::HEADER_WORDS`: the dispatch's sizes); the records follow.
const FINDINGS_HEADER_WORDS: usize = 8;

/// Whether the findings block of a run that ran holds anything: every
/// record word is zero before the call, and a finding claims one.
fn found_any(bulk: &Bulk, reply: &MemcheckReply) -> bool {
    let words = bulk.bytes(reply.words);
    let header = FINDINGS_HEADER_WORDS * 4;
    words.len() < header || words[header..].iter().any(|&b| b != 0)
}

/// The request's bytes from the start of the request area to the end of
/// the last thing it refers to (its shaders, names and lists).
fn request_extent(bulk: &Bulk, req: &MemcheckRequest) -> usize {
    let end = |r: BulkRef| r.offset as usize + r.len as usize;
    let list = |l: BulkRef| {
        let items = bulk.bytes(l).len() / size_of::<BulkRef>();
        (0..items.min(l.list_len()))
            .map(|i| end(bulk.read::<BulkRef>(l.list_item(i))))
            .max()
            .unwrap_or(0)
            .max(end(l))
    };
    let shaders = req.shaders[..(req.shader_count as usize).min(req.shaders.len())]
        .iter()
        .map(|s| end(s.source));
    let names = [
        req.log_block,
        req.shadow_block,
        req.base_uniform,
        req.cap_uniform,
        req.counter_uniform,
    ]
    .map(end);
    shaders
        .chain(names)
        .chain([list(req.tracked), list(req.asked)])
        .max()
        .unwrap_or(0)
        .max(size_of::<MemcheckRequest>())
}

/// The private data area a run needs (`memcheck.rs`'s `write_lists`):
/// the findings block as read back, the same words again with the
/// header, then the lists (a word per tracked array, twice, and per
/// asked block), each run 8-byte aligned.
fn data_bytes(req: &MemcheckRequest) -> usize {
    let lists = (req.tracked.list_len() * 2 + req.asked.list_len()) * 4;
    (req.log_words as usize * 4 * 2 + lists + 4096).next_multiple_of(8)
}
