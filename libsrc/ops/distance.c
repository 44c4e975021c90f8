/* Pairwise distances: Cdist (x1 (B.., P, M), x2 (B.., R, M) -> (B.., P, R), batch dims broadcast), its gradient
 * CdistBackward (for x1), Pdist and PdistForward (the upper triangle of the row distances of one matrix).
 *   p = 0: count of differing coordinates, 1: sum |d|, 2: sqrt(sum d^2), inf: max |d|, else (sum |d|^p)^(1/p).
 * Forward distances are summed in double and rounded once. The gradient follows the A2 CdistGrad kernel: float
 * terms per (i, j) pair, per p case (0 / 1 / 2 / inf / p < 2 / p > 2, the branches PyTorch's _cdist_backward has),
 * accumulated in float over j in order: a gather, each grad row owned by one iteration (no atomics). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

enum { DI_CDIST, DI_CDIST_BW, DI_PDIST };
typedef struct {
    int kind;
    double p;
    bool fill0;                          /* M == 0: the distances are all 0 */
    int nb;                              /* batch rank of the result */
    int64_t bd[ACL_MAX_VIEW_RANK];       /* result batch dims */
    int64_t P, R, M;
} di_params;

/* element offset (in a contiguous buffer of (batch.., rows, cols)) of the batch that result batch b reads, for an
 * operand view whose batch dims broadcast to bd */
static int64_t bcast_batch(const acl_view *v, int tail, const int64_t *bd, int nb, int64_t b, int64_t mat) {
    int vb = v->ndim - tail;
    int64_t off = 0, stride = mat;
    for (int k = nb - 1; k >= 0; k--) {
        int64_t idx = b % bd[k];
        b /= bd[k];
        int kv = k - (nb - vb);
        if (kv >= 0) {
            if (v->dims[kv] != 1) off += idx * stride;
            stride *= v->dims[kv];
        }
    }
    return off;
}

static double dist_of(const double *a, const double *b, int64_t M, int64_t bstep, double p) {
    double s = 0;
    if (p == 0) {
        for (int64_t m = 0; m < M; m++) s += a[m] != b[m * bstep];
        return s;
    }
    if (isinf(p)) {
        for (int64_t m = 0; m < M; m++) {
            double d = fabs(a[m] - b[m * bstep]);
            s = (d > s || isnan(d)) ? d : s;
        }
        return s;
    }
    if (p == 1) {
        for (int64_t m = 0; m < M; m++) s += fabs(a[m] - b[m * bstep]);
        return s;
    }
    if (p == 2) {
        for (int64_t m = 0; m < M; m++) {
            double d = a[m] - b[m * bstep];
            s += d * d;
        }
        return sqrt(s);
    }
    for (int64_t m = 0; m < M; m++) s += pow(fabs(a[m] - b[m * bstep]), p);
    return pow(s, 1 / p);
}

static double *load_d(const acl_view *v) {
    int64_t n = acl_view_numel(v), st[ACL_MAX_VIEW_RANK];
    double *buf = malloc(sizeof(double) * (size_t)(n + 1));
    if (!buf || n == 0) return buf;
    mx_contig_strides(v->dims, v->ndim, st);
    cp_copy(v->base, v->dtype, v->strides, (char *)buf, ACL_DOUBLE, st, v->dims, v->ndim);
    return buf;
}

static aclnnStatus run_cdist(const di_params *p, aclOpExecutor *ex) {
    const acl_view *v1 = acl_exec_in(ex, 0), *v2 = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const int64_t P = p->P, R = p->R, M = p->M, n = acl_view_numel(o);
    int64_t B = 1;
    for (int k = 0; k < p->nb; k++) B *= p->bd[k];
    double *r = calloc((size_t)n + 1, sizeof(double));
    double *a = p->fill0 ? NULL : load_d(v1), *b = p->fill0 ? NULL : load_d(v2);
    bool ok = r && (p->fill0 || (a && b));
    if (ok && !p->fill0) {
        ACL_FOR(acl_parallel_worth(mx_work(B, P, R, M)), row, 0, B * P, {
            const int64_t bb = row / P, i = row % P;
            const double *x1 = a + bcast_batch(v1, 2, p->bd, p->nb, bb, P * M) + i * M;
            const double *x2 = b + bcast_batch(v2, 2, p->bd, p->nb, bb, R * M);
            for (int64_t j = 0; j < R; j++) r[row * R + j] = dist_of(x1, x2 + j * M, M, 1, p->p);
        });
    }
    if (ok) ok = mx_store_via(r, ACL_DOUBLE, o->dtype, o);
    free(r);
    free(a);
    free(b);
    return ok ? ACLNN_SUCCESS : OOM;
}

/* one term of d out[i, m] / d x1[i, m] for the pair (i, j), in float as the A2 kernel computes it */
static float grad_term(float g, float diff, float dist, float p) {
    const float sign = diff > 0 ? 1.0f : diff < 0 ? -1.0f : 0.0f;
    if (p == 0) return 0;
    if (p == 1) return g * sign;
    if (p == 2) return dist == 0 ? 0.0f : (g * diff) / (dist + 1e-38f);
    if (isinf(p)) return (g * sign) * ((fabsf(diff) - dist) == 0 ? 1.0f : 0.0f);
    if (p < 2) {
        const float ad = fabsf(diff);
        float t = (sign * powf(ad, p - 1)) * g / powf(dist, p - 1);
        if (dist == 0 || (p < 1 && ad == 0)) t = 0;
        return t;
    }
    float t = (diff * powf(fabsf(diff), p - 2)) * g / powf(dist, p - 1);
    return dist == 0 ? 0.0f : t;
}

static aclnnStatus run_cdist_bw(const di_params *p, aclOpExecutor *ex) {
    const acl_view *gv = acl_exec_in(ex, 0), *v1 = acl_exec_in(ex, 1), *v2 = acl_exec_in(ex, 2),
                   *cv = acl_exec_in(ex, 3), *o = acl_exec_out(ex, 0);
    const int64_t P = p->P, R = p->R, M = p->M;
    int64_t B = 1;
    for (int k = 0; k < p->nb; k++) B *= p->bd[k];
    /* x2's own M is M or 1 (broadcast along the coordinates too) */
    const int64_t M2 = v2->dims[v2->ndim - 1], mstep = M2 == 1 ? 0 : 1;
    double *g = load_d(gv), *a = load_d(v1), *b = load_d(v2), *c = load_d(cv);
    float *r = malloc(sizeof(float) * (size_t)(B * P * M + 1));
    bool ok = g && a && b && c && r;
    if (ok) {
        const float pf = (float)p->p;
        ACL_FOR(acl_parallel_worth(mx_work(B, P, R, M)), row, 0, B * P, {
            const int64_t bb = row / P;
            const double *x1 = a + row * M, *gr = g + row * R, *cr = c + row * R;
            const double *x2 = b + bcast_batch(v2, 2, p->bd, p->nb, bb, R * M2);
            float *dst = r + row * M;
            for (int64_t m = 0; m < M; m++) dst[m] = 0;
            for (int64_t j = 0; j < R; j++) {
                const float gj = (float)gr[j], dj = (float)cr[j];
                for (int64_t m = 0; m < M; m++)
                    dst[m] += grad_term(gj, (float)x1[m] - (float)x2[j * M2 + m * mstep], dj, pf);
            }
        });
        ok = mx_store_via(r, ACL_FLOAT, o->dtype, o);
    }
    free(g); free(a); free(b); free(c); free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_pdist(const di_params *p, aclOpExecutor *ex) {
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const int64_t N = p->P, M = p->M, n = acl_view_numel(o);
    double *r = calloc((size_t)n + 1, sizeof(double)), *a = p->fill0 ? NULL : load_d(x);
    bool ok = r && (p->fill0 || a);
    if (ok && !p->fill0) {
        ACL_FOR(acl_parallel_worth(mx_work(N, N, M, 1)), i, 0, N - 1, {
            /* pairs (i, j > i) start after the N-1 + N-2 + ... + N-i pairs of the rows before */
            const int64_t base = i * (2 * N - i - 1) / 2;
            for (int64_t j = i + 1; j < N; j++) r[base + j - i - 1] = dist_of(a + i * M, a + j * M, M, 1, p->p);
        });
    }
    if (ok) ok = mx_store_via(r, ACL_DOUBLE, o->dtype, o);
    free(r);
    free(a);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus di_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const di_params *p = ex->params;
    switch (p->kind) {
    case DI_CDIST: return run_cdist(p, ex);
    case DI_CDIST_BW: return run_cdist_bw(p, ex);
    default: return run_pdist(p, ex);
    }
}

static aclnnStatus di_exec(int op, const di_params *pp, const aclTensor *const *ins, const char *const *inn, int nin,
                           const aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, di_run, sizeof(di_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++) rc = acl_exec_add_input(ex, ins[i], inn[i], !pp->fill0);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(di_params *)ex->params = *pp;
    return acl_exec_publish(ex, ws, exo);
}

static aclnnStatus null_in(const void *t, const char *name, aclnnStatus code) {
    ACLNN_CHECK(t != NULL, code, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus dim_range(const aclTensor *t, uint64_t lo, uint64_t hi, const char *name) {
    ACLNN_CHECK(t->ndim <= hi, ACLNN_ERR_PARAM_INVALID, "%s must have at most %llu dims, but has %llu.", name,
                (unsigned long long)hi, (unsigned long long)t->ndim);
    ACLNN_CHECK(t->ndim >= lo, ACLNN_ERR_PARAM_INVALID, "%s must have at least %llu dims, but has %llu.", name,
                (unsigned long long)lo, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

/* ---- Cdist ---- */

aclnnStatus opws_Cdist(const aclTensor *x1, const aclTensor *x2, float p, int64_t compute_mode,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(x1, "x1", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(x2, "x2", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(x1, ACL_DT_LIST_Cdist, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, ACL_DT_LIST_Cdist, "x2"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Cdist, "out"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", out, "out"));
    ACL_TRY(acl_check_same_dtype(x2, "x2", out, "out"));
    ACL_TRY(dim_range(x1, 0, 8, "x1"));
    ACL_TRY(dim_range(x2, 0, 8, "x2"));
    ACL_TRY(dim_range(out, 0, 8, "out"));
    ACL_TRY(dim_range(x1, 2, 8, "x1"));
    ACL_TRY(dim_range(x2, 2, 8, "x2"));
    ACL_TRY(dim_range(out, 2, 8, "out"));
    const int n1 = (int)x1->ndim, n2 = (int)x2->ndim;
    const int64_t M = x1->dims[n1 - 1];
    ACLNN_CHECK(M == x2->dims[n2 - 1], ACLNN_ERR_PARAM_INVALID,
                "the last dims of x1 and x2 must be the same; x1 has %lld, x2 has %lld.", (long long)M,
                (long long)x2->dims[n2 - 1]);
    ACLNN_CHECK(!(p < 0) && !isnan(p), ACLNN_ERR_PARAM_INVALID, "cdist only supports non-negative p values, got %g.",
                (double)p);
    ACLNN_CHECK(!(fabs((double)p - 2.0) < 1e-6) || compute_mode == 2, ACLNN_ERR_PARAM_INVALID,
                "compute_mode %lld is not supported: p is 2.0, which needs compute_mode 2.", (long long)compute_mode);
    /* a zero dim anywhere but the last of x1 or x2: nothing to compute */
    for (int k = 0; k + 1 < n1; k++)
        if (x1->dims[k] == 0) return acl_exec_noop(ACL_OP_Cdist, workspaceSize, executor);
    for (int k = 0; k + 1 < n2; k++)
        if (x2->dims[k] == 0) return acl_exec_noop(ACL_OP_Cdist, workspaceSize, executor);
    di_params pp = {.kind = DI_CDIST, .p = p, .fill0 = M == 0, .P = x1->dims[n1 - 2], .R = x2->dims[n2 - 2], .M = M};
    ACLNN_CHECK(mx_broadcast(x1->dims, n1 - 2, x2->dims, n2 - 2, pp.bd, &pp.nb), ACLNN_ERR_PARAM_INVALID,
                "the batch dims of x1 and x2 cannot be broadcast.");
    int64_t od[ACL_MAX_VIEW_RANK];
    memcpy(od, pp.bd, sizeof(int64_t) * (size_t)pp.nb);
    od[pp.nb] = pp.P;
    od[pp.nb + 1] = pp.R;
    ACL_TRY(mx_check_viewcopy(out, "out", od, pp.nb + 2));
    const aclTensor *ins[] = {x1, x2};
    const char *inn[] = {"x1", "x2"};
    return di_exec(ACL_OP_Cdist, &pp, ins, inn, 2, out, workspaceSize, executor);
}

/* ---- CdistBackward ---- */

aclnnStatus opws_CdistBackward(const aclTensor *grad, const aclTensor *x1, const aclTensor *x2,
                               const aclTensor *cdist, float p, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    const aclTensor *all[] = {grad, x1, x2, cdist, out};
    const char *names[] = {"grad", "x1", "x2", "cdist", "out"};
    for (int i = 0; i < 5; i++) ACL_TRY(null_in(all[i], names[i], ACLNN_ERR_PARAM_NULLPTR));
    for (int i = 0; i < 5; i++) ACL_TRY(acl_check_dtype_in(all[i], ACL_DT_LIST_CdistBackward, names[i]));
    for (int i = 1; i < 5; i++)
        ACLNN_CHECK(all[i]->dtype == grad->dtype, ACLNN_ERR_PARAM_INVALID,
                    "all tensors are expected to share the same dtype: grad is %s, %s is %s.",
                    acl_dtype_name(grad->dtype), names[i], acl_dtype_name(all[i]->dtype));
    ACL_TRY(dim_range(grad, 0, 7, "grad"));
    ACL_TRY(dim_range(grad, 2, 7, "grad"));
    const int nd = (int)grad->ndim;
    for (int i = 1; i < 5; i++)
        ACLNN_CHECK((int)all[i]->ndim == nd, ACLNN_ERR_PARAM_INVALID,
                    "all tensors are expected to share the same dim num: grad has %d, %s has %llu.", nd, names[i],
                    (unsigned long long)all[i]->ndim);
    /* x1 as (.., P, 1, M) and x2 as (.., 1, R, M) broadcast: (B.., P, R, M) */
    int64_t s1[ACL_MAX_VIEW_RANK + 1], s2[ACL_MAX_VIEW_RANK + 1], bs[ACL_MAX_TENSOR_DIMS];
    memcpy(s1, x1->dims, sizeof(int64_t) * (size_t)nd);
    memcpy(s2, x2->dims, sizeof(int64_t) * (size_t)nd);
    s1[nd] = s1[nd - 1];
    s1[nd - 1] = 1;
    s2[nd] = s2[nd - 1];
    s2[nd - 1] = s2[nd - 2];
    s2[nd - 2] = 1;
    int nb = 0;
    ACLNN_CHECK(mx_broadcast(s1, nd + 1, s2, nd + 1, bs, &nb), ACLNN_ERR_PARAM_INVALID,
                "x1 and x2 cannot be broadcast.");
    for (int i = 0; i < nd; i++)
        ACLNN_CHECK(cdist->dims[i] == bs[i], ACLNN_ERR_PARAM_INVALID, "cdist dim %d is %lld, it should be %lld.", i,
                    (long long)cdist->dims[i], (long long)bs[i]);
    ACL_TRY(acl_check_same_shape(cdist, "cdist", grad, "grad"));
    ACL_TRY(acl_check_same_shape(out, "out", x1, "x1"));
    ACLNN_CHECK(p == -1.0f || !(p < 0), ACLNN_ERR_PARAM_INVALID,
                "aclnnCdistBackward only supports non-negative p values, got %g.", (double)p);
    for (int i = 0; i < 4; i++)
        if (acl_tensor_empty(all[i])) return acl_exec_noop(ACL_OP_CdistBackward, workspaceSize, executor);
    /* the kernel's result is (B.., P, M) (the R axis reduced), copied into out (x1's shape) */
    di_params pp = {.kind = DI_CDIST_BW, .p = p, .nb = nd - 2, .P = bs[nd - 2], .R = bs[nd - 1], .M = bs[nd]};
    memcpy(pp.bd, bs, sizeof(int64_t) * (size_t)(nd - 2));
    int64_t od[ACL_MAX_VIEW_RANK];
    memcpy(od, bs, sizeof(int64_t) * (size_t)(nd - 1));
    od[nd - 1] = bs[nd];
    ACL_TRY(mx_check_viewcopy(out, "out", od, nd));
    const aclTensor *ins[] = {grad, x1, x2, cdist};
    const char *inn[] = {"grad", "x1", "x2", "cdist"};
    return di_exec(ACL_OP_CdistBackward, &pp, ins, inn, 4, out, workspaceSize, executor);
}

/* ---- Pdist, PdistForward ---- */

/* self (N, M), out [N (N - 1) / 2] */
static aclnnStatus pdist_shapes(const aclTensor *self, const aclTensor *out) {
    ACLNN_CHECK(self->ndim == 2, ACLNN_ERR_PARAM_INVALID, "self must be 2-dimensional, but it has %llu dims.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim == 1, ACLNN_ERR_PARAM_INVALID, "out must be 1-dimensional, but it has %llu dims.",
                (unsigned long long)out->ndim);
    const int64_t N = self->dims[0];
    int64_t pairs = 0;
    bool fits = acl_mul_i64(N, N - 1, &pairs);
    pairs /= 2;
    ACLNN_CHECK(fits && out->dims[0] == pairs, ACLNN_ERR_PARAM_INVALID,
                "out must have shape [%lld] (N (N - 1) / 2 for self's %lld rows), but has [%lld].",
                (long long)pairs, (long long)N, (long long)out->dims[0]);
    return ACLNN_SUCCESS;
}

static aclnnStatus pdist_exec(int op, const aclTensor *self, double p, bool fill0, aclTensor *out, uint64_t *ws,
                              aclOpExecutor **exo) {
    di_params pp = {.kind = DI_PDIST, .p = p, .fill0 = fill0, .P = self->dims[0], .M = self->dims[1]};
    const aclTensor *ins[] = {self};
    const char *inn[] = {"self"};
    return di_exec(op, &pp, ins, inn, 1, out, ws, exo);
}

aclnnStatus opws_Pdist(const aclTensor *self, float p, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Pdist, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Pdist, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(pdist_shapes(self, out));
    ACLNN_CHECK(!(p < 0) && !isnan(p), ACLNN_ERR_PARAM_INVALID, "pdist only supports non-negative p values, got %g.",
                (double)p);
    if (self->dims[0] <= 1) return acl_exec_noop(ACL_OP_Pdist, workspaceSize, executor);
    return pdist_exec(ACL_OP_Pdist, self, p, self->dims[1] == 0, out, workspaceSize, executor);
}

aclnnStatus opws_PdistForward(const aclTensor *self, const aclScalar *pScalar, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(null_in(pScalar, "pScalar", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(null_in(out, "out", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_PdistForward, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_PdistForward, "out"));
    ACLNN_CHECK(self->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID, "self dtype %s should be out's dtype %s.",
                acl_dtype_name(self->dtype), acl_dtype_name(out->dtype));
    ACL_TRY(pdist_shapes(self, out));
    ACLNN_CHECK(acl_dt_known(pScalar->dtype), ACLNN_ERR_PARAM_INVALID, "pScalar has an unsupported dtype %s.",
                acl_dtype_name(pScalar->dtype));
    const float p = (float)acl_read_f64(pScalar->bytes, pScalar->dtype); /* aclScalar::ToFloat */
    ACLNN_CHECK(!(p < 0), ACLNN_ERR_PARAM_INVALID, "pScalar only supports non-negative p values, got %g.", (double)p);
    if (acl_tensor_empty(self)) /* filled with zeros (nothing at all when N <= 1) */
        return pdist_exec(ACL_OP_PdistForward, self, p, true, out, workspaceSize, executor);
    if (self->dims[0] == 1) return acl_exec_noop(ACL_OP_PdistForward, workspaceSize, executor);
    return pdist_exec(ACL_OP_PdistForward, self, p, false, out, workspaceSize, executor);
}
