//! Loader interception: the exported `dlopen`.
//!
//! An app that `dlopen`s a GL library (`libGL.so*`, `libGLX.so*`,
//! `libOpenGL.so*`, `libEGL.so*`, `libGLES*.so*`) and then `dlsym`s entry
//! points gets the preload's own handle, so `dlsym` finds our wrappers. The
//! requested library is still really loaded (same flags) and its handle kept
//! for resolving real functions. A `dlopen` made from inside a GL library
//! (libglvnd loading its vendor libraries) and every other `dlopen` go to the
//! real one by a tail jump, so the real `dlopen` sees the original caller
//! (RUNPATH, `$ORIGIN` and namespaces behave as without us).
//!
//! `dlsym` is deliberately not exported (libglvnd's `__glx_Main`/`__egl_Main`
//! lookups must reach the real objects).

use core::ffi::{CStr, c_char, c_int, c_void};
use core::ptr::null_mut;
use core::sync::atomic::{AtomicPtr, AtomicUsize, Ordering::Relaxed};

/// The real `dlopen` (from `dlsym(RTLD_NEXT)`), 0 until first needed.
static REAL_DLOPEN: AtomicUsize = AtomicUsize::new(0);

/// Handles of GL libraries the app loaded through our `dlopen`.
static APP_HANDLES: [AtomicPtr<c_void>; 8] = [const { AtomicPtr::new(null_mut()) }; 8];

fn real_dlopen_addr() -> usize {
    let cur = REAL_DLOPEN.load(Relaxed);
    if cur != 0 {
        return cur;
    }
    // SAFETY: RTLD_NEXT lookup of a libc symbol with a NUL-terminated name.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, c"dlopen".as_ptr()) } as usize;
    REAL_DLOPEN.store(p, Relaxed);
    p
}

/// Call the real `dlopen` (never our interception).
pub fn real_dlopen(filename: &CStr, flags: c_int) -> *mut c_void {
    // SAFETY: a NUL-terminated name.
    unsafe { real_dlopen_raw(filename.as_ptr(), flags) }
}

/// # Safety
/// `filename` is null or NUL-terminated.
unsafe fn real_dlopen_raw(filename: *const c_char, flags: c_int) -> *mut c_void {
    let f = real_dlopen_addr();
    if f == 0 {
        return null_mut();
    }
    // SAFETY: `f` is libc's dlopen; the caller vouches for `filename`.
    unsafe {
        let f: unsafe extern "C" fn(*const c_char, c_int) -> *mut c_void = core::mem::transmute(f);
        f(filename, flags)
    }
}

/// Handles the app got for GL libraries (for resolution).
pub fn app_handles() -> impl Iterator<Item = *mut c_void> {
    APP_HANDLES
        .iter()
        .map(|h| h.load(Relaxed))
        .take_while(|h| !h.is_null())
}

fn keep_handle(h: *mut c_void) {
    for slot in &APP_HANDLES {
        match slot.compare_exchange(null_mut(), h, Relaxed, Relaxed) {
            Ok(_) => return,
            Err(cur) if cur == h => return,
            Err(_) => {}
        }
    }
}

fn basename(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&c| c == b'/') {
        Some(i) => &path[i + 1..],
        None => path,
    }
}

/// Whether a library file name is one of the GL client libraries we stand in for.
pub fn is_gl_library_name(path: &[u8]) -> bool {
    let b = basename(path);
    let so = |prefix: &[u8]| b.starts_with(prefix);
    so(b"libGL.so")
        || so(b"libGLX.so")
        || so(b"libOpenGL.so")
        || so(b"libEGL.so")
        || (b.starts_with(b"libGLES") && b.windows(3).any(|w| w == b".so"))
}

/// Whether an object (by file name) belongs to a GL implementation or libglvnd.
/// (App-side helpers such as libGLU, libGLEW or libglfw are not: their
/// `dlopen`s of libGL are the app's.)
fn is_gl_implementation(path: &[u8]) -> bool {
    let b = basename(path);
    is_gl_library_name(path)
        || b.starts_with(b"libGLX_")
        || b.starts_with(b"libEGL_")
        || b.starts_with(b"libGLdispatch")
        || b.starts_with(b"libgbm")
        || b.starts_with(b"libglapi")
        || b.windows(4).any(|w| w == b"mesa")
        || b.windows(6).any(|w| w == b"nvidia")
        || b.windows(4).any(|w| w == b"_dri")
}

/// File name of the object containing `addr` (empty if unknown).
fn object_of(addr: *const c_void) -> &'static [u8] {
    let mut info = core::mem::MaybeUninit::<libc::Dl_info>::zeroed();
    // SAFETY: dladdr only reads `addr` as a number and fills `info`.
    let ok = unsafe { libc::dladdr(addr, info.as_mut_ptr()) };
    // SAFETY: zero-initialised, filled by dladdr when ok != 0.
    let info = unsafe { info.assume_init() };
    if ok == 0 || info.dli_fname.is_null() {
        return b"";
    }
    // SAFETY: dli_fname is a NUL-terminated string owned by the loader for the object's lifetime.
    unsafe { CStr::from_ptr(info.dli_fname) }.to_bytes()
}

/// Decides, for the trampoline, whether a `dlopen` is ours (1) or the real one's (0).
extern "C" fn dlopen_filter(filename: *const c_char, caller: *const c_void) -> usize {
    real_dlopen_addr();
    if filename.is_null() {
        return 0;
    }
    // SAFETY: dlopen's contract: a non-null filename is a NUL-terminated string.
    let name = unsafe { CStr::from_ptr(filename) }.to_bytes();
    if !is_gl_library_name(name) {
        return 0;
    }
    if is_gl_implementation(object_of(caller)) {
        return 0;
    }
    1
}

/// `dlopen` of a GL library by the app: load it for real, hand back our own handle.
extern "C" fn dlopen_gl(filename: *const c_char, flags: c_int) -> *mut c_void {
    // SAFETY: the app's own dlopen arguments (the filter saw a non-null C string).
    let real = unsafe { real_dlopen_raw(filename, flags) };
    if real.is_null() {
        return real;
    }
    keep_handle(real);
    let own = object_of(dlopen_gl as *const c_void);
    let mut buf = [0u8; 4096];
    if own.is_empty() || own.len() >= buf.len() {
        return real;
    }
    buf[..own.len()].copy_from_slice(own);
    let Ok(own) = CStr::from_bytes_until_nul(&buf) else {
        return real;
    };
    let me = real_dlopen(own, libc::RTLD_LAZY | libc::RTLD_NOLOAD);
    if me.is_null() { real } else { me }
}

/// The exported `dlopen`: reads the caller's return address, asks
/// `dlopen_filter`, then tail-jumps to the real `dlopen` (stack untouched,
/// so it sees the app's caller) or to `dlopen_gl`.
///
/// # Safety
/// `dlopen`'s contract: `filename` is null or a NUL-terminated string.
#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void {
    core::arch::naked_asm!(
        "push rdi",
        "push rsi",
        "sub rsp, 8",
        "mov rsi, [rsp + 24]",
        "call {filter}",
        "add rsp, 8",
        "pop rsi",
        "pop rdi",
        "test rax, rax",
        "jnz 2f",
        "jmp qword ptr [rip + {real}]",
        "2:",
        "jmp {gl}",
        filter = sym dlopen_filter,
        real = sym REAL_DLOPEN,
        gl = sym dlopen_gl,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gl_names() {
        for n in [
            "libGL.so.1",
            "/usr/lib/x86_64-linux-gnu/libGL.so",
            "libEGL.so.1",
            "libGLESv2.so.2",
            "libOpenGL.so.0",
            "libGLX.so.0",
            "libGLESv1_CM.so.1",
        ] {
            assert!(is_gl_library_name(n.as_bytes()), "{n}");
        }
        for n in [
            "libGLX_mesa.so.0",
            "libEGL_mesa.so.0",
            "libGLdispatch.so.0",
            "libGLU.so.1",
            "libm.so.6",
        ] {
            assert!(!is_gl_library_name(n.as_bytes()), "{n}");
        }
        for n in [
            "/usr/lib/libGLX_mesa.so.0",
            "libEGL_nvidia.so.0",
            "libGLdispatch.so.0",
            "libGL.so.1",
            "swrast_dri.so",
            "libgbm.so.1",
        ] {
            assert!(is_gl_implementation(n.as_bytes()), "{n}");
        }
        for n in [
            "/usr/lib/libGLU.so.1",
            "libGLEW.so.2.2",
            "libSDL2-2.0.so.0",
            "/usr/bin/app",
            "",
        ] {
            assert!(!is_gl_implementation(n.as_bytes()), "{n}");
        }
    }
}
