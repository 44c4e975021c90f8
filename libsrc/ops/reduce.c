/* Reductions: one engine for sum/nansum/mean/prod/amax/amin/max/min (+indices)/argmax/argmin/all/any/var/std/
 * logsumexp/logsum, and the ops of ops-math that are made of them. Deterministic by construction: each output is
 * reduced by one thread in row-major order of the reduced index space; when there are few outputs, the reduced space
 * is cut into fixed blocks (the cut depends on the shape only, never on the thread count) whose partials are combined
 * in block order. Floats accumulate in double (fp16/bf16/fp32 and double alike), integers in int64 (wrapping). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

enum { RD_SUM, RD_NANSUM, RD_MEAN, RD_PROD, RD_MAX, RD_MIN, RD_ALL, RD_ANY, RD_VAR, RD_LOGSUMEXP, RD_LOGSUM };
#define RD_BLOCK 16384   /* reduced elements per partial when the outputs are few */
#define RD_FEW_OUTPUTS 64

typedef struct {
    int kind;
    bool with_index, index_only, std, two_out; /* two_out: var/std + mean, or min + max */
    int64_t correction;
    int nk, nr;                                  /* kept and reduced dims of the input */
    int64_t kd[ACL_MAX_VIEW_RANK], ks[ACL_MAX_VIEW_RANK], rd[ACL_MAX_VIEW_RANK], rs[ACL_MAX_VIEW_RANK];
    int64_t nout, R;
    int64_t odims[ACL_MAX_VIEW_RANK], ost[2][ACL_MAX_VIEW_RANK]; /* outputs iterated in kept order */
    bool ints;                                   /* integer accumulation */
} rd_plan;

typedef struct { double v; int64_t i; double m2; int64_t idx; int64_t n; } rd_acc;

static void acc_init(const rd_plan *p, rd_acc *a) {
    memset(a, 0, sizeof *a);
    a->idx = -1;
    if (p->kind == RD_PROD) { a->v = 1; a->i = 1; }
    if (p->kind == RD_ALL) a->v = 1;
    if (p->kind == RD_MAX || p->kind == RD_LOGSUMEXP) a->v = -INFINITY;
    if (p->kind == RD_MIN) a->v = INFINITY;
}

/* The sum of a chunk in a fixed tree: 8 running lanes (element k goes to lane k % 8), combined pairwise. The chunk
 * cut is fixed by the shape, so the bytes never depend on the thread count; the lanes let the adds pipeline. */
static inline double lane_sum(const double *d, int64_t n) {
    double l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 8; j++) l[j] += d[k + j];
    for (int j = 0; k < n; k++, j++) l[j] += d[k];
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* folds n values (double or int64 in buf) at reduced positions [pos, pos + n) */
static void acc_fold(const rd_plan *p, rd_acc *a, const double *d, const int64_t *iv, int64_t n, int64_t pos) {
    switch (p->kind) {
    case RD_SUM: case RD_MEAN: case RD_VAR:
        if (p->ints) for (int64_t k = 0; k < n; k++) a->i = (int64_t)((uint64_t)a->i + (uint64_t)iv[k]);
        else a->v += lane_sum(d, n);
        break;
    case RD_NANSUM:
        for (int64_t k = 0; k < n; k++) if (!isnan(d[k])) a->v += d[k];
        break;
    case RD_PROD:
        if (p->ints) for (int64_t k = 0; k < n; k++) a->i = (int64_t)((uint64_t)a->i * (uint64_t)iv[k]);
        else for (int64_t k = 0; k < n; k++) a->v *= d[k];
        break;
    case RD_MAX: case RD_MIN: {
        const bool mx = p->kind == RD_MAX;
        for (int64_t k = 0; k < n; k++) {
            double x = p->ints ? (double)iv[k] : d[k];
            if (isnan(a->v)) break;
            if (isnan(x) || a->idx < 0 || (mx ? x > a->v : x < a->v) ||
                (p->ints && (mx ? iv[k] > a->i : iv[k] < a->i))) {
                a->v = x;
                if (p->ints) a->i = iv[k];
                a->idx = pos + k;
            }
        }
        break;
    }
    case RD_ALL: for (int64_t k = 0; k < n; k++) a->v = a->v && (p->ints ? iv[k] != 0 : d[k] != 0); break;
    case RD_ANY: for (int64_t k = 0; k < n; k++) a->v = a->v || (p->ints ? iv[k] != 0 : d[k] != 0); break;
    case RD_LOGSUMEXP: case RD_LOGSUM:
        for (int64_t k = 0; k < n; k++) a->v = p->kind == RD_LOGSUM ? a->v + d[k] : a->v; /* max pass for lse */
        break;
    default: break;
    }
    a->n += n;
}

/* a += b (b covers later positions) */
static void acc_merge(const rd_plan *p, rd_acc *a, const rd_acc *b) {
    switch (p->kind) {
    case RD_SUM: case RD_MEAN: case RD_VAR: case RD_NANSUM: case RD_LOGSUM:
        a->v += b->v;
        a->i = (int64_t)((uint64_t)a->i + (uint64_t)b->i);
        break;
    case RD_PROD: a->v *= b->v; a->i = (int64_t)((uint64_t)a->i * (uint64_t)b->i); break;
    case RD_MAX: case RD_MIN: {
        const bool mx = p->kind == RD_MAX;
        if (b->idx < 0 || isnan(a->v)) break;
        if (a->idx < 0 || isnan(b->v) || (p->ints ? (mx ? b->i > a->i : b->i < a->i) : (mx ? b->v > a->v : b->v < a->v)))
            *a = *b;
        break;
    }
    case RD_ALL: a->v = a->v && b->v; break;
    case RD_ANY: a->v = a->v || b->v; break;
    default: break;
    }
    a->n += b->n;
}

/* reduces positions [r0, r1) of output o into a; pass 2 of var / logsumexp uses `center` */
static void reduce_range(const rd_plan *p, const acl_view *x, int64_t o, int64_t r0, int64_t r1, rd_acc *a,
                         double center, int pass) {
    int64_t base = 0, rem = o;
    for (int k = p->nk - 1; k >= 0; k--) {
        base += (rem % p->kd[k]) * p->ks[k];
        rem /= p->kd[k];
    }
    const int nr = p->nr;
    const int64_t inner = nr ? p->rd[nr - 1] : 1, ist = nr ? p->rs[nr - 1] : 0;
    const size_t es = acl_dtype_size(x->dtype);
    double d[512];
    int64_t iv[512];
    int64_t pos = r0;
    while (pos < r1) {
        int64_t rrem = pos / inner, off = base;
        for (int k = nr - 2; k >= 0; k--) {
            off += (rrem % p->rd[k]) * p->rs[k];
            rrem /= p->rd[k];
        }
        int64_t j = pos % inner, n = inner - j;
        if (n > r1 - pos) n = r1 - pos;
        if (n > 512) n = 512;
        const char *src = x->base + (off + j * ist) * (int64_t)es;
        if (p->ints && pass == 0) acl_convert(src, x->dtype, ist, iv, ACL_INT64, 1, n);
        else acl_convert(src, x->dtype, ist, d, ACL_DOUBLE, 1, n);
        if (pass == 1) { /* var: squared deviations; logsumexp: exp(x - max) */
            for (int64_t k = 0; k < n; k++)
                d[k] = p->kind == RD_VAR ? (d[k] - center) * (d[k] - center) : exp(d[k] - center);
            a->m2 += lane_sum(d, n);
            a->n += n;
        } else if (p->kind == RD_LOGSUMEXP) {
            for (int64_t k = 0; k < n; k++) if (d[k] > a->v || isnan(d[k])) a->v = d[k];
            a->n += n;
        } else {
            acc_fold(p, a, d, iv, n, pos);
        }
        pos += n;
    }
}

/* one output's final accumulator: sequential when outputs are many, blocked partials (fixed cut) when few */
static void reduce_one(const rd_plan *p, const acl_view *x, int64_t o, rd_acc *a, double center, int pass,
                       bool blocked) {
    acc_init(p, a);
    if (pass == 1) a->m2 = 0;
    if (!blocked || p->R <= RD_BLOCK) {
        reduce_range(p, x, o, 0, p->R, a, center, pass);
        return;
    }
    const int64_t nb = (p->R + RD_BLOCK - 1) / RD_BLOCK;
    rd_acc *part = malloc(sizeof(rd_acc) * (size_t)nb);
    if (!part) { /* fall back to one sequence: same bytes only matter within a run */
        reduce_range(p, x, o, 0, p->R, a, center, pass);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        acc_init(p, &part[b]);
        part[b].m2 = 0;
        int64_t r1 = (b + 1) * RD_BLOCK < p->R ? (b + 1) * RD_BLOCK : p->R;
        reduce_range(p, x, o, b * RD_BLOCK, r1, &part[b], center, pass);
    }
    for (int64_t b = 0; b < nb; b++) {
        if (pass == 1) { a->m2 += part[b].m2; a->n += part[b].n; }
        else if (p->kind == RD_LOGSUMEXP) { if (part[b].v > a->v || isnan(part[b].v)) a->v = part[b].v; a->n += part[b].n; }
        else acc_merge(p, a, &part[b]);
    }
    free(part);
}

static void store(const acl_view *o, int64_t off, double v, int64_t iv, bool use_int) {
    char *dst = o->base + off * (int64_t)acl_dtype_size(o->dtype);
    if (use_int) acl_convert(&iv, ACL_INT64, 1, dst, o->dtype, 1, 1);
    else acl_convert(&v, ACL_DOUBLE, 1, dst, o->dtype, 1, 1);
}

static void finish(const rd_plan *p, const rd_acc *a, double *v, int64_t *iv, bool *use_int) {
    *use_int = false;
    *iv = a->i;
    switch (p->kind) {
    case RD_SUM: case RD_PROD: *use_int = p->ints; *v = a->v; break;
    case RD_MEAN: *v = (p->ints ? (double)a->i : a->v) / (double)p->R; break;
    case RD_MAX: case RD_MIN: *use_int = p->ints; *v = a->v; break;
    case RD_LOGSUM: *v = log(a->v); break;
    default: *v = a->v; break;
    }
}

/* the outputs of one reduction kind over every output index */
static void run_kind(const rd_plan *p, const acl_view *x, const acl_view *o0, const acl_view *o1) {
    const bool many = p->nout >= RD_FEW_OUTPUTS;
#pragma omp parallel for schedule(static) if (many && acl_parallel_worth(p->nout * p->R))
    for (int64_t o = 0; o < p->nout; o++) {
        int64_t off0 = 0, off1 = 0, rem = o;
        for (int k = p->nk - 1; k >= 0; k--) {
            int64_t i = rem % p->kd[k];
            rem /= p->kd[k];
            off0 += i * p->ost[0][k];
            off1 += i * p->ost[1][k];
        }
        rd_acc a;
        double v;
        int64_t iv;
        bool use_int;
        if (p->kind == RD_VAR) {
            rd_plan q = *p;
            q.kind = RD_SUM;
            q.ints = false;
            reduce_one(&q, x, o, &a, 0, 0, !many);
            double mean = a.v / (double)p->R;
            rd_acc b;
            reduce_one(p, x, o, &b, mean, 1, !many);
            double den = (double)(p->R - p->correction);
            double var = den > 0 ? b.m2 / den : (b.m2 > 0 ? INFINITY : NAN);
            if (p->R == 0) mean = NAN;
            store(o0, off0, p->std ? sqrt(var) : var, 0, false);
            if (p->two_out) store(o1, off1, mean, 0, false);
            continue;
        }
        if (p->kind == RD_LOGSUMEXP) {
            reduce_one(p, x, o, &a, 0, 0, !many);
            double m = a.v;
            if (isinf(m) || isnan(m)) {
                store(o0, off0, m, 0, false);
                continue;
            }
            rd_acc b;
            reduce_one(p, x, o, &b, m, 1, !many);
            store(o0, off0, m + log(b.m2), 0, false);
            continue;
        }
        reduce_one(p, x, o, &a, 0, 0, !many);
        finish(p, &a, &v, &iv, &use_int);
        if (p->index_only) {
            store(o0, off0, 0, a.idx < 0 ? 0 : a.idx, true);
            continue;
        }
        store(o0, off0, v, iv, use_int);
        if (p->with_index && o1) store(o1, off1, 0, a.idx < 0 ? 0 : a.idx, true);
    }
}

typedef struct { rd_plan p; bool minmax; } rd_params;

static aclnnStatus rd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rd_params *rp = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o0 = acl_exec_out(ex, 0);
    const acl_view *o1 = ex->n_out > 1 ? acl_exec_out(ex, 1) : NULL;
    if (rp->minmax) {
        rd_plan q = rp->p;
        q.kind = RD_MIN;
        run_kind(&q, x, o0, NULL);
        q.kind = RD_MAX;
        rd_plan q2 = q;
        memcpy(q2.ost[0], q.ost[1], sizeof q.ost[0]);
        run_kind(&q2, x, o1, NULL);
        return ACLNN_SUCCESS;
    }
    run_kind(&rp->p, x, o0, o1);
    return ACLNN_SUCCESS;
}

/* ---- planning ---- */

static const aclDataType k_float[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};
static const aclDataType k_num[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                    ACL_INT64, ACL_UINT8, ACL_BOOL};
static const aclDataType k_cmp[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                    ACL_INT64, ACL_UINT8, ACL_BOOL};

/* reduced-dims mask from an aclIntArray (NULL or empty: all dims unless noop) */
static aclnnStatus dims_mask(const aclTensor *x, const aclIntArray *dims, const char *name, bool empty_all,
                             unsigned *mask) {
    const int64_t r = (int64_t)x->ndim;
    *mask = 0;
    if (!dims || dims->size == 0) {
        if (empty_all) *mask = (1u << r) - 1;
        return ACLNN_SUCCESS;
    }
    for (uint64_t i = 0; i < dims->size; i++) {
        int64_t d = cp_wrap_dim(dims->v[i], r);
        ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "%s[%llu] = %lld is out of range for %lld dims.", name,
                    (unsigned long long)i, (long long)dims->v[i], (long long)r);
        ACLNN_CHECK(!(*mask >> d & 1u), ACLNN_ERR_PARAM_INVALID, "%s has the dim %lld twice.", name, (long long)d);
        *mask |= 1u << d;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_out_shape(const aclTensor *x, unsigned mask, bool keep, const aclTensor *out,
                                   const char *name) {
    int64_t want[ACL_MAX_VIEW_RANK];
    int n = 0;
    for (uint64_t k = 0; k < x->ndim; k++) {
        if (mask >> k & 1u) {
            if (keep) want[n++] = 1;
        } else {
            want[n++] = x->dims[k];
        }
    }
    bool same = (int)out->ndim == n;
    for (int k = 0; same && k < n; k++) same = out->dims[k] == want[k];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "%s has the wrong shape for this reduction (keepdim %d).", name,
                (int)keep);
    return ACLNN_SUCCESS;
}

typedef struct {
    int op, kind;
    const aclTensor *x;
    const char *xname;
    unsigned mask;
    bool keep;
    aclTensor *o0, *o1;
    const char *n0, *n1;
    bool with_index, index_only, std, two_out, minmax;
    int64_t correction;
} rd_req;

/* validation common to every reduction, then the executor */
static aclnnStatus rd_plan_publish(const rd_req *q, uint64_t *ws, aclOpExecutor **exo) {
    ACLNN_CHECK(q->x->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "%s has more than %d dims.", q->xname,
                ACL_MAX_VIEW_RANK);
    /* a reduction of every dim writes one element: out may be 0-d or any shape of one element ([1] in the docs) */
    const bool all = q->mask == (1u << q->x->ndim) - 1;
    if (!(all && acl_tensor_numel(q->o0) == 1)) ACL_TRY(check_out_shape(q->x, q->mask, q->keep, q->o0, q->n0));
    if (q->o1 && !(all && acl_tensor_numel(q->o1) == 1))
        ACL_TRY(check_out_shape(q->x, q->mask, q->keep, q->o1, q->n1));
    if (acl_tensor_empty(q->o0)) return acl_exec_noop(q->op, ws, exo);
    const bool empty_in = acl_tensor_empty(q->x);
    ACLNN_CHECK(!empty_in || !(q->kind == RD_MAX || q->kind == RD_MIN || q->minmax || q->index_only),
                ACLNN_ERR_PARAM_INVALID, "%s is empty: a max/min over zero elements has no value.", q->xname);
    aclOpExecutor *ex = acl_exec_create(q->op, rd_run, sizeof(rd_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, q->x, q->xname, !empty_in);
    if (!rc) rc = acl_exec_add_output(ex, q->o0, q->n0);
    if (!rc && q->o1) rc = acl_exec_add_output(ex, q->o1, q->n1);
    if (rc) return acl_exec_discard(ex, rc);
    rd_params *rp = ex->params;
    rd_plan *p = &rp->p;
    p->kind = q->kind;
    p->with_index = q->with_index;
    p->index_only = q->index_only;
    p->std = q->std;
    p->two_out = q->two_out;
    p->correction = q->correction;
    rp->minmax = q->minmax;
    p->ints = !acl_dt_is_float(q->x->dtype) && !acl_dt_is_complex(q->x->dtype) && q->kind != RD_LOGSUMEXP &&
              q->kind != RD_LOGSUM && q->kind != RD_NANSUM && q->kind != RD_VAR;
    const acl_view *x = &ex->io[0], *o0 = &ex->io[1], *o1 = q->o1 ? &ex->io[2] : NULL;
    p->nout = 1;
    p->R = 1;
    int j = 0; /* out dim index */
    for (int k = 0; k < x->ndim; k++) {
        if (all) { /* every dim reduced: out's own layout does not matter */
            p->rd[p->nr] = x->dims[k];
            p->rs[p->nr++] = x->strides[k];
            p->R *= x->dims[k];
            continue;
        }
        if (q->mask >> k & 1u) {
            p->rd[p->nr] = x->dims[k];
            p->rs[p->nr++] = x->strides[k];
            p->R *= x->dims[k];
            if (q->keep) j++;
        } else {
            p->kd[p->nk] = x->dims[k];
            p->ks[p->nk] = x->strides[k];
            p->ost[0][p->nk] = o0->strides[j];
            p->ost[1][p->nk] = o1 ? o1->strides[j] : 0;
            p->nout *= x->dims[k];
            p->nk++;
            j++;
        }
    }
    if (empty_in) { /* sums of nothing: the identity (prod 1, all true, ...) */
        p->R = 0;
        p->nr = 0;
    }
    return acl_exec_publish(ex, ws, exo);
}


static aclnnStatus reduce_dims_op(int op, int kind, const aclTensor *self, const aclIntArray *dims, bool keep,
                                  aclTensor *out, const aclDataType *list, int nlist, bool empty_all,
                                  uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    unsigned mask;
    ACL_TRY(dims_mask(self, dims, "dim", empty_all, &mask));
    rd_req q = {op, kind, self, "self", mask, keep, out, NULL, "out", NULL, false, false, false, false, false, 0};
    return rd_plan_publish(&q, ws, exo);
}

aclnnStatus opws_ReduceSum(const aclTensor *self, const aclIntArray *dims, bool keepDims,
                           aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dims, "dims"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    (void)dtype;
    return reduce_dims_op(ACL_OP_ReduceSum, RD_SUM, self, dims, keepDims, out, k_num, ACL_COUNT_OF(k_num), true,
                          workspaceSize, executor);
}

aclnnStatus opws_ReduceNansum(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                              aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    (void)dtype;
    return reduce_dims_op(ACL_OP_ReduceNansum, RD_NANSUM, self, dim, keepDim, out, k_num, ACL_COUNT_OF(k_num), true,
                          workspaceSize, executor);
}

aclnnStatus opws_Mean(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype,
                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    (void)dtype;
    return reduce_dims_op(ACL_OP_Mean, RD_MEAN, self, dim, keepDim, out, k_float, ACL_COUNT_OF(k_float), true,
                          workspaceSize, executor);
}

aclnnStatus opws_MeanV2(const aclTensor *self, const aclIntArray *dim, bool keepDim,
                        bool noopWithEmptyAxes, aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_MeanV2, RD_MEAN, self, dim, keepDim, out, k_float, ACL_COUNT_OF(k_float),
                          !noopWithEmptyAxes, workspaceSize, executor);
}

aclnnStatus opws_Amax(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_Amax, RD_MAX, self, dim, keepDim, out, k_cmp, ACL_COUNT_OF(k_cmp), true,
                          workspaceSize, executor);
}

aclnnStatus opws_Amin(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_Amin, RD_MIN, self, dim, keepDim, out, k_cmp, ACL_COUNT_OF(k_cmp), true,
                          workspaceSize, executor);
}

aclnnStatus opws_MaxV2(const aclTensor *self, const aclIntArray *dims, bool keepDims,
                       bool noopWithEmptyDims, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_MaxV2, RD_MAX, self, dims, keepDims, out, k_cmp, ACL_COUNT_OF(k_cmp),
                          !noopWithEmptyDims, workspaceSize, executor);
}

aclnnStatus opws_All(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_All, RD_ALL, self, dim, keepdim, out, k_num, ACL_COUNT_OF(k_num), true,
                          workspaceSize, executor);
}

aclnnStatus opws_Any(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_Any, RD_ANY, self, dim, keepdim, out, k_num, ACL_COUNT_OF(k_num), true,
                          workspaceSize, executor);
}

aclnnStatus opws_LogSumExp(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return reduce_dims_op(ACL_OP_LogSumExp, RD_LOGSUMEXP, self, dim, keepDim, out, k_num, ACL_COUNT_OF(k_num), true,
                          workspaceSize, executor);
}

aclnnStatus opws_ReduceLogSum(const aclTensor *data, const aclIntArray *axes, bool keepDims,
                              bool noopWithEmptyAxes, aclTensor *reduce, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    NN(data, "data");
    ACL_TRY(acl_check_int_array(axes, "axes"));
    NN(reduce, "reduce");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(data, k_float, ACL_COUNT_OF(k_float), "data"));
    unsigned mask;
    ACL_TRY(dims_mask(data, axes, "axes", !noopWithEmptyAxes, &mask));
    rd_req q = {ACL_OP_ReduceLogSum, RD_LOGSUM, data, "data", mask, keepDims, reduce, NULL, "reduce", NULL,
                false, false, false, false, false, 0};
    return rd_plan_publish(&q, workspaceSize, executor);
}

static aclnnStatus all_dims(int op, int kind, const aclTensor *self, aclTensor *out, const aclDataType *l, int n,
                            uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(ws, exo);
    ACL_TRY(acl_check_dtype_in(self, l, n, "self"));
    rd_req q = {op, kind, self, "self", (1u << self->ndim) - 1, false, out, NULL, "out", NULL, false, false, false,
                false, false, 0};
    return rd_plan_publish(&q, ws, exo);
}

aclnnStatus opws_Max(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    return all_dims(ACL_OP_Max, RD_MAX, self, out, k_cmp, ACL_COUNT_OF(k_cmp), workspaceSize, executor);
}
aclnnStatus opws_Min(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    return all_dims(ACL_OP_Min, RD_MIN, self, out, k_cmp, ACL_COUNT_OF(k_cmp), workspaceSize, executor);
}
aclnnStatus opws_Prod(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)dtype;
    return all_dims(ACL_OP_Prod, RD_PROD, self, out, k_num, ACL_COUNT_OF(k_num), workspaceSize, executor);
}

static aclnnStatus one_dim(int op, int kind, const aclTensor *self, int64_t dim, bool keep, aclTensor *o0,
                           const char *n0, aclTensor *o1, const char *n1, bool with_index, bool index_only,
                           const aclDataType *l, int nl, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(o0, n0);
    if (n1) NN(o1, n1);
    WS_EX(ws, exo);
    ACL_TRY(acl_check_dtype_in(self, l, nl, "self"));
    int64_t d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range for self's %llu dims.", (long long)dim,
                (unsigned long long)self->ndim);
    unsigned mask = self->ndim ? 1u << d : 0;
    rd_req q = {op, kind, self, "self", mask, keep, o0, o1, n0, n1, with_index, index_only, false, false, false, 0};
    return rd_plan_publish(&q, ws, exo);
}

aclnnStatus opws_ProdDim(const aclTensor *self, int64_t dim, bool keepDim, const aclDataType dtype,
                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)dtype;
    return one_dim(ACL_OP_ProdDim, RD_PROD, self, dim, keepDim, out, "out", NULL, NULL, false, false, k_num,
                   ACL_COUNT_OF(k_num), workspaceSize, executor);
}
aclnnStatus opws_MaxDim(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                        aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return one_dim(ACL_OP_MaxDim, RD_MAX, self, dim, keepdim, out, "out", indices, "indices", true, false, k_cmp,
                   ACL_COUNT_OF(k_cmp), workspaceSize, executor);
}
aclnnStatus opws_MinDim(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                        aclTensor *indices, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return one_dim(ACL_OP_MinDim, RD_MIN, self, dim, keepdim, out, "out", indices, "indices", true, false, k_cmp,
                   ACL_COUNT_OF(k_cmp), workspaceSize, executor);
}
aclnnStatus opws_ArgMax(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return one_dim(ACL_OP_ArgMax, RD_MAX, self, dim, keepdim, out, "out", NULL, NULL, false, true, k_cmp,
                   ACL_COUNT_OF(k_cmp), workspaceSize, executor);
}
aclnnStatus opws_ArgMin(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return one_dim(ACL_OP_ArgMin, RD_MIN, self, dim, keepdim, out, "out", NULL, NULL, false, true, k_cmp,
                   ACL_COUNT_OF(k_cmp), workspaceSize, executor);
}
aclnnStatus opws_AminmaxDim(const aclTensor *self, const int64_t dim, bool keepDim, aclTensor *minOut,
                            aclTensor *maxOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(minOut, "minOut");
    NN(maxOut, "maxOut");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_cmp, ACL_COUNT_OF(k_cmp), "self"));
    int64_t d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range.", (long long)dim);
    rd_req q = {ACL_OP_AminmaxDim, RD_MIN, self, "self", self->ndim ? 1u << d : 0, keepDim, minOut, maxOut,
                "minOut", "maxOut", false, false, false, false, true, 0};
    return rd_plan_publish(&q, workspaceSize, executor);
}
aclnnStatus opws_Aminmax(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *minOut,
                         aclTensor *maxOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(minOut, "minOut");
    NN(maxOut, "maxOut");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_cmp, ACL_COUNT_OF(k_cmp), "self"));
    unsigned mask;
    ACL_TRY(dims_mask(self, dim, "dim", true, &mask));
    rd_req q = {ACL_OP_Aminmax, RD_MIN, self, "self", mask, keepDim, minOut, maxOut, "minOut", "maxOut", false, false,
                false, false, true, 0};
    return rd_plan_publish(&q, workspaceSize, executor);
}
aclnnStatus opws_AminmaxAll(const aclTensor *self, aclTensor *minOut, aclTensor *maxOut,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(minOut, "minOut");
    NN(maxOut, "maxOut");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_cmp, ACL_COUNT_OF(k_cmp), "self"));
    /* the outputs are 0-d or hold a single element */
    unsigned mask = (1u << self->ndim) - 1;
    bool keep = minOut->ndim == self->ndim && self->ndim > 0;
    rd_req q = {ACL_OP_AminmaxAll, RD_MIN, self, "self", mask, keep, minOut, maxOut, "minOut", "maxOut", false, false,
                false, false, true, 0};
    return rd_plan_publish(&q, workspaceSize, executor);
}

static aclnnStatus var_op(int op, const aclTensor *self, const aclIntArray *dim, int64_t correction, bool keep,
                          aclTensor *o0, const char *n0, aclTensor *o1, const char *n1, bool std, uint64_t *ws,
                          aclOpExecutor **exo) {
    NN(self, "self");
    NN(o0, n0);
    if (n1) NN(o1, n1);
    WS_EX(ws, exo);
    ACL_TRY(acl_check_dtype_in(self, k_float, ACL_COUNT_OF(k_float), "self"));
    unsigned mask;
    ACL_TRY(dims_mask(self, dim, "dim", true, &mask));
    rd_req q = {op, RD_VAR, self, "self", mask, keep, o0, o1, n0, n1, false, false, std, o1 != NULL, false, correction};
    return rd_plan_publish(&q, ws, exo);
}

aclnnStatus opws_Std(const aclTensor *self, const aclIntArray *dim, const int64_t correction,
                     bool keepdim, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return var_op(ACL_OP_Std, self, dim, correction, keepdim, out, "out", NULL, NULL, true, workspaceSize, executor);
}
aclnnStatus opws_Var(const aclTensor *self, const aclIntArray *dim, bool unbiased, bool keepdim,
                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return var_op(ACL_OP_Var, self, dim, unbiased ? 1 : 0, keepdim, out, "out", NULL, NULL, false, workspaceSize,
                  executor);
}
aclnnStatus opws_VarMean(const aclTensor *self, const aclIntArray *dim, int64_t correction,
                         bool keepdim, aclTensor *varOut, aclTensor *meanOut, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    return var_op(ACL_OP_VarMean, self, dim, correction, keepdim, varOut, "varOut", meanOut, "meanOut", false,
                  workspaceSize, executor);
}
aclnnStatus opws_StdMeanCorrection(const aclTensor *self, const aclIntArray *dim, int64_t correction,
                                   bool keepdim, aclTensor *stdOut, aclTensor *meanOut,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    return var_op(ACL_OP_StdMeanCorrection, self, dim, correction, keepdim, stdOut, "stdOut", meanOut, "meanOut", true,
                  workspaceSize, executor);
}

static aclnnStatus global_pool(int op, int kind, const aclTensor *self, aclTensor *out, uint64_t *ws,
                               aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(ws, exo);
    ACL_TRY(acl_check_dtype_in(self, k_float, ACL_COUNT_OF(k_float), "self"));
    ACLNN_CHECK(self->ndim >= 3 && self->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "self must have 3 to %d dims (N, C, spatial...).", ACL_MAX_VIEW_RANK);
    unsigned mask = ((1u << self->ndim) - 1) & ~3u;
    rd_req q = {op, kind, self, "self", mask, true, out, NULL, "out", NULL, false, false, false, false, false, 0};
    return rd_plan_publish(&q, ws, exo);
}
aclnnStatus opws_GlobalMaxPool(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    return global_pool(ACL_OP_GlobalMaxPool, RD_MAX, self, out, workspaceSize, executor);
}
aclnnStatus opws_GlobalAveragePool(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    return global_pool(ACL_OP_GlobalAveragePool, RD_MEAN, self, out, workspaceSize, executor);
}
