//! Real applications under `gldbg run`: apps nobody here wrote (Debian's
//! glxgears, es2gears_x11, glmark2, glmark2-es2, piglit's shader_runner) and test apps
//! reaching GL the ways real apps do (two GL threads with a context each;
//! SDL2 and GLFW with a glad-style loader and a core-profile context).
//!
//! Each app is checked in run mode (it behaves and renders as without gldbg:
//! same results, same frame checksums, exit 0) and stopped (`break draw`,
//! `info call`, `step`, `info program` show its real calls and shaders).
//! Windowed apps run on an Xvfb of their own; nothing assumes a display.
//!
//! Needs `cargo build --workspace` and the Debian packages mesa-utils,
//! glmark2-x11, glmark2-es2-x11, piglit, libsdl2-dev, libglfw3-dev, xvfb. A missing package
//! fails the test with its name (these are the must-show apps).

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;

use gldbg_tests::*;
use support::*;

/// The function name of a stop (`"stopped": {"function": ...}`).
fn stopped_function(result: &Value) -> &str {
    result["stopped"]["function"].as_str().unwrap_or("")
}

// ---------------------------------------------------------------------------
// glxgears (mesa-utils): GLX, linked libGL, fixed function, display lists

/// glxgears draws with glBegin/glEnd from display lists and never exits on
/// its own: the session looks at its first draw and three frames, then
/// the batch ends and gldbg kills it.
#[test]
fn glxgears_calls_frames_and_steps() {
    require_workspace();
    let glxgears = debian("glxgears", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("glxgears");
    let script = "break draw\ncontinue\ninfo call\nstep\ninfo call\ninfo program\n\
                  delete\nbreak glXSwapBuffers\ncontinue\ncontinue\ncontinue\ninfo call\n";
    let out = Session::new(&glxgears, script)
        .env("DISPLAY", x.display())
        .keep_going()
        .run(&dir);

    // Its first draw: glCallList of the first gear's display list. The 18
    // glEnd calls before it only compile the gears' lists (GL_COMPILE):
    // nothing is drawn there, so they are no draws.
    let draw = out.ok_n("continue", 0);
    assert_eq!(draw["stopped"]["draw"], 1, "{draw}");
    assert_eq!(draw["stopped"]["frame"], 1, "{draw}");
    let call = out.ok_n("info call", 0);
    assert_eq!(call["function"], "glCallList", "{call}");
    assert_eq!(
        call["args"][0]["value"], "1",
        "the first gear's list: {call}"
    );
    // `step` executes glCallList and stops at the very next call: glxgears
    // pops the gear's matrix.
    let step = out.ok("step");
    assert_eq!(
        step["stopped"]["call"].as_u64(),
        call["call"].as_u64().map(|n| n + 1),
        "{step}"
    );
    let next = out.ok_n("info call", 1);
    assert_eq!(next["function"], "glPopMatrix", "{next}");
    // Fixed function: no program is current, and gldbg says so and
    // what to do.
    let err = out.failed("info program");
    assert!(err.contains("no program is current"), "{err}");
    assert!(err.contains("fixed-function"), "{err}");
    assert!(err.contains("break shader-switch"), "{err}");

    // Three frames in run mode between the swaps: the same number of GL
    // calls each (glxgears draws the same display lists every frame).
    let swaps: Vec<u64> = (1..4)
        .map(|n| {
            let r = out.ok_n("continue", n);
            assert_eq!(stopped_function(r), "glXSwapBuffers", "{r}");
            r["stopped"]["call"].as_u64().unwrap()
        })
        .collect();
    assert!(swaps[0] < swaps[1] && swaps[1] < swaps[2], "{swaps:?}");
    assert_eq!(
        swaps[1] - swaps[0],
        swaps[2] - swaps[1],
        "calls per frame: {swaps:?}"
    );
    assert_eq!(out.ok_n("info call", 2)["function"], "glXSwapBuffers");
}

// ---------------------------------------------------------------------------
// es2gears_x11 (mesa-utils): GLES 2 through EGL on X11

const ES2GEARS_STOP: &str = "break draw\ncontinue\ninfo call\ninfo program\nstep\ninfo call\n\
                             delete\nbreak eglSwapBuffers\ncontinue\ncontinue\n";

#[test]
fn es2gears_calls_and_shaders() {
    require_workspace();
    let es2gears = debian("es2gears_x11", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("es2gears");
    let out = Session::new(&es2gears, ES2GEARS_STOP)
        .env("DISPLAY", x.display())
        .run(&dir);

    let call = out.ok("info call");
    assert_eq!(call["function"], "glDrawArrays", "{call}");
    assert_eq!(call["args"][0]["value"], "GL_TRIANGLE_STRIP", "{call}");
    // Its real GLSL ES shaders, as the app passed them to glShaderSource.
    let program = out.ok("info program");
    let vs = stage_source(program, "vertex");
    let fs = stage_source(program, "fragment");
    assert!(
        vs.contains("uniform mat4 ModelViewProjectionMatrix;"),
        "{vs}"
    );
    assert!(fs.contains("gl_FragColor = Color;"), "{fs}");
    let uniforms: Vec<&str> = program["uniforms"]
        .as_array()
        .expect("uniforms")
        .iter()
        .filter_map(|u| u["name"].as_str())
        .collect();
    assert!(uniforms.contains(&"MaterialColor"), "{program}");
    // step: the call right after the draw.
    let step = out.ok("step");
    assert_eq!(
        step["stopped"]["call"].as_u64(),
        call["call"].as_u64().map(|n| n + 1),
        "{step}"
    );
    // Runs frame after frame between stops.
    for n in 1..3 {
        assert_eq!(
            stopped_function(out.ok_n("continue", n)),
            "eglSwapBuffers",
            "{}",
            out.transcript()
        );
    }
}

/// `print gl_FragColor @ X,Y` at every pixel of a grid over a `width` x
/// `height` window, as script lines.
fn grid_prints(width: u32, height: u32, step: u32) -> (String, Vec<(u32, u32)>) {
    let mut script = String::new();
    let mut pixels = Vec::new();
    for y in (step / 2..height).step_by(step as usize) {
        for x in (step / 2..width).step_by(step as usize) {
            script += &format!("print gl_FragColor @ {x},{y}\n");
            pixels.push((x, y));
        }
    }
    (script, pixels)
}

/// The values of `print gl_FragColor @ X,Y` at the pixels a draw covers.
fn covered_colors(out: &Output, pixels: &[(u32, u32)]) -> Vec<((u32, u32), Vec<f64>)> {
    pixels
        .iter()
        .filter_map(|&(x, y)| {
            let r = out.ok(&format!("print gl_FragColor @ {x},{y}"));
            (r["reached"] == true).then(|| ((x, y), values(r)))
        })
        .collect()
}

/// `debug fragment` at es2gears' first draw (a GLES context; its shaders
/// have no `#version`: GLSL ES 1.00). Its vertex shader lights the gear:
/// `Color = (0.2 + diffuse) * MaterialColor` (alpha 1), and the first gear
/// is `MaterialColor = (0.8, 0.1, 0, 1)`: every covered pixel's
/// `gl_FragColor` has green = red / 8, no blue, alpha 1.
#[test]
fn es2gears_debug_fragment_values() {
    require_workspace();
    let es2gears = debian("es2gears_x11", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("es2gears-debug");
    let (prints, pixels) = grid_prints(300, 300, 12);
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nprint Color\nstep\nprint gl_FragColor\n{prints}\
         end\ndelete\nbreak eglSwapBuffers\ncontinue\ncontinue\n"
    );
    let out = Session::new(&es2gears, &script)
        .env("DISPLAY", x.display())
        .keep_going()
        .run(&dir);
    let first = out.ok("debug fragment");
    assert_eq!(first["line"], 6, "`gl_FragColor = Color;`: {first}");
    let reached = first["reached"].as_u64().unwrap_or(0);
    assert!(reached > 1000 && reached < 300 * 300, "{first}");
    assert_eq!(out.ok("step")["finished"], true);
    let summary = &out.ok("print gl_FragColor")["summary"];
    assert_eq!(summary["count"].as_u64(), Some(reached), "{summary}");
    let colors = covered_colors(&out, &pixels);
    assert!(
        colors.len() > 10,
        "grid pixels on the gear: {}",
        colors.len()
    );
    for ((x, y), c) in &colors {
        assert!(
            c[0] > 0.1 && c[0] <= 0.8 * 1.2 + 1e-6,
            "red @ {x},{y}: {c:?}"
        );
        assert_close(
            c[1],
            c[0] / 8.0,
            1e-5,
            &format!("green = red / 8 @ {x},{y}"),
        );
        assert_eq!((c[2], c[3]), (0.0, 1.0), "blue, alpha @ {x},{y}: {c:?}");
    }
    // The app goes on drawing frames.
    for n in 1..3 {
        assert_eq!(
            stopped_function(out.ok_n("continue", n)),
            "eglSwapBuffers",
            "{}",
            out.transcript()
        );
    }
}

/// es2gears in a real OpenGL ES 2.0 context (no float render target: the
/// values' bits are packed into RGBA8): the same plausible colours. Its
/// depth test needs `depth=clear` there (ES 2.0 cannot copy the app's
/// depth buffer), and plain `debug fragment` says so.
#[test]
fn es2gears_debug_fragment_in_an_es20_context() {
    require_workspace();
    let es2gears = debian("es2gears_x11", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("es2gears-es20");
    let (prints, pixels) = grid_prints(300, 300, 12);
    let script = format!(
        "break draw\ncontinue\ndebug fragment depth=clear\nstep\n{prints}\
         end\ndelete\nbreak eglSwapBuffers\ncontinue\n"
    );
    let out = Session::new(&es2gears, &script)
        .env("DISPLAY", x.display())
        .env("MESA_GLES_VERSION_OVERRIDE", "2.0")
        .run(&dir);
    let first = out.ok("debug fragment depth=clear");
    assert!(first["reached"].as_u64().unwrap_or(0) > 1000, "{first}");
    assert_eq!(out.ok("step")["finished"], true);
    let colors = covered_colors(&out, &pixels);
    assert!(
        colors.len() > 10,
        "grid pixels on the gear: {}",
        colors.len()
    );
    for ((x, y), c) in &colors {
        assert!(
            c[0] > 0.1 && c[0] <= 0.8 * 1.2 + 1e-6,
            "red @ {x},{y}: {c:?}"
        );
        assert_close(
            c[1],
            c[0] / 8.0,
            1e-5,
            &format!("green = red / 8 @ {x},{y}"),
        );
        assert_eq!((c[2], c[3]), (0.0, 1.0), "blue, alpha @ {x},{y}: {c:?}");
    }
    assert_eq!(stopped_function(out.ok_n("continue", 1)), "eglSwapBuffers");
}

/// Plain `debug fragment` at es2gears' depth-tested draw in an ES 2.0
/// context names the option to use.
#[test]
fn es2gears_es20_depth_copy_names_the_way_out() {
    require_workspace();
    let es2gears = debian("es2gears_x11", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("es2gears-es20-depth");
    let out = Session::new(&es2gears, "break draw\ncontinue\ndebug fragment\n")
        .env("DISPLAY", x.display())
        .env("MESA_GLES_VERSION_OVERRIDE", "2.0")
        .run(&dir);
    let error = out.failed("debug fragment");
    assert!(
        error.contains("glBlitFramebuffer") && error.contains("depth=clear"),
        "{error}"
    );
}

// ---------------------------------------------------------------------------
// glmark2-es2 (glmark2-es2-x11): GLES 2 through EGL, shaders without
// #version whose precision statement sits in `#ifdef GL_ES`

/// glmark2-es2's phong shading, off-screen: the fragment shader's output
/// at the end of main at covered pixels of the draw. The material is blue
/// (`MaterialDiffuse = (0, 0, 1, 1)`), the ambient and specular light
/// grey: red = green, blue >= red, all finite and >= 0.
#[test]
fn glmark2_es2_phong_fragment_debug() {
    require_workspace();
    let glmark2 = debian("glmark2-es2", "glmark2-es2-x11");
    let x = Xvfb::start();
    let dir = TempDir::new("glmark2-es2");
    let (prints, pixels) = grid_prints(320, 240, 10);
    let script = format!(
        "break draw\ncontinue\ninfo program\ndebug fragment\nnext\nnext\nprint gl_FragColor\n\
         {prints}end\ndelete\ncontinue\n"
    );
    let out = Session::new(&glmark2, &script)
        .args([
            "--off-screen",
            "--size",
            "320x240",
            "-b",
            "shading:shading=phong:duration=0.5",
        ])
        .env("DISPLAY", x.display())
        .run(&dir);
    let fs = stage_source(out.ok("info program"), "fragment");
    assert!(
        !fs.contains("#version") && fs.contains("#ifdef GL_ES\nprecision mediump float;"),
        "glmark2-es2's own GLSL ES 1.00: {fs}"
    );
    let first = out.ok("debug fragment");
    let reached = first["reached"].as_u64().unwrap_or(0);
    assert!(reached > 1000 && reached < 320 * 240, "{first}");
    assert_eq!(
        out.ok_n("next", 1)["finished"],
        true,
        "{}",
        out.transcript()
    );
    assert_eq!(
        out.ok("print gl_FragColor")["summary"]["count"].as_u64(),
        Some(reached)
    );
    let colors = covered_colors(&out, &pixels);
    assert!(
        colors.len() > 10,
        "grid pixels on the model: {}",
        colors.len()
    );
    for ((x, y), c) in &colors {
        assert!(
            c.iter().all(|v| v.is_finite() && *v >= 0.0),
            "@ {x},{y}: {c:?}"
        );
        assert_eq!(c[0], c[1], "red = green @ {x},{y}: {c:?}");
        assert!(c[2] >= c[0], "blue >= red @ {x},{y}: {c:?}");
    }
    assert!(
        colors.iter().any(|(_, c)| c[2] > c[0] + 0.1),
        "some pixels are lit blue: {colors:?}"
    );
    out.ok("end");
    assert_last_exited_0(&out, "continue");
    assert!(
        out.stdout.contains("glmark2 Score:"),
        "{}",
        out.transcript()
    );
}

// ---------------------------------------------------------------------------
// glmark2 (glmark2-x11): dlopens libGL, GLX, many shaders

const GLMARK2_ARGS: &[&str] = &[
    "-b",
    "build:duration=0.5",
    "-b",
    "shading:duration=0.5",
    "--size",
    "320x240",
];

/// The scene lines (`[build] ...`) of glmark2's output, without the figures.
fn glmark2_scenes(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter_map(|l| l.find('[').map(|i| &l[i..]))
        .filter_map(|l| l.split(':').next())
        .map(str::to_string)
        .collect()
}

/// A source breakpoint in glmark2's own file, GLSL 1.10 (no `uint`, no
/// storage buffers: no hit shader, no trace): `continue` steps by coverage
/// to the file's line at the first draw whose program holds the file, and
/// stops there unfocused. glmark2 puts lines of its own before the file's
/// text, so the driver's line is not the file's.
#[test]
fn glmark2_source_breakpoint_in_its_glsl_110_file() {
    require_workspace();
    let glmark2 = debian("glmark2", "glmark2-x11");
    let file = "/usr/share/glmark2/shaders/light-basic.vert";
    let text = std::fs::read_to_string(file).expect("glmark2-x11's shader files");
    let x = Xvfb::start();
    let dir = TempDir::new("glmark2-srcbp");
    let script = format!(
        "break {file}:22\ncontinue\ninfo call\ninfo program\nprint diffuse\nend\ndelete\ncontinue\n"
    );
    let out = Session::new(&glmark2, &script)
        .args(["-b", "build:duration=0.5", "--size", "320x240"])
        .env("DISPLAY", x.display())
        .run(&dir);
    let stop = out.ok("continue");
    let shader = &stop["shader"];
    assert_eq!(shader["stage"], "vertex", "{stop}");
    assert_eq!(shader["file"], file, "{stop}");
    assert_eq!(shader["file_line"], 22, "{stop}");
    // The driver's line of the recorded source holds the file's line 22.
    let line = shader["line"].as_u64().expect("a line") as usize;
    assert!(line > 22, "glmark2's own lines come first: {stop}");
    let vs = stage_source(out.ok("info program"), "vertex");
    assert!(!vs.contains("#line"), "{vs}");
    assert_eq!(vs.lines().nth(line - 1), text.lines().nth(21), "{vs}");
    // No branch before it: every vertex of the draw reaches the line.
    let call = out.ok("info call");
    let count: u64 = call["args"][2]["value"]
        .as_str()
        .and_then(|v| v.parse().ok())
        .expect("glDrawArrays' count");
    assert_eq!(call["function"], "glDrawArrays", "{call}");
    assert_eq!(shader["reached"].as_u64(), Some(count), "{stop}");
    // diffuse = max(dot(N, L), 0.0) of unit vectors: within [0, 1].
    let s = &out.ok("print diffuse")["summary"];
    assert_eq!(s["count"].as_u64(), Some(count), "{s}");
    let (lo, hi) = (s["min"][0].as_f64().unwrap(), s["max"][0].as_f64().unwrap());
    assert!(lo >= 0.0 && hi <= 1.0 + 1e-6 && hi > 0.5, "{s}");
    out.ok("end");
    assert_last_exited_0(&out, "continue");
}

#[test]
fn glmark2_runs_and_scores_under_gldbg() {
    require_workspace();
    let glmark2 = debian("glmark2", "glmark2-x11");
    let x = Xvfb::start();
    let dir = TempDir::new("glmark2-run");
    let mut native = Command::new(&glmark2);
    native.args(GLMARK2_ARGS).env("DISPLAY", x.display());
    let native = run_command(native);
    assert!(native.status.success(), "{}", native.transcript());

    let out = Session::new(&glmark2, "continue\n")
        .args(GLMARK2_ARGS)
        .env("DISPLAY", x.display())
        .run(&dir);
    assert_exited_0(&out, "continue", 0);
    assert!(
        out.stdout.contains("glmark2 Score:"),
        "{}",
        out.transcript()
    );
    assert_eq!(
        glmark2_scenes(&out.stdout),
        glmark2_scenes(&native.stdout),
        "the same scenes run, in the same order:\n{}",
        out.transcript()
    );
    assert!(
        !out.stdout.contains("Error") && !out.stderr.contains("Error"),
        "{}",
        out.transcript()
    );
}

#[test]
fn glmark2_draw_program_and_fragment_debug() {
    require_workspace();
    let glmark2 = debian("glmark2", "glmark2-x11");
    let x = Xvfb::start();
    let dir = TempDir::new("glmark2-stop");
    let script = "break draw\ncontinue\ninfo call\ninfo program\ndebug fragment\n\
                  print gl_FragCoord\nend\ndelete\ncontinue\n";
    let out = Session::new(&glmark2, script)
        .args(["-b", "build:duration=0.5", "--size", "320x240"])
        .env("DISPLAY", x.display())
        .run(&dir);
    let call = out.ok("info call");
    assert!(
        call["function"]
            .as_str()
            .is_some_and(|f| f.starts_with("glDraw")),
        "{call}"
    );
    let program = out.ok("info program");
    let fs = stage_source(program, "fragment");
    assert!(fs.contains("gl_FragColor"), "glmark2's own GLSL: {fs}");
    assert!(stage_source(program, "vertex").contains("gl_Position"));
    out.ok("debug fragment");
    // The model covers part of the 320x240 window: some fragments, each at
    // a pixel centre inside the window.
    let coord = out.ok("print gl_FragCoord");
    let summary = &coord["summary"];
    let count = summary["count"].as_u64().unwrap_or(0);
    assert!(count > 0 && count < 320 * 240, "{coord}");
    let max = summary["max"].as_array().expect("max");
    assert!(max[0].as_f64().unwrap() < 320.0 && max[1].as_f64().unwrap() < 240.0);
    out.ok("end");
    // (The stop's own `continue` line follows glmark2's partial line
    // `[build] duration=0.5:` and is glued to it: take the last one.)
    assert_last_exited_0(&out, "continue");
    assert!(
        out.stdout.contains("glmark2 Score:"),
        "{}",
        out.transcript()
    );
}

// ---------------------------------------------------------------------------
// piglit's shader_runner: waffle (dlopen + dlsym), EGL surfaceless

const PIGLIT: &str = "/usr/lib/x86_64-linux-gnu/piglit";

fn shader_runner() -> PathBuf {
    debian(&format!("{PIGLIT}/bin/shader_runner"), "piglit")
}

/// About 20 shader tests spread over GLSL 1.10 to 4.x execution tests:
/// every n-th file of each directory, in name order (deterministic).
fn shader_tests() -> Vec<PathBuf> {
    let spec = Path::new(PIGLIT).join("tests/spec");
    let mut picked = Vec::new();
    for dir in [
        "glsl-1.10/execution",
        "glsl-1.20/execution",
        "glsl-1.30/execution",
        "glsl-1.40/execution",
        "glsl-1.50/execution",
        "arb_gpu_shader5/execution",
        "arb_shader_storage_buffer_object/execution",
    ] {
        let Ok(entries) = std::fs::read_dir(spec.join(dir)) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "shader_test"))
            .collect();
        files.sort();
        let step = (files.len() / 3).max(1);
        picked.extend(files.into_iter().step_by(step).take(3));
    }
    picked
}

/// The `PIGLIT: {"result": ...}` verdict in shader_runner's output.
fn piglit_result(stdout: &str) -> Option<String> {
    let line = stdout.lines().find(|l| l.starts_with("PIGLIT: "))?;
    let v: Value = serde_json::from_str(&line["PIGLIT: ".len()..]).ok()?;
    v["result"].as_str().map(str::to_string)
}

/// Run-mode identity on the driver's own test suite: each shader test gives
/// the same verdict under `gldbg run` as natively (and most pass).
#[test]
fn shader_runner_results_match_native() {
    require_workspace();
    let runner = shader_runner();
    let tests = shader_tests();
    assert!(tests.len() >= 15, "piglit tests not found: {tests:?}");
    let dir = TempDir::new("piglit");
    let mut passes = 0;
    for test in &tests {
        let args = [test.to_str().unwrap(), "-auto", "-fbo"];
        let mut native = Command::new(&runner);
        native.args(args).env("PIGLIT_PLATFORM", "surfaceless_egl");
        let native = run_command(native);
        let want = piglit_result(&native.stdout)
            .unwrap_or_else(|| panic!("no verdict natively:\n{}", native.transcript()));
        let out = Session::new(&runner, "continue\n")
            .args(args)
            .env("PIGLIT_PLATFORM", "surfaceless_egl")
            .run(&dir);
        let got = piglit_result(&out.stdout);
        assert_eq!(
            got.as_deref(),
            Some(want.as_str()),
            "{}: verdict under gldbg vs native\n{}",
            test.display(),
            out.transcript()
        );
        assert_eq!(
            out.ok("continue")["exited"]["code"],
            native.status.code().unwrap_or(-1),
            "{}: exit code",
            test.display()
        );
        passes += usize::from(want == "pass");
    }
    assert!(
        passes * 2 > tests.len(),
        "most picked tests pass natively ({passes} of {})",
        tests.len()
    );
}

/// Stopped inside shader_runner: its draw, its fragment shader, values.
#[test]
fn shader_runner_stopped_and_debugged() {
    require_workspace();
    let runner = shader_runner();
    let test =
        Path::new(PIGLIT).join("tests/spec/glsl-1.10/execution/chained-assignment.shader_test");
    assert!(test.exists(), "{} is missing (piglit)", test.display());
    let dir = TempDir::new("piglit-stop");
    // Lines of the test's shader (a `#version 110` line is prepended):
    // 4 `float x, y, z;`, 5 `x = y = z = 0.25;`, 6 `gl_FragColor = ...`.
    let script = "break draw\ncontinue\ninfo call\ninfo program\ndebug fragment\n\
                  break 6\ncontinue\nprint x @ 5,5\nprint x + y + z\nend\ndelete\ncontinue\n";
    let out = Session::new(&runner, script)
        .args([test.to_str().unwrap(), "-auto", "-fbo"])
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .run(&dir);
    assert!(
        stopped_function(out.ok("info call")).starts_with("glDraw"),
        "{}",
        out.transcript()
    );
    let fs = stage_source(out.ok("info program"), "fragment");
    assert!(fs.contains("x = y = z = 0.25;"), "{fs}");
    out.ok("debug fragment");
    assert_eq!(out.ok_n("continue", 1)["line"], 6);
    assert_close(scalar(out.ok("print x @ 5,5")), 0.25, 0.0, "x");
    let sum = out.ok("print x + y + z");
    assert_eq!(sum["summary"]["min"][0], sum["summary"]["max"][0], "{sum}");
    assert_close(
        sum["summary"]["min"][0].as_f64().unwrap(),
        0.75,
        1e-6,
        "x + y + z",
    );
    out.ok("end");
    assert_exited_0(&out, "continue", 2);
    assert_eq!(piglit_result(&out.stdout).as_deref(), Some("pass"));
}

// ---------------------------------------------------------------------------
// Two threads, each with its own GL context (tests/apps/threads2.c)

/// `thread0 H` and `thread1 H` lines of threads2's output.
fn thread_checksums(stdout: &str) -> Vec<String> {
    lines_starting(stdout, "thread")
        .into_iter()
        .map(str::to_string)
        .collect()
}

#[test]
fn two_gl_threads_run_mode_and_stops() {
    require_workspace();
    let app = threads2();
    let dir = TempDir::new("threads2");
    let native = run_native(&app, &["--frames", "3"], &[]);
    let want = thread_checksums(&native.stdout);
    assert_eq!(want.len(), 2, "{}", native.transcript());

    let run = Session::new(&app, "continue\n")
        .args(["--frames", "3"])
        .run(&dir);
    assert_exited_0(&run, "continue", 0);
    assert_eq!(thread_checksums(&run.stdout), want, "run mode vs native");

    // Stop at a draw of each thread, debug each one's fragment shader, go on.
    let script = "break glDrawArrays\ncontinue\ninfo call\ninfo program\ndebug fragment\n\
                  print u_k @ 10,20\nend\ncontinue\ninfo call\ninfo program\ndebug fragment\n\
                  print u_k @ 10,20\nend\ndelete\ncontinue\n";
    let out = Session::new(&app, script).args(["--frames", "1"]).run(&dir);
    let a = out.ok_n("info call", 0);
    let b = out.ok_n("info call", 1);
    assert_eq!(a["function"], "glDrawArrays");
    assert_eq!(b["function"], "glDrawArrays");
    assert_ne!(
        a["thread"],
        b["thread"],
        "one stop on each GL thread:\n{}",
        out.transcript()
    );
    // Each thread's own uniform value, read in its own context.
    let mut gains: Vec<f64> = (0..2)
        .map(|n| scalar(out.ok_n("print u_k @ 10,20", n)))
        .collect();
    gains.sort_by(f64::total_cmp);
    assert_close(gains[0], 0.01, 1e-7, "thread 0's u_k");
    assert_close(gains[1], 0.02, 1e-7, "thread 1's u_k");
    assert_exited_0(&out, "continue", 2);
    assert_eq!(
        thread_checksums(&out.stdout),
        want,
        "frames after the debug sessions vs native"
    );
}

/// Each thread's stop shows the shader of its own context (both contexts
/// name their objects 1, 2, 3: sources must be recorded per context).
#[test]
fn two_gl_threads_each_show_their_own_shader() {
    require_workspace();
    let app = threads2();
    let dir = TempDir::new("threads2-src");
    let script = "break glDrawArrays\ncontinue\ninfo program\ndebug fragment\nprint u_k @ 10,20\n\
                  end\ncontinue\ninfo program\ndebug fragment\nprint u_k @ 10,20\nend\ndelete\ncontinue\n";
    let out = Session::new(&app, script).run(&dir);
    for n in 0..2 {
        let fs = stage_source(out.ok_n("info program", n), "fragment");
        let k = scalar(out.ok_n("print u_k @ 10,20", n));
        let thread1 = (k - 0.02).abs() < 1e-7;
        assert_eq!(
            fs.contains("thread1_gain"),
            thread1,
            "stop {n} (u_k = {k}) shows the other context's shader:\n{fs}"
        );
    }
}

// ---------------------------------------------------------------------------
// SDL2 and GLFW: toolkits that dlopen libGL, a glad-style loader, core profile

fn toolkit_app(app: &Path, tag: &str) {
    require_workspace();
    let x = Xvfb::start();
    let dir = TempDir::new(tag);
    let env = [("DISPLAY", x.display()), ("SDL_VIDEODRIVER", "x11")];
    let native = run_native(app, &[], &env);
    let want = lines_starting(&native.stdout, "checksum ");
    assert_eq!(want.len(), 1, "{}", native.transcript());
    assert!(
        native.stdout.contains("Core Profile"),
        "a core-profile context: {}",
        native.stdout
    );

    let run = Session::new(app, "continue\n")
        .env("DISPLAY", x.display())
        .env("SDL_VIDEODRIVER", "x11")
        .run(&dir);
    assert_exited_0(&run, "continue", 0);
    assert_eq!(lines_starting(&run.stdout, "checksum "), want, "run mode");

    let script = "break draw\ncontinue\ninfo call\ninfo program\ndebug fragment\nbreak 7\n\
                  continue\nprint w @ 10,20\nprint p @ 10,20\nprint w\nend\ndelete\ncontinue\n";
    let out = Session::new(app, script)
        .env("DISPLAY", x.display())
        .env("SDL_VIDEODRIVER", "x11")
        .run(&dir);
    let call = out.ok("info call");
    assert_eq!(call["function"], "glDrawArrays", "{call}");
    let program = out.ok("info program");
    assert!(stage_source(program, "fragment").contains("float w = p.x * 0.015625 + p.y * u_k;"));
    assert_eq!(out.ok_n("continue", 1)["line"], 7);
    assert_close(
        scalar(out.ok("print w @ 10,20")),
        quad_w(10, 20, 0.02) as f64,
        1e-6,
        "w @ 10,20",
    );
    assert_eq!(values(out.ok("print p @ 10,20")), vec![10.5, 20.5]);
    assert_eq!(out.ok("print w")["summary"]["count"], 64 * 48);
    out.ok("end");
    assert_exited_0(&out, "continue", 2);
    assert_eq!(
        lines_starting(&out.stdout, "checksum "),
        want,
        "frame after the debug session vs native"
    );
}

#[test]
fn sdl2_core_profile_app() {
    toolkit_app(&sdl_core(), "sdl2");
}

#[test]
fn glfw_core_profile_app() {
    toolkit_app(&glfw_core(), "glfw");
}

/// glmark2-es2's shadow scene draws first into a framebuffer whose depth
/// is a `DEPTH_COMPONENT`/`UNSIGNED_INT` texture (32-bit): GL ES has no
/// renderbuffer of that format, so the step's depth buffer is a float one
/// (it was a `GL_DEPTH_COMPONENT32` renderbuffer: framebuffer incomplete).
#[test]
fn glmark2_es2_shadow_map_pass_fragment_debug() {
    require_workspace();
    let glmark2 = debian("glmark2-es2", "glmark2-es2-x11");
    let x = Xvfb::start();
    let dir = TempDir::new("glmark2-es2-shadow");
    let script =
        "break draw\ncontinue\ndebug fragment\nfinish\nprint gl_FragColor\nend\ndelete\ncontinue\n";
    let out = Session::new(&glmark2, script)
        .args([
            "--off-screen",
            "--size",
            "200x150",
            "-b",
            "shadow:duration=0.2",
        ])
        .env("DISPLAY", x.display())
        .run(&dir);
    let first = out.ok("debug fragment");
    let reached = first["reached"].as_u64().unwrap_or(0);
    assert!(reached > 100 && reached < 200 * 150, "{first}");
    let summary = &out.ok("print gl_FragColor")["summary"];
    assert_eq!(summary["count"].as_u64(), Some(reached), "{summary}");
    assert_eq!(
        (summary["nan"].as_u64(), summary["inf"].as_u64()),
        (Some(0), Some(0))
    );
    assert_eq!(summary["min"][3], 1.0, "alpha: {summary}");
    assert_eq!(summary["max"][3], 1.0, "alpha: {summary}");
    out.ok("end");
    assert_last_exited_0(&out, "continue");
    assert!(
        out.stdout.contains("glmark2 Score:"),
        "{}",
        out.transcript()
    );
}
