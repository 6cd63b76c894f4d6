//! glxgears renders exactly as without gldbg, checked by pixels. Its first
//! frame is deterministic (the gears' angle advances by the time elapsed
//! since the previous frame: 0 at the first), so the test-only LD_PRELOAD
//! shim `tests/apps/swap_shim.c` photographs the back buffer at the first
//! glXSwapBuffers and the app exits 0 after its second swap. The image of a
//! native run must be bit-identical to those under `gldbg run`: without
//! breakpoints, after a `break draw` stop and `continue`, and with the
//! shim's own GL calls stopped at. Each test has an Xvfb of its own.
//!
//! LD_PRELOAD order: gldbg puts its preload in front of the app's own
//! LD_PRELOAD (debugd/src/launch.rs, `child_env`). To have the shim first,
//! so that its calls (glReadPixels, then the real glXSwapBuffers) reach
//! gldbg's wrappers as the app's own calls would, the app is started
//! through `sh -c 'LD_PRELOAD=shim:$LD_PRELOAD exec glxgears'` (gldbg
//! follows the exec). One test keeps gldbg's default order (shim second:
//! it runs inside gldbg's glXSwapBuffers wrapper) and checks the same image.
//!
//! Needs `cargo build --workspace`, mesa-utils, xvfb and a C compiler.

mod support;

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use gldbg_tests::*;
use support::*;

/// The app exits 0 right after this swap (the shim's `exit(0)`).
const EXIT_AFTER: &str = "2";

/// Puts `$SWAP_SHIM` in front of `LD_PRELOAD` (gldbg's preload), then
/// execs the program given as `$0`.
const SHIM_FIRST: &str = "LD_PRELOAD=\"$SWAP_SHIM${LD_PRELOAD:+:$LD_PRELOAD}\" exec \"$0\"";

fn glxgears() -> PathBuf {
    debian("glxgears", "mesa-utils")
}

/// The first frame of glxgears run natively with the shim.
fn native_first_frame(x: &Xvfb, dir: &TempDir, name: &str) -> Pam {
    let path = dir.join(name);
    let shim = swap_shim();
    run_native(
        &glxgears(),
        &[],
        &[
            ("DISPLAY", x.display()),
            ("LD_PRELOAD", shim.to_str().unwrap()),
            ("SWAP_SHIM_OUT", path.to_str().unwrap()),
            ("SWAP_SHIM_EXIT_AFTER", EXIT_AFTER),
        ],
    );
    read_pam(&path)
}

/// A gldbg session on glxgears with the shim first in the app's LD_PRELOAD;
/// the first frame goes to `image`.
fn shim_first_session(x: &Xvfb, image: &Path, script: &str) -> Session {
    let shim = swap_shim();
    Session::new("/bin/sh", script)
        .args(["-c", SHIM_FIRST, glxgears().to_str().unwrap()])
        .env("DISPLAY", x.display())
        .env("SWAP_SHIM", shim.to_str().unwrap())
        .env("SWAP_SHIM_OUT", image.to_str().unwrap())
        .env("SWAP_SHIM_EXIT_AFTER", EXIT_AFTER)
}

#[track_caller]
fn assert_same_image(native: &Pam, got: &Pam, what: &str) {
    assert_eq!(
        (native.width, native.height),
        (got.width, got.height),
        "{what}: size"
    );
    if native != got {
        let diffs: Vec<String> = native
            .pixels
            .iter()
            .zip(&got.pixels)
            .enumerate()
            .filter(|(_, (a, b))| a != b)
            .take(8)
            .map(|(i, (a, b))| {
                let (x, y) = (i as u32 % native.width, i as u32 / native.width);
                format!("({x},{y}) from top-left: {a:?} vs {b:?}")
            })
            .collect();
        let count = native
            .pixels
            .iter()
            .zip(&got.pixels)
            .filter(|(a, b)| a != b)
            .count();
        panic!(
            "{what}: first frame differs from the native one in {count} pixels, e.g. {}",
            diffs.join("; ")
        );
    }
}

/// The session's app ran to the shim's `exit(0)`, and gldbg exited 0.
#[track_caller]
fn assert_app_exited_0(out: &Output) {
    assert!(out.status.success(), "{}", out.transcript());
    assert_last_exited_0(out, "continue");
}

#[test]
fn first_frame_is_deterministic_and_not_blank() {
    let x = Xvfb::start();
    let dir = TempDir::new("first-frame-native");
    let a = native_first_frame(&x, &dir, "a.pam");
    let b = native_first_frame(&x, &dir, "b.pam");
    assert_eq!((a.width, a.height), (300, 300), "glxgears' default window");
    assert_same_image(&a, &b, "a second native run");

    // The three gears (red, green, blue, lit) on a black background.
    let colours: HashSet<[u8; 4]> = a.pixels.iter().copied().collect();
    assert!(colours.len() >= 16, "{} distinct colours", colours.len());
    let dominant = |c: usize| {
        a.pixels
            .iter()
            .filter(|p| (0..3).all(|o| o == c || p[c] > p[o].saturating_add(40)))
            .count()
    };
    for (c, name) in [(0, "red"), (1, "green"), (2, "blue")] {
        assert!(dominant(c) > 500, "{name} gear: {} pixels", dominant(c));
    }
    let black = a.pixels.iter().filter(|p| p[..3] == [0, 0, 0]).count();
    assert!(black > 10_000, "background: {black} black pixels");
}

#[test]
fn first_frame_under_gldbg_without_breakpoints() {
    require_workspace();
    let x = Xvfb::start();
    let dir = TempDir::new("first-frame-run");
    let native = native_first_frame(&x, &dir, "native.pam");
    let image = dir.join("gldbg.pam");
    let out = shim_first_session(&x, &image, "continue\n").run(&dir);
    assert_app_exited_0(&out);
    assert_same_image(&native, &read_pam(&image), "under gldbg, no breakpoints");
}

#[test]
fn first_frame_under_gldbg_after_a_draw_stop() {
    require_workspace();
    let x = Xvfb::start();
    let dir = TempDir::new("first-frame-draw");
    let native = native_first_frame(&x, &dir, "native.pam");
    let image = dir.join("gldbg.pam");
    let script = "break draw\ncontinue\ninfo call\ndelete\ncontinue\n";
    let out = shim_first_session(&x, &image, script).run(&dir);
    let stop = out.ok_n("continue", 0);
    assert_eq!(stop["stopped"]["draw"], 1, "{stop}");
    // glxgears' first draw: glCallList of a gear (the glEnd calls before
    // it only compile the gears' display lists).
    assert_eq!(out.ok("info call")["function"], "glCallList");
    assert_app_exited_0(&out);
    assert_same_image(&native, &read_pam(&image), "under gldbg, after a draw stop");
}

/// The shim's own GL calls go through gldbg: it stops at the shim's
/// glReadPixels, and (shim first) the frame end comes after it.
#[test]
fn first_frame_under_gldbg_stopping_in_the_shim() {
    require_workspace();
    let x = Xvfb::start();
    let dir = TempDir::new("first-frame-shim");
    let native = native_first_frame(&x, &dir, "native.pam");
    let image = dir.join("gldbg.pam");
    let script = "break glReadPixels\ncontinue\ninfo call\ndelete\nbreak frame\ncontinue\n\
                  info breakpoints\ndelete\ncontinue\n";
    let out = shim_first_session(&x, &image, script).run(&dir);
    let read = out.ok("info call");
    assert_eq!(read["function"], "glReadPixels", "{read}");
    let args: Vec<(&str, &str)> = read["args"]
        .as_array()
        .expect("args")
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["value"].as_str().unwrap()))
        .collect();
    for want in [
        ("width", "300"),
        ("height", "300"),
        ("format", "GL_RGBA"),
        ("type", "GL_UNSIGNED_BYTE"),
    ] {
        assert!(args.contains(&want), "{want:?} in {read}");
    }
    let swap = out.ok_n("continue", 1);
    assert_eq!(swap["stopped"]["function"], "glXSwapBuffers", "{swap}");
    assert!(
        swap["stopped"]["call"].as_u64() > read["call"].as_u64(),
        "the first frame's swap follows the shim's read: {swap} {read}"
    );
    // ... and it is the first frame end.
    assert_eq!(out.ok("info breakpoints")["breakpoints"][0]["hits"], 1);
    assert_app_exited_0(&out);
    assert_same_image(
        &native,
        &read_pam(&image),
        "under gldbg, stopped in the shim",
    );
}

/// gldbg's own LD_PRELOAD order (its preload first, the app's after it):
/// the shim runs inside gldbg's glXSwapBuffers wrapper, its glReadPixels
/// still reaches gldbg, and the image is the same.
#[test]
fn first_frame_under_gldbg_with_its_default_preload_order() {
    require_workspace();
    let x = Xvfb::start();
    let dir = TempDir::new("first-frame-order");
    let native = native_first_frame(&x, &dir, "native.pam");
    let image = dir.join("gldbg.pam");
    let shim = swap_shim();
    let out = Session::new(
        glxgears(),
        "break glReadPixels\ncontinue\ndelete\ncontinue\n",
    )
    .env("DISPLAY", x.display())
    .env("LD_PRELOAD", shim.to_str().unwrap())
    .env("SWAP_SHIM_OUT", image.to_str().unwrap())
    .env("SWAP_SHIM_EXIT_AFTER", EXIT_AFTER)
    .run(&dir);
    let read = out.ok_n("continue", 0);
    assert_eq!(read["stopped"]["function"], "glReadPixels", "{read}");
    assert_app_exited_0(&out);
    assert_same_image(
        &native,
        &read_pam(&image),
        "under gldbg, default preload order",
    );
}
