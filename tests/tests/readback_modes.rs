//! A `print` reads back only what it shows: `print EXPR @ X,Y` (`@ vertex
//! N`, `@ invocation X,Y,Z`) that invocation alone, a summary `print` a
//! reduction the GPU made (count, per-component min/max over finite
//! values, NaN and Inf counts). Each session runs twice, as it is and
//! with `GLDBG_READBACK=all` (every probe reads the whole draw, reduced on
//! the CPU as before): the values equal the CPU references, the summaries
//! equal the CPU-reduced ones field for field (floats, vectors, ints,
//! uints, bools, with NaN and Inf planted), and the timing's
//! `readback_bytes` shows which path each print took.

mod support;

use gldbg_tests::compute::{self, INVOCATIONS};
use gldbg_tests::*;
use serde_json::Value;

/// The session's results, as it is and with every readback whole.
fn both(program: std::path::PathBuf, script: &str, dir: &TempDir) -> (Output, Output) {
    let gpu = Session::new(&program, script)
        .env("GLDBG_READBACK", "gpu")
        .keep_going()
        .run(dir);
    let cpu = Session::new(&program, script)
        .env("GLDBG_READBACK", "all")
        .keep_going()
        .run(dir);
    (gpu, cpu)
}

/// What the whole-readback session read for `r`: at least `min` bytes,
/// where it ran a probe (a later print of a value it read whole reuses it).
#[track_caller]
fn whole(r: &Value, min: u64) {
    if r.get("timing").is_some() {
        assert!(bytes(r) >= min, "the whole draw: {r}");
    }
}

fn bytes(r: &Value) -> u64 {
    r["timing"]["readback_bytes"]
        .as_u64()
        .unwrap_or_else(|| panic!("no readback_bytes in {r}"))
}

/// The summary prints of `exprs` agree between the GPU and the CPU
/// reduction; the GPU's read back at most `max_gpu_bytes`, the CPU's at
/// least `min_cpu_bytes`. Returns the GPU's results.
#[track_caller]
fn summaries_agree<'a>(
    (gpu, cpu): (&'a Output, &Output),
    exprs: &[&str],
    max_gpu_bytes: u64,
    min_cpu_bytes: u64,
) -> Vec<&'a Value> {
    exprs
        .iter()
        .map(|e| {
            let cmd = format!("print {e}");
            let (g, c) = (gpu.ok(&cmd), cpu.ok(&cmd));
            assert!(g["summary"].is_object(), "{g}");
            assert_eq!(g["type"], c["type"], "{cmd}");
            assert_eq!(g["summary"], c["summary"], "{cmd}: GPU {g}\nCPU {c}");
            assert_eq!(g["table"], c["table"], "{cmd}");
            assert!(bytes(g) <= max_gpu_bytes, "{cmd}: the summary path: {g}");
            whole(c, min_cpu_bytes);
            g
        })
        .collect()
}

#[track_caller]
fn summary_of(r: &Value) -> (u64, Vec<f64>, Vec<f64>, u64, u64) {
    let s = &r["summary"];
    let nums = |k: &str| -> Vec<f64> {
        s[k].as_array()
            .unwrap_or_else(|| panic!("{r}"))
            .iter()
            .map(|v| v.as_f64().unwrap_or(f64::NAN))
            .collect()
    };
    let n = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {r}"));
    (n("count"), nums("min"), nums("max"), n("nan"), n("inf"))
}

const FRAGMENT_SUMMARIES: &[&str] = &[
    "v",
    "vec4(p, v, acc)",
    "int(p.x) - 30",
    "ivec2(p) - ivec2(40, 20)",
    "uint(p.y) * 3u",
    "p.x > 30.0",
    "bvec3(p.x > 30.0, p.y < 20.0, true)",
    // 0/0 at (20, 15), ±x/0 on the rest of row 15.
    "(p.x - 20.5) / (p.y - 15.5)",
    "vec2(p.y, (p.x - 20.5) / (p.y - 15.5))",
];

#[test]
fn fragment_points_and_summaries() {
    require_workspace();
    let pixels = [
        (20u32, 15u32),
        (16, 12),
        (55, 35),
        (40, 30),
        (1, 1),
        (63, 47),
    ];
    let mut script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {}\ncontinue\n",
        lines::RETURN
    );
    // Summaries first: a point the replay does not reach reads the draw
    // whole for its type, and later prints of that value come from it.
    for e in FRAGMENT_SUMMARIES {
        script += &format!("print {e}\n");
    }
    for (x, y) in pixels {
        script += &format!("print v @ {x},{y}\nprint vec4(p, v, acc) @ {x},{y}\n");
    }
    // After a whole readback (a dump) a point is taken from it.
    let dir = TempDir::new("readback-fragment");
    let npy = dir.join("v.npy");
    script += &format!("dump v {}\nprint v @ 30,20\nend\nkill\n", npy.display());
    let (gpu, cpu) = both(egl_shade(), &script, &dir);

    // Once a pixel the replay does not reach was read whole (for its
    // type), later points of the same value may come from that readback.
    let mut read_whole = false;
    let point_path = |g: &Value, n: u64, read_whole: bool, cmd: &str| {
        if !read_whole || g.get("timing").is_some() {
            assert_eq!(bytes(g), n, "{cmd}: the point path: {g}");
        }
    };
    for (x, y) in pixels {
        let s = shade(x, y, gain(0));
        let cmd = format!("print v @ {x},{y}");
        let (g, c) = (gpu.ok(&cmd), cpu.ok(&cmd));
        assert_eq!(g["reached"], covered(x, y), "{g}");
        assert_eq!(g["type"], "float", "{g}");
        assert_eq!(g["value"], c["value"], "{cmd}");
        if covered(x, y) {
            assert_close(scalar(g), s.v as f64, 1e-5, &cmd);
        }
        // 4 bytes of value and one of coverage, against the whole 64x48.
        // The replay shades the printed pixel alone: one it does not reach
        // takes its type from the whole draw, read again.
        match covered(x, y) {
            true => point_path(g, 5, read_whole, &cmd),
            false => whole(g, u64::from(W * H)),
        }
        whole(c, u64::from(W * H));
        let cmd = format!("print vec4(p, v, acc) @ {x},{y}");
        let (g, c) = (gpu.ok(&cmd), cpu.ok(&cmd));
        assert_eq!(g["value"], c["value"], "{cmd}");
        assert_eq!(g["type"], "vec4", "{g}");
        if covered(x, y) {
            let v = values(g);
            assert_eq!(&v[..2], &[s.p[0] as f64, s.p[1] as f64], "{g}");
            assert_close(v[3], s.acc as f64, 1e-5, &cmd);
        }
        match covered(x, y) {
            true => point_path(g, 17, read_whole, &cmd),
            false => whole(g, u64::from(W * H)),
        }
        read_whole |= !covered(x, y);
    }

    let s = summaries_agree((&gpu, &cpu), FRAGMENT_SUMMARIES, 0, u64::from(W * H));
    let covered_px = u64::from(COVERED);
    assert_eq!(summary_of(s[0]).0, covered_px);
    let (count, min, max, nan, inf) = summary_of(s[2]);
    assert_eq!(
        (count, min, max, nan, inf),
        (covered_px, vec![-14.0], vec![25.0], 0, 0)
    );
    let (_, min, max, ..) = summary_of(s[3]);
    assert_eq!((min, max), (vec![-24.0, -8.0], vec![15.0, 15.0]));
    let (_, min, max, ..) = summary_of(s[4]);
    assert_eq!((min, max), (vec![36.0], vec![105.0]), "uint(p.y) * 3u");
    let (_, min, max, ..) = summary_of(s[5]);
    assert_eq!((min, max), (vec![0.0], vec![1.0]), "bool");
    let (_, min, max, ..) = summary_of(s[6]);
    assert_eq!(
        (min, max),
        (vec![0.0, 0.0, 1.0], vec![1.0, 1.0, 1.0]),
        "bvec3"
    );
    // Row 15 of the quad: one 0/0, 39 divisions of a nonzero by zero.
    let (count, _, _, nan, inf) = summary_of(s[7]);
    assert_eq!((count, nan, inf), (covered_px, 1, 39), "{}", s[7]);
    let (_, min, max, nan, inf) = summary_of(s[8]);
    assert_eq!((nan, inf), (1, 39), "{}", s[8]);
    assert_eq!(
        (min[0], max[0]),
        (12.5, 35.5),
        "finite components only: {}",
        s[8]
    );

    // The dump after the summary of `v` read every fragment.
    let d = gpu.ok(&format!("dump v {}", npy.display()));
    assert_eq!(d["reached"], COVERED, "{d}");
    // The point after the dump reused the whole readback: no probe ran.
    let r = gpu.ok("print v @ 30,20");
    assert_close(
        scalar(r),
        shade(30, 20, gain(0)).v as f64,
        1e-5,
        "v @ 30,20",
    );
    assert!(
        r.get("timing").is_none(),
        "served from the dump's probe: {r}"
    );
}

#[test]
fn compute_points_and_summaries() {
    require_workspace();
    let at = [[0u32, 0, 0], [3, 1, 0], [31, 7, 1], [12, 2, 1], [32, 0, 0]];
    let mut script =
        String::from("break glDispatchCompute\ncontinue\ndebug compute\nbreak 28\ncontinue\n");
    for g in at {
        script += &format!("print v @ invocation {},{},{}\n", g[0], g[1], g[2]);
    }
    let sums = [
        "v",
        "idx",
        "int(idx) - 100",
        "idx % 2u == 0u",
        // NaN where idx % 3 == 0, bit-exact; 1/0 at idx 0.
        "vec4(v, float(idx), 1.0 / float(idx), uintBitsToFloat(idx % 3u == 0u ? 0x7fc00000u : 0x3f800000u))",
        // +Inf at even idx, a NaN at odd: no finite value.
        "vec2(v, uintBitsToFloat(0x7f800000u + idx % 2u))",
    ];
    for e in sums {
        script += &format!("print {e}\n");
    }
    script += "end\nkill\n";
    let dir = TempDir::new("readback-compute");
    let (gpu, cpu) = both(egl_compute(), &script, &dir);
    for g in &at[..4] {
        let cmd = format!("print v @ invocation {},{},{}", g[0], g[1], g[2]);
        let (r, c) = (gpu.ok(&cmd), cpu.ok(&cmd));
        assert_eq!(r["value"], c["value"], "{cmd}");
        assert_close(
            scalar(r),
            compute::shade(compute::index(*g)) as f64,
            1e-5,
            &cmd,
        );
        // 16 bytes of value and one of coverage, against 512 x 20.
        assert_eq!(bytes(r), 17, "{cmd}: {r}");
        whole(c, u64::from(INVOCATIONS) * 20);
    }
    let err = gpu.failed("print v @ invocation 32,0,0");
    assert_eq!(err, cpu.failed("print v @ invocation 32,0,0"));

    let s = summaries_agree((&gpu, &cpu), &sums, 0, u64::from(INVOCATIONS) * 20);
    let n = u64::from(INVOCATIONS);
    let shades: Vec<f32> = (0..INVOCATIONS).map(compute::shade).collect();
    let lo = shades.iter().copied().fold(f32::INFINITY, f32::min);
    let hi = shades.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    assert_eq!(
        summary_of(s[0]),
        (n, vec![lo as f64], vec![hi as f64], 0, 0)
    );
    assert_eq!(summary_of(s[1]), (n, vec![0.0], vec![511.0], 0, 0));
    assert_eq!(summary_of(s[2]), (n, vec![-100.0], vec![411.0], 0, 0));
    assert_eq!(summary_of(s[3]), (n, vec![0.0], vec![1.0], 0, 0));
    // 1/0 at idx 0; NaN where idx % 3 == 0 (171 of 512).
    let (_, min, max, nan, inf) = summary_of(s[4]);
    assert_eq!((nan, inf), (171, 1), "{}", s[4]);
    assert_eq!((min[1], max[1]), (0.0, 511.0));
    assert_eq!(max[2], 1.0, "{}", s[4]);
    assert_eq!((min[3], max[3]), (1.0, 1.0), "finite values only: {}", s[4]);
    let (_, min, max, nan, inf) = summary_of(s[5]);
    assert_eq!((nan, inf), (256, 256), "{}", s[5]);
    assert_eq!((min[0], max[0]), (lo as f64, hi as f64), "{}", s[5]);
    assert!(
        min[1].is_nan() && max[1].is_nan(),
        "no finite value: {}",
        s[5]
    );
}

#[test]
fn vertex_points_and_summaries() {
    require_workspace();
    let mut script = String::from("break draw\ncontinue\ndebug vertex\n");
    for n in 0..6 {
        script += &format!("print a_pos @ vertex {n}\n");
    }
    let sums = [
        "a_pos",
        "vec4(a_pos, 1.0 / a_pos.x, 0.0)",
        "ivec2(a_pos * 4.0)",
        "a_pos.x > 0.0",
    ];
    for e in sums {
        script += &format!("print {e}\n");
    }
    script += "end\nkill\n";
    let dir = TempDir::new("readback-vertex");
    let (gpu, cpu) = both(egl_shade(), &script, &dir);
    for n in 0..6 {
        let cmd = format!("print a_pos @ vertex {n}");
        let (g, c) = (gpu.ok(&cmd), cpu.ok(&cmd));
        assert_eq!(g["value"], c["value"], "{cmd}");
        assert_eq!(g["type"], "vec2");
        // 16 bytes of value and one of coverage, against 6 x 17.
        assert_eq!(bytes(g), 17, "{cmd}: {g}");
        whole(c, 6 * 17);
    }
    // The table's six rows are read back whole either way.
    let s = summaries_agree((&gpu, &cpu), &sums, 6 * 17, 6 * 17);
    assert_eq!(summary_of(s[0]).0, 6);
    let (_, min, max, ..) = summary_of(s[3]);
    assert_eq!((min, max), (vec![0.0], vec![1.0]));
}

/// An indexed draw's vertex stage is captured by transform feedback
/// (`egl_draws.c`, draw 3: `glDrawElements` of indices 8, 9, 10, 10, 9,
/// 11 with `u_draw` 1): one record of the capture read back for a point,
/// the capture reduced in place for a summary.
#[test]
fn vertex_points_and_summaries_from_a_capture() {
    require_workspace();
    let app = support::build_c_app("egl_draws.c", "egl_draws", &["EGL", "OpenGL"], &[]);
    let mut script = String::from("break draw 3\ncontinue\ndebug vertex\nbreak 15\ncontinue\n");
    for k in 0..6 {
        script += &format!("print v_id @ vertex {k}\n");
    }
    script += "print v_id\nprint vec4(p, v_id, 1.0 / (v_id - 1009.0))\nend\nkill\n";
    let dir = TempDir::new("readback-capture");
    let (gpu, cpu) = both(app, &script, &dir);
    for (k, index) in [8, 9, 10, 10, 9, 11].into_iter().enumerate() {
        let cmd = format!("print v_id @ vertex {k}");
        let (g, c) = (gpu.ok(&cmd), cpu.ok(&cmd));
        assert_eq!(values(g), vec![1000.0 + f64::from(index)], "{g}");
        assert_eq!(g["value"], c["value"], "{cmd}");
        assert_eq!(bytes(g), 17, "{cmd}: one record: {g}");
        whole(c, 6 * 17);
    }
    let s = summaries_agree(
        (&gpu, &cpu),
        &["v_id", "vec4(p, v_id, 1.0 / (v_id - 1009.0))"],
        6 * 17,
        6 * 17,
    );
    assert_eq!(summary_of(s[0]), (6, vec![1008.0], vec![1011.0], 0, 0));
    // Vertices 1 and 4 (index 9) divide by zero.
    let (count, _, _, nan, inf) = summary_of(s[1]);
    assert_eq!((count, nan, inf), (6, 0, 2), "{}", s[1]);
}

/// In a GL ES 3.1 context (`egl_gles.c --es 31`) the reduction compiles as
/// GLSL ES 3.10: compute summaries come from the GPU there too.
#[test]
fn gles_compute_summaries() {
    require_workspace();
    let script = "break glDispatchCompute\ncontinue\ndebug compute\nbreak 9\ncontinue\n\
                  print i @ invocation 3,2,0\nprint i\nprint y\nprint vec2(y, float(i))\nend\nkill\n";
    let dir = TempDir::new("readback-gles");
    let gpu = Session::new(egl_gles(), script)
        .args(["--es", "31"])
        .env("GLDBG_READBACK", "gpu")
        .keep_going()
        .run(&dir);
    let cpu = Session::new(egl_gles(), script)
        .args(["--es", "31"])
        .env("GLDBG_READBACK", "all")
        .keep_going()
        .run(&dir);
    let r = gpu.ok("print i @ invocation 3,2,0");
    assert_eq!(scalar(r), f64::from(2 * 16 + 3), "{r}");
    assert_eq!(bytes(r), 17, "{r}");
    let s = summaries_agree((&gpu, &cpu), &["i", "y", "vec2(y, float(i))"], 0, 96 * 20);
    assert_eq!(summary_of(s[0]), (96, vec![0.0], vec![95.0], 0, 0));
}

/// A GL 3.3 context (NVIDIA gives an app exactly what it asks for) runs
/// the reduction as GLSL 3.30 with `GL_ARB_compute_shader` and
/// `GL_ARB_shader_storage_buffer_object`, its bindings set by the API.
#[test]
fn summaries_in_a_gl_3_3_context() {
    require_workspace();
    let dir = TempDir::new("readback-gl33");
    let script = format!(
        "break draw\ncontinue\ninfo state GL_MAJOR_VERSION\ndebug fragment\nbreak {}\n\
         continue\nprint p\nprint int(p.x) - 30\nend\nkill\n",
        lines::RETURN
    );
    let out = Session::new(egl_shade(), &script)
        .env("MESA_GL_VERSION_OVERRIDE", "3.3")
        .env("GLDBG_READBACK", "gpu")
        .run(&dir);
    let state = out.ok("info state GL_MAJOR_VERSION");
    assert_eq!(state["state"]["GL_MAJOR_VERSION"][0], 3.0, "{state}");
    let covered_px = u64::from(COVERED);
    let r = out.ok("print p");
    assert_eq!(bytes(r), 0, "the GPU summary: {r}");
    assert_eq!(
        summary_of(r),
        (covered_px, vec![16.5, 12.5], vec![55.5, 35.5], 0, 0)
    );
    let r = out.ok("print int(p.x) - 30");
    assert_eq!(bytes(r), 0, "{r}");
    assert_eq!(summary_of(r), (covered_px, vec![-14.0], vec![25.0], 0, 0));
}

/// On a CPU rasterizer (llvmpipe: the CI's) a summary is reduced by the
/// daemon from a full readback, faster there than llvmpipe's compute
/// shaders; the values are the same as the GPU reduction's.
#[test]
fn a_cpu_renderer_reduces_summaries_in_the_daemon() {
    require_workspace();
    let dir = TempDir::new("readback-cpu-renderer");
    let script = format!(
        "break draw\ncontinue\ndebug fragment\nbreak {}\ncontinue\nprint v\nend\nkill\n",
        lines::RETURN
    );
    let plain = Session::new(egl_shade(), &script).keep_going().run(&dir);
    let forced = Session::new(egl_shade(), &script)
        .env("GLDBG_READBACK", "gpu")
        .keep_going()
        .run(&dir);
    let (p, f) = (plain.ok("print v"), forced.ok("print v"));
    assert_eq!(p["summary"], f["summary"], "{p}\n{f}");
    assert_eq!(bytes(f), 0, "GLDBG_READBACK=gpu: the GPU summary: {f}");
    let native = run_native(&egl_shade(), &[], &[]);
    if native.stdout.contains("llvmpipe") {
        whole(p, u64::from(W * H));
        assert!(p.get("timing").is_some(), "{p}");
    } else {
        assert_eq!(bytes(p), 0, "a GPU reduces: {p}");
    }
}
