//! CI slice of the piglit corpus, over all six stages:
//! * parse: every 50th unique shader must parse, or be named with its cause
//!   in `known-failures.txt`;
//! * compile: a few shaders of each stage, instrumented at a few steps
//!   (`Semantics::Equivalent`, coverage and value probes), must all compile
//!   on the driver;
//! * equivalence: a few hand-written `.shader_test` files per stage must
//!   still pass under shader_runner with that stage's shaders swapped for
//!   instrumented versions.
//!
//! Needs Debian's `piglit` package (GLDBG_PIGLIT_DIR overrides the place):
//! without it these tests fail, naming the package.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Once, OnceLock};
use std::time::Duration;

use gldbg_corpus::*;
use glsl_instrument::{ShaderModel, Stage};

/// Every `SLICE`-th unique shader (deterministic: sorted paths, first copy wins).
const SLICE: usize = 50;
/// Shaders per stage of the compile slice, and steps per shader.
const COMPILE_PER_STAGE: usize = 12;
const COMPILE_STEPS: usize = 6;
/// Tests per round and stage of the equivalence slice (evenly spread over
/// the tests with a shader of that stage), at most this many rounds, until
/// this many passed originally.
const EQUIV_PER_STAGE: usize = 6;
const EQUIV_ROUNDS: usize = 4;
const EQUIV_MIN_RAN: usize = 4;

fn piglit() -> PathBuf {
    let dir = piglit_dir();
    assert!(
        dir.join("tests").is_dir() && dir.join("bin/shader_runner").exists(),
        "piglit is not installed at {}: install the Debian package `piglit` \
         (apt-get install piglit; .ci/setup does), or set GLDBG_PIGLIT_DIR to a piglit \
         tree with tests/ and bin/shader_runner",
        dir.display()
    );
    dir
}

/// The corpus, read once for all tests of this binary.
fn corpus() -> &'static Corpus {
    static CORPUS: OnceLock<Corpus> = OnceLock::new();
    CORPUS.get_or_init(|| {
        let c = Corpus::load(&piglit());
        assert!(c.shaders.len() > 10_000, "only {} shaders", c.shaders.len());
        c
    })
}

/// Panics inside glsl-instrument are caught and counted as failures: keep
/// them quiet, but not this file's own assertion messages (the hook is
/// process-wide and the tests run in parallel).
fn quiet_library_panics() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info
                .location()
                .is_some_and(|l| l.file().ends_with("slice.rs"))
            {
                default(info);
            }
        }));
    });
}

/// `known-failures.txt`: `LOCATION<TAB>CAUSE` per line, `#` comments
/// (parse: the shader's location; equivalence: the test file and the
/// header line of the swapped section).
fn known() -> BTreeMap<String, String> {
    include_str!("../known-failures.txt")
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_once('\t'))
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn parse_slice() {
    let dir = piglit();
    let slice = corpus().every(SLICE, 0);
    quiet_library_panics();
    let report = run_parse(&slice);
    let known = known();
    let total = report.total();
    eprintln!(
        "parsed {} of {} shaders of the slice ({:.2}%), {} with nothing to step",
        total.ok,
        total.total,
        rate(&total),
        total.no_main
    );
    let prefix = format!("{}/", dir.display());
    let tmp = std::env::temp_dir().join(format!("gldbg-corpus-slice-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut unnamed = Vec::new();
    for f in report.failures() {
        let at = f
            .location
            .strip_prefix(&prefix)
            .unwrap_or(&f.location)
            .to_string();
        let cause = normalise(&f.message);
        // Mesa is the oracle: a shader it rejects too (or a test it skips,
        // e.g. one requiring an extension to be absent) is not ours.
        let mesa = driver_compiles(&dir, slice[f.shader], &tmp);
        match known.get(&at) {
            _ if mesa == Some(false) => eprintln!("Mesa rejects or skips it too: {at}: {cause}"),
            Some(c) if *c == cause => eprintln!("known failure: {at}: {cause}"),
            _ => unnamed.push(format!("{at}\t{cause}\t(Mesa compiles it: {mesa:?})")),
        }
        assert!(!f.message.starts_with("panic"), "{at}: {}", f.message);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert!(
        unnamed.is_empty(),
        "failures not named in tests/corpus/known-failures.txt (add them with their cause, or fix them):\n{}",
        unnamed.join("\n")
    );
}

#[test]
fn compile_slice() {
    let _ = piglit();
    let shaders = corpus().per_stage(COMPILE_PER_STAGE, 0);
    let driver = driver::Driver::new().expect("headless EGL context on Mesa");
    quiet_library_panics();
    let opts = CompileOptions {
        max_steps: COMPILE_STEPS,
        expr_every: 2,
        ..CompileOptions::default()
    };
    let r = run_compile(&driver, &shaders, &opts);
    eprintln!("{r:#?}");
    for stage in STAGES {
        let f = &r.by_stage[stage.name()];
        // Every stage must really be exercised: shaders the driver compiles,
        // probes with and without a value expression.
        assert!(
            f.counted >= COMPILE_PER_STAGE / 2 && f.value_probes > 0 && f.probes > f.value_probes,
            "{}: too little of the stage exercised: {f:?}",
            stage.name()
        );
        assert_eq!(f.unsupported, 0, "{}: unsupported: {f:?}", stage.name());
    }
    let t = r.total();
    assert!(
        r.failures.is_empty() && t.shaders_ok == t.counted && t.compiled == t.probes,
        "instrumented shaders the driver does not compile (or not instrumented):\n{:#?}",
        r.failures
    );
}

#[test]
fn equivalence_slice() {
    let dir = piglit();
    quiet_library_panics();
    let known = known();
    let prefix = format!("{}/", dir.display());
    let mut problems = Vec::new();
    for stage in STAGES {
        let all = equiv::candidates(&dir, &[stage]);
        // Evenly spread picks, tried in rounds of EQUIV_PER_STAGE until
        // EQUIV_MIN_RAN of them passed originally (many need what llvmpipe lacks).
        let picks = spread(all.len(), EQUIV_PER_STAGE * EQUIV_ROUNDS);
        let (mut ran, mut variants, mut passed, mut checked) = (0, 0, 0, 0);
        let mut skipped: BTreeMap<String, usize> = BTreeMap::new();
        for round in 0..EQUIV_ROUNDS {
            if ran >= EQUIV_MIN_RAN {
                break;
            }
            let tests: Vec<PathBuf> = picks
                .iter()
                .enumerate()
                .filter(|(j, _)| j % EQUIV_ROUNDS == round)
                .map(|(_, &i)| all[i].clone())
                .collect();
            let opts = equiv::EquivOptions {
                steps: 2,
                timeout: Duration::from_secs(60),
                jobs: 2,
                stages: vec![stage],
                ..Default::default()
            };
            let r = equiv::run_equiv(&dir, &tests, &opts);
            let f = r.by_stage.get(stage.name()).cloned().unwrap_or_default();
            checked += tests.len();
            ran += r.ran_tests;
            variants += f.variants;
            passed += f.passed;
            for (why, n) in &r.skipped {
                *skipped.entry(why.clone()).or_default() += n;
            }
            for (s, at, cause) in &r.failed {
                let at = at.strip_prefix(&prefix).unwrap_or(at);
                if known.get(at) == Some(cause) {
                    eprintln!("known failure: [{s}] {at}: {cause}");
                } else {
                    problems.push(format!("[{s}] {at}\t{cause}"));
                }
            }
            for ((s, why), c) in &r.section_skips {
                if !why.starts_with("nothing to step") {
                    problems.push(format!("[{s}] not instrumented: {why}: {:?}", c.examples));
                }
            }
        }
        eprintln!(
            "{}: {} candidates, {checked} checked, {ran} ran (skipped: {skipped:?}), {variants} variants, {passed} pass",
            stage.name(),
            all.len(),
        );
        if ran < EQUIV_MIN_RAN.min(all.len()) || variants == 0 {
            problems.push(format!(
                "{}: too few tests ran ({ran} of {checked} checked) or no variant",
                stage.name()
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "instrumented shaders changed a test's result (fix them, or name them in \
         tests/corpus/known-failures.txt as LOCATION<TAB>CAUSE):\n{}",
        problems.join("\n")
    );
}

/// The outputs a `print` of a shader of `stage` may name: the built-ins its
/// source uses and its user `out`s (read from the declarations' text).
fn output_names(source: &str, stage: Stage) -> Vec<String> {
    let builtins: &[&str] = match stage {
        Stage::Fragment => &["gl_FragColor", "gl_FragData[0]", "gl_FragDepth"],
        Stage::Vertex | Stage::TessEval | Stage::Geometry => &["gl_Position", "gl_PointSize"],
        _ => &[],
    };
    let mut names: Vec<String> = builtins
        .iter()
        .filter(|b| source.contains(b.split('[').next().unwrap_or(b)))
        .map(|b| b.to_string())
        .collect();
    for line in source.lines() {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || c == ';' || c == '[' || c == ')')
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(i) = words.iter().position(|w| *w == "out")
            && words.len() == i + 3
            && line.trim_end().ends_with(';')
            && !line.contains('{')
            && !line.contains('(')
        {
            names.push(words[i + 2].to_string());
        }
    }
    names
}

/// The written probe (is an output written yet?) of every output a shader
/// of the slice prints, at its first step and at the end of `main`,
/// compiles wherever the shader itself compiles.
#[test]
fn written_probes_compile() {
    let _ = piglit();
    let shaders = corpus().per_stage(COMPILE_PER_STAGE * 2, 0);
    let driver = driver::Driver::new().expect("headless EGL context on Mesa");
    quiet_library_panics();
    let (mut compiled, mut failures) = (0, Vec::new());
    for sh in shaders {
        if driver.compile(sh.stage.gl_enum(), &sh.source).is_err() {
            continue;
        }
        let Ok(Ok(m)) = std::panic::catch_unwind(|| ShaderModel::parse(&sh.source, sh.stage))
        else {
            continue;
        };
        let entry = m.entry();
        for name in output_names(&sh.source, sh.stage) {
            for at_end in [false, true] {
                let p = probe(&entry, Some(&name));
                let Ok(Ok(Some(inst))) =
                    std::panic::catch_unwind(|| m.instrument_written(&p, at_end))
                else {
                    continue;
                };
                match driver.compile(sh.stage.gl_enum(), &inst.source) {
                    Ok(()) => compiled += 1,
                    Err(e) => failures.push(format!("{} `{name}`: {e}", sh.location())),
                }
            }
        }
    }
    eprintln!("{compiled} written probes compiled");
    assert!(
        compiled >= 20,
        "too few written probes exercised: {compiled}"
    );
    assert!(failures.is_empty(), "{failures:#?}");
}
