/* The foreach family (ops-nn foreach/): one shared first phase and runner for every tensor-list op. Each op is a
 * table entry (tools/optable/nn_foreach.py) from which tools/gen_ops.py generates its descriptor (argument roles,
 * the A2 dtype combinations, the scalar rule) and its per-element kernels (the entry's formula over a, b, c and the
 * scalar s, once for the float class and once for the integer class); libsrc/ops/foreach.c checks, plans and runs. */
#ifndef PYACLNN_OPS_FOREACH_H
#define PYACLNN_OPS_FOREACH_H

#include "ops/ops.h"

/* y[k] = f(a[k], b[k], c[k], s) for k < n; b / c are NULL when the op has fewer lists */
typedef void (*fe_kern_f)(int64_t n, const float *a, const float *b, const float *c, float s, float *y);
typedef void (*fe_kern_i)(int64_t n, const int64_t *a, const int64_t *b, const int64_t *c, int64_t s, int64_t *y);

enum {
    FE_S_NONE,        /* no scalar */
    FE_S_TENSOR,      /* const aclTensor*: one value (element 0), read when the op runs */
    FE_S_TENSOR_PER,  /* const aclTensor*: element i for the i-th tensor of the lists */
    FE_S_SCALAR,      /* const aclScalar*: one value, its dtype checked against the combinations */
    FE_S_SCALAR_V2,   /* const aclScalar* of a V2 op: float32/bf16 lists take f32/f64, f16 f16/f64, ints i32/i64 */
    FE_S_LIST,        /* const aclScalarList*: value i for the i-th tensor */
};

enum {
    FE_MAP,           /* y_i = f(x1_i, x2_i, x3_i, s_i) element by element */
    FE_NORM,          /* y_i (one element) = the norm of x_i: L1 when int(s) == 1, else L2 (the A2 kernel) */
    FE_UNSCALE,       /* x_i *= invScale in place; foundInf = 1 when any element of any x_i is not finite */
};

enum {
    FE_SR_COMBOS,     /* the scalar's dtype is the combination's (the binaries of the generated interfaces) */
    FE_SR_V2,         /* the op_api rule: float32/bf16 lists f32/f64, float16 f16/f64, integer lists i32/i64 */
    FE_SR_NONE,       /* not checked (passed through to the kernel) */
};

typedef struct {
    aclDataType x, s, y;  /* the lists' dtype, the scalar's (ACL_DT_UNDEFINED: none or any), the outputs' */
} fe_combo;

typedef struct {
    int op;                      /* ACL_OP_<Name> */
    int nlists;                  /* input tensor lists (1..3) */
    int skind;                   /* FE_S_* */
    bool inplace;                /* the first list is written (no out list) */
    bool not_on_a2;              /* an ASCEND950-only interface: refused on A2 (161002) */
    int mode;                    /* FE_MAP, FE_NORM, FE_UNSCALE */
    bool strict_scalar;          /* an aclScalar's dtype must be one of the combinations' (else converted as is) */
    int srule;                   /* FE_SR_*: how a scalar's dtype is checked */
    bool scalar_first;           /* the scalar comes before the lists in the API (PowScalarAndTensor) */
    bool copy;                   /* no kernel: each tensor converted into its output (ForeachCopy) */
    bool int_as_float;           /* integer lists computed by the float kernel (exp, expm1 of int8/int16/uint8) */
    const char *lname[3], *sname, *oname;
    const fe_combo *combos;
    int ncombos;
    fe_kern_f kf;
    fe_kern_i ki;
} fe_desc;

/* The whole first phase after the generated prologue: NULL arguments (161001, API order), dtypes (the first
 * list's dtype in the combinations, every tensor of every list the same, the scalar's dtype), list lengths, ranks
 * (<= 8) and shapes (161002), private formats, then an empty list returns a no-op executor. */
aclnnStatus fe_workspace(const fe_desc *d, const aclTensorList *const *lists, const void *scalar,
                         const aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor);

/* aclnnForeachNonFiniteCheckAndUnscale: the list checks of fe_workspace (d->mode FE_UNSCALE) plus foundInf and
 * invScale: float32, one element each. */
aclnnStatus fe_unscale_workspace(const fe_desc *d, const aclTensorList *grads, const aclTensor *foundInf,
                                 const aclTensor *invScale, uint64_t *workspaceSize, aclOpExecutor **executor);

#endif
