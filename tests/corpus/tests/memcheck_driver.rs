//! The memcheck shader on the real driver (Mesa llvmpipe, headless EGL):
//! small kernels with one planted bug each are dispatched checked, their
//! findings block decoded; each must report exactly its bug (kind, line,
//! element, invocations, the race's other side), its corrected twin
//! nothing, and every checked run must leave the app's buffers as the
//! original program leaves them (where the bug does not make them
//! nondeterministic).

use gldbg_corpus::driver::Driver;
use glsl_instrument::memcheck::{
    Finding, FindingKind, Invocation, MEMCHECK_BLOCK, MemcheckOptions, SHADOW_BLOCK,
    SHADOW_WORDS_PER_COMPONENT,
};
use glsl_instrument::{ShaderModel, Stage};

/// Components shadowed per tracked array.
const CAP: u32 = 1024;

struct Run {
    findings: Vec<(Finding, u32, Option<u32>)>,
    out: Vec<u32>,
    not_checked: Vec<String>,
}

fn input_words() -> Vec<u32> {
    (0..8u32).map(|i| i * 10).collect()
}

/// Dispatch `src` (2 groups along x) original and checked: the checked
/// run's findings with their lines (and the other side's), its `Out`.
fn run(src: &str) -> (Vec<u32>, Run) {
    run_with(src, Stage::Compute, |_| {})
}

/// [`run`] of a compute kernel, or of a fragment shader drawn over 4x4
/// pixels; `setup` binds what else the shader uses (before each run).
fn run_with(src: &str, stage: Stage, setup: impl Fn(&gldbg_corpus::gl_run::Gl)) -> (Vec<u32>, Run) {
    let d = Driver::new().expect("an EGL context on llvmpipe");
    let gl = d.gl();
    let link = |source: &str| match stage {
        Stage::Compute => gl.compute_program(source),
        _ => gl.covering_program(source),
    };
    let go = |prog: u32| match stage {
        Stage::Compute => gl.dispatch(prog, 2),
        _ => {
            gl.draw_covering(prog, 4);
        }
    };
    let original = {
        let prog = link(src).expect("the kernel links");
        let input = gl.buffer(0, 8);
        gl.write(input, &input_words());
        let out = gl.buffer(1, 16);
        setup(gl);
        go(prog);
        gl.read(out, 16)
    };
    let model = ShaderModel::parse(src, stage).unwrap();
    let c = model
        .instrument_memcheck(MemcheckOptions::default())
        .unwrap();
    let prog = link(&c.source).unwrap_or_else(|e| panic!("{e}\n{}", c.source));
    let input = gl.buffer(0, 8);
    gl.write(input, &input_words());
    let out = gl.buffer(1, 16);
    setup(gl);
    if c.counters {
        gl.uint_array(prog, "gldbg_mc_acb", &[4, 0, 0, 0, 0, 0, 0, 0]);
    }
    gl.block_binding(prog, MEMCHECK_BLOCK, 5);
    let log = gl.buffer(5, c.log_words());
    if !c.storage.is_empty() {
        let k = c.storage.len() as u32;
        gl.block_binding(prog, SHADOW_BLOCK, 6);
        gl.buffer(6, (k * CAP * SHADOW_WORDS_PER_COMPONENT) as usize);
        let base: Vec<u32> = (0..k).map(|i| i * CAP).collect();
        gl.uint_array(prog, "gldbg_mc_sbase", &base);
        gl.uint_array(prog, "gldbg_mc_scap", &vec![CAP; k as usize]);
    }
    go(prog);
    let words = gl.read(log, c.log_words());
    let findings = c
        .decode(&words, stage)
        .into_iter()
        .map(|f| {
            let line = c.sites[f.site].line;
            let other = f.other.map(|o| c.sites[o.site].line);
            (f, line, other)
        })
        .collect();
    (
        original,
        Run {
            findings,
            out: gl.read(out, 16),
            not_checked: c.not_checked,
        },
    )
}

fn kernel(body: &str) -> String {
    format!(
        "#version 430
layout(local_size_x = 4) in;
layout(std430, binding = 0) buffer In {{ uint data[]; }};
layout(std430, binding = 1) buffer Out {{ uint o[]; }};
shared uint t[4];
{body}"
    )
}

fn compute(wg: u32, l: u32) -> Invocation {
    Invocation::Compute {
        workgroup: [wg, 0, 0],
        local: [l, 0, 0],
    }
}

/// The one finding of a run.
fn only(r: &Run) -> &(Finding, u32, Option<u32>) {
    assert_eq!(r.findings.len(), 1, "{:#?}", r.findings);
    &r.findings[0]
}

fn clean(src: &str) {
    let (original, r) = run(src);
    assert!(r.findings.is_empty(), "{:#?}\n{src}", r.findings);
    assert_eq!(r.out, original, "the checked run changed the results");
    assert!(r.not_checked.is_empty(), "{:?}", r.not_checked);
}

#[test]
fn storage_out_of_bounds() {
    let (_, r) = run(&kernel(
        "void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = data[i + 1u];
}
",
    ));
    let (f, line, _) = only(&r);
    assert_eq!((f.kind, *line), (FindingKind::OutOfBounds, 8));
    assert_eq!(f.element, vec![8]);
    assert_eq!((f.invocation, f.count), (compute(1, 3), 1));
    clean(&kernel(
        "void main() {
    uint i = gl_GlobalInvocationID.x;
    o[i] = data[min(i + 1u, uint(data.length()) - 1u)];
}
",
    ));
}

#[test]
fn shared_race_without_barrier() {
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    t[l] = l;
    o[gl_GlobalInvocationID.x] = t[(l + 1u) % 4u];
}
",
    ));
    let (f, line, other) = only(&r);
    assert_eq!((f.kind, *line, *other), (FindingKind::Race, 9, Some(8)));
    let o = f.other.unwrap();
    assert!(!f.write && o.write);
    // The reader and the writer of one element.
    let Invocation::Compute { workgroup, local } = f.invocation else {
        panic!()
    };
    assert_eq!(f.element, vec![i64::from((local[0] + 1) % 4)]);
    assert_eq!(
        o.invocation.unwrap(),
        Invocation::Compute {
            workgroup,
            local: [(local[0] + 1) % 4, 0, 0]
        }
    );
    clean(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    t[l] = l;
    barrier();
    o[gl_GlobalInvocationID.x] = t[(l + 1u) % 4u];
}
",
    ));
}

#[test]
fn uninitialised_shared_read() {
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    if (l < 2u) t[l] = l;
    barrier();
    o[gl_GlobalInvocationID.x] = t[l];
}
",
    ));
    let (f, line, _) = only(&r);
    assert_eq!(
        (f.kind, *line, f.count),
        (FindingKind::Uninitialized, 10, 4)
    );
    let Invocation::Compute { local, .. } = f.invocation else {
        panic!()
    };
    assert!(
        local[0] >= 2 && f.element == vec![i64::from(local[0])],
        "{f:?}"
    );
    clean(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    t[l] = l;
    barrier();
    o[gl_GlobalInvocationID.x] = t[l];
}
",
    ));
}

#[test]
fn uninitialised_local() {
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    uint s;
    if (l > 1u) s = 1u;
    o[gl_GlobalInvocationID.x] = s;
}
",
    ));
    let (f, line, _) = only(&r);
    assert_eq!(
        (f.kind, *line, f.count),
        (FindingKind::Uninitialized, 10, 4)
    );
    assert!(f.element.is_empty());
    clean(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    uint s = 0u;
    if (l > 1u) s = 1u;
    o[gl_GlobalInvocationID.x] = s;
}
",
    ));
}

#[test]
fn local_array_out_of_bounds() {
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    uint a[4] = uint[4](1u, 2u, 3u, 4u);
    o[gl_GlobalInvocationID.x] = a[l + 1u];
}
",
    ));
    let (f, line, _) = only(&r);
    assert_eq!((f.kind, *line, f.count), (FindingKind::OutOfBounds, 9, 2));
    assert_eq!(f.element, vec![4]);
}

#[test]
fn storage_race_between_workgroups_and_atomics() {
    let (_, r) = run(&kernel(
        "void main() {
    if (gl_LocalInvocationID.x == 0u) o[0] = gl_WorkGroupID.x;
}
",
    ));
    let (f, line, other) = only(&r);
    assert_eq!((f.kind, *line, *other), (FindingKind::Race, 7, Some(7)));
    assert!(f.write && f.other.unwrap().write);
    let (
        Invocation::Compute {
            workgroup: a,
            local: la,
        },
        Invocation::Compute {
            workgroup: b,
            local: lb,
        },
    ) = (f.invocation, f.other.unwrap().invocation.unwrap())
    else {
        panic!()
    };
    assert!(a != b && la == [0, 0, 0] && lb == [0, 0, 0]);
    clean(&kernel(
        "void main() {
    if (gl_LocalInvocationID.x == 0u) atomicMax(o[0], gl_WorkGroupID.x);
}
",
    ));
    // A plain read against the atomics.
    let (_, r) = run(&kernel(
        "void main() {
    atomicAdd(o[0], 1u);
    o[1 + gl_GlobalInvocationID.x] = o[0];
}
",
    ));
    assert!(
        r.findings
            .iter()
            .any(|(f, l, o)| f.kind == FindingKind::Race && *l == 8 && *o == Some(7)),
        "{:#?}",
        r.findings
    );
}

#[test]
fn storage_race_inside_a_workgroup_needs_a_memory_barrier() {
    let racy = |sync: &str| {
        kernel(&format!(
            "void main() {{
    uint l = gl_LocalInvocationID.x;
    uint g = gl_WorkGroupID.x * 4u;
    o[g + l] = l;
    {sync}
    o[8u + g + l] = o[g + (l + 1u) % 4u];
}}
"
        ))
    };
    let (_, r) = run(&racy(""));
    assert!(
        r.findings
            .iter()
            .all(|(f, l, o)| f.kind == FindingKind::Race && *l == 11 && *o == Some(9)),
        "{:#?}",
        r.findings
    );
    assert!(!r.findings.is_empty());
    clean(&racy("memoryBarrierBuffer();\n    barrier();"));
}

#[test]
fn two_dimensional_tiles_are_indexed_flat() {
    clean(
        "#version 430
layout(local_size_x = 2, local_size_y = 2) in;
layout(std430, binding = 0) buffer In { uint data[]; };
layout(std430, binding = 1) buffer Out { uint o[]; };
shared uint tile[2][2];
void main() {
    uvec2 l = gl_LocalInvocationID.xy;
    tile[l.y][l.x] = data[l.y * 2u + l.x];
    barrier();
    o[gl_WorkGroupID.x * 4u + l.y * 2u + l.x] = tile[l.x][l.y] + tile[l.y][l.x];
}
",
    );
}

#[test]
fn image_store_outside_the_image() {
    let image = |gl: &gldbg_corpus::gl_run::Gl| {
        gl.image(2, 4, 2);
    };
    let src = |guard: &str| {
        kernel(&format!(
            "layout(r32ui, binding = 2) uniform uimage2D img;
void main() {{
    ivec2 p = ivec2(int(gl_GlobalInvocationID.x), 1);
    {guard}imageStore(img, p, uvec4(7u));
}}
"
        ))
    };
    let (_, r) = run_with(&src(""), Stage::Compute, image);
    let (f, line, _) = only(&r);
    assert_eq!((f.kind, *line, f.count), (FindingKind::OutOfBounds, 9, 4));
    // The first invocation past the edge: workgroup 1, its x the element's.
    let Invocation::Compute { workgroup, local } = f.invocation else {
        panic!()
    };
    assert_eq!(workgroup, [1, 0, 0]);
    assert_eq!(f.element, vec![4 + i64::from(local[0]), 1]);
    let (_, r) = run_with(&src("if (p.x < imageSize(img).x) "), Stage::Compute, image);
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
}

#[test]
fn atomic_counter_past_its_buffer() {
    // The counter at offset 4 of a 4-byte range (`gldbg_mc_acb` = 4).
    let (_, r) = run_with(
        &kernel(
            "layout(binding = 0, offset = 4) uniform atomic_uint c;
void main() {
    o[gl_GlobalInvocationID.x] = atomicCounterIncrement(c);
}
",
        ),
        Stage::Compute,
        |gl| {
            gl.counter_buffer(0, 8);
        },
    );
    let (f, line, _) = only(&r);
    assert_eq!((f.kind, *line, f.count), (FindingKind::OutOfBounds, 8, 8));
    assert_eq!(f.element, vec![1]);
    let (_, r) = run_with(
        &kernel(
            "layout(binding = 0, offset = 0) uniform atomic_uint c;
void main() {
    o[gl_GlobalInvocationID.x] = atomicCounterIncrement(c);
}
",
        ),
        Stage::Compute,
        |gl| {
            gl.counter_buffer(0, 8);
        },
    );
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
}

#[test]
fn fragments_racing_on_a_storage_element() {
    let src = |index: &str| {
        format!(
            "#version 430
layout(std430, binding = 1) buffer Out {{ uint o[]; }};
out vec4 colour;
void main() {{
    o[{index}] = uint(gl_FragCoord.x);
    colour = vec4(1.0);
}}
"
        )
    };
    let (_, r) = run_with(&src("0"), Stage::Fragment, |_| {});
    let (f, line, other) = only(&r);
    assert_eq!((f.kind, *line, *other), (FindingKind::Race, 5, Some(5)));
    let (Invocation::Fragment { x: ax, y: ay }, Invocation::Fragment { x: bx, y: by }) =
        (f.invocation, f.other.unwrap().invocation.unwrap())
    else {
        panic!("{f:?}")
    };
    assert!((ax, ay) != (bx, by) && ax < 4 && bx < 4 && ay < 4 && by < 4);
    let (original, r) = run_with(&src("uint(gl_FragCoord.x)"), Stage::Fragment, |_| {});
    // Four rows write each column's element: still a race.
    assert_eq!(r.findings.len(), 1);
    let (_, r) = run_with(
        &src("uint(gl_FragCoord.y) * 4u + uint(gl_FragCoord.x)"),
        Stage::Fragment,
        |_| {},
    );
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    let _ = original;
}

#[test]
fn two_dimensional_elements_are_told_as_row_and_column() {
    let (_, r) = run(&kernel(
        "shared uint g[2][4];
void main() {
    uint l = gl_LocalInvocationID.x;
    g[1][l] = l;
    o[gl_GlobalInvocationID.x] = g[1][(l + 1u) % 4u];
    o[8u + gl_GlobalInvocationID.x] = g[l][0];
}
",
    ));
    let race = r
        .findings
        .iter()
        .find(|(f, ..)| f.kind == FindingKind::Race)
        .expect("a race");
    let Invocation::Compute { local, .. } = race.0.invocation else {
        panic!()
    };
    assert_eq!(
        race.0.element,
        vec![1, i64::from((local[0] + 1) % 4)],
        "{race:#?}"
    );
    // g[l][0]: rows 2 and 3 do not exist (the outer level's own finding).
    let oob = r
        .findings
        .iter()
        .find(|(f, ..)| f.kind == FindingKind::OutOfBounds)
        .expect("oob");
    assert_eq!((oob.1, oob.0.count), (11, 4));
    assert!(
        oob.0.element == vec![2] || oob.0.element == vec![3],
        "{oob:#?}"
    );
}

#[test]
fn reads_between_barriers_that_write_nothing() {
    // Between the two barriers `t` is only read: its reads check for
    // uninitialised elements alone (rows 2 and 3 were never written)...
    let src = kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    if (l < 2u) t[l] = l;
    barrier();
    o[gl_GlobalInvocationID.x] = t[l] + t[0];
    barrier();
}
",
    );
    let model = ShaderModel::parse(&src, Stage::Compute).unwrap();
    let c = model
        .instrument_memcheck(MemcheckOptions::default())
        .unwrap();
    assert!(
        c.source.contains("gldbg_mc_aq0(l, t.length()"),
        "{}",
        c.source
    );
    let (_, r) = run(&src);
    let (f, line, _) = only(&r);
    assert_eq!(
        (f.kind, *line, f.count),
        (FindingKind::Uninitialized, 10, 4)
    );
    // ... while an interval that writes it keeps the race check.
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    barrier();
    t[l] = l;
    o[gl_GlobalInvocationID.x] = t[(l + 1u) % 4u];
    barrier();
}
",
    ));
    let (f, line, other) = only(&r);
    assert_eq!((f.kind, *line, *other), (FindingKind::Race, 10, Some(9)));
}

#[test]
fn uninitialised_vector_local_is_reported_at_its_read() {
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    uvec2 v;
    if (l > 1u) v = uvec2(l);
    o[gl_GlobalInvocationID.x] = v.x;
}
",
    ));
    let (f, line, _) = only(&r);
    assert_eq!(
        (f.kind, *line, f.count),
        (FindingKind::Uninitialized, 10, 4)
    );
}

#[test]
fn no_false_race_on_struct_members_or_vector_halves() {
    // Each invocation appends to its bin's slots (an atomic counter and a
    // plain write of a slot of its own); two invocations write the two
    // halves of one vec4: no race.
    let src = "#version 430
layout(local_size_x = 4) in;
struct Bin { uint count; uint items[8]; };
layout(std430, binding = 0) buffer In { uint data[]; };
layout(std430, binding = 1) buffer Out { Bin bins[]; };
layout(std430, binding = 2) buffer Halves { uvec4 h[]; };
void main() {
    uint g = gl_GlobalInvocationID.x;
    uint s = atomicAdd(bins[0].count, 1u);
    bins[0].items[s] = g;
    if (g == 0u) h[0].xy = uvec2(1u, 2u);
    if (g == 1u) h[0].zw = uvec2(3u, 4u);
}
";
    let (_, r) = run_with(src, Stage::Compute, |gl| {
        gl.buffer(2, 16);
    });
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert!(
        r.not_checked.iter().any(|n| n.contains("array of structs")),
        "{:?}",
        r.not_checked
    );
}

#[test]
fn a_plain_read_racing_a_shared_atomic() {
    let (_, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    t[0] = 0u;
    barrier();
    if (l == 0u) atomicAdd(t[0], 1u);
    if (l == 1u) o[gl_GlobalInvocationID.x] = t[0];
}
",
    ));
    let race = r
        .findings
        .iter()
        .find(|(f, ..)| f.kind == FindingKind::Race)
        .unwrap_or_else(|| panic!("{:#?}", r.findings));
    let o = race.0.other.unwrap();
    assert!(o.write, "an atomic is a write: {:#?}", race);
}

/// Every compute shader and fragment shader with storage blocks or images of piglit that the driver
/// compiles compiles checked too (the checked shader's GLSL is valid
/// wherever the app's is).
#[test]
fn piglit_shaders_compile_checked() {
    let piglit = gldbg_corpus::piglit_dir();
    if !piglit.join("tests").exists() {
        eprintln!("no piglit at {}: skipped", piglit.display());
        return;
    }
    let corpus = gldbg_corpus::Corpus::load(&piglit);
    let d = Driver::new().expect("an EGL context on llvmpipe");
    let (mut tried, mut unsupported, mut failed) = (0, 0, Vec::new());
    for s in &corpus.shaders {
        // Fragment shaders: those with storage blocks or images (the
        // others only get the locals' checks, which compute shaders test).
        let fragment_memory = s.stage == Stage::Fragment
            && (s.source.contains("buffer") || s.source.contains("image"));
        if !(s.stage == Stage::Compute || fragment_memory) || !s.includes.strings.is_empty() {
            continue;
        }
        let Ok(model) = ShaderModel::parse(&s.source, s.stage) else {
            continue;
        };
        let Ok(c) = model.instrument_memcheck(MemcheckOptions::default()) else {
            unsupported += 1;
            continue;
        };
        if d.compile(s.stage.gl_enum(), &s.source).is_err() {
            continue;
        }
        tried += 1;
        if let Err(e) = d.compile(s.stage.gl_enum(), &c.source) {
            failed.push(format!(
                "{}: {}",
                s.location(),
                e.lines().next().unwrap_or("")
            ));
        }
    }
    eprintln!("{tried} shaders compiled checked, {unsupported} not instrumented (older GLSL)");
    assert!(tried > 50, "only {tried} shaders");
    assert!(
        failed.is_empty(),
        "{} of {tried} failed:\n{}",
        failed.len(),
        failed.join("\n")
    );
}

#[test]
fn a_quiet_loop_reading_an_element_nobody_wrote() {
    // Elements 0..2 written, 3 never; one element written a second time
    // (a read-modify-write, then an atomic): four writes of three
    // elements must not pass for "all written", or the versioned loop's
    // plain copy would run and the uninitialised read be lost.
    for again in [
        "if (l == 0u) t[0] += 1u",
        "if (l == 1u) atomicAdd(t[1], 1u)",
    ] {
        let src = kernel(&format!(
            "void main() {{
    uint l = gl_LocalInvocationID.x;
    if (l < 3u) t[l] = l;
    {again};
    barrier();
    uint s = 0u;
    for (uint k = 0u; k < 4u; ++k) {{
        s += t[k];
    }}
    o[gl_GlobalInvocationID.x] = s;
    barrier();
}}
"
        ));
        let c = ShaderModel::parse(&src, Stage::Compute)
            .unwrap()
            .instrument_memcheck(MemcheckOptions::default())
            .unwrap();
        assert!(c.source.contains("if (gldbg_mc_ok0) {"), "{}", c.source);
        let (original, r) = run(&src);
        let (f, line, _) = only(&r);
        assert_eq!(
            (f.kind, *line, f.count),
            (FindingKind::Uninitialized, 13, 8),
            "{src}"
        );
        assert_eq!(f.element, vec![3]);
        // t[3] is whatever the driver left there: no result to compare.
        let _ = original;
    }
    // All written: nothing to report (the plain copy runs).
    let (original, r) = run(&kernel(
        "void main() {
    uint l = gl_LocalInvocationID.x;
    t[l] = l;
    barrier();
    uint s = 0u;
    for (uint k = 0u; k < 4u; ++k) {
        s += t[k];
    }
    o[gl_GlobalInvocationID.x] = s;
    barrier();
}
",
    ));
    assert!(r.findings.is_empty(), "{:#?}", r.findings);
    assert_eq!(r.out, original);
}

#[test]
fn out_of_bounds_in_a_versioned_loop() {
    let src = "#version 430
layout(local_size_x = 4, local_size_y = 2) in;
layout(std430, binding = 0) buffer In { uint data[]; };
layout(std430, binding = 1) buffer Out { uint o[]; };
shared uint g[2][4];
void main() {
    uint x = gl_LocalInvocationID.x, y = gl_LocalInvocationID.y;
    g[y][x] = x + y;
    barrier();
    uint s = 0u;
    for (uint k = 0u; k < 4u; ++k) {
        s += g[y][k + 1u];
    }
    o[gl_LocalInvocationIndex + 8u * gl_WorkGroupID.x] = s;
    barrier();
}
";
    let c = ShaderModel::parse(src, Stage::Compute)
        .unwrap()
        .instrument_memcheck(MemcheckOptions::default())
        .unwrap();
    assert!(
        c.source.contains("if (gldbg_mc_ok0) {") && c.source.contains("gldbg_mc_ixr(k + 1u"),
        "{}",
        c.source
    );
    let (_, r) = run(src);
    let (f, line, _) = only(&r);
    // Every invocation once (k = 3), told as (row, column).
    assert_eq!((f.kind, *line, f.count), (FindingKind::OutOfBounds, 12, 16));
    let Invocation::Compute { local, .. } = f.invocation else {
        panic!()
    };
    assert_eq!(f.element, vec![i64::from(local[1]), 4], "{f:?}");
}

#[test]
fn a_tiled_product_runs_its_plain_loop_with_the_apps_results() {
    let src = "#version 430
layout(local_size_x = 2, local_size_y = 2) in;
layout(std430, binding = 0) buffer In { uint data[]; };
layout(std430, binding = 1) buffer Out { uint o[]; };
shared uint ta[2][2];
shared uint tb[2][2];
void main() {
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    uint acc = 0u;
    for (uint t = 0u; t < 4u; t += 2u) {
        ta[ty][tx] = data[ty * 4u + t + tx];
        tb[ty][tx] = data[(t + ty) * 2u + tx] + gl_WorkGroupID.x;
        barrier();
        for (uint k = 0u; k < 2u; ++k) {
            acc += ta[ty][k] * tb[k][tx];
        }
        barrier();
    }
    o[gl_WorkGroupID.x * 4u + gl_LocalInvocationIndex] = acc;
}
";
    let c = ShaderModel::parse(src, Stage::Compute)
        .unwrap()
        .instrument_memcheck(MemcheckOptions::default())
        .unwrap();
    assert!(
        c.source
            .contains("if (gldbg_mc_ok0 && gldbg_mc_ok1) {\n            for (uint k = 0u; k < 2u; ++k) {\n                acc += ta[ty][k] * tb[k][tx];"),
        "{}",
        c.source
    );
    clean(src);
    // The CPU's product: the checked run's results are the app's.
    let d: Vec<u32> = input_words();
    let (_, r) = run(src);
    for wg in 0..2u32 {
        for (y, x) in [(0u32, 0u32), (0, 1), (1, 0), (1, 1)] {
            let want: u32 = (0..4u32)
                .map(|k| d[(y * 4 + k) as usize] * (d[(k * 2 + x) as usize] + wg))
                .sum();
            assert_eq!(
                r.out[(wg * 4 + y * 2 + x) as usize],
                want,
                "wg {wg} ({y}, {x})"
            );
        }
    }
}

/// The first out-of-bounds index of `data` (8 words) that invocation `g`
/// reads at `data[g + step * k]`, k = 0, 1, ...: its index, or none.
fn first_bad(g: u32, step: u32, reads: u32) -> Option<u32> {
    (0..reads).map(|k| g + step * k).find(|&i| i >= 8)
}

#[test]
fn out_of_bounds_in_a_loop_counted_at_every_return() {
    // Invocation g reads data[g + 2k], k < 4: g = 2, 3 once out of
    // bounds, 4, 5 twice, 6, 7 three times (12 in all); the even ones
    // return early, after the loop or (g = 6) inside it.
    let src = kernel(
        "void main() {
    uint g = gl_GlobalInvocationID.x;
    uint s = 0u;
    for (uint k = 0u; k < 4u; ++k) {
        s += data[g + 2u * k];
        if (g == 6u && k == 3u) return;
    }
    if (g % 2u == 0u) {
        o[g] = s;
        return;
    }
    o[g] = s + 1u;
}
",
    );
    let (original, r) = run(&src);
    let (f, line, _) = only(&r);
    assert_eq!((f.kind, *line, f.count), (FindingKind::OutOfBounds, 10, 12));
    // One invocation's first out-of-bounds index.
    let Invocation::Compute { workgroup, local } = f.invocation else {
        panic!("{f:?}")
    };
    let g = workgroup[0] * 4 + local[0];
    let first = first_bad(g, 2, 4).unwrap_or_else(|| panic!("{f:?}: g {g} reads in bounds"));
    assert_eq!(f.element, vec![i64::from(first)], "{f:?}");
    assert_eq!(r.out, original, "the checked run changed the results");
}

#[test]
fn out_of_bounds_reads_of_a_discarded_fragment_are_counted() {
    // Pixel p = 4y + x reads data[p] and data[p + 8]: 8 + 16 reads out
    // of bounds; the pixels of rows 2 and 3 (16 of them) are discarded.
    let src = "#version 430
layout(std430, binding = 0) buffer In { uint data[]; };
layout(std430, binding = 1) buffer Out { uint o[]; };
out vec4 colour;
void main() {
    uint p = uint(gl_FragCoord.y) * 4u + uint(gl_FragCoord.x);
    uint s = 0u;
    for (uint k = 0u; k < 2u; ++k) {
        s += data[p + 8u * k];
    }
    if (p >= 8u) discard;
    o[p] = s;
    colour = vec4(1.0);
}
";
    let (original, r) = run_with(src, Stage::Fragment, |_| {});
    let (f, line, _) = only(&r);
    assert_eq!((f.kind, *line, f.count), (FindingKind::OutOfBounds, 9, 24));
    let Invocation::Fragment { x, y } = f.invocation else {
        panic!("{f:?}")
    };
    let first = first_bad(y * 4 + x, 8, 2).unwrap();
    assert_eq!(f.element, vec![i64::from(first)], "{f:?}");
    assert_eq!(r.out, original, "the checked run changed the results");
}
