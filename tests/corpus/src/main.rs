//! `gldbg-corpus`: glsl-instrument over piglit's shaders.
//!
//! ```text
//! gldbg-corpus parse [--every N] [--offset K] [--driver-check] [--json] [--write-failures DIR]
//! gldbg-corpus equiv [--limit N] [--every N] [--offset K] [--steps K] [--timeout S] [--json] [--keep DIR]
//! gldbg-corpus bench [--every N] [--max-steps K] [--json]
//! gldbg-corpus compile [--every N] [--offset K] [--max-steps K] [--json] [--keep DIR]
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
       gldbg-corpus equiv [--limit N] [--every N] [--offset K] [--steps K] [--timeout S] [--json] [--keep DIR]
       gldbg-corpus bench [--every N] [--offset K] [--max-steps K] [--json]
       gldbg-corpus compile [--every N] [--offset K] [--max-steps K] [--json] [--keep DIR]
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

fn equiv_cmd(args: &mut Args) -> Result<ExitCode, String> {
    let limit = args.num("--limit", 300)?;
    let every = args.num("--every", 1)?;
    let offset = args.num("--offset", 0)?;
    let steps = args.num("--steps", 2)?;
    let timeout = args.num("--timeout", 30)?;
    let jobs = args.num("--jobs", 2)?;
    let as_json = args.flag("--json");
    let keep = args.value("--keep").map(PathBuf::from);
    args.done()?;
    let piglit = piglit_dir();
    if let Some(k) = &keep {
        std::fs::create_dir_all(k).map_err(|e| e.to_string())?;
    }
    let all = equiv::candidates(&piglit);
    let tests: Vec<PathBuf> = all
        .iter()
        .skip(offset)
        .step_by(every.max(1))
        .take(limit)
        .cloned()
        .collect();
    quiet_panics();
    let start = std::time::Instant::now();
    let r = equiv::run_equiv(
        &piglit,
        &tests,
        steps,
        std::time::Duration::from_secs(timeout as u64),
        jobs,
        keep.as_deref(),
    );
    let secs = start.elapsed().as_secs_f64();
    if as_json {
        let v = json!({
            "candidates": all.len(), "every": every, "offset": offset, "tests": r.tests,
            "steps_per_test": steps, "skipped": r.skipped, "ran_tests": r.ran_tests,
            "variants": r.variants, "passed": r.passed,
            "failures": r.failures.iter().map(|(c, (n, ex))| json!({"cause": c, "count": n, "example": ex})).collect::<Vec<_>>(),
            "seconds": secs,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        println!(
            "{} candidate tests (hand-written, one [fragment shader]); checked {} (every {every}, offset {offset}) in {secs:.0} s",
            all.len(),
            r.tests
        );
        println!("skipped:");
        for (why, n) in &r.skipped {
            println!("{n:>6}  {why}");
        }
        println!(
            "ran {} tests, {} instrumented variants: {} pass, {} not",
            r.ran_tests,
            r.variants,
            r.passed,
            r.variants - r.passed
        );
        for (c, (n, ex)) in &r.failures {
            println!("{n:>6}  {c}\n        e.g. {ex}");
        }
    }
    Ok(if r.passed == r.variants {
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
    let every = args.num("--every", 15)?;
    let offset = args.num("--offset", 0)?;
    let max_steps = args.num("--max-steps", 50)?;
    let as_json = args.flag("--json");
    let keep = args.value("--keep").map(PathBuf::from);
    args.done()?;
    if let Some(k) = &keep {
        std::fs::create_dir_all(k).map_err(|e| e.to_string())?;
    }
    let corpus = load()?;
    let shaders = corpus.every(every, offset);
    let driver = driver::Driver::new()?;
    quiet_panics();
    let start = std::time::Instant::now();
    let r = run_compile(&driver, &shaders, max_steps, keep.as_deref());
    let secs = start.elapsed().as_secs_f64();
    let probes: usize = r.by_stage.values().map(|f| f.probes).sum();
    let compiled: usize = r.by_stage.values().map(|f| f.compiled).sum();
    let unsupported: usize = r.by_stage.values().map(|f| f.unsupported).sum();
    let failed = probes - compiled - unsupported;
    if as_json {
        let stages: serde_json::Map<String, serde_json::Value> = r
            .by_stage
            .iter()
            .map(|(k, f)| {
                (
                    k.to_string(),
                    json!({"shaders": f.shaders, "original_rejected": f.original_rejected,
                           "not_parsed": f.not_parsed, "probes": f.probes, "compiled": f.compiled,
                           "unsupported": f.unsupported}),
                )
            })
            .collect();
        let v = json!({
            "every": every, "offset": offset, "max_steps": max_steps, "shaders": shaders.len(),
            "probes": probes, "compiled": compiled, "unsupported": unsupported, "failed": failed,
            "by_stage": stages,
            "failures": r.failures.iter().map(|(c, (n, ex))| json!({"cause": c, "count": n, "example": ex})).collect::<Vec<_>>(),
            "seconds": secs,
        });
        println!("{}", serde_json::to_string_pretty(&v).unwrap());
    } else {
        println!(
            "{} shaders (every {every}, offset {offset}), at most {max_steps} steps each, {secs:.0} s",
            shaders.len()
        );
        println!(
            "{:<14} {:>7} {:>9} {:>9} {:>7} {:>9} {:>11}",
            "stage", "shaders", "orig-rej", "no-parse", "probes", "compiled", "unsupported"
        );
        for (k, f) in &r.by_stage {
            println!(
                "{:<14} {:>7} {:>9} {:>9} {:>7} {:>9} {:>11}",
                k,
                f.shaders,
                f.original_rejected,
                f.not_parsed,
                f.probes,
                f.compiled,
                f.unsupported
            );
        }
        println!(
            "(shader, step) probes: {probes}; compiled {compiled}; unsupported stage {unsupported}; failed {failed}"
        );
        for (c, (n, ex)) in &r.failures {
            println!("{n:>6}  {c}\n        e.g. {ex}");
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
