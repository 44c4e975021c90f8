/* Windowed max pooling (forward with argmax, backward through the argmax). Each output cell / each gradInput plane
 * is owned by one thread: deterministic for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/nan_order.h"
#include "common/dtype.h"
#include "common/half_rows.h"
#include "common/cpu.h"
#include "common/level_fn.h"
#include "common/nan_order.h"
#include "kernels/f16_rows.h"
#include "kernels/pool3d.h"
#include "kernels/pool3d_adavg.h"
#include "kernels/pool3d_avg_bwd.h"

int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t dl, bool ceil_mode) {
    int64_t num = in + 2 * p - dl * (k - 1) - 1 + (ceil_mode ? s - 1 : 0);
    int64_t q = num / s;
    if (num % s != 0 && num < 0) q--; /* floor division */
    int64_t out = q + 1;
    if (ceil_mode && (out - 1) * s >= in + p) out--;
    return out;
}

typedef struct {
    int64_t n1, planes;
    int64_t xs0, xs1, ys0, ys1, is0, is1;
    int64_t in[3], out[3], xs[3], ys[3], is[3];
} geo;

static void make_geo(geo *g, const acl_view *x, const acl_view *y, const acl_view *idx, const pool_max_params *pp,
                     int idx_view) {
    const int a0 = pp->lead[0], a1 = pp->lead[1];
    g->n1 = a1 >= 0 ? x->dims[a1] : 1;
    g->planes = x->dims[a0] * g->n1;
    g->xs0 = x->strides[a0];
    g->xs1 = a1 >= 0 ? x->strides[a1] : 0;
    g->ys0 = y->strides[a0];
    g->ys1 = a1 >= 0 ? y->strides[a1] : 0;
    g->is0 = idx_view ? idx->strides[a0] : 0;
    g->is1 = idx_view && a1 >= 0 ? idx->strides[a1] : 0;
    for (int i = 0; i < 3; i++) {
        int a = pp->sp[i];
        g->in[i] = a >= 0 ? x->dims[a] : 1;
        g->out[i] = a >= 0 ? y->dims[a] : 1;
        g->xs[i] = a >= 0 ? x->strides[a] : 0;
        g->ys[i] = a >= 0 ? y->strides[a] : 0;
        g->is[i] = a >= 0 && idx_view ? idx->strides[a] : 0;
    }
}

/* First and one-past-last window tap inside [0, in): start = o*s - p, taps start + t*dl. */
static inline void taps(int64_t o, int64_t in, int64_t k, int64_t s, int64_t p, int64_t dl, int64_t *t0, int64_t *t1,
                        int64_t *start) {
    int64_t st = o * s - p;
    int64_t a = 0, b = k;
    if (st < 0) a = (-st + dl - 1) / dl;
    if (st + (k - 1) * dl >= in) b = (in - 1 - st) / dl + 1;
    if (b < a) b = a;
    *t0 = a;
    *t1 = b;
    *start = st;
}

static inline void store_index(acl_view *idx, int mode, int64_t off, int64_t flat, int64_t v) {
    if (mode == POOL_IDX_RAW32) {
        ((int32_t *)idx->base)[flat] = (int32_t)v;
    } else if (idx->dtype == ACL_INT64) {
        ((int64_t *)idx->base)[off] = v;
    } else {
        ((int32_t *)idx->base)[off] = (int32_t)v;
    }
}

#define LOAD_ID(v) (v)
#define LOAD_F16(v) acl_f16_to_f32(v)
#define LOAD_BF16(v) acl_bf16_to_f32(v)
#define STORE_ID(v) (v)
#define STORE_F16(v) acl_f32_to_f16(v)
#define STORE_BF16(v) acl_f32_to_bf16(v)

#define FWD_BODY(T, CT, LOAD)                                                                                    \
    do {                                                                                                         \
        const T *xb = (const T *)x->base;                                                                        \
        T *yb = (T *)y->base;                                                                                    \
        _Pragma("omp parallel for schedule(static)") for (int64_t pl = 0; pl < g.planes; pl++) {                 \
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1;                                                        \
            const int64_t xo = p0 * g.xs0 + p1 * g.xs1, yo = p0 * g.ys0 + p1 * g.ys1;                            \
            const int64_t io = p0 * g.is0 + p1 * g.is1;                                                          \
            int64_t j = 0;                                                                                       \
            for (int64_t od = 0; od < g.out[0]; od++) {                                                          \
                int64_t d0, d1, ds;                                                                              \
                taps(od, g.in[0], pp->k[0], pp->s[0], pp->p[0], pp->dl[0], &d0, &d1, &ds);                       \
                for (int64_t oh = 0; oh < g.out[1]; oh++) {                                                      \
                    int64_t h0, h1, hs;                                                                          \
                    taps(oh, g.in[1], pp->k[1], pp->s[1], pp->p[1], pp->dl[1], &h0, &h1, &hs);                   \
                    for (int64_t ow = 0; ow < g.out[2]; ow++, j++) {                                             \
                        int64_t w0, w1, wst;                                                                     \
                        taps(ow, g.in[2], pp->k[2], pp->s[2], pp->p[2], pp->dl[2], &w0, &w1, &wst);              \
                        int64_t bd = ds + d0 * pp->dl[0], bh = hs + h0 * pp->dl[1], bw = wst + w0 * pp->dl[2];   \
                        int64_t boff = xo + bd * g.xs[0] + bh * g.xs[1] + bw * g.xs[2];                          \
                        int64_t best = (bd * g.in[1] + bh) * g.in[2] + bw;                                       \
                        CT m = -INFINITY;                                                                        \
                        for (int64_t td = d0; td < d1; td++) {                                                   \
                            const int64_t d = ds + td * pp->dl[0];                                               \
                            for (int64_t th = h0; th < h1; th++) {                                               \
                                const int64_t h = hs + th * pp->dl[1];                                           \
                                const int64_t ro = xo + d * g.xs[0] + h * g.xs[1];                               \
                                for (int64_t tw = w0; tw < w1; tw++) {                                           \
                                    const int64_t w = wst + tw * pp->dl[2];                                      \
                                    CT v = LOAD(xb[ro + w * g.xs[2]]);                                           \
                                    if (v > m || isnan(v)) {                                                     \
                                        m = v;                                                                   \
                                        boff = ro + w * g.xs[2];                                                 \
                                        best = (d * g.in[1] + h) * g.in[2] + w;                                  \
                                    }                                                                            \
                                }                                                                                \
                            }                                                                                    \
                        }                                                                                        \
                        if (d1 > d0 && h1 > h0 && w1 > w0)                                                       \
                            yb[yo + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2]] = xb[boff];                      \
                        else /* a window wholly in the padding (MaxPool's wide pads): the lowest value */        \
                            yb[yo + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2]] = NEG_INF_##T;                   \
                        if (pp->idx_mode == POOL_IDX_NONE) continue;                                             \
                        if (pp->idx_mode == POOL_IDX_UNIT)                                                       \
                            ((uint16_t *)idx->base)[pl * pp->mask_plane + j] = 0xFFFFu;                          \
                        else                                                                                     \
                            store_index(idx, pp->idx_mode, io + od * g.is[0] + oh * g.is[1] + ow * g.is[2],      \
                                        pl * osz + j, best);                                                     \
                    }                                                                                            \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)

#define NEG_INF_float (-INFINITY)
#define NEG_INF_double (-INFINITY)
#define NEG_INF_uint16_t (x->dtype == ACL_FLOAT16 ? (uint16_t)0xFC00u : (uint16_t)0xFF80u)

static bool fwd_columns(const acl_view *x, acl_view *y, acl_view *idx, const pool_max_params *pp, const geo *g);

void pool_max_nd(const acl_view *x, acl_view *y, acl_view *idx, const pool_max_params *pp) {
    geo g;
    make_geo(&g, x, y, idx, pp, pp->idx_mode == POOL_IDX_VIEW && idx != NULL);
    const int64_t osz = g.out[0] * g.out[1] * g.out[2];
    if (pp->idx_mode == POOL_IDX_UNIT) {
        /* the mask buffer (int8 view, contiguous by construction of the check) starts cleared */
        memset(idx->base, 0, (size_t)(g.planes * pp->mask_plane * 2));
    }
    if (fwd_columns(x, y, idx, pp, &g)) return;
    switch (x->dtype) {
    case ACL_FLOAT: FWD_BODY(float, float, LOAD_ID); break;
    case ACL_DOUBLE: FWD_BODY(double, double, LOAD_ID); break;
    case ACL_FLOAT16: FWD_BODY(uint16_t, float, LOAD_F16); break;
    case ACL_BF16: FWD_BODY(uint16_t, float, LOAD_BF16); break;
    default: break;
    }
}

static inline int64_t load_index(const acl_view *v, int mode, int64_t off, int64_t flat) {
    if (mode == POOL_IDX_RAW32) return ((const int32_t *)v->base)[flat];
    if (v->dtype == ACL_INT64) return ((const int64_t *)v->base)[off];
    if (v->dtype == ACL_INT8) return ((const int8_t *)v->base)[off];
    return ((const int32_t *)v->base)[off];
}

/* BWD_BODY's row stores (NULL-tested first, then called as NAME_): bit-identical to the scalar STORE */
#define ROWST_NONE ((void (*)(uint16_t *, const float *, int64_t))NULL)
#define ROWST_NONE_(d, s, n) ((void)0)
/* fp32 -> fp16 rows: F16C at AVX2 and above, else SSE2 / NEON / scalar - the same bits (kernels/f16_rows.h) */
static void p3_row_f32_to_f16(uint16_t *d, const float *s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (acl_simd_level() >= ACL_SIMD_AVX2) {
        acl_f32_to_f16_row_f16c(d, s, n);
        return;
    }
#endif
    acl_row_f32_to_f16(d, s, n);
}
#define ROWST_F16 p3_row_f32_to_f16
#define ROWST_F16_(d, s, n) p3_row_f32_to_f16((uint16_t *)(void *)(d), (const float *)(const void *)(s), (n))
#define ROWST_BF16 acl_row_f32_to_bf16
#define ROWST_BF16_(d, s, n) acl_row_f32_to_bf16((uint16_t *)(void *)(d), (const float *)(const void *)(s), (n))

/* ---- the backward's dense-plane path: a gradInput plane that is one dense block is built in a thread-private
 * scratch plane (64-byte aligned, kept cleared between planes) and written out once, every cell, zeros included (no
 * separate clearing pass over gradInput, whose lines would then be fetched again by the scattered adds). Every
 * cell's sum is 0 + g1 + g2 + ... over the gradOutput cells naming it, in their row-major order (the plain
 * accumulator's additions, so its bytes): in fp32 (double for f64); fp16 / bf16 gradOutput rows are converted to
 * fp32 once (the vectorised row converters), the sums rounded once into the output dtype. Sparse planes (few argmax
 * cells per gradInput cell, the adaptive pools) remember their touched cells: only those are rounded and re-cleared.
 * When gradInput is large the plane goes out with non-temporal stores (AVX2 and above): its lines are not read for
 * ownership and the inputs stay cached. */

static void p3_row_f16_to_f32(float *d, const uint16_t *s, int64_t n);
static void p3_row_bf16_to_f32(float *d, const uint16_t *s, int64_t n);
static void p3_row_f32_to_f16(uint16_t *d, const float *s, int64_t n);

#define P3_NT_BYTES ((int64_t)8 << 20) /* gradInput at least this large: non-temporal plane stores */
#define P3_SPARSE_NT_BYTES ((int64_t)32 << 20) /* sparse fp32 / double gradInput below this: plain stores */
#define P3_DIRECT_BYTES ((int64_t)16 << 20) /* gradInput below this: sparse half planes by the direct path */
/* sparse fp16 / bf16 planes up to this size (the summing path, plain stores) cleared by p3_zero's vector stores, larger
 * ones by memset (string stores, measured faster for 100 KB planes below): adaptive max 56 -> 9 fp16 / bf16 (6 KB
 * planes, 10.7 of 81 cells named twice: the summing path), 1 thread: 0.36 -> 0.33 ms */
#define P3_ZERO_BYTES ((int64_t)32 << 10)
#define P3_CHUNK 2048                  /* cells per output chunk of a dense plane (L1-sized staging buffers) */

#ifdef ACL_F16_ROWS_F16C
/* n bytes s -> d, the whole 64-byte lines of d with non-temporal stores (the head and tail by memcpy) */
__attribute__((target("avx2"))) static void p3_stream_copy_avx2(char *d, const char *s, size_t n) {
    size_t head = (64 - ((uintptr_t)d & 63)) & 63;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64) {
        const __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)s);
        const __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32));
        _mm256_stream_si256((__m256i *)(void *)d, a);
        _mm256_stream_si256((__m256i *)(void *)(d + 32), b);
    }
    memcpy(d, s, n);
}
#endif

#ifdef ACL_F16_ROWS_F16C
/* the same with one 64-byte store per line (half the store-queue entries of the AVX2 copy) */
__attribute__((target("avx512f"))) static void p3_stream_copy_avx512(char *d, const char *s, size_t n) {
    size_t head = (64 - ((uintptr_t)d & 63)) & 63;
    if (head > n) head = n;
    memcpy(d, s, head);
    d += head;
    s += head;
    n -= head;
    for (; n >= 64; n -= 64, d += 64, s += 64)
        _mm512_stream_si512((void *)d, _mm512_loadu_si512((const void *)s));
    memcpy(d, s, n);
}
#endif

/* n bytes s -> d; nt: streamed past the caches where the level allows (the same bytes either way) */
static void p3_put(char *d, const void *s, size_t n, bool nt) {
#ifdef ACL_F16_ROWS_F16C
    if (nt && acl_simd_level() >= ACL_SIMD_AVX512) {
        p3_stream_copy_avx512(d, (const char *)s, n);
        return;
    }
    if (nt) {
        p3_stream_copy_avx2(d, (const char *)s, n);
        return;
    }
#endif
    memcpy(d, s, n);
}

/* orders this thread's non-temporal stores before what follows (the end of the parallel region) */
static void p3_put_fence(bool nt) {
#ifdef ACL_F16_ROWS_F16C
    if (nt) _mm_sfence();
#else
    (void)nt;
#endif
}

#ifdef ACL_F16_ROWS_F16C
/* n bytes (a multiple of 32) of the 32-byte aligned s cleared */
__attribute__((target("avx2"))) static void p3_clear_avx2(void *s, size_t n) {
    char *p = (char *)s;
    for (size_t i = 0; i < n; i += 32) _mm256_store_si256((__m256i *)(void *)(p + i), _mm256_setzero_si256());
}
/* n bytes s -> d as p3_stream_copy_avx2, s (64-byte aligned, n a multiple of 32) cleared behind */
__attribute__((target("avx2"))) static void p3_put_clear_avx2(char *d, char *s, size_t n, bool nt) {
    if (nt) {
        p3_put(d, s, n, true);
    } else {
        memcpy(d, s, n);
    }
    p3_clear_avx2(s, n);
}
#endif

/* n bytes s -> d, then s cleared (s 64-byte aligned; the clearing by plain vector stores: memset's string stores
 * were measured 4x slower on these L1-resident planes) */
static void p3_put_clear(char *d, void *s, size_t n, bool nt) {
#ifdef ACL_F16_ROWS_F16C
    if (acl_simd_level() >= ACL_SIMD_AVX2 && n % 32 == 0) {
        p3_put_clear_avx2(d, (char *)s, n, nt);
        return;
    }
#endif
    memcpy(d, s, n);
    memset(s, 0, n);
}

/* n bytes of the 64-byte aligned s cleared */
static void p3_clear(void *s, size_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (acl_simd_level() >= ACL_SIMD_AVX2 && n % 32 == 0) {
        p3_clear_avx2(s, n);
        return;
    }
#endif
    memset(s, 0, n);
}

#ifdef ACL_F16_ROWS_F16C
/* 16 fp32 lanes rounded to bf16 as acl_f32_to_bf16 rounds them (to nearest even; a NaN quietened: (x >> 16) | 0x40) */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static inline __m256i p3_bf16_round16(__m512 v) {
    const __m512i x = _mm512_castps_si512(v);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)),
                                                  _mm512_set1_epi32(0x7f800000));
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    __m512i r = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), odd);
    r = _mm512_mask_or_epi32(r, nan, x, _mm512_set1_epi32(0x400000));
    return _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
}
/* the fp32 sums a[0..m) (64-byte aligned) rounded into d as acl_f32_to_f16 / acl_f32_to_bf16 (common/dtype.h) round
 * them, 16 lanes a step (an fp16 block holding a NaN through the 8-lane F16C blocks of kernels/f16_rows.h, which keep
 * that function's NaN bits; bf16 by its integer rule, NaN lanes quietened), and a cleared behind */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static void p3_round_clear_avx512(uint16_t *d, float *a,
                                                                                                 int64_t m, bool bf) {
    int64_t i = 0;
    for (; i + 16 <= m; i += 16) {
        const __m512 v = _mm512_load_ps(a + i);
        __m256i h;
        if (!bf) {
            if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)) {
                acl_f32_to_f16_block_f16c_(d + i, a + i);
                acl_f32_to_f16_block_f16c_(d + i + 8, a + i + 8);
                _mm512_store_ps(a + i, _mm512_setzero_ps());
                continue;
            }
            h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        } else {
            h = p3_bf16_round16(v);
        }
        _mm256_storeu_si256((__m256i *)(void *)(d + i), h);
        _mm512_store_ps(a + i, _mm512_setzero_ps());
    }
    for (; i < m; i++) {
        d[i] = bf ? acl_f32_to_bf16(a[i]) : acl_f32_to_f16(a[i]);
        a[i] = 0.0f;
    }
}
#endif

#ifdef ACL_F16_ROWS_F16C
/* p3_round_clear_avx512 with d the gradInput plane itself: its whole 64-byte lines (32 sums a line) by non-temporal
 * stores, straight from the rounding (no staging row and stream copy); the head and tail cells and a line holding an
 * fp16 NaN sum one by one with plain stores (the same bits; a is only 64-byte aligned at d's line starts by chance) */
static void p3_round_clear_cells(uint16_t *d, float *a, int64_t i, int64_t e, bool bf) {
    for (; i < e; i++) {
        d[i] = bf ? acl_f32_to_bf16(a[i]) : acl_f32_to_f16(a[i]);
        a[i] = 0.0f;
    }
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static void p3_round_clear_nt_avx512(uint16_t *d,
                                                                                                    float *a,
                                                                                                    int64_t m,
                                                                                                    bool bf) {
    int64_t i = ((uintptr_t)d & 1) ? m : (int64_t)(((64 - ((uintptr_t)d & 63)) & 63) / 2);
    if (i > m) i = m;
    p3_round_clear_cells(d, a, 0, i, bf);
    for (; i + 32 <= m; i += 32) {
        const __m512 v0 = _mm512_loadu_ps(a + i), v1 = _mm512_loadu_ps(a + i + 16);
        __m256i h0, h1;
        if (!bf) {
            if (_mm512_cmp_ps_mask(v0, v0, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(v1, v1, _CMP_UNORD_Q)) {
                p3_round_clear_cells(d, a, i, i + 32, false); /* (plain stores: a rare line) */
                continue;
            }
            h0 = _mm512_cvtps_ph(v0, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
            h1 = _mm512_cvtps_ph(v1, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        } else {
            h0 = p3_bf16_round16(v0);
            h1 = p3_bf16_round16(v1);
        }
        _mm512_stream_si512((void *)(d + i), _mm512_inserti64x4(_mm512_castsi256_si512(h0), h1, 1));
        _mm512_storeu_ps(a + i, _mm512_setzero_ps());
        _mm512_storeu_ps(a + i + 16, _mm512_setzero_ps());
    }
    p3_round_clear_cells(d, a, i, m, bf);
}
#endif

#ifdef ACL_F16_ROWS_F16C
/* fp16 / bf16 row s -> fp32 row d, 16 lanes a step and the tail under a mask (short rows: no scalar tail); an fp16
 * block holding a NaN lane converted lane by lane by acl_f16_to_f32 (F16C would quieten a signalling NaN) */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static void p3_widen_avx512(float *d, const uint16_t *s,
                                                                                           int64_t n, bool bf) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 mk = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        const __m256i h = _mm256_maskz_loadu_epi16(mk, s + i);
        __m512 v;
        if (bf) {
            v = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
        } else {
            if (_mm256_cmpgt_epi16_mask(_mm256_and_si256(h, _mm256_set1_epi16(0x7fff)), _mm256_set1_epi16(0x7c00))) {
                for (int64_t j = i; j < n && j < i + 16; j++) d[j] = acl_f16_to_f32(s[j]);
                continue;
            }
            v = _mm512_cvtph_ps(h);
        }
        _mm512_mask_storeu_ps(d + i, mk, v);
    }
}

/* fp32 row s -> fp16 / bf16 row d as acl_f32_to_f16 / acl_f32_to_bf16 round, 16 lanes a step and the tail under a
 * mask; an fp16 block holding a NaN lane converted lane by lane by acl_f32_to_f16 */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static void p3_narrow_avx512(uint16_t *d, const float *s,
                                                                                            int64_t n, bool bf) {
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 mk = n - i >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << (n - i)) - 1);
        const __m512 v = _mm512_maskz_loadu_ps(mk, s + i);
        __m256i h;
        if (!bf) {
            if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)) {
                for (int64_t j = i; j < n && j < i + 16; j++) d[j] = acl_f32_to_f16(s[j]);
                continue;
            }
            h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        } else {
            h = p3_bf16_round16(v);
        }
        _mm256_mask_storeu_epi16(d + i, mk, h);
    }
}
#endif

/* fp32 row -> the fp16 / bf16 row d (dt), rounded once */
static void p3_narrow(uint16_t *d, const float *s, int64_t n, int dt) {
#ifdef ACL_F16_ROWS_F16C
    if (acl_simd_level() >= ACL_SIMD_AVX512) {
        p3_narrow_avx512(d, s, n, dt == ACL_BF16);
        return;
    }
#endif
    if (dt == ACL_FLOAT16)
        p3_row_f32_to_f16(d, s, n);
    else
        acl_row_f32_to_bf16(d, s, n);
}

static void p3_clear(void *s, size_t n);

/* the fp32 sums a[0..m) (64-byte aligned) rounded once into the fp16 / bf16 row d, a cleared behind */
static void p3_round_clear(uint16_t *d, float *a, int64_t m, int dt) {
#ifdef ACL_F16_ROWS_F16C
    if (acl_simd_level() >= ACL_SIMD_AVX512) {
        p3_round_clear_avx512(d, a, m, dt == ACL_BF16);
        return;
    }
#endif
    if (dt == ACL_FLOAT16)
        p3_row_f32_to_f16(d, a, m);
    else
        acl_row_f32_to_bf16(d, a, m);
    p3_clear(a, (size_t)m * sizeof(float));
}

#ifdef ACL_F16_ROWS_F16C
/* n >= 64 bytes at d (any alignment) cleared with plain 64-byte stores: an unaligned first and last line, the
 * aligned lines between */
__attribute__((target("avx512f"))) static void p3_zero_avx512(char *d, size_t n) {
    const __m512i z = _mm512_setzero_si512();
    char *e = d + n;
    _mm512_storeu_si512((void *)d, z);
    /* (the empty asm keeps GCC from turning the loop into a memset call: string stores) */
    for (char *p = (char *)(((uintptr_t)d + 64) & ~(uintptr_t)63); p + 64 <= e; p += 64) {
        _mm512_store_si512((void *)p, z);
        __asm__ volatile("" : : "r"(p) : "memory");
    }
    _mm512_storeu_si512((void *)(e - 64), z);
}
/* the same with 32-byte stores (n >= 32) */
__attribute__((target("avx2"))) static void p3_zero_avx2(char *d, size_t n) {
    const __m256i z = _mm256_setzero_si256();
    char *e = d + n;
    _mm256_storeu_si256((__m256i *)(void *)d, z);
    for (char *p = (char *)(((uintptr_t)d + 32) & ~(uintptr_t)31); p + 32 <= e; p += 32) {
        _mm256_store_si256((__m256i *)(void *)p, z);
        __asm__ volatile("" : : "r"(p) : "memory");
    }
    _mm256_storeu_si256((__m256i *)(void *)(e - 32), z);
}
#endif

/* n bytes at d cleared with plain stores (a gradInput plane about to receive its few touched cells: its lines stay
 * in L1 for them) */
static void p3_zero(char *d, size_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (n >= 64 && acl_simd_level() >= ACL_SIMD_AVX512) {
        p3_zero_avx512(d, n);
        return;
    }
    if (n >= 32 && acl_simd_level() >= ACL_SIMD_AVX2) {
        p3_zero_avx2(d, n);
        return;
    }
#endif
    memset(d, 0, n);
}

static void *p3_alloc64(size_t bytes) {
    return aligned_alloc(64, (bytes + 63) / 64 * 64);
}

/* gradOutput row at off (element stride st) as fp32 */
static void bwd_grad_row(float *d, const acl_view *gy, int64_t off, int64_t st, int64_t n) {
    const uint16_t *h = (const uint16_t *)gy->base + off;
#ifdef ACL_F16_ROWS_F16C
    if (st == 1 && acl_simd_level() >= ACL_SIMD_AVX512) {
        p3_widen_avx512(d, h, n, gy->dtype == ACL_BF16);
        return;
    }
#endif
    if (st == 1 && gy->dtype == ACL_FLOAT16) {
        p3_row_f16_to_f32(d, h, n);
    } else if (st == 1 && gy->dtype == ACL_BF16) {
        acl_row_bf16_to_f32(d, h, n);
    } else if (gy->dtype == ACL_FLOAT16) {
        for (int64_t w = 0; w < n; w++) d[w] = acl_f16_to_f32(h[w * st]);
    } else {
        for (int64_t w = 0; w < n; w++) d[w] = acl_bf16_to_f32(h[w * st]);
    }
}

/* a + b by common/nan_order.h's rule (float or double): the max-pool backward's repeated cells sum their gradients
 * in gradient order, and which of two NaNs a plain addition keeps is the compiled operand order - different in the
 * level variants and between the scatter, direct and per-cell paths */
#if defined(__x86_64__) && defined(__GNUC__)
/* x86-64: addss / addsd with a as the first source (the destination): SSE returns a quietened if a is NaN, else b
 * quietened if b is NaN - the rule itself, at a plain addition's cost */
static inline float p3_add_ord_f(float a, float b) {
    __asm__("addss %1, %0" : "+x"(a) : "x"(b));
    return a;
}
static inline double p3_add_ord_d(double a, double b) {
    __asm__("addsd %1, %0" : "+x"(a) : "x"(b));
    return a;
}
#define P3_NADD(a, b) _Generic((a), double: p3_add_ord_d, default: p3_add_ord_f)((a), (b))
#else
#define P3_NADD(a, b) _Generic((a), double: no_add_d, default: no_add_f)((a), (b))
#endif

/* acc[k] += GEXPR (the w-th gradient) for the n cells k = KEXPR of one gradOutput row inside [0, isz), in w order; a
 * sparse plane appends each k to kk */
#define P3_PLAIN_ADD(a, b) ((a) + (b))
#define P3_SCATTER(KEXPR, GEXPR, ADD)                                                                            \
    if (sparse) {                                                                                                \
        for (int64_t w = 0; w < n; w++) {                                                                        \
            const int64_t k_ = (KEXPR);                                                                          \
            if ((uint64_t)k_ < (uint64_t)isz) {                                                                  \
                acc[k_] = ADD(acc[k_], (GEXPR));                                                                 \
                kk[nk++] = k_;                                                                                   \
            }                                                                                                    \
        }                                                                                                        \
    } else {                                                                                                     \
        for (int64_t w = 0; w < n; w++) {                                                                        \
            const int64_t k_ = (KEXPR);                                                                          \
            if ((uint64_t)k_ < (uint64_t)isz) acc[k_] = ADD(acc[k_], (GEXPR));                                   \
        }                                                                                                        \
    }

/* one gradOutput row (gradients g, element stride gst): ity 4 / 8 = an int32 / int64 index row at ir (element stride
 * ist), else the cells in kb; returns the new count of kk. rule 0: plain additions (fp32 / double gradients: one
 * code at every level, as the per-cell kernel's); fp16 / bf16 gradients (whose path - this or the direct one - the
 * level picks) by the rule where needed: rule 1 (the plane holds a NaN gradient) adds by P3_NADD, rule -1 checks the
 * row first (a row without a NaN gradient adds plainly: a NaN already in acc then meets no other NaN). */
#define P3_SCATTER_ROWS(ADD)                                                                                     \
    if (ity == 4 && ist == 1 && gst == 1) {                                                                      \
        const int32_t *r = (const int32_t *)ir;                                                                  \
        P3_SCATTER(r[w], g[w], ADD)                                                                              \
    } else if (ity == 8 && ist == 1 && gst == 1) {                                                               \
        const int64_t *r = (const int64_t *)ir;                                                                  \
        P3_SCATTER(r[w], g[w], ADD)                                                                              \
    } else if (ity == 4) {                                                                                       \
        const int32_t *r = (const int32_t *)ir;                                                                  \
        P3_SCATTER(r[w * ist], g[w * gst], ADD)                                                                  \
    } else if (ity == 8) {                                                                                       \
        const int64_t *r = (const int64_t *)ir;                                                                  \
        P3_SCATTER(r[w * ist], g[w * gst], ADD)                                                                  \
    } else {                                                                                                     \
        P3_SCATTER(kb[w], g[w * gst], ADD)                                                                       \
    }
#define P3_SCATTER_FN(NAME, AT)                                                                                  \
    static int64_t NAME(AT *restrict acc, int64_t *restrict kk, int64_t nk, int64_t sparse, const AT *restrict g, \
                        int64_t gst, const void *ir, int ity, int64_t ist, const int64_t *kb, int64_t n,         \
                        int64_t isz, int rule) {                                                                 \
        int gnan = rule > 0;                                                                                     \
        if (rule < 0) {                                                                                          \
            if (gst == 1)                                                                                        \
                for (int64_t w = 0; w < n; w++) gnan |= g[w] != g[w];                                            \
            else                                                                                                 \
                for (int64_t w = 0; w < n; w++) gnan |= g[w * gst] != g[w * gst];                                \
        }                                                                                                        \
        if (__builtin_expect(gnan, 0)) {                                                                         \
            P3_SCATTER_ROWS(P3_NADD)                                                                             \
        } else {                                                                                                 \
            P3_SCATTER_ROWS(P3_PLAIN_ADD)                                                                        \
        }                                                                                                        \
        return nk;                                                                                               \
    }
P3_SCATTER_FN(p3_scatter_f32, float)
P3_SCATTER_FN(p3_scatter_f64, double)

/* ---- the sparse fp16 / bf16 planes' direct path (plain stores; dense gradOutput and int32 / int64 index planes):
 * each cell's sum 0 + g1 + g2 + ... built in place in the cleared gradInput plane, the summing path's bytes without
 * its fp32 plane, scratch copy and re-clearing. A cell named once holds 0 + g1 rounded, which is g1 itself except for
 * -0 (0 + -0 = +0) and a NaN (quietened by the addition: its quiet bit set, the payload kept, as widen / add / round
 * leave it): those fixed-up bits are stored, no arithmetic. A cell named again gets its running fp32 sum in run[],
 * rounded once into the plane. The per-thread slot plane (never cleared between planes) tells the cases apart:
 * slot[k] <= base: not named yet in this plane; base + 1 + w: named once, by the gradient w; base + n + 1: named more
 * than once (run[k] valid). base grows by n + 1 a plane. */
static inline uint16_t p3_fix_f16(uint16_t v) {
    const uint32_t x = v & (uint32_t)-(uint32_t)(v != 0x8000u); /* (branch-free: -0 is data) */
    return (uint16_t)(x | ((uint32_t)((x & 0x7fffu) > 0x7c00u) << 9));
}
static inline uint16_t p3_fix_bf16(uint16_t v) {
    const uint32_t x = v & (uint32_t)-(uint32_t)(v != 0x8000u);
    return (uint16_t)(x | ((uint32_t)((x & 0x7fffu) > 0x7f80u) << 6));
}
/* f[w] = the fixed-up bits of the n fp16 / bf16 gradients g[w] (plain loops the compiler vectorises) */
static void p3_fix_row(uint16_t *f, const uint16_t *g, int64_t n, int dt) {
    if (dt == ACL_FLOAT16)
        for (int64_t w = 0; w < n; w++) f[w] = p3_fix_f16(g[w]);
    else
        for (int64_t w = 0; w < n; w++) f[w] = p3_fix_bf16(g[w]);
}

/* the n gradients g[w] (fixed-up bits f[w]) into the cleared plane d at the cells r[w] (cells outside [0, isz)
 * skipped). Branch-free first pass: every cell gets the bits of its last gradient, the slot its first gradient, and
 * the repeats are listed (dl); the second pass sums the listed cells in gradient order. dl: room for n entries. */
#define P3_DIRECT_FN(NAME, ATTR, ET, IT, AT, LOAD, STORE)                                                        \
    /* the second pass (the repeats, in gradient order, by the rule): apart, so the first pass's code is as it was */ \
    __attribute__((noinline)) ATTR static void NAME##_rep(ET *restrict d, const ET *restrict g, const IT *restrict r, \
                                                          int64_t n, uint32_t *restrict slot, uint32_t base,      \
                                                          AT *restrict run, const int32_t *restrict dl, int64_t nd) { \
        const uint32_t many = base + (uint32_t)n + 1u;                                                           \
        for (int64_t i = 0; i < nd; i++) { /* (branch-free: the second / later naming is data) */                \
            const int64_t w = dl[i], k = r[w];                                                                   \
            const uint32_t s = slot[k];                                                                          \
            const int64_t fw = s == many ? w : (int64_t)(s - base - 1u); /* the first gradient */               \
            const AT a = P3_NADD((AT)0, LOAD(g[fw])), b = run[k];                                                \
            const AT v = P3_NADD(s == many ? b : a, LOAD(g[w]));                                                 \
            slot[k] = many;                                                                                      \
            run[k] = v;                                                                                          \
            d[k] = STORE(v);                                                                                     \
        }                                                                                                        \
    }                                                                                                            \
    __attribute__((noinline)) ATTR static int64_t NAME(ET *restrict d, const ET *restrict g, const ET *restrict f,   \
                                                       const IT *restrict r, int64_t n, int64_t isz,             \
                                                       uint32_t *restrict slot, uint32_t base, AT *restrict run, \
                                                       int32_t *restrict dl) {                                   \
        int64_t nd = 0;                                                                                          \
        for (int64_t w = 0; w < n; w++) {                                                                        \
            const int64_t k = r[w];                                                                              \
            if ((uint64_t)k >= (uint64_t)isz) continue;                                                          \
            const uint32_t s = slot[k];                                                                          \
            const uint32_t rep = s > base;                                                                       \
            slot[k] = rep ? s : base + 1u + (uint32_t)w;                                                         \
            d[k] = f[w];                                                                                         \
            dl[nd] = (int32_t)w;                                                                                 \
            nd += rep;                                                                                           \
        }                                                                                                        \
        if (nd) NAME##_rep(d, g, r, n, slot, base, run, dl, nd);                                                 \
        return nd;                                                                                               \
    }
#ifdef ACL_F16_ROWS_F16C
/* F16C conversions on the summing path: every value widened there is added to (a NaN comes out quiet either way) and
 * every value rounded is a sum (a quiet NaN), so they give acl_f16_to_f32 / acl_f32_to_f16's bits */
__attribute__((target("avx2,f16c"))) static inline float p3_h2f_f16c(uint16_t h) {
    return _cvtsh_ss(h);
}
__attribute__((target("avx2,f16c"))) static inline uint16_t p3_f2h_f16c(float f) {
    return (uint16_t)_cvtss_sh(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
#define P3_F16C_ATTR __attribute__((target("avx2,f16c")))
P3_DIRECT_FN(p3_direct_f16c_i32, P3_F16C_ATTR, uint16_t, int32_t, float, p3_h2f_f16c, p3_f2h_f16c)
P3_DIRECT_FN(p3_direct_f16c_i64, P3_F16C_ATTR, uint16_t, int64_t, float, p3_h2f_f16c, p3_f2h_f16c)
#endif
P3_DIRECT_FN(p3_direct_f16_i32, , uint16_t, int32_t, float, acl_f16_to_f32, acl_f32_to_f16)
P3_DIRECT_FN(p3_direct_f16_i64, , uint16_t, int64_t, float, acl_f16_to_f32, acl_f32_to_f16)
P3_DIRECT_FN(p3_direct_bf16_i32, , uint16_t, int32_t, float, acl_bf16_to_f32, acl_f32_to_bf16)
P3_DIRECT_FN(p3_direct_bf16_i64, , uint16_t, int64_t, float, acl_bf16_to_f32, acl_f32_to_bf16)

/* one dense fp16 / bf16 gradInput plane xp from its dense gradOutput plane gp and dense index plane ir (ity 4 / 8
 * bytes), n cells each; fb, dl: room for n entries. Returns the count of repeated namings. */
static int64_t p3_direct_plane(uint16_t *xp, int dt, const uint16_t *gp, const void *ir, int ity, int64_t n,
                               int64_t isz, uint32_t *slot, uint32_t base, float *run, uint16_t *fb, int32_t *dl) {
    p3_fix_row(fb, gp, n, dt);
    p3_zero((char *)xp, (size_t)isz * 2);
#ifdef ACL_F16_ROWS_F16C
    if (dt == ACL_FLOAT16 && acl_simd_level() >= ACL_SIMD_AVX2)
        return ity == 8 ? p3_direct_f16c_i64(xp, gp, fb, ir, n, isz, slot, base, run, dl)
                        : p3_direct_f16c_i32(xp, gp, fb, ir, n, isz, slot, base, run, dl);
#endif
    if (dt == ACL_FLOAT16)
        return ity == 8 ? p3_direct_f16_i64(xp, gp, fb, ir, n, isz, slot, base, run, dl)
                        : p3_direct_f16_i32(xp, gp, fb, ir, n, isz, slot, base, run, dl);
    return ity == 8 ? p3_direct_bf16_i64(xp, gp, fb, ir, n, isz, slot, base, run, dl)
                    : p3_direct_bf16_i32(xp, gp, fb, ir, n, isz, slot, base, run, dl);
}

#if defined(__SSE2__) && !defined(ACL_HALF_ROWS_NATIVE_F16) && !defined(PYACLNN_NO_SSE2_ROWS)
#define P3_SPARSE_OUT_SSE2 1
/* the sparse plane's touched sums af[kk[i]] rounded into the cleared fp16 / bf16 plane xh at kk[i], 8 a step in
 * registers (common/half_rows.h's blocks: the bits of p3_narrow's row converters, a block with a NaN lane by the
 * element functions), then af re-cleared (after every read: kk may name a cell twice) */
static void p3_sparse_out_sse2(uint16_t *xh, float *af, const int64_t *kk, int64_t nk, int dt) {
    int64_t i = 0;
    for (; i + 8 <= nk; i += 8) {
        const int64_t *k = kk + i;
        const __m128 a = _mm_setr_ps(af[k[0]], af[k[1]], af[k[2]], af[k[3]]);
        const __m128 b = _mm_setr_ps(af[k[4]], af[k[5]], af[k[6]], af[k[7]]);
        __m128i h;
        int nan = 0;
        if (dt == ACL_FLOAT16) {
            h = acl_hr_f32x8_to_f16_(_mm_castps_si128(a), _mm_castps_si128(b), &nan);
        } else {
            nan = _mm_movemask_ps(_mm_or_ps(_mm_cmpunord_ps(a, a), _mm_cmpunord_ps(b, b)));
            h = _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(a)),
                                acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(b)));
        }
        if (nan) {
            for (int q = 0; q < 8; q++)
                xh[k[q]] = dt == ACL_FLOAT16 ? acl_f32_to_f16_bf(af[k[q]]) : acl_f32_to_bf16_bf(af[k[q]]);
            continue;
        }
        xh[k[0]] = (uint16_t)_mm_extract_epi16(h, 0);
        xh[k[1]] = (uint16_t)_mm_extract_epi16(h, 1);
        xh[k[2]] = (uint16_t)_mm_extract_epi16(h, 2);
        xh[k[3]] = (uint16_t)_mm_extract_epi16(h, 3);
        xh[k[4]] = (uint16_t)_mm_extract_epi16(h, 4);
        xh[k[5]] = (uint16_t)_mm_extract_epi16(h, 5);
        xh[k[6]] = (uint16_t)_mm_extract_epi16(h, 6);
        xh[k[7]] = (uint16_t)_mm_extract_epi16(h, 7);
    }
    for (; i < nk; i++) xh[kk[i]] = dt == ACL_FLOAT16 ? acl_f32_to_f16_bf(af[kk[i]]) : acl_f32_to_bf16_bf(af[kk[i]]);
    for (i = 0; i < nk; i++) af[kk[i]] = 0.0f;
}
#endif

static void bwd_dense_planes(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_max_params *pp,
                             const geo *gp) {
    const geo g = *gp;
    const int64_t isz = g.in[0] * g.in[1] * g.in[2], osz = g.out[0] * g.out[1] * g.out[2], n = g.out[2];
    const int dt = gx->dtype;
    const size_t es = acl_dtype_size(dt), as = dt == ACL_DOUBLE ? sizeof(double) : sizeof(float);
    const bool half = dt == ACL_FLOAT16 || dt == ACL_BF16;
    /* a dense gradOutput plane is converted to fp32 in one call (the converters' fixed cost counts for the small
     * planes of adaptive pools) */
    const bool gdense = g.ys[2] == 1 && (g.out[1] == 1 || g.ys[1] == n) && (g.out[0] == 1 || g.ys[0] == g.out[1] * n);
    /* sparse: at most one argmax per 16 cells - round and re-clear only the touched cells */
    /* fp16 / bf16 at the portable level: up to one argmax per 4 cells (max_pool3d k3 s2: one per 8) - without F16C the
     * rounding of a whole dense plane costs more than the fp32 plane's copy (fp16 N4 C64 16x56x56 k3s2p1, 1 thread:
     * 11.1 ms dense vs 3.2 ms fp32; sparse 3.6-4.0 ms); with F16C / AVX-512 the dense planes stay faster (2.1 vs
     * 4.5 ms) */
    const int64_t sparse = osz <= isz / (half && acl_simd_level() < ACL_SIMD_AVX2 ? 4 : 16);
    /* non-temporal stores for a large gradInput, except sparse planes that fit the last-level cache (fp32 plane
     * copies went 0.28 -> 0.22 ms with plain stores at 2 threads, N32 C64 56x56 -> 7x7, 25.7 MB; fp16 / bf16 planes
     * cleared in place, adaptive max 3d o4x7x7 fp16 25.7 MB, 0.276 -> 0.187 ms with the memset below: the warm
     * output stays cached; dense planes measured the other way, 0.74 vs 0.91 ms) */
#ifdef ACL_F16_ROWS_F16C
    const int64_t gxb = g.planes * isz * (int64_t)es;
    const bool nt = gxb >= P3_NT_BYTES && !(sparse && gxb < P3_SPARSE_NT_BYTES) &&
                    acl_simd_level() >= ACL_SIMD_AVX2;
#else
    const bool nt = false;
#endif
    /* the index rows the scatter reads in place (else copied to kb) */
    const int ity = pp->idx_mode == POOL_IDX_RAW32                                  ? 4
                    : pp->idx_mode != POOL_IDX_VIEW                                 ? 0
                    : ind->dtype == ACL_INT64                                       ? 8
                    : ind->dtype == ACL_INT32                                       ? 4
                                                                                    : 0;
    const int64_t chunk = isz < P3_CHUNK ? isz : P3_CHUNK;
    /* dense index and gradOutput planes: one scatter call over the plane's osz cells (the same row-major order) */
    const bool idense = pp->idx_mode == POOL_IDX_RAW32 ||
                        (ity != 0 && g.is[2] == 1 && (g.out[1] == 1 || g.is[1] == n) &&
                         (g.out[0] == 1 || g.is[0] == g.out[1] * n));
    const bool flat = idense && gdense;
    const int64_t R0 = flat ? 1 : g.out[0], R1 = flat ? 1 : g.out[1], nn = flat ? osz : n;
    /* sparse fp16 / bf16 planes with dense gradOutput and int32 / int64 index planes, gradInput well inside the
     * 32 MiB last-level cache: the direct path, plain stores (a warm output that fits the cache is written several
     * times faster so than streamed past it; a 25.7 MiB one measured 1.5x slower so on the shared machine) */
    const bool direct = half && sparse && flat && ity != 0 && osz < ((int64_t)1 << 30) &&
                        g.planes * isz * (int64_t)es < P3_DIRECT_BYTES;
    /* fp32 / double sparse planes stored with plain stores accumulate in place too: a memset of the plane (string
     * stores, no read for ownership of its lines) then its few cells, instead of a copy from the accumulator
     * (adaptive max 56 -> 7 fp32, N32 C64, 25.7 MB, 2 threads, Zen 4: 0.49 -> 0.24 ms; a memset of the
     * output alone takes 0.26-0.30 ms there) */
    const bool sparse_inplace = !half && sparse && !nt;
#pragma omp parallel
    {
        /* fp32 / double planes past 64 MiB (or no scratch to be had) accumulate in place: the gradInput plane
         * cleared, then the same additions into it */
        void *acc = !half && (sparse_inplace || isz * (int64_t)as > ((int64_t)64 << 20)) ? NULL
                                                                                          : p3_alloc64((size_t)isz * as);
        const bool inplace = !half && !acc;
        int64_t *kk = malloc((size_t)(sparse ? osz : 1) * sizeof(int64_t));
        int64_t *kb = malloc((size_t)n * sizeof(int64_t));
        float *gf = half ? malloc((size_t)(gdense ? osz : n) * sizeof(float)) : NULL;
        /* half: the rounded plane (sparse) or one rounded chunk (dense); sparse half: the touched sums and their
         * roundings */
        uint16_t *zt = half ? p3_alloc64((size_t)(sparse ? isz : chunk) * 2) : NULL;
        float *sv = half && sparse ? malloc((size_t)osz * sizeof(float)) : NULL;
        uint16_t *sh = half && sparse ? malloc((size_t)osz * sizeof(uint16_t)) : NULL;
        uint32_t *slot = direct ? calloc((size_t)isz, sizeof(uint32_t)) : NULL;
        uint16_t *fb = direct ? malloc((size_t)osz * sizeof(uint16_t)) : NULL;
        int32_t *dl = direct ? malloc((size_t)osz * sizeof(int32_t)) : NULL;
        uint32_t base = 0;
        bool dgo = direct && acc;
        const bool ok = (acc || inplace) && kk && kb && (!half || (gf && zt && (!sparse || (sv && sh)))) &&
                        (!direct || (slot && fb && dl));
        if (ok && acc) {
            memset(acc, 0, (size_t)isz * as);
            if (half && sparse) memset(zt, 0, (size_t)isz * 2);
        }
#pragma omp for schedule(static)
        for (int64_t pl = 0; pl < g.planes; pl++) {
            if (!ok) continue;
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1;
            const int64_t xo = p0 * g.xs0 + p1 * g.xs1, go = p0 * g.ys0 + p1 * g.ys1, io = p0 * g.is0 + p1 * g.is1;
            char *xp = gx->base + xo * (int64_t)es;
            if (dgo) {
                if ((uint64_t)base + 2u * ((uint64_t)osz + 1u) > UINT32_MAX) { /* the slots wrap: cleared */
                    memset(slot, 0, (size_t)isz * sizeof(uint32_t));
                    base = 0;
                }
                const void *ir = pp->idx_mode == POOL_IDX_RAW32 ? (const void *)((const int32_t *)ind->base + pl * osz)
                                                                : (const void *)(ind->base + io * ity);
                const int64_t nd = p3_direct_plane((uint16_t *)(void *)xp, dt, (const uint16_t *)gy->base + go, ir, ity,
                                                   osz, isz, slot, base, (float *)acc, fb, dl);
                base += (uint32_t)osz + 1u;
                /* many cells named twice (overlapping windows): this thread's remaining planes by the summing path,
                 * faster then (the same bytes either way) */
                if (nd * 8 > osz) {
                    dgo = false;
                    memset(acc, 0, (size_t)isz * as); /* the summing path's accumulator (run[] here) cleared */
                }
                continue;
            }
            if (half && gdense) bwd_grad_row(gf, gy, go, 1, osz);
            void *ap = acc; /* the accumulator plane */
            if (inplace) {
                ap = xp;
                memset(xp, 0, (size_t)isz * es);
            }
            int64_t nk = 0;
            for (int64_t od = 0; od < R0; od++)
                for (int64_t oh = 0; oh < R1; oh++) {
                    const int64_t r = od * R1 + oh, goff = go + od * g.ys[0] + oh * g.ys[1];
                    const void *ir = NULL;
                    int64_t ist = 1;
                    if (pp->idx_mode == POOL_IDX_RAW32) {
                        ir = (const int32_t *)ind->base + pl * osz + r * nn;
                    } else if (ity != 0) {
                        ir = ind->base + (io + od * g.is[0] + oh * g.is[1]) * ity;
                        ist = g.is[2];
                    } else if (pp->idx_mode == POOL_IDX_UNIT) {
                        const int64_t b = ((od * pp->s[0] - pp->p[0]) * g.in[1] + oh * pp->s[1] - pp->p[1]) * g.in[2] -
                                          pp->p[2];
                        for (int64_t w = 0; w < n; w++) kb[w] = b + w * pp->s[2];
                    } else { /* int8 indices */
                        const int8_t *rr = (const int8_t *)ind->base + io + od * g.is[0] + oh * g.is[1];
                        for (int64_t w = 0; w < n; w++) kb[w] = rr[w * g.is[2]];
                    }
                    if (dt == ACL_DOUBLE) {
                        nk = p3_scatter_f64((double *)ap, kk, nk, sparse && !inplace, (const double *)gy->base + goff, g.ys[2],
                                            ir, ity, ist, kb, nn, isz, 0);
                    } else if (dt == ACL_FLOAT) {
                        nk = p3_scatter_f32((float *)ap, kk, nk, sparse && !inplace, (const float *)gy->base + goff, g.ys[2], ir,
                                            ity, ist, kb, nn, isz, 0);
                    } else {
                        const float *gr = gf + r * nn;
                        if (!gdense) {
                            bwd_grad_row(gf, gy, goff, g.ys[2], n);
                            gr = gf;
                        }
                        nk = p3_scatter_f32((float *)acc, kk, nk, sparse, gr, 1, ir, ity, ist, kb, nn, isz, 1);
                    }
                }
            if (inplace) continue;
            if (!half) { /* the accumulator is the plane */
                if (!sparse) {
                    for (int64_t c = 0; c < isz; c += chunk) {
                        const int64_t m = isz - c < chunk ? isz - c : chunk;
                        p3_put_clear(xp + c * (int64_t)es, (char *)acc + c * (int64_t)es, (size_t)m * es, nt);
                    }
                    continue;
                }
                p3_put(xp, acc, (size_t)isz * es, nt);
                if (dt == ACL_DOUBLE)
                    for (int64_t i = 0; i < nk; i++) ((double *)acc)[kk[i]] = 0;
                else
                    for (int64_t i = 0; i < nk; i++) ((float *)acc)[kk[i]] = 0;
                continue;
            }
            float *af = (float *)acc;
            /* the plane cleared in place (memset: glibc's string stores measured faster than p3_zero's vector
             * stores for these large planes - adaptive max 3d o4x7x7 fp16, 100 KB planes, 2 threads: 0.231 ->
             * 0.187 ms), then its touched cells (no staging plane) */
            if (sparse && !nt) {
#ifdef P3_SPARSE_OUT_SSE2
                if (acl_simd_level() < ACL_SIMD_AVX2) {
                    memset(xp, 0, (size_t)isz * 2);
                    p3_sparse_out_sse2((uint16_t *)(void *)xp, af, kk, nk, dt);
                    continue;
                }
#endif
                for (int64_t i = 0; i < nk; i++) sv[i] = af[kk[i]];
                p3_narrow(sh, sv, nk, dt);
                if (isz * 2 <= P3_ZERO_BYTES)
                    p3_zero(xp, (size_t)isz * 2);
                else
                    memset(xp, 0, (size_t)isz * 2);
                uint16_t *xh = (uint16_t *)(void *)xp;
                for (int64_t i = 0; i < nk; i++) {
                    xh[kk[i]] = sh[i];
                    af[kk[i]] = 0.0f;
                }
                continue;
            }
            if (sparse) {
                for (int64_t i = 0; i < nk; i++) sv[i] = af[kk[i]];
                p3_narrow(sh, sv, nk, dt);
                for (int64_t i = 0; i < nk; i++) zt[kk[i]] = sh[i];
                p3_put(xp, zt, (size_t)isz * 2, nt);
                for (int64_t i = 0; i < nk; i++) {
                    af[kk[i]] = 0.0f;
                    zt[kk[i]] = 0;
                }
                continue;
            }
#ifdef ACL_F16_ROWS_F16C
            if (nt && acl_simd_level() >= ACL_SIMD_AVX512) { /* rounded straight into the plane (max_pool3d k3 s2 fp16,
                                                               * N4 C64 16x56x56, 1 thread: 2.27 -> 1.92-2.16 ms) */
                p3_round_clear_nt_avx512((uint16_t *)(void *)xp, af, isz, dt == ACL_BF16);
                continue;
            }
#endif
            for (int64_t c = 0; c < isz; c += chunk) {
                const int64_t m = isz - c < chunk ? isz - c : chunk;
                p3_round_clear(zt, af + c, m, dt);
                p3_put(xp + c * 2, zt, (size_t)m * 2, nt);
            }
        }
        p3_put_fence(nt);
        free(acc);
        free(kk);
        free(kb);
        free(gf);
        free(zt);
        free(sv);
        free(sh);
        free(slot);
        free(fb);
        free(dl);
    }
}

#define BWD_BODY(T, AT, LOAD, STORE, ROWST)                                                                      \
    do {                                                                                                         \
        const T *gb = (const T *)gy->base;                                                                       \
        T *xb = (T *)gx->base;                                                                                   \
        _Pragma("omp parallel") {                                                                                \
            AT *acc = malloc((size_t)isz * sizeof(AT));                                                          \
            _Pragma("omp for schedule(static)") for (int64_t pl = 0; pl < g.planes; pl++) {                      \
                if (!acc) continue;                                                                              \
                const int64_t p0 = pl / g.n1, p1 = pl % g.n1;                                                    \
                const int64_t xo = p0 * g.xs0 + p1 * g.xs1, go = p0 * g.ys0 + p1 * g.ys1;                        \
                const int64_t io = p0 * g.is0 + p1 * g.is1;                                                      \
                for (int64_t k = 0; k < isz; k++) acc[k] = 0;                                                    \
                int64_t j = 0;                                                                                   \
                for (int64_t od = 0; od < g.out[0]; od++)                                                        \
                    for (int64_t oh = 0; oh < g.out[1]; oh++)                                                    \
                        for (int64_t ow = 0; ow < g.out[2]; ow++, j++) {                                         \
                            int64_t k;                                                                           \
                            if (pp->idx_mode == POOL_IDX_UNIT)                                                   \
                                k = ((od * pp->s[0] - pp->p[0]) * g.in[1] + oh * pp->s[1] - pp->p[1]) * g.in[2] + \
                                    ow * pp->s[2] - pp->p[2];                                                    \
                            else                                                                                 \
                                k = load_index(ind, pp->idx_mode, io + od * g.is[0] + oh * g.is[1] + ow * g.is[2], \
                                               pl * osz + j);                                                    \
                            if (k >= 0 && k < isz) { /* (fp16 / bf16 by the rule, as their fast paths) */         \
                                const AT v_ = LOAD(gb[go + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2]]);         \
                                acc[k] = sizeof(T) == 2 ? P3_NADD(acc[k], v_) : acc[k] + v_;                     \
                            }                                                                                    \
                        }                                                                                        \
                int64_t q = 0;                                                                                   \
                for (int64_t d = 0; d < g.in[0]; d++)                                                            \
                    for (int64_t h = 0; h < g.in[1]; h++) {                                                      \
                        T *xr = xb + xo + d * g.xs[0] + h * g.xs[1];                                             \
                        if (ROWST != NULL && g.xs[2] == 1) { /* a unit-stride row: the vectorised store */       \
                            ROWST##_(xr, acc + q, g.in[2]);                                                      \
                            q += g.in[2];                                                                        \
                        } else                                                                                   \
                            for (int64_t w = 0; w < g.in[2]; w++, q++) xr[w * g.xs[2]] = STORE(acc[q]);          \
                    }                                                                                            \
            }                                                                                                    \
            free(acc);                                                                                           \
        }                                                                                                        \
    } while (0)

void pool_max_nd_backward(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_max_params *pp) {
    geo g;
    /* geometry: x = gradInput, y = gradOutput */
    make_geo(&g, gx, gy, ind, pp, pp->idx_mode == POOL_IDX_VIEW);
    const int64_t isz = g.in[0] * g.in[1] * g.in[2], osz = g.out[0] * g.out[1] * g.out[2];
    if (g.xs[2] == 1 && (g.in[1] == 1 || g.xs[1] == g.in[2]) && (g.in[0] == 1 || g.xs[0] == g.in[1] * g.in[2])) {
        bwd_dense_planes(gy, ind, gx, pp, &g);
        return;
    }
    switch (gx->dtype) {
    case ACL_FLOAT: BWD_BODY(float, float, LOAD_ID, STORE_ID, ROWST_NONE); break;
    case ACL_DOUBLE: BWD_BODY(double, double, LOAD_ID, STORE_ID, ROWST_NONE); break;
    case ACL_FLOAT16: BWD_BODY(uint16_t, float, LOAD_F16, STORE_F16, ROWST_F16); break;
    case ACL_BF16: BWD_BODY(uint16_t, float, LOAD_BF16, STORE_BF16, ROWST_BF16); break;
    default: break;
    }
}

/* ---------------------------------------------------------------- average pooling */

static inline double ld(const acl_view *v, int64_t off) {
    switch (v->dtype) {
    case ACL_FLOAT: return ((const float *)v->base)[off];
    case ACL_DOUBLE: return ((const double *)v->base)[off];
    case ACL_FLOAT16: return acl_f16_to_f32(((const uint16_t *)v->base)[off]);
    case ACL_BF16: return acl_bf16_to_f32(((const uint16_t *)v->base)[off]);
    default: return 0;
    }
}

static inline void st(acl_view *v, int64_t off, double x) {
    switch (v->dtype) {
    case ACL_FLOAT: ((float *)v->base)[off] = (float)x; break;
    case ACL_DOUBLE: ((double *)v->base)[off] = x; break;
    case ACL_FLOAT16: ((uint16_t *)v->base)[off] = acl_f32_to_f16((float)x); break;
    case ACL_BF16: ((uint16_t *)v->base)[off] = acl_f32_to_bf16((float)x); break;
    default: break;
    }
}

/* n fp32 values (already rounded from the double sums, as st() rounds) stored at off, off + st, ...: the bits of
 * st() (the row converters are bit-identical to the scalar ones); fp32/fp16/bf16 only */
static void p3_row_f32_to_f16(uint16_t *d, const float *s, int64_t n);
static void st_row_f32(acl_view *v, int64_t off, int64_t st, const float *r, int64_t n) {
    if (v->dtype == ACL_FLOAT) {
        float *p = (float *)v->base + off;
        if (st == 1)
            memcpy(p, r, (size_t)n * sizeof(float));
        else
            for (int64_t i = 0; i < n; i++) p[i * st] = r[i];
        return;
    }
    uint16_t *p = (uint16_t *)v->base + off;
    if (st == 1 && v->dtype == ACL_FLOAT16)
        p3_row_f32_to_f16(p, r, n);
    else if (st == 1)
        acl_row_f32_to_bf16(p, r, n);
    else if (v->dtype == ACL_FLOAT16)
        for (int64_t i = 0; i < n; i++) p[i * st] = acl_f32_to_f16(r[i]);
    else
        for (int64_t i = 0; i < n; i++) p[i * st] = acl_f32_to_bf16(r[i]);
}

typedef struct {
    int64_t n1, planes, xs0, xs1, ys0, ys1;
    int64_t in[3], out[3], xs[3], ys[3];
} ageo;

static void make_ageo(ageo *g, const acl_view *x, const acl_view *y, const pool_avg_params *pp) {
    const int a0 = pp->lead[0], a1 = pp->lead[1];
    g->n1 = a1 >= 0 ? x->dims[a1] : 1;
    g->planes = x->dims[a0] * g->n1;
    g->xs0 = x->strides[a0];
    g->xs1 = a1 >= 0 ? x->strides[a1] : 0;
    g->ys0 = y->strides[a0];
    g->ys1 = a1 >= 0 ? y->strides[a1] : 0;
    for (int i = 0; i < 3; i++) {
        g->in[i] = x->dims[pp->sp[i]];
        g->out[i] = y->dims[pp->sp[i]];
        g->xs[i] = x->strides[pp->sp[i]];
        g->ys[i] = y->strides[pp->sp[i]];
    }
}

/* per axis and output cell: first and one-past-last input cell summed, and the padded / in-range counts */
typedef struct {
    int64_t *lo, *hi;
    double *cnt;
} axis_tab;

static bool axis_tables(axis_tab t[3], const ageo *g, const pool_avg_params *pp) {
    bool ok = true;
    for (int a = 0; a < 3; a++) {
        const int64_t n = g->out[a];
        t[a].lo = malloc((size_t)n * sizeof(int64_t));
        t[a].hi = malloc((size_t)n * sizeof(int64_t));
        t[a].cnt = malloc((size_t)n * sizeof(double));
        if (!t[a].lo || !t[a].hi || !t[a].cnt) {
            ok = false;
            continue;
        }
        for (int64_t o = 0; o < n; o++) {
            int64_t st0 = o * pp->s[a] - pp->p[a], en = st0 + pp->k[a];
            if (en > g->in[a] + pp->p[a]) en = g->in[a] + pp->p[a];
            const int64_t pool = en - st0;
            if (st0 < 0) st0 = 0;
            if (en > g->in[a]) en = g->in[a];
            t[a].lo[o] = st0;
            t[a].hi[o] = en;
            t[a].cnt[o] = (double)(pp->count_include_pad ? pool : en - st0);
        }
    }
    return ok;
}

static void free_tables(axis_tab t[3]) {
    for (int a = 0; a < 3; a++) {
        free(t[a].lo);
        free(t[a].hi);
        free(t[a].cnt);
    }
}

/* sum[j] += (fp32 sum 0 + r[w] + ... over w in [wlo[j], whi[j]) in ascending order) for the m columns of a chunk
 * starting at output column ow0. Columns ow in [ia, ib) (all k taps in range, from ow*s - p) run tap by tap across
 * the columns (vectorised; each column's additions in the same order), the others one by one. */
__attribute__((always_inline)) static inline void avg_taps(float *restrict rs, const float *restrict r, int64_t j0,
                                                           int64_t j1, int64_t s, int64_t base, int64_t k) {
    for (int64_t j = j0; j < j1; j++) rs[j] = 0.0f;
    for (int64_t tw = 0; tw < k; tw++)
        for (int64_t j = j0; j < j1; j++) rs[j] += r[base + j * s + tw];
}

ACL_LEVEL_FN(, avg_row_sums_lv,
             (double *restrict sum, const float *restrict r, const int64_t *wlo, const int64_t *whi, int64_t m,
              int64_t ow0, int64_t ia, int64_t ib, int64_t s, int64_t p, int64_t k),
             (sum, r, wlo, whi, m, ow0, ia, ib, s, p, k)) {
    int64_t j0 = ia - ow0, j1 = ib - ow0;
    if (j0 < 0) j0 = 0;
    if (j1 > m) j1 = m;
    if (j1 < j0) j1 = j0;
    for (int64_t j = 0; j < j0; j++) {
        float a = 0;
        for (int64_t w = wlo[j]; w < whi[j]; w++) a += r[w];
        sum[j] += a;
    }
    if (j1 > j0) {
        float rs[256];
        const int64_t base = ow0 * s - p;
        if (s == 1)
            avg_taps(rs, r, j0, j1, 1, base, k);
        else if (s == 2)
            avg_taps(rs, r, j0, j1, 2, base, k);
        else
            avg_taps(rs, r, j0, j1, s, base, k);
        for (int64_t j = j0; j < j1; j++) sum[j] += rs[j];
    }
    for (int64_t j = j1; j < m; j++) {
        float a = 0;
        for (int64_t w = wlo[j]; w < whi[j]; w++) a += r[w];
        sum[j] += a;
    }
}
#define avg_row_sums avg_row_sums_lv

/* A NaN window sum again in the reference order (common/nan_order.h: which of two NaNs an addition keeps is the
 * compiled operand order, different in avg_row_sums' level variants): per window row an fp32 sum from 0 in w order,
 * the rows added to a double from 0 in (d, h) order - the loops' order */
#define AVG_NAN_CELL(T, LOAD, xp, d0, d1, h0, h1, w0, w1, s0, s1, s2)                                            \
    __extension__({                                                                                              \
        double c_ = 0;                                                                                           \
        for (int64_t d_ = (d0); d_ < (d1); d_++)                                                                 \
            for (int64_t h_ = (h0); h_ < (h1); h_++) {                                                           \
                const T *r_ = (xp) + d_ * (s0) + h_ * (s1);                                                      \
                float a_ = 0;                                                                                    \
                for (int64_t w_ = (w0); w_ < (w1); w_++) a_ = no_add_f(a_, LOAD(r_[w_ * (s2)]));                 \
                c_ = no_add_d(c_, (double)a_);                                                                   \
            }                                                                                                    \
        c_;                                                                                                      \
    })

/* One (plane, output depth) unit per iteration; the output row is done in chunks of up to 256 cells: for each
 * window row (d, h) in ascending order, every cell of the chunk adds that row's fp32 tap sum to its double sum (per
 * cell the additions of the plain per-cell loop, in its order, so the same bytes). */
#define AVG_FWD_BODY(T, LOAD, STORE, ROWCVT)                                                                     \
    do {                                                                                                         \
        const T *xb = (const T *)x->base;                                                                        \
        T *yb = (T *)y->base;                                                                                    \
        _Pragma("omp parallel for schedule(static)") for (int64_t c = 0; c < g.planes * g.out[0]; c++) {         \
            /* fp16 / bf16 unit-stride rows: a window row's span converted once (vectorised, exact), then read as \
             * fp32 - the same values in the same order */                                                      \
            float *rowf = (ROWCVT != NULL && g.xs[2] == 1) ? malloc((size_t)g.in[2] * sizeof(float)) : NULL;   \
            const int64_t pl = c / g.out[0], od = c % g.out[0];                                                  \
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1;                                                        \
            const int64_t xo = p0 * g.xs0 + p1 * g.xs1, yo = p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0];             \
            const int64_t d0 = t[0].lo[od], d1 = t[0].hi[od], xs2 = g.xs[2];                                     \
            double sum[256];                                                                                     \
            /* the output columns whose W window is all in range (k taps from ow * s - p) */                    \
            int64_t ia = (pp->p[2] + pp->s[2] - 1) / pp->s[2], ib = 0;                                           \
            if (g.in[2] + pp->p[2] - pp->k[2] >= 0) ib = (g.in[2] + pp->p[2] - pp->k[2]) / pp->s[2] + 1;         \
            if (ib > g.out[2]) ib = g.out[2];                                                                    \
            if (ib < ia) ib = ia;                                                                                \
            for (int64_t oh = 0; oh < g.out[1]; oh++) {                                                          \
                const int64_t h0 = t[1].lo[oh], h1 = t[1].hi[oh];                                                \
                for (int64_t ow0 = 0; ow0 < g.out[2]; ow0 += 256) {                                              \
                    const int64_t m = g.out[2] - ow0 < 256 ? g.out[2] - ow0 : 256;                               \
                    const int64_t *wlo = t[2].lo + ow0, *whi = t[2].hi + ow0;                                    \
                    for (int64_t j = 0; j < m; j++) sum[j] = 0;                                                  \
                    for (int64_t d = d0; d < d1; d++)                                                            \
                        for (int64_t h = h0; h < h1; h++) {                                                      \
                            const T *row = xb + xo + d * g.xs[0] + h * g.xs[1];                                  \
                            if (rowf) {                                                                          \
                                const int64_t wa = wlo[0], wb = whi[m - 1];                                      \
                                if (wb > wa) ROWCVT##_(rowf + wa, (const void *)(row + wa), wb - wa);            \
                                avg_row_sums(sum, rowf, wlo, whi, m, ow0, ia, ib, pp->s[2], pp->p[2], pp->k[2]); \
                            } else if (ROWCVT == NULL && xs2 == 1)                                               \
                                avg_row_sums(sum, (const float *)(const void *)row, wlo, whi, m, ow0, ia, ib,    \
                                             pp->s[2], pp->p[2], pp->k[2]);                                      \
                            else                                                                                 \
                                for (int64_t j = 0; j < m; j++) {                                                \
                                    float rs = 0; /* a window row in fp32, the rows in double */                 \
                                    for (int64_t w = wlo[j]; w < whi[j]; w++) rs += LOAD(row[w * xs2]);          \
                                    sum[j] += rs;                                                                \
                                }                                                                                \
                        }                                                                                        \
                    for (int64_t j = 0; j < m; j++)                                                              \
                        if (__builtin_expect(sum[j] != sum[j], 0))                                               \
                            sum[j] = AVG_NAN_CELL(T, LOAD, xb + xo, d0, d1, h0, h1, wlo[j], whi[j], g.xs[0],     \
                                                  g.xs[1], xs2);                                                 \
                    for (int64_t j = 0; j < m; j++) {                                                            \
                        const int64_t ow = ow0 + j;                                                              \
                        const double div =                                                                       \
                            pp->divisor ? (double)pp->divisor : t[0].cnt[od] * t[1].cnt[oh] * t[2].cnt[ow];      \
                        yb[yo + oh * g.ys[1] + ow * g.ys[2]] = STORE((float)(sum[j] / div));                     \
                    }                                                                                            \
                }                                                                                                \
            }                                                                                                    \
            free(rowf);                                                                                          \
        }                                                                                                        \
    } while (0)

/* AVG_FWD_BODY's row converters (NULL-tested first, then called as NAME_) */
#define ROWCVT_NONE ((void (*)(float *, const void *, int64_t))NULL)
#define ROWCVT_NONE_(d, s, n) ((void)0)
/* fp16 -> fp32 rows: F16C at AVX2 and above, else SSE2 / NEON / scalar - the same bits (kernels/f16_rows.h) */
static void p3_row_f16_to_f32(float *d, const uint16_t *s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (n >= 16 && acl_simd_level() >= ACL_SIMD_AVX512) {
        acl_f16_to_f32_row_avx512(d, s, n);
        return;
    }
    if (acl_simd_level() >= ACL_SIMD_AVX2) {
        acl_f16_to_f32_row_f16c(d, s, n);
        return;
    }
#endif
    acl_row_f16_to_f32(d, s, n);
}
/* cnt dense elements of x (fp32 / fp16 / bf16) from element offset ro into the fp32 row rb */
static void p3_rows_f32(float *rb, const acl_view *x, int dt, int64_t ro, int64_t cnt) {
    if (dt == ACL_FLOAT)
        memcpy(rb, (const float *)(const void *)x->base + ro, (size_t)cnt * sizeof(float));
    else if (dt == ACL_FLOAT16)
        p3_row_f16_to_f32(rb, (const uint16_t *)(const void *)x->base + ro, cnt);
    else
        acl_row_bf16_to_f32(rb, (const uint16_t *)(const void *)x->base + ro, cnt);
}
#define ROWCVT_F16 p3_row_f16_to_f32
#define ROWCVT_F16_(d, s, n) p3_row_f16_to_f32((d), (const uint16_t *)(s), (n))
/* bf16 -> fp32 rows (a shift: every variant the same bits), 16 lanes a step at AVX-512 */
static void p3_row_bf16_to_f32(float *d, const uint16_t *s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (n >= 16 && acl_simd_level() >= ACL_SIMD_AVX512) {
        acl_bf16_to_f32_row_avx512(d, s, n);
        return;
    }
#endif
    acl_row_bf16_to_f32(d, s, n);
}
/* Stride-2 W windows: a row's even cells widened into E, its odd cells into O (n even; exact for every non-NaN
 * half; a NaN to some NaN - its payload does not matter there: an output whose window holds a NaN comes out NaN and
 * is recomputed from x by the rule), so avg_wpass_dei reads every tap of a window column as a contiguous vector
 * (r[2j + q] = (q odd ? O : E)[j + floor(q / 2)]) instead of de-interleaving r in its loop, which fp32 pays. k3 s2
 * p1, N4 C64 16x56x56, 1 thread: fp16 / bf16 8.6 / 8.3 -> 7.1 / 7.1 ms (fp32 8.3) */
static inline float p3_h2f_el(uint16_t h, bool bf) { return bf ? acl_bf16_to_f32_bf(h) : acl_f16_to_f32_bf(h); }
/* the pairs from element i on, one element at a time (the de-interleaving rows' tails) */
static inline void p3_deint_tail(float *E, float *O, const uint16_t *s, int64_t i, int64_t n, bool bf) {
    for (; i < n; i += 2) {
        E[i / 2] = p3_h2f_el(s[i], bf);
        O[i / 2] = p3_h2f_el(s[i + 1], bf);
    }
}
#ifdef ACL_F16_ROWS_F16C
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static void p3_deint_avx512(float *E, float *O,
                                                                                       const uint16_t *s, int64_t n,
                                                                                       bool bf) {
    const __m512i idx = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33,
                                         62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32);
    const __m512i id2 = _mm512_sub_epi16(idx, _mm512_set1_epi16(32)); /* 30, 28, ... 0 | 31, ... 1 */
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i p = _mm512_permutexvar_epi16(id2, _mm512_loadu_si512((const void *)(s + i)));
        const __m256i ev = _mm512_castsi512_si256(p), od = _mm512_extracti64x4_epi64(p, 1);
        if (bf) {
            _mm512_storeu_si512((void *)(E + i / 2), _mm512_slli_epi32(_mm512_cvtepu16_epi32(ev), 16));
            _mm512_storeu_si512((void *)(O + i / 2), _mm512_slli_epi32(_mm512_cvtepu16_epi32(od), 16));
        } else {
            _mm512_storeu_ps(E + i / 2, _mm512_cvtph_ps(ev));
            _mm512_storeu_ps(O + i / 2, _mm512_cvtph_ps(od));
        }
    }
    p3_deint_tail(E, O, s, i, n, bf);
}
__attribute__((target("avx2,f16c"))) static void p3_deint_avx2(float *E, float *O, const uint16_t *s, int64_t n,
                                                               bool bf) {
    const __m256i sh = _mm256_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15,
                                        0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        __m256i v = _mm256_shuffle_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(s + i)), sh);
        v = _mm256_permute4x64_epi64(v, 0xd8); /* evens | odds */
        const __m128i ev = _mm256_castsi256_si128(v), od = _mm256_extracti128_si256(v, 1);
        if (bf) {
            _mm256_storeu_si256((__m256i *)(void *)(E + i / 2), _mm256_slli_epi32(_mm256_cvtepu16_epi32(ev), 16));
            _mm256_storeu_si256((__m256i *)(void *)(O + i / 2), _mm256_slli_epi32(_mm256_cvtepu16_epi32(od), 16));
        } else {
            _mm256_storeu_ps(E + i / 2, _mm256_cvtph_ps(ev));
            _mm256_storeu_ps(O + i / 2, _mm256_cvtph_ps(od));
        }
    }
    p3_deint_tail(E, O, s, i, n, bf);
}
#endif
#ifdef ACL_HALF_ROWS_SSE2
/* 8 halves (the even or the odd ones of 16) -> 8 fp32 at d, exact (common/half_rows.h's blocks) */
static inline void p3_f16x8_st(float *d, __m128i h, bool bf) {
    const __m128i z = _mm_setzero_si128();
    if (bf) {
        _mm_storeu_si128((__m128i *)(void *)d, _mm_unpacklo_epi16(z, h));
        _mm_storeu_si128((__m128i *)(void *)(d + 4), _mm_unpackhi_epi16(z, h));
        return;
    }
    __m128 lo, hi;
    if (acl_hr_f16x8_(h, &lo, &hi)) {
        _mm_storeu_ps(d, lo);
        _mm_storeu_ps(d + 4, hi);
        return;
    }
    _mm_storeu_si128((__m128i *)(void *)d, acl_hr_f16x4_(_mm_unpacklo_epi16(z, h)));
    _mm_storeu_si128((__m128i *)(void *)(d + 4), acl_hr_f16x4_(_mm_unpackhi_epi16(z, h)));
}
#endif
static void p3_deint(float *E, float *O, const uint16_t *s, int64_t n, bool bf) {
#ifdef ACL_F16_ROWS_F16C
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) {
        p3_deint_avx512(E, O, s, n, bf);
        return;
    }
    if (lv >= ACL_SIMD_AVX2) {
        p3_deint_avx2(E, O, s, n, bf);
        return;
    }
#endif
    int64_t i = 0;
#ifdef ACL_HALF_ROWS_SSE2
    for (; i + 16 <= n; i += 16) { /* 32-bit lanes: the even half sign-extended from the low word, the odd from the
                                    * high word, packed back exactly */
        const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(s + i));
        const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(s + i + 8));
        if (!bf) { /* fp16 without Inf / NaN: a lane's half in its upper 16 bits -> sign | em << 13 (an arithmetic
                    * shift by 3, masked), times 2^112 (exact; normalises subnormals) - 3-4 operations a 4 */
            const __m128i e = _mm_set1_epi16(0x7fff), lim = _mm_set1_epi16(0x7bff);
            const __m128i sp = _mm_or_si128(_mm_cmpgt_epi16(_mm_and_si128(a, e), lim),
                                            _mm_cmpgt_epi16(_mm_and_si128(b, e), lim));
            if (!_mm_movemask_epi8(sp)) {
                const __m128i mk = _mm_set1_epi32((int)0x8fffe000u);
                const __m128 sc = _mm_set1_ps(0x1p112f);
#define P3_H2F_HI_(v) _mm_mul_ps(_mm_castsi128_ps(_mm_and_si128(_mm_srai_epi32((v), 3), mk)), sc)
                _mm_storeu_ps(E + i / 2, P3_H2F_HI_(_mm_slli_epi32(a, 16)));
                _mm_storeu_ps(E + i / 2 + 4, P3_H2F_HI_(_mm_slli_epi32(b, 16)));
                _mm_storeu_ps(O + i / 2, P3_H2F_HI_(a));
                _mm_storeu_ps(O + i / 2 + 4, P3_H2F_HI_(b));
#undef P3_H2F_HI_
                continue;
            }
        }
        const __m128i ev = _mm_packs_epi32(_mm_srai_epi32(_mm_slli_epi32(a, 16), 16), _mm_srai_epi32(_mm_slli_epi32(b, 16), 16));
        const __m128i od = _mm_packs_epi32(_mm_srai_epi32(a, 16), _mm_srai_epi32(b, 16));
        p3_f16x8_st(E + i / 2, ev, bf);
        p3_f16x8_st(O + i / 2, od, bf);
    }
#endif
    p3_deint_tail(E, O, s, i, n, bf);
}
/* [j0, j1): the output columns [ia, ib) whose windows lie inside the row, clamped to [0, m) */
static inline void avg_inner_range(int64_t ia, int64_t ib, int64_t m, int64_t *j0, int64_t *j1) {
    *j0 = ia < 0 ? 0 : ia;
    *j1 = ib > m ? m : ib;
    if (*j1 < *j0) *j1 = *j0;
}
/* avg_wpass for stride 2 on a row split by p3_deint: the same additions in the same order */
ACL_LEVEL_FN(, avg_wpass_dei_lv,
             (float *restrict out, const float *restrict E, const float *restrict O, const int64_t *wlo,
              const int64_t *whi, int64_t m, int64_t ia, int64_t ib, int64_t p, int64_t k),
             (out, E, O, wlo, whi, m, ia, ib, p, k)) {
    int64_t j0, j1;
    avg_inner_range(ia, ib, m, &j0, &j1);
    for (int64_t j = 0; j < j0; j++) {
        float a = 0;
        for (int64_t w = wlo[j]; w < whi[j]; w++) a += (w & 1) ? O[w >> 1] : E[w >> 1];
        out[j] = a;
    }
    if (k == 3) { /* (the common kernel: one pass, the sum in a register) */
        const float *s0 = ((-p & 1) ? O : E) + (-p >> 1), *s1 = (((1 - p) & 1) ? O : E) + ((1 - p) >> 1);
        const float *s2 = (((2 - p) & 1) ? O : E) + ((2 - p) >> 1);
        for (int64_t j = j0; j < j1; j++) out[j] = ((0.0f + s0[j]) + s1[j]) + s2[j];
    } else {
        for (int64_t j = j0; j < j1; j++) out[j] = 0.0f;
        for (int64_t tw = 0; tw < k; tw++) {
            const int64_t q = tw - p;
            const float *src = ((q & 1) ? O : E) + (q >> 1); /* (q >> 1: floor, arithmetic shift) */
            for (int64_t j = j0; j < j1; j++) out[j] += src[j];
        }
    }
    for (int64_t j = j1; j < m; j++) {
        float a = 0;
        for (int64_t w = wlo[j]; w < whi[j]; w++) a += (w & 1) ? O[w >> 1] : E[w >> 1];
        out[j] = a;
    }
}
#define ROWCVT_BF16 p3_row_bf16_to_f32
#define ROWCVT_BF16_(d, s, n) p3_row_bf16_to_f32((d), (const uint16_t *)(s), (n))

/* One input row's fp32 window sums for every output column (the row sums avg_row_sums adds, the same operations) */
ACL_LEVEL_FN(, avg_wpass_lv,
             (float *restrict out, const float *restrict r, const int64_t *wlo, const int64_t *whi, int64_t m,
              int64_t ia, int64_t ib, int64_t s, int64_t p, int64_t k),
             (out, r, wlo, whi, m, ia, ib, s, p, k)) {
    int64_t j0, j1;
    avg_inner_range(ia, ib, m, &j0, &j1);
    for (int64_t j = 0; j < j0; j++) {
        float a = 0;
        for (int64_t w = wlo[j]; w < whi[j]; w++) a += r[w];
        out[j] = a;
    }
    if (j1 > j0) {
        if (s == 1)
            avg_taps(out, r, j0, j1, 1, -p, k);
        else if (s == 2)
            avg_taps(out, r, j0, j1, 2, -p, k);
        else
            avg_taps(out, r, j0, j1, s, -p, k);
    }
    for (int64_t j = j1; j < m; j++) {
        float a = 0;
        for (int64_t w = wlo[j]; w < whi[j]; w++) a += r[w];
        out[j] = a;
    }
}
/* sum[j] += q[j] (double) */
ACL_LEVEL_FN(, avg_dacc_lv, (double *restrict sum, const float *restrict q, int64_t m), (sum, q, m)) {
    for (int64_t j = 0; j < m; j++) sum[j] += q[j];
}

/* AVG_FWD_BODY with each input row's W sums computed once per plane instead of once per output row whose window
 * holds it (k3 s2: 2.25x fewer): per (plane, output depth) unit, the W sums of each window depth (H x out W floats)
 * live in slot d % k[0] of the thread's buffer, tagged with (plane, d), so a depth the previous unit of the plane
 * already summed is not summed again (static schedule: a thread's units are consecutive). fp16 / bf16 depth slices
 * are converted to fp32 in one pass (AVX-512 / F16C / SSE2, the same bits) while the next slice is prefetched - a
 * conversion per row waited on memory and on the store buffer (measured: 1.6-2.6 ms of the 10 ms row). Then every
 * output cell adds its window rows' sums in the same (d, h) order, in double - the same operations on the same
 * values, so the same bytes. An output that comes out NaN is
 * recomputed element by element under common/nan_order.h's rule (a + b keeps a's payload, else b's), in that order,
 * so its payload is the same at every SIMD level. */
#define AVG_FWD_ROWS_BODY(T, LOAD, STORE, ROWCVT)                                                                      \
    do {                                                                                                         \
        const T *xb = (const T *)x->base;                                                                        \
        T *yb = (T *)y->base;                                                                                    \
        const int64_t H = g.in[1], OW = g.out[2];                                                                \
        int64_t ia = (pp->p[2] + pp->s[2] - 1) / pp->s[2], ib = 0;                                               \
        if (g.in[2] + pp->p[2] - pp->k[2] >= 0) ib = (g.in[2] + pp->p[2] - pp->k[2]) / pp->s[2] + 1;             \
        if (ib > OW) ib = OW;                                                                                    \
        if (ib < ia) ib = ia;                                                                                    \
        const int64_t wa = t[2].lo[0], wb = t[2].hi[OW - 1];                                                     \
        /* fp16 / bf16, stride 2 in W, W even: the rows split into even / odd cells (p3_deint) */               \
        const bool dei = ROWCVT != NULL && pp->s[2] == 2 && g.in[2] % 2 == 0;                                    \
        const bool bf = x->dtype == ACL_BF16;                                                                    \
        const int64_t W2 = g.in[2] / 2;                                                                          \
        _Pragma("omp parallel") {                                                                                \
            float *tmp = malloc((size_t)(pp->k[0] * H * OW) * sizeof(float));                                    \
            int64_t *tag = malloc((size_t)pp->k[0] * sizeof(int64_t));                                          \
            float *rowf = ROWCVT != NULL ? malloc((size_t)(H * g.in[2]) * sizeof(float)) : NULL;                 \
            double *sum = malloc((size_t)OW * sizeof(double));                                                   \
            float *vf = malloc((size_t)OW * sizeof(float));                                                      \
            const bool ok = tmp && tag && sum && vf && (ROWCVT == NULL || rowf);                                 \
            for (int64_t i = 0; ok && i < pp->k[0]; i++) tag[i] = -1;                                            \
            _Pragma("omp for schedule(static)") for (int64_t c = 0; c < g.planes * g.out[0]; c++) {              \
                if (!ok) continue;                                                                               \
                const int64_t pl = c / g.out[0], od = c % g.out[0];                                              \
                const int64_t p0 = pl / g.n1, p1 = pl % g.n1;                                                    \
                const int64_t xo = p0 * g.xs0 + p1 * g.xs1, yo = p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0];         \
                const int64_t d0 = t[0].lo[od], d1 = t[0].hi[od];                                                \
                for (int64_t d = d0; d < d1; d++) {                                                              \
                    /* depth d's W sums live in slot d % k[0] (the unit's depths are consecutive, so distinct), \
                     * kept for the next unit of the plane, whose window may share the depth */                 \
                    const int64_t sl = d % pp->k[0], key = pl * g.in[0] + d;                                     \
                    if (tag[sl] == key) continue;                                                                \
                    tag[sl] = key;                                                                               \
                    const T *sb = xb + xo + d * g.xs[0];                                                         \
                    if (dei) { /* even / odd cells apart (W even: a contiguous slice splits as one row) */     \
                        if (g.xs[1] == g.in[2])                                                                  \
                            p3_deint(rowf, rowf + H * W2, (const uint16_t *)(const void *)sb, H * g.in[2], bf);  \
                        else                                                                                     \
                            for (int64_t h = 0; h < H; h++)                                                      \
                                p3_deint(rowf + h * W2, rowf + H * W2 + h * W2,                                  \
                                         (const uint16_t *)(const void *)(sb + h * g.xs[1]), g.in[2], bf);       \
                    } else if (ROWCVT != NULL) { /* the slice's rows converted first, in one pass when contiguous */ \
                        if (g.xs[1] == g.in[2])                                                                  \
                            ROWCVT##_(rowf, (const void *)sb, H * g.in[2]);                                      \
                        else                                                                                     \
                            for (int64_t h = 0; h < H; h++)                                                      \
                                if (wb > wa)                                                                     \
                                    ROWCVT##_(rowf + h * g.in[2] + wa, (const void *)(sb + h * g.xs[1] + wa), wb - wa); \
                    }                                                                                            \
                    /* fp16 / bf16: the next depth's rows fetched while this one's sums run (the conversion    \
                     * pass alone would wait on memory) */                                                       \
                    const char *nx = ROWCVT != NULL && d + 1 < g.in[0] ? (const char *)(sb + g.xs[0]) : NULL;   \
                    for (int64_t h = 0; h < H; h++) {                                                            \
                        if (nx)                                                                                  \
                            for (int64_t b = 0; b < g.in[2] * (int64_t)sizeof(T); b += 64)                       \
                                __builtin_prefetch(nx + h * g.xs[1] * (int64_t)sizeof(T) + b, 0, 3);             \
                        if (dei) {                                                                               \
                            avg_wpass_dei_lv(tmp + (sl * H + h) * OW, rowf + h * W2, rowf + H * W2 + h * W2,     \
                                             t[2].lo, t[2].hi, OW, ia, ib, pp->p[2], pp->k[2]);                  \
                            continue;                                                                            \
                        }                                                                                        \
                        const float *r = ROWCVT != NULL ? rowf + h * g.in[2]                                     \
                                                        : (const float *)(const void *)(sb + h * g.xs[1]);       \
                        avg_wpass_lv(tmp + (sl * H + h) * OW, r, t[2].lo, t[2].hi, OW, ia, ib, pp->s[2],         \
                                     pp->p[2], pp->k[2]);                                                        \
                    }                                                                                            \
                }                                                                                                \
                for (int64_t oh = 0; oh < g.out[1]; oh++) {                                                      \
                    const int64_t h0 = t[1].lo[oh], h1 = t[1].hi[oh];                                            \
                    for (int64_t j = 0; j < OW; j++) sum[j] = 0;                                                 \
                    for (int64_t d = d0; d < d1; d++)                                                            \
                        for (int64_t h = h0; h < h1; h++) avg_dacc_lv(sum, tmp + ((d % pp->k[0]) * H + h) * OW, OW);   \
                    const double c01 = t[0].cnt[od] * t[1].cnt[oh];                                              \
                    for (int64_t j = 0; j < OW; j++) /* (plain loops: vectorised) */                             \
                        vf[j] = (float)(sum[j] / (pp->divisor ? (double)pp->divisor : c01 * t[2].cnt[j]));       \
                    bool anynan = false;                                                                         \
                    for (int64_t j = 0; j < OW; j++) anynan |= no_isnan_f(vf[j]);                                \
                    for (int64_t j = 0; anynan && j < OW; j++) {                                                 \
                        const double div = pp->divisor ? (double)pp->divisor : c01 * t[2].cnt[j];                \
                        float v = vf[j];                                                                         \
                        if (no_isnan_f(v)) { /* NaN: recomputed in the reference order (common/nan_order.h) */   \
                            double a = 0;                                                                        \
                            for (int64_t d = d0; d < d1; d++)                                                    \
                                for (int64_t h = h0; h < h1; h++) {                                              \
                                    const T *row = xb + xo + d * g.xs[0] + h * g.xs[1];                          \
                                    float r = 0;                                                                 \
                                    for (int64_t w = t[2].lo[j]; w < t[2].hi[j]; w++) r = no_add_f(r, LOAD(row[w])); \
                                    a = no_add_d(a, (double)r);                                                  \
                                }                                                                                \
                            v = (float)(a / div);                                                                \
                        }                                                                                        \
                        vf[j] = v;                                                                               \
                    }                                                                                            \
                    T *yr = yb + yo + oh * g.ys[1];                                                              \
                    if (sizeof(T) == 2 && g.ys[2] == 1) /* fp16 / bf16: the row rounded by the row converter */ \
                        p3_narrow((uint16_t *)(void *)yr, vf, OW, x->dtype);                                     \
                    else                                                                                         \
                        for (int64_t j = 0; j < OW; j++) yr[j * g.ys[2]] = STORE(vf[j]);                         \
                }                                                                                                \
            }                                                                                                    \
            free(tmp);                                                                                           \
            free(tag);                                                                                           \
            free(rowf);                                                                                          \
            free(sum);                                                                                           \
            free(vf);                                                                                            \
        }                                                                                                        \
    } while (0)

void pool_avg_nd(const acl_view *x, acl_view *y, const pool_avg_params *pp) {
    ageo g;
    make_ageo(&g, x, y, pp);
    axis_tab t[3];
    /* unit-stride rows, the unit's W sums at most 4 MiB (fp16 / bf16: a depth slice in fp32 at most 8 MiB): computed
     * once per input row */
    const bool rows = g.xs[2] == 1 && g.out[2] > 0 && pp->k[0] * g.in[1] * g.out[2] <= ((int64_t)1 << 20) &&
                      (x->dtype == ACL_FLOAT || g.in[1] * g.in[2] <= ((int64_t)1 << 21)); /* + fp16/bf16's slice */
    if (axis_tables(t, &g, pp)) {
        if (rows) {
            switch (x->dtype) {
            case ACL_FLOAT: AVG_FWD_ROWS_BODY(float, LOAD_ID, STORE_ID, ROWCVT_NONE); break;
            case ACL_FLOAT16: AVG_FWD_ROWS_BODY(uint16_t, LOAD_F16, STORE_F16, ROWCVT_F16); break;
            case ACL_BF16: AVG_FWD_ROWS_BODY(uint16_t, LOAD_BF16, STORE_BF16, ROWCVT_BF16); break;
            default: break;
            }
        } else {
            switch (x->dtype) {
            case ACL_FLOAT: AVG_FWD_BODY(float, LOAD_ID, STORE_ID, ROWCVT_NONE); break;
            case ACL_FLOAT16: AVG_FWD_BODY(uint16_t, LOAD_F16, STORE_F16, ROWCVT_F16); break;
            case ACL_BF16: AVG_FWD_BODY(uint16_t, LOAD_BF16, STORE_BF16, ROWCVT_BF16); break;
            default: break;
            }
        }
    }
    free_tables(t);
}

/* per axis and input cell: [first, last] the output cells whose window holds it (first > last: none); the windows'
 * bounds never decrease with the output index, so those cells are a run. Returns the longest run (0: none). */
static int64_t avg_inverse(const axis_tab *t, int64_t nin, int64_t nout, int64_t *first, int64_t *last) {
    int64_t most = 0;
    for (int64_t i = 0; i < nin; i++) {
        first[i] = nout;
        last[i] = -1;
    }
    for (int64_t o = 0; o < nout; o++)
        for (int64_t i = t->lo[o]; i < t->hi[o]; i++) {
            if (o < first[i]) first[i] = o;
            if (o > last[i]) last[i] = o;
        }
    for (int64_t i = 0; i < nin; i++)
        if (last[i] - first[i] + 1 > most) most = last[i] - first[i] + 1;
    return most;
}

/* One plane of the backward as a gather, the scatter's sums exactly: a gradInput cell receives v = gy / divisor of
 * the outputs holding it, added to a double from +0 in the outputs' row-major order - (od, oh) ascending, then its
 * ow run. Each (od, oh) output row is first expanded along W into nk rows E_q[w] = v[od][oh][wf[w] + q] (+0 past
 * the cell's run: adding +0 changes nothing, the sum is never -0), so a gradInput row is nd * nh * nk vector
 * additions in the scatter's order. Only for planes without a NaN v (two NaNs meeting would be the vector code's
 * operand order; the scatter keeps the reference's), false otherwise. */
static bool avg_bwd_gather_plane(const double *v, double *E, double *srow, float *rowf, acl_view *gx, int64_t xo,
                                 const ageo *g, const int64_t *df, const int64_t *dl, const int64_t *hf,
                                 const int64_t *hl, const int64_t *wf, const int64_t *wl, int64_t nk) {
    const int64_t OD = g->out[0], OH = g->out[1], OW = g->out[2], W = g->in[2], osz = OD * OH * OW;
    bool nan = false;
    for (int64_t i = 0; i < osz; i++) nan |= no_isnan_d(v[i]);
    if (nan) return false;
    for (int64_t r = 0; r < OD * OH; r++)
        for (int64_t q = 0; q < nk; q++) {
            double *e = E + (r * nk + q) * W;
            const double *vr = v + r * OW;
            for (int64_t w = 0; w < W; w++) e[w] = wf[w] + q <= wl[w] ? vr[wf[w] + q] : 0.0;
        }
    for (int64_t d = 0; d < g->in[0]; d++)
        for (int64_t h = 0; h < g->in[1]; h++) {
            const double *rows[64]; /* the expanded rows this gradInput row adds, in the scatter's order */
            int np = 0;
            for (int64_t od = df[d]; od <= dl[d]; od++)
                for (int64_t oh = hf[h]; oh <= hl[h]; oh++)
                    for (int64_t q = 0; q < nk; q++) rows[np++] = E + ((od * OH + oh) * nk + q) * W;
            int64_t w = 0;
            for (; w + 8 <= W; w += 8) { /* 8 sums in registers down the rows */
                double a[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                for (int k = 0; k < np; k++)
                    for (int j = 0; j < 8; j++) a[j] += rows[k][w + j];
                for (int j = 0; j < 8; j++) srow[w + j] = a[j];
            }
            for (; w < W; w++) {
                double a = 0;
                for (int k = 0; k < np; k++) a += rows[k][w];
                srow[w] = a;
            }
            const int64_t ro = xo + d * g->xs[0] + h * g->xs[1];
            if (rowf) { /* rounded to fp32 as st() rounds, stored by the row converters */
                for (int64_t w = 0; w < W; w++) rowf[w] = (float)srow[w];
                st_row_f32(gx, ro, g->xs[2], rowf, W);
            } else
                for (int64_t w = 0; w < W; w++) st(gx, ro + w * g->xs[2], srow[w]);
        }
    return true;
}

/* Per-plane owner: each thread takes whole planes and forms every gradInput cell's sum of gy/divisor over the
 * outputs holding it, in the outputs' row-major order (a fixed order): by avg_bwd_gather_plane where its expanded
 * rows fit, else by adding each output's value to its window in a double buffer (the same sums), then stores the
 * plane once. */
void pool_avg_nd_backward(const acl_view *gy, acl_view *gx, const pool_avg_params *pp) {
    ageo g;
    make_ageo(&g, gx, gy, pp);
    axis_tab t[3];
    int64_t *inv[6] = {NULL, NULL, NULL, NULL, NULL, NULL}; /* first / last per input cell, per axis */
    bool ok = axis_tables(t, &g, pp);
    int64_t nk = 0;
    for (int a = 0; a < 3 && ok; a++) {
        inv[2 * a] = malloc((size_t)(g.in[a] + 1) * sizeof(int64_t));
        inv[2 * a + 1] = malloc((size_t)(g.in[a] + 1) * sizeof(int64_t));
        ok = inv[2 * a] && inv[2 * a + 1];
        if (ok) {
            const int64_t most = avg_inverse(&t[a], g.in[a], g.out[a], inv[2 * a], inv[2 * a + 1]);
            if (a == 2) nk = most;
        }
    }
    if (ok) {
        const int64_t isz = g.in[0] * g.in[1] * g.in[2], osz = g.out[0] * g.out[1] * g.out[2];
        /* the gather's expanded rows: at most 2 M doubles a thread */
        int64_t nd = 0, nh = 0; /* the longest runs along D and H */
        for (int64_t i = 0; i < g.in[0]; i++) nd = inv[1][i] - inv[0][i] + 1 > nd ? inv[1][i] - inv[0][i] + 1 : nd;
        for (int64_t i = 0; i < g.in[1]; i++) nh = inv[3][i] - inv[2][i] + 1 > nh ? inv[3][i] - inv[2][i] + 1 : nh;
        const bool gather = nk > 0 && nd * nh * nk <= 64 &&
                            g.out[0] * g.out[1] <= ((int64_t)1 << 21) / (nk * (g.in[2] ? g.in[2] : 1));
        double *divs = gather ? malloc((size_t)(osz + 1) * sizeof(double)) : NULL; /* every output's divisor */
        if (divs) {
            int64_t i = 0;
            for (int64_t od = 0; od < g.out[0]; od++)
                for (int64_t oh = 0; oh < g.out[1]; oh++)
                    for (int64_t ow = 0; ow < g.out[2]; ow++, i++)
                        divs[i] = pp->divisor ? (double)pp->divisor : t[0].cnt[od] * t[1].cnt[oh] * t[2].cnt[ow];
        }
        /* the gather of kernels/pool3d_avg_bwd.c, at every SIMD level: NULL for what it leaves to the code below
         * (double, a W stride other than 1) */
        p3ab_plan *fast = NULL;
        if (divs) {
            const int64_t *const fi[3] = {inv[0], inv[2], inv[4]}, *const la[3] = {inv[1], inv[3], inv[5]};
            fast = p3ab_plan_new(gy->dtype, gx->dtype, g.in, g.out, g.ys, g.xs, fi, la, nd, nk, divs,
                                 isz * g.planes * (int64_t)acl_dtype_size(gx->dtype));
        }
#pragma omp parallel
        {
            void *fs = fast ? p3ab_scratch_new(fast) : NULL;
            double *acc = NULL, *v = NULL, *E = NULL, *srow = NULL;
            float *rowf = NULL;
            bool bufs = false; /* the buffers below allocated (at the first plane the fast gather leaves) */
#pragma omp for schedule(static)
            for (int64_t pl = 0; pl < g.planes; pl++) {
                const int64_t p0 = pl / g.n1, p1 = pl % g.n1;
                const int64_t go = p0 * g.ys0 + p1 * g.ys1, xo = p0 * g.xs0 + p1 * g.xs1;
                if (fs && p3ab_plane(fast, fs, gy->base, go, gx->base, xo)) continue;
                if (!bufs) {
                    bufs = true;
                    acc = malloc((size_t)isz * sizeof(double));
                    rowf = gx->dtype != ACL_DOUBLE ? malloc((size_t)g.in[2] * sizeof(float)) : NULL;
                    v = gather ? malloc((size_t)(osz + 1) * sizeof(double)) : NULL;
                    E = gather ? malloc((size_t)(g.out[0] * g.out[1] * nk * g.in[2] + 1) * sizeof(double)) : NULL;
                    srow = gather ? malloc((size_t)(g.in[2] + 1) * sizeof(double)) : NULL;
                }
                if (v && E && srow && divs && (gx->dtype == ACL_DOUBLE || rowf)) {
                    int64_t i = 0;
                    for (int64_t od = 0; od < g.out[0]; od++)
                        for (int64_t oh = 0; oh < g.out[1]; oh++) {
                            const int64_t ro = go + od * g.ys[0] + oh * g.ys[1];
                            if (gy->dtype == ACL_FLOAT && g.ys[2] == 1) {
                                const float *gr = (const float *)gy->base + ro;
                                for (int64_t ow = 0; ow < g.out[2]; ow++) v[i + ow] = (double)gr[ow];
                            } else
                                for (int64_t ow = 0; ow < g.out[2]; ow++) v[i + ow] = ld(gy, ro + ow * g.ys[2]);
                            i += g.out[2];
                        }
                    for (i = 0; i < osz; i++) v[i] /= divs[i]; /* (plain loop: vectorised) */
                    if (avg_bwd_gather_plane(v, E, srow, rowf, gx, xo, &g, inv[0], inv[1], inv[2], inv[3], inv[4],
                                             inv[5], nk))
                        continue;
                }
                if (!acc) continue;
                memset(acc, 0, (size_t)isz * sizeof(double));
                for (int64_t od = 0; od < g.out[0]; od++)
                    for (int64_t oh = 0; oh < g.out[1]; oh++)
                        for (int64_t ow = 0; ow < g.out[2]; ow++) {
                            const double div =
                                pp->divisor ? (double)pp->divisor : t[0].cnt[od] * t[1].cnt[oh] * t[2].cnt[ow];
                            const double vv = ld(gy, go + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2]) / div;
                            for (int64_t d = t[0].lo[od]; d < t[0].hi[od]; d++)
                                for (int64_t h = t[1].lo[oh]; h < t[1].hi[oh]; h++) {
                                    double *row = acc + (d * g.in[1] + h) * g.in[2];
                                    for (int64_t w = t[2].lo[ow]; w < t[2].hi[ow]; w++) row[w] += vv;
                                }
                        }
                int64_t q = 0;
                for (int64_t d = 0; d < g.in[0]; d++)
                    for (int64_t h = 0; h < g.in[1]; h++) {
                        const int64_t ro = xo + d * g.xs[0] + h * g.xs[1];
                        if (rowf) { /* rounded to fp32 as st() rounds, stored by the row converters */
                            for (int64_t w = 0; w < g.in[2]; w++) rowf[w] = (float)acc[q + w];
                            st_row_f32(gx, ro, g.xs[2], rowf, g.in[2]);
                            q += g.in[2];
                        } else
                            for (int64_t w = 0; w < g.in[2]; w++, q++) st(gx, ro + w * g.xs[2], acc[q]);
                    }
            }
            if (fs) p3ab_fence(fast);
            p3ab_scratch_free(fs);
            free(acc);
            free(rowf);
            free(v);
            free(E);
            free(srow);
        }
        p3ab_plan_free(fast);
        free(divs);
    }
    for (int i = 0; i < 6; i++) free(inv[i]);
    free_tables(t);
}

/* ---------------------------------------------------------------- adaptive pooling over D, H, W */

typedef struct {
    int64_t *lo, *hi;       /* per output cell */
    int64_t *ofirst, *olast; /* per input cell: the output cells whose window holds it, [ofirst, olast] */
} ad_tab;

static void ad_free(ad_tab t[3]) {
    for (int a = 0; a < 3; a++) {
        free(t[a].lo);
        free(t[a].hi);
        free(t[a].ofirst);
        free(t[a].olast);
    }
}

static bool ad_tables(ad_tab t[3], const int64_t in[3], const int64_t out[3], bool inverse) {
    bool ok = true;
    for (int a = 0; a < 3; a++) {
        t[a].lo = malloc((size_t)out[a] * sizeof(int64_t));
        t[a].hi = malloc((size_t)out[a] * sizeof(int64_t));
        t[a].ofirst = inverse ? malloc((size_t)in[a] * sizeof(int64_t)) : NULL;
        t[a].olast = inverse ? malloc((size_t)in[a] * sizeof(int64_t)) : NULL;
        if (!t[a].lo || !t[a].hi || (inverse && (!t[a].ofirst || !t[a].olast))) {
            ok = false;
            continue;
        }
        for (int64_t o = 0; o < out[a]; o++) {
            t[a].lo[o] = (int64_t)(((__int128)o * in[a]) / out[a]);
            t[a].hi[o] = (int64_t)((((__int128)o + 1) * in[a] + out[a] - 1) / out[a]);
        }
        if (inverse) {
            for (int64_t i = 0; i < in[a]; i++) {
                t[a].ofirst[i] = out[a];
                t[a].olast[i] = -1;
            }
            for (int64_t o = 0; o < out[a]; o++)
                for (int64_t i = t[a].lo[o]; i < t[a].hi[o]; i++) {
                    if (o < t[a].ofirst[i]) t[a].ofirst[i] = o;
                    if (o > t[a].olast[i]) t[a].olast[i] = o;
                }
        }
    }
    return ok;
}

typedef struct {
    int64_t n1, planes, xs0, xs1, ys0, ys1, is0, is1;
    int64_t in[3], out[3], xs[3], ys[3], is[3];
} adgeo;

static void make_adgeo(adgeo *g, const acl_view *x, const acl_view *y, const acl_view *idx, const pool_ad_params *pp) {
    const int a0 = pp->lead[0], a1 = pp->lead[1];
    g->n1 = a1 >= 0 ? x->dims[a1] : 1;
    g->planes = x->dims[a0] * g->n1;
    g->xs0 = x->strides[a0];
    g->xs1 = a1 >= 0 ? x->strides[a1] : 0;
    g->ys0 = y->strides[a0];
    g->ys1 = a1 >= 0 ? y->strides[a1] : 0;
    g->is0 = idx ? idx->strides[a0] : 0;
    g->is1 = idx && a1 >= 0 ? idx->strides[a1] : 0;
    for (int i = 0; i < 3; i++) {
        const int a = pp->sp[i]; /* -1: an absent axis of size 1 */
        g->in[i] = a >= 0 ? x->dims[a] : 1;
        g->out[i] = a >= 0 ? y->dims[a] : 1;
        g->xs[i] = a >= 0 ? x->strides[a] : 0;
        g->ys[i] = a >= 0 ? y->strides[a] : 0;
        g->is[i] = idx && a >= 0 ? idx->strides[a] : 0;
    }
}

/* sum + x[off], x[off + st], ... (n elements), added one by one in that order: ld() without its per-element switch */
static inline double row_sum(const acl_view *x, int64_t off, int64_t n, int64_t st, double sum) {
    switch (x->dtype) {
    case ACL_FLOAT: {
        const float *p = (const float *)x->base + off;
        for (int64_t i = 0; i < n; i++) sum += p[i * st];
        break;
    }
    case ACL_DOUBLE: {
        const double *p = (const double *)x->base + off;
        for (int64_t i = 0; i < n; i++) sum += p[i * st];
        break;
    }
    case ACL_FLOAT16: {
        const uint16_t *p = (const uint16_t *)x->base + off;
        for (int64_t i = 0; i < n; i++) sum += acl_f16_to_f32(p[i * st]);
        break;
    }
    case ACL_BF16: {
        const uint16_t *p = (const uint16_t *)x->base + off;
        for (int64_t i = 0; i < n; i++) sum += acl_bf16_to_f32(p[i * st]);
        break;
    }
    default: break; /* (ld() reads 0: adding it changes nothing) */
    }
    return sum;
}

void pool_adaptive_avg3d(const acl_view *x, acl_view *y, const pool_ad_params *pp) {
    adgeo g;
    make_adgeo(&g, x, y, NULL, pp);
    ad_tab t[3];
    if (ad_tables(t, g.in, g.out, false)) {
        if (x->dtype != ACL_DOUBLE) {
            /* one output row (plane, od, oh) per iteration: its window rows (d, h ascending) in batches of up to
             * AD_RB rows, every cell of the output row adding a batch's terms into its eight lanes
             * (kernels/pool3d_adavg.c: the same tree at every level and thread count). fp16/bf16 / strided window
             * rows are converted to fp32 once (exact), fp32 rows with unit stride are read in place. A NaN sum is
             * recomputed under the NaN rule in the same order. */
            enum { AD_RB = 64 };
            const int64_t nrows = g.planes * g.out[0] * g.out[1], n = g.out[2];
#pragma omp parallel
            {
                float *rowf = malloc((size_t)AD_RB * (size_t)g.in[2] * sizeof(float));
                double *sum = malloc((size_t)n * 8 * sizeof(double));
                int64_t *len = malloc((size_t)n * sizeof(int64_t));
                const float *rp[AD_RB];
                if (len)
                    for (int64_t o = 0; o < n; o++) len[o] = t[2].hi[o] - t[2].lo[o];
#pragma omp for schedule(static)
                for (int64_t r = 0; r < nrows; r++) {
                    if (!rowf || !sum || !len) continue;
                    const int64_t pl = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
                    const int64_t p0 = pl / g.n1, p1 = pl % g.n1, xo = p0 * g.xs0 + p1 * g.xs1;
                    for (int64_t o = 0; o < 8 * n; o++) sum[o] = 0;
                    int64_t nb = 0;
                    for (int64_t d = t[0].lo[od]; d < t[0].hi[od]; d++)
                        for (int64_t h = t[1].lo[oh]; h < t[1].hi[oh]; h++) {
                            const int64_t ro = xo + d * g.xs[0] + h * g.xs[1];
                            float *rf = rowf + nb * g.in[2];
                            if (x->dtype == ACL_FLOAT && g.xs[2] == 1)
                                rp[nb] = (const float *)x->base + ro;
                            else {
                                if (g.xs[2] == 1 && x->dtype == ACL_FLOAT16)
                                    p3_row_f16_to_f32(rf, (const uint16_t *)x->base + ro, g.in[2]);
                                else if (g.xs[2] == 1 && x->dtype == ACL_BF16)
                                    acl_row_bf16_to_f32(rf, (const uint16_t *)x->base + ro, g.in[2]);
                                else
                                    for (int64_t w = 0; w < g.in[2]; w++) rf[w] = (float)ld(x, ro + w * g.xs[2]);
                                rp[nb] = rf;
                            }
                            if (++nb == AD_RB) {
                                p3_adavg_rows_add(sum, rp, nb, t[2].lo, len, n);
                                nb = 0;
                            }
                        }
                    if (nb) p3_adavg_rows_add(sum, rp, nb, t[2].lo, len, n);
                    const int64_t yo = p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0] + oh * g.ys[1];
                    for (int64_t o = 0; o < n; o++) {
                        const double cnt = (double)((t[0].hi[od] - t[0].lo[od]) * (t[1].hi[oh] - t[1].lo[oh]) * len[o]);
                        double v = p3_adavg_join(sum + 8 * o);
                        if (no_isnan_d(v)) { /* the window's terms again, under the NaN rule */
                            double l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                            for (int64_t d = t[0].lo[od]; d < t[0].hi[od]; d++)
                                for (int64_t h = t[1].lo[oh]; h < t[1].hi[oh]; h++)
                                    for (int64_t m = 0; m < len[o]; m++)
                                        p3_adavg_rule_add(l, m, (double)(float)ld(x, xo + d * g.xs[0] + h * g.xs[1] +
                                                                                         (t[2].lo[o] + m) * g.xs[2]));
                            v = p3_adavg_rule_join(l);
                        }
                        st(y, yo + o * g.ys[2], v / cnt);
                    }
                }
                free(rowf);
                free(sum);
                free(len);
            }
            ad_free(t);
            return;
        }
        const int64_t cells = g.out[0] * g.out[1] * g.out[2];
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < g.planes * cells; c++) {
            const int64_t pl = c / cells, r = c % cells;
            const int64_t od = r / (g.out[1] * g.out[2]), oh = (r / g.out[2]) % g.out[1], ow = r % g.out[2];
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1, xo = p0 * g.xs0 + p1 * g.xs1;
            double sum = 0;
            for (int64_t d = t[0].lo[od]; d < t[0].hi[od]; d++)
                for (int64_t h = t[1].lo[oh]; h < t[1].hi[oh]; h++)
                    sum = row_sum(x, xo + d * g.xs[0] + h * g.xs[1] + t[2].lo[ow] * g.xs[2],
                                  t[2].hi[ow] - t[2].lo[ow], g.xs[2], sum);
            const double n = (double)((t[0].hi[od] - t[0].lo[od]) * (t[1].hi[oh] - t[1].lo[oh]) *
                                      (t[2].hi[ow] - t[2].lo[ow]));
            st(y, p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2], sum / n);
        }
    }
    ad_free(t);
}

/* Every D, H and W cell in exactly one window (the even divisions) and dense fp32/fp16/bf16 gradInput rows: a cell's
 * gradient is 0 + its window's gy / size, rounded once (the bits of the row path below). Per (plane, d) and H window
 * the rows are all one row: it is built and rounded once, repeated into an L1 block and written by one copy
 * (non-temporal when gradInput is large), instead of a scalar fill of every cell. */
static bool aavg_bwd_disjoint(acl_view *gx, const adgeo *gp, const ad_tab t[3], const double *sg) {
    const adgeo g = *gp;
    const int dt = gx->dtype;
    if (dt != ACL_FLOAT && dt != ACL_FLOAT16 && dt != ACL_BF16) return false;
    const int64_t W = g.in[2], es = (int64_t)acl_dtype_size(dt);
    if (W <= 0 || g.xs[2] != 1 || (g.in[1] > 1 && g.xs[1] != W)) return false;
    int64_t maxrows = 0;
    for (int a = 0; a < 3; a++)
        for (int64_t i = 0; i < g.in[a]; i++)
            if (t[a].ofirst[i] != t[a].olast[i]) return false;
    for (int64_t oh = 0; oh < g.out[1]; oh++)
        if (t[1].hi[oh] - t[1].lo[oh] > maxrows) maxrows = t[1].hi[oh] - t[1].lo[oh];
    if (maxrows * W * es > ((int64_t)256 << 10)) return false;
#ifdef ACL_F16_ROWS_F16C
    const bool nt = g.planes * g.in[0] * g.in[1] * W * es >= P3_NT_BYTES && acl_simd_level() >= ACL_SIMD_AVX2;
#else
    const bool nt = false;
#endif
    const int64_t ocells = g.out[0] * g.out[1] * g.out[2], units = g.planes * g.in[0], rb = W * es;
    bool ok = true;
#pragma omp parallel
    {
        char *buf = p3_alloc64((size_t)(maxrows * rb));
        float *rowf = malloc((size_t)W * sizeof(float));
        if (!buf || !rowf) {
#pragma omp atomic write
            ok = false;
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t u = 0; u < units; u++) {
            if (!ok) continue;
            const int64_t pl = u / g.in[0], d = u % g.in[0], p0 = pl / g.n1, p1 = pl % g.n1;
            const int64_t xo = p0 * g.xs0 + p1 * g.xs1 + d * g.xs[0];
            const double *sp = sg + pl * ocells + t[0].ofirst[d] * g.out[1] * g.out[2];
            for (int64_t oh = 0; oh < g.out[1]; oh++) {
                const double *row = sp + oh * g.out[2];
                for (int64_t ow = 0; ow < g.out[2]; ow++) {
                    const float v = (float)(0.0 + row[ow]);
                    for (int64_t w = t[2].lo[ow]; w < t[2].hi[ow]; w++) rowf[w] = v;
                }
                if (dt == ACL_FLOAT)
                    memcpy(buf, rowf, (size_t)rb);
                else
                    p3_narrow((uint16_t *)(void *)buf, rowf, W, dt);
                const int64_t rows = t[1].hi[oh] - t[1].lo[oh];
                for (int64_t i = 1; i < rows; i++) memcpy(buf + i * rb, buf, (size_t)rb);
                p3_put(gx->base + (xo + t[1].lo[oh] * g.xs[1]) * es, buf, (size_t)(rows * rb), nt);
            }
        }
        p3_put_fence(nt);
        free(buf);
        free(rowf);
    }
    return ok;
}

void pool_adaptive_avg3d_backward(const acl_view *gy, acl_view *gx, const pool_ad_params *pp) {
    adgeo g;
    make_adgeo(&g, gx, gy, NULL, pp);
    ad_tab t[3];
    if (ad_tables(t, g.in, g.out, true)) {
        /* gy / (window size) of every output cell, once (plane-major, cells row-major); when that buffer would be
         * large it is computed in place of each use instead - the same double either way */
        const int64_t ocells = g.out[0] * g.out[1] * g.out[2];
        double *sg = NULL;
        if (ocells > 0 && g.planes <= (int64_t)((64u << 20) / sizeof(double)) / ocells)
            sg = malloc((size_t)(g.planes * ocells) * sizeof(double));
        if (sg) {
#pragma omp parallel for schedule(static)
            for (int64_t c = 0; c < g.planes * ocells; c++) {
                const int64_t pl = c / ocells, r = c % ocells;
                const int64_t od = r / (g.out[1] * g.out[2]), oh = (r / g.out[2]) % g.out[1], ow = r % g.out[2];
                const int64_t p0 = pl / g.n1, p1 = pl % g.n1;
                const double n = (double)((t[0].hi[od] - t[0].lo[od]) * (t[1].hi[oh] - t[1].lo[oh]) *
                                          (t[2].hi[ow] - t[2].lo[ow]));
                sg[c] = ld(gy, p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2]) / n;
            }
        }
        if (sg && aavg_bwd_disjoint(gx, &g, t, sg)) {
            free(sg);
            ad_free(t);
            return;
        }
        /* one gx row (plane, d, h) per iteration: the divisions stay out of the per-element loop; every element's
         * sum is the same terms in the same order whichever thread owns its row. fp32/fp16/bf16 rows are rounded to
         * fp32 into a row buffer and stored by the vectorised row converters (the bits of st()). */
        const int64_t dh = g.in[0] * g.in[1];
        const bool rows = gx->dtype != ACL_DOUBLE;
        bool wdisjoint = true; /* every W cell in exactly one window: its sum is 0 + one term */
        for (int64_t w = 0; w < g.in[2]; w++) wdisjoint = wdisjoint && t[2].ofirst[w] == t[2].olast[w];
#pragma omp parallel
        {
            float *rowf = rows ? malloc((size_t)g.in[2] * sizeof(float)) : NULL;
            int64_t lpl = -1, p0 = 0, p1 = 0;
#pragma omp for schedule(static)
            for (int64_t r = 0; r < g.planes * dh; r++) {
                const int64_t pl = r / dh, d = (r % dh) / g.in[1], h = r % g.in[1];
                if (pl != lpl) { /* the divisions once per plane */
                    lpl = pl;
                    p0 = pl / g.n1;
                    p1 = pl % g.n1;
                }
                const int64_t go = p0 * g.ys0 + p1 * g.ys1;
                const int64_t xo = p0 * g.xs0 + p1 * g.xs1 + d * g.xs[0] + h * g.xs[1];
                const int64_t od0 = t[0].ofirst[d], od1 = t[0].olast[d], oh0 = t[1].ofirst[h], oh1 = t[1].olast[h];
                if (sg && rowf) {
                    const double *sp = sg + pl * ocells;
                    if (od0 == od1 && oh0 == oh1) { /* the usual case: one (od, oh) window pair */
                        const double *row = sp + (od0 * g.out[1] + oh0) * g.out[2];
                        if (wdisjoint && g.xs[2] == 1) { /* each window's value rounded once, filled in */
                            for (int64_t ow = 0; ow < g.out[2]; ow++) {
                                const float v = (float)(0.0 + row[ow]);
                                const int64_t w0 = t[2].lo[ow], w1 = t[2].hi[ow];
                                if (gx->dtype == ACL_FLOAT) {
                                    float *p = (float *)gx->base + xo;
                                    for (int64_t w = w0; w < w1; w++) p[w] = v;
                                } else {
                                    uint16_t *p = (uint16_t *)gx->base + xo;
                                    const uint16_t v16 =
                                        gx->dtype == ACL_FLOAT16 ? acl_f32_to_f16(v) : acl_f32_to_bf16(v);
                                    for (int64_t w = w0; w < w1; w++) p[w] = v16;
                                }
                            }
                            continue;
                        }
                        if (wdisjoint) {
                            for (int64_t ow = 0; ow < g.out[2]; ow++) {
                                const float v = (float)(0.0 + row[ow]);
                                for (int64_t w = t[2].lo[ow]; w < t[2].hi[ow]; w++) rowf[w] = v;
                            }
                        } else {
                            for (int64_t w = 0; w < g.in[2]; w++) {
                                double sum = 0;
                                for (int64_t ow = t[2].ofirst[w]; ow <= t[2].olast[w]; ow++) sum += row[ow];
                                rowf[w] = (float)sum;
                            }
                        }
                    } else {
                        for (int64_t w = 0; w < g.in[2]; w++) {
                            double sum = 0;
                            for (int64_t od = od0; od <= od1; od++)
                                for (int64_t oh = oh0; oh <= oh1; oh++)
                                    for (int64_t ow = t[2].ofirst[w]; ow <= t[2].olast[w]; ow++)
                                        sum += sp[(od * g.out[1] + oh) * g.out[2] + ow];
                            rowf[w] = (float)sum;
                        }
                    }
                    st_row_f32(gx, xo, g.xs[2], rowf, g.in[2]);
                    continue;
                }
                if (sg) {
                    const double *sp = sg + pl * ocells;
                    for (int64_t w = 0; w < g.in[2]; w++) {
                        double sum = 0;
                        for (int64_t od = od0; od <= od1; od++)
                            for (int64_t oh = oh0; oh <= oh1; oh++)
                                for (int64_t ow = t[2].ofirst[w]; ow <= t[2].olast[w]; ow++)
                                    sum += sp[(od * g.out[1] + oh) * g.out[2] + ow];
                        st(gx, xo + w * g.xs[2], sum);
                    }
                    continue;
                }
                for (int64_t w = 0; w < g.in[2]; w++) {
                    double sum = 0;
                    for (int64_t od = od0; od <= od1; od++)
                        for (int64_t oh = oh0; oh <= oh1; oh++)
                            for (int64_t ow = t[2].ofirst[w]; ow <= t[2].olast[w]; ow++) {
                                const double n = (double)((t[0].hi[od] - t[0].lo[od]) * (t[1].hi[oh] - t[1].lo[oh]) *
                                                          (t[2].hi[ow] - t[2].lo[ow]));
                                sum += ld(gy, go + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2]) / n;
                            }
                    st(gx, xo + w * g.xs[2], sum);
                }
            }
            free(rowf);
        }
        free(sg);
    }
    ad_free(t);
}

/* Windows that tile W (kernel = stride, no dilation or padding in W: the adaptive 56 -> 7 pools): instead of every
 * tap of every column (a stride-k access per tap), each position p of the row keeps the best of its own taps down
 * the window's rows (cv[p], from row cr[p]) under the same rule, contiguous and vectorised; then each column combines
 * its k positions so that the choice is the per-cell scan's over (row, w): of the NaNs the last one in scan order
 * (the largest row, then the largest w), else the first maximum (the smallest row, then the smallest w). */
ACL_LEVEL_FN(, fwd_pos_row, (float *restrict cv, int32_t *restrict cr, const float *restrict rw, int64_t np, int32_t r),
             (cv, cr, rw, np, r)) {
    for (int64_t q = 0; q < np; q++) {
        const float v = rw[q];
        const bool c = v > cv[q] || v != v;
        cv[q] = c ? v : cv[q];
        cr[q] = c ? r : cr[q];
    }
}

/* the position in [a, b) whose (value, row) the per-cell scan keeps */
static inline int64_t fwd_pos_pick(const float *v, const int32_t *r, int64_t a, int64_t b) {
    int64_t k = a;
    bool nan = v[a] != v[a];
    for (int64_t w = a + 1; w < b; w++) {
        if (v[w] != v[w]) { /* the later NaN in scan order: a larger row, or the same row and this larger w */
            if (!nan || r[w] >= r[k]) k = w;
            nan = true;
        } else if (!nan && (v[w] > v[k] || (v[w] == v[k] && r[w] < r[k]))) {
            k = w;
        }
    }
    return k;
}

static void fwd_pos_finish(float *m, int32_t *bi, const float *cv, const int32_t *cr, int64_t n, int64_t k,
                           int64_t in2) {
    for (int64_t j = 0; j < n; j++) {
        const int64_t b = fwd_pos_pick(cv, cr, j * k, j * k + k);
        m[j] = cv[b];
        bi[j] = cr[b] * (int32_t)in2 + (int32_t)b;
    }
}

/* fp32/fp16/bf16 input with unit-stride rows: one output row (plane, od, oh) per iteration, each window row converted
 * to fp32 once and scanned by every cell of the output row in the per-cell order (w ascending within d, h
 * ascending) under the same rule (v > m or NaN; the argmax starts at the window's first cell) - the same choice */
static bool amax_columns(const acl_view *x, acl_view *y, acl_view *idx, const adgeo *gp) {
    const adgeo g = *gp;
    const int dt = x->dtype;
    if ((dt != ACL_FLOAT && dt != ACL_FLOAT16 && dt != ACL_BF16) || g.xs[2] != 1) return false;
    if (g.out[0] <= 0 || g.out[1] <= 0 || g.out[2] <= 0 || g.in[0] * g.in[1] > INT32_MAX) return false;
    ad_tab t[3];
    if (!ad_tables(t, g.in, g.out, false)) {
        ad_free(t);
        return false;
    }
    const int64_t n = g.out[2], nrows = g.planes * g.out[0] * g.out[1];
    /* the windows span whole rows and the rows of a depth are dense: a window's rows of one depth converted (or
     * copied) by one call into rb (as fwd_columns) */
    const bool blk = t[2].lo[0] == 0 && t[2].hi[n - 1] == g.in[2] && (g.in[1] == 1 || g.xs[1] == g.in[2]) &&
                     g.in[1] * g.in[2] <= ((int64_t)1 << 18);
    bool ok = true;
#pragma omp parallel
    {
        float *rb = malloc((size_t)(blk ? g.in[1] * g.in[2] : g.in[2]) * sizeof(float));
        float *m = malloc((size_t)n * sizeof(float));
        int64_t *bi = malloc((size_t)n * sizeof(int64_t));
        /* each position's best down the window rows (fwd_pos_row), then each window's pick (fwd_pos_pick) */
        float *cv = malloc((size_t)g.in[2] * sizeof(float));
        int32_t *cr = malloc((size_t)g.in[2] * sizeof(int32_t));
        if (!rb || !m || !bi || !cv || !cr) {
#pragma omp atomic write
            ok = false;
        }
#pragma omp barrier
#pragma omp for schedule(static)
        for (int64_t r = 0; r < nrows; r++) {
            if (!ok) continue;
            const int64_t pl = r / (g.out[0] * g.out[1]), od = (r / g.out[1]) % g.out[0], oh = r % g.out[1];
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1, xo = p0 * g.xs0 + p1 * g.xs1;
            const int64_t wa = t[2].lo[0], wb = t[2].hi[n - 1]; /* the windows' span */
            for (int64_t q = wa; q < wb; q++) {
                cv[q] = -INFINITY;
                cr[q] = (int32_t)(t[0].lo[od] * g.in[1] + t[1].lo[oh]);
            }
            for (int64_t d = t[0].lo[od]; d < t[0].hi[od]; d++) {
                if (blk) {
                    const int64_t h0 = t[1].lo[oh], cnt = (t[1].hi[oh] - h0) * g.in[2];
                    const int64_t ro = xo + d * g.xs[0] + h0 * g.xs[1];
                    p3_rows_f32(rb, x, dt, ro, cnt);
                }
                for (int64_t h = t[1].lo[oh]; h < t[1].hi[oh]; h++) {
                    const int64_t ro = xo + d * g.xs[0] + h * g.xs[1];
                    const float *rw = blk ? rb + (h - t[1].lo[oh]) * g.in[2] : rb;
                    if (blk) { /* converted above */
                    } else if (dt == ACL_FLOAT)
                        memcpy(rb + wa, (const float *)x->base + ro + wa, (size_t)(wb - wa) * sizeof(float));
                    else if (dt == ACL_FLOAT16)
                        p3_row_f16_to_f32(rb + wa, (const uint16_t *)x->base + ro + wa, wb - wa);
                    else
                        acl_row_bf16_to_f32(rb + wa, (const uint16_t *)x->base + ro + wa, wb - wa);
                    fwd_pos_row(cv + wa, cr + wa, rw + wa, wb - wa, (int32_t)(d * g.in[1] + h));
                }
            }
            for (int64_t j = 0; j < n; j++) {
                const int64_t b = fwd_pos_pick(cv, cr, t[2].lo[j], t[2].hi[j]);
                m[j] = cv[b];
                bi[j] = (int64_t)cr[b] * g.in[2] + b;
            }
            const int64_t yo = p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0] + oh * g.ys[1];
            const int64_t io = p0 * g.is0 + p1 * g.is1 + od * g.is[0] + oh * g.is[1];
            for (int64_t j = 0; j < n; j++) {
                if (dt == ACL_FLOAT) {
                    ((float *)y->base)[yo + j * g.ys[2]] = m[j];
                } else if (m[j] == m[j]) { /* exact: the input's own value */
                    ((uint16_t *)y->base)[yo + j * g.ys[2]] =
                        dt == ACL_FLOAT16 ? acl_f32_to_f16(m[j]) : acl_f32_to_bf16(m[j]);
                } else { /* a NaN: its own bits */
                    const int64_t b = bi[j], bw = b % g.in[2], bh = (b / g.in[2]) % g.in[1], bd = b / (g.in[2] * g.in[1]);
                    ((uint16_t *)y->base)[yo + j * g.ys[2]] =
                        ((const uint16_t *)x->base)[xo + bd * g.xs[0] + bh * g.xs[1] + bw];
                }
                if (idx->dtype == ACL_INT64)
                    ((int64_t *)idx->base)[io + j * g.is[2]] = bi[j];
                else
                    ((int32_t *)idx->base)[io + j * g.is[2]] = (int32_t)bi[j];
            }
        }
        free(rb);
        free(m);
        free(bi);
        free(cv);
        free(cr);
    }
    ad_free(t);
    return ok;
}

void pool_adaptive_max3d(const acl_view *x, acl_view *y, acl_view *idx, const pool_ad_params *pp) {
    adgeo g;
    make_adgeo(&g, x, y, idx, pp);
    if (g.out[0] > 0 && g.out[1] > 0 && g.out[2] > 0 && g.in[0] % g.out[0] == 0 && g.in[1] % g.out[1] == 0 &&
        g.in[2] % g.out[2] == 0) {
        /* every axis divides evenly: the adaptive windows are the windows of kernel = stride = in / out, no padding,
         * and the windowed max pool picks the same cell by the same rule */
        pool_max_params mp = {.lead = {pp->lead[0], pp->lead[1]}, .idx_mode = POOL_IDX_VIEW};
        for (int i = 0; i < 3; i++) {
            mp.sp[i] = pp->sp[i];
            mp.k[i] = mp.s[i] = g.in[i] / g.out[i];
            mp.p[i] = 0;
            mp.dl[i] = 1;
        }
        pool_max_nd(x, y, idx, &mp);
        return;
    }
    if (amax_columns(x, y, idx, &g)) return;
    ad_tab t[3];
    const bool wide = x->dtype == ACL_DOUBLE;
    const size_t es = acl_dtype_size(x->dtype);
    if (ad_tables(t, g.in, g.out, false)) {
        const int64_t cells = g.out[0] * g.out[1] * g.out[2];
#pragma omp parallel for schedule(static)
        for (int64_t c = 0; c < g.planes * cells; c++) {
            const int64_t pl = c / cells, r = c % cells;
            const int64_t od = r / (g.out[1] * g.out[2]), oh = (r / g.out[2]) % g.out[1], ow = r % g.out[2];
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1, xo = p0 * g.xs0 + p1 * g.xs1;
            int64_t bd = t[0].lo[od], bh = t[1].lo[oh], bw = t[2].lo[ow];
            double m = -INFINITY;
            for (int64_t d = t[0].lo[od]; d < t[0].hi[od]; d++)
                for (int64_t h = t[1].lo[oh]; h < t[1].hi[oh]; h++)
                    for (int64_t w = t[2].lo[ow]; w < t[2].hi[ow]; w++) {
                        double v = ld(x, xo + d * g.xs[0] + h * g.xs[1] + w * g.xs[2]);
                        if (!wide) v = (float)v;
                        if (v > m || isnan(v)) {
                            m = v;
                            bd = d;
                            bh = h;
                            bw = w;
                        }
                    }
            const int64_t src = xo + bd * g.xs[0] + bh * g.xs[1] + bw * g.xs[2];
            const int64_t dst = p0 * g.ys0 + p1 * g.ys1 + od * g.ys[0] + oh * g.ys[1] + ow * g.ys[2];
            memcpy(y->base + dst * (int64_t)es, x->base + src * (int64_t)es, es);
            const int64_t flat = (bd * g.in[1] + bh) * g.in[2] + bw;
            const int64_t io = p0 * g.is0 + p1 * g.is1 + od * g.is[0] + oh * g.is[1] + ow * g.is[2];
            if (idx->dtype == ACL_INT64)
                ((int64_t *)idx->base)[io] = flat;
            else
                ((int32_t *)idx->base)[io] = (int32_t)flat;
        }
    }
    ad_free(t);
}

/* ---------------------------------------------------------------- the forward across output columns
 * fp32 / fp16 / bf16 input with unit-stride rows, every window non-empty, a plane of < 2^31 cells: for one output row
 * (od, oh) all its columns run the per-cell scan together - the taps in the same (d, h, w) order, each column keeping
 * its maximum and argmax under the same rule (v > m or v is NaN), so the same choice as the per-cell loop. The window
 * row is read from an fp32 copy of the input row with -inf on both sides: a padding tap never wins (-inf > m is
 * false, it is no NaN), and each column's argmax starts at its first in-range tap, as the per-cell loop's. */

/* one tap (offset t of the padded row) for n columns `s` cells apart; rowflat: the plane index of padded cell 0 */
__attribute__((always_inline)) static inline void fwd_tap(float *restrict m, int32_t *restrict bi,
                                                          const float *restrict rb, int64_t n, int64_t s, int64_t t,
                                                          int32_t rowflat) {
    for (int64_t j = 0; j < n; j++) {
        const float v = rb[j * s + t];
        const bool c = v > m[j] || v != v;
        m[j] = c ? v : m[j];
        bi[j] = c ? rowflat + (int32_t)(j * s + t) : bi[j];
    }
}

ACL_LEVEL_FN(, fwd_row_taps,
             (float *restrict m, int32_t *restrict bi, const float *restrict rb, int64_t n, int64_t s, int64_t k,
              int64_t dl, int32_t rowflat),
             (m, bi, rb, n, s, k, dl, rowflat)) {
    for (int64_t tw = 0; tw < k; tw++) {
        if (s == 1)
            fwd_tap(m, bi, rb, n, 1, tw * dl, rowflat);
        else if (s == 2)
            fwd_tap(m, bi, rb, n, 2, tw * dl, rowflat);
        else
            fwd_tap(m, bi, rb, n, s, tw * dl, rowflat);
    }
}

static bool fwd_columns(const acl_view *x, acl_view *y, acl_view *idx, const pool_max_params *pp, const geo *gp) {
    const geo g = *gp;
    const int dt = x->dtype;
    if (dt != ACL_FLOAT && dt != ACL_FLOAT16 && dt != ACL_BF16) return false;
    if (g.xs[2] != 1 || g.in[0] * g.in[1] * g.in[2] > INT32_MAX / 2) return false;
    int64_t lo[3], hi[3]; /* padded row: cells [lo, hi) around the row's [0, in) */
    for (int a = 0; a < 3; a++) {
        for (int64_t o = 0; o < g.out[a]; o++) {
            int64_t t0, t1, st;
            taps(o, g.in[a], pp->k[a], pp->s[a], pp->p[a], pp->dl[a], &t0, &t1, &st);
            if (t1 <= t0) return false; /* a window wholly in the padding: the per-cell loop */
        }
        lo[a] = -pp->p[a];
        hi[a] = (g.out[a] - 1) * pp->s[a] - pp->p[a] + (pp->k[a] - 1) * pp->dl[a] + 1;
        if (hi[a] < g.in[a]) hi[a] = g.in[a];
    }
    const int64_t n = g.out[2], wp = hi[2] - lo[2], pw = pp->p[2];
    const int64_t osz = g.out[0] * g.out[1] * n;
    bool ok = true;
#pragma omp parallel
    {
        /* unpadded W, unit dilation in H and dense rows: the window's rows of one depth are one block, converted
         * (or copied) by one call - the rows' level dispatch and call costs were 10-15% of the adaptive 56 -> 7
         * forwards - into rb, which then holds in[1] rows */
        const bool blk = pw == 0 && wp == g.in[2] && pp->dl[1] == 1 && (g.in[1] == 1 || g.xs[1] == g.in[2]) &&
                         g.in[1] * wp <= ((int64_t)1 << 18);
        float *rb = malloc((size_t)(blk ? g.in[1] * wp : wp) * sizeof(float));
        float *m = malloc((size_t)n * sizeof(float));
        int32_t *bi = malloc((size_t)n * sizeof(int32_t));
        int32_t *wf = malloc((size_t)n * sizeof(int32_t));
        /* the positions' path (fwd_pos_row) when the windows tile W */
        const int64_t kw = pp->k[2], np = n * kw;
        const bool pos = kw >= 2 && kw == pp->s[2] && pp->dl[2] == 1 && pw == 0 && np <= g.in[2];
        float *cv = pos ? malloc((size_t)np * sizeof(float)) : NULL;
        int32_t *cr = pos ? malloc((size_t)np * sizeof(int32_t)) : NULL;
        /* the slices' path (the other windows, without dilation in D, every input row in some window): each
         * depth's rows converted (or copied) once per plane into padded rows of a slot (slot d % k[0], tagged with
         * (plane, d); a thread's planes and depths come in order) instead of once per window row that holds them
         * (k3 s2: 2.25x) - the same padded rows, the same row calls, so the same bytes. fp16 / bf16 only: fp32's row
         * copies are cheap, and its max_pool2d k3s2p1 row measured 4% slower so (11.7 -> 12.2 ms, 1 thread) */
        const int64_t k0 = pp->k[0], H = g.in[1];
        const bool sc = dt != ACL_FLOAT && !blk && !pos && pp->dl[0] == 1 && pp->s[0] <= k0 && pp->s[1] <= pp->k[1] * pp->dl[1] &&
                        k0 * H * wp <= ((int64_t)1 << 20);
        float *sb = sc ? malloc((size_t)(k0 * H * wp) * sizeof(float)) : NULL;
        int64_t *stag = sc ? malloc((size_t)k0 * sizeof(int64_t)) : NULL;
        const bool mine = rb && m && bi && wf && (!pos || (cv && cr)) && (!sc || (sb && stag));
        if (!mine) {
#pragma omp atomic write
            ok = false;
        }
#pragma omp barrier
        if (ok) {
            for (int64_t i = 0; i < wp; i++) rb[i] = -INFINITY;
            for (int64_t i = 0; sc && i < k0 * H * wp; i++) sb[i] = -INFINITY; /* the pads stay */
            for (int64_t i = 0; sc && i < k0; i++) stag[i] = -1;
            for (int64_t j = 0; j < n; j++) { /* each column's first in-range w */
                int64_t t0, t1, st;
                taps(j, g.in[2], pp->k[2], pp->s[2], pp->p[2], pp->dl[2], &t0, &t1, &st);
                wf[j] = (int32_t)(st + t0 * pp->dl[2]);
            }
        }
#pragma omp for schedule(static)
        for (int64_t pl = 0; pl < g.planes; pl++) {
            if (!ok) continue;
            const int64_t p0 = pl / g.n1, p1 = pl % g.n1;
            const int64_t xo = p0 * g.xs0 + p1 * g.xs1, yo = p0 * g.ys0 + p1 * g.ys1, io = p0 * g.is0 + p1 * g.is1;
            int64_t j0 = 0;
            for (int64_t od = 0; od < g.out[0]; od++) {
                int64_t d0, d1, ds;
                taps(od, g.in[0], pp->k[0], pp->s[0], pp->p[0], pp->dl[0], &d0, &d1, &ds);
                for (int64_t td = d0; sc && td < d1; td++) {
                    const int64_t d = ds + td, sl = d % k0;
                    if (stag[sl] == pl * g.in[0] + d) continue;
                    stag[sl] = pl * g.in[0] + d;
                    float *sr = sb + sl * H * wp + pw;
                    for (int64_t h = 0; h < H; h++, sr += wp) {
                        const int64_t ro = xo + d * g.xs[0] + h * g.xs[1];
                        if (dt == ACL_FLOAT)
                            memcpy(sr, (const float *)x->base + ro, (size_t)g.in[2] * sizeof(float));
                        else if (dt == ACL_FLOAT16)
                            p3_row_f16_to_f32(sr, (const uint16_t *)x->base + ro, g.in[2]);
                        else
                            p3_row_bf16_to_f32(sr, (const uint16_t *)x->base + ro, g.in[2]);
                    }
                }
                /* the depth after the window (or the next plane's first): fetched while these windows run */
                const int64_t es = (int64_t)acl_dtype_size(dt);
                const char *nx = !sc                    ? NULL
                                 : ds + d1 < g.in[0]    ? x->base + (xo + (ds + d1) * g.xs[0]) * es
                                 : pl + 1 < g.planes    ? x->base + ((pl + 1) / g.n1 * g.xs0 + (pl + 1) % g.n1 * g.xs1) * es
                                                        : NULL;
                for (int64_t oh = 0; oh < g.out[1]; oh++, j0 += n) {
                    if (nx)
                        for (int64_t h = oh * H / g.out[1]; h < (oh + 1) * H / g.out[1]; h++)
                            for (int64_t b = 0; b < g.in[2] * es; b += 64) __builtin_prefetch(nx + h * g.xs[1] * es + b, 0, 3);
                    int64_t h0, h1, hs;
                    taps(oh, g.in[1], pp->k[1], pp->s[1], pp->p[1], pp->dl[1], &h0, &h1, &hs);
                    const int64_t bd = ds + d0 * pp->dl[0], bh = hs + h0 * pp->dl[1];
                    for (int64_t j = 0; j < n; j++) {
                        m[j] = -INFINITY;
                        bi[j] = (int32_t)((bd * g.in[1] + bh) * g.in[2]) + wf[j];
                    }
                    if (pos) {
                        for (int64_t q = 0; q < np; q++) {
                            cv[q] = -INFINITY;
                            cr[q] = (int32_t)(bd * g.in[1] + bh);
                        }
                    }
                    for (int64_t td = d0; td < d1; td++) {
                        const int64_t d = ds + td * pp->dl[0];
                        if (blk) {
                            const int64_t hb = hs + h0, nh = h1 - h0, ro = xo + d * g.xs[0] + hb * g.xs[1];
                            const int64_t cnt = nh * g.in[2];
                            p3_rows_f32(rb, x, dt, ro, cnt);
                            for (int64_t th = 0; th < nh; th++) {
                                if (pos)
                                    fwd_pos_row(cv, cr, rb + th * g.in[2], np, (int32_t)(d * g.in[1] + hb + th));
                                else
                                    fwd_row_taps(m, bi, rb + th * g.in[2], n, pp->s[2], pp->k[2], pp->dl[2],
                                                 (int32_t)((d * g.in[1] + hb + th) * g.in[2]));
                            }
                            continue;
                        }
                        if (sc) {
                            const float *sr = sb + (d % k0) * H * wp;
                            for (int64_t th = h0; th < h1; th++) {
                                const int64_t h = hs + th * pp->dl[1];
                                fwd_row_taps(m, bi, sr + h * wp, n, pp->s[2], pp->k[2], pp->dl[2],
                                             (int32_t)((d * g.in[1] + h) * g.in[2] - pw));
                            }
                            continue;
                        }
                        for (int64_t th = h0; th < h1; th++) {
                            const int64_t h = hs + th * pp->dl[1];
                            const int64_t ro = xo + d * g.xs[0] + h * g.xs[1];
                            if (dt == ACL_FLOAT)
                                memcpy(rb + pw, (const float *)x->base + ro, (size_t)g.in[2] * sizeof(float));
                            else if (dt == ACL_FLOAT16)
                                p3_row_f16_to_f32(rb + pw, (const uint16_t *)x->base + ro, g.in[2]);
                            else
                                acl_row_bf16_to_f32(rb + pw, (const uint16_t *)x->base + ro, g.in[2]);
                            if (pos)
                                fwd_pos_row(cv, cr, rb, np, (int32_t)(d * g.in[1] + h));
                            else
                                fwd_row_taps(m, bi, rb, n, pp->s[2], pp->k[2], pp->dl[2],
                                             (int32_t)((d * g.in[1] + h) * g.in[2] - pw));
                        }
                    }
                    if (pos) fwd_pos_finish(m, bi, cv, cr, n, kw, g.in[2]);
                    /* fp16 / bf16 unit-stride output rows: rounded by the row converter (exact: each maximum is an
                     * input value), then a NaN maximum gets its own bits */
                    const bool yrow = dt != ACL_FLOAT && g.ys[2] == 1;
                    if (yrow) {
                        uint16_t *yr = (uint16_t *)y->base + yo + od * g.ys[0] + oh * g.ys[1];
                        p3_narrow(yr, m, n, dt);
                        bool anynan = false;
                        for (int64_t j = 0; j < n; j++) anynan |= m[j] != m[j];
                        for (int64_t j = 0; anynan && j < n; j++)
                            if (m[j] != m[j]) {
                                const int64_t b = bi[j], bw = b % g.in[2], bhh = (b / g.in[2]) % g.in[1];
                                const int64_t bdd = b / (g.in[2] * g.in[1]);
                                yr[j] = ((const uint16_t *)x->base)[xo + bdd * g.xs[0] + bhh * g.xs[1] + bw];
                            }
                    }
                    for (int64_t j = 0; j < n; j++) {
                        const int64_t yoff = yo + od * g.ys[0] + oh * g.ys[1] + j * g.ys[2];
                        if (yrow) {
                        } else if (dt == ACL_FLOAT) {
                            ((float *)y->base)[yoff] = m[j];
                        } else if (m[j] == m[j]) { /* exact: the input's own value */
                            ((uint16_t *)y->base)[yoff] = dt == ACL_FLOAT16 ? acl_f32_to_f16(m[j]) : acl_f32_to_bf16(m[j]);
                        } else { /* a NaN: its own bits */
                            const int64_t b = bi[j], bw = b % g.in[2], bhh = (b / g.in[2]) % g.in[1];
                            const int64_t bdd = b / (g.in[2] * g.in[1]);
                            ((uint16_t *)y->base)[yoff] =
                                ((const uint16_t *)x->base)[xo + bdd * g.xs[0] + bhh * g.xs[1] + bw];
                        }
                        if (pp->idx_mode == POOL_IDX_NONE) continue;
                        if (pp->idx_mode == POOL_IDX_UNIT)
                            ((uint16_t *)idx->base)[pl * pp->mask_plane + j0 + j] = 0xFFFFu;
                        else
                            store_index(idx, pp->idx_mode, io + od * g.is[0] + oh * g.is[1] + j * g.is[2],
                                        pl * osz + j0 + j, bi[j]);
                    }
                }
            }
        }
        free(rb);
        free(m);
        free(bi);
        free(wf);
        free(cv);
        free(cr);
        free(sb);
        free(stag);
    }
    return ok;
}
