/* The elementwise engine: the validation prologue, the plan and the N-d strided run shared by every table op of
 * family "elementwise" (tools/optable). tools/gen_ops.py writes, per op, a descriptor (argument kinds in API
 * order, dtype support lists, promotion/compute/out rules, format rules, the order of the check stages) and one
 * contiguous inner loop per compute class; everything else lives here.
 *
 * Validation runs in stages whose order the descriptor gives (each op_api source orders them its own way):
 *   NULL checks (always first), then any order of
 *   'd' dtype support lists (tensor inputs in API order, aclScalar lists, tensors that must match the first input's
 *       dtype, out's own list), 'p' promotion (the promoted dtype, its allowed list, scalar casts, the result ->
 *       out rule), 'f' storage-format rules, 's' shapes (rank, broadcast, out's shape), 'h' the op's hook,
 *   'e' the early empty return (any tensor input empty -> a no-op executor, before the stages after it);
 *   finally an empty out gives the no-op executor.
 *
 * The run walks the broadcast output in chunks of the innermost (coalesced) dimension. Each chunk's operands are
 * used in place when they already have the compute type and unit stride, otherwise converted into a per-thread
 * buffer (broadcast, strided, other dtypes); the result goes straight to `out` or through a buffer and one
 * conversion. Chunks are owned by one thread each, so the bytes never depend on the thread count. */
#ifndef PYACLNN_OPS_ELEMENTWISE_H
#define PYACLNN_OPS_ELEMENTWISE_H

#include <tgmath.h> /* formulas call exp(a), sin(a), ... on float, double and complex alike */
#include <stdint.h>

#include "common/dtype_rules.h"
#include "kernels/vmath.h"
#include "meta/meta.h"
#include "ops/ops.h"

/* compute classes: the type an inner loop reads and writes */
enum { EW_F32, EW_F64, EW_I64, EW_C64, EW_C128, EW_NCLASS };

#define EW_MAX_SCALARS 4
#define EW_MAX_ARGS 8
#define EW_MAX_FMT 8

/* The op's scalar-like arguments in API order: aclScalar* and plain attributes (int64_t, double, float, bool).
 * The generated loops see them as s0, s1, ... in the compute type; `has[k]` is 0 for an optional aclScalar passed
 * as NULL (tools/optable `optional=`), so a formula can test it with S_HAS(k). */
typedef struct {
    double d[EW_MAX_SCALARS];   /* real part */
    double di[EW_MAX_SCALARS];  /* imaginary part */
    int64_t i[EW_MAX_SCALARS];  /* integer value */
    unsigned char has[EW_MAX_SCALARS];
    aclDataType in_dt[EW_MAX_ARGS]; /* the tensor inputs' own dtypes (IN_DT(k)), e.g. bool vs integer */
    aclDataType pdt;                /* the promoted dtype (P_DT): shifts at its width, bool vs integer */
    aclDataType odt;                /* out's dtype (OUT_DT) */
} ew_scalars;
#define S_HAS(k) (s->has[k])
#define EW_UNUSED __attribute__((unused)) /* a formula need not use every operand */
/* a complex number from its parts (no arithmetic: Inf and NaN parts stay where they are) */
#define EW_CMPLX(x, y) _Generic((x), float: CMPLXF((x), (y)), default: CMPLX((x), (y)))
#define IN_DT(k) (s->in_dt[k])
#define P_DT (s->pdt)
#define OUT_DT (s->odt)

/* n elements: in[k] are contiguous arrays of the compute type, out is the compute type (or uint8 0/1 for
 * result "bool"). out may be the same pointer as an input (in-place ops). */
typedef void (*ew_kernel)(int64_t n, char *const *in, char *out, const ew_scalars *s);

/* The fp32 kernel of a `vec` table op (tools/gen_ops.py) exists once per SIMD level (portable, AVX2, AVX-512): the
 * same loop body (fp32 formulas over kernels/vmath.h, no FMA) compiled for each, so the level changes the speed,
 * never the bytes. The engine runs the variant of acl_simd_level(). The generated files holding them build with
 * -fno-trapping-math (Makefile), which lets GCC turn the formulas' selects into vector blends (no value changes). */
#define EW_ALWAYS_INLINE __attribute__((always_inline))
#if defined(__x86_64__) && defined(__GNUC__)
#define EW_LEVEL_VARIANTS(name, body)                                                                               \
    __attribute__((target("avx2"))) static void name##_avx2(int64_t n, char *const *in, char *out,                  \
                                                            const ew_scalars *s) { body(n, in, out, s); }           \
    __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512"))) static void               \
    name##_avx512(int64_t n, char *const *in, char *out, const ew_scalars *s) { body(n, in, out, s); }
#define EW_KV(name) {name, name##_avx2, name##_avx512}
#else
#define EW_LEVEL_VARIANTS(name, body)
#define EW_KV(name) {name, name, name}
#endif

/* argument kinds; EW_ARG_ATTR is a plain number (its value comes in the `attrs` arrays of ew_get_workspace) */
enum { EW_ARG_TENSOR, EW_ARG_SCALAR, EW_ARG_OUT, EW_ARG_INOUT, EW_ARG_ATTR };
/* FLOAT: int/bool promoted dtypes compute (and return) float32; OUT: the compute dtype is out's dtype (every
 * tensor input must be castable to it) */
enum { EW_COMPUTE_SAME, EW_COMPUTE_FLOAT, EW_COMPUTE_OUT };
/* REAL: complex compute, real result (abs, angle); COMPLEX: real compute, complex result (complex, polar) */
enum { EW_RESULT_PROMOTE, EW_RESULT_BOOL, EW_RESULT_REAL, EW_RESULT_COMPLEX };
/* ANY: the engine checks nothing about out's dtype (the op's hook does; the result is converted to it) */
enum { EW_OUT_CAST, EW_OUT_SAME, EW_OUT_LIST, EW_OUT_ANY };
/* how the aclScalar arguments selected by scalar_promote join the promotion: as PyTorch's wrapped numbers (a
 * higher category only), as a tensor of their dtype would (PromoteType), or only a floating scalar (PromoteType)
 * while an integer scalar leaves the tensors' dtype */
enum { EW_SP_WRAPPED, EW_SP_FULL, EW_SP_FLOAT };
/* storage-format rules: two arguments with the same format; an argument not in a private (5HD, NZ, ...) format */
enum { EW_FMT_SAME, EW_FMT_NOT_PRIVATE };

typedef struct ew_desc ew_desc;

/* What the stages know when a hook runs (args in API order; attributes' values in attr_f/attr_i). */
typedef struct {
    const ew_desc *d;
    const void *const *args;
    const double *attr_f;
    const int64_t *attr_i;
    int iout;                       /* the index of out (or of the written tensor of an Inplace op) */
    aclDataType pdt;                /* promoted dtype (after stage 'p'; a promote hook sets it) */
    aclDataType cdt;                /* compute dtype */
    aclDataType rdt;                /* result dtype of the formula */
    aclDataType kdt;                /* a promote hook's compute dtype when it differs from the promoted dtype the
                                     * checks use (aclnnDivMod computes int/int true division in float32) */
    int64_t bd[ACL_MAX_TENSOR_DIMS];/* broadcast shape of the tensor inputs (after stage 's') */
    int bnd;
} ew_ctx;

/* An op-specific check (tools/optable `check=`), run at its place in the stage order. */
typedef aclnnStatus (*ew_hook)(ew_ctx *c);
/* An op-specific promotion (tools/optable `promote=`): sets c->pdt, or reports and returns the status. */
typedef aclnnStatus (*ew_promote_fn)(ew_ctx *c);

struct ew_desc {
    int op;
    int nargs;
    unsigned char kind[EW_MAX_ARGS];
    const char *name[EW_MAX_ARGS];
    const aclDataType *dtypes;
    int n_dtypes;
    const aclDataType *out_dtypes; /* out_rule LIST: the dtypes out may have (NULL: the input list) */
    int n_out_dtypes;
    const aclDataType *arg_dtypes[EW_MAX_ARGS]; /* an argument's own support list (a bool mask, a scalar) */
    int n_arg_dtypes[EW_MAX_ARGS];
    const aclDataType *scalar_dtypes; /* the list every aclScalar's dtype must be in (NULL: no check) */
    int n_scalar_dtypes;
    const aclDataType *promoted;      /* the list the promoted dtype must be in (NULL: any with a kernel) */
    int n_promoted;
    unsigned no_promote;          /* bit i: tensor argument i does not take part in the promotion (a condition) */
    unsigned same_dtype;          /* bit i: tensor argument i must have the first tensor input's dtype */
    unsigned char compute, result, out_rule;
    unsigned scalar_promote;      /* bit i: aclScalar argument i takes part in the promotion */
    unsigned char scalar_mode;    /* EW_SP_*: how they take part */
    unsigned optional;            /* bit i: argument i (an aclScalar) may be NULL */
    unsigned need_one;            /* bits: at least one of these optional arguments must not be NULL (161001) */
    unsigned scalar_cast_check;   /* bit i: aclScalar argument i must be castable to the compute dtype */
    unsigned null_inner;          /* bit i: NULL in argument i gives ACLNN_ERR_INNER_NULLPTR (561103), as some ops return */
    unsigned char max_rank;       /* rank limit of every tensor (8); 0: none (contiguous-equivalent layouts) */
    unsigned char rank_contig;    /* with max_rank 8: the limit applies only when a tensor is not contiguous */
    unsigned char n_fmt;
    unsigned char fmt[EW_MAX_FMT][3]; /* {EW_FMT_*, arg a, arg b} */
    const char *order;            /* the stages after the NULL checks, e.g. "dpfsh" (see above) */
    ew_kernel k[EW_NCLASS];
    ew_kernel kv[3];              /* a `vec` op's fp32 kernel per SIMD level (ACL_SIMD_PORTABLE/AVX2/AVX512), or NULLs */
    ew_hook check;
    ew_promote_fn promote;
};

/* The whole first phase of a table elementwise op. args: the pointer arguments in API order (NULL in the slots of
 * attributes); attr_f/attr_i: every argument's value as double / int64 (used in the slots of attributes). */
aclnnStatus ew_get_workspace(const ew_desc *d, const void *const *args, const double *attr_f, const int64_t *attr_i,
                             uint64_t *workspaceSize, aclOpExecutor **executor);

/* ---- helpers for hooks and the generated code ---- */
bool ew_in_list(aclDataType dt, const aclDataType *l, int n);
/* "<name> dtype X should be in dtype support list [...]" -> 161002 */
aclnnStatus ew_check_dtype_list(const aclDataType *l, int n, const aclTensor *t, const char *name);
/* the index of argument `name` in the op's API order, -1 if none */
int ew_arg_index(const ew_desc *d, const char *name);
/* The hook of an op whose op_api refuses every call outside the 950 series (aclnnSquare, aclnnMaskedScale):
 * 161002 after the NULL checks. */
aclnnStatus ew_check_not_on_a2(ew_ctx *c);

/* a float attribute's integer value for the int64 compute class: truncated, saturated, NaN -> 0 (a plain C cast
 * of an out-of-range or NaN value is undefined) */
static inline int64_t ew_sat_i64(double v) {
    if (!(v == v)) return 0;
    if (v >= 9223372036854775807.0) return INT64_MAX;
    if (v <= -9223372036854775808.0) return INT64_MIN;
    return (int64_t)v;
}
static inline int64_t ew_idiv_trunc(int64_t a, int64_t b) { return b == 0 ? 0 : (b == -1 ? (int64_t)(0 - (uint64_t)a) : a / b); }

#endif
