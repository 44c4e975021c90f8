"""valgrind --leak-check=full on every built doc sample and on the C API smoke harness: no error and no leak
attributable to the library (tools/valgrind.supp only silences libgomp's thread pool). `make memcheck` also
runs the stress and fuzz harnesses under valgrind. Skipped without valgrind, and under the sanitizers."""
import glob
import os
import shutil
import subprocess

import pytest

import native

REPO = native.REPO
pytestmark = [
    pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed"),
    pytest.mark.skipif(bool(native.sanitize()), reason="valgrind cannot run sanitized binaries"),
]
VALGRIND = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--show-leak-kinds=definite,indirect,possible",
            "--errors-for-leak-kinds=definite,indirect,possible",
            f"--suppressions={os.path.join(REPO, 'tools', 'valgrind.supp')}", "-q"]


def memcheck(cmd, env=None, timeout=300):
    e = dict(os.environ, OMP_WAIT_POLICY="passive")
    e.pop("LD_PRELOAD", None)
    e.update(env or {})
    res = subprocess.run(VALGRIND + cmd, capture_output=True, text=True, timeout=timeout, env=e)
    assert res.returncode == 0, f"valgrind on {cmd}: exit {res.returncode}\n{res.stderr[-6000:]}"


def test_api_smoke_under_valgrind(tmp_path):
    exe = native.build("api_smoke.c", tmp_path / "api_smoke")
    memcheck([exe])


SAMPLES = sorted(p for p in glob.glob(os.path.join(REPO, "build", "samples", "gxx", "*"))
                 if os.access(p, os.X_OK) and not p.endswith(".log"))


@pytest.mark.skipif(not SAMPLES, reason="doc samples not built (make samples)")
@pytest.mark.parametrize("sample", SAMPLES, ids=os.path.basename)
def test_sample_under_valgrind(sample):
    lib64 = os.path.join(REPO, "build", "cann", "lib64")
    memcheck([sample], env={"LD_LIBRARY_PATH": lib64 + os.pathsep + os.environ.get("LD_LIBRARY_PATH", "")})
