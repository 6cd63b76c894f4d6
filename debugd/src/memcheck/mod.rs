//! memcheck's findings (issue 17): the records of one checked dispatch or
//! draw (`glsl_instrument::memcheck::Finding`s) turned into the findings
//! the user sees (`pb::MemcheckFinding`: the access's place as shader
//! stops show it, the binding, element and invocations, the call), and
//! the session's store of them, deduplicated per (kind, line) of a shader
//! with cumulative counts, which makes the report. The session side
//! (modes, the checks at each stop) is `session/memcheck.rs`; the preload
//! command that runs a call checked is the link's (`MemcheckProgram`,
//! `run_checked`).

use std::collections::{BTreeSet, HashMap};

use gldbg_proto::pb;
use glsl_instrument::Stage;
use glsl_instrument::memcheck::{Finding, Invocation, MemSite, MemcheckShader, Space};

use crate::shader::reply;

pub mod link;
pub use link::{MemcheckProgram, MemcheckRun, call_ran, run_checked};

/// The storage shadows' budget (bytes) by default.
pub const DEFAULT_BUDGET: u64 = 256 << 20;

/// Where a site is, as shader stops show it: the driver's line and the
/// column, and the user's file and its line where the shader maps to one.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Place {
    pub line: u32,
    pub column: u32,
    pub file: Option<(String, u32)>,
}

/// The call a finding is of.
#[derive(Clone, Copy, Debug)]
pub struct CallOf<'a> {
    /// The app's call number.
    pub call: u64,
    pub function: &'a str,
    pub stage: Stage,
    pub program: u32,
}

/// One checked program's sites and what the call's run said about them.
pub struct Sites<'a> {
    pub shader: &'a MemcheckShader,
    /// Site `i`'s place (`shader.sites[i]`).
    pub places: &'a [Place],
    /// Storage blocks' bindings in the call (the run's `bindings`).
    pub bindings: &'a HashMap<String, u32>,
}

impl Sites<'_> {
    fn place(&self, site: usize) -> Place {
        self.places.get(site).cloned().unwrap_or_else(|| {
            let s = self.shader.sites.get(site);
            Place {
                line: s.map_or(0, |s| s.line),
                column: s.map_or(0, |s| s.column),
                file: None,
            }
        })
    }

    /// The binding of `site`'s memory: a storage block's as bound in the
    /// call, an image's or counter's as declared; None for shared memory,
    /// locals, and a block whose binding the run could not tell.
    fn binding(&self, site: &MemSite) -> Option<u32> {
        match site.space {
            Space::Storage => site
                .block
                .as_ref()
                .and_then(|b| self.bindings.get(b))
                .copied()
                .filter(|b| *b != u32::MAX),
            Space::Image | Space::Counter => site.binding,
            Space::Shared | Space::Local => None,
        }
    }

    /// The finding `f` of `call` as the user sees it (`count`: this call's).
    pub fn finding(&self, f: &Finding, call: CallOf<'_>) -> pb::MemcheckFinding {
        let site = &self.shader.sites[f.site];
        let place = self.place(f.site);
        let mut invocations = vec![invocation(&f.invocation, f.write)];
        if let Some(o) = &f.other {
            let mut other = match o.invocation {
                Some(i) => invocation(&i, o.write),
                None => pb::MemcheckInvocation {
                    write: o.write,
                    unknown: true,
                    ..Default::default()
                },
            };
            let p = self.place(o.site);
            other.line = p.line;
            other.column = p.column;
            other.expr = self
                .shader
                .sites
                .get(o.site)
                .map_or(String::new(), |s| s.expr.clone());
            other.atomic = o.atomic;
            invocations.push(other);
        }
        let (file, file_line) = place.file.unwrap_or_default();
        pb::MemcheckFinding {
            kind: f.kind.name().into(),
            line: place.line,
            column: place.column,
            expr: site.expr.clone(),
            variable: site.variable.clone(),
            binding: self.binding(site),
            element: f.element.clone(),
            invocations,
            call: call.call,
            count: u64::from(f.count),
            stage: call.stage.name().into(),
            program: call.program,
            file,
            file_line,
            function: call.function.into(),
        }
    }
}

fn invocation(i: &Invocation, write: bool) -> pb::MemcheckInvocation {
    match *i {
        Invocation::Compute { workgroup, local } => pb::MemcheckInvocation {
            workgroup: workgroup.to_vec(),
            local: local.to_vec(),
            write,
            ..Default::default()
        },
        Invocation::Fragment { x, y } => pb::MemcheckInvocation {
            pixel: Some(pb::Pixel { x, y }),
            write,
            ..Default::default()
        },
    }
}

/// The invocation shader debugging focuses on for `i` (compute: its
/// `gl_GlobalInvocationID`, from the dispatch's `local_size`).
pub fn focus_of(i: &Invocation, local_size: [u32; 3]) -> reply::Invocation {
    match *i {
        Invocation::Compute { workgroup, local } => {
            let g = |k: usize| {
                workgroup[k]
                    .saturating_mul(local_size[k].max(1))
                    .saturating_add(local[k])
            };
            reply::Invocation::Global {
                x: g(0),
                y: g(1),
                z: g(2),
            }
        }
        Invocation::Fragment { x, y } => reply::Invocation::Pixel { x, y },
    }
}

/// What a finding is deduplicated by: the shader (the checked stage's
/// source and program), the kind and the line; a race by its two lines,
/// whichever side found it (the side that ran second does).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct Key {
    shader: u64,
    kind: String,
    line: u32,
    other: u32,
}

impl Key {
    fn of(shader: u64, f: &pb::MemcheckFinding) -> Key {
        let other = f.invocations.get(1).map_or(0, |o| o.line);
        let (line, other) = match other {
            0 => (f.line, 0),
            o => (f.line.min(o), f.line.max(o)),
        };
        Key {
            shader,
            kind: f.kind.clone(),
            line,
            other,
        }
    }
}

/// The session's findings, one per (kind, line) of a shader (a race: per
/// its two lines), in the order
/// they were first found, with cumulative counts; and what the checks
/// cost and left unchecked.
#[derive(Debug, Default)]
pub struct Findings {
    list: Vec<(Key, pb::MemcheckFinding)>,
    index: HashMap<Key, usize>,
    /// Dispatches and draws run checked.
    pub calls_checked: u64,
    /// Of them, those armed programs ran without a stop, as the ended
    /// apps' preloads counted them (`Header::memcheck_fast_calls`; the
    /// running app's count is added to the report).
    pub calls_armed: u64,
    /// The most shadow memory one call used.
    pub shadow_bytes: u64,
    pub gpu_ns: u64,
    /// What was not checked and why (sorted, each once).
    pub not_checked: BTreeSet<String>,
}

impl Findings {
    /// Count `f` (a finding of the shader keyed `shader`); returns it when
    /// it is new to the session (the event to send), else adds its count
    /// to the first one's.
    pub fn add(&mut self, shader: u64, f: pb::MemcheckFinding) -> Option<pb::MemcheckFinding> {
        let key = Key::of(shader, &f);
        match self.index.get(&key) {
            Some(&i) => {
                let seen = &mut self.list[i].1;
                seen.count = seen.count.saturating_add(f.count);
                None
            }
            None => {
                self.index.insert(key.clone(), self.list.len());
                self.list.push((key, f.clone()));
                Some(f)
            }
        }
    }

    /// One call's findings of the shader keyed `shader`, deduplicated
    /// within the call first (counts summed, first found first): the
    /// call's findings, and those new to the session (the events to send,
    /// each with the call's whole count).
    pub fn add_call(
        &mut self,
        shader: u64,
        found: Vec<pb::MemcheckFinding>,
    ) -> (Vec<pb::MemcheckFinding>, Vec<pb::MemcheckFinding>) {
        let mut call = Findings::default();
        for f in found {
            call.add(shader, f);
        }
        let call = call.all();
        let new = call
            .iter()
            .filter_map(|f| self.add(shader, f.clone()))
            .collect();
        (call, new)
    }

    /// One checked call's cost.
    pub fn count_call(&mut self, shadow_bytes: u64, gpu_ns: u64) {
        self.calls_checked += 1;
        self.shadow_bytes = self.shadow_bytes.max(shadow_bytes);
        self.gpu_ns = self.gpu_ns.saturating_add(gpu_ns);
    }

    /// Every finding, first found first, with its count so far.
    pub fn all(&self) -> Vec<pb::MemcheckFinding> {
        self.list.iter().map(|(_, f)| f.clone()).collect()
    }

    /// The report (`memcheck`) in `mode` with the shadow `budget`.
    pub fn report(&self, mode: pb::MemcheckMode, budget: u64) -> pb::MemcheckReport {
        pb::MemcheckReport {
            mode: mode as i32,
            findings: self.all(),
            shadow_bytes: self.shadow_bytes,
            budget_bytes: budget,
            not_checked: self.not_checked.iter().cloned().collect(),
            calls_checked: self.calls_checked,
            gpu_ns: self.gpu_ns,
            calls_armed: self.calls_armed,
        }
    }
}

/// The sentences of tracked arrays the shadow budget cut (`caps[k] <
/// needed[k]`) in `shader`'s program `program`.
pub fn budget_notes(
    shader: &MemcheckShader,
    program: u32,
    caps: &[u32],
    needed: &[u32],
    budget: u64,
) -> Vec<String> {
    shader
        .storage
        .iter()
        .zip(caps.iter().zip(needed))
        .filter(|(_, (cap, need))| cap < need)
        .map(|(t, (cap, need))| match cap {
            0 => format!(
                "program {program}: races in {} are not checked ({need} components; the shadow \
                 budget of {budget} bytes is spent)",
                t.array
            ),
            cap => format!(
                "program {program}: races in {} are checked in its first {cap} of {need} \
                 components only (shadow budget {budget} bytes)",
                t.array
            ),
        })
        .collect()
}

#[cfg(test)]
mod tests;
