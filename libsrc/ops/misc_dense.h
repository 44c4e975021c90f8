/* Shared by scan_misc.c and sort_search.c: a view gathered into a contiguous row-major buffer of one of the three
 * compute classes (double for the float dtypes, int64 for the integers and bool, double complex for the complex
 * dtypes), optionally through an intermediate dtype (an op's Cast step, rounding as the device does), and scattered
 * back with one conversion; argument checks the generic helpers do not cover (aclScalar dtypes, PyTorch's
 * broadcast). Sizes are checked, so a huge stride-0 view fails with 561000 instead of wrapping a size_t. */
#ifndef PYACLNN_OPS_MISC_DENSE_H
#define PYACLNN_OPS_MISC_DENSE_H

#include <complex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/ops.h"

typedef enum { VC_F, VC_I, VC_C } md_class; /* double, int64 (wrapping), double complex */

static inline md_class md_class_of(aclDataType d) {
    return acl_dt_is_complex(d) ? VC_C : acl_dt_is_float(d) ? VC_F : VC_I;
}
static inline aclDataType md_class_dt(md_class c) {
    return c == VC_F ? ACL_DOUBLE : c == VC_I ? ACL_INT64 : ACL_COMPLEX128;
}
static inline size_t md_class_size(md_class c) { return c == VC_C ? sizeof(double complex) : 8; }

static inline int64_t md_numel(const acl_view *v) { return acl_view_numel(v); }

/* n elements of es bytes (at least one), NULL when the size does not fit or memory is short */
static inline void *md_alloc(int64_t n, size_t es) {
    if (n < 0 || (uint64_t)n > (SIZE_MAX - 64) / es) return NULL;
    return calloc((size_t)(n > 0 ? n : 1), es);
}

static inline void md_contig_strides(const acl_view *v, int64_t *st) {
    int64_t s = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        st[k] = s;
        s *= v->dims[k];
    }
}

/* v's elements, row-major, as dtype dt (C++ static_cast rules of acl_convert) */
static inline void *md_load(const acl_view *v, aclDataType dt) {
    const int64_t n = md_numel(v);
    void *buf = md_alloc(n, acl_dtype_size(dt));
    if (!buf || n == 0) return buf;
    int64_t st[ACL_MAX_VIEW_RANK];
    md_contig_strides(v, st);
    cp_copy(v->base, v->dtype, v->strides, buf, dt, st, v->dims, v->ndim);
    return buf;
}

/* v's elements cast to `mid` first (the op's Cast), then to dt */
static inline void *md_load_via(const acl_view *v, aclDataType mid, aclDataType dt) {
    if (mid == v->dtype || mid == dt) return md_load(v, dt);
    void *m = md_load(v, mid);
    if (!m) return NULL;
    const int64_t n = md_numel(v);
    void *buf = md_alloc(n, acl_dtype_size(dt));
    if (buf && n) acl_convert(m, mid, 1, buf, dt, 1, n);
    free(m);
    return buf;
}

/* row-major src (dtype sdt) into the view v */
static inline void md_store(const void *src, aclDataType sdt, const acl_view *v) {
    if (md_numel(v) == 0) return;
    int64_t st[ACL_MAX_VIEW_RANK];
    md_contig_strides(v, st);
    cp_copy(src, sdt, st, v->base, v->dtype, v->strides, v->dims, v->ndim);
}

/* row-major src (dtype sdt) rounded to dtype mid (the op's result dtype), then cast into v */
static inline aclnnStatus md_store_via(const void *src, aclDataType sdt, aclDataType mid, const acl_view *v) {
    const int64_t n = md_numel(v);
    if (n == 0) return ACLNN_SUCCESS;
    if (mid == sdt || mid == v->dtype) {
        md_store(src, sdt, v);
        return ACLNN_SUCCESS;
    }
    void *m = md_alloc(n, acl_dtype_size(mid));
    if (!m) return OOM;
    acl_convert(src, sdt, 1, m, mid, 1, n);
    md_store(m, mid, v);
    free(m);
    return ACLNN_SUCCESS;
}

/* x rounded to a float dtype's precision (computations the device makes in that dtype, one rounding per step) */
static inline double md_round(double x, aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT: return (float)x;
    case ACL_FLOAT16: return acl_f16_to_f32(acl_f32_to_f16((float)x));
    case ACL_BF16: return acl_bf16_to_f32(acl_f32_to_bf16((float)x));
    default: return x;
    }
}

/* d in the list (an ACL_DT_LIST_<Name> expands to `list, count`) */
static inline bool md_dt_in(aclDataType d, const aclDataType *l, int n) {
    for (int i = 0; i < n; i++)
        if (l[i] == d) return true;
    return false;
}

/* an aclScalar's dtype in a support list -> 161002 naming it */
static inline aclnnStatus md_check_scalar_dtype(const aclScalar *s, const aclDataType *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (s->dtype == list[i]) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s (%d) is not supported.", name, acl_dtype_name(s->dtype),
                      (int)s->dtype);
}

/* rank <= 8 (OP_CHECK_MAX_DIM) -> 161002 naming the tensor */
static inline aclnnStatus md_check_max_dim(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported.",
                name, (unsigned long long)t->ndim, ACL_MAX_VIEW_RANK);
    return ACLNN_SUCCESS;
}

/* PyTorch's broadcast of two shapes (BroadcastInferShape); false when they do not broadcast */
static inline bool md_broadcast(const int64_t *a, int na, const int64_t *b, int nb, int64_t *out, int *nout) {
    const int n = na > nb ? na : nb;
    if (n > ACL_MAX_TENSOR_DIMS) return false;
    for (int k = 0; k < n; k++) {
        const int ia = k - (n - na), ib = k - (n - nb);
        const int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1) return false;
        out[k] = da == 1 ? db : da;
    }
    *nout = n;
    return true;
}

static inline bool md_shape_is(const aclTensor *t, const int64_t *d, int n) {
    if ((int)t->ndim != n) return false;
    for (int k = 0; k < n; k++)
        if (t->dims[k] != d[k]) return false;
    return true;
}

/* the view v seen with out's dims (broadcast: size-1 and missing leading dims get stride 0) */
static inline acl_view md_broadcast_view(const acl_view *v, const int64_t *dims, int ndim) {
    acl_view b = *v;
    b.ndim = ndim;
    for (int k = 0; k < ndim; k++) {
        const int kk = k - (ndim - v->ndim);
        b.dims[k] = dims[k];
        b.strides[k] = (kk < 0 || v->dims[kk] == 1) ? 0 : v->strides[kk];
    }
    return b;
}

#endif
