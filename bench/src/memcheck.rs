//! (g) memcheck's cost: `apps/memcheck_compute.c` times two compute
//! kernels per iteration inside the app (a shared-memory tree reduction of
//! 16M floats: a dispatch of partial sums and one of the final sum; a
//! tiled 1024x1024 matrix product), CPU wall time around the dispatches
//! and a glFinish, and GPU time from a GL_TIME_ELAPSED query. Round by
//! round: the app natively, then under `gldbg run --memcheck --batch --json`
//! (script `continue`), each printing the median of its iterations per
//! kernel. The table gives native and checked ms per kernel (the median
//! and the minimum over the runs) and their ratios. A checked run must
//! still print the app's `ok` (its results match the CPU's) and report no
//! finding (the kernels are correct): a finding is printed as a false
//! positive. On llvmpipe take `--memcheck-small` (2^20 floats, 256x256):
//! the full product takes seconds per iteration there, and llvmpipe
//! reports GL_TIME_ELAPSED times of 0 (the table says so).

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Options, Result, WorkDir, build_app, command, median, min, output};

/// The app's kernels, in the order it prints them.
const KERNELS: [&str; 2] = ["reduce", "matmul"];

/// One kernel's times in one run of the app (the median of its iterations).
#[derive(Clone, Copy, Debug, Default)]
struct Times {
    cpu_ms: f64,
    gpu_ms: f64,
}

/// One run of the app: per kernel its times and size; findings reported.
struct AppRun {
    times: [Times; 2],
    sizes: [u64; 2],
    findings: usize,
}

/// The `memcheck_compute: kernel ...` lines of the app's output, which must
/// end with `memcheck_compute: ok`.
fn parse_app(text: &str, what: &str) -> Result<([Times; 2], [u64; 2])> {
    if !text.lines().any(|l| l.trim() == "memcheck_compute: ok") {
        return Err(format!("{what}: the app did not print ok:\n{text}"));
    }
    let mut times = [Times::default(); 2];
    let mut sizes = [0; 2];
    for (i, name) in KERNELS.iter().enumerate() {
        let line = text
            .lines()
            .find(|l| l.contains(&format!("memcheck_compute: kernel {name} ")))
            .ok_or_else(|| format!("{what}: no line for kernel {name}:\n{text}"))?;
        let num = |key: &str| -> Result<f64> {
            super::field(line, &format!("{key} "))
                .and_then(|v| v.parse().ok())
                .ok_or_else(|| format!("{what}: no {key} in: {line}"))
        };
        times[i] = Times {
            cpu_ms: num("cpu_ms")?,
            gpu_ms: num("gpu_ms")?,
        };
        sizes[i] = num("size")? as u64;
    }
    Ok((times, sizes))
}

/// The app with `args`, natively.
fn native_run(app: &Path, args: &[String]) -> Result<AppRun> {
    let mut c = command(app);
    c.args(args);
    let out = output(c, "memcheck_compute natively")?;
    let (times, sizes) = parse_app(&out, "native run")?;
    Ok(AppRun {
        times,
        sizes,
        findings: 0,
    })
}

/// The app with `args` under `gldbg run --memcheck --batch --json`: its
/// output comes as `output` events; findings as `memcheck` events.
fn checked_run(gldbg: &Path, script: &Path, app: &Path, args: &[String]) -> Result<AppRun> {
    let mut c = command(gldbg);
    c.args(["run", "--memcheck", "--batch", "--json", "-x"])
        .arg(script)
        .arg("--")
        .arg(app)
        .args(args);
    let out = output(c, "gldbg run --memcheck").map_err(|e| {
        // Until the flag exists gldbg takes it for the program's name.
        if e.contains("--memcheck") {
            format!(
                "section (g) needs `gldbg run --memcheck` (issue 17), which this gldbg \
                 does not have:\n{e}"
            )
        } else {
            e
        }
    })?;
    let mut app_text = String::new();
    let mut findings = 0;
    for line in out.lines() {
        if line.contains("\"event\":\"memcheck\"") {
            findings += 1;
            println!("    ! memcheck finding on a correct kernel (false positive): {line}");
        } else if line.contains("\"event\":\"output\"") {
            let v: Value = serde_json::from_str(line).unwrap_or_default();
            app_text += v["text"].as_str().unwrap_or_default();
        }
    }
    let (times, sizes) = parse_app(&app_text, "checked run")
        .map_err(|e| format!("{e}\n(gldbg's output:)\n{out}"))?;
    Ok(AppRun {
        times,
        sizes,
        findings,
    })
}

pub(super) fn memcheck(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let app: PathBuf = build_app(
        work,
        "memcheck_compute",
        "GLDBG_BENCH_MEMCHECK_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let script = work.script("memcheck.gldbg", "continue\n")?;
    let mut args = vec![
        "--iterations".to_string(),
        opts.memcheck_iterations.to_string(),
    ];
    if opts.memcheck_small {
        args.push("--small".into());
    }
    // [run] (native, checked)
    let mut runs: Vec<(AppRun, AppRun)> = Vec::new();
    for _ in 0..opts.runs {
        let native = native_run(&app, &args)?;
        let checked = checked_run(gldbg, &script, &app, &args)?;
        runs.push((native, checked));
    }
    print_table(opts, &runs);
    Ok(())
}

fn print_table(opts: &Options, runs: &[(AppRun, AppRun)]) {
    let sizes = runs[0].0.sizes;
    println!();
    println!(
        "(g) memcheck: {} runs of memcheck_compute ({} iterations each, the median per run): \
         reduce {} floats, matmul {}x{}; ms per kernel",
        runs.len(),
        opts.memcheck_iterations,
        sizes[0],
        sizes[1],
        sizes[1]
    );
    println!(
        "    {:<8} {:>6} {:>19} {:>19} {:>19}",
        "kernel", "time", "native (min)", "checked (min)", "ratio (min)"
    );
    for (i, name) in KERNELS.iter().enumerate() {
        for (label, f) in [
            ("cpu", (|t: &Times| t.cpu_ms) as fn(&Times) -> f64),
            ("gpu", |t: &Times| t.gpu_ms),
        ] {
            let native: Vec<f64> = runs.iter().map(|r| f(&r.0.times[i])).collect();
            let checked: Vec<f64> = runs.iter().map(|r| f(&r.1.times[i])).collect();
            let (nm, cm) = (median(&native), median(&checked));
            let (nn, cn) = (min(&native), min(&checked));
            if nm == 0.0 {
                println!(
                    "    {name:<8} {label:>6} {:>19} (no GL_TIME_ELAPSED time: the driver reports 0)",
                    "-"
                );
                continue;
            }
            println!(
                "    {name:<8} {label:>6} {nm:>9.3} ({nn:>7.3}) {cm:>9.3} ({cn:>7.3}) {:>9.2} ({:>7.2})",
                cm / nm,
                cn / nn
            );
        }
    }
    let findings: usize = runs.iter().map(|r| r.1.findings).sum();
    println!(
        "    (cpu: wall time around the kernel's dispatches and glFinish, in the app; gpu: its \
         GL_TIME_ELAPSED query) findings: {findings} (expected 0)"
    );
    println!("    goal: checked under 3x native on a GPU (CUDAdb: 3-4x)");
}
