//! Shared by real_apps.rs and survival.rs: building the extra C test apps
//! of `tests/apps/` (survivor, threads2, sdl_core) at test time, and small
//! checks on session transcripts.
//!
//! The apps are compiled with `cc` into `target/<profile>/apps-extra/` (a
//! fresh file per build, renamed into place, so concurrent test processes
//! never run a half-written executable).

#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;

use gldbg_tests::*;

/// Compiles `tests/apps/<source>` (with `tests/apps` on the include path)
/// into an executable called `name`, linking `libs`, with `defines` (`-D`);
/// once per test process (tests running in parallel share the build).
pub fn build_c_app(source: &str, name: &str, libs: &[&str], defines: &[&str]) -> PathBuf {
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, exe)) = built.iter().find(|(n, _)| n == name) {
        return exe.clone();
    }
    let exe = compile(source, name, libs, defines);
    built.push((name.to_string(), exe.clone()));
    exe
}

fn compile(source: &str, name: &str, libs: &[&str], defines: &[&str]) -> PathBuf {
    let apps = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("apps");
    let dir = target_dir().join("apps-extra");
    std::fs::create_dir_all(&dir).expect("create apps-extra");
    let exe = dir.join(name);
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let mut cc = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()));
    cc.args(["-std=gnu99", "-Wall", "-O1", "-g", "-I"])
        .arg(&apps)
        .arg("-o")
        .arg(&tmp)
        .arg(apps.join(source));
    for d in defines {
        cc.arg(format!("-D{d}"));
    }
    for l in libs {
        cc.arg(format!("-l{l}"));
    }
    let out = cc
        .output()
        .unwrap_or_else(|e| panic!("cannot run the C compiler for {name}: {e}"));
    assert!(
        out.status.success(),
        "building {name} failed (missing -dev packages? `bash .ci/setup`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&tmp, &exe).expect("rename the built app into place");
    exe
}

/// survivor.c: long-running EGL app printing `tick N` and `checksum H`.
pub fn survivor() -> PathBuf {
    build_c_app("survivor.c", "survivor", &["EGL"], &[])
}

/// threads2.c: two threads, each with its own EGL context.
pub fn threads2() -> PathBuf {
    build_c_app("threads2.c", "threads2", &["EGL", "pthread"], &[])
}

/// sdl_core.c built against SDL2.
pub fn sdl_core() -> PathBuf {
    build_c_app("sdl_core.c", "sdl_core", &["SDL2"], &[])
}

/// sdl_core.c built against GLFW (`-DUSE_GLFW`).
pub fn glfw_core() -> PathBuf {
    build_c_app("sdl_core.c", "glfw_core", &["glfw"], &["USE_GLFW"])
}

/// The lines of `text` that start with `prefix`.
pub fn lines_starting<'a>(text: &'a str, prefix: &str) -> Vec<&'a str> {
    text.lines().filter(|l| l.starts_with(prefix)).collect()
}

/// `w` of quad_common.h's QUAD_FS at window pixel (x, y) for `u_k` = k
/// (f32, the shader's operation order).
pub fn quad_w(x: u32, y: u32, k: f32) -> f32 {
    let p = [x as f32 + 0.5, y as f32 + 0.5];
    p[0] * 0.015625 + p[1] * k
}

/// Asserts the result of `cmd` says the app exited with code 0.
#[track_caller]
pub fn assert_exited_0(out: &Output, cmd: &str, n: usize) {
    let r = out.ok_n(cmd, n);
    assert_eq!(r["state"], "exited", "{r}\n{}", out.transcript());
    assert_eq!(r["exited"]["code"], 0, "{r}\n{}", out.transcript());
}

/// Asserts the LAST result of `cmd` says the app exited with code 0. For
/// apps that print partial lines (glmark2's `[build] duration=1:` before
/// its figures): gldbg's JSON line after one is glued to it and lost.
#[track_caller]
pub fn assert_last_exited_0(out: &Output, cmd: &str) {
    let r = out
        .results()
        .into_iter()
        .rfind(|v| v["cmd"] == cmd)
        .unwrap_or_else(|| panic!("no result of {cmd:?}:\n{}", out.transcript()));
    assert_eq!(r["state"], "exited", "{r}\n{}", out.transcript());
    assert_eq!(r["exited"]["code"], 0, "{r}\n{}", out.transcript());
}

/// The sources of the shaders of an `info program` result, by stage.
pub fn program_sources(info: &Value) -> Vec<(String, String)> {
    info["shaders"]
        .as_array()
        .unwrap_or_else(|| panic!("no shaders in {info}"))
        .iter()
        .map(|s| {
            (
                s["stage"].as_str().unwrap_or("").to_string(),
                s["source"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The source of the shader of `stage` in an `info program` result.
#[track_caller]
pub fn stage_source(info: &Value, stage: &str) -> String {
    program_sources(info)
        .into_iter()
        .find(|(s, _)| s == stage)
        .map(|(_, src)| src)
        .unwrap_or_else(|| panic!("no {stage} shader in {info}"))
}
