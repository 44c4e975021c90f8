/* Remaining ops-math ops with short formulas, dense (dense.h) and serial: Cdist, KlDiv, BatchNormStats, AffineGrid,
 * ConfusionTranspose, Im2col, SignBitsPack, SignBitsUnpack, AmpUpdateScale. Values in double, one rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"


static const aclDataType k_float[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
#define NFLOAT ACL_COUNT_OF(k_float)

enum { MO_CDIST, MO_KLDIV, MO_BNSTATS, MO_AFFINE, MO_PACK, MO_UNPACK, MO_AMP, MO_IM2COL, MO_SCALE };
typedef struct {
    int kind;
    double p, eps, gf, bf;
    int64_t reduction, interval, size;
    bool log_target, align;
    int64_t k[2], dil[2], pad[2], st[2];
    int64_t outer, mid, inner; /* Scale: x seen as (outer, mid, inner), scale/bias as (mid) */
    bool has_bias;
} mo_params;

static aclnnStatus mo_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mo_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    double *a = dn_load(x);
    double *r = calloc((size_t)dn_numel(o) + 1, sizeof(double));
    if (!a || !r) { free(a); free(r); return OOM; }
    aclnnStatus rc = ACLNN_SUCCESS;
    switch (p->kind) {
    case MO_CDIST: { /* x1 (.., P, M), x2 (.., R, M) -> (.., P, R) */
        const acl_view *y = acl_exec_in(ex, 1);
        double *b = dn_load(y);
        if (!b) { rc = OOM; break; }
        const int64_t P = x->dims[x->ndim - 2], M = x->dims[x->ndim - 1], R = y->dims[y->ndim - 2];
        const int64_t B = (P * M) != 0 ? dn_numel(x) / (P * M) : 0;
        for (int64_t bb = 0; bb < B; bb++)
            for (int64_t i = 0; i < P; i++)
                for (int64_t j = 0; j < R; j++) {
                    double s = 0;
                    for (int64_t m = 0; m < M; m++) {
                        double d = fabs(a[(bb * P + i) * M + m] - b[(bb * R + j) * M + m]);
                        if (p->p == 0) s += d != 0;
                        else if (isinf(p->p)) s = fmax(s, d);
                        else s += pow(d, p->p);
                    }
                    r[(bb * P + i) * R + j] = (p->p == 0 || isinf(p->p)) ? s : pow(s, 1 / p->p);
                }
        free(b);
        break;
    }
    case MO_KLDIV: {
        double *t = dn_load(acl_exec_in(ex, 1));
        if (!t) { rc = OOM; break; }
        const int64_t n = dn_numel(x);
        double sum = 0;
        for (int64_t i = 0; i < n; i++) {
            double v = p->log_target ? exp(t[i]) * (t[i] - a[i]) : (t[i] > 0 ? t[i] * (log(t[i]) - a[i]) : 0);
            if (p->reduction == 0) r[i] = v;
            sum += v;
        }
        if (p->reduction == 1) r[0] = sum / (double)n;
        if (p->reduction == 2) r[0] = sum;
        if (p->reduction == 3) r[0] = sum / (double)(x->ndim ? x->dims[0] : 1);
        free(t);
        break;
    }
    case MO_BNSTATS: { /* input (N, C, ...) -> mean (C), invstd (C) */
        const int64_t N = x->dims[0], C = x->dims[1], S = (N * C) != 0 ? dn_numel(x) / (N * C) : 0;
        double *inv = calloc((size_t)C + 1, sizeof(double));
        if (!inv) { rc = OOM; break; }
        for (int64_t c = 0; c < C; c++) {
            double s = 0, q = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < S; i++) s += a[(n * C + c) * S + i];
            double mean = s / (double)(N * S);
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < S; i++) {
                    double d = a[(n * C + c) * S + i] - mean;
                    q += d * d;
                }
            r[c] = mean;
            inv[c] = 1 / sqrt(q / (double)(N * S) + p->eps);
        }
        dn_store(inv, acl_exec_out(ex, 1));
        free(inv);
        break;
    }
    case MO_AFFINE: { /* theta (N, 2, 3) -> (N, H, W, 2); theta (N, 3, 4) -> (N, D, H, W, 3) */
        const bool d3 = o->ndim == 5;
        const int64_t N = o->dims[0], D = d3 ? o->dims[1] : 1, H = o->dims[d3 ? 2 : 1], W = o->dims[d3 ? 3 : 2];
        const int cols = d3 ? 4 : 3, rows = d3 ? 3 : 2;
#define LIN(i, n) ((n) <= 1 ? 0.0 : (p->align ? -1 + 2.0 * (double)(i) / (double)((n) - 1) : \
                                     (-1 + (2.0 * (double)(i) + 1) / (double)(n))))
        for (int64_t nn = 0; nn < N; nn++)
            for (int64_t d = 0; d < D; d++)
                for (int64_t h = 0; h < H; h++)
                    for (int64_t w = 0; w < W; w++) {
                        double base[4] = {W == 1 && !p->align ? 0 : LIN(w, W), LIN(h, H), d3 ? LIN(d, D) : 1, 1};
                        if (!d3) base[2] = 1;
                        double *dst = r + (((nn * D + d) * H + h) * W + w) * rows;
                        for (int k = 0; k < rows; k++) {
                            double s = 0;
                            for (int c = 0; c < cols; c++) s += base[c] * a[(nn * rows + k) * cols + c];
                            dst[k] = s;
                        }
                    }
#undef LIN
        break;
    }
    case MO_PACK: { /* bit i of byte k: element 8k + i >= 0 (little-endian bits), zero padding */
        const int64_t n = dn_numel(x);
        for (int64_t i = 0; i < n; i++)
            if (a[i] >= 0) r[i / 8] += (double)(1 << (i % 8));
        break;
    }
    case MO_UNPACK: {
        const int64_t n = dn_numel(x), no = dn_numel(o);
        for (int64_t i = 0; i < n * 8 && i < no; i++) r[i] = (((int64_t)a[i / 8] >> (i % 8)) & 1) ? 1.0 : -1.0;
        break;
    }
    case MO_AMP: {
        double *tr = dn_load(acl_exec_in(ex, 1)), *inf = dn_load(acl_exec_in(ex, 2));
        if (!tr || !inf) { free(tr); free(inf); rc = OOM; break; }
        double scale = a[0], g = tr[0];
        if (inf[0] != 0) {
            scale *= p->bf;
            g = 0;
        } else if (g + 1 == (double)p->interval) {
            double ns = scale * p->gf;
            if (isfinite(ns)) scale = ns;
            g = 0;
        } else {
            g += 1;
        }
        r[0] = scale;
        dn_store(&g, acl_exec_out(ex, 1));
        free(tr);
        free(inf);
        break;
    }
    case MO_IM2COL: { /* (N, C, H, W) -> (N, C*kh*kw, L) as torch.nn.functional.unfold */
        const bool batched = x->ndim == 4;
        const int64_t N = batched ? x->dims[0] : 1, C = x->dims[batched ? 1 : 0], H = x->dims[x->ndim - 2],
                      W = x->dims[x->ndim - 1];
        const int64_t oh = (H + 2 * p->pad[0] - p->dil[0] * (p->k[0] - 1) - 1) / p->st[0] + 1;
        const int64_t ow = (W + 2 * p->pad[1] - p->dil[1] * (p->k[1] - 1) - 1) / p->st[1] + 1;
        const int64_t L = oh * ow, rowsN = C * p->k[0] * p->k[1];
        for (int64_t n = 0; n < N; n++)
            for (int64_t c = 0; c < C; c++)
                for (int64_t ki = 0; ki < p->k[0]; ki++)
                    for (int64_t kj = 0; kj < p->k[1]; kj++) {
                        int64_t row = (c * p->k[0] + ki) * p->k[1] + kj;
                        for (int64_t i = 0; i < oh; i++)
                            for (int64_t j = 0; j < ow; j++) {
                                int64_t y = i * p->st[0] - p->pad[0] + ki * p->dil[0];
                                int64_t xx = j * p->st[1] - p->pad[1] + kj * p->dil[1];
                                double v = (y >= 0 && y < H && xx >= 0 && xx < W) ? a[((n * C + c) * H + y) * W + xx] : 0;
                                r[(n * rowsN + row) * L + i * ow + j] = v;
                            }
                    }
        break;
    }
    case MO_SCALE: {
        double *sc = dn_load(acl_exec_in(ex, 1)), *b = p->has_bias ? dn_load(acl_exec_in(ex, 2)) : NULL;
        if (!sc || (p->has_bias && !b)) { free(sc); free(b); rc = OOM; break; }
        for (int64_t o2 = 0; o2 < p->outer; o2++)
            for (int64_t m = 0; m < p->mid; m++)
                for (int64_t i = 0; i < p->inner; i++) {
                    int64_t e = (o2 * p->mid + m) * p->inner + i;
                    r[e] = a[e] * sc[m] + (b ? b[m] : 0);
                }
        free(sc);
        free(b);
        break;
    }
    default: break;
    }
    if (rc == ACLNN_SUCCESS) dn_store(r, o);
    free(a);
    free(r);
    return rc;
}

static aclnnStatus mo_exec(int op, mo_params pp, const aclTensor *const *ins, const char *const *inn, int nin,
                           const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                           aclOpExecutor **exo) {
    for (int i = 0; i < nout; i++)
        if (acl_tensor_empty(outs[i])) return acl_exec_noop(op, ws, exo);
    void *p;
    ACL_TRY(dn_exec(op, mo_run, sizeof(mo_params), ins, inn, nin, outs, outn, nout, ws, exo, &p));
    *(mo_params *)p = pp;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Cdist(const aclTensor *x1, const aclTensor *x2, float p, int64_t compute_mode,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)compute_mode;
    NN(x1, "x1");
    NN(x2, "x2");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(x1, k_float, NFLOAT, "x1"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", x2, "x2"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", out, "out"));
    ACLNN_CHECK(p >= 0, ACLNN_ERR_PARAM_INVALID, "p must be non-negative.");
    ACLNN_CHECK(x1->ndim >= 2 && x1->ndim == x2->ndim && x1->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "x1 and x2 must have the same rank (at least 2).");
    const uint64_t r = x1->ndim;
    ACLNN_CHECK(x1->dims[r - 1] == x2->dims[r - 1], ACLNN_ERR_PARAM_INVALID, "x1 and x2 differ in the last dim.");
    bool ok = out->ndim == r && out->dims[r - 2] == x1->dims[r - 2] && out->dims[r - 1] == x2->dims[r - 2];
    for (uint64_t k = 0; ok && k + 2 < r; k++) ok = x1->dims[k] == x2->dims[k] && out->dims[k] == x1->dims[k];
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "out has the wrong shape for cdist.");
    const aclTensor *ins[] = {x1, x2}, *outs[] = {out};
    const char *inn[] = {"x1", "x2"}, *outn[] = {"out"};
    mo_params pp = {0};
    pp.kind = MO_CDIST;
    pp.p = p;
    return mo_exec(ACL_OP_Cdist, pp, ins, inn, 2, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_KlDiv(const aclTensor *self, const aclTensor *target, int64_t reduction,
                       bool logTarget, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    NN(self, "self");
    NN(target, "target");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_float, NFLOAT, "self"));
    ACL_TRY(acl_check_dtype_in(target, k_float, NFLOAT, "target"));
    ACLNN_CHECK(reduction >= 0 && reduction <= 3, ACLNN_ERR_PARAM_INVALID,
                "reduction %lld must be 0 (none), 1 (mean), 2 (sum) or 3 (batchmean).", (long long)reduction);
    ACL_TRY(acl_check_same_shape(self, "self", target, "target"));
    if (reduction == 0) ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    else ACLNN_CHECK(acl_tensor_numel(out) == 1, ACLNN_ERR_PARAM_INVALID, "out must hold one element.");
    ACLNN_CHECK(self->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "self has too many dims.");
    const aclTensor *ins[] = {self, target}, *outs[] = {out};
    const char *inn[] = {"self", "target"}, *outn[] = {"out"};
    mo_params pp = {0};
    pp.kind = MO_KLDIV;
    pp.reduction = reduction;
    pp.log_target = logTarget;
    return mo_exec(ACL_OP_KlDiv, pp, ins, inn, 2, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_BatchNormStats(const aclTensor *input, double eps, aclTensor *mean, aclTensor *invstd,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(input, "input");
    NN(mean, "mean");
    NN(invstd, "invstd");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(input, k_float, NFLOAT, "input"));
    ACLNN_CHECK(input->ndim >= 2 && input->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "input must have 2 to %d dims.", ACL_MAX_VIEW_RANK);
    ACLNN_CHECK(mean->ndim == 1 && mean->dims[0] == input->dims[1], ACLNN_ERR_PARAM_INVALID, "mean must have shape [C].");
    ACLNN_CHECK(invstd->ndim == 1 && invstd->dims[0] == input->dims[1], ACLNN_ERR_PARAM_INVALID,
                "invstd must have shape [C].");
    const aclTensor *ins[] = {input}, *outs[] = {mean, invstd};
    const char *inn[] = {"input"}, *outn[] = {"mean", "invstd"};
    mo_params pp = {0};
    pp.kind = MO_BNSTATS;
    pp.eps = eps;
    return mo_exec(ACL_OP_BatchNormStats, pp, ins, inn, 1, outs, outn, 2, workspaceSize, executor);
}

aclnnStatus opws_AffineGrid(const aclTensor *theta, const aclIntArray *size, bool alignCorners,
                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(theta, "theta");
    ACL_TRY(acl_check_int_array(size, "size"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(theta, k_float, NFLOAT, "theta"));
    ACL_TRY(acl_check_same_dtype(theta, "theta", out, "out"));
    ACLNN_CHECK(size->size == 4 || size->size == 5, ACLNN_ERR_PARAM_INVALID, "size must have 4 or 5 entries.");
    const bool d3 = size->size == 5;
    ACLNN_CHECK(theta->ndim == 3 && theta->dims[0] == size->v[0] && theta->dims[1] == (d3 ? 3 : 2) &&
                theta->dims[2] == (d3 ? 4 : 3), ACLNN_ERR_PARAM_INVALID, "theta must have shape [N, %d, %d].",
                d3 ? 3 : 2, d3 ? 4 : 3);
    bool ok = out->ndim == size->size;
    ok = ok && out->dims[0] == size->v[0] && out->dims[out->ndim - 1] == (d3 ? 3 : 2);
    for (uint64_t k = 2; ok && k < size->size; k++) ok = out->dims[k - 1] == size->v[k];
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "out has the wrong shape for this size.");
    const aclTensor *ins[] = {theta}, *outs[] = {out};
    const char *inn[] = {"theta"}, *outn[] = {"out"};
    mo_params pp = {0};
    pp.kind = MO_AFFINE;
    pp.align = alignCorners;
    return mo_exec(ACL_OP_AffineGrid, pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_SignBitsPack(const aclTensor *self, int64_t size, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    static const aclDataType k_in[] = {ACL_FLOAT, ACL_FLOAT16};
    ACL_TRY(acl_check_dtype_in(self, k_in, 2, "self"));
    ACLNN_CHECK(out->dtype == ACL_UINT8, ACLNN_ERR_PARAM_INVALID, "out dtype should be UINT8.");
    ACLNN_CHECK(self->ndim == 1, ACLNN_ERR_PARAM_INVALID, "self must be 1-d.");
    const int64_t bytes = (self->dims[0] + 7) / 8;
    ACLNN_CHECK(size > 0 && bytes % size == 0, ACLNN_ERR_PARAM_INVALID, "size must divide the %lld packed bytes.",
                (long long)bytes);
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == size && out->dims[1] == bytes / size, ACLNN_ERR_PARAM_INVALID,
                "out must have shape [%lld, %lld].", (long long)size, (long long)(bytes / size));
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    mo_params pp = {0};
    pp.kind = MO_PACK;
    return mo_exec(ACL_OP_SignBitsPack, pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_SignBitsUnpack(const aclTensor *self, int64_t size, aclDataType dtype, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACLNN_CHECK(self->dtype == ACL_UINT8, ACLNN_ERR_PARAM_INVALID, "self dtype should be UINT8.");
    ACLNN_CHECK(dtype == ACL_FLOAT || dtype == ACL_FLOAT16, ACLNN_ERR_PARAM_INVALID, "dtype must be FLOAT or FLOAT16.");
    ACLNN_CHECK(out->dtype == dtype, ACLNN_ERR_PARAM_INVALID, "out dtype should be the dtype argument.");
    ACLNN_CHECK(self->ndim == 1, ACLNN_ERR_PARAM_INVALID, "self must be 1-d.");
    const int64_t n = self->dims[0] * 8;
    ACLNN_CHECK(size > 0 && n % size == 0, ACLNN_ERR_PARAM_INVALID, "size must divide the %lld unpacked values.",
                (long long)n);
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == size && out->dims[1] == n / size, ACLNN_ERR_PARAM_INVALID,
                "out must have shape [%lld, %lld].", (long long)size, (long long)(n / size));
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    mo_params pp = {0};
    pp.kind = MO_UNPACK;
    return mo_exec(ACL_OP_SignBitsUnpack, pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_AmpUpdateScale(const aclTensor *currentScale, const aclTensor *growthTracker,
                                const aclTensor *foundInf, double growthFactor, double backoffFactor,
                                int64_t growthInterval, const aclTensor *updatedScale,
                                const aclTensor *updatedGrowthTracker, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    NN(currentScale, "currentScale");
    NN(growthTracker, "growthTracker");
    NN(foundInf, "foundInf");
    NN(updatedScale, "updatedScale");
    NN(updatedGrowthTracker, "updatedGrowthTracker");
    WS_EX(workspaceSize, executor);
    ACLNN_CHECK(currentScale->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "currentScale dtype should be FLOAT.");
    ACLNN_CHECK(growthTracker->dtype == ACL_INT32, ACLNN_ERR_PARAM_INVALID, "growthTracker dtype should be INT32.");
    ACLNN_CHECK(growthInterval > 0, ACLNN_ERR_PARAM_INVALID, "growthInterval must be positive.");
    const aclTensor *all[] = {currentScale, growthTracker, foundInf, updatedScale, updatedGrowthTracker};
    const char *names[] = {"currentScale", "growthTracker", "foundInf", "updatedScale", "updatedGrowthTracker"};
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(acl_tensor_numel(all[i]) == 1, ACLNN_ERR_PARAM_INVALID, "%s must hold one element.", names[i]);
    mo_params pp = {0};
    pp.kind = MO_AMP;
    pp.gf = growthFactor;
    pp.bf = backoffFactor;
    pp.interval = growthInterval;
    return mo_exec(ACL_OP_AmpUpdateScale, pp, all, names, 3, all + 3, names + 3, 2, workspaceSize, executor);
}

aclnnStatus opws_ConfusionTranspose(const aclTensor *x, const aclIntArray *perm,
                                    const aclIntArray *shape, bool transpose_first, aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x, "x");
    ACL_TRY(acl_check_int_array(perm, "perm"));
    ACL_TRY(acl_check_int_array(shape, "shape"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_same_dtype(x, "x", out, "out"));
    ACLNN_CHECK(x->ndim <= ACL_MAX_VIEW_RANK && shape->size <= ACL_MAX_VIEW_RANK && perm->size <= ACL_MAX_VIEW_RANK,
                ACLNN_ERR_PARAM_INVALID, "too many dims.");
    int64_t m = 1, n = acl_tensor_numel(x);
    ACLNN_CHECK(acl_numel(shape->v, (int64_t)shape->size, &m) && n == m, ACLNN_ERR_PARAM_INVALID,
                "shape does not hold x's %lld elements.", (long long)n);
    /* the permuted tensor's dims: x's (transpose first) or shape's */
    const int64_t *pd = transpose_first ? x->dims : shape->v;
    const uint64_t pr = transpose_first ? x->ndim : shape->size;
    ACLNN_CHECK(perm->size == pr, ACLNN_ERR_PARAM_INVALID, "perm must have %llu entries.", (unsigned long long)pr);
    int64_t want[ACL_MAX_VIEW_RANK];
    uint64_t wn = transpose_first ? shape->size : pr;
    for (uint64_t k = 0; k < pr; k++) {
        int64_t d = cp_wrap_dim(perm->v[k], (int64_t)pr);
        ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "perm[%llu] is out of range.", (unsigned long long)k);
        if (!transpose_first) want[k] = pd[d];
    }
    if (transpose_first)
        for (uint64_t k = 0; k < wn; k++) want[k] = shape->v[k];
    bool ok = out->ndim == wn;
    for (uint64_t k = 0; ok && k < wn; k++) ok = out->dims[k] == want[k];
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "out has the wrong shape.");
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_ConfusionTranspose, workspaceSize, executor);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_ConfusionTranspose);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, x, "x", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc) {
        const acl_view *xv = &ex->io[0], *ov = &ex->io[1];
        /* both sides seen in the permuted tensor's index space T (dims pd[perm[k]]): one of them is a reshape of a
         * contiguous row-major order, the other a permuted view */
        int64_t tdims[ACL_MAX_VIEW_RANK], tst[ACL_MAX_VIEW_RANK], rowmajor[ACL_MAX_VIEW_RANK], acc = 1;
        /* row-major strides of the un-permuted tensor P (dims pd) in the flat element order */
        for (int64_t k = (int64_t)pr - 1; k >= 0; k--) {
            rowmajor[k] = acc;
            acc *= pd[k];
        }
        for (uint64_t k = 0; k < pr; k++) {
            int64_t d = cp_wrap_dim(perm->v[k], (int64_t)pr);
            tdims[k] = pd[d];
            tst[k] = rowmajor[d];
        }
        /* flat order -> element offsets of a view: for a contiguous x / out these are their own strides times the
         * flat index, so an item over T with flat strides works when both are contiguous (the usual case) */
        bool xc = true, oc = true;
        int64_t s = 1;
        for (int k = xv->ndim - 1; k >= 0; k--) { xc = xc && (xv->dims[k] == 1 || xv->strides[k] == s); s *= xv->dims[k]; }
        s = 1;
        for (int k = ov->ndim - 1; k >= 0; k--) { oc = oc && (ov->dims[k] == 1 || ov->strides[k] == s); s *= ov->dims[k]; }
        if (!xc || !oc) {
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "x and out must be contiguous for ConfusionTranspose here.");
        } else {
            int64_t ost[ACL_MAX_VIEW_RANK], a2 = 1;
            for (int64_t k = (int64_t)pr - 1; k >= 0; k--) {
                ost[k] = a2;
                a2 *= tdims[k];
            }
            /* transpose first: x is P, out is T reshaped; otherwise x is P (= shape) reshaped, out is T */
            rc = cp_add(ex, 0, 0, tst, 1, 0, ost, tdims, (int)pr);
        }
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus opws_Im2col(const aclTensor *self, const aclIntArray *kernelSize,
                        const aclIntArray *dilation, const aclIntArray *padding,
                        const aclIntArray *stride, const aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_float, NFLOAT, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self must be 3-d or 4-d.");
    const aclIntArray *arr[] = {kernelSize, dilation, padding, stride};
    const char *an[] = {"kernelSize", "dilation", "padding", "stride"};
    mo_params pp = {0};
    pp.kind = MO_IM2COL;
    int64_t *dst[] = {pp.k, pp.dil, pp.pad, pp.st};
    for (int i = 0; i < 4; i++) {
        ACLNN_CHECK(arr[i]->size == 1 || arr[i]->size == 2, ACLNN_ERR_PARAM_INVALID, "%s must have 1 or 2 entries.",
                    an[i]);
        dst[i][0] = arr[i]->v[0];
        dst[i][1] = arr[i]->v[arr[i]->size - 1];
        ACLNN_CHECK(i == 2 ? dst[i][0] >= 0 && dst[i][1] >= 0 : dst[i][0] > 0 && dst[i][1] > 0,
                    ACLNN_ERR_PARAM_INVALID, "%s has an invalid value.", an[i]);
    }
    const bool batched = self->ndim == 4;
    const int64_t C = self->dims[batched ? 1 : 0], H = self->dims[self->ndim - 2], W = self->dims[self->ndim - 1];
    const int64_t oh = (H + 2 * pp.pad[0] - pp.dil[0] * (pp.k[0] - 1) - 1) / pp.st[0] + 1;
    const int64_t ow = (W + 2 * pp.pad[1] - pp.dil[1] * (pp.k[1] - 1) - 1) / pp.st[1] + 1;
    ACLNN_CHECK(oh > 0 && ow > 0, ACLNN_ERR_PARAM_INVALID, "the kernel does not fit the padded input.");
    bool ok = out->ndim == (uint64_t)(batched ? 3 : 2);
    if (ok && batched) ok = out->dims[0] == self->dims[0];
    ok = ok && out->dims[out->ndim - 2] == C * pp.k[0] * pp.k[1] && out->dims[out->ndim - 1] == oh * ow;
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "out has the wrong shape for im2col.");
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return mo_exec(ACL_OP_Im2col, pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_Scale(const aclTensor *x, const aclTensor *scale, const aclTensor *bias, int64_t axis,
                       int64_t numAxes, bool scaleFromBlob, aclTensor *y, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    NN(x, "x");
    NN(scale, "scale");
    NN(y, "y");
    WS_EX(workspaceSize, executor);
    static const aclDataType k_in[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
    ACL_TRY(acl_check_dtype_in(x, k_in, 3, "x"));
    ACL_TRY(acl_check_same_dtype(x, "x", scale, "scale"));
    ACL_TRY(acl_check_same_shape(x, "x", y, "y"));
    const int64_t r = (int64_t)x->ndim;
    ACLNN_CHECK(r <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "x has too many dims.");
    ACLNN_CHECK(axis >= -r && axis < (r ? r : 1), ACLNN_ERR_PARAM_INVALID, "axis %lld is out of range.", (long long)axis);
    if (axis < 0) axis += r;
    /* scale covers x's dims [axis, axis + n): n = numAxes (from blob; -1: to the end) or scale's rank */
    int64_t n = scaleFromBlob ? (numAxes == -1 ? r - axis : numAxes) : (int64_t)scale->ndim;
    ACLNN_CHECK(numAxes >= -1 && n >= 0 && axis + n <= r, ACLNN_ERR_PARAM_INVALID,
                "numAxes %lld does not fit x's %lld dims from axis %lld.", (long long)numAxes, (long long)r,
                (long long)axis);
    mo_params pp = {0};
    pp.kind = MO_SCALE;
    pp.outer = pp.mid = pp.inner = 1;
    for (int64_t k = 0; k < r; k++) {
        if (k < axis) pp.outer *= x->dims[k];
        else if (k < axis + n) pp.mid *= x->dims[k];
        else pp.inner *= x->dims[k];
    }
    ACLNN_CHECK(acl_tensor_numel(scale) == pp.mid, ACLNN_ERR_PARAM_INVALID,
                "scale has %lld elements; x's dims [%lld, %lld) hold %lld.", (long long)acl_tensor_numel(scale),
                (long long)axis, (long long)(axis + n), (long long)pp.mid);
    if (bias) {
        NN(bias, "bias");
        ACLNN_CHECK(acl_tensor_numel(bias) == pp.mid, ACLNN_ERR_PARAM_INVALID, "bias must have scale's size.");
    }
    pp.has_bias = bias != NULL;
    const aclTensor *ins[] = {x, scale, bias}, *outs[] = {y};
    const char *inn[] = {"x", "scale", "bias"}, *outn[] = {"y"};
    return mo_exec(ACL_OP_Scale, pp, ins, inn, bias ? 3 : 2, outs, outn, 1, workspaceSize, executor);
}
