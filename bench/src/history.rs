//! (f) Pixel history's cost: `apps/history_frame.c` draws frames of 1,000
//! small quads at 1920x1080 (depth test on), K of them covering the pixel
//! the history is of, and times each frame inside the app (clear to
//! glFinish). For K in [`TOUCHING`], round by round: the app natively (the
//! median of its frames after the first), then a `gldbg run --batch
//! --json` session that stops at the first call of frame 2 and takes
//! `history X,Y` of that pixel to the frame's end; the time from the
//! `step` result line to the `history` result line, read as they arrive,
//! is the history's. Per draw not touching the pixel: (history at K = 0 −
//! the native frame) / 1,000; per touching draw: (history at K − history
//! at 0) / K. The history's entries are counted and printed (the clear and
//! K draws are expected), not asserted.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::Stdio;
use std::time::Instant;

use serde_json::Value;

use super::{Options, Result, WorkDir, build_app, command, median, min, output};

/// Draws per frame (the app's `DRAWS`).
const DRAWS: u32 = 1000;
/// How many draws cover the pixel, per measured case.
const TOUCHING: [u32; 2] = [0, 50];
/// The pixel: the app's P at its default size (1920x1080).
const PIXEL: (u32, u32) = (960, 540);
/// Native frames per run (the first, which compiles, is left out).
const NATIVE_FRAMES: u32 = 5;

/// To the first call of frame 2, its history, then on to the exit.
fn script() -> String {
    format!(
        "break frame\ncontinue\ndelete\nstep\nhistory {},{}\ncontinue\n",
        PIXEL.0, PIXEL.1
    )
}

/// The `ms` of each `history_frame: frame F ms T` line in `text`, in order.
fn frame_ms(text: &str) -> Vec<f64> {
    text.lines()
        .filter_map(|l| l.split("history_frame: frame ").nth(1))
        .filter_map(|l| l.split(" ms ").nth(1)?.trim().parse().ok())
        .collect()
}

/// The app's native frame time (ms): the median of frames 2 onwards.
fn native_ms(app: &Path, touching: u32) -> Result<f64> {
    let mut c = command(app);
    c.args(["--touching", &touching.to_string()])
        .args(["--frames", &NATIVE_FRAMES.to_string()]);
    let out = output(c, "history_frame natively")?;
    let ms = frame_ms(&out);
    if ms.len() != NATIVE_FRAMES as usize {
        return Err(format!("history_frame printed no frame times:\n{out}"));
    }
    Ok(median(&ms[1..]))
}

/// One history session's figures.
#[derive(Clone, Copy, Default)]
struct HistoryRun {
    /// From the `step` result line to the `history` result line (ms).
    wall_ms: f64,
    /// Frame 2 as the app timed it under the history (ms).
    app_ms: f64,
    /// The history's entries, and those of them that are draws.
    entries: usize,
    draws: usize,
}

fn history_run(gldbg: &Path, app: &Path, script: &Path, touching: u32) -> Result<HistoryRun> {
    let mut child = command(gldbg)
        .args(["run", "--batch", "--json", "-x"])
        .arg(script)
        .arg("--")
        .arg(app)
        .args(["--touching", &touching.to_string(), "--frames", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("gldbg: {e}"))?;
    let stdout = child.stdout.take().unwrap();
    let history_cmd = format!("\"cmd\":\"history {},{}\"", PIXEL.0, PIXEL.1);
    let (mut step, mut run) = (None, None);
    let mut app_text = String::new();
    let mut lines = BufReader::new(stdout).lines();
    while let Some(Ok(line)) = lines.next() {
        let now = Instant::now();
        if line.contains("\"cmd\":\"step\"") {
            step = Some(now);
        } else if line.contains(&history_cmd) {
            let (Some(t0), true) = (step, line.contains("\"ok\":true")) else {
                let _ = child.kill();
                return Err(format!("history failed (or came before step): {line}"));
            };
            run = Some(history_counts(&line, (now - t0).as_secs_f64() * 1e3)?);
        } else if line.contains("\"event\":\"output\"") {
            let v: Value = serde_json::from_str(&line).unwrap_or_default();
            app_text += v["text"].as_str().unwrap_or_default();
        }
    }
    let status = child.wait().map_err(|e| format!("gldbg: {e}"))?;
    let mut run = run.ok_or(format!("gldbg printed no history result ({status})"))?;
    // Frame 2 is the one the history ran through.
    run.app_ms = frame_ms(&app_text).get(1).copied().unwrap_or(f64::NAN);
    Ok(run)
}

/// The entries of a `history` result line.
fn history_counts(line: &str, wall_ms: f64) -> Result<HistoryRun> {
    let v: Value =
        serde_json::from_str(line).map_err(|e| format!("history result: {e}: {line}"))?;
    let entries = v["history"]
        .as_array()
        .ok_or(format!("history result without \"history\": {line}"))?;
    Ok(HistoryRun {
        wall_ms,
        app_ms: f64::NAN,
        entries: entries.len(),
        draws: entries
            .iter()
            .filter(|e| e.get("fragments").is_some())
            .count(),
    })
}

pub(super) fn pixel_history(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let app = build_app(
        work,
        "history_frame",
        "GLDBG_BENCH_HISTORY_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let script = work.script("history.gldbg", &script())?;
    // [run][case]: (native frame ms, history run)
    let mut runs: Vec<Vec<(f64, HistoryRun)>> = Vec::new();
    for _ in 0..opts.runs {
        let mut round = Vec::new();
        for k in TOUCHING {
            let native = native_ms(&app, k)?;
            round.push((native, history_run(gldbg, &app, &script, k)?));
        }
        runs.push(round);
    }
    print_table(&runs);
    Ok(())
}

fn print_table(runs: &[Vec<(f64, HistoryRun)>]) {
    let col = |i: usize, f: fn(&(f64, HistoryRun)) -> f64| -> Vec<f64> {
        runs.iter().map(|r| f(&r[i])).collect()
    };
    println!();
    println!(
        "(f) pixel history of {},{} over a frame of {DRAWS} draws at 1920x1080 (depth test on), \
         {} runs, ms",
        PIXEL.0,
        PIXEL.1,
        runs.len()
    );
    println!(
        "    {:<10} {:>19} {:>19} {:>19} {:>14}",
        "touching", "native frame", "history", "frame in the app", "entries/draws"
    );
    for (i, k) in TOUCHING.iter().enumerate() {
        let (native, wall, app) = (
            col(i, |c| c.0),
            col(i, |c| c.1.wall_ms),
            col(i, |c| c.1.app_ms),
        );
        let counts: Vec<String> = runs
            .iter()
            .map(|r| format!("{}/{}", r[i].1.entries, r[i].1.draws))
            .collect();
        println!(
            "    {:<10} {:>7.2} (min {:>6.2}) {:>7.2} (min {:>6.2}) {:>7.2} (min {:>6.2}) {:>14}",
            k,
            median(&native),
            min(&native),
            median(&wall),
            min(&wall),
            median(&app),
            min(&app),
            counts.join(" ")
        );
        let bad = runs
            .iter()
            .any(|r| r[i].1.draws != *k as usize || r[i].1.entries != *k as usize + 1);
        if bad {
            println!(
                "    ! expected {} entries (the clear and {k} draws) at K = {k}",
                k + 1
            );
        }
    }
    println!(
        "    (history: from the `step` result to the `history` result; frame in the app: frame 2 as the app timed it under the history)"
    );
    // Per run, then median and min over the runs.
    let untouched: Vec<f64> = runs
        .iter()
        .map(|r| (r[0].1.wall_ms - r[0].0) / f64::from(DRAWS))
        .collect();
    println!(
        "    per draw not touching the pixel: (history(0) - native(0)) / {DRAWS} = {:.4} ms \
         (min {:.4}; goal: under 0.1 ms)",
        median(&untouched),
        min(&untouched)
    );
    for (i, &k) in TOUCHING.iter().enumerate().skip(1) {
        let touching: Vec<f64> = runs
            .iter()
            .map(|r| (r[i].1.wall_ms - r[0].1.wall_ms) / f64::from(k))
            .collect();
        println!(
            "    per touching draw: (history({k}) - history(0)) / {k} = {:.3} ms \
             (min {:.3}; goal: under 0.5 ms)",
            median(&touching),
            min(&touching)
        );
    }
}
