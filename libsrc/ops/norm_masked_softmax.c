/* aclnnMaskedSoftmaxWithRelPosBias (ops-nn norm/masked_softmax_with_rel_pos_bias):
 *   out = softmax(scaleValue * x + attenMaskOptional + relativePosBias) over the last dim,
 * x (B*W, N, S1, S2) or (B, W, N, S1, S2); the mask (W, S1, S2) / (W, 1, S1, S2) / (1, W, 1, S1, S2) follows the
 * window w, the bias (N, S1, S2) / (1, N, S1, S2) / (1, 1, N, S1, S2) the head n. Each row in float64 (max
 * subtracted, fixed order), one rounding. No op_api source upstream: the generated first phase (NULL 161001, the op
 * definition's dtype combinations 161002, shape rules 561002, an empty out -> nothing to launch). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT};

typedef struct { nm_io io; int64_t B, W, N, S1, S2; double scale; } ms_params;

static aclnnStatus ms_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ms_params *p = ex->params;
    const int64_t W = p->W, N = p->N, S1 = p->S1, S2 = p->S2, rows = p->B * W * N * S1;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *m = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    if (oom) {
        free(x), free(m), free(b);
        return OOM;
    }
    ACL_FOR(acl_parallel_worth(rows * S2), r, 0, rows, {
        const int64_t s1 = r % S1, n = (r / S1) % N, w = (r / (S1 * N)) % W;
        double *row = x + r * S2;
        const double *mr = m ? m + (w * S1 + s1) * S2 : NULL, *br = b + (n * S1 + s1) * S2;
        double mx = -INFINITY;
        for (int64_t j = 0; j < S2; j++) {
            row[j] = p->scale * row[j] + (mr ? mr[j] : 0.0) + br[j];
            if (row[j] > mx) mx = row[j];
        }
        double s = 0;
        for (int64_t j = 0; j < S2; j++) s += (row[j] = exp(row[j] - mx));
        for (int64_t j = 0; j < S2; j++) row[j] /= s;
    });
    nm_store(x, nm_out(ex, 0));
    free(x), free(m), free(b);
    return ACLNN_SUCCESS;
}

/* t's dims equal the given list (up to 5) */
static bool dims_are(const aclTensor *t, int n, const int64_t *d) {
    if (t->ndim != (uint64_t)n) return false;
    for (int i = 0; i < n; i++)
        if (t->dims[i] != d[i]) return false;
    return true;
}

aclnnStatus opws_MaskedSoftmaxWithRelPosBias(const aclTensor *x, const aclTensor *attenMaskOptional,
                                             const aclTensor *relativePosBias, double scaleValue,
                                             int64_t innerPrecisionMode, const aclTensor *out,
                                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *mask = attenMaskOptional, *bias = relativePosBias;
    NN(x, "x");
    NN(bias, "relativePosBias");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(x, k_dt, 3, "x"));
    if (mask) ACL_TRY(acl_check_same_dtype(mask, "attenMaskOptional", x, "x"));
    ACL_TRY(acl_check_same_dtype(bias, "relativePosBias", x, "x"));
    ACL_TRY(acl_check_same_dtype(out, "out", x, "x"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_MaskedSoftmaxWithRelPosBias, workspaceSize, executor);
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x->ndim == 4 || x->ndim == 5, T, "x should have 4 or 5 dims, but has %llu.",
                (unsigned long long)x->ndim);
    const bool five = x->ndim == 5;
    const int64_t N = x->dims[five ? 2 : 1], S1 = x->dims[five ? 3 : 2], S2 = x->dims[five ? 4 : 3];
    int64_t W = five ? x->dims[1] : 1, B = x->dims[0];
    if (mask) {
        const int64_t mw = mask->ndim == 5 ? mask->dims[1] : mask->dims[0];
        if (!five) W = mw;
        const int64_t m3[] = {W, S1, S2}, m4[] = {W, 1, S1, S2}, m5[] = {1, W, 1, S1, S2};
        ACLNN_CHECK(W > 0 && (dims_are(mask, 3, m3) || dims_are(mask, 4, m4) || dims_are(mask, 5, m5)), T,
                    "attenMaskOptional should be (W, S1, S2), (W, 1, S1, S2) or (1, W, 1, S1, S2).");
        if (!five) {
            ACLNN_CHECK(x->dims[0] % W == 0, T, "x dim 0 (%lld) should be a multiple of W (%lld).",
                        (long long)x->dims[0], (long long)W);
            B = x->dims[0] / W;
        }
    }
    const int64_t b3[] = {N, S1, S2}, b4[] = {1, N, S1, S2}, b5[] = {1, 1, N, S1, S2};
    ACLNN_CHECK(dims_are(bias, 3, b3) || dims_are(bias, 4, b4) || dims_are(bias, 5, b5), T,
                "relativePosBias should be (N, S1, S2), (1, N, S1, S2) or (1, 1, N, S1, S2).");
    if (nm_same_shape(out, "out", x, "x")) return ACL_REPORT(T, "the shape of out should be the shape of x.");
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "x has more elements than int64 holds.");
    (void)innerPrecisionMode;
    const aclTensor *ins[] = {x, mask, bias}, *outs[] = {out};
    const char *inn[] = {"x", "attenMaskOptional", "relativePosBias"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_MaskedSoftmaxWithRelPosBias, ms_run, sizeof(ms_params), ins, inn, 3, outs, outn, 1,
                    workspaceSize, executor, &pp));
    ms_params *p = pp;
    p->B = B;
    p->W = W;
    p->N = N;
    p->S1 = S1;
    p->S2 = S2;
    p->scale = scaleValue;
    return ACLNN_SUCCESS;
}
