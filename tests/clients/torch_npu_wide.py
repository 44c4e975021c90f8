"""A wider set of torch ops on device "npu" than torch_npu_smoke.py, to find which ones torch_npu sends to the
single-operator path (aclopCompileAndExecute) and which aclnn functions are still missing. Same rows as the smoke
(name, ok / MISMATCH / ERROR, path, error). Run like the smoke (tools/clients/torch_npu.sh runs both)."""
import sys

import torch
import torch.nn.functional as F

import torch_npu_smoke as S
from torch_npu_smoke import case


def main():
    torch.manual_seed(1)
    x = torch.randn(4, 6)
    y = torch.randn(4, 6)
    pos = torch.rand(4, 6) + 0.1
    unit = torch.rand(4, 6) * 1.8 - 0.9
    i32 = torch.randint(-5, 6, (4, 6), dtype=torch.int32)
    i64 = torch.randint(0, 6, (4, 6))
    b = torch.rand(4, 6) > 0.5
    img = torch.randn(2, 3, 8, 8)
    seq = torch.randn(2, 3, 10)
    vol = torch.randn(1, 2, 4, 6, 6)
    # unary maths
    for nm in ["sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "atanh", "erf", "erfc",
               "erfinv", "expm1", "log1p", "log2", "log10", "rsqrt", "reciprocal", "sign", "sgn", "floor", "ceil",
               "round", "trunc", "frac", "square", "exp2", "lgamma", "digamma", "sigmoid", "logit", "i0",
               "nan_to_num", "signbit", "isnan", "isinf", "isfinite", "angle", "positive", "deg2rad", "rad2deg"]:
        arg = unit if nm in ("asin", "acos", "atanh", "erfinv", "logit") else (
            pos if nm in ("log2", "log10", "rsqrt", "lgamma", "digamma") else x)
        case(nm, getattr(torch, nm), arg)
    case("acosh", torch.acosh, pos + 1)
    case("bitwise_not", torch.bitwise_not, i32)
    case("logical_not", torch.logical_not, b)
    # binary
    for nm in ["atan2", "fmod", "remainder", "hypot", "copysign", "fmax", "fmin", "maximum", "minimum",
               "logaddexp", "logaddexp2", "xlogy", "nextafter", "floor_divide", "true_divide", "ldexp"]:
        case(nm, getattr(torch, nm), x, y if nm != "ldexp" else i32)
    for nm in ["bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm", "bitwise_left_shift",
               "bitwise_right_shift"]:
        case(nm, getattr(torch, nm), i32.abs() + 1, (i32.abs() % 3) + 1)
    for nm in ["logical_and", "logical_or", "logical_xor"]:
        case(nm, getattr(torch, nm), b, ~b)
    for nm in ["eq", "ne", "lt", "le", "ge", "isclose"]:
        case(nm, getattr(torch, nm), x, y)
    case("lt_scalar", lambda a: a < 0.3, x)
    case("ge_cpu_scalar_first", lambda a: torch.ge(torch.tensor(0.3), a), x)
    case("div_floor", lambda a, c: torch.div(a, c, rounding_mode="floor"), x, y)
    case("div_trunc", lambda a, c: torch.div(a, c, rounding_mode="trunc"), x, y)
    case("addcmul", torch.addcmul, x, y, pos)
    case("addcdiv", torch.addcdiv, x, y, pos)
    case("lerp", torch.lerp, x, y, 0.3)
    case("clamp_min_t", torch.clamp_min, x, y)
    case("heaviside", torch.heaviside, x, y)
    case("float_power", torch.float_power, pos, 2.0)
    case("pow_scalar_base", lambda a: torch.pow(2.0, a), x)
    # reductions and scans
    for nm in ["amax", "amin", "logsumexp", "var", "norm", "nansum", "median", "all", "any", "count_nonzero",
               "aminmax", "var_mean", "std_mean", "cumprod", "cummax", "cummin", "logcumsumexp", "argmin", "mode",
               "nanmedian"]:
        fn = getattr(torch, nm)
        if nm in ("all", "any"):
            case(nm, lambda a, f=fn: f(a > 0, dim=1), x)
        elif nm in ("logsumexp", "cumprod", "cummax", "cummin", "logcumsumexp", "count_nonzero", "amax", "amin",
                    "argmin", "mode", "nanmedian", "median"):
            case(nm, lambda a, f=fn: f(a, 1), x)
        else:
            case(nm, fn, x)
    case("kthvalue", lambda a: torch.kthvalue(a, 2, 1), x, rtol=2e-3, atol=1e-3)  # torch_npu's fallback: fp16 TopK
    case("prod_dim", lambda a: torch.prod(a, 1), x)
    case("sum_int", lambda a: a.sum(1), i32)
    case("mean_keepdim", lambda a: a.mean((0, 1), keepdim=True), img)
    case("histc", lambda a: torch.histc(a, 5, -2, 2), x)
    case("bincount", torch.bincount, i64.flatten())
    case("unique", lambda a: torch.unique(a, sorted=True), i64)
    case("unique_consecutive", torch.unique_consecutive, torch.tensor([1, 1, 2, 2, 3, 1, 1]))
    case("argsort", lambda a: torch.argsort(a, 1), x)
    case("sort_stable_desc", lambda a: torch.sort(a, dim=1, descending=True, stable=True), x)
    case("searchsorted", torch.searchsorted, torch.sort(x, 1)[0], y)
    case("bucketize", torch.bucketize, x, torch.tensor([-1.0, 0.0, 1.0]))
    case("msort", torch.msort, x)
    # linear algebra
    case("mv", torch.mv, x, torch.randn(6))
    case("dot", torch.dot, x[0], y[0])
    case("outer", torch.outer, x[0], y[0])
    case("baddbmm", torch.baddbmm, torch.randn(2, 3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5))
    case("addbmm", torch.addbmm, torch.randn(3, 5), torch.randn(2, 3, 4), torch.randn(2, 4, 5))
    case("addmv", torch.addmv, torch.randn(4), x, torch.randn(6))
    case("addr", torch.addr, x, torch.randn(4), torch.randn(6))
    case("einsum", lambda a, c: torch.einsum("ij,kj->ik", a, c), x, y)
    case("tensordot", lambda a, c: torch.tensordot(a, c, dims=([1], [1])), x, y)
    case("cross", torch.linalg.cross, torch.randn(4, 3), torch.randn(4, 3))
    case("trace", torch.trace, x)
    case("diag", torch.diag, x)
    case("diag_embed", torch.diag_embed, x)
    case("triu", torch.triu, x)
    case("cdist", torch.cdist, torch.randn(5, 3), torch.randn(4, 3))
    case("vector_norm", lambda a: torch.linalg.vector_norm(a, 3, 1), x)
    case("matrix_inverse", torch.inverse, torch.randn(3, 3) + 3 * torch.eye(3), rtol=1e-3, atol=1e-4)
    case("det", torch.det, torch.randn(3, 3), rtol=1e-3, atol=1e-4)
    # shapes, indexing, copies
    case("repeat", lambda a: a.repeat(2, 3), x)
    case("repeat_interleave", lambda a: a.repeat_interleave(2, 1), x)
    case("expand_copy", lambda a: a[:, :1].expand(4, 6).contiguous(), x)
    case("narrow_copy", lambda a: a.narrow(1, 2, 3).contiguous(), x)
    case("chunk_cat", lambda a: torch.cat(a.chunk(3, 1)[::-1], 1), x)
    case("split_sizes", lambda a: a.split([2, 4], 1), x)
    case("unbind", torch.unbind, x)
    case("rot90", torch.rot90, x)
    case("masked_fill", lambda a, m: a.masked_fill(m, 2.0), x, b)
    case("masked_scatter", lambda a, m: a.masked_scatter(m, torch.arange(24.0, device=a.device)), x, b)
    case("index_put", lambda a: a.index_put((torch.tensor([0, 2], device=a.device),), torch.tensor(9.0,
                                                                                                device=a.device)), x)
    case("index_add", lambda a: a.index_add(0, torch.tensor([0, 2], device=a.device), torch.ones(2, 6, device=a.device)), x)
    case("index_copy", lambda a: a.index_copy(0, torch.tensor([3, 1], device=a.device), torch.ones(2, 6, device=a.device)), x)
    case("index_fill", lambda a: a.index_fill(1, torch.tensor([0, 4], device=a.device), -1.0), x)
    case("scatter", lambda a, i: torch.zeros(4, 6, device=a.device).scatter(1, i, a), x, i64)
    case("scatter_reduce", lambda a, i: torch.zeros(4, 6, device=a.device).scatter_reduce(1, i, a, "amax"), x, i64)
    case("take", lambda a: torch.take(a, torch.tensor([0, 5, 23], device=a.device)), x)
    case("take_along_dim", lambda a, i: torch.take_along_dim(a, i, 1), x, i64)
    case("nonzero", torch.nonzero, b)
    case("where_scalar", lambda m, a: torch.where(m, a, 0.0), b, x)
    case("tril_indices", lambda a: torch.tril_indices(4, 4, device=a.device), x)
    case("meshgrid", lambda a: torch.meshgrid(a[0], a[1], indexing="ij"), x)
    case("linspace", lambda a: torch.linspace(0, 1, 7, device=a.device), x)
    case("logspace", lambda a: torch.logspace(0, 1, 5, device=a.device), x)
    case("full_like", lambda a: torch.full_like(a, 3), i32)
    case("to_fp16", lambda a: a.half(), x)
    case("to_bf16", lambda a: a.bfloat16(), x)
    case("to_int", lambda a: a.int(), x)
    case("to_bool", lambda a: a.bool(), x)
    case("pad_reflect", lambda a: F.pad(a, (1, 2, 2, 1), mode="reflect"), img)
    case("pad_replicate", lambda a: F.pad(a, (1, 2, 2, 1), mode="replicate"), img)
    case("pad_constant", lambda a: F.pad(a, (1, 2), value=0.5), x)
    case("pad_circular", lambda a: F.pad(a, (1, 2, 2, 1), mode="circular"), img)
    case("pixel_shuffle", lambda a: F.pixel_shuffle(a, 2), torch.randn(1, 8, 3, 3))
    case("unfold", lambda a: F.unfold(a, 3), img)
    case("fold", lambda a: F.fold(a, (8, 8), 3), torch.randn(2, 27, 36))
    case("tensor_unfold", lambda a: a.unfold(1, 2, 2), x)
    # nn
    for nm in ["elu", "selu", "celu", "leaky_relu", "hardtanh", "hardsigmoid", "hardswish", "mish", "softplus",
               "softsign", "tanhshrink", "logsigmoid", "relu6", "gelu", "hardshrink", "softshrink", "silu"]:
        case(nm, getattr(F, nm), x)
    case("gelu_tanh", lambda a: F.gelu(a, approximate="tanh"), x)
    case("prelu", F.prelu, img, torch.full((3,), 0.2))
    case("rrelu_eval", lambda a: F.rrelu(a, training=False), x)
    case("glu", F.glu, x)
    case("threshold", lambda a: F.threshold(a, 0.1, -1.0), x)
    case("softmin", lambda a: F.softmin(a, 1), x)
    case("softmax_fp16", lambda a: F.softmax(a.half(), 1), x, rtol=1e-3, atol=1e-3)
    case("normalize", F.normalize, x)
    case("instance_norm", F.instance_norm, img)
    case("local_response_norm", lambda a: F.local_response_norm(a, 2), img)
    case("rms_norm", lambda a: F.rms_norm(a, (6,)), x)
    case("conv1d", F.conv1d, seq, torch.randn(4, 3, 3), rtol=1e-3, atol=1e-4)
    case("conv3d", F.conv3d, vol, torch.randn(3, 2, 3, 3, 3), rtol=1e-3, atol=1e-4)
    case("conv_transpose2d", F.conv_transpose2d, img, torch.randn(3, 2, 3, 3), rtol=1e-3, atol=1e-4)
    case("conv_transpose1d", F.conv_transpose1d, seq, torch.randn(3, 2, 3), rtol=1e-3, atol=1e-4)
    case("conv2d_groups_stride", lambda a, w: F.conv2d(a, w, stride=2, padding=1, groups=3), img,
         torch.randn(6, 1, 3, 3), rtol=1e-3, atol=1e-4)
    case("conv2d_dilation", lambda a, w: F.conv2d(a, w, dilation=2), img, torch.randn(4, 3, 3, 3), rtol=1e-3,
         atol=1e-4)
    case("max_pool1d", lambda a: F.max_pool1d(a, 2), seq)
    case("avg_pool1d", lambda a: F.avg_pool1d(a, 2), seq)
    case("max_pool3d", lambda a: F.max_pool3d(a, 2), vol)
    case("avg_pool3d", lambda a: F.avg_pool3d(a, 2), vol)
    case("adaptive_max_pool2d", lambda a: F.adaptive_max_pool2d(a, 3), img)
    case("adaptive_avg_pool1d", lambda a: F.adaptive_avg_pool1d(a, 4), seq)
    case("adaptive_avg_pool3d", lambda a: F.adaptive_avg_pool3d(a, 2), vol)
    case("lp_pool2d", lambda a: F.lp_pool2d(a, 2, 2), img, rtol=1e-3, atol=1e-4)
    case("interpolate_bicubic", lambda a: F.interpolate(a, scale_factor=2, mode="bicubic"), img, rtol=1e-3,
         atol=1e-4)
    case("interpolate_linear", lambda a: F.interpolate(a, scale_factor=2, mode="linear"), seq)
    case("interpolate_trilinear", lambda a: F.interpolate(a, scale_factor=2, mode="trilinear"), vol)
    case("interpolate_nearest_exact", lambda a: F.interpolate(a, scale_factor=1.5, mode="nearest-exact"), img)
    case("interpolate_area", lambda a: F.interpolate(a, size=(4, 4), mode="area"), img)
    case("affine_grid", lambda t: F.affine_grid(t, (1, 1, 4, 4), align_corners=False), torch.randn(1, 2, 3))
    case("embedding_bag", lambda w, i: F.embedding_bag(i, w, torch.tensor([0, 3], device=w.device)),
         torch.randn(10, 4), torch.tensor([1, 2, 4, 5, 4, 3]))
    case("one_hot", lambda i: F.one_hot(i, 7), i64)
    case("dropout_eval", lambda a: F.dropout(a, 0.5, training=False), x)
    case("linear_bias_fp16", lambda a, w: F.linear(a.half(), w.half()), x, torch.randn(3, 6), rtol=1e-2, atol=1e-2)
    case("bilinear", F.bilinear, x, y, torch.randn(2, 6, 6), rtol=1e-3, atol=1e-4)
    case("scaled_dot_product_attention", F.scaled_dot_product_attention, torch.randn(1, 2, 4, 8),
         torch.randn(1, 2, 4, 8), torch.randn(1, 2, 4, 8), rtol=1e-3, atol=1e-4)
    # losses
    t01 = torch.rand(4, 6)
    case("l1_loss", F.l1_loss, x, y)
    case("smooth_l1_loss", F.smooth_l1_loss, x, y)
    case("huber_loss", F.huber_loss, x, y)
    case("bce", F.binary_cross_entropy, torch.sigmoid(x), t01)
    case("kl_div", lambda a, c: F.kl_div(a, c, reduction="batchmean"), F.log_softmax(x, 1), F.softmax(y, 1))
    case("soft_margin", F.soft_margin_loss, x, torch.sign(y))
    case("multilabel_soft_margin", F.multilabel_soft_margin_loss, x, t01.round())
    case("margin_ranking", F.margin_ranking_loss, x[0], y[0], torch.sign(x[1]))
    case("hinge_embedding", F.hinge_embedding_loss, x, torch.sign(y))
    case("cosine_embedding", F.cosine_embedding_loss, x, y, torch.sign(x[:, 0]))
    case("cosine_similarity", F.cosine_similarity, x, y)
    case("pairwise_distance", F.pairwise_distance, x, y)
    case("poisson_nll", F.poisson_nll_loss, x, pos)
    case("gaussian_nll", F.gaussian_nll_loss, x, y, pos)
    case("triplet_margin", F.triplet_margin_loss, x, y, pos)
    case("multi_margin", F.multi_margin_loss, x, torch.tensor([0, 2, 5, 1]))
    case("nll_loss2d", F.nll_loss, F.log_softmax(img, 1), torch.randint(0, 3, (2, 8, 8)))
    case("cross_entropy_smooth", lambda a, t: F.cross_entropy(a, t, label_smoothing=0.1), x,
         torch.tensor([0, 2, 5, 1]))
    case("ctc_loss", lambda lp, t: F.ctc_loss(lp, t, [6, 6], [2, 3]), F.log_softmax(torch.randn(6, 2, 4), 2),
         torch.tensor([[1, 2, 0], [1, 3, 2]]), rtol=1e-3, atol=1e-4)
    # random-free autograd of a few ops
    def grad_of(fn):
        def run(a):
            a = a.clone().requires_grad_(True)
            fn(a).sum().backward()
            return a.grad
        return run
    for nm, fn in [("grad_softplus", F.softplus), ("grad_elu", F.elu), ("grad_hardswish", F.hardswish),
                   ("grad_log_softmax", lambda a: F.log_softmax(a, 1)), ("grad_layer_norm", lambda a:
                   F.layer_norm(a, (6,))), ("grad_pow", lambda a: a.pow(3)), ("grad_atan", torch.atan),
                   ("grad_cumsum", lambda a: a.cumsum(1) * a), ("grad_amax", lambda a: a.amax(1)),
                   ("grad_gather", lambda a: a.gather(1, torch.tensor([[0, 1]] * 4, device=a.device)))]:
        case(nm, grad_of(fn), x)
    case("grad_conv_transpose", grad_of(lambda a: F.conv_transpose2d(a, torch.ones(3, 2, 3, 3, device=a.device))),
         img, rtol=1e-3, atol=1e-4)
    case("grad_avg_pool3d", grad_of(lambda a: F.avg_pool3d(a, 2)), vol)
    case("grad_interp_bicubic", grad_of(lambda a: F.interpolate(a, scale_factor=2, mode="bicubic")), img,
         rtol=1e-3, atol=1e-4)
    case("grad_embedding", lambda w: torch.autograd.grad(F.embedding(torch.tensor([1, 1, 3], device=w.device),
                                                                     w).sum(), w)[0],
         torch.randn(5, 3).requires_grad_(True))
    # torch ops whose aclnn functions torch_npu looks up but the tree may lack (their fallbacks)
    case("unique_dim", lambda a: torch.unique(a, dim=0), torch.tensor([[1, 2], [3, 4], [1, 2]]))
    case("max_unpool2d", lambda a: F.max_unpool2d(*F.max_pool2d(a, 2, return_indices=True), 2), img)
    case("grad_repeat_interleave", grad_of(lambda a: a.repeat_interleave(torch.tensor([1, 2, 1, 3], device=a.device),
                                                                         0)), x)
    def rnn(kind):
        def run(a):
            torch.manual_seed(3)
            m = getattr(torch.nn, kind)(6, 5, batch_first=True).to(a.device)
            return m(a)[0]
        return run
    case("lstm", rnn("LSTM"), torch.randn(2, 3, 6), rtol=1e-3, atol=1e-4)
    case("gru", rnn("GRU"), torch.randn(2, 3, 6), rtol=1e-3, atol=1e-4)
    def rnn_grads(kind, **kw):
        def run(a):
            torch.manual_seed(3)
            m = getattr(torch.nn, kind)(6, 5, **kw).to(a.device)
            a = a.clone().requires_grad_(True)
            out = m(a)[0]
            (out * torch.linspace(-1, 1, out.numel(), device=a.device).reshape(out.shape)).sum().backward()
            return [a.grad] + [p.grad for p in m.parameters()]
        return run
    case("lstm_backward", rnn_grads("LSTM", num_layers=2), torch.randn(3, 2, 6), rtol=1e-3, atol=1e-4)
    case("gru_backward_bidirectional", rnn_grads("GRU", bidirectional=True), torch.randn(3, 2, 6), rtol=1e-3,
         atol=1e-4)
    case("gru_cell", lambda a: torch.nn.GRUCell(6, 4).to(a.device)(a) * 0, x)
    case("lstm_cell", lambda a: torch.nn.LSTMCell(6, 4).to(a.device)(a)[0] * 0, x)
    case("fake_quantize_per_tensor", lambda a: torch.fake_quantize_per_tensor_affine(a, 0.1, 0, -128, 127), x)
    case("fake_quantize_per_channel", lambda a: torch.fake_quantize_per_channel_affine(
        a, torch.full((4,), 0.1, device=a.device), torch.zeros(4, dtype=torch.int32, device=a.device), 0, -128, 127), x)
    case("topk_large_k", lambda a: torch.topk(a, 5, 1, largest=False), x)
    case("exponential_shape", lambda a: a.clone().exponential_().shape, x)
    case("dropout_train_shape", lambda a: F.dropout(a, 0.5, training=True).shape, x)
    case("randperm_shape", lambda a: torch.randperm(7, device=a.device).sort()[0], x)
    case("multinomial_shape", lambda a: torch.multinomial(a.abs() + 0.1, 2).shape, x)
    case("bernoulli_shape", lambda a: torch.bernoulli(torch.full_like(a, 0.5)).shape, x)
    case("normal_shape", lambda a: torch.empty_like(a).normal_().shape, x)
    case("cumsum_int", lambda a: a.cumsum(1), i32)
    case("max_elementwise_int", torch.maximum, i32, i32.flip(0))
    case("argmax_int", lambda a: a.argmax(1), i32)
    case("clamp_int", lambda a: a.clamp(-2, 2), i32)
    case("abs_int8", torch.abs, i32.to(torch.int8))
    case("mul_bool", torch.mul, b, ~b)
    case("sum_bool", lambda a: a.sum(), b)
    case("isin", torch.isin, i64, torch.tensor([1, 3]))
    case("diff", torch.diff, x)
    case("cov", torch.cov, x)
    case("corrcoef", torch.corrcoef, x, rtol=1e-3, atol=1e-4)
    case("cartesian_prod", torch.cartesian_prod, x[0, :3], y[0, :2])
    case("block_diag", torch.block_diag, x[:2, :2], y[:1])
    case("vander", torch.vander, x[0])
    case("tril_neg", lambda a: torch.tril(a, -1), x)
    case("complex_abs", lambda a: torch.view_as_complex(a.reshape(4, 3, 2).contiguous()).abs(), x)
    case("fft_rfft", torch.fft.rfft, x, rtol=1e-3, atol=1e-4)
    case("std_unbiased_dim", lambda a: a.std(1, unbiased=True), x)
    case("max_pool2d_ceil", lambda a: F.max_pool2d(a, 3, 2, ceil_mode=True), img)
    case("avg_pool2d_pad", lambda a: F.avg_pool2d(a, 3, 2, padding=1, count_include_pad=False), img)
    case("group_norm_grad", grad_of(lambda a: F.group_norm(a, 3)), img, rtol=1e-3, atol=1e-4)
    case("batch_norm_grad", grad_of(lambda a: F.batch_norm(a, None, None, training=True)), img, rtol=1e-3,
         atol=1e-4)
    n_ok = sum(r[1] == "ok" for r in S.ROWS)
    single = sorted({t for r in S.ROWS if r[2].startswith("single-op") for t in r[2].split()[1].split(",")})
    print(f"{n_ok}/{len(S.ROWS)} wider torch ops equal to the CPU; single-op types seen: {' '.join(single) or '-'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
