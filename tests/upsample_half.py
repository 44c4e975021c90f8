"""Shared pieces of the upsample half-row byte tests (test_linear_half_s13 / _s14, test_aa_half_s14), imported by
the code those tests run in fresh interpreters: bf16 rounding, the float32 linear taps, the separable linear
reference and the edge values."""
import numpy as np

f32 = np.float32


def to_bf16(a32):
    """float32 -> bf16 bits, round to nearest even; a NaN keeps its upper payload bits, quietened"""
    b = a32.view(np.uint32).astype(np.uint64)
    r = ((b + 0x7fff + ((b >> 16) & 1)) >> 16).astype(np.uint16)
    return np.where(np.isnan(a32), (b >> 16).astype(np.uint16) | 0x40, r)


def linear_taps(n_in, n_out, align):
    """UPL_TAPS in float32 (no scales): per output index the two source indices and their weights"""
    i0s, i1s, w0s, w1s = [], [], [], []
    r = (f32(n_in - 1) / f32(n_out - 1) if n_out > 1 else f32(0)) if align else f32(n_in) / f32(n_out)
    for d in range(n_out):
        s = r * f32(d) if align else r * (f32(d) + f32(0.5)) - f32(0.5)
        if s < 0:
            s = f32(0)
        if s > n_in:
            s = f32(n_in)
        i0 = min(int(np.floor(s)), n_in - 1)
        l1 = min(max(s - f32(i0), f32(0)), f32(1))
        i0s.append(i0)
        i1s.append(i0 + 1 if i0 < n_in - 1 else i0)
        w0s.append(f32(1) - l1)
        w1s.append(l1)
    return np.array(i0s), np.array(i1s), np.array(w0s, f32), np.array(w1s, f32)


def separable_linear_ref(x, outs, align):
    """x float32 (N, C, *spatial) resized to the spatial sizes outs by the linear passes W, H, D in that order, a
    literal float32 loop (one rounding per operation): the W pass w0 * a + w1 * b, the H and D passes
    (0 + w0 * a) + w1 * b"""
    y = x
    nsp = len(outs)
    for ax in range(nsp - 1, -1, -1):
        a = 2 + ax
        n_in, n_out = y.shape[a], outs[ax]
        if n_in == n_out:
            continue
        i0, i1, w0, w1 = linear_taps(n_in, n_out, align)
        sh = [1] * y.ndim
        sh[a] = n_out
        A, B = np.take(y, i0, axis=a), np.take(y, i1, axis=a)
        W0, W1 = w0.reshape(sh), w1.reshape(sh)
        y = W0 * A + W1 * B if ax == nsp - 1 else (f32(0) + W0 * A) + W1 * B
    return y.astype(f32)


def edge_values(rng, shape, kind):
    """float32 values of one kind: 0 normal; 1 fp16-subnormal inputs and results, -0; 2 the largest halves (sums
    beyond fp16's range), +-Inf; 3 NaNs with payloads; 4 bf16-subnormal (fp16: zeros), -0; 5 one NaN in the
    middle (the other rows keep their fast path)"""
    x = rng.standard_normal(shape).astype(f32)
    flat = x.reshape(-1)
    if kind == 1:
        x = x * f32(2.0 ** -17)
        x.reshape(-1)[::5] = -0.0
    elif kind == 2:
        x = np.where(x > 0, f32(65504.0), f32(-60000.0)).astype(f32)
        x.reshape(-1)[::11] = np.inf
        x.reshape(-1)[3::13] = -np.inf
    elif kind == 3:
        flat[::9] = np.nan
        x.view(np.uint32).reshape(-1)[4::17] = 0x7f812345
        x.view(np.uint32).reshape(-1)[6::19] = 0xffc0abcd
    elif kind == 4:
        x = x * f32(2.0 ** -129)
        x.reshape(-1)[1::7] = -0.0
    elif kind == 5:
        flat[len(flat) // 2] = np.nan
    return x
