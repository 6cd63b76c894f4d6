//! The daemon alone (`gldbg-debugd --listen unix:PATH -- PROGRAM`) and the CLI
//! as a remote client (`gldbg connect`): the same session as in run mode, over
//! the gRPC API, with a token.

use std::path::Path;
use std::process::{Child, Command, Stdio};

use gldbg_tests::*;

/// The standalone daemon, killed on drop.
struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_daemon(socket: &Path, token: &str, program: &Path, args: &[&str]) -> Daemon {
    let mut child = Command::new(debugd())
        .arg("--listen")
        .arg(format!("unix:{}", socket.display()))
        .env("GLDBG_TOKEN", token)
        .arg("--")
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gldbg-debugd");
    // Wait for the socket (a readiness check, not a timing assertion).
    for _ in 0..3000 {
        if socket.exists() {
            return Daemon(child);
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("gldbg-debugd exited early: {status}");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    panic!("gldbg-debugd did not create {}", socket.display());
}

fn connect(socket: &Path, token: Option<&str>, script: &Path) -> Output {
    let mut cmd = Command::new(gldbg());
    cmd.arg("connect").arg(format!("unix:{}", socket.display()));
    if let Some(t) = token {
        cmd.env("GLDBG_TOKEN", t);
    }
    cmd.args(["--batch", "--json", "-x"]).arg(script);
    run_command(cmd)
}

#[test]
fn connect_to_a_standalone_daemon() {
    require_workspace();
    let dir = TempDir::new("remote");
    let socket = dir.join("gldbg.sock");
    let frame = dir.join("frame.raw");
    let native = dir.join("native.raw");
    let _daemon = start_daemon(
        &socket,
        "s3cret",
        &egl_shade(),
        &["--out", frame.to_str().unwrap()],
    );

    // Without the token: refused, and the session is untouched.
    let probe = dir.join("probe.gldbg");
    std::fs::write(&probe, "info call\n").unwrap();
    let refused = connect(&socket, None, &probe);
    assert_eq!(
        refused.status.code(),
        Some(1),
        "no token, no session:\n{}",
        refused.transcript()
    );
    let wrong = connect(&socket, Some("wrong"), &probe);
    assert_eq!(
        wrong.status.code(),
        Some(1),
        "wrong token:\n{}",
        wrong.transcript()
    );

    let script = dir.join("session.gldbg");
    std::fs::write(
        &script,
        format!(
            "break draw\ncontinue\ndebug fragment\nbreak {}\ncontinue\nprint v @ 40,30\nprint v\nend\ndelete\ncontinue\n",
            lines::RETURN
        ),
    )
    .unwrap();
    let out = connect(&socket, Some("s3cret"), &script);
    assert_eq!(
        out.ok("continue")["stopped"]["function"],
        "glDrawArrays",
        "{}",
        out.transcript()
    );
    assert_close(
        scalar(out.ok("print v @ 40,30")),
        shade(40, 30, gain(0)).v as f64,
        1e-5,
        "v @ 40,30 over the remote API",
    );
    assert_eq!(out.ok("print v")["summary"]["count"], COVERED);
    let end = out.ok_n("continue", 2);
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(end["exited"]["code"], 0, "{end}");
    assert!(out.status.success(), "{}", out.transcript());

    run_native(&egl_shade(), &["--out", native.to_str().unwrap()], &[]);
    assert!(
        read_frame(&frame) == read_frame(&native),
        "frame differs from a native run"
    );
}
