"""ops-math scans, tensor-list sums and small products (libsrc/ops/scan_misc.c). The dtype lists are the
ASCEND910B lists of each op's op_api source (hicann/ops-math math/<op>/op_api/aclnn_*.cpp)."""
from . import Op

CUMSUM = ("f32", "f16", "i32", "f64", "u8", "i8", "i16", "i64", "c64", "c128", "bf16")
CUMPROD = ("f32", "f16", "bf16", "f64", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64")
CUMMAX = ("f32", "f16", "f64", "i8", "i16", "i32", "i64", "u8", "bool", "bf16")
MAXN = ("f16", "f32", "i8", "i32", "i64", "bf16")
ADDR = ("f64", "f32", "f16", "i64", "i32", "i16", "i8", "u8", "bool", "bf16")

OPS = [
    # Cumsum: out (and the dtype argument) from the list; self is cast to out's dtype unchecked
    Op("Cumsum", "const aclTensor* self, int64_t dim, aclDataType dtype, aclTensor* out", "aclnn_cumsum.h",
       dtypes=CUMSUM),
    Op("CumsumV2", "const aclTensor* self, int64_t dim, bool exclusive, bool reverse, aclTensor* out",
       "aclnn_cumsum.h", dtypes=CUMSUM),
    Op("Cumprod", "const aclTensor* input, const aclScalar* dim, const aclDataType dtype, aclTensor* out",
       "aclnn_cumprod.h", dtypes=CUMPROD, arg_dtypes={"dim": ("i32", "i64")}),
    Op("InplaceCumprod", "aclTensor* input, const aclScalar* dim", "aclnn_cumprod.h", dtypes=CUMPROD,
       arg_dtypes={"dim": ("i32", "i64")}),
    Op("Cummax", "const aclTensor* self, int64_t dim, aclTensor* valuesOut, aclTensor* indicesOut",
       "aclnn_cummax.h", dtypes=CUMMAX, arg_dtypes={"indicesOut": ("i32", "i64")}),
    Op("Cummin", "const aclTensor* self, int64_t dim, aclTensor* valuesOut, aclTensor* indicesOut",
       "aclnn_cummin.h", dtypes=CUMMAX, arg_dtypes={"indicesOut": ("i32", "i64")}),
    Op("Sum", "const aclTensorList* tensors, aclTensor* out", "aclnn_sum.h", dtypes=("f16", "f32", "i8", "i32", "u8")),
    Op("AddN", "const aclTensorList *tensors, aclTensor *out", "aclnn_add_n.h",
       dtypes=("i32", "i64", "f16", "bf16", "f32")),
    Op("MaxN", "const aclTensorList* tensors, aclTensor* out", "aclnn_maxn.h", dtypes=MAXN),
    Op("MinN", "const aclTensorList* tensors, aclTensor* out", "aclnn_minn.h", dtypes=MAXN),
    Op("Dot", "const aclTensor* self, const aclTensor* tensor, aclTensor* out", "aclnn_dot.h",
       dtypes=("f32", "f16", "bf16", "i8", "i32", "u8")),
    Op("Ger", "const aclTensor* self, const aclTensor* vec2, aclTensor* out", "aclnn_ger.h",
       dtypes=("f32", "f16", "i32", "f64", "i8", "u8", "i16", "bool", "i64", "c64", "c128")),
    Op("Addr", "const aclTensor* self, const aclTensor* vec1, const aclTensor* vec2, const aclScalar* betaOptional, "
       "const aclScalar* alphaOptional, aclTensor* out", "aclnn_addr.h", dtypes=ADDR),
    Op("InplaceAddr", "aclTensor* selfRef, const aclTensor* vec1, const aclTensor* vec2, "
       "const aclScalar* betaOptional, const aclScalar* alphaOptional", "aclnn_addr.h", dtypes=ADDR),
    Op("Trace", "const aclTensor* self, aclTensor* out", "aclnn_trace.h",
       dtypes=("f32", "f16", "f64", "c64", "c128", "i32", "i64", "i16", "i8", "u8", "bool", "bf16")),
    # Equal: the list applies to the promoted dtype of self and other
    Op("Equal", "const aclTensor* self, const aclTensor* other, aclTensor* out", "aclnn_equal.h",
       dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bool", "f64", "u16", "u32", "u64", "bf16"),
       out_dtypes=("bool",)),
    Op("LinalgCross", "const aclTensor* self, const aclTensor* other, int64_t dim, aclTensor* out",
       "aclnn_linalg_cross.h", dtypes=("f32", "f16", "f64", "i8", "i16", "i32", "i64", "c64", "c128", "u8", "bf16")),
]
