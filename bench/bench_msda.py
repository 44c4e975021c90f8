"""Multi-scale deformable attention at Deformable-DETR encoder scale against PyTorch autograd through mmcv's
grid_sample formulation (the reference the tests use).

The detr_encoder_* cases sample as a trained encoder does (each query near its own pixel on every level); they
are the ones the issue's target is judged on. uniform_locations_* scatter every point uniformly over [0, 1]^2,
which no encoder does: reported to show the cost of having no locality."""
import numpy as np

import common

SHAPES = ((100, 150), (50, 75), (25, 38), (13, 19))
BS, NH, C, NP = 2, 8, 32, 4


def _inputs(dtype, pattern="encoder"):
    import pyaclnn

    rng = np.random.default_rng(0)
    shapes = np.array(SHAPES, np.int64)
    sizes = shapes[:, 0] * shapes[:, 1]
    K = int(sizes.sum())
    start = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    nq, nl = K, len(SHAPES)
    value = rng.standard_normal((BS, K, NH, C)).astype(np.float32)
    # encoder: query i is pixel i of the flattened pyramid; its reference point is that pixel's centre, and the
    # sampling offsets are a few pixels (a trained encoder's pattern)
    ref = np.concatenate([np.stack(np.meshgrid((np.arange(w) + 0.5) / w, (np.arange(h) + 0.5) / h), -1).reshape(-1, 2)
                          for h, w in SHAPES])[None, :, None, None, None, :]
    loc = ref + rng.normal(0, 0.02, (BS, nq, NH, nl, NP, 2))
    if pattern == "uniform":
        # no locality at all: every point anywhere in [0, 1]^2 (a cache-miss benchmark, not what an encoder does)
        loc = rng.uniform(0, 1, loc.shape)
    attn = rng.uniform(0, 1, (BS, nq, NH, nl, NP))
    attn /= attn.sum(axis=(-1, -2), keepdims=True)
    go = rng.standard_normal((BS, nq, NH * C)).astype(np.float32)
    arrs = dict(value=value.astype(dtype), shapes=shapes, start=start, loc=loc.astype(dtype),
                attn=attn.astype(dtype), go=go.astype(dtype))
    return arrs, K, nq, nl, pyaclnn


def _torch_ref(torch, arrs, backward):
    F = torch.nn.functional
    value = torch.tensor(arrs["value"].astype(np.float32), requires_grad=backward)
    loc = torch.tensor(arrs["loc"].astype(np.float32), requires_grad=backward)
    attn = torch.tensor(arrs["attn"].astype(np.float32), requires_grad=backward)
    go = torch.tensor(arrs["go"].astype(np.float32))

    def fwd():
        bs, _, nh, c = value.shape
        _, nq, _, nl, npt, _ = loc.shape
        per_level = value.split([h * w for h, w in SHAPES], dim=1)
        grids = 2 * loc - 1
        sampled = []
        for l, (H, W) in enumerate(SHAPES):
            v = per_level[l].flatten(2).transpose(1, 2).reshape(bs * nh, c, H, W)
            g = grids[:, :, :, l].transpose(1, 2).flatten(0, 1)
            sampled.append(F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False))
        a = attn.transpose(1, 2).reshape(bs * nh, 1, nq, nl * npt)
        out = (torch.stack(sampled, dim=-2).flatten(-2) * a).sum(-1).view(bs, nh * c, nq)
        return out.transpose(1, 2).contiguous()

    if not backward:
        def run():
            with torch.no_grad():
                fwd()
        return run

    def run():
        for t in (value, loc, attn):
            t.grad = None
        fwd().backward(go)
    return run


def _case(dtype, backward, pattern="encoder"):
    def setup():
        arrs, K, nq, nl, pyaclnn = _inputs(dtype, pattern)
        T = pyaclnn.AclTensor
        ins = [T.from_array(arrs[k]) for k in ("value", "shapes", "start", "loc", "attn")]
        es = np.dtype(dtype).itemsize
        n_v, n_loc, n_attn, n_out = BS * K * NH * C, BS * nq * NH * nl * NP * 2, BS * nq * NH * nl * NP, BS * nq * NH * C
        if backward:
            outs = [T.empty(arrs[k].shape, dtype) for k in ("value", "loc", "attn")]
            ours = common.op_runner("MultiScaleDeformableAttentionGrad", *ins, T.from_array(arrs["go"]), *outs)
            nbytes = es * (2 * n_v + 2 * n_loc + 2 * n_attn + n_out)
        else:
            ours = common.op_runner("MultiScaleDeformableAttnFunction", *ins, T.empty((BS, nq, NH * C), dtype))
            nbytes = es * (n_v + n_loc + n_attn + n_out)
        torch = common.torch_or_none()
        ref = _torch_ref(torch, arrs, backward) if torch is not None and np.dtype(dtype) == np.float32 else None
        return dict(ours=ours, torch=ref, bytes=nbytes)
    return setup


CASES = [
    ("detr_encoder_backward_f32", _case(np.float32, True)),
    ("detr_encoder_forward_f32", _case(np.float32, False)),
    ("detr_encoder_backward_f16", _case(np.float16, True)),
    ("detr_encoder_backward_bf16", _case("bfloat16", True)),  # ml_dtypes (imported by pyaclnn) registers the name
    ("detr_encoder_forward_f16", _case(np.float16, False)),
    ("detr_encoder_forward_bf16", _case("bfloat16", False)),
    # the same sizes with uniformly random locations (no locality): reported, not the target
    ("uniform_locations_backward_f32", _case(np.float32, True, "uniform")),
    ("uniform_locations_forward_f32", _case(np.float32, False, "uniform")),
]
