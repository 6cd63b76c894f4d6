//! The app never notices (issue 5): at the first draw or dispatch of the
//! test apps, every queryable GL state is the same before and after a
//! series of shader debug steps, and the same as in a run without gldbg.
//!
//! The app is the observer: with `--dump-state PATH` it appends
//! `tests/apps/state_dump.h`'s dump of its whole context (every glGet*
//! pname, indexed and not, every glIsEnabled(i) cap, texture units, vertex
//! attributes, the bound objects' parameters, buffer, texture and
//! attachment contents as hashes, active queries, the pending error) right
//! before and right after that call, and after its last frame ("final").
//! Each test runs the app natively and under `gldbg run` with a script that
//! stops at the call, debugs one or every stage (steps, `print` of values
//! and summaries, `info flow` at a loop), leaves and continues; then:
//! * every command succeeded and every `print` produced a value (a debug
//!   step that silently did nothing fails here);
//! * within each run, "before" and "after" are equal but for the
//!   `contents` lines (the draw itself writes those);
//! * the dumps of the gldbg run equal the native run's byte for byte,
//!   `final` included (the frame, buffers and image bit-identical);
//! * the app's result lines (checksums, counts) are equal.
//!
//! Each case runs twice: with the app's own state, and with `--busy-state`
//! (much state the call does not depend on set away from its defaults, so
//! state reset to defaults instead of put back shows).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use gldbg_tests::*;

/// One `== label` section of a dump: its label and lines.
type Section = (String, Vec<String>);

fn read_dump(path: &Path) -> Vec<Section> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("the app wrote no state dump at {}: {e}", path.display()));
    let mut sections: Vec<Section> = Vec::new();
    for line in text.lines() {
        if let Some(label) = line.strip_prefix("== ") {
            sections.push((label.to_string(), Vec::new()));
        } else {
            let (_, lines) = sections
                .last_mut()
                .unwrap_or_else(|| panic!("{}: a line before the first label", path.display()));
            lines.push(line.to_string());
        }
    }
    sections
}

/// `dump` without its program binary format lines; under gldbg
/// (`gldbg_run`: its tag) they must say there are none.
fn without_binary_formats(dump: Vec<Section>, gldbg_run: Option<&str>) -> Vec<Section> {
    let binary = |line: &str| key(line).contains("_BINARY_FORMATS");
    if let Some(tag) = gldbg_run {
        for (label, lines) in &dump {
            for line in lines.iter().filter(|l| binary(l)) {
                let value = line.split_once(" = ").map_or("", |(_, v)| v).trim();
                assert!(
                    value.is_empty() || value == "0",
                    "{tag}: `{label}`: under gldbg there are no binary formats: {line}"
                );
            }
        }
    }
    dump.into_iter()
        .map(|(label, lines)| (label, lines.into_iter().filter(|l| !binary(l)).collect()))
        .collect()
}

/// The key of a dump line: what precedes " = ".
fn key(line: &str) -> &str {
    line.split_once(" = ").map_or(line, |(k, _)| k)
}

/// A hash of data that draws write (buffer, texture level, attachment).
fn is_contents(line: &str) -> bool {
    key(line)
        .rsplit(' ')
        .next()
        .is_some_and(|w| w.starts_with("contents"))
}

/// The lines that differ, by key, as `-` (in `a`) and `+` (in `b`) lines.
fn diff(a: &[String], b: &[String]) -> Vec<String> {
    let in_a: HashMap<&str, &str> = a.iter().map(|l| (key(l), l.as_str())).collect();
    let in_b: HashMap<&str, &str> = b.iter().map(|l| (key(l), l.as_str())).collect();
    let mut out = Vec::new();
    for l in a {
        match in_b.get(key(l)) {
            Some(other) if *other == l => {}
            Some(other) => {
                out.push(format!("-{l}"));
                out.push(format!("+{other}"));
            }
            None => out.push(format!("-{l}")),
        }
    }
    for l in b {
        if !in_a.contains_key(key(l)) {
            out.push(format!("+{l}"));
        }
    }
    out
}

#[track_caller]
fn assert_same_lines(a: &[String], b: &[String], what: &str) {
    if a == b {
        return;
    }
    let d = diff(a, b);
    const SHOWN: usize = 60;
    let more = d.len().saturating_sub(SHOWN);
    panic!(
        "{what}: {} of {} state lines differ\n{}{}",
        d.iter().filter(|l| l.starts_with('-')).count(),
        a.len(),
        d[..d.len().min(SHOWN)].join("\n"),
        if more > 0 {
            format!("\n... {more} more")
        } else if d.is_empty() {
            "\n(same lines in another order)".to_string()
        } else {
            String::new()
        }
    );
}

/// "before X" / "after X" within one run: equal but for `contents` lines.
#[track_caller]
fn assert_before_equals_after(dump: &[Section], run: &str) {
    for (label, before) in dump {
        let Some(call) = label.strip_prefix("before ") else {
            continue;
        };
        let after_label = format!("after {call}");
        let (_, after) = dump
            .iter()
            .find(|(l, _)| *l == after_label)
            .unwrap_or_else(|| panic!("{run}: no `{after_label}` dump"));
        let keep = |lines: &[String]| -> Vec<String> {
            lines.iter().filter(|l| !is_contents(l)).cloned().collect()
        };
        assert_same_lines(
            &keep(before),
            &keep(after),
            &format!("{run}: state before vs after {call} (contents aside)"),
        );
    }
}

/// The app's own result lines (`egl_stages: ...`, `egl_compute: ...`).
fn result_lines(stdout: &str) -> Vec<&str> {
    stdout.lines().filter(|l| l.starts_with("egl_")).collect()
}

/// A scripted gldbg session compared with a native run of the same app.
struct Case {
    tag: &'static str,
    app: PathBuf,
    args: &'static [&'static str],
    /// The dumps' labels, in order.
    labels: &'static [&'static str],
    /// The gldbg script: to the call, shader debugging there, to the end.
    script: String,
}

/// Checks `case` with the app's state as it sets it, then with
/// `--busy-state` (much state the call does not depend on away from its
/// defaults: state reset to defaults instead of put back shows).
fn check(case: Case) {
    require_workspace();
    check_variant(&case, false);
    check_variant(&case, true);
}

fn check_variant(case: &Case, busy: bool) {
    let tag = format!("{}{}", case.tag, if busy { "-busy" } else { "" });
    let dir = TempDir::new(&tag);
    let with_dump = |path: &Path| -> Vec<String> {
        let mut args: Vec<String> = case.args.iter().map(|s| s.to_string()).collect();
        if busy {
            args.push("--busy-state".into());
        }
        args.push("--dump-state".into());
        args.push(path.to_str().unwrap().into());
        args
    };

    let native_path = dir.join("native.state");
    let args = with_dump(&native_path);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let native = run_native(&case.app, &args, &[]);

    let gldbg_path = dir.join("gldbg.state");
    let out = Session::new(&case.app, &case.script)
        .args(with_dump(&gldbg_path))
        .run(&dir);

    // Every command succeeded; the app ran to a clean exit.
    for r in out.results() {
        assert_eq!(r["ok"], true, "command failed: {r}\n{}", out.transcript());
    }
    let last = out.results().into_iter().last().expect("results");
    assert_eq!(last["state"], "exited", "{last}\n{}", out.transcript());
    assert_eq!(last["exited"]["code"], 0, "{last}\n{}", out.transcript());
    assert!(out.status.success(), "{}", out.transcript());
    // The debug steps really ran: each stage reached invocations and every
    // `print` produced a value (one invocation's, or a summary of some).
    let mut prints = 0;
    for r in out.results() {
        let cmd = r["cmd"].as_str().unwrap_or("");
        if cmd.starts_with("debug ") {
            assert!(
                r["reached"].as_u64().unwrap_or(0) > 0,
                "{cmd} reached nothing: {r}"
            );
        }
        if cmd.starts_with("print ") {
            prints += 1;
            let one = r["reached"] == true && r["value"].as_array().is_some_and(|v| !v.is_empty());
            let all = r["summary"]["count"].as_u64().unwrap_or(0) > 0;
            assert!(one || all, "{cmd} produced no value: {r}");
        }
    }
    assert!(prints > 0, "the script prints nothing");

    let native_dump = read_dump(&native_path);
    let gldbg_dump = read_dump(&gldbg_path);
    // The one deliberate difference: under gldbg the driver reports no
    // program binary formats (apps then compile from source, which gldbg
    // debugs; issue 11 point 6). Checked here, then left out.
    let (native_dump, gldbg_dump) = (
        without_binary_formats(native_dump, None),
        without_binary_formats(gldbg_dump, Some(&tag)),
    );
    let labels = |d: &[Section]| d.iter().map(|(l, _)| l.clone()).collect::<Vec<_>>();
    assert_eq!(labels(&native_dump), case.labels, "native dump labels");
    assert_eq!(labels(&gldbg_dump), case.labels, "dump labels under gldbg");
    let lines: usize = native_dump.iter().map(|(_, l)| l.len()).sum();
    eprintln!(
        "{tag}: {} state lines per dump ({} dumps)",
        lines / native_dump.len(),
        native_dump.len()
    );

    // The dump itself is sound: natively, the call changes only contents.
    assert_before_equals_after(&native_dump, &format!("{tag}, native run"));
    assert_before_equals_after(&gldbg_dump, &format!("{tag}, gldbg run"));
    for ((label, native_lines), (_, gldbg_lines)) in native_dump.iter().zip(&gldbg_dump) {
        assert_same_lines(
            native_lines,
            gldbg_lines,
            &format!("{tag}: `{label}`, native (-) vs under gldbg (+)"),
        );
    }
    assert_eq!(
        result_lines(&out.stdout),
        result_lines(&native.stdout),
        "{tag}: the app's results under gldbg vs native"
    );
}

// ---------------------------------------------------------------------------
// egl_stages: one patch through every graphics stage

const STAGES_LABELS: &[&str] = &["before draw 1", "after draw 1", "final"];

/// Shader commands per stage of egl_stages' draw: steps, values at one
/// invocation and summaries, `info flow` at a loop condition.
fn stages_commands(stage: &str) -> &'static str {
    match stage {
        "vertex" => {
            "debug vertex\nprint gl_VertexID @ vertex 1\nprint gl_VertexID\nstep\n\
             print gl_VertexID @ vertex 2\nend\n"
        }
        "tess-control" => {
            "debug tess-control\nprint gl_InvocationID @ vertex 1\nstep\nstep\nprint u_level\n\
             print gl_in[gl_InvocationID].gl_Position @ vertex 2\nend\n"
        }
        // steps to the loop condition `k < 3` (line 7)
        "tess-eval" => {
            "debug tess-eval\nstep\nstep\nstep\ninfo flow\nprint c @ vertex 0\nprint c\n\
             step\nstep\nprint w\nend\n"
        }
        // starts at the loop's init; one step to its condition `i < 3`
        "geometry" => {
            "debug geometry\nstep\ninfo flow\nstep\nstep\nprint te_value[i] @ vertex 0\n\
             print gl_PrimitiveIDIn\nstep\nprint s\nend\n"
        }
        "fragment" => {
            "debug fragment\nprint g_value @ 10,10\nprint g_value\nstep\n\
             print gl_FragCoord @ 20,5\nend\n"
        }
        _ => unreachable!("{stage}"),
    }
}

fn stages_case(tag: &'static str, stages: &[&str]) -> Case {
    let mut script = String::from("break glDrawArrays\ncontinue\n");
    for stage in stages {
        script += stages_commands(stage);
    }
    script += "delete\ncontinue\n";
    Case {
        tag,
        app: egl_stages(),
        args: &[],
        labels: STAGES_LABELS,
        script,
    }
}

#[test]
fn vertex_steps_leave_no_trace() {
    check(stages_case("state-vertex", &["vertex"]));
}

#[test]
fn tess_control_steps_leave_no_trace() {
    check(stages_case("state-tcs", &["tess-control"]));
}

#[test]
fn tess_eval_steps_leave_no_trace() {
    check(stages_case("state-tes", &["tess-eval"]));
}

#[test]
fn geometry_steps_leave_no_trace() {
    check(stages_case("state-gs", &["geometry"]));
}

#[test]
fn fragment_steps_leave_no_trace() {
    check(stages_case("state-fs", &["fragment"]));
}

#[test]
fn every_stage_of_one_draw_in_a_row_leaves_no_trace() {
    check(stages_case(
        "state-all-stages",
        &[
            "vertex",
            "tess-control",
            "tess-eval",
            "geometry",
            "fragment",
        ],
    ));
}

// ---------------------------------------------------------------------------
// egl_compute: storage buffers, atomic counters and an image written by
// the compute shader (and, with --draw, by a fragment shader in a query)

/// Commands at egl_compute's dispatch: to the branch in the loop of
/// `shade()` (line 11), `info flow` there, values at invocations.
const COMPUTE_COMMANDS: &str = "debug compute\nprint gl_GlobalInvocationID @ invocation 3,1,0\n\
    break 11\ncontinue\n\
    info flow\nprint acc @ invocation 3,1,0\nprint acc\nstep\nprint k @ invocation 6,0,0\n\
    continue\nprint acc @ invocation 6,0,0\nend\n";

#[test]
fn compute_steps_leave_no_trace() {
    check(Case {
        tag: "state-compute",
        app: egl_compute(),
        args: &[],
        labels: &["before dispatch 1", "after dispatch 1", "final"],
        script: format!("break glDispatchCompute\ncontinue\n{COMPUTE_COMMANDS}delete\ncontinue\n"),
    });
}

#[test]
fn indirect_compute_steps_leave_no_trace() {
    check(Case {
        tag: "state-compute-indirect",
        app: egl_compute(),
        args: &["--indirect"],
        labels: &["before dispatch 1", "after dispatch 1", "final"],
        script: format!(
            "break glDispatchComputeIndirect\ncontinue\n{COMPUTE_COMMANDS}delete\ncontinue\n"
        ),
    });
}

#[test]
fn fragment_vertex_and_compute_steps_with_writes_in_a_query_leave_no_trace() {
    // The draw's fragment shader counts fragments with an atomic counter and
    // in a storage buffer, inside a GL_SAMPLES_PASSED query.
    let draw = "debug fragment\nstep\nprint p @ 3,3\nstep\nprint p\nprint gl_FragCoord @ 7,9\n\
                end\ndebug vertex\nstep\nprint p @ vertex 1\nprint p\nend\n";
    check(Case {
        tag: "state-draw-compute",
        app: egl_compute(),
        args: &["--draw", "--query"],
        labels: &[
            "before draw 1",
            "after draw 1",
            "before dispatch 1",
            "after dispatch 1",
            "final",
        ],
        script: format!(
            "break glDrawArrays\nbreak glDispatchCompute\ncontinue\n{draw}continue\n\
             {COMPUTE_COMMANDS}delete\ncontinue\n"
        ),
    });
}
