//! Must show 1: the EGL surfaceless app (GL 3.3 core, every GL function through
//! eglGetProcAddress). A scripted session (`--batch --json -x`) stops at its
//! draw, runs to a line of the user function `shade()`, and prints locals at
//! several pixels; the values equal those of the same formula on the CPU.

use gldbg_tests::*;

/// Pixels (window coordinates, origin bottom-left) inside the quad.
const PIXELS: &[(u32, u32)] = &[(16, 12), (20, 20), (40, 30), (50, 13), (55, 35), (33, 24)];

/// Tolerance of float values against the CPU reference.
const TOL: f64 = 1e-5;

#[track_caller]
fn check_print(out: &Output, cmd: &str, n: usize, want: &[f64], ty: &str) {
    let r = out.ok_n(cmd, n);
    assert_eq!(r["type"], ty, "{cmd}: {r}");
    assert_eq!(
        r["reached"], true,
        "{cmd}: the pixel should reach this step: {r}"
    );
    let got = values(r);
    assert_eq!(got.len(), want.len(), "{cmd}: {r}");
    for (g, w) in got.iter().zip(want) {
        if ty.starts_with("int") || ty.starts_with("ivec") {
            assert_eq!(*g, *w, "{cmd} (#{n}): int values are exact: {r}");
        } else {
            assert_close(*g, *w, TOL, &format!("{cmd} (#{n})"));
        }
    }
}

#[test]
fn locals_after_the_loop_match_the_cpu() {
    require_workspace();
    let dir = TempDir::new("egl-values");
    let mut script =
        String::from("break draw\ncontinue\ninfo call\ninfo program\ndebug fragment\n");
    script += &format!("break {}\ncontinue\n", lines::RETURN);
    for &(x, y) in PIXELS {
        script += &format!("print v @ {x},{y}\nprint acc @ {x},{y}\nprint p @ {x},{y}\n");
    }
    // Pixels the quad does not cover: no fragment there reaches anything.
    script += "print v @ 0,0\nprint v @ 56,36\n";
    let out = Session::new(egl_shade(), &script).run(&dir);

    // Stopped at the draw call of frame 0.
    let stop = out.ok_n("continue", 0);
    assert_eq!(stop["state"], "stopped", "{stop}");
    assert_eq!(stop["stopped"]["function"], "glDrawArrays", "{stop}");
    assert_eq!(stop["stopped"]["draw"], 1, "{stop}");
    let call = out.ok("info call");
    assert_eq!(call["function"], "glDrawArrays");
    let mode = &call["args"][0];
    assert_eq!(mode["value"], "GL_TRIANGLES", "{call}");

    // The program's shaders, as the app gave them to glShaderSource.
    let program = out.ok("info program");
    let shaders = program["shaders"]
        .as_array()
        .unwrap_or_else(|| panic!("{program}"));
    let fragment = shaders
        .iter()
        .find(|s| s["stage"] == "fragment")
        .unwrap_or_else(|| panic!("no fragment shader: {program}"));
    assert_eq!(
        fragment["source"],
        shader_source("SHADE_FS").as_str(),
        "{fragment}"
    );
    let vertex = shaders.iter().find(|s| s["stage"] == "vertex").unwrap();
    assert_eq!(
        vertex["source"],
        shader_source("SHADE_VS").as_str(),
        "{vertex}"
    );
    let uniforms = program["uniforms"].as_array().unwrap();
    assert!(
        uniforms
            .iter()
            .any(|u| u["name"] == "u_gain" && u["type"] == "float"),
        "{program}"
    );
    // Its current value, read from the driver: frame 0's gain (shade_common.h).
    let u_gain = uniforms.iter().find(|u| u["name"] == "u_gain").unwrap();
    assert_eq!(u_gain["value"], 0.01f32.to_string().as_str(), "{u_gain}");

    // `debug fragment` stops at the first step of main.
    let first = out.ok("debug fragment");
    assert_eq!(first["stage"], "fragment", "{first}");
    assert_eq!(first["function"], "main", "{first}");
    assert_eq!(
        first["line"], 18,
        "first step is `vec2 p = gl_FragCoord.xy;`: {first}"
    );
    assert_eq!(first["reached"], COVERED, "{first}");

    // `continue` runs to the shader breakpoint at `return v;` in shade().
    out.ok(&format!("break {}", lines::RETURN));
    let at = out.ok_n("continue", 1);
    assert_eq!(at["line"], lines::RETURN, "{at}");
    assert_eq!(at["function"], "shade", "{at}");
    assert_eq!(at["finished"], false, "{at}");
    assert_eq!(at["reached"], COVERED, "every fragment calls shade(): {at}");
    assert!(at["column"].as_u64().unwrap_or(0) >= 1, "{at}");

    let gain = gain(0);
    for &(x, y) in PIXELS {
        let s = shade(x, y, gain);
        check_print(
            &out,
            &format!("print v @ {x},{y}"),
            0,
            &[s.v as f64],
            "float",
        );
        check_print(
            &out,
            &format!("print acc @ {x},{y}"),
            0,
            &[s.acc as f64],
            "float",
        );
        check_print(
            &out,
            &format!("print p @ {x},{y}"),
            0,
            &[s.p[0] as f64, s.p[1] as f64],
            "vec2",
        );
        let r = out.ok(&format!("print v @ {x},{y}"));
        assert_eq!(r["invocation"], serde_json::json!({"x": x, "y": y}), "{r}");
    }
    for cmd in ["print v @ 0,0", "print v @ 56,36"] {
        let r = out.ok(cmd);
        assert_eq!(r["reached"], false, "uncovered pixel: {r}");
    }
}

#[test]
fn loop_locals_per_iteration_match_the_cpu() {
    require_workspace();
    let dir = TempDir::new("egl-loop");
    // Iterations 0..3 of the if branch; pixel (50,13) takes it in every one.
    let pixels_per_iteration: [&[(u32, u32)]; 4] = [
        &[(16, 12), (20, 20), (50, 13)],
        &[(20, 20), (40, 30), (50, 13)],
        &[(40, 30), (50, 13), (33, 24)],
        &[(50, 13), (55, 35)],
    ];
    let mut script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {}\n",
        lines::ACC_ADD
    );
    for pixels in pixels_per_iteration {
        script += "continue\n";
        for &(x, y) in pixels {
            script += &format!("print i @ {x},{y}\nprint acc @ {x},{y}\nprint t @ {x},{y}\n");
        }
        // A pixel that takes the else branch in iterations 2 and 3.
        script += "print acc @ 20,20\n";
        script += "print i\n";
    }
    script += "continue\n";
    let out = Session::new(egl_shade(), &script).run(&dir);

    let gain = gain(0);
    let mut seen: std::collections::HashMap<String, usize> = Default::default();
    let mut next = |cmd: &str| {
        let n = seen.entry(cmd.to_string()).or_insert(0);
        *n += 1;
        *n - 1
    };
    next("continue"); // the GL-level continue to the draw
    for (iteration, pixels) in pixels_per_iteration.iter().enumerate() {
        let n = next("continue");
        let stop = out.ok_n("continue", n);
        assert_eq!(
            stop["line"],
            lines::ACC_ADD,
            "iteration {iteration}: {stop}"
        );
        assert_eq!(stop["function"], "shade", "{stop}");
        assert_eq!(
            stop["iterations"],
            serde_json::json!([iteration]),
            "the stop names the loop iteration: {stop}"
        );
        // Fragments that reach the if branch in this iteration: x + 0.5 > 16 * i.
        let want_reached = (16..56)
            .filter(|&x| x as f32 + 0.5 > 16.0 * iteration as f32)
            .count()
            * 24;
        assert_eq!(
            stop["reached"], want_reached,
            "iteration {iteration}: {stop}"
        );

        for &(x, y) in pixels.iter() {
            let s = shade(x, y, gain);
            assert!(s.takes_if[iteration]);
            let cmd_i = format!("print i @ {x},{y}");
            let cmd_acc = format!("print acc @ {x},{y}");
            let cmd_t = format!("print t @ {x},{y}");
            check_print(&out, &cmd_i, next(&cmd_i), &[iteration as f64], "int");
            check_print(
                &out,
                &cmd_acc,
                next(&cmd_acc),
                &[s.acc_at[iteration] as f64],
                "float",
            );
            check_print(
                &out,
                &cmd_t,
                next(&cmd_t),
                &[s.t[iteration] as f64],
                "float",
            );
        }
        let cmd = "print acc @ 20,20";
        let r = out.ok_n(cmd, next(cmd));
        if iteration < 2 {
            assert_eq!(r["reached"], true, "{r}");
            assert_close(
                scalar(r),
                shade(20, 20, gain).acc_at[iteration] as f64,
                TOL,
                cmd,
            );
        } else {
            assert_eq!(
                r["reached"], false,
                "(20,20) takes the else branch in iteration {iteration}: {r}"
            );
            assert!(
                r.get("value").is_none() || r["value"].as_array().is_some_and(|a| a.is_empty()),
                "{r}"
            );
        }
        // Summary of the loop counter: every reaching fragment has i == iteration.
        let r = out.ok_n("print i", next("print i"));
        let sum = &r["summary"];
        assert_eq!(sum["count"], want_reached, "{r}");
        assert_eq!(sum["min"], serde_json::json!([iteration]), "{r}");
        assert_eq!(sum["max"], serde_json::json!([iteration]), "{r}");
    }
    // No more stops on the line: the shader runs to its end.
    let last = out.ok_n("continue", next("continue"));
    assert_eq!(last["finished"], true, "{last}");
}

#[test]
fn break_at_the_nth_draw_sees_that_frames_uniform() {
    require_workspace();
    let dir = TempDir::new("egl-nth");
    let script = format!(
        "break draw 2\ncontinue\ninfo breakpoints\ndebug fragment\nbreak {}\ncontinue\nprint v @ 40,30\nprint acc @ 55,35\n",
        lines::RETURN
    );
    let out = Session::new(egl_shade(), &script)
        .args(["--frames", "3"])
        .run(&dir);
    let stop = out.ok("continue");
    assert_eq!(stop["stopped"]["function"], "glDrawArrays", "{stop}");
    assert_eq!(stop["stopped"]["draw"], 2, "{stop}");
    // u_gain of frame 1 is 0.015.
    check_print(
        &out,
        "print v @ 40,30",
        0,
        &[shade(40, 30, gain(1)).v as f64],
        "float",
    );
    check_print(
        &out,
        "print acc @ 55,35",
        0,
        &[shade(55, 35, gain(1)).acc as f64],
        "float",
    );
}
