/* Shared by the index family (libsrc/ops/index_*.c: gathers, scatters, index/index_put, fills, nonzero,
 * repeat_interleave). Every kernel works on contiguous row-major copies of the views (misc_dense.h): data that is
 * only moved keeps its own dtype (bytes copied, so every dtype is exact), data that is combined (add, mul, max, min)
 * is held in its compute class (double for the float dtypes, int64 wrapping for the integers and bool, double
 * complex) and rounded once into the output. Index tensors are read as int64.
 *
 * Determinism: a gather is owned per output element; every scatter / put / accumulate runs its updates serially in
 * the row-major order of the index (or source) elements, so duplicates resolve as PyTorch's CPU kernels resolve
 * them (the later update wins; accumulations are summed in index order) and the bytes never depend on the thread
 * count. */
#ifndef PYACLNN_OPS_INDEX_COMMON_H
#define PYACLNN_OPS_INDEX_COMMON_H

#include <complex.h>
#include <math.h>
#include <stdio.h>

#include "common/parallel.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

/* an executor with the ins/outs (NULL entries skipped) and a copy of the params */
static inline aclnnStatus ix_exec(int op, acl_run_fn run, size_t psize, const aclTensor *const *ins,
                                  const char *const *inn, int nin, const aclTensor *const *outs,
                                  const char *const *outn, int nout, uint64_t *ws, aclOpExecutor **exo,
                                  const void *pinit) {
    void *params = NULL;
    aclnnStatus rc = dn_exec(op, run, psize ? psize : 1, ins, inn, nin, outs, outn, nout, ws, exo, &params);
    if (rc == ACLNN_SUCCESS && pinit && psize) memcpy(params, pinit, psize);
    return rc;
}

/* rank as the op_api sees it for dim checks: a 0-d tensor counts as 1-d */
static inline int64_t ix_rank1(const aclTensor *t) { return t->ndim ? (int64_t)t->ndim : 1; }

/* "[2, 3]" */
static inline void ix_dims_str(const int64_t *d, int n, char *buf, size_t cap) {
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ", %lld" : "%lld", (long long)d[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* t's view shape must be d -> 161002 naming t */
static inline aclnnStatus ix_check_shape(const aclTensor *t, const int64_t *d, int n, const char *name) {
    if (md_shape_is(t, d, n)) return ACLNN_SUCCESS;
    char a[256], b[256];
    acl_shape_str(t, a, sizeof a);
    ix_dims_str(d, n, b, sizeof b);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s should be %s.", name, a, b);
}

/* the index view read as int64, row-major (NULL on OOM; a 1-element buffer for an empty view) */
static inline int64_t *ix_load_index(const acl_view *v) { return (int64_t *)md_load(v, ACL_INT64); }

/* the view in its own dtype, row-major */
static inline char *ix_load_raw(const acl_view *v) { return (char *)md_load(v, v->dtype); }

/* accumulation modes */
enum { IX_SET = 0, IX_ADD = 1, IX_MUL = 2, IX_MAX = 3, IX_MIN = 4 };

/* dst (op)= src, both in class c */
static inline void ix_apply(md_class c, int mode, void *dst, const void *src) {
    if (c == VC_F) {
        double *d = dst, s = *(const double *)src;
        switch (mode) {
        case IX_ADD: *d += s; break;
        case IX_MUL: *d *= s; break;
        case IX_MAX: *d = (isnan(*d) || isnan(s)) ? NAN : (s > *d ? s : *d); break;
        case IX_MIN: *d = (isnan(*d) || isnan(s)) ? NAN : (s < *d ? s : *d); break;
        default: *d = s;
        }
    } else if (c == VC_I) {
        int64_t *d = dst, s = *(const int64_t *)src;
        switch (mode) {
        case IX_ADD: *d = (int64_t)((uint64_t)*d + (uint64_t)s); break;
        case IX_MUL: *d = (int64_t)((uint64_t)*d * (uint64_t)s); break;
        case IX_MAX: *d = s > *d ? s : *d; break;
        case IX_MIN: *d = s < *d ? s : *d; break;
        default: *d = s;
        }
    } else {
        double complex *d = dst, s = *(const double complex *)src;
        switch (mode) {
        case IX_ADD: *d += s; break;
        case IX_MUL: *d *= s; break;
        default: *d = s;
        }
    }
}

/* a view's element count as outer * len * inner around dim d (row-major) */
static inline void ix_split(const int64_t *dims, int n, int d, int64_t *outer, int64_t *len, int64_t *inner) {
    int64_t o = 1, in = 1;
    for (int k = 0; k < d; k++) o *= dims[k];
    for (int k = d + 1; k < n; k++) in *= dims[k];
    *outer = o;
    *len = d < n ? dims[d] : 1;
    *inner = in;
}

/* the storage order of an integer/bool class value in the dtype's bit pattern: booleans store 0/1 */
static inline void ix_store_class(const void *src, md_class c, const acl_view *v) { md_store(src, md_class_dt(c), v); }

#endif
