//! `break frame` end to end on apps nobody here wrote: Debian's glxgears
//! (GLX) and es2gears_x11 (EGL), each under an Xvfb of the test's own. Every
//! `continue` stops at the frame end (glXSwapBuffers / eglSwapBuffers) with
//! a larger call number, the breakpoint's hit count (`info breakpoints`)
//! counts the frames, and `kill` ends the session cleanly.
//!
//! Needs `cargo build --workspace`, mesa-utils and xvfb.

mod support;

use gldbg_tests::*;
use support::*;

const FRAMES: usize = 4;

#[test]
fn break_frame_stops_at_every_swap_of_glxgears() {
    require_workspace();
    let glxgears = debian("glxgears", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("frames");
    let mut script = String::from("break frame\ninfo breakpoints\n");
    for _ in 0..FRAMES {
        script += "continue\ninfo call\ninfo breakpoints\n";
    }
    script += "kill\n";
    let out = Session::new(&glxgears, &script)
        .env("DISPLAY", x.display())
        .run(&dir);
    assert!(out.status.success(), "{}", out.transcript());

    let bp = &out.ok("break frame")["breakpoint"];
    assert_eq!(bp["description"], "frame", "{bp}");
    let id = bp["id"].clone();
    let hits = |n: usize| {
        let list = &out.ok_n("info breakpoints", n)["breakpoints"];
        let b = list
            .as_array()
            .and_then(|l| l.iter().find(|b| b["id"] == id))
            .unwrap_or_else(|| panic!("breakpoint {id} not listed: {list}"));
        assert_eq!(b["description"], "frame", "{b}");
        b["hits"]
            .as_u64()
            .unwrap_or_else(|| panic!("no hit count: {b}"))
    };
    assert_eq!(hits(0), 0);

    let mut calls = Vec::new();
    for n in 0..FRAMES {
        let stop = out.ok_n("continue", n);
        assert_eq!(stop["state"], "stopped", "{stop}");
        assert_eq!(stop["stopped"]["function"], "glXSwapBuffers", "{stop}");
        assert_eq!(stop["breakpoint"], id, "{stop}");
        let call = out.ok_n("info call", n);
        assert_eq!(call["function"], "glXSwapBuffers", "{call}");
        assert_eq!(call["call"], stop["stopped"]["call"], "{call}");
        // The swap that ends frame n+1 belongs to frame n+1.
        assert_eq!(stop["stopped"]["frame"], n as u64 + 1, "{stop}");
        assert_eq!(call["frame"], n as u64 + 1, "{call}");
        assert_eq!(call["args"][0]["name"], "dpy", "{call}");
        assert_eq!(call["args"][1]["name"], "drawable", "{call}");
        // Frame n+1 ended: the breakpoint was hit once per frame.
        assert_eq!(hits(n + 1), n as u64 + 1, "{}", out.transcript());
        calls.push(stop["stopped"]["call"].as_u64().expect("call number"));
    }
    assert!(
        calls.windows(2).all(|w| w[0] < w[1]),
        "call numbers of the swaps increase: {calls:?}"
    );
    // glxgears draws the same display lists each frame: after the first
    // frame (set-up calls), the same number of calls per frame.
    let per_frame: Vec<u64> = calls.windows(2).map(|w| w[1] - w[0]).collect();
    assert!(
        per_frame.iter().all(|&d| d == per_frame[0]),
        "calls per frame: {per_frame:?}"
    );
    // The drawable is the same window every frame.
    let drawables: Vec<&Value> = (0..FRAMES)
        .map(|n| &out.ok_n("info call", n)["args"][1]["raw"])
        .collect();
    assert!(
        drawables.iter().all(|d| *d == drawables[0]),
        "{drawables:?}"
    );

    let end = out.ok("kill");
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(end["exited"]["signal"], 9, "{end}");
}

#[test]
fn break_frame_stops_at_every_swap_of_es2gears() {
    require_workspace();
    let es2gears = debian("es2gears_x11", "mesa-utils");
    let x = Xvfb::start();
    let dir = TempDir::new("frames-egl");
    let mut script = String::from("break frame\n");
    for _ in 0..FRAMES {
        script += "continue\ninfo breakpoints\n";
    }
    script += "kill\n";
    let out = Session::new(&es2gears, &script)
        .env("DISPLAY", x.display())
        .run(&dir);
    assert!(out.status.success(), "{}", out.transcript());
    let mut calls = Vec::new();
    for n in 0..FRAMES {
        let stop = out.ok_n("continue", n);
        assert_eq!(stop["stopped"]["function"], "eglSwapBuffers", "{stop}");
        assert_eq!(stop["stopped"]["frame"], n as u64 + 1, "{stop}");
        let hits = &out.ok_n("info breakpoints", n)["breakpoints"][0];
        assert_eq!(hits["description"], "frame", "{hits}");
        assert_eq!(hits["hits"], n + 1, "{hits}");
        calls.push(stop["stopped"]["call"].as_u64().expect("call number"));
    }
    assert!(calls.windows(2).all(|w| w[0] < w[1]), "{calls:?}");
    assert_eq!(out.ok("kill")["state"], "exited");
}
