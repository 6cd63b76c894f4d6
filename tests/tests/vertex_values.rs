//! `debug vertex` on the EGL app: values per vertex come from the driver
//! (the draw replayed as points into transform feedback) and equal the
//! app's own vertex data, read from `shade_common.h`'s `SHADE_QUAD`; the
//! frame after the vertex debug steps is bit-identical to a native run.

use gldbg_tests::*;

/// The quad's vertices as the app uploads them (`SHADE_QUAD` in
/// shade_common.h), in draw order.
fn quad() -> Vec<[f64; 2]> {
    let start = SHADE_COMMON_H
        .find("SHADE_QUAD[12] = {")
        .expect("SHADE_QUAD in shade_common.h");
    let body = &SHADE_COMMON_H[start..];
    let body = &body[body.find('{').unwrap() + 1..body.find("};").unwrap()];
    let floats: Vec<f64> = body
        .split(',')
        .map(|t| t.trim().trim_end_matches('f'))
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap_or_else(|_| panic!("not a float: {t:?}")))
        .collect();
    assert_eq!(floats.len(), 12, "{body}");
    floats.chunks(2).map(|c| [c[0], c[1]]).collect()
}

#[test]
fn vertex_values_equal_the_apps_vertex_data() {
    require_workspace();
    let dir = TempDir::new("vertex-values");
    let native = dir.join("native.raw");
    run_native(
        &egl_shade(),
        &["--frames", "2", "--out", native.to_str().unwrap()],
        &[],
    );
    let quad = quad();
    let frame = dir.join("debug.raw");
    let mut script = String::from("break draw\ncontinue\ndebug vertex\n");
    for n in 0..quad.len() {
        script +=
            &format!("print a_pos @ vertex {n}\nprint vec4(a_pos * 2.0, 0.0, 1.0) @ vertex {n}\n");
    }
    script += "print a_pos\nprint a_pos @ vertex 6\nprint a_pos @ 3,3\nend\ndelete\ncontinue\n";
    let out = Session::new(egl_shade(), &script)
        .args(["--frames", "2", "--out", frame.to_str().unwrap()])
        .keep_going()
        .run(&dir);

    let first = out.ok("debug vertex");
    assert_eq!(first["stage"], "vertex", "{first}");
    assert_eq!(first["line"], 4, "gl_Position = ...: {first}");
    assert_eq!(first["reached"], 6, "both triangles' vertices: {first}");
    for (n, v) in quad.iter().enumerate() {
        let r = out.ok(&format!("print a_pos @ vertex {n}"));
        assert_eq!(r["type"], "vec2", "{r}");
        assert_eq!(r["invocation"]["vertex"], n, "{r}");
        assert_eq!(values(r), v.to_vec(), "a_pos of vertex {n}: {r}");
        let r = out.ok(&format!("print vec4(a_pos * 2.0, 0.0, 1.0) @ vertex {n}"));
        assert_eq!(r["type"], "vec4", "{r}");
        assert_eq!(values(r), vec![v[0] * 2.0, v[1] * 2.0, 0.0, 1.0], "{r}");
    }
    let summary = out.ok("print a_pos");
    assert_eq!(summary["summary"]["count"], 6, "{summary}");
    let min_x = quad.iter().map(|v| v[0]).fold(f64::INFINITY, f64::min);
    let max_y = quad.iter().map(|v| v[1]).fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(summary["summary"]["min"][0], min_x, "{summary}");
    assert_eq!(summary["summary"]["max"][1], max_y, "{summary}");
    // ... and a table of the vertices' values.
    let table = summary["table"]
        .as_array()
        .unwrap_or_else(|| panic!("{summary}"));
    assert_eq!(table.len(), quad.len(), "{summary}");
    for (n, (row, v)) in table.iter().zip(&quad).enumerate() {
        assert_eq!(row["vertex"], n, "{row}");
        assert_eq!(values(row), v.to_vec(), "{row}");
    }
    let err = out.failed("print a_pos @ vertex 6");
    assert!(
        err.contains("vertex 6 is not in the draw (6 vertices)"),
        "{err}"
    );
    let err = out.failed("print a_pos @ 3,3");
    assert!(err.contains("@ vertex N"), "{err}");

    // The app never noticed: same frame as without gldbg, clean exit.
    let last = out.ok_n("continue", 1);
    assert_eq!(last["state"], "exited", "{last}");
    assert_eq!(read_frame(&native), read_frame(&frame), "frames differ");
}

/// A GL 3.3 context (what NVIDIA's driver gives an app that asks for 3.3;
/// Mesa's version override makes it so here) has transform feedback
/// objects only through GL_ARB_transform_feedback2: `debug vertex` works.
#[test]
fn vertex_debugging_in_a_gl_3_3_context() {
    require_workspace();
    let dir = TempDir::new("vertex-gl33");
    let quad = quad();
    let out = Session::new(
        egl_shade(),
        "break draw\ncontinue\ninfo state GL_MAJOR_VERSION\ndebug vertex\nprint a_pos @ vertex 2\nend\nkill\n",
    )
    .env("MESA_GL_VERSION_OVERRIDE", "3.3")
    .run(&dir);
    let state = out.ok("info state GL_MAJOR_VERSION");
    assert_eq!(state["state"]["GL_MAJOR_VERSION"][0], 3.0, "{state}");
    out.ok("debug vertex");
    assert_eq!(values(out.ok("print a_pos @ vertex 2")), quad[2].to_vec());
}
