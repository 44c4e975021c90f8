"""ops-math conversion/ (and math/logspace): the ops the table lacked. One C file each (libsrc/ops/<op>.c).

aclnnStridedSlice is an Ascend 950 op: on Atlas A2 its op_api refuses every call after the NULL checks (161002),
which is what the emulator does (no A2 dtype list). aclnnStridedSliceAssignV2 and aclnnCoalesceSparse have no
op_api source: their aclnn interfaces are generated at build time from the op definitions (op_host/*_def.cpp); the
prototypes follow their docs and example programs, the checks the generated interface makes (NULLs, the dtype
combinations of the definition) and the tiling's (561002)."""
from . import Op

OPS = [
    Op("StridedSlice",
       "const aclTensor* self, const aclIntArray* begin, const aclIntArray* end, const aclIntArray* strides, "
       "int64_t beginMask, int64_t endMask, int64_t ellipsisMask, int64_t newAxisMask, int64_t shrinkAxisMask, "
       "aclTensor* out", "aclnn_strided_slice.h", dtypes=()),
    Op("StridedSliceAssignV2",
       "aclTensor* varRef, const aclTensor* inputValue, const aclIntArray* begin, const aclIntArray* end, "
       "const aclIntArray* strides, const aclIntArray* axesOptional", "aclnn_strided_slice_assign_v2.h",
       dtypes=("f16", "f32", "bf16", "i32", "i64", "f64", "i8")),
    Op("ChunkCat", "const aclTensorList* tensors, int64_t dim, int64_t numChunks, aclTensor* out", "aclnn_chunk_cat.h",
       dtypes=("f32", "f16", "bf16")),
    Op("UnfoldGrad",
       "const aclTensor* gradOut, const aclIntArray* inputSizes, int64_t dim, int64_t size, int64_t step, "
       "const aclTensor* gradIn", "aclnn_unfold_grad.h", out="gradIn", dtypes=("f32", "f16", "bf16")),
    Op("CoalesceSparse",
       "const aclTensor* uniqueLen, const aclTensor* uniqueIndices, const aclTensor* indices, const aclTensor* values, "
       "aclTensor* newIndices, aclTensor* newValues", "aclnn_coalesce_sparse.h",
       dtypes=("f32", "i32", "f16"),
       arg_dtypes={"uniqueLen": ("i64", "i32"), "uniqueIndices": ("i64", "i32"), "indices": ("i64", "i32")}),
    Op("LogSpace", "const aclScalar* start, const aclScalar* end, int64_t steps, double base, const aclTensor* result",
       "aclnn_logspace.h", out="result", dtypes=("f32", "f16", "bf16")),
]
