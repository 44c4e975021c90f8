"""Builds the C library with `make` and ships, inside the package, the complete CANN-shaped toolkit tree
(pyaclnn/cann: include/, lib64/ with libpyaclnn.so and every alias library name, set_env.sh,
python/site-packages/, samples/ with their expected output). `python -m pyaclnn prefix` prints its path.

A wheel cannot hold symlinks, so the aliases are built as small ELF filter libraries (`make install
ALIASES_AS=filters`): real files that link (-lopapi_cv) and dlopen, each binding to the one libpyaclnn.so next to
it. The package's own loader (pyaclnn/_ffi.py) loads that same libpyaclnn.so: one copy of the library.
"""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join("build", "pip")


class BuildPyWithToolkit(build_py):
    def run(self):
        jobs = os.environ.get("PYACLNN_MAKE_JOBS", str(min(os.cpu_count() or 2, 8)))
        subprocess.check_call(["make", f"-j{jobs}", "install", f"BUILD={BUILD}", f"PREFIX={BUILD}/cann",
                               "ALIASES_AS=filters", "INSTALL_STRIP=1", "SET_ENV_FALLBACK="], cwd=HERE)
        super().run()
        if getattr(self, "editable_mode", False):
            # `pip install -e .`: the package is this checkout, which finds build/pip/{lib,cann} itself (after a
            # fresher build/lib and build/cann from `make`); a copy inside pyaclnn/ would go stale.
            return
        dest = os.path.join(self.build_lib, "pyaclnn", "cann")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(os.path.join(HERE, BUILD, "cann"), dest, symlinks=False)


cmdclass = {"build_py": BuildPyWithToolkit}
try:  # a platform wheel (it carries a compiled library) usable by any Python 3: cffi loads it in ABI mode
    try:
        from setuptools.command.bdist_wheel import bdist_wheel
    except ImportError:
        from wheel.bdist_wheel import bdist_wheel

    class PlatformWheel(bdist_wheel):
        def get_tag(self):
            return ("py3", "none", super().get_tag()[2])

    cmdclass["bdist_wheel"] = PlatformWheel
except ImportError:  # pragma: no cover - no wheel support: sdist/install still work
    pass


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # installed into platlib, wheel marked not pure
        return True


setup(cmdclass=cmdclass, distclass=BinaryDistribution)
