//! Comparing gldbg's JSON with the CPU model: a `history` result (its
//! entries, fragments, tests, outputs, colours, depths and stencils)
//! against `model::history`, every difference collected in a [`Report`].

use gldbg_tests::{Output, Value};
use serde_json::json;

use super::model::{D24_MAX, Entry, Fragment, Pixel, Watch};
use super::scene::Target;

/// The differences a session showed, reported together with its transcript.
pub struct Report<'a> {
    out: &'a Output,
    failures: Vec<String>,
}

impl<'a> Report<'a> {
    pub fn new(out: &'a Output) -> Report<'a> {
        Report {
            out,
            failures: Vec::new(),
        }
    }

    pub fn check(&mut self, ok: bool, what: impl FnOnce() -> String) {
        if !ok {
            self.failures.push(what());
        }
    }

    fn nth(&self, cmd: &str, n: usize) -> Option<Value> {
        self.out
            .results()
            .into_iter()
            .filter(|v| v["cmd"].as_str().map(str::trim) == Some(cmd))
            .nth(n)
            .cloned()
    }

    /// The `n`-th result of `cmd`, which must have succeeded (`Null` if not).
    pub fn ok(&mut self, cmd: &str, n: usize) -> Value {
        match self.nth(cmd, n) {
            Some(r) if r["ok"] == true => r,
            Some(r) => {
                self.failures.push(format!("{cmd} (#{n}) failed: {r}"));
                Value::Null
            }
            None => {
                self.failures.push(format!("no result #{n} of {cmd:?}"));
                Value::Null
            }
        }
    }

    /// The error of the `n`-th result of `cmd`, which must have failed.
    pub fn failed(&mut self, cmd: &str, n: usize) -> String {
        match self.nth(cmd, n) {
            Some(r) if r["ok"] == false => r["error"].as_str().unwrap_or_default().to_string(),
            Some(r) => {
                self.failures
                    .push(format!("{cmd} (#{n}) should have failed: {r}"));
                String::new()
            }
            None => {
                self.failures.push(format!("no result #{n} of {cmd:?}"));
                String::new()
            }
        }
    }

    /// Whether a difference was found.
    pub fn has_failures(&self) -> bool {
        !self.failures.is_empty()
    }

    #[track_caller]
    pub fn finish(self) {
        assert!(
            self.failures.is_empty(),
            "{} differences:\n- {}\n{}",
            self.failures.len(),
            self.failures.join("\n- "),
            self.out.transcript()
        );
    }
}

/// A JSON colour (four floats k/255, as GL reads RGBA8) as bytes; None if
/// it is not one.
pub fn bytes(v: &Value) -> Option<[u8; 4]> {
    let a = v.as_array().filter(|a| a.len() == 4)?;
    let mut out = [0u8; 4];
    for (o, c) in out.iter_mut().zip(a) {
        let f = c.as_f64()? * 255.0;
        if !(-1e-3..=255.001).contains(&f) || (f - f.round()).abs() > 1e-3 {
            return None;
        }
        *o = f.round() as u8;
    }
    Some(out)
}

/// `got` (JSON colour) equals `want` within its slack (steps of 1/255).
fn same_color(got: &Value, want: &Pixel) -> bool {
    bytes(got).is_some_and(|g| {
        g.iter()
            .zip(want.color)
            .all(|(g, w)| g.abs_diff(w) <= want.slack)
    })
}

fn floats(v: &Value) -> Option<Vec<f64>> {
    v.as_array()?.iter().map(Value::as_f64).collect()
}

/// A JSON depth (window depth in [0, 1]) equals the D24 value `want` (one
/// step of slack: the driver's float-to-D24 conversion may truncate).
fn same_depth(got: &Value, want: Option<u32>) -> bool {
    match (got.as_f64(), want) {
        (Some(g), Some(w)) => (g * f64::from(D24_MAX) - f64::from(w)).abs() <= 1.01,
        (None, None) => got.is_null(),
        _ => false,
    }
}

fn same_stencil(got: &Value, want: Option<u8>) -> bool {
    match want {
        Some(w) => got.as_u64() == Some(u64::from(w)),
        None => got.is_null(),
    }
}

/// What a `history` result must say besides its entries.
pub struct Expect<'e> {
    pub watch: Watch,
    /// "window" or "texture T level 0".
    pub image: &'e str,
    /// The frame the history records (gldbg counts frames from 1).
    pub frame: u64,
    /// The app's framebuffer object (the texture's).
    pub fbo: u64,
    /// Where the history ends: "swap", or "draw N" (`until draw N`).
    pub end: &'e str,
}

/// Compares `history` result `r` with the model's entries `want`.
pub fn check_history(rep: &mut Report, r: &Value, want: &[Entry], e: &Expect) {
    let (_, x, y) = e.watch;
    let what = format!("history of {} {x},{y}", e.image);
    rep.check(r["pixel"]["x"] == x && r["pixel"]["y"] == y, || {
        format!("{what}: \"pixel\" {}", r["pixel"])
    });
    rep.check(r["image"] == e.image, || {
        format!("{what}: \"image\" {}, expected {:?}", r["image"], e.image)
    });
    // Mesa's EGL window reports an sRGB-capable colour buffer (written
    // linearly while GL_FRAMEBUFFER_SRGB is off, as here).
    let window = r["image"] == "window";
    let format_ok = r["format"] == "GL_RGBA8" || (window && r["format"] == "GL_SRGB8_ALPHA8");
    rep.check(format_ok, || format!("{what}: \"format\" {}", r["format"]));
    rep.check(r["end"] == e.end, || {
        format!("{what}: \"end\" {}", r["end"])
    });
    let got = r["history"].as_array().cloned().unwrap_or_default();
    let functions = |h: &[Value]| -> Vec<String> {
        h.iter()
            .map(|v| format!("{} draw {}", v["function"], v["draw"]))
            .collect()
    };
    let model: Vec<String> = want
        .iter()
        .map(|w| format!("{} draw {:?}", w.function, w.draw))
        .collect();
    if got.len() != want.len() {
        rep.check(false, || {
            format!(
                "{what}: {} entries {:?}, CPU model {} entries {model:?}",
                got.len(),
                functions(&got),
                want.len()
            )
        });
        return;
    }
    let mut last_call = 0;
    let mut program = None;
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let what = format!("{what}, entry {} ({} draw {:?})", i + 1, w.function, w.draw);
        check_entry(rep, &what, g, w, e, i);
        let call = g["call"].as_u64().unwrap_or(0);
        rep.check(call > last_call, || {
            format!("{what}: call {call} does not follow the previous entry's {last_call}")
        });
        last_call = call;
        if w.draw.is_some() {
            let p = g["program"].as_u64().unwrap_or(0);
            rep.check(p != 0 && program.is_none_or(|q| q == p), || {
                format!(
                    "{what}: program {} (the app has one program, {program:?})",
                    g["program"]
                )
            });
            program = Some(p);
        }
    }
}

fn check_entry(rep: &mut Report, what: &str, g: &Value, w: &Entry, e: &Expect, i: usize) {
    rep.check(g["entry"] == i as u64 + 1, || {
        format!("{what}: \"entry\" {}", g["entry"])
    });
    rep.check(g["function"] == w.function, || {
        format!("{what}: function {}", g["function"])
    });
    rep.check(g["frame"] == e.frame, || {
        format!("{what}: frame {}, expected {}", g["frame"], e.frame)
    });
    let fb = match w.target {
        Target::Window => 0,
        Target::Rtt => e.fbo,
    };
    rep.check(g["framebuffer"] == fb, || {
        format!("{what}: framebuffer {}, expected {fb}", g["framebuffer"])
    });
    if let Some(d) = w.draw {
        rep.check(g["draw"] == d, || {
            format!("{what}: draw {}, expected draw {d} of the frame", g["draw"])
        });
    }
    // "before" may be null (not read); a value must be the model's.
    rep.check(
        g["before"].is_null() || same_color(&g["before"], &w.before),
        || format!("{what}: before {}, CPU model {:?}", g["before"], w.before),
    );
    rep.check(same_color(&g["after"], &w.after), || {
        format!("{what}: after {}, CPU model {:?}", g["after"], w.after)
    });
    let frags = g["fragments"].as_array().cloned().unwrap_or_default();
    if w.draw.is_none() {
        rep.check(frags.is_empty(), || {
            format!(
                "{what}: a {} has no fragments: {}",
                w.function, g["fragments"]
            )
        });
        return;
    }
    if frags.len() != w.fragments.len() {
        rep.check(false, || {
            format!(
                "{what}: {} fragments {}, CPU model {:?}",
                frags.len(),
                g["fragments"],
                w.fragments
            )
        });
        return;
    }
    for (k, (gf, wf)) in frags.iter().zip(&w.fragments).enumerate() {
        check_fragment(rep, &format!("{what}, fragment {k}"), gf, wf);
    }
}

fn check_fragment(rep: &mut Report, what: &str, g: &Value, w: &Fragment) {
    let model = || format!("CPU model {w:?}");
    rep.check(g["primitive"] == w.primitive, || {
        format!("{what}: primitive {}, {}", g["primitive"], model())
    });
    rep.check(g["passed"] == w.rejected_by.is_none(), || {
        format!("{what}: passed {}, {}", g["passed"], model())
    });
    let rejected = w.rejected_by.map_or(Value::Null, Value::from);
    rep.check(g["rejected_by"] == rejected, || {
        format!("{what}: rejected_by {}, {}", g["rejected_by"], model())
    });
    let output_ok = match w.output {
        None => g["output"].is_null(),
        Some(o) => floats(&g["output"]).is_some_and(|v| {
            v.len() == 4
                && v.iter()
                    .zip(o)
                    .all(|(g, w)| (g - f64::from(w)).abs() <= 1e-6)
        }),
    };
    rep.check(output_ok, || {
        format!("{what}: output {}, {}", g["output"], model())
    });
    // The fragment's depth; unknown (null) only where the shader never
    // finished.
    let depth_ok = match g["depth"].as_f64() {
        Some(d) => (d - f64::from(w.depth)).abs() <= 1e-6,
        None => g["depth"].is_null() && matches!(w.rejected_by, Some("scissor" | "discard")),
    };
    rep.check(depth_ok, || {
        format!("{what}: depth {}, {}", g["depth"], model())
    });
    for (key, pixel) in [("before", &w.before), ("after", &w.after)] {
        let c = &g[format!("color_{key}").as_str()];
        rep.check(same_color(c, pixel), || {
            format!("{what}: color_{key} {c}, {}", model())
        });
        let d = &g[format!("depth_{key}").as_str()];
        rep.check(same_depth(d, pixel.depth), || {
            format!("{what}: depth_{key} {d}, {}", model())
        });
        let s = &g[format!("stencil_{key}").as_str()];
        rep.check(same_stencil(s, pixel.stencil), || {
            format!("{what}: stencil_{key} {s}, {}", model())
        });
    }
}

/// The `history` result gldbg should print for the model's `entries`
/// (CLI.md's JSON), calls numbered from `first_call`: what the checker's
/// own test feeds it.
pub fn model_json(entries: &[Entry], e: &Expect, first_call: u64) -> Value {
    let color = |p: &Pixel| json!(p.color.map(|c| f64::from(c) / 255.0));
    let depth = |p: &Pixel| json!(p.depth.map(|d| f64::from(d) / f64::from(D24_MAX)));
    let history: Vec<Value> = entries
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let fragments: Vec<Value> = w
                .fragments
                .iter()
                .map(|f| {
                    json!({"primitive": f.primitive, "output": f.output, "depth": f.depth,
                           "passed": f.rejected_by.is_none(), "rejected_by": f.rejected_by,
                           "color_before": color(&f.before), "color_after": color(&f.after),
                           "depth_before": depth(&f.before), "depth_after": depth(&f.after),
                           "stencil_before": f.before.stencil, "stencil_after": f.after.stencil})
                })
                .collect();
            let fb = match w.target {
                Target::Window => 0,
                Target::Rtt => e.fbo,
            };
            json!({"entry": i + 1, "call": first_call + 10 * i as u64, "function": w.function,
                   "draw": w.draw.unwrap_or(0), "frame": e.frame,
                   "program": if w.draw.is_some() { 3 } else { 0 }, "framebuffer": fb,
                   "before": color(&w.before), "after": color(&w.after),
                   "fragments": fragments})
        })
        .collect();
    let (_, x, y) = e.watch;
    json!({"cmd": format!("history {x},{y}"), "ok": true, "pixel": {"x": x, "y": y},
           "image": e.image, "format": "GL_RGBA8", "end": "swap", "history": history})
}
