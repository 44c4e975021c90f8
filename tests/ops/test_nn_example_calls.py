"""The calls of the upstream ops-nn examples that fail under the emulator (issue 12), reproduced: each example
builds a tensor over a device buffer smaller than the tensor's dtype needs (CreateAclTensor sizes the buffer from
the host vector's element type: an INT64 index over one `int`, INT64 indices over `float`s, FLOAT outputs over
`short`s), so on hardware the op reads or writes the allocator's padding (aclrtMalloc rounds up to 32 bytes and adds
32; device memory is not zero-initialised). The emulator holds tensor views to the requested size and refuses them
(161002 naming the tensor); the same call over a buffer of the right size runs and matches PyTorch."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from pyaclnn.lowlevel import AclTensor
from pyaclnn.ops.table import make_scalar
from helpers import run_executor, ws_call

ND = lib.ACL_FORMAT_ND


def over(nbytes, shape, dtype):
    """A tensor of `shape`/`dtype` over a fresh device buffer of `nbytes` bytes (as the example allocates it)."""
    return AclTensor(shape, dtype, buffer=pyaclnn.DeviceBuffer(nbytes))


def test_median_dim_example(torch):
    # index/gather_v2/examples/test_aclnn_median_dim.cpp: self [4, 2] float 0..7, dim 1, keepDim false
    x = np.arange(8, dtype=np.float32).reshape(4, 2)
    self_t = AclTensor.from_array(x, ND)
    values = AclTensor.empty((4,), np.float32, ND)
    bad = over(4 * 4, (4,), np.int64)                  # the example's indicesOut: vector<float>(4) as INT64
    rc, _, _, msg = ws_call("MedianDim", self_t, 1, False, values, bad)
    assert rc == 161002 and "indicesOut" in msg and "outside" in msg, msg
    idx = AclTensor.empty((4,), np.int64, ND)
    rc, ws, ex, msg = ws_call("MedianDim", self_t, 1, False, values, idx)
    assert rc == 0, msg
    assert run_executor("MedianDim", ex, ws) == 0
    v, i = torch.median(torch.from_numpy(x), dim=1)
    np.testing.assert_array_equal(values.numpy(), v.numpy())
    np.testing.assert_array_equal(idx.numpy(), i.numpy())


@pytest.mark.parametrize("op", ["IndexFill", "InplaceIndexFill"])
def test_index_fill_example(torch, op):
    # index/index_fill_d/examples/test_aclnn_(inplace_)index_fill.cpp: self [3, 3] float 0..8, dim 1, index [0]
    # built from vector<int>{0} as INT64, value 10
    x = np.arange(9, dtype=np.float32).reshape(3, 3)
    self_t = AclTensor.from_array(x, ND)
    value = make_scalar(10.0)
    bad = over(4, (1,), np.int64)
    outs = () if op == "InplaceIndexFill" else (AclTensor.empty((3, 3), np.float32, ND),)
    rc, _, _, msg = ws_call(op, self_t, 1, bad, value, *outs)
    assert rc == 161002 and "index" in msg and "outside" in msg, msg
    index = AclTensor.from_array(np.array([0], np.int64), ND)
    rc, ws, ex, msg = ws_call(op, self_t, 1, index, value, *outs)
    assert rc == 0, msg
    assert run_executor(op, ex, ws) == 0
    want = torch.from_numpy(x).index_fill(1, torch.tensor([0]), 10.0).numpy()
    np.testing.assert_array_equal((outs[0] if outs else self_t).numpy(), want)


def test_softmax_cross_entropy_with_logits_example(torch):
    # activation/softmax_cross_entropy_with_logits/examples/...: loss [16] FLOAT over vector<int16_t>(16)
    f = np.ones((16, 4), np.float32)
    lab = np.full((16, 4), 2, np.float32)
    feats, labels = AclTensor.from_array(f, ND), AclTensor.from_array(lab, ND)
    backprop = AclTensor.empty((16, 4), np.float32, ND)
    bad = over(16 * 2, (16,), np.float32)
    rc, _, _, msg = ws_call("SoftmaxCrossEntropyWithLogits", feats, labels, bad, backprop)
    assert rc == 161002 and "loss" in msg and "outside" in msg, msg
    loss = AclTensor.empty((16,), np.float32, ND)
    rc, ws, ex, msg = ws_call("SoftmaxCrossEntropyWithLogits", feats, labels, loss, backprop)
    assert rc == 0, msg
    assert run_executor("SoftmaxCrossEntropyWithLogits", ex, ws) == 0
    logp = torch.log_softmax(torch.from_numpy(f), dim=1)
    np.testing.assert_allclose(loss.numpy(), (-(torch.from_numpy(lab) * logp).sum(1)).numpy(), rtol=1e-6)
    np.testing.assert_allclose(backprop.numpy(), (logp.exp() - torch.from_numpy(lab)).numpy(), rtol=1e-6)
