"""ops-cv objdetect ops the Atlas A2 (ASCEND910B) does not run: aclnnNonMaxSuppression, aclnnCIoU,
aclnnRoiPoolingWithArgMax, aclnnRoiPoolingGradWithArgMax, aclnnBackgroundReplace, aclnnBlendImagesCustom,
aclnnMrgbaCustom. Each first phase must do what the real one does on A2: the op_api's checks in its order (exact
codes, messages naming the argument), then the SoC refusal with the real code; no executor is ever handed out
(except the RoiPoolingGradWithArgMax empty-gradOutput early success), and no output is touched."""
import numpy as np
import pytest

import pyaclnn
from pyaclnn import ffi, lib
from helpers import ws_call

F32, F16, BF16 = np.dtype(np.float32), np.dtype(np.float16), pyaclnn.bfloat16
I32, I64, U8 = np.dtype(np.int32), np.dtype(np.int64), np.dtype(np.uint8)
NULL_CODE, INVALID, RUNTIME, INNER_NULLPTR = 161001, 161002, 361001, 561103
ND, NCHW = lib.ACL_FORMAT_ND, lib.ACL_FORMAT_NCHW


def E(shape, dtype=F32, fmt=ND):
    return pyaclnn.AclTensor(shape, dtype, fmt=fmt)


def farr(values):
    return lib.aclCreateFloatArray(ffi.new("float[]", list(values) or [0.0]), len(values))


def expect(op, args, code, word):
    rc, _, ex, msg = ws_call(op, *args)
    assert rc == code, msg
    assert word in msg, msg
    if code:
        assert ex == ffi.NULL, "a failed first phase wrote *executor"
    return ex


def test_no_ws_exec_null_first():
    """workspaceSize / executor NULL: 161001 before anything else (opbase's phase-1 prologue)."""
    for op, args in [("CIoU", [None, None, False, False, ffi.NULL, None, None]),
                     ("RoiPoolingWithArgMax", [None, None, 1, 1, 1.0, 1.0, None, None]),
                     ("MrgbaCustom", [None, None, None])]:
        fn = getattr(lib, f"aclnn{op}GetWorkspaceSize")
        c = [ffi.NULL if a is None else a for a in args]
        ex = ffi.new("aclOpExecutor **")
        assert fn(*c, ffi.NULL, ex) == NULL_CODE
        assert fn(*c, ffi.new("uint64_t *"), ffi.NULL) == NULL_CODE


# ---------------------------------------------------------------- NonMaxSuppression
def nms_args(boxes=None, scores=None, maxout=(3,), iou=(0.5,), score=(0.0,), center=0, sel=None):
    boxes = E((1, 6, 4)) if boxes is None else boxes
    scores = E((1, 1, 6)) if scores is None else scores
    sel = E((3, 3), I32) if sel is None else sel
    m = pyaclnn.int_array(list(maxout)) if maxout is not None else None
    i = farr(iou) if iou is not None else None
    s = farr(score) if score is not None else None
    return [boxes, scores, m, i, s, center, sel]


@pytest.mark.parametrize("dt", [F32, F16], ids=["f32", "f16"])
def test_nms_valid_call_refused_on_a2(dt):
    """A call the op_api accepts reaches its NpuArch check: everything but DAV_2002 is refused with 361001."""
    for center in (0, 1):
        expect("NonMaxSuppression", nms_args(E((2, 5, 4), dt), E((2, 3, 5), dt), center=center), RUNTIME,
               "not supported")
    # empty boxes are not special: the refusal still comes
    expect("NonMaxSuppression", nms_args(E((1, 0, 4), dt), E((1, 2, 0), dt)), RUNTIME, "not supported")
    # a strided view is accepted by the checks too
    b = pyaclnn.AclTensor((1, 6, 4), dt, strides=(48, 8, 1))
    s = pyaclnn.AclTensor((1, 1, 6), dt, strides=(12, 12, 2))
    expect("NonMaxSuppression", nms_args(b, s), RUNTIME, "not supported")


NMS_ROWS = [
    # the op_api's order: maxOutputBoxesPerClass (read first), NULLs, dtypes, iouThreshold range, formats, shapes,
    # centerPointBox
    ("maxout_null", dict(maxout=None, boxes=E((2,), I64)), NULL_CODE, "maxOutputBoxesPerClass"),
    ("maxout_701", dict(maxout=(701,), boxes=E((2,), I64)), INVALID, "maxOutputBoxesPerClass"),
    ("boxes_null", dict(boxes=ffi.NULL), NULL_CODE, "boxes"),
    ("scores_null", dict(scores=ffi.NULL, boxes=E((2,), I64)), NULL_CODE, "scores"),
    ("iou_null", dict(iou=None, boxes=E((2,), I64)), NULL_CODE, "iouThreshold"),
    ("iou_empty", dict(iou=(), boxes=E((2,), I64)), NULL_CODE, "iouThreshold"),
    ("sel_null", dict(sel=ffi.NULL, boxes=E((2,), I64)), NULL_CODE, "selectedIndices"),
    ("boxes_bf16", dict(boxes=E((1, 6, 4), BF16)), INVALID, "boxes"),
    ("scores_f64", dict(scores=E((1, 1, 6), np.float64), boxes=E((1, 6, 4))), INVALID, "scores"),
    ("mixed", dict(boxes=E((1, 6, 4), F16)), INVALID, "scores"),
    ("iou_gt1", dict(iou=(1.5,), boxes=E((1, 6, 4))), INVALID, "iouThreshold"),
    ("iou_neg", dict(iou=(-0.1,), scores=E((1, 1), F32)), INVALID, "iouThreshold"),
    ("fmt", dict(boxes=E((1, 6, 4), F32, NCHW), scores=E((1, 1), F32)), INVALID, "ND"),
    ("boxes_2d", dict(boxes=E((6, 4))), INVALID, "boxes"),
    ("scores_2d", dict(scores=E((1, 6))), INVALID, "scores"),
    ("batch", dict(scores=E((2, 1, 6))), INVALID, "dim 0"),
    ("nboxes", dict(scores=E((1, 1, 5))), INVALID, "scores dim 2"),
    ("box4", dict(boxes=E((1, 6, 5)), scores=E((1, 1, 6))), INVALID, "boxes dim 2"),
    ("center", dict(center=2, boxes=E((1, 6, 4))), INVALID, "centerPointBox"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in NMS_ROWS], ids=[r[0] for r in NMS_ROWS])
def test_nms_invalid(kw, code, word):
    expect("NonMaxSuppression", nms_args(**kw), code, word)


def test_nms_maxout_700_and_empty_pass():
    expect("NonMaxSuppression", nms_args(maxout=(700,)), RUNTIME, "not supported")
    expect("NonMaxSuppression", nms_args(maxout=()), RUNTIME, "not supported")
    expect("NonMaxSuppression", nms_args(score=None), RUNTIME, "not supported")  # scoreThreshold is not checked


# ---------------------------------------------------------------- CIoU, RoiPoolingWithArgMax: SoC first
def test_ciou_refused_before_any_check():
    mode = ffi.new("char[]", b"iou")
    good = [E((4, 1024)), E((4, 1024)), False, False, mode, E((1, 1024)), E((1, 1024))]
    expect("CIoU", good, RUNTIME, "not implemented")
    # NULL tensors, a bad mode, bad shapes: the SoC check still comes first
    expect("CIoU", [ffi.NULL, ffi.NULL, True, True, ffi.NULL, ffi.NULL, ffi.NULL], RUNTIME, "Ascend910B")
    expect("CIoU", [E((3, 5), I32), E((4, 1024), F16), False, False, ffi.new("char[]", b"giou"), E((2,)),
                    E((2,))], RUNTIME, "not implemented")


def test_roi_pooling_with_argmax_refused_before_any_check():
    good = [E((1, 16, 25, 42)), E((2, 5)), 3, 3, 1.0, 1.0, E((2, 16, 3, 3)), E((2, 16, 3, 3), I32)]
    expect("RoiPoolingWithArgMax", good, RUNTIME, "not implemented")
    expect("RoiPoolingWithArgMax", [ffi.NULL, ffi.NULL, 0, -1, 0.0, 0.0, ffi.NULL, ffi.NULL], RUNTIME,
           "Ascend910B")


# ---------------------------------------------------------------- RoiPoolingGradWithArgMax
def rpg_args(go=None, gi=None, rois=None, am=None, ph=2, pw=2, scale=1.0):
    go = E((3, 4, 2, 2)) if go is None else go
    gi = E((1, 4, 8, 8)) if gi is None else gi
    rois = E((3, 5)) if rois is None else rois
    am = E((3, 4, 2, 2), I32) if am is None else am
    return [go, gi, rois, am, ph, pw, scale]


@pytest.mark.parametrize("dt", [F32, F16], ids=["f32", "f16"])
def test_roi_pooling_grad_valid_call_has_no_a2_kernel(dt):
    expect("RoiPoolingGradWithArgMax", rpg_args(E((3, 4, 2, 2), dt), E((1, 4, 8, 8), dt), E((3, 5), dt)),
           INNER_NULLPTR, "ascend950")
    # mixed float dtypes pass the op_api's checks (each is only checked against the list)
    expect("RoiPoolingGradWithArgMax", rpg_args(E((3, 4, 2, 2), F16), E((1, 4, 8, 8), F32)), INNER_NULLPTR,
           "Ascend910B")
    v = pyaclnn.AclTensor((3, 4, 2, 2), dt, strides=(32, 8, 4, 2))
    expect("RoiPoolingGradWithArgMax", rpg_args(go=v, gi=E((1, 4, 8, 8), dt), rois=E((3, 5), dt)), INNER_NULLPTR,
           "ascend950")


def test_roi_pooling_grad_empty_succeeds():
    """An empty gradOutput succeeds without work, as the op_api's early return; gradInputRef is not touched."""
    ex = expect("RoiPoolingGradWithArgMax", rpg_args(go=E((0, 4, 2, 2)), rois=E((0, 5)), am=E((0, 4, 2, 2), I32)),
                0, "")
    assert ex != ffi.NULL
    assert lib.aclnnRoiPoolingGradWithArgMax(ffi.NULL, 0, ex, ffi.NULL) == 0


RPG_ROWS = [
    ("go_null", dict(go=ffi.NULL), NULL_CODE, "gradOutput"),
    ("rois_null", dict(rois=ffi.NULL, go=E((3, 4, 2, 2), I64)), NULL_CODE, "rois"),
    ("am_null", dict(am=ffi.NULL, go=E((3, 4, 2, 2), I64)), NULL_CODE, "argmax"),
    ("gi_null", dict(gi=ffi.NULL, go=E((3, 4, 2, 2), I64)), NULL_CODE, "gradInputRef"),
    ("go_bf16", dict(go=E((3, 4, 2, 2), BF16), rois=E((3,), I32)), INVALID, "gradOutput"),
    ("rois_i32", dict(rois=E((3, 5), I32), am=E((3,), F32)), INVALID, "rois"),
    ("am_i64", dict(am=E((3, 4, 2, 2), I64), gi=E((3,), I32)), INVALID, "argmax"),
    ("gi_f64", dict(gi=E((1, 4, 8, 8), np.float64), go=E((3, 4, 2))), INVALID, "gradInputRef"),
    ("go_3d", dict(go=E((3, 4, 2)), rois=E((3,))), INVALID, "gradOutput"),
    ("rois_1d", dict(rois=E((15,)), am=E((3, 4, 2), I32)), INVALID, "rois"),
    ("am_3d", dict(am=E((3, 4, 2), I32), gi=E((1, 4, 8))), INVALID, "argmax"),
    ("gi_3d", dict(gi=E((4, 8, 8)), rois=E((4, 5))), INVALID, "gradInputRef"),
    ("rois_n", dict(rois=E((4, 5)), ph=0), INVALID, "rois dim 0"),
    ("rois_5", dict(rois=E((3, 4)), ph=0), INVALID, "rois dim 1"),
    ("rois_1025", dict(go=E((1025, 4, 1, 1)), rois=E((1025, 5)), am=E((1025, 4, 1, 1), I32), ph=1, pw=1),
     INVALID, "1024"),
    ("gi_1025", dict(gi=E((1025, 4, 8, 8)), am=E((3, 4, 2, 3), I32)), INVALID, "gradInputRef dim 0"),
    ("am_shape", dict(am=E((3, 4, 2, 3), I32), ph=0), INVALID, "argmax"),
    ("pooled_both", dict(ph=3, pw=3), INVALID, "pooledH"),
    ("am_c", dict(gi=E((1, 5, 8, 8)), ph=0), INVALID, "gradInputRef dim 1"),
    ("pooled_zero", dict(go=E((3, 4, 0, 2)), am=E((3, 4, 0, 2), I32), ph=0, pw=2), INVALID, "pooledH"),
]


@pytest.mark.parametrize("kw,code,word", [r[1:] for r in RPG_ROWS], ids=[r[0] for r in RPG_ROWS])
def test_roi_pooling_grad_invalid(kw, code, word):
    expect("RoiPoolingGradWithArgMax", rpg_args(**kw), code, word)


def test_roi_pooling_grad_one_pooled_size_mismatch_passes():
    """The op_api refuses the pooled sizes only when both differ from argmax's dims 2 and 3."""
    expect("RoiPoolingGradWithArgMax", rpg_args(ph=2, pw=5), INNER_NULLPTR, "ascend950")


# ---------------------------------------------------------------- generated aclnn of ascend310p-only OpDefs
@pytest.mark.parametrize("op,args", [
    ("BackgroundReplace", lambda: [E((1, 4, 4, 3), U8), E((1, 4, 4, 3), U8), E((1, 4, 4, 1), F16),
                                   E((1, 4, 4, 3), U8)]),
    ("BlendImagesCustom", lambda: [E((4, 4, 3), U8), E((4, 4, 1), U8), E((4, 4, 3), U8), E((4, 4, 3), U8)]),
    ("MrgbaCustom", lambda: [E((4, 4, 3), U8), E((4, 4, 1), U8), E((4, 4, 4), U8)]),
], ids=["BackgroundReplace", "BlendImagesCustom", "MrgbaCustom"])
def test_310p_only_ops_refused(op, args):
    expect(op, args(), INVALID, "Ascend910B")
    expect(op, [ffi.NULL] * len(args()), INVALID, "ascend310p")
