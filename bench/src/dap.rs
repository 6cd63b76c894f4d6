//! (e) The editor's step: `gldbg dap` driven over its stdin/stdout as an
//! editor drives it, on the fragment shader of `apps/step_latency.c` at
//! 1920x1080, focused at one pixel. After the first step (which records
//! the focused invocation's run in one replay), every `next` and `stepBack`
//! is served from the trace: the time from writing the request to reading
//! the `stopped` event, each kind in turn, as many as the shader has steps.
//! The same walk through `gldbg run --json` is section (d)'s trace table.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::{Options, Result, WorkDir, build_app, command, median};

/// A DAP client over a child's pipes: one request at a time.
struct Dap {
    child: std::process::Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    seq: i64,
}

impl Dap {
    fn start(gldbg: &Path) -> Result<Dap> {
        let mut child = command(gldbg)
            .arg("dap")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start gldbg dap: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Dap {
            child,
            stdin,
            stdout,
            seq: 0,
        })
    }

    fn read(&mut self) -> Result<Value> {
        let mut length = None;
        loop {
            let mut line = String::new();
            if self
                .stdout
                .read_line(&mut line)
                .map_err(|e| e.to_string())?
                == 0
            {
                return Err("gldbg dap ended".into());
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length:") {
                length = n.trim().parse::<usize>().ok();
            }
        }
        let mut body = vec![0; length.ok_or("a message without Content-Length")?];
        self.stdout
            .read_exact(&mut body)
            .map_err(|e| e.to_string())?;
        serde_json::from_slice(&body).map_err(|e| e.to_string())
    }

    fn send(&mut self, command: &str, arguments: Value) -> Result<i64> {
        self.seq += 1;
        let body =
            json!({"seq": self.seq, "type": "request", "command": command, "arguments": arguments})
                .to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("gldbg dap: {e}"))?;
        Ok(self.seq)
    }

    /// Send and wait for the response (failures are errors).
    fn request(&mut self, command: &str, arguments: Value) -> Result<Value> {
        let seq = self.send(command, arguments)?;
        loop {
            let m = self.read()?;
            if m["type"] == "response" && m["request_seq"] == seq {
                if m["success"] != true {
                    return Err(format!("{command}: {}", m["message"]));
                }
                return Ok(m);
            }
        }
    }

    fn wait_event(&mut self, name: &str) -> Result<Value> {
        loop {
            let m = self.read()?;
            if m["type"] == "event" && m["event"] == name {
                return Ok(m);
            }
        }
    }

    /// A move: request to `stopped` event.
    fn timed_move(&mut self, command: &str, thread: &Value) -> Result<Duration> {
        let t0 = Instant::now();
        self.request(command, json!({"threadId": thread}))?;
        self.wait_event("stopped")?;
        Ok(t0.elapsed())
    }
}

impl Drop for Dap {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Steps taken forward, then back (the shader's loop has 8 iterations).
const MOVES: usize = 24;

/// One session: the recording step, then every `next` and `stepBack` (ms).
fn session(gldbg: &Path, app: &Path) -> Result<(f64, Vec<f64>, Vec<f64>)> {
    let mut d = Dap::start(gldbg)?;
    d.request("initialize", json!({"adapterID": "gldbg-bench"}))?;
    d.request("launch", json!({"program": app}))?;
    d.request(
        "setFunctionBreakpoints",
        json!({"breakpoints": [{"name": "draw"}]}),
    )?;
    d.request("configurationDone", json!({}))?;
    let stopped = d.wait_event("stopped")?;
    let thread = stopped["body"]["threadId"].clone();
    for line in ["debug fragment", "focus 960,540"] {
        d.request("evaluate", json!({"expression": line, "context": "repl"}))?;
        d.wait_event("stopped")?;
    }
    let ms = |t: Duration| t.as_secs_f64() * 1e3;
    let first = ms(d.timed_move("next", &thread)?);
    let mut next = Vec::new();
    for _ in 0..MOVES {
        next.push(ms(d.timed_move("next", &thread)?));
    }
    let mut back = Vec::new();
    for _ in 0..MOVES {
        back.push(ms(d.timed_move("stepBack", &thread)?));
    }
    d.request("disconnect", json!({"terminateDebuggee": true}))?;
    Ok((first, next, back))
}

pub(super) fn dap_steps(opts: &Options, gldbg: &Path, work: &WorkDir) -> Result<()> {
    let app = build_app(
        work,
        "step_latency",
        "GLDBG_BENCH_STEP_APP",
        &["-lEGL", "-lOpenGL"],
    )?;
    let mut first = Vec::new();
    let mut next = Vec::new();
    let mut back = Vec::new();
    for _ in 0..opts.runs.div_ceil(2) {
        let (f, n, b) = session(gldbg, &app)?;
        first.push(f);
        next.extend(n);
        back.extend(b);
    }
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    println!();
    println!(
        "(e) DAP steps at a focused fragment (1920x1080): request to `stopped` event, \
         {} sessions of {MOVES} steps each way",
        first.len()
    );
    println!(
        "    {:<34} {:>9} {:>9} {:>9}",
        "request", "median ms", "min ms", "max ms"
    );
    for (name, v) in [
        ("next (first: records the trace)", &first),
        ("next (from the trace)", &next),
        ("stepBack (from the trace)", &back),
    ] {
        println!(
            "    {:<34} {:>9.2} {:>9.2} {:>9.2}",
            name,
            median(v),
            min(v),
            max(v)
        );
    }
    Ok(())
}
