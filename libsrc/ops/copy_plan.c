/* Copy plans (see copy_plan.h). */
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"

static void cp_free(void *p) {
    cp_plan *pl = p;
    if (pl) free(pl->items);
    free(pl);
}

static aclnnStatus cp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const cp_plan *pl = ex->params;
    if (pl->fill_slot >= 0) {
        const acl_view *v = &ex->io[pl->fill_slot];
        double complex val = pl->fill_value + pl->fill_imag * I;
        unsigned char one[16];
        acl_convert(&val, ACL_COMPLEX128, 0, one, v->dtype, 0, 1);
        int64_t zero[ACL_MAX_VIEW_RANK] = {0};
        cp_copy((const char *)one, v->dtype, zero, v->base, v->dtype, v->strides, v->dims, v->ndim);
    }
    for (int i = 0; i < pl->n; i++) {
        const cp_item *it = &pl->items[i];
        const acl_view *s = &ex->io[it->src], *d = &ex->io[it->dst];
        cp_copy(s->base + it->soff * (int64_t)acl_dtype_size(s->dtype), s->dtype, it->sst,
                d->base + it->doff * (int64_t)acl_dtype_size(d->dtype), d->dtype, it->dstt, it->dims, it->ndim);
    }
    return ACLNN_SUCCESS;
}

aclOpExecutor *cp_exec_create(int op) {
    aclOpExecutor *ex = acl_exec_create(op, cp_run, sizeof(cp_plan));
    if (!ex) return NULL;
    ex->free_params = cp_free;
    cp_of(ex)->fill_slot = -1;
    return ex;
}

aclnnStatus cp_add(aclOpExecutor *ex, int src, int64_t soff, const int64_t *sst, int dst, int64_t doff,
                   const int64_t *dstt, const int64_t *dims, int ndim) {
    cp_plan *pl = cp_of(ex);
    ACLNN_CHECK(ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "a copy of rank %d (at most %d)", ndim,
                ACL_MAX_VIEW_RANK);
    if (pl->n == pl->cap) {
        int cap = pl->cap ? 2 * pl->cap : 4;
        cp_item *it = realloc(pl->items, sizeof *it * (size_t)cap);
        ACLNN_CHECK(it != NULL, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory planning a copy");
        pl->items = it;
        pl->cap = cap;
    }
    cp_item *it = &pl->items[pl->n++];
    memset(it, 0, sizeof *it);
    it->src = src;
    it->dst = dst;
    it->ndim = ndim;
    it->soff = soff;
    it->doff = doff;
    for (int k = 0; k < ndim; k++) {
        it->dims[k] = dims[k];
        it->sst[k] = sst[k];
        it->dstt[k] = dstt[k];
    }
    return ACLNN_SUCCESS;
}

aclnnStatus cp_add_broadcast(aclOpExecutor *ex, int src, int dst) {
    const acl_view *s = &ex->io[src], *d = &ex->io[dst];
    int64_t sst[ACL_MAX_VIEW_RANK];
    for (int k = 0; k < d->ndim; k++) {
        int kk = k - (d->ndim - s->ndim);
        sst[k] = (kk < 0 || s->dims[kk] == 1) ? 0 : s->strides[kk];
    }
    return cp_add(ex, src, 0, sst, dst, 0, d->strides, d->dims, d->ndim);
}

void cp_copy(const char *sbase, aclDataType sdt, const int64_t *sst, char *dbase, aclDataType ddt,
             const int64_t *dstt, const int64_t *dims, int ndim) {
    int64_t total = 1;
    for (int k = 0; k < ndim; k++) total *= dims[k];
    if (total == 0) return;
    if (ndim == 0) {
        acl_convert(sbase, sdt, 1, dbase, ddt, 1, 1);
        return;
    }
    const int64_t inner = dims[ndim - 1], rows = total / inner;
    const size_t ses = acl_dtype_size(sdt), des = acl_dtype_size(ddt);
#pragma omp parallel for schedule(static) if (acl_parallel_worth(total))
    for (int64_t r = 0; r < rows; r++) {
        int64_t rem = r, so = 0, dof = 0;
        for (int k = ndim - 2; k >= 0; k--) {
            int64_t i = rem % dims[k];
            rem /= dims[k];
            so += i * sst[k];
            dof += i * dstt[k];
        }
        acl_convert(sbase + so * (int64_t)ses, sdt, sst[ndim - 1], dbase + dof * (int64_t)des, ddt, dstt[ndim - 1],
                    inner);
    }
}
