"""gldbg from Python: script the GLSL shader debugger as RenderDoc users
script RenderDoc.

    from gldbg import Session

    with Session.start() as s:              # a gldbg-debugd of our own
        s.launch("./app", ["--frames", "2"])
        s.add_breakpoint("draw 2")
        s.continue_()                       # stopped at draw 2
        s.debug_shader("fragment")
        s.advance(26)                       # the shader's line 26
        print(s.print("acc", at=(10, 20)))  # float 0.544281005859375
        s.dump("acc", "acc.png")

`Session.connect("unix:/path/sock", token_file=...)` attaches to a running
`gldbg-debugd` instead. Failures raise `GldbgError` with the daemon's
message. The generated protobuf messages are `gldbg.pb`.
"""

from gldbg.errors import GldbgError
from gldbg.proto import pb
from gldbg.session import Session, breakpoint_spec, source_breakpoint
from gldbg.values import Dump, Local, Value, invocation, pixel, primitive, vertex, workgroup

__all__ = [
    "Session",
    "GldbgError",
    "Value",
    "Local",
    "Dump",
    "pb",
    "breakpoint_spec",
    "source_breakpoint",
    "invocation",
    "pixel",
    "vertex",
    "primitive",
    "workgroup",
]
