//! Outputs not written yet, early returns and discards, end to end on
//! `tests/apps/egl_unwritten.c` (GL 3.3 compatibility, GLSL 1.20,
//! `gl_FragColor`; see the app's header comment).
//!
//! * An output before its first write, and the components a partial write
//!   leaves out, print as "undefined" (JSON: the string, and the indices in
//!   `undefined`), never as numbers, per invocation on the path it took;
//!   summaries leave them out of min/max and `dump` draws them uncovered.
//! * At the end of `main`, a fragment that returned early has the values it
//!   returned with, and one that was discarded is "discarded", not
//!   "not reached".
//! * A call with an indexed `inout` argument (`func(i, w, v[w[i]])`) runs in
//!   the debug shader as in the app: the end of `main` is reached by every
//!   fragment, green.
//!
//! * Writes through `out`/`inout` arguments (statement-level calls, calls
//!   in declarations, built-ins such as `modf`), inside other functions,
//!   nested (`b = a = x`) and by matrix column are followed; a write gldbg
//!   cannot follow (an element with a variable index through an `out`
//!   argument) prints and dumps the value as read with `written_unknown`.
//!
//! Values are checked against the CPU formula of the shader.

mod support;

use gldbg_tests::*;
use serde_json::{Value, json};
use support::build_c_app;

fn app() -> std::path::PathBuf {
    build_c_app("egl_unwritten.c", "egl_unwritten", &["EGL", "OpenGL"], &[])
}

const W: u64 = 64;
const SCALE: f64 = 0.25;

/// The shader's `k` at pixel column `x`.
fn k(x: u32) -> f64 {
    (x as f64 + 0.5) * SCALE
}

/// The value components of a print, `None` for an "undefined" one
/// (CLI.md: a value not written at all is `"undefined": true`, no value).
fn components(r: &Value) -> Vec<Option<f64>> {
    if r["undefined"] == true {
        assert!(r.get("value").is_none(), "{r}");
        return vec![None; 4];
    }
    r["value"]
        .as_array()
        .unwrap_or_else(|| panic!("no value: {r}"))
        .iter()
        .map(|x| match x {
            Value::String(s) if s == "undefined" => None,
            x => Some(x.as_f64().unwrap_or_else(|| panic!("{x} in {r}"))),
        })
        .collect()
}

#[track_caller]
fn check(r: &Value, want: &[Option<f64>]) {
    assert_eq!(r["reached"], true, "{r}");
    let got = components(r);
    assert_eq!(got.len(), want.len(), "{r}");
    for (g, w) in got.iter().zip(want) {
        match (g, w) {
            (Some(g), Some(w)) => assert_close(*g, *w, 1e-6, &r.to_string()),
            (None, None) => {}
            _ => panic!("want {want:?}: {r}"),
        }
    }
    let undefined: Vec<u64> = want
        .iter()
        .enumerate()
        .filter(|(_, w)| w.is_none())
        .map(|(i, _)| i as u64)
        .collect();
    match undefined.len() {
        0 => assert!(r.get("undefined_components").is_none(), "{r}"),
        4 => assert_eq!(r["undefined"], true, "{r}"),
        _ => assert_eq!(r["undefined_components"], json!(undefined), "{r}"),
    }
}

#[test]
fn unwritten_outputs_are_undefined_and_the_end_of_main_has_returns_and_discards() {
    require_workspace();
    let dir = TempDir::new("unwritten");
    let png = dir.join("rg.png");
    let script = format!(
        "break draw\ncontinue\ndebug fragment\n\
         print gl_FragColor @ 5,5\n\
         break 14\ncontinue\n\
         print gl_FragColor @ 20,10\nprint gl_FragColor @ 20,40\nprint gl_FragColor\n\
         print gl_FragColor.r + 1.0 @ 20,10\n\
         dump gl_FragColor.rg {}\n\
         break 17\ncontinue\nprint late @ 20,5\nprint late @ 20,10\n\
         delete 14\ndelete 17\ncontinue\n\
         print gl_FragColor @ 5,5\nprint gl_FragColor @ 20,10\nprint gl_FragColor @ 20,40\n\
         print gl_FragColor @ 50,5\nprint k @ 5,5\nprint gl_FragColor\n",
        png.display()
    );
    let out = Session::new(app(), &script).run(&dir);

    // At the first step nothing is written: no number at all.
    let r = out.ok_n("print gl_FragColor @ 5,5", 0);
    assert_eq!(r["reached"], true, "{r}");
    assert_eq!(r["undefined"], true, "{r}");
    assert!(r.get("value").is_none(), "no number at all: {r}");

    // Line 14 (`gl_FragColor.b = 0.5;`), reached by the middle columns:
    // .rg written below y = 32 only, .ba not yet anywhere.
    let stop = out.ok_n("continue", 1);
    assert_eq!(stop["line"], 14, "{stop}");
    assert_eq!(stop["reached"], 32 * W, "{stop}");
    check(
        out.ok("print gl_FragColor @ 20,10"),
        &[Some(k(20)), Some(10.5), None, None],
    );
    check(
        out.ok("print gl_FragColor @ 20,40"),
        &[None, None, None, None],
    );
    let sum = &out.ok_n("print gl_FragColor", 0)["summary"];
    assert_eq!(sum["count"], 32 * W, "{sum}");
    assert_eq!(sum["undefined"], 32 * W, "every one lacks .ba: {sum}");
    // An expression of the written part alone is defined.
    check(
        out.ok("print gl_FragColor.r + 1.0 @ 20,10"),
        &[Some(k(20) + 1.0)],
    );
    // The dump draws only the fragments whose .rg are written.
    let dump = out.ok(&format!("dump gl_FragColor.rg {}", png.display()));
    assert_eq!(dump["reached"], 32 * 32, "{dump}");

    // The end of main: returned early (x < 16), discarded (x >= 48), ran
    // to the end (.rg written below y = 32 only).
    // A local read before any assignment is undefined too.
    let at = out.ok_n("continue", 2);
    assert_eq!(at["line"], 17, "{at}");
    check(out.ok("print late @ 20,5"), &[Some(k(20))]);
    let r = out.ok("print late @ 20,10");
    assert_eq!(r["undefined"], true, "{r}");
    assert!(r.get("value").is_none(), "{r}");

    let end = out.ok_n("continue", 3);
    assert_eq!(end["finished"], true, "{end}");
    assert_eq!(
        end["reached"],
        48 * W,
        "returned early or ran to the end: {end}"
    );
    check(
        out.ok_n("print gl_FragColor @ 5,5", 1),
        &[Some(k(5)), Some(1.0), Some(0.0), Some(1.0)],
    );
    check(
        out.ok_n("print gl_FragColor @ 20,10", 1),
        &[Some(k(20)), Some(10.5), Some(0.5), Some(1.0)],
    );
    check(
        out.ok_n("print gl_FragColor @ 20,40", 1),
        &[None, None, Some(0.5), Some(1.0)],
    );
    let r = out.ok("print gl_FragColor @ 50,5");
    assert_eq!(r["reached"], false, "{r}");
    assert_eq!(r["discarded"], true, "{r}");
    // A local at the end of main, for a fragment that returned early.
    let r = out.ok("print k @ 5,5");
    assert_close(scalar(r), k(5), 1e-6, &r.to_string());
    let sum = &out.ok_n("print gl_FragColor", 1)["summary"];
    assert_eq!(sum["total"], W * W, "{sum}");
    assert_eq!(sum["count"], 48 * W, "returned and finished: {sum}");
    assert_eq!(sum["discarded"], 16 * W, "{sum}");
    assert_eq!(sum["undefined"], 32 * 32, "{sum}");
    // Over the written ones only: columns 0..48, rows 0..32 for .g.
    assert_eq!(
        values(&json!({"value": sum["min"]})),
        vec![k(0), 0.5, 0.0, 1.0],
        "{sum}"
    );
    assert_eq!(
        values(&json!({"value": sum["max"]})),
        vec![k(47), 31.5, 0.5, 1.0],
        "{sum}"
    );
}

#[test]
fn an_indexed_inout_argument_is_evaluated_as_the_app_does() {
    require_workspace();
    let dir = TempDir::new("inout-index");
    let script = "break draw\ncontinue\ncontinue\ndebug fragment\ncontinue\n\
                  print gl_FragColor @ 5,5\nprint gl_FragColor\n";
    let out = Session::new(app(), script).run(&dir);
    let stop = out.ok_n("continue", 1);
    assert_eq!(stop["stopped"]["draw"], 2, "{stop}");
    let native = run_native(&app(), &[], &[]);
    assert!(
        native.stdout.contains("inout (0, 1, 0, 1)"),
        "the app's own run is green: {}",
        native.stdout
    );
    let end = out.ok_n("continue", 2);
    assert_eq!(end["finished"], true, "{end}");
    check(
        out.ok("print gl_FragColor @ 5,5"),
        &[Some(0.0), Some(1.0), Some(0.0), Some(1.0)],
    );
    let sum = &out.ok("print gl_FragColor")["summary"];
    assert_eq!(sum["count"], W * W, "{sum}");
    assert_eq!(
        values(&json!({"value": sum["min"]})),
        vec![0.0, 1.0, 0.0, 1.0],
        "{sum}"
    );
    assert_eq!(
        values(&json!({"value": sum["max"]})),
        vec![0.0, 1.0, 0.0, 1.0],
        "{sum}"
    );
}

#[test]
fn gl_position_is_undefined_until_the_vertex_shader_writes_it() {
    require_workspace();
    let dir = TempDir::new("unwritten-vertex");
    let script = "break draw\ncontinue\ndebug vertex\n\
                  print gl_Position @ vertex 1\nprint gl_Position\n\
                  step\nprint gl_Position @ vertex 1\nprint gl_Position\n";
    let out = Session::new(app(), script).run(&dir);
    let r = out.ok_n("print gl_Position @ vertex 1", 0);
    assert_eq!(r["reached"], true, "{r}");
    assert_eq!(r["undefined"], true, "{r}");
    let sum = &out.ok_n("print gl_Position", 0)["summary"];
    assert_eq!(sum["count"], 4, "{sum}");
    assert_eq!(sum["undefined"], 4, "{sum}");
    // After `gl_Position = vec4(a_pos, 0.0, 1.0);`: vertex 1 is (1, -1).
    let end = out.ok("step");
    assert_eq!(end["finished"], true, "{end}");
    check(
        out.ok_n("print gl_Position @ vertex 1", 1),
        &[Some(1.0), Some(-1.0), Some(0.0), Some(1.0)],
    );
    let sum = &out.ok_n("print gl_Position", 1)["summary"];
    assert!(sum.get("undefined").is_none(), "{sum}");
    assert_eq!(
        values(&json!({"value": sum["min"]})),
        vec![-1.0, -1.0, 0.0, 1.0],
        "{sum}"
    );
}

/// Draw 3 (CALLS_FS): writes through `out`/`inout` arguments, a built-in's
/// `out`, a function writing the output, a nested assignment and a matrix
/// by column are followed, also through a call in a declaration; an
/// element with a variable index written through one is "cannot tell".
#[test]
fn writes_through_calls_nested_assignments_and_matrix_columns_are_followed() {
    require_workspace();
    let dir = TempDir::new("unwritten-calls");
    let png = dir.join("v2.png");
    let script = format!(
        "break draw\ncontinue\ncontinue\ncontinue\ndebug fragment\n\
         break 23\ncontinue\n\
         print gl_FragColor @ 20,5\nprint gl_FragColor @ 40,5\n\
         print a @ 20,5\nprint m @ 20,5\nprint ip @ 20,5\nprint lo2 @ 20,5\n\
         print v2[1] @ 20,5\ndump v2[1] {}\n\
         print gl_FragColor\n\
         delete 23\ncontinue\nprint gl_FragColor @ 20,5\n",
        png.display()
    );
    let out = Session::new(app(), &script).run(&dir);
    let stop = out.ok_n("continue", 2);
    assert_eq!(stop["stopped"]["draw"], 3, "{stop}");
    let at = out.ok_n("continue", 3);
    assert_eq!(at["line"], 23, "{at}");
    // .r through `out hi` always; .g through `out lo` only where k > 8
    // (`out` leaves it undefined elsewhere); .b inside `paint`; .a not yet.
    let (k20, k40) = (k(20), k(40));
    check(
        out.ok_n("print gl_FragColor @ 20,5", 0),
        &[Some(k20.floor()), None, Some(k20), None],
    );
    check(
        out.ok("print gl_FragColor @ 40,5"),
        &[Some(k40.floor()), Some(k40.fract()), Some(k40), None],
    );
    // `b = a = 2k`: the nested write of `a` is a write.
    check(out.ok("print a @ 20,5"), &[Some(2.0 * k20)]);
    // Both columns written: no part undefined.
    check(
        out.ok("print m @ 20,5"),
        &[Some(k20), Some(1.0), Some(2.0), Some(2.0 * k20)],
    );
    check(out.ok("print ip @ 20,5"), &[Some(k20.floor())]);
    // Written by a call inside a declaration: copied back at the callee's
    // return.
    check(out.ok("print lo2 @ 20,5"), &[Some(k20 * 0.5)]);
    // Through an element whose index is not a constant: gldbg cannot tell,
    // says so, and shows the value as read (the true one here), never
    // "undefined". (k = 5.125 at x = 20: v2[1].)
    let r = out.ok("print v2[1] @ 20,5");
    assert_eq!(r["written_unknown"], json!(["v2"]), "{r}");
    assert!(r.get("undefined").is_none(), "{r}");
    assert_close(scalar(r), k20 * 0.5, 1e-6, &r.to_string());
    // Its dump says so too, and draws every fragment (none claimed unwritten).
    let dump = out.ok(&format!("dump v2[1] {}", png.display()));
    assert_eq!(dump["written_unknown"], json!(["v2"]), "{dump}");
    assert_eq!(dump["reached"], W * W, "{dump}");
    // Every fragment lacks .a; those left of x = 32 lack .g too.
    let sum = &out.ok_n("print gl_FragColor", 0)["summary"];
    assert_eq!(sum["count"], W * W, "{sum}");
    assert_eq!(sum["undefined"], W * W, "{sum}");
    let end = out.ok_n("continue", 4);
    assert_eq!(end["finished"], true, "{end}");
    check(
        out.ok_n("print gl_FragColor @ 20,5", 1),
        &[Some(k20.floor()), None, Some(k20), Some(6.0 * k20)],
    );
}
