//! CPU references of `tests/apps/egl_trace.c` for the trace tests (issue 14):
//! for one invocation of one stage, every stop a forward `step` (step into)
//! makes from the first step of `main` to its end, each with its source
//! line, function, loop iterations, and the locals and arguments in scope
//! with their values (or "undefined": declared, not yet written).
//!
//! The shaders share one shape (see egl_trace.c): `blend(in x, inout acc,
//! out n)`, a `for` loop of 3 iterations calling it, a second call after
//! the loop, and the stage's outputs. [`trace`] runs that shape again in
//! f32 with the shader's formulas and operation order, starting from the
//! invocation's seed (the one line where its identity enters), and records
//! a stop before each step as the trace does: the values are those before
//! the step runs.
//!
//! The steps are glsl-instrument's (`gldbg instrument --list-steps`): each
//! statement, each `if` condition, a `for`'s init, condition (also the one
//! that ends the loop) and increment. A call steps into the callee; after
//! the callee's last step comes the caller's step after the call. A
//! variable is in scope from the step after its declaration to the end of
//! its block: a loop body's locals are gone at the increment, the loop
//! counter after the last condition. Only the function's own locals and
//! parameters are listed (not globals, inputs or outputs).

use std::path::PathBuf;

/// `u_gain` as the app sets it.
pub const GAIN: f32 = 0.625;
/// The loop's trip count (`for (int i = 0; i < 3; ++i)`).
pub const ITERATIONS: u32 = 3;

/// The test app (built by build.rs).
pub fn egl_trace() -> PathBuf {
    super::app(env!("GLDBG_APP_EGL_TRACE"), "egl_trace")
}

/// Lines every stage's shader has (the numbered comments of egl_trace.c).
pub mod lines {
    /// `void blend(in float x, inout vec2 acc, out int n) {`
    pub const BLEND: u32 = 9;
    /// `float h;`
    pub const H_DECL: u32 = 10;
    /// `if (x > 1.0) {`
    pub const IF: u32 = 11;
    /// `h = x * 0.5;` (the if branch)
    pub const H_HALF: u32 = 12;
    /// `h = x + 1.0;` (the else branch)
    pub const H_PLUS: u32 = 14;
    /// `acc += vec2(h, x);`
    pub const ACC_ADD: u32 = 16;
    /// `n = int(h) + 1;` (blend's last step)
    pub const N_SET: u32 = 17;
    /// `vec2 seed = ...;` (the first step of main)
    pub const SEED: u32 = 20;
    /// `vec2 acc = vec2(0.0, 1.0);`
    pub const ACC: u32 = 21;
    /// `int total = 0;`
    pub const TOTAL: u32 = 22;
    /// `float last;` (no initialiser)
    pub const LAST_DECL: u32 = 23;
    /// `float w[3] = float[3](1.0, 2.0, 3.0);`
    pub const W: u32 = 24;
    /// `for (int i = 0; i < 3; ++i) {`
    pub const FOR: u32 = 25;
    /// `float x = seed.x * w[i] * u_gain;`
    pub const X: u32 = 26;
    /// `int n;`
    pub const N_DECL: u32 = 27;
    /// `blend(x, acc, n);` (the call in the loop)
    pub const CALL_LOOP: u32 = 28;
    /// `total += n;`
    pub const TOTAL_ADD: u32 = 29;
    /// `w[i] = x;`
    pub const W_SET: u32 = 30;
    /// `last = acc.x - acc.y;`
    pub const LAST_SET: u32 = 32;
    /// `Pair q = Pair(last, total);`
    pub const Q: u32 = 33;
    /// `int m;`
    pub const M_DECL: u32 = 34;
    /// `blend(seed.y, acc, m);` (the call after the loop)
    pub const CALL_AFTER: u32 = 35;
    /// The first line of the stage's outputs.
    pub const OUTPUTS: u32 = 36;
}

/// A shader stage of egl_trace, named as `debug STAGE` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Vertex,
    TessControl,
    TessEval,
    Geometry,
    Fragment,
    Compute,
}

impl Stage {
    pub const ALL: [Stage; 6] = [
        Stage::Vertex,
        Stage::TessControl,
        Stage::TessEval,
        Stage::Geometry,
        Stage::Fragment,
        Stage::Compute,
    ];

    /// `vertex`, `tess-control`, ...: the word of `debug STAGE`.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Vertex => "vertex",
            Stage::TessControl => "tess-control",
            Stage::TessEval => "tess-eval",
            Stage::Geometry => "geometry",
            Stage::Fragment => "fragment",
            Stage::Compute => "compute",
        }
    }

    /// The GL call the stage runs in: the draw or the dispatch.
    pub fn gl_call(self) -> &'static str {
        match self {
            Stage::Compute => "glDispatchCompute",
            _ => "glDrawArrays",
        }
    }

    /// The steps after the second call: (line, anchor) of each, and a
    /// local the step declares with its type (compute's `uint idx`).
    fn outputs(self) -> &'static [(u32, &'static str)] {
        match self {
            Stage::Vertex => &[(36, "gl_Position = "), (37, "v_value = ")],
            Stage::TessControl => &[
                (36, "gl_out[gl_InvocationID].gl_Position = "),
                (37, "tc_value[gl_InvocationID] = "),
                (38, "gl_TessLevelOuter[0] = "),
                (39, "gl_TessLevelOuter[1] = "),
                (40, "gl_TessLevelOuter[2] = "),
                (41, "gl_TessLevelInner[0] = "),
            ],
            Stage::TessEval => &[(36, "gl_Position = "), (37, "te_value = ")],
            Stage::Geometry => &[
                (36, "g_value = "),
                (37, "gl_Position = gl_in[0]"),
                (38, "EmitVertex();"),
                (39, "gl_Position = gl_in[1]"),
                (40, "EmitVertex();"),
                (41, "gl_Position = gl_in[2]"),
                (42, "EmitVertex();"),
                (43, "EndPrimitive();"),
            ],
            Stage::Fragment => &[(36, "color = ")],
            Stage::Compute => &[(36, "uint idx = "), (37, "result[idx] = ")],
        }
    }
}

/// Which invocation: what `focus` names, with what the shader reads of it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Invocation {
    /// `gl_VertexID` (`focus vertex N`).
    Vertex(u32),
    /// `gl_InvocationID` of the one patch (`focus vertex N`).
    TessControl(u32),
    /// The `gl_TessCoord` of the focused tess-eval vertex (which vertex
    /// has which point is the driver's: the test prints it).
    TessEval([f32; 3]),
    /// `gl_PrimitiveIDIn` (`focus primitive N`).
    Geometry(u32),
    /// Window pixel (x, y) (`focus X,Y`).
    Fragment(u32, u32),
    /// `gl_GlobalInvocationID` (`focus invocation X,Y,Z`).
    Compute([u32; 3]),
}

impl Invocation {
    pub fn stage(self) -> Stage {
        match self {
            Invocation::Vertex(_) => Stage::Vertex,
            Invocation::TessControl(_) => Stage::TessControl,
            Invocation::TessEval(_) => Stage::TessEval,
            Invocation::Geometry(_) => Stage::Geometry,
            Invocation::Fragment(..) => Stage::Fragment,
            Invocation::Compute(_) => Stage::Compute,
        }
    }

    /// `seed` (line 20 of each shader), in f32 as the shader computes it.
    pub fn seed(self) -> [f32; 2] {
        match self {
            Invocation::Vertex(id) => [id as f32 * 0.375 + 0.25, id as f32 + 0.5],
            // One patch: gl_PrimitiveID is 0.
            Invocation::TessControl(id) => [id as f32 * 0.5 + 0.25, 0.0 + 0.75],
            Invocation::TessEval(c) => [c[0] * 1.5 + 0.375, c[1] * 2.25 + c[2] * 0.5 + 0.125],
            Invocation::Geometry(p) => [p as f32 * 0.25 + 0.875, 2.75 - p as f32 * 0.5],
            Invocation::Fragment(x, y) => [(x as f32 + 0.5) * 0.125, (y as f32 + 0.5) * 0.125],
            Invocation::Compute(g) => [g[0] as f32 * 0.25 + 0.5, g[1] as f32 * 0.25 + g[2] as f32],
        }
    }
}

/// A local or argument at a stop.
#[derive(Clone, Debug, PartialEq)]
pub struct Var {
    pub name: &'static str,
    /// GLSL type: `float`, `vec2`, `int`, `uint`, `float[3]`, `Pair`.
    pub ty: &'static str,
    /// Components in order (an array's elements, a struct's members);
    /// `None`: declared, not yet written.
    pub value: Option<Vec<f64>>,
}

/// One stop of a forward `step`: before the step runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Stop {
    pub line: u32,
    /// The text the step's column points at (its first character): the
    /// statement, an `if`'s condition, a `for`'s init, condition or
    /// increment. [`column`] finds it in the shader's line.
    pub anchor: &'static str,
    pub function: &'static str,
    /// Loop iterations of the position, outermost first (main's loop
    /// counts for the steps of `blend` called in it).
    pub iterations: Vec<u32>,
    /// The function's locals in scope, in declaration order.
    pub locals: Vec<Var>,
    /// The function's parameters (empty in `main`).
    pub args: Vec<Var>,
}

/// The 1-based column of `stop` in `source` (the shader as egl_trace
/// prints it): where its anchor starts on its line.
pub fn column(source: &str, stop: &Stop) -> u32 {
    let text = source
        .lines()
        .nth(stop.line as usize - 1)
        .unwrap_or_else(|| panic!("the shader has no line {}", stop.line));
    let at = text
        .find(stop.anchor)
        .unwrap_or_else(|| panic!("line {} {text:?} has no {:?}", stop.line, stop.anchor));
    at as u32 + 1
}

/// The stage's shader as the app compiles it (`egl_trace --print STAGE`).
pub fn shader(stage: Stage) -> String {
    let out = std::process::Command::new(egl_trace())
        .args(["--print", stage.name()])
        .output()
        .unwrap_or_else(|e| panic!("cannot run egl_trace --print: {e}"));
    assert!(out.status.success(), "egl_trace --print {}", stage.name());
    String::from_utf8(out.stdout).expect("the shader is UTF-8")
}

/// A call's frame while the reference runs.
struct Frame {
    function: &'static str,
    args: Vec<Var>,
    locals: Vec<Var>,
}

/// Runs the shape, recording stops.
struct Recorder {
    frames: Vec<Frame>,
    iterations: Vec<u32>,
    stops: Vec<Stop>,
    /// Where a comparison or truncation is within `MARGIN` of its
    /// threshold: the driver may round the other way.
    too_close: Vec<String>,
}

/// How far a value must be from a branch threshold or an integer (before
/// `int()`), so 1-ulp differences (FMA contraction) cannot change a path.
const MARGIN: f32 = 1e-3;

fn scalar(v: f32) -> Option<Vec<f64>> {
    Some(vec![v as f64])
}

fn int(v: i32) -> Option<Vec<f64>> {
    Some(vec![v as f64])
}

fn vec2(v: [f32; 2]) -> Option<Vec<f64>> {
    Some(v.iter().map(|&c| c as f64).collect())
}

impl Recorder {
    fn frame(&mut self) -> &mut Frame {
        self.frames.last_mut().expect("a frame")
    }

    fn stop(&mut self, line: u32, anchor: &'static str) {
        let frame = self.frames.last().expect("a frame");
        self.stops.push(Stop {
            line,
            anchor,
            function: frame.function,
            iterations: self.iterations.clone(),
            locals: frame.locals.clone(),
            args: frame.args.clone(),
        });
    }

    /// A local comes into scope (after its declaration step).
    fn declare(&mut self, name: &'static str, ty: &'static str, value: Option<Vec<f64>>) {
        self.frame().locals.push(Var { name, ty, value });
    }

    /// Locals leave scope (the end of their block).
    fn leave(&mut self, names: &[&str]) {
        self.frame().locals.retain(|v| !names.contains(&v.name));
    }

    /// Writes a local or argument of the current frame.
    fn set(&mut self, name: &str, value: Option<Vec<f64>>) {
        let frame = self.frame();
        let var = frame
            .locals
            .iter_mut()
            .chain(frame.args.iter_mut())
            .find(|v| v.name == name)
            .unwrap_or_else(|| panic!("no {name} in scope"));
        var.value = value;
    }

    fn check_margin(&mut self, what: &str, value: f32, threshold: f32) {
        if (value - threshold).abs() < MARGIN {
            self.too_close
                .push(format!("{what} = {value} is at {threshold}"));
        }
    }

    /// `blend(x, acc, n)`: returns (acc, n) after the call.
    fn blend(&mut self, x: f32, acc: [f32; 2]) -> ([f32; 2], i32) {
        self.frames.push(Frame {
            function: "blend",
            args: vec![
                Var {
                    name: "x",
                    ty: "float",
                    value: scalar(x),
                },
                Var {
                    name: "acc",
                    ty: "vec2",
                    value: vec2(acc),
                },
                // `out`: undefined until written.
                Var {
                    name: "n",
                    ty: "int",
                    value: None,
                },
            ],
            locals: Vec::new(),
        });
        self.stop(lines::H_DECL, "float h;");
        self.declare("h", "float", None);
        self.stop(lines::IF, "x > 1.0");
        self.check_margin("x", x, 1.0);
        let h = if x > 1.0 {
            self.stop(lines::H_HALF, "h = x * 0.5;");
            x * 0.5
        } else {
            self.stop(lines::H_PLUS, "h = x + 1.0;");
            x + 1.0
        };
        self.set("h", scalar(h));
        self.stop(lines::ACC_ADD, "acc += vec2(h, x);");
        let acc = [acc[0] + h, acc[1] + x];
        self.set("acc", vec2(acc));
        self.stop(lines::N_SET, "n = int(h) + 1;");
        self.check_margin("h", h, h.round());
        let n = h as i32 + 1;
        self.frames.pop();
        (acc, n)
    }
}

/// Every stop of a forward `step` through `inv`'s run, from the first step
/// of `main` (where `debug STAGE` stops) to its last. Panics where a
/// value of the run sits on a threshold (a branch or an `int()`), where
/// the driver's rounding could take another path than this model's.
pub fn trace(inv: Invocation) -> Vec<Stop> {
    use lines::*;
    let stage = inv.stage();
    let seed = inv.seed();
    let mut r = Recorder {
        frames: vec![Frame {
            function: "main",
            args: Vec::new(),
            locals: Vec::new(),
        }],
        iterations: Vec::new(),
        stops: Vec::new(),
        too_close: Vec::new(),
    };
    r.stop(SEED, "vec2 seed = ");
    r.declare("seed", "vec2", vec2(seed));
    r.stop(ACC, "vec2 acc = ");
    let mut acc = [0.0f32, 1.0];
    r.declare("acc", "vec2", vec2(acc));
    r.stop(TOTAL, "int total = 0;");
    let mut total = 0i32;
    r.declare("total", "int", int(total));
    r.stop(LAST_DECL, "float last;");
    r.declare("last", "float", None);
    r.stop(W, "float w[3] = ");
    let mut w = [1.0f32, 2.0, 3.0];
    let array = |w: [f32; 3]| Some(w.iter().map(|&c| c as f64).collect());
    r.declare("w", "float[3]", array(w));
    r.stop(FOR, "int i = 0");
    r.declare("i", "int", int(0));
    for i in 0..ITERATIONS {
        r.iterations = vec![i];
        r.stop(FOR, "i < 3");
        r.stop(X, "float x = ");
        let x = seed[0] * w[i as usize] * GAIN;
        r.declare("x", "float", scalar(x));
        r.stop(N_DECL, "int n;");
        r.declare("n", "int", None);
        r.stop(CALL_LOOP, "blend(x, acc, n);");
        let n;
        (acc, n) = r.blend(x, acc);
        r.set("acc", vec2(acc));
        r.set("n", int(n));
        r.stop(TOTAL_ADD, "total += n;");
        total += n;
        r.set("total", int(total));
        r.stop(W_SET, "w[i] = x;");
        w[i as usize] = x;
        r.set("w", array(w));
        r.leave(&["x", "n"]);
        r.stop(FOR, "++i");
        r.set("i", int(i as i32 + 1));
    }
    r.iterations = vec![ITERATIONS];
    r.stop(FOR, "i < 3");
    r.iterations = Vec::new();
    r.leave(&["i"]);
    r.stop(LAST_SET, "last = acc.x - acc.y;");
    let last = acc[0] - acc[1];
    r.set("last", scalar(last));
    r.stop(Q, "Pair q = ");
    r.declare("q", "Pair", Some(vec![last as f64, total as f64]));
    r.stop(M_DECL, "int m;");
    r.declare("m", "int", None);
    r.stop(CALL_AFTER, "blend(seed.y, acc, m);");
    let m;
    (acc, m) = r.blend(seed[1], acc);
    r.set("acc", vec2(acc));
    r.set("m", int(m));
    for &(line, anchor) in stage.outputs() {
        r.stop(line, anchor);
        if let Invocation::Compute(g) = inv {
            if line == OUTPUTS {
                r.declare("idx", "uint", int((g[0] + 8 * g[1] + 32 * g[2]) as i32));
            }
        }
    }
    assert!(
        r.too_close.is_empty(),
        "{inv:?}: values on a threshold, choose another invocation: {:?}",
        r.too_close
    );
    r.stops
}

/// Index of the first stop of `stops` on `line` in `function` at `iterations`.
pub fn find(stops: &[Stop], function: &str, line: u32, iterations: &[u32]) -> usize {
    stops
        .iter()
        .position(|s| s.function == function && s.line == line && s.iterations == iterations)
        .unwrap_or_else(|| panic!("no stop at {function}:{line} {iterations:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    /// The invocations the tests focus (tess-eval: a point of the
    /// tessellation of each kind: a corner, an edge's middle, the centre).
    fn invocations() -> Vec<Invocation> {
        vec![
            Invocation::Vertex(1),
            Invocation::TessControl(2),
            Invocation::TessEval([1.0, 0.0, 0.0]),
            Invocation::TessEval([0.5, 0.5, 0.0]),
            Invocation::TessEval([0.0, 0.5, 0.5]),
            Invocation::TessEval([1.0 / 3.0, 1.0 / 3.0, 1.0 / 3.0]),
            // llvmpipe's centre.
            Invocation::TessEval([0.33332825, 0.33332825, 0.3333435]),
            Invocation::Geometry(2),
            Invocation::Fragment(5, 9),
            Invocation::Compute([3, 1, 1]),
        ]
    }

    #[test]
    fn lines_match_the_shaders() {
        let checks: &[(u32, &str)] = &[
            (
                lines::BLEND,
                "void blend(in float x, inout vec2 acc, out int n) {",
            ),
            (lines::H_DECL, "float h;"),
            (lines::IF, "if (x > 1.0) {"),
            (lines::H_HALF, "h = x * 0.5;"),
            (lines::H_PLUS, "h = x + 1.0;"),
            (lines::ACC_ADD, "acc += vec2(h, x);"),
            (lines::N_SET, "n = int(h) + 1;"),
            (lines::SEED, "vec2 seed = "),
            (lines::FOR, "for (int i = 0; i < 3; ++i) {"),
            (lines::X, "float x = seed.x * w[i] * u_gain;"),
            (lines::CALL_LOOP, "blend(x, acc, n);"),
            (lines::CALL_AFTER, "blend(seed.y, acc, m);"),
        ];
        for stage in Stage::ALL {
            let src = shader(stage);
            for &(line, text) in checks {
                let got = src.lines().nth(line as usize - 1).unwrap_or("");
                assert!(got.contains(text), "{stage:?} line {line}: {got:?}");
            }
            assert_eq!(
                src.lines().count(),
                lines::OUTPUTS as usize + stage.outputs().len(),
                "{stage:?}: the outputs, then `}}`:\n{src}"
            );
        }
    }

    /// The static steps of `gldbg instrument --list-steps --json`.
    fn static_steps(stage: Stage, src: &str) -> Vec<Value> {
        let dir = crate::TempDir::new("trace-ref");
        let file = dir.join("shader.glsl");
        std::fs::write(&file, src).unwrap();
        let out = std::process::Command::new(crate::gldbg())
            .arg("instrument")
            .arg(&file)
            .args(["--stage", stage.name(), "--list-steps", "--json"])
            .output()
            .expect("gldbg instrument");
        assert!(out.status.success(), "{out:?}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        v.as_array().expect("a list of steps").clone()
    }

    /// Every stop of the reference is a step of the instrumenter (line,
    /// column, function), every step of main and blend is visited, and
    /// the locals in scope are those the step lists (the function's own).
    #[test]
    fn stops_are_the_instrumenters_steps() {
        for inv in invocations() {
            let stage = inv.stage();
            let src = shader(stage);
            let steps = static_steps(stage, &src);
            let stops = trace(inv);
            for (k, stop) in stops.iter().enumerate() {
                let col = column(&src, stop);
                let step = steps
                    .iter()
                    .find(|s| s["line"] == stop.line && s["column"] == col)
                    .unwrap_or_else(|| panic!("{inv:?} stop {k}: no step at {}:{col}", stop.line));
                assert_eq!(step["function"], stop.function, "{inv:?} stop {k}");
                let scope: Vec<&str> = step["scope"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|v| v["name"].as_str().unwrap())
                    .collect();
                for var in stop.locals.iter().chain(&stop.args) {
                    assert!(scope.contains(&var.name), "{inv:?} stop {k}: {}", var.name);
                }
                // Locals are the scope's last names (after globals and parameters).
                let own = &scope[scope.len() - stop.locals.len()..];
                let names: Vec<&str> = stop.locals.iter().map(|v| v.name).collect();
                assert_eq!(own, names, "{inv:?} stop {k} at line {}", stop.line);
            }
            for step in &steps {
                let visited = stops
                    .iter()
                    .any(|s| s.line == step["line"] && column(&src, s) == step["column"]);
                // Only one side of blend's if runs in a given call.
                let branch = step["line"] == lines::H_HALF || step["line"] == lines::H_PLUS;
                assert!(visited || branch, "{inv:?}: step {step} never visited");
            }
        }
    }

    #[test]
    fn runs_are_short_and_take_both_branches() {
        for inv in invocations() {
            let stops = trace(inv);
            assert!((40..=64).contains(&stops.len()), "{inv:?}: {}", stops.len());
        }
        for inv in [
            Invocation::TessEval([0.33332825, 0.33332825, 0.3333435]),
            Invocation::Vertex(1),
            Invocation::TessControl(2),
            Invocation::Geometry(2),
            Invocation::Fragment(5, 9),
            Invocation::Compute([3, 1, 1]),
        ] {
            let stops = trace(inv);
            let half = stops.iter().any(|s| s.line == lines::H_HALF);
            let plus = stops.iter().any(|s| s.line == lines::H_PLUS);
            assert!(half && plus, "{inv:?} takes both sides of blend's if");
        }
    }

    /// Pixel (5, 9): seed (0.6875, 1.1875); x = 0.4296875, 0.859375,
    /// 1.2890625: else, else, if.
    #[test]
    fn fragment_by_hand() {
        let stops = trace(Invocation::Fragment(5, 9));
        let at = |k: usize, name: &str| -> Option<Vec<f64>> {
            let s = &stops[k];
            s.locals
                .iter()
                .chain(&s.args)
                .find(|v| v.name == name)
                .unwrap_or_else(|| panic!("stop {k}: no {name}"))
                .value
                .clone()
        };
        assert_eq!(stops[0].line, lines::SEED);
        assert!(stops[0].locals.is_empty());
        // Into blend in iteration 0: x, acc defined, n (out) not.
        let k = find(&stops, "blend", lines::H_DECL, &[0]);
        assert_eq!(at(k, "x"), Some(vec![0.4296875]));
        assert_eq!(at(k, "acc"), Some(vec![0.0, 1.0]));
        assert_eq!(at(k, "n"), None);
        assert_eq!(stops[k + 2].line, lines::H_PLUS);
        // Back in main after the call: n = int(1.4296875) + 1 = 2.
        let k = find(&stops, "main", lines::TOTAL_ADD, &[0]);
        assert_eq!(at(k, "n"), Some(vec![2.0]));
        assert_eq!(at(k, "acc"), Some(vec![1.4296875, 1.4296875]));
        // Iteration 1: n declared again, undefined again.
        let k = find(&stops, "main", lines::CALL_LOOP, &[1]);
        assert_eq!(at(k, "n"), None);
        let k = find(&stops, "main", lines::CALL_AFTER, &[]);
        // total = 2 + 2 + 1; w = the three x.
        assert_eq!(at(k, "total"), Some(vec![5.0]));
        assert_eq!(at(k, "w"), Some(vec![0.4296875, 0.859375, 1.2890625]));
        assert_eq!(at(k, "m"), None);
        let last = stops.last().unwrap();
        assert_eq!((last.line, last.function), (lines::OUTPUTS, "main"));
        assert_eq!(at(stops.len() - 1, "m"), Some(vec![1.0]));
    }
}
