/* Sort, Argsort, Topk (ops-nn), SearchSorted, SearchSorteds, Bincount, Histc, OneHot, MaskedSelect, InplaceFillDiagonal,
 * IsInScalarTensor.
 *
 * Validation follows each op's op_api source (hicann/ops-math) check by check; the dtype lists are the table's
 * (tools/optable/math_sort.py, ACL_DT_LIST_<Name>). Values follow PyTorch CPU where the device's documentation is
 * silent: sorts are stable (equal keys keep their order, for `stable` false too: the same bytes every run), NaN sorts
 * as the largest value; searchsorted is PyTorch's binary search (`!(x >= v)` / `!(x > v)`); histc counts [min, max]
 * with the last bin closed. Data-dependent indices are never trusted: out-of-range sorter entries are clamped,
 * out-of-range bincount/one_hot values are skipped, masked_select writes at most out's length (and sets out's view shape to the selected count). Every output line is
 * owned by one thread with a fixed order inside it: the same bytes for any thread count. */
#include <float.h>
#include <math.h>

#include "common/parallel.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

static aclnnStatus mk_exec(int op, acl_run_fn run, size_t psize, const aclTensor *const *ins, const char *const *inn,
                           int nin, const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                           aclOpExecutor **exo, const void *pinit) {
    void *params = NULL;
    aclnnStatus rc = dn_exec(op, run, psize, ins, inn, nin, outs, outn, nout, ws, exo, &params);
    if (rc == ACLNN_SUCCESS && pinit) memcpy(params, pinit, psize);
    return rc;
}


static int64_t wrap(int64_t d, int64_t r) { return d < 0 ? d + r : d; }

/* ================================================================ sort, argsort */
typedef struct {
    int dim;
    bool desc, values;
    aclDataType kdt; /* the dtype the keys are compared in: bool as uint8, bf16 as f32 */
} sort_params;

typedef struct {
    double f;
    int64_t i, idx;
} sort_item;

static int cmp_f_asc(const void *a, const void *b) {
    const sort_item *x = a, *y = b;
    const bool xn = isnan(x->f), yn = isnan(y->f);
    if (xn != yn) return xn ? 1 : -1; /* NaN is the largest */
    if (!xn && x->f != y->f) return x->f < y->f ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}
static int cmp_f_desc(const void *a, const void *b) {
    const sort_item *x = a, *y = b;
    const bool xn = isnan(x->f), yn = isnan(y->f);
    if (xn != yn) return xn ? -1 : 1;
    if (!xn && x->f != y->f) return x->f > y->f ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}
static int cmp_i_asc(const void *a, const void *b) {
    const sort_item *x = a, *y = b;
    if (x->i != y->i) return x->i < y->i ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}
static int cmp_i_desc(const void *a, const void *b) {
    const sort_item *x = a, *y = b;
    if (x->i != y->i) return x->i > y->i ? -1 : 1;
    return (x->idx > y->idx) - (x->idx < y->idx);
}

static aclnnStatus sort_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sort_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0);
    const acl_view *ov = p->values ? acl_exec_out(ex, 0) : NULL, *oi = acl_exec_out(ex, p->values ? 1 : 0);
    const md_class c = md_class_of(p->kdt);
    const int64_t n = md_numel(x), len = x->ndim ? x->dims[p->dim] : 1;
    int64_t inner = 1;
    for (int k = p->dim + 1; k < x->ndim; k++) inner *= x->dims[k];
    void *buf = md_load_via(x, p->kdt, md_class_dt(c));
    int64_t *idx = md_alloc(n, sizeof(int64_t));
    if (!buf || !idx) {
        free(buf);
        free(idx);
        return OOM;
    }
    int (*cmp)(const void *, const void *) = c == VC_F ? (p->desc ? cmp_f_desc : cmp_f_asc)
                                                        : (p->desc ? cmp_i_desc : cmp_i_asc);
    const int64_t lines = n / len;
    const bool par = acl_parallel_worth(n) && lines > 1;
    const int nt = par ? acl_max_threads() : 1;
    const int64_t blk = acl_team_block(len, sizeof(sort_item));
    sort_item *items = acl_team_alloc(nt, len, sizeof(sort_item), 1); /* one row of items per thread, whole lines */
    if (!items) {
        free(buf);
        free(idx);
        return OOM;
    }
#pragma omp parallel for schedule(static) if (par) num_threads(nt)
    for (int64_t l = 0; l < lines; l++) {
#ifdef _OPENMP
        sort_item *it = items + (int64_t)omp_get_thread_num() * blk;
#else
        sort_item *it = items;
#endif
        const int64_t base = (l / inner) * len * inner + l % inner;
        for (int64_t i = 0; i < len; i++) {
            const int64_t e = base + i * inner;
            it[i] = (sort_item){c == VC_F ? ((double *)buf)[e] : 0, c == VC_F ? 0 : ((int64_t *)buf)[e], i};
        }
        qsort(it, (size_t)len, sizeof *it, cmp);
        for (int64_t i = 0; i < len; i++) {
            const int64_t e = base + i * inner;
            if (c == VC_F) ((double *)buf)[e] = it[i].f;
            else ((int64_t *)buf)[e] = it[i].i;
            idx[e] = it[i].idx;
        }
    }
    if (ov) md_store(buf, md_class_dt(c), ov);
    md_store(idx, ACL_INT64, oi);
    free(items);
    free(buf);
    free(idx);
    return ACLNN_SUCCESS;
}

/* ================================================================ topk (ops-nn index/gather_elements) */
typedef struct {
    int dim;
    bool largest;
    int64_t k;
    aclDataType kdt;
} topk_params;

/* The k first of each line in the stable sort order (NaN the largest, equal keys by index): `sorted` false may
 * return any order on the device; this one is the sorted one. */
static aclnnStatus topk_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const topk_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *ov = acl_exec_out(ex, 0), *oi = acl_exec_out(ex, 1);
    const md_class c = md_class_of(p->kdt);
    const int64_t n = md_numel(x), len = x->ndim ? x->dims[p->dim] : 1, k = p->k;
    int64_t inner = 1;
    for (int d = p->dim + 1; d < x->ndim; d++) inner *= x->dims[d];
    const int64_t lines = n / len;
    void *buf = md_load_via(x, p->kdt, md_class_dt(c));
    void *vals = md_alloc(lines * k, 8);
    int64_t *idx = md_alloc(lines * k, sizeof(int64_t));
    const bool par = acl_parallel_worth(n) && lines > 1;
    const int nt = par ? acl_max_threads() : 1;
    const int64_t blk = acl_team_block(len, sizeof(sort_item));
    sort_item *items = acl_team_alloc(nt, len, sizeof(sort_item), 1); /* whole lines a thread */
    if (!buf || !vals || !idx || !items) {
        free(buf), free(vals), free(idx), free(items);
        return OOM;
    }
    int (*cmp)(const void *, const void *) = c == VC_F ? (p->largest ? cmp_f_desc : cmp_f_asc)
                                                        : (p->largest ? cmp_i_desc : cmp_i_asc);
#pragma omp parallel for schedule(static) if (par) num_threads(nt)
    for (int64_t l = 0; l < lines; l++) {
#ifdef _OPENMP
        sort_item *it = items + (int64_t)omp_get_thread_num() * blk;
#else
        sort_item *it = items;
#endif
        const int64_t o = l / inner, in = l % inner, base = o * len * inner + in;
        for (int64_t i = 0; i < len; i++) {
            const int64_t e = base + i * inner;
            it[i] = (sort_item){c == VC_F ? ((double *)buf)[e] : 0, c == VC_F ? 0 : ((int64_t *)buf)[e], i};
        }
        qsort(it, (size_t)len, sizeof *it, cmp);
        for (int64_t i = 0; i < k; i++) { /* the output line: (o, i, in) of (outer, k, inner) */
            const int64_t e = o * k * inner + i * inner + in;
            if (c == VC_F) ((double *)vals)[e] = it[i].f;
            else ((int64_t *)vals)[e] = it[i].i;
            idx[e] = it[i].idx;
        }
    }
    md_store(vals, md_class_dt(c), ov);
    md_store(idx, ACL_INT64, oi);
    free(buf), free(vals), free(idx), free(items);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Topk(const aclTensor *self, int64_t k, int64_t dim, bool largest, bool sorted, aclTensor *valuesOut,
                      aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)sorted; /* the sorted order is a valid answer for sorted == false too */
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    const int64_t r = (int64_t)self->ndim;
    if (r == 0)
        ACLNN_CHECK(dim == 0 || dim == -1, ACLNN_ERR_PARAM_INVALID,
                    "dim: Dimension out of range (expected to be in range of [-1, 0], but got %lld)", (long long)dim);
    else
        ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID,
                    "dim: Dimension out of range (expected to be in range of [-%lld, %lld], but got %lld)",
                    (long long)r, (long long)(r - 1), (long long)dim);
    const int d = r ? (int)wrap(dim, r) : 0;
    const int64_t len = r ? self->dims[d] : 1;
    ACLNN_CHECK(k >= 0 && k <= len, ACLNN_ERR_PARAM_INVALID,
                "k: selected index k out of range (max num of self.size(%lld) is %lld, but k is %lld)", (long long)d,
                (long long)len, (long long)k);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Topk, "self"));
    ACLNN_CHECK(valuesOut->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID,
                "valuesOut: dtype %d should be self's dtype %d", (int)valuesOut->dtype, (int)self->dtype);
    ACLNN_CHECK(indicesOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "indicesOut: dtype %d should be INT64",
                (int)indicesOut->dtype);
    ACLNN_CHECK(r <= 8, ACLNN_ERR_PARAM_INVALID, "self: dim number %lld should be at most 8", (long long)r);
    if (acl_tensor_empty(self) || acl_tensor_empty(valuesOut) || acl_tensor_empty(indicesOut))
        return acl_exec_noop(ACL_OP_Topk, workspaceSize, executor);
    /* the result (self's shape with k at dim) is view-copied into the outputs: another shape fails that copy */
    const aclTensor *outs2[] = {valuesOut, indicesOut};
    const char *names[] = {"valuesOut", "indicesOut"};
    for (int t = 0; t < 2; t++) {
        bool same = (int64_t)outs2[t]->ndim == r;
        for (int64_t i = 0; same && i < r; i++) same = outs2[t]->dims[i] == (i == d ? k : self->dims[i]);
        if (r == 0) same = acl_tensor_numel(outs2[t]) == k; /* a 0-d self runs as (1,): a 0-d or (1,) result */
        ACLNN_CHECK(same, ACLNN_ERR_INNER_NULLPTR, "%s: the shape should be self's with dim %d of size %lld",
                    names[t], d, (long long)k);
    }
    const aclDataType kdt = self->dtype == ACL_BF16 ? ACL_FLOAT : self->dtype;
    const topk_params pp = {d, largest, k, kdt};
    const aclTensor *ins[] = {self};
    const char *inn[] = {"self"};
    return mk_exec(ACL_OP_Topk, topk_run, sizeof pp, ins, inn, 1, outs2, names, 2, workspaceSize, executor, &pp);
}

/* More than 8 dims (Sort takes any rank): adjacent dims merged where every tensor's strides allow it (size-1 dims
 * dropped; the sort dim kept alone), into copies of the tensors the executor can view; 161002 if still > 8. */
static aclnnStatus collapse(const aclTensor *const *ts, int nt, int d, aclTensor *cp, int *nd) {
    const aclTensor *t0 = ts[0];
    int g = 0; /* groups so far */
    int gd = -1;
    for (int i = 0; i < nt; i++) {
        cp[i] = *ts[i];
        cp[i].ndim = 0;
    }
    for (int k = 0; k < (int)t0->ndim; k++) {
        if (k != d && t0->dims[k] == 1) continue;
        bool merge = g > 0 && k != d && g - 1 != gd;
        for (int i = 0; merge && i < nt; i++) merge = cp[i].strides[g - 1] == ts[i]->strides[k] * ts[i]->dims[k];
        for (int i = 0; i < nt; i++) {
            if (merge) {
                cp[i].dims[g - 1] *= ts[i]->dims[k];
                cp[i].strides[g - 1] = ts[i]->strides[k];
            } else {
                cp[i].dims[g] = ts[i]->dims[k];
                cp[i].strides[g] = ts[i]->strides[k];
            }
        }
        if (!merge) {
            if (k == d) gd = g;
            g++;
        }
    }
    for (int i = 0; i < nt; i++) cp[i].ndim = (uint64_t)g;
    ACLNN_CHECK(g <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "self has %llu dims whose strides do not merge into at most %d.", (unsigned long long)t0->ndim,
                ACL_MAX_VIEW_RANK);
    *nd = gd;
    return ACLNN_SUCCESS;
}

static aclnnStatus check_sort_dim(const aclTensor *self, int64_t dim) {
    const int64_t r = (int64_t)self->ndim;
    const int64_t lo = r ? -r : -1, hi = r ? r - 1 : 0;
    ACLNN_CHECK(dim >= lo && dim <= hi, ACLNN_ERR_PARAM_INVALID, "dim %lld should be in the range [%lld, %lld].",
                (long long)dim, (long long)lo, (long long)hi);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Sort(const aclTensor *self, bool stable, int64_t dim, bool descending,
                      aclTensor *valuesOut, aclTensor *indicesOut, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    (void)stable; /* always stable: equal keys keep their order */
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Sort, "self"));
    ACL_TRY(acl_check_dtype_in(valuesOut, ACL_DT_LIST_Sort_valuesOut, "valuesOut"));
    ACL_TRY(acl_check_dtype_in(indicesOut, ACL_DT_LIST_Sort_indicesOut, "indicesOut"));
    ACL_TRY(check_sort_dim(self, dim));
    ACL_TRY(acl_check_same_shape(self, "self", valuesOut, "valuesOut"));
    ACL_TRY(acl_check_same_shape(self, "self", indicesOut, "indicesOut"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Sort, workspaceSize, executor);
    int d = (int)wrap(dim, (int64_t)self->ndim);
    if (self->ndim == 0) d = 0;
    const aclTensor *ts[3] = {self, valuesOut, indicesOut};
    aclTensor *cp = NULL;
    if (self->ndim > ACL_MAX_VIEW_RANK) {
        cp = malloc(3 * sizeof(aclTensor));
        if (!cp) return OOM;
        aclnnStatus rc = collapse(ts, 3, d, cp, &d);
        if (rc) {
            free(cp);
            return rc;
        }
        for (int i = 0; i < 3; i++) ts[i] = &cp[i];
    }
    const aclDataType kdt = self->dtype == ACL_BOOL ? ACL_UINT8 : self->dtype == ACL_BF16 ? ACL_FLOAT : self->dtype;
    const sort_params pp = {d, descending, true, kdt};
    const aclTensor *outs[] = {ts[1], ts[2]};
    const char *inn[] = {"self"}, *outn[] = {"valuesOut", "indicesOut"};
    aclnnStatus rc = mk_exec(ACL_OP_Sort, sort_run, sizeof pp, ts, inn, 1, outs, outn, 2, workspaceSize, executor,
                             &pp);
    free(cp);
    return rc;
}

aclnnStatus opws_Argsort(const aclTensor *self, int64_t dim, bool descending, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(check_sort_dim(self, dim));
    if (self->ndim > 0) {
        const int64_t len = self->dims[wrap(dim, (int64_t)self->ndim)];
        ACLNN_CHECK(len <= INT32_MAX, ACLNN_ERR_PARAM_INVALID,
                    "the dim being sorted can not have more than INT_MAX elements.");
        ACLNN_CHECK(!(len == 1 && self->dtype == ACL_BF16), ACLNN_ERR_PARAM_INVALID,
                    "a sort dim of size 1 is not supported for a BF16 self.");
    }
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Argsort, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Argsort_out, "out"));
    ACLNN_CHECK(!acl_format_is_private(self->format) && !acl_format_is_private(out->format), ACLNN_ERR_PARAM_INVALID,
                "self format %s / out format %s: private formats are not supported.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Argsort, workspaceSize, executor);
    const int d = self->ndim ? (int)wrap(dim, (int64_t)self->ndim) : 0;
    /* the device sorts with stable=false; equal keys keep their order here (deterministic) */
    const sort_params pp = {d, descending, false, self->dtype == ACL_BF16 ? ACL_FLOAT : self->dtype};
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_Argsort, sort_run, sizeof pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor, &pp);
}

/* ================================================================ searchsorted */
typedef struct {
    bool right, scalar, has_sorter;
    aclDataType pdt;         /* both sides are cast to the promoted dtype */
    _Alignas(16) unsigned char value[16]; /* SearchSorteds: the value, already in sortedSequence's dtype */
} ss_params;

/* PyTorch's cus_lower_bound / cus_upper_bound: the literal comparisons (a NaN value lands at the end, a NaN in the
 * sequence compares as "below"). A sorter entry outside [0, n) is the caller's error (PyTorch refuses it, the device
 * reads whatever is there): clamped to the row, so nothing outside the view is read. */
static int64_t bound_f(const double *seq, const int64_t *sorter, int64_t n, double v, bool right) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        int64_t at = sorter ? sorter[mid] : mid;
        at = at < 0 ? 0 : at >= n ? n - 1 : at;
        const double s = seq[at];
        if (right ? !(s > v) : !(s >= v)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}
static int64_t bound_i(const int64_t *seq, const int64_t *sorter, int64_t n, int64_t v, bool right) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        int64_t at = sorter ? sorter[mid] : mid;
        at = at < 0 ? 0 : at >= n ? n - 1 : at;
        const int64_t s = seq[at];
        if (right ? !(s > v) : !(s >= v)) lo = mid + 1;
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
    const int64_t nv = md_numel(o), ns = md_numel(seq);
    int64_t *r = md_alloc(nv, sizeof(int64_t));
    if (!r) return OOM;
    if (ns == 0) { /* an empty sequence: zeros */
        md_store(r, ACL_INT64, o);
        free(r);
        return ACLNN_SUCCESS;
    }
    const md_class c = md_class_of(p->pdt);
    const aclDataType cdt = md_class_dt(c);
    const int64_t n = seq->ndim ? seq->dims[seq->ndim - 1] : 1; /* a 0-d sequence holds one value */
    const int64_t m = vals && vals->ndim ? vals->dims[vals->ndim - 1] : 1;
    const bool rows = seq->ndim > 1; /* else every value searches the one sequence */
    void *s = md_load_via(seq, p->pdt, cdt);
    void *v = vals ? md_load_via(vals, p->pdt, cdt) : md_alloc(1, 16);
    int64_t *so = sorter ? md_load(sorter, ACL_INT64) : NULL;
    if (!s || !v || (sorter && !so)) {
        free(s);
        free(v);
        free(so);
        free(r);
        return OOM;
    }
    if (!vals) acl_convert(p->value, p->pdt, 1, v, cdt, 1, 1);
    ACL_FOR(acl_parallel_worth(nv * 16), i, 0, nv, {
        const int64_t row = rows ? i / m : 0;
        const int64_t *srt = so ? so + row * n : NULL;
        r[i] = c == VC_F ? bound_f((const double *)s + row * n, srt, n, ((const double *)v)[i], p->right)
                         : bound_i((const int64_t *)s + row * n, srt, n, ((const int64_t *)v)[i], p->right);
    });
    md_store(r, ACL_INT64, o);
    free(s);
    free(v);
    free(so);
    free(r);
    return ACLNN_SUCCESS;
}

/* SearchSorted's checks; self_dtype/self_dims describe self (SearchSorteds: its [1] tensor in seq's dtype) */
static aclnnStatus ss_check(const aclTensor *seq, aclDataType sdt, const int64_t *sdims, int snd, bool outInt32,
                            const aclTensor *sorter, const aclTensor *out) {
    ACL_TRY(acl_check_dtype_in(seq, ACL_DT_LIST_SearchSorted, "sortedSequence"));
    ACLNN_CHECK(md_dt_in(sdt, ACL_DT_LIST_SearchSorted), ACLNN_ERR_PARAM_INVALID, "self dtype %s is not supported.",
                acl_dtype_name(sdt));
    const aclDataType want = outInt32 ? ACL_INT32 : ACL_INT64;
    ACLNN_CHECK(out->dtype == want, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be %s (outInt32 %d).",
                acl_dtype_name(out->dtype), acl_dtype_name(want), (int)outInt32);
    if (sorter)
        ACLNN_CHECK(sorter->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "sorter dtype %s should be INT64.",
                    acl_dtype_name(sorter->dtype));
    ACL_TRY(md_check_max_dim(seq, "sortedSequence"));
    ACLNN_CHECK(snd <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "self has %d dims; at most %d are supported.", snd,
                ACL_MAX_VIEW_RANK);
    ACLNN_CHECK(md_shape_is(out, sdims, snd), ACLNN_ERR_PARAM_INVALID, "out shape should be self's shape.");
    if (sorter) ACL_TRY(acl_check_same_shape(seq, "sortedSequence", sorter, "sorter"));
    if (snd == 1 && sdims[0] == 1)
        ACLNN_CHECK(seq->ndim == 1, ACLNN_ERR_PARAM_INVALID,
                    "self can be a single value only when sortedSequence is 1-D (it has %llu dims).",
                    (unsigned long long)seq->ndim);
    bool lead = (int)seq->ndim == snd;
    for (int k = 0; lead && k + 1 < snd; k++) lead = seq->dims[k] == sdims[k];
    ACLNN_CHECK(seq->ndim == 1 || lead, ACLNN_ERR_PARAM_INVALID,
                "sortedSequence should be 1-D or match self in all dims but the last.");
    const aclDataType p = acl_promote(seq->dtype, sdt);
    ACLNN_CHECK(md_dt_in(p, ACL_DT_LIST_SearchSorted), ACLNN_ERR_PARAM_INVALID,
                "sortedSequence dtype %s and self dtype %s promote to %s, unsupported.",
                acl_dtype_name(seq->dtype), acl_dtype_name(sdt), acl_dtype_name(p));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SearchSorted(const aclTensor *sortedSequence, const aclTensor *self, bool outInt32,
                              bool right, const aclTensor *sorter, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(sortedSequence, "sortedSequence");
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SearchSorted, "self"));
    ACL_TRY(ss_check(sortedSequence, self->dtype, self->dims, (int)self->ndim, outInt32, sorter, out));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_SearchSorted, workspaceSize,
                                                                              executor);
    const ss_params pp = {right, false, sorter != NULL, acl_promote(sortedSequence->dtype, self->dtype), {0}};
    const aclTensor *ins[] = {sortedSequence, self, sorter}, *outs[] = {out};
    const char *inn[] = {"sortedSequence", "self", "sorter"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_SearchSorted, ss_run, sizeof pp, ins, inn, 3, outs, outn, 1, workspaceSize, executor, &pp);
}

aclnnStatus opws_SearchSorteds(const aclTensor *sortedSequence, const aclScalar *self,
                               const bool outInt32, const bool right, const aclTensor *sorter,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(sortedSequence, "sortedSequence");
    ACLNN_CHECK(self != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Scalar but got null for argument self.");
    NN(out, "out");
    /* the value goes through float (ToFloat) into a [1] tensor of sortedSequence's dtype */
    ACLNN_CHECK(acl_dt_known(sortedSequence->dtype), ACLNN_ERR_PARAM_INVALID,
                "can not convert self to a tensor of sortedSequence's dtype %s.",
                acl_dtype_name(sortedSequence->dtype));
    ss_params pp = {right, true, sorter != NULL, sortedSequence->dtype, {0}};
    const float fv = (float)acl_read_f64(self->bytes, self->dtype);
    acl_convert(&fv, ACL_FLOAT, 1, pp.value, sortedSequence->dtype, 1, 1);
    ACLNN_CHECK(!acl_tensor_empty(out), ACLNN_ERR_PARAM_INVALID, "The shape of out tensor should be {1}.");
    /* upstream sets out's view shape to [1] (out->SetViewShape): the caller's tensor keeps that shape */
    out->ndim = 1;
    out->dims[0] = 1;
    out->strides[0] = 1;
    const int64_t one = 1;
    ACL_TRY(ss_check(sortedSequence, sortedSequence->dtype, &one, 1, outInt32, sorter, out));
    const aclTensor *ins[] = {sortedSequence, sorter}, *outs[] = {out};
    const char *inn[] = {"sortedSequence", "sorter"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_SearchSorteds, ss_run, sizeof pp, ins, inn, 2, outs, outn, 1, workspaceSize, executor,
                   &pp);
}

/* ================================================================ bincount */
typedef struct {
    int64_t nbins;   /* max(out's first dim, minlength) */
    bool has_weights, zero_only;
    aclDataType wdt; /* weights are summed in f32 (f32 weights) or f64 (others); no weights: int64 counts */
} bc_params;

static aclnnStatus bc_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const bc_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t no = md_numel(o);
    const bool ints = !p->has_weights;
    void *acc = md_alloc(no, 8);
    if (!acc) return OOM;
    if (!p->zero_only) {
        const acl_view *x = acl_exec_in(ex, 0);
        const int64_t n = md_numel(x), lim = acl_min_i64(p->nbins, no); /* out holds bins [0, lim) */
        int64_t *v = md_load_via(x, ACL_INT32, ACL_INT64); /* self is cast to int32 first */
        double *w = p->has_weights ? md_load(acl_exec_in(ex, 1), ACL_DOUBLE) : NULL;
        if (!v || (p->has_weights && !w)) {
            free(v);
            free(w);
            free(acc);
            return OOM;
        }
        /* in index order (deterministic); a value outside [0, nbins) is skipped */
        for (int64_t i = 0; i < n; i++) {
            const int64_t b = v[i];
            if (b < 0 || b >= lim) continue;
            if (ints) ((int64_t *)acc)[b] += 1;
            else if (p->wdt == ACL_FLOAT) ((double *)acc)[b] = (float)(((double *)acc)[b] + w[i]);
            else ((double *)acc)[b] += w[i];
        }
        free(v);
        free(w);
    }
    md_store(acc, ints ? ACL_INT64 : ACL_DOUBLE, o);
    free(acc);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Bincount(const aclTensor *self, const aclTensor *weights, int64_t minlength,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Bincount, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Bincount_out, "out"));
    if (weights) ACL_TRY(acl_check_dtype_in(weights, ACL_DT_LIST_Bincount_weights, "weights"));
    ACLNN_CHECK(!acl_format_is_private(self->format) && !acl_format_is_private(out->format), ACLNN_ERR_PARAM_INVALID,
                "self format %s / out format %s: private formats are not supported.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACLNN_CHECK(self->ndim == 1, ACLNN_ERR_PARAM_INVALID, "self should be 1-D, got %llu-D.",
                (unsigned long long)self->ndim);
    if (weights) {
        ACLNN_CHECK(weights->format == self->format, ACLNN_ERR_PARAM_INVALID,
                    "weights format %s should be self's format %s.", acl_format_name(weights->format),
                    acl_format_name(self->format));
        ACL_TRY(acl_check_same_shape(self, "self", weights, "weights"));
    }
    ACL_TRY(md_check_max_dim(out, "out"));
    const aclTensor *ins[] = {self, weights}, *outs[] = {out};
    const char *inn[] = {"self", "weights"}, *outn[] = {"out"};
    if (acl_tensor_empty(self)) {
        if (minlength <= 0 || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Bincount, workspaceSize, executor);
        const bc_params pp = {0, false, true, ACL_INT64}; /* out filled with zeros */
        return mk_exec(ACL_OP_Bincount, bc_run, sizeof pp, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &pp);
    }
    const int64_t first = out->ndim ? out->dims[0] : 1;
    const int64_t nb = first > minlength ? first : minlength;
    ACLNN_CHECK(nb <= INT32_MAX, ACLNN_ERR_PARAM_INVALID,
                "out size / minlength %lld: the maximum output size cannot exceed 2147483647.", (long long)nb);
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Bincount, workspaceSize, executor);
    const bc_params pp = {nb, weights != NULL, false,
                          weights && weights->dtype == ACL_FLOAT ? ACL_FLOAT : ACL_DOUBLE};
    return mk_exec(ACL_OP_Bincount, bc_run, sizeof pp, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &pp);
}

/* ================================================================ histc */
typedef struct {
    int64_t bins;
    bool from_data, zero_only;
    double lo, hi;     /* float self: min/max in self's dtype */
    int64_t ilo, ihi;  /* integer self: min/max converted to self's dtype */
} hc_params;

/* the bin of v in integer arithmetic of the kernel's compute type (int32, int64 for INT64 self), wrapping as the
 * device does; -1 outside [lo, hi] or when a wrapped product lands outside [0, bins] (the device would index out of
 * its bin array there: skipped) */
static int64_t hc_bin_int(int64_t v, int64_t lo, int64_t hi, int64_t bins, bool w64) {
    if (!(v >= lo && v <= hi)) return -1;
    int64_t q;
    if (w64) {
        const int64_t num = (int64_t)(((uint64_t)v - (uint64_t)lo) * (uint64_t)bins);
        const int64_t den = (int64_t)((uint64_t)hi - (uint64_t)lo);
        if (den == 0 || (den == -1 && num == INT64_MIN)) return -1;
        q = num / den;
    } else {
        const int32_t num = (int32_t)(uint32_t)(((uint32_t)v - (uint32_t)lo) * (uint32_t)bins);
        const int32_t den = (int32_t)(uint32_t)((uint32_t)hi - (uint32_t)lo);
        if (den == 0 || (den == -1 && num == INT32_MIN)) return -1;
        q = num / den;
    }
    if (q == bins) q = bins - 1; /* the last bin is closed */
    return q >= 0 && q < bins ? q : -1;
}

static aclnnStatus hc_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const hc_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    int64_t *cnt = md_alloc(p->bins, sizeof(int64_t));
    if (!cnt) return OOM;
    if (!p->zero_only) {
        const acl_view *x = acl_exec_in(ex, 0);
        const int64_t n = md_numel(x);
        const bool ints = acl_dt_is_int(x->dtype), w64 = x->dtype == ACL_INT64;
        void *d = md_load(x, ints ? ACL_INT64 : ACL_DOUBLE);
        if (!d) {
            free(cnt);
            return OOM;
        }
        if (ints) {
            const int64_t *v = d;
            int64_t lo = p->ilo, hi = p->ihi;
            if (p->from_data) { /* the data's own range */
                lo = hi = v[0];
                for (int64_t i = 1; i < n; i++) {
                    lo = v[i] < lo ? v[i] : lo;
                    hi = v[i] > hi ? v[i] : hi;
                }
            }
            if (lo == hi) { /* widened by one each way, in the compute type */
                lo = w64 ? (int64_t)((uint64_t)lo - 1) : (int32_t)(uint32_t)((uint32_t)lo - 1);
                hi = w64 ? (int64_t)((uint64_t)hi + 1) : (int32_t)(uint32_t)((uint32_t)hi + 1);
            }
            for (int64_t i = 0; i < n; i++) {
                const int64_t b = hc_bin_int(v[i], lo, hi, p->bins, w64);
                if (b >= 0) cnt[b]++;
            }
        } else {
            const double *v = d;
            double lo = p->lo, hi = p->hi;
            if (p->from_data) { /* the data's own range; a NaN propagates (then nothing is counted) */
                lo = hi = v[0];
                for (int64_t i = 1; i < n && !isnan(lo); i++) {
                    if (isnan(v[i])) {
                        lo = hi = NAN;
                        break;
                    }
                    lo = fmin(lo, v[i]);
                    hi = fmax(hi, v[i]);
                }
            }
            if (lo == hi) {
                lo -= 1;
                hi += 1;
            }
            /* in f32, as the kernel (and PyTorch): (x - min) * bins / (max - min), the last bin closed */
            const float flo = (float)lo, fhi = (float)hi, span = fhi - flo, fb = (float)p->bins;
            for (int64_t i = 0; i < n; i++) {
                const float x = (float)v[i];
                if (!(x >= flo && x <= fhi)) continue;
                const float q = (x - flo) * fb / span;
                int64_t b = q >= fb ? p->bins : q > 0 ? (int64_t)q : 0; /* NaN (an infinite span): bin 0 */
                if (b >= p->bins) b = p->bins - 1;
                cnt[b]++;
            }
        }
        free(d);
    }
    md_store(cnt, ACL_INT64, o);
    free(cnt);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Histc(const aclTensor *self, int64_t bins, const aclScalar *min, const aclScalar *max,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACLNN_CHECK(max != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Scalar but got null for argument max.");
    ACLNN_CHECK(min != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Scalar but got null for argument min.");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Histc, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Histc, "out"));
    const double dmin = acl_read_f64(min->bytes, min->dtype), dmax = acl_read_f64(max->bytes, max->dtype);
    const float fmin_ = (float)dmin, fmax_ = (float)dmax; /* aclScalar::ToFloat */
    const bool same_inf = isinf(fmin_) && isinf(fmax_) && (fmin_ > 0) == (fmax_ > 0);
    ACLNN_CHECK(same_inf || (isfinite(fmin_) && isfinite(fmax_)), ACLNN_ERR_PARAM_INVALID,
                "range of [min, max] = [%f, %f] is not finite.", (double)fmin_, (double)fmax_);
    ACLNN_CHECK(bins > 0, ACLNN_ERR_PARAM_INVALID, "bins %lld should be greater than 0.", (long long)bins);
    const bool ints = acl_dt_is_int(self->dtype);
    const bool sint = acl_dt_is_int(min->dtype) || min->dtype == ACL_BOOL;
    const bool xint = acl_dt_is_int(max->dtype) || max->dtype == ACL_BOOL;
    if (ints) {
        const int32_t a = sint ? (int32_t)acl_read_i64(min->bytes, min->dtype) : acl_f2i32(dmin);
        const int32_t b = xint ? (int32_t)acl_read_i64(max->bytes, max->dtype) : acl_f2i32(dmax);
        ACLNN_CHECK(a <= b, ACLNN_ERR_PARAM_INVALID, "max should be greater than or equal to min.");
    } else {
        ACLNN_CHECK(fmin_ <= fmax_, ACLNN_ERR_PARAM_INVALID, "max should be greater than or equal to min.");
    }
    /* the counts are cast from out's dtype back to self's: out's dtype must cast to self's */
    ACLNN_CHECK(acl_can_cast(out->dtype, self->dtype), ACLNN_ERR_PARAM_INVALID,
                "out dtype %s can not be cast to self dtype %s.", acl_dtype_name(out->dtype),
                acl_dtype_name(self->dtype));
    ACLNN_CHECK(out->ndim == 1, ACLNN_ERR_PARAM_INVALID, "out should be 1-D, got %llu-D.",
                (unsigned long long)out->ndim);
    ACL_TRY(md_check_max_dim(self, "self"));
    ACLNN_CHECK(out->dims[0] == bins, ACLNN_ERR_PARAM_INVALID, "out size %lld should be bins %lld.",
                (long long)out->dims[0], (long long)bins);
    hc_params pp = {bins, false, acl_tensor_empty(self), 0, 0, 0, 0};
    /* min/max as tensors of self's dtype; equal bounds (ints exactly, floats within 1e-6 or the same infinity)
     * take the data's range */
    if (ints) {
        const int64_t a = sint ? acl_read_i64(min->bytes, min->dtype) : acl_f2i64(dmin);
        const int64_t b = xint ? acl_read_i64(max->bytes, max->dtype) : acl_f2i64(dmax);
        pp.from_data = a == b;
        _Alignas(16) unsigned char t[16];
        acl_convert(min->bytes, min->dtype, 1, t, self->dtype, 1, 1);
        pp.ilo = acl_read_i64(t, self->dtype);
        acl_convert(max->bytes, max->dtype, 1, t, self->dtype, 1, 1);
        pp.ihi = acl_read_i64(t, self->dtype);
    } else {
        const float dlt = fmax_ - fmin_;
        pp.from_data = same_inf || (dlt < 1e-6f && dlt > -1e-6f);
        pp.lo = md_round(dmin, self->dtype);
        pp.hi = md_round(dmax, self->dtype);
    }
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_Histc, hc_run, sizeof pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor, &pp);
}

/* ================================================================ one_hot */
typedef struct {
    int64_t classes, axis;
} oh_params;

static aclnnStatus oh_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const oh_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(o->dtype);
    const aclDataType cdt = md_class_dt(c);
    int64_t *v = md_load(x, ACL_INT64);
    void *onb = md_load(acl_exec_in(ex, 1), cdt), *offb = md_load(acl_exec_in(ex, 2), cdt);
    void *r = md_alloc(md_numel(o), 8);
    if (!v || !onb || !offb || !r) {
        free(v);
        free(onb);
        free(offb);
        free(r);
        return OOM;
    }
    /* on/off: their first element; an empty onValue/offValue gives 1/0 (PyTorch's values) */
    const bool on_e = md_numel(acl_exec_in(ex, 1)) == 0, off_e = md_numel(acl_exec_in(ex, 2)) == 0;
    int64_t outer = 1, inner = 1;
    for (int k = 0; k < p->axis; k++) outer *= x->dims[k];
    for (int k = (int)p->axis; k < x->ndim; k++) inner *= x->dims[k];
    const int64_t C = p->classes;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(outer * C * inner))
    for (int64_t a = 0; a < outer; a++)
        for (int64_t k = 0; k < C; k++)
            for (int64_t i = 0; i < inner; i++) {
                const bool hit = v[a * inner + i] == k; /* a value outside [0, numClasses) hits nothing */
                const int64_t e = (a * C + k) * inner + i;
                if (c == VC_F) ((double *)r)[e] = hit ? (on_e ? 1 : *(double *)onb) : (off_e ? 0 : *(double *)offb);
                else ((int64_t *)r)[e] = hit ? (on_e ? 1 : *(int64_t *)onb) : (off_e ? 0 : *(int64_t *)offb);
            }
    md_store(r, cdt, o);
    free(v);
    free(onb);
    free(offb);
    free(r);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_OneHot(const aclTensor *self, int numClasses, const aclTensor *onValue,
                        const aclTensor *offValue, int64_t axis, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(onValue, "onValue");
    NN(offValue, "offValue");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_OneHot, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_OneHot_out, "out"));
    ACL_TRY(acl_check_dtype_in(onValue, ACL_DT_LIST_OneHot_out, "onValue"));
    ACL_TRY(acl_check_dtype_in(offValue, ACL_DT_LIST_OneHot_out, "offValue"));
    ACL_TRY(acl_check_same_dtype(out, "out", onValue, "onValue"));
    ACL_TRY(acl_check_same_dtype(out, "out", offValue, "offValue"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(onValue, "onValue"));
    ACL_TRY(md_check_max_dim(offValue, "offValue"));
    ACL_TRY(md_check_max_dim(out, "out"));
    if (acl_tensor_empty(self))
        ACLNN_CHECK(numClasses > 0, ACLNN_ERR_PARAM_INVALID, "numClasses should be greater than 0, got %d.",
                    numClasses);
    else
        ACLNN_CHECK(numClasses >= 0, ACLNN_ERR_PARAM_INVALID, "numClasses should be at least 0, got %d.",
                    numClasses);
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(axis >= -1, ACLNN_ERR_PARAM_INVALID, "axis should be at least -1, got %lld.", (long long)axis);
    ACLNN_CHECK(axis <= r, ACLNN_ERR_PARAM_INVALID, "axis should be at most %lld, got %lld.", (long long)r,
                (long long)axis);
    ACLNN_CHECK((int64_t)out->ndim == r + 1, ACLNN_ERR_PARAM_INVALID, "out should have %lld dims, has %llu.",
                (long long)(r + 1), (unsigned long long)out->ndim);
    const int64_t ax = axis < 0 ? axis + r + 1 : axis;
    for (int64_t k = 0, j = 0; k <= r; k++) {
        const int64_t want = k == ax ? numClasses : self->dims[j++];
        ACLNN_CHECK(out->dims[k] == want, ACLNN_ERR_PARAM_INVALID, "out dim %lld should be %lld, is %lld.",
                    (long long)k, (long long)want, (long long)out->dims[k]);
    }
    if (acl_tensor_empty(self) || numClasses == 0) return acl_exec_noop(ACL_OP_OneHot, workspaceSize, executor);
    const oh_params pp = {numClasses, ax};
    const aclTensor *ins[] = {self, onValue, offValue}, *outs[] = {out};
    const char *inn[] = {"self", "onValue", "offValue"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_OneHot, oh_run, sizeof pp, ins, inn, 3, outs, outn, 1, workspaceSize, executor, &pp);
}

/* ================================================================ masked_select */
typedef struct {
    int ndim;
    int64_t dims[ACL_MAX_VIEW_RANK]; /* the broadcast shape of self and mask */
} ms_params;

static aclnnStatus ms_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ms_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    acl_view xs = md_broadcast_view(acl_exec_in(ex, 0), p->dims, p->ndim);
    acl_view ms = md_broadcast_view(acl_exec_in(ex, 1), p->dims, p->ndim);
    const md_class c = md_class_of(o->dtype);
    const aclDataType cdt = md_class_dt(c);
    void *x = md_load_via(&xs, o->dtype, cdt); /* self is cast to out's dtype */
    int64_t *m = md_load(&ms, ACL_INT64);
    const int64_t n = md_numel(&xs), no = md_numel(o);
    void *r = md_alloc(no, md_class_size(c));
    if (!x || !m || !r) {
        free(x);
        free(m);
        free(r);
        return OOM;
    }
    int64_t k = 0; /* row-major over the broadcast shape; never more than out holds */
    for (int64_t i = 0; i < n && k < no; i++)
        if (m[i]) memcpy((char *)r + k++ * 8, (char *)x + i * 8, 8);
    acl_view head = *o; /* the selected count: the rest of out is left as it was */
    head.dims[0] = k;
    md_store(r, cdt, &head);
    free(x);
    free(m);
    free(r);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_MaskedSelect(const aclTensor *self, const aclTensor *mask, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(mask, "mask");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaskedSelect, "self"));
    ACL_TRY(acl_check_dtype_in(mask, ACL_DT_LIST_MaskedSelect_mask, "mask"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MaskedSelect, "out"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(mask, "mask"));
    ms_params pp = {0, {0}};
    int64_t b[ACL_MAX_TENSOR_DIMS];
    int nb = 0;
    ACLNN_CHECK(md_broadcast(self->dims, (int)self->ndim, mask->dims, (int)mask->ndim, b, &nb),
                ACLNN_ERR_PARAM_INVALID, "self and mask can not be broadcast.");
    ACLNN_CHECK(out->ndim == 1, ACLNN_ERR_PARAM_INVALID, "out should be 1-D, got %llu-D.",
                (unsigned long long)out->ndim);
    int64_t bn = 1;
    for (int k = 0; k < nb; k++) bn = acl_mul_i64(bn, b[k], &bn) ? bn : -1;
    ACLNN_CHECK(out->dims[0] == bn, ACLNN_ERR_PARAM_INVALID,
                "out size %lld should be the element count %lld of the broadcast shape.", (long long)out->dims[0],
                (long long)bn);
    if (acl_tensor_empty(self) || acl_tensor_empty(mask) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_MaskedSelect, workspaceSize, executor);
    pp.ndim = nb;
    memcpy(pp.dims, b, sizeof(int64_t) * (size_t)nb);
    /* As the device's dynamic-shape kernel leaves it, out's view shape becomes the selected count (read from mask's
     * data here, as Nonzero does; torch_npu reads the length back so). A NULL mask address keeps the shape. */
    if (mask->data) {
        acl_view mv;
        ACL_TRY(acl_view_init(&mv, mask, "mask", true));
        acl_view mb = md_broadcast_view(&mv, b, nb);
        int64_t *m = md_load(&mb, ACL_INT64);
        if (!m) return OOM;
        int64_t cnt = 0;
        for (int64_t i = 0; i < bn; i++) cnt += m[i] != 0;
        free(m);
        out->dims[0] = cnt;
        if (cnt == 0) return acl_exec_noop(ACL_OP_MaskedSelect, workspaceSize, executor);
    }
    const aclTensor *ins[] = {self, mask}, *outs[] = {out};
    const char *inn[] = {"self", "mask"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_MaskedSelect, ms_run, sizeof pp, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &pp);
}

/* ================================================================ fill_diagonal */
typedef struct {
    _Alignas(16) unsigned char v[16]; /* the fill value in selfRef's dtype */
    bool wrap;
} fd_params;

static aclnnStatus fd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fd_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t es = (int64_t)acl_dtype_size(o->dtype), h = o->dims[0], w = o->dims[1];
    if (o->ndim == 2 && p->wrap && h > w + 1) {
        /* PyTorch: the diagonal restarts every w + 1 rows of the row-major matrix: element (r, r mod (w + 1)) */
        for (int64_t r = 0; r < h; r++) {
            const int64_t c = r % (w + 1);
            if (c < w) acl_convert(p->v, o->dtype, 1, o->base + (r * o->strides[0] + c * o->strides[1]) * es,
                                   o->dtype, 1, 1);
        }
        return ACLNN_SUCCESS;
    }
    int64_t step = 0, n = h;
    for (int k = 0; k < o->ndim; k++) {
        step += o->strides[k];
        n = acl_min_i64(n, o->dims[k]);
    }
    acl_convert(p->v, o->dtype, 0, o->base, o->dtype, step, n); /* (i, i, ..., i), i < min(dims) */
    return ACLNN_SUCCESS;
}

/* c10::overflows<To>(value) as aclScalar::CheckOverflows applies it: integers may wrap into unsigned types, a
 * non-finite float fits any float type; bool and bf16 are not checked */
static bool fill_overflows(const aclScalar *s, aclDataType to) {
    double lo, hi;
    bool tofloat = true;
    switch (to) {
    case ACL_FLOAT: lo = -FLT_MAX, hi = FLT_MAX; break;
    case ACL_FLOAT16: lo = -65504.0, hi = 65504.0; break;
    case ACL_DOUBLE: return false;
    case ACL_INT8: lo = INT8_MIN, hi = INT8_MAX, tofloat = false; break;
    case ACL_INT16: lo = INT16_MIN, hi = INT16_MAX, tofloat = false; break;
    case ACL_INT32: lo = INT32_MIN, hi = INT32_MAX, tofloat = false; break;
    case ACL_INT64: lo = (double)INT64_MIN, hi = (double)INT64_MAX, tofloat = false; break;
    case ACL_UINT8: lo = 0, hi = UINT8_MAX, tofloat = false; break;
    default: return false;
    }
    if (s->dtype == ACL_BOOL) return false;
    if (acl_dt_is_int(s->dtype)) {
        const bool sgn =
            s->dtype == ACL_INT8 || s->dtype == ACL_INT16 || s->dtype == ACL_INT32 || s->dtype == ACL_INT64;
        if (!sgn) return (double)(uint64_t)acl_read_i64(s->bytes, s->dtype) > hi;
        const int64_t v = acl_read_i64(s->bytes, s->dtype);
        if (to == ACL_UINT8) return v > (int64_t)hi || (v < 0 && -(uint64_t)v > (uint64_t)hi);
        if (to == ACL_INT64) return false;
        return (double)v < lo || (double)v > hi;
    }
    const double v = acl_read_f64(s->bytes, s->dtype);
    if (tofloat && isinf(v)) return false;
    if (!tofloat && isnan(v)) return true;
    return v < lo || v > hi;
}

aclnnStatus opws_InplaceFillDiagonal(aclTensor *selfRef, const aclScalar *fillValue, bool wrap,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    ACLNN_CHECK(fillValue != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "Expected a proper Scalar but got null for argument fillValue.");
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_InplaceFillDiagonal, "selfRef"));
    ACL_TRY(md_check_max_dim(selfRef, "selfRef"));
    ACLNN_CHECK(selfRef->ndim >= 2, ACLNN_ERR_PARAM_INVALID, "selfRef should have at least 2 dims, has %llu.",
                (unsigned long long)selfRef->ndim);
    for (uint64_t k = 1; selfRef->ndim > 2 && k < selfRef->ndim; k++)
        ACLNN_CHECK(selfRef->dims[k] == selfRef->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "all dims of selfRef must be equal when it has more than 2.");
    ACLNN_CHECK(acl_dt_known(fillValue->dtype) && acl_can_cast(fillValue->dtype, ACL_FLOAT), ACLNN_ERR_PARAM_INVALID,
                "fillValue dtype %s can not be cast to FLOAT.", acl_dtype_name(fillValue->dtype));
    ACLNN_CHECK(!fill_overflows(fillValue, selfRef->dtype), ACLNN_ERR_PARAM_INVALID,
                "fillValue can not be converted to %s without overflow.", acl_dtype_name(selfRef->dtype));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceFillDiagonal, workspaceSize, executor);
    fd_params pp = {{0}, wrap};
    acl_convert(fillValue->bytes, fillValue->dtype, 1, pp.v, selfRef->dtype, 1, 1);
    const aclTensor *outs[] = {selfRef};
    const char *outn[] = {"selfRef"};
    return mk_exec(ACL_OP_InplaceFillDiagonal, fd_run, sizeof pp, NULL, NULL, 0, outs, outn, 1, workspaceSize,
                   executor, &pp);
}

/* ================================================================ isin(scalar, tensor) */
typedef struct {
    aclDataType pdt;
    _Alignas(16) unsigned char v[16]; /* element in pdt */
    bool invert, fill;   /* fill: out = invert (empty testElements or a NaN element) */
} isin_params;

static aclnnStatus isin_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const isin_params *p = ex->params;
    const acl_view *t = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    bool found = false;
    if (!p->fill) {
        const md_class c = md_class_of(p->pdt);
        void *d = md_load_via(t, p->pdt, md_class_dt(c));
        if (!d) return OOM;
        const int64_t n = md_numel(t);
        if (c == VC_F) {
            const double e = acl_read_f64(p->v, p->pdt);
            for (int64_t i = 0; i < n && !found; i++) found = ((double *)d)[i] == e;
        } else {
            const int64_t e = acl_read_i64(p->v, p->pdt);
            for (int64_t i = 0; i < n && !found; i++) found = ((int64_t *)d)[i] == e;
        }
        free(d);
    }
    const int64_t r = found != p->invert;
    md_store(&r, ACL_INT64, o);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_IsInScalarTensor(const aclScalar *element, const aclTensor *testElements,
                                  bool assumeUnique, bool invert, aclTensor *out,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)assumeUnique;
    ACLNN_CHECK(element != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "Expected a proper Scalar but got null for argument element.");
    NN(testElements, "testElements");
    NN(out, "out");
    ACL_TRY(md_check_scalar_dtype(element, ACL_DT_LIST_IsInScalarTensor, "element"));
    ACL_TRY(acl_check_dtype_in(testElements, ACL_DT_LIST_IsInScalarTensor, "testElements"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_IsInScalarTensor_out, "out"));
    /* the compare dtype: with 10+ test elements the promoted dtype; else testElements' dtype unless only the
     * element is floating (then the promoted one) */
    const aclDataType td = testElements->dtype, ed = element->dtype;
    const int64_t nt = acl_tensor_numel(testElements);
    aclDataType p = nt >= 10 || nt < 0 ? acl_promote(td, ed)
                  : acl_dt_is_float(td) ? td
                  : acl_dt_is_float(ed) ? acl_promote(td, ed) : td;
    ACLNN_CHECK(p != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "element dtype %s and testElements dtype %s can not "
                "promote.", acl_dtype_name(ed), acl_dtype_name(td));
    ACLNN_CHECK(acl_can_cast(ed, p), ACLNN_ERR_PARAM_INVALID, "element dtype %s can not be cast to %s.",
                acl_dtype_name(ed), acl_dtype_name(p));
    ACLNN_CHECK(acl_can_cast(td, p), ACLNN_ERR_PARAM_INVALID, "testElements dtype %s can not be cast to %s.",
                acl_dtype_name(td), acl_dtype_name(p));
    ACL_TRY(md_check_max_dim(testElements, "testElements"));
    ACLNN_CHECK(out->ndim == 0, ACLNN_ERR_PARAM_INVALID, "out should be 0-D, got %llu-D.",
                (unsigned long long)out->ndim);
    isin_params pp = {p, {0}, invert, false};
    pp.fill = acl_tensor_empty(testElements) ||
              (acl_dt_is_float(ed) && isnan(acl_read_f64(element->bytes, ed)));
    acl_convert(element->bytes, ed, 1, pp.v, p, 1, 1);
    const aclTensor *ins[] = {testElements}, *outs[] = {out};
    const char *inn[] = {"testElements"}, *outn[] = {"out"};
    return mk_exec(ACL_OP_IsInScalarTensor, isin_run, sizeof pp, ins, inn, 1, outs, outn, 1, workspaceSize, executor,
                   &pp);
}
