//! Helpers of gldbg's integration tests: where the built binaries and the C
//! test apps are, an Xvfb server per test, running `gldbg` on a script and
//! reading its JSON lines, and a CPU reference of the test apps' shader.
//!
//! Tests need `cargo build --workspace` first (the `gldbg` binary, the daemon
//! and the preload must exist beside the test executable's directory). They
//! never assume a display, a running daemon or a warm shader cache.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

pub use serde_json::Value;

mod c_apps;
pub mod tess;
pub mod trace_ref;
mod xvfb;
pub use c_apps::compile_c;
pub use xvfb::Xvfb;

/// How long one gldbg session may take before the test kills it. A guard
/// against hangs, not a timing assertion: sessions take a few seconds.
pub const SESSION_LIMIT: Duration = Duration::from_secs(300);

// ---------------------------------------------------------------------------
// Binaries and apps

/// `target/<profile>`: the directory of the test executable's parent
/// (`target/<profile>/deps/<test>`).
pub fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("current_exe");
    let deps = exe.parent().expect("test executable has a directory");
    if deps.file_name().is_some_and(|n| n == "deps") {
        deps.parent().unwrap().to_path_buf()
    } else {
        deps.to_path_buf()
    }
}

fn built(name: &str) -> PathBuf {
    let path = target_dir().join(name);
    if !path.exists() {
        panic!(
            "{} is missing: run `cargo build --workspace` first",
            path.display()
        );
    }
    path
}

/// The `gldbg` CLI.
pub fn gldbg() -> PathBuf {
    built("gldbg")
}

/// The standalone daemon `gldbg-debugd`.
pub fn debugd() -> PathBuf {
    built("gldbg-debugd")
}

/// A `gldbg-debugd --listen unix:PATH` with no program, for tests that talk
/// gRPC to it directly; killed on drop.
pub struct UnixDaemon(pub std::process::Child);

impl Drop for UnixDaemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Start [`UnixDaemon`] on `socket` with `env` added to its environment
/// (e.g. `GLDBG_TOKEN`), once its socket exists (at most 60 s).
pub fn start_unix_daemon(socket: &Path, env: &[(&str, &str)]) -> UnixDaemon {
    let child = Command::new(debugd())
        .arg("--listen")
        .arg(format!("unix:{}", socket.display()))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gldbg-debugd");
    let mut daemon = UnixDaemon(child);
    let deadline = Instant::now() + Duration::from_secs(60);
    while !socket.exists() {
        if let Ok(Some(status)) = daemon.0.try_wait() {
            panic!("gldbg-debugd exited early: {status}");
        }
        assert!(Instant::now() < deadline, "no socket {}", socket.display());
        std::thread::sleep(Duration::from_millis(20));
    }
    daemon
}

/// The preload library.
pub fn preload() -> PathBuf {
    built("libgldbg_preload.so")
}

/// Checks that the whole workspace is built (gldbg, the daemon, the preload).
pub fn require_workspace() {
    gldbg();
    debugd();
    preload();
}

/// A test app: where build.rs built it, else its copy in `target/<profile>/apps/`
/// (for test executables moved to another machine together with that folder).
fn app(built_at: &str, name: &str) -> PathBuf {
    let path = PathBuf::from(built_at);
    if path.exists() {
        return path;
    }
    let copy = target_dir().join("apps").join(name);
    if copy.exists() { copy } else { path }
}

/// The EGL surfaceless test app (built by build.rs).
pub fn egl_shade() -> PathBuf {
    app(env!("GLDBG_APP_EGL_SHADE"), "egl_shade")
}

/// The compute test app (built by build.rs): EGL surfaceless, GL 4.3 core,
/// one compute dispatch per frame (see [`compute`]).
pub fn egl_compute() -> PathBuf {
    app(env!("GLDBG_APP_EGL_COMPUTE"), "egl_compute")
}

/// The tessellation + geometry test app (built by build.rs; see [`stages`]).
pub fn egl_stages() -> PathBuf {
    app(env!("GLDBG_APP_EGL_STAGES"), "egl_stages")
}

/// The OpenGL ES test app (built by build.rs): EGL surfaceless, `--es 2`,
/// `--es 3` or `--es 31` (see tests/gles.rs).
pub fn egl_gles() -> PathBuf {
    app(env!("GLDBG_APP_EGL_GLES"), "egl_gles")
}

/// The GLX test app (built by build.rs); needs a display (see [`Xvfb`]).
pub fn glx_shade() -> PathBuf {
    app(env!("GLDBG_APP_GLX_SHADE"), "glx_shade")
}

// ---------------------------------------------------------------------------
// Temporary directories

static COUNTER: AtomicU32 = AtomicU32::new(0);

/// A fresh directory under the system temp dir, removed on drop (kept when
/// `GLDBG_KEEP_TEMP` is set, for looking at files after a failure).
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path =
            std::env::temp_dir().join(format!("gldbg-tests-{}-{}-{}", std::process::id(), n, tag));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        TempDir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::env::var_os("GLDBG_KEEP_TEMP").is_none() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

// ---------------------------------------------------------------------------
// Running processes

/// What a finished process left: exit status, output, and (for gldbg --json)
/// the JSON lines of its stdout.
#[derive(Debug)]
pub struct Output {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    /// Every stdout line that parses as a JSON object, in order.
    pub lines: Vec<Value>,
}

/// Runs `cmd` to its end (killing it after [`SESSION_LIMIT`]), capturing output.
pub fn run_command(mut cmd: Command) -> Output {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {cmd:?}: {e}"));
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let err_thread = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let start = Instant::now();
    let mut killed = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > SESSION_LIMIT && !killed {
            let _ = child.kill();
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let raw_stdout = out_thread.join().unwrap();
    let mut stderr = err_thread.join().unwrap();
    // gldbg's own lines are JSON objects; with `--json` the app's output
    // comes as `output` events, else as plain lines. A line that looks like
    // JSON but does not parse is a bug (e.g. app text glued to a JSON line).
    // `stdout`/`stderr` get the app's text back, so tests read it either way.
    let mut lines = Vec::new();
    let mut bad = Vec::new();
    let mut stdout = String::new();
    let mut app_stdout = String::new();
    for l in raw_stdout.lines() {
        if !l.trim_start().starts_with('{') {
            stdout.push_str(l);
            stdout.push('\n');
            continue;
        }
        match serde_json::from_str::<Value>(l) {
            Ok(v) if v.is_object() => {
                if v["event"] == "output" {
                    let text = v["text"].as_str().unwrap_or_default();
                    match v["stream"].as_str() {
                        Some("stderr") => stderr.push_str(text),
                        _ => app_stdout.push_str(text),
                    }
                } else {
                    stdout.push_str(l);
                    stdout.push('\n');
                }
                lines.push(v);
            }
            _ => bad.push(l.to_string()),
        }
    }
    stdout.push_str(&app_stdout);
    let output = Output {
        status,
        stdout,
        stderr,
        lines,
    };
    if killed {
        panic!(
            "killed after {SESSION_LIMIT:?} (hang?):\n{}",
            output.transcript()
        );
    }
    if !bad.is_empty() {
        panic!(
            "stdout lines that are not JSON objects: {bad:?}\n{}",
            output.transcript()
        );
    }
    output
}

/// Reading a scripted session's JSON lines.
impl Output {
    /// Everything, for failure messages.
    pub fn transcript(&self) -> String {
        format!(
            "status: {:?}\n--- stdout ---\n{}\n--- stderr ---\n{}",
            self.status, self.stdout, self.stderr
        )
    }

    /// Command results: lines with a `"cmd"` key.
    pub fn results(&self) -> Vec<&Value> {
        self.lines
            .iter()
            .filter(|v| v.get("cmd").is_some())
            .collect()
    }

    /// Events: lines with an `"event"` key (and no `"cmd"`).
    pub fn events(&self) -> Vec<&Value> {
        self.lines
            .iter()
            .filter(|v| v.get("event").is_some() && v.get("cmd").is_none())
            .collect()
    }

    /// The `n`-th (from 0) result of the command typed exactly as `cmd`.
    pub fn result_n(&self, cmd: &str, n: usize) -> &Value {
        self.results()
            .into_iter()
            .filter(|v| v["cmd"].as_str().map(str::trim) == Some(cmd.trim()))
            .nth(n)
            .unwrap_or_else(|| panic!("no result #{n} for command {cmd:?}:\n{}", self.transcript()))
    }

    /// The first result of the command typed exactly as `cmd`.
    pub fn result(&self, cmd: &str) -> &Value {
        self.result_n(cmd, 0)
    }

    /// The first result of `cmd`, which must have `"ok": true`.
    pub fn ok(&self, cmd: &str) -> &Value {
        self.ok_n(cmd, 0)
    }

    /// The `n`-th result of `cmd`, which must have `"ok": true`.
    pub fn ok_n(&self, cmd: &str, n: usize) -> &Value {
        let v = self.result_n(cmd, n);
        if v["ok"] != Value::Bool(true) {
            panic!("command {cmd:?} (#{n}) failed: {v}\n{}", self.transcript());
        }
        v
    }

    /// The first result of `cmd`, which must have `"ok": false`; returns its error.
    pub fn failed(&self, cmd: &str) -> String {
        let v = self.result(cmd);
        if v["ok"] != Value::Bool(false) {
            panic!(
                "command {cmd:?} should have failed: {v}\n{}",
                self.transcript()
            );
        }
        v["error"]
            .as_str()
            .unwrap_or_else(|| panic!("failed {cmd:?} has no \"error\" string: {v}"))
            .to_string()
    }
}

/// A scripted gldbg session: `gldbg run --batch --json -x SCRIPT -- PROGRAM ARGS`.
///
/// In `--batch` the script stops at its first failed command (exit status 1),
/// as gdb's does. A test whose script has commands expected to fail and goes
/// on after them uses [`Session::keep_going`].
pub struct Session {
    pub script: String,
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// Working directory of gldbg (default: the test's).
    pub cwd: Option<PathBuf>,
    /// Script file to use instead of writing `script` to a file.
    pub script_file: Option<PathBuf>,
    /// Run without `--batch` (the REPL, reading an empty stdin, follows the
    /// script): every command runs, failed ones included; exit status 0.
    pub keep_going: bool,
}

impl Session {
    pub fn new(program: impl AsRef<Path>, script: &str) -> Session {
        Session {
            script: script.to_string(),
            program: program.as_ref().to_path_buf(),
            args: Vec::new(),
            env: Vec::new(),
            cwd: None,
            script_file: None,
            keep_going: false,
        }
    }

    /// Every command of the script runs, also after a failed one (no `--batch`).
    pub fn keep_going(mut self) -> Session {
        self.keep_going = true;
        self
    }

    /// A session running the commands of an existing script file.
    pub fn with_file(program: impl AsRef<Path>, script: &Path) -> Session {
        let mut s = Session::new(program, "");
        s.script_file = Some(script.to_path_buf());
        s.script = std::fs::read_to_string(script).unwrap_or_default();
        s
    }

    pub fn cwd(mut self, dir: &Path) -> Session {
        self.cwd = Some(dir.to_path_buf());
        self
    }

    pub fn args<I: IntoIterator<Item = S>, S: AsRef<str>>(mut self, args: I) -> Session {
        self.args
            .extend(args.into_iter().map(|s| s.as_ref().to_string()));
        self
    }

    pub fn env(mut self, key: &str, value: &str) -> Session {
        self.env.push((key.to_string(), value.to_string()));
        self
    }

    /// Runs the session to its end. The script is written to a file in `dir`.
    pub fn run(&self, dir: &TempDir) -> Output {
        let script_path = match &self.script_file {
            Some(file) => file.clone(),
            None => {
                let n = COUNTER.fetch_add(1, Ordering::Relaxed);
                let path = dir.join(&format!("script-{n}.gldbg"));
                std::fs::write(&path, &self.script).expect("write script");
                path
            }
        };
        let mut cmd = Command::new(gldbg());
        cmd.arg("run");
        if !self.keep_going {
            cmd.arg("--batch");
        }
        cmd.arg("--json")
            .arg("-x")
            .arg(&script_path)
            .arg("--")
            .arg(&self.program)
            .args(&self.args);
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        }
        let output = run_command(cmd);
        if std::env::var_os("GLDBG_TESTS_VERBOSE").is_some() {
            eprintln!("--- script ---\n{}\n{}", self.script, output.transcript());
        }
        output
    }
}

/// The numbers of a `print` result's `"value"` array.
pub fn values(result: &Value) -> Vec<f64> {
    result["value"]
        .as_array()
        .unwrap_or_else(|| panic!("result has no \"value\" array: {result}"))
        .iter()
        .map(|x| {
            x.as_f64()
                .unwrap_or_else(|| panic!("non-numeric value component {x} in {result}"))
        })
        .collect()
}

/// The single number of a scalar `print` result.
pub fn scalar(result: &Value) -> f64 {
    let v = values(result);
    assert_eq!(v.len(), 1, "expected one component: {result}");
    v[0]
}

/// Asserts |got - want| <= tol, with context.
#[track_caller]
pub fn assert_close(got: f64, want: f64, tol: f64, what: &str) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, CPU reference {want} (tolerance {tol})"
    );
}

/// `N:M` pairs (line:column) in a message.
pub fn line_columns(message: &str) -> Vec<(u32, u32)> {
    let b = message.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()) {
            let s = i;
            while i < b.len() && b[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < b.len() && b[i] == b':' && b[i + 1].is_ascii_digit() {
                let line: u32 = message[s..i].parse().unwrap_or(0);
                let c0 = i + 1;
                let mut j = c0;
                while j < b.len() && b[j].is_ascii_digit() {
                    j += 1;
                }
                let col: u32 = message[c0..j].parse().unwrap_or(0);
                found.push((line, col));
            }
        } else {
            i += 1;
        }
    }
    found
}

/// Absolute paths mentioned in a message (words starting with '/', trailing
/// punctuation stripped).
pub fn paths_in(message: &str) -> Vec<PathBuf> {
    message
        .split(|c: char| {
            c.is_whitespace() || c == '\'' || c == '"' || c == '`' || c == '(' || c == ')'
        })
        .filter(|w| w.starts_with('/'))
        .map(|w| w.trim_end_matches([',', ';', ':', '.', ')', ']']))
        .map(PathBuf::from)
        .collect()
}

// ---------------------------------------------------------------------------
// The test apps' shader, on the CPU

/// The framebuffer of egl_shade / glx_shade.
pub const W: u32 = 64;
pub const H: u32 = 48;

/// Colour of the clear (glClearColor(0.1, 0.2, 0.3, 1.0)) as RGBA8.
pub const CLEAR_RGBA8: [u8; 4] = [26, 51, 76, 255];

/// Source lines of `SHADE_FS` (tests/apps/shade_common.h) that tests name.
/// `tests/apps/egl_compute.c`: its compute shader's lines and a CPU
/// reference of `shade()`, in f32 as the shader computes it.
pub mod compute {
    /// `if (float(i % 7u) > float(k))`
    pub const IF: u32 = 11;
    /// `acc += u_scale * float(k + 1);` (the if branch)
    pub const ACC_ADD: u32 = 12;
    /// `acc -= 0.5;` (the else branch)
    pub const ACC_SUB: u32 = 14;
    /// `while (n < idx % 5u)`: invocation idx runs `idx % 5` iterations.
    pub const WHILE: u32 = 25;
    /// `return acc;`
    pub const RETURN: u32 = 17;
    /// `u_scale` as the app sets it.
    pub const SCALE: f32 = 0.75;
    /// Invocations per dispatch: 4x2x2 groups of 8x4x1.
    pub const INVOCATIONS: u32 = 512;
    /// The global extent of a dispatch (x, y, z).
    pub const EXTENT: [u32; 3] = [32, 8, 2];

    /// The linear index the shader computes from `gl_GlobalInvocationID`.
    pub fn index(g: [u32; 3]) -> u32 {
        g[0] + g[1] * 32 + g[2] * 256
    }

    /// `acc` when iteration `k` starts (`k` = 4: the returned value).
    pub fn acc_before(i: u32, k: u32) -> f32 {
        let mut acc = 0.0f32;
        for j in 0..k {
            if (i % 7) as f32 > j as f32 {
                acc += SCALE * (j + 1) as f32;
            } else {
                acc -= 0.5;
            }
        }
        acc
    }

    /// `shade(i)`.
    pub fn shade(i: u32) -> f32 {
        acc_before(i, 4)
    }

    /// Whether invocation `i` takes the if branch in iteration `k`.
    pub fn takes_if(i: u32, k: u32) -> bool {
        (i % 7) as f32 > k as f32
    }
}

/// `tests/apps/egl_stages.c`: lines of its tess-eval and geometry shaders.
pub mod stages {
    /// TES `w += c[k] * float(k + 1);` (in the loop)
    pub const TES_W_ADD: u32 = 8;
    /// TES `te_value = w;`
    pub const TES_VALUE: u32 = 10;
    /// GS `g_value = s;` (in the loop, before EmitVertex)
    pub const GS_VALUE: u32 = 9;
}

pub mod lines {
    /// `float t = float(i) * 16.0;` (first statement of the loop body)
    pub const LOOP_T: u32 = 7;
    /// `acc += 0.25 * float(i) + p.y * u_gain;` (the if branch)
    pub const ACC_ADD: u32 = 9;
    /// `acc -= 0.1;` (the else branch)
    pub const ACC_SUB: u32 = 11;
    /// `float v = acc * 0.5;`
    pub const V: u32 = 14;
    /// `return v;`
    pub const RETURN: u32 = 15;
    /// `float s = shade(p);` in main
    pub const CALL: u32 = 19;
    /// `frag = vec4(...)` in main
    pub const FRAG: u32 = 20;
    /// `subroutine(ShadeFn) float shadeA(vec2 p) {` in SHADE_FS_SUBROUTINE
    pub const SUBROUTINE: u32 = 3;
    /// `float s = u_shade(gl_FragCoord.xy) + u_gain;` in SHADE_FS_SUBROUTINE
    pub const SUBROUTINE_CALL: u32 = 10;
    /// `STEP(ONE);` in SHADE_FS_NESTED_CONCAT
    pub const NESTED_CONCAT_USE: u32 = 9;
}

/// The C header holding the shaders (for checking line numbers).
pub const SHADE_COMMON_H: &str = include_str!("../apps/shade_common.h");

/// The GLSL source of a `static const char *const NAME = "..." "...";` string of
/// shade_common.h, unescaped.
pub fn shader_source(name: &str) -> String {
    c_string_constant(SHADE_COMMON_H, "shade_common.h", name)
}

/// The text of the C string constant `NAME` (`static const char *NAME =`
/// or `*const NAME =`, then one `"..."` literal per line up to the `;`) of
/// the C source `c_source` (named `file` in the panic), unescaped: the
/// test apps' shaders, for checking line numbers.
pub fn c_string_constant(c_source: &str, file: &str, name: &str) -> String {
    let start = [format!("*{name} ="), format!(" {name} =")]
        .iter()
        .filter_map(|pattern| c_source.find(pattern.as_str()))
        .min()
        .unwrap_or_else(|| panic!("{name} not in {file}"));
    let mut src = String::new();
    for line in c_source[start..].lines().skip(1) {
        let (Some(a), Some(b)) = (line.find('"'), line.rfind('"')) else {
            break;
        };
        if b > a {
            src.push_str(&line[a + 1..b].replace("\\n", "\n"));
        }
        // The statement ends with `;` after the last literal.
        if line[b + 1..].split("/*").next().unwrap_or("").contains(';') {
            break;
        }
    }
    src
}

/// `u_gain` of frame `frame` (from 0): 0.01 + 0.005 * frame, as the app computes it.
pub fn gain(frame: u32) -> f32 {
    0.01f32 + 0.005f32 * frame as f32
}

/// Does the quad cover window pixel (x, y) (origin bottom-left)?
pub fn covered(x: u32, y: u32) -> bool {
    (16..56).contains(&x) && (12..36).contains(&y)
}

/// Number of fragments the quad covers.
pub const COVERED: u32 = 40 * 24;

/// What `shade(p)` computes for the fragment at window pixel (x, y).
#[derive(Clone, Debug, PartialEq)]
pub struct Shade {
    /// `p` = gl_FragCoord.xy = pixel centre.
    pub p: [f32; 2],
    /// `acc` at the start of loop iteration i (before line 7 of iteration i).
    pub acc_at: [f32; 4],
    /// `t` in iteration i.
    pub t: [f32; 4],
    /// Whether iteration i takes the if branch (`p.x > t`).
    pub takes_if: [bool; 4],
    /// `acc` after the loop.
    pub acc: f32,
    /// `v` = acc * 0.5 = the return value.
    pub v: f32,
}

/// The shader's `shade()`, written again in Rust (f32, same operation order).
pub fn shade(x: u32, y: u32, gain: f32) -> Shade {
    let p = [x as f32 + 0.5, y as f32 + 0.5];
    let mut acc = 0.0f32;
    let mut acc_at = [0.0f32; 4];
    let mut t = [0.0f32; 4];
    let mut takes_if = [false; 4];
    for i in 0..4 {
        acc_at[i] = acc;
        t[i] = i as f32 * 16.0;
        takes_if[i] = p[0] > t[i];
        if takes_if[i] {
            acc += 0.25 * i as f32 + p[1] * gain;
        } else {
            acc -= 0.1;
        }
    }
    let v = acc * 0.5;
    Shade {
        p,
        acc_at,
        t,
        takes_if,
        acc,
        v,
    }
}

/// The colour the app writes for window pixel (x, y) in frame `frame`, as RGBA8
/// (unorm conversion may differ from the driver's by one step).
pub fn frame_pixel(x: u32, y: u32, frame: u32) -> [u8; 4] {
    if !covered(x, y) {
        return CLEAR_RGBA8;
    }
    let s = shade(x, y, gain(frame));
    let fract = s.v - s.v.floor();
    let unorm = |c: f32| (c.clamp(0.0, 1.0) * 255.0).round() as u8;
    [
        unorm(fract),
        unorm(s.p[0] / 64.0),
        unorm(s.p[1] / 48.0),
        255,
    ]
}

/// (min, max) of `v` over covered fragments.
pub fn v_range(frame: u32) -> (f32, f32) {
    let mut lo = f32::INFINITY;
    let mut hi = f32::NEG_INFINITY;
    for y in 0..H {
        for x in 0..W {
            if covered(x, y) {
                let v = shade(x, y, gain(frame)).v;
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    (lo, hi)
}

/// Reads an app's `--out` file: W*H RGBA8 pixels, rows bottom-up.
pub fn read_frame(path: &Path) -> Vec<u8> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert_eq!(
        data.len(),
        (W * H * 4) as usize,
        "{} has the wrong size",
        path.display()
    );
    data
}

/// Pixel (x, y) (origin bottom-left) of a frame read by [`read_frame`].
pub fn pixel(frame: &[u8], x: u32, y: u32) -> [u8; 4] {
    let i = ((y * W + x) * 4) as usize;
    [frame[i], frame[i + 1], frame[i + 2], frame[i + 3]]
}

/// Runs a test app natively (no gldbg), asserting exit status 0.
pub fn run_native(program: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run_command(cmd);
    assert!(
        out.status.success(),
        "{} failed natively:\n{}",
        program.display(),
        out.transcript()
    );
    out
}

// ---------------------------------------------------------------------------
// Image files written by `dump`

/// A decoded PNG as RGBA8, rows top-down.
pub struct Rgba8Image {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<[u8; 4]>,
}

impl Rgba8Image {
    /// The pixel at window coordinates (x, y), origin bottom-left.
    pub fn at_window(&self, x: u32, y: u32) -> [u8; 4] {
        self.pixels[((self.height - 1 - y) * self.width + x) as usize]
    }
}

/// Decodes an 8-bit PNG of any colour type into RGBA8.
pub fn decode_png(path: &Path) -> Rgba8Image {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("open {}: {e}", path.display()));
    let mut decoder = png::Decoder::new(std::io::BufReader::new(file));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder
        .read_info()
        .unwrap_or_else(|e| panic!("{} is not a PNG: {e}", path.display()));
    let mut buf = vec![0; reader.output_buffer_size().expect("PNG size")];
    let info = reader.next_frame(&mut buf).expect("PNG frame");
    assert_eq!(
        info.bit_depth,
        png::BitDepth::Eight,
        "{}: 8-bit expected",
        path.display()
    );
    let n = (info.width * info.height) as usize;
    let pixels = (0..n)
        .map(|i| match info.color_type {
            png::ColorType::Rgba => [buf[i * 4], buf[i * 4 + 1], buf[i * 4 + 2], buf[i * 4 + 3]],
            png::ColorType::Rgb => [buf[i * 3], buf[i * 3 + 1], buf[i * 3 + 2], 255],
            png::ColorType::Grayscale => [buf[i], buf[i], buf[i], 255],
            png::ColorType::GrayscaleAlpha => [buf[i * 2], buf[i * 2], buf[i * 2], buf[i * 2 + 1]],
            png::ColorType::Indexed => unreachable!("EXPAND turns palettes into RGB(A)"),
        })
        .collect();
    Rgba8Image {
        width: info.width,
        height: info.height,
        pixels,
    }
}

/// A float32 `.npy` file: its shape and data (C order).
pub struct Npy {
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
}

/// Reads a little-endian float32 `.npy` (version 1 or 2).
pub fn read_npy(path: &Path) -> Npy {
    let b = std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    assert!(
        b.starts_with(b"\x93NUMPY"),
        "{}: not an .npy file",
        path.display()
    );
    let (header_len, start) = match b[6] {
        1 => (u16::from_le_bytes([b[8], b[9]]) as usize, 10),
        _ => (u32::from_le_bytes([b[8], b[9], b[10], b[11]]) as usize, 12),
    };
    let header = std::str::from_utf8(&b[start..start + header_len]).expect("npy header");
    assert!(
        header.contains("'descr': '<f4'"),
        "float32 expected: {header}"
    );
    assert!(
        header.contains("'fortran_order': False"),
        "C order expected: {header}"
    );
    let shape_start = header.find("'shape': (").expect("shape") + "'shape': (".len();
    let shape_end = shape_start + header[shape_start..].find(')').unwrap();
    let shape: Vec<usize> = header[shape_start..shape_end]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    let data: Vec<f32> = b[start + header_len..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    assert_eq!(
        data.len(),
        shape.iter().product::<usize>(),
        "{}: data size",
        path.display()
    );
    Npy { shape, data }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(src: &str, n: u32) -> &str {
        src.lines().nth(n as usize - 1).unwrap()
    }

    #[test]
    fn line_numbers_match_the_shader() {
        let fs = shader_source("SHADE_FS");
        assert!(line(&fs, 1).starts_with("#version 330 core"));
        assert!(line(&fs, lines::LOOP_T).contains("float t = float(i) * 16.0;"));
        assert!(line(&fs, lines::ACC_ADD).contains("acc += 0.25 * float(i) + p.y * u_gain;"));
        assert!(line(&fs, lines::ACC_SUB).contains("acc -= 0.1;"));
        assert!(line(&fs, lines::V).contains("float v = acc * 0.5;"));
        assert!(line(&fs, lines::RETURN).contains("return v;"));
        assert!(line(&fs, lines::CALL).contains("float s = shade(p);"));
        assert!(line(&fs, lines::FRAG).contains("frag = vec4("));
        assert!(fs.ends_with("}\n") && fs.lines().count() == 21, "{fs}");
        let sub = shader_source("SHADE_FS_SUBROUTINE");
        assert_eq!(sub.lines().count(), 12, "{sub}");
        assert!(line(&sub, lines::SUBROUTINE).starts_with("subroutine(ShadeFn)"));
        assert!(line(&sub, lines::SUBROUTINE_CALL).contains("float s = u_shade("));
        let concat = shader_source("SHADE_FS_NESTED_CONCAT");
        assert_eq!(line(&concat, lines::NESTED_CONCAT_USE).trim(), "STEP(ONE);");
    }

    #[test]
    fn reference_by_hand() {
        // p = (20.5, 20.5), gain 0.02: 0.41, 1.07, 0.97, 0.87 -> v = 0.435
        let s = shade(20, 20, gain(2));
        assert!((s.acc - 0.87).abs() < 1e-6);
        assert!((s.v - 0.435).abs() < 1e-6);
        assert_eq!(s.takes_if, [true, true, false, false]);
        assert_eq!(frame_pixel(20, 20, 2), [111, 82, 109, 255]);
        assert_eq!(frame_pixel(0, 0, 2), CLEAR_RGBA8);
    }

    #[test]
    fn line_column_parsing() {
        assert_eq!(line_columns("shader.frag:3:12: error"), vec![(3, 12)]);
        assert_eq!(line_columns("at 0:3:1"), vec![(0, 3), (3, 1)]);
        assert_eq!(
            paths_in("saved /tmp/a/b.frag and '/tmp/a/log.txt'."),
            vec![
                PathBuf::from("/tmp/a/b.frag"),
                PathBuf::from("/tmp/a/log.txt")
            ]
        );
    }
}
