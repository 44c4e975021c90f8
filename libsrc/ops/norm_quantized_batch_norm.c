/* aclnnQuantizedBatchNorm (ops-nn norm/quantized_batch_norm): inference batch norm between a dequantisation and a
 * quantisation, over an NCHW input of INT8 / UINT8 / INT32
 *   x' = (x - inputZeroPoint) * inputScale
 *   y  = (x' - mean[c]) / sqrt(var[c] + epsilon) * weight[c] + bias[c]     (weight NULL: 1, bias NULL: 0)
 *   output = round(y / outputScale + outputZeroPoint)
 * rounded half away from zero (the kernel's CAST_ROUND), NaN -> 0, saturated to the range of input's dtype (the
 * kernel's result dtype) and of output's. Computed in float64, rounded once. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/ops.h"

typedef struct { nm_io io; int64_t N, C, S; double is, iz, os, oz, eps, lo, hi; } qbn_params;

static void dt_range(aclDataType d, double *lo, double *hi) {
    if (d == ACL_INT8) *lo = -128.0, *hi = 127.0;
    else if (d == ACL_UINT8) *lo = 0.0, *hi = 255.0;
    else *lo = (double)INT32_MIN, *hi = (double)INT32_MAX;
}

static aclnnStatus qbn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const qbn_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *mean = nm_load(nm_in(ex, 1), &oom), *var = nm_load(nm_in(ex, 2), &oom);
    double *w = nm_load(nm_in(ex, 3), &oom), *b = nm_load(nm_in(ex, 4), &oom);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom) {
        rc = OOM;
    } else {
        for (int64_t n = 0; n < p->N; n++)
            for (int64_t c = 0; c < p->C; c++) {
                const double r = 1.0 / sqrt(var[c] + p->eps), wc = w ? w[c] : 1.0, bc = b ? b[c] : 0.0;
                double *v = x + (n * p->C + c) * p->S;
                for (int64_t s = 0; s < p->S; s++) {
                    const double xd = (v[s] - p->iz) * p->is;
                    const double y = (xd - mean[c]) * r * wc + bc;
                    double q = round(y / p->os + p->oz); /* half away from zero */
                    if (isnan(q)) q = 0.0;
                    v[s] = q < p->lo ? p->lo : q > p->hi ? p->hi : q;
                }
            }
        nm_store(x, nm_out(ex, 0));
    }
    free(x), free(mean), free(var), free(w), free(b);
    return rc;
}

static const aclDataType k_x[] = {ACL_INT8, ACL_UINT8, ACL_INT32};

static aclnnStatus scalar_nn(const aclScalar *s, const char *name) {
    ACLNN_CHECK(s != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s should not be NULL.", name);
    return ACLNN_SUCCESS;
}
static aclnnStatus scalar_dt(const aclScalar *s, aclDataType d, const char *name) {
    ACLNN_CHECK(s->dtype == d, ACLNN_ERR_PARAM_INVALID, "%s's dtype %s should be %s.", name,
                acl_dtype_name(s->dtype), acl_dtype_name(d));
    return ACLNN_SUCCESS;
}
static aclnnStatus channel_vec(const aclTensor *t, int64_t C, const char *name) {
    ACLNN_CHECK(!t || (t->ndim == 1 && t->dims[0] == C), ACLNN_ERR_PARAM_INVALID, "%s should have one dim of the "
                "input's channel count %lld.", name, (long long)C);
    return ACLNN_SUCCESS;
}
static aclnnStatus not_empty(const aclTensor *t, const char *name) {
    ACLNN_CHECK(!t || !acl_tensor_empty(t), ACLNN_ERR_PARAM_INVALID, "%s should not be empty.", name);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_QuantizedBatchNorm(const aclTensor *input, const aclTensor *mean, const aclTensor *var,
                                    const aclScalar *inputScale, const aclScalar *inputZeroPoint,
                                    const aclScalar *outputScale, const aclScalar *outputZeroPoint, aclTensor *weight,
                                    aclTensor *bias, float epsilon, aclTensor *output, uint64_t *workspaceSize,
                                    aclOpExecutor **executor) {
    NN(input, "input");
    NN(output, "output");
    NN(mean, "mean");
    NN(var, "var");
    ACL_TRY(scalar_nn(inputScale, "inputScale"));
    ACL_TRY(scalar_nn(inputZeroPoint, "inputZeroPoint"));
    ACL_TRY(scalar_nn(outputScale, "outputScale"));
    ACL_TRY(scalar_nn(outputZeroPoint, "outputZeroPoint"));
    if (weight) NN(weight, "weight");
    if (bias) NN(bias, "bias");
    ACL_TRY(not_empty(input, "input"));
    ACL_TRY(not_empty(mean, "mean"));
    ACL_TRY(not_empty(var, "var"));
    ACL_TRY(not_empty(weight, "weight"));
    ACL_TRY(not_empty(bias, "bias"));
    ACL_TRY(acl_check_dtype_in(input, k_x, 3, "input"));
    ACL_TRY(acl_check_dtype_in(output, k_x, 3, "output"));
    ACLNN_CHECK(input->format == output->format, ACLNN_ERR_PARAM_INVALID, "the formats of input (%d) and output (%d) "
                "should be equal.", (int)input->format, (int)output->format);
    ACLNN_CHECK(!acl_format_is_private(input->format), ACLNN_ERR_PARAM_INVALID, "input's format should be NCHW "
                "(not a private format).");
    ACL_TRY(nm_same_shape(output, "output", input, "input"));
    if (weight) ACL_TRY(nm_dtype_is(weight, ACL_FLOAT, "weight"));
    if (bias) ACL_TRY(nm_dtype_is(bias, ACL_FLOAT, "bias"));
    ACL_TRY(nm_dtype_is(mean, ACL_FLOAT, "mean"));
    ACL_TRY(nm_dtype_is(var, ACL_FLOAT, "var"));
    /* the channel count is input's dim 1: a 0-d or 1-d input has none (the 4-d rule below) */
    ACLNN_CHECK(input->ndim >= 2, ACLNN_ERR_PARAM_INVALID, "input should be 4-d (NCHW), but has %llu dims.",
                (unsigned long long)input->ndim);
    const int64_t C = input->dims[1];
    ACL_TRY(channel_vec(weight, C, "weight"));
    ACL_TRY(channel_vec(bias, C, "bias"));
    ACL_TRY(channel_vec(mean, C, "mean"));
    ACL_TRY(channel_vec(var, C, "var"));
    ACL_TRY(scalar_dt(inputScale, ACL_FLOAT, "inputScale"));
    ACL_TRY(scalar_dt(inputZeroPoint, ACL_INT32, "inputZeroPoint"));
    ACL_TRY(scalar_dt(outputScale, ACL_FLOAT, "outputScale"));
    ACL_TRY(scalar_dt(outputZeroPoint, ACL_INT32, "outputZeroPoint"));
    ACLNN_CHECK(input->ndim == 4, ACLNN_ERR_PARAM_INVALID, "input should be 4-d (NCHW), but has %llu dims.",
                (unsigned long long)input->ndim);
    const aclTensor *ins[] = {input, mean, var, weight, bias}, *outs[] = {output};
    const char *inn[] = {"input", "mean", "var", "weight", "bias"}, *outn[] = {"output"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_QuantizedBatchNorm, qbn_run, sizeof(qbn_params), ins, inn, 5, outs, outn, 1,
                    workspaceSize, executor, &pp));
    qbn_params *p = pp;
    p->N = input->dims[0];
    p->C = C;
    p->S = input->dims[2] * input->dims[3];
    p->is = (float)acl_read_f64(inputScale->bytes, inputScale->dtype);
    p->iz = (double)(int32_t)acl_read_f64(inputZeroPoint->bytes, inputZeroPoint->dtype);
    p->os = (float)acl_read_f64(outputScale->bytes, outputScale->dtype);
    p->oz = (double)(int32_t)acl_read_f64(outputZeroPoint->bytes, outputZeroPoint->dtype);
    p->eps = (double)epsilon;
    double lo1, hi1, lo2, hi2;
    dt_range(input->dtype, &lo1, &hi1);
    dt_range(output->dtype, &lo2, &hi2);
    p->lo = lo1 > lo2 ? lo1 : lo2;
    p->hi = hi1 < hi2 ? hi1 : hi2;
    return ACLNN_SUCCESS;
}
