"""ops-math ops with short formulas: distances (libsrc/ops/distance.c) and the rest (libsrc/ops/misc_ops.c).
Dtype lists: the ASCEND910B lists of each op_api source (AmpUpdateScale: its op definition, it has no op_api)."""
from . import FLOAT, Op

OPS = [
    Op("Cdist", "const aclTensor* x1, const aclTensor* x2, float p, int64_t compute_mode, aclTensor* out",
       "aclnn_cdist.h", dtypes=FLOAT),
    Op("CdistBackward", "const aclTensor* grad, const aclTensor* x1, const aclTensor* x2, const aclTensor* cdist, "
       "float p, aclTensor* out", "aclnn_cdist_backward.h", dtypes=FLOAT),
    Op("Pdist", "const aclTensor* self, float p, aclTensor* out", "aclnn_pdist.h", dtypes=("f16", "f32")),
    Op("PdistForward", "const aclTensor* self, const aclScalar* pScalar, aclTensor* out", "aclnn_pdist_forward.h",
       dtypes=("f32", "f16")),
    Op("KlDiv", "const aclTensor* self, const aclTensor* target, int64_t reduction, bool logTarget, aclTensor* out",
       "aclnn_kl_div.h", dtypes=FLOAT),
    Op("BatchNormStats", "const aclTensor* input, double eps, aclTensor* mean, aclTensor* invstd",
       "aclnn_batch_norm_stats.h", dtypes=("f32", "f16"), arg_dtypes={"mean": ("f32",), "invstd": ("f32",)}),
    Op("AffineGrid", "const aclTensor* theta, const aclIntArray* size, bool alignCorners, aclTensor* out",
       "aclnn_affine_grid.h", dtypes=FLOAT),
    Op("SignBitsPack", "const aclTensor* self, int64_t size, aclTensor* out", "aclnn_sign_bits_pack.h",
       dtypes=("f32", "f16"), out_dtypes=("u8",)),
    Op("SignBitsUnpack", "const aclTensor* self, int64_t size, aclDataType dtype, aclTensor* out",
       "aclnn_sign_bits_unpack.h", dtypes=("u8",), out_dtypes=("f32", "f16")),
    Op("AmpUpdateScale", "const aclTensor* currentScale, const aclTensor* growthTracker, const aclTensor* foundInf, "
       "double growthFactor, double backoffFactor, int64_t growthInterval, const aclTensor* updatedScale, "
       "const aclTensor* updatedGrowthTracker", "aclnn_amp_update_scale.h", dtypes=FLOAT,
       arg_dtypes={"growthTracker": ("i32",), "updatedGrowthTracker": ("i32",)}),
    Op("ConfusionTranspose", "const aclTensor* x, const aclIntArray* perm, const aclIntArray* shape, "
       "bool transpose_first, aclTensor* out", "aclnn_confusion_transpose.h",
       dtypes=("i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f16", "f32", "bf16")),
    Op("Scale", "const aclTensor* x, const aclTensor* scale, const aclTensor* bias, int64_t axis, int64_t numAxes, "
       "bool scaleFromBlob, aclTensor* y", "aclnn_scale.h", dtypes=FLOAT),
    Op("Im2col", "const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* dilation, "
       "const aclIntArray* padding, const aclIntArray* stride, const aclTensor* out", "aclnn_im2col.h",
       dtypes=FLOAT),
]
