/* Adaptive 3-D average pooling forward, the window sums (pool_adaptive_avg3d in pool3d.c). A cell's sum was one
 * chain of dependent double additions (window rows, then W, in order); at 2 threads the N4 C64 16x56x56 -> 4x7x7
 * forward ran at the speed of those chains, no faster than PyTorch. Eight lanes per cell (a term's position in its
 * window row, modulo 8) joined by a fixed tree keep the result independent of thread count and SIMD level; the
 * AVX-512 / AVX2 loops hold the lanes of up to four cells in registers across the window rows and add eight terms
 * per convert + add. Lanes start at +0 and only ever receive terms or +0 (a masked load's zeros): a lane is never
 * -0, so adding +0 to it changes nothing. */
#include "kernels/pool3d_adavg.h"

#include "common/cpu.h"
#include "common/nan_order.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

#define AVX512 __attribute__((target("avx512f,avx512vl,avx2")))

/* one cell's lanes (in a zmm) plus its terms of row p */
AVX512 static inline __m512d cell_row_avx512(__m512d v, const float *p, int64_t L) {
    int64_t m = 0;
    for (; m + 8 <= L; m += 8) v = _mm512_add_pd(v, _mm512_cvtps_pd(_mm256_loadu_ps(p + m)));
    if (m < L) {
        const __mmask8 k = (__mmask8)((1u << (L - m)) - 1u);
        v = _mm512_add_pd(v, _mm512_cvtps_pd(_mm256_maskz_loadu_ps(k, p + m)));
    }
    return v;
}

AVX512 static void rows_add_avx512(double *acc, const float *const *rows, int64_t nr, const int64_t *lo,
                                   const int64_t *len, int64_t n) {
    int64_t o = 0;
    for (; o + 4 <= n; o += 4) { /* four cells: four independent chains */
        __m512d v0 = _mm512_loadu_pd(acc + 8 * o), v1 = _mm512_loadu_pd(acc + 8 * o + 8),
                v2 = _mm512_loadu_pd(acc + 8 * o + 16), v3 = _mm512_loadu_pd(acc + 8 * o + 24);
        const int64_t l0 = lo[o], l1 = lo[o + 1], l2 = lo[o + 2], l3 = lo[o + 3];
        const int64_t L0 = len[o], L1 = len[o + 1], L2 = len[o + 2], L3 = len[o + 3];
        for (int64_t r = 0; r < nr; r++) {
            const float *p = rows[r];
            v0 = cell_row_avx512(v0, p + l0, L0);
            v1 = cell_row_avx512(v1, p + l1, L1);
            v2 = cell_row_avx512(v2, p + l2, L2);
            v3 = cell_row_avx512(v3, p + l3, L3);
        }
        _mm512_storeu_pd(acc + 8 * o, v0);
        _mm512_storeu_pd(acc + 8 * o + 8, v1);
        _mm512_storeu_pd(acc + 8 * o + 16, v2);
        _mm512_storeu_pd(acc + 8 * o + 24, v3);
    }
    for (; o < n; o++) {
        __m512d v = _mm512_loadu_pd(acc + 8 * o);
        for (int64_t r = 0; r < nr; r++) v = cell_row_avx512(v, rows[r] + lo[o], len[o]);
        _mm512_storeu_pd(acc + 8 * o, v);
    }
}

/* lanes 0-3 and 4-7 of one cell plus its terms of row p; the tail's missing terms load as +0 */
__attribute__((target("avx2"))) static inline void cell_row_avx2(__m256d *a, __m256d *b, const float *p,
                                                                   int64_t L) {
    int64_t m = 0;
    for (; m + 8 <= L; m += 8) {
        *a = _mm256_add_pd(*a, _mm256_cvtps_pd(_mm_loadu_ps(p + m)));
        *b = _mm256_add_pd(*b, _mm256_cvtps_pd(_mm_loadu_ps(p + m + 4)));
    }
    if (m < L) {
        const int64_t t = L - m;
        const __m256i idx = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
        const __m256i msk = _mm256_cmpgt_epi32(_mm256_set1_epi32((int)t), idx);
        const __m256 x = _mm256_maskload_ps(p + m, msk);
        *a = _mm256_add_pd(*a, _mm256_cvtps_pd(_mm256_castps256_ps128(x)));
        *b = _mm256_add_pd(*b, _mm256_cvtps_pd(_mm256_extractf128_ps(x, 1)));
    }
}

__attribute__((target("avx2"))) static void rows_add_avx2(double *acc, const float *const *rows, int64_t nr,
                                                           const int64_t *lo, const int64_t *len, int64_t n) {
    int64_t o = 0;
    for (; o + 2 <= n; o += 2) {
        __m256d a0 = _mm256_loadu_pd(acc + 8 * o), b0 = _mm256_loadu_pd(acc + 8 * o + 4),
                a1 = _mm256_loadu_pd(acc + 8 * o + 8), b1 = _mm256_loadu_pd(acc + 8 * o + 12);
        for (int64_t r = 0; r < nr; r++) {
            cell_row_avx2(&a0, &b0, rows[r] + lo[o], len[o]);
            cell_row_avx2(&a1, &b1, rows[r] + lo[o + 1], len[o + 1]);
        }
        _mm256_storeu_pd(acc + 8 * o, a0);
        _mm256_storeu_pd(acc + 8 * o + 4, b0);
        _mm256_storeu_pd(acc + 8 * o + 8, a1);
        _mm256_storeu_pd(acc + 8 * o + 12, b1);
    }
    for (; o < n; o++) {
        __m256d a = _mm256_loadu_pd(acc + 8 * o), b = _mm256_loadu_pd(acc + 8 * o + 4);
        for (int64_t r = 0; r < nr; r++) cell_row_avx2(&a, &b, rows[r] + lo[o], len[o]);
        _mm256_storeu_pd(acc + 8 * o, a);
        _mm256_storeu_pd(acc + 8 * o + 4, b);
    }
}
#endif

/* one cell's lanes plus its terms of row p: the tail goes through a zero-padded copy, so every lane index is a
 * constant and the lanes stay in registers (the compiler vectorises the fixed-length loops: SSE2 / NEON pairs) */
static inline __attribute__((always_inline)) void cell_row_portable(double *l, const float *p, int64_t L) {
    int64_t m = 0;
    for (; m + 8 <= L; m += 8)
        for (int k = 0; k < 8; k++) l[k] += p[m + k];
    if (m < L) {
        float t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int64_t k = 0; k < L - m; k++) t[k] = p[m + k];
        for (int k = 0; k < 8; k++) l[k] += t[k];
    }
}

static void rows_add_portable(double *acc, const float *const *rows, int64_t nr, const int64_t *lo,
                              const int64_t *len, int64_t n) {
    int64_t o = 0;
    for (; o + 2 <= n; o += 2) { /* two cells: independent chains */
        double a[8], b[8];
        for (int k = 0; k < 8; k++) {
            a[k] = acc[8 * o + k];
            b[k] = acc[8 * o + 8 + k];
        }
        for (int64_t r = 0; r < nr; r++) {
            cell_row_portable(a, rows[r] + lo[o], len[o]);
            cell_row_portable(b, rows[r] + lo[o + 1], len[o + 1]);
        }
        for (int k = 0; k < 8; k++) {
            acc[8 * o + k] = a[k];
            acc[8 * o + 8 + k] = b[k];
        }
    }
    for (; o < n; o++) {
        double a[8];
        for (int k = 0; k < 8; k++) a[k] = acc[8 * o + k];
        for (int64_t r = 0; r < nr; r++) cell_row_portable(a, rows[r] + lo[o], len[o]);
        for (int k = 0; k < 8; k++) acc[8 * o + k] = a[k];
    }
}

void p3_adavg_rows_add(double *acc, const float *const *rows, int64_t nr, const int64_t *lo, const int64_t *len,
                       int64_t n) {
#if defined(__x86_64__) && defined(__GNUC__)
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) {
        rows_add_avx512(acc, rows, nr, lo, len, n);
        return;
    }
    if (lv >= ACL_SIMD_AVX2) {
        rows_add_avx2(acc, rows, nr, lo, len, n);
        return;
    }
#endif
    rows_add_portable(acc, rows, nr, lo, len, n);
}

double p3_adavg_join(const double *l) { return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7])); }

void p3_adavg_rule_add(double *l, int64_t k, double v) { l[k & 7] = no_add_d(l[k & 7], v); }

double p3_adavg_rule_join(const double *l) {
    return no_add_d(no_add_d(no_add_d(l[0], l[1]), no_add_d(l[2], l[3])),
                    no_add_d(no_add_d(l[4], l[5]), no_add_d(l[6], l[7])));
}
