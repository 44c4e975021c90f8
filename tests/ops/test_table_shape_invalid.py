"""Invalid-input rows of the shape/copy/creation ops, in each real op_api's check order: every row changes one
argument of a valid call (or two, to show which check comes first) and asserts the exact status (161001 / 161002, or
561103 where the real op reports ACLNN_ERR_INNER_NULLPTR) and that the message names the argument."""
import numpy as np

from pyaclnn import lib
from shape_util import RawTensor, dev, expect, ia, make_scalar

OK, NUL, INV, INNER = 0, 161001, 161002, 561103
F32 = np.float32


def raw(shape, dt, fmt=None):
    """An aclTensor without memory (phase 1 reads only its description); dt an aclDataType number."""
    return RawTensor(shape, dt, fmt)


def t(shape, dt=F32, fmt=None):
    """A device tensor of zeros (a real view: the rows that succeed run the checks after validation)."""
    return dev(np.zeros(shape, dt), "c", fmt)


def rows(op, table):
    for i, (args, code, word) in enumerate(table):
        try:
            expect(op, args, code, word)
        except AssertionError as e:
            raise AssertionError(f"aclnn{op} row {i}: {e}") from None


S9 = (1,) * 9
HIF8, C32 = lib.ACL_HIFLOAT8, lib.ACL_COMPLEX32


def test_cast():
    x, o = t((2, 3)), t((2, 3))
    rows("Cast", [
        ([None, lib.ACL_FLOAT, o], NUL, "self"),
        ([x, lib.ACL_FLOAT, None], NUL, "out"),
        ([raw((2, 3), HIF8), lib.ACL_FLOAT, None], NUL, "out"),  # NULL before dtypes
        ([raw((2, 3), HIF8), lib.ACL_FLOAT, o], INV, "self"),
        ([x, HIF8, o], INV, "dtype"),
        ([raw(S9, lib.ACL_FLOAT), lib.ACL_FLOAT, raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, lib.ACL_FLOAT, t((3, 2))], INV, "out"),
        ([x, lib.ACL_FLOAT16, o], INNER, "out"),  # the f16 result can not be ViewCopied into an f32 out
        ([t((0, 3)), lib.ACL_FLOAT16, t((0, 3))], OK, None),  # empty: returns before that
        ([x, lib.ACL_FLOAT, o], OK, None),
    ])


def test_inplace_copy():
    s, src = t((2, 3)), t((1, 3), np.int32)
    rows("InplaceCopy", [
        ([None, src], NUL, "selfRef"),
        ([s, None], NUL, "src"),
        ([raw((2, 3), HIF8), src], INV, "selfRef"),
        ([s, raw((1, 3), C32)], INV, "src"),
        ([raw(S9, lib.ACL_FLOAT), src], INV, "selfRef"),
        ([s, raw(S9, lib.ACL_FLOAT)], INV, "src"),
        ([s, t((2, 4))], INV, "src"),
        ([t((1, 3)), t((2, 3))], INV, "src"),  # broadcasts, but not to selfRef's shape
        ([t((2, 3)), t((1, 2, 3))], INV, "src"),
        ([s, src], OK, None),
    ])


def test_permute():
    x, o, d = t((2, 3)), t((3, 2)), ia([1, 0])
    rows("Permute", [
        ([None, d, o], NUL, "self"),
        ([x, None, o], NUL, "dims"),
        ([x, d, None], NUL, "out"),
        ([raw((2, 3), HIF8), d, o], INV, "self"),
        ([x, d, raw((3, 2), C32)], INV, "out"),
        ([x, d, t((3, 2), np.int32)], INV, "out"),
        ([x, d, t((6,))], INV, "out"),  # ranks before dims
        ([x, ia([1]), o], INV, "dims"),
        ([x, ia([1, 1]), o], INV, "dims"),
        ([raw(S9, lib.ACL_FLOAT), ia(range(9)), raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, ia([2, 0]), o], INV, "dims"),
        ([x, ia([0, -2]), o], INV, "dims"),  # the same dim after wrapping
        ([x, d, t((2, 3))], INV, "out"),
        ([t((0, 3)), d, t((3, 1))], INNER, "out"),  # an empty result into a non-empty out
        ([t((0, 3)), d, t((3, 0))], OK, None),
        ([x, ia([-1, 0]), o], OK, None),
    ])


def test_expand():
    x, o, s = t((3, 1)), t((2, 3, 4)), ia([2, 3, 4])
    rows("Expand", [
        ([None, s, o], NUL, "self"),
        ([x, None, o], NUL, "size"),
        ([x, s, None], NUL, "out"),
        ([t((3, 1), np.float64), s, t((2, 3, 4), np.int32)], INV, "out"),  # the dtype match comes first
        ([t((3, 1), np.float64), s, t((2, 3, 4), np.float64)], INV, "self"),
        ([x, ia([4]), o], INV, "size"),
        ([x, ia([2, 4, 4]), o], INV, "size"),
        ([x, s, t((2, 3, 5))], INV, "out"),
        ([x, ia([-1, 4]), t((3, 4))], INV, "size"),  # -1 only passes a size-1 dim...
        ([t((1, 2)), ia([-1, 2]), t((1, 2))], INV, "out"),  # ...and then no out has shape [-1, 2]
        ([raw(S9, lib.ACL_FLOAT), ia([1] * 9), raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, s, o], OK, None),
    ])


def test_repeat():
    x, o, r = t((2, 3)), t((4, 3)), ia([2, 1])
    rows("Repeat", [
        ([None, r, o], NUL, "self"),
        ([x, None, o], NUL, "repeats"),
        ([x, r, None], NUL, "out"),
        ([raw((2, 3), HIF8), r, o], INV, "self"),
        ([x, r, t((4, 3), np.int32)], INV, "out"),
        ([x, ia([2]), o], INV, "repeats"),
        ([x, ia([2, -1]), o], INV, "repeats"),
        ([raw(S9, lib.ACL_FLOAT), ia([1] * 9), raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, ia([1] * 9), raw(S9, lib.ACL_FLOAT)], INV, "repeats"),
        ([x, r, t((2, 6))], INV, "out"),
        ([t(()), ia([]), t((2,))], INNER, "out"),  # 0-d: ViewCopy(self, out)
        ([x, ia([0, 1]), t((7, 7))], OK, None),  # a zero repeat returns before out's shape is looked at
        ([x, r, o], OK, None),
    ])


def test_flatten():
    x, o = t((2, 3, 4)), t((2, 12))
    rows("Flatten", [
        ([None, 1, o], NUL, "self"),
        ([x, 1, None], NUL, "out"),
        ([x, 1, t((2, 12), np.int32)], INV, "out"),
        ([t((2, 3, 4), np.float64), 1, t((2, 12), np.float64)], INV, "self"),
        ([raw(S9, lib.ACL_FLOAT), 1, t((1, 1))], INV, "self"),
        ([t((5,)), 1, t((1, 5))], INV, "axis"),
        ([x, 3, o], INV, "axis"),
        ([x, -4, o], INV, "axis"),
        ([x, 1, t((6, 4))], INV, "out"),
        ([t(()), -1, t((1, 1))], OK, None),
        ([x, -2, o], OK, None),
    ])


def test_slice():
    x, o = t((4, 6)), t((4, 2))
    rows("Slice", [
        ([None, 1, 1, 5, 2, o], NUL, "self"),
        ([x, 1, 1, 5, 2, None], NUL, "out"),
        ([x, 1, 1, 5, 2, t((4, 2), np.int32)], INV, "out"),
        ([t((4, 6), np.float64), 1, 1, 5, 2, t((4, 2), np.float64)], INV, "self"),
        ([raw(S9, lib.ACL_FLOAT), 0, 0, 1, 1, raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([t(()), 0, 0, 1, 1, t(())], INV, "self"),
        ([x, 2, 1, 5, 2, o], INV, "dim"),
        ([x, -3, 1, 5, 2, o], INV, "dim"),
        ([x, 1, 1, 5, 0, o], INV, "step"),
        ([x, 1, 1, 5, 2, t((4, 3))], INV, "out"),
        ([x, -1, 1, 5, 2, o], OK, None),
    ])


def test_slice_v2():
    x, o = t((4, 6)), t((2, 6))
    a = lambda: [ia([1]), ia([3]), ia([0]), ia([1])]  # noqa: E731
    rows("SliceV2", [
        ([None] + a() + [o], NUL, "self"),
        ([x, None, None, None, None, None], NUL, "out"),  # the real order: self, out, starts, ends, axes, steps
        ([x, None, ia([3]), ia([0]), ia([1]), o], NUL, "starts"),
        ([x, ia([1]), None, ia([0]), ia([1]), o], NUL, "ends"),
        ([x, ia([1]), ia([3]), None, ia([1]), o], NUL, "axes"),
        ([x, ia([1]), ia([3]), ia([0]), None, o], NUL, "steps"),
        ([x] + a() + [t((2, 6), np.int32)], INV, "out"),
        ([t((4, 6), np.float64)] + a() + [t((2, 6), np.float64)], INV, "self"),
        ([raw(S9, lib.ACL_FLOAT), ia([]), ia([]), ia([]), ia([]), raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, ia([1]), ia([3]), ia([2]), ia([1]), o], INV, "axes"),
        ([x, ia([1, 1]), ia([3, 3]), ia([0, -2]), ia([1, 1]), o], INV, "axes"),
        ([x, ia([1, 0]), ia([3]), ia([0]), ia([1]), o], INV, "starts"),
        ([x, ia([1]), ia([3, 1]), ia([0]), ia([1]), o], INV, "ends"),
        ([x, ia([1]), ia([3]), ia([0]), ia([0]), o], INV, "steps"),
        ([x, ia([1]), ia([3]), ia([0]), ia([1, 1]), o], INV, "steps"),
        ([x] + a() + [t((3, 6))], INV, "out"),
        ([x] + a() + [o], OK, None),
    ])


def test_roll():
    x, o, s, d = t((3, 4)), t((3, 4)), ia([1]), ia([0])
    rows("Roll", [
        ([None, s, d, o], NUL, "x"),
        ([x, None, d, o], NUL, "shifts"),
        ([x, s, None, o], NUL, "dims"),
        ([x, s, d, None], NUL, "out"),
        ([t((3, 4), np.float64), s, d, t((3, 4), np.float64)], INV, "x"),
        ([x, s, d, t((3, 4), np.float64)], INV, "out"),
        ([x, s, d, t((3, 4), np.int32)], INV, "out"),
        ([x, s, d, t((4, 3))], INV, "out"),
        ([x, ia([1, 2]), d, o], INV, "shifts"),
        ([x, ia([1, 2]), ia([]), o], INV, "shifts"),
        ([raw(S9, lib.ACL_FLOAT), s, d, raw(S9, lib.ACL_FLOAT)], INV, "x"),
        ([x, s, ia([2]), o], INV, "dims"),
        ([x, s, ia([-3]), o], INV, "dims"),
        ([t(()), s, ia([0]), t(())], INV, "dims"),
        ([t((0, 4)), s, ia([7]), t((0, 4))], OK, None),  # empty: dims are not checked
        ([x, ia([1, -1]), ia([-1, -2]), o], OK, None),
    ])


def test_channel_shuffle():
    x, o = t((2, 6, 3)), t((2, 6, 3))
    rows("ChannelShuffle", [
        ([None, 2, o], NUL, "self"),
        ([x, 2, None], NUL, "out"),
        ([x, 2, t((2, 6, 3), np.int32)], INV, "out"),
        ([t((2, 6, 3), np.uint16), 2, t((2, 6, 3), np.uint16)], INV, "self"),
        ([x, 0, o], INV, "groups"),
        ([x, 4, o], INV, "groups"),
        ([x, 2, t((2, 6, 4))], INV, "out"),
        ([t((1,) * 8), 1, t((1,) * 8)], INV, "self"),
        ([t((2, 6)), 2, t((2, 6))], INV, "self"),
        ([t((0, 6, 3)), 3, t((0, 6, 3))], OK, None),
        ([x, 3, o], OK, None),
    ])


def test_diag():
    x, o = t((3, 5)), t((3,))
    rows("Diag", [
        ([None, 0, o], NUL, "self"),
        ([x, 0, None], NUL, "out"),
        ([t((3, 5), np.uint16), 0, t((3,), np.uint16)], INV, "self"),
        ([x, 0, t((3,), np.int32)], INV, "out"),
        ([t((2, 2, 2)), 0, o], INV, "self"),
        ([x, 1, t((4,))], INV, "out"),
        ([t((4,)), 2**62, t((2, 2))], INV, "diagonal"),
        ([t((0,), np.complex64), 1, t((1, 1), np.complex64)], INV, "out"),  # the zero fill has no complex
        ([t((0,)), 0, t((5, 7))], OK, None),  # empty, diagonal 0: out is not looked at
        ([t((0,)), 3, t((2, 2))], OK, None),  # empty, diagonal != 0: out (any shape) filled with zeros
        ([x, 5, t((9,))], OK, None),  # diagonal == columns: nothing to do
        ([x, -3, t((9,))], OK, None),
        ([x, 1, t((3,))], OK, None),
        ([t((1, 3)), 2, t(())], OK, None),  # a one-element result into any one-element out
    ])


def test_diag_flat():
    x, o = t((2, 3)), t((7, 7))
    rows("DiagFlat", [
        ([None, 1, o], INNER, "self"),  # the real CheckParams reports ACLNN_ERR_INNER_NULLPTR
        ([x, 1, None], INNER, "out"),
        ([t((2, 3), np.uint16), 1, o], INV, "self"),
        ([x, 1, t((7, 7), np.uint16)], INV, "out"),
        ([raw(S9, lib.ACL_FLOAT), 0, o], INV, "self"),
        ([x, 1, raw(S9, lib.ACL_FLOAT)], INV, "out"),
        ([x, 1, t((6, 6))], INNER, "out"),  # out's shape is only met by ViewCopy
        ([x, -2**62, o], INV, "diagonal"),
        ([t((0, 3)), 5, t((1,))], OK, None),  # empty: nothing is checked or written
        ([x, 1, t((7, 7), np.float64)], OK, None),  # another out dtype: cast
    ])


def test_constant_pad_nd():
    x, o, p, v = t((3, 4)), t((5, 7)), ia([1, 2, 1, 1]), make_scalar(0.5)
    rows("ConstantPadNd", [
        ([None, p, v, o], NUL, "self"),
        ([x, None, v, o], NUL, "pad"),
        ([x, p, None, o], NUL, "value"),
        ([x, p, v, None], NUL, "out"),
        ([x, p, v, t((5, 7), np.int32)], INV, "out"),
        ([raw((3, 4), C32), p, v, raw((5, 7), C32)], INV, "self"),
        ([t((3, 4), fmt=lib.ACL_FORMAT_NCL), p, v, o], INV, "self"),
        ([raw(S9, lib.ACL_FLOAT), ia([]), v, raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, p, v, t((5, 7, 1))], INV, "out"),
        ([x, ia([1, 2, 1]), v, o], INV, "pad"),
        ([x, ia([1, 1, 1, 1, 1, 1]), v, o], INV, "pad"),
        ([x, ia([-3, -2]), v, o], INV, "pad"),
        ([x, p, v, t((5, 6))], INV, "out"),
        ([t((1, 0, 2)), ia([-2, 4, 0, 0]), v, t((1, 0, 4))], INV, "pad"),  # zero dim with positive padding
        ([t((4, 0)), ia([0, 0, 1, 1]), v, t((6, 0))], INV, "pad"),
        ([t((5,)), ia([2**63 - 1, 2**63 - 1]), v, t((3,))], INV, "pad"),  # passes the wrapped host sums only
        ([t((3, 4), fmt=lib.ACL_FORMAT_NCL), p, v, t((5, 7), fmt=lib.ACL_FORMAT_NCL)], OK, None),
        ([x, p, v, o], OK, None),
    ])


def _tl(*ts):
    from shape_util import tlist
    return tlist(list(ts))


def test_cat():
    a, b, o = t((2, 3)), t((2, 5)), t((2, 8))
    rows("Cat", [
        ([None, 1, o], NUL, "tensors"),
        ([_tl(a, None), 1, o], NUL, "tensors"),
        ([_tl(t((0,)), t((0,))), 1, None], OK, None),  # only 1-d empties: success before out is looked at
        ([_tl(a, b), 1, None], NUL, "out"),
        ([_tl(a, t((2, 5), np.uint16)), 1, o], INV, "tensors"),
        ([_tl(a, b), 1, t((2, 8), np.uint16)], INV, "out"),
        ([_tl(t((2, 3), np.complex64), t((2, 5), np.float64)), 1, t((2, 8), np.complex64)], INV, "tensors"),
        ([_tl(a, b), 1, t((2, 8), np.int32)], INV, "out"),  # float can not be cast to int32
        ([_tl(t((2, 3), fmt=lib.ACL_FORMAT_NC1HWC0), t((2, 5), fmt=lib.ACL_FORMAT_NC1HWC0)), 1, o], INV, "tensors"),
        ([_tl(a, t((2, 5), fmt=lib.ACL_FORMAT_NCHW)), 1, o], INV, "tensors"),
        ([_tl(a, b), 1, t((2, 8), fmt=lib.ACL_FORMAT_NCHW)], INV, "out"),
        ([_tl(raw(S9, lib.ACL_FLOAT), raw(S9, lib.ACL_FLOAT)), 0, raw(S9, lib.ACL_FLOAT)], INV, "tensors"),
        ([_tl(a, b), 2, o], INV, "dim"),
        ([_tl(t(()), t(())), 0, t((2,))], INV, "dim"),
        ([_tl(a, t((2, 5, 1))), 1, o], INV, "tensors"),
        ([_tl(a, t((3, 5))), 1, o], INV, "tensors"),
        ([_tl(a, b), 1, t((2, 9))], INV, "out"),
        ([_tl(a, t((0, 3))), 0, t((3, 3))], INNER, "out"),  # one non-empty tensor: ViewCopy meets out's shape
        ([_tl(t((0, 3)), t((0, 3))), 0, t((5, 5))], OK, None),  # all empty: out is not looked at
        ([_tl(a, b), -1, o], OK, None),
    ])


def test_stack():
    a, b, o = t((2, 3)), t((2, 3)), t((2, 2, 3))
    rows("Stack", [
        ([None, 0, o], INNER, "tensors"),  # the real CheckParams reports ACLNN_ERR_INNER_NULLPTR
        ([_tl(a, b), 0, None], INNER, "out"),
        ([_tl(a, raw((2, 3), HIF8)), 0, o], INV, "tensors"),
        ([_tl(a, b), 0, raw((2, 2, 3), HIF8)], INV, "out"),
        ([_tl(), 0, o], INV, "tensors"),
        ([_tl(a, b), 0, t((2, 2, 3), np.int8)], INV, "out"),  # float can not be cast to int8
        ([_tl(raw(S9, lib.ACL_FLOAT), raw(S9, lib.ACL_FLOAT)), 0, o], INV, "tensors"),
        ([_tl(a, b), 3, o], INV, "dim"),
        ([_tl(a, b), -4, o], INV, "dim"),
        ([_tl(a, t((3, 2))), 0, o], INV, "tensors"),
        ([_tl(a, b), 2, o], INV, "out"),
        ([_tl(t((0, 3)), t((0, 3))), 0, t((9,))], OK, None),  # all empty: out is not looked at
        ([_tl(a, b), -3, o], OK, None),
    ])


def test_split_tensor():
    x = t((7, 4))
    outs = lambda: _tl(t((3, 4)), t((3, 4)), t((1, 4)))  # noqa: E731
    rows("SplitTensor", [
        ([None, 3, 0, outs()], NUL, "self"),
        ([x, 3, 0, None], NUL, "out"),
        ([x, 3, 0, _tl(t((3, 4)), None)], NUL, "out"),
        ([t((7, 4), np.uint16), 3, 0, outs()], INV, "self"),
        ([x, 3, 0, _tl(t((3, 4)), t((3, 4), np.uint16), t((1, 4)))], INV, "out"),
        ([x, 3, 0, _tl(t((3, 4)), t((3, 4), np.float64), t((1, 4)))], INV, "out"),
        ([t(()), 1, 0, outs()], INV, "self"),
        ([raw(S9, lib.ACL_FLOAT), 1, 0, outs()], INV, "self"),
        ([x, 3, 0, _tl(t((3, 4)), raw(S9, lib.ACL_FLOAT))], INV, "out"),
        ([x, 3, 2, outs()], INV, "dim"),
        ([x, 0, 0, outs()], INV, "splitSections"),
        ([t((0, 4)), 2, 0, outs()], INV, "splitSections"),
        ([x, 3, 0, _tl(t((3, 4)), t((3, 4)))], INV, "out"),
        ([x, 3, 0, _tl(t((3, 4)), t((3, 4)), t((2, 4)))], INV, "out"),
        ([x, 7, 0, _tl(t((6, 4)))], INNER, "out"),  # one part: ViewCopy(self, out[0])
        ([x, 3, 0, _tl(t((3, 4)), t((3, 4)), t((1, 4)), t((9, 9)))], OK, None),  # extra outs are ignored
        ([t((0, 4)), 0, 0, _tl(t((0, 4)), t((0, 4)))], OK, None),
        ([x, 2**64 - 1, -2, _tl(t((7, 4), np.float64))], OK, None),
    ])


def test_split_with_size():
    x = t((7, 4))
    outs = lambda: _tl(t((2, 4)), t((5, 4)))  # noqa: E731
    rows("SplitWithSize", [
        ([None, ia([2, 5]), 0, outs()], NUL, "self"),
        ([x, None, 0, outs()], NUL, "splitSize"),
        ([x, ia([2, 5]), 0, None], NUL, "out"),
        ([x, ia([2, 5]), 0, _tl(t((2, 4)), None)], NUL, "out"),
        ([t((7, 4), np.uint16), ia([2, 5]), 0, outs()], INV, "self"),
        ([x, ia([2, 5]), 0, _tl(t((2, 4)), t((5, 4), np.uint16))], INV, "out"),
        ([t(()), ia([1]), 0, outs()], INV, "self"),
        ([x, ia([2, 5]), -3, outs()], INV, "dim"),
        ([x, ia([2, 4]), 0, outs()], INV, "splitSize"),
        ([x, ia([2, 5, 0]), 0, outs()], INV, "splitSize"),
        ([x, ia([8, -1]), 0, outs()], INNER, "splitSize"),  # sums right, but SplitV has no negative part
        ([x, ia([2, 5]), 0, _tl(t((2, 4)), t((4, 4)))], INV, "out"),
        ([x, ia([2, 5]), 0, _tl(t((2, 4)), t((5, 4), np.int64))], OK, None),
    ])


def test_arange_range():
    s = make_scalar
    o = t((3,))
    for op, null in (("Arange", NUL), ("Range", INNER)):
        rows(op, [
            ([None, s(1), s(1), o], null, "start"),
            ([s(0), None, s(1), o], null, "end"),
            ([s(0), s(3), None, o], null, "step"),
            ([s(0), s(3), s(1), None], null, "out"),
            ([s(1j), s(3), s(1), o], INV, "start"),
            ([s(0), s(3j), s(1), o], INV, "end"),
            ([s(0), s(3), s(1j), o], INV, "step"),
            ([s(0), s(3), s(1), t((3,), np.int8)], INV, "out"),
            ([s(0), s(3), s(0), o], INV, "step"),
            ([s(0), s(3), s(-1), o], INV, "step"),
            ([s(3), s(0), s(1), o], INV, "step"),
            ([s(0), s(3), s(0.5), t((6,), np.int32)], INV, "step"),  # an integer out checks int64 values
            ([s(0), s(3), s(1), t((7, 2))], OK, None),  # out's shape is not checked
        ])
    rows("Range", [([s(0), s(3), s(1), t(())], INV, "out")])
    rows("Arange", [([s(0), s(3), s(1), t(())], OK, None)])


def test_linspace():
    s, o = make_scalar, t((5,))
    rows("Linspace", [
        ([None, s(1.0), 5, o], INNER, "start"),  # the real CheckParams reports ACLNN_ERR_INNER_NULLPTR
        ([s(0.0), None, 5, o], INNER, "end"),
        ([s(0.0), s(1.0), 5, None], INNER, "out"),
        ([s(1j), s(1.0), 5, o], INV, "start"),
        ([s(0.0), s(1j), 5, o], INV, "end"),
        ([s(0.0), s(1.0), 5, t((5,), np.bool_)], INV, "out"),
        ([s(0.0), s(1.0), -1, o], INV, "steps"),
        ([s(0.0), s(1.0), 4, o], INV, "out"),
        ([s(0.0), s(1.0), 5, t((5, 1))], OK, None),
        ([s(0.0), s(1.0), 0, t((0,))], OK, None),
    ])


def test_eye():
    o = t((3, 4))
    rows("Eye", [
        ([3, 4, None], NUL, "out"),
        ([3, 4, t((3, 4), np.float64)], INV, "out"),
        ([3, 4, t((3, 4, 1))], INV, "out"),
        ([-1, 4, o], INV, "n must"),
        ([3, -1, o], INV, "m must"),
        ([4, 3, o], INV, "out"),
        ([0, 4, t((0, 4))], OK, None),
        ([3, 4, o], OK, None),
    ])


def test_tril_triu():
    x, o = t((3, 4)), t((3, 4))
    rows("Tril", [
        ([None, 0, o], NUL, "self"),
        ([x, 0, None], NUL, "out"),
        ([t((3, 4), np.complex64), 0, o], INV, "self"),
        ([x, 0, t((3, 4), np.complex64)], INV, "out"),
        ([x, 0, t((3, 4), np.int32)], INV, "out"),
        ([x, 0, t((3, 4), fmt=lib.ACL_FORMAT_NCHW)], INV, "format"),
        ([t((4,)), 0, t((4,))], INV, "self"),
        ([t((0,)), 0, t((0,))], INV, "self"),
        ([raw(S9, lib.ACL_FLOAT), 0, raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([x, 0, t((4, 3))], INV, "out"),
        ([t((0, 4)), 1, t((0, 4))], OK, None),
        ([x, 2**63 - 1, o], OK, None),
    ])
    rows("InplaceTril", [([None, 0], NUL, "selfRef"), ([t((4,)), 0], INV, "selfRef"), ([x, -2**63], OK, None)])
    rows("Triu", [
        ([None, 0, o], NUL, "self"),
        ([x, 0, None], NUL, "out"),
        ([t((3, 4), np.complex64), 0, t((3, 4), np.complex64)], INV, "self"),
        ([x, 0, t((3, 4), np.int32)], INV, "out"),
        ([t((3, 4), fmt=lib.ACL_FORMAT_NC1HWC0), 0, t((3, 4), fmt=lib.ACL_FORMAT_NC1HWC0)], INV, "self"),
        ([x, 0, t((3, 4), fmt=lib.ACL_FORMAT_NCHW)], INV, "format"),
        ([raw(S9, lib.ACL_FLOAT), 0, raw(S9, lib.ACL_FLOAT)], INV, "self"),
        ([t((4,)), 0, t((4,))], INV, "self"),
        ([x, 0, t((4, 3))], INV, "out"),
        ([t((0,)), 0, t((0,))], OK, None),  # Triu: only a self with elements needs 2 dims
        ([x, -2**63, o], OK, None),
    ])
    rows("InplaceTriu", [([None, 0], NUL, "selfRef"), ([t(()), 0], INV, "selfRef"), ([x, 2**63 - 1], OK, None)])
