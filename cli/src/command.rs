//! The command language of CLI.md, parsed into [`Command`].
//!
//! Parsing knows nothing about the session: `break 14` is a [`BreakTarget::Line`]
//! whether or not a shader is being debugged; the executor decides what it means
//! (and rejects it outside shader mode).

use std::fmt;
use std::path::PathBuf;

/// One parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// `continue` / `c`
    Continue,
    /// `step` / `s` [N]
    Step(u64),
    /// `next` / `n` [N]
    Next(u64),
    /// `finish`
    Finish,
    /// `break ...` / `b ...`
    Break(BreakTarget),
    /// `info breakpoints`
    InfoBreakpoints,
    /// `delete [ID]` (a shader line in shader mode); `None`: all.
    Delete(Option<u32>),
    /// `info call` / `where` / `bt`
    InfoCall,
    /// `skip`
    Skip,
    /// `set arg I VALUE`, or `set arg I[K] VALUE` (element K of the array argument I points at)
    SetArg {
        index: u32,
        element: Option<u32>,
        value: String,
    },
    /// `info state [NAME]`
    InfoState(Option<String>),
    /// `pause` (also Ctrl-C in the REPL while the app runs)
    Pause,
    /// `info program`
    InfoProgram,
    /// `debug STAGE [OPTION...]` (options: fragment only)
    Debug(Stage, FragmentOptions),
    /// `list [LINE]`; `None`: around the current step.
    List(Option<u32>),
    /// `print EXPR [@ ...]` / `p`
    Print { expr: String, at: Option<At> },
    /// `dump EXPR FILE.png|FILE.npy [range=LO,HI] [colormap=viridis]`
    Dump {
        expr: String,
        file: PathBuf,
        format: DumpFormat,
        options: DumpOptions,
    },
    /// `display EXPR`: print EXPR after every shader step.
    Display(String),
    /// `undisplay [EXPR]` (none: all)
    Undisplay(Option<String>),
    /// `watch EXPR`: stop where the focused invocation's value changes.
    Watch(String),
    /// `unwatch [EXPR]` (none: all)
    Unwatch(Option<String>),
    /// `focus X,Y | vertex N | primitive N | invocation X,Y,Z`; `None` (`focus off`): follow all.
    Focus(Option<At>),
    /// `info flow [FILE.png]`: branch / loop statistics at the current step.
    InfoFlow(Option<PathBuf>),
    /// `end`
    End,
    /// `detach`
    Detach,
    /// `kill`
    Kill,
    /// `quit` / `q`
    Quit,
    /// `help [CMD]`: every command, or the entries of CMD (e.g. `break`, `info flow`).
    Help(Option<String>),
    /// `reverse-step` / `rs` [N], `reverse-next` / `rn` [N], `reverse-finish`,
    /// `reverse-continue` / `rc`: the focused invocation's traced run, backwards.
    Reverse(Reverse),
    /// `info locals` (false) / `info args` (true).
    InfoLocals { args: bool },
    /// `backtrace` / `bt` (shader mode; else `info call`).
    Backtrace,
    /// `frame [N]`, `up [N]`, `down [N]`.
    Frame(FrameMove),
    /// `set trace-records N`, `set trace-bytes N`.
    SetTraceBudget { records: u64, bytes: u64 },
    /// `break LINE if COND`, `tbreak LINE [if COND]` (shader mode).
    ShaderBreak {
        line: u32,
        condition: Option<String>,
        temporary: bool,
    },
    /// `condition LINE [COND]` (none: unconditional again).
    Condition {
        line: u32,
        condition: Option<String>,
    },
    /// `ignore LINE N`.
    Ignore { line: u32, count: u32 },
    /// `catch nan|inf [off]`.
    Catch { nan: bool, inf: bool, off: bool },
    /// `history X,Y ...` (pixel history to the frame's end).
    History(history::HistoryArgs),
    /// `debug history K`.
    DebugHistory(u32),
    /// `info sources`: the focused invocation's texture reads.
    InfoSources,
    /// `dprintf LINE,"FORMAT",ARG...`.
    Dprintf {
        line: u32,
        format: String,
        args: Vec<String>,
    },
    /// `break FILE:LINE [if COND]`, `tbreak FILE:LINE [if COND]`,
    /// `dprintf FILE:LINE,"FORMAT",ARG...` (`log`): a source breakpoint in
    /// the user's shader file, pending until a draw's shader has it.
    SourceBreak {
        file: String,
        line: u32,
        condition: Option<String>,
        temporary: bool,
        log: Option<(String, Vec<String>)>,
    },
    /// `memcheck on|off|stop`, `memcheck` (None: the report).
    Memcheck(Option<MemcheckSet>),
}

pub use history::HistoryArgs;
pub use memcheck::MemcheckSet;
pub use trace::{FrameMove, Reverse};

/// What a `break` stops at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BreakTarget {
    /// A GL/GLX/EGL function by name.
    Function(String),
    /// Any draw call.
    Draw,
    /// The N-th draw call (1-based).
    DrawNumber(u64),
    ShaderSwitch,
    Frame,
    GlError,
    /// A shader source line (shader mode only).
    Line(u32),
}

/// The invocation a `print` looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum At {
    /// Window coordinates, origin bottom-left.
    Pixel {
        x: u32,
        y: u32,
    },
    Vertex(u32),
    Primitive(u32),
    Invocation {
        x: u32,
        y: u32,
        z: u32,
    },
}

/// `debug fragment` options: `depth=`, `stencil=` (copy, clear, off) and
/// `alpha-test=` (on, off). Blending never applies to the debug outputs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FragmentOptions {
    pub depth: BufferMode,
    pub stencil: BufferMode,
    pub alpha_test_off: bool,
}

/// What a fragment step's depth or stencil buffer holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BufferMode {
    /// A copy of the app's buffer; the test runs as the app set it.
    #[default]
    Copy,
    /// Cleared (depth 1.0, stencil 0); the test runs as the app set it.
    Clear,
    /// The test is off: every fragment passes it.
    Off,
}

impl FragmentOptions {
    /// Parse `KEY=VALUE` words after `debug fragment`.
    fn parse(words: &[&str]) -> Result<FragmentOptions, ParseError> {
        let mut o = FragmentOptions::default();
        for word in words {
            let word = q(word);
            let mode = |v: &str| match v {
                "copy" => Ok(BufferMode::Copy),
                "clear" => Ok(BufferMode::Clear),
                "off" => Ok(BufferMode::Off),
                _ => err(format!("debug: `{word}`: use copy, clear or off")),
            };
            match word.split_once('=') {
                Some(("depth", v)) => o.depth = mode(v)?,
                Some(("stencil", v)) => o.stencil = mode(v)?,
                Some(("alpha-test", "off")) => o.alpha_test_off = true,
                Some(("alpha-test", "on")) => o.alpha_test_off = false,
                Some(("alpha-test", _)) => return err(format!("debug: `{word}`: use on or off")),
                _ => {
                    return err(format!(
                        "debug: unknown option `{word}` (depth=copy|clear|off, \
                         stencil=copy|clear|off, alpha-test=on|off)"
                    ));
                }
            }
        }
        Ok(o)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DumpFormat {
    Png,
    Npy,
}

/// How a PNG dump maps values onto colours: `range=LO,HI` (a fixed range
/// instead of the values' min..max), `colormap=viridis` (a scalar through
/// viridis, with a legend bar).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct DumpOptions {
    pub range: Option<(f64, f64)>,
    pub viridis: bool,
}

/// The parser takes finite numbers only, so `==` is an equivalence.
impl Eq for DumpOptions {}

/// A shader stage; its wire and command-line name is `Stage::name`.
pub use glsl_instrument::Stage;

/// A stage as typed: the wire name, glslang's name (`vert`, `tesc`, `tese`,
/// `geom`, `frag`, `comp`) or a short alias (`vs`, `fs`, ...).
pub fn parse_stage(word: &str) -> Option<Stage> {
    let name = match word {
        "vert" | "vs" => "vertex",
        "tesc" | "tcs" => "tess-control",
        "tese" | "tes" => "tess-eval",
        "geom" | "gs" => "geometry",
        "frag" | "fs" => "fragment",
        "comp" | "cs" => "compute",
        other => other,
    };
    Stage::from_name(name)
}

impl fmt::Display for At {
    /// The `@` suffix as typed: `10,5`, `vertex 2`, `invocation 1,2,3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Pixel { x, y } => write!(f, "{x},{y}"),
            At::Vertex(n) => write!(f, "vertex {n}"),
            At::Primitive(n) => write!(f, "primitive {n}"),
            At::Invocation { x, y, z } => write!(f, "invocation {x},{y},{z}"),
        }
    }
}

/// A syntax error, with a message meant for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

fn err<T>(msg: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError(msg.into()))
}

/// Command names offered by the REPL's completion.
pub const COMMAND_NAMES: &[&str] = &[
    "backtrace",
    "break",
    "catch",
    "condition",
    "continue",
    "debug",
    "delete",
    "detach",
    "display",
    "dprintf",
    "down",
    "dump",
    "end",
    "finish",
    "focus",
    "frame",
    "help",
    "history",
    "ignore",
    "info",
    "kill",
    "list",
    "memcheck",
    "next",
    "pause",
    "print",
    "quit",
    "reverse-continue",
    "reverse-finish",
    "reverse-next",
    "reverse-step",
    "set",
    "skip",
    "step",
    "tbreak",
    "undisplay",
    "unwatch",
    "up",
    "watch",
    "where",
];

/// Words that may follow a command, for completion.
pub fn subcommands(command: &str) -> &'static [&'static str] {
    match command {
        "info" | "i" => &[
            "args",
            "breakpoints",
            "call",
            "flow",
            "locals",
            "program",
            "state",
        ],
        "focus" => &["vertex", "primitive", "invocation", "off"],
        "debug" => &[
            "vertex",
            "tess-control",
            "tess-eval",
            "geometry",
            "fragment",
            "compute",
            "history",
        ],
        "history" => &["texture"],
        "break" | "b" => &["draw", "shader-switch", "frame", "error"],
        "set" => &["arg", "trace-records", "trace-bytes"],
        "catch" => &["nan", "inf"],
        "memcheck" => &["on", "off", "stop"],
        _ => &[],
    }
}

/// The [`HELP`] entries of `topic` (all with `None`): those with a form
/// (`|`-separated) whose words start with the topic's, e.g. `break` (GL and
/// shader breakpoints), `info flow`, `c`, `kill`.
pub fn help_entries(topic: Option<&str>) -> Vec<(&'static str, &'static str)> {
    let Some(topic) = topic else {
        return HELP.to_vec();
    };
    let want: Vec<&str> = topic.split_whitespace().collect();
    HELP.iter()
        .copied()
        .filter(|(usage, _)| {
            usage.split(" | ").any(|form| {
                let words: Vec<&str> = form.split_whitespace().collect();
                !want.is_empty() && words.starts_with(&want)
            })
        })
        .collect()
}

/// One line of help per command, for `help`.
pub const HELP: &[(&str, &str)] = &[
    (
        "continue | c",
        "run to the next breakpoint, crash or exit (shader: to the next shader breakpoint)",
    ),
    (
        "step | s [N]",
        "execute the current GL call and stop at the next (shader: next step, into calls)",
    ),
    ("next | n [N]", "like step (shader: over calls)"),
    ("finish", "shader: out of the current function"),
    (
        "break FUNC | draw [N] | shader-switch | frame | error",
        "GL breakpoint",
    ),
    ("break LINE", "shader breakpoint at the first step on LINE"),
    (
        "break FILE:LINE [if COND] | tbreak FILE:LINE | dprintf FILE:LINE,\"FORMAT\",ARG...",
        "a pending shader breakpoint in the shader file FILE (read here): stops at the first \
         draw/dispatch whose program has that file and where an invocation reaches LINE (and \
         COND), debugging that stage, focused on the first hit; dprintf: messages at each such \
         draw, never stops",
    ),
    (
        "info breakpoints | delete [ID]",
        "list / remove breakpoints (shader lines in shader mode)",
    ),
    ("info call | where", "the current call with its arguments"),
    ("skip", "do not execute the current call; stop at the next"),
    ("set arg I VALUE", "change argument I of the current call"),
    (
        "set arg I[K] VALUE",
        "change element K of the array argument I points at (in the app's memory)",
    ),
    (
        "info state [NAME]",
        "GL state values (common ones, or one, e.g. GL_VIEWPORT)",
    ),
    ("pause", "stop the running app wherever it is (also Ctrl-C)"),
    (
        "info program",
        "the current program's shaders, uniforms, attributes",
    ),
    (
        "debug vertex|tess-control|tess-eval|geometry|fragment|compute",
        "debug that stage of the current draw (fragment options: depth=copy|clear|off \
         stencil=copy|clear|off alpha-test=on|off; default: copy, tests as the app set them). \
         OpenGL ES: every stage the context has (fragment: float render targets, or in ES 2.0 \
         the values' bits packed into RGBA8 with depth=clear|off; vertex: ES 3.0); a step \
         names what the context lacks",
    ),
    ("list [LINE]", "shader source around the current step"),
    (
        "print | p EXPR [@ X,Y | @ vertex N | @ primitive N | @ invocation X,Y,Z]",
        "value of EXPR at the current step",
    ),
    (
        "dump EXPR FILE.png|FILE.npy [range=LO,HI] [colormap=viridis]",
        "image (or raw floats) of EXPR over all invocations; the PNG maps each component's \
         min..max (said in the result), or LO..HI; viridis: a scalar in a perceptual colormap \
         with a legend bar at the right (top max, bottom min); uncovered: a checkerboard",
    ),
    (
        "display EXPR | undisplay [EXPR]",
        "print EXPR after every shader step",
    ),
    (
        "watch EXPR | unwatch [EXPR]",
        "shader: `continue` (either way) stops where the focused invocation's value of EXPR changes",
    ),
    (
        "reverse-step | rs [N] | reverse-next | rn [N] | reverse-finish | reverse-continue | rc",
        "shader: the focused invocation's recorded run, backwards (to the call; to a breakpoint or \
         watch, else the start)",
    ),
    (
        "break LINE if COND | tbreak LINE [if COND]",
        "shader: stop at the first invocation (earliest in its run) where COND holds at LINE, \
         evaluated in every invocation in one replay; focus it and trace it (tbreak: once)",
    ),
    (
        "condition LINE [COND] | ignore LINE N",
        "shader: change the condition of the breakpoint at LINE / pass its next N hits",
    ),
    (
        "dprintf LINE,\"FORMAT\",ARG...",
        "shader: one replay; a message from every invocation that reaches LINE (C/GLSL printf \
         formats, %vNf vectors), at most 1024 per draw (the rest counted)",
    ),
    (
        "history X,Y [until draw N] | history texture T X,Y [level L] [layer K]",
        "pixel history: run to the frame's end (the next swap, or draw N of the frame) and list \
         every call that wrote the texel of the current draw framebuffer's image (or of texture \
         T): draws with each primitive's fragment (shader output, depth, stencil, which test \
         rejected it, the colour before and after), clears, blits, copies; the app stays \
         stopped where it ended",
    ),
    (
        "memcheck on | memcheck off | memcheck stop | memcheck",
        "check every later dispatch and draw for out-of-bounds accesses, uninitialised reads \
         and races (findings are events, one per kind and line); `stop`: the first finding \
         stops before its call, debugging the shader at its invocation; alone: the report",
    ),
    (
        "info sources",
        "shader: the focused invocation's texture reads: each sampling call it executed, the \
         coordinate, the unit, texture and texel (one replay per call site)",
    ),
    (
        "debug history K",
        "debug the fragment of history entry K: run to the same draw of the next frame and \
         debug its fragment shader focused on the pixel (differences from the history's draw \
         are said)",
    ),
    (
        "catch nan | catch inf [off]",
        "shader: `continue` stops after the first assignment that makes a NaN / Inf in any \
         invocation",
    ),
    (
        "info locals | info args",
        "shader: the focused invocation's locals / arguments in the selected frame, from its trace",
    ),
    (
        "backtrace | bt | frame [N] | up [N] | down [N]",
        "shader: the focused invocation's call stack with argument values; select a frame",
    ),
    (
        "set trace-records N | set trace-bytes N",
        "how much one recording of a trace holds (more is recorded in parts as steps get there)",
    ),
    (
        "focus X,Y | vertex N | primitive N | invocation X,Y,Z | off",
        "follow one invocation: steps take the path it takes",
    ),
    (
        "info flow [FILE.png]",
        "at a branch or loop: invocations per side / per iteration (and a chart)",
    ),
    ("end", "leave shader debugging"),
    (
        "detach | kill | quit",
        "let the app run on / end it / leave",
    ),
];

/// `text` as an error message quotes it: whole when short, else its first
/// 80 characters, `…` and its length (a pasted megabyte is not repeated).
pub fn q(text: &str) -> String {
    gldbg_debugd::error::quote(text)
}

/// A number typed by the user: too large for `T` (whose largest value is
/// `max`) is an error naming the range, never a wrapped value.
fn parse_num<T>(word: &str, what: &str, max: T) -> Result<T, ParseError>
where
    T: std::str::FromStr<Err = std::num::ParseIntError> + fmt::Display,
{
    word.parse().or_else(|e: std::num::ParseIntError| {
        let word = q(word);
        match e.kind() {
            std::num::IntErrorKind::PosOverflow => {
                err(format!("{what}: {word} is out of range (0..={max})"))
            }
            _ => err(format!("{what}: expected a number, got `{word}`")),
        }
    })
}

fn parse_u32(word: &str, what: &str) -> Result<u32, ParseError> {
    parse_num(word, what, u32::MAX)
}

fn parse_u64(word: &str, what: &str) -> Result<u64, ParseError> {
    parse_num(word, what, u64::MAX)
}

/// Optional repeat count of step/next: one word, a positive number.
fn parse_count(name: &str, rest: &[&str]) -> Result<u64, ParseError> {
    match rest {
        [] => Ok(1),
        [n] => match parse_u64(n, name)? {
            0 => err(format!("{name}: the count must be at least 1")),
            n => Ok(n),
        },
        _ => err(format!("usage: {name} [N]")),
    }
}

fn no_args(name: &str, rest: &[&str], cmd: Command) -> Result<Command, ParseError> {
    if rest.is_empty() {
        Ok(cmd)
    } else {
        err(format!("{name} takes no arguments"))
    }
}

/// Parse the comma-separated numbers of an `@` form ("10,5", "10, 5", "10 5").
fn numbers(text: &str, n: usize, what: &str) -> Result<Vec<u32>, ParseError> {
    let parts: Vec<&str> = text
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|s| !s.is_empty())
        .collect();
    if parts.len() != n {
        let text = q(text);
        return err(format!(
            "{what}: expected {n} numbers separated by commas, got `{text}`"
        ));
    }
    parts.iter().map(|p| parse_u32(p, what)).collect()
}

/// Parse an invocation: what follows `@` in `print` (`name`), or `focus`'s argument.
fn parse_at(name: &str, text: &str) -> Result<At, ParseError> {
    let text = text.trim();
    let (word, rest) = split_word(text);
    let single = |what: &str| -> Result<u32, ParseError> {
        let v = numbers(rest, 1, what)?;
        Ok(v[0])
    };
    match word {
        "" => err(format!(
            "{name}: expected an invocation (X,Y | vertex N | primitive N | invocation X,Y,Z)"
        )),
        "vertex" => Ok(At::Vertex(single("@ vertex")?)),
        "primitive" => Ok(At::Primitive(single("@ primitive")?)),
        "invocation" => {
            let v = numbers(rest, 3, "@ invocation")?;
            Ok(At::Invocation {
                x: v[0],
                y: v[1],
                z: v[2],
            })
        }
        "pixel" | "fragment" => {
            let v = numbers(rest, 2, "@ pixel")?;
            Ok(At::Pixel { x: v[0], y: v[1] })
        }
        _ if word.starts_with(|c: char| c.is_ascii_digit()) => {
            let v = numbers(text, 2, "@ X,Y")?;
            Ok(At::Pixel { x: v[0], y: v[1] })
        }
        _ => err(format!(
            "{name}: unknown invocation `{}` (use X,Y | vertex N | primitive N | invocation X,Y,Z)",
            q(text)
        )),
    }
}

fn parse_break(rest: &[&str]) -> Result<Command, ParseError> {
    let target = match rest {
        [] => return err("usage: break FUNC | draw [N] | shader-switch | frame | error | LINE"),
        ["draw"] => BreakTarget::Draw,
        ["draw", n] => match parse_u64(n, "break draw")? {
            0 => return err("break draw: draw calls are counted from 1"),
            n => BreakTarget::DrawNumber(n),
        },
        ["shader-switch"] => BreakTarget::ShaderSwitch,
        ["frame"] => BreakTarget::Frame,
        ["error"] => BreakTarget::GlError,
        [word] if word.contains(':') => {
            let (file, line) = source::parse_location(word, "break")?.expect("a `:`");
            return Ok(Command::SourceBreak {
                file,
                line,
                condition: None,
                temporary: false,
                log: None,
            });
        }
        [word] if word.starts_with(|c: char| c.is_ascii_digit()) => match parse_u32(word, "break")?
        {
            0 => return err("break: source lines are counted from 1"),
            n => BreakTarget::Line(n),
        },
        [word] if word.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
            BreakTarget::Function(word.to_string())
        }
        [word] => {
            return err(format!(
                "break: `{}` is not a function name or a line number",
                q(word)
            ));
        }
        _ => return err("usage: break FUNC | draw [N] | shader-switch | frame | error | LINE"),
    };
    Ok(Command::Break(target))
}

fn parse_print(name: &str, args: &str) -> Result<Command, ParseError> {
    let (expr, at) = match args.rsplit_once('@') {
        Some((expr, at)) => (expr.trim(), Some(parse_at(name, at)?)),
        None => (args.trim(), None),
    };
    if expr.is_empty() {
        return err(format!(
            "usage: {name} EXPR [@ X,Y | @ vertex N | @ primitive N | @ invocation X,Y,Z]"
        ));
    }
    Ok(Command::Print {
        expr: expr.to_string(),
        at,
    })
}

/// `range=LO,HI`: two finite numbers, LO below HI.
fn parse_range(text: &str) -> Result<(f64, f64), ParseError> {
    let value = &q(text);
    let bad = || {
        err(format!(
            "dump: range={value}: expected range=LO,HI, e.g. range=0,1"
        ))
    };
    let Some((lo, hi)) = text.split_once(',') else {
        return bad();
    };
    let (Ok(lo), Ok(hi)) = (lo.trim().parse::<f64>(), hi.trim().parse::<f64>()) else {
        return bad();
    };
    if !(lo.is_finite() && hi.is_finite() && lo < hi) {
        return err(format!(
            "dump: range={value}: LO must be below HI, both finite numbers"
        ));
    }
    Ok((lo, hi))
}

/// The `key=value` options after a dump's file name; returns the text before them.
fn parse_dump_options(args: &str) -> Result<(&str, DumpOptions), ParseError> {
    let mut rest = args.trim();
    let mut options = DumpOptions::default();
    while let Some((head, last)) = rest.rsplit_once(char::is_whitespace) {
        let lower = last.to_ascii_lowercase();
        let Some((key, value)) = last.split_once('=') else {
            break;
        };
        if lower.ends_with(".png") || lower.ends_with(".npy") {
            break; // a file name with '=' in it
        }
        match (key, value) {
            ("range", _) => options.range = Some(parse_range(value)?),
            ("colormap", "viridis") => options.viridis = true,
            ("colormap", "channels") => options.viridis = false,
            ("colormap", _) => {
                let value = q(value);
                return err(format!(
                    "dump: colormap={value}: the colormaps are viridis and channels"
                ));
            }
            _ => {
                let last = q(last);
                return err(format!(
                    "dump: unknown option `{last}` (options: range=LO,HI colormap=viridis)"
                ));
            }
        }
        rest = head.trim_end();
    }
    Ok((rest, options))
}

fn parse_dump(args: &str) -> Result<Command, ParseError> {
    let usage = "usage: dump EXPR FILE.png|FILE.npy [range=LO,HI] [colormap=viridis]";
    let (args, options) = parse_dump_options(args)?;
    let Some((expr, file)) = args.trim().rsplit_once(char::is_whitespace) else {
        return err(usage);
    };
    let expr = expr.trim();
    if expr.is_empty() || file.is_empty() {
        return err(usage);
    }
    let lower = file.to_ascii_lowercase();
    let format = if lower.ends_with(".png") {
        DumpFormat::Png
    } else if lower.ends_with(".npy") {
        DumpFormat::Npy
    } else {
        let file = q(file);
        return err(format!(
            "dump: `{file}`: the file name must end in .png or .npy"
        ));
    };
    if format == DumpFormat::Npy && options != DumpOptions::default() {
        return err("dump: range= and colormap= are for .png files (a .npy file holds the values)");
    }
    Ok(Command::Dump {
        expr: expr.to_string(),
        file: PathBuf::from(file),
        format,
        options,
    })
}

/// The first whitespace-separated word of `text` and the rest, trimmed.
fn split_word(text: &str) -> (&str, &str) {
    let text = text.trim();
    match text.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (text, ""),
    }
}

/// `info SUBJECT`.
fn parse_info(rest: &[&str]) -> Result<Command, ParseError> {
    Ok(match rest {
        ["breakpoints" | "break" | "b" | "breaks"] => Command::InfoBreakpoints,
        ["call"] => Command::InfoCall,
        ["program" | "prog"] => Command::InfoProgram,
        ["state"] => Command::InfoState(None),
        ["state", name] => Command::InfoState(Some(name.to_string())),
        ["flow"] => Command::InfoFlow(None),
        ["flow", file] if file.to_ascii_lowercase().ends_with(".png") => {
            Command::InfoFlow(Some(PathBuf::from(file)))
        }
        ["flow", ..] => return err("usage: info flow [FILE.png]"),
        ["locals"] => Command::InfoLocals { args: false },
        ["args"] => Command::InfoLocals { args: true },
        ["sources"] => Command::InfoSources,
        [] => {
            return err(
                "usage: info args | breakpoints | call | flow | locals | program | sources | state [NAME]",
            );
        }
        [what, ..] => {
            let what = q(what);
            return err(format!(
                "info: unknown subject `{what}` (args, breakpoints, call, flow, locals, program, sources, state)"
            ));
        }
    })
}

/// `set arg I VALUE`, `set arg I[K] VALUE` (`args`: all after `set`, as typed).
fn parse_set(args: &str, rest: &[&str]) -> Result<Command, ParseError> {
    Ok(match rest {
        ["arg", index, _, ..] => {
            let (index, element) = match index.split_once('[') {
                Some((i, k)) => {
                    let Some(k) = k.strip_suffix(']') else {
                        return err("usage: set arg I[K] VALUE");
                    };
                    (
                        parse_u32(i, "set arg")?,
                        Some(parse_u32(k, "set arg I[K]")?),
                    )
                }
                None => (parse_u32(index, "set arg")?, None),
            };
            // The value is everything after the index, as typed.
            let (_, after_arg) = split_word(args);
            let (_, value) = split_word(after_arg);
            Command::SetArg {
                index,
                element,
                value: value.to_string(),
            }
        }
        _ => return err("usage: set arg I VALUE | set arg I[K] VALUE"),
    })
}

/// `debug STAGE [fragment options]`.
fn parse_debug(rest: &[&str]) -> Result<Command, ParseError> {
    Ok(match rest {
        ["history", k @ ..] => history::parse_debug_history(k)?,
        [stage, options @ ..] => match parse_stage(stage) {
            Some(Stage::Fragment) => {
                Command::Debug(Stage::Fragment, FragmentOptions::parse(options)?)
            }
            Some(_) if !options.is_empty() => {
                return err(format!(
                    "debug: `{}`: depth, stencil and alpha-test options are for `debug fragment`",
                    q(&options.join(" "))
                ));
            }
            Some(stage) => Command::Debug(stage, FragmentOptions::default()),
            None => {
                let stage = q(stage);
                return err(format!(
                    "debug: unknown stage `{stage}` (vertex, tess-control, tess-eval, geometry, fragment, compute)"
                ));
            }
        },
        _ => {
            return err(
                "usage: debug vertex|tess-control|tess-eval|geometry|fragment|compute \
                 (fragment: [depth=copy|clear|off] [stencil=copy|clear|off] [alpha-test=on|off])",
            );
        }
    })
}

/// `help [TOPIC]`.
fn parse_help(args: &str) -> Result<Command, ParseError> {
    Ok(match args.trim() {
        "" => Command::Help(None),
        topic => {
            if help_entries(Some(topic)).is_empty() {
                let topic = q(topic);
                return err(format!(
                    "help: no command `{topic}` (`help` lists them all)"
                ));
            }
            Command::Help(Some(topic.split_whitespace().collect::<Vec<_>>().join(" ")))
        }
    })
}

/// Parse one command line. `Ok(None)` for blank lines and `#` comments.
pub fn parse(line: &str) -> Result<Option<Command>, ParseError> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let (name, args) = split_word(line);
    let rest: Vec<&str> = args.split_whitespace().collect();
    let cmd = match name {
        "continue" | "c" | "cont" => no_args(name, &rest, Command::Continue)?,
        "step" | "s" => Command::Step(parse_count(name, &rest)?),
        "next" | "n" => Command::Next(parse_count(name, &rest)?),
        "finish" | "fin" => no_args(name, &rest, Command::Finish)?,
        "break" | "b" | "br" if args.contains(" if ") => trace::parse_break_if(args, false)?,
        "tbreak" => trace::parse_break_if(args, true)?,
        "condition" => trace::parse_condition(args)?,
        "ignore" => trace::parse_ignore(&rest)?,
        "catch" => trace::parse_catch(&rest)?,
        "dprintf" => trace::parse_dprintf(args)?,
        "history" => history::parse_history(&rest)?,
        "memcheck" => memcheck::parse_memcheck(&rest)?,
        "break" | "b" | "br" => parse_break(&rest)?,
        "delete" | "d" => match rest.as_slice() {
            [] => Command::Delete(None),
            [id] => Command::Delete(Some(parse_u32(id, "delete")?)),
            _ => return err("usage: delete [ID]"),
        },
        "where" => no_args(name, &rest, Command::InfoCall)?,
        "bt" | "backtrace" => no_args(name, &rest, Command::Backtrace)?,
        "reverse-step" | "rs" | "reverse-next" | "rn" | "reverse-finish" | "reverse-continue"
        | "rc" => trace::parse_reverse(name, &rest)?,
        "frame" | "f" | "up" | "down" => trace::parse_frame(name, &rest)?,
        "info" | "i" => parse_info(&rest)?,
        "skip" => no_args(name, &rest, Command::Skip)?,
        "pause" => no_args(name, &rest, Command::Pause)?,
        "set" => match rest.first() {
            Some(w) if w.starts_with("trace-") => trace::parse_set_trace(&rest)?,
            _ => parse_set(args, &rest)?,
        },
        "watch" | "display" if args.is_empty() => return err(format!("usage: {name} EXPR")),
        "watch" => Command::Watch(args.to_string()),
        "unwatch" => Command::Unwatch(Some(args).filter(|a| !a.is_empty()).map(str::to_string)),
        "display" => Command::Display(args.to_string()),
        "undisplay" => Command::Undisplay(Some(args).filter(|a| !a.is_empty()).map(str::to_string)),
        "focus" => match args {
            "" => return err("usage: focus X,Y | vertex N | primitive N | invocation X,Y,Z | off"),
            "off" | "none" | "all" => Command::Focus(None),
            at => Command::Focus(Some(parse_at("focus", at)?)),
        },
        "debug" => parse_debug(&rest)?,
        "list" | "l" => match rest.as_slice() {
            [] => Command::List(None),
            [line] => match parse_u32(line, "list")? {
                0 => return err("list: source lines are counted from 1"),
                n => Command::List(Some(n)),
            },
            _ => return err("usage: list [LINE]"),
        },
        "print" | "p" | "inspect" => parse_print(name, args)?,
        "dump" => parse_dump(args)?,
        "end" => no_args(name, &rest, Command::End)?,
        "detach" => no_args(name, &rest, Command::Detach)?,
        "kill" | "k" => no_args(name, &rest, Command::Kill)?,
        "quit" | "q" | "exit" => no_args(name, &rest, Command::Quit)?,
        "help" | "h" | "?" => parse_help(args)?,
        _ => return err(format!("unknown command `{}` (try `help`)", q(name))),
    };
    Ok(Some(cmd))
}

mod history;
mod memcheck;
mod source;
#[cfg(test)]
mod tests;
mod trace;
