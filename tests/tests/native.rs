//! The test apps without gldbg: they run on the real driver (Mesa) and render
//! what the CPU reference says. Everything else builds on this.

use gldbg_tests::*;

fn check_frame_against_reference(frame: &[u8], frame_index: u32, what: &str) {
    let mut checked = 0;
    for y in 0..H {
        for x in 0..W {
            let got = pixel(frame, x, y);
            let want = frame_pixel(x, y, frame_index);
            if covered(x, y) {
                checked += 1;
                for c in 0..4 {
                    let d = (got[c] as i32 - want[c] as i32).abs();
                    assert!(
                        d <= 1,
                        "{what}: pixel ({x},{y}) is {got:?}, CPU reference {want:?}"
                    );
                }
            } else {
                assert_eq!(got, CLEAR_RGBA8, "{what}: uncovered pixel ({x},{y})");
            }
        }
    }
    // The quad's pixels were compared with the reference, not only the clear colour.
    assert_eq!(checked, COVERED, "{what}: pixels the quad covers");
}

#[test]
fn egl_shade_renders_the_reference_frame() {
    let dir = TempDir::new("native-egl");
    for frames in [1u32, 3] {
        let out = dir.join(&format!("egl-{frames}.raw"));
        let run = run_native(
            &egl_shade(),
            &[
                "--frames",
                &frames.to_string(),
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
        );
        assert!(
            run.stdout.contains(&format!("{frames} frames")),
            "{}",
            run.transcript()
        );
        check_frame_against_reference(&read_frame(&out), frames - 1, "egl_shade");
    }
}

#[test]
fn egl_shade_is_deterministic() {
    let dir = TempDir::new("native-det");
    let a = dir.join("a.raw");
    let b = dir.join("b.raw");
    run_native(&egl_shade(), &["--out", a.to_str().unwrap()], &[]);
    run_native(&egl_shade(), &["--out", b.to_str().unwrap()], &[]);
    assert!(read_frame(&a) == read_frame(&b), "two native runs differ");
}

#[test]
fn egl_shade_subroutine_variant_runs() {
    run_native(&egl_shade(), &["--subroutine", "--frames", "1"], &[]);
}

#[test]
fn egl_shade_crash_variant_segfaults() {
    let mut cmd = std::process::Command::new(egl_shade());
    cmd.args(["--crash", "--frames", "1"]);
    let out = run_command(cmd);
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        out.status.signal(),
        Some(11),
        "expected SIGSEGV:\n{}",
        out.transcript()
    );
    assert!(out.stderr.contains("glBufferData"), "{}", out.transcript());
}

#[test]
fn glx_shade_renders_the_same_frame_under_xvfb() {
    let dir = TempDir::new("native-glx");
    let xvfb = Xvfb::start();
    let glx = dir.join("glx.raw");
    let egl = dir.join("egl.raw");
    run_native(
        &glx_shade(),
        &["--out", glx.to_str().unwrap()],
        &[("DISPLAY", xvfb.display())],
    );
    run_native(&egl_shade(), &["--out", egl.to_str().unwrap()], &[]);
    let glx = read_frame(&glx);
    check_frame_against_reference(&glx, 2, "glx_shade");
    assert!(glx == read_frame(&egl), "GLX and EGL frames differ");
}

#[test]
fn two_xvfb_servers_at_once() {
    let a = Xvfb::start();
    let b = Xvfb::start();
    assert_ne!(a.display(), b.display());
}

/// Undefined dynamic symbols of an executable (`nm -D --undefined-only`).
fn imports(path: &std::path::Path) -> Vec<String> {
    let out = std::process::Command::new("nm")
        .args(["-D", "--undefined-only"])
        .arg(path)
        .output()
        .expect("nm (binutils) runs");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().last())
        .map(|s| s.split('@').next().unwrap().to_string())
        .collect()
}

#[test]
fn egl_shade_reaches_gl_only_through_eglgetprocaddress() {
    let syms = imports(&egl_shade());
    assert!(syms.iter().any(|s| s == "eglGetProcAddress"), "{syms:?}");
    let gl: Vec<_> = syms.iter().filter(|s| s.starts_with("gl")).collect();
    assert!(
        gl.is_empty(),
        "egl_shade links GL functions directly: {gl:?}"
    );
}

#[test]
fn glx_shade_links_gl_directly() {
    let syms = imports(&glx_shade());
    for f in [
        "glDrawArrays",
        "glShaderSource",
        "glXSwapBuffers",
        "glXMakeCurrent",
    ] {
        assert!(syms.iter().any(|s| s == f), "{f} not imported: {syms:?}");
    }
}

#[test]
fn egl_shade_gl_error_variant_sees_its_error() {
    let out = run_native(&egl_shade(), &["--gl-error", "--frames", "1"], &[]);
    assert!(
        out.stdout.contains("GL_INVALID_ENUM kept"),
        "{}",
        out.transcript()
    );
}
