/* aclnnAddmm / aclnnInplaceAddmm (ops-nn matmul/mat_mul_v3): out = beta * self + alpha * (mat1 @ mat2), self
 * broadcast to (M, N) (at most 2 dims). Checks in the op_api order: NULLs (self, mat1, mat2, beta, alpha, out), the
 * DAV_2201 rule (mat1, mat2, self, out dtypes in {f32, f16, bf16}, cubeMathType -1..4), mat1/mat2 2-d with equal
 * k, self not FRACTAL_NZ, self at most 2-d / broadcastable to (M, N), out (M, N) (an empty product only needs an
 * empty out); then an empty self or an empty product returns. The product is the shared GEMM engine's f32 sums
 * (inputs in the DAV_2201 upper dtype), combined in f32 as beta * self + alpha * product and rounded once to out. */
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/gemm.h"
#include "meta/meta.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

typedef struct {
    gemm_problem g;          /* C: an f32 M x N scratch, filled at run time */
    int64_t srs, scs;        /* self broadcast to (M, N): element strides (0 on broadcast dims) */
    aclDataType sdt, odt;
    int64_t ors, ocs;
    float alpha, beta;
} addmm_params;

static aclnnStatus addmm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const addmm_params *p = ex->params;
    const int64_t M = p->g.M, N = p->g.N;
    float *acc = malloc(sizeof(float) * (size_t)(M * N));
    if (!acc) return OOM;
    gemm_problem g = p->g;
    g.a = acl_exec_in(ex, 1)->base;
    g.b = acl_exec_in(ex, 2)->base;
    g.c = acc;
    if (gemm_run(&g) != 0) {
        free(acc);
        return OOM;
    }
    const char *sb = acl_exec_in(ex, 0)->base;
    char *ob = acl_exec_out(ex, 0)->base;
    const size_t ses = acl_dtype_size(p->sdt), oes = acl_dtype_size(p->odt);
    int fail = 0;
#pragma omp parallel if (acl_parallel_worth(M * N)) reduction(| : fail)
    {
        float *row = malloc(sizeof(float) * (size_t)N);
        if (!row) fail = 1;
#pragma omp for schedule(static)
        for (int64_t i = 0; i < M; i++) {
            if (!row) continue;
            acl_convert(sb + i * p->srs * (int64_t)ses, p->sdt, p->scs, row, ACL_FLOAT, 1, N);
            const float *ar = acc + i * N;
            for (int64_t j = 0; j < N; j++) {
                const float s = p->beta * row[j], m = p->alpha * ar[j];
                row[j] = s + m;
            }
            acl_convert(row, ACL_FLOAT, 1, ob + i * p->ors * (int64_t)oes, p->odt, p->ocs, N);
        }
        free(row);
    }
    free(acc);
    return fail ? OOM : ACLNN_SUCCESS;
}

#define AM_FORMAT_NZ ((aclFormat)29)

static aclnnStatus addmm_plan(int op, const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2,
                              const aclScalar *beta, const aclScalar *alpha, aclTensor *out, int8_t cmt, bool inplace,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    const char *sn = inplace ? "selfRef" : "self";
    NN(self, sn);
    NN(mat1, "mat1");
    NN(mat2, "mat2");
    ACLNN_CHECK(beta != NULL, ACLNN_ERR_PARAM_NULLPTR, "beta must not be NULL.");
    ACLNN_CHECK(alpha != NULL, ACLNN_ERR_PARAM_NULLPTR, "alpha must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(mat1, ACL_DT_LIST_Addmm, "mat1"));
    ACL_TRY(acl_check_dtype_in(mat2, ACL_DT_LIST_Addmm, "mat2"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Addmm, sn));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Addmm, inplace ? sn : "out"));
    ACLNN_CHECK(cmt >= -1 && cmt <= 4, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d is not supported: it should be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                "2 (USE_FP16), 3 (USE_HF32) or 4 (USE_FP32_ADD).", (int)cmt);
    ACL_TRY(acl_check_rank(mat1, 2, "mat1"));
    ACL_TRY(acl_check_rank(mat2, 2, "mat2"));
    ACLNN_CHECK(mat1->dims[1] == mat2->dims[0], ACLNN_ERR_PARAM_INVALID,
                "The k-axis of mat1 (%lld) and mat2 (%lld) differ.", (long long)mat1->dims[1],
                (long long)mat2->dims[0]);
    ACLNN_CHECK(self->format != AM_FORMAT_NZ, ACLNN_ERR_PARAM_INVALID, "The format of %s should be ND, not NZ.", sn);
    const int64_t M = mat1->dims[0], N = mat2->dims[1], K = mat1->dims[1];
    ACLNN_CHECK(self->ndim <= 2, ACLNN_ERR_PARAM_INVALID, "The dim of %s should be less than 3, but is %llu.", sn,
                (unsigned long long)self->ndim);
    ACLNN_CHECK(self->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "%s can not be 0-d.", sn);
    const int sr = (int)self->ndim;
    const int64_t s0 = sr == 2 ? self->dims[0] : 1, s1 = self->dims[sr - 1];
    ACLNN_CHECK((s0 == M || s0 == 1) && (s1 == N || s1 == 1), ACLNN_ERR_PARAM_INVALID,
                "The shape of %s can not broadcast to mat1 @ mat2's [%lld, %lld].", sn, (long long)M, (long long)N);
    ACL_TRY(acl_check_rank(out, 2, inplace ? sn : "out"));
    if (M == 0 || N == 0) {
        ACLNN_CHECK(acl_tensor_empty(out), ACLNN_ERR_PARAM_INVALID, "%s should be empty for an empty product.",
                    inplace ? sn : "out");
    } else {
        ACLNN_CHECK(out->dims[0] == M && out->dims[1] == N, ACLNN_ERR_PARAM_INVALID,
                    "Shape of %s should be [%lld, %lld].", inplace ? sn : "out", (long long)M, (long long)N);
    }
    if (acl_tensor_empty(self) || M == 0 || N == 0) return acl_exec_noop(op, workspaceSize, executor);
    addmm_params pp = {.g = {.M = M, .N = N, .K = K, .adt = mat1->dtype, .ars = mat1->strides[0],
                             .acs = mat1->strides[1], .bdt = mat2->dtype, .brs = mat2->strides[0],
                             .bcs = mat2->strides[1], .cdt = ACL_FLOAT, .crs = N, .ccs = 1,
                             .round_to = ACL_DT_UNDEFINED, .mid = ACL_DT_UNDEFINED},
                       .srs = (sr == 2 && s0 != 1) ? self->strides[0] : 0,
                       .scs = s1 != 1 ? self->strides[sr - 1] : 0,
                       .sdt = self->dtype, .odt = out->dtype, .ors = out->strides[0], .ocs = out->strides[1],
                       .alpha = (float)acl_read_f64(alpha->bytes, alpha->dtype),
                       .beta = (float)acl_read_f64(beta->bytes, beta->dtype)};
    const bool both_bf16 = mat1->dtype == ACL_BF16 && mat2->dtype == ACL_BF16;
    if (cmt == 2 && !both_bf16) pp.g.round_to = ACL_FLOAT16; /* USE_FP16: the inputs go through f16 */
    aclOpExecutor *ex = acl_exec_create(op, addmm_run, sizeof(addmm_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, sn, true);
    if (rc == 0) rc = acl_exec_add_input(ex, mat1, "mat1", K > 0);
    if (rc == 0) rc = acl_exec_add_input(ex, mat2, "mat2", K > 0);
    if (rc == 0) rc = acl_exec_add_output(ex, out, inplace ? sn : "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(addmm_params *)ex->params = pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus opws_Addmm(const aclTensor *self, const aclTensor *mat1, const aclTensor *mat2, const aclScalar *beta,
                       const aclScalar *alpha, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    return addmm_plan(ACL_OP_Addmm, self, mat1, mat2, beta, alpha, out, cubeMathType, false, workspaceSize,
                      executor);
}

aclnnStatus opws_InplaceAddmm(const aclTensor *selfRef, const aclTensor *mat1, const aclTensor *mat2,
                              const aclScalar *beta, const aclScalar *alpha, int8_t cubeMathType,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    return addmm_plan(ACL_OP_InplaceAddmm, selfRef, mat1, mat2, beta, alpha, (aclTensor *)selfRef, cubeMathType, true,
                      workspaceSize, executor);
}
