//! The renderer's unit tests of source breakpoints (issue 15): a source
//! breakpoint's state, and the user's file and line in shader stops,
//! frames and listings (keys added after the existing ones).

use super::*;
use serde_json::json;

fn source_bp(verified: bool) -> pb::Breakpoint {
    pb::Breakpoint {
        id: 3,
        description: "wave.frag:24 if p.x > 0.0".into(),
        hits: 1,
        source: Some(pb::SourceBreakpoint {
            file: "wave.frag".into(),
            text: "...".into(),
            line: 24,
            condition: "p.x > 0.0".into(),
            verified,
            shaders: match verified {
                true => vec!["shader 3 fragment, program 1".into()],
                false => vec![],
            },
            message: match verified {
                true => String::new(),
                false => "no shader seen so far holds wave.frag".into(),
            },
            ..Default::default()
        }),
    }
}

#[test]
fn source_breakpoints_say_where_and_whether_verified() {
    let v = j(
        "break wave.frag:24 if p.x > 0.0",
        Ok(Outcome::Breakpoint(source_bp(true))),
    );
    assert_eq!(
        v["breakpoint"],
        json!({"id": 3, "description": "wave.frag:24 if p.x > 0.0", "hits": 1,
               "source": {"file": "wave.frag", "line": 24, "condition": "p.x > 0.0",
                          "temporary": false, "verified": true,
                          "shaders": ["shader 3 fragment, program 1"]}})
    );
    assert_eq!(
        result_text(&Ok(Outcome::Breakpoint(source_bp(true)))),
        "Breakpoint 3: wave.frag:24 if p.x > 0.0 (in shader 3 fragment, program 1)"
    );
    assert_eq!(
        result_text(&Ok(Outcome::Breakpoint(source_bp(false)))),
        "Breakpoint 3: wave.frag:24 if p.x > 0.0 (pending: no shader seen so far holds wave.frag)"
    );
}

#[test]
fn mapped_stops_frames_and_listings_name_the_file_line() {
    let mut stop = shader_stop();
    stop.source = Some(pb::SourceLocation {
        file: "wave.frag".into(),
        line: 12,
    });
    let v = j("continue", Ok(Outcome::ShaderStop(stop.clone())));
    assert_eq!(
        (v["line"].clone(), v["file"].clone(), v["file_line"].clone()),
        (json!(14), json!("wave.frag"), json!(12))
    );
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys[keys.len() - 2..],
        ["file", "file_line"],
        "appended after the existing keys"
    );
    assert!(
        result_text(&Ok(Outcome::ShaderStop(stop)))
            .starts_with("fragment shader: line 14:5 (wave.frag:12) in shade()"),
    );
    // Unmapped: no keys.
    let v = j("continue", Ok(Outcome::ShaderStop(shader_stop())));
    assert!(v.get("file").is_none() && v.get("file_line").is_none());

    let frames = pb::CallStack {
        frames: vec![pb::StackFrame {
            level: 0,
            function: "main".into(),
            line: 26,
            column: 9,
            args: vec![],
            source: Some(pb::SourceLocation {
                file: "wave.frag".into(),
                line: 24,
            }),
        }],
        timing: None,
    };
    let v = j("backtrace", Ok(Outcome::Frames(frames.clone())));
    assert_eq!(v["frames"][0]["file"], json!("wave.frag"));
    assert_eq!(v["frames"][0]["file_line"], json!(24));
    assert_eq!(
        result_text(&Ok(Outcome::Frames(frames))),
        "#0  main () at line 26:9 (wave.frag:24)"
    );

    let line = |line, file_line, current| pb::SourceLine {
        line,
        text: format!("text {line}"),
        current,
        breakpoint: false,
        file_line,
    };
    let listing = pb::SourceListing {
        lines: vec![line(2, 0, false), line(3, 1, true)],
        file: "wave.vert".into(),
    };
    let v = j("list", Ok(Outcome::Listing(listing.clone())));
    assert_eq!(
        v["lines"][1],
        json!({"line": 3, "text": "text 3", "current": true, "breakpoint": false,
               "file": "wave.vert", "file_line": 1})
    );
    assert!(
        v["lines"][0].get("file").is_none(),
        "the prefix's line is not the file's"
    );
    assert_eq!(
        result_text(&Ok(Outcome::Listing(listing))),
        "  shader   wave.vert\n      2          text 2\n=>    3       1  text 3"
    );
}
