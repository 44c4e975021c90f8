"""ops-math scans, tensor-list sums and small products (libsrc/ops/scan_misc.c over dense.h)."""
from . import Op

OPS = [Op(n, a, h) for n, a, h in (
    ("Cumsum", "const aclTensor* self, int64_t dim, aclDataType dtype, aclTensor* out", "aclnn_cumsum.h"),
    ("CumsumV2", "const aclTensor* self, int64_t dim, bool exclusive, bool reverse, aclTensor* out", "aclnn_cumsum.h"),
    ("Cumprod", "const aclTensor* input, const aclScalar* dim, const aclDataType dtype, aclTensor* out",
     "aclnn_cumprod.h"),
    ("InplaceCumprod", "aclTensor* input, const aclScalar* dim", "aclnn_cumprod.h"),
    ("Cummax", "const aclTensor* self, int64_t dim, aclTensor* valuesOut, aclTensor* indicesOut", "aclnn_cummax.h"),
    ("Cummin", "const aclTensor* self, int64_t dim, aclTensor* valuesOut, aclTensor* indicesOut", "aclnn_cummin.h"),
    ("Sum", "const aclTensorList* tensors, aclTensor* out", "aclnn_sum.h"),
    ("AddN", "const aclTensorList *tensors, aclTensor *out", "aclnn_add_n.h"),
    ("MaxN", "const aclTensorList* tensors, aclTensor* out", "aclnn_maxn.h"),
    ("MinN", "const aclTensorList* tensors, aclTensor* out", "aclnn_minn.h"),
    ("Dot", "const aclTensor* self, const aclTensor* tensor, aclTensor* out", "aclnn_dot.h"),
    ("Ger", "const aclTensor* self, const aclTensor* vec2, aclTensor* out", "aclnn_ger.h"),
    ("Addr", "const aclTensor* self, const aclTensor* vec1, const aclTensor* vec2, const aclScalar* betaOptional, "
     "const aclScalar* alphaOptional, aclTensor* out", "aclnn_addr.h"),
    ("InplaceAddr", "aclTensor* selfRef, const aclTensor* vec1, const aclTensor* vec2, const aclScalar* betaOptional, "
     "const aclScalar* alphaOptional", "aclnn_addr.h"),
    ("Trace", "const aclTensor* self, aclTensor* out", "aclnn_trace.h"),
    ("Equal", "const aclTensor* self, const aclTensor* other, aclTensor* out", "aclnn_equal.h"),
    ("LinalgCross", "const aclTensor* self, const aclTensor* other, int64_t dim, aclTensor* out",
     "aclnn_linalg_cross.h"),
)]
