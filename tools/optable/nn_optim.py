"""ops-nn `optim/`: every op of the folder with an aclnn interface (in-place updates of a parameter and its
moments, and vLLM's advance_step). The shared gather / fp32 update / scatter runner is libsrc/ops/optim_plan.c;
each op's validation, in its op_api order (or, without an op_api source, the generated first phase's: the op
definition's dtypes, then the tiling's checks as 561002), is in libsrc/ops/optim_adam.c (ApplyAdam, ApplyAdamW,
ApplyAdamWV2, ApplyFusedEmaAdam), optim_fused.c (the tensor-list ops FusedAdamw, FusedSgd),
optim_adam_w_quant.c (ApplyAdamWQuant) and optim_advance_step.c (AdvanceStep, AdvanceStepV2). Dtype lists: the
ASCEND910B (DAV_2201) branch of each op_api source, else the op definition's. ApplyAdam and ApplyAdamW have kernels
for ASCEND950 only upstream; they are computed here all the same (the brief asks for them; ApplyAdamW's op_api
has an A2 dtype list)."""
from . import Op

FL = ("f32", "f16", "bf16")

OPS = [
    # op_api has an ASCEND910B list, the kernel binaries are ASCEND950 only (docs: A2 not supported)
    Op("ApplyAdamW", "aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, const aclTensor* beta1Power, "
       "const aclTensor* beta2Power, const aclTensor* lr, const aclTensor* weightDecay, const aclTensor* beta1, "
       "const aclTensor* beta2, const aclTensor* eps, const aclTensor* grad, const aclTensor* maxGradNormOptional, "
       "bool amsgrad, bool maximize", "aclnn_apply_adam_w.h", lib="nn", dtypes=FL),
    # no op_api source and no A2 binary (ASCEND950 only): the generated first phase; m and v are inputs only
    Op("ApplyAdam", "aclTensor* varRef, const aclTensor* m, const aclTensor* v, const aclTensor* beta1Power, "
       "const aclTensor* beta2Power, const aclTensor* lr, const aclTensor* beta1, const aclTensor* beta2, "
       "const aclTensor* epsilon, const aclTensor* grad, bool useLocking, bool useNesterov", "aclnn_apply_adam.h",
       lib="nn", dtypes=FL),
    Op("ApplyAdamWV2", "aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, aclTensor* maxGradNormOptionalRef, "
       "const aclTensor* grad, const aclTensor* step, float lr, float beta1, float beta2, float weightDecay, "
       "float eps, bool amsgrad, bool maximize", "aclnn_apply_adam_w_v2.h", lib="nn", dtypes=FL,
       arg_dtypes={"step": ("f32", "i64")}),
    Op("ApplyFusedEmaAdam", "const aclTensor* grad, aclTensor* varRef, aclTensor* mRef, aclTensor* vRef, "
       "aclTensor* sRef, const aclTensor* step, double lr, double emaDecay, double beta1, double beta2, double eps, "
       "int64_t mode, bool biasCorrection, double weightDecay", "aclnn_apply_fused_ema_adam.h", lib="nn",
       dtypes=FL, arg_dtypes={"step": ("i64",)}),
    Op("FusedAdamw", "const aclTensorList* paramsRef, const aclTensorList* grads, const aclTensorList* expAvgsRef, "
       "const aclTensorList* expAvgSqsRef, const aclTensorList* maxExpAvgSqsRef, const aclTensorList* stateSteps, "
       "const aclTensor* gradScaleOptional, const aclTensor* foundInfOptional, double lr, double beta1, "
       "double beta2, double weightDecay, double eps, bool amsgrad, bool maximize", "aclnn_fused_adamw.h",
       lib="nn", dtypes=FL, arg_dtypes={"stateSteps": ("f32", "i64")}),
    Op("FusedSgd", "const aclTensorList* paramsRef, const aclTensorList* gradsRef, "
       "const aclTensorList* momentumBufferListOptionalRef, const aclTensor* gradScaleOptional, float weightDecay, "
       "float momentum, float lr, float dampening, bool nesterov, bool maximize, bool isFirstStep",
       "aclnn_fused_sgd.h", lib="nn", dtypes=FL),
]

# advance_step: no op_api source (generated first phases); the inputs are updated in place (the op definition has
# no outputs): libsrc/ops/optim_advance_step.c
OPS += [
    Op("AdvanceStep", "const aclTensor* inputTokens, const aclTensor* sampledTokenIds, const aclTensor* inputPositions, "
       "const aclTensor* seqLens, const aclTensor* slotMapping, const aclTensor* blockTables, int64_t numSeqs, "
       "int64_t numQueries, int64_t blockSize", "aclnn_advance_step.h", lib="nn", dtypes=("i64",)),
    Op("AdvanceStepV2", "const aclTensor* inputTokens, const aclTensor* sampledTokenIds, "
       "const aclTensor* inputPositions, const aclTensor* seqLens, const aclTensor* slotMapping, "
       "const aclTensor* blockTables, const aclTensor* specToken, const aclTensor* acceptedNum, int64_t numSeqs, "
       "int64_t numQueries, int64_t blockSize", "aclnn_advance_step_v2.h", lib="nn", dtypes=("i64",)),
]

# the 8-bit blockwise-quantized AdamW (no op_api source: generated first phase): libsrc/ops/optim_adam_w_quant.c
OPS += [
    Op("ApplyAdamWQuant", "aclTensor* varRef, const aclTensor* grad, aclTensor* mRef, aclTensor* vRef, "
       "const aclTensor* qmapM, const aclTensor* qmapV, aclTensor* absmaxMRef, aclTensor* absmaxVRef, "
       "const aclTensor* step, double lr, double beta1, double beta2, double weightDecay, double eps, "
       "double gnormScale, char* quantModeOptional, int64_t blockSize", "aclnn_apply_adam_w_quant.h", lib="nn",
       dtypes=FL, arg_dtypes={"mRef": ("u8",), "vRef": ("u8",), "qmapM": ("f32",), "qmapV": ("f32",),
                              "absmaxMRef": ("f32",), "absmaxVRef": ("f32",), "step": ("i64",)}),
]
