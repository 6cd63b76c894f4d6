//! The trace model on hand-made records of a real shader's step model:
//! positions (calls, loop iterations), what is written when, frames and
//! lookups.

use std::collections::HashMap;

use glsl_instrument::{
    BaseType, END_RECORD, RecordLayout, ShaderModel, Stage, StepId, TraceLayout, TracedPart,
    TracedVar, TracedWrite, ValueType, VarRole,
};

use super::{Defined, Trace};
use crate::shader::TraceData;

const SHADER: &str = "#version 430
layout(local_size_x = 1) in;
float f(float a, out float b) {
    b = a * 2.0;
    return b + 1.0;
}
void main() {
    float acc = 0.0;
    float t;
    for (int i = 0; i < 2; i++) {
        acc += f(float(i), t);
    }
    t = acc;
}
";

fn var(name: &str, base: BaseType, role: VarRole, offset: u32) -> TracedVar {
    TracedVar {
        name: name.into(),
        ty: match base {
            BaseType::Int => "int".into(),
            _ => "float".into(),
        },
        role,
        parts: vec![TracedPart {
            path: String::new(),
            ty: ValueType {
                base,
                components: 1,
            },
            offset,
        }],
    }
}

fn write(name: &str) -> TracedWrite {
    TracedWrite {
        name: name.into(),
        path: Some(String::new()),
    }
}

/// The layout the trace shader of `SHADER` has (step ids from its model).
fn layout(m: &ShaderModel) -> TraceLayout {
    let id = |text: &str| {
        m.steps()
            .iter()
            .find(|s| s.text == text)
            .unwrap_or_else(|| panic!("no step `{text}`"))
            .id
            .0
    };
    let mut records = HashMap::new();
    let locals = |names: &[(&str, BaseType)]| -> Vec<TracedVar> {
        names
            .iter()
            .enumerate()
            .map(|(k, (n, b))| var(n, *b, VarRole::Local, k as u32))
            .collect()
    };
    let f = |n: u32| RecordLayout {
        step: Some(StepId(n)),
        vars: vec![
            var("a", BaseType::Float, VarRole::Param { defined: true }, 0),
            var("b", BaseType::Float, VarRole::Param { defined: false }, 1),
        ],
        words: 2,
        ..Default::default()
    };
    let mut r = f(id("b = a * 2.0;"));
    r.writes = vec![write("b")];
    records.insert(id("b = a * 2.0;"), r);
    records.insert(id("return b + 1.0;"), f(id("return b + 1.0;")));
    let all = [
        ("acc", BaseType::Float),
        ("t", BaseType::Float),
        ("i", BaseType::Int),
    ];
    let main = |text: &str, n: usize, declares: &[&str], writes: &[&str]| {
        let vars = locals(&all[..n]);
        RecordLayout {
            step: Some(StepId(id(text))),
            words: vars.len() as u32,
            vars,
            declares: declares.iter().map(|s| s.to_string()).collect(),
            writes: writes.iter().map(|s| write(s)).collect(),
        }
    };
    for (text, n, declares, writes) in [
        ("float acc = 0.0;", 0, &["acc"][..], &["acc"][..]),
        ("float t;", 1, &["t"], &[]),
        ("int i = 0", 2, &["i"], &["i"]),
        ("i < 2", 3, &[], &[]),
        ("i++", 3, &[], &["i"]),
        ("acc += f(float(i), t);", 3, &[], &["acc", "t"]),
        ("t = acc;", 2, &[], &["t"]),
    ] {
        records.insert(id(text), main(text, n, declares, writes));
    }
    let mut end = main("t = acc;", 2, &[], &[]);
    end.writes.clear();
    records.insert(END_RECORD | id("t = acc;"), end);
    TraceLayout { records }
}

/// The records the invocation writes: (step text, values).
fn run(m: &ShaderModel) -> Vec<u32> {
    let id = |text: &str| m.steps().iter().find(|s| s.text == text).unwrap().id.0;
    let fl = |x: f32| x.to_bits();
    let garbage = 0x7fc0_1234; // what an unwritten `t` reads as
    let mut out = Vec::new();
    let mut rec = |id: u32, values: &[u32]| {
        out.push(id);
        out.push(values.len() as u32);
        out.extend_from_slice(values);
    };
    rec(id("float acc = 0.0;"), &[]);
    rec(id("float t;"), &[fl(0.0)]);
    rec(id("int i = 0"), &[fl(0.0), garbage]);
    let (mut acc, mut t) = (0.0f32, garbage);
    for i in 0..2u32 {
        rec(id("i < 2"), &[fl(acc), t, i]);
        rec(id("acc += f(float(i), t);"), &[fl(acc), t, i]);
        rec(id("b = a * 2.0;"), &[fl(i as f32), garbage]);
        let b = i as f32 * 2.0;
        rec(id("return b + 1.0;"), &[fl(i as f32), fl(b)]);
        acc += b + 1.0;
        t = fl(b);
        rec(id("i++"), &[fl(acc), t, i]);
    }
    rec(id("i < 2"), &[fl(acc), t, 2]);
    rec(id("t = acc;"), &[fl(acc), t]);
    rec(END_RECORD | id("t = acc;"), &[fl(acc), fl(acc)]);
    out
}

/// The trace of `words` (all `records` of a run) made by a trace shader
/// of `m` with `layout`.
fn decoded(
    m: &ShaderModel,
    layout: TraceLayout,
    words: Vec<u32>,
    records: u32,
) -> crate::error::Result<Trace> {
    let shader = glsl_instrument::Trace {
        shader: m
            .instrument_end_of_main(&glsl_instrument::Probe {
                position: &m.entry(),
                expr: None,
                semantics: glsl_instrument::Semantics::Equivalent,
            })
            .unwrap(),
        block: "gldbg_trace".into(),
        layout,
    };
    let data = TraceData {
        hits: 1,
        records,
        full: false,
        words,
    };
    Trace::new(m, shader, "true".into(), data)
}

fn trace() -> (ShaderModel, Trace) {
    let m = ShaderModel::parse(SHADER, Stage::Compute).unwrap();
    let t = decoded(&m, layout(&m), run(&m), 16).unwrap();
    (m, t)
}

#[test]
fn records_become_positions_with_calls_and_iterations() {
    let (m, t) = trace();
    let texts: Vec<&str> = t
        .events
        .iter()
        .map(|e| m.step(e.pos.step).text.as_str())
        .collect();
    assert_eq!(texts.len(), 15, "{texts:?}");
    assert_eq!(texts[4], "acc += f(float(i), t);");
    assert_eq!(texts[5], "b = a * 2.0;");
    // The first call: iteration 0, called from the statement on line 11.
    assert_eq!(t.events[4].pos.iterations, [0]);
    assert_eq!(t.events[5].pos.calls, [(t.events[4].pos.step, 0)]);
    // The second: iteration 1.
    assert_eq!(t.events[9].pos.iterations, [1]);
    assert_eq!(t.events[10].pos.iterations, [1]);
    assert!(t.end.is_some());
    assert!(!t.truncated());
    assert_eq!(t.recorded(), 16);
}

#[test]
fn values_are_undefined_until_written_on_the_path() {
    let (_, t) = trace();
    let value = |i: usize, name: &str| t.lookup(&t.events[i], name).unwrap();
    // `t` is declared without a value: undefined until the call's out argument.
    assert!(value(4, "t").wholly_undefined());
    assert_eq!(t.events[4].defined[1], Defined::No);
    // In f: `b` (out) is undefined before its first write, `a` is the argument.
    assert!(value(5, "b").wholly_undefined());
    assert_eq!(value(5, "a").value, [0.0]);
    assert_eq!(value(6, "b").value, [0.0]);
    assert!(value(6, "b").undefined.is_empty());
    // The second call's `b` starts undefined again (a new activation).
    assert!(value(10, "b").wholly_undefined());
    assert_eq!(value(10, "a").value, [1.0]);
    // After the first call, `t` holds b = 0.
    assert_eq!(value(7, "t").value, [0.0]);
    assert!(value(7, "t").undefined.is_empty());
    // acc: 1 after the first call, 1 + 3 after the second.
    assert_eq!(value(12, "acc").value, [4.0]);
    assert_eq!(t.lookup(t.end.as_ref().unwrap(), "t").unwrap().value, [4.0]);
    assert_eq!(value(12, "i").value, [1.0]);
    assert_eq!(value(12, "i").ty, "int");
    assert!(t.lookup(&t.events[12], "nope").is_none());
}

#[test]
fn frames_find_the_call_site() {
    let (_, t) = trace();
    // In f (event 6), frame 1 is main at the call (event 4).
    assert_eq!(t.frame_event(6, 0), Some(6));
    assert_eq!(t.frame_event(6, 1), Some(4));
    assert_eq!(t.frame_event(11, 1), Some(9));
    assert_eq!(t.frame_event(6, 2), None);
    let args: Vec<String> = t
        .locals(&t.events[6], true)
        .into_iter()
        .map(|l| l.name)
        .collect();
    assert_eq!(args, ["a", "b"]);
    assert!(t.locals(&t.events[6], false).is_empty());
}

#[test]
fn a_record_of_another_step_than_the_model_allows_is_an_error() {
    let m = ShaderModel::parse(SHADER, Stage::Compute).unwrap();
    let mut words = run(&m);
    // Swap the first record's id for `t = acc;` (not main's entry).
    let id = m
        .steps()
        .iter()
        .find(|s| s.text == "t = acc;")
        .unwrap()
        .id
        .0;
    words[0] = id;
    words[1] = 2;
    words.splice(2..2, [0, 0]);
    let err = decoded(&m, layout(&m), words, 16).err().unwrap();
    assert!(
        err.to_string().contains("no path of the step model"),
        "{err}"
    );
}

/// `main`'s last step calls a function: its end record is `main`'s frame,
/// not the callee's (the last record before it).
#[test]
fn the_end_of_main_is_mains_frame_after_a_call() {
    const LAST_CALLS: &str = "#version 430
layout(local_size_x = 1) in;
float f(float a, out float b) {
    b = a * 2.0;
    return b + 1.0;
}
void main() {
    float t;
    float acc = f(1.0, t);
}
";
    let m = ShaderModel::parse(LAST_CALLS, Stage::Compute).unwrap();
    let id = |text: &str| m.steps().iter().find(|s| s.text == text).unwrap().id.0;
    let mut records = HashMap::new();
    let local = |n: &str, k: u32| var(n, BaseType::Float, VarRole::Local, k);
    let rec = |step: &str, vars: Vec<TracedVar>, declares: &[&str], writes: &[&str]| RecordLayout {
        step: Some(StepId(id(step))),
        words: vars.len() as u32,
        vars,
        declares: declares.iter().map(|s| s.to_string()).collect(),
        writes: writes.iter().map(|s| write(s)).collect(),
    };
    records.insert(id("float t;"), rec("float t;", vec![], &["t"], &[]));
    records.insert(
        id("float acc = f(1.0, t);"),
        rec(
            "float acc = f(1.0, t);",
            vec![local("t", 0)],
            &["acc"],
            &["acc", "t"],
        ),
    );
    let params = vec![
        var("a", BaseType::Float, VarRole::Param { defined: true }, 0),
        var("b", BaseType::Float, VarRole::Param { defined: false }, 1),
    ];
    records.insert(
        id("b = a * 2.0;"),
        rec("b = a * 2.0;", params.clone(), &[], &["b"]),
    );
    records.insert(
        id("return b + 1.0;"),
        rec("return b + 1.0;", params, &[], &[]),
    );
    let end = END_RECORD | id("float acc = f(1.0, t);");
    records.insert(
        end,
        rec(
            "float acc = f(1.0, t);",
            vec![local("t", 0), local("acc", 1)],
            &[],
            &[],
        ),
    );
    let fl = |x: f32| x.to_bits();
    let mut words = Vec::new();
    for (rid, values) in [
        (id("float t;"), vec![]),
        (id("float acc = f(1.0, t);"), vec![0x7fc0_0001]),
        (id("b = a * 2.0;"), vec![fl(1.0), 0x7fc0_0002]),
        (id("return b + 1.0;"), vec![fl(1.0), fl(2.0)]),
        (end, vec![fl(2.0), fl(3.0)]),
    ] {
        words.push(rid);
        words.push(values.len() as u32);
        words.extend(values);
    }
    let t = decoded(&m, TraceLayout { records }, words, 5).unwrap();
    let end = t.end.as_ref().unwrap();
    assert!(end.pos.calls.is_empty(), "main's frame: {:?}", end.pos);
    // Both written (t by the call's out argument), not "unknown".
    for (name, want) in [("t", 2.0), ("acc", 3.0)] {
        let v = t.lookup(end, name).unwrap();
        assert_eq!(v.value, [want], "{name}");
        assert!(
            v.undefined.is_empty() && !v.written_unknown,
            "{name}: {v:?}"
        );
    }
    // In f, before its first write, `b` is undefined.
    assert!(t.lookup(&t.events[2], "b").unwrap().wholly_undefined());
}
