/* aclnnExpSegsum (ops-math math/segsum) and its backward aclnnExpSegsumBackward (math/exp_segsum_grad).
 *
 * Forward, per row x = self[b, :] of length T:  out[b, i, j] = exp(x[j+1] + ... + x[i]) for j < i, 1 on the
 * diagonal, 0 above it (exp(-inf)): the doc's mask / cumsum over dim -2 / -inf fill / exp. Backward, with
 * m[k, j] = gradOutput[b, k, j] * gradSelf[b, k, j] kept on and below the diagonal:
 * gradInput[b, i] = sum_{j < i} sum_{k >= i} m[k, j]  (the doc's flip / cumsum / flip / strict mask / row sum).
 *
 * The sums run in the order the doc's cumsum defines (k increasing for the forward, k decreasing for the reversed
 * cumsum of the backward) in double, one rounding to the output dtype; each output row belongs to one thread. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"

typedef struct { int64_t rows, T; int nlead; } es_params;

/* element offset of the flat index `flat` over the first `nlead` dims of a view (row-major) */
static int64_t lead_offset(const acl_view *v, int nlead, int64_t flat) {
    int64_t off = 0;
    for (int d = nlead - 1; d >= 0; d--) {
        off += (flat % v->dims[d]) * v->strides[d];
        flat /= v->dims[d];
    }
    return off;
}

static size_t esize(aclDataType dt) { return acl_dtype_size(dt); }

/* ---------------------------------------------------------------- forward */

static aclnnStatus segsum_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const es_params *p = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *ov = acl_exec_out(ex, 0);
    const int64_t T = p->T, rows = p->rows;
    double *x = dn_load(xv);
    const int nt = acl_max_threads();
    const int64_t blk = acl_team_block(2 * T, sizeof(double));
    double *scratch = acl_team_alloc(nt, 2 * T, sizeof(double), 0); /* a block a thread, whole lines */
    if (!x || !scratch) { free(x); free(scratch); return OOM; }
    const int64_t si = ov->strides[ov->ndim - 2], sj = ov->strides[ov->ndim - 1];
    const size_t oes = esize(ov->dtype);
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * T * T))
    for (int64_t b = 0; b < rows; b++) {
#ifdef _OPENMP
        double *acc = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
        double *acc = scratch;
#endif
        double *row = acc + T;
        const double *xb = x + b * T;
        char *ob = ov->base + lead_offset(ov, p->nlead, b) * (int64_t)oes;
        for (int64_t j = 0; j < T; j++) acc[j] = 0;
        for (int64_t i = 0; i < T; i++) {
            /* acc[j] = x[j+1] + ... + x[i] for j < i, summed in increasing k as the cumsum does */
            for (int64_t j = 0; j < i; j++) acc[j] += xb[i];
            for (int64_t j = 0; j < T; j++) row[j] = j < i ? exp(acc[j]) : (j == i ? 1.0 : 0.0);
            acl_convert(row, ACL_DOUBLE, 1, ob + i * si * (int64_t)oes, ov->dtype, sj, T);
        }
    }
    free(x);
    free(scratch);
    return ACLNN_SUCCESS;
}

static const aclFormat k_nd[] = {ACL_FORMAT_ND};

aclnnStatus opws_ExpSegsum(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    /* upstream tests self->IsEmpty() before its parameter checks: an empty self succeeds whatever out is */
    NN(self, "self");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_ExpSegsum, workspaceSize, executor);
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_ExpSegsum, "self"));
    ACLNN_CHECK(self->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID, "self dtype %s should be the same as out dtype %s.",
                acl_dtype_name(self->dtype), acl_dtype_name(out->dtype));
    const uint64_t n = self->ndim;
    ACLNN_CHECK(n == 3 || n == 4, ACLNN_ERR_PARAM_INVALID, "self should have 3 or 4 dims, but has %llu.",
                (unsigned long long)n);
    ACLNN_CHECK(out->ndim == n + 1, ACLNN_ERR_PARAM_INVALID,
                "out should have one dim more than self (%llu), but has %llu.", (unsigned long long)n,
                (unsigned long long)out->ndim);
    for (uint64_t i = 0; i < n; i++)
        ACLNN_CHECK(out->dims[i] == self->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "out dim %llu (%lld) should equal self dim %llu (%lld).", (unsigned long long)i,
                    (long long)out->dims[i], (unsigned long long)i, (long long)self->dims[i]);
    ACLNN_CHECK(out->dims[n] == self->dims[n - 1], ACLNN_ERR_PARAM_INVALID,
                "out last dim (%lld) should equal self last dim (%lld).", (long long)out->dims[n],
                (long long)self->dims[n - 1]);
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "self format %s should be the same as out format %s.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACL_TRY(acl_check_format_in(self, k_nd, 1, "self"));
    ACLNN_CHECK(acl_tensor_numel(out) >= 0, ACLNN_ERR_PARAM_INVALID, "out has more elements than int64 holds.");
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_ExpSegsum, segsum_run, sizeof(es_params), ins, inn, 1, outs, outn, 1, workspaceSize,
                    executor, &pp));
    es_params *p = pp;
    p->T = self->dims[n - 1];
    p->nlead = (int)n - 1;
    p->rows = 1;
    for (uint64_t i = 0; i + 1 < n; i++) p->rows *= self->dims[i]; /* bounded: the view's extent fits in int64 */
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- backward */

static aclnnStatus segsum_grad_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const es_params *p = ex->params;
    const acl_view *gv = acl_exec_in(ex, 0), *sv = acl_exec_in(ex, 1), *iv = acl_exec_out(ex, 0);
    const int64_t T = p->T, rows = p->rows;
    const int nt = acl_max_threads();
    double *res = malloc(sizeof(double) * (size_t)(rows * T));
    const int64_t blk = acl_team_block(3 * T, sizeof(double));
    double *scratch = acl_team_alloc(nt, 3 * T, sizeof(double), 0); /* a block a thread, whole lines */
    if (!res || !scratch) { free(res); free(scratch); return OOM; }
    const int gd = gv->ndim, sd = sv->ndim;
    const size_t ges = esize(gv->dtype), ses = esize(sv->dtype);
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * T * T))
    for (int64_t b = 0; b < rows; b++) {
#ifdef _OPENMP
        double *acc = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
        double *acc = scratch;
#endif
        double *g = acc + T, *s = acc + 2 * T;
        const char *gb = gv->base + lead_offset(gv, p->nlead, b) * (int64_t)ges;
        const char *sb = sv->base + lead_offset(sv, p->nlead, b) * (int64_t)ses;
        double *out = res + b * T;
        for (int64_t j = 0; j < T; j++) acc[j] = 0;
        /* acc[j] after row i = m[T-1, j] + ... + m[i, j]: the reversed cumsum, summed from the last row up */
        for (int64_t i = T - 1; i >= 0; i--) {
            acl_convert(gb + i * gv->strides[gd - 2] * (int64_t)ges, gv->dtype, gv->strides[gd - 1], g, ACL_DOUBLE, 1,
                        i + 1);
            acl_convert(sb + i * sv->strides[sd - 2] * (int64_t)ses, sv->dtype, sv->strides[sd - 1], s, ACL_DOUBLE, 1,
                        i + 1);
            for (int64_t j = 0; j <= i; j++) acc[j] += g[j] * s[j];
            double t = 0;
            for (int64_t j = 0; j < i; j++) t += acc[j];
            out[i] = t;
        }
    }
    dn_store(res, iv);
    free(res);
    free(scratch);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ExpSegsumBackward(const aclTensor *gradOutput, const aclTensor *gradSelf, aclTensor *gradInput,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* upstream tests the three for emptiness (in this order) before its parameter checks */
    const aclTensor *all[] = {gradOutput, gradSelf, gradInput};
    const char *names[] = {"gradOutput", "gradSelf", "gradInput"};
    for (int i = 0; i < 3; i++) {
        NN(all[i], names[i]);
        if (acl_tensor_empty(all[i])) return acl_exec_noop(ACL_OP_ExpSegsumBackward, workspaceSize, executor);
    }
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_ExpSegsumBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(gradSelf, ACL_DT_LIST_ExpSegsumBackward, "gradSelf"));
    ACLNN_CHECK(gradOutput->dtype == gradInput->dtype, ACLNN_ERR_PARAM_INVALID,
                "gradOutput dtype %s should be the same as gradInput dtype %s.", acl_dtype_name(gradOutput->dtype),
                acl_dtype_name(gradInput->dtype));
    const uint64_t n = gradOutput->ndim;
    ACLNN_CHECK(n == 4 || n == 5, ACLNN_ERR_PARAM_INVALID, "gradOutput should have 4 or 5 dims, but has %llu.",
                (unsigned long long)n);
    ACLNN_CHECK(gradSelf->ndim == n, ACLNN_ERR_PARAM_INVALID, "gradSelf should have %llu dims as gradOutput, not %llu.",
                (unsigned long long)n, (unsigned long long)gradSelf->ndim);
    ACLNN_CHECK(gradInput->ndim + 1 == n, ACLNN_ERR_PARAM_INVALID,
                "gradInput should have one dim less than gradOutput (%llu), but has %llu.", (unsigned long long)n,
                (unsigned long long)gradInput->ndim);
    ACLNN_CHECK(gradOutput->dims[n - 1] == gradOutput->dims[n - 2], ACLNN_ERR_PARAM_INVALID,
                "the last two dims of gradOutput (%lld, %lld) should be equal.", (long long)gradOutput->dims[n - 2],
                (long long)gradOutput->dims[n - 1]);
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", gradSelf, "gradSelf"));
    for (uint64_t i = 0; i + 1 < n; i++)
        ACLNN_CHECK(gradInput->dims[i] == gradOutput->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "gradInput dim %llu (%lld) should equal gradOutput dim %llu (%lld).", (unsigned long long)i,
                    (long long)gradInput->dims[i], (unsigned long long)i, (long long)gradOutput->dims[i]);
    ACL_TRY(acl_check_format_in(gradOutput, k_nd, 1, "gradOutput"));
    ACLNN_CHECK(gradSelf->format == gradOutput->format, ACLNN_ERR_PARAM_INVALID,
                "gradSelf format %s should be the same as gradOutput format %s.", acl_format_name(gradSelf->format),
                acl_format_name(gradOutput->format));
    ACLNN_CHECK(gradInput->format == gradOutput->format, ACLNN_ERR_PARAM_INVALID,
                "gradInput format %s should be the same as gradOutput format %s.", acl_format_name(gradInput->format),
                acl_format_name(gradOutput->format));
    ACLNN_CHECK(acl_tensor_numel(gradOutput) >= 0, ACLNN_ERR_PARAM_INVALID,
                "gradOutput has more elements than int64 holds.");
    const aclTensor *ins[] = {gradOutput, gradSelf}, *outs[] = {gradInput};
    const char *inn[] = {"gradOutput", "gradSelf"}, *outn[] = {"gradInput"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_ExpSegsumBackward, segsum_grad_run, sizeof(es_params), ins, inn, 2, outs, outn, 1,
                    workspaceSize, executor, &pp));
    es_params *p = pp;
    p->T = gradOutput->dims[n - 1];
    p->nlead = (int)n - 2;
    p->rows = 1;
    for (uint64_t i = 0; i + 2 < n; i++) p->rows *= gradOutput->dims[i];
    return ACLNN_SUCCESS;
}
