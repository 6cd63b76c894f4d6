//! The library half of the `gldbg` command: the command language's parser,
//! reached by the fuzz target (`cli/fuzz`, target `command_line`) and its
//! seed-replay test. The command itself is `main.rs`.

pub mod command;

/// The fuzz target's body: parse `data` (lossily as UTF-8, then each line
/// of it) as command lines. Never panics; an error message stays short
/// however long the line (input is quoted as a prefix, never repeated).
pub fn fuzz_command_line(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for line in std::iter::once(text.as_ref()).chain(text.lines()) {
        if let Err(e) = command::parse(line) {
            assert!(
                e.0.len() <= MAX_ERROR_BYTES,
                "a {}-byte error for a {}-byte line",
                e.0.len(),
                line.len()
            );
        }
    }
}

/// The longest parse error: usage text plus a few quoted words.
pub const MAX_ERROR_BYTES: usize = 1024;
