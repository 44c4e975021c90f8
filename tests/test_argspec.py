"""The public op API keeps one style: parallel entry points (forward / backward) must not drift apart in the
names, order or defaults of the arguments they share (after python-soundfile's test_argspec)."""
import inspect

import pytest

import pyaclnn

PAIRS = [
    ("avg_pool2d", "avg_pool2d_backward",
     ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad", "divisor_override", "cube_math_type"]),
    ("grid_sampler2d", "grid_sampler2d_backward", ["interpolation_mode", "padding_mode", "align_corners"]),
    ("multi_scale_deformable_attn", "multi_scale_deformable_attn_backward",
     ["value", "spatial_shapes", "level_start_index", "sampling_locations", "attention_weights"]),
    ("upsample_nearest_exact2d", "upsample_nearest_exact2d_backward", ["output_size", "scales"]),
    ("convolution", "convolution_backward",
     ["input", "weight", "stride", "padding", "dilation", "transposed", "output_padding", "groups", "cube_math_type"]),
    ("conv_tbc", "conv_tbc_backward", ["input", "weight", "bias", "pad", "cube_math_type"]),
]
OPS = [name for f, b, _ in PAIRS for name in (f, b)]


def params(name):
    return inspect.signature(getattr(pyaclnn, name)).parameters


@pytest.mark.parametrize("fwd,bwd,shared", PAIRS, ids=[p[0] for p in PAIRS])
def test_forward_and_backward_share_names_order_and_defaults(fwd, bwd, shared):
    pf, pb = params(fwd), params(bwd)
    for name in shared:
        assert name in pf and name in pb, f"{name} missing from {fwd} or {bwd}"
        assert pf[name].default == pb[name].default, f"{name}: {fwd} default {pf[name].default!r} != " \
                                                     f"{bwd} default {pb[name].default!r}"
        assert pf[name].kind == pb[name].kind
    order_f = [n for n in pf if n in shared]
    order_b = [n for n in pb if n in shared]
    assert order_f == order_b == shared


@pytest.mark.parametrize("name", OPS)
def test_every_op_takes_keyword_only_out_and_stream_last(name):
    p = list(params(name).values())
    assert [q.name for q in p[-2:]] == ["out", "stream"]
    assert all(q.kind is inspect.Parameter.KEYWORD_ONLY and q.default is None for q in p[-2:])
    assert all(q.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD for q in p[:-2])


@pytest.mark.parametrize("name", OPS)
def test_every_op_is_documented_with_shapes_and_dtypes(name):
    doc = inspect.getdoc(getattr(pyaclnn, name))
    assert doc and "(" in doc and ("float" in doc or "as for" in doc or "as in" in doc)
    for q in params(name):
        if q not in ("out", "stream"):
            assert q in doc, f"{name}: parameter {q} is not documented"
    assert "out" in doc and "stream" in doc


def test_backward_input_is_named_like_the_forward_input():
    # the forward's tensor argument is "input" (PyTorch's name); backward ops that take it use the same name
    for fwd, bwd, _ in PAIRS[:2]:
        assert "input" in params(fwd) and "input" in params(bwd)
    assert list(params("upsample_nearest_exact2d"))[0] == "input"
    assert list(params("upsample_nearest_exact2d_backward"))[0] == "grad_output"
