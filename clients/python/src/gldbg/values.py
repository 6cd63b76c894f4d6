"""Values as the client hands them out: where (an invocation), what (a
printed value, a local, a dumped image), never a number gldbg does not know.

A component that is not written yet at the step is `None`, never a number;
an invocation that did not reach the step has no components at all.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple, Union

from gldbg.proto import pb

#: An invocation: a pixel `(x, y)` (window coordinates, origin bottom-left
#: as gl_FragCoord), or a message of `vertex`, `primitive`, `workgroup`.
At = Union[Tuple[int, int], "pb.Invocation"]


def pixel(x: int, y: int) -> "pb.Invocation":
    """The fragment at window pixel (x, y) (`@ X,Y`)."""
    return pb.Invocation(pixel=pb.Pixel(x=x, y=y))


def vertex(n: int) -> "pb.Invocation":
    """Vertex N (`@ vertex N`)."""
    return pb.Invocation(vertex=n)


def primitive(n: int) -> "pb.Invocation":
    """Input primitive N of a geometry shader (`@ primitive N`)."""
    return pb.Invocation(primitive=n)


def workgroup(x: int, y: int, z: int) -> "pb.Invocation":
    """The compute invocation of global id (x, y, z) (`@ invocation X,Y,Z`)."""
    return pb.Invocation(invocation=pb.Workgroup(x=x, y=y, z=z))


def invocation(at: At) -> "pb.Invocation":
    """`at` as the proto's Invocation (a pair is a pixel)."""
    if isinstance(at, pb.Invocation):
        return at
    x, y = at
    return pixel(int(x), int(y))


def at_text(inv: Optional["pb.Invocation"]) -> str:
    """`X,Y`, `vertex N`, ... as the CLI writes it ("" for none)."""
    if inv is None:
        return ""
    kind = inv.WhichOneof("kind")
    if kind == "pixel":
        return "%d,%d" % (inv.pixel.x, inv.pixel.y)
    if kind == "invocation":
        return "invocation %d,%d,%d" % (inv.invocation.x, inv.invocation.y, inv.invocation.z)
    if kind in ("vertex", "primitive"):
        return "%s %d" % (kind, getattr(inv, kind))
    return ""


def _components(value: Sequence[float], undefined: Sequence[int]) -> Tuple[Optional[float], ...]:
    unknown = set(undefined)
    return tuple(None if i in unknown else v for i, v in enumerate(value))


def _text(ty: str, components: Tuple[Optional[float], ...]) -> str:
    parts = ["<not yet written>" if c is None else repr(c) for c in components]
    if len(parts) == 1:
        return "%s %s" % (ty, parts[0])
    return "%s (%s)" % (ty, ", ".join(parts))


@dataclass(frozen=True)
class Value:
    """`print EXPR [@ AT]`: one invocation's value, or a summary over all.

    `components` holds the value's components in order (`None`: not written
    yet at this step); it is empty when the invocation did not reach the
    step (`reached` False; `discarded` when the fragment was discarded) and
    for a summary (`summary` set). `written_unknown` names what the value
    reads whose writes gldbg cannot follow (shown as read, never claimed
    written or not). `reply` is the daemon's whole PrintReply (vertex
    tables, emitted vertices, parts of matrices and structs).
    """

    expr: str
    type: str
    components: Tuple[Optional[float], ...]
    reached: bool
    discarded: bool
    at: Optional["pb.Invocation"]
    summary: Optional["pb.Summary"]
    written_unknown: Tuple[str, ...]
    reply: "pb.PrintReply"

    @classmethod
    def from_reply(cls, reply: "pb.PrintReply") -> "Value":
        at = reply.at if reply.HasField("at") else None
        summary = reply.summary if reply.HasField("summary") else None
        return cls(
            expr=reply.expr,
            type=reply.type,
            components=_components(reply.value, reply.undefined),
            reached=reply.reached,
            discarded=reply.discarded,
            at=at,
            summary=summary,
            written_unknown=tuple(reply.written_unknown),
            reply=reply,
        )

    def __str__(self) -> str:
        if self.summary is not None and self.at is None:
            s = self.summary
            return "%s over %d invocations: min %s, max %s" % (
                self.type, s.count, list(s.min), list(s.max)
            )
        if not self.reached:
            why = "discarded" if self.discarded else "not reached"
            return "%s <%s>" % (self.type, why)
        return _text(self.type, self.components)


@dataclass(frozen=True)
class Local:
    """One variable of `info locals` / `info args`: the focused invocation's
    value (`components`, `None` where not written yet), or without a focus
    a summary over every invocation that reaches the step."""

    name: str
    type: str
    components: Tuple[Optional[float], ...]
    summary: Optional["pb.Summary"]
    maybe_undefined: bool
    written_unknown: bool

    @classmethod
    def from_proto(cls, v: "pb.LocalValue") -> "Local":
        return cls(
            name=v.name,
            type=v.type,
            components=_components(v.value, v.undefined),
            summary=v.summary if v.HasField("summary") else None,
            maybe_undefined=v.maybe_undefined,
            written_unknown=v.written_unknown,
        )

    def __str__(self) -> str:
        if self.summary is not None and not self.components:
            s = self.summary
            return "%s over %d invocations: min %s, max %s" % (
                self.type, s.count, list(s.min), list(s.max)
            )
        return _text(self.type, self.components)


@dataclass(frozen=True)
class Dump:
    """`dump EXPR FILE`: the encoded image (`data`, PNG or NPY; RAW for
    editors) of EXPR over the draw, `width` x `height` values (a PNG with a
    legend is `legend_width` wider), `reached` invocations with a value,
    and for a PNG the value range mapped onto each colour channel
    (`mapped`: (min, max) per channel, black at min, full at max)."""

    expr: str
    type: str
    width: int
    height: int
    data: bytes
    reached: int
    undefined: int
    mapped: Tuple[Tuple[float, float], ...]
    legend_width: int
    written_unknown: Tuple[str, ...]

    @classmethod
    def from_reply(cls, expr: str, reply: "pb.DumpReply") -> "Dump":
        return cls(
            expr=expr,
            type=reply.type,
            width=reply.width,
            height=reply.height,
            data=bytes(reply.data),
            reached=reply.reached,
            undefined=reply.undefined,
            mapped=tuple(zip(reply.mapped_min, reply.mapped_max)),
            legend_width=reply.legend_width,
            written_unknown=tuple(reply.written_unknown),
        )
