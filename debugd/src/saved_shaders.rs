//! Where rejected debug shaders go: the generated source and the driver's
//! log, written for the user to look at, into one [`PrivateDir`] per daemon
//! process (made on the first rejection). The directory is removed when the
//! [`Cleanup`] guard the binary holds is dropped (the daemon's end), unless
//! the user asked to keep the files (`--keep-debug-shaders` or
//! `GLDBG_KEEP_DEBUG_SHADERS=1`); then its path is printed.

use std::io;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::private_dir::PrivateDir;

/// The environment variable that keeps the saved shaders (any value but
/// empty or `0`).
pub const KEEP_ENV: &str = "GLDBG_KEEP_DEBUG_SHADERS";

static DIR: Mutex<Option<PrivateDir>> = Mutex::new(None);
static BASE: Mutex<Option<PathBuf>> = Mutex::new(None);
static KEEP: AtomicBool = AtomicBool::new(false);

/// Make the directory under `base` (a private directory of the caller's,
/// e.g. `gldbg run`'s, so that whatever removes that one on a fatal signal
/// removes the saved shaders too) instead of [`crate::private_dir::base_dir`].
pub fn set_base(base: PathBuf) {
    *BASE.lock().unwrap_or_else(|e| e.into_inner()) = Some(base);
}

/// Keep the saved shaders after the daemon ends.
pub fn set_keep(keep: bool) {
    KEEP.store(keep, Ordering::Relaxed);
}

/// `--keep-debug-shaders` given, or the environment asks for it.
pub fn keep_requested(flag: bool) -> bool {
    flag || std::env::var_os(KEEP_ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Whether the saved files outlive the daemon.
pub fn kept() -> bool {
    KEEP.load(Ordering::Relaxed)
}

/// Save one rejected shader's `source` (as `debug-N.EXT`) and `log` (as
/// `debug-N.log`); returns both paths.
pub fn save(n: u64, ext: &str, source: &str, log: &str) -> io::Result<(PathBuf, PathBuf)> {
    let mut dir = DIR.lock().unwrap_or_else(|e| e.into_inner());
    if dir.is_none() {
        let base = BASE.lock().unwrap_or_else(|e| e.into_inner()).clone();
        *dir = Some(match base {
            Some(base) => PrivateDir::create_in(&base, "gldbg-shaders")?,
            None => PrivateDir::create("gldbg-shaders")?,
        });
    }
    let dir = dir.as_ref().expect("created above");
    // Sessions of one process share the directory: a taken name gets a suffix.
    for k in 0..1000u32 {
        let stem = if k == 0 {
            format!("debug-{n}")
        } else {
            format!("debug-{n}-{k}")
        };
        match dir.write_new(&format!("{stem}.{ext}"), source.as_bytes()) {
            Ok(src) => return Ok((src, dir.write_new(&format!("{stem}.log"), log.as_bytes())?)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("no free name for debug-{n} in {}", dir.path().display()),
    ))
}

/// Ends the saved shaders' life with the daemon: on drop, removes their
/// directory, or, when kept, says where they are.
#[must_use = "the directory goes when the guard is dropped"]
pub struct Cleanup {
    _private: (),
}

impl Cleanup {
    /// The guard; `keep` as [`set_keep`].
    pub fn new(keep: bool) -> Cleanup {
        set_keep(keep);
        Cleanup { _private: () }
    }
}

impl Drop for Cleanup {
    fn drop(&mut self) {
        finish();
    }
}

/// Remove the directory now (or leave it and print its path when kept).
pub fn finish() {
    let taken = DIR.lock().unwrap_or_else(|e| e.into_inner()).take();
    if let Some(mut dir) = taken
        && kept()
    {
        dir.keep();
        eprintln!(
            "gldbg: rejected debug shaders kept in {}",
            dir.path().display()
        );
    }
}

/// How long the saved files live, for the message that names them.
pub fn lifetime_note() -> &'static str {
    if kept() {
        " (kept after the daemon exits)"
    } else {
        " (removed when the daemon exits unless it runs with --keep-debug-shaders)"
    }
}
