/* Norm family plumbing (norm_common.h). */
#include "ops/norm_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"

aclnnStatus nm_exec(int op, acl_run_fn run, size_t params_size, const aclTensor *const *ins, const char *const *inn,
                    int nin, const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                    aclOpExecutor **exo, void **params) {
    aclOpExecutor *ex = acl_exec_create(op, run, params_size);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    nm_io *io = ex->params;
    aclnnStatus rc = ACLNN_SUCCESS;
    int k = 0;
    for (int i = 0; i < NM_MAX_IO; i++) io->in[i] = io->out[i] = -1;
    for (int i = 0; i < nin && !rc; i++) {
        if (!ins[i]) continue;
        rc = acl_exec_add_input(ex, ins[i], inn[i], !acl_tensor_empty(ins[i]));
        io->in[i] = k++;
    }
    k = 0;
    for (int i = 0; i < nout && !rc; i++) {
        if (!outs[i]) continue;
        rc = acl_tensor_empty(outs[i]) ? acl_exec_add_output_nodata(ex, outs[i], outn[i])
                                       : acl_exec_add_output(ex, outs[i], outn[i]);
        io->out[i] = k++;
    }
    if (rc) return acl_exec_discard(ex, rc);
    if (params) *params = ex->params;
    return acl_exec_publish(ex, ws, exo);
}

double *nm_load(const acl_view *v, bool *oom) {
    if (!v) return NULL;
    double *p = dn_load(v);
    if (!p) *oom = true;
    return p;
}

void nm_store(const double *src, const acl_view *v) {
    if (v && src) dn_store(src, v);
}

typedef struct { nm_io io; double vals[NM_MAX_IO]; int n; } fill_params;

static aclnnStatus fill_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fill_params *p = ex->params;
    for (int i = 0; i < p->n; i++) {
        const acl_view *v = nm_out(ex, i);
        if (!v) continue;
        int64_t n = dn_numel(v);
        double *buf = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
        if (!buf) return OOM;
        for (int64_t j = 0; j < n; j++) buf[j] = p->vals[i];
        dn_store(buf, v);
        free(buf);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus nm_fill_exec(int op, aclTensor *const *outs, const char *const *outn, const double *vals, int n,
                         uint64_t *ws, aclOpExecutor **exo) {
    void *pp;
    ACL_TRY(nm_exec(op, fill_run, sizeof(fill_params), NULL, NULL, 0, (const aclTensor *const *)outs, outn, n, ws, exo,
                    &pp));
    fill_params *p = pp;
    p->n = n;
    for (int i = 0; i < n; i++) p->vals[i] = vals[i];
    return ACLNN_SUCCESS;
}

aclnnStatus nm_max_dim(const aclTensor *t, uint64_t n, const char *name) {
    ACLNN_CHECK(t->ndim <= n, ACLNN_ERR_PARAM_INVALID, "%s should have at most %llu dims, but has %llu.", name,
                (unsigned long long)n, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

aclnnStatus nm_min_dim(const aclTensor *t, uint64_t n, const char *name) {
    ACLNN_CHECK(t->ndim >= n, ACLNN_ERR_PARAM_INVALID, "%s should have at least %llu dims, but has %llu.", name,
                (unsigned long long)n, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

aclnnStatus nm_dim_is(const aclTensor *t, uint64_t n, const char *name) {
    ACLNN_CHECK(t->ndim == n, ACLNN_ERR_PARAM_INVALID, "%s should have %llu dims, but has %llu.", name,
                (unsigned long long)n, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

aclnnStatus nm_same_shape(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    bool same = a->ndim == b->ndim;
    for (uint64_t i = 0; same && i < a->ndim; i++) same = a->dims[i] == b->dims[i];
    if (!same) {
        char sa[256], sb[256];
        acl_shape_str(a, sa, sizeof sa);
        acl_shape_str(b, sb, sizeof sb);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "the shape of %s %s should be the same as the shape of %s %s.", an,
                          sa, bn, sb);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus nm_shape_is(const aclTensor *t, const int64_t *dims, int n, const char *name) {
    bool same = t->ndim == (uint64_t)n;
    for (int i = 0; same && i < n; i++) same = t->dims[i] == dims[i];
    if (!same) {
        char s[256], e[256];
        size_t off = 0;
        acl_shape_str(t, s, sizeof s);
        e[0] = 0;
        off += (size_t)snprintf(e, sizeof e, "[");
        for (int i = 0; i < n && off < sizeof e - 24; i++)
            off += (size_t)snprintf(e + off, sizeof e - off, i ? ", %lld" : "%lld", (long long)dims[i]);
        snprintf(e + off, sizeof e - off, "]");
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "the shape of %s should be %s, but got %s.", name, e, s);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus nm_dtype_is(const aclTensor *t, aclDataType dt, const char *name) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

aclnnStatus nm_numel_is(const aclTensor *t, int64_t n, const char *name) {
    int64_t k = acl_tensor_numel(t);
    ACLNN_CHECK(k == n, ACLNN_ERR_PARAM_INVALID, "%s should have %lld elements, but has %lld.", name, (long long)n,
                (long long)k);
    return ACLNN_SUCCESS;
}

bool nm_dt_in(aclDataType d, const aclDataType *l, int n) {
    for (int i = 0; i < n; i++)
        if (l[i] == d) return true;
    return false;
}

int64_t nm_prod(const aclTensor *t, uint64_t from, uint64_t to) {
    int64_t p = 1;
    for (uint64_t i = from; i < to && i < t->ndim; i++) p *= t->dims[i];
    return p;
}

aclnnStatus nm_combo(const aclDataType *rows, int nrows, int ncols, const aclTensor *const *ts,
                     const char *const *names) {
    for (int r = 0; r < nrows; r++) {
        bool ok = true;
        for (int c = 0; c < ncols && ok; c++) ok = !ts[c] || ts[c]->dtype == rows[r * ncols + c];
        if (ok) return ACLNN_SUCCESS;
    }
    char msg[512];
    size_t off = 0;
    for (int c = 0; c < ncols && off < sizeof msg - 64; c++)
        if (ts[c])
            off += (size_t)snprintf(msg + off, sizeof msg - off, "%s%s %s", off ? ", " : "", names[c],
                                    acl_dtype_name(ts[c]->dtype));
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "the dtype combination (%s) is not supported.", msg);
}

/* ---- fp32 row-kernel buffers */

static bool fb_direct(const acl_view *v) {
    if (v->dtype != ACL_FLOAT && v->dtype != ACL_FLOAT16 && v->dtype != ACL_BF16) return false;
    int64_t want = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        if (v->dims[d] != 1 && v->strides[d] != want) return false;
        want *= v->dims[d];
    }
    return true;
}

float *nm_loadf(const acl_view *v, bool *oom) {
    if (!v) return NULL;
    const int64_t n = dn_numel(v);
    double *d = dn_load(v);
    float *f = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    if (!d || !f) {
        free(d);
        free(f);
        *oom = true;
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) f[i] = (float)d[i];
    free(d);
    return f;
}

bool nm_storef(const float *src, int64_t n, const acl_view *v) {
    if (!v || !src) return true;
    double *d = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!d) return false;
    for (int64_t i = 0; i < n; i++) d[i] = src[i];
    dn_store(d, v);
    free(d);
    return true;
}

bool nm_fin(const acl_view *v, nm_fb *f) {
    f->v = v;
    f->own = NULL;
    f->b.p = NULL;
    f->b.dt = ACL_FLOAT;
    if (!v) return true;
    if (fb_direct(v)) {
        f->b.p = v->base;
        f->b.dt = v->dtype;
        return true;
    }
    bool oom = false;
    f->own = nm_loadf(v, &oom);
    f->b.p = f->own;
    return !oom;
}

bool nm_fout(const acl_view *v, nm_fb *f) {
    f->v = v;
    f->own = NULL;
    f->b.p = NULL;
    f->b.dt = ACL_FLOAT;
    if (!v) return true;
    if (fb_direct(v)) {
        f->b.p = v->base;
        f->b.dt = v->dtype;
        return true;
    }
    const int64_t n = dn_numel(v);
    f->own = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1));
    f->b.p = f->own;
    return f->own != NULL;
}

bool nm_fdone(nm_fb *f, bool store) {
    bool ok = true;
    if (f->own && f->v && store) ok = nm_storef(f->own, dn_numel(f->v), f->v);
    free(f->own);
    f->own = NULL;
    return ok;
}
