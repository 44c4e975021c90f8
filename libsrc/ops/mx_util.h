/* Small first-phase helpers shared by the ops-math files linalg.c, distance.c and misc_ops.c: the checks opbase's
 * macros make (private formats, OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE, the shape test l0op::ViewCopy makes
 * before it copies a result into the caller's out), broadcasting, rank > 8 views folded to at most 8 dims, and the
 * run-time stores of a double/complex result through the op's compute dtype. */
#ifndef PYACLNN_OPS_MX_UTIL_H
#define PYACLNN_OPS_MX_UTIL_H

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/ops.h"


static inline void mx_dims_str(const int64_t *d, int n, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = '\0';
    k += (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && k + 24 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? ", " : "", (long long)d[i]);
    if (k + 2 < cap) snprintf(buf + k, cap - k, "]");
}

static inline bool mx_shape_is(const aclTensor *t, const int64_t *d, int n) {
    if ((int)t->ndim != n) return false;
    for (int i = 0; i < n; i++)
        if (t->dims[i] != d[i]) return false;
    return true;
}

/* OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE: t's view shape must be d (161002 naming t) */
static inline aclnnStatus mx_check_shape(const aclTensor *t, const char *name, const int64_t *d, int n) {
    if (mx_shape_is(t, d, n)) return ACLNN_SUCCESS;
    char want[256], got[256];
    mx_dims_str(d, n, want, sizeof want);
    acl_shape_str(t, got, sizeof got);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "expected %s to have shape %s, but got %s.", name, want, got);
}

/* l0op::ViewCopy's shape test: the op's result (shape d) is copied into `out` only when the shapes are equal or both
 * hold a single element; otherwise the copy is refused and the op returns ACLNN_ERR_INNER_NULLPTR (561103). */
static inline aclnnStatus mx_check_viewcopy(const aclTensor *out, const char *name, const int64_t *d, int n) {
    if (mx_shape_is(out, d, n)) return ACLNN_SUCCESS;
    int64_t a = 0;
    if (acl_numel(d, n, &a) && a == 1 && acl_tensor_numel(out) == 1) return ACLNN_SUCCESS;
    char want[256], got[256];
    mx_dims_str(d, n, want, sizeof want);
    acl_shape_str(out, got, sizeof got);
    return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "the result has shape %s; it cannot be copied into %s of shape %s.",
                      want, name, got);
}

/* BroadcastInferShape: right-aligned, each pair equal or one of them 1; false when not broadcastable */
static inline bool mx_broadcast(const int64_t *a, int na, const int64_t *b, int nb, int64_t *o, int *no) {
    int n = na > nb ? na : nb;
    if (n > ACL_MAX_TENSOR_DIMS) return false;
    for (int i = 0; i < n; i++) {
        int ia = i - (n - na), ib = i - (n - nb);
        int64_t x = ia >= 0 ? a[ia] : 1, y = ib >= 0 ? b[ib] : 1;
        if (x != y && x != 1 && y != 1) return false;
        o[i] = x == 1 ? y : x;
    }
    *no = n;
    return true;
}

/* A copy of tensor t whose leading dims [0, ndim - keep) are folded where they are row-major adjacent (and size-1
 * dims dropped), so that a view of more than 8 dims (ops that take any rank, e.g. slogdet) fits the 8-dim views:
 * element order is unchanged. Tensors of at most 8 dims are copied as they are. */
static inline void mx_fold(const aclTensor *t, int keep, aclTensor *dst) {
    *dst = *t;
    if (t->ndim <= ACL_MAX_VIEW_RANK) return;
    int lead = (int)t->ndim - keep, n = 0;
    for (int i = 0; i < lead; i++) {
        if (t->dims[i] == 1) continue;
        if (n > 0 && dst->strides[n - 1] == t->strides[i] * t->dims[i]) {
            dst->dims[n - 1] *= t->dims[i];
            dst->strides[n - 1] = t->strides[i];
            continue;
        }
        dst->dims[n] = t->dims[i];
        dst->strides[n] = t->strides[i];
        n++;
    }
    for (int i = lead; i < (int)t->ndim; i++) {
        dst->dims[n] = t->dims[i];
        dst->strides[n] = t->strides[i];
        n++;
    }
    dst->ndim = (uint64_t)n;
}

/* a * b * c * d saturated at INT64_MAX: a work estimate for acl_parallel_worth */
static inline int64_t mx_work(int64_t a, int64_t b, int64_t c, int64_t d) {
    int64_t r;
    if (!acl_mul_i64(a, b, &r) || !acl_mul_i64(r, c, &r) || !acl_mul_i64(r, d, &r)) return INT64_MAX;
    return r;
}

static inline void mx_contig_strides(const int64_t *dims, int nd, int64_t *st) {
    int64_t s = 1;
    for (int k = nd - 1; k >= 0; k--) {
        st[k] = s;
        s *= dims[k];
    }
}

/* Reads view v broadcast (right-aligned, stride 0 where v has size 1 or no dim) to dims[nd] into a contiguous
 * buffer of dtype dt. */
static inline void mx_load_bcast(const acl_view *v, const int64_t *dims, int nd, aclDataType dt, void *dst) {
    int64_t sst[ACL_MAX_VIEW_RANK] = {0}, dst_st[ACL_MAX_VIEW_RANK] = {0}; /* {0}: aarch64 GCC's maybe-uninitialized */
    for (int i = 0; i < nd; i++) {
        int iv = i - (nd - v->ndim);
        sst[i] = (iv >= 0 && v->dims[iv] != 1) ? v->strides[iv] : 0;
    }
    mx_contig_strides(dims, nd, dst_st);
    for (int i = 0; i < nd; i++)
        if (dims[i] == 0) return;
    cp_copy(v->base, v->dtype, sst, (char *)dst, dt, dst_st, dims, nd);
}

/* Writes n contiguous values of dtype sdt into view v (v holds n elements), rounded first to the op's compute dtype
 * cdt (the dtype its kernel produces; the op then casts that to v's dtype). false when out of memory. */
static inline bool mx_store_via(const void *src, aclDataType sdt, aclDataType cdt, const acl_view *v) {
    int64_t n = acl_view_numel(v), st[ACL_MAX_VIEW_RANK];
    if (n == 0) return true;
    mx_contig_strides(v->dims, v->ndim, st);
    if (cdt == sdt || cdt == v->dtype) {
        cp_copy((const char *)src, sdt, st, v->base, v->dtype, v->strides, v->dims, v->ndim);
        return true;
    }
    void *tmp = malloc(acl_dtype_size(cdt) * (size_t)n);
    if (!tmp) return false;
    acl_convert(src, sdt, 1, tmp, cdt, 1, n);
    cp_copy((const char *)tmp, cdt, st, v->base, v->dtype, v->strides, v->dims, v->ndim);
    free(tmp);
    return true;
}

#endif
