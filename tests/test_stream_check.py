"""The stream checker (libsrc/runtime/streamcheck.c): every rule with its correct twin, in C (tests/c/stream_check.c),
under each PYACLNN_STREAM_CHECK mode, and the Python package's synchronisation."""
import numpy as np
import pytest

import native


@pytest.fixture(scope="module")
def exe(tmp_path_factory):
    return native.build("stream_check.c", tmp_path_factory.mktemp("sc") / "stream_check")


@pytest.mark.parametrize("mode", ["on", "warn", "off", "sync"])
def test_rules_and_twins(exe, mode):
    env = {"PYACLNN_STREAM_CHECK": mode if mode != "sync" else "on", "PYACLNN_SYNC": "1" if mode == "sync" else "0"}
    out = native.run(exe, *([] if mode == "on" else ["off"]), env_extra=env)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "stream_check ok" in out.stdout
    if mode == "warn":
        assert "pyaclnn warning: stream check:" in out.stderr
    else:
        assert "stream check" not in out.stderr


def test_python_synchronises_its_streams():
    import pyaclnn
    from pyaclnn.runtime import Stream
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    out = np.zeros_like(x)
    s = Stream()
    pyaclnn.call("Add", x, x, 1.0, out, stream=s)  # the public functions synchronise: out is final
    np.testing.assert_array_equal(out, x + x)


def test_python_unsynchronised_read_is_reported():
    from pyaclnn import lib, ffi
    from pyaclnn.errors import AclRuntimeError
    from pyaclnn.ops._common import launch
    from pyaclnn.runtime import Stream
    import pyaclnn
    x = pyaclnn.AclTensor.from_array(np.ones((4, 4), np.float32))
    out = pyaclnn.AclTensor((4, 4), np.float32)
    s = Stream()
    alpha = lib.aclCreateScalar(ffi.new("float *", 1.0), lib.ACL_FLOAT)
    launch("Add", x, x, alpha, out, stream=s, synchronize=False)
    with pytest.raises(AclRuntimeError) as e:
        out.numpy()
    assert e.value.code == 507004 and "aclnnAdd" in str(e.value)
    s.synchronize()
    np.testing.assert_array_equal(out.numpy(), np.full((4, 4), 2, np.float32))
    lib.aclDestroyScalar(alpha)
