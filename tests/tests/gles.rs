//! OpenGL ES contexts (`tests/apps/egl_gles.c`, EGL surfaceless, GL ES from
//! libGLESv2): fragment and vertex steps in a GLES 2 app (GLSL ES 1.00
//! without `#version`, `gl_FragColor`) and a GLES 3 app (GLSL ES 3.00, uint
//! and ivec2 values), the compute step in a GLES 3.1 app; values against
//! the CPU references of the shaders (`shade()` is SHADE_FS's), summaries,
//! a dump, and the app's own result (frame or buffer checksum) equal to a
//! native run's.
//!
//! Mesa gives a GLES 2 or 3 app an ES 3.2 context; `MESA_GLES_VERSION_OVERRIDE`
//! makes it the version asked for, with only what that version offers
//! (ES 3.0: no `glGetBooleani_v`, no images or storage buffers; ES 2.0: no
//! float render targets, no `glReadBuffer`, no transform feedback). ES 3.0
//! and 3.1 debug like 3.2; ES 2.0 gets errors naming what it lacks, and
//! the app goes on unharmed.

use std::path::Path;

use gldbg_tests::*;

/// Pixels inside the quad (window coordinates), both sides of x = 32.
const PIXELS: &[(u32, u32)] = &[(16, 12), (20, 20), (40, 30), (50, 13), (55, 35), (33, 24)];
const TOL: f64 = 1e-5;

/// `shade()`'s `return v;` and main's last line in both fragment shaders.
const RETURN: u32 = 15;
const GLES2_LAST: u32 = 21;
const GLES3_LAST: u32 = 22;

/// `v_uv` at vertex `n` of the draw (SHADE_QUAD * 0.5 + 0.5).
fn vertex_uv(n: usize) -> [f64; 2] {
    const QUAD: [f32; 12] = [
        -0.5, -0.5, 0.75, -0.5, 0.75, 0.5, -0.5, -0.5, 0.75, 0.5, -0.5, 0.5,
    ];
    [0, 1].map(|k| (QUAD[2 * n + k] * 0.5 + 0.5) as f64)
}

/// `v_uv` interpolated at pixel (x, y): the window position over the size.
fn pixel_uv(x: u32, y: u32) -> [f64; 2] {
    [(x as f64 + 0.5) / 64.0, (y as f64 + 0.5) / 48.0]
}

/// The `checksum H` line of the app's output.
fn checksum(stdout: &str) -> String {
    stdout
        .lines()
        .find(|l| l.starts_with("checksum "))
        .unwrap_or_else(|| panic!("no checksum line in {stdout:?}"))
        .to_string()
}

/// The app run natively with `env`: its checksum line.
fn native_checksum(args: &[&str], env: &[(&str, &str)]) -> String {
    let out = run_native(&egl_gles(), args, env);
    assert!(out.status.success(), "{}", out.transcript());
    checksum(&out.stdout)
}

fn session(args: &[&str], env: Option<&str>, script: &str, dir: &TempDir) -> Output {
    let mut s = Session::new(egl_gles(), script).args(args);
    if let Some(v) = env {
        s = s.env("MESA_GLES_VERSION_OVERRIDE", v);
    }
    s.run(dir)
}

#[track_caller]
fn check_close(out: &Output, cmd: &str, want: &[f64]) {
    let r = out.ok(cmd);
    assert_eq!(r["reached"], true, "{cmd}: {r}");
    let got = values(r);
    assert_eq!(got.len(), want.len(), "{cmd}: {r}");
    for (g, w) in got.iter().zip(want) {
        assert_close(*g, *w, TOL, cmd);
    }
}

/// The fragment and vertex script shared by the GLES 2 and GLES 3 apps:
/// `shade()`'s locals at `return v;`, main's locals at its last line, the
/// outputs at the end of main, a dump, then `v_uv` at every vertex.
fn draw_script(last: u32, main_prints: &[&str], output: &str, npy: &Path) -> String {
    fragment_script(last, main_prints, output, npy) + &vertex_script()
}

/// The fragment part of [`draw_script`], up to `end`.
fn fragment_script(last: u32, main_prints: &[&str], output: &str, npy: &Path) -> String {
    let mut s =
        format!("break draw\ncontinue\ninfo program\ndebug fragment\nbreak {RETURN}\ncontinue\n");
    for &(x, y) in PIXELS {
        s += &format!("print v @ {x},{y}\nprint acc @ {x},{y}\n");
    }
    s += &format!(
        "print v\ndump v {}\ndelete\nbreak {last}\ncontinue\n",
        npy.display()
    );
    for &(x, y) in PIXELS {
        for p in main_prints {
            s += &format!("print {p} @ {x},{y}\n");
        }
    }
    s += "print s @ 0,0\nnext\n";
    for &(x, y) in PIXELS {
        s += &format!("print {output} @ {x},{y}\n");
    }
    s + "end\n"
}

/// The vertex part of [`draw_script`], then the app runs to its end.
fn vertex_script() -> String {
    let mut s = String::from("debug vertex\nnext\nnext\n");
    for n in 0..6 {
        s += &format!("print v_uv @ vertex {n}\n");
    }
    s + "end\ndelete\ncontinue\n"
}

/// What both draw apps show: `shade()`'s values, the summary, the dump,
/// `v_uv` per vertex, the app's frame.
fn check_draw_common(out: &Output, npy: &Path, want_checksum: &str) {
    check_fragment_common(out, npy);
    // The vertex stage: v_uv at every vertex once main has run.
    assert_eq!(out.ok_n("next", 2)["finished"], true);
    for n in 0..6 {
        check_close(out, &format!("print v_uv @ vertex {n}"), &vertex_uv(n));
    }
    let exit = out.ok_n("continue", 3);
    assert_eq!(exit["exited"]["code"], 0, "{exit}\n{}", out.transcript());
    assert_eq!(
        checksum(&out.stdout),
        want_checksum,
        "the frame after the debug steps vs native"
    );
}

/// The fragment part of [`check_draw_common`].
fn check_fragment_common(out: &Output, npy: &Path) {
    let first = out.ok("debug fragment");
    assert_eq!(first["line"], 18, "`vec2 p = gl_FragCoord.xy;`: {first}");
    assert_eq!(first["reached"], COVERED, "{first}");
    assert_eq!(out.ok_n("continue", 1)["line"], RETURN);
    for &(x, y) in PIXELS {
        let s = shade(x, y, gain(0));
        check_close(out, &format!("print v @ {x},{y}"), &[s.v as f64]);
        check_close(out, &format!("print acc @ {x},{y}"), &[s.acc as f64]);
    }
    let summary = &out.ok("print v")["summary"];
    assert_eq!(summary["count"], COVERED, "{summary}");
    let (lo, hi) = v_range(0);
    assert_close(summary["min"][0].as_f64().unwrap(), lo as f64, TOL, "min v");
    assert_close(summary["max"][0].as_f64().unwrap(), hi as f64, TOL, "max v");
    let npy_data = read_npy(npy);
    assert_eq!(npy_data.shape, vec![48, 64, 4]);
    for y in 0..48 {
        for x in 0..64 {
            let got = npy_data.data[(((47 - y) * 64 + x) * 4) as usize];
            if covered(x, y) {
                assert_close(got as f64, shade(x, y, gain(0)).v as f64, TOL, "npy");
            } else {
                assert!(got.is_nan(), "uncovered ({x},{y}) in the dump: {got}");
            }
        }
    }
    // Outside the quad nothing is reached.
    assert_eq!(out.ok("print s @ 0,0")["reached"], false);
}

/// The end-of-main output at each pixel: `want(x, y, s)` (s: shade's value).
fn check_outputs(out: &Output, name: &str, want: impl Fn(u32, u32, f32) -> [f64; 4]) {
    assert_eq!(out.ok_n("next", 0)["finished"], true);
    for &(x, y) in PIXELS {
        let v = shade(x, y, gain(0)).v;
        check_close(out, &format!("print {name} @ {x},{y}"), &want(x, y, v));
    }
}

fn fract(v: f32) -> f64 {
    (v - v.floor()) as f64
}

#[test]
fn gles2_fragment_and_vertex_values() {
    require_workspace();
    let dir = TempDir::new("gles2");
    let npy = dir.join("v.npy");
    let want = native_checksum(&["--es", "2"], &[]);
    let script = draw_script(GLES2_LAST, &["left", "s", "p"], "gl_FragColor", &npy);
    let out = session(&["--es", "2"], None, &script, &dir);
    check_draw_common(&out, &npy, &want);
    check_gles2_fragment(&out);
}

/// A real ES 2.0 context: no float render target, so the debug shader
/// packs each value's bits into RGBA8 outputs; the values are the same.
/// (No transform feedback: the vertex stage says so, see below.)
#[test]
fn gles2_fragment_values_in_an_es20_context() {
    require_workspace();
    let dir = TempDir::new("gles20");
    let npy = dir.join("v.npy");
    let env = [("MESA_GLES_VERSION_OVERRIDE", "2.0")];
    let want = native_checksum(&["--es", "2"], &env);
    let script = fragment_script(GLES2_LAST, &["left", "s", "p"], "gl_FragColor", &npy)
        + "delete\ncontinue\n";
    let out = session(&["--es", "2"], Some("2.0"), &script, &dir);
    assert!(
        out.stdout.contains("context OpenGL ES 2.0"),
        "{}",
        out.stdout
    );
    check_fragment_common(&out, &npy);
    check_gles2_fragment(&out);
    let exit = out.ok_n("continue", 3);
    assert_eq!(exit["exited"]["code"], 0, "{exit}\n{}", out.transcript());
    assert_eq!(
        checksum(&out.stdout),
        want,
        "the frame after the debug steps vs native"
    );
}

/// Values no pixel of the quad computes, through the packed outputs of an
/// ES 2.0 context and the float outputs of Mesa's ES 3.2 context: the same
/// bits (negative zero, infinities, NaN, tiny and huge numbers).
#[test]
fn gles20_packed_values_are_bit_exact() {
    require_workspace();
    let exprs = [
        "-u_gain * 0.0",
        "u_gain * 1e38 * 100.0",
        "-u_gain * 1e38 * 100.0",
        "sqrt(-u_gain - p.x)",
        "u_gain * 1e-30 * 1e-8",
        "p.x * 1234567.0 + p.y",
        "p.x / 3.0 - p.y / 7.0",
        "exp2(p.x) * 0.5",
    ];
    let mut script =
        format!("break draw\ncontinue\ndebug fragment\nbreak {GLES2_LAST}\ncontinue\n");
    for e in exprs {
        for &(x, y) in PIXELS {
            script += &format!("print {e} @ {x},{y}\n");
        }
        // The summary counts NaN and Inf (JSON shows both as null).
        script += &format!("print {e}\n");
    }
    script += "end\ndelete\ncontinue\n";
    let runs: Vec<Output> = [None, Some("2.0")]
        .into_iter()
        .map(|v| session(&["--es", "2"], v, &script, &TempDir::new("gles20-bits")))
        .collect();
    assert!(
        runs[1].stdout.contains("context OpenGL ES 2.0"),
        "{}",
        runs[1].stdout
    );
    for e in exprs {
        for &(x, y) in PIXELS {
            let cmd = format!("print {e} @ {x},{y}");
            let (float, packed) = (runs[0].ok(&cmd), runs[1].ok(&cmd));
            assert_eq!(packed["reached"], true, "{packed}");
            assert_eq!(packed["value"], float["value"], "{cmd}: packed vs float");
        }
        let cmd = format!("print {e}");
        let (float, packed) = (runs[0].ok(&cmd), runs[1].ok(&cmd));
        assert_eq!(
            packed["summary"], float["summary"],
            "{cmd}: packed vs float"
        );
    }
    // The special values were there to carry.
    let count = |cmd: &str, key: &str| runs[1].ok(cmd)["summary"][key].as_u64();
    assert_eq!(
        count("print u_gain * 1e38 * 100.0", "inf"),
        Some(u64::from(COVERED))
    );
    assert_eq!(
        count("print sqrt(-u_gain - p.x)", "nan"),
        Some(u64::from(COVERED))
    );
}

/// What the GLES 2 app's fragment shader shows at main's last line and
/// at its end.
fn check_gles2_fragment(out: &Output) {
    // The app's own GLSL ES 1.00, no #version.
    let program = out.ok("info program");
    let fs = program["shaders"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["stage"] == "fragment"))
        .unwrap_or_else(|| panic!("{program}"));
    assert!(
        fs["source"]
            .as_str()
            .is_some_and(|s| s.starts_with("precision highp float;") && s.contains("gl_FragColor")),
        "{fs}"
    );
    assert_eq!(out.ok_n("continue", 2)["line"], GLES2_LAST);
    for &(x, y) in PIXELS {
        let s = shade(x, y, gain(0));
        let left = out.ok(&format!("print left @ {x},{y}"));
        assert_eq!(left["type"], "bool", "{left}");
        assert_eq!(
            scalar(left),
            f64::from(u8::from(s.p[0] < 32.0)),
            "left @ {x},{y}"
        );
        check_close(&out, &format!("print s @ {x},{y}"), &[s.v as f64]);
        check_close(
            &out,
            &format!("print p @ {x},{y}"),
            &[s.p[0] as f64, s.p[1] as f64],
        );
    }
    check_outputs(&out, "gl_FragColor", |x, y, v| {
        let uv = pixel_uv(x, y);
        let a = if (x as f32 + 0.5) < 32.0 { 1.0 } else { 0.5 };
        [fract(v), uv[0], uv[1], a]
    });
}

/// The GLES 3 app in Mesa's ES 3.2 context and in an ES 3.0 one.
#[test]
fn gles3_fragment_and_vertex_values() {
    require_workspace();
    for version in [None, Some("3.0")] {
        let dir = TempDir::new("gles3");
        let npy = dir.join("v.npy");
        let env: Vec<(&str, &str)> = version
            .iter()
            .map(|v| ("MESA_GLES_VERSION_OVERRIDE", *v))
            .collect();
        let want = native_checksum(&["--es", "3"], &env);
        let script = draw_script(GLES3_LAST, &["code", "cell", "s"], "frag", &npy);
        let out = session(&["--es", "3"], version, &script, &dir);
        if version.is_some() {
            assert!(
                out.stdout.contains("context OpenGL ES 3.0"),
                "{}",
                out.stdout
            );
        }
        check_draw_common(&out, &npy, &want);
        assert_eq!(out.ok_n("continue", 2)["line"], GLES3_LAST);
        for &(x, y) in PIXELS {
            let code = out.ok(&format!("print code @ {x},{y}"));
            assert_eq!(code["type"], "uint", "{code}");
            assert_eq!(scalar(code), f64::from(x * 16 + y), "code @ {x},{y}");
            let cell = out.ok(&format!("print cell @ {x},{y}"));
            assert_eq!(cell["type"], "ivec2", "{cell}");
            assert_eq!(values(cell), vec![f64::from(x / 8), f64::from(y / 8)]);
            check_close(
                &out,
                &format!("print s @ {x},{y}"),
                &[shade(x, y, gain(0)).v as f64],
            );
        }
        check_outputs(&out, "frag", |x, y, v| {
            let uv = pixel_uv(x, y);
            let code = (x * 16 + y) % 256;
            // (Multiplications by powers of two: exact on the GPU too;
            // llvmpipe's `/ 255.0` is off by 7e-5.)
            [
                fract(v),
                uv[0],
                code as f64 / 256.0,
                (x / 8 + y / 8) as f64 / 16.0,
            ]
        });
    }
}

/// The GLES 3.1 compute app in Mesa's ES 3.2 context and in an ES 3.1 one:
/// `values[i] = (x * 0.375)^2 + y` over 16 x 6 invocations.
#[test]
fn gles31_compute_values() {
    require_workspace();
    let scale = 0.375f32;
    let picks: &[[u32; 2]] = &[[0, 0], [5, 3], [15, 5], [7, 1], [12, 4]];
    for version in [None, Some("3.1")] {
        let dir = TempDir::new("gles31");
        let env: Vec<(&str, &str)> = version
            .iter()
            .map(|v| ("MESA_GLES_VERSION_OVERRIDE", *v))
            .collect();
        let want = native_checksum(&["--es", "31"], &env);
        let mut script =
            String::from("break glDispatchCompute\ncontinue\ndebug compute\nbreak 9\ncontinue\n");
        for [x, y] in picks {
            script += &format!("print y @ invocation {x},{y},0\nprint i @ invocation {x},{y},0\n");
        }
        script += "print i\nprint y\nend\ndelete\ncontinue\n";
        let out = session(&["--es", "31"], version, &script, &dir);
        let first = out.ok("debug compute");
        assert_eq!(first["line"], 6, "{first}");
        assert_eq!(first["reached"], 96, "{first}");
        assert_eq!(out.ok_n("continue", 1)["line"], 9);
        for &[x, y] in picks {
            let s = x as f32 * scale;
            check_close(
                &out,
                &format!("print y @ invocation {x},{y},0"),
                &[(s * s + y as f32) as f64],
            );
            assert_eq!(
                scalar(out.ok(&format!("print i @ invocation {x},{y},0"))),
                f64::from(y * 16 + x)
            );
        }
        let i = &out.ok("print i")["summary"];
        assert_eq!(
            (
                i["count"].as_u64(),
                i["min"][0].as_f64(),
                i["max"][0].as_f64()
            ),
            (Some(96), Some(0.0), Some(95.0)),
            "{i}"
        );
        let y = &out.ok("print y")["summary"];
        let top = 15.0f32 * scale;
        assert_close(
            y["max"][0].as_f64().unwrap(),
            (top * top + 5.0) as f64,
            TOL,
            "max y",
        );
        let exit = out.ok_n("continue", 2);
        assert_eq!(exit["exited"]["code"], 0, "{exit}\n{}", out.transcript());
        assert_eq!(
            checksum(&out.stdout),
            want,
            "the buffer after the debug step vs native"
        );
    }
}

/// A real ES 2.0 context has no transform feedback: the vertex step says
/// so before touching any state, and the app goes on as natively.
#[test]
fn gles20_vertex_step_names_what_it_lacks() {
    require_workspace();
    let env = [("MESA_GLES_VERSION_OVERRIDE", "2.0")];
    let want = native_checksum(&["--es", "2"], &env);
    let dir = TempDir::new("gles2-lacks");
    let script = "break draw\ncontinue\ndebug vertex\ndelete\ncontinue\n";
    let out = session(&["--es", "2"], Some("2.0"), script, &dir);
    let error = out.failed("debug vertex");
    assert!(
        error.contains("needs transform feedback objects")
            && error.contains("this context is OpenGL ES 2.0"),
        "{error}"
    );
    // Where the batch goes on after the failed command: the app is unharmed.
    if out
        .results()
        .iter()
        .any(|r| r["cmd"] == "continue" && r.get("exited").is_some())
    {
        assert_eq!(
            out.ok_n("continue", 1)["exited"]["code"],
            0,
            "{}",
            out.transcript()
        );
        assert_eq!(checksum(&out.stdout), want, "the frame vs native");
    }
}

/// A GL ES compute shader writing an image: the replay would write the
/// app's image and GL ES cannot copy it aside, so the step refuses and says
/// why; the app goes on.
#[test]
fn gles31_image_writes_are_refused_with_the_reason() {
    require_workspace();
    let dir = TempDir::new("gles31-image");
    let script = "break glDispatchCompute\ncontinue\ndebug compute\ndelete\ncontinue\n";
    let out = session(&["--es", "31", "--image"], None, script, &dir);
    let error = out.failed("debug compute");
    assert!(
        error.contains("image unit 0 is bound for writing")
            && error.contains("not implemented in OpenGL ES contexts"),
        "{error}"
    );
    if out
        .results()
        .iter()
        .any(|r| r["cmd"] == "continue" && r.get("exited").is_some())
    {
        assert_eq!(
            out.ok_n("continue", 1)["exited"]["code"],
            0,
            "{}",
            out.transcript()
        );
    }
}

/// Every stage of an ES 3.2 pipeline (GLSL ES 3.20 vertex, tess-control,
/// tess-eval, geometry, fragment; `egl_gles --es 32`): values against the
/// shaders' formulas. The vertex and tess-eval steps link a placeholder
/// fragment shader (GL ES fails a link where the app's fragment inputs
/// have no output of the stages the step leaves out).
#[test]
fn gles32_every_stage() {
    require_workspace();
    let dir = TempDir::new("gles32");
    let want = native_checksum(&["--es", "32"], &[]);
    let mut script = String::from("break draw\ncontinue\ndebug tess-control\nnext\n");
    for n in 0..6 {
        script += &format!("print k @ vertex {n}\n");
    }
    script += "end\ndebug tess-eval\nnext\nnext\n";
    for n in 0..36 {
        script += &format!("print w @ vertex {n}\nprint c @ vertex {n}\n");
    }
    script += "end\ndebug geometry\nbreak 9\ncontinue\nprint s\n\
               print s - (te_value[i] * 2.0 + float(gl_PrimitiveIDIn))\nend\n\
               debug fragment\nnext\nprint f\nend\ndebug vertex\nfinish\n";
    for n in 0..6 {
        script += &format!("print gl_Position @ vertex {n}\n");
    }
    script += "end\ndelete\ncontinue\n";
    let out = session(&["--es", "32"], None, &script, &dir);
    // tess-control: k = invocation + 1 + 10 * patch.
    for n in 0..6u32 {
        let k = scalar(out.ok(&format!("print k @ vertex {n}")));
        assert_eq!(k, f64::from(n % 3 + 1 + 10 * (n / 3)), "k @ vertex {n}");
    }
    // tess-eval: w = the patch's weights at gl_TessCoord (18 vertices a patch).
    assert_eq!(out.ok("debug tess-eval")["reached"], 36);
    for n in 0..36u32 {
        let c = values(out.ok(&format!("print c @ vertex {n}")));
        assert_close(c.iter().sum(), 1.0, 1e-6, "barycentric");
        let base = f64::from(10 * (n / 18));
        let want = c[0] * (base + 1.0) + c[1] * (base + 2.0) + c[2] * (base + 3.0);
        check_close(&out, &format!("print w @ vertex {n}"), &[want]);
    }
    // geometry: s = 2 * te_value[i] + gl_PrimitiveIDIn, every emission.
    let s = &out.ok("print s")["summary"];
    assert!(s["count"].as_u64().unwrap_or(0) > 0, "{s}");
    let diff = &out.ok("print s - (te_value[i] * 2.0 + float(gl_PrimitiveIDIn))")["summary"];
    assert_eq!(
        (diff["min"][0].as_f64(), diff["max"][0].as_f64()),
        (Some(0.0), Some(0.0)),
        "{diff}"
    );
    // fragment: every fragment of the quad.
    assert_eq!(out.ok("print f")["summary"]["count"], COVERED);
    // vertex: gl_Position is the quad's vertex.
    for n in 0..6 {
        let uv = vertex_uv(n);
        let want = [uv[0] * 2.0 - 1.0, uv[1] * 2.0 - 1.0, 0.0, 1.0];
        check_close(&out, &format!("print gl_Position @ vertex {n}"), &want);
    }
    let exit = out.ok_n("continue", 2);
    assert_eq!(exit["exited"]["code"], 0, "{exit}\n{}", out.transcript());
    assert_eq!(
        checksum(&out.stdout),
        want,
        "the frame after the debug steps vs native"
    );
}
