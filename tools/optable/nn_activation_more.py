"""ops-nn activation family, second batch (libsrc/ops/rrelu_with_noise.c, ...). The dtype lists are the
ASCEND910B lists of each op's op_api source (hicann/ops-nn activation/<op>/op_api/aclnn_*.cpp)."""
from . import Op

RRELU = ("f32", "f16", "bf16")

OPS = [
    Op("RReluWithNoise", "const aclTensor* self, const aclTensor* noise, const aclScalar* lower, "
       "const aclScalar* upper, bool training, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_rrelu_with_noise.h", lib="nn", dtypes=RRELU),
    Op("InplaceRReluWithNoise", "const aclTensor* self, const aclTensor* noise, const aclScalar* lower, "
       "const aclScalar* upper, bool training, int64_t seed, int64_t offset", "aclnn_rrelu_with_noise.h", lib="nn",
       dtypes=RRELU, inout="self"),
]

# ClippedSwiglu has no op_api source upstream: its first phase is the one CANN's op build generates from the op
# definition (activation/clipped_swiglu/op_host/clipped_swiglu_def.cpp): NULL tensors 161001, the definition's
# dtypes 161002, then the tiling's checks 561002. The generated header declares out `const aclTensor*`.
_cs = Op("ClippedSwiglu", "const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha, "
         "double limit, double bias, bool interleaved, const aclTensor *out", "aclnn_clipped_swiglu.h", lib="nn",
         dtypes=("f16", "f32", "bf16"), arg_dtypes={"groupIndexOptional": ("i64",)},
         optional=("groupIndexOptional",))
for _a in _cs.args:
    if _a.name == "out":
        _a.kind = "out"
OPS.append(_cs)

# SituGlu: no op_api source either (generated first phase); the doc lists its shape/dim checks as 161002.
_sg = Op("SituGlu", "const aclTensor *x, int64_t dim, double beta, double linearBeta, bool activateLeft, "
         "const aclTensor *out", "aclnn_situ_glu.h", lib="nn", dtypes=("f32", "f16", "bf16"))
for _a in _sg.args:
    if _a.name == "out":
        _a.kind = "out"
OPS.append(_sg)

_sgg = Op("SituGluGrad", "const aclTensor *gradY, const aclTensor *x, int64_t dim, double beta, double linearBeta, "
          "bool activateLeft, const aclTensor *out", "aclnn_situ_glu_grad.h", lib="nn", dtypes=("f32", "f16", "bf16"))
for _a in _sgg.args:
    if _a.name == "out":
        _a.kind = "out"
OPS.append(_sgg)

_csg = Op("ClippedSwigluGrad", "const aclTensor *gradY, const aclTensor *x, const aclTensor *groupIndexOptional, "
          "int64_t dim, double alpha, double limit, double bias, bool interleaved, const aclTensor *gradXOut",
          "aclnn_clipped_swiglu_grad.h", lib="nn", dtypes=("f16", "f32", "bf16"),
          arg_dtypes={"groupIndexOptional": ("i64",)}, optional=("groupIndexOptional",))
for _a in _csg.args:
    if _a.name == "gradXOut":
        _a.kind = "out"
OPS.append(_csg)
