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
    return res


def test_api_smoke_under_valgrind(tmp_path):
    exe = native.build("api_smoke.c", tmp_path / "api_smoke")
    memcheck([exe])


def test_stream_check_under_valgrind(tmp_path):
    exe = native.build("stream_check.c", tmp_path / "stream_check")
    res = memcheck([exe])
    assert "stream_check ok" in res.stdout


SAMPLES = sorted(os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(REPO, "samples", "*.cpp")))


@pytest.mark.parametrize("stem", SAMPLES)
def test_sample_under_valgrind(stem, installed_tree, tmp_path):
    """Each doc sample, built unchanged against a fresh install tree, is clean under valgrind and still prints the
    expected output."""
    inc = os.path.join(installed_tree, "include")
    lib64 = os.path.join(installed_tree, "lib64")
    exe = str(tmp_path / stem)
    subprocess.run(["g++", os.path.join(REPO, "samples", stem + ".cpp"), "-o", exe, f"-I{inc}",
                    f"-I{os.path.join(inc, 'aclnnop')}", f"-I{os.path.join(inc, 'aclnn')}", f"-L{lib64}",
                    "-lopapi_nn", "-lopapi_cv", "-lascendcl", "-lnnopbase", f"-Wl,-rpath,{lib64}"],
                   check=True, capture_output=True)
    res = memcheck([exe])
    with open(os.path.join(REPO, "samples", "expected", stem + ".stdout")) as f:
        assert res.stdout == f.read()
