//! `history` while the app runs: a daemon runs egl_history (a `Continue`
//! in flight on one gRPC connection) and `gldbg connect` asks for a
//! history on another; it is refused, saying the app runs.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use gldbg_proto::pb;
use gldbg_tests::*;

use super::egl_history;
use super::support::grpc;

const TOKEN: &str = "history-token";
/// How long one request may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);

async fn timely<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer after {HANG:?} (hang)"))
}

fn state(r: &pb::StateReply) -> pb::RunState {
    pb::RunState::try_from(r.state).unwrap_or(pb::RunState::Unspecified)
}

/// `gldbg connect` running `script` (`--batch --json`) on the daemon.
fn connect(socket: &Path, dir: &TempDir, script: &str) -> Output {
    let path = dir.join("running.gldbg");
    std::fs::write(&path, script).unwrap();
    let mut cmd = Command::new(gldbg());
    cmd.arg("connect")
        .arg(format!("unix:{}", socket.display()))
        .env("GLDBG_TOKEN", TOKEN)
        .args(["--batch", "--json", "-x"])
        .arg(&path);
    run_command(cmd)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn history_while_the_app_runs_is_refused() {
    require_workspace();
    let dir = TempDir::new("history-running");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[("GLDBG_TOKEN", TOKEN)]);
    let mut c = grpc::client(socket.clone(), TOKEN).await;
    timely(
        "Launch",
        c.launch(pb::LaunchRequest {
            program: egl_history().display().to_string(),
            args: vec!["--frames".into(), "1000000".into()],
            capture_output: true,
            ..Default::default()
        }),
    )
    .await
    .expect("Launch");
    let mut runner = grpc::client(socket.clone(), TOKEN).await;
    let running = tokio::spawn(async move { runner.r#continue(pb::Empty {}).await });
    let deadline = Instant::now() + HANG;
    loop {
        let s = timely("GetState", c.get_state(pb::Empty {}))
            .await
            .expect("GetState")
            .into_inner();
        if state(&s) == pb::RunState::Running {
            break;
        }
        assert!(Instant::now() < deadline, "the app never ran: {s:?}");
        tokio::task::yield_now().await;
    }

    let cli_socket = socket.clone();
    let out = tokio::task::spawn_blocking(move || {
        let dir = TempDir::new("history-running-cli");
        connect(&cli_socket, &dir, "history 10,10\n")
    })
    .await
    .unwrap();
    let err = out.failed("history 10,10");
    assert!(
        err.contains("running"),
        "history while the app runs: the error should say it runs: {err:?}\n{}",
        out.transcript()
    );

    // The session stays whole: `gldbg connect` kills the app as it
    // leaves, and the Continue in flight reports that end (no hang).
    let end = timely("Continue", running)
        .await
        .unwrap()
        .expect("Continue")
        .into_inner();
    assert_eq!(state(&end), pb::RunState::Exited, "{end:?}");
}
