"""ops-nn index family: gathers, scatters, index/index_put, fills, nonzero, repeat_interleave
(libsrc/ops/index_*.c). The dtype lists are the ASCEND910B lists of each op's op_api source
(hicann/ops-nn index/<op>/op_api/aclnn_*.cpp); index tensors take int32/int64 unless noted."""
from . import Op

IDX = ("i32", "i64")

GATHER = ("f32", "i32", "f16", "i8", "f64", "i16", "i64", "u64", "u32", "u16", "u8", "bool", "bf16")
GATHER_V2 = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bool", "f64", "c64", "c128", "bf16")
INDEX_SELECT = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bool", "u64", "u32", "u16", "f64", "c64", "c128",
                "bf16")
TAKE = ("f32", "f16", "u64", "i64", "u32", "i32", "u16", "i16", "u8", "i8", "f64", "c64", "c128", "bool", "bf16")
GATHER_ND = ("f32", "i32", "i64", "f16", "i8", "u8", "bool", "bf16")
EMBEDDING = ("f64", "f32", "f16", "i64", "i32", "i16", "i8", "u8", "bool", "c128", "c64", "bf16")

OPS = [
    Op("Gather", "const aclTensor* self, const int64_t dim, const aclTensor* index, aclTensor* out", "aclnn_gather.h",
       lib="nn", dtypes=GATHER, arg_dtypes={"index": IDX}),
    Op("GatherV2", "const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out", "aclnn_gather_v2.h",
       lib="nn", dtypes=GATHER_V2, arg_dtypes={"index": IDX}),
    Op("IndexSelect", "const aclTensor* self, int64_t dim, const aclTensor* index, aclTensor* out",
       "aclnn_index_select.h", lib="nn", dtypes=INDEX_SELECT, arg_dtypes={"index": IDX}),
    Op("Take", "const aclTensor* self, const aclTensor* index, aclTensor* out", "aclnn_take.h", lib="nn",
       dtypes=TAKE, arg_dtypes={"index": IDX}),
    Op("GatherNd", "const aclTensor* self, const aclTensor* indices, bool negativeIndexSupport, aclTensor* out",
       "aclnn_gather_nd.h", lib="nn", dtypes=GATHER_ND, arg_dtypes={"indices": IDX}),
    Op("Embedding", "const aclTensor* weight, const aclTensor* indices, const aclTensor* out", "aclnn_embedding.h",
       lib="nn", dtypes=EMBEDDING, arg_dtypes={"indices": IDX}, out="out"),
]

SCATTER = ("u8", "i8", "i16", "i32", "i64", "bool", "f16", "f32", "f64", "c64", "c128", "bf16")
INDEX_ADD = ("f32", "i32", "f16", "f64", "i16", "i8", "u8", "i64", "bool", "bf16")
INDEX_COPY = ("f64", "i16", "i8", "u8", "c64", "c128", "bool", "f32", "f16", "i32", "i64", "bf16")
INDEX_FILL = ("i32", "f16", "f32", "i64", "bool", "bf16")

OPS += [
    Op("Scatter", "const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src, int64_t reduce, "
       "aclTensor* out", "aclnn_scatter.h", lib="nn", dtypes=SCATTER, arg_dtypes={"index": IDX}),
    Op("ScatterValue", "const aclTensor* self, int64_t dim, const aclTensor* index, const aclScalar* value, "
       "int64_t reduce, aclTensor* out", "aclnn_scatter.h", lib="nn", dtypes=SCATTER, arg_dtypes={"index": IDX}),
    Op("InplaceScatter", "aclTensor* selfRef, int64_t dim, const aclTensor* index, const aclTensor* src, "
       "int64_t reduce", "aclnn_scatter.h", lib="nn", dtypes=SCATTER, arg_dtypes={"index": IDX}),
    Op("InplaceScatterValue", "aclTensor* selfRef, int64_t dim, const aclTensor* index, const aclScalar* value, "
       "int64_t reduce", "aclnn_scatter.h", lib="nn", dtypes=SCATTER, arg_dtypes={"index": IDX}),
    Op("ScatterAdd", "const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src, "
       "aclTensor* out", "aclnn_scatter_add.h", lib="nn", dtypes=SCATTER, arg_dtypes={"index": IDX}),
    Op("IndexAdd", "const aclTensor* self, const int64_t dim, const aclTensor* index, const aclTensor* source, "
       "const aclScalar* alpha, aclTensor* out", "aclnn_index_add.h", lib="nn", dtypes=INDEX_ADD,
       arg_dtypes={"index": IDX}),
    Op("IndexCopy", "aclTensor* selfRef, int64_t dim, const aclTensor* index, const aclTensor* source, "
       "aclTensor* outRef", "aclnn_index_copy.h", lib="nn", dtypes=INDEX_COPY, arg_dtypes={"index": IDX},
       inplace=False),
    Op("InplaceIndexCopy", "aclTensor* selfRef, int64_t dim, const aclTensor* index, const aclTensor* source",
       "aclnn_index_copy.h", lib="nn", dtypes=INDEX_COPY, arg_dtypes={"index": IDX}),
    Op("IndexFill", "const aclTensor* self, int64_t dim, const aclTensor* index, const aclScalar* value, "
       "aclTensor* out", "aclnn_index_fill.h", lib="nn", dtypes=INDEX_FILL, arg_dtypes={"index": IDX}),
    Op("InplaceIndexFill", "aclTensor* selfRef, int64_t dim, const aclTensor* index, const aclScalar* value",
       "aclnn_index_fill.h", lib="nn", dtypes=INDEX_FILL, arg_dtypes={"index": IDX}),
    Op("IndexFillTensor", "const aclTensor* self, int64_t dim, const aclIntArray* index, const aclScalar* value, "
       "aclTensor* out", "aclnn_index_fill_tensor.h", lib="nn", dtypes=INDEX_FILL),
    Op("InplaceIndexFillTensor", "aclTensor* selfRef, int64_t dim, const aclIntArray* index, const aclScalar* value",
       "aclnn_index_fill_tensor.h", lib="nn", dtypes=INDEX_FILL),
]

INDEX = ("f32", "f16", "i64", "i32", "bool", "i8", "u8", "bf16", "f64", "i16")
INDEX_PUT = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16")
IDX_MASK = ("i32", "i64", "bool")

OPS += [
    Op("Index", "const aclTensor* self, const aclTensorList* indices, aclTensor* out", "aclnn_index.h", lib="nn",
       dtypes=INDEX, arg_dtypes={"indices": ("i64", "i32", "bool")}),
    Op("IndexPutImpl", "aclTensor* selfRef, const aclTensorList* indices, const aclTensor* values, "
       "const bool accumulate, const bool unsafe", "aclnn_index_put_impl.h", lib="nn", dtypes=INDEX_PUT,
       arg_dtypes={"indices": IDX_MASK}, inplace=True),
    Op("EmbeddingDenseBackward", "const aclTensor* grad, const aclTensor* indices, uint64_t numWeights, "
       "uint64_t paddingIdx, bool scaleGradByFreq, const aclTensor* out", "aclnn_embedding_dense_backward.h",
       lib="nn", dtypes=("f32", "f16", "bf16"),
       arg_dtypes={"indices": ("f16", "f32", "f64", "i8", "u8", "i16", "i32", "i64", "bool"),
                   "out": ("f32", "f16", "bf16")}, out="out"),
]

REPEAT = ("u8", "i8", "i16", "i32", "i64", "bool", "f16", "f32", "bf16")

OPS += [
    Op("RepeatInterleave", "const aclTensor* self, const aclTensor* repeats, int64_t outputSize, aclTensor* out",
       "aclnn_repeat_interleave.h", lib="nn", dtypes=REPEAT, arg_dtypes={"repeats": ("i64", "i32")}),
    Op("RepeatInterleaveWithDim", "const aclTensor* self, const aclTensor* repeats, int64_t dim, int64_t outputSize, "
       "aclTensor* out", "aclnn_repeat_interleave.h", lib="nn", dtypes=REPEAT, arg_dtypes={"repeats": ("i64", "i32")}),
    Op("RepeatInterleaveInt", "const aclTensor* self, int64_t repeats, int64_t outputSize, aclTensor* out",
       "aclnn_repeat_interleave.h", lib="nn", dtypes=REPEAT),
    Op("RepeatInterleaveIntWithDim", "const aclTensor* self, int64_t repeats, int64_t dim, int64_t outputSize, "
       "aclTensor* out", "aclnn_repeat_interleave.h", lib="nn", dtypes=REPEAT),
    Op("RepeatInterleaveTensor", "const aclTensor* repeats, int64_t outputSize, aclTensor* out",
       "aclnn_repeat_interleave.h", lib="nn", dtypes=("i64", "i32")),
]

OPS += [
    Op("InplaceMaskedScatter", "aclTensor* selfRef, const aclTensor* mask, const aclTensor* source",
       "aclnn_masked_scatter.h", lib="nn", dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16"),
       arg_dtypes={"mask": ("u8", "bool")}),
]

OPS += [
    Op("Nonzero", "const aclTensor* self, aclTensor* out", "aclnn_nonzero.h", lib="nn",
       dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16")),
    Op("NonzeroV2", "const aclTensor* self, aclTensor* out", "aclnn_nonzero_v2.h", lib="nn",
       dtypes=("f32", "f16", "i8", "u8", "i16", "u16", "i32", "u32", "i64", "u64", "f64", "bool", "bf16")),
]

OPS += [
    Op("ScatterNd", "const aclTensor* data, const aclTensor* indices, const aclTensor* updates, aclTensor* out",
       "aclnn_scatter_nd.h", lib="nn", dtypes=("f16", "f32", "bool", "bf16"), arg_dtypes={"indices": ("i64", "i32")}),
    Op("ScatterNdUpdate", "aclTensor* varRef, const aclTensor* indices, const aclTensor* updates",
       "aclnn_scatter_nd_update.h", lib="nn", dtypes=("f32", "f16", "bool", "i16", "bf16", "i64", "i8", "i32"),
       arg_dtypes={"indices": ("i64", "i32")}, inplace=True),
    Op("InplacePut", "aclTensor* selfRef, const aclTensor* index, const aclTensor* source, bool accumulate",
       "aclnn_put.h", lib="nn",
       dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "c64", "c128", "bool", "bf16"),
       arg_dtypes={"index": ("i64", "i32")}),
]

OPS += [
    # on A2 only float32 / reduce=1 (sum) / includeSelf=true passes the op_api (scatter_add)
    Op("ScatterReduce", "const aclTensor* self, int64_t dim, const aclTensor* index, const aclTensor* src, "
       "int64_t reduce, bool includeSelf, aclTensor* out", "aclnn_scatter_reduce.h", lib="nn", dtypes=("f32",),
       arg_dtypes={"index": IDX}),
    Op("InplaceScatterReduce", "aclTensor* selfRef, int64_t dim, const aclTensor* index, const aclTensor* src, "
       "int64_t reduce, bool includeSelf", "aclnn_scatter_reduce.h", lib="nn", dtypes=("f32",),
       arg_dtypes={"index": IDX}),
]

UNIQUE = ("bool", "u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f64", "f32", "f16", "bf16")

OPS += [
    Op("Unique", "const aclTensor* self, bool sorted, bool returnInverse, aclTensor* valueOut, aclTensor* inverseOut",
       "aclnn_unique.h", lib="nn", dtypes=UNIQUE),
    Op("Unique2", "const aclTensor* self, bool sorted, bool returnInverse, bool returnCounts, aclTensor* valueOut, "
       "aclTensor* inverseOut, aclTensor* countsOut", "aclnn_unique2.h", lib="nn", dtypes=UNIQUE),
]

OPS += [
    Op("GatherV3", "const aclTensor* self, int64_t dim, const aclTensor* index, int64_t batchDims, int64_t mode, "
       "aclTensor* out", "aclnn_gather_v3.h", lib="nn", dtypes=GATHER_V2, arg_dtypes={"index": IDX}),
    # the A2 op_api refuses every call (561000) before its checks
    Op("Bucketize", "const aclTensor* self, const aclTensor* boundaries, const bool outInt32, const bool right, "
       "aclTensor* out", "aclnn_bucketize.h", lib="nn", dtypes=("f32", "f16", "i32", "i16", "bf16", "i8", "u8", "i64"),
       test=False),
]

OPS += [
    Op("UniqueConsecutive", "const aclTensor* self, bool returnInverse, bool returnCounts, int64_t dim, "
       "aclTensor* valueOut, aclTensor* inverseOut, aclTensor* countsOut", "aclnn_unique_consecutive.h", lib="nn",
       dtypes=("u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64", "f64", "f32", "f16", "c64", "c128", "bool",
               "bf16")),
]

OPS += [
    Op("TfScatterAdd", "aclTensor* varRef, const aclTensor* indices, const aclTensor* updates",
       "aclnn_tf_scatter_add.h", lib="nn", dtypes=("f32", "f16", "bf16", "i32", "i8", "u8"),
       arg_dtypes={"indices": ("i64", "i32")}, inplace=True),
]

MEDIAN = ("f32", "f16", "bf16", "u8", "i8", "i16", "i32", "i64")

OPS += [
    Op("MedianDim", "const aclTensor* self, int64_t dim, bool keepDim, aclTensor* valuesOut, aclTensor* indicesOut",
       "aclnn_median.h", lib="nn", dtypes=MEDIAN),
    Op("NanMedianDim", "const aclTensor* self, int64_t dim, bool keepDim, aclTensor* valuesOut, "
       "aclTensor* indicesOut", "aclnn_median.h", lib="nn", dtypes=MEDIAN),
]

OPS += [
    Op("Median", "const aclTensor* self, aclTensor* valuesOut", "aclnn_median.h", lib="nn", dtypes=MEDIAN),
    Op("NanMedian", "const aclTensor* self, aclTensor* out", "aclnn_median.h", lib="nn", dtypes=MEDIAN),
]
