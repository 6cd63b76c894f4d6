//! The preload for real: a small EGL surfaceless GL 3.3 app (`apps/tri.c`,
//! every function through `eglGetProcAddress`) runs with `LD_PRELOAD`, and
//! this test plays the daemon with the daemon's own shared-memory peer
//! (`debugd/src/shm.rs`, compiled in here): stop at `glDrawArrays`, query the
//! program, run fragment steps with a hand-written debug shader, check the
//! pixels, continue, and check the app's output is unchanged.
//!
//! Needs a C compiler, Mesa's EGL (surfaceless platform) and Xvfb (the GLX
//! test fails naming the package when it is missing). Run after
//! `cargo build -p gldbg-preload` (the test loads target/debug/libgldbg_preload.so).

mod support;

use gldbg_proto::api::function_id;
use gldbg_proto::shm::{
    self as abi, FragmentStepReply, FragmentStepRequest, OutputRef, ProgramReply, ShaderRef,
};
use gldbg_tests::{Xvfb, compile_c};
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;
use std::time::{Duration, Instant};
use support::daemon_shm::{self, SharedMemory};
use support::{build_app, command_for};

const T: Duration = Duration::from_secs(20);

fn app() -> PathBuf {
    static APP: OnceLock<PathBuf> = OnceLock::new();
    APP.get_or_init(|| build_app("tri", &["-lEGL"])).clone()
}

fn command(shm: Option<&SharedMemory>, preload_on: bool) -> Command {
    command_for(app(), shm, preload_on)
}

fn plain_output() -> String {
    static OUT: OnceLock<String> = OnceLock::new();
    OUT.get_or_init(|| {
        let o = command(None, false).output().unwrap();
        assert!(o.status.success());
        String::from_utf8(o.stdout).unwrap()
    })
    .clone()
}

/// Wait until some slot is stopped at `function`.
fn wait_stop(m: &SharedMemory, function: u32) -> daemon_shm::StoppedCall {
    support::wait_stop(m, function, T)
}

#[test]
fn pass_through_output_is_unchanged() {
    let o = command(None, true).output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain_output());
    assert!(
        plain_output().starts_with("error 0x500 then 0x0\n"),
        "{}",
        plain_output()
    );
}

#[test]
fn a_dead_daemon_means_pass_through() {
    let m = SharedMemory::create().unwrap();
    let mut gone = Command::new("true").spawn().unwrap();
    let pid = gone.id();
    gone.wait().unwrap();
    m.set_daemon_pid(pid);
    m.set_breakpoint(function_id("glDrawArrays").unwrap(), true);
    let start = Instant::now();
    let o = command(Some(&m), true).output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain_output());
    assert!(start.elapsed() < T);
    assert_eq!(
        m.header()
            .preload_attached
            .load(std::sync::atomic::Ordering::Acquire),
        1
    );
}

/// Parsed `ProgramReply` text: (shaders with types, sources by shader id, other lines).
type ProgramText = (Vec<(u32, u32)>, Vec<(u32, String)>, Vec<String>);

fn parse_program(text: &[u8]) -> ProgramText {
    let (mut shaders, mut sources, mut lines) = (Vec::new(), Vec::new(), Vec::new());
    let mut rest = text;
    while !rest.is_empty() {
        let nl = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
        let line = String::from_utf8_lossy(&rest[..nl]).into_owned();
        rest = &rest[(nl + 1).min(rest.len())..];
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "shader" => shaders.push((f[1].parse().unwrap(), f[2].parse().unwrap())),
            "source" => {
                let len: usize = f[2].parse().unwrap();
                sources.push((
                    f[1].parse().unwrap(),
                    String::from_utf8_lossy(&rest[..len]).into_owned(),
                ));
                rest = &rest[(len + 1).min(rest.len())..];
            }
            _ => lines.push(line),
        }
    }
    (shaders, sources, lines)
}

const DEBUG_FS: &str = "#version 330 core
uniform vec4 u_color;
uniform float u_scale[2];
out vec4 frag;
out vec4 dbg_value;
out float dbg_cov;
void main() {
    frag = u_color * u_scale[1];
    dbg_value = vec4(gl_FragCoord.xy, u_color.g * u_scale[0], gl_FragCoord.z);
    dbg_cov = 7.0;
}
";

/// Write a FragmentStepRequest and run it; returns (status, reply, log).
fn fragment_step(
    m: &SharedMemory,
    slot: usize,
    key: u64,
    fs: &str,
    vs: &str,
    depth_stencil: u32,
) -> (u32, FragmentStepReply, String) {
    let mut req = FragmentStepRequest {
        cache_key: key,
        shader_count: 2,
        depth: depth_stencil,
        stencil: depth_stencil,
        value_components: 4,
        ..Default::default()
    };
    let start = (size_of::<FragmentStepRequest>() + 63) & !63;
    let mut w = m.bulk_writer(abi::BULK_REQUEST + start);
    req.shaders[0] = ShaderRef {
        gl_type: 0x8B30,
        _pad: 0,
        source: w.push(fs.as_bytes()),
    };
    req.shaders[1] = ShaderRef {
        gl_type: 0x8B31,
        _pad: 0,
        source: w.push(vs.as_bytes()),
    };
    req.value_output = OutputRef {
        frag_data_index: -1,
        _pad: 0,
        name: w.push(b"dbg_value"),
    };
    req.coverage_output = OutputRef {
        frag_data_index: -1,
        _pad: 0,
        name: w.push(b"dbg_cov"),
    };
    let name = w.push(b"frag");
    req.app_outputs = w.push(&gldbg_proto::shm::BulkRef::list_bytes(&[name]));
    m.write_struct(abi::BULK_REQUEST, &req);
    let st = m.command(slot, abi::CMD_FRAGMENT_STEP, T).unwrap();
    let reply: FragmentStepReply = m.read_struct(abi::BULK_REPLY);
    let log = String::from_utf8_lossy(&m.read_bytes(reply.log)).into_owned();
    (st, reply, log)
}

#[test]
fn stop_query_step_continue() {
    run_session(command(None, true), plain_output());
}

/// The same app, with libEGL dlopened (not linked) and eglGetProcAddress
/// from dlsym: the preload's dlopen hands back its own handle.
#[test]
fn dlopen_app_stop_query_step_continue() {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/apps/tri.c");
    let app = compile_c(&src, "preload-tri-dlopen", &["-DUSE_DLOPEN", "-ldl"]);
    let libs = Command::new("ldd").arg(&app).output().unwrap();
    assert!(
        !String::from_utf8_lossy(&libs.stdout).contains("libEGL"),
        "the dlopen variant links libEGL"
    );
    run_session(command_for(app, None, true), plain_output());
}

/// Stop at both draws of `apps/tri.c` (started by `cmd`, which must not
/// have a session yet), query, step, continue; the output must be `plain`.
fn run_session(mut cmd: Command, plain: String) {
    let m = SharedMemory::create().unwrap();
    let draw = function_id("glDrawArrays").unwrap();
    m.set_breakpoint(draw, true);
    support::hand_shm(&mut cmd, &m);
    let child = cmd.spawn().unwrap();

    // First draw: the quad. Describe the program.
    let c = wait_stop(&m, draw);
    assert_eq!(c.args, [5, 0, 4], "GL_TRIANGLE_STRIP, 0, 4");
    assert_eq!(m.draw_count(), 1);
    assert_ne!(c.context, 0);
    assert_eq!(
        m.command(c.slot, abi::CMD_QUERY_PROGRAM, T).unwrap(),
        abi::STATUS_OK
    );
    let reply: ProgramReply = m.read_struct(abi::BULK_REPLY);
    let (shaders, sources, lines) = parse_program(&m.read_bytes(reply.text));
    assert_eq!(lines[0], format!("program\t{}", reply.program));
    assert!(
        lines.contains(&"attribute\tpos\t35664\t1\t3".to_string()),
        "{lines:?}"
    );
    assert!(
        lines.contains(&"attribute\tdepth\t5126\t1\t5".to_string()),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("uniform\tu_color\t35666\t1\t")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("uniform\tu_scale[0]\t5126\t2\t")),
        "{lines:?}"
    );
    // name, location, dual-source blending index
    assert!(
        lines.contains(&"output\tfrag\t0\t0".to_string()),
        "{lines:?}"
    );
    assert_eq!(shaders.len(), 2);
    let vs_id = shaders.iter().find(|s| s.1 == 0x8B31).unwrap().0;
    let vs = sources.iter().find(|s| s.0 == vs_id).unwrap().1.clone();
    assert!(vs.contains("gl_Position = vec4(pos, depth, 1.0);"), "{vs}");
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );

    // Second draw: the triangle, half in front of the quad, half behind.
    let c = wait_stop(&m, draw);
    assert_eq!(c.args, [4, 0, 3]);
    assert_eq!(m.draw_count(), 2);

    let (st, _, log) = fragment_step(
        &m,
        c.slot,
        1,
        "#version 330 core\nvoid main() { nope }\n",
        &vs,
        abi::BUFFER_COPY,
    );
    assert_eq!(st, abi::STATUS_COMPILE_FAILED);
    assert!(log.contains("fragment shader"), "{log}");

    let (st, r, log) = fragment_step(&m, c.slot, 2, DEBUG_FS, &vs, abi::BUFFER_COPY);
    assert_eq!(st, abi::STATUS_OK, "{log}");
    assert_eq!((r.width, r.height, r.cached), (64, 48, 0));
    assert_ne!(r.framebuffer, 0);
    let values = m.read_f32s(r.values);
    let coverage = m.read_bytes(r.coverage);
    assert_eq!((values.len(), coverage.len()), (64 * 48 * 4, 64 * 48));
    // The debug shader writes coverage 7.0: read back as one byte, and the code.
    assert_eq!(r.coverage_code, 7);
    let mut covered = 0;
    for y in 0..48 {
        for x in 0..64 {
            let i = y * 64 + x;
            let v = &values[i * 4..i * 4 + 4];
            // Values of uncovered pixels are undefined (not cleared).
            match coverage[i] {
                0 => {}
                255 => {
                    covered += 1;
                    assert_eq!(
                        &v[..3],
                        [x as f32 + 0.5, y as f32 + 0.5, 0.75],
                        "pixel {x},{y}"
                    );
                    assert!(
                        v[3] < 0.5,
                        "pixel {x},{y} passed the depth test at z {}",
                        v[3]
                    );
                }
                other => panic!("coverage {other} at {x},{y}"),
            }
        }
    }
    assert!(covered > 100, "{covered} fragments");
    assert!(r.build_ns > 0 && r.replay_ns > 0 && r.readback_ns > 0);

    // The same program again: cached. Cleared depth: the whole triangle passes.
    let (st, r2, log) = fragment_step(&m, c.slot, 2, DEBUG_FS, &vs, abi::BUFFER_CLEAR);
    assert_eq!(st, abi::STATUS_OK, "{log}");
    assert_eq!(r2.cached, 1);
    let all = m
        .read_bytes(r2.coverage)
        .iter()
        .filter(|&&c| c != 0)
        .count();
    assert!(
        all > covered + 100,
        "cleared depth: {all} fragments, copied depth: {covered}"
    );

    // A non-draw stop (the app's glReadPixels after the draw) refuses a
    // fragment step; the app still reads its own pixels (its output below).
    m.clear_breakpoints();
    let read = function_id("glReadPixels").unwrap();
    m.set_breakpoint(read, true);
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );
    let c = wait_stop(&m, read);
    assert_eq!(
        m.command(c.slot, abi::CMD_FRAGMENT_STEP, T).unwrap(),
        abi::STATUS_NOT_A_DRAW
    );
    m.clear_breakpoints();
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(
        String::from_utf8(o.stdout).unwrap(),
        plain,
        "the app noticed the debugger"
    );
}

#[test]
fn step_all_stops_at_the_first_call_and_not_a_draw_is_refused() {
    let m = SharedMemory::create().unwrap();
    m.set_step_all(true);
    let child = command(Some(&m), true).spawn().unwrap();
    let start = Instant::now();
    let mut seen = 0;
    let c = loop {
        if let Some(c) = m.stopped().into_iter().next() {
            break c;
        }
        assert!(start.elapsed() < T);
        seen = m.wait_stop_seq(seen, Duration::from_millis(100));
    };
    assert_eq!(
        gldbg_proto::api::FUNCTIONS[c.function as usize].name,
        "eglGetProcAddress"
    );
    assert_eq!(c.call_number, 1);
    assert_eq!(
        m.command(c.slot, abi::CMD_FRAGMENT_STEP, T).unwrap(),
        abi::STATUS_NOT_A_DRAW
    );
    // Finish it: the return value is our wrapper of the requested function.
    assert_eq!(
        m.command(c.slot, abi::CMD_FINISH, T).unwrap(),
        abi::STATUS_OK
    );
    let r = m.stopped().into_iter().next().unwrap();
    assert_eq!(r.state, abi::STATE_RETURNED);
    assert_ne!(r.ret, 0);
    m.set_step_all(false);
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain_output());
}

const GLX_DEBUG_FS: &str = "#version 330 core
uniform vec3 u_tint;
out vec4 frag;
out vec4 dbg_value;
out float dbg_cov;
void main() { frag = vec4(u_tint, 1.0); dbg_value = vec4(u_tint, gl_FragCoord.x); dbg_cov = 1.0; }
";

const GLX_VS: &str = "#version 330 core
layout(location = 0) in vec2 pos;
void main() { gl_Position = vec4(pos, 0.0, 1.0); }
";

/// GLX, libGL linked directly, default framebuffer: the size comes from
/// glXQueryDrawable and depth/stencil from the window's visual.
#[test]
fn glx_default_framebuffer_step() {
    let x = Xvfb::start();
    let app = build_app("glx_tri", &["-lGL", "-lX11"]);
    let run = |shm: Option<&SharedMemory>, preload_on: bool| {
        let mut c = command_for(app.clone(), shm, preload_on);
        c.env("DISPLAY", x.display());
        c
    };
    let plain = run(None, false).output().unwrap();
    assert!(plain.status.success());
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(plain.ends_with("error 0x0\n"), "{plain}");

    let m = SharedMemory::create().unwrap();
    let draw = function_id("glDrawArrays").unwrap();
    m.set_breakpoint(draw, true);
    let child = run(Some(&m), true).spawn().unwrap();
    let c = wait_stop(&m, draw);
    let (st, r, log) = fragment_step(&m, c.slot, 9, GLX_DEBUG_FS, GLX_VS, abi::BUFFER_COPY);
    assert_eq!(st, abi::STATUS_OK, "{log}");
    assert_eq!((r.width, r.height, r.framebuffer), (96, 72, 0));
    let values = m.read_f32s(r.values);
    let coverage = m.read_bytes(r.coverage);
    let covered = coverage.iter().filter(|&&c| c != 0).count();
    assert!(covered > 96 * 72 / 4, "{covered} fragments");
    assert_eq!(r.coverage_code, 1);
    let i = 36 * 96 + 48;
    assert_ne!(coverage[i], 0);
    assert_eq!(&values[i * 4..i * 4 + 4], [0.5, 0.75, 1.0, 48.5]);
    m.clear_breakpoints();
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain);
}

const THREAD_DEBUG_FS: &str = "#version 330 core
uniform vec4 u_color;
out vec4 frag;
out vec4 dbg_value;
out float dbg_cov;
void main() { frag = u_color; dbg_value = u_color; dbg_cov = 1.0; }
";

const THREAD_VS: &str = "#version 330 core
layout(location = 0) in vec2 pos;
void main() { gl_Position = vec4(pos, 0.0, 1.0); }
";

/// Two GL threads stopped at their draws at the same time, each in its own
/// slot: each step runs on its own thread, in its own context.
#[test]
fn two_threads_stop_and_step_in_their_own_contexts() {
    let app = build_app("threads", &["-lEGL", "-lpthread"]);
    let plain = command_for(app.clone(), None, false).output().unwrap();
    assert!(plain.status.success());
    let plain = String::from_utf8(plain.stdout).unwrap();

    let m = SharedMemory::create().unwrap();
    let draw = function_id("glDrawArrays").unwrap();
    m.set_breakpoint(draw, true);
    let child = command_for(app, Some(&m), true).spawn().unwrap();
    let start = Instant::now();
    let mut seen = 0;
    let stops = loop {
        let s: Vec<_> = m
            .stopped()
            .into_iter()
            .filter(|c| c.function == draw)
            .collect();
        if s.len() == 2 {
            break s;
        }
        assert!(start.elapsed() < T, "{} threads stopped", s.len());
        seen = m.wait_stop_seq(seen, Duration::from_millis(100));
    };
    assert_ne!(stops[0].slot, stops[1].slot);
    assert_ne!(stops[0].tid, stops[1].tid);
    assert_ne!(stops[0].context, stops[1].context);
    let mut colors = Vec::new();
    for c in &stops {
        let (st, r, log) =
            fragment_step(&m, c.slot, 5, THREAD_DEBUG_FS, THREAD_VS, abi::BUFFER_COPY);
        assert_eq!(st, abi::STATUS_OK, "{log}");
        assert_eq!((r.width, r.height), (32, 32));
        let i = 8 * 32 + 16;
        assert_ne!(m.read_bytes(r.coverage)[i], 0);
        colors.push(m.read_f32s(r.values)[i * 4..i * 4 + 4].to_vec());
    }
    colors.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(colors, [vec![0.0, 0.5, 1.0, 1.0], vec![1.0, 0.0, 0.0, 1.0]]);
    m.clear_breakpoints();
    for c in &stops {
        assert_eq!(
            m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
            abi::STATUS_OK
        );
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain);
}

const SUBROUTINE_DEBUG_FS: &str = "#version 400 core
subroutine vec4 colorFn();
subroutine(colorFn) vec4 red() { return vec4(1.0, 0.0, 0.0, 1.0); }
subroutine(colorFn) vec4 blue() { return vec4(0.0, 0.0, 1.0, 1.0); }
subroutine uniform colorFn pick;
out vec4 frag;
out vec4 dbg_value;
out float dbg_cov;
void main() { frag = pick(); dbg_value = pick(); dbg_cov = 1.0; }
";

const SUBROUTINE_VS: &str = "#version 400 core
layout(location = 0) in vec2 pos;
void main() { gl_Position = vec4(pos, 0.0, 1.0); }
";

/// glUseProgram resets subroutine selections: the step gives the debug
/// program the app's selection, and puts the app's back afterwards (the
/// app's second draw relies on it).
#[test]
fn subroutine_selection_survives_a_step() {
    let app = build_app("subroutine", &["-lEGL"]);
    let plain = command_for(app.clone(), None, false).output().unwrap();
    assert!(plain.status.success());
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(plain.ends_with("right 0,0,255\n"), "{plain}");

    let m = SharedMemory::create().unwrap();
    let draw = function_id("glDrawArrays").unwrap();
    m.set_breakpoint(draw, true);
    let child = command_for(app, Some(&m), true).spawn().unwrap();
    let c = wait_stop(&m, draw);
    let (st, r, log) = fragment_step(
        &m,
        c.slot,
        11,
        SUBROUTINE_DEBUG_FS,
        SUBROUTINE_VS,
        abi::BUFFER_COPY,
    );
    assert_eq!(st, abi::STATUS_OK, "{log}");
    let i = 8 * 32 + 8;
    assert_ne!(m.read_bytes(r.coverage)[i], 0);
    assert_eq!(
        &m.read_f32s(r.values)[i * 4..i * 4 + 4],
        [0.0, 0.0, 1.0, 1.0],
        "the debug program runs the app's subroutine"
    );
    m.clear_breakpoints();
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain);
}
