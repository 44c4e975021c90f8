"""The doc samples: byte-for-byte copies of the seed documents' code, built unchanged with the docs' CMake
pattern and a plain g++ line against the install tree, printing exactly ../shared/golden/<seed>.stdout."""
import os
import shlex
import subprocess
import sys

import pytest

from helpers import REPO

SHARED = os.path.join(os.path.dirname(REPO), "shared")
needs_shared = pytest.mark.skipif(not os.path.isdir(os.path.join(SHARED, "seeds")), reason="../shared not present")


@needs_shared
def test_samples_are_byte_for_byte_copies():
    res = subprocess.run([sys.executable, "tools/extract_samples.py", os.path.join(SHARED, "seeds"), "samples",
                          "--check"], cwd=REPO, capture_output=True, text=True)
    assert res.returncode == 0, res.stdout


@needs_shared
def test_check_samples_all_match():
    # under `make asan`, PYACLNN_MAKE_ARGS points the build at the sanitized library and install tree
    extra = shlex.split(os.environ.get("PYACLNN_MAKE_ARGS", ""))
    res = subprocess.run(["make", "-s", "check-samples", *extra], cwd=REPO, capture_output=True, text=True,
                         timeout=600)
    print(res.stdout)
    assert res.returncode == 0, res.stdout + res.stderr
    lines = [l for l in res.stdout.splitlines() if l[:3].isdigit() and "_" in l[:5]]
    assert len(lines) == 5 and all(" match " in l for l in lines), res.stdout
