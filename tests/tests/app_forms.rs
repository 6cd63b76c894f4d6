//! Program and draw forms real apps use, end to end on the real driver:
//! dual-source blending (`tests/apps/egl_dual_source.c`), programs loaded
//! from a binary (`egl_binary.c`), display lists (`egl_lists.c`),
//! bindless texture handles (`egl_bindless.c`), an address-space limit
//! (`egl_rlimit.c`) and a program drawn in a context sharing with the one
//! that built it (`egl_shared.c`). Values are checked against the shaders' formulas.

mod support;

use gldbg_tests::*;
use support::build_c_app;

/// The app's result line (`<name>: ...`) without the renderer.
fn result_line(stdout: &str, name: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with(&format!("{name}: ")))
        .unwrap_or_else(|| panic!("no {name} line in:\n{stdout}"));
    let parts: Vec<&str> = line.split(", ").collect();
    parts[..parts.len() - 1].join(", ")
}

// ---------------------------------------------------------------------------
// Dual-source blending

/// The two sources egl_dual_source.c's shaders write at window pixel (x, y).
fn dual_sources(x: u32, y: u32) -> [Vec<f64>; 2] {
    let (fx, fy) = (x as f64 / 64.0, y as f64 / 64.0);
    [
        vec![fx * 0.5, fy * 0.5, 0.25, 0.5],
        vec![1.0 - fx, 0.5, fy, 0.25],
    ]
}

/// Both programs (outputs placed by layout qualifiers, and by
/// glBindFragDataLocationIndexed) debug: `info program` shows the second
/// source's index, in text and JSON; both outputs print the shader's
/// values; the app's blended frame is as natively.
#[test]
fn dual_source_blending_programs_debug() {
    require_workspace();
    let app = build_c_app(
        "egl_dual_source.c",
        "egl_dual_source",
        &["EGL", "OpenGL", "m"],
        &[],
    );
    let native = run_native(&app, &[], &[]);
    // (draw, a pixel it covers)
    let draws = [(1, (10, 20)), (2, (40, 50))];
    let mut script = String::new();
    for (draw, (x, y)) in draws {
        script += &format!(
            "break draw {draw}\ncontinue\ninfo program\ndebug fragment\nbreak 8\ncontinue\n\
             print c0 @ {x},{y}\nprint c1 @ {x},{y}\nend\ndelete\n"
        );
    }
    // A vertex step (frame 2's draw 3) replays with rasterizer discard into two buffers of
    // ours: the app's dual-source blend functions must not fail it.
    script += "break draw 3\ncontinue\ndebug vertex\nend\ndelete\ncontinue\n";
    let dir = TempDir::new("dual-source");
    let out = Session::new(&app, &script).run(&dir);
    assert_exited_0_last(&out);
    assert_eq!(
        result_line(&out.stdout, "egl_dual_source"),
        result_line(&native.stdout, "egl_dual_source"),
        "the app's frame differs from a native run"
    );
    assert!(out.stdout.contains("blend ok"), "{}", out.stdout);
    let vertex = out.ok("debug vertex");
    assert_eq!(vertex["reached"], 4, "{vertex}");
    for (k, (draw, (x, y))) in draws.into_iter().enumerate() {
        let info = out.ok_n("info program", k);
        let outputs: Vec<(String, i64, i64)> = info["outputs"]
            .as_array()
            .unwrap_or_else(|| panic!("no outputs: {info}"))
            .iter()
            .map(|o| {
                let s = |k: &str| o[k].as_str().unwrap_or("").to_string();
                (
                    s("name"),
                    o["location"].as_i64().unwrap(),
                    o["index"].as_i64().unwrap(),
                )
            })
            .collect();
        assert!(
            outputs.contains(&("c0".into(), 0, 0)),
            "draw {draw}: {info}"
        );
        assert!(
            outputs.contains(&("c1".into(), 0, 1)),
            "draw {draw}: {info}"
        );
        let stop = out.ok_n("continue", 2 * k + 1);
        assert_eq!(stop["line"], 8, "draw {draw}: {stop}");
        assert_eq!(stop["reached"], 32 * 64, "draw {draw}: {stop}");
        let [c0, c1] = dual_sources(x, y);
        let got = out.ok_n(&format!("print c0 @ {x},{y}"), 0);
        assert_eq!(values(got), c0, "draw {draw}: {got}");
        let got = out.ok_n(&format!("print c1 @ {x},{y}"), 0);
        assert_eq!(values(got), c1, "draw {draw}: {got}");
    }
}

/// The text form of `info program` names the index of both sources.
#[test]
fn dual_source_index_in_text() {
    require_workspace();
    let app = build_c_app(
        "egl_dual_source.c",
        "egl_dual_source",
        &["EGL", "OpenGL", "m"],
        &[],
    );
    let dir = TempDir::new("dual-source-text");
    let script = dir.join("s.gldbg");
    std::fs::write(
        &script,
        "break draw 1\ncontinue\ninfo program\ndelete\ncontinue\n",
    )
    .unwrap();
    let out = run_command({
        let mut c = std::process::Command::new(gldbg());
        c.args(["run", "--batch", "-x"])
            .arg(&script)
            .arg("--")
            .arg(&app);
        c
    });
    assert!(
        out.stdout.contains("c0 (location 0, index 0)"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("c1 (location 0, index 1)"),
        "{}",
        out.stdout
    );
}

#[track_caller]
fn assert_exited_0_last(out: &Output) {
    support::assert_last_exited_0(out, "continue");
}

// ---------------------------------------------------------------------------
// Programs loaded from a binary

fn egl_binary() -> std::path::PathBuf {
    build_c_app("egl_binary.c", "egl_binary", &["EGL", "OpenGL", "m"], &[])
}

/// The value egl_binary.c's shader holds in `v` at window pixel (x, y).
fn binary_value(x: u32, y: u32) -> Vec<f64> {
    let (fx, fy) = (x as f32 / 64.0, y as f32 / 64.0);
    [fx, fy, fx * fy, 0.75].iter().map(|&v| v as f64).collect()
}

/// The frame hash of an egl_binary result line.
fn binary_frame(stdout: &str) -> String {
    let line = result_line(stdout, "egl_binary");
    line.split(", ")
        .find(|p| p.starts_with("frame "))
        .unwrap_or_else(|| panic!("no frame in {line}"))
        .to_string()
}

/// Natively the app loads its program from a binary (one made in the same
/// run, or a cache file of an earlier run); under gldbg it sees no binary
/// format through any glGet*v, its glProgramBinary of the cache fails
/// without a GL error, it links from source, draws the same frame, and its
/// fragment shader debugs with the formula's values.
#[test]
fn program_binaries_give_way_to_sources() {
    require_workspace();
    let app = egl_binary();
    let dir = TempDir::new("program-binary");
    let cache = dir.join("cache.bin");
    let cache = cache.to_str().unwrap();
    let native = run_native(&app, &[], &[]);
    let line = result_line(&native.stdout, "egl_binary");
    assert!(
        line.contains("program from binary, formats 1 1 1 1 1"),
        "{line}"
    );
    // An earlier run saves the cache; the next loads it.
    run_native(&app, &["--cache", cache], &[]);
    let cached = run_native(&app, &["--cache", cache], &[]);
    assert!(
        cached.stdout.contains("program from binary"),
        "{}",
        cached.stdout
    );

    let (x, y) = (10, 20);
    let script = format!(
        "break draw 1\ncontinue\ninfo program\ndebug fragment\nbreak 6\ncontinue\n\
         print v @ {x},{y}\nend\ndelete\ncontinue\n"
    );
    for args in [vec![], vec!["--cache", cache]] {
        let out = Session::new(&app, &script).args(&args).run(&dir);
        support::assert_last_exited_0(&out, "continue");
        let line = result_line(&out.stdout, "egl_binary");
        assert!(
            line.contains("program from source, formats 0 0 0 0 0"),
            "{args:?}: {line}"
        );
        assert!(line.contains("pixels ok"), "{args:?}: {line}");
        assert_eq!(
            binary_frame(&out.stdout),
            binary_frame(&native.stdout),
            "{args:?}"
        );
        let info = out.ok("info program");
        assert!(
            support::stage_source(info, "fragment").contains("color = v;"),
            "{args:?}: {info}"
        );
        assert!(info.get("note").is_none(), "{args:?}: {info}");
        let stop = out.ok_n("continue", 1);
        assert_eq!(stop["line"], 6, "{args:?}: {stop}");
        assert_eq!(stop["reached"], 64 * 64, "{args:?}: {stop}");
        let v = out.ok(&format!("print v @ {x},{y}"));
        assert_eq!(values(v), binary_value(x, y), "{args:?}: {v}");
    }
}

// ---------------------------------------------------------------------------
// Display lists

/// Draw calls compiled into a display list (GL_COMPILE) and calls of lists
/// that draw nothing are no draws; glCallList(s) of lists that draw are,
/// and debug with the shader's values; a glEnd inside
/// GL_COMPILE_AND_EXECUTE draws but cannot be replayed, and gldbg says
/// why. The app's frame (lists that translate the modelview matrix) is as
/// natively.
#[test]
fn display_lists_draw_only_when_called() {
    require_workspace();
    let app = build_c_app("egl_lists.c", "egl_lists", &["EGL", "OpenGL"], &[]);
    let native = run_native(&app, &[], &[]);
    let script = "break draw\ncontinue\ninfo call\ndebug fragment\nbreak 5\ncontinue\n\
                  print p @ 20,10\nend\ncontinue\ndebug fragment\ncontinue\ncontinue\n\
                  debug fragment\nbreak 5\ncontinue\nprint p @ 45,10\nend\ndelete\ncontinue\n";
    let dir = TempDir::new("display-lists");
    // `debug fragment` in compile-and-execute fails: the script goes on.
    let out = Session::new(&app, script).keep_going().run(&dir);
    support::assert_last_exited_0(&out, "continue");
    assert_eq!(
        result_line(&out.stdout, "egl_lists"),
        result_line(&native.stdout, "egl_lists"),
        "the app's frame differs from a native run"
    );
    assert!(out.stdout.contains("pixels ok"), "{}", out.stdout);
    // The draws in order: glCallList(D), glEnd in C's compile-and-execute,
    // then glCallList(D) and glCallList(C) of frame 2.
    let stops: Vec<(String, u64)> = [0, 2, 3, 4]
        .iter()
        .map(|&n| {
            let r = out.ok_n("continue", n);
            (
                r["stopped"]["function"].as_str().unwrap_or("").to_string(),
                r["stopped"]["draw"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let want: Vec<(String, u64)> = [
        ("glCallList", 1),
        ("glEnd", 2),
        ("glCallList", 3),
        ("glCallList", 4),
    ]
    .iter()
    .map(|&(f, d)| (f.to_string(), d))
    .collect();
    assert_eq!(stops, want, "{}", out.transcript());
    // (x, y) in the list's quad: p = floor(gl_FragCoord.xy) / 64.
    for (k, (x, y)) in [(20u32, 10u32), (45, 10)].into_iter().enumerate() {
        let stop = out.ok_n("continue", [1, 5][k]);
        assert_eq!(stop["line"], 5, "{stop}");
        assert_eq!(stop["reached"], 16 * 64, "{stop}");
        let p = out.ok(&format!("print p @ {x},{y}"));
        assert_eq!(values(p), [x as f64 / 64.0, y as f64 / 64.0], "{p}");
    }
    let refused = out.result_n("debug fragment", 1);
    assert_eq!(refused["ok"], false, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .is_some_and(|e| e.contains("GL_COMPILE_AND_EXECUTE")),
        "{refused}"
    );
}

// ---------------------------------------------------------------------------
// An address-space limit

fn egl_rlimit() -> std::path::PathBuf {
    build_c_app("egl_rlimit.c", "egl_rlimit", &["EGL", "OpenGL"], &[])
}

/// An app that limits its address space to 256 MiB (as piglit's `rlimit`)
/// runs under gldbg in run mode and through a fragment step, and exits 0
/// with the native frame: the preload maps only the shared header at
/// start and bulk windows as commands need them. A 1024x1024 step (a
/// larger window than the first) reads right values at a far pixel.
/// llvmpipe's rasterizer threads reserve much address space: they are off.
/// After `end` the app holds no more of gldbg than the shared header: the
/// bulk windows are unmapped (one mapping of `memfd:gldbg` at exit), and
/// gldbg loaded no libGL/libX11 into the EGL app (it resolves through the
/// app's eglGetProcAddress). Before that, CI's run of this test ran out of
/// address space in the app's own draw after the step.
#[test]
fn an_address_space_limit_leaves_room_for_the_app() {
    require_workspace();
    let app = egl_rlimit();
    let env = [("LP_NUM_THREADS", "0")];
    let native = run_native(&app, &[], &env);
    assert!(native.stdout.contains("pixels ok"), "{}", native.stdout);
    let maps = |gldbg: u32| format!("egl_rlimit: mappings gldbg {gldbg}, libGL 0, libX11 0");
    assert!(native.stdout.contains(&maps(0)), "{}", native.stdout);
    let dir = TempDir::new("rlimit");
    let session = |script: &str, args: &[&str]| {
        Session::new(&app, script)
            .args(args)
            .env("LP_NUM_THREADS", "0")
            .run(&dir)
    };
    let run = session("continue\n", &[]);
    support::assert_last_exited_0(&run, "continue");
    assert!(run.stdout.contains(&maps(1)), "{}", run.stdout);
    assert_eq!(
        result_line(&run.stdout, "egl_rlimit"),
        result_line(&native.stdout, "egl_rlimit")
    );
    for (args, (x, y)) in [
        (vec![], (10u32, 20u32)),
        (vec!["--size", "1024", "--limit", "2048"], (1000, 900)),
    ] {
        let script = format!(
            "break draw 1\ncontinue\ndebug fragment\nbreak 5\ncontinue\nprint p @ {x},{y}\n\
             end\ndelete\ncontinue\n"
        );
        let out = session(&script, &args);
        support::assert_last_exited_0(&out, "continue");
        assert!(out.stdout.contains("pixels ok"), "{args:?}: {}", out.stdout);
        assert!(out.stdout.contains(&maps(1)), "{args:?}: {}", out.stdout);
        let p = out.ok(&format!("print p @ {x},{y}"));
        assert_eq!(
            values(p),
            [x as f64 / 64.0, y as f64 / 64.0],
            "{args:?}: {p}"
        );
    }
}

// ---------------------------------------------------------------------------
// Bindless texture handles

/// Sampler uniforms set to bindless handles (glUniformHandleui64ARB and
/// glProgramUniformHandleui64ARB) sample the same textures in the debug
/// program: red and green at every fragment. Where the context has no
/// GL_ARB_bindless_texture (Mesa llvmpipe) the app says it skipped, under
/// gldbg as natively, and only that is checked here: the values are
/// checked on a driver with the extension (NVIDIA).
#[test]
fn bindless_handles_reach_the_debug_program() {
    require_workspace();
    let app = build_c_app("egl_bindless.c", "egl_bindless", &["EGL", "OpenGL"], &[]);
    let native = run_native(&app, &[], &[]);
    let dir = TempDir::new("bindless");
    let script = "break draw 1\ncontinue\ndebug fragment\nbreak 9\ncontinue\n\
                  print r @ 10,20\nprint g @ 10,20\nend\ndelete\ncontinue\n";
    if native.stdout.contains("egl_bindless: skipped") {
        let out = Session::new(&app, "continue\n").run(&dir);
        support::assert_last_exited_0(&out, "continue");
        assert!(
            out.stdout.contains("egl_bindless: skipped"),
            "{}",
            out.stdout
        );
        eprintln!(
            "bindless_handles_reach_the_debug_program: no GL_ARB_bindless_texture here; values not checked"
        );
        return;
    }
    let out = Session::new(&app, script).run(&dir);
    support::assert_last_exited_0(&out, "continue");
    assert_eq!(
        result_line(&out.stdout, "egl_bindless"),
        result_line(&native.stdout, "egl_bindless")
    );
    let stop = out.ok_n("continue", 1);
    assert_eq!(stop["line"], 9, "{stop}");
    assert_eq!(stop["reached"], 64 * 64, "{stop}");
    assert_eq!(values(out.ok("print r @ 10,20")), [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(values(out.ok("print g @ 10,20")), [0.0, 1.0, 0.0, 1.0]);
}

/// Shaders loaded as SPIR-V (glShaderBinary, ARB_gl_spirv) have no GLSL
/// source: `info program` and `debug fragment` say so and what to do; the
/// app runs on and draws its native frame.
#[test]
fn spirv_shaders_say_why_they_do_not_debug() {
    require_workspace();
    let app = egl_binary();
    let native = run_native(&app, &["--spirv"], &[]);
    assert!(
        native.stdout.contains("program from spirv"),
        "{}",
        native.stdout
    );
    let dir = TempDir::new("spirv");
    let script = "break draw 1\ncontinue\ninfo program\ndebug fragment\ndelete\ncontinue\n";
    let out = Session::new(&app, script)
        .args(["--spirv"])
        .keep_going()
        .run(&dir);
    support::assert_last_exited_0(&out, "continue");
    assert_eq!(binary_frame(&out.stdout), binary_frame(&native.stdout));
    let info = out.ok("info program");
    let note = info["note"]
        .as_str()
        .unwrap_or_else(|| panic!("no note: {info}"));
    assert!(note.contains("were loaded with glShaderBinary"), "{note}");
    assert!(note.contains("glShaderSource"), "{note}");
    let err = out.result("debug fragment");
    assert_eq!(err["ok"], false, "{err}");
    let err = err["error"].as_str().unwrap_or("");
    assert!(
        err.contains("source is unknown") && err.contains("glShaderBinary"),
        "{err}"
    );
}

/// An app without a source path (it uses what its cache gave) cannot make
/// its program current under gldbg: `info program` and `debug` say why
/// and what to do.
#[test]
fn a_binary_program_without_a_source_path_is_explained() {
    require_workspace();
    let app = egl_binary();
    let dir = TempDir::new("program-binary-no-fallback");
    let cache = dir.join("cache.bin");
    let cache = cache.to_str().unwrap();
    run_native(&app, &["--cache", cache], &[]);
    let native = run_native(&app, &["--cache", cache, "--no-fallback"], &[]);
    assert!(
        native.stdout.contains("program from binary"),
        "{}",
        native.stdout
    );
    let script = "break draw 1\ncontinue\ninfo program\ndebug fragment\ndelete\ncontinue\n";
    let out = Session::new(&app, script)
        .args(["--cache", cache, "--no-fallback"])
        .keep_going()
        .run(&dir);
    for cmd in ["info program", "debug fragment"] {
        let r = out.result(cmd);
        assert_eq!(r["ok"], false, "{r}");
        let err = r["error"].as_str().unwrap_or("");
        assert!(
            err.contains("loaded with glProgramBinary") && err.contains("shader cache"),
            "{cmd}: {err}"
        );
    }
}

// ---------------------------------------------------------------------------
// Programs of a share group

/// A program built in one context, its shaders detached and deleted, and
/// drawn with in a second context created sharing with the first (GTK 4's
/// GL renderer): `info program` shows both stages' sources, and the
/// fragment shader debugs with the formula's values at a pixel, the app's
/// own readback unchanged. As in GTK's shaders, `gl_FragCoord` is
/// redeclared (origin upper left) after a function: printed inside that
/// function it has the redeclared origin.
#[test]
fn program_of_a_shared_context_debugs() {
    require_workspace();
    let app = build_c_app("egl_shared.c", "egl_shared", &["EGL", "OpenGL", "m"], &[]);
    let dir = TempDir::new("shared-context");
    let native = run_native(&app, &[], &[]);
    let pixel = native
        .stdout
        .lines()
        .find(|l| l.starts_with("egl_shared: "))
        .unwrap_or_else(|| panic!("no result line in {}", native.stdout))
        .to_string();
    assert!(
        pixel.ends_with("= 0.265625 0.734375 0.195068 0.5"),
        "{pixel}"
    );
    let (x, y) = (8, 20);
    let script = format!(
        "break draw 1\ncontinue\ninfo program\ndebug fragment\nstep\n\
         print gl_FragCoord @ {x},{y}\nbreak 9\ncontinue\nstep\n\
         print color @ {x},{y}\nend\ndelete\ncontinue\n"
    );
    let out = Session::new(&app, &script).run(&dir);
    support::assert_last_exited_0(&out, "continue");
    assert!(out.stdout.contains(&pixel), "{}", out.stdout);
    let info = out.ok("info program");
    assert!(
        support::stage_source(info, "fragment").contains("color = vec4(p, p.x * p.y, 0.5);"),
        "{info}"
    );
    assert!(
        support::stage_source(info, "vertex").contains("gl_Position"),
        "{info}"
    );
    // Window pixel (x, y) counts rows from the bottom; the shader's from the top.
    let (fx, fy) = (x as f32 + 0.5, 32.0 - (y as f32 + 0.5));
    let coord = values(out.ok(&format!("print gl_FragCoord @ {x},{y}")));
    assert_eq!(coord[..2], [fx as f64, fy as f64], "{coord:?}");
    let got: Vec<f32> = values(out.ok(&format!("print color @ {x},{y}")))
        .into_iter()
        .map(|v| v as f32)
        .collect();
    let (px, py) = (fx / 32.0, fy / 32.0);
    assert_eq!(got, [px, py, px * py, 0.5]);
}
