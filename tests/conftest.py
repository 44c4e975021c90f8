"""Shared pytest fixtures. Helpers live in tests/helpers.py (importable from every test directory)."""
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def torch():
    """PyTorch CPU, the numeric oracle; the test is skipped cleanly when it is not installed."""
    if os.environ.get("PYACLNN_SKIP_TORCH"):
        pytest.skip("PYACLNN_SKIP_TORCH is set")
    return pytest.importorskip("torch")


@pytest.fixture(scope="session")
def installed_tree(tmp_path_factory):
    """`make install PREFIX=<tmp>`: a fresh CANN-shaped tree for this test session (whatever build/ holds)."""
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    prefix = tmp_path_factory.mktemp("cann")
    subprocess.run(["make", "-s", "-C", repo, "install", f"PREFIX={prefix}"], check=True, capture_output=True)
    return str(prefix)


@pytest.fixture(scope="session")
def site_packages(installed_tree):
    """The installed tree's python/site-packages (what set_env.sh puts on PYTHONPATH)."""
    sp = os.path.join(installed_tree, "python", "site-packages")
    assert os.path.exists(os.path.join(sp, "acl", "__init__.py"))
    return sp
