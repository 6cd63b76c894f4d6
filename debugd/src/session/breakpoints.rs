//! GL breakpoints: what each kind stops at, the preload's per-function
//! bits that make those calls stop, and the breakpoint RPCs.

use super::sources::SourceBreak;
use super::*;

/// What a breakpoint stops at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BreakKind {
    Function(u32),
    Draw,
    DrawNumber(u64),
    ShaderSwitch,
    Frame,
    /// Any GL call that raised a GL error (checked after each call while it exists).
    GlError,
    /// A source breakpoint or log point (`sources.rs`): every draw and
    /// dispatch stops, internally, to be checked; it never matches a stop
    /// by itself.
    Source,
}

impl BreakKind {
    pub(super) fn describe(self) -> String {
        match self {
            BreakKind::Function(id) => function_name(id).to_string(),
            BreakKind::Draw => "draw".into(),
            BreakKind::DrawNumber(n) => format!("draw {n}"),
            BreakKind::ShaderSwitch => "shader-switch".into(),
            BreakKind::Frame => "frame".into(),
            BreakKind::GlError => "error".into(),
            BreakKind::Source => "source".into(),
        }
    }

    /// Whether a call of `function` needs its bit for this breakpoint.
    pub(super) fn covers(self, function: u32) -> bool {
        match self {
            BreakKind::Function(id) => id == function,
            BreakKind::Draw | BreakKind::DrawNumber(_) => class_of(function) & class::DRAW != 0,
            BreakKind::ShaderSwitch => class_of(function) & class::SHADER_SWITCH != 0,
            BreakKind::Frame => class_of(function) & class::FRAME_END != 0,
            // No bit: the preload checks every call while `check_errors` is set.
            BreakKind::GlError => false,
            BreakKind::Source => class_of(function) & (class::DRAW | class::DISPATCH) != 0,
        }
    }

    pub(super) fn matches(self, stop: &Stop) -> bool {
        // A stop after a call (a GL error's) is no stop before it.
        let before = stop.error == 0;
        match self {
            BreakKind::DrawNumber(n) => self.covers(stop.function) && stop.draw == n && before,
            // A draw call compiled into a display list draws nothing.
            BreakKind::Draw => self.covers(stop.function) && stop.draw != 0 && before,
            BreakKind::GlError => stop.error != 0,
            BreakKind::Source => false,
            // Other breakpoints stop before the call, never again after it.
            k => k.covers(stop.function) && before,
        }
    }
}

#[derive(Clone, Debug)]
struct Breakpoint {
    id: u32,
    kind: BreakKind,
    hits: u64,
    /// A source breakpoint's details (kind `Source`).
    source: Option<SourceBreak>,
}

impl Breakpoint {
    fn to_pb(&self) -> pb::Breakpoint {
        pb::Breakpoint {
            id: self.id,
            description: match &self.source {
                Some(s) => s.describe(),
                None => self.kind.describe(),
            },
            hits: self.hits,
            source: self.source.as_ref().map(SourceBreak::to_pb),
        }
    }
}

/// The user's GL breakpoints, numbered from 1 in the order they were made.
#[derive(Debug)]
pub(super) struct Breakpoints {
    list: Vec<Breakpoint>,
    next: u32,
}

impl Default for Breakpoints {
    fn default() -> Self {
        Breakpoints {
            list: Vec::new(),
            next: 1,
        }
    }
}

impl Breakpoints {
    /// Add a breakpoint; returns its id.
    pub(super) fn add(&mut self, kind: BreakKind) -> u32 {
        let id = self.next;
        self.next += 1;
        self.list.push(Breakpoint {
            id,
            kind,
            hits: 0,
            source: None,
        });
        id
    }

    /// Add a source breakpoint; returns it as a message.
    pub(super) fn add_source(&mut self, source: SourceBreak) -> pb::Breakpoint {
        self.add(BreakKind::Source);
        let b = self.list.last_mut().expect("just added");
        b.source = Some(source);
        b.to_pb()
    }

    /// The source breakpoints (id and details), in the order they were made.
    pub(super) fn sources(&self) -> Vec<(u32, SourceBreak)> {
        self.list
            .iter()
            .filter_map(|b| Some((b.id, b.source.clone()?)))
            .collect()
    }

    /// Whether any source breakpoint exists.
    pub(super) fn has_sources(&self) -> bool {
        self.list.iter().any(|b| b.source.is_some())
    }

    /// Source breakpoint `id`'s details and hit count, to update (None if deleted).
    pub(super) fn source_mut(&mut self, id: u32) -> Option<(&mut SourceBreak, &mut u64)> {
        let b = self.list.iter_mut().find(|b| b.id == id)?;
        Some((b.source.as_mut()?, &mut b.hits))
    }

    /// Delete breakpoint `id` (0: all).
    pub(super) fn delete(&mut self, id: u32) -> Result<()> {
        if id == 0 {
            self.list.clear();
        } else if self.list.iter().any(|b| b.id == id) {
            self.list.retain(|b| b.id != id);
        } else {
            return Err(Error::InvalidArgument(format!("no breakpoint {id}")));
        }
        Ok(())
    }

    /// Count a hit on every breakpoint `stop` matches; returns the first
    /// one's id (0: none).
    pub(super) fn hit(&mut self, stop: &Stop) -> u32 {
        let mut hit = 0;
        for b in &mut self.list {
            if b.kind.matches(stop) {
                b.hits += 1;
                if hit == 0 {
                    hit = b.id;
                }
            }
        }
        hit
    }

    /// A new app: every count from 0.
    pub(super) fn reset_hits(&mut self) {
        for b in &mut self.list {
            b.hits = 0;
            if let Some(s) = &mut b.source {
                s.restart();
            }
        }
    }

    /// Whether a call of `function` must stop for one of them.
    pub(super) fn covers(&self, function: u32) -> bool {
        self.list.iter().any(|b| b.kind.covers(function))
    }

    /// Whether the preload must check every call for a GL error.
    pub(super) fn check_errors(&self) -> bool {
        self.list.iter().any(|b| b.kind == BreakKind::GlError)
    }

    pub(super) fn to_list(&self) -> pb::BreakpointList {
        pb::BreakpointList {
            breakpoints: self.list.iter().map(Breakpoint::to_pb).collect(),
        }
    }
}

impl Session {
    pub fn add_breakpoint(&self, kind: BreakKind) -> pb::Breakpoint {
        let mut c = self.control();
        let id = c.breakpoints.add(kind);
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        pb::Breakpoint {
            id,
            description: kind.describe(),
            hits: 0,
            source: None,
        }
    }

    pub fn delete_breakpoint(&self, id: u32) -> Result<pb::BreakpointList> {
        let mut c = self.control();
        c.breakpoints.delete(id)?;
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        Ok(c.breakpoints.to_list())
    }

    pub fn list_breakpoints(&self) -> pb::BreakpointList {
        self.control().breakpoints.to_list()
    }
}

/// Set every function's breakpoint bit: shader-record functions, plus the
/// user's breakpoints and memcheck's calls.
pub(super) fn apply_bits(c: &Control, shm: &SharedMemory) {
    // Armed memcheck runs wait while the bits change (a breakpoint set
    // now must stop its call), and go on last if nothing else stops them.
    shm.set_memcheck_fast(false);
    for id in 0..FUNCTIONS.len() as u32 {
        let on = class_of(id) & class::SHADER_RECORD != 0
            || c.breakpoints.covers(id)
            || c.memcheck.covers(id);
        shm.set_breakpoint(id, on);
    }
    shm.set_check_errors(c.breakpoints.check_errors());
    shm.set_memcheck_fast(super::memcheck::fast_allowed(c));
}
