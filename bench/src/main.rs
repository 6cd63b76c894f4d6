//! `gldbg-bench`: gldbg's costs, measured side by side in one run, printed
//! as a table of ratios. Not a test: it asserts nothing about time.
//!
//! * (a) Run-mode cost per GL call: `apps/uniform_loop.c` times a tight loop
//!   of glUniform1f calls inside the app (clock_gettime), run natively,
//!   under `gldbg run` (script `continue`), under `gldbg run` with a
//!   breakpoint on a function the app never calls, and under
//!   `apitrace trace` when apitrace is installed. The modes are interleaved
//!   round by round, so drifting machine load hits them alike; the table
//!   shows the minimum and the median per mode and the median's excess over
//!   native.
//! * (b) Stop round trip: `gldbg run --batch --json` with the script
//!   `step 1` / `step N` on the same app; the time between the two result
//!   lines (read as they arrive) divided by N is the cost of one stepped
//!   call: stop, report, command, resume.
//! * (c) glmark2 (`glmark2-x11`, on an Xvfb of its own): the score under
//!   `gldbg run` (script `continue`) over the native score, in pairs whose
//!   order alternates; the ratio of the medians and the median pair ratio.
//! * (d) Shader step latency: `apps/step_latency.c` draws a full-screen quad
//!   at 1920x1080 and a grid of 1M vertices; a `gldbg run --json` session
//!   prints a variable inside a loop of each draw's fragment / vertex shader
//!   twice: cold (iteration 0: a debug program the preload has not built)
//!   and warm (iteration 1: the same program, another loop path). Each
//!   result's `timing` splits the probe into instrument (daemon), build
//!   (compile + link), replay and readback (preload). Then (`readback.rs`)
//!   warm `print @` and float / vec4 summary prints of the fragment stage
//!   at 1080p, the vertex stage at 1M vertices and a compute dispatch of
//!   1M invocations (`apps/compute_latency.c`), as gldbg reads them back
//!   (one invocation; a summary reduced on the GPU) and, in the same run,
//!   with `GLDBG_READBACK=all` (every invocation read back and reduced on
//!   the CPU, as before): the table gives both and their ratio.
//! * (e) The editor's step (`dap.rs`): `gldbg dap` driven as an editor
//!   drives it; `next` and `stepBack` served from the trace, from the
//!   request to the `stopped` event.
//! * (f) Pixel history (`history.rs`): `apps/history_frame.c` draws frames
//!   of 1,000 small quads at 1920x1080 with the depth test on, K of them
//!   covering one pixel; `history X,Y` of that pixel from the first call
//!   of frame 2 to its swap, timed from the `step` result line to the
//!   `history` result line, against the frame's native time (timed inside
//!   the app): the cost per draw that does not touch the pixel (K = 0) and
//!   per draw that does (K = 50 against K = 0).
//! * (g) memcheck (`memcheck.rs`): `apps/memcheck_compute.c` (a
//!   shared-memory reduction of 16M floats and a tiled 1024x1024 matrix
//!   product, each timed per iteration inside the app) natively and under
//!   `gldbg run --memcheck`, interleaved: native and checked ms per kernel
//!   and their ratio (median, min).
//!
//! Usage: `gldbg-bench [--runs N] [--calls N] [--steps N] [--glmark2-seconds S]
//! [--glmark2 PATH] [--glmark2-arg A]... [--memcheck-iterations N] [--memcheck-small]
//! [--only a,b,c,d,e,f,g]`. Figures to report
//! come from a release build (`cargo build --release --workspace`): the
//! daemon's share of a stepped call is several times larger unoptimised.
//! `gldbg` is looked for beside this executable (both in
//! `target/<profile>/`; `cargo build --workspace` builds it) or at `$GLDBG`.
//! The C apps are compiled with `cc` at start (or taken from
//! `$GLDBG_BENCH_APP`, `$GLDBG_BENCH_STEP_APP`, `$GLDBG_BENCH_COMPUTE_APP`,
//! `$GLDBG_BENCH_HISTORY_APP` and `$GLDBG_BENCH_MEMCHECK_APP`). Every run has `MESA_SHADER_CACHE_DISABLE=true`.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

mod dap;
mod history;
mod memcheck;
mod readback;
mod trace;

type Result<T> = std::result::Result<T, String>;

/// Command-line options.
struct Options {
    runs: usize,
    calls: u64,
    steps: u64,
    glmark2_seconds: f64,
    /// The glmark2 executable (default: `glmark2` on PATH).
    glmark2: Option<PathBuf>,
    /// Extra glmark2 arguments (`--glmark2-arg A`, repeatable), e.g. `--data-path DIR`.
    glmark2_args: Vec<String>,
    /// (g): the app's timed iterations per run, and its small sizes.
    memcheck_iterations: u32,
    memcheck_small: bool,
    only: String,
}

impl Options {
    fn parse() -> Result<Options> {
        let mut o = Options {
            runs: 5,
            calls: 2_000_000,
            steps: 100_000,
            glmark2_seconds: 2.0,
            glmark2: None,
            glmark2_args: Vec::new(),
            memcheck_iterations: 10,
            memcheck_small: false,
            only: "abcdefg".into(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(a) = args.next() {
            let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value"));
            match a.as_str() {
                "--runs" => o.runs = parse(&value("--runs")?)?,
                "--calls" => o.calls = parse(&value("--calls")?)?,
                "--steps" => o.steps = parse(&value("--steps")?)?,
                "--glmark2-seconds" => o.glmark2_seconds = parse(&value("--glmark2-seconds")?)?,
                "--glmark2" => o.glmark2 = Some(value("--glmark2")?.into()),
                "--glmark2-arg" => o.glmark2_args.push(value("--glmark2-arg")?),
                "--memcheck-iterations" => {
                    o.memcheck_iterations = parse(&value("--memcheck-iterations")?)?
                }
                "--memcheck-small" => o.memcheck_small = true,
                "--only" => o.only = value("--only")?.replace(',', ""),
                "-h" | "--help" => {
                    println!(
                        "usage: gldbg-bench [--runs N] [--calls N] [--steps N] \
                         [--glmark2-seconds S] [--glmark2 PATH] [--glmark2-arg A]... \
                         [--memcheck-iterations N] [--memcheck-small] [--only a,b,c,d,e,f,g]"
                    );
                    std::process::exit(0);
                }
                other => return Err(format!("unknown argument {other:?} (see --help)")),
            }
        }
        if o.runs == 0 || o.calls == 0 || o.steps == 0 {
            return Err("--runs, --calls and --steps must be at least 1".into());
        }
        Ok(o)
    }
}

fn parse<T: std::str::FromStr>(s: &str) -> Result<T> {
    s.parse().map_err(|_| format!("not a number: {s:?}"))
}

fn main() {
    if let Err(e) = run() {
        eprintln!("gldbg-bench: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<()> {
    let opts = Options::parse()?;
    let gldbg = find_gldbg()?;
    let work = WorkDir::new()?;
    let app = build_uniform_loop(&work)?;
    println!(
        "gldbg-bench: {} (gldbg: {}); {} runs per mode, interleaved",
        renderer(&app)?,
        gldbg.display(),
        opts.runs
    );
    if opts.only.contains('a') {
        call_cost(&opts, &gldbg, &app, &work)?;
    }
    if opts.only.contains('b') {
        stop_round_trip(&opts, &gldbg, &app, &work)?;
    }
    if opts.only.contains('c') {
        glmark2(&opts, &gldbg, &work)?;
    }
    if opts.only.contains('d') {
        step_latency(&opts, &gldbg, &work)?;
        readback::print_readback(&opts, &gldbg, &work)?;
        trace::trace_walk(&opts, &gldbg, &work)?;
    }
    if opts.only.contains('e') {
        dap::dap_steps(&opts, &gldbg, &work)?;
    }
    if opts.only.contains('f') {
        history::pixel_history(&opts, &gldbg, &work)?;
    }
    if opts.only.contains('g') {
        memcheck::memcheck(&opts, &gldbg, &work)?;
    }
    Ok(())
}

// ---------------------------------------------------------------------------
// Set-up

/// `$GLDBG`, else `gldbg` beside this executable.
fn find_gldbg() -> Result<PathBuf> {
    if let Some(p) = std::env::var_os("GLDBG") {
        return Ok(PathBuf::from(p));
    }
    let exe = std::env::current_exe().map_err(|e| format!("current_exe: {e}"))?;
    let path = exe.with_file_name("gldbg");
    if path.exists() {
        Ok(path)
    } else {
        Err(format!(
            "{} is missing: `cargo build --workspace` (or set GLDBG)",
            path.display()
        ))
    }
}

/// A private temporary directory, removed on drop.
struct WorkDir(PathBuf);

impl WorkDir {
    fn new() -> Result<WorkDir> {
        let dir = std::env::temp_dir().join(format!("gldbg-bench-{}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(WorkDir(dir))
    }

    fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }

    /// Writes a gldbg script and returns its path.
    fn script(&self, name: &str, text: &str) -> Result<PathBuf> {
        let path = self.join(name);
        std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(path)
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The C source `apps/NAME.c` under the current directory's `bench/` (a
/// copied tree), else where this package was built from.
fn app_source(name: &str) -> Result<PathBuf> {
    let candidates = [
        PathBuf::from(format!("bench/apps/{name}.c")),
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("apps/{name}.c")),
    ];
    candidates
        .into_iter()
        .find(|p| p.exists())
        .ok_or_else(|| format!("apps/{name}.c not found"))
}

/// `$env` (a prebuilt app, for machines without a C toolchain), else
/// `apps/NAME.c` compiled into `work` and linked with `libs`.
fn build_app(work: &WorkDir, name: &str, env: &str, libs: &[&str]) -> Result<PathBuf> {
    if let Some(p) = std::env::var_os(env) {
        return Ok(PathBuf::from(p));
    }
    let exe = work.join(name);
    let out = Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-O2", "-Wall", "-o"])
        .arg(&exe)
        .arg(app_source(name)?)
        .args(libs)
        .output()
        .map_err(|e| format!("cannot run cc: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "building {name} failed (libegl-dev, libgl-dev, libopengl-dev?):\n{}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(exe)
}

fn build_uniform_loop(work: &WorkDir) -> Result<PathBuf> {
    build_app(work, "uniform_loop", "GLDBG_BENCH_APP", &["-lEGL"])
}

/// A command with the environment every measured run gets.
fn command(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut c = Command::new(program);
    c.env("MESA_SHADER_CACHE_DISABLE", "true")
        .stdin(Stdio::null());
    c
}

/// Runs to the end; stdout (stderr shown on failure). Fails on a non-zero exit.
fn output(mut cmd: Command, what: &str) -> Result<String> {
    let out = cmd.output().map_err(|e| format!("{what}: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!(
            "{what} failed ({}):\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(stdout)
}

/// The word after `key ` on the first line that has it.
fn field<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines().find_map(|l| {
        let i = l.find(key)?;
        l[i + key.len()..].split_whitespace().next()
    })
}

fn renderer(app: &Path) -> Result<String> {
    let mut c = command(app);
    c.arg("1000");
    let out = output(c, "uniform_loop")?;
    Ok(out
        .lines()
        .find_map(|l| l.strip_prefix("renderer "))
        .unwrap_or("unknown renderer")
        .to_string())
}

// ---------------------------------------------------------------------------
// Statistics and printing

fn min(v: &[f64]) -> f64 {
    v.iter().copied().fold(f64::INFINITY, f64::min)
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len();
    if n % 2 == 1 {
        s[n / 2]
    } else {
        (s[n / 2 - 1] + s[n / 2]) / 2.0
    }
}

// ---------------------------------------------------------------------------
// (a) Run-mode cost per call

/// Builds the command that runs uniform_loop (its path) with `N` calls.
type MakeCommand = Box<dyn Fn(&Path, u64) -> Command>;

/// One way of running uniform_loop.
struct Mode {
    name: &'static str,
    command: MakeCommand,
    samples: Vec<f64>,
}

fn call_cost(opts: &Options, gldbg: &Path, app: &Path, work: &WorkDir) -> Result<()> {
    let cont = work.script("continue.gldbg", "continue\n")?;
    // glDispatchCompute: uniform_loop never dispatches.
    let elsewhere = work.script("elsewhere.gldbg", "break glDispatchCompute\ncontinue\n")?;
    let gldbg_with = |script: PathBuf| {
        let gldbg = gldbg.to_path_buf();
        Box::new(move |app: &Path, n: u64| {
            let mut c = command(&gldbg);
            c.args(["run", "--batch", "-x"])
                .arg(&script)
                .arg("--")
                .arg(app)
                .arg(n.to_string());
            c
        }) as MakeCommand
    };
    let mut modes = vec![
        Mode {
            name: "native",
            command: Box::new(|app: &Path, n: u64| {
                let mut c = command(app);
                c.arg(n.to_string());
                c
            }),
            samples: vec![],
        },
        Mode {
            name: "gldbg run (continue)",
            command: gldbg_with(cont),
            samples: vec![],
        },
        Mode {
            name: "gldbg run, break on an uncalled function",
            command: gldbg_with(elsewhere),
            samples: vec![],
        },
    ];
    if let Ok(apitrace) = which("apitrace") {
        let trace = work.join("uniform_loop.trace");
        modes.push(Mode {
            name: "apitrace trace --api egl",
            command: Box::new(move |app: &Path, n: u64| {
                let mut c = command(&apitrace);
                // --api egl: apitrace's default wrapper is GLX's.
                c.args(["trace", "--api", "egl", "-o"])
                    .arg(&trace)
                    .arg(app)
                    .arg(n.to_string());
                c
            }),
            samples: vec![],
        });
    } else {
        println!("(apitrace not installed: its row is left out)");
    }

    for _ in 0..opts.runs {
        for mode in &mut modes {
            let out = output((mode.command)(app, opts.calls), mode.name)?;
            let ns: f64 = field(&out, "ns_per_call ")
                .and_then(|s| s.parse().ok())
                .ok_or_else(|| format!("{}: no ns_per_call in:\n{out}", mode.name))?;
            mode.samples.push(ns);
        }
    }
    let base = median(&modes[0].samples);
    println!();
    println!(
        "(a) run-mode cost per GL call: {} x glUniform1f through eglGetProcAddress, timed inside the app",
        opts.calls
    );
    println!(
        "    {:<42} {:>10} {:>10} {:>12} {:>8}",
        "mode", "min ns", "median ns", "added ns", "ratio"
    );
    for m in &modes {
        let med = median(&m.samples);
        println!(
            "    {:<42} {:>10.2} {:>10.2} {:>+12.2} {:>8.2}",
            m.name,
            min(&m.samples),
            med,
            med - base,
            med / base
        );
    }
    println!("    goal: under 5 ns added per call in run mode");
    Ok(())
}

fn which(program: &str) -> Result<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|d| d.join(program))
        .find(|p| p.exists())
        .ok_or_else(|| format!("{program} not found"))
}

// ---------------------------------------------------------------------------
// (b) Stop round trip

/// Time between the result lines of `step 1` and `step N`, read as gldbg
/// prints them.
fn one_step_run(gldbg: &Path, app: &Path, script: &Path, steps: u64) -> Result<Duration> {
    let mut child: Child = command(gldbg)
        .args(["run", "--batch", "--json", "-x"])
        .arg(script)
        .arg("--")
        .arg(app)
        // Enough calls to step through: a warm-up of n/10, then n.
        .arg((steps * 2).to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("gldbg: {e}"))?;
    let stdout = child.stdout.take().unwrap();
    let big = format!("\"cmd\":\"step {steps}\"");
    let (mut t1, mut tn) = (None, None);
    for line in BufReader::new(stdout).lines() {
        let Ok(line) = line else { break };
        let now = Instant::now();
        let ok = line.contains("\"ok\":true");
        if line.contains("\"cmd\":\"step 1\"") {
            if !ok {
                return Err(format!("step 1 failed: {line}"));
            }
            t1 = Some(now);
        } else if line.contains(&big) {
            if !ok {
                return Err(format!("step {steps} failed: {line}"));
            }
            tn = Some(now);
        }
    }
    let _ = child.wait();
    match (t1, tn) {
        (Some(a), Some(b)) => Ok(b - a),
        _ => Err("gldbg printed no step results".into()),
    }
}

fn stop_round_trip(opts: &Options, gldbg: &Path, app: &Path, work: &WorkDir) -> Result<()> {
    let script = work.script("step.gldbg", &format!("step 1\nstep {}\n", opts.steps))?;
    let runs = opts.runs.div_ceil(2);
    let mut us = Vec::new();
    for _ in 0..runs {
        let d = one_step_run(gldbg, app, &script, opts.steps)?;
        us.push(d.as_secs_f64() * 1e6 / opts.steps as f64);
    }
    println!();
    println!(
        "(b) stop round trip: `step {}` (stop, report, command, resume per call), {} runs",
        opts.steps, runs
    );
    println!(
        "    per stepped call: min {:.2} us, median {:.2} us (goal: under 5 us)",
        min(&us),
        median(&us)
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// (c) glmark2

/// An Xvfb of our own, killed on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Result<Xvfb> {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "640x480x24",
                "-nolisten",
                "tcp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start Xvfb: {e}"))?;
        let mut line = String::new();
        let _ = BufReader::new(child.stdout.take().unwrap()).read_line(&mut line);
        let n = line.trim();
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
            let _ = child.kill();
            return Err(format!("Xvfb reported no display ({line:?})"));
        }
        Ok(Xvfb {
            display: format!(":{n}"),
            child,
        })
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn glmark2_score(mut cmd: Command, display: &str, what: &str) -> Result<f64> {
    cmd.env("DISPLAY", display);
    let out = output(cmd, what)?;
    field(&out, "glmark2 Score: ")
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("{what}: no score in:\n{out}"))
}

fn glmark2(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let glmark2 = match &opts.glmark2 {
        Some(p) => p.clone(),
        None => match which("glmark2") {
            Ok(p) => p,
            Err(_) => {
                println!("\n(c) glmark2 not installed (Debian glmark2-x11): left out");
                return Ok(());
            }
        },
    };
    let x = Xvfb::start()?;
    let cont = work.script("glmark2.gldbg", "continue\n")?;
    let d = opts.glmark2_seconds;
    let mut args = vec![
        "-b".to_string(),
        format!("build:duration={d}"),
        "-b".to_string(),
        format!("shading:duration={d}"),
        "-b".to_string(),
        format!("texture:duration={d}"),
        "--size".to_string(),
        "320x240".to_string(),
    ];
    args.extend(opts.glmark2_args.iter().cloned());
    let native_run = || {
        let mut c = command(&glmark2);
        c.args(&args);
        glmark2_score(c, &x.display, "glmark2")
    };
    let gldbg_run = || {
        let mut c = command(gldbg);
        c.args(["run", "--batch", "-x"])
            .arg(&cont)
            .arg("--")
            .arg(&glmark2)
            .args(&args);
        glmark2_score(c, &x.display, "gldbg run glmark2")
    };
    // Pairs, the order swapped every pair, so that a drift of the machine
    // (another process, clocks) weighs on both sides alike.
    let runs = opts.runs.div_ceil(2);
    let (mut native, mut under, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..runs {
        let (n, u) = if i % 2 == 0 {
            let n = native_run()?;
            (n, gldbg_run()?)
        } else {
            let u = gldbg_run()?;
            (native_run()?, u)
        };
        native.push(n);
        under.push(u);
        ratios.push(u / n);
    }
    println!();
    println!(
        "(c) glmark2 score (build, shading, texture; {d} s each; 320x240 on Xvfb), {runs} pairs, order alternated"
    );
    println!(
        "    native {:?} -> median {:.0}; under gldbg run {:?} -> median {:.0}",
        native,
        median(&native),
        under,
        median(&under),
    );
    println!(
        "    ratio gldbg/native: of medians {:.3}; median of pair ratios {:.3} (goal: at least 0.98)",
        median(&under) / median(&native),
        median(&ratios)
    );
    Ok(())
}

// ---------------------------------------------------------------------------
// (d) Shader step latency

/// The session of one (d) run: a cold and a warm `print` in a loop of the
/// fragment shader (draw 1, the 1080p quad) and of the vertex shader
/// (draw 2, the 1M-vertex grid). Line 8 of both shaders is in their loop.
const STEP_SCRIPT: &str = "break draw\ncontinue\ndebug fragment\nbreak 8\ncontinue\nprint acc\n\
    continue\nprint acc\nprint vec4(acc)\ncontinue\nend\ncontinue\ndebug vertex\nbreak 8\n\
    continue\nprint wobble\ncontinue\nprint wobble\ncontinue\nend\nkill\n";

/// One probe's cost, from a result line's `"timing"` (nanoseconds).
#[derive(Clone, Copy, Default)]
struct ProbeCost {
    instrument: f64,
    build: f64,
    replay: f64,
    readback: f64,
    total: f64,
    cached: bool,
}

/// The number after `"key":` in a JSON line (no JSON parser: this crate
/// has no dependencies).
fn json_number(line: &str, key: &str) -> Option<f64> {
    let pat = format!("\"{key}\":");
    let i = line.find(&pat)? + pat.len();
    let rest = &line[i..];
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-'))
        .unwrap_or(rest.len());
    rest[..end].parse().ok()
}

/// The probe of a `print` result line: a summary print also probes the
/// step's coverage, already cached from the stop, so its timing is the
/// value probe's alone.
fn probe_cost(line: &str) -> Result<ProbeCost> {
    let cost = mean_probe_cost(line)?;
    if json_number(line, "probes") != Some(1.0) {
        return Err(format!("expected one probe: {line}"));
    }
    Ok(cost)
}

/// The mean cost of the probes of a result line (a `continue` runs one
/// coverage-only probe per step it passes); `cached` if all reused their
/// program.
fn mean_probe_cost(line: &str) -> Result<ProbeCost> {
    let n =
        |k: &str| json_number(line, k).ok_or_else(|| format!("no {k} in the timing of: {line}"));
    let probes = n("probes")?.max(1.0);
    Ok(ProbeCost {
        instrument: n("instrument_ns")? / probes,
        build: n("build_ns")? / probes,
        replay: n("replay_ns")? / probes,
        readback: n("readback_ns")? / probes,
        total: n("total_ns")? / probes,
        cached: n("cached_programs")? >= probes,
    })
}

fn step_latency(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let app = build_app(
        work,
        "step_latency",
        "GLDBG_BENCH_STEP_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let script = work.script("steps.gldbg", STEP_SCRIPT)?;
    // Per run: the prints [fragment cold, fragment warm, fragment vec4,
    // vertex cold, vertex warm], then the warm coverage-only steps of the
    // third `continue` of each stage (every step it passes was probed at
    // the iteration before) [fragment, vertex].
    // Each draw's GPU time, natively (the app prints `draw ms D1 D2`): the
    // cold-step budget counts two.
    let native = output(command(&app), "step_latency natively")?;
    let draw_ms: Vec<f64> = native
        .split("draw ms")
        .nth(1)
        .map(|t| {
            t.split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let [fragment_draw, vertex_draw] = draw_ms[..] else {
        return Err(format!("no draw times in: {native}"));
    };
    let mut runs: Vec<[ProbeCost; 9]> = Vec::new();
    for _ in 0..opts.runs.div_ceil(2) {
        let mut c = command(gldbg);
        c.args(["run", "--batch", "--json", "-x"])
            .arg(&script)
            .arg("--")
            .arg(&app);
        let out = output(c, "gldbg run (step latency)")?;
        let lines = |prefix: &str| -> Vec<&str> {
            out.lines()
                .filter(|l| l.contains(&format!("\"cmd\":\"{prefix}")))
                .collect()
        };
        let (prints, continues) = (lines("print "), lines("continue\""));
        if prints.len() != 5
            || continues.len() != 8
            || prints
                .iter()
                .chain(&continues)
                .any(|l| !l.contains("\"ok\":true"))
        {
            return Err(format!("the step latency session failed:\n{out}"));
        }
        let mut costs = [ProbeCost::default(); 9];
        for (c, line) in costs.iter_mut().zip(&prints) {
            *c = probe_cost(line)?;
        }
        // continues: [GL, fragment 1st, 2nd, 3rd, GL, vertex 1st, 2nd, 3rd]
        costs[5] = mean_probe_cost(continues[3])?;
        costs[6] = mean_probe_cost(continues[7])?;
        // The first `continue` of each stage probes new steps only: cold.
        costs[7] = mean_probe_cost(continues[1])?;
        costs[8] = mean_probe_cost(continues[5])?;
        let warm = [1, 4, 5, 6];
        if costs[0].cached || costs[3].cached || warm.iter().any(|&i| !costs[i].cached) {
            return Err(format!(
                "cold probes must build their program and warm ones reuse it:\n{}\n{}",
                prints.join("\n"),
                continues.join("\n")
            ));
        }
        runs.push(costs);
    }
    let ms = |i: usize, f: fn(&ProbeCost) -> f64| {
        median(&runs.iter().map(|r| f(&r[i]) / 1e6).collect::<Vec<_>>())
    };
    println!();
    println!(
        "(d) shader step latency (median of {} runs, ms): a probe = instrument + build + replay + readback + other",
        runs.len()
    );
    println!(
        "    (other: the request, the preload's state save/restore and debug framebuffer, the daemon's copy and decoding)"
    );
    println!(
        "    {:<34} {:>10} {:>8} {:>8} {:>9} {:>8} {:>8}",
        "probe", "instrument", "build", "replay", "readback", "other", "total"
    );
    let names = [
        "fragment 1920x1080, cold print",
        "fragment 1920x1080, warm print",
        "fragment 1920x1080, vec4 print",
        "vertex 1M vertices, cold print",
        "vertex 1M vertices, warm print",
        "fragment 1920x1080, warm step",
        "vertex 1M vertices, warm step",
        "fragment 1920x1080, cold step",
        "vertex 1M vertices, cold step",
    ];
    for (i, name) in names.iter().enumerate() {
        println!(
            "    {:<34} {:>10.2} {:>8.2} {:>8.2} {:>9.2} {:>8.2} {:>8.2}",
            name,
            ms(i, |c| c.instrument),
            ms(i, |c| c.build),
            ms(i, |c| c.replay),
            ms(i, |c| c.readback),
            ms(i, |c| c.total
                - c.instrument
                - c.build
                - c.replay
                - c.readback),
            ms(i, |c| c.total)
        );
    }
    for (cold_step, warm_print, warm_step, draw, stage) in [
        (7, 1, 5, fragment_draw, "fragment"),
        (8, 4, 6, vertex_draw, "vertex"),
    ] {
        let cold_budget = ms(cold_step, |c| c.build) + 2.0 * draw + 5.0;
        println!(
            "    {stage}: warm step {:.2} ms, warm print {:.2} ms (goal on a GPU: under 5 ms); \
             cold step {:.2} ms vs build + 2 x draw ({draw:.2} ms natively) + 5 ms = {:.2} ms",
            ms(warm_step, |c| c.total),
            ms(warm_print, |c| c.total),
            ms(cold_step, |c| c.total),
            cold_budget
        );
    }
    println!(
        "    1080p readback: RGBA32F value + coverage {:.2} ms (goal on a GPU: under 10 ms); \
         R32F value + coverage {:.2} ms; coverage alone {:.2} ms",
        ms(2, |c| c.readback),
        ms(1, |c| c.readback),
        ms(5, |c| c.readback)
    );
    Ok(())
}
