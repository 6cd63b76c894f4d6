//! Which app programs memcheck has armed (`memcheck_armed.rs` runs
//! them): per context and app program, the bytes of the `CMD_MEMCHECK`
//! request the daemon wrote for it, kept after an in-place run at a stop
//! that ran, with [`MemcheckRequest::arm`] set.
//!
//! Any shader or program recording call (`SHADER_RECORD`: a link, a
//! program binary, a new shader source; `stop.rs` disarms before and after
//! it) disarms every program: the next dispatch stops and the daemon
//! builds the checked program of what is current then. So does any moment
//! armed runs may not run (`Header::memcheck_fast` 0: the app may have
//! linked unseen, detached).

use core::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use gldbg_proto::shm::{BulkRef, MemcheckRequest};

use super::bulk::Bulk;

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

/// Whether any program is armed.
pub(crate) fn any_armed() -> bool {
    ANY.load(Ordering::Acquire)
}

/// The request bytes of the program armed for `context` and `program`.
pub(crate) fn request_for(context: u64, program: u32) -> Option<Vec<u8>> {
    let all = ARMED.lock().ok()?;
    all.iter()
        .find(|a| a.context == context && a.program == program)
        .map(|a| a.request.clone())
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

/// Disarm `program` of `context` (its run failed).
pub(crate) fn disarm(context: u64, program: u32) {
    if let Ok(mut all) = ARMED.lock() {
        all.retain(|a| !(a.context == context && a.program == program));
        ANY.store(!all.is_empty(), Ordering::Release);
    }
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
