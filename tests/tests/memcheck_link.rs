//! memcheck's executor (issue 17, `CMD_MEMCHECK`) driven through the
//! daemon library's link (`gldbg_debugd::memcheck::link::run_checked`):
//! this test is the daemon. It maps the shared memory, launches
//! `egl_memcheck_link` with the preload, stops at its dispatches and runs
//! each with a hand-written checked shader that follows the memcheck
//! contract (the findings block, the storage shadow, the base, cap and
//! counter-size uniforms) and writes known words: the app's own result
//! (`out[i] += data[i] + u_add`) and, into the findings block, what it was
//! given. Checked against CPU references: the words as written, the
//! shadow caps from the bound ranges and the budget, the blocks' bindings
//! (one moved by the app at run time), the counters' range sizes; and the
//! app's result and whole GL state (`state_dump.h`) after each dispatch
//! equal a native run's: not in place, the checked run's writes are put
//! back (the app's own dispatch then runs once); in place, the checked
//! run is the app's dispatch (skipped after).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use gldbg_debugd::error::Error;
use gldbg_debugd::memcheck::link::{How, MemcheckProgram, MemcheckRun, call_ran, run_checked};
use gldbg_debugd::shader::Reports;
use gldbg_debugd::shm::{At, SharedMemory, StoppedCall};
use gldbg_proto::api::function_id;
use gldbg_proto::shm as abi;
use glsl_instrument::Stage;
use glsl_instrument::memcheck::{MemSite, MemcheckShader, Space, TrackedArray};

/// The app's shader with the contract's declarations; its findings words:
/// `log[i] = data[i] + u_add` for the 128 invocations, then the shadow
/// bases and caps, the counter sizes, a marker written only while array 0
/// has shadow, the shadow's length and what invocation 0 found in `s[0]`
/// (it writes 0xDEAD there after: a shadow not zeroed shows next time).
const CHECKED: &str = "#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 2) buffer Data { uint data[]; };
layout(std430, binding = 5) buffer Out { uint outv[]; };
layout(std430) buffer gldbg_Memcheck { uint head[8]; uint log[]; };
layout(std430) buffer gldbg_MemcheckShadow { uint s[]; };
uniform uint gldbg_mc_sbase[2];
uniform uint gldbg_mc_scap[2];
uniform uint gldbg_mc_acb[8];
uniform uint u_add;
void main() {
    uint i = gl_GlobalInvocationID.x;
    outv[i] += data[i] + u_add;
    log[i] = data[i] + u_add;
    if (i == 0u) {
        head[0] = gl_NumWorkGroups.x; head[1] = gl_NumWorkGroups.y; head[2] = gl_NumWorkGroups.z;
        head[3] = gl_WorkGroupSize.x; head[4] = gl_WorkGroupSize.y; head[5] = gl_WorkGroupSize.z;
        log[128] = gldbg_mc_sbase[0]; log[129] = gldbg_mc_sbase[1];
        log[130] = gldbg_mc_scap[0]; log[131] = gldbg_mc_scap[1];
        for (int k = 0; k < 8; ++k) log[132 + k] = gldbg_mc_acb[k];
        if (gldbg_mc_scap[0] != 0u) log[140] = 0xBEEFu;
        log[141] = uint(s.length());
        log[142] = s[0];
        s[0] = 0xDEADu;
    }
}
";

const INVOCATIONS: usize = 128;
/// Words after the header: 4 sites' records (8 + 4 * 3 * 12 = 152).
const LOG: usize = 144;

fn site(block: Option<&str>) -> MemSite {
    MemSite {
        line: 13,
        column: 5,
        expr: "outv[i]".into(),
        variable: "outv".into(),
        space: Space::Storage,
        block: block.map(str::to_string),
        binding: None,
        element_words: 1,
        signed: false,
    }
}

fn tracked(block: &str, array: &str) -> TrackedArray {
    TrackedArray {
        block: block.into(),
        array: array.into(),
        components: 1,
    }
}

fn checked(program: u32) -> MemcheckProgram {
    let shader = MemcheckShader {
        source: CHECKED.into(),
        sites: vec![
            site(Some("Out")),
            site(Some("Data")),
            site(Some("Nope")),
            site(None),
        ],
        storage: vec![tracked("Out", "outv"), tracked("Data", "data")],
        counters: true,
        not_checked: Vec::new(),
    };
    assert_eq!(shader.log_words(), 8 + LOG);
    MemcheckProgram::new(program, Stage::Compute, shader, Vec::new())
}

/// Nothing is rejected in this test: a rejection fails it with the log.
struct Strict;

impl Reports for Strict {
    fn rejected_shader(&self, what: &str, _: Stage, _: &str, log: &str) -> Error {
        panic!("the driver rejected the checked shader ({what}): {log}")
    }
    fn warn(&self, message: String) {
        eprintln!("warning: {message}");
    }
}

/// The app under the test's shared memory (the preload attached).
struct App {
    child: Child,
    seen: u32,
    last: Option<(usize, u32)>,
}

impl App {
    fn launch(shm: &SharedMemory, dump: &Path, args: &[&str]) -> App {
        let mut cmd = Command::new(env!("GLDBG_APP_EGL_MEMCHECK_LINK"));
        cmd.args(args).arg("--dump-state").arg(dump);
        App::launch_command(shm, cmd)
    }

    /// `cmd` launched with the preload on `shm`.
    fn launch_command(shm: &SharedMemory, mut cmd: Command) -> App {
        let child = cmd
            .env("LD_PRELOAD", gldbg_tests::preload())
            .env(
                "GLDBG_SHM",
                format!("/proc/{}/fd/{}", std::process::id(), shm.raw_fd()),
            )
            .stdout(Stdio::piped())
            .spawn()
            .expect("launching the app");
        App {
            child,
            seen: 0,
            last: None,
        }
    }

    /// The next stop before a call of `functions` (not one already
    /// handled); stops at other calls (the preload's own: shader
    /// recording) are continued, as the daemon's stop watcher does.
    fn stop(&mut self, shm: &SharedMemory, functions: &[u32]) -> StoppedCall {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let fresh = shm
                .stopped()
                .into_iter()
                .find(|s| s.state == abi::STATE_STOPPED && self.last != Some((s.slot, s.stop_id)));
            if let Some(s) = fresh {
                self.last = Some((s.slot, s.stop_id));
                if functions.contains(&s.function) {
                    return s;
                }
                release(shm, &s, abi::CMD_CONTINUE);
                continue;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("the app ended ({status}) before the next stop");
            }
            assert!(Instant::now() < deadline, "no stop within 120 s");
            self.seen = shm.wait_stop_seq(self.seen, Duration::from_millis(100));
        }
    }

    fn output(self) -> String {
        let out = self.child.wait_with_output().expect("waiting for the app");
        assert!(out.status.success(), "the app failed: {:?}", out.status);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

fn release(shm: &SharedMemory, s: &StoppedCall, cmd: u32) {
    let st = shm.command_at(s.slot, s.stop_id, cmd, Duration::from_secs(60));
    assert_eq!(st.expect("releasing the stop"), abi::STATUS_OK);
}

/// The dump without the program binary format lines (gldbg hides the
/// formats: no binaries under a session).
fn dump_text(path: &Path) -> String {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no state dump at {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.contains("_BINARY_FORMATS"))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// The checks common to every run of frame `frame` (u_add = frame): the
/// header, each invocation's word, the counters' sizes, the shadow's
/// first word found zeroed, the blocks' bindings.
fn check_common(run: &MemcheckRun, frame: u32) {
    let w = &run.words;
    assert_eq!(w.len(), 8 + LOG, "exactly the log words");
    assert_eq!(&w[..8], &[2, 1, 1, 64, 1, 1, 0, 0], "header as written");
    let log = &w[8..];
    for (i, &word) in log[..INVOCATIONS].iter().enumerate() {
        assert_eq!(word, 7 * i as u32 + 1 + frame, "invocation {i}'s word");
    }
    // Atomic counter bindings 1 (a range of 12 bytes) and 3 (a 32-byte
    // buffer bound whole); none elsewhere.
    assert_eq!(&log[132..140], &[0, 12, 0, 32, 0, 0, 0, 0], "counter sizes");
    assert_eq!(log[142], 0, "the shadow is zeroed before the call");
    assert_eq!(log[143], 0, "an unwritten word is zero");
    assert_eq!(run.bindings.get("Out"), Some(&6), "Out, moved by the app");
    assert_eq!(run.bindings.get("Data"), Some(&2));
    assert_eq!(run.bindings.get("Nope"), Some(&u32::MAX), "not a block");
    assert_eq!(run.bindings.len(), 3);
    // Out: a range of 512 bytes; Data: 1024 bytes bound whole.
    assert_eq!(run.needed, [128, 256]);
}

#[test]
fn checked_dispatches_in_place_and_aside_leave_the_app_as_a_native_run() {
    gldbg_tests::require_workspace();
    let dir = gldbg_tests::TempDir::new("memcheck_link");
    let native_dump = dir.join("native.txt");
    let native_out = native(&native_dump, &[]);
    // out[i] = sum over frames f = 1..3 of (7 i + 1 + f).
    let sum: u64 = (0..128u64).map(|i| 3 * (7 * i + 1) + 6).sum();
    assert_eq!(
        native_out,
        format!("egl_memcheck_link: out {sum}, frames 3\n")
    );

    let shm = SharedMemory::create().expect("shared memory");
    let dump = dir.join("checked.txt");
    let use_program = function_id("glUseProgram").unwrap();
    let dispatch = function_id("glDispatchCompute").unwrap();
    shm.set_breakpoint(use_program, true);
    shm.set_breakpoint(dispatch, true);
    let mut app = App::launch(&shm, &dump, &[]);

    let s = app.stop(&shm, &[use_program]);
    let program = s.args[0] as u32;
    release(&shm, &s, abi::CMD_CONTINUE);
    let p = checked(program);

    // Frame 1: not in place, a budget for both arrays; then the app's own
    // dispatch runs (once: the checked run's writes were put back).
    let s = app.stop(&shm, &[dispatch]);
    let at = At {
        shm: &shm,
        slot: s.slot,
        stop_id: s.stop_id,
    };
    let other = checked(program + 1000);
    let refused = run_checked(at, &Strict, &other, How::Aside, 1 << 20).unwrap_err();
    assert!(
        refused
            .to_string()
            .contains(&format!("for program {}", program + 1000)),
        "{refused}"
    );
    assert!(!call_ran(at), "a refused run runs nothing");
    let run = run_checked(at, &Strict, &p, How::Aside, 1 << 20).expect("frame 1, aside");
    check_common(&run, 1);
    assert_eq!(run.caps, [128, 256]);
    let log = &run.words[8..];
    assert_eq!(&log[128..132], &[0, 128, 128, 256], "bases and caps");
    assert_eq!(log[140], 0xBEEF);
    assert_eq!(log[141], 384 * 4, "the shadow's words: 4 per component");
    assert_eq!(run.shadow_bytes, 384 * 16);
    assert!(run.gpu_ns > 0, "a GL_TIME_ELAPSED query timed the call");
    release(&shm, &s, abi::CMD_CONTINUE);

    // Frame 2: in place, a budget for array 0 alone; skipped after.
    let s = app.stop(&shm, &[dispatch]);
    let at = At {
        shm: &shm,
        slot: s.slot,
        stop_id: s.stop_id,
    };
    let run = run_checked(at, &Strict, &p, How::InPlace, 128 * 16).expect("frame 2, in place");
    assert!(call_ran(at));
    check_common(&run, 2);
    assert_eq!(run.caps, [128, 0], "array 1 passes the budget");
    assert_eq!(&run.words[8 + 128..8 + 132], &[0, 128, 128, 0]);
    assert_eq!(run.words[8 + 140], 0xBEEF);
    assert_eq!(run.shadow_bytes, 128 * 16);
    release(&shm, &s, abi::CMD_SKIP);

    // Frame 3: in place, a budget for nothing: caps 0, the findings block
    // zeroed again (the marker of frame 2 is gone).
    let s = app.stop(&shm, &[dispatch]);
    let at = At {
        shm: &shm,
        slot: s.slot,
        stop_id: s.stop_id,
    };
    let run = run_checked(at, &Strict, &p, How::InPlace, 16).expect("frame 3, in place");
    check_common(&run, 3);
    assert_eq!(run.caps, [0, 0]);
    assert_eq!(run.words[8 + 140], 0, "the findings block is zeroed");
    assert_eq!(
        run.words[8 + 141],
        4,
        "a one-component buffer when nothing fits"
    );
    assert_eq!(run.shadow_bytes, 0);
    // The preload's kept buffers (findings, shadow) go; the app's bindings
    // stay (the dumps below).
    let st = shm.command_at(s.slot, s.stop_id, abi::CMD_RELEASE, Duration::from_secs(60));
    assert_eq!(st.expect("CMD_RELEASE"), abi::STATUS_OK);
    shm.clear_breakpoints();
    release(&shm, &s, abi::CMD_SKIP);

    assert_eq!(app.output(), native_out, "the app's result");
    same_dumps(&native_dump, &dump, "== after dispatch 3");
}

/// Run the app natively with `args`, its dump at `dump`; its output.
fn native(dump: &Path, args: &[&str]) -> String {
    let native = Command::new(env!("GLDBG_APP_EGL_MEMCHECK_LINK"))
        .args(args)
        .arg("--dump-state")
        .arg(dump)
        .output()
        .expect("running egl_memcheck_link natively");
    assert!(native.status.success(), "native run: {native:?}");
    String::from_utf8_lossy(&native.stdout).into_owned()
}

/// The checked run's dumps equal the native run's (which has `label`).
fn same_dumps(native: &Path, checked: &Path, label: &str) {
    let (native, checked) = (dump_text(native), dump_text(checked));
    assert!(native.contains(label) && native.contains("== final"));
    if native != checked {
        let first = native
            .lines()
            .zip(checked.lines())
            .find(|(a, b)| a != b)
            .map(|(a, b)| format!("native: {a}\nchecked: {b}"));
        panic!("the GL state differs from a native run:\n{first:?}");
    }
}

/// The app's fragment shader with the findings block: it counts its
/// fragments in `log[0]` and the pixel (0, 0) writes `u_color.r`'s bits.
const CHECKED_FS: &str = "#version 430
layout(std430, binding = 3) buffer Hits { uint hits[]; };
layout(std430) buffer gldbg_Memcheck { uint head[8]; uint log[]; };
out vec4 color;
uniform vec4 u_color;
void main() {
    atomicAdd(hits[0], 1u);
    color = u_color;
    atomicAdd(log[0], 1u);
    if (gl_FragCoord.x < 1.0 && gl_FragCoord.y < 1.0) log[1] = floatBitsToUint(u_color.r);
}
";

/// The app's vertex shader (`egl_memcheck_link.c`'s VS), as recorded.
const VS: &str = "#version 430
void main() {
    vec2 p = vec2(float(gl_VertexID & 1) * 4.0 - 1.0, float(gl_VertexID >> 1) * 4.0 - 1.0);
    gl_Position = vec4(p, 0.0, 1.0);
}
";

/// A draw's fragment shader checked aside (its colour, blending and
/// storage writes leave nothing, the app's queries do not count it: the
/// app's draw then runs once) and in place (the app's draw: its output
/// location, blending and storage write exactly once, its primitives
/// counted by the app's query, the draw skipped after): the app's result,
/// query and GL state equal a native run's, the findings count every
/// fragment.
#[test]
fn checked_draws_in_place_and_aside_leave_the_app_as_a_native_run() {
    gldbg_tests::require_workspace();
    let dir = gldbg_tests::TempDir::new("memcheck_link_draw");
    let native_dump = dir.join("native.txt");
    let native_out = native(&native_dump, &["--draw", "--query"]);
    assert!(native_out.starts_with("egl_memcheck_link queries: primitives 3\n"));
    // Three additive frames of (32, 64, 16, 128)/255 ... (96, 64, 16, 128):
    // RGBA8 quantizes each frame's colour before it is added.
    assert!(
        native_out.ends_with("draw: hits 768, pixel 192 192 48 255\n"),
        "{native_out}"
    );
    let shm = SharedMemory::create().expect("shared memory");
    let dump = dir.join("checked.txt");
    let use_program = function_id("glUseProgram").unwrap();
    let draw = function_id("glDrawArrays").unwrap();
    shm.set_breakpoint(use_program, true);
    shm.set_breakpoint(draw, true);
    let mut app = App::launch(&shm, &dump, &["--draw", "--query"]);
    let vs = gldbg_debugd::program::StageSource {
        id: 0,
        gl_type: 0x8B31, // GL_VERTEX_SHADER
        source: VS.into(),
        recorded: true,
        includes: Default::default(),
    };
    let shader = MemcheckShader {
        source: CHECKED_FS.into(),
        sites: vec![site(Some("Hits"))],
        storage: Vec::new(),
        counters: false,
        not_checked: Vec::new(),
    };
    let mut program = 0;
    let mut p = None;
    for frame in 1..=3u32 {
        let s = loop {
            let s = app.stop(&shm, &[use_program, draw]);
            if s.function == draw {
                break s;
            }
            program = s.args[0] as u32;
            release(&shm, &s, abi::CMD_CONTINUE);
        };
        let p = p.get_or_insert_with(|| {
            MemcheckProgram::new(program, Stage::Fragment, shader.clone(), vec![vs.clone()])
        });
        let at = At {
            shm: &shm,
            slot: s.slot,
            stop_id: s.stop_id,
        };
        // Frame 1 aside, then the app's draw; frame 2 in place, skipped;
        // frame 3 the app's own.
        if frame == 3 {
            shm.clear_breakpoints();
            release(&shm, &s, abi::CMD_CONTINUE);
            break;
        }
        let in_place = frame == 2;
        let how = if in_place { How::InPlace } else { How::Aside };
        let run = run_checked(at, &Strict, p, how, 1 << 20).expect("a checked draw");
        assert_eq!(run.words.len(), 8 + 36);
        assert_eq!(run.words[8], 256, "frame {frame}: every fragment of 16x16");
        assert_eq!(
            run.words[9],
            (0.125 * frame as f32).to_bits(),
            "frame {frame}"
        );
        assert_eq!(run.bindings.get("Hits"), Some(&3));
        assert_eq!((run.caps.len(), run.shadow_bytes), (0, 0));
        // The app's timer query runs around its frames: in place (where
        // the app's queries go on counting) ours is not begun; aside, the
        // app's are suspended and ours times the call.
        assert_eq!(
            run.gpu_ns > 0,
            !in_place,
            "frame {frame}: {} ns",
            run.gpu_ns
        );
        let cmd = match in_place {
            true => abi::CMD_SKIP,
            false => abi::CMD_CONTINUE,
        };
        release(&shm, &s, cmd);
    }
    assert_eq!(app.output(), native_out, "the app's result");
    same_dumps(&native_dump, &dump, "== after draw 3");
}

/// Rejections recorded (the session saves the shader and says where).
#[derive(Default)]
struct Recorded(std::sync::Mutex<Vec<(String, String)>>);

impl Reports for Recorded {
    fn rejected_shader(&self, what: &str, _: Stage, _: &str, log: &str) -> Error {
        self.0.lock().unwrap().push((what.into(), log.into()));
        Error::FailedPrecondition(format!("rejected ({what})"))
    }
    fn warn(&self, message: String) {
        eprintln!("warning: {message}");
    }
}

/// An indirect dispatch checked in place (its groups from the app's
/// indirect buffer, as the header says), after two checked shaders the
/// driver rejects: a compile failure goes to the reports, a link failure
/// comes back with its status and log (for a rebuild without shared
/// shadows); neither runs anything. The app's result and state equal a
/// native run's.
#[test]
fn an_indirect_dispatch_and_rejected_checked_shaders() {
    gldbg_tests::require_workspace();
    let dir = gldbg_tests::TempDir::new("memcheck_link_indirect");
    let native_dump = dir.join("native.txt");
    let native_out = native(&native_dump, &["--indirect"]);
    let shm = SharedMemory::create().expect("shared memory");
    let dump = dir.join("checked.txt");
    let use_program = function_id("glUseProgram").unwrap();
    let indirect = function_id("glDispatchComputeIndirect").unwrap();
    shm.set_breakpoint(use_program, true);
    shm.set_breakpoint(indirect, true);
    let mut app = App::launch(&shm, &dump, &["--indirect"]);
    let s = app.stop(&shm, &[use_program]);
    let program = s.args[0] as u32;
    release(&shm, &s, abi::CMD_CONTINUE);
    let s = app.stop(&shm, &[indirect]);
    let at = At {
        shm: &shm,
        slot: s.slot,
        stop_id: s.stop_id,
    };
    let with_source = |source: String| {
        let mut p = checked(program);
        p.shader.source = source;
        MemcheckProgram::new(program, Stage::Compute, p.shader, Vec::new())
    };

    let reports = Recorded::default();
    let bad = with_source(CHECKED.replace("void main() {", "void main() { nonsense;"));
    let e = run_checked(at, &reports, &bad, How::InPlace, 1 << 20).unwrap_err();
    assert!(e.to_string().contains("rejected (compile)"), "{e}");
    let rejected = reports.0.lock().unwrap().clone();
    assert_eq!(rejected.len(), 1);
    assert!(rejected[0].1.contains("nonsense"), "{rejected:?}");
    assert!(!call_ran(at));

    let unlinked = with_source(CHECKED.replace("void main() {", "void f();\nvoid main() { f();"));
    match run_checked(at, &reports, &unlinked, How::InPlace, 1 << 20) {
        Err(Error::Replay { status, log }) => {
            assert_eq!(status, abi::STATUS_LINK_FAILED);
            assert!(!log.is_empty(), "the driver's link log");
        }
        other => panic!("a link failure, not {other:?}"),
    }
    assert!(!call_ran(at));
    assert_eq!(
        reports.0.lock().unwrap().len(),
        1,
        "a link failure is the caller's"
    );

    let run = run_checked(at, &Strict, &checked(program), How::InPlace, 1 << 20).expect("in place");
    check_common(&run, 1);
    assert!(call_ran(at));
    shm.clear_breakpoints();
    release(&shm, &s, abi::CMD_SKIP);
    assert_eq!(app.output(), native_out, "the app's result");
    same_dumps(&native_dump, &dump, "== after dispatch 3");
}

/// A display list's draw is not run in place (its release issues the
/// lists, a skip would not): refused before anything is touched, the app
/// goes on as without gldbg.
#[test]
fn display_lists_are_not_run_in_place() {
    gldbg_tests::require_workspace();
    let apps = Path::new(env!("CARGO_MANIFEST_DIR")).join("apps");
    let exe = gldbg_tests::compile_c(
        &apps.join("egl_lists.c"),
        "egl_lists",
        &["-lEGL", "-lOpenGL"],
    );
    let native = Command::new(&exe).output().expect("egl_lists natively");
    assert!(native.status.success(), "{native:?}");
    let shm = SharedMemory::create().expect("shared memory");
    let call_list = function_id("glCallList").unwrap();
    shm.set_breakpoint(call_list, true);
    let mut app = App::launch_command(&shm, Command::new(&exe));
    // The first is compiled into list D (not a draw); the second, frame
    // 1's glCallList(B), is.
    let s = app.stop(&shm, &[call_list]);
    release(&shm, &s, abi::CMD_CONTINUE);
    let s = app.stop(&shm, &[call_list]);
    let at = At {
        shm: &shm,
        slot: s.slot,
        stop_id: s.stop_id,
    };
    let shader = MemcheckShader {
        source: CHECKED_FS.into(),
        sites: vec![site(None)],
        storage: Vec::new(),
        counters: false,
        not_checked: Vec::new(),
    };
    let p = MemcheckProgram::new(1, Stage::Fragment, shader, Vec::new());
    let e = run_checked(at, &Strict, &p, How::InPlace, 1 << 20).unwrap_err();
    assert!(
        e.to_string().contains("glCallList is not run in place"),
        "{e}"
    );
    assert!(!call_ran(at));
    shm.clear_breakpoints();
    release(&shm, &s, abi::CMD_CONTINUE);
    let line = |out: &[u8]| {
        let text = String::from_utf8_lossy(out).into_owned();
        text.lines()
            .find(|l| l.starts_with("egl_lists:"))
            .map(str::to_string)
    };
    let out = app.output();
    assert!(line(&native.stdout).is_some());
    assert_eq!(
        line(out.as_bytes()),
        line(&native.stdout),
        "the app's frame"
    );
}
