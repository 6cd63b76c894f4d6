//! Fragment programs of several shader objects (`tests/apps/egl_multi_fs.c`):
//! the object with `main` is debugged, the others (which write
//! `gl_FragColor` too) are compiled into the debug program with the same
//! renamed outputs, so the printed values include their writes. Values are
//! checked against the shaders' formulas; the app's frame is as natively.

mod support;

use gldbg_tests::*;
use support::build_c_app;

/// The app's result line (`egl_multi_fs: ...`) without the renderer.
fn result_line(stdout: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("egl_multi_fs: "))
        .unwrap_or_else(|| panic!("no egl_multi_fs line in:\n{stdout}"));
    let parts: Vec<&str> = line.split(", ").collect();
    parts[..parts.len() - 1].join(", ")
}

#[test]
fn fragment_shader_objects_writing_gl_fragcolor_debug() {
    require_workspace();
    let app = build_c_app(
        "egl_multi_fs.c",
        "egl_multi_fs",
        &["EGL", "OpenGL", "m"],
        &[],
    );
    let native = run_native(&app, &[], &[]);
    let ((x1, y1), (x2, y2)) = ((10u32, 20u32), (40u32, 50u32));
    let script = format!(
        "break draw 1\ncontinue\ndebug fragment\nbreak 9\ncontinue\nprint gl_FragColor @ {x1},{y1}\nend\ndelete\n\
         break draw 2\ncontinue\ndebug fragment\nbreak 6\ncontinue\nprint gl_FragColor @ {x2},{y2}\nprint p @ {x2},{y2}\nend\ndelete\n\
         continue\n"
    );
    let dir = TempDir::new("multi-fs");
    let out = Session::new(&app, &script).run(&dir);
    support::assert_last_exited_0(&out, "continue");
    assert_eq!(
        result_line(&out.stdout),
        result_line(&native.stdout),
        "the app's frame differs from a native run"
    );
    assert!(out.stdout.contains("colors ok"), "{}", out.stdout);
    // Draw 1 (GLSL 1.30, named debug outputs): at line 9 blue() and alpha()
    // of the other objects have written blue and alpha.
    let (px, py) = (x1 as f64 / 64.0, y1 as f64 / 64.0);
    let stop = out.ok_n("continue", 1);
    assert_eq!(stop["line"], 9, "{stop}");
    assert_eq!(stop["reached"], 32 * 64, "{stop}");
    let got = out.ok(&format!("print gl_FragColor @ {x1},{y1}"));
    assert_eq!(
        values(got),
        vec![px, py, (px + py) * 0.5, px * 0.25],
        "{got}"
    );
    // Draw 2 (GLSL 1.20, gl_FragData outputs): only paint(), in the first
    // attached object, writes gl_FragColor.
    let (px, py) = (x2 as f64 / 64.0, y2 as f64 / 64.0);
    let stop = out.ok_n("continue", 3);
    assert_eq!(stop["line"], 6, "{stop}");
    let got = out.ok(&format!("print gl_FragColor @ {x2},{y2}"));
    assert_eq!(values(got), vec![py, px, 0.5, 1.0], "{got}");
    let got = out.ok(&format!("print p @ {x2},{y2}"));
    assert_eq!(values(got), vec![px, py], "{got}");
}
