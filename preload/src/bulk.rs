//! The bulk region of the shared memory, mapped on demand.
//!
//! The daemon's memfd has a 512 MiB bulk region (sparse). Mapped whole at
//! attach, it would count 512 MiB against the app's address-space limit:
//! an app that sets `RLIMIT_AS` (piglit's `rlimit` test: 256 MiB) would
//! then fail to allocate. So only the header is mapped at attach
//! (`session.rs`, which hands the memfd over here) and the bulk region is
//! mapped when a command first needs it, as a window over its first bytes;
//! a command that needs more maps a larger window (the next power of two).
//! A window replaced by a larger one stays mapped: references into it stay
//! valid and both show the same shared pages. When a window cannot be
//! mapped, stderr says so, naming the address-space limit, and the command
//! fails; the app goes on.

use core::sync::atomic::{
    AtomicI32, AtomicPtr, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use gldbg_proto::shm;
use std::sync::Mutex;

/// The memfd (-1: none).
static FD: AtomicI32 = AtomicI32::new(-1);
/// The current window (null: none yet); windows are never freed.
static WINDOW: AtomicPtr<Window> = AtomicPtr::new(core::ptr::null_mut());
/// Serializes growth.
static GROW: Mutex<()> = Mutex::new(());

/// One mapped window over the start of the bulk region.
struct Window {
    base: *mut u8,
    len: usize,
    /// Bytes already populated.
    populated: AtomicUsize,
}

/// The first window: the request and reply areas and a small image.
const FIRST: usize = 16 << 20;

/// Keep the session's memfd, to map bulk windows from later.
pub fn keep_fd(fd: i32) {
    FD.store(fd, Release);
}

fn current() -> Option<&'static Window> {
    // SAFETY: WINDOW is null or a leaked, never-freed Window.
    unsafe { WINDOW.load(Acquire).as_ref() }
}

/// A window over at least the first `min_len` bytes of the bulk region:
/// (start, length); `None` when `min_len` is beyond the region or the
/// window cannot be mapped.
pub fn window(min_len: usize) -> Option<(*mut u8, usize)> {
    if min_len > shm::BULK_SIZE {
        return None;
    }
    if let Some(w) = current().filter(|w| w.len >= min_len) {
        return Some((w.base, w.len));
    }
    let _grow = GROW.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(w) = current().filter(|w| w.len >= min_len) {
        return Some((w.base, w.len));
    }
    let len = min_len
        .max(FIRST)
        .checked_next_power_of_two()
        .unwrap_or(shm::BULK_SIZE)
        .min(shm::BULK_SIZE);
    let base = map(len)?;
    let w = Box::leak(Box::new(Window {
        base,
        len,
        populated: AtomicUsize::new(0),
    }));
    WINDOW.store(w, Release);
    Some((base, len))
}

fn map(len: usize) -> Option<*mut u8> {
    let fd = FD.load(Acquire);
    if fd < 0 {
        return None;
    }
    // SAFETY: the session's memfd, kept open for this.
    let bfd = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
    // SAFETY: a fresh shared mapping chosen by the kernel, over the bulk
    // region of the memfd (BULK_OFFSET is page-aligned).
    let r = unsafe {
        rustix::mm::mmap(
            core::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::SHARED,
            bfd,
            shm::BULK_OFFSET as u64,
        )
    };
    match r {
        Ok(p) => Some(p.cast()),
        Err(e) => {
            crate::log(format_args!(
                "cannot map {} MiB of the debugger's shared memory for this command: {e}{}",
                len >> 20,
                address_space_limit()
            ));
            None
        }
    }
}

/// ` (the app limits its address space ...)` when `RLIMIT_AS` is set, else "".
pub fn address_space_limit() -> String {
    let mut rl = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes one struct we own.
    let ok = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut rl) } == 0;
    if ok && rl.rlim_cur != libc::RLIM_INFINITY {
        format!(
            " (the app limits its address space, RLIMIT_AS, to {} MiB)",
            rl.rlim_cur >> 20
        )
    } else {
        String::new()
    }
}

/// Fault in the current window up to byte `end` before it is written, in
/// one call (`MADV_POPULATE_WRITE`, Linux 5.14) rather than a page fault
/// per 4 KiB: the first 1080p RGBA32F readback into fresh pages costs
/// ~20 ms of faults. Pages stay populated, so each range is done once per
/// window.
pub fn populate(end: usize) {
    let Some(w) = current() else { return };
    let end = end.min(w.len).next_multiple_of(4096).min(w.len);
    let done = w.populated.load(Acquire);
    if end <= done {
        return;
    }
    // SAFETY: [done, end) lies inside the current window (page-aligned:
    // both ends are); populating changes no contents. An old kernel's
    // EINVAL leaves the pages to fault as before.
    let _ = unsafe {
        rustix::mm::madvise(
            w.base.add(done).cast(),
            end - done,
            rustix::mm::Advice::LinuxPopulateWrite,
        )
    };
    w.populated.fetch_max(end, Relaxed);
}
