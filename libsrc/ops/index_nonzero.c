/* Nonzero (out [N, D]) and NonzeroV2 (out [D, N]): the coordinates of the nonzero elements of self in row-major order
 * (torch.nonzero). Validation follows op_api aclnn_nonzero.cpp / aclnn_nonzero_v2.cpp (hicann/ops-nn index/non_zero).
 * As on the device, out is allocated by the caller for the largest count and its view shape is set to the real
 * count N: here in phase 1 (the count is read from self's data then; out must be 2-D with D = self's rank and room
 * for N rows, else 161002; NonzeroV2's op_api checks only ranks then, so its short out is refused in phase 2),
 * so aclGetViewShape tells N as the upstream examples expect; NonzeroV2's [D, N] is
 * written compactly (row stride N) into a contiguous out, as the device's dynamic-shape kernel does. Phase 2 counts again and
 * writes at most the rows out's view holds. Serial: the same bytes for any thread count. */
#include "ops/index_common.h"

typedef struct {
    bool v2;
} nz_params;

static int64_t nz_count(const acl_view *x, unsigned char **mask) {
    acl_view b = *x;
    unsigned char *m = md_load(&b, ACL_BOOL);
    if (!m) return -1;
    int64_t n = 0;
    const int64_t t = md_numel(x);
    for (int64_t e = 0; e < t; e++) n += m[e] != 0;
    if (mask) *mask = m;
    else free(m);
    return n;
}

static aclnnStatus nz_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const nz_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    unsigned char *m = NULL;
    const int64_t n = nz_count(x, &m);
    if (n < 0) return OOM;
    const int d = x->ndim;
    const int64_t rows = p->v2 ? o->dims[1] : o->dims[0], keep = n < rows ? n : rows;
    if (p->v2 && n > rows) {
        free(m);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "out has room for %lld of the %lld nonzero elements.",
                          (long long)rows, (long long)n);
    }
    int64_t *c = md_alloc(keep * d, sizeof(int64_t));
    if (!c) {
        free(m);
        return OOM;
    }
    const int64_t t = md_numel(x);
    int64_t q = 0;
    for (int64_t e = 0; e < t && q < keep; e++) {
        if (!m[e]) continue;
        int64_t rem = e;
        for (int k = d - 1; k >= 0; k--) {
            const int64_t v = rem % x->dims[k];
            rem /= x->dims[k];
            if (p->v2) c[k * keep + q] = v;
            else c[q * d + k] = v;
        }
        q++;
    }
    acl_view ov = *o; /* the rows written */
    if (p->v2) ov.dims[1] = keep;
    else ov.dims[0] = keep;
    md_store(c, ACL_INT64, &ov);
    free(c);
    free(m);
    return ACLNN_SUCCESS;
}

static aclnnStatus nz_common(int op, const aclTensor *self, aclTensor *out, bool v2, const aclDataType *list, int nl,
                             uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, list, nl, "self"));
    ACLNN_CHECK(out->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be int64.",
                acl_dtype_name(out->dtype));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(out, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    const int64_t d = (int64_t)self->ndim;
    ACLNN_CHECK(out->ndim == 2 && out->dims[v2 ? 0 : 1] == d, ACLNN_ERR_PARAM_INVALID,
                "out shape should be %s with D = %lld (self's rank).", v2 ? "[D, N]" : "[N, D]", (long long)d);
    nz_params p = {v2};
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    if (!self->data) /* a NULL address is allowed in phase 1 (the run refuses it): out keeps its shape */
        return ix_exec(op, nz_run, sizeof p, ins, inn, 1, outs, outn, 1, ws, exo, &p);
    acl_view xv;
    ACL_TRY(acl_view_init(&xv, self, "self", true));
    const int64_t n = nz_count(&xv, NULL);
    if (n < 0) return OOM;
    /* V2's op_api checks only ranks in phase 1: a short out is refused when the op runs (nz_run) */
    if (v2 && out->dims[1] < n) return ix_exec(op, nz_run, sizeof p, ins, inn, 1, outs, outn, 1, ws, exo, &p);
    ACLNN_CHECK(out->dims[v2 ? 1 : 0] >= n, ACLNN_ERR_PARAM_INVALID, "out has room for %lld of the %lld nonzero elements.",
                (long long)out->dims[v2 ? 1 : 0], (long long)n);
    out->dims[v2 ? 1 : 0] = n; /* the real count, as the device reports it */
    /* The kernel's output is the compact [D, N] (V2): a contiguous out's rows are N apart afterwards, not the
     * allocated count apart (torch_npu reads them so). [N, D] is the same either way. */
    if (v2 && out->strides[1] == 1 && out->strides[0] >= n) out->strides[0] = n;
    if (n == 0) return acl_exec_noop(op, ws, exo);
    return ix_exec(op, nz_run, sizeof p, ins, inn, 1, outs, outn, 1, ws, exo, &p);
}

aclnnStatus opws_Nonzero(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return nz_common(ACL_OP_Nonzero, self, out, false, ACL_DT_LIST_Nonzero, workspaceSize, executor);
}

aclnnStatus opws_NonzeroV2(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return nz_common(ACL_OP_NonzeroV2, self, out, true, ACL_DT_LIST_NonzeroV2, workspaceSize, executor);
}
