"""ops-nn `norm/` ops (libsrc/ops/norm_*.c, one file per forward/backward family; shared compute in
libsrc/kernels/norm.c): layer norm, RMS norm, batch norm, group norm, instance norm and the fused add variants.

RmsNorm, RmsNormGrad and AddLayerNorm have no op_api source upstream: their first phase is the one CANN generates
from the op definition, and their headers declare the outputs `const aclTensor*` as the generated headers do."""
from . import FLOAT, Op


def _outputs(op, *names):
    """Outputs a generated header declares `const aclTensor*`: they are written, so they are outputs to the table."""
    for a in op.args:
        if a.name in names:
            a.kind = "out"
    return op


_LN = ("const aclTensor* input, const aclIntArray* normalizedShape, const aclTensor* weightOptional, "
       "const aclTensor* biasOptional, double eps, aclTensor* out, aclTensor* meanOutOptional, "
       "aclTensor* rstdOutOptional")

OPS = [
    Op("LayerNorm", _LN, "aclnn_layer_norm.h", lib="nn", dtypes=("f16", "f32", "bf16"),
       optional=("weightOptional", "biasOptional", "meanOutOptional", "rstdOutOptional")),
    Op("LayerNormWithImplMode", _LN + ", int32_t implMode", "aclnn_layer_norm.h", lib="nn",
       dtypes=("f16", "f32", "bf16"),
       optional=("weightOptional", "biasOptional", "meanOutOptional", "rstdOutOptional")),
    Op("LayerNormBackward", "const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, "
       "const aclTensor* mean, const aclTensor* rstd, const aclTensor* weightOptional, const aclTensor* biasOptional, "
       "const aclBoolArray* outputMask, aclTensor* gradInputOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut",
       "aclnn_layer_norm_backward.h", lib="nn", dtypes=("f16", "f32", "bf16"),
       optional=("weightOptional", "biasOptional", "gradInputOut", "gradWeightOut", "gradBiasOut")),
    _outputs(Op("RmsNorm", "const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut, "
                "const aclTensor *rstdOut", "aclnn_rms_norm.h", lib="nn", dtypes=FLOAT), "yOut", "rstdOut"),
    _outputs(Op("RmsNormGrad", "const aclTensor *dy, const aclTensor *x, const aclTensor *rstd, "
                "const aclTensor *gamma, const aclTensor *dxOut, const aclTensor *dgammaOut", "aclnn_rms_norm_grad.h",
                lib="nn", dtypes=FLOAT), "dxOut", "dgammaOut"),
    Op("AddRmsNorm", "const aclTensor* x1, const aclTensor* x2, const aclTensor* gamma, double epsilon, "
       "aclTensor* yOut, aclTensor* rstdOut, aclTensor* xOut", "aclnn_add_rms_norm.h", lib="nn", dtypes=FLOAT,
       optional=("rstdOut", "xOut")),
    _outputs(Op("AddLayerNorm", "const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, "
                "const aclTensor *beta, const aclTensor *biasOptional, double epsilon, bool additionalOutput, "
                "const aclTensor *yOut, const aclTensor *meanOut, const aclTensor *rstdOut, const aclTensor *xOut",
                "aclnn_add_layer_norm.h", lib="nn", dtypes=FLOAT, optional=("biasOptional",)),
             "yOut", "meanOut", "rstdOut", "xOut"),
    Op("BatchNorm", "const aclTensor* input, const aclTensor* weight, const aclTensor* bias, aclTensor* runningMean, "
       "aclTensor* runningVar, bool training, double momentum, double eps, aclTensor* output, aclTensor* saveMean, "
       "aclTensor* saveInvstd", "aclnn_batch_norm.h", lib="nn", dtypes=FLOAT,
       optional=("weight", "bias", "runningMean", "runningVar", "saveMean", "saveInvstd")),
    Op("BatchNormBackward", "const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight, "
       "const aclTensor* runningMean, const aclTensor* runningVar, const aclTensor* saveMean, "
       "const aclTensor* saveInvstd, bool training, double eps, const aclBoolArray* outputMask, aclTensor* gradInput, "
       "aclTensor* gradWeight, aclTensor* gradBias", "aclnn_batch_norm_backward.h", lib="nn", dtypes=FLOAT,
       optional=("weight", "runningMean", "runningVar", "saveMean", "saveInvstd", "gradInput", "gradWeight",
                 "gradBias")),
    Op("GroupNorm", "const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, int64_t N, int64_t C, "
       "int64_t HxW, int64_t group, double eps, aclTensor* out, aclTensor* meanOut, aclTensor* rstdOut",
       "aclnn_group_norm.h", lib="nn", dtypes=("f16", "bf16", "f32"), optional=("gamma", "beta")),
    Op("GroupNormBackward", "const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, "
       "const aclTensor* rstd, const aclTensor* gamma, int64_t N, int64_t C, int64_t HxW, int64_t group, "
       "const aclBoolArray* outputMask, aclTensor* gradInput, aclTensor* gradGammaOut, aclTensor* gradBetaOut",
       "aclnn_group_norm_backward.h", lib="nn", dtypes=("f32", "f16", "bf16"),
       optional=("gamma", "gradInput", "gradGammaOut", "gradBetaOut")),
    Op("InstanceNorm", "const aclTensor* x, const aclTensor* gamma, const aclTensor* beta, const char* dataFormat, "
       "double eps, aclTensor* y, aclTensor* mean, aclTensor* variance", "aclnn_instance_norm.h", lib="nn",
       dtypes=("f32", "f16")),
]

OPS += [
    _outputs(Op("GemmaRmsNorm", "const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut, "
                "const aclTensor *rstdOut", "aclnn_gemma_rms_norm.h", lib="nn", dtypes=FLOAT), "yOut", "rstdOut"),
    _outputs(Op("DeepNorm", "const aclTensor *x, const aclTensor *gx, const aclTensor *beta, const aclTensor *gamma, "
                "double alpha, double epsilon, const aclTensor *meanOut, const aclTensor *rstdOut, "
                "const aclTensor *yOut", "aclnn_deep_norm.h", lib="nn", dtypes=FLOAT), "meanOut", "rstdOut", "yOut"),
    _outputs(Op("DeepNormGrad", "const aclTensor *dy, const aclTensor *x, const aclTensor *gx, const aclTensor *gamma, "
                "const aclTensor *mean, const aclTensor *rstd, double alpha, const aclTensor *dxOut, "
                "const aclTensor *dgxOut, const aclTensor *dbetaOut, const aclTensor *dgammaOut",
                "aclnn_deep_norm_grad.h", lib="nn", dtypes=FLOAT), "dxOut", "dgxOut", "dbetaOut", "dgammaOut"),
    Op("GroupNormSilu", "const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, int64_t group, "
       "double eps, aclTensor* out, aclTensor* meanOut, aclTensor* rstdOut", "aclnn_group_norm_silu.h", lib="nn",
       dtypes=("f16", "bf16", "f32"), optional=("gamma", "beta")),
    Op("GroupNormSiluV2", "const aclTensor* self, const aclTensor* gamma, const aclTensor* beta, int64_t group, "
       "double eps, bool activateSilu, aclTensor* out, aclTensor* meanOut, aclTensor* rstdOut",
       "aclnn_group_norm_silu.h", lib="nn", dtypes=("f16", "bf16", "f32"), optional=("gamma", "beta")),
    _outputs(Op("GroupNormSwish", "const aclTensor *x, const aclTensor *gamma, const aclTensor *beta, "
                "int64_t numGroups, char *dataFormatOptional, double eps, bool activateSwish, double swishScale, "
                "const aclTensor *yOut, const aclTensor *meanOut, const aclTensor *rstdOut",
                "aclnn_group_norm_swish.h", lib="nn", dtypes=("f16", "f32", "bf16"),
                optional=("dataFormatOptional",)), "yOut", "meanOut", "rstdOut"),
    _outputs(Op("GroupNormSwishGrad", "const aclTensor *dy, const aclTensor *mean, const aclTensor *rstd, "
                "const aclTensor *x, const aclTensor *gamma, const aclTensor *beta, int64_t numGroups, "
                "char *dataFormatOptional, double swishScale, bool dgammaIsRequire, bool dbetaIsRequire, "
                "const aclTensor *dxOut, const aclTensor *dgammaOut, const aclTensor *dbetaOut",
                "aclnn_group_norm_swish_grad.h", lib="nn", dtypes=("f16", "f32", "bf16"),
                optional=("dataFormatOptional",)), "dxOut", "dgammaOut", "dbetaOut"),
]

OPS += [
    Op("FastLayerNorm", _LN, "aclnn_layer_norm.h", lib="nn", dtypes=("f16", "f32", "bf16"),
       optional=("weightOptional", "biasOptional", "meanOutOptional", "rstdOutOptional")),
    Op("FastBatchNormBackward", "const aclTensor* gradOut, const aclTensor* input, const aclTensor* weight, "
       "const aclTensor* runningMean, const aclTensor* runningVar, const aclTensor* saveMean, "
       "const aclTensor* saveInvstd, bool training, double eps, const aclBoolArray* outputMask, int version, "
       "aclTensor* gradInput, aclTensor* gradWeight, aclTensor* gradBias", "aclnn_fast_batch_norm_backward.h",
       lib="nn", dtypes=FLOAT,
       optional=("weight", "runningMean", "runningVar", "saveMean", "saveInvstd", "gradInput", "gradWeight",
                 "gradBias")),
    Op("BatchNormReduce", "const aclTensor* x, aclTensor* sum, aclTensor* squareSum", "aclnn_batch_norm_reduce.h",
       lib="nn", dtypes=FLOAT, arg_dtypes={"sum": ("f32",), "squareSum": ("f32",)}),
    Op("SyncBatchNormGatherStats", "const aclTensor* totalSum, const aclTensor* totalSquareSum, "
       "const aclTensor* sampleCount, aclTensor* mean, aclTensor* variance, float momentum, float eps, "
       "aclTensor* batchMean, aclTensor* batchInvstd", "aclnn_sync_batch_norm_gather_stats.h", lib="nn",
       dtypes=("f32", "f16"), arg_dtypes={"sampleCount": ("f32", "f16", "i32")}),
    Op("BatchNormGatherStatsWithCounts", "const aclTensor* input, const aclTensor* mean, const aclTensor* invstd, "
       "aclTensor* runningMean, aclTensor* runningVar, double momentum, double eps, const aclTensor* counts, "
       "aclTensor* meanAll, aclTensor* invstdAll", "aclnn_batch_norm_gather_stats_with_counts.h", lib="nn",
       dtypes=FLOAT, optional=("runningMean", "runningVar")),
    Op("BatchNormElemt", "const aclTensor* input, const aclTensor* weight, const aclTensor* bias, aclTensor* mean, "
       "aclTensor* invstd, double eps, aclTensor* output", "aclnn_batch_norm_elemt.h", lib="nn", dtypes=FLOAT,
       optional=("weight", "bias"), inout="output"),
    Op("BatchNormReduceBackward", "const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, "
       "const aclTensor* invstd, const aclTensor* weight, const bool inputG, const bool weightG, const bool biasG, "
       "aclTensor* sumDy, aclTensor* sumDyXmu, aclTensor* gradWeight, aclTensor* gradBias",
       "aclnn_batch_norm_backward_reduce.h", lib="nn", dtypes=FLOAT,
       optional=("weight", "sumDy", "sumDyXmu", "gradWeight", "gradBias")),
    Op("BatchNormElemtBackward", "const aclTensor* gradOut, const aclTensor* input, const aclTensor* mean, "
       "const aclTensor* invstd, const aclTensor* weight, const aclTensor* sumDy, const aclTensor* sumDyXmu, "
       "aclTensor* counter, aclTensor* gradInput", "aclnn_batch_norm_elemt_backward.h", lib="nn", dtypes=FLOAT,
       optional=("weight",), arg_dtypes={"counter": ("f32", "f16", "i32")}),
]

OPS += [
    Op("Renorm", "const aclTensor* self, const aclScalar* p, int64_t dim, const aclScalar* maxNorm, aclTensor* out",
       "aclnn_renorm.h", lib="nn", dtypes=FLOAT),
    Op("InplaceRenorm", "aclTensor* selfRef, const aclScalar* p, int64_t dim, const aclScalar* maxNorm",
       "aclnn_renorm.h", lib="nn", dtypes=FLOAT),
    Op("EmbeddingRenorm", "aclTensor* selfRef, const aclTensor* indices, double maxNorm, double normType",
       "aclnn_embedding_renorm.h", lib="nn", dtypes=FLOAT, arg_dtypes={"indices": ("i32", "i64")}, inplace=True,
       inout="selfRef"),
]

OPS += [
    Op("AdaLayerNorm", "const aclTensor* x, const aclTensor* scale, const aclTensor* shift, "
       "const aclTensor* weightOptional, const aclTensor* biasOptional, double epsilon, aclTensor* out",
       "aclnn_ada_layer_norm.h", lib="nn", dtypes=FLOAT, optional=("weightOptional", "biasOptional")),
    Op("AdaLayerNormV2", "const aclTensor* x, const aclTensor* scale, const aclTensor* shift, "
       "const aclTensor* weightOptional, const aclTensor* biasOptional, double epsilon, aclTensor* out, "
       "aclTensor* meanOutOptional, aclTensor* rstdOutOptional", "aclnn_ada_layer_norm_v2.h", lib="nn", dtypes=FLOAT,
       optional=("weightOptional", "biasOptional", "meanOutOptional", "rstdOutOptional")),
]

OPS += [
    _outputs(Op("InplaceAddRmsNorm", "aclTensor *x1Ref, aclTensor *x2Ref, const aclTensor *gamma, double epsilon, "
                "const aclTensor *rstdOut", "aclnn_inplace_add_rms_norm.h", lib="nn", dtypes=FLOAT, inplace=True,
                inout="x1Ref"), "rstdOut"),
    _outputs(Op("AddRmsNormCast", "const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, double epsilon, "
                "const aclTensor *y1Out, const aclTensor *y2Out, const aclTensor *rstdOut, const aclTensor *xOut",
                "aclnn_add_rms_norm_cast.h", lib="nn", dtypes=("f16", "bf16")), "y1Out", "y2Out", "rstdOut", "xOut"),
    _outputs(Op("AddLayerNormGrad", "const aclTensor *dy, const aclTensor *x1, const aclTensor *x2, "
                "const aclTensor *rstd, const aclTensor *mean, const aclTensor *gamma, const aclTensor *dsumOptional, "
                "const aclTensor *dxOut, const aclTensor *dgammaOut, const aclTensor *dbetaOut",
                "aclnn_add_layer_norm_grad.h", lib="nn", dtypes=FLOAT, optional=("dsumOptional",)),
             "dxOut", "dgammaOut", "dbetaOut"),
]

OPS += [
    Op("AdaLayerNormBackward", "const aclTensor* gradOut, const aclTensor* input, const aclIntArray* normalizedShape, "
       "const aclTensor* rstd, const aclTensor* mean, const aclTensor* scale, const aclTensor* shift, "
       "const aclTensor* weightOptional, const aclTensor* biasOptional, aclTensor* gradInputOut, "
       "aclTensor* gradScaleOut, aclTensor* gradShiftOut, aclTensor* gradWeightOut, aclTensor* gradBiasOut",
       "aclnn_ada_layer_norm_backward.h", lib="nn", dtypes=FLOAT,
       optional=("weightOptional", "biasOptional", "gradInputOut", "gradScaleOut", "gradShiftOut", "gradWeightOut",
                 "gradBiasOut")),
]

OPS += [
    _outputs(Op("MaskedSoftmaxWithRelPosBias", "const aclTensor *x, const aclTensor *attenMaskOptional, "
                "const aclTensor *relativePosBias, double scaleValue, int64_t innerPrecisionMode, "
                "const aclTensor *out", "aclnn_masked_softmax_with_rel_pos_bias.h", lib="nn",
                dtypes=("f16", "bf16", "f32"), optional=("attenMaskOptional",)), "out"),
]
