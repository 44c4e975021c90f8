/* The softmax family over one dim: Softmax, LogSoftmax and their backward ops (ops-nn activation/softmax_v2,
 * log_softmax_v2, softmax_grad, log_softmax_grad).
 *
 * Validation follows each op_api source check by check (its own order: LogSoftmax checks dim before the dtypes,
 * LogSoftmaxBackward checks `output` for NULL first and the shapes before dim); the dtype lists are the table's
 * (tools/optable/nn_activation.py, ACL_DT_LIST_<Name>). Compute (after the op's own Cast to the compute dtype):
 * f32/f16/bf16 in fp32 by the fixed-lane row passes of kernels/softmax_rows.h - each line along `dim` read as fp32
 * (any strides), or, for a dim followed by >= 16 contiguous positions, tiles of 16 neighbouring lines computed lane
 * by lane - rounded once to the compute dtype and cast to out's dtype (the op's final Cast); f64 in double. Each
 * line is owned by one thread: the same bytes for any OMP_NUM_THREADS and any PYACLNN_SIMD level. */
#include <math.h>

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "kernels/softmax_rows.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

enum { SM_FWD, SM_LOG, SM_BWD, SM_LOG_BWD };

typedef struct {
    int kind, dim;
    aclDataType cdt; /* the dtype the kernel computes in (its input after the op's Cast) */
} sm_params;

/* double (f64): one line of n elements at x[0], x[step], ... (g: the gradient line for the backward kinds); the
 * result replaces x. */
static void sm_line_f64(int kind, double *x, const double *g, int64_t step, int64_t n) {
    if (kind == SM_FWD || kind == SM_LOG) {
        double m = x[0];
        bool nan = false;
        for (int64_t i = 0; i < n; i++) {
            const double v = x[i * step];
            if (v != v) nan = true;
            else if (v > m || m != m) m = v;
        }
        if (nan) {
            for (int64_t i = 0; i < n; i++) x[i * step] = NAN;
            return;
        }
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += exp(x[i * step] - m);
        if (kind == SM_FWD)
            for (int64_t i = 0; i < n; i++) x[i * step] = exp(x[i * step] - m) / s;
        else {
            const double ls = log(s);
            for (int64_t i = 0; i < n; i++) x[i * step] = x[i * step] - m - ls;
        }
    } else if (kind == SM_BWD) { /* y * (g - sum(g * y)) */
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += g[i * step] * x[i * step];
        for (int64_t i = 0; i < n; i++) x[i * step] = x[i * step] * (g[i * step] - s);
    } else { /* g - exp(y) * sum(g) */
        double s = 0;
        for (int64_t i = 0; i < n; i++) s += g[i * step];
        for (int64_t i = 0; i < n; i++) x[i * step] = g[i * step] - exp(x[i * step]) * s;
    }
}

static aclnnStatus sm_run_f64(aclOpExecutor *ex, const sm_params *p) {
    const bool bwd = p->kind == SM_BWD || p->kind == SM_LOG_BWD;
    /* forward: in 0 is self; backward: in 0 gradOutput, in 1 output (the line the result replaces) */
    const acl_view *x = acl_exec_in(ex, bwd ? 1 : 0), *o = acl_exec_out(ex, 0);
    const int64_t n = md_numel(x);
    double *buf = md_load_via(x, p->cdt, ACL_DOUBLE);
    double *g = bwd ? md_load_via(acl_exec_in(ex, 0), p->cdt, ACL_DOUBLE) : NULL;
    if (!buf || (bwd && !g)) {
        free(buf);
        free(g);
        return OOM;
    }
    int64_t inner = 1;
    const int64_t len = x->ndim ? x->dims[p->dim] : 1;
    for (int k = p->dim + 1; k < x->ndim; k++) inner *= x->dims[k];
    const int64_t lines = n / len;
    ACL_FOR(acl_parallel_worth(n) && lines > 1, l, 0, lines, {
        const int64_t b = (l / inner) * len * inner + l % inner;
        sm_line_f64(p->kind, buf + b, g ? g + b : NULL, inner, len);
    });
    aclnnStatus rc = md_store_via(buf, ACL_DOUBLE, p->cdt, o);
    free(buf);
    free(g);
    return rc;
}

/* whether the dims after dim are row-major with unit innermost stride in view v */
static bool sm_inner_contig(const acl_view *v, int dim) {
    int64_t s = 1;
    for (int d = v->ndim - 1; d > dim; d--) {
        if (v->dims[d] != 1 && v->strides[d] != s) return false;
        s *= v->dims[d];
    }
    return true;
}

static void sm_tile_in(const acl_view *v, int64_t off, int64_t st, int64_t len, int64_t cnt, float *t) {
    const size_t es = acl_dtype_size(v->dtype);
    for (int64_t i = 0; i < len; i++) {
        const char *p = v->base + (off + i * st) * (int64_t)es;
        float *r = t + i * 16;
        if (v->dtype == ACL_FLOAT) memcpy(r, p, (size_t)cnt * sizeof(float));
        else if (v->dtype == ACL_BF16)
            for (int64_t c = 0; c < cnt; c++) r[c] = acl_bf16_to_f32(((const uint16_t *)p)[c]);
        else
            for (int64_t c = 0; c < cnt; c++) r[c] = acl_f16_to_f32(((const uint16_t *)p)[c]);
    }
}

static void sm_tile_out(const acl_view *v, int64_t off, int64_t st, int64_t len, int64_t cnt, const float *t) {
    const size_t es = acl_dtype_size(v->dtype);
    for (int64_t i = 0; i < len; i++) {
        char *p = v->base + (off + i * st) * (int64_t)es;
        const float *r = t + i * 16;
        if (v->dtype == ACL_FLOAT) memcpy(p, r, (size_t)cnt * sizeof(float));
        else if (v->dtype == ACL_BF16)
            for (int64_t c = 0; c < cnt; c++) ((uint16_t *)p)[c] = acl_f32_to_bf16(r[c]);
        else
            for (int64_t c = 0; c < cnt; c++) ((uint16_t *)p)[c] = acl_f32_to_f16(r[c]);
    }
}

/* Tile t of sm_run_cols, with the calling thread's scratch t0 (2 * len * 16 floats). */
static void sm_cols_tile(const acl_view *const v[3], const smr_ops *k, int dim, int64_t len, int64_t inner, int64_t tpo,
                         bool bwd, bool lg, float *t0, int64_t t) {
    const acl_view *x = v[0];
    float *t1 = t0 + len * 16;
    const int64_t o = t / tpo, j0 = (t % tpo) * 16, cnt = inner - j0 < 16 ? inner - j0 : 16;
    int64_t off[3] = {0, 0, 0}, rem = o;
    for (int d = dim - 1; d >= 0; d--) {
        const int64_t i = rem % x->dims[d];
        rem /= x->dims[d];
        for (int q = 0; q < 3; q++)
            if (v[q]) off[q] += i * v[q]->strides[d];
    }
    sm_tile_in(v[0], off[0] + j0, v[0]->strides[dim], len, cnt, t0);
    if (bwd) {
        sm_tile_in(v[1], off[1] + j0, v[1]->strides[dim], len, cnt, t1);
        k->cols_bwd(t1, t0, t0, len, lg);
    } else {
        k->cols_fwd(t0, t0, len, lg);
    }
    sm_tile_out(v[2], off[2] + j0, v[2]->strides[dim], len, cnt, t0);
}

/* A dim other than the last whose following dims are contiguous in every view, all views in the compute dtype:
 * tiles of 16 neighbouring lines (len x 16 floats) computed lane by lane (kernels/softmax_rows.inc smr_cols_*),
 * each lane reduced in line order. Tiles are owned by one thread each. Returns false when the case does not
 * apply (the line path runs instead). */
static bool sm_run_cols(aclOpExecutor *ex, const sm_params *p, aclnnStatus *rc) {
    const bool bwd = p->kind == SM_BWD || p->kind == SM_LOG_BWD, lg = p->kind == SM_LOG || p->kind == SM_LOG_BWD;
    const acl_view *v[3] = {acl_exec_in(ex, bwd ? 1 : 0), bwd ? acl_exec_in(ex, 0) : NULL, acl_exec_out(ex, 0)};
    const acl_view *x = v[0];
    const int nd = x->ndim, dim = p->dim;
    if (nd < 2 || dim >= nd - 1) return false;
    int64_t inner = 1, outer = 1;
    for (int d = dim + 1; d < nd; d++) inner *= x->dims[d];
    for (int d = 0; d < dim; d++) outer *= x->dims[d];
    const int64_t len = x->dims[dim];
    if (inner < 16 || len > 65536) return false;
    for (int t = 0; t < 3; t++)
        if (v[t] && (v[t]->dtype != p->cdt || !sm_inner_contig(v[t], dim))) return false;
    for (int d = 0; d < dim; d++) /* an output whose lines share memory: the line path (in order) */
        if (x->dims[d] > 1 && v[2]->strides[d] == 0) return false;
    if (v[2]->strides[dim] == 0 && len > 1) return false;
    const int64_t tpo = (inner + 15) / 16, tiles = outer * tpo, n = md_numel(x);
    const bool par = acl_parallel_worth(n) && tiles > 1;
    const int nthr = par ? acl_max_threads() : 1;
    const size_t per = (size_t)len * 16 * sizeof(float) * 2 + 64;
    float *scratch = acl_team_alloc(nthr, (int64_t)per, 1, 1); /* zeroed: the unused lanes of a partial tile are 0 */
    if (!scratch) {
        *rc = OOM;
        return true;
    }
    const smr_ops *k = smr_get();
    if (par) {
#pragma omp parallel num_threads(nthr)
        {
            float *t0 = (float *)((char *)scratch + per * (size_t)omp_get_thread_num());
#pragma omp for schedule(static)
            for (int64_t t = 0; t < tiles; t++) sm_cols_tile(v, k, dim, len, inner, tpo, bwd, lg, t0, t);
        }
    } else { /* no OpenMP region below the grain (a team of one costs more than a tiny call's work) */
        for (int64_t t = 0; t < tiles; t++) sm_cols_tile(v, k, dim, len, inner, tpo, bwd, lg, (float *)scratch, t);
    }
    free(scratch);
    *rc = ACLNN_SUCCESS;
    return true;
}

typedef struct {
    const acl_view *v[3];
    const smr_ops *k;
    int64_t st[3];
    size_t es[3];
    int dim;
    bool bwd, lg;
    aclDataType cdt;
} sm_lines_ctx;

/* One line of sm_run_f32, with the calling thread's scratch. */
static void sm_f32_line(const sm_lines_ctx *c, char *mine, int64_t len, int64_t l) {
    const acl_view *const *v = c->v, *x = v[0], *o = v[2];
    const int nd = x->ndim, dim = c->dim;
    const smr_ops *k = c->k;
    const bool bwd = c->bwd, lg = c->lg;
    const aclDataType cdt = c->cdt;
    const int64_t *st = c->st;
    const size_t *es = c->es;
    float *f0 = (float *)mine, *f1 = f0 + len, *f2 = f1 + len;
    uint16_t *h = (uint16_t *)(f2 + len);
    int64_t off[3] = {0, 0, 0}, rem = l;
    for (int d = nd - 1; d >= 0; d--) {
        if (d == dim) continue;
        const int64_t i = rem % x->dims[d];
        rem /= x->dims[d];
        for (int t = 0; t < 3; t++)
            if (v[t]) off[t] += i * v[t]->strides[d];
    }
    const void *xp = v[0]->base + off[0] * (int64_t)es[0];
    void *op = o->base + off[2] * (int64_t)es[2];
    if (!bwd && cdt == ACL_BF16 && x->dtype == ACL_BF16 && o->dtype == ACL_BF16 && st[0] == 1 && st[2] == 1) {
        smr_forward_bf16(k, xp, op, f0, len, lg); /* fused conversions, the same bytes */
        return;
    }
    if (bwd && cdt == ACL_BF16 && x->dtype == ACL_BF16 && v[1]->dtype == ACL_BF16 && o->dtype == ACL_BF16 &&
        st[0] == 1 && st[1] == 1 && st[2] == 1) { /* conversions fused into the loads and the store */
        smr_backward_bf16(k, (const uint16_t *)(v[1]->base + off[1] * (int64_t)es[1]), xp, op, len, lg);
        return;
    }
    const bool direct = o->dtype == ACL_FLOAT && cdt == ACL_FLOAT && st[2] == 1;
    float *of = direct ? (float *)op : f2;
    const float *xf = smr_line_in(k, xp, x->dtype, st[0], len, cdt, f0, h);
    if (bwd) {
        const float *gf = smr_line_in(k, v[1]->base + off[1] * (int64_t)es[1], v[1]->dtype, st[1], len, cdt, f1, h);
        smr_backward(k, gf, xf, of, len, lg);
    } else {
        smr_forward(k, xf, of, len, lg);
    }
    smr_line_out(k, of, op, o->dtype, st[2], len, cdt, h);
}

/* f32/f16/bf16: each line along dim (any strides) is read as fp32 (after the op's cast to cdt), computed by the
 * fixed-lane row passes of kernels/softmax_rows.h and rounded once to cdt, then cast into out. A contiguous f32
 * line is read and written in place. Lines are owned by one thread each; below the parallel grain the lines run on
 * the calling thread with no OpenMP region (a team of one cost ~0.25 us, a fifth of a tiny call). */
static aclnnStatus sm_run_f32(aclOpExecutor *ex, const sm_params *p) {
    const bool bwd = p->kind == SM_BWD || p->kind == SM_LOG_BWD, lg = p->kind == SM_LOG || p->kind == SM_LOG_BWD;
    sm_lines_ctx c = {{acl_exec_in(ex, bwd ? 1 : 0), bwd ? acl_exec_in(ex, 0) : NULL, acl_exec_out(ex, 0)},
                      smr_get(), {1, 1, 1}, {0, 0, 0}, p->dim, bwd, lg, p->cdt};
    const acl_view *x = c.v[0], *o = c.v[2];
    const int nd = x->ndim, dim = p->dim;
    const int64_t len = nd ? x->dims[dim] : 1, n = md_numel(x), lines = n / len;
    for (int t = 0; t < 3; t++)
        if (c.v[t]) {
            c.st[t] = nd ? c.v[t]->strides[dim] : 1;
            c.es[t] = acl_dtype_size(c.v[t]->dtype);
        }
    /* an output whose lines share memory (a 0 stride) is written by one thread, in line order */
    bool par = acl_parallel_worth(n) && lines > 1;
    for (int k = 0; k < nd; k++)
        if (k != dim && o->dims[k] > 1 && o->strides[k] == 0) par = false;
    const int nthr = par ? acl_max_threads() : 1;
    const size_t per = ((size_t)len * (3 * sizeof(float) + sizeof(uint16_t)) + 127) & ~(size_t)63; /* 64-byte aligned slices */
    if ((uint64_t)len > (SIZE_MAX / 16) / (uint64_t)nthr) return OOM;
    char *scratch = acl_team_alloc(nthr, (int64_t)per, 1, 0); /* per: whole lines; line-aligned */
    if (!scratch) return OOM;
    if (par) {
#pragma omp parallel num_threads(nthr)
        {
            char *mine = scratch + per * (size_t)omp_get_thread_num();
#pragma omp for schedule(static)
            for (int64_t l = 0; l < lines; l++) sm_f32_line(&c, mine, len, l);
        }
    } else {
        for (int64_t l = 0; l < lines; l++) sm_f32_line(&c, scratch, len, l);
    }
    free(scratch);
    return ACLNN_SUCCESS;
}

static aclnnStatus sm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sm_params *p = ex->params;
    if (p->cdt == ACL_DOUBLE) return sm_run_f64(ex, p);
    aclnnStatus rc;
    if (sm_run_cols(ex, p, &rc)) return rc;
    return sm_run_f32(ex, p);
}

static aclnnStatus sm_exec(int op, int kind, const aclTensor *a, const char *an, const aclTensor *b,
                           const char *bn, int64_t dim, aclDataType cdt, aclTensor *out, uint64_t *ws,
                           aclOpExecutor **exo) {
    const int64_t r = (int64_t)a->ndim;
    aclOpExecutor *ex = acl_exec_create(op, sm_run, sizeof(sm_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, a, an, true);
    if (!rc && b) rc = acl_exec_add_input(ex, b, bn, true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(sm_params *)ex->params = (sm_params){kind, (int)(r ? (dim < 0 ? dim + r : dim) : 0), cdt};
    return acl_exec_publish(ex, ws, exo);
}

/* dim in [-rank, rank - 1], a 0-d tensor counting as 1-d */
static aclnnStatus sm_check_dim(const aclTensor *t, int64_t dim) {
    const int64_t r = t->ndim ? (int64_t)t->ndim : 1;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of the range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Softmax(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Softmax, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Softmax, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Softmax, "out"));
    ACL_TRY(sm_check_dim(self, dim));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    /* computed in self's dtype, then cast to out's */
    return sm_exec(ACL_OP_Softmax, SM_FWD, self, "self", NULL, NULL, dim, self->dtype, out, workspaceSize, executor);
}

aclnnStatus opws_LogSoftmax(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                            aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(sm_check_dim(self, dim));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_LogSoftmax, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_LogSoftmax, "out"));
    /* upstream's promotion check (out's dtype castable to self's and out's) holds for any two of the float list */
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_LogSoftmax, workspaceSize, executor);
    /* self is cast to out's dtype and computed there */
    return sm_exec(ACL_OP_LogSoftmax, SM_LOG, self, "self", NULL, NULL, dim, out->dtype, out, workspaceSize,
                   executor);
}

aclnnStatus opws_SoftmaxBackward(const aclTensor *gradOutput, const aclTensor *output, int64_t dim, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(output, "output");
    NN(out, "out");
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(output))
        return acl_exec_noop(ACL_OP_SoftmaxBackward, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_SoftmaxBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_SoftmaxBackward, "output"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(sm_check_dim(gradOutput, dim));
    ACL_TRY(md_check_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", out, "out"));
    /* out's dtype is not checked upstream: the result is cast to it */
    return sm_exec(ACL_OP_SoftmaxBackward, SM_BWD, gradOutput, "gradOutput", output, "output", dim,
                   gradOutput->dtype, out, workspaceSize, executor);
}

aclnnStatus opws_LogSoftmaxBackward(const aclTensor *gradOutput, const aclTensor *output, int64_t dim,
                                    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(output, "output");
    NN(gradOutput, "gradOutput");
    NN(out, "out");
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(output))
        return acl_exec_noop(ACL_OP_LogSoftmaxBackward, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_LogSoftmaxBackward, "output"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_LogSoftmaxBackward, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(md_check_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(md_check_max_dim(output, "output"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", out, "out"));
    ACL_TRY(sm_check_dim(gradOutput, dim));
    return sm_exec(ACL_OP_LogSoftmaxBackward, SM_LOG_BWD, gradOutput, "gradOutput", output, "output", dim,
                   gradOutput->dtype, out, workspaceSize, executor);
}
