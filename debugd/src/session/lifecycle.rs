//! The ends of things: a Launch whose client went away (its app killed),
//! the app dying while a command to it is in flight (the command fails at
//! once rather than at its timeout), and the memory a draw's debugging
//! took (the probe cache, the shared memory's bulk pages, the heap) given
//! back when that debugging ends or the app exits.

use super::*;

impl Session {
    /// A Launch whose client went away before the app's first stop: kill
    /// the app it started (a cancelled request leaves no running app) and
    /// wait for its exit.
    pub(super) fn undo_launch(&self, id: u64) -> Error {
        self.kill_launch(id);
        Error::FailedPrecondition(
            "the Launch was cancelled by its client; the app it started was killed".into(),
        )
    }

    /// SIGKILL launch `id`'s app and wait (at most [`KILL_WAIT`]) for its exit.
    fn kill_launch(&self, id: u64) {
        let deadline = Instant::now() + KILL_WAIT;
        let mut c = self.control();
        if let Some(l) = c.launched.as_ref().filter(|l| l.id == id) {
            l.tracer.kill();
        }
        while c.launched.as_ref().is_some_and(|l| l.id == id) && Instant::now() < deadline {
            c = self
                .changed
                .wait_timeout(c, EXIT_POLL)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }

    /// The tracer saw launch `id`'s app end (`how`: "exited with code 3",
    /// "killed by SIGKILL"): a command waiting for the preload's answer
    /// (a probe, a program query) fails now with that reason.
    pub(super) fn app_ended(&self, id: u64, how: &str) {
        let c = self.control();
        if let Some(l) = c.launched.as_ref().filter(|l| l.id == id) {
            l.shm.app_gone(format!(
                "the app {how} before it answered the command (probe or query); \
                 launch it again"
            ));
        }
    }

    /// A child process of the launched one ended: when it is the process
    /// that claimed the session (a launcher script's app), commands
    /// waiting for it fail now, as at the app's exit.
    pub(super) fn process_ended(&self, id: u64, pid: u32, how: String) {
        let c = self.control();
        if let Some(l) = c.launched.as_ref().filter(|l| l.id == id)
            && pid != l.pid
            && app_pid(l) == pid
        {
            l.shm.app_gone(format!(
                "the app's GL process {pid} {how} before it answered the command \
                 (probe or query); kill the session and launch it again"
            ));
        }
    }

    /// After the app's exit: the shader debugging of its draws ends and
    /// its memory goes back (a later launch's debugging is left alone).
    pub(super) fn release_after_exit(&self) {
        let serial = self.control().stop_serial;
        let mut dbg = self.debug_lock();
        if dbg.as_ref().is_some_and(|d| d.stop_serial <= serial) {
            self.release_debug(&mut dbg, None, None);
            let mut c = self.control();
            if c.launched.is_none() {
                c.shader_stop = None;
            }
        }
        drop(dbg);
        trim_heap();
    }

    /// End the shader debugging in `dbg` (held under the debug lock) and
    /// give its memory back: the probe cache, the heap pages it freed,
    /// `shm`'s bulk pages past the request and reply areas (only debug
    /// steps write there, under the debug lock we hold), and with
    /// `gl_slot` (a thread stopped in the draw's context) the GL objects
    /// the preload kept for its steps. Returns whether a debugging ended.
    ///
    /// Never pass `gl_slot` with the control lock held: the preload's
    /// answer can take [`CMD_TIMEOUT`], and the app's death, which would end
    /// that wait, is noticed under the control lock ([`Self::app_ended`]).
    /// Callers holding it pass None and call [`release_gl`] after dropping it.
    pub(super) fn release_debug(
        &self,
        dbg: &mut Option<ShaderDebug>,
        shm: Option<&SharedMemory>,
        gl_slot: Option<usize>,
    ) -> bool {
        if dbg.take().is_none() {
            return false;
        }
        if let Some(shm) = shm {
            shm.release_bulk_data();
            if let Some(slot) = gl_slot {
                release_gl(shm, slot);
            }
        }
        trim_heap();
        true
    }
}

/// Ask the thread stopped in `slot` to delete the GL objects the preload
/// kept for a draw's debug steps. Best effort: a preload that cannot
/// release keeps its objects. Call it without the control lock.
pub(super) fn release_gl(shm: &SharedMemory, slot: usize) {
    let _ = shm.command(slot, abi::CMD_RELEASE, CMD_TIMEOUT);
}

/// How the heap serves the daemon's large buffers (once per process):
/// from 1 MiB up, each its own mapping, unmapped when freed. glibc's
/// default raises that threshold (to 32 MiB) as large blocks are freed, and
/// then a released probe cache (several MiB per 1080p probe) stays in the
/// allocator's arenas, which `malloc_trim` cannot shrink from the top.
pub(super) fn heap_policy() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: mallopt only changes glibc's allocation thresholds; every
        // block keeps working whichever way it was allocated.
        unsafe {
            libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
            libc::mallopt(libc::M_TRIM_THRESHOLD, 4 << 20);
        }
    });
}

/// Hand the heap's free pages back to the system.
fn trim_heap() {
    // SAFETY: malloc_trim only returns free memory of glibc's own arenas;
    // it touches no allocation in use.
    unsafe { libc::malloc_trim(0) };
}
