//! Equivalence on the driver: a `.shader_test` that passes must still pass
//! with its fragment shader replaced by an instrumented version (the
//! original program runs to its end, its outputs keep their locations; the
//! debug outputs go to locations the test does not use).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Duration;

use glsl_instrument::{OutputSlot, Position, Probe, ShaderModel, Stage, StepMode};

use crate::{ShaderTest, normalise, panic_message, runner_source};

/// What a shader_runner run printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// "pass", "fail", "skip", "crash", "timeout", or "none".
    pub result: String,
    /// First line explaining a failure (normalised), if any.
    pub reason: String,
    pub output: String,
}

/// Run shader_runner on a test file (headless, niced, bounded).
pub fn run_shader_runner(piglit: &Path, test: &Path, timeout: Duration) -> RunResult {
    let out = Command::new("nice")
        .args(["-n", "19", "timeout", "-k", "5"])
        .arg(format!("{}", timeout.as_secs().max(1)))
        .arg(piglit.join("bin/shader_runner"))
        .arg(test)
        .args(["-auto", "-fbo"])
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            return RunResult {
                result: "none".into(),
                reason: format!("cannot run shader_runner: {e}"),
                output: String::new(),
            };
        }
    };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let result = text
        .rfind("\"result\": \"")
        .map(|i| {
            text[i + 11..]
                .chars()
                .take_while(|c| c.is_ascii_alphabetic())
                .collect::<String>()
        })
        .unwrap_or_else(|| match out.status.code() {
            Some(124) | Some(137) => "timeout".into(),
            _ => "crash".into(),
        });
    let reason = text
        .lines()
        .find(|l| {
            l.contains("Failed to compile")
                || l.contains("error")
                || l.contains("Probe")
                || l.contains("Expected")
                || l.contains("failed")
                || l.contains("cannot")
        })
        .map(|l| normalise(l.trim()))
        .unwrap_or_default();
    RunResult {
        result,
        reason,
        output: text,
    }
}

/// Give the debug outputs explicit locations far above the app's, so the
/// linker assigns the app's outputs exactly as before (shader_runner binds
/// no fragment data locations; debugd's executor does the equivalent with
/// glBindFragDataLocation).
pub fn pin_debug_outputs(source: &str, slots: &[&OutputSlot], version: (u32, bool)) -> String {
    let names: Vec<&str> = slots
        .iter()
        .filter_map(|s| match s {
            OutputSlot::Named(n) => Some(n.as_str()),
            OutputSlot::FragData(_) => None,
        })
        .collect();
    if names.is_empty() {
        return source.to_string();
    }
    let (v, es) = version;
    let needs_ext = !es && v < 330;
    let mut out = String::with_capacity(source.len() + 128);
    let mut ext_done = !needs_ext;
    for line in source.split_inclusive('\n') {
        let t = line.trim();
        let mut pinned = false;
        for (k, name) in names.iter().enumerate() {
            // e.g. `out vec4 gldbg_value;` (possibly with a precision or `flat`).
            if t.ends_with(&format!(" {name};"))
                && (t.starts_with("out ") || t.contains(" out "))
                && !t.contains("layout")
            {
                out.push_str(&format!("layout(location = {}) {t}\n", 6 + k));
                pinned = true;
                break;
            }
        }
        if !pinned {
            out.push_str(line);
        }
        if !ext_done && t.starts_with("#version") {
            out.push_str("#extension GL_ARB_explicit_attrib_location : enable\n");
            ext_done = true;
        }
    }
    if !ext_done {
        out = format!("#extension GL_ARB_explicit_attrib_location : enable\n{out}");
    }
    out
}

/// `source` without its `#version` line.
pub fn strip_version(source: &str) -> String {
    source
        .split_inclusive('\n')
        .filter(|l| !l.trim_start().starts_with("#version"))
        .collect()
}

/// The cause given to a variant that fails only because a `discard` in
/// `main` after the probed step returns instead (so the debugger still gets
/// the fragment's debug outputs): documented on `ShaderModel::instrument`.
pub const DISCARD_DEVIATION: &str =
    "documented deviation: a discard in main after the probe returns instead";

/// The instrumented test with the `discard`-to-`return` change undone
/// (`if (gldbg_c == 0.) discard; return;` → `discard; return;`), or `None`
/// if there is none.
pub fn keep_discard(test: &str) -> Option<String> {
    let mut changed = false;
    let out: String = test
        .split_inclusive('\n')
        .map(|l| {
            let t = l.trim();
            if t.starts_with("if (gldbg_c") && t.ends_with("== 0.) discard;") {
                changed = true;
                "discard;\n".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    changed.then_some(out)
}

/// Positions along the path `step` (Into) takes from the entry, at most `max`.
pub fn walk(model: &ShaderModel, max: usize) -> Vec<Position> {
    let mut v = vec![model.entry()];
    while v.len() < max {
        let next = model.successors(v.last().unwrap(), StepMode::Into);
        match next.into_iter().next() {
            Some(p) if !v.contains(&p) => v.push(p),
            _ => break,
        }
    }
    v
}

/// A value expression to probe at `pos`: the innermost scalar/vector variable in scope.
pub fn scope_expr(model: &ShaderModel, pos: &Position) -> Option<String> {
    let simple = |t: &str| {
        matches!(
            t,
            "float"
                | "int"
                | "uint"
                | "bool"
                | "double"
                | "vec2"
                | "vec3"
                | "vec4"
                | "ivec2"
                | "ivec3"
                | "ivec4"
                | "uvec2"
                | "uvec3"
                | "uvec4"
                | "bvec2"
                | "bvec3"
                | "bvec4"
        )
    };
    model
        .step(pos.step)
        .scope
        .iter()
        .rev()
        .find(|v| simple(v.ty.trim()))
        .map(|v| v.name.clone())
}

/// One variant's outcome.
#[derive(Clone, Debug)]
pub struct Variant {
    pub step: u32,
    pub expr: Option<String>,
    /// "pass", or a failure cause.
    pub outcome: Result<(), String>,
}

/// The outcome of one test file.
#[derive(Clone, Debug)]
pub enum TestOutcome {
    /// Not used: why (original not passing, no fragment shader, ...).
    Skipped(String),
    Ran(Vec<Variant>),
}

/// Instrument the fragment shader of `path` at `steps` positions and run each variant.
pub fn check_test(
    piglit: &Path,
    path: &Path,
    tmp: &Path,
    steps: usize,
    timeout: Duration,
    keep: Option<&Path>,
) -> TestOutcome {
    let Ok(text) = std::fs::read_to_string(path) else {
        return TestOutcome::Skipped("unreadable".into());
    };
    let t = ShaderTest::parse(&text);
    if t.expects_error {
        return TestOutcome::Skipped("expects a link error".into());
    }
    let frags: Vec<_> = t
        .sections
        .iter()
        .filter(|s| s.stage == Stage::Fragment)
        .collect();
    if frags.len() != 1 {
        return TestOutcome::Skipped(format!("{} fragment shaders", frags.len()));
    }
    let sec = frags[0];
    let source = runner_source(&text, sec, t.require);
    // shader_runner added the `#version` itself: the copy must not carry
    // one either (piglit looks for `#version ` up to the end of the file,
    // so it would change how the shaders before it compile).
    let runner_adds_version = source.len() != sec.raw.len();
    let model = match std::panic::catch_unwind(|| ShaderModel::parse(&source, Stage::Fragment)) {
        Ok(Ok(m)) => m,
        Ok(Err(e)) => return TestOutcome::Skipped(format!("fragment shader: {}", e.message)),
        Err(p) => return TestOutcome::Skipped(format!("panic: {}", panic_message(&*p))),
    };
    let original = run_shader_runner(piglit, path, timeout);
    if original.result != "pass" {
        return TestOutcome::Skipped(format!("original: {}", original.result));
    }
    let path_walk = walk(&model, 200);
    let picks = crate::spread(path_walk.len(), steps);
    let mut variants = Vec::new();
    let stem = path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    for (n, &i) in picks.iter().enumerate() {
        let pos = &path_walk[i];
        let mut exprs = vec![None];
        if let Some(e) = scope_expr(&model, pos) {
            exprs.push(Some(e));
        }
        for (m, expr) in exprs.into_iter().enumerate() {
            let probe = Probe {
                position: pos,
                expr: expr.as_deref(),
            };
            let outcome = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                model.instrument(&probe)
            })) {
                Err(p) => Err(format!(
                    "instrument panic: {}",
                    normalise(&panic_message(&*p))
                )),
                Ok(Err(e)) => Err(format!("instrument error: {}", normalise(&e.to_string()))),
                Ok(Ok(ins)) => {
                    let src = pin_debug_outputs(
                        ins.source.trim_start(),
                        &[&ins.value, &ins.coverage],
                        model.version(),
                    );
                    let mut body = if runner_adds_version {
                        strip_version(&src)
                    } else {
                        src
                    };
                    if !body.ends_with('\n') {
                        body.push('\n');
                    }
                    body.push('\n');
                    let copy = format!(
                        "{}{}{}",
                        &text[..sec.body.start],
                        body,
                        &text[sec.body.end..]
                    );
                    let file = tmp.join(format!("{stem}-{n}-{m}.shader_test"));
                    if std::fs::write(&file, &copy).is_err() {
                        Err("cannot write the test copy".into())
                    } else {
                        let r = run_shader_runner(piglit, &file, timeout);
                        let res = if r.result == "pass" {
                            Ok(())
                        } else if let Some(kept) = keep_discard(&copy)
                            && std::fs::write(&file, &kept).is_ok()
                            && run_shader_runner(piglit, &file, timeout).result == "pass"
                        {
                            // Passes once `discard` discards again: the
                            // documented deviation (lib.rs, `instrument`).
                            Err(DISCARD_DEVIATION.to_string())
                        } else {
                            if let Some(k) = keep {
                                let _ = std::fs::copy(&file, k.join(file.file_name().unwrap()));
                                let _ = std::fs::write(
                                    k.join(format!("{stem}-{n}-{m}.log")),
                                    &r.output,
                                );
                            }
                            Err(format!("{}: {}", r.result, r.reason))
                        };
                        let _ = std::fs::remove_file(&file);
                        res
                    }
                }
            };
            variants.push(Variant {
                step: pos.step.0,
                expr,
                outcome,
            });
        }
    }
    TestOutcome::Ran(variants)
}

/// The hand-written `.shader_test` files (under `tests/`, not
/// `generated_tests/`) with exactly one `[fragment shader]`, sorted.
pub fn candidates(piglit: &Path) -> Vec<PathBuf> {
    crate::walk(&piglit.join("tests"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "shader_test"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| {
                t.lines()
                    .filter(|l| l.trim() == "[fragment shader]")
                    .count()
                    == 1
            })
        })
        .collect()
}

/// Figures of an equivalence run.
#[derive(Debug, Default)]
pub struct EquivReport {
    pub tests: usize,
    pub skipped: BTreeMap<String, usize>,
    pub ran_tests: usize,
    pub variants: usize,
    pub passed: usize,
    /// cause → (count, example "file step expr").
    pub failures: BTreeMap<String, (usize, String)>,
}

/// Check `tests` with `jobs` worker threads.
pub fn run_equiv(
    piglit: &Path,
    tests: &[PathBuf],
    steps: usize,
    timeout: Duration,
    jobs: usize,
    keep: Option<&Path>,
) -> EquivReport {
    let tmp = std::env::temp_dir().join(format!("gldbg-equiv-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, TestOutcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.max(1) {
            s.spawn(|| {
                loop {
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(path) = tests.get(i) else { break };
                    let o = check_test(piglit, path, &tmp, steps, timeout, keep);
                    results.lock().unwrap().push((i, o));
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    let mut r = EquivReport {
        tests: tests.len(),
        ..Default::default()
    };
    for (i, o) in results {
        match o {
            TestOutcome::Skipped(why) => *r.skipped.entry(normalise(&why)).or_default() += 1,
            TestOutcome::Ran(vs) => {
                r.ran_tests += 1;
                for v in vs {
                    r.variants += 1;
                    match v.outcome {
                        Ok(()) => r.passed += 1,
                        Err(cause) => {
                            let e = r.failures.entry(cause).or_insert((0, String::new()));
                            e.0 += 1;
                            if e.1.is_empty() {
                                e.1 = format!(
                                    "{} step {} {}",
                                    tests[i].display(),
                                    v.step,
                                    v.expr.as_deref().unwrap_or("(coverage)")
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    r
}
