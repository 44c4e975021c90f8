"""Shared pytest fixtures. Helpers live in tests/helpers.py (importable from every test directory)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def torch():
    """PyTorch CPU, the numeric oracle; the test is skipped cleanly when it is not installed."""
    if os.environ.get("PYACLNN_SKIP_TORCH"):
        pytest.skip("PYACLNN_SKIP_TORCH is set")
    return pytest.importorskip("torch")
