/* UniqueDim (torch.unique(self, dim=d, return_inverse, return_counts=True)): the distinct slices of self along dim,
 * in ascending lexicographic order (PyTorch sorts them whatever `sorted` says), the inverse map (each slice's
 * position among them, length self.shape[dim]) and the counts. Validation in the order of op_api
 * aclnn_unique_dim.cpp (hicann/ops-nn index/unique_with_counts_ext2). As for Unique the result length U is known only
 * from the data: valueOut (self's shape with room for U along dim, or a flat contiguous buffer, as the upstream
 * example passes) and countsOut (1-D with room for U) get their view shape set to the real count in phase 1.
 * A stable serial merge sort of the slice positions: the same bytes for any thread count. NaN sorts last and
 * never equals anything (each slice holding one is distinct). */
#include "ops/index_unique_common.h"

typedef struct {
    int dim;
    bool inverse;
} ud_params;

typedef struct {
    md_class c;
    const char *buf;
    int64_t outer, len, inner;
} ud_src;

static int ud_cmp_elem(md_class c, const char *a, const char *b) {
    if (c == VC_F) {
        const double x = *(const double *)a, y = *(const double *)b;
        if (isnan(x)) return isnan(y) ? 2 : 1; /* 2: unordered, not equal */
        if (isnan(y)) return -1;
        return x < y ? -1 : x > y;
    }
    const int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* -1 / 0 / 1 lexicographic over (outer, inner); 2 when equal up to a NaN (ordered as equal, never merged) */
static int ud_cmp(const ud_src *s, int64_t ja, int64_t jb) {
    const size_t es = md_class_size(s->c);
    int res = 0;
    for (int64_t o = 0; o < s->outer; o++)
        for (int64_t i = 0; i < s->inner; i++) {
            const int r = ud_cmp_elem(s->c, s->buf + (size_t)((o * s->len + ja) * s->inner + i) * es,
                                      s->buf + (size_t)((o * s->len + jb) * s->inner + i) * es);
            if (r == 2) res = 2;
            else if (r) return r;
        }
    return res;
}

/* sorted slice positions and group starts; returns U, or -1 on OOM */
static int64_t ud_plan(const ud_src *s, int64_t *ord, unsigned char *first) {
    int64_t *tmp = md_alloc(s->len, sizeof(int64_t));
    if (!tmp) return -1;
    for (int64_t j = 0; j < s->len; j++) ord[j] = j;
    for (int64_t w = 1; w < s->len; w *= 2) {
        for (int64_t lo = 0; lo < s->len; lo += 2 * w) {
            const int64_t mid = lo + w < s->len ? lo + w : s->len, hi = lo + 2 * w < s->len ? lo + 2 * w : s->len;
            int64_t a = lo, b = mid, t = lo;
            while (a < mid && b < hi) tmp[t++] = ud_cmp(s, ord[b], ord[a]) == -1 ? ord[b++] : ord[a++];
            while (a < mid) tmp[t++] = ord[a++];
            while (b < hi) tmp[t++] = ord[b++];
        }
        memcpy(ord, tmp, sizeof(int64_t) * (size_t)s->len);
    }
    free(tmp);
    int64_t u = 0;
    for (int64_t e = 0; e < s->len; e++) {
        first[e] = e == 0 || ud_cmp(s, ord[e], ord[e - 1]) != 0;
        u += first[e];
    }
    return u;
}

static void ud_split(const int64_t *dims, int ndim, int d, int64_t *outer, int64_t *len, int64_t *inner) {
    if (ndim == 0) *outer = *len = *inner = 1;
    else ix_split(dims, ndim, d, outer, len, inner);
}

static aclnnStatus ud_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ud_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *vo = acl_exec_out(ex, 0), *io = acl_exec_out(ex, 1),
                   *co = acl_exec_out(ex, 2);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    ud_src s = {c, NULL, 0, 0, 0};
    ud_split(x->dims, x->ndim, p->dim, &s.outer, &s.len, &s.inner);
    /* the shapes phase 1 could not check (no data then): never write outside a view */
    bool ok = vo->ndim == (x->ndim ? x->ndim : 1) && co->ndim == 1;
    for (int k = 0; ok && x->ndim && k < x->ndim; k++) ok = k == p->dim || vo->dims[k] == x->dims[k];
    if (p->inverse) ok = ok && io->ndim == 1 && io->dims[0] == s.len;
    if (!ok) return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "valueOut/inverseOut/countsOut do not fit the result.");
    char *buf = md_load(x, md_class_dt(c));
    int64_t *ord = md_alloc(s.len, sizeof(int64_t)), *inv = md_alloc(s.len, sizeof(int64_t)), *cnt = NULL;
    unsigned char *first = md_alloc(s.len, 1);
    char *vals = NULL;
    aclnnStatus rc = ACLNN_SUCCESS;
    s.buf = buf;
    int64_t u = buf && ord && inv && first ? ud_plan(&s, ord, first) : -1;
    const int vd = x->ndim ? p->dim : 0;
    const int64_t room = vo->dims[vd] < co->dims[0] ? vo->dims[vd] : co->dims[0], keep = u < room ? u : room;
    if (u >= 0) {
        vals = md_alloc(s.outer * (keep ? keep : 1) * s.inner, es);
        cnt = md_alloc(keep ? keep : 1, sizeof(int64_t));
    }
    if (u < 0 || !vals || !cnt) rc = OOM;
    else {
        int64_t g = -1;
        for (int64_t e = 0; e < s.len; e++) {
            const int64_t j = ord[e];
            if (first[e]) {
                g++;
                if (g < keep)
                    for (int64_t o = 0; o < s.outer; o++)
                        memcpy(vals + (size_t)((o * keep + g) * s.inner) * es,
                               buf + (size_t)((o * s.len + j) * s.inner) * es, (size_t)s.inner * es);
            }
            inv[j] = g;
            if (g < keep) cnt[g]++;
        }
        acl_view vv = *vo, cv = *co;
        vv.dims[vd] = keep;
        cv.dims[0] = keep;
        md_store(vals, md_class_dt(c), &vv);
        md_store(cnt, ACL_INT64, &cv);
        if (p->inverse) md_store(inv, ACL_INT64, io);
    }
    free(vals);
    free(cnt);
    free(buf);
    free(ord);
    free(inv);
    free(first);
    return rc;
}

/* a contiguous tensor of any rank with room for n elements (the upstream example's [4, 2] inverse) becomes [n] */
static bool ud_reshape_contig(aclTensor *t, int64_t n) {
    if (!acl_tensor_row_major(t) || acl_tensor_numel(t) < n) return false;
    t->ndim = 1;
    t->dims[0] = n;
    t->strides[0] = 1;
    return true;
}

aclnnStatus opws_UniqueDim(const aclTensor *self, bool sorted, bool returnInverse, int64_t dim, aclTensor *valueOut,
                           aclTensor *inverseOut, aclTensor *countsOut, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    (void)sorted; /* PyTorch's unique along a dim always sorts */
    ACL_TRY(uq_check_args(self, ACL_DT_LIST_UniqueDim, valueOut, inverseOut, countsOut));
    const int64_t r = (int64_t)self->ndim;
    ACL_TRY(uq_check_dim(dim, r));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_UniqueDim, workspaceSize, executor);
    const int d = r == 0 ? 0 : (int)(dim < 0 ? dim + r : dim);
    ud_params p = {d, returnInverse};
    const aclTensor *ins[] = {self}, *outs[] = {valueOut, inverseOut, countsOut};
    const char *inn[] = {"self"}, *outn[] = {"valueOut", "inverseOut", "countsOut"};
    if (!self->data) /* a NULL address is allowed in phase 1 (the run refuses it): the shapes stay then */
        return ix_exec(ACL_OP_UniqueDim, ud_run, sizeof p, ins, inn, 1, outs, outn, 3, workspaceSize, executor, &p);
    /* not op_api rules: the outputs must hold what the op writes */
    acl_view xv;
    ACL_TRY(acl_view_init(&xv, self, "self", true));
    ud_src s = {md_class_of(self->dtype), NULL, 0, 0, 0};
    ud_split(xv.dims, xv.ndim, d, &s.outer, &s.len, &s.inner);
    char *buf = md_load(&xv, md_class_dt(s.c));
    int64_t *ord = md_alloc(s.len, sizeof(int64_t));
    unsigned char *first = md_alloc(s.len, 1);
    s.buf = buf;
    const int64_t u = buf && ord && first ? ud_plan(&s, ord, first) : -1;
    free(buf);
    free(ord);
    free(first);
    if (u < 0) return OOM;
    int64_t vdims[ACL_MAX_TENSOR_DIMS];
    const int vn = r ? (int)r : 1;
    for (int k = 0; k < vn; k++) vdims[k] = r && k != d ? self->dims[k] : u;
    ACL_TRY(uq_fit_value_out(valueOut, vdims, vn, d, u, u * s.outer * s.inner));
    if (returnInverse) {
        const int64_t idims[1] = {s.len};
        const bool iok = inverseOut->ndim == 1 && inverseOut->dims[0] == s.len;
        ACLNN_CHECK(iok || uq_reshape_flat(inverseOut, idims, 1, s.len) ||
                    ud_reshape_contig(inverseOut, s.len),
                    ACLNN_ERR_PARAM_INVALID, "inverseOut should hold the %lld positions.", (long long)s.len);
    }
    ACLNN_CHECK(countsOut->ndim == 1 && countsOut->dims[0] >= u, ACLNN_ERR_PARAM_INVALID,
                "countsOut should be 1-D with room for the %lld counts.", (long long)u);
    valueOut->dims[d] = u; /* the real count, as the device reports it */
    countsOut->dims[0] = u;
    return ix_exec(ACL_OP_UniqueDim, ud_run, sizeof p, ins, inn, 1, outs, outn, 3, workspaceSize, executor, &p);
}
