//! Conditions over every invocation (issue 14), against CPU models of the
//! shaders' formulas:
//! * `break LINE if COND` on egl_compute's compute shader (512
//!   invocations): `continue` reports the executions and invocations where
//!   COND holds, focuses the first hit (the earliest in its own run, ties by
//!   the linear invocation index) at that iteration, and `info locals` there
//!   are the model's; `info breakpoints` has the counts; a condition in
//!   `main`'s `while` that depends on the invocation; one that no invocation
//!   meets runs to the end;
//! * `tbreak` stops once and is gone, `condition LINE` makes a breakpoint
//!   plain again, `ignore LINE N` passes the focused run's next N hits;
//! * `catch nan` / `catch inf` on tests/apps/egl_nan.c (a division by zero
//!   in some invocations): the variable, the line, the counts, the first
//!   invocation, the stop right after the assignment; on a shader that
//!   makes no NaN, `continue` runs to the end;
//! * `dprintf`: one message per execution of the line in every invocation,
//!   with its invocation, formatted as C's printf formats the model's
//!   values; the limit per draw and the count dropped; a format whose
//!   conversions and arguments differ in number is an error;
//! * `watch acc` stops where the focused invocation's `acc` changes
//!   (old and new value), `reverse-continue` goes back to the previous
//!   change; `display acc` prints after each step until `undisplay`.
//!
//! Every check of a session is made and the differences are reported
//! together, with the transcript.

use gldbg_tests::compute::{self, INVOCATIONS, acc_before, takes_if};
use gldbg_tests::*;
use serde_json::json;

mod support;

// ---------------------------------------------------------------------------
// Collecting differences

/// The differences a session showed, reported together.
struct Report<'a> {
    out: &'a Output,
    failures: Vec<String>,
}

impl<'a> Report<'a> {
    fn new(out: &'a Output) -> Report<'a> {
        Report {
            out,
            failures: Vec::new(),
        }
    }

    fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.failures.push(what());
        }
    }

    /// The `n`-th result of `cmd`, which must have succeeded (`Null` if not).
    fn ok(&mut self, cmd: &str, n: usize) -> Value {
        let r = self
            .out
            .results()
            .into_iter()
            .filter(|v| v["cmd"].as_str().map(str::trim) == Some(cmd))
            .nth(n)
            .cloned();
        match r {
            Some(r) if r["ok"] == true => r,
            Some(r) => {
                self.failures.push(format!("{cmd} (#{n}) failed: {r}"));
                Value::Null
            }
            None => {
                self.failures.push(format!("no result #{n} of {cmd:?}"));
                Value::Null
            }
        }
    }

    /// The error of the `n`-th result of `cmd`, which must have failed.
    fn failed(&mut self, cmd: &str, n: usize) -> String {
        let r = self
            .out
            .results()
            .into_iter()
            .filter(|v| v["cmd"].as_str().map(str::trim) == Some(cmd))
            .nth(n)
            .cloned();
        match r {
            Some(r) if r["ok"] == false => r["error"].as_str().unwrap_or_default().to_string(),
            Some(r) => {
                self.failures
                    .push(format!("{cmd} (#{n}) should have failed: {r}"));
                String::new()
            }
            None => {
                self.failures.push(format!("no result #{n} of {cmd:?}"));
                String::new()
            }
        }
    }

    #[track_caller]
    fn finish(self) {
        assert!(
            self.failures.is_empty(),
            "{} differences:\n- {}\n{}",
            self.failures.len(),
            self.failures.join("\n- "),
            self.out.transcript()
        );
    }
}

// ---------------------------------------------------------------------------
// Reading values

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

/// Equal within 1e-5 (relative above 1); NaN equals NaN.
fn same(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got.iter().zip(want).all(|(g, w)| {
            (g.is_nan() && w.is_nan()) || g == w || (g - w).abs() <= 1e-5 * w.abs().max(1.0)
        })
}

/// The names of an `info locals` result, sorted.
fn local_names(r: &Value) -> Vec<String> {
    let mut names: Vec<String> = r["locals"]
        .as_array()
        .map(|l| {
            l.iter()
                .map(|v| v["name"].as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// Checks that `info locals` result `r` holds exactly `want` (name, value).
fn check_locals(rep: &mut Report, r: &Value, want: &[(&str, Vec<f64>)], what: &str) {
    let mut names: Vec<String> = want.iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    let got_names = local_names(r);
    rep.check(got_names == names, || {
        format!("{what}: info locals lists {got_names:?}, the shader has {names:?} in scope")
    });
    for (name, value) in want {
        let got = r["locals"]
            .as_array()
            .and_then(|l| l.iter().find(|v| v["name"] == *name))
            .map(|v| components(&v["value"]));
        rep.check(got.as_deref().is_some_and(|g| same(g, value)), || {
            format!("{what}: {name} = {got:?}, CPU reference {value:?}")
        });
    }
}

fn invocation_json(g: [u32; 3]) -> Value {
    json!({"x": g[0], "y": g[1], "z": g[2]})
}

/// egl_compute's invocation of linear index `i`.
fn global(i: u32) -> [u32; 3] {
    let [w, h, _] = compute::EXTENT;
    [i % w, (i / w) % h, i / (w * h)]
}

// ---------------------------------------------------------------------------
// The CPU model of the hits

/// What a condition hits over a dispatch.
#[derive(Debug, PartialEq)]
struct Hits {
    executions: u64,
    invocations: u64,
    /// The first hit: (iteration, linear invocation index).
    first: Option<(u32, u32)>,
}

/// Hits of a line executed once per iteration of one loop: `hit(i, k)`
/// says whether invocation `i` executes the line in iteration `k` with
/// the condition true. Every invocation takes the same number of steps
/// before iteration k of the loop (each side of an `if` is one step), so
/// the earliest record is the smallest iteration; ties by index.
fn hits(iterations: u32, hit: impl Fn(u32, u32) -> bool) -> Hits {
    let (mut executions, mut invocations, mut first) = (0, 0, None::<(u32, u32)>);
    for i in 0..INVOCATIONS {
        let n = (0..iterations).filter(|&k| hit(i, k)).count() as u64;
        executions += n;
        invocations += u64::from(n > 0);
        if let Some(k) = (0..iterations).find(|&k| hit(i, k)) {
            if first.is_none_or(|(fk, _)| k < fk) {
                first = Some((k, i));
            }
        }
    }
    Hits {
        executions,
        invocations,
        first,
    }
}

/// A stop of a conditional breakpoint or catch: line, hits, focus,
/// iteration, a trace.
fn check_hit_stop(rep: &mut Report, r: &Value, line: u32, want: &Hits, g: [u32; 3], k: u32) {
    let what = format!("stop at line {line}");
    rep.check(r["line"] == line, || format!("{what}: line: {r}"));
    rep.check(r["finished"] == false, || format!("{what}: finished: {r}"));
    rep.check(
        r["hits"] == json!({"invocations": want.invocations, "executions": want.executions}),
        || {
            format!(
                "{what}: \"hits\" {}, CPU model {{invocations: {}, executions: {}}}",
                r["hits"], want.invocations, want.executions
            )
        },
    );
    rep.check(r["focus"] == invocation_json(g), || {
        format!(
            "{what}: focus {}, CPU model: the first hit is invocation {g:?}",
            r["focus"]
        )
    });
    rep.check(r["iterations"] == json!([k]), || {
        format!(
            "{what}: iterations {}, CPU model: iteration {k}",
            r["iterations"]
        )
    });
    rep.check(r["trace"].is_object(), || {
        format!("{what}: no \"trace\" (the hit's run is traced): {r}")
    });
}

/// The shader breakpoint of `line` in an `info breakpoints` result.
fn shader_hits<'v>(r: &'v Value, line: u32) -> Option<&'v Value> {
    r["shader_breakpoint_hits"]
        .as_array()?
        .iter()
        .find(|b| b["line"] == line)
}

const PRELUDE: &str = "break glDispatchCompute\ncontinue\ndebug compute\n";

// ---------------------------------------------------------------------------
// break LINE if COND

/// `acc > 2.0` on `acc += ...` (line 12): invocations with i % 7 >= 3 in
/// iteration 2 (acc 2.25), those with i % 7 >= 4 in iteration 3 too; the
/// first is invocation 3. `n == 2u && idx > 300u` on `n++;` in main's
/// while: the invocations past 300 with idx % 5 >= 3, once each; the
/// first is 303 = (15, 1, 1). `acc < -2.0` on `acc -= 0.5;` (line 14): no
/// invocation (acc goes down to -1.5); `continue` runs to the end, as it
/// does with `catch nan` on this shader (it makes no NaN). `condition 12
/// acc > 4.0` replaces a breakpoint's condition.
#[test]
fn conditional_breakpoints_count_and_focus_the_first_hit() {
    require_workspace();
    let script = format!(
        "{PRELUDE}break {add} if acc > 2.0\ncontinue\ninfo locals\ninfo breakpoints\ndelete\nend\n\
         debug compute\nfocus off\nbreak {n_inc} if n == 2u && idx > 300u\ncontinue\ninfo locals\ndelete\nend\n\
         debug compute\nfocus off\nbreak {sub} if acc < -2.0\ncontinue\ninfo breakpoints\ndelete\nend\n\
         debug compute\nfocus off\ncatch nan\ncontinue\ncatch nan off\nend\n\
         debug compute\nfocus off\nbreak {add} if acc > 0.0\ncondition {add} acc > 4.0\ncontinue\n\
         delete\nend\nkill\n",
        add = compute::ACC_ADD,
        sub = compute::ACC_SUB,
        n_inc = compute::WHILE + 1,
    );
    let dir = TempDir::new("trace-cond");
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);
    let mut rep = Report::new(&out);

    // acc > 2.0 on line 12.
    let want = hits(4, |i, k| takes_if(i, k) && acc_before(i, k) > 2.0);
    assert_eq!(
        (want.first, want.invocations),
        (Some((2, 3)), 292),
        "the model"
    );
    let (k, i) = want.first.unwrap();
    let r = rep.ok("continue", 1);
    check_hit_stop(&mut rep, &r, compute::ACC_ADD, &want, global(i), k);
    let r = rep.ok("info locals", 0);
    let locals = [
        ("acc", vec![acc_before(i, k) as f64]),
        ("k", vec![k as f64]),
    ];
    check_locals(&mut rep, &r, &locals, "info locals at the first acc > 2.0");
    let r = rep.ok("info breakpoints", 0);
    let b = shader_hits(&r, compute::ACC_ADD).cloned();
    rep.check(
        b.as_ref().is_some_and(|b| {
            b["condition"] == "acc > 2.0"
                && b["executions"] == want.executions
                && b["invocations"] == want.invocations
        }),
        || {
            format!(
                "info breakpoints: line {} with condition \"acc > 2.0\", executions {}, \
                 invocations {} (CPU model) expected in \"shader_breakpoint_hits\": {r}",
                compute::ACC_ADD,
                want.executions,
                want.invocations
            )
        },
    );

    // n == 2u && idx > 300u in main's while.
    let want = hits(5, |i, n| n < i % 5 && n == 2 && i > 300);
    assert_eq!(want.first, Some((2, 303)), "the model");
    let i = 303;
    let g = global(i);
    let r = rep.ok("continue", 2);
    check_hit_stop(&mut rep, &r, compute::WHILE + 1, &want, g, 2);
    let r = rep.ok("info locals", 1);
    let locals = [
        ("g", g.iter().map(|&c| c as f64).collect()),
        ("idx", vec![i as f64]),
        ("v", vec![compute::shade(i) as f64]),
        ("n", vec![2.0]),
    ];
    check_locals(&mut rep, &r, &locals, "info locals at n == 2 in 303");

    // acc < -2.0 on line 14: never.
    let none = hits(4, |i, k| !takes_if(i, k) && acc_before(i, k) < -2.0);
    assert_eq!(none.executions, 0, "the model");
    let r = rep.ok("continue", 3);
    rep.check(r["finished"] == true && r.get("hits").is_none(), || {
        format!(
            "break {} if acc < -2.0 holds in no invocation (CPU model): continue should run to \
             the end (\"finished\": true, no \"hits\"): {r}",
            compute::ACC_SUB
        )
    });
    let r = rep.ok("info breakpoints", 1);
    let b = shader_hits(&r, compute::ACC_SUB).cloned();
    rep.check(
        b.as_ref()
            .is_some_and(|b| b["executions"] == 0 && b["invocations"] == 0),
        || format!("info breakpoints: line 14 hit by none: {r}"),
    );

    // catch nan on a shader without NaN: to the end.
    let r = rep.ok("continue", 4);
    rep.check(r["finished"] == true && r.get("caught").is_none(), || {
        format!("catch nan, no NaN in the shader: continue should run to the end: {r}")
    });

    // `condition 12 acc > 4.0` replaces `acc > 0.0`: iteration 3 of
    // invocation 4 first.
    let want = hits(4, |i, k| takes_if(i, k) && acc_before(i, k) > 4.0);
    assert_eq!(want.first, Some((3, 4)), "the model");
    let r = rep.ok("continue", 5);
    check_hit_stop(&mut rep, &r, compute::ACC_ADD, &want, global(4), 3);
    rep.finish();
}

/// `tbreak 12 if i > 5u && acc > 0.5` stops once (invocation 6 in
/// iteration 1, the first with acc 0.75 past index 5) and is gone: neither
/// `info breakpoints` lists it nor does the next `continue` stop in
/// iteration 2 (6 % 7 = 6: line 12 in all 4 iterations, acc 0, 0.75, 2.25,
/// 4.5); it runs to the end. Focused on invocation 6 again: `break 12 if
/// acc > 2.0` made plain by `condition 12` stops in iteration 0; `ignore
/// 12 1` passes iteration 1 and stops in 2; the next `continue` stops in 3.
#[test]
fn tbreak_condition_and_ignore() {
    require_workspace();
    let add = compute::ACC_ADD;
    let script = format!(
        "{PRELUDE}tbreak {add} if i > 5u && acc > 0.5\ncontinue\ninfo breakpoints\ncontinue\nend\n\
         debug compute\nfocus invocation 6,0,0\nbreak {add} if acc > 2.0\ncondition {add}\n\
         continue\ninfo locals\nignore {add} 1\ncontinue\ninfo locals\ncontinue\ninfo locals\n\
         end\nkill\n"
    );
    let dir = TempDir::new("trace-tbreak");
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);
    let mut rep = Report::new(&out);

    let want = hits(4, |i, k| takes_if(i, k) && i > 5 && acc_before(i, k) > 0.5);
    assert_eq!(want.first, Some((1, 6)), "the model");
    let r = rep.ok("continue", 1);
    check_hit_stop(&mut rep, &r, add, &want, global(6), 1);
    let r = rep.ok("info breakpoints", 0);
    rep.check(shader_hits(&r, add).is_none(), || {
        format!("tbreak {add}: gone after its stop (\"shader_breakpoint_hits\"): {r}")
    });
    rep.check(
        !r["shader_breakpoints"]
            .as_array()
            .is_some_and(|l| l.iter().any(|l| *l == add)),
        || format!("tbreak {add}: gone after its stop (\"shader_breakpoints\"): {r}"),
    );
    let r = rep.ok("continue", 2);
    rep.check(r["finished"] == true, || {
        format!(
            "continue after the tbreak's stop: no breakpoint left, the focused run to its end \
             (not line {add} of iteration 2): {r}"
        )
    });

    let i = 6;
    for (n, k) in [(3usize, 0u32), (4, 2), (5, 3)] {
        let what = match n {
            3 => "condition 12 (plain again), continue",
            4 => "ignore 12 1, continue",
            _ => "continue after the ignored hit",
        };
        let r = rep.ok("continue", n);
        rep.check(
            r["line"] == add && r["iterations"] == json!([k]) && r["finished"] == false,
            || format!("{what}: the focused run's line {add} in iteration {k} expected: {r}"),
        );
        let r = rep.ok("info locals", n - 3);
        let locals = [
            ("acc", vec![acc_before(i, k) as f64]),
            ("k", vec![k as f64]),
        ];
        check_locals(&mut rep, &r, &locals, what);
    }
    rep.finish();
}

// ---------------------------------------------------------------------------
// catch nan / catch inf

/// tests/apps/egl_nan.c's compute shader (see its comment).
mod nan {
    /// `float r = num / den;`
    pub const R: u32 = 11;
    /// `if (den != 0.0) {`: the step after line 11.
    pub const IF: u32 = 12;
    /// The global extent: 16 x 4 x 1.
    pub const W: u32 = 16;
    pub const INVOCATIONS: u32 = 64;

    /// (num, den, r) of invocation `idx` in iteration `k`.
    pub fn values(idx: u32, k: i32) -> (f32, f32, f32) {
        let num = ((idx % 4) as i32 - k) as f32;
        let den = (3 - (idx / 8) as i32 - k) as f32;
        (num, den, num / den)
    }

    /// `acc` at the start of iteration `k`.
    pub fn acc(idx: u32, k: i32) -> f32 {
        let mut acc = 0.0f32;
        for j in 0..k {
            let (_, den, r) = values(idx, j);
            if den != 0.0 {
                acc += r;
            }
        }
        acc
    }
}

fn egl_nan() -> std::path::PathBuf {
    support::build_c_app("egl_nan.c", "egl_nan", &["EGL", "OpenGL"], &[])
}

/// `catch nan`: r = 0/0 in 8 invocations, first (iteration 0) in idx 24 =
/// (8, 1, 0), though smaller indices make NaN later in their run; `catch
/// inf`: r = +-1/0 etc. in the other 24 invocations below 32, first idx 25
/// = (9, 1, 0). The stop is the step after line 11 (line 12), where
/// `print r` is NaN / Inf. The app's results are those of a native run.
#[test]
fn catch_nan_and_inf_find_the_first_assignment() {
    require_workspace();
    let script = format!(
        "{PRELUDE}catch nan\ncontinue\nprint r @ invocation 8,1,0\ninfo locals\ncatch nan off\nend\n\
         debug compute\nfocus off\ncatch inf\ncontinue\nprint r @ invocation 9,1,0\ncatch inf off\n\
         end\ndelete\ncontinue\n"
    );
    let dir = TempDir::new("trace-catch");
    let out = Session::new(egl_nan(), &script).keep_going().run(&dir);
    let mut rep = Report::new(&out);
    // The app computes what it computes natively (bit-exact hash).
    let app_line = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("egl_nan: "))
            .map(str::to_string)
    };
    let native = app_line(&run_native(&egl_nan(), &[], &[]).stdout);
    let under = app_line(&out.stdout);
    rep.check(native.is_some() && under == native, || {
        format!("the app's results under gldbg {under:?} differ from a native run {native:?}")
    });

    for (n, kind, print) in [
        (1usize, "nan", "print r @ invocation 8,1,0"),
        (2, "inf", "print r @ invocation 9,1,0"),
    ] {
        let bad = |r: f32| match kind {
            "nan" => r.is_nan(),
            _ => r.is_infinite(),
        };
        let mut want = Hits {
            executions: 0,
            invocations: 0,
            first: None,
        };
        for idx in 0..nan::INVOCATIONS {
            let ks: Vec<i32> = (0..4).filter(|&k| bad(nan::values(idx, k).2)).collect();
            want.executions += ks.len() as u64;
            want.invocations += u64::from(!ks.is_empty());
            // Iterations take 6 or 7 steps: k first, then the index.
            if let Some(&k) = ks.first()
                && want.first.is_none_or(|(fk, _)| (k as u32) < fk)
            {
                want.first = Some((k as u32, idx));
            }
        }
        let (k, idx) = want.first.unwrap();
        let g = [idx % nan::W, idx / nan::W, 0];
        let r = rep.ok("continue", n);
        check_hit_stop(&mut rep, &r, nan::IF, &want, g, k);
        rep.check(
            r["caught"] == json!({"kind": kind, "variable": "r", "line": nan::R}),
            || {
                format!(
                    "catch {kind}: \"caught\" {}, expected {{kind: {kind}, variable: r, line: {}}}",
                    r["caught"],
                    nan::R
                )
            },
        );
        let want_r = nan::values(idx, k as i32).2 as f64;
        let p = rep.ok(print, 0);
        let got = components(&p["value"]);
        rep.check(same(&got, &[want_r]), || {
            format!("{print}: {got:?} ({}), CPU reference {want_r}", p["value"])
        });
        if kind == "nan" {
            let want_text = json!(["NaN"]);
            rep.check(p["value"] == want_text, || {
                format!("{print}: NaN is written \"NaN\" in JSON: {p}")
            });
            let (num, den, r_val) = nan::values(idx, k as i32);
            let locals = [
                ("idx", vec![idx as f64]),
                ("acc", vec![nan::acc(idx, k as i32) as f64]),
                ("k", vec![k as f64]),
                ("num", vec![num as f64]),
                ("den", vec![den as f64]),
                ("r", vec![r_val as f64]),
            ];
            let l = rep.ok("info locals", 0);
            check_locals(&mut rep, &l, &locals, "info locals after the NaN");
        }
    }
    rep.finish();
}

// ---------------------------------------------------------------------------
// dprintf

/// The messages of `dprintf LINE,"P i=%u v=%f",i,acc` the model predicts,
/// by invocation, in execution order: line 12 (`add`) or line 14.
fn dprintf_model(prefix: &str, add: bool) -> Vec<Vec<String>> {
    (0..INVOCATIONS)
        .map(|i| {
            (0..4)
                .filter(|&k| takes_if(i, k) == add)
                .map(|k| format!("{prefix} i={i} v={:.6}", acc_before(i, k) as f64))
                .collect()
        })
        .collect()
}

/// The dprintf events whose text starts with `prefix`, by linear index.
fn dprintf_events(out: &Output, prefix: &str, rep: &mut Report) -> Vec<Vec<String>> {
    let mut got = vec![Vec::new(); INVOCATIONS as usize];
    for e in out.events() {
        if e["event"] != "dprintf" {
            continue;
        }
        let text = e["text"].as_str().unwrap_or_default();
        if !text.starts_with(&format!("{prefix} ")) {
            continue;
        }
        let inv = &e["invocation"];
        let g = [&inv["x"], &inv["y"], &inv["z"]].map(|c| c.as_u64().unwrap_or(u64::MAX) as u32);
        let i = compute::index(g);
        if i < INVOCATIONS {
            got[i as usize].push(text.to_string());
        } else {
            rep.failures.push(format!(
                "dprintf event with no invocation of the dispatch: {e}"
            ));
        }
    }
    got
}

/// Line 14 (`acc -= 0.5;`, 734 executions): every message, dropped 0.
/// Line 12 (1314 executions): 1024 kept (the limit per draw), 290
/// dropped, each kept one a message of the model for its invocation.
#[test]
fn dprintf_prints_every_execution_of_the_line() {
    require_workspace();
    let sub = format!("dprintf {},\"a i=%u v=%f\",i,acc", compute::ACC_SUB);
    let add = format!("dprintf {},\"b i=%u v=%f\",i,acc", compute::ACC_ADD);
    let bad = format!("dprintf {},\"i=%u v=%f\",i", compute::ACC_SUB);
    let script = format!("{PRELUDE}{sub}\n{add}\n{bad}\nend\nkill\n");
    let dir = TempDir::new("trace-dprintf");
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);
    let mut rep = Report::new(&out);

    // Line 14: all of them.
    let want = dprintf_model("a", false);
    let total: usize = want.iter().map(Vec::len).sum();
    let r = rep.ok(&sub, 0);
    rep.check(r["messages"] == total && r["dropped"] == 0, || {
        format!("{sub}: {{messages: {total}, dropped: 0}} (CPU model) expected: {r}")
    });
    let got = dprintf_events(&out, "a", &mut rep);
    for i in 0..INVOCATIONS as usize {
        let (g, w) = (&got[i], &want[i]);
        rep.check(g == w, || {
            format!(
                "{sub}: invocation {:?} (idx {i}) printed {g:?}, CPU model {w:?}",
                global(i as u32)
            )
        });
    }

    // Line 12: over the limit.
    let want = dprintf_model("b", true);
    let total: u64 = want.iter().map(|w| w.len() as u64).sum();
    let limit = 1024u64;
    let r = rep.ok(&add, 0);
    rep.check(
        r["messages"] == limit.min(total) && r["dropped"] == total.saturating_sub(limit),
        || {
            format!(
                "{add}: {total} executions (CPU model), the limit {limit}: \
                 {{messages: {}, dropped: {}}} expected: {r}",
                limit.min(total),
                total.saturating_sub(limit)
            )
        },
    );
    let got = dprintf_events(&out, "b", &mut rep);
    let kept: usize = got.iter().map(Vec::len).sum();
    rep.check(kept as u64 == limit.min(total), || {
        format!("{add}: {kept} events, {} expected", limit.min(total))
    });
    for i in 0..INVOCATIONS as usize {
        let mut left = want[i].clone();
        for text in &got[i] {
            match left.iter().position(|w| w == text) {
                Some(p) => {
                    left.remove(p);
                }
                None => rep.failures.push(format!(
                    "{add}: invocation idx {i} printed {text:?}, not a message of the CPU \
                     model {:?} (or printed too often)",
                    want[i]
                )),
            }
        }
    }

    // Two conversions, one argument.
    let err = rep.failed(&bad, 0).to_lowercase();
    rep.check(
        err.contains("argument") && (err.contains('2') || err.contains("conversion")),
        || format!("{bad}: the error should say 2 conversions, 1 argument: {err:?}"),
    );
    rep.finish();
}

// ---------------------------------------------------------------------------
// watch and display

/// A watchpoint's `old` / `new`: the value's components, written as an
/// array or as `{"value": [...]}` (as `info locals` writes a variable).
fn watched(v: &Value) -> Vec<f64> {
    match v.get("value") {
        Some(inner) => components(inner),
        None => components(v),
    }
}

/// Focused on invocation 3 (3 % 7 = 3): acc 0 -> 0.75 -> 2.25 -> 4.5 (line
/// 12 in iterations 0-2) -> 4.0 (line 14 in iteration 3). Each `continue`
/// stops at the step after the change (`++k`, line 10) with old and new
/// value; `reverse-continue` goes back to line 14 of iteration 3 (acc 4.5
/// there), then to line 12 of iteration 2 (acc 2.25).
#[test]
fn watch_stops_where_the_value_changes_both_ways() {
    require_workspace();
    let script = format!(
        "{PRELUDE}focus invocation 3,0,0\nbreak {add}\ncontinue\nwatch acc\ndelete\n\
         continue\ncontinue\ncontinue\ncontinue\n\
         reverse-continue\ninfo locals\nreverse-continue\ninfo locals\nend\nkill\n",
        add = compute::ACC_ADD
    );
    let dir = TempDir::new("trace-watch");
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);
    let mut rep = Report::new(&out);
    let i = 3;
    let r = rep.ok("continue", 1);
    rep.check(
        r["line"] == compute::ACC_ADD && r["iterations"] == json!([0]),
        || format!("break 12: iteration 0 expected: {r}"),
    );
    for k in 0..4u32 {
        let r = rep.ok("continue", 2 + k as usize);
        let (old, new) = (acc_before(i, k) as f64, acc_before(i, k + 1) as f64);
        let w = &r["watchpoint"];
        rep.check(
            w["expr"] == "acc"
                && same(&watched(&w["old"]), &[old])
                && same(&watched(&w["new"]), &[new]),
            || format!("watch acc, change {k}: old {old}, new {new} (CPU model) expected: {r}"),
        );
        rep.check(r["line"] == 10 && r["iterations"] == json!([k]), || {
            format!(
                "watch acc, change {k}: the step after the assignment (`++k` of iteration {k}): {r}"
            )
        });
    }
    for (n, line, k) in [(0usize, compute::ACC_SUB, 3u32), (1, compute::ACC_ADD, 2)] {
        let r = rep.ok("reverse-continue", n);
        rep.check(
            r["line"] == line && r["iterations"] == json!([k]),
            || format!("reverse-continue #{n}: back to the change on line {line}, iteration {k} expected: {r}"),
        );
        let l = rep.ok("info locals", n);
        let locals = [
            ("acc", vec![acc_before(i, k) as f64]),
            ("k", vec![k as f64]),
        ];
        check_locals(
            &mut rep,
            &l,
            &locals,
            &format!("after reverse-continue #{n}"),
        );
    }
    rep.finish();
}

/// `display acc` at line 11 of iteration 0 (invocation 3): after each of 3
/// steps an event with the focused value (line 12: 0, `++k`: 0.75, `k < 4`:
/// 0.75); none after `undisplay`.
#[test]
fn display_prints_after_each_step_until_undisplay() {
    require_workspace();
    let script = format!(
        "{PRELUDE}focus invocation 3,0,0\nbreak {if_}\ncontinue\ndelete\ndisplay acc\n\
         step\nstep\nstep\nundisplay\nstep\nstep\nend\nkill\n",
        if_ = compute::IF
    );
    let dir = TempDir::new("trace-display");
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);
    let mut rep = Report::new(&out);
    let events: Vec<&Value> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "display")
        .collect();
    let got: Vec<Vec<f64>> = events.iter().map(|e| components(&e["value"])).collect();
    let after_steps = [vec![0.0], vec![0.75], vec![0.75]];
    // `display` may print once when given (gdb does): acc is 0 there.
    let ok = match got.len() {
        3 => got.iter().zip(&after_steps).all(|(g, w)| same(g, w)),
        4 => same(&got[0], &[0.0]) && got[1..].iter().zip(&after_steps).all(|(g, w)| same(g, w)),
        _ => false,
    };
    rep.check(ok, || {
        format!(
            "display acc: after 3 steps {after_steps:?} (CPU model; perhaps [0] first, when \
             given), none after undisplay; got {got:?}"
        )
    });
    for e in &events {
        rep.check(
            e["expr"] == "acc" && e["invocation"] == invocation_json([3, 0, 0]),
            || format!("display event: expr acc at the focus expected: {e}"),
        );
    }
    for n in 0..5 {
        rep.ok("step", n);
    }
    rep.finish();
}
