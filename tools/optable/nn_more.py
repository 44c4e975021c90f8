"""ops-nn, issue 12 leftovers: UniqueDim (index/unique_with_counts_ext2/op_host/op_api/aclnn_unique_dim.cpp,
libsrc/ops/index_unique_dim.c). The dtype list is the op_api's ASCEND910B list."""
from . import Op

UNIQUE_DIM = ("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f64", "f32", "f16", "bf16", "bool")

OPS = [
    Op("UniqueDim", "const aclTensor* self, bool sorted, bool returnInverse, int64_t dim, aclTensor* valueOut, "
       "aclTensor* inverseOut, aclTensor* countsOut", "aclnn_unique_dim.h", lib="nn", dtypes=UNIQUE_DIM),
]

# index/gather_elements/op_api/aclnn_max_unpool2d_backward.cpp (libsrc/ops/pool_max_unpool_backward.c)
MAX_UNPOOL2D_BW = ("f32", "f16", "i8", "u8", "i16", "i32", "i64", "bool")

OPS += [
    Op("MaxUnpool2dBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices, "
       "const aclIntArray* outputSize, aclTensor* out", "aclnn_max_unpool2d_backward.h", lib="nn",
       dtypes=MAX_UNPOOL2D_BW, arg_dtypes={"indices": ("i64", "i32")}),
]

# index/gather_elements/op_api/aclnn_max_unpool3d_backward.cpp (same C file)
MAX_UNPOOL3D_BW = ("f32", "f16", "i8", "u8", "i16", "i32", "i64", "f64")

OPS += [
    Op("MaxUnpool3dBackward", "const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices, "
       "const aclIntArray* outputSize, const aclIntArray* stride, const aclIntArray* padding, aclTensor* out",
       "aclnn_max_unpool3d_backward.h", lib="nn", dtypes=MAX_UNPOOL3D_BW, arg_dtypes={"indices": ("i64",)}),
]
