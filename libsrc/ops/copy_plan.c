/* Copy plans (see copy_plan.h). */
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

#include <complex.h>
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

/* bytes from v->base to one past its last element (0 when empty) */
static int64_t span_bytes(const acl_view *v) {
    int64_t hi = 0;
    for (int k = 0; k < v->ndim; k++) {
        if (v->dims[k] == 0) return 0;
        hi += (v->dims[k] - 1) * v->strides[k]; /* no overflow: acl_view_init checked the extent */
    }
    return (hi + 1) * (int64_t)acl_dtype_size(v->dtype);
}

static aclnnStatus cp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const cp_plan *pl = ex->params;
    const int nio = ex->n_in + ex->n_out;
    acl_view *io = malloc(sizeof(acl_view) * (size_t)(nio ? nio : 1));
    void **staged = calloc((size_t)(ex->n_in ? ex->n_in : 1), sizeof(void *));
    if (!io || !staged) {
        free(io);
        free(staged);
        return ACL_REPORT(ACLNN_ERR_INNER, "out of memory running %s", acl_op_name(ex->op));
    }
    memcpy(io, ex->io, sizeof(acl_view) * (size_t)nio);
    /* an input sharing memory with an output is read from a copy of its span taken before any write */
    for (int i = 0; i < ex->n_in; i++) {
        const int64_t ib = ex->io_needs_data[i] ? span_bytes(&io[i]) : 0;
        if (ib == 0) continue;
        const char *lo = io[i].base, *hi = lo + ib;
        bool overlap = false;
        for (int j = ex->n_in; j < nio && !overlap; j++) {
            const int64_t ob = span_bytes(&io[j]);
            overlap = ob > 0 && io[j].base < hi && lo < io[j].base + ob;
        }
        if (!overlap) continue;
        staged[i] = malloc((size_t)ib);
        if (!staged[i]) {
            for (int k = 0; k < i; k++) free(staged[k]);
            free(staged);
            free(io);
            return ACL_REPORT(ACLNN_ERR_INNER, "out of memory staging an aliased input of %s", acl_op_name(ex->op));
        }
        memcpy(staged[i], lo, (size_t)ib);
        io[i].base = staged[i];
    }
    if (pl->fill_slot >= 0) {
        const acl_view *v = &io[pl->fill_slot];
        unsigned char one[16] __attribute__((aligned(16)));
        if (pl->fill_exact) {
            memcpy(one, pl->fill_bytes, sizeof one);
        } else {
            double complex val = pl->fill_value + pl->fill_imag * I;
            acl_convert(&val, ACL_COMPLEX128, 0, one, v->dtype, 0, 1);
        }
        int64_t zero[ACL_MAX_VIEW_RANK] = {0};
        cp_copy((const char *)one, v->dtype, zero, v->base, v->dtype, v->strides, v->dims, v->ndim);
    }
    for (int i = 0; i < pl->n; i++) {
        const cp_item *it = &pl->items[i];
        const acl_view *s = &io[it->src], *d = &io[it->dst];
        const char *sb = s->base + it->soff * (int64_t)acl_dtype_size(s->dtype);
        char *db = d->base + it->doff * (int64_t)acl_dtype_size(d->dtype);
        const bool via = pl->mid != ACL_DT_UNDEFINED && pl->mid != s->dtype && pl->mid != d->dtype;
        cp_copy_via(sb, s->dtype, it->sst, via ? pl->mid : ACL_DT_UNDEFINED, db, d->dtype, it->dstt, it->dims,
                    it->ndim);
    }
    if (pl->kernel) pl->kernel(pl, io);
    for (int i = 0; i < ex->n_in; i++) free(staged[i]);
    free(staged);
    free(io);
    return ACLNN_SUCCESS;
}

aclOpExecutor *cp_exec_create(int op) {
    aclOpExecutor *ex = acl_exec_create(op, cp_run, sizeof(cp_plan));
    if (!ex) return NULL;
    ex->free_params = cp_free;
    cp_of(ex)->fill_slot = -1;
    cp_of(ex)->mid = ACL_DT_UNDEFINED;
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

/* row r of a copy: its offsets from the outer indices, then the innermost run converted (through `mid`) */
static inline void cp_row(int64_t r, const char *sbase, aclDataType sdt, const int64_t *sst, aclDataType mid,
                          char *dbase, aclDataType ddt, const int64_t *dstt, const int64_t *dims, int ndim) {
    const int64_t inner = ndim ? dims[ndim - 1] : 1;
    const int64_t si = ndim ? sst[ndim - 1] : 1, di = ndim ? dstt[ndim - 1] : 1;
    const size_t ses = acl_dtype_size(sdt), des = acl_dtype_size(ddt);
    int64_t rem = r, so = 0, dof = 0;
    for (int k = ndim - 2; k >= 0; k--) {
        int64_t i = rem % dims[k];
        rem /= dims[k];
        so += i * sst[k];
        dof += i * dstt[k];
    }
    if (mid == ACL_DT_UNDEFINED) {
        acl_convert(sbase + so * (int64_t)ses, sdt, si, dbase + dof * (int64_t)des, ddt, di, inner);
        return;
    }
    unsigned char tmp[64 * 16] __attribute__((aligned(16))); /* a row piece in the middle dtype */
    for (int64_t j = 0; j < inner; j += 64) {
        const int64_t n = inner - j < 64 ? inner - j : 64;
        acl_convert(sbase + (so + j * si) * (int64_t)ses, sdt, si, tmp, mid, 1, n);
        acl_convert(tmp, mid, 1, dbase + (dof + j * di) * (int64_t)des, ddt, di, n);
    }
}

void cp_copy_via(const char *sbase, aclDataType sdt, const int64_t *sst, aclDataType mid, char *dbase,
                 aclDataType ddt, const int64_t *dstt, const int64_t *dims, int ndim) {
    int64_t total = 1;
    for (int k = 0; k < ndim; k++) total *= dims[k];
    if (total == 0) return;
    const int64_t inner = ndim ? dims[ndim - 1] : 1, rows = total / inner;
    if (!acl_parallel_worth(total)) { /* below the grain: on the calling thread, without a team of one */
        for (int64_t r = 0; r < rows; r++) cp_row(r, sbase, sdt, sst, mid, dbase, ddt, dstt, dims, ndim);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t r = 0; r < rows; r++) cp_row(r, sbase, sdt, sst, mid, dbase, ddt, dstt, dims, ndim);
}

void cp_copy(const char *sbase, aclDataType sdt, const int64_t *sst, char *dbase, aclDataType ddt,
             const int64_t *dstt, const int64_t *dims, int ndim) {
    cp_copy_via(sbase, sdt, sst, ACL_DT_UNDEFINED, dbase, ddt, dstt, dims, ndim);
}
