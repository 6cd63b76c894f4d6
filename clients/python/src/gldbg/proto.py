"""The generated protobuf messages (`pb`) and gRPC stub of gldbg's API.

They are generated at build time from proto/proto/gldbg.proto (see
gldbg_build.py) and are the only place the rest of the package reads them
from: a missing generation is one clear error here.
"""

try:
    from gldbg._pb import gldbg_pb2 as pb
    from gldbg._pb import gldbg_pb2_grpc as grpc_stubs
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError(
        "gldbg's gRPC code is not generated (%s): install the package with pip "
        "(its build generates it), or run `python3 clients/python/gldbg_build.py OUTDIR` "
        "and put OUTDIR on PYTHONPATH" % e
    ) from e

__all__ = ["pb", "grpc_stubs"]
