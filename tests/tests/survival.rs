//! Survival: the app outlives the debugger, and the daemon outlives bad
//! clients.
//!
//! * The daemon (`gldbg-debugd --listen unix:PATH -- survivor`) killed with
//!   SIGKILL while the app is stopped at a draw, and while it runs: the app
//!   goes on in pass-through, exits 0 and renders the same last frame as a
//!   native run. The test process is a child subreaper, so the orphaned app
//!   is reparented to it and its exit status can be read.
//! * A client killed in the middle of `continue`: the session lives on and
//!   a second client takes over (stops the app, lets it finish).
//! * Two clients on one session: `gldbg connect` sees the stop a
//!   `gldbg run --listen` session made, and the app's exit.
//! * Out-of-order and malformed commands: clear errors at once, no hang.
//! * TCP: a token is always required (generated when none is given); a client without
//!   it is rejected, with it served.
//!
//! Clients run as `gldbg connect ... --json` REPLs fed through a pipe, so a
//! test can wait for each result line before acting (no sleeps).

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use gldbg_tests::*;
use support::*;

/// How long to wait for an expected line before failing (a hang guard).
const WAIT: Duration = Duration::from_secs(120);

const TOKEN: &str = "survival-token";

// ---------------------------------------------------------------------------
// Processes whose output a test waits on

/// Lines of a child's stream, delivered through a channel by a reader thread.
struct Lines {
    rx: Receiver<String>,
    seen: Vec<String>,
}

impl Lines {
    fn new(stream: impl Read + Send + 'static) -> Lines {
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            // The app's output captured by `gldbg --json` comes as `output`
            // events: their text is delivered as the lines the app wrote.
            let mut app_text = String::new();
            for line in BufReader::new(stream).lines() {
                let Ok(line) = line else { break };
                let event = serde_json::from_str::<Value>(&line)
                    .ok()
                    .filter(|v| v["event"] == "output");
                let lines = match event {
                    Some(v) => {
                        app_text.push_str(v["text"].as_str().unwrap_or_default());
                        let end = app_text.rfind('\n').map_or(0, |i| i + 1);
                        let done: Vec<String> =
                            app_text[..end].lines().map(str::to_string).collect();
                        app_text.drain(..end);
                        done
                    }
                    None => vec![line],
                };
                if lines.into_iter().any(|l| tx.send(l).is_err()) {
                    break;
                }
            }
        });
        Lines {
            rx,
            seen: Vec::new(),
        }
    }

    /// The next line for which `f` returns Some, or None at the end of the
    /// stream; panics after [`WAIT`].
    fn wait_for<T>(&mut self, what: &str, mut f: impl FnMut(&str) -> Option<T>) -> Option<T> {
        let deadline = Instant::now() + WAIT;
        loop {
            match self
                .rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(line) => {
                    let found = f(&line);
                    self.seen.push(line);
                    if found.is_some() {
                        return found;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no {what} after {WAIT:?}; seen:\n{}", self.seen.join("\n"))
                }
            }
        }
    }

    /// Every remaining line, up to the end of the stream.
    fn rest(&mut self) -> Vec<String> {
        while self.wait_for("end of output", |_| None::<()>).is_some() {}
        self.seen.clone()
    }
}

/// A child process killed (SIGKILL) and reaped on drop if still there.
struct Proc {
    child: Child,
    name: &'static str,
}

impl Proc {
    fn sigkill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Waits for the exit (bounded by [`WAIT`]); returns the exit code.
    fn wait_exit(&mut self) -> Option<i32> {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status.code();
            }
            assert!(
                Instant::now() < deadline,
                "{} did not exit (hang?)",
                self.name
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.sigkill();
    }
}

/// `GLDBG_TOKEN=TOKEN gldbg-debugd --listen unix:SOCKET -- PROGRAM ARGS`, with
/// the app's stdout (inherited from the daemon) as lines.
fn start_daemon(socket: &Path, program: &Path, args: &[&str]) -> (Proc, Lines) {
    let mut child = Command::new(debugd())
        .arg("--listen")
        .arg(format!("unix:{}", socket.display()))
        .env("GLDBG_TOKEN", TOKEN)
        .arg("--")
        .arg(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gldbg-debugd");
    let stdout = Lines::new(child.stdout.take().unwrap());
    let mut daemon = Proc {
        child,
        name: "gldbg-debugd",
    };
    // Readiness: the socket exists once the daemon serves.
    let deadline = Instant::now() + WAIT;
    while !socket.exists() {
        if let Ok(Some(status)) = daemon.child.try_wait() {
            panic!("gldbg-debugd exited early: {status}");
        }
        assert!(Instant::now() < deadline, "no socket {}", socket.display());
        std::thread::sleep(Duration::from_millis(20));
    }
    (daemon, stdout)
}

/// A `gldbg connect|run ... --json` REPL driven through its stdin.
struct Client {
    proc: Proc,
    stdin: Option<ChildStdin>,
    out: Lines,
}

impl Client {
    fn spawn(mut cmd: Command, name: &'static str) -> Client {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gldbg");
        let stdin = child.stdin.take();
        let out = Lines::new(child.stdout.take().unwrap());
        Client {
            proc: Proc { child, name },
            stdin,
            out,
        }
    }

    /// `[GLDBG_TOKEN=T] gldbg connect ADDR --json`.
    fn connect(addr: &str, token: Option<&str>) -> Client {
        let mut cmd = Command::new(gldbg());
        cmd.arg("connect").arg(addr).arg("--json");
        if let Some(t) = token {
            cmd.env("GLDBG_TOKEN", t);
        }
        Client::spawn(cmd, "gldbg connect")
    }

    /// The first JSON line (the session's `connect`/`run` result).
    fn first(&mut self) -> Value {
        self.json_where("first result", |v| v.get("cmd").is_some())
    }

    fn json_where(&mut self, what: &str, f: impl Fn(&Value) -> bool) -> Value {
        self.out
            .wait_for(what, |l| {
                serde_json::from_str::<Value>(l).ok().filter(|v| f(v))
            })
            .unwrap_or_else(|| {
                panic!(
                    "gldbg ended before {what}; output:\n{}",
                    self.out.seen.join("\n")
                )
            })
    }

    /// Sends a command line without waiting.
    fn send(&mut self, cmd: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{cmd}").expect("write a command");
        stdin.flush().unwrap();
    }

    /// Sends a command and waits for its result line.
    fn cmd(&mut self, cmd: &str) -> Value {
        self.send(cmd);
        self.json_where(&format!("result of {cmd:?}"), |v| v["cmd"] == cmd)
    }

    /// A command that must succeed.
    #[track_caller]
    fn ok(&mut self, cmd: &str) -> Value {
        let v = self.cmd(cmd);
        assert_eq!(v["ok"], true, "{cmd} failed: {v}");
        v
    }

    /// A command that must fail; returns its error message.
    #[track_caller]
    fn fails(&mut self, cmd: &str) -> String {
        let v = self.cmd(cmd);
        assert_eq!(v["ok"], false, "{cmd} should fail: {v}");
        v["error"].as_str().unwrap_or_default().to_string()
    }

    /// Closes stdin (the REPL ends) and waits for gldbg's exit.
    fn close(&mut self) -> Option<i32> {
        self.stdin.take();
        self.proc.wait_exit()
    }
}

// ---------------------------------------------------------------------------
// The orphaned app

/// Makes the test process a child subreaper: an app whose daemon dies is
/// reparented to us, so we can wait for it and read its exit status.
fn become_subreaper() {
    // SAFETY: prctl with integer arguments only.
    let r = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    assert_eq!(r, 0, "PR_SET_CHILD_SUBREAPER");
}

/// Waits (bounded) for process `pid`, now our child, and returns its exit
/// code (None if a signal ended it).
fn wait_orphan(pid: i32) -> Option<i32> {
    let deadline = Instant::now() + WAIT;
    loop {
        let mut status = 0;
        // SAFETY: waitpid on a specific pid with a valid status pointer.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        assert!(
            r >= 0,
            "waitpid({pid}): {} (not reparented to us?)",
            std::io::Error::last_os_error()
        );
        if r == pid {
            return libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
        }
        assert!(
            Instant::now() < deadline,
            "the app {pid} did not end (hung after the daemon died?)"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// survivor's `checksum H` line in a run without gldbg.
fn native_checksum(app: &Path, args: &[&str]) -> String {
    let out = run_native(app, args, &[]);
    lines_starting(&out.stdout, "checksum ")
        .first()
        .unwrap_or_else(|| panic!("no checksum:\n{}", out.transcript()))
        .to_string()
}

fn socket_addr(socket: &Path) -> String {
    format!("unix:{}", socket.display())
}

/// Kills the daemon with SIGKILL; the app (pid `app`) must go on to its
/// end: exit 0 and the native checksum on its stdout.
fn kill_daemon_and_check_app(daemon: &mut Proc, app_out: &mut Lines, app: i32, want: &str) {
    daemon.sigkill();
    assert_eq!(
        wait_orphan(app),
        Some(0),
        "the app exits 0 without its daemon"
    );
    let lines = app_out.rest();
    assert!(
        lines.iter().any(|l| l == want),
        "the app's last frame is the native one ({want}); its output:\n{}",
        lines.join("\n")
    );
}

// ---------------------------------------------------------------------------
// The daemon dies; the app lives

#[test]
fn daemon_killed_while_the_app_is_stopped() {
    require_workspace();
    become_subreaper();
    let app = survivor();
    let args = ["--frames", "600", "--tick", "200"];
    let want = native_checksum(&app, &args);
    let dir = TempDir::new("surv-stopped");
    let socket = dir.join("d.sock");
    let (mut daemon, mut app_out) = start_daemon(&socket, &app, &args);

    let mut client = Client::connect(&socket_addr(&socket), Some(TOKEN));
    client.first();
    client.ok("break draw");
    let stop = client.ok("continue");
    assert_eq!(stop["stopped"]["function"], "glDrawArrays", "{stop}");
    client.ok("debug fragment");
    // The app's main thread is the one stopped (survivor draws on it).
    let pid = stop["stopped"]["thread"].as_i64().expect("thread") as i32;

    // Stopped at a draw, in the middle of a shader debug session: kill -9.
    kill_daemon_and_check_app(&mut daemon, &mut app_out, pid, &want);
    // The client learns that the daemon is gone: an error, not a hang.
    client.fails("info call");
    client.close();
}

#[test]
fn daemon_killed_while_the_app_runs() {
    require_workspace();
    become_subreaper();
    let app = survivor();
    let args = ["--frames", "60000", "--tick", "500"];
    let want = native_checksum(&app, &args);
    let dir = TempDir::new("surv-running");
    let socket = dir.join("d.sock");
    let (mut daemon, mut app_out) = start_daemon(&socket, &app, &args);

    let mut client = Client::connect(&socket_addr(&socket), Some(TOKEN));
    let first = client.first();
    let pid = first["stopped"]["thread"].as_i64().expect("thread") as i32;
    client.send("continue");
    // Running: survivor prints ticks only while it draws.
    app_out.wait_for("a tick", |l| l.starts_with("tick ").then_some(()));
    kill_daemon_and_check_app(&mut daemon, &mut app_out, pid, &want);
    // The client's `continue` ends with an error, and gldbg exits.
    let r = client.json_where("the result of continue", |v| v["cmd"] == "continue");
    assert_eq!(r["ok"], false, "{r}");
    client.close();
}

// ---------------------------------------------------------------------------
// Clients come and go

#[test]
fn client_killed_during_continue_and_another_takes_over() {
    require_workspace();
    let app = survivor();
    let args = ["--frames", "60000", "--tick", "1000"];
    let want = native_checksum(&app, &args);
    let dir = TempDir::new("surv-client");
    let socket = dir.join("d.sock");
    let (_daemon, mut app_out) = start_daemon(&socket, &app, &args);

    let mut a = Client::connect(&socket_addr(&socket), Some(TOKEN));
    a.first();
    a.send("continue");
    app_out.wait_for("a tick", |l| l.starts_with("tick ").then_some(()));
    a.proc.sigkill();

    // A second client finds the app running, is refused what needs a stop
    // (at once), stops it with a breakpoint and lets it finish.
    let mut b = Client::connect(&socket_addr(&socket), Some(TOKEN));
    assert_eq!(b.first()["state"], "running");
    let e = b.fails("info call");
    assert!(e.contains("running"), "{e}");
    let e = b.fails("step");
    assert!(e.contains("running"), "{e}");
    b.ok("break glFinish");
    // The stop is not announced to B (see the report): ask until it is there.
    let deadline = Instant::now() + WAIT;
    let call = loop {
        let r = b.cmd("info call");
        if r["ok"] == true {
            break r;
        }
        assert!(
            Instant::now() < deadline,
            "the app never stopped at glFinish"
        );
    };
    assert_eq!(call["function"], "glFinish", "{call}");
    b.ok("delete");
    let end = b.ok("continue");
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(end["exited"]["code"], 0, "{end}");
    b.close();
    let got = app_out.wait_for("the checksum", |l| {
        l.starts_with("checksum ").then(|| l.to_string())
    });
    assert_eq!(got.as_deref(), Some(want.as_str()), "the app's last frame");
}

#[test]
fn second_client_shares_a_run_listen_session() {
    require_workspace();
    let app = survivor();
    let args = ["--frames", "3000", "--tick", "1000"];
    let want = native_checksum(&app, &args);
    let dir = TempDir::new("surv-two");
    let socket = dir.join("r.sock");
    let mut cmd = Command::new(gldbg());
    cmd.arg("run")
        .arg("--json")
        .arg("--listen")
        .arg(socket_addr(&socket))
        .env("GLDBG_TOKEN", TOKEN)
        .arg("--")
        .arg(&app)
        .args(args);
    let mut a = Client::spawn(cmd, "gldbg run --listen");
    a.first();
    a.ok("break glFinish");
    let stop = a.ok("continue");
    assert_eq!(stop["stopped"]["function"], "glFinish", "{stop}");

    // B sees A's stop: the same call, and can look at it too.
    let mut b = Client::connect(&socket_addr(&socket), Some(TOKEN));
    let seen = b.first();
    assert_eq!(seen["stopped"], stop["stopped"], "{seen}");
    let call = b.ok("info call");
    assert_eq!(call["call"], stop["stopped"]["call"]);
    // A client without the token is refused.
    let mut c = Client::connect(&socket_addr(&socket), None);
    assert_eq!(c.first()["ok"], false);
    assert_eq!(c.close(), Some(1));

    // A lets the app finish; B observes the exit on its event stream (B
    // prints events between commands and, at the end of its input, until
    // the exit). A, which serves the session, ends last: its end takes the
    // server down, events on their way to B with it.
    a.ok("delete");
    let end = a.ok("continue");
    assert_eq!(end["exited"]["code"], 0, "{end}");
    b.stdin.take();
    let exited = b.json_where("the exited event", |v| v["event"] == "exited");
    assert_eq!(exited["code"], 0, "{exited}");
    b.close();
    a.stdin.take();
    assert!(
        a.out.rest().contains(&want),
        "the app's frame is the native one"
    );
}

// ---------------------------------------------------------------------------
// Requests out of order

#[test]
fn out_of_order_and_malformed_commands() {
    require_workspace();
    let app = survivor();
    let dir = TempDir::new("surv-order");
    let socket = dir.join("d.sock");
    let (_daemon, _out) = start_daemon(&socket, &app, &["--frames", "20"]);
    let mut c = Client::connect(&socket_addr(&socket), Some(TOKEN));
    c.first();
    // Shader commands with no shader being debugged.
    let e = c.fails("print w");
    assert!(e.contains("debug"), "{e}");
    let e = c.fails("list");
    assert!(e.contains("debug"), "{e}");
    // `debug fragment` away from a draw: refused, the session unchanged.
    let e = c.fails("debug fragment");
    assert!(e.contains("draw"), "{e}");
    assert_eq!(c.ok("info call")["call"], 1);
    // Malformed commands: parse errors, nothing sent.
    c.fails("break");
    c.fails("break glNoSuchFunction");
    c.fails("step -1");
    c.fails("set arg 99 1");
    c.fails("print w @ 1");
    // A huge step count ends with the app's exit, not a hang.
    let end = c.ok("step 18446744073709551615");
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(end["exited"]["code"], 0, "{end}");
    // After the exit: clear errors.
    let e = c.fails("info call");
    assert!(!e.is_empty());
    c.fails("continue");
    c.close();
}

// ---------------------------------------------------------------------------
// TCP and its token

fn free_tcp_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

#[test]
fn tcp_requires_and_checks_the_token() {
    require_workspace();
    let app = survivor();
    let port = free_tcp_port();
    let addr = format!("127.0.0.1:{port}");

    // (No token given: the daemon generates one, tests/tests/security.rs.)
    let child = Command::new(debugd())
        .args(["--listen", &addr, "--"])
        .env("GLDBG_TOKEN", TOKEN)
        .arg(&app)
        .args(["--frames", "5"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("start gldbg-debugd");
    let _daemon = Proc {
        child,
        name: "gldbg-debugd",
    };
    // Readiness: the port accepts connections.
    let deadline = Instant::now() + WAIT;
    while std::net::TcpStream::connect(&addr).is_err() {
        assert!(Instant::now() < deadline, "no listener on {addr}");
        std::thread::sleep(Duration::from_millis(20));
    }
    for token in [None, Some("wrong")] {
        let mut c = Client::connect(&addr, token);
        let first = c.first();
        assert_eq!(first["ok"], false, "{first}");
        assert!(
            first["error"].as_str().unwrap_or("").contains("token"),
            "{first}"
        );
        assert_eq!(c.close(), Some(1));
    }
    let mut c = Client::connect(&addr, Some(TOKEN));
    assert_eq!(c.first()["state"], "stopped");
    assert_eq!(c.ok("info call")["function"], "eglGetProcAddress");
    let end = c.ok("continue");
    assert_eq!(end["exited"]["code"], 0, "{end}");
    c.close();
}
