//! Must show 5: bad input. A missing program; `debug fragment` when the app is
//! not at a draw call; shaders glsl-lang alone cannot parse (subroutines, a
//! nested `##` concatenation), read through parse.rs's workarounds (a shader
//! that cannot be read at all gives line:column: glsl-instrument's and
//! `gldbg instrument`'s tests); a debug expression with a type error; a debug
//! shader the driver rejects; an app that crashes with SIGSEGV inside a GL call.

use std::process::Command;

use gldbg_tests::*;

#[track_caller]
fn assert_exited_0(out: &Output, r: &Value) {
    assert_eq!(r["state"], "exited", "{r}\n{}", out.transcript());
    assert_eq!(
        r["exited"]["code"],
        0,
        "the app goes on and exits with 0: {r}\n{}",
        out.transcript()
    );
}

#[test]
fn missing_program_is_a_clear_error_with_exit_1() {
    require_workspace();
    let dir = TempDir::new("missing");
    let missing = dir.join("no-such-app");
    let script = dir.join("script.gldbg");
    std::fs::write(&script, "continue\n").unwrap();
    for json in [false, true] {
        let mut cmd = Command::new(gldbg());
        cmd.args(["run", "--batch"]);
        if json {
            cmd.arg("--json");
        }
        cmd.arg("-x").arg(&script).arg("--").arg(&missing);
        let out = run_command(cmd);
        assert_eq!(
            out.status.code(),
            Some(1),
            "exit status 1:\n{}",
            out.transcript()
        );
        let all = format!("{}\n{}", out.stdout, out.stderr);
        assert!(
            all.contains(missing.to_str().unwrap()),
            "the message names the program:\n{all}"
        );
        let lower = all.to_lowercase();
        assert!(
            lower.contains("no such")
                || lower.contains("not found")
                || lower.contains("does not exist"),
            "the message says what is wrong:\n{all}"
        );
        assert!(!lower.contains("panicked"), "no panic:\n{all}");
    }
}

#[test]
fn debug_fragment_when_not_at_a_draw_leaves_the_session_unchanged() {
    require_workspace();
    let dir = TempDir::new("not-at-draw");
    // Once at the app's first GL call, once at a glBufferData (not a draw).
    let script = "\
info call
debug fragment
info call
break glBufferData
continue
info call
debug fragment
info call
print v
step
info call
delete
continue
";
    let out = Session::new(egl_shade(), script).keep_going().run(&dir);
    assert_eq!(
        out.status.code(),
        Some(0),
        "without --batch every command runs and gldbg exits 0:\n{}",
        out.transcript()
    );

    for n in 0..2 {
        let err = out.result_n("debug fragment", n);
        assert_eq!(err["ok"], false, "{err}");
        assert!(!err["error"].as_str().unwrap_or("").is_empty(), "{err}");
        let before = out.ok_n("info call", 2 * n);
        let after = out.ok_n("info call", 2 * n + 1);
        assert_eq!(
            before["function"], after["function"],
            "still at the same call"
        );
        assert_eq!(before["call"], after["call"], "still at the same call");
        assert_eq!(before["args"], after["args"], "still at the same call");
    }
    assert_eq!(out.ok_n("info call", 2)["function"], "glBufferData");
    // Not debugging a shader: `print` fails, `step` is the GL-level step.
    assert_eq!(out.result("print v")["ok"], false);
    let step = out.ok("step");
    assert_eq!(step["state"], "stopped", "{step}");
    let next_call = out.ok_n("info call", 4);
    assert_ne!(
        next_call["call"],
        out.ok_n("info call", 3)["call"],
        "step moved on by one call"
    );
    assert_exited_0(&out, out.ok_n("continue", 1));
}

/// `subroutine(T)` functions and subroutine uniforms: glsl-lang cannot
/// parse them, glsl-instrument reads them through a workaround (parse.rs),
/// and the value after the subroutine call is the driver's.
#[test]
fn subroutine_shader_is_debuggable_and_the_app_goes_on() {
    require_workspace();
    let dir = TempDir::new("subroutine");
    let path = dir.join("frame.raw");
    let script = "break draw\ncontinue\ndebug fragment\nstep\nprint s @ 20,20\nend\ninfo call\ndelete\ncontinue\n";
    let out = Session::new(egl_shade(), script)
        .args([
            "--subroutine",
            "--frames",
            "2",
            "--out",
            path.to_str().unwrap(),
        ])
        .run(&dir);
    assert_eq!(out.ok("continue")["stopped"]["function"], "glDrawArrays");
    let first = out.ok("debug fragment");
    assert_eq!(first["line"], lines::SUBROUTINE_CALL, "{first}");
    // shadeA(p) = p.x / 64 at the pixel centre, plus frame 0's gain.
    let s = scalar(out.ok("print s @ 20,20"));
    assert_close(s, (20.5f32 / 64.0 + gain(0)) as f64, 1e-6, "s @ 20,20");
    // The session is unchanged and the app goes on to a normal exit.
    assert_eq!(out.ok("info call")["function"], "glDrawArrays");
    assert_exited_0(&out, out.ok_n("continue", 1));
    assert_eq!(read_frame(&path).len(), (W * H * 4) as usize);
}

/// A nested `##` concatenation whose function-like macro gets its `()`
/// after the expansion: glsl-lang's preprocessor gives up on it, parse.rs
/// expands it; the step sits at the macro's use, and values are the driver's.
#[test]
fn nested_concatenation_shader_is_debuggable() {
    require_workspace();
    let dir = TempDir::new("nested-concat");
    let path = dir.join("frame.raw");
    let script = "break draw\ncontinue\ndebug fragment\nprint u_gain @ 20,20\nend\ninfo call\ndelete\ncontinue\n";
    let out = Session::new(egl_shade(), script)
        .args([
            "--nested-concat",
            "--frames",
            "2",
            "--out",
            path.to_str().unwrap(),
        ])
        .run(&dir);
    assert_eq!(out.ok("continue")["stopped"]["function"], "glDrawArrays");
    let first = out.ok("debug fragment");
    assert_eq!(
        first["line"],
        lines::NESTED_CONCAT_USE,
        "`STEP(ONE);`: {first}"
    );
    assert_eq!(first["column"], 5, "`STEP(ONE);`: {first}");
    assert_close(
        scalar(out.ok("print u_gain @ 20,20")),
        gain(0) as f64,
        1e-7,
        "u_gain",
    );
    assert_eq!(out.ok("info call")["function"], "glDrawArrays");
    assert_exited_0(&out, out.ok_n("continue", 1));
    assert_eq!(read_frame(&path).len(), (W * H * 4) as usize);
}

#[test]
fn debug_shader_rejected_by_the_driver_is_saved_and_the_app_goes_on() {
    require_workspace();
    let dir = TempDir::new("rejected");
    let path = dir.join("frame.raw");
    let native = dir.join("native.raw");
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {}\ncontinue\n\
         print vec2(1.0) + vec3(1.0)\n\
         print float[2](1.0)\n\
         print v @ 20,20\nend\ndelete\ncontinue\n",
        lines::RETURN
    );
    // Kept after gldbg exits (else removed with it: tests/tests/security.rs).
    let out = Session::new(egl_shade(), &script)
        .args(["--out", path.to_str().unwrap()])
        .env("GLDBG_KEEP_DEBUG_SHADERS", "1")
        .keep_going()
        .run(&dir);
    // A type error glsl-instrument sees itself: a clear message, no driver round trip.
    let err = out.failed("print vec2(1.0) + vec3(1.0)");
    assert!(err.contains("no operator `+` for vec2 and vec3"), "{err}");
    assert!(paths_in(&err).is_empty(), "no generated source for {err}");
    // One only the driver sees (an array constructor with too few elements).
    let err = out.failed("print float[2](1.0)");
    let files: Vec<_> = paths_in(&err).into_iter().filter(|p| p.is_file()).collect();
    assert!(
        files.len() >= 2,
        "the error names the generated source and the driver log, files that exist: {err}"
    );
    let texts: Vec<String> = files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("#version") && t.contains("void main")),
        "one file holds the generated shader: {files:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| !t.contains("void main") && !t.trim().is_empty()),
        "one file holds the driver's log: {files:?}"
    );
    // The session goes on: the shader is still being debugged...
    let v = out.ok("print v @ 20,20");
    assert_close(
        scalar(v),
        shade(20, 20, gain(0)).v as f64,
        1e-5,
        "v @ 20,20",
    );
    // ...and the app runs to its normal end with its normal frame.
    assert_exited_0(&out, out.ok_n("continue", 2));
    run_native(&egl_shade(), &["--out", native.to_str().unwrap()], &[]);
    assert!(
        read_frame(&path) == read_frame(&native),
        "frame differs from a native run"
    );
    for f in &files {
        let _ = std::fs::remove_file(f);
        if let Some(parent) = f.parent() {
            let _ = std::fs::remove_dir(parent); // only if empty
        }
    }
}

#[test]
fn sigsegv_in_a_gl_call_is_reported_and_the_daemon_stays_up() {
    require_workspace();
    let dir = TempDir::new("crash");
    let script = "\
break glBufferData
continue
continue
info call
continue
info breakpoints
info call
";
    let out = Session::new(egl_shade(), script)
        .args(["--crash", "--frames", "1"])
        .keep_going()
        .run(&dir);
    assert!(
        out.status.code().is_some(),
        "gldbg itself did not die of a signal:\n{}",
        out.transcript()
    );

    // The first glBufferData uploads the quad; the second is the bogus one.
    let bogus = out.ok_n("continue", 1);
    assert_eq!(bogus["stopped"]["function"], "glBufferData", "{bogus}");
    let call = out.ok_n("info call", 0);
    let size = call["args"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["name"] == "size")
        .cloned();
    assert_eq!(
        size.map(|a| a["raw"].clone()),
        Some(serde_json::json!(1 << 20)),
        "{call}"
    );

    // Continuing into the crash: a crash report with the signal and the call in flight.
    let crash = out.result_n("continue", 2);
    let report = if crash.get("crashed").is_some() {
        crash["crashed"].clone()
    } else {
        out.events()
            .into_iter()
            .find(|e| e["event"] == "crashed")
            .cloned()
            .unwrap_or_else(|| panic!("no crash report:\n{}", out.transcript()))
    };
    assert_eq!(report["signal"], 11, "{report}");
    assert_eq!(report["signal_name"], "SIGSEGV", "{report}");
    assert_eq!(
        report["call"]["function"], "glBufferData",
        "the GL call in flight: {report}"
    );
    assert_eq!(
        report["in_call"], true,
        "the crash happened inside glBufferData: {report}"
    );
    let fault = report["fault_address"].as_u64().unwrap_or(0);
    assert!(
        (16..16 + (1 << 20)).contains(&fault),
        "the fault address lies in the bogus source range [0x10, 0x10 + 1 MiB): {fault:#x}"
    );
    let crashed_events: Vec<_> = out
        .events()
        .into_iter()
        .filter(|e| e["event"] == "crashed")
        .collect();
    assert!(
        !crashed_events.is_empty(),
        "a `crashed` event:\n{}",
        out.transcript()
    );
    assert_eq!(crashed_events[0]["call"]["function"], "glBufferData");

    // The daemon stays up and answers.
    let bps = out.ok("info breakpoints");
    assert_eq!(
        bps["breakpoints"][0]["description"]
            .as_str()
            .map(|d| d.contains("glBufferData")),
        Some(true),
        "{bps}"
    );
    // A command that needs a live app fails cleanly.
    assert_eq!(out.result_n("info call", 1)["ok"], false);
}

#[test]
fn bad_commands_fail_cleanly_and_the_session_goes_on() {
    require_workspace();
    let dir = TempDir::new("bad-commands");
    let script = format!(
        "frobnicate\nbreak draw\ncontinue\nprint v\ndebug fragment\nbreak 999\nbreak 0\n\
         break {ret}\ncontinue\nprint v @ 1000,1000\nprint v @ 64,48\nprint v @ x\n\
         print v @ 20,20\nend\ndelete\ncontinue\n",
        ret = lines::RETURN
    );
    let out = Session::new(egl_shade(), &script).keep_going().run(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", out.transcript());
    for cmd in [
        "frobnicate",
        "print v",
        "break 999",
        "break 0",
        "print v @ 1000,1000",
        "print v @ 64,48",
        "print v @ x",
    ] {
        let err = out.failed(cmd);
        assert!(
            !err.is_empty() && !err.to_lowercase().contains("panic"),
            "{cmd}: {err}"
        );
    }
    assert!(
        out.failed("print v @ 64,48").contains("64x48"),
        "names the framebuffer size"
    );
    assert_close(
        scalar(out.ok("print v @ 20,20")),
        shade(20, 20, gain(0)).v as f64,
        1e-5,
        "v @ 20,20",
    );
    assert_exited_0(&out, out.ok_n("continue", 2));
}

#[test]
fn programs_that_cannot_start_or_fail_are_reported() {
    require_workspace();
    let dir = TempDir::new("cannot-start");
    let script = dir.join("c.gldbg");
    std::fs::write(&script, "continue\n").unwrap();
    // Not an executable: exit 1 with the reason.
    let not_exe = dir.join("not-an-executable");
    std::fs::write(&not_exe, "hello\n").unwrap();
    let mut cmd = Command::new(gldbg());
    cmd.args(["run", "--batch", "--json", "-x"])
        .arg(&script)
        .arg("--")
        .arg(&not_exe);
    let out = run_command(cmd);
    assert_eq!(out.status.code(), Some(1), "{}", out.transcript());
    let all = format!("{}{}", out.stdout, out.stderr);
    assert!(all.contains(not_exe.to_str().unwrap()), "{all}");
    // An app that exits with status 2 before any GL call (bad arguments).
    let out = Session::new(egl_shade(), "continue\n")
        .args(["--no-such-option"])
        .run(&dir);
    let exit = out
        .lines
        .iter()
        .find(|v| v.get("exited").is_some() || v["event"] == "exited")
        .unwrap_or_else(|| panic!("no exit reported:\n{}", out.transcript()));
    let code = exit
        .get("exited")
        .map(|e| e["code"].clone())
        .unwrap_or_else(|| exit["code"].clone());
    assert_eq!(code, 2, "{exit}");
}

/// Issue 11, point 9: in `--batch` a script stops at its first failed
/// command, as gdb's does, with exit status 1: the `step` after a failed
/// `debug fragment` is not run (it would step a GL call instead), and the
/// app is killed. Without `--batch` every line runs, as if typed.
#[test]
fn batch_script_stops_at_its_first_failed_command() {
    require_workspace();
    let dir = TempDir::new("batch-stops");
    let script = "info call\ndebug fragment\nstep\ninfo call\n";
    let out = Session::new(egl_shade(), script).run(&dir);
    assert_eq!(out.status.code(), Some(1), "{}", out.transcript());
    out.ok("info call");
    out.failed("debug fragment");
    let cmds: Vec<&str> = out
        .results()
        .iter()
        .filter_map(|r| r["cmd"].as_str())
        .collect();
    assert_eq!(
        cmds[1..],
        ["info call", "debug fragment"],
        "nothing runs after the failed command:\n{}",
        out.transcript()
    );
    assert!(
        out.stderr.contains(
            "the script stops at its first failed command (line 2); 2 command(s) not run"
        ),
        "{}",
        out.transcript()
    );
    assert!(
        out.events().iter().any(|e| e["event"] == "exited"),
        "the app was killed at the end:\n{}",
        out.transcript()
    );

    let out = Session::new(egl_shade(), script).keep_going().run(&dir);
    assert_eq!(out.status.code(), Some(0), "{}", out.transcript());
    out.failed("debug fragment");
    let step = out.ok("step");
    assert_eq!(step["state"], "stopped", "a GL-level step: {step}");
    assert_ne!(
        out.ok_n("info call", 0)["call"],
        out.ok_n("info call", 1)["call"]
    );
}

/// Issue 11, point 12: an unknown function in `break FUNC` says which
/// names are nearest; a name nothing resembles gets the plain error.
#[test]
fn unknown_break_function_suggests_the_nearest_names() {
    require_workspace();
    let dir = TempDir::new("break-nearest");
    let script = "break glDrawArray\nbreak DrawElements\nbreak frobnicate\n";
    let out = Session::new(egl_shade(), script).keep_going().run(&dir);
    let err = out.failed("break glDrawArray");
    assert!(
        err.contains("unknown GL/GLX/EGL function: glDrawArray (did you mean glDrawArrays"),
        "{err}"
    );
    let err = out.failed("break DrawElements");
    assert!(err.contains("did you mean glDrawElements"), "{err}");
    let err = out.failed("break frobnicate");
    assert!(!err.contains("did you mean"), "{err}");
}
