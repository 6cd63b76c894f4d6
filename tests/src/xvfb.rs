//! An Xvfb server of a test's own (`-displayfd`: it picks a free display),
//! for the GLX apps; a missing Xvfb is a failure naming the Debian package.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

/// An Xvfb server of its own for one test, killed on drop.
pub struct Xvfb {
    child: std::process::Child,
    display: String,
}

impl Xvfb {
    /// Starts `Xvfb -displayfd 1 -screen 0 640x480x24 -nolisten tcp` and reads the
    /// display number it picked from its stdout.
    pub fn start() -> Xvfb {
        let mut child = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "640x480x24",
                "-nolisten",
                "tcp",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start Xvfb ({e}): install xvfb (`bash .ci/setup`)"));
        let mut line = String::new();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let read = stdout.read_line(&mut line);
        let number = line.trim();
        if read.is_err() || number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("Xvfb did not report a display number (got {line:?})");
        }
        Xvfb {
            display: format!(":{number}"),
            child,
        }
    }

    /// The value for `DISPLAY`.
    pub fn display(&self) -> &str {
        &self.display
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        // SIGTERM lets Xvfb remove its lock file and socket; SIGKILL if it lingers.
        // SAFETY: kill(2) on the pid of our own child, which we have not reaped yet.
        unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        for _ in 0..250 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
