//! The fast path test and the stop protocol (`gldbg_proto::shm` module docs).
//!
//! Fast path, every wrapped call: bump a per-thread call counter (it gives
//! `Slot::call_number`; `thread_calls.rs` says why it is not a `thread_local!`),
//! one relaxed load of the header pointer, one relaxed load of the
//! breakpoint word and one bit test. No lock, no syscall, no allocation.
//!
//! Single-stepping (`Header::step_all`) costs the fast path nothing: the
//! daemon implements it by setting every breakpoint word to `!0` while
//! stepping and restoring the user's bits afterwards, so the wrappers never
//! read `step_all`.
//!
//! Slow path ([`slow`]): claim this thread's slot, publish the call under a
//! new stop id, wait for commands on a shared futex with a 100 ms timeout,
//! checking on each timeout that the daemon lives (if it is gone:
//! pass-through for good). A command for another stop id is answered
//! `STATUS_STALE_STOP` (`Commands`).
//!
//! `CMD_CONTINUE` is acknowledged once the slot says `STATE_IN_CALL`, before
//! the call runs: a call may block for long (swap, finish, a lock of the
//! app), and a crash inside it is then seen as a crash in that call.

use crate::generated::{CLASS, invoke};
use core::cell::Cell;
use core::sync::atomic::Ordering::{Acquire, Relaxed, Release, SeqCst};
use core::sync::atomic::{AtomicU32, fence};
use gldbg_proto::api::class;
use gldbg_proto::shm::{self, Header, Slot};
use rustix::thread::futex;

thread_local! {
    /// Set while this thread is inside a stop (nested wrapper calls made by
    /// the driver or the executor never stop again).
    static IN_STOP: Cell<bool> = const { Cell::new(false) };
    /// Index of this thread's claimed slot (`u32::MAX`: none yet).
    static SLOT: Cell<u32> = const { Cell::new(u32::MAX) };
    /// Frees the slot when the thread exits.
    static SLOT_GUARD: SlotGuard = const { SlotGuard };
}

struct SlotGuard;
impl Drop for SlotGuard {
    fn drop(&mut self) {
        let idx = SLOT.try_with(|s| s.get()).unwrap_or(u32::MAX);
        if let (Some(h), true) = (crate::session::session(), (idx as usize) < shm::MAX_SLOTS) {
            let s = &h.slots[idx as usize];
            s.state.store(shm::STATE_RUNNING, Relaxed);
            s.tid.store(0, Release);
        }
    }
}

/// Whether function `id`'s breakpoint bit is set (fast path).
#[inline(always)]
pub fn hit(id: u32) -> bool {
    let word = crate::session::header().breakpoints[(id >> 6) as usize].load(Relaxed);
    (word >> (id & 63)) & 1 != 0
}

/// [`hit`] for a call that waits for the GPU (`class::GPU_SYNC`): also
/// while memcheck's armed runs wait to be read (read there, [`slow`]).
#[inline(always)]
pub fn hit_or_reads(id: u32) -> bool {
    hit(id) || crate::replay::memcheck_armed::runs_waiting()
}

/// Execute the real call (or the hook standing in for it).
fn execute(id: u32, args: &[u64]) -> u64 {
    if CLASS[id as usize] & class::HOOKED != 0 {
        crate::intercept::hooks::call(id, args)
    } else {
        // SAFETY: `args` are the app's own arguments of this call (possibly
        // edited by the debugger user, who takes responsibility for them).
        unsafe { invoke(id, args) }
    }
}

/// The slow path of every wrapper: stop if a session is attached, then
/// execute the call as the daemon commands. Returns the call's result word.
///
/// While an error breakpoint exists (`Header::check_errors`), every call
/// comes here: it stops before the call only if its `stop_bits` bit is set,
/// and after a GL call it asks the real `glGetError`; an error is held for
/// the app (the `glGetError` hook hands it back first, unchanged) and the
/// thread stops after the call with `Slot::error` set.
#[inline(never)]
#[cold]
pub fn slow(id: u32, args: &mut [u64]) -> u64 {
    let Some(h) = crate::session::session_or_claim() else {
        return execute(id, args);
    };
    if IN_STOP.with(|f| f.replace(true)) {
        return execute(id, args);
    }
    let checking = h.check_errors.load(Acquire) != 0 && checks_errors(id);
    let stop_first = !checking || {
        let word = h.stop_bits[(id >> 6) as usize].load(Relaxed);
        (word >> (id & 63)) & 1 != 0
    };
    let slot = claim_slot(h);
    if CLASS[id as usize] & class::SHADER_RECORD != 0 {
        crate::replay::memcheck_arm::disarm_all();
    }
    let mut r = match slot {
        Some(slot) if stop_first => stop_or_check(h, slot, id, args),
        _ => execute(id, args),
    };
    if CLASS[id as usize] & class::SHADER_RECORD != 0 {
        // Another thread may have armed a program while this call waited
        // at its stop: it has run now.
        crate::replay::memcheck_arm::disarm_all();
    }
    if checking
        && let (Some(slot), Some(h)) = (slot, crate::session::session())
        && let Some(e) = crate::intercept::errors::take_new_error()
    {
        r = stop(h, slot, id, args, Some((r, e)), false);
    }
    IN_STOP.with(|f| f.set(false));
    r
}

/// A call that stops before it runs, unless memcheck has its program
/// armed (`replay::memcheck_armed`): then it runs checked without a stop.
/// What earlier armed runs found (read here: waiting for them, but not at
/// a dispatch) makes this call stop for the daemon to take it.
fn stop_or_check(h: &'static Header, slot: &'static Slot, id: u32, args: &mut [u64]) -> u64 {
    use crate::replay::memcheck_armed::{Outcome, resolve, try_run};
    if !hit(id) {
        // Here only to read armed runs (`hit_or_reads`): the app waits
        // for the GPU anyway. What they found stops the call.
        return match resolve(true) {
            true => stop(h, slot, id, args, None, true),
            false => execute(id, args),
        };
    }
    let dispatch = CLASS[id as usize] & class::DISPATCH != 0;
    if resolve(!dispatch) {
        return stop(h, slot, id, args, None, true);
    }
    match try_run(id, args) {
        Outcome::No => stop(h, slot, id, args, None, false),
        Outcome::Ran => 0,
    }
}

/// Whether an error breakpoint looks at calls of `id`: GL functions, except
/// `glGetError` itself (window-system calls may run without a context).
fn checks_errors(id: u32) -> bool {
    CLASS[id as usize] & class::GET_ERROR == 0
        && gldbg_proto::api::FUNCTIONS
            .get(id as usize)
            .is_some_and(|f| f.api == gldbg_proto::api::Api::Gl)
}

fn claim_slot(h: &'static Header) -> Option<&'static Slot> {
    let idx = SLOT.with(|s| s.get());
    if (idx as usize) < shm::MAX_SLOTS {
        return Some(&h.slots[idx as usize]);
    }
    let tid = rustix::thread::gettid().as_raw_nonzero().get() as u32;
    for (i, s) in h.slots.iter().enumerate() {
        if s.tid.compare_exchange(0, tid, Acquire, Relaxed).is_ok() {
            SLOT.with(|c| c.set(i as u32));
            // Register the exit-time release (lazy TLS destructor).
            SLOT_GUARD.with(|_| {});
            return Some(s);
        }
    }
    static WARNED: AtomicU32 = AtomicU32::new(0);
    if WARNED.swap(1, Relaxed) == 0 {
        crate::log(format_args!(
            "all {} call slots are taken; this thread runs without stops",
            shm::MAX_SLOTS
        ));
    }
    None
}

/// Wake the sleepers on `word` if any announced themselves (shm module
/// docs, point 7); `word` was just stored with `SeqCst`.
fn wake_if(word: &AtomicU32, sleepers: &AtomicU32) {
    if sleepers.load(SeqCst) != 0 {
        let _ = futex::wake(word, futex::Flags::empty(), i32::MAX as u32);
    }
}

fn ack(slot: &Slot, seq: u32, status: u32) {
    slot.status.store(status, Relaxed);
    slot.done_seq.store(seq, SeqCst);
    wake_if(&slot.done_seq, &slot.daemon_sleeping);
}

/// One stop's side of the command handshake (shm module docs, points 7
/// and 8): which stop this is and the last command sequence handled.
struct Commands<'a> {
    h: &'a Header,
    slot: &'a Slot,
    /// This stop's `Slot::stop_id`.
    id: u32,
    /// The last `command_seq` taken (acknowledged, or being run).
    seen: u32,
}

impl<'a> Commands<'a> {
    /// Announce the stop whose call the slot now holds: a new stop id,
    /// `STATE_STOPPED`, a `stop_seq` bump. Commands are awaited from the
    /// last sequence this slot acknowledged, not from `command_seq` as it
    /// is now: a command posted while the thread ran (meant for an earlier
    /// stop) must be answered, not silently counted as seen.
    fn publish(h: &'a Header, slot: &'a Slot) -> Self {
        let id = match slot.stop_id.load(Relaxed).wrapping_add(1) {
            0 => 1,
            id => id,
        };
        slot.stop_id.store(id, Relaxed);
        slot.state.store(shm::STATE_STOPPED, Release);
        bump_stop_seq(h);
        Commands {
            h,
            slot,
            id,
            seen: slot.done_seq.load(Relaxed),
        }
    }

    /// Wait for the next command meant for this stop and return it; a
    /// command naming another stop is answered `STATUS_STALE_STOP` here.
    /// None: the daemon is gone.
    fn next(&mut self) -> Option<u32> {
        let slot = self.slot;
        let timeout = rustix::time::Timespec {
            tv_sec: 0,
            tv_nsec: 100_000_000,
        };
        loop {
            let mut cur = slot.command_seq.load(Acquire);
            if cur == self.seen {
                let micros = self.h.spin_us.load(Relaxed).max(SPIN_US);
                cur = spin_while(&slot.command_seq, self.seen, micros);
            }
            if cur == self.seen {
                slot.app_sleeping.store(1, SeqCst);
                let slept = if slot.command_seq.load(SeqCst) == self.seen {
                    futex::wait(
                        &slot.command_seq,
                        futex::Flags::empty(),
                        self.seen,
                        Some(&timeout),
                    )
                } else {
                    Ok(())
                };
                slot.app_sleeping.store(0, Relaxed);
                if let Err(rustix::io::Errno::TIMEDOUT) = slept
                    && daemon_dead(self.h.daemon_pid)
                {
                    return None;
                }
                continue;
            }
            // `command` and `command_stop` were stored before the sequence
            // (its Acquire load above).
            self.seen = cur;
            if slot.command_stop.load(Relaxed) != self.id {
                ack(slot, cur, shm::STATUS_STALE_STOP);
                continue;
            }
            return Some(slot.command.load(Relaxed));
        }
    }

    /// Acknowledge the command last returned by `next`.
    fn ack(&self, status: u32) {
        ack(self.slot, self.seen, status);
    }
}

/// How long a stopped thread spins for a command before it sleeps, unless
/// the daemon asks for longer (`Header::spin_us`, set in its step loops).
const SPIN_US: u32 = 10;

/// Spin up to `micros` µs while `word == val` (the daemon answers a stop
/// at once when it steps; a futex sleep and wake-up costs more); returns
/// the word's value. The spin yields the CPU between rounds: on a loaded
/// machine the daemon may be waiting for this very CPU, and a pure spin
/// made each `step N` hand-off cost the whole spin (1.4 ms instead of
/// 0.1 ms on two busy cores); with idle CPUs the yield returns at once.
fn spin_while(word: &AtomicU32, val: u32, micros: u32) -> u32 {
    let limit = std::time::Duration::from_micros(micros.into());
    let start = std::time::Instant::now();
    loop {
        for _ in 0..64 {
            let v = word.load(Acquire);
            if v != val {
                return v;
            }
            std::hint::spin_loop();
        }
        if start.elapsed() >= limit {
            return word.load(Acquire);
        }
        std::thread::yield_now();
    }
}

fn bump_stop_seq(h: &Header) {
    h.stop_seq.fetch_add(1, SeqCst);
    wake_if(&h.stop_seq, &h.stop_sleepers);
}

/// Whether the daemon process is gone: no such process, a zombie, or its
/// pid now belongs to a process started at another time (pid reuse).
fn daemon_dead(pid: u32) -> bool {
    let Some(p) = rustix::process::Pid::from_raw(pid as i32) else {
        return false;
    };
    if let Err(rustix::io::Errno::SRCH) = rustix::process::test_kill_process(p) {
        return true;
    }
    match crate::session::proc_stat(pid) {
        Some((state, start)) => {
            let known = crate::session::daemon_start_time();
            state == b'Z' || state == b'X' || (known != 0 && start != known)
        }
        None => false,
    }
}

fn read_args(slot: &Slot, args: &mut [u64]) {
    for (i, a) in args.iter_mut().enumerate() {
        *a = slot.args[i].load(Relaxed);
    }
}

/// Run a command of ours (`replay::run_command`). The debug steps replay
/// the call with its current (possibly edited) arguments; the others
/// (queries, release, an unknown command) leave the call's arguments alone.
fn run_ours(slot: &Slot, cmd: u32, id: u32, args: &mut [u64]) -> u32 {
    if matches!(
        cmd,
        shm::CMD_FRAGMENT_STEP | shm::CMD_VERTEX_STEP | shm::CMD_COMPUTE_STEP
    ) {
        read_args(slot, args);
    }
    crate::replay::run_command(cmd, id, args)
}

/// Publish the call and run the daemon's commands until it lets the thread
/// go. `after`: the call was already executed (result, GL error raised):
/// an error-breakpoint stop after the call. `memcheck_ran`: findings of
/// earlier armed memcheck runs wait here for the daemon.
fn stop(
    h: &'static Header,
    slot: &'static Slot,
    id: u32,
    args: &mut [u64],
    after: Option<(u64, u32)>,
    memcheck_ran: bool,
) -> u64 {
    // The last stop ended with a store to `state`; a daemon that reads
    // this stop's fields must then see that store too (its snapshot
    // re-checks `state` and `stop_id` after reading them).
    fence(Release);
    slot.function.store(id, Relaxed);
    slot.arg_count.store(args.len() as u32, Relaxed);
    for (i, a) in args.iter().enumerate() {
        slot.args[i].store(*a, Relaxed);
    }
    slot.ret.store(after.map_or(0, |a| a.0), Relaxed);
    slot.error.store(after.map_or(0, |a| a.1), Relaxed);
    slot.memcheck_ran.store(u32::from(memcheck_ran), Relaxed);
    let not_drawn =
        CLASS[id as usize] & class::DRAW != 0 && !crate::intercept::lists::draws(id, args);
    slot.not_drawn.store(not_drawn as u32, Relaxed);
    slot.call_number
        .store(crate::thread_calls::count(), Relaxed);
    slot.context
        .store(crate::intercept::context::current_context(), Relaxed);
    let mut cmds = Commands::publish(h, slot);

    let mut ret = after.map_or(0, |a| a.0);
    let mut returned = after.is_some();
    loop {
        let Some(cmd) = cmds.next() else {
            crate::session::detach();
            slot.state.store(shm::STATE_RUNNING, Release);
            return if returned { ret } else { execute(id, args) };
        };
        match cmd {
            shm::CMD_CONTINUE => {
                if returned {
                    slot.state.store(shm::STATE_RUNNING, Release);
                    cmds.ack(shm::STATUS_OK);
                    return ret;
                }
                read_args(slot, args);
                slot.state.store(shm::STATE_IN_CALL, Release);
                // Acknowledged before executing: the call may block for long
                // (swap, finish); a crash inside it shows as STATE_IN_CALL.
                cmds.ack(shm::STATUS_OK);
                let r = execute(id, args);
                slot.state.store(shm::STATE_RUNNING, Release);
                return r;
            }
            shm::CMD_SKIP => {
                slot.state.store(shm::STATE_RUNNING, Release);
                cmds.ack(shm::STATUS_OK);
                return if returned { ret } else { 0 };
            }
            shm::CMD_FINISH => {
                if !returned {
                    read_args(slot, args);
                    slot.state.store(shm::STATE_IN_CALL, Release);
                    ret = execute(id, args);
                    returned = true;
                    slot.ret.store(ret, Relaxed);
                }
                slot.state.store(shm::STATE_RETURNED, Release);
                bump_stop_seq(h);
                cmds.ack(shm::STATUS_OK);
            }
            // Our GL work on this thread (`replay`): debug steps, queries,
            // releasing our objects.
            cmd => cmds.ack(run_ours(slot, cmd, id, args)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// A zeroed header of this process (the daemon's side played by the test).
    fn header() -> &'static Header {
        let layout = std::alloc::Layout::new::<Header>();
        // SAFETY: a fresh zeroed allocation of a Header's layout, leaked;
        // all-zero bytes are a valid Header (integers and atomics).
        unsafe { &*std::alloc::alloc_zeroed(layout).cast::<Header>() }
    }

    /// The daemon's half of posting a command (debugd's `command_at`).
    fn post(slot: &Slot, stop: u32, cmd: u32) -> u32 {
        slot.command.store(cmd, Relaxed);
        slot.command_stop.store(stop, Relaxed);
        let seq = slot.command_seq.fetch_add(1, SeqCst).wrapping_add(1);
        wake_if(&slot.command_seq, &slot.app_sleeping);
        seq
    }

    fn wait_done(slot: &Slot, seq: u32) -> bool {
        let t = Instant::now();
        while slot.done_seq.load(Acquire) != seq {
            if t.elapsed() > Duration::from_secs(10) {
                return false;
            }
            std::thread::sleep(Duration::from_micros(50));
        }
        true
    }

    #[test]
    fn only_the_steps_take_the_edited_arguments() {
        let h = header();
        let slot = &h.slots[5];
        slot.args[0].store(7, Relaxed);
        slot.args[1].store(8, Relaxed);
        let mut args = [1u64, 2];
        let unknown = shm::CMD_RELEASE + 100;
        assert_eq!(
            run_ours(slot, unknown, 0, &mut args),
            shm::STATUS_UNKNOWN_COMMAND
        );
        assert_eq!(args, [1, 2]);
    }

    #[test]
    fn stop_ids_are_new_at_every_stop_and_never_zero() {
        let h = header();
        let slot = &h.slots[3];
        let a = Commands::publish(h, slot).id;
        let b = Commands::publish(h, slot).id;
        assert_eq!((a, b), (1, 2));
        assert_eq!(slot.state.load(Relaxed), shm::STATE_STOPPED);
        assert_eq!(h.stop_seq.load(Relaxed), 2);
        slot.stop_id.store(u32::MAX, Relaxed);
        assert_eq!(Commands::publish(h, slot).id, 1);
    }

    /// The lost command of `step N`: the daemon posts a command for a stop
    /// the thread has left (it runs between two stops). At the next stop
    /// that command is answered STATUS_STALE_STOP (the daemon's waiter
    /// returns at once) and the command meant for the new stop is taken.
    /// Taking `command_seq` as seen at the new stop swallowed the stale
    /// command: the daemon waited 10 s for its acknowledgement.
    #[test]
    fn a_command_posted_between_stops_is_answered_stale() {
        let h = header();
        let slot = &h.slots[0];
        let mut first = Commands::publish(h, slot);
        let seq = post(slot, first.id, shm::CMD_CONTINUE);
        assert_eq!(first.next(), Some(shm::CMD_CONTINUE));
        first.ack(shm::STATUS_OK);
        assert_eq!(slot.done_seq.load(Relaxed), seq);
        // Running the call: a command for the stop just left arrives.
        let stale = post(slot, first.id, shm::CMD_CONTINUE);
        let mut second = Commands::publish(h, slot);
        assert_ne!(second.id, first.id);
        let daemon = std::thread::spawn(move || {
            let answered = wait_done(slot, stale);
            let status = slot.status.load(Relaxed);
            // Release the stop either way, so a failure cannot hang the test.
            post(slot, 2, shm::CMD_SKIP);
            (answered, status)
        });
        assert_eq!(second.next(), Some(shm::CMD_SKIP));
        let (answered, status) = daemon.join().unwrap();
        assert!(answered, "the stale command was never acknowledged");
        assert_eq!(status, shm::STATUS_STALE_STOP);
        second.ack(shm::STATUS_OK);
        assert_eq!(slot.done_seq.load(Relaxed), stale + 1);
    }

    /// Many stops handed to a peer thread playing the daemon, each with one
    /// command for it (spinning and sleeping sides): none lost, none stale.
    #[test]
    fn stop_and_command_hand_offs() {
        let h = header();
        let slot = &h.slots[1];
        const STOPS: u32 = 20_000;
        let daemon = std::thread::spawn(move || {
            let mut taken = 0;
            let mut last = 0;
            while taken < STOPS {
                let id = slot.stop_id.load(Acquire);
                if slot.state.load(Acquire) != shm::STATE_STOPPED || id == last {
                    std::thread::yield_now();
                    continue;
                }
                if taken % 1000 == 999 {
                    // Now and then late: the thread sleeps on the futex.
                    std::thread::sleep(Duration::from_millis(1));
                }
                last = id;
                let seq = post(slot, id, shm::CMD_CONTINUE);
                assert!(wait_done(slot, seq), "stop {taken}: no acknowledgement");
                assert_eq!(slot.status.load(Relaxed), shm::STATUS_OK);
                taken += 1;
            }
        });
        for _ in 0..STOPS {
            let mut c = Commands::publish(h, slot);
            assert_eq!(c.next(), Some(shm::CMD_CONTINUE));
            slot.state.store(shm::STATE_IN_CALL, Release);
            c.ack(shm::STATUS_OK);
            slot.state.store(shm::STATE_RUNNING, Release);
        }
        daemon.join().unwrap();
    }

    #[test]
    fn proc_stat_of_self_and_liveness() {
        let me = std::process::id();
        let (state, start) = crate::session::proc_stat(me).unwrap();
        assert!(matches!(state, b'R' | b'S'), "{}", state as char);
        assert!(start > 0);
        assert_eq!(crate::session::proc_stat(me).unwrap().1, start);
        assert!(!daemon_dead(me));
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let pid = gone.id();
        gone.wait().unwrap();
        assert!(daemon_dead(pid));
        // A zombie (exited, not reaped) is dead too.
        let mut zombie = std::process::Command::new("true").spawn().unwrap();
        let t = std::time::Instant::now();
        while crate::session::proc_stat(zombie.id()).is_some_and(|(s, _)| s != b'Z')
            && t.elapsed().as_secs() < 10
        {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert!(daemon_dead(zombie.id()));
        zombie.wait().unwrap();
    }
}
