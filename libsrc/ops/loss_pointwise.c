/* The shared engine of the elementwise losses (loss_pointwise.h). */
#include "ops/loss_pointwise.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/mx_util.h"

#define LP_BLOCK 4096
#define LP_OOM ACL_REPORT(ACLNN_ERR_INNER, "out of memory")

static double sgn(double v) { return v > 0 ? 1.0 : (v < 0 ? -1.0 : (v == v ? 0.0 : v)); }

/* the loss of one element (forward) */
static double lp_fwd(const lp_params *p, double x, double t, double w, double pw) {
    switch (p->kind) {
    case LP_MSE: return (x - t) * (x - t);
    case LP_L1: return fabs(x - t);
    case LP_SMOOTHL1: {
        double d = fabs(x - t);
        return d < p->beta ? 0.5 * d * d / p->beta : d - 0.5 * p->beta;
    }
    case LP_SOFTMARGIN: return log1p(exp(-t * x));
    case LP_BCE: { /* the logs clamped at -100 as PyTorch's kernel */
        double l1 = fmax(log(x), -100.0), l0 = fmax(log1p(-x), -100.0);
        return -w * (t * l1 + (1.0 - t) * l0);
    }
    case LP_BCEL: { /* (1 - t) x + (1 + (pw - 1) t) (log(1 + e^-|x|) + max(-x, 0)) */
        double lw = 1.0 + (pw - 1.0) * t;
        return w * ((1.0 - t) * x + lw * (log1p(exp(-fabs(x))) + fmax(-x, 0.0)));
    }
    default: return 0;
    }
}

/* the derivative of one element's loss with respect to self (or target), before the gradient and 1/n */
static double lp_bwd(const lp_params *p, double x, double t, double w, double pw) {
    switch (p->kind) {
    case LP_MSE: return 2.0 * (x - t);
    case LP_L1: return sgn(x - t);
    case LP_SMOOTHL1: {
        double d = x - t;
        return fabs(d) < p->beta ? d / p->beta : sgn(d);
    }
    case LP_SOFTMARGIN: { double e = exp(-t * x); return -t * e / (1.0 + e); }
    case LP_BCE: return w * (x - t) / fmax((1.0 - x) * x, 1e-12);
    case LP_BCEL: {
        double s = 1.0 / (1.0 + exp(-x));
        return w * ((pw * t + 1.0 - t) * s - pw * t);
    }
    case LP_KLDIV:
        if (p->wrt_target) /* d/dt of t (log t - x) is log t - x + t / t (NaN at t = 0, as the op_api's graph);
                            * of e^t (t - x) it is e^t (t - x + 1) */
            return p->log_target ? exp(t) * (t - x + 1.0) : log(t) - x + t / t;
        return p->log_target ? -exp(t) : -t;
    default: return 0;
    }
}

bool lp_broadcast(const aclTensor *const *ts, int n, int64_t *bd, int *nd) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (!ts[i]) continue;
        int64_t o[ACL_MAX_TENSOR_DIMS];
        int no = 0;
        if (!mx_broadcast(bd, k, ts[i]->dims, (int)ts[i]->ndim, o, &no) || no > ACL_MAX_VIEW_RANK)
            return false;
        memcpy(bd, o, sizeof(int64_t) * (size_t)no);
        k = no;
    }
    *nd = k;
    return true;
}

/* a result over the broadcast shape summed down to out's shape (KlDiv's backwards: out has an operand's shape, right
 * aligned in the broadcast one), element by element in index order */
static bool sum_to_out(const lp_params *p, const double *res, int64_t n, const acl_view *o, double scale) {
    const int64_t m = acl_view_numel(o);
    double *acc = calloc((size_t)(m + 1), sizeof(double));
    if (!acc) return false;
    int64_t ost[ACL_MAX_VIEW_RANK] = {0}, idx[ACL_MAX_VIEW_RANK] = {0};
    /* row-major strides of out's dims placed under the broadcast dims */
    int64_t st = 1;
    for (int k = p->nd - 1, io = o->ndim - 1; k >= 0; k--, io--) {
        int64_t od = io >= 0 ? o->dims[io] : 1;
        ost[k] = od == 1 ? 0 : st;
        st *= od;
    }
    for (int64_t i = 0; i < n; i++) {
        int64_t off = 0;
        for (int k = 0; k < p->nd; k++) off += idx[k] * ost[k];
        acc[off] += res[i];
        for (int k = p->nd - 1; k >= 0; k--) {
            if (++idx[k] < p->bd[k]) break;
            idx[k] = 0;
        }
    }
    for (int64_t i = 0; i < m && scale != 1.0; i++) acc[i] *= scale;
    bool ok = mx_store_via(acc, ACL_DOUBLE, p->cdt, o);
    free(acc);
    return ok;
}

static aclnnStatus lp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const lp_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    if (p->fill_only) {
        const int64_t n = acl_view_numel(o);
        double *v = malloc(sizeof(double) * (size_t)(n + 1));
        if (!v) return LP_OOM;
        for (int64_t i = 0; i < n; i++) v[i] = p->fill;
        bool ok = mx_store_via(v, ACL_DOUBLE, p->cdt, o);
        free(v);
        return ok ? ACLNN_SUCCESS : LP_OOM;
    }
    int64_t n = 1;
    for (int k = 0; k < p->nd; k++) n *= p->bd[k];
    double *buf[LR_N] = {0};
    const int *role = (const int *)((const char *)p + sizeof(lp_params)); /* role -> input index */
    bool ok = true;
    for (int r = 0; r < LR_N && ok; r++) {
        if (role[r] < 0) continue;
        buf[r] = malloc(sizeof(double) * (size_t)(n + 1));
        if (!buf[r]) ok = false;
        else mx_load_bcast(acl_exec_in(ex, role[r]), p->bd, p->nd, ACL_DOUBLE, buf[r]);
    }
    double *res = ok ? malloc(sizeof(double) * (size_t)(n + 1)) : NULL;
    if (!res) ok = false;
    double *part = NULL;
    const int64_t nb = (n + LP_BLOCK - 1) / LP_BLOCK;
    if (ok && !p->backward && p->reduction != 0 && !p->reduce_dim0) {
        part = malloc(sizeof(double) * (size_t)(nb + 1));
        if (!part) ok = false;
    }
    if (ok) {
        const double *g = buf[LR_GRAD], *x = buf[LR_X], *t = buf[LR_T], *w = buf[LR_W], *pw = buf[LR_PW];
        const double scale = p->backward && (p->reduction == 1 || p->reduction == 3)
                                 ? 1.0 / (p->div > 0 ? p->div : (double)n) : 1.0;
        ACL_FOR(acl_parallel_worth(n * 8), b, 0, nb, {
            const int64_t lo = b * LP_BLOCK, hi = lo + LP_BLOCK < n ? lo + LP_BLOCK : n;
            double s = 0;
            for (int64_t i = lo; i < hi; i++) {
                const double xi = x ? x[i] : 0, ti = t ? t[i] : 0, wi = w ? w[i] : 1.0, pwi = pw ? pw[i] : 1.0;
                if (p->backward) {
                    res[i] = lp_bwd(p, xi, ti, wi, pwi) * (g ? g[i] : 1.0) * scale;
                } else {
                    res[i] = lp_fwd(p, xi, ti, wi, pwi);
                    s += res[i];
                }
            }
            if (part) part[b] = s;
        });
        if (part) {
            double s = 0;
            for (int64_t b = 0; b < nb; b++) s += part[b];
            double v = p->reduction == 1 ? s / (p->div > 0 ? p->div : (double)n) : s;
            ok = mx_store_via(&v, ACL_DOUBLE, p->cdt, o);
        } else if (p->reduce_dim0) { /* MseLossOut: the sum / mean over the first dim only */
            ok = sum_to_out(p, res, n, o, p->reduction == 1 ? 1.0 / (double)p->bd[0] : 1.0);
        } else if (acl_view_numel(o) != n) {
            ok = sum_to_out(p, res, n, o, 1.0);
        } else {
            ok = mx_store_via(res, ACL_DOUBLE, p->cdt, o);
        }
    }
    for (int r = 0; r < LR_N; r++) free(buf[r]);
    free(res);
    free(part);
    return ok ? ACLNN_SUCCESS : LP_OOM;
}

aclnnStatus lp_exec(int op, const lp_params *p, const aclTensor *const *ins, aclTensor *out, const char *outname,
                    uint64_t *ws, aclOpExecutor **exo) {
    static const char *const names[LR_N] = {"gradOutput", "self", "target", "weight", "posWeight"};
    /* the params are followed by the role -> input index table */
    aclOpExecutor *ex = acl_exec_create(op, lp_run, sizeof(lp_params) + sizeof(int) * LR_N);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    int role[LR_N], k = 0;
    for (int r = 0; r < LR_N; r++) {
        role[r] = -1;
        if (!ins[r] || rc) continue;
        rc = acl_exec_add_input(ex, ins[r], names[r], !p->fill_only);
        role[r] = k++;
    }
    if (!rc) rc = acl_tensor_empty(out) ? acl_exec_add_output_nodata(ex, out, outname)
                                        : acl_exec_add_output(ex, out, outname);
    if (rc) return acl_exec_discard(ex, rc);
    lp_params *q = ex->params;
    *q = *p;
    if (q->nd == 0) { /* 0-d operands only: one element */
        q->nd = 1;
        q->bd[0] = 1;
    }
    memcpy((char *)ex->params + sizeof(lp_params), role, sizeof role);
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus lp_null(const void *t, const char *name, aclnnStatus code) {
    ACLNN_CHECK(t != NULL, code, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

aclnnStatus lp_max_dim(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "%s must have at most 8 dims, but has %llu.", name,
                (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

aclnnStatus lp_same_dtype(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    ACLNN_CHECK(a->dtype == b->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s must be the same as %s dtype %s.", bn,
                acl_dtype_name(b->dtype), an, acl_dtype_name(a->dtype));
    return ACLNN_SUCCESS;
}

aclnnStatus lp_reduction(int64_t reduction, int64_t hi) {
    ACLNN_CHECK(reduction >= 0 && reduction <= hi, ACLNN_ERR_PARAM_INVALID,
                "reduction must be between 0 and %lld, but got %lld.", (long long)hi, (long long)reduction);
    return ACLNN_SUCCESS;
}

aclnnStatus lp_out_scalar(const aclTensor *out, const char *name) {
    ACLNN_CHECK(out->ndim == 0, ACLNN_ERR_PARAM_INVALID, "Expected %s to be a 0-dimensional tensor for a reduction.",
                name);
    return ACLNN_SUCCESS;
}
