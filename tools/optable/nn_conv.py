"""ops-nn conv/: the convolution family (hand-written first phases in libsrc/ops/convolution*.c, compute in
libsrc/kernels/conv.*). The dtype lists are the ASCEND910B lists of conv/convolution_forward/op_host/op_api
(GetDtypeSupportListBySocVersion: FLOAT, FLOAT16, BFLOAT16 for x/filter/y; BIAS_SUPPORT_LIST for bias)."""
from . import FLOAT, Op

OPS = [
    Op("Convolution", """const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
       const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation, bool transposed,
       const aclIntArray* outputPadding, const int64_t groups, aclTensor* output, int8_t cubeMathType""",
       "aclnn_convolution.h", lib="nn", dtypes=FLOAT, arg_dtypes={"bias": FLOAT}),
]
OPS.append(
    Op("ConvTbc", """const aclTensor* self, const aclTensor* weight, const aclTensor* bias, const int64_t pad,
       aclTensor* output, int8_t cubeMathType""", "aclnn_convolution.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"bias": FLOAT}))
OPS.append(
    Op("ConvDepthwise2d", """const aclTensor* self, const aclTensor* weight, const aclIntArray* kernelSize,
       const aclTensor* bias, const aclIntArray* stride, const aclIntArray* padding, const aclIntArray* dilation,
       aclTensor* out, int8_t cubeMathType""", "aclnn_convolution.h", lib="nn", dtypes=FLOAT,
       arg_dtypes={"bias": FLOAT}))
OPS.append(
    Op("ConvolutionBackward", """const aclTensor* gradOutput, const aclTensor* input, const aclTensor* weight,
       const aclIntArray* biasSizes, const aclIntArray* stride, const aclIntArray* padding,
       const aclIntArray* dilation, bool transposed, const aclIntArray* outputPadding, int groups,
       const aclBoolArray* outputMask, int8_t cubeMathType, aclTensor* gradInput, aclTensor* gradWeight,
       aclTensor* gradBias""", "aclnn_convolution_backward.h", lib="nn", dtypes=FLOAT))
OPS.append(
    Op("ConvTbcBackward", """const aclTensor* self, const aclTensor* input, const aclTensor* weight,
       const aclTensor* bias, int64_t pad, int8_t cubeMathType, aclTensor* gradInput, aclTensor* gradWeight,
       aclTensor* gradBias""", "aclnn_convolution_backward.h", lib="nn", dtypes=FLOAT))
OPS.append(
    Op("DeformableConv2d", """const aclTensor* x, const aclTensor* weight, const aclTensor* offset,
       const aclTensor* biasOptional, const aclIntArray* kernelSize, const aclIntArray* stride,
       const aclIntArray* padding, const aclIntArray* dilation, int64_t groups, int64_t deformableGroups,
       bool modulated, aclTensor* out, aclTensor* deformOutOptional""", "aclnn_deformable_conv2d.h", lib="nn",
       dtypes=FLOAT))
OPS.append(
    Op("QuantConvolution", """const aclTensor* input, const aclTensor* weight, const aclTensor* bias,
       const aclTensor* scale, const aclTensor* offset, const aclIntArray* stride, const aclIntArray* padding,
       const aclIntArray* dilation, bool transposed, const aclIntArray* outputPadding, int64_t groups,
       int32_t offsetx, const char* roundMode, aclTensor* output""", "aclnn_quant_convolution.h", lib="nn",
       dtypes=("i8",), arg_dtypes={"bias": ("f32", "f16", "bf16"), "scale": ("f32",)},
       out_dtypes=("f16", "bf16")))
