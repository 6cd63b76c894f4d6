//! The trace of one focused invocation (issue 14), in every stage, on
//! `tests/apps/egl_trace.c` against the CPU references of
//! `gldbg_tests::trace_ref` (the same formulas in f32):
//! * stepping forward (`step`) from the first step of `main` to its end
//!   visits exactly the reference's stops (line, column, function, loop
//!   iterations), into `blend` and out of it, through every loop
//!   iteration; at each, `info locals` and `info args` list exactly the
//!   function's locals and parameters in scope with the reference's values
//!   (or `"undefined": true` where declared and not yet written: `float
//!   last;`, an `out` parameter, a loop body's `int n;` again in each
//!   iteration);
//! * `reverse-step` from the end back to the first step visits the same
//!   stops backwards with the same values as forwards, and one more
//!   `reverse-step` is a clear error;
//! * `backtrace` in `blend` (level 0 with its arguments, level 1 `main` at
//!   the call), `finish`, `reverse-finish` (back to the call), `next` over
//!   a call in the loop and the call after it, `reverse-next`;
//! * the first step after `focus` records the trace (one replay, `"probes":
//!   1`); every later step, reverse step, `info locals`, `info args`,
//!   `backtrace`, `finish`, `next` is answered from it (`"probes": 0`);
//! * the app's results (a bit-exact hash of its frame and storage buffer)
//!   are those of a native run.
//!
//! Invocations: vertex 1, tess-control vertex 2, tess-eval vertex 2 (its
//! `gl_TessCoord`, the driver's choice, printed first), geometry input
//! primitive 2, fragment pixel (5, 9), compute invocation (3, 1, 1).

use gldbg_tests::trace_ref::{self, Invocation, Stage, Stop, Var, column, egl_trace, lines};
use gldbg_tests::*;
use serde_json::json;

/// Relative tolerance of a value (absolute below 1).
const REL: f64 = 1e-5;

/// The tess-eval vertex the test focuses (on llvmpipe the centre of the
/// patch, (1/3, 1/3, 1/3) as the tessellator rounds it: values not exact
/// in f32, both sides of blend's `if`).
const TES_VERTEX: u32 = 2;

/// `focus ...` of the stage's chosen invocation.
fn focus(stage: Stage) -> String {
    match stage {
        Stage::Vertex => "focus vertex 1".into(),
        Stage::TessControl => "focus vertex 2".into(),
        Stage::TessEval => format!("focus vertex {TES_VERTEX}"),
        Stage::Geometry => "focus primitive 2".into(),
        Stage::Fragment => "focus 5,9".into(),
        Stage::Compute => "focus invocation 3,1,1".into(),
    }
}

/// `print gl_TessCoord @ vertex N` (tess-eval: which point the vertex is).
fn tess_coord_cmd() -> String {
    format!("print gl_TessCoord @ vertex {TES_VERTEX}")
}

/// The script up to the focus: stop at the draw or dispatch, debug the
/// stage (its first step), focus the invocation.
fn prelude(stage: Stage) -> String {
    let mut s = format!(
        "break {}\ncontinue\ndebug {}\n",
        stage.gl_call(),
        stage.name()
    );
    if stage == Stage::TessEval {
        s += &tess_coord_cmd();
        s += "\n";
    }
    s + &focus(stage) + "\n"
}

/// The invocation `focus` names, for the reference (tess-eval: the point
/// vertex TES_VERTEX is on llvmpipe; the test uses the point it prints).
fn chosen(stage: Stage) -> Invocation {
    match stage {
        Stage::Vertex => Invocation::Vertex(1),
        Stage::TessControl => Invocation::TessControl(2),
        Stage::TessEval => Invocation::TessEval([0.33332825, 0.33332825, 0.3333435]),
        Stage::Geometry => Invocation::Geometry(2),
        Stage::Fragment => Invocation::Fragment(5, 9),
        Stage::Compute => Invocation::Compute([3, 1, 1]),
    }
}

/// The focused invocation of the session `out`, for the reference.
/// Tess-eval: the printed `gl_TessCoord`, which must be a point of the
/// tessellation (level 2: corners, edge middles, the centre).
fn invocation(stage: Stage, out: &Output) -> Invocation {
    if stage != Stage::TessEval {
        return chosen(stage);
    }
    let c = values(out.ok(&tess_coord_cmd()));
    assert_eq!(c.len(), 3, "gl_TessCoord: {c:?}");
    // llvmpipe's centre is (0.33332825, 0.33332825, 0.3333435).
    let on_grid = |v: f64| {
        [0.0, 0.5, 1.0, 1.0 / 3.0]
            .iter()
            .any(|g| (v - g).abs() < 1e-4)
    };
    assert!(
        c.iter().all(|&v| on_grid(v)) && (c.iter().sum::<f64>() - 1.0).abs() < 1e-4,
        "gl_TessCoord {c:?} of vertex {TES_VERTEX} is no point of a level-2 triangle"
    );
    Invocation::TessEval([c[0] as f32, c[1] as f32, c[2] as f32])
}

/// The reference's stops of the chosen invocation of `stage`, for writing
/// the script before the session (tess-eval: before its point is printed):
/// which step comes when is the same for every invocation (each side of
/// blend's `if` is one step), only values differ.
fn any_run(stage: Stage) -> Vec<Stop> {
    trace_ref::trace(chosen(stage))
}

/// The app's result line (`egl_trace: checksum ..., hash ..., renderer`).
fn app_line(stdout: &str) -> String {
    stdout
        .lines()
        .find(|l| l.starts_with("egl_trace: "))
        .unwrap_or_else(|| panic!("no egl_trace line in:\n{stdout}"))
        .to_string()
}

// ---------------------------------------------------------------------------
// Reading the session

/// The session's results in script order, from the one after `focus`.
struct Replies<'a> {
    out: &'a Output,
    results: Vec<&'a Value>,
    at: usize,
}

impl<'a> Replies<'a> {
    fn after_focus(out: &'a Output, stage: Stage) -> Replies<'a> {
        let results = out.results();
        let focus = focus(stage);
        let at = results
            .iter()
            .position(|r| r["cmd"] == focus.as_str())
            .unwrap_or_else(|| panic!("no result of {focus:?}:\n{}", out.transcript()));
        let r = results[at];
        assert_eq!(r["ok"], true, "{focus}: {r}");
        assert_eq!(r["focus_reached"], true, "{focus}: {r}");
        Replies {
            out,
            results,
            at: at + 1,
        }
    }

    /// The result of the next command, which must be `cmd`.
    #[track_caller]
    fn next(&mut self, cmd: &str) -> &'a Value {
        let r = self.results.get(self.at).copied().unwrap_or_else(|| {
            panic!(
                "no result for {cmd:?} (result #{}): the session ended early\n{}",
                self.at,
                self.out.transcript()
            )
        });
        assert_eq!(
            r["cmd"].as_str(),
            Some(cmd),
            "result #{} is not {cmd:?}: {r}",
            self.at
        );
        self.at += 1;
        r
    }

    /// The next result, which must be `cmd` with `"ok": true`.
    #[track_caller]
    fn ok(&mut self, cmd: &str, what: &str) -> &'a Value {
        let r = self.next(cmd);
        assert_eq!(r["ok"], true, "{what}: {cmd} failed: {r}");
        r
    }
}

/// What a failure message names: the stage, the command, the stop.
fn place(stage: Stage, how: &str, k: usize, stop: &Stop) -> String {
    format!(
        "{} {how}, stop {k} (line {} in {}(), iterations {:?})",
        stage.name(),
        stop.line,
        stop.function,
        stop.iterations
    )
}

/// A `"value"`'s components, flattened (an array's elements and a struct's
/// members in order, as nested arrays or one flat list); NaN and Inf as
/// CLI.md writes them.
fn components(v: &Value, out: &mut Vec<f64>) {
    match v {
        Value::Array(items) => items.iter().for_each(|i| components(i, out)),
        Value::Number(n) => out.push(n.as_f64().unwrap()),
        Value::String(s) if s == "NaN" => out.push(f64::NAN),
        Value::String(s) if s == "Inf" => out.push(f64::INFINITY),
        Value::String(s) if s == "-Inf" => out.push(f64::NEG_INFINITY),
        Value::Bool(b) => out.push(*b as u8 as f64),
        other => panic!("a value component that is no number: {other}"),
    }
}

fn close(got: f64, want: f64) -> bool {
    (got - want).abs() <= REL * want.abs().max(1.0)
}

/// The list of `info locals` / `info args` (CLI.md: `"locals"`; `"args"`
/// accepted for `info args`).
fn var_list<'a>(r: &'a Value, what: &str) -> &'a Vec<Value> {
    r.get("locals")
        .or_else(|| r.get("args"))
        .and_then(Value::as_array)
        .unwrap_or_else(|| panic!("{what}: no \"locals\" list in {r}"))
}

/// `got` (a list of `{"name","type","value"|"undefined"}`) holds exactly
/// the variables of `want`, with their types and values.
#[track_caller]
fn check_vars(got: &[Value], want: &[Var], what: &str) {
    for w in want {
        let g = got
            .iter()
            .find(|g| g["name"] == w.name)
            .unwrap_or_else(|| panic!("{what}: {} is missing: {got:?}", w.name));
        assert_eq!(g["type"], w.ty, "{what}: type of {}: {g}", w.name);
        match &w.value {
            None => {
                assert_eq!(
                    g["undefined"], true,
                    "{what}: {} is not written yet, expected \"undefined\": {g}",
                    w.name
                );
                assert!(
                    g.get("value").is_none(),
                    "{what}: {} has a value: {g}",
                    w.name
                );
            }
            Some(want_value) => {
                assert!(
                    g.get("undefined").is_none_or(|u| u == false),
                    "{what}: {} = {want_value:?} (CPU reference) is said undefined: {g}",
                    w.name
                );
                let mut v = Vec::new();
                components(
                    g.get("value")
                        .unwrap_or_else(|| panic!("{what}: {} has no value: {g}", w.name)),
                    &mut v,
                );
                assert!(
                    v.len() == want_value.len()
                        && v.iter().zip(want_value).all(|(g, w)| close(*g, *w)),
                    "{what}: {} = {v:?}, CPU reference {want_value:?}",
                    w.name
                );
            }
        }
    }
    for g in got {
        assert!(
            want.iter().any(|w| g["name"] == w.name),
            "{what}: {} is not in scope here (expected only {:?}): {g}",
            g["name"],
            want.iter().map(|w| w.name).collect::<Vec<_>>()
        );
    }
}

/// A shader stop is the reference's `want`: line, column, function, loop
/// iterations, not finished.
#[track_caller]
fn check_stop(r: &Value, want: &Stop, source: &str, what: &str) {
    assert_eq!(r["finished"], false, "{what}: {r}");
    assert_eq!(r["function"], want.function, "{what}: function: {r}");
    assert_eq!(r["line"], want.line, "{what}: line: {r}");
    assert_eq!(
        r["column"],
        column(source, want),
        "{what}: column of {:?}: {r}",
        want.anchor
    );
    assert_eq!(r["iterations"], json!(want.iterations), "{what}: {r}");
}

/// A command answered from the trace: `"timing"` with no replay.
#[track_caller]
fn from_trace(r: &Value, what: &str) {
    assert_eq!(
        r["timing"]["probes"], 0,
        "{what}: answered from the trace, expected \"timing\" with \"probes\": 0: {r}"
    );
}

/// The `k`-th step after `focus` (from 1): the first records the trace
/// (one replay), the later ones read it.
#[track_caller]
fn first_records(r: &Value, k: usize, what: &str) {
    let probes = if k == 1 { 1 } else { 0 };
    assert_eq!(
        r["timing"]["probes"], probes,
        "{what}: the first step after focus records the trace (one replay), later ones read it: {r}"
    );
}

/// `"trace": {"record", "records", "truncated"}` of a traced stop.
#[track_caller]
fn trace_of(r: &Value, what: &str) -> (i64, i64) {
    let t = &r["trace"];
    let (Some(record), Some(records)) = (t["record"].as_i64(), t["records"].as_i64()) else {
        panic!("{what}: no \"trace\" with \"record\" and \"records\": {r}");
    };
    assert_eq!(t["truncated"], false, "{what}: a short run fits: {r}");
    (record, records)
}

/// `info locals` and `info args` of a stop: checked against the reference;
/// returned (sorted by name) to compare the two directions.
#[track_caller]
fn check_locals_args(
    replies: &mut Replies<'_>,
    want: &Stop,
    what: &str,
) -> (Vec<Value>, Vec<Value>) {
    let sorted = |list: &[Value]| {
        let mut l = list.to_vec();
        l.sort_by_key(|v| v["name"].as_str().unwrap_or("").to_string());
        l
    };
    let locals = sorted(traced_locals(replies, want, what));
    (locals, sorted(traced_args(replies, want, what)))
}

// ---------------------------------------------------------------------------
// Forward to the end and back to the start

/// The script of [`step_forward_and_back`] for `n` stops.
fn walk_script(stage: Stage, n: usize) -> String {
    let mut s = prelude(stage);
    s += &"step\ninfo locals\ninfo args\n".repeat(n - 1);
    s += "step\n";
    s += &"reverse-step\ninfo locals\ninfo args\n".repeat(n);
    s += "reverse-step\nend\ndelete\ncontinue\n";
    s
}

/// One stop of the forward walk, as seen.
struct Seen {
    stop: Value,
    locals: Vec<Value>,
    args: Vec<Value>,
}

/// Forward: `step` through stops 1 .. n-1 (each with its locals and
/// args), then once more to the end. Returns what each stop showed
/// (index 0, where `debug` stopped, is not stepped to).
fn walk_forward(
    replies: &mut Replies<'_>,
    stage: Stage,
    want: &[Stop],
    source: &str,
) -> Vec<Option<Seen>> {
    let mut seen = vec![None];
    for (k, w) in want.iter().enumerate().skip(1) {
        let what = place(stage, "step", k, w);
        let r = replies.ok("step", &what);
        check_stop(r, w, source, &what);
        first_records(r, k, &what);
        trace_of(r, &what);
        let (locals, args) = check_locals_args(replies, w, &what);
        seen.push(Some(Seen {
            stop: r.clone(),
            locals,
            args,
        }));
    }
    let last = want.last().unwrap();
    let end = replies.ok("step", &format!("{} step past the last stop", stage.name()));
    assert_eq!(
        end["finished"],
        true,
        "{}: after main's last step: {end}",
        stage.name()
    );
    assert!(
        !(end["line"] == last.line && end["column"] == column(source, last)),
        "{}: once finished the stop no longer names main's last step as current: {end}",
        stage.name()
    );
    seen
}

/// Backward: `reverse-step` through stops n-1 .. 0, each the reference's
/// and as it was forwards (record, place, locals, args). Returns the
/// record of stop 0.
fn walk_back(
    replies: &mut Replies<'_>,
    stage: Stage,
    want: &[Stop],
    source: &str,
    seen: &[Option<Seen>],
) -> i64 {
    let mut record0 = 0;
    for (k, w) in want.iter().enumerate().rev() {
        let what = place(stage, "reverse-step", k, w);
        let r = replies.ok("reverse-step", &what);
        check_stop(r, w, source, &what);
        from_trace(r, &what);
        let (record, _) = trace_of(r, &what);
        let (locals, args) = check_locals_args(replies, w, &what);
        if let Some(fwd) = &seen[k] {
            assert_eq!(
                (record, &r["line"], &r["column"]),
                (
                    trace_of(&fwd.stop, &what).0,
                    &fwd.stop["line"],
                    &fwd.stop["column"]
                ),
                "{what}: backwards at another record or place than forwards: {r} vs {}",
                fwd.stop
            );
            assert_eq!(
                locals, fwd.locals,
                "{what}: locals backwards differ from forwards"
            );
            assert_eq!(
                args, fwd.args,
                "{what}: args backwards differ from forwards"
            );
        }
        record0 = record;
    }
    record0
}

/// One record per stop, counted from stop 0's; `"records"` the same at
/// every stop, the stops (and perhaps the end of main) from stop 0 on.
fn check_records(stage: Stage, seen: &[Option<Seen>], record0: i64) {
    let n = seen.len() as i64;
    let mut all = Vec::new();
    for (k, s) in seen.iter().enumerate() {
        let Some(s) = s else { continue };
        let (record, records) = trace_of(&s.stop, "");
        assert_eq!(
            record - record0,
            k as i64,
            "{} stop {k}: \"record\" counts stops from the first ({record0}): {}",
            stage.name(),
            s.stop
        );
        all.push(records);
    }
    all.dedup();
    assert_eq!(
        all.len(),
        1,
        "{}: \"records\" changed: {all:?}",
        stage.name()
    );
    let total = all[0] - record0;
    assert!(
        total == n || total == n + 1,
        "{}: \"records\" {} for {n} stops from record {record0}",
        stage.name(),
        all[0]
    );
}

fn step_forward_and_back(stage: Stage) {
    require_workspace();
    let native = app_line(&run_native(&egl_trace(), &[], &[]).stdout);
    let source = trace_ref::shader(stage);
    let n = any_run(stage).len();
    let dir = TempDir::new(&format!("trace-{}", stage.name()));
    let out = Session::new(egl_trace(), &walk_script(stage, n))
        .keep_going()
        .run(&dir);
    let want = trace_ref::trace(invocation(stage, &out));
    assert_eq!(want.len(), n, "{stage:?}: the reference's stop count");
    let first = out.ok(&format!("debug {}", stage.name()));
    check_stop(
        first,
        &want[0],
        &source,
        &place(stage, "debug", 0, &want[0]),
    );

    let mut replies = Replies::after_focus(&out, stage);
    let seen = walk_forward(&mut replies, stage, &want, &source);
    let record0 = walk_back(&mut replies, stage, &want, &source, &seen);
    check_records(stage, &seen, record0);

    let err = replies.next("reverse-step");
    assert_eq!(
        err["ok"],
        false,
        "{}: nothing before the first step: {err}",
        stage.name()
    );
    let msg = err["error"].as_str().unwrap_or_default().to_lowercase();
    assert!(
        ["history", "first step", "beginning", "start"]
            .iter()
            .any(|w| msg.contains(w)),
        "{}: reverse-step at the first step: the error should say it is the start: {err}",
        stage.name()
    );

    let exit = out
        .results()
        .into_iter()
        .rfind(|r| r["cmd"] == "continue")
        .unwrap();
    assert_eq!(exit["exited"]["code"], 0, "{exit}\n{}", out.transcript());
    assert_eq!(
        app_line(&out.stdout),
        native,
        "the app's results under gldbg differ from a native run"
    );
}

#[test]
fn fragment_steps_forward_to_the_end_and_back() {
    step_forward_and_back(Stage::Fragment);
}

#[test]
fn vertex_steps_forward_to_the_end_and_back() {
    step_forward_and_back(Stage::Vertex);
}

#[test]
fn tess_control_steps_forward_to_the_end_and_back() {
    step_forward_and_back(Stage::TessControl);
}

#[test]
fn tess_eval_steps_forward_to_the_end_and_back() {
    step_forward_and_back(Stage::TessEval);
}

#[test]
fn geometry_steps_forward_to_the_end_and_back() {
    step_forward_and_back(Stage::Geometry);
}

#[test]
fn compute_steps_forward_to_the_end_and_back() {
    step_forward_and_back(Stage::Compute);
}

// ---------------------------------------------------------------------------
// Calls: backtrace, finish, reverse-finish, next, reverse-next

/// Indices into the reference of the stops the call script visits.
struct CallStops {
    /// `float h;`: blend's first step, called in iteration 0.
    enter: usize,
    /// `total += n;` in iteration 0: after that call.
    after: usize,
    /// `blend(seed.y, acc, m);` (the call after the loop).
    call2: usize,
    /// The first output line: after the second call.
    after2: usize,
}

fn call_stops(want: &[Stop]) -> CallStops {
    CallStops {
        enter: trace_ref::find(want, "blend", lines::H_DECL, &[0]),
        after: trace_ref::find(want, "main", lines::TOTAL_ADD, &[0]),
        call2: trace_ref::find(want, "main", lines::CALL_AFTER, &[]),
        after2: trace_ref::find(want, "main", lines::OUTPUTS, &[]),
    }
}

fn call_script(stage: Stage, at: &CallStops) -> String {
    let mut s = prelude(stage);
    s += &"step\n".repeat(at.enter);
    s += "backtrace\ninfo args\nstep\nstep\nbacktrace\n";
    s += "finish\ninfo locals\nbacktrace\nreverse-step\ninfo args\nreverse-finish\ninfo locals\n";
    s += "next\ninfo locals\n";
    s += &"step\n".repeat(at.call2 - at.after);
    s += "info locals\nnext\ninfo locals\nreverse-next\ninfo locals\nreverse-step\ninfo locals\n";
    s + "end\nkill\n"
}

/// `backtrace` in blend: level 0 blend at `want` with its arguments,
/// level 1 main at the call in the loop (no arguments).
#[track_caller]
fn check_backtrace(r: &Value, want: &Stop, call: &Stop, source: &str, what: &str) {
    from_trace(r, what);
    let frames = r["frames"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no \"frames\": {r}"));
    assert_eq!(frames.len(), 2, "{what}: blend called from main: {r}");
    for (level, (frame, stop)) in frames.iter().zip([want, call]).enumerate() {
        let what = format!("{what}, frame {level}");
        assert_eq!(frame["level"], level, "{what}: {frame}");
        assert_eq!(frame["function"], stop.function, "{what}: {frame}");
        assert_eq!(frame["line"], stop.line, "{what}: {frame}");
        assert_eq!(frame["column"], column(source, stop), "{what}: {frame}");
        let args = frame["args"]
            .as_array()
            .unwrap_or_else(|| panic!("{what}: no \"args\": {frame}"));
        check_vars(args, &stop.args, &format!("{what} args"));
    }
}

/// A stop of the call script: the reference's stop `k`, from the trace.
#[track_caller]
fn traced_stop(r: &Value, want: &[Stop], k: usize, source: &str, what: &str) {
    check_stop(r, &want[k], source, what);
    from_trace(r, what);
}

fn calls_backtrace_finish_next(stage: Stage) {
    require_workspace();
    let source = trace_ref::shader(stage);
    let at = call_stops(&any_run(stage));
    let dir = TempDir::new(&format!("trace-calls-{}", stage.name()));
    let out = Session::new(egl_trace(), &call_script(stage, &at))
        .keep_going()
        .run(&dir);
    let want = trace_ref::trace(invocation(stage, &out));
    let place = |how: &str, k: usize| place(stage, how, k, &want[k]);
    let mut replies = Replies::after_focus(&out, stage);

    for k in 1..=at.enter {
        let what = place("step", k);
        let r = replies.ok("step", &what);
        check_stop(r, &want[k], &source, &what);
        first_records(r, k, &what);
    }
    // In blend (iteration 0): its frame over main's at the call.
    let call = &want[at.enter - 1];
    assert_eq!(call.line, lines::CALL_LOOP);
    let what = place("backtrace", at.enter);
    check_backtrace(
        replies.ok("backtrace", &what),
        &want[at.enter],
        call,
        &source,
        &what,
    );
    traced_args(&mut replies, &want[at.enter], &place("step", at.enter));
    for k in at.enter + 1..=at.enter + 2 {
        traced_stop(
            replies.ok("step", &place("step", k)),
            &want,
            k,
            &source,
            &place("step", k),
        );
    }
    let k = at.enter + 2;
    assert!([lines::H_HALF, lines::H_PLUS].contains(&want[k].line));
    let what = place("backtrace", k);
    check_backtrace(
        replies.ok("backtrace", &what),
        &want[k],
        call,
        &source,
        &what,
    );

    // finish: out of blend, in main after the call.
    let what = place("finish", at.after);
    traced_stop(replies.ok("finish", &what), &want, at.after, &source, &what);
    traced_locals(&mut replies, &want[at.after], &what);
    let bt = replies.ok("backtrace", &what);
    from_trace(bt, &what);
    let frames = bt["frames"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: {bt}"));
    assert_eq!(frames.len(), 1, "{what}: only main: {bt}");
    assert_eq!(
        (&frames[0]["function"], &frames[0]["line"]),
        (&json!("main"), &json!(lines::TOTAL_ADD)),
        "{what}: {bt}"
    );

    // Back into blend's last step, then reverse-finish: at the call, before it.
    let what = place("reverse-step", at.after - 1);
    traced_stop(
        replies.ok("reverse-step", &what),
        &want,
        at.after - 1,
        &source,
        &what,
    );
    traced_args(&mut replies, &want[at.after - 1], &what);
    let what = place("reverse-finish", at.enter - 1);
    traced_stop(
        replies.ok("reverse-finish", &what),
        &want,
        at.enter - 1,
        &source,
        &what,
    );
    traced_locals(&mut replies, &want[at.enter - 1], &what);

    // next over the call in the loop.
    let what = place("next", at.after);
    traced_stop(replies.ok("next", &what), &want, at.after, &source, &what);
    traced_locals(&mut replies, &want[at.after], &what);

    // To the call after the loop, next over it, reverse-next back.
    for k in at.after + 1..=at.call2 {
        traced_stop(
            replies.ok("step", &place("step", k)),
            &want,
            k,
            &source,
            &place("step", k),
        );
    }
    traced_locals(&mut replies, &want[at.call2], &place("step", at.call2));
    for (cmd, k) in [
        ("next", at.after2),
        ("reverse-next", at.call2),
        ("reverse-step", at.call2 - 1),
    ] {
        let what = place(cmd, k);
        traced_stop(replies.ok(cmd, &what), &want, k, &source, &what);
        traced_locals(&mut replies, &want[k], &what);
    }
}

/// The next result is `info locals`, answered from the trace, with the
/// reference's locals of `want`; its list.
#[track_caller]
fn traced_locals<'a>(replies: &mut Replies<'a>, want: &Stop, what: &str) -> &'a [Value] {
    let what = format!("{what}: info locals");
    let r = replies.ok("info locals", &what);
    from_trace(r, &what);
    let list = var_list(r, &what);
    check_vars(list, &want.locals, &what);
    list
}

/// The next result is `info args`, answered from the trace, with the
/// reference's arguments of `want`; its list.
#[track_caller]
fn traced_args<'a>(replies: &mut Replies<'a>, want: &Stop, what: &str) -> &'a [Value] {
    let what = format!("{what}: info args");
    let r = replies.ok("info args", &what);
    from_trace(r, &what);
    let list = var_list(r, &what);
    check_vars(list, &want.args, &what);
    list
}

#[test]
fn fragment_backtrace_finish_next_and_their_reverses() {
    calls_backtrace_finish_next(Stage::Fragment);
}

#[test]
fn vertex_backtrace_finish_next_and_their_reverses() {
    calls_backtrace_finish_next(Stage::Vertex);
}

#[test]
fn tess_control_backtrace_finish_next_and_their_reverses() {
    calls_backtrace_finish_next(Stage::TessControl);
}

#[test]
fn tess_eval_backtrace_finish_next_and_their_reverses() {
    calls_backtrace_finish_next(Stage::TessEval);
}

#[test]
fn geometry_backtrace_finish_next_and_their_reverses() {
    calls_backtrace_finish_next(Stage::Geometry);
}

#[test]
fn compute_backtrace_finish_next_and_their_reverses() {
    calls_backtrace_finish_next(Stage::Compute);
}

// ---------------------------------------------------------------------------
// Frames: up, down, frame N

/// `up` / `frame 1` select main's frame at the call in the loop: `info
/// locals` lists main's locals there, `info args` none; `down` / `frame 0`
/// select blend's again.
fn frames_up_and_down(stage: Stage) {
    require_workspace();
    let source = trace_ref::shader(stage);
    let at = call_stops(&any_run(stage));
    let k = at.enter + 2;
    let mut script = prelude(stage) + &"step\n".repeat(k);
    script += "up\ninfo locals\ninfo args\ndown\ninfo locals\ninfo args\n";
    script += "frame 1\ninfo locals\nframe 0\ninfo args\nend\nkill\n";
    let dir = TempDir::new(&format!("trace-frames-{}", stage.name()));
    let out = Session::new(egl_trace(), &script).keep_going().run(&dir);
    let want = trace_ref::trace(invocation(stage, &out));
    let mut replies = Replies::after_focus(&out, stage);
    for j in 1..=k {
        let what = place(stage, "step", j, &want[j]);
        let r = replies.ok("step", &what);
        check_stop(r, &want[j], &source, &what);
    }
    let (blend, call) = (&want[k], &want[at.enter - 1]);
    assert_eq!(blend.function, "blend");
    let caller = place(stage, "up from blend", at.enter - 1, call);
    from_trace(replies.ok("up", &caller), &caller);
    traced_locals(&mut replies, call, &caller);
    traced_args(&mut replies, call, &caller);
    let callee = place(stage, "down", k, blend);
    from_trace(replies.ok("down", &callee), &callee);
    traced_locals(&mut replies, blend, &callee);
    traced_args(&mut replies, blend, &callee);
    let caller = place(stage, "frame 1 from blend", at.enter - 1, call);
    from_trace(replies.ok("frame 1", &caller), &caller);
    traced_locals(&mut replies, call, &caller);
    let callee = place(stage, "frame 0", k, blend);
    from_trace(replies.ok("frame 0", &callee), &callee);
    traced_args(&mut replies, blend, &callee);
}

#[test]
fn fragment_frames_up_and_down() {
    frames_up_and_down(Stage::Fragment);
}

#[test]
fn compute_frames_up_and_down() {
    frames_up_and_down(Stage::Compute);
}

// ---------------------------------------------------------------------------
// Shader breakpoints: continue and reverse-continue

/// `break 29` (`total += n;`), then `continue` three times: iterations 0,
/// 1, 2 of the loop, each with the locals of the reference; then
/// `reverse-continue` twice: iterations 1 and 0 again. Only the first
/// continue may replay (it records the trace).
fn continue_and_reverse_continue(stage: Stage) {
    require_workspace();
    let source = trace_ref::shader(stage);
    let mut script = prelude(stage) + &format!("break {}\n", lines::TOTAL_ADD);
    script += &"continue\ninfo locals\n".repeat(3);
    script += &"reverse-continue\ninfo locals\n".repeat(2);
    script += "end\nkill\n";
    let dir = TempDir::new(&format!("trace-continue-{}", stage.name()));
    let out = Session::new(egl_trace(), &script).keep_going().run(&dir);
    let want = trace_ref::trace(invocation(stage, &out));
    let mut replies = Replies::after_focus(&out, stage);
    replies.ok(&format!("break {}", lines::TOTAL_ADD), stage.name());
    let hits = [0u32, 1, 2, 1, 0];
    for (j, &iteration) in hits.iter().enumerate() {
        let cmd = if j < 3 {
            "continue"
        } else {
            "reverse-continue"
        };
        let k = trace_ref::find(&want, "main", lines::TOTAL_ADD, &[iteration]);
        let what = place(stage, cmd, k, &want[k]);
        let r = replies.ok(cmd, &what);
        check_stop(r, &want[k], &source, &what);
        if j == 0 {
            let probes = r["timing"]["probes"].as_u64();
            assert!(
                matches!(probes, Some(0 | 1)),
                "{what}: at most the trace's one replay: {r}"
            );
        } else {
            from_trace(r, &what);
        }
        traced_locals(&mut replies, &want[k], &what);
    }
}

#[test]
fn fragment_continue_and_reverse_continue_to_a_breakpoint() {
    continue_and_reverse_continue(Stage::Fragment);
}

#[test]
fn compute_continue_and_reverse_continue_to_a_breakpoint() {
    continue_and_reverse_continue(Stage::Compute);
}

// ---------------------------------------------------------------------------
// The checks themselves

/// A variable as CLI.md writes it: `{"name","type","value"}` or
/// `{"name","type","undefined":true}`.
fn var_json(v: &Var) -> Value {
    match &v.value {
        Some(value) => json!({"name": v.name, "type": v.ty, "value": value}),
        None => json!({"name": v.name, "type": v.ty, "undefined": true}),
    }
}

/// The checks accept the JSON of the contract written from the reference
/// (every stop of a fragment run), and reject a wrong value, a value where
/// the variable is undefined, a missing and an extra local.
#[test]
fn the_checks_read_the_json_of_cli_md() {
    let source = trace_ref::shader(Stage::Fragment);
    let want = any_run(Stage::Fragment);
    for (k, w) in want.iter().enumerate() {
        let stop = json!({"cmd": "step", "ok": true, "line": w.line,
            "column": column(&source, w), "function": w.function,
            "iterations": w.iterations, "finished": false,
            "trace": {"record": k, "records": want.len(), "truncated": false},
            "timing": {"probes": 0}});
        check_stop(&stop, w, &source, "contract");
        from_trace(&stop, "contract");
        assert_eq!(trace_of(&stop, "contract"), (k as i64, want.len() as i64));
        let locals = json!({"cmd": "info locals", "ok": true,
            "locals": w.locals.iter().map(var_json).collect::<Vec<_>>()});
        check_vars(var_list(&locals, "contract"), &w.locals, "contract");
    }
    let k = trace_ref::find(&want, "main", lines::CALL_AFTER, &[]);
    let good: Vec<Value> = want[k].locals.iter().map(var_json).collect();
    let fails = |list: Vec<Value>| {
        let w = &want[k].locals;
        std::panic::catch_unwind(|| check_vars(&list, w, "contract")).is_err()
    };
    let with = |name: &str, v: Value| -> Vec<Value> {
        let mut l = good.clone();
        *l.iter_mut().find(|x| x["name"] == name).unwrap() = v;
        l
    };
    // w = float[3] written as nested arrays is the same value.
    let w = &good.iter().find(|x| x["name"] == "w").unwrap()["value"];
    let nested: Vec<Value> = w.as_array().unwrap().iter().map(|c| json!([c])).collect();
    assert!(!fails(with(
        "w",
        json!({"name": "w", "type": "float[3]", "value": nested})
    )));
    assert!(fails(with(
        "total",
        json!({"name": "total", "type": "int", "value": [6]})
    )));
    assert!(fails(with(
        "m",
        json!({"name": "m", "type": "int", "value": [0]})
    )));
    assert!(fails(with(
        "last",
        json!({"name": "last", "type": "float", "undefined": true})
    )));
    assert!(fails(good[1..].to_vec()));
    let mut extra = good.clone();
    extra.push(json!({"name": "color", "type": "vec4", "undefined": true}));
    assert!(fails(extra));
}
