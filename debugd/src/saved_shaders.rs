//! Where rejected debug shaders go: the generated source and the driver's
//! log, written for the user to look at, into one [`PrivateDir`] per
//! launched app (made on its first rejection, owned by its
//! [`SessionShaders`]). The directory is removed when that app's session
//! ends (exit, kill, detach, a new Launch) and, for whatever is left, when
//! the [`Cleanup`] guard the binary holds is dropped (the daemon's end),
//! unless the user asked to keep the files (`--keep-debug-shaders` or
//! `GLDBG_KEEP_DEBUG_SHADERS=1`); then its path is printed.

use std::io;
use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::private_dir::PrivateDir;

/// The environment variable that keeps the saved shaders (any value but
/// empty or `0`).
pub const KEEP_ENV: &str = "GLDBG_KEEP_DEBUG_SHADERS";

/// The directories of the live sessions, by [`SessionShaders`] key.
static DIRS: Mutex<Vec<(u64, PrivateDir)>> = Mutex::new(Vec::new());
static NEXT_KEY: AtomicU64 = AtomicU64::new(1);
static BASE: Mutex<Option<PathBuf>> = Mutex::new(None);
static KEEP: AtomicBool = AtomicBool::new(false);

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

/// The saved shaders of one launched app: its directory goes when this
/// is dropped (or is kept, and its path printed, when [`kept`]).
#[derive(Debug)]
pub struct SessionShaders {
    key: u64,
}

impl SessionShaders {
    /// A new session's owner; its directory is made on the first [`Self::save`].
    #[allow(clippy::new_without_default)]
    pub fn new() -> SessionShaders {
        SessionShaders {
            key: NEXT_KEY.fetch_add(1, Ordering::Relaxed),
        }
    }

    /// Save one rejected shader's `source` (as `debug-N.EXT`) and `log` (as
    /// `debug-N.log`); returns both paths.
    pub fn save(
        &self,
        n: u64,
        ext: &str,
        source: &str,
        log: &str,
    ) -> io::Result<(PathBuf, PathBuf)> {
        let mut dirs = DIRS.lock().unwrap_or_else(|e| e.into_inner());
        if !dirs.iter().any(|(k, _)| *k == self.key) {
            let base = BASE.lock().unwrap_or_else(|e| e.into_inner()).clone();
            let dir = match base {
                Some(base) => PrivateDir::create_in(&base, "gldbg-shaders")?,
                None => PrivateDir::create("gldbg-shaders")?,
            };
            dirs.push((self.key, dir));
        }
        let (_, dir) = dirs
            .iter()
            .find(|(k, _)| *k == self.key)
            .expect("made above");
        save_in(dir, n, ext, source, log)
    }

    /// The directory, once something was saved.
    pub fn dir(&self) -> Option<PathBuf> {
        let dirs = DIRS.lock().unwrap_or_else(|e| e.into_inner());
        dirs.iter()
            .find(|(k, _)| *k == self.key)
            .map(|(_, d)| d.path().to_path_buf())
    }
}

impl Drop for SessionShaders {
    fn drop(&mut self) {
        let taken = {
            let mut dirs = DIRS.lock().unwrap_or_else(|e| e.into_inner());
            dirs.iter()
                .position(|(k, _)| *k == self.key)
                .map(|i| dirs.remove(i).1)
        };
        if let Some(dir) = taken {
            end(dir);
        }
    }
}

/// A directory's end: removed, or kept with its path printed.
fn end(mut dir: PrivateDir) {
    if kept() {
        dir.keep();
        eprintln!(
            "gldbg: rejected debug shaders kept in {}",
            dir.path().display()
        );
    }
}

fn save_in(
    dir: &PrivateDir,
    n: u64,
    ext: &str,
    source: &str,
    log: &str,
) -> io::Result<(PathBuf, PathBuf)> {
    // A taken name gets a suffix.
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

/// Remove every session's directory now (or leave them and print their
/// paths when kept).
pub fn finish() {
    let taken = std::mem::take(&mut *DIRS.lock().unwrap_or_else(|e| e.into_inner()));
    for (_, dir) in taken {
        end(dir);
    }
}

/// How long the saved files live, for the message that names them.
pub fn lifetime_note() -> &'static str {
    if kept() {
        " (kept after the app's session ends)"
    } else {
        " (removed when the app's session ends unless the daemon runs with --keep-debug-shaders)"
    }
}
