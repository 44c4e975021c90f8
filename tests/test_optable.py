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
        assert hasattr(lib, f"{OPS[name]['symbol']}GetWorkspaceSize"), name
        assert hasattr(lib, OPS[name]["symbol"]), name


def test_call_rejects_wrong_arity():
    import pytest
    with pytest.raises(TypeError):
        pyaclnn.call("Add", 1)


def _params(text):
    """A header's parameter list, normalised as tools/upstream.py records it."""
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        from upstream import norm_params
    finally:
        sys.path.pop(0)
    return norm_params(text)


def test_headers_match_the_recorded_upstream_prototypes():
    """Both phases of every op with an upstream header are declared exactly as that header declares them (types,
    parameter names, top-level const), as recorded in tools/optable/_upstream.py with the commit they come from."""
    import re
    sys.path.insert(0, os.path.join(REPO, "tools"))
    try:
        from optable._upstream import OPS as UP
    finally:
        sys.path.pop(0)
    assert UP, "tools/optable/_upstream.py is empty"
    seen = 0
    for name, meta in OPS.items():
        up = UP.get(name)
        if up is None:
            continue
        text = open(os.path.join(REPO, "include", "aclnnop", meta["header"])).read()
        sym = meta["symbol"]
        m1 = re.search(r"aclnnStatus\s+%sGetWorkspaceSize\s*\(([^;]*)\)\s*;" % sym, text)
        m2 = re.search(r"aclnnStatus\s+%s\s*\(([^;]*)\)\s*;" % sym, text)
        assert m1 and m2, name
        assert _params(m1.group(1)) == up["phase1"], name
        assert _params(m2.group(1)) == up["phase2"], name
        seen += 1
    # the ops without an upstream header: CANN generates theirs from the op definition (SwiGlu, GeluMul, AddLora...)
    assert seen >= len(OPS) - 14
