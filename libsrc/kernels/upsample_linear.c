/* Separable linear / cubic resampling (see upsample_linear.h). */
#include "kernels/upsample_linear.h"
#include "common/level_fn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "common/cpu.h"
#include "common/half_rows.h"
#include "kernels/f16_rows.h"

static int axis_alloc(upl_axis *a, int64_t n_dst, int64_t n_src, int64_t nnz) {
    memset(a, 0, sizeof(*a));
    a->n_dst = n_dst;
    a->n_src = n_src;
    a->ptr = malloc((size_t)(n_dst + 1) * sizeof(int64_t));
    a->src = malloc((size_t)(nnz ? nnz : 1) * sizeof(int64_t));
    a->wf = malloc((size_t)(nnz ? nnz : 1) * sizeof(float));
    a->wd = malloc((size_t)(nnz ? nnz : 1) * sizeof(double));
    if (!a->ptr || !a->src || !a->wf || !a->wd) {
        upl_axis_free(a);
        return -1;
    }
    return 0;
}

void upl_axis_free(upl_axis *a) {
    free(a->src32);
    free(a->fsrc);
    free(a->fwf);
    free(a->fwd);
    free(a->ptr);
    free(a->src);
    free(a->wf);
    free(a->wd);
    memset(a, 0, sizeof(*a));
}

int upl_axis_unit(upl_axis *a) {
    if (axis_alloc(a, 1, 1, 1)) return -1;
    a->ptr[0] = 0;
    a->ptr[1] = 1;
    a->src[0] = 0;
    a->wf[0] = 1.0f;
    a->wd[0] = 1.0;
    a->identity = 1;
    return 0;
}

/* The cubic convolution coefficients (A = -0.75) of the 4 taps around fraction t, in type T. */
#define UPL_CUBIC_COEFFS(T, t, c)                                                                                  \
    do {                                                                                                           \
        const T A_ = (T)-0.75, x1_ = (t), x2_ = (T)1 - (t);                                                        \
        const T u0_ = x1_ + (T)1, u3_ = x2_ + (T)1;                                                                \
        (c)[0] = ((A_ * u0_ - (T)5 * A_) * u0_ + (T)8 * A_) * u0_ - (T)4 * A_;                                     \
        (c)[1] = ((A_ + (T)2) * x1_ - (A_ + (T)3)) * x1_ * x1_ + (T)1;                                             \
        (c)[2] = ((A_ + (T)2) * x2_ - (A_ + (T)3)) * x2_ * x2_ + (T)1;                                             \
        (c)[3] = ((A_ * u3_ - (T)5 * A_) * u3_ + (T)8 * A_) * u3_ - (T)4 * A_;                                     \
    } while (0)

static int64_t clamp_idx(int64_t v, int64_t n) { return v < 0 ? 0 : (v >= n ? n - 1 : v); }

/* Taps of destination d in type T: linear -> 2 taps, cubic -> 4 (PyTorch's source-index and lambda rules). */
#define UPL_TAPS(T, FLOOR, in_len, out_len, mode, align, scale, d, idx, w)                                         \
    do {                                                                                                           \
        T r_;                                                                                                      \
        if (align) r_ = (out_len) > 1 ? (T)((in_len) - 1) / (T)((out_len) - 1) : (T)0;                            \
        else r_ = (scale) > 0 ? (T)(1.0 / (scale)) : (T)(in_len) / (T)(out_len);                                   \
        if ((mode) == UPL_LINEAR) {                                                                                \
            T src_ = (align) ? r_ * (T)(d) : r_ * ((T)(d) + (T)0.5) - (T)0.5;                                       \
            if (!(align) && src_ < (T)0) src_ = 0;                                                                 \
            if (!(src_ == src_) || src_ < (T)0) src_ = 0;                                                          \
            if (src_ > (T)(in_len)) src_ = (T)(in_len);                                                            \
            int64_t i0_ = (int64_t)FLOOR(src_);                                                                    \
            if (i0_ > (in_len) - 1) i0_ = (in_len) - 1;                                                            \
            T l1_ = src_ - (T)i0_;                                                                                 \
            if (l1_ < (T)0) l1_ = 0;                                                                               \
            if (l1_ > (T)1) l1_ = 1;                                                                               \
            (idx)[0] = i0_;                                                                                        \
            (idx)[1] = i0_ < (in_len) - 1 ? i0_ + 1 : i0_;                                                         \
            (w)[0] = (T)1 - l1_;                                                                                   \
            (w)[1] = l1_;                                                                                          \
        } else {                                                                                                   \
            T src_ = (align) ? r_ * (T)(d) : r_ * ((T)(d) + (T)0.5) - (T)0.5;                                       \
            if (!(src_ == src_)) src_ = 0;                                                                         \
            if (src_ < (T)-4) src_ = (T)-4;                                                                        \
            if (src_ > (T)(in_len) + (T)4) src_ = (T)(in_len) + (T)4;                                              \
            const T fl_ = FLOOR(src_);                                                                             \
            const int64_t i_ = (int64_t)fl_;                                                                       \
            const T t_ = src_ - fl_;                                                                               \
            UPL_CUBIC_COEFFS(T, t_, w);                                                                            \
            for (int k_ = 0; k_ < 4; k_++) (idx)[k_] = clamp_idx(i_ - 1 + k_, in_len);                             \
        }                                                                                                          \
    } while (0)

int upl_axis_forward(upl_axis *a, int64_t in_len, int64_t out_len, int mode, int align_corners, double scale,
                     int f64) {
    const int taps = mode == UPL_LINEAR ? 2 : 4;
    if (in_len == out_len) {
        if (axis_alloc(a, out_len, in_len, out_len)) return -1;
        for (int64_t d = 0; d < out_len; d++) {
            a->ptr[d] = d;
            a->src[d] = d;
            a->wf[d] = 1.0f;
            a->wd[d] = 1.0;
        }
        a->ptr[out_len] = out_len;
        a->identity = 1;
        return 0;
    }
    if (axis_alloc(a, out_len, in_len, out_len * taps)) return -1;
    for (int64_t d = 0; d < out_len; d++) {
        int64_t idx[4];
        float wf[4];
        double wd[4];
        if (f64) {
            UPL_TAPS(double, floor, in_len, out_len, mode, align_corners, scale, d, idx, wd);
            for (int k = 0; k < taps; k++) wf[k] = (float)wd[k];
        } else {
            UPL_TAPS(float, floorf, in_len, out_len, mode, align_corners, scale, d, idx, wf);
            for (int k = 0; k < taps; k++) wd[k] = wf[k];
        }
        for (int k = 0; k < taps; k++) {
            a->src[d * taps + k] = idx[k];
            a->wf[d * taps + k] = wf[k];
            a->wd[d * taps + k] = wd[k];
        }
        a->ptr[d] = d * taps;
    }
    a->ptr[out_len] = out_len * taps;
    a->k = taps;
    /* optional: without it the gather reads the int64 list */
    if ((taps == 2 || taps == 4) && in_len <= INT32_MAX &&
        (a->src32 = malloc((size_t)(out_len * taps) * sizeof(int32_t))) != NULL)
        for (int64_t i = 0; i < out_len * taps; i++) a->src32[i] = (int32_t)a->src[i];
    return 0;
}


/* PyTorch's antialiasing weights (interp 2: triangle filter, 4: Keys cubic with a = -0.5), in type T */
#define UPL_AA_FILTER(T, cubic, x, out)                                                                            \
    do {                                                                                                           \
        T ax_ = (x) < (T)0 ? -(x) : (x);                                                                           \
        if (!(cubic)) (out) = ax_ < (T)1 ? (T)1 - ax_ : (T)0;                                                      \
        else {                                                                                                     \
            const T A_ = (T)-0.5;                                                                                  \
            if (ax_ < (T)1) (out) = ((A_ + (T)2) * ax_ - (A_ + (T)3)) * ax_ * ax_ + (T)1;                          \
            else if (ax_ < (T)2) (out) = ((A_ * ax_ - (T)5 * A_) * ax_ + (T)8 * A_) * ax_ - (T)4 * A_;            \
            else (out) = (T)0;                                                                                     \
        }                                                                                                          \
    } while (0)

#define UPL_AA_BUILD(T, WARR)                                                                                      \
    do {                                                                                                           \
        T r_;                                                                                                      \
        if (align_corners) r_ = out_len > 1 ? (T)(in_len - 1) / (T)(out_len - 1) : (T)0;                          \
        else r_ = scale > 0 ? (T)(1.0 / scale) : (T)in_len / (T)out_len;                                           \
        const T half_ = (T)(cubic ? 2 : 1);                                                                        \
        const T support_ = r_ >= (T)1 ? half_ * r_ : half_;                                                        \
        const T inv_ = r_ >= (T)1 ? (T)1 / r_ : (T)1;                                                              \
        int64_t nnz_ = 0;                                                                                          \
        for (int64_t d = 0; d < out_len; d++) {                                                                    \
            const T center_ = (T)((double)r_ * ((double)d + 0.5));                                                 \
            int64_t lo_ = upl_trunc((double)center_ - (double)support_ + 0.5);                                     \
            if (lo_ < 0) lo_ = 0;                                                                                  \
            int64_t hi_ = upl_trunc((double)center_ + (double)support_ + 0.5);                                     \
            if (hi_ > in_len) hi_ = in_len;                                                                        \
            a->ptr[d] = nnz_;                                                                                      \
            T total_ = 0;                                                                                          \
            const int64_t first_ = nnz_;                                                                           \
            for (int64_t j = lo_; j < hi_; j++) {                                                                  \
                const T arg_ = (T)(((double)((T)j - center_) + 0.5) * (double)inv_);                               \
                T w_;                                                                                              \
                UPL_AA_FILTER(T, cubic, arg_, w_);                                                                 \
                a->src[nnz_] = j;                                                                                  \
                WARR[nnz_++] = w_;                                                                                 \
                total_ += w_;                                                                                      \
            }                                                                                                      \
            if (total_ != (T)0)                                                                                    \
                for (int64_t e = first_; e < nnz_; e++) WARR[e] /= total_;                                         \
        }                                                                                                          \
        a->ptr[out_len] = nnz_;                                                                                    \
    } while (0)

int upl_axis_aa(upl_axis *a, int64_t in_len, int64_t out_len, int cubic, int align_corners, double scale, int f64) {
    if (in_len == out_len) return upl_axis_forward(a, in_len, out_len, UPL_LINEAR, 0, 0, f64);
    /* the widest window: 2 * support + 2 source positions */
    double r = align_corners ? (out_len > 1 ? (double)(in_len - 1) / (double)(out_len - 1) : 0.0)
                             : (scale > 0 ? 1.0 / scale : (double)in_len / (double)out_len);
    double support = (cubic ? 2.0 : 1.0) * (r >= 1.0 ? r : 1.0);
    int64_t width = support < (double)in_len ? (int64_t)(2.0 * support) + 3 : in_len;
    if (width > in_len) width = in_len;
    if (axis_alloc(a, out_len, in_len, out_len * width)) return -1;
    if (f64) {
        UPL_AA_BUILD(double, a->wd);
        for (int64_t e = 0; e < a->ptr[out_len]; e++) a->wf[e] = (float)a->wd[e];
    } else {
        UPL_AA_BUILD(float, a->wf);
        for (int64_t e = 0; e < a->ptr[out_len]; e++) a->wd[e] = a->wf[e];
    }
    a->k = 0;
    return 0;
}


int upl_axis_nearest_legacy(upl_axis *a, int64_t in_len, int64_t out_len) {
    if (in_len == out_len) return upl_axis_forward(a, in_len, out_len, UPL_LINEAR, 0, 0, 0);
    if (axis_alloc(a, out_len, in_len, out_len)) return -1;
    const float r = (float)in_len / (float)out_len;
    for (int64_t d = 0; d < out_len; d++) {
        int64_t s = (int64_t)floorf((float)d * r);
        a->src[d] = s < in_len - 1 ? s : in_len - 1;
        a->wf[d] = 1.0f;
        a->wd[d] = 1.0;
        a->ptr[d] = d;
    }
    a->ptr[out_len] = out_len;
    a->k = 1;
    return 0;
}

int upl_axis_transpose(upl_axis *t, const upl_axis *f) {
    const int64_t nnz = f->ptr[f->n_dst];
    if (axis_alloc(t, f->n_src, f->n_dst, nnz)) return -1;
    t->identity = f->identity == 1;
    for (int64_t i = 0; i <= f->n_src; i++) t->ptr[i] = 0;
    for (int64_t e = 0; e < nnz; e++) t->ptr[f->src[e] + 1]++;
    for (int64_t i = 0; i < f->n_src; i++) t->ptr[i + 1] += t->ptr[i];
    int64_t *fill = malloc((size_t)(f->n_src ? f->n_src : 1) * sizeof(int64_t));
    if (!fill) {
        upl_axis_free(t);
        return -1;
    }
    memcpy(fill, t->ptr, (size_t)f->n_src * sizeof(int64_t));
    for (int64_t d = 0; d < f->n_dst; d++) /* ascending destination, then tap order */
        for (int64_t e = f->ptr[d]; e < f->ptr[d + 1]; e++) {
            const int64_t s = f->src[e], at = fill[s]++;
            t->src[at] = d;
            t->wf[at] = f->wf[e];
            t->wd[at] = f->wd[e];
        }
    free(fill);
    if (f->k > 0 && !f->identity) {
        t->fsrc = malloc((size_t)(nnz ? nnz : 1) * sizeof(int64_t));
        t->fwf = malloc((size_t)(nnz ? nnz : 1) * sizeof(float));
        t->fwd = malloc((size_t)(nnz ? nnz : 1) * sizeof(double));
        if (!t->fsrc || !t->fwf || !t->fwd) {
            upl_axis_free(t);
            return -1;
        }
        memcpy(t->fsrc, f->src, (size_t)nnz * sizeof(int64_t));
        memcpy(t->fwf, f->wf, (size_t)nnz * sizeof(float));
        memcpy(t->fwd, f->wd, (size_t)nnz * sizeof(double));
        t->fk = f->k;
    }
    return 0;
}

void upl_plan_free(upl_plan *p) {
    for (int k = 0; k < 3; k++) upl_axis_free(&p->ax[k]);
}

/* The plane passes have a portable and an AVX2 variant (common/level_fn.h, capped by PYACLNN_SIMD);
 * -ffp-contract=off keeps every product and sum as in the portable one (the same bytes). */

/* contiguous row conversions of the 1-D row blocks (upl_rows): fp16 and the bf16 narrowing through the level's
 * converters (kernels/f16_rows.h, the same bits at every level); the bf16 widening is a shift, GCC's loop over the
 * portable row */
static void upl_ldrow_f16(float *d, const uint16_t *s, int64_t n) { acl_row_f16_to_f32_lv(d, s, n); }
static void upl_strow_f16(uint16_t *d, const float *s, int64_t n) { acl_row_f32_to_f16_lv(d, s, n); }
static void upl_ldrow_bf16(float *d, const uint16_t *s, int64_t n) { acl_row_bf16_to_f32(d, s, n); }
static void upl_strow_bf16(uint16_t *d, const float *s, int64_t n) { acl_row_f32_to_bf16_lv(d, s, n); }
/* The last pass of a two-tap D map (the trilinear forward) into a half output row, for the portable level on
 * x86-64: each element r = (0 + w0 * a) + w1 * b, r = w1 * b where that product is a NaN (the same operations and
 * NaN rule as upl_plane's two-tap D loop), rounded once as the row converters do - computed and narrowed 8 at a
 * time in registers instead of going through the scratch plane and a second pass. A block whose sums meet a NaN
 * (which the narrowing's range test or the bf16 NaN test sees: a NaN product makes the sum a NaN) is redone one
 * element at a time with the explicit select. Elsewhere (aarch64) upl_lerp_ok_* is 0 and the plane goes through
 * the scratch loop and the row converter. */
static inline float upl_lerp1(float a, float b, float w0, float w1) {
    float s = 0;
    s += w0 * a;
    const float p1 = w1 * b, t = s + p1;
    return p1 != p1 ? p1 : t;
}
#ifdef ACL_HALF_ROWS_SSE2
static const int upl_lerp_ok_f16 = 1, upl_lerp_ok_bf16 = 1;
/* the sums of 8 elements (no NaN select: a lane where the select would matter is a NaN lane) */
#define UPL_LERP8_(k)                                                                                             \
    const __m128 t0 = _mm_add_ps(_mm_add_ps(z, _mm_mul_ps(v0, _mm_loadu_ps(a + (k)))),                           \
                                 _mm_mul_ps(v1, _mm_loadu_ps(b + (k))));                                         \
    const __m128 t1 = _mm_add_ps(_mm_add_ps(z, _mm_mul_ps(v0, _mm_loadu_ps(a + (k) + 4))),                       \
                                 _mm_mul_ps(v1, _mm_loadu_ps(b + (k) + 4)))
static void upl_lerp_strow_f16(uint16_t *d, const float *a, const float *b, float w0, float w1, int64_t n) {
    const __m128 z = _mm_setzero_ps(), v0 = _mm_set1_ps(w0), v1 = _mm_set1_ps(w1);
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
        /* first p0 + p1: the same as (0 + p0) + p1 except where both products are zeros (a zero sum) or one is a
         * NaN (a NaN sum), neither of which is a normal half: then the block takes the exact sums below */
        __m128i h;
        const __m128 u0 = _mm_add_ps(_mm_mul_ps(v0, _mm_loadu_ps(a + k)), _mm_mul_ps(v1, _mm_loadu_ps(b + k)));
        const __m128 u1 = _mm_add_ps(_mm_mul_ps(v0, _mm_loadu_ps(a + k + 4)), _mm_mul_ps(v1, _mm_loadu_ps(b + k + 4)));
        if (acl_hr_f32x8_to_f16_normal_(_mm_castps_si128(u0), _mm_castps_si128(u1), &h)) {
            _mm_storeu_si128((__m128i *)(void *)(d + k), h);
            continue;
        }
        UPL_LERP8_(k);
        int nan = 0;
        h = acl_hr_f32x8_to_f16_(_mm_castps_si128(t0), _mm_castps_si128(t1), &nan);
        if (!nan) {
            _mm_storeu_si128((__m128i *)(void *)(d + k), h);
            continue;
        }
        for (int64_t j = k; j < k + 8; j++) d[j] = acl_f32_to_f16_bf(upl_lerp1(a[j], b[j], w0, w1));
    }
    for (; k < n; k++) d[k] = acl_f32_to_f16_bf(upl_lerp1(a[k], b[k], w0, w1));
}
static void upl_lerp_strow_bf16(uint16_t *d, const float *a, const float *b, float w0, float w1, int64_t n) {
    const __m128 z = _mm_setzero_ps(), v0 = _mm_set1_ps(w0), v1 = _mm_set1_ps(w1);
    int64_t k = 0;
    for (; k + 8 <= n; k += 8) {
        UPL_LERP8_(k);
        if (!_mm_movemask_ps(_mm_or_ps(_mm_cmpunord_ps(t0, t0), _mm_cmpunord_ps(t1, t1)))) {
            const __m128i h = _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(t0)),
                                              acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(t1)));
            _mm_storeu_si128((__m128i *)(void *)(d + k), h);
            continue;
        }
        for (int64_t j = k; j < k + 8; j++) d[j] = acl_f32_to_bf16_bf(upl_lerp1(a[j], b[j], w0, w1));
    }
    for (; k < n; k++) d[k] = acl_f32_to_bf16_bf(upl_lerp1(a[k], b[k], w0, w1));
}
#undef UPL_LERP8_
/* 16 fp32 sums (4 vectors) narrowed to bf16 into d[0..16): rounded once as the row converters do; a NaN lane gets
 * any bits (the caller redoes and re-stores a row whose sums met a NaN) */
static const int upl_nar_ok_bf16 = 1;
static inline __attribute__((always_inline)) void upl_nar16_bf16(uint16_t *d, __m128 a, __m128 b, __m128 c, __m128 e) {
    _mm_storeu_si128((__m128i *)(void *)d, _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(a)),
                                                          acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(b))));
    _mm_storeu_si128((__m128i *)(void *)(d + 8), _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(c)),
                                                                acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(e))));
}
static const int upl_nar_ok_f16 = 0, upl_nar_ok_f32 = 0, upl_nar_ok_f64 = 0;
static inline void upl_nar16_f16(uint16_t *d, __m128 a, __m128 b, __m128 c, __m128 e) {
    (void)d, (void)a, (void)b, (void)c, (void)e;
}
static inline void upl_nar16_f32(float *d, __m128 a, __m128 b, __m128 c, __m128 e) {
    (void)d, (void)a, (void)b, (void)c, (void)e;
}
static inline void upl_nar16_f64(double *d, __m128 a, __m128 b, __m128 c, __m128 e) {
    (void)d, (void)a, (void)b, (void)c, (void)e;
}
#else
static const int upl_lerp_ok_f16 = 0, upl_lerp_ok_bf16 = 0;
static void upl_lerp_strow_f16(uint16_t *d, const float *a, const float *b, float w0, float w1, int64_t n) {
    for (int64_t k = 0; k < n; k++) d[k] = acl_f32_to_f16_bf(upl_lerp1(a[k], b[k], w0, w1));
}
static void upl_lerp_strow_bf16(uint16_t *d, const float *a, const float *b, float w0, float w1, int64_t n) {
    for (int64_t k = 0; k < n; k++) d[k] = acl_f32_to_bf16_bf(upl_lerp1(a[k], b[k], w0, w1));
}
#endif
/* (not used: fp32 / double take the scratch or in-place D loop) */
static const int upl_lerp_ok_f32 = 0, upl_lerp_ok_f64 = 0;
static void upl_lerp_strow_f32(float *d, const float *a, const float *b, float w0, float w1, int64_t n) {
    (void)d, (void)a, (void)b, (void)w0, (void)w1, (void)n;
}
static void upl_lerp_strow_f64(double *d, const double *a, const double *b, double w0, double w1, int64_t n) {
    (void)d, (void)a, (void)b, (void)w0, (void)w1, (void)n;
}
static void upl_ldrow_f32(float *d, const float *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void upl_strow_f32(float *d, const float *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void upl_ldrow_f64(double *d, const double *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void upl_strow_f64(double *d, const double *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/upsample_linear.inc"
#include "kernels/dtype_end.h"
#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/upsample_linear.inc"
#include "kernels/dtype_end.h"
#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/upsample_linear.inc"
#include "kernels/dtype_end.h"
#define KSUFFIX f64
#include "kernels/dtype_begin.h"
#include "kernels/upsample_linear.inc"
#include "kernels/dtype_end.h"

int upl_run(const acl_view *x, const acl_view *y, const upl_plan *p) {
    int64_t buf = 1;
    const int64_t sD = p->ax[0].n_src, sH = p->ax[1].n_src, sW = p->ax[2].n_src;
    const int64_t dD = p->ax[0].n_dst, dH = p->ax[1].n_dst, dW = p->ax[2].n_dst;
    const int64_t sizes[4] = {sD * sH * sW, sD * sH * dW, sD * dH * dW, dD * dH * dW};
    for (int k = 0; k < 4; k++)
        if (sizes[k] > buf) buf = sizes[k];
    int failed;
    switch (x->dtype) {
    case ACL_FLOAT: failed = upl_run_f32(x, y, p, buf); break;
    case ACL_FLOAT16: failed = upl_run_f16(x, y, p, buf); break;
    case ACL_BF16: failed = upl_run_bf16(x, y, p, buf); break;
    case ACL_DOUBLE: failed = upl_run_f64(x, y, p, buf); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "upsample: dtype %d has no kernel", (int)x->dtype);
    }
    if (failed) return ACL_REPORT(ACLNN_ERR_INNER, "upsample: out of memory for the per-thread planes (%lld elements)",
                                  (long long)buf);
    return 0;
}
