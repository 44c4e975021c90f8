/* Views of more than ACL_MAX_VIEW_RANK dims for ops whose op_api takes them (the device op flattens or walks the
 * tensor in row-major order): the view with its size-1 dims dropped and each dim merged into the next inner one
 * when the two are laid out together (stride[i] == stride[i+1] * dim[i+1]). The row-major order of the elements is
 * unchanged, so a kernel that reads or writes the tensor in that order (md_load / md_store, ix_load_raw) sees the
 * same values; a dense tensor becomes 1-d. Each tensor is folded on its own: the ops using this pair elements by
 * their row-major position, never by their coordinates. */
#ifndef PYACLNN_OPS_VIEW_FOLD_H
#define PYACLNN_OPS_VIEW_FOLD_H

#include "common/shape.h"
#include "common/status.h"
#include "meta/meta.h"

static inline void vf_fold(const aclTensor *t, aclTensor *dst) {
    *dst = *t;
    int n = 0;
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] == 1) continue;
        /* checked product: the view is validated later, its dims and strides may still be absurd here */
        int64_t p;
        if (n > 0 && dst->dims[n - 1] != 0 && t->dims[i] != 0 && acl_mul_i64(t->strides[i], t->dims[i], &p) &&
            dst->strides[n - 1] == p && acl_mul_i64(dst->dims[n - 1], t->dims[i], &p)) {
            dst->dims[n - 1] = p;
            dst->strides[n - 1] = t->strides[i];
            continue;
        }
        dst->dims[n] = t->dims[i];
        dst->strides[n] = t->strides[i];
        n++;
    }
    dst->ndim = (uint64_t)n; /* all dims 1: a 0-d view of the one element */
}

/* *use = t when it has at most ACL_MAX_VIEW_RANK dims, else its folded copy in *tmp; 161002 naming `name` when the
 * layout still needs more dims after folding (a view whose dims cannot be merged). */
static inline aclnnStatus vf_fit(const aclTensor *t, const char *name, aclTensor *tmp, const aclTensor **use) {
    *use = t;
    if (t->ndim <= ACL_MAX_VIEW_RANK) return ACLNN_SUCCESS;
    vf_fold(t, tmp);
    ACLNN_CHECK(tmp->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "%s has %llu dims whose layout needs %llu after merging the dims laid out together; at most %d are "
                "supported.", name, (unsigned long long)t->ndim, (unsigned long long)tmp->ndim, ACL_MAX_VIEW_RANK);
    *use = tmp;
    return ACLNN_SUCCESS;
}

#endif
