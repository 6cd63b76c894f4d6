//! The memcheck shader (issue 17, `ShaderModel::instrument_memcheck`):
//! the app's compute (or fragment) shader, every statement of it kept,
//! with checks added around its memory accesses:
//!
//! * **out of bounds**: the index of every array access whose array is a
//!   storage-block member, a `shared` variable or a local / parameter
//!   indexed dynamically is passed through a check against the array's
//!   `.length()` (an unsized array's is the bound range's), the
//!   coordinate of `imageLoad`/`imageStore`/`imageAtomic*` against
//!   `imageSize`, an atomic counter's byte offset against the size of the
//!   range bound at its binding (uniform [`COUNTER_SIZE_UNIFORM`]);
//! * **uninitialised reads**: a read of a `shared` array element that no
//!   invocation of the workgroup wrote in this dispatch (a shadow word per
//!   component in `shared` memory), a read of a local (or an `out`
//!   parameter) before any assignment to it on the path taken (a `bool`
//!   beside it);
//! * **races**: per component of a `shared` array and of a storage array
//!   the shader writes anywhere (a read-only array cannot race), the last
//!   writer and the last reader with their site, barrier epoch and
//!   whether they were atomic; an access conflicts with another
//!   invocation's when one of the two writes, not both are atomic, and no
//!   barrier orders them (same workgroup: a `barrier()` in between, for
//!   storage preceded by a memory barrier since the previous `barrier()`;
//!   other workgroups: nothing orders them).
//!
//! Where the app's data allow it the checks cost less: an index provably
//! within its array's literal size (`range`) gets no bounds check, and a
//! statement reading `shared` arrays between two barriers that write none
//! of them runs a copy with bounds checks alone once every element of
//! those arrays was written in the workgroup (`version`).
//!
//! The checks change no value the app's code computes: each index is
//! evaluated once, as the app evaluates it, and handed through a function
//! that returns it unchanged; the out-of-bounds access itself still
//! happens (its result is the driver's, as in the app's run).
//!
//! A bounds check inside a loop that reports out-of-bounds alone reports
//! when the invocation ends (`defer`): no branch or store between a
//! loop's loads.
//!
//! Findings go to the std430 block [`MEMCHECK_BLOCK`] (bound by name by
//! the executor, zeroed before the dispatch; in GLSL ES, which cannot
//! rebind a block, declared at the binding after the shader's buffers,
//! the shadow block at the next): [`HEADER_WORDS`] words of
//! header, then one record of [`RECORD_WORDS`] words per (site, kind),
//! the first invocation to claim it (`atomicAdd` on its count, and on
//! the header's [`CLAIMED_WORD`]) writing the details. Storage shadow words live in [`SHADOW_BLOCK`], the
//! tracked array `k` at `gldbg_mc_sbase[k]` for `gldbg_mc_scap[k]`
//! components ([`STORAGE_BASE_UNIFORM`], [`STORAGE_CAP_UNIFORM`], set by
//! the executor from the bound ranges and its budget; a component at or
//! past the cap is not checked for races).

use glsl_lang::ast;

use crate::{InstrumentError, ShaderModel, Stage};

mod calls;
mod defer;
mod emit;
mod quiet;
mod range;
mod rewrite;
mod scope;
mod track;
mod version;

/// The findings block's name (std430, no binding: placed by name).
pub const MEMCHECK_BLOCK: &str = "gldbg_Memcheck";
/// The storage shadow's block name (std430, no binding).
pub const SHADOW_BLOCK: &str = "gldbg_MemcheckShadow";
/// `uniform uint gldbg_mc_sbase[K]`: tracked array k's first shadow
/// component (in components; [`SHADOW_WORDS_PER_COMPONENT`] words each).
pub const STORAGE_BASE_UNIFORM: &str = "gldbg_mc_sbase";
/// `uniform uint gldbg_mc_scap[K]`: tracked array k's shadowed components.
pub const STORAGE_CAP_UNIFORM: &str = "gldbg_mc_scap";
/// `uniform uint gldbg_mc_acb[ATOMIC_COUNTER_BINDINGS]`: the bytes of the
/// range bound at each atomic counter buffer binding (0: none).
pub const COUNTER_SIZE_UNIFORM: &str = "gldbg_mc_acb";
pub const ATOMIC_COUNTER_BINDINGS: usize = 8;
/// Header: `gl_NumWorkGroups` (3 words), `gl_WorkGroupSize` (3), the
/// records claimed ([`CLAIMED_WORD`]), 0.
pub const HEADER_WORDS: usize = 8;
/// The header word counting the records claimed: an executor that finds
/// it 0 need not read the records (all are 0).
pub const CLAIMED_WORD: usize = 6;
/// A record: count, element (3 words: index, or image coordinate), the
/// invocation (2 words), the other side's site + 1 (0: none), the other
/// invocation (2 words), flags ([`FLAG_WRITE`], [`FLAG_OTHER_WRITE`],
/// [`FLAG_OTHER_ATOMIC`]), 2 spare.
pub const RECORD_WORDS: usize = 12;
/// Finding kinds per site, in record order.
pub const KINDS: usize = 3;
/// Shadow words per storage component: writer, writer's meta, reader,
/// reader's meta.
pub const SHADOW_WORDS_PER_COMPONENT: u32 = 4;
pub const FLAG_WRITE: u32 = 1;
pub const FLAG_OTHER_WRITE: u32 = 2;
pub const FLAG_OTHER_ATOMIC: u32 = 4;

/// What [`ShaderModel::instrument_memcheck`] adds.
#[derive(Clone, Copy, Debug)]
pub struct MemcheckOptions {
    /// Shadow `shared` arrays (uninitialised reads, races in shared
    /// memory). Off where the shadow does not fit the driver's shared
    /// memory: those checks are then listed as not done.
    pub shared: bool,
}

impl Default for MemcheckOptions {
    fn default() -> Self {
        MemcheckOptions { shared: true }
    }
}

/// Where an access's memory is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Storage,
    Shared,
    Local,
    Image,
    Counter,
}

/// One checked access (or local read) of the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MemSite {
    /// 1-based, in the source as given (`ShaderModel::driver_line` gives
    /// the driver's number).
    pub line: u32,
    pub column: u32,
    /// The access as written, e.g. `data[i + 1]`.
    pub expr: String,
    /// The variable: array, image, counter or local, e.g. `buf.data`.
    pub variable: String,
    pub space: Space,
    /// The storage block (its GL name, as the program interface lists
    /// it) of a storage access: the executor says its binding.
    pub block: Option<String>,
    /// Image or atomic counter binding where the shader declares it.
    pub binding: Option<u32>,
    /// How many words of the record's element are meaningful (an image
    /// coordinate: its dimensions; an index: 1; a local: 0).
    pub element_words: u32,
    /// The index (element word 0) is a signed `int`.
    pub signed: bool,
}

/// A storage array whose components get race shadow words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TrackedArray {
    /// Its storage block's GL name.
    pub block: String,
    /// The array as written, e.g. `buf.data`.
    pub array: String,
    /// Components per element tracked apart (a `vec4` array: 4).
    pub components: u32,
}

/// The checked shader and what its records mean.
#[derive(Clone, Debug)]
pub struct MemcheckShader {
    pub source: String,
    /// Site `i`'s records are at `HEADER_WORDS + (i * KINDS + kind) *
    /// RECORD_WORDS`.
    pub sites: Vec<MemSite>,
    /// Array `k` is shadowed at `gldbg_mc_sbase[k]` (empty: no shadow
    /// block, no such uniforms).
    pub storage: Vec<TrackedArray>,
    /// The shader declares [`COUNTER_SIZE_UNIFORM`].
    pub counters: bool,
    /// What is not checked and why, one sentence each.
    pub not_checked: Vec<String>,
}

/// A finding's kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FindingKind {
    OutOfBounds,
    Uninitialized,
    Race,
}

impl FindingKind {
    pub const ALL: [FindingKind; KINDS] = [
        FindingKind::OutOfBounds,
        FindingKind::Uninitialized,
        FindingKind::Race,
    ];

    /// The JSON word (`../shared/CLI.md`).
    pub fn name(self) -> &'static str {
        match self {
            FindingKind::OutOfBounds => "out-of-bounds",
            FindingKind::Uninitialized => "uninitialized",
            FindingKind::Race => "race",
        }
    }
}

/// An invocation as a record names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Invocation {
    Compute {
        workgroup: [u32; 3],
        local: [u32; 3],
    },
    Fragment {
        x: u32,
        y: u32,
    },
}

/// The other side of a race.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OtherSide {
    pub site: usize,
    /// `None`: another invocation of the same workgroup, which one not
    /// known (several read the element in that barrier interval).
    pub invocation: Option<Invocation>,
    pub write: bool,
    pub atomic: bool,
}

/// One (site, kind) record of a dispatch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub kind: FindingKind,
    pub site: usize,
    /// Invocation-accesses that found it in this dispatch.
    pub count: u32,
    /// The index (or image coordinate); empty for a local.
    pub element: Vec<i64>,
    /// The first invocation that found it.
    pub invocation: Invocation,
    /// Whether that access wrote.
    pub write: bool,
    pub other: Option<OtherSide>,
}

impl MemcheckShader {
    /// Words of the findings block.
    pub fn log_words(&self) -> usize {
        HEADER_WORDS + self.sites.len() * KINDS * RECORD_WORDS
    }

    /// The findings of one dispatch (or draw) from the block's words.
    pub fn decode(&self, words: &[u32], stage: Stage) -> Vec<Finding> {
        let groups = [words[0], words[1], words[2]].map(|g| g.max(1));
        let size = [words[3], words[4], words[5]].map(|s| s.max(1));
        let invocation = |a: u32, b: u32| match stage {
            Stage::Compute => Invocation::Compute {
                workgroup: unflatten(a, groups),
                local: unflatten(b, size),
            },
            _ => Invocation::Fragment {
                x: a & 0xFFFF,
                y: a >> 16,
            },
        };
        let mut out = Vec::new();
        for (i, site) in self.sites.iter().enumerate() {
            for (k, kind) in FindingKind::ALL.into_iter().enumerate() {
                let at = HEADER_WORDS + (i * KINDS + k) * RECORD_WORDS;
                let Some(r) = words.get(at..at + RECORD_WORDS) else {
                    continue;
                };
                if r[0] == 0 {
                    continue;
                }
                let element = (0..site.element_words as usize)
                    .map(|w| match site.signed || site.space == Space::Image {
                        true => r[1 + w] as i32 as i64,
                        false => r[1 + w] as i64,
                    })
                    .collect();
                let other = (r[6] != 0 && (r[6] as usize) <= self.sites.len()).then(|| OtherSide {
                    site: r[6] as usize - 1,
                    invocation: (r[8] != u32::MAX).then(|| invocation(r[7], r[8])),
                    write: r[9] & FLAG_OTHER_WRITE != 0,
                    atomic: r[9] & FLAG_OTHER_ATOMIC != 0,
                });
                out.push(Finding {
                    kind,
                    site: i,
                    count: r[0],
                    element,
                    invocation: invocation(r[4], r[5]),
                    write: r[9] & FLAG_WRITE != 0,
                    other,
                });
            }
        }
        out
    }
}

/// A flat index (x fastest) back to 3 coordinates.
fn unflatten(flat: u32, size: [u32; 3]) -> [u32; 3] {
    [
        flat % size[0],
        flat / size[0] % size[1],
        flat / (size[0] * size[1]),
    ]
}

impl ShaderModel {
    /// The memcheck shader of a compute or fragment shader (module
    /// documentation). [`InstrumentError::Unsupported`] for another stage
    /// or a GLSL without storage blocks (before 4.30 without
    /// `GL_ARB_shader_storage_buffer_object`, before GLSL ES 3.10).
    pub fn instrument_memcheck(
        &self,
        opts: MemcheckOptions,
    ) -> Result<MemcheckShader, InstrumentError> {
        if !matches!(self.stage, Stage::Compute | Stage::Fragment) {
            return Err(InstrumentError::Unsupported(format!(
                "memcheck checks compute and fragment shaders, not {} shaders",
                self.stage.name()
            )));
        }
        let ssbo_ext = self.extensions.iter().any(|e| e == SSBO);
        if !(self.es && self.version >= 310
            || !self.es && (self.version >= 430 || ssbo_ext && self.version >= 140))
        {
            return Err(InstrumentError::Unsupported(format!(
                "memcheck needs storage blocks (GLSL 4.30, 1.40 with {SSBO}, or GLSL ES 3.10); this shader is {}",
                crate::hits::version_name(self)
            )));
        }
        if self.stage == Stage::Compute && !self.source.contains("local_size") {
            return Err(InstrumentError::Unsupported(
                "memcheck needs the work group size declared in the shader object with main \
                 (here another object of the program declares it)"
                    .into(),
            ));
        }
        if self.idents.iter().any(|i| i.starts_with("gldbg_mc_")) {
            return Err(InstrumentError::Unsupported(
                "the shader uses names starting with gldbg_mc_, which memcheck needs".into(),
            ));
        }
        let main = self
            .model
            .main
            .map(|f| self.model.functions[f].decl)
            .ok_or_else(|| InstrumentError::Unsupported("the shader has no main".into()))?;
        let globals = scope::Globals::collect(&self.tu.0);
        // Survey: which storage arrays the shader writes.
        let mut survey = rewrite::Rewrite::new(&globals, &self.source, true, opts.shared);
        let mut tu = self.tu.0.clone();
        for d in tu.iter_mut() {
            if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
                survey.function(def, Vec::new());
            }
        }
        let mut rw = rewrite::Rewrite::new(&globals, &self.source, false, opts.shared);
        rw.written = survey.written;
        rw.whole = survey.whole;
        if self.stage == Stage::Compute && !self.source.contains("local_size_variable") {
            rw.local_size = range::local_size(&self.tu.0);
        }
        let mut tu = self.tu.0.clone();
        for d in tu.iter_mut() {
            if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut d.content {
                rw.function(def, Vec::new());
            }
        }
        let shared: Vec<emit::SharedShadow> = rw
            .shared
            .iter()
            .enumerate()
            .map(|(index, (name, ty))| emit::SharedShadow {
                index,
                components: ty.components(),
                elements: (0..ty.dims.max(1))
                    .map(|d| format!("{name}{}.length()", "[0]".repeat(d)))
                    .collect::<Vec<_>>()
                    .join(" * "),
            })
            .collect();
        let emit = emit::Emit {
            stage: self.stage,
            es: self.es,
            storage: rw.storage.len(),
            counters: rw.counters,
            shared: &shared,
            temps: rw.temps,
            variable_size: self.source.contains("local_size_variable"),
            deferred: &rw.deferred,
            // GLSL ES cannot rebind a block: ours take the bindings after
            // the shader's buffers.
            binding: self
                .es
                .then(|| crate::instrument::binding_after_buffers(&self.tu.0)),
        };
        let prologue = parse_statements(&emit.prologue());
        if let ast::ExternalDeclarationData::FunctionDefinition(def) = &mut tu[main].content {
            let body = &mut def.statement.statement_list;
            let rest = std::mem::take(body);
            *body = prologue.into_iter().chain(rest).collect();
        }
        if !rw.deferred.is_empty() {
            defer::insert_flushes(&mut tu, main, self.stage == Stage::Fragment);
        }
        let mut not_checked: Vec<String> = rw.not_checked.into_iter().collect();
        if !opts.shared && !globals.shared.is_empty() {
            not_checked.push(
                "shared memory races and uninitialised reads (the shadow does not fit the \
                 driver's shared memory)"
                    .into(),
            );
        }
        let mut extensions = Vec::new();
        if !self.es && self.version < 430 && !ssbo_ext {
            extensions.push(format!("#extension {SSBO} : require"));
        }
        let source = crate::hits::print_with(self, &tu, extensions, emit.declarations());
        Ok(MemcheckShader {
            source,
            sites: rw.sites,
            storage: rw.storage,
            counters: rw.counters,
            not_checked,
        })
    }
}

const SSBO: &str = "GL_ARB_shader_storage_buffer_object";

/// Statements from GLSL text (generated code: it always parses).
fn parse_statements(text: &str) -> Vec<ast::Statement> {
    if text.trim().is_empty() {
        return Vec::new();
    }
    let shader = format!("#version 460\nvoid gldbg_mc_f() {{\n{text}\n}}\n");
    let pp = crate::preprocess::preprocess(&shader, &Default::default(), crate::Api::Gl)
        .expect("memcheck's generated statements preprocess");
    let parsed = crate::parse::parse_active(&pp.text, &pp.active, crate::Api::Gl)
        .expect("memcheck's generated statements parse");
    parsed
        .tu
        .0
        .into_iter()
        .find_map(|d| match d.content {
            ast::ExternalDeclarationData::FunctionDefinition(def) => {
                Some(def.statement.statement_list.clone())
            }
            _ => None,
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
