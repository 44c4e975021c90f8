"""ops-math random/: Bernoulli, Normal, Uniform, Multinomial (libsrc/ops/random.c). Values come from the
counter-based Philox4x32-10 generator (libsrc/common/philox.h), a pure function of (seed, offset, element index).
The dtype lists are the ASCEND910B lists of each op's op_api source (hicann/ops-math random/<op>/op_api/)."""
from . import Op

BERN = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16")
BERN_P = ("f32", "f16", "f64", "bf16")
NORMAL = ("f16", "f32", "f64", "i16", "i32", "i64", "i8", "u8", "bool", "bf16")
UNIFORM = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bf16")
MULTI = ("f32", "f16", "f64", "bf16")
NORMAL_OUT = ("bf16", "f16", "f32", "f64")

OPS = [
    Op("Bernoulli", "const aclTensor* self, const aclScalar* prob, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_bernoulli.h", dtypes=BERN, arg_dtypes={"prob": BERN_P}),
    Op("BernoulliTensor", "const aclTensor* self, const aclTensor* prob, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_bernoulli.h", dtypes=BERN, arg_dtypes={"prob": BERN_P}),
    Op("InplaceBernoulli", "const aclTensor* selfRef, const aclScalar* prob, int64_t seed, int64_t offset",
       "aclnn_bernoulli.h", dtypes=BERN, arg_dtypes={"prob": BERN_P}, inout="selfRef"),
    Op("InplaceBernoulliTensor", "const aclTensor* selfRef, const aclTensor* prob, int64_t seed, int64_t offset",
       "aclnn_bernoulli.h", dtypes=BERN, arg_dtypes={"prob": BERN_P}, inout="selfRef"),
    Op("InplaceNormal", "const aclTensor* selfRef, float mean, float std, int64_t seed, int64_t offset",
       "aclnn_normal.h", dtypes=NORMAL, inout="selfRef"),
    Op("InplaceNormalTensor", "const aclTensor* selfRef, float mean, float std, const aclTensor* seedTensor, "
       "const aclTensor* offsetTensor, int64_t offset", "aclnn_normal.h", dtypes=NORMAL, inout="selfRef"),
    Op("InplaceUniform", "const aclTensor* selfRef, double from, double to, uint64_t seed, uint64_t offset",
       "aclnn_uniform.h", dtypes=UNIFORM, inout="selfRef"),
    Op("InplaceUniformTensor", "const aclTensor* selfRef, double from, double to, const aclTensor* seedTensor, "
       "const aclTensor* offsetTensor, uint64_t offset", "aclnn_uniform.h", dtypes=UNIFORM, inout="selfRef"),
    Op("Multinomial", "const aclTensor* self, int64_t numsamples, bool replacement, int64_t seed, int64_t offset, "
       "aclTensor* out", "aclnn_multinomial.h", dtypes=MULTI, out_dtypes=("i64",)),
    Op("MultinomialTensor", "const aclTensor* self, int64_t numsamples, bool replacement, const aclTensor* seedTensor, "
       "const aclTensor* offsetTensor, int64_t offset, aclTensor* out", "aclnn_multinomial.h", dtypes=MULTI,
       out_dtypes=("i64",)),
    Op("NormalTensorTensor", "const aclTensor* mean, const aclTensor* std, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_normal_out.h", dtypes=NORMAL_OUT),
    Op("NormalTensorFloat", "const aclTensor* mean, float std, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_normal_out.h", dtypes=NORMAL_OUT),
    Op("NormalFloatTensor", "float mean, const aclTensor* std, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_normal_out.h", dtypes=NORMAL_OUT),
    Op("NormalFloatFloat", "float mean, float std, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_normal_out.h", dtypes=NORMAL_OUT),
]

RANDOM = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "bool", "f64", "bf16", "c64", "c128")
RANDPERM = ("f32", "f16", "i32", "f64", "i64", "i8", "u8", "i16", "bf16")
DROPOUT = ("f32", "f16", "bf16")

OPS += [
    Op("InplaceRandom", "const aclTensor* selfRef, int64_t from, int64_t to, int64_t seed, int64_t offset",
       "aclnn_random.h", dtypes=RANDOM, inout="selfRef"),
    Op("InplaceRandomTensor", "const aclTensor* selfRef, int64_t from, int64_t to, const aclTensor* seedTensor, "
       "const aclTensor* offsetTensor, int64_t offset", "aclnn_random.h", dtypes=RANDOM, inout="selfRef"),
    Op("InplaceRandomWithoutFromTo", "const aclTensor* selfRef, int64_t seed, int64_t offset", "aclnn_random.h",
       dtypes=RANDOM, inout="selfRef"),
    Op("InplaceRandomWithoutFromToTensor", "const aclTensor* selfRef, const aclTensor* seedTensor, "
       "const aclTensor* offsetTensor, int64_t offset", "aclnn_random.h", dtypes=RANDOM, inout="selfRef"),
    Op("Randperm", "int64_t n, int64_t seed, int64_t offset, aclTensor* out", "aclnn_randperm.h", dtypes=RANDPERM),
    Op("SimThreadExponential", "aclTensor* selfRef, int64_t count, double lambda, int64_t seed, int64_t offset",
       "aclnn_sim_thread_exponential.h", dtypes=("bf16", "f16", "f32"), inplace=True),
    # dropout family (libsrc/ops/dropout.c): bit masks, bit i of byte i / 8 = keep element i
    Op("DropoutGenMask", "const aclIntArray* shape, double prob, int64_t seed, int64_t offset, aclTensor* out",
       "aclnn_dropout_gen_mask.h", dtypes=("u8",)),
    Op("DropoutGenMaskV2", "const aclIntArray* shape, double prob, int64_t seed, int64_t offset, "
       "aclDataType probDataType, aclTensor* out", "aclnn_dropout_gen_mask.h", dtypes=("u8",)),
    Op("DropoutGenMaskV2Tensor", "const aclIntArray* shape, double prob, const aclTensor* seedTensor, "
       "const aclTensor* offsetTensor, int64_t offset, aclDataType probDataType, aclTensor* out",
       "aclnn_dropout_gen_mask.h", dtypes=("u8",)),
    Op("DropoutDoMask", "const aclTensor* self, const aclTensor* mask, double prob, aclTensor* out",
       "aclnn_dropout_do_mask.h", dtypes=DROPOUT),
    Op("DropoutBackward", "const aclTensor* gradOutput, const aclTensor* mask, double scale, aclTensor* out",
       "aclnn_dropout_backward.h", dtypes=DROPOUT),
    Op("Dropout", "const aclTensor* input, double p, bool train, int64_t seed, int64_t offset, aclTensor* out, "
       "aclTensor* maskOut", "aclnn_dropout.h", dtypes=DROPOUT),
    Op("DropoutV3", "const aclTensor* input, const aclTensor* optionalNoiseShape, double p, int64_t seed, "
       "int64_t offset, aclTensor* out, aclTensor* maskOut", "aclnn_dropout_v3.h", dtypes=DROPOUT),
    # the A2 op_api refuses every call (the kernel exists for the 950 series only)
    Op("DropoutV3Grad", "const aclTensor* gradY, const aclTensor* mask, double scale, aclTensor* gradX",
       "aclnn_dropout_v3_grad.h", dtypes=DROPOUT),
]
