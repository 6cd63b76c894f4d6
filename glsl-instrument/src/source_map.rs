//! Where a user's shader file sits in a shader's source (issue 15: source
//! breakpoints, editors). Apps read a file and hand it to `glShaderSource`,
//! often after a prefix of their own (`#version`, `#define`s, `#line`):
//! [`find_file`] finds the file's text as whole consecutive lines of the
//! source (CRLF normalised, a trailing newline optional) and says on which
//! source line it starts; [`FileSpan`] converts lines both ways, and the
//! [`ShaderModel`] methods here go on to the driver's numbering (`#line`
//! honoured through [`ShaderModel::driver_line`]).
//!
//! **Invariant:** pure text work: no GL, no files read here.

use crate::{ShaderModel, StepId};

/// A file found in a shader's source: its lines are the source's lines
/// `first_line ..= first_line + lines - 1` (1-based lines of the source).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileSpan {
    pub first_line: u32,
    pub lines: u32,
}

impl FileSpan {
    /// The whole source, line for line (a file the user names as a
    /// shader's, whatever its text).
    pub fn whole(source: &str) -> FileSpan {
        FileSpan {
            first_line: 1,
            lines: lines_of(source).len().max(1) as u32,
        }
    }

    /// The source line of 1-based `file_line`, if the file has that line.
    pub fn source_line(&self, file_line: u32) -> Option<u32> {
        (file_line >= 1 && file_line <= self.lines).then(|| self.first_line + file_line - 1)
    }

    /// The file line of 1-based `source_line`, if it comes from the file.
    pub fn file_line(&self, source_line: u32) -> Option<u32> {
        (source_line >= self.first_line && source_line < self.first_line + self.lines)
            .then(|| source_line - self.first_line + 1)
    }
}

/// Lines of `text` with CRLF as LF (a lone CR is no line break: the
/// model and the driver split at LF only); one trailing newline ends the
/// last line rather than starting an empty one.
fn lines_of(text: &str) -> Vec<String> {
    let text = text.replace("\r\n", "\n");
    let body = text.strip_suffix('\n').unwrap_or(&text);
    body.split('\n').map(str::to_string).collect()
}

/// Where `file`'s text is in `source` as whole consecutive lines (the
/// first place), or None. An empty file is found nowhere.
pub fn find_file(source: &str, file: &str) -> Option<FileSpan> {
    let wanted = lines_of(file);
    if wanted.iter().all(|l| l.trim().is_empty()) {
        return None;
    }
    let have = lines_of(source);
    let n = wanted.len();
    if n > have.len() {
        return None;
    }
    (0..=have.len() - n)
        .find(|&i| have[i..i + n] == wanted[..])
        .map(|i| FileSpan {
            first_line: i as u32 + 1,
            lines: n as u32,
        })
}

/// How many times `file`'s text is in `source` as whole consecutive lines
/// ([`find_file`] takes the first).
pub fn occurrences(source: &str, file: &str) -> usize {
    let wanted = lines_of(file);
    if wanted.iter().all(|l| l.trim().is_empty()) {
        return 0;
    }
    let have = lines_of(source);
    have.windows(wanted.len())
        .filter(|w| *w == &wanted[..])
        .count()
}

impl ShaderModel {
    /// The driver's line number of `file_line` of the file at `span`.
    pub fn driver_line_of_file(&self, span: FileSpan, file_line: u32) -> Option<u32> {
        span.source_line(file_line).map(|l| self.driver_line(l))
    }

    /// The file line the driver numbers `driver_line`, where that line
    /// comes from the file at `span` (the first such, if `#line` repeats
    /// numbers).
    pub fn file_line_of_driver(&self, span: FileSpan, driver_line: u32) -> Option<u32> {
        self.lines_numbered(driver_line)
            .into_iter()
            .find_map(|l| span.file_line(l))
    }

    /// Whether `file_line` of the file at `span` has a step.
    pub fn file_line_has_step(&self, span: FileSpan, file_line: u32) -> bool {
        span.source_line(file_line)
            .is_some_and(|l| !self.steps_on_line(l).is_empty())
    }

    /// The steps a breakpoint on `file_line` of the file at `span` stops
    /// at, and their source line: the line's own steps; for a line with
    /// none (a declaration, a function's header, a blank line, a brace),
    /// those of the next line with steps, moving only over lines with no
    /// code but braces and comments, all active (a line in an inactive
    /// `#if` region, or a conditional directive, holds no breakpoint and
    /// ends the search), and never past a `}` into another function.
    /// Exact source lines: other code the driver numbers the same
    /// (`#line`) is not included.
    pub fn file_line_steps(&self, span: FileSpan, file_line: u32) -> Option<(u32, Vec<StepId>)> {
        let start = span.source_line(file_line)?;
        let code = code_by_line(&self.pp.text);
        let active: Vec<&str> = self.pp.active.split('\n').collect();
        let is_active = |l: u32| {
            let i = l as usize - 1;
            let code = code.get(i).map_or("", String::as_str);
            code.trim().is_empty() || active.get(i).is_some_and(|a| !a.trim().is_empty())
        };
        let mut closed = false;
        let last = span.first_line + span.lines - 1;
        for l in start..=last {
            if !is_active(l) {
                return None;
            }
            let steps = self.steps_on_line(l);
            if let Some(first) = steps.first() {
                if closed && l != start {
                    // Past a `}`: only where the code before is the same function's.
                    let before = self.steps().iter().rev().find(|s| s.line < start)?;
                    if before.function != self.step(*first).function {
                        return None;
                    }
                }
                return Some((l, steps));
            }
            let text = code.get(l as usize - 1).map_or("", String::as_str);
            if l != start
                && text
                    .chars()
                    .any(|c| !c.is_whitespace() && c != '{' && c != '}')
            {
                return None;
            }
            closed |= text.contains('}');
        }
        None
    }
}

/// Each line of `text` with its comments blanked (`//` to the line's end,
/// `/* */` over lines).
fn code_by_line(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut in_block = false;
    for line in text.split('\n') {
        let mut code = String::new();
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            if in_block {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    in_block = false;
                }
                continue;
            }
            match (c, chars.peek()) {
                ('/', Some('/')) => break,
                ('/', Some('*')) => {
                    chars.next();
                    in_block = true;
                }
                _ => code.push(c),
            }
        }
        out.push(code);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Stage;

    const FILE: &str =
        "uniform float g;\nout vec4 c;\n\nvoid main() {\n    float a = g;\n    c = vec4(a);\n}\n";

    #[test]
    fn a_file_after_a_prefix_is_found_at_its_line() {
        let src = format!("#version 330 core\n#define X 1\n{FILE}");
        let span = find_file(&src, FILE).unwrap();
        assert_eq!(
            span,
            FileSpan {
                first_line: 3,
                lines: 7
            }
        );
        assert_eq!(span.source_line(5), Some(7));
        assert_eq!(span.file_line(7), Some(5));
        assert_eq!(span.file_line(2), None, "the prefix is not the file's");
        assert_eq!(span.source_line(8), None, "past the file's end");
        assert_eq!(span.source_line(0), None);
    }

    #[test]
    fn crlf_and_the_trailing_newline_do_not_matter() {
        let crlf = FILE.replace('\n', "\r\n");
        let src = format!("#version 330 core\n{}", FILE.trim_end());
        assert_eq!(find_file(&src, &crlf).unwrap().first_line, 2);
        let src_crlf = format!("#version 330 core\r\n{crlf}");
        assert_eq!(find_file(&src_crlf, FILE).unwrap().first_line, 2);
    }

    #[test]
    fn occurrences_are_counted() {
        let src = format!("#version 330 core\n{FILE}{FILE}");
        assert_eq!(occurrences(&src, FILE), 2);
        assert_eq!(find_file(&src, FILE).unwrap().first_line, 2);
        assert_eq!(occurrences(&src, "x\n"), 0);
        assert_eq!(occurrences(&src, "\n"), 0);
    }

    #[test]
    fn a_lone_cr_breaks_no_line() {
        // The driver numbers "a\rb" as one line: so does the file's span.
        let src = "#version 330 core\nfloat a;\rfloat b;\nvoid main() {}\n";
        let file = "float a;\rfloat b;\nvoid main() {}\n";
        let span = find_file(src, file).unwrap();
        assert_eq!((span.first_line, span.lines), (2, 2));
        assert_eq!(span.source_line(2), Some(3));
        assert_eq!(find_file(src, "float a;\nfloat b;\n"), None);
    }

    #[test]
    fn text_that_is_not_whole_lines_or_another_file_is_not_found() {
        let src = format!("#version 330 core\n{FILE}");
        // Part of a line only.
        assert_eq!(find_file(&src, "float a"), None);
        // A different file.
        assert_eq!(find_file(&src, "void main() {\n    float b = g;\n"), None);
        assert_eq!(find_file(&src, ""), None);
        assert_eq!(find_file(&src, "\n\n"), None);
        // Longer than the source.
        assert_eq!(find_file("x\n", "x\ny\n"), None);
    }

    #[test]
    fn a_file_in_the_middle_is_found() {
        let src = format!("#version 330 core\n{FILE}// appended by the app\n");
        let span = find_file(&src, FILE).unwrap();
        assert_eq!((span.first_line, span.lines), (2, 7));
    }

    #[test]
    fn driver_lines_honour_line_directives() {
        // `#line 1` after the prefix: the driver numbers the file's lines as the file does.
        let src = format!("#version 330 core\n#line 1\n{FILE}");
        let m = ShaderModel::parse(&src, Stage::Fragment).unwrap();
        let span = find_file(&src, FILE).unwrap();
        assert_eq!(span.first_line, 3);
        assert_eq!(m.driver_line_of_file(span, 5), Some(5));
        assert_eq!(m.file_line_of_driver(span, 5), Some(5));
        assert!(m.file_line_has_step(span, 5));
        assert!(!m.file_line_has_step(span, 3), "an empty line");
        // Without it, the prefix shifts them.
        let src = format!("#version 330 core\n#define X 1\n{FILE}");
        let m = ShaderModel::parse(&src, Stage::Fragment).unwrap();
        let span = find_file(&src, FILE).unwrap();
        assert_eq!(m.driver_line_of_file(span, 5), Some(7));
        assert_eq!(m.file_line_of_driver(span, 7), Some(5));
        assert_eq!(m.file_line_of_driver(span, 1), None, "the prefix's line");
    }

    #[test]
    fn a_file_line_is_its_own_steps_not_the_prefix_code_numbered_the_same() {
        // A library before `#line 1`: its line 4 is the driver's line 4 too.
        let lib = "#version 330 core\nfloat lib(float x) {\n    float y = x;\n    y = y * 3.0;\n    return y;\n}\n#line 1\n";
        let src = format!("{lib}{FILE}");
        let m = ShaderModel::parse(&src, Stage::Fragment).unwrap();
        let span = find_file(&src, FILE).unwrap();
        let (line, steps) = m.file_line_steps(span, 5).unwrap();
        assert_eq!(line, span.source_line(5).unwrap());
        assert!(
            steps.iter().all(|s| m.step(*s).function == "main"),
            "{steps:?}"
        );
        assert_eq!(
            m.driver_line(4),
            m.driver_line(line - 1),
            "the numbers collide"
        );
        // `void main() {` moves to the first statement; the blank line
        // before a function's header does not enter it.
        assert_eq!(m.file_line_steps(span, 3), None);
        assert_eq!(
            m.file_line_steps(span, 4).unwrap().0,
            span.source_line(5).unwrap()
        );
        // Nothing after main's end.
        assert_eq!(m.file_line_steps(span, 7), None);
    }

    #[test]
    fn inactive_lines_and_other_functions_hold_no_breakpoint() {
        let file = "out vec4 c;\nfloat f() {\n    return 1.0;\n}\n\nvoid main() {\n#ifdef NOPE\n    c = vec4(2.0);\n#endif\n    c = vec4(f());\n}\n";
        let src = format!("#version 330 core\n{file}");
        let m = ShaderModel::parse(&src, Stage::Fragment).unwrap();
        let span = find_file(&src, file).unwrap();
        assert_eq!(m.file_line_steps(span, 8), None, "an inactive line");
        assert_eq!(m.file_line_steps(span, 7), None, "a directive");
        assert_eq!(
            m.file_line_steps(span, 10).unwrap().0,
            span.source_line(10).unwrap()
        );
        // f's closing brace and the blank line: not main's code.
        assert_eq!(m.file_line_steps(span, 4), None);
        assert_eq!(m.file_line_steps(span, 5), None);
        assert_eq!(
            m.file_line_steps(span, 3).unwrap().0,
            span.source_line(3).unwrap()
        );
    }

    #[test]
    fn a_whole_source_maps_line_for_line() {
        let span = FileSpan::whole(FILE);
        assert_eq!((span.first_line, span.lines), (1, 7));
        assert_eq!(span.file_line(4), Some(4));
    }
}
