//! memcheck's modes (issue 17) with `tests/apps/egl_compute.c`:
//!
//! * over the raw gRPC API of a real `gldbg-debugd`: `Memcheck` sets and
//!   reports the mode before a launch, with the app stopped and while a
//!   `continue` runs it (every dispatch and draw then stops internally:
//!   the continue still ends at the app's exit, never at one of them); a
//!   mode that does not exist is INVALID_ARGUMENT naming it;
//! * `gldbg run --memcheck`: the app prints what it prints natively, a
//!   program memcheck cannot check is said once, not at each of its
//!   calls, and `memcheck` reports in CLI.md's JSON.

mod support;

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use gldbg_proto::pb;
use gldbg_proto::pb::debugger_client::DebuggerClient;
use gldbg_tests::*;
use tonic::Code;
use tonic::transport::Channel;

type Client = DebuggerClient<Channel>;

/// How long one request may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(120);
const FRAMES: &str = "30";

async fn timely<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer after {HANG:?} (hang)"))
}

async fn memcheck(c: &mut Client, mode: pb::MemcheckMode) -> pb::MemcheckReport {
    timely(
        "Memcheck",
        c.memcheck(pb::MemcheckRequest { mode: mode as i32 }),
    )
    .await
    .unwrap_or_else(|e| panic!("Memcheck {mode:?}: {e}"))
    .into_inner()
}

fn state(r: &pb::StateReply) -> pb::RunState {
    pb::RunState::try_from(r.state).unwrap_or(pb::RunState::Unspecified)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memcheck_modes_before_launch_stopped_and_running() {
    require_workspace();
    let dir = TempDir::new("memcheck-grpc");
    let socket = dir.join("debugd.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let mut c = DebuggerClient::new(support::grpc::channel(socket.clone()).await);
    use pb::MemcheckMode::*;

    // Before any launch: the mode is kept for the app to come.
    let r = memcheck(&mut c, MemcheckReport).await;
    assert_eq!(r.mode(), MemcheckOff, "off by default");
    let r = memcheck(&mut c, MemcheckOn).await;
    assert_eq!(r.mode(), MemcheckOn);
    assert_eq!((r.calls_checked, r.findings.len()), (0, 0));
    assert_eq!(r.budget_bytes, 256 << 20, "the default shadow budget");
    for bad in [9, -1, i32::MAX] {
        let e = timely("Memcheck", c.memcheck(pb::MemcheckRequest { mode: bad }))
            .await
            .expect_err("an unknown mode");
        assert_eq!(e.code(), Code::InvalidArgument, "{e}");
        assert!(
            e.message().contains(&format!("unknown mode {bad}")),
            "{}",
            e.message()
        );
    }
    assert_eq!(memcheck(&mut c, MemcheckReport).await.mode(), MemcheckOn);

    // Stopped at the first GL call.
    let launch = pb::LaunchRequest {
        program: egl_compute().display().to_string(),
        args: vec!["--frames".into(), FRAMES.into(), "--draw".into()],
        ..Default::default()
    };
    let r = timely("Launch", c.launch(launch))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(state(&r), pb::RunState::Stopped, "{r:?}");
    assert_eq!(memcheck(&mut c, MemcheckStop).await.mode(), MemcheckStop);
    assert_eq!(memcheck(&mut c, MemcheckOn).await.mode(), MemcheckOn);

    // Running: a continue through every dispatch's and draw's check.
    let mut mover = c.clone();
    let cont = tokio::spawn(async move {
        timely("Continue", mover.r#continue(pb::Empty {}))
            .await
            .map(|r| r.into_inner())
    });
    // Asked while the continue runs (until it ended): answered every time.
    let mut asked = 0;
    while !cont.is_finished() || asked == 0 {
        let r = memcheck(&mut c, MemcheckReport).await;
        assert_eq!(r.mode(), MemcheckOn);
        asked += 1;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let r = cont.await.unwrap().expect("continue");
    assert_eq!(
        state(&r),
        pb::RunState::Exited,
        "no internal stop is reported: {r:?}"
    );
    assert_eq!(r.exit.as_ref().and_then(|e| e.code), Some(0), "{r:?}");
    assert!(r.memcheck.is_none());
    assert_eq!(memcheck(&mut c, MemcheckOff).await.mode(), MemcheckOff);
}

/// The app's own result lines among a JSON session's output events.
fn app_lines(out: &Output) -> Vec<String> {
    let text: String = out
        .events()
        .iter()
        .filter(|e| e["event"] == "output")
        .filter_map(|e| e["text"].as_str())
        .collect();
    text.lines()
        .filter(|l| l.starts_with("egl_compute"))
        .map(str::to_string)
        .collect()
}

fn run_memcheck(dir: &TempDir, program: &Path, script: &str, args: &[&str]) -> Output {
    let path = dir.join("memcheck.gldbg");
    std::fs::write(&path, script).unwrap();
    let mut cmd = Command::new(gldbg());
    cmd.args(["run", "--memcheck", "--batch", "--json", "-x"])
        .arg(&path)
        .arg("--")
        .arg(program)
        .args(args);
    run_command(cmd)
}

#[test]
fn gldbg_run_memcheck_leaves_the_app_as_it_is_and_warns_once_per_program() {
    require_workspace();
    let dir = TempDir::new("memcheck-run");
    let args = ["--frames", FRAMES, "--draw"];
    let native = run_native(&egl_compute(), &args, &[]);
    let want: Vec<&str> = native
        .stdout
        .lines()
        .filter(|l| l.starts_with("egl_compute"))
        .collect();
    assert_eq!(want.len(), 2, "{}", native.stdout);
    // `on` from the start, and `stop` (checked aside: the calls run natively).
    for (mode, script, first) in [
        ("on", "memcheck\ncontinue\nmemcheck\n", ("memcheck", 0)),
        (
            "stop",
            "memcheck stop\ncontinue\nmemcheck\n",
            ("memcheck stop", 0),
        ),
    ] {
        let out = run_memcheck(&dir, &egl_compute(), script, &args);
        assert!(out.status.success(), "{}", out.transcript());
        let report = out.ok_n(first.0, first.1);
        assert_eq!(report["memcheck"], mode, "{}", out.transcript());
        assert_eq!(report["calls_checked"], 0);
        assert_eq!(report["budget_bytes"], 256u64 << 20);
        assert_eq!(
            out.ok("continue")["state"],
            "exited",
            "{}",
            out.transcript()
        );
        assert_eq!(app_lines(&out), want, "{}", out.transcript());
        let last = out.ok_n("memcheck", if mode == "on" { 1 } else { 0 });
        check_events(&out, last);
    }
}

/// Every finding is an event once per kind and line, the report has them
/// all; a program that cannot be checked (or run checked) is said once (a
/// compute and a fragment shader, 30 frames each), in the report too.
fn check_events(out: &Output, report: &serde_json::Value) {
    let events: Vec<(String, u64)> = out
        .events()
        .iter()
        .filter(|e| e["event"] == "memcheck")
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["line"].as_u64().unwrap(),
            )
        })
        .collect();
    let mut unique = events.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        events.len(),
        "one event per (kind, line): {events:?}"
    );
    assert_eq!(report["findings"].as_array().unwrap().len(), events.len());
    let warned: Vec<&str> = out
        .events()
        .iter()
        .filter(|e| e["event"] == "warning")
        .filter_map(|e| e["message"].as_str())
        .filter(|m| m.starts_with("memcheck"))
        .collect();
    assert!(warned.len() <= 2, "{warned:#?}");
    let not_checked = report["not_checked"].as_array().unwrap();
    for w in &warned {
        assert!(
            not_checked.iter().any(|n| w.contains(n.as_str().unwrap())),
            "the warning is in the report's not-checked list: {w}\n{not_checked:?}"
        );
    }
}
