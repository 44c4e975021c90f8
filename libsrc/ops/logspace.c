/* aclnnLogSpace (ops-math math/logspace): result[i] = base ** (start + i * (end - start) / (steps - 1)).
 *
 * First phase as the op_api: NULL start, end or result -> 561103 (the op_api reports them as inner null pointers);
 * result's dtype in the A2 list, steps >= 0 (161002); steps == 0 is an early success. The op_api then pours the
 * result into `result` with a view copy; the emulator requires result to hold exactly `steps` elements (161002).
 *
 * Compute as the op_api chains it, in the compute dtype cd = result's dtype (FLOAT when start and end are a
 * FLOAT16/BFLOAT16 pair): start and end converted to cd; a linspace in cd (PyTorch's symmetric formula computed
 * in float32, rounded to cd); base as a float converted to cd; pow in float32 rounded to cd; a cast to result's
 * dtype. The same bytes for any thread count. */
#include <math.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

typedef struct { float start, end, base; int64_t steps; aclDataType cd; } ls_params;

static float to_cd(float v, aclDataType cd) {
    if (cd == ACL_FLOAT) return v;
    uint16_t h;
    acl_convert(&v, ACL_FLOAT, 1, &h, cd, 1, 1);
    acl_convert(&h, cd, 1, &v, ACL_FLOAT, 1, 1);
    return v;
}

static aclnnStatus ls_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ls_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(o->dtype);
    const int64_t n = p->steps;
    const float step = n > 1 ? (p->end - p->start) / (float)(n - 1) : 0.0f;
    ACL_FOR(acl_parallel_worth(n * 16), i, 0, n, {
        float x = n == 1 ? p->start
                         : (i < n / 2 ? p->start + step * (float)i : p->end - step * (float)(n - 1 - i));
        float v = to_cd(powf(p->base, to_cd(x, p->cd)), p->cd);
        /* result's element i in row-major order of its view */
        int64_t r = i, off = 0;
        for (int d = o->ndim - 1; d >= 0; d--) {
            off += (r % o->dims[d]) * o->strides[d];
            r /= o->dims[d];
        }
        acl_convert(&v, ACL_FLOAT, 1, o->base + off * (int64_t)es, o->dtype, 1, 1);
    });
    return ACLNN_SUCCESS;
}

aclnnStatus opws_LogSpace(const aclScalar *start, const aclScalar *end, int64_t steps, double base,
                          const aclTensor *result, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(start != NULL, ACLNN_ERR_INNER_NULLPTR, "start must not be NULL.");
    ACLNN_CHECK(end != NULL, ACLNN_ERR_INNER_NULLPTR, "end must not be NULL.");
    ACLNN_CHECK(result != NULL, ACLNN_ERR_INNER_NULLPTR, "result must not be NULL.");
    ACL_TRY(acl_check_dtype_in(result, ACL_DT_LIST_LogSpace, "result"));
    ACLNN_CHECK(steps >= 0, ACLNN_ERR_PARAM_INVALID, "LogSpace requires non-negative steps, got %lld.",
                (long long)steps);
    if (steps == 0) return acl_exec_noop(ACL_OP_LogSpace, workspaceSize, executor);
    ACLNN_CHECK(acl_dt_known(start->dtype) && acl_dt_known(end->dtype), ACLNN_ERR_PARAM_INVALID,
                "start and end must have a numeric dtype.");
    ACLNN_CHECK(acl_tensor_numel(result) == steps, ACLNN_ERR_PARAM_INVALID,
                "result has %lld elements; the sequence has %lld.", (long long)acl_tensor_numel(result),
                (long long)steps);
    aclDataType cd = result->dtype;
    if ((start->dtype == ACL_FLOAT16 && end->dtype == ACL_BF16) || (start->dtype == ACL_BF16 && end->dtype == ACL_FLOAT16))
        cd = ACL_FLOAT;
    ls_params p = {0, 0, 0, steps, cd};
    /* each value converted straight to cd (one rounding), then held as float */
    unsigned char tmp[16];
    acl_convert(start->bytes, start->dtype, 1, tmp, cd, 1, 1);
    acl_convert(tmp, cd, 1, &p.start, ACL_FLOAT, 1, 1);
    acl_convert(end->bytes, end->dtype, 1, tmp, cd, 1, 1);
    acl_convert(tmp, cd, 1, &p.end, ACL_FLOAT, 1, 1);
    float fb = (float)base; /* the op_api's AllocScalar(static_cast<float>(base)) */
    p.base = to_cd(fb, cd);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_LogSpace, ls_run, sizeof(ls_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_output(ex, result, "result");
    if (rc) return acl_exec_discard(ex, rc);
    *(ls_params *)ex->params = p;
    return acl_exec_publish(ex, workspaceSize, executor);
}
