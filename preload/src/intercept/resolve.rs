//! Real function pointers, resolved lazily, one atomic slot per function id.
//!
//! Order (DESIGN.md §3): a pointer learnt from a real GetProcAddress call of
//! the app; `dlsym(RTLD_NEXT)`; the handles of GL libraries the app
//! `dlopen`ed through us; an already loaded GL library of the function's API;
//! a `RTLD_DEEPBIND` load of that library; the real
//! `eglGetProcAddress`/`glXGetProcAddressARB`. A function nobody provides
//! resolves to a stub that returns 0 (as a missing GL entry point would be
//! harmless to call), logged once on stderr.
//!
//! Races are benign: two threads may resolve the same id; both store a valid
//! pointer.

use crate::generated::FUNCTION_COUNT;
use core::ffi::{CStr, c_char, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, AtomicU64, Ordering::Relaxed};
use gldbg_proto::api::FUNCTIONS;

/// A code address in a static table (`Sync` because it is never written).
#[derive(Clone, Copy)]
pub struct Addr(pub *const ());
// SAFETY: an immutable code address; sharing it between threads is harmless.
unsafe impl Sync for Addr {}

/// Real function pointers by function id (null = not resolved yet).
static PTRS: [AtomicPtr<c_void>; FUNCTION_COUNT] =
    [const { AtomicPtr::new(null_mut()) }; FUNCTION_COUNT];

/// The real function of `id` if already resolved, else null (the wrappers'
/// fast path: resolution happens on their cold path, through [`ptr`]).
#[inline(always)]
pub fn resolved(id: u32) -> *mut c_void {
    PTRS[id as usize].load(Relaxed)
}

/// The real function of `id` (resolved on first use; never null).
#[inline(always)]
pub fn ptr(id: u32) -> *mut c_void {
    let p = PTRS[id as usize].load(Relaxed);
    if !p.is_null() { p } else { resolve_slow(id) }
}

/// Whether `id` resolves to a real function (the zero stub does not count).
pub fn available(id: u32) -> bool {
    ptr(id) != missing_addr()
}

/// Remember a pointer the app's GetProcAddress call returned for `id`.
pub fn learn(id: u32, p: *mut c_void) {
    let slot = &PTRS[id as usize];
    let cur = slot.load(Relaxed);
    if !p.is_null() && (cur.is_null() || cur == missing_addr()) {
        slot.store(p, Relaxed);
    }
}

/// Per function id: 1 + the loaded-object generation at which
/// [`ptr_noload`] last found nothing (0: never missed).
static NOLOAD_MISSES: [AtomicU64; FUNCTION_COUNT] = [const { AtomicU64::new(0) }; FUNCTION_COUNT];

/// Resolve `id` without loading any library (for probing which window
/// system is in use); `None` if no loaded object provides it.
///
/// Called at every stop (which context is current?), so a miss is
/// remembered until another object is loaded: a failed lookup walks every
/// loaded object and costs tens of microseconds.
pub fn ptr_noload(id: u32) -> Option<*mut c_void> {
    let p = PTRS[id as usize].load(Relaxed);
    if !p.is_null() {
        return (p != missing_addr()).then_some(p);
    }
    let generation = loaded_objects_generation().wrapping_add(1);
    if NOLOAD_MISSES[id as usize].load(Relaxed) == generation {
        return None;
    }
    let name = FUNCTIONS[id as usize].name;
    let Some(p) = find_loaded(name) else {
        NOLOAD_MISSES[id as usize].store(generation, Relaxed);
        return None;
    };
    PTRS[id as usize].store(p, Relaxed);
    Some(p)
}

/// How many objects the dynamic loader has ever added (`dlpi_adds`): it
/// changes whenever a library is loaded.
fn loaded_objects_generation() -> u64 {
    unsafe extern "C" fn first(
        info: *mut libc::dl_phdr_info,
        _size: usize,
        out: *mut c_void,
    ) -> libc::c_int {
        // SAFETY: the loader passes a valid entry and our `out` (a u64).
        unsafe { *out.cast::<u64>() = (*info).dlpi_adds };
        1 // one entry is enough: every entry carries the same counter
    }
    let mut adds = 0u64;
    // SAFETY: the callback only reads the entry and writes our local.
    unsafe { libc::dl_iterate_phdr(Some(first), (&raw mut adds).cast()) };
    adds
}

#[cold]
#[inline(never)]
fn resolve_slow(id: u32) -> *mut c_void {
    let name = FUNCTIONS[id as usize].name;
    // What is loaded first: an EGL app then never gets libGL and libX11
    // loaded into it by us (address space it may not have, see bulk.rs).
    let p = find_loaded(name)
        .or_else(|| find_by_get_proc_address(id, name, false))
        .or_else(|| find_by_loading(name))
        .or_else(|| find_by_get_proc_address(id, name, true))
        .unwrap_or_else(|| {
            crate::log(format_args!(
                "no real function found for {name}; calls return 0"
            ));
            missing_addr()
        });
    PTRS[id as usize].store(p, Relaxed);
    p
}

/// NUL-terminated copy of a name on the stack.
struct CName([u8; 128]);
impl CName {
    fn new(name: &str) -> Option<CName> {
        let mut b = [0u8; 128];
        if name.len() >= b.len() {
            return None;
        }
        b[..name.len()].copy_from_slice(name.as_bytes());
        Some(CName(b))
    }
    fn as_ptr(&self) -> *const c_char {
        self.0.as_ptr().cast()
    }
}

/// `dlsym` on a handle; `None` for null results.
fn sym(handle: *mut c_void, name: &str) -> Option<*mut c_void> {
    let c = CName::new(name)?;
    // SAFETY: `c` is NUL-terminated; `handle` is RTLD_NEXT or a live dlopen handle.
    let p = unsafe { libc::dlsym(handle, c.as_ptr()) };
    (!p.is_null()).then_some(p)
}

/// Candidate real libraries for a function, by its name prefix.
fn libraries(name: &str) -> &'static [&'static CStr] {
    if name.starts_with("egl") {
        &[c"libEGL.so.1"]
    } else if name.starts_with("glX") {
        &[c"libGLX.so.0", c"libGL.so.1"]
    } else {
        &[
            c"libOpenGL.so.0",
            c"libGL.so.1",
            c"libGLESv2.so.2",
            c"libGLESv1_CM.so.1",
        ]
    }
}

fn find_loaded(name: &str) -> Option<*mut c_void> {
    if let Some(p) = sym(libc::RTLD_NEXT, name) {
        return Some(p);
    }
    for h in crate::intercept::loader::app_handles() {
        if let Some(p) = sym(h, name) {
            return Some(p);
        }
    }
    for lib in libraries(name) {
        let h = crate::intercept::loader::real_dlopen(lib, libc::RTLD_LAZY | libc::RTLD_NOLOAD);
        if !h.is_null()
            && let Some(p) = sym(h, name)
        {
            return Some(p);
        }
    }
    None
}

fn find_by_loading(name: &str) -> Option<*mut c_void> {
    for lib in libraries(name) {
        let h = crate::intercept::loader::real_dlopen(
            lib,
            libc::RTLD_LAZY | libc::RTLD_LOCAL | libc::RTLD_DEEPBIND,
        );
        if !h.is_null()
            && let Some(p) = sym(h, name)
        {
            return Some(p);
        }
    }
    None
}

/// `name` from a GetProcAddress already loaded, or (`load`) one loaded now.
fn find_by_get_proc_address(id: u32, name: &str, load: bool) -> Option<*mut c_void> {
    let c = CName::new(name)?;
    let candidates: &[&str] = if name.starts_with("egl") {
        &["eglGetProcAddress"]
    } else {
        &["glXGetProcAddressARB", "eglGetProcAddress"]
    };
    for gpa in candidates {
        let Some(gid) = gldbg_proto::api::function_id(gpa) else {
            continue;
        };
        if gid == id {
            return None;
        }
        // Only a GetProcAddress that is already loaded or loadable (no recursion into this one).
        let found = match load {
            false => find_loaded(gpa),
            true => find_by_loading(gpa),
        };
        let Some(f) = found else {
            continue;
        };
        // SAFETY: `f` is the real GetProcAddress: `void *(*)(const char *)`; `c` is NUL-terminated.
        let p = unsafe {
            let f: unsafe extern "C" fn(*const c_char) -> *mut c_void = core::mem::transmute(f);
            f(c.as_ptr())
        };
        if !p.is_null() {
            return Some(p);
        }
    }
    None
}

/// The stub every unresolvable function points to: returns 0 in the integer
/// and the floating-point return registers, ignores its arguments.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
extern "C" fn missing_stub() {
    core::arch::naked_asm!("xor eax, eax", "xor edx, edx", "xorps xmm0, xmm0", "ret");
}

#[cfg(target_arch = "aarch64")]
#[unsafe(naked)]
extern "C" fn missing_stub() {
    core::arch::naked_asm!("mov x0, #0", "mov x1, #0", "fmov d0, xzr", "ret");
}

fn missing_addr() -> *mut c_void {
    missing_stub as *const () as *mut c_void
}
