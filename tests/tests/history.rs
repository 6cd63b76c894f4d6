//! Pixel history (issue 16) on tests/apps/egl_history.c, against a CPU model
//! of its frame (history/model.rs running history/scene.rs, the app's
//! SCENE table):
//! * the model's final window (colour, depth, stencil) and texture equal
//!   the driver's at every pixel and texel (the app's `--probe`);
//! * `history X,Y` at the start of a frame lists, at pixels chosen for each
//!   case ([`PIXELS`]), the calls that wrote the pixel with their
//!   fragments, tests, outputs and values after, as the model does;
//!   `history texture T X,Y` does so for texels of the render target;
//! * `debug history K` stops at the same draw of the next frame, focused
//!   on the pixel, with the model's values;
//! * the frames under history are the native ones, bad input is refused
//!   clearly and leaves the app unharmed.

use std::path::PathBuf;

use gldbg_tests::*;

mod support;

#[path = "history/check.rs"]
mod check;
#[path = "history/model.rs"]
mod model;
#[path = "history/running.rs"]
mod running;
#[path = "history/scene.rs"]
mod scene;

use check::{Expect, Report, check_history};
use model::{Entry, Pixel, float8, history, window_depth};
use scene::{RTT_SIZE, SIZE, Target};
use support::assert_exited_0;

/// Window pixels whose histories are checked, and what each exercises.
const PIXELS: &[(u32, u32, &str)] = &[
    (1, 1, "the frame's clear only"),
    (9, 40, "the composite of texel (9,8) of R1"),
    (
        3,
        34,
        "the composite of texel (3,2) of the texture's glClearBufferfv",
    ),
    (
        17,
        48,
        "the composite of texel (17,16), where R2 was rejected by depth",
    ),
    (38, 40, "D1 passes the depth test"),
    (
        46,
        45,
        "D1 passes, D2 (drawn later, behind) rejected by depth",
    ),
    (54, 52, "D2 passes"),
    (57, 56, "D2 passes, then the scissored glClear"),
    (60, 60, "the clear and the scissored glClear"),
    (
        26,
        24,
        "one draw, two primitives: A passes, B rejected by depth",
    ),
    (31, 22, "one draw, B's primitive alone passes"),
    (8, 7, "S1 writes stencil 1, S2 passes the stencil test"),
    (12, 13, "S2 rejected by the stencil test"),
    (23, 6, "a scissored draw inside the scissor box"),
    (
        28,
        11,
        "a scissored draw outside the box: rejected by scissor",
    ),
    (4, 20, "a fragment discarded (even x)"),
    (5, 20, "the discarding draw's fragment of odd x passes"),
    (38, 8, "blend SRC_ALPHA, ONE_MINUS_SRC_ALPHA"),
    (48, 8, "blend ONE, ONE (green saturates)"),
    (58, 8, "blend GL_MIN"),
    (50, 20, "the blit of texel (6,4) of R1"),
    (45, 17, "the blit of texel (1,1) of the glClearBufferfv"),
];

/// Texels of the render target whose histories are checked.
const TEXELS: &[(u32, u32, &str)] = &[
    (30, 2, "the texture's clear only"),
    (2, 2, "the clear, then glClearBufferfv (scissored)"),
    (6, 5, "the clear, glClearBufferfv, R1"),
    (15, 14, "R1 passes, R2 rejected by depth"),
    (24, 23, "R2 passes"),
];

fn egl_history() -> PathBuf {
    let built = PathBuf::from(env!("GLDBG_APP_EGL_HISTORY"));
    if built.exists() {
        built
    } else {
        target_dir().join("apps").join("egl_history")
    }
}

/// The app's texture and framebuffer names ("egl_history: rtt texture T
/// framebuffer F").
fn names(text: &str) -> (u64, u64) {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("egl_history: rtt texture "))
        .unwrap_or_else(|| panic!("no texture line in {text:?}"));
    let w: Vec<&str> = line.split_whitespace().collect();
    (w[0].parse().unwrap(), w[2].parse().unwrap())
}

/// The frame hash lines the app printed.
fn hashes(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("egl_history: frame ") && l.contains(" hash "))
        .map(str::to_string)
        .collect()
}

fn native(frames: u32) -> Output {
    run_native(&egl_history(), &["--frames", &frames.to_string()], &[])
}

/// From launch to the first call of frame 2 (FB 0 bound).
const TO_FRAME_2: &str = "break frame\ncontinue\ndelete\nstep\n";

fn window(x: u32, y: u32) -> model::Watch {
    (Target::Window, x, y)
}

/// Checks the model's own story at the chosen pixels: each case of the
/// issue shows where [`PIXELS`] says (the model panics for a pixel on a
/// rectangle's diagonal, where the rasteriser picks the triangle).
#[test]
fn the_pixels_exercise_each_case() {
    let rejected = |e: &[Entry], by: &str| {
        e.iter()
            .flat_map(|e| &e.fragments)
            .any(|f| f.rejected_by == Some(by))
    };
    let function = |e: &[Entry], f: &str| e.iter().any(|e| e.function == f);
    let h: Vec<Vec<Entry>> = PIXELS
        .iter()
        .map(|&(x, y, _)| history(window(x, y)))
        .collect();
    let at = |x: u32, y: u32| &h[PIXELS.iter().position(|p| (p.0, p.1) == (x, y)).unwrap()];
    assert_eq!(at(1, 1).len(), 1);
    assert!(rejected(at(46, 45), "depth"));
    assert!(rejected(at(12, 13), "stencil"));
    assert!(rejected(at(28, 11), "scissor"));
    assert!(rejected(at(4, 20), "discard"));
    assert!(function(at(50, 20), "glBlitFramebuffer"));
    let two = &at(26, 24)[1].fragments;
    assert_eq!(two.len(), 2, "{two:?}");
    assert_eq!((two[0].primitive, two[1].primitive), (0, 3));
    assert!(two[0].rejected_by.is_none() && two[1].rejected_by == Some("depth"));
    assert_eq!(
        at(57, 56)
            .iter()
            .filter(|e| e.function == "glClear")
            .count(),
        2
    );
    // Blends, by hand: 0.4 * 255 + 0.6 * 51 = 132.6; 51 + 100; min(20, 51).
    assert_eq!(at(38, 8)[1].after.color, [133, 61, 92, 194]);
    assert_eq!(at(48, 8)[1].after.color, [151, 255, 173, 255]);
    assert_eq!(at(58, 8)[1].after.color, [20, 102, 100, 128]);
    // The composite shows R1 (200, 40, 0) where R2 was rejected.
    assert_eq!(at(17, 48)[1].after.color, [200, 40, 0, 255]);
    for &(x, y, _) in TEXELS {
        history((Target::Rtt, x, y));
    }
    assert!(rejected(&history((Target::Rtt, 15, 14)), "depth"));
}

/// The checker of `history` results accepts the model's own history at
/// every chosen pixel, written as CLI.md's JSON, and finds a change of
/// each kind of field in it (so the gldbg tests fail for wrong values only).
#[test]
fn the_checker_accepts_the_model_and_finds_changes() {
    use std::os::unix::process::ExitStatusExt;
    let out = Output {
        status: std::process::ExitStatus::from_raw(0),
        stdout: String::new(),
        stderr: String::new(),
        lines: Vec::new(),
    };
    let fbo = 7;
    let watches = PIXELS
        .iter()
        .map(|&(x, y, _)| window(x, y))
        .chain(TEXELS.iter().map(|&(x, y, _)| (Target::Rtt, x, y)));
    for watch in watches {
        let e = Expect {
            end: "swap",
            watch,
            image: "window",
            frame: 2,
            fbo,
        };
        let want = history(watch);
        let good = check::model_json(&want, &e, 100);
        let mut rep = Report::new(&out);
        check_history(&mut rep, &good, &want, &e);
        rep.finish();
    }
    // Changes the checker must see, at D1 over D2 (46,45) and the alpha blend (38,8).
    let e = Expect {
        end: "swap",
        watch: window(46, 45),
        image: "window",
        frame: 2,
        fbo,
    };
    let want = history(e.watch);
    let good = check::model_json(&want, &e, 100);
    let changes: &[(&str, Value)] = &[
        ("/history/2/fragments/0/rejected_by", Value::Null),
        ("/history/2/fragments/0/passed", Value::Bool(true)),
        ("/history/2/fragments/0/primitive", Value::from(1)),
        ("/history/2/fragments/0/depth", Value::from(0.25)),
        ("/history/2/fragments/0/output/1", Value::from(0.5)),
        ("/history/2/fragments/0/depth_before", Value::from(1.0)),
        ("/history/2/fragments/0/stencil_after", Value::from(1)),
        ("/history/1/after/0", Value::from(2.0 / 255.0)),
        ("/history/1/draw", Value::from(5)),
        ("/history/0/function", Value::from("glClearBufferfv")),
        ("/history/2/call", Value::from(1)),
        ("/end", Value::from("exit")),
    ];
    for (pointer, value) in changes {
        let mut bad = good.clone();
        *bad.pointer_mut(pointer)
            .unwrap_or_else(|| panic!("no {pointer}")) = value.clone();
        let mut rep = Report::new(&out);
        check_history(&mut rep, &bad, &want, &e);
        assert!(rep.has_failures(), "{pointer} = {value} went unnoticed");
    }
    let mut bad = good.clone();
    bad["history"].as_array_mut().unwrap().pop();
    let mut rep = Report::new(&out);
    check_history(&mut rep, &bad, &want, &e);
    assert!(rep.has_failures(), "a missing entry went unnoticed");
    // Blends: one step of slack, not two.
    let e = Expect {
        end: "swap",
        watch: window(38, 8),
        ..e
    };
    let want = history(e.watch);
    let good = check::model_json(&want, &e, 100);
    for (step, noticed) in [(1.0, false), (2.0, true)] {
        let mut bad = good.clone();
        let v = bad.pointer_mut("/history/1/after/0").unwrap();
        *v = Value::from(v.as_f64().unwrap() + step / 255.0);
        let mut rep = Report::new(&out);
        check_history(&mut rep, &bad, &want, &e);
        assert_eq!(
            rep.has_failures(),
            noticed,
            "a blend result {step} steps off"
        );
    }
}

/// The app's final values (`--probe` at every pixel and texel) are the model's.
#[test]
fn the_model_matches_the_driver() {
    let mut args = vec!["--frames".to_string(), "2".to_string()];
    for y in 0..SIZE {
        for x in 0..SIZE {
            args.extend(["--probe".to_string(), format!("{x},{y}")]);
        }
    }
    for y in 0..RTT_SIZE {
        for x in 0..RTT_SIZE {
            args.extend(["--probe-tex".to_string(), format!("{x},{y}")]);
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = run_native(&egl_history(), &args, &[]);
    let frame = model::final_frame();
    let mut wrong = Vec::new();
    let mut seen = 0;
    for line in out.stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        let n: Vec<u32> = w.iter().skip(1).filter_map(|s| s.parse().ok()).collect();
        let close = |got: &[u32], want: &Pixel| {
            got.iter()
                .zip(want.color)
                .all(|(g, w)| g.abs_diff(u32::from(w)) <= u32::from(want.slack))
        };
        match w.first() {
            Some(&"probe") => {
                let p = frame.window.at(n[0], n[1]);
                let ok = close(&n[2..6], &p)
                    && p.depth.is_some_and(|d| d.abs_diff(n[6]) <= 1)
                    && p.stencil == Some(n[7] as u8);
                if !ok {
                    wrong.push(format!("{line}: CPU model {p:?}"));
                }
                seen += 1;
            }
            Some(&"probe-tex") => {
                let p = frame.rtt.at(n[0], n[1]);
                if !close(&n[2..6], &p) {
                    wrong.push(format!("{line}: CPU model {p:?}"));
                }
                seen += 1;
            }
            _ => {}
        }
    }
    assert_eq!(
        seen,
        SIZE * SIZE + RTT_SIZE * RTT_SIZE,
        "{}",
        out.transcript()
    );
    assert!(
        wrong.is_empty(),
        "{} pixels differ from the model:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // Every frame is the same.
    let h = hashes(&out.stdout);
    assert_eq!(h.len(), 2, "{}", out.transcript());
    assert_eq!(h[0].split(" hash ").nth(1), h[1].split(" hash ").nth(1));
}

/// `history X,Y` at each of [`PIXELS`] and `history texture T X,Y` at each
/// of [`TEXELS`], one frame each (frame 2 onwards), against the model.
#[test]
fn history_equals_the_model() {
    require_workspace();
    let (texture, fbo) = names(&native(1).stdout);
    let mut script = String::from(TO_FRAME_2);
    let mut cmds = Vec::new();
    for &(x, y, _) in PIXELS {
        cmds.push((format!("history {x},{y}"), window(x, y)));
    }
    for &(x, y, _) in TEXELS {
        cmds.push((
            format!("history texture {texture} {x},{y}"),
            (Target::Rtt, x, y),
        ));
    }
    for (cmd, _) in &cmds {
        script += &format!("{cmd}\nstep\n");
    }
    script += "continue\n";
    let frames = cmds.len() as u32 + 2;
    let dir = TempDir::new("history-model");
    let out = Session::new(egl_history(), &script)
        .args(["--frames", &frames.to_string()])
        .keep_going()
        .run(&dir);
    let mut rep = Report::new(&out);
    let image = format!("texture {texture} level 0");
    for (n, (cmd, watch)) in cmds.iter().enumerate() {
        let r = rep.ok(cmd, 0);
        if r.is_null() {
            continue;
        }
        let e = Expect {
            end: "swap",
            watch: *watch,
            image: if watch.0 == Target::Window {
                "window"
            } else {
                &image
            },
            frame: n as u64 + 2,
            fbo,
        };
        check_history(&mut rep, &r, &history(*watch), &e);
    }
    let end = rep.ok("continue", 1);
    rep.check(
        end["state"] == "exited" && end["exited"]["code"] == 0,
        || format!("the app ends normally after the histories: {end}"),
    );
    rep.finish();
}

/// `history X,Y until draw N` ends after draw N of the frame (the app
/// stopped there, the draw executed) with the model's entries up to it; a
/// `history` from there lists the rest of the frame; the frames stay native.
#[test]
fn history_until_a_draw() {
    require_workspace();
    let (_, fbo) = names(&native(1).stdout);
    let natives = hashes(&native(3).stdout);
    let script =
        format!("{TO_FRAME_2}history 46,45 until draw 4\ninfo call\nhistory 46,45\ncontinue\n");
    let dir = TempDir::new("history-until");
    let out = Session::new(egl_history(), &script)
        .args(["--frames", "3"])
        .keep_going()
        .run(&dir);
    let mut rep = Report::new(&out);
    let all = history(window(46, 45));
    let upto = all
        .iter()
        .position(|e| e.draw == Some(4))
        .expect("the model's draw 4")
        + 1;
    let e = Expect {
        end: "draw 4",
        watch: window(46, 45),
        image: "window",
        frame: 2,
        fbo,
    };
    let first = rep.ok("history 46,45 until draw 4", 0);
    check_history(&mut rep, &first, &all[..upto], &e);
    let at = rep.ok("info call", 0);
    rep.check(
        at["function"] == "glDrawArrays" && at["stopped"]["draw"].as_u64().is_some(),
        || format!("stopped at draw 4 after the history: {at}"),
    );
    let rest = rep.ok("history 46,45", 0);
    let e = Expect { end: "swap", ..e };
    check_history(&mut rep, &rest, &all[upto..], &e);
    let end = rep.ok("continue", 1);
    rep.check(end["state"] == "exited", || format!("the app ends: {end}"));
    rep.check(hashes(&out.stdout) == natives, || {
        format!("frames native: {:?} vs {natives:?}", hashes(&out.stdout))
    });
    rep.finish();
}

/// `info sources` at the composite's fragment (after `debug history K`):
/// the one read of the render target, its unit, the texture the app made,
/// its size, the coordinate and the texel under it, as the model has them.
#[test]
fn info_sources_names_the_texel_the_composite_read() {
    require_workspace();
    let (texture, _) = names(&native(1).stdout);
    let mut script = String::from(TO_FRAME_2);
    for (x, y) in [(17, 48), (3, 34)] {
        script += &format!(
            "history {x},{y}\ndebug history 2\ninfo sources\nend\nbreak frame\ncontinue\ndelete\nstep\n"
        );
    }
    script += "delete\ncontinue\n";
    let dir = TempDir::new("history-sources");
    let out = Session::new(egl_history(), &script)
        .args(["--frames", "8"])
        .keep_going()
        .run(&dir);
    let mut rep = Report::new(&out);
    for (n, (x, y)) in [(17u32, 48u32), (3, 34)].into_iter().enumerate() {
        let r = rep.ok("info sources", n);
        let s = &r["sources"];
        // The composite maps window (x, y) to texel (x, y - 32).
        let (tx, ty) = (f64::from(x), f64::from(y - 32));
        let want = [(tx + 0.5) / 32.0, (ty + 0.5) / 32.0];
        rep.check(
            s.as_array().map(Vec::len) == Some(1)
                && s[0]["function"] == "texture"
                && s[0]["unit"] == 0
                && s[0]["texture"] == texture
                && s[0]["size"] == serde_json::json!([32, 32])
                && s[0]["texel"] == serde_json::json!([x, y - 32])
                && near(&s[0]["coord"], &want),
            || format!("info sources at {x},{y}: texel {tx},{ty} of texture {texture}: {r}"),
        );
    }
    rep.finish();
}

/// `debug history K` for a draw entry: a shader stop at the same draw of
/// the next frame, focused on the pixel: the focused invocation's locals
/// (traced), gl_FragCoord and the fragment's depth and input at the pixel
/// (its draw's, not another's), and for the composite the texel it
/// samples, as the model has them.
#[test]
fn debug_history_lands_on_the_fragment() {
    require_workspace();
    // D1 at (38,40): entry 2 is draw 4 (line 14 is `frag = c;`). The
    // composite at (9,40): entry 2 is draw 3 (line 12 samples at uv).
    let script = format!(
        "{TO_FRAME_2}history 38,40\ninfo call\ndebug history 2\nbreak 14\ncontinue\ninfo locals\n\
         print gl_FragCoord.xy @ 38,40\nprint gl_FragCoord.z @ 38,40\nprint v_color @ 38,40\n\
         end\ninfo call\ndelete\nbreak frame\ncontinue\ndelete\nstep\nhistory 9,40\n\
         debug history 2\nbreak 12\ncontinue\ninfo locals\nnext\ninfo locals\nend\ninfo call\n\
         delete\ncontinue\n"
    );
    let dir = TempDir::new("history-debug");
    let out = Session::new(egl_history(), &script)
        .args(["--frames", "6"])
        .keep_going()
        .run(&dir);
    let mut rep = Report::new(&out);

    // D1: the draw of frame 3 whose number is the history entry's.
    let swap1 = rep.ok("continue", 0)["stopped"]["call"]
        .as_u64()
        .unwrap_or(0);
    let h = rep.ok("history 38,40", 0);
    let entry = &h["history"][1];
    rep.check(
        entry["draw"] == 4 && entry["function"] == "glDrawArrays",
        || format!("history 38,40: entry 2 is draw 4: {h}"),
    );
    let swap2 = rep.ok("info call", 0)["call"].as_u64().unwrap_or(0);
    check_stop(&mut rep, 0, 38, 40);
    let d1 = [250u8, 10, 10, 255].map(|b| f64::from(float8(b)));
    check_local(&mut rep, 0, "c", &d1);
    let z = f64::from(window_depth(-0.5));
    for (cmd, want) in [
        ("print gl_FragCoord.xy @ 38,40", vec![38.5, 40.5]),
        ("print gl_FragCoord.z @ 38,40", vec![z]),
        ("print v_color @ 38,40", d1.to_vec()),
    ] {
        let r = rep.ok(cmd, 0);
        rep.check(near(&r["value"], &want), || {
            format!("{cmd}: {r}, CPU model {want:?}")
        });
    }
    let call = rep.ok("info call", 1);
    let same_draw = entry["call"].as_u64().map(|c| c + (swap2 - swap1));
    rep.check(
        call["function"] == "glDrawArrays"
            && call["frame"] == 3
            && call["call"].as_u64() == same_draw,
        || format!("after `end`: draw 4 of frame 3 (call {same_draw:?}): {call}"),
    );

    // The composite: uv, then the texel of R1 it samples.
    let h = rep.ok("history 9,40", 0);
    rep.check(h["history"][1]["draw"] == 3, || {
        format!("history 9,40: entry 2 is draw 3: {h}")
    });
    check_stop(&mut rep, 1, 9, 40);
    let uv = [
        (9.5 - f64::from(scene::COMPOSITE[0])) / 32.0,
        (40.5 - f64::from(scene::COMPOSITE[1])) / 32.0,
    ];
    check_local(&mut rep, 1, "uv", &uv);
    let f = &history(window(9, 40))[1].fragments[0];
    let texel: Vec<f64> = f.output.unwrap().iter().map(|&c| f64::from(c)).collect();
    check_local(&mut rep, 2, "c", &texel);
    let call = rep.ok("info call", 2);
    rep.check(
        call["frame"] == 5 && call["function"] == "glDrawArrays",
        || format!("the composite's stop is draw 3 of frame 5: {call}"),
    );
    let end = rep.ok("continue", 4);
    rep.check(end["state"] == "exited", || format!("the app ends: {end}"));
    rep.finish();
}

/// The `n`-th `debug history 2` is a shader stop focused on (x, y).
fn check_stop(rep: &mut Report, n: usize, x: u32, y: u32) {
    let stop = rep.ok("debug history 2", n);
    rep.check(stop["line"].is_u64(), || {
        format!("debug history 2 (#{n}): a shader stop (with \"line\"): {stop}")
    });
    rep.check(stop["focus"]["x"] == x && stop["focus"]["y"] == y, || {
        format!("debug history 2 (#{n}): focused on {x},{y}: {stop}")
    });
}

/// Local `name` of the `n`-th `info locals` (the focused invocation's) is `want`.
fn check_local(rep: &mut Report, n: usize, name: &str, want: &[f64]) {
    let r = rep.ok("info locals", n);
    let got = r["locals"]
        .as_array()
        .and_then(|l| l.iter().find(|v| v["name"] == name))
        .map(|v| v["value"].clone())
        .unwrap_or(Value::Null);
    rep.check(near(&got, want), || {
        format!("info locals (#{n}): {name} = {got}, CPU model {want:?}: {r}")
    });
}

/// A JSON array of numbers equal to `want` within 1e-6.
fn near(got: &Value, want: &[f64]) -> bool {
    got.as_array().is_some_and(|v| {
        v.len() == want.len()
            && v.iter()
                .zip(want)
                .all(|(g, w)| g.as_f64().is_some_and(|g| (g - w).abs() <= 1e-6))
    })
}

/// Frames with a history taken (frames 2 and 3) and after it hash as the
/// native run's.
#[test]
fn frames_are_identical_with_history() {
    require_workspace();
    let (texture, _) = names(&native(1).stdout);
    let native = hashes(&native(5).stdout);
    assert_eq!(native.len(), 5);
    let tex = format!("history texture {texture} 15,14");
    let script = format!("{TO_FRAME_2}history 46,45\nstep\n{tex}\ncontinue\n");
    let dir = TempDir::new("history-frames");
    let out = Session::new(egl_history(), &script)
        .args(["--frames", "5"])
        .run(&dir);
    out.ok("history 46,45");
    out.ok(&tex);
    assert_exited_0(&out, "continue", 1);
    assert_eq!(hashes(&out.stdout), native, "{}", out.transcript());
}

/// A pixel outside the window or the texture, a texture that does not
/// exist, a level it lacks, a history after the exit: clear errors; the app
/// runs on unharmed (a history after them is the model's, the frames are
/// native).
#[test]
fn history_bad_input() {
    require_workspace();
    let (texture, fbo) = names(&native(1).stdout);
    let native = hashes(&native(3).stdout);
    let bad = [
        ("history 64,10".to_string(), "64"),
        ("history 10,64".to_string(), "64"),
        ("history -1,3".to_string(), "-1"),
        ("history texture 999 1,1".to_string(), "999"),
        (format!("history texture {texture} 32,0"), "32"),
        (format!("history texture {texture} 1,1 level 3"), "level"),
    ];
    let mut script = String::from(TO_FRAME_2);
    for (cmd, _) in &bad {
        script += &format!("{cmd}\n");
    }
    script += "history 60,60\ncontinue\nhistory 1,1\n";
    let dir = TempDir::new("history-bad");
    let out = Session::new(egl_history(), &script)
        .args(["--frames", "3"])
        .keep_going()
        .run(&dir);
    let mut rep = Report::new(&out);
    for (cmd, word) in &bad {
        let err = rep.failed(cmd, 0);
        rep.check(err.contains(word), || {
            format!("{cmd}: the error should name {word:?}: {err:?}")
        });
    }
    // Still at frame 2's first call: the history is the whole frame's.
    let r = rep.ok("history 60,60", 0);
    if !r.is_null() {
        let e = Expect {
            end: "swap",
            watch: window(60, 60),
            image: "window",
            frame: 2,
            fbo,
        };
        check_history(&mut rep, &r, &history(window(60, 60)), &e);
    }
    let end = rep.ok("continue", 1);
    rep.check(
        end["state"] == "exited" && end["exited"]["code"] == 0,
        || format!("the app ends normally: {end}"),
    );
    let err = rep.failed("history 1,1", 0);
    rep.check(err.contains("exited"), || {
        format!("history after the exit: the error should say the app exited: {err:?}")
    });
    rep.check(hashes(&out.stdout) == native, || {
        format!("frames {:?}, native {native:?}", hashes(&out.stdout))
    });
    rep.finish();
}
