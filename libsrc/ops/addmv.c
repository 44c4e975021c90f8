/* aclnnAddmv (ops-nn matmul/addmv): out = beta * self + alpha * (mat @ vec), following the op_api's graph:
 *   p1 = promote(mat, vec); mm = mat @ vec in p1 (f32/f16/bf16: the GEMM engine's f32 chain rounded to p1; other
 *        dtypes: exact int64 sums wrapped to p1, double sums, bool "any of and")
 *   alpha != 1: mm = cast(mm, p2 = promote(alpha, p1)) * alpha        (bool: and)
 *   the self part when there is no product (alpha == 0 or an empty mat/vec) or beta != 0:
 *        beta == 1 ? self : cast(self, p3 = promote(beta, self)) * beta
 *   both: cast each to promote(their dtypes) and add (bool: or); then cast to out.
 * Each step rounds to its dtype as the device's tensor ops do ("== 1"/"== 0" compare the scalars' float value within
 * FLT_EPSILON, as ToFloat() does). Checks in the op_api order: NULLs, the dtype list (self, mat, vec, alpha, beta,
 * out), the promotion chain and the cast to out, dims (self 0/1-d, mat 2-d, vec 1-d, out 1-d) and sizes,
 * cubeMathType, NZ formats. An empty self returns. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/gemm.h"
#include "meta/meta.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

typedef struct { double f; int64_t i; } av_val; /* f for floating dtypes, i for integers and bool */

static bool av_fl(aclDataType d) { return acl_dt_is_float(d); }

static av_val av_load(const void *p, aclDataType d) {
    av_val v = {0, 0};
    if (av_fl(d)) v.f = acl_read_f64(p, d);
    else v.i = acl_read_i64(p, d);
    return v;
}

/* v (held in the class of `from`) converted to dtype `to`, through `to`'s storage */
static av_val av_cast(av_val v, aclDataType from, aclDataType to) {
    unsigned char buf[16] __attribute__((aligned(16)));
    if (av_fl(from)) acl_convert(&v.f, ACL_DOUBLE, 1, buf, to, 1, 1);
    else acl_convert(&v.i, ACL_INT64, 1, buf, to, 1, 1);
    return av_load(buf, to);
}

static av_val av_mul(av_val a, av_val b, aclDataType t) {
    av_val r = {0, 0};
    if (t == ACL_BOOL) { r.i = a.i && b.i; return r; }
    if (av_fl(t)) { r.f = a.f * b.f; return av_cast(r, ACL_DOUBLE, t); }
    r.i = (int64_t)((uint64_t)a.i * (uint64_t)b.i);
    return av_cast(r, ACL_INT64, t);
}

static av_val av_add(av_val a, av_val b, aclDataType t) {
    av_val r = {0, 0};
    if (t == ACL_BOOL) { r.i = a.i || b.i; return r; }
    if (av_fl(t)) { r.f = a.f + b.f; return av_cast(r, ACL_DOUBLE, t); }
    r.i = (int64_t)((uint64_t)a.i + (uint64_t)b.i);
    return av_cast(r, ACL_INT64, t);
}

typedef struct {
    gemm_problem g;            /* mat (M x K) @ vec (K x 1) -> a contiguous p1 scratch */
    bool has_mm, alpha_mul, self_part, beta_mul;
    aclDataType p1, p2, p3, pf, sdt, odt;
    av_val alpha, beta;        /* in p2 / p3 */
    int64_t sst, ost;          /* self (0 when broadcast) and out element strides */
} addmv_params;

static aclnnStatus addmv_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const addmv_params *p = ex->params;
    const int64_t M = p->g.M;
    unsigned char *mm = NULL;
    if (p->has_mm) {
        mm = malloc(8 * (size_t)(M > 0 ? M : 1));
        if (!mm) return OOM;
        gemm_problem g = p->g;
        g.a = acl_exec_in(ex, 1)->base;
        g.b = acl_exec_in(ex, 2)->base;
        g.c = mm;
        if (gemm_run(&g) != 0) {
            free(mm);
            return OOM;
        }
    }
    const char *sb = acl_exec_in(ex, 0)->base;
    char *ob = acl_exec_out(ex, 0)->base;
    const size_t ses = acl_dtype_size(p->sdt), oes = acl_dtype_size(p->odt), mes = acl_dtype_size(p->p1);
    ACL_FOR(acl_parallel_worth(M * 64), i, 0, M, {
        av_val r = {0, 0}, s = {0, 0};
        aclDataType rt = ACL_DT_UNDEFINED, st = ACL_DT_UNDEFINED;
        if (p->has_mm) {
            r = av_load(mm + i * (int64_t)mes, p->p1);
            rt = p->p1;
            if (p->alpha_mul) {
                r = av_mul(av_cast(r, rt, p->p2), p->alpha, p->p2);
                rt = p->p2;
            }
        }
        if (p->self_part) {
            s = av_load(sb + i * p->sst * (int64_t)ses, p->sdt);
            st = p->sdt;
            if (p->beta_mul) {
                s = av_mul(av_cast(s, st, p->p3), p->beta, p->p3);
                st = p->p3;
            }
        }
        if (p->has_mm && p->self_part) {
            const aclDataType t = acl_promote(st, rt);
            r = av_add(av_cast(r, rt, t), av_cast(s, st, t), t);
            rt = t;
        } else if (p->self_part) {
            r = s;
            rt = st;
        }
        unsigned char buf[16] __attribute__((aligned(16)));
        if (av_fl(rt)) acl_convert(&r.f, ACL_DOUBLE, 1, buf, rt, 1, 1);
        else acl_convert(&r.i, ACL_INT64, 1, buf, rt, 1, 1);
        acl_convert(buf, rt, 1, ob + i * p->ost * (int64_t)oes, p->odt, 1, 1);
    });
    free(mm);
    return ACLNN_SUCCESS;
}

static float av_tofloat(const aclScalar *s) { return (float)acl_read_f64(s->bytes, s->dtype); }

static aclnnStatus av_check_scalar(const aclScalar *s, const aclDataType *l, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (s->dtype == l[i]) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported.", name, acl_dtype_name(s->dtype));
}

aclnnStatus opws_Addmv(const aclTensor *self, const aclTensor *mat, const aclTensor *vec, const aclScalar *alpha,
                       const aclScalar *beta, aclTensor *out, int8_t cubeMathType, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    if (cubeMathType == 4) cubeMathType = 0; /* routed to KEEP_DTYPE on DAV_2201 */
    NN(self, "self");
    NN(mat, "mat");
    NN(vec, "vec");
    ACLNN_CHECK(alpha != NULL, ACLNN_ERR_PARAM_NULLPTR, "alpha must not be NULL.");
    ACLNN_CHECK(beta != NULL, ACLNN_ERR_PARAM_NULLPTR, "beta must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Addmv, "self"));
    ACL_TRY(acl_check_dtype_in(mat, ACL_DT_LIST_Addmv, "mat"));
    ACL_TRY(acl_check_dtype_in(vec, ACL_DT_LIST_Addmv, "vec"));
    ACL_TRY(av_check_scalar(alpha, ACL_DT_LIST_Addmv, "alpha"));
    ACL_TRY(av_check_scalar(beta, ACL_DT_LIST_Addmv, "beta"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Addmv, "out"));
    const float af = av_tofloat(alpha), bf = av_tofloat(beta);
    const bool alpha_one = fabsf(af - 1.0f) <= FLT_EPSILON, beta_one = fabsf(bf - 1.0f) <= FLT_EPSILON;
    const aclDataType p1 = acl_promote(mat->dtype, vec->dtype);
    ACLNN_CHECK(p1 != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "mat dtype %s and vec dtype %s can not promote.",
                acl_dtype_name(mat->dtype), acl_dtype_name(vec->dtype));
    const aclDataType p2 = alpha_one ? p1 : acl_promote(alpha->dtype, p1);
    ACLNN_CHECK(p2 != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "alpha dtype %s and mat/vec dtype %s can not promote.",
                acl_dtype_name(alpha->dtype), acl_dtype_name(p1));
    const aclDataType p3 = beta_one ? self->dtype : acl_promote(beta->dtype, self->dtype);
    ACLNN_CHECK(p3 != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "self dtype %s and beta dtype %s can not promote.",
                acl_dtype_name(self->dtype), acl_dtype_name(beta->dtype));
    const aclDataType pf = acl_promote(p3, p2);
    ACLNN_CHECK(pf != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID,
                "beta*self dtype %s and alpha*(mat@vec) dtype %s can not promote.", acl_dtype_name(p3),
                acl_dtype_name(p2));
    ACLNN_CHECK(acl_can_cast(pf, out->dtype), ACLNN_ERR_PARAM_INVALID, "result dtype %s can not cast to out dtype %s.",
                acl_dtype_name(pf), acl_dtype_name(out->dtype));
    ACLNN_CHECK(self->ndim <= 1 && mat->ndim == 2 && vec->ndim == 1 && out->ndim == 1, ACLNN_ERR_PARAM_INVALID,
                "Expect dims [0/1, 2, 1, 1] for self, mat, vec, out, but got self [%llu], mat [%llu], vec [%llu], "
                "out [%llu].", (unsigned long long)self->ndim, (unsigned long long)mat->ndim,
                (unsigned long long)vec->ndim, (unsigned long long)out->ndim);
    const int64_t M = mat->dims[0], K = mat->dims[1];
    const bool alpha_zero = fabsf(af) <= FLT_EPSILON;
    ACLNN_CHECK(K == vec->dims[0] && M == out->dims[0] &&
                !(self->ndim == 1 && M != self->dims[0] && (self->dims[0] != 1 || alpha_zero)),
                ACLNN_ERR_PARAM_INVALID, "Shapes do not fit: self, mat [%lld, %lld], vec [%lld], out [%lld].",
                (long long)M, (long long)K, (long long)vec->dims[0], (long long)out->dims[0]);
    ACLNN_CHECK(cubeMathType >= -1 && cubeMathType <= 4, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d is not supported: it should be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                "2 (USE_FP16), 3 (USE_HF32) or 4 (USE_FP32_ADD).", (int)cubeMathType);
    const aclFormat nz = (aclFormat)29;
    ACLNN_CHECK(self->format != nz && mat->format != nz && vec->format != nz && out->format != nz,
                ACLNN_ERR_PARAM_INVALID, "One of self, mat, vec, out is in the unsupported NZ format.");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Addmv, workspaceSize, executor);
    addmv_params pp = {.p1 = p1, .p2 = p2, .p3 = p3, .pf = pf, .sdt = self->dtype, .odt = out->dtype,
                       .sst = (self->ndim == 1 && self->dims[0] != 1) ? self->strides[0] : 0,
                       .ost = out->strides[0]};
    pp.has_mm = !alpha_zero && !(acl_tensor_empty(mat) || acl_tensor_empty(vec));
    pp.alpha_mul = !alpha_one;
    pp.self_part = !pp.has_mm || fabsf(bf) > FLT_EPSILON;
    pp.beta_mul = !beta_one;
    pp.alpha = av_cast(av_load(alpha->bytes, alpha->dtype), alpha->dtype, p2);
    pp.beta = av_cast(av_load(beta->bytes, beta->dtype), beta->dtype, p3);
    pp.g = (gemm_problem){.M = M, .N = 1, .K = K, .adt = mat->dtype, .ars = mat->strides[0], .acs = mat->strides[1],
                          .bdt = vec->dtype, .brs = vec->strides[0], .bcs = 0, .cdt = p1, .crs = 1, .ccs = 0,
                          .round_to = ACL_DT_UNDEFINED, .mid = ACL_DT_UNDEFINED};
    if (cubeMathType == 2 && (p1 == ACL_FLOAT || p1 == ACL_FLOAT16)) pp.g.round_to = ACL_FLOAT16;
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Addmv, addmv_run, sizeof(addmv_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", pp.self_part);
    if (rc == 0) rc = acl_exec_add_input(ex, mat, "mat", pp.has_mm);
    if (rc == 0) rc = acl_exec_add_input(ex, vec, "vec", pp.has_mm);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(addmv_params *)ex->params = pp;
    return acl_exec_publish(ex, workspaceSize, executor);
}
