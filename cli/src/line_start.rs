//! gldbg's text lines start at the start of a line, also when the app left
//! a partial line (`printf("progress: ")`) on the stdout they share.
//!
//! In text mode the app writes to gldbg's stdout directly (CLI.md: its
//! output reaches the terminal unchanged), so gldbg cannot see what it
//! wrote; it can see where the output stands:
//! * a terminal: the cursor column is unknown, but writing one column less
//!   than the terminal's width in spaces and a carriage return leaves the
//!   cursor at the start of the line it was on when that line was empty, and
//!   at the start of the next line otherwise (zsh's `PROMPT_SP`);
//! * a regular file (`> log`): its last byte says whether a line is open;
//! * a pipe: nothing can be known (with `--json` the app's output comes as
//!   `output` events and never shares a line with gldbg's).

use std::fs::File;
use std::io::{IsTerminal as _, Write};
use std::os::unix::fs::FileExt as _;

/// What gldbg's stdout is, for [`LineStart::ensure`].
pub enum LineStart {
    Terminal,
    /// The same file, opened again for reading its last byte.
    File(File),
    Unknown,
}

impl LineStart {
    /// Look at this process's stdout.
    pub fn detect() -> LineStart {
        if std::io::stdout().is_terminal() {
            return LineStart::Terminal;
        }
        let file = File::open("/proc/self/fd/1")
            .ok()
            .filter(|f| f.metadata().is_ok_and(|m| m.is_file()));
        match file {
            Some(f) => LineStart::File(f),
            None => LineStart::Unknown,
        }
    }

    /// Put the output at the start of a line if the app left a partial one.
    /// `out` must be flushed before (its bytes must be in the file).
    pub fn ensure(&self, out: &mut impl Write) {
        match self {
            LineStart::Terminal => {
                let _ = out.write_all(terminal_reset(terminal_columns()).as_bytes());
            }
            LineStart::File(f) => {
                if !file_ends_a_line(f) {
                    let _ = out.write_all(b"\n");
                }
            }
            LineStart::Unknown => {}
        }
        let _ = out.flush();
    }
}

/// Whether the file is empty or ends with a newline.
fn file_ends_a_line(f: &File) -> bool {
    let Ok(len) = f.metadata().map(|m| m.len()) else {
        return true;
    };
    let mut last = [b'\n'];
    len == 0 || f.read_at(&mut last, len - 1).is_err() || last[0] == b'\n'
}

/// `columns - 1` spaces and a carriage return (nothing without a width).
fn terminal_reset(columns: usize) -> String {
    if columns < 2 {
        return String::new();
    }
    format!("{}\r", " ".repeat(columns - 1))
}

/// The width of the terminal on stdout (0 if unknown).
fn terminal_columns() -> usize {
    // SAFETY: TIOCGWINSZ writes one `winsize` (plain integers, valid when
    // zeroed) into the struct we pass.
    let (r, size) = unsafe {
        let mut size: libc::winsize = std::mem::zeroed();
        (libc::ioctl(1, libc::TIOCGWINSZ, &mut size), size)
    };
    if r == 0 { size.ws_col as usize } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_tells_whether_a_line_is_open() {
        let path = std::env::temp_dir().join(format!("gldbg-line-{}", std::process::id()));
        std::fs::write(&path, "").unwrap();
        let f = File::open(&path).unwrap();
        assert!(file_ends_a_line(&f));
        std::fs::write(&path, "tick 1\nprogress: ").unwrap();
        assert!(!file_ends_a_line(&f));
        let (mut out, start) = (Vec::new(), LineStart::File(f));
        start.ensure(&mut out);
        assert_eq!(out, b"\n");
        std::fs::write(&path, "done\n").unwrap();
        out.clear();
        start.ensure(&mut out);
        assert!(out.is_empty());
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn a_terminal_gets_spaces_to_the_last_column_and_a_return() {
        assert_eq!(terminal_reset(4), "   \r");
        assert_eq!(terminal_reset(0), "");
    }
}
