"""A `gldbg-debugd` of our own: started on a Unix socket in a private
directory, with a random token in a private file, stopped (and the
directory removed) when done."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import IO, Mapping, Optional, Union

from gldbg.errors import GldbgError

#: Where the daemon's executable is looked for when none is given.
DEBUGD_ENV = "GLDBG_DEBUGD"


def find_debugd(executable: Union[str, "os.PathLike[str]", None] = None) -> Path:
    """`executable`, else `$GLDBG_DEBUGD`, else `gldbg-debugd` on PATH."""
    named = executable or os.environ.get(DEBUGD_ENV)
    if named:
        path = Path(named)
        if not path.is_file():
            raise GldbgError("gldbg-debugd not found at %s" % path)
        return path
    found = shutil.which("gldbg-debugd")
    if found is None:
        raise GldbgError(
            "gldbg-debugd is not on PATH: give its path (debugd=...) or set %s" % DEBUGD_ENV
        )
    return Path(found)


class Daemon:
    """A running `gldbg-debugd --listen unix:DIR/gldbg.sock --token-file DIR/token`.

    DIR is a fresh 0700 directory and the token (256 random bits) is in a
    0600 file there: neither is on a command line. The daemon's output, and
    the app's unless launched with `capture_output`, goes where ours does
    (or to `output`: a file, `subprocess.DEVNULL`). `stop()` ends it; the app it
    launched outlives it (end the app first: `Session.close` does).
    """

    def __init__(
        self,
        executable: Union[str, "os.PathLike[str]", None] = None,
        *,
        env: Optional[Mapping[str, str]] = None,
        output: Union[int, IO[bytes], None] = None,
        start_timeout: float = 60.0,
    ):
        exe = find_debugd(executable)
        self.dir = Path(tempfile.mkdtemp(prefix="gldbg-py-"))
        self.socket = self.dir / "gldbg.sock"
        self.token = secrets.token_hex(32)
        token_file = self.dir / "token"
        fd = os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(self.token + "\n")
        full_env = dict(os.environ)
        full_env.update(env or {})
        full_env.pop("GLDBG_TOKEN", None)
        try:
            self.process = subprocess.Popen(
                [str(exe), "--listen", "unix:%s" % self.socket, "--token-file", str(token_file)],
                env=full_env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=output,
            )
        except OSError as e:
            shutil.rmtree(self.dir, ignore_errors=True)
            raise GldbgError("cannot start %s: %s" % (exe, e)) from None
        self._wait_for_socket(start_timeout)

    @property
    def address(self) -> str:
        return "unix:%s" % self.socket

    def _wait_for_socket(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not self.socket.exists():
            status = self.process.poll()
            if status is not None:
                self.stop()
                raise GldbgError(
                    "gldbg-debugd exited with status %d before listening (its messages are above)"
                    % status
                )
            if time.monotonic() > deadline:
                self.stop()
                raise GldbgError("gldbg-debugd did not listen within %.0f s" % timeout)
            time.sleep(0.02)

    def stop(self, timeout: float = 10.0) -> None:
        """SIGTERM (the daemon cleans up), SIGKILL after `timeout`; removes DIR."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.dir, ignore_errors=True)
