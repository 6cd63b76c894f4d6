//! Stock gRPC clients, unmodified, on the daemon's Unix socket (issue 12,
//! point 14): Python grpcio calls a unary RPC (`grpc.health.v1.Health/Check`)
//! and lists services through reflection v1alpha and v1, with no channel
//! option. grpcio >= 1.57 sends the percent-encoded socket path as the
//! `:authority` (`tmp%2Fd.sock`, seen with grpcio 1.85), grpc-java the raw
//! path, which h2 refuses; Debian 12's grpcio (1.51) sends `localhost`, so
//! those two authorities are also sent explicitly. A newer grpcio is used
//! too when `GLDBG_TEST_GRPCIO_PYTHON` names a python that has it.

use std::process::Command;

use gldbg_tests::*;

/// The client: `python CLIENT SOCKET [AUTHORITY]`; prints one line per check.
const CLIENT: &str = r#"
import sys, grpc
path = sys.argv[1]
options = [("grpc.default_authority", sys.argv[2])] if len(sys.argv) > 2 else []
ch = grpc.insecure_channel("unix:" + path, options=options)
check = ch.unary_unary("/grpc.health.v1.Health/Check")
print("health", check(b"", timeout=20).hex())
for version in ("v1alpha", "v1"):
    info = ch.stream_stream("/grpc.reflection.%s.ServerReflection/ServerReflectionInfo" % version)
    # ServerReflectionRequest { list_services: "" } (field 7).
    for reply in info(iter([b"\x3a\x00"]), timeout=20):
        print("reflection", version, b"gldbg.v1.Debugger" in reply)
"#;

/// Pythons with grpcio: Debian's, and the one `GLDBG_TEST_GRPCIO_PYTHON` names.
fn pythons() -> Vec<String> {
    let mut found = Vec::new();
    let mut candidates = vec!["/usr/bin/python3".to_string()];
    candidates.extend(std::env::var("GLDBG_TEST_GRPCIO_PYTHON").ok());
    for py in candidates {
        let ok = Command::new(&py)
            .args(["-c", "import grpc; print(grpc.__version__)"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            found.push(py);
        }
    }
    found
}

#[test]
fn stock_grpcio_on_the_unix_socket() {
    require_workspace();
    let pythons = pythons();
    assert!(
        !pythons.is_empty(),
        "no python3 with grpcio: install the Debian package python3-grpcio (`bash .ci/setup`)"
    );
    let dir = TempDir::new("stock");
    let socket = dir.join("d.sock");
    let _daemon = start_unix_daemon(&socket, &[]);
    let script = dir.join("client.py");
    std::fs::write(&script, CLIENT).unwrap();
    let s = socket.to_str().unwrap();
    let encoded = s.trim_start_matches('/').replace('/', "%2F");
    for py in &pythons {
        for authority in [None, Some(encoded.as_str()), Some(s)] {
            let mut cmd = Command::new(py);
            cmd.arg(&script).arg(&socket).args(authority);
            let out = run_command(cmd);
            let what = format!("{py}, authority {authority:?}:\n{}", out.transcript());
            assert!(out.status.success(), "{what}");
            // HealthCheckResponse { status: SERVING }.
            assert!(out.stdout.contains("health 0801"), "{what}");
            assert!(out.stdout.contains("reflection v1alpha True"), "{what}");
            assert!(out.stdout.contains("reflection v1 True"), "{what}");
        }
    }
}
