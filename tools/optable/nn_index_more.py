"""ops-nn index family, second batch (libsrc/ops/index_add_v2.c, aclnnTopk in libsrc/ops/sort_search.c, ...). The dtype lists are the ASCEND910B lists
of each op's op_api source (hicann/ops-nn index/<op>/op_api/aclnn_*.cpp)."""
from . import Op

IDX = ("i32", "i64")
TOPK = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16")  # index/gather_elements/op_api/aclnn_topk.cpp
INDEX_ADD_V2 = ("f32", "i32", "f16", "f64", "i16", "i8", "u8", "i64", "bool", "bf16")

OPS = [
    Op("IndexAddV2", "const aclTensor* self, const int64_t dim, const aclTensor* index, const aclTensor* source, "
       "const aclScalar* alpha, int64_t mode, aclTensor* out", "aclnn_index_add_v2.h", lib="nn",
       dtypes=INDEX_ADD_V2, arg_dtypes={"index": IDX}),
    Op("Topk", "const aclTensor* self, int64_t k, int64_t dim, bool largest, bool sorted, aclTensor* valuesOut, "
       "aclTensor* indicesOut", "aclnn_topk.h", lib="nn", dtypes=TOPK, arg_dtypes={"indicesOut": ("i64",)}),
]
