//! The trace shader on the real driver (Mesa llvmpipe, headless EGL): a
//! compute shader traced for one invocation is dispatched, its trace block
//! read back and decoded with the layout; the record sequence and every
//! recorded local must equal a CPU run of the same formulas, the `start`,
//! `max_records`, capacity (`full`) and `records` rules must hold, and
//! every invocation's own output must be the app's. The trace shaders of
//! the other stages are compiled on the driver.

use std::collections::HashMap;
use std::ffi::{CString, c_char, c_void};

use gldbg_corpus::driver::{Driver, first_error};
use glsl_instrument::{
    BaseType, END_RECORD, ENTRY_RECORD, ShaderModel, Stage, StepKind, TRACE_HEADER_WORDS, Trace,
    TraceSpec,
};

#[link(name = "EGL")]
unsafe extern "C" {
    fn eglGetProcAddress(name: *const c_char) -> *mut c_void;
}

const GL_COMPUTE_SHADER: u32 = 0x91B9;
const GL_COMPILE_STATUS: u32 = 0x8B81;
const GL_LINK_STATUS: u32 = 0x8B82;
const GL_INFO_LOG_LENGTH: u32 = 0x8B84;
const GL_SHADER_STORAGE_BUFFER: u32 = 0x90D2;
const GL_SHADER_STORAGE_BLOCK: u32 = 0x92E6;
const GL_DYNAMIC_COPY: u32 = 0x88EA;
const GL_ALL_BARRIER_BITS: u32 = 0xFFFF_FFFF;
const GL_VERTEX_SHADER: u32 = 0x8B31;
const GL_FRAGMENT_SHADER: u32 = 0x8B30;
const GL_FRAMEBUFFER: u32 = 0x8D40;
const GL_RENDERBUFFER: u32 = 0x8D41;
const GL_RGBA8: u32 = 0x8058;
const GL_COLOR_ATTACHMENT0: u32 = 0x8CE0;
const GL_FRAMEBUFFER_COMPLETE: u32 = 0x8CD5;
const GL_TRIANGLES: u32 = 0x0004;

/// The GL entry points a dispatch needs (the context is `Driver`'s).
struct Gl {
    create_shader: unsafe extern "C" fn(u32) -> u32,
    shader_source: unsafe extern "C" fn(u32, i32, *const *const c_char, *const i32),
    compile_shader: unsafe extern "C" fn(u32),
    get_shader_iv: unsafe extern "C" fn(u32, u32, *mut i32),
    get_shader_info_log: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    create_program: unsafe extern "C" fn() -> u32,
    attach_shader: unsafe extern "C" fn(u32, u32),
    link_program: unsafe extern "C" fn(u32),
    get_program_iv: unsafe extern "C" fn(u32, u32, *mut i32),
    get_program_info_log: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    use_program: unsafe extern "C" fn(u32),
    gen_buffers: unsafe extern "C" fn(i32, *mut u32),
    bind_buffer: unsafe extern "C" fn(u32, u32),
    buffer_data: unsafe extern "C" fn(u32, isize, *const c_void, u32),
    bind_buffer_base: unsafe extern "C" fn(u32, u32, u32),
    get_buffer_sub_data: unsafe extern "C" fn(u32, isize, isize, *mut c_void),
    dispatch_compute: unsafe extern "C" fn(u32, u32, u32),
    memory_barrier: unsafe extern "C" fn(u32),
    get_program_resource_index: unsafe extern "C" fn(u32, u32, *const c_char) -> u32,
    shader_storage_block_binding: unsafe extern "C" fn(u32, u32, u32),
    gen_framebuffers: unsafe extern "C" fn(i32, *mut u32),
    bind_framebuffer: unsafe extern "C" fn(u32, u32),
    gen_renderbuffers: unsafe extern "C" fn(i32, *mut u32),
    bind_renderbuffer: unsafe extern "C" fn(u32, u32),
    renderbuffer_storage: unsafe extern "C" fn(u32, u32, i32, i32),
    framebuffer_renderbuffer: unsafe extern "C" fn(u32, u32, u32, u32),
    check_framebuffer_status: unsafe extern "C" fn(u32) -> u32,
    viewport: unsafe extern "C" fn(i32, i32, i32, i32),
    draw_arrays: unsafe extern "C" fn(u32, i32, i32),
    finish: unsafe extern "C" fn(),
}

fn proc(name: &str) -> *mut c_void {
    let c = CString::new(name).unwrap();
    // SAFETY: eglGetProcAddress takes a NUL-terminated name.
    let p = unsafe { eglGetProcAddress(c.as_ptr()) };
    assert!(!p.is_null(), "no {name}");
    p
}

/// The entry point `name` as the function type `F` (a field of [`Gl`]).
fn load<F: Copy>(name: &str) -> F {
    let p = proc(name);
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: `p` is the driver's entry point of that name, whose signature
    // `F` (a field's type) spells as the GL spec does; same size checked.
    unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
}

impl Gl {
    fn load() -> Gl {
        Gl {
            create_shader: load("glCreateShader"),
            shader_source: load("glShaderSource"),
            compile_shader: load("glCompileShader"),
            get_shader_iv: load("glGetShaderiv"),
            get_shader_info_log: load("glGetShaderInfoLog"),
            create_program: load("glCreateProgram"),
            attach_shader: load("glAttachShader"),
            link_program: load("glLinkProgram"),
            get_program_iv: load("glGetProgramiv"),
            get_program_info_log: load("glGetProgramInfoLog"),
            use_program: load("glUseProgram"),
            gen_buffers: load("glGenBuffers"),
            bind_buffer: load("glBindBuffer"),
            buffer_data: load("glBufferData"),
            bind_buffer_base: load("glBindBufferBase"),
            get_buffer_sub_data: load("glGetBufferSubData"),
            dispatch_compute: load("glDispatchCompute"),
            memory_barrier: load("glMemoryBarrier"),
            get_program_resource_index: load("glGetProgramResourceIndex"),
            shader_storage_block_binding: load("glShaderStorageBlockBinding"),
            gen_framebuffers: load("glGenFramebuffers"),
            bind_framebuffer: load("glBindFramebuffer"),
            gen_renderbuffers: load("glGenRenderbuffers"),
            bind_renderbuffer: load("glBindRenderbuffer"),
            renderbuffer_storage: load("glRenderbufferStorage"),
            framebuffer_renderbuffer: load("glFramebufferRenderbuffer"),
            check_framebuffer_status: load("glCheckFramebufferStatus"),
            viewport: load("glViewport"),
            draw_arrays: load("glDrawArrays"),
            finish: load("glFinish"),
        }
    }

    /// A linked compute program of `source`, or the driver's log.
    fn compute_program(&self, source: &str) -> Result<u32, String> {
        self.program(&[(GL_COMPUTE_SHADER, source)])
    }

    /// A linked program of these shaders (type, source), or the driver's log.
    fn program(&self, shaders: &[(u32, &str)]) -> Result<u32, String> {
        // SAFETY: the context is current (Driver); pointers are valid for each call.
        unsafe {
            let prog = (self.create_program)();
            let mut ok = 0;
            for (ty, source) in shaders {
                let sh = (self.create_shader)(*ty);
                let (ptr, len) = (source.as_ptr() as *const c_char, source.len() as i32);
                (self.shader_source)(sh, 1, &ptr, &len);
                (self.compile_shader)(sh);
                (self.get_shader_iv)(sh, GL_COMPILE_STATUS, &mut ok);
                if ok == 0 {
                    return Err(self.log(sh, self.get_shader_iv, self.get_shader_info_log));
                }
                (self.attach_shader)(prog, sh);
            }
            (self.link_program)(prog);
            (self.get_program_iv)(prog, GL_LINK_STATUS, &mut ok);
            if ok == 0 {
                return Err(self.log(prog, self.get_program_iv, self.get_program_info_log));
            }
            Ok(prog)
        }
    }

    fn log(
        &self,
        obj: u32,
        iv: unsafe extern "C" fn(u32, u32, *mut i32),
        info: unsafe extern "C" fn(u32, i32, *mut i32, *mut c_char),
    ) -> String {
        // SAFETY: `buf` holds the log's length; the context is current.
        unsafe {
            let mut n = 0;
            iv(obj, GL_INFO_LOG_LENGTH, &mut n);
            let mut buf = vec![0u8; n.max(1) as usize];
            let mut written = 0;
            info(
                obj,
                buf.len() as i32,
                &mut written,
                buf.as_mut_ptr() as *mut c_char,
            );
            buf.truncate(written.max(0) as usize);
            String::from_utf8_lossy(&buf).into_owned()
        }
    }

    /// A storage buffer of `words` zeroed words bound at `binding`.
    fn buffer(&self, binding: u32, words: usize) -> u32 {
        let zeros = vec![0u32; words];
        let mut b = 0;
        // SAFETY: `zeros` holds `words` words; the context is current.
        unsafe {
            (self.gen_buffers)(1, &mut b);
            (self.bind_buffer)(GL_SHADER_STORAGE_BUFFER, b);
            (self.buffer_data)(
                GL_SHADER_STORAGE_BUFFER,
                (words * 4) as isize,
                zeros.as_ptr() as *const c_void,
                GL_DYNAMIC_COPY,
            );
            (self.bind_buffer_base)(GL_SHADER_STORAGE_BUFFER, binding, b);
        }
        b
    }

    fn read(&self, buffer: u32, words: usize) -> Vec<u32> {
        let mut out = vec![0u32; words];
        // SAFETY: `out` holds `words` words; the context is current.
        unsafe {
            (self.memory_barrier)(GL_ALL_BARRIER_BITS);
            (self.bind_buffer)(GL_SHADER_STORAGE_BUFFER, buffer);
            (self.get_buffer_sub_data)(
                GL_SHADER_STORAGE_BUFFER,
                0,
                (words * 4) as isize,
                out.as_mut_ptr() as *mut c_void,
            );
        }
        out
    }

    /// Bind the storage block `name` of `prog` at `binding`.
    fn block_binding(&self, prog: u32, name: &str, binding: u32) {
        let c = CString::new(name).unwrap();
        // SAFETY: a NUL-terminated name; the context is current.
        unsafe {
            let index =
                (self.get_program_resource_index)(prog, GL_SHADER_STORAGE_BLOCK, c.as_ptr());
            assert_ne!(index, u32::MAX, "no block {name}");
            (self.shader_storage_block_binding)(prog, index, binding);
        }
    }

    /// Draw a triangle covering a `size`² RGBA8 framebuffer with `prog`.
    fn draw_covering(&self, prog: u32, size: i32) {
        let (mut fb, mut rb) = (0, 0);
        // SAFETY: a linked program; the context is current.
        unsafe {
            (self.gen_framebuffers)(1, &mut fb);
            (self.bind_framebuffer)(GL_FRAMEBUFFER, fb);
            (self.gen_renderbuffers)(1, &mut rb);
            (self.bind_renderbuffer)(GL_RENDERBUFFER, rb);
            (self.renderbuffer_storage)(GL_RENDERBUFFER, GL_RGBA8, size, size);
            (self.framebuffer_renderbuffer)(
                GL_FRAMEBUFFER,
                GL_COLOR_ATTACHMENT0,
                GL_RENDERBUFFER,
                rb,
            );
            assert_eq!(
                (self.check_framebuffer_status)(GL_FRAMEBUFFER),
                GL_FRAMEBUFFER_COMPLETE
            );
            (self.viewport)(0, 0, size, size);
            (self.use_program)(prog);
            (self.draw_arrays)(GL_TRIANGLES, 0, 3);
            (self.finish)();
        }
    }

    fn dispatch(&self, prog: u32, groups: u32) {
        // SAFETY: a linked program; the context is current.
        unsafe {
            (self.use_program)(prog);
            (self.dispatch_compute)(groups, 1, 1);
        }
    }
}

const COMPUTE: &str = "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer Out { float o[]; };
float twice(in float x, out float y, inout float z) {
    y = x * 2.0;
    z = z + y;
    return y + 1.0;
}
void main() {
    uint id = gl_GlobalInvocationID.x;
    float acc = float(id);
    float t;
    for (int i = 0; i < 3; i++) {
        float y;
        float r = twice(acc + float(i), y, acc);
        t = r * 0.5;
    }
    if (acc > 1000.0) {
        return;
    }
    o[id] = acc + t;
}
";

/// Invocations dispatched (2 groups of 4).
const INVOCATIONS: usize = 8;
const TRACED: u32 = 2;

/// One expected record: the step's text (or "ENTRY" / "END") and the
/// values of the variables that are defined there.
type Expected = (&'static str, Vec<(&'static str, f64)>);

/// The CPU run of `COMPUTE` for invocation `id`: the records in order,
/// and the value it writes to `o[id]`.
fn cpu(id: u32) -> (Vec<Expected>, f32) {
    let mut ev: Vec<Expected> = vec![("ENTRY", vec![("gl_GlobalInvocationID", f64::from(id))])];
    ev.push(("uint id = gl_GlobalInvocationID.x", vec![]));
    let idf = f64::from(id);
    ev.push(("float acc = float(id)", vec![("id", idf)]));
    let mut acc = id as f32;
    ev.push(("float t;", vec![("id", idf), ("acc", f64::from(acc))]));
    let mut t = None::<f32>;
    let base = |acc: f32, t: Option<f32>| {
        let mut v = vec![("id", idf), ("acc", f64::from(acc))];
        v.extend(t.map(|t| ("t", f64::from(t))));
        v
    };
    ev.push(("int i = 0", base(acc, t)));
    for i in 0..3 {
        let with_i = |acc, t| {
            let mut v = base(acc, t);
            v.push(("i", f64::from(i)));
            v
        };
        ev.push(("i < 3", with_i(acc, t)));
        ev.push(("float y;", with_i(acc, t)));
        ev.push(("float r = twice", with_i(acc, t)));
        let x = acc + i as f32;
        ev.push((
            "y = x * 2.0",
            vec![("x", f64::from(x)), ("z", f64::from(acc))],
        ));
        let y = x * 2.0;
        let args = |z: f32| {
            vec![
                ("x", f64::from(x)),
                ("y", f64::from(y)),
                ("z", f64::from(z)),
            ]
        };
        ev.push(("z = z + y", args(acc)));
        let z = acc + y;
        ev.push(("return y + 1.0", args(z)));
        let r = y + 1.0;
        acc = z;
        let mut v = with_i(acc, t);
        v.extend([("y", f64::from(y)), ("r", f64::from(r))]);
        ev.push(("t = r * 0.5", v));
        t = Some(r * 0.5);
        ev.push(("i++", with_i(acc, t)));
    }
    ev.push(("i < 3", {
        let mut v = base(acc, t);
        v.push(("i", 3.0));
        v
    }));
    ev.push(("if (acc > 1000.0)", base(acc, t)));
    ev.push(("o[id] = acc + t", base(acc, t)));
    ev.push(("END", base(acc, t)));
    (ev, acc + t.unwrap())
}

/// A decoded record: its id and each variable's components.
struct Record {
    id: u32,
    values: HashMap<String, Vec<f64>>,
}

/// The records in `data` (`words` of them written), decoded with the layout.
fn decode(trace: &Trace, data: &[u32]) -> Vec<Record> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < data.len() {
        let (id, len) = (data[at], data[at + 1] as usize);
        let layout = &trace.layout.records[&id];
        assert_eq!(layout.words as usize, len, "record {id:#x}");
        let words = &data[at + 2..at + 2 + len];
        let mut values = HashMap::new();
        for v in &layout.vars {
            let mut comps = Vec::new();
            for p in &v.parts {
                let w = &words[p.offset as usize..];
                for c in 0..usize::from(p.ty.components) {
                    comps.push(match p.ty.base {
                        BaseType::Float => f64::from(f32::from_bits(w[c])),
                        BaseType::Int => f64::from(w[c] as i32),
                        BaseType::Uint => f64::from(w[c]),
                        BaseType::Bool => f64::from(w[c]),
                        BaseType::Double => {
                            f64::from_bits(u64::from(w[2 * c]) | (u64::from(w[2 * c + 1]) << 32))
                        }
                    });
                }
            }
            values.insert(v.name.clone(), comps);
        }
        out.push(Record { id, values });
        at += 2 + len;
    }
    out
}

/// The text a record is expected under.
fn label(m: &ShaderModel, id: u32) -> String {
    match id {
        ENTRY_RECORD => "ENTRY".into(),
        _ if id & END_RECORD != 0 => "END".into(),
        _ => m.step(glsl_instrument::StepId(id)).text.clone(),
    }
}

struct Run {
    header: Vec<u32>,
    records: Vec<Record>,
    outputs: Vec<f32>,
}

/// Dispatch the trace of `spec` with a trace block of `capacity` data words.
fn run(gl: &Gl, m: &ShaderModel, spec: &TraceSpec<'_>, capacity: usize) -> (Trace, Run) {
    let trace = m.instrument_trace(spec).unwrap();
    let prog = gl
        .compute_program(&trace.shader.source)
        .unwrap_or_else(|e| panic!("{}\n{}", first_error(&e), trace.shader.source));
    gl.block_binding(prog, &trace.block, 5);
    let out = gl.buffer(0, INVOCATIONS);
    // The coverage probe's two blocks (bindings 1 and 2).
    gl.buffer(1, INVOCATIONS * 4);
    gl.buffer(2, INVOCATIONS);
    let tb = gl.buffer(5, TRACE_HEADER_WORDS + capacity);
    gl.dispatch(prog, (INVOCATIONS / 4) as u32);
    let all = gl.read(tb, TRACE_HEADER_WORDS + capacity);
    let header = all[..TRACE_HEADER_WORDS].to_vec();
    let written = header[2] as usize;
    let records = decode(
        &trace,
        &all[TRACE_HEADER_WORDS..TRACE_HEADER_WORDS + written],
    );
    let outputs = gl
        .read(out, INVOCATIONS)
        .into_iter()
        .map(f32::from_bits)
        .collect();
    (
        trace,
        Run {
            header,
            records,
            outputs,
        },
    )
}

/// The records of `run` must be the expected ones from index `from`.
fn check_records(m: &ShaderModel, run: &Run, expected: &[Expected], from: usize) {
    for (k, rec) in run.records.iter().enumerate() {
        let (text, vals) = &expected[from + k];
        let got = label(m, rec.id);
        assert!(
            got.starts_with(text),
            "record {}: {got:?}, expected {text:?}",
            from + k
        );
        for (name, want) in vals {
            let v = rec
                .values
                .get(*name)
                .unwrap_or_else(|| panic!("record {} ({text}) lacks {name}", from + k));
            assert_eq!(v[0], *want, "record {} ({text}): {name}", from + k);
        }
    }
}

#[test]
fn a_traced_compute_invocation_records_its_run() {
    // The context, current while the test runs.
    let _driver = Driver::new().expect("headless EGL context on Mesa");
    let gl = Gl::load();
    let m = ShaderModel::parse(COMPUTE, Stage::Compute).unwrap();
    // The loop's init is a step.
    assert!(m.steps().iter().any(|s| s.kind == StepKind::LoopInit));
    let focus = format!("gl_GlobalInvocationID == uvec3({TRACED}u, 0u, 0u)");
    let spec = TraceSpec {
        focus: &focus,
        start: 0,
        max_records: 1000,
    };
    let (expected, _) = cpu(TRACED);
    let (trace, whole) = run(&gl, &m, &spec, 4096);
    // hits, records, words, full.
    assert_eq!(whole.header[0], 1);
    assert_eq!(whole.header[1] as usize, expected.len());
    assert_eq!(whole.header[3], 0);
    assert_eq!(whole.records.len(), expected.len());
    check_records(&m, &whole, &expected, 0);
    let words: usize = whole
        .records
        .iter()
        .map(|r| 2 + trace.layout.records[&r.id].words as usize)
        .sum();
    assert_eq!(whole.header[2] as usize, words);
    // The gl_GlobalInvocationID of the entry record, whole.
    assert_eq!(
        whole.records[0].values["gl_GlobalInvocationID"],
        [2.0, 0.0, 0.0]
    );
    // Every invocation computed what the app computes.
    for id in 0..INVOCATIONS as u32 {
        assert_eq!(whole.outputs[id as usize], cpu(id).1, "o[{id}]");
    }

    // The next part: records 5, 6, 7 only; the one after sets `full`.
    let part = TraceSpec {
        start: 5,
        max_records: 3,
        ..spec
    };
    let (_, run2) = run(&gl, &m, &part, 4096);
    assert_eq!(run2.header[1] as usize, expected.len());
    assert_eq!(run2.header[3], 1);
    assert_eq!(run2.records.len(), 3);
    check_records(&m, &run2, &expected, 5);

    // A block too small: the records that fit, then `full`.
    let first_two: usize = whole.records[..2]
        .iter()
        .map(|r| 2 + trace.layout.records[&r.id].words as usize)
        .sum();
    let (_, run3) = run(&gl, &m, &spec, first_two + 1);
    assert_eq!(run3.records.len(), 2);
    assert_eq!(run3.header[3], 1);
    assert_eq!(run3.header[1] as usize, expected.len());
    check_records(&m, &run3, &expected, 0);

    // A focus every invocation meets: all claim, one writes its whole run.
    let (_, run4) = run(
        &gl,
        &m,
        &TraceSpec {
            focus: "true",
            ..spec
        },
        4096,
    );
    assert_eq!(run4.header[0] as usize, INVOCATIONS);
    assert_eq!(run4.records.len(), expected.len());
}

const COVERING: &str = "#version 430
void main() {
    vec2 v[3] = vec2[3](vec2(-1.0, -1.0), vec2(3.0, -1.0), vec2(-1.0, 3.0));
    gl_Position = vec4(v[gl_VertexID], 0.0, 1.0);
}
";

const FRAGMENT: &str = "#version 430
out vec4 color;
float wave(in float x, out float s) {
    s = x * 0.5;
    return s + 1.0;
}
void main() {
    vec2 p = gl_FragCoord.xy;
    float acc = 0.0;
    for (int i = 0; i < 2; i++) {
        float s;
        acc += wave(p.x + float(i), s);
    }
    color = vec4(acc, p, 1.0);
}
";

/// The CPU run of `FRAGMENT` at fragment coordinate `p`.
fn cpu_fragment(p: [f32; 2]) -> Vec<Expected> {
    let pv = |acc: f32| vec![("p", f64::from(p[0])), ("acc", f64::from(acc))];
    let mut ev: Vec<Expected> = vec![("ENTRY", vec![("gl_FragCoord", f64::from(p[0]))])];
    ev.push(("vec2 p = gl_FragCoord.xy", vec![]));
    ev.push(("float acc = 0.0", vec![("p", f64::from(p[0]))]));
    let mut acc = 0.0f32;
    ev.push(("int i = 0", pv(acc)));
    for i in 0..2 {
        let mut v = pv(acc);
        v.push(("i", f64::from(i)));
        ev.push(("i < 2", v.clone()));
        ev.push(("float s;", v.clone()));
        ev.push(("acc += wave", v));
        let x = p[0] + i as f32;
        ev.push(("s = x * 0.5", vec![("x", f64::from(x))]));
        let s = x * 0.5;
        ev.push((
            "return s + 1.0",
            vec![("x", f64::from(x)), ("s", f64::from(s))],
        ));
        acc += s + 1.0;
        let mut v = pv(acc);
        v.push(("i", f64::from(i)));
        ev.push(("i++", v));
    }
    let mut v = pv(acc);
    v.push(("i", 2.0));
    ev.push(("i < 2", v));
    ev.push(("color = vec4", pv(acc)));
    let mut end = pv(acc);
    end.push(("color", f64::from(acc)));
    ev.push(("END", end));
    ev
}

#[test]
fn a_traced_fragment_records_its_run() {
    let _driver = Driver::new().expect("headless EGL context on Mesa");
    let gl = Gl::load();
    let m = ShaderModel::parse(FRAGMENT, Stage::Fragment).unwrap();
    let spec = TraceSpec {
        focus: "all(equal(ivec2(gl_FragCoord.xy), ivec2(3, 2)))",
        start: 0,
        max_records: 1000,
    };
    let trace = m.instrument_trace(&spec).unwrap();
    let prog = gl
        .program(&[
            (GL_VERTEX_SHADER, COVERING),
            (GL_FRAGMENT_SHADER, &trace.shader.source),
        ])
        .unwrap_or_else(|e| panic!("{}\n{}", first_error(&e), trace.shader.source));
    gl.block_binding(prog, &trace.block, 5);
    let capacity = 4096;
    let tb = gl.buffer(5, TRACE_HEADER_WORDS + capacity);
    gl.draw_covering(prog, 8);
    let all = gl.read(tb, TRACE_HEADER_WORDS + capacity);
    let written = all[2] as usize;
    let run = Run {
        header: all[..TRACE_HEADER_WORDS].to_vec(),
        records: decode(
            &trace,
            &all[TRACE_HEADER_WORDS..TRACE_HEADER_WORDS + written],
        ),
        outputs: Vec::new(),
    };
    let expected = cpu_fragment([3.5, 2.5]);
    assert_eq!(run.header[0], 1, "hits");
    assert_eq!(run.header[1] as usize, expected.len());
    assert_eq!(run.header[3], 0);
    assert_eq!(run.records.len(), expected.len());
    check_records(&m, &run, &expected, 0);
    let end = run.records.last().unwrap();
    assert_eq!(
        end.values["color"],
        [f64::from(expected_acc(3.5)), 3.5, 2.5, 1.0]
    );
}

/// `acc` of `FRAGMENT` at the end, for fragment x coordinate `x`.
fn expected_acc(x: f32) -> f32 {
    (0..2).fold(0.0f32, |acc, i| acc + ((x + i as f32) * 0.5 + 1.0))
}

/// Shaders of the other stages with a user function, loops and a struct.
fn stage_sources() -> Vec<(Stage, String)> {
    let body = |out: &str| {
        format!(
            "struct P {{ float a; vec2 b; }};
float f(in float x, out float y, inout vec2 z) {{ y = x; z.x += y; return y * 2.0; }}
void main() {{
    P p = P(1.0, vec2(0.5));
    float acc;
    for (int i = 0; i < 2; i++) {{ float y; acc = f(float(i), y, p.b); }}
    if (acc > 9.0) {{ return; }}
    {out}
}}
"
        )
    };
    vec![
        (
            Stage::Fragment,
            format!(
                "#version 430\nout vec4 c;\n{}",
                body("if (acc < -1.0) discard; c = vec4(acc, p.b, 1.0);")
            ),
        ),
        (
            Stage::Vertex,
            format!(
                "#version 430\nin vec4 v;\n{}",
                body("gl_Position = v * acc;")
            ),
        ),
        (
            Stage::Geometry,
            format!(
                "#version 430\nlayout(points) in;\nlayout(points, max_vertices = 2) out;\n{}",
                body("for (int k = 0; k < 2; k++) { gl_Position = vec4(acc); EmitVertex(); }")
            ),
        ),
        (
            Stage::TessControl,
            // barrier() only in main, before any return.
            "#version 430\nlayout(vertices = 1) out;\n\
             float f(in float x, out float y) { y = x; return y * 2.0; }\n\
             void main() {\n    float acc = 0.0;\n    \
             for (int i = 0; i < 2; i++) { float y; acc += f(float(i), y); }\n    \
             barrier();\n    gl_TessLevelOuter[0] = acc;\n}\n"
                .to_string(),
        ),
        (
            Stage::TessEval,
            format!(
                "#version 430\nlayout(triangles) in;\n{}",
                body("gl_Position = vec4(acc, gl_TessCoord);")
            ),
        ),
        (
            Stage::Fragment,
            format!(
                "#version 150\nout vec4 c;\n{}",
                body("c = vec4(acc, p.b, 1.0);")
            ),
        ),
        // Doubles are stored through unpackDouble2x32.
        (
            Stage::Fragment,
            format!(
                "#version 400\nout vec4 c;\n{}",
                body("dvec3 d = dvec3(acc); c = vec4(float(d.z), p.b, 1.0);")
            ),
        ),
        // gl_FragColor becomes a named output, in the records too.
        (
            Stage::Fragment,
            format!(
                "#version 140\n{}",
                body("gl_FragColor = vec4(acc, p.b, 1.0);")
            ),
        ),
        (
            Stage::Compute,
            format!(
                "#version 310 es\nlayout(local_size_x = 1) in;\nlayout(std430, binding = 0) buffer O {{ highp float o[]; }};\nprecision highp float;\n{}",
                body("o[0] = acc;")
            ),
        ),
    ]
}

#[test]
fn every_stage_trace_compiles_on_the_driver() {
    let driver = Driver::new().expect("headless EGL context on Mesa");
    for (stage, src) in stage_sources() {
        let m = ShaderModel::parse(&src, stage).unwrap_or_else(|e| panic!("{stage:?}: {e}"));
        driver
            .compile(stage.gl_enum(), &src)
            .unwrap_or_else(|e| panic!("{stage:?} original: {e}"));
        let trace = m
            .instrument_trace(&TraceSpec {
                focus: "true",
                start: 0,
                max_records: 64,
            })
            .unwrap_or_else(|e| panic!("{stage:?}: {e}"));
        driver
            .compile(stage.gl_enum(), &trace.shader.source)
            .unwrap_or_else(|e| panic!("{stage:?}: {}\n{}", first_error(&e), trace.shader.source));
    }
}
