/* 2-D average pooling: attribute expansion, the per-axis plans built in phase 1, and the dtype instantiations of
 * the kernels in avg_pool2d.inc. */
#include <pthread.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "kernels/avg_pool2d.h"
#include "common/cpu.h"
#include "common/level_fn.h"
#include "kernels/f16_rows.h"
#include "common/half_rows.h"

__extension__ typedef __int128 i128; /* window maths on caller-controlled attributes never overflows */

void avgpool_expand(const aclIntArray *kernel, const aclIntArray *stride, const aclIntArray *padding,
                    avgpool_attrs *a) {
    a->kh = kernel->v[0];
    a->kw = kernel->size == 1 ? kernel->v[0] : kernel->v[1];
    if (stride == NULL || stride->size == 0) {
        a->sh = a->kh;
        a->sw = a->kw;
    } else {
        a->sh = stride->v[0];
        a->sw = stride->size == 1 ? stride->v[0] : stride->v[1];
    }
    a->ph = padding->v[0];
    a->pw = padding->size == 1 ? padding->v[0] : padding->v[1];
}

int64_t avgpool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode) {
    i128 num = (i128)in + 2 * (i128)p - k + (ceil_mode ? (i128)s - 1 : 0);
    i128 o = num / s + 1; /* C++ truncating division, as the host code computes it */
    if (ceil_mode && (o - 1) * (i128)s >= (i128)in + p) o--;
    if (o > INT64_MAX || o < INT64_MIN) return -1;
    return (int64_t)o;
}

/* Window of output index o along one axis: [*lo, *hi) clipped to the image, and its padded / valid extents. */
static void axis_window(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p, int64_t *lo, int64_t *hi,
                        i128 *pool, i128 *valid) {
    i128 hs = (i128)o * s - p;
    i128 he = hs + k;
    if (he > (i128)in + p) he = (i128)in + p;
    *pool = he - hs;
    i128 a = hs < 0 ? 0 : hs, b = he > in ? in : he;
    if (b < a) b = a;
    *valid = b - a;
    *lo = (int64_t)a;
    *hi = (int64_t)b;
}

static i128 divisor_of(const avgpool_attrs *a, i128 ph, i128 pw, i128 vh, i128 vw) {
    if (a->divisor_override != 0) return a->divisor_override;
    return a->count_include_pad ? ph * pw : vh * vw;
}

/* One block: h_lo, h_hi (nh each), w_lo, w_hi (nw each), wt (oh*ow), then scratch counts. */
static bool plan_alloc(avgpool_plan *p, int64_t nh, int64_t nw, size_t scratch_i128) {
    size_t ints = 2 * (size_t)nh + 2 * (size_t)nw;
    size_t wts = (size_t)p->oh * (size_t)p->ow;
    size_t bytes = scratch_i128 * sizeof(i128) + ints * sizeof(int64_t) + wts * sizeof(float) + 16;
    char *m = malloc(bytes);
    if (!m) return false;
    p->mem = m;
    p->h_lo = (int64_t *)(m + scratch_i128 * sizeof(i128));
    p->h_hi = p->h_lo + nh;
    p->w_lo = p->h_hi + nh;
    p->w_hi = p->w_lo + nw;
    p->wt = (float *)(p->w_hi + nw);
    return true;
}

/* Per-axis padded/valid window extents of every output index (scratch at the start of the block). */
static void axis_counts(const avgpool_plan *p, const avgpool_attrs *a, i128 *cnt, int64_t *h_lo, int64_t *h_hi,
                        int64_t *w_lo, int64_t *w_hi) {
    i128 *hp = cnt, *hv = cnt + p->oh, *wp = cnt + 2 * p->oh, *wv = wp + p->ow;
    int64_t lo, hi;
    for (int64_t o = 0; o < p->oh; o++) {
        axis_window(o, p->ih, a->kh, a->sh, a->ph, &lo, &hi, &hp[o], &hv[o]);
        if (h_lo) { h_lo[o] = lo; h_hi[o] = hi; }
    }
    for (int64_t o = 0; o < p->ow; o++) {
        axis_window(o, p->iw, a->kw, a->sw, a->pw, &lo, &hi, &wp[o], &wv[o]);
        if (w_lo) { w_lo[o] = lo; w_hi[o] = hi; }
    }
}

/* Rows no longer than this use a stack buffer of per-column partial sums. */
#define AVGPOOL_TMP 2048
/* Fixed-length index lists are built when no output/input column sums more than this many partials. */
#define AVGPOOL_MAX_M 32
/* The backward plane path: floats per stack buffer (P and E each hold one plane's rows). */
#define AVGPOOL_PLANE_TMP 8192

/* fp16 -> fp32 by table (exactly acl_f16_to_f32 of every bit pattern), built once in phase 1. */
static float g_f16_to_f32[65536];
static pthread_once_t g_f16_once = PTHREAD_ONCE_INIT;
static bool g_have_avx512; /* and with AVX-512, 16 lanes a step */
static bool g_have_f16c; /* rows of fp16 results are converted with F16C (bit-identical, see f16_rows.h) */
#ifdef ACL_F16_ROWS_F16C
static bool g_have_avx512bf16; /* bf16 rows narrowed by vcvtneps2bf16 (subnormal blocks aside, see f16_rows.h) */
#endif
static void build_f16_table(void) {
    for (uint32_t h = 0; h < 65536; h++) g_f16_to_f32[h] = acl_f16_to_f32((uint16_t)h);
    g_have_f16c = acl_simd_level() >= ACL_SIMD_AVX2;
    g_have_avx512 = acl_simd_level() >= ACL_SIMD_AVX512;
#ifdef ACL_F16_ROWS_F16C
    g_have_avx512bf16 = g_have_avx512 && __builtin_cpu_supports("avx512bf16");
#endif
}

/* tmp[j] += the fp16 input row, converted exactly. With F16C the conversion is fused into the addition (one pass,
 * no row buffer) up to the first 8-block holding a NaN; from there on the row takes the exact conversion and the
 * plain C addition: which of two NaN operands an addition returns depends on the operand order the compiler
 * picks, and F16C would quieten a signalling NaN before that choice, so only the very same code gives the same
 * bytes there. */
#ifdef ACL_F16_ROWS_F16C
__attribute__((target("avx2,f16c"))) static int64_t add_f16_row_f16c(float *restrict tmp,
                                                                     const uint16_t *restrict src, int64_t n) {
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + j));
        const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
        if (!_mm_testz_si128(nan, nan)) break;
        _mm256_storeu_ps(tmp + j, _mm256_add_ps(_mm256_loadu_ps(tmp + j), _mm256_cvtph_ps(h)));
    }
    return j;
}
#endif
#ifdef ACL_F16_ROWS_F16C
/* the same with AVX-512, 16 lanes a step (the forward's rows: 1.13-1.15x the fp32 row with 8) */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static int64_t
add_f16_row_avx512(float *restrict tmp, const uint16_t *restrict src, int64_t n) {
    int64_t j = 0;
    for (; j + 16 <= n; j += 16) {
        const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(src + j));
        if (_mm256_cmpgt_epi16_mask(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00))) break;
        _mm512_storeu_ps(tmp + j, _mm512_add_ps(_mm512_loadu_ps(tmp + j), _mm512_cvtph_ps(h)));
    }
    if (j < n && j + 16 > n) { /* the last n % 16 under a mask (the rows are short) */
        const __mmask16 k = (__mmask16)((1u << (n - j)) - 1);
        const __m256i h = _mm256_maskz_loadu_epi16(k, src + j);
        if (_mm256_cmpgt_epi16_mask(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00)))
            return j + add_f16_row_f16c(tmp + j, src + j, n - j);
        _mm512_mask_storeu_ps(tmp + j, k, _mm512_add_ps(_mm512_maskz_loadu_ps(k, tmp + j), _mm512_cvtph_ps(h)));
        return n;
    }
    return j;
}
#endif
static inline void add_f16_row(float *restrict tmp, const uint16_t *restrict src, int64_t n) {
    float cv[AVGPOOL_TMP];
    int64_t j0 = 0;
#ifdef ACL_F16_ROWS_F16C
    if (g_have_f16c) {
        j0 = g_have_avx512 ? add_f16_row_avx512(tmp, src, n) : add_f16_row_f16c(tmp, src, n);
        if (j0 == n) return;
        acl_f16_to_f32_row_f16c(cv + j0, src + j0, n - j0);
    } else
#endif
        acl_row_f16_to_f32(cv, src, n);
    for (int64_t j = j0; j < n; j++) tmp[j] += cv[j];
}

/* dst[j] = the fp16 row converted exactly, times wt[j] (F16C: fused, one pass; as above, the product quietens a
 * NaN either way) */
#ifdef ACL_F16_ROWS_F16C
__attribute__((target("avx2,f16c"))) static void mul_f16_row_f16c(float *restrict dst, const uint16_t *restrict src,
                                                                  const float *restrict wt, int64_t n) {
    int64_t j = 0;
    for (; j + 8 <= n; j += 8)
        _mm256_storeu_ps(dst + j, _mm256_mul_ps(_mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + j))),
                                                _mm256_loadu_ps(wt + j)));
    for (; j < n; j++) dst[j] = acl_f16_to_f32_bf(src[j]) * wt[j];
}
#endif
static inline void mul_f16_row(float *restrict dst, const uint16_t *restrict src, const float *restrict wt,
                               int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_f16c) {
        mul_f16_row_f16c(dst, src, wt, n);
        return;
    }
#endif
    acl_row_f16_to_f32(dst, src, n);
    for (int64_t j = 0; j < n; j++) dst[j] *= wt[j];
}

/* dst = the fp16 row converted exactly */
static void load_f16_row(float *dst, const uint16_t *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_avx512) {
        acl_f16_to_f32_row_avx512(dst, src, n);
        return;
    }
    if (g_have_f16c) {
        acl_f16_to_f32_row_f16c(dst, src, n);
        return;
    }
#endif
    acl_row_f16_to_f32(dst, src, n);
}

static void store_f16_row(uint16_t *dst, const float *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_avx512) {
        acl_f32_to_f16_row_avx512(dst, src, n);
        return;
    }
    if (g_have_f16c) {
        acl_f32_to_f16_row_f16c(dst, src, n);
        return;
    }
#endif
    acl_row_f32_to_f16(dst, src, n); /* common/half_rows.h: SSE2 / NEON, the same bits */
}

static void store_bf16_row(uint16_t *dst, const float *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_avx512bf16) {
        acl_f32_to_bf16_row_avx512bf16(dst, src, n);
        return;
    }
    if (g_have_avx512) {
        acl_f32_to_bf16_row_avx512(dst, src, n);
        return;
    }
    if (g_have_f16c) {
        acl_f32_to_bf16_row_avx2(dst, src, n);
        return;
    }
#endif
    acl_row_f32_to_bf16(dst, src, n); /* common/half_rows.h: SSE2 / NEON, the same bits */
}

/* dst = the bf16 row widened (a shift): AVX-512 16 lanes a step, AVX2 GCC's loop, portable SSE2 / NEON */
#ifdef ACL_F16_ROWS_F16C
__attribute__((target("avx2"))) static void load_bf16_row_avx2_(float *restrict dst, const uint16_t *restrict src,
                                                                int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_bf16_to_f32_bf(src[i]);
}
#endif
static void load_bf16_row(float *dst, const uint16_t *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_avx512) {
        acl_bf16_to_f32_row_avx512(dst, src, n);
        return;
    }
    if (g_have_f16c) {
        load_bf16_row_avx2_(dst, src, n);
        return;
    }
#endif
    acl_row_bf16_to_f32(dst, src, n);
}

/* The backward plane's last step for dense fp16/bf16 gradInput planes at AVX-512: each gradInput row summed from the
 * E rows covering it (0 + E[a] + ... + E[b-1], in that order, as avg_pool2d.inc does) 16 columns a step and
 * narrowed in registers, instead of the fp32 plane written to P and narrowed in a second pass. The same
 * additions and the conversions of the row functions (NaN / subnormal blocks through them), so the same bits.
 * false when the level is below AVX-512 or E holds a NaN (the caller then runs its own loop). */
#ifdef ACL_F16_ROWS_F16C
#define AP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
#define AP_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,avx2,f16c")))
AP_AVX512 static inline __m512 ap_colsum16_(const float *e, int64_t IW, int64_t a, int64_t b, __mmask16 k) {
    __m512 acc = _mm512_setzero_ps();
    for (int64_t oh = a; oh < b; oh++) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(k, e + oh * IW));
    return acc;
}
/* Whether E's OH x IW sums hold a NaN. Without one, every addition below gives the bits of avg_pool2d.inc's (IEEE
 * addition of non-NaN operands is commutative, and an Inf - Inf gives the one default NaN either way); with one,
 * which of two NaN operands survives depends on the operand order GCC picks in each loop, so such planes take the
 * kernel's own loop. */
AP_AVX512 static bool ap_has_nan_(const float *E, int64_t n) {
    __mmask16 m = 0;
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(E + i);
        m |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
    if (i < n) {
        const __m512 v = _mm512_maskz_loadu_ps((__mmask16)((1u << (n - i)) - 1), E + i);
        m |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    }
    return m != 0;
}
/* r < 16 columns, or a block holding a NaN (fp16) / a subnormal (vcvtneps2bf16): the row functions */
AP_AVX512 static void ap_narrow_rest_(uint16_t *dst, __m512 v, int bf16, int r) {
    float t[16];
    _mm512_storeu_ps(t, v);
    if (bf16)
        acl_f32_to_bf16_row_avx2(dst, t, r);
    else
        acl_f32_to_f16_row_f16c(dst, t, r);
}
AP_AVX512 static inline void ap_narrow16_f16_(uint16_t *dst, __m512 v) {
    if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q))
        ap_narrow_rest_(dst, v, 0, 16);
    else
        _mm256_storeu_si256((__m256i *)(void *)dst, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
AP_AVX512 static inline void ap_narrow16_bf16_(uint16_t *dst, __m512 v) {
    const __m512i h = _mm512_srli_epi32(acl_bf16x16_avx512_(_mm512_castps_si512(v)), 16);
    _mm256_storeu_si256((__m256i *)(void *)dst, _mm512_cvtepi32_epi16(h));
}
AP_AVX512BF16 static inline void ap_narrow16_bf16n_(uint16_t *dst, __m512 v) {
    const __m512i a = _mm512_and_si512(_mm512_castps_si512(v), _mm512_set1_epi32(0x7fffffff));
    if (_mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x007fffff)))
        ap_narrow_rest_(dst, v, 1, 16);
    else
        _mm256_storeu_si256((__m256i *)(void *)dst, (__m256i)_mm512_cvtneps_pbh(v));
}
#define AP_ROWS_NARROW_FN(attr, name, narrow16, bf16)                                                           \
    attr static bool name(uint16_t *xp, const float *E, const avgpool_plan *p) {                                \
        const int64_t IH = p->ih, IW = p->iw;                                                                   \
        if (ap_has_nan_(E, p->oh * IW)) return false;                                                           \
        for (int64_t ih = 0; ih < IH; ih++) {                                                                   \
            const int64_t a = p->h_lo[ih], b = p->h_hi[ih];                                                     \
            uint16_t *xr = xp + ih * IW;                                                                        \
            int64_t iw = 0;                                                                                     \
            for (; iw + 16 <= IW; iw += 16) narrow16(xr + iw, ap_colsum16_(E + iw, IW, a, b, 0xffff));          \
            if (iw < IW) {                                                                                      \
                const int r = (int)(IW - iw);                                                                   \
                ap_narrow_rest_(xr + iw, ap_colsum16_(E + iw, IW, a, b, (__mmask16)((1u << r) - 1)), bf16, r);  \
            }                                                                                                   \
        }                                                                                                       \
        return true;                                                                                            \
    }
AP_ROWS_NARROW_FN(AP_AVX512, ap_rows_f16_avx512_, ap_narrow16_f16_, 0)
AP_ROWS_NARROW_FN(AP_AVX512, ap_rows_bf16_avx512_, ap_narrow16_bf16_, 1)
AP_ROWS_NARROW_FN(AP_AVX512BF16, ap_rows_bf16_avx512bf16_, ap_narrow16_bf16n_, 1)
#undef AP_ROWS_NARROW_FN
#undef AP_AVX512
#undef AP_AVX512BF16
#endif
static inline bool ap_rows_narrow(uint16_t *xp, const float *E, const avgpool_plan *p, int bf16) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_avx512) {
        if (!bf16) return ap_rows_f16_avx512_(xp, E, p);
        return g_have_avx512bf16 ? ap_rows_bf16_avx512bf16_(xp, E, p) : ap_rows_bf16_avx512_(xp, E, p);
    }
#endif
    (void)xp, (void)E, (void)p, (void)bf16;
    return false;
}

/* The index lists of the column ranges lo/hi[0..n) (see avgpool_plan). false when out of memory. */
static bool build_index_lists(avgpool_plan *p, const int64_t *lo, const int64_t *hi, int64_t n) {
    pthread_once(&g_f16_once, build_f16_table);
    int64_t m = 0;
    for (int64_t j = 0; j < n; j++)
        if (hi[j] - lo[j] > m) m = hi[j] - lo[j];
    p->m = m;
    p->w_idx = NULL;
    if (m == 0 || m > AVGPOOL_MAX_M || p->w_end - p->w_begin > AVGPOOL_TMP) return true;
    p->w_idx = malloc((size_t)(n * m) * sizeof(int32_t));
    if (!p->w_idx) return false;
    const int32_t zero = (int32_t)(p->w_end - p->w_begin);
    for (int64_t j = 0; j < n; j++)
        for (int64_t t = 0; t < m; t++)
            p->w_idx[j * m + t] = lo[j] + t < hi[j] ? (int32_t)(lo[j] + t - p->w_begin) : zero;
    return true;
}

bool avgpool_plan_forward(avgpool_plan *p, const avgpool_attrs *a) {
    size_t scratch = 2 * (size_t)p->oh + 2 * (size_t)p->ow;
    if (!plan_alloc(p, p->oh, p->ow, scratch)) return false;
    i128 *cnt = (i128 *)p->mem;
    axis_counts(p, a, cnt, p->h_lo, p->h_hi, p->w_lo, p->w_hi);
    i128 *hp = cnt, *hv = cnt + p->oh, *wp = cnt + 2 * p->oh, *wv = wp + p->ow;
    for (int64_t oh = 0; oh < p->oh; oh++)
        for (int64_t ow = 0; ow < p->ow; ow++)
            p->wt[oh * p->ow + ow] = (float)divisor_of(a, hp[oh], wp[ow], hv[oh], wv[ow]);
    p->w_begin = p->ow ? p->w_lo[0] : 0;
    p->w_end = p->w_begin;
    for (int64_t ow = 0; ow < p->ow; ow++) {
        if (p->w_lo[ow] < p->w_begin) p->w_begin = p->w_lo[ow];
        if (p->w_hi[ow] > p->w_end) p->w_end = p->w_hi[ow];
    }
    return build_index_lists(p, p->w_lo, p->w_hi, p->ow);
}

/* Output indices whose window covers input index i: o*s - p <= i and o*s - p + k > i, within [0, out). */
static void axis_cover(int64_t i, int64_t out, int64_t k, int64_t s, int64_t p, int64_t *lo, int64_t *hi) {
    i128 ip = (i128)i + p;
    i128 num = ip - k; /* first o with o*s > ip - k */
    i128 first = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    i128 last = ip / s + 1; /* ip >= 0 */
    if (first < 0) first = 0;
    if (last > out) last = out;
    if (last < first) last = first;
    *lo = (int64_t)first;
    *hi = (int64_t)last;
}

bool avgpool_plan_backward(avgpool_plan *p, const avgpool_attrs *a, bool global) {
    size_t scratch = 2 * (size_t)p->oh + 2 * (size_t)p->ow;
    if (!plan_alloc(p, p->ih, p->iw, scratch)) return false;
    if (global) { /* gradOutput is 1x1; every position receives gradOutput / (kH*kW) */
        for (int64_t i = 0; i < p->ih; i++) { p->h_lo[i] = 0; p->h_hi[i] = 1; }
        for (int64_t i = 0; i < p->iw; i++) { p->w_lo[i] = 0; p->w_hi[i] = 1; }
        p->wt[0] = 1.0f / (float)((i128)a->kh * a->kw);
    } else {
        i128 *cnt = (i128 *)p->mem;
        axis_counts(p, a, cnt, NULL, NULL, NULL, NULL);
        i128 *hp = cnt, *hv = cnt + p->oh, *wp = cnt + 2 * p->oh, *wv = wp + p->ow;
        for (int64_t oh = 0; oh < p->oh; oh++)
            for (int64_t ow = 0; ow < p->ow; ow++) {
                i128 d = divisor_of(a, hp[oh], wp[ow], hv[oh], wv[ow]);
                /* a window covering no input (empty valid extent) is never read */
                p->wt[oh * p->ow + ow] = (d != 0 && hv[oh] > 0 && wv[ow] > 0) ? 1.0f / (float)d : 0.0f;
            }
        for (int64_t i = 0; i < p->ih; i++) axis_cover(i, p->oh, a->kh, a->sh, a->ph, &p->h_lo[i], &p->h_hi[i]);
        for (int64_t i = 0; i < p->iw; i++) axis_cover(i, p->ow, a->kw, a->sw, a->pw, &p->w_lo[i], &p->w_hi[i]);
    }
    p->w_begin = p->w_end = 0;
    bool any = false;
    for (int64_t i = 0; i < p->iw; i++) {
        if (p->w_hi[i] <= p->w_lo[i]) continue;
        if (!any || p->w_lo[i] < p->w_begin) p->w_begin = p->w_lo[i];
        if (!any || p->w_hi[i] > p->w_end) p->w_end = p->w_hi[i];
        any = true;
    }
    return build_index_lists(p, p->w_lo, p->w_hi, p->iw);
}

void avgpool_plan_free(void *plan) {
    avgpool_plan *p = plan;
    if (p) {
        free(p->mem);
        free(p->w_idx);
    }
    free(p);
}

/* Strides of (N, C, H, W); a rank-3 view is one (C, H, W) image. */
static inline void avgpool_strides(const acl_view *v, int64_t s[4]) {
    if (v->ndim == 3) {
        s[0] = 0; s[1] = v->strides[0]; s[2] = v->strides[1]; s[3] = v->strides[2];
    } else {
        s[0] = v->strides[0]; s[1] = v->strides[1]; s[2] = v->strides[2]; s[3] = v->strides[3];
    }
}


/* AP_LOAD: KLOAD, except fp16 reads through the table. AP_STORE_ROW(dst, src, n): n contiguous KSTOREs. */
#define AP_STORE_ROW(dst, src, n)                                   \
    do {                                                            \
        for (int64_t i_ = 0; i_ < (n); i_++) KSTORE((dst) + i_, (src)[i_]); \
    } while (0)

/* AP_STORE_PROW: the backward plane's row store (AP_STORE_ROW unless redefined below) */
#define AP_STORE_PROW(dst, src, n) AP_STORE_ROW(dst, src, n)

/* AP_ROWCVT: contiguous input rows are converted a row at a time (common/half_rows.h) before the arithmetic -
 * for fp16, whose element conversion does not vectorise inside those loops; bf16's (a shift) does. */
/* AP_PLANE_CVT: the backward plane converts dense fp16/bf16 planes whole (AP_LOAD_PLANE, AP_STORE_PLANE) */
#define AP_PLANE_CVT 0
#define AP_LOAD_PLANE(dst, src, n) ((void)0)
#define AP_STORE_PLANE(dst, src, n) ((void)0)
#define AP_ROWS_NARROW(xp, E, p) false
#define KSUFFIX f32
#define AP_DIRECT 1
#define AP_ROWCVT 0
#define AP_LOAD_ROW(dst, src, n) KLOAD_ROW(dst, src, n)
#define AP_ADD_ROW(tmp, src, n) ((void)0) /* AP_ROWCVT is 0 */
#undef AP_MUL_ROW
#define AP_MUL_ROW(dst, src, wt, n) ((void)0)
#define AP_LOAD(p) KLOAD(p)
#include "kernels/dtype_begin.h"
#include "kernels/avg_pool2d.inc"
#include "kernels/dtype_end.h"

#undef AP_LOAD
#undef AP_DIRECT
#define AP_DIRECT 0

#undef AP_STORE_ROW
#define AP_STORE_ROW(dst, src, n) store_f16_row((dst), (src), (n))
#undef AP_ROWCVT
#define AP_ROWCVT 1
#undef AP_PLANE_CVT
#define AP_PLANE_CVT 1
#undef AP_LOAD_PLANE
#define AP_LOAD_PLANE(dst, src, n) load_f16_row((dst), (src), (n))
#undef AP_STORE_PLANE
#define AP_STORE_PLANE(dst, src, n) store_f16_row((dst), (src), (n))
#undef AP_ROWS_NARROW
#define AP_ROWS_NARROW(xp, E, p) ap_rows_narrow((xp), (E), (p), 0)
#define KSUFFIX f16
#define AP_LOAD(p) g_f16_to_f32[*(p)]
#undef AP_LOAD_ROW
#undef AP_ADD_ROW
#define AP_ADD_ROW(tmp, src, n) add_f16_row((tmp), (src), (n))
#undef AP_MUL_ROW
#define AP_MUL_ROW(dst, src, wt, n) mul_f16_row((dst), (src), (wt), (n))
#include "kernels/dtype_begin.h"
#include "kernels/avg_pool2d.inc"
#include "kernels/dtype_end.h"
#undef AP_LOAD

#undef AP_STORE_ROW
#define AP_STORE_ROW(dst, src, n)                                           \
    do { /* a plain loop (the forward's short rows) */                      \
        for (int64_t i_ = 0; i_ < (n); i_++) KSTORE((dst) + i_, (src)[i_]); \
    } while (0)
/* the backward plane's rows: the AVX-512 / AVX2 row narrowing of kernels/f16_rows.h (GCC's own loop over the
 * scalar rounding took three times the AVX-512 one's time: bf16 was 1.2-1.5x the fp32 row at the default),
 * portable the row converter (common/half_rows.h: SSE2 / NEON). The same bits. */
#undef AP_STORE_PROW
#define AP_STORE_PROW(dst, src, n) store_bf16_row((dst), (src), (n))
#undef AP_ROWCVT
#define AP_ROWCVT 0
/* bf16 planes: the row converters above */
#undef AP_LOAD_PLANE
#define AP_LOAD_PLANE(dst, src, n) load_bf16_row((dst), (src), (n))
#undef AP_STORE_PLANE
#define AP_STORE_PLANE(dst, src, n) AP_STORE_PROW(dst, src, n)
#undef AP_ROWS_NARROW
#define AP_ROWS_NARROW(xp, E, p) ap_rows_narrow((xp), (E), (p), 1)
#define KSUFFIX bf16
#define AP_LOAD(p) KLOAD(p)
#undef AP_LOAD_ROW
#define AP_LOAD_ROW(dst, src, n) KLOAD_ROW(dst, src, n)
#undef AP_ADD_ROW
#define AP_ADD_ROW(tmp, src, n) ((void)0) /* AP_ROWCVT is 0 */
#undef AP_MUL_ROW
#define AP_MUL_ROW(dst, src, wt, n) ((void)0)
#include "kernels/dtype_begin.h"
#include "kernels/avg_pool2d.inc"
#include "kernels/dtype_end.h"
#undef AP_LOAD

/* Adaptive pooling window of output o along an axis of `in` inputs and `out` outputs:
 * [floor(o*in/out), ceil((o+1)*in/out)). */
static void adaptive_range(int64_t o, int64_t in, int64_t out, int64_t *lo, int64_t *hi) {
    *lo = (int64_t)(((i128)o * in) / out);
    *hi = (int64_t)((((i128)o + 1) * in + out - 1) / out);
}

bool avgpool_plan_adaptive_forward(avgpool_plan *p) {
    if (!plan_alloc(p, p->oh, p->ow, 0)) return false;
    for (int64_t o = 0; o < p->oh; o++) adaptive_range(o, p->ih, p->oh, &p->h_lo[o], &p->h_hi[o]);
    for (int64_t o = 0; o < p->ow; o++) adaptive_range(o, p->iw, p->ow, &p->w_lo[o], &p->w_hi[o]);
    for (int64_t oh = 0; oh < p->oh; oh++)
        for (int64_t ow = 0; ow < p->ow; ow++)
            p->wt[oh * p->ow + ow] =
                (float)((i128)(p->h_hi[oh] - p->h_lo[oh]) * (p->w_hi[ow] - p->w_lo[ow]));
    p->w_begin = 0;
    p->w_end = p->iw;
    return build_index_lists(p, p->w_lo, p->w_hi, p->ow);
}

/* Output cells [lo[i], hi[i]) whose adaptive window covers input index i (windows are monotone in o). */
static void adaptive_cover(int64_t in, int64_t out, int64_t *lo, int64_t *hi) {
    int64_t first = 0, last = 0;
    for (int64_t i = 0; i < in; i++) {
        int64_t a, b;
        for (;;) { /* first o whose window ends after i */
            adaptive_range(first, in, out, &a, &b);
            if (b > i || first == out) break;
            first++;
        }
        for (;;) { /* one past the last o whose window starts at or before i */
            if (last == out) break;
            adaptive_range(last, in, out, &a, &b);
            if (a > i) break;
            last++;
        }
        lo[i] = first;
        hi[i] = last < first ? first : last;
    }
}

bool avgpool_plan_adaptive_backward(avgpool_plan *p) {
    if (!plan_alloc(p, p->ih, p->iw, 0)) return false;
    for (int64_t oh = 0; oh < p->oh; oh++) {
        int64_t h0, h1;
        adaptive_range(oh, p->ih, p->oh, &h0, &h1);
        for (int64_t ow = 0; ow < p->ow; ow++) {
            int64_t w0, w1;
            adaptive_range(ow, p->iw, p->ow, &w0, &w1);
            p->wt[oh * p->ow + ow] = 1.0f / (float)((i128)(h1 - h0) * (w1 - w0));
        }
    }
    adaptive_cover(p->ih, p->oh, p->h_lo, p->h_hi);
    adaptive_cover(p->iw, p->ow, p->w_lo, p->w_hi);
    p->w_begin = 0;
    p->w_end = p->ow;
    return build_index_lists(p, p->w_lo, p->w_hi, p->iw);
}
