"""setuptools glue: `build_py` also generates the gRPC code into the build
directory (gldbg_build.py), so wheels and installs carry it and the
source tree never does. The metadata is in pyproject.toml."""

import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gldbg_build  # noqa: E402


class BuildPyWithProto(build_py):
    """build_py, then gldbg/_pb/ generated from gldbg.proto into build_lib."""

    def run(self):
        super().run()
        if not self.dry_run:
            try:
                gldbg_build.generate(Path(self.build_lib))
            except gldbg_build.BuildError as e:
                raise SystemExit("gldbg_build: %s" % e) from None


class SdistWithProto(sdist):
    """An sdist carries the proto (proto/gldbg.proto), found there when built."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        target = Path(base_dir) / "proto" / "gldbg.proto"
        target.parent.mkdir(exist_ok=True)
        shutil.copy2(gldbg_build.find_proto(), target)


setup(cmdclass={"build_py": BuildPyWithProto, "sdist": SdistWithProto})
