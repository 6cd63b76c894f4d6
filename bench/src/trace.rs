//! (d), continued: walking one invocation's run. The fragment shader of
//! `apps/step_latency.c` at 1920x1080 (a loop of 8 iterations), focused at
//! one pixel, stepped from the entry of `main` to its end with its two
//! locals printed at every stop: as gldbg does it (the first step records
//! the focused invocation's run in one replay; every later step and print
//! reads the trace) and with `GLDBG_TRACE=off` (a replay per step and per
//! print: the way before), side by side in the same run.

use std::path::Path;
use std::time::Instant;

use super::{Options, Result, WorkDir, build_app, command, json_number, median, output};

/// Steps from the entry of `main`: more than the shader has (the last
/// ones are at the end of `main` and replay nothing either way).
const STEPS: usize = 32;

fn script() -> String {
    let mut s = String::from("break draw\ncontinue\ndebug fragment\nfocus 960,540\n");
    for _ in 0..STEPS {
        s += "step\nprint acc @ 960,540\nprint v_uv @ 960,540\n";
    }
    s + "end\nkill\n"
}

/// One walk: its replays, their summed time (ms) and the session's wall time (s).
#[derive(Clone, Copy, Default)]
struct Walk {
    probes: f64,
    probe_ms: f64,
    wall_s: f64,
}

fn walk(gldbg: &Path, app: &Path, script: &Path, off: bool) -> Result<Walk> {
    let mut c = command(gldbg);
    c.args(["run", "--batch", "--json", "-x"])
        .arg(script)
        .arg("--")
        .arg(app);
    if off {
        c.env("GLDBG_TRACE", "off");
    }
    let t0 = Instant::now();
    let out = output(c, "gldbg run (trace walk)")?;
    let wall_s = t0.elapsed().as_secs_f64();
    let mut w = Walk {
        wall_s,
        ..Walk::default()
    };
    for line in out
        .lines()
        .filter(|l| l.contains("\"cmd\":\"step\"") || l.contains("\"cmd\":\"print "))
    {
        if !line.contains("\"ok\":true") {
            return Err(format!("the trace walk failed: {line}"));
        }
        w.probes += json_number(line, "probes").unwrap_or(0.0);
        w.probe_ms += json_number(line, "total_ns").unwrap_or(0.0) / 1e6;
    }
    Ok(w)
}

pub(super) fn trace_walk(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let app = build_app(
        work,
        "step_latency",
        "GLDBG_BENCH_STEP_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let script = work.script("trace_walk.gldbg", &script())?;
    let mut runs: Vec<[Walk; 2]> = Vec::new();
    for _ in 0..opts.runs.div_ceil(2) {
        runs.push([
            walk(gldbg, &app, &script, false)?,
            walk(gldbg, &app, &script, true)?,
        ]);
    }
    let med = |mode: usize, f: fn(&Walk) -> f64| {
        median(&runs.iter().map(|r| f(&r[mode])).collect::<Vec<_>>())
    };
    println!();
    println!(
        "(d) a focused fragment walked from main's entry to its end, {STEPS} steps, 2 locals printed \
         at each (1920x1080; median of {} runs)",
        runs.len()
    );
    println!(
        "    {:<28} {:>8} {:>12} {:>14}",
        "mode", "replays", "replay ms", "session wall s"
    );
    for (mode, name) in [
        (0, "trace (as gldbg runs)"),
        (1, "GLDBG_TRACE=off (before)"),
    ] {
        println!(
            "    {:<28} {:>8.0} {:>12.2} {:>14.2}",
            name,
            med(mode, |w| w.probes),
            med(mode, |w| w.probe_ms),
            med(mode, |w| w.wall_s)
        );
    }
    println!(
        "    replay time: {:.1}x less with the trace; session: {:.1}x faster",
        med(1, |w| w.probe_ms) / med(0, |w| w.probe_ms).max(1e-9),
        med(1, |w| w.wall_s) / med(0, |w| w.wall_s).max(1e-9)
    );
    Ok(())
}
