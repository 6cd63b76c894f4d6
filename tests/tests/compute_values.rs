//! `debug compute` end to end on `tests/apps/egl_compute.c` (EGL
//! surfaceless, GL 4.3 core, libOpenGL): a session stops at the dispatch,
//! steps the compute shader to a line inside a loop and to `return`, and
//! prints locals at invocations named by `gl_GlobalInvocationID`; the values
//! equal the CPU reference of the same formula, and the shader's own writes
//! (`visits[idx] += 1`, an atomic counter, `imageAtomicAdd`) are as in a run
//! without gldbg: the replays wrote them again and the step put them back.

use gldbg_tests::compute::{self, EXTENT, INVOCATIONS};
use gldbg_tests::*;

/// Invocations (global ids) checked; their linear indices cover every
/// remainder modulo 7, which decides the branch in each iteration.
const AT: &[[u32; 3]] = &[
    [0, 0, 0],
    [3, 1, 0],
    [6, 0, 0],
    [20, 5, 0],
    [12, 2, 1],
    [9, 3, 1],
    [31, 7, 1],
    [1, 0, 0],
    [2, 0, 0],
];

const TOL: f64 = 1e-5;

fn at(g: [u32; 3]) -> String {
    format!("@ invocation {},{},{}", g[0], g[1], g[2])
}

/// The app's result line: `egl_compute: N frames, checksum C, visits V, hits H, texels T, ...`.
/// The session's last `continue` ran the app to a clean exit (a session
/// with commands expected to fail runs without `--batch`: `keep_going`).
#[track_caller]
fn assert_exited_0(out: &Output, continues: usize) {
    let r = out.ok_n("continue", continues - 1);
    assert_eq!(r["state"], "exited", "{r}\n{}", out.transcript());
    assert_eq!(r["exited"]["code"], 0, "{r}");
}

fn result_line(stdout: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("egl_compute: "))
        .unwrap_or_else(|| panic!("no egl_compute line in:\n{stdout}"));
    // Everything up to the renderer.
    line.split(", ").take(5).collect::<Vec<_>>().join(", ")
}

#[test]
fn compute_locals_match_the_cpu_and_the_app_buffers_are_untouched() {
    require_workspace();
    let native = run_native(&egl_compute(), &[], &[]);
    let want = result_line(&native.stdout);
    for what in ["visits", "hits", "texels"] {
        assert!(
            want.contains(&format!("{what} {}", 2 * INVOCATIONS)),
            "native: {want}"
        );
    }

    let dir = TempDir::new("compute");
    let mut script = String::from("break glDispatchCompute\ncontinue\ninfo call\ndebug compute\n");
    script += &format!("break {}\n", compute::ACC_ADD);
    for _ in 0..4 {
        script += "continue\n";
        for &g in AT {
            script += &format!("print acc {}\nprint k {}\n", at(g), at(g));
        }
    }
    script += &format!("delete\nbreak {}\ncontinue\n", compute::RETURN);
    for &g in AT {
        script += &format!("print acc {}\nprint i {}\n", at(g), at(g));
    }
    script += "print acc\nprint acc @ invocation 32,0,0\nprint acc @ 1,2\nend\ndelete\ncontinue\n";
    let out = Session::new(egl_compute(), &script).keep_going().run(&dir);
    assert_exited_0(&out, 7);

    let stop = out.ok_n("continue", 0);
    assert_eq!(stop["stopped"]["function"], "glDispatchCompute", "{stop}");
    let call = out.ok("info call");
    assert_eq!(call["args"][0]["value"], "4", "{call}");
    let first = out.ok("debug compute");
    assert_eq!(first["stage"], "compute", "{first}");
    assert_eq!(first["function"], "main", "{first}");
    assert_eq!(first["reached"], INVOCATIONS, "{first}");

    // Iterations 0..3 of the loop, stopped in the if branch.
    for k in 0..4u32 {
        let stop = out.ok_n("continue", 1 + k as usize);
        assert_eq!(stop["line"], compute::ACC_ADD, "iteration {k}: {stop}");
        assert_eq!(stop["function"], "shade", "{stop}");
        assert_eq!(stop["iterations"], serde_json::json!([k]), "{stop}");
        let reached = (0..INVOCATIONS)
            .filter(|&i| compute::takes_if(i, k))
            .count();
        assert_eq!(stop["reached"], reached, "iteration {k}: {stop}");
        for &g in AT {
            let i = compute::index(g);
            let acc = out.ok_n(&format!("print acc {}", at(g)), k as usize);
            let kv = out.ok_n(&format!("print k {}", at(g)), k as usize);
            assert_eq!(
                acc["invocation"],
                serde_json::json!({"x": g[0], "y": g[1], "z": g[2]}),
                "{acc}"
            );
            if compute::takes_if(i, k) {
                assert_eq!(acc["reached"], true, "invocation {i}, iteration {k}: {acc}");
                assert_close(
                    scalar(acc),
                    compute::acc_before(i, k) as f64,
                    TOL,
                    &format!("acc of invocation {i} in iteration {k}"),
                );
                assert_eq!(kv["type"], "int", "{kv}");
                assert_eq!(scalar(kv), k as f64, "{kv}");
            } else {
                assert_eq!(
                    acc["reached"], false,
                    "invocation {i}, iteration {k}: {acc}"
                );
            }
        }
    }

    // `return acc;`: every invocation, the final value.
    let ret = out.ok_n("continue", 5);
    assert_eq!(ret["line"], compute::RETURN, "{ret}");
    assert_eq!(ret["reached"], INVOCATIONS, "{ret}");
    for &g in AT {
        let i = compute::index(g);
        // The fifth `print acc` at g: after the four iterations' prints.
        let acc = out.ok_n(&format!("print acc {}", at(g)), 4);
        assert_close(
            scalar(acc),
            compute::shade(i) as f64,
            TOL,
            &format!("shade({i})"),
        );
        let iv = out.ok(&format!("print i {}", at(g)));
        assert_eq!(iv["type"], "uint", "{iv}");
        assert_eq!(scalar(iv), i as f64, "{iv}");
    }
    let summary = &out.ok("print acc")["summary"];
    let all: Vec<f32> = (0..INVOCATIONS).map(compute::shade).collect();
    assert_eq!(summary["count"], INVOCATIONS, "{summary}");
    assert_close(
        summary["min"][0].as_f64().unwrap(),
        all.iter().copied().fold(f32::MAX, f32::min) as f64,
        TOL,
        "min",
    );
    assert_close(
        summary["max"][0].as_f64().unwrap(),
        all.iter().copied().fold(f32::MIN, f32::max) as f64,
        TOL,
        "max",
    );

    // Clear errors for invocations outside the dispatch and for pixels.
    let outside = out.failed("print acc @ invocation 32,0,0");
    assert!(
        outside.contains("outside the dispatch")
            && outside.contains(&format!("{}x{}x{}", EXTENT[0], EXTENT[1], EXTENT[2])),
        "{outside}"
    );
    let pixel = out.failed("print acc @ 1,2");
    assert!(pixel.contains("@ invocation X,Y,Z"), "{pixel}");

    // The app ran on with its own buffers as without gldbg.
    out.ok("end");
    assert_eq!(result_line(&out.stdout), want, "{}", out.transcript());
}

#[test]
fn indirect_dispatch_is_debugged_and_restored() {
    require_workspace();
    let args = ["--indirect", "--frames", "3"];
    let want = result_line(&run_native(&egl_compute(), &args, &[]).stdout);
    let dir = TempDir::new("compute-indirect");
    let g = [20, 5, 0];
    let script = format!(
        "break glDispatchComputeIndirect\ncontinue\ncontinue\ndebug compute\nbreak {}\ncontinue\n\
         print acc {}\nprint acc\nend\ndebug compute\nprint v {}\nend\ndelete\ncontinue\n",
        compute::RETURN,
        at(g),
        at(g),
    );
    let out = Session::new(egl_compute(), &script)
        .args(args)
        .keep_going()
        .run(&dir);
    assert_exited_0(&out, 4);
    let stop = out.ok_n("continue", 1);
    assert_eq!(
        stop["stopped"]["function"], "glDispatchComputeIndirect",
        "{stop}"
    );
    let acc = out.ok(&format!("print acc {}", at(g)));
    assert_close(
        scalar(acc),
        compute::shade(compute::index(g)) as f64,
        TOL,
        "shade at an indirect dispatch",
    );
    assert_eq!(out.ok("print acc")["summary"]["count"], INVOCATIONS);
    // The first step of main: `v` is declared later, so not in scope yet.
    let err = out.failed(&format!("print v {}", at(g)));
    assert!(err.contains("not in scope"), "{err}");
    assert_eq!(result_line(&out.stdout), want, "{}", out.transcript());
}

#[test]
fn compute_and_draw_stages_are_refused_at_the_wrong_call() {
    require_workspace();
    let dir = TempDir::new("compute-wrong-call");
    let out = Session::new(
        egl_compute(),
        "break glDispatchCompute\ncontinue\ndebug fragment\ncontinue\n",
    )
    .keep_going()
    .run(&dir);
    let err = out.failed("debug fragment");
    assert!(err.contains("not stopped at a draw call"), "{err}");

    let out = Session::new(
        egl_shade(),
        "break draw\ncontinue\ndebug compute\ncontinue\n",
    )
    .keep_going()
    .run(&dir);
    let err = out.failed("debug compute");
    assert!(err.contains("not stopped at a compute dispatch"), "{err}");
}

/// The `--draw` line: `egl_compute draw: fragments F, visits V`.
fn draw_line(stdout: &str) -> String {
    stdout
        .lines()
        .find(|l| l.starts_with("egl_compute draw: "))
        .unwrap_or_else(|| panic!("no draw line in:\n{stdout}"))
        .to_string()
}

/// A fragment step replays the draw: the fragment shader's atomic counter
/// and storage buffer writes must still be those of a run without gldbg.
#[test]
fn fragment_steps_restore_what_the_fragment_shader_writes() {
    require_workspace();
    let args = ["--draw"];
    let native = run_native(&egl_compute(), &args, &[]);
    let (want_draw, want) = (draw_line(&native.stdout), result_line(&native.stdout));
    assert_eq!(want_draw, "egl_compute draw: fragments 512, visits 512");
    let dir = TempDir::new("fragment-writes");
    let script = "break glDrawArrays\ncontinue\ndebug fragment\nstep\nprint p @ 3,5\nprint p\nstep\n\
                  print p @ 15,0\nend\ndelete\ncontinue\n";
    let out = Session::new(egl_compute(), script).args(args).run(&dir);
    assert_exited_0(&out, 2);
    let p = out.ok("print p @ 3,5");
    assert_eq!(p["type"], "ivec2", "{p}");
    assert_eq!(values(p), vec![3.0, 5.0], "{p}");
    assert_eq!(out.ok("print p")["summary"]["count"], 256);
    assert_eq!(values(out.ok("print p @ 15,0")), vec![15.0, 0.0]);
    assert_eq!(draw_line(&out.stdout), want_draw, "{}", out.transcript());
    assert_eq!(result_line(&out.stdout), want, "{}", out.transcript());
}

/// At a draw inside the app's occlusion query, debug steps work and the
/// app's count stays what it is natively: each step splits the query
/// (preload `queries.rs`), so the replays are not counted.
#[test]
fn a_draw_inside_an_occlusion_query_is_debugged_and_counted_once() {
    require_workspace();
    let args = ["--draw", "--query"];
    let want = draw_line(&run_native(&egl_compute(), &args, &[]).stdout);
    assert!(want.ends_with("samples 512"), "{want}");
    let dir = TempDir::new("fragment-query");
    let script = "break glDrawArrays\ncontinue\ndebug fragment\nstep\nprint gl_FragCoord\nend\n\
                  debug vertex\nstep\nend\ndelete\ncontinue\n";
    let out = Session::new(egl_compute(), script).args(args).run(&dir);
    assert_exited_0(&out, 2);
    out.ok("debug fragment");
    out.ok("debug vertex");
    assert!(out.ok("print gl_FragCoord")["summary"]["count"].as_u64() > Some(0));
    assert_eq!(draw_line(&out.stdout), want, "{}", out.transcript());
}
