//! With `--json`, the app's own output comes as `output` events (CLI.md's
//! JSON lines): stdout carries JSON lines only, so app text written without
//! its newline yet can never glue onto one of gldbg's lines, and what the app
//! wrote during a command comes before that command's result.

use std::process::{Command, Stdio};

use gldbg_tests::*;

#[test]
fn app_output_comes_as_output_events_before_the_result() {
    require_workspace();
    let dir = TempDir::new("app-output");
    let script = dir.join("s.gldbg");
    std::fs::write(&script, "continue\n").unwrap();
    let out = Command::new(gldbg())
        .args(["run", "--batch", "--json", "-x"])
        .arg(&script)
        .arg("--")
        .arg(egl_shade())
        .args(["--frames", "2"])
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("gldbg runs");
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}")))
        .collect();
    let output = lines
        .iter()
        .position(|v| {
            v["event"] == "output"
                && v["stream"] == "stdout"
                && v["text"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("egl_shade: 2 frames, "))
        })
        .unwrap_or_else(|| panic!("no output event with the app's summary:\n{stdout}"));
    let result = lines
        .iter()
        .position(|v| v["cmd"] == "continue")
        .unwrap_or_else(|| panic!("no continue result:\n{stdout}"));
    assert!(output < result, "the app's line comes first:\n{stdout}");
    assert_eq!(lines[result]["exited"]["code"], 0, "{}", lines[result]);
}

/// Issue 11, point 12: in text mode the app writes to gldbg's stdout itself;
/// a partial line it leaves (`printf` without a newline) does not glue onto
/// gldbg's next line. Here stdout is a file (`> log`): gldbg reads its last
/// byte. The launcher shell prints before it execs the app.
#[test]
fn the_apps_partial_line_does_not_glue_onto_gldbgs_line() {
    require_workspace();
    let dir = TempDir::new("partial-line");
    let script = dir.join("s.gldbg");
    std::fs::write(&script, "break draw\ncontinue\n").unwrap();
    let log = dir.join("log.txt");
    let status = Command::new(gldbg())
        .args(["run", "--batch", "-x"])
        .arg(&script)
        .args([
            "--",
            "/bin/sh",
            "-c",
            "printf 'partial output'; exec \"$0\" \"$@\"",
        ])
        .arg(egl_shade())
        .args(["--frames", "1"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .status()
        .expect("gldbg runs");
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(status.success(), "{text}");
    assert!(
        text.lines().any(|l| l == "partial output"),
        "the app's partial line stands alone:\n{text}"
    );
    assert!(
        text.lines().any(|l| l.starts_with("(gldbg) continue")),
        "{text}"
    );
}

/// Commands piped into the REPL (no `--batch`): no prompt is written, not
/// even where rustyline would print one (TERM=dumb), so every stdout line of
/// `--json` is a whole JSON line; every command runs, a failed one too.
#[test]
fn piped_commands_get_whole_json_lines_and_no_prompt() {
    use std::io::Write as _;
    require_workspace();
    let mut child = Command::new(gldbg())
        .args(["run", "--json", "--"])
        .arg(egl_shade())
        .args(["--frames", "1"])
        .env("TERM", "dumb")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("gldbg runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"info call\ndebug fragment\ninfo call\ncontinue\n")
        .unwrap();
    drop(stdin);
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(!stdout.contains("(gldbg)"), "no prompt:\n{stdout}");
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not a JSON line ({e}): {l:?}")))
        .collect();
    let cmds: Vec<&str> = lines.iter().filter_map(|v| v["cmd"].as_str()).collect();
    assert_eq!(
        cmds[1..],
        ["info call", "debug fragment", "info call", "continue"],
        "{stdout}"
    );
}

/// The rows a terminal of `columns` shows for `bytes`: printable text with
/// automatic margins (a character written past the last column goes to the
/// next row), `\r`, `\n`; escape sequences are skipped.
fn screen(bytes: &str, columns: usize) -> Vec<String> {
    let mut rows = vec![Vec::<char>::new()];
    let (mut row, mut col) = (0usize, 0usize);
    let mut chars = bytes.chars();
    while let Some(c) = chars.next() {
        match c {
            '\r' => col = 0,
            '\n' => {
                row += 1;
                col = 0;
            }
            '\x1b' => {
                // CSI: parameters up to a final byte in @..~.
                if chars.next() == Some('[') {
                    for f in chars.by_ref() {
                        if ('@'..='~').contains(&f) {
                            break;
                        }
                    }
                }
            }
            c if c >= ' ' => {
                if col == columns {
                    row += 1;
                    col = 0;
                }
                while rows.len() <= row {
                    rows.push(Vec::new());
                }
                let line = &mut rows[row];
                while line.len() <= col {
                    line.push(' ');
                }
                line[col] = c;
                col += 1;
            }
            _ => {}
        }
        while rows.len() <= row {
            rows.push(Vec::new());
        }
    }
    rows.into_iter()
        .map(|r| r.into_iter().collect::<String>().trim_end().to_string())
        .collect()
}

/// The same on a terminal (a pseudo-terminal of `script`, 40 columns): the
/// app's partial line ends where it was, gldbg's line starts a row of its
/// own; lines that start at column 0 stay where they are.
#[test]
fn the_apps_partial_line_stays_apart_on_a_terminal() {
    require_workspace();
    let dir = TempDir::new("partial-tty");
    let script = dir.join("s.gldbg");
    std::fs::write(&script, "break draw\ncontinue\n").unwrap();
    let inner = format!(
        "stty cols 40; '{}' run --batch -x '{}' -- /bin/sh -c 'printf partial; exec \"$0\" \"$@\"' '{}' --frames 1",
        gldbg().display(),
        script.display(),
        egl_shade().display()
    );
    let out = Command::new("script")
        .args(["-qec", &inner, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    assert!(out.status.success(), "{out:?}");
    let rows = screen(&String::from_utf8_lossy(&out.stdout), 40);
    assert_eq!(rows[0], "partial", "{rows:#?}");
    assert!(rows[1].starts_with("Stopped at #1 "), "{rows:#?}");
    let echo = rows.iter().position(|r| r == "(gldbg) break draw");
    let result = rows.iter().position(|r| r == "Breakpoint 1: draw");
    assert!(
        echo.is_some() && result == echo.map(|e| e + 1),
        "no blank rows between lines: {rows:#?}"
    );
}

#[test]
fn the_screen_model_wraps_and_returns() {
    assert_eq!(screen("ab\r\ncd", 4), ["ab", "cd"]);
    assert_eq!(screen("abcdef", 4), ["abcd", "ef"]);
    assert_eq!(screen("abc\x1b[2Kd\rX", 4), ["Xbcd"]);
    assert_eq!(screen("   \rok", 4), ["ok"]);
}
