//! Local attackers and secrets (issue 12, points 2, 3 and 11): rejected
//! debug shaders go to a private directory (0700, files 0600, removed when
//! the app's session ends, and on SIGTERM or SIGHUP, unless kept); the token never appears on a command line
//! (`--token` is refused; `--token-file` must be private; TCP without one
//! gets a generated token in a private file); TLS on TCP; a second daemon
//! does not take over a live socket. When run as root (CI), a throwaway
//! second user tries the socket, the saved shaders, the token file and
//! planted symlinks, and reads the daemon's command line.

use std::io::{BufRead as _, BufReader};
use std::os::unix::fs::{MetadataExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gldbg_tests::*;

const WAIT: Duration = Duration::from_secs(60);

/// A `gldbg-debugd`, SIGTERMed (a graceful end) and reaped on drop.
struct Daemon {
    child: Child,
    stderr: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Daemon {
    fn start(args: &[&str], env: &[(&str, &str)], program: Option<&Path>) -> Daemon {
        let mut cmd = Command::new(debugd());
        cmd.args(args);
        for (k, v) in env {
            cmd.env(k, v);
        }
        if let Some(p) = program {
            cmd.arg("--").arg(p).args(["--frames", "3"]);
        }
        let mut child = cmd
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start gldbg-debugd");
        let (tx, rx) = mpsc::channel();
        let err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            for line in BufReader::new(err).lines().map_while(Result::ok) {
                eprintln!("[gldbg-debugd] {line}");
                let _ = tx.send(line);
            }
        });
        Daemon {
            child,
            stderr: rx,
            seen: Vec::new(),
        }
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The first stderr line containing `needle`.
    fn line_with(&mut self, needle: &str) -> String {
        if let Some(l) = self.seen.iter().find(|l| l.contains(needle)) {
            return l.clone();
        }
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.stderr.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if line.contains(needle) {
                        return line;
                    }
                }
                Err(_) => panic!("gldbg-debugd never said {needle:?}: {:?}", self.seen),
            }
        }
    }

    /// Until it listens (its "listening on" line, then a connectable socket/port).
    fn ready(mut self, addr: &str) -> Daemon {
        self.line_with("listening on");
        let deadline = Instant::now() + WAIT;
        loop {
            let up = match addr.strip_prefix("unix:") {
                Some(p) => std::os::unix::net::UnixStream::connect(p).is_ok(),
                None => std::net::TcpStream::connect(addr).is_ok(),
            };
            if up {
                return self;
            }
            if let Ok(Some(s)) = self.child.try_wait() {
                panic!("gldbg-debugd exited: {s} {:?}", self.seen);
            }
            assert!(Instant::now() < deadline, "{addr} never answered");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// SIGTERM and wait: the graceful end, where the daemon cleans up.
    fn terminate(&mut self) {
        // SAFETY: kill(2) on our own child's pid.
        unsafe { libc::kill(self.child.id() as i32, libc::SIGTERM) };
        let deadline = Instant::now() + WAIT;
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("gldbg-debugd ignored SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // The rest of its stderr.
        while let Ok(line) = self.stderr.recv_timeout(Duration::from_secs(5)) {
            self.seen.push(line);
        }
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            self.terminate();
        }
    }
}

/// `gldbg connect ADDR --json --batch -x SCRIPT` with extra arguments and environment.
fn connect(
    dir: &TempDir,
    addr: &str,
    extra: &[&str],
    env: &[(&str, &str)],
    script: &str,
) -> Output {
    let path = dir.join("connect.gldbg");
    std::fs::write(&path, script).unwrap();
    let mut cmd = Command::new(gldbg());
    cmd.args(["connect", addr]).args(extra);
    cmd.args(["--json", "--batch", "-x"]).arg(&path);
    for (k, v) in env {
        cmd.env(k, v);
    }
    run_command(cmd)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The debug-shader script whose `print` only the driver rejects.
const REJECTED: &str = "break draw\ncontinue\ndebug fragment\nprint float[2](1.0)\n";

fn mode(p: &Path) -> u32 {
    std::fs::symlink_metadata(p).unwrap().permissions().mode() & 0o7777
}

fn my_uid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// SIGHUP and wait (a closed terminal): the daemon still cleans up.
fn hang_up(daemon: &mut Daemon) {
    // SAFETY: kill(2) on our own child's pid.
    assert_eq!(unsafe { libc::kill(daemon.pid() as i32, libc::SIGHUP) }, 0);
    let deadline = Instant::now() + WAIT;
    while daemon.child.try_wait().ok().flatten().is_none() {
        assert!(Instant::now() < deadline, "gldbg-debugd ignored SIGHUP");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `gldbg connect ADDR --json` reading commands from a pipe (no `--batch`,
/// so a failed command does not end the app's session).
struct Repl {
    child: Child,
    lines: BufReader<std::process::ChildStdout>,
}

impl Repl {
    fn start(addr: &str) -> Repl {
        let mut child = Command::new(gldbg())
            .args(["connect", addr, "--json"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start gldbg connect");
        let lines = BufReader::new(child.stdout.take().unwrap());
        Repl { child, lines }
    }

    fn send(&mut self, commands: &str) {
        use std::io::Write as _;
        let stdin = self.child.stdin.as_mut().unwrap();
        stdin.write_all(commands.as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    /// Send [`REJECTED`]; the saved files named by its failed `print`.
    fn rejected_files(&mut self) -> Vec<PathBuf> {
        self.send(REJECTED);
        let mut line = String::new();
        loop {
            line.clear();
            assert!(
                self.lines.read_line(&mut line).unwrap() > 0,
                "gldbg connect ended"
            );
            let Ok(v) = serde_json::from_str::<serde_json::Value>(&line) else {
                continue;
            };
            if v["ok"] == serde_json::Value::Bool(false) {
                let err = v["error"].as_str().unwrap_or_default().to_string();
                let files: Vec<PathBuf> =
                    paths_in(&err).into_iter().filter(|p| p.is_file()).collect();
                assert_eq!(files.len(), 2, "source and log saved: {err}");
                return files;
            }
        }
    }

    /// `kill` the app, then end the client.
    fn kill_and_quit(mut self) {
        self.send("kill\nquit\n");
        drop(self.child.stdin.take());
        let deadline = Instant::now() + WAIT;
        while self.child.try_wait().ok().flatten().is_none() {
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("gldbg connect did not quit");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Repl {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A rejected shader's files, checked private; returns them and their directory.
fn private_saved_files(files: Vec<PathBuf>, daemon: &Daemon) -> (Vec<PathBuf>, PathBuf) {
    let saved_dir = files[0].parent().unwrap().to_path_buf();
    assert_eq!(files[1].parent().unwrap(), saved_dir);
    assert_ne!(
        saved_dir,
        std::env::temp_dir().join(format!("gldbg-{}", daemon.pid())),
        "not the predictable /tmp/gldbg-PID"
    );
    let meta = std::fs::symlink_metadata(&saved_dir).unwrap();
    assert!(meta.is_dir() && meta.uid() == my_uid());
    assert_eq!(mode(&saved_dir), 0o700, "{}", saved_dir.display());
    for f in &files {
        assert_eq!(mode(f), 0o600, "{}", f.display());
    }
    (files, saved_dir)
}

#[test]
fn rejected_debug_shaders_are_private_and_end_with_the_apps_session() {
    require_workspace();
    let dir = TempDir::new("sec-saved");
    let addr = format!("unix:{}", dir.join("d.sock").display());
    for keep in [false, true] {
        let mut args = vec!["--listen", addr.as_str()];
        if keep {
            args.push("--keep-debug-shaders");
        }
        let mut daemon = Daemon::start(&args, &[], Some(&egl_shade())).ready(&addr);
        let mut repl = Repl::start(&addr);
        let (files, saved_dir) = private_saved_files(repl.rejected_files(), &daemon);
        // The app is killed: its session ends, the daemon runs on.
        repl.kill_and_quit();
        assert!(
            daemon.child.try_wait().unwrap().is_none(),
            "the daemon keeps running"
        );
        if keep {
            let said = daemon.line_with("kept in");
            assert!(said.contains(saved_dir.to_str().unwrap()), "{said}");
            daemon.terminate();
            assert!(files.iter().all(|f| f.is_file()), "kept: {files:?}");
            std::fs::remove_dir_all(&saved_dir).unwrap();
        } else {
            let deadline = Instant::now() + WAIT;
            while saved_dir.exists() {
                assert!(
                    Instant::now() < deadline,
                    "{} outlived the app's session",
                    saved_dir.display()
                );
                std::thread::sleep(Duration::from_millis(20));
            }
            daemon.terminate();
        }
    }
}

#[test]
fn sighup_ends_the_daemon_and_removes_its_files() {
    require_workspace();
    let dir = TempDir::new("sec-hup");
    // A session still going (the app alive) when the terminal closes.
    let addr = format!("unix:{}", dir.join("d.sock").display());
    let mut daemon = Daemon::start(&["--listen", &addr], &[], Some(&egl_shade())).ready(&addr);
    let mut repl = Repl::start(&addr);
    let (_, saved_dir) = private_saved_files(repl.rejected_files(), &daemon);
    hang_up(&mut daemon);
    drop(repl);
    assert!(
        !saved_dir.exists(),
        "{} outlived SIGHUP",
        saved_dir.display()
    );
    // A generated token's file.
    let tcp = format!("127.0.0.1:{}", free_port());
    let mut daemon = Daemon::start(&["--listen", &tcp], &[], None).ready(&tcp);
    let said = daemon.line_with("the token for");
    let file = paths_in(&said)
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no token file in {said:?}"));
    hang_up(&mut daemon);
    assert!(!file.exists(), "{} outlived SIGHUP", file.display());
    assert!(
        !file.parent().unwrap().exists(),
        "the token's directory outlived SIGHUP"
    );
}

#[test]
fn the_token_never_goes_on_a_command_line() {
    require_workspace();
    let dir = TempDir::new("sec-token");
    let sock = format!("unix:{}", dir.join("t.sock").display());

    // --token is refused, naming the two ways that work.
    let mut cmd = Command::new(debugd());
    cmd.args(["--listen", &sock, "--token", "abc"]);
    let refused = run_command(cmd);
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains("--token-file") && refused.stderr.contains("GLDBG_TOKEN"),
        "{}",
        refused.transcript()
    );
    let client = connect(&dir, &sock, &["--token", "abc"], &[], "info call\n");
    assert!(!client.status.success());
    assert!(
        client.stderr.contains("--token-file"),
        "{}",
        client.transcript()
    );

    // A token file others may read, or a symlink to one, is refused.
    let open = dir.join("open-token");
    std::fs::write(&open, "s3cret-file\n").unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut cmd = Command::new(debugd());
    cmd.args(["--listen", &sock, "--token-file", open.to_str().unwrap()]);
    let refused = run_command(cmd);
    assert!(!refused.status.success());
    assert!(
        refused.stderr.contains("mode 644"),
        "{}",
        refused.transcript()
    );
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link-token");
    std::os::unix::fs::symlink(&open, &link).unwrap();
    let mut cmd = Command::new(debugd());
    cmd.args(["--listen", &sock, "--token-file", link.to_str().unwrap()]);
    let refused = run_command(cmd);
    assert!(
        refused.stderr.contains("symlink"),
        "{}",
        refused.transcript()
    );

    // TCP with no token: one is generated into a private file, printed.
    let addr = format!("127.0.0.1:{}", free_port());
    let mut daemon = Daemon::start(&["--listen", &addr], &[], Some(&egl_shade())).ready(&addr);
    let said = daemon.line_with("the token for");
    let token_file = paths_in(&said)
        .into_iter()
        .find(|p| p.is_file())
        .unwrap_or_else(|| panic!("no token file in {said:?}"));
    assert_eq!(mode(&token_file), 0o600);
    assert_eq!(mode(token_file.parent().unwrap()), 0o700);
    let token = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_string();
    assert!(
        token.len() >= 32 && token.bytes().all(|b| b.is_ascii_hexdigit()),
        "{token}"
    );
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", daemon.pid())).unwrap();
    assert!(!String::from_utf8_lossy(&cmdline).contains(&token));
    // Without it: refused; with the file or the variable: served.
    let none = connect(&dir, &addr, &[], &[], "info call\n");
    let first = &none.results()[0];
    assert_eq!(first["ok"], false, "{}", none.transcript());
    assert!(
        first["error"].as_str().unwrap().contains("token"),
        "{first}"
    );
    let by_file = connect(
        &dir,
        &addr,
        &["--token-file", token_file.to_str().unwrap()],
        &[],
        "info call\n",
    );
    assert_eq!(by_file.ok("info call")["function"], "eglGetProcAddress");
    // (A batch client ends the app: the next one sees the session, exited.)
    let by_env = connect(&dir, &addr, &[], &[("GLDBG_TOKEN", &token)], "");
    assert_eq!(by_env.results()[0]["ok"], true, "{}", by_env.transcript());
    assert_eq!(
        by_env.results()[0]["state"],
        "exited",
        "{}",
        by_env.transcript()
    );
    // The generated file goes with the daemon.
    daemon.terminate();
    assert!(!token_file.exists() && !token_file.parent().unwrap().exists());

    // GLDBG_TOKEN does not stay in the daemon's environment (nor reach the app).
    let daemon = Daemon::start(
        &["--listen", &sock],
        &[("GLDBG_TOKEN", "env-token-123")],
        Some(&egl_shade()),
    )
    .ready(&sock);
    let app = child_pids(daemon.pid());
    assert!(!app.is_empty(), "the app runs under the daemon");
    for pid in app {
        let env = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&env).contains("env-token-123"),
            "the app {pid} inherited GLDBG_TOKEN"
        );
    }
    let with = connect(
        &dir,
        &sock,
        &[],
        &[("GLDBG_TOKEN", "env-token-123")],
        "info call\n",
    );
    assert_eq!(with.ok("info call")["function"], "eglGetProcAddress");
}

#[test]
fn gldbg_run_listen_keeps_its_token_and_shaders_private() {
    require_workspace();
    let dir = TempDir::new("sec-run");
    let script = dir.join("s.gldbg");
    std::fs::write(&script, REJECTED).unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let mut cmd = Command::new(gldbg());
    cmd.args(["run", "--batch", "--json", "--listen", &addr, "-x"])
        .arg(&script)
        .arg("--")
        .arg(egl_shade());
    let out = run_command(cmd);
    // The generated token's file, named on stderr, is gone with gldbg.
    let token_file = paths_in(&out.stderr)
        .into_iter()
        .find(|p| p.ends_with("token"))
        .unwrap_or_else(|| panic!("no token file named:\n{}", out.transcript()));
    assert!(
        out.stderr.contains(&format!("the token for {addr} is in")),
        "{}",
        out.transcript()
    );
    assert!(
        !token_file.exists(),
        "{} outlived gldbg",
        token_file.display()
    );
    // The saved shaders lived in gldbg run's private directory, gone too.
    let err = out.failed("print float[2](1.0)");
    let saved = paths_in(&err);
    assert_eq!(saved.len(), 2, "{err}");
    for f in &saved {
        let cli_dir = f.parent().and_then(Path::parent).unwrap();
        assert!(
            cli_dir
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("gldbg-cli-"),
            "{}",
            f.display()
        );
        assert!(
            !f.exists() && !cli_dir.exists(),
            "{} outlived gldbg",
            f.display()
        );
    }
}

/// Children of `pid` (from /proc/PID/task/*/children).
fn child_pids(pid: u32) -> Vec<u32> {
    let mut out = Vec::new();
    if let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) {
        for t in tasks.flatten() {
            let text = std::fs::read_to_string(t.path().join("children")).unwrap_or_default();
            out.extend(
                text.split_whitespace()
                    .filter_map(|w| w.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// A CA and a server certificate for 127.0.0.1 / localhost, made with the
/// openssl command: (ca.pem, server.pem, server.key).
fn make_certs(dir: &TempDir) -> Option<(PathBuf, PathBuf, PathBuf)> {
    let openssl = |args: &[&str]| -> bool {
        Command::new("openssl")
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    };
    std::fs::write(
        dir.join("ext.cnf"),
        "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n\
         keyUsage=digitalSignature\nextendedKeyUsage=serverAuth\n",
    )
    .unwrap();
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let ok = openssl(
        &[
            &["req", "-x509"][..],
            &ec,
            &[
                "-keyout",
                "ca.key",
                "-out",
                "ca.pem",
                "-days",
                "2",
                "-subj",
                "/CN=gldbg test CA",
            ],
        ]
        .concat(),
    ) && openssl(
        &[
            &["req"][..],
            &ec,
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        ]
        .concat(),
    ) && openssl(&[
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "2",
        "-extfile",
        "ext.cnf",
    ]);
    ok.then(|| {
        (
            dir.join("ca.pem"),
            dir.join("server.pem"),
            dir.join("server.key"),
        )
    })
}

#[test]
fn tls_on_tcp() {
    require_workspace();
    let dir = TempDir::new("sec-tls");
    let Some((ca, cert, key)) = make_certs(&dir) else {
        panic!("the openssl command is needed (Debian package openssl, in .ci/setup)");
    };
    let addr = format!("127.0.0.1:{}", free_port());
    let token = [("GLDBG_TOKEN", "tls-token")];
    let _daemon = Daemon::start(
        &[
            "--listen",
            &addr,
            "--tls-cert",
            cert.to_str().unwrap(),
            "--tls-key",
            key.to_str().unwrap(),
        ],
        &token,
        Some(&egl_shade()),
    )
    .ready(&addr);
    let ca = ca.to_str().unwrap();
    let tls = connect(&dir, &addr, &["--tls-ca", ca], &token, "info call\n");
    assert_eq!(tls.ok("info call")["function"], "eglGetProcAddress");
    // A plain-text client gets nothing from a TLS listener.
    let plain = connect(&dir, &addr, &[], &token, "info call\n");
    assert!(!plain.status.success(), "{}", plain.transcript());
    assert_eq!(plain.results()[0]["ok"], false, "{}", plain.transcript());
    // Nor does a TLS client that does not trust the certificate.
    let other = TempDir::new("sec-tls-other");
    let (other_ca, _, _) = make_certs(&other).unwrap();
    let distrust = connect(
        &dir,
        &addr,
        &["--tls-ca", other_ca.to_str().unwrap()],
        &token,
        "info call\n",
    );
    assert!(!distrust.status.success(), "{}", distrust.transcript());
}

#[test]
fn bad_tls_files_are_refused_before_the_app_starts() {
    require_workspace();
    let dir = TempDir::new("sec-badtls");
    let cert = dir.join("cert.pem");
    std::fs::write(&cert, "not a certificate\n").unwrap();
    let missing = dir.join("no-such-key.pem");
    let marker = dir.join("launched");
    let tcp = format!("127.0.0.1:{}", free_port());
    let mut cmd = Command::new(debugd());
    cmd.args(["--listen", &tcp, "--tls-cert"]).arg(&cert);
    cmd.arg("--tls-key").arg(&missing);
    cmd.env("GLDBG_TOKEN", "a-test-token");
    cmd.arg("--").arg("/bin/touch").arg(&marker);
    let out = run_command(cmd);
    assert!(!out.status.success(), "{}", out.transcript());
    assert!(
        out.stderr.contains("TLS key") && out.stderr.contains(missing.to_str().unwrap()),
        "names the key file: {}",
        out.transcript()
    );
    assert!(
        !marker.exists(),
        "the app was launched: {}",
        out.transcript()
    );
}

#[test]
fn a_second_daemon_does_not_take_a_live_socket() {
    require_workspace();
    let dir = TempDir::new("sec-live");
    let path = dir.join("live.sock");
    let addr = format!("unix:{}", path.display());
    let _first = Daemon::start(&["--listen", &addr], &[], Some(&egl_shade())).ready(&addr);
    let mut cmd = Command::new(debugd());
    cmd.args(["--listen", &addr, "--"]).arg(egl_shade());
    let second = run_command(cmd);
    assert!(!second.status.success(), "{}", second.transcript());
    assert!(
        second
            .stderr
            .contains(&format!("a daemon already listens on {}", path.display())),
        "{}",
        second.transcript()
    );
    // The first still answers, at the same path.
    assert!(path.exists());
    let out = connect(&dir, &addr, &[], &[], "info call\n");
    assert_eq!(out.ok("info call")["function"], "eglGetProcAddress");

    // A stale socket (nobody answers) is replaced; a file that is no socket is refused.
    let stale = dir.join("stale.sock");
    drop(std::os::unix::net::UnixListener::bind(&stale).unwrap());
    assert!(stale.exists());
    let stale_addr = format!("unix:{}", stale.display());
    let mut replaced = Daemon::start(&["--listen", &stale_addr], &[], None).ready(&stale_addr);
    replaced.terminate();
    assert!(!stale.exists(), "its socket goes with the daemon");
    let file = dir.join("file.sock");
    std::fs::write(&file, "data").unwrap();
    let mut cmd = Command::new(debugd());
    cmd.args(["--listen", &format!("unix:{}", file.display())]);
    let refused = run_command(cmd);
    assert!(
        refused.stderr.contains("is not a socket"),
        "{}",
        refused.transcript()
    );
    assert_eq!(std::fs::read(&file).unwrap(), b"data");
}

// ---------------------------------------------------------------------------
// A second local user (CI runs as root)

/// A throwaway user, deleted on drop (also when the test fails).
struct User {
    name: String,
    uid: u32,
}

impl User {
    fn create() -> User {
        let name = format!("gldbg-sec-{}", std::process::id() % 100_000);
        let _ = Command::new("userdel").arg(&name).status();
        let ok = Command::new("useradd")
            .args(["--system", "--no-create-home", "--shell", "/bin/sh", &name])
            .status()
            .expect("useradd");
        assert!(ok.success(), "useradd {name}");
        let id = Command::new("id").args(["-u", &name]).output().unwrap();
        let uid = String::from_utf8_lossy(&id.stdout).trim().parse().unwrap();
        User { name, uid }
    }

    /// Run `sh -c SCRIPT` as this user; (success, stdout+stderr).
    fn sh(&self, script: &str) -> (bool, String) {
        let out = Command::new("setpriv")
            .arg(format!("--reuid={}", self.uid))
            .arg(format!("--regid={}", self.uid))
            .args(["--clear-groups", "--", "sh", "-c", script])
            .current_dir("/")
            .output()
            .expect("setpriv");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        (out.status.success(), text)
    }
}

impl Drop for User {
    fn drop(&mut self) {
        let _ = Command::new("userdel").args(["-f", &self.name]).status();
    }
}

/// A directory the attacker planted, removed on drop.
struct Planted(PathBuf);

impl Drop for Planted {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A test that cannot run here: under CI (the `CI` variable set, where it
/// must run) that is a failure, else a loud skip.
fn skip_unless_ci(test: &str, why: &str) {
    if std::env::var_os("CI").is_some() {
        panic!("{test} cannot run, but CI must run it: {why}");
    }
    eprintln!("\n*** SKIPPED {test}: {why} ***\n");
}

#[test]
fn a_second_local_user_reaches_nothing() {
    require_workspace();
    if my_uid() != 0 {
        skip_unless_ci(
            "a_second_local_user_reaches_nothing",
            "needs root to create a second user (CI runs it as root)",
        );
        return;
    }
    let user = User::create();
    let dir = TempDir::new("sec-user");
    // Everyone may look into the test directory: only the files' own modes protect them.
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let socket = dir.join("d.sock");
    let addr = format!("unix:{}", socket.display());
    let victim = dir.join("victim");
    std::fs::write(&victim, "root's secret\n").unwrap();
    std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).unwrap();

    let daemon = Daemon::start(&["--listen", &addr], &[], Some(&egl_shade())).ready(&addr);
    // The attacker plants the directory the old daemon used, with symlinks to root's file.
    let old_dir = std::env::temp_dir().join(format!("gldbg-{}", daemon.pid()));
    let _planted = Planted(old_dir.clone());
    let v = victim.display();
    let o = old_dir.display();
    let (ok, text) = user.sh(&format!(
        "mkdir -m 777 {o} && ln -s {v} {o}/debug-1.frag && ln -s {v} {o}/debug-1.log"
    ));
    assert!(ok, "planting: {text}");

    // The socket: refused to the other user.
    let (ok, text) = user.sh(&format!(
        "/usr/bin/python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); \
         s.connect(sys.argv[1])' {}",
        socket.display()
    ));
    assert!(!ok, "the other user connected to the socket: {text}");
    assert!(text.contains("Permission denied"), "{text}");

    // A rejected shader: saved away from the planted directory, root's file intact.
    // (The app's session goes on while the other user looks.)
    let mut repl = Repl::start(&addr);
    let files = repl.rejected_files();
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "root's secret\n");
    for f in &files {
        assert!(
            !f.starts_with(&old_dir),
            "{} is in the planted directory",
            f.display()
        );
        let (ok, text) = user.sh(&format!("cat {}", f.display()));
        assert!(!ok, "the other user read {}: {text}", f.display());
    }
    let saved_dir = files[0].parent().unwrap();
    let (ok, text) = user.sh(&format!("ls {}", saved_dir.display()));
    assert!(!ok, "the other user listed {}: {text}", saved_dir.display());
    repl.kill_and_quit();
    drop(daemon);

    // The generated token's file, and the daemon's command line.
    let tcp = format!("127.0.0.1:{}", free_port());
    let mut daemon = Daemon::start(&["--listen", &tcp], &[], Some(&egl_shade())).ready(&tcp);
    let said = daemon.line_with("the token for");
    let token_file = paths_in(&said).into_iter().find(|p| p.is_file()).unwrap();
    let token = std::fs::read_to_string(&token_file)
        .unwrap()
        .trim()
        .to_string();
    let (ok, text) = user.sh(&format!("cat {}", token_file.display()));
    assert!(
        !ok && !text.contains(&token),
        "the other user read the token: {text}"
    );
    let (ok, cmdline) = user.sh(&format!("tr '\\0' ' ' < /proc/{}/cmdline", daemon.pid()));
    assert!(ok && cmdline.contains("--listen"), "{cmdline}");
    assert!(
        !cmdline.contains(&token),
        "token on the command line: {cmdline}"
    );
    daemon.terminate();
}
