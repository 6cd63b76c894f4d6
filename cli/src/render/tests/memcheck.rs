//! memcheck's finding event, its stop and the report, as text and as
//! CLI.md's JSON.

use super::*;

fn race() -> pb::MemcheckFinding {
    pb::MemcheckFinding {
        kind: "race".into(),
        line: 12,
        column: 5,
        expr: "data[i]".into(),
        variable: "buf.data".into(),
        binding: Some(1),
        element: vec![4],
        invocations: vec![
            pb::MemcheckInvocation {
                workgroup: vec![0, 0, 0],
                local: vec![1, 0, 0],
                write: true,
                ..Default::default()
            },
            pb::MemcheckInvocation {
                workgroup: vec![1, 0, 0],
                local: vec![0, 0, 0],
                line: 14,
                column: 9,
                expr: "data[j]".into(),
                ..Default::default()
            },
        ],
        call: 40,
        count: 3,
        stage: "compute".into(),
        program: 3,
        function: "glDispatchCompute".into(),
        ..Default::default()
    }
}

fn uninitialized_pixel() -> pb::MemcheckFinding {
    pb::MemcheckFinding {
        kind: "uninitialized".into(),
        line: 7,
        column: 3,
        expr: "acc".into(),
        variable: "acc".into(),
        invocations: vec![pb::MemcheckInvocation {
            pixel: Some(pb::Pixel { x: 10, y: 5 }),
            ..Default::default()
        }],
        call: 9,
        count: 1,
        file: "shade.frag".into(),
        file_line: 4,
        ..Default::default()
    }
}

fn event(f: pb::MemcheckFinding) -> pb::Event {
    pb::Event {
        kind: Some(pb::event::Kind::Memcheck(f)),
        seq: 8,
    }
}

#[test]
fn a_finding_event_has_cli_md_keys_in_order() {
    let v = event_json(&event(race())).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "event",
            "seq",
            "kind",
            "line",
            "column",
            "expr",
            "binding",
            "element",
            "invocations",
            "call",
            "count",
            "variable",
            "stage",
            "program",
            "function"
        ]
    );
    assert_eq!(
        v,
        json!({"event":"memcheck","seq":8,"kind":"race","line":12,"column":5,"expr":"data[i]",
               "binding":1,"element":[4],
               "invocations":[{"workgroup":[0,0,0],"local":[1,0,0],"write":true},
                              {"workgroup":[1,0,0],"local":[0,0,0],"write":false,"line":14,
                               "column":9,"expr":"data[j]"}],
               "call":40,"count":3,"variable":"buf.data","stage":"compute","program":3,
               "function":"glDispatchCompute"})
    );
    assert_eq!(
        event_text(&event(race())).unwrap(),
        "memcheck: race at line 12:5 `data[i]` (buf.data, binding 1) element [4]: workgroup \
         (0,0,0) local (1,0,0) writes; other side: workgroup (1,0,0) local (0,0,0) reads at \
         line 14:9 `data[j]`; call 40 glDispatchCompute, 3 times"
    );
}

#[test]
fn a_fragment_finding_without_binding_or_element() {
    let v = event_json(&event(uninitialized_pixel())).unwrap();
    assert_eq!(v["binding"], Value::Null, "the key is there, null");
    assert_eq!(v["element"], json!([]));
    assert_eq!(
        v["invocations"],
        json!([{"x":10,"y":5}]),
        "an uninitialised read: no write key"
    );
    assert_eq!(
        (v["file"].clone(), v["file_line"].clone()),
        (json!("shade.frag"), json!(4))
    );
    assert_eq!(
        event_text(&event(uninitialized_pixel())).unwrap(),
        "memcheck: uninitialized at line 7:3 (shade.frag:4) `acc` (acc): pixel 10,5 reads; \
         call 9, 1 time"
    );
}

#[test]
fn a_memcheck_stop_shows_its_finding() {
    let reply = pb::StateReply {
        state: pb::RunState::Stopped as i32,
        stop: Some(pb::CallInfo {
            function: "glDispatchCompute".into(),
            call: 40,
            ..Default::default()
        }),
        memcheck: Some(race()),
        ..Default::default()
    };
    let out = Ok(Outcome::State(reply));
    let v = result_json("continue", &out);
    assert_eq!(v["state"], "stopped");
    assert_eq!(v["memcheck"]["kind"], "race");
    assert_eq!(v["memcheck"]["invocations"][1]["line"], 14);
    let text = result_text(&out);
    assert!(
        text.lines()
            .nth(1)
            .unwrap()
            .starts_with("memcheck: race at line 12:5"),
        "{text}"
    );
}

#[test]
fn the_report() {
    let report = pb::MemcheckReport {
        mode: pb::MemcheckMode::MemcheckStop as i32,
        findings: vec![race(), uninitialized_pixel()],
        shadow_bytes: 4096,
        budget_bytes: 256 << 20,
        not_checked: vec!["program 3: shared memory is not checked".into()],
        calls_checked: 2,
        gpu_ns: 0,
        calls_armed: 1,
    };
    let out = Ok(Outcome::Memcheck(report));
    let v = result_json("memcheck", &out);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "cmd",
            "ok",
            "memcheck",
            "findings",
            "calls_checked",
            "calls_armed",
            "shadow_bytes",
            "budget_bytes",
            "not_checked"
        ]
    );
    assert_eq!(v["memcheck"], "stop");
    assert_eq!(v["findings"][0]["count"], 3);
    assert_eq!(v["findings"][1]["kind"], "uninitialized");
    assert_eq!(
        v["not_checked"],
        json!(["program 3: shared memory is not checked"])
    );
    let text = result_text(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "memcheck is stop: 2 calls checked (1 without a stop), 2 findings; shadow memory 4096 \
         of 268435456 bytes"
    );
    assert!(lines[1].starts_with("  race at line 12:5"), "{text}");
    assert_eq!(
        lines[3],
        "  not checked: program 3: shared memory is not checked"
    );
    let off = Ok(Outcome::Memcheck(pb::MemcheckReport::default()));
    assert_eq!(result_json("memcheck off", &off)["memcheck"], "off");
}

#[test]
fn a_race_whose_other_invocation_is_not_known() {
    let mut f = race();
    f.invocations[1] = pb::MemcheckInvocation {
        line: 14,
        column: 9,
        expr: "data[j]".into(),
        unknown: true,
        ..Default::default()
    };
    let v = event_json(&event(f.clone())).unwrap();
    assert_eq!(
        v["invocations"][1],
        json!({"write":false,"line":14,"column":9,"expr":"data[j]","unknown":true})
    );
    let text = event_text(&event(f)).unwrap();
    assert!(
        text.contains(
            "other side: another invocation of the workgroup (which one is not known) reads at \
             line 14:9 `data[j]`"
        ),
        "{text}"
    );
}

#[test]
fn an_out_of_bounds_access_says_no_read_or_write() {
    // Its record does not say which (an image store is a write, an index
    // may be either): never guessed.
    let f = pb::MemcheckFinding {
        kind: "out-of-bounds".into(),
        line: 9,
        column: 5,
        expr: "imageStore(mirror, p, v)".into(),
        variable: "mirror".into(),
        binding: Some(0),
        element: vec![16, 0],
        invocations: vec![pb::MemcheckInvocation {
            pixel: Some(pb::Pixel { x: 15, y: 0 }),
            ..Default::default()
        }],
        call: 43,
        count: 16,
        ..Default::default()
    };
    let v = event_json(&event(f.clone())).unwrap();
    assert_eq!(v["invocations"], json!([{"x":15,"y":0}]));
    assert_eq!(
        event_text(&event(f)).unwrap(),
        "memcheck: out-of-bounds at line 9:5 `imageStore(mirror, p, v)` (mirror, binding 0) \
         element [16,0]: pixel 15,0; call 43, 16 times"
    );
}
