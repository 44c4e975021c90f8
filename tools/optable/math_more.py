"""ops-math `math/` ops with their own kernels: segment sums (ExpSegsum and its backward), grouped bias gradients,
Sinkhorn, the QKV bias/rescale transform, LoRA accumulation and the precision comparison (libsrc/ops/<op>.c, one op
or forward/backward pair per file).

TransformBiasRescaleQkv and AddLora have no op_api source upstream: their aclnn first phase is the one CANN's op
build generates from the op definition (op_host/*_def.cpp), so their checks are nnopbase's (NULL tensors 161001, the
dtype/format combinations of the op definition 161002, all outputs empty -> nothing to launch, the op's tiling
561002), and their headers declare the outputs `const aclTensor*` as the generated headers do."""
from . import FLOAT, Op


def _outputs(op, *names):
    """Outputs a generated header declares `const aclTensor*`: they are written, so they are outputs to the table."""
    for a in op.args:
        if a.name in names:
            a.kind = "out"
    return op


OPS = [
    Op("ExpSegsum", "const aclTensor* self, aclTensor* out", "aclnn_segsum.h", dtypes=FLOAT),
    Op("ExpSegsumBackward", "const aclTensor* gradOutput, const aclTensor* gradSelf, aclTensor* gradInput",
       "aclnn_exp_segsum_backward.h", dtypes=FLOAT),
    Op("GroupedBiasAddGrad", "const aclTensor* gradY, const aclTensor* groupIdxOptional, aclTensor* out",
       "aclnn_grouped_bias_add_grad.h", dtypes=FLOAT, arg_dtypes={"groupIdxOptional": ("i32", "i64")}),
    Op("GroupedBiasAddGradV2", "const aclTensor* gradY, const aclTensor* groupIdxOptional, int64_t groupIdxType, "
       "aclTensor* out", "aclnn_grouped_bias_add_grad.h", dtypes=FLOAT,
       arg_dtypes={"groupIdxOptional": ("i32", "i64")}),
    Op("Sinkhorn", "const aclTensor* cost, const aclScalar* tol, aclTensor* p", "aclnn_sinkhorn.h", dtypes=FLOAT,
       optional=("tol",)),
    _outputs(Op("TransformBiasRescaleQkv", "const aclTensor *qkv, const aclTensor *qkvBias, int64_t numHeads, "
                "const aclTensor *qOut, const aclTensor *kOut, const aclTensor *vOut",
                "aclnn_transform_bias_rescale_qkv.h", dtypes=("bf16", "f16", "f32")), "qOut", "kOut", "vOut"),
    _outputs(Op("AddLora", "const aclTensor *y, const aclTensor *x, const aclTensor *weightB, const aclTensor *indices, "
                "const aclTensor *weightAOptional, int64_t layerIdx, double scale, int64_t yOffset, "
                "int64_t ySliceSize, const aclTensor *out", "aclnn_add_lora.h", dtypes=("f16",),
                arg_dtypes={"indices": ("i32",)}, optional=("weightAOptional",)), "out"),
    Op("PrecisionCompare", "const aclTensor* golden, const aclTensor* realdata, aclTensor* out",
       "aclnn_precision_compare.h", dtypes=FLOAT, out_dtypes=("u32",)),
]
