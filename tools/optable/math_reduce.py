"""ops-math reductions (math/reduce_*, arg_max*, ...): hand-written first phases over one deterministic reduction
engine (libsrc/ops/reduce.c). The dtype lists are the ASCEND910B lists of each op_api source; `dtype` arguments
(the compute dtype of ReduceSum/ReduceNansum/Mean) have their own list, `out_dtypes` is the list of an output that
may differ from self (Max/Min cast, ArgMin's index, All/Any's bool/uint8, LogSumExp's float result)."""
from . import Op

SUM = ("f16", "f32", "i8", "i16", "i32", "i64", "u8", "bool", "f64", "c64", "c128", "bf16")
NANSUM = ("f16", "f32", "i8", "i16", "i32", "i64", "u8", "bool", "bf16")
MEAN = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16", "c64", "c128")
PROD = ("f32", "f16", "f64", "i8", "u8", "i16", "i32", "i64", "bool", "c64", "c128", "bf16")
AMAX = ("f32", "f16", "u8", "i32", "i64", "i16", "i8", "f64", "bool", "bf16")
MAX = ("f32", "f16", "u8", "i8", "i16", "i32", "i64", "f64", "bool", "bf16")
MAXDIM = ("f32", "f16", "i64", "bool", "bf16")
ARG = ("f32", "f16", "f64", "i8", "i16", "i32", "i64", "u8", "bf16")
ALLANY = ("f32", "f16", "u8", "i8", "i16", "i32", "i64", "bool", "f64", "bf16")
STD = ("f32", "f16", "bf16")
LSE = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bool", "bf16")
AMINMAX = ("f32", "f16", "i32", "u8", "bool", "bf16", "i8", "i16", "i64", "f64")

OPS = [
    Op("ReduceSum", "const aclTensor* self, const aclIntArray* dims, bool keepDims, aclDataType dtype, aclTensor* out",
       "aclnn_reduce_sum.h", dtypes=SUM, arg_dtypes={"dtype": SUM}, out_dtypes=SUM),
    Op("ReduceNansum", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype, aclTensor* out",
       "aclnn_reduce_nansum.h", dtypes=NANSUM, arg_dtypes={"dtype": NANSUM}, out_dtypes=NANSUM),
    Op("Mean", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclDataType dtype, aclTensor* out",
       "aclnn_mean.h", dtypes=MEAN, arg_dtypes={"dtype": MEAN}, out_dtypes=MEAN),
    Op("MeanV2", "const aclTensor* self, const aclIntArray* dim, bool keepDim, bool noopWithEmptyAxes, aclTensor* out",
       "aclnn_mean.h", dtypes=MEAN),
    Op("Prod", "const aclTensor* self, const aclDataType dtype, aclTensor* out", "aclnn_prod.h", dtypes=PROD),
    Op("ProdDim", "const aclTensor* self, int64_t dim, bool keepDim, const aclDataType dtype, aclTensor* out",
       "aclnn_prod.h", dtypes=PROD),
    Op("Amax", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out", "aclnn_amax.h",
       dtypes=AMAX),
    Op("Amin", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out", "aclnn_amin.h",
       dtypes=AMAX),
    Op("Max", "const aclTensor* self, aclTensor* out", "aclnn_max.h", dtypes=MAX, out_dtypes=MAX),
    Op("Min", "const aclTensor* self, aclTensor* out", "aclnn_min.h", dtypes=MAX, out_dtypes=MAX),
    Op("MaxV2", "const aclTensor* self, const aclIntArray* dims, bool keepDims, bool noopWithEmptyDims, aclTensor* out",
       "aclnn_max_v2.h", dtypes=MAX),
    Op("MaxDim", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, aclTensor* indices",
       "aclnn_max_dim.h", dtypes=MAXDIM),
    Op("MinDim", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out, aclTensor* indices",
       "aclnn_min_dim.h", dtypes=MAXDIM),
    Op("ArgMax", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out", "aclnn_argmax.h", dtypes=ARG),
    Op("ArgMin", "const aclTensor* self, int64_t dim, bool keepdim, aclTensor* out", "aclnn_argmin.h", dtypes=ARG,
       out_dtypes=("i32", "i64")),
    Op("All", "const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out", "aclnn_all.h",
       dtypes=ALLANY, out_dtypes=("u8", "bool")),
    Op("Any", "const aclTensor* self, const aclIntArray* dim, bool keepdim, aclTensor* out", "aclnn_any.h",
       dtypes=ALLANY, out_dtypes=("u8", "bool")),
    Op("Std", "const aclTensor* self, const aclIntArray* dim, const int64_t correction, bool keepdim, aclTensor* out",
       "aclnn_std.h", dtypes=STD),
    Op("Var", "const aclTensor* self, const aclIntArray* dim, bool unbiased, bool keepdim, aclTensor* out",
       "aclnn_var.h", dtypes=STD),
    Op("VarCorrection", "const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, "
       "aclTensor* out", "aclnn_var.h", dtypes=STD),
    Op("VarMean", "const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, aclTensor* varOut, "
       "aclTensor* meanOut", "aclnn_var_mean.h", dtypes=("f32", "f16")),
    Op("StdMeanCorrection", "const aclTensor* self, const aclIntArray* dim, int64_t correction, bool keepdim, "
       "aclTensor* stdOut, aclTensor* meanOut", "aclnn_std_mean_correction.h", dtypes=STD),
    Op("LogSumExp", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* out", "aclnn_logsumexp.h",
       dtypes=LSE, out_dtypes=STD),
    Op("ReduceLogSum", "const aclTensor* data, const aclIntArray* axes, bool keepDims, bool noopWithEmptyAxes, "
       "aclTensor* reduce", "aclnn_reduce_log_sum.h", dtypes=("f16", "f32")),
    Op("Aminmax", "const aclTensor* self, const aclIntArray* dim, bool keepDim, aclTensor* minOut, aclTensor* maxOut",
       "aclnn_aminmax.h", dtypes=AMINMAX),
    Op("AminmaxDim", "const aclTensor* self, const int64_t dim, bool keepDim, aclTensor* minOut, aclTensor* maxOut",
       "aclnn_aminmax_dim.h", dtypes=AMINMAX),
    Op("AminmaxAll", "const aclTensor* self, aclTensor* minOut, aclTensor* maxOut", "aclnn_aminmax_all.h",
       dtypes=AMINMAX),
    Op("GlobalMaxPool", "const aclTensor* self, aclTensor* out", "aclnn_global_max_pool.h", dtypes=("f32", "f16", "f64")),
    Op("GlobalAveragePool", "const aclTensor* self, aclTensor* out", "aclnn_global_average_pool.h",
       dtypes=("f32", "f16", "f64", "bf16")),
]
