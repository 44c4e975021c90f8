"""Pooling ops of hicann/ops-nn `pooling/` beyond the AvgPool2d seeds (hand-written, libsrc/ops/pool_*.c)."""
from . import Op

FLOAT = ("f32", "f16", "bf16")

OPS = [
    Op("AdaptiveAvgPool2d", """const aclTensor* self, const aclIntArray* outputSize, aclTensor* out""",
       "aclnn_adaptive_avg_pool2d.h", lib="nn", dtypes=FLOAT),
    Op("AdaptiveAvgPool2dBackward", """const aclTensor* gradOutput, const aclTensor* self, aclTensor* out""",
       "aclnn_adaptive_avg_pool2d_backward.h", lib="nn", dtypes=FLOAT),
    Op("AdaptiveMaxPool2d", """const aclTensor* self, const aclIntArray* outputSize, aclTensor* outputOut,
       aclTensor* indicesOut""", "aclnn_adaptive_max_pool2d.h", lib="nn", dtypes=("f32", "f64", "f16", "bf16"),
       arg_dtypes={"indicesOut": ("i64",)}),
    Op("AdaptiveMaxPool2dBackward", """const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices,
       aclTensor* gradInput""", "aclnn_adaptive_max_pool2d_backward.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i32", "i64")}),
]

# Windowed max pools with argmax (libsrc/ops/pool_max_with_indices*.c, kernels/pool3d.c). A2 lists of the op_api.
_MP_ARGS = """const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
       const aclIntArray* padding, const aclIntArray* dilation, bool ceilMode, aclTensor* out, aclTensor* indices"""
_MPB_ARGS = """const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices,
       const aclIntArray* kernelSize, const aclIntArray* stride, const aclIntArray* padding,
       const aclIntArray* dilation, bool ceilMode, aclTensor* gradInput"""
OPS += [
    Op("MaxPool2dWithIndices", _MP_ARGS, "aclnn_max_pool2d_with_indices.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i32", "i64")}),
    Op("MaxPool2dWithMask", _MP_ARGS, "aclnn_max_pool2d_with_indices.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i8",)}),
    Op("MaxPool3dWithArgmax", _MP_ARGS, "aclnn_max_pool3d_with_argmax.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i32",)}),
    Op("MaxPool2dWithIndicesBackward", _MPB_ARGS, "aclnn_max_pool2d_with_indices_backward.h", lib="nn",
       dtypes=("f32",), arg_dtypes={"indices": ("i32", "i8")}),
    Op("MaxPool2dWithMaskBackward", _MPB_ARGS, "aclnn_max_pool2d_with_indices_backward.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i8",)}),
    Op("MaxPool3dWithArgmaxBackward", _MPB_ARGS, "aclnn_max_pool3d_with_argmax_backward.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i32",)}),
]

# 3-D average pooling (libsrc/ops/pool_avg3d.c, kernels/pool3d.c).
OPS += [
    Op("AvgPool3d", """const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* stride,
       const aclIntArray* padding, bool ceilMode, bool countIncludePad, int64_t divisorOverride, aclTensor* out""",
       "aclnn_avgpool3d.h", lib="nn", dtypes=FLOAT),
    Op("AvgPool3dBackward", """const aclTensor* gradOutput, const aclTensor* self, const aclIntArray* kernelSize,
       const aclIntArray* stride, const aclIntArray* padding, bool ceilMode, bool countIncludePad,
       int64_t divisorOverride, aclTensor* output""", "aclnn_avgpool3d_backward.h", lib="nn", dtypes=FLOAT),
]

# Adaptive 3-D pools (libsrc/ops/pool_adaptive_avg3d.c, pool_adaptive_max3d.c, kernels/pool3d.c).
OPS += [
    Op("AdaptiveAvgPool3d", """const aclTensor* self, const aclIntArray* outputSize, aclTensor* out""",
       "aclnn_adaptive_avg_pool3d.h", lib="nn", dtypes=FLOAT),
    # double is accepted too when gradOutput pools to 1x1x1 (the op_api's all-one list)
    Op("AdaptiveAvgPool3dBackward", """const aclTensor* gradOutput, const aclTensor* self, aclTensor* out""",
       "aclnn_adaptive_avg_pool3d_backward.h", lib="nn", dtypes=FLOAT),
    Op("AdaptiveMaxPool3d", """const aclTensor* self, const aclIntArray* outputSize, aclTensor* outputOut,
       aclTensor* indicesOut""", "aclnn_adaptive_max_pool3d.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indicesOut": ("i32",)}),
    Op("AdaptiveMaxPool3dBackward", """const aclTensor* gradOutput, const aclTensor* self, const aclTensor* indices,
       aclTensor* gradInput""", "aclnn_adaptive_max_pool3d_backward.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"indices": ("i32",)}),
]

# 2-D max pooling without indices, ONNX-style attributes (libsrc/ops/pool_max_v3.c). A2 list: f16, f32.
OPS += [
    Op("MaxPool", """const aclTensor* self, const aclIntArray* kernelShape, const aclIntArray* strides,
       const int64_t autoPad, const aclIntArray* pads, const aclIntArray* dilations, const int64_t ceilMode,
       aclTensor* out""", "aclnn_max_pool.h", lib="nn", dtypes=("f16", "f32")),
]
