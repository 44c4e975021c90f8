/* Shared by UniqueConsecutive (libsrc/ops/index_unique.c) and UniqueDim (libsrc/ops/index_unique_dim.c): their
 * op_api's common first checks and the fitting of valueOut to the data-dependent result length. */
#ifndef PYACLNN_OPS_INDEX_UNIQUE_COMMON_H
#define PYACLNN_OPS_INDEX_UNIQUE_COMMON_H

#include "ops/index_common.h"

/* in op_api order: NULLs (161001); self's dtype in the op's list; inverseOut and countsOut int64; valueOut of
 * self's dtype; self's rank <= 8 */
static inline aclnnStatus uq_check_args(const aclTensor *self, const aclDataType *dts, int ndt,
                                        const aclTensor *valueOut, const aclTensor *inverseOut,
                                        const aclTensor *countsOut) {
    NN(self, "self");
    NN(valueOut, "valueOut");
    NN(inverseOut, "inverseOut");
    NN(countsOut, "countsOut");
    ACL_TRY(acl_check_dtype_in(self, dts, ndt, "self"));
    ACLNN_CHECK(inverseOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "inverseOut dtype %s should be int64.",
                acl_dtype_name(inverseOut->dtype));
    ACLNN_CHECK(countsOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "countsOut dtype %s should be int64.",
                acl_dtype_name(countsOut->dtype));
    ACL_TRY(acl_check_same_dtype(valueOut, "valueOut", self, "self"));
    return md_check_max_dim(self, "self");
}

/* dim in [min(-r, r - 1), max(-r, r - 1)] */
static inline aclnnStatus uq_check_dim(int64_t dim, int64_t r) {
    const int64_t lo = -r < r - 1 ? -r : r - 1, hi = -r > r - 1 ? -r : r - 1;
    ACLNN_CHECK(dim >= lo && dim <= hi, ACLNN_ERR_PARAM_INVALID,
                "dim: the param of dim must be in the range of [%lld, %lld], but got %lld.", (long long)lo,
                (long long)hi, (long long)dim);
    return ACLNN_SUCCESS;
}

/* a contiguous 1-D buffer with room for `need` elements becomes the row-major view `dims` */
static inline bool uq_reshape_flat(aclTensor *t, const int64_t *dims, int n, int64_t need) {
    if (t->ndim != 1 || t->strides[0] != 1 || t->dims[0] < need) return false;
    t->ndim = (uint64_t)n;
    int64_t st = 1;
    for (int k = n - 1; k >= 0; k--) {
        t->dims[k] = dims[k];
        t->strides[k] = st;
        st *= dims[k];
    }
    return true;
}

/* not an op_api rule (what the op writes): valueOut is the result's shape `vdims` (vn dims, u along d) with room
 * for at least u along d, or a flat contiguous buffer of `total` elements (as the upstream examples pass), which
 * then takes the result's shape as the device sets it */
static inline aclnnStatus uq_fit_value_out(aclTensor *valueOut, const int64_t *vdims, int vn, int d, int64_t u,
                                           int64_t total) {
    bool ok = (int64_t)valueOut->ndim == vn && valueOut->dims[d] >= u;
    for (int k = 0; k < vn && ok; k++) ok = k == d || valueOut->dims[k] == vdims[k];
    ACLNN_CHECK(ok || uq_reshape_flat(valueOut, vdims, vn, total), ACLNN_ERR_PARAM_INVALID,
                "valueOut should be self's shape with room for %lld along dim, or a flat buffer of %lld elements.",
                (long long)u, (long long)total);
    return ACLNN_SUCCESS;
}

#endif
