"""Building and running the C harnesses of tests/c/ against the library under test.

The library is the one the Python package loaded (``$PYACLNN_LIBRARY`` under ``make asan``). When
``$PYACLNN_SANITIZE`` is set (``make asan`` sets it to ``address,undefined``), every harness is compiled with the
same sanitizers, so subprocess-based tests run sanitized too.
"""
import os
import subprocess

import pyaclnn

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INC = os.path.join(REPO, "include")
C_DIR = os.path.join(REPO, "tests", "c")


def sanitize():
    """The sanitizer list of this run ('' when none)."""
    return os.environ.get("PYACLNN_SANITIZE", "")


def san_flags():
    s = sanitize()
    return [f"-fsanitize={s}", "-fno-omit-frame-pointer", "-fno-sanitize-recover=all"] if s else []


def library_dir():
    return os.path.dirname(os.path.abspath(pyaclnn.library_path))


def build(src, exe, *extra, opt="-O1", link=True):
    """Compile tests/c/<src> (or a path) to exe, linked against the library under test; returns exe."""
    path = src if os.path.isabs(src) else os.path.join(C_DIR, src)
    cmd = ["gcc", "-std=c11", opt, "-g", "-Wall", "-Wextra", "-Werror", *san_flags(), f"-I{INC}", path, "-o",
           str(exe), *extra]
    if link:
        d = library_dir()
        cmd += [f"-L{d}", "-lpyaclnn", f"-Wl,-rpath,{d}", "-pthread", "-lm", "-lstdc++"]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, " ".join(cmd) + "\n" + res.stderr
    return str(exe)


def run(exe, *args, timeout=300, env_extra=None):
    """Run a harness; returns the CompletedProcess (text). The sanitizer options of the environment apply."""
    env = dict(os.environ)
    env.setdefault("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1:allocator_may_return_null=1")
    env.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")
    env.update(env_extra or {})
    return subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=timeout, env=env)
