"""Sampling ops of hicann/ops-cv `image/` beyond the GridSampler2D seeds (hand-written, libsrc/ops/grid_sampler3d*.c;
kernels libsrc/kernels/grid_sampler3d.c sharing the 2-D op's coordinate maths). Dtype lists: the op_api's
DTYPE_SUPPORT_LIST (ASCEND910B runs FLOAT/FLOAT16/BF16 on AI Core and DOUBLE on AI CPU)."""
from . import Op

OPS = [
    Op("GridSampler3D", """const aclTensor* input, const aclTensor* grid, int64_t interpolationMode,
       int64_t paddingMode, bool alignCorners, aclTensor* out""", "aclnn_grid_sampler3d.h", lib="cv",
       dtypes=("f16", "f32", "f64", "bf16")),
    Op("GridSampler3DBackward", """const aclTensor* gradOutput, const aclTensor* input, const aclTensor* grid,
       int64_t interpolationMode, int64_t paddingMode, bool alignCorners, const aclBoolArray* outputMask,
       aclTensor* inputGrad, aclTensor* gridGrad""", "aclnn_grid_sampler3d_backward.h", lib="cv",
       dtypes=("f32", "f16", "bf16", "f64")),
]

OPS += [
    Op("Im2colBackward", """const aclTensor* gradOutput, const aclIntArray* inputSize, const aclIntArray* kernelSize,
       const aclIntArray* dilation, const aclIntArray* padding, const aclIntArray* stride, aclTensor* out""",
       "aclnn_im2col_backward.h", lib="cv", dtypes=("f32", "f16", "bf16")),
]

OPS += [
    Op("ThreeInterpolateBackward", """const aclTensor* grad_x, const aclTensor* idx, const aclTensor* weight, int m,
       aclTensor* grad_y""", "aclnn_three_interpolate_backward.h", lib="cv", dtypes=("f32", "f16"),
       arg_dtypes={"idx": ("i32", "i64")}),
]

OPS += [
    Op("Rasterizer", """const aclTensor* v, const aclTensor* f, const aclTensor* dOptional, int64_t width,
       int64_t height, double occlusionTruncation, int64_t useDepthPrior, const aclTensor* findicesOut,
       const aclTensor* barycentricOut""", "aclnn_rasterizer.h", lib="cv", dtypes=("f32",),
       out=("findicesOut", "barycentricOut"), arg_dtypes={"f": ("i32",), "findicesOut": ("i32",)}),
]
