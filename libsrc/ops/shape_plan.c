/* The shape ops' executor (see shape_plan.h). */
#include "ops/shape_plan.h"

#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"

static void sp_free(void *p) {
    sp_plan *sp = p;
    if (sp) free(sp->pl.items);
    free(sp);
}

int64_t sp_numel(const acl_view *v) {
    int64_t n = 1;
    for (int k = 0; k < v->ndim; k++) n *= v->dims[k];
    return n;
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

/* n-d strided copy src -> mid -> dst, rows in parallel, each row through a small buffer of the middle dtype */
static void copy_mid(const char *sbase, aclDataType sdt, const int64_t *sst, aclDataType mid, char *dbase,
                     aclDataType ddt, const int64_t *dstt, const int64_t *dims, int ndim) {
    int64_t total = 1;
    for (int k = 0; k < ndim; k++) total *= dims[k];
    if (total == 0) return;
    const int64_t inner = ndim ? dims[ndim - 1] : 1, rows = total / inner;
    const int64_t si = ndim ? sst[ndim - 1] : 0, di = ndim ? dstt[ndim - 1] : 0;
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
        unsigned char tmp[64 * 16] __attribute__((aligned(16)));
        for (int64_t j = 0; j < inner; j += 64) {
            const int64_t n = inner - j < 64 ? inner - j : 64;
            acl_convert(sbase + (so + j * si) * (int64_t)ses, sdt, si, tmp, mid, 1, n);
            acl_convert(tmp, mid, 1, dbase + (dof + j * di) * (int64_t)des, ddt, di, n);
        }
    }
}

static aclnnStatus sp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sp_plan *sp = ex->params;
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
    const cp_plan *pl = &sp->pl;
    if (pl->fill_slot >= 0) {
        const acl_view *v = &io[pl->fill_slot];
        unsigned char one[16] __attribute__((aligned(16)));
        if (sp->fill_exact) {
            memcpy(one, sp->fill_bytes, sizeof one);
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
        if (sp->mid != ACL_DT_UNDEFINED && sp->mid != s->dtype && sp->mid != d->dtype)
            copy_mid(sb, s->dtype, it->sst, sp->mid, db, d->dtype, it->dstt, it->dims, it->ndim);
        else
            cp_copy(sb, s->dtype, it->sst, db, d->dtype, it->dstt, it->dims, it->ndim);
    }
    if (sp->kernel) sp->kernel(sp, io);
    for (int i = 0; i < ex->n_in; i++) free(staged[i]);
    free(staged);
    free(io);
    return ACLNN_SUCCESS;
}

aclOpExecutor *sp_exec_create(int op) {
    aclOpExecutor *ex = acl_exec_create(op, sp_run, sizeof(sp_plan));
    if (!ex) return NULL;
    ex->free_params = sp_free;
    sp_of(ex)->pl.fill_slot = -1;
    sp_of(ex)->mid = ACL_DT_UNDEFINED;
    return ex;
}
