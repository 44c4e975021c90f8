/* RReluWithNoise / InplaceRReluWithNoise (activation/leaky_relu op_api, aclnn_rrelu_with_noise.cpp).
 *
 * training: a = lower + (upper - lower) * u_i in float, u_i = philox_uniform_f(seed, offset, i) for element i of
 * self in row-major order (libsrc/common/philox.h; the device's DSA generator is not reproduced, only the law);
 * noise_i = self_i < 0 ? a rounded to the dtype : 1 (op_api's Less mask: self_i == 0 gets 1, the doc's table says
 * a; the output is 0 either way); out_i = self_i * noise_i computed in float, rounded once. When noise has more
 * elements than self, only its first numel(self) elements (row-major) are written (op_api's slice + concat).
 * eval: out = LeakyRelu(self, (lower + upper) / 2), noise untouched.
 * Validation order: NULL (self, noise, lower, upper, out), dtypes (self, noise, lower, upper, out in their lists,
 * self == out, noise == out), shapes (out == self; training: numel(self) <= numel(noise)), at most 32 dims, formats.
 * Empty self or noise: nothing to run. Views of more than 8 dims run folded (ops/view_fold.h). Every element is
 * owned by one thread: the bytes never depend on the thread count. */
#include "common/parallel.h"
#include "common/philox.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"
#include "ops/view_fold.h"

#define RRN_MAX_DIM 32 /* the op_api's limit for self and noise */

typedef struct {
    bool training;
    float lower, upper;
    uint64_t seed, offset;
} rrn_params;

static aclnnStatus rrn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rrn_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *nz = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const int64_t n = md_numel(x);
    float *xv = md_load(x, ACL_FLOAT), *nv = p->training ? md_load(nz, ACL_FLOAT) : NULL;
    if (!xv || (p->training && !nv)) {
        free(xv);
        free(nv);
        return OOM;
    }
    const aclDataType dt = o->dtype;
    if (p->training) {
        const float span = p->upper - p->lower;
        ACL_FOR(n > 65536, i, 0, n, {
            float r = 1.0f;
            if (xv[i] < 0.0f) {
                const float a = p->lower + span * philox_uniform_f(p->seed, p->offset, (uint64_t)i);
                acl_convert(&a, ACL_FLOAT, 1, &r, dt, 1, 1); /* round a to the dtype ... */
                float rr;
                acl_convert(&r, dt, 1, &rr, ACL_FLOAT, 1, 1); /* ... and back */
                r = rr;
            }
            nv[i] = r;
            xv[i] = xv[i] * r;
        });
        md_store(nv, ACL_FLOAT, nz);
    } else {
        const float slope = (p->lower + p->upper) / 2.0f;
#pragma omp parallel for schedule(static) if (n > 65536)
        for (int64_t i = 0; i < n; i++)
            if (!(xv[i] > 0.0f)) xv[i] = xv[i] * slope;
    }
    md_store(xv, ACL_FLOAT, o);
    free(xv);
    free(nv);
    return ACLNN_SUCCESS;
}

static const aclDataType RRN_SCALAR[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

static aclnnStatus rrn_scalar_dtype(const aclScalar *s, const char *name) {
    for (size_t k = 0; k < sizeof RRN_SCALAR / sizeof RRN_SCALAR[0]; k++)
        if (s->dtype == RRN_SCALAR[k]) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list [FLOAT, FLOAT16, BFLOAT16, "
                      "DOUBLE].", name, acl_dtype_name(s->dtype));
}

static aclnnStatus rrn_common(int op, const aclTensor *self, const aclTensor *noise, const aclScalar *lower,
                              const aclScalar *upper, bool training, int64_t seed, int64_t offset,
                              const aclTensor *out, const char *outname, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(noise, "noise");
    ACLNN_CHECK(lower != NULL, ACLNN_ERR_PARAM_NULLPTR, "lower must not be NULL.");
    ACLNN_CHECK(upper != NULL, ACLNN_ERR_PARAM_NULLPTR, "upper must not be NULL.");
    NN(out, outname);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_RReluWithNoise, "self"));
    ACL_TRY(acl_check_dtype_in(noise, ACL_DT_LIST_RReluWithNoise, "noise"));
    ACL_TRY(rrn_scalar_dtype(lower, "lower"));
    ACL_TRY(rrn_scalar_dtype(upper, "upper"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_RReluWithNoise, outname));
    ACL_TRY(acl_check_same_dtype(self, "self", out, outname));
    ACL_TRY(acl_check_same_dtype(noise, "noise", out, outname));
    ACL_TRY(acl_check_same_shape(self, "self", out, outname));
    if (training)
        ACLNN_CHECK(acl_tensor_numel(self) <= acl_tensor_numel(noise), ACLNN_ERR_PARAM_INVALID,
                    "noise: tensor size of self larger than noise, self: %lld, noise: %lld.",
                    (long long)acl_tensor_numel(self), (long long)acl_tensor_numel(noise));
    /* the op_api's format check follows its shape checks: self and noise of at most 32 dims, in out's storage
     * format */
    ACLNN_CHECK(self->ndim <= RRN_MAX_DIM, ACLNN_ERR_PARAM_INVALID, "self has %llu dims; at most %d are supported.",
                (unsigned long long)self->ndim, RRN_MAX_DIM);
    ACLNN_CHECK(noise->ndim <= RRN_MAX_DIM, ACLNN_ERR_PARAM_INVALID, "noise has %llu dims; at most %d are supported.",
                (unsigned long long)noise->ndim, RRN_MAX_DIM);
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "self format %s should be the same as %s's %s.",
                acl_format_name(self->format), outname, acl_format_name(out->format));
    ACLNN_CHECK(noise->format == out->format, ACLNN_ERR_PARAM_INVALID, "noise format %s should be the same as %s's %s.",
                acl_format_name(noise->format), outname, acl_format_name(out->format));
    if (acl_tensor_empty(self) || acl_tensor_empty(noise)) return acl_exec_noop(op, ws, exo);
    rrn_params p = {training, 0, 0, (uint64_t)seed, (uint64_t)offset};
    acl_convert(lower->bytes, lower->dtype, 1, &p.lower, ACL_FLOAT, 1, 1);
    acl_convert(upper->bytes, upper->dtype, 1, &p.upper, ACL_FLOAT, 1, 1);
    /* more than 8 dims: each tensor as its folded view (the kernel pairs elements by row-major position) */
    aclTensor fold[3];
    const aclTensor *sv, *nzv, *ov;
    ACL_TRY(vf_fit(self, "self", &fold[0], &sv));
    ACL_TRY(vf_fit(noise, "noise", &fold[1], &nzv));
    ACL_TRY(vf_fit(out, outname, &fold[2], &ov));
    const aclTensor *ins[] = {sv, nzv}, *outs[] = {ov, nzv};
    const char *inn[] = {"self", "noise"}, *outn[] = {outname, "noise"};
    void *params = NULL;
    aclnnStatus rc = dn_exec(op, rrn_run, sizeof p, ins, inn, 2, outs, outn, training ? 2 : 1, ws, exo, &params);
    if (rc == ACLNN_SUCCESS) memcpy(params, &p, sizeof p);
    return rc;
}

aclnnStatus opws_RReluWithNoise(const aclTensor *self, const aclTensor *noise, const aclScalar *lower,
                                const aclScalar *upper, bool training, int64_t seed, int64_t offset, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    return rrn_common(ACL_OP_RReluWithNoise, self, noise, lower, upper, training, seed, offset, out, "out",
                      workspaceSize, executor);
}

aclnnStatus opws_InplaceRReluWithNoise(const aclTensor *self, const aclTensor *noise, const aclScalar *lower,
                                       const aclScalar *upper, bool training, int64_t seed, int64_t offset,
                                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    return rrn_common(ACL_OP_InplaceRReluWithNoise, self, noise, lower, upper, training, seed, offset, self, "self",
                      workspaceSize, executor);
}
