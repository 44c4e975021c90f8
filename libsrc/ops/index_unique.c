/* Unique and Unique2 (torch.unique over the flattened self): the distinct values in ascending order (for `sorted`
 * false too, as PyTorch's CPU sort-based kernel returns them), the inverse map (each element's position among the
 * values, self's shape) and the counts. Validation follows op_api aclnn_unique.cpp / aclnn_unique2.cpp (hicann/ops-nn
 * index/unique_consecutive). As on the device the caller allocates valueOut (and countsOut) for the largest count and
 * their view shape is set to the real count U: here in phase 1 (read from self's data then; they must be 1-D with
 * room for U, else 161002). The sort is a stable merge sort on a serial pass (NaN sorts last, each NaN distinct):
 * the same bytes for any thread count. */
#include "ops/index_unique_common.h"

typedef struct {
    bool inverse, counts;
} uq_params;

typedef struct {
    double f;
    int64_t i;
} uq_key;

static bool uq_less(md_class c, const uq_key *a, const uq_key *b) {
    if (c == VC_F) {
        if (isnan(a->f)) return false;
        if (isnan(b->f)) return true;
        return a->f < b->f;
    }
    return a->i < b->i;
}

static bool uq_eq(md_class c, const uq_key *a, const uq_key *b) {
    return c == VC_F ? a->f == b->f : a->i == b->i;
}

/* stable merge sort of the positions ord[0..n) by key */
static void uq_sort(md_class c, const uq_key *k, int64_t *ord, int64_t *tmp, int64_t n) {
    for (int64_t w = 1; w < n; w *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * w) {
            const int64_t mid = lo + w < n ? lo + w : n, hi = lo + 2 * w < n ? lo + 2 * w : n;
            int64_t a = lo, b = mid, t = lo;
            while (a < mid && b < hi) tmp[t++] = uq_less(c, &k[ord[b]], &k[ord[a]]) ? ord[b++] : ord[a++];
            while (a < mid) tmp[t++] = ord[a++];
            while (b < hi) tmp[t++] = ord[b++];
        }
        memcpy(ord, tmp, sizeof(int64_t) * (size_t)n);
    }
}

/* the sorted positions and the count of distinct values; NULL on OOM */
static int64_t *uq_plan(const acl_view *x, uq_key **keys, int64_t *nu) {
    const md_class c = md_class_of(x->dtype);
    const int64_t n = md_numel(x);
    void *buf = md_load(x, md_class_dt(c));
    uq_key *k = md_alloc(n, sizeof(uq_key));
    int64_t *ord = md_alloc(n, sizeof(int64_t)), *tmp = md_alloc(n, sizeof(int64_t));
    if (!buf || !k || !ord || !tmp) {
        free(buf);
        free(k);
        free(ord);
        free(tmp);
        return NULL;
    }
    for (int64_t e = 0; e < n; e++) {
        if (c == VC_F) k[e].f = ((double *)buf)[e];
        else k[e].i = ((int64_t *)buf)[e];
        ord[e] = e;
    }
    free(buf);
    uq_sort(c, k, ord, tmp, n);
    free(tmp);
    int64_t u = 0;
    for (int64_t e = 0; e < n; e++)
        if (e == 0 || !uq_eq(c, &k[ord[e]], &k[ord[e - 1]])) u++;
    *keys = k;
    *nu = u;
    return ord;
}

static aclnnStatus uq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const uq_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *vo = acl_exec_out(ex, 0);
    const md_class c = md_class_of(x->dtype);
    uq_key *k = NULL;
    int64_t u = 0;
    int64_t *ord = uq_plan(x, &k, &u);
    if (!ord) return OOM;
    const int64_t n = md_numel(x), room = md_numel(vo);
    void *vals = md_alloc(room, 8);
    int64_t *inv = md_alloc(n, sizeof(int64_t)), *cnt = md_alloc(room, sizeof(int64_t));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!vals || !inv || !cnt) rc = OOM;
    else {
        int64_t j = -1;
        for (int64_t e = 0; e < n; e++) {
            if (e == 0 || !uq_eq(c, &k[ord[e]], &k[ord[e - 1]])) {
                j++;
                if (j < room) {
                    if (c == VC_F) ((double *)vals)[j] = k[ord[e]].f;
                    else ((int64_t *)vals)[j] = k[ord[e]].i;
                }
            }
            inv[ord[e]] = j;
            if (j < room) cnt[j]++;
        }
        md_store(vals, md_class_dt(c), vo);
        int oi = 1;
        if (p->inverse) md_store(inv, ACL_INT64, acl_exec_out(ex, oi));
        if (p->inverse || p->counts) oi++;
        if (p->counts) md_store(cnt, ACL_INT64, acl_exec_out(ex, oi));
    }
    free(vals);
    free(inv);
    free(cnt);
    free(k);
    free(ord);
    return rc;
}

static aclnnStatus uq_common(int op, const aclTensor *self, bool returnInverse, bool returnCounts, aclTensor *valueOut,
                             aclTensor *inverseOut, aclTensor *countsOut, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Unique2, "self"));
    ACLNN_CHECK(inverseOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "inverseOut dtype %s should be int64.",
                acl_dtype_name(inverseOut->dtype));
    if (countsOut)
        ACLNN_CHECK(countsOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "countsOut dtype %s should be int64.",
                    acl_dtype_name(countsOut->dtype));
    ACL_TRY(md_check_max_dim(self, "self"));
    if (returnInverse || returnCounts) ACL_TRY(acl_check_same_shape(self, "self", inverseOut, "inverseOut"));
    if (returnCounts) ACL_TRY(acl_check_same_shape(valueOut, "valueOut", countsOut, "countsOut"));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    /* not op_api rules: the outputs the op writes */
    ACLNN_CHECK(acl_dt_known(valueOut->dtype) && !acl_dt_is_complex(valueOut->dtype), ACLNN_ERR_PARAM_INVALID,
                "valueOut dtype %s is not supported.", acl_dtype_name(valueOut->dtype));
    ACLNN_CHECK(valueOut->ndim == 1, ACLNN_ERR_PARAM_INVALID, "valueOut should be 1-D.");
    int64_t u = 0;
    if (self->data) { /* a NULL address is allowed in phase 1 (the run refuses it): the shapes stay then */
    acl_view xv;
    ACL_TRY(acl_view_init(&xv, self, "self", true));
    uq_key *k = NULL;
    int64_t *ord = uq_plan(&xv, &k, &u);
    if (!ord) return OOM;
    free(k);
    free(ord);
    ACLNN_CHECK(valueOut->dims[0] >= u, ACLNN_ERR_PARAM_INVALID, "valueOut has room for %lld of the %lld values.",
                (long long)valueOut->dims[0], (long long)u);
    valueOut->dims[0] = u; /* the real count, as the device reports it */
    if (returnCounts) countsOut->dims[0] = u;
    }
    uq_params p = {returnInverse, returnCounts};
    const aclTensor *ins[] = {self};
    const char *inn[] = {"self"};
    const aclTensor *outs[3] = {valueOut};
    const char *outn[3] = {"valueOut"};
    int no = 1;
    if (returnInverse || returnCounts) {
        outs[no] = inverseOut;
        outn[no++] = "inverseOut";
    }
    if (returnCounts) {
        outs[no] = countsOut;
        outn[no++] = "countsOut";
    }
    return ix_exec(op, uq_run, sizeof p, ins, inn, 1, outs, outn, no, ws, exo, &p);
}

aclnnStatus opws_Unique(const aclTensor *self, bool sorted, bool returnInverse, aclTensor *valueOut,
                        aclTensor *inverseOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(valueOut, "valueOut");
    NN(inverseOut, "inverseOut");
    return uq_common(ACL_OP_Unique, self, returnInverse, false, valueOut, inverseOut, NULL, workspaceSize, executor);
}

aclnnStatus opws_Unique2(const aclTensor *self, bool sorted, bool returnInverse, bool returnCounts,
                         aclTensor *valueOut, aclTensor *inverseOut, aclTensor *countsOut, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    NN(self, "self");
    NN(valueOut, "valueOut");
    NN(inverseOut, "inverseOut");
    NN(countsOut, "countsOut");
    return uq_common(ACL_OP_Unique2, self, returnInverse, returnCounts, valueOut, inverseOut, countsOut, workspaceSize,
                     executor);
}

/* ================================================================ UniqueConsecutive
 * torch.unique_consecutive: dim 1000 (the op's "None") works on the flattened self, any other dim on the slices
 * along it. valueOut's length along the dim (and countsOut's) is set to the real count in phase 1, as above. */
#define UC_NONE 1000

typedef struct {
    int dim; /* -1: flattened */
    bool inverse, counts;
} uc_params;

static bool uc_same(md_class c, const char *a, const char *b) {
    if (c == VC_F) return *(const double *)a == *(const double *)b;
    if (c == VC_I) return *(const int64_t *)a == *(const int64_t *)b;
    const double complex x = *(const double complex *)a, y = *(const double complex *)b;
    return creal(x) == creal(y) && cimag(x) == cimag(y);
}

/* group starts of the slices along the dim; returns the count (or -1 on OOM), *first[j] = 1 when slice j starts one */
static int64_t uc_groups(const char *buf, md_class c, int64_t outer, int64_t len, int64_t inner, unsigned char *first) {
    const size_t es = md_class_size(c);
    int64_t u = 0;
    for (int64_t j = 0; j < len; j++) {
        bool same = j > 0;
        for (int64_t o = 0; o < outer && same; o++)
            for (int64_t i = 0; i < inner && same; i++)
                same = uc_same(c, buf + (size_t)((o * len + j) * inner + i) * es,
                               buf + (size_t)((o * len + j - 1) * inner + i) * es);
        first[j] = !same;
        u += !same;
    }
    return u;
}

static void uc_split(const acl_view *x, int dim, int64_t *outer, int64_t *len, int64_t *inner) {
    if (dim < 0) {
        *outer = *inner = 1;
        *len = md_numel(x);
    } else {
        ix_split(x->dims, x->ndim, dim, outer, len, inner);
    }
}

static aclnnStatus uc_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const uc_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *vo = acl_exec_out(ex, 0);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    int64_t outer, len, inner;
    uc_split(x, p->dim, &outer, &len, &inner);
    /* the shapes phase 1 could not check (no data then): never write outside a view */
    bool ok = p->dim < 0 ? vo->ndim == 1 : vo->ndim == x->ndim;
    for (int k = 0; ok && p->dim >= 0 && k < x->ndim; k++) ok = k == p->dim || vo->dims[k] == x->dims[k];
    if (p->inverse) ok = ok && md_numel(acl_exec_out(ex, 1)) == len;
    if (p->counts) ok = ok && acl_exec_out(ex, 2)->ndim == 1;
    if (!ok) return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "valueOut/inverseOut/countsOut do not fit the result.");
    char *buf = md_load(x, md_class_dt(c));
    unsigned char *first = md_alloc(len, 1);
    int64_t *inv = md_alloc(len, sizeof(int64_t)), *cnt = NULL;
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!buf || !first || !inv) rc = OOM;
    else {
        const int64_t u = uc_groups(buf, c, outer, len, inner, first);
        const int64_t room = p->dim < 0 ? md_numel(vo) : vo->dims[p->dim], keep = u < room ? u : room;
        char *vals = md_alloc(outer * keep * inner, es);
        cnt = md_alloc(keep, sizeof(int64_t));
        if (!vals || !cnt) rc = OOM;
        else {
            int64_t g = -1;
            for (int64_t j = 0; j < len; j++) {
                if (first[j]) {
                    g++;
                    if (g < keep)
                        for (int64_t o = 0; o < outer; o++)
                            memcpy(vals + (size_t)((o * keep + g) * inner) * es,
                                   buf + (size_t)((o * len + j) * inner) * es, (size_t)inner * es);
                }
                inv[j] = g;
                if (g < keep) cnt[g]++;
            }
            acl_view vv = *vo;
            if (p->dim < 0) {
                vv.ndim = 1;
                vv.dims[0] = keep;
            } else {
                vv.dims[p->dim] = keep;
            }
            md_store(vals, md_class_dt(c), &vv);
            if (p->inverse) md_store(inv, ACL_INT64, acl_exec_out(ex, 1));
            if (p->counts) {
                acl_view cv = *acl_exec_out(ex, 2);
                cv.dims[0] = keep;
                md_store(cnt, ACL_INT64, &cv);
            }
        }
        free(vals);
    }
    free(buf);
    free(first);
    free(inv);
    free(cnt);
    return rc;
}

aclnnStatus opws_UniqueConsecutive(const aclTensor *self, bool returnInverse, bool returnCounts, int64_t dim,
                                   aclTensor *valueOut, aclTensor *inverseOut, aclTensor *countsOut,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(uq_check_args(self, ACL_DT_LIST_UniqueConsecutive, valueOut, inverseOut, countsOut));
    const int64_t r = (int64_t)self->ndim;
    if (dim != UC_NONE) ACL_TRY(uq_check_dim(dim, r));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_UniqueConsecutive, workspaceSize, executor);
    const int d = dim == UC_NONE || r == 0 ? -1 : (int)(dim < 0 ? dim + r : dim);
    uc_params p = {d, returnInverse, returnCounts};
    if (!self->data) { /* a NULL address is allowed in phase 1 (the run refuses it): the shapes stay then */
        const aclTensor *ins0[] = {self}, *outs0[] = {valueOut, inverseOut, countsOut};
        const char *inn0[] = {"self"}, *outn0[] = {"valueOut", "inverseOut", "countsOut"};
        return ix_exec(ACL_OP_UniqueConsecutive, uc_run, sizeof p, ins0, inn0, 1, outs0, outn0,
                       returnCounts ? 3 : returnInverse ? 2 : 1, workspaceSize, executor, &p);
    }
    /* not op_api rules: the outputs must hold what the op writes */
    acl_view xv;
    ACL_TRY(acl_view_init(&xv, self, "self", true));
    int64_t outer, len, inner;
    uc_split(&xv, d, &outer, &len, &inner);
    const md_class c = md_class_of(self->dtype);
    char *buf = md_load(&xv, md_class_dt(c));
    unsigned char *first = md_alloc(len, 1);
    if (!buf || !first) {
        free(buf);
        free(first);
        return OOM;
    }
    const int64_t u = uc_groups(buf, c, outer, len, inner, first);
    free(buf);
    free(first);
    if (d < 0) {
        ACLNN_CHECK(valueOut->ndim == 1 && valueOut->dims[0] >= u, ACLNN_ERR_PARAM_INVALID,
                    "valueOut should be 1-D with room for the %lld values.", (long long)u);
    } else {
        int64_t vdims[ACL_MAX_TENSOR_DIMS];
        for (int64_t k = 0; k < r; k++) vdims[k] = k == d ? u : self->dims[k];
        ACL_TRY(uq_fit_value_out(valueOut, vdims, (int)r, d, u, u * outer * inner));
    }
    if (returnInverse)
        ACLNN_CHECK(acl_tensor_numel(inverseOut) == len, ACLNN_ERR_PARAM_INVALID,
                    "inverseOut should hold %lld elements.", (long long)len);
    if (returnCounts)
        ACLNN_CHECK(countsOut->ndim == 1 && countsOut->dims[0] >= u, ACLNN_ERR_PARAM_INVALID,
                    "countsOut should be 1-D with room for the %lld counts.", (long long)u);
    if (d < 0) valueOut->dims[0] = u; /* the real count, as the device reports it */
    else valueOut->dims[d] = u;
    if (returnCounts) countsOut->dims[0] = u;
    const aclTensor *ins[] = {self}, *outs[] = {valueOut, returnInverse ? inverseOut : NULL,
                                                returnCounts ? countsOut : NULL};
    const char *inn[] = {"self"}, *outn[] = {"valueOut", "inverseOut", "countsOut"};
    if (!returnInverse && !returnCounts)
        return ix_exec(ACL_OP_UniqueConsecutive, uc_run, sizeof p, ins, inn, 1, outs, outn, 1, workspaceSize,
                       executor, &p);
    if (!returnCounts)
        return ix_exec(ACL_OP_UniqueConsecutive, uc_run, sizeof p, ins, inn, 1, outs, outn, 2, workspaceSize,
                       executor, &p);
    outs[1] = inverseOut; /* slot 1 keeps its meaning; written only with returnInverse */
    return ix_exec(ACL_OP_UniqueConsecutive, uc_run, sizeof p, ins, inn, 1, outs, outn, 3, workspaceSize, executor,
                   &p);
}
