//! `debug fragment` options and fragment outputs, end to end on
//! `tests/apps/egl_mrt.c` (GL 3.3 compatibility, two colour outputs of
//! which one is `uvec4`, `discard`, `gl_FragDepth`, and the depth, stencil
//! and alpha tests all on at the draw). Each option set gives the number
//! of fragments that reach a step after the `discard`, computed here from
//! the app's geometry; values at chosen pixels equal the shader's formula;
//! and the app's four attachments end bit-identical to a native run.

mod support;

use gldbg_tests::*;
use serde_json::Value;
use support::build_c_app;

fn egl_mrt() -> std::path::PathBuf {
    build_c_app("egl_mrt.c", "egl_mrt", &["EGL", "OpenGL"], &[])
}

/// The app's result line without the renderer.
fn result_line(stdout: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("egl_mrt: "))
        .unwrap_or_else(|| panic!("no egl_mrt line in:\n{stdout}"));
    line.split(", ").take(5).collect::<Vec<_>>().join(", ")
}

/// Which of the quad's window pixels pass each test, as egl_mrt.c draws
/// them (the shader discards y < 8 before the step, so that is not a test).
struct Tests {
    depth: bool,
    stencil: bool,
    alpha: bool,
}

impl Tests {
    fn passes(&self, x: u32, y: u32) -> bool {
        // Occluder at depth 0.25 over x < 32; the shader writes depth 0.1 for x < 16.
        let depth = !self.depth || !(16..32).contains(&x);
        // Stencil 1 over y >= 32, test EQUAL 0.
        let stencil = !self.stencil || y < 32;
        // Alpha 0 for y >= 48, test GREATER 0.5.
        let alpha = !self.alpha || y < 48;
        y >= 8 && depth && stencil && alpha
    }

    fn count(&self) -> u64 {
        (0..64)
            .flat_map(|x| (0..64).map(move |y| (x, y)))
            .filter(|&(x, y)| self.passes(x, y))
            .count() as u64
    }
}

/// (options, which tests still run)
const CASES: &[(&str, Tests)] = &[
    (
        "",
        Tests {
            depth: true,
            stencil: true,
            alpha: true,
        },
    ),
    (
        "depth=clear",
        Tests {
            depth: false,
            stencil: true,
            alpha: true,
        },
    ),
    (
        "depth=off",
        Tests {
            depth: false,
            stencil: true,
            alpha: true,
        },
    ),
    (
        "stencil=clear",
        Tests {
            depth: true,
            stencil: false,
            alpha: true,
        },
    ),
    (
        "depth=off stencil=off",
        Tests {
            depth: false,
            stencil: false,
            alpha: true,
        },
    ),
    (
        "depth=copy stencil=off alpha-test=off",
        Tests {
            depth: true,
            stencil: false,
            alpha: false,
        },
    ),
    (
        "depth=off stencil=off alpha-test=off",
        Tests {
            depth: false,
            stencil: false,
            alpha: false,
        },
    ),
];

/// Pixels printed in every case: passing or failing different tests.
const PIXELS: &[(u32, u32)] = &[(40, 10), (20, 10), (5, 10), (40, 40), (40, 50), (60, 3)];

fn cell(x: u32, y: u32) -> f64 {
    (x + 64 * y) as f64
}

/// A printed value's components as numbers (integers print as integers).
fn numbers(r: &Value) -> Vec<f64> {
    r["value"]
        .as_array()
        .unwrap_or_else(|| panic!("no value: {r}"))
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect()
}

#[test]
fn fragment_options_outputs_and_tests() {
    require_workspace();
    let app = egl_mrt();
    let native = run_native(&app, &[], &[]);

    let mut script = String::from("break draw 3\ncontinue\n");
    for (options, _) in CASES {
        script += &format!("debug fragment {options}\nbreak 9\ncontinue\n");
        for (x, y) in PIXELS {
            script += &format!("print cell @ {x},{y}\nprint color @ {x},{y}\n");
        }
        script += "print cell\nbreak 10\ncontinue\n";
        for (x, y) in PIXELS {
            script += &format!("print id @ {x},{y}\n");
        }
        script += "end\n";
    }
    script += "delete\ncontinue\n";
    let dir = TempDir::new("fragment-options");
    let out = Session::new(&app, &script).run(&dir);

    let last = out.ok_n("continue", 1 + 2 * CASES.len());
    assert_eq!(last["state"], "exited", "{last}\n{}", out.transcript());
    assert_eq!(last["exited"]["code"], 0, "{last}");
    assert_eq!(
        result_line(&out.stdout),
        result_line(&native.stdout),
        "the app's attachments differ from a native run"
    );

    for (k, (options, tests)) in CASES.iter().enumerate() {
        let case = format!("debug fragment {options}");
        let stop = out.ok_n("continue", 1 + 2 * k);
        assert_eq!(stop["line"], 9, "{case}: {stop}");
        assert_eq!(
            stop["reached"],
            tests.count(),
            "{case}: fragments reaching line 9: {stop}"
        );
        let summary = out.ok_n("print cell", k);
        assert_eq!(
            summary["summary"]["count"],
            tests.count(),
            "{case}: {summary}"
        );
        for &(x, y) in PIXELS {
            let at = format!("{case} @ {x},{y}");
            let c = out.ok_n(&format!("print cell @ {x},{y}"), k);
            let color = out.ok_n(&format!("print color @ {x},{y}"), k);
            let id = out.ok_n(&format!("print id @ {x},{y}"), k);
            if !tests.passes(x, y) {
                assert_eq!(c["reached"], false, "{at}: {c}");
                continue;
            }
            assert_eq!(c["type"], "uint", "{at}: {c}");
            assert_eq!(numbers(c), [cell(x, y)], "{at}: {c}");
            let alpha = if y >= 48 { 0.0 } else { 1.0 };
            let want = [x as f64 / 64.0, y as f64 / 64.0, 0.5, alpha];
            assert_eq!(numbers(color), want, "{at}: {color}");
            // The integer output, at the next step (after its assignment).
            assert_eq!(id["type"], "uvec4", "{at}: {id}");
            let want = [cell(x, y), 3.0 * cell(x, y), 7.0, 1.0];
            assert_eq!(numbers(id), want, "{at}: {id}");
        }
    }
}

#[test]
fn unknown_fragment_options_are_refused_and_the_app_goes_on() {
    require_workspace();
    let app = egl_mrt();
    let script = "break draw 3\ncontinue\ndebug fragment blend=off\ndebug vertex depth=off\n\
                  debug fragment depth=sometimes\ndebug fragment depth=off\nend\ndelete\ncontinue\n";
    let dir = TempDir::new("fragment-options-bad");
    let out = Session::new(&app, script).keep_going().run(&dir);
    assert!(
        out.failed("debug fragment blend=off")
            .contains("unknown option")
    );
    assert!(
        out.failed("debug vertex depth=off")
            .contains("debug fragment")
    );
    assert!(
        out.failed("debug fragment depth=sometimes")
            .contains("copy, clear or off")
    );
    out.ok("debug fragment depth=off");
    let last = out.ok_n("continue", 1);
    assert_eq!(last["exited"]["code"], 0, "{last}");
}

/// `egl_mrt --query`: the debugged draw runs inside the app's
/// GL_SAMPLES_PASSED and GL_PRIMITIVES_GENERATED queries. The steps'
/// replays are not counted, the app sees its own query as current, its
/// results (32 and 64 bit) and its conditional rendering are as natively.
#[test]
fn queries_around_a_debugged_draw_keep_their_counts() {
    require_workspace();
    let app = egl_mrt();
    let native = run_native(&app, &["--query"], &[]);
    let queries = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("egl_mrt queries: "))
            .unwrap_or_else(|| panic!("no queries line in:\n{stdout}"))
            .to_string()
    };
    let want = queries(&native.stdout);
    assert!(want.ends_with("current ok"), "{want}");

    // Two sessions at the draw: each step splits the queries again.
    let script = "break draw 3\ncontinue\n\
                  debug fragment\nbreak 9\ncontinue\nprint cell\nprint cell @ 40,10\nend\n\
                  debug vertex\nstep\nstep\nprint gl_Position @ vertex 1\nend\n\
                  debug fragment depth=off\nnext\nprint p\nend\n\
                  delete\ncontinue\n";
    let dir = TempDir::new("fragment-queries");
    let out = Session::new(&app, script).args(["--query"]).run(&dir);
    let last = out.ok_n("continue", 2);
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());
    assert_eq!(out.ok("print cell")["summary"]["count"], 1152);
    assert_eq!(numbers(out.ok("print cell @ 40,10")), [680.0]);
    assert!(out.ok("print gl_Position @ vertex 1")["value"].is_array());
    assert_eq!(queries(&out.stdout), want, "{}", out.transcript());
    assert_eq!(result_line(&out.stdout), result_line(&native.stdout));
}

/// Once stepping has finished, `print` shows the values at the end of
/// `main`: the outputs as the shader leaves them (`gl_FragDepth`, the
/// integer output, `gl_Position`), not those before its last statement.
#[test]
fn values_at_the_end_of_main_after_the_last_step() {
    require_workspace();
    let app = egl_mrt();
    let script = "break draw 3\ncontinue\n\
                  debug fragment depth=off stencil=off\nbreak 10\ncontinue\nnext\nnext\n\
                  print gl_FragDepth @ 5,10\nprint gl_FragDepth @ 40,10\nprint id @ 40,10\n\
                  print color @ 40,10\nprint gl_FragDepth\nend\n\
                  debug vertex\nnext\nnext\nprint gl_Position @ vertex 1\nprint gl_Position\nend\n\
                  delete\ncontinue\n";
    let dir = TempDir::new("end-of-main");
    let out = Session::new(&app, script).run(&dir);
    let last = out.ok_n("continue", 2);
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());
    let finished = out.ok_n("next", 1);
    assert_eq!(finished["finished"], true, "{finished}");
    assert_eq!(numbers(out.ok("print gl_FragDepth @ 5,10")), [0.1]);
    assert_eq!(numbers(out.ok("print gl_FragDepth @ 40,10")), [0.5]);
    assert_eq!(
        numbers(out.ok("print id @ 40,10")),
        [680.0, 2040.0, 7.0, 1.0]
    );
    assert_eq!(
        numbers(out.ok("print color @ 40,10")),
        [0.625, 0.15625, 0.5, 1.0]
    );
    // Every fragment not discarded (y >= 8) and passing the alpha test
    // (y < 48; depth and stencil are off) gets to the end.
    let s = out.ok("print gl_FragDepth");
    assert_eq!(s["summary"]["count"], 64 * 40, "{s}");
    // The quad under test spans the viewport at depth 0.5 (NDC z 0).
    let vertex_done = out.ok_n("next", 3);
    assert_eq!(vertex_done["finished"], true, "{vertex_done}");
    assert_eq!(
        numbers(out.ok("print gl_Position @ vertex 1")),
        [1.0, -1.0, 0.0, 1.0]
    );
    assert_eq!(out.ok("print gl_Position")["summary"]["count"], 4);
}

/// `egl_mrt --pipeline`: the quad under test is drawn with a separable
/// program pipeline (a vertex and a fragment program made by
/// glCreateShaderProgramv). Fragment and vertex steps link the stage
/// programs' sources into one debug program with each program's uniforms:
/// the same values as with the monolithic program, and the same frame.
#[test]
fn separable_program_pipelines_are_debugged() {
    require_workspace();
    let app = egl_mrt();
    let native = run_native(&app, &["--pipeline"], &[]);
    let script = "break draw 3\ncontinue\ninfo program\n\
                  debug fragment\nbreak 9\ncontinue\nprint cell\nprint cell @ 40,10\n\
                  print color @ 40,10\nend\n\
                  debug vertex\nnext\nnext\nprint gl_Position @ vertex 1\nend\n\
                  delete\ncontinue\n";
    let dir = TempDir::new("pipeline");
    let out = Session::new(&app, script).args(["--pipeline"]).run(&dir);
    let last = out.ok_n("continue", 2);
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());
    let info = out.ok("info program");
    let stages: Vec<&str> = info["shaders"]
        .as_array()
        .unwrap_or_else(|| panic!("{info}"))
        .iter()
        .filter_map(|s| s["stage"].as_str())
        .collect();
    assert_eq!(stages, ["vertex", "fragment"], "{info}");
    assert_eq!(out.ok_n("continue", 1)["reached"], 1152);
    assert_eq!(out.ok("print cell")["summary"]["count"], 1152);
    assert_eq!(numbers(out.ok("print cell @ 40,10")), [680.0]);
    assert_eq!(
        numbers(out.ok("print color @ 40,10")),
        [0.625, 0.15625, 0.5, 1.0]
    );
    // u_rect and u_depth come from the pipeline's vertex program.
    assert_eq!(
        numbers(out.ok("print gl_Position @ vertex 1")),
        [1.0, -1.0, 0.0, 1.0]
    );
    assert_eq!(result_line(&out.stdout), result_line(&native.stdout));
}

/// `egl_mrt --immediate --query`: every quad is drawn in immediate mode
/// (`glBegin`, `glVertex2f`/`glVertex2fv`, `glEnd`), the quad under test
/// inside the app's queries. At the `glEnd` stop, fragment and vertex
/// steps replay the sequence (the preload deferred it); the values, the
/// query counts and the frame are as natively.
#[test]
fn immediate_mode_draws_are_debugged() {
    require_workspace();
    let app = egl_mrt();
    let args = ["--immediate", "--query"];
    let native = run_native(&app, &args, &[]);
    let script = "break draw 3\ncontinue\ninfo call\n\
                  debug fragment\nbreak 9\ncontinue\nprint cell\nprint cell @ 40,10\nend\n\
                  debug vertex\nnext\nnext\nprint gl_Position @ vertex 1\nprint gl_Position\nend\n\
                  delete\ncontinue\n";
    let dir = TempDir::new("immediate");
    let out = Session::new(&app, script).args(args).run(&dir);
    let last = out.ok_n("continue", 2);
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());
    assert_eq!(out.ok("info call")["function"], "glEnd");
    assert_eq!(out.ok_n("continue", 1)["reached"], 1152);
    assert_eq!(out.ok("print cell")["summary"]["count"], 1152);
    assert_eq!(numbers(out.ok("print cell @ 40,10")), [680.0]);
    assert_eq!(
        numbers(out.ok("print gl_Position @ vertex 1")),
        [1.0, -1.0, 0.0, 1.0]
    );
    assert_eq!(out.ok("print gl_Position")["summary"]["count"], 4);
    let queries = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("egl_mrt queries: "))
            .map(str::to_string)
    };
    assert_eq!(queries(&out.stdout), queries(&native.stdout));
    assert_eq!(result_line(&out.stdout), result_line(&native.stdout));
}
