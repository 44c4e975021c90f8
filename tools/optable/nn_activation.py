"""ops-nn `activation/`: elementwise activations and their backward formulas (table entries; the engine
libsrc/ops/elementwise.c generates them), and the softmax family over one dim (libsrc/ops/softmax.c).

The dtype lists are the ASCEND910B (Atlas A2) lists of each op's op_api source, in its order."""
from . import Op, ew

NN = dict(lib="nn")
F3 = ("f32", "f16", "bf16")

OPS = [
    # relu/op_api/aclnn_relu.cpp: self in the list (bf16 on A2), out == self's dtype, rank <= 8, out's shape == self's
    ew("Relu", "const aclTensor* self, const aclTensor* out", "aclnn_relu.h", out="out", **NN,
       dtypes=("f32", "f16", "i8", "u8", "i32", "i64", "bf16"), out_rule="same",
       formula={"f": "isnan(a) ? a : (a > 0 ? a : 0)", "i": "a > 0 ? a : 0"}, torch="torch.relu(a)"),
    ew("InplaceRelu", "aclTensor* selfRef", "aclnn_relu.h", **NN,
       dtypes=("f32", "f16", "i8", "u8", "i32", "i64", "bf16"), out_rule="same",
       formula={"f": "isnan(a) ? a : (a > 0 ? a : 0)", "i": "a > 0 ? a : 0"}, torch="torch.relu_(a)"),
    # gelu/op_api/aclnn_gelu.cpp: dtype list, out == self's dtype, private formats refused, rank, same shape
    ew("Gelu", "const aclTensor* self, aclTensor* out", "aclnn_gelu.h", **NN, dtypes=F3, out_rule="same",
       formats=("!self", "!out"),
       formula="0.5 * a * (1 + erf(a * M_SQRT1_2))", torch="torch.nn.functional.gelu(a)",
       skip_special=("f32", "bf16")),  # PyTorch's vectorised f32/bf16 path gives gelu(+inf) = nan (scalar path: inf)
    # heaviside: input, values and out each in the list; input/values broadcast
    ew("Heaviside", "const aclTensor* input, const aclTensor* values, aclTensor* out", "aclnn_heaviside.h", **NN,
       dtypes=F3, out_rule="list", out_dtypes=F3,
       formula="a == 0 ? b : (a > 0 ? 1 : 0)", torch="torch.heaviside(a, b)"),
    # softmax family (libsrc/ops/softmax.c)
    Op("Softmax", "const aclTensor* self, int64_t dim, aclTensor* out", "aclnn_softmax.h", **NN,
       dtypes=("f32", "f16", "f64", "bf16")),
    Op("LogSoftmax", "const aclTensor* self, int64_t dim, aclTensor* out", "aclnn_logsoftmax.h", **NN,
       dtypes=("f32", "f16", "f64", "bf16")),
    Op("SoftmaxBackward", "const aclTensor* gradOutput, const aclTensor* output, int64_t dim, aclTensor* out",
       "aclnn_softmax_backward.h", **NN, dtypes=F3),
    Op("LogSoftmaxBackward", "const aclTensor* gradOutput, const aclTensor* output, int64_t dim, aclTensor* out",
       "aclnn_logsoftmax_backward.h", **NN, dtypes=F3),
]
