/* aclnnTransformBiasRescaleQkv (ops-math math/transform_bias_rescale_qkv): qkv (B, T, 3 * D) plus qkvBias (3 * D),
 * split into numHeads heads of dph = D / numHeads and transposed to (B, numHeads, T, dph):
 *   q = (q_in + q_bias) * (1 / sqrt(dph)),  k = k_in + k_bias,  v = v_in + v_bias
 * computed in float (fp16/bf16 cast up, one rounding on the way out), as the kernel does (scale = 1.0f / sqrt(dph)).
 *
 * No op_api source exists upstream: the first phase is the one CANN's op build generates, so the checks are
 * nnopbase's, in its order: NULL tensors (161001); the dtype/format combination against the op definition - all five
 * tensors one of BF16/FLOAT16/FLOAT, ND-like formats (161002); all three outputs empty: nothing to launch; then the
 * tiling's checks (561002): numHeads > 0, D divisible by numHeads, 3 * D divisible by 3, qkvBias 1-D of 3 * D.
 * The tiling reads qkv as 3-D and never looks at the outputs' shapes (the kernel writes B * T * D elements to each):
 * here a qkv that is not 3-D and outputs that are not (B, numHeads, T, dph) are refused with 161002 instead of being
 * written out of bounds. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"

typedef struct { int64_t B, T, D, nh, dph; } tq_params;

/* the formats nnopbase hands to a kernel as ND */
static bool nd_like(aclFormat f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_NCDHW ||
           f == ACL_FORMAT_NCL || (int)f == 31 /* DHWCN */;
}

static aclnnStatus tq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const tq_params *p = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *bv = acl_exec_in(ex, 1);
    const acl_view *ov[3] = {acl_exec_out(ex, 0), acl_exec_out(ex, 1), acl_exec_out(ex, 2)};
    const int64_t B = p->B, T = p->T, D3 = 3 * p->D, nh = p->nh, dph = p->dph;
    const int nt = acl_max_threads();
    float *bias = malloc(sizeof(float) * (size_t)D3);
    const int64_t blk = acl_team_block(D3, sizeof(float));
    float *scratch = acl_team_alloc(nt, D3, sizeof(float), 0); /* a row a thread, whole lines */
    if (!bias || !scratch) { free(bias); free(scratch); return OOM; }
    acl_convert(bv->base, bv->dtype, bv->strides[0], bias, ACL_FLOAT, 1, D3);
    const float scale = 1.0f / sqrtf((float)dph);
    const size_t xes = acl_dtype_size(xv->dtype), oes = acl_dtype_size(ov[0]->dtype);
#pragma omp parallel for schedule(static) if (acl_parallel_worth(B * T * D3))
    for (int64_t bt = 0; bt < B * T; bt++) {
#ifdef _OPENMP
        float *row = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
        float *row = scratch;
#endif
        const int64_t b = bt / T, t = bt % T;
        acl_convert(xv->base + (b * xv->strides[0] + t * xv->strides[1]) * (int64_t)xes, xv->dtype, xv->strides[2],
                    row, ACL_FLOAT, 1, D3);
        for (int64_t c = 0; c < D3; c++) {
            const float s = row[c] + bias[c];
            row[c] = c < p->D ? s * scale : s;
        }
        for (int w = 0; w < 3; w++) {
            const acl_view *o = ov[w];
            for (int64_t h = 0; h < nh; h++)
                acl_convert(row + w * p->D + h * dph, ACL_FLOAT, 1,
                            o->base + (b * o->strides[0] + h * o->strides[1] + t * o->strides[2]) * (int64_t)oes,
                            o->dtype, o->strides[3], dph);
        }
    }
    free(bias);
    free(scratch);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_TransformBiasRescaleQkv(const aclTensor *qkv, const aclTensor *qkvBias, int64_t numHeads,
                                         const aclTensor *qOut, const aclTensor *kOut, const aclTensor *vOut,
                                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *all[] = {qkv, qkvBias, qOut, kOut, vOut};
    const char *names[] = {"qkv", "qkvBias", "qOut", "kOut", "vOut"};
    for (int i = 0; i < 5; i++) NN(all[i], names[i]);
    /* the op definition's combinations: one dtype of the list for all five tensors */
    ACL_TRY(acl_check_dtype_in(qkv, ACL_DT_LIST_TransformBiasRescaleQkv, "qkv"));
    for (int i = 1; i < 5; i++)
        ACLNN_CHECK(all[i]->dtype == qkv->dtype, ACLNN_ERR_PARAM_INVALID,
                    "%s dtype %s should be the same as qkv dtype %s (the op definition's combinations).", names[i],
                    acl_dtype_name(all[i]->dtype), acl_dtype_name(qkv->dtype));
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(nd_like(all[i]->format), ACLNN_ERR_PARAM_INVALID, "%s format %s should be ND.", names[i],
                    acl_format_name(all[i]->format));
    if (acl_tensor_empty(qOut) && acl_tensor_empty(kOut) && acl_tensor_empty(vOut))
        return acl_exec_noop(ACL_OP_TransformBiasRescaleQkv, workspaceSize, executor);
    ACLNN_CHECK(qkv->ndim == 3, ACLNN_ERR_PARAM_INVALID, "qkv should have 3 dims, but has %llu.",
                (unsigned long long)qkv->ndim);
    const int64_t B = qkv->dims[0], T = qkv->dims[1], D3 = qkv->dims[2], D = D3 / 3;
    /* the tiling's checks */
    ACLNN_CHECK(numHeads > 0, ACLNN_ERR_INNER_TILING_ERROR, "numHeads should be positive, but is %lld.",
                (long long)numHeads);
    ACLNN_CHECK(D % numHeads == 0, ACLNN_ERR_INNER_TILING_ERROR,
                "qkv's last dim / 3 (%lld) should be divisible by numHeads (%lld).", (long long)D, (long long)numHeads);
    ACLNN_CHECK(D3 % 3 == 0, ACLNN_ERR_INNER_TILING_ERROR, "qkv's last dim (%lld) should be divisible by 3.",
                (long long)D3);
    ACLNN_CHECK(qkvBias->ndim == 1, ACLNN_ERR_INNER_TILING_ERROR, "qkvBias should have 1 dim, but has %llu.",
                (unsigned long long)qkvBias->ndim);
    ACLNN_CHECK(qkvBias->dims[0] == D3, ACLNN_ERR_INNER_TILING_ERROR,
                "qkvBias size (%lld) should equal qkv's last dim (%lld).", (long long)qkvBias->dims[0],
                (long long)D3);
    const int64_t dph = D / numHeads;
    for (int i = 2; i < 5; i++) {
        const aclTensor *o = all[i];
        ACLNN_CHECK(o->ndim == 4 && o->dims[0] == B && o->dims[1] == numHeads && o->dims[2] == T && o->dims[3] == dph,
                    ACLNN_ERR_PARAM_INVALID, "%s should have shape [%lld, %lld, %lld, %lld].", names[i], (long long)B,
                    (long long)numHeads, (long long)T, (long long)dph);
    }
    if (acl_tensor_empty(qkv)) return acl_exec_noop(ACL_OP_TransformBiasRescaleQkv, workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(qkv) >= 0, ACLNN_ERR_PARAM_INVALID, "qkv has more elements than int64 holds.");
    const aclTensor *ins[] = {qkv, qkvBias}, *outs[] = {qOut, kOut, vOut};
    const char *inn[] = {"qkv", "qkvBias"}, *outn[] = {"qOut", "kOut", "vOut"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_TransformBiasRescaleQkv, tq_run, sizeof(tq_params), ins, inn, 2, outs, outn, 3,
                    workspaceSize, executor, &pp));
    *(tq_params *)pp = (tq_params){B, T, D, numHeads, dph};
    return ACLNN_SUCCESS;
}
