//! `debug tess-control`, `debug tess-eval` and `debug geometry` end to end on
//! `tests/apps/egl_stages.c` (one patch through tessellation and a
//! geometry shader). Values at every output vertex are checked against the
//! shaders' formulas, evaluated on the CPU from other values printed at the
//! same vertex (the tessellator's vertex order is the driver's):
//! * tess-control: one patch of 3 output vertices: `gl_InvocationID` is
//!   the vertex, `gl_in[gl_InvocationID].gl_Position` the vertex shader's
//!   position of that vertex, `u_level` the app's uniform;
//! * tess-eval: `w` after the loop is c.x + 2 c.y + 3 c.z of `gl_TessCoord`,
//!   and inside the loop, iteration k, the partial sum;
//! * geometry: the N-th emitted vertex belongs to primitive N / 3, and `s`
//!   is `te_value[0] * 2 + gl_PrimitiveIDIn` at iteration 0.
//!
//! The app's frame checksum after the session equals a native run's.

use gldbg_tests::stages::{GS_VALUE, TES_VALUE, TES_W_ADD};
use gldbg_tests::*;
use serde_json::Value;

const TOL: f64 = 1e-4;

fn checksum_line(stdout: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("egl_stages: "))
        .unwrap_or_else(|| panic!("no egl_stages line in:\n{stdout}"));
    line.split(", ").take(2).collect::<Vec<_>>().join(", ")
}

/// The number of output vertices: the reached count of a summary `print`.
fn output_vertices(out: &Output, cmd: &str) -> u64 {
    let s = &out.ok(cmd)["summary"];
    let n = s["count"].as_u64().unwrap_or_else(|| panic!("{s}"));
    assert_eq!(s["total"], n, "every output vertex reaches the step: {s}");
    assert!(n >= 6 && n.is_multiple_of(3), "whole triangles: {s}");
    n
}

#[test]
fn tess_eval_and_geometry_values_follow_their_formulas() {
    require_workspace();
    let want = checksum_line(&run_native(&egl_stages(), &[], &[]).stdout);
    // The vertex count is known only from the driver: ask for a generous
    // range and check the ones that exist.
    const MAX: u64 = 64;
    let dir = TempDir::new("stages");
    let mut script =
        format!("break draw\ncontinue\ndebug tess-eval\nbreak {TES_W_ADD}\ncontinue\n");
    for n in 0..MAX {
        script += &format!(
            "print w @ vertex {n}\nprint gl_TessCoord @ vertex {n}\nprint k @ vertex {n}\n"
        );
    }
    script += &format!("delete\nbreak {TES_VALUE}\ncontinue\nprint w\n");
    for n in 0..MAX {
        script += &format!("print w @ vertex {n}\nprint gl_TessCoord @ vertex {n}\n");
    }
    script += &format!("end\ndebug geometry\nbreak {GS_VALUE}\ncontinue\nprint s\n");
    for n in 0..MAX {
        script += &format!(
            "print s @ vertex {n}\nprint te_value[0] @ vertex {n}\nprint gl_PrimitiveIDIn @ vertex {n}\n"
        );
    }
    script += "end\ndelete\ncontinue\n";
    let out = Session::new(egl_stages(), &script).keep_going().run(&dir);

    // tess-eval, in the loop: iteration 0, w is still 0 everywhere.
    let at_loop = out.ok_n("continue", 1);
    assert_eq!(at_loop["stage"], "tess-eval", "{at_loop}");
    assert_eq!(at_loop["line"], TES_W_ADD, "{at_loop}");
    assert_eq!(at_loop["iterations"], serde_json::json!([0]), "{at_loop}");
    // tess-eval at `te_value = w;`.
    let tes_vertices = output_vertices(&out, "print w");
    let value = |cmd: &str, n: usize| -> Vec<f64> { values(out.ok_n(cmd, n)) };
    for v in 0..MAX {
        let (w_cmd, c_cmd) = (
            format!("print w @ vertex {v}"),
            format!("print gl_TessCoord @ vertex {v}"),
        );
        if v >= tes_vertices {
            let err = out.failed(&w_cmd);
            assert!(err.contains("not among"), "{err}");
            continue;
        }
        assert_close(value(&w_cmd, 0)[0], 0.0, TOL, "w before the loop body");
        assert_eq!(scalar(out.ok(&format!("print k @ vertex {v}"))), 0.0);
        let c = value(&c_cmd, 1);
        assert_eq!(c.len(), 3, "{c:?}");
        assert_close(
            value(&w_cmd, 1)[0],
            c[0] + 2.0 * c[1] + 3.0 * c[2],
            TOL,
            &w_cmd,
        );
    }

    // geometry at `g_value = s;`, iteration 0.
    let at_gs = out.ok_n("continue", 3);
    assert_eq!(at_gs["stage"], "geometry", "{at_gs}");
    assert_eq!(at_gs["iterations"], serde_json::json!([0]), "{at_gs}");
    let gs_vertices = output_vertices(&out, "print s");
    assert_eq!(
        gs_vertices, tes_vertices,
        "the GS emits each triangle again"
    );
    for v in 0..gs_vertices {
        let s = scalar(out.ok(&format!("print s @ vertex {v}")));
        let te = scalar(out.ok(&format!("print te_value[0] @ vertex {v}")));
        let prim: &Value = out.ok(&format!("print gl_PrimitiveIDIn @ vertex {v}"));
        assert_eq!(prim["type"], "int", "{prim}");
        assert_eq!(
            scalar(prim),
            (v / 3) as f64,
            "vertex {v} is emitted by primitive {}",
            v / 3
        );
        assert_close(
            s,
            te * 2.0 + (v / 3) as f64,
            TOL,
            &format!("s at vertex {v}"),
        );
    }

    let end = out.ok_n("continue", 4);
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(checksum_line(&out.stdout), want, "{}", out.transcript());
}

/// egl_stages' vertex shader: the position of vertex `i` of the patch.
fn vertex_position(i: u32) -> [f64; 4] {
    [
        ((i % 2) as f32 * 1.8 - 0.9) as f64,
        ((i / 2) as f32 * 1.8 - 0.9) as f64,
        0.0,
        1.0,
    ]
}

#[test]
fn tess_control_values_per_output_vertex() {
    require_workspace();
    let dir = TempDir::new("stages-tcs");
    let mut script = String::from("break draw\ncontinue\ndebug tess-control\n");
    for n in 0..3 {
        script += &format!(
            "print gl_InvocationID @ vertex {n}\nprint gl_PrimitiveID @ vertex {n}\n\
             print gl_in[gl_InvocationID].gl_Position @ vertex {n}\n"
        );
    }
    script += "print gl_out[gl_InvocationID].gl_Position @ vertex 0\n";
    script += "print u_level\nprint u_level @ vertex 3\nstep\nend\nkill\n";
    let out = Session::new(egl_stages(), &script).keep_going().run(&dir);
    let first = out.ok("debug tess-control");
    assert_eq!(first["stage"], "tess-control", "{first}");
    assert_eq!(first["line"], 5, "{first}");
    assert_eq!(
        first["reached"], 3,
        "one patch, three output vertices: {first}"
    );
    for n in 0..3u32 {
        let id = out.ok(&format!("print gl_InvocationID @ vertex {n}"));
        assert_eq!(id["type"], "int", "{id}");
        assert_eq!(scalar(id), n as f64, "{id}");
        assert_eq!(
            scalar(out.ok(&format!("print gl_PrimitiveID @ vertex {n}"))),
            0.0
        );
        let pos = values(out.ok(&format!(
            "print gl_in[gl_InvocationID].gl_Position @ vertex {n}"
        )));
        for (got, want) in pos.iter().zip(vertex_position(n)) {
            assert_close(*got, want, 1e-6, &format!("position of vertex {n}"));
        }
    }
    // Other invocations write `gl_out` too: gldbg cannot tell whether it
    // was written, says so, and claims neither.
    let r = out.ok("print gl_out[gl_InvocationID].gl_Position @ vertex 0");
    assert_eq!(r["written_unknown"], serde_json::json!(["gl_out"]), "{r}");
    assert!(r.get("undefined").is_none(), "{r}");
    let level = &out.ok("print u_level")["summary"];
    assert_eq!(level["count"], 3, "{level}");
    assert_eq!(level["min"][0], 3.0, "{level}");
    let err = out.failed("print u_level @ vertex 3");
    assert!(err.contains("not among the 3 vertices"), "{err}");
    assert_eq!(out.ok("step")["line"], 6);
}

/// `print EXPR @ primitive N` (geometry): the vertices input primitive N
/// emitted, in order, each with the value it carried when emitted. At
/// `EmitVertex()` in iteration i, the emissions before i have not reached
/// the step; the others carry `s = te_value[i] * 2 + N`.
#[test]
fn geometry_values_per_input_primitive() {
    require_workspace();
    const MAX: u32 = 40;
    let dir = TempDir::new("stages-primitive");
    let mut script = String::from("break draw\ncontinue\ndebug geometry\nbreak 11\ncontinue\n");
    for iteration in 0..2 {
        for n in 0..MAX {
            script += &format!(
                "print s @ primitive {n}\nprint te_value[{iteration}] @ primitive {n}\n\
                 print gl_PrimitiveIDIn @ primitive {n}\n"
            );
        }
        script += "continue\n";
    }
    script +=
        "end\ndebug tess-eval\nprint w @ primitive 0\nfocus primitive 0\nend\ndelete\ncontinue\n";
    let out = Session::new(egl_stages(), &script).keep_going().run(&dir);
    let last = out
        .results()
        .into_iter()
        .rev()
        .find(|r| r["cmd"] == "continue")
        .unwrap();
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());

    let emitted =
        |r: &Value| -> Vec<Value> { r["emitted"].as_array().cloned().unwrap_or_default() };
    for iteration in 0..2usize {
        let mut primitives = 0;
        for n in 0..MAX {
            let cmd = format!("print s @ primitive {n}");
            let r = out.result_n(&cmd, iteration);
            if r["ok"] == false {
                assert!(
                    r["error"].as_str().unwrap().contains("emitted no vertex"),
                    "{r}"
                );
                continue;
            }
            primitives += 1;
            let s = emitted(r);
            let te = emitted(out.ok_n(&format!("print te_value[{iteration}] @ primitive {n}"), 0));
            let id = emitted(out.ok_n(
                &format!("print gl_PrimitiveIDIn @ primitive {n}"),
                iteration,
            ));
            assert_eq!(s.len(), 3, "a triangle per input primitive: {r}");
            for (k, ((s, te), id)) in s.iter().zip(&te).zip(&id).enumerate() {
                assert_eq!(s["emit"], k, "{r}");
                assert_eq!(s["invocation"], 0, "{r}");
                if k < iteration {
                    assert_eq!(
                        s["reached"], false,
                        "emission {k} comes before iteration {iteration}: {r}"
                    );
                    continue;
                }
                assert_eq!(values(id), [n as f64], "{r}");
                let want = values(te)[0] * 2.0 + n as f64;
                let got = values(s)[0];
                assert!(
                    (got - want).abs() < TOL,
                    "primitive {n}, emission {k}: s {got} != {want}"
                );
            }
        }
        assert!(
            primitives >= 2,
            "iteration {iteration}: {primitives} primitives"
        );
        assert_eq!(out.result_n("print s @ primitive 0", iteration)["ok"], true);
    }
    let err = out.failed("print w @ primitive 0");
    assert!(err.contains("geometry shader"), "{err}");
    let err = out.failed("focus primitive 0");
    assert!(err.contains("geometry shader"), "{err}");
}

/// `focus primitive N` (geometry): steps follow the invocation of input
/// primitive N. From `EmitVertex()` in iteration 0, a step goes to the
/// loop increment: the emissions after it (1 and 2) carry the step.
#[test]
fn focus_follows_a_geometry_input_primitive() {
    require_workspace();
    let dir = TempDir::new("stages-focus-primitive");
    let script = format!(
        "break draw\ncontinue\ndebug geometry\nbreak {EMIT}\ncontinue\nfocus primitive 999\n\
         focus primitive 1\nstep\nprint gl_PrimitiveIDIn @ primitive 1\nfocus off\nend\n\
         delete\ncontinue\n"
    );
    let out = Session::new(egl_stages(), &script).keep_going().run(&dir);
    assert!(
        out.failed("focus primitive 999")
            .contains("emitted no vertex")
    );
    let focus = out.ok("focus primitive 1");
    assert_eq!(
        focus["focus"],
        serde_json::json!({"primitive": 1}),
        "{focus}"
    );
    let step = out.ok("step");
    assert_eq!(step["focus_reached"], true, "{step}");
    assert_eq!(step["iterations"], serde_json::json!([0]), "{step}");
    let id = out.ok("print gl_PrimitiveIDIn @ primitive 1");
    let reached: Vec<bool> = id["emitted"]
        .as_array()
        .unwrap_or_else(|| panic!("{id}"))
        .iter()
        .map(|e| e["reached"] == true)
        .collect();
    assert_eq!(reached, [false, true, true], "{id}");
}

/// GS `EmitVertex();` (in the loop).
const EMIT: u32 = 11;
