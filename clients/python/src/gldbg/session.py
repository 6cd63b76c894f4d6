"""`Session`: one debugging session over gldbg's gRPC API, a thin typed
layer over the generated stub (the CLI's commands as methods).

Every request either returns the daemon's reply (a `pb` message, or a
`Value` / `Local` / `Dump` where numbers are involved) or raises
`GldbgError` with the daemon's message. Requests that need a stopped app
fail at once while it runs (the daemon's FAILED_PRECONDITION); `continue_`,
`step` and the shader moves return at the next stop.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import IO, Any, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

import grpc

from gldbg.daemon import Daemon
from gldbg.errors import GldbgError
from gldbg.proto import grpc_stubs, pb
from gldbg.values import At, Dump, Local, Value, invocation

PathLike = Union[str, "os.PathLike[str]"]

#: Dumps of large framebuffers are far above gRPC's 4 MiB default.
_MAX_MESSAGE = 1 << 30
_CHANNEL_OPTIONS: List[Tuple[str, Any]] = [
    ("grpc.max_receive_message_length", _MAX_MESSAGE),
    ("grpc.max_send_message_length", 64 << 20),
]
_STEP_MODES = {"into": pb.STEP_MODE_INTO, "over": pb.STEP_MODE_OVER, "out": pb.STEP_MODE_OUT}
_DUMP_FORMATS = {"png": pb.DUMP_FORMAT_PNG, "npy": pb.DUMP_FORMAT_NPY, "raw": pb.DUMP_FORMAT_RAW}
_BUFFERS = {"copy": pb.BUFFER_COPY, "clear": pb.BUFFER_CLEAR, "off": pb.TEST_OFF}


def _channel_target(address: str) -> str:
    """`unix:PATH` or `HOST:PORT` (also `http://HOST:PORT`) as a gRPC target."""
    if address.startswith("unix:"):
        if len(address) == len("unix:"):
            raise GldbgError("`%s`: expected unix:PATH" % address)
        return address
    hostport = address[len("http://"):] if address.startswith("http://") else address
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        raise GldbgError("`%s`: expected unix:PATH or HOST:PORT" % address)
    return hostport


def _read_token(token: Optional[str], token_file: Optional[PathLike]) -> Optional[str]:
    if token is not None:
        return token
    if token_file is not None:
        try:
            return Path(token_file).read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError) as e:
            raise GldbgError("cannot read the token file %s: %s" % (token_file, e)) from None
    return os.environ.get("GLDBG_TOKEN")


def breakpoint_spec(target: str) -> "pb.BreakpointSpec":
    """A CLI break target as a spec: `draw`, `draw N`, `frame`,
    `shader-switch`, `error`, `FILE:LINE` (the file read here), or a
    GL/GLX/EGL function name."""
    words = target.split()
    if words == ["draw"]:
        return pb.BreakpointSpec(draw=pb.Empty())
    if len(words) == 2 and words[0] == "draw":
        if not words[1].isdigit() or int(words[1]) == 0:
            raise GldbgError("`%s`: the draw number is a positive integer" % target)
        return pb.BreakpointSpec(draw_number=int(words[1]))
    simple = {"frame": "frame", "shader-switch": "shader_switch", "error": "gl_error"}
    if len(words) == 1 and words[0] in simple:
        return pb.BreakpointSpec(**{simple[words[0]]: pb.Empty()})
    file, sep, line = target.rpartition(":")
    if sep and file and line.isdigit():
        return pb.BreakpointSpec(source=source_breakpoint(file, int(line)))
    if len(words) != 1:
        raise GldbgError("`%s`: not a break target (a function, draw [N], frame, "
                         "shader-switch, error or FILE:LINE)" % target)
    return pb.BreakpointSpec(function=target)


def source_breakpoint(file: PathLike, line: int, *, text: Optional[str] = None, condition: str = "",
                      ignore: int = 0, temporary: bool = False) -> "pb.SourceBreakpoint":
    """`break FILE:LINE [if COND]`: the file's text is read here (`text`
    None) and sent along, as the daemon may run elsewhere."""
    if text is None:
        try:
            text = Path(file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise GldbgError("cannot read %s: %s" % (file, e)) from None
    return pb.SourceBreakpoint(file=str(file), text=text, line=line, condition=condition,
                               ignore=ignore, temporary=temporary)


class Session:
    """One session with a gldbg daemon: `Session.start()` runs one of our
    own (ended with the session, the app killed first), `Session.connect()`
    attaches to a running `gldbg-debugd` (left running). Use it as a
    context manager, or call `close()`.

    `timeout` (seconds, None: none) bounds every request; a `continue_`
    to a breakpoint far away may take long.
    """

    def __init__(self, channel: grpc.Channel, *, token: Optional[str] = None,
                 daemon: Optional[Daemon] = None, timeout: Optional[float] = None):
        self._channel = channel
        self._stub = grpc_stubs.DebuggerStub(channel)
        self._metadata = (("authorization", "Bearer %s" % token),) if token else ()
        self._daemon = daemon
        self.timeout = timeout

    @classmethod
    def start(cls, debugd: Optional[PathLike] = None, *, env: Optional[Mapping[str, str]] = None,
              output: Union[int, IO[bytes], None] = None,
              timeout: Optional[float] = None) -> "Session":
        """Start `gldbg-debugd` (`debugd`, else `$GLDBG_DEBUGD`, else PATH)
        on a private Unix socket with a random token, and connect to it.
        `env`: added to the daemon's environment (the app inherits it);
        `output`: where the daemon's and the app's output go (default: ours)."""
        daemon = Daemon(debugd, env=env, output=output)
        try:
            return cls.connect(daemon.address, token=daemon.token, timeout=timeout, _daemon=daemon)
        except BaseException:
            daemon.stop()
            raise

    @classmethod
    def connect(cls, address: str, *, token: Optional[str] = None,
                token_file: Optional[PathLike] = None, tls_ca: Optional[PathLike] = None,
                tls_domain: Optional[str] = None, timeout: Optional[float] = None,
                connect_timeout: float = 20.0, _daemon: Optional[Daemon] = None) -> "Session":
        """Attach to the daemon at `address` (`unix:PATH` or `HOST:PORT`).
        The token: `token`, else read from `token_file`, else `$GLDBG_TOKEN`
        (TCP needs one). `tls_ca`: a TCP daemon's TLS (its CA's PEM file)."""
        target = _channel_target(address)
        token = _read_token(token, token_file)
        if tls_ca is not None:
            if target.startswith("unix:"):
                raise GldbgError("tls_ca is for HOST:PORT (a Unix socket is private to its user)")
            creds = grpc.ssl_channel_credentials(root_certificates=Path(tls_ca).read_bytes())
            options = list(_CHANNEL_OPTIONS)
            if tls_domain:
                options.append(("grpc.ssl_target_name_override", tls_domain))
            channel = grpc.secure_channel(target, creds, options=options)
        else:
            channel = grpc.insecure_channel(target, options=_CHANNEL_OPTIONS)
        try:
            grpc.channel_ready_future(channel).result(timeout=connect_timeout)
        except grpc.FutureTimeoutError:
            channel.close()
            raise GldbgError("cannot connect to %s within %.0f s" % (address, connect_timeout)) from None
        return cls(channel, token=token, daemon=_daemon, timeout=timeout)

    def close(self) -> None:
        """Leave the session. A daemon of our own ends, the app first killed
        (it would outlive the daemon); an attached daemon runs on."""
        try:
            if self._daemon is not None:
                try:
                    if self.state().state not in (pb.RUN_STATE_EXITED, pb.RUN_STATE_NOT_STARTED):
                        self.kill()
                except GldbgError:
                    pass
        finally:
            self._channel.close()
            if self._daemon is not None:
                self._daemon.stop()
                self._daemon = None

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, rpc: str, request: Any) -> Any:
        try:
            return getattr(self._stub, rpc)(request, metadata=self._metadata, timeout=self.timeout)
        except grpc.RpcError as e:
            raise GldbgError.from_rpc(rpc, e) from None

    # --- the app and GL-level control -----------------------------------

    def launch(self, program: PathLike, args: Sequence[str] = (), *, env: Sequence[str] = (),
               cwd: PathLike = "", capture_output: bool = False) -> "pb.StateReply":
        """Start `program` (stopped before its first GL call). `env`: extra
        `KEY=VALUE`s; `capture_output`: its output as `output` events."""
        return self._call("Launch", pb.LaunchRequest(
            program=str(program), args=[str(a) for a in args], env=list(env), cwd=str(cwd),
            capture_output=capture_output))

    def state(self) -> "pb.StateReply":
        return self._call("GetState", pb.Empty())

    def continue_(self) -> "pb.StateReply":
        """`continue`: run to the next breakpoint, crash or exit."""
        return self._call("Continue", pb.Empty())

    def step(self, count: int = 1) -> "pb.StateReply":
        """`step N` at the GL level: execute the call, stop at the next."""
        return self._call("Step", pb.StepRequest(count=count))

    def skip(self) -> "pb.StateReply":
        return self._call("Skip", pb.Empty())

    def pause(self) -> "pb.StateReply":
        return self._call("Pause", pb.Empty())

    def kill(self) -> "pb.StateReply":
        return self._call("Kill", pb.Empty())

    def detach(self) -> "pb.StateReply":
        return self._call("Detach", pb.Empty())

    def info_call(self) -> "pb.CallInfo":
        return self._call("InfoCall", pb.Empty())

    def info_program(self) -> "pb.ProgramInfo":
        return self._call("InfoProgram", pb.Empty())

    def add_breakpoint(self, target: Union[str, "pb.BreakpointSpec"]) -> "pb.Breakpoint":
        """`break TARGET`: a CLI target (`draw 2`, `glDrawArrays`, `frame`,
        `wave.frag:24`, ...; see `breakpoint_spec`) or a BreakpointSpec."""
        spec = breakpoint_spec(target) if isinstance(target, str) else target
        return self._call("AddBreakpoint", spec)

    def break_source(self, file: PathLike, line: int, **options) -> "pb.Breakpoint":
        """`break FILE:LINE` with `condition`, `ignore`, `temporary`, `text`
        (see `source_breakpoint`): a pending shader breakpoint."""
        spec = pb.BreakpointSpec(source=source_breakpoint(file, line, **options))
        return self._call("AddBreakpoint", spec)

    def delete_breakpoint(self, id: int = 0) -> List["pb.Breakpoint"]:
        """`delete ID` (0: all); the breakpoints left."""
        return list(self._call("DeleteBreakpoint", pb.DeleteBreakpointRequest(id=id)).breakpoints)

    def breakpoints(self) -> List["pb.Breakpoint"]:
        return list(self._call("ListBreakpoints", pb.Empty()).breakpoints)

    def events(self) -> Iterator["pb.Event"]:
        """The session's events (stops, exits, crashes, output, dprintf), as they come."""
        stream = self._stub.Events(pb.Empty(), metadata=self._metadata)
        try:
            yield from stream
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.CANCELLED:
                raise GldbgError.from_rpc("Events", e) from None

    # --- shader debugging -------------------------------------------------

    def debug_shader(self, stage: str = "fragment", *, depth: str = "copy", stencil: str = "copy",
                     alpha_test_off: bool = False) -> "pb.ShaderStop":
        """`debug STAGE` at the draw/dispatch the app is stopped at; stops at
        the first step of main. `depth`/`stencil`: "copy", "clear" or "off"."""
        try:
            request = pb.DebugShaderRequest(stage=stage, depth=_BUFFERS[depth],
                                            stencil=_BUFFERS[stencil], alpha_test_off=alpha_test_off)
        except KeyError as e:
            raise GldbgError("%s: a buffer mode is copy, clear or off" % e) from None
        return self._call("DebugShader", request)

    def shader_step(self, mode: str = "into", count: int = 1) -> "pb.ShaderStop":
        """`step` ("into"), `next` ("over") or `finish` ("out"), `count` times."""
        if mode not in _STEP_MODES:
            raise GldbgError("step mode %r: into, over or out" % mode)
        return self._call("ShaderStep", pb.ShaderStepRequest(mode=_STEP_MODES[mode], count=count))

    def reverse_step(self, mode: str = "into", count: int = 1) -> "pb.ShaderStop":
        """`reverse-step` / `reverse-next` / `reverse-finish` in the focused trace."""
        if mode not in _STEP_MODES:
            raise GldbgError("step mode %r: into, over or out" % mode)
        return self._call("ShaderReverseStep", pb.ShaderStepRequest(mode=_STEP_MODES[mode], count=count))

    def shader_break(self, line: int, condition: str = "", temporary: bool = False) -> "pb.ShaderBreakpoints":
        """`break LINE [if COND]` / `tbreak LINE` (the shader's line, as the driver numbers it)."""
        return self._call("ShaderBreak", pb.ShaderBreakRequest(line=line, condition=condition,
                                                               temporary=temporary))

    def shader_delete_break(self, line: int = 0) -> "pb.ShaderBreakpoints":
        return self._call("ShaderDeleteBreak", pb.ShaderBreakRequest(line=line))

    def shader_continue(self) -> "pb.ShaderStop":
        """Shader `continue`: to the next shader breakpoint (or the end: `finished`)."""
        return self._call("ShaderContinue", pb.Empty())

    def advance(self, line: int) -> "pb.ShaderStop":
        """Run the shader to `line` (a temporary breakpoint and `continue`,
        as gdb's `advance`). Raises GldbgError when no invocation reaches it."""
        self.shader_break(line, temporary=True)
        stop = self.shader_continue()
        if stop.line != line or stop.finished:
            try:
                self.shader_delete_break(line)
            except GldbgError:
                pass
            raise GldbgError("line %d is not reached: the shader stopped at line %d%s"
                             % (line, stop.line, " (finished)" if stop.finished else ""), rpc="ShaderContinue")
        return stop

    def focus(self, at: Optional[At]) -> "pb.ShaderStop":
        """`focus X,Y`: steps follow that invocation (None: all again)."""
        request = pb.FocusRequest(at=invocation(at)) if at is not None else pb.FocusRequest()
        return self._call("Focus", request)

    def print(self, expr: str, at: Optional[At] = None) -> Value:
        """`print EXPR [@ AT]` at the current step: one invocation's value
        (`at`: (x, y) or an Invocation), or a summary over all."""
        request = pb.PrintRequest(expr=expr, at=invocation(at)) if at is not None else pb.PrintRequest(expr=expr)
        return Value.from_reply(self._call("Print", request))

    def info_locals(self, args: bool = False) -> List[Local]:
        """`info locals` (`args`: `info args`) of the selected frame."""
        reply = self._call("InfoLocals", pb.InfoLocalsRequest(args=args))
        return [Local.from_proto(v) for v in reply.locals]

    def backtrace(self) -> "pb.CallStack":
        return self._call("Backtrace", pb.Empty())

    def list_source(self, line: int = 0, context: int = 0) -> "pb.SourceListing":
        """`list [LINE]`: source lines around the step (or LINE)."""
        return self._call("ShaderList", pb.ShaderListRequest(line=line, context=context))

    def dump(self, expr: str, path: Optional[PathLike] = None, *, format: Optional[str] = None,
             range: Optional[Tuple[float, float]] = None, viridis: bool = False) -> Dump:
        """`dump EXPR FILE`: EXPR over the draw as an image, written to
        `path` if given. `format`: "png", "npy" or "raw" (default: from the
        path's suffix, else png); `range` (lo, hi): a fixed PNG mapping;
        `viridis`: a scalar through viridis with a legend."""
        if format is None:
            suffix = Path(path).suffix.lower() if path is not None else ""
            format = "npy" if suffix == ".npy" else "png"
        if format not in _DUMP_FORMATS:
            raise GldbgError("dump format %r: png, npy or raw" % format)
        request = pb.DumpRequest(
            expr=expr, format=_DUMP_FORMATS[format], fixed_range=range is not None,
            range_min=range[0] if range else 0.0, range_max=range[1] if range else 0.0,
            colormap=pb.DUMP_COLORMAP_VIRIDIS if viridis else pb.DUMP_COLORMAP_CHANNELS)
        dump = Dump.from_reply(expr, self._call("Dump", request))
        raw_size = dump.width * dump.height * (4 * 8 + 1)
        if format == "raw" and len(dump.data) != raw_size:
            raise GldbgError("a RAW dump of %dx%d is %d bytes, the daemon sent %d (a daemon without "
                             "RAW dumps?)" % (dump.width, dump.height, raw_size, len(dump.data)), rpc="Dump")
        if path is not None:
            try:
                Path(path).write_bytes(dump.data)
            except OSError as e:
                raise GldbgError("cannot write %s: %s" % (path, e)) from None
        return dump

    def end(self) -> "pb.StateReply":
        """`end`: leave shader debugging (the app stays stopped at the draw)."""
        return self._call("EndDebug", pb.Empty())

    # --- source files (editors, `break FILE:LINE`) ------------------------

    def set_source_files(self, files: Sequence["pb.SourceFile"]) -> "pb.SourceFiles":
        return self._call("SetSourceFiles", pb.SourceFiles(files=list(files)))

    def list_shaders(self) -> List["pb.ShaderSource"]:
        return list(self._call("ListShaders", pb.Empty()).shaders)
