//! memcheck end to end (issue 17): `gldbg run --memcheck` on
//! `tests/apps/egl_memcheck.c`, whose kernels each carry one planted
//! memory bug (marked `// BUG: <kind>` in the shader the app prints with
//! `--source`) and have a corrected twin. Every planted bug is reported
//! exactly (kind, line, element, invocations; a race's both sides with
//! their lines), once per (kind, line) with its count; the twins report
//! nothing; and the app's results under memcheck are a native run's
//! wherever the GL defines them (every twin, and the image store outside
//! the image, which the GL discards).

use std::path::PathBuf;
use std::process::Command;

use gldbg_tests::*;
use serde_json::Value;

fn app() -> PathBuf {
    let built = PathBuf::from(env!("GLDBG_APP_EGL_MEMCHECK"));
    if built.exists() {
        built
    } else {
        target_dir().join("apps").join("egl_memcheck")
    }
}

/// The planted bugs of a case from its shader's `// BUG:` comments:
/// (kind, line, side) with side "" or "write side" / "read side".
fn planted(case: &str) -> Vec<(String, u32, String)> {
    let out = Command::new(app())
        .args(["--source", case])
        .output()
        .expect("egl_memcheck --source");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut bugs = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.split("// BUG: ").nth(1) {
            let (kind, side) = match rest.split_once(" (") {
                Some((k, s)) => (k.trim(), s.trim_end_matches(')').to_string()),
                None => (rest.trim(), String::new()),
            };
            bugs.push((kind.to_string(), i as u32 + 1, side));
        }
    }
    bugs
}

/// The app's checksum line for `case`.
fn checksum(stdout: &str, case: &str) -> String {
    stdout
        .lines()
        .find(|l| l.starts_with(&format!("egl_memcheck: {case} checksum")))
        .unwrap_or_else(|| panic!("no checksum of {case} in:\n{stdout}"))
        .to_string()
}

fn native(case: &str) -> String {
    let out = Command::new(app())
        .arg(case)
        .output()
        .expect("egl_memcheck");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    checksum(&String::from_utf8_lossy(&out.stdout), case)
}

/// `gldbg run --memcheck` on `egl_memcheck` with `args`, running
/// `script`: the transcript and its memcheck events.
fn under_memcheck(args: &[&str], script: &str) -> (Output, Vec<Value>) {
    under_memcheck_with(args, script, &[])
}

/// As [`under_memcheck`], the app given `env` too.
fn under_memcheck_with(args: &[&str], script: &str, env: &[(&str, &str)]) -> (Output, Vec<Value>) {
    under_memcheck_of(&app(), args, script, env)
}

/// As [`under_memcheck_with`], for the app at `program`.
fn under_memcheck_of(
    program: &std::path::Path,
    args: &[&str],
    script: &str,
    env: &[(&str, &str)],
) -> (Output, Vec<Value>) {
    let dir = TempDir::new("memcheck-fixture");
    let path = dir.join("s.gldbg");
    std::fs::write(&path, script).unwrap();
    let mut cmd = Command::new(gldbg());
    cmd.args(["run", "--memcheck", "--batch", "--json", "-x"])
        .arg(&path)
        .arg("--")
        .arg(program)
        .args(args)
        .envs(env.iter().copied());
    let out = run_command(cmd);
    assert!(out.status.success(), "{}", out.transcript());
    let events: Vec<Value> = out
        .lines
        .iter()
        .filter(|v| v["event"] == "memcheck")
        .cloned()
        .collect();
    (out, events)
}

/// `gldbg run --memcheck` on the case: its memcheck events and checksum.
fn checked(case: &str) -> (Vec<Value>, String) {
    let (out, events) = under_memcheck(&[case], "continue\n");
    (events, checksum(&out.stdout, case))
}

fn ids(v: &Value) -> Vec<u64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not ids: {v}"))
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect()
}

fn element(e: &Value) -> Vec<i64> {
    e["element"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// The findings of a planted case match its `// BUG:` lines exactly.
fn matches_planted(case: &str, events: &[Value]) {
    let bugs = planted(case);
    assert!(!bugs.is_empty(), "{case} has no BUG line");
    let mut expected: Vec<(String, Vec<u32>, Vec<u32>)> = Vec::new();
    for (kind, line, side) in &bugs {
        match side.as_str() {
            "" => expected.push((kind.clone(), vec![*line], vec![*line])),
            "write side" => {
                let read = bugs
                    .iter()
                    .find(|b| b.2 == "read side")
                    .expect("a read side")
                    .1;
                // Which side finds the race depends on which ran first.
                expected.push((kind.clone(), vec![*line, read], vec![*line, read]));
            }
            _ => {}
        }
    }
    assert_eq!(
        events.len(),
        expected.len(),
        "{case}: {events:#?}\nexpected {expected:?}"
    );
    for (kind, lines, others) in &expected {
        let e = events
            .iter()
            .find(|e| {
                e["kind"] == kind.as_str() && lines.contains(&(e["line"].as_u64().unwrap() as u32))
            })
            .unwrap_or_else(|| panic!("{case}: no {kind} at {lines:?} in {events:#?}"));
        assert!(e["count"].as_u64().unwrap() >= 1);
        assert!(e["call"].as_u64().unwrap() >= 1, "{e}");
        let inv = e["invocations"].as_array().unwrap();
        if kind == "race" {
            assert_eq!(inv.len(), 2, "{case}: a race names both sides: {e}");
            let line = e["line"].as_u64().unwrap() as u32;
            let other = inv[1]["line"].as_u64().unwrap() as u32;
            assert!(
                others.contains(&other),
                "{case}: other side at {other}: {e}"
            );
            if lines.len() == 2 {
                assert_ne!(line, other, "{case}: the two sides are the two lines: {e}");
            }
        } else {
            assert!(!inv.is_empty(), "{e}");
        }
    }
}

fn find<'a>(events: &'a [Value], kind: &str) -> &'a Value {
    events
        .iter()
        .find(|e| e["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind}: {events:#?}"))
}

#[test]
fn planted_bugs_are_reported_exactly_and_fixed_twins_are_clean() {
    require_workspace();
    let cases = [
        "storage-oob",
        "shared-oob",
        "local-oob",
        "image-oob",
        "counter-oob",
        "shared-uninit",
        "local-uninit",
        "shared-race",
        "storage-race-groups",
        "storage-race-local",
        "fragment",
    ];
    let mut results = Vec::new();
    for case in cases {
        let (events, sum) = checked(case);
        matches_planted(case, &events);
        let fixed = format!("{case}-fixed");
        let (clean, fixed_sum) = checked(&fixed);
        assert!(clean.is_empty(), "{fixed}: {clean:#?}");
        assert_eq!(
            fixed_sum,
            native(&fixed),
            "{fixed}: results differ from native"
        );
        if sum.ends_with("(deterministic)") {
            assert_eq!(sum, native(case), "{case}: results differ from native");
        }
        results.push((case, events));
    }
    let of = |name: &str| &results.iter().find(|(c, _)| *c == name).unwrap().1;

    // The table of tests/apps/egl_memcheck.c.
    let e = find(of("storage-oob"), "out-of-bounds");
    assert_eq!(
        (element(e), e["count"].as_u64(), e["binding"].as_u64()),
        (vec![256], Some(1), Some(0))
    );
    let i = &e["invocations"][0];
    assert_eq!(
        (ids(&i["workgroup"]), ids(&i["local"])),
        (vec![0, 0, 0], vec![63, 0, 0])
    );

    let e = find(of("shared-oob"), "out-of-bounds");
    assert_eq!((element(e), e["count"].as_u64()), (vec![64], Some(2)));
    assert_eq!(ids(&e["invocations"][0]["local"]), vec![63, 0, 0]);
    assert!(e["binding"].is_null(), "shared memory has no binding: {e}");

    let e = find(of("local-oob"), "out-of-bounds");
    assert_eq!((element(e), e["count"].as_u64()), (vec![8], Some(1)));
    assert_eq!(ids(&e["invocations"][0]["local"]), vec![13, 0, 0]);

    let e = find(of("image-oob"), "out-of-bounds");
    assert_eq!(
        (e["count"].as_u64(), e["binding"].as_u64()),
        (Some(16), Some(1))
    );
    let el = element(e);
    let i = &e["invocations"][0];
    let (wg, local) = (ids(&i["workgroup"]), ids(&i["local"]));
    assert_eq!(el[0], 16);
    let y = el[1] as u64;
    assert_eq!((wg, local), (vec![1, y / 8, 0], vec![7, y % 8, 0]), "{e}");

    let e = find(of("counter-oob"), "out-of-bounds");
    assert_eq!(
        (element(e), e["count"].as_u64(), e["binding"].as_u64()),
        (vec![1], Some(3), Some(0))
    );
    assert!(
        [5, 17, 40].contains(&ids(&e["invocations"][0]["local"])[0]),
        "{e}"
    );

    let e = find(of("shared-uninit"), "uninitialized");
    assert_eq!(e["count"].as_u64(), Some(128));
    let el = element(e)[0];
    assert!((64..128).contains(&el));
    assert_eq!(ids(&e["invocations"][0]["local"])[0] as i64, el - 64, "{e}");

    let e = find(of("local-uninit"), "uninitialized");
    assert_eq!(e["count"].as_u64(), Some(2));
    assert!(element(e).is_empty());
    assert!(
        [7, 50].contains(&ids(&e["invocations"][0]["local"])[0]),
        "{e}"
    );

    let e = find(of("shared-race"), "race");
    let inv = e["invocations"].as_array().unwrap();
    let el = element(e)[0] as u64;
    assert!((1..32).contains(&el), "{e}");
    assert_eq!(
        ids(&inv[0]["workgroup"]),
        ids(&inv[1]["workgroup"]),
        "one workgroup: {e}"
    );
    let writer = if inv[0]["write"] == true {
        &inv[0]
    } else {
        &inv[1]
    };
    assert_eq!(
        ids(&writer["local"])[0],
        el,
        "the writer of tile[e] is local e: {e}"
    );

    let e = find(of("storage-race-groups"), "race");
    let inv = e["invocations"].as_array().unwrap();
    assert_eq!((element(e), e["binding"].as_u64()), (vec![0], Some(1)));
    assert_ne!(ids(&inv[0]["workgroup"]), ids(&inv[1]["workgroup"]), "{e}");
    assert_eq!((ids(&inv[0]["local"])[0], ids(&inv[1]["local"])[0]), (0, 0));

    let e = find(of("storage-race-local"), "race");
    let inv = e["invocations"].as_array().unwrap();
    let el = element(e)[0] as u64;
    let writer = if inv[0]["write"] == true {
        &inv[0]
    } else {
        &inv[1]
    };
    let reader = if inv[0]["write"] == true {
        &inv[1]
    } else {
        &inv[0]
    };
    assert_eq!(
        (ids(&writer["local"])[0], ids(&reader["local"])[0]),
        (el, el - 1),
        "{e}"
    );

    let e = find(of("fragment"), "out-of-bounds");
    assert_eq!((e["count"].as_u64(), element(e)[0]), (Some(16), 16));
    assert_eq!(e["invocations"][0]["x"].as_u64(), Some(15), "{e}");
    let e = find(of("fragment"), "race");
    let inv = e["invocations"].as_array().unwrap();
    assert_ne!(
        (&inv[0]["x"], &inv[0]["y"]),
        (&inv[1]["x"], &inv[1]["y"]),
        "{e}"
    );
}

/// [`under_memcheck`] with `memcheck` at the end: the transcript, its
/// events and the report.
fn armed_run(args: &[&str]) -> (Output, Vec<Value>, Value) {
    armed_run_with(args, &[])
}

fn armed_run_with(args: &[&str], env: &[(&str, &str)]) -> (Output, Vec<Value>, Value) {
    let (out, events) = under_memcheck_with(args, "continue\nmemcheck\n", env);
    let report = out
        .lines
        .iter()
        .find(|v| v["cmd"] == "memcheck")
        .unwrap_or_else(|| panic!("no report: {}", out.transcript()))
        .clone();
    (out, events, report)
}

fn counts(report: &Value) -> Vec<u64> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["count"].as_u64().unwrap())
        .collect()
}

/// `memcheck on` checks a compute program's first dispatch at a stop and
/// arms it: its later dispatches run checked in the app without a stop,
/// their findings read later, behind a fence, at the app's next call that
/// waits for the GPU (here the `glFinish` after each dispatch), and taken
/// by the daemon at a stop there when they found something. Every
/// dispatch is counted, findings included, and relinking the program
/// disarms it: its new shaders are checked from then on, and the old
/// checked program never runs in their place (the app checks the relinked
/// results against its CPU model and fails otherwise).
#[test]
fn armed_programs_check_every_dispatch_without_a_stop_until_relinked() {
    armed_programs_counted_exactly(&[]);
}

/// The same where the preload may not map findings blocks persistently
/// (as in a context without buffer storage): each block is read back with
/// `glGetBufferSubData` and zeroed by the run itself.
#[test]
fn armed_runs_without_persistent_maps_are_read_back_the_same() {
    armed_programs_counted_exactly(&[("GLDBG_MEMCHECK_NO_PERSISTENT_MAPS", "1")]);
}

fn armed_programs_counted_exactly(env: &[(&str, &str)]) {
    require_workspace();
    let args = ["--repeat", "3", "--relink", "storage-oob", "shared-uninit"];
    let (out, events, report) = armed_run_with(&args, env);
    for case in ["storage-oob", "shared-uninit"] {
        let relinked = checksum(&out.stdout, &format!("{case} relinked"));
        assert!(relinked.ends_with("(deterministic)"), "{relinked}");
    }
    // One event per finding, with the count of its first call.
    let kinds: Vec<(&str, u64)> = events
        .iter()
        .map(|e| (e["kind"].as_str().unwrap(), e["count"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        kinds,
        [("out-of-bounds", 1), ("uninitialized", 128)],
        "{events:#?}"
    );
    // Every dispatch of the planted shaders counted: 3 of each.
    assert_eq!(counts(&report), [3, 3 * 128], "{report}");
    // Per case 3 dispatches before the relink and 3 after, each time the
    // 1st at a stop and 2 armed; the app's last armed run too is read, at
    // the app's `glFinish` after it.
    assert_eq!(report["calls_checked"].as_u64(), Some(12), "{report}");
    assert_eq!(report["calls_armed"].as_u64(), Some(8), "{report}");
}

/// What an armed run finds is taken at a stop its thread makes at its next
/// call that waits for the GPU, a call no breakpoint covers (here the
/// `glFinish` after each dispatch), with the call it ran at; a run that
/// found nothing makes no stop.
#[test]
fn an_armed_runs_findings_are_taken_at_the_next_stop() {
    require_workspace();
    let args = ["--repeat", "4", "storage-oob", "storage-oob-fixed"];
    let (_, events, report) = armed_run(&args);
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0]["function"], "glDispatchCompute", "{events:#?}");
    // Planted and twin: the 1st dispatch at a stop, 3 armed.
    assert_eq!(counts(&report), [4], "{report}");
    assert_eq!(report["calls_checked"].as_u64(), Some(4 + 4), "{report}");
    assert_eq!(report["calls_armed"].as_u64(), Some(3 + 3), "{report}");
}

/// Armed runs in a GL ES 3.1 context (`egl_gles --es 31 --dispatches 4`,
/// which reads each result through `glMapBufferRange` and checks it): the
/// 1st dispatch is checked at a stop, the other 3 run armed and are read
/// at the app's maps; nothing is found, and the app's results (checked by
/// the app itself) and checksum are the native ones.
#[test]
fn armed_runs_in_a_gl_es_context_are_read_at_the_apps_maps() {
    require_workspace();
    let args = ["--es", "31", "--dispatches", "4"];
    let native = Command::new(egl_gles())
        .args(args)
        .output()
        .expect("egl_gles");
    assert!(native.status.success(), "{native:?}");
    let native = String::from_utf8_lossy(&native.stdout).to_string();
    let sum = native
        .lines()
        .find(|l| l.starts_with("checksum "))
        .unwrap_or_else(|| panic!("no checksum in {native}"));
    let (out, events) = under_memcheck_of(&egl_gles(), &args, "continue\nmemcheck\n", &[]);
    assert!(events.is_empty(), "{events:#?}");
    assert!(out.stdout.lines().any(|l| l == sum), "{}", out.transcript());
    let report = out
        .lines
        .iter()
        .find(|v| v["cmd"] == "memcheck")
        .unwrap_or_else(|| panic!("no report: {}", out.transcript()));
    assert_eq!(report["findings"], serde_json::json!([]), "{report}");
    assert_eq!(report["calls_checked"].as_u64(), Some(4), "{report}");
    assert_eq!(report["calls_armed"].as_u64(), Some(3), "{report}");
}
