//! Building C test apps at test time (the apps of `tests/apps/` that build.rs
//! does not build, and those of `debugd/tests/apps` and `preload/tests/apps`):
//! the one `cc` helper of every test crate.
//!
//! An app is compiled into `target/<profile>/apps-extra/<name>` once per test
//! process; the compiler writes a fresh file that is renamed into place, so
//! test processes building the same app at once never run a half-written
//! executable. `name` is the executable's name (what `/proc/PID/comm` shows):
//! it must be unique across the test crates.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

use crate::target_dir;

/// Compiles the C file `source` into `target/<profile>/apps-extra/<name>`
/// with `cc -std=gnu99 -Wall -O1 -g -I <source's directory>`, then `args`
/// after the source (libraries `-lEGL`, defines `-DX`, `-shared -fPIC`, an
/// `-O0` that overrides `-O1`); once per test process and name. A compiler
/// error fails the test with its message.
pub fn compile_c(source: &Path, name: &str, args: &[&str]) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, exe)) = built.iter().find(|(n, _)| n == name) {
        return exe.clone();
    }
    let dir = target_dir().join("apps-extra");
    std::fs::create_dir_all(&dir).expect("create apps-extra");
    let exe = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let include = source.parent().expect("a C file in a directory");
    let out = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-std=gnu99", "-Wall", "-O1", "-g"])
        .arg("-I")
        .arg(include)
        .arg("-o")
        .arg(&tmp)
        .arg(source)
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run the C compiler for {name}: {e} (install gcc: `bash .ci/setup`)")
        });
    assert!(
        out.status.success(),
        "building {name} from {} failed (missing -dev packages? `bash .ci/setup`):\n{}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&tmp, &exe).expect("rename the built app into place");
    built.push((name.to_string(), exe.clone()));
    exe
}
