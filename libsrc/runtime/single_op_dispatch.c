/* The operator types aclopCompileAndExecute runs: torch_npu sends an operator type there when the aclnn function
 * of a torch op is missing from libopapi.so, or for the helpers of its own fallbacks. Each entry checks the number
 * of tensors, makes contiguous aclTensors of the descriptions and data buffers, and runs the aclnn function of the
 * same computation on the call's stream (both phases, with a workspace when it needs one). Types not listed are
 * refused by aclopCompileAndExecute with ACL_ERROR_OP_NOT_FOUND naming them. */
#include <string.h>

#include "aclnn/acl_meta.h"
#include "aclnnop/aclnn_cast.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_ceil.h"
#include "aclnnop/aclnn_copy.h"
#include "aclnnop/aclnn_cos.h"
#include "aclnnop/aclnn_div.h"
#include "aclnnop/aclnn_eq_tensor.h"
#include "aclnnop/aclnn_erf.h"
#include "aclnnop/aclnn_exp.h"
#include "aclnnop/aclnn_floor.h"
#include "aclnnop/aclnn_ge_tensor.h"
#include "aclnnop/aclnn_gt_tensor.h"
#include "aclnnop/aclnn_le_tensor.h"
#include "aclnnop/aclnn_log.h"
#include "aclnnop/aclnn_logical_and.h"
#include "aclnnop/aclnn_logical_not.h"
#include "aclnnop/aclnn_logical_or.h"
#include "aclnnop/aclnn_lt_tensor.h"
#include "aclnnop/aclnn_maximum.h"
#include "aclnnop/aclnn_minimum.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_ne_tensor.h"
#include "aclnnop/aclnn_neg.h"
#include "aclnnop/aclnn_ones.h"
#include "aclnnop/aclnn_pow_tensor_tensor.h"
#include "aclnnop/aclnn_reciprocal.h"
#include "aclnnop/aclnn_relu.h"
#include "aclnnop/aclnn_round.h"
#include "aclnnop/aclnn_rsqrt.h"
#include "aclnnop/aclnn_sigmoid.h"
#include "aclnnop/aclnn_sign.h"
#include "aclnnop/aclnn_sin.h"
#include "aclnnop/aclnn_sqrt.h"
#include "aclnnop/aclnn_sub.h"
#include "aclnnop/aclnn_tanh.h"
#include "aclnnop/aclnn_zero.h"
#include "aclnnop/aclnn_fill_tensor.h"
#include "aclnnop/aclnn_gather_v2.h"
#include "common/status.h"
#include "runtime/runtime.h"
#include "runtime/single_op.h"

#define MAX_T 8

/* A contiguous ND tensor over the data buffer (or the description's constant data). An input in host memory (torch_npu
 * places scalars and shape operands there) is copied to a device buffer first, *staged, freed after the call. */
static aclError make_tensor(const acl_single_op_call *c, const char *side, int k, const aclTensorDesc *d,
                            const aclDataBuffer *b, aclTensor **out, void **staged) {
    *out = NULL;
    if (!d) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s tensor %d has no description", c->type, side, k);
    size_t nd = aclGetTensorDescNumDims(d);
    if (nd == ACL_UNKNOWN_RANK || nd > 8)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s tensor %d has an unknown or too large rank", c->type, side, k);
    int64_t dims[8], strides[8], numel = 1;
    for (size_t j = 0; j < nd; j++) {
        if (aclGetTensorDescDimV2(d, j, &dims[j]) != ACL_SUCCESS || dims[j] < 0)
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: %s tensor %d has a dynamic dimension %zu", c->type, side,
                              k, j);
        numel *= dims[j];
    }
    for (size_t j = nd; j-- > 0;) strides[j] = j + 1 < nd ? strides[j + 1] * (dims[j + 1] ? dims[j + 1] : 1) : 1;
    aclDataType dt = aclGetTensorDescType(d);
    void *data = b ? aclGetDataBufferAddr(b) : aclGetTensorDescAddress(d);
    size_t have = b ? aclGetDataBufferSizeV2(b) : 0, es = aclDataTypeSize(dt);
    if (numel && (!data || (b && have < (size_t)numel * es)))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: the data buffer of %s tensor %d holds %zu bytes, fewer than "
                          "its %lld elements need", c->type, side, k, have, (long long)numel);
    if (staged && numel && !acl_mem_contains(data, (uint64_t)numel * es)) {
        size_t bytes = (size_t)numel * es;
        if (aclrtMalloc(staged, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS)
            return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of device memory staging input %d", c->type, k);
        if (aclrtMemcpy(*staged, bytes, data, bytes, ACL_MEMCPY_HOST_TO_DEVICE) != ACL_SUCCESS)
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d could not be read", c->type, k);
        data = *staged;
    }
    *out = aclCreateTensor(dims, (uint64_t)nd, dt, strides, 0, ACL_FORMAT_ND, dims, (uint64_t)nd, data);
    if (!*out) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: creating an aclTensor failed", c->type);
    return ACL_SUCCESS;
}

typedef struct { aclTensor *in[MAX_T], *out[MAX_T]; void *staged[MAX_T]; } tensors;

static void free_tensors_on(tensors *t, aclrtStream stream) {
    int any = 0;
    for (int k = 0; k < MAX_T; k++) any |= t->staged[k] != NULL;
    if (any) aclrtSynchronizeStream(stream); /* the staged copies are read by the call's task */
    for (int k = 0; k < MAX_T; k++) {
        if (t->staged[k]) aclrtFree(t->staged[k]);
        if (t->in[k]) aclDestroyTensor(t->in[k]);
        if (t->out[k]) aclDestroyTensor(t->out[k]);
    }
}

/* The call's tensors, after checking there are nin inputs and nout outputs. */
static aclError get_tensors(const acl_single_op_call *c, int nin, int nout, tensors *t) {
    memset(t, 0, sizeof *t);
    if (c->nin != nin || c->nout != nout)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s takes %d inputs and %d outputs, not %d and %d", c->type, nin,
                          nout, c->nin, c->nout);
    for (int k = 0; k < nin; k++) {
        aclError rc = make_tensor(c, "input", k, c->in_desc[k], c->in[k], &t->in[k], &t->staged[k]);
        if (rc) { free_tensors_on(t, c->stream); return rc; }
    }
    for (int k = 0; k < nout; k++) {
        aclError rc = make_tensor(c, "output", k, c->out_desc[k], c->out[k], &t->out[k], NULL);
        if (rc) { free_tensors_on(t, c->stream); return rc; }
    }
    return ACL_SUCCESS;
}

typedef aclnnStatus (*phase2_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);

static aclError run_phase2(const acl_single_op_call *c, const char *name, phase2_fn fn, aclnnStatus st, uint64_t ws,
                           aclOpExecutor *ex, aclrtStream stream) {
    if (st != 0) return ACL_REPORT((int)st, "operator type %s: %s refused the call", c->type, name);
    void *w = NULL;
    if (ws && aclrtMalloc(&w, ws, ACL_MEM_MALLOC_HUGE_FIRST) != ACL_SUCCESS) return ACL_ERROR_BAD_ALLOC;
    st = fn(w, ws, ex, stream);
    if (w) {
        aclrtSynchronizeStream(stream); /* the workspace is the task's until it ends */
        aclrtFree(w);
    }
    return st ? ACL_REPORT((int)st, "operator type %s: %s failed", c->type, name) : ACL_SUCCESS;
}

#define free_tensors(t) free_tensors_on((t), c->stream)

/* An integer operand (int32 or int64; a shape, an axis) as int64 values: at most max of them. */
static aclError read_ints(const acl_single_op_call *c, int k, int64_t *v, int max, int *n) {
    const aclTensorDesc *d = c->in_desc[k];
    aclDataType dt = aclGetTensorDescType(d);
    if (dt != ACL_INT32 && dt != ACL_INT64)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d must be int32 or int64", c->type, k);
    size_t es = dt == ACL_INT32 ? 4 : 8, nd = aclGetTensorDescNumDims(d);
    int64_t numel = 1;
    for (size_t j = 0; j < nd && nd != ACL_UNKNOWN_RANK; j++) {
        int64_t dim = 0;
        aclGetTensorDescDimV2(d, j, &dim);
        numel *= dim;
    }
    if (numel < 0 || numel > max)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d has %lld values, at most %d expected", c->type, k,
                          (long long)numel, max);
    const void *data = c->in[k] ? aclGetDataBufferAddr(c->in[k]) : aclGetTensorDescAddress(d);
    if (numel && !data) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d has no data", c->type, k);
    char raw[8 * 16];
    if (numel && acl_mem_contains(data, (uint64_t)numel * es)) {
        aclrtSynchronizeStream(c->stream);
        if (aclrtMemcpy(raw, sizeof raw, data, (size_t)numel * es, ACL_MEMCPY_DEVICE_TO_HOST) != ACL_SUCCESS)
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "%s: input %d could not be read", c->type, k);
    } else if (numel) {
        memcpy(raw, data, (size_t)numel * es);
    }
    for (int64_t j = 0; j < numel; j++) {
        if (es == 4) { int32_t x; memcpy(&x, raw + 4 * j, 4); v[j] = x; }
        else memcpy(&v[j], raw + 8 * j, 8);
    }
    *n = (int)numel;
    return ACL_SUCCESS;
}

#define RUN(NAME, ...)                                                                \
    do {                                                                              \
        uint64_t ws_ = 0;                                                             \
        aclOpExecutor *ex_ = NULL;                                                    \
        aclnnStatus st_ = NAME##GetWorkspaceSize(__VA_ARGS__, &ws_, &ex_);           \
        rc = run_phase2(c, #NAME, NAME, st_, ws_, ex_, c->stream);                              \
    } while (0)

/* Fill(dims, value) -> y: y (whose shape the output description gives; dims says the same) filled with value. */
static aclError op_fill(const acl_single_op_call *c) {
    tensors t;
    aclError rc = get_tensors(c, 2, 1, &t);
    if (rc) return rc;
    RUN(aclnnInplaceFillTensor, t.out[0], t.in[1]);
    free_tensors(&t);
    return rc;
}

/* Cast(x, dst_type) -> y */
static aclError op_cast(const acl_single_op_call *c) {
    tensors t;
    aclError rc = get_tensors(c, 1, 1, &t);
    if (rc) return rc;
    RUN(aclnnCast, t.in[0], aclGetTensorDescType(c->out_desc[0]), t.out[0]);
    free_tensors(&t);
    return rc;
}

/* GatherV2(x, indices, axis; batch_dims) -> y: y = x taken at indices along axis. batch_dims other than 0 is
 * run only when it does not change the result's shape (an index tensor without batch dimensions). */
static aclError op_gather_v2(const acl_single_op_call *c) {
    if (c->nin != 3) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "GatherV2 takes 3 inputs, not %d", c->nin);
    int64_t axis;
    int n;
    aclError rc = read_ints(c, 2, &axis, 1, &n);
    if (rc) return rc;
    if (n != 1) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "GatherV2: axis must hold one value");
    int64_t bd = 0;
    acl_op_attr_int(c->attr, "batch_dims", &bd);
    size_t xr = aclGetTensorDescNumDims(c->in_desc[0]), ir = aclGetTensorDescNumDims(c->in_desc[1]);
    if (axis < 0) axis += (int64_t)xr;
    if (bd != 0 && ir > 1)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "GatherV2: batch_dims %lld with a %zu-d index is not run by the "
                          "emulator", (long long)bd, ir);
    tensors t;
    rc = get_tensors(c, 3, 1, &t);
    if (rc) return rc;
    RUN(aclnnGatherV2, t.in[0], axis, t.in[1], t.out[0]);
    free_tensors(&t);
    return rc;
}

/* Element-wise types: one aclnn function of (self[, other], out) each; broadcasting and type promotion are the aclnn
 * function's. */
typedef aclnnStatus (*ws_unary)(const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef aclnnStatus (*ws_binary)(const aclTensor *, const aclTensor *, aclTensor *, uint64_t *, aclOpExecutor **);
typedef struct { const char *type, *aclnn; void *ws; phase2_fn run; int arity; } elementwise;

#define UN(T, F) {T, "aclnn" #F, (void *)aclnn##F##GetWorkspaceSize, aclnn##F, 1}
#define BI(T, F) {T, "aclnn" #F, (void *)aclnn##F##GetWorkspaceSize, aclnn##F, 2}
static const elementwise g_elementwise[] = {
    UN("Neg", Neg),
    UN("Abs", Abs),
    UN("Exp", Exp),
    UN("Log", Log),
    UN("Sqrt", Sqrt),
    UN("Rsqrt", Rsqrt),
    UN("Relu", Relu),
    UN("Sigmoid", Sigmoid),
    UN("Tanh", Tanh),
    UN("Floor", Floor),
    UN("Ceil", Ceil),
    UN("Sin", Sin),
    UN("Cos", Cos),
    UN("Reciprocal", Reciprocal),
    UN("Erf", Erf),
    UN("Sign", Sign),
    UN("Round", Round),
    UN("LogicalNot", LogicalNot),
    BI("Less", LtTensor),
    BI("LessEqual", LeTensor),
    BI("Greater", GtTensor),
    BI("GreaterEqual", GeTensor),
    BI("Equal", EqTensor),
    BI("NotEqual", NeTensor),
    BI("Mul", Mul),
    BI("RealDiv", Div),
    BI("Div", Div),
    BI("Maximum", Maximum),
    BI("Minimum", Minimum),
    BI("Pow", PowTensorTensor),
    BI("LogicalAnd", LogicalAnd),
    BI("LogicalOr", LogicalOr),
};

static aclError op_elementwise(const acl_single_op_call *c) {
    const elementwise *e = NULL;
    for (size_t k = 0; k < sizeof g_elementwise / sizeof *g_elementwise && !e; k++)
        if (strcmp(g_elementwise[k].type, c->type) == 0) e = &g_elementwise[k];
    tensors t;
    aclError rc = get_tensors(c, e->arity, 1, &t);
    if (rc) return rc;
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus st = e->arity == 1 ? ((ws_unary)e->ws)(t.in[0], t.out[0], &ws, &ex)
                                   : ((ws_binary)e->ws)(t.in[0], t.in[1], t.out[0], &ws, &ex);
    rc = run_phase2(c, e->aclnn, e->run, st, ws, ex, c->stream);
    free_tensors(&t);
    return rc;
}

/* Add / AddV2 / Sub: alpha 1. */
static aclError op_add_sub(const acl_single_op_call *c) {
    tensors t;
    aclError rc = get_tensors(c, 2, 1, &t);
    if (rc) return rc;
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    if (!alpha) {
        free_tensors(&t);
        return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "%s: out of memory", c->type);
    }
    if (strcmp(c->type, "Sub") == 0) RUN(aclnnSub, t.in[0], t.in[1], alpha, t.out[0]);
    else RUN(aclnnAdd, t.in[0], t.in[1], alpha, t.out[0]);
    aclDestroyScalar(alpha);
    free_tensors(&t);
    return rc;
}

/* ZerosLike / OnesLike(x) -> y; Identity(x) -> y (a copy). */
static aclError op_like(const acl_single_op_call *c) {
    tensors t;
    aclError rc = get_tensors(c, 1, 1, &t);
    if (rc) return rc;
    if (strcmp(c->type, "ZerosLike") == 0) RUN(aclnnInplaceZero, t.out[0]);
    else if (strcmp(c->type, "OnesLike") == 0) RUN(aclnnInplaceOne, t.out[0]);
    else RUN(aclnnInplaceCopy, t.out[0], t.in[0]);
    free_tensors(&t);
    return rc;
}

static const acl_single_op g_ops[] = {
    {"Abs", op_elementwise},
    {"Add", op_add_sub},
    {"AddV2", op_add_sub},
    {"Cast", op_cast},
    {"Ceil", op_elementwise},
    {"Cos", op_elementwise},
    {"Div", op_elementwise},
    {"DynamicGRUV2", acl_single_op_dynamic_gru_v2},
    {"DynamicGRUV2Grad", acl_single_op_dynamic_gru_v2_grad},
    {"DynamicRNN", acl_single_op_dynamic_rnn},
    {"DynamicRNNGrad", acl_single_op_dynamic_rnn_grad},
    {"DynamicRNNV2", acl_single_op_dynamic_rnn_v2},
    {"Equal", op_elementwise},
    {"Erf", op_elementwise},
    {"Exp", op_elementwise},
    {"Fill", op_fill},
    {"Floor", op_elementwise},
    {"GatherV2", op_gather_v2},
    {"Greater", op_elementwise},
    {"GreaterEqual", op_elementwise},
    {"Identity", op_like},
    {"Less", op_elementwise},
    {"LessEqual", op_elementwise},
    {"Log", op_elementwise},
    {"LogicalAnd", op_elementwise},
    {"LogicalNot", op_elementwise},
    {"LogicalOr", op_elementwise},
    {"Maximum", op_elementwise},
    {"Minimum", op_elementwise},
    {"Mul", op_elementwise},
    {"Neg", op_elementwise},
    {"NotEqual", op_elementwise},
    {"OnesLike", op_like},
    {"Pow", op_elementwise},
    {"RealDiv", op_elementwise},
    {"Reciprocal", op_elementwise},
    {"Relu", op_elementwise},
    {"Round", op_elementwise},
    {"Rsqrt", op_elementwise},
    {"Sigmoid", op_elementwise},
    {"Sign", op_elementwise},
    {"Sin", op_elementwise},
    {"Sqrt", op_elementwise},
    {"Sub", op_add_sub},
    {"Tanh", op_elementwise},
    {"ZerosLike", op_like},
};

const acl_single_op *acl_single_op_find(const char *type) {
    for (size_t k = 0; k < sizeof g_ops / sizeof *g_ops; k++)
        if (strcmp(g_ops[k].type, type) == 0) return &g_ops[k];
    return NULL;
}
