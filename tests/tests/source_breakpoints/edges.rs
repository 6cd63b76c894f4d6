//! Source breakpoints' edge cases (part of the `source_breakpoints` test):
//! egl_srcbp (a fixed-function draw, a library before `#line 1` whose
//! driver lines collide with the file's, an inactive `#ifdef` line, a
//! condition that resolves in one of two programs) and egl_pp's
//! `#include` (never a silent miss).

use super::support::*;
use super::*;

/// egl_srcbp's file (the app puts a library before `#line 1`: its lines
/// 4..8 are the driver's lines 4..8 too).
const MAIN_FRAG: &str = "uniform int u_mode;
out vec4 color;

void main() {
    float v = gl_FragCoord.x;
    if (u_mode == 1) {
        v = v * 2.0;
    } else {
        v = lib(v);
    }
#ifdef NOPE
    v = v + 100.0;
#endif
    color = vec4(v, gl_FragCoord.y, 0.0, 1.0);
}
";

fn egl_srcbp() -> PathBuf {
    build_c_app("egl_srcbp.c", "egl_srcbp", &["EGL", "OpenGL"], &[])
}

#[test]
fn fixed_function_draws_colliding_lines_and_inactive_regions() {
    require_workspace();
    let dir = TempDir::new("source-edges");
    let app = egl_srcbp();
    std::fs::write(dir.join("main.frag"), MAIN_FRAG).unwrap();
    let file = dir.join("main.frag").display().to_string();
    // Line 12 is in an inactive #ifdef region; line 7 runs only where
    // u_mode is 1 (draw 3), while the library's driver line 7 runs at
    // draw 2; draw 1 has no program.
    let script = format!(
        "break {file}:12\nbreak {file}:7\ncontinue\ninfo locals\ninfo breakpoints\nend\ncontinue\n\
         end\ncontinue\n"
    );
    let out = Session::new(app.clone(), &script)
        .args([dir.path().display().to_string()])
        .run(&dir);
    let t = out.transcript();
    let stop = out.ok_n("continue", 0);
    assert_eq!(
        (stop["stopped"]["draw"].clone(), stop["breakpoint"].clone()),
        (3.into(), 2.into()),
        "{t}"
    );
    let sh = &stop["shader"];
    assert_eq!(
        (
            sh["line"].clone(),
            sh["file_line"].clone(),
            sh["text"].clone()
        ),
        (7.into(), 7.into(), "v = v * 2.0;".into()),
        "{t}"
    );
    // Pixel (0, 0): v is gl_FragCoord.x, 0.5, before the line runs.
    assert_eq!(sh["focus"], serde_json::json!({"x": 0, "y": 0}), "{t}");
    let l = out.ok("info locals");
    assert_eq!(local(l, "v"), vec![0.5], "{l}");
    let info = out.ok("info breakpoints");
    let inactive = &info["breakpoints"][0];
    assert_eq!(inactive["source"]["verified"], false, "{info}");
    assert!(
        inactive["source"]["message"]
            .as_str()
            .unwrap()
            .contains("no shader step on line 12"),
        "{info}"
    );
    assert_eq!(inactive["hits"], 0, "{info}");
    // Program 2 (draw 4) holds the file too.
    assert_eq!(out.ok_n("continue", 1)["stopped"]["draw"], 4, "{t}");
    assert_eq!(out.ok_n("continue", 2)["state"], "exited", "{t}");
    let native = run_native(&app, &[dir.path().to_str().unwrap()], &[]).stdout;
    let hash = |s: &str| {
        s.lines()
            .find(|l| l.starts_with("egl_srcbp: hash"))
            .unwrap_or_else(|| panic!("no hash in {s:?}"))
            .to_string()
    };
    assert_eq!(hash(&out.stdout), hash(&native), "{t}");
}

#[test]
fn a_condition_that_resolves_in_one_program_only_skips_the_others() {
    require_workspace();
    let dir = TempDir::new("source-skip");
    let app = egl_srcbp();
    std::fs::write(dir.join("main.frag"), MAIN_FRAG).unwrap();
    let file = dir.join("main.frag").display().to_string();
    // `g_only2` exists only in program 2 (draw 4): draw 3 (program 1)
    // cannot evaluate the condition and is skipped with a warning; the
    // breakpoint is not failed for good and stops at draw 4.
    let script = format!("break {file}:7 if v > g_only2\ncontinue\ninfo locals\n");
    let out = Session::new(app, &script)
        .args([dir.path().display().to_string()])
        .run(&dir);
    let t = out.transcript();
    let stop = out.ok("continue");
    assert_eq!(
        (stop["stopped"]["draw"].clone(), stop["breakpoint"].clone()),
        (4.into(), 1.into()),
        "{t}"
    );
    // v = gl_FragCoord.x > g_only2 = 1: pixel (1, 0) first, v = 1.5.
    assert_eq!(
        stop["shader"]["focus"],
        serde_json::json!({"x": 1, "y": 0}),
        "{t}"
    );
    let l = out.ok("info locals");
    assert_eq!(local(l, "v"), vec![1.5], "{l}");
    let warnings: Vec<String> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "warning")
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.contains("source breakpoint 1: not checked at draw"))
            .count(),
        1,
        "{warnings:?}"
    );
}

#[test]
fn a_file_with_an_include_says_it_is_not_checked() {
    require_workspace();
    let dir = TempDir::new("source-include");
    // egl_pp --include: the user's file after `#line 1` holds an
    // `#include`; the debugged source has the named string spliced in, so
    // the file is not whole lines of it: a warning says so (once), never
    // a silent miss.
    let fs = c_string_constant(
        include_str!("../../apps/egl_pp.c"),
        "egl_pp.c",
        "PP_FS_INCLUDE",
    );
    // (c_string_constant leaves `\"` as it is.)
    let fs = fs.replace("\\\"", "\"");
    let body = fs.split_once("#line 1\n").expect("the #line").1;
    let file = dir.join("inc.frag");
    std::fs::write(&file, body).unwrap();
    let app = build_c_app("egl_pp.c", "egl_pp", &["EGL", "OpenGL"], &[]);
    let script = format!("break {}:4\ncontinue\ninfo breakpoints\n", file.display());
    let out = Session::new(app, &script).args(["--include"]).run(&dir);
    let t = out.transcript();
    assert_eq!(out.ok("continue")["state"], "exited", "{t}");
    let warnings: Vec<String> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "warning")
        .map(|e| e.to_string())
        .collect();
    assert_eq!(
        warnings
            .iter()
            .filter(|w| w.contains("source breakpoint 1: ") && w.contains("not checked there"))
            .count(),
        1,
        "{warnings:?} {t}"
    );
}
