"""ops-nn loss/: the elementwise losses and their backwards (libsrc/ops/loss_regression.c, loss_bce.c,
loss_kl_div_backward.c over the engine loss_pointwise.c). Dtype lists: the ASCEND910B lists of each op_api source
(L1Loss: the list its promoted dtype must be in)."""
from . import FLOAT, Op

T = "const aclTensor*"

OPS = [
    Op("MseLoss", f"{T} self, {T} target, int64_t reduction, aclTensor* out", "aclnn_mse_loss.h", lib="nn",
       dtypes=FLOAT),
    Op("MseLossOut", f"{T} self, {T} target, int64_t reduction, aclTensor* out", "aclnn_mse_loss_out.h", lib="nn",
       dtypes=FLOAT),
    Op("MseLossBackward", f"{T} gradOutput, {T} self, {T} target, int64_t reduction, aclTensor* out",
       "aclnn_mse_loss_backward.h", lib="nn", dtypes=FLOAT),
    Op("L1Loss", f"{T} self, {T} target, int64_t reduction, aclTensor* out", "aclnn_l1_loss.h", lib="nn",
       dtypes=("f32", "f16", "i64", "bf16")),
    Op("L1LossBackward", f"{T} gradOutput, {T} self, {T} target, int64_t reduction, aclTensor* gradInput",
       "aclnn_l1_loss_backward.h", lib="nn", dtypes=FLOAT),
    Op("SmoothL1Loss", f"{T} self, {T} target, int64_t reduction, float beta, aclTensor* result",
       "aclnn_smooth_l1_loss.h", lib="nn", dtypes=FLOAT),
    Op("SmoothL1LossBackward", f"{T} gradOut, {T} self, {T} target, int64_t reduction, float beta, "
       "aclTensor* gradInput", "aclnn_smooth_l1_loss_backward.h", lib="nn", dtypes=FLOAT),
    Op("SoftMarginLoss", f"{T} self, {T} target, int64_t reduction, aclTensor* out", "aclnn_soft_margin_loss.h",
       lib="nn", dtypes=FLOAT),
    Op("SoftMarginLossBackward", f"{T} gradOutput, {T} self, {T} target, int64_t reduction, aclTensor* out",
       "aclnn_soft_margin_loss_backward.h", lib="nn", dtypes=FLOAT),
    Op("BinaryCrossEntropy", f"{T} self, {T} target, {T} weight, int64_t reduction, aclTensor* out",
       "aclnn_binary_cross_entropy.h", lib="nn", dtypes=FLOAT),
    Op("BinaryCrossEntropyBackward", f"{T} gradOutput, {T} self, {T} target, {T} weightOptional, "
       "int64_t reduction, aclTensor* out", "aclnn_binary_cross_entropy_backward.h", lib="nn",
       dtypes=("f16", "f32", "bf16")),
    Op("BinaryCrossEntropyWithLogits", f"{T} self, {T} target, {T} weightOptional, {T} posWeightOptional, "
       "int64_t reduction, aclTensor* out", "aclnn_binary_cross_entropy_with_logits.h", lib="nn", dtypes=FLOAT),
    Op("BinaryCrossEntropyWithLogitsBackward", f"{T} gradOutput, {T} self, {T} target, {T} weightOptional, "
       f"{T} posWeightOptional, int64_t reduction, aclTensor* out",
       "aclnn_binary_cross_entropy_with_logits_backward.h", lib="nn", dtypes=("f16", "f32", "bf16")),
    Op("KlDivBackward", f"{T} gradOutput, {T} self, {T} target, int64_t reduction, bool logTarget, aclTensor* out",
       "aclnn_kl_div_backward.h", lib="nn", dtypes=FLOAT),
    Op("KlDivTargetBackward", f"{T} gradOutput, {T} self, {T} target, int64_t reduction, bool logTarget, "
       "aclTensor* gradTarget", "aclnn_kl_div_target_backward.h", lib="nn", dtypes=FLOAT),
]

# NLLLoss family (libsrc/ops/loss_nll.c): self f32/f16/bf16, target int64/uint8/int32
NLL_T = ("i64", "u8", "i32")
OPS += [
    Op("NLLLoss", f"{T} self, {T} target, {T} weight, int64_t reduction, int64_t ignoreIndex, aclTensor* out, "
       "aclTensor* totalWeightOut", "aclnn_nll_loss.h", lib="nn", dtypes=FLOAT, arg_dtypes={"target": NLL_T}),
    Op("NLLLoss2d", f"{T} self, {T} target, {T} weight, int64_t reduction, int64_t ignoreIndex, aclTensor* out, "
       "aclTensor* totalWeightOut", "aclnn_nll_loss2d.h", lib="nn", dtypes=FLOAT, arg_dtypes={"target": NLL_T}),
    Op("NLLLossBackward", f"{T} gradOutput, {T} self, {T} target, {T} weight, int64_t reduction, "
       f"int64_t ignoreIndex, {T} totalWeight, aclTensor* out", "aclnn_nll_loss_backward.h", lib="nn",
       dtypes=FLOAT, arg_dtypes={"target": NLL_T}),
    Op("NLLLoss2dBackward", f"{T} gradOutput, {T} self, {T} target, {T} weight, int64_t reduction, "
       "int64_t ignoreIndex, aclTensor* totalWeight, aclTensor* out", "aclnn_nll_loss2d_backward.h", lib="nn",
       dtypes=FLOAT, arg_dtypes={"target": NLL_T}),
]


def _outs(op, *names):
    """the real headers declare these outputs const aclTensor*"""
    for a in op.args:
        if a.name in names:
            a.kind = "out"
    return op


# CrossEntropyLoss(+Grad) (libsrc/ops/loss_cross_entropy.c): no op_api source; the A2 lists of the op definitions
OPS += [
    _outs(Op("CrossEntropyLoss", f"{T} input, {T} target, {T} weightOptional, char* reductionOptional, "
             "int64_t ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss, bool returnZloss, "
             f"{T} lossOut, {T} logProbOut, {T} zlossOut, {T} lseForZlossOut", "aclnn_cross_entropy_loss.h",
             lib="nn", dtypes=("f16", "f32", "bf16"), arg_dtypes={"target": ("i64",), "weightOptional": ("f32",)}),
          "lossOut", "logProbOut", "zlossOut", "lseForZlossOut"),
    _outs(Op("CrossEntropyLossGrad", f"{T} gradLoss, {T} logProb, {T} target, {T} weightOptional, "
             f"{T} gradZlossOptional, {T} lseForZlossOptional, char* reductionOptional, int64_t ignoreIndex, "
             f"double labelSmoothing, double lseSquareScaleForZloss, {T} out", "aclnn_cross_entropy_loss_grad.h",
             lib="nn", dtypes=("bf16", "f16", "f32"), arg_dtypes={"target": ("i64",), "weightOptional": ("f32",)}),
          "out"),
]

OPS += [
    Op("MultilabelMarginLoss", f"{T} self, {T} target, int64_t reduction, aclTensor* out, aclTensor* isTarget",
       "aclnn_multilabel_margin_loss.h", lib="nn", dtypes=FLOAT, arg_dtypes={"target": ("i64", "i32")}),
    Op("ChamferDistanceBackward", f"{T} xyz1, {T} xyz2, {T} idx1, {T} idx2, {T} gradDist1, {T} gradDist2, "
       "aclTensor* gradXyz1, aclTensor* gradXyz2", "aclnn_chamfer_distance_backward.h", lib="nn",
       dtypes=("f32", "f16"), arg_dtypes={"idx1": ("i32",), "idx2": ("i32",)}),
    Op("FusedCrossEntropyLossWithMaxSum", f"{T} logitsMax, {T} sumExpLogits, {T} predictedLogits, "
       f"float labelSmoothing, {T} inputOptional, {T} weightOptional, {T} vocabParallelLogitsOptional, "
       "aclTensor* lossOut, aclTensor* softMaxOutOptional", "aclnn_fused_cross_entropy_loss_with_max_sum.h",
       lib="nn", dtypes=("f32",), arg_dtypes={"vocabParallelLogitsOptional": ("f32", "f16", "bf16")}),
]

OPS += [
    Op("CtcLoss", f"{T} logProbs, {T} targets, const aclIntArray* inputLengths, const aclIntArray* targetlengths, "
       "int64_t blank, bool zeroInfinity, aclTensor* negLogLikelihoodOut, aclTensor* logAlphaOut",
       "aclnn_ctc_loss.h", lib="nn", dtypes=("f32", "f16", "bf16", "f64"),
       arg_dtypes={"targets": ("i32", "i64", "bool", "f32", "f16")}),
    Op("CtcLossBackward", f"{T} gradOut, {T} logProbs, {T} targets, const aclIntArray* inputLengths, "
       f"const aclIntArray* targetLengths, {T} negLogLikelihood, {T} logAlpha, int64_t blank, bool zeroInfinity, "
       "aclTensor* out", "aclnn_ctc_loss_backward.h", lib="nn", dtypes=("f32", "f16", "bf16", "f64"),
       arg_dtypes={"targets": ("i32", "i64", "bool", "f32", "f16")}),
]

# Logit / LogitGrad: elementwise (the generated engine); no op_api source, the A2 lists of the op definitions. eps < 0
# means no clamping (the attribute's default -1). LogitGrad skips the generated NaN/Inf case: PyTorch CPU itself
# disagrees between dtypes there (a NaN x gives 0 in its vectorised f32 path, NaN for f16/bf16); NaN propagates here.
from . import ew  # noqa: E402

OPS += [
    ew("Logit", f"{T} input, double eps, {T} out", "aclnn_logit.h", lib="nn", dtypes=("bf16", "f16", "f32"),
       out="out", out_rule="same",
       formula="s0 < 0 ? log(a / (1 - a)) : log((a < s0 ? s0 : a > 1 - s0 ? 1 - s0 : a) / "
               "(1 - (a < s0 ? s0 : a > 1 - s0 ? 1 - s0 : a)))",
       scalars=[0.2], domain=(-0.2, 1.2), torch="torch.logit(a, s0 if s0 >= 0 else None)"),
    ew("LogitGrad", f"{T} x, {T} dy, double eps, {T} out", "aclnn_logit_grad.h", lib="nn",
       dtypes=("bf16", "f16", "f32"), out="out", out_rule="same", same_dtype=("dy",),
       formula="s0 < 0 ? ((a < 0 || a > 1) ? NAN : b / (a * (1 - a))) "
               ": ((a < s0 || a > 1 - s0) ? 0 : b / (a * (1 - a)))",
       scalars=[0.02], domain=(0.05, 0.95), skip_special=("bf16", "f16", "f32"),
       torch="torch.ops.aten.logit_backward(b, a, s0 if s0 >= 0 else None)"),
]
