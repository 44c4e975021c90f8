"""Builds the C library with `make` and ships it inside the package (pyaclnn/lib/libpyaclnn.so)."""
import os
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))


class BuildPyWithLibrary(build_py):
    def run(self):
        subprocess.check_call(["make", "-j2", "lib", "BUILD=build/pip"], cwd=HERE)
        super().run()
        dest = os.path.join(self.build_lib, "pyaclnn", "lib")
        os.makedirs(dest, exist_ok=True)
        shutil.copy2(os.path.join(HERE, "build", "pip", "lib", "libpyaclnn.so"), dest)


class BinaryDistribution(Distribution):
    def has_ext_modules(self):  # a platform wheel: it carries a compiled library
        return True


setup(cmdclass={"build_py": BuildPyWithLibrary}, distclass=BinaryDistribution)
