//! Cost of the wrappers' fast path: the same C program (`calls.c`: 10M
//! calls each of `glUniform1f` and `glIsEnabled`) natively, under the
//! preload without a session, and under the preload with a session whose
//! breakpoints are set on other functions. Prints ns/call side by side.
//!
//! `cargo build --release -p gldbg-preload && cargo bench -p gldbg-preload`
//! (the bench loads target/release/libgldbg_preload.so).

#[path = "../../debugd/src/shm.rs"]
#[allow(dead_code)]
mod daemon_shm;

use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

fn run(app: &PathBuf, preload: Option<&PathBuf>, shm: Option<&daemon_shm::SharedMemory>) -> Ns {
    let mut c = Command::new(app);
    c.env("MESA_SHADER_CACHE_DISABLE", "true");
    if let Some(p) = preload {
        c.env("LD_PRELOAD", p);
    }
    if let Some(m) = shm {
        let fd = m.raw_fd();
        c.env(gldbg_proto::shm::ENV_FD, "200");
        // SAFETY: only async-signal-safe dup2 between fork and exec.
        unsafe {
            c.pre_exec(move || {
                if libc::dup2(fd, 200) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            })
        };
    }
    let o = c.output().expect("run calls");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = String::from_utf8(o.stdout).unwrap();
    let nums: Vec<f64> = s
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    (nums[0], nums[1])
}

/// ns/call of (glUniform1f, glIsEnabled).
type Ns = (f64, f64);
/// One round: native, preload without session, preload with session.
type Round = (Ns, Ns, Ns);

fn main() {
    let exe = std::env::current_exe().unwrap();
    let preload = exe
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("libgldbg_preload.so");
    assert!(
        preload.exists(),
        "{}: cargo build --release -p gldbg-preload first",
        preload.display()
    );
    let app = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("gldbg-preload-calls");
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/calls.c");
    assert!(
        Command::new("cc")
            .args(["-O2", "-o"])
            .arg(&app)
            .arg(&src)
            .arg("-lEGL")
            .status()
            .unwrap()
            .success()
    );

    let m = daemon_shm::SharedMemory::create().unwrap();
    for name in ["glDrawArrays", "glXSwapBuffers", "glUniform1i"] {
        m.set_breakpoint(gldbg_proto::api::function_id(name).unwrap(), true);
    }
    println!(
        "{:<32} {:>16} {:>16}",
        "", "glUniform1f ns", "glIsEnabled ns"
    );
    let mut rows: Vec<Round> = Vec::new();
    for round in 0..3 {
        let native = run(&app, None, None);
        let bare = run(&app, Some(&preload), None);
        let session = run(&app, Some(&preload), Some(&m));
        if round == 0 {
            continue; // warm-up
        }
        rows.push((native, bare, session));
    }
    let avg = |f: &dyn Fn(&Round) -> Ns| {
        let n = rows.len() as f64;
        rows.iter()
            .map(f)
            .fold((0.0, 0.0), |a, b| (a.0 + b.0 / n, a.1 + b.1 / n))
    };
    let native = avg(&|r| r.0);
    let bare = avg(&|r| r.1);
    let session = avg(&|r| r.2);
    println!("{:<32} {:>16.1} {:>16.1}", "native", native.0, native.1);
    println!(
        "{:<32} {:>16.1} {:>16.1}",
        "preload, no session", bare.0, bare.1
    );
    println!(
        "{:<32} {:>16.1} {:>16.1}",
        "preload, session, other bits set", session.0, session.1
    );
    println!(
        "overhead per call: {:+.1} / {:+.1} ns (no session), {:+.1} / {:+.1} ns (session)",
        bare.0 - native.0,
        bare.1 - native.1,
        session.0 - native.0,
        session.1 - native.1
    );
}
