//! Issue 12: hostile requests on the raw gRPC API of a real `gldbg-debugd`,
//! as a table. Each row is a description, a request and the status code it
//! must get; after every row the daemon must still answer (`GetState`).
//! The table runs in three phases: before any launch, with a real app
//! (egl_shade) stopped at its first call, and debugging the fragment shader
//! of its first draw.
//!
//! Rows: malformed protobuf bytes (sent raw through a bytes codec: bad
//! varints, truncated fields, non-UTF-8 strings, a uint32 sent as -1),
//! 1 MB strings in every string field, 4294967295 / u64::MAX / negative
//! enum values / NaN and infinities in numeric fields, unknown enum values,
//! out-of-order calls, absurd coordinates and line numbers, empty strings.
//! A row for a new hostile input is one `row!` line.

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

use bytes::{Buf as _, BufMut as _};
use gldbg_proto::pb;
use gldbg_proto::pb::debugger_client::DebuggerClient;
use gldbg_tests::*;
use hyper_util::rt::TokioIo;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::codegen::http::uri::PathAndQuery;
use tonic::transport::{Channel, Endpoint, Uri};
use tonic::{Code, Status};

/// How long one request may take before the test calls it a hang.
const HANG: Duration = Duration::from_secs(60);

/// The longest status message a row may get back (the daemon's cap, 4096
/// bytes, plus its "… (N bytes in all)").
const MAX_MESSAGE: usize = 4200;

async fn channel(socket: PathBuf) -> Channel {
    Endpoint::try_from("http://[::]:50051")
        .unwrap()
        .connect_with_connector(tower::service_fn(move |_: Uri| {
            let path = socket.clone();
            async move {
                Ok::<_, std::io::Error>(TokioIo::new(tokio::net::UnixStream::connect(path).await?))
            }
        }))
        .await
        .expect("connect to gldbg-debugd")
}

/// Message bytes as they are, both ways: a raw client sends what it likes.
#[derive(Default, Clone)]
struct RawCodec;

impl Codec for RawCodec {
    type Encode = Vec<u8>;
    type Decode = Vec<u8>;
    type Encoder = RawCodec;
    type Decoder = RawCodec;
    fn encoder(&mut self) -> RawCodec {
        RawCodec
    }
    fn decoder(&mut self) -> RawCodec {
        RawCodec
    }
}

impl Encoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;
    fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        buf.put_slice(&item);
        Ok(())
    }
}

impl Decoder for RawCodec {
    type Item = Vec<u8>;
    type Error = Status;
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<Vec<u8>>, Status> {
        Ok(Some(buf.copy_to_bytes(buf.remaining()).to_vec()))
    }
}

/// A unary call of `method` (e.g. "Print") with `bytes` as the message.
async fn raw_call(ch: Channel, method: &str, bytes: Vec<u8>) -> Result<(), Status> {
    let mut grpc = tonic::client::Grpc::new(ch);
    grpc.ready()
        .await
        .map_err(|e| Status::unavailable(e.to_string()))?;
    let path = PathAndQuery::try_from(format!("/gldbg.v1.Debugger/{method}")).unwrap();
    grpc.unary(tonic::Request::new(bytes), path, RawCodec)
        .await
        .map(|_| ())
}

type Reply = Pin<Box<dyn std::future::Future<Output = Result<(), Status>> + Send>>;

/// One hostile request and the code it must get.
struct Row {
    what: String,
    call: Box<dyn FnOnce(Channel) -> Reply>,
    want: Code,
}

/// `row!(WHAT, Method(request), CODE)` for a typed request;
/// `row!(WHAT, raw "Method" [bytes], CODE)` for raw message bytes.
macro_rules! row {
    ($what:expr, raw $method:literal $bytes:expr, $want:expr) => {
        Row {
            what: String::from($what),
            call: Box::new(move |ch: Channel| {
                let bytes: Vec<u8> = $bytes;
                Box::pin(raw_call(ch, $method, bytes)) as Reply
            }),
            want: $want,
        }
    };
    ($what:expr, $method:ident($req:expr), $want:expr) => {
        Row {
            what: String::from($what),
            call: Box::new(move |ch: Channel| {
                let req = $req;
                Box::pin(async move {
                    DebuggerClient::new(ch)
                        .max_decoding_message_size(usize::MAX)
                        .$method(req)
                        .await
                        .map(|_| ())
                }) as Reply
            }),
            want: $want,
        }
    };
}

/// Run every row; after each, the daemon answers GetState. Returns the
/// rows that got another code (all reported at once).
async fn run_table(ch: &Channel, daemon: &mut UnixDaemon, rows: Vec<Row>) -> Vec<String> {
    let mut wrong = Vec::new();
    for row in rows {
        let got = tokio::time::timeout(HANG, (row.call)(ch.clone()))
            .await
            .unwrap_or_else(|_| panic!("{}: no answer after {HANG:?} (hang)", row.what));
        let code = got.as_ref().err().map_or(Code::Ok, Status::code);
        if code != row.want {
            wrong.push(format!("{}: want {:?}, got {got:?}", row.what, row.want));
        }
        if let Err(s) = &got {
            let m = s.message();
            assert!(!m.is_empty(), "{}: an empty message", row.what);
            assert!(
                m.len() <= MAX_MESSAGE,
                "{}: a {}-byte message",
                row.what,
                m.len()
            );
        }
        if let Ok(Some(status)) = daemon.0.try_wait() {
            panic!("{}: the daemon died ({status})", row.what);
        }
        let alive = tokio::time::timeout(
            HANG,
            DebuggerClient::new(ch.clone()).get_state(pb::Empty {}),
        )
        .await
        .unwrap_or_else(|_| panic!("after {}: GetState hangs", row.what));
        if let Err(e) = alive {
            panic!("after {}: GetState fails: {e:?}", row.what);
        }
    }
    wrong
}

/// A protobuf varint.
fn varint(mut v: u64) -> Vec<u8> {
    let mut out = Vec::new();
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
    out
}

/// Field 1 (tag 0x08) of a message as a varint: `uint32 line = 1` sent as -1.
fn field1_varint(v: u64) -> Vec<u8> {
    let mut out = vec![0x08];
    out.extend(varint(v));
    out
}

fn mb(c: char) -> String {
    std::iter::repeat_n(c, 1 << 20).collect()
}

fn pixel(x: u32, y: u32) -> Option<pb::Invocation> {
    Some(pb::Invocation {
        kind: Some(pb::invocation::Kind::Pixel(pb::Pixel { x, y })),
    })
}

fn at(kind: pb::invocation::Kind) -> Option<pb::Invocation> {
    Some(pb::Invocation { kind: Some(kind) })
}

fn dump_req(format: i32, colormap: i32, range: Option<(f64, f64)>) -> pb::DumpRequest {
    pb::DumpRequest {
        expr: "gl_FragCoord.x".into(),
        format,
        colormap,
        fixed_range: range.is_some(),
        range_min: range.map_or(0.0, |r| r.0),
        range_max: range.map_or(0.0, |r| r.1),
    }
}

use Code::{FailedPrecondition as Precondition, InvalidArgument as Invalid, Ok as Fine};

/// Before any launch: out-of-order calls, bad launches, bad breakpoints,
/// malformed bytes.
fn before_launch(app: &Path) -> Vec<Row> {
    let app = app.display().to_string();
    vec![
        row!(
            "Print before Launch",
            print(pb::PrintRequest {
                expr: "x".into(),
                at: None
            }),
            Precondition
        ),
        row!(
            "DebugShader before Launch",
            debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                ..Default::default()
            }),
            Precondition
        ),
        row!(
            "ShaderStep before Launch",
            shader_step(pb::ShaderStepRequest { mode: 0, count: 1 }),
            Precondition
        ),
        row!(
            "Step before Launch",
            step(pb::StepRequest { count: 1 }),
            Precondition
        ),
        row!(
            "Continue before Launch",
            r#continue(pb::Empty {}),
            Precondition
        ),
        row!(
            "InfoCall before Launch",
            info_call(pb::Empty {}),
            Precondition
        ),
        row!(
            "EndDebug before Launch",
            end_debug(pb::Empty {}),
            Precondition
        ),
        row!(
            "Launch an empty program",
            launch(pb::LaunchRequest::default()),
            Invalid
        ),
        row!(
            "Launch a 1 MB program name",
            launch(pb::LaunchRequest {
                program: mb('p'),
                ..Default::default()
            }),
            Code::NotFound
        ),
        row!(
            "Launch with a NUL in an argument",
            launch(pb::LaunchRequest {
                program: app.clone(),
                args: vec!["a\0b".into()],
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "AddBreakpoint on a 1 MB function name",
            add_breakpoint(pb::BreakpointSpec {
                kind: Some(pb::breakpoint_spec::Kind::Function(mb('g')))
            }),
            Invalid
        ),
        row!(
            "AddBreakpoint on an empty function name",
            add_breakpoint(pb::BreakpointSpec {
                kind: Some(pb::breakpoint_spec::Kind::Function(String::new()))
            }),
            Invalid
        ),
        row!(
            "AddBreakpoint with no kind",
            add_breakpoint(pb::BreakpointSpec { kind: None }),
            Invalid
        ),
        row!(
            "AddBreakpoint at draw 0",
            add_breakpoint(pb::BreakpointSpec {
                kind: Some(pb::breakpoint_spec::Kind::DrawNumber(0))
            }),
            Invalid
        ),
        row!(
            "AddBreakpoint at draw u64::MAX",
            add_breakpoint(pb::BreakpointSpec {
                kind: Some(pb::breakpoint_spec::Kind::DrawNumber(u64::MAX))
            }),
            Fine
        ),
        row!(
            "DeleteBreakpoint 4294967295",
            delete_breakpoint(pb::DeleteBreakpointRequest { id: u32::MAX }),
            Invalid
        ),
        row!(
            "DeleteBreakpoint 0 (all)",
            delete_breakpoint(pb::DeleteBreakpointRequest { id: 0 }),
            Fine
        ),
        row!("raw: Launch as one 0xff byte", raw "Launch" vec![0xff], Invalid),
        row!("raw: Launch with a truncated string field", raw "Launch" vec![0x0a, 0x10, b'/'], Invalid),
        row!("raw: Launch with a non-UTF-8 program", raw "Launch" vec![0x0a, 0x03, 0xff, 0xfe, 0xfd], Invalid),
        row!("raw: Step with an 11-byte varint", raw "Step" { let mut b = vec![0x08]; b.extend([0xff; 10]); b.push(0x01); b }, Invalid),
        row!("raw: AddBreakpoint with an unknown wire type", raw "AddBreakpoint" vec![0x0f, 0x00], Invalid),
        row!("raw: Print with a non-UTF-8 expression", raw "Print" vec![0x0a, 0x02, 0xc3, 0x28], Invalid),
        row!("raw: GetState with an unknown field (proto3 skips it)", raw "GetState" vec![0xf8, 0x07, 0x01], Fine),
    ]
}

/// Stopped at the app's first call (eglGetProcAddress).
fn at_first_call() -> Vec<Row> {
    vec![
        row!(
            "SetArg index 4294967295",
            set_arg(pb::SetArgRequest {
                index: u32::MAX,
                value: "1".into(),
                element: None
            }),
            Invalid
        ),
        row!(
            "SetArg a 1 MB value",
            set_arg(pb::SetArgRequest {
                index: 0,
                value: mb('9'),
                element: None
            }),
            Invalid
        ),
        row!(
            "SetArg a number past 64 bits",
            set_arg(pb::SetArgRequest {
                index: 0,
                value: "99999999999999999999999".into(),
                element: None
            }),
            Invalid
        ),
        row!(
            "SetArg element 4294967295",
            set_arg(pb::SetArgRequest {
                index: 0,
                value: "1".into(),
                element: Some(u32::MAX)
            }),
            Invalid
        ),
        row!(
            "SetArg an empty value",
            set_arg(pb::SetArgRequest {
                index: 0,
                value: String::new(),
                element: None
            }),
            Invalid
        ),
        row!(
            "InfoState a 1 MB name",
            info_state(pb::InfoStateRequest { name: mb('G') }),
            Invalid
        ),
        row!(
            "DebugShader a 1 MB stage",
            debug_shader(pb::DebugShaderRequest {
                stage: mb('f'),
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "DebugShader an empty stage",
            debug_shader(pb::DebugShaderRequest::default()),
            Invalid
        ),
        row!(
            "DebugShader depth mode 99",
            debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                depth: 99,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "DebugShader stencil mode -1",
            debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                stencil: -1,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "DebugShader away from a draw",
            debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                ..Default::default()
            }),
            Precondition
        ),
        row!(
            "Print before DebugShader",
            print(pb::PrintRequest {
                expr: "x".into(),
                at: None
            }),
            Precondition
        ),
        row!(
            "ShaderList before DebugShader",
            shader_list(pb::ShaderListRequest {
                line: u32::MAX,
                context: u32::MAX
            }),
            Precondition
        ),
        row!(
            "Dump format 99 before DebugShader",
            dump(dump_req(99, 0, None)),
            Invalid
        ),
        row!(
            "Launch again",
            launch(pb::LaunchRequest {
                program: "/bin/true".into(),
                ..Default::default()
            }),
            Precondition
        ),
    ]
}

/// The requests of the trace era with absurd numbers and out of order
/// (no focus yet: nothing is traced).
fn trace_commands() -> Vec<Row> {
    vec![
        row!(
            "ShaderReverseStep mode 99",
            shader_reverse_step(pb::ShaderStepRequest { mode: 99, count: 1 }),
            Invalid
        ),
        row!(
            "ShaderReverseStep without a focus",
            shader_reverse_step(pb::ShaderStepRequest { mode: 0, count: 1 }),
            Precondition
        ),
        row!(
            "ShaderReverseContinue without a focus",
            shader_reverse_continue(pb::Empty {}),
            Precondition
        ),
        row!(
            "SelectFrame i64::MIN",
            select_frame(pb::SelectFrameRequest {
                level: i64::MIN,
                relative: true
            }),
            Precondition
        ),
        row!(
            "SetTraceBudget bytes u64::MAX",
            set_trace_budget(pb::TraceBudget {
                records: 0,
                bytes: u64::MAX
            }),
            Invalid
        ),
        row!(
            "SetTraceBudget records u64::MAX",
            set_trace_budget(pb::TraceBudget {
                records: u64::MAX,
                bytes: 0
            }),
            Invalid
        ),
        row!(
            "ShaderWatch a 1 MB expression",
            shader_watch(pb::ShaderWatchRequest {
                expr: mb('a'),
                remove: false
            }),
            Precondition
        ),
        row!(
            "ShaderWatch remove what is not watched",
            shader_watch(pb::ShaderWatchRequest {
                expr: "x".into(),
                remove: true
            }),
            Invalid
        ),
        row!(
            "ShaderBreak with a 1 MB condition",
            shader_break(pb::ShaderBreakRequest {
                line: 1,
                condition: mb('a'),
                temporary: false
            }),
            Invalid
        ),
        row!(
            "ShaderBreakCondition on no breakpoint",
            shader_break_condition(pb::ShaderBreakConditionRequest {
                line: 4294967295,
                set_ignore: true,
                ignore: 4294967295,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "ShaderCatch of nothing",
            shader_catch(pb::CatchRequest {
                nan: false,
                inf: false,
                remove: false
            }),
            Invalid
        ),
        row!(
            "Dprintf line 0",
            dprintf(pb::DprintfRequest {
                line: 0,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "Dprintf a 1 MB format",
            dprintf(pb::DprintfRequest {
                line: 1,
                format: mb('%'),
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "Dprintf a format with no argument for it",
            dprintf(pb::DprintfRequest {
                line: 1,
                format: "%d %f".into(),
                args: vec!["1".into()],
                limit: u32::MAX,
                focused: false
            }),
            Invalid
        ),
        row!("Backtrace without a focus", backtrace(pb::Empty {}), Fine),
        row!(
            "InfoLocals without a focus",
            info_locals(pb::InfoLocalsRequest { args: false }),
            Fine
        ),
    ]
}

/// Debugging the fragment shader of the first draw.
fn in_fragment_shader() -> Vec<Row> {
    [
        shader_commands(),
        trace_commands(),
        prints_and_dumps(),
        to_the_end(),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// Shader breakpoints, listings and steps with absurd lines and modes.
fn shader_commands() -> Vec<Row> {
    vec![
        row!(
            "ShaderBreak line 4294967295",
            shader_break(pb::ShaderBreakRequest {
                line: u32::MAX,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "ShaderBreak line 0",
            shader_break(pb::ShaderBreakRequest {
                line: 0,
                ..Default::default()
            }),
            Invalid
        ),
        row!("raw: ShaderBreak line sent as -1", raw "ShaderBreak" field1_varint(u64::MAX), Invalid),
        row!(
            "ShaderBreak past the last line",
            shader_break(pb::ShaderBreakRequest {
                line: 1000,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "ShaderDeleteBreak line 4294967295",
            shader_delete_break(pb::ShaderBreakRequest {
                line: u32::MAX,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "ShaderList context 4294967295",
            shader_list(pb::ShaderListRequest {
                line: 0,
                context: u32::MAX
            }),
            Fine
        ),
        row!(
            "ShaderList line 4294967295",
            shader_list(pb::ShaderListRequest {
                line: u32::MAX,
                context: u32::MAX
            }),
            Invalid
        ),
        row!(
            "ShaderList line 2, context 4294967295",
            shader_list(pb::ShaderListRequest {
                line: 2,
                context: u32::MAX
            }),
            Fine
        ),
        row!(
            "ShaderStep mode 99",
            shader_step(pb::ShaderStepRequest { mode: 99, count: 1 }),
            Invalid
        ),
        row!(
            "ShaderStep mode -1",
            shader_step(pb::ShaderStepRequest { mode: -1, count: 1 }),
            Invalid
        ),
    ]
}

/// `Print`, `Focus` and `Dump` with absurd invocations, expressions and ranges.
fn prints_and_dumps() -> Vec<Row> {
    use pb::invocation::Kind;
    vec![
        row!(
            "Print an empty expression",
            print(pb::PrintRequest {
                expr: String::new(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print a 1 MB identifier",
            print(pb::PrintRequest {
                expr: mb('a'),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print a 1 MB string of spaces and a dot",
            print(pb::PrintRequest {
                expr: format!("{}.", mb(' ')),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print at pixel (4294967295, 4294967295)",
            print(pb::PrintRequest {
                expr: "gl_FragCoord.x".into(),
                at: pixel(u32::MAX, u32::MAX)
            }),
            Invalid
        ),
        row!(
            "Print at vertex 4294967295 of a fragment shader",
            print(pb::PrintRequest {
                expr: "gl_FragCoord.x".into(),
                at: at(Kind::Vertex(u32::MAX))
            }),
            Invalid
        ),
        row!(
            "Print at primitive 4294967295 of a fragment shader",
            print(pb::PrintRequest {
                expr: "gl_FragCoord.x".into(),
                at: at(Kind::Primitive(u32::MAX))
            }),
            Invalid
        ),
        row!(
            "Print at invocation (max, max, max) of a fragment shader",
            print(pb::PrintRequest {
                expr: "gl_FragCoord.x".into(),
                at: at(Kind::Invocation(pb::Workgroup {
                    x: u32::MAX,
                    y: u32::MAX,
                    z: u32::MAX
                }))
            }),
            Invalid
        ),
        row!(
            "Print at an invocation of no kind (a summary)",
            print(pb::PrintRequest {
                expr: "gl_FragCoord.x".into(),
                at: Some(pb::Invocation { kind: None })
            }),
            Fine
        ),
        row!(
            "Focus pixel (4294967295, 4294967295)",
            focus(pb::FocusRequest {
                at: pixel(u32::MAX, u32::MAX)
            }),
            Invalid
        ),
        row!("Dump format 99", dump(dump_req(99, 0, None)), Invalid),
        row!("Dump format -1", dump(dump_req(-1, 0, None)), Invalid),
        row!("Dump colormap 99", dump(dump_req(0, 99, None)), Invalid),
        row!(
            "Dump a NaN range",
            dump(dump_req(0, 0, Some((f64::NAN, 1.0)))),
            Invalid
        ),
        row!(
            "Dump an infinite range",
            dump(dump_req(0, 0, Some((f64::NEG_INFINITY, f64::INFINITY)))),
            Invalid
        ),
        row!(
            "Dump a reversed range",
            dump(dump_req(0, 0, Some((1.0, 0.0)))),
            Invalid
        ),
        row!(
            "Dump a 1 MB expression",
            dump(pb::DumpRequest {
                expr: mb('x'),
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "Dump npy (a sane request)",
            dump(dump_req(1, 0, None)),
            Fine
        ),
        row!(
            "DebugShader while debugging, stage -1 depth",
            debug_shader(pb::DebugShaderRequest {
                stage: "fragment".into(),
                depth: -1,
                ..Default::default()
            }),
            Invalid
        ),
        row!(
            "Print gl_FragCoord[4294967295]",
            print(pb::PrintRequest {
                expr: "gl_FragCoord[4294967295]".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print 99999999999999999999",
            print(pb::PrintRequest {
                expr: "99999999999999999999".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print 4294967296u",
            print(pb::PrintRequest {
                expr: "4294967296u".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print gl_FragCoord.xyzwxyzw",
            print(pb::PrintRequest {
                expr: "gl_FragCoord.xyzwxyzw".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print vec4(1)[4]",
            print(pb::PrintRequest {
                expr: "vec4(1)[4]".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print float[4294967295](1.0)",
            print(pb::PrintRequest {
                expr: "float[4294967295](1.0)".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print ivec2(2147483647) + ivec2(1)",
            print(pb::PrintRequest {
                expr: "ivec2(2147483647) + ivec2(1)".into(),
                at: None
            }),
            Fine
        ),
        row!(
            "Print gl_FragCoord[-1]",
            print(pb::PrintRequest {
                expr: "gl_FragCoord[-1]".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print 300 nested unary minus",
            print(pb::PrintRequest {
                expr: format!("{}1.0", "-".repeat(3000)),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print an assignment to an output",
            print(pb::PrintRequest {
                expr: "frag = vec4(1.0)".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print an assignment to a uniform",
            print(pb::PrintRequest {
                expr: "u_gain = 5.0".into(),
                at: None
            }),
            Invalid
        ),
        row!(
            "Print 1e39 (a float literal past f32)",
            print(pb::PrintRequest {
                expr: "1e39".into(),
                at: None
            }),
            Invalid
        ),
    ]
}

/// The last step, the end of debugging and of the app, calls after it.
fn to_the_end() -> Vec<Row> {
    vec![
        row!(
            "ShaderStep count u64::MAX (to the end)",
            shader_step(pb::ShaderStepRequest {
                mode: 0,
                count: u64::MAX
            }),
            Fine
        ),
        row!("EndDebug", end_debug(pb::Empty {}), Fine),
        row!("EndDebug twice", end_debug(pb::Empty {}), Precondition),
        row!("Kill", kill(pb::Empty {}), Fine),
        row!(
            "Step after the exit",
            step(pb::StepRequest { count: u64::MAX }),
            Precondition
        ),
        row!(
            "ShaderBreak after the exit",
            shader_break(pb::ShaderBreakRequest {
                line: u32::MAX,
                ..Default::default()
            }),
            Precondition
        ),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_requests_get_their_code_and_the_daemon_answers_after_each() {
    require_workspace();
    let app = egl_shade();
    let dir = TempDir::new("hostile");
    let socket = dir.join("d.sock");
    let mut daemon = start_unix_daemon(&socket, &[]);
    let ch = channel(socket.clone()).await;
    let mut c = DebuggerClient::new(ch.clone());

    let mut wrong = run_table(&ch, &mut daemon, before_launch(&app)).await;

    let launched = c
        .launch(pb::LaunchRequest {
            program: app.display().to_string(),
            args: vec!["--frames".into(), "3".into()],
            ..Default::default()
        })
        .await
        .expect("Launch")
        .into_inner();
    assert_eq!(launched.state, pb::RunState::Stopped as i32, "{launched:?}");
    wrong.extend(run_table(&ch, &mut daemon, at_first_call()).await);

    c.add_breakpoint(pb::BreakpointSpec {
        kind: Some(pb::breakpoint_spec::Kind::Draw(pb::Empty {})),
    })
    .await
    .expect("break draw");
    let at_draw = c
        .r#continue(pb::Empty {})
        .await
        .expect("Continue")
        .into_inner();
    assert_eq!(at_draw.state, pb::RunState::Stopped as i32, "{at_draw:?}");
    c.debug_shader(pb::DebugShaderRequest {
        stage: "fragment".into(),
        ..Default::default()
    })
    .await
    .expect("DebugShader fragment");
    // A context of 4294967295 lines is every line (it saturates): the same
    // listing as a centre on line 1 with a context longer than the shader.
    let list = |line, context| {
        let mut c = c.clone();
        async move {
            c.shader_list(pb::ShaderListRequest { line, context })
                .await
                .expect("ShaderList")
                .into_inner()
                .lines
        }
    };
    let every = list(0, u32::MAX).await;
    assert!(every.len() > 10, "{every:?}");
    assert_eq!(every, list(1, 100_000).await);
    assert_eq!(every, list(every.len() as u32, u32::MAX).await);
    wrong.extend(run_table(&ch, &mut daemon, in_fragment_shader()).await);

    assert!(
        wrong.is_empty(),
        "{} rows got another code:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
