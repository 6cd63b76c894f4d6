//! Must show 3: after a debug session and `continue`, the app's final frame is
//! bit-identical to the frame of a run without gldbg, and to a run under gldbg
//! in run mode (no breakpoints).

use gldbg_tests::*;

fn native_frame(dir: &TempDir) -> Vec<u8> {
    let path = dir.join("native.raw");
    run_native(
        &egl_shade(),
        &["--frames", "3", "--out", path.to_str().unwrap()],
        &[],
    );
    read_frame(&path)
}

#[track_caller]
fn assert_exited_0(out: &Output, cmd: &str, n: usize) {
    let r = out.ok_n(cmd, n);
    assert_eq!(r["state"], "exited", "{r}\n{}", out.transcript());
    assert_eq!(
        r["exited"]["code"],
        0,
        "the app exits with 0: {r}\n{}",
        out.transcript()
    );
}

#[track_caller]
fn assert_same_frame(a: &[u8], b: &[u8], what: &str) {
    if a != b {
        let diffs: Vec<String> = (0..H)
            .flat_map(|y| (0..W).map(move |x| (x, y)))
            .filter(|&(x, y)| pixel(a, x, y) != pixel(b, x, y))
            .take(8)
            .map(|(x, y)| format!("({x},{y}): {:?} vs {:?}", pixel(a, x, y), pixel(b, x, y)))
            .collect();
        panic!("{what}: frames differ, e.g. {}", diffs.join("; "));
    }
}

#[test]
fn run_mode_frame_is_bit_identical_to_native() {
    require_workspace();
    let dir = TempDir::new("ident-run");
    let native = native_frame(&dir);
    let path = dir.join("run.raw");
    let out = Session::new(egl_shade(), "continue\n")
        .args(["--frames", "3", "--out", path.to_str().unwrap()])
        .run(&dir);
    assert_exited_0(&out, "continue", 0);
    assert!(out.status.success(), "{}", out.transcript());
    assert_same_frame(&native, &read_frame(&path), "native vs gldbg run mode");
}

#[test]
fn frame_after_debug_sessions_is_bit_identical_to_native() {
    require_workspace();
    let dir = TempDir::new("ident-debug");
    let native = native_frame(&dir);
    let path = dir.join("debug.raw");
    let dump = dir.join("v.png");
    // Debug the draw of frame 0 (state must be restored for frames 1 and 2),
    // then the draw of the last frame (the one read back), then run to the end.
    let script = format!(
        "break draw
continue
debug fragment
break {ret}
continue
print v @ 20,20
step
print s @ 20,20
print s
end
continue
continue
debug fragment
next
break {add}
continue
print acc @ 40,30
delete
break {ret}
continue
print v @ 40,30
dump v {dump}
end
delete
continue
",
        ret = lines::RETURN,
        add = lines::ACC_ADD,
        dump = dump.display()
    );
    let out = Session::new(egl_shade(), &script)
        .args(["--frames", "3", "--out", path.to_str().unwrap()])
        .run(&dir);

    // The debugging really happened, at the right draws.
    assert_eq!(out.ok_n("continue", 0)["stopped"]["draw"], 1);
    assert_close(
        scalar(out.ok("print v @ 20,20")),
        shade(20, 20, gain(0)).v as f64,
        1e-5,
        "v @ 20,20 in frame 0",
    );
    // One step on: back in main at `frag = ...;`, where s holds shade()'s result.
    assert_eq!(out.ok("step")["line"], lines::FRAG);
    assert_close(
        scalar(out.ok("print s @ 20,20")),
        shade(20, 20, gain(0)).v as f64,
        1e-5,
        "s @ 20,20",
    );
    assert_eq!(out.ok("print s")["summary"]["count"], COVERED);
    out.ok("end");
    assert_eq!(
        out.ok_n("continue", 2)["stopped"]["draw"],
        2,
        "continue after `end` runs the app"
    );
    assert_eq!(out.ok_n("continue", 3)["stopped"]["draw"], 3);
    assert_close(
        scalar(out.ok("print acc @ 40,30")),
        shade(40, 30, gain(2)).acc_at[0] as f64,
        1e-5,
        "acc @ 40,30 in frame 2, iteration 0",
    );
    assert_close(
        scalar(out.ok("print v @ 40,30")),
        shade(40, 30, gain(2)).v as f64,
        1e-5,
        "v @ 40,30 in frame 2",
    );
    out.ok(&format!("dump v {}", dump.display()));
    assert!(dump.exists());
    assert_exited_0(&out, "continue", 6);
    assert!(
        out.status.success(),
        "every command succeeded:\n{}",
        out.transcript()
    );

    assert_same_frame(
        &native,
        &read_frame(&path),
        "native vs after debug sessions",
    );
}

/// The app's GL error state survives a debug session at the draw: the app
/// raised GL_INVALID_ENUM before the draw and reads it back after (it exits
/// with 4 if the debugger swallowed or replaced it).
#[test]
fn gl_error_state_survives_a_debug_session() {
    require_workspace();
    let dir = TempDir::new("ident-error");
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {}\ncontinue\nprint v @ 20,20\nprint v\nend\ndelete\ncontinue\n",
        lines::RETURN
    );
    let out = Session::new(egl_shade(), &script)
        .args(["--gl-error"])
        .run(&dir);
    assert_close(
        scalar(out.ok("print v @ 20,20")),
        shade(20, 20, gain(0)).v as f64,
        1e-5,
        "v @ 20,20",
    );
    assert_exited_0(&out, "continue", 2);
    assert!(
        out.stdout.contains("GL_INVALID_ENUM kept"),
        "{}",
        out.transcript()
    );
}
