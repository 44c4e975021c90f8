/* aclnnSinkhorn (ops-math math/sinkhorn): the doc's iteration on cost (R, C), in float32 as the kernel computes it
 * (fp16/bf16 cost is cast to float first, p cast back once):
 *   K = exp(cost); d0 = ones(R); d1 = ones(C); eps = 1e-8
 *   repeat: d0[r] = (1/R) / (sum_c d1[c] * K[r, c] + eps)
 *           d1[c] = (1/C) / (sum_r d0[r] * K[r, c] + eps)
 *           error = sum_c |d1_old[c] - d1[c]| / C;  d1_old = d1
 *   until error <= tol  (tol NULL: 1e-4)
 *   p[r, c] = K[r, c] * d1[c] * d0[r]
 * Each product is rounded to float as the kernel's vector Mul does; each sum is taken in double in index order and
 * rounded to float once, so the bytes do not depend on the thread count (row sums are owned by rows, column sums by
 * column blocks).
 * The device kernel loops until error <= tol and nothing else ends it: with a negative or NaN tol, a cost that makes
 * the error NaN, or an iteration that settles into a cycle above tol, the device never returns. The emulation cannot
 * hang; it stops where the device's state stops changing - at an exact fixed point (error 0, every further round
 * repeats it), at a NaN error (NaN stays NaN) - or after SK_MAX_ITERS rounds, and writes p from that state.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"

#define SK_MAX_COLS 4096
#define SK_MAX_ITERS 10000
#define SK_CBLOCK 64

typedef struct { float tol; int64_t R, C; } sk_params;

static aclnnStatus sk_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sk_params *p = ex->params;
    const int64_t R = p->R, C = p->C;
    double *c64 = dn_load(acl_exec_in(ex, 0));
    float *K = malloc(sizeof(float) * (size_t)(R * C));
    float *d0 = malloc(sizeof(float) * (size_t)R), *d1 = malloc(sizeof(float) * (size_t)C);
    float *d1o = malloc(sizeof(float) * (size_t)C);
    double *pr = malloc(sizeof(double) * (size_t)(R * C));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!c64 || !K || !d0 || !d1 || !d1o || !pr) {
        rc = OOM;
        goto done;
    }
    const bool par = acl_parallel_worth(R * C);
    for (int64_t i = 0; i < R * C; i++) K[i] = expf((float)c64[i]);
    for (int64_t r = 0; r < R; r++) d0[r] = 1.0f;
    for (int64_t c = 0; c < C; c++) d1[c] = d1o[c] = 1.0f;
    const float eps = 0.00000001f, inv_r = 1.0f / (float)R, inv_c = 1.0f / (float)C;
    const int64_t nb = (C + SK_CBLOCK - 1) / SK_CBLOCK;
    int64_t it = 0;
    for (;;) {
        ACL_FOR(par, r, 0, R, {
            const float *k = K + r * C;
            double s = 0;
            for (int64_t c = 0; c < C; c++) s += (double)(d1[c] * k[c]);
            d0[r] = inv_r / ((float)s + eps);
        });
        ACL_FOR(par, b, 0, nb, {
            const int64_t c0 = b * SK_CBLOCK, c1 = acl_min_i64(C, c0 + SK_CBLOCK);
            double s[SK_CBLOCK];
            for (int64_t c = c0; c < c1; c++) s[c - c0] = 0;
            for (int64_t r = 0; r < R; r++) {
                const float *k = K + r * C;
                for (int64_t c = c0; c < c1; c++) s[c - c0] += (double)(d0[r] * k[c]);
            }
            for (int64_t c = c0; c < c1; c++) d1[c] = inv_c / ((float)s[c - c0] + eps);
        });
        double e = 0;
        for (int64_t c = 0; c < C; c++) e += (double)fabsf(d1o[c] - d1[c]);
        const float err = (float)e / (float)C;
        memcpy(d1o, d1, sizeof(float) * (size_t)C);
        it++;
        if (err <= p->tol || err == 0 || isnan(err) || it >= SK_MAX_ITERS) break;
    }
#pragma omp parallel for schedule(static) if (par)
    for (int64_t r = 0; r < R; r++)
        for (int64_t c = 0; c < C; c++) pr[r * C + c] = (double)(K[r * C + c] * d1[c] * d0[r]);
    dn_store(pr, acl_exec_out(ex, 0));
done:
    free(c64);
    free(K);
    free(d0);
    free(d1);
    free(d1o);
    free(pr);
    return rc;
}

aclnnStatus opws_Sinkhorn(const aclTensor *cost, const aclScalar *tol, aclTensor *p, uint64_t *workspaceSize,
                          aclOpExecutor **executor) {
    NN(cost, "cost");
    NN(p, "p");
    ACL_TRY(acl_check_dtype_in(cost, ACL_DT_LIST_Sinkhorn, "cost"));
    ACL_TRY(acl_check_dtype_in(p, ACL_DT_LIST_Sinkhorn, "p"));
    ACLNN_CHECK(cost->ndim == 2, ACLNN_ERR_PARAM_INVALID, "cost should have 2 dims, but has %llu.",
                (unsigned long long)cost->ndim);
    ACL_TRY(acl_check_same_shape(cost, "cost", p, "p"));
    /* upstream reads the column count into an int32 before comparing it */
    const int32_t col = (int32_t)(uint32_t)((uint64_t)cost->dims[1] & 0xffffffffu);
    ACLNN_CHECK(col <= SK_MAX_COLS, ACLNN_ERR_PARAM_INVALID, "the column number of cost is %d; at most %d.", col,
                SK_MAX_COLS);
    if (acl_tensor_empty(cost) || acl_tensor_empty(p)) return acl_exec_noop(ACL_OP_Sinkhorn, workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(cost) >= 0, ACLNN_ERR_PARAM_INVALID, "cost has more elements than int64 holds.");
    const aclTensor *ins[] = {cost}, *outs[] = {p};
    const char *inn[] = {"cost"}, *outn[] = {"p"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_Sinkhorn, sk_run, sizeof(sk_params), ins, inn, 1, outs, outn, 1, workspaceSize, executor,
                    &pp));
    /* l0op::Sinkhorn: 0.0001 when tol is NULL, else tol->ToFloat() */
    *(sk_params *)pp = (sk_params){tol ? (float)acl_read_f64(tol->bytes, tol->dtype) : 0.0001f, cost->dims[0],
                                   cost->dims[1]};
    return ACLNN_SUCCESS;
}
