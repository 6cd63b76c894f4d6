//! `gldbg run --batch --json` on real apps: two GL threads stop with their
//! own thread ids, `info state` as JSON, `break error`, `set arg I[K]`.
//! Needs `cargo build --workspace` (the preload beside `gldbg`) and `cc`.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn compile(src: &Path, name: &str) -> PathBuf {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-{name}-{}", std::process::id()));
    let st = Command::new("cc")
        .args(["-O0", "-o"])
        .arg(&out)
        .arg(src)
        .args(["-lEGL", "-lpthread"])
        .status()
        .expect("cc");
    assert!(st.success());
    out
}

fn run(script: &str, app: &Path, args: &[&str]) -> Vec<Value> {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let file = dir.join(format!(
        "script-{}-{}.gldbg",
        std::process::id(),
        app.file_name().unwrap().to_string_lossy()
    ));
    std::fs::write(&file, script).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_gldbg"))
        .args(["run", "--batch", "--json", "-x"])
        .arg(&file)
        .arg("--")
        .arg(app)
        .args(args)
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .output()
        .expect("gldbg");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "gldbg failed: {text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn result<'a>(lines: &'a [Value], cmd: &str) -> Vec<&'a Value> {
    lines.iter().filter(|v| v["cmd"] == cmd).collect()
}

#[test]
fn two_threads_stop_with_their_own_ids() {
    let app = compile(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../preload/tests/apps/threads.c"),
        "threads",
    );
    let lines = run(
        "break glDrawArrays\ncontinue\ninfo state GL_VIEWPORT\ncontinue\ninfo call\ncontinue\n",
        &app,
        &[],
    );
    let stops: Vec<u64> = result(&lines, "continue")
        .iter()
        .filter_map(|v| v["stopped"]["thread"].as_u64())
        .collect();
    assert_eq!(stops.len(), 2, "{lines:?}");
    assert_ne!(stops[0], stops[1], "two different threads stop: {lines:?}");
    let state = result(&lines, "info state GL_VIEWPORT")[0];
    assert_eq!(
        state["state"]["GL_VIEWPORT"],
        serde_json::json!([0.0, 0.0, 32.0, 32.0]),
        "{state}"
    );
    let call = result(&lines, "info call")[0];
    assert_eq!(call["thread"].as_u64(), Some(stops[1]));
    assert_eq!(call["function"], "glDrawArrays");
}

#[test]
fn break_error_and_set_arg_element_in_json() {
    let app = compile(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../debugd/tests/apps/control.c"),
        "control",
    );
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("cli-control-out-{}", std::process::id()));
    let lines = run(
        "break error\nbreak glUniform4fv\ncontinue\ninfo call\ncontinue\nset arg 2[0] 0.5\ninfo breakpoints\ndelete\ncontinue\n",
        &app,
        &["errors", out.to_str().unwrap()],
    );
    let stops = result(&lines, "continue");
    assert_eq!(stops[0]["stopped"]["function"], "glEnable");
    assert_eq!(stops[0]["stopped"]["error"], "GL_INVALID_ENUM");
    assert_eq!(
        result(&lines, "info call")[0]["gl_error"],
        "GL_INVALID_ENUM"
    );
    assert_eq!(stops[1]["stopped"]["function"], "glUniform4fv");
    let set = result(&lines, "set arg 2[0] 0.5")[0];
    assert_eq!(set["args"][2]["contents"], "[0.5, 0.5, 0.75, 1]", "{set}");
    let bps = &result(&lines, "info breakpoints")[0]["breakpoints"];
    assert_eq!(bps[0]["hits"], 1, "{bps}");
    assert_eq!(stops[2]["state"], "exited");
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(text.contains("app error 0x500\n"), "{text}");
    assert!(text.contains("uniform 0.5 0.5 0.75 1\n"), "{text}");
}
