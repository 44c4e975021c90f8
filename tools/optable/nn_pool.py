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
