//! The trace's edges (issue 14), on tests/apps/egl_trace.c's compute shader
//! (CPU reference: `gldbg_tests::trace_ref`) and egl_gles.c's ES 3.0 shader:
//! * a budget of 8 records: the first step's trace is truncated; stepping
//!   on records the next parts (`"recorded"` grows) and every stop and
//!   every local to the end of main equals the reference, also stepping
//!   back across the parts' boundaries; a byte budget below the minimum is
//!   an error naming the range;
//! * `finish` from `main` ends the run: `"finished": true` and no current
//!   line; `info flow` then says the shader has finished; `backtrace` is
//!   empty;
//! * where the context cannot write a storage buffer (an OpenGL ES 3.0
//!   context), `focus` + `step` warn once that there is no trace and go on
//!   with per-step probes along the focused invocation's path;
//!   `reverse-step` says reverse execution needs a trace;
//! * malformed input: `reverse-step` before `debug`, `frame 9` beyond the
//!   stack, a condition that does not parse (and `info locals` without a
//!   focus is a summary over every invocation).

use gldbg_tests::trace_ref::{self, Invocation, Stop, egl_trace};
use gldbg_tests::*;
use serde_json::json;

/// The focused compute invocation (its run takes both sides of `blend`'s if).
const FOCUS: &str = "focus invocation 3,1,1";
const PRELUDE: &str = "break glDispatchCompute\ncontinue\ndebug compute\n";

fn want() -> Vec<Stop> {
    trace_ref::trace(Invocation::Compute([3, 1, 1]))
}

/// A value's components; NaN and Inf as CLI.md writes them.
fn components(v: &Value) -> Vec<f64> {
    match v {
        Value::Array(items) => items.iter().flat_map(components).collect(),
        Value::Number(n) => vec![n.as_f64().unwrap()],
        Value::String(s) if s == "NaN" => vec![f64::NAN],
        Value::String(s) if s == "Inf" => vec![f64::INFINITY],
        Value::String(s) if s == "-Inf" => vec![f64::NEG_INFINITY],
        Value::Bool(b) => vec![*b as u8 as f64],
        _ => vec![],
    }
}

fn close(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| (g - w).abs() <= 1e-5 * w.abs().max(1.0))
}

/// The differences between a stop + its `info locals` and the reference.
fn stop_differences(r: &Value, locals: &Value, want: &Stop, what: &str) -> Vec<String> {
    let mut diffs = Vec::new();
    if r["ok"] != true || r["line"] != want.line || r["function"] != want.function {
        diffs.push(format!(
            "{what}: line {} in {}() expected: {r}",
            want.line, want.function
        ));
    }
    if r["iterations"] != json!(want.iterations) {
        diffs.push(format!(
            "{what}: iterations {:?} expected: {r}",
            want.iterations
        ));
    }
    let got = locals["locals"].as_array().cloned().unwrap_or_default();
    let mut got_names: Vec<&str> = got.iter().filter_map(|v| v["name"].as_str()).collect();
    let mut names: Vec<&str> = want.locals.iter().map(|v| v.name).collect();
    got_names.sort();
    names.sort();
    if got_names != names {
        diffs.push(format!(
            "{what}: info locals lists {got_names:?}, the reference {names:?}: {locals}"
        ));
    }
    for w in &want.locals {
        let Some(g) = got.iter().find(|g| g["name"] == w.name) else {
            continue;
        };
        let ok = match &w.value {
            None => g["undefined"] == true && g.get("value").is_none(),
            Some(v) => g["undefined"] != true && close(&components(&g["value"]), v),
        };
        if !ok {
            diffs.push(format!(
                "{what}: {} = {g}, CPU reference {:?} (None: undefined)",
                w.name, w.value
            ));
        }
    }
    diffs
}

/// The results in script order from the one of `cmd` on.
fn results_from<'a>(out: &'a Output, cmd: &str) -> Vec<&'a Value> {
    let results = out.results();
    let at = results
        .iter()
        .position(|r| r["cmd"] == cmd)
        .unwrap_or_else(|| panic!("no result of {cmd:?}:\n{}", out.transcript()));
    results[at..].to_vec()
}

#[track_caller]
fn report(diffs: Vec<String>, out: &Output) {
    assert!(
        diffs.is_empty(),
        "{} differences:\n- {}\n{}",
        diffs.len(),
        diffs.join("\n- "),
        out.transcript()
    );
}

/// `set trace-records 8`, then every step of the focused run to the end
/// of main with its locals, then 12 reverse steps back (across at least
/// one part boundary), each equal to the reference.
#[test]
fn a_run_past_the_budget_is_recorded_in_parts() {
    require_workspace();
    let want = want();
    let n = want.len();
    let back = 12;
    let mut script = format!("{PRELUDE}set trace-records 8\nset trace-bytes 8\n{FOCUS}\n");
    script += &"step\ninfo locals\n".repeat(n - 1);
    script += "step\n";
    script += &"reverse-step\ninfo locals\n".repeat(back);
    script += "end\nkill\n";
    let dir = TempDir::new("trace-budget");
    let out = Session::new(egl_trace(), &script).keep_going().run(&dir);
    let mut diffs = Vec::new();

    let budget = out.result("set trace-records 8");
    if budget["ok"] != true
        || budget["trace_budget"]["records"] != 8
        || !budget["trace_budget"]["bytes"].is_u64()
    {
        diffs.push(format!(
            "set trace-records 8: {{\"trace_budget\":{{\"records\":8,\"bytes\":N}}}} expected: {budget}"
        ));
    }
    let small = out.result("set trace-bytes 8");
    let err = small["error"].as_str().unwrap_or_default();
    if small["ok"] != false || !err.contains("64") {
        diffs.push(format!(
            "set trace-bytes 8: an error naming the range (from 64 bytes) expected: {small}"
        ));
    }

    let results = results_from(&out, FOCUS);
    let mut at = 1;
    let mut next = |cmd: &str| -> Value {
        let r = results.get(at).copied().cloned().unwrap_or(Value::Null);
        at += 1;
        if r["cmd"] != cmd {
            panic!("result #{at} is not {cmd:?}: {r}\n{}", out.transcript());
        }
        r
    };
    let mut recorded = Vec::new();
    let mut seen = vec![None; n];
    for (k, w) in want.iter().enumerate().skip(1) {
        let what = format!("step to stop {k} (line {} {:?})", w.line, w.iterations);
        let r = next("step");
        let l = next("info locals");
        diffs.extend(stop_differences(&r, &l, w, &what));
        if k == 1 && r["trace"]["truncated"] != true {
            diffs.push(format!(
                "{what}: a run of {n} steps past a budget of 8 records: \"truncated\": true expected: {r}"
            ));
        }
        recorded.push(r["trace"]["recorded"].as_u64().unwrap_or(0));
        seen[k] = Some(l["locals"].clone());
    }
    let end = next("step");
    if end["finished"] != true {
        diffs.push(format!(
            "step past main's last stop: finished expected: {end}"
        ));
    }
    let (first, last) = (recorded[0], *recorded.last().unwrap());
    // Each part is at most the budget: "recorded" grows by 1..=8 at a time.
    let parts_ok = recorded
        .windows(2)
        .all(|p| p[1] == p[0] || (p[1] > p[0] && p[1] - p[0] <= 8));
    if !(first <= 8 && last as usize >= n - 1 && parts_ok) {
        diffs.push(format!(
            "\"recorded\" should start at most at the budget (8) and grow by parts of at most \
             8 records to the run's {n} stops: {recorded:?}"
        ));
    }
    for k in (n - back..n).rev() {
        let w = &want[k];
        let what = format!(
            "reverse-step to stop {k} (line {} {:?})",
            w.line, w.iterations
        );
        let r = next("reverse-step");
        let l = next("info locals");
        diffs.extend(stop_differences(&r, &l, w, &what));
        if seen[k].as_ref() != Some(&l["locals"]) {
            diffs.push(format!(
                "{what}: locals backwards {} differ from forwards {:?}",
                l["locals"], seen[k]
            ));
        }
    }
    report(diffs, &out);
}

/// `finish` from main runs to the end of the run: finished, no current
/// line; `info flow` fails naming the end; `backtrace` is empty; one
/// `reverse-step` goes back to main's last stop.
#[test]
fn finish_from_main_ends_the_run() {
    require_workspace();
    let want = want();
    let script =
        format!("{PRELUDE}{FOCUS}\nfinish\ninfo flow\nbacktrace\nreverse-step\nend\nkill\n");
    let dir = TempDir::new("trace-finish");
    let out = Session::new(egl_trace(), &script).keep_going().run(&dir);
    let mut diffs = Vec::new();
    let r = out.result("finish");
    if r["ok"] != true || r["finished"] != true || r.get("line").is_some() {
        diffs.push(format!(
            "finish from main: \"finished\": true and no \"line\" expected: {r}"
        ));
    }
    let flow = out.result("info flow");
    let err = flow["error"].as_str().unwrap_or_default();
    if flow["ok"] != false || !err.contains("finished") {
        diffs.push(format!(
            "info flow after the end: an error saying the shader has finished: {flow}"
        ));
    }
    let bt = out.result("backtrace");
    if bt["ok"] != true || bt["frames"] != json!([]) {
        diffs.push(format!("backtrace after the end: no frames expected: {bt}"));
    }
    let last = want.last().unwrap();
    let r = out.result("reverse-step");
    if r["ok"] != true || r["line"] != last.line || r["finished"] != false {
        diffs.push(format!(
            "reverse-step from the end: main's last stop (line {}) expected: {r}",
            last.line
        ));
    }
    report(diffs, &out);
}

/// egl_gles `--es 3` in an ES 3.0 context (no storage buffers): `focus
/// 20,20` and `break 8` (`if (p.x > t)`): three `continue`s reach
/// iterations 0, 1, 2 with per-step probes; `acc` there is the CPU
/// reference's; the next step follows the pixel into the else branch
/// (20.5 < 32: line 11); a warning that there is no trace comes once;
/// `reverse-step` fails saying it needs a trace. Then the app runs to its
/// end.
#[test]
fn without_storage_buffers_steps_fall_back_to_probes() {
    require_workspace();
    let script = "break draw\ncontinue\ndebug fragment\nfocus 20,20\nbreak 8\ncontinue\ncontinue\n\
                  continue\nprint acc @ 20,20\nstep\nstep\nreverse-step\nend\ndelete\ncontinue\n";
    let dir = TempDir::new("trace-gles3");
    let out = Session::new(egl_gles(), script)
        .args(["--es", "3"])
        .env("MESA_GLES_VERSION_OVERRIDE", "3.0")
        .keep_going()
        .run(&dir);
    let mut diffs = Vec::new();
    // The app runs to its end (its stdout is flushed at exit).
    if !out.stdout.contains("context OpenGL ES 3.0") {
        diffs.push("the app did not print an ES 3.0 context".to_string());
    }
    let warnings: Vec<&Value> = out
        .events()
        .into_iter()
        .filter(|e| {
            e["event"] == "warning"
                && e["message"]
                    .as_str()
                    .is_some_and(|m| m.to_lowercase().contains("trace"))
        })
        .collect();
    if warnings.len() != 1 {
        diffs.push(format!(
            "one warning that there is no trace expected over 3 continues and 2 steps: {warnings:?}"
        ));
    }
    for k in 0..3u32 {
        let r = out.result_n("continue", k as usize + 1);
        if r["ok"] != true || r["line"] != 8 || r["iterations"] != json!([k]) {
            diffs.push(format!(
                "continue #{k}: line 8, iteration {k} expected: {r}"
            ));
        }
    }
    let s = shade(20, 20, gain(0));
    let p = out.result("print acc @ 20,20");
    let got = components(&p["value"]);
    if !close(&got, &[s.acc_at[2] as f64]) {
        diffs.push(format!(
            "print acc @ 20,20 in iteration 2: CPU reference {}: {p}",
            s.acc_at[2]
        ));
    }
    let step = out.result_n("step", 0);
    if step["ok"] != true || step["line"] != 11 {
        diffs.push(format!(
            "step from the if of iteration 2: pixel 20,20 takes the else branch (line 11): {step}"
        ));
    }
    for n in 0..2 {
        let s = out.result_n("step", n);
        if s["timing"]["probes"].as_u64().unwrap_or(0) == 0 {
            diffs.push(format!("step #{n} without a trace runs probes: {s}"));
        }
    }
    let rs = out.result("reverse-step");
    let err = rs["error"].as_str().unwrap_or_default();
    if rs["ok"] != false || !(err.contains("reverse") && err.contains("trace")) {
        diffs.push(format!(
            "reverse-step without a trace: an error saying reverse execution needs a trace: {rs}"
        ));
    }
    report(diffs, &out);
}

/// Clear errors: `reverse-step` before `debug`; (and `info locals` without a
/// focus is a summary); a condition that does not parse (with its column);
/// `frame 9` in main (out of range).
#[test]
fn bad_trace_commands_get_clear_errors() {
    require_workspace();
    let script = format!(
        "reverse-step\n{PRELUDE}info locals\nbreak 5 if x +\n{FOCUS}\nstep\nframe 9\nend\nkill\n"
    );
    let dir = TempDir::new("trace-bad");
    let out = Session::new(egl_trace(), &script).keep_going().run(&dir);
    let mut diffs = Vec::new();
    let mut expect_error = |cmd: &str, ok: &dyn Fn(&str) -> bool, says: &str| {
        let r = out.result(cmd);
        let err = r["error"].as_str().unwrap_or_default();
        if r["ok"] != false || !ok(&err.to_lowercase()) {
            diffs.push(format!("{cmd}: an error that {says} expected: {r}"));
        }
    };
    expect_error(
        "reverse-step",
        &|e| e.contains("debug") || e.contains("shader"),
        "says no shader is being debugged",
    );
    expect_error(
        "break 5 if x +",
        &|e| e.contains("column") || !line_columns(e).is_empty(),
        "gives the column of the parse error",
    );
    expect_error(
        "frame 9",
        &|e| e.contains('9') && (e.contains("range") || e.contains("0..")),
        "says frame 9 is out of range",
    );
    // Without a focus: a summary over every invocation (main's entry: none in scope).
    let locals = out.result("info locals");
    if locals["ok"] != true || locals["locals"].as_array().is_none() {
        diffs.push(format!(
            "info locals without a focus: a summary expected: {locals}"
        ));
    }
    let step = out.result("step");
    if step["ok"] != true {
        diffs.push(format!("step after focus: {step}"));
    }
    report(diffs, &out);
}

/// The last step of `main` and the stops around it: a watched output that
/// only the last statement writes stops at the end (old: undefined, new:
/// the reference's); a `tbreak` without a condition stops once and is
/// gone; `frame 0` after it names no breakpoint.
#[test]
fn a_watch_sees_the_last_step_and_a_tbreak_goes() {
    require_workspace();
    let script = "break glDrawArrays\ncontinue\ndebug fragment\nfocus 5,9\ntbreak 29\ncontinue\n\
                  info breakpoints\nframe 0\nwatch color\ncontinue\nkill\n";
    let dir = TempDir::new("trace-end-watch");
    let out = Session::new(egl_trace(), script).keep_going().run(&dir);
    let stop = out.ok_n("continue", 1);
    assert_eq!(stop["line"], 29, "{stop}");
    assert_eq!(stop["breakpoint_line"], 29, "{stop}");
    let bps = out.ok("info breakpoints");
    assert_eq!(bps["shader_breakpoints"], serde_json::json!([]), "{bps}");
    let frame = out.ok("frame 0");
    assert!(frame.get("breakpoint_line").is_none(), "{frame}");
    // color = vec4(acc, q.a + g_value, float(q.b + m)) at main's end.
    let want = trace_ref::trace(Invocation::Fragment(5, 9));
    let end = want.last().expect("stops");
    let end_stop = out.ok_n("continue", 2);
    assert_eq!(end_stop["finished"], true, "{end_stop}");
    let w = &end_stop["watchpoint"];
    assert_eq!(w["expr"], "color", "{end_stop}");
    assert_eq!(w["old"]["undefined"], true, "{end_stop}");
    let got: Vec<f64> = w["new"]["value"]
        .as_array()
        .map(|a| a.iter().filter_map(|v| v.as_f64()).collect())
        .unwrap_or_default();
    assert_eq!(got.len(), 4, "{end_stop}");
    assert_eq!(
        end.line, 36,
        "the reference's last stop is the write of color"
    );
    // The written value is the app's output at the pixel: its parts as
    // the reference has them just before the write (acc, q, m).
    let var = |name: &str| -> Vec<f64> {
        end.locals
            .iter()
            .find(|v| v.name == name)
            .and_then(|v| v.value.clone())
            .unwrap_or_else(|| panic!("no {name} at the last stop"))
    };
    let (acc, q, m) = (var("acc"), var("q"), var("m"));
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-5 * b.abs().max(1.0);
    assert!(
        close(got[0], acc[0]) && close(got[1], acc[1]),
        "{got:?} vs acc {acc:?}"
    );
    assert!(close(got[3], q[1] + m[0]), "{got:?} vs q {q:?}, m {m:?}");
}
