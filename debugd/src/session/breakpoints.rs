//! GL breakpoints: what each kind stops at, the preload's per-function
//! bits that make those calls stop, and the breakpoint RPCs.

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
        }
    }

    pub(super) fn matches(self, stop: &Stop) -> bool {
        match self {
            BreakKind::DrawNumber(n) => {
                self.covers(stop.function) && stop.draw == n && stop.error == 0
            }
            // A draw call compiled into a display list draws nothing.
            BreakKind::Draw => self.covers(stop.function) && stop.draw != 0 && stop.error == 0,
            BreakKind::GlError => stop.error != 0,
            // Other breakpoints stop before the call, never again after it.
            k => k.covers(stop.function) && stop.error == 0,
        }
    }
}

#[derive(Clone, Debug)]
pub(super) struct Breakpoint {
    pub(super) id: u32,
    pub(super) kind: BreakKind,
    pub(super) hits: u64,
}

impl Session {
    pub fn add_breakpoint(&self, kind: BreakKind) -> pb::Breakpoint {
        let mut c = self.control();
        let id = c.next_breakpoint;
        c.next_breakpoint += 1;
        c.breakpoints.push(Breakpoint { id, kind, hits: 0 });
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        pb::Breakpoint {
            id,
            description: kind.describe(),
            hits: 0,
        }
    }

    pub fn delete_breakpoint(&self, id: u32) -> Result<pb::BreakpointList> {
        let mut c = self.control();
        if id == 0 {
            c.breakpoints.clear();
        } else if c.breakpoints.iter().any(|b| b.id == id) {
            c.breakpoints.retain(|b| b.id != id);
        } else {
            return Err(Error::InvalidArgument(format!("no breakpoint {id}")));
        }
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        Ok(breakpoint_list(&c))
    }

    pub fn list_breakpoints(&self) -> pb::BreakpointList {
        breakpoint_list(&self.control())
    }
}

/// Set every function's breakpoint bit: shader-record functions, plus the user's breakpoints.
pub(super) fn apply_bits(c: &Control, shm: &SharedMemory) {
    for id in 0..FUNCTIONS.len() as u32 {
        let on = class_of(id) & class::SHADER_RECORD != 0
            || c.breakpoints.iter().any(|b| b.kind.covers(id));
        shm.set_breakpoint(id, on);
    }
    shm.set_check_errors(c.breakpoints.iter().any(|b| b.kind == BreakKind::GlError));
}

pub(super) fn breakpoint_list(c: &Control) -> pb::BreakpointList {
    pb::BreakpointList {
        breakpoints: c
            .breakpoints
            .iter()
            .map(|b| pb::Breakpoint {
                id: b.id,
                description: b.kind.describe(),
                hits: b.hits,
            })
            .collect(),
    }
}
