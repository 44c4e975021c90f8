/* AvgPool3dBackward's per-plane gather at every SIMD level (see pool3d_avg_bwd.h).
 *
 * One plane: v = gy / divisor for every output (double, each division as the scalar code divides; a NaN sends the
 * plane back to the caller's scatter), then the gradInput rows in (d, h) order. A gradInput row (d, h) adds the
 * expanded rows E[od][oh][q][w] = v[od][oh][wf[w] + q] (+0 past the cell's run of outputs along W) over od in its D
 * run, oh in its H run, q < nk, in that order, to a double from +0 - the plain gather's additions in the plain
 * gather's order, so the same bytes (adding +0 changes no sum: a sum from +0 is never -0). The sums are rounded to
 * fp32 (the MXCSR's round to nearest even, as the scalar cast), then to fp16 by F16C or to bf16 by acl_f32_to_bf16's
 * integer rule (a block holding a NaN - only inf + -inf makes one here - by the scalar acl_f32_to_f16).
 * The expanded rows of one od are built when the first gradInput row needing them comes, into a ring of nd slots
 * (nd: the longest run along D), so they are still in L1 / L2 for the rows that read them. At AVX-512 an expanded
 * chunk of 8 cells is one two-register permute of the v row (its sources within 16 doubles), else a table of
 * source indices (the v rows end with a +0 slot for the cells outside a run). Large gradInputs go out through a
 * staging slab (one d) copied with streaming stores. */
#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "kernels/f16_rows.h"
#include "kernels/pool3d_avg_bwd.h"

#define P3AB_NT_BYTES ((int64_t)8 << 20) /* gradInput at least this large: streaming stores */
#define P3AB_MAX_ROWS 64                 /* expanded rows a gradInput row adds, at most */

struct p3ab_plan {
    int level, gdt, xdt;
    int64_t D, H, W, OD, OH, OW, OWp, Wp, nk, nd, xesz;
    int64_t ys0, ys1, xs0, xs1;
    const int64_t *df, *dl, *hf, *hl;
    const double *divs;
    int32_t *eidx;  /* nk x Wp: the source of E[q][w] in its v row (OW: the row's +0 slot) */
    int32_t *cbase; /* per chunk of 8 cells: where its 16-double window of the v row starts */
    int64_t *cperm; /* per chunk and q: 8 lane sources within that window */
    uint8_t *cmask; /* per chunk and q: the lanes with a source (the others +0) */
    bool perm;      /* every chunk's sources within its window (AVX-512 permutes) */
    bool nt;
    bool bf16n; /* bf16 rows by vcvtneps2bf16 (AVX-512 level and AVX512_BF16) */
    size_t voff, eoff, soff, foff, bytes; /* the scratch: v, the E ring, the staging slab, an fp32 row */
};

static bool dt_ok(int dt) {
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_BF16;
}

static size_t up64(size_t n) {
    return (n + 63) / 64 * 64;
}

void p3ab_plan_free(p3ab_plan *p) {
    if (!p) return;
    free(p->eidx);
    free(p->cbase);
    free(p->cperm);
    free(p->cmask);
    free(p);
}

p3ab_plan *p3ab_plan_new(int gdt, int xdt, const int64_t in[3], const int64_t out[3], const int64_t ys[3],
                         const int64_t xs[3], const int64_t *const first[3], const int64_t *const last[3], int64_t nd,
                         int64_t nk, const double *divs, int64_t gx_bytes) {
    const int level = acl_simd_level();
    if (!dt_ok(gdt) || !dt_ok(xdt) || ys[2] != 1 || xs[2] != 1 || nk <= 0 || nd <= 0 ||
        !divs)
        return NULL;
    if (in[0] <= 0 || in[1] <= 0 || in[2] <= 0 || out[0] <= 0 || out[1] <= 0 || out[2] <= 0) return NULL;
    if (out[2] >= INT32_MAX / 2) return NULL;
    int64_t nh = 0;
    for (int64_t h = 0; h < in[1]; h++)
        if (last[1][h] - first[1][h] + 1 > nh) nh = last[1][h] - first[1][h] + 1;
    if (nd * (nh > 0 ? nh : 1) * nk > P3AB_MAX_ROWS) return NULL;
    p3ab_plan *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->level = level;
    p->gdt = gdt;
    p->xdt = xdt;
    p->D = in[0], p->H = in[1], p->W = in[2];
    p->OD = out[0], p->OH = out[1], p->OW = out[2];
    p->OWp = p->OW + 1;
    p->Wp = (p->W + 7) / 8 * 8;
    p->nk = nk;
    p->nd = nd;
    p->xesz = xdt == ACL_FLOAT ? 4 : 2;
    p->ys0 = ys[0], p->ys1 = ys[1], p->xs0 = xs[0], p->xs1 = xs[1];
    p->df = first[0], p->dl = last[0], p->hf = first[1], p->hl = last[1];
    p->divs = divs;
    const int64_t Wp = p->Wp, nch = Wp / 8;
    const int64_t *wf = first[2], *wl = last[2];
    p->eidx = malloc((size_t)(nk * Wp) * sizeof(int32_t));
    p->cbase = malloc((size_t)nch * sizeof(int32_t));
    p->cperm = malloc((size_t)(nch * nk * 8) * sizeof(int64_t));
    p->cmask = malloc((size_t)(nch * nk));
    if (!p->eidx || !p->cbase || !p->cperm || !p->cmask) {
        p3ab_plan_free(p);
        return NULL;
    }
    for (int64_t q = 0; q < nk; q++)
        for (int64_t w = 0; w < Wp; w++)
            p->eidx[q * Wp + w] = (int32_t)(w < p->W && wf[w] + q <= wl[w] ? wf[w] + q : p->OW);
    p->perm = true;
    for (int64_t c = 0; c < nch; c++) {
        int64_t base = -1;
        for (int64_t w = 8 * c; w < 8 * c + 8 && w < p->W; w++)
            if (wf[w] <= wl[w] && (base < 0 || wf[w] < base)) base = wf[w];
        if (base < 0) base = 0;
        p->cbase[c] = (int32_t)base;
        for (int64_t q = 0; q < nk; q++) {
            unsigned m = 0;
            for (int j = 0; j < 8; j++) {
                const int64_t w = 8 * c + j;
                int64_t src = 0;
                if (w < p->W && wf[w] + q <= wl[w]) {
                    src = wf[w] + q - base;
                    if (src >= 16) p->perm = false;
                    m |= 1u << j;
                }
                p->cperm[(c * nk + q) * 8 + j] = src & 15;
            }
            p->cmask[c * nk + q] = (uint8_t)m;
        }
    }
#ifdef ACL_F16_ROWS_F16C
    p->bf16n = level >= ACL_SIMD_AVX512 && xdt == ACL_BF16 && __builtin_cpu_supports("avx512bf16");
    p->nt = level >= ACL_SIMD_AVX2 && gx_bytes >= P3AB_NT_BYTES && xs[1] == p->W &&
            p->H * p->W * p->xesz <= ((int64_t)1 << 20);
#else
    (void)gx_bytes;
#endif
    const size_t vn = (size_t)(p->OD * p->OH * p->OWp + 16), en = (size_t)(nd * p->OH * nk * Wp);
    p->voff = 0;
    p->eoff = up64(vn * sizeof(double));
    p->soff = p->eoff + up64(en * sizeof(double));
    p->foff = p->soff + (p->nt ? up64((size_t)(p->H * p->W * p->xesz)) : 0);
    p->bytes = p->foff + up64((size_t)Wp * sizeof(float)) + 64;
    return p;
}

void *p3ab_scratch_new(const p3ab_plan *p) {
    void *s = aligned_alloc(64, p->bytes);
    if (s) memset(s, 0, p->eoff); /* v's slack past its last row: read (never used) by the AVX-512 permutes */
    return s;
}

void p3ab_scratch_free(void *s) {
    free(s);
}

/* ---- the portable level: the same steps in plain C (the sums 8 columns at a time, vectorised by the compiler) */

#define P3AB_VFILL(LOADSTEP)                                                                                     \
    for (int64_t od = 0; od < p->OD; od++)                                                                       \
        for (int64_t oh = 0; oh < p->OH; oh++) {                                                                 \
            const int64_t r = od * p->OH + oh, so = go + od * p->ys0 + oh * p->ys1;                              \
            double *dst = v + r * p->OWp;                                                                        \
            const double *dv = p->divs + r * p->OW;                                                              \
            LOADSTEP                                                                                             \
            dst[p->OW] = 0.0;                                                                                    \
        }

static bool vfill_c(const p3ab_plan *p, double *v, const void *gy, int64_t go) {
    bool nan = false;
#define STEPC(SCAL)                                                                                              \
    for (int64_t ow = 0; ow < p->OW; ow++) {                                                                     \
        const double x = (double)(SCAL) / dv[ow];                                                                \
        nan |= x != x;                                                                                           \
        dst[ow] = x;                                                                                             \
    }
    if (p->gdt == ACL_FLOAT) {
        const float *g = (const float *)gy;
        P3AB_VFILL(STEPC(g[so + ow]))
    } else if (p->gdt == ACL_FLOAT16) {
        const uint16_t *g = (const uint16_t *)gy;
        P3AB_VFILL(STEPC(acl_f16_to_f32(g[so + ow])))
    } else {
        const uint16_t *g = (const uint16_t *)gy;
        P3AB_VFILL(STEPC(acl_bf16_to_f32(g[so + ow])))
    }
#undef STEPC
    return nan;
}

static void ebuild_c(const p3ab_plan *p, const double *v, double *e, int64_t od) {
    const int64_t Wp = p->Wp, nk = p->nk;
    for (int64_t oh = 0; oh < p->OH; oh++) {
        const double *vr = v + (od * p->OH + oh) * p->OWp;
        for (int64_t q = 0; q < nk; q++) {
            double *er = e + (oh * nk + q) * Wp;
            const int32_t *ix = p->eidx + q * Wp;
            for (int64_t w = 0; w < Wp; w++) er[w] = vr[ix[w]];
        }
    }
}

#ifdef ACL_HALF_ROWS_SSE2
/* fp16 rows at the portable level on x86-64: each chunk of 8 sums rounded to fp32 and narrowed by half_rows.h's
 * SSE2 step while still in registers (a NaN chunk by the element function), no fp32 row in between. Through the
 * fp32 row and acl_row_f32_to_f16 the fp16 row was 1.03x the fp32 row's time at PYACLNN_SIMD=off. */
static void rows_c_f16(const double *const *rows, int np, int64_t Wp, int64_t W, uint16_t *dst) {
    for (int64_t w = 0; w < Wp; w += 8) {
        __m128d a0 = _mm_setzero_pd(), a1 = _mm_setzero_pd(), a2 = _mm_setzero_pd(), a3 = _mm_setzero_pd();
        for (int k = 0; k < np; k++) { /* rows are 64-byte aligned (Wp a multiple of 8 doubles) */
            const double *r = rows[k] + w;
            a0 = _mm_add_pd(a0, _mm_load_pd(r));
            a1 = _mm_add_pd(a1, _mm_load_pd(r + 2));
            a2 = _mm_add_pd(a2, _mm_load_pd(r + 4));
            a3 = _mm_add_pd(a3, _mm_load_pd(r + 6));
        }
        const __m128 f0 = _mm_movelh_ps(_mm_cvtpd_ps(a0), _mm_cvtpd_ps(a1));
        const __m128 f1 = _mm_movelh_ps(_mm_cvtpd_ps(a2), _mm_cvtpd_ps(a3));
        int nan = 0;
        const __m128i h = acl_hr_f32x8_to_f16_(_mm_castps_si128(f0), _mm_castps_si128(f1), &nan);
        uint16_t t[8];
        if (nan) {
            float f[8];
            _mm_storeu_ps(f, f0);
            _mm_storeu_ps(f + 4, f1);
            for (int j = 0; j < 8; j++) t[j] = acl_f32_to_f16_bf(f[j]);
        } else {
            _mm_storeu_si128((__m128i *)(void *)t, h);
        }
        if (w + 8 <= W)
            memcpy(dst + w, t, sizeof t);
        else
            memcpy(dst + w, t, (size_t)(W - w) * sizeof(uint16_t));
    }
}
#endif

static void rows_c(const double *const *rows, int np, int64_t Wp, int64_t W, int xdt, void *dst, float *rowf) {
#ifdef ACL_HALF_ROWS_SSE2
    if (xdt == ACL_FLOAT16) {
        rows_c_f16(rows, np, Wp, W, (uint16_t *)dst);
        return;
    }
#endif
    for (int64_t w = 0; w < Wp; w += 8) {
        double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (int k = 0; k < np; k++)
            for (int j = 0; j < 8; j++) a[j] += rows[k][w + j];
        for (int j = 0; j < 8; j++) rowf[w + j] = (float)a[j];
    }
    if (xdt == ACL_FLOAT)
        memcpy(dst, rowf, (size_t)W * sizeof(float));
    else if (xdt == ACL_FLOAT16)
        acl_row_f32_to_f16((uint16_t *)dst, rowf, W);
    else
        acl_row_f32_to_bf16((uint16_t *)dst, rowf, W);
}

#ifdef ACL_F16_ROWS_F16C

#define P3AB_AVX2 __attribute__((target("avx2,f16c")))
#define P3AB_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")))

/* ---- v = gy / divisor, every output of the plane; returns whether one is NaN */

P3AB_AVX512 static bool vfill_avx512(const p3ab_plan *p, double *v, const void *gy, int64_t go) {
    __mmask8 anynan = 0;
    const int64_t OW = p->OW;
#define STEP512(CVT)                                                                                             \
    for (int64_t ow = 0; ow < OW; ow += 8) {                                                                     \
        const __mmask8 m = OW - ow >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (OW - ow)) - 1);                    \
        __m256 f;                                                                                                \
        CVT;                                                                                                     \
        const __m512d x = _mm512_div_pd(_mm512_cvtps_pd(f), _mm512_mask_loadu_pd(_mm512_set1_pd(1.0), m, dv + ow)); \
        anynan |= _mm512_cmp_pd_mask(x, x, _CMP_UNORD_Q);                                                           \
        _mm512_mask_storeu_pd(dst + ow, m, x);                                                                   \
    }
    if (p->gdt == ACL_FLOAT) {
        const float *g = (const float *)gy;
        P3AB_VFILL(STEP512(f = _mm256_maskz_loadu_ps(m, g + so + ow)))
    } else if (p->gdt == ACL_FLOAT16) {
        const uint16_t *g = (const uint16_t *)gy;
        P3AB_VFILL(STEP512(f = _mm256_cvtph_ps(_mm_maskz_loadu_epi16(m, g + so + ow))))
    } else {
        const uint16_t *g = (const uint16_t *)gy;
        P3AB_VFILL(STEP512(f = _mm256_castsi256_ps(
                               _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_maskz_loadu_epi16(m, g + so + ow)), 16))))
    }
#undef STEP512
    return anynan != 0;
}

P3AB_AVX2 static bool vfill_avx2(const p3ab_plan *p, double *v, const void *gy, int64_t go) {
    __m256d nanv = _mm256_setzero_pd();
    bool nan = false;
    const int64_t OW = p->OW;
#define STEP256(CVT, SCAL)                                                                                       \
    int64_t ow = 0;                                                                                              \
    for (; ow + 4 <= OW; ow += 4) {                                                                              \
        __m128 f;                                                                                                \
        CVT;                                                                                                     \
        const __m256d x = _mm256_div_pd(_mm256_cvtps_pd(f), _mm256_loadu_pd(dv + ow));                          \
        nanv = _mm256_or_pd(nanv, _mm256_cmp_pd(x, x, _CMP_UNORD_Q));                                           \
        _mm256_storeu_pd(dst + ow, x);                                                                           \
    }                                                                                                            \
    for (; ow < OW; ow++) {                                                                                      \
        const double x = (double)(SCAL) / dv[ow];                                                                \
        nan |= x != x;                                                                                           \
        dst[ow] = x;                                                                                             \
    }
    if (p->gdt == ACL_FLOAT) {
        const float *g = (const float *)gy;
        P3AB_VFILL(STEP256(f = _mm_loadu_ps(g + so + ow), g[so + ow]))
    } else if (p->gdt == ACL_FLOAT16) {
        const uint16_t *g = (const uint16_t *)gy;
        P3AB_VFILL(STEP256(f = _mm_cvtph_ps(_mm_loadl_epi64((const __m128i *)(const void *)(g + so + ow))),
                           acl_f16_to_f32(g[so + ow])))
    } else {
        const uint16_t *g = (const uint16_t *)gy;
#define LD4(q) _mm_loadl_epi64((const __m128i *)(const void *)(q))
        P3AB_VFILL(STEP256(f = _mm_castsi128_ps(_mm_slli_epi32(_mm_cvtepu16_epi32(LD4(g + so + ow)), 16)),
                           acl_bf16_to_f32(g[so + ow])))
#undef LD4
    }
#undef STEP256
    return nan || _mm256_movemask_pd(nanv) != 0;
}

/* ---- the expanded rows of output row od into slot e (OH x nk rows of Wp doubles) */

P3AB_AVX2 static void ebuild_table(const p3ab_plan *p, const double *v, double *e, int64_t od) {
    const int64_t Wp = p->Wp, nk = p->nk;
    for (int64_t oh = 0; oh < p->OH; oh++) {
        const double *vr = v + (od * p->OH + oh) * p->OWp;
        for (int64_t q = 0; q < nk; q++) {
            double *er = e + (oh * nk + q) * Wp;
            const int32_t *ix = p->eidx + q * Wp;
            for (int64_t w = 0; w < Wp; w += 4) {
                const double a = vr[ix[w]], b = vr[ix[w + 1]], c = vr[ix[w + 2]], d = vr[ix[w + 3]];
                _mm256_store_pd(er + w, _mm256_set_pd(d, c, b, a));
            }
        }
    }
}

P3AB_AVX512 static void ebuild_perm(const p3ab_plan *p, const double *v, double *e, int64_t od) {
    const int64_t Wp = p->Wp, nk = p->nk, nch = Wp / 8;
    for (int64_t oh = 0; oh < p->OH; oh++) {
        const double *vr = v + (od * p->OH + oh) * p->OWp;
        double *eo = e + oh * nk * Wp;
        for (int64_t c = 0; c < nch; c++) {
            const double *s = vr + p->cbase[c];
            const __m512d a = _mm512_loadu_pd(s), b = _mm512_loadu_pd(s + 8);
            for (int64_t q = 0; q < nk; q++) {
                const __m512i ix = _mm512_loadu_si512((const void *)(p->cperm + (c * nk + q) * 8));
                _mm512_store_pd(eo + q * Wp + 8 * c,
                                _mm512_maskz_permutex2var_pd((__mmask8)p->cmask[c * nk + q], a, ix, b));
            }
        }
    }
}

/* ---- a gradInput row: the sums of the np expanded rows, rounded and stored */

/* 8 fp32 sums (rounded from the doubles) -> bf16 by acl_f32_to_bf16's rule, in 8 int32 lanes */
P3AB_AVX2 static inline __m256i bf16_round8(__m256 f) {
    const __m256i x = _mm256_castps_si256(f);
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)),
                                           _mm256_set1_epi32(0x7f800000));
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    const __m256i r = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), odd);
    return _mm256_srli_epi32(_mm256_blendv_epi8(r, _mm256_or_si256(x, _mm256_set1_epi32(0x400000)), nan), 16);
}

/* n (1..8) cells from f to d + w (xdt), through a buffer when n < 8 */
P3AB_AVX2 static inline void emit8_avx2(void *d, int64_t w, __m256 f, int64_t n, int xdt) {
    if (xdt == ACL_FLOAT) {
        if (n >= 8) {
            _mm256_storeu_ps((float *)d + w, f);
        } else {
            float t[8];
            _mm256_storeu_ps(t, f);
            memcpy((float *)d + w, t, (size_t)n * sizeof(float));
        }
        return;
    }
    __m128i h;
    if (xdt == ACL_FLOAT16) {
        if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q))) {
            float t[8];
            _mm256_storeu_ps(t, f);
            for (int64_t j = 0; j < n && j < 8; j++) ((uint16_t *)d)[w + j] = acl_f32_to_f16(t[j]);
            return;
        }
        h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else {
        __m256i r;
        if (!_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q))) { /* bf16_round8 without its NaN select */
            const __m256i x = _mm256_castps_si256(f);
            r = _mm256_srli_epi32(_mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)),
                                                   _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1))),
                                  16);
        } else {
            r = bf16_round8(f);
        }
        h = _mm256_castsi256_si128(_mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08));
    }
    if (n >= 8) {
        _mm_storeu_si128((__m128i *)(void *)((uint16_t *)d + w), h);
    } else {
        uint16_t t[8];
        _mm_storeu_si128((__m128i *)(void *)t, h);
        memcpy((uint16_t *)d + w, t, (size_t)n * sizeof(uint16_t));
    }
}

/* the n (1..2) chunks of 8 cells from w: 2n accumulators down the rows */
__attribute__((always_inline)) P3AB_AVX2 static inline void tile_avx2(const double *const *rows, int np, int64_t w,
                                                                      int n, int64_t W, int xdt, void *dst) {
    __m256d a[4];
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) a[c] = _mm256_setzero_pd();
    for (int k = 0; k < np; k++) {
        const double *r = rows[k] + w;
#pragma GCC unroll 4
        for (int c = 0; c < 2 * n; c++) a[c] = _mm256_add_pd(a[c], _mm256_load_pd(r + 4 * c));
    }
    if (xdt == ACL_BF16 && n == 2 && W - w >= 16) {
        /* two chunks: with no NaN among the 16 sums, the rounding without bf16_round8's NaN select and one pack,
         * permute and store for the 16 (the chunk at a time was 1.06x the fp32 row's time at PYACLNN_SIMD=avx2) */
        const __m256 f0 = _mm256_set_m128(_mm256_cvtpd_ps(a[1]), _mm256_cvtpd_ps(a[0]));
        const __m256 f1 = _mm256_set_m128(_mm256_cvtpd_ps(a[3]), _mm256_cvtpd_ps(a[2]));
        if (!_mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(f0, f0, _CMP_UNORD_Q), _mm256_cmp_ps(f1, f1, _CMP_UNORD_Q)))) {
            const __m256i x0 = _mm256_castps_si256(f0), x1 = _mm256_castps_si256(f1), one = _mm256_set1_epi32(1),
                          half = _mm256_set1_epi32(0x7fff);
            const __m256i r0 = _mm256_srli_epi32(
                _mm256_add_epi32(_mm256_add_epi32(x0, half), _mm256_and_si256(_mm256_srli_epi32(x0, 16), one)), 16);
            const __m256i r1 = _mm256_srli_epi32(
                _mm256_add_epi32(_mm256_add_epi32(x1, half), _mm256_and_si256(_mm256_srli_epi32(x1, 16), one)), 16);
            _mm256_storeu_si256((__m256i *)(void *)((uint16_t *)dst + w),
                                _mm256_permute4x64_epi64(_mm256_packus_epi32(r0, r1), 0xd8));
            return;
        }
    }
#pragma GCC unroll 2
    for (int c = 0; c < n; c++)
        emit8_avx2(dst, w + 8 * c, _mm256_set_m128(_mm256_cvtpd_ps(a[2 * c + 1]), _mm256_cvtpd_ps(a[2 * c])),
                   W - w - 8 * c, xdt);
}

__attribute__((always_inline)) P3AB_AVX2 static inline void rows_avx2_t(const double *const *rows, int np, int64_t Wp,
                                                                        int64_t W, int xdt, void *dst) {
    int64_t w = 0;
    for (; w + 16 <= Wp; w += 16) tile_avx2(rows, np, w, 2, W, xdt, dst);
    if (w < Wp) tile_avx2(rows, np, w, 1, W, xdt, dst);
}

P3AB_AVX2 static void rows_avx2(const double *const *rows, int np, int64_t Wp, int64_t W, int xdt, void *dst) {
    if (xdt == ACL_FLOAT)
        rows_avx2_t(rows, np, Wp, W, ACL_FLOAT, dst);
    else if (xdt == ACL_FLOAT16)
        rows_avx2_t(rows, np, Wp, W, ACL_FLOAT16, dst);
    else
        rows_avx2_t(rows, np, Wp, W, ACL_BF16, dst);
}

/* n (1..8) cells from the 8 doubles a to d + w (xdt), the tail under a mask */
P3AB_AVX512 static inline void emit8_avx512(void *d, int64_t w, __m512d a, int64_t n, int xdt) {
    const __m256 f = _mm512_cvtpd_ps(a);
    const __mmask8 m = n >= 8 ? (__mmask8)0xff : (__mmask8)((1u << n) - 1);
    if (xdt == ACL_FLOAT) {
        if (n >= 8)
            _mm256_storeu_ps((float *)d + w, f);
        else
            _mm256_mask_storeu_ps((float *)d + w, m, f);
        return;
    }
    __m128i h;
    if (xdt == ACL_FLOAT16) {
        if (_mm256_cmp_ps_mask(f, f, _CMP_UNORD_Q)) {
            float t[8];
            _mm256_storeu_ps(t, f);
            for (int64_t j = 0; j < n && j < 8; j++) ((uint16_t *)d)[w + j] = acl_f32_to_f16(t[j]);
            return;
        }
        h = _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else { /* bf16_round8 with the NaN lanes picked by a mask register */
        const __m256i x = _mm256_castps_si256(f);
        const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
        __m256i r = _mm256_add_epi32(_mm256_add_epi32(x, _mm256_set1_epi32(0x7fff)), odd);
        r = _mm256_mask_or_epi32(r, _mm256_cmp_ps_mask(f, f, _CMP_UNORD_Q), x, _mm256_set1_epi32(0x400000));
        h = _mm256_cvtepi32_epi16(_mm256_srli_epi32(r, 16));
    }
    if (n >= 8)
        _mm_storeu_si128((__m128i *)(void *)((uint16_t *)d + w), h);
    else
        _mm_mask_storeu_epi16((uint16_t *)d + w, m, h);
}

/* n (1..16) cells from the 16 fp32 sums f (two chunks, already rounded from their doubles) to the fp16 / bf16
 * row d + w: the same rounding as emit8_avx512 done 16 lanes at a time, so one narrowing and one store per two
 * chunks. The bf16 row rounded 8 lanes a step was 1.04x the fp32 row's time (its 32-bit rounding ops and vpmovdw
 * per 8 cells, where the fp32 row only stores). */
P3AB_AVX512 static inline void emit16_avx512(void *d, int64_t w, __m512 f, int64_t n, int xdt) {
    const __mmask16 m = n >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << n) - 1);
    const __mmask16 nan = _mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q);
    __m256i h;
    if (xdt == ACL_FLOAT16) {
        if (nan) {
            float t[16];
            _mm512_storeu_ps(t, f);
            for (int64_t j = 0; j < n && j < 16; j++) ((uint16_t *)d)[w + j] = acl_f32_to_f16(t[j]);
            return;
        }
        h = _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else {
        const __m512i x = _mm512_castps_si512(f);
        const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
        __m512i r = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), odd);
        r = _mm512_mask_or_epi32(r, nan, x, _mm512_set1_epi32(0x400000));
        h = _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
    }
    if (n >= 16)
        _mm256_storeu_si256((__m256i *)(void *)((uint16_t *)d + w), h);
    else
        _mm256_mask_storeu_epi16((uint16_t *)d + w, m, h);
}

/* the n (1..4) chunks of 8 cells from w: n accumulators down the rows */
__attribute__((always_inline)) P3AB_AVX512 static inline void tile_avx512(const double *const *rows, int np, int64_t w,
                                                                          int n, int64_t W, int xdt, void *dst) {
    __m512d a[4];
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) a[c] = _mm512_setzero_pd();
    for (int k = 0; k < np; k++) {
        const double *r = rows[k] + w;
#pragma GCC unroll 4
        for (int c = 0; c < n; c++) a[c] = _mm512_add_pd(a[c], _mm512_load_pd(r + 8 * c));
    }
    int c = 0;
    if (xdt != ACL_FLOAT) {
#pragma GCC unroll 2
        for (; c + 2 <= n; c += 2) {
            const __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a[c])), _mm512_cvtpd_ps(a[c + 1]), 1);
            emit16_avx512(dst, w + 8 * c, f, W - w - 8 * c, xdt);
        }
    }
#pragma GCC unroll 4
    for (; c < n; c++) emit8_avx512(dst, w + 8 * c, a[c], W - w - 8 * c, xdt);
}

/* With AVX512_BF16 (plan->bf16n): 16 bf16 cells by one vcvtneps2bf16, which rounds to nearest even and quietens a
 * NaN as acl_f32_to_bf16 does but flushes subnormal inputs to zero; a block holding a subnormal (or a NaN, to keep
 * to the integer rule there) takes emit16_avx512's integer rounding. The integer rounding of every block was
 * 1.04x the fp32 row's time (ALU bound: about 9 more operations per 16 cells than the fp32 row's two stores). */
#define P3AB_AVX512BF16 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx512bf16,avx2,f16c")))
P3AB_AVX512BF16 static inline void emit16_bf16n(void *d, int64_t w, __m512 f, int64_t n) {
    if (_mm512_fpclass_ps_mask(f, 0xa1)) { /* QNaN 0x01, denormal 0x20, SNaN 0x80 */
        emit16_avx512(d, w, f, n, ACL_BF16);
        return;
    }
    const __m256i h = (__m256i)_mm512_cvtneps_pbh(f);
    if (n >= 16)
        _mm256_storeu_si256((__m256i *)(void *)((uint16_t *)d + w), h);
    else
        _mm256_mask_storeu_epi16((uint16_t *)d + w, (__mmask16)((1u << n) - 1), h);
}

/* tile_avx512 for bf16 rows with emit16_bf16n (the same sums in the same order) */
__attribute__((always_inline)) P3AB_AVX512BF16 static inline void tile_bf16n(const double *const *rows, int np,
                                                                             int64_t w, int n, int64_t W, void *dst) {
    __m512d a[4];
#pragma GCC unroll 4
    for (int c = 0; c < 4; c++) a[c] = _mm512_setzero_pd();
    for (int k = 0; k < np; k++) {
        const double *r = rows[k] + w;
#pragma GCC unroll 4
        for (int c = 0; c < n; c++) a[c] = _mm512_add_pd(a[c], _mm512_load_pd(r + 8 * c));
    }
    int c = 0;
#pragma GCC unroll 2
    for (; c + 2 <= n; c += 2) {
        const __m512 f = _mm512_insertf32x8(_mm512_castps256_ps512(_mm512_cvtpd_ps(a[c])), _mm512_cvtpd_ps(a[c + 1]), 1);
        emit16_bf16n(dst, w + 8 * c, f, W - w - 8 * c);
    }
    if (c < n) emit8_avx512(dst, w + 8 * c, a[c], W - w - 8 * c, ACL_BF16);
}

P3AB_AVX512BF16 static void rows_bf16n(const double *const *rows, int np, int64_t Wp, int64_t W, void *dst) {
    int64_t w = 0;
    for (; w + 32 <= Wp; w += 32) tile_bf16n(rows, np, w, 4, W, dst);
    switch ((Wp - w) / 8) {
    case 3: tile_bf16n(rows, np, w, 3, W, dst); break;
    case 2: tile_bf16n(rows, np, w, 2, W, dst); break;
    case 1: tile_bf16n(rows, np, w, 1, W, dst); break;
    default: break;
    }
}

__attribute__((always_inline)) P3AB_AVX512 static inline void rows_avx512_t(const double *const *rows, int np,
                                                                            int64_t Wp, int64_t W, int xdt, void *dst) {
    int64_t w = 0;
    for (; w + 32 <= Wp; w += 32) tile_avx512(rows, np, w, 4, W, xdt, dst);
    switch ((Wp - w) / 8) {
    case 3: tile_avx512(rows, np, w, 3, W, xdt, dst); break;
    case 2: tile_avx512(rows, np, w, 2, W, xdt, dst); break;
    case 1: tile_avx512(rows, np, w, 1, W, xdt, dst); break;
    default: break;
    }
}

P3AB_AVX512 static void rows_avx512(const double *const *rows, int np, int64_t Wp, int64_t W, int xdt, void *dst) {
    if (xdt == ACL_FLOAT)
        rows_avx512_t(rows, np, Wp, W, ACL_FLOAT, dst);
    else if (xdt == ACL_FLOAT16)
        rows_avx512_t(rows, np, Wp, W, ACL_FLOAT16, dst);
    else
        rows_avx512_t(rows, np, Wp, W, ACL_BF16, dst);
}

/* ---- streaming copy of a staged slab: n bytes s -> d, d's whole 64-byte lines by non-temporal stores */

P3AB_AVX2 static void stream_avx2(char *d, const char *s, size_t n) {
    size_t head = (64 - ((uintptr_t)d & 63)) & 63;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        _mm256_stream_si256((__m256i *)(void *)d, _mm256_loadu_si256((const __m256i *)(const void *)s));
        _mm256_stream_si256((__m256i *)(void *)(d + 32), _mm256_loadu_si256((const __m256i *)(const void *)(s + 32)));
    }
    memcpy(d, s, n);
}

P3AB_AVX512 static void stream_avx512(char *d, const char *s, size_t n) {
    size_t head = (64 - ((uintptr_t)d & 63)) & 63;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head, s += head, n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
    memcpy(d, s, n);
}

#endif /* ACL_F16_ROWS_F16C */

#ifdef ACL_F16_ROWS_F16C
#define P3AB_LV(c, a2, a5) (lv >= ACL_SIMD_AVX512 ? (a5) : lv >= ACL_SIMD_AVX2 ? (a2) : (c))
#else
#define P3AB_LV(c, a2, a5) (c)
#endif

bool p3ab_plane(const p3ab_plan *p, void *scratch, const void *gy_base, int64_t go, void *gx_base, int64_t xo) {
    const int lv = p->level;
    (void)lv;
    double *v = (double *)(void *)((char *)scratch + p->voff), *E = (double *)(void *)((char *)scratch + p->eoff);
    char *stage = (char *)scratch + p->soff;
    float *rowf = (float *)(void *)((char *)scratch + p->foff);
    if (P3AB_LV(vfill_c, vfill_avx2, vfill_avx512)(p, v, gy_base, go)) return false;
    const int64_t Wp = p->Wp, nk = p->nk, nd = p->nd, OH = p->OH, slab = OH * nk * Wp, es = p->xesz;
    char *xb = (char *)gx_base + xo * es;
    int64_t built = -1; /* the last od whose expanded rows are in the ring */
    for (int64_t d = 0; d < p->D; d++) {
        for (int64_t od = built + 1 > p->df[d] ? built + 1 : p->df[d]; od <= p->dl[d]; od++) {
            double *e = E + (od % nd) * slab;
            P3AB_LV(ebuild_c, ebuild_table, p->perm ? ebuild_perm : ebuild_table)(p, v, e, od);
            built = od;
        }
        char *db = p->nt ? stage : xb + d * p->xs0 * es;
        const int64_t rs = p->nt ? p->W : p->xs1;
        const double *slot[P3AB_MAX_ROWS]; /* the ring slots of d's run of od */
        int ns = 0;
        for (int64_t od = p->df[d]; od <= p->dl[d]; od++) slot[ns++] = E + (od % nd) * slab;
        for (int64_t h = 0; h < p->H; h++) {
            const double *rows[P3AB_MAX_ROWS];
            int np = 0;
            const int64_t h0 = p->hf[h], h1 = p->hl[h];
            for (int i = 0; i < ns; i++)
                for (int64_t oh = h0; oh <= h1; oh++) {
                    const double *e = slot[i] + oh * nk * Wp;
                    for (int64_t q = 0; q < nk; q++) rows[np++] = e + q * Wp;
                }
            void *dst = db + h * rs * es;
#ifdef ACL_F16_ROWS_F16C
            if (p->bf16n)
                rows_bf16n(rows, np, Wp, p->W, dst);
            else if (lv >= ACL_SIMD_AVX512)
                rows_avx512(rows, np, Wp, p->W, p->xdt, dst);
            else if (lv >= ACL_SIMD_AVX2)
                rows_avx2(rows, np, Wp, p->W, p->xdt, dst);
            else
#endif
                rows_c(rows, np, Wp, p->W, p->xdt, dst, rowf);
        }
#ifdef ACL_F16_ROWS_F16C
        if (p->nt) /* (nt only at AVX2 and above) */
            P3AB_LV(stream_avx2, stream_avx2, stream_avx512)(xb + d * p->xs0 * es, stage, (size_t)(p->H * p->W * es));
#endif
    }
    return true;
}

void p3ab_fence(const p3ab_plan *p) {
#ifdef ACL_F16_ROWS_F16C
    if (p->nt) _mm_sfence();
#else
    (void)p;
#endif
}
