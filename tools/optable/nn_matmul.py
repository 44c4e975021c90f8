"""ops-nn matmul/: the matrix products (hand-written first phases in libsrc/ops/matmul.c over the shared GEMM engine
libsrc/kernels/gemm.c)."""
from . import Op

MM_DT = ("f32", "f16", "bf16")  # Dav2201MatMulRule::GetSupportedDTypes (ASCEND910B)
ADDMV_DT = ("f32", "i32", "i64", "f16", "bf16", "i16", "i8", "u8", "f64", "bool")  # aclnn_addmv.cpp
EINSUM_DT = ("f16", "f32", "i16", "i32", "i64", "u16", "u32", "u64")  # aclnn_einsum.cpp DAV_2201 list

OPS = [
    Op("Mm", "const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cubeMathType", "aclnn_mm.h",
       lib="nn", dtypes=MM_DT),
    Op("Matmul", "const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cubeMathType",
       "aclnn_matmul.h", lib="nn", dtypes=MM_DT),
    Op("BatchMatMul", "const aclTensor* self, const aclTensor* mat2, aclTensor* out, int8_t cubeMathType",
       "aclnn_batch_matmul.h", lib="nn", dtypes=MM_DT),
    Op("Mv", "const aclTensor* self, const aclTensor* vec, aclTensor* out, int8_t cubeMathType", "aclnn_mv.h",
       lib="nn", dtypes=MM_DT),
    Op("Einsum", "const aclTensorList* tensors, const char* equation, aclTensor* output", "aclnn_einsum.h",
       lib="nn", dtypes=EINSUM_DT),
    Op("Addmm", "const aclTensor* self, const aclTensor* mat1, const aclTensor* mat2, const aclScalar* beta, "
       "const aclScalar* alpha, aclTensor* out, int8_t cubeMathType", "aclnn_addmm.h", lib="nn", dtypes=MM_DT),
    Op("InplaceAddmm", "const aclTensor* selfRef, const aclTensor* mat1, const aclTensor* mat2, const aclScalar* beta, "
       "const aclScalar* alpha, int8_t cubeMathType", "aclnn_addmm.h", lib="nn", dtypes=MM_DT, inout="selfRef"),
    Op("Baddbmm", "const aclTensor* self, const aclTensor* batch1, const aclTensor* batch2, const aclScalar* beta, "
       "const aclScalar* alpha, aclTensor* out, int8_t cubeMathType", "aclnn_baddbmm.h", lib="nn", dtypes=MM_DT),
    Op("InplaceBaddbmm", "const aclTensor* selfRef, const aclTensor* batch1, const aclTensor* batch2, "
       "const aclScalar* beta, const aclScalar* alpha, int8_t cubeMathType", "aclnn_baddbmm.h", lib="nn",
       dtypes=MM_DT, inout="selfRef"),
    Op("Addbmm", "const aclTensor* self, const aclTensor* batch1, const aclTensor* batch2, const aclScalar* beta, "
       "const aclScalar* alpha, aclTensor* out, int8_t cubeMathType", "aclnn_addbmm.h", lib="nn", dtypes=MM_DT),
    Op("InplaceAddbmm", "aclTensor* selfRef, const aclTensor* batch1, const aclTensor* batch2, const aclScalar* beta, "
       "const aclScalar* alpha, int8_t cubeMathType", "aclnn_addbmm.h", lib="nn", dtypes=MM_DT),
    Op("Addmv", "const aclTensor* self, const aclTensor* mat, const aclTensor* vec, const aclScalar* alpha, "
       "const aclScalar* beta, aclTensor* out, int8_t cubeMathType", "aclnn_addmv.h", lib="nn", dtypes=ADDMV_DT),
]
