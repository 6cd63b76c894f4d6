//! The piglit corpus of gldbg: every GLSL shader of piglit's `.shader_test`
//! files and of its glslparsertest files, read the way piglit's own runners
//! read them, and the checks glsl-instrument must pass on them (parse,
//! equivalence on the driver, throughput). The `gldbg-corpus` binary is the
//! front; the functions here are shared with its test target.
//!
//! Corpus rules:
//! * `.shader_test`: sections `[vertex shader]`, `[vertex shader
//!   passthrough]` (shader_runner's built-in pass-through source),
//!   `[tessellation control shader]`, `[tessellation evaluation shader]`,
//!   `[geometry shader]`, `[fragment shader]`, `[compute shader]`; a section
//!   ends at the next line starting with `[` (as in shader_runner). A shader
//!   whose text has no `#version` directive gets `#version N[ es]` from the
//!   test's `[require]` line `GLSL >= X.YZ` / `GLSL ES >= X.YZ` prepended,
//!   as shader_runner does (its exact rule: [`runner_source`]). Tests whose `[test]` section expects a `link
//!   error` are excluded (their shaders may be invalid on purpose) and
//!   counted apart.
//! * glslparsertest files (`.vert .frag .geom .tesc .tese .comp` with a
//!   `[config]` block): only `expect_result: pass`; the version rule uses
//!   `glsl_version`.
//! * Shaders are deduplicated by (stage, final source).
//!
//! Checks (every probe is `Semantics::Equivalent`, built by [`probe`]):
//! * compile ([`run_compile`]): a per-stage sample ([`Corpus::per_stage`]),
//!   each shader that compiles originally instrumented at up to 50 evenly
//!   spread steps (coverage, plus a value probe at every few), each result
//!   compiled by Mesa ([`driver`]);
//! * equivalence ([`equiv`]): every hand-written `.shader_test` that passes
//!   under shader_runner, each shader swapped in turn for instrumented
//!   versions, must still pass.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::Instant;

use glsl_instrument::{Api, Includes, Position, Probe, ShaderModel, Stage};

pub mod driver;
pub mod equiv;
pub mod gl_run;

/// Where Debian's piglit package installs its tests (`dpkg -L piglit`).
pub const DEFAULT_PIGLIT: &str = "/usr/lib/x86_64-linux-gnu/piglit";

/// The piglit directory: `$GLDBG_PIGLIT_DIR` or [`DEFAULT_PIGLIT`].
pub fn piglit_dir() -> PathBuf {
    std::env::var_os("GLDBG_PIGLIT_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(DEFAULT_PIGLIT))
}

pub const STAGES: [Stage; 6] = [
    Stage::Vertex,
    Stage::TessControl,
    Stage::TessEval,
    Stage::Geometry,
    Stage::Fragment,
    Stage::Compute,
];

/// shader_runner's `[vertex shader passthrough]` source.
pub const PASSTHROUGH_VS: &str = "#if __VERSION__ >= 130\nin vec4 piglit_vertex;\n#else\nattribute vec4 piglit_vertex;\n#endif\nvoid main() { gl_Position = piglit_vertex; }\n";

/// A `GLSL >= X.YZ` requirement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GlslVersion {
    /// e.g. 150, 300.
    pub num: u32,
    pub es: bool,
}

impl GlslVersion {
    /// `"1.50"`, `"4.0"`, `"3.00 es"`, `"1.00"` (ES) → version.
    pub fn parse(text: &str, es: bool) -> Option<GlslVersion> {
        let mut words = text.split_whitespace();
        let v = words.next()?;
        let es = es || words.next().is_some_and(|w| w.eq_ignore_ascii_case("es"));
        let (major, minor) = v.split_once('.').unwrap_or((v, "0"));
        let major: u32 = major.parse().ok()?;
        let minor_num: u32 = minor.parse().ok()?;
        let minor = if minor.len() == 1 {
            minor_num * 10
        } else {
            minor_num
        };
        let num = major * 100 + minor;
        // GLSL 1.00, 3.00, 3.10 and 3.20 exist only as GLSL ES.
        Some(GlslVersion {
            num,
            es: es || matches!(num, 100 | 300 | 310 | 320),
        })
    }

    /// The directive shader_runner prepends.
    pub fn directive(self) -> String {
        if self.es && self.num != 100 {
            format!("#version {} es\n", self.num)
        } else {
            format!("#version {}\n", self.num)
        }
    }
}

/// Whether `src` has a `#version` directive (at a line start).
pub fn has_version(src: &str) -> bool {
    src.lines().any(|l| {
        l.trim_start()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("version"))
    })
}

/// The version rule: no `#version` → the requirement's directive first.
pub fn apply_version(src: &str, req: Option<GlslVersion>) -> String {
    match req {
        Some(v) if v.num != 0 && !has_version(src) => format!("{}{src}", v.directive()),
        _ => src.to_string(),
    }
}

/// The source shader_runner compiles for `section` of the test `text`:
/// it prepends the `[require]` version unless `"#version "` occurs
/// anywhere from the section's start to the end of the file (piglit runs
/// `strstr` on its whole remaining buffer, so a later shader's `#version`
/// counts too; the shader then compiles as GLSL 1.10).
pub fn runner_source(text: &str, section: &Section, require: Option<GlslVersion>) -> String {
    let follows = !section.passthrough && text[section.body.start..].contains("#version ");
    match require {
        Some(v) if v.num != 0 && !follows => format!("{}{}", v.directive(), section.raw),
        _ => section.raw.clone(),
    }
}

/// The stage of a section header (`[fragment shader]` ...), if it is a GLSL shader.
pub fn section_stage(header: &str) -> Option<(Stage, bool)> {
    let h = header.trim();
    let name = h.strip_prefix('[')?.strip_suffix(']')?.trim();
    let (stage_name, rest) = [
        ("vertex shader", Stage::Vertex),
        ("tessellation control shader", Stage::TessControl),
        ("tessellation evaluation shader", Stage::TessEval),
        ("geometry shader", Stage::Geometry),
        ("fragment shader", Stage::Fragment),
        ("compute shader", Stage::Compute),
    ]
    .into_iter()
    .find_map(|(n, s)| name.strip_prefix(n).map(|r| ((n, s), r.trim())))?;
    let _ = stage_name.0;
    match rest {
        "" => Some((stage_name.1, false)),
        "passthrough" if stage_name.1 == Stage::Vertex => Some((Stage::Vertex, true)),
        // "spirv", "specializations", "file", ...: not GLSL source here.
        _ => None,
    }
}

/// One shader section of a `.shader_test`.
#[derive(Clone, Debug)]
pub struct Section {
    pub stage: Stage,
    /// The text as written (or the pass-through source).
    pub raw: String,
    /// 1-based line of the section header in the test file.
    pub header_line: usize,
    /// Byte range of the section body in the test file (empty for pass-through).
    pub body: std::ops::Range<usize>,
    pub passthrough: bool,
}

/// What a `.shader_test` file holds.
#[derive(Clone, Debug)]
pub struct ShaderTest {
    pub require: Option<GlslVersion>,
    pub sections: Vec<Section>,
    /// The `[test]` section expects a link (or compile) error.
    pub expects_error: bool,
    /// `[require]` names extensions or other requirements (kept for reports).
    pub require_lines: Vec<String>,
    /// `[shader include]` named strings (first line the name) and
    /// `[shader include paths]` (ARB_shading_language_include).
    pub includes: Includes,
}

impl ShaderTest {
    pub fn parse(text: &str) -> ShaderTest {
        let mut t = ShaderTest {
            require: None,
            sections: Vec::new(),
            expects_error: false,
            require_lines: Vec::new(),
            includes: Includes::default(),
        };
        #[derive(PartialEq)]
        enum In {
            Other,
            Require,
            Shader,
            Test,
            Include,
            IncludePaths,
        }
        // The named string being read: name, text.
        let mut include: Option<(String, String)> = None;
        let mut state = In::Other;
        let mut offset = 0;
        for (i, line) in text.split_inclusive('\n').enumerate() {
            let start = offset;
            offset += line.len();
            if line.starts_with('[') {
                if let Some((name, text)) = include.take() {
                    t.includes.strings.insert(name, text);
                }
                if let Some(last) = t.sections.last_mut()
                    && state == In::Shader
                {
                    last.body.end = start;
                    last.raw = text[last.body.clone()].to_string();
                }
                state = In::Other;
                let header = line.trim();
                if header == "[require]" {
                    state = In::Require;
                } else if header == "[test]" {
                    state = In::Test;
                } else if header == "[shader include]" {
                    state = In::Include;
                } else if header == "[shader include paths]" {
                    state = In::IncludePaths;
                } else if let Some((stage, passthrough)) = section_stage(header) {
                    t.sections.push(Section {
                        stage,
                        raw: if passthrough {
                            PASSTHROUGH_VS.to_string()
                        } else {
                            String::new()
                        },
                        header_line: i + 1,
                        body: offset..offset,
                        passthrough,
                    });
                    if !passthrough {
                        state = In::Shader;
                    }
                }
                continue;
            }
            match state {
                In::Require => {
                    let l = line.trim();
                    if l.is_empty() || l.starts_with('#') {
                        continue;
                    }
                    t.require_lines.push(l.to_string());
                    let (es, rest) = if let Some(r) = l.strip_prefix("GLSL ES") {
                        (true, r)
                    } else if let Some(r) = l.strip_prefix("GLSL") {
                        (false, r)
                    } else {
                        continue;
                    };
                    let rest = rest.trim_start();
                    let rest = rest
                        .strip_prefix(">=")
                        .or_else(|| rest.strip_prefix('>'))
                        .or_else(|| rest.strip_prefix("=="))
                        .unwrap_or(rest);
                    if let Some(v) = GlslVersion::parse(rest, es) {
                        t.require = Some(v);
                    }
                }
                In::Test => {
                    let l = line.trim_start();
                    if !l.starts_with('#') && l.contains("link error") {
                        t.expects_error = true;
                    }
                }
                In::Include => match &mut include {
                    Some((_, text)) => text.push_str(line),
                    None if !line.trim().is_empty() => {
                        include = Some((line.trim().to_string(), String::new()));
                    }
                    None => {}
                },
                In::IncludePaths if !line.trim().is_empty() => {
                    t.includes.search_paths.push(line.trim().to_string());
                }
                _ => {}
            }
        }
        if let Some((name, text)) = include.take() {
            t.includes.strings.insert(name, text);
        }
        if let Some(last) = t.sections.last_mut()
            && state == In::Shader
        {
            last.body.end = text.len();
            last.raw = text[last.body.clone()].to_string();
        }
        t
    }
}

/// The `[config]` block of a glslparsertest file.
#[derive(Clone, Debug, Default)]
pub struct ParserTestConfig {
    pub expect_pass: bool,
    pub glsl_version: Option<GlslVersion>,
    pub extensions: Vec<String>,
    /// `dummy_shader_include: True` (glslparsertest names an empty string
    /// `/dummy/path_to/shader_include`) and `shader_include_path`.
    pub includes: Includes,
}

impl ParserTestConfig {
    pub fn parse(text: &str) -> Option<ParserTestConfig> {
        let start = text.find("[config]")?;
        let end = text[start..]
            .find("[end config]")
            .map_or(text.len(), |e| start + e);
        let mut c = ParserTestConfig::default();
        let mut seen_result = false;
        for line in text[start..end].lines() {
            let l = line
                .trim()
                .trim_start_matches("//")
                .trim_start_matches("/*")
                .trim_start_matches('*')
                .trim();
            let Some((key, value)) = l.split_once(':') else {
                continue;
            };
            let value = value.trim();
            match key.trim() {
                "expect_result" => {
                    seen_result = true;
                    c.expect_pass = value == "pass";
                }
                "glsl_version" => c.glsl_version = GlslVersion::parse(value, false),
                "require_extensions" => {
                    c.extensions = value.split_whitespace().map(str::to_string).collect()
                }
                "dummy_shader_include" if value == "True" => {
                    c.includes
                        .strings
                        .insert("/dummy/path_to/shader_include".into(), String::new());
                }
                "shader_include_path" => c.includes.search_paths.push(value.to_string()),
                _ => {}
            }
        }
        seen_result.then_some(c)
    }
}

pub fn stage_of_extension(path: &Path) -> Option<Stage> {
    match path.extension()?.to_str()? {
        "vert" => Some(Stage::Vertex),
        "tesc" => Some(Stage::TessControl),
        "tese" => Some(Stage::TessEval),
        "geom" => Some(Stage::Geometry),
        "frag" => Some(Stage::Fragment),
        "comp" => Some(Stage::Compute),
        _ => None,
    }
}

/// Every file under `dir`, sorted (deterministic order).
pub fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            match e.file_type() {
                Ok(t) if t.is_dir() => stack.push(p),
                Ok(t) if t.is_file() => out.push(p),
                _ => {}
            }
        }
    }
    out.sort();
    out
}

/// Where a corpus shader comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Origin {
    ShaderTest,
    ParserTest,
}

/// One unique shader of the corpus.
#[derive(Clone, Debug)]
pub struct CorpusShader {
    pub stage: Stage,
    /// The source as the driver gets it (version rule applied).
    pub source: String,
    pub origin: Origin,
    /// First file it was found in, and the header line of its section (0 for
    /// glslparsertest files).
    pub path: PathBuf,
    pub line: usize,
    /// How many test files / sections carry this exact source.
    pub copies: usize,
    /// Extensions the test requires (`!GL_X`: requires its absence), for
    /// the driver check.
    pub requires: Vec<String>,
    /// The named strings its `#include`s name.
    pub includes: Includes,
}

impl CorpusShader {
    pub fn location(&self) -> String {
        if self.line > 0 {
            format!("{}:{}", self.path.display(), self.line)
        } else {
            self.path.display().to_string()
        }
    }
}

/// The whole corpus plus what was left out.
#[derive(Debug, Default)]
pub struct Corpus {
    pub shaders: Vec<CorpusShader>,
    pub shader_test_files: usize,
    /// `.shader_test` files expecting a link error (their shaders are not counted).
    pub expect_error_files: usize,
    pub expect_error_shaders: usize,
    pub parser_test_files: usize,
    pub parser_test_expect_fail: usize,
    /// Sections (not unique) read from `.shader_test` files.
    pub sections: usize,
}

impl Corpus {
    /// Read the corpus under `piglit` (both `tests/` and `generated_tests/`).
    pub fn load(piglit: &Path) -> Corpus {
        let mut c = Corpus::default();
        let mut index: HashMap<(Stage, String), usize> = HashMap::new();
        let mut add =
            |c: &mut Corpus, s: CorpusShader| match index.get(&(s.stage, s.source.clone())) {
                Some(&i) => c.shaders[i].copies += 1,
                None => {
                    index.insert((s.stage, s.source.clone()), c.shaders.len());
                    c.shaders.push(s);
                }
            };
        for path in walk(piglit) {
            let is_shader_test = path.extension().is_some_and(|e| e == "shader_test");
            let stage = stage_of_extension(&path);
            if !is_shader_test && stage.is_none() {
                continue;
            }
            let Ok(bytes) = fs::read(&path) else { continue };
            let text = String::from_utf8_lossy(&bytes);
            if is_shader_test {
                c.shader_test_files += 1;
                let t = ShaderTest::parse(&text);
                if t.expects_error {
                    c.expect_error_files += 1;
                    c.expect_error_shaders += t.sections.len();
                    continue;
                }
                for s in &t.sections {
                    c.sections += 1;
                    add(
                        &mut c,
                        CorpusShader {
                            stage: s.stage,
                            source: runner_source(&text, s, t.require),
                            origin: Origin::ShaderTest,
                            path: path.clone(),
                            line: s.header_line,
                            copies: 1,
                            requires: t
                                .require_lines
                                .iter()
                                .filter(|l| l.starts_with("GL_") || l.starts_with("!GL_"))
                                .filter_map(|l| l.split_whitespace().next())
                                .map(str::to_string)
                                .collect(),
                            includes: t.includes.clone(),
                        },
                    );
                }
            } else if let (Some(stage), Some(cfg)) = (stage, ParserTestConfig::parse(&text)) {
                c.parser_test_files += 1;
                if !cfg.expect_pass {
                    c.parser_test_expect_fail += 1;
                    continue;
                }
                add(
                    &mut c,
                    CorpusShader {
                        stage,
                        source: apply_version(&text, cfg.glsl_version),
                        origin: Origin::ParserTest,
                        path: path.clone(),
                        line: 0,
                        copies: 1,
                        requires: cfg.extensions.clone(),
                        includes: cfg.includes.clone(),
                    },
                );
            }
        }
        c
    }

    /// Every `n`-th shader (a deterministic slice), starting at `offset`.
    pub fn every(&self, n: usize, offset: usize) -> Vec<&CorpusShader> {
        self.shaders.iter().skip(offset).step_by(n.max(1)).collect()
    }

    /// A deterministic sample over the six stages: for each stage (pipeline
    /// order), `per_stage` of its shaders evenly spread over the corpus
    /// order (shifted by `offset`), or all of them when it has fewer.
    pub fn per_stage(&self, per_stage: usize, offset: usize) -> Vec<&CorpusShader> {
        let mut out = Vec::new();
        for stage in STAGES {
            let of_stage: Vec<&CorpusShader> =
                self.shaders.iter().filter(|s| s.stage == stage).collect();
            let n = of_stage.len();
            if n <= per_stage {
                out.extend(of_stage);
            } else {
                // i*n/per_stage is strictly increasing for n > per_stage.
                out.extend((0..per_stage).map(|i| of_stage[(i * n / per_stage + offset) % n]));
            }
        }
        out
    }
}

/// The probe every check of this crate makes: `Semantics::Equivalent`, the
/// default hand-off mode (a `discard` stays a `discard`, the original
/// outputs are bit-identical). The one place that builds a `Probe`.
pub fn probe<'a>(position: &'a Position, expr: Option<&'a str>) -> Probe<'a> {
    Probe {
        position,
        expr,
        semantics: glsl_instrument::Semantics::Equivalent,
    }
}

/// What parsing one shader gave.
#[derive(Clone, Debug)]
pub enum ParseOutcome {
    Ok {
        steps: usize,
    },
    /// glsl-lang parsed it, but there is nothing to step through: no
    /// `main` (a shader linked with others) or an empty `main`.
    NothingToDebug(String),
    /// `ShaderModel::parse` returned an error.
    Error {
        line: u32,
        column: u32,
        message: String,
    },
    /// Something panicked (a bug in glsl-instrument or glsl-lang).
    Panic(String),
}

pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "non-string panic".into()
    }
}

/// Silence the default panic hook (panics are caught and counted).
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}

/// `ShaderModel::parse`'s messages for shaders that parse but have no step.
pub const NO_MAIN: &str = "no `main` function";
pub const EMPTY_MAIN: &str = "`main` has no statement to debug";

/// Parse one shader (with the named strings its `#include`s name),
/// catching panics.
pub fn parse_outcome(source: &str, stage: Stage, includes: &Includes) -> ParseOutcome {
    match catch_unwind(AssertUnwindSafe(|| {
        ShaderModel::parse_with(source, stage, includes, Api::Gl).map(|m| m.steps().len())
    })) {
        Ok(Ok(steps)) => ParseOutcome::Ok { steps },
        Ok(Err(e)) if e.message == NO_MAIN || e.message == EMPTY_MAIN => {
            ParseOutcome::NothingToDebug(e.message)
        }
        Ok(Err(e)) => ParseOutcome::Error {
            line: e.line,
            column: e.column,
            message: e.message,
        },
        Err(p) => ParseOutcome::Panic(panic_message(&*p)),
    }
}

/// A failure cause: the message with names, numbers and quoted text
/// replaced, so equal causes group together.
pub fn normalise(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '"' || c == '`' {
            // Quoted text → the same quote with an ellipsis (Mesa quotes
            // `like this').
            let close = c;
            let mut quoted = String::new();
            for d in chars.by_ref() {
                if d == close || (close == '`' && d == '\'') {
                    break;
                }
                quoted.push(d);
            }
            // Keep short keyword-like tokens and built-in names (they name
            // the construct).
            let builtin = quoted.starts_with("gl_")
                && quoted.len() <= 32
                && quoted
                    .chars()
                    .all(|x| x.is_ascii_alphanumeric() || x == '_');
            if builtin || (quoted.len() <= 12 && quoted.chars().all(|x| !x.is_ascii_digit())) {
                out.push(close);
                out.push_str(&quoted);
                out.push(close);
            } else {
                out.push(close);
                out.push('…');
                out.push(close);
            }
        } else if c == 'G'
            && !out.ends_with(|x: char| x.is_ascii_alphanumeric() || x == '_')
            && chars.clone().take(2).collect::<String>() == "L_"
        {
            // Extension and other GL names: `GL_…`.
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '_')
            {
                chars.next();
            }
            out.push_str("GL_…");
        } else if c.is_ascii_digit() {
            while chars
                .peek()
                .is_some_and(|d| d.is_ascii_digit() || *d == '.')
            {
                chars.next();
            }
            out.push('N');
        } else {
            out.push(c);
        }
    }
    out
}

/// The cause of a failed outcome (`None` for success).
pub fn cause(o: &ParseOutcome) -> Option<String> {
    match o {
        ParseOutcome::Ok { .. } | ParseOutcome::NothingToDebug(_) => None,
        ParseOutcome::Error { message, .. } => Some(normalise(message)),
        ParseOutcome::Panic(m) => Some(format!("panic: {}", normalise(m))),
    }
}

/// Per-stage parse figures.
#[derive(Clone, Debug, Default)]
pub struct StageFigures {
    pub total: usize,
    /// Parsed by the front-end (including `no_main`).
    pub ok: usize,
    /// Parsed, but no `main` or an empty one (nothing to debug alone).
    pub no_main: usize,
    pub steps: usize,
}

/// One failure.
#[derive(Clone, Debug)]
pub struct Failure {
    pub shader: usize,
    pub location: String,
    pub stage: Stage,
    pub line: u32,
    pub column: u32,
    pub message: String,
}

/// The figures of a parse run.
#[derive(Debug, Default)]
pub struct ParseReport {
    pub by_stage: BTreeMap<&'static str, StageFigures>,
    pub by_origin: BTreeMap<&'static str, StageFigures>,
    /// cause → failures.
    pub causes: BTreeMap<String, Vec<Failure>>,
    /// Example of each nothing-to-debug message.
    pub no_main_examples: BTreeMap<String, String>,
    pub seconds: f64,
    pub bytes: usize,
}

impl ParseReport {
    pub fn total(&self) -> StageFigures {
        let mut t = StageFigures::default();
        for f in self.by_stage.values() {
            t.total += f.total;
            t.ok += f.ok;
            t.no_main += f.no_main;
            t.steps += f.steps;
        }
        t
    }

    pub fn failures(&self) -> impl Iterator<Item = &Failure> {
        self.causes.values().flatten()
    }

    /// Causes sorted by count, most frequent first.
    pub fn sorted_causes(&self) -> Vec<(&String, &Vec<Failure>)> {
        let mut v: Vec<_> = self.causes.iter().collect();
        v.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
        v
    }
}

/// Parse every shader of `shaders`.
pub fn run_parse(shaders: &[&CorpusShader]) -> ParseReport {
    let mut r = ParseReport::default();
    for s in STAGES {
        r.by_stage.insert(s.name(), StageFigures::default());
    }
    let start = Instant::now();
    for (i, s) in shaders.iter().enumerate() {
        r.bytes += s.source.len();
        let o = parse_outcome(&s.source, s.stage, &s.includes);
        let origin = match s.origin {
            Origin::ShaderTest => "shader_test",
            Origin::ParserTest => "glslparsertest",
        };
        for fig in [
            r.by_stage.get_mut(s.stage.name()).unwrap(),
            r.by_origin.entry(origin).or_default(),
        ] {
            fig.total += 1;
            match &o {
                ParseOutcome::Ok { steps } => {
                    fig.ok += 1;
                    fig.steps += steps;
                }
                ParseOutcome::NothingToDebug(_) => {
                    fig.ok += 1;
                    fig.no_main += 1;
                }
                _ => {}
            }
        }
        if let ParseOutcome::NothingToDebug(m) = &o {
            r.no_main_examples
                .entry(m.clone())
                .or_insert_with(|| s.location());
        }
        if let Some(c) = cause(&o) {
            let (line, column, message) = match o {
                ParseOutcome::Error {
                    line,
                    column,
                    message,
                } => (line, column, message),
                ParseOutcome::Panic(m) => (0, 0, format!("panic: {m}")),
                ParseOutcome::Ok { .. } | ParseOutcome::NothingToDebug(_) => unreachable!(),
            };
            r.causes.entry(c).or_default().push(Failure {
                shader: i,
                location: s.location(),
                stage: s.stage,
                line,
                column,
                message,
            });
        }
    }
    r.seconds = start.elapsed().as_secs_f64();
    r
}

pub fn rate(f: &StageFigures) -> f64 {
    if f.total == 0 {
        100.0
    } else {
        100.0 * f.ok as f64 / f.total as f64
    }
}

/// Evenly spread step indices: at most `max` of `n`.
pub fn spread(n: usize, max: usize) -> Vec<usize> {
    if n <= max {
        (0..n).collect()
    } else {
        let mut v: Vec<usize> = (0..max).map(|i| i * (n - 1) / (max - 1).max(1)).collect();
        v.dedup();
        v
    }
}

/// The driver check of shaders the front-end fails on: does Mesa compile
/// it? Runs piglit's `glslparsertest FILE pass VERSION` on a temporary file.
/// `Some(true)`: Mesa compiles it (a real front-end failure), `Some(false)`:
/// Mesa rejects it or lacks what it needs, `None`: could not run.
pub fn driver_compiles(piglit: &Path, shader: &CorpusShader, tmp: &Path) -> Option<bool> {
    let (stage, source) = (shader.stage, shader.source.as_str());
    let ext = match stage {
        Stage::Vertex => "vert",
        Stage::TessControl => "tesc",
        Stage::TessEval => "tese",
        Stage::Geometry => "geom",
        Stage::Fragment => "frag",
        Stage::Compute => "comp",
    };
    let version = version_of(source);
    let file = tmp.join(format!("check.{ext}"));
    fs::write(&file, source).ok()?;
    let bin = if version.es {
        match version.num {
            100 => "glslparsertest_gles2",
            _ => "glslparsertest",
        }
    } else {
        "glslparsertest"
    };
    let vs = format!("{}.{:02}", version.num / 100, version.num % 100);
    let vs = if version.es && version.num != 100 {
        format!("{vs} es")
    } else {
        vs
    };
    let out = std::process::Command::new("timeout")
        .arg("20")
        .arg(piglit.join("bin").join(bin))
        .arg(&file)
        .arg("pass")
        .arg(&vs)
        .args(&shader.requires)
        .env("PIGLIT_PLATFORM", "surfaceless_egl")
        .env("MESA_SHADER_CACHE_DISABLE", "true")
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    if text.contains("\"result\": \"pass\"") {
        Some(true)
    } else if text.contains("\"result\": \"fail\"") || text.contains("\"result\": \"skip\"") {
        Some(false)
    } else {
        None
    }
}

/// The `#version` of a source (110 if none).
pub fn version_of(source: &str) -> GlslVersion {
    for l in source.lines() {
        if let Some(r) = l.trim_start().strip_prefix('#')
            && let Some(r) = r.trim_start().strip_prefix("version")
        {
            let mut w = r.split_whitespace();
            let num = w.next().and_then(|n| n.parse().ok()).unwrap_or(110);
            let es = num == 100 || w.next() == Some("es");
            return GlslVersion { num, es };
        }
    }
    GlslVersion {
        num: 110,
        es: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        assert_eq!(GlslVersion::parse("1.50", false).unwrap().num, 150);
        assert_eq!(GlslVersion::parse("4.0", false).unwrap().num, 400);
        let es = GlslVersion::parse("3.00", true).unwrap();
        assert_eq!(es.directive(), "#version 300 es\n");
        assert_eq!(
            GlslVersion::parse("1.00", true).unwrap().directive(),
            "#version 100\n"
        );
        assert_eq!(
            GlslVersion::parse("3.10 es", false).unwrap().directive(),
            "#version 310 es\n"
        );
        assert_eq!(
            apply_version("void main(){}\n", GlslVersion::parse("1.30", false)),
            "#version 130\nvoid main(){}\n"
        );
        assert_eq!(
            apply_version(
                "// c\n#version 140\nvoid main(){}\n",
                GlslVersion::parse("1.30", false)
            ),
            "// c\n#version 140\nvoid main(){}\n"
        );
    }

    #[test]
    fn shader_test_sections() {
        let t = ShaderTest::parse(
            "# comment\n[require]\nGLSL >= 1.30\nGL_ARB_foo\n\n[vertex shader passthrough]\n[fragment shader]\nvoid main() {\n gl_FragColor = vec4(1);\n}\n\n[test]\ndraw rect -1 -1 2 2\n",
        );
        assert_eq!(
            t.require,
            Some(GlslVersion {
                num: 130,
                es: false
            })
        );
        assert_eq!(t.sections.len(), 2);
        assert!(t.sections[0].passthrough);
        assert_eq!(t.sections[1].stage, Stage::Fragment);
        assert_eq!(t.sections[1].header_line, 7);
        assert_eq!(
            t.sections[1].raw,
            "void main() {\n gl_FragColor = vec4(1);\n}\n\n"
        );
        assert!(!t.expects_error);
        let t = ShaderTest::parse(
            "[require]\nGLSL ES >= 3.00\n[compute shader]\nvoid main(){}\n[test]\nlink error\n",
        );
        assert!(t.expects_error);
        assert_eq!(t.require.unwrap().directive(), "#version 300 es\n");
    }

    /// piglit's arb_shading_language_include tests name their strings in
    /// `[shader include]` sections (path_test.shader_test's shape).
    #[test]
    fn shader_include_sections_feed_the_includes() {
        let text = "[require]\nGL_ARB_shading_language_include\n\n\
            [shader include]\n/test path/./to/../inc.shader\n\nvoid main()\n{\n\tgl_FragColor = vec4(1.0);\n}\n\n\
            [shader include paths]\n/test path/\n\n\
            [fragment shader]\n#extension GL_ARB_shading_language_include: enable\n\n#include \"inc.shader\"\n\n\
            [test]\ndraw rect -1 -1 2 2\n";
        let t = ShaderTest::parse(text);
        assert_eq!(t.includes.search_paths, ["/test path/"]);
        assert_eq!(
            t.includes.strings.keys().collect::<Vec<_>>(),
            ["/test path/./to/../inc.shader"]
        );
        let source = runner_source(text, &t.sections[0], t.require);
        let o = parse_outcome(&source, Stage::Fragment, &t.includes);
        assert!(matches!(o, ParseOutcome::Ok { steps: 1 }), "{o:?}");
    }

    /// glslparsertest's `dummy_shader_include` and `shader_include_path`
    /// (piglit's arb_shading_language_include/compile/relative_path.frag).
    #[test]
    fn parser_test_dummy_include() {
        let text = "// [config]\n// expect_result: pass\n// glsl_version: 1.10\n\
            // dummy_shader_include: True\n// shader_include_path: /dummy/path_to\n// [end config]\n\
            #extension GL_ARB_shading_language_include: enable\n#include <shader_include>\n\
            void main()\n{\n    gl_FragColor = vec4(1.0);\n}\n";
        let cfg = ParserTestConfig::parse(text).unwrap();
        let o = parse_outcome(text, Stage::Fragment, &cfg.includes);
        assert!(matches!(o, ParseOutcome::Ok { steps: 1 }), "{o:?}");
        let o = parse_outcome(text, Stage::Fragment, &Includes::default());
        assert!(matches!(o, ParseOutcome::Error { .. }), "{o:?}");
    }

    #[test]
    fn per_stage_sample() {
        let shader = |stage, n: usize| CorpusShader {
            stage,
            source: format!("// {n}"),
            origin: Origin::ShaderTest,
            path: PathBuf::from(format!("t{n}")),
            line: 1,
            copies: 1,
            requires: Vec::new(),
            includes: Includes::default(),
        };
        let mut c = Corpus::default();
        for n in 0..10 {
            c.shaders.push(shader(Stage::Fragment, n));
        }
        for n in 10..13 {
            c.shaders.push(shader(Stage::Compute, n));
        }
        let s = c.per_stage(4, 0);
        // Pipeline order; all 3 compute shaders; 4 distinct fragment ones.
        let names: Vec<&str> = s.iter().map(|s| s.source.as_str()).collect();
        assert_eq!(
            names,
            ["// 0", "// 2", "// 5", "// 7", "// 10", "// 11", "// 12"]
        );
        assert_eq!(c.per_stage(4, 0).len(), c.per_stage(4, 3).len());
    }

    #[test]
    fn parser_test_config() {
        let c = ParserTestConfig::parse(
            "/* [config]\n * expect_result: pass\n * glsl_version: 3.10 es\n * require_extensions: GL_A GL_B\n * [end config]\n */\n",
        )
        .unwrap();
        assert!(c.expect_pass);
        assert_eq!(c.glsl_version.unwrap().directive(), "#version 310 es\n");
        assert_eq!(c.extensions.len(), 2);
        let c = ParserTestConfig::parse(
            "// [config]\n// expect_result: fail\n// glsl_version: 1.10\n// [end config]\n",
        )
        .unwrap();
        assert!(!c.expect_pass);
    }

    #[test]
    fn causes_group() {
        assert_eq!(
            normalise("unexpected token \"foo_bar_baz_1\" at 3:4"),
            "unexpected token \"…\" at N:N"
        );
        assert_eq!(
            normalise("'#error' : GL_ARB_foo is not defined"),
            "'#error' : GL_… is not defined"
        );
        // Mesa quotes `like this'; built-in names stay.
        assert_eq!(
            normalise("0:118(36): error: `gl_FogFragCoord' undeclared"),
            "N:N(N): error: `gl_FogFragCoord` undeclared"
        );
        assert_eq!(
            normalise("error: `some_long_user_name' undeclared"),
            "error: `…` undeclared"
        );
        assert_eq!(spread(3, 50), vec![0, 1, 2]);
        let s = spread(1000, 50);
        assert_eq!((s.len(), s[0], s[49]), (50, 0, 999));
    }
}

/// Throughput figures.
#[derive(Debug, Default)]
pub struct Bench {
    /// Seconds per instrument call (one per (shader, step)), sorted.
    pub samples: Vec<f64>,
    pub parse_us_per_kb: f64,
    pub bytes: usize,
    pub unsupported: usize,
    pub errors: usize,
    /// Instrument errors: cause → example.
    pub error_examples: BTreeMap<String, String>,
    pub by_stage: BTreeMap<&'static str, usize>,
    /// Per stage: seconds per instrument call, sorted.
    pub stage_samples: BTreeMap<&'static str, Vec<f64>>,
    /// Per stage: (parse seconds, bytes).
    pub stage_parse: BTreeMap<&'static str, (f64, usize)>,
}

/// The `q` quantile of sorted `samples` (0 if empty).
pub fn quantile_of(samples: &[f64], q: f64) -> f64 {
    if samples.is_empty() {
        return 0.0;
    }
    let i = ((samples.len() - 1) as f64 * q).round() as usize;
    samples[i]
}

impl Bench {
    pub fn quantile(&self, q: f64) -> f64 {
        quantile_of(&self.samples, q)
    }
}

/// Parse each shader (timed), then instrument it at up to `max_steps`
/// evenly spread positions of its `step` path (timed each), probing the
/// innermost scalar/vector variable in scope (coverage only if none).
pub fn run_bench(shaders: &[&CorpusShader], max_steps: usize) -> Bench {
    let mut b = Bench::default();
    let mut parse_secs = 0.0;
    for s in shaders {
        let t0 = Instant::now();
        let model = catch_unwind(AssertUnwindSafe(|| {
            ShaderModel::parse_with(&s.source, s.stage, &s.includes, Api::Gl)
        }));
        let dt = t0.elapsed().as_secs_f64();
        parse_secs += dt;
        b.bytes += s.source.len();
        let sp = b.stage_parse.entry(s.stage.name()).or_default();
        sp.0 += dt;
        sp.1 += s.source.len();
        let Ok(Ok(model)) = model else { continue };
        let positions = equiv::walk(&model, 1000);
        for i in spread(positions.len(), max_steps) {
            let pos = &positions[i];
            let expr = equiv::scope_expr(&model, pos);
            let probe = probe(pos, expr.as_deref());
            let t0 = Instant::now();
            let r = catch_unwind(AssertUnwindSafe(|| model.instrument(&probe)));
            let dt = t0.elapsed().as_secs_f64();
            match r {
                Ok(Ok(_)) => {
                    b.samples.push(dt);
                    b.stage_samples.entry(s.stage.name()).or_default().push(dt);
                    *b.by_stage.entry(s.stage.name()).or_default() += 1;
                }
                Ok(Err(glsl_instrument::InstrumentError::Unsupported(m)))
                    if m.contains("shaders is not supported yet") =>
                {
                    b.unsupported += 1
                }
                other => {
                    b.errors += 1;
                    let cause = match other {
                        Ok(Err(e)) => normalise(&e.to_string()),
                        Err(p) => format!("panic: {}", normalise(&panic_message(&*p))),
                        Ok(Ok(_)) => unreachable!(),
                    };
                    b.error_examples
                        .entry(cause)
                        .or_insert_with(|| format!("{} step {}", s.location(), pos.step.0));
                }
            }
        }
    }
    b.samples.sort_by(|a, c| a.total_cmp(c));
    for v in b.stage_samples.values_mut() {
        v.sort_by(|a, c| a.total_cmp(c));
    }
    b.parse_us_per_kb = parse_secs * 1e6 / (b.bytes as f64 / 1024.0).max(1e-9);
    b
}

/// Per-stage figures of a compile run.
#[derive(Clone, Debug, Default)]
pub struct CompileStage {
    /// Sampled.
    pub shaders: usize,
    /// The original does not compile on this driver (left out).
    pub original_rejected: usize,
    /// Compiles, but has no `main` or an empty one: nothing to step (left out).
    pub nothing_to_step: usize,
    /// Compiles originally, but the front-end fails on it (counted, as failed).
    pub not_parsed: usize,
    /// Counted: compiles originally and is not left out.
    pub counted: usize,
    /// Counted shaders whose every probe was instrumented and compiled.
    pub shaders_ok: usize,
    /// (shader, step, expression) probes tried.
    pub probes: usize,
    /// Of `probes`, those with a value expression (the others: coverage only).
    pub value_probes: usize,
    /// Instrumented and compiled by the driver.
    pub compiled: usize,
    /// `instrument` says the stage is not supported (counted as failed).
    pub unsupported: usize,
}

impl CompileStage {
    /// Shaders that compile originally (and have steps) whose every probe compiles, in %.
    pub fn shader_rate(&self) -> f64 {
        percent(self.shaders_ok, self.counted)
    }
    /// Probes that compile, in %.
    pub fn probe_rate(&self) -> f64 {
        percent(self.compiled, self.probes)
    }
}

/// `part` of `whole` in % (100 for nothing).
pub fn percent(part: usize, whole: usize) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// A failure cause with how often it happened and a few examples.
#[derive(Clone, Debug, Default)]
pub struct Cause {
    pub count: usize,
    /// Up to three "location step N expr" examples, from different shaders
    /// where there are.
    pub examples: Vec<String>,
}

impl Cause {
    pub fn add(&mut self, example: impl FnOnce() -> String) {
        self.count += 1;
        if self.examples.len() < 3 {
            let e = example();
            let shader = |x: &str| x.split(" step ").next().unwrap_or("").to_string();
            if !self.examples.iter().any(|x| shader(x) == shader(&e)) {
                self.examples.push(e);
            }
        }
    }
}

/// Figures of a compile run.
#[derive(Debug, Default)]
pub struct CompileReport {
    pub by_stage: BTreeMap<&'static str, CompileStage>,
    /// (stage, cause) → count and examples.
    pub failures: BTreeMap<(&'static str, String), Cause>,
    pub seconds: f64,
}

impl CompileReport {
    pub fn total(&self) -> CompileStage {
        let mut t = CompileStage::default();
        for f in self.by_stage.values() {
            t.shaders += f.shaders;
            t.original_rejected += f.original_rejected;
            t.nothing_to_step += f.nothing_to_step;
            t.not_parsed += f.not_parsed;
            t.counted += f.counted;
            t.shaders_ok += f.shaders_ok;
            t.probes += f.probes;
            t.value_probes += f.value_probes;
            t.compiled += f.compiled;
            t.unsupported += f.unsupported;
        }
        t
    }
}

/// How a compile run probes each shader.
#[derive(Clone, Debug)]
pub struct CompileOptions {
    /// At most this many evenly spread steps of the `step` path per shader.
    pub max_steps: usize,
    /// Every `expr_every`-th probed step also gets a value probe (its
    /// innermost scalar/vector variable in scope); 0: never.
    pub expr_every: usize,
    /// Where to write failing debug shaders (at most `keep_max`).
    pub keep: Option<PathBuf>,
    pub keep_max: usize,
}

impl Default for CompileOptions {
    fn default() -> Self {
        CompileOptions {
            max_steps: 50,
            expr_every: 3,
            keep: None,
            keep_max: 300,
        }
    }
}

/// Instrument each shader at up to `max_steps` evenly spread positions of
/// its `step` path (coverage only, plus a value probe at every
/// `expr_every`-th of them) and compile every result with the driver. Only
/// shaders that compile originally are counted.
pub fn run_compile(
    driver: &driver::Driver,
    shaders: &[&CorpusShader],
    opts: &CompileOptions,
) -> CompileReport {
    use glsl_instrument::InstrumentError;
    let start = Instant::now();
    let mut r = CompileReport::default();
    for s in STAGES {
        r.by_stage.insert(s.name(), CompileStage::default());
    }
    let mut kept = 0;
    for sh in shaders {
        let stage = sh.stage.name();
        let fig = r.by_stage.get_mut(stage).unwrap();
        fig.shaders += 1;
        if driver.compile(sh.stage.gl_enum(), &sh.source).is_err() {
            fig.original_rejected += 1;
            continue;
        }
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            ShaderModel::parse_with(&sh.source, sh.stage, &sh.includes, Api::Gl)
        }));
        let model = match parsed {
            Ok(Ok(m)) => m,
            Ok(Err(e)) if e.message == NO_MAIN || e.message == EMPTY_MAIN => {
                fig.nothing_to_step += 1;
                continue;
            }
            other => {
                fig.counted += 1;
                fig.not_parsed += 1;
                let cause = match other {
                    Err(p) => format!("panic: {}", normalise(&panic_message(&*p))),
                    Ok(Err(e)) => normalise(&e.message),
                    Ok(Ok(_)) => unreachable!(),
                };
                r.failures
                    .entry((stage, format!("front-end: {cause}")))
                    .or_default()
                    .add(|| sh.location());
                continue;
            }
        };
        fig.counted += 1;
        let positions = equiv::walk(&model, 1000);
        let mut all_ok = true;
        for (n, i) in spread(positions.len(), opts.max_steps)
            .into_iter()
            .enumerate()
        {
            let pos = &positions[i];
            let mut exprs = vec![None];
            if opts.expr_every > 0
                && n % opts.expr_every == 0
                && let Some(e) = equiv::scope_expr(&model, pos)
            {
                exprs.push(Some(e));
            }
            for expr in exprs {
                let fig = r.by_stage.get_mut(stage).unwrap();
                fig.probes += 1;
                fig.value_probes += usize::from(expr.is_some());
                let p = probe(pos, expr.as_deref());
                let cause = match catch_unwind(AssertUnwindSafe(|| model.instrument(&p))) {
                    Err(p) => Some(format!(
                        "instrument panic: {}",
                        normalise(&panic_message(&*p))
                    )),
                    Ok(Err(InstrumentError::Unsupported(m))) if m.contains("not supported") => {
                        fig.unsupported += 1;
                        Some(format!("unsupported: {}", normalise(&m)))
                    }
                    Ok(Err(e)) => Some(format!("instrument error: {}", normalise(&e.to_string()))),
                    Ok(Ok(ins)) => match driver.compile(sh.stage.gl_enum(), &ins.source) {
                        Ok(()) => {
                            fig.compiled += 1;
                            None
                        }
                        Err(log) => {
                            if let Some(dir) = &opts.keep
                                && kept < opts.keep_max
                            {
                                kept += 1;
                                let _ = fs::write(
                                    dir.join(format!("{kept:04}-{stage}.glsl")),
                                    format!(
                                        "// {} step {} {}\n/* {log} */\n{}",
                                        sh.location(),
                                        pos.step.0,
                                        expr.as_deref().unwrap_or("(coverage)"),
                                        ins.source
                                    ),
                                );
                            }
                            Some(format!("driver: {}", normalise(&driver::first_error(&log))))
                        }
                    },
                };
                if let Some(c) = cause {
                    all_ok = false;
                    r.failures.entry((stage, c)).or_default().add(|| {
                        format!(
                            "{} step {} {}",
                            sh.location(),
                            pos.step.0,
                            expr.as_deref().unwrap_or("(coverage)")
                        )
                    });
                }
            }
        }
        if all_ok {
            r.by_stage.get_mut(stage).unwrap().shaders_ok += 1;
        }
    }
    r.seconds = start.elapsed().as_secs_f64();
    r
}
