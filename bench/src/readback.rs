//! (d), continued: what a `print` reads back. The same warm prints, run
//! as gldbg runs them (`print @` reads one invocation back, a summary
//! `print` a reduction the GPU made) and with `GLDBG_READBACK=all` (every
//! invocation read back, reduced on the CPU: the way before), side by side
//! in the same run: `print @ X,Y` and float and vec4 summaries of the
//! fragment stage at 1920x1080, the vertex stage at 1M vertices
//! (`apps/step_latency.c`) and a compute dispatch of 1M invocations
//! (`apps/compute_latency.c`).

use std::path::Path;

use super::{
    Options, Result, WorkDir, build_app, command, json_number, median, output, probe_cost,
};

/// Each stage's script: the prints once cold (the debug programs built),
/// then warm at later loop iterations (same programs, another loop path),
/// the point and the summaries at different iterations so that a whole
/// readback of one is never reused by the other.
fn script(debug: &str, point: &str, var: &str) -> String {
    format!(
        "debug {debug}\nbreak 8\ncontinue\nprint {var} {point}\nprint {var}\nprint vec4({var})\n\
         continue\nprint {var} {point}\ncontinue\nprint {var}\nprint vec4({var})\nend\n"
    )
}

/// The rows: (label, the print's command).
fn rows() -> Vec<(String, String)> {
    let mut rows = Vec::new();
    for (stage, (point, label), var) in [
        ("fragment 1920x1080", ("@ 960,540", "@ X,Y"), "acc"),
        ("vertex 1M", ("@ vertex 500000", "@ vertex N"), "wobble"),
        (
            "compute 1M",
            ("@ invocation 500000,0,0", "@ invocation"),
            "acc",
        ),
    ] {
        rows.push((
            format!("{stage}, print {label}"),
            format!("print {var} {point}"),
        ));
        rows.push((format!("{stage}, float summary"), format!("print {var}")));
        rows.push((
            format!("{stage}, vec4 summary"),
            format!("print vec4({var})"),
        ));
    }
    rows
}

/// One print's warm cost: total and readback (ms), bytes read back.
#[derive(Clone, Copy, Default)]
struct Cost {
    total: f64,
    readback: f64,
    bytes: f64,
}

/// The last (warm) result line of `cmd` in a session's output.
fn warm(out: &str, cmd: &str) -> Result<Cost> {
    let pat = format!("\"cmd\":\"{cmd}\"");
    let line = out
        .lines()
        .rfind(|l| l.contains(&pat))
        .ok_or_else(|| format!("no result of {cmd:?} in:\n{out}"))?;
    if !line.contains("\"ok\":true") {
        return Err(format!("{cmd:?} failed: {line}"));
    }
    let cost = probe_cost(line)?;
    if !cost.cached {
        return Err(format!("{cmd:?} is not warm: {line}"));
    }
    Ok(Cost {
        total: cost.total / 1e6,
        readback: cost.readback / 1e6,
        bytes: json_number(line, "readback_bytes").unwrap_or(0.0),
    })
}

/// One session of `app` with `script`; `all`: every readback whole.
fn session(gldbg: &Path, app: &Path, script: &Path, all: bool) -> Result<String> {
    let mut c = command(gldbg);
    c.args(["run", "--batch", "--json", "-x"])
        .arg(script)
        .arg("--")
        .arg(app);
    if all {
        c.env("GLDBG_READBACK", "all");
    }
    output(c, "gldbg run (print readback)")
}

pub(super) fn print_readback(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let draws = build_app(
        work,
        "step_latency",
        "GLDBG_BENCH_STEP_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let dispatch = build_app(
        work,
        "compute_latency",
        "GLDBG_BENCH_COMPUTE_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let draws_script = format!(
        "break draw\ncontinue\n{}continue\n{}kill\n",
        script("fragment", "@ 960,540", "acc"),
        script("vertex", "@ vertex 500000", "wobble")
    );
    let draws_script = work.script("prints.gldbg", &draws_script)?;
    let dispatch_script = format!(
        "break glDispatchCompute\ncontinue\n{}kill\n",
        script("compute", "@ invocation 500000,0,0", "acc")
    );
    let dispatch_script = work.script("dispatch.gldbg", &dispatch_script)?;
    let rows = rows();
    // Per run, per mode (as asked, all), per row.
    let mut runs: Vec<[Vec<Cost>; 2]> = Vec::new();
    for _ in 0..opts.runs.div_ceil(2) {
        let mut run: [Vec<Cost>; 2] = Default::default();
        for (mode, costs) in run.iter_mut().enumerate() {
            let all = mode == 1;
            // Rows 0..6 are the draws', 6..9 the dispatch's.
            let outs = [
                session(gldbg, &draws, &draws_script, all)?,
                session(gldbg, &dispatch, &dispatch_script, all)?,
            ];
            for (i, (_, cmd)) in rows.iter().enumerate() {
                costs.push(warm(&outs[i / 6], cmd)?);
            }
        }
        runs.push(run);
    }
    let med = |mode: usize, row: usize, f: fn(&Cost) -> f64| {
        median(&runs.iter().map(|r| f(&r[mode][row])).collect::<Vec<_>>())
    };
    println!();
    println!(
        "(d) print readback, warm (median of {} runs): as gldbg reads back (one invocation, \
         a GPU summary) vs every invocation (GLDBG_READBACK=all), same run",
        runs.len()
    );
    println!(
        "    {:<38} {:>8} {:>9} {:>10} {:>8} {:>9} {:>10} {:>7}",
        "print", "ms", "readback", "bytes", "all ms", "readback", "bytes", "ratio"
    );
    for (i, (label, _)) in rows.iter().enumerate() {
        println!(
            "    {:<38} {:>8.2} {:>9.2} {:>10.0} {:>8.2} {:>9.2} {:>10.0} {:>6.1}x",
            label,
            med(0, i, |c| c.total),
            med(0, i, |c| c.readback),
            med(0, i, |c| c.bytes),
            med(1, i, |c| c.total),
            med(1, i, |c| c.readback),
            med(1, i, |c| c.bytes),
            med(1, i, |c| c.total) / med(0, i, |c| c.total).max(1e-9)
        );
    }
    println!(
        "    goals on a GPU, warm: print @ X,Y under 1 ms at 1080p; a summary under 3 ms \
         (float) and 4 ms (vec4) at 1080p and 1M vertices; ratio: all ms / ms"
    );
    Ok(())
}
