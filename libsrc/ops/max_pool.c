/* aclnnMaxPool (ops-nn pooling/max_pool_v3): 2-d max pooling of a CHW or NCHW tensor, ONNX-style attributes:
 * kernelShape (1 or 2), strides (0, 1 or 2; empty = 1), autoPad (0 = NOTSET only), pads (0, 1, 2 or 4: [hBegin,
 * wBegin, hEnd, wEnd]), dilations (0, 1, 2 or 4 values, all 1), ceilMode (non-zero: ceil). Padded positions never
 * win (they are -inf); a window made only of padding gives -inf. NaN propagates (a window with a NaN gives NaN).
 *
 * Validation in the op_api source's order: NULL self/kernelShape/strides/pads/dilations/out 161001; self's dtype
 * (A2: f16, f32) and out's equal; equal formats, not private, 3 or 4 dims; the attribute sizes, autoPad, dilations;
 * kernel and strides > 0, pad sums <= kernel, C/H/W non-zero, a positive output size, out's shape - all 161002. An
 * empty self (N = 0) returns an executor that does nothing.
 *
 * Compute: the values are read as float (exact for f16/f32), the max is exact, stored back unchanged. Each output
 * is written by one iteration: the same bytes for any OMP_NUM_THREADS. */
#include <math.h>

#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

typedef struct {
    int64_t planes, h, w, oh, ow, kh, kw, sh, sw, ph, pw;
} mp_params;

/* the input rows [lo, hi) of output index o: its window [o * s - pad, o * s - pad + k) clipped to [0, n), computed
 * without overflow for any attribute values phase 1 accepted */
static void mp_window(int64_t o, int64_t s, int64_t pad, int64_t k, int64_t n, int64_t *lo, int64_t *hi) {
    const __int128 a = (__int128)o * s - pad, b = a + k;
    *lo = a < 0 ? 0 : a > n ? n : (int64_t)a;
    *hi = b < 0 ? 0 : b > n ? n : (int64_t)b;
}

static aclnnStatus mp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mp_params *p = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *yv = acl_exec_out(ex, 0);
    float *x = md_load(xv, ACL_FLOAT), *y = md_alloc(p->planes * p->oh * p->ow, sizeof(float));
    aclnnStatus rc = OOM;
    if (x && y) {
        const int64_t rows = p->planes * p->oh;
        const int64_t kk = (p->kh < p->h ? p->kh : p->h) * (p->kw < p->w ? p->kw : p->w);
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * p->ow * kk))
        for (int64_t r = 0; r < rows; r++) {
            const int64_t pl = r / p->oh, i = r % p->oh;
            int64_t h0, h1;
            mp_window(i, p->sh, p->ph, p->kh, p->h, &h0, &h1);
            const float *xp = x + pl * p->h * p->w;
            for (int64_t j = 0; j < p->ow; j++) {
                int64_t w0, w1;
                mp_window(j, p->sw, p->pw, p->kw, p->w, &w0, &w1);
                float m = -INFINITY;
                for (int64_t a = h0; a < h1; a++)
                    for (int64_t b = w0; b < w1; b++) {
                        const float v = xp[a * p->w + b];
                        if (v > m || isnan(v)) m = v;
                        if (isnan(m)) goto nan_found;
                    }
            nan_found:
                y[r * p->ow + j] = m;
            }
        }
        rc = md_store_via(y, ACL_FLOAT, yv->dtype, yv);
    }
    free(x);
    free(y);
    return rc;
}

static aclnnStatus mp_size(const aclIntArray *a, bool zero, bool four, const char *name) {
    const uint64_t n = a->size;
    ACLNN_CHECK(n == 1 || n == 2 || (zero && n == 0) || (four && n == 4), ACLNN_ERR_PARAM_INVALID,
                "The size of %s must be %s, but got %llu.", name,
                four ? "zero, one, two or four" : zero ? "zero, one or two" : "one or two", (unsigned long long)n);
    return ACLNN_SUCCESS;
}

/* PyTorch's pooling output size (floor division rounding toward -inf; the ceil mode's last-window rule) */
static int64_t mp_out(int64_t in, int64_t k, int64_t pl, int64_t pr, int64_t s, bool ceil_mode) {
    const __int128 num = (__int128)in + pl + pr - (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    __int128 q = num / s;
    if (num % s != 0 && (num < 0) != (s < 0)) q--;
    __int128 o = q + 1;
    if (ceil_mode && (o - 1) * s >= (__int128)in + pl) o--;
    return o > INT64_MAX ? INT64_MAX : o < INT64_MIN ? INT64_MIN : (int64_t)o;
}

aclnnStatus opws_MaxPool(const aclTensor *self, const aclIntArray *kernelShape, const aclIntArray *strides,
                         const int64_t autoPad, const aclIntArray *pads, const aclIntArray *dilations,
                         const int64_t ceilMode, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(kernelShape, "kernelShape"));
    ACL_TRY(acl_check_int_array(strides, "strides"));
    ACL_TRY(acl_check_int_array(pads, "pads"));
    ACL_TRY(acl_check_int_array(dilations, "dilations"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaxPool, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "Format of self %s and out %s should be the same.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID,
                "self's format %s is private: only NCHW or CHW.", acl_format_name(self->format));
    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID,
                "self should be a 3-d or 4-d tensor, but has %llu dims.", (unsigned long long)self->ndim);
    ACL_TRY(mp_size(kernelShape, false, false, "kernelShape"));
    ACL_TRY(mp_size(strides, true, false, "strides"));
    ACL_TRY(mp_size(pads, true, true, "pads"));
    ACL_TRY(mp_size(dilations, true, true, "dilations"));
    ACLNN_CHECK(autoPad == 0, ACLNN_ERR_PARAM_INVALID, "autoPad must be 0 (NOTSET), but got %lld.",
                (long long)autoPad);
    for (uint64_t i = 0; i < dilations->size; i++)
        ACLNN_CHECK(dilations->v[i] == 1, ACLNN_ERR_PARAM_INVALID,
                    "dilation value along each spatial axis only supports 1, but dilations[%llu] is %lld.",
                    (unsigned long long)i, (long long)dilations->v[i]);
    const int64_t kh = kernelShape->v[0], kw = kernelShape->size == 1 ? kh : kernelShape->v[1];
    ACLNN_CHECK(kh > 0 && kw > 0, ACLNN_ERR_PARAM_INVALID, "kernelShape (%lld, %lld) should be greater than 0.",
                (long long)kh, (long long)kw);
    const int64_t sh = strides->size == 0 ? 1 : strides->v[0];
    const int64_t sw = strides->size == 0 ? 1 : strides->size == 1 ? sh : strides->v[1];
    ACLNN_CHECK(sh > 0 && sw > 0, ACLNN_ERR_PARAM_INVALID, "strides (%lld, %lld) should be greater than 0.",
                (long long)sh, (long long)sw);
    int64_t phl = 0, phr = 0, pwl = 0, pwr = 0;
    const int64_t *pv = pads->v;
    if (pads->size == 1) phl = phr = pwl = pwr = pv[0];
    else if (pads->size == 2) {
        phl = phr = pv[0];
        pwl = pwr = pv[1];
    } else if (pads->size == 4) {
        phl = pv[0];
        pwl = pv[1];
        phr = pv[2];
        pwr = pv[3];
    }
    ACLNN_CHECK((__int128)phl + phr <= kh && (__int128)pwl + pwr <= kw, ACLNN_ERR_PARAM_INVALID,
                "pads: the sum of the beginning and ending padding along each axis should be at most the kernel size "
                "(kh %lld, kw %lld), but got %lld, %lld, %lld, %lld.", (long long)kh, (long long)kw, (long long)phl,
                (long long)phr, (long long)pwl, (long long)pwr);
    ACLNN_CHECK(phl >= 0 && phr >= 0 && pwl >= 0 && pwr >= 0, ACLNN_ERR_PARAM_INVALID,
                "pads should not be negative.");
    const bool is3 = self->ndim == 3;
    const int64_t nb = is3 ? 1 : self->dims[0], c = self->dims[is3 ? 0 : 1], h = self->dims[is3 ? 1 : 2],
                  w = self->dims[is3 ? 2 : 3];
    ACLNN_CHECK(c != 0 && h != 0 && w != 0, ACLNN_ERR_PARAM_INVALID,
                "self should have non-zero C, H and W (an optional 0 batch only), but got %lld, %lld, %lld.",
                (long long)c, (long long)h, (long long)w);
    const bool cm = ceilMode != 0;
    const int64_t oh = mp_out(h, kh, phl, phr, sh, cm), ow = mp_out(w, kw, pwl, pwr, sw, cm);
    ACLNN_CHECK(oh > 0 && ow > 0, ACLNN_ERR_PARAM_INVALID, "Given input size %lldx%lldx%lld, calc out size "
                "%lldx%lldx%lld.", (long long)c, (long long)h, (long long)w, (long long)c, (long long)oh,
                (long long)ow);
    const int64_t want[4] = {nb, c, oh, ow};
    if (!md_shape_is(out, is3 ? want + 1 : want, is3 ? 3 : 4)) {
        char s[256];
        acl_shape_str(out, s, sizeof s);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "out's shape %s should be [%s%lld, %lld, %lld].", s,
                          is3 ? "" : "N, ", (long long)c, (long long)oh, (long long)ow);
    }
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_MaxPool, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_MaxPool, mp_run, sizeof(mp_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(mp_params *)ex->params = (mp_params){nb * c, h, w, oh, ow, kh, kw, sh, sw, phl, pwl};
    return acl_exec_publish(ex, workspaceSize, executor);
}
