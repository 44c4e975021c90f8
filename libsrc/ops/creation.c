/* Creation and triangle ops: Eye, Arange, Range, Linspace (values computed in double, rounded once to out's dtype,
 * as PyTorch's CPU kernels accumulate), Tril/Triu and their Inplace twins (a masked copy per matrix row). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

static const aclDataType k_num[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                    ACL_INT64, ACL_UINT8};

typedef struct { double start, step, end; int64_t n; int kind; bool ints; int64_t istart, istep; } seq_params;
enum { SEQ_ARANGE, SEQ_LINSPACE };

static aclnnStatus seq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const seq_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(o->dtype);
    const int64_t st = o->ndim ? o->strides[0] : 1;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(p->n))
    for (int64_t i = 0; i < p->n; i++) {
        char *dst = o->base + i * st * (int64_t)es;
        if (p->ints) {
            int64_t v = (int64_t)((uint64_t)p->istart + (uint64_t)i * (uint64_t)p->istep);
            acl_convert(&v, ACL_INT64, 1, dst, o->dtype, 1, 1);
            continue;
        }
        double v;
        if (p->kind == SEQ_ARANGE) v = p->start + (double)i * p->step;
        else v = i < p->n / 2 ? p->start + (double)i * p->step : p->end - (double)(p->n - 1 - i) * p->step;
        acl_convert(&v, ACL_DOUBLE, 1, dst, o->dtype, 1, 1);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus seq_publish(int op, aclTensor *out, const seq_params *p, uint64_t *ws, aclOpExecutor **exo) {
    ACLNN_CHECK(out->ndim == 1, ACLNN_ERR_PARAM_INVALID, "out must be 1-d, has %llu dims.", (unsigned long long)out->ndim);
    ACLNN_CHECK(out->dims[0] == p->n, ACLNN_ERR_PARAM_INVALID, "out has %lld elements; the sequence has %lld.",
                (long long)out->dims[0], (long long)p->n);
    if (p->n == 0) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, seq_run, sizeof *p);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    *(seq_params *)ex->params = *p;
    aclnnStatus rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

static aclnnStatus scalar_ok(const aclScalar *s, const char *name) {
    ACLNN_CHECK(s != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    ACLNN_CHECK(acl_reg_is(s, ACL_KIND_SCALAR), ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar.", name);
    ACLNN_CHECK(acl_dt_known(s->dtype) && !acl_dt_is_complex(s->dtype), ACLNN_ERR_PARAM_INVALID,
                "%s has an unsupported dtype %s.", name, acl_dtype_name(s->dtype));
    return ACLNN_SUCCESS;
}

static aclnnStatus arange_like(int op, const aclScalar *start, const aclScalar *end, const aclScalar *step,
                               aclTensor *out, bool inclusive, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(scalar_ok(start, "start"));
    ACL_TRY(scalar_ok(end, "end"));
    ACL_TRY(scalar_ok(step, "step"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(ws != NULL && exo != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be NULL.");
    ACL_TRY(acl_check_dtype_in(out, k_num, ACL_COUNT_OF(k_num), "out"));
    double a = acl_read_f64(start->bytes, start->dtype), b = acl_read_f64(end->bytes, end->dtype),
           s = acl_read_f64(step->bytes, step->dtype);
    ACLNN_CHECK(isfinite(a) && isfinite(b), ACLNN_ERR_PARAM_INVALID, "start and end must be finite.");
    ACLNN_CHECK(s != 0 && !isnan(s), ACLNN_ERR_PARAM_INVALID, "step must be non-zero.");
    ACLNN_CHECK((s > 0 && b >= a) || (s < 0 && b <= a), ACLNN_ERR_PARAM_INVALID,
                "upper bound and larger bound inconsistent with step sign.");
    double n = inclusive ? floor((b - a) / s) + 1 : ceil((b - a) / s);
    ACLNN_CHECK(n >= 0 && n < 9e15, ACLNN_ERR_PARAM_INVALID, "the sequence is too long.");
    seq_params p = {a, s, b, (int64_t)n, SEQ_ARANGE, false, 0, 0};
    bool int_args = !acl_dt_is_float(start->dtype) && !acl_dt_is_float(end->dtype) && !acl_dt_is_float(step->dtype);
    if (acl_dt_is_int(out->dtype) && int_args) {
        p.ints = true;
        p.istart = acl_read_i64(start->bytes, start->dtype);
        p.istep = acl_read_i64(step->bytes, step->dtype);
    }
    return seq_publish(op, out, &p, ws, exo);
}

aclnnStatus opws_Arange(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return arange_like(ACL_OP_Arange, start, end, step, out, false, workspaceSize, executor);
}

aclnnStatus opws_Range(const aclScalar *start, const aclScalar *end, const aclScalar *step,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return arange_like(ACL_OP_Range, start, end, step, out, true, workspaceSize, executor);
}

aclnnStatus opws_Linspace(const aclScalar *start, const aclScalar *end, int64_t steps, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(scalar_ok(start, "start"));
    ACL_TRY(scalar_ok(end, "end"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(workspaceSize != NULL && executor != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "workspaceSize and executor must not be NULL.");
    ACL_TRY(acl_check_dtype_in(out, k_num, ACL_COUNT_OF(k_num), "out"));
    ACLNN_CHECK(steps >= 0, ACLNN_ERR_PARAM_INVALID, "steps %lld must be non-negative.", (long long)steps);
    double a = acl_read_f64(start->bytes, start->dtype), b = acl_read_f64(end->bytes, end->dtype);
    seq_params p = {a, steps > 1 ? (b - a) / (double)(steps - 1) : 0, b, steps, SEQ_LINSPACE, false, 0, 0};
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
    ACLNN_CHECK(workspaceSize != NULL && executor != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "workspaceSize and executor must not be NULL.");
    static const aclDataType k_eye[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                        ACL_INT64, ACL_UINT8, ACL_BOOL};
    ACL_TRY(acl_check_dtype_in(out, k_eye, ACL_COUNT_OF(k_eye), "out"));
    ACLNN_CHECK(n >= 0, ACLNN_ERR_PARAM_INVALID, "n %lld must be non-negative.", (long long)n);
    if (m < 0) m = n;
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == n && out->dims[1] == m, ACLNN_ERR_PARAM_INVALID,
                "out must have shape [%lld, %lld].", (long long)n, (long long)m);
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Eye, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Eye, eye_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Tril / Triu */
typedef struct { int64_t diag; bool upper; } tri_params;

static aclnnStatus tri_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const tri_params *p = ex->params;
    const acl_view *s = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const int nd = o->ndim;
    const int64_t R = o->dims[nd - 2], C = o->dims[nd - 1];
    int64_t batch = 1;
    for (int k = 0; k < nd - 2; k++) batch *= o->dims[k];
    const size_t ses = acl_dtype_size(s->dtype), des = acl_dtype_size(o->dtype);
    const double zero = 0;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(batch * R * C))
    for (int64_t br = 0; br < batch * R; br++) {
        int64_t b = br / R, r = br % R, rem = b, so = 0, dof = 0;
        for (int k = nd - 3; k >= 0; k--) {
            int64_t i = rem % o->dims[k];
            rem /= o->dims[k];
            so += i * s->strides[k];
            dof += i * o->strides[k];
        }
        so += r * s->strides[nd - 2];
        dof += r * o->strides[nd - 2];
        /* kept columns: tril j <= r + diag, triu j >= r + diag */
        int64_t lim = r + p->diag;
        int64_t k0 = p->upper ? (lim < 0 ? 0 : (lim > C ? C : lim)) : 0;
        int64_t k1 = p->upper ? C : (lim + 1 < 0 ? 0 : (lim + 1 > C ? C : lim + 1));
        const int64_t sc = s->strides[nd - 1], dc = o->strides[nd - 1];
        if (k1 > k0)
            acl_convert(s->base + (so + k0 * sc) * (int64_t)ses, s->dtype, sc, o->base + (dof + k0 * dc) * (int64_t)des,
                        o->dtype, dc, k1 - k0);
        if (k0 > 0) acl_convert(&zero, ACL_DOUBLE, 0, o->base + dof * (int64_t)des, o->dtype, dc, k0);
        if (k1 < C) acl_convert(&zero, ACL_DOUBLE, 0, o->base + (dof + k1 * dc) * (int64_t)des, o->dtype, dc, C - k1);
    }
    return ACLNN_SUCCESS;
}

static const aclDataType k_tri[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                    ACL_INT64, ACL_UINT8, ACL_BOOL};

static aclnnStatus tri(int op, const aclTensor *self, int64_t diagonal, const aclTensor *out, bool upper,
                       const char *sname, uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, sname));
    if (out != self) ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(ws != NULL && exo != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be NULL.");
    ACL_TRY(acl_check_dtype_in(self, k_tri, ACL_COUNT_OF(k_tri), sname));
    if (out != self) ACL_TRY(acl_check_same_dtype(self, sname, out, "out"));
    ACLNN_CHECK(self->ndim >= 2 && self->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "%s must have 2 to %d dims, has %llu.", sname, ACL_MAX_VIEW_RANK, (unsigned long long)self->ndim);
    if (out != self) ACL_TRY(acl_check_same_shape(self, sname, out, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, tri_run, sizeof(tri_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    /* a diagonal beyond the matrix keeps everything or nothing: clamp it so row + diagonal cannot overflow */
    const int64_t R = self->dims[self->ndim - 2], C = self->dims[self->ndim - 1];
    *(tri_params *)ex->params = (tri_params){diagonal < -R - 1 ? -R - 1 : diagonal > C + 1 ? C + 1 : diagonal, upper};
    aclnnStatus rc = acl_exec_add_input(ex, self, sname, true);
    if (!rc) rc = acl_exec_add_output(ex, out, out == self ? sname : "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_Tril(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return tri(ACL_OP_Tril, self, diagonal, out, false, "self", workspaceSize, executor);
}
aclnnStatus opws_Triu(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return tri(ACL_OP_Triu, self, diagonal, out, true, "self", workspaceSize, executor);
}
aclnnStatus opws_InplaceTril(const aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    return tri(ACL_OP_InplaceTril, selfRef, diagonal, selfRef, false, "selfRef", workspaceSize, executor);
}
aclnnStatus opws_InplaceTriu(aclTensor *selfRef, int64_t diagonal, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    return tri(ACL_OP_InplaceTriu, selfRef, diagonal, selfRef, true, "selfRef", workspaceSize, executor);
}
