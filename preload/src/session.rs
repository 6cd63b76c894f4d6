//! The session: the shared mapping from the daemon, attached once in the
//! library constructor.
//!
//! `HEADER` always points at a valid [`Header`]: a static all-zero one
//! (no breakpoints: pure pass-through) until a session is mapped, and again
//! after a fallback to pass-through. The mapping itself is never unmapped, so
//! references into it stay valid for the life of the process.

use core::ffi::c_char;
use core::sync::atomic::{
    AtomicPtr, AtomicU8, AtomicU64,
    Ordering::{AcqRel, Acquire, Relaxed, Release},
};
use gldbg_proto::shm::{self, Header};

/// The all-zero header used when no session is attached.
// SAFETY (of the zeroed value): `Header` is atomics, integers and arrays of them; all-zero is valid.
static ZERO_HEADER: Header = unsafe { core::mem::zeroed() };

/// The header of a process that mapped a session by path but has not made a
/// GL call yet: every bit set, so its first wrapped call takes the slow path
/// and claims the session (or falls back to pass-through).
// SAFETY (of the value): `Header` is atomics, integers and arrays of them; any bit pattern is valid.
static CLAIM_HEADER: Header =
    unsafe { core::mem::transmute([0xffu8; core::mem::size_of::<Header>()]) };

/// The header the wrappers read (the zero header or the shared mapping).
static HEADER: AtomicPtr<Header> = AtomicPtr::new(&ZERO_HEADER as *const Header as *mut Header);

/// Start of the shared mapping (null when none was ever mapped).
static MAPPING: AtomicPtr<u8> = AtomicPtr::new(core::ptr::null_mut());

/// Start time (`/proc/<pid>/stat` field 22) of the daemon when we attached
/// (0: unknown), to tell a dead daemon from a new process with its pid.
static DAEMON_START: AtomicU64 = AtomicU64::new(0);

/// The daemon's start time recorded at attach (0 if unknown).
pub fn daemon_start_time() -> u64 {
    DAEMON_START.load(Relaxed)
}

/// 1 while a session is attached (the slow path checks this); 2 while the
/// session is mapped by path but not claimed yet (first GL call claims it).
static ATTACHED: AtomicU8 = AtomicU8::new(0);

/// The shared header if attached, claiming a mapped session on this
/// process's first GL call: the first process that calls GL owns the
/// session (`Header::preload_pid` CAS from 0); any other process (the
/// launcher shell, the app's own children) goes pass-through for good.
pub fn session_or_claim() -> Option<&'static Header> {
    match ATTACHED.load(Acquire) {
        1 => Some(header()),
        2 => claim(),
        _ => None,
    }
}

fn claim() -> Option<&'static Header> {
    let base = MAPPING.load(Acquire);
    if base.is_null() {
        return None;
    }
    // SAFETY: MAPPING is the never-unmapped, validated shared mapping; Header sits at offset 0.
    let h: &'static Header = unsafe { &*(base as *const Header) };
    let me = std::process::id();
    match h.preload_pid.compare_exchange(0, me, AcqRel, Acquire) {
        Ok(_) => {}
        Err(owner) if owner == me => {}
        Err(_) => {
            // Another process owns the session: pass-through for good.
            if ATTACHED.compare_exchange(2, 0, AcqRel, Acquire).is_ok() {
                HEADER.store(&ZERO_HEADER as *const Header as *mut Header, Release);
            }
            return None;
        }
    }
    HEADER.store(base as *mut Header, Release);
    let _ = ATTACHED.compare_exchange(2, 1, AcqRel, Acquire);
    h.tls_offset
        .store(crate::thread_calls::tls_offset(), Release);
    h.preload_attached.store(1, Release);
    (ATTACHED.load(Acquire) == 1).then_some(h)
}

/// The current header (zero header when detached).
#[inline(always)]
pub fn header() -> &'static Header {
    // SAFETY: HEADER always points at ZERO_HEADER or at the never-unmapped mapping.
    unsafe { &*HEADER.load(Relaxed) }
}

/// The shared header if a session is attached.
pub fn session() -> Option<&'static Header> {
    if ATTACHED.load(Acquire) == 1 {
        Some(header())
    } else {
        None
    }
}

/// Count one draw call (`Header::draw_count`).
#[inline(always)]
pub fn count_draw() {
    header().draw_count.fetch_add(1, Relaxed);
}

/// Count one frame-end call (`Header::frame_count`).
#[inline(always)]
pub fn count_frame() {
    let h = header();
    h.frame_first_draw
        .store(h.draw_count.load(Relaxed), Relaxed);
    h.frame_count.fetch_add(1, Relaxed);
}

/// A pointer to byte `off` of the bulk region, valid for `len` bytes
/// (only while a session is mapped): see `bulk.rs`.
pub fn bulk_window(lease: &crate::bulk::Lease, off: usize, len: usize) -> Option<*mut u8> {
    if MAPPING.load(Acquire).is_null() {
        return None;
    }
    crate::bulk::window(lease, off, len)
}

/// Switch to pass-through for good (daemon gone): breakpoints and
/// single-stepping are ignored from now on.
pub fn detach() {
    if ATTACHED.swap(0, Release) == 1 {
        HEADER.store(&ZERO_HEADER as *const Header as *mut Header, Release);
        crate::log(format_args!("the debugger is gone; continuing without it"));
    }
}

/// Map the session named by `GLDBG_SHM` (a path; left in the environment so
/// an `exec` chain reaches the app, claimed at the first GL call) or by
/// `GLDBG_SHM_FD` (an inherited fd; attached at once, the variable removed).
/// Constructor; single-threaded.
pub fn attach_from_env() {
    // SAFETY: getenv with a NUL-terminated name; the constructor runs before any other thread.
    let path = unsafe { libc::getenv(c"GLDBG_SHM".as_ptr()) };
    if !path.is_null() {
        // SAFETY: open of a NUL-terminated path from the environment.
        let fd = unsafe { libc::open(path, libc::O_RDWR | libc::O_CLOEXEC) };
        if fd < 0 {
            let err = std::io::Error::last_os_error();
            if err.raw_os_error() == Some(libc::ENOENT) {
                // The daemon is gone (a process started after it ended): nothing to say.
                return;
            }
            // SAFETY: getenv returned a NUL-terminated string.
            let p = unsafe { core::ffi::CStr::from_ptr(path) };
            crate::log(format_args!(
                "cannot open the debugger's shared memory {}: {}; running without the debugger",
                p.to_string_lossy(),
                err
            ));
            return;
        }
        let mapped = map(fd);
        let Some(base) = mapped.and_then(validate) else {
            // SAFETY: our own fd, opened above.
            unsafe { libc::close(fd) };
            return;
        };
        {
            crate::bulk::keep_fd(fd);
            MAPPING.store(base, Release);
            ATTACHED.store(2, Release);
            HEADER.store(&CLAIM_HEADER as *const Header as *mut Header, Release);
        }
        return;
    }
    // SAFETY: getenv with a NUL-terminated name; the constructor runs before any other thread.
    let v = unsafe { libc::getenv(c"GLDBG_SHM_FD".as_ptr()) };
    if v.is_null() {
        return;
    }
    // SAFETY: getenv returned a NUL-terminated string.
    let text = unsafe { core::ffi::CStr::from_ptr(v) };
    let fd: Option<i32> = text
        .to_str()
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .filter(|&fd| fd >= 0);
    // SAFETY: constructor, single-threaded; the name is NUL-terminated. Children must run pass-through.
    unsafe { libc::unsetenv(c"GLDBG_SHM_FD".as_ptr() as *const c_char) };
    let Some(fd) = fd else {
        crate::log(format_args!(
            "GLDBG_SHM_FD is not a file descriptor; running without the debugger"
        ));
        return;
    };
    let mapped = map(fd);
    let Some(base) = mapped.and_then(validate) else {
        // SAFETY: the fd was handed to us for this purpose only; nobody else uses it.
        unsafe { libc::close(fd) };
        return;
    };
    // Kept to map bulk windows later; not for the app's exec'd children.
    // SAFETY: fcntl on the fd handed to us for this purpose only.
    unsafe { libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC) };
    crate::bulk::keep_fd(fd);
    MAPPING.store(base, Release);
    ATTACHED.store(2, Release);
    if claim().is_none() {
        crate::log(format_args!(
            "another process owns the debugger's session; running without the debugger"
        ));
    }
}

/// Check the header of a fresh mapping; registers the fork handler and
/// records the daemon's start time. Unmaps and returns None on a mismatch.
fn validate(base: *mut u8) -> Option<*mut u8> {
    // SAFETY: the mapping is BULK_OFFSET bytes, page-aligned; Header sits at offset 0.
    let h = unsafe { &*(base as *const Header) };
    let fcount = gldbg_proto::api::FUNCTIONS.len() as u32;
    if h.magic != shm::MAGIC
        || h.abi_version != shm::ABI_VERSION
        || h.header_size as usize != core::mem::size_of::<Header>()
        || (h.total_size as usize) < shm::SHM_SIZE
        || h.function_count != fcount
    {
        crate::log(format_args!(
            "shared memory does not match this preload (magic {:#x}, ABI {}, header {} bytes, {} functions; want ABI {}, {} bytes, {} functions); running without the debugger",
            h.magic,
            h.abi_version,
            h.header_size,
            h.function_count,
            shm::ABI_VERSION,
            core::mem::size_of::<Header>(),
            fcount
        ));
        // SAFETY: our own mapping, no references into it escape.
        unsafe { libc::munmap(base.cast(), shm::BULK_OFFSET) };
        return None;
    }
    // A child forked without exec shares the mapping but is not the process
    // the daemon traces: it runs pass-through.
    // SAFETY: registering a plain extern "C" handler; it only stores atomics.
    unsafe { libc::pthread_atfork(None, None, Some(forget_in_child)) };
    if let Some((_, start)) = proc_stat(h.daemon_pid) {
        DAEMON_START.store(start, Relaxed);
    }
    Some(base)
}

/// `(state, start time)` of a process from `/proc/<pid>/stat` (None if unreadable).
pub(crate) fn proc_stat(pid: u32) -> Option<(u8, u64)> {
    let stat = std::fs::read(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.iter().rposition(|&c| c == b')')? + 1..];
    let rest = std::str::from_utf8(rest).ok()?;
    let mut fields = rest.split_ascii_whitespace();
    let state = *fields.next()?.as_bytes().first()?;
    // Field 22 (starttime); `fields` now starts at field 4.
    let start = fields.nth(18)?.parse().ok()?;
    Some((state, start))
}

/// `pthread_atfork` child handler: the forked child runs pass-through.
extern "C" fn forget_in_child() {
    ATTACHED.store(0, Release);
    HEADER.store(&ZERO_HEADER as *const Header as *mut Header, Release);
}

fn map(fd: i32) -> Option<*mut u8> {
    // SAFETY: fd is open (inherited for us) for the duration of this call.
    let bfd = unsafe { rustix::fd::BorrowedFd::borrow_raw(fd) };
    // SAFETY: a fresh shared mapping chosen by the kernel; nothing else is at
    // that address. The header only: the bulk region is mapped on demand
    // (`bulk.rs`), to keep the app's address space small.
    let r = unsafe {
        rustix::mm::mmap(
            core::ptr::null_mut(),
            shm::BULK_OFFSET,
            rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
            rustix::mm::MapFlags::SHARED,
            bfd,
            0,
        )
    };
    match r {
        Ok(p) => Some(p.cast()),
        Err(e) => {
            crate::log(format_args!(
                "cannot map the debugger's shared memory (fd {fd}): {e}{}; running without the debugger",
                crate::bulk::address_space_limit()
            ));
            None
        }
    }
}
