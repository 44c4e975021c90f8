/* Max pooling kernels of the pooling family. Values are compared in fp32 (fp16/bf16/fp32) or double and the
 * chosen element is copied bit-exactly; each output cell is owned by one thread (deterministic). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "kernels/pool.h"
#include "kernels/pool3d.h"

static void adaptive_range(int64_t o, int64_t in, int64_t out, int64_t *lo, int64_t *hi) {
    *lo = (int64_t)(((__int128)o * in) / out);
    *hi = (int64_t)((((__int128)o + 1) * in + out - 1) / out);
}

#define AMAX_BODY(T, CT, LOAD)                                                                                   \
    do {                                                                                                         \
        const T *xb = (const T *)x->base;                                                                        \
        T *yb = (T *)y->base;                                                                                    \
        int64_t *ib = (int64_t *)idx->base;                                                                      \
        _Pragma("omp parallel for schedule(static)") for (int64_t pl = 0; pl < planes; pl++) {                   \
            int64_t p0 = pl / n1, p1 = pl % n1;                                                                  \
            int64_t xo = p0 * xs0 + p1 * xs1, yo = p0 * ys0 + p1 * ys1, io = p0 * is0 + p1 * is1;               \
            for (int64_t o = 0; o < oh; o++) {                                                                   \
                int64_t h0, h1;                                                                                  \
                adaptive_range(o, ih, oh, &h0, &h1);                                                             \
                for (int64_t q = 0; q < ow; q++) {                                                               \
                    int64_t w0, w1;                                                                              \
                    adaptive_range(q, iw, ow, &w0, &w1);                                                         \
                    int64_t best = h0 * iw + w0, bo = xo + h0 * xsh + w0 * xsw;                                  \
                    CT m = -INFINITY;                                                                            \
                    for (int64_t h = h0; h < h1; h++)                                                            \
                        for (int64_t w = w0; w < w1; w++) {                                                      \
                            int64_t off = xo + h * xsh + w * xsw;                                                \
                            CT v = LOAD(xb[off]);                                                                \
                            if (v > m || isnan(v)) {                                                             \
                                m = v;                                                                           \
                                best = h * iw + w;                                                               \
                                bo = off;                                                                        \
                            }                                                                                    \
                        }                                                                                        \
                    yb[yo + o * ysh + q * ysw] = xb[bo];                                                         \
                    ib[io + o * ish + q * isw] = best;                                                           \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)

#define LOAD_ID(v) (v)
#define LOAD_F16(v) acl_f16_to_f32(v)
#define LOAD_BF16(v) acl_bf16_to_f32(v)

void pool_adaptive_max2d(const acl_view *x, acl_view *y, acl_view *idx, const pool_axes *ax) {
    const int a0 = ax->pa[0], a1 = ax->pa[1];
    const int64_t n0 = x->dims[a0], n1 = a1 >= 0 ? x->dims[a1] : 1, planes = n0 * n1;
    const int64_t xs0 = x->strides[a0], xs1 = a1 >= 0 ? x->strides[a1] : 0;
    const int64_t ys0 = y->strides[a0], ys1 = a1 >= 0 ? y->strides[a1] : 0;
    const int64_t is0 = idx->strides[a0], is1 = a1 >= 0 ? idx->strides[a1] : 0;
    const int64_t ih = x->dims[ax->ah], iw = x->dims[ax->aw], oh = y->dims[ax->ah], ow = y->dims[ax->aw];
    const int64_t xsh = x->strides[ax->ah], xsw = x->strides[ax->aw];
    const int64_t ysh = y->strides[ax->ah], ysw = y->strides[ax->aw];
    const int64_t ish = idx->strides[ax->ah], isw = idx->strides[ax->aw];
    if (oh > 0 && ow > 0 && ih % oh == 0 && iw % ow == 0) {
        /* both axes divide evenly: the windows of kernel = stride = in / out without padding (kernels/pool3d.c),
         * the same cell chosen by the same rule */
        pool_max_params mp = {.lead = {a0, a1}, .sp = {-1, ax->ah, ax->aw}, .idx_mode = POOL_IDX_VIEW,
                              .k = {1, ih / oh, iw / ow}, .s = {1, ih / oh, iw / ow}, .p = {0, 0, 0}, .dl = {1, 1, 1}};
        pool_max_nd(x, y, idx, &mp);
        return;
    }
    if (x->dtype != ACL_DOUBLE) { /* the adaptive 3-D kernel with D absent (its per-row fp32 path) */
        const pool_ad_params ap = {.lead = {a0, a1}, .sp = {-1, ax->ah, ax->aw}};
        pool_adaptive_max3d(x, y, idx, &ap);
        return;
    }
    switch (x->dtype) {
    case ACL_FLOAT: AMAX_BODY(float, float, LOAD_ID); break;
    case ACL_DOUBLE: AMAX_BODY(double, double, LOAD_ID); break;
    case ACL_FLOAT16: AMAX_BODY(uint16_t, float, LOAD_F16); break;
    case ACL_BF16: AMAX_BODY(uint16_t, float, LOAD_BF16); break;
    default: break;
    }
}

/* the windowed max pools' backward (kernels/pool3d.c) with 1-cell windows: the gradient is routed by the indices
 * alone, so it is exactly this op's */
void pool_max2d_backward_by_index(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_axes *ax) {
    pool_max_params pp = {.lead = {ax->pa[0], ax->pa[1]}, .sp = {-1, ax->ah, ax->aw}, .idx_mode = POOL_IDX_VIEW};
    for (int i = 0; i < 3; i++) {
        pp.k[i] = pp.s[i] = pp.dl[i] = 1;
        pp.p[i] = 0;
    }
    pool_max_nd_backward(gy, ind, gx, &pp);
}

/* ---------------------------------------------------------------- adaptive average pooling 2-D, fp16 */

#include "common/cpu.h"
#include "common/half_rows.h"
#include "common/parallel.h"
#include "kernels/f16_rows.h"

#define PAA_MAXW 2048 /* widest input / output row of the row buffers */

bool pool_adaptive_avg2d_f16_fits(int64_t iw, int64_t ow) { return iw <= PAA_MAXW && ow <= PAA_MAXW; }

/* T[j] = 0 + x[a][j] + ... + x[b-1][j] for the iw columns, each half widened exactly (acl_f16_to_f32): the
 * reference every level's row function below reproduces bit for bit, and the whole computation of a row holding
 * an Inf or NaN input (which NaN of two an addition keeps is this code's operand order, and F16C quietens a
 * signalling NaN: only this one code then, at every level). */
static void paa_cols_exact(float *T, const uint16_t *xp, int64_t xsh, int64_t xsw, int64_t a, int64_t b,
                           int64_t iw) {
    for (int64_t j = 0; j < iw; j++) T[j] = 0.0f;
    for (int64_t ih = a; ih < b; ih++) {
        const uint16_t *r = xp + ih * xsh;
        for (int64_t j = 0; j < iw; j++) T[j] += acl_f16_to_f32(r[j * xsw]);
    }
}

#if defined(ACL_F16_ROWS_F16C) || defined(ACL_HALF_ROWS_SSE2)
/* the last iw - j0 columns of a contiguous row block, element by element; false on an Inf / NaN */
static bool paa_cols_tail(float *T, const uint16_t *xp, int64_t xsh, int64_t a, int64_t b, int64_t j0, int64_t iw) {
    uint32_t sp = 0;
    for (int64_t j = j0; j < iw; j++) {
        float s = 0.0f;
        for (int64_t ih = a; ih < b; ih++) {
            const uint16_t h = xp[ih * xsh + j];
            sp |= (uint32_t)((h & 0x7fffu) > 0x7bffu);
            s += acl_f16_to_f32_bf(h);
        }
        T[j] = s;
    }
    return sp == 0;
}
#endif

#ifdef ACL_F16_ROWS_F16C
/* 8 columns a step with F16C from column j, the tail element by element; false when a half is Inf / NaN */
__attribute__((target("avx2,f16c"))) static bool paa_cols_f16c(float *T, const uint16_t *xp, int64_t xsh, int64_t a,
                                                               int64_t b, int64_t j, int64_t iw) {
    const __m128i em = _mm_set1_epi16(0x7fff), lim = _mm_set1_epi16(0x7bff);
    __m128i sp = _mm_setzero_si128();
    for (; j + 8 <= iw; j += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int64_t ih = a; ih < b; ih++) {
            const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(xp + ih * xsh + j));
            sp = _mm_or_si128(sp, _mm_cmpgt_epi16(_mm_and_si128(h, em), lim));
            acc = _mm256_add_ps(acc, _mm256_cvtph_ps(h));
        }
        _mm256_storeu_ps(T + j, acc);
    }
    const bool ok = _mm_movemask_epi8(sp) == 0;
    return paa_cols_tail(T, xp, xsh, a, b, j, iw) && ok;
}
/* 16 columns a step, then the 8-column steps above (plain loads: word-masked loads measured 3-4x slower here on
 * this AMD part) */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static bool
paa_cols_avx512(float *T, const uint16_t *xp, int64_t xsh, int64_t a, int64_t b, int64_t iw) {
    const __m256i em = _mm256_set1_epi16(0x7fff), lim = _mm256_set1_epi16(0x7bff);
    __mmask16 sp = 0;
    int64_t j = 0;
    for (; j + 16 <= iw; j += 16) {
        __m512 acc = _mm512_setzero_ps();
        for (int64_t ih = a; ih < b; ih++) {
            const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(xp + ih * xsh + j));
            sp |= _mm256_cmpgt_epi16_mask(_mm256_and_si256(h, em), lim);
            acc = _mm512_add_ps(acc, _mm512_cvtph_ps(h));
        }
        _mm512_storeu_ps(T + j, acc);
    }
    return paa_cols_f16c(T, xp, xsh, a, b, j, iw) && sp == 0;
}
#endif

#ifdef ACL_HALF_ROWS_SSE2
/* The portable level on x86-64 (SSE2), summing in a scaled domain: the bits sign | (h & 0x7fff) << 13 read as fp32 are
 * the half's value times 2^-112 exactly (subnormal halves: fp32 subnormals), built by 3 integer operations a
 * vector (no multiplication, no per-block test: the largest magnitude is kept and tested once). The fp32 sums of
 * these scaled values are the real sums times 2^-112 exactly, so the product by 2^112 at the end (exact) gives the
 * bits of the real-domain sums: every partial sum of halves is a multiple of 2^-24; a partial of magnitude at least
 * 2^-14 is a normal number in both domains, where rounding commutes with the power-of-two scale, and a smaller one
 * has at most 10 significant bits, exact in both (a multiple of 2^-136 below 2^-126 is a representable subnormal).
 * 10 operations per 8 halves instead of 15 (1.27 -> ms at N32 C64 56x56 -> 7x7). */
static bool paa_cols_sse2(float *T, const uint16_t *xp, int64_t xsh, int64_t a, int64_t b, int64_t iw) {
    const __m128i em = _mm_set1_epi16(0x7fff), keep = _mm_set1_epi16((short)0x8fff);
    const __m128 up = _mm_set1_ps(0x1p112f);
    __m128i mx = _mm_setzero_si128();
    int64_t j = 0;
    for (; j + 8 <= iw; j += 8) {
        __m128 s0 = _mm_setzero_ps(), s1 = _mm_setzero_ps();
        for (int64_t ih = a; ih < b; ih++) {
            const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(xp + ih * xsh + j));
            mx = _mm_max_epi16(mx, _mm_and_si128(h, em));
            /* the upper 16 bits of each fp32: sign, then em >> 3 (srai copies the sign into bits 14..12: cleared) */
            const __m128i top = _mm_and_si128(_mm_srai_epi16(h, 3), keep), bot = _mm_slli_epi16(h, 13);
            s0 = _mm_add_ps(s0, _mm_castsi128_ps(_mm_unpacklo_epi16(bot, top)));
            s1 = _mm_add_ps(s1, _mm_castsi128_ps(_mm_unpackhi_epi16(bot, top)));
        }
        _mm_storeu_ps(T + j, _mm_mul_ps(s0, up));
        _mm_storeu_ps(T + j + 4, _mm_mul_ps(s1, up));
    }
    const bool ok = !_mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)));
    return paa_cols_tail(T, xp, xsh, a, b, j, iw) && ok;
}
#endif

/* the column sums of a row block with unit-stride rows at the current level; false: an Inf / NaN input */
static bool paa_cols(float *T, const uint16_t *xp, int64_t xsh, int64_t a, int64_t b, int64_t iw) {
#ifdef ACL_F16_ROWS_F16C
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) return paa_cols_avx512(T, xp, xsh, a, b, iw);
    if (lv >= ACL_SIMD_AVX2) return paa_cols_f16c(T, xp, xsh, a, b, 0, iw);
#endif
#ifdef ACL_HALF_ROWS_SSE2
    return paa_cols_sse2(T, xp, xsh, a, b, iw);
#else
    /* elsewhere (aarch64: the hardware conversion) plain loops the compiler vectorises */
    uint16_t sp = 0;
    for (int64_t j = 0; j < iw; j++) T[j] = 0.0f;
    for (int64_t ih = a; ih < b; ih++) {
        const uint16_t *r = xp + ih * xsh;
        for (int64_t j = 0; j < iw; j++) {
            sp |= (uint16_t)((r[j] & 0x7fffu) > 0x7bffu);
            T[j] += acl_f16_to_f32_bf(r[j]);
        }
    }
    return sp == 0;
#endif
}

/* fp32 row -> fp16 row (the same bits at every level) */
static void paa_store_row(uint16_t *d, const float *s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) {
        acl_f32_to_f16_row_avx512(d, s, n);
        return;
    }
    if (lv >= ACL_SIMD_AVX2) {
        acl_f32_to_f16_row_f16c(d, s, n);
        return;
    }
#endif
    acl_row_f32_to_f16(d, s, n);
}

/* R[ow] = the outputs of one row: column sums of input rows [a, b) of plane xp, then each window's 0 + T[lo] + ... +
 * T[hi-1] divided by its cell count. Aligned to 64 bytes: where the link put it (other objects' sizes) moved the
 * portable level's fp16 forward between 0.80 and 0.98 ms (N32 C64 56x56 -> 7x7, 1 thread). */
__attribute__((aligned(64))) static void paa_row(float *R, const uint16_t *xp, int64_t xsh, int64_t xsw, int64_t a,
                                                 int64_t b, int64_t IW,
                                                 int64_t OW, const int64_t *wlo, const int64_t *whi) {
    float T[PAA_MAXW + 16];
    if (!(xsw == 1 && paa_cols(T, xp, xsh, a, b, IW))) paa_cols_exact(T, xp, xsh, xsw, a, b, IW);
    for (int64_t ow = 0; ow < OW; ow++) {
        const int64_t lo = wlo[ow], hi = whi[ow];
        float acc = 0.0f;
        for (int64_t k = lo; k < hi; k++) acc += T[k];
        R[ow] = acc / (float)((b - a) * (hi - lo));
    }
}

/* fp32 outputs -> the fp16 row yr (element stride ysw) */
static void paa_put(uint16_t *yr, int64_t ysw, const float *R, int64_t n) {
    if (ysw == 1) {
        paa_store_row(yr, R, n);
    } else {
        for (int64_t i = 0; i < n; i++) yr[i * ysw] = acl_f32_to_f16(R[i]);
    }
}

bool pool_adaptive_avg2d_f16(const acl_view *x, acl_view *y, const pool_axes *ax) {
    const int a0 = ax->pa[0], a1 = ax->pa[1];
    const int64_t n1 = a1 >= 0 ? x->dims[a1] : 1, planes = x->dims[a0] * n1;
    const int64_t xs0 = x->strides[a0], xs1 = a1 >= 0 ? x->strides[a1] : 0;
    const int64_t ys0 = y->strides[a0], ys1 = a1 >= 0 ? y->strides[a1] : 0;
    const int64_t IH = x->dims[ax->ah], IW = x->dims[ax->aw], OH = y->dims[ax->ah], OW = y->dims[ax->aw];
    const int64_t xsh = x->strides[ax->ah], xsw = x->strides[ax->aw];
    const int64_t ysh = y->strides[ax->ah], ysw = y->strides[ax->aw];
    if (planes <= 0 || OH <= 0 || OW <= 0) return true;
    int64_t *tab = malloc((size_t)(2 * OH + 2 * OW) * sizeof(int64_t)); /* the windows of both axes */
    if (!tab) return false;
    int64_t *hlo = tab, *hhi = tab + OH, *wlo = tab + 2 * OH, *whi = tab + 2 * OH + OW;
    for (int64_t o = 0; o < OH; o++) adaptive_range(o, IH, OH, &hlo[o], &hhi[o]);
    for (int64_t o = 0; o < OW; o++) adaptive_range(o, IW, OW, &wlo[o], &whi[o]);
    const uint16_t *xb = (const uint16_t *)x->base;
    uint16_t *yb = (uint16_t *)y->base;
    const bool par = acl_parallel_worth(planes * IH * IW);
    if (planes >= 64 && OH * OW <= PAA_MAXW && ysw == 1 && (OH == 1 || ysh == OW)) {
        /* many planes, each output plane one dense run: a plane per iteration, rounded in one call */
        ACL_FOR(par, pl, 0, planes, {
            const int64_t p0 = pl / n1, p1 = pl % n1;
            const uint16_t *xp = xb + p0 * xs0 + p1 * xs1;
            float R[PAA_MAXW];
            for (int64_t oh = 0; oh < OH; oh++) paa_row(R + oh * OW, xp, xsh, xsw, hlo[oh], hhi[oh], IW, OW, wlo, whi);
            paa_store_row(yb + p0 * ys0 + p1 * ys1, R, OH * OW);
        });
    } else {
        ACL_FOR(par, r, 0, planes * OH, {
            const int64_t oh = r % OH, pl = r / OH, p0 = pl / n1, p1 = pl % n1;
            float R[PAA_MAXW];
            paa_row(R, xb + p0 * xs0 + p1 * xs1, xsh, xsw, hlo[oh], hhi[oh], IW, OW, wlo, whi);
            paa_put(yb + p0 * ys0 + p1 * ys1 + oh * ysh, ysw, R, OW);
        });
    }
    free(tab);
    return true;
}

/* ---------------------------------------------------------------- adaptive average pooling 2-D backward, fp16 */

#include "common/nan_order.h"
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* The caps of the per-plane buffers (floats): the products, the column sums of distinct column kinds, the grid */
#define PAB_MAXP 4096

/* the output cells [lo[i], hi[i]) whose window covers input index i (contiguous: the windows are monotone) */
static void pab_cover(int64_t in, int64_t out, int64_t *lo, int64_t *hi) {
    for (int64_t i = 0; i < in; i++) lo[i] = hi[i] = 0;
    for (int64_t o = out - 1; o >= 0; o--) { /* descending: lo ends at the first covering o */
        int64_t a, b;
        adaptive_range(o, in, out, &a, &b);
        for (int64_t i = a; i < b && i < in; i++) {
            if (hi[i] == 0) hi[i] = o + 1;
            lo[i] = o;
        }
    }
}

/* runs of equal covers: start[k] (start[n] = in), the cover of each run; returns the number of runs */
static int64_t pab_runs(int64_t in, const int64_t *lo, const int64_t *hi, int64_t *start, int64_t *klo, int64_t *khi) {
    int64_t n = 0;
    for (int64_t i = 0; i < in; i++)
        if (i == 0 || lo[i] != lo[i - 1] || hi[i] != hi[i - 1]) {
            start[n] = i;
            klo[n] = lo[i];
            khi[n] = hi[i];
            n++;
        }
    start[n] = in;
    return n;
}

/* the number of runs of equal covers of an axis of `in` inputs and `out` outputs, and the most outputs covering
 * one input (*m); -1 when out of memory */
static int64_t pab_count_runs(int64_t in, int64_t out, int64_t *m) {
    int64_t *lo = malloc((size_t)(2 * in) * sizeof(int64_t));
    if (!lo) return -1;
    const int64_t *hi = lo + in;
    pab_cover(in, out, lo, lo + in);
    int64_t runs = 0;
    *m = 0;
    for (int64_t i = 0; i < in; i++) {
        if (hi[i] - lo[i] > *m) *m = hi[i] - lo[i];
        runs += i == 0 || lo[i] != lo[i - 1] || hi[i] != hi[i - 1];
    }
    free(lo);
    return runs;
}

bool pool_adaptive_avg2d_backward_f16_fits(int64_t ih, int64_t iw, int64_t oh, int64_t ow) {
    if (ih <= 0 || iw <= 0 || oh <= 0 || ow <= 0 || iw > 2048 || ow > 2048) return false;
    int64_t m, mh;
    const int64_t ck = pab_count_runs(iw, ow, &m), rk = pab_count_runs(ih, oh, &mh);
    /* the avg_pool2d kernels' plane path (whose operation order this kernel keeps, NaN results included): index
     * lists of at most 32 slots, P and E of one plane within 8192 floats; and this kernel's buffers */
    if (ck < 0 || rk < 0 || m == 0 || m > 32 || mh > 32 || oh * (ow + 1) > 8192 || oh * iw > 8192) return false;
    return (oh + 1) * (ow + 1) <= PAB_MAXP && (oh + 1) * ck <= PAB_MAXP && rk * ck <= PAB_MAXP;
}

/* The fp16 row b of IW halves (room for IW + 8): run k of the columns [cs[k], cs[k+1]) all the half h2[k] (stored
 * twice in a 32-bit word), 8 halves a store (a store spilling into the next run is overwritten by that run's);
 * short: every run at most 8 columns (one store each) */
static void pab_build_row(uint16_t *b, const uint32_t *h2, const int64_t *cs, int64_t CK, bool short_runs) {
#ifdef __SSE2__
    if (short_runs) {
        for (int64_t k = 0; k < CK; k++)
            _mm_storeu_si128((__m128i *)(void *)(b + cs[k]), _mm_shuffle_epi32(_mm_cvtsi32_si128((int)h2[k]), 0));
        return;
    }
#endif
    (void)short_runs;
    for (int64_t k = 0; k < CK; k++) {
        const int64_t e = cs[k + 1];
#ifdef __SSE2__
        const __m128i v = _mm_shuffle_epi32(_mm_cvtsi32_si128((int)h2[k]), 0);
        for (int64_t j = cs[k]; j < e; j += 8) _mm_storeu_si128((__m128i *)(void *)(b + j), v);
#else
        for (int64_t j = cs[k]; j < e; j++) b[j] = (uint16_t)h2[k];
#endif
    }
}

/* the row xr (unit stride) = b's first IW halves: 8 a step, the last 8 overlapping (IW >= 8) */
static inline void pab_copy_row(uint16_t *xr, const uint16_t *b, int64_t IW) {
#ifdef __SSE2__
    if (IW >= 8) {
        int64_t j = 0;
        for (; j + 8 < IW; j += 8)
            _mm_storeu_si128((__m128i *)(void *)(xr + j), _mm_loadu_si128((const __m128i *)(const void *)(b + j)));
        _mm_storeu_si128((__m128i *)(void *)(xr + IW - 8),
                         _mm_loadu_si128((const __m128i *)(const void *)(b + IW - 8)));
        return;
    }
#endif
    for (int64_t j = 0; j < IW; j++) xr[j] = b[j];
}

/* gradInput = the gradient of adaptive_avg_pool2d, fp16 (the avg_pool2d kernels' backward, kernels/avg_pool2d.inc):
 * gradInput[ih][iw] = 0 + sum over the covering oh (ascending) of (0 + sum over the covering ow (ascending) of
 * gradOutput[oh][ow] * (1.0f / count)), in fp32, rounded once. That value depends on ih and iw only through their
 * covers, which are runs of equal rows and columns (56 -> 9: 17 kinds of 56), so each plane computes the grid of
 * row kind x column kind sums with the very same additions (bit-equal for every element of a run), narrows that
 * grid, and fills the plane from it: no per-element sums nor per-element narrowing. A NaN product: every sum by
 * common/nan_order.h's rule in that order, as the avg_pool2d kernels' NaN path (no_add_f over their index-list
 * slots; the unused slots' +0 changes nothing, a NaN accumulator is already quiet). Without one, the IEEE sums
 * (an Inf - Inf gives the one default NaN, the same bits in either order). */
bool pool_adaptive_avg2d_backward_f16(const acl_view *gy, acl_view *gx, const pool_axes *ax) {
    const int a0 = ax->pa[0], a1 = ax->pa[1];
    const int64_t n1 = a1 >= 0 ? gx->dims[a1] : 1, planes = gx->dims[a0] * n1;
    const int64_t gs0 = gy->strides[a0], gs1 = a1 >= 0 ? gy->strides[a1] : 0;
    const int64_t xs0 = gx->strides[a0], xs1 = a1 >= 0 ? gx->strides[a1] : 0;
    const int64_t IH = gx->dims[ax->ah], IW = gx->dims[ax->aw], OH = gy->dims[ax->ah], OW = gy->dims[ax->aw];
    const int64_t gsh = gy->strides[ax->ah], gsw = gy->strides[ax->aw];
    const int64_t xsh = gx->strides[ax->ah], xsw = gx->strides[ax->aw];
    if (planes <= 0 || IH <= 0 || IW <= 0) return true;
    /* covers of both axes, their runs, the column kind of each column, the reciprocals */
    const size_t n64 = (size_t)(5 * IH + 6 * IW + 4);
    int64_t *tab = malloc(n64 * sizeof(int64_t) + (size_t)(OH * OW + 32 * IH + 32 * IW) * sizeof(float));
    if (!tab) return false;
    int64_t *hlo = tab, *hhi = hlo + IH, *rs = hhi + IH, *rlo = rs + IH + 1, *rhi = rlo + IH;
    int64_t *wlo = rhi + IH + 1, *whi = wlo + IW, *cs = whi + IW, *clo = cs + IW + 1, *chi = clo + IW;
    int64_t *ckof = chi + IW + 1;
    float *rcp = (float *)(void *)(tab + n64);
    pab_cover(IH, OH, hlo, hhi);
    pab_cover(IW, OW, wlo, whi);
    const int64_t RK = pab_runs(IH, hlo, hhi, rs, rlo, rhi), CK = pab_runs(IW, wlo, whi, cs, clo, chi);
    for (int64_t k = 0; k < CK; k++)
        for (int64_t i = cs[k]; i < cs[k + 1]; i++) ckof[i] = k;
    for (int64_t o = 0; o < OH; o++) {
        int64_t h0, h1;
        adaptive_range(o, IH, OH, &h0, &h1);
        for (int64_t q = 0; q < OW; q++) {
            int64_t w0, w1;
            adaptive_range(q, IW, OW, &w0, &w1);
            rcp[o * OW + q] = 1.0f / (float)((h1 - h0) * (w1 - w0));
        }
    }
    /* fixed-length slot lists of the column kinds (into a P row of OW + 1, slot OW a zero) and of the row kinds
     * (into E rows, row OH zeros): the unused slots add a +0, which changes no sum (each starts at +0, so none is
     * -0) and keeps a NaN (already quiet) */
    int64_t mw = 0, mh = 0;
    for (int64_t k = 0; k < CK; k++) mw = chi[k] - clo[k] > mw ? chi[k] - clo[k] : mw;
    for (int64_t r = 0; r < RK; r++) mh = rhi[r] - rlo[r] > mh ? rhi[r] - rlo[r] : mh;
    if ((OH + 1) * (OW + 1) > PAB_MAXP || (OH + 1) * CK > PAB_MAXP || RK * CK > PAB_MAXP || mw > 32 || mh > 32) {
        free(tab); /* the caller checked _fits */
        return false;
    }
    int32_t *cix = (int32_t *)(void *)(rcp + OH * OW), *rix = cix + 32 * IW;
    bool short_runs = true;
    for (int64_t k = 0; k < CK; k++) short_runs = short_runs && cs[k + 1] - cs[k] <= 8;
    for (int64_t k = 0; k < CK; k++)
        for (int64_t t = 0; t < mw; t++) cix[k * mw + t] = (int32_t)(clo[k] + t < chi[k] ? clo[k] + t : OW);
    for (int64_t r = 0; r < RK; r++)
        for (int64_t t = 0; t < mh; t++) rix[r * mh + t] = (int32_t)(rlo[r] + t < rhi[r] ? rlo[r] + t : OH);
    const uint16_t *gb = (const uint16_t *)gy->base;
    uint16_t *xb = (uint16_t *)gx->base;
    const bool par = acl_parallel_worth(planes * IH * IW);
#pragma omp parallel for schedule(static) if (par)
    for (int64_t pl = 0; pl < planes; pl++) {
        const int64_t p0 = pl / n1, p1 = pl % n1;
        const uint16_t *gp = gb + p0 * gs0 + p1 * gs1;
        uint16_t *xp = xb + p0 * xs0 + p1 * xs1;
        float P[PAB_MAXP], E[PAB_MAXP], G[PAB_MAXP];
        uint16_t H[PAB_MAXP], B[2048 + 8];
        uint32_t H2[PAB_MAXP];
        int nanp = 0;
        const int64_t ps = OW + 1;
        for (int64_t o = 0; o < OH; o++) {
            const uint16_t *gr = gp + o * gsh;
            float *pr = P + o * ps;
            const float *wr = rcp + o * OW;
            if (gsw == 1) {
                for (int64_t q = 0; q < OW; q++) pr[q] = acl_f16_to_f32_bf(gr[q]) * wr[q];
            } else {
                for (int64_t q = 0; q < OW; q++) pr[q] = acl_f16_to_f32_bf(gr[q * gsw]) * wr[q];
            }
            pr[OW] = 0.0f;
            for (int64_t q = 0; q < OW; q++) nanp |= pr[q] != pr[q];
        }
        for (int64_t k = 0; k < CK; k++) E[OH * CK + k] = 0.0f;
        if (__builtin_expect(nanp, 0)) {
            for (int64_t o = 0; o < OH; o++)
                for (int64_t k = 0; k < CK; k++) {
                    float acc = 0.0f;
                    for (int64_t t = 0; t < mw; t++) acc = no_add_f(acc, P[o * ps + cix[k * mw + t]]);
                    E[o * CK + k] = acc;
                }
            for (int64_t r = 0; r < RK; r++)
                for (int64_t k = 0; k < CK; k++) {
                    float acc = 0.0f;
                    for (int64_t t = 0; t < mh; t++) acc = no_add_f(acc, E[rix[r * mh + t] * CK + k]);
                    G[r * CK + k] = acc;
                }
        } else {
            for (int64_t o = 0; o < OH; o++) {
                const float *pr = P + o * ps;
                float *er = E + o * CK;
                switch (mw) {
                case 1:
                    for (int64_t k = 0; k < CK; k++) er[k] = 0.0f + pr[cix[k]];
                    break;
                case 2:
                    for (int64_t k = 0; k < CK; k++) er[k] = (0.0f + pr[cix[2 * k]]) + pr[cix[2 * k + 1]];
                    break;
                default:
                    for (int64_t k = 0; k < CK; k++) {
                        float acc = 0.0f;
                        for (int64_t t = 0; t < mw; t++) acc += pr[cix[k * mw + t]];
                        er[k] = acc;
                    }
                }
            }
            for (int64_t r = 0; r < RK; r++) {
                float *gr = G + r * CK;
                const int32_t *ri = rix + r * mh;
                if (mh == 2) {
                    const float *e0 = E + ri[0] * CK, *e1 = E + ri[1] * CK;
                    for (int64_t k = 0; k < CK; k++) gr[k] = (0.0f + e0[k]) + e1[k];
                } else {
                    for (int64_t k = 0; k < CK; k++) gr[k] = 0.0f;
                    for (int64_t t = 0; t < mh; t++) {
                        const float *er = E + ri[t] * CK;
                        for (int64_t k = 0; k < CK; k++) gr[k] += er[k];
                    }
                }
            }
        }
        paa_store_row(H, G, RK * CK);
        for (int64_t i = 0; i < RK * CK; i++) H2[i] = H[i] * 0x10001u;
        for (int64_t r = 0; r < RK; r++) {
            const uint16_t *hr = H + r * CK;
            if (xsw == 1) pab_build_row(B, H2 + r * CK, cs, CK, short_runs);
            for (int64_t ih = rs[r]; ih < rs[r + 1]; ih++) {
                uint16_t *xr = xp + ih * xsh;
                if (xsw == 1) {
                    pab_copy_row(xr, B, IW);
                } else {
                    for (int64_t iw = 0; iw < IW; iw++) xr[iw * xsw] = hr[ckof[iw]];
                }
            }
        }
    }
    free(tab);
    return true;
}
