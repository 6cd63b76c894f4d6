//! The interactive loop: rustyline with history in ~/.gldbg_history and
//! completion of command names, of the word after `info`, `debug`, `break`,
//! and of GL/GLX/EGL function names after `break` (the registry's table);
//! several candidates are listed, as in bash.

use std::path::PathBuf;

use rustyline::completion::{Completer, Pair};
use rustyline::error::ReadlineError;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::history::FileHistory;
use rustyline::validate::Validator;
use rustyline::{Context, Editor, Helper};

use crate::command::{COMMAND_NAMES, subcommands};
use crate::{Driver, Flow};

struct Completion;

/// Candidates for the word being typed at `pos`.
fn complete(line: &str, pos: usize) -> (usize, Vec<String>) {
    let before = &line[..pos];
    let start = before
        .rfind(char::is_whitespace)
        .map(|i| i + 1)
        .unwrap_or(0);
    let word = &before[start..];
    let previous: Vec<&str> = before[..start].split_whitespace().collect();
    let choices: &[&str] = match previous.as_slice() {
        [] => COMMAND_NAMES,
        [cmd] => subcommands(cmd),
        _ => &[],
    };
    let mut found: Vec<String> = choices
        .iter()
        .filter(|c| c.starts_with(word))
        .map(|c| c.to_string())
        .collect();
    if matches!(previous.as_slice(), ["break" | "b" | "br"]) && !word.is_empty() {
        found.extend(function_names(word));
    }
    (start, found)
}

/// GL/GLX/EGL function names starting with `prefix` (the registry's table,
/// sorted by name); ignoring case when none match as typed.
fn function_names(prefix: &str) -> Vec<String> {
    let names = || gldbg_proto::api::FUNCTIONS.iter().map(|f| f.name);
    let exact: Vec<String> = names()
        .filter(|n| n.starts_with(prefix))
        .map(str::to_string)
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    let lower = prefix.to_ascii_lowercase();
    names()
        .filter(|n| n.to_ascii_lowercase().starts_with(&lower))
        .map(str::to_string)
        .collect()
}

impl Completer for Completion {
    type Candidate = Pair;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<Pair>)> {
        let (start, words) = complete(line, pos);
        Ok((
            start,
            words
                .into_iter()
                .map(|w| Pair {
                    display: w.clone(),
                    replacement: w,
                })
                .collect(),
        ))
    }
}

impl Hinter for Completion {
    type Hint = String;
}
impl Highlighter for Completion {}
impl Validator for Completion {}
impl Helper for Completion {}

fn history_path() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|h| PathBuf::from(h).join(".gldbg_history"))
}

/// Read commands until `quit`, Ctrl-D, or an unusable terminal.
pub fn run(driver: &mut Driver) {
    use std::io::IsTerminal as _;
    if !std::io::stdin().is_terminal() {
        return run_piped(driver);
    }
    let config = rustyline::Config::builder()
        .completion_type(rustyline::CompletionType::List)
        .build();
    let mut editor: Editor<Completion, FileHistory> = match Editor::with_config(config) {
        Ok(e) => e,
        Err(e) => {
            eprintln!("gldbg: cannot start the line editor: {e}");
            return;
        }
    };
    editor.set_helper(Some(Completion));
    let history = history_path();
    if let Some(h) = &history {
        let _ = editor.load_history(h);
    }
    // An empty line repeats the last step/next/continue, as in gdb.
    let mut last_repeatable: Option<String> = None;
    loop {
        driver.drain_events();
        match editor.readline("(gldbg) ") {
            Ok(line) => {
                let trimmed = line.trim();
                let line = if trimmed.is_empty() {
                    match &last_repeatable {
                        Some(l) => l.clone(),
                        None => continue,
                    }
                } else {
                    let _ = editor.add_history_entry(trimmed);
                    trimmed.to_string()
                };
                let first = line.split_whitespace().next().unwrap_or("");
                last_repeatable = matches!(
                    first,
                    "s" | "step" | "n" | "next" | "c" | "continue" | "finish"
                )
                .then(|| line.clone());
                if driver.run_line(&line) == Flow::Quit {
                    break;
                }
            }
            Err(ReadlineError::Interrupted) => continue,
            Err(ReadlineError::Eof) => break,
            Err(e) => {
                eprintln!("gldbg: {e}");
                break;
            }
        }
    }
    if let Some(h) = &history {
        let _ = editor.save_history(h);
    }
}

/// Commands from a pipe or file: one per line, no prompt (a prompt would
/// glue onto the next output line, e.g. a JSON line), no history.
fn run_piped(driver: &mut Driver) {
    use std::io::BufRead as _;
    let mut stdin = std::io::stdin().lock();
    let mut line = String::new();
    loop {
        driver.drain_events();
        line.clear();
        match stdin.read_line(&mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if driver.run_line(&line) == Flow::Quit {
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::complete;

    #[test]
    fn completion() {
        assert_eq!(complete("cont", 4), (0, vec!["continue".to_string()]));
        assert_eq!(
            complete("con", 3),
            (0, vec!["condition".to_string(), "continue".to_string()])
        );
        assert_eq!(
            complete("de", 2),
            (
                0,
                vec![
                    "debug".to_string(),
                    "delete".to_string(),
                    "detach".to_string()
                ]
            )
        );
        assert_eq!(complete("info b", 6), (5, vec!["breakpoints".to_string()]));
        assert_eq!(complete("debug f", 7), (6, vec!["fragment".to_string()]));
        assert_eq!(complete("print x", 7), (6, vec![]));
        // GL function names after `break`: every candidate, in order.
        let (start, words) = complete("break glDrawArraysI", 19);
        assert_eq!(start, 6);
        assert!(words.len() >= 5, "{words:?}");
        assert!(words.iter().all(|w| w.starts_with("glDrawArraysI")));
        assert!(words.is_sorted());
        for name in ["glDrawArraysIndirect", "glDrawArraysInstanced"] {
            assert!(words.iter().any(|w| w == name), "{name} in {words:?}");
        }
        assert!(
            complete("b eglSwapBuff", 13)
                .1
                .contains(&"eglSwapBuffers".to_string())
        );
        assert_eq!(complete("break gluseprogra", 17).1[0], "glUseProgram");
        assert_eq!(complete("break dr", 8).1, ["draw"]);
    }
}
