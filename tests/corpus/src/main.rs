//! `gldbg-corpus`: glsl-instrument over piglit's shaders.
//!
//! ```text
//! gldbg-corpus parse [--every N] [--offset K] [--driver-check] [--json] [--write-failures DIR]
//! gldbg-corpus equiv [--limit N] [--every N] [--offset K] [--steps K] [--stage S[,S..]]
//!                    [--timeout S] [--budget S] [--jobs 1|2] [--json] [--keep DIR]
//! gldbg-corpus bench [--every N] [--max-steps K] [--json]
//! gldbg-corpus compile [--per-stage N | --every N] [--offset K] [--max-steps K] [--expr-every K]
//!                      [--json] [--keep DIR]
//! gldbg-corpus seeds DIR [--every N] [--offset K]
//! ```
//! `$GLDBG_PIGLIT_DIR` overrides the piglit directory (default: Debian's).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use gldbg_corpus::*;
use serde_json::json;

struct Args {
    rest: Vec<String>,
}

impl Args {
    fn flag(&mut self, name: &str) -> bool {
        match self.rest.iter().position(|a| a == name) {
            Some(i) => {
                self.rest.remove(i);
                true
            }
            None => false,
        }
    }
    fn value(&mut self, name: &str) -> Option<String> {
        let i = self.rest.iter().position(|a| a == name)?;
        self.rest.remove(i);
        (i < self.rest.len()).then(|| self.rest.remove(i))
    }
    fn num(&mut self, name: &str, default: usize) -> Result<usize, String> {
        match self.value(name) {
            Some(v) => v.parse().map_err(|_| format!("{name}: not a number: {v}")),
            None => Ok(default),
        }
    }
    fn done(&self) -> Result<(), String> {
        match self.rest.first() {
            Some(a) => Err(format!("unknown argument: {a}")),
            None => Ok(()),
        }
    }
}

const USAGE: &str = "usage: gldbg-corpus parse [--every N] [--offset K] [--driver-check] [--json] [--write-failures DIR]
       gldbg-corpus equiv [--limit N] [--every N] [--offset K] [--steps K] [--stage S[,S..]]
                          [--timeout S] [--budget S] [--jobs 1|2] [--json] [--keep DIR]
       gldbg-corpus bench [--every N] [--offset K] [--max-steps K] [--json]
       gldbg-corpus compile [--per-stage N | --every N] [--offset K] [--max-steps K] [--expr-every K]
                            [--json] [--keep DIR]
       gldbg-corpus seeds DIR [--every N] [--offset K]   (fuzz inputs: stage byte + source)";

fn main() -> ExitCode {
    let mut argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.is_empty() || argv[0] == "--help" || argv[0] == "-h" {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let cmd = argv.remove(0);
    let mut args = Args { rest: argv };
    let r = match cmd.as_str() {
        "parse" => parse(&mut args),
        "equiv" => equiv_cmd(&mut args),
        "bench" => bench(&mut args),
        "seeds" => seeds(&mut args),
        "compile" => compile(&mut args),
        _ => Err(format!("unknown command `{cmd}`\n{USAGE}")),
    };
    match r {
        Ok(code) => code,
        Err(e) => {
            eprintln!("gldbg-corpus: {e}");
            ExitCode::from(2)
        }
    }
}

fn load() -> Result<Corpus, String> {
    let dir = piglit_dir();
    if !dir.is_dir() {
        return Err(format!(
            "no piglit at {} (install Debian's `piglit` or set GLDBG_PIGLIT_DIR)",
            dir.display()
        ));
    }
    Ok(Corpus::load(&dir))
}

fn parse(args: &mut Args) -> Result<ExitCode, String> {
    let every = args.num("--every", 1)?;
    let offset = args.num("--offset", 0)?;
    let as_json = args.flag("--json");
    let driver_check = args.flag("--driver-check");
    let write = args.value("--write-failures").map(PathBuf::from);
    args.done()?;
    let corpus = load()?;
    let shaders = corpus.every(every, offset);
    quiet_panics();
    let report = run_parse(&shaders);

    // Which failures does Mesa compile? Those it rejects are not counted.
    let mut driver: BTreeMap<usize, Option<bool>> = BTreeMap::new();
    if driver_check {
        let tmp = std::env::temp_dir().join(format!("gldbg-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
        for f in report.failures() {
            let s = shaders[f.shader];
            driver.insert(f.shader, driver_compiles(&piglit_dir(), s, &tmp));
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
    let rejected = |i: usize| driver.get(&i) == Some(&Some(false));
    if let Some(dir) = &write {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        for (n, f) in report.failures().enumerate() {
            let s = shaders[f.shader];
            let name = format!("{n:05}-{}.glsl", s.stage.name());
            let text = format!(
                "// {}\n// {}:{}: {}\n{}",
                f.location, f.line, f.column, f.message, s.source
            );
            std::fs::write(dir.join(name), text).map_err(|e| e.to_string())?;
        }
    }

    // Figures that leave out what the driver rejects.
    let mut by_stage = report.by_stage.clone();
    let mut excluded = 0;
    for f in report.failures() {
        if rejected(f.shader) {
            excluded += 1;
            let fig = by_stage.get_mut(f.stage.name()).unwrap();
            fig.total -= 1;
        }
    }
    let total = report.total();
    let counted_total: usize = by_stage.values().map(|f| f.total).sum();
    let counted_ok: usize = by_stage.values().map(|f| f.ok).sum();

    if as_json {
        let stages: serde_json::Map<String, serde_json::Value> = by_stage
            .iter()
            .map(|(k, f)| {
                (
                    k.to_string(),
                    json!({"total": f.total, "ok": f.ok, "rate": rate(f), "no_main": f.no_main, "steps": f.steps}),
                )
            })
            .collect();
        let origins: serde_json::Map<String, serde_json::Value> = report
            .by_origin
            .iter()
            .map(|(k, f)| {
                (
                    k.to_string(),
                    json!({"total": f.total, "ok": f.ok, "rate": rate(f)}),
                )
            })
            .collect();
        let causes: Vec<serde_json::Value> = report
            .sorted_causes()
            .iter()
            .map(|(c, fs)| {
                let mesa_rejects = fs.iter().filter(|f| rejected(f.shader)).count();
                json!({
                    "cause": c,
                    "count": fs.len(),
                    "driver_rejects": if driver_check { json!(mesa_rejects) } else { json!(null) },
                    "example": format!("{} ({}:{})", fs[0].location, fs[0].line, fs[0].column),
                    "shaders": fs.iter().map(|f| json!({
                        "at": f.location, "stage": f.stage.name(), "line": f.line,
                        "column": f.column, "message": f.message,
                        "driver_compiles": driver.get(&f.shader).copied().flatten(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        let v = json!({
            "piglit": piglit_dir(),
            "every": every, "offset": offset,
            "shader_test_files": corpus.shader_test_files,
            "shader_test_sections": corpus.sections,
            "expect_link_error_files": corpus.expect_error_files,
            "expect_link_error_sections": corpus.expect_error_shaders,
            "glslparsertest_files": corpus.parser_test_files,
            "glslparsertest_expect_fail": corpus.parser_test_expect_fail,
            "unique_shaders": corpus.shaders.len(),
            "parsed": shaders.len(),
            "ok": total.ok,
            "rate": rate(&total),
            "driver_check": driver_check,
            "driver_rejects_excluded": excluded,
            "counted_total": counted_total,
            "counted_rate": if counted_total == 0 { 100.0 } else { 100.0 * counted_ok as f64 / counted_total as f64 },
            "by_stage": stages,
            "by_origin": origins,
            "causes": causes,
            "no_main": total.no_main,
            "no_main_examples": report.no_main_examples,
            "seconds": report.seconds,
            "bytes": report.bytes,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        println!(
            "piglit {}: {} .shader_test files ({} sections; {} files expecting a link error left out, {} sections), {} glslparsertest files ({} expect_result: fail left out); {} unique shaders",
            piglit_dir().display(),
            corpus.shader_test_files,
            corpus.sections,
            corpus.expect_error_files,
            corpus.expect_error_shaders,
            corpus.parser_test_files,
            corpus.parser_test_expect_fail,
            corpus.shaders.len()
        );
        println!(
            "parsed {} shaders (every {every}, offset {offset}) in {:.1} s ({:.0} µs/KB)",
            shaders.len(),
            report.seconds,
            report.seconds * 1e6 / (report.bytes as f64 / 1024.0).max(1e-9)
        );
        println!(
            "{:<14} {:>7} {:>7} {:>8} {:>8} {:>8}",
            "stage", "total", "ok", "rate", "no-main", "steps"
        );
        for (k, f) in by_stage.iter().chain(&report.by_origin) {
            println!(
                "{:<14} {:>7} {:>7} {:>7.2}% {:>8} {:>8}",
                k,
                f.total,
                f.ok,
                rate(f),
                f.no_main,
                f.steps
            );
        }
        println!(
            "{:<14} {:>7} {:>7} {:>7.2}%",
            "all",
            counted_total,
            counted_ok,
            if counted_total == 0 {
                100.0
            } else {
                100.0 * counted_ok as f64 / counted_total as f64
            }
        );
        if driver_check {
            println!(
                "({excluded} failing shaders that Mesa rejects too are left out of the figures above)"
            );
        }
        println!(
            "(ok includes {} shaders that parse but have nothing to step: {})",
            total.no_main,
            report
                .no_main_examples
                .iter()
                .map(|(m, at)| format!("{m}, e.g. {at}"))
                .collect::<Vec<_>>()
                .join("; ")
        );
        println!("failures by cause ({}):", total.total - total.ok);
        for (c, fs) in report.sorted_causes() {
            let mesa = if driver_check {
                format!(
                    " [Mesa rejects {}]",
                    fs.iter().filter(|f| rejected(f.shader)).count()
                )
            } else {
                String::new()
            };
            println!(
                "{:>6}  {c}{mesa}\n        e.g. {} ({}:{})",
                fs.len(),
                fs[0].location,
                fs[0].line,
                fs[0].column
            );
        }
    }
    Ok(if counted_ok == counted_total {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn stages_arg(args: &mut Args) -> Result<Vec<glsl_instrument::Stage>, String> {
    let mut v = Vec::new();
    while let Some(name) = args.value("--stage") {
        for n in name.split(',') {
            v.push(
                glsl_instrument::Stage::from_name(n)
                    .ok_or_else(|| format!("--stage: unknown stage `{n}`"))?,
            );
        }
    }
    Ok(v)
}

fn causes_json(m: &BTreeMap<(&'static str, String), Cause>) -> Vec<serde_json::Value> {
    m.iter()
        .map(|((stage, c), e)| json!({"stage": stage, "cause": c, "count": e.count, "examples": e.examples}))
        .collect()
}

fn print_causes(m: &BTreeMap<(&'static str, String), Cause>) {
    let mut v: Vec<_> = m.iter().collect();
    v.sort_by(|a, b| b.1.count.cmp(&a.1.count).then(a.0.cmp(b.0)));
    for ((stage, c), e) in v {
        println!("{:>6}  [{stage}] {c}", e.count);
        for ex in &e.examples {
            println!("          e.g. {ex}");
        }
    }
}

fn equiv_cmd(args: &mut Args) -> Result<ExitCode, String> {
    let limit = args.num("--limit", usize::MAX)?;
    let every = args.num("--every", 1)?;
    let offset = args.num("--offset", 0)?;
    let steps = args.num("--steps", 3)?;
    let timeout = args.num("--timeout", 30)?;
    let jobs = args.num("--jobs", 2)?;
    let budget = args.value("--budget");
    let stages = stages_arg(args)?;
    let as_json = args.flag("--json");
    let keep = args.value("--keep").map(PathBuf::from);
    args.done()?;
    if jobs > 2 {
        return Err("--jobs: at most 2 (this machine has 2 cores)".into());
    }
    let budget = match budget {
        Some(b) => {
            Some(std::time::Duration::from_secs(b.parse().map_err(|_| {
                format!("--budget: not a number of seconds: {b}")
            })?))
        }
        None => None,
    };
    let piglit = piglit_dir();
    if !piglit.join("bin/shader_runner").exists() {
        return Err(format!(
            "no shader_runner in {}/bin (install Debian's `piglit` or set GLDBG_PIGLIT_DIR)",
            piglit.display()
        ));
    }
    let all = equiv::candidates(&piglit, &stages);
    let tests: Vec<PathBuf> = all
        .iter()
        .skip(offset)
        .step_by(every.max(1))
        .take(limit)
        .cloned()
        .collect();
    quiet_panics();
    let opts = equiv::EquivOptions {
        steps,
        timeout: std::time::Duration::from_secs(timeout as u64),
        jobs,
        stages: stages.clone(),
        budget,
        keep,
        progress: true,
    };
    let r = equiv::run_equiv(&piglit, &tests, &opts);
    let t = r.total();
    let failed = t.variants - t.passed;
    if as_json {
        let by_stage: serde_json::Map<String, serde_json::Value> = r
            .by_stage
            .iter()
            .map(|(k, f)| {
                (
                    k.to_string(),
                    json!({"tests": f.tests, "sections": f.sections, "swapped": f.swapped,
                           "variants": f.variants, "passed": f.passed,
                           "rate": percent(f.passed, f.variants)}),
                )
            })
            .collect();
        let v = json!({
            "candidates": all.len(), "every": every, "offset": offset, "tests": r.tests,
            "unchecked_by_budget": r.unchecked, "steps_per_shader": steps,
            "skipped": r.skipped, "ran_tests": r.ran_tests,
            "variants": t.variants, "passed": t.passed, "rate": percent(t.passed, t.variants),
            "by_stage": by_stage,
            "sections_not_instrumented": causes_json(&r.section_skips),
            "failures": causes_json(&r.failures),
            "seconds": r.seconds,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        println!(
            "{} candidate tests (hand-written .shader_test with a GLSL shader{}); {} taken (every {every}, offset {offset}, limit {}), {} not started (budget); {:.0} s, {} jobs",
            all.len(),
            if stages.is_empty() {
                String::new()
            } else {
                format!(
                    " of {}",
                    stages
                        .iter()
                        .map(|s| s.name())
                        .collect::<Vec<_>>()
                        .join(",")
                )
            },
            r.tests,
            if limit == usize::MAX {
                "none".to_string()
            } else {
                limit.to_string()
            },
            r.unchecked,
            r.seconds,
            jobs.max(1)
        );
        println!("tests skipped:");
        for (why, n) in &r.skipped {
            println!("{n:>6}  {why}");
        }
        println!(
            "ran {} tests; each shader swapped at up to {steps} steps (value expression at every 2nd)",
            r.ran_tests
        );
        println!(
            "{:<14} {:>6} {:>9} {:>8} {:>9} {:>7} {:>8}",
            "stage", "tests", "sections", "swapped", "variants", "pass", "rate"
        );
        for (k, f) in STAGES
            .iter()
            .filter_map(|s| r.by_stage.get_key_value(s.name()))
        {
            println!(
                "{:<14} {:>6} {:>9} {:>8} {:>9} {:>7} {:>7.2}%",
                k,
                f.tests,
                f.sections,
                f.swapped,
                f.variants,
                f.passed,
                percent(f.passed, f.variants)
            );
        }
        println!(
            "{:<14} {:>6} {:>9} {:>8} {:>9} {:>7} {:>7.2}%",
            "all",
            t.tests,
            t.sections,
            t.swapped,
            t.variants,
            t.passed,
            percent(t.passed, t.variants)
        );
        println!("sections not instrumented (by cause):");
        print_causes(&r.section_skips);
        println!("variants that do not pass ({failed}), by cause:");
        print_causes(&r.failures);
    }
    let front_end = r
        .section_skips
        .keys()
        .any(|(_, why)| !why.starts_with("nothing to step"));
    Ok(if failed == 0 && !front_end {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn bench(args: &mut Args) -> Result<ExitCode, String> {
    let every = args.num("--every", 10)?;
    let offset = args.num("--offset", 0)?;
    let max_steps = args.num("--max-steps", 50)?;
    let as_json = args.flag("--json");
    args.done()?;
    let corpus = load()?;
    let shaders = corpus.every(every, offset);
    quiet_panics();
    let b = run_bench(&shaders, max_steps);
    let ms = |d: f64| d * 1e3;
    if as_json {
        let v = json!({
            "shaders": shaders.len(), "every": every, "offset": offset, "max_steps": max_steps,
            "parse_us_per_kb": b.parse_us_per_kb, "parse_kb": b.bytes as f64 / 1024.0,
            "instrument_samples": b.samples.len(),
            "instrument_median_ms": ms(b.quantile(0.5)), "instrument_p99_ms": ms(b.quantile(0.99)),
            "instrument_max_ms": ms(b.quantile(1.0)),
            "unsupported": b.unsupported, "errors": b.errors, "error_examples": b.error_examples,
            "by_stage": b.by_stage,
            "by_stage_figures": b.stage_samples.iter().map(|(k, v)| {
                let (secs, bytes) = b.stage_parse.get(k).copied().unwrap_or_default();
                (k.to_string(), json!({
                    "samples": v.len(),
                    "instrument_median_ms": ms(quantile_of(v, 0.5)),
                    "instrument_p99_ms": ms(quantile_of(v, 0.99)),
                    "parse_us_per_kb": secs * 1e6 / (bytes as f64 / 1024.0).max(1e-9),
                }))
            }).collect::<serde_json::Map<_, _>>(),
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        println!(
            "{} shaders (every {every}, offset {offset}); parse: {:.0} µs per KB over {:.0} KB",
            shaders.len(),
            b.parse_us_per_kb,
            b.bytes as f64 / 1024.0
        );
        println!(
            "instrument per (shader, step), {} samples (at most {max_steps} steps per shader): median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
            b.samples.len(),
            ms(b.quantile(0.5)),
            ms(b.quantile(0.99)),
            ms(b.quantile(1.0))
        );
        println!("instrumented steps by stage: {:?}", b.by_stage);
        println!(
            "not instrumented: {} unsupported (stage), {} errors",
            b.unsupported, b.errors
        );
        for (c, ex) in &b.error_examples {
            println!("  {c}\n    e.g. {ex}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn seeds(args: &mut Args) -> Result<ExitCode, String> {
    let every = args.num("--every", 20)?;
    let offset = args.num("--offset", 0)?;
    if args.rest.is_empty() {
        return Err("seeds: DIR missing".into());
    }
    let dir = PathBuf::from(args.rest.remove(0));
    args.done()?;
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let corpus = load()?;
    let shaders = corpus.every(every, offset);
    for (i, s) in shaders.iter().enumerate() {
        let data = glsl_instrument::fuzzing::input(&s.source, s.stage);
        std::fs::write(dir.join(format!("piglit-{i:05}")), data).map_err(|e| e.to_string())?;
    }
    println!("{} seeds written to {}", shaders.len(), dir.display());
    Ok(ExitCode::SUCCESS)
}

fn compile(args: &mut Args) -> Result<ExitCode, String> {
    let every = args.value("--every");
    let offset = args.num("--offset", 0)?;
    let per_stage = args.num("--per-stage", 400)?;
    let max_steps = args.num("--max-steps", 50)?;
    let expr_every = args.num("--expr-every", 3)?;
    let as_json = args.flag("--json");
    let keep = args.value("--keep").map(PathBuf::from);
    args.done()?;
    if let Some(k) = &keep {
        std::fs::create_dir_all(k).map_err(|e| e.to_string())?;
    }
    let corpus = load()?;
    let (shaders, sample) = match &every {
        Some(n) => {
            let n: usize = n
                .parse()
                .map_err(|_| format!("--every: not a number: {n}"))?;
            (
                corpus.every(n, offset),
                format!("every {n}th unique shader, offset {offset}"),
            )
        }
        None => (
            corpus.per_stage(per_stage, offset),
            format!(
                "{per_stage} per stage evenly spread (all where a stage has fewer), offset {offset}"
            ),
        ),
    };
    let mut in_corpus: BTreeMap<&str, usize> = BTreeMap::new();
    for s in &corpus.shaders {
        *in_corpus.entry(s.stage.name()).or_default() += 1;
    }
    let driver = driver::Driver::new()?;
    quiet_panics();
    let opts = CompileOptions {
        max_steps,
        expr_every,
        keep,
        ..CompileOptions::default()
    };
    let r = run_compile(&driver, &shaders, &opts);
    let t = r.total();
    let failed = t.probes - t.compiled;
    if as_json {
        let stages: serde_json::Map<String, serde_json::Value> = r
            .by_stage
            .iter()
            .map(|(k, f)| {
                (
                    k.to_string(),
                    json!({"in_corpus": in_corpus.get(k).copied().unwrap_or(0),
                           "sampled": f.shaders, "original_rejected": f.original_rejected,
                           "nothing_to_step": f.nothing_to_step, "counted": f.counted,
                           "front_end_failed": f.not_parsed, "shaders_ok": f.shaders_ok,
                           "shader_rate": f.shader_rate(),
                           "probes": f.probes, "value_probes": f.value_probes,
                           "compiled": f.compiled, "unsupported": f.unsupported,
                           "probe_rate": f.probe_rate()}),
                )
            })
            .collect();
        let v = json!({
            "sample": sample, "max_steps": max_steps, "expr_every": expr_every,
            "shaders": shaders.len(), "counted": t.counted, "shaders_ok": t.shaders_ok,
            "shader_rate": t.shader_rate(), "probes": t.probes, "compiled": t.compiled,
            "probe_rate": t.probe_rate(), "failed": failed,
            "by_stage": stages,
            "failures": causes_json(&r.failures),
            "seconds": r.seconds,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        println!(
            "{} shaders ({sample}); at most {max_steps} steps each, coverage probe at each, value probe at every {expr_every}. of them; driver compile in {:.0} s",
            shaders.len(),
            r.seconds
        );
        println!(
            "{:<13} {:>6} {:>6} {:>8} {:>7} {:>7} {:>8} {:>8} {:>7} {:>7} {:>8} {:>8}",
            "stage",
            "corpus",
            "sample",
            "orig-rej",
            "no-step",
            "counted",
            "shader✓",
            "rate",
            "probes",
            "values",
            "compiled",
            "rate"
        );
        let row = |k: &str, n: usize, f: &CompileStage| {
            println!(
                "{:<13} {:>6} {:>6} {:>8} {:>7} {:>7} {:>8} {:>7.2}% {:>7} {:>7} {:>8} {:>7.2}%",
                k,
                n,
                f.shaders,
                f.original_rejected,
                f.nothing_to_step,
                f.counted,
                f.shaders_ok,
                f.shader_rate(),
                f.probes,
                f.value_probes,
                f.compiled,
                f.probe_rate()
            )
        };
        for s in STAGES {
            let k = s.name();
            row(k, in_corpus.get(k).copied().unwrap_or(0), &r.by_stage[k]);
        }
        row("all", corpus.shaders.len(), &t);
        println!(
            "(counted: compiles originally and has steps; shader✓: every probe instrumented and compiled; {} front-end failures, {} unsupported probes)",
            t.not_parsed, t.unsupported
        );
        println!(
            "failures by cause ({failed} probes, {} shaders):",
            t.counted - t.shaders_ok
        );
        print_causes(&r.failures);
    }
    Ok(if t.shaders_ok == t.counted {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
