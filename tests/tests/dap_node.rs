//! The node test suites of issue 15, run from cargo so `cargo test` and CI
//! run them on this build's binaries:
//!
//! * `tests/dap`: `gldbg dap` end to end with a real DAP client from the
//!   ecosystem (@vscode/debugadapter-testsupport) on node's test runner,
//!   every value against a CPU reference of the test app's shader;
//! * `editors/vscode`: the VS Code extension's build and tests (its webview
//!   script in headless Chromium with a real value image).
//!
//! Each runs `npm ci` where `node_modules` is absent or older than the
//! lock file, then the package's tests, with `GLDBG_BIN` / `GLDBG_APP_DIR`
//! naming this build's `gldbg` and test apps. Missing tools fail naming
//! their Debian packages (nodejs, npm, chromium).

mod support;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gldbg_tests::*;
use support::debian;

/// One node suite at a time: each drives real apps on llvmpipe and the
/// machine has few cores; two at once would only make both slower.
static ONE_SUITE: Mutex<()> = Mutex::new(());

/// How long one npm / node command may run before it is killed: a guard
/// against hangs, not a timing assertion.
const COMMAND_LIMIT: Duration = Duration::from_secs(600);

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// The folder of the C test apps of this build (egl_files among them).
fn app_dir() -> PathBuf {
    let built = PathBuf::from(env!("GLDBG_APP_EGL_FILES"));
    let dir = match built.parent() {
        Some(dir) if built.exists() => dir.to_path_buf(),
        _ => target_dir().join("apps"),
    };
    assert!(
        dir.join("egl_files").exists(),
        "the test app egl_files is missing in {}: run `cargo build --workspace`",
        dir.display()
    );
    dir
}

/// Runs `cmd` in `dir` to its end (killed after [`COMMAND_LIMIT`]); fails
/// with its output unless it succeeds. Returns stdout and stderr together.
fn run(mut cmd: Command, dir: &Path, what: &str) -> String {
    cmd.current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start {cmd:?}: {e}"));
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut s = Vec::new();
            let _ = pipe.read_to_end(&mut s);
            String::from_utf8_lossy(&s).into_owned()
        })
    };
    let out = reader(Box::new(child.stdout.take().unwrap()));
    let err = reader(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let mut killed = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if start.elapsed() > COMMAND_LIMIT && !killed {
            let _ = child.kill();
            killed = true;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let text = format!("{}{}", out.join().unwrap(), err.join().unwrap());
    assert!(
        status.success() && !killed,
        "{what} failed ({status}{}) in {}:\n{text}",
        if killed {
            ", killed after the time limit"
        } else {
            ""
        },
        dir.display()
    );
    text
}

/// node and npm from Debian, or a failure naming the packages.
fn node_tools() -> (PathBuf, PathBuf) {
    (debian("node", "nodejs"), debian("npm", "npm"))
}

/// Whether `node_modules` of the package in `dir` is absent or older than
/// its manifest or lock file (npm's own record of an install is
/// `node_modules/.package-lock.json`).
fn install_stale(dir: &Path) -> bool {
    let mtime = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let Some(installed) = mtime(&dir.join("node_modules").join(".package-lock.json")) else {
        return true;
    };
    ["package.json", "package-lock.json"]
        .iter()
        .any(|f| mtime(&dir.join(f)).is_none_or(|t| t > installed))
}

/// `npm ci` in `dir` where its install is absent or stale.
fn npm_ci(npm: &Path, dir: &Path) {
    assert!(
        dir.join("package-lock.json").exists(),
        "{} has no package-lock.json (npm ci needs it)",
        dir.display()
    );
    if install_stale(dir) {
        let mut cmd = Command::new(npm);
        cmd.args(["ci", "--no-audit", "--no-fund"]);
        run(cmd, dir, "npm ci");
    }
}

/// A command with this build's binaries in its environment.
fn with_build(program: &Path) -> Command {
    let apps = app_dir();
    let mut cmd = Command::new(program);
    cmd.env("GLDBG_BIN", gldbg())
        .env("GLDBG_APP_DIR", &apps)
        // editors/vscode's tests name it so.
        .env("GLDBG_APPS_DIR", &apps);
    cmd
}

#[test]
fn dap_suite_with_a_real_dap_client() {
    let _one = ONE_SUITE.lock().unwrap_or_else(|e| e.into_inner());
    require_workspace();
    let (node, npm) = node_tools();
    let dir = repo().join("tests").join("dap");
    npm_ci(&npm, &dir);
    let mut cmd = with_build(&node);
    // One file at a time, as `npm test` runs them: each starts apps on
    // llvmpipe, and on a 2-core machine files in parallel starve each
    // other's timed waits.
    cmd.args(["--test", "--test-concurrency=1", "--test-reporter=spec"]);
    let out = run(cmd, &dir, "node --test (tests/dap)");
    // node's summary: every test passed and none was skipped.
    assert!(
        out.contains("ℹ fail 0") && out.contains("ℹ skipped 0") && !out.contains("ℹ pass 0\n"),
        "node --test: not every test ran and passed:\n{out}"
    );
    eprintln!("{out}");
}

#[test]
fn vscode_extension_builds_and_its_tests_pass() {
    let _one = ONE_SUITE.lock().unwrap_or_else(|e| e.into_inner());
    require_workspace();
    let (_, npm) = node_tools();
    let chromium = debian("chromium", "chromium");
    let dir = repo().join("editors").join("vscode");
    assert!(
        dir.join("package.json").exists(),
        "{} is missing: the VS Code extension is not in this tree",
        dir.join("package.json").display()
    );
    npm_ci(&npm, &dir);
    let mut compile = with_build(&npm);
    compile.args(["run", "compile"]);
    run(compile, &dir, "npm run compile (editors/vscode)");
    let mut test = with_build(&npm);
    test.arg("test").env("CHROMIUM", &chromium);
    let out = run(test, &dir, "npm test (editors/vscode)");
    eprintln!("{out}");
}
