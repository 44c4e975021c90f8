"""ops-nn index family, second batch (libsrc/ops/index_add_v2.c, ...). The dtype lists are the ASCEND910B lists
of each op's op_api source (hicann/ops-nn index/<op>/op_api/aclnn_*.cpp)."""
from . import Op

IDX = ("i32", "i64")
INDEX_ADD_V2 = ("f32", "i32", "f16", "f64", "i16", "i8", "u8", "i64", "bool", "bf16")

OPS = [
    Op("IndexAddV2", "const aclTensor* self, const int64_t dim, const aclTensor* index, const aclTensor* source, "
       "const aclScalar* alpha, int64_t mode, aclTensor* out", "aclnn_index_add_v2.h", lib="nn",
       dtypes=INDEX_ADD_V2, arg_dtypes={"index": IDX}),
]
