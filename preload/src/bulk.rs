//! The bulk region of the shared memory, mapped on demand.
//!
//! The daemon's memfd has a 512 MiB bulk region (sparse). Mapped whole at
//! attach, it would count 512 MiB against the app's address-space limit:
//! an app that sets `RLIMIT_AS` (piglit's `rlimit` test: 256 MiB) would
//! then fail to allocate. So only the header is mapped at attach
//! (`session.rs`, which hands the memfd over here) and each of the bulk
//! region's three areas (request, reply, data: [`AREAS`]) is mapped when a
//! command first touches it, as a window over the area's first bytes (64
//! KiB at least, then the next power of two of what an access needs). An
//! access must lie inside one area. A window replaced by a larger one stays
//! mapped: references into it stay valid and both show the same shared
//! pages. Every user of a window holds a [`Lease`] (a read lock);
//! [`release`] unmaps all windows when no lease is held (`CMD_RELEASE`, at
//! the end of shader debugging), so the app gets its address space back.
//! When a window cannot be mapped, stderr says so, naming the address-space
//! limit, and the command fails; the app goes on.

use core::sync::atomic::{
    AtomicI32, AtomicPtr, AtomicUsize,
    Ordering::{Acquire, Relaxed, Release},
};
use gldbg_proto::shm;
use std::sync::{Mutex, RwLock, RwLockReadGuard};

/// The areas of the bulk region, [start, end) in bytes from its start:
/// each has its own windows.
const AREAS: [(usize, usize); 3] = [
    (shm::BULK_REQUEST, shm::BULK_REPLY),
    (shm::BULK_REPLY, shm::BULK_DATA),
    (shm::BULK_DATA, shm::BULK_SIZE),
];
/// The smallest window.
const SMALLEST: usize = 64 << 10;

/// The memfd (-1: none).
static FD: AtomicI32 = AtomicI32::new(-1);
/// Each area's current window (null: none mapped); windows are freed only
/// by [`release`], while no [`Lease`] is held.
static WINDOWS: [AtomicPtr<Window>; AREAS.len()] =
    [const { AtomicPtr::new(core::ptr::null_mut()) }; AREAS.len()];
/// Every window mapped since the last [`release`].
static MAPPED: Mutex<Vec<usize>> = Mutex::new(Vec::new());
/// Serializes growth.
static GROW: Mutex<()> = Mutex::new(());
/// Held for reading by each [`Lease`], for writing by [`release`].
static IN_USE: RwLock<()> = RwLock::new(());

/// The right to use windows: while one is alive, no window is unmapped.
pub struct Lease(#[allow(dead_code)] RwLockReadGuard<'static, ()>);

/// Take a lease (several threads may hold one at once).
pub fn lease() -> Lease {
    Lease(IN_USE.read().unwrap_or_else(|e| e.into_inner()))
}

/// Unmap every window, unless a command holds a [`Lease`] (then nothing
/// changes): the next command maps fresh ones. Returns whether they went.
pub fn release() -> bool {
    let Ok(_all) = IN_USE.try_write() else {
        return false;
    };
    let _grow = GROW.lock().unwrap_or_else(|e| e.into_inner());
    for w in &WINDOWS {
        w.store(core::ptr::null_mut(), Release);
    }
    let windows = std::mem::take(&mut *MAPPED.lock().unwrap_or_else(|e| e.into_inner()));
    for w in windows {
        // SAFETY: a Window leaked by `window` and listed once in MAPPED; no
        // lease is held (write lock), so nothing refers to it or its pages.
        let w = unsafe { Box::from_raw(w as *mut Window) };
        // SAFETY: the mapping made by `map` for this window, unused (above).
        let _ = unsafe { rustix::mm::munmap(w.base.cast(), w.len) };
    }
    true
}

/// One mapped window over the start of an area.
struct Window {
    /// The area's first byte.
    base: *mut u8,
    len: usize,
    /// Bytes already populated.
    populated: AtomicUsize,
}

/// Keep the session's memfd, to map bulk windows from later.
pub fn keep_fd(fd: i32) {
    FD.store(fd, Release);
}

/// The area holding [off, off + len), with that range relative to its
/// start; `None` when the range crosses an area's end.
fn area(off: usize, len: usize) -> Option<(usize, usize, usize)> {
    let end = off.checked_add(len)?;
    let i = AREAS.iter().position(|&(s, e)| off >= s && off < e)?;
    let (start, area_end) = AREAS[i];
    (end <= area_end).then_some((i, off - start, end - start))
}

fn current(area: usize) -> Option<&'static Window> {
    // SAFETY: null or a leaked Window, freed only by `release` while no
    // lease is held (callers hold one).
    unsafe { WINDOWS[area].load(Acquire).as_ref() }
}

/// A pointer to byte `off` of the bulk region, valid for `len` bytes while
/// `_lease` lives; `None` when the range is outside the region, crosses
/// an area's end, or its window cannot be mapped.
pub fn window(_lease: &Lease, off: usize, len: usize) -> Option<*mut u8> {
    let (i, rel, rel_end) = area(off, len)?;
    let at = |w: &Window| (rel_end <= w.len).then(|| w.base.wrapping_add(rel));
    if let Some(p) = current(i).and_then(at) {
        return Some(p);
    }
    let _grow = GROW.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(p) = current(i).and_then(at) {
        return Some(p);
    }
    let (start, area_end) = AREAS[i];
    let len = rel_end
        .max(SMALLEST)
        .checked_next_power_of_two()
        .unwrap_or(usize::MAX)
        .min(area_end - start);
    let base = map(start, len)?;
    let w = Box::leak(Box::new(Window {
        base,
        len,
        populated: AtomicUsize::new(0),
    }));
    MAPPED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(w as *mut Window as usize);
    WINDOWS[i].store(w, Release);
    at(w)
}

/// Map `len` bytes of the bulk region from its byte `start`.
fn map(start: usize, len: usize) -> Option<*mut u8> {
    let fd = FD.load(Acquire);
    if fd < 0 {
        return None;
    }
    // SAFETY: the session's memfd, kept open for this.
    let bfd = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
    // SAFETY: a fresh shared mapping chosen by the kernel, over the bulk
    // region of the memfd (BULK_OFFSET and the area starts are page-aligned).
    let r = unsafe {
        rustix::mm::mmap(
            core::ptr::null_mut(),
            len,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::SHARED,
            bfd,
            (shm::BULK_OFFSET + start) as u64,
        )
    };
    match r {
        Ok(p) => Some(p.cast()),
        Err(e) => {
            crate::log(format_args!(
                "cannot map {} KiB of the debugger's shared memory for this command: {e}{}",
                len >> 10,
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

/// Fault in the window of [off, off + len) before it is written, in one
/// call (`MADV_POPULATE_WRITE`, Linux 5.14) rather than a page fault per 4
/// KiB: the first 1080p RGBA32F readback into fresh pages costs ~20 ms of
/// faults. Pages stay populated, so each range is done once per window.
pub fn populate(_lease: &Lease, off: usize, len: usize) {
    let Some((i, _, rel_end)) = area(off, len) else {
        return;
    };
    let Some(w) = current(i) else { return };
    let end = rel_end.min(w.len).next_multiple_of(4096).min(w.len);
    let done = w.populated.load(Acquire);
    if end <= done {
        return;
    }
    // SAFETY: [done, end) lies inside the window (page-aligned: both ends
    // are); populating changes no contents. An old kernel's EINVAL leaves
    // the pages to fault as before.
    let _ = unsafe {
        rustix::mm::madvise(
            w.base.add(done).cast(),
            end - done,
            rustix::mm::Advice::LinuxPopulateWrite,
        )
    };
    w.populated.fetch_max(end, Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_access_lies_in_one_area() {
        assert_eq!(area(0, 16), Some((0, 0, 16)));
        assert_eq!(area(shm::BULK_REPLY, 8), Some((1, 0, 8)));
        assert_eq!(area(shm::BULK_DATA + 4, 4), Some((2, 4, 8)));
        assert_eq!(area(shm::BULK_REPLY - 4, 8), None, "crosses request/reply");
        assert_eq!(area(shm::BULK_SIZE - 4, 8), None, "past the region");
        assert_eq!(area(shm::BULK_SIZE, 0), None);
        assert_eq!(area(usize::MAX, 2), None);
    }
}
