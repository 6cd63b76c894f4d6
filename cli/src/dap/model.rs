//! The adapter's data, apart from the handlers that use it (so that
//! `adapter` holds the session without importing its handlers): the
//! launched session, the client's breakpoints, the variable references of
//! the current stop.

use std::collections::{BTreeMap, HashMap};
use std::future::Future;
use std::pin::Pin;

use gldbg_proto::pb;

use crate::embedded::Embedded;
use crate::exec::{Failure, Outcome, Session};

/// What disconnecting does to the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnDisconnect {
    Terminate,
    Detach,
}

/// A launched or attached session.
pub struct Launched {
    /// The daemon in this process (launch), stopped at the end.
    pub embedded: Option<Embedded>,
    pub on_disconnect: OnDisconnect,
    pub stop_on_entry: bool,
    pub events_task: tokio::task::JoinHandle<()>,
}

impl Drop for Launched {
    fn drop(&mut self) {
        self.events_task.abort();
    }
}

/// One source breakpoint as the client knows it.
#[derive(Debug, Clone)]
pub struct SourceBp {
    pub id: u32,
    pub line: i64,
    pub verified: bool,
    pub message: String,
}

#[derive(Default)]
pub struct Breakpoints {
    /// By file path, in the order of the client's last setBreakpoints.
    pub files: BTreeMap<String, Vec<SourceBp>>,
    pub function: Vec<u32>,
    /// The launch configuration's `sourceMap` (shader name, file).
    pub mapped: Vec<(String, String)>,
}

impl Breakpoints {
    pub fn is_function(&self, id: u32) -> bool {
        self.function.contains(&id)
    }

    /// The source breakpoints at a line of a file.
    pub fn at(&self, file: &str, line: u32) -> Vec<u32> {
        self.files
            .get(file)
            .map(|bps| {
                bps.iter()
                    .filter(|b| b.line == i64::from(line))
                    .map(|b| b.id)
                    .collect()
            })
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Locals,
    Args,
    Uniforms,
    Call,
}

#[derive(Debug, Clone)]
pub enum Var {
    Scope(Scope, u32),
    /// A composite value's parts or components.
    Children(pb::LocalValue),
}

/// Variable references of the current stop.
#[derive(Default)]
pub struct Refs {
    pub vars: HashMap<i64, Var>,
    /// Never reused: a reference from an earlier stop is known stale.
    next: i64,
    /// The frame ids the last stackTrace of this stop gave.
    pub frames: Vec<i64>,
}

impl Refs {
    pub fn clear(&mut self) {
        self.vars.clear();
        self.frames.clear();
    }

    pub fn add(&mut self, v: Var) -> i64 {
        self.next += 1;
        self.vars.insert(self.next, v);
        self.next
    }
}

/// A move in progress: it owns the CLI session until the app stops.
pub type Moving = Pin<Box<dyn Future<Output = (Session, Vec<Step>)> + Send>>;

/// One command of a move and its result.
pub struct Step {
    pub line: String,
    pub result: Result<Outcome, Failure>,
}

/// How a move goes on after each command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// One command.
    Once,
    /// The shader's `continue`; when the draw has no further hit, `end`
    /// and the app's `continue` (to the next breakpoint of any kind).
    ShaderThenApp,
}
