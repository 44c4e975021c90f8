"""ops-nn quantised norms / activations / losses, third set (issue 12's remaining ops; C in libsrc/ops/norm_*_v2.c,
norm_quantized_batch_norm.c, act_gelu_quant.c, ...; the quantisation step of libsrc/ops/norm_quant.c)."""
from . import Op

OPS = [
    Op("AddRmsNormQuantV2", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, "
       "const aclTensor* scales1, const aclTensor* scales2Optional, const aclTensor* zeroPoints1Optional, "
       "const aclTensor* zeroPoints2Optional, const aclTensor* betaOptional, int64_t axis, double epsilon, "
       "bool divMode, aclTensor* y1Out, aclTensor* y2Out, aclTensor* xOut, aclTensor* rmsNormOut",
       "aclnn_add_rms_norm_quant_v2.h", lib="nn", dtypes=("f16", "bf16"),
       optional=("scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional", "betaOptional", "xOut",
                 "rmsNormOut")),
]


def _inputs(op, *names):
    """Inputs the real header declares `aclTensor*` (non-const): read only, so inputs to the table."""
    for a in op.args:
        if a.name in names:
            a.kind = "tensor"
    return op


OPS += [
    _inputs(Op("QuantizedBatchNorm", "const aclTensor* input, const aclTensor* mean, const aclTensor* var, "
               "const aclScalar* inputScale, const aclScalar* inputZeroPoint, const aclScalar* outputScale, "
               "const aclScalar* outputZeroPoint, aclTensor* weight, aclTensor* bias, float epsilon, "
               "aclTensor* output", "aclnn_quantized_batch_norm.h", lib="nn", dtypes=("i8", "u8", "i32"),
               optional=("weight", "bias")), "weight", "bias"),
]

# activation/log_sigmoid's BinaryCrossEntropyWithLogitsTargetBackward (libsrc/ops/loss_bce_logits_target_backward.c):
# gradTarget = gradOutput * (logsigmoid(-self) - posWeight * logsigmoid(self)) * weight (/ numel for mean)
OPS += [
    Op("BinaryCrossEntropyWithLogitsTargetBackward", "const aclTensor* gradOutput, const aclTensor* self, "
       "const aclTensor* target, const aclTensor* weightOptional, const aclTensor* posWeightOptional, "
       "int64_t reduction, aclTensor* gradTarget", "aclnn_binary_cross_entropy_with_logits_target_backward.h",
       lib="nn", dtypes=("f16", "f32", "bf16"), optional=("weightOptional", "posWeightOptional")),
]

# No Atlas A2 path (libsrc/ops/nn_more_quant_a2.c): GeluQuant's op_api refuses every non-regbase arch before any
# other check (361001); RmsNormQuantV3's only kernel is ascend950's (after its NULL and shape checks, launching it
# fails: 561103); SwigluGroup, SwigluGroupQuant, SwigluGroupQuantGrad and CrossEntropySumExpAndIndexLogit have no
# op_api source: their first phase is the one CANN generates from an OpDef that configures ascend950 only, whose SoC
# match refuses the A2 (161002).
OPS += [
    Op("GeluQuant", "const aclTensor* self, const aclTensor* inputScaleOptional, const aclTensor* inputOffsetOptional, "
       "const char* approximate, const char* quantMode, const char* roundMode, int64_t dstType, const aclTensor* y, "
       "const aclTensor* outScaleOptional", "aclnn_gelu_quant.h", lib="nn", dtypes=("f16", "bf16", "f32"),
       optional=("inputScaleOptional", "inputOffsetOptional", "outScaleOptional"), out=("y", "outScaleOptional"),
       note="regbase (ascend950) only: 361001 on the A2", test=False),
    Op("RmsNormQuantV3", "const aclTensor* x, const aclTensor* gamma, const aclTensor* scale, const aclTensor* offset, "
       "const aclTensor* beta, double epsilon, bool divMode, bool outputRstd, aclTensor* y, aclTensor* rstd",
       "aclnn_rms_norm_quant_v3.h", lib="nn", dtypes=("f32", "f16", "bf16"), optional=("offset", "beta", "rstd"),
       note="ascend950 only: 561103 on the A2", test=False),
    Op("SwigluGroup", "const aclTensor *x, const aclTensor *weightOptional, const aclTensor *groupIndexOptional, "
       "double clampLimit, const aclTensor *out", "aclnn_swiglu_group.h", lib="nn", dtypes=("f16", "bf16", "f32"),
       optional=("weightOptional", "groupIndexOptional"), out="out", note="ascend950 only: 161002 on the A2",
       test=False),
    Op("SwigluGroupQuant", "const aclTensor *x, const aclTensor *weightOptional, const aclTensor *groupIndexOptional, "
       "const aclTensor *scaleOptional, int64_t dstType, int64_t quantMode, int64_t blockSize, bool roundScale, "
       "double clampLimit, double dstTypeMax, bool outputOrigin, const aclTensor *yOut, const aclTensor *yScaleOut, "
       "const aclTensor *yOriginOut", "aclnn_swiglu_group_quant.h", lib="nn", dtypes=("f32", "f16", "bf16"),
       optional=("weightOptional", "groupIndexOptional", "scaleOptional", "yOriginOut"),
       out=("yOut", "yScaleOut", "yOriginOut"), note="ascend950 only: 161002 on the A2", test=False),
    Op("SwigluGroupQuantGrad", "const aclTensor *gradY, const aclTensor *x, const aclTensor *weightOptional, "
       "const aclTensor *yOriginOptional, const aclTensor *groupIndexOptional, double clampLimit, "
       "const aclTensor *gradXOut, const aclTensor *gradWeightOutOptional", "aclnn_swiglu_group_quant_grad.h",
       lib="nn", dtypes=("bf16", "f16", "f32"),
       optional=("weightOptional", "yOriginOptional", "groupIndexOptional", "gradWeightOutOptional"),
       out=("gradXOut", "gradWeightOutOptional"), note="ascend950 only: 161002 on the A2", test=False),
    Op("CrossEntropySumExpAndIndexLogit", "const aclTensor *vocabParallelLogits, const aclTensor *target, "
       "const aclTensor *globalLogitsMax, int64_t vocabStartIndex, int64_t vocabEndIndex, "
       "const aclTensor *predictedLogitsOut, const aclTensor *sumExpLogitsOut, const aclTensor *expLogitsOut, "
       "const aclTensor *targetOffsetOut, const aclTensor *targetMaskOut",
       "aclnn_cross_entropy_sum_exp_and_index_logit.h", lib="nn", dtypes=("f32", "bf16"),
       out=("predictedLogitsOut", "sumExpLogitsOut", "expLogitsOut", "targetOffsetOut", "targetMaskOut"),
       note="ascend950 only: 161002 on the A2", test=False),
]
