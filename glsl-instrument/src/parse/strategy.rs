//! The attempts at parsing one shader's text: [`STRATEGIES`], named ways of
//! reading a text glsl-lang rejected, tried in order until one parses.
//! The first is the text as edited before parsing; each later one runs
//! only after the ones before failed, so nothing that parsed before
//! changes. The error reported is the first attempt's (or, where the
//! gated type names got further, that attempt's).

use std::collections::{HashMap, HashSet};
use std::panic::{AssertUnwindSafe, catch_unwind};

use glsl_lang::ast;
use glsl_lang::parse::{DefaultLexer, ParseBuilder, ParseContext, ParseOptions};

use super::workaround::{self, Workarounds, stuck_macro, wide_literals};
use super::{line_col, shorten};
use crate::{Api, ParseError};

/// One way of reading the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Strategy {
    /// The text as edited before parsing (unknown extensions, wide literals hidden).
    AsEdited,
    /// Again with the gated built-in type names the source uses declared
    /// (`workaround::gated_types`): an old shader may use e.g. `mat4x2` as
    /// a variable name, so not on the first attempt.
    GatedTypesDeclared,
    /// A macro glsl-lang-pp cannot rescan expanded by us
    /// (`workaround::stuck_macro`); the later strategies start from it.
    StuckMacroExpanded,
    /// Valid GLSL glsl-lang rejects rewritten ([`workaround::rewrite`]).
    Rewritten,
    /// Rewritten, with the gated type names declared.
    RewrittenGatedTypesDeclared,
}

/// The strategies, in the order they are tried.
pub(super) const STRATEGIES: [Strategy; 5] = [
    Strategy::AsEdited,
    Strategy::GatedTypesDeclared,
    Strategy::StuckMacroExpanded,
    Strategy::Rewritten,
    Strategy::RewrittenGatedTypesDeclared,
];

/// Why one parse of a text failed.
pub(super) enum Failed {
    /// Nested past [`crate::depth::SHADER_LIMIT`]: not parsed, and no
    /// rewrite of the text can help.
    Deep(ParseError),
    /// glsl-lang's error, at a byte offset of the text.
    Syntax(Syntax),
}

/// A syntax error of glsl-lang.
pub(super) struct Syntax {
    offset: usize,
    error: ParseError,
    /// The macro glsl-lang-pp could not finish, if that was the error.
    stuck: Option<String>,
}

/// What every parse of one shader's text (as edited, or rewritten after a
/// failure) shares.
pub(super) struct Front<'a> {
    /// The source as the model holds it (errors' line:column).
    pub src: &'a str,
    pub opts: ParseOptions,
    /// Gated built-in type names the source uses.
    pub gated: Vec<&'static str>,
    /// Type names standing for hidden literals' types.
    pub placeholder_types: Vec<String>,
    /// Placeholder → text of hidden literals and extension names.
    pub literals: HashMap<String, String>,
}

impl Front<'_> {
    /// Parse `text` (the gated type names declared if `declare_gated`, the
    /// rewrites of `fix` undone in the tree). The one place a shader's
    /// text reaches glsl-lang's parser, so its nesting is bounded here,
    /// before any pass can recurse over a tree too deep for the stack,
    /// whichever rewrite produced the text. Never panics.
    fn attempt(
        &self,
        text: &str,
        declare_gated: bool,
        fix: Option<&Workarounds>,
    ) -> Result<ast::TranslationUnit, Failed> {
        let result = catch_unwind(AssertUnwindSafe(|| {
            if let Err(offset) = crate::depth::check(text, &self.opts, crate::depth::SHADER_LIMIT) {
                let (line, column) = line_col(self.src, offset);
                let message = crate::depth::message("the shader is", crate::depth::SHADER_LIMIT);
                return Err(Failed::Deep(ParseError {
                    line,
                    column,
                    message,
                }));
            }
            let ctx = ParseContext::new();
            let gated = self.gated.iter().filter(|_| declare_gated).copied();
            let placeholders = self.placeholder_types.iter().map(String::as_str);
            let fixes = fix
                .iter()
                .flat_map(|w| w.type_names.iter().map(String::as_str));
            for name in gated.chain(placeholders).chain(fixes) {
                ctx.add_type_name(ast::IdentifierData::from(name).into());
            }
            match ParseBuilder::<DefaultLexer<'_>, ast::TranslationUnit>::new(text)
                .opts(&self.opts)
                .context(&ctx)
                .parse()
            {
                Ok((mut tu, _ctx, lexer)) => {
                    lexer.into_directives().inject(&mut tu);
                    if let Some(w) = fix {
                        workaround::restore(&mut tu, w);
                    }
                    if !self.literals.is_empty() {
                        wide_literals::restore(&mut tu, &self.literals);
                    }
                    Ok(tu)
                }
                Err(err) => {
                    let offset = usize::from(err.pos().start());
                    let (line, column) = line_col(self.src, offset);
                    Err(Failed::Syntax(Syntax {
                        offset,
                        error: ParseError {
                            line,
                            column,
                            message: shorten(&err.inner().to_string()),
                        },
                        stuck: stuck_macro::stuck_macro(err.inner()),
                    }))
                }
            }
        }));
        result.unwrap_or_else(|_| {
            Err(Failed::Syntax(Syntax {
                offset: 0,
                error: ParseError {
                    line: 1,
                    column: 1,
                    message: "internal error in the GLSL parser".into(),
                },
                stuck: None,
            }))
        })
    }
}

/// What one strategy came to.
enum Outcome {
    Parsed(ast::TranslationUnit),
    /// An error no later strategy can help with.
    Fatal(ParseError),
    /// Tried, or not applicable: the next one goes on.
    Next,
}

impl From<Result<ast::TranslationUnit, Failed>> for Outcome {
    fn from(r: Result<ast::TranslationUnit, Failed>) -> Outcome {
        match r {
            Ok(tu) => Outcome::Parsed(tu),
            Err(Failed::Deep(e)) => Outcome::Fatal(e),
            Err(Failed::Syntax(_)) => Outcome::Next,
        }
    }
}

/// The strategies' shared state.
struct Run<'f, 'a> {
    front: &'f Front<'a>,
    api: Api,
    used: &'f HashSet<String>,
    /// The text the next strategy starts from.
    text: String,
    /// The error to report if every strategy fails.
    error: Option<Syntax>,
    /// [`Strategy::Rewritten`]'s text and what to undo in its tree.
    rewritten: Option<(String, Workarounds)>,
}

impl Run<'_, '_> {
    fn step(&mut self, s: Strategy) -> Outcome {
        let front = self.front;
        match s {
            Strategy::AsEdited => match front.attempt(&self.text, false, None) {
                Err(Failed::Syntax(e)) => {
                    self.error = Some(e);
                    Outcome::Next
                }
                r => r.into(),
            },
            Strategy::GatedTypesDeclared if !front.gated.is_empty() => {
                match front.attempt(&self.text, true, None) {
                    // The attempt that got further is reported.
                    Err(Failed::Syntax(e)) => {
                        if self
                            .error
                            .as_ref()
                            .is_some_and(|first| e.offset > first.offset)
                        {
                            self.error = Some(e);
                        }
                        Outcome::Next
                    }
                    r => r.into(),
                }
            }
            Strategy::StuckMacroExpanded => {
                let stuck = self.error.as_ref().and_then(|e| e.stuck.as_deref());
                let Some(text) = stuck.and_then(|m| stuck_macro::expand_stuck_macro(&self.text, m))
                else {
                    return Outcome::Next;
                };
                let r = front.attempt(&text, !front.gated.is_empty(), None);
                self.text = text;
                r.into()
            }
            Strategy::Rewritten => {
                let (v, is_es, _) = crate::preprocess::version_line(front.src, self.api);
                let (fixed, w) = workaround::rewrite(&self.text, v, is_es, self.used);
                if fixed == self.text && w.type_names.is_empty() {
                    return Outcome::Next;
                }
                let r = front.attempt(&fixed, false, Some(&w));
                self.rewritten = Some((fixed, w));
                r.into()
            }
            Strategy::RewrittenGatedTypesDeclared if !front.gated.is_empty() => {
                match &self.rewritten {
                    Some((fixed, w)) => front.attempt(fixed, true, Some(w)).into(),
                    None => Outcome::Next,
                }
            }
            Strategy::GatedTypesDeclared | Strategy::RewrittenGatedTypesDeclared => Outcome::Next,
        }
    }
}

/// Parse `edited` (the source with the first edits made) by the first of
/// [`STRATEGIES`] that succeeds.
pub(super) fn parse(
    front: &Front<'_>,
    edited: String,
    api: Api,
    used: &HashSet<String>,
) -> Result<ast::TranslationUnit, ParseError> {
    let mut run = Run {
        front,
        api,
        used,
        text: edited,
        error: None,
        rewritten: None,
    };
    parse_by(&mut run).map(|(tu, _)| tu)
}

/// [`parse`], and which strategy read the text.
fn parse_by(run: &mut Run<'_, '_>) -> Result<(ast::TranslationUnit, Strategy), ParseError> {
    for s in STRATEGIES {
        match run.step(s) {
            Outcome::Parsed(tu) => return Ok((tu, s)),
            Outcome::Fatal(e) => return Err(e),
            Outcome::Next => {}
        }
    }
    Err(run.error.take().map_or_else(
        || ParseError {
            line: 1,
            column: 1,
            message: "internal error: no parse attempt".into(),
        },
        |e| e.error,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The strategy that reads `src` (a shader without edits before parsing).
    fn strategy_of(src: &str) -> Result<Strategy, String> {
        let mut used = HashSet::new();
        crate::parse::words(src, &mut used);
        let front = Front {
            src,
            opts: ParseOptions::default(),
            gated: workaround::gated_types::GATED_TYPE_NAMES
                .iter()
                .copied()
                .filter(|n| used.contains(*n))
                .collect(),
            placeholder_types: Vec::new(),
            literals: HashMap::new(),
        };
        let mut run = Run {
            front: &front,
            api: Api::Gl,
            used: &used,
            text: src.to_string(),
            error: None,
            rewritten: None,
        };
        parse_by(&mut run)
            .map(|(_, s)| s)
            .map_err(|e| e.to_string())
    }

    #[test]
    fn each_strategy_reads_what_the_ones_before_cannot() {
        assert_eq!(strategy_of("void main() {}\n"), Ok(Strategy::AsEdited));
        assert_eq!(
            strategy_of("#version 450\nuniform int64_t d;\nvoid main() {}\n"),
            Ok(Strategy::GatedTypesDeclared)
        );
        let concat = "#version 330 core\nout vec4 frag;\n#define STEP_ONE() frag = vec4(1.0)\n#define GLUE(x, y) x ## _ ## y\n#define EVALUATE(x, y) GLUE(x, y)\n#define STEP(name) EVALUATE(STEP, name)()\nvoid main() {\n    STEP(ONE);\n}\n";
        assert_eq!(strategy_of(concat), Ok(Strategy::StuckMacroExpanded));
        assert_eq!(
            strategy_of(
                "#version 110\nuniform float centroid;\nvoid main() { gl_FragColor = vec4(centroid); }\n"
            ),
            Ok(Strategy::Rewritten)
        );
        assert_eq!(
            strategy_of(
                "#version 110\nuniform mat4x2 m;\nuniform float centroid;\nvoid main() {}\n"
            ),
            Ok(Strategy::RewrittenGatedTypesDeclared)
        );
        // Every strategy failing: the first attempt's error.
        let e = strategy_of("void main() {\n  x = ;\n}\n").unwrap_err();
        assert!(e.starts_with("2:"), "{e}");
    }

    #[test]
    fn the_stuck_macro_comes_from_the_error_kind() {
        let src = "#define STEP_ONE() 1.0\n#define GLUE(x, y) x ## _ ## y\n#define EVALUATE(x, y) GLUE(x, y)\n#define STEP(name) EVALUATE(STEP, name)()\nfloat f = STEP(ONE);\n";
        let front = Front {
            src,
            opts: ParseOptions::default(),
            gated: Vec::new(),
            placeholder_types: Vec::new(),
            literals: HashMap::new(),
        };
        match front.attempt(src, false, None) {
            Err(Failed::Syntax(s)) => {
                assert_eq!(s.stuck.as_deref(), Some("STEP_ONE"), "{}", s.error)
            }
            Ok(_) => panic!("parsed"),
            Err(Failed::Deep(e)) => panic!("{e}"),
        }
        let ok = front.attempt("float f = 1.0;\nfloat g = ;\n", false, None);
        assert!(matches!(
            ok,
            Err(Failed::Syntax(Syntax { stuck: None, .. }))
        ));
    }
}
