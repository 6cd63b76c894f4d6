//! `debug tess-control`, `debug tess-eval` and `debug geometry` end to end on
//! `tests/apps/egl_stages.c` (one patch through tessellation and a
//! geometry shader). Values are checked against a CPU model of the patch
//! (`gldbg_tests::tess`, from the app's numbers):
//! * tess-control: one patch of 3 output vertices: `gl_InvocationID` is
//!   the vertex, `gl_in[gl_InvocationID].gl_Position` the vertex shader's
//!   position of that vertex, `u_level` the app's uniform;
//! * tess-eval: each output vertex's `gl_TessCoord` is a point of the CPU
//!   tessellation (triangles, equal_spacing, the app's level), every point
//!   is used, the triangles are as many as a triangulation of those points
//!   has, all counter-clockwise (as declared) and covering the domain once;
//!   `w` (in the loop and after it) and the position are the shader's
//!   formulas at that point. Which point each vertex is (the order) is the
//!   driver's: the model fixes everything else;
//! * geometry: emitted vertex N is emission N % 3 of input primitive N / 3
//!   (the tessellator's triangle N / 3): `gl_PrimitiveIDIn`, its inputs
//!   `te_value[0]` and `gl_in[N % 3].gl_Position` and `s` are the model's.
//!
//! The app's frame checksum after the session equals a native run's.

use gldbg_tests::stages::{GS_VALUE, TES_VALUE, TES_W_ADD};
use gldbg_tests::tess::{self, Coord};
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
    n
}

/// The point of the CPU tessellation a printed `gl_TessCoord` is.
#[track_caller]
fn model_point(points: &[Coord], got: &[f64], what: &str) -> Coord {
    assert_eq!(got.len(), 3, "{what}: {got:?}");
    *points
        .iter()
        .find(|p| (0..3).all(|i| (p[i] - got[i]).abs() < TOL))
        .unwrap_or_else(|| panic!("{what}: {got:?} is no point of the tessellation {points:?}"))
}

#[track_caller]
fn assert_vec_close(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert_close(*g, *w, TOL, what);
    }
}

/// The tessellator's triangles (3 points each, in output order) cover the
/// domain once, counter-clockwise, using every point of the model.
fn check_triangulation(points: &[Coord], tes: &[Coord]) {
    let mut area = 0.0;
    for (t, tri) in tes.chunks(3).enumerate() {
        let a = tess::ccw_area(tri[0], tri[1], tri[2]);
        assert!(
            a > 1e-6,
            "triangle {t} {tri:?} is not counter-clockwise (ccw): area {a}"
        );
        area += a;
    }
    assert_close(area, tess::DOMAIN_AREA, 1e-9, "the triangles' area");
    for p in points {
        assert!(
            tes.contains(p),
            "point {p:?} of the tessellation is in no triangle"
        );
    }
}

const POSITION: &str =
    "c.x * gl_in[0].gl_Position + c.y * gl_in[1].gl_Position + c.z * gl_in[2].gl_Position";

fn stages_script(vertices: u32) -> String {
    // One vertex more than the model has: gldbg must say it is not there.
    let max = vertices + 1;
    let mut script =
        format!("break draw\ncontinue\ndebug tess-eval\nbreak {TES_W_ADD}\ncontinue\n");
    for n in 0..max {
        script += &format!(
            "print w @ vertex {n}\nprint gl_TessCoord @ vertex {n}\nprint k @ vertex {n}\n"
        );
    }
    script += &format!("delete\nbreak {TES_VALUE}\ncontinue\nprint w\n");
    for n in 0..max {
        script += &format!(
            "print w @ vertex {n}\nprint gl_TessCoord @ vertex {n}\nprint {POSITION} @ vertex {n}\n"
        );
    }
    script += &format!("end\ndebug geometry\nbreak {GS_VALUE}\ncontinue\nprint s\n");
    for n in 0..vertices {
        script += &format!(
            "print s @ vertex {n}\nprint te_value[0] @ vertex {n}\n\
             print gl_PrimitiveIDIn @ vertex {n}\nprint gl_in[{}].gl_Position @ vertex {n}\n",
            n % 3
        );
    }
    script + "end\ndelete\ncontinue\n"
}

#[test]
fn tess_eval_and_geometry_values_follow_the_cpu_model() {
    require_workspace();
    let want = checksum_line(&run_native(&egl_stages(), &[], &[]).stdout);
    let n = tess::segments();
    let points = tess::coords(n);
    let vertices = 3 * tess::triangles(n) as u32;
    let dir = TempDir::new("stages");
    let out = Session::new(egl_stages(), &stages_script(vertices))
        .keep_going()
        .run(&dir);

    // tess-eval, in the loop: iteration 0, w is still 0 everywhere.
    let at_loop = out.ok_n("continue", 1);
    assert_eq!(at_loop["stage"], "tess-eval", "{at_loop}");
    assert_eq!(at_loop["line"], TES_W_ADD, "{at_loop}");
    assert_eq!(at_loop["iterations"], serde_json::json!([0]), "{at_loop}");
    // tess-eval at `te_value = w;`.
    assert_eq!(
        output_vertices(&out, "print w"),
        vertices as u64,
        "3 vertices for each of the model's {} triangles",
        vertices / 3
    );
    let value = |cmd: &str, n: usize| -> Vec<f64> { values(out.ok_n(cmd, n)) };
    let mut tes: Vec<Coord> = Vec::new();
    for v in 0..vertices {
        let (w_cmd, c_cmd) = (
            format!("print w @ vertex {v}"),
            format!("print gl_TessCoord @ vertex {v}"),
        );
        let c = model_point(&points, &value(&c_cmd, 0), &c_cmd);
        let again = model_point(&points, &value(&c_cmd, 1), &c_cmd);
        assert_eq!(c, again, "{c_cmd}: the same vertex at both lines");
        assert_close(
            value(&w_cmd, 0)[0],
            tess::te_partial(c, 0),
            TOL,
            "w before the loop body",
        );
        assert_eq!(scalar(out.ok(&format!("print k @ vertex {v}"))), 0.0);
        assert_close(value(&w_cmd, 1)[0], tess::te_value(c), TOL, &w_cmd);
        let pos = format!("print {POSITION} @ vertex {v}");
        assert_vec_close(&values(out.ok(&pos)), &tess::te_position(c), &pos);
        tes.push(c);
    }
    let err = out.failed(&format!("print w @ vertex {vertices}"));
    assert!(err.contains("not among"), "{err}");
    check_triangulation(&points, &tes);

    // geometry at `g_value = s;`, iteration 0.
    let at_gs = out.ok_n("continue", 3);
    assert_eq!(at_gs["stage"], "geometry", "{at_gs}");
    assert_eq!(at_gs["iterations"], serde_json::json!([0]), "{at_gs}");
    assert_eq!(
        output_vertices(&out, "print s"),
        vertices as u64,
        "the GS emits each triangle again"
    );
    for v in 0..vertices {
        let (primitive, emission) = tess::gs_vertex(v);
        let tri: [Coord; 3] = std::array::from_fn(|i| tes[3 * primitive as usize + i]);
        let prim: &Value = out.ok(&format!("print gl_PrimitiveIDIn @ vertex {v}"));
        assert_eq!(prim["type"], "int", "{prim}");
        assert_eq!(scalar(prim), primitive as f64, "vertex {v}: {prim}");
        let te = scalar(out.ok(&format!("print te_value[0] @ vertex {v}")));
        assert_close(
            te,
            tess::te_value(tri[0]),
            TOL,
            &format!("te_value[0] at vertex {v}"),
        );
        let s = scalar(out.ok(&format!("print s @ vertex {v}")));
        assert_close(
            s,
            tess::gs_s(tri, primitive, 0),
            TOL,
            &format!("s at vertex {v}"),
        );
        let pos = format!("print gl_in[{emission}].gl_Position @ vertex {v}");
        assert_vec_close(
            &values(out.ok(&pos)),
            &tess::te_position(tri[emission as usize]),
            &pos,
        );
    }

    let end = out.ok_n("continue", 4);
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(checksum_line(&out.stdout), want, "{}", out.transcript());
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
        for (got, want) in pos.iter().zip(tess::patch_vertex(n)) {
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
    assert_eq!(level["min"][0], tess::level() as f64, "{level}");
    let err = out.failed("print u_level @ vertex 3");
    assert!(err.contains("not among the 3 vertices"), "{err}");
    assert_eq!(out.ok("step")["line"], 6);
}

/// `print EXPR @ primitive N` (geometry): the vertices input primitive N
/// emitted, in order, each with the value it carried when emitted. At
/// `EmitVertex()` in iteration i, the emissions before i have not reached
/// the step; the others carry `s = te_value[i] * 2 + N`, with `te_value[i]`
/// the CPU model's at vertex i of the tessellator's triangle N (its
/// `gl_TessCoord`, printed first, is a point of the model's tessellation).
#[test]
fn geometry_values_per_input_primitive() {
    require_workspace();
    let n = tess::segments();
    let points = tess::coords(n);
    let triangles = tess::triangles(n) as u32;
    // A few primitives more than the model has: gldbg must say they emitted nothing.
    let max = triangles + 3;
    let dir = TempDir::new("stages-primitive");
    let mut script = String::from("break draw\ncontinue\ndebug tess-eval\n");
    for v in 0..3 * triangles {
        script += &format!("print gl_TessCoord @ vertex {v}\n");
    }
    script += "end\ndebug geometry\nbreak 11\ncontinue\n";
    for iteration in 0..2 {
        for n in 0..max {
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
    let tes: Vec<Coord> = (0..3 * triangles)
        .map(|v| {
            let cmd = format!("print gl_TessCoord @ vertex {v}");
            model_point(&points, &values(out.ok(&cmd)), &cmd)
        })
        .collect();

    let emitted =
        |r: &Value| -> Vec<Value> { r["emitted"].as_array().cloned().unwrap_or_default() };
    for iteration in 0..2usize {
        for n in 0..max {
            let cmd = format!("print s @ primitive {n}");
            let r = out.result_n(&cmd, iteration);
            if n >= triangles {
                assert_eq!(r["ok"], false, "primitive {n} of {triangles}: {r}");
                assert!(
                    r["error"].as_str().unwrap().contains("emitted no vertex"),
                    "{r}"
                );
                continue;
            }
            let tri: [Coord; 3] = std::array::from_fn(|i| tes[3 * n as usize + i]);
            let want = tess::gs_s(tri, n, iteration);
            let s = emitted(r);
            let te = emitted(out.ok_n(&format!("print te_value[{iteration}] @ primitive {n}"), 0));
            let id = emitted(out.ok_n(
                &format!("print gl_PrimitiveIDIn @ primitive {n}"),
                iteration,
            ));
            assert_eq!(s.len(), 3, "a triangle per input primitive: {r}");
            assert_eq!((te.len(), id.len()), (3, 3), "{r}");
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
                let te_want = tess::te_value(tri[iteration]);
                assert_close(
                    values(te)[0],
                    te_want,
                    TOL,
                    &format!("te_value[{iteration}] of {n}"),
                );
                let got = values(s)[0];
                assert!(
                    (got - want).abs() < TOL,
                    "primitive {n}, emission {k}: s {got} != {want} (CPU model)"
                );
            }
        }
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
