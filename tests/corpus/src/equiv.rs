//! Equivalence on the driver: a `.shader_test` that passes must still pass
//! with any one of its shaders (every stage) replaced by an instrumented
//! version (`Semantics::Equivalent`: the original program runs to its end,
//! its outputs keep their locations; the debug outputs are extra: fragment
//! outputs at locations the test does not use, varyings nothing reads, a
//! storage block at a binding the shader does not use).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use glsl_instrument::{Api, OutputSlot, Position, ShaderModel, Stage, StepMode};

use crate::{
    Cause, EMPTY_MAIN, NO_MAIN, Section, ShaderTest, normalise, panic_message, probe, runner_source,
};

/// What a shader_runner run printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// "pass", "fail", "skip", "crash", "timeout", or "none".
    pub result: String,
    /// First line explaining a failure (normalised), if any.
    pub reason: String,
    pub output: String,
}

/// Run shader_runner on a test file (headless, bounded; it inherits this
/// process's niceness: run the harness under `nice` on a shared machine).
pub fn run_shader_runner(piglit: &Path, test: &Path, timeout: Duration) -> RunResult {
    let out = Command::new("timeout")
        .args(["-k", "5"])
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
    // A link or compile failure names its cause in the first error line
    // after it (piglit may print other complaints first).
    let build_error = ["Failed to link", "Failed to compile"]
        .iter()
        .filter_map(|m| text.find(m))
        .min()
        .and_then(|i| {
            let mut lines = text[i..].lines();
            let head = lines.next().unwrap_or("").trim();
            if head.contains("error") {
                return Some(normalise(head));
            }
            let head = head.split(':').next().unwrap_or(head);
            lines
                .find(|l| l.contains("error"))
                .map(|l| normalise(&format!("{head}: {}", l.trim())))
        });
    let reason = build_error.unwrap_or_else(|| {
        text.lines()
            .find(|l| {
                l.contains("Failed to compile")
                    || l.contains("error")
                    || l.contains("Probe")
                    || l.contains("Expected")
                    || l.contains("failed")
                    || l.contains("cannot")
            })
            .map(|l| normalise(l.trim()))
            .unwrap_or_default()
    });
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
            _ => None,
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
    /// `Err(cause)` unless the test still passes.
    pub outcome: Result<(), String>,
}

/// One shader section of a test that ran.
#[derive(Clone, Debug)]
pub struct SectionOutcome {
    pub stage: Stage,
    /// Header line of the section in the test file.
    pub line: usize,
    /// `Err(why)`: not instrumented (nothing to step, the front-end fails).
    pub variants: Result<Vec<Variant>, String>,
}

/// The outcome of one test file.
#[derive(Clone, Debug)]
pub enum TestOutcome {
    /// Not used: why (original not passing, expects an error, ...).
    Skipped(String),
    Ran(Vec<SectionOutcome>),
}

/// How an equivalence run probes each test.
#[derive(Clone, Debug)]
pub struct EquivOptions {
    /// Evenly spread steps of each shader's `step` path; every second one
    /// (the 2nd, 4th, ...; the only one of a one-step shader) probes a value
    /// expression, the others coverage only.
    pub steps: usize,
    /// Per shader_runner run.
    pub timeout: Duration,
    /// Parallel shader_runner processes (at most 2 on this machine).
    pub jobs: usize,
    /// Only swap shaders of these stages (all if empty).
    pub stages: Vec<Stage>,
    /// Start no new test after this much time.
    pub budget: Option<Duration>,
    /// Where to copy failing test variants and their output.
    pub keep: Option<PathBuf>,
    /// A line on stderr every 50 tests.
    pub progress: bool,
}

impl Default for EquivOptions {
    fn default() -> Self {
        EquivOptions {
            steps: 3,
            timeout: Duration::from_secs(30),
            jobs: 2,
            stages: Vec::new(),
            budget: None,
            keep: None,
            progress: false,
        }
    }
}

impl EquivOptions {
    fn wants(&self, stage: Stage) -> bool {
        self.stages.is_empty() || self.stages.contains(&stage)
    }
}

/// The instrumented section text that replaces `sec` in the test.
fn section_text(
    ins: &glsl_instrument::Instrumented,
    model: &ShaderModel,
    runner_adds_version: bool,
) -> String {
    let src = if model.stage() == Stage::Fragment {
        pin_debug_outputs(
            ins.source.trim_start(),
            &[&ins.value, &ins.coverage],
            model.version(),
        )
    } else {
        ins.source.trim_start().to_string()
    };
    // shader_runner added the `#version` itself: the copy must not carry
    // one either (piglit looks for `#version ` up to the end of the file,
    // so it would change how the shaders before it compile).
    let mut body = if runner_adds_version {
        strip_version(&src)
    } else {
        src
    };
    if !body.ends_with('\n') {
        body.push('\n');
    }
    body.push('\n');
    body
}

/// `text` with each byte range replaced (ranges do not overlap).
fn swapped(text: &str, mut swaps: Vec<(std::ops::Range<usize>, String)>) -> String {
    swaps.sort_by_key(|(r, _)| r.start);
    let mut out = String::with_capacity(text.len() + 4096);
    let mut at = 0;
    for (r, new) in swaps {
        out.push_str(&text[at..r.start]);
        out.push_str(&new);
        at = r.end;
    }
    out.push_str(&text[at..]);
    out
}

/// Run the original test; if it passes, swap each shader section (one at a
/// time) for its instrumented version at `opts.steps` positions and run
/// each variant.
pub fn check_test(piglit: &Path, path: &Path, tmp: &Path, opts: &EquivOptions) -> TestOutcome {
    let Ok(text) = std::fs::read_to_string(path) else {
        return TestOutcome::Skipped("unreadable".into());
    };
    let t = ShaderTest::parse(&text);
    if t.expects_error {
        return TestOutcome::Skipped("expects a link error".into());
    }
    let sections: Vec<&Section> = t
        .sections
        .iter()
        .filter(|s| !s.passthrough && opts.wants(s.stage))
        .collect();
    if sections.is_empty() {
        return TestOutcome::Skipped("no GLSL shader section to swap".into());
    }
    let original = run_shader_runner(piglit, path, opts.timeout);
    if original.result != "pass" {
        return TestOutcome::Skipped(format!("original: {}", original.result));
    }
    let stem = path
        .file_stem()
        .unwrap_or_default()
        .to_string_lossy()
        .to_string();
    let mut out = Vec::new();
    for (k, sec) in sections.into_iter().enumerate() {
        let source = runner_source(&text, sec, t.require);
        let runner_adds_version = source.len() != sec.raw.len();
        let parsed = std::panic::catch_unwind(|| {
            ShaderModel::parse_with(&source, sec.stage, &t.includes, Api::Gl)
        });
        let model = match parsed {
            Ok(Ok(m)) => m,
            Ok(Err(e)) => {
                let why = if e.message == NO_MAIN || e.message == EMPTY_MAIN {
                    format!("nothing to step: {}", e.message)
                } else {
                    format!("front-end: {}", normalise(&e.message))
                };
                out.push(SectionOutcome {
                    stage: sec.stage,
                    line: sec.header_line,
                    variants: Err(why),
                });
                continue;
            }
            Err(p) => {
                out.push(SectionOutcome {
                    stage: sec.stage,
                    line: sec.header_line,
                    variants: Err(format!(
                        "front-end panic: {}",
                        normalise(&panic_message(&*p))
                    )),
                });
                continue;
            }
        };
        // The stage's other sections are shader objects of the same program
        // (functions `main` calls): the debug program compiles them as the
        // instrumenter rewrites them (a fragment one's gl_FragColor).
        let siblings: Vec<&Section> = t
            .sections
            .iter()
            .filter(|s| !s.passthrough && s.stage == sec.stage && s.body != sec.body)
            .collect();
        let mut model = model;
        model.set_siblings(
            siblings
                .iter()
                .map(|s| runner_source(&text, s, t.require))
                .collect(),
        );
        let path_walk = walk(&model, 200);
        let mut variants = Vec::new();
        let picks = crate::spread(path_walk.len(), opts.steps);
        let single = picks.len() == 1;
        for (n, i) in picks.into_iter().enumerate() {
            let pos = &path_walk[i];
            // A shader of one step gets the value probe (it writes the
            // coverage too).
            let expr = if n % 2 == 1 || single {
                scope_expr(&model, pos)
            } else {
                None
            };
            let p = probe(pos, expr.as_deref());
            let outcome = match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                model.instrument(&p)
            })) {
                Err(p) => Err(format!(
                    "instrument panic: {}",
                    normalise(&panic_message(&*p))
                )),
                Ok(Err(e)) => Err(format!("instrument error: {}", normalise(&e.to_string()))),
                Ok(Ok(ins)) => {
                    let mut swaps = vec![(
                        sec.body.clone(),
                        section_text(&ins, &model, runner_adds_version),
                    )];
                    if sec.stage == Stage::Fragment {
                        for (s, new) in siblings.iter().zip(&ins.siblings) {
                            let added = runner_source(&text, s, t.require).len() != s.raw.len();
                            let mut body = if added {
                                strip_version(new)
                            } else {
                                new.clone()
                            };
                            if !body.ends_with('\n') {
                                body.push('\n');
                            }
                            swaps.push((s.body.clone(), body));
                        }
                    }
                    let copy = swapped(&text, swaps);
                    let file = tmp.join(format!("{stem}-{k}-{n}.shader_test"));
                    if std::fs::write(&file, &copy).is_err() {
                        Err("cannot write the test copy".into())
                    } else {
                        let r = run_shader_runner(piglit, &file, opts.timeout);
                        let res = if r.result == "pass" {
                            Ok(())
                        } else {
                            if let Some(dir) = &opts.keep {
                                let _ = std::fs::copy(&file, dir.join(file.file_name().unwrap()));
                                let _ = std::fs::write(
                                    dir.join(format!("{stem}-{k}-{n}.log")),
                                    format!(
                                        "# {} section line {} step {} {}\n{}",
                                        path.display(),
                                        sec.header_line,
                                        pos.step.0,
                                        expr.as_deref().unwrap_or("(coverage)"),
                                        r.output
                                    ),
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
        out.push(SectionOutcome {
            stage: sec.stage,
            line: sec.header_line,
            variants: Ok(variants),
        });
    }
    TestOutcome::Ran(out)
}

/// The hand-written `.shader_test` files (under `tests/`, not
/// `generated_tests/`) with at least one GLSL shader section of `stages`
/// (any stage if empty; `[vertex shader passthrough]` does not count) and
/// not expecting a link error (their shaders may be invalid on purpose), sorted.
pub fn candidates(piglit: &Path, stages: &[Stage]) -> Vec<PathBuf> {
    crate::walk(&piglit.join("tests"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "shader_test"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|t| {
                let t = ShaderTest::parse(&t);
                !t.expects_error
                    && t.sections
                        .iter()
                        .any(|s| !s.passthrough && (stages.is_empty() || stages.contains(&s.stage)))
            })
        })
        .collect()
}

/// Per-stage figures of an equivalence run.
#[derive(Clone, Debug, Default)]
pub struct EquivStage {
    /// Sections of tests that ran.
    pub sections: usize,
    /// Of those, instrumented (the others: `section_skips`).
    pub swapped: usize,
    pub variants: usize,
    pub passed: usize,
    /// Tests that ran with at least one section of this stage.
    pub tests: usize,
}

/// Figures of an equivalence run.
#[derive(Debug, Default)]
pub struct EquivReport {
    /// Tests asked for.
    pub tests: usize,
    /// Tests not started because the time budget ran out.
    pub unchecked: usize,
    /// Test-level skips: why → count.
    pub skipped: BTreeMap<String, usize>,
    pub ran_tests: usize,
    pub by_stage: BTreeMap<&'static str, EquivStage>,
    /// Sections not instrumented: (stage, why) → count and examples.
    pub section_skips: BTreeMap<(&'static str, String), Cause>,
    /// (stage, cause) → count and examples "file:line step N expr".
    pub failures: BTreeMap<(&'static str, String), Cause>,
    /// Every failed variant: (stage, "file:section line", cause), in test order.
    pub failed: Vec<(&'static str, String, String)>,
    pub seconds: f64,
}

impl EquivReport {
    pub fn total(&self) -> EquivStage {
        let mut t = EquivStage::default();
        for f in self.by_stage.values() {
            t.sections += f.sections;
            t.swapped += f.swapped;
            t.variants += f.variants;
            t.passed += f.passed;
        }
        t.tests = self.ran_tests;
        t
    }
}

/// Check `tests` with `opts.jobs` (at most 2) worker threads.
pub fn run_equiv(piglit: &Path, tests: &[PathBuf], opts: &EquivOptions) -> EquivReport {
    let start = Instant::now();
    let tmp = std::env::temp_dir().join(format!("gldbg-equiv-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&tmp);
    if let Some(k) = &opts.keep {
        let _ = std::fs::create_dir_all(k);
    }
    // Interleaved order (every 16th test first, then the next residue...):
    // when the time budget cuts the run short, what was checked is still
    // spread evenly over the list.
    let mut order: Vec<usize> = (0..tests.len()).collect();
    order.sort_by_key(|&i| (i % 16, i));
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, TestOutcome)>> = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.clamp(1, 2) {
            s.spawn(|| {
                loop {
                    if opts.budget.is_some_and(|b| start.elapsed() >= b) {
                        break;
                    }
                    let i = {
                        let mut n = next.lock().unwrap();
                        let i = *n;
                        *n += 1;
                        i
                    };
                    let Some(&i) = order.get(i) else { break };
                    let path = &tests[i];
                    let o = check_test(piglit, path, &tmp, opts);
                    let mut res = results.lock().unwrap();
                    res.push((i, o));
                    if opts.progress && res.len().is_multiple_of(50) {
                        eprintln!(
                            "[{:.0} s] {} of {} tests checked",
                            start.elapsed().as_secs_f64(),
                            res.len(),
                            tests.len()
                        );
                    }
                }
            });
        }
    });
    let _ = std::fs::remove_dir_all(&tmp);
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|r| r.0);
    let mut r = EquivReport {
        tests: tests.len(),
        unchecked: tests.len() - results.len(),
        ..Default::default()
    };
    for s in crate::STAGES {
        if opts.wants(s) {
            r.by_stage.insert(s.name(), EquivStage::default());
        }
    }
    for (i, o) in results {
        match o {
            TestOutcome::Skipped(why) => *r.skipped.entry(normalise(&why)).or_default() += 1,
            TestOutcome::Ran(sections) => {
                r.ran_tests += 1;
                let mut seen = Vec::new();
                for sec in sections {
                    let stage = sec.stage.name();
                    let fig = r.by_stage.entry(stage).or_default();
                    if !seen.contains(&stage) {
                        seen.push(stage);
                        fig.tests += 1;
                    }
                    fig.sections += 1;
                    let at = format!("{}:{}", tests[i].display(), sec.line);
                    let variants = match sec.variants {
                        Ok(v) => v,
                        Err(why) => {
                            r.section_skips
                                .entry((stage, why))
                                .or_default()
                                .add(|| at.clone());
                            continue;
                        }
                    };
                    fig.swapped += 1;
                    for v in variants {
                        fig.variants += 1;
                        match v.outcome {
                            Ok(()) => fig.passed += 1,
                            Err(cause) => {
                                r.failed.push((stage, at.clone(), cause.clone()));
                                r.failures.entry((stage, cause)).or_default().add(|| {
                                    format!(
                                        "{at} step {} {}",
                                        v.step,
                                        v.expr.as_deref().unwrap_or("(coverage)")
                                    )
                                })
                            }
                        }
                    }
                }
            }
        }
    }
    r.seconds = start.elapsed().as_secs_f64();
    r
}
