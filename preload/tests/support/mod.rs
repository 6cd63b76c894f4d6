//! What the preload's integration tests share: the daemon's side of the
//! shared memory (`debugd/src/shm.rs` compiled in), the built preload (a
//! stale one refused), test apps from `tests/apps` started with it, and the
//! wait for a stop.

use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use gldbg_proto::shm as abi;

#[path = "../../../debugd/src/shm.rs"]
#[allow(dead_code)]
pub mod daemon_shm;

use daemon_shm::SharedMemory;

/// The fd the shared memory has in the app.
const CHILD_FD: i32 = 200;

/// The newest modification time under `dir`.
fn newest(dir: &Path) -> std::time::SystemTime {
    let mut t = std::time::UNIX_EPOCH;
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let m = e.metadata().unwrap();
        let here = match m.is_dir() {
            true => newest(&e.path()),
            false => m.modified().unwrap(),
        };
        t = t.max(here);
    }
    t
}

/// target/debug/libgldbg_preload.so, which must be newer than every
/// source file of the preload (`cargo test` does not rebuild the cdylib).
pub fn preload() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let p = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("libgldbg_preload.so");
    assert!(
        p.exists(),
        "{} missing: cargo build -p gldbg-preload first",
        p.display()
    );
    let built = std::fs::metadata(&p).and_then(|m| m.modified()).unwrap();
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    assert!(
        newest(&src) <= built,
        "{} is stale: cargo build -p gldbg-preload first",
        p.display()
    );
    p
}

/// Compile the test app `tests/apps/NAME.c` (once per name).
pub fn build_app(name: &str, args: &[&str]) -> PathBuf {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("tests/apps/{name}.c"));
    gldbg_tests::compile_c(&src, &format!("preload-{name}"), args)
}

/// `app` headless (EGL surfaceless, no shader cache), its stdout piped;
/// with the preload where `preload_on`, and `shm` handed to it.
pub fn command_for(app: PathBuf, shm: Option<&SharedMemory>, preload_on: bool) -> Command {
    let mut c = Command::new(app);
    c.env("MESA_SHADER_CACHE_DISABLE", "true")
        .env("EGL_PLATFORM", "surfaceless")
        .stdout(Stdio::piped());
    if preload_on {
        c.env("LD_PRELOAD", preload());
    }
    if let Some(m) = shm {
        hand_shm(&mut c, m);
    }
    c
}

/// Give the app started by `cmd` the shared memory `m` (the fd it names
/// in its environment).
pub fn hand_shm(cmd: &mut Command, m: &SharedMemory) {
    let fd = m.raw_fd();
    cmd.env(abi::ENV_FD, CHILD_FD.to_string());
    // SAFETY: only async-signal-safe dup2 between fork and exec.
    unsafe {
        cmd.pre_exec(move || {
            if libc::dup2(fd, CHILD_FD) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
}

/// Wait (up to `timeout`) until some slot is stopped at `function`.
pub fn wait_stop(m: &SharedMemory, function: u32, timeout: Duration) -> daemon_shm::StoppedCall {
    let start = Instant::now();
    let mut seen = m
        .header()
        .stop_seq
        .load(std::sync::atomic::Ordering::Acquire)
        .wrapping_sub(1);
    loop {
        if let Some(c) = m.stopped().into_iter().find(|c| c.function == function) {
            return c;
        }
        assert!(start.elapsed() < timeout, "no stop at function {function}");
        seen = m.wait_stop_seq(seen, Duration::from_millis(100));
    }
}
