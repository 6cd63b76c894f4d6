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
        s.contains("data[gldbg_mc_ix(gl_GlobalInvocationID.x, data.length(), "),
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
            .contains("gldbg_mc_t0 = int(gldbg_mc_ix(gl_LocalInvocationID.y, t.length()"),
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
