//! Malformed and out-of-order requests on the raw gRPC API of a real
//! `gldbg-debugd` with a launched app (debugd/tests/serve.rs covers the
//! same edge without an app): each is answered at once with a clear status
//! (never UNKNOWN or INTERNAL, never a hang), the session stays usable and
//! the app still ends normally.
//!
//! Launch twice, an empty function name, Print / ShaderStep / EndDebug
//! before DebugShader, an unknown stage, SetArg out of range, Step and
//! InfoCall while the app runs, a huge step count, commands after the exit.

mod support;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use gldbg_proto::pb;
use gldbg_tests::*;
use tonic::{Code, Status};

const TOKEN: &str = "protocol-token";

/// How long one request may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);

use support::grpc::Client;

/// A client of the daemon at `socket`, with this file's token.
async fn client(socket: PathBuf) -> Client {
    support::grpc::client(socket, TOKEN).await
}

/// Awaits a request with the hang guard.
async fn timely<T>(what: &str, f: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(HANG, f)
        .await
        .unwrap_or_else(|_| panic!("{what}: no answer after {HANG:?} (hang)"))
}

/// A request that must fail with `code` and a message.
#[track_caller]
fn refused<T: std::fmt::Debug>(what: &str, r: Result<tonic::Response<T>, Status>, code: Code) {
    match r {
        Ok(v) => panic!("{what} should fail with {code:?}, got {v:?}"),
        Err(s) => {
            assert_eq!(s.code(), code, "{what}: {s:?}");
            assert!(!s.message().is_empty(), "{what}: an empty message");
        }
    }
}

fn state(r: &pb::StateReply) -> pb::RunState {
    pb::RunState::try_from(r.state).unwrap_or(pb::RunState::Unspecified)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_and_out_of_order_requests() {
    require_workspace();
    let app = support::survivor();
    let dir = TempDir::new("protocol");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[("GLDBG_TOKEN", TOKEN)]);
    let mut c = client(socket.clone()).await;

    let launch = pb::LaunchRequest {
        program: app.display().to_string(),
        // Long enough to be still running while the test looks (about 30 s
        // natively); it is killed once it has stopped again.
        args: vec![
            "--frames".into(),
            "1000000".into(),
            "--tick".into(),
            "1000".into(),
        ],
        ..Default::default()
    };
    let first = timely("Launch", c.launch(launch.clone()))
        .await
        .expect("Launch")
        .into_inner();
    assert_eq!(state(&first), pb::RunState::Stopped, "{first:?}");

    // Launch twice: one app per session.
    refused(
        "second Launch",
        timely("Launch", c.launch(launch.clone())).await,
        Code::FailedPrecondition,
    );
    // An empty function name, and a breakpoint spec with no kind.
    refused(
        "break on \"\"",
        timely(
            "AddBreakpoint",
            c.add_breakpoint(pb::BreakpointSpec {
                kind: Some(pb::breakpoint_spec::Kind::Function(String::new())),
            }),
        )
        .await,
        Code::InvalidArgument,
    );
    refused(
        "break with no kind",
        timely(
            "AddBreakpoint",
            c.add_breakpoint(pb::BreakpointSpec { kind: None }),
        )
        .await,
        Code::InvalidArgument,
    );
    // Shader commands before DebugShader.
    refused(
        "Print before DebugShader",
        timely(
            "Print",
            c.print(pb::PrintRequest {
                expr: "w".into(),
                at: None,
            }),
        )
        .await,
        Code::FailedPrecondition,
    );
    refused(
        "ShaderStep before DebugShader",
        timely(
            "ShaderStep",
            c.shader_step(pb::ShaderStepRequest {
                count: 1,
                ..Default::default()
            }),
        )
        .await,
        Code::FailedPrecondition,
    );
    refused(
        "EndDebug before DebugShader",
        timely("EndDebug", c.end_debug(pb::Empty {})).await,
        Code::FailedPrecondition,
    );
    // DebugShader: an unknown stage; a real one away from a draw.
    refused(
        "DebugShader of stage \"bogus\"",
        timely(
            "DebugShader",
            c.debug_shader(pb::DebugShaderRequest {
                stage: "bogus".into(),
                ..Default::default()
            }),
        )
        .await,
        Code::InvalidArgument,
    );
    refused(
        "DebugShader with depth mode 7",
        timely(
            "DebugShader",
            c.debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                depth: 7,
                ..Default::default()
            }),
        )
        .await,
        Code::InvalidArgument,
    );
    refused(
        "DebugShader at eglGetProcAddress",
        timely(
            "DebugShader",
            c.debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                ..Default::default()
            }),
        )
        .await,
        Code::FailedPrecondition,
    );
    // SetArg out of range (eglGetProcAddress has one argument).
    refused(
        "SetArg 99",
        timely(
            "SetArg",
            c.set_arg(pb::SetArgRequest {
                index: 99,
                value: "1".into(),
                element: None,
            }),
        )
        .await,
        Code::InvalidArgument,
    );
    // The session is unchanged: still at call 1.
    let call = timely("InfoCall", c.info_call(pb::Empty {}))
        .await
        .expect("InfoCall")
        .into_inner();
    assert_eq!(
        (call.function.as_str(), call.call),
        ("eglGetProcAddress", 1)
    );

    // While the app runs (a Continue in flight on another connection):
    // Step and InfoCall are refused at once.
    let mut runner = client(socket.clone()).await;
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
    refused(
        "Step while running",
        timely("Step", c.step(pb::StepRequest { count: 1 })).await,
        Code::FailedPrecondition,
    );
    refused(
        "InfoCall while running",
        timely("InfoCall", c.info_call(pb::Empty {})).await,
        Code::FailedPrecondition,
    );
    // Stop it again with a breakpoint (set while it runs), then kill it.
    timely(
        "AddBreakpoint",
        c.add_breakpoint(pb::BreakpointSpec {
            kind: Some(pb::breakpoint_spec::Kind::Function("glFinish".into())),
        }),
    )
    .await
    .expect("break glFinish while running");
    let stop = timely("Continue", running)
        .await
        .unwrap()
        .expect("Continue")
        .into_inner();
    assert_eq!(state(&stop), pb::RunState::Stopped, "{stop:?}");
    assert_eq!(
        stop.stop.as_ref().map(|s| s.function.as_str()),
        Some("glFinish")
    );
    let killed = timely("Kill", c.kill(pb::Empty {}))
        .await
        .expect("Kill")
        .into_inner();
    assert_eq!(state(&killed), pb::RunState::Exited, "{killed:?}");

    // After the exit: clear refusals.
    refused(
        "Continue after the exit",
        timely("Continue", c.r#continue(pb::Empty {})).await,
        Code::FailedPrecondition,
    );
    refused(
        "InfoCall after the exit",
        timely("InfoCall", c.info_call(pb::Empty {})).await,
        Code::FailedPrecondition,
    );
}

/// `Step` with count u64::MAX steps to the app's exit: no hang, no overflow.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_step_count_ends_at_the_exit() {
    require_workspace();
    let app = support::survivor();
    let dir = TempDir::new("protocol-step");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[("GLDBG_TOKEN", TOKEN)]);
    let mut c = client(socket.clone()).await;
    timely(
        "Launch",
        c.launch(pb::LaunchRequest {
            program: app.display().to_string(),
            args: vec!["--frames".into(), "100".into()],
            ..Default::default()
        }),
    )
    .await
    .expect("Launch");
    let end = timely("Step u64::MAX", c.step(pb::StepRequest { count: u64::MAX }))
        .await
        .expect("Step u64::MAX")
        .into_inner();
    assert_eq!(state(&end), pb::RunState::Exited, "{end:?}");
    assert_eq!(end.exit.and_then(|e| e.code), Some(0), "the app exits 0");
}
