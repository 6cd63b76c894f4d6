//! The daemon side of the shared memory (`gldbg_proto::shm` is the contract).
//!
//! [`SharedMemory::create`] makes a memfd (close-on-exec; the launcher
//! `dup2`s it into the child and names it in `GLDBG_SHM_FD`), sizes it to
//! `SHM_SIZE` (sparse), maps it and writes the header. The preload in the app
//! maps the same pages; the two sides talk through atomics in the header and
//! the per-thread slots, and wake each other with *shared* futexes.
//!
//! Breakpoints: the daemon keeps the user's bits here and writes them into
//! the shared bitset. Single-stepping (`set_step_all(true)`) sets every
//! shared word to `!0` (the preload's fast path reads only the bitset, never
//! `step_all`), and `set_step_all(false)` writes the user's bits back.
//!
//! All bulk offsets (`bulk_writer`, `write_struct`, `read_struct`,
//! `BulkRef::offset`) are relative to the start of the bulk region.

use gldbg_proto::shm::{self, BulkRef, Header, Slot};
use rustix::thread::futex;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::ptr::NonNull;
use std::sync::Mutex;
use std::sync::atomic::{
    AtomicU32,
    Ordering::{Acquire, Relaxed, Release, SeqCst},
};
use std::time::{Duration, Instant};

/// Errors of the shared-memory peer.
#[derive(Debug, thiserror::Error)]
pub enum ShmError {
    /// The app did not acknowledge a command in time.
    #[error("timeout")]
    Timeout,
    /// The thread is no longer at the stop the command was meant for.
    #[error("the thread is no longer at that stop")]
    Stale,
    /// Creating or mapping the memfd failed, or a bad slot index.
    #[error("{0}")]
    Os(String),
    /// The app ended while the command waited (the reason, from the tracer).
    #[error("{0}")]
    AppGone(String),
}

/// A call a thread of the app is stopped at (slot state STOPPED or RETURNED).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoppedCall {
    pub slot: usize,
    pub tid: u32,
    pub state: u32,
    pub function: u32,
    pub call_number: u64,
    pub args: Vec<u64>,
    pub ret: u64,
    pub context: u64,
    /// The GL error of an error-breakpoint stop after the call (0: a stop before the call).
    pub error: u32,
    /// A draw call that draws nothing (compiled into a display list).
    pub not_drawn: bool,
    /// The slot's `stop_id` of this stop (commands name it).
    pub stop_id: u32,
    /// (ABI 16) Findings of earlier armed memcheck runs wait at this stop
    /// for `CMD_MEMCHECK_TAKE` (the stop is before its call, as any).
    pub memcheck_ran: bool,
}

/// What the daemon remembers about breakpoints (the shared bitset may hold
/// all ones while stepping).
struct Bits {
    user: [u64; shm::MAX_FUNCTIONS / 64],
    step_all: bool,
    /// An error breakpoint exists: every call takes the slow path.
    check_errors: bool,
}

/// The memfd and its mapping, daemon side.
pub struct SharedMemory {
    fd: OwnedFd,
    base: NonNull<u8>,
    bits: Mutex<Bits>,
    /// Bulk bytes mapped in so far (see [`SharedMemory::populate`]).
    populated: std::sync::atomic::AtomicUsize,
    /// Why the app is gone, once the tracer saw it end (see [`SharedMemory::app_gone`]).
    gone: std::sync::OnceLock<String>,
}

impl std::fmt::Debug for SharedMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedMemory").finish_non_exhaustive()
    }
}

// SAFETY: the mapping lives as long as `self`; everything the two sides share
// is accessed through atomics, and bulk bytes are only touched while the
// protocol gives this side the turn.
unsafe impl Send for SharedMemory {}
// SAFETY: as above; `&self` methods only use atomics, the mutex, or bulk copies.
unsafe impl Sync for SharedMemory {}

impl Drop for SharedMemory {
    fn drop(&mut self) {
        // SAFETY: our own mapping of SHM_SIZE bytes; no reference outlives `self`.
        let _ = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), shm::SHM_SIZE) };
    }
}

fn os(what: &str, e: impl std::fmt::Display) -> ShmError {
    ShmError::Os(format!("{what}: {e}"))
}

fn wake(word: &AtomicU32) {
    let _ = futex::wake(word, futex::Flags::empty(), i32::MAX as u32);
}

/// Wake the sleepers on `word` if any announced themselves (the ABI's
/// point 7); `word` was just stored with `SeqCst`.
fn wake_if(word: &AtomicU32, sleepers: &AtomicU32) {
    if sleepers.load(SeqCst) != 0 {
        wake(word);
    }
}

/// How long a waiter spins before it sleeps on the futex: the preload
/// answers a command or stops again within microseconds when stepping,
/// and a futex sleep plus wake-up costs more than that.
const SPIN: Duration = Duration::from_micros(20);

/// How often a command's wait looks whether the app is gone.
const GONE_POLL: Duration = Duration::from_millis(50);

/// Spin (bounded by `spin`) while `word == val`; true once it changed.
/// Yields the CPU between rounds (the preload's `spin_while` says why).
fn spin_while(word: &AtomicU32, val: u32, spin: Duration) -> bool {
    let start = Instant::now();
    loop {
        for _ in 0..64 {
            if word.load(Acquire) != val {
                return true;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= spin {
            return word.load(Acquire) != val;
        }
        std::thread::yield_now();
    }
}

/// Futex-wait while `word == val`, at most until `deadline`; returns false on timeout.
/// `sleepers` counts the daemon threads asleep on `word` (the preload
/// wakes only if it is nonzero).
fn wait_while(
    word: &AtomicU32,
    sleepers: &AtomicU32,
    val: u32,
    deadline: Instant,
    spin: Duration,
) -> bool {
    if spin_while(word, val, spin) {
        return true;
    }
    sleepers.fetch_add(1, SeqCst);
    let changed = sleep_while(word, val, deadline);
    sleepers.fetch_sub(1, Relaxed);
    changed
}

fn sleep_while(word: &AtomicU32, val: u32, deadline: Instant) -> bool {
    loop {
        if word.load(SeqCst) != val {
            return true;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let left = (deadline - now).min(Duration::from_millis(100));
        let ts = rustix::time::Timespec {
            tv_sec: left.as_secs() as i64,
            tv_nsec: left.subsec_nanos() as i64,
        };
        let _ = futex::wait(word, futex::Flags::empty(), val, Some(&ts));
    }
}

impl SharedMemory {
    /// memfd (MFD_CLOEXEC), sized `SHM_SIZE`, mapped, header written.
    pub fn create() -> Result<Self, ShmError> {
        let fd = rustix::fs::memfd_create("gldbg", rustix::fs::MemfdFlags::CLOEXEC)
            .map_err(|e| os("memfd_create", e))?;
        rustix::fs::ftruncate(&fd, shm::SHM_SIZE as u64).map_err(|e| os("ftruncate", e))?;
        // SAFETY: a fresh shared mapping of our own memfd at a kernel-chosen address.
        let p = unsafe {
            rustix::mm::mmap(
                std::ptr::null_mut(),
                shm::SHM_SIZE,
                rustix::mm::ProtFlags::READ | rustix::mm::ProtFlags::WRITE,
                rustix::mm::MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .map_err(|e| os("mmap", e))?;
        let base = NonNull::new(p.cast::<u8>())
            .ok_or_else(|| ShmError::Os("mmap returned null".into()))?;
        let h = base.as_ptr().cast::<Header>();
        // SAFETY: the mapping is fresh, zero-filled, page-aligned and not shared yet
        // (no child has the fd), so plain writes to the header are unobserved.
        unsafe {
            (*h).magic = shm::MAGIC;
            (*h).abi_version = shm::ABI_VERSION;
            (*h).header_size = size_of::<Header>() as u32;
            (*h).total_size = shm::SHM_SIZE as u64;
            (*h).daemon_pid = std::process::id();
            (*h).function_count = gldbg_proto::api::FUNCTIONS.len() as u32;
        }
        Ok(SharedMemory {
            fd,
            base,
            bits: Mutex::new(Bits {
                user: [0; shm::MAX_FUNCTIONS / 64],
                step_all: false,
                check_errors: false,
            }),
            populated: std::sync::atomic::AtomicUsize::new(0),
            gone: std::sync::OnceLock::new(),
        })
    }

    /// The memfd (close-on-exec; the launcher dup2s it into the child).
    pub fn raw_fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// The shared header.
    pub fn header(&self) -> &Header {
        // SAFETY: the header lies at the start of the live mapping; all shared fields are atomics.
        unsafe { &*self.base.as_ptr().cast::<Header>() }
    }

    fn slot(&self, slot: usize) -> Option<&Slot> {
        self.header().slots.get(slot)
    }

    fn publish_bits(&self, bits: &Bits) {
        let h = self.header();
        let stop = |user: u64| if bits.step_all { !0 } else { user };
        // Stop bits first: a wrapper that sees a new breakpoint word must find them current.
        for (w, &user) in h.stop_bits.iter().zip(bits.user.iter()) {
            w.store(stop(user), Release);
        }
        h.check_errors.store(bits.check_errors as u32, Release);
        for (w, &user) in h.breakpoints.iter().zip(bits.user.iter()) {
            w.store(if bits.check_errors { !0 } else { stop(user) }, Release);
        }
    }

    /// Check every GL call for a GL error (an error breakpoint exists) or not.
    /// While on, every call takes the preload's slow path; the fast path is
    /// unchanged when off.
    pub fn set_check_errors(&self, on: bool) {
        let mut b = self.bits.lock().unwrap_or_else(|e| e.into_inner());
        b.check_errors = on;
        self.publish_bits(&b);
    }

    /// Set or clear the breakpoint bit of a function.
    pub fn set_breakpoint(&self, function_id: u32, on: bool) {
        let id = function_id as usize;
        if id >= shm::MAX_FUNCTIONS {
            return;
        }
        let mut b = self.bits.lock().unwrap_or_else(|e| e.into_inner());
        if on {
            b.user[id / 64] |= 1 << (id % 64);
        } else {
            b.user[id / 64] &= !(1 << (id % 64));
        }
        self.publish_bits(&b);
    }

    /// Clear every breakpoint bit.
    pub fn clear_breakpoints(&self) {
        let mut b = self.bits.lock().unwrap_or_else(|e| e.into_inner());
        b.user = [0; shm::MAX_FUNCTIONS / 64];
        self.publish_bits(&b);
    }

    /// Stop every call on every thread (all bits set) or go back to the user's bits.
    pub fn set_step_all(&self, on: bool) {
        let mut b = self.bits.lock().unwrap_or_else(|e| e.into_inner());
        b.step_all = on;
        self.header().step_all.store(on as u32, Release);
        self.publish_bits(&b);
    }

    /// Let armed memcheck programs run without a stop, or not (ABI 16).
    pub fn set_memcheck_fast(&self, on: bool) {
        self.header().memcheck_fast.store(on as u32, Release);
    }

    /// Dispatches armed memcheck programs ran without a stop (ABI 16).
    pub fn memcheck_fast_calls(&self) -> u64 {
        self.header().memcheck_fast_calls.load(Relaxed)
    }

    /// Futex-wait until `Header::stop_seq != seen` (or timeout); returns the current value.
    pub fn wait_stop_seq(&self, seen: u32, timeout: Duration) -> u32 {
        let word = &self.header().stop_seq;
        let sleepers = &self.header().stop_sleepers;
        wait_while(word, sleepers, seen, Instant::now() + timeout, self.spin());
        word.load(Acquire)
    }

    /// Ask both sides to spin up to `spin` for each other before sleeping
    /// (`Header::spin_us`): for step loops, where each answer comes within
    /// microseconds. `Duration::ZERO` restores the short default spin.
    pub fn set_spin(&self, spin: Duration) {
        let us = spin.as_micros().min(u32::MAX as u128) as u32;
        self.header().spin_us.store(us, Release);
    }

    /// How long this side spins before it sleeps.
    fn spin(&self) -> Duration {
        SPIN.max(Duration::from_micros(
            self.header().spin_us.load(Relaxed).into(),
        ))
    }

    /// Slots with state STOPPED or RETURNED. A slot that moves on while
    /// it is read (its `state` or `stop_id` changed) is left out: a later
    /// `stop_seq` bump reports it again. A snapshot may still be old by the
    /// time it is used: take a stop only where [`Self::is_stopped_at`].
    pub fn stopped(&self) -> Vec<StoppedCall> {
        let mut out = Vec::new();
        for (i, s) in self.header().slots.iter().enumerate() {
            let tid = s.tid.load(Acquire);
            let state = s.state.load(Acquire);
            let stop_id = s.stop_id.load(Acquire);
            if tid == 0 || !(state == shm::STATE_STOPPED || state == shm::STATE_RETURNED) {
                continue;
            }
            let n = (s.arg_count.load(Relaxed) as usize).min(shm::MAX_ARGS);
            let call = StoppedCall {
                slot: i,
                tid,
                state,
                function: s.function.load(Relaxed),
                call_number: s.call_number.load(Relaxed),
                args: s.args[..n].iter().map(|a| a.load(Relaxed)).collect(),
                ret: s.ret.load(Relaxed),
                context: s.context.load(Relaxed),
                error: s.error.load(Relaxed),
                not_drawn: s.not_drawn.load(Relaxed) != 0,
                stop_id,
                memcheck_ran: s.memcheck_ran.load(Relaxed) != 0,
            };
            // Pairs with the preload's release fence before it writes a
            // new stop's fields (a seqlock read).
            std::sync::atomic::fence(Acquire);
            if s.state.load(Relaxed) == state && s.stop_id.load(Relaxed) == stop_id {
                out.push(call);
            }
        }
        out
    }

    /// Whether `slot` is stopped before a call at stop `stop_id` now (not
    /// moved on, not RETURNED): the check that makes taking a stop safe
    /// against an old snapshot.
    pub fn is_stopped_at(&self, slot: usize, stop_id: u32) -> bool {
        self.slot(slot).is_some_and(|s| {
            s.state.load(Acquire) == shm::STATE_STOPPED && s.stop_id.load(Acquire) == stop_id
        })
    }

    /// Write `cmd` to a slot, bump `command_seq`, wake the thread and wait for
    /// its acknowledgement (`done_seq`); returns the command's status.
    ///
    /// A command that releases the thread (continue, skip) may be overtaken:
    /// the thread stops again at once and another command (the stop
    /// watcher's) is acknowledged before this waiter looks. `done_seq` past
    /// `seq` therefore also means done; the status word then belongs to the
    /// later command, so it is reported as `STATUS_OK` (only releasing
    /// commands, which always succeed, can be overtaken: a thread that stays
    /// stopped takes no other command meanwhile).
    ///
    /// The command is meant for the stop the slot is at now (or was last
    /// at): for commands at the session's current stop. Releasing a stop
    /// the session took uses [`Self::command_at`].
    pub fn command(&self, slot: usize, cmd: u32, timeout: Duration) -> Result<u32, ShmError> {
        let s = self
            .slot(slot)
            .ok_or_else(|| ShmError::Os(format!("no slot {slot}")))?;
        self.command_at(slot, s.stop_id.load(Acquire), cmd, timeout)
    }

    /// [`Self::command`] for stop `stop_id` of `slot` (`StoppedCall::stop_id`).
    /// A thread no longer at that stop answers at once (`ShmError::Stale`),
    /// at its next stop if it runs now, and does nothing.
    pub fn command_at(
        &self,
        slot: usize,
        stop_id: u32,
        cmd: u32,
        timeout: Duration,
    ) -> Result<u32, ShmError> {
        let s = self
            .slot(slot)
            .ok_or_else(|| ShmError::Os(format!("no slot {slot}")))?;
        s.command.store(cmd, Relaxed);
        s.command_stop.store(stop_id, Relaxed);
        // Release: the command words and any bulk request are visible before the new sequence.
        let seq = s.command_seq.fetch_add(1, SeqCst).wrapping_add(1);
        wake_if(&s.command_seq, &s.app_sleeping);
        let deadline = Instant::now() + timeout;
        loop {
            let done = s.done_seq.load(Acquire);
            if done == seq {
                return match s.status.load(Relaxed) {
                    shm::STATUS_STALE_STOP => Err(ShmError::Stale),
                    st => Ok(st),
                };
            }
            if (done.wrapping_sub(seq) as i32) > 0 {
                return Ok(shm::STATUS_OK);
            }
            if let Some(why) = self.gone.get() {
                return Err(ShmError::AppGone(why.clone()));
            }
            // In slices: the app's death (`app_gone`) ends the wait too.
            let slice = deadline.min(Instant::now() + GONE_POLL);
            if !wait_while(&s.done_seq, &s.daemon_sleeping, done, slice, self.spin())
                && Instant::now() >= deadline
            {
                return Err(ShmError::Timeout);
            }
        }
    }

    /// The app ended (`why` says how): every command waiting for it, and
    /// every later one, fails with [`ShmError::AppGone`] within
    /// [`GONE_POLL`] rather than at its timeout.
    pub fn app_gone(&self, why: String) {
        let _ = self.gone.set(why);
    }

    /// Give the pages of the bulk region from `BULK_DATA` on back to the
    /// system (`fallocate(PUNCH_HOLE)` on the memfd: for this mapping and
    /// the app's alike). Those bytes hold only debug-step results; the
    /// caller makes sure no step is in flight. Later reads see zeros until
    /// the preload writes again.
    pub fn release_bulk_data(&self) {
        use rustix::fs::FallocateFlags;
        let start = shm::BULK_OFFSET + shm::BULK_DATA;
        let len = shm::SHM_SIZE - start;
        // An old kernel or filesystem without hole punching keeps the pages.
        let _ = rustix::fs::fallocate(
            &self.fd,
            FallocateFlags::PUNCH_HOLE | FallocateFlags::KEEP_SIZE,
            start as u64,
            len as u64,
        );
        // Populated pages past BULK_DATA are gone: populate them again.
        let _ = self
            .populated
            .fetch_update(Relaxed, Relaxed, |p| Some(p.min(shm::BULK_DATA)));
    }

    /// Rewrite an argument word of a stopped call (before CONTINUE/FINISH).
    pub fn set_arg(&self, slot: usize, index: usize, word: u64) {
        if let Some(a) = self.slot(slot).and_then(|s| s.args.get(index)) {
            a.store(word, Release);
        }
    }

    /// Overwrite `Header::daemon_pid` (the pid the preload watches for
    /// liveness). Only before the app starts: tests use it to check the
    /// preload's fallback to pass-through when its daemon is gone.
    pub fn set_daemon_pid(&self, pid: u32) {
        // SAFETY: a plain field of our own mapping, written before any app maps it.
        unsafe { (*self.base.as_ptr().cast::<Header>()).daemon_pid = pid };
    }

    /// Draw calls the app made so far.
    pub fn draw_count(&self) -> u64 {
        self.header().draw_count.load(Relaxed)
    }

    /// `draw_count` when the last frame-end call started (ABI 14).
    pub fn frame_first_draw(&self) -> u64 {
        self.header().frame_first_draw.load(Relaxed)
    }

    /// Frame-end calls (swaps) the app started so far.
    pub fn frame_count(&self) -> u64 {
        self.header().frame_count.load(Relaxed)
    }

    fn bulk(&self) -> *mut u8 {
        // SAFETY: BULK_OFFSET lies inside the SHM_SIZE mapping.
        unsafe { self.base.as_ptr().add(shm::BULK_OFFSET) }
    }

    /// Map the bulk pages up to byte `end` in one call before reading them
    /// (`MADV_POPULATE_READ`, Linux 5.14): the preload wrote them, but this
    /// mapping would still take a fault per 4 KiB page on first access.
    fn populate(&self, end: usize) {
        use std::sync::atomic::Ordering::{Acquire, Release};
        let end = end.next_multiple_of(4096).min(shm::BULK_SIZE);
        let done = self.populated.load(Acquire);
        if end <= done {
            return;
        }
        // SAFETY: [done, end) lies inside the bulk region of our mapping
        // (page-aligned); populating changes no contents. An old kernel's
        // EINVAL leaves the pages to fault as before.
        let _ = unsafe {
            rustix::mm::madvise(
                self.bulk().add(done).cast(),
                end - done,
                rustix::mm::Advice::LinuxPopulateRead,
            )
        };
        self.populated.fetch_max(end, Release);
    }

    fn in_bulk(offset: usize, len: usize) -> bool {
        offset
            .checked_add(len)
            .is_some_and(|end| end <= shm::BULK_SIZE)
    }

    /// A writer appending bytes from `start` (bulk offset).
    pub fn bulk_writer(&self, start: usize) -> BulkWriter<'_> {
        BulkWriter {
            shm: self,
            pos: start,
        }
    }

    /// Write a `#[repr(C)]` value at a bulk offset. Panics when out of bounds.
    pub fn write_struct<T: Copy>(&self, offset: usize, value: &T) {
        assert!(
            Self::in_bulk(offset, size_of::<T>()),
            "bulk write out of bounds"
        );
        // SAFETY: in bounds (asserted); unaligned write of plain data while the app waits for a command.
        unsafe { self.bulk().add(offset).cast::<T>().write_unaligned(*value) }
    }

    /// Read a `#[repr(C)]` value (plain integers and floats only) at a bulk offset.
    /// Panics when out of bounds.
    pub fn read_struct<T: Copy>(&self, offset: usize) -> T {
        assert!(
            Self::in_bulk(offset, size_of::<T>()),
            "bulk read out of bounds"
        );
        // SAFETY: in bounds (asserted); the reply types are plain data valid for any bits.
        unsafe { self.bulk().add(offset).cast::<T>().read_unaligned() }
    }

    /// Copy the bytes of a `BulkRef` (empty if it points outside the bulk region).
    pub fn read_bytes(&self, r: BulkRef) -> Vec<u8> {
        if !Self::in_bulk(r.offset as usize, r.len as usize) {
            return Vec::new();
        }
        self.populate(r.offset as usize + r.len as usize);
        // SAFETY: in bounds (checked); the preload finished writing before acknowledging.
        let bytes = unsafe {
            std::slice::from_raw_parts(self.bulk().add(r.offset as usize), r.len as usize)
        };
        let mut v = populated_vec(bytes.len());
        v.extend_from_slice(bytes);
        v
    }

    /// The first `take` of every `stride` `f32`s of a `BulkRef` of texels
    /// (a debug value's components: copying only those saves most of the
    /// page faults of a large copy).
    pub fn read_texel_components(&self, r: BulkRef, stride: usize, take: usize) -> Vec<f32> {
        let take = take.min(stride);
        if take == stride {
            return self.read_f32s(r);
        }
        if !Self::in_bulk(r.offset as usize, r.len as usize) || take == 0 {
            return Vec::new();
        }
        let texels = r.len as usize / (4 * stride);
        self.populate(r.offset as usize + r.len as usize);
        // SAFETY: in bounds (checked); the preload finished writing before
        // acknowledging; f32 reads from an 8-aligned offset of the mapping.
        let all = unsafe {
            std::slice::from_raw_parts(
                self.bulk().add(r.offset as usize).cast::<f32>(),
                texels * stride,
            )
        };
        let mut v = populated_vec(texels * take);
        for t in all.chunks_exact(stride) {
            v.extend_from_slice(&t[..take]);
        }
        v
    }

    /// `f` over the `f32`s of a `BulkRef` in place (empty when out of
    /// bounds): no copy of a large image just to scan it.
    pub fn with_f32s<T>(&self, r: BulkRef, f: impl FnOnce(&[f32]) -> T) -> T {
        if !Self::in_bulk(r.offset as usize, r.len as usize) {
            return f(&[]);
        }
        self.populate(r.offset as usize + r.len as usize);
        // SAFETY: in bounds (checked); the preload finished writing before
        // acknowledging and does not write while this side has the turn;
        // f32 reads from an 8-aligned offset of the mapping.
        f(unsafe {
            std::slice::from_raw_parts(
                self.bulk().add(r.offset as usize).cast::<f32>(),
                r.len as usize / 4,
            )
        })
    }

    /// The bytes of a `BulkRef` as native-endian `f32`s.
    pub fn read_f32s(&self, r: BulkRef) -> Vec<f32> {
        if !Self::in_bulk(r.offset as usize, r.len as usize) {
            return Vec::new();
        }
        self.populate(r.offset as usize + r.len as usize);
        let n = r.len as usize / 4;
        let mut v = populated_vec::<f32>(n);
        // SAFETY: in bounds (checked); `v` has room for n floats, written
        // whole before `set_len`; a byte copy (the offset may be unaligned),
        // and any bits are a valid f32.
        unsafe {
            std::ptr::copy_nonoverlapping(
                self.bulk().add(r.offset as usize),
                v.as_mut_ptr().cast::<u8>(),
                n * 4,
            );
            v.set_len(n);
        }
        v
    }

    fn write_bytes(&self, offset: usize, bytes: &[u8]) {
        assert!(
            Self::in_bulk(offset, bytes.len()),
            "bulk write out of bounds"
        );
        // SAFETY: in bounds (asserted).
        unsafe {
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.bulk().add(offset), bytes.len())
        }
    }
}

/// The stopped thread a command goes to: a slot at one stop (the session's
/// stop or one a run took), for the step kinds that talk to it directly
/// (pixel history, memcheck).
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub shm: &'a SharedMemory,
    pub slot: usize,
    pub stop_id: u32,
}

impl At<'_> {
    /// Run `cmd` at the stop, waiting at most `timeout`; its status.
    pub fn run(&self, cmd: u32, timeout: Duration) -> Result<u32, ShmError> {
        self.shm.command_at(self.slot, self.stop_id, cmd, timeout)
    }
}

/// Appends byte strings to the bulk region, each 8-byte aligned.
pub struct BulkWriter<'a> {
    shm: &'a SharedMemory,
    pos: usize,
}

impl BulkWriter<'_> {
    /// Copy `bytes` at the current position; returns where they went.
    pub fn push(&mut self, bytes: &[u8]) -> BulkRef {
        let off = self.pos;
        self.shm.write_bytes(off, bytes);
        self.pos = (off + bytes.len() + 7) & !7;
        BulkRef {
            offset: off as u32,
            len: bytes.len() as u32,
        }
    }

    /// The next free bulk offset.
    pub fn position(&self) -> usize {
        self.pos
    }
}

/// An empty vector with room for `len` elements whose pages are faulted in
/// by one `MADV_POPULATE_WRITE` (Linux 5.14) rather than one fault per 4 KiB
/// as a copy first touches them: copying a probe's coverage or values into
/// fresh memory took 0.7 ms per MB of faults on the GPU machine.
fn populated_vec<T>(len: usize) -> Vec<T> {
    let mut v = Vec::with_capacity(len);
    let bytes = len * std::mem::size_of::<T>();
    if bytes >= 1 << 18 {
        let base = v.as_mut_ptr() as usize;
        let (start, end) = (base.next_multiple_of(4096), (base + bytes) & !4095);
        if end > start {
            // SAFETY: [start, end) lies inside `v`'s allocation (its page-
            // aligned inside); populating writes nothing. An old kernel's
            // EINVAL leaves the pages to fault as before.
            let _ = unsafe {
                rustix::mm::madvise(
                    start as *mut std::ffi::c_void,
                    end - start,
                    rustix::mm::Advice::LinuxPopulateWrite,
                )
            };
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn create_writes_the_header() {
        let m = SharedMemory::create().unwrap();
        let h = m.header();
        assert_eq!(h.magic, shm::MAGIC);
        assert_eq!(h.abi_version, shm::ABI_VERSION);
        assert_eq!(h.header_size as usize, size_of::<Header>());
        assert_eq!(h.daemon_pid, std::process::id());
        assert_eq!(h.function_count as usize, gldbg_proto::api::FUNCTIONS.len());
        assert!(m.raw_fd() >= 0);
        let st = rustix::fs::fstat(&m.fd).unwrap();
        assert_eq!(st.st_size as usize, shm::SHM_SIZE);
    }

    #[test]
    fn breakpoints_and_step_all() {
        let m = SharedMemory::create().unwrap();
        let w = |i: usize| m.header().breakpoints[i].load(Relaxed);
        m.set_breakpoint(3, true);
        m.set_breakpoint(130, true);
        assert_eq!(w(0), 1 << 3);
        assert_eq!(w(2), 1 << 2);
        m.set_step_all(true);
        assert!((0..shm::MAX_FUNCTIONS / 64).all(|i| w(i) == !0));
        assert_eq!(m.header().step_all.load(Relaxed), 1);
        m.set_breakpoint(3, false);
        assert_eq!(w(0), !0, "stepping still stops everywhere");
        m.set_step_all(false);
        assert_eq!(w(0), 0);
        assert_eq!(w(2), 1 << 2);
        m.clear_breakpoints();
        assert!((0..shm::MAX_FUNCTIONS / 64).all(|i| w(i) == 0));
    }

    #[test]
    fn error_checking_sets_every_bit_and_keeps_stop_bits() {
        let m = SharedMemory::create().unwrap();
        let h = m.header();
        m.set_breakpoint(3, true);
        m.set_check_errors(true);
        assert_eq!(h.check_errors.load(Relaxed), 1);
        assert!((0..shm::MAX_FUNCTIONS / 64).all(|i| h.breakpoints[i].load(Relaxed) == !0));
        assert_eq!(h.stop_bits[0].load(Relaxed), 1 << 3);
        assert_eq!(h.stop_bits[1].load(Relaxed), 0);
        m.set_step_all(true);
        assert_eq!(h.stop_bits[1].load(Relaxed), !0);
        m.set_step_all(false);
        m.set_check_errors(false);
        assert_eq!(h.check_errors.load(Relaxed), 0);
        assert_eq!(
            h.breakpoints[0].load(Relaxed),
            1 << 3,
            "fast path back to the user's bits"
        );
        assert_eq!(h.breakpoints[1].load(Relaxed), 0);
    }

    #[test]
    fn an_overtaken_command_counts_as_done() {
        let m = Arc::new(SharedMemory::create().unwrap());
        let s = &m.header().slots[0];
        // A peer that acknowledges the command and, at once, a later one.
        let m2 = m.clone();
        let peer = std::thread::spawn(move || {
            let s = &m2.header().slots[0];
            while s.command_seq.load(Acquire) == 0 {
                std::hint::spin_loop();
            }
            s.done_seq.store(2, Release);
            wake(&s.done_seq);
        });
        assert_eq!(
            m.command(0, shm::CMD_CONTINUE, Duration::from_secs(5))
                .unwrap(),
            shm::STATUS_OK
        );
        peer.join().unwrap();
        assert_eq!(s.done_seq.load(Relaxed), 2);
    }

    #[test]
    fn bulk_round_trip() {
        let m = SharedMemory::create().unwrap();
        let mut w = m.bulk_writer(100);
        let a = w.push(b"hello");
        let b = w.push(b"world!");
        assert_eq!(
            a,
            BulkRef {
                offset: 100,
                len: 5
            }
        );
        assert_eq!(b.offset, 112);
        assert_eq!(m.read_bytes(a), b"hello");
        assert_eq!(m.read_bytes(b), b"world!");
        m.write_struct(shm::BULK_REPLY, &BulkRef { offset: 7, len: 9 });
        assert_eq!(
            m.read_struct::<BulkRef>(shm::BULK_REPLY),
            BulkRef { offset: 7, len: 9 }
        );
        let f = [1.5f32, -2.0];
        let r = m
            .bulk_writer(shm::BULK_DATA)
            .push(&f.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<_>>());
        assert_eq!(m.read_f32s(r), f);
        assert!(
            m.read_bytes(BulkRef {
                offset: u32::MAX,
                len: 10
            })
            .is_empty()
        );
    }

    #[test]
    fn command_without_peer_times_out() {
        let m = SharedMemory::create().unwrap();
        let t = Instant::now();
        assert!(matches!(
            m.command(0, shm::CMD_CONTINUE, Duration::from_millis(50)),
            Err(ShmError::Timeout)
        ));
        assert!(t.elapsed() < Duration::from_secs(2));
        assert!(
            m.command(shm::MAX_SLOTS, shm::CMD_CONTINUE, Duration::from_millis(50))
                .is_err()
        );
    }

    /// A thread of this process plays the preload on slot 5.
    fn fake_preload(m: Arc<SharedMemory>) -> std::thread::JoinHandle<Vec<u32>> {
        std::thread::spawn(move || {
            let h = m.header();
            let s = &h.slots[5];
            s.tid.store(4242, Relaxed);
            let mut seen = s.done_seq.load(Relaxed);
            s.function.store(7, Relaxed);
            s.arg_count.store(2, Relaxed);
            s.args[0].store(10, Relaxed);
            s.args[1].store(20, Relaxed);
            s.call_number.store(99, Relaxed);
            s.stop_id.store(3, Relaxed);
            s.state.store(shm::STATE_STOPPED, Release);
            h.stop_seq.fetch_add(1, Release);
            wake(&h.stop_seq);
            let mut got = Vec::new();
            loop {
                wait_while(
                    &s.command_seq,
                    &s.app_sleeping,
                    seen,
                    Instant::now() + Duration::from_secs(10),
                    SPIN,
                );
                seen = s.command_seq.load(Acquire);
                let cmd = s.command.load(Acquire);
                let ack = |st: u32| {
                    s.status.store(st, Relaxed);
                    s.done_seq.store(seen, Release);
                    wake(&s.done_seq);
                };
                if s.command_stop.load(Relaxed) != 3 {
                    ack(shm::STATUS_STALE_STOP);
                    continue;
                }
                got.push(cmd);
                match cmd {
                    shm::CMD_FINISH => {
                        let sum = s.args[0].load(Relaxed) + s.args[1].load(Relaxed);
                        s.ret.store(sum, Relaxed);
                        s.state.store(shm::STATE_RETURNED, Release);
                        h.stop_seq.fetch_add(1, Release);
                        wake(&h.stop_seq);
                        ack(shm::STATUS_OK);
                    }
                    shm::CMD_CONTINUE => {
                        s.state.store(shm::STATE_RUNNING, Release);
                        ack(shm::STATUS_OK);
                        return got;
                    }
                    _ => ack(shm::STATUS_UNKNOWN_COMMAND),
                }
            }
        })
    }

    #[test]
    fn command_handshake_with_a_peer_thread() {
        let m = Arc::new(SharedMemory::create().unwrap());
        let seen = m.header().stop_seq.load(Acquire);
        let peer = fake_preload(m.clone());
        let now = m.wait_stop_seq(seen, Duration::from_secs(10));
        assert_ne!(now, seen);
        let stops = m.stopped();
        assert_eq!(stops.len(), 1);
        let c = &stops[0];
        assert_eq!(
            (c.slot, c.tid, c.state, c.function, c.call_number),
            (5, 4242, shm::STATE_STOPPED, 7, 99)
        );
        assert_eq!(c.args, [10, 20]);
        assert_eq!(c.stop_id, 3);
        assert!(m.is_stopped_at(5, 3));
        assert!(!m.is_stopped_at(5, 2));
        // A command for an earlier stop is refused at once, not run.
        assert!(matches!(
            m.command_at(5, 2, shm::CMD_CONTINUE, Duration::from_secs(10)),
            Err(ShmError::Stale)
        ));
        m.set_arg(5, 1, 32);
        assert_eq!(
            m.command(5, 77, Duration::from_secs(10)).unwrap(),
            shm::STATUS_UNKNOWN_COMMAND
        );
        assert_eq!(
            m.command(5, shm::CMD_FINISH, Duration::from_secs(10))
                .unwrap(),
            shm::STATUS_OK
        );
        let c = &m.stopped()[0];
        assert_eq!((c.state, c.ret), (shm::STATE_RETURNED, 42));
        assert!(!m.is_stopped_at(5, 3), "executed: not a stop to take");
        assert_eq!(
            m.command_at(5, 3, shm::CMD_CONTINUE, Duration::from_secs(10))
                .unwrap(),
            shm::STATUS_OK
        );
        assert!(m.stopped().is_empty());
        assert_eq!(
            peer.join().unwrap(),
            [77, shm::CMD_FINISH, shm::CMD_CONTINUE]
        );
    }
}
