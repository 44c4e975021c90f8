"""ops-nn index/: the last ops of the folder (libsrc/ops/index_scatter_not_a2.c, index_max_unpool.c,
index_scatter_update.c).

ScatterMax/Min/Mul/Div (index/scatter_<op>): no op_api source; the aclnn interface is generated from the OpDef,
which configures ascend950 only (op_host/scatter_<op>_def.cpp: AddConfig("ascend950")), and the docs say "Atlas A2:
not supported". On the A2 the generated entry point checks its required tensors (161001) and then finds no kernel
for the SoC (161002); nothing is written. The dtype lists are the OpDef's (for the message only).
InplaceQuantScatterV2: its op_api's first check (before the NULL checks) refuses every NPU arch but the regbase
ones (950 series): 161002 on the A2.
MaxUnpool2d/3d: index/scatter_elements/op_api/aclnn_max_unpool{2,3}d.cpp (one list for every SoC).
InplaceScatterUpdate: index/scatter/op_api/aclnn_scatter_update.cpp (the non-regbase list)."""
from . import Op

TF_SCATTER = ("f16", "f32", "i32", "i8", "u8")
UNPOOL = ("f32", "f16", "i8", "u8", "i16", "i32", "i64", "f64")

OPS = [
    Op(name, "aclTensor* varRef, const aclTensor* indices, const aclTensor* updates, bool useLocking",
       f"aclnn_scatter_{name[7:].lower()}.h", lib="nn", dtypes=TF_SCATTER, arg_dtypes={"indices": ("i32", "i64")},
       test=False, note="ascend950 only: 161002 on the A2")
    for name in ("ScatterMax", "ScatterMin", "ScatterMul", "ScatterDiv")
]

OPS += [
    Op("MaxUnpool2d", "const aclTensor* self, const aclTensor* indices, const aclIntArray* outputSize, "
       "aclTensor* out", "aclnn_max_unpool2d.h", lib="nn", dtypes=UNPOOL, arg_dtypes={"indices": ("i32", "i64")}),
    Op("MaxUnpool3d", "const aclTensor* self, const aclTensor* indices, const aclIntArray* outputSize, "
       "const aclIntArray* stride, const aclIntArray* padding, aclTensor* outRef", "aclnn_max_unpool3d.h", lib="nn",
       dtypes=UNPOOL, arg_dtypes={"indices": ("i32", "i64")}),
]

OPS += [
    Op("InplaceScatterUpdate", "aclTensor* data, const aclTensor* indices, const aclTensor* updates, int64_t axis",
       "aclnn_scatter_update.h", lib="nn", dtypes=("i8", "f16", "f32", "bf16", "i32"),
       arg_dtypes={"indices": ("i64", "i32")}),
]

OPS += [
    Op("InplaceQuantScatterV2", "aclTensor* selfRef, const aclTensor* indices, const aclTensor* updates, "
       "const aclTensor* quantScales, const aclTensor* quantZeroPoints, int64_t axis, int64_t quantAxis, "
       "int64_t reduction, const char* roundMode", "aclnn_quant_scatter_v2.h", lib="nn", dtypes=("i8",),
       arg_dtypes={"indices": ("i32", "i64"), "updates": ("bf16", "f16"), "quantScales": ("bf16", "f32"),
                   "quantZeroPoints": ("bf16", "i32")}, test=False, note="regbase (ascend950) only: 161002 on the A2"),
]

# index/top_k_top_p_sample: no op_api (generated first phase), OpDef configures ascend910b (libsrc/ops/
# index_top_k_top_p_sample.c)
OPS += [
    Op("TopKTopPSample", "const aclTensor* logits, const aclTensor* topK, const aclTensor* topP, const aclTensor* q, "
       "double eps, bool isNeedLogits, int64_t topKGuess, const aclTensor* logitsSelectIdx, "
       "const aclTensor* logitsTopKPSelect", "aclnn_top_k_top_p_sample.h", lib="nn", dtypes=("f16", "bf16"),
       out=("logitsSelectIdx", "logitsTopKPSelect"), test=False),
]
