/* Sort, Argsort, SearchSorted(s), Bincount, Histc, OneHot, MaskedSelect, InplaceFillDiagonal, IsInScalarTensor:
 * dense computations (dense.h), serial and stable (deterministic), PyTorch CPU's rules (NaN sorts as the largest
 * value; searchsorted's left/right sides; histc's closed last bin). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"


static const aclDataType k_real[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                     ACL_INT64, ACL_UINT8, ACL_BOOL};
static const aclDataType k_int[] = {ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL};
#define NREAL ACL_COUNT_OF(k_real)

/* ================================================================ sort */
typedef struct { int dim; bool desc, values; } sort_params;
typedef struct { double v; int64_t i; } sort_item;

static int cmp_asc(const void *a, const void *b) {
    const sort_item *x = a, *y = b;
    bool xn = isnan(x->v), yn = isnan(y->v);
    if (xn != yn) return xn ? 1 : -1; /* NaN is the largest */
    if (!xn && x->v != y->v) return x->v < y->v ? -1 : 1;
    return x->i < y->i ? -1 : (x->i > y->i);
}
static int cmp_desc(const void *a, const void *b) {
    const sort_item *x = a, *y = b;
    bool xn = isnan(x->v), yn = isnan(y->v);
    if (xn != yn) return xn ? -1 : 1;
    if (!xn && x->v != y->v) return x->v > y->v ? -1 : 1;
    return x->i < y->i ? -1 : (x->i > y->i);
}

static aclnnStatus sort_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sort_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0);
    const acl_view *ov = p->values ? acl_exec_out(ex, 0) : NULL, *oi = acl_exec_out(ex, p->values ? 1 : 0);
    int64_t outer, len, inner;
    dn_split(x, p->dim, &outer, &len, &inner);
    double *d = dn_load(x);
    int64_t *idx = malloc(sizeof(int64_t) * (size_t)(dn_numel(x) + 1));
    sort_item *it = malloc(sizeof(sort_item) * (size_t)(len + 1));
    if (!d || !idx || !it) { free(d); free(idx); free(it); return OOM; }
    for (int64_t a = 0; a < outer; a++)
        for (int64_t n = 0; n < inner; n++) {
            for (int64_t i = 0; i < len; i++) it[i] = (sort_item){d[(a * len + i) * inner + n], i};
            qsort(it, (size_t)len, sizeof *it, p->desc ? cmp_desc : cmp_asc);
            for (int64_t i = 0; i < len; i++) {
                d[(a * len + i) * inner + n] = it[i].v;
                idx[(a * len + i) * inner + n] = it[i].i;
            }
        }
    if (ov) dn_store(d, ov);
    dn_store_i64(idx, oi);
    free(d);
    free(idx);
    free(it);
    return ACLNN_SUCCESS;
}

static aclnnStatus sort_plan(int op, const aclTensor *self, int64_t dim, bool desc, aclTensor *values,
                             aclTensor *indices, const char *iname, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACLNN_CHECK(self->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "self has too many dims.");
    int64_t d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range.", (long long)dim);
    if (values) {
        ACL_TRY(acl_check_same_shape(self, "self", values, "valuesOut"));
        ACL_TRY(acl_check_same_dtype(self, "self", values, "valuesOut"));
    }
    ACL_TRY(acl_check_same_shape(self, "self", indices, iname));
    ACLNN_CHECK(acl_dt_is_int(indices->dtype), ACLNN_ERR_PARAM_INVALID, "%s must have an integer dtype.", iname);
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    const aclTensor *ins[] = {self}, *outs[] = {values, indices};
    const char *inn[] = {"self"}, *outn[] = {"valuesOut", iname};
    void *pp;
    ACL_TRY(dn_exec(op, sort_run, sizeof(sort_params), ins, inn, 1, values ? outs : outs + 1, values ? outn : outn + 1,
                    values ? 2 : 1, ws, exo, &pp));
    *(sort_params *)pp = (sort_params){(int)d, desc, values != NULL};
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Sort(const aclTensor *self, bool stable, int64_t dim, bool descending,
                      aclTensor *valuesOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    (void)stable; /* always stable: equal keys keep their order */
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    WS_EX(workspaceSize, executor);
    return sort_plan(ACL_OP_Sort, self, dim, descending, valuesOut, indicesOut, "indicesOut", workspaceSize, executor);
}

aclnnStatus opws_Argsort(const aclTensor *self, int64_t dim, bool descending, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return sort_plan(ACL_OP_Argsort, self, dim, descending, NULL, out, "out", workspaceSize, executor);
}

/* ================================================================ searchsorted */
typedef struct { bool right, scalar, has_sorter; double value; } ss_params;

static int64_t bound(const double *seq, const int64_t *sorter, int64_t n, double v, bool right) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        /* a sorter entry outside [0, n) is the caller's bug (the device reads garbage); clamped, never read past */
        int64_t at = sorter ? sorter[mid] : mid;
        at = at < 0 ? 0 : at >= n ? n - 1 : at;
        double s = seq[at];
        /* NaN sorts last: every number is below a NaN value; a NaN in the sequence is above every value */
        bool go;
        if (right) go = isnan(v) ? true : (!isnan(s) && s <= v);
        else go = isnan(v) ? !isnan(s) : (!isnan(s) && s < v);
        if (go) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static aclnnStatus ss_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ss_params *p = ex->params;
    const acl_view *seq = acl_exec_in(ex, 0);
    const acl_view *vals = p->scalar ? NULL : acl_exec_in(ex, 1);
    const acl_view *sorter = p->has_sorter ? acl_exec_in(ex, p->scalar ? 1 : 2) : NULL;
    const acl_view *o = acl_exec_out(ex, 0);
    double *s = dn_load(seq), *v = vals ? dn_load(vals) : NULL;
    int64_t *so = sorter ? dn_load_i64(sorter) : NULL;
    const int64_t nv = vals ? dn_numel(vals) : 1, n = seq->ndim ? seq->dims[seq->ndim - 1] : 1;
    const int64_t rows = n ? dn_numel(seq) / n : 0;
    int64_t *r = malloc(sizeof(int64_t) * (size_t)(nv + 1));
    if (!s || (vals && !v) || (sorter && !so) || !r) { free(s); free(v); free(so); free(r); return OOM; }
    const int64_t per = rows > 1 && vals ? nv / rows : nv; /* values per sequence row */
    for (int64_t i = 0; i < nv; i++) {
        int64_t row = rows > 1 ? i / per : 0;
        double x = vals ? v[i] : p->value;
        r[i] = bound(s + row * n, so ? so + row * n : NULL, n, x, p->right);
    }
    dn_store_i64(r, o);
    free(s); free(v); free(so); free(r);
    return ACLNN_SUCCESS;
}

static aclnnStatus ss_plan(int op, const aclTensor *seq, const aclTensor *self, const aclScalar *sv, bool outInt32,
                           bool right, const aclTensor *sorter, aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_dtype_in(seq, k_real, NREAL, "sortedSequence"));
    if (self) ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACLNN_CHECK(out->dtype == (outInt32 ? ACL_INT32 : ACL_INT64), ACLNN_ERR_PARAM_INVALID,
                "out dtype %s should be %s (outInt32 %d).", acl_dtype_name(out->dtype), outInt32 ? "INT32" : "INT64",
                (int)outInt32);
    ACLNN_CHECK(seq->ndim >= 1 && seq->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "sortedSequence must have 1 to %d dims.", ACL_MAX_VIEW_RANK);
    if (self) {
        ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
        if (seq->ndim > 1) {
            bool ok = self->ndim == seq->ndim;
            for (uint64_t k = 0; ok && k + 1 < seq->ndim; k++) ok = self->dims[k] == seq->dims[k];
            ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "the leading dims of sortedSequence and self must match.");
        }
    }
    if (sorter) ACL_TRY(acl_check_same_shape(seq, "sortedSequence", sorter, "sorter"));
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    const aclTensor *ins[3];
    const char *inn[3];
    int nin = 0;
    ins[nin] = seq;
    inn[nin++] = "sortedSequence";
    if (self) { ins[nin] = self; inn[nin++] = "self"; }
    if (sorter) { ins[nin] = sorter; inn[nin++] = "sorter"; }
    const aclTensor *outs[] = {out};
    const char *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(op, ss_run, sizeof(ss_params), ins, inn, nin, outs, outn, 1, ws, exo, &pp));
    *(ss_params *)pp = (ss_params){right, self == NULL, sorter != NULL, sv ? acl_read_f64(sv->bytes, sv->dtype) : 0};
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SearchSorted(const aclTensor *sortedSequence, const aclTensor *self, bool outInt32,
                              bool right, const aclTensor *sorter, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(sortedSequence, "sortedSequence");
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return ss_plan(ACL_OP_SearchSorted, sortedSequence, self, NULL, outInt32, right, sorter, out, workspaceSize,
                   executor);
}

aclnnStatus opws_SearchSorteds(const aclTensor *sortedSequence, const aclScalar *self,
                               const bool outInt32, const bool right, const aclTensor *sorter,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(sortedSequence, "sortedSequence");
    ACLNN_CHECK(self != NULL, ACLNN_ERR_PARAM_NULLPTR, "self must not be NULL.");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(out) == 1, ACLNN_ERR_PARAM_INVALID, "out must hold one element.");
    return ss_plan(ACL_OP_SearchSorteds, sortedSequence, NULL, self, outInt32, right, sorter, out, workspaceSize,
                   executor);
}

/* ================================================================ counts */
typedef struct { int kind; int64_t bins, minlength, classes, axis; double lo, hi; bool has_weights, wrap; } cnt_params;
enum { CN_BINCOUNT, CN_HISTC, CN_ONEHOT, CN_MASKED_SELECT, CN_FILL_DIAG, CN_ISIN };

static aclnnStatus cnt_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const cnt_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const int64_t n = dn_numel(x), no = dn_numel(o);
    double *d = dn_load(x);
    double *r = calloc((size_t)no + 1, sizeof(double));
    if (!d || !r) { free(d); free(r); return OOM; }
    aclnnStatus rc = ACLNN_SUCCESS;
    switch (p->kind) {
    case CN_BINCOUNT: {
        double *w = p->has_weights ? dn_load(acl_exec_in(ex, 1)) : NULL;
        for (int64_t i = 0; i < n; i++) {
            int64_t b = (int64_t)d[i];
            if (b >= 0 && b < no) r[b] += w ? w[i] : 1;
        }
        free(w);
        break;
    }
    case CN_HISTC: {
        double lo = p->lo, hi = p->hi;
        if (lo == hi && n > 0) { /* the data's own range */
            lo = INFINITY;
            hi = -INFINITY;
            for (int64_t i = 0; i < n; i++) if (!isnan(d[i])) { lo = fmin(lo, d[i]); hi = fmax(hi, d[i]); }
        }
        if (lo == hi) { lo -= 1; hi += 1; }
        for (int64_t i = 0; i < n; i++) {
            double v = d[i];
            if (!(v >= lo && v <= hi)) continue;
            int64_t b = (int64_t)((v - lo) * (double)p->bins / (hi - lo));
            if (b == p->bins) b--;
            r[b] += 1;
        }
        break;
    }
    case CN_ONEHOT: {
        double on = 1, off = 0;
        double *onv = dn_load(acl_exec_in(ex, 1)), *offv = dn_load(acl_exec_in(ex, 2));
        if (onv) on = onv[0];
        if (offv) off = offv[0];
        free(onv);
        free(offv);
        /* out = self's shape with `classes` inserted at axis */
        int64_t outer = 1, inner = 1;
        for (int k = 0; k < p->axis; k++) outer *= x->dims[k];
        for (int k = (int)p->axis; k < x->ndim; k++) inner *= x->dims[k];
        for (int64_t a = 0; a < outer; a++)
            for (int64_t c = 0; c < p->classes; c++)
                for (int64_t i = 0; i < inner; i++) {
                    int64_t v = (int64_t)d[a * inner + i];
                    r[(a * p->classes + c) * inner + i] = v == c ? on : off;
                }
        break;
    }
    case CN_MASKED_SELECT: {
        double *m = dn_load(acl_exec_in(ex, 1)); /* the mask, broadcast to self at planning */
        int64_t k = 0;
        if (!m) { rc = OOM; break; }
        double *prev = dn_load(o);
        if (prev) memcpy(r, prev, sizeof(double) * (size_t)no);
        free(prev);
        for (int64_t i = 0; i < n; i++) if (m[i] != 0 && k < no) r[k++] = d[i];
        free(m);
        break;
    }
    default: break;
    }
    if (rc == ACLNN_SUCCESS) dn_store(r, o);
    free(d);
    free(r);
    return rc;
}

aclnnStatus opws_Bincount(const aclTensor *self, const aclTensor *weights, int64_t minlength,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_int, ACL_COUNT_OF(k_int), "self"));
    ACLNN_CHECK(self->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "self must be 1-d.");
    ACLNN_CHECK(minlength >= 0, ACLNN_ERR_PARAM_INVALID, "minlength must be non-negative.");
    if (weights) {
        ACL_TRY(acl_check_tensor(weights, "weights"));
        ACL_TRY(acl_check_same_shape(self, "self", weights, "weights"));
    }
    ACLNN_CHECK(out->ndim == 1, ACLNN_ERR_PARAM_INVALID, "out must be 1-d.");
    const aclTensor *ins[] = {self, weights}, *outs[] = {out};
    const char *inn[] = {"self", "weights"}, *outn[] = {"out"};
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Bincount, workspaceSize, executor);
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_Bincount, cnt_run, sizeof(cnt_params), ins, inn, weights ? 2 : 1, outs, outn, 1,
                    workspaceSize, executor, &pp));
    ((cnt_params *)pp)->kind = CN_BINCOUNT;
    ((cnt_params *)pp)->has_weights = weights != NULL;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Histc(const aclTensor *self, int64_t bins, const aclScalar *min, const aclScalar *max,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACLNN_CHECK(min != NULL, ACLNN_ERR_PARAM_NULLPTR, "min must not be NULL.");
    ACLNN_CHECK(max != NULL, ACLNN_ERR_PARAM_NULLPTR, "max must not be NULL.");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACLNN_CHECK(bins > 0, ACLNN_ERR_PARAM_INVALID, "bins must be positive.");
    double lo = acl_read_f64(min->bytes, min->dtype), hi = acl_read_f64(max->bytes, max->dtype);
    ACLNN_CHECK(lo <= hi, ACLNN_ERR_PARAM_INVALID, "max must be larger than min.");
    ACLNN_CHECK(out->ndim == 1 && out->dims[0] == bins, ACLNN_ERR_PARAM_INVALID, "out must have shape [%lld].",
                (long long)bins);
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_Histc, cnt_run, sizeof(cnt_params), ins, inn, 1, outs, outn, 1, workspaceSize, executor,
                    &pp));
    cnt_params *p = pp;
    p->kind = CN_HISTC;
    p->bins = bins;
    p->lo = lo;
    p->hi = hi;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_OneHot(const aclTensor *self, int numClasses, const aclTensor *onValue,
                        const aclTensor *offValue, int64_t axis, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(onValue, "onValue");
    NN(offValue, "offValue");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_int, ACL_COUNT_OF(k_int), "self"));
    ACLNN_CHECK(numClasses >= 0, ACLNN_ERR_PARAM_INVALID, "numClasses must be non-negative.");
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(axis >= -1 && axis <= r, ACLNN_ERR_PARAM_INVALID, "axis %lld is out of range.", (long long)axis);
    int64_t ax = axis == -1 ? r : axis;
    ACLNN_CHECK(out->ndim == self->ndim + 1 && self->ndim < ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "out must have one dim more than self.");
    for (int64_t k = 0, j = 0; k <= r; k++) {
        int64_t want = k == ax ? numClasses : self->dims[j++];
        ACLNN_CHECK(out->dims[k] == want, ACLNN_ERR_PARAM_INVALID, "out dim %lld should be %lld.", (long long)k,
                    (long long)want);
    }
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_OneHot, workspaceSize, executor);
    const aclTensor *ins[] = {self, onValue, offValue}, *outs[] = {out};
    const char *inn[] = {"self", "onValue", "offValue"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_OneHot, cnt_run, sizeof(cnt_params), ins, inn, 3, outs, outn, 1, workspaceSize, executor,
                    &pp));
    cnt_params *p = pp;
    p->kind = CN_ONEHOT;
    p->classes = numClasses;
    p->axis = ax;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_MaskedSelect(const aclTensor *self, const aclTensor *mask, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(mask, "mask");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACLNN_CHECK(mask->dtype == ACL_BOOL || mask->dtype == ACL_UINT8, ACLNN_ERR_PARAM_INVALID,
                "mask dtype %s should be BOOL or UINT8.", acl_dtype_name(mask->dtype));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", mask, "mask"));
    ACLNN_CHECK(out->ndim == 1 && out->dims[0] == acl_tensor_numel(self), ACLNN_ERR_PARAM_INVALID,
                "out must be 1-d with self's %lld elements.", (long long)acl_tensor_numel(self));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_MaskedSelect, workspaceSize, executor);
    const aclTensor *ins[] = {self, mask}, *outs[] = {out};
    const char *inn[] = {"self", "mask"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_MaskedSelect, cnt_run, sizeof(cnt_params), ins, inn, 2, outs, outn, 1, workspaceSize,
                    executor, &pp));
    ((cnt_params *)pp)->kind = CN_MASKED_SELECT;
    return ACLNN_SUCCESS;
}

/* ================================================================ fill_diagonal, isin(scalar, tensor) */
typedef struct { double v; bool wrap, invert; } fd_params;

static aclnnStatus fd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fd_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    /* the diagonal of an n-d (all dims equal) or 2-d tall matrix: element (i, i, ..., i); wrap restarts it every
     * cols + 1 rows (PyTorch) */
    int64_t step = 0, n = o->dims[0];
    for (int k = 0; k < o->ndim; k++) {
        step += o->strides[k];
        if (o->dims[k] < n) n = o->dims[k];
    }
    const size_t es = acl_dtype_size(o->dtype);
    if (o->ndim == 2 && p->wrap && o->dims[0] > o->dims[1]) {
        for (int64_t r = 0; r < o->dims[0]; r++) {
            int64_t c = r % (o->dims[1] + 1);
            if (c < o->dims[1]) acl_convert(&p->v, ACL_DOUBLE, 1, o->base + (r * o->strides[0] + c * o->strides[1]) *
                                            (int64_t)es, o->dtype, 1, 1);
        }
        return ACLNN_SUCCESS;
    }
    acl_convert(&p->v, ACL_DOUBLE, 0, o->base, o->dtype, step, n);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_InplaceFillDiagonal(aclTensor *selfRef, const aclScalar *fillValue, bool wrap,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    ACLNN_CHECK(fillValue != NULL, ACLNN_ERR_PARAM_NULLPTR, "fillValue must not be NULL.");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(selfRef, k_real, NREAL, "selfRef"));
    ACLNN_CHECK(selfRef->ndim >= 2 && selfRef->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "selfRef must have at least 2 dims.");
    for (uint64_t k = 1; selfRef->ndim > 2 && k < selfRef->ndim; k++)
        ACLNN_CHECK(selfRef->dims[k] == selfRef->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "all dims of selfRef must be equal when it has more than 2.");
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceFillDiagonal, workspaceSize, executor);
    const aclTensor *outs[] = {selfRef};
    const char *outn[] = {"selfRef"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_InplaceFillDiagonal, fd_run, sizeof(fd_params), NULL, NULL, 0, outs, outn, 1, workspaceSize,
                    executor, &pp));
    *(fd_params *)pp = (fd_params){acl_read_f64(fillValue->bytes, fillValue->dtype), wrap, false};
    return ACLNN_SUCCESS;
}

static aclnnStatus isin_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fd_params *p = ex->params;
    const acl_view *t = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    double *d = dn_load(t);
    if (!d) return OOM;
    bool found = false;
    for (int64_t i = 0; i < dn_numel(t) && !found; i++) found = d[i] == p->v;
    free(d);
    double r = found != p->invert;
    acl_convert(&r, ACL_DOUBLE, 1, o->base, o->dtype, 1, 1);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_IsInScalarTensor(const aclScalar *element, const aclTensor *testElements,
                                  bool assumeUnique, bool invert, aclTensor *out,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)assumeUnique;
    ACLNN_CHECK(element != NULL, ACLNN_ERR_PARAM_NULLPTR, "element must not be NULL.");
    NN(testElements, "testElements");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(testElements, k_real, NREAL, "testElements"));
    ACLNN_CHECK(acl_tensor_numel(out) == 1, ACLNN_ERR_PARAM_INVALID, "out must hold one element.");
    const aclTensor *ins[] = {testElements}, *outs[] = {out};
    const char *inn[] = {"testElements"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(ACL_OP_IsInScalarTensor, isin_run, sizeof(fd_params), ins, inn, 1, outs, outn, 1, workspaceSize,
                    executor, &pp));
    *(fd_params *)pp = (fd_params){acl_read_f64(element->bytes, element->dtype), false, invert};
    return ACLNN_SUCCESS;
}
