"""The op table and what it generates: no generated file drifts from the table, every table op is exported with
the generated prototypes, and the Python metadata matches."""
import os
import subprocess
import sys

import pyaclnn
from pyaclnn import lib
from pyaclnn._optable import OPS

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_generated_files_are_current():
    r = subprocess.run([sys.executable, os.path.join(REPO, "tools", "gen_ops.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout + r.stderr


def test_every_table_op_is_exported():
    for name in OPS:
        assert hasattr(lib, f"aclnn{name}GetWorkspaceSize"), name
        assert hasattr(lib, f"aclnn{name}"), name


def test_call_rejects_wrong_arity():
    import pytest
    with pytest.raises(TypeError):
        pyaclnn.call("Add", 1)
