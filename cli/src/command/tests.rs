use super::*;

fn p(line: &str) -> Command {
    parse(line)
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .expect("a command")
}

fn bad(line: &str) -> String {
    parse(line).expect_err(line).0
}

#[test]
fn blank_and_comments() {
    assert_eq!(parse(""), Ok(None));
    assert_eq!(parse("   \t"), Ok(None));
    assert_eq!(parse("# break draw"), Ok(None));
    assert_eq!(parse("   # indented"), Ok(None));
}

#[test]
fn run_control() {
    for s in ["continue", "c", "cont", "  c  "] {
        assert_eq!(p(s), Command::Continue);
    }
    assert_eq!(p("step"), Command::Step(1));
    assert_eq!(p("s"), Command::Step(1));
    assert_eq!(p("step 5"), Command::Step(5));
    assert_eq!(p("s 3"), Command::Step(3));
    assert_eq!(p("next"), Command::Next(1));
    assert_eq!(p("n 2"), Command::Next(2));
    assert_eq!(p("finish"), Command::Finish);
    assert_eq!(p("skip"), Command::Skip);
    assert_eq!(p("end"), Command::End);
    assert_eq!(p("detach"), Command::Detach);
    assert_eq!(p("kill"), Command::Kill);
    assert_eq!(p("quit"), Command::Quit);
    assert_eq!(p("q"), Command::Quit);
    assert_eq!(p("help"), Command::Help(None));
}

#[test]
fn breakpoints() {
    assert_eq!(
        p("break glDrawArrays"),
        Command::Break(BreakTarget::Function("glDrawArrays".into()))
    );
    assert_eq!(
        p("b eglSwapBuffers"),
        Command::Break(BreakTarget::Function("eglSwapBuffers".into()))
    );
    assert_eq!(p("break draw"), Command::Break(BreakTarget::Draw));
    assert_eq!(
        p("break draw 3"),
        Command::Break(BreakTarget::DrawNumber(3))
    );
    assert_eq!(
        p("break shader-switch"),
        Command::Break(BreakTarget::ShaderSwitch)
    );
    assert_eq!(p("break frame"), Command::Break(BreakTarget::Frame));
    assert_eq!(p("break error"), Command::Break(BreakTarget::GlError));
    assert_eq!(p("break 14"), Command::Break(BreakTarget::Line(14)));
    assert_eq!(p("info breakpoints"), Command::InfoBreakpoints);
    assert_eq!(p("info b"), Command::InfoBreakpoints);
    assert_eq!(p("delete"), Command::Delete(None));
    assert_eq!(p("delete 2"), Command::Delete(Some(2)));
    assert_eq!(p("d 7"), Command::Delete(Some(7)));
}

#[test]
fn inspection() {
    assert_eq!(p("info call"), Command::InfoCall);
    assert_eq!(p("where"), Command::InfoCall);
    assert_eq!(p("bt"), Command::Backtrace);
    assert_eq!(p("info program"), Command::InfoProgram);
    assert_eq!(
        p("set arg 2 6"),
        Command::SetArg {
            index: 2,
            element: None,
            value: "6".into()
        }
    );
    assert_eq!(
        p("set arg 0 GL_LINES"),
        Command::SetArg {
            index: 0,
            element: None,
            value: "GL_LINES".into()
        }
    );
    assert_eq!(
        p("set arg 1  0.5"),
        Command::SetArg {
            index: 1,
            element: None,
            value: "0.5".into()
        }
    );
    assert_eq!(
        p("set arg 2[3] -0.25"),
        Command::SetArg {
            index: 2,
            element: Some(3),
            value: "-0.25".into()
        }
    );
    assert!(parse("set arg 2[x 1").is_err());
    assert_eq!(p("info state"), Command::InfoState(None));
    assert_eq!(
        p("info state GL_VIEWPORT"),
        Command::InfoState(Some("GL_VIEWPORT".into()))
    );
    assert_eq!(p("pause"), Command::Pause);
}

#[test]
fn shader_commands() {
    let d = |s| Command::Debug(s, FragmentOptions::default());
    assert_eq!(p("debug fragment"), d(Stage::Fragment));
    assert_eq!(p("debug vertex"), d(Stage::Vertex));
    assert_eq!(p("debug tess-control"), d(Stage::TessControl));
    assert_eq!(p("debug tess-eval"), d(Stage::TessEval));
    assert_eq!(p("debug geometry"), d(Stage::Geometry));
    assert_eq!(p("debug compute"), d(Stage::Compute));
    assert_eq!(p("debug frag"), d(Stage::Fragment));
    assert_eq!(
        p("debug fragment depth=off stencil=clear alpha-test=off"),
        Command::Debug(
            Stage::Fragment,
            FragmentOptions {
                depth: BufferMode::Off,
                stencil: BufferMode::Clear,
                alpha_test_off: true,
            }
        )
    );
    assert!(bad("debug fragment depth=maybe").contains("copy, clear or off"));
    assert!(bad("debug fragment blend=off").contains("unknown option"));
    assert!(bad("debug vertex depth=off").contains("for `debug fragment`"));
    for s in Stage::ALL {
        assert_eq!(p(&format!("debug {}", s.name())), d(s));
    }
    assert_eq!(p("list"), Command::List(None));
    assert_eq!(p("list 20"), Command::List(Some(20)));
    assert_eq!(p("l"), Command::List(None));
}

#[test]
fn print_forms() {
    assert_eq!(
        p("print v"),
        Command::Print {
            expr: "v".into(),
            at: None
        }
    );
    assert_eq!(
        p("p color.rgb"),
        Command::Print {
            expr: "color.rgb".into(),
            at: None
        }
    );
    assert_eq!(
        p("print a + b * 2.0"),
        Command::Print {
            expr: "a + b * 2.0".into(),
            at: None
        }
    );
    assert_eq!(
        p("print v @ 10,5"),
        Command::Print {
            expr: "v".into(),
            at: Some(At::Pixel { x: 10, y: 5 })
        }
    );
    assert_eq!(
        p("print v@10,5"),
        Command::Print {
            expr: "v".into(),
            at: Some(At::Pixel { x: 10, y: 5 })
        }
    );
    assert_eq!(
        p("p v @ 10, 5"),
        Command::Print {
            expr: "v".into(),
            at: Some(At::Pixel { x: 10, y: 5 })
        }
    );
    assert_eq!(
        p("print v @ vertex 2"),
        Command::Print {
            expr: "v".into(),
            at: Some(At::Vertex(2))
        }
    );
    assert_eq!(
        p("print v @ primitive 7"),
        Command::Print {
            expr: "v".into(),
            at: Some(At::Primitive(7))
        }
    );
    assert_eq!(
        p("print v @ invocation 1,2,3"),
        Command::Print {
            expr: "v".into(),
            at: Some(At::Invocation { x: 1, y: 2, z: 3 })
        }
    );
    assert_eq!(
        p("print f(x, y) @ 3,4"),
        Command::Print {
            expr: "f(x, y)".into(),
            at: Some(At::Pixel { x: 3, y: 4 })
        }
    );
    assert_eq!(At::Pixel { x: 10, y: 5 }.to_string(), "10,5");
    assert_eq!(
        At::Invocation { x: 1, y: 2, z: 3 }.to_string(),
        "invocation 1,2,3"
    );
}

#[test]
fn help_for_one_command() {
    let usages =
        |t: &str| -> Vec<&str> { help_entries(Some(t)).into_iter().map(|e| e.0).collect() };
    assert_eq!(usages("dump").len(), 1);
    assert!(usages("dump")[0].starts_with("dump EXPR"));
    // Every kind of breakpoint (GL, shader line, source file, conditional); an alias; a second word.
    let b = usages("break");
    assert!(
        b.len() == 4 && b.iter().all(|u| u.starts_with("break ")),
        "{b:?}"
    );
    assert_eq!(usages("c"), ["continue | c"]);
    assert_eq!(usages("kill"), ["detach | kill | quit"]);
    assert_eq!(usages("info flow"), ["info flow [FILE.png]"]);
    assert!(usages("info").len() >= 4);
    assert_eq!(help_entries(None).len(), HELP.len());
    assert_eq!(
        p("help  info   flow"),
        Command::Help(Some("info flow".into()))
    );
    assert!(bad("help frobnicate").contains("no command `frobnicate`"));
}

#[test]
fn glslang_stage_names() {
    for (short, stage) in [
        ("vert", Stage::Vertex),
        ("tesc", Stage::TessControl),
        ("tese", Stage::TessEval),
        ("geom", Stage::Geometry),
        ("frag", Stage::Fragment),
        ("comp", Stage::Compute),
    ] {
        assert_eq!(parse_stage(short), Some(stage), "{short}");
        assert_eq!(parse_stage(stage.name()), Some(stage));
    }
    assert_eq!(parse_stage("pixel"), None);
}

#[test]
fn dump_forms() {
    assert_eq!(
        p("dump v x.png"),
        Command::Dump {
            expr: "v".into(),
            file: "x.png".into(),
            format: DumpFormat::Png,
            options: DumpOptions::default(),
        }
    );
    assert_eq!(
        p("dump v * 2.0 x.png range=-1,1 colormap=viridis"),
        Command::Dump {
            expr: "v * 2.0".into(),
            file: "x.png".into(),
            format: DumpFormat::Png,
            options: DumpOptions {
                range: Some((-1.0, 1.0)),
                viridis: true
            },
        }
    );
    assert_eq!(
        p("dump a == b x=1.png"),
        Command::Dump {
            expr: "a == b".into(),
            file: "x=1.png".into(),
            format: DumpFormat::Png,
            options: DumpOptions::default(),
        }
    );
    assert!(bad("dump v x.png range=1,0").contains("LO must be below HI"));
    assert!(bad("dump v x.png range=0").contains("range=LO,HI"));
    assert!(bad("dump v x.png range=0,inf").contains("finite"));
    assert!(bad("dump v x.png colormap=jet").contains("viridis"));
    assert!(bad("dump v x.png gamma=2").contains("unknown option"));
    assert!(bad("dump v x.npy colormap=viridis").contains(".png"));
    assert_eq!(
        p("dump color * 2.0 /tmp/out.npy"),
        Command::Dump {
            expr: "color * 2.0".into(),
            file: "/tmp/out.npy".into(),
            format: DumpFormat::Npy,
            options: DumpOptions::default(),
        }
    );
}

#[test]
fn numbers_past_their_type_name_the_range() {
    assert_eq!(
        p("break 4294967295"),
        Command::Break(BreakTarget::Line(u32::MAX))
    );
    assert_eq!(
        bad("break 4294967296"),
        "break: 4294967296 is out of range (0..=4294967295)"
    );
    assert_eq!(
        bad("step 18446744073709551616"),
        "step: 18446744073709551616 is out of range (0..=18446744073709551615)"
    );
    assert!(bad("list 99999999999").contains("out of range (0..=4294967295)"));
    assert!(bad("print v @ 1,4294967296").contains("out of range"));
    assert!(bad("set arg 1[4294967296] 0").contains("out of range"));
    assert!(bad("delete -1").contains("expected a number"));
}

#[test]
fn long_input_is_quoted_not_repeated() {
    let long = "x".repeat(1 << 20);
    for line in [
        format!("{long} 1"),
        format!("break {long}!"),
        format!("step {long}"),
        format!("info {long}"),
        format!("debug {long}"),
        format!("debug vertex {long}"),
        format!("debug fragment {long}"),
        format!("dump v {long}"),
        format!("dump v x.png colormap={long}"),
        format!("dump v x.png range={long}"),
        format!("dump v x.png {long}=1"),
        format!("print v @ {long}"),
        format!("print v @ 1,{long}"),
        format!("help {long}"),
        format!("list 9{long}"),
    ] {
        let e = bad(&line);
        assert!(e.len() < 400, "{}: {} bytes", &line[..20], e.len());
        assert!(e.contains("… (") || e.contains("1048"), "{e}");
    }
}

#[test]
fn syntax_errors() {
    assert!(bad("frobnicate").contains("unknown command"));
    assert!(bad("step x").contains("expected a number"));
    assert!(bad("step 0").contains("at least 1"));
    assert!(bad("step 1 2").contains("usage"));
    assert!(bad("continue now").contains("takes no arguments"));
    assert!(bad("break").contains("usage"));
    assert!(bad("break draw x").contains("expected a number"));
    assert!(bad("break draw 0").contains("from 1"));
    assert!(bad("break 0").contains("from 1"));
    assert!(bad("break gl-Draw").contains("not a function name"));
    assert!(bad("delete x").contains("expected a number"));
    assert!(bad("info").contains("usage"));
    assert!(bad("info registers").contains("unknown subject"));
    assert!(bad("set arg").contains("usage"));
    assert!(bad("set arg 1").contains("usage"));
    assert!(bad("set arg x 1").contains("expected a number"));
    assert!(bad("set var x").contains("usage"));
    assert!(bad("debug").contains("usage"));
    assert!(bad("debug pixel").contains("unknown stage"));
    assert!(bad("list x").contains("expected a number"));
    assert!(bad("print").contains("usage"));
    assert!(bad("print @ 1,2").contains("usage"));
    assert!(bad("print v @").contains("expected an invocation"));
    assert!(bad("print v @ 1").contains("expected 2 numbers"));
    assert!(bad("print v @ 1,2,3").contains("expected 2 numbers"));
    assert!(bad("print v @ vertex").contains("expected 1 numbers"));
    assert!(bad("print v @ invocation 1,2").contains("expected 3 numbers"));
    assert!(bad("print v @ pixel -1,2").contains("expected a number"));
    assert!(bad("print v @ somewhere").contains("unknown invocation"));
    assert!(bad("dump v").contains("usage"));
    assert!(bad("dump v x.jpg").contains(".png or .npy"));
    assert!(bad("quit now").contains("takes no arguments"));
}

#[test]
fn watch_display_focus_and_flow() {
    assert_eq!(p("watch acc * 2.0"), Command::Watch("acc * 2.0".into()));
    assert_eq!(
        p("unwatch acc * 2.0"),
        Command::Unwatch(Some("acc * 2.0".into()))
    );
    assert_eq!(p("unwatch"), Command::Unwatch(None));
    assert!(bad("watch").contains("usage: watch EXPR"));
    assert_eq!(p("display acc"), Command::Display("acc".into()));
    assert_eq!(p("undisplay acc"), Command::Undisplay(Some("acc".into())));
    assert_eq!(p("undisplay"), Command::Undisplay(None));
    assert!(bad("display").contains("usage: display EXPR"));
    assert_eq!(
        p("focus 10,5"),
        Command::Focus(Some(At::Pixel { x: 10, y: 5 }))
    );
    assert_eq!(
        p("focus invocation 1,2,3"),
        Command::Focus(Some(At::Invocation { x: 1, y: 2, z: 3 }))
    );
    assert_eq!(p("focus vertex 7"), Command::Focus(Some(At::Vertex(7))));
    assert_eq!(p("focus off"), Command::Focus(None));
    assert!(bad("focus").contains("usage: focus"));
    assert!(bad("focus here").starts_with("focus: unknown invocation"));
    assert_eq!(p("info flow"), Command::InfoFlow(None));
    assert_eq!(
        p("info flow loop.png"),
        Command::InfoFlow(Some(PathBuf::from("loop.png")))
    );
    assert!(bad("info flow loop.txt").contains("usage: info flow"));
}

#[test]
fn trace_words() {
    use crate::command::{FrameMove, Reverse};
    assert_eq!(p("reverse-step"), Command::Reverse(Reverse::Step(1)));
    assert_eq!(p("rs 3"), Command::Reverse(Reverse::Step(3)));
    assert_eq!(p("rn"), Command::Reverse(Reverse::Next(1)));
    assert_eq!(p("reverse-next 2"), Command::Reverse(Reverse::Next(2)));
    assert_eq!(p("reverse-finish"), Command::Reverse(Reverse::Finish));
    assert_eq!(p("rc"), Command::Reverse(Reverse::Continue));
    assert_eq!(p("reverse-continue"), Command::Reverse(Reverse::Continue));
    assert!(bad("reverse-finish 2").contains("usage"));
    assert_eq!(p("info locals"), Command::InfoLocals { args: false });
    assert_eq!(p("info args"), Command::InfoLocals { args: true });
    assert_eq!(p("bt"), Command::Backtrace);
    assert_eq!(p("backtrace"), Command::Backtrace);
    assert_eq!(p("where"), Command::InfoCall);
    assert_eq!(p("frame"), Command::Frame(FrameMove::Current));
    assert_eq!(p("frame 2"), Command::Frame(FrameMove::To(2)));
    assert_eq!(p("up"), Command::Frame(FrameMove::By(1)));
    assert_eq!(p("down 2"), Command::Frame(FrameMove::By(-2)));
    assert!(bad("up x").contains("up"));
    assert_eq!(
        p("set trace-records 100"),
        Command::SetTraceBudget {
            records: 100,
            bytes: 0
        }
    );
    assert_eq!(
        p("set trace-bytes 4096"),
        Command::SetTraceBudget {
            records: 0,
            bytes: 4096
        }
    );
    assert!(bad("set trace-records 0").contains("usage: set trace-records"));
    assert!(bad("set trace-foo 1").contains("usage: set trace-records"));
}

#[test]
fn conditions_catches_and_dprintf() {
    assert_eq!(
        p("break 12 if acc > 3.0"),
        Command::ShaderBreak {
            line: 12,
            condition: Some("acc > 3.0".into()),
            temporary: false
        }
    );
    assert_eq!(
        p("tbreak 7"),
        Command::ShaderBreak {
            line: 7,
            condition: None,
            temporary: true
        }
    );
    assert_eq!(p("break 12"), Command::Break(BreakTarget::Line(12)));
    assert_eq!(
        p("condition 12 x < 0"),
        Command::Condition {
            line: 12,
            condition: Some("x < 0".into())
        }
    );
    assert_eq!(
        p("condition 12"),
        Command::Condition {
            line: 12,
            condition: None
        }
    );
    assert_eq!(p("ignore 12 3"), Command::Ignore { line: 12, count: 3 });
    assert_eq!(
        p("catch nan"),
        Command::Catch {
            nan: true,
            inf: false,
            off: false
        }
    );
    assert_eq!(
        p("catch inf off"),
        Command::Catch {
            nan: false,
            inf: true,
            off: true
        }
    );
    assert!(bad("catch foo").contains("usage: catch"));
    assert_eq!(
        p(r#"dprintf 20,"x=%f v=%v2f \"q\"",x, vec2(a, b)"#),
        Command::Dprintf {
            line: 20,
            format: "x=%f v=%v2f \"q\"".into(),
            args: vec!["x".into(), "vec2(a, b)".into()]
        }
    );
    assert_eq!(
        p(r#"dprintf 3,"hi""#),
        Command::Dprintf {
            line: 3,
            format: "hi".into(),
            args: vec![]
        }
    );
    assert!(bad(r#"dprintf 3,"open"#).contains("not closed"));
    assert!(bad("dprintf 3").contains("usage"));
}
