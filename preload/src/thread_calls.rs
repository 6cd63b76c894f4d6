//! Each app thread's call word (`gldbg_proto::shm::ThreadCalls`), in the
//! preload's static TLS: the count of GL calls the thread made (a stop's
//! `Slot::call_number`) and the last function it entered, written by every
//! wrapper's fast path; the daemon reads a crashing thread's word at
//! `Header::tls_offset` from its thread pointer (the wrappers tail-call the
//! real function: no stack frame names the call in flight).
//!
//! A `thread_local!` in a shared object uses the general-dynamic TLS model:
//! every wrapper called `__tls_get_addr` (and spilled its float arguments
//! around the call), about 3 ns of the fast path. The preload is always
//! loaded at start-up (`LD_PRELOAD`), so its TLS lives in the static TLS
//! block and the initial-exec model is valid: on x86-64 the word is in
//! `.tbss`, reached through its GOT offset from `%fs`, two
//! instructions. Stable Rust cannot ask for that model for a
//! `thread_local!`, hence the assembly; other targets keep `thread_local!`
//! (and publish no offset).

/// A wrapper's first act: count the call and name it as the thread's
/// last entered call.
#[inline(always)]
pub fn enter(id: u32) {
    imp::enter(id);
}

/// The per-thread count of GL calls (this call included).
#[inline(always)]
pub fn count() -> u64 {
    imp::get()
}

/// This thread's word's offset from the thread pointer, for
/// `Header::tls_offset` (0 where it is not published).
pub fn tls_offset() -> u64 {
    imp::tls_offset()
}

#[cfg(target_arch = "x86_64")]
mod imp {
    // One 16-byte TLS block (`ThreadCalls`: the count, then the last
    // entered function id + 1), hidden (not exported from the preload).
    core::arch::global_asm!(
        ".pushsection .tbss,\"awT\",@nobits",
        ".p2align 3",
        ".globl gldbg_thread_calls",
        ".hidden gldbg_thread_calls",
        ".type gldbg_thread_calls, @tls_object",
        ".size gldbg_thread_calls, 16",
        "gldbg_thread_calls:",
        ".zero 16",
        ".popsection",
    );

    #[inline(always)]
    pub fn enter(id: u32) {
        // SAFETY: `gldbg_thread_calls` is this thread's own 16-byte TLS
        // block (above); its %fs offset comes from the GOT (initial-exec
        // model, valid for a library loaded at start-up). Only the two
        // scratch registers and flags change.
        unsafe {
            core::arch::asm!(
                "mov {off}, qword ptr [rip + gldbg_thread_calls@GOTTPOFF]",
                "inc qword ptr fs:[{off}]",
                "mov dword ptr fs:[{off} + 8], {id:e}",
                off = out(reg) _,
                id = in(reg) id.wrapping_add(1),
                options(nostack),
            );
        }
    }

    /// The block's offset from `%fs` (negative: below the thread pointer).
    pub fn tls_offset() -> u64 {
        let off: u64;
        // SAFETY: reads the GOT entry the initial-exec model fills in.
        unsafe {
            core::arch::asm!(
                "mov {off}, qword ptr [rip + gldbg_thread_calls@GOTTPOFF]",
                off = out(reg) off,
                options(nostack, readonly, preserves_flags),
            );
        }
        off
    }

    #[inline(always)]
    pub fn get() -> u64 {
        let n: u64;
        // SAFETY: as in `enter`: a read of this thread's own TLS word.
        unsafe {
            core::arch::asm!(
                "mov {n}, qword ptr [rip + gldbg_thread_calls@GOTTPOFF]",
                "mov {n}, qword ptr fs:[{n}]",
                n = out(reg) n,
                options(nostack, readonly, preserves_flags),
            );
        }
        n
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod imp {
    use core::cell::Cell;

    thread_local! {
        static CALLS: Cell<u64> = const { Cell::new(0) };
    }

    #[inline(always)]
    pub fn bump() {
        CALLS.with(|c| c.set(c.get().wrapping_add(1)));
    }

    pub fn get() -> u64 {
        CALLS.with(|c| c.get())
    }

    #[inline(always)]
    pub fn enter(_id: u32) {
        bump();
    }

    pub fn tls_offset() -> u64 {
        0
    }
}
