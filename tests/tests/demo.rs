//! The README's main job: the bundled demo script runs to its end on egl_shade,
//! prints shader values and writes a PNG.

use gldbg_tests::*;

#[test]
fn demo_script_runs() {
    require_workspace();
    let dir = TempDir::new("demo");
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/demo.gldbg");
    let out = Session::with_file(egl_shade(), &script)
        .cwd(dir.path())
        .run(&dir);
    assert!(
        out.status.success(),
        "every demo command succeeds:\n{}",
        out.transcript()
    );
    for r in out.results() {
        assert_eq!(r["ok"], true, "{r}");
    }
    let v = out.ok("print v @ 20,20");
    assert_close(
        scalar(v),
        shade(20, 20, gain(0)).v as f64,
        1e-5,
        "v @ 20,20",
    );
    assert_eq!(
        out.ok_n("print i @ 40,30", 1)["value"],
        serde_json::json!([1])
    );
    let png = dir.join("gldbg-demo.png");
    let img = decode_png(&png);
    assert_eq!((img.width, img.height), (W, H));
    let last = out.results().into_iter().last().unwrap().clone();
    assert_eq!(last["state"], "exited", "{last}");
    assert_eq!(last["exited"]["code"], 0, "{last}");
}
