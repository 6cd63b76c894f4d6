//! The GPU side of point and summary readbacks: a compute pass of ours
//! that reduces a step's values and coverage to a few words (count,
//! NaN/Inf counts, the type codes, per component the least and greatest
//! finite value in an order-preserving word domain: shared-memory atomics
//! per work group, then one global atomic per word), and the small reads
//! a point needs (one pixel, one record of a buffer).
//!
//! The program is built once per context (`#version 430`, `310 es`, or 330
//! with `GL_ARB_compute_shader` and `GL_ARB_shader_storage_buffer_object`);
//! a context that cannot build it gets `None` and the step reads
//! everything. Every binding it moves is put back (`BindingsGuard`).

use super::context::{gl_at_least, is_es};
use super::program::{PerContext, compute_program};
use crate::gl;
use crate::intercept::errors::drain_own_errors;
use gldbg_proto::shm::SUMMARY_WORDS;

/// Invocation `i`'s words of a GL buffer start at word `offset + i * stride`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Words {
    pub(crate) buffer: u32,
    pub(crate) stride: u32,
    pub(crate) offset: u32,
}

/// Threads per work group, and most work groups one reduction dispatches
/// (each thread then loops over its share).
const GROUP: usize = 256;
const MAX_GROUPS: usize = 128;

/// GL enums `gl.rs` does not name.
const COPY_READ_BUFFER_BINDING: u32 = 0x8F36;
const STREAM_COPY: u32 = 0x88E2;

/// The reduction's SSBO binding points (put back after).
const BINDINGS: [u32; 3] = [0, 1, 2];

/// The reduction program per context.
static PROGRAMS: PerContext = PerContext::new("gldbg_reduce_n");

const BODY: &str = r#"
layout(local_size_x = 256) in;
layout(std430 BINDING0) readonly buffer GldbgReduceValues { uint v[]; } gldbg_v;
layout(std430 BINDING1) readonly buffer GldbgReduceCoverage { uint c[]; } gldbg_c;
layout(std430 BINDING2) buffer GldbgReduceResult { uint r[14]; } gldbg_r;
uniform uint gldbg_reduce_n;
uniform uint gldbg_reduce_vs;
uniform uint gldbg_reduce_vo;
uniform uint gldbg_reduce_cs;
uniform uint gldbg_reduce_co;
uniform uint gldbg_reduce_comps;
uniform uint gldbg_reduce_base;
shared uint gldbg_s[13];

uint gldbg_ordered(uint w) {
    if (gldbg_reduce_base == 1u) return w ^ 0x80000000u;
    if (gldbg_reduce_base == 2u) return w;
    if (gldbg_reduce_base == 3u) return (w & 0x7fffffffu) != 0u ? 1u : 0u;
    return (w & 0x80000000u) != 0u ? ~w : (w | 0x80000000u);
}

void main() {
    uint t = gl_LocalInvocationID.x;
    // Word 13: the pass ran (conditional rendering may discard a dispatch).
    if (gl_GlobalInvocationID.x == 0u) gldbg_r.r[13] = 1u;
    if (t < 13u) gldbg_s[t] = (t == 3u || (t >= 5u && t < 9u)) ? 0xffffffffu : 0u;
    memoryBarrierShared();
    barrier();
    uint count = 0u;
    uint nan = 0u;
    uint inf = 0u;
    uint cmin = 0xffffffffu;
    uint cmax = 0u;
    uvec4 mn = uvec4(0xffffffffu);
    uvec4 mx = uvec4(0u);
    uint step = gl_NumWorkGroups.x * 256u;
    for (uint i = gl_GlobalInvocationID.x; i < gldbg_reduce_n; i += step) {
        uint cw = gldbg_c.c[i * gldbg_reduce_cs + gldbg_reduce_co];
        if ((cw & 0x7fffffffu) == 0u) continue;
        count += 1u;
        cmin = min(cmin, cw);
        cmax = max(cmax, cw);
        bool isn = false;
        bool isi = false;
        uint at = i * gldbg_reduce_vs + gldbg_reduce_vo;
        uvec4 w = uvec4(0u);
        bvec4 has = bvec4(gldbg_reduce_comps > 0u, gldbg_reduce_comps > 1u,
                          gldbg_reduce_comps > 2u, gldbg_reduce_comps > 3u);
        if (has.x) w.x = gldbg_v.v[at];
        if (has.y) w.y = gldbg_v.v[at + 1u];
        if (has.z) w.z = gldbg_v.v[at + 2u];
        if (has.w) w.w = gldbg_v.v[at + 3u];
        // Finite components count; NaN and Inf are counted apart.
        bvec4 finite = has;
        if (gldbg_reduce_base == 0u) {
            uvec4 a = w & uvec4(0x7fffffffu);
            bvec4 nans = greaterThan(a, uvec4(0x7f800000u));
            bvec4 infs = equal(a, uvec4(0x7f800000u));
            isn = any(bvec4(has.x && nans.x, has.y && nans.y, has.z && nans.z, has.w && nans.w));
            isi = any(bvec4(has.x && infs.x, has.y && infs.y, has.z && infs.z, has.w && infs.w));
            finite = bvec4(has.x && !nans.x && !infs.x, has.y && !nans.y && !infs.y,
                           has.z && !nans.z && !infs.z, has.w && !nans.w && !infs.w);
        }
        uvec4 o = uvec4(gldbg_ordered(w.x), gldbg_ordered(w.y), gldbg_ordered(w.z),
                        gldbg_ordered(w.w));
        mn = uvec4(finite.x ? min(mn.x, o.x) : mn.x, finite.y ? min(mn.y, o.y) : mn.y,
                   finite.z ? min(mn.z, o.z) : mn.z, finite.w ? min(mn.w, o.w) : mn.w);
        mx = uvec4(finite.x ? max(mx.x, o.x) : mx.x, finite.y ? max(mx.y, o.y) : mx.y,
                   finite.z ? max(mx.z, o.z) : mx.z, finite.w ? max(mx.w, o.w) : mx.w);
        if (isn) nan += 1u;
        if (isi) inf += 1u;
    }
    if (count > 0u) {
        atomicAdd(gldbg_s[0], count);
        atomicAdd(gldbg_s[1], nan);
        atomicAdd(gldbg_s[2], inf);
        atomicMin(gldbg_s[3], cmin);
        atomicMax(gldbg_s[4], cmax);
        atomicMin(gldbg_s[5], mn.x);
        atomicMin(gldbg_s[6], mn.y);
        atomicMin(gldbg_s[7], mn.z);
        atomicMin(gldbg_s[8], mn.w);
        atomicMax(gldbg_s[9], mx.x);
        atomicMax(gldbg_s[10], mx.y);
        atomicMax(gldbg_s[11], mx.z);
        atomicMax(gldbg_s[12], mx.w);
    }
    memoryBarrierShared();
    barrier();
    if (t == 0u && gldbg_s[0] > 0u) {
        atomicAdd(gldbg_r.r[0], gldbg_s[0]);
        atomicAdd(gldbg_r.r[1], gldbg_s[1]);
        atomicAdd(gldbg_r.r[2], gldbg_s[2]);
        atomicMin(gldbg_r.r[3], gldbg_s[3]);
        atomicMax(gldbg_r.r[4], gldbg_s[4]);
        for (uint k = 0u; k < 4u; ++k) {
            atomicMin(gldbg_r.r[5u + k], gldbg_s[5u + k]);
            atomicMax(gldbg_r.r[9u + k], gldbg_s[9u + k]);
        }
    }
}
"#;

/// The words of the result buffer: the summary's, then one the pass sets
/// to 1 (a dispatch discarded by the app's conditional rendering, or not
/// run for another reason, leaves it 0).
const RESULT_WORDS: usize = SUMMARY_WORDS + 1;

/// The words a reduction starts from: counts 0, least words all ones.
fn initial() -> [u32; RESULT_WORDS] {
    let mut w = [0u32; RESULT_WORDS];
    w[3] = !0;
    w[5..9].fill(!0);
    w
}

/// Whether this context runs compute shaders over storage buffers.
pub(crate) fn available() -> bool {
    match super::context::es_version() {
        Some(v) => v >= (3, 1),
        None => {
            gl_at_least(4, 3)
                || (gl::has_extension("GL_ARB_compute_shader")
                    && gl::has_extension("GL_ARB_shader_storage_buffer_object"))
        }
    }
}

/// Whether a summary print reduces here: a context with compute shaders
/// over storage buffers whose renderer is not the CPU itself. Mesa's
/// llvmpipe and softpipe (and SwiftShader) run compute shaders far slower
/// than the daemon reduces a full readback: a 1080p float summary took 93
/// ms against 41 ms whole. `GLDBG_READBACK=gpu` in the app's environment
/// reduces there anyway (the tests, which run on llvmpipe).
pub(crate) fn summaries_here() -> bool {
    available() && (!cpu_renderer() || forced())
}

fn cpu_renderer() -> bool {
    let renderer = gl::get_string(gl::RENDERER).to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swiftshader", "swrast"]
        .iter()
        .any(|r| renderer.contains(r))
}

fn forced() -> bool {
    static FORCED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FORCED.get_or_init(|| std::env::var_os("GLDBG_READBACK").is_some_and(|v| v == "gpu"))
}

/// The `#version` line (and extensions) the reduction compiles with here.
fn header() -> &'static str {
    if is_es() {
        "#version 310 es\nprecision highp float;\nprecision highp int;\n"
    } else if gl_at_least(4, 3) {
        "#version 430\n"
    } else {
        "#version 330\n#extension GL_ARB_compute_shader : require\n\
         #extension GL_ARB_shader_storage_buffer_object : require\n"
    }
}

/// This context's reduction program (built on first use); `None` where
/// compute shaders are missing or the build failed.
fn program() -> Option<u32> {
    PROGRAMS.get(|| if available() { build() } else { 0 })
}

fn build() -> u32 {
    // GLSL 4.30 and ES 3.10 name the bindings in the source (ES has no
    // glShaderStorageBlockBinding); GLSL 3.30 with the extensions cannot.
    let in_source = is_es() || gl_at_least(4, 3);
    let mut body = BODY.to_string();
    for (i, b) in BINDINGS.iter().enumerate() {
        let layout = match in_source {
            true => format!(", binding = {b}"),
            false => String::new(),
        };
        body = body.replace(&format!(" BINDING{i}"), &layout);
    }
    let prog = compute_program(&format!("{}{body}", header()));
    if prog == 0 {
        return 0;
    }
    let blocks = [
        ("GldbgReduceValues", BINDINGS[0]),
        ("GldbgReduceCoverage", BINDINGS[1]),
        ("GldbgReduceResult", BINDINGS[2]),
    ];
    for (name, binding) in blocks.into_iter().filter(|_| !in_source) {
        let index = gl::program_resource_index(prog, gl::SHADER_STORAGE_BLOCK, name);
        gl::shader_storage_block_binding(prog, index, binding);
    }
    if drain_own_errors() != 0 {
        gl::delete_program(prog);
        return 0;
    }
    prog
}

/// The indexed storage bindings the reduction takes, the generic one and
/// the current program, put back on drop.
struct BindingsGuard {
    indexed: [(u32, i64, i64); 3],
    generic: u32,
    program: u32,
}

impl BindingsGuard {
    fn capture() -> BindingsGuard {
        let at = |i: u32| {
            (
                gl::get_i_indexed(gl::SHADER_STORAGE_BUFFER_BINDING, i) as u32,
                gl::get_i64_indexed(gl::SHADER_STORAGE_BUFFER_START, i),
                gl::get_i64_indexed(gl::SHADER_STORAGE_BUFFER_SIZE, i),
            )
        };
        BindingsGuard {
            indexed: BINDINGS.map(at),
            generic: gl::get_i(gl::SHADER_STORAGE_BUFFER_BINDING) as u32,
            program: gl::get_i(gl::CURRENT_PROGRAM) as u32,
        }
    }
}

impl Drop for BindingsGuard {
    fn drop(&mut self) {
        for (&index, &(buffer, start, size)) in BINDINGS.iter().zip(&self.indexed) {
            if buffer != 0 && size > 0 {
                gl::bind_buffer_range(gl::SHADER_STORAGE_BUFFER, index, buffer, start, size);
            } else {
                gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, index, buffer);
            }
        }
        // Last: binding an indexed target also sets the generic binding.
        gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, self.generic);
        gl::use_program(self.program);
    }
}

/// Reduce `n` invocations: `components` value words each (0: the
/// coverage alone, for the type code) compared as `base` (`SUMMARY_*`).
/// `None` where the context has no compute shaders or GL failed.
pub(crate) fn reduce(
    values: Words,
    coverage: Words,
    n: usize,
    components: u32,
    base: u32,
) -> Option<[u32; SUMMARY_WORDS]> {
    let prog = program()?;
    // A shader may read no further into a storage block than the driver's
    // limit (GL 4.3 promises only 16 MiB): what lies past it would read as
    // zeros, "not reached". Larger buffers are read whole instead.
    let span = |w: &Words, words: u32| {
        let last = (n.max(1) - 1) as u64 * u64::from(w.stride);
        (last + u64::from(w.offset) + u64::from(words)) * 4
    };
    let limit = gl::get_i(gl::MAX_SHADER_STORAGE_BLOCK_SIZE);
    let limit = u64::try_from(limit).unwrap_or(0);
    if span(&values, components.min(4)) > limit || span(&coverage, 1) > limit {
        return None;
    }
    drain_own_errors();
    let _guard = BindingsGuard::capture();
    let result = gl::gen_buffer();
    let init: Vec<u8> = initial().iter().flat_map(|w| w.to_ne_bytes()).collect();
    gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, result);
    gl::buffer_data(gl::SHADER_STORAGE_BUFFER, &init, gl::DYNAMIC_COPY);
    gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, BINDINGS[0], values.buffer);
    gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, BINDINGS[1], coverage.buffer);
    gl::bind_buffer_base(gl::SHADER_STORAGE_BUFFER, BINDINGS[2], result);
    gl::use_program(prog);
    for (name, v) in [
        ("gldbg_reduce_n", n as u32),
        ("gldbg_reduce_vs", values.stride),
        ("gldbg_reduce_vo", values.offset),
        ("gldbg_reduce_cs", coverage.stride),
        ("gldbg_reduce_co", coverage.offset),
        ("gldbg_reduce_comps", components.min(4)),
        ("gldbg_reduce_base", base),
    ] {
        gl::uniform_1ui(gl::uniform_location(prog, name), v);
    }
    gl::memory_barrier(gl::ALL_BARRIER_BITS);
    dispatch(n.div_ceil(GROUP).clamp(1, MAX_GROUPS) as u32);
    gl::memory_barrier(gl::ALL_BARRIER_BITS);
    let mut out = [0u8; RESULT_WORDS * 4];
    gl::bind_buffer(gl::SHADER_STORAGE_BUFFER, result);
    gl::get_buffer_bytes(gl::SHADER_STORAGE_BUFFER, &mut out, is_es());
    gl::delete_buffer(result);
    if drain_own_errors() != 0 {
        return None;
    }
    let mut words = [0u32; RESULT_WORDS];
    for (w, b) in words.iter_mut().zip(out.chunks_exact(4)) {
        *w = u32::from_ne_bytes([b[0], b[1], b[2], b[3]]);
    }
    let (summary, ran) = words.split_at(SUMMARY_WORDS);
    (ran[0] == 1).then(|| summary.try_into().ok()).flatten()
}

fn dispatch(groups: u32) {
    gl::dispatch_compute(groups, 1, 1);
}

/// `count` invocations from `first`: `per` words each (the first `per` of
/// each invocation's words). `None` on a GL error.
pub(crate) fn read_words(w: Words, first: usize, count: usize, per: usize) -> Option<Vec<u32>> {
    if count == 0 {
        return Some(Vec::new());
    }
    let stride = w.stride as usize;
    let start = (first * stride + w.offset as usize) * 4;
    let len = ((count - 1) * stride + per) * 4;
    let mut bytes = vec![0u8; len];
    drain_own_errors();
    let old = gl::get_i(COPY_READ_BUFFER_BINDING) as u32;
    gl::bind_buffer(gl::COPY_READ_BUFFER, w.buffer);
    gl::get_buffer_bytes_at(gl::COPY_READ_BUFFER, start as i64, &mut bytes, is_es());
    gl::bind_buffer(gl::COPY_READ_BUFFER, old);
    if drain_own_errors() != 0 {
        return None;
    }
    let word = |i: usize| {
        let b = &bytes[i * 4..i * 4 + 4];
        u32::from_ne_bytes([b[0], b[1], b[2], b[3]])
    };
    Some(
        (0..count)
            .flat_map(|i| (0..per).map(move |k| i * stride + k))
            .map(word)
            .collect(),
    )
}

/// The read pixel format of `components` float channels.
fn format(components: usize) -> u32 {
    [gl::RED, gl::RG, gl::RGB, gl::RGBA][components.clamp(1, 4) - 1]
}

/// One pixel of the bound read framebuffer's `attachment`: `components`
/// float words.
pub(crate) fn read_pixel(attachment: u32, (x, y): (i32, i32), components: usize) -> Vec<u32> {
    gl::read_buffer(attachment);
    let v = gl::read_pixel_words(x, y, format(components));
    v[..components.clamp(1, 4)].to_vec()
}

/// The bound read framebuffer's `attachment` (`w` x `h`) copied on the GPU
/// into a new buffer of ours, `components` floats per pixel (the caller
/// deletes it). `None` on a GL error.
pub(crate) fn image_words(attachment: u32, (w, h): (i32, i32), components: usize) -> Option<Words> {
    let buffer = gl::gen_buffer();
    let size = w as i64 * h as i64 * components as i64 * 4;
    drain_own_errors();
    gl::bind_buffer(gl::PIXEL_PACK_BUFFER, buffer);
    gl::buffer_data_uninit(gl::PIXEL_PACK_BUFFER, size, STREAM_COPY);
    gl::read_buffer(attachment);
    gl::read_pixels_to_buffer(buffer, w, h, format(components));
    gl::bind_buffer(gl::PIXEL_PACK_BUFFER, 0);
    if drain_own_errors() != 0 {
        gl::delete_buffer(buffer);
        return None;
    }
    Some(Words {
        buffer,
        stride: components as u32,
        offset: 0,
    })
}
