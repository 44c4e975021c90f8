/* Issue 12's ops-nn ops that the Atlas A2 (ASCEND910B) does not run. Each entry point does what the real one does on
 * the A2: its argument checks, in the real order, up to the point where the real op refuses the SoC, then that
 * refusal with the real code and a message naming the reason. No kernel runs, no output is written.
 *   GeluQuant          op_api CheckParams begins with the platform check (regbase archs only): 361001 before any
 *                      other check (activation/gelu_quant/op_host/op_api/aclnn_gelu_quant.cpp, CheckPlatform)
 *   RmsNormQuantV3     op_api NULL and shape checks, then the l0 op (an OpDef with an ascend950 config only) cannot
 *                      be added to the launch list: 561103 (norm/rms_norm_quant_v3/op_api/rms_norm_quant_v3.cpp)
 *   SwigluGroup, SwigluGroupQuant, SwigluGroupQuantGrad, CrossEntropySumExpAndIndexLogit   no op_api source: the
 *                      generated first phase of an OpDef configuring ascend950 only; its SoC match refuses: 161002 */
#include "common/dtype.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/ops.h"

#define SOC_NAME "Ascend910B"

/* ================================================================ GeluQuant */
aclnnStatus opws_GeluQuant(const aclTensor *self, const aclTensor *inputScaleOptional,
                           const aclTensor *inputOffsetOptional, const char *approximate, const char *quantMode,
                           const char *roundMode, int64_t dstType, const aclTensor *y,
                           const aclTensor *outScaleOptional, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ACL_REPORT(ACLNN_ERR_RUNTIME_ERROR, "aclnnGeluQuant: support for npu arch of SoC " SOC_NAME " (Atlas A2) is "
                      "not implemented: the op runs on regbase archs (ascend950) only.");
}

/* ================================================================ RmsNormQuantV3 */
aclnnStatus opws_RmsNormQuantV3(const aclTensor *x, const aclTensor *gamma, const aclTensor *scale,
                                const aclTensor *offset, const aclTensor *beta, double epsilon, bool divMode,
                                bool outputRstd, aclTensor *y, aclTensor *rstd, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    NN(scale, "scale");
    NN(y, "y");
    if (outputRstd) NN(rstd, "rstd");
    ACLNN_CHECK(gamma->ndim >= 1 && gamma->ndim <= 2, ACLNN_ERR_PARAM_INVALID, "DimNum of gamma must be 1 or 2, but "
                "is %llu.", (unsigned long long)gamma->ndim);
    ACLNN_CHECK(scale->ndim == 1, ACLNN_ERR_PARAM_INVALID, "DimNum of scale must be 1, but is %llu.",
                (unsigned long long)scale->ndim);
    if (y->dtype == ACL_INT32) { /* eight int4 per INT32 element */
        const int64_t xl = x->ndim ? x->dims[x->ndim - 1] : 1, yl = y->ndim ? y->dims[y->ndim - 1] : 1;
        ACLNN_CHECK(xl % 8 == 0, ACLNN_ERR_PARAM_INVALID, "with an INT32 y the last dim of x must be a multiple of 8, "
                    "but is %lld.", (long long)xl);
        ACLNN_CHECK(xl == yl * 8, ACLNN_ERR_PARAM_INVALID, "with an INT32 y its last dim must be 1/8 of x's (x: %lld, "
                    "y: %lld).", (long long)xl, (long long)yl);
    }
    return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "RmsNormQuantV3 has no kernel on this SoC (" SOC_NAME ", Atlas A2; the "
                      "op is built for ascend950 only): adding it to the launch list failed.");
}

/* ================================================================ generated aclnn of ascend950-only OpDefs */
static aclnnStatus soc_950_only(const char *op) {
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "aclnn%s: SoC version " SOC_NAME " verification failed; the op's "
                      "OpDef configures ascend950 only (Atlas A2 not supported)", op);
}

aclnnStatus opws_SwigluGroup(const aclTensor *x, const aclTensor *weightOptional, const aclTensor *groupIndexOptional,
                             double clampLimit, const aclTensor *out, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    return soc_950_only("SwigluGroup");
}

aclnnStatus opws_SwigluGroupQuant(const aclTensor *x, const aclTensor *weightOptional,
                                  const aclTensor *groupIndexOptional, const aclTensor *scaleOptional, int64_t dstType,
                                  int64_t quantMode, int64_t blockSize, bool roundScale, double clampLimit,
                                  double dstTypeMax, bool outputOrigin, const aclTensor *yOut,
                                  const aclTensor *yScaleOut, const aclTensor *yOriginOut, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    return soc_950_only("SwigluGroupQuant");
}

aclnnStatus opws_SwigluGroupQuantGrad(const aclTensor *gradY, const aclTensor *x, const aclTensor *weightOptional,
                                      const aclTensor *yOriginOptional, const aclTensor *groupIndexOptional,
                                      double clampLimit, const aclTensor *gradXOut,
                                      const aclTensor *gradWeightOutOptional, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    return soc_950_only("SwigluGroupQuantGrad");
}

aclnnStatus opws_CrossEntropySumExpAndIndexLogit(const aclTensor *vocabParallelLogits, const aclTensor *target,
                                                 const aclTensor *globalLogitsMax, int64_t vocabStartIndex,
                                                 int64_t vocabEndIndex, const aclTensor *predictedLogitsOut,
                                                 const aclTensor *sumExpLogitsOut, const aclTensor *expLogitsOut,
                                                 const aclTensor *targetOffsetOut, const aclTensor *targetMaskOut,
                                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    return soc_950_only("CrossEntropySumExpAndIndexLogit");
}
