//! The nesting bound on what the GLSL parser sees: every pass over the
//! tree (type checker, step model, instrumenter, glsl-lang's printer and
//! visitors, dropping the tree) recurses once per level, so a deep tree
//! overflows a worker thread's stack. Before parsing, the token stream
//! (macros expanded, by glsl-lang's own lexer) is scanned without
//! recursion for an upper bound on the tree's depth; past the limit the
//! text is refused and never parsed.
//!
//! The bound, per statement or argument: its binary, assignment and `?:`
//! operators (a path from its root passes each at most once: a sum of 300
//! terms is 299 levels deep), plus its deepest operand (unary and postfix
//! operators, and the depth of the brackets it has: a call's arguments,
//! an index, a grouping), plus 1 for a bracket and [`BLOCK`] for a block,
//! plus the commas of a sequence (`(a, b, c)` nests, and so do a statement's
//! commas, counted alike for a declaration's names; a call's arguments and
//! an initializer list's elements do not), plus the
//! `if`/`else`/`for`/`while`/`do`/`switch` whose statement is still open,
//! [`CONTROL`] each (an `else if` counts once). Blocks and control
//! statements weigh more: the passes over statements take more stack per
//! level than those over expressions.

use glsl_lang::lexer::{LangLexer, Token};
use glsl_lang::parse::{DefaultLexer, ParseContext, ParseOptions};

/// Levels a shader may nest (blocks, control statements and expressions
/// together). In a debug build a 2 MiB thread survived about 600 nested
/// blocks, 1,200 nested `if`s and 2,400 nested calls or terms of a sum
/// (about 2,400 levels each, with the weights below); real shaders stay
/// far below, piglit's deepest (generated sums of 256 terms) included.
pub(crate) const SHADER_LIMIT: u32 = 512;

/// What a block (`{ }`) adds to the bound.
pub(crate) const BLOCK: u32 = 4;
/// What an open control statement adds to the bound.
const CONTROL: u32 = 2;

/// Levels a probe expression (`print`) may nest. The type checker is the
/// deepest pass per level: in a debug build a 2 MiB thread survived a sum
/// of about 280 terms, 300 nested calls or indexes, 600 unary operators.
pub(crate) const EXPR_LIMIT: u32 = 64;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Top,
    Brace,
    /// An initializer list (`= {1.0, 2.0}`).
    Init,
    /// `call`: a call's arguments; `control`: an `if`/`for`/`while`/
    /// `switch` head (else a grouping or a sequence).
    Paren {
        call: bool,
        control: bool,
    },
    Bracket,
}

struct Frame {
    kind: Kind,
    /// Binary, assignment and `?:` operators of the current segment
    /// (statement, argument, element): a path from the segment's root
    /// passes each at most once before it reaches one operand.
    bin: u32,
    /// The current operand's unary and postfix operators and brackets.
    operand: u32,
    /// Deepest operand before the current one.
    max_operand: u32,
    /// Deepest control head or block of the current statement.
    child: u32,
    /// Deepest part of the current segment before its last comma.
    seq: u32,
    /// Commas of the current segment when they nest (a sequence).
    commas: u32,
    /// Deepest finished segment.
    best: u32,
    /// Control statements still open at this level.
    pending: u32,
    /// A `;` or `}` ended a statement here: the control statements end
    /// too unless `else` follows.
    after_block: bool,
    /// What this frame's parent added to `outer` when it was pushed.
    parent_part: u32,
}

impl Frame {
    fn new(kind: Kind, parent_part: u32) -> Frame {
        Frame {
            kind,
            bin: 0,
            operand: 0,
            max_operand: 0,
            child: 0,
            seq: 0,
            commas: 0,
            best: 0,
            pending: 0,
            after_block: false,
            parent_part,
        }
    }

    fn weight(&self) -> u32 {
        match self.kind {
            Kind::Top => 0,
            Kind::Brace => BLOCK,
            Kind::Init => 2,
            Kind::Paren { .. } | Kind::Bracket => 1,
        }
    }

    /// The frame's depth bound so far.
    fn value(&self) -> u32 {
        self.weight() + self.pending + self.best.max(self.segment())
    }

    /// What the current segment adds for a bracket opened inside it.
    fn part(&self) -> u32 {
        self.weight() + self.pending + self.commas + self.bin + self.operand
    }

    /// The current comma-separated part's depth bound.
    fn expression(&self) -> u32 {
        self.bin + self.max_operand.max(self.operand)
    }

    /// The current segment's depth bound.
    fn segment(&self) -> u32 {
        self.commas + self.seq.max(self.expression()).max(self.child)
    }

    /// A binary operator (or `:`, which starts an operand without one).
    fn binary(&mut self, counts: bool) {
        self.max_operand = self.max_operand.max(self.operand);
        self.operand = 0;
        self.bin += u32::from(counts);
    }

    /// A comma: the next argument, element or part of a sequence.
    fn comma(&mut self, nests: bool) {
        self.seq = self.seq.max(self.expression());
        self.bin = 0;
        self.operand = 0;
        self.max_operand = 0;
        self.commas += u32::from(nests);
    }

    fn end_segment(&mut self) {
        self.best = self.best.max(self.segment());
        self.bin = 0;
        self.operand = 0;
        self.max_operand = 0;
        self.child = 0;
        self.seq = 0;
        self.commas = 0;
    }
}

/// The scanner's state: the open brackets, innermost last.
struct Scan {
    stack: Vec<Frame>,
    /// Sum of the enclosing frames' `part`s.
    outer: u32,
    prev: Option<Token>,
}

/// Operators that always combine two operands (`?` with `:` three).
fn is_binary(t: &Token) -> bool {
    use Token as T;
    matches!(
        t,
        T::LeftOp
            | T::RightOp
            | T::LeOp
            | T::GeOp
            | T::EqOp
            | T::NeOp
            | T::AndOp
            | T::OrOp
            | T::XorOp
            | T::MulAssign
            | T::DivAssign
            | T::AddAssign
            | T::ModAssign
            | T::LeftAssign
            | T::RightAssign
            | T::AndAssign
            | T::XorAssign
            | T::OrAssign
            | T::SubAssign
            | T::Equal
            | T::Star
            | T::Slash
            | T::Percent
            | T::LeftAngle
            | T::RightAngle
            | T::VerticalBar
            | T::Caret
            | T::Ampersand
            | T::Question
    )
}

/// A token an operand can end with (so a `-` after it is binary).
fn ends_operand(t: Option<&Token>) -> bool {
    use Token as T;
    matches!(
        t,
        Some(
            T::Identifier(_)
                | T::TypeName(_)
                | T::IntConstant(_)
                | T::UIntConstant(_)
                | T::FloatConstant(_)
                | T::DoubleConstant(_)
                | T::BoolConstant(_)
                | T::RightParen
                | T::RightBracket
                | T::IncOp
                | T::DecOp
        )
    )
}

impl Scan {
    fn top(&mut self) -> &mut Frame {
        self.stack
            .last_mut()
            .expect("the top frame is never popped")
    }

    fn push(&mut self, kind: Kind) {
        // A block is no operand of what precedes it (`void f() {`).
        let part = match kind {
            Kind::Brace => {
                let f = self.top();
                f.weight() + f.pending
            }
            _ => self.top().part(),
        };
        self.outer += part;
        self.stack.push(Frame::new(kind, part));
    }

    /// Close the innermost bracket: its depth joins the current operand
    /// (a grouping, call, index, initializer list) or the statement (a
    /// control head, a block). `None` at the top level.
    fn pop(&mut self) -> Option<Kind> {
        if self.stack.len() < 2 {
            return None;
        }
        let f = self.stack.pop()?;
        self.outer -= f.parent_part;
        let v = f.value();
        let parent = self.top();
        match f.kind {
            Kind::Brace | Kind::Paren { control: true, .. } => parent.child = parent.child.max(v),
            _ => parent.operand += v,
        }
        Some(f.kind)
    }

    /// Account for one token; the bound of the path it is on.
    fn token(&mut self, t: Token) -> u32 {
        use Token as T;
        let prev = self.prev.replace(t.clone());
        {
            let f = self.top();
            if f.after_block {
                f.after_block = false;
                if t != T::Else {
                    f.pending = 0;
                    f.end_segment();
                }
            }
        }
        match t {
            T::LeftParen => {
                let call = matches!(
                    prev,
                    Some(T::Identifier(_) | T::TypeName(_) | T::RightBracket)
                );
                let control = matches!(prev, Some(T::If | T::For | T::While | T::Switch));
                self.push(Kind::Paren { call, control });
            }
            T::LeftBracket => self.push(Kind::Bracket),
            T::LeftBrace => {
                let init = match prev {
                    Some(T::Equal) => true,
                    Some(T::Comma | T::LeftBrace) => self.top().kind == Kind::Init,
                    _ => false,
                };
                self.push(if init { Kind::Init } else { Kind::Brace });
            }
            T::RightParen | T::RightBracket => {
                self.pop();
            }
            T::RightBrace => {
                if self.pop() == Some(Kind::Brace) {
                    self.top().after_block = true;
                }
            }
            T::Semicolon => {
                let f = self.top();
                f.end_segment();
                // The statement ends, and those enclosing it, unless an
                // `else` follows.
                if matches!(f.kind, Kind::Top | Kind::Brace) {
                    f.after_block = true;
                }
            }
            T::Comma => {
                let f = self.top();
                let nests = match f.kind {
                    Kind::Paren { call, .. } => !call,
                    Kind::Init => false,
                    Kind::Top | Kind::Brace | Kind::Bracket => true,
                };
                f.comma(nests);
            }
            T::If if prev == Some(T::Else) => {}
            T::If | T::Else | T::For | T::While | T::Do | T::Switch => {
                self.top().pending += CONTROL
            }
            T::Colon => self.top().binary(false),
            T::Dash | T::Plus if ends_operand(prev.as_ref()) => self.top().binary(true),
            ref op if is_binary(op) => self.top().binary(true),
            T::Dash | T::Plus | T::Bang | T::Tilde | T::IncOp | T::DecOp | T::Dot => {
                self.top().operand += 1
            }
            _ => {}
        }
        let f = self.stack.last().expect("the top frame is never popped");
        self.outer + f.value()
    }
}

/// Refuse `text` if its tree could be more than `limit` levels deep:
/// `Err(offset)` of the token where the bound passed the limit. A lexical
/// error does not end the scan: the bad token counts as nothing and the
/// tokens after it are bounded too (the parser stops at the error, but a
/// rewrite of the text that avoids it is parsed, and checked, again).
pub(crate) fn check(text: &str, opts: &ParseOptions, limit: u32) -> Result<(), usize> {
    let mut scan = Scan {
        stack: vec![Frame::new(Kind::Top, 0)],
        outer: 0,
        prev: None,
    };
    let lexer = <DefaultLexer<'_> as LangLexer<'_>>::new(text, opts).run(ParseContext::new());
    for item in lexer {
        let Ok((start, tok, _end)) = item else {
            continue;
        };
        if scan.token(tok) > limit {
            return Err(usize::from(start.offset));
        }
    }
    Ok(())
}

/// The message for a text refused by [`check`].
pub(crate) fn message(what: &str, limit: u32) -> String {
    format!("{what} nested too deeply (more than {limit} levels)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(text: &str) -> u32 {
        (0..400)
            .find(|&l| check(text, &ParseOptions::default(), l).is_ok())
            .unwrap()
    }

    #[test]
    fn bounds_follow_the_tree() {
        assert_eq!(bound("void f() { x = a + b + c; }"), BLOCK + 3);
        assert_eq!(bound("void f() { x = -(-(-a)); }"), BLOCK + 1 + 3 + 2);
        assert_eq!(bound("void f() { x = f(g(h(a, b), c)); }"), BLOCK + 1 + 3);
        assert_eq!(bound("void f() { x = a[b[c[0]]]; }"), BLOCK + 1 + 3);
        // A declaration's names and a call's arguments are siblings; a
        // sequence nests.
        assert_eq!(bound("void f() { float a, b, c, d; }"), BLOCK + 3);
        assert_eq!(
            bound("void f() { float a, b; float c, d; float e, f; }"),
            BLOCK + 1
        );
        let table = format!("float w[300] = {{{}0.0}};", "0.5, ".repeat(299));
        // `=` and the list.
        assert_eq!(bound(&table), 1 + 2);
        assert_eq!(bound("void f() { float(1.0), a, b, c; }"), BLOCK + 3 + 1);
        // Operators binding tighter than a sum (`.`, a call) are one
        // operand's: piglit's generated shaders sum 130 `a.length()`s.
        let sum = format!(
            "void f() {{ x = a.length(){}; }}",
            " + a.length()".repeat(199)
        );
        assert_eq!(bound(&sum), BLOCK + 200 + 2);
        assert_eq!(
            bound("void f() { x = -a.b.c * -(b + c)[0]; }"),
            BLOCK + 2 + 4
        );
        assert_eq!(bound("void f() { x = f(a, b, c, d); }"), BLOCK + 1 + 1);
        assert_eq!(bound("void f() { x = (a, b, c, d); }"), BLOCK + 1 + 1 + 3);
        assert_eq!(bound("void f() { a, b, c, d; }"), BLOCK + 3);
        // Statements: blocks weigh BLOCK, an `else if` chain CONTROL a link.
        assert_eq!(bound("void f() { { { x; } } }"), 3 * BLOCK);
        let chain = "void f() { if (a) x; else if (b) x; else if (c) x; else x; }";
        assert_eq!(bound(chain), BLOCK + 4 * CONTROL + 1);
        assert_eq!(
            bound("void f() { if (a) x; if (b) x; if (c) x; }"),
            BLOCK + CONTROL + 1
        );
        assert_eq!(
            bound("void f() { if (a) { x; } y; }"),
            BLOCK + CONTROL + BLOCK
        );
    }

    #[test]
    fn nesting_after_a_lexical_error_is_bounded() {
        let deep = format!("{}x{}", "f(".repeat(600), ")".repeat(600));
        for bad in ["$", "0x", "#line 0 \"f\"\n", "#elif\n", "#error no\n"] {
            let src = format!("void f() {{\n{bad} x; y = {deep}; }}");
            assert!(check(&src, &ParseOptions::default(), 512).is_err(), "{bad}");
        }
    }

    #[test]
    fn macros_are_expanded() {
        let src = "#define A x + x + x + x\n#define B A + A + A + A\nvoid f() { y = B + B; }";
        assert_eq!(bound(src), BLOCK + 1 + 31);
    }
}
