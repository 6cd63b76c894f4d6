//! Issue 11, points 2 and 8, end to end on Mesa (`tests/apps/egl_pp.c`):
//! an output named through a macro of the active `#if` branch prints the
//! value the shader computes (the inactive branch names a global nobody
//! writes); after `#line` and an `#include` of a named string
//! (`glNamedStringARB`, `glCompileShaderIncludeARB`) the step lines,
//! `list` and `break LINE` use the driver's numbers, and the included
//! function debugs with its true values.

mod support;
use gldbg_tests::*;
use serde_json::Value;
use support::*;

fn egl_pp() -> std::path::PathBuf {
    build_c_app("egl_pp.c", "egl_pp", &["EGL", "OpenGL"], &[])
}

/// CPU reference of both shaders before `COLOR.z += 0.5` at pixel (x, y).
fn colour(x: u32, y: u32) -> [f64; 4] {
    let (px, py) = (x as f64 + 0.5, y as f64 + 0.5);
    [px / 64.0, py / 48.0, 0.25, 1.0]
}

#[track_caller]
fn assert_colour(result: &Value, want: [f64; 4], what: &str) {
    let got = values(result);
    assert_eq!(got.len(), 4, "{what}: {result}");
    for (g, w) in got.iter().zip(want) {
        assert_close(*g, w, 1e-6, what);
    }
}

#[test]
fn output_named_by_a_macro_of_the_active_branch_prints_its_value() {
    require_workspace();
    let dir = TempDir::new("pp-macro-out");
    let mut script = String::from("break draw\ncontinue\ndebug fragment\nbreak 12\ncontinue\n");
    for (x, y) in [(20, 10), (3, 40), (63, 0)] {
        script += &format!("print COLOR @ {x},{y}\nprint frag @ {x},{y}\n");
    }
    script += "end\ndelete\ncontinue\n";
    let out = Session::new(egl_pp(), &script)
        .args(["--macro-out"])
        .run(&dir);
    let stop = out.ok_n("continue", 1);
    assert_eq!(stop["line"], 12, "`COLOR.z += 0.5;`: {stop}");
    for (x, y) in [(20, 10), (3, 40), (63, 0)] {
        let want = colour(x, y);
        assert_colour(out.ok(&format!("print COLOR @ {x},{y}")), want, "COLOR");
        assert_colour(out.ok(&format!("print frag @ {x},{y}")), want, "frag");
    }
    assert_eq!(
        out.ok_n("continue", 2)["state"],
        "exited",
        "{}",
        out.transcript()
    );
}

#[test]
fn line_and_include_number_lines_as_the_driver_does() {
    require_workspace();
    let dir = TempDir::new("pp-include");
    // Driver lines: `#line 1` restarts after the 2-line header; the
    // included string is lines 3-7 (`vec4 c` 5, `return c;` 6), main 9-12.
    // The vertex shader `#include`s too: the fragment steps link it with
    // its string spliced in; its own steps see the included input.
    let script = "break draw\ncontinue\ninfo program\ndebug fragment\nlist\n\
                  break 6\ncontinue\nprint c @ 20,10\n\
                  break 11\ncontinue\nprint COLOR @ 20,10\nlist 5\n\
                  end\ndebug vertex\nprint a_pos @ vertex 2\nend\ndelete\ncontinue\n";
    let out = Session::new(egl_pp(), script).args(["--include"]).run(&dir);
    // The program's source is the app's, `#include` and all.
    let program = out.ok("info program");
    let fragment = stage_source(program, "fragment");
    assert!(fragment.contains("#include \"shade.glsl\""), "{fragment}");
    // The first step: `COLOR = shade(...)`, the driver's line 10.
    let first = out.ok("debug fragment");
    assert_eq!(first["line"], 10, "{first}");
    assert_eq!(first["function"], "main", "{first}");
    let listing = out.ok("list");
    let lines = listing["lines"]
        .as_array()
        .unwrap_or_else(|| panic!("{listing}"));
    let current: Vec<&Value> = lines.iter().filter(|l| l["current"] == true).collect();
    assert_eq!(current.len(), 1, "{listing}");
    assert_eq!(current[0]["line"], 10, "{listing}");
    assert_eq!(
        current[0]["text"], "    COLOR = shade(gl_FragCoord.xy);",
        "{listing}"
    );
    // `break 6`: `return c;` in the included string.
    assert_eq!(out.ok("break 6")["line"], 6, "{}", out.transcript());
    let at = out.ok_n("continue", 1);
    assert_eq!(
        (at["line"].as_u64(), at["function"].as_str()),
        (Some(6), Some("shade")),
        "{at}"
    );
    assert_colour(
        out.ok("print c @ 20,10"),
        colour(20, 10),
        "c in the included shade()",
    );
    let at = out.ok_n("continue", 2);
    assert_eq!(at["line"], 11, "{at}");
    assert_colour(out.ok("print COLOR @ 20,10"), colour(20, 10), "COLOR");
    // `list 5` centres on the included string's line 5 (`vec4 c = ...`).
    let listing = out.ok("list 5");
    let five = listing["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == 5)
        .unwrap_or_else(|| panic!("{listing}"));
    assert!(
        five["text"].as_str().unwrap().contains("vec4 c = vec4("),
        "{listing}"
    );
    assert_eq!(
        out.ok_n("continue", 3)["state"],
        "exited",
        "{}",
        out.transcript()
    );
}

/// `gldbg instrument --list-steps` numbers steps as the driver does too.
#[test]
fn instrument_lists_steps_at_the_drivers_lines() {
    require_workspace();
    let dir = TempDir::new("pp-instrument");
    let file = dir.join("header.frag");
    std::fs::write(
        &file,
        "#version 330 core\nuniform float u;\n#line 1\nout vec4 c;\nvoid main() {\n    c = vec4(u);\n}\n",
    )
    .unwrap();
    let out = std::process::Command::new(gldbg())
        .args(["instrument", "--list-steps", "--json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let steps: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(steps[0]["line"], 3, "{steps}");
    assert_eq!(steps[0]["text"], "c = vec4(u);", "{steps}");
}
