//! Must show 4: `print` without a pixel gives a summary over all fragments
//! (count = fragments that reach the step, min/max = the CPU reference's) and
//! `dump EXPR x.png` writes a correct, non-empty image in which fragments the
//! draw does not cover are drawn distinctly (a checkerboard in colours no
//! covered fragment has). `.npy` gives the raw floats, NaN where uncovered.

use std::collections::HashSet;

use gldbg_tests::*;

#[test]
fn summary_and_dumps() {
    require_workspace();
    let dir = TempDir::new("summary");
    let png_path = dir.join("v.png");
    let p_png = dir.join("p.png");
    let npy_path = dir.join("v.npy");
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {ret}\ncontinue\n\
         print v\nprint acc\nprint p\n\
         dump v {png}\ndump p {ppng}\ndump v {npy}\n",
        ret = lines::RETURN,
        png = png_path.display(),
        ppng = p_png.display(),
        npy = npy_path.display(),
    );
    let out = Session::new(egl_shade(), &script).run(&dir);
    assert_eq!(out.ok_n("continue", 1)["line"], lines::RETURN);

    // --- summaries
    let mut acc_lo = f32::INFINITY;
    let mut acc_hi = f32::NEG_INFINITY;
    for y in 0..H {
        for x in 0..W {
            if covered(x, y) {
                let a = shade(x, y, gain(0)).acc;
                acc_lo = acc_lo.min(a);
                acc_hi = acc_hi.max(a);
            }
        }
    }
    let (v_lo, v_hi) = v_range(0);
    for (cmd, lo, hi) in [("print v", v_lo, v_hi), ("print acc", acc_lo, acc_hi)] {
        let r = out.ok(cmd);
        assert_eq!(r["type"], "float", "{r}");
        let s = &r["summary"];
        assert_eq!(
            s["count"], COVERED,
            "{cmd}: every covered fragment reaches `return v;`: {r}"
        );
        assert_eq!(s["nan"], 0, "{r}");
        assert_eq!(s["inf"], 0, "{r}");
        assert_close(
            s["min"][0].as_f64().unwrap(),
            lo as f64,
            1e-5,
            &format!("{cmd} min"),
        );
        assert_close(
            s["max"][0].as_f64().unwrap(),
            hi as f64,
            1e-5,
            &format!("{cmd} max"),
        );
        assert_eq!(s["total"], COVERED, "fragments covered by the draw: {r}");
    }
    let r = out.ok("print p");
    assert_eq!(r["type"], "vec2");
    let s = &r["summary"];
    assert_eq!(s["min"], serde_json::json!([16.5, 12.5]), "{r}");
    assert_eq!(s["max"], serde_json::json!([55.5, 35.5]), "{r}");

    // --- PNG of a scalar
    let r = out.ok(&format!("dump v {}", png_path.display()));
    assert_eq!(r["width"], W);
    assert_eq!(r["height"], H);
    assert_eq!(r["reached"], COVERED, "{r}");
    let img = decode_png(&png_path);
    assert_eq!((img.width, img.height), (W, H));
    let mut covered_colours = HashSet::new();
    let mut uncovered_colours = HashSet::new();
    for y in 0..H {
        for x in 0..W {
            let c = img.at_window(x, y);
            if covered(x, y) {
                covered_colours.insert(c);
            } else {
                uncovered_colours.insert(c);
            }
        }
    }
    // Uncovered fragments: a checkerboard of exactly two colours...
    assert_eq!(
        uncovered_colours.len(),
        2,
        "checkerboard colours: {uncovered_colours:?}"
    );
    let (a, b) = (img.at_window(0, 0), img.at_window(0, H - 1));
    let row: HashSet<_> = (0..W).map(|x| img.at_window(x, 0)).collect();
    let col: HashSet<_> = (0..H).map(|y| img.at_window(0, y)).collect();
    assert_eq!(row.len(), 2, "the bottom row alternates ({a:?}, ...)");
    assert_eq!(col.len(), 2, "the left column alternates ({b:?}, ...)");
    // ...that no covered fragment has: uncovered is always told apart.
    let shared: Vec<_> = covered_colours.intersection(&uncovered_colours).collect();
    assert!(
        shared.is_empty(),
        "covered fragments drawn in the checkerboard's colours {shared:?}: uncovered is not distinct"
    );
    // Covered fragments: v normalised over min..max (monotonic, full range).
    assert!(
        covered_colours.len() > 16,
        "the image shows the values, not a flat colour"
    );
    let grey = |c: [u8; 4]| c[0] as f64;
    for y in 0..H {
        for x in 0..W {
            if !covered(x, y) {
                continue;
            }
            let c = img.at_window(x, y);
            assert_eq!(c[3], 255, "covered pixels are opaque");
            let want = (shade(x, y, gain(0)).v - v_lo) as f64 / (v_hi - v_lo) as f64 * 255.0;
            assert!(
                (grey(c) - want).abs() <= 1.0,
                "pixel ({x},{y}) is {c:?}, v normalised to 0..255 is {want}"
            );
        }
    }

    // --- PNG of a vec2: per component (red = p.x, green = p.y)
    let img = decode_png(&p_png);
    let c = img.at_window(16, 12);
    assert_eq!(
        (c[0], c[1]),
        (0, 0),
        "min of each component maps to 0: {c:?}"
    );
    let c = img.at_window(55, 35);
    assert_eq!(
        (c[0], c[1]),
        (255, 255),
        "max of each component maps to 255: {c:?}"
    );
    let c = img.at_window(55, 12);
    assert_eq!((c[0], c[1]), (255, 0), "{c:?}");

    // --- NPY: float32 (H, W, 4), rows top-down, NaN where uncovered
    let npy = read_npy(&npy_path);
    assert_eq!(npy.shape, vec![H as usize, W as usize, 4]);
    for y in 0..H {
        for x in 0..W {
            let i = (((H - 1 - y) * W + x) * 4) as usize;
            let v = npy.data[i];
            if covered(x, y) {
                assert_close(
                    v as f64,
                    shade(x, y, gain(0)).v as f64,
                    1e-5,
                    &format!("npy ({x},{y})"),
                );
            } else {
                assert!(
                    v.is_nan(),
                    "uncovered ({x},{y}) is NaN in the .npy, got {v}"
                );
            }
        }
    }
}

/// Uncovered fragments stay distinct even when values land exactly on the
/// checkerboard's colours: a scalar drawn as grey 64 (0, 64 and 255 over a
/// 0..255 range) and a vec3 drawn as magenta (max, min, max).
#[test]
fn uncovered_is_distinct_from_any_value() {
    require_workspace();
    let dir = TempDir::new("distinct");
    let grey = dir.join("grey.png");
    let magenta = dir.join("magenta.png");
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {ret}\ncontinue\n\
         dump (p.x < 20.0 ? 0.0 : (p.x < 30.0 ? 64.0 : 255.0)) {grey}\n\
         dump vec3(p.x, -p.x, p.x) {magenta}\n",
        ret = lines::RETURN,
        grey = grey.display(),
        magenta = magenta.display(),
    );
    let out = Session::new(egl_shade(), &script).run(&dir);
    for path in [&grey, &magenta] {
        out.ok(&out
            .results()
            .iter()
            .find(|r| {
                r["cmd"]
                    .as_str()
                    .is_some_and(|c| c.ends_with(&path.display().to_string()))
            })
            .map(|r| r["cmd"].as_str().unwrap().to_string())
            .unwrap());
        let img = decode_png(path);
        let mut covered_colours = HashSet::new();
        let mut uncovered_colours = HashSet::new();
        for y in 0..H {
            for x in 0..W {
                if covered(x, y) {
                    covered_colours.insert(img.at_window(x, y));
                } else {
                    uncovered_colours.insert(img.at_window(x, y));
                }
            }
        }
        let shared: Vec<_> = covered_colours.intersection(&uncovered_colours).collect();
        assert!(
            shared.is_empty(),
            "{}: covered fragments have the checkerboard's colours {shared:?} (covered: {covered_colours:?})",
            path.display()
        );
    }
}

/// Issue 11, point 11: a PNG dump says the range it mapped (per channel,
/// the CPU reference's min..max), takes a fixed range, and draws a scalar
/// through viridis with a legend bar at the right (top max, bottom min),
/// the uncovered checkerboard kept.
#[test]
fn dump_reports_its_range_and_draws_viridis_with_a_legend() {
    const BOTTOM: [u8; 4] = [68, 1, 84, 255]; // viridis(0)
    const MIDDLE: [u8; 4] = [33, 145, 140, 255]; // viridis(128/255)
    const TOP: [u8; 4] = [253, 231, 37, 255]; // viridis(1)
    require_workspace();
    let dir = TempDir::new("dump-viridis");
    let (v_lo, v_hi) = v_range(0);
    let mid = (v_lo + v_hi) / 2.0;
    let (grey, p_png, viridis, fixed) = (
        dir.join("v.png"),
        dir.join("p.png"),
        dir.join("viridis.png"),
        dir.join("fixed.png"),
    );
    let cmds = [
        format!("dump v {}", grey.display()),
        format!("dump p {}", p_png.display()),
        format!("dump v {} colormap=viridis", viridis.display()),
        format!(
            "dump v {} range={v_lo},{mid} colormap=viridis",
            fixed.display()
        ),
    ];
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {}\ncontinue\n{}\n",
        lines::RETURN,
        cmds.join("\n")
    );
    let out = Session::new(egl_shade(), &script).run(&dir);

    // The mapped range: the values' own min..max per channel.
    let r = out.ok(&cmds[0]);
    assert_close(
        r["mapped"]["min"][0].as_f64().unwrap(),
        v_lo as f64,
        1e-5,
        "v min",
    );
    assert_close(
        r["mapped"]["max"][0].as_f64().unwrap(),
        v_hi as f64,
        1e-5,
        "v max",
    );
    assert_eq!(r["colormap"], "channels", "{r}");
    let r = out.ok(&cmds[1]);
    assert_eq!(r["mapped"]["min"], serde_json::json!([16.5, 12.5]), "{r}");
    assert_eq!(r["mapped"]["max"], serde_json::json!([55.5, 35.5]), "{r}");

    // Viridis over the values' range, with the legend at the right.
    let r = out.ok(&cmds[2]);
    assert_eq!(r["colormap"], "viridis", "{r}");
    let legend = r["legend_width"].as_u64().expect("legend_width") as u32;
    assert!(legend >= 4, "{r}");
    let img = decode_png(&viridis);
    assert_eq!((img.width, img.height), (W + legend, H));
    let mut checker = HashSet::new();
    let mut ends_checked = 0;
    for y in 0..H {
        for x in 0..W {
            let c = img.at_window(x, y);
            if !covered(x, y) {
                checker.insert(c);
                continue;
            }
            let t = (shade(x, y, gain(0)).v - v_lo) as f64 / (v_hi - v_lo) as f64;
            let want = match t * 255.0 {
                s if s < 0.3 => Some(BOTTOM),
                s if s > 254.7 => Some(TOP),
                s if (s - 128.0).abs() < 0.3 => Some(MIDDLE),
                _ => None,
            };
            if let Some(want) = want {
                assert_eq!(c, want, "pixel ({x},{y}), v at {t} of the range");
                ends_checked += usize::from(want != MIDDLE);
            }
            assert!(c != [255, 0, 0, 255], "no NaN here");
        }
    }
    // The fragments of min v and of max v at least: the colour map was checked.
    assert!(
        ends_checked >= 2,
        "{ends_checked} fragments at the range's ends"
    );
    assert_eq!(checker.len(), 2, "the uncovered checkerboard: {checker:?}");
    let right = W + legend - 1;
    assert_eq!(img.at_window(right, H - 1), TOP, "legend top: max");
    assert_eq!(img.at_window(right, 0), BOTTOM, "legend bottom: min");
    assert!(
        (0..H).all(|y| !checker.contains(&img.at_window(W, y))),
        "the legend is no checkerboard"
    );

    // A fixed range: v_lo..mid; everything above mid is the top colour.
    let r = out.ok(&cmds[3]);
    assert_close(
        r["mapped"]["min"][0].as_f64().unwrap(),
        v_lo as f64,
        1e-6,
        "fixed min",
    );
    assert_close(
        r["mapped"]["max"][0].as_f64().unwrap(),
        mid as f64,
        1e-6,
        "fixed max",
    );
    let img = decode_png(&fixed);
    let mut above = 0;
    for y in 0..H {
        for x in 0..W {
            let v = shade(x, y, gain(0)).v;
            if covered(x, y) && v > mid + (v_hi - v_lo) * 0.01 {
                assert_eq!(img.at_window(x, y), TOP, "({x},{y}) v {v} above the range");
                above += 1;
            }
        }
    }
    assert!(above > 0, "some values lie above the fixed range");
}
