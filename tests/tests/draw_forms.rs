//! Debug steps at every GL draw form, end to end on `tests/apps/egl_draws.c`
//! (GL 4.5 core, one frame, one draw per form in its own cell of a 128x64
//! RGBA32F framebuffer; see the app's header comment for the table).
//!
//! For each form gldbg stops at the draw, names the function, and the
//! vertex and fragment steps give, at every vertex and at chosen pixels,
//! the values a CPU model of the draw computes here from the draw's
//! arguments alone: `gl_VertexID` (with the base vertex), `gl_InstanceID`
//! (without the base instance), the per-instance attribute entry (with the
//! base instance), positions; the fragment summaries count exactly the
//! draw's pixels. The frame ends bit-identical to a native run.
//!
//! How gldbg numbers the vertices of a draw (`@ vertex K`): the vertex step
//! replays the draw with mode GL_POINTS into transform feedback, so K is
//! the K-th vertex the vertex stage is fed: an element draw's indices in
//! order (a shared vertex of two triangles appears twice), instances one
//! after another (all of instance 0, then instance 1), a multi-draw's
//! sub-draws one after another (also the indirect ones), the vertices of a
//! transform feedback draw in captured order.

mod support;

use gldbg_tests::*;
use support::build_c_app;

fn egl_draws() -> std::path::PathBuf {
    build_c_app("egl_draws.c", "egl_draws", &["EGL", "OpenGL"], &[])
}

const SOURCE: &str = include_str!("../apps/egl_draws.c");

/// DRAW_VS line `gl_Position = ...` (the last statement).
const VS_LAST: u32 = 15;
/// DRAW_FS line `out_color = value;`.
const FS_OUT: u32 = 11;
/// Framebuffer width (the fragment value's `x + 128 y`).
const W: u32 = 128;

/// The GLSL of `static const char *NAME = "..." ...;` in egl_draws.c.
fn shader(name: &str) -> String {
    gldbg_tests::c_string_constant(SOURCE, "egl_draws.c", name)
}

#[test]
fn shader_lines_are_where_the_test_breaks() {
    let vs = shader("DRAW_VS");
    let fs = shader("DRAW_FS");
    let line = |src: &str, n: u32| src.lines().nth(n as usize - 1).unwrap().trim().to_string();
    assert!(line(&vs, VS_LAST).starts_with("gl_Position = "), "{vs}");
    assert!(line(&vs, 9).starts_with("float v_id = "), "{vs}");
    assert_eq!(line(&fs, FS_OUT), "out_color = value;", "{fs}");
}

// ---------------------------------------------------------------------------
// The model of the app's draws

/// Quad n of the app's vertex buffer (`QUADS` in egl_draws.c): the form
/// whose cell it is in and the part of the cell (0 full, 1 bottom, 2 top).
const QUADS: [(i32, u32); 19] = [
    (-1, 0),
    (0, 0),
    (1, 0),
    (2, 0),
    (3, 1),
    (4, 1),
    (5, 0),
    (6, 1),
    (7, 1),
    (8, 1),
    (8, 2),
    (9, 1),
    (9, 2),
    (10, 0),
    (11, 1),
    (12, 1),
    (12, 2),
    (13, 1),
    (13, 2),
];

/// Per-instance entries (`INSTANCES`): pixel offset; the tag is the index.
const INSTANCES: [[f32; 2]; 7] = [
    [0.0, 0.0],
    [0.0, 16.0],
    [0.0, 16.0],
    [0.0, 0.0],
    [96.0, 32.0],
    [112.0, 32.0],
    [112.0, 48.0],
];

/// `a_pos` of vertex `id` of the vertex buffer (strip order per quad).
fn buffer_vertex(id: u32) -> [f32; 2] {
    let (form, part) = QUADS[(id / 4) as usize];
    let (x0, mut y0) = if form < 0 {
        (-64.0, -64.0)
    } else {
        (16.0 * (form % 8) as f32, 32.0 * (form / 8) as f32)
    };
    let mut y1 = y0 + 32.0;
    match part {
        1 => y1 = y0 + 16.0,
        2 => {
            y0 += 16.0;
            y1 = y0 + 16.0
        }
        _ => {}
    }
    let k = id % 4;
    [
        x0 + 16.0 * (k & 1) as f32,
        if k >> 1 == 0 { y0 } else { y1 },
    ]
}

/// `a_pos` of vertex `id` of the captured quad (CAPTURE_VS).
fn captured_vertex(id: u32) -> [f32; 2] {
    [16.0 * (id & 1) as f32, 16.0 * (id >> 1) as f32]
}

/// A vertex as the vertex stage sees it.
#[derive(Clone, Copy, Debug)]
struct Vertex {
    /// gl_VertexID.
    id: u32,
    /// gl_InstanceID.
    instance: u32,
    /// The INSTANCES entry `a_inst` comes from (= its tag).
    entry: u32,
    /// a_pos.
    pos: [f32; 2],
}

impl Vertex {
    fn v_id(&self, form: u32) -> f32 {
        self.id as f32 + 100.0 * self.instance as f32 + 1000.0 * form as f32
    }

    fn p(&self) -> [f32; 2] {
        let o = INSTANCES[self.entry as usize];
        [self.pos[0] + o[0], self.pos[1] + o[1]]
    }
}

/// One instance of one (sub-)draw: its vertices in order, one quad.
#[derive(Clone, Debug)]
struct Piece {
    vertices: Vec<Vertex>,
}

impl Piece {
    /// The window pixels its quad covers: [x0, x1) x [y0, y1).
    fn rect(&self) -> [u32; 4] {
        let ps: Vec<[f32; 2]> = self.vertices.iter().map(Vertex::p).collect();
        let min = |i: usize| ps.iter().map(|p| p[i]).fold(f32::INFINITY, f32::min) as u32;
        let max = |i: usize| ps.iter().map(|p| p[i]).fold(f32::NEG_INFINITY, f32::max) as u32;
        [min(0), min(1), max(0), max(1)]
    }

    fn area(&self) -> u32 {
        let [x0, y0, x1, y1] = self.rect();
        (x1 - x0) * (y1 - y0)
    }

    fn instance(&self) -> u32 {
        self.vertices[0].instance
    }

    fn entry(&self) -> u32 {
        self.vertices[0].entry
    }
}

/// glDrawArrays*-like: `count` vertices from `first`, `instances` times.
fn arrays(first: u32, count: u32, instances: u32, base_instance: u32) -> Vec<Piece> {
    (0..instances)
        .map(|i| Piece {
            vertices: (first..first + count)
                .map(|id| Vertex {
                    id,
                    instance: i,
                    entry: base_instance + i,
                    pos: buffer_vertex(id),
                })
                .collect(),
        })
        .collect()
}

/// glDrawElements*-like: the indices of index block `block` plus
/// `base_vertex`, `instances` times.
fn elements(block: usize, base_vertex: u32, instances: u32, base_instance: u32) -> Vec<Piece> {
    const BLOCKS: [[u32; 6]; 7] = [
        [0, 1, 2, 2, 1, 3],
        [8, 9, 10, 10, 9, 11],
        [12, 13, 14, 14, 13, 15],
        [20, 21, 22, 22, 21, 23],
        [44, 45, 46, 46, 45, 47],
        [48, 49, 50, 50, 49, 51],
        [0, 1, 2, 2, 1, 3],
    ];
    (0..instances)
        .map(|i| Piece {
            vertices: BLOCKS[block]
                .iter()
                .map(|&index| Vertex {
                    id: index + base_vertex,
                    instance: i,
                    entry: base_instance + i,
                    pos: buffer_vertex(index + base_vertex),
                })
                .collect(),
        })
        .collect()
}

/// glDrawTransformFeedback*: the 4 captured vertices, `instances` times,
/// `a_inst` read from entry `entry` on.
fn feedback(instances: u32, entry: u32) -> Vec<Piece> {
    (0..instances)
        .map(|i| Piece {
            vertices: (0..4)
                .map(|id| Vertex {
                    id,
                    instance: i,
                    entry: entry + i,
                    pos: captured_vertex(id),
                })
                .collect(),
        })
        .collect()
}

struct Form {
    /// u_draw, and the cell.
    index: u32,
    function: &'static str,
    pieces: Vec<Piece>,
}

impl Form {
    /// gldbg's draw number: the capture pass is draw 1.
    fn draw(&self) -> u32 {
        self.index + 2
    }

    fn vertices(&self) -> Vec<Vertex> {
        self.pieces
            .iter()
            .flat_map(|p| p.vertices.clone())
            .collect()
    }

    fn area(&self) -> u32 {
        self.pieces.iter().map(Piece::area).sum()
    }
}

/// The 16 forms, as egl_draws.c issues them (its table, from the calls'
/// arguments).
fn forms() -> Vec<Form> {
    let form = |index, function, pieces: Vec<Vec<Piece>>| Form {
        index,
        function,
        pieces: pieces.concat(),
    };
    vec![
        form(0, "glDrawArrays", vec![arrays(4, 4, 1, 0)]),
        form(1, "glDrawElements", vec![elements(1, 0, 1, 0)]),
        form(2, "glDrawRangeElements", vec![elements(2, 0, 1, 0)]),
        form(3, "glDrawArraysInstanced", vec![arrays(16, 4, 2, 0)]),
        form(4, "glDrawElementsInstanced", vec![elements(3, 0, 2, 0)]),
        form(5, "glDrawElementsBaseVertex", vec![elements(0, 24, 1, 0)]),
        form(
            6,
            "glDrawArraysInstancedBaseInstance",
            vec![arrays(28, 4, 2, 2)],
        ),
        form(
            7,
            "glDrawElementsInstancedBaseVertexBaseInstance",
            vec![elements(0, 32, 2, 2)],
        ),
        form(
            8,
            "glMultiDrawArrays",
            vec![arrays(36, 4, 1, 0), arrays(40, 4, 1, 0)],
        ),
        form(
            9,
            "glMultiDrawElements",
            vec![elements(4, 0, 1, 0), elements(5, 0, 1, 0)],
        ),
        form(10, "glDrawArraysIndirect", vec![arrays(52, 4, 1, 0)]),
        form(11, "glDrawElementsIndirect", vec![elements(6, 56, 2, 2)]),
        form(
            12,
            "glMultiDrawArraysIndirect",
            vec![arrays(60, 4, 1, 0), arrays(64, 4, 1, 0)],
        ),
        form(
            13,
            "glMultiDrawElementsIndirect",
            vec![elements(0, 68, 1, 0), elements(0, 72, 1, 0)],
        ),
        form(14, "glDrawTransformFeedback", vec![feedback(1, 4)]),
        form(15, "glDrawTransformFeedbackInstanced", vec![feedback(2, 5)]),
    ]
}

#[test]
fn the_model_tiles_the_framebuffer_as_the_app_says() {
    let forms = forms();
    let mut owner = vec![None; (W * 64) as usize];
    for f in &forms {
        for piece in &f.pieces {
            let [x0, y0, x1, y1] = piece.rect();
            // Inside the form's cell.
            assert!(
                x0 >= 16 * (f.index % 8) && x1 <= 16 * (f.index % 8) + 16,
                "{}",
                f.function
            );
            assert!(
                y0 >= 32 * (f.index / 8) && y1 <= 32 * (f.index / 8) + 32,
                "{}",
                f.function
            );
            for y in y0..y1 {
                for x in x0..x1 {
                    let o = &mut owner[(x + W * y) as usize];
                    assert!(o.is_none(), "{} overlaps at {x},{y}", f.function);
                    *o = Some(f.index);
                }
            }
        }
    }
    let areas: Vec<u32> = forms.iter().map(Form::area).collect();
    assert_eq!(
        areas,
        [
            512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 256, 512
        ]
    );
}

// ---------------------------------------------------------------------------
// The session

/// A script whose commands' results are read back in order.
struct Script {
    commands: Vec<String>,
}

impl Script {
    fn push(&mut self, cmd: impl Into<String>) -> usize {
        self.commands.push(cmd.into());
        self.commands.len() - 1
    }
}

/// Where each form's results are.
struct Checks {
    info: usize,
    debug_vertex: usize,
    vertex_stop: usize,
    /// Per vertex: v_id, a_inst.z, p.
    vertex_prints: Vec<[usize; 3]>,
    vertex_summary: usize,
    past_the_end: usize,
    fragment_stop: usize,
    /// (x, y, instance, entry, result).
    pixels: Vec<(u32, u32, u32, u32, usize)>,
    fragment_summary: usize,
}

fn add_form(s: &mut Script, f: &Form) -> Checks {
    s.push("continue");
    let info = s.push("info call");
    let debug_vertex = s.push("debug vertex");
    s.push(format!("break {VS_LAST}"));
    let vertex_stop = s.push("continue");
    let n = f.vertices().len();
    let vertex_prints = (0..n)
        .map(|k| {
            [
                s.push(format!("print v_id @ vertex {k}")),
                s.push(format!("print a_inst.z @ vertex {k}")),
                s.push(format!("print p @ vertex {k}")),
            ]
        })
        .collect();
    let vertex_summary = s.push("print v_id");
    let past_the_end = s.push(format!("print v_id @ vertex {n}"));
    s.push("end");
    s.push("debug fragment");
    s.push(format!("break {FS_OUT}"));
    let fragment_stop = s.push("continue");
    let mut pixels = Vec::new();
    for piece in &f.pieces {
        let [x0, y0, x1, y1] = piece.rect();
        for (x, y) in [(x0, y0), (x1 - 1, y1 - 1), ((x0 + x1) / 2, (y0 + y1) / 2)] {
            let r = s.push(format!("print value @ {x},{y}"));
            pixels.push((x, y, piece.instance(), piece.entry(), r));
        }
    }
    let fragment_summary = s.push("print value");
    s.push("end");
    Checks {
        info,
        debug_vertex,
        vertex_stop,
        vertex_prints,
        vertex_summary,
        past_the_end,
        fragment_stop,
        pixels,
        fragment_summary,
    }
}

/// The app's result line without the renderer.
fn result_line(stdout: &str) -> String {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("egl_draws: "))
        .unwrap_or_else(|| panic!("no egl_draws line in:\n{stdout}"));
    line.split(", ").take(2).collect::<Vec<_>>().join(", ")
}

fn f32s(v: &[f32]) -> Vec<f64> {
    v.iter().map(|&x| x as f64).collect()
}

/// One session stopping at the draws of `which` (indices into [`forms`]),
/// checking every value there against the model, then the frame.
fn check_forms(which: &[u32]) {
    require_workspace();
    let app = egl_draws();
    let native = run_native(&app, &[], &[]);
    assert!(
        result_line(&native.stdout).ends_with("wrong 0"),
        "the app's own check failed natively:\n{}",
        native.transcript()
    );

    let forms: Vec<Form> = forms()
        .into_iter()
        .filter(|f| which.contains(&f.index))
        .collect();
    let mut s = Script {
        commands: Vec::new(),
    };
    for f in &forms {
        s.push(format!("break draw {}", f.draw()));
    }
    let checks: Vec<Checks> = forms.iter().map(|f| add_form(&mut s, f)).collect();
    s.push("delete");
    let exit = s.push("continue");

    let dir = TempDir::new("draw-forms");
    let out = Session::new(&app, &(s.commands.join("\n") + "\n"))
        .keep_going()
        .run(&dir);
    // The first result is `run`'s; then one per command.
    let results = out.results();
    assert_eq!(
        results.len(),
        s.commands.len() + 1,
        "one result per command:\n{}",
        out.transcript()
    );
    let result = |i: usize| -> &Value {
        let r = results[i + 1];
        assert_eq!(r["cmd"], s.commands[i].as_str(), "{r}");
        r
    };
    let ok = |i: usize, what: &str| -> &Value {
        let r = result(i);
        assert_eq!(r["ok"], true, "{what}: `{}` failed: {r}", s.commands[i]);
        r
    };

    for (f, c) in forms.iter().zip(&checks) {
        let form = format!("draw {} ({})", f.draw(), f.function);
        let info = ok(c.info, &form);
        assert_eq!(info["function"], f.function, "{form}: {info}");
        assert_eq!(info["draw"], f.draw(), "{form}: {info}");

        // Vertex stage.
        let vertices = f.vertices();
        let n = vertices.len();
        let r = ok(c.debug_vertex, &form);
        assert_eq!(r["reached"], n, "{form}: vertices: {r}");
        let r = ok(c.vertex_stop, &form);
        assert_eq!(r["line"], VS_LAST, "{form}: {r}");
        assert_eq!(r["reached"], n, "{form}: {r}");
        for (k, (v, [id, tag, p])) in vertices.iter().zip(&c.vertex_prints).enumerate() {
            let at = format!("{form} @ vertex {k} ({v:?})");
            let r = ok(*id, &at);
            assert_eq!(values(r), f32s(&[v.v_id(f.index)]), "{at}: v_id: {r}");
            let r = ok(*tag, &at);
            assert_eq!(values(r), [v.entry as f64], "{at}: a_inst.z: {r}");
            let r = ok(*p, &at);
            assert_eq!(values(r), f32s(&v.p()), "{at}: p: {r}");
        }
        let r = ok(c.vertex_summary, &form);
        let ids: Vec<f32> = vertices.iter().map(|v| v.v_id(f.index)).collect();
        let min = ids.iter().copied().fold(f32::INFINITY, f32::min);
        let max = ids.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(r["summary"]["count"], n, "{form}: {r}");
        assert_eq!(r["summary"]["min"][0], min as f64, "{form}: {r}");
        assert_eq!(r["summary"]["max"][0], max as f64, "{form}: {r}");
        let r = result(c.past_the_end);
        assert_eq!(r["ok"], false, "{form}: {r}");
        let want = format!("vertex {n} is not in the draw ({n} vertices)");
        assert!(
            r["error"].as_str().unwrap_or("").contains(&want),
            "{form}: {r}"
        );

        // Fragment stage.
        let area = f.area();
        let r = ok(c.fragment_stop, &form);
        assert_eq!(r["line"], FS_OUT, "{form}: {r}");
        assert_eq!(r["reached"], area, "{form}: fragments: {r}");
        for &(x, y, instance, entry, i) in &c.pixels {
            let at = format!("{form} @ {x},{y}");
            let r = ok(i, &at);
            let want = [
                f.index as f64,
                instance as f64,
                entry as f64,
                (x + W * y) as f64,
            ];
            assert_eq!(values(r), want, "{at}: value: {r}");
        }
        let r = ok(c.fragment_summary, &form);
        assert_eq!(r["summary"]["count"], area, "{form}: {r}");
        let cells: Vec<u32> = f
            .pieces
            .iter()
            .flat_map(|p| {
                let [x0, y0, x1, y1] = p.rect();
                [x0 + W * y0, x1 - 1 + W * (y1 - 1)]
            })
            .collect();
        let instances = f.pieces.iter().map(Piece::instance);
        let entries = f.pieces.iter().map(Piece::entry);
        let want_min = [
            f.index as f64,
            instances.clone().min().unwrap() as f64,
            entries.clone().min().unwrap() as f64,
            *cells.iter().min().unwrap() as f64,
        ];
        let want_max = [
            f.index as f64,
            instances.max().unwrap() as f64,
            entries.max().unwrap() as f64,
            *cells.iter().max().unwrap() as f64,
        ];
        assert_eq!(
            r["summary"]["min"],
            serde_json::json!(want_min),
            "{form}: {r}"
        );
        assert_eq!(
            r["summary"]["max"],
            serde_json::json!(want_max),
            "{form}: {r}"
        );
    }

    // The app never noticed: it ran to its end with the native frame.
    let r = ok(exit, "exit");
    assert_eq!(r["state"], "exited", "{r}\n{}", out.transcript());
    assert_eq!(r["exited"]["code"], 0, "{r}\n{}", out.transcript());
    assert_eq!(
        result_line(&out.stdout),
        result_line(&native.stdout),
        "the frame differs from a native run\n{}",
        out.transcript()
    );
}

#[test]
fn every_draw_form_steps_with_the_models_values() {
    check_forms(&(0..16).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------
// Draw 1: the capture pass, a draw inside the app's own running transform
// feedback (GL_POINTS, rasterizer discard on).

/// CAPTURE_VS line `gl_Position = ...` (after `c_pos = ...`).
const CAPTURE_LAST: u32 = 5;

/// One session at draw 1 running `debug` (the stage's commands), then to
/// the app's exit; the frame must equal a native run's.
fn at_capture_pass(tag: &str, debug: &str) -> Output {
    require_workspace();
    let app = egl_draws();
    let native = run_native(&app, &[], &[]);
    let script = format!("break draw 1\ncontinue\ninfo call\n{debug}delete\ncontinue\n");
    let dir = TempDir::new(tag);
    let out = Session::new(&app, &script).keep_going().run(&dir);
    let info = out.ok("info call");
    assert_eq!(info["function"], "glDrawArrays", "{info}");
    assert_eq!(info["draw"], 1, "{info}");
    // The last `continue` (the stage's commands may continue in the shader).
    let last = out.ok_n("continue", debug.matches("continue\n").count() + 1);
    assert_eq!(last["state"], "exited", "{last}\n{}", out.transcript());
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());
    // Forms 14 and 15 draw what this pass captured: a capture disturbed by
    // the step would change their pixels.
    assert_eq!(
        result_line(&out.stdout),
        result_line(&native.stdout),
        "the frame differs from a native run\n{}",
        out.transcript()
    );
    out
}

#[test]
fn shader_lines_of_the_capture_pass() {
    let vs = shader("CAPTURE_VS");
    let line = vs.lines().nth(CAPTURE_LAST as usize - 1).unwrap().trim();
    assert!(line.starts_with("gl_Position = "), "{vs}");
}

/// Rasterizer discard is on at the capture pass: no fragment reaches the
/// fragment shader, and the step says so.
#[test]
fn fragment_step_inside_the_apps_transform_feedback() {
    let out = at_capture_pass(
        "draw-forms-capture-fragment",
        "debug fragment\nprint gl_FragCoord\nend\n",
    );
    let r = out.ok("debug fragment");
    assert_eq!(r["reached"], 0, "{r}");
    let r = out.ok("print gl_FragCoord");
    assert_eq!(r["summary"]["count"], 0, "{r}");
}

/// The vertex step at a draw inside the app's running (then paused)
/// transform feedback: the captured values at every vertex. (GL refuses
/// glTransformFeedbackVaryings while a transform feedback object is
/// active, even paused: the step builds its program with none bound.)
#[test]
fn vertex_step_inside_the_apps_transform_feedback() {
    let mut debug = format!("debug vertex\nbreak {CAPTURE_LAST}\ncontinue\n");
    for k in 0..5 {
        debug += &format!("print c_pos @ vertex {k}\n");
    }
    debug += "print c_pos\nend\n";
    let out = at_capture_pass("draw-forms-capture-vertex", &debug);
    let r = out.ok("debug vertex");
    assert_eq!(r["reached"], 4, "{r}");
    let r = out.ok_n("continue", 1);
    assert_eq!(r["line"], CAPTURE_LAST, "{r}");
    for k in 0..4 {
        let r = out.ok(&format!("print c_pos @ vertex {k}"));
        assert_eq!(values(r), f32s(&captured_vertex(k)), "vertex {k}: {r}");
    }
    let err = out.failed("print c_pos @ vertex 4");
    assert!(
        err.contains("vertex 4 is not in the draw (4 vertices)"),
        "{err}"
    );
    let r = out.ok("print c_pos");
    assert_eq!(r["summary"]["count"], 4, "{r}");
    assert_eq!(r["summary"]["min"], serde_json::json!([0.0, 0.0]), "{r}");
    assert_eq!(r["summary"]["max"], serde_json::json!([16.0, 16.0]), "{r}");
}
