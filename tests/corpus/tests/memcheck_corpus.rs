//! No false positives of memcheck (issue 17) on piglit's compute shaders:
//! every `.shader_test` under piglit's `tests/` with a `[compute shader]`
//! section (and not expecting a link error) that passes natively under
//! shader_runner (`-auto -fbo`, headless EGL) must still pass under
//! `gldbg run --memcheck --batch --json -x <continue> -- shader_runner ...`
//! and gldbg must report no finding (`"event":"memcheck"` line) on it.
//! Prints the list and the counts: total, passing natively, checked, passed
//! under memcheck, findings, failures by name.
//!
//! Gated, as it takes minutes: it runs only with `GLDBG_MEMCHECK_CORPUS=1`
//! (else it says how and returns). `GLDBG_MEMCHECK_CORPUS_LIMIT=N` checks N
//! tests spread evenly over the list; `GLDBG_MEMCHECK_CORPUS_GENERATED=1`
//! adds piglit's `generated_tests/` (about 1,700 more, built-in function
//! tests). Needs Debian's `piglit` package (or `$GLDBG_PIGLIT_DIR`) and
//! `cargo build --workspace` first (the `gldbg` binary beside this test's
//! `target/<profile>/`, as the integration tests find it, or `$GLDBG`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use gldbg_corpus::equiv::run_shader_runner;
use gldbg_corpus::{ShaderTest, piglit_dir, walk};
use glsl_instrument::Stage;

/// Per shader_runner run, native or under gldbg.
/// Natively passing tests with a real memory bug the GL's rules make
/// harmless: each must report exactly this finding (the JSON fragments of
/// its kind, line and count) and nothing else.
struct TrueFinding {
    test: &'static str,
    kind: &'static str,
    line: &'static str,
    count: &'static str,
    why: &'static str,
}

const TRUE_FINDINGS: &[TrueFinding] = &[TrueFinding {
    test: "arb_compute_shader/execution/min-dvec4-double-large-group-size.shader_test",
    kind: "\"kind\":\"out-of-bounds\"",
    line: "\"line\":15,",
    count: "\"count\":1020,",
    why: "1024 invocations imageStore at their global id into a 4x1 image: 1020 stores \
          outside it, which the GL discards (the test probes only the 4 texels)",
}];

const TIMEOUT: Duration = Duration::from_secs(180);

/// `$GLDBG`, else `target/<profile>/gldbg` (this test runs from
/// `target/<profile>/deps/`), as `gldbg_tests::gldbg()` finds it.
fn gldbg() -> PathBuf {
    if let Some(p) = std::env::var_os("GLDBG") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("current_exe");
    let mut dir = exe.parent().expect("test executable has a directory");
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir = dir.parent().unwrap();
    }
    let path = dir.join("gldbg");
    assert!(
        path.exists(),
        "{} is missing: run `cargo build --workspace` first (or set GLDBG)",
        path.display()
    );
    path
}

/// The `.shader_test` files under `dirs` of `piglit` with a `[compute
/// shader]` section that do not expect a link or compile error, sorted.
fn compute_tests(piglit: &Path, dirs: &[&str]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = dirs
        .iter()
        .flat_map(|d| walk(&piglit.join(d)))
        .filter(|p| p.extension().is_some_and(|e| e == "shader_test"))
        .filter(|p| {
            std::fs::read_to_string(p).is_ok_and(|text| {
                let t = ShaderTest::parse(&text);
                !t.expects_error && t.sections.iter().any(|s| s.stage == Stage::Compute)
            })
        })
        .collect();
    out.sort();
    out
}

/// `n` of `list` spread evenly (all if `n` >= its length).
fn spread(list: Vec<PathBuf>, n: usize) -> Vec<PathBuf> {
    if n == 0 || n >= list.len() {
        return list;
    }
    let len = list.len();
    (0..n).map(|i| list[i * len / n].clone()).collect()
}

/// piglit's result word in `text` (`"result": "pass"`), if any.
fn piglit_result(text: &str) -> Option<String> {
    let i = text.rfind("\"result\": \"")?;
    Some(
        text[i + 11..]
            .chars()
            .take_while(|c| c.is_ascii_alphabetic())
            .collect(),
    )
}

/// What a checked run gave.
struct Checked {
    /// piglit's result ("none" if it printed none).
    result: String,
    /// The `"event":"memcheck"` lines.
    findings: Vec<String>,
    /// gldbg's output, for failures.
    output: String,
}

/// shader_runner on `test` under `gldbg run --memcheck --batch --json`.
fn checked_run(gldbg: &Path, piglit: &Path, test: &Path, script: &Path) -> Checked {
    let out = Command::new("timeout")
        .args(["-k", "5", &TIMEOUT.as_secs().to_string()])
        .arg(gldbg)
        .args(["run", "--memcheck", "--batch", "--json", "-x"])
        .arg(script)
        .arg("--")
        .arg(piglit.join("bin/shader_runner"))
        .arg(test)
        .args(["-auto", "-fbo"])
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .output();
    let out = match out {
        Ok(o) => o,
        Err(e) => {
            return Checked {
                result: "none".into(),
                findings: Vec::new(),
                output: format!("cannot run gldbg: {e}"),
            };
        }
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The app's output: as `output` events with --json, or as plain lines.
    let mut app = String::new();
    let mut findings = Vec::new();
    for line in stdout.lines().chain(stderr.lines()) {
        if line.contains("\"event\":\"memcheck\"") {
            findings.push(line.to_string());
        } else if line.contains("\"event\":\"output\"") {
            let v: serde_json::Value = serde_json::from_str(line).unwrap_or_default();
            app += v["text"].as_str().unwrap_or_default();
        } else if !line.starts_with('{') {
            app += line;
            app.push('\n');
        }
    }
    let result = piglit_result(&app).unwrap_or_else(|| match out.status.code() {
        Some(124) | Some(137) => "timeout".into(),
        _ => "none".into(),
    });
    Checked {
        result,
        findings,
        output: format!("{stdout}{stderr}"),
    }
}

#[test]
fn piglit_compute_tests_pass_under_memcheck_without_findings() {
    if std::env::var_os("GLDBG_MEMCHECK_CORPUS").is_none_or(|v| v != "1") {
        eprintln!(
            "memcheck corpus: skipped (minutes long). Run it with\n  \
             cargo build --workspace && GLDBG_MEMCHECK_CORPUS=1 \
             [GLDBG_MEMCHECK_CORPUS_LIMIT=N] [GLDBG_MEMCHECK_CORPUS_GENERATED=1] \
             cargo test -p gldbg-corpus --test memcheck_corpus -- --nocapture"
        );
        return;
    }
    let piglit = piglit_dir();
    assert!(
        piglit.join("bin/shader_runner").exists(),
        "piglit is not installed at {}: install the Debian package `piglit`",
        piglit.display()
    );
    let gldbg = gldbg();
    let mut dirs = vec!["tests"];
    if std::env::var_os("GLDBG_MEMCHECK_CORPUS_GENERATED").is_some_and(|v| v == "1") {
        dirs.push("generated_tests");
    }
    let all = compute_tests(&piglit, &dirs);
    let total = all.len();
    let limit: usize = std::env::var("GLDBG_MEMCHECK_CORPUS_LIMIT")
        .ok()
        .map(|v| v.parse().expect("GLDBG_MEMCHECK_CORPUS_LIMIT: a number"))
        .unwrap_or(0);
    let tests = spread(all, limit);
    let start = Instant::now();

    // Natively: keep those that pass.
    let mut native = Vec::new();
    for t in &tests {
        let r = run_shader_runner(&piglit, t, TIMEOUT);
        eprintln!("native  {:<5} {}", r.result, t.display());
        if r.result == "pass" {
            native.push(t.clone());
        }
    }
    assert!(
        !native.is_empty(),
        "none of the {} compute tests passes natively: is shader_runner working?",
        tests.len()
    );

    let dir = std::env::temp_dir().join(format!("gldbg-memcheck-corpus-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("continue.gldbg");
    std::fs::write(&script, "continue\n").unwrap();
    let (mut passed, mut findings, mut failures) = (0, 0, Vec::new());
    let mut true_findings = 0;
    for (i, t) in native.iter().enumerate() {
        let c = checked_run(&gldbg, &piglit, t, &script);
        if i == 0 && c.output.contains("no such program: --memcheck") {
            panic!(
                "this gldbg has no `run --memcheck` (issue 17): build one that has it\n{}",
                c.output
            );
        }
        let name = t.strip_prefix(&piglit).unwrap_or(t).display().to_string();
        eprintln!(
            "memcheck {:<5} findings {} {name}",
            c.result,
            c.findings.len()
        );
        if c.result == "pass" {
            passed += 1;
        }
        findings += c.findings.len();
        let known = TRUE_FINDINGS.iter().find(|k| name.ends_with(k.test));
        if let Some(k) = known {
            // A real bug the test survives by the GL's rules: reported exactly.
            let ok = c.findings.len() == 1
                && [k.kind, k.line, k.count]
                    .iter()
                    .all(|part| c.findings[0].contains(part));
            if c.result == "pass" && ok {
                eprintln!("         (a real bug, reported exactly: {})", k.why);
                true_findings += 1;
                continue;
            }
        }
        if c.result != "pass" || !c.findings.is_empty() {
            let mut why = format!("{name}: {}", c.result);
            for f in &c.findings {
                why += &format!("\n    {f}");
            }
            if c.result != "pass" {
                let tail: Vec<&str> = c.output.lines().rev().take(15).collect();
                for l in tail.into_iter().rev() {
                    why += &format!("\n    | {l}");
                }
            }
            failures.push(why);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "memcheck corpus ({}): {total} compute tests, {} run ({}), {} pass natively, {} checked, \
         {passed} pass under memcheck, {findings} findings ({true_findings} of them known real \
         bugs, reported exactly), {} failures, {:.0} s",
        dirs.join(" + "),
        tests.len(),
        if limit > 0 {
            format!("limit {limit}")
        } else {
            "all".to_string()
        },
        native.len(),
        native.len(),
        failures.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(
        failures.is_empty(),
        "{} of {} natively passing compute tests fail under memcheck or report findings:\n{}",
        failures.len(),
        native.len(),
        failures.join("\n")
    );
}

/// A few piglit compute tests, always (CI): int64 uniforms (a checked
/// dispatch must get the app's values), shared atomics and barriers, the
/// one natively passing test with a real out-of-bounds store (reported
/// exactly), each passing under memcheck as natively.
#[test]
fn selected_piglit_tests_under_memcheck() {
    let piglit = piglit_dir();
    if !piglit.join("bin/shader_runner").exists() {
        eprintln!("no piglit at {}: skipped", piglit.display());
        return;
    }
    let gldbg = gldbg();
    if !gldbg.exists() {
        eprintln!("no gldbg at {}: build the workspace first", gldbg.display());
        return;
    }
    let dir = std::env::temp_dir().join(format!("gldbg-memcheck-sel-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("continue.gldbg");
    std::fs::write(&script, "continue\n").unwrap();
    let tests = [
        "generated_tests/spec/arb_gpu_shader_int64/execution/built-in-functions/cs-op-gt-int64_t-int64_t.shader_test",
        "tests/spec/arb_compute_shader/execution/shared-atomics.shader_test",
        "tests/spec/arb_compute_shader/execution/simple-barrier.shader_test",
        "tests/spec/arb_compute_shader/execution/min-dvec4-double-large-group-size.shader_test",
    ];
    for t in tests {
        let path = piglit.join(t);
        if !path.exists() {
            eprintln!("{t}: not in this piglit, skipped");
            continue;
        }
        if run_shader_runner(&piglit, &path, TIMEOUT).result != "pass" {
            eprintln!("{t}: does not pass natively here, skipped");
            continue;
        }
        let c = checked_run(&gldbg, &piglit, &path, &script);
        assert_eq!(c.result, "pass", "{t} under memcheck:\n{}", c.output);
        match TRUE_FINDINGS.iter().find(|k| t.ends_with(k.test)) {
            Some(k) => {
                assert_eq!(c.findings.len(), 1, "{t}: {:#?}", c.findings);
                for part in [k.kind, k.line, k.count] {
                    assert!(
                        c.findings[0].contains(part),
                        "{t}: {part} in {}",
                        c.findings[0]
                    );
                }
            }
            None => assert!(c.findings.is_empty(), "{t}: {:#?}", c.findings),
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
