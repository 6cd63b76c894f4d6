//! Trace steps (ABI 12) on the real driver: `apps/trace_app.c` (GL 4.3
//! core, EGL surfaceless) runs with the preload, this test plays the daemon
//! (`debugd/src/shm.rs` compiled in) and sends fragment, vertex and compute
//! steps whose hand-written debug shaders fill a trace block `gldbg_trace_t`
//! with known words from one invocation. Checked: the words come back
//! exactly, `hits` counts the invocations the predicate held for, the
//! capacity bounds what is written (`data.length()` is the capacity asked
//! for, whatever the size of the buffer kept), an absent block is
//! `TRACE_UNSUPPORTED` with the step answered as usual, the trace goes to a
//! binding no block of the program uses, and the app sees its bindings
//! (its range at the binding we took included), buffers and image as in a
//! run without the debugger.
//!
//! Run after `cargo build -p gldbg-preload`.

mod support;

use gldbg_proto::api::function_id;
use gldbg_proto::shm::{
    self as abi, BulkRef, ComputeStepReply, ComputeStepRequest, FragmentStepReply,
    FragmentStepRequest, OutputRef, ShaderRef, TraceReply, TraceRequest, VertexStepReply,
    VertexStepRequest,
};
use std::process::Command;
use std::time::Duration;
use support::daemon_shm::{self, SharedMemory};
use support::{build_app, command_for};

const T: Duration = Duration::from_secs(60);
const VERTEX: u32 = 0x8B31;
const FRAGMENT: u32 = 0x8B30;
const COMPUTE: u32 = 0x91B9;

fn app(shm: Option<&SharedMemory>) -> Command {
    command_for(build_app("trace_app", &["-lEGL"]), shm, shm.is_some())
}

fn wait_stop(m: &SharedMemory, function: u32) -> daemon_shm::StoppedCall {
    support::wait_stop(m, function, T)
}

/// The trace block every debug shader here declares (no binding).
const BLOCK: &str = "layout(std430) buffer gldbg_trace_t {
    uint hits; uint records; uint words; uint full; uint data[];
} gldbg_trace;
/* One record of one word, as glsl-instrument's trace shaders count them. */
void gldbg_put(uint w) {
    gldbg_trace.records += 1u;
    if (gldbg_trace.full == 0u && gldbg_trace.words < uint(gldbg_trace.data.length())) {
        gldbg_trace.data[gldbg_trace.words] = w;
        gldbg_trace.words += 1u;
    } else {
        gldbg_trace.full = 1u;
    }
}
";

const APP_VS: &str = "#version 430 core
layout(location = 0) in vec2 pos;
void main() { gl_Position = vec4(pos, 0.0, 1.0); }
";
const APP_FS: &str = "#version 430 core
layout(std430, binding = 0) buffer AppData { uint v[]; };
out vec4 frag;
void main() { frag = vec4(float(v[0]) / 255.0, gl_FragCoord.xy / 32.0, 1.0); }
";

/// The app's fragment shader, its coverage, and pixel (3, 4) tracing
/// `1000 * i + v[0]` for i in 0..10 (v[0] is the app's 10).
fn debug_fs() -> String {
    format!(
        "#version 430 core
layout(std430, binding = 0) buffer AppData {{ uint v[]; }};
{BLOCK}
out vec4 frag;
out vec4 dbg_value;
out float dbg_cov;
void main() {{
    if (all(equal(ivec2(gl_FragCoord.xy), ivec2(3, 4))) && atomicAdd(gldbg_trace.hits, 1u) == 0u) {{
        for (uint i = 0u; i < 10u; i++) gldbg_put(1000u * i + v[0]);
    }}
    frag = vec4(float(v[0]) / 255.0, gl_FragCoord.xy / 32.0, 1.0);
    dbg_value = vec4(0.0);
    dbg_cov = 1.0;
}}
"
    )
}

/// The request's trace part, the block name pushed by `w`.
fn trace_req(w: &mut daemon_shm::BulkWriter<'_>, block: &str, capacity: u32) -> TraceRequest {
    TraceRequest {
        block: w.push(block.as_bytes()),
        capacity_words: capacity,
        zero_data: 0,
    }
}

fn words(m: &SharedMemory, r: BulkRef) -> Vec<u32> {
    let bytes = m.read_bytes(r);
    assert_eq!(
        bytes.len(),
        r.len as usize,
        "the trace data is in the bulk region"
    );
    bytes
        .chunks_exact(4)
        .map(|w| u32::from_ne_bytes(w.try_into().unwrap()))
        .collect()
}

/// A coverage-only fragment step of `debug_fs` with a trace of `block`.
fn fragment(
    m: &SharedMemory,
    slot: usize,
    block: &str,
    capacity: u32,
) -> (FragmentStepReply, String) {
    let mut req = FragmentStepRequest {
        cache_key: 21,
        shader_count: 2,
        ..Default::default()
    };
    let start = size_of::<FragmentStepRequest>().next_multiple_of(64);
    let mut w = m.bulk_writer(abi::BULK_REQUEST + start);
    let fs = debug_fs();
    req.shaders[0] = ShaderRef {
        gl_type: FRAGMENT,
        _pad: 0,
        source: w.push(fs.as_bytes()),
    };
    req.shaders[1] = ShaderRef {
        gl_type: VERTEX,
        _pad: 0,
        source: w.push(APP_VS.as_bytes()),
    };
    let output = |w: &mut daemon_shm::BulkWriter<'_>, name: &str| OutputRef {
        frag_data_index: -1,
        _pad: 0,
        name: w.push(name.as_bytes()),
    };
    req.value_output = output(&mut w, "dbg_value");
    req.coverage_output = output(&mut w, "dbg_cov");
    let frag = w.push(b"frag");
    req.app_outputs = w.push(&BulkRef::list_bytes(&[frag]));
    req.trace = trace_req(&mut w, block, capacity);
    m.write_struct(abi::BULK_REQUEST, &req);
    let st = m.command(slot, abi::CMD_FRAGMENT_STEP, T).unwrap();
    let reply: FragmentStepReply = m.read_struct(abi::BULK_REPLY);
    let log = String::from_utf8_lossy(&m.read_bytes(reply.log)).into_owned();
    assert_eq!(st, abi::STATUS_OK, "{log}");
    // The step itself answers as usual: the whole 32x32 quad reached.
    assert_eq!((reply.width, reply.height), (32, 32));
    let coverage = m.read_bytes(reply.coverage);
    assert_eq!(coverage.len(), 32 * 32);
    assert!(coverage.iter().all(|&c| c != 0), "every pixel reached");
    (reply, log)
}

/// A vertex step (transform feedback) whose vertex 2 traces its id and position.
fn vertex(m: &SharedMemory, slot: usize) -> VertexStepReply {
    let vs = format!(
        "#version 430 core
layout(location = 0) in vec2 pos;
{BLOCK}
out float dbg_cov;
void main() {{
    if (gl_VertexID == 2 && atomicAdd(gldbg_trace.hits, 1u) == 0u) {{
        gldbg_put(uint(gl_VertexID));
        gldbg_put(floatBitsToUint(pos.x));
        gldbg_put(floatBitsToUint(pos.y));
    }}
    gl_Position = vec4(pos, 0.0, 1.0);
    dbg_cov = 1.0;
}}
"
    );
    let mut req = VertexStepRequest {
        cache_key: 22,
        shader_count: 2,
        stage: VERTEX,
        ..Default::default()
    };
    let start = size_of::<VertexStepRequest>().next_multiple_of(64);
    let mut w = m.bulk_writer(abi::BULK_REQUEST + start);
    req.shaders[0] = ShaderRef {
        gl_type: VERTEX,
        _pad: 0,
        source: w.push(vs.as_bytes()),
    };
    req.shaders[1] = ShaderRef {
        gl_type: FRAGMENT,
        _pad: 0,
        source: w.push(APP_FS.as_bytes()),
    };
    req.coverage_varying = w.push(b"dbg_cov");
    req.trace = trace_req(&mut w, "gldbg_trace_t", 16);
    m.write_struct(abi::BULK_REQUEST, &req);
    let st = m.command(slot, abi::CMD_VERTEX_STEP, T).unwrap();
    let reply: VertexStepReply = m.read_struct(abi::BULK_REPLY);
    let log = String::from_utf8_lossy(&m.read_bytes(reply.log)).into_owned();
    assert_eq!(st, abi::STATUS_OK, "{log}");
    assert_eq!(reply.vertices, 4);
    let coverage = m.read_bytes(reply.coverage);
    assert!(
        coverage.len() == 4 && coverage.iter().all(|&c| c != 0),
        "{coverage:?}"
    );
    reply
}

/// A compute step: the app's shader with the debug value and coverage
/// blocks (declared at 2 and 3) and invocations 0..5 claiming the trace.
fn compute(m: &SharedMemory, slot: usize) -> ComputeStepReply {
    let cs = format!(
        "#version 430 core
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer AppData {{ uint v[]; }};
layout(std430, binding = 2) buffer gldbg_values {{ vec4 gldbg_v[]; }};
layout(std430, binding = 3) buffer gldbg_coverage {{ float gldbg_c[]; }};
{BLOCK}
void main() {{
    uint id = gl_GlobalInvocationID.x;
    if (id < 5u && atomicAdd(gldbg_trace.hits, 1u) == 0u) {{
        for (uint i = 0u; i < 6u; i++) gldbg_put(0xC000u + i);
    }}
    v[id] += 1u;
    gldbg_v[id] = vec4(0.0);
    gldbg_c[id] = 1.0;
}}
"
    );
    let mut req = ComputeStepRequest {
        cache_key: 23,
        shader_count: 1,
        value_binding: 2,
        stage: COMPUTE,
        ..Default::default()
    };
    let start = size_of::<ComputeStepRequest>().next_multiple_of(64);
    let mut w = m.bulk_writer(abi::BULK_REQUEST + start);
    req.shaders[0] = ShaderRef {
        gl_type: COMPUTE,
        _pad: 0,
        source: w.push(cs.as_bytes()),
    };
    req.trace = trace_req(&mut w, "gldbg_trace_t", 32);
    m.write_struct(abi::BULK_REQUEST, &req);
    let st = m.command(slot, abi::CMD_COMPUTE_STEP, T).unwrap();
    let reply: ComputeStepReply = m.read_struct(abi::BULK_REPLY);
    let log = String::from_utf8_lossy(&m.read_bytes(reply.log)).into_owned();
    assert_eq!(st, abi::STATUS_OK, "{log}");
    assert_eq!(reply.invocations, 8);
    assert_eq!(m.read_f32s(reply.coverage), [1.0; 8]);
    // The app's buffer was copied aside and put back (not the trace's).
    assert_eq!(reply.restored_buffers, 1);
    reply
}

/// Check a trace reply's counts and words.
/// `binding`: where the trace was bound (the lowest no block of the debug
/// program uses).
fn check(
    m: &SharedMemory,
    t: &TraceReply,
    (hits, records, full, binding): (u32, u32, u32, u32),
    data: &[u32],
) {
    assert_eq!(t.status, abi::TRACE_OK, "{t:?}");
    assert_eq!(
        (t.hits, t.records, t.words, t.full),
        (hits, records, data.len() as u32, full),
        "{t:?}"
    );
    assert_eq!(words(m, t.data), data);
    assert!(t.data.offset as usize >= abi::BULK_DATA);
    assert_eq!(t.binding, binding, "{t:?}");
}

#[test]
fn trace_steps_read_back_exactly_what_one_invocation_wrote() {
    let plain = app(None).output().unwrap();
    assert!(
        plain.status.success(),
        "{}",
        String::from_utf8_lossy(&plain.stderr)
    );
    let plain = String::from_utf8(plain.stdout).unwrap();
    assert!(
        plain.contains("draw: binding 1 is buffer spare range 0+16, generic is buffer generic"),
        "{plain}"
    );
    assert!(
        plain.contains("dispatch: buffer 0: 11 21 31 41 51 61 71 81"),
        "{plain}"
    );

    let m = SharedMemory::create().unwrap();
    let (draw, dispatch) = (
        function_id("glDrawArrays").unwrap(),
        function_id("glDispatchCompute").unwrap(),
    );
    m.set_breakpoint(draw, true);
    m.set_breakpoint(dispatch, true);
    let child = app(Some(&m)).spawn().unwrap();

    let c = wait_stop(&m, draw);
    let expected: Vec<u32> = (0..10).map(|i| 1000 * i + 10).collect();
    // AppData takes binding 0 (the trace block's declared one): the
    // lowest free is 1, where the app bound a range of its own.
    let (r, _) = fragment(&m, c.slot, "gldbg_trace_t", 64);
    check(&m, &r.trace, (1, 10, 0, 1), &expected);
    // The trace data follows the step's own.
    assert!(r.trace.data.offset >= r.coverage.offset + r.coverage.len);
    // A smaller capacity (the kept buffer is larger): the shader sees 4 words.
    let (r, _) = fragment(&m, c.slot, "gldbg_trace_t", 4);
    check(&m, &r.trace, (1, 10, 1, 1), &expected[..4]);
    // A larger one: the buffer grows.
    let (r, _) = fragment(&m, c.slot, "gldbg_trace_t", 4096);
    check(&m, &r.trace, (1, 10, 0, 1), &expected);
    // No block of that name: the step answers, the trace is unsupported.
    let (r, _) = fragment(&m, c.slot, "gldbg_absent", 64);
    assert_eq!(r.trace.status, abi::TRACE_UNSUPPORTED);
    assert_eq!(r.trace.data, BulkRef::default());

    // The vertex stage alone has no block at 0 (the app's buffer is bound there).
    let r = vertex(&m, c.slot);
    check(
        &m,
        &r.trace,
        (1, 3, 0, 0),
        &[2, (-1f32).to_bits(), 1f32.to_bits()],
    );
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );

    let c = wait_stop(&m, dispatch);
    // AppData at 0, the debug pair at 2 and 3: the trace goes to 1.
    let r = compute(&m, c.slot);
    // Five invocations claimed the trace; one wrote it.
    check(
        &m,
        &r.trace,
        (5, 6, 0, 1),
        &(0..6).map(|i| 0xC000 + i).collect::<Vec<_>>(),
    );
    assert_eq!(
        m.command(c.slot, abi::CMD_RELEASE, T).unwrap(),
        abi::STATUS_OK
    );
    m.clear_breakpoints();
    assert_eq!(
        m.command(c.slot, abi::CMD_CONTINUE, T).unwrap(),
        abi::STATUS_OK
    );
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success());
    // The app's bindings, buffers, image and errors as without the debugger.
    assert_eq!(String::from_utf8(o.stdout).unwrap(), plain);
}
