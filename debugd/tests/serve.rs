//! The gRPC edge without an app: Unix socket mode 0600, the token
//! interceptor, health, TCP needing a token, and clean errors when nothing
//! is launched.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::time::Duration;

use gldbg_debugd::{Config, Daemon, ListenAddr};
use gldbg_proto::pb;
use gldbg_proto::pb::debugger_client::DebuggerClient;
use hyper_util::rt::TokioIo;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Code, Request};

fn temp_dir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gldbg-debugd-test-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

async fn unix_channel(path: PathBuf) -> Channel {
    Endpoint::try_from("http://[::]:50051")
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = path.clone();
            async move {
                Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?))
            }
        }))
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unix_socket_token_health_and_preconditions() {
    let dir = temp_dir("unix");
    let sock = dir.join("d.sock");
    // A stale socket file (nobody listens: the listener is gone) is replaced.
    std::fs::write(&sock, "").unwrap();
    std::fs::remove_file(&sock).unwrap();
    drop(std::os::unix::net::UnixListener::bind(&sock).unwrap());
    assert!(sock.exists());
    let daemon = Daemon::new(Config {
        preload: dir.join("libgldbg_preload.so"),
        app_ends_with_daemon: false,
    });
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let d = daemon.clone();
    let addr = ListenAddr::Unix(sock.clone());
    let server = tokio::spawn(async move {
        d.serve(addr, Some("tok".into()), async {
            let _ = rx.await;
        })
        .await
    });
    for _ in 0..100 {
        if std::fs::metadata(&sock)
            .map(|m| m.permissions().mode() & 0o777 == 0o600)
            .unwrap_or(false)
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(
        std::fs::metadata(&sock).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let channel = unix_channel(sock.clone()).await;
    // No token: UNAUTHENTICATED.
    let mut bare = DebuggerClient::new(channel.clone());
    let e = bare.get_state(pb::Empty {}).await.unwrap_err();
    assert_eq!(e.code(), Code::Unauthenticated, "{e:?}");
    // Wrong token.
    let mut wrong = DebuggerClient::with_interceptor(channel.clone(), |mut r: Request<()>| {
        r.metadata_mut()
            .insert("authorization", "Bearer nope".parse().unwrap());
        Ok(r)
    });
    assert_eq!(
        wrong.get_state(pb::Empty {}).await.unwrap_err().code(),
        Code::Unauthenticated
    );

    let mut c = DebuggerClient::with_interceptor(channel.clone(), |mut r: Request<()>| {
        r.metadata_mut()
            .insert("authorization", "Bearer tok".parse().unwrap());
        Ok(r)
    });
    let st = c.get_state(pb::Empty {}).await.unwrap().into_inner();
    assert_eq!(st.state, pb::RunState::NotStarted as i32);
    // Needs a launched app: FAILED_PRECONDITION, at once.
    for e in [
        c.info_call(pb::Empty {}).await.unwrap_err(),
        c.r#continue(pb::Empty {}).await.unwrap_err(),
        c.debug_shader(pb::DebugShaderRequest {
            stage: "fragment".into(),
            ..Default::default()
        })
        .await
        .unwrap_err(),
        c.print(pb::PrintRequest {
            expr: "x".into(),
            at: None,
        })
        .await
        .unwrap_err(),
    ] {
        assert_eq!(e.code(), Code::FailedPrecondition, "{e:?}");
    }
    assert_eq!(
        c.debug_shader(pb::DebugShaderRequest {
            stage: "pixel".into(),
            ..Default::default()
        })
        .await
        .unwrap_err()
        .code(),
        Code::InvalidArgument
    );
    let e = c
        .add_breakpoint(pb::BreakpointSpec {
            kind: Some(pb::breakpoint_spec::Kind::Function("glNope".into())),
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::InvalidArgument);
    let b = c
        .add_breakpoint(pb::BreakpointSpec {
            kind: Some(pb::breakpoint_spec::Kind::Function("glDrawArrays".into())),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(b.description, "glDrawArrays");
    let e = c
        .launch(pb::LaunchRequest {
            program: dir.join("missing").display().to_string(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert_eq!(e.code(), Code::NotFound);
    assert!(e.message().contains("no such program"), "{e:?}");

    // Health (also behind the token).
    let mut h = tonic_health::pb::health_client::HealthClient::with_interceptor(
        channel,
        |mut r: Request<()>| {
            r.metadata_mut()
                .insert("authorization", "Bearer tok".parse().unwrap());
            Ok(r)
        },
    );
    let resp = h
        .check(tonic_health::pb::HealthCheckRequest {
            service: "gldbg.v1.Debugger".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        resp.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );

    // An open event stream does not hold up the shutdown.
    let _events = c.events(pb::Empty {}).await.unwrap().into_inner();
    tx.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("shutdown in time")
        .unwrap()
        .unwrap();
    assert!(!sock.exists(), "the socket is removed after shutdown");
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn tcp_needs_a_token() {
    let daemon = Daemon::new(Config {
        preload: "/nonexistent.so".into(),
        app_ends_with_daemon: false,
    });
    let r = daemon
        .serve("127.0.0.1:0".parse().unwrap(), None, async {})
        .await;
    assert!(r.unwrap_err().to_string().contains("token"));
}
