//! The Python client (clients/python, issue 15 "Scripting from Python") on
//! the real driver, with Debian's Python and packages (python3-grpcio,
//! python3-grpc-tools, python3-protobuf) as CI has them:
//!
//! * its gRPC code is generated into a temp dir at test time, as the
//!   package's build step does (`gldbg_build.py OUTDIR`);
//! * the example `examples/value_image.py` launches egl_files, stops at
//!   draw 2, debugs the fragment shader to line 26 and prints values at a
//!   pixel, which must equal a CPU reference of tests/apps/shaders/wave.frag
//!   exactly (every value is exact in float32), and saves the value image:
//!   a valid 64x64 PNG whose every grey level is the reference's, and the
//!   same values as .npy;
//! * a refused request raises `GldbgError` carrying the daemon's message
//!   (the very text the CLI shows for it), the session goes on; a wrong
//!   token is refused (attaching to a running gldbg-debugd);
//! * closing a session that started its own daemon ends the app (which
//!   would outlive the daemon), the daemon and its private directory;
//! * the package builds offline with `pip wheel --no-build-isolation`
//!   (Debian's setuptools), and the wheel's generated code is complete.

use std::path::{Path, PathBuf};
use std::process::Command;

use gldbg_tests::*;

mod support;
use support::debian;

const PYTHON: &str = "/usr/bin/python3";
/// wave.frag's `acc = acc * 0.5;` (file line 24) in the compiled shader (+2: the app's prefix).
const ACC_LINE: u32 = 26;
const SIZE: u32 = 64;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

fn client_dir() -> PathBuf {
    repo().join("clients/python")
}

fn shaders_dir() -> PathBuf {
    repo().join("tests/apps/shaders")
}

fn egl_files() -> PathBuf {
    let built = PathBuf::from(env!("GLDBG_APP_EGL_FILES"));
    if built.exists() {
        built
    } else {
        target_dir().join("apps/egl_files")
    }
}

/// Debian's python3 with the modules the client needs, or a failure naming
/// the Debian package that is missing.
fn python() -> PathBuf {
    let python = debian(PYTHON, "python3");
    for (module, package) in [
        ("grpc", "python3-grpcio"),
        ("grpc_tools.protoc", "python3-grpc-tools"),
        ("google.protobuf.internal.builder", "python3-protobuf"),
    ] {
        let ok = Command::new(&python)
            .args(["-c", &format!("import {module}")])
            .output()
            .is_ok_and(|o| o.status.success());
        assert!(
            ok,
            "{PYTHON} cannot import {module}: install the Debian package {package} (`bash .ci/setup`)"
        );
    }
    python
}

/// The package with its gRPC code generated into `dir/py` (as the build step does).
fn generated_tree(dir: &TempDir) -> PathBuf {
    let out_dir = dir.join("py");
    let mut cmd = Command::new(python());
    cmd.arg(client_dir().join("gldbg_build.py")).arg(&out_dir);
    let out = run_command(cmd);
    assert!(
        out.status.success(),
        "gldbg_build.py failed:\n{}",
        out.transcript()
    );
    for file in [
        "gldbg/session.py",
        "gldbg/_pb/gldbg_pb2.py",
        "gldbg/_pb/gldbg_pb2_grpc.py",
    ] {
        assert!(out_dir.join(file).is_file(), "{file} not generated");
    }
    out_dir
}

/// Runs `python ARGS` with the package on PYTHONPATH (`tree`).
fn run_python(tree: &Path, args: &[&std::ffi::OsStr]) -> Output {
    let mut cmd = Command::new(python());
    cmd.args(args).env("PYTHONPATH", tree);
    cmd.env_remove("GLDBG_TOKEN");
    run_command(cmd)
}

// ---------------------------------------------------------------------------
// CPU reference of wave.frag (u_gain = 0.625), in float32 as the shader

/// `p = gl_FragCoord.xy / 64.0 - vec2(0.5)` at window pixel (x, y).
fn wave_p(x: u32, y: u32) -> [f32; 2] {
    [(x as f32 + 0.5) / 64.0 - 0.5, (y as f32 + 0.5) / 64.0 - 0.5]
}

/// `acc` at line 26, before `acc = acc * 0.5;`: the sum of three ripples.
fn wave_acc(x: u32, y: u32) -> f32 {
    let p = wave_p(x, y);
    let mut acc = 0.0f32;
    for i in 0..3 {
        let k = (i + 1) as f32 * 0.625;
        let d = (p[0] * p[0] + p[1] * p[1]) * k;
        acc += d - d.floor();
    }
    acc
}

/// (min, max) of `acc` over the draw (a full-screen quad: every pixel).
fn wave_acc_range() -> (f64, f64) {
    let all = (0..SIZE).flat_map(|y| (0..SIZE).map(move |x| wave_acc(x, y) as f64));
    all.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

/// The grey level of a channels-colormap PNG dump of a scalar `v` mapped
/// over (lo, hi) (debugd/src/image.rs: rounded, never a checkerboard colour).
fn grey(v: f64, (lo, hi): (f64, f64)) -> [u8; 4] {
    let g = (((v - lo) / (hi - lo)).clamp(0.0, 1.0) * 255.0).round() as u8;
    if g == 64 {
        [64, 65, 64, 255]
    } else {
        [g, g, g, 255]
    }
}

// ---------------------------------------------------------------------------
// Reading the example's output

/// The text after `prefix` on the one line of `out` that starts with it.
#[track_caller]
fn after<'a>(out: &'a Output, prefix: &str) -> &'a str {
    let found: Vec<&str> = out
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix))
        .collect();
    assert_eq!(
        found.len(),
        1,
        "one line starting {prefix:?} expected:\n{}",
        out.transcript()
    );
    found[0]
}

/// `TYPE X` or `TYPE (X, Y, ...)` as the client prints a value: the type and the numbers.
#[track_caller]
fn typed_numbers(text: &str) -> (String, Vec<f64>) {
    let (ty, rest) = text.split_once(' ').unwrap_or((text, ""));
    let numbers = rest
        .trim_matches(|c| c == '(' || c == ')')
        .split(", ")
        .map(|n| {
            n.parse::<f64>()
                .unwrap_or_else(|e| panic!("{n:?} in {text:?} is not a number: {e}"))
        })
        .collect();
    (ty.to_string(), numbers)
}

#[test]
fn example_prints_reference_values_and_saves_the_value_image() {
    require_workspace();
    let dir = TempDir::new("py-example");
    let tree = generated_tree(&dir);
    let (png, npy) = (dir.join("acc.png"), dir.join("acc.npy"));
    let (x, y) = (37, 5);
    let example = client_dir().join("examples/value_image.py");
    let pixel = format!("{x},{y}");
    let out = run_python(
        &tree,
        &[
            example.as_os_str(),
            "--debugd".as_ref(),
            debugd().as_os_str(),
            "--pixel".as_ref(),
            pixel.as_ref(),
            "--line".as_ref(),
            ACC_LINE.to_string().as_ref(),
            "--out".as_ref(),
            png.as_os_str(),
            "--npy".as_ref(),
            npy.as_os_str(),
            "--".as_ref(),
            egl_files().as_os_str(),
            shaders_dir().as_os_str(),
        ],
    );
    assert!(
        out.status.success(),
        "value_image.py failed:\n{}",
        out.transcript()
    );
    assert_eq!(after(&out, "stopped at "), "glDrawArrays: draw 2, frame 1");
    assert_eq!(
        after(&out, &format!("at line {ACC_LINE} ")),
        "`acc = acc * 0.5;` (4096 invocations)"
    );

    let (acc, p) = (wave_acc(x, y) as f64, wave_p(x, y).map(f64::from));
    for how in ["print", "local"] {
        let got = typed_numbers(after(&out, &format!("{how} acc @ {pixel} = ")));
        assert_eq!(got, ("float".to_string(), vec![acc]), "{how} acc");
        let got = typed_numbers(after(&out, &format!("{how} p @ {pixel} = ")));
        assert_eq!(got, ("vec2".to_string(), p.to_vec()), "{how} p");
    }

    // The value image: the range it maps, and every pixel's grey level.
    let range = wave_acc_range();
    let saved = after(&out, &format!("saved {}: ", png.display()));
    assert_eq!(
        saved,
        format!(
            "64x64 float, 4096 invocations, acc mapped from {:?}..{:?} (black to full)",
            range.0, range.1
        )
    );
    let image = decode_png(&png);
    assert_eq!((image.width, image.height), (SIZE, SIZE));
    for py in 0..SIZE {
        for px in 0..SIZE {
            let want = grey(wave_acc(px, py) as f64, range);
            assert_eq!(image.at_window(px, py), want, "PNG pixel {px},{py}");
        }
    }
    // The same values as float32 .npy (rows top-down), exactly.
    let npy = read_npy(&npy);
    assert_eq!(npy.shape, vec![SIZE as usize, SIZE as usize, 4]);
    for py in 0..SIZE {
        for px in 0..SIZE {
            let i = (((SIZE - 1 - py) * SIZE + px) * 4) as usize;
            assert_eq!(
                npy.data[i..i + 4],
                [wave_acc(px, py), 0.0, 0.0, 0.0],
                "npy {px},{py}"
            );
        }
    }
    assert_eq!(after(&out, "ended: "), "killed by SIGKILL");
}

/// Attaches to a running daemon (argv: address, token file, program, shaders dir).
const ERRORS: &str = r#"
import sys
from gldbg import GldbgError, Session

address, token_file, program, shaders = sys.argv[1:5]

def refused(what, call):
    try:
        call()
    except GldbgError as e:
        print("%s: %s %s %s" % (what, e.code.name if e.code else "client", e.rpc or "-", e.message))
    else:
        print("%s: no error" % what)

with Session.connect(address, token="wrong") as s:
    refused("wrong token", s.state)
with Session.connect(address, token_file=token_file) as s:
    s.launch(program, [shaders])
    refused("bad target", lambda: s.add_breakpoint("draw x"))
    s.add_breakpoint("draw 2")
    s.continue_()
    s.debug_shader("fragment")
    refused("unknown variable", lambda: s.print("nothere", at=(1, 1)))
    stop = s.shader_step("over")
    print("after the error: line %d, p @ 3,4 = %s" % (stop.line, s.print("p", at=(3, 4))))
    s.kill()
"#;

#[test]
fn a_refused_request_raises_gldbg_error_with_the_daemons_message() {
    require_workspace();
    let dir = TempDir::new("py-errors");
    let tree = generated_tree(&dir);
    let token = "py-client-test-token";
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[("GLDBG_TOKEN", token)]);
    let token_file = dir.join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let script = dir.join("errors.py");
    std::fs::write(&script, ERRORS).unwrap();
    let address = format!("unix:{}", socket.display());
    let out = run_python(
        &tree,
        &[
            script.as_os_str(),
            address.as_ref(),
            token_file.as_os_str(),
            egl_files().as_os_str(),
            shaders_dir().as_os_str(),
        ],
    );
    assert!(
        out.status.success(),
        "errors.py failed:\n{}",
        out.transcript()
    );

    // The message the CLI shows for the same request: the daemon's.
    let cli = Session::new(
        egl_files(),
        "break draw 2\ncontinue\ndebug fragment\nprint nothere @ 1,1\nkill\n",
    )
    .args([shaders_dir().to_str().unwrap()])
    .keep_going()
    .run(&dir);
    let daemon_says = cli.failed("print nothere @ 1,1");
    assert!(daemon_says.contains("nothere"), "{daemon_says}");
    assert_eq!(
        after(&out, "unknown variable: "),
        format!("INVALID_ARGUMENT Print {daemon_says}")
    );
    assert_eq!(
        after(&out, "wrong token: "),
        "UNAUTHENTICATED GetState missing or wrong token (authorization: Bearer TOKEN)"
    );
    assert!(
        after(&out, "bad target: ").starts_with("client - `draw x`: "),
        "{}",
        out.transcript()
    );
    let p = wave_p(3, 4);
    assert_eq!(
        after(&out, "after the error: "),
        format!(
            "line 20, p @ 3,4 = vec2 ({:?}, {:?})",
            p[0] as f64, p[1] as f64
        )
    );
}

/// Leaves a started session with the app stopped at a draw (argv: gldbg-debugd, program, shaders dir).
const CLOSE: &str = r#"
import subprocess, sys
from gldbg import Session

debugd, program, shaders = sys.argv[1:4]
# Not our stdout: an app left running must not hold the test's pipe.
s = Session.start(debugd, output=subprocess.DEVNULL)
# Frames enough to run for minutes: only a kill ends it soon.
st = s.launch(program, ["--frames", "10000000", shaders])
s.add_breakpoint("draw 2")
print("stopped at draw", s.continue_().stop.draw)
print("app", st.stop.pid)
print("daemon", s._daemon.process.pid)
print("dir", s._daemon.dir)
s.close()
"#;

/// Whether process `pid` is gone (or a zombie nobody waited for yet).
fn gone(pid: &str) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}

#[test]
fn closing_a_started_session_ends_the_app_and_the_daemon() {
    require_workspace();
    let dir = TempDir::new("py-close");
    let tree = generated_tree(&dir);
    let script = dir.join("close.py");
    std::fs::write(&script, CLOSE).unwrap();
    let out = run_python(
        &tree,
        &[
            script.as_os_str(),
            debugd().as_os_str(),
            egl_files().as_os_str(),
            shaders_dir().as_os_str(),
        ],
    );
    assert!(
        out.status.success(),
        "close.py failed:\n{}",
        out.transcript()
    );
    assert_eq!(after(&out, "stopped at draw "), "2");
    // The app would outlive its daemon (no PTRACE_O_EXITKILL): close kills it first.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    for who in ["app ", "daemon "] {
        let pid = after(&out, who);
        while !gone(pid) {
            if std::time::Instant::now() > deadline {
                // SAFETY: kill(2) on a pid the script printed as ours.
                unsafe { libc::kill(pid.parse().unwrap(), libc::SIGKILL) };
                panic!("{who}{pid} still ran after close:\n{}", out.transcript());
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let private = after(&out, "dir ");
    assert!(
        !Path::new(private).exists(),
        "{private} (socket, token) left behind"
    );
}

#[test]
fn the_package_builds_offline_with_debians_setuptools() {
    let python = python();
    let pip = Command::new(&python)
        .args(["-m", "pip", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        pip,
        "{PYTHON} -m pip is missing: install the Debian package python3-pip (`bash .ci/setup`)"
    );
    let dir = TempDir::new("py-wheel");
    // A copy of clients/python beside the proto, as in the repository: the
    // build writes build/ and *.egg-info next to its sources.
    let copy = dir.join("repo");
    copy_tree(&client_dir(), &copy.join("clients/python"));
    std::fs::create_dir_all(copy.join("proto/proto")).unwrap();
    std::fs::copy(
        repo().join("proto/proto/gldbg.proto"),
        copy.join("proto/proto/gldbg.proto"),
    )
    .unwrap();
    let wheels = dir.join("wheels");
    let mut cmd = Command::new(&python);
    cmd.args([
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "--no-index",
    ])
    .arg(copy.join("clients/python"))
    .arg("-w")
    .arg(&wheels)
    .env("PIP_DISABLE_PIP_VERSION_CHECK", "1");
    let out = run_command(cmd);
    assert!(
        out.status.success(),
        "pip wheel failed:\n{}",
        out.transcript()
    );
    let wheel = wheels.join("gldbg-0.1.0-py3-none-any.whl");
    assert!(
        wheel.is_file(),
        "no {}:\n{}",
        wheel.display(),
        out.transcript()
    );

    // Imported from the wheel itself (a pure-Python wheel is a zip Python
    // imports from): the stub has every RPC of the proto, proto3
    // `optional` fields have presence.
    let proto = std::fs::read_to_string(repo().join("proto/proto/gldbg.proto")).unwrap();
    let rpcs = proto
        .lines()
        .filter(|l| l.trim_start().starts_with("rpc "))
        .count();
    let check = "import grpc, gldbg\n\
        from gldbg.proto import grpc_stubs, pb\n\
        stub = grpc_stubs.DebuggerStub(grpc.insecure_channel('unix:/nonexistent'))\n\
        rpcs = [m.name for m in pb.DESCRIPTOR.services_by_name['Debugger'].methods]\n\
        print('rpcs', len(rpcs), all(hasattr(stub, r) for r in rpcs))\n\
        e = pb.Exit(); before = e.HasField('code'); e.code = 0\n\
        print('presence', before, e.HasField('code'), e.SerializeToString().hex())\n\
        print('from', gldbg.__file__)\n\
        import ast, sys, zipfile\n\
        z = zipfile.ZipFile(sys.argv[1])\n\
        pyi = z.read('gldbg/_pb/gldbg_pb2.pyi').decode()\n\
        ast.parse(pyi)\n\
        print('stubs', 'class StateReply(_message.Message):' in pyi, 'gldbg/_pb/py.typed' in z.namelist())\n\
        from google.protobuf import descriptor_pb2, text_format\n\
        ref = descriptor_pb2.FileDescriptorSet.FromString(open(sys.argv[2], 'rb').read())\n\
        (want,) = [f for f in ref.file if f.package == 'gldbg.v1']\n\
        got = descriptor_pb2.FileDescriptorProto.FromString(pb.DESCRIPTOR.serialized_pb)\n\
        for f in (want, got): f.ClearField('name'); f.ClearField('source_code_info')\n\
        print('same descriptor', got == want)\n\
        if got != want: print(text_format.MessageToString(got), '---', text_format.MessageToString(want))\n";
    let reference = dir.join("reference.desc");
    std::fs::write(&reference, gldbg_proto::pb::FILE_DESCRIPTOR_SET).unwrap();
    let mut cmd = Command::new(&python);
    cmd.args(["-c", check])
        .arg(&wheel)
        .arg(&reference)
        .env("PYTHONPATH", &wheel);
    let out = run_command(cmd);
    assert!(
        out.status.success(),
        "the wheel's package:\n{}",
        out.transcript()
    );
    assert_eq!(after(&out, "rpcs "), format!("{rpcs} True"));
    // `code = 0` is sent (field 1, varint 0): presence, not proto3's default dropping.
    assert_eq!(after(&out, "presence "), "False True 0800");
    // The messages' descriptor is the one a current protoc makes of the
    // proto (the daemon's, from protoc-bin-vendored), though Debian's
    // grpc_tools (protoc 3.5) knows no proto3 `optional`.
    assert_eq!(
        after(&out, "same descriptor "),
        "True",
        "{}",
        out.transcript()
    );
    // Type stubs of the messages (for type checkers and editors), valid Python.
    assert_eq!(after(&out, "stubs "), "True True");
    assert!(
        after(&out, "from ").starts_with(wheel.to_str().unwrap()),
        "{}",
        out.transcript()
    );
}

/// `from` copied to `to` (files and directories; build outputs left out).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        let skip = ["build", "dist", "__pycache__"];
        if skip.iter().any(|s| name == *s) || name.to_string_lossy().ends_with(".egg-info") {
            continue;
        }
        let (src, dst) = (entry.path(), to.join(&name));
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}
