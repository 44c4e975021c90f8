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
    if (acl_tensor_empty(t)) { /* no elements: one dim of 0 */
        dst->ndim = 1;
        dst->dims[0] = 0;
        dst->strides[0] = 1;
        return;
    }
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

/* Joint folding for ops whose kernel walks several tensors over one index space (elementwise with broadcasting, or
 * same-shape updates): ts[0..n) broadcast (right-aligned) to the shape `shape`/`nd`, which they were checked against.
 * dst[i] gets the folded index space as its dims (size-1 dims dropped, a dim merged into the next inner one when
 * every tensor allows it) and ts[i]'s strides in it (0 along the dims ts[i] broadcasts). Returns the folded rank
 * (>= 1; a one-element space is [1], an empty one [0]). */
static inline int vf_fold_joint(const aclTensor *const *ts, int n, const int64_t *shape, int nd, aclTensor *dst) {
    for (int i = 0; i < n; i++) dst[i] = *ts[i];
    for (int k = 0; k < nd; k++)
        if (shape[k] == 0) { /* no elements: one dim of 0 */
            for (int i = 0; i < n; i++) {
                dst[i].ndim = 1;
                dst[i].dims[0] = 0;
                dst[i].strides[0] = 1;
            }
            return 1;
        }
    int m = 0;
    for (int k = 0; k < nd; k++) {
        if (shape[k] == 1) continue;
        bool merge = m > 0;
        int64_t nm = 0;
        merge = merge && acl_mul_i64(dst[0].dims[m - 1], shape[k], &nm);
        for (int i = 0; i < n; i++) {
            const int kk = k - (nd - (int)ts[i]->ndim);
            const int64_t st = (kk < 0 || ts[i]->dims[kk] == 1) ? 0 : ts[i]->strides[kk];
            int64_t p;
            if (merge) merge = acl_mul_i64(st, shape[k], &p) && dst[i].strides[m - 1] == p;
            dst[i].strides[m] = st; /* staged: kept only when this dim opens a new one */
        }
        if (merge) {
            for (int i = 0; i < n; i++) {
                dst[i].dims[m - 1] = nm;
                dst[i].strides[m - 1] = dst[i].strides[m];
            }
            continue;
        }
        for (int i = 0; i < n; i++) dst[i].dims[m] = shape[k];
        m++;
    }
    if (m == 0) {
        for (int i = 0; i < n; i++) {
            dst[i].dims[0] = 1;
            dst[i].strides[0] = 1;
        }
        m = 1;
    }
    for (int i = 0; i < n; i++) dst[i].ndim = (uint64_t)m;
    return m;
}

/* use[i] = ts[i] when every tensor (and the shape) has at most ACL_MAX_VIEW_RANK dims, else the jointly folded copies
 * in tmp (vf_fold_joint; NULL entries of ts stay NULL); 161002 naming `what` when the layouts together still need
 * more than 8 dims. */
static inline aclnnStatus vf_fit_joint(const aclTensor *const *ts, int n, const int64_t *shape, int nd,
                                       const char *what, aclTensor *tmp, const aclTensor **use) {
    bool big = nd > ACL_MAX_VIEW_RANK;
    const aclTensor *live[16];
    int idx[16], k = 0;
    for (int i = 0; i < n; i++) {
        use[i] = ts[i];
        if (!ts[i]) continue;
        big = big || ts[i]->ndim > ACL_MAX_VIEW_RANK;
        if (k < 16) {
            live[k] = ts[i];
            idx[k++] = i;
        }
    }
    if (!big) return ACLNN_SUCCESS;
    const int m = vf_fold_joint(live, k, shape, nd, tmp);
    ACLNN_CHECK(m <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "%s: the layouts of the tensors need %d dims after merging the dims laid out together; at most %d "
                "are supported.", what, m, ACL_MAX_VIEW_RANK);
    for (int j = 0; j < k; j++) use[idx[j]] = &tmp[j];
    return ACLNN_SUCCESS;
}

#endif
