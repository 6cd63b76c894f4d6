//! The access token of a TCP listener, kept off the command line (where
//! every local user reads it in `/proc/PID/cmdline`): read from a file that
//! only its owner can read (`--token-file`), taken from `GLDBG_TOKEN`, or,
//! when neither is given, generated from the kernel's random source and
//! written to a fresh 0600 file in a private directory whose path is printed.

use std::io::Read as _;
use std::os::unix::fs::{MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use crate::private_dir::{PrivateDir, random_hex};

/// The environment variable that carries the token.
pub const TOKEN_ENV: &str = "GLDBG_TOKEN";

/// What the `--token` flag is told now that it is refused.
pub const NO_TOKEN_ON_ARGV: &str = "--token is refused: every local user can read a command line \
     (/proc/PID/cmdline); give the token with --token-file PATH (a file of yours, mode 0600) \
     or in the environment variable GLDBG_TOKEN";

/// Why a token could not be had.
#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("cannot read the token file {path}: {source}")]
    Open {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("the token file {path} {why}")]
    Unsafe { path: PathBuf, why: String },
    #[error("the token {0}")]
    Bad(&'static str),
    #[error("cannot write a token file: {0}")]
    Write(std::io::Error),
}

/// Read the token from `path`: a regular file (not a symlink), owned by this
/// user, with no access for group or others. Surrounding whitespace (the
/// final newline) is not part of the token.
pub fn read_token_file(path: &Path) -> Result<String, TokenError> {
    let open_err = |source| TokenError::Open {
        path: path.to_path_buf(),
        source,
    };
    let unsafe_file = |why: String| TokenError::Unsafe {
        path: path.to_path_buf(),
        why,
    };
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                unsafe_file("is a symlink (give the file itself)".into())
            } else {
                open_err(e)
            }
        })?;
    let meta = file.metadata().map_err(open_err)?;
    if !meta.file_type().is_file() {
        return Err(unsafe_file("is not a regular file".into()));
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(unsafe_file(format!(
            "belongs to uid {}, not to this user",
            meta.uid()
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(unsafe_file(format!(
            "has mode {:o}: other users may read it (chmod 600 it)",
            meta.mode() & 0o7777
        )));
    }
    let mut text = String::new();
    file.by_ref()
        .take(64 * 1024)
        .read_to_string(&mut text)
        .map_err(open_err)?;
    check_token(text.trim())
}

/// A usable token: not empty, printable ASCII without spaces (it travels in
/// an HTTP/2 header).
pub fn check_token(token: &str) -> Result<String, TokenError> {
    if token.is_empty() {
        return Err(TokenError::Bad("is empty"));
    }
    if !token.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(TokenError::Bad(
            "must be printable ASCII without spaces or control characters",
        ));
    }
    Ok(token.to_string())
}

/// The token from `--token-file` if given, else from `GLDBG_TOKEN`; `None`
/// when neither is set. The variable is removed from this process's
/// environment, so launched apps do not inherit it: call it before any
/// other thread of the process starts.
pub fn token_from(file: Option<&Path>) -> Result<Option<String>, TokenError> {
    let env = std::env::var(TOKEN_ENV).ok();
    if env.is_some() {
        // SAFETY: called at start-up, before the binaries spawn threads that
        // read the environment (the runtime's workers do not).
        unsafe { std::env::remove_var(TOKEN_ENV) };
    }
    match (file, env) {
        (Some(path), _) => read_token_file(path).map(Some),
        (None, Some(t)) => check_token(t.trim()).map(Some),
        (None, None) => Ok(None),
    }
}

/// A new token of 256 random bits, as 64 hex digits.
pub fn generate() -> Result<String, TokenError> {
    random_hex(32).map_err(TokenError::Write)
}

/// A generated token in its file: `DIR/token`, mode 0600, in a private
/// directory removed (with the file) when this is dropped.
#[derive(Debug)]
pub struct TokenFile {
    dir: PrivateDir,
    path: PathBuf,
}

impl TokenFile {
    /// Write `token` (with a final newline) to a new file.
    pub fn write(token: &str) -> Result<TokenFile, TokenError> {
        Self::write_into(
            PrivateDir::create("gldbg-token").map_err(TokenError::Write)?,
            token,
        )
    }

    /// As [`Self::write`], its private directory made under `base`.
    pub fn write_in(base: &Path, token: &str) -> Result<TokenFile, TokenError> {
        let dir = PrivateDir::create_in(base, "gldbg-token").map_err(TokenError::Write)?;
        Self::write_into(dir, token)
    }

    fn write_into(dir: PrivateDir, token: &str) -> Result<TokenFile, TokenError> {
        let path = dir
            .write_new("token", format!("{token}\n").as_bytes())
            .map_err(TokenError::Write)?;
        Ok(TokenFile { dir, path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The private directory that holds the file.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }
}

/// The token of a TCP listener on `addr` given none: generated, written
/// to its private file (under `base` when given, e.g. a caller's own
/// private directory), and the file's path printed on stderr after
/// `who: ` with the `gldbg connect` line that uses it. The file goes when
/// the returned [`TokenFile`] is dropped.
pub fn for_tcp(
    who: &str,
    addr: &dyn std::fmt::Display,
    base: Option<&Path>,
) -> Result<(String, TokenFile), TokenError> {
    let token = generate()?;
    let file = match base {
        Some(base) => TokenFile::write_in(base, &token)?,
        None => TokenFile::write(&token)?,
    };
    eprintln!(
        "{who}: the token for {addr} is in {} (gldbg connect {addr} --token-file {})",
        file.path().display(),
        file.path().display()
    );
    Ok((token, file))
}

/// `a == b` in time that depends only on the lengths.
pub fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn token_files_must_be_private_regular_and_ours() {
        let dir = PrivateDir::create_in(&std::env::temp_dir(), "gldbg-token-test").unwrap();
        let good = dir.write_new("good", b"s3cret\n").unwrap();
        assert_eq!(read_token_file(&good).unwrap(), "s3cret");
        let open = dir.path().join("open");
        std::fs::write(&open, "s3cret").unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = read_token_file(&open).unwrap_err().to_string();
        assert!(e.contains("mode 644"), "{e}");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&good, &link).unwrap();
        let e = read_token_file(&link).unwrap_err().to_string();
        assert!(e.contains("symlink"), "{e}");
        let e = read_token_file(dir.path()).unwrap_err().to_string();
        assert!(e.contains("not a regular file"), "{e}");
        let empty = dir.write_new("empty", b"\n").unwrap();
        assert!(read_token_file(&empty).is_err());
        let spaced = dir.write_new("spaced", b"a b").unwrap();
        assert!(read_token_file(&spaced).is_err());
    }

    #[test]
    fn generated_tokens_are_long_random_and_written_privately() {
        let t = generate().unwrap();
        assert_eq!(t.len(), 64);
        assert!(t.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(t, generate().unwrap());
        let file = TokenFile::write(&t).unwrap();
        assert_eq!(read_token_file(file.path()).unwrap(), t);
        let dir = file.dir().to_path_buf();
        drop(file);
        assert!(!dir.exists());
    }

    #[test]
    fn token_compare() {
        assert!(constant_time_eq(b"Bearer x", b"Bearer x"));
        assert!(!constant_time_eq(b"Bearer x", b"Bearer y"));
        assert!(!constant_time_eq(b"Bearer", b"Bearer x"));
    }

    #[test]
    fn for_tcp_writes_a_private_file_under_the_base() {
        use std::os::unix::fs::PermissionsExt as _;
        let base = PrivateDir::create("gldbg-token-test").unwrap();
        let (token, file) = for_tcp("test", &"127.0.0.1:1", Some(base.path())).unwrap();
        assert_eq!(token.len(), 64);
        assert!(
            file.path().starts_with(base.path()),
            "{}",
            file.path().display()
        );
        assert_eq!(
            std::fs::read_to_string(file.path()).unwrap(),
            format!("{token}\n")
        );
        let mode = std::fs::metadata(file.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir = file.dir().to_path_buf();
        drop(file);
        assert!(!dir.exists(), "the token's directory goes with it");
        let (other, _f) = for_tcp("test", &"127.0.0.1:1", None).unwrap();
        assert_ne!(token, other);
    }
}
