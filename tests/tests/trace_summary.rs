//! `info locals` / `info args` without a focus (issue 14): every local in
//! scope summarised over every invocation that reaches the step (count,
//! min, max, NaN, Inf) from one replay, on egl_trace's compute shader (64
//! invocations), against the CPU reference of each invocation's run
//! (`tests/src/trace_ref.rs`): at `total += n;` in iteration 0 of main's
//! loop, and inside `blend` (its arguments). Locals declared without a
//! value are said to be possibly undefined.

use gldbg_tests::trace_ref::{self, Invocation};
use gldbg_tests::*;
use serde_json::Value;

mod support;

/// egl_trace's dispatch: 2x2x2 groups of 4x2x1.
fn invocations() -> Vec<[u32; 3]> {
    let mut out = Vec::new();
    for z in 0..2 {
        for y in 0..4 {
            for x in 0..8 {
                out.push([x, y, z]);
            }
        }
    }
    out
}

/// What one invocation holds at `total += n;` (line 29) in iteration 0,
/// and `blend`'s arguments at its line 16 there, by the shader's formulas
/// in f32 (`x > 1.0` decides `blend`'s branch as the GPU does).
fn iteration0(g: [u32; 3]) -> (Vec<(&'static str, Vec<f64>)>, Vec<(&'static str, Vec<f64>)>) {
    let seed = Invocation::Compute(g).seed();
    let x = seed[0] * 1.0 * trace_ref::GAIN;
    let h = if x > 1.0 { x * 0.5 } else { x + 1.0 };
    let (acc0, acc) = ([0.0f32, 1.0], [h, 1.0 + x]);
    let n = h as i32 + 1;
    let f = |v: &[f32]| v.iter().map(|&c| f64::from(c)).collect::<Vec<_>>();
    let locals = vec![
        ("seed", f(&seed)),
        ("acc", f(&acc)),
        ("total", vec![0.0]),
        ("w", vec![1.0, 2.0, 3.0]),
        ("i", vec![0.0]),
        ("x", f(&[x])),
        ("n", vec![f64::from(n)]),
    ];
    let args = vec![("x", f(&[x])), ("acc", f(&acc0))];
    (locals, args)
}

/// Per variable: component-wise min and max over every invocation.
fn reference(
    pick: impl Fn([u32; 3]) -> Vec<(&'static str, Vec<f64>)>,
) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let mut out: Vec<(String, Vec<f64>, Vec<f64>)> = Vec::new();
    for g in invocations() {
        for (name, value) in pick(g) {
            match out.iter_mut().find(|(n, ..)| n == name) {
                Some((_, lo, hi)) => {
                    for (k, x) in value.iter().enumerate() {
                        lo[k] = lo[k].min(*x);
                        hi[k] = hi[k].max(*x);
                    }
                }
                None => out.push((name.to_string(), value.clone(), value)),
            }
        }
    }
    out
}

fn numbers(v: &Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default()
}

/// Each summarised variable against the reference's ranges.
fn check(
    what: &str,
    got: &Value,
    want: &[(String, Vec<f64>, Vec<f64>)],
    failures: &mut Vec<String>,
) {
    let list = got["locals"].as_array().cloned().unwrap_or_default();
    for (name, lo, hi) in want {
        let Some(l) = list.iter().find(|l| l["name"] == name.as_str()) else {
            failures.push(format!("{what}: no `{name}` in {got}"));
            continue;
        };
        let s = &l["summary"];
        let close = |a: &[f64], b: &[f64]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(x, y)| (x - y).abs() <= 1e-5 * y.abs().max(1.0))
        };
        if s["count"] != 64 || s["nan"] != 0 || s["inf"] != 0 {
            failures.push(format!("{what}: `{name}` counts: {l}"));
        }
        if !close(&numbers(&s["min"]), lo) || !close(&numbers(&s["max"]), hi) {
            failures.push(format!("{what}: `{name}` range, want {lo:?}..{hi:?}: {l}"));
        }
    }
}

#[test]
fn locals_without_a_focus_are_summarised_over_every_invocation_in_one_replay() {
    require_workspace();
    let dir = TempDir::new("trace-summary");
    let script = "break glDispatchCompute\ncontinue\ndebug compute\nbreak 16\ncontinue\n\
                  info args\ndelete\nbreak 29\ncontinue\ninfo locals\ninfo args\nend\nkill\n";
    let out = Session::new(&trace_ref::egl_trace(), script)
        .keep_going()
        .run(&dir);
    let mut failures = Vec::new();
    // Line 29 (`total += n;`), iteration 0: main's locals.
    let locals = out.ok("info locals");
    if locals["timing"]["probes"] != 1 {
        failures.push(format!("info locals: one replay expected: {locals}"));
    }
    let want = reference(|g| iteration0(g).0);
    check("info locals at line 29", &locals, &want, &mut failures);
    // `last` is declared without a value and not written yet.
    let list = locals["locals"].as_array().cloned().unwrap_or_default();
    let last = list.iter().find(|l| l["name"] == "last");
    if last.is_none_or(|l| l["maybe_undefined"] != true) {
        failures.push(format!("`last` must be flagged maybe_undefined: {locals}"));
    }
    let args = out.ok_n("info args", 1);
    if args["locals"].as_array().is_none_or(|a| !a.is_empty()) {
        failures.push(format!("main has no arguments: {args}"));
    }
    // In `blend` (line 16: `acc += vec2(h, x);`) of iteration 0: its arguments.
    let args = out.ok_n("info args", 0);
    let want = reference(|g| iteration0(g).1);
    check("info args in blend", &args, &want, &mut failures);
    assert!(
        failures.is_empty(),
        "{}\n{}",
        failures.join("\n"),
        out.transcript()
    );
}
