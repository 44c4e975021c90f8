"""ops-math ops with short formulas over dense helpers (libsrc/ops/misc_ops.c)."""
from . import Op

OPS = [Op(n, a, h) for n, a, h in (
    ("Cdist", "const aclTensor* x1, const aclTensor* x2, float p, int64_t compute_mode, aclTensor* out",
     "aclnn_cdist.h"),
    ("KlDiv", "const aclTensor* self, const aclTensor* target, int64_t reduction, bool logTarget, aclTensor* out",
     "aclnn_kl_div.h"),
    ("BatchNormStats", "const aclTensor* input, double eps, aclTensor* mean, aclTensor* invstd",
     "aclnn_batch_norm_stats.h"),
    ("AffineGrid", "const aclTensor* theta, const aclIntArray* size, bool alignCorners, aclTensor* out",
     "aclnn_affine_grid.h"),
    ("SignBitsPack", "const aclTensor* self, int64_t size, aclTensor* out", "aclnn_sign_bits_pack.h"),
    ("SignBitsUnpack", "const aclTensor* self, int64_t size, aclDataType dtype, aclTensor* out",
     "aclnn_sign_bits_unpack.h"),
    ("AmpUpdateScale", "const aclTensor* currentScale, const aclTensor* growthTracker, const aclTensor* foundInf, "
     "double growthFactor, double backoffFactor, int64_t growthInterval, const aclTensor* updatedScale, "
     "const aclTensor* updatedGrowthTracker", "aclnn_amp_update_scale.h"),
    ("ConfusionTranspose", "const aclTensor* x, const aclIntArray* perm, const aclIntArray* shape, "
     "bool transpose_first, aclTensor* out", "aclnn_confusion_transpose.h"),
    ("Scale", "const aclTensor* x, const aclTensor* scale, const aclTensor* bias, int64_t axis, int64_t numAxes, "
     "bool scaleFromBlob, aclTensor* y", "aclnn_scale.h"),
    ("Im2col", "const aclTensor* self, const aclIntArray* kernelSize, const aclIntArray* dilation, "
     "const aclIntArray* padding, const aclIntArray* stride, const aclTensor* out", "aclnn_im2col.h"),
)]
