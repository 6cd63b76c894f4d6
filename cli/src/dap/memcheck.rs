//! memcheck in the editor (issue 17): the launch argument `memcheck`
//! (`"on"` or `"stop"`, sent before the app runs), a finding of `memcheck
//! stop` as an `exception` stop with its `exceptionInfo`, and the
//! findings of `memcheck on` as console output.

use gldbg_proto::pb;
use serde_json::{Value, json};

use super::args::opt_str;

/// The launch argument `memcheck`: None when absent (or `"off"`).
pub fn launch_mode(args: &Value) -> Result<Option<pb::MemcheckMode>, String> {
    match opt_str(args, "memcheck")? {
        None | Some("off") => Ok(None),
        Some("on") => Ok(Some(pb::MemcheckMode::MemcheckOn)),
        Some("stop") => Ok(Some(pb::MemcheckMode::MemcheckStop)),
        Some(other) => Err(format!(
            "memcheck must be \"on\", \"stop\" or \"off\", not {}",
            super::wire::clip(other)
        )),
    }
}

/// A finding as one line of text (the CLI's).
pub fn finding_text(f: &pb::MemcheckFinding) -> String {
    crate::render::event_text(&pb::Event {
        kind: Some(pb::event::Kind::Memcheck(f.clone())),
        seq: 0,
    })
    .unwrap_or_default()
}

/// The `exceptionInfo` body of the stop a finding made: `exceptionId`
/// `memcheck.KIND`, the finding's text, and in `details` the CLI's JSON of
/// the finding (`../shared/CLI.md`).
pub fn exception_info(f: &pb::MemcheckFinding) -> Value {
    let text = finding_text(f);
    let mut json = crate::render::event_json(&pb::Event {
        kind: Some(pb::event::Kind::Memcheck(f.clone())),
        seq: 0,
    })
    .unwrap_or(Value::Null);
    // Not an event of the stream: no sequence number.
    if let Value::Object(o) = &mut json {
        o.remove("seq");
    }
    json!({
        "exceptionId": format!("memcheck.{}", f.kind),
        "description": text,
        "breakMode": "always",
        "details": {
            "message": text,
            "typeName": format!("memcheck {}", f.kind),
            "evaluateName": f.expr,
            "finding": json,
        },
    })
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn exception_info_describes_the_finding() {
        let body = exception_info(&race());
        assert_eq!(body["exceptionId"], "memcheck.race");
        assert_eq!(body["breakMode"], "always");
        let d = body["description"].as_str().unwrap();
        assert!(
            d.starts_with("memcheck: race at line 12:5 `data[i]` (buf.data, binding 1)"),
            "{d}"
        );
        assert!(
            d.contains("other side: workgroup (1,0,0) local (0,0,0) reads at line 14:9 `data[j]`"),
            "{d}"
        );
        assert_eq!(body["details"]["message"], body["description"]);
        let f = &body["details"]["finding"];
        assert_eq!(f["event"], "memcheck");
        assert!(f.get("seq").is_none());
        assert_eq!(f["kind"], "race");
        assert_eq!(f["element"], json!([4]));
        assert_eq!(f["invocations"][1]["line"], 14);
    }

    #[test]
    fn launch_modes() {
        let m = |v: Value| launch_mode(&json!({ "memcheck": v }));
        assert_eq!(m(json!("on")).unwrap(), Some(pb::MemcheckMode::MemcheckOn));
        assert_eq!(
            m(json!("stop")).unwrap(),
            Some(pb::MemcheckMode::MemcheckStop)
        );
        assert_eq!(m(json!("off")).unwrap(), None);
        assert_eq!(launch_mode(&json!({})).unwrap(), None);
        assert!(m(json!("always")).unwrap_err().contains("memcheck must be"));
        assert_eq!(
            m(json!(true)).unwrap_err(),
            "argument 'memcheck' must be a string"
        );
    }
}
