"""ops-math reductions (math/reduce_*, arg_max*, ...): hand-written first phases over one deterministic reduction
engine (libsrc/ops/reduce.c)."""
from . import Op

OPS = [Op(n, a, h) for n, a, h in (
    ("ReduceSum", "const aclTensor* self, const aclIntArray* dims, bool keepDims, aclDataType dtype, aclTensor* out",
     "aclnn_reduce_sum.h"),
    ("ReduceNansum", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype, aclTensor* out",
     "aclnn_reduce_nansum.h"),
    ("Mean", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype, aclTensor* out",
     "aclnn_mean.h"),
    ("MeanV2", "const aclTensor* self, const aclIntArray* dim, bool keepDim, bool noopWithEmptyAxes, aclTensor* out",
     "aclnn_mean.h"),
    ("Prod", "const aclTensor* self, const aclDataType dtype, aclTensor* out", "aclnn_prod.h"),
    ("ProdDim", "const aclTensor* self, int64_t dim, bool keepDim, const aclDataType dtype, aclTensor* out",
     "aclnn_prod.h"),
    ("Amax", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out", "aclnn_amax.h"),
    ("Amin", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out", "aclnn_amin.h"),
    ("Max", "const aclTensor* self, aclTensor* out", "aclnn_max.h"),
    ("Min", "const aclTensor* self, aclTensor* out", "aclnn_min.h"),
    ("MaxV2", "const aclTensor* self, const aclIntArray* dims, bool keepDims, bool noopWithEmptyDims, aclTensor* out",
     "aclnn_max_v2.h"),
    ("MaxDim", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, aclTensor* indices",
     "aclnn_max_dim.h"),
    ("MinDim", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, aclTensor* indices",
     "aclnn_min_dim.h"),
    ("ArgMax", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out", "aclnn_argmax.h"),
    ("ArgMin", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out", "aclnn_argmin.h"),
    ("All", "const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out", "aclnn_all.h"),
    ("Any", "const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out", "aclnn_any.h"),
    ("Std", "const aclTensor* self, const aclIntArray* dim, const int64_t correction, bool keepdim, aclTensor* out",
     "aclnn_std.h"),
    ("Var", "const aclTensor* self, const aclIntArray* dim, bool unbiased, bool keepdim, aclTensor* out",
     "aclnn_var.h"),
    ("VarMean", "const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, aclTensor* varOut, "
     "aclTensor* meanOut", "aclnn_var_mean.h"),
    ("StdMeanCorrection", "const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, "
     "aclTensor* stdOut, aclTensor* meanOut", "aclnn_std_mean_correction.h"),
    ("LogSumExp", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out", "aclnn_logsumexp.h"),
    ("ReduceLogSum", "const aclTensor* data, const aclIntArray* axes, bool keepDims, bool noopWithEmptyAxes, "
     "aclTensor* reduce", "aclnn_reduce_log_sum.h"),
    ("Aminmax", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* minOut, aclTensor* maxOut",
     "aclnn_aminmax.h"),
    ("AminmaxDim", "const aclTensor* self, const int64_t dim, bool keepDim, aclTensor* minOut, aclTensor* maxOut",
     "aclnn_aminmax_dim.h"),
    ("AminmaxAll", "const aclTensor* self, aclTensor* minOut, aclTensor* maxOut", "aclnn_aminmax_all.h"),
    ("GlobalMaxPool", "const aclTensor* self, aclTensor* out", "aclnn_global_max_pool.h"),
    ("GlobalAveragePool", "const aclTensor* self, aclTensor* out", "aclnn_global_average_pool.h"),
)]
