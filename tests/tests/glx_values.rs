//! Must show 2: the GLX app (links libGL and libX11, calls GL directly, draws
//! into a window's default framebuffer) under an Xvfb server of the test's
//! own: the session stops at glDrawArrays, runs to a line of shade(), prints
//! locals equal to the CPU reference; after `continue` the app's frame is
//! bit-identical to a native run on the same server.

use gldbg_tests::*;

const PIXELS: &[(u32, u32)] = &[(16, 12), (20, 20), (40, 30), (55, 35)];

#[test]
fn glx_app_under_xvfb() {
    require_workspace();
    let dir = TempDir::new("glx");
    let xvfb = Xvfb::start();

    let native = dir.join("native.raw");
    run_native(
        &glx_shade(),
        &["--frames", "2", "--out", native.to_str().unwrap()],
        &[("DISPLAY", xvfb.display())],
    );

    let debugged = dir.join("debugged.raw");
    let mut script = format!(
        "break glDrawArrays\ncontinue\ninfo call\ndebug fragment\nbreak {}\ncontinue\n",
        lines::RETURN
    );
    for &(x, y) in PIXELS {
        script += &format!("print v @ {x},{y}\nprint acc @ {x},{y}\n");
    }
    script += "print v\nend\ndelete\ncontinue\n";
    let out = Session::new(glx_shade(), &script)
        .args(["--frames", "2", "--out", debugged.to_str().unwrap()])
        .env("DISPLAY", xvfb.display())
        .run(&dir);

    let stop = out.ok_n("continue", 0);
    assert_eq!(stop["stopped"]["function"], "glDrawArrays", "{stop}");
    assert_eq!(out.ok("info call")["function"], "glDrawArrays");
    out.ok("debug fragment");
    let at = out.ok_n("continue", 1);
    assert_eq!(at["line"], lines::RETURN, "{at}");
    assert_eq!(at["function"], "shade", "{at}");

    for &(x, y) in PIXELS {
        let s = shade(x, y, gain(0));
        let v = out.ok(&format!("print v @ {x},{y}"));
        assert_eq!(v["reached"], true, "{v}");
        assert_close(scalar(v), s.v as f64, 1e-5, &format!("v @ {x},{y}"));
        let acc = out.ok(&format!("print acc @ {x},{y}"));
        assert_close(scalar(acc), s.acc as f64, 1e-5, &format!("acc @ {x},{y}"));
    }
    let sum = &out.ok("print v")["summary"];
    assert_eq!(sum["count"], COVERED, "{sum}");
    let (lo, hi) = v_range(0);
    assert_close(sum["min"][0].as_f64().unwrap(), lo as f64, 1e-5, "min v");
    assert_close(sum["max"][0].as_f64().unwrap(), hi as f64, 1e-5, "max v");

    let end = out.ok_n("continue", 2);
    assert_eq!(end["state"], "exited", "{end}");
    assert_eq!(end["exited"]["code"], 0, "{end}\n{}", out.transcript());
    assert!(out.status.success(), "{}", out.transcript());
    assert!(
        read_frame(&native) == read_frame(&debugged),
        "GLX frame differs after debugging"
    );
}
