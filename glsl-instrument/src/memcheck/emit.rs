//! The GLSL the memcheck shader adds: the findings and shadow blocks, the
//! uniforms, the epochs, the `shared` shadows and the check functions
//! the rewritten accesses call (record layout: the module documentation
//! of `memcheck`).

use super::{CLAIMED_WORD, HEADER_WORDS, KINDS, MEMCHECK_BLOCK, RECORD_WORDS, SHADOW_BLOCK};
use crate::Stage;

/// A `shared` array's shadow: its index in the shadow names, the
/// components per element, and its element count as a constant
/// expression (`tile.length() * tile[0].length()`).
pub(super) struct SharedShadow {
    pub index: usize,
    pub components: u32,
    pub elements: String,
}

/// What the declarations depend on.
pub(super) struct Emit<'a> {
    pub stage: Stage,
    pub es: bool,
    /// Tracked storage arrays (the uniforms' size).
    pub storage: usize,
    pub counters: bool,
    pub shared: &'a [SharedShadow],
    pub temps: usize,
    /// `layout(local_size_variable)`: the size is `gl_LocalGroupSizeARB`.
    pub variable_size: bool,
    /// The deferred bounds checks' slots (defer.rs).
    pub deferred: &'a [super::rewrite::Slot],
    /// GLSL ES (no `glShaderStorageBlockBinding`): the findings block's
    /// binding, the shadow's the next; desktop GL: none (the executor
    /// places them by name).
    pub binding: Option<u32>,
}

impl Emit<'_> {
    fn p(&self) -> &'static str {
        if self.es { "highp " } else { "" }
    }

    fn size(&self) -> &'static str {
        if self.variable_size {
            "gl_LocalGroupSizeARB"
        } else {
            "gl_WorkGroupSize"
        }
    }

    /// Everything declared before the shader's first function.
    pub fn declarations(&self) -> String {
        let p = self.p();
        let layout = |k: u32| match self.binding {
            Some(b) => format!("std430, binding = {}", b + k),
            None => "std430".to_string(),
        };
        let mut s = format!(
            "layout({}) buffer {MEMCHECK_BLOCK} {{\n    {p}uint gldbg_mc_head[{HEADER_WORDS}];\n    \
             {p}uint gldbg_mc_log[];\n}};\n",
            layout(0)
        );
        if self.storage > 0 {
            s += &format!(
                "layout({}) buffer {SHADOW_BLOCK} {{\n    {p}uint gldbg_mc_s[];\n}};\n\
                 uniform {p}uint gldbg_mc_sbase[{k}];\nuniform {p}uint gldbg_mc_scap[{k}];\n",
                layout(1),
                k = self.storage
            );
        }
        if self.counters {
            s += &format!(
                "uniform {p}uint gldbg_mc_acb[{}];\n",
                super::ATOMIC_COUNTER_BINDINGS
            );
        }
        s += &format!(
            "{p}uint gldbg_mc_ep = 0u;\n{p}uint gldbg_mc_sep = 0u;\nbool gldbg_mc_mb = false;\n{p}uint gldbg_mc_mw = 0u;\n{p}uint gldbg_mc_mr = 0u;\n"
        );
        for t in 0..self.temps {
            s += &format!("{p}int gldbg_mc_t{t};\n");
        }
        for sh in self.shared {
            let n = format!("({}) * {}", sh.elements, sh.components);
            for w in ["w", "ws", "r", "rs"] {
                s += &format!("shared {p}uint gldbg_mc_{w}{}[{n}];\n", sh.index);
            }
            // The summary: components written at least once in the
            // workgroup, and (per invocation, at each barrier) whether
            // that is all of them (version.rs).
            s += &format!(
                "shared {p}uint gldbg_mc_n{j};\nbool gldbg_mc_ok{j} = false;\n",
                j = sh.index
            );
        }
        s += &self.identity();
        s += &self.report();
        s += &self.bounds();
        s += &super::defer::declarations(self.deferred, self.p());
        if self.storage > 0 {
            s += &self.storage_checks();
        }
        for sh in self.shared {
            s += &self.shared_checks(sh);
        }
        s
    }

    /// The invocation's two record words, its storage id, and the other
    /// side's words from a storage id.
    fn identity(&self) -> String {
        let p = self.p();
        match self.stage {
            Stage::Compute => format!(
                "{p}uint gldbg_mc_wgsize() {{ return {size}.x * {size}.y * {size}.z; }}\n\
                 {p}uint gldbg_mc_wg() {{ return (gl_WorkGroupID.z * gl_NumWorkGroups.y + gl_WorkGroupID.y) * gl_NumWorkGroups.x + gl_WorkGroupID.x; }}\n\
                 {p}uint gldbg_mc_lid() {{ return gl_LocalInvocationIndex; }}\n\
                 {p}uint gldbg_mc_gid() {{ return gldbg_mc_wg() * gldbg_mc_wgsize() + gl_LocalInvocationIndex; }}\n\
                 {p}uvec2 gldbg_mc_other({p}uint id) {{ return uvec2((id - 1u) / gldbg_mc_wgsize(), (id - 1u) % gldbg_mc_wgsize()); }}\n\
                 bool gldbg_mc_same_group({p}uint id) {{ return (id - 1u) / gldbg_mc_wgsize() == gldbg_mc_wg(); }}\n",
                size = self.size(),
            ),
            _ => format!(
                "{p}uint gldbg_mc_wg() {{ return uint(gl_FragCoord.x) | (uint(gl_FragCoord.y) << 16); }}\n\
                 {p}uint gldbg_mc_lid() {{ return 0u; }}\n\
                 {p}uint gldbg_mc_gid() {{ return gldbg_mc_wg(); }}\n\
                 {p}uvec2 gldbg_mc_other({p}uint id) {{ return uvec2(id - 1u, 0u); }}\n\
                 bool gldbg_mc_same_group({p}uint id) {{ return false; }}\n"
            ),
        }
    }

    fn report(&self) -> String {
        let p = self.p();
        // After a barrier every write before it is counted: all written?
        let ok: String = self
            .shared
            .iter()
            .map(|sh| {
                format!(
                    "    gldbg_mc_ok{j} = gldbg_mc_n{j} == uint(({}) * {});\n",
                    sh.elements,
                    sh.components,
                    j = sh.index
                )
            })
            .collect();
        format!(
            "void gldbg_mc_reportn({p}uint site, {p}uint kind, {p}uvec3 el, {p}uint other, {p}uvec2 o, {p}uint flags, {p}uint n) {{\n    \
             {p}uint at = (site * {KINDS}u + kind) * {RECORD_WORDS}u;\n    \
             if (at + {RECORD_WORDS}u > uint(gldbg_mc_log.length())) return;\n    \
             if (atomicAdd(gldbg_mc_log[at], n) == 0u) {{\n        \
             atomicAdd(gldbg_mc_head[{CLAIMED_WORD}], 1u);\n        \
             gldbg_mc_log[at + 1u] = el.x;\n        gldbg_mc_log[at + 2u] = el.y;\n        gldbg_mc_log[at + 3u] = el.z;\n        \
             gldbg_mc_log[at + 4u] = gldbg_mc_wg();\n        gldbg_mc_log[at + 5u] = gldbg_mc_lid();\n        \
             gldbg_mc_log[at + 6u] = other;\n        gldbg_mc_log[at + 7u] = o.x;\n        gldbg_mc_log[at + 8u] = o.y;\n        \
             gldbg_mc_log[at + 9u] = flags;\n    }}\n}}\n\
             void gldbg_mc_report({p}uint site, {p}uint kind, {p}uvec3 el, {p}uint other, {p}uvec2 o, {p}uint flags) {{\n    \
             gldbg_mc_reportn(site, kind, el, other, o, flags, 1u);\n}}\n\
             {p}uvec3 gldbg_mc_el({p}uint el, {p}uint n2) {{\n    \
             return n2 == 0u ? uvec3(el, 0u, 0u) : uvec3(el / n2, el % n2, 0u);\n}}\n\
             void gldbg_mc_epoch() {{\n    gldbg_mc_mw = (gldbg_mc_lid() + 1u) | ((gldbg_mc_ep & 0xFFFFFu) << 12);\n    gldbg_mc_mr = (gldbg_mc_lid() + 1u) | ((gldbg_mc_ep & 0x7FFFFu) << 13);\n}}\n\
             void gldbg_mc_barrier() {{\n    gldbg_mc_ep++;\n    gldbg_mc_epoch();\n    if (gldbg_mc_mb) {{\n        gldbg_mc_sep++;\n        gldbg_mc_mb = false;\n    }}\n{ok}}}\n\
             bool gldbg_mc_u(bool set, {p}uint site) {{\n    if (!set) gldbg_mc_report(site, 1u, uvec3(0u), 0u, uvec2(0u), 0u);\n    return true;\n}}\n"
        )
    }

    /// Index, image coordinate and atomic counter bounds.
    fn bounds(&self) -> String {
        let p = self.p();
        let mut s = format!(
            "{p}int gldbg_mc_ixn({p}int i, {p}int n, {p}uint site) {{\n    \
             if (i < 0 || i >= n) gldbg_mc_report(site, 0u, uvec3(uint(i), 0u, 0u), 0u, uvec2(0u), 0u);\n    return i;\n}}\n\
             {p}uint gldbg_mc_ixn({p}uint i, {p}int n, {p}uint site) {{\n    \
             if (i >= uint(n)) gldbg_mc_report(site, 0u, uvec3(i, 0u, 0u), 0u, uvec2(0u), 0u);\n    return i;\n}}\n\
             {p}int gldbg_mc_ixrn({p}int i, {p}int n, {p}uint site, {p}uint prefix) {{\n    \
             if (i < 0 || i >= n) gldbg_mc_report(site, 0u, uvec3(prefix / uint(max(n, 1)), uint(i), 0u), 0u, uvec2(0u), 0u);\n    return i;\n}}\n\
             {p}uint gldbg_mc_ixrn({p}uint i, {p}int n, {p}uint site, {p}uint prefix) {{\n    \
             if (i >= uint(n)) gldbg_mc_report(site, 0u, uvec3(prefix / uint(max(n, 1)), i, 0u), 0u, uvec2(0u), 0u);\n    return i;\n}}\n\
             {p}int gldbg_mc_img({p}int c, {p}int n, {p}uint site) {{\n    \
             if (c < 0 || c >= n) gldbg_mc_report(site, 0u, uvec3(uint(c), 0u, 0u), 0u, uvec2(0u), 0u);\n    return c;\n}}\n\
             {p}ivec2 gldbg_mc_img({p}ivec2 c, {p}ivec2 n, {p}uint site) {{\n    \
             if (any(lessThan(c, ivec2(0))) || any(greaterThanEqual(c, n))) gldbg_mc_report(site, 0u, uvec3(uvec2(c), 0u), 0u, uvec2(0u), 0u);\n    return c;\n}}\n\
             {p}ivec3 gldbg_mc_img({p}ivec3 c, {p}ivec3 n, {p}uint site) {{\n    \
             if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, n))) gldbg_mc_report(site, 0u, uvec3(c), 0u, uvec2(0u), 0u);\n    return c;\n}}\n\
             {p}ivec3 gldbg_mc_imgca({p}ivec3 c, {p}ivec3 n, {p}uint site) {{\n    \
             if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, ivec3(n.xy, n.z * 6)))) gldbg_mc_report(site, 0u, uvec3(c), 0u, uvec2(0u), 0u);\n    return c;\n}}\n\
             {p}ivec3 gldbg_mc_img({p}ivec3 c, {p}ivec2 n, {p}uint site) {{\n    \
             if (any(lessThan(c, ivec3(0))) || any(greaterThanEqual(c, ivec3(n, 6)))) gldbg_mc_report(site, 0u, uvec3(c), 0u, uvec2(0u), 0u);\n    return c;\n}}\n"
        );
        if self.counters {
            s += &format!(
                "bool gldbg_mc_ctr({p}uint offset, {p}uint binding, {p}uint site) {{\n    \
                 if (offset + 4u > gldbg_mc_acb[binding]) gldbg_mc_report(site, 0u, uvec3(offset / 4u, 0u, 0u), 0u, uvec2(0u), 0u);\n    \
                 return true;\n}}\n"
            );
        }
        s
    }

    /// The access wrappers of one tracked kind: `name` is called per
    /// component with (component, element, kind, site) after `pre`.
    fn wrappers(&self, name: &str, per: &str, extra: &str, extra_args: &str) -> String {
        let p = self.p();
        let mut s = String::new();
        for (ty, oob) in [("int", "i < 0 || i >= n"), ("uint", "i >= uint(n)")] {
            s += &format!(
                "{p}{ty} {name}({p}{ty} i, {p}int n, {p}uint site, {p}uint prefix, {p}uint kind{extra}, {p}uint c0, {p}uint nc, {p}uint ncomp, {p}uint dims) {{\n    \
                 if ({oob}) {{\n        \
                 gldbg_mc_report(site, 0u, dims == 2u ? uvec3(prefix / uint(max(n, 1)), uint(i), 0u) : uvec3(uint(i), 0u, 0u), 0u, uvec2(0u), 0u);\n        return i;\n    }}\n    \
                 {p}uint el = prefix + uint(i);\n    \
                 {p}uint n2 = dims == 2u ? uint(n) : 0u;\n    \
                 for ({p}uint c = c0; c < c0 + nc; c++) {{\n        if ({per}({extra_args}el * ncomp + c, el, n2, kind, site)) break;\n    }}\n    \
                 return i;\n}}\n"
            );
        }
        s
    }

    /// Storage races (kinds: 0 read, 1 write, 2 read and write, 3
    /// atomic): shadow words writer (storage id + 1, bit 31: atomic),
    /// writer meta (site + 1, storage epoch << 16), reader, reader meta.
    /// The atomic bit lives in the id's word: two atomics racing on one
    /// element never see each other as plain.
    fn storage_checks(&self) -> String {
        let p = self.p();
        let mut s = format!(
            "bool gldbg_mc_conflict({p}uint other, {p}uint ometa, {p}uint mine, {p}uint meta) {{\n    \
             if ((other & 0x80000000u) != 0u && (mine & 0x80000000u) != 0u) return false;\n    \
             {p}uint id = other & 0x7FFFFFFFu;\n    \
             if (id == 0u || id == (mine & 0x7FFFFFFFu)) return false;\n    \
             if (gldbg_mc_same_group(id)) return (ometa >> 16) == (meta >> 16);\n    return true;\n}}\n\
             bool gldbg_mc_st({p}uint k, {p}uint e, {p}uint el, {p}uint n2, {p}uint kind, {p}uint site) {{\n    \
             if (e >= gldbg_mc_scap[k]) return false;\n    \
             {p}uint at = (gldbg_mc_sbase[k] + e) * 4u;\n    \
             {p}uint mine = (gldbg_mc_gid() + 1u) | (kind == 3u ? 0x80000000u : 0u);\n    \
             {p}uint meta = (site + 1u) | ((gldbg_mc_sep & 0xFFFFu) << 16);\n    \
             {p}uint wr = kind == 0u ? 0u : 1u;\n    \
             {p}uint w;\n    {p}uint wm;\n    \
             if (kind == 1u || kind == 2u) {{\n        w = atomicExchange(gldbg_mc_s[at], mine);\n        wm = atomicExchange(gldbg_mc_s[at + 1u], meta);\n    }} \
             else if (kind == 3u) {{\n        w = atomicCompSwap(gldbg_mc_s[at], 0u, mine);\n        wm = gldbg_mc_s[at + 1u];\n        \
             if (w == 0u) gldbg_mc_s[at + 1u] = meta;\n    }} else {{\n        \
             w = gldbg_mc_s[at];\n        wm = gldbg_mc_s[at + 1u];\n    }}\n    \
             bool found = false;\n    \
             if (gldbg_mc_conflict(w, wm, mine, meta)) {{\n        \
             gldbg_mc_report(site, 2u, gldbg_mc_el(el, n2), wm & 0xFFFFu, gldbg_mc_other(w & 0x7FFFFFFFu), wr | 2u | ((w & 0x80000000u) != 0u ? 4u : 0u));\n        found = true;\n    }}\n    \
             {p}uint r = gldbg_mc_s[at + 2u];\n    {p}uint rm = gldbg_mc_s[at + 3u];\n    \
             if (kind != 0u || (r & 0x80000000u) != 0u) {{\n        \
             if (gldbg_mc_conflict(r, rm, mine, meta)) {{\n            \
             gldbg_mc_report(site, 2u, gldbg_mc_el(el, n2), rm & 0xFFFFu, gldbg_mc_other(r & 0x7FFFFFFFu), wr | ((r & 0x80000000u) != 0u ? 6u : 0u));\n            found = true;\n        }}\n    }}\n    \
             if (kind != 1u) {{\n        gldbg_mc_s[at + 2u] = mine;\n        gldbg_mc_s[at + 3u] = meta;\n    }}\n    \
             return found;\n}}\n"
        );
        s += &self.wrappers("gldbg_mc_at", "gldbg_mc_st", &format!(", {p}uint k"), "k, ");
        s
    }

    /// A `shared` array's races and uninitialised reads: shadow words per
    /// component: the last writer (local index + 1, bit 11 atomic, epoch
    /// << 12) and its site + 1; the epoch's first reader (local index + 1,
    /// bit 11 atomic, bit 12 "read by others too", epoch << 13) and its
    /// site + 1. The invocation's own words for the epoch are kept in
    /// `gldbg_mc_mw` / `gldbg_mc_mr` (set at each `barrier()`). A read
    /// stores only when it is the epoch's first or second reader of the
    /// element: the common all-read phase after a `barrier()` costs two
    /// loads and a few compares per access; what a finding needs (the
    /// other side's site) is read only on a finding, by the one reporting
    /// call site (`gldbg_mc_shf`).
    fn shared_checks(&self, sh: &SharedShadow) -> String {
        let p = self.p();
        let j = sh.index;
        let n = format!("uint(({}) * {})", sh.elements, sh.components);
        let mut s = format!(
            "void gldbg_mc_shf{j}({p}uint e, {p}uint el, {p}uint n2, {p}uint kind, {p}uint site, {p}uint w, {p}uint ws, {p}uint r, bool wbad, bool rbad) {{\n    \
             {p}uint wr = kind == 0u ? 0u : 1u;\n    \
             if (wbad && w == 0u) {{\n        gldbg_mc_report(site, 1u, gldbg_mc_el(el, n2), 0u, uvec2(0u), wr);\n    }} \
             else if (wbad) {{\n        \
             if (kind == 0u || kind == 3u) ws = gldbg_mc_ws{j}[e];\n        \
             gldbg_mc_report(site, 2u, gldbg_mc_el(el, n2), ws, uvec2(gldbg_mc_wg(), (w & 0x7FFu) - 1u), wr | 2u | ((w & 0x800u) != 0u ? 4u : 0u));\n    }}\n    \
             if (rbad) {{\n        {p}uint me = gldbg_mc_mw & 0x7FFu;\n        \
             {p}uint other = (r & 0x7FFu) != me ? (r & 0x7FFu) - 1u : 0xFFFFFFFFu;\n        \
             gldbg_mc_report(site, 2u, gldbg_mc_el(el, n2), gldbg_mc_rs{j}[e], uvec2(gldbg_mc_wg(), other), wr | ((r & 0x800u) != 0u ? 6u : 0u));\n    }}\n}}\n\
             bool gldbg_mc_sh{j}({p}uint e, {p}uint el, {p}uint n2, {p}uint kind, {p}uint site) {{\n    \
             if (e >= {n}) return true;\n    \
             {p}uint me = gldbg_mc_mw & 0x7FFu;\n    \
             {p}uint w;\n    {p}uint ws = 0u;\n    \
             if (kind == 1u || kind == 2u) {{\n        w = atomicExchange(gldbg_mc_w{j}[e], gldbg_mc_mw);\n        ws = atomicExchange(gldbg_mc_ws{j}[e], site + 1u);\n    }} \
             else if (kind == 3u) {{\n        w = atomicCompSwap(gldbg_mc_w{j}[e], 0u, gldbg_mc_mw | 0x800u);\n        \
             if (w == 0u) gldbg_mc_ws{j}[e] = site + 1u;\n    }} else {{\n        w = gldbg_mc_w{j}[e];\n    }}\n    \
             if (kind != 0u && w == 0u) atomicAdd(gldbg_mc_n{j}, 1u);\n    \
             {p}uint r = gldbg_mc_r{j}[e];\n    \
             bool wbad = w == 0u ? kind != 1u : ((w ^ gldbg_mc_mw) < 0x1000u && (w & 0x7FFu) != me && !((w & 0x800u) != 0u && kind == 3u));\n    \
             bool same = r != 0u && (r ^ gldbg_mc_mr) < 0x2000u;\n    \
             bool rbad = (kind != 0u || (r & 0x800u) != 0u) && same && ((r & 0x7FFu) != me || (r & 0x1000u) != 0u) && !((r & 0x800u) != 0u && kind == 3u);\n    \
             if (wbad || rbad) gldbg_mc_shf{j}(e, el, n2, kind, site, w, ws, r, wbad, rbad);\n    \
             if (kind != 1u) {{\n        \
             if (!same) {{\n            gldbg_mc_r{j}[e] = gldbg_mc_mr | (kind == 3u ? 0x800u : 0u);\n            gldbg_mc_rs{j}[e] = site + 1u;\n        }} \
             else if ((r & 0x7FFu) != me && (r & 0x1000u) == 0u) {{\n            gldbg_mc_r{j}[e] = r | 0x1000u;\n        }}\n    }}\n    \
             return wbad || rbad;\n}}\n"
        );
        s += &self.wrappers(
            &format!("gldbg_mc_ah{j}"),
            &format!("gldbg_mc_sh{j}"),
            "",
            "",
        );
        // A read in a barrier interval that writes nothing of the array
        // (quiet.rs): no race can be there, nothing to record.
        s += &format!(
            "bool gldbg_mc_shq{j}({p}uint e, {p}uint el, {p}uint n2, {p}uint kind, {p}uint site) {{\n    \
             if (e >= {n}) return true;\n    \
             if (gldbg_mc_w{j}[e] == 0u) {{\n        gldbg_mc_report(site, 1u, gldbg_mc_el(el, n2), 0u, uvec2(0u), 0u);\n        return true;\n    }}\n    \
             return false;\n}}\n"
        );
        s += &self.wrappers(
            &format!("gldbg_mc_aq{j}"),
            &format!("gldbg_mc_shq{j}"),
            "",
            "",
        );
        s
    }

    /// The statements first in `main`: the header (the first invocation),
    /// the `shared` shadows and their counts zeroed, a `barrier()` (not counted as an
    /// epoch).
    pub fn prologue(&self) -> String {
        let mut s = String::new();
        if self.stage != Stage::Compute {
            return s;
        }
        s += "if (gl_LocalInvocationIndex == 0u && gl_WorkGroupID == uvec3(0u)) {\n    \
              gldbg_mc_head[0] = gl_NumWorkGroups.x; gldbg_mc_head[1] = gl_NumWorkGroups.y; gldbg_mc_head[2] = gl_NumWorkGroups.z;\n    \
              gldbg_mc_head[3] = SIZE.x; gldbg_mc_head[4] = SIZE.y; gldbg_mc_head[5] = SIZE.z;\n}\n";
        let mut s = s.replace("SIZE", self.size());
        s += "gldbg_mc_epoch();\n";
        if self.shared.is_empty() {
            return s;
        }
        s += "if (gl_LocalInvocationIndex == 0u) {\n";
        for sh in self.shared {
            s += &format!("    gldbg_mc_n{} = 0u;\n", sh.index);
        }
        s += "}\n";
        for sh in self.shared {
            let j = sh.index;
            s += &format!(
                "for (uint gldbg_mc_i = gl_LocalInvocationIndex; gldbg_mc_i < uint(({}) * {}); gldbg_mc_i += gldbg_mc_wgsize()) {{\n    \
                 gldbg_mc_w{j}[gldbg_mc_i] = 0u;\n    gldbg_mc_r{j}[gldbg_mc_i] = 0u;\n}}\n",
                sh.elements, sh.components
            );
        }
        s += "barrier();\n";
        s
    }
}
