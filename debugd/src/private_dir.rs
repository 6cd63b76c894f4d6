//! Private scratch directories and files that other local users can neither
//! read nor plant: a fresh directory made atomically with `mkdir` (mode 0700,
//! a random name, never an existing one), under `$XDG_RUNTIME_DIR` when that
//! is usable, else under the temporary directory; files in it created with
//! `O_CREAT|O_EXCL|O_NOFOLLOW` and mode 0600. The directory is removed when
//! its [`PrivateDir`] is dropped, unless [`PrivateDir::keep`] was called.

use std::fs::{DirBuilder, File, OpenOptions};
use std::io::{self, Read as _, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

/// A directory only this user can enter; removed on drop unless kept.
#[derive(Debug)]
pub struct PrivateDir {
    path: PathBuf,
    keep: bool,
}

impl PrivateDir {
    /// A new directory `PREFIX-<random>` under [`base_dir`].
    pub fn create(prefix: &str) -> io::Result<PrivateDir> {
        Self::create_in(&base_dir(), prefix)
    }

    /// A new directory `PREFIX-<random>` under `base`: `mkdir` with mode 0700,
    /// which fails on any existing name (a directory or symlink someone else
    /// planted included), then checked to be ours and private.
    pub fn create_in(base: &Path, prefix: &str) -> io::Result<PrivateDir> {
        for _ in 0..64 {
            let path = base.join(format!("{prefix}-{}", random_hex(8)?));
            match DirBuilder::new().mode(0o700).create(&path) {
                Ok(()) => {
                    let dir = PrivateDir { path, keep: false };
                    check_private(&dir.path)?;
                    return Ok(dir);
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            format!("no free name for a private directory in {}", base.display()),
        ))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Leave the directory and its files in place when dropped.
    pub fn keep(&mut self) {
        self.keep = true;
    }

    /// Create `NAME` in the directory (never an existing file, never through a
    /// symlink), mode 0600, holding `contents`; returns its path.
    pub fn write_new(&self, name: &str, contents: &[u8]) -> io::Result<PathBuf> {
        let path = self.path.join(name);
        write_new_file(&path, contents)?;
        Ok(path)
    }
}

impl Drop for PrivateDir {
    fn drop(&mut self) {
        if !self.keep {
            // std's remove_dir_all does not follow symlinks inside the tree.
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Create `path` with `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600, holding `contents`.
pub fn write_new_file(path: &Path, contents: &[u8]) -> io::Result<()> {
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    file.write_all(contents)?;
    file.sync_all()
}

/// `$XDG_RUNTIME_DIR` when it is an absolute directory of ours that no one
/// else may enter, else [`std::env::temp_dir`].
pub fn base_dir() -> PathBuf {
    if let Some(xdg) = std::env::var_os("XDG_RUNTIME_DIR").map(PathBuf::from)
        && xdg.is_absolute()
        && check_private(&xdg).is_ok()
    {
        return xdg;
    }
    std::env::temp_dir()
}

/// `path` is a directory (not a symlink), owned by this user, with no access
/// for group or others.
fn check_private(path: &Path) -> io::Result<()> {
    let meta = std::fs::symlink_metadata(path)?;
    if !meta.file_type().is_dir() {
        return Err(io::Error::other(format!(
            "{} is not a directory",
            path.display()
        )));
    }
    if meta.uid() != rustix::process::geteuid().as_raw() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!("{} belongs to another user", path.display()),
        ));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            format!(
                "{} is open to other users (mode {:o})",
                path.display(),
                meta.mode() & 0o7777
            ),
        ));
    }
    Ok(())
}

/// `2 * bytes` hex digits from the kernel's random source.
pub fn random_hex(bytes: usize) -> io::Result<String> {
    let mut buf = vec![0u8; bytes];
    File::open("/dev/urandom")?.read_exact(&mut buf)?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn private_dir_and_files() {
        let base = std::env::temp_dir();
        let dir = PrivateDir::create_in(&base, "gldbg-pd-test").unwrap();
        let path = dir.path().to_path_buf();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert_eq!(meta.permissions().mode() & 0o777, 0o700);
        let f = dir.write_new("a.txt", b"hello").unwrap();
        assert_eq!(std::fs::read(&f).unwrap(), b"hello");
        assert_eq!(
            std::fs::metadata(&f).unwrap().permissions().mode() & 0o777,
            0o600
        );
        // Never an existing file, never through a symlink.
        assert!(dir.write_new("a.txt", b"again").is_err());
        let target = base.join(format!("gldbg-pd-target-{}", std::process::id()));
        std::fs::write(&target, b"victim").unwrap();
        std::os::unix::fs::symlink(&target, path.join("link")).unwrap();
        assert!(dir.write_new("link", b"overwrite").is_err());
        assert_eq!(std::fs::read(&target).unwrap(), b"victim");
        drop(dir);
        assert!(!path.exists(), "removed on drop");
        assert!(target.exists(), "the symlink's target survives the cleanup");
        let _ = std::fs::remove_file(&target);

        let mut kept = PrivateDir::create_in(&base, "gldbg-pd-test").unwrap();
        kept.keep();
        let path = kept.path().to_path_buf();
        drop(kept);
        assert!(path.is_dir(), "kept");
        std::fs::remove_dir(&path).unwrap();
    }

    #[test]
    fn random_names() {
        let a = random_hex(16).unwrap();
        assert_eq!(a.len(), 32);
        assert_ne!(a, random_hex(16).unwrap());
    }
}
