//! The renderer's unit tests of `print`: values at an invocation, in
//! parts, not written yet, summaries and what a primitive emitted.

use super::*;

#[test]
fn prints_what_a_primitive_emitted() {
    let vertex = |emit, invocation, vertex, value: Option<f64>| pb::EmittedVertex {
        emit,
        invocation,
        vertex,
        reached: value.is_some(),
        value: value.into_iter().collect(),
    };
    let reply = pb::PrintReply {
        expr: "s".into(),
        r#type: "float".into(),
        reached: true,
        at: Some(crate::exec::invocation(At::Primitive(1))),
        emitted: vec![
            vertex(0, 0, 3, None),
            vertex(1, 0, 4, Some(2.5)),
            vertex(0, 1, 9, Some(1.0)),
        ],
        ..Default::default()
    };
    let out = Outcome::Print {
        reply,
        at: Some(At::Primitive(1)),
        stage: "geometry".into(),
    };
    assert_eq!(
        result_text(&Ok(out.clone())),
        "s @ primitive 1 (float): 3 vertices emitted\n  #0 [vertex 3]: not reached when emitted\n  \
             #1 [vertex 4]: 2.5\n  #0 (invocation 1) [vertex 9]: 1"
    );
    let v = j("print s @ primitive 1", Ok(out));
    assert_eq!(v["invocation"], json!({"primitive": 1}));
    assert_eq!(
        v["emitted"],
        json!([
            {"emit": 0, "invocation": 0, "vertex": 3, "reached": false},
            {"emit": 1, "invocation": 0, "vertex": 4, "reached": true, "value": [2.5]},
            {"emit": 0, "invocation": 1, "vertex": 9, "reached": true, "value": [1.0]},
        ])
    );
}

#[test]
fn a_vertex_summary_shows_a_table() {
    let reply = pb::PrintReply {
        expr: "p".into(),
        r#type: "vec2".into(),
        reached: true,
        summary: Some(pb::Summary {
            count: 1,
            min: vec![1.0, 2.0],
            max: vec![1.0, 2.0],
            total: 2,
            ..Default::default()
        }),
        table: vec![
            pb::TableRow {
                vertex: 0,
                reached: true,
                value: vec![1.0, 2.0],
                ..Default::default()
            },
            pb::TableRow {
                vertex: 1,
                reached: false,
                value: vec![],
                ..Default::default()
            },
        ],
        ..Default::default()
    };
    let out = Outcome::Print {
        reply,
        at: None,
        stage: "vertex".into(),
    };
    assert_eq!(
        result_text(&Ok(out.clone())),
        "p (vec2): 1 of 2 vertices reached; min (1, 2), max (1, 2); NaN 0, Inf 0\n  \
             first 2 of 2:\n  vertex 0: (1, 2)\n  vertex 1: not reached"
    );
    assert_eq!(
        j("print p", Ok(out))["table"],
        json!([{"vertex": 0, "reached": true, "value": [1.0, 2.0]},
                   {"vertex": 1, "reached": false}])
    );
}

#[test]
fn values_in_parts_print_each_part_at_its_path_and_type() {
    let part = |path: &str, ty: &str, components| pb::ValuePart {
        path: path.into(),
        r#type: ty.into(),
        components,
    };
    let reply = pb::PrintReply {
        expr: "light".into(),
        r#type: "Light".into(),
        value: vec![0.5, 1.0, 0.0, 7.0, 1.0],
        reached: true,
        parts: vec![
            part(".color", "vec3", 3),
            part(".count", "int", 1),
            part(".on", "bool", 1),
        ],
        ..Default::default()
    };
    let out = Outcome::Print {
        reply,
        at: Some(At::Pixel { x: 1, y: 2 }),
        stage: "fragment".into(),
    };
    assert_eq!(
        result_text(&Ok(out.clone())),
        "light = {.color = (0.5, 1, 0), .count = 7, .on = true} (Light) @ 1,2"
    );
    let v = j("print light @ 1,2", Ok(out));
    assert_eq!(v["value"], json!([0.5, 1.0, 0.0, 7, 1]));
    assert_eq!(
        v["parts"],
        json!([{"path": ".color", "type": "vec3", "components": 3},
                   {"path": ".count", "type": "int", "components": 1},
                   {"path": ".on", "type": "bool", "components": 1}])
    );
}

#[test]
fn unwritten_components_and_discarded_fragments_are_no_numbers() {
    let at = Some(At::Pixel { x: 3, y: 4 });
    let reply = pb::PrintReply {
        expr: "gl_FragColor".into(),
        r#type: "vec4".into(),
        value: vec![0.5, 0.25, 1.0, -8e-38],
        reached: true,
        at: Some(crate::exec::invocation(At::Pixel { x: 3, y: 4 })),
        undefined: vec![3],
        ..Default::default()
    };
    let out = |reply: pb::PrintReply| Outcome::Print {
        reply,
        at,
        stage: "fragment".into(),
    };
    assert_eq!(
        result_text(&Ok(out(reply.clone()))),
        "gl_FragColor = (0.5, 0.25, 1, undefined) (vec4) @ 3,4"
    );
    let v = j("print gl_FragColor @ 3,4", Ok(out(reply.clone())));
    assert_eq!(v["value"], json!([0.5, 0.25, 1.0, "undefined"]));
    assert_eq!(v["undefined_components"], json!([3]));
    let none = pb::PrintReply {
        undefined: vec![0, 1, 2, 3],
        ..reply.clone()
    };
    assert_eq!(
        result_text(&Ok(out(none.clone()))),
        "gl_FragColor @ 3,4: not yet written at this step (vec4)"
    );
    let v = j("print gl_FragColor @ 3,4", Ok(out(none)));
    assert_eq!(v["undefined"], json!(true), "{v}");
    assert!(v.get("value").is_none(), "{v}");
    // Where gldbg cannot tell: the value as read, with the note.
    let unknown = pb::PrintReply {
        undefined: vec![],
        written_unknown: vec!["gl_FragColor".into()],
        ..reply.clone()
    };
    assert_eq!(
        result_text(&Ok(out(unknown.clone()))),
        "gl_FragColor = (0.5, 0.25, 1, -8e-38) (vec4) @ 3,4\n  note: gldbg cannot tell \
             whether gl_FragColor was written at this step; shown as read"
    );
    let v = j("print gl_FragColor @ 3,4", Ok(out(unknown)));
    assert_eq!(v["written_unknown"], json!(["gl_FragColor"]), "{v}");
    assert!(v.get("undefined").is_none(), "{v}");
    let discarded = pb::PrintReply {
        reached: false,
        discarded: true,
        value: vec![],
        undefined: vec![],
        ..reply.clone()
    };
    assert_eq!(
        result_text(&Ok(out(discarded.clone()))),
        "gl_FragColor @ 3,4: discarded before the end of main"
    );
    assert_eq!(
        j("print gl_FragColor @ 3,4", Ok(out(discarded)))["discarded"],
        json!(true)
    );
    let sum = pb::PrintReply {
        at: None,
        value: vec![],
        undefined: vec![],
        summary: Some(pb::Summary {
            count: 10,
            min: vec![0.0; 4],
            max: vec![1.0; 4],
            total: 12,
            discarded: 2,
            undefined: 4,
            ..Default::default()
        }),
        ..reply
    };
    let out = Outcome::Print {
        reply: sum,
        at: None,
        stage: "fragment".into(),
    };
    assert_eq!(
        result_text(&Ok(out.clone())),
        "gl_FragColor (vec4): 10 of 12 fragments reached, 2 discarded; 4 not yet written at \
             this step (left out of min/max); min (0, 0, 0, 0), max (1, 1, 1, 1); NaN 0, Inf 0"
    );
    let v = j("print gl_FragColor", Ok(out));
    assert_eq!(v["summary"]["discarded"], json!(2));
    assert_eq!(v["summary"]["undefined"], json!(4));
}

#[test]
fn prints() {
    let one = pb::PrintReply {
        expr: "v".into(),
        r#type: "float".into(),
        value: vec![31.5],
        reached: true,
        at: Some(crate::exec::invocation(At::Pixel { x: 10, y: 5 })),
        summary: None,
        timing: None,
        emitted: Vec::new(),
        table: Vec::new(),
        parts: Vec::new(),
        ..Default::default()
    };
    let out = Outcome::Print {
        reply: one.clone(),
        at: Some(At::Pixel { x: 10, y: 5 }),
        stage: "fragment".into(),
    };
    assert_eq!(
        j("print v @ 10,5", Ok(out.clone())),
        json!({"cmd": "print v @ 10,5", "ok": true, "expr": "v", "type": "float",
                   "invocation": {"x": 10, "y": 5}, "reached": true, "value": [31.5]})
    );
    assert_eq!(result_text(&Ok(out)), "v = 31.5 (float) @ 10,5");

    // f32 values print in their shortest form; NaN is a string in JSON.
    let vec = pb::PrintReply {
        expr: "c".into(),
        r#type: "vec3".into(),
        value: vec![0.1f32 as f64, 1.0, f64::NAN],
        reached: true,
        at: None,
        summary: None,
        timing: None,
        emitted: Vec::new(),
        table: Vec::new(),
        parts: Vec::new(),
        ..Default::default()
    };
    let out = Outcome::Print {
        reply: vec,
        at: Some(At::Vertex(2)),
        stage: "vertex".into(),
    };
    let v = j("p c @ vertex 2", Ok(out.clone()));
    assert_eq!(v["value"], json!([0.1, 1.0, "NaN"]));
    assert_eq!(v["invocation"], json!({"vertex": 2}));
    assert_eq!(result_text(&Ok(out)), "c = (0.1, 1, NaN) (vec3) @ vertex 2");

    let ints = pb::PrintReply {
        expr: "i".into(),
        r#type: "int".into(),
        value: vec![3.0],
        reached: true,
        ..Default::default()
    };
    let out = Outcome::Print {
        reply: ints,
        at: Some(At::Invocation { x: 1, y: 2, z: 3 }),
        stage: "compute".into(),
    };
    assert_eq!(
        j("p i @ invocation 1,2,3", Ok(out.clone()))["value"],
        json!([3])
    );
    assert_eq!(
        j("p i @ invocation 1,2,3", Ok(out.clone()))["invocation"],
        json!({"x": 1, "y": 2, "z": 3})
    );
    assert_eq!(result_text(&Ok(out)), "i = 3 (int) @ invocation 1,2,3");

    let missed = pb::PrintReply {
        expr: "v".into(),
        r#type: "float".into(),
        reached: false,
        ..Default::default()
    };
    let out = Outcome::Print {
        reply: missed,
        at: Some(At::Pixel { x: 0, y: 0 }),
        stage: "fragment".into(),
    };
    assert_eq!(
        j("print v @ 0,0", Ok(out.clone())),
        json!({"cmd": "print v @ 0,0", "ok": true, "expr": "v", "type": "float",
                   "invocation": {"x": 0, "y": 0}, "reached": false})
    );
    assert_eq!(result_text(&Ok(out)), "v @ 0,0: not reached at this step");
}

/// One typed result rendered both ways: the JSON line byte for byte
/// (key order included) and the text, for a value in parts of three
/// kinds, each shown by the kind its type name parses to.
#[test]
fn a_print_in_parts_renders_as_json_and_as_text() {
    let part = |path: &str, ty: &str| pb::ValuePart {
        path: path.into(),
        r#type: ty.into(),
        components: 2,
    };
    let reply = pb::PrintReply {
        expr: "s".into(),
        r#type: "S".into(),
        value: vec![1.0, 0.0, -3.0, 3e9, 0.1f32 as f64, f64::INFINITY],
        reached: true,
        parts: vec![
            part(".on", "bvec2"),
            part(".n", "uvec2"),
            part(".f", "vec2"),
        ],
        ..Default::default()
    };
    let out = Ok(Outcome::Print {
        reply,
        at: Some(At::Pixel { x: 3, y: 4 }),
        stage: "fragment".into(),
    });
    assert_eq!(
        result_json("print s @ 3,4", &out).to_string(),
        r#"{"cmd":"print s @ 3,4","ok":true,"expr":"s","type":"S","invocation":{"x":3,"y":4},"reached":true,"value":[1,0,-3,3000000000,0.1,"Inf"],"parts":[{"path":".on","type":"bvec2","components":2},{"path":".n","type":"uvec2","components":2},{"path":".f","type":"vec2","components":2}]}"#
    );
    assert_eq!(
        result_text(&out),
        "s = {.on = (true, false), .n = (-3, 3000000000), .f = (0.1, inf)} (S) @ 3,4"
    );
}

/// A summary where no reached invocation wrote the value: no min or
/// max, and the keys in the order scripts have always read.
#[test]
fn a_summary_with_nothing_written_renders_as_json_and_as_text() {
    let reply = pb::PrintReply {
        expr: "y".into(),
        r#type: "float".into(),
        summary: Some(pb::Summary {
            count: 3,
            min: vec![f64::NAN],
            max: vec![f64::NAN],
            total: 3,
            undefined: 3,
            ..Default::default()
        }),
        ..Default::default()
    };
    let out = Ok(Outcome::Print {
        reply,
        at: None,
        stage: "geometry".into(),
    });
    assert_eq!(
        result_json("print y", &out).to_string(),
        r#"{"cmd":"print y","ok":true,"expr":"y","type":"float","summary":{"count":3,"undefined":3,"total":3,"nan":0,"inf":0}}"#
    );
    assert_eq!(
        result_text(&out),
        "y (float): 3 of 3 vertices reached; 3 not yet written at this step (left out of min/max); NaN 0, Inf 0"
    );
}

#[test]
fn summary_prints() {
    let sum = pb::PrintReply {
        expr: "v".into(),
        r#type: "vec2".into(),
        summary: Some(pb::Summary {
            count: 4096,
            min: vec![0.0, 0.5],
            max: vec![1.0, 31.5],
            nan: 0,
            inf: 1,
            total: 5000,
            ..Default::default()
        }),
        ..Default::default()
    };
    let out = Outcome::Print {
        reply: sum,
        at: None,
        stage: "fragment".into(),
    };
    assert_eq!(
        j("print v", Ok(out.clone())),
        json!({"cmd": "print v", "ok": true, "expr": "v", "type": "vec2",
                   "summary": {"count": 4096, "min": [0.0, 0.5], "max": [1.0, 31.5], "nan": 0, "inf": 1, "total": 5000}})
    );
    assert_eq!(
        result_text(&Ok(out)),
        "v (vec2): 4096 of 5000 fragments reached; min (0, 0.5), max (1, 31.5); NaN 0, Inf 1"
    );

    // Nothing written yet anywhere: no min or max, in JSON as in text.
    let none = pb::PrintReply {
        expr: "y".into(),
        r#type: "float".into(),
        summary: Some(pb::Summary {
            count: 10,
            min: vec![f64::NAN],
            max: vec![f64::NAN],
            total: 10,
            undefined: 10,
            ..Default::default()
        }),
        ..Default::default()
    };
    let out = Outcome::Print {
        reply: none,
        at: None,
        stage: "fragment".into(),
    };
    assert_eq!(
        j("print y", Ok(out)),
        json!({"cmd": "print y", "ok": true, "expr": "y", "type": "float",
                   "summary": {"count": 10, "nan": 0, "inf": 0, "total": 10, "undefined": 10}})
    );
}
