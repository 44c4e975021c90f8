/* Creation and triangle ops: Arange, Range, Linspace, Eye, Tril/Triu and their Inplace twins. Validation follows each
 * real op_api (order, codes, A2 dtype lists from the op table); values as the device computes them:
 *  - Arange/Range fill out (whatever its shape: the kernel's output takes out's view shape, the host does not check
 *    it) in row-major order with start + i * step, in int64 (wrapping) for an int64 out, else in double rounded once;
 *  - Linspace converts start/end to the compute dtype (out's, float32 for int64), then computes in float32 (double
 *    for a double out) as the LinSpace kernel does: start + step * i for the first half, end - step * (n - 1 - i)
 *    for the second, step = (end - start) / (n - 1), and converts to out's dtype;
 *  - Tril/Triu: a masked copy per matrix row (the copy runner stages a self that overlaps out). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/copy_plan.h"

static aclnnStatus max_dim(const aclTensor *t, int max, const char *name) {
    ACLNN_CHECK(t->ndim <= (uint64_t)max, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported.",
                name, (unsigned long long)t->ndim, max);
    return acl_check_nonneg_dims(t, name);
}

static aclnnStatus scalar_dtype_in(const aclScalar *s, const aclDataType *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (s->dtype == list[i]) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has dtype %s, which is not supported.", name,
                      acl_dtype_name(s->dtype));
}

/* ---------------------------------------------------------------- Arange / Range / Linspace */
enum { SEQ_INT, SEQ_DOUBLE, SEQ_LIN_FLOAT, SEQ_LIN_DOUBLE };
typedef struct {
    int kind;
    int64_t istart, istep;         /* SEQ_INT */
    double start, step, end;       /* SEQ_DOUBLE, SEQ_LIN_DOUBLE */
    float fstart, fstep, fend;     /* SEQ_LIN_FLOAT */
    int64_t num;                   /* linspace steps */
} seq_params;

static void seq_value(const seq_params *p, int64_t i, void *dst, aclDataType dt) {
    switch (p->kind) {
    case SEQ_INT: {
        const int64_t v = (int64_t)((uint64_t)p->istart + (uint64_t)i * (uint64_t)p->istep);
        acl_convert(&v, ACL_INT64, 1, dst, dt, 1, 1);
        return;
    }
    case SEQ_DOUBLE: {
        const double v = p->start + (double)i * p->step;
        acl_convert(&v, ACL_DOUBLE, 1, dst, dt, 1, 1);
        return;
    }
    case SEQ_LIN_FLOAT: {
        float v;
        if (i < p->num / 2) {
            const float t = p->fstep * (float)i;
            v = p->fstart + t;
        } else {
            const float t = p->fstep * (float)(p->num - i - 1);
            v = p->fend - t;
        }
        acl_convert(&v, ACL_FLOAT, 1, dst, dt, 1, 1);
        return;
    }
    default: {
        const double v = i < p->num / 2 ? p->start + p->step * (double)i : p->end - p->step * (double)(p->num - i - 1);
        acl_convert(&v, ACL_DOUBLE, 1, dst, dt, 1, 1);
        return;
    }
    }
}

/* out's elements in row-major order get value i; rows owned by one thread each */
static aclnnStatus seq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const seq_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(o->dtype);
    const int nd = o->ndim;
    const int64_t total = acl_view_numel(o), inner = nd ? o->dims[nd - 1] : 1, rows = inner ? total / inner : 0;
    const int64_t ist = nd ? o->strides[nd - 1] : 0;
    ACL_FOR(acl_parallel_worth(total), r, 0, rows, {
        int64_t rem = r, off = 0;
        for (int k = nd - 2; k >= 0; k--) {
            off += (rem % o->dims[k]) * o->strides[k];
            rem /= o->dims[k];
        }
        for (int64_t j = 0; j < inner; j++) seq_value(p, r * inner + j, o->base + (off + j * ist) * (int64_t)es, o->dtype);
    });
    return ACLNN_SUCCESS;
}

static aclnnStatus seq_publish(int op, aclTensor *out, const seq_params *p, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(max_dim(out, 8, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, seq_run, sizeof *p);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    *(seq_params *)ex->params = *p;
    aclnnStatus rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

#define STEP_CHECK(a, b, s)                                                                                     \
    do {                                                                                                        \
        ACLNN_CHECK((s) > 0 || (s) < 0, ACLNN_ERR_PARAM_INVALID, "step must be nonzero.");                      \
        ACLNN_CHECK(!(((s) > 0 && (a) > (b)) || ((s) < 0 && (a) < (b))), ACLNN_ERR_PARAM_INVALID,               \
                    "upper bound and lower bound inconsistent with step sign (start, end, step).");             \
    } while (0)

static aclnnStatus arange_like(int op, const aclScalar *start, const aclScalar *end, const aclScalar *step,
                               aclTensor *out, const aclDataType *in_list, int n_in, const aclDataType *out_list,
                               int n_out, bool closed, aclnnStatus null_code, uint64_t *ws, aclOpExecutor **exo) {
    ACLNN_CHECK(start != NULL, null_code, "Expected a proper Scalar but got null for argument start.");
    ACLNN_CHECK(end != NULL, null_code, "Expected a proper Scalar but got null for argument end.");
    ACLNN_CHECK(step != NULL, null_code, "Expected a proper Scalar but got null for argument step.");
    ACLNN_CHECK(out != NULL, null_code, "Expected a proper Tensor but got null for argument out.");
    ACL_TRY(scalar_dtype_in(start, in_list, n_in, "start")); /* start, end and step share one list */
    ACL_TRY(scalar_dtype_in(end, in_list, n_in, "end"));
    ACL_TRY(scalar_dtype_in(step, in_list, n_in, "step"));
    ACL_TRY(acl_check_dtype_in(out, out_list, n_out, "out"));
    if (closed) ACLNN_CHECK(out->ndim != 0, ACLNN_ERR_PARAM_INVALID, "Expected out a 1d tensor, but got 0 dims.");
    seq_params p = {0};
    switch (out->dtype) {
    case ACL_FLOAT16: case ACL_BF16: case ACL_FLOAT: { /* the host checks the values as float */
        float a, b, s;
        acl_convert(start->bytes, start->dtype, 1, &a, ACL_FLOAT, 1, 1);
        acl_convert(end->bytes, end->dtype, 1, &b, ACL_FLOAT, 1, 1);
        acl_convert(step->bytes, step->dtype, 1, &s, ACL_FLOAT, 1, 1);
        STEP_CHECK(a, b, s);
        break;
    }
    case ACL_DOUBLE: {
        const double a = acl_read_f64(start->bytes, start->dtype), b = acl_read_f64(end->bytes, end->dtype),
                     s = acl_read_f64(step->bytes, step->dtype);
        STEP_CHECK(a, b, s);
        break;
    }
    default: { /* int32, int64 */
        const int64_t a = acl_read_i64(start->bytes, start->dtype), b = acl_read_i64(end->bytes, end->dtype),
                      s = acl_read_i64(step->bytes, step->dtype);
        STEP_CHECK(a, b, s);
        break;
    }
    }
    if (out->dtype == ACL_INT64) { /* the kernel's inputs are int64 for an int64 out, double otherwise */
        p.kind = SEQ_INT;
        p.istart = acl_read_i64(start->bytes, start->dtype);
        p.istep = acl_read_i64(step->bytes, step->dtype);
    } else {
        p.kind = SEQ_DOUBLE;
        p.start = acl_read_f64(start->bytes, start->dtype);
        p.step = acl_read_f64(step->bytes, step->dtype);
    }
    return seq_publish(op, out, &p, ws, exo);
}

aclnnStatus opws_Arange(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return arange_like(ACL_OP_Arange, start, end, step, out, ACL_DT_LIST_Arange_start, ACL_DT_LIST_Arange, false,
                       ACLNN_ERR_PARAM_NULLPTR, workspaceSize, executor);
}

aclnnStatus opws_Range(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the real Range reports ACLNN_ERR_INNER_NULLPTR for a NULL argument */
    return arange_like(ACL_OP_Range, start, end, step, out, ACL_DT_LIST_Range_start, ACL_DT_LIST_Range, true,
                       ACLNN_ERR_INNER_NULLPTR, workspaceSize, executor);
}

aclnnStatus opws_Linspace(const aclScalar *start, const aclScalar *end, int64_t steps, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the real CheckParams reports ACLNN_ERR_INNER_NULLPTR for a NULL argument */
    ACLNN_CHECK(start != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Scalar but got null for argument start.");
    ACLNN_CHECK(end != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Scalar but got null for argument end.");
    ACLNN_CHECK(out != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Tensor but got null for argument out.");
    ACLNN_CHECK(!acl_dt_is_complex(start->dtype), ACLNN_ERR_PARAM_INVALID, "complex for input start is not "
                "implemented.");
    ACLNN_CHECK(!acl_dt_is_complex(end->dtype), ACLNN_ERR_PARAM_INVALID, "complex for input end is not implemented.");
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Linspace, "out"));
    ACLNN_CHECK(steps >= 0, ACLNN_ERR_PARAM_INVALID, "number of steps must be non-negative, got %lld.",
                (long long)steps);
    ACL_TRY(max_dim(out, 8, "out"));
    int64_t n = 0;
    ACLNN_CHECK(acl_numel(out->dims, (int64_t)out->ndim, &n) && n == steps, ACLNN_ERR_PARAM_INVALID,
                "size of out must equal to steps %lld.", (long long)steps);
    ACLNN_CHECK(acl_dt_known(start->dtype) && acl_dt_known(end->dtype), ACLNN_ERR_INNER_NULLPTR,
                "start or end has a dtype that can not be converted.");
    if (steps == 0) return acl_exec_noop(ACL_OP_Linspace, workspaceSize, executor);
    seq_params p = {0};
    p.num = steps;
    if (steps == 1) { /* out = start converted to out's dtype */
        aclOpExecutor *ex = cp_exec_create(ACL_OP_Linspace);
        if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        cp_of(ex)->fill_slot = 0;
        cp_of(ex)->fill_exact = true;
        acl_convert(start->bytes, start->dtype, 1, cp_of(ex)->fill_bytes, out->dtype, 1, 1);
        aclnnStatus rc = acl_exec_add_output(ex, out, "out");
        if (rc) return acl_exec_discard(ex, rc);
        return acl_exec_publish(ex, workspaceSize, executor);
    }
    const aclDataType pt = out->dtype == ACL_INT64 ? ACL_FLOAT : out->dtype; /* the compute dtype */
    unsigned char a[16] __attribute__((aligned(16))), b[16] __attribute__((aligned(16)));
    acl_convert(start->bytes, start->dtype, 1, a, pt, 1, 1);
    acl_convert(end->bytes, end->dtype, 1, b, pt, 1, 1);
    if (pt == ACL_DOUBLE) {
        p.kind = SEQ_LIN_DOUBLE;
        memcpy(&p.start, a, sizeof p.start);
        memcpy(&p.end, b, sizeof p.end);
        p.step = (p.end - p.start) / (double)(steps - 1);
    } else {
        p.kind = SEQ_LIN_FLOAT;
        acl_convert(a, pt, 1, &p.fstart, ACL_FLOAT, 1, 1);
        acl_convert(b, pt, 1, &p.fend, ACL_FLOAT, 1, 1);
        p.fstep = (p.fend - p.fstart) / (float)(steps - 1);
    }
    return seq_publish(ACL_OP_Linspace, out, &p, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Eye */
static aclnnStatus eye_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *o = acl_exec_out(ex, 0);
    const double zero = 0, one = 1;
    int64_t zst[2] = {0, 0};
    cp_copy((const char *)&zero, ACL_DOUBLE, zst, o->base, o->dtype, o->strides, o->dims, 2);
    int64_t n = o->dims[0] < o->dims[1] ? o->dims[0] : o->dims[1], dd = o->strides[0] + o->strides[1];
    cp_copy((const char *)&one, ACL_DOUBLE, zst, o->base, o->dtype, &dd, &n, 1);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Eye(int64_t n, int64_t m, aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Eye, "out"));
    ACLNN_CHECK(out->ndim == 2, ACLNN_ERR_PARAM_INVALID, "Expected out to be 2-D tensor, but it has %llu dims.",
                (unsigned long long)out->ndim);
    ACLNN_CHECK(n >= 0, ACLNN_ERR_PARAM_INVALID, "n must be greater or equal to 0, got %lld.", (long long)n);
    ACLNN_CHECK(m >= 0, ACLNN_ERR_PARAM_INVALID, "m must be greater or equal to 0, got %lld.", (long long)m);
    ACLNN_CHECK(out->dims[0] == n && out->dims[1] == m, ACLNN_ERR_PARAM_INVALID,
                "Expected out shape to be (%lld, %lld) (n, m).", (long long)n, (long long)m);
    if (n == 0 || m == 0) return acl_exec_noop(ACL_OP_Eye, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Eye, eye_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Tril / Triu */
/* iparam[0] = diagonal (clamped to [-R, C]: beyond it nothing changes), iparam[1] = upper */
static void tri_kernel(const cp_plan *p, const acl_view *io) {
    const acl_view *s = &io[0], *o = &io[1];
    const int64_t diag = p->iparam[0];
    const bool upper = p->iparam[1] != 0;
    const int nd = o->ndim;
    const int64_t R = o->dims[nd - 2], C = o->dims[nd - 1];
    int64_t batch = 1;
    for (int k = 0; k < nd - 2; k++) batch *= o->dims[k];
    const size_t ses = acl_dtype_size(s->dtype), des = acl_dtype_size(o->dtype);
    const double zero = 0;
    ACL_FOR(acl_parallel_worth(batch * R * C), br, 0, batch * R, {
        int64_t b = br / R, r = br % R, rem = b, so = 0, dof = 0;
        for (int k = nd - 3; k >= 0; k--) {
            int64_t i = rem % o->dims[k];
            rem /= o->dims[k];
            so += i * s->strides[k];
            dof += i * o->strides[k];
        }
        so += r * s->strides[nd - 2];
        dof += r * o->strides[nd - 2];
        /* kept columns: tril j <= r + diag, triu j >= r + diag (saturated: past C is all of the row) */
        int64_t lim;
        if (__builtin_add_overflow(r, diag, &lim) || lim >= C) lim = C;
        const int64_t k0 = upper ? (lim < 0 ? 0 : lim) : 0;
        const int64_t k1 = upper ? C : (lim >= C ? C : (lim < 0 ? 0 : lim + 1));
        const int64_t sc = s->strides[nd - 1], dc = o->strides[nd - 1];
        if (k1 > k0)
            acl_convert(s->base + (so + k0 * sc) * (int64_t)ses, s->dtype, sc, o->base + (dof + k0 * dc) * (int64_t)des,
                        o->dtype, dc, k1 - k0);
        if (k0 > 0) acl_convert(&zero, ACL_DOUBLE, 0, o->base + dof * (int64_t)des, o->dtype, dc, k0);
        if (k1 < C) acl_convert(&zero, ACL_DOUBLE, 0, o->base + (dof + k1 * dc) * (int64_t)des, o->dtype, dc, C - k1);
    });
}


static aclnnStatus tri_exec(int op, const aclTensor *self, const char *sname, int64_t diagonal, const aclTensor *out,
                            const char *oname, bool upper, uint64_t *ws, aclOpExecutor **exo) {
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    const int64_t R = self->dims[self->ndim - 2], C = self->dims[self->ndim - 1];
    cp_of(ex)->kernel = tri_kernel;
    cp_of(ex)->iparam[0] = diagonal < -R ? -R : diagonal > C ? C : diagonal; /* beyond: all or nothing kept */
    cp_of(ex)->iparam[1] = upper;
    aclnnStatus rc = acl_exec_add_input(ex, self, sname, true);
    if (!rc) rc = acl_exec_add_output(ex, out, oname);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

/* Tril: NULL, self and out in the list, out's dtype self's, same storage format, self 2..8 dims, out <= 8 dims, same
 * shape. InplaceTril is Tril(selfRef, selfRef). */
static aclnnStatus tril(int op, const aclTensor *self, const char *sname, int64_t diagonal, const aclTensor *out,
                        const char *oname, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, sname));
    ACL_TRY(acl_check_tensor(out, oname));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Tril, sname));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Tril, oname));
    ACL_TRY(acl_check_same_dtype(self, sname, out, oname));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "%s format %s is different from %s format %s.",
                sname, acl_format_name(self->format), oname, acl_format_name(out->format));
    ACLNN_CHECK(self->ndim > 1, ACLNN_ERR_PARAM_INVALID, "Dim of %s should be at least 2, got %llu.", sname,
                (unsigned long long)self->ndim);
    ACL_TRY(max_dim(self, 8, sname));
    ACL_TRY(max_dim(out, 8, oname));
    ACL_TRY(acl_check_same_shape(self, sname, out, oname));
    return tri_exec(op, self, sname, diagonal, out, oname, false, ws, exo);
}

/* Triu: NULL, self in the list, out's dtype self's, self's format not private and out's, self <= 8 dims (>= 2 when
 * it has elements), same shape. */
static aclnnStatus triu(int op, const aclTensor *self, const char *sname, int64_t diagonal, const aclTensor *out,
                        const char *oname, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, sname));
    ACL_TRY(acl_check_tensor(out, oname));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Triu, sname));
    ACL_TRY(acl_check_same_dtype(self, sname, out, oname));
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID,
                "Format only supports ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, %s is %s.", sname,
                acl_format_name(self->format));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "%s format %s is different from %s format %s.",
                sname, acl_format_name(self->format), oname, acl_format_name(out->format));
    ACL_TRY(max_dim(self, 8, sname));
    ACLNN_CHECK(acl_tensor_empty(self) || self->ndim >= 2, ACLNN_ERR_PARAM_INVALID,
                "%s has %llu dims; at least 2 are needed.", sname, (unsigned long long)self->ndim);
    ACL_TRY(acl_check_same_shape(self, sname, out, oname));
    return tri_exec(op, self, sname, diagonal, out, oname, true, ws, exo);
}

aclnnStatus opws_Tril(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return tril(ACL_OP_Tril, self, "self", diagonal, out, "out", workspaceSize, executor);
}
aclnnStatus opws_InplaceTril(const aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    return tril(ACL_OP_InplaceTril, selfRef, "selfRef", diagonal, selfRef, "selfRef", workspaceSize, executor);
}
aclnnStatus opws_Triu(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return triu(ACL_OP_Triu, self, "self", diagonal, out, "out", workspaceSize, executor);
}
aclnnStatus opws_InplaceTriu(aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    return triu(ACL_OP_InplaceTriu, selfRef, "selfRef", diagonal, selfRef, "selfRef", workspaceSize, executor);
}
