"""Thread safety (tests/c/stress.c): 8 threads run all eight ops concurrently on their own streams, each
result bit-identical to the serial one; per-thread error messages; aclInit references, device resets, private
contexts and the allocation registry under contention. Also run sanitized under `make asan`."""
import os

import pytest

import native


@pytest.fixture(scope="module")
def stress_exe(tmp_path_factory):
    return native.build("stress.c", tmp_path_factory.mktemp("stress") / "stress")


@pytest.mark.parametrize("omp", ["1", "2"])
def test_eight_threads_all_ops(stress_exe, omp):
    seconds = os.environ.get("STRESS_SECONDS", "0.7")
    res = native.run(stress_exe, "-T", "8", "-t", seconds, "-S", "2", env_extra={"OMP_NUM_THREADS": omp},
                     timeout=240)
    assert res.returncode == 0 and "stress ok" in res.stdout, res.stdout[-4000:] + res.stderr[-4000:]
    runs = [int(l.split()[1]) for l in res.stdout.splitlines() if "concurrent runs" in l]
    assert len(runs) == 8 and all(r > 0 for r in runs), res.stdout


def test_more_threads_than_cores_large_problems(stress_exe):
    """Bigger problems, so every op forks OpenMP teams inside each of the 8 threads."""
    res = native.run(stress_exe, "-T", "8", "-t", "0.7", "-S", "16", env_extra={"OMP_NUM_THREADS": "2",
                                                                              "OMP_WAIT_POLICY": "passive"},
                     timeout=240)
    assert res.returncode == 0 and "stress ok" in res.stdout, res.stdout[-4000:] + res.stderr[-4000:]
