/* 2-D average pooling: attribute expansion, the per-axis plans built in phase 1, and the dtype instantiations of
 * the kernels in avg_pool2d.inc. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "kernels/avg_pool2d.h"
#include "common/cpu.h"
#include "common/level_fn.h"
#include "kernels/f16_rows.h"
#include "common/half_rows.h"
#include "common/nan_order.h"

/* The backward plane's sums when a product is NaN: which of two NaNs an addition keeps is the compiled operand
 * order (different in each level's variant), so these sums follow common/nan_order.h's rule in the loops' written
 * order: E[oh][iw] = ((0 + P[ix[0]]) + P[ix[1]]) + ..., a gradInput row = ((0 + E[a]) + E[a + 1]) + ... (the same
 * bits as the loops for every NaN-free sum). */
#define AP_NAN_ESUMS(P, E, ps, IW, OH, ix, m)                                                                      \
    do {                                                                                                          \
        for (int64_t oh_ = 0; oh_ < (OH); oh_++)                                                                  \
            for (int64_t iw_ = 0; iw_ < (IW); iw_++) {                                                            \
                float acc_ = 0.0f;                                                                                \
                for (int64_t t_ = 0; t_ < (m); t_++) acc_ = no_add_f(acc_, (P)[oh_ * (ps) + (ix)[iw_ * (m) + t_]]); \
                (E)[oh_ * (IW) + iw_] = acc_;                                                                     \
            }                                                                                                     \
    } while (0)
#define AP_NAN_RSUMS(rr, E, IW, a, b)                                                                              \
    do {                                                                                                          \
        for (int64_t iw_ = 0; iw_ < (IW); iw_++) {                                                                \
            float acc_ = 0.0f;                                                                                    \
            for (int64_t oh_ = (a); oh_ < (b); oh_++) acc_ = no_add_f(acc_, (E)[oh_ * (IW) + iw_]);               \
            (rr)[iw_] = acc_;                                                                                     \
        }                                                                                                         \
    } while (0)

/* A gradInput row equal to an earlier one (the same window range: the same halves) copied in the blocks the row
 * functions store it in (16 bytes; AVX-512 32), so the loads forward from those stores: libc's memcpy of such short
 * rows, right after their stores, was 60% of the adaptive o7 backward's time. */
#ifdef __SSE2__
#include <emmintrin.h>
static inline void ap_copy_row8_(uint16_t *d, const uint16_t *s, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm_storeu_si128((__m128i *)(void *)(d + i), _mm_loadu_si128((const __m128i *)(const void *)(s + i)));
    for (; i < n; i++) d[i] = s[i];
}
#else
static inline void ap_copy_row8_(uint16_t *d, const uint16_t *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
#endif
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
/* the same at the x86 portable level: common/half_rows.h's SSE2 widening fused into the addition, up to the first
 * 8-block holding an Inf or NaN (as above) */
#ifdef ACL_HALF_ROWS_SSE2
static int64_t add_f16_row_sse2(float *restrict tmp, const uint16_t *restrict src, int64_t n) {
    int64_t j = 0;
    for (; j + 8 <= n; j += 8) {
        __m128 lo, hi;
        if (!acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)(src + j)), &lo, &hi)) break;
        _mm_storeu_ps(tmp + j, _mm_add_ps(_mm_loadu_ps(tmp + j), lo));
        _mm_storeu_ps(tmp + j + 4, _mm_add_ps(_mm_loadu_ps(tmp + j + 4), hi));
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
    {
#ifdef ACL_HALF_ROWS_SSE2
        j0 = add_f16_row_sse2(tmp, src, n);
        if (j0 == n) return;
#endif
        acl_row_f16_to_f32(cv + j0, src + j0, n - j0);
    }
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
 * additions and the conversions of the row functions (subnormal blocks through the integer rounding), so the same
 * bits. false when the level is below AVX-512 or a sum is NaN (the caller then runs its own loop over the whole
 * plane: the rows written here only read E, which stays intact). */
#ifdef ACL_F16_ROWS_F16C
#define AP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
AP_AVX512 static inline __m512 ap_colsum16_(const float *e, int64_t IW, int64_t a, int64_t b, __mmask16 k) {
    __m512 acc = _mm512_setzero_ps();
    for (int64_t oh = a; oh < b; oh++) acc = _mm512_add_ps(acc, _mm512_maskz_loadu_ps(k, e + oh * IW));
    return acc;
}
/* The narrowing of 16 sums; *bad collects the NaN lanes. A NaN sum makes the caller redo the whole plane with its
 * own loop: without one, no E element a row reads was NaN (a NaN operand makes its sum NaN), and every addition
 * here gives the bits of avg_pool2d.inc's (IEEE addition of non-NaN operands is commutative; an Inf - Inf gives
 * the one default NaN either way, and such a plane is redone too); with one, which of two NaN operands survives
 * depends on the operand order GCC picks in each loop, so only the kernel's own loop gives its bytes. (This
 * replaced a pass over E looking for NaNs first, and a zero-padded copy for the last IW % 16 columns.) */
AP_AVX512 static inline __m256i ap_cvt16_f16_(__m512 v, __mmask16 *bad) {
    *bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
AP_AVX512 static inline __m256i ap_cvt16_bf16_(__m512 v, __mmask16 *bad) {
    *bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(acl_bf16x16_avx512_(_mm512_castps_si512(v)), 16));
}
/* vcvtneps2bf16 flushes subnormal inputs to zero: a block holding one (or a NaN: one vfpclassps finds both) takes
 * the integer rounding above */
#define AP_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,f16c")))
AP_AVX512BF16 static inline __m256i ap_cvt16_bf16n_(__m512 v, __mmask16 *bad) {
    if (_mm512_fpclass_ps_mask(v, 0xa1)) return ap_cvt16_bf16_(v, bad); /* QNaN 0x01, denormal 0x20, SNaN 0x80 */
    return (__m256i)_mm512_cvtneps_pbh(v);
}
/* Each gradInput row: 0 + E[a] + ... + E[b-1] 16 columns a step (the row kind chosen once per row), narrowed by
 * CVT and stored; the last IW % 16 columns under a mask (the masked-off lanes sum zeros and are not stored). */
#define AP_ROW_BLOCKS_(SUM)                                                                                      \
    do {                                                                                                         \
        int64_t iw = 0;                                                                                          \
        for (; iw + 16 <= IW; iw += 16) {                                                                        \
            const __mmask16 k = 0xffff;                                                                          \
            _mm256_storeu_si256((__m256i *)(void *)(xr + iw), CVT(SUM, &bad));                                   \
        }                                                                                                        \
        if (iw < IW) {                                                                                           \
            const __mmask16 k = kt;                                                                              \
            _mm256_mask_storeu_epi16(xr + iw, k, CVT(SUM, &bad));                                                \
        }                                                                                                        \
    } while (0)
#define AP_ROWS_NARROW_FN(attr, name, CVT_)                                                                     \
    attr static bool name(uint16_t *xp, const float *E, const avgpool_plan *p) {                                \
        const int64_t IH = p->ih, IW = p->iw;                                                                   \
        const __mmask16 kt = (__mmask16)((1u << (IW % 16)) - 1);                                                \
        const __m512 z = _mm512_setzero_ps();                                                                   \
        __mmask16 bad = 0;                                                                                      \
        uint16_t *x0 = xp; /* the first row of a run of equal rows */                                           \
        for (int64_t ih = 0; ih < IH; ih++) {                                                                   \
            const int64_t a = p->h_lo[ih], b = p->h_hi[ih];                                                     \
            uint16_t *xr = xp + ih * IW;                                                                        \
            const float *e0 = E + a * IW, *e1 = e0 + IW;                                                        \
            const bool same_ = ih > 0 && a == p->h_lo[ih - 1] && b == p->h_hi[ih - 1];                          \
            if (!same_) x0 = xr;                                                                                \
            if (same_) { /* the same sums: the first row's halves, in its 32-byte blocks */                     \
                int64_t iw = 0;                                                                                 \
                for (; iw + 16 <= IW; iw += 16)                                                                 \
                    _mm256_storeu_si256((__m256i *)(void *)(xr + iw),                                            \
                                        _mm256_loadu_si256((const __m256i *)(const void *)(x0 + iw)));          \
                if (iw < IW) _mm256_mask_storeu_epi16(xr + iw, kt, _mm256_maskz_loadu_epi16(kt, x0 + iw));        \
            } else if (b - a == 1)                                                                              \
                AP_ROW_BLOCKS_(_mm512_add_ps(z, _mm512_maskz_loadu_ps(k, e0 + iw)));                            \
            else if (b - a == 2)                                                                                \
                AP_ROW_BLOCKS_(_mm512_add_ps(_mm512_add_ps(z, _mm512_maskz_loadu_ps(k, e0 + iw)),              \
                                             _mm512_maskz_loadu_ps(k, e1 + iw)));                               \
            else                                                                                                \
                AP_ROW_BLOCKS_(ap_colsum16_(E + iw, IW, a, b, k));                                              \
        }                                                                                                       \
        return bad == 0;                                                                                        \
    }
#define CVT ap_cvt16_f16_
AP_ROWS_NARROW_FN(AP_AVX512, ap_rows_f16_avx512_, 0)
#undef CVT
#define CVT ap_cvt16_bf16_
AP_ROWS_NARROW_FN(AP_AVX512, ap_rows_bf16_avx512_, 0)
#undef CVT
#define CVT ap_cvt16_bf16n_
AP_ROWS_NARROW_FN(AP_AVX512BF16, ap_rows_bf16_avx512bf16_, 0)
#undef CVT
#undef AP_ROW_BLOCKS_
#undef AP_ROWS_NARROW_FN
#undef AP_AVX512
#undef AP_AVX512BF16
#endif
/* The backward plane's first two steps at AVX-512 for dense gradOutput rows (every dtype): P = gradOutput * rcp 16
 * columns a step (fp16 / bf16 widened in registers: no plane conversion pass), and each column sum of E gathered
 * by permutes from the 32 partials of P a 16-column block of gradInput reads (ap_perm, built with the plan)
 * instead of scalar index-list reads. The additions are avg_pool2d.inc's, in its order ((0 + P[i0]) + P[i1]) + ...,
 * the zero slot's +0 a masked-off lane's +0, so the same bits - unless a sum is NaN: then false, and the caller
 * computes P and E by its own loops (which NaN of two operands an addition returns depends on GCC's operand
 * order there). A plain 4.6x cheaper column step than the index lists (k3s2p1, 56 columns; 2000 -> ~400 cycles a
 * plane). */
/* The permute plan of both passes (ap_perm): for each 16-lane block of the pass's output columns, the first
 * partial the block reads and, per window slot t, the 16 permute indices into the 16 * nreg partials from there,
 * the lanes whose index falls in the first two registers (klo: one two-register permute) or the third (khi), and
 * the load masks of the nreg registers (partials past ps = nw + 1 are not read). NULL when some block spans more
 * than 16 * nreg partials or without F16C/AVX-512 code: the index lists do the job. */
typedef struct {
    int64_t nb;     /* 16-lane blocks */
    int32_t *base;  /* [nb] the first partial a block reads */
    uint16_t *klo;  /* [nb * m] lanes of slot t reading a real partial in base..base+31 (the others add +0) */
    uint16_t *khi;  /* [nb * m] lanes of slot t reading base+32..base+47 (nreg 3 only) */
    uint16_t *lm;   /* [nb * nreg] the partials of the row each 16-wide load may read */
    int32_t *idx;   /* [nb * m * 16] permute indices (0..16*nreg-1 from base), 64-byte aligned */
} ap_perm;

/* n: the pass's columns (gradInput's IW for the backward, OW for the forward), nreg: 2 or 3 partial registers */
static ap_perm *build_perm(const avgpool_plan *p, int64_t n, int64_t nreg) {
#ifdef ACL_F16_ROWS_F16C
    if (!p->w_idx) return NULL;
    const int64_t m = p->m, nw = p->w_end - p->w_begin, ps = nw + 1, nb = (n + 15) / 16, span = 16 * nreg;
    int64_t *lo = malloc((size_t)nb * sizeof *lo);
    if (!lo) return NULL;
    for (int64_t b = 0; b < nb; b++) { /* every block must read at most `span` consecutive partials */
        int64_t l = INT64_MAX, hi = -1;
        for (int64_t o = b * 16; o < n && o < b * 16 + 16; o++)
            for (int64_t t = 0; t < m; t++) {
                const int64_t j = p->w_idx[o * m + t];
                if (j == nw) continue;
                if (j < l) l = j;
                if (j > hi) hi = j;
            }
        if (hi >= 0 && hi - l >= span) {
            free(lo);
            return NULL;
        }
        lo[b] = l == INT64_MAX ? 0 : l;
    }
    const size_t bytes = sizeof(ap_perm) + 64 + (size_t)(nb * m * 16) * 4 + (size_t)nb * 4 +
                         (size_t)(2 * nb * m) * 2 + (size_t)(nreg * nb) * 2;
    char *mem = malloc(bytes);
    if (!mem) {
        free(lo);
        return NULL;
    }
    ap_perm *pp = (ap_perm *)(void *)mem;
    pp->nb = nb;
    pp->idx = (int32_t *)(void *)(((uintptr_t)(mem + sizeof *pp) + 63) & ~(uintptr_t)63);
    pp->base = pp->idx + nb * m * 16;
    pp->klo = (uint16_t *)(void *)(pp->base + nb);
    pp->khi = pp->klo + nb * m;
    pp->lm = pp->khi + nb * m;
    for (int64_t b = 0; b < nb; b++) {
        pp->base[b] = (int32_t)lo[b];
        for (int64_t t = 0; t < m; t++) {
            uint16_t kl = 0, kh = 0;
            for (int64_t l = 0; l < 16; l++) {
                const int64_t o = b * 16 + l;
                const int64_t j = o < n ? p->w_idx[o * m + t] : nw;
                const int64_t r = j == nw ? 0 : j - lo[b];
                pp->idx[(b * m + t) * 16 + l] = (int32_t)r;
                if (j != nw && r < 32) kl |= (uint16_t)(1u << l);
                if (j != nw && r >= 32) kh |= (uint16_t)(1u << l);
            }
            pp->klo[b * m + t] = kl;
            pp->khi[b * m + t] = kh;
        }
        for (int64_t r = 0; r < nreg; r++) {
            uint16_t k = 0;
            for (int64_t l = 0; l < 16; l++)
                if (lo[b] + 16 * r + l < ps) k |= (uint16_t)(1u << l);
            pp->lm[nreg * b + r] = k;
        }
    }
    free(lo);
    return pp;
#else
    (void)p;
    (void)n;
    (void)nreg;
    return NULL;
#endif
}

/* The regular blocks of the index lists, for the portable level's vector sums (SSE2 on x86-64): the pass's
 * columns in blocks of 4 * q (q = 1: consecutive columns; q = 2: the even and the odd columns of a block of 8
 * apart), and per block, phase r < q and window slot t, the partial that the block's i-th column of phase r
 * reads (i < 4) is base + step * i, or the zero slot for all four (see build_reg). A block where that does not hold
 * (or past the last column) is flagged 0 and summed from the lists. The same partials in the same slot order, so
 * the same additions. NULL without lists or off x86-64. */
typedef struct {
    int64_t nb;     /* blocks of 4 * q columns */
    uint8_t *ok;    /* [nb] */
    int32_t *base;  /* [nb * q * m] */
    bool spread;    /* the backward's: one tap per gradInput column (m 1) and at most one E row per gradInput row */
} ap_reg;

static ap_reg *build_reg(const avgpool_plan *p, int64_t n, int64_t q, int64_t step) {
#ifdef ACL_HALF_ROWS_SSE2
    if (!p->w_idx || n <= 0) return NULL;
    const int64_t m = p->m, zero = p->w_end - p->w_begin, bs = 4 * q, nb = (n + bs - 1) / bs;
    char *mem = malloc(sizeof(ap_reg) + (size_t)(nb * q * m) * sizeof(int32_t) + (size_t)nb);
    if (!mem) return NULL;
    ap_reg *r = (ap_reg *)(void *)mem;
    r->nb = nb;
    r->base = (int32_t *)(void *)(mem + sizeof(ap_reg));
    r->ok = (uint8_t *)(r->base + nb * q * m);
    for (int64_t b = 0; b < nb; b++) {
        const int64_t c0 = b * bs;
        bool ok = c0 + bs <= n;
        for (int64_t ph = 0; ph < q && ok; ph++)
            for (int64_t t = 0; t < m && ok; t++) {
                const int64_t i0 = p->w_idx[(c0 + ph) * m + t];
                for (int64_t i = 1; i < 4 && ok; i++) {
                    const int64_t j = p->w_idx[(c0 + ph + q * i) * m + t];
                    ok = i0 == zero ? j == zero : j == i0 + step * i;
                }
                /* the zero slot: -1 (q 2, the column sums), or nw + 1 (q 1, the forward: +0s from there) */
                r->base[(b * q + ph) * m + t] = i0 != zero ? (int32_t)i0 : q == 1 ? (int32_t)(zero + 1) : -1;
            }
        r->ok[b] = ok;
    }
    /* mostly irregular (adaptive windows of uneven sizes): the index-list loops, not this (block-wise) path */
    int64_t nok = 0;
    for (int64_t b = 0; b < nb; b++) nok += r->ok[b];
    if (2 * nok < nb) {
        free(mem);
        return NULL;
    }
    r->spread = m == 1;
    for (int64_t i = 0; i < p->ih && q == 2; i++) r->spread = r->spread && p->h_hi[i] - p->h_lo[i] <= 1;
    return r;
#else
    (void)p, (void)n, (void)q, (void)step;
    return NULL;
#endif
}

static void build_e_perm(avgpool_plan *p) {
    p->e_perm = build_perm(p, p->iw, 2);
    p->e_reg = build_reg(p, p->iw, 2, 1);
}

#ifdef ACL_F16_ROWS_F16C
#define AP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
#define AP_LD_F32(src, k) _mm512_maskz_loadu_ps((k), (src))
#define AP_LD_F16(src, k) _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((k), (src)))
#define AP_LD_BF16(src, k) \
    _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16((k), (src))), 16))
/* one 16-column block of E for every row oh: T(t) adds slot t's permuted partials */
#define AP_E_BLOCK_(T)                                                                                            \
    for (int64_t oh = 0; oh < OH; oh++) {                                                                         \
        const float *pr = P + oh * ps + base;                                                                     \
        const __m512 lo = _mm512_maskz_loadu_ps(lm0, pr), hi = _mm512_maskz_loadu_ps(lm1, pr + 16);               \
        __m512 acc = _mm512_setzero_ps();                                                                         \
        T                                                                                                         \
        nan |= _mm512_cmp_ps_mask(acc, acc, _CMP_UNORD_Q);                                                        \
        _mm512_mask_storeu_ps(E + oh * IW + iw0, ks, acc);                                                        \
    }
#define AP_E_ADD_(t) acc = _mm512_add_ps(acc, _mm512_maskz_permutex2var_ps(k##t, lo, i##t, hi));
#define AP_PE_FN(name, GT, LOAD16)                                                                                \
    AP_AVX512 static bool name(const GT *gp, int64_t gs2, float *P, float *E, const avgpool_plan *p) {           \
        const int64_t OH = p->oh, OW = p->ow, IW = p->iw, w0 = p->w_begin, nw = p->w_end - w0, ps = nw + 1;       \
        const int64_t m = p->m;                                                                                   \
        const __mmask16 kt = (__mmask16)((1u << (nw % 16)) - 1);                                                  \
        for (int64_t oh = 0; oh < OH; oh++) {                                                                     \
            const GT *gr = gp + oh * gs2 + w0;                                                                    \
            const float *wt = p->wt + oh * OW + w0;                                                               \
            float *pr = P + oh * ps;                                                                              \
            int64_t j = 0;                                                                                        \
            for (; j + 16 <= nw; j += 16)                                                                         \
                _mm512_storeu_ps(pr + j, _mm512_mul_ps(LOAD16(gr + j, 0xffff), _mm512_loadu_ps(wt + j)));         \
            if (j < nw)                                                                                           \
                _mm512_mask_storeu_ps(pr + j, kt, _mm512_mul_ps(LOAD16(gr + j, kt), _mm512_maskz_loadu_ps(kt, wt + j))); \
            pr[nw] = 0;                                                                                           \
        }                                                                                                         \
        const ap_perm *ep = p->e_perm;                                                                              \
        __mmask16 nan = 0;                                                                                        \
        for (int64_t b = 0; b < ep->nb; b++) {                                                                    \
            const int64_t iw0 = b * 16;                                                                           \
            const __mmask16 ks = (__mmask16)(iw0 + 16 <= IW ? 0xffffu : (1u << (IW - iw0)) - 1);                  \
            const int64_t base = ep->base[b];                                                                     \
            const __mmask16 lm0 = ep->lm[2 * b], lm1 = ep->lm[2 * b + 1];                                         \
            const int32_t *ix = ep->idx + b * m * 16;                                                             \
            const uint16_t *km = ep->klo + b * m;                                                                  \
            if (m == 1) {                                                                                         \
                const __m512i i0 = _mm512_load_si512((const void *)ix);                                           \
                const __mmask16 k0 = km[0];                                                                       \
                AP_E_BLOCK_(AP_E_ADD_(0))                                                                         \
            } else if (m == 2) {                                                                                  \
                const __m512i i0 = _mm512_load_si512((const void *)ix), i1 = _mm512_load_si512((const void *)(ix + 16)); \
                const __mmask16 k0 = km[0], k1 = km[1];                                                           \
                AP_E_BLOCK_(AP_E_ADD_(0) AP_E_ADD_(1))                                                            \
            } else if (m == 3) {                                                                                  \
                const __m512i i0 = _mm512_load_si512((const void *)ix), i1 = _mm512_load_si512((const void *)(ix + 16)); \
                const __m512i i2 = _mm512_load_si512((const void *)(ix + 32));                                    \
                const __mmask16 k0 = km[0], k1 = km[1], k2 = km[2];                                               \
                AP_E_BLOCK_(AP_E_ADD_(0) AP_E_ADD_(1) AP_E_ADD_(2))                                               \
            } else {                                                                                              \
                AP_E_BLOCK_(for (int64_t t = 0; t < m; t++) acc = _mm512_add_ps(                                  \
                                acc, _mm512_maskz_permutex2var_ps(km[t], lo, _mm512_load_si512((const void *)(ix + 16 * t)), hi));) \
            }                                                                                                     \
        }                                                                                                         \
        return nan == 0;                                                                                          \
    }
AP_PE_FN(ap_pe_f32_avx512_, float, AP_LD_F32)
AP_PE_FN(ap_pe_f16_avx512_, uint16_t, AP_LD_F16)
AP_PE_FN(ap_pe_bf16_avx512_, uint16_t, AP_LD_BF16)
#undef AP_PE_FN
#undef AP_E_ADD_
#undef AP_E_BLOCK_
#undef AP_LD_F32
#undef AP_LD_F16
#undef AP_LD_BF16
#undef AP_AVX512
#define AP_PE_FAST_(fn, gp, gs2, P, E, p) (g_have_avx512 && (p)->e_perm && fn((gp), (gs2), (P), (E), (p)))
#else
#define AP_PE_FAST_(fn, gp, gs2, P, E, p) ((void)(gp), (void)(gs2), false)
#endif

/* The same step at the portable level on x86-64 (SSE2, its baseline): each row's sums 8 columns a step (the row
 * kind chosen once per row), narrowed in registers by common/half_rows.h's blocks instead of an fp32 plane written
 * to P and narrowed in a second pass; the last IW % 8 columns by the same scalar sums and the element function.
 * A row whose window range equals the previous row's is a copy of it (a non-overlapping pooling narrows half the
 * rows). A NaN sum: false, as above. */
#ifdef ACL_HALF_ROWS_SSE2
static inline __m128 ap_sum4_(const float *E, int64_t IW, int64_t a, int64_t b, int64_t iw) {
    __m128 acc = _mm_setzero_ps();
    for (int64_t oh = a; oh < b; oh++) acc = _mm_add_ps(acc, _mm_loadu_ps(E + oh * IW + iw));
    return acc;
}
static inline float ap_sum1_(const float *E, int64_t IW, int64_t a, int64_t b, int64_t iw) {
    float acc = 0.0f;
    for (int64_t oh = a; oh < b; oh++) acc = acc + E[oh * IW + iw];
    return acc;
}
#define AP_SSE_ROW_(S4)                                                                                           \
    do {                                                                                                          \
        int64_t iw = 0;                                                                                           \
        for (; iw + 8 <= IW; iw += 8) {                                                                           \
            const __m128 v0 = S4(iw), v1 = S4(iw + 4);                                                            \
            AP_SSE_NARROW8_(xr + iw, v0, v1);                                                                     \
        }                                                                                                         \
        for (; iw < IW; iw++) {                                                                                   \
            const float v = ap_sum1_(E, IW, a, b, iw);                                                            \
            nan |= v != v;                                                                                        \
            xr[iw] = AP_SSE_NARROW1_(v);                                                                          \
        }                                                                                                         \
    } while (0)
#define AP_SSE_ROWS_FN_(name)                                                                                     \
    static bool name(uint16_t *xp, const float *E, const avgpool_plan *p) {                                       \
        const int64_t IH = p->ih, IW = p->iw;                                                                     \
        const __m128 z = _mm_setzero_ps();                                                                        \
        int nan = 0;                                                                                              \
        uint16_t *x0 = xp; /* the first row of a run of equal rows */                                             \
        for (int64_t ih = 0; ih < IH; ih++) {                                                                     \
            const int64_t a = p->h_lo[ih], b = p->h_hi[ih];                                                       \
            uint16_t *xr = xp + ih * IW;                                                                          \
            const float *e0 = E + a * IW, *e1 = e0 + IW;                                                          \
            const bool same_ = ih > 0 && a == p->h_lo[ih - 1] && b == p->h_hi[ih - 1];                            \
            if (!same_) x0 = xr;                                                                                  \
            if (same_)                                                                                            \
                ap_copy_row8_(xr, x0, IW);                                                                        \
            else if (b <= a)                                                                                      \
                memset(xr, 0, (size_t)IW * sizeof *xr); /* 0.0f narrowed */                                      \
            else if (b - a == 1)                                                                                  \
                AP_SSE_ROW_(AP_S1_);                                                                              \
            else if (b - a == 2)                                                                                  \
                AP_SSE_ROW_(AP_S2_);                                                                              \
            else                                                                                                  \
                AP_SSE_ROW_(AP_SN_);                                                                              \
        }                                                                                                         \
        return !nan;                                                                                              \
    }
#define AP_S1_(iw) _mm_add_ps(z, _mm_loadu_ps(e0 + (iw)))
#define AP_S2_(iw) _mm_add_ps(_mm_add_ps(z, _mm_loadu_ps(e0 + (iw))), _mm_loadu_ps(e1 + (iw)))
#define AP_SN_(iw) ap_sum4_(E, IW, a, b, (iw))
/* fp16: the exact blocks of half_rows.h (NaN lanes reported by them) */
#define AP_SSE_NARROW8_(dst, v0, v1) \
    _mm_storeu_si128((__m128i *)(void *)(dst), acl_hr_f32x8_to_f16_(_mm_castps_si128(v0), _mm_castps_si128(v1), &nan))
#define AP_SSE_NARROW1_(v) acl_f32_to_f16_bf(v)
AP_SSE_ROWS_FN_(ap_rows_f16_sse2_)
#undef AP_SSE_NARROW8_
#undef AP_SSE_NARROW1_
/* bf16: round to nearest even on the bits; NaN lanes found by an unordered compare */
#define AP_SSE_NARROW8_(dst, v0, v1)                                                                              \
    do {                                                                                                          \
        nan |= _mm_movemask_ps(_mm_or_ps(_mm_cmpunord_ps(v0, v0), _mm_cmpunord_ps(v1, v1)));                      \
        _mm_storeu_si128((__m128i *)(void *)(dst), _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v0)), \
                                                                   acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v1)))); \
    } while (0)
#define AP_SSE_NARROW1_(v) acl_f32_to_bf16_bf(v)
AP_SSE_ROWS_FN_(ap_rows_bf16_sse2_)
#undef AP_SSE_NARROW8_
#undef AP_SSE_NARROW1_
#undef AP_S1_
#undef AP_S2_
#undef AP_SN_
#undef AP_SSE_ROWS_FN_
#undef AP_SSE_ROW_
#endif
/* The same at AVX2 (x86-64 CPUs without AVX-512): 8 columns a step, narrowed by F16C (fp16) or kernels/f16_rows.h's
 * AVX2 rounding (bf16). */
#ifdef ACL_F16_ROWS_F16C
#define AP_AVX2 __attribute__((target("avx2,f16c")))
AP_AVX2 static inline __m256 ap_sum8_(const float *E, int64_t IW, int64_t a, int64_t b, int64_t iw) {
    __m256 acc = _mm256_setzero_ps();
    for (int64_t oh = a; oh < b; oh++) acc = _mm256_add_ps(acc, _mm256_loadu_ps(E + oh * IW + iw));
    return acc;
}
AP_AVX2 static inline float ap_sum1x_(const float *E, int64_t IW, int64_t a, int64_t b, int64_t iw) {
    float acc = 0.0f;
    for (int64_t oh = a; oh < b; oh++) acc = acc + E[oh * IW + iw];
    return acc;
}
#define AP_AVX2_ROW_(S8)                                                                                          \
    do {                                                                                                          \
        int64_t iw = 0;                                                                                           \
        for (; iw + 8 <= IW; iw += 8) {                                                                           \
            const __m256 v = S8(iw);                                                                              \
            nan |= _mm256_movemask_ps(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));                                         \
            _mm_storeu_si128((__m128i *)(void *)(xr + iw), AP_AVX2_NARROW8_(v));                                  \
        }                                                                                                         \
        for (; iw < IW; iw++) {                                                                                   \
            const float v = ap_sum1x_(E, IW, a, b, iw);                                                           \
            nan |= v != v;                                                                                        \
            xr[iw] = AP_AVX2_NARROW1_(v);                                                                         \
        }                                                                                                         \
    } while (0)
#define AP_AVX2_ROWS_FN_(name)                                                                                    \
    AP_AVX2 static bool name(uint16_t *xp, const float *E, const avgpool_plan *p) {                               \
        const int64_t IH = p->ih, IW = p->iw;                                                                     \
        const __m256 z = _mm256_setzero_ps();                                                                     \
        int nan = 0;                                                                                              \
        uint16_t *x0 = xp; /* the first row of a run of equal rows */                                             \
        for (int64_t ih = 0; ih < IH; ih++) {                                                                     \
            const int64_t a = p->h_lo[ih], b = p->h_hi[ih];                                                       \
            uint16_t *xr = xp + ih * IW;                                                                          \
            const float *e0 = E + a * IW, *e1 = e0 + IW;                                                          \
            const bool same_ = ih > 0 && a == p->h_lo[ih - 1] && b == p->h_hi[ih - 1];                            \
            if (!same_) x0 = xr;                                                                                  \
            if (same_)                                                                                            \
                ap_copy_row8_(xr, x0, IW);                                                                        \
            else if (b <= a)                                                                                      \
                memset(xr, 0, (size_t)IW * sizeof *xr);                                                           \
            else if (b - a == 1)                                                                                  \
                AP_AVX2_ROW_(AP_X1_);                                                                             \
            else if (b - a == 2)                                                                                  \
                AP_AVX2_ROW_(AP_X2_);                                                                             \
            else                                                                                                  \
                AP_AVX2_ROW_(AP_XN_);                                                                             \
        }                                                                                                         \
        return !nan;                                                                                              \
    }
#define AP_X1_(iw) _mm256_add_ps(z, _mm256_loadu_ps(e0 + (iw)))
#define AP_X2_(iw) _mm256_add_ps(_mm256_add_ps(z, _mm256_loadu_ps(e0 + (iw))), _mm256_loadu_ps(e1 + (iw)))
#define AP_XN_(iw) ap_sum8_(E, IW, a, b, (iw))
#define AP_AVX2_NARROW8_(v) _mm256_cvtps_ph((v), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define AP_AVX2_NARROW1_(v) acl_f32_to_f16_bf(v)
AP_AVX2_ROWS_FN_(ap_rows_f16_avx2_)
#undef AP_AVX2_NARROW8_
#undef AP_AVX2_NARROW1_
AP_AVX2 static inline __m128i ap_bf16x8_pack_(__m256 v) { /* no NaN here (the row is redone then) */
    const __m256i r = acl_bf16x8_avx2_(v);
    return _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1));
}
#define AP_AVX2_NARROW8_(v) ap_bf16x8_pack_(v)
#define AP_AVX2_NARROW1_(v) acl_f32_to_bf16_bf(v)
AP_AVX2_ROWS_FN_(ap_rows_bf16_avx2_)
#undef AP_AVX2_NARROW8_
#undef AP_AVX2_NARROW1_
#undef AP_X1_
#undef AP_X2_
#undef AP_XN_
#undef AP_AVX2_ROWS_FN_
#undef AP_AVX2_ROW_
#undef AP_AVX2
#endif
static inline bool ap_rows_narrow(uint16_t *xp, const float *E, const avgpool_plan *p, int bf16) {
#ifdef ACL_F16_ROWS_F16C
    if (g_have_avx512) {
        if (!bf16) return ap_rows_f16_avx512_(xp, E, p);
        return g_have_avx512bf16 ? ap_rows_bf16_avx512bf16_(xp, E, p) : ap_rows_bf16_avx512_(xp, E, p);
    }
    if (g_have_f16c) return bf16 ? ap_rows_bf16_avx2_(xp, E, p) : ap_rows_f16_avx2_(xp, E, p);
#endif
#ifdef ACL_HALF_ROWS_SSE2
    if (!g_have_f16c) return bf16 ? ap_rows_bf16_sse2_(xp, E, p) : ap_rows_f16_sse2_(xp, E, p);
#endif
    (void)xp, (void)E, (void)p, (void)bf16;
    return false;
}

/* The portable level on x86-64 (SSE2) for fp16/bf16, with the regular blocks of ap_reg instead of one index-list
 * read per element:
 * - the backward plane's column sums E: 8 gradInput columns a step (the even and the odd columns each summed by
 *   4-wide loads of P, then interleaved), (0 + P[i0]) + P[i1] + ... in the lists' slot order, a zero slot a +0;
 * - the forward's rows: the column sums of the window's rows 8 columns a step with the halves widened in
 *   registers, each 4 outputs' window sums from two loads and an even-lane shuffle per slot (stride 2), the
 *   quotients 4 at a time and the row narrowed in registers. fp16 sums in the scaled domain of pool.c's adaptive
 *   kernel: the bits sign | (h & 0x7fff) << 13 read as fp32 are the half times 2^-112 exactly, and every partial
 *   sum of halves (a multiple of 2^-24) is then the real-domain partial times 2^-112 exactly (a normal number in
 *   both domains when at least 2^-14 in magnitude, where rounding commutes with the power-of-two scale; below,
 *   at most 10 significant bits, exact in both: a multiple of 2^-136 under 2^-126 is an fp32 subnormal). One exact
 *   product by 2^112 gives the real sum, then the fp32 path's quotient. An Inf / NaN half (no scaled image) or a
 *   NaN result: false, and the caller's own loop does the row (the NaN bits are the loop's).
 * The same IEEE operations in the same order as avg_pool2d.inc's loops, so the same bits. */
#ifdef ACL_HALF_ROWS_SSE2
static bool ap_e_sse2_(const float *P, float *E, const avgpool_plan *p) {
    static const float zeros[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    const ap_reg *er = p->e_reg;
    const int64_t OH = p->oh, IW = p->iw, m = p->m, ps = p->w_end - p->w_begin + 1;
    const int32_t *ix = p->w_idx;
    const __m128 z = _mm_setzero_ps();
    __m128 bad = z;
    int nan = 0;
    for (int64_t oh = 0; oh < OH; oh++) {
        const float *pr = P + oh * ps;
        float *out = E + oh * IW;
        for (int64_t b = 0; b < er->nb; b++) {
            const int64_t c0 = 8 * b;
            if (er->ok[b]) {
                const int32_t *bs = er->base + b * 2 * m;
                __m128 ev = z, od = z;
#define AP_EL_(i) _mm_loadu_ps(bs[i] < 0 ? zeros : pr + bs[i]) /* the zero slot: +0s */
                switch (m) {
                case 1:
                    ev = _mm_add_ps(z, AP_EL_(0));
                    od = _mm_add_ps(z, AP_EL_(1));
                    break;
                case 2:
                    ev = _mm_add_ps(_mm_add_ps(z, AP_EL_(0)), AP_EL_(1));
                    od = _mm_add_ps(_mm_add_ps(z, AP_EL_(2)), AP_EL_(3));
                    break;
                default:
                    for (int64_t t = 0; t < m; t++) {
                        ev = _mm_add_ps(ev, AP_EL_(t));
                        od = _mm_add_ps(od, AP_EL_(m + t));
                    }
                }
#undef AP_EL_
                bad = _mm_or_ps(bad, _mm_cmpunord_ps(ev, od));
                _mm_storeu_ps(out + c0, _mm_unpacklo_ps(ev, od));
                _mm_storeu_ps(out + c0 + 4, _mm_unpackhi_ps(ev, od));
            } else {
                const int64_t c1 = c0 + 8 < IW ? c0 + 8 : IW;
                for (int64_t iw = c0; iw < c1; iw++) {
                    float acc = 0.0f;
                    for (int64_t t = 0; t < m; t++) acc += pr[ix[iw * m + t]];
                    nan |= acc != acc;
                    out[iw] = acc;
                }
            }
        }
    }
    return !nan && !_mm_movemask_ps(bad);
}
#define AP_E_PORT_(P, E, p) (!g_have_avx512 && (p)->e_reg && ap_e_sse2_((P), (E), (p)))

/* The backward plane when every gradInput element is 0 + E[a][iw] = 0 + (0 + P[a][ix[iw]]) = 0 + P[a][ix[iw]] (one
 * tap per column, one E row per gradInput row, ap_reg.spread): each P row a gradInput row reads narrowed once
 * (0 + P; the zero slot and 7 more after it: +0), the halves spread by the regular blocks (the even and the odd
 * columns' 4 halves interleaved) or the index list; a row with the previous row's range is a copy, a row no
 * window covers zeros. A NaN: false (the caller's loops; the rows written here are all rewritten). */
static bool ap_p_spread_sse2_(uint16_t *xp, const float *P, const avgpool_plan *p, int bf16) {
    const ap_reg *er = p->e_reg;
    const int64_t IH = p->ih, IW = p->iw, nw = p->w_end - p->w_begin, ps = nw + 1;
    const int32_t *ix = p->w_idx;
    uint16_t H[AVGPOOL_TMP + 16];
    const __m128 z = _mm_setzero_ps();
    __m128 badv = z;
    int nan = 0;
    uint16_t *x0 = xp; /* the first row of a run of equal rows */
    for (int64_t ih = 0; ih < IH; ih++) {
        const int64_t a = p->h_lo[ih], b = p->h_hi[ih];
        uint16_t *xr = xp + ih * IW;
        if (ih > 0 && a == p->h_lo[ih - 1] && b == p->h_hi[ih - 1]) {
            ap_copy_row8_(xr, x0, IW);
            continue;
        }
        x0 = xr;
        if (b <= a) {
            memset(xr, 0, (size_t)IW * sizeof *xr); /* 0.0f narrowed */
            continue;
        }
        const float *pr = P + a * ps;
        for (int64_t j = 0; j < nw; j += 8) {
            __m128 v0, v1;
            if (j + 8 <= nw) {
                v0 = _mm_add_ps(z, _mm_loadu_ps(pr + j));
                v1 = _mm_add_ps(z, _mm_loadu_ps(pr + j + 4));
            } else { /* the last nw % 8: padded with ones (a zero would take the narrowing's slow path) */
                float t[8] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};
                memcpy(t, pr + j, (size_t)(nw - j) * sizeof *t);
                v0 = _mm_add_ps(z, _mm_loadu_ps(t));
                v1 = _mm_add_ps(z, _mm_loadu_ps(t + 4));
            }
            __m128i h;
            if (!bf16) {
                h = acl_hr_f32x8_to_f16_(_mm_castps_si128(v0), _mm_castps_si128(v1), &nan);
            } else {
                badv = _mm_or_ps(badv, _mm_cmpunord_ps(v0, v1));
                h = _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v0)),
                                    acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v1)));
            }
            _mm_storeu_si128((__m128i *)(void *)(H + j), h); /* H has room for the padding */
        }
        memset(H + nw, 0, 8 * sizeof *H); /* the zero slot (0 + +0 narrowed) and the +0s after it */
        for (int64_t bb = 0; bb < er->nb; bb++) {
            const int64_t c0 = 8 * bb;
            if (er->ok[bb]) {
                const int32_t e = er->base[2 * bb], o = er->base[2 * bb + 1];
                const __m128i he = _mm_loadl_epi64((const __m128i *)(const void *)(H + (e < 0 ? nw : e)));
                const __m128i ho = _mm_loadl_epi64((const __m128i *)(const void *)(H + (o < 0 ? nw : o)));
                _mm_storeu_si128((__m128i *)(void *)(xr + c0), _mm_unpacklo_epi16(he, ho));
            } else {
                for (int64_t iw = c0; iw < c0 + 8 && iw < IW; iw++) xr[iw] = H[ix[iw]];
            }
        }
    }
    return !nan && !_mm_movemask_ps(badv);
}
#define AP_P_SPREAD_(xp, P, p, bf16) \
    (!g_have_avx512 && (p)->e_reg && ((const ap_reg *)(p)->e_reg)->spread && ap_p_spread_sse2_((xp), (P), (p), (bf16)))

/* the column sums of rows r0, r0 + xs2, ..., NR of them, 8 columns a step (fp16: widened to the scaled domain,
 * the largest magnitude kept in mx) */
#define AP_FCOLS_(NR, F16)                                                                                        \
    for (; j + 8 <= nw; j += 8) {                                                                                 \
        __m128 s0 = z, s1 = z;                                                                                    \
        for (int64_t t = 0; t < (NR); t++) {                                                                      \
            const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(r0 + t * xs2 + j));                 \
            __m128i lo, hi;                                                                                       \
            if (F16) { /* the upper 16 bits: sign, em >> 3 (srai's copies of the sign in bits 14..12 cleared) */  \
                mx = _mm_max_epi16(mx, _mm_and_si128(h, _mm_set1_epi16(0x7fff)));                                 \
                const __m128i top = _mm_and_si128(_mm_srai_epi16(h, 3), _mm_set1_epi16((short)0x8fff));           \
                const __m128i bot = _mm_slli_epi16(h, 13);                                                        \
                lo = _mm_unpacklo_epi16(bot, top);                                                                \
                hi = _mm_unpackhi_epi16(bot, top);                                                                \
            } else {                                                                                              \
                lo = _mm_unpacklo_epi16(zi, h);                                                                   \
                hi = _mm_unpackhi_epi16(zi, h);                                                                   \
            }                                                                                                     \
            s0 = _mm_add_ps(s0, _mm_castsi128_ps(lo));                                                            \
            s1 = _mm_add_ps(s1, _mm_castsi128_ps(hi));                                                            \
        }                                                                                                         \
        _mm_store_ps(tmp + j, s0);                                                                                \
        _mm_store_ps(tmp + j + 4, s1);                                                                            \
    }
/* slot i's 4 partials: the even lanes of the 8 from its base (the zero slot: base nw + 1, the +0s past tmp[nw]) */
#define AP_FL_(i) _mm_shuffle_ps(_mm_loadu_ps(tmp + bs[i]), _mm_loadu_ps(tmp + bs[i] + 4), _MM_SHUFFLE(2, 0, 2, 0))
#define AP_FWD_SSE2_FN_(name, F16)                                                                                \
    static bool name(uint16_t *yr, const uint16_t *xp, int64_t xs2, int64_t a, int64_t b, const float *wt,       \
                     const avgpool_plan *p) {                                                                     \
        const ap_reg *fr = p->f_reg;                                                                              \
        const int64_t OW = p->ow, w0 = p->w_begin, nw = p->w_end - w0, m = p->m;                                  \
        const int32_t *ix = p->w_idx;                                                                             \
        float tmp[AVGPOOL_TMP + 16] __attribute__((aligned(16)));                                                 \
        float R[AVGPOOL_TMP + 8] __attribute__((aligned(16)));                                                    \
        const __m128i zi = _mm_setzero_si128();                                                                   \
        const __m128 z = _mm_setzero_ps();                                                                        \
        __m128i mx = zi;                                                                                          \
        int sp = 0;                                                                                               \
        int64_t j = 0;                                                                                            \
        const uint16_t *r0 = xp + a * xs2 + w0;                                                                   \
        switch (b - a) { /* 2 and 3 rows unrolled */                                                              \
        case 2: AP_FCOLS_(2, F16); break;                                                                         \
        case 3: AP_FCOLS_(3, F16); break;                                                                         \
        default: AP_FCOLS_(b - a, F16);                                                                           \
        }                                                                                                         \
        for (; j < nw; j++) {                                                                                     \
            float s = 0.0f;                                                                                       \
            for (int64_t ih = a; ih < b; ih++) {                                                                  \
                const uint32_t h = xp[ih * xs2 + w0 + j];                                                         \
                sp |= F16 && (h & 0x7fffu) > 0x7bffu;                                                             \
                s += acl_hr_float_(F16 ? ((h & 0x8000u) << 16) | ((h & 0x7fffu) << 13) : h << 16);                \
            }                                                                                                     \
            tmp[j] = s;                                                                                           \
        }                                                                                                         \
        for (int64_t k = nw; k < nw + 16; k++) tmp[k] = 0.0f; /* the zero slot, then the shuffles' over-read */   \
        if (F16 && (sp || _mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff))))) return false;         \
        const __m128 up = _mm_set1_ps(F16 ? 0x1p112f : 1.0f);                                                     \
        /* the padding lanes of the last blocks: 1.0 after the scale-back (a zero is the narrowing's slow path) */ \
        const float pad = F16 ? 0x1p-112f : 1.0f;                                                                 \
        const int64_t nb = (OW + 3) / 4;                                                                          \
        for (int64_t bb = 0; bb < nb; bb++) {                                                                     \
            const int64_t o0 = 4 * bb;                                                                            \
            __m128 acc = z;                                                                                       \
            if (fr && fr->ok[bb]) { /* a full block; the zero slot reads the +0s past tmp[nw] */                \
                const int32_t *bs = fr->base + bb * m;                                                            \
                switch (m) {                                                                                      \
                case 1: acc = _mm_add_ps(z, AP_FL_(0)); break;                                                    \
                case 2: acc = _mm_add_ps(_mm_add_ps(z, AP_FL_(0)), AP_FL_(1)); break;                             \
                case 3: acc = _mm_add_ps(_mm_add_ps(_mm_add_ps(z, AP_FL_(0)), AP_FL_(1)), AP_FL_(2)); break;      \
                default:                                                                                          \
                    for (int64_t t = 0; t < m; t++) acc = _mm_add_ps(acc, AP_FL_(t));                             \
                }                                                                                                 \
                _mm_store_ps(R + o0, acc);                                                                        \
            } else {                                                                                              \
                for (int64_t o = o0; o < o0 + 4; o++) {                                                           \
                    float s = pad;                                                                                \
                    if (o < OW) {                                                                                 \
                        s = 0.0f;                                                                                 \
                        for (int64_t t = 0; t < m; t++) s += tmp[ix[o * m + t]];                                  \
                    }                                                                                             \
                    R[o] = s;                                                                                     \
                }                                                                                                 \
            }                                                                                                     \
        }                                                                                                         \
        const int64_t n8 = (OW + 7) / 8;                                                                          \
        if (4 * nb < 8 * n8) _mm_store_ps(R + 4 * nb, _mm_set1_ps(pad));                                         \
        int nan = 0;                                                                                              \
        __m128 badv = z;                                                                                          \
        for (int64_t k = 0; k < n8; k++) {                                                                        \
            __m128 w0, w1;                                                                                        \
            if (8 * k + 8 <= OW) {                                                                                \
                w0 = _mm_loadu_ps(wt + 8 * k);                                                                    \
                w1 = _mm_loadu_ps(wt + 8 * k + 4);                                                                \
            } else {                                                                                              \
                float w8[8] = {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 1.0f};                                   \
                memcpy(w8, wt + 8 * k, (size_t)(OW - 8 * k) * sizeof *w8);                                        \
                w0 = _mm_loadu_ps(w8);                                                                            \
                w1 = _mm_loadu_ps(w8 + 4);                                                                        \
            }                                                                                                     \
            const __m128 v0 = _mm_div_ps(_mm_mul_ps(_mm_load_ps(R + 8 * k), up), w0);                             \
            const __m128 v1 = _mm_div_ps(_mm_mul_ps(_mm_load_ps(R + 8 * k + 4), up), w1);                         \
            __m128i h;                                                                                            \
            if (F16) {                                                                                            \
                h = acl_hr_f32x8_to_f16_(_mm_castps_si128(v0), _mm_castps_si128(v1), &nan);                       \
            } else {                                                                                              \
                badv = _mm_or_ps(badv, _mm_cmpunord_ps(v0, v1));                                                  \
                h = _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v0)),                              \
                                    acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v1)));                             \
            }                                                                                                     \
            if (8 * k + 8 <= OW) {                                                                                \
                _mm_storeu_si128((__m128i *)(void *)(yr + 8 * k), h);                                             \
            } else {                                                                                              \
                uint16_t h8[8];                                                                                   \
                _mm_storeu_si128((__m128i *)(void *)h8, h);                                                       \
                memcpy(yr + 8 * k, h8, (size_t)(OW - 8 * k) * sizeof *yr);                                        \
            }                                                                                                     \
        }                                                                                                         \
        return !nan && !_mm_movemask_ps(badv);                                                                    \
    }
AP_FWD_SSE2_FN_(ap_fwd_f16_sse2_, 1)
AP_FWD_SSE2_FN_(ap_fwd_bf16_sse2_, 0)
#undef AP_FWD_SSE2_FN_
#undef AP_FL_
#undef AP_FCOLS_
#define AP_FWD_PORT_(fn, yr, xp, xs2, a, b, wt, p) \
    (!g_have_f16c && (p)->w_idx && fn((yr), (xp), (xs2), (a), (b), (wt), (p)))
/* bf16 also at AVX2 / AVX-512 when there is no permute table (wide windows, e.g. adaptive 56 -> 7): the kernel's
 * loop there is the same baseline code as this */
#define AP_FWD_PORT_BF16_(fn, yr, xp, xs2, a, b, wt, p) \
    ((!g_have_f16c || !(p)->f_perm) && (p)->w_idx && fn((yr), (xp), (xs2), (a), (b), (wt), (p)))
#else
#define AP_E_PORT_(P, E, p) ((void)(P), (void)(E), false)
#define AP_P_SPREAD_(xp, P, p, bf16) ((void)(xp), (void)(P), false)
#define AP_FWD_PORT_(fn, yr, xp, xs2, a, b, wt, p) ((void)(yr), (void)(xp), false)
#define AP_FWD_PORT_BF16_(fn, yr, xp, xs2, a, b, wt, p) ((void)(yr), (void)(xp), false)
#endif

/* The forward's rows at AVX-512 for dense fp16/bf16 input and output rows: the column sums of the window's rows
 * 16 columns a step with the halves widened in registers (0 + x[a] + ... + x[b-1], avg_pool2d.inc's order), each
 * output's window sum gathered by permutes from the 48 partials a 16-output block reads (ap_perm, built with the
 * plan) instead of one index-list read per element, divided and narrowed in registers. The same IEEE operations in
 * the same order (the zero slot's +0 a masked-off lane's +0), so the same bits - unless an output is NaN: then
 * false and the caller redoes the row with its own loop (which NaN of two operands an addition returns depends on
 * the operand order GCC picks there, and F16C quietens a signalling NaN). Without a NaN output no partial an
 * output reads was NaN. */
static void build_f_perm(avgpool_plan *p) {
    p->f_perm = build_perm(p, p->ow, 3);
    p->f_reg = build_reg(p, p->ow, 1, 2);
}

#ifdef ACL_F16_ROWS_F16C
#define AP_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
#define AP_LD_F16(src, k) _mm512_cvtph_ps(_mm256_maskz_loadu_epi16((k), (src)))
#define AP_LD_BF16(src, k) \
    _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16((k), (src))), 16))
/* 16 sums rounded to bf16 (the nearest even on the bits): the NaN-free case of acl_bf16x16_avx512_ - a NaN lane
 * sends the row to the kernel's loop anyway - with the upper halves gathered by one word permute */
AP_AVX512 static inline __m256i ap_fwd_bf16x16_(__m512 v, __mmask16 *bad) {
    const __m512i odd_words = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29,
                                               27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    *bad |= _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
    const __m512i x = _mm512_castps_si512(v);
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    const __m512i rne = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), odd);
    return _mm512_castsi512_si256(_mm512_permutexvar_epi16(odd_words, rne));
}
/* one output row (n, c, oh): xp the plane, rows a..b-1 of the window, wt the row's divisors */
#define AP_FWD_FN(attr, name, T, LOAD16, STORE16)                                                                \
    attr static bool name(T *yr, const T *xp, int64_t xs2, int64_t a, int64_t b, const float *wt,               \
                          const avgpool_plan *p) {                                                              \
        const int64_t OW = p->ow, w0 = p->w_begin, nw = p->w_end - w0, m = p->m;                                 \
        float tmp[AVGPOOL_TMP + 48] __attribute__((aligned(64))); /* the loads stay inside (masked) */          \
        const __mmask16 kt = (__mmask16)((1u << (nw % 16)) - 1);                                                \
        int64_t j = 0;                                                                                          \
        for (; j + 16 <= nw; j += 16) {                                                                         \
            __m512 acc = _mm512_setzero_ps();                                                                   \
            for (int64_t ih = a; ih < b; ih++) acc = _mm512_add_ps(acc, LOAD16(xp + ih * xs2 + w0 + j, 0xffff)); \
            _mm512_store_ps(tmp + j, acc);                                                                      \
        }                                                                                                       \
        if (j < nw) {                                                                                           \
            __m512 acc = _mm512_setzero_ps();                                                                   \
            for (int64_t ih = a; ih < b; ih++) acc = _mm512_add_ps(acc, LOAD16(xp + ih * xs2 + w0 + j, kt));     \
            _mm512_store_ps(tmp + j, acc); /* the masked-off lanes: +0, tmp[nw] the zero slot among them */      \
        } else                                                                                                  \
            tmp[nw] = 0;                                                                                        \
        const ap_perm *fp = p->f_perm;                                                                           \
        const __m512 one = _mm512_set1_ps(1.0f);                                                                \
        __mmask16 bad = 0;                                                                                      \
        for (int64_t bb = 0; bb < fp->nb; bb++) {                                                               \
            const int64_t o0 = bb * 16;                                                                         \
            const __mmask16 ks = (__mmask16)(o0 + 16 <= OW ? 0xffffu : (1u << (OW - o0)) - 1);                  \
            const float *tr = tmp + fp->base[bb];                                                               \
            const uint16_t *lm = fp->lm + 3 * bb, *kl = fp->klo + bb * m, *kh = fp->khi + bb * m;               \
            const __m512 lo = _mm512_maskz_loadu_ps(lm[0], tr), hi = _mm512_maskz_loadu_ps(lm[1], tr + 16);     \
            const __m512 h2 = _mm512_maskz_loadu_ps(lm[2], tr + 32);                                            \
            const int32_t *ix = fp->idx + bb * m * 16;                                                          \
            __m512 acc = _mm512_setzero_ps();                                                                   \
            for (int64_t t = 0; t < m; t++) {                                                                   \
                const __m512i i = _mm512_load_si512((const void *)(ix + 16 * t));                               \
                __m512 v = _mm512_maskz_permutex2var_ps(kl[t], lo, i, hi);                                      \
                v = _mm512_mask_permutexvar_ps(v, kh[t], i, h2);                                                \
                acc = _mm512_add_ps(acc, v);                                                                    \
            }                                                                                                   \
            const __m512 out = _mm512_div_ps(acc, _mm512_mask_loadu_ps(one, ks, wt + o0));                      \
            STORE16(yr + o0, ks, out);                                                                          \
        }                                                                                                       \
        return bad == 0;                                                                                        \
    }
#define AP_LD_F32(src, k) _mm512_maskz_loadu_ps((k), (src))
#define AP_ST_F16(dst, k, v) _mm256_mask_storeu_epi16((dst), (k), ap_cvt16_f16_((v), &bad))
#define AP_ST_BF16(dst, k, v) _mm256_mask_storeu_epi16((dst), (k), ap_fwd_bf16x16_((v), &bad))
#define AP_ST_F32(dst, k, v)                                 \
    do {                                                     \
        bad |= _mm512_cmp_ps_mask((v), (v), _CMP_UNORD_Q);   \
        _mm512_mask_storeu_ps((dst), (k), (v));              \
    } while (0)
AP_FWD_FN(AP_AVX512, ap_fwd_f16_avx512_, uint16_t, AP_LD_F16, AP_ST_F16)
AP_FWD_FN(AP_AVX512, ap_fwd_bf16_avx512_, uint16_t, AP_LD_BF16, AP_ST_BF16)
AP_FWD_FN(AP_AVX512, ap_fwd_f32_avx512_, float, AP_LD_F32, AP_ST_F32)
#undef AP_FWD_FN
#undef AP_LD_F32
#undef AP_ST_F16
#undef AP_ST_BF16
#undef AP_ST_F32
#undef AP_LD_F16
#undef AP_LD_BF16
#undef AP_AVX512
#define AP_FWD_FAST_(fn, yr, xp, xs2, a, b, wt, p) \
    (g_have_avx512 && (p)->f_perm && fn((yr), (xp), (xs2), (a), (b), (wt), (p)))
#else
#define AP_FWD_FAST_(fn, yr, xp, xs2, a, b, wt, p) ((void)(yr), (void)(xp), false)
#endif

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
    if (!build_index_lists(p, p->w_lo, p->w_hi, p->ow)) return false;
    build_f_perm(p);
    return true;
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
    if (!build_index_lists(p, p->w_lo, p->w_hi, p->iw)) return false;
    build_e_perm(p);
    return true;
}

void avgpool_plan_free(void *plan) {
    avgpool_plan *p = plan;
    if (p) {
        free(p->mem);
        free(p->w_idx);
        free(p->e_perm);
        free(p->f_perm);
        free(p->e_reg);
        free(p->f_reg);
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
#define AP_E_FAST(P, E, p) false
#define AP_P_SPREAD(xp, P, p) false
#define AP_PE_FAST(gp, gs2, P, E, p) AP_PE_FAST_(ap_pe_f32_avx512_, gp, gs2, P, E, p)
#define AP_FWD_ROW(yr, xp, xs2, a, b, wt, p) AP_FWD_FAST_(ap_fwd_f32_avx512_, yr, xp, xs2, a, b, wt, p)
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
#undef AP_PE_FAST
#define AP_PE_FAST(gp, gs2, P, E, p) AP_PE_FAST_(ap_pe_f16_avx512_, gp, gs2, P, E, p)
#undef AP_FWD_ROW
#define AP_FWD_ROW(yr, xp, xs2, a, b, wt, p)                                 \
    (AP_FWD_FAST_(ap_fwd_f16_avx512_, yr, xp, xs2, a, b, wt, p) ||            \
     AP_FWD_PORT_(ap_fwd_f16_sse2_, yr, xp, xs2, a, b, wt, p))
#undef AP_E_FAST
#define AP_E_FAST(P, E, p) AP_E_PORT_(P, E, p)
#undef AP_P_SPREAD
#define AP_P_SPREAD(xp, P, p) AP_P_SPREAD_(xp, P, p, 0)
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
#undef AP_PE_FAST
#define AP_PE_FAST(gp, gs2, P, E, p) AP_PE_FAST_(ap_pe_bf16_avx512_, gp, gs2, P, E, p)
#undef AP_FWD_ROW
#define AP_FWD_ROW(yr, xp, xs2, a, b, wt, p)                                 \
    (AP_FWD_FAST_(ap_fwd_bf16_avx512_, yr, xp, xs2, a, b, wt, p) ||           \
     AP_FWD_PORT_BF16_(ap_fwd_bf16_sse2_, yr, xp, xs2, a, b, wt, p))
#undef AP_P_SPREAD
#define AP_P_SPREAD(xp, P, p) AP_P_SPREAD_(xp, P, p, 1)
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
    if (!build_index_lists(p, p->w_lo, p->w_hi, p->ow)) return false;
    build_f_perm(p);
    return true;
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
    if (!build_index_lists(p, p->w_lo, p->w_hi, p->iw)) return false;
    build_e_perm(p);
    return true;
}
