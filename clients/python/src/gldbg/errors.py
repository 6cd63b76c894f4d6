"""The one exception of the gldbg client: a failed request, with the daemon's message."""

from __future__ import annotations

from typing import Optional

import grpc


class GldbgError(Exception):
    """A request gldbg refused or could not do.

    `message` is the daemon's own text (the gRPC status message, e.g.
    "expression `x`: undeclared identifier `x` at column 1"), `code` the
    gRPC status code (`grpc.StatusCode.INVALID_ARGUMENT`, ...; None for a
    failure on the client's side, such as a daemon that would not start),
    `rpc` the request's name in the proto (`Print`, `DebugShader`, ...).
    """

    def __init__(self, message: str, code: Optional[grpc.StatusCode] = None, rpc: str = ""):
        super().__init__(message)
        self.message = message
        self.code = code
        self.rpc = rpc

    @classmethod
    def from_rpc(cls, rpc: str, error: grpc.RpcError) -> "GldbgError":
        """The error of a failed call (`error` is also a `grpc.Call`)."""
        code = error.code() if hasattr(error, "code") else None
        details = error.details() if hasattr(error, "details") else None
        message = details or (code.name if code is not None else str(error))
        return cls(message, code, rpc)

    def __repr__(self) -> str:
        code = self.code.name if self.code is not None else None
        return "GldbgError(%r, code=%s, rpc=%r)" % (self.message, code, self.rpc)
