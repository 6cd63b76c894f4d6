//! memcheck in the session (issue 17): `memcheck on|off|stop` and the
//! report, and the check at each dispatch and draw.
//!
//! While memcheck is on every dispatch and draw stops internally, as for
//! source breakpoints (`Stop::source_check`; `continue`'s loop in
//! `source_checks.rs` runs the source breakpoints' check first, then this
//! one). At such a stop the current program's checked shader is built
//! once per (program, sources) (`crate::memcheck::MemcheckProgram`; a
//! program without sites, or one that cannot be checked, is remembered
//! and its calls go on unchecked, the latter said once). `on`: the call
//! runs checked in place, its findings become events, and the stop is
//! answered with `CMD_SKIP` (the call already ran). `stop`: the call runs
//! checked aside (what it writes is put back); a finding keeps the app
//! stopped before the call, reported with the finding, with the stage's
//! shader debugging started and focused on the first finding's
//! invocation; without one the call runs natively. A GL breakpoint's stop
//! at a dispatch is checked when `continue` leaves it.
//!
//! `on` arms a compute program at its first checked dispatch (`How::
//! InPlaceArmed`; the preload's `memcheck_armed.rs`): while nothing else
//! needs dispatches to stop ([`fast_allowed`]), its later dispatches run
//! checked in the app without a stop, their findings read later; what
//! they found waits at the thread's next stop (`Stop::memcheck_ran`),
//! where it is taken (`CMD_MEMCHECK_TAKE`) and recorded at the call each
//! ran at, before that stop is handled as any other.

use std::collections::HashMap;

use gldbg_proto::pb::MemcheckMode;
use glsl_instrument::memcheck::{HEADER_WORDS, MemcheckOptions, Space};

use super::*;
use crate::history::link::At;
use crate::memcheck::link::How;
use crate::memcheck::{
    self as mc, CallOf, DEFAULT_BUDGET, Findings, MemcheckProgram, MemcheckRun, Place, Sites,
};
use crate::shader::{FocusOn, Reports, ShmLink};

/// The session's memcheck state (in `Control`).
pub(super) struct Memcheck {
    mode: MemcheckMode,
    findings: Findings,
    /// Checked programs by (program, stage, sources).
    programs: HashMap<u64, Arc<Entry>>,
    /// The serial of the last stop checked (each stop once).
    checked: Option<u64>,
    /// The stop whose call already ran in place: it is skipped, never run
    /// again (also when the resume after the check failed).
    ran_at: Option<u64>,
    /// The stop a finding keeps the app at (`stop`): its serial and finding.
    stopped_at: Option<(u64, pb::MemcheckFinding)>,
    /// The last stop whose armed runs' findings were taken.
    taken: Option<u64>,
    budget: u64,
}

impl Default for Memcheck {
    fn default() -> Self {
        Memcheck {
            mode: MemcheckMode::MemcheckOff,
            findings: Findings::default(),
            programs: HashMap::new(),
            checked: None,
            ran_at: None,
            stopped_at: None,
            taken: None,
            budget: DEFAULT_BUDGET,
        }
    }
}

impl Memcheck {
    /// Whether calls stop to be checked.
    pub(super) fn active(&self) -> bool {
        matches!(
            self.mode,
            MemcheckMode::MemcheckOn | MemcheckMode::MemcheckStop
        )
    }

    /// Whether a call of `function` needs its breakpoint bit for memcheck.
    pub(super) fn covers(&self, function: u32) -> bool {
        self.active() && class_of(function) & (class::DRAW | class::DISPATCH) != 0
    }

    /// The finding the stop `serial` was made for, if a finding made it.
    pub(super) fn finding_at(&self, serial: u64) -> Option<pb::MemcheckFinding> {
        self.stopped_at
            .as_ref()
            .filter(|(s, _)| *s == serial)
            .map(|(_, f)| f.clone())
    }

    /// The app ended: the dispatches its armed programs ran without a stop
    /// are counted in the report from now on (its shared memory goes).
    pub(super) fn app_ended(&mut self, shm: &SharedMemory) {
        let unstopped = shm.memcheck_fast_calls();
        self.findings.calls_checked += unstopped;
        self.findings.calls_armed += unstopped;
    }

    /// A new app: its programs and findings are its own.
    pub(super) fn restart(&mut self) {
        self.findings = Findings::default();
        self.programs.clear();
        self.checked = None;
        self.ran_at = None;
        self.stopped_at = None;
    }
}

/// A program's checked stage, or why its calls go on unchecked.
enum Entry {
    /// No sites (nothing to check) or it cannot be checked (said once).
    Unchecked,
    Checked(Checked),
}

struct Checked {
    p: MemcheckProgram,
    /// Each site's place as stops show it.
    places: Vec<Place>,
    /// What findings of this shader are deduplicated by.
    shader_key: u64,
    /// Built with `shared` memory shadowed.
    shared: bool,
}

impl Checked {
    fn has_shared(&self) -> bool {
        self.p.shader.sites.iter().any(|s| s.space == Space::Shared)
    }
}

/// What `continue` does after a memcheck check.
pub(super) enum Next {
    /// Release the call with this command (continue, or skip where it ran in place).
    Resume(u32),
    /// A finding stopped the app here: the reply.
    Stopped(Box<pb::StateReply>),
}

const GO_ON: Next = Next::Resume(abi::CMD_CONTINUE);
/// Armed runs taken at one stop at most.
const TAKES_MAX: usize = 1024;

/// Whether armed memcheck programs may run dispatches without a stop:
/// `memcheck on`, and nothing else wants dispatches to stop (no GL
/// breakpoint covering one, no source breakpoint, no error breakpoint, no
/// stepping).
pub(super) fn fast_allowed(c: &Control) -> bool {
    c.memcheck.mode == MemcheckMode::MemcheckOn
        && !c.stepping
        && !c.breakpoints.has_sources()
        && !c.breakpoints.check_errors()
        && !(0..FUNCTIONS.len() as u32)
            .any(|id| class_of(id) & class::DISPATCH != 0 && c.breakpoints.covers(id))
}

/// Whether `stop` is a call memcheck checks: a dispatch, or a draw that
/// draws, before it runs.
fn checkable(stop: &Stop) -> bool {
    stop.error == 0
        && stop.ret.is_none()
        && (stop.draw != 0 || class_of(stop.function) & class::DISPATCH != 0)
}

impl Session {
    /// `memcheck on|off|stop` (the report alone for `REPORT`): the report.
    pub fn memcheck(&self, mode: MemcheckMode) -> pb::MemcheckReport {
        let mut c = self.control();
        if mode != MemcheckMode::MemcheckReport {
            c.memcheck.mode = mode;
            if let Some(l) = &c.launched
                && !c.stepping
            {
                apply_bits(&c, &l.shm);
            }
        }
        let mut report = c
            .memcheck
            .findings
            .report(c.memcheck.mode, c.memcheck.budget);
        // The dispatches armed programs ran without a stop.
        if let Some(l) = &c.launched {
            let unstopped = l.shm.memcheck_fast_calls();
            report.calls_checked += unstopped;
            report.calls_armed += unstopped;
        }
        report
    }

    /// Before `continue` resumes from a stop nothing checked (a GL
    /// breakpoint's at a dispatch): its check.
    pub(super) fn memcheck_before_resume(&self) -> Result<Next> {
        {
            let c = self.control();
            let m = &c.memcheck;
            let due = c.state == RunState::Stopped
                && c.paused.is_none()
                && c.current.as_ref().is_some_and(|s| {
                    m.ran_at == Some(s.serial)
                        || (s.memcheck_ran && m.taken != Some(s.serial))
                        || (m.active() && checkable(s) && m.checked != Some(s.serial))
                });
            if !due {
                return Ok(GO_ON);
            }
        }
        self.memcheck_at_stop()
    }

    /// At a stop where armed runs' findings wait (`Stop::memcheck_ran`):
    /// they are taken now, before anything can make the stop the user's.
    pub(super) fn memcheck_take_first(&self) -> Result<()> {
        let _dbg = self.debug_lock();
        let AtStop { stop, shm } = self.stopped()?;
        self.take_armed_runs(&stop, &shm);
        Ok(())
    }

    /// The check of the call the app is stopped at (once per stop).
    pub(super) fn memcheck_at_stop(&self) -> Result<Next> {
        let mut dbg = self.debug_lock();
        let AtStop { stop, shm } = self.stopped()?;
        self.take_armed_runs(&stop, &shm);
        let mode = {
            let mut c = self.control();
            let m = &mut c.memcheck;
            if m.ran_at == Some(stop.serial) {
                return Ok(Next::Resume(abi::CMD_SKIP));
            }
            if !m.active() || m.checked == Some(stop.serial) || !checkable(&stop) {
                return Ok(GO_ON);
            }
            m.checked = Some(stop.serial);
            m.mode
        };
        cancel::check()?;
        let program = match self.query_program() {
            Ok(p) => p,
            // A fixed-function draw: nothing to check.
            Err(Error::FailedPrecondition(_)) => return Ok(GO_ON),
            Err(e) => return Err(e),
        };
        let stage = match class_of(stop.function) & class::DISPATCH {
            0 => Stage::Fragment,
            _ => Stage::Compute,
        };
        if !program.stages.iter().any(|s| s.gl_type == stage.gl_enum()) {
            return Ok(GO_ON);
        }
        let (key, mut entry) = self.checked_program(&program, stage);
        let how = match (mode, stage) {
            (MemcheckMode::MemcheckOn, Stage::Compute) => How::InPlaceArmed,
            (MemcheckMode::MemcheckOn, _) => How::InPlace,
            _ => How::Aside,
        };
        let in_place = how != How::Aside;
        let at = At {
            shm: &shm,
            slot: stop.slot,
            stop_id: stop.stop_id,
        };
        let budget = self.control().memcheck.budget;
        let run = loop {
            let Entry::Checked(checked) = &*entry else {
                return Ok(GO_ON);
            };
            let failed = match mc::run_checked(at, self, &checked.p, how, budget) {
                Ok(run) if run.words.len() >= HEADER_WORDS => break run,
                Ok(run) => Error::Internal(format!(
                    "the findings block came back with {} words (a header is {HEADER_WORDS})",
                    run.words.len()
                )),
                // The driver refused to link the program with the shared
                // shadow (shared memory too small): once more without it.
                Err(Error::Replay {
                    status: abi::STATUS_LINK_FAILED,
                    log,
                }) if checked.shared && checked.has_shared() => {
                    entry = self.without_shared(&program, stage, key, &log);
                    continue;
                }
                Err(e) => e,
            };
            // The call runs natively, unless an in-place run that failed
            // (reading back) did the app's call already.
            self.memcheck_unchecked(&stop, &checked.p, failed);
            let ran = in_place && mc::call_ran(at);
            return Ok(self.after_run(&stop, ran));
        };
        let Entry::Checked(checked) = &*entry else {
            return Ok(GO_ON);
        };
        let first = self.record_findings(&stop, checked, &run, true);
        match (in_place, first) {
            (true, _) => Ok(self.after_run(&stop, true)),
            (false, None) => Ok(GO_ON),
            (false, Some((finding, invocation))) => {
                let focus = mc::focus_of(&invocation, local_size(&run.words));
                Ok(Next::Stopped(Box::new(self.memcheck_stop(
                    &mut dbg, &stop, &shm, &program, stage, finding, focus,
                ))))
            }
        }
    }

    /// At a stop where armed runs' findings wait (`Stop::memcheck_ran`;
    /// once per stop): each run taken and recorded at the call it ran at
    /// (it was counted as checked by the preload).
    /// (The caller holds the debug lock: the bulk region is its.)
    fn take_armed_runs(&self, stop: &Stop, shm: &SharedMemory) {
        {
            let mut c = self.control();
            if !stop.memcheck_ran || c.memcheck.taken == Some(stop.serial) {
                return;
            }
            c.memcheck.taken = Some(stop.serial);
        }
        let at = At {
            shm,
            slot: stop.slot,
            stop_id: stop.stop_id,
        };
        // Bounded: a preload that never says "none left" cannot hold us.
        for _ in 0..TAKES_MAX {
            match mc::link::take_armed(at) {
                Ok((_, reply)) if reply.cache_key == 0 => return,
                Ok((st, reply)) => self.record_taken(stop, at, st, &reply),
                Err(e) => {
                    self.warn(format!(
                        "memcheck: the findings of checked calls before call {} could not be \
                         read: {e}",
                        stop.call_number
                    ));
                    return;
                }
            }
        }
    }

    /// One taken run (`st`, `reply`): its findings recorded at its call.
    fn record_taken(&self, stop: &Stop, at: At<'_>, st: u32, reply: &abi::MemcheckReply) {
        let ran_at = Stop {
            call_number: reply.call_number,
            function: reply.function,
            ..stop.clone()
        };
        // Two app programs of the same sources share a cache key.
        let ran = |c: &Checked| c.p.cache_key == reply.cache_key && c.p.program == reply.program;
        let entry = self
            .control()
            .memcheck
            .programs
            .values()
            .find(|e| matches!(&***e, Entry::Checked(c) if ran(c)))
            .cloned();
        let Some(Entry::Checked(checked)) = entry.as_deref() else {
            self.warn(format!(
                "memcheck: the findings of the checked call {} belong to no program checked \
                 here (key {:#x})",
                ran_at.call_number, reply.cache_key
            ));
            return;
        };
        match mc::link::read_taken(at, self, &checked.p, st) {
            Ok(run) => {
                self.record_findings(&ran_at, checked, &run, false);
            }
            Err(e) => self.memcheck_unchecked(&ran_at, &checked.p, e),
        }
    }

    /// How the stop is released after its check: skipped where the call
    /// ran in place (remembered: a later `continue` skips it too).
    fn after_run(&self, stop: &Stop, ran: bool) -> Next {
        if !ran {
            return GO_ON;
        }
        self.control().memcheck.ran_at = Some(stop.serial);
        Next::Resume(abi::CMD_SKIP)
    }

    /// A call whose checked run failed: it runs natively; said once per
    /// program and message, and in the report.
    fn memcheck_unchecked(&self, stop: &Stop, p: &MemcheckProgram, e: Error) {
        let note = format!("program {} ({} shader): {e}", p.program, p.stage.name());
        self.control()
            .memcheck
            .findings
            .not_checked
            .insert(note.clone());
        self.warn_once(
            format!("memcheck run {}: {e}", p.cache_key),
            format!(
                "memcheck: not checked from call {} on where this happens (said once; the \
                 calls run as they are): {note}",
                stop.call_number
            ),
        );
    }

    /// The checked program of `program`'s `stage` again without the
    /// shared-memory shadow (the driver refused it: `why`), said in the
    /// report; it replaces the cached one.
    fn without_shared(
        &self,
        program: &recording::CurrentProgram,
        stage: Stage,
        key: u64,
        why: &str,
    ) -> Arc<Entry> {
        let opts = MemcheckOptions { shared: false };
        let entry = Arc::new(self.build_checked(program, stage, key, opts));
        let mut c = self.control();
        let first = why.lines().next().unwrap_or_default();
        c.memcheck.findings.not_checked.insert(format!(
            "program {}: shared memory is not checked for uninitialised reads and races \
             (the program with its shadow did not link: {first})",
            program.text.program
        ));
        c.memcheck.programs.insert(key, entry.clone());
        entry
    }

    /// The checked program of `program`'s `stage`, built once per
    /// (program, sources), and its key.
    fn checked_program(
        &self,
        program: &recording::CurrentProgram,
        stage: Stage,
    ) -> (u64, Arc<Entry>) {
        let key = {
            use std::hash::{Hash, Hasher};
            let mut h = std::collections::hash_map::DefaultHasher::new();
            program.text.program.hash(&mut h);
            stage.name().hash(&mut h);
            for s in &program.stages {
                (s.gl_type, &s.source).hash(&mut h);
            }
            h.finish()
        };
        if let Some(e) = self.control().memcheck.programs.get(&key) {
            return (key, e.clone());
        }
        let entry = Arc::new(self.build_checked(program, stage, key, MemcheckOptions::default()));
        self.control().memcheck.programs.insert(key, entry.clone());
        (key, entry)
    }

    /// Build the checked program (`key`: its cache key); a failure is
    /// said once and in the report.
    fn build_checked(
        &self,
        program: &recording::CurrentProgram,
        stage: Stage,
        key: u64,
        opts: MemcheckOptions,
    ) -> Entry {
        let recording::CurrentProgram { text, stages, note } = program;
        let because = note.as_ref().map_or(String::new(), |n| format!(": {n}"));
        let built = MemcheckProgram::build(text.program, stages, text.api, stage, opts, &because)
            .and_then(|p| {
                let model = crate::shader::stage_model(stages, stage, text.api, &because)?;
                Ok((p, model))
            });
        let (p, model) = match built {
            Ok(b) => b,
            Err(e) => {
                let note = format!("program {} ({} shader): {e}", text.program, stage.name());
                self.control()
                    .memcheck
                    .findings
                    .not_checked
                    .insert(note.clone());
                // One warning per program and sources, never per call.
                self.warn_once(
                    format!("memcheck build {key}"),
                    format!("memcheck: not checked (said once; its calls run as they are): {note}"),
                );
                return Entry::Unchecked;
            }
        };
        {
            let mut c = self.control();
            for n in &p.shader.not_checked {
                c.memcheck
                    .findings
                    .not_checked
                    .insert(format!("program {}: {n}", text.program));
            }
        }
        if p.shader.sites.is_empty() {
            return Entry::Unchecked;
        }
        let object = sources::stage_object(stages, stage, model.source());
        let files = sources::user_files(&self.control());
        let span = files
            .iter()
            .find_map(|f| Some((f, f.span_in(object, model.source())?)));
        let places = p
            .shader
            .sites
            .iter()
            .map(|s| Place {
                line: model.driver_line(s.line),
                column: s.column,
                file: span.and_then(|(f, span)| Some((f.path.clone(), span.file_line(s.line)?))),
            })
            .collect();
        Entry::Checked(Checked {
            places,
            shader_key: key,
            shared: opts.shared,
            p,
        })
    }

    /// The findings of one checked run (counted as a checked call where
    /// `count`), the new ones sent as events; the first finding and its
    /// invocation.
    fn record_findings(
        &self,
        stop: &Stop,
        checked: &Checked,
        run: &MemcheckRun,
        count: bool,
    ) -> Option<(pb::MemcheckFinding, glsl_instrument::memcheck::Invocation)> {
        let p = &checked.p;
        let found = p.shader.decode(&run.words, p.stage);
        let sites = Sites {
            shader: &p.shader,
            places: &checked.places,
            bindings: &run.bindings,
        };
        let call = CallOf {
            call: stop.call_number,
            function: function_name(stop.function),
            stage: p.stage,
            program: p.program,
        };
        let found_here: Vec<pb::MemcheckFinding> =
            found.iter().map(|f| sites.finding(f, call)).collect();
        let (this_call, new) = {
            let mut c = self.control();
            let notes = mc::budget_notes(
                &p.shader,
                p.program,
                &run.caps,
                &run.needed,
                c.memcheck.budget,
            );
            let m = &mut c.memcheck.findings;
            if count {
                m.count_call(run.shadow_bytes, run.gpu_ns);
            }
            m.not_checked.extend(notes);
            m.add_call(checked.shader_key, found_here)
        };
        let first = this_call
            .into_iter()
            .next()
            .zip(found.first().map(|f| f.invocation));
        for f in new {
            self.emit(pb::event::Kind::Memcheck(f));
        }
        first
    }

    /// `memcheck stop`'s stop at a finding: reported as a stop of the app
    /// (with the finding), the stage's shader debugging started and
    /// focused on `focus` (where it cannot start, said, and the app stays
    /// stopped without it).
    #[allow(clippy::too_many_arguments)]
    fn memcheck_stop(
        &self,
        dbg: &mut Option<ShaderDebug>,
        stop: &Stop,
        shm: &SharedMemory,
        program: &recording::CurrentProgram,
        stage: Stage,
        finding: pb::MemcheckFinding,
        focus: crate::shader::reply::Invocation,
    ) -> pb::StateReply {
        self.release_debug(dbg, Some(shm), None);
        let started = self
            .start_debug(stop, shm, program, stage, Default::default())
            .and_then(|mut d| {
                let mut link = ShmLink {
                    reports: self,
                    shm,
                    slot: stop.slot,
                };
                let s = d.set_focus(FocusOn::At(focus), &mut link)?;
                Ok((d, s))
            });
        let shader_stop = match started {
            Ok((d, s)) => {
                *dbg = Some(d);
                Some(s)
            }
            Err(e) => {
                self.warn(format!(
                    "memcheck: the {} shader could not be debugged at this finding: {e}",
                    stage.name()
                ));
                None
            }
        };
        let mut c = self.control();
        c.shader_stop = shader_stop;
        c.memcheck.stopped_at = Some((stop.serial, finding));
        let mut info = None;
        if let Some(s) = c.current.as_mut() {
            // A GL breakpoint's stop here was reported already.
            let internal = s.internal();
            s.source_check = false;
            info = internal.then(|| call_info(s, None));
        }
        let reply = self.state_reply(&c);
        drop(c);
        if let Some(info) = info {
            self.emit(pb::event::Kind::Stopped(info));
        }
        reply
    }
}

/// `gl_WorkGroupSize` from the findings block's header.
fn local_size(words: &[u32]) -> [u32; 3] {
    let w = |i: usize| words.get(i).copied().unwrap_or(1).max(1);
    [w(3), w(4), w(5)]
}
