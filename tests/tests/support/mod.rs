//! Shared by real_apps.rs, survival.rs, frames.rs and first_frame.rs:
//! building the extra C test apps of `tests/apps/` (survivor, threads2,
//! sdl_core) and the LD_PRELOAD shim swap_shim at test time, and small
//! checks on session transcripts.
//!
//! The apps are compiled by [`gldbg_tests::compile_c`] (the one `cc` helper
//! of the test crates) into `target/<profile>/apps-extra/`. `grpc`: a
//! token-carrying gRPC client of a daemon on a Unix socket.

#![allow(dead_code)]

pub mod grpc;

use std::path::PathBuf;

use gldbg_tests::*;

/// Compiles `tests/apps/<source>` into an executable called `name`,
/// linking `libs`, with `defines` (`-D`); once per test process (tests
/// running in parallel share the build).
pub fn build_c_app(source: &str, name: &str, libs: &[&str], defines: &[&str]) -> PathBuf {
    let mut args: Vec<String> = defines.iter().map(|d| format!("-D{d}")).collect();
    args.extend(libs.iter().map(|l| format!("-l{l}")));
    compile(source, name, &args)
}

/// Compiles `tests/apps/<source>` into the shared library `name` (for
/// LD_PRELOAD), linking `libs`; once per test process.
pub fn build_c_shim(source: &str, name: &str, libs: &[&str]) -> PathBuf {
    let mut args = vec!["-shared".to_string(), "-fPIC".to_string()];
    args.extend(libs.iter().map(|l| format!("-l{l}")));
    compile(source, name, &args)
}

fn compile(source: &str, name: &str, args: &[String]) -> PathBuf {
    let apps = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("apps");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    compile_c(&apps.join(source), name, &args)
}

/// A program from a Debian package, or a failure naming the package.
pub fn debian(program: &str, package: &str) -> PathBuf {
    let path = if program.starts_with('/') {
        PathBuf::from(program)
    } else {
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
            .map(|d| d.join(program))
            .find(|p| p.exists())
            .unwrap_or_else(|| PathBuf::from(program))
    };
    assert!(
        path.exists(),
        "{program} is missing: install the Debian package {package} (`bash .ci/setup`)"
    );
    path
}

/// swap_shim.c: the LD_PRELOAD library that writes an app's first frame
/// (the back buffer at its first glXSwapBuffers) to `$SWAP_SHIM_OUT` as a
/// PAM image and, with `SWAP_SHIM_EXIT_AFTER=N`, exits 0 after swap N.
pub fn swap_shim() -> PathBuf {
    build_c_shim("swap_shim.c", "libswap_shim.so", &["GL", "X11", "dl"])
}

/// An RGBA8 image as swap_shim writes it (PAM, rows top-down).
#[derive(Clone, PartialEq, Eq)]
pub struct Pam {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[u8; 4]>,
}

impl std::fmt::Debug for Pam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Pam({}x{})", self.width, self.height)
    }
}

/// Reads a PAM file of swap_shim (`P7`, `DEPTH 4`, `MAXVAL 255`).
pub fn read_pam(path: &std::path::Path) -> Pam {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let end = data
        .windows(7)
        .position(|w| w == b"ENDHDR\n")
        .unwrap_or_else(|| panic!("{}: no PAM header", path.display()));
    let header = String::from_utf8_lossy(&data[..end]);
    let field = |key: &str| -> u32 {
        header
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("{}: no {key} in {header:?}", path.display()))
    };
    assert!(
        header.starts_with("P7"),
        "{}: not a PAM file",
        path.display()
    );
    assert_eq!(field("DEPTH "), 4, "{}: RGBA expected", path.display());
    assert_eq!(field("MAXVAL "), 255, "{}: 8 bits expected", path.display());
    let (width, height) = (field("WIDTH "), field("HEIGHT "));
    let body = &data[end + 7..];
    assert_eq!(
        body.len(),
        (width * height * 4) as usize,
        "{}: wrong size",
        path.display()
    );
    Pam {
        width,
        height,
        pixels: body
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect(),
    }
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
