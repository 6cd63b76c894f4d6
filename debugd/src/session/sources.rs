//! Source breakpoints and the user's files (issue 15): `break FILE:LINE
//! [if COND]`, `tbreak FILE:LINE`, `dprintf FILE:LINE,...`, DAP source
//! breakpoints and log points; `SetSourceFiles`; `ListShaders`.
//!
//! While a source breakpoint exists every draw and dispatch stops
//! (`Stop::source_check`; internally, never reported, unless a GL
//! breakpoint stops there too). `continue` checks
//! the current program's shaders against the breakpoints' files there
//! (`glsl_instrument::source_map`): where a stage holds a breakpoint's
//! file, its shader is debugged at that draw and one hit replay tells
//! whether an invocation reaches the line (meeting the condition, past
//! what is left of the ignore count, which counts executions over all
//! draws). If one does, the stop is reported, focused on the first hit
//! with its trace, with the breakpoint's id and the shader stop; a log
//! point prints its messages and goes on. Otherwise the draw's debugging
//! is released and the app goes on: it never notices.
//!
//! A breakpoint's place is exact (`ShaderModel::file_line_steps`): the
//! steps of its own source line (never other code `#line` numbers the
//! same), or of the next line with steps over lines without code, all
//! active and in the same function. The stop `continue` leaves is checked
//! first when nothing checked it (a breakpoint set at a GL stop on that
//! draw, a step onto it), and a draw a source breakpoint stopped in is
//! checked on (later breakpoints and stages) before it runs. To GetState
//! the internal stops are Running; `pause` during the checks stops at the
//! draw being checked. A fixed-function draw holds no file. Only a
//! condition or log text that compiles nowhere fails a breakpoint for
//! good; a draw that cannot be checked is warned about once and skipped.

use glsl_instrument::source_map::{FileSpan, occurrences};
use glsl_instrument::{HitKind, HitSpec, ShaderModel};

use super::recording::ShaderObject;
use super::*;
use crate::error::{out_of_range, quote};
use crate::shader::UserFile;

/// A source breakpoint or log point (`BreakpointSpec.source`).
#[derive(Clone, Debug, Default)]
pub(super) struct SourceBreak {
    file: String,
    text: String,
    /// The shader object SetSourceFiles names for this file (DAP's
    /// `sourceMap`): it maps that shader line for line, whatever its text.
    shader: Option<u32>,
    /// 1-based line of the file.
    line: u32,
    condition: Option<String>,
    /// The executions to skip as asked, and what draws so far left of it.
    ignore: u64,
    pub(super) ignore_left: u64,
    temporary: bool,
    /// A log point: its format and arguments (no arguments: DAP `{EXPR}` text).
    log: Option<(String, Vec<String>)>,
    verified: bool,
    shaders: Vec<String>,
    message: String,
    /// It failed at a draw (a bad condition or log message): not checked again.
    failed: bool,
}

impl SourceBreak {
    fn from_pb(s: pb::SourceBreakpoint, files: &Files) -> Result<SourceBreak> {
        let file = s.file.trim().to_string();
        if file.is_empty() {
            return Err(Error::InvalidArgument(
                "a source breakpoint needs a file".into(),
            ));
        }
        let text = if s.text.is_empty() {
            files
                .list
                .iter()
                .find(|f| f.path == file && !f.text.is_empty())
                .map(|f| f.text.clone())
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "no text for {}: send the file's text, or register it with SetSourceFiles",
                        quote(&file)
                    ))
                })?
        } else {
            s.text
        };
        let lines = text.lines().count() as u32;
        if s.line == 0 || s.line > lines {
            return Err(out_of_range(
                "line",
                s.line,
                &format!("1..={lines}, the lines of {}", quote(&file)),
            ));
        }
        let condition = Some(s.condition.trim().to_string()).filter(|c| !c.is_empty());
        let log = match (s.log_format.is_empty(), s.log_args.is_empty()) {
            (true, true) => None,
            (true, false) => {
                return Err(Error::InvalidArgument(
                    "log_args without a log_format".into(),
                ));
            }
            _ => Some((s.log_format, s.log_args)),
        };
        if log.is_some() && (condition.is_some() || s.temporary || s.ignore > 0) {
            return Err(Error::InvalidArgument(
                "a log point (dprintf) takes no condition, ignore count or temporary flag".into(),
            ));
        }
        let shader = files
            .list
            .iter()
            .find(|f| f.path == file)
            .and_then(|f| shader_number(&f.shader));
        Ok(SourceBreak {
            file,
            text,
            shader,
            line: s.line,
            condition,
            ignore: s.ignore,
            ignore_left: s.ignore,
            temporary: s.temporary,
            log,
            ..Default::default()
        })
    }

    /// `wave.frag:24 if i == 2`, `dprintf wave.frag:24,"acc=%g",acc`.
    pub(super) fn describe(&self) -> String {
        let place = format!("{}:{}", self.file, self.line);
        match (&self.log, &self.condition) {
            (Some((f, a)), _) if a.is_empty() => format!("dprintf {place},{f:?}"),
            (Some((f, a)), _) => format!("dprintf {place},{f:?},{}", a.join(",")),
            (None, Some(c)) => format!("{place} if {c}"),
            (None, None) => place,
        }
    }

    pub(super) fn to_pb(&self) -> pb::SourceBreakpoint {
        let (log_format, log_args) = self.log.clone().unwrap_or_default();
        pb::SourceBreakpoint {
            file: self.file.clone(),
            text: self.text.clone(),
            line: self.line,
            condition: self.condition.clone().unwrap_or_default(),
            ignore: self.ignore,
            temporary: self.temporary,
            log_format,
            log_args,
            verified: self.verified,
            shaders: self.shaders.clone(),
            message: self.message.clone(),
        }
    }

    /// The reset of a new app: the ignore count from the start.
    pub(super) fn restart(&mut self) {
        self.ignore_left = self.ignore;
        self.failed = false;
    }

    pub(super) fn file_of(&self) -> UserFile {
        self.user_file()
    }

    pub(super) fn file(&self) -> &str {
        &self.file
    }

    pub(super) fn line(&self) -> u32 {
        self.line
    }

    pub(super) fn condition(&self) -> Option<&str> {
        self.condition.as_deref()
    }

    pub(super) fn log(&self) -> Option<&(String, Vec<String>)> {
        self.log.as_ref()
    }

    pub(super) fn is_temporary(&self) -> bool {
        self.temporary
    }

    pub(super) fn is_verified(&self) -> bool {
        self.verified
    }

    pub(super) fn failed(&self) -> bool {
        self.failed
    }

    /// Take `other`'s verification (a check's, made on a copy).
    pub(super) fn set_verification(&mut self, other: &SourceBreak) {
        if !self.failed {
            self.verified = other.verified;
            self.shaders = other.shaders.clone();
            self.message = other.message.clone();
        }
    }

    /// It failed at a draw: not verified, `message` says why.
    pub(super) fn fail(&mut self, message: String) {
        self.failed = true;
        self.verified = false;
        self.message = message;
    }

    fn user_file(&self) -> UserFile {
        UserFile {
            path: self.file.clone(),
            text: self.text.clone(),
            shader: self.shader,
        }
    }

    /// Whether some of `shaders` holds the file with a step on or after
    /// its line; which ones, else why not.
    pub(super) fn verify(&mut self, shaders: &[ShaderObject]) {
        let file = self.user_file();
        let mut found = Vec::new();
        let mut why = None;
        for s in shaders {
            let Some(span) = file.span_in(s.id, &s.source) else {
                continue;
            };
            let Some(stage) = Stage::from_gl_enum(s.gl_type) else {
                continue;
            };
            match ShaderModel::parse(&s.source, stage) {
                Ok(m) if m.file_line_steps(span, self.line).is_some() => {
                    match self.condition_error(&m, span) {
                        None => {
                            let mut d = describe_shader(s.id, stage, &s.programs);
                            let n = self
                                .shader
                                .map_or_else(|| occurrences(&s.source, &self.text), |_| 1);
                            if n > 1 {
                                // Never silently: the first place is the one used.
                                d.push_str(&format!(
                                    " (the file's text is there {n} times: the first, from \
                                     source line {}, is used)",
                                    span.first_line
                                ));
                            }
                            found.push(d)
                        }
                        Some(e) => why = Some(e),
                    }
                }
                Ok(_) => {
                    why = Some(format!(
                        "no shader step on line {} of {} (or on the lines after it with \
                         no code, in the same function and active #if region)",
                        self.line, self.file
                    ))
                }
                Err(e) => why = Some(format!("shader {} does not parse: {e}", s.id)),
            }
        }
        self.verified = !found.is_empty();
        self.shaders = found;
        self.message = match (self.verified, why) {
            (true, _) => String::new(),
            (false, Some(why)) => why,
            (false, None) => format!("no shader seen so far holds {}", self.file),
        };
    }
}

impl SourceBreak {
    /// Why the condition cannot be evaluated at the line's steps in `m`
    /// (it does not parse, has a side effect, names what is not there).
    fn condition_error(&self, m: &ShaderModel, span: FileSpan) -> Option<String> {
        let cond = self.condition.as_deref()?;
        let (_, steps) = m.file_line_steps(span, self.line)?;
        let spec = HitSpec {
            kind: HitKind::Condition {
                steps: &steps,
                cond: Some(cond),
            },
            after: 0,
            skip: 0,
        };
        match m.instrument_hits(&spec) {
            Ok(_) => None,
            // A shader the hit replay cannot serve says so at its draw.
            Err(glsl_instrument::InstrumentError::Unsupported(_)) => None,
            Err(e) => Some(format!("the condition `{cond}`: {e}")),
        }
    }
}

/// "shader 5 fragment, program 3".
fn describe_shader(id: u32, stage: Stage, programs: &[u32]) -> String {
    let mut s = format!("shader {id} {}", stage.name());
    if !programs.is_empty() {
        let p: Vec<String> = programs.iter().map(u32::to_string).collect();
        s.push_str(&format!(
            ", program{} {}",
            if p.len() == 1 { "" } else { "s" },
            p.join(" ")
        ));
    }
    s
}

/// The user's files given with `SetSourceFiles`.
#[derive(Default)]
pub(super) struct Files {
    list: Vec<pb::SourceFile>,
    /// The app (launch id) and recordings' generation the breakpoints
    /// were last verified at (a new app verifies again).
    pub(super) verified_at: Option<(u64, u64)>,
    /// The serial of the last stop the source breakpoints were checked at
    /// (`continue` checks the stop it leaves first when it was not).
    pub(super) checked: Option<u64>,
    /// Where a source breakpoint stopped in a draw's check: (the stop's
    /// serial, pass, breakpoint id); `continue` finishes that check first.
    pub(super) resume: Option<(u64, usize, u32)>,
    /// `pause` came while `continue` checks draws: its loop stops at the
    /// next one it checks.
    pub(super) pause_requested: bool,
    /// The stop (serial) where a source check dropped a stage's debug
    /// keeping its GL objects: released when that check ends.
    pub(super) gl_made: Option<u64>,
    /// The keys of the warnings said once (`warn_once`).
    pub(super) warned: std::collections::HashSet<(u64, String)>,
}

/// "shader 5" → 5.
fn shader_number(name: &str) -> Option<u32> {
    name.trim().strip_prefix("shader")?.trim().parse().ok()
}

/// The files shaders are mapped to: the source breakpoints' (the text
/// they were set with), then those of `SetSourceFiles`.
pub(super) fn user_files(c: &Control) -> Vec<UserFile> {
    let mut out: Vec<UserFile> = Vec::new();
    for (_, b) in c.breakpoints.sources() {
        if !out.iter().any(|f| f.path == b.file) {
            out.push(b.user_file());
        }
    }
    for f in &c.files.list {
        if !out.iter().any(|o| o.path == f.path) {
            out.push(UserFile {
                path: f.path.clone(),
                text: f.text.clone(),
                shader: shader_number(&f.shader),
            });
        }
    }
    out
}

/// The shader being debugged, if any, mapped to the user's files as they
/// are now (its stop too). Under the debug and control locks.
fn remap(dbg: &mut Option<ShaderDebug>, c: &mut Control) {
    if let Some(d) = dbg.as_mut() {
        d.set_files(d.shader_object(), &user_files(c));
        if let Some(s) = c.shader_stop.as_mut() {
            let now = d.stop();
            s.source = now.source;
        }
    }
}

/// The shader object of `stage` whose source the model is (by its
/// text; else the stage's first object).
pub(super) fn stage_object(stages: &[StageSource], stage: Stage, model_source: &str) -> u32 {
    let mine = || stages.iter().filter(|s| s.gl_type == stage.gl_enum());
    mine()
        .find(|s| s.source == model_source)
        .or_else(|| mine().next())
        .map_or(0, |s| s.id)
}

impl Session {
    /// `BreakpointSpec.source`: a source breakpoint or log point, checked
    /// against the shaders recorded so far (`verified`).
    pub fn add_source_breakpoint(&self, spec: pb::SourceBreakpoint) -> Result<pb::Breakpoint> {
        let (mut b, shaders) = {
            let c = self.control();
            (
                SourceBreak::from_pb(spec, &c.files)?,
                c.programs.every_shader(),
            )
        };
        b.verify(&shaders);
        let mut dbg = self.debug_lock();
        let mut c = self.control();
        let added = c.breakpoints.add_source(b);
        if let Some(l) = &c.launched
            && !c.stepping
        {
            apply_bits(&c, &l.shm);
        }
        remap(&mut dbg, &mut c);
        Ok(added)
    }

    /// `SetSourceFiles`: the user's files, replacing those set before.
    pub fn set_source_files(&self, files: pb::SourceFiles) -> Result<pb::SourceFiles> {
        for f in &files.files {
            if f.path.trim().is_empty() {
                return Err(Error::InvalidArgument("a source file needs a path".into()));
            }
            if !f.shader.trim().is_empty() && shader_number(&f.shader).is_none() {
                return Err(Error::InvalidArgument(format!(
                    "{}: name the shader as `shader N` (gldbg does not record glObjectLabel labels)",
                    quote(&f.shader)
                )));
            }
            if f.text.is_empty() && f.shader.trim().is_empty() {
                return Err(Error::InvalidArgument(format!(
                    "{}: a source file needs its text or a shader",
                    quote(&f.path)
                )));
            }
        }
        let mut dbg = self.debug_lock();
        let mut c = self.control();
        c.files.list = files.files.clone();
        remap(&mut dbg, &mut c);
        Ok(files)
    }

    /// `ListShaders`: every recorded shader object and the file it maps to.
    pub fn list_shaders(&self) -> pb::ShaderSources {
        let c = self.control();
        let files = user_files(&c);
        let shaders = c
            .programs
            .every_shader()
            .into_iter()
            .map(|s| pb::ShaderSource {
                shader: s.id,
                stage: program::stage_name(s.gl_type),
                label: String::new(),
                file: files.iter().find_map(|f| {
                    f.span_in(s.id, &s.source)?;
                    Some(pb::SourceLocation {
                        file: f.path.clone(),
                        line: 1,
                    })
                }),
                text: s.source,
                programs: s.programs,
            })
            .collect();
        pb::ShaderSources { shaders }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(file: &str, text: &str, line: u32) -> pb::SourceBreakpoint {
        pb::SourceBreakpoint {
            file: file.into(),
            text: text.into(),
            line,
            ..Default::default()
        }
    }

    const FILE: &str = "out vec4 c;\nvoid main() {\n    c = vec4(1.0);\n}\n";

    #[test]
    fn bad_source_breakpoints_say_why() {
        let files = Files::default();
        let e = |s| SourceBreak::from_pb(s, &files).unwrap_err().to_string();
        assert!(e(spec(" ", FILE, 1)).contains("needs a file"));
        assert!(e(spec("a.frag", FILE, 0)).contains("1..=4, the lines of a.frag"));
        assert!(e(spec("a.frag", FILE, 5)).contains("out of range"));
        assert!(e(spec("a.frag", "", 1)).contains("no text for a.frag"));
        let mut s = spec("a.frag", FILE, 2);
        s.log_args = vec!["x".into()];
        assert!(e(s.clone()).contains("log_args without a log_format"));
        s.log_format = "x=%f".into();
        s.condition = "x > 0".into();
        assert!(e(s).contains("takes no condition"));
    }

    #[test]
    fn registered_files_give_the_text_and_breakpoints_describe_themselves() {
        let files = Files {
            list: vec![pb::SourceFile {
                path: "a.frag".into(),
                text: FILE.into(),
                shader: String::new(),
            }],
            ..Default::default()
        };
        let mut s = spec("a.frag", "", 2);
        s.condition = " x > 0 ".into();
        let b = SourceBreak::from_pb(s, &files).unwrap();
        assert_eq!(b.text, FILE);
        assert_eq!(b.describe(), "a.frag:2 if x > 0");
        let mut s = spec("a.frag", FILE, 2);
        s.log_format = "v={v}".into();
        let b = SourceBreak::from_pb(s, &files).unwrap();
        assert_eq!(b.describe(), "dprintf a.frag:2,\"v={v}\"");
        assert_eq!(shader_number("shader 12"), Some(12));
        assert_eq!(shader_number("my label"), None);
    }

    #[test]
    fn verification_finds_the_file_and_a_step_on_or_after_the_line() {
        let shaders = vec![ShaderObject {
            id: 7,
            gl_type: Stage::Fragment.gl_enum(),
            source: format!("#version 330 core\n{FILE}"),
            programs: vec![3],
        }];
        // A declaration holds none (the search never crosses code).
        let mut b = SourceBreak::from_pb(spec("a.frag", FILE, 1), &Files::default()).unwrap();
        b.verify(&shaders);
        assert!(
            !b.verified && b.message.contains("no shader step on line 1"),
            "{b:?}"
        );
        let mut b = SourceBreak::from_pb(spec("a.frag", FILE, 2), &Files::default()).unwrap();
        b.verify(&shaders);
        // Line 2, main's header, has no step: line 3's is used.
        assert!(b.verified, "{b:?}");
        assert_eq!(b.shaders, vec!["shader 7 fragment, program 3".to_string()]);
        let other = "out vec4 c;\nvoid main() {\n    c = vec4(0.0);\n}\n";
        let mut b = SourceBreak::from_pb(spec("b.frag", other, 2), &Files::default()).unwrap();
        b.verify(&shaders);
        assert!(!b.verified && b.message.contains("no shader seen so far holds b.frag"));
        // Twice in one shader: said, the first place used.
        let twice = vec![ShaderObject {
            id: 7,
            gl_type: Stage::Fragment.gl_enum(),
            source: format!("#version 330 core\n{FILE}{FILE}"),
            programs: vec![3],
        }];
        let mut b = SourceBreak::from_pb(spec("a.frag", FILE, 3), &Files::default()).unwrap();
        b.verify(&twice);
        assert!(b.verified, "{b:?}");
        assert!(
            b.shaders[0].ends_with(
                "(the file's text is there 2 times: the first, from source line 2, is used)"
            ),
            "{b:?}"
        );
        let mut s = spec("a.frag", FILE, 3);
        s.condition = "nosuch > 1.0".into();
        let mut b = SourceBreak::from_pb(s, &Files::default()).unwrap();
        b.verify(&shaders);
        assert!(!b.verified && b.message.contains("nosuch"), "{b:?}");
    }
}
