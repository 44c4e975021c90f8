/* Advanced indexing: Index (out = self[indices]) and IndexPutImpl (self[indices] = values, or += with accumulate).
 *
 * PyTorch's rules: each entry of `indices` indexes one dim of self (an int32/int64 tensor), or several (a bool mask
 * over them, read as its nonzero coordinates in row-major order), or none (an empty tensor: the whole dim, ':');
 * the index tensors broadcast together to a shape B; when the indexed dims are adjacent B replaces them in place,
 * otherwise B leads and the other dims follow in order. Negative indices count from the end. The plan (one self
 * offset per result element) depends on data (a bool mask's count): phase 1 builds it on the current data, and a
 * result whose size does not match out (Index) or to which values does not broadcast (IndexPutImpl) fails there with
 * 161002; phase 2 builds it again (and checks again: the data may change between the phases).
 * Out-of-range indices (the device checks them with an assert kernel we do not model): Index writes zero for such an
 * element and IndexPutImpl skips the update; nothing outside a view is touched.
 * IndexPutImpl runs its updates serially in the row-major order of the result elements: with duplicate positions the
 * last value wins (accumulate false) or all are summed in that order (accumulate true), PyTorch's deterministic CPU
 * order; the bytes do not depend on the thread count. Validation follows op_api aclnn_index.cpp and
 * aclnn_index_put_impl.cpp (hicann/ops-nn index/). */
#include "ops/index_common.h"
#include "common/parallel.h"

typedef struct {
    int nidx;              /* entries of indices */
    int first_in;          /* input slot of indices[0] */
    int values_in;         /* IndexPutImpl: input slot of values, -1 for Index */
    bool accumulate;
} ip_params;

typedef struct {
    int ndim;                         /* result rank */
    int64_t dims[2 * ACL_MAX_VIEW_RANK];
    int64_t n;                        /* result elements */
    int64_t *off;                     /* self offset (contiguous row-major) per result element, -1: out of range */
} ip_plan;

/* builds the plan; returns 0, or a status with a message */
static aclnnStatus ip_build(aclOpExecutor *ex, const ip_params *p, const acl_view *x, ip_plan *pl) {
    const int r = x->ndim;
    int64_t xd[ACL_MAX_VIEW_RANK], xst[ACL_MAX_VIEW_RANK];
    for (int k = 0; k < r; k++) xd[k] = x->dims[k];
    int64_t s = 1;
    for (int k = r - 1; k >= 0; k--) {
        xst[k] = s;
        s *= xd[k];
    }
    /* the advanced index arrays: self dim, int64 values, shape */
    int adim[ACL_MAX_VIEW_RANK], an = 0, andim[ACL_MAX_VIEW_RANK];
    int64_t *aval[ACL_MAX_VIEW_RANK] = {0}, ashape[ACL_MAX_VIEW_RANK][ACL_MAX_VIEW_RANK];
    int consumed = 0;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < p->nidx && !rc; i++) {
        const acl_view *iv = acl_exec_in(ex, p->first_in + i);
        const int64_t cnt = md_numel(iv);
        if (cnt == 0) { /* ':' */
            consumed++;
            continue;
        }
        if (iv->dtype == ACL_BOOL || iv->dtype == ACL_UINT8) {
            unsigned char *m = md_load(iv, ACL_BOOL);
            int64_t nz = 0;
            if (!m) { rc = OOM; break; }
            for (int64_t e = 0; e < cnt; e++) nz += m[e] != 0;
            const int kd = iv->ndim ? iv->ndim : 1;
            for (int j = 0; j < kd && !rc; j++) {
                if (an >= ACL_MAX_VIEW_RANK || consumed + j >= (r ? r : 1)) {
                    rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "indices: too many indices for self of %d dims.", r);
                    break;
                }
                aval[an] = md_alloc(nz, sizeof(int64_t));
                if (!aval[an]) { rc = OOM; break; }
                adim[an] = consumed + j;
                andim[an] = 1;
                ashape[an][0] = nz;
                an++;
            }
            if (!rc) { /* the coordinates of each true element, row-major */
                int64_t q = 0;
                for (int64_t e = 0; e < cnt; e++) {
                    if (!m[e]) continue;
                    int64_t rem = e;
                    for (int j = kd - 1; j >= 0; j--) {
                        const int64_t dj = iv->ndim ? iv->dims[j] : 1;
                        aval[an - kd + j][q] = rem % dj;
                        rem /= dj;
                    }
                    q++;
                }
            }
            free(m);
            consumed += kd;
        } else {
            if (an >= ACL_MAX_VIEW_RANK || consumed >= (r ? r : 1)) {
                rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "indices: too many indices for self of %d dims.", r);
                break;
            }
            aval[an] = ix_load_index(iv);
            if (!aval[an]) { rc = OOM; break; }
            adim[an] = consumed++;
            andim[an] = iv->ndim;
            for (int j = 0; j < iv->ndim; j++) ashape[an][j] = iv->dims[j];
            an++;
        }
    }
    /* broadcast shape B of the index arrays */
    int64_t B[ACL_MAX_TENSOR_DIMS];
    int nb = 0;
    for (int a = 0; a < an && !rc; a++) {
        int64_t t[ACL_MAX_TENSOR_DIMS];
        int nt = 0;
        if (!md_broadcast(B, nb, ashape[a], andim[a], t, &nt) || nt > ACL_MAX_VIEW_RANK)
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "indices: shape mismatch, the index tensors cannot be broadcast together.");
        else {
            memcpy(B, t, sizeof(int64_t) * (size_t)nt);
            nb = nt;
        }
    }
    if (!rc) {
        bool adv[ACL_MAX_VIEW_RANK] = {0};
        for (int a = 0; a < an; a++) adv[adim[a]] = true;
        int lo = r, hi = -1;
        for (int k = 0; k < r; k++)
            if (adv[k]) {
                lo = k < lo ? k : lo;
                hi = k;
            }
        bool contig = an > 0;
        for (int k = lo; k <= hi && contig; k++) contig = adv[k];
        /* result dims: (dim source: self dim k >= 0, or B dim -1 - j) */
        int src[2 * ACL_MAX_VIEW_RANK], n = 0;
        if (an == 0) {
            for (int k = 0; k < r; k++) src[n++] = k;
        } else if (contig) {
            for (int k = 0; k < lo; k++) src[n++] = k;
            for (int j = 0; j < nb; j++) src[n++] = -1 - j;
            for (int k = hi + 1; k < r; k++) src[n++] = k;
        } else {
            for (int j = 0; j < nb; j++) src[n++] = -1 - j;
            for (int k = 0; k < r; k++)
                if (!adv[k]) src[n++] = k;
        }
        pl->ndim = n;
        int64_t total = 1;
        for (int k = 0; k < n; k++) {
            pl->dims[k] = src[k] >= 0 ? xd[src[k]] : B[-1 - src[k]];
            total *= pl->dims[k];
        }
        pl->n = total;
        pl->off = md_alloc(total, sizeof(int64_t));
        if (!pl->off) rc = OOM;
        /* the strides of each index array over B (broadcast: 0) */
        int64_t ast[ACL_MAX_VIEW_RANK][ACL_MAX_VIEW_RANK];
        for (int a = 0; a < an; a++) {
            int64_t st = 1;
            for (int j = nb - 1; j >= 0; j--) {
                const int jj = j - (nb - andim[a]);
                const int64_t dj = jj >= 0 ? ashape[a][jj] : 1;
                ast[a][j] = (jj < 0 || dj == 1) ? 0 : st;
                st *= jj >= 0 ? dj : 1;
            }
        }
        for (int64_t e = 0; e < total && !rc; e++) {
            int64_t rem = e, off = 0, bidx[ACL_MAX_TENSOR_DIMS];
            for (int k = n - 1; k >= 0; k--) {
                const int64_t c = rem % pl->dims[k];
                rem /= pl->dims[k];
                if (src[k] >= 0) off += c * xst[src[k]];
                else bidx[-1 - src[k]] = c;
            }
            bool ok = true;
            for (int a = 0; a < an; a++) {
                int64_t q = 0;
                for (int j = 0; j < nb; j++) q += bidx[j] * ast[a][j];
                int64_t v = aval[a][q];
                const int64_t len = r ? xd[adim[a]] : 1;
                if (v < 0) v += len;
                if (v < 0 || v >= len) ok = false;
                else if (r) off += v * xst[adim[a]];
            }
            pl->off[e] = ok ? off : -1;
        }
    }
    for (int a = 0; a < an; a++) free(aval[a]);
    return rc;
}

/* the result must fill out (Index) / values must broadcast to it (IndexPutImpl) -> 161002 */
static aclnnStatus ip_check(const ip_params *p, const ip_plan *pl, const acl_view *o, const acl_view *vv) {
    ACLNN_CHECK(pl->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "indices: the indexing result has %d dims; it should be less than or equal to 8.", pl->ndim);
    if (p->values_in < 0) {
        if (pl->n != md_numel(o))
            return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "out has %lld elements; the indexing result has %lld.",
                              (long long)md_numel(o), (long long)pl->n);
        return ACLNN_SUCCESS;
    }
    int64_t bd[ACL_MAX_TENSOR_DIMS];
    int nbd = 0;
    if (!md_broadcast(pl->dims, pl->ndim, vv->dims, vv->ndim, bd, &nbd) || nbd != pl->ndim ||
        memcmp(bd, pl->dims, sizeof(int64_t) * (size_t)nbd) != 0)
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "values: shape cannot be broadcast to the indexing result.");
    return ACLNN_SUCCESS;
}

static aclnnStatus ip_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ip_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    ip_plan pl = {0, {0}, 0, NULL};
    aclnnStatus rc = ip_build(ex, p, x, &pl);
    if (!rc) rc = ip_check(p, &pl, o, p->values_in < 0 ? NULL : acl_exec_in(ex, p->values_in));
    if (rc) {
        free(pl.off);
        return rc;
    }
    if (p->values_in < 0) { /* Index: gather into out */
        const size_t es = acl_dtype_size(x->dtype);
        char *src = ix_load_raw(x), *dst = md_alloc(pl.n, es);
        if (!src || !dst) rc = OOM;
        else {
            ACL_FOR(acl_parallel_worth(pl.n), e, 0, pl.n, {
                if (pl.off[e] < 0) memset(dst + (size_t)e * es, 0, es);
                else memcpy(dst + (size_t)e * es, src + (size_t)pl.off[e] * es, es);
            });
            md_store(dst, o->dtype, o);
        }
        free(src);
        free(dst);
        free(pl.off);
        return rc;
    }
    /* IndexPutImpl: values broadcast to the result */
    const acl_view *vv = acl_exec_in(ex, p->values_in);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    acl_view bv = md_broadcast_view(vv, pl.dims, pl.ndim);
    char *dst = md_load(x, md_class_dt(c)), *val = md_load(&bv, md_class_dt(c));
    if (!dst || !val) rc = OOM;
    else {
        for (int64_t e = 0; e < pl.n; e++)
            if (pl.off[e] >= 0)
                ix_apply(c, p->accumulate ? IX_ADD : IX_SET, dst + (size_t)pl.off[e] * es, val + (size_t)e * es);
        md_store(dst, md_class_dt(c), o);
    }
    free(dst);
    free(val);
    free(pl.off);
    return rc;
}

static aclnnStatus ip_exec(int op, const aclTensor *self, const char *sname, const aclTensorList *indices,
                           const aclTensor *values, const aclTensor *out, const char *oname, bool accumulate,
                           uint64_t *ws, aclOpExecutor **exo) {
    const int ni = (int)indices->size;
    ACLNN_CHECK(ni + 2 <= ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "indices: too many tensors (%d).", ni);
    const aclTensor *ins[ACL_MAX_TENSOR_DIMS + 2];
    const char *inn[ACL_MAX_TENSOR_DIMS + 2];
    int k = 0;
    ins[k] = self;
    inn[k++] = sname;
    for (int i = 0; i < ni; i++) {
        ins[k] = indices->v[i];
        inn[k++] = "indices";
    }
    ip_params p = {ni, 1, -1, accumulate};
    if (values) {
        p.values_in = k;
        ins[k] = values;
        inn[k++] = "values";
    }
    /* phase 1 builds the plan once on the current data, so that a call whose result cannot fill out (or take
     * values) fails here with 161002; phase 2 builds it again (the data may have changed in between) */
    bool have_data = true; /* a NULL address is allowed in phase 1 (the run refuses it): no precheck then */
    for (int i = 0; i < k; i++) have_data &= acl_tensor_empty(ins[i]) || ins[i]->data != NULL;
    const aclTensor *outs[] = {out};
    const char *outn[] = {oname};
    if (!have_data) return ix_exec(op, ip_run, sizeof p, ins, inn, k, outs, outn, 1, ws, exo, &p);
    acl_view views[ACL_MAX_TENSOR_DIMS + 2];
    for (int i = 0; i < k; i++) ACL_TRY(acl_view_init(&views[i], ins[i], inn[i], !acl_tensor_empty(ins[i])));
    acl_view ov;
    ACL_TRY(acl_view_init(&ov, out, oname, false));
    struct aclOpExecutor fake;
    memset(&fake, 0, sizeof fake);
    fake.io = views;
    fake.n_in = k;
    ip_plan pl = {0, {0}, 0, NULL};
    aclnnStatus rc = ip_build(&fake, &p, &views[0], &pl);
    if (!rc) rc = ip_check(&p, &pl, &ov, values ? &views[p.values_in] : NULL);
    free(pl.off);
    if (rc) return rc;
    return ix_exec(op, ip_run, sizeof p, ins, inn, k, outs, outn, 1, ws, exo, &p);
}

aclnnStatus opws_Index(const aclTensor *self, const aclTensorList *indices, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACLNN_CHECK(indices != NULL, ACLNN_ERR_PARAM_NULLPTR, "indices must not be NULL.");
    for (uint64_t i = 0; i < indices->size; i++) NN(indices->v[i], "indices");
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Index, "self"));
    for (uint64_t i = 0; i < indices->size; i++)
        if (!acl_tensor_empty(indices->v[i]))
            ACL_TRY(acl_check_dtype_in(indices->v[i], ACL_DT_LIST_Index_indices, "indices"));
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID, "self don't support private format.");
    ACLNN_CHECK(!acl_format_is_private(out->format), ACLNN_ERR_PARAM_INVALID, "out don't support private format.");
    for (uint64_t i = 0; i < indices->size; i++)
        ACLNN_CHECK(!acl_format_is_private(indices->v[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "indices don't support private format.");
    ACL_TRY(md_check_max_dim(self, "self"));
    for (uint64_t i = 0; i < indices->size; i++) ACL_TRY(md_check_max_dim(indices->v[i], "indices"));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Index, workspaceSize, executor);
    ACLNN_CHECK(indices->size <= ACL_MAX_TENSOR_DIMS, ACLNN_ERR_PARAM_INVALID, "indices: too many tensors.");
    ACL_TRY(md_check_max_dim(out, "out"));
    return ip_exec(ACL_OP_Index, self, "self", indices, NULL, out, "out", false, workspaceSize, executor);
}

aclnnStatus opws_IndexPutImpl(aclTensor *selfRef, const aclTensorList *indices, const aclTensor *values,
                              const bool accumulate, const bool unsafe, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    NN(values, "values");
    ACLNN_CHECK(indices != NULL, ACLNN_ERR_PARAM_NULLPTR, "indices must not be NULL.");
    for (uint64_t i = 0; i < indices->size; i++) NN(indices->v[i], "indices");
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_IndexPutImpl, "selfRef"));
    ACL_TRY(acl_check_dtype_in(values, ACL_DT_LIST_IndexPutImpl, "values"));
    for (uint64_t i = 0; i < indices->size; i++)
        if (!acl_tensor_empty(indices->v[i]))
            ACL_TRY(acl_check_dtype_in(indices->v[i], ACL_DT_LIST_IndexPutImpl_indices, "indices"));
    ACL_TRY(acl_check_same_dtype(values, "values", selfRef, "selfRef"));
    ACL_TRY(md_check_max_dim(selfRef, "selfRef"));
    ACLNN_CHECK(indices->size <= selfRef->ndim, ACLNN_ERR_PARAM_INVALID, "indices: indicesSize must <= self DimSize.");
    /* bool masks: their dims must match the dims of self they consume */
    bool has_mask = false;
    for (uint64_t i = 0; i < indices->size; i++)
        has_mask |= !acl_tensor_empty(indices->v[i]) && indices->v[i]->dtype == ACL_BOOL;
    if (has_mask) {
        uint64_t used = 0;
        for (uint64_t i = 0; i < indices->size; i++) {
            const aclTensor *t = indices->v[i];
            if (acl_tensor_empty(t)) {
                used++;
                continue;
            }
            ACLNN_CHECK(used + t->ndim <= selfRef->ndim, ACLNN_ERR_PARAM_INVALID,
                        "indices: the index at indices[%llu] has %llu dimensions, but only %llu remain in selfRef.",
                        (unsigned long long)i, (unsigned long long)t->ndim,
                        (unsigned long long)(selfRef->ndim - used));
            for (uint64_t j = 0; j < t->ndim; j++)
                ACLNN_CHECK(t->dims[j] == selfRef->dims[used + j], ACLNN_ERR_PARAM_INVALID,
                            "indices: the shape of the bool mask at indices[%llu] dim %llu does not match selfRef.",
                            (unsigned long long)i, (unsigned long long)j);
            used += t->ndim;
        }
    }
    if (acl_tensor_empty(selfRef) || acl_tensor_empty(values))
        return acl_exec_noop(ACL_OP_IndexPutImpl, workspaceSize, executor);
    ACL_TRY(md_check_max_dim(values, "values"));
    return ip_exec(ACL_OP_IndexPutImpl, selfRef, "selfRef", indices, values, selfRef, "selfRef", accumulate,
                   workspaceSize, executor);
}
