//! The renderer's unit tests: each kind of result as text and as JSON.

use super::*;
use crate::command::At;
use crate::exec::Deleted;
use std::path::PathBuf;

mod memcheck;
mod print;
mod source;

fn arg(name: &str, ty: &str, value: &str) -> pb::Argument {
    pb::Argument {
        name: name.into(),
        r#type: ty.into(),
        raw: 0,
        value: value.into(),
        contents: String::new(),
    }
}

fn draw_call() -> pb::CallInfo {
    pb::CallInfo {
        function: "glDrawArrays".into(),
        function_id: 7,
        call: 12,
        thread: 1234,
        args: vec![
            arg("mode", "GLenum", "GL_TRIANGLES"),
            arg("first", "GLint", "0"),
            arg("count", "GLsizei", "6"),
        ],
        draw: 1,
        returned: String::new(),
        ..Default::default()
    }
}

#[test]
fn gl_state_error_stops_and_pauses() {
    let st = pb::GlState {
        values: vec![
            pb::GlStateValue {
                name: "GL_VIEWPORT".into(),
                values: vec![0.0, 0.0, 64.0, 48.0],
                error: String::new(),
            },
            pb::GlStateValue {
                name: "GL_BLEND_SRC_RGB".into(),
                values: vec![1.0],
                error: String::new(),
            },
            pb::GlStateValue {
                name: "GL_TEXTURE_2D".into(),
                values: vec![],
                error: "GL_INVALID_ENUM".into(),
            },
            pb::GlStateValue {
                name: "GL_FOG_COLOR".into(),
                values: vec![0.1f32 as f64, 1e-30f32 as f64, 0.1, f64::NAN],
                error: String::new(),
            },
        ],
    };
    let v = j("info state", Ok(Outcome::GlState(st.clone())));
    assert_eq!(v["state"]["GL_VIEWPORT"], json!([0.0, 0.0, 64.0, 48.0]));
    assert_eq!(v["state_errors"]["GL_TEXTURE_2D"], "GL_INVALID_ENUM");
    let t = result_text(&Ok(Outcome::GlState(st)));
    assert!(t.contains("GL_VIEWPORT      = 0 0 64 48"), "{t}");
    assert!(t.contains("GL_BLEND_SRC_RGB = GL_ONE"), "{t}");
    assert!(t.contains("<GL_INVALID_ENUM>"), "{t}");
    // A float GL keeps reads as that float; a true double keeps its digits.
    assert!(t.contains("= 0.1 1e-30 0.1 NaN"), "{t}");
    let clear = &v["state"]["GL_FOG_COLOR"];
    assert_eq!(clear[3], "NaN", "{v}");

    let mut r = stopped();
    r.stop.as_mut().unwrap().error = "GL_INVALID_ENUM".into();
    let v = j("c", Ok(Outcome::State(r.clone())));
    assert_eq!(v["stopped"]["error"], "GL_INVALID_ENUM");
    assert!(result_text(&Ok(Outcome::State(r))).contains("raised GL_INVALID_ENUM"));

    let paused = pb::StateReply {
        state: pb::RunState::Stopped as i32,
        stop: Some(pb::CallInfo {
            paused: true,
            thread: 77,
            pc: 0x401000,
            pid: 77,
            ..Default::default()
        }),
        ..Default::default()
    };
    let v = j("pause", Ok(Outcome::State(paused.clone())));
    assert_eq!(v["stopped"]["paused"], true);
    assert_eq!(v["stopped"]["thread"], 77);
    assert_eq!(v["stopped"]["pc"], 0x401000);
    let t = result_text(&Ok(Outcome::State(paused)));
    assert!(
        t.contains("pause, outside GL: pc 0x401000 [thread 77]"),
        "{t}"
    );
}

fn stopped() -> pb::StateReply {
    pb::StateReply {
        state: pb::RunState::Stopped as i32,
        stop: Some(draw_call()),
        breakpoint_id: 2,
        ..Default::default()
    }
}

fn shader_stop() -> pb::ShaderStop {
    pb::ShaderStop {
        stage: "fragment".into(),
        step: 7,
        line: 14,
        column: 5,
        function: "shade".into(),
        text: "for (int i = 0; i < 4; ++i)".into(),
        kind: "loop-condition".into(),
        iterations: vec![],
        calls: vec!["main".into(), "shade".into()],
        reached: 4096,
        finished: false,
        breakpoint_line: 0,
        focus: None,
        focus_reached: false,
        timing: None,
        trace: None,
        hits: None,
        ..Default::default()
    }
}

fn j(cmd: &str, r: Result<Outcome, Failure>) -> Value {
    result_json(cmd, &r)
}

#[test]
fn error_line() {
    let v = j("frob", Err("unknown command `frob`".into()));
    assert_eq!(
        v,
        json!({"cmd": "frob", "ok": false, "error": "unknown command `frob`"})
    );
    assert_eq!(result_text(&Err("boom".into())), "Error: boom");
}

#[test]
fn stopped_state() {
    let v = j("c", Ok(Outcome::State(stopped())));
    assert_eq!(
        v,
        json!({"cmd": "c", "ok": true, "state": "stopped",
                   "stopped": {"function": "glDrawArrays", "call": 12, "thread": 1234, "draw": 1},
                   "breakpoint": 2})
    );
    assert_eq!(
        result_text(&Ok(Outcome::State(stopped()))),
        "Stopped at #12 glDrawArrays(mode=GL_TRIANGLES, first=0, count=6) [thread 1234] (draw 1, breakpoint 2)"
    );
}

#[test]
fn exited_and_crashed_state() {
    let exited = pb::StateReply {
        state: pb::RunState::Exited as i32,
        exit: Some(pb::Exit {
            code: Some(0),
            signal: None,
            description: String::new(),
        }),
        ..Default::default()
    };
    assert_eq!(
        j("continue", Ok(Outcome::State(exited.clone()))),
        json!({"cmd": "continue", "ok": true, "state": "exited", "exited": {"code": 0}})
    );
    assert_eq!(
        result_text(&Ok(Outcome::State(exited))),
        "Program exited with code 0."
    );

    let crash = pb::Crash {
        signal: 11,
        signal_name: "SIGSEGV".into(),
        fault_address: 0,
        thread: 1234,
        registers: Default::default(),
        call: Some(draw_call()),
        in_call: true,
        stopped_calls_seen: vec![draw_call()],
        pid: 1234,
        entered: None,
    };
    // The stack showed no call: the last one the thread entered is named,
    // and said not to be known in flight.
    let entered = pb::Crash {
        in_call: false,
        entered: Some(pb::CallInfo {
            function: "glBufferSubData".into(),
            call: 52,
            thread: 1234,
            ..Default::default()
        }),
        ..crash.clone()
    };
    let reply = pb::StateReply {
        state: pb::RunState::Exited as i32,
        crash: Some(entered),
        ..Default::default()
    };
    assert!(
        result_text(&Ok(Outcome::State(reply.clone()))).contains(
            "the last GL call the thread entered: #52 glBufferSubData (in flight or returned: gldbg cannot tell)"
        )
    );
    let v = j("c", Ok(Outcome::State(reply)));
    assert_eq!(
        v["crashed"]["entered"]["function"],
        json!("glBufferSubData")
    );
    assert_eq!(v["crashed"]["entered"]["call"], json!(52));
    assert_eq!(v["crashed"]["in_call"], json!(false));
    let crashed = pb::StateReply {
        state: pb::RunState::Exited as i32,
        exit: Some(pb::Exit {
            code: None,
            signal: Some(11),
            description: String::new(),
        }),
        crash: Some(crash.clone()),
        ..Default::default()
    };
    let v = j("c", Ok(Outcome::State(crashed.clone())));
    assert_eq!(v["exited"], json!({"signal": 11}));
    assert_eq!(v["crashed"]["signal"], json!(11));
    assert_eq!(v["crashed"]["signal_name"], json!("SIGSEGV"));
    assert_eq!(v["crashed"]["fault_address"], json!(0));
    assert_eq!(v["crashed"]["in_call"], json!(true));
    assert_eq!(v["crashed"]["call"]["function"], json!("glDrawArrays"));
    assert_eq!(v["crashed"]["call"]["call"], json!(12));
    let t = result_text(&Ok(Outcome::State(crashed)));
    assert!(t.starts_with(
        "Program crashed: SIGSEGV (signal 11) at address 0x0 [thread 1234]\n  in #12 glDrawArrays("
    ));
    assert!(t.ends_with("Program terminated by signal 11."));

    let ev = pb::Event {
        seq: 9,
        kind: Some(pb::event::Kind::Crashed(crash)),
    };
    let e = event_json(&ev).unwrap();
    assert_eq!(e["event"], json!("crashed"));
    assert_eq!(e["seq"], json!(9));
    assert_eq!(e["signal_name"], json!("SIGSEGV"));
    assert_eq!(e["call"]["function"], json!("glDrawArrays"));
    assert_eq!(
        e["stopped_calls_seen"][0]["function"],
        json!("glDrawArrays")
    );
    assert!(
        crash_text(
            ev.kind
                .as_ref()
                .map(|k| match k {
                    pb::event::Kind::Crashed(c) => c,
                    _ => unreachable!(),
                })
                .unwrap()
        )
        .contains(
            "last calls gldbg stopped at on that thread (not every call):\n    #12 glDrawArrays("
        )
    );
}

#[test]
fn events() {
    let exited = pb::Event {
        seq: 3,
        kind: Some(pb::event::Kind::Exited(pb::Exit {
            code: Some(2),
            signal: None,
            description: String::new(),
        })),
    };
    assert_eq!(
        event_json(&exited).unwrap(),
        json!({"event": "exited", "seq": 3, "code": 2})
    );
    assert_eq!(event_text(&exited).unwrap(), "Program exited with code 2.");
    let warning = pb::Event {
        seq: 4,
        kind: Some(pb::event::Kind::Warning("saved /tmp/x.frag".into())),
    };
    assert_eq!(
        event_json(&warning).unwrap(),
        json!({"event": "warning", "seq": 4, "message": "saved /tmp/x.frag"})
    );
    assert_eq!(event_text(&warning).unwrap(), "warning: saved /tmp/x.frag");
    let stopped = pb::Event {
        seq: 5,
        kind: Some(pb::event::Kind::Stopped(draw_call())),
    };
    assert!(event_json(&stopped).is_none());
    assert!(event_text(&stopped).is_none());
}

#[test]
fn info_call() {
    let mut call = draw_call();
    call.args[0].contents = "void main() {}".into();
    let v = j("info call", Ok(Outcome::Call(call.clone())));
    assert_eq!(v["function"], json!("glDrawArrays"));
    assert_eq!(v["call"], json!(12));
    assert_eq!(v["thread"], json!(1234));
    assert_eq!(v["draw"], json!(1));
    assert_eq!(
        v["args"][0],
        json!({"name": "mode", "type": "GLenum", "value": "GL_TRIANGLES", "raw": 0, "contents": "void main() {}"})
    );
    assert_eq!(
        v["args"][1],
        json!({"name": "first", "type": "GLint", "value": "0", "raw": 0})
    );
    assert_eq!(v["stopped"]["function"], json!("glDrawArrays"));
    let t = result_text(&Ok(Outcome::Call(call)));
    assert!(t.starts_with(
        "#12 glDrawArrays(mode=GL_TRIANGLES, first=0, count=6) [thread 1234] (draw 1)\n"
    ));
    assert!(t.contains("\n  mode   GLenum   = GL_TRIANGLES"));
    assert!(t.contains("\n      | void main() {}"));
}

#[test]
fn breakpoints() {
    let b = pb::Breakpoint {
        id: 1,
        description: "glDrawArrays".into(),
        hits: 0,
        source: None,
    };
    assert_eq!(
        j("break glDrawArrays", Ok(Outcome::Breakpoint(b.clone()))),
        json!({"cmd": "break glDrawArrays", "ok": true,
                   "breakpoint": {"id": 1, "description": "glDrawArrays", "hits": 0}})
    );
    assert_eq!(
        result_text(&Ok(Outcome::Breakpoint(b.clone()))),
        "Breakpoint 1: glDrawArrays"
    );
    let list = Outcome::Breakpoints {
        deleted: None,
        gl: vec![b],
        shader: vec![14],
        details: vec![],
    };
    assert_eq!(
        j("info breakpoints", Ok(list.clone())),
        json!({"cmd": "info breakpoints", "ok": true,
                   "breakpoints": [{"id": 1, "description": "glDrawArrays", "hits": 0}],
                   "shader_breakpoints": [14]})
    );
    assert_eq!(
        result_text(&Ok(list)),
        "Num  What          Hits\n1    glDrawArrays  0\nShader breakpoints at lines 14."
    );
    let del = Outcome::Breakpoints {
        deleted: Some(Deleted::Gl(1)),
        gl: vec![],
        shader: vec![],
        details: vec![],
    };
    assert_eq!(j("delete 1", Ok(del.clone()))["deleted"], json!(1));
    assert_eq!(result_text(&Ok(del)), "Deleted breakpoint 1.");
    let sb = Outcome::ShaderBreak {
        line: 14,
        lines: vec![14, 20],
    };
    assert_eq!(
        j("break 14", Ok(sb.clone())),
        json!({"cmd": "break 14", "ok": true, "line": 14, "shader_breakpoints": [14, 20]})
    );
    assert_eq!(
        result_text(&Ok(sb)),
        "Shader breakpoint at line 14 (all: lines 14, 20)."
    );
}

#[test]
fn shader_stops() {
    let v = j("debug fragment", Ok(Outcome::ShaderStop(shader_stop())));
    assert_eq!(
        v,
        json!({"cmd": "debug fragment", "ok": true, "stage": "fragment", "line": 14, "column": 5,
                   "step": 7, "function": "shade", "text": "for (int i = 0; i < 4; ++i)",
                   "kind": "loop-condition", "reached": 4096, "finished": false, "iterations": [],
                   "calls": ["main", "shade"]})
    );
    assert_eq!(
        result_text(&Ok(Outcome::ShaderStop(shader_stop()))),
        "fragment shader: line 14:5 in shade(): for (int i = 0; i < 4; ++i)  [reached by 4096 fragments]"
    );
    let mut s = shader_stop();
    s.iterations = vec![2];
    s.breakpoint_line = 14;
    assert_eq!(
        result_text(&Ok(Outcome::ShaderStop(s.clone()))),
        "fragment shader: line 14:5 in shade(): for (int i = 0; i < 4; ++i)  \
             [reached by 4096 fragments, loop iteration 2, breakpoint at line 14]"
    );
    assert_eq!(
        j("c", Ok(Outcome::ShaderStop(s)))["breakpoint_line"],
        json!(14)
    );
    let done = pb::ShaderStop {
        stage: "fragment".into(),
        finished: true,
        reached: 10,
        ..Default::default()
    };
    assert_eq!(
        result_text(&Ok(Outcome::ShaderStop(done))),
        "fragment shader: finished (end of main)  [reached by 10 fragments]"
    );
}

#[test]
fn program_and_listing() {
    let p = pb::ProgramInfo {
        program: 3,
        shaders: vec![pb::ShaderInfo {
            stage: "fragment".into(),
            id: 2,
            version: "330 core".into(),
            source: "void main(){}".into(),
            recorded: true,
        }],
        uniforms: vec![pb::Variable {
            name: "t".into(),
            r#type: "float".into(),
            size: 1,
            location: 0,
            value: "1.5".into(),
            ..Default::default()
        }],
        attributes: vec![pb::Variable {
            name: "pos".into(),
            r#type: "vec2".into(),
            size: 1,
            location: 0,
            value: String::new(),
            ..Default::default()
        }],
        outputs: vec![],
        ..Default::default()
    };
    let v = j("info program", Ok(Outcome::Program(p.clone())));
    assert_eq!(v["program"], json!(3));
    assert_eq!(
        v["shaders"],
        json!([{"stage": "fragment", "id": 2, "version": "330 core", "source": "void main(){}", "recorded": true}])
    );
    assert_eq!(
        v["uniforms"],
        json!([{"name": "t", "type": "float", "size": 1, "location": 0, "value": "1.5"}])
    );
    assert_eq!(v["attributes"][0]["name"], json!("pos"));
    assert_eq!(v["outputs"], json!([]));
    assert_eq!(
        result_text(&Ok(Outcome::Program(p))),
        "Program 3\n  fragment shader 2, #version 330 core\nUniforms:\n  float t (location 0) = 1.5\nAttributes:\n  vec2 pos (location 0)"
    );

    let listing = pb::SourceListing {
        lines: vec![
            pb::SourceLine {
                line: 13,
                text: "float acc = 0.0;".into(),
                current: false,
                breakpoint: false,
                file_line: 0,
            },
            pb::SourceLine {
                line: 14,
                text: "for (;;)".into(),
                current: true,
                breakpoint: true,
                file_line: 0,
            },
        ],
        file: String::new(),
    };
    assert_eq!(
        result_text(&Ok(Outcome::Listing(listing.clone()))),
        "     13  float acc = 0.0;\n=*   14  for (;;)"
    );
    assert_eq!(
        j("list", Ok(Outcome::Listing(listing)))["lines"][1],
        json!({"line": 14, "text": "for (;;)", "current": true, "breakpoint": true})
    );
}

#[test]
fn dumps() {
    let dump = Outcome::Dump {
        file: PathBuf::from("x.png"),
        width: 64,
        height: 32,
        ty: "float".into(),
        reached: 100,
        stage: "fragment".into(),
        mapped: vec![(0.0, 1.5e-30)],
        viridis: false,
        legend_width: 0,
        written_unknown: Vec::new(),
    };
    assert_eq!(
        j("dump v x.png", Ok(dump.clone())),
        json!({"cmd": "dump v x.png", "ok": true, "file": "x.png", "width": 64, "height": 32,
                   "type": "float", "reached": 100, "mapped": {"min": [0.0], "max": [1.5e-30]},
                   "colormap": "channels"})
    );
    assert_eq!(
        result_text(&Ok(dump)),
        "Wrote x.png (64x32, float, 100 fragments reached; mapped 0..1.5e-30)."
    );
    let viridis = Outcome::Dump {
        file: PathBuf::from("x.png"),
        width: 64,
        height: 32,
        ty: "float".into(),
        reached: 100,
        stage: "fragment".into(),
        mapped: vec![(0.0, 1.0)],
        viridis: true,
        legend_width: 12,
        written_unknown: Vec::new(),
    };
    assert_eq!(
        j("dump v x.png colormap=viridis", Ok(viridis.clone()))["legend_width"],
        12
    );
    assert_eq!(
        result_text(&Ok(viridis)),
        "Wrote x.png (64x32, float, 100 fragments reached; viridis over 0..1, legend at x \
             64..75 (top max, bottom min))."
    );
    let channels = Outcome::Dump {
        file: PathBuf::from("c.png"),
        width: 4,
        height: 4,
        ty: "vec3".into(),
        reached: 0,
        stage: "fragment".into(),
        mapped: vec![(f64::NAN, f64::NAN), (-2.0, 3.0), (0.0, 0.0)],
        viridis: false,
        legend_width: 0,
        written_unknown: Vec::new(),
    };
    assert_eq!(
        j("dump c c.png", Ok(channels.clone()))["mapped"],
        json!({"min": ["NaN", -2.0, 0.0], "max": ["NaN", 3.0, 0.0]})
    );
    assert_eq!(
        result_text(&Ok(channels)),
        "Wrote c.png (4x4, vec3, 0 fragments reached; mapped r no finite value, g -2..3, b 0..0)."
    );
}

#[test]
fn flow_and_focus_render() {
    let info = pb::FlowInfo {
        kind: "loop".into(),
        line: 25,
        condition: "n < idx % 5u".into(),
        reached: 512,
        sides: vec![],
        iterations: vec![
            pb::FlowIteration {
                iteration: 0,
                evaluated: 512,
                entered: 410,
            },
            pb::FlowIteration {
                iteration: 1,
                evaluated: 410,
                entered: 0,
            },
        ],
        chart_png: vec![],
    };
    let out = Ok(Outcome::Flow { info, chart: None });
    assert_eq!(
        result_text(&out),
        "loop at line 25: n < idx % 5u  [512 invocations]\n  iteration  evaluated  stay in\n          0        512      410\n          1        410        0"
    );
    let v = j("info flow", out);
    assert_eq!(v["iterations"][0]["entered"], 410);
    assert!(v.get("sides").is_none());

    let mut s = shader_stop();
    s.focus = Some(crate::exec::invocation(At::Pixel { x: 3, y: 4 }));
    s.focus_reached = false;
    assert!(
        result_text(&Ok(Outcome::ShaderStop(s.clone()))).ends_with("focus 3,4 (not here)]"),
        "{}",
        result_text(&Ok(Outcome::ShaderStop(s.clone())))
    );
    let v = j("step", Ok(Outcome::ShaderStop(s)));
    assert_eq!(v["focus"], json!({"x": 3, "y": 4}));
    assert_eq!(v["focus_reached"], false);
}

/// A crash as text (as the `crashed` event shows it).
fn crash_text(crash: &pb::Crash) -> String {
    call::CrashView::new(crash).to_string()
}
