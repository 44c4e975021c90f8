/* aclnnAddmm / aclnnInplaceAddmm (ops-nn matmul/mat_mul_v3): out = beta * self + alpha * (mat1 @ mat2), self
 * broadcast to (M, N) (at most 2 dims). Checks in the op_api order: NULLs (self, mat1, mat2, beta, alpha, out), the
 * DAV_2201 rule (mat1, mat2, self, out dtypes in {f32, f16, bf16}, cubeMathType -1..4), mat1/mat2 2-d with equal
 * k, self not FRACTAL_NZ, self at most 2-d / broadcastable to (M, N), out (M, N) (an empty product only needs an
 * empty out); then an empty self or an empty product returns. The product is the shared GEMM engine's f32 sums
 * (inputs in the DAV_2201 upper dtype), combined in f32 as beta * self + alpha * product and rounded once to out. */
#include <stdint.h>
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
    gemm_problem g;          /* C: an f32 (batches x) M x N scratch, filled at run time */
    int64_t B;               /* output batches (1 for Addmm) */
    int64_t nred;            /* Addbmm: the product batches summed (in batch order) into the one output; 0: none */
    int64_t sbs, srs, scs;   /* self broadcast to (B, M, N): element strides (0 on broadcast dims) */
    aclDataType sdt, odt;
    int64_t obs, ors, ocs;
    float alpha, beta;
} addmm_params;

static aclnnStatus addmm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const addmm_params *p = ex->params;
    const int64_t M = p->g.M, N = p->g.N, B = p->B;
    const int64_t nacc = p->nred > 0 ? p->nred : p->nred < 0 ? 1 : B;
    float *acc = calloc((size_t)(nacc * M * N > 0 ? nacc * M * N : 1), sizeof(float));
    if (!acc) return OOM;
    gemm_problem g = p->g;
    g.a = acl_exec_in(ex, 1)->base;
    g.b = acl_exec_in(ex, 2)->base;
    g.c = acc;
    if (p->nred >= 0 && gemm_run(&g) != 0) {
        free(acc);
        return OOM;
    }
    if (p->nred > 1) { /* Addbmm: acc[0] += acc[b] for b = 1.. in order; rows are the owners */
#pragma omp parallel for schedule(static) if (acl_parallel_worth(p->nred * M * N))
        for (int64_t i = 0; i < M; i++)
            for (int64_t b = 1; b < p->nred; b++) {
                float *dst = acc + i * N;
                const float *src = acc + (b * M + i) * N;
                for (int64_t j = 0; j < N; j++) dst[j] += src[j];
            }
    }
    const char *sb = acl_exec_in(ex, 0)->base;
    char *ob = acl_exec_out(ex, 0)->base;
    const size_t ses = acl_dtype_size(p->sdt), oes = acl_dtype_size(p->odt);
    int fail = 0;
#pragma omp parallel if (acl_parallel_worth(B * M * N)) reduction(| : fail)
    {
        float *row = malloc(sizeof(float) * (size_t)N);
        if (!row) fail = 1;
#pragma omp for schedule(static)
        for (int64_t t = 0; t < B * M; t++) {
            if (!row) continue;
            const int64_t b = t / M, i = t % M;
            acl_convert(sb + (b * p->sbs + i * p->srs) * (int64_t)ses, p->sdt, p->scs, row, ACL_FLOAT, 1, N);
            const float *ar = acc + t * N;
            for (int64_t j = 0; j < N; j++) {
                const float s = p->beta * row[j], m = p->alpha * ar[j];
                row[j] = s + m;
            }
            acl_convert(row, ACL_FLOAT, 1, ob + (b * p->obs + i * p->ors) * (int64_t)oes, p->odt, p->ocs, N);
        }
        free(row);
    }
    free(acc);
    return fail ? OOM : ACLNN_SUCCESS;
}

#define AM_FORMAT_NZ ((aclFormat)29)

static aclnnStatus addmm_publish(int op, const aclTensor *self, const char *sn, const aclTensor *m1, const char *n1,
                                 const aclTensor *m2, const char *n2, const aclTensor *out, const char *on,
                                 addmm_params *pp, int8_t cmt, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const bool both_bf16 = m1->dtype == ACL_BF16 && m2->dtype == ACL_BF16;
    if (cmt == 2 && !both_bf16) pp->g.round_to = ACL_FLOAT16; /* USE_FP16: the inputs go through f16 */
    ACLNN_CHECK(pp->B * pp->g.M <= INT64_MAX / (pp->g.N > 0 ? pp->g.N : 1), ACLNN_ERR_PARAM_INVALID,
                "%s is too large.", on);
    aclOpExecutor *ex = acl_exec_create(op, addmm_run, sizeof(addmm_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, sn, true);
    if (rc == 0) rc = acl_exec_add_input(ex, m1, n1, pp->g.K > 0);
    if (rc == 0) rc = acl_exec_add_input(ex, m2, n2, pp->g.K > 0);
    if (rc == 0) rc = acl_exec_add_output(ex, out, on);
    if (rc) return acl_exec_discard(ex, rc);
    *(addmm_params *)ex->params = *pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}

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
                       .B = 1,
                       .srs = (sr == 2 && s0 != 1) ? self->strides[0] : 0,
                       .scs = s1 != 1 ? self->strides[sr - 1] : 0,
                       .sdt = self->dtype, .odt = out->dtype, .ors = out->strides[0], .ocs = out->strides[1],
                       .alpha = (float)acl_read_f64(alpha->bytes, alpha->dtype),
                       .beta = (float)acl_read_f64(beta->bytes, beta->dtype)};
    return addmm_publish(op, self, sn, mat1, "mat1", mat2, "mat2", out, inplace ? sn : "out", &pp, cmt, workspaceSize,
                         executor);
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

/* ---------------------------------------------------------------- aclnnBaddbmm / aclnnInplaceBaddbmm
 * out[b] = beta * self[b] + alpha * (batch1[b] @ batch2[b or 0]). Checks (op_api order): NULLs (self, batch1, batch2,
 * beta, alpha, then out), the DAV_2201 rule (batch1, batch2, self, out dtypes; cubeMathType), batch1/batch2 3-d with
 * equal k and batch dims equal or 1, self and the product both empty or both not, self broadcast with
 * (batch1's B, M, N) equal to out's shape without broadcasting the product, batch1/batch2/out of one format. */
static aclnnStatus baddbmm_plan(int op, const aclTensor *self, const aclTensor *b1, const aclTensor *b2, const aclScalar *beta,
                         const aclScalar *alpha, aclTensor *out, int8_t cmt, bool inplace, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    const char *sn = inplace ? "selfRef" : "self", *on = inplace ? "selfRef" : "out";
    NN(self, sn);
    NN(b1, "batch1");
    NN(b2, "batch2");
    ACLNN_CHECK(beta != NULL, ACLNN_ERR_PARAM_NULLPTR, "beta must not be NULL.");
    ACLNN_CHECK(alpha != NULL, ACLNN_ERR_PARAM_NULLPTR, "alpha must not be NULL.");
    NN(out, on);
    ACL_TRY(acl_check_dtype_in(b1, ACL_DT_LIST_Baddbmm, "batch1"));
    ACL_TRY(acl_check_dtype_in(b2, ACL_DT_LIST_Baddbmm, "batch2"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Baddbmm, sn));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Baddbmm, on));
    ACLNN_CHECK(cmt >= -1 && cmt <= 4, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d is not supported: it should be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                "2 (USE_FP16), 3 (USE_HF32) or 4 (USE_FP32_ADD).", (int)cmt);
    ACL_TRY(acl_check_rank(b1, 3, "batch1"));
    ACL_TRY(acl_check_rank(b2, 3, "batch2"));
    ACLNN_CHECK(b1->dims[2] == b2->dims[1], ACLNN_ERR_PARAM_INVALID,
                "batch1's last dim (%lld) and batch2's penultimate dim (%lld) should be the same.",
                (long long)b1->dims[2], (long long)b2->dims[1]);
    ACLNN_CHECK(b1->dims[0] == b2->dims[0] || b1->dims[0] == 1 || b2->dims[0] == 1, ACLNN_ERR_PARAM_INVALID,
                "batch1's batch dim (%lld) and batch2's batch dim (%lld) can not broadcast.", (long long)b1->dims[0],
                (long long)b2->dims[0]);
    const int64_t B = b1->dims[0], M = b1->dims[1], N = b2->dims[2], K = b1->dims[2];
    const bool mat_empty = B == 0 || M == 0 || N == 0, self_empty = acl_tensor_empty(self);
    ACLNN_CHECK(self_empty == mat_empty, ACLNN_ERR_PARAM_INVALID,
                "%s and batch1@batch2 should be both empty or both not (%s empty: %d, product empty: %d).", sn, sn,
                (int)self_empty, (int)mat_empty);
    const int64_t bmm[3] = {B, M, N};
    const int sr = (int)self->ndim;
    ACLNN_CHECK(sr <= 3, ACLNN_ERR_PARAM_INVALID, "Shape of %s and batch1@batch2 can't broadcast (%s has %d dims).",
                sn, sn, sr);
    int64_t bc[3], sdim[3];
    for (int d = 0; d < 3; d++) {
        sdim[d] = d - (3 - sr) >= 0 ? self->dims[d - (3 - sr)] : 1;
        ACLNN_CHECK(sdim[d] == bmm[d] || sdim[d] == 1 || bmm[d] == 1, ACLNN_ERR_PARAM_INVALID,
                    "Shape of %s and batch1@batch2 can't broadcast.", sn);
        bc[d] = sdim[d] == 1 ? bmm[d] : sdim[d];
    }
    ACLNN_CHECK(out->ndim == 3 && out->dims[0] == bc[0] && out->dims[1] == bc[1] && out->dims[2] == bc[2],
                ACLNN_ERR_PARAM_INVALID, "Shape of %s should be [%lld, %lld, %lld].", on, (long long)bc[0],
                (long long)bc[1], (long long)bc[2]);
    ACLNN_CHECK(!((bc[0] != 1 && B == 1) || (bc[1] != 1 && M == 1) || (bc[2] != 1 && N == 1)),
                ACLNN_ERR_PARAM_INVALID, "batch1@batch2's shape [%lld, %lld, %lld] should be the broadcast shape.",
                (long long)B, (long long)M, (long long)N);
    ACLNN_CHECK(b1->format == b2->format && b1->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "Format of batch1 (%s), batch2 (%s) and %s (%s) should be equal.", acl_format_name(b1->format),
                acl_format_name(b2->format), on, acl_format_name(out->format));
    if (mat_empty) return acl_exec_noop(op, workspaceSize, executor);
    addmm_params pp = {.g = {.M = M, .N = N, .K = K, .nbd = 1, .bshape = {B}, .bsa = {b1->strides[0]},
                             .bsb = {b2->dims[0] == 1 ? 0 : b2->strides[0]}, .bsc = {M * N},
                             .adt = b1->dtype, .ars = b1->strides[1], .acs = b1->strides[2],
                             .bdt = b2->dtype, .brs = b2->strides[1], .bcs = b2->strides[2],
                             .cdt = ACL_FLOAT, .crs = N, .ccs = 1, .round_to = ACL_DT_UNDEFINED,
                             .mid = ACL_DT_UNDEFINED},
                       .B = B, .sdt = self->dtype, .odt = out->dtype,
                       .obs = out->strides[0], .ors = out->strides[1], .ocs = out->strides[2],
                       .alpha = (float)acl_read_f64(alpha->bytes, alpha->dtype),
                       .beta = (float)acl_read_f64(beta->bytes, beta->dtype)};
    int64_t ss[3];
    for (int d = 0; d < 3; d++) ss[d] = (d - (3 - sr) >= 0 && sdim[d] != 1) ? self->strides[d - (3 - sr)] : 0;
    pp.sbs = ss[0];
    pp.srs = ss[1];
    pp.scs = ss[2];
    return addmm_publish(op, self, sn, b1, "batch1", b2, "batch2", out, on, &pp, cmt, workspaceSize, executor);
}

aclnnStatus opws_Baddbmm(const aclTensor *self, const aclTensor *batch1, const aclTensor *batch2,
                         const aclScalar *beta, const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    return baddbmm_plan(ACL_OP_Baddbmm, self, batch1, batch2, beta, alpha, out, cubeMathType, false, workspaceSize,
                        executor);
}

aclnnStatus opws_InplaceBaddbmm(const aclTensor *selfRef, const aclTensor *batch1, const aclTensor *batch2,
                                const aclScalar *beta, const aclScalar *alpha, int8_t cubeMathType,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    return baddbmm_plan(ACL_OP_InplaceBaddbmm, selfRef, batch1, batch2, beta, alpha, (aclTensor *)selfRef,
                        cubeMathType, true, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnAddbmm / aclnnInplaceAddbmm
 * out = beta * self + alpha * sum_b (batch1[b] @ batch2[b]): each batch's product is the GEMM engine's f32 chain,
 * the batches are then added in batch order. Checks (op_api order): NULLs, the DAV_2201 rule, batch1/batch2 3-d with
 * equal k and batch dims equal or 1, self and (M, N) both empty or both not, self 0..2-d broadcast to (M, N) equal
 * to out's shape, batch1/batch2 of one format. */
static aclnnStatus addbmm_plan(int op, const aclTensor *self, const aclTensor *b1, const aclTensor *b2,
                               const aclScalar *beta, const aclScalar *alpha, aclTensor *out, int8_t cmt, bool inplace,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    const char *sn = inplace ? "selfRef" : "self", *on = inplace ? "selfRef" : "out";
    NN(self, sn);
    NN(b1, "batch1");
    NN(b2, "batch2");
    ACLNN_CHECK(beta != NULL, ACLNN_ERR_PARAM_NULLPTR, "beta must not be NULL.");
    ACLNN_CHECK(alpha != NULL, ACLNN_ERR_PARAM_NULLPTR, "alpha must not be NULL.");
    NN(out, on);
    ACL_TRY(acl_check_dtype_in(b1, ACL_DT_LIST_Addbmm, "batch1"));
    ACL_TRY(acl_check_dtype_in(b2, ACL_DT_LIST_Addbmm, "batch2"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Addbmm, sn));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Addbmm, on));
    ACLNN_CHECK(cmt >= -1 && cmt <= 4, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d is not supported: it should be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                "2 (USE_FP16), 3 (USE_HF32) or 4 (USE_FP32_ADD).", (int)cmt);
    ACL_TRY(acl_check_rank(b1, 3, "batch1"));
    ACL_TRY(acl_check_rank(b2, 3, "batch2"));
    ACLNN_CHECK(b1->dims[2] == b2->dims[1], ACLNN_ERR_PARAM_INVALID,
                "batch1's last dim (%lld) and batch2's penultimate dim (%lld) should be the same.",
                (long long)b1->dims[2], (long long)b2->dims[1]);
    ACLNN_CHECK(b1->dims[0] == b2->dims[0] || b1->dims[0] == 1 || b2->dims[0] == 1, ACLNN_ERR_PARAM_INVALID,
                "batch1's batch dim (%lld) and batch2's batch dim (%lld) can not broadcast.", (long long)b1->dims[0],
                (long long)b2->dims[0]);
    const int64_t M = b1->dims[1], N = b2->dims[2], K = b1->dims[2];
    const int64_t B = b1->dims[0] == 1 ? b2->dims[0] : b1->dims[0];
    const bool mat_empty = M == 0 || N == 0, self_empty = acl_tensor_empty(self);
    ACLNN_CHECK(self_empty == mat_empty, ACLNN_ERR_PARAM_INVALID,
                "%s and batch1@batch2's last two dims should be both empty or both not (%s empty: %d, product "
                "empty: %d).", sn, sn, (int)self_empty, (int)mat_empty);
    const int sr = (int)self->ndim;
    ACLNN_CHECK(sr <= 2, ACLNN_ERR_PARAM_INVALID, "%s should have at most 2 dims, but has %d.", sn, sr);
    const int64_t s0 = sr == 2 ? self->dims[0] : 1, s1 = sr >= 1 ? self->dims[sr - 1] : 1;
    ACLNN_CHECK((s0 == M || s0 == 1 || M == 1) && (s1 == N || s1 == 1 || N == 1), ACLNN_ERR_PARAM_INVALID,
                "Shape of %s and batch1@batch2's last two dims [%lld, %lld] can't broadcast.", sn, (long long)M,
                (long long)N);
    const int64_t c0 = s0 == 1 ? M : s0, c1 = s1 == 1 ? N : s1;
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == c0 && out->dims[1] == c1, ACLNN_ERR_PARAM_INVALID,
                "Shape of %s should be [%lld, %lld].", on, (long long)c0, (long long)c1);
    ACLNN_CHECK(c0 == M && c1 == N, ACLNN_ERR_PARAM_INVALID, "Shape of %s should be [%lld, %lld], not [%lld, %lld].",
                on, (long long)M, (long long)N, (long long)c0, (long long)c1);
    ACLNN_CHECK(b1->format == b2->format, ACLNN_ERR_PARAM_INVALID,
                "Format of batch1 (%s) and batch2 (%s) should be equal.", acl_format_name(b1->format),
                acl_format_name(b2->format));
    if (mat_empty) return acl_exec_noop(op, workspaceSize, executor);
    addmm_params pp = {.g = {.M = M, .N = N, .K = K, .nbd = 1, .bshape = {B},
                             .bsa = {b1->dims[0] == 1 ? 0 : b1->strides[0]},
                             .bsb = {b2->dims[0] == 1 ? 0 : b2->strides[0]}, .bsc = {M * N},
                             .adt = b1->dtype, .ars = b1->strides[1], .acs = b1->strides[2],
                             .bdt = b2->dtype, .brs = b2->strides[1], .bcs = b2->strides[2],
                             .cdt = ACL_FLOAT, .crs = N, .ccs = 1, .round_to = ACL_DT_UNDEFINED,
                             .mid = ACL_DT_UNDEFINED},
                       .B = 1, .nred = B > 0 ? B : -1, .sdt = self->dtype, .odt = out->dtype,
                       .obs = 0, .ors = out->strides[0], .ocs = out->strides[1],
                       .srs = (sr == 2 && s0 != 1) ? self->strides[0] : 0,
                       .scs = (sr >= 1 && s1 != 1) ? self->strides[sr - 1] : 0,
                       .alpha = (float)acl_read_f64(alpha->bytes, alpha->dtype),
                       .beta = (float)acl_read_f64(beta->bytes, beta->dtype)};
    return addmm_publish(op, self, sn, b1, "batch1", b2, "batch2", out, on, &pp, cmt, workspaceSize, executor);
}

aclnnStatus opws_Addbmm(const aclTensor *self, const aclTensor *batch1, const aclTensor *batch2,
                        const aclScalar *beta, const aclScalar *alpha, aclTensor *out, int8_t cubeMathType,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return addbmm_plan(ACL_OP_Addbmm, self, batch1, batch2, beta, alpha, out, cubeMathType, false, workspaceSize,
                       executor);
}

aclnnStatus opws_InplaceAddbmm(aclTensor *selfRef, const aclTensor *batch1, const aclTensor *batch2,
                               const aclScalar *beta, const aclScalar *alpha, int8_t cubeMathType,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    return addbmm_plan(ACL_OP_InplaceAddbmm, selfRef, batch1, batch2, beta, alpha, selfRef, cubeMathType, true,
                       workspaceSize, executor);
}
