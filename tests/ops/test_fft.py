"""aclStft and aclRfft1D against torch.stft / torch.fft.rfft (every A2 dtype, windows shorter than nFft, batches,
strided views, lengths that are and are not powers of two), their invalid rows in the upstream order, and the same
bytes for any thread count."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import lib
from helpers import same_bytes_for_threads
from table_harness import expect_status

RTOL = {np.float32: 2e-5, np.float64: 1e-11, np.complex64: 2e-5, np.complex128: 1e-11}


def T(a, fmt=None):
    """A device tensor of a's shape and dtype (ND unless fmt says otherwise)."""
    return pyaclnn.AclTensor(a.shape, a.dtype, fmt=lib.ACL_FORMAT_ND if fmt is None else fmt)


def stft_ref(torch, x, n_fft, hop, win_len, window, normalized, onesided, return_complex):
    w = None if window is None else torch.from_numpy(window)
    if w is None and win_len != n_fft:
        w = torch.ones(win_len, dtype=torch.from_numpy(x).real.dtype)
    r = torch.stft(torch.from_numpy(x), n_fft, hop, win_len, w, center=False, normalized=normalized,
                   onesided=onesided, return_complex=True)
    return r.numpy() if return_complex else torch.view_as_real(r).numpy()


def check(actual, expected):
    base = actual.real.dtype.type if np.iscomplexobj(actual) else actual.dtype.type
    rt = RTOL[np.complex64 if base == np.float32 else np.complex128]
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(actual, expected, rtol=rt, atol=rt * scale)


STFT_CASES = [  # (shape, n_fft, hop, win_len, window?, normalized, onesided, return_complex)
    ((5,), 4, 2, 4, True, False, True, False),
    ((64,), 16, 4, 16, False, False, True, True),
    ((3, 100), 20, 7, 13, True, True, True, False),
    ((2, 97), 12, 5, 12, True, False, False, True),
    ((2, 50), 50, 1, 31, False, True, False, False),
    ((1, 300), 48, 16, 40, True, False, True, True),
]


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.complex64, np.complex128])
@pytest.mark.parametrize("case", range(len(STFT_CASES)))
def test_stft(torch, dt, case):
    shape, n_fft, hop, win_len, has_win, normalized, onesided, return_complex = STFT_CASES[case]
    if np.issubdtype(dt, np.complexfloating) and onesided:
        pytest.skip("a complex input is never onesided (the invalid rows check it)")
    rng = np.random.default_rng(case)
    x = rng.standard_normal(shape)
    if np.issubdtype(dt, np.complexfloating):
        x = x + 1j * rng.standard_normal(shape)
    x = x.astype(dt)
    window = rng.uniform(0.2, 1.0, win_len).astype(dt) if has_win else None
    exp = stft_ref(torch, x, n_fft, hop, win_len, window, normalized, onesided, return_complex)
    big = np.zeros(exp.shape + (2,), exp.dtype)  # out written through a strided view
    out = big[..., 0]
    pyaclnn.call("Stft", x, window, out, n_fft, hop, win_len, normalized, onesided, return_complex)
    check(out, exp)
    assert not big[..., 1].any()


def test_stft_strided_input_and_empty_batch(torch):
    rng = np.random.default_rng(3)
    base = rng.standard_normal((4, 80)).astype(np.float32)
    x = base[::2, ::2]  # (2, 40), strided both ways
    exp = stft_ref(torch, np.ascontiguousarray(x), 8, 3, 8, None, False, True, True)
    out = np.zeros(exp.shape, np.complex64)
    pyaclnn.call("Stft", x, None, out, 8, 3, 8, False, True, True)
    check(out, exp)
    # a 2-d self with no sequences: the device expects a non-batched out shape and does nothing
    pyaclnn.call("Stft", np.zeros((0, 40), np.float32), None, np.zeros((5, 11), np.complex64), 8, 3, 8, False, True,
                 True)


RFFT_CASES = [((8,), 8, -1, 1), ((3, 10), -1, 1, 2), ((3, 10), 16, 1, 3), ((4, 6, 5), 7, 1, 1),
              ((2, 3, 12), 5, -1, 2), ((5, 4), 64, 0, 3), ((1, 1000), -1, 1, 1)]


@pytest.mark.parametrize("case", range(len(RFFT_CASES)))
def test_rfft1d(torch, case):
    shape, n, dim, norm = RFFT_CASES[case]
    x = np.random.default_rng(case).standard_normal(shape).astype(np.float32)
    r = torch.fft.rfft(torch.from_numpy(x), n=None if n == -1 else n, dim=dim,
                       norm={1: "backward", 2: "forward", 3: "ortho"}[norm])
    exp = torch.view_as_real(r).numpy()  # self's shape with the bins at dim, then (re, im)
    out = np.zeros(exp.shape, np.float32)
    pyaclnn.call("Rfft1D", x.T.copy().T if x.ndim > 1 else x, n, dim, norm, out)  # F-ordered input: a strided view
    check(out, exp)


def test_threads():
    same_bytes_for_threads(r"""
import hashlib, numpy as np, pyaclnn
rng = np.random.default_rng(1)
x, w = rng.standard_normal((4, 400)).astype(np.float32), rng.uniform(0, 1, 30).astype(np.float32)
out = np.zeros((4, 31, 29, 2), np.float32)
pyaclnn.call("Stft", x, w, out, 60, 12, 30, True, True, False)
y = np.zeros((4, 151, 2), np.float32)
pyaclnn.call("Rfft1D", x, 300, 1, 3, y)
print(hashlib.sha256(out.tobytes() + y.tobytes()).hexdigest())
""")


def stft_args(**kw):
    a = dict(self=T(np.zeros((2, 20), np.float32)), window=T(np.ones(8, np.float32)),
             out=T(np.zeros((2, 5, 4, 2), np.float32)), n_fft=8, hop=4, win=8, normalized=False, onesided=True,
             rc=False)
    a.update(kw)
    return [a["self"], a["window"], a["out"], a["n_fft"], a["hop"], a["win"], a["normalized"], a["onesided"], a["rc"]]


STFT_INVALID = [  # upstream order: NULLs, dtypes, self's format, shapes, the result dtype (the final copy)
    (dict(self=None), 161001, "self"),
    (dict(out=None), 161001, "out"),
    (dict(self=T(np.zeros((2, 20), np.float16))), 161002, "self"),
    (dict(window=T(np.ones(8, np.float64))), 161002, "window"),
    (dict(out=T(np.zeros((2, 5, 4, 2), np.int32))), 161002, "out"),
    (dict(self=T(np.zeros((2, 20), np.float32), fmt=lib.ACL_FORMAT_NCHW)), 161002, "format"),
    (dict(self=T(np.zeros((1, 2, 20), np.float32))), 161002, "self"),
    (dict(out=T(np.zeros((2, 5, 4, 2, 1), np.float32))), 161002, "out"),
    (dict(n_fft=0), 161002, "nFft"),
    (dict(n_fft=21, win=21), 161002, "nFft"),
    (dict(hop=0), 161002, "hopLength"),
    (dict(win=9), 161002, "winLength"),
    (dict(win=0), 161002, "winLength"),
    (dict(window=T(np.ones((1, 8), np.float32))), 161002, "windowOptional"),
    (dict(win=6), 161002, "winLength"),  # window has 8 entries, winLength 6 != nFft
    (dict(self=T(np.zeros((2, 20), np.complex64)), window=None, out=T(np.zeros((2, 5, 4, 2), np.float32))),
     161002, "onesided"),
    (dict(out=T(np.zeros((2, 5, 5, 2), np.float32))), 161002, "out"),
    (dict(rc=True, out=T(np.zeros((2, 5, 4), np.complex128))), 561103, "out"),
]


@pytest.mark.parametrize("row", range(len(STFT_INVALID)))
def test_stft_invalid(row):
    over, code, word = STFT_INVALID[row]
    expect_status("Stft", stft_args(**over), code, word)


def test_stft_window_length_unchecked_when_win_equals_nfft():
    expect_status("Stft", stft_args(window=T(np.ones(5, np.float32))), 0)  # as on the device


def rfft_args(**kw):
    a = dict(self=T(np.zeros((3, 8), np.float32)), n=8, dim=1, norm=1, out=T(np.zeros((3, 5, 2), np.float32)))
    a.update(kw)
    return [a["self"], a["n"], a["dim"], a["norm"], a["out"]]


RFFT_INVALID = [  # NULLs, the empty early return, then dtype, rank, n, norm, dim, the result's shape
    (dict(self=None), 161001, "self"),
    (dict(out=None), 161001, "out"),
    (dict(self=T(np.zeros((3, 8), np.float64))), 161002, "self"),
    (dict(self=T(np.zeros((1,) * 8, np.float32))), 161002, "self"),
    (dict(n=0), 161002, "n"),
    (dict(n=262145), 161002, "n"),
    (dict(norm=0), 161002, "norm"),
    (dict(norm=4), 161002, "norm"),
    (dict(dim=2), 161002, "dim"),
    (dict(dim=-3), 161002, "dim"),
    (dict(out=T(np.zeros((3, 4, 2), np.float32))), 161002, "out"),
    (dict(out=T(np.zeros((3, 5, 2), np.float64))), 161002, "out"),
]


@pytest.mark.parametrize("row", range(len(RFFT_INVALID)))
def test_rfft1d_invalid(row):
    over, code, word = RFFT_INVALID[row]
    expect_status("Rfft1D", rfft_args(**over), code, word)


def test_rfft1d_empty_self_returns_before_any_check():
    expect_status("Rfft1D", rfft_args(self=T(np.zeros((0, 8), np.float64)), n=0, norm=9), 0)
