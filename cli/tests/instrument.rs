//! `gldbg instrument FILE`: the offline instrumenter, run as the built
//! binary on the shader files of `tests/shaders/` (no daemon, no GL).

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

fn shader(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/shaders")
        .join(name)
}

fn gldbg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gldbg"))
        .arg("instrument")
        .args(args)
        .output()
        .expect("run gldbg")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs `gldbg instrument ARGS`, which must succeed; its stdout.
#[track_caller]
fn ok(args: &[&str]) -> String {
    let out = gldbg(args);
    assert!(
        out.status.success(),
        "gldbg instrument {args:?} failed ({:?}):\n{}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// Runs `gldbg instrument ARGS --json`, which must succeed; its one JSON value.
#[track_caller]
fn ok_json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.push("--json");
    let stdout = ok(&all);
    assert_eq!(stdout.lines().count(), 1, "one JSON line: {stdout}");
    serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// Runs `gldbg instrument ARGS`, which must fail with status 1; its stderr.
#[track_caller]
fn fails(args: &[&str]) -> String {
    let out = gldbg(args);
    assert_eq!(
        out.status.code(),
        Some(1),
        "gldbg instrument {args:?} should fail:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stderr)
}

/// loop_call.frag: main calls shade(), which has a for loop around an if.
const LOOP_CALL: &str = "loop_call.frag";

/// (kind, line, column, text) of every step of loop_call.frag, by step
/// number (per function in source order of their positions).
const LOOP_CALL_STEPS: &[(&str, u32, u32, &str)] = &[
    ("statement", 7, 5, "float acc = 0.0;"),
    ("loop-init", 8, 10, "int i = 0"),
    ("loop-condition", 8, 21, "i < 4"),
    ("loop-increment", 8, 28, "++i"),
    ("if-condition", 9, 13, "p.x > float(i)"),
    ("statement", 10, 13, "acc += p.y * u_gain;"),
    ("return", 13, 5, "return acc;"),
    ("statement", 17, 5, "vec2 p = v_uv * 4.0;"),
    ("statement", 18, 5, "float s = shade(p);"),
    ("statement", 19, 5, "frag = vec4(s, p, 1.0);"),
];

/// The step of loop_call.frag at `acc += p.y * u_gain;`.
const ACC_STEP: u32 = 5;

#[test]
fn list_steps_json() {
    let path = shader(LOOP_CALL);
    let steps = ok_json(&[path.to_str().unwrap(), "--list-steps"]);
    let steps = steps.as_array().expect("an array of steps");
    assert_eq!(steps.len(), LOOP_CALL_STEPS.len(), "{steps:#?}");
    for (n, (step, &(kind, line, column, source))) in steps.iter().zip(LOOP_CALL_STEPS).enumerate()
    {
        assert_eq!(step["step"], n, "{step}");
        assert_eq!(step["kind"], kind, "{step}");
        assert_eq!(
            (step["line"].clone(), step["column"].clone()),
            (line.into(), column.into()),
            "{step}"
        );
        assert!(
            step["text"]
                .as_str()
                .is_some_and(|t| t.contains(source.trim_end_matches(';'))),
            "step {n}: {source:?} in {step}"
        );
        let function = if line < 16 { "shade" } else { "main" };
        assert_eq!(step["function"], function, "{step}");
    }
    // Variables in scope, with their types, at `acc += p.y * u_gain;`.
    let acc = &steps[ACC_STEP as usize];
    assert_eq!(acc["loop_depth"], 1, "{acc}");
    let scope: Vec<(&str, &str)> = acc["scope"]
        .as_array()
        .expect("scope")
        .iter()
        .map(|v| (v["name"].as_str().unwrap(), v["type"].as_str().unwrap()))
        .collect();
    for want in [
        ("acc", "float"),
        ("i", "int"),
        ("p", "vec2"),
        ("u_gain", "float"),
        ("v_uv", "vec2"),
    ] {
        assert!(scope.contains(&want), "{want:?} in scope of {acc}");
    }
    // Not in scope there: main's locals.
    assert!(!scope.contains(&("s", "float")), "{acc}");
    // The call from main.
    assert_eq!(
        steps[8]["calls"],
        serde_json::json!(["shade"]),
        "{}",
        steps[8]
    );
}

#[test]
fn list_steps_text() {
    let path = shader(LOOP_CALL);
    let out = ok(&[path.to_str().unwrap(), "--list-steps"]);
    // One line per step (number, kind, line:column, function, text), then its scope.
    let step_lines: Vec<&str> = out
        .lines()
        .filter(|l| !l.trim_start().starts_with("in scope:"))
        .collect();
    assert_eq!(step_lines.len(), LOOP_CALL_STEPS.len(), "{out}");
    for (n, (l, &(kind, line, column, source))) in
        step_lines.iter().zip(LOOP_CALL_STEPS).enumerate()
    {
        let words: Vec<&str> = l.split_whitespace().collect();
        assert_eq!(words[0], n.to_string(), "{l}");
        assert_eq!(words[1], kind, "{l}");
        assert_eq!(words[2], format!("{line}:{column}"), "{l}");
        assert!(l.contains(source.trim_end_matches(';')), "{l}");
    }
    let scopes: Vec<&str> = out
        .lines()
        .filter(|l| l.trim_start().starts_with("in scope:"))
        .collect();
    assert_eq!(scopes.len(), LOOP_CALL_STEPS.len(), "{out}");
    assert!(scopes[ACC_STEP as usize].contains("int i"), "{out}");
    assert!(scopes[ACC_STEP as usize].contains("float acc"), "{out}");
}

#[test]
fn instrument_a_step_with_an_expression() {
    let path = shader(LOOP_CALL);
    let step = ACC_STEP.to_string();
    let v = ok_json(&[
        path.to_str().unwrap(),
        "--step",
        &step,
        "--expr",
        "acc * 2.0",
    ]);
    assert_eq!(v["stage"], "fragment", "{v}");
    assert_eq!(v["expr"], "acc * 2.0", "{v}");
    assert_eq!(v["step"]["step"], ACC_STEP, "{v}");
    // The first time the step is reached: through main's call of shade()
    // (step 8, its call 0), in loop iteration 0.
    assert_eq!(
        v["position"],
        serde_json::json!({"step": ACC_STEP, "calls": [{"step": 8, "call": 0}], "iterations": [0]})
    );
    let outputs = v["outputs"].as_array().expect("outputs");
    let roles: Vec<&str> = outputs
        .iter()
        .map(|o| o["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles, ["value", "coverage"], "{v}");
    let source = v["source"].as_str().expect("source");
    let mut names = Vec::new();
    for (o, ty) in outputs.iter().zip(["vec4", "float"]) {
        // GLSL 3.30: named outputs; whoever links the program picks their locations.
        assert_eq!(o["kind"], "named", "{o}");
        assert_eq!(o["type"], ty, "{o}");
        assert!(o.get("location").is_some(), "{o}");
        let name = o["name"].as_str().expect("name");
        let decl = format!("out {ty} {name};");
        assert!(
            source.lines().any(|l| l.trim_start().ends_with(&decl)),
            "`{decl}` in\n{source}"
        );
        // Fresh names: nothing of the original shader.
        assert!(
            !std::fs::read_to_string(&path).unwrap().contains(name),
            "{name}"
        );
        names.push(name.to_string());
    }
    assert_ne!(names[0], names[1]);
    // The app's own output stays.
    assert_eq!(v["app_outputs"], serde_json::json!(["frag"]), "{v}");
    assert!(source.contains("out vec4 frag;"), "{source}");
    // Inside a loop: the loop path uniform, to set to the iterations.
    let uniform = v["path_uniform"].as_str().expect("a path uniform");
    assert!(source.contains(uniform), "{source}");
    assert_eq!(v["path"], serde_json::json!([0]));
    assert!(source.contains("acc * 2."), "{source}");

    // Text mode: the same shader on stdout, ready for a compiler.
    let plain = ok(&[
        path.to_str().unwrap(),
        "--step",
        &step,
        "--expr",
        "acc * 2.0",
    ]);
    assert_eq!(plain.trim_end(), source.trim_end());
}

#[test]
fn default_is_the_entry_step_coverage_only() {
    let path = shader(LOOP_CALL);
    let v = ok_json(&[path.to_str().unwrap()]);
    assert_eq!(v["step"]["line"], 17, "{v}");
    assert_eq!(v["expr"], Value::Null, "{v}");
    assert_eq!(v["path_uniform"], Value::Null, "{v}");
    assert_eq!(v["position"]["calls"], serde_json::json!([]), "{v}");
}

#[test]
fn legacy_glsl_writes_frag_data() {
    // GLSL 1.10: the debug outputs are gl_FragData elements after the app's
    // gl_FragColor (rewritten to gl_FragData[0]).
    let path = shader("legacy.frag");
    let steps = ok_json(&[path.to_str().unwrap(), "--list-steps"]);
    let kinds: Vec<&str> = steps
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["statement", "if-condition", "discard", "statement"],
        "{steps}"
    );
    let v = ok_json(&[path.to_str().unwrap(), "--step", "1", "--expr", "w"]);
    let outputs = v["outputs"].as_array().unwrap();
    let slots: Vec<(&str, &Value, &str)> = outputs
        .iter()
        .map(|o| {
            (
                o["kind"].as_str().unwrap(),
                &o["location"],
                o["name"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        slots,
        [
            ("frag_data", &Value::from(1), "gl_FragData[1]"),
            ("frag_data", &Value::from(2), "gl_FragData[2]")
        ],
        "{v}"
    );
    let source = v["source"].as_str().unwrap();
    assert!(source.contains("gl_FragData[0]"), "{source}");
    assert!(!source.contains("gl_FragColor"), "{source}");
}

#[test]
fn stage_from_the_extension_or_the_option() {
    let vert = shader("passthrough.vert");
    let steps = ok_json(&[vert.to_str().unwrap(), "--list-steps"]);
    assert_eq!(steps.as_array().unwrap().len(), 2, "{steps}");
    // --stage overrides the extension.
    ok_json(&[vert.to_str().unwrap(), "--stage", "vertex", "--list-steps"]);
    let err = fails(&[vert.to_str().unwrap(), "--stage", "pixel", "--list-steps"]);
    assert!(err.contains("unknown stage `pixel`"), "{err}");
    assert!(err.contains("tess-control"), "lists the stages: {err}");
    // A name that says nothing: the stage must be given.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let plain = dir.join(format!("shader-{}.txt", std::process::id()));
    std::fs::copy(shader(LOOP_CALL), &plain).unwrap();
    let err = fails(&[plain.to_str().unwrap(), "--list-steps"]);
    assert!(err.contains("--stage"), "{err}");
    ok_json(&[
        plain.to_str().unwrap(),
        "--stage",
        "fragment",
        "--list-steps",
    ]);
    // glslang's stage names (glslangValidator -S) are taken too.
    ok_json(&[plain.to_str().unwrap(), "--stage", "frag", "--list-steps"]);
    ok_json(&[vert.to_str().unwrap(), "--stage", "vert", "--list-steps"]);
    let _ = std::fs::remove_file(&plain);
}

#[test]
fn parse_error_has_file_line_column() {
    let path = shader("syntax_error.frag");
    let p = path.to_str().unwrap();
    let err = fails(&[p, "--list-steps"]);
    // `    float x = 1.0 +;` is line 4; the error is at the `;` (column 20).
    let first = err.lines().next().unwrap_or("");
    assert!(first.starts_with(&format!("{p}:4:20: ")), "{err}");
    assert!(
        first.len() > format!("{p}:4:20: ").len(),
        "a message: {err}"
    );
    // The same for instrumenting, and as JSON on stdout.
    let out = gldbg(&[p, "--step", "0", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&out.stdout).expect("a JSON error");
    assert_eq!(v["ok"], false, "{v}");
    assert_eq!(
        (v["line"].clone(), v["column"].clone()),
        (4.into(), 20.into()),
        "{v}"
    );
    assert!(text(&out.stderr).starts_with(&format!("{p}:4:20: ")));
}

#[test]
fn bad_step_and_bad_expression() {
    let path = shader(LOOP_CALL);
    let p = path.to_str().unwrap();
    let err = fails(&[p, "--step", "99"]);
    assert!(
        err.contains("no step 99") && err.contains("0 to 9"),
        "{err}"
    );
    let err = fails(&[p, "--step", "5", "--expr", "acc +"]);
    assert!(err.contains("`acc +`") && err.contains("step 5"), "{err}");
    assert!(err.contains("10:13"), "names the step: {err}");
    // `acc` is shade()'s local: not in scope in main.
    let err = fails(&[p, "--step", "7", "--expr", "acc"]);
    assert!(err.contains("`acc` is not in scope"), "{err}");
    // Not a number: a usage error (clap's status 2).
    assert!(!gldbg(&[p, "--step", "x"]).status.success());
    let missing = shader("no-such-shader.frag");
    let err = fails(&[missing.to_str().unwrap(), "--list-steps"]);
    assert!(err.contains("cannot read"), "{err}");
}

/// Where the debug value goes, per stage: fragment outputs (above), captured
/// varyings (vertex, tess-eval, geometry with the emit index), per-vertex
/// arrays (tess-control), storage buffers (compute).
#[test]
fn outputs_of_every_stage() {
    /// (file, expression at step 1, (role, kind) of each output)
    type Case = (
        &'static str,
        &'static str,
        &'static [(&'static str, &'static str)],
    );
    let cases: &[Case] = &[
        (
            "passthrough.vert",
            "a_pos",
            &[("value", "varying"), ("coverage", "varying")],
        ),
        (
            "patch.tesc",
            "level",
            &[("value", "buffer"), ("coverage", "buffer")],
        ),
        (
            "patch.tese",
            "b",
            &[("value", "varying"), ("coverage", "varying")],
        ),
        (
            "emit.geom",
            "k",
            &[
                ("value", "varying"),
                ("coverage", "varying"),
                ("emission", "varying"),
            ],
        ),
        (
            "scale.comp",
            "i",
            &[("value", "buffer"), ("coverage", "buffer")],
        ),
    ];
    for &(file, expr, want) in cases {
        let path = shader(file);
        let v = ok_json(&[path.to_str().unwrap(), "--step", "1", "--expr", expr]);
        let outputs = v["outputs"].as_array().expect("outputs");
        let got: Vec<(&str, &str)> = outputs
            .iter()
            .map(|o| (o["role"].as_str().unwrap(), o["kind"].as_str().unwrap()))
            .collect();
        assert_eq!(got, want, "{file}: {v}");
        let source = v["source"].as_str().unwrap();
        for o in outputs {
            let name = o["name"].as_str().unwrap();
            assert!(source.contains(name), "{file}: {name} in\n{source}");
            assert!(o["type"].is_string(), "{file}: a declared type: {o}");
            if o["kind"] == "buffer" {
                let binding = o["binding"].as_u64().expect("binding");
                if file == "scale.comp" {
                    // A binding the shader does not use (it has binding 0).
                    assert_ne!(binding, 0, "{o}");
                }
                assert!(
                    source.contains(&format!("binding = {binding}) buffer {name}")),
                    "{source}"
                );
                let member = o["member"].as_str().expect("member");
                assert!(source.contains(&format!("{member}[]")), "{source}");
            }
        }
    }
}

#[test]
fn trace_shader_of_every_stage() {
    for (file, focus) in [
        (
            "loop_call.frag",
            "all(equal(ivec2(gl_FragCoord.xy), ivec2(3, 4)))",
        ),
        ("passthrough.vert", "gl_VertexID == 2"),
        ("scale.comp", "gl_GlobalInvocationID.x == 1u"),
        ("emit.geom", "gl_PrimitiveIDIn == 0"),
        ("patch.tesc", "gl_InvocationID == 1"),
        ("patch.tese", "gl_PrimitiveID == 0"),
    ] {
        let path = shader(file);
        let v = ok_json(&[path.to_str().unwrap(), "--trace", focus]);
        let src = v["source"].as_str().unwrap_or_default();
        let block = v["block"].as_str().unwrap_or_default();
        assert!(block.starts_with("gldbg_"), "{file}: {v}");
        assert!(src.contains(&format!("buffer {block}")), "{file}: {src}");
        // Only the invocation the predicate picks claims the trace.
        assert!(
            src.contains(focus),
            "{file}: the focus is in the shader: {src}"
        );
        assert!(src.contains("atomicAdd"), "{file}: {src}");
        assert!(v["record_ids"].as_u64().unwrap_or(0) > 1, "{file}: {v}");
    }
    // A shader too old for storage buffers says so.
    let err = fails(&[shader("legacy.frag").to_str().unwrap(), "--trace", "true"]);
    assert!(err.contains("storage buffer"), "{err}");
}
