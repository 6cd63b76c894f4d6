//! The memcheck shader's text: what each kind of access becomes.

use super::*;

fn checked(src: &str) -> MemcheckShader {
    let m = ShaderModel::parse(src, Stage::Compute).expect("parses");
    m.instrument_memcheck(MemcheckOptions::default())
        .expect("instruments")
}

const REDUCE: &str = "#version 430
layout(local_size_x = 64) in;
layout(std430, binding = 0) buffer In { float data[]; };
layout(std430, binding = 1) buffer Out { float sums[]; } o;
shared float tile[64];
void main() {
    uint lid = gl_LocalInvocationID.x;
    tile[lid] = data[gl_GlobalInvocationID.x];
    barrier();
    float s;
    if (lid == 0u) {
        s = 0.0;
        for (int i = 0; i < 64; i++) s += tile[i];
        o.sums[gl_WorkGroupID.x] = s;
    }
}
";

#[test]
fn accesses_get_their_checks() {
    let c = checked(REDUCE);
    let s = &c.source;
    // The read-only input: bounds only; the written output: tracked.
    assert!(
        s.contains("data[gldbg_mc_ixn(gl_GlobalInvocationID.x, data.length(), "),
        "{s}"
    );
    assert!(
        s.contains("o.sums[gldbg_mc_at(gl_WorkGroupID.x, o.sums.length(), "),
        "{s}"
    );
    assert_eq!(c.storage.len(), 1);
    assert_eq!(c.storage[0].block, "Out");
    assert_eq!(c.storage[0].array, "o.sums");
    // Shared: shadowed, zeroed in the prologue.
    assert!(s.contains("tile[gldbg_mc_ah0(lid, tile.length(), "), "{s}");
    assert!(
        s.contains("shared uint gldbg_mc_w0[(tile.length()) * 1];"),
        "{s}"
    );
    // The barrier advances the epoch; `s` is flagged.
    assert!(s.contains("gldbg_mc_barrier()"), "{s}");
    assert!(s.contains("gldbg_mc_u(gldbg_mc_f1_s"), "{s}");
    let lines: Vec<u32> = c.sites.iter().map(|x| x.line).collect();
    assert!(lines.contains(&8) && lines.contains(&14), "{:?}", c.sites);
}

#[test]
fn two_dimensional_shared_arrays_index_flat() {
    let c = checked(
        "#version 430
layout(local_size_x = 4, local_size_y = 4) in;
shared float t[4][4];
layout(std430) buffer B { float v[]; };
void main() {
    t[gl_LocalInvocationID.y][gl_LocalInvocationID.x] = 1.0;
    barrier();
    v[gl_LocalInvocationIndex] = t[gl_LocalInvocationID.x][gl_LocalInvocationID.y];
}
",
    );
    assert!(
        c.source
            .contains("gldbg_mc_t0 = int(gl_LocalInvocationID.y)"),
        "{}",
        c.source
    );
    assert!(
        c.source.contains("uint(gldbg_mc_t0) * uint(t[0].length())"),
        "{}",
        c.source
    );
}

#[test]
fn decode_reads_records() {
    let c = checked(REDUCE);
    let mut words = vec![0u32; c.log_words()];
    words[..6].copy_from_slice(&[4, 1, 1, 64, 1, 1]);
    let at = HEADER_WORDS + (1 * KINDS + 2) * RECORD_WORDS;
    words[at..at + 10].copy_from_slice(&[3, 7, 0, 0, 2, 5, 1, 2, 9, FLAG_WRITE | FLAG_OTHER_WRITE]);
    let f = c.decode(&words, Stage::Compute);
    assert_eq!(f.len(), 1);
    assert_eq!(f[0].kind, FindingKind::Race);
    assert_eq!(f[0].count, 3);
    assert_eq!(f[0].element, vec![7]);
    assert_eq!(
        f[0].invocation,
        Invocation::Compute {
            workgroup: [2, 0, 0],
            local: [5, 0, 0]
        }
    );
    let o = f[0].other.unwrap();
    assert_eq!((o.site, o.write), (0, true));
    assert_eq!(
        o.invocation.unwrap(),
        Invocation::Compute {
            workgroup: [2, 0, 0],
            local: [9, 0, 0]
        }
    );
}

const MATMUL: &str = "#version 430
layout(local_size_x = 16, local_size_y = 16) in;
layout(std430, binding = 3) readonly buffer A { float a[]; };
layout(std430, binding = 5) writeonly buffer C { float c[]; };
uniform uint n;
shared float ta[16][16];
shared float tb[16][16];
void main() {
    uint tx = gl_LocalInvocationID.x, ty = gl_LocalInvocationID.y;
    float acc = 0.0;
    for (uint t = 0u; t < n; t += 16u) {
        ta[ty][tx] = a[t + tx];
        tb[ty][tx] = a[t + ty];
        barrier();
        for (uint k = 0u; k < 16u; ++k) {
            acc += READ;
        }
        barrier();
    }
    c[gl_GlobalInvocationID.x] = acc;
}
";

/// The two copies of the versioned statement: (plain, checked).
fn versioned(src: &str, cond: &str) -> (String, String) {
    let s = checked(src).source;
    let head = format!("if ({cond}) {{");
    let at = s.find(&head).unwrap_or_else(|| panic!("no `{head}`:\n{s}"));
    let rest = &s[at + head.len()..];
    let (plain, rest) = rest.split_once("} else {").expect("an else");
    let checked = rest.split("barrier();").next().unwrap();
    (plain.to_string(), checked.to_string())
}

#[test]
fn matmul_inner_loop_is_versioned_and_plain() {
    let src = MATMUL.replace("READ", "ta[ty][k] * tb[k][tx]");
    let (plain, checked_copy) = versioned(&src, "gldbg_mc_ok0 && gldbg_mc_ok1");
    assert!(plain.contains("acc += ta[ty][k] * tb[k][tx];"), "{plain}");
    assert!(!plain.contains("gldbg_mc_"), "{plain}");
    // The checked copy: the uninitialised-read checks, the same sites.
    assert!(
        checked_copy.contains("gldbg_mc_aq0(k, ta[0].length(), 7u"),
        "{checked_copy}"
    );
    assert!(
        checked_copy.contains("gldbg_mc_aq1(tx, tb[0].length(), 9u"),
        "{checked_copy}"
    );
    // The summary: counted on first writes, tested after each barrier.
    let s = checked(&src).source;
    assert!(
        s.contains("if (kind != 0u && w == 0u) atomicAdd(gldbg_mc_n0, 1u);"),
        "{s}"
    );
    assert!(
        s.contains("gldbg_mc_ok1 = gldbg_mc_n1 == uint((tb.length() * tb[0].length()) * 1);"),
        "{s}"
    );
    assert!(s.contains("gldbg_mc_n0 = 0u;"), "{s}");
}

#[test]
fn unproven_indices_keep_their_checks_in_the_plain_copy() {
    let cond = "gldbg_mc_ok0";
    // A row past the tile: its own bounds check (deferred in its slot
    // 2 of site 6: slots 0 and 1 are the two reads of `a`).
    let src = MATMUL.replace("READ", "ta[ty + 1u][k]");
    let (plain, _) = versioned(&src, cond);
    assert!(
        plain.contains("ta[gldbg_mc_ix(ty + 1u, ta.length(), 2u)][k]"),
        "{plain}"
    );
    let s = checked(&src).source;
    assert!(
        s.contains("gldbg_mc_reportn(6u, 0u, uvec3(gldbg_mc_de[2], 0u, 0u), 0u, uvec2(0u), 0u, gldbg_mc_dc[2]);"),
        "{s}"
    );
    // A uniform row.
    let (plain, _) = versioned(&MATMUL.replace("READ", "ta[n][k]"), cond);
    assert!(
        plain.contains("ta[gldbg_mc_ix(n, ta.length(), 2u)][k]"),
        "{plain}"
    );
    // A column past the tile: told as (row, column) like the checked copy.
    let src = MATMUL.replace("READ", "ta[ty][k + 1u]");
    let (plain, _) = versioned(&src, cond);
    assert!(
        plain.contains("= int(ty)][gldbg_mc_ixr(k + 1u, ta[0].length(), 2u, uint(gldbg_mc_t"),
        "{plain}"
    );
    let s = checked(&src).source;
    assert!(
        s.contains("gldbg_mc_reportn(7u, 0u, uvec3(gldbg_mc_dr[2], gldbg_mc_de[2], 0u), 0u, uvec2(0u), 0u, gldbg_mc_dc[2]);"),
        "{s}"
    );
    let f = function(
        &s,
        "uint gldbg_mc_ixr(uint i, int n, uint slot, uint prefix)",
    );
    for word in ["if", "gldbg_mc_report", "gldbg_mc_log", "atomic"] {
        assert!(!f.contains(word), "{word} in {f}");
    }
    // A counter written in the body has no range.
    let src = MATMUL.replace("acc += READ;", "acc += ta[ty][k];\n            k += 1u;");
    let (plain, _) = versioned(&src, cond);
    assert!(plain.contains("gldbg_mc_ixr(k, ta[0].length()"), "{plain}");
}

#[test]
fn ranges_of_locals_respect_scopes_writes_and_wrapping() {
    let c = checked(
        "#version 430
layout(local_size_x = 8) in;
layout(std430) buffer B { float v[16]; float o[]; };
uniform uint u;
void main() {
    uint i = 3u;
    o[0] = v[i];
    {
        uint i = u;
        o[1] = v[i];
    }
    uint j = 2u;
    j = u;
    o[2] = v[j];
    for (uint k = 0u; k < 16u; ++k) o[3] += v[k];
    for (uint k = 0u; k <= 16u; ++k) o[4] += v[k];
    for (int k = 0; k < 16; k++) {
        o[5] += v[k];
        k++;
    }
    uint m = 1u;
    {
        uint m = 2u;
        m++;
    }
    o[6] = v[m];
    uint z = 0u;
    o[7] = v[z - 1u];
    uint x = gl_LocalInvocationID.x;
    o[8] = v[(x & 7u) + 8u] + v[x * 2u + 1u] + v[min(u, 15u)] + v[x + 8u];
    uint w = 3u;
    o[9] = v[w];
}
",
    );
    let s = &c.source;
    // Checked at once outside loops (`ixn`), deferred inside (`ix`).
    let kept = |i: &str| {
        s.contains(&format!("v[gldbg_mc_ixn({i}, v.length()"))
            || s.contains(&format!("v[gldbg_mc_ix({i}, v.length()"))
    };
    for plain in [
        "= v[w];",
        "+= v[k];",
        "v[(x & 7u) + 8u]",
        "v[x * 2u + 1u]",
        "v[min(u, 15u)]",
    ] {
        assert!(s.contains(plain), "{plain}: {s}");
    }
    // `i` declared twice (a name declared more than once in a function
    // gets no range: both keep their checks), the written `j`, `k <=
    // 16u`, the counter written in its body, `m` written in an inner
    // scope, `z - 1u` (wraps); `x + 8u` is in range (x is at most 7).
    for i in ["j", "k", "m", "z - 1u"] {
        assert!(kept(i), "{i}: {s}");
    }
    assert_eq!(s.matches("v[gldbg_mc_ixn(i, v.length()").count(), 2, "{s}");
    assert_eq!(s.matches("v[gldbg_mc_ix(k, v.length()").count(), 2, "{s}");
    assert!(s.contains("v[x + 8u]"), "{s}");
}

#[test]
fn declarations_in_a_quiet_run_are_not_versioned() {
    let src = MATMUL.replace(
        "for (uint k = 0u; k < 16u; ++k) {\n            acc += READ;\n        }",
        "float x = ta[ty][0];\n        acc += x;",
    );
    let s = checked(&src).source;
    assert!(!s.contains("if (gldbg_mc_ok0"), "{s}");
    assert!(
        s.contains("float x = ta[gldbg_mc_t2 = int(ty)][gldbg_mc_aq0(0,"),
        "{s}"
    );
}

/// The benchmark's reduction (its first loop's 16 loads independent).
const SUM16: &str = "#version 430
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Values { float values[]; };
layout(std430, binding = 1) writeonly buffer Partials { float partials[]; };
void main() {
    uint stride = gl_NumWorkGroups.x * 256u;
    float acc = 0.0;
    for (uint k = 0u; k < 16u; ++k) {
        acc += values[gl_GlobalInvocationID.x + k * stride];
    }
    partials[gl_GlobalInvocationID.x] = acc + values[gl_WorkGroupID.x];
}
";

/// The text of the function starting with `head` (up to its closing brace).
fn function<'a>(s: &'a str, head: &str) -> &'a str {
    let at = s.find(head).unwrap_or_else(|| panic!("no `{head}`:\n{s}"));
    let len = s[at..].find("\n}\n").expect("a closing brace");
    &s[at..at + len + 2]
}

#[test]
fn a_loops_bounds_checks_defer_their_reports() {
    let c = checked(SUM16);
    let s = &c.source;
    // Slot 0 at the access; its site told by the flush.
    assert!(
        s.contains(
            "acc += values[gldbg_mc_ix(gl_GlobalInvocationID.x + k * stride, values.length(), 0u)];"
        ),
        "{s}"
    );
    let site = c.sites.iter().position(|x| x.variable == "values").unwrap();
    assert!(
        s.contains(&format!(
            "gldbg_mc_reportn({site}u, 0u, uvec3(gldbg_mc_de[0], 0u, 0u), 0u, uvec2(0u), 0u, gldbg_mc_dc[0]);"
        )),
        "{s}"
    );
    // No branch, no memory at the access.
    for head in [
        "uint gldbg_mc_ix(uint i, int n, uint slot)",
        "int gldbg_mc_ix(int i, int n, uint slot)",
    ] {
        let f = function(s, head);
        for word in ["if", "gldbg_mc_report", "gldbg_mc_log", "atomic"] {
            assert!(!f.contains(word), "{word} in {f}");
        }
    }
    // Only (row, column) sites need the row and its check.
    assert!(
        !s.contains("gldbg_mc_dr") && !s.contains("gldbg_mc_ixr("),
        "{s}"
    );
    // The count is added at once, the first claimer writing the element.
    assert!(
        s.contains("if (atomicAdd(gldbg_mc_log[at], n) == 0u) {"),
        "{s}"
    );
    // Outside loops: reported at the access.
    assert!(
        s.contains("values[gldbg_mc_ixn(gl_WorkGroupID.x, values.length(), "),
        "{s}"
    );
    // Flushed at the end of main.
    assert!(s.trim_end().ends_with("gldbg_mc_flush();\n}"), "{s}");
}

#[test]
fn deferred_reports_are_flushed_before_main_returns() {
    let c = checked(
        "#version 430
layout(local_size_x = 4) in;
layout(std430) buffer B { uint v[]; uint o[]; };
uint total(uint n) {
    uint s = 0u;
    for (uint k = 0u; k < n; ++k) {
        if (k == 9u) return s;
        s += v[k];
    }
    return s;
}
void main() {
    uint s = 0u;
    for (uint k = 0u; k < 4u; ++k) {
        if (v[k] == 7u) return;
        s += v[k + gl_LocalInvocationID.x];
    }
    if (s == 0u) return;
    switch (s) {
        case 1u: return;
        default: break;
    }
    o[0] = s + total(s);
}
",
    );
    let s = &c.source;
    let main = function(s, "void main()");
    // Every return of main told (inside the loop, after it, in a switch).
    assert_eq!(main.matches("return;").count(), 3, "{main}");
    assert_eq!(
        main.matches("gldbg_mc_flush();\n").count(),
        4,
        "three returns and the end: {main}"
    );
    for stmt in [
        "if (v[gldbg_mc_ix(k, v.length()",
        "if (s == 0u) {",
        "case 1u:",
    ] {
        let at = main.find(stmt).unwrap_or_else(|| panic!("{stmt}: {main}"));
        let next = &main[at..];
        let ret = next.find("return;").unwrap();
        assert!(next[..ret].contains("gldbg_mc_flush();"), "{stmt}: {main}");
    }
    // Another function's returns are not the invocation's end.
    let total = function(s, "uint total(uint n)");
    assert!(total.contains("gldbg_mc_ix(k, v.length()"), "{total}");
    assert!(!total.contains("gldbg_mc_flush"), "{total}");
}

#[test]
fn deferred_reports_are_flushed_before_discard() {
    let m = ShaderModel::parse(
        "#version 430
layout(std430, binding = 0) buffer In { uint data[]; };
out vec4 colour;
void drop(uint s) {
    if (s > 3u) discard;
}
void main() {
    uint s = 0u;
    for (int k = 0; k < 3; ++k) s += data[k];
    if (s == 0u) discard;
    drop(s);
    colour = vec4(float(s));
}
",
        Stage::Fragment,
    )
    .unwrap();
    let s = m
        .instrument_memcheck(MemcheckOptions::default())
        .unwrap()
        .source;
    assert!(
        s.contains("s += data[gldbg_mc_ix(k, data.length(), 0u)];"),
        "{s}"
    );
    for f in ["void drop(uint s)", "void main()"] {
        let body = function(&s, f);
        assert!(
            body.contains("{\n        gldbg_mc_flush();\n        discard;\n    }"),
            "{body}"
        );
    }
}

/// GLSL ES cannot rebind a block at run time: the findings block and the
/// shadow take the bindings after the shader's buffers (desktop GL leaves
/// them to the executor, which places them by name).
#[test]
fn gles_declares_our_blocks_after_the_shaders_buffers() {
    let es = REDUCE
        .replace("#version 430", "#version 310 es\nprecision highp float;")
        .replace("binding = 1", "binding = 3");
    let m = ShaderModel::parse_in(&es, Stage::Compute, crate::Api::Es).expect("parses");
    let c = m
        .instrument_memcheck(MemcheckOptions::default())
        .expect("instruments");
    let s = &c.source;
    assert!(
        s.contains(&format!(
            "layout(std430, binding = 4) buffer {MEMCHECK_BLOCK}"
        )),
        "{s}"
    );
    assert!(
        s.contains(&format!(
            "layout(std430, binding = 5) buffer {SHADOW_BLOCK}"
        )),
        "{s}"
    );
    ShaderModel::parse_in(s, Stage::Compute, crate::Api::Es).unwrap_or_else(|e| panic!("{e}\n{s}"));
    let desktop = checked(REDUCE);
    assert!(
        desktop
            .source
            .contains(&format!("layout(std430) buffer {MEMCHECK_BLOCK}")),
        "{}",
        desktop.source
    );
}
