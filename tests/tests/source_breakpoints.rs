//! Source breakpoints (issue 15) on the real driver, with egl_files (its
//! shaders read from tests/apps/shaders/ and passed to the driver after a
//! prefix: wave.frag's file line N is shader line N + 2; wave.vert has a
//! `#line 1`). Values are checked against a CPU model of wave.frag:
//! * `break wave.frag:24` stops at draw 2 of frame 1 (line 24 runs only
//!   where u_mode is 1), focused on the first hit, with the locals of that
//!   invocation; stops, frames and listings give the file line;
//! * a condition picks the first invocation (in invocation order: every
//!   invocation reaches the line at the same record) that meets it;
//! * the ignore count counts executions over all draws (gRPC: 4096
//!   executions per draw 2 land the stop in frame 2), and `SetSourceFiles`
//!   / `ListShaders` map and list the shaders;
//! * a line of wave.vert (the `#line 1` prefix) maps in the vertex stage;
//! * a file no shader holds stays unverified and the app runs to its end
//!   with the native run's framebuffer hash; a missing file is an error;
//! * log points (printf style and DAP `{EXPR}` text) print every
//!   invocation's message at each matching draw, the app's hash unchanged;
//! * `tbreak FILE:LINE` stops once;
//! * a line of egl_compute's compute shader (written to a file) stops at
//!   the dispatch, in the compute stage, with the invocation's locals;
//! * a source breakpoint set while stopped at a GL breakpoint on the draw
//!   that reaches it stops at that draw (it is checked before resuming);
//! * `tbreak` is one-shot inside its draw too; an ignore count focuses
//!   the execution it lands on (counted invocation by invocation);
//! * egl_srcbp: a fixed-function draw is no match, a file line is exactly
//!   its own steps (not the library's code `#line` numbers the same), a
//!   line in an inactive `#ifdef` region holds no breakpoint.

use std::path::PathBuf;
use std::time::Duration;

use gldbg_proto::pb;
use gldbg_tests::*;
use serde_json::Value;

mod support;

/// egl_srcbp's edge cases and `#include`.
#[path = "source_breakpoints/edges.rs"]
mod edges;

/// Fragments of the 64x64 target: every one reaches line 24 at draw 2.
const PIXELS: u64 = 64 * 64;

fn egl_files() -> PathBuf {
    let built = PathBuf::from(env!("GLDBG_APP_EGL_FILES"));
    if built.exists() {
        built
    } else {
        target_dir().join("apps").join("egl_files")
    }
}

fn shader_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("apps/shaders")
}

fn frag() -> String {
    shader_dir().join("wave.frag").display().to_string()
}

fn vert() -> String {
    shader_dir().join("wave.vert").display().to_string()
}

/// wave.frag's `p` at pixel (x, y): gl_FragCoord.xy / 64 - 0.5.
fn p_at(x: u32, y: u32) -> (f64, f64) {
    (
        (f64::from(x) + 0.5) / 64.0 - 0.5,
        (f64::from(y) + 0.5) / 64.0 - 0.5,
    )
}

/// wave.frag's `acc` at line 24 (before the halving): the three ripples,
/// fract(dot(p,p) * k), k = (i+1) * 0.625. Exact in float32 (binary
/// fractions), so it compares exactly.
fn acc_at(x: u32, y: u32) -> f64 {
    let (px, py) = p_at(x, y);
    let d = px * px + py * py;
    (0..3)
        .map(|i| {
            let v = d * f64::from(i + 1) * 0.625;
            v - v.floor()
        })
        .sum()
}

/// The framebuffer hash the app printed ("egl_files: frames N, hash H").
fn app_hash(text: &str) -> String {
    text.lines()
        .find_map(|l| l.strip_prefix("egl_files: "))
        .unwrap_or_else(|| panic!("no egl_files result line in {text:?}"))
        .to_string()
}

fn native_hash() -> String {
    let dir = shader_dir();
    app_hash(&run_native(&egl_files(), &[dir.to_str().unwrap()], &[]).stdout)
}

/// A session of `script` on egl_files reading the committed shaders.
fn session(script: &str, dir: &TempDir) -> Output {
    Session::new(egl_files(), script)
        .args([shader_dir().display().to_string()])
        .run(dir)
}

fn locals(v: &Value) -> Vec<(String, Vec<f64>)> {
    v["locals"]
        .as_array()
        .unwrap_or_else(|| panic!("no locals: {v}"))
        .iter()
        .map(|l| (l["name"].as_str().unwrap().to_string(), values(l)))
        .collect()
}

fn local(v: &Value, name: &str) -> Vec<f64> {
    locals(v)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no local {name} in {v}"))
        .1
}

fn f32s(v: &[f64]) -> Vec<f32> {
    v.iter().map(|x| *x as f32).collect()
}

#[test]
fn a_file_line_stops_at_the_draw_that_reaches_it() {
    require_workspace();
    let dir = TempDir::new("source-break");
    let script = format!(
        "break {f}:24\ninfo breakpoints\ncontinue\ninfo locals\nprint acc @ 10,20\nbacktrace\nlist\n\
         info breakpoints\nend\ncontinue\nend\ndelete 1\ncontinue\n",
        f = frag()
    );
    let out = session(&script, &dir);
    let t = out.transcript();
    let set = out.ok(&format!("break {}:24", frag()));
    let src = &set["breakpoint"]["source"];
    assert_eq!(src["line"], 24, "{t}");
    assert_eq!(src["verified"], false, "no shader yet: {set}");
    assert!(
        src["message"].as_str().unwrap().contains("no shader"),
        "{set}"
    );

    // Draw 1 (u_mode 0) never reaches line 24: the stop is draw 2.
    let stop = out.ok_n("continue", 0);
    assert_eq!(stop["stopped"]["function"], "glDrawArrays", "{t}");
    assert_eq!(
        (
            stop["stopped"]["draw"].clone(),
            stop["stopped"]["frame"].clone()
        ),
        (2.into(), 1.into()),
        "{t}"
    );
    assert_eq!(stop["breakpoint"], 1, "{t}");
    let sh = &stop["shader"];
    assert_eq!(sh["stage"], "fragment", "{t}");
    // Shader line 26 is file line 24 (the app's two-line prefix).
    assert_eq!(
        (
            sh["line"].clone(),
            sh["file"].clone(),
            sh["file_line"].clone()
        ),
        (26.into(), frag().into(), 24.into()),
        "{t}"
    );
    assert_eq!(sh["text"], "acc = acc * 0.5;", "{t}");
    assert_eq!(sh["hits"]["invocations"], PIXELS, "{t}");
    assert_eq!(sh["hits"]["executions"], PIXELS, "{t}");
    // Every fragment reaches it at the same record: the first in invocation order.
    assert_eq!(sh["focus"], serde_json::json!({"x": 0, "y": 0}), "{t}");
    assert!(sh["trace"].is_object(), "traced: {sh}");

    let l = out.ok("info locals");
    let (px, py) = p_at(0, 0);
    assert_eq!(f32s(&local(l, "p")), f32s(&[px, py]), "{l}");
    assert_eq!(f32s(&local(l, "acc")), f32s(&[acc_at(0, 0)]), "{l}");
    let p = out.ok("print acc @ 10,20");
    assert_eq!(scalar(p) as f32, acc_at(10, 20) as f32, "{p}");

    let bt = out.ok("backtrace");
    assert_eq!(bt["frames"][0]["line"], 26, "{bt}");
    assert_eq!(bt["frames"][0]["file"], frag(), "{bt}");
    assert_eq!(bt["frames"][0]["file_line"], 24, "{bt}");
    let list = out.ok("list");
    let lines = list["lines"].as_array().unwrap();
    assert!(!lines.is_empty(), "{list}");
    for l in lines {
        // Every line listed here is the file's, two below the shader's.
        assert_eq!(
            l["file_line"].as_u64().unwrap() + 2,
            l["line"].as_u64().unwrap(),
            "{l}"
        );
        assert_eq!(l["file"], frag(), "{l}");
    }
    let current: Vec<&Value> = lines.iter().filter(|l| l["current"] == true).collect();
    assert_eq!(current.len(), 1, "{list}");
    assert_eq!(current[0]["file_line"], 24, "{list}");

    let info = out.ok_n("info breakpoints", 1);
    let b = &info["breakpoints"][0];
    assert_eq!(
        (b["id"].clone(), b["hits"].clone()),
        (1.into(), 1.into()),
        "{info}"
    );
    assert_eq!(b["source"]["verified"], true, "{info}");
    let shaders = b["source"]["shaders"].as_array().unwrap();
    assert!(
        shaders.len() == 1 && shaders[0].as_str().unwrap().contains("fragment"),
        "{info}"
    );

    // The next stop is frame 2's draw 2 (draw 4).
    let again = out.ok_n("continue", 1);
    assert_eq!(
        (
            again["stopped"]["draw"].clone(),
            again["stopped"]["frame"].clone()
        ),
        (4.into(), 2.into()),
        "{t}"
    );
    assert_eq!(again["shader"]["file_line"], 24, "{t}");
    // Deleted: the app runs to its end, its frame as a native run's.
    let end = out.ok_n("continue", 2);
    assert_eq!(end["state"], "exited", "{t}");
    assert_eq!(app_hash(&out.stdout), native_hash(), "{t}");
}

#[test]
fn a_condition_picks_the_first_invocation_that_meets_it() {
    require_workspace();
    let dir = TempDir::new("source-cond");
    let cond = "acc > 1.5 && p.x > 0.0";
    // GL breakpoints at both draws: draw 1's stop is theirs (its shader
    // never reaches line 24); at draw 2 the source breakpoint stops too.
    let script = format!(
        "break draw 1\nbreak draw 2\nbreak {f}:24 if {cond}\ncontinue\ncontinue\ninfo locals\n         break {f}:24 if nosuch > 1.0\n",
        f = frag()
    );
    let out = session(&script, &dir);
    let t = out.transcript();
    let meets = |x: u32, y: u32| acc_at(x, y) > 1.5 && p_at(x, y).0 > 0.0;
    let all: Vec<(u32, u32)> = (0..64).flat_map(|y| (0..64).map(move |x| (x, y))).collect();
    let first = *all
        .iter()
        .find(|(x, y)| meets(*x, *y))
        .expect("the model has a hit");
    let count = all.iter().filter(|(x, y)| meets(*x, *y)).count();
    let gl = out.ok_n("continue", 0);
    assert_eq!(
        (gl["stopped"]["draw"].clone(), gl["breakpoint"].clone()),
        (1.into(), 1.into()),
        "{t}"
    );
    assert!(gl.get("shader").is_none(), "{t}");
    let stop = out.ok_n("continue", 1);
    assert_eq!(
        (stop["stopped"]["draw"].clone(), stop["breakpoint"].clone()),
        (2.into(), 3.into()),
        "{t}"
    );
    let sh = &stop["shader"];
    assert_eq!(
        sh["focus"],
        serde_json::json!({"x": first.0, "y": first.1}),
        "{t}"
    );
    assert_eq!(sh["hits"]["invocations"], count as u64, "{t}");
    let l = out.ok("info locals");
    let acc = local(l, "acc")[0];
    assert_eq!(acc as f32, acc_at(first.0, first.1) as f32, "{l}");
    assert!(acc > 1.5, "the focused invocation meets the condition: {l}");
    // The shader is known now: a condition it cannot evaluate says why.
    let bad = out.ok(&format!("break {}:24 if nosuch > 1.0", frag()));
    let src = &bad["breakpoint"]["source"];
    assert_eq!(src["verified"], false, "{bad}");
    assert!(src["message"].as_str().unwrap().contains("nosuch"), "{bad}");
}

#[test]
fn a_line_of_the_vertex_file_maps_through_its_line_directive() {
    require_workspace();
    let dir = TempDir::new("source-vert");
    let script = format!(
        "tbreak {}:8\ncontinue\nnext\ninfo locals\nlist\nend\ncontinue\n",
        vert()
    );
    let out = session(&script, &dir);
    let t = out.transcript();
    let stop = out.ok_n("continue", 0);
    assert_eq!(
        stop["stopped"]["draw"], 1,
        "the vertex shader runs at draw 1: {t}"
    );
    let sh = &stop["shader"];
    assert_eq!(sh["stage"], "vertex", "{t}");
    // `#line 1` after the prefix: the driver's lines are the file's.
    assert_eq!(
        (sh["line"].clone(), sh["file_line"].clone()),
        (8.into(), 8.into()),
        "{t}"
    );
    assert_eq!(sh["focus"], serde_json::json!({"vertex": 0}), "{t}");
    // Vertex 0 of the quad is (-1, -1); u_scale is 1.
    let l = out.ok("info locals");
    assert_eq!(local(l, "q"), vec![-1.0, -1.0], "{l}");
    let list = out.ok("list");
    for l in list["lines"].as_array().unwrap() {
        assert_eq!(l["file_line"], l["line"], "{l}");
        assert_eq!(l["file"], vert(), "{l}");
    }
    // tbreak: gone after its stop; the app runs to its end untouched.
    assert_eq!(out.ok_n("continue", 1)["state"], "exited", "{t}");
    assert_eq!(app_hash(&out.stdout), native_hash(), "{t}");
}

#[test]
fn a_file_no_shader_holds_stays_pending_and_the_app_runs_untouched() {
    require_workspace();
    let dir = TempDir::new("source-none");
    let other = dir.join("other.frag");
    std::fs::write(&other, "void main() {\n    gl_FragColor = vec4(1.0);\n}\n").unwrap();
    let script = format!("break {}:2\ncontinue\ninfo breakpoints\n", other.display());
    let out = session(&script, &dir);
    let t = out.transcript();
    assert_eq!(out.ok("continue")["state"], "exited", "{t}");
    let info = out.ok("info breakpoints");
    let src = &info["breakpoints"][0]["source"];
    assert_eq!(src["verified"], false, "{info}");
    assert!(
        src["message"].as_str().unwrap().contains("no shader"),
        "{info}"
    );
    assert_eq!(info["breakpoints"][0]["hits"], 0, "{info}");
    assert_eq!(app_hash(&out.stdout), native_hash(), "{t}");

    // A file that does not exist: an error naming it.
    let missing = dir.join("missing.frag").display().to_string();
    let out = Session::new(egl_files(), &format!("break {missing}:3\n"))
        .keep_going()
        .args([shader_dir().display().to_string()])
        .run(&dir);
    let e = out.failed(&format!("break {missing}:3"));
    assert!(e.contains(&missing) && e.contains("cannot read"), "{e}");
}

#[test]
fn log_points_print_every_invocation_and_the_app_never_notices() {
    require_workspace();
    let dir = TempDir::new("source-log");
    let printf = format!(
        "dprintf {}:24,\"acc=%f at %d\",acc,int(gl_FragCoord.x)",
        frag()
    );
    let dap = format!("dprintf {}:24,\"p={{p}} acc={{acc}}\"", frag());
    let script = format!("{printf}\n{dap}\ncontinue\ninfo breakpoints\n");
    let out = session(&script, &dir);
    let t = out.transcript();
    assert_eq!(
        out.ok("continue")["state"],
        "exited",
        "log points never stop: {t}"
    );
    assert_eq!(app_hash(&out.stdout), native_hash(), "{t}");
    let messages: Vec<&Value> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "dprintf")
        .collect();
    // Two log points, two frames, the replay's limit per draw (1024 of 4096).
    let limit = 1024usize.min(PIXELS as usize);
    assert_eq!(messages.len(), 2 * 2 * limit, "{}", messages.len());
    let (mut printf_seen, mut dap_seen) = (0, 0);
    for m in &messages {
        let x = m["invocation"]["x"].as_u64().unwrap() as u32;
        let y = m["invocation"]["y"].as_u64().unwrap() as u32;
        let text = m["text"].as_str().unwrap();
        let acc = acc_at(x, y) as f32;
        if text.starts_with("acc=") {
            printf_seen += 1;
            assert_eq!(text, format!("acc={:.6} at {x}", acc), "{m}");
        } else {
            dap_seen += 1;
            // `{EXPR}`: %g of each component (a vec2: "x, y"), six significant digits.
            let (px, py) = p_at(x, y);
            let nums: Vec<f64> = text
                .trim_start_matches("p=")
                .split([',', ' ', '='])
                .filter_map(|w| w.parse().ok())
                .collect();
            let want = [px, py, f64::from(acc)];
            assert_eq!(nums.len(), 3, "{text}");
            for (got, want) in nums.iter().zip(want) {
                assert!(
                    (got - want).abs() <= 5e-6 * want.abs().max(1e-3),
                    "{text}: {got} vs {want}"
                );
            }
            assert!(text.contains(" acc="), "{text}");
        }
    }
    assert_eq!((printf_seen, dap_seen), (2 * limit, 2 * limit), "{t}");
    let info = out.ok("info breakpoints");
    for b in info["breakpoints"].as_array().unwrap() {
        assert_eq!(b["hits"], 2, "one hit per matching draw: {b}");
        assert_eq!(b["source"]["verified"], true, "{b}");
    }
    // Messages past the limit are counted at every draw they were dropped
    // at: two log points, two draws each.
    let dropped: Vec<&Value> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "warning" && e.to_string().contains("were dropped"))
        .collect();
    assert_eq!(dropped.len(), 4, "{dropped:?}");
    for id in [1, 2] {
        assert!(
            dropped.iter().any(|w| w
                .to_string()
                .contains(&format!("log point {id}: {} more", PIXELS - 1024))),
            "{dropped:?}"
        );
    }
}

// ---------------------------------------------------------------------------
// The gRPC API: ignore counts over draws, SetSourceFiles, ListShaders

const TOKEN: &str = "source-breakpoints-token";

use support::grpc::Client;

/// A client of the daemon at `socket`, with this file's token.
async fn client(socket: PathBuf) -> Client {
    support::grpc::client(socket, TOKEN).await
}

/// A daemon of its own (in a temporary directory) with egl_files launched
/// through it (`frames`: its `--frames`, None: the default), and a client.
async fn launched(tag: &str, frames: Option<&str>) -> (TempDir, UnixDaemon, Client) {
    let dir = TempDir::new(tag);
    let socket = dir.join("d.sock");
    let daemon = start_unix_daemon(&socket, &[("GLDBG_TOKEN", TOKEN)]);
    let mut c = client(socket.clone()).await;
    let mut args: Vec<String> = frames
        .map(|n| vec!["--frames".to_string(), n.to_string()])
        .unwrap_or_default();
    args.push(shader_dir().display().to_string());
    let launch = pb::LaunchRequest {
        program: egl_files().display().to_string(),
        args,
        ..Default::default()
    };
    c.launch(launch).await.expect("Launch");
    (dir, daemon, c)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ignore_counts_executions_over_draws_and_shaders_are_listed() {
    require_workspace();
    let (_dir, _daemon, mut c) = launched("source-grpc", Some("3")).await;
    let frag_text = std::fs::read_to_string(frag()).unwrap();
    let vert_text = std::fs::read_to_string(vert()).unwrap();
    // The vertex shader named by its object later; a file of text first.
    c.set_source_files(pb::SourceFiles {
        files: vec![pb::SourceFile {
            path: "wave.frag".into(),
            text: frag_text.clone(),
            shader: String::new(),
        }],
    })
    .await
    .expect("SetSourceFiles");
    // A bad shader name is refused.
    let bad = c
        .set_source_files(pb::SourceFiles {
            files: vec![pb::SourceFile {
                path: "x".into(),
                text: String::new(),
                shader: "my label".into(),
            }],
        })
        .await;
    assert_eq!(bad.unwrap_err().code(), tonic::Code::InvalidArgument);
    // Frame 1's draw 2 has 4096 executions: ignoring them stops in frame 2.
    let spec = pb::SourceBreakpoint {
        file: "wave.frag".into(),
        line: 24,
        ignore: PIXELS,
        ..Default::default()
    };
    let bp = c
        .add_breakpoint(pb::BreakpointSpec {
            kind: Some(pb::breakpoint_spec::Kind::Source(spec)),
        })
        .await
        .expect("AddBreakpoint")
        .into_inner();
    assert_eq!(
        bp.source.as_ref().unwrap().text,
        frag_text,
        "the registered file's text"
    );
    let r = tokio::time::timeout(Duration::from_secs(120), c.r#continue(pb::Empty {}))
        .await
        .expect("Continue in time")
        .expect("Continue")
        .into_inner();
    let stop = r.stop.as_ref().expect("a stop");
    assert_eq!(
        (stop.draw, stop.frame, r.breakpoint_id),
        (4, 2, bp.id),
        "{r:?}"
    );
    let sh = r.shader.as_ref().expect("the shader stop");
    let loc = sh.source.as_ref().expect("mapped");
    assert_eq!(
        (loc.file.as_str(), loc.line, sh.line),
        ("wave.frag", 24, 26),
        "{sh:?}"
    );

    let list = c
        .list_shaders(pb::Empty {})
        .await
        .expect("ListShaders")
        .into_inner();
    assert_eq!(list.shaders.len(), 2, "{list:?}");
    let fs = list
        .shaders
        .iter()
        .find(|s| s.stage == "fragment")
        .expect("fragment");
    let vs = list
        .shaders
        .iter()
        .find(|s| s.stage == "vertex")
        .expect("vertex");
    assert_eq!(
        fs.text,
        format!("#version 330 core\n#define MODE_HALF 1\n{frag_text}")
    );
    assert_eq!(vs.text, format!("#version 330 core\n#line 1\n{vert_text}"));
    assert_eq!(
        sh.shader, fs.shader,
        "the stop names the fragment shader object"
    );
    assert_eq!(fs.file.as_ref().map(|f| f.file.as_str()), Some("wave.frag"));
    assert!(vs.file.is_none(), "{vs:?}");
    assert!(
        !fs.programs.is_empty() && fs.programs == vs.programs,
        "{list:?}"
    );
    // Named by its object, the vertex shader maps line for line.
    c.set_source_files(pb::SourceFiles {
        files: vec![pb::SourceFile {
            path: "vs.glsl".into(),
            text: String::new(),
            shader: format!("shader {}", vs.shader),
        }],
    })
    .await
    .expect("SetSourceFiles by shader");
    let list = c.list_shaders(pb::Empty {}).await.unwrap().into_inner();
    let vs2 = list.shaders.iter().find(|s| s.stage == "vertex").unwrap();
    assert_eq!(vs2.file.as_ref().map(|f| f.file.as_str()), Some("vs.glsl"));
    // The breakpoint's own file still maps the fragment shader.
    let fs2 = list.shaders.iter().find(|s| s.stage == "fragment").unwrap();
    assert_eq!(
        fs2.file.as_ref().map(|f| f.file.as_str()),
        Some("wave.frag")
    );
    // `debug vertex` at this draw: its lines are vs.glsl's, one to one
    // (the `#line 1` does not matter: the file is the whole source).
    c.end_debug(pb::Empty {}).await.expect("EndDebug");
    let v = c
        .debug_shader(pb::DebugShaderRequest {
            stage: "vertex".into(),
            ..Default::default()
        })
        .await
        .expect("DebugShader")
        .into_inner();
    assert_eq!(v.shader, vs.shader, "{v:?}");
    let loc = v.source.as_ref().expect("mapped by SetSourceFiles");
    // main's first step: driver line 8 (after `#line 1`), source line 10.
    assert_eq!(
        (loc.file.as_str(), loc.line, v.line),
        ("vs.glsl", 10, 8),
        "{v:?}"
    );
    c.kill(pb::Empty {}).await.expect("Kill");
}

#[test]
fn a_file_line_in_a_compute_shader_stops_at_the_dispatch() {
    require_workspace();
    let dir = TempDir::new("source-compute");
    // egl_compute's compute shader after its `#version` line, as a file of
    // the user's: file line N is shader line N + 1.
    let cs = c_string_constant(
        include_str!("../apps/egl_compute.c"),
        "egl_compute.c",
        "COMPUTE_CS",
    );
    let body = cs
        .strip_prefix("#version 430\n")
        .expect("the version line first");
    let file = dir.join("shade.comp");
    std::fs::write(&file, body).unwrap();
    // `result[idx] = v + float(n - idx % 5u);` is shader line 28.
    let script = format!(
        "break {}:27 if idx == 300u\ncontinue\ninfo locals\nkill\n",
        file.display()
    );
    let out = Session::new(egl_compute(), &script).run(&dir);
    let t = out.transcript();
    let stop = out.ok("continue");
    assert!(
        stop["stopped"]["function"]
            .as_str()
            .unwrap()
            .starts_with("glDispatchCompute"),
        "{t}"
    );
    let sh = &stop["shader"];
    assert_eq!(sh["stage"], "compute", "{t}");
    assert_eq!(
        (sh["line"].clone(), sh["file_line"].clone()),
        (28.into(), 27.into()),
        "{t}"
    );
    // Invocation 300: g = (300 % 32, 300 / 32 % 8, 300 / 256).
    assert_eq!(
        sh["focus"],
        serde_json::json!({"x": 12, "y": 1, "z": 1}),
        "{t}"
    );
    assert_eq!(sh["hits"]["invocations"], 1, "{t}");
    let l = out.ok("info locals");
    assert_eq!(local(l, "idx"), vec![300.0], "{l}");
    assert_eq!(local(l, "v")[0] as f32, compute::shade(300), "{l}");
    assert_eq!(local(l, "n"), vec![f64::from(300 % 5)], "{l}");
}

#[test]
fn a_breakpoint_set_at_a_gl_stop_is_checked_at_that_draw() {
    require_workspace();
    let dir = TempDir::new("source-here");
    // Stopped at draw 2 (a GL breakpoint), the file line is set: draw 2
    // reaches it, so continue stops there, not at frame 2's draw 4.
    let script = format!(
        "break draw 2\ncontinue\nbreak {f}:24\ncontinue\ninfo locals\n",
        f = frag()
    );
    let out = session(&script, &dir);
    let t = out.transcript();
    let gl = out.ok_n("continue", 0);
    assert_eq!(
        (gl["stopped"]["draw"].clone(), gl["breakpoint"].clone()),
        (2.into(), 1.into()),
        "{t}"
    );
    let stop = out.ok_n("continue", 1);
    assert_eq!(
        (
            stop["stopped"]["draw"].clone(),
            stop["stopped"]["frame"].clone(),
            stop["breakpoint"].clone()
        ),
        (2.into(), 1.into(), 2.into()),
        "{t}"
    );
    let sh = &stop["shader"];
    assert_eq!(
        (sh["file_line"].clone(), sh["focus"].clone()),
        (24.into(), serde_json::json!({"x": 0, "y": 0})),
        "{t}"
    );
    let l = out.ok("info locals");
    assert_eq!(f32s(&local(l, "acc")), f32s(&[acc_at(0, 0)]), "{l}");
}

#[test]
fn a_tbreak_stops_once_inside_its_draw_too() {
    require_workspace();
    let dir = TempDir::new("source-tbreak");
    // Line 21 runs three times per invocation (the loop): the tbreak stops
    // at the first, and the shader's continue goes on past the others.
    let script = format!("tbreak {f}:21\ncontinue\ncontinue\n", f = frag());
    let out = session(&script, &dir);
    let t = out.transcript();
    let stop = out.ok_n("continue", 0);
    assert_eq!(stop["stopped"]["draw"], 1, "{t}");
    let sh = &stop["shader"];
    assert_eq!(
        (sh["file_line"].clone(), sh["iterations"].clone()),
        (21.into(), serde_json::json!([0])),
        "{t}"
    );
    // The invocation runs to its end: no breakpoint stops it again.
    let next = out.ok_n("continue", 1);
    assert!(
        next.get("breakpoint_line").is_none(),
        "the tbreak stopped again in its draw: {t}"
    );
    assert_eq!(next["finished"], true, "{t}");
    assert_eq!(
        next["trace"]["record"].as_u64().unwrap() + 1,
        next["trace"]["records"].as_u64().unwrap(),
        "at the run's last record: {t}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ignore_count_focuses_the_execution_it_lands_on() {
    require_workspace();
    let (_dir, _daemon, mut c) = launched("source-ignore-focus", None).await;
    // Line 21 runs 3 times per invocation: draw 1 has 3 * 4096
    // executions; 5 more are pixel (0, 0)'s three and pixel (1, 0)'s
    // first two at draw 2: the stop is pixel (1, 0)'s third (i = 2).
    let spec = pb::SourceBreakpoint {
        file: "wave.frag".into(),
        text: std::fs::read_to_string(frag()).unwrap(),
        line: 21,
        ignore: 3 * PIXELS + 5,
        ..Default::default()
    };
    c.add_breakpoint(pb::BreakpointSpec {
        kind: Some(pb::breakpoint_spec::Kind::Source(spec)),
    })
    .await
    .expect("AddBreakpoint");
    let r = tokio::time::timeout(Duration::from_secs(120), c.r#continue(pb::Empty {}))
        .await
        .expect("Continue in time")
        .expect("Continue")
        .into_inner();
    let stop = r.stop.as_ref().expect("a stop");
    assert_eq!((stop.draw, stop.frame), (2, 1), "{r:?}");
    let sh = r.shader.as_ref().expect("the shader stop");
    assert_eq!(sh.iterations, vec![2], "{sh:?}");
    let pixel = |x, y| pb::Invocation {
        kind: Some(pb::invocation::Kind::Pixel(pb::Pixel { x, y })),
    };
    assert_eq!(sh.focus, Some(pixel(1, 0)), "{sh:?}");
    let v = c
        .print(pb::PrintRequest {
            expr: "acc".into(),
            at: Some(pixel(1, 0)),
        })
        .await
        .expect("Print")
        .into_inner();
    // Before the third ripple: the first two, k = 0.625 and 1.25.
    let (px, py) = p_at(1, 0);
    let d = px * px + py * py;
    let want: f64 = [0.625, 1.25]
        .iter()
        .map(|k| (d * k) - (d * k).floor())
        .sum();
    assert_eq!(v.value, vec![want], "{v:?}");
    c.kill(pb::Empty {}).await.expect("Kill");
}

#[test]
fn two_breakpoints_reached_in_one_draw_both_stop() {
    require_workspace();
    let dir = TempDir::new("source-two");
    // wave.vert:8 runs at every draw, wave.frag:24 at draw 2: at draw 2
    // the vertex stop comes first, and leaving it checks the fragment
    // stage of the same draw before it runs.
    let script = format!(
        "break {v}:8\nbreak {f}:24\ncontinue\nend\ncontinue\nend\ncontinue\ninfo locals\n",
        v = vert(),
        f = frag()
    );
    let out = session(&script, &dir);
    let t = out.transcript();
    let stops: Vec<(Value, Value, Value)> = (0..3)
        .map(|i| {
            let s = out.ok_n("continue", i);
            (
                s["stopped"]["draw"].clone(),
                s["breakpoint"].clone(),
                s["shader"]["stage"].clone(),
            )
        })
        .collect();
    assert_eq!(
        stops,
        vec![
            (1.into(), 1.into(), "vertex".into()),
            (2.into(), 1.into(), "vertex".into()),
            (2.into(), 2.into(), "fragment".into()),
        ],
        "{t}"
    );
    let l = out.ok("info locals");
    assert_eq!(f32s(&local(l, "acc")), f32s(&[acc_at(0, 0)]), "{l}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pause_during_the_checks_of_a_continue_stops_at_a_draw() {
    require_workspace();
    let (_dir, _daemon, mut c) = launched("source-pause", Some("100000")).await;
    // Never met (acc < 1.5 everywhere): every draw 2 is checked, the
    // continue goes on and on, spending most of its time in checks.
    let spec = pb::SourceBreakpoint {
        file: "wave.frag".into(),
        text: std::fs::read_to_string(frag()).unwrap(),
        line: 24,
        condition: "acc > 100.0".into(),
        ..Default::default()
    };
    c.add_breakpoint(pb::BreakpointSpec {
        kind: Some(pb::breakpoint_spec::Kind::Source(spec)),
    })
    .await
    .expect("AddBreakpoint");
    let mut cont = c.clone();
    let running = tokio::spawn(async move { cont.r#continue(pb::Empty {}).await });
    tokio::time::sleep(Duration::from_millis(1500)).await;
    for _ in 0..5 {
        let s = c.get_state(pb::Empty {}).await.unwrap().into_inner();
        assert_eq!(
            s.state,
            pb::RunState::Running as i32,
            "checks are running: {s:?}"
        );
        assert!(s.stop.is_none(), "{s:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let p = tokio::time::timeout(Duration::from_secs(60), c.pause(pb::Empty {}))
        .await
        .expect("Pause in time")
        .expect("Pause")
        .into_inner();
    assert_eq!(p.state, pb::RunState::Stopped as i32, "{p:?}");
    let r = tokio::time::timeout(Duration::from_secs(60), running)
        .await
        .expect("Continue ends")
        .unwrap()
        .expect("Continue")
        .into_inner();
    assert_eq!(r.state, pb::RunState::Stopped as i32, "{r:?}");
    // The pause's stop is the continue's (the draw being checked, or,
    // where the pause came between two checks, wherever the app was), and
    // the app stays there.
    let at = |s: &pb::StateReply| s.stop.as_ref().map(|c| (c.call, c.draw, c.paused));
    assert!(at(&p).is_some(), "a stop: {p:?}");
    assert_eq!(at(&p), at(&r), "{p:?} / {r:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    let s = c.get_state(pb::Empty {}).await.unwrap().into_inner();
    assert_eq!(at(&s), at(&p), "still there: {s:?}");
    c.kill(pb::Empty {}).await.expect("Kill");
}
