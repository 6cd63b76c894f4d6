#!/usr/bin/env python3
"""Value image: launch an app under gldbg, stop at a draw, debug its
fragment shader, run to a line, print values at a pixel and save the value
image of an expression over the draw (PNG), printing each step.

    python3 value_image.py [OPTIONS] [-- PROGRAM ARGS...]

Without PROGRAM it runs the repository's test app (target/debug/apps/
egl_files on tests/apps/shaders): at draw 2 it goes to line 26 of the
fragment shader (`acc = acc * 0.5;`, wave.frag's line 24 after the app's
two-line prefix), prints `acc` and `p` at pixel 10,20 and saves `acc` to
value.png. Needs the gldbg package importable (pip install clients/python,
or PYTHONPATH=OUTDIR of `python3 clients/python/gldbg_build.py OUTDIR`)
and gldbg-debugd (--debugd, $GLDBG_DEBUGD, the repository's
target/debug/gldbg-debugd, or PATH).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from gldbg import GldbgError, Session, pb

REPO = Path(__file__).resolve().parents[3]
DEFAULT_APP = [str(REPO / "target/debug/apps/egl_files"), str(REPO / "tests/apps/shaders")]
#: wave.frag's `acc = acc * 0.5;` (file line 24) in the shader the driver compiles.
DEFAULT_LINE = 26


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--debugd", help="gldbg-debugd to start (default: $GLDBG_DEBUGD, the repository's, PATH)")
    ap.add_argument("--connect", metavar="ADDR", help="attach to a running gldbg-debugd instead (unix:PATH, HOST:PORT)")
    ap.add_argument("--token-file", help="with --connect: the daemon's token (else $GLDBG_TOKEN)")
    ap.add_argument("--draw", type=int, default=2, help="stop at this draw (default 2)")
    ap.add_argument("--stage", default="fragment", help="the stage to debug (default fragment)")
    ap.add_argument("--line", type=int, help="run the shader to this line (default: %d for the test app)" % DEFAULT_LINE)
    ap.add_argument("--pixel", default="10,20", help="X,Y: the invocation to print at (default 10,20)")
    ap.add_argument("--print", dest="exprs", action="append", help="an expression to print (repeatable; default acc, p)")
    ap.add_argument("--expr", default="acc", help="the expression of the value image (default acc)")
    ap.add_argument("--out", default="value.png", help="the value image (PNG, default value.png)")
    ap.add_argument("--npy", help="also save the values as float32 .npy")
    ap.add_argument("program", nargs="*", help="PROGRAM ARGS... (after --)")
    args = ap.parse_args(argv)
    try:
        x, y = (int(v) for v in args.pixel.split(","))
    except ValueError:
        ap.error("--pixel X,Y: two integers")
    args.at = (x, y)
    if not args.program:
        args.program = DEFAULT_APP
        if args.line is None:
            args.line = DEFAULT_LINE
    if args.exprs is None:
        args.exprs = ["acc", "p"]
    return args


def open_session(args) -> Session:
    if args.connect:
        return Session.connect(args.connect, token_file=args.token_file)
    debugd = args.debugd or os.environ.get("GLDBG_DEBUGD")
    built = REPO / "target/debug/gldbg-debugd"
    if debugd is None and built.is_file():
        debugd = built
    return Session.start(debugd)


def run(s: Session, args) -> None:
    program, *app_args = args.program
    st = s.launch(program, app_args)
    print("launched %s: stopped at %s" % (program, st.stop.function))
    bp = s.add_breakpoint("draw %d" % args.draw)
    print("breakpoint %d: %s" % (bp.id, bp.description))
    st = s.continue_()
    if st.state != pb.RUN_STATE_STOPPED or st.stop.draw != args.draw:
        raise GldbgError("the app did not stop at draw %d: %s" % (args.draw, pb.RunState.Name(st.state)))
    print("stopped at %s: draw %d, frame %d" % (st.stop.function, st.stop.draw, st.stop.frame))

    stop = s.debug_shader(args.stage)
    print("debugging the %s shader: line %d `%s` (%d invocations)"
          % (stop.stage, stop.line, stop.text, stop.reached))
    if args.line is not None:
        stop = s.advance(args.line)
        print("at line %d `%s` (%d invocations)" % (stop.line, stop.text, stop.reached))

    at = "%d,%d" % args.at
    for expr in args.exprs:
        print("print %s @ %s = %s" % (expr, at, s.print(expr, at=args.at)))
    s.focus(args.at)
    for local in s.info_locals():
        print("local %s @ %s = %s" % (local.name, at, local))

    dump = s.dump(args.expr, args.out, format="png")
    ranges = ", ".join("%r..%r" % r for r in dump.mapped)
    print("saved %s: %dx%d %s, %d invocations, %s mapped from %s (black to full)"
          % (args.out, dump.width + dump.legend_width, dump.height, dump.type, dump.reached,
             args.expr, ranges))
    if args.npy:
        s.dump(args.expr, args.npy, format="npy")
        print("saved %s: float32 (%d, %d, 4), rows top-down, NaN where not reached"
              % (args.npy, dump.height, dump.width))

    s.end()
    st = s.kill()
    print("ended: %s" % st.exit.description)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        with open_session(args) as s:
            run(s, args)
    except GldbgError as e:
        print("value_image: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
