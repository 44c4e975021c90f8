/* Reductions: one engine for sum/nansum/mean/prod/amax/amin/max/min (+indices)/argmax/argmin/all/any/var/std/
 * logsumexp/logsum and a plain copy, and the first phases of the ops of ops-math made of them.
 *
 * Deterministic by construction: each output is reduced by one thread in row-major order of the reduced index space;
 * when there are few outputs, the reduced space is cut into fixed blocks (the cut depends on the shape only, never
 * on the thread count) whose partials are combined in block order, and sums run in 8 fixed lanes combined
 * pairwise. Elements are first cast to the op's compute dtype (ReduceSum's `dtype`, Prod's out dtype, float32 for
 * bool max, ...: the Cast upstream puts before its kernel), then accumulated in double (real floats), double
 * complex (complex) or int64 wrapping at 64 bits (integers and bool); the reduced value is rounded once to the
 * result dtype (the kernel's output dtype) and then converted to each output's dtype (the Cast before ViewCopy).
 *
 * The first phases follow each op_api source's order: NULL checks, dtype lists and dtype rules, dims, ranks and
 * shapes, then the early returns upstream takes (a fill of out for an empty input, a copy for a 0-d input, nothing
 * at all), then the shape the kernel's result must have (same shape, or both a single element).
 *
 * Where upstream's first phase succeeds but leaves the outcome to a kernel or a ViewCopy we cannot see, we chose:
 * a copy of a 0-d input (and a noop-with-empty-axes copy) needs an output of the same shape or of one element
 * (161002 otherwise); a dtype argument outside every list (ProdDim/Prod only check out == dtype) is computed when
 * it is a numeric dtype; ReduceLogSum converts to `reduce`'s dtype when it differs from `data`'s; GlobalMaxPool of an
 * empty spatial extent leaves out untouched (there is no maximum to write), GlobalAveragePool writes NaN. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/half_rows.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

enum { RD_SUM, RD_NANSUM, RD_MEAN, RD_PROD, RD_MAX, RD_MIN, RD_ALL, RD_ANY, RD_VAR, RD_LOGSUMEXP, RD_LOGSUM, RD_COPY,
       RD_NORM };
enum { ACC_F, ACC_I, ACC_C }; /* accumulate in double, int64 (wrapping), double complex */
#define RD_BLOCK 16384   /* reduced elements per partial when the outputs are few */
#define RD_FEW_OUTPUTS 64
#define RD_CHUNK 512     /* elements converted at a time */
#define MAXR ACL_MAX_VIEW_RANK

typedef struct {
    int kind, acc;
    aclDataType xdt, cdt, rdt;                   /* input, compute and result dtypes */
    bool index_only, with_index, std, minmax;
    bool var_fill;                               /* var/std output is var_fill_value; the mean is still computed */
    double var_fill_value;
    int64_t correction;
    double np;                                   /* RD_NORM: p (+-INFINITY: max / min of |x|) */
    int nk, nr;                                  /* kept and reduced dims of the input */
    int64_t kd[MAXR], ks[MAXR], rd[MAXR], rs[MAXR];
    int64_t nout, R;
    int64_t ost[2][MAXR];                        /* output strides per kept dim (0: a single-element output) */
} rd_plan;

typedef struct {
    bool fill;                                   /* no input: every element of output k becomes fill_value[k] */
    double fill_value[2];
    rd_plan p;
} rd_params;

typedef struct { double v, vi, m2; int64_t i, idx, n; } rd_acc;

static void acc_init(const rd_plan *p, rd_acc *a) {
    memset(a, 0, sizeof *a);
    a->idx = -1;
    if (p->kind == RD_PROD) { a->v = 1; a->i = 1; }
    if (p->kind == RD_ALL) a->i = 1;
    if (p->kind == RD_LOGSUMEXP) a->v = -INFINITY;
    if (p->kind == RD_NORM && p->np == -INFINITY) a->v = INFINITY;
}

/* The sum of a chunk in a fixed tree: 8 running lanes (element k goes to lane k % 8), combined pairwise. The chunk
 * cut is fixed by the shape, so the bytes never depend on the thread count; the lanes let the adds pipeline. */
static inline double lane_sum(const double *d, int64_t n) {
    double l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 8; j++) l[j] += d[k + j];
    for (int j = 0; k < n; k++, j++) l[j] += d[k];
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* lane_sum of n contiguous fp32 values read in place: the same lanes and additions as converting the chunk to
 * double first (the conversion is exact), without the pass through a double buffer */
static double lane_sum_f32(const float *s, int64_t n) {
    double l[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t k = 0;
    for (; k + 8 <= n; k += 8)
        for (int j = 0; j < 8; j++) l[j] += (double)s[k + j];
    for (int j = 0; k < n; k++, j++) l[j] += (double)s[k];
    return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]));
}

/* whether a contiguous run of the input is summed straight from memory (a floating input summed in double as it
 * is); fp16/bf16 go through the vectorised row conversion to fp32 first, also exact */
static bool direct_sum(const rd_plan *p, int64_t ist) {
    return ist == 1 && p->cdt == p->xdt && p->acc == ACC_F &&
           (p->kind == RD_SUM || p->kind == RD_MEAN || p->kind == RD_LOGSUM) &&
           (p->xdt == ACL_FLOAT || p->xdt == ACL_FLOAT16 || p->xdt == ACL_BF16);
}

__attribute__((noipa)) static double direct_chunk(aclDataType dt, const char *src, int64_t n) {
    if (dt == ACL_FLOAT) return lane_sum_f32((const float *)src, n);
    _Alignas(64) float f[RD_CHUNK];
    acl_convert(src, dt, 1, f, ACL_FLOAT, 1, n);
    return lane_sum_f32(f, n);
}

/* lane_sum_f32 of G consecutive full chunks already in L1 (chunk c at s + c * RD_CHUNK) into out[c]: every chunk
 * keeps its own 8 lanes, the same additions in the same order and the same pairwise tree, so the same bits; a chunk
 * alone is one chain of dependent adds per lane (latency-bound), G independent chunks side by side keep the adders
 * busy. G = 2 at the portable level (8 SSE2 accumulators), 4 with AVX2 (8 ymm accumulators). Only for widened
 * buffers: read straight from memory, G streams 2 KiB apart ran at half the speed of one stream (measured, EPYC). */
#define RD_GROUP_MAX 4
#define RD_TREE8(l) ((((l)[0] + (l)[1]) + ((l)[2] + (l)[3])) + (((l)[4] + (l)[5]) + ((l)[6] + (l)[7])))
#define RD_CHUNKS_BODY(G)                                                                                        \
    double l[G][8];                                                                                              \
    for (int c = 0; c < G; c++)                                                                                  \
        for (int j = 0; j < 8; j++) l[c][j] = 0;                                                                 \
    for (int64_t k = 0; k < RD_CHUNK; k += 8)                                                                    \
        for (int c = 0; c < G; c++)                                                                              \
            for (int j = 0; j < 8; j++) l[c][j] += (double)s[c * RD_CHUNK + k + j];                              \
    for (int c = 0; c < G; c++) out[c] = RD_TREE8(l[c]);
__attribute__((noinline)) static void rd_chunks2(const float *restrict s, double *restrict out) { RD_CHUNKS_BODY(2) }
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define RD_X86 1
__attribute__((noinline, target("avx2"))) static void rd_chunks4(const float *restrict s, double *restrict out) {
    RD_CHUNKS_BODY(4)
}
#endif

/* fp16 chunks summed in any order. A finite fp16 value is an integer multiple of 2^-24 below 2^16 in magnitude, so
 * every partial sum of at most RD_CHUNK of them is an integer below 2^49 times 2^-24: exact in double. The lanes and
 * tree of lane_sum_f32 therefore give the exact sum, and so does any other order of double additions from +0 (an
 * exact zero comes out +0 either way): the same bits, with accumulators laid out for the vector width and one
 * sequential stream from memory. A chunk holding an Inf or NaN (where the order could matter: which NaN's payload
 * survives) returns false and the caller takes the tree.
 * Every level widens without a conversion instruction: a half's bits placed as sign << 63 | em << 42 and read as a
 * double are its value times 2^-1008 (a subnormal half: a subnormal double, exactly), so the chunk sums exactly in
 * that scale and is multiplied back by 2^1008 (exact). With AVX2 / AVX-512 the placing is a sign extension to 64
 * bits, a shift by 42 and a mask (the sign copies above bit 56 cleared): 3 integer operations per 4 / 8 halves,
 * against F16C's two conversions (half -> float -> double), measured 13% / 25% faster per chunk on Zen 4. */
#define RD_F16_PLACE_MASK ((long long)0x81fffc0000000000ull)
#ifdef RD_X86
__attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2"))) static bool rd_f16_chunk_avx512(const uint16_t *s,
                                                                                                double *out) {
    __m512d a[8];
    for (int q = 0; q < 8; q++) a[q] = _mm512_setzero_pd();
    __m512i mx = _mm512_setzero_si512();
    const __m512i m7 = _mm512_set1_epi16(0x7fff), mk = _mm512_set1_epi64(RD_F16_PLACE_MASK);
    for (int k = 0; k < RD_CHUNK; k += 64) {
        mx = _mm512_max_epu16(mx, _mm512_and_si512(_mm512_loadu_si512((const void *)(s + k)), m7));
        mx = _mm512_max_epu16(mx, _mm512_and_si512(_mm512_loadu_si512((const void *)(s + k + 32)), m7));
        for (int q = 0; q < 8; q++) {
            const __m512i w = _mm512_cvtepi16_epi64(_mm_loadu_si128((const __m128i *)(const void *)(s + k + 8 * q)));
            a[q] = _mm512_add_pd(a[q], _mm512_castsi512_pd(_mm512_and_si512(_mm512_slli_epi64(w, 42), mk)));
        }
    }
    if (_mm512_cmpgt_epu16_mask(mx, _mm512_set1_epi16(0x7bff))) return false;
    const __m512d t = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(a[0], a[1]), _mm512_add_pd(a[2], a[3])),
                                    _mm512_add_pd(_mm512_add_pd(a[4], a[5]), _mm512_add_pd(a[6], a[7])));
    *out = _mm512_reduce_add_pd(t) * 0x1p1008;
    return true;
}
__attribute__((target("avx2"))) static bool rd_f16_chunk_avx2(const uint16_t *s, double *out) {
    __m256d a[8];
    for (int q = 0; q < 8; q++) a[q] = _mm256_setzero_pd();
    __m256i mx = _mm256_setzero_si256();
    const __m256i m7 = _mm256_set1_epi16(0x7fff), mk = _mm256_set1_epi64x(RD_F16_PLACE_MASK);
    for (int k = 0; k < RD_CHUNK; k += 32) {
        mx = _mm256_max_epu16(mx, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(s + k)), m7));
        mx = _mm256_max_epu16(mx, _mm256_and_si256(_mm256_loadu_si256((const __m256i *)(const void *)(s + k + 16)), m7));
        for (int q = 0; q < 8; q++) {
            const __m256i w = _mm256_cvtepi16_epi64(_mm_loadl_epi64((const __m128i *)(const void *)(s + k + 4 * q)));
            a[q] = _mm256_add_pd(a[q], _mm256_castsi256_pd(_mm256_and_si256(_mm256_slli_epi64(w, 42), mk)));
        }
    }
    if (_mm256_movemask_epi8(_mm256_cmpgt_epi16(mx, _mm256_set1_epi16(0x7bff)))) return false;
    const __m256d t = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(a[0], a[1]), _mm256_add_pd(a[2], a[3])),
                                    _mm256_add_pd(_mm256_add_pd(a[4], a[5]), _mm256_add_pd(a[6], a[7])));
    const __m128d u = _mm_add_pd(_mm256_castpd256_pd128(t), _mm256_extractf128_pd(t, 1));
    *out = _mm_cvtsd_f64(_mm_add_sd(u, _mm_unpackhi_pd(u, u))) * 0x1p1008;
    return true;
}
#endif
#if defined(__SSE2__) && defined(__x86_64__)
/* The portable x86-64 build (SSE2): the same placing (above), without shuffles (the portable level's bottleneck:
 * shuffle and shift ports): pmaddwd of a dword (h_lo, h_hi) by (1024, 0) or (0, 1024) is the
 * sign-extended half << 10, i.e. sign copies above bit 25 and the half's em at bits 10..24; masked with
 * 0x81fffc00 it is sign << 31 | em << 10, the upper dword of the wanted double (the dword in an upper position as
 * it is, a lower one moved up by one 64-bit shift). 14 operations per 8 halves, 4 of them shifts / multiplies. */
static bool rd_f16_chunk_sse2(const uint16_t *s, double *out) {
    __m128d a[8];
    for (int q = 0; q < 8; q++) a[q] = _mm_setzero_pd();
    __m128i mx = _mm_setzero_si128();
    const __m128i m7 = _mm_set1_epi16(0x7fff), klo = _mm_set1_epi32(1024), khi = _mm_set1_epi32(1024 << 16),
                  mk = _mm_set1_epi64x(RD_F16_PLACE_MASK);
    for (int k = 0; k < RD_CHUNK; k += 16) {
        for (int q = 0; q < 2; q++) {
            const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(s + k + 8 * q));
            mx = _mm_max_epi16(mx, _mm_and_si128(h, m7));
            const __m128i ev = _mm_madd_epi16(h, klo), od = _mm_madd_epi16(h, khi); /* halves 0 2 4 6 / 1 3 5 7 */
            a[4 * q] = _mm_add_pd(a[4 * q], _mm_castsi128_pd(_mm_and_si128(ev, mk)));
            a[4 * q + 1] = _mm_add_pd(a[4 * q + 1], _mm_castsi128_pd(_mm_and_si128(od, mk)));
            a[4 * q + 2] = _mm_add_pd(a[4 * q + 2], _mm_castsi128_pd(_mm_and_si128(_mm_slli_epi64(ev, 32), mk)));
            a[4 * q + 3] = _mm_add_pd(a[4 * q + 3], _mm_castsi128_pd(_mm_and_si128(_mm_slli_epi64(od, 32), mk)));
        }
    }
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)))) return false;
    const __m128d u = _mm_add_pd(_mm_add_pd(_mm_add_pd(a[0], a[1]), _mm_add_pd(a[2], a[3])),
                                 _mm_add_pd(_mm_add_pd(a[4], a[5]), _mm_add_pd(a[6], a[7])));
    *out = _mm_cvtsd_f64(_mm_add_sd(u, _mm_unpackhi_pd(u, u))) * 0x1p1008;
    return true;
}
#define RD_F16_SSE2 1
#endif

/* a contiguous run of n elements summed chunk by chunk into *acc: the same chunks and order as direct_chunk on each
 * RD_CHUNK piece, and the same chunk sums (the tree's, or for fp16 the exact sum the tree also gives) */
static void direct_run(aclDataType dt, const char *src, int64_t n, double *acc) {
    const int64_t es = (int64_t)acl_dtype_size(dt);
    int64_t k = 0;
    if (dt == ACL_FLOAT16) {
        const int lv = acl_simd_level();
        (void)lv;
        bool (*fn)(const uint16_t *, double *) = NULL;
#ifdef RD_X86
        fn = lv >= ACL_SIMD_AVX512 ? rd_f16_chunk_avx512 : lv >= ACL_SIMD_AVX2 ? rd_f16_chunk_avx2 : NULL;
#endif
#ifdef RD_F16_SSE2
        if (!fn) fn = rd_f16_chunk_sse2;
#endif
        if (fn) {
            for (; n - k >= RD_CHUNK; k += RD_CHUNK) {
                const char *c = src + k * es;
                double v;
                if (!fn((const uint16_t *)(const void *)c, &v)) v = direct_chunk(dt, c, RD_CHUNK);
                *acc += v;
            }
        }
    }
    if (dt != ACL_FLOAT) { /* bf16 (and fp16 without the kernels above): widened a group of chunks at a time */
        _Alignas(64) float f[RD_GROUP_MAX * RD_CHUNK];
        double cs[RD_GROUP_MAX];
        int g = 2;
#ifdef RD_X86
        if (acl_simd_level() >= ACL_SIMD_AVX2) g = 4;
#endif
        const int64_t gn = (int64_t)g * RD_CHUNK;
        for (; n - k >= gn; k += gn) {
            acl_convert(src + k * es, dt, 1, f, ACL_FLOAT, 1, gn);
#ifdef RD_X86
            if (g == 4) rd_chunks4(f, cs);
            else
#endif
                rd_chunks2(f, cs);
            for (int c = 0; c < g; c++) {
                /* a NaN chunk sum: which NaN survives is the compiled operand order of rd_chunks2 / rd_chunks4
                 * (and a level's group size decides which chunks they take); the chunk again by direct_chunk,
                 * one code at every level (common/nan_order.h's aim: the same NaN bytes at every level) */
                if (cs[c] != cs[c]) cs[c] = direct_chunk(dt, src + (k + c * RD_CHUNK) * es, RD_CHUNK);
                *acc += cs[c];
            }
        }
    }
    while (k < n) {
        const int64_t m = n - k < RD_CHUNK ? n - k : RD_CHUNK;
        *acc += direct_chunk(dt, src + k * es, m);
        k += m;
    }
}

/* n elements at src (element stride st) cast to the compute dtype, then read as double / double pairs / int64 */
static void load(const rd_plan *p, const char *src, int64_t st, int64_t n, double *d, double *di, int64_t *iv,
                 bool as_double) {
    _Alignas(16) unsigned char tmp[RD_CHUNK * 16];
    const void *s = src;
    aclDataType sdt = p->xdt;
    int64_t ss = st;
    if (p->cdt != p->xdt) {
        acl_convert(src, p->xdt, st, tmp, p->cdt, 1, n);
        s = tmp;
        sdt = p->cdt;
        ss = 1;
    }
    if (as_double || p->acc == ACC_F) {
        acl_convert(s, sdt, ss, d, ACL_DOUBLE, 1, n);
    } else if (p->acc == ACC_I) {
        acl_convert(s, sdt, ss, iv, ACL_INT64, 1, n);
    } else { /* complex: interleaved pairs into d, then split (in place, forwards) */
        acl_convert(s, sdt, ss, d, ACL_COMPLEX128, 1, n);
        for (int64_t k = 0; k < n; k++) {
            di[k] = d[2 * k + 1];
            d[k] = d[2 * k];
        }
    }
}

/* folds n loaded values at reduced positions [pos, pos + n) */
static void acc_fold(const rd_plan *p, rd_acc *a, double *d, const double *di, const int64_t *iv, int64_t n,
                     int64_t pos) {
    switch (p->kind) {
    case RD_SUM: case RD_MEAN: case RD_LOGSUM:
        if (p->acc == ACC_I) {
            for (int64_t k = 0; k < n; k++) a->i = (int64_t)((uint64_t)a->i + (uint64_t)iv[k]);
        } else {
            a->v += lane_sum(d, n);
            if (p->acc == ACC_C) a->vi += lane_sum(di, n);
        }
        break;
    case RD_NANSUM: /* NaNs count as zero */
        for (int64_t k = 0; k < n; k++) if (isnan(d[k])) d[k] = 0;
        a->v += lane_sum(d, n);
        break;
    case RD_PROD:
        if (p->acc == ACC_I) {
            for (int64_t k = 0; k < n; k++) a->i = (int64_t)((uint64_t)a->i * (uint64_t)iv[k]);
        } else if (p->acc == ACC_F) {
            for (int64_t k = 0; k < n; k++) a->v *= d[k];
        } else {
            for (int64_t k = 0; k < n; k++) {
                double re = a->v * d[k] - a->vi * di[k], im = a->v * di[k] + a->vi * d[k];
                a->v = re;
                a->vi = im;
            }
        }
        break;
    case RD_MAX: case RD_MIN: { /* the first NaN wins (PyTorch); else the first extreme */
        const bool mx = p->kind == RD_MAX;
        if (p->acc == ACC_I) {
            for (int64_t k = 0; k < n; k++)
                if (a->idx < 0 || (mx ? iv[k] > a->i : iv[k] < a->i)) { a->i = iv[k]; a->idx = pos + k; }
        } else {
            for (int64_t k = 0; k < n; k++) {
                if (a->idx >= 0 && isnan(a->v)) break;
                if (a->idx < 0 || isnan(d[k]) || (mx ? d[k] > a->v : d[k] < a->v)) { a->v = d[k]; a->idx = pos + k; }
            }
        }
        break;
    }
    case RD_ALL:
        for (int64_t k = 0; k < n; k++) a->i = a->i && (p->acc == ACC_I ? iv[k] != 0 : d[k] != 0);
        break;
    case RD_ANY:
        for (int64_t k = 0; k < n; k++) a->i = a->i || (p->acc == ACC_I ? iv[k] != 0 : d[k] != 0);
        break;
    case RD_COPY: /* one element */
        if (n > 0) {
            a->v = d[0];
            if (p->acc == ACC_C) a->vi = di[0];
            if (p->acc == ACC_I) a->i = iv[0];
        }
        break;
    case RD_NORM: /* |x|: p = 0 counts non-zeros, +-inf keep the max / min (NaN sticky), else sums |x|^p */
        for (int64_t k = 0; k < n; k++) d[k] = fabs(d[k]);
        if (isinf(p->np)) {
            const bool mx = p->np > 0;
            for (int64_t k = 0; k < n; k++)
                if (!isnan(a->v) && (isnan(d[k]) || (mx ? d[k] > a->v : d[k] < a->v))) a->v = d[k];
            break;
        }
        if (p->np == 0) for (int64_t k = 0; k < n; k++) d[k] = d[k] != 0 || isnan(d[k]) ? 1.0 : 0.0;
        else if (p->np == 2) for (int64_t k = 0; k < n; k++) d[k] = d[k] * d[k];
        else if (p->np != 1) for (int64_t k = 0; k < n; k++) d[k] = pow(d[k], p->np);
        a->v += lane_sum(d, n);
        break;
    case RD_LOGSUMEXP: /* pass 0: the maximum, NaN sticky */
        for (int64_t k = 0; k < n; k++) if (d[k] > a->v || isnan(d[k])) a->v = d[k];
        break;
    default: break;
    }
    a->n += n;
}

/* a += b (b covers later positions) */
static void acc_merge(const rd_plan *p, rd_acc *a, const rd_acc *b) {
    switch (p->kind) {
    case RD_SUM: case RD_MEAN: case RD_NANSUM: case RD_LOGSUM:
        a->v += b->v;
        a->vi += b->vi;
        a->i = (int64_t)((uint64_t)a->i + (uint64_t)b->i);
        break;
    case RD_PROD:
        if (p->acc == ACC_C) {
            double re = a->v * b->v - a->vi * b->vi, im = a->v * b->vi + a->vi * b->v;
            a->v = re;
            a->vi = im;
        } else {
            a->v *= b->v;
        }
        a->i = (int64_t)((uint64_t)a->i * (uint64_t)b->i);
        break;
    case RD_MAX: case RD_MIN: {
        const bool mx = p->kind == RD_MAX;
        if (b->idx < 0) break;
        if (a->idx < 0) { *a = *b; break; }
        if (p->acc == ACC_I) {
            if (mx ? b->i > a->i : b->i < a->i) { a->i = b->i; a->idx = b->idx; }
        } else if (!isnan(a->v) && (isnan(b->v) || (mx ? b->v > a->v : b->v < a->v))) {
            a->v = b->v;
            a->idx = b->idx;
        }
        break;
    }
    case RD_ALL: a->i = a->i && b->i; break;
    case RD_ANY: a->i = a->i || b->i; break;
    case RD_LOGSUMEXP: if (b->v > a->v || isnan(b->v)) a->v = b->v; break;
    case RD_NORM:
        if (!isinf(p->np)) a->v += b->v;
        else if (!isnan(a->v) && (isnan(b->v) || (p->np > 0 ? b->v > a->v : b->v < a->v))) a->v = b->v;
        break;
    default: break;
    }
    a->n += b->n;
}

/* element offset of output o's first input element (kept dims in row-major order) */
static int64_t kept_base(const rd_plan *p, int64_t o) {
    int64_t base = 0, rem = o;
    for (int k = p->nk - 1; k >= 0; k--) {
        base += (rem % p->kd[k]) * p->ks[k];
        rem /= p->kd[k];
    }
    return base;
}

/* reduces positions [r0, r1) of output o into a; pass 1 of var / logsumexp uses `center` */
static void reduce_range(const rd_plan *p, const acl_view *x, int64_t o, int64_t r0, int64_t r1, rd_acc *a,
                         double center, int pass) {
    const int64_t base = kept_base(p, o);
    const int nr = p->nr;
    const int64_t inner = nr ? p->rd[nr - 1] : 1, ist = nr ? p->rs[nr - 1] : 0;
    const int64_t es = (int64_t)acl_dtype_size(x->dtype);
    double d[2 * RD_CHUNK], di[RD_CHUNK];
    int64_t iv[RD_CHUNK];
    int64_t pos = r0;
    const bool direct = pass != 1 && direct_sum(p, ist);
    while (pos < r1) {
        int64_t rrem = pos / inner, off = base;
        for (int k = nr - 2; k >= 0; k--) {
            off += (rrem % p->rd[k]) * p->rs[k];
            rrem /= p->rd[k];
        }
        int64_t j = pos % inner, n = inner - j;
        if (n > r1 - pos) n = r1 - pos;
        if (n > RD_CHUNK) n = RD_CHUNK;
        if (direct) { /* the same chunks and lanes as load + acc_fold below, the whole contiguous run at once */
            int64_t run = inner - j < r1 - pos ? inner - j : r1 - pos;
            direct_run(p->xdt, x->base + (off + j * ist) * es, run, &a->v);
            pos += run;
            continue;
        }
        load(p, x->base + (off + j * ist) * es, ist, n, d, di, iv, pass == 1);
        if (pass == 1) { /* var: squared deviations; logsumexp: exp(x - max) */
            for (int64_t k = 0; k < n; k++)
                d[k] = p->kind == RD_VAR ? (d[k] - center) * (d[k] - center) : exp(d[k] - center);
            a->m2 += lane_sum(d, n);
            a->n += n;
        } else {
            acc_fold(p, a, d, di, iv, n, pos);
        }
        pos += n;
    }
}

/* one output's final accumulator: sequential when outputs are many, blocked partials (fixed cut) when few */
static void reduce_one(const rd_plan *p, const acl_view *x, int64_t o, rd_acc *a, double center, int pass,
                       bool blocked) {
    acc_init(p, a);
    if (!blocked || p->R <= RD_BLOCK) {
        reduce_range(p, x, o, 0, p->R, a, center, pass);
        return;
    }
    const int64_t nb = (p->R + RD_BLOCK - 1) / RD_BLOCK;
    rd_acc *part = malloc(sizeof(rd_acc) * (size_t)nb);
    if (!part) { /* one sequence instead: the same bytes only matter within a run */
        reduce_range(p, x, o, 0, p->R, a, center, pass);
        return;
    }
#pragma omp parallel for schedule(static)
    for (int64_t b = 0; b < nb; b++) {
        acc_init(p, &part[b]);
        int64_t r1 = (b + 1) * RD_BLOCK < p->R ? (b + 1) * RD_BLOCK : p->R;
        reduce_range(p, x, o, b * RD_BLOCK, r1, &part[b], center, pass);
    }
    for (int64_t b = 0; b < nb; b++) {
        if (pass == 1) { a->m2 += part[b].m2; a->n += part[b].n; }
        else acc_merge(p, a, &part[b]);
    }
    free(part);
}

/* the reduced value of `a` in the result dtype (16 bytes hold any dtype) */
static void result(const rd_plan *p, const rd_acc *a, unsigned char *res) {
    double c[2] = {a->v, a->vi};
    int64_t i = a->i;
    switch (p->kind) {
    case RD_MEAN:
        if (p->acc == ACC_I) { /* the sum wraps at the compute dtype's width, then divides (truncating) */
            _Alignas(16) unsigned char w[16];
            acl_convert(&i, ACL_INT64, 1, w, p->cdt, 1, 1);
            acl_convert(w, p->cdt, 1, &i, ACL_INT64, 1, 1);
            i = p->R > 0 ? i / p->R : 0;
        } else {
            c[0] /= (double)p->R;
            c[1] /= (double)p->R;
        }
        break;
    case RD_LOGSUM: c[0] = log(c[0]); break;
    case RD_NORM:
        if (p->np == 2) c[0] = sqrt(c[0]);
        else if (p->np != 0 && p->np != 1 && !isinf(p->np)) c[0] = pow(c[0], 1.0 / p->np);
        break;
    case RD_ALL: case RD_ANY: i = i != 0; acl_convert(&i, ACL_INT64, 1, res, p->rdt, 1, 1); return;
    default: break;
    }
    if (p->acc == ACC_I) acl_convert(&i, ACL_INT64, 1, res, p->rdt, 1, 1);
    else if (p->acc == ACC_C) acl_convert(c, ACL_COMPLEX128, 1, res, p->rdt, 1, 1);
    else acl_convert(c, ACL_DOUBLE, 1, res, p->rdt, 1, 1);
}

static void store_res(const acl_view *o, int64_t off, aclDataType rdt, const void *res) {
    acl_convert(res, rdt, 1, o->base + off * (int64_t)acl_dtype_size(o->dtype), o->dtype, 1, 1);
}
static void store_double(const acl_view *o, int64_t off, aclDataType rdt, double v) {
    _Alignas(16) unsigned char res[16];
    acl_convert(&v, ACL_DOUBLE, 1, res, rdt, 1, 1);
    store_res(o, off, rdt, res);
}
static void store_index(const acl_view *o, int64_t off, int64_t idx) {
    acl_convert(&idx, ACL_INT64, 1, o->base + off * (int64_t)acl_dtype_size(o->dtype), o->dtype, 1, 1);
}

/* every output index of one reduction kind */
static void run_kind(const rd_plan *p, const acl_view *x, const acl_view *o0, const acl_view *o1) {
    const bool many = p->nout >= RD_FEW_OUTPUTS;
    ACL_FOR(many && acl_parallel_worth(p->nout * (p->R ? p->R : 1)), o, 0, p->nout, {
        int64_t off0 = 0, off1 = 0, rem = o;
        for (int k = p->nk - 1; k >= 0; k--) {
            int64_t i = rem % p->kd[k];
            rem /= p->kd[k];
            off0 += i * p->ost[0][k];
            off1 += i * p->ost[1][k];
        }
        rd_acc a;
        if (p->kind == RD_VAR) { /* two passes: the mean, then the squared deviations from it */
            rd_plan q = *p;
            q.kind = RD_SUM;
            q.acc = ACC_F;
            reduce_one(&q, x, o, &a, 0, 0, !many);
            double mean = p->R ? a.v / (double)p->R : NAN;
            double var = p->var_fill_value;
            if (!p->var_fill) {
                rd_acc b;
                reduce_one(p, x, o, &b, mean, 1, !many);
                var = b.m2 / ((double)p->R - (double)p->correction); /* the fills cover R <= correction */
                if (p->std) var = sqrt(var);
            }
            if (o0) store_double(o0, off0, p->rdt, var);
            if (o1) store_double(o1, off1, p->rdt, mean);
            continue;
        }
        if (p->kind == RD_LOGSUMEXP) { /* the maximum (0 when infinite), then log(sum(exp(x - max))) + max */
            reduce_one(p, x, o, &a, 0, 0, !many);
            double m = a.v;
            if (isinf(m) || isnan(m)) {
                store_double(o0, off0, p->rdt, m);
                continue;
            }
            rd_acc b;
            reduce_one(p, x, o, &b, m, 1, !many);
            store_double(o0, off0, p->rdt, m + log(b.m2));
            continue;
        }
        reduce_one(p, x, o, &a, 0, 0, !many);
        if (p->index_only) {
            store_index(o0, off0, a.idx < 0 ? 0 : a.idx);
            continue;
        }
        _Alignas(16) unsigned char res[16];
        result(p, &a, res);
        store_res(o0, off0, p->rdt, res);
        if (p->with_index) store_index(o1, off1, a.idx < 0 ? 0 : a.idx);
    });
}

/* every element of a view set to the 16-byte value v (already in the view's dtype) */
static void fill_view(const acl_view *o, const unsigned char *v) {
    const int64_t n = acl_view_numel(o), es = (int64_t)acl_dtype_size(o->dtype);
    if (n == 0) return;
    const int nd = o->ndim;
    const int64_t inner = nd ? o->dims[nd - 1] : 1, ist = nd ? o->strides[nd - 1] : 0, rows = n / inner;
    ACL_FOR(acl_parallel_worth(n), r, 0, rows, {
        int64_t off = 0, rem = r;
        for (int k = nd - 2; k >= 0; k--) {
            off += (rem % o->dims[k]) * o->strides[k];
            rem /= o->dims[k];
        }
        for (int64_t j = 0; j < inner; j++) memcpy(o->base + (off + j * ist) * es, v, (size_t)es);
    });
}

static aclnnStatus rd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rd_params *rp = ex->params;
    if (rp->fill) {
        for (int k = 0; k < ex->n_out; k++) {
            const acl_view *o = acl_exec_out(ex, k);
            _Alignas(16) unsigned char v[16];
            acl_convert(&rp->fill_value[k], ACL_DOUBLE, 1, v, o->dtype, 1, 1);
            fill_view(o, v);
        }
        return ACLNN_SUCCESS;
    }
    const acl_view *x = acl_exec_in(ex, 0), *o0 = acl_exec_out(ex, 0);
    const acl_view *o1 = ex->n_out > 1 ? acl_exec_out(ex, 1) : NULL;
    if (rp->p.minmax) {
        rd_plan q = rp->p;
        q.kind = RD_MIN;
        run_kind(&q, x, o0, NULL);
        q.kind = RD_MAX;
        memcpy(q.ost[0], rp->p.ost[1], sizeof q.ost[0]);
        run_kind(&q, x, o1, NULL);
        return ACLNN_SUCCESS;
    }
    if (rp->p.var_fill) { /* var/std filled whole, the mean computed */
        _Alignas(16) unsigned char v[16];
        acl_convert(&rp->p.var_fill_value, ACL_DOUBLE, 1, v, o0->dtype, 1, 1);
        fill_view(o0, v);
        o0 = NULL;
    }
    run_kind(&rp->p, x, o0, o1);
    return ACLNN_SUCCESS;
}

/* ---- planning ---- */

typedef struct {
    const aclTensor *x;
    const char *xname;
    uint64_t mask;                  /* reduced dims of x */
    bool keep;
    aclTensor *o[2];
    const char *on[2];
    int kind;
    aclDataType cdt, rdt;
    bool index_only, with_index, std, minmax;
    int64_t correction;
    bool var_fill;
    double var_fill_value;
    double np;                      /* RD_NORM's p */
} rd_req;

static bool dt_int_like(aclDataType d) { return acl_dt_is_int(d) || d == ACL_BOOL; }

/* The executor of one reduction; outputs of the reduced shape (keepdim 1s in place) are walked with their own
 * strides, any other output (the callers only let through single-element ones) is written at its first element. */
static aclnnStatus rd_publish(int op, const rd_req *q, uint64_t *ws, aclOpExecutor **exo) {
    ACLNN_CHECK(acl_dt_known(q->cdt) && acl_dt_known(q->rdt), ACLNN_ERR_PARAM_INVALID,
                "dtype %s cannot be computed by this reduction.", acl_dtype_name(q->cdt));
    const bool empty_in = acl_tensor_empty(q->x);
    aclOpExecutor *ex = acl_exec_create(op, rd_run, sizeof(rd_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, q->x, q->xname, !empty_in);
    for (int k = 0; k < 2 && !rc; k++)
        if (q->o[k]) rc = acl_exec_add_output(ex, q->o[k], q->on[k]);
    if (rc) return acl_exec_discard(ex, rc);
    rd_params *rp = ex->params;
    rd_plan *p = &rp->p;
    p->kind = q->kind;
    p->xdt = q->x->dtype;
    p->cdt = q->cdt;
    p->rdt = q->rdt;
    p->acc = acl_dt_is_complex(q->cdt) ? ACC_C : dt_int_like(q->cdt) ? ACC_I : ACC_F;
    if (q->kind == RD_VAR || q->kind == RD_LOGSUMEXP || q->kind == RD_LOGSUM || q->kind == RD_NANSUM ||
        q->kind == RD_NORM)
        p->acc = ACC_F;
    p->np = q->np;
    p->index_only = q->index_only;
    p->with_index = q->with_index;
    p->std = q->std;
    p->minmax = q->minmax;
    p->correction = q->correction;
    p->var_fill = q->var_fill;
    p->var_fill_value = q->var_fill_value;
    const acl_view *x = acl_exec_in(ex, 0);
    const acl_view *ov[2] = {acl_exec_out(ex, 0), q->o[1] ? acl_exec_out(ex, 1) : NULL};
    /* does each output have the reduced shape (then it is walked with its strides)? */
    bool mapped[2] = {false, false};
    for (int k = 0; k < 2; k++) {
        if (!ov[k]) continue;
        int n = 0;
        bool same = true;
        for (int d = 0; d < x->ndim && same; d++) {
            bool red = q->mask >> d & 1u;
            if (red && !q->keep) continue;
            same = n < ov[k]->ndim && ov[k]->dims[n] == (red ? 1 : x->dims[d]);
            n++;
        }
        mapped[k] = same && n == ov[k]->ndim;
    }
    p->nout = 1;
    p->R = 1;
    int j = 0; /* output dim index */
    for (int d = 0; d < x->ndim; d++) {
        if (q->mask >> d & 1u) {
            p->rd[p->nr] = x->dims[d];
            p->rs[p->nr++] = x->strides[d];
            p->R *= x->dims[d];
            if (q->keep) j++;
        } else {
            p->kd[p->nk] = x->dims[d];
            p->ks[p->nk] = x->strides[d];
            for (int k = 0; k < 2; k++) p->ost[k][p->nk] = mapped[k] ? ov[k]->strides[j] : 0;
            p->nout *= x->dims[d];
            p->nk++;
            j++;
        }
    }
    if (empty_in) { /* nothing is read: kept outputs get the value of an empty reduction */
        p->R = 0;
        p->nr = 0;
    }
    return acl_exec_publish(ex, ws, exo);
}

/* An executor that sets every element of out0 (and out1) to a value: upstream's Fill + ViewCopy of an empty input,
 * and of the degenerate std/var cases. Empty outputs are left out. */
static aclnnStatus rd_fill(int op, aclTensor *o0, const char *n0, double v0, aclTensor *o1, const char *n1, double v1,
                           uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, rd_run, sizeof(rd_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    rd_params *rp = ex->params;
    rp->fill = true;
    aclnnStatus rc = 0;
    if (!acl_tensor_empty(o0)) {
        rp->fill_value[ex->n_out] = v0;
        rc = acl_exec_add_output(ex, o0, n0);
    }
    if (!rc && o1 && !acl_tensor_empty(o1)) {
        rp->fill_value[ex->n_out] = v1;
        rc = acl_exec_add_output(ex, o1, n1);
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

/* ---- the checks the op_api sources share ---- */

#define DT_LIST(name) ACL_DT_LIST_##name
static uint64_t all_mask(uint64_t n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }

static aclnnStatus check_max_dim(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim <= MAXR, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims, more than %d.", name,
                (unsigned long long)t->ndim, MAXR);
    return 0;
}
/* out's dtype must be `dt` (OP_CHECK_DTYPE_NOT_MATCH) */
static aclnnStatus check_dtype_is(const aclTensor *t, aclDataType dt, const char *name) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return 0;
}
/* an aclDataType argument in a support list */
static aclnnStatus check_dtype_arg(aclDataType dt, const aclDataType *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (list[i] == dt) return 0;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s %s (%d) should be in the dtype support list.", name,
                      acl_dtype_name(dt), (int)dt);
}
static aclnnStatus check_can_cast(aclDataType from, aclDataType to, const char *what) {
    ACLNN_CHECK(acl_can_cast(from, to), ACLNN_ERR_PARAM_INVALID, "%s: %s cannot be cast to %s.", what,
                acl_dtype_name(from), acl_dtype_name(to));
    return 0;
}
static aclnnStatus check_public_format(const aclTensor *t, const char *name) {
    ACLNN_CHECK(!acl_format_is_private(t->format), ACLNN_ERR_PARAM_INVALID, "%s format %s is not supported (only ND, NCHW, "
                "NHWC, HWCN, NDHWC, NCDHW).", name, acl_format_name(t->format));
    return 0;
}

enum { DIMS_DUP = 1, DIMS_NONZERO = 2 };
/* Each dim in [-r, r) with r = max(ndim, 1) (a 0-d tensor takes 0 and -1); DIMS_NONZERO: a reduced dim of a tensor
 * with dims must not have size 0; DIMS_DUP: no dim twice. NULL dims: none. The mask of the reduced dims. */
static aclnnStatus check_dims(const aclTensor *x, const aclIntArray *dims, const char *name, int flags,
                             uint64_t *mask) {
    const int64_t r = x->ndim ? (int64_t)x->ndim : 1;
    *mask = 0;
    for (uint64_t i = 0; dims && i < dims->size; i++) {
        const int64_t v = dims->v[i];
        ACLNN_CHECK(v >= -r && v < r, ACLNN_ERR_PARAM_INVALID, "%s[%llu] = %lld must be in the range of [%lld, %lld].",
                    name, (unsigned long long)i, (long long)v, (long long)-r, (long long)(r - 1));
        const int64_t d = v < 0 ? v + r : v;
        ACLNN_CHECK(!(flags & DIMS_NONZERO) || x->ndim == 0 || x->dims[d] != 0, ACLNN_ERR_PARAM_INVALID,
                    "%s[%llu]: expected reduction dim %lld of self to have non-zero size.", name,
                    (unsigned long long)i, (long long)d);
        ACLNN_CHECK(!(flags & DIMS_DUP) || !(*mask >> d & 1u), ACLNN_ERR_PARAM_INVALID,
                    "%s: dim %lld appears multiple times in the list of dims.", name, (long long)d);
        *mask |= 1ull << d;
    }
    return 0;
}
/* one int64 dim in [-r, r) */
static aclnnStatus check_dim(const aclTensor *x, int64_t dim, const char *name, uint64_t *mask) {
    const int64_t r = x->ndim ? (int64_t)x->ndim : 1;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "%s = %lld must be in the range of [%lld, %lld].", name,
                (long long)dim, (long long)-r, (long long)(r - 1));
    *mask = 1ull << (dim < 0 ? dim + r : dim);
    return 0;
}
/* the mask of "every dim" (empty dims lists) */
static uint64_t mask_all(const aclTensor *x) { return all_mask(x->ndim); }

/* the shape of x reduced over mask (1s kept in place with keep); returns the rank */
static int reduced_shape(const aclTensor *x, uint64_t mask, bool keep, int64_t *d) {
    int n = 0;
    for (uint64_t k = 0; k < x->ndim; k++) {
        if (!(mask >> k & 1u)) d[n++] = x->dims[k];
        else if (keep) d[n++] = 1;
    }
    return n;
}
static bool shape_equal(const aclTensor *t, const int64_t *d, int n) {
    if ((int)t->ndim != n) return false;
    for (int k = 0; k < n; k++)
        if (t->dims[k] != d[k]) return false;
    return true;
}
static void shape_text(const int64_t *d, int n, char *buf, size_t cap) {
    size_t len = 0;
    len += (size_t)snprintf(buf, cap, "[");
    for (int k = 0; k < n && len < cap; k++) len += (size_t)snprintf(buf + len, cap - len, k ? ",%lld" : "%lld",
                                                                   (long long)d[k]);
    if (len < cap) snprintf(buf + len, cap - len, "]");
}
/* OP_CHECK_SHAPE_NOT_EQUAL_WITH_EXPECTED_SIZE: exactly the expected shape */
static aclnnStatus check_shape_exact(const aclTensor *t, const int64_t *d, int n, const char *name) {
    if (shape_equal(t, d, n)) return 0;
    char want[256], got[256];
    shape_text(d, n, want, sizeof want);
    acl_shape_str(t, got, sizeof got);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s should be %s.", name, got, want);
}
/* CheckShapeAndScalarSame: the kernel result's shape, or both a single element */
static aclnnStatus check_shape_result(const aclTensor *t, const int64_t *d, int n, const char *name) {
    bool one = true;
    for (int k = 0; k < n; k++) one = one && d[k] == 1;
    if (shape_equal(t, d, n) || (one && acl_tensor_numel(t) == 1)) return 0;
    char want[256], got[256];
    shape_text(d, n, want, sizeof want);
    acl_shape_str(t, got, sizeof got);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s should be %s (the shape of the result).", name, got, want);
}
static const int64_t k_scalar_shape[1] = {1};
/* a copy of a 0-d input into out (ViewCopy): out must hold one element */
static aclnnStatus check_one_element(const aclTensor *t, const char *name) {
    return check_shape_result(t, k_scalar_shape, 0, name);
}
static int64_t reduced_count(const aclTensor *x, uint64_t mask) { /* shapeProd: product of the reduced dims */
    int64_t n = 1;
    for (uint64_t k = 0; k < x->ndim; k++)
        if (mask >> k & 1u) n = (int64_t)((uint64_t)n * (uint64_t)x->dims[k]);
    return n;
}

static rd_req req(const aclTensor *x, uint64_t mask, bool keep, aclTensor *o0, const char *n0, int kind,
                  aclDataType cdt, aclDataType rdt) {
    rd_req q;
    memset(&q, 0, sizeof q);
    q.x = x;
    q.xname = "self";
    q.mask = mask;
    q.keep = keep;
    q.o[0] = o0;
    q.on[0] = n0;
    q.kind = kind;
    q.cdt = cdt;
    q.rdt = rdt;
    return q;
}
/* ReduceMax/ReduceMin compute bool as float32 */
static aclDataType cmp_dt(aclDataType d) { return d == ACL_BOOL ? ACL_FLOAT : d; }

/* ---- sums and means ---- */

static const aclDataType k_sum_empty[] = {ACL_FLOAT16, ACL_FLOAT, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64,
                                          ACL_UINT8, ACL_BOOL, ACL_DOUBLE, ACL_BF16};

aclnnStatus opws_ReduceSum(const aclTensor *self, const aclIntArray *dims, bool keepDims, aclDataType dtype,
                           aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dims, "dims"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(ReduceSum), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(ReduceSum_out), "out"));
    ACL_TRY(check_dtype_arg(dtype, DT_LIST(ReduceSum_dtype), "dtype"));
    ACL_TRY(check_dtype_is(out, dtype, "out"));
    ACL_TRY(check_max_dim(self, "self"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dims, "dims", DIMS_DUP, &mask));
    if (acl_tensor_empty(self)) { /* a sum of nothing: out filled with 0 */
        ACL_TRY(acl_check_dtype_in(out, k_sum_empty, ACL_COUNT_OF(k_sum_empty), "out"));
        return rd_fill(ACL_OP_ReduceSum, out, "out", 0, NULL, NULL, 0, workspaceSize, executor);
    }
    if (self->ndim == 0) { /* the element cast to out's dtype */
        ACL_TRY(check_one_element(out, "out"));
        rd_req q = req(self, 0, false, out, "out", RD_COPY, out->dtype, out->dtype);
        return rd_publish(ACL_OP_ReduceSum, &q, workspaceSize, executor);
    }
    if (dims->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDims, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    /* self is cast to dtype first; a bool dtype is an "any" */
    rd_req q = req(self, mask, keepDims, out, "out", dtype == ACL_BOOL ? RD_ANY : RD_SUM, dtype, dtype);
    return rd_publish(ACL_OP_ReduceSum, &q, workspaceSize, executor);
}

aclnnStatus opws_ReduceNansum(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype,
                              aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(ReduceNansum), "self"));
    ACL_TRY(check_dtype_arg(dtype, DT_LIST(ReduceNansum_dtype), "dtype"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(ReduceNansum_out), "out"));
    ACL_TRY(check_dtype_is(out, dtype, "out"));
    ACL_TRY(check_can_cast(self->dtype, out->dtype, "self -> out"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (acl_tensor_empty(self)) return rd_fill(ACL_OP_ReduceNansum, out, "out", 0, NULL, NULL, 0, workspaceSize, executor);
    if (dim->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDim, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    /* self cast to dtype; integers have no NaN (a plain sum), a bool dtype is an "any" */
    int kind = dtype == ACL_BOOL ? RD_ANY : acl_dt_is_float(dtype) ? RD_NANSUM : RD_SUM;
    rd_req q = req(self, mask, keepDim, out, "out", kind, dtype, dtype);
    return rd_publish(ACL_OP_ReduceNansum, &q, workspaceSize, executor);
}

/* Mean/MeanV2 of an empty input: out (any dtype of this list) filled with NaN */
static const aclDataType k_mean_empty[] = {ACL_FLOAT, ACL_INT32, ACL_INT64, ACL_FLOAT16, ACL_INT16, ACL_INT8,
                                           ACL_UINT8, ACL_DOUBLE, ACL_BF16, ACL_BOOL};

aclnnStatus opws_Mean(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclDataType dtype, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(Mean), "self"));
    ACL_TRY(check_dtype_arg(dtype, DT_LIST(Mean_dtype), "dtype"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(Mean_out), "out"));
    ACL_TRY(check_can_cast(self->dtype, dtype, "self -> dtype"));
    ACL_TRY(check_can_cast(dtype, out->dtype, "dtype -> out"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (acl_tensor_empty(self)) {
        ACL_TRY(acl_check_dtype_in(out, k_mean_empty, ACL_COUNT_OF(k_mean_empty), "out"));
        return rd_fill(ACL_OP_Mean, out, "out", NAN, NULL, NULL, 0, workspaceSize, executor);
    }
    if (dim->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDim, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    /* self cast to dtype, the mean in dtype (integers: the wrapped sum divided, truncating), then cast to out */
    rd_req q = req(self, mask, keepDim, out, "out", self->ndim ? RD_MEAN : RD_COPY, dtype, dtype);
    return rd_publish(ACL_OP_Mean, &q, workspaceSize, executor);
}

aclnnStatus opws_MeanV2(const aclTensor *self, const aclIntArray *dim, bool keepDim, bool noopWithEmptyAxes,
                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(MeanV2), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(MeanV2), "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (acl_tensor_empty(self)) {
        ACL_TRY(acl_check_dtype_in(out, k_mean_empty, ACL_COUNT_OF(k_mean_empty), "out"));
        return rd_fill(ACL_OP_MeanV2, out, "out", NAN, NULL, NULL, 0, workspaceSize, executor);
    }
    const aclDataType dt = self->dtype;
    if (dim->size == 0 && noopWithEmptyAxes) { /* no axes: self copied */
        ACL_TRY(check_shape_result(out, self->dims, (int)self->ndim, "out"));
        rd_req q = req(self, 0, false, out, "out", RD_COPY, dt, dt);
        return rd_publish(ACL_OP_MeanV2, &q, workspaceSize, executor);
    }
    if (dim->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDim, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    rd_req q = req(self, mask, keepDim, out, "out", self->ndim ? RD_MEAN : RD_COPY, dt, dt);
    return rd_publish(ACL_OP_MeanV2, &q, workspaceSize, executor);
}

/* ---- products ---- */

static const aclDataType k_prod_empty[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_INT8, ACL_UINT8, ACL_INT16,
                                           ACL_INT32, ACL_INT64, ACL_BOOL, ACL_BF16};

/* Prod (every dim) and ProdDim (one dim): out's dtype is `dtype`; self is cast to it (to float32 for a bool result
 * and for float16 -> float16) and the product taken there. */
static aclnnStatus prod_common(int op, const aclTensor *self, const int64_t *dim, bool keepDim, aclDataType dtype,
                               aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(Prod), "self"));
    ACL_TRY(check_dtype_is(out, dtype, "out"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    uint64_t mask = mask_all(self);
    if (dim) ACL_TRY(check_dim(self, *dim, "dim", &mask));
    if (acl_tensor_empty(self)) { /* a product of nothing: 1 */
        ACL_TRY(acl_check_dtype_in(out, k_prod_empty, ACL_COUNT_OF(k_prod_empty), "out"));
        return rd_fill(op, out, "out", 1, NULL, NULL, 0, ws, exo);
    }
    if (self->ndim == 0) mask = 0;
    const aclDataType cdt =
        (out->dtype == ACL_BOOL || (self->dtype == ACL_FLOAT16 && dtype == ACL_FLOAT16)) ? ACL_FLOAT : out->dtype;
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, dim ? keepDim : false, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    rd_req q = req(self, mask, dim ? keepDim : false, out, "out", RD_PROD, cdt, cdt);
    return rd_publish(op, &q, ws, exo);
}
aclnnStatus opws_Prod(const aclTensor *self, const aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return prod_common(ACL_OP_Prod, self, NULL, false, dtype, out, workspaceSize, executor);
}
aclnnStatus opws_ProdDim(const aclTensor *self, int64_t dim, bool keepDim, const aclDataType dtype, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    return prod_common(ACL_OP_ProdDim, self, &dim, keepDim, dtype, out, workspaceSize, executor);
}

/* ---- max / min ---- */

/* Amax/Amin and MaxV2: out has self's dtype and exactly the reduced shape; reduced dims must not be empty; an empty
 * self does nothing, a 0-d self is copied. */
static aclnnStatus amax_common(int op, int kind, const aclTensor *self, const aclIntArray *dim, const char *dname,
                               bool keep, bool noop, bool has_noop, aclTensor *out, const aclDataType *list,
                               int nlist, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, dname));
    NN(out, "out");
    ACL_TRY(check_dtype_is(out, self->dtype, "out"));
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, dname, DIMS_DUP | DIMS_NONZERO, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    const bool identity = has_noop && noop && dim->size == 0;
    if (dim->size == 0 && !identity) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keep, shp);
    ACL_TRY(check_shape_exact(out, shp, n, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    if (self->ndim == 0 || identity) {
        rd_req q = req(self, 0, false, out, "out", RD_COPY, self->dtype, self->dtype);
        return rd_publish(op, &q, ws, exo);
    }
    const aclDataType cdt = cmp_dt(self->dtype);
    rd_req q = req(self, mask, keep, out, "out", kind, cdt, cdt);
    return rd_publish(op, &q, ws, exo);
}
aclnnStatus opws_Amax(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    return amax_common(ACL_OP_Amax, RD_MAX, self, dim, "dim", keepDim, false, false, out, DT_LIST(Amax),
                       workspaceSize, executor);
}
aclnnStatus opws_Amin(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    return amax_common(ACL_OP_Amin, RD_MIN, self, dim, "dim", keepDim, false, false, out, DT_LIST(Amin),
                       workspaceSize, executor);
}
aclnnStatus opws_MaxV2(const aclTensor *self, const aclIntArray *dims, bool keepDims, bool noopWithEmptyDims,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return amax_common(ACL_OP_MaxV2, RD_MAX, self, dims, "dims", keepDims, noopWithEmptyDims, true, out,
                       DT_LIST(MaxV2), workspaceSize, executor);
}

/* Max/Min: every dim; out may have another dtype of the list (cast); an empty self or out does nothing */
static aclnnStatus max_all(int op, int kind, const aclTensor *self, aclTensor *out, const aclDataType *list, int n,
                           uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, list, n, "self"));
    ACL_TRY(acl_check_dtype_in(out, list, n, "out"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    ACL_TRY(check_one_element(out, "out"));
    const aclDataType cdt = cmp_dt(self->dtype);
    rd_req q = req(self, mask_all(self), false, out, "out", kind, cdt, cdt);
    return rd_publish(op, &q, ws, exo);
}
aclnnStatus opws_Max(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return max_all(ACL_OP_Max, RD_MAX, self, out, DT_LIST(Max), workspaceSize, executor);
}
aclnnStatus opws_Min(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return max_all(ACL_OP_Min, RD_MIN, self, out, DT_LIST(Min), workspaceSize, executor);
}

/* MaxDim/MinDim: values in self's dtype and their first index (any index dtype: the int32 result is cast) */
static aclnnStatus max_dim(int op, int kind, const aclTensor *self, int64_t dim, bool keep, aclTensor *out,
                           aclTensor *indices, const aclDataType *list, int nlist, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    NN(indices, "indices");
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    ACL_TRY(check_max_dim(indices, "indices"));
    uint64_t mask = 0;
    ACL_TRY(check_dim(self, dim, "dim", &mask));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    if (self->ndim == 0) mask = 0;
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keep, shp);
    ACL_TRY(check_shape_result(indices, shp, n, "indices"));
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    const aclDataType cdt = cmp_dt(self->dtype);
    rd_req q = req(self, mask, keep, out, "out", kind, cdt, cdt);
    q.o[1] = indices;
    q.on[1] = "indices";
    q.with_index = true;
    ACLNN_CHECK(acl_dt_known(indices->dtype), ACLNN_ERR_PARAM_INVALID, "indices dtype %s is not supported.",
                acl_dtype_name(indices->dtype));
    return rd_publish(op, &q, ws, exo);
}
aclnnStatus opws_MaxDim(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, aclTensor *indices,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return max_dim(ACL_OP_MaxDim, RD_MAX, self, dim, keepdim, out, indices, DT_LIST(MaxDim), workspaceSize, executor);
}
aclnnStatus opws_MinDim(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, aclTensor *indices,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return max_dim(ACL_OP_MinDim, RD_MIN, self, dim, keepdim, out, indices, DT_LIST(MinDim), workspaceSize, executor);
}

/* ArgMax: the index of the first maximum (NaN counts as the maximum); out's dtype is not checked (the int32 result
 * is cast to it); a 0-d self is a tensor of one element. */
aclnnStatus opws_ArgMax(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(ArgMax), "self"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    uint64_t mask = 0;
    ACL_TRY(check_dim(self, dim, "dim", &mask));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_ArgMax, workspaceSize, executor);
    int64_t shp[MAXR] = {0};
    int n = self->ndim ? reduced_shape(self, mask, keepdim, shp) : (keepdim ? (shp[0] = 1, 1) : 0);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    ACLNN_CHECK(acl_dt_known(out->dtype), ACLNN_ERR_PARAM_INVALID, "out dtype %s is not supported.",
                acl_dtype_name(out->dtype));
    const aclDataType cdt = self->dtype;
    rd_req q = req(self, self->ndim ? mask : 0, keepdim, out, "out", RD_MAX, cdt, cdt);
    q.index_only = true;
    return rd_publish(ACL_OP_ArgMax, &q, workspaceSize, executor);
}

/* ArgMin: dim checked first; out int32/int64; private formats refused; the reduced dim must not be empty; a 0-d self
 * gives 0. */
aclnnStatus opws_ArgMin(const aclTensor *self, int64_t dim, bool keepdim, aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    uint64_t mask = 0;
    ACL_TRY(check_dim(self, dim, "dim", &mask));
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(ArgMin), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(ArgMin_out), "out"));
    ACL_TRY(check_public_format(self, "self"));
    ACL_TRY(check_public_format(out, "out"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    const int64_t d = dim < 0 ? dim + (int64_t)self->ndim : dim;
    ACLNN_CHECK(self->ndim == 0 || self->dims[d] != 0, ACLNN_ERR_PARAM_INVALID,
                "dim %lld: expected the reduction dim of self to have non-zero size.", (long long)dim);
    if (self->ndim == 0) return rd_fill(ACL_OP_ArgMin, out, "out", 0, NULL, NULL, 0, workspaceSize, executor);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_ArgMin, workspaceSize, executor);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepdim, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    rd_req q = req(self, mask, keepdim, out, "out", RD_MIN, self->dtype, self->dtype);
    q.index_only = true;
    return rd_publish(ACL_OP_ArgMin, &q, workspaceSize, executor);
}

/* ---- all / any ---- */

aclnnStatus opws_All(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(All), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(All_out), "out"));
    ACL_TRY(check_public_format(self, "self"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (dim->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepdim, shp);
    ACL_TRY(check_shape_exact(out, shp, n, "out"));
    if (acl_tensor_empty(self)) return rd_fill(ACL_OP_All, out, "out", 1, NULL, NULL, 0, workspaceSize, executor);
    rd_req q = req(self, mask, keepdim, out, "out", RD_ALL, self->dtype, ACL_BOOL);
    return rd_publish(ACL_OP_All, &q, workspaceSize, executor);
}

/* Any: dims range-checked only (a repeated dim is reduced once) */
aclnnStatus opws_Any(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(Any), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(Any_out), "out"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", 0, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (acl_tensor_empty(self)) return rd_fill(ACL_OP_Any, out, "out", 0, NULL, NULL, 0, workspaceSize, executor);
    if (dim->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepdim, shp);
    ACL_TRY(check_shape_result(out, shp, n, "out"));
    rd_req q = req(self, mask, keepdim, out, "out", RD_ANY, self->dtype, ACL_BOOL);
    return rd_publish(ACL_OP_Any, &q, workspaceSize, executor);
}

/* ---- logsumexp / logsum ---- */

aclnnStatus opws_LogSumExp(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(LogSumExp), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(LogSumExp_out), "out"));
    ACL_TRY(check_can_cast(self->dtype, out->dtype, "self -> out"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    if (dim->size == 0) mask = mask_all(self);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDim, shp);
    ACL_TRY(check_shape_exact(out, shp, n, "out"));
    if (acl_tensor_empty(self))
        return rd_fill(ACL_OP_LogSumExp, out, "out", -INFINITY, NULL, NULL, 0, workspaceSize, executor);
    /* computed in float32 (integers, bool, float16 and bfloat16 are cast to it) */
    rd_req q = req(self, mask, keepDim, out, "out", RD_LOGSUMEXP, ACL_FLOAT, ACL_FLOAT);
    return rd_publish(ACL_OP_LogSumExp, &q, workspaceSize, executor);
}

aclnnStatus opws_ReduceLogSum(const aclTensor *data, const aclIntArray *axes, bool keepDims, bool noopWithEmptyAxes,
                              aclTensor *reduce, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(data, "data");
    ACL_TRY(acl_check_int_array(axes, "axes"));
    NN(reduce, "reduce");
    ACL_TRY(acl_check_dtype_in(data, DT_LIST(ReduceLogSum), "data"));
    ACL_TRY(acl_check_dtype_in(reduce, DT_LIST(ReduceLogSum), "reduce"));
    ACL_TRY(check_max_dim(data, "data"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(data, axes, "axes", DIMS_DUP, &mask));
    if (acl_tensor_empty(data))
        return rd_fill(ACL_OP_ReduceLogSum, reduce, "reduce", 0, NULL, NULL, 0, workspaceSize, executor);
    const aclDataType dt = data->dtype;
    rd_req q = req(data, mask, keepDims, reduce, "reduce", RD_LOGSUM, dt, dt);
    q.xname = "data";
    if (axes->size == 0 && noopWithEmptyAxes) { /* data copied */
        ACL_TRY(check_shape_result(reduce, data->dims, (int)data->ndim, "reduce"));
        q.kind = RD_COPY;
        q.mask = 0;
        return rd_publish(ACL_OP_ReduceLogSum, &q, workspaceSize, executor);
    }
    if (axes->size == 0) q.mask = mask_all(data);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(data, q.mask, keepDims, shp);
    ACL_TRY(check_shape_result(reduce, shp, n, "reduce"));
    return rd_publish(ACL_OP_ReduceLogSum, &q, workspaceSize, executor);
}

/* ---- aminmax ---- */

/* min into minOut, max into maxOut (bool computed as uint8); mask 0 on a 0-d self: the element, twice */
static aclnnStatus minmax_publish(int op, const aclTensor *self, uint64_t mask, bool keep, aclTensor *minOut,
                                  aclTensor *maxOut, uint64_t *ws, aclOpExecutor **exo) {
    const aclDataType cdt = self->dtype == ACL_BOOL ? ACL_UINT8 : self->dtype;
    rd_req q = req(self, mask, keep, minOut, "minOut", RD_MIN, cdt, cdt);
    q.o[1] = maxOut;
    q.on[1] = "maxOut";
    q.minmax = true;
    return rd_publish(op, &q, ws, exo);
}

aclnnStatus opws_Aminmax(const aclTensor *self, const aclIntArray *dim, bool keepDim, aclTensor *minOut,
                         aclTensor *maxOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    NN(minOut, "minOut");
    NN(maxOut, "maxOut");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(Aminmax), "self"));
    ACL_TRY(check_dtype_is(minOut, self->dtype, "minOut"));
    ACL_TRY(check_dtype_is(maxOut, self->dtype, "maxOut"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(minOut, "minOut"));
    ACL_TRY(check_max_dim(maxOut, "maxOut"));
    const int64_t nd = (int64_t)self->ndim;
    ACLNN_CHECK(dim->size == 1 || !acl_tensor_empty(self), ACLNN_ERR_PARAM_INVALID,
                "self must not be empty unless dim holds exactly one dim.");
    if (dim->size == 1) {
        const int64_t a = dim->v[0];
        ACLNN_CHECK(nd != 0 || a == 0 || a == -1, ACLNN_ERR_PARAM_INVALID,
                    "dim %lld must be in the range of [-1, 0].", (long long)a);
        ACLNN_CHECK(nd == 0 || (a >= -nd && a < nd), ACLNN_ERR_PARAM_INVALID,
                    "dim %lld must be in the range of [%lld, %lld].", (long long)a, (long long)-nd, (long long)(nd - 1));
        /* upstream reads the size at the dim as given: a negative dim is never found empty */
        ACLNN_CHECK(nd == 0 || a < 0 || self->dims[a] != 0, ACLNN_ERR_PARAM_INVALID,
                    "dim %lld: expected the reduction dim of self to have non-zero size.", (long long)a);
    }
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Aminmax, workspaceSize, executor);
    if (nd == 0) {
        ACL_TRY(check_one_element(minOut, "minOut"));
        ACL_TRY(check_one_element(maxOut, "maxOut"));
        return minmax_publish(ACL_OP_Aminmax, self, 0, false, minOut, maxOut, workspaceSize, executor);
    }
    /* the kernels' shape inference: no dims keeps every element, several dims may repeat; a dim out of range fails
     * the inference (upstream returns ACLNN_ERR_PARAM_NULLPTR for the missing result) */
    uint64_t mask = 0;
    for (uint64_t i = 0; i < dim->size; i++) {
        const int64_t a = dim->v[i];
        ACLNN_CHECK(a >= -nd && a < nd, ACLNN_ERR_PARAM_NULLPTR, "dim[%llu] = %lld is out of range: no result.",
                    (unsigned long long)i, (long long)a);
        mask |= 1ull << (a < 0 ? a + nd : a);
    }
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDim, shp);
    ACL_TRY(check_shape_result(minOut, shp, n, "minOut"));
    ACL_TRY(check_shape_result(maxOut, shp, n, "maxOut"));
    return minmax_publish(ACL_OP_Aminmax, self, mask, keepDim, minOut, maxOut, workspaceSize, executor);
}

aclnnStatus opws_AminmaxDim(const aclTensor *self, const int64_t dim, bool keepDim, aclTensor *minOut,
                            aclTensor *maxOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(minOut, "minOut");
    NN(maxOut, "maxOut");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(AminmaxDim), "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", minOut, "minOut"));
    ACL_TRY(acl_check_same_dtype(self, "self", maxOut, "maxOut"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(minOut, "minOut"));
    ACL_TRY(check_max_dim(maxOut, "maxOut"));
    uint64_t mask = 0;
    ACL_TRY(check_dim(self, dim, "dim", &mask));
    /* upstream reads the size at the dim as given: a negative dim is never found empty */
    ACLNN_CHECK(dim < 0 || (uint64_t)dim >= self->ndim || self->dims[dim] != 0, ACLNN_ERR_PARAM_INVALID,
                "dim %lld: expected the reduction dim of self to have non-zero size.", (long long)dim);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_AminmaxDim, workspaceSize, executor);
    if (self->ndim == 0) {
        ACL_TRY(check_one_element(minOut, "minOut"));
        ACL_TRY(check_one_element(maxOut, "maxOut"));
        return minmax_publish(ACL_OP_AminmaxDim, self, 0, false, minOut, maxOut, workspaceSize, executor);
    }
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, keepDim, shp);
    ACL_TRY(check_shape_result(minOut, shp, n, "minOut"));
    ACL_TRY(check_shape_result(maxOut, shp, n, "maxOut"));
    return minmax_publish(ACL_OP_AminmaxDim, self, mask, keepDim, minOut, maxOut, workspaceSize, executor);
}

aclnnStatus opws_AminmaxAll(const aclTensor *self, aclTensor *minOut, aclTensor *maxOut, uint64_t *workspaceSize,
                            aclOpExecutor **executor) {
    NN(self, "self");
    NN(minOut, "minOut");
    NN(maxOut, "maxOut");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(AminmaxAll), "self"));
    ACL_TRY(check_dtype_is(minOut, self->dtype, "minOut"));
    ACL_TRY(check_dtype_is(maxOut, self->dtype, "maxOut"));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(minOut, "minOut"));
    ACL_TRY(check_max_dim(maxOut, "maxOut"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_AminmaxAll, workspaceSize, executor);
    ACL_TRY(check_one_element(minOut, "minOut"));
    ACL_TRY(check_one_element(maxOut, "maxOut"));
    if (self->ndim == 0) return minmax_publish(ACL_OP_AminmaxAll, self, 0, false, minOut, maxOut, workspaceSize, executor);
    return minmax_publish(ACL_OP_AminmaxAll, self, mask_all(self), false, minOut, maxOut, workspaceSize, executor);
}

/* ---- variance and standard deviation ---- */

/* Var/VarCorrection/VarMean: the shape of the result (dims NULL or empty: every dim) */
static int var_shape(const aclTensor *self, const aclIntArray *dim, bool keep, int64_t *shp) {
    uint64_t mask = 0;
    if (dim && dim->size) {
        for (uint64_t i = 0; i < dim->size; i++) {
            int64_t a = dim->v[i];
            a = a < 0 ? a + (int64_t)self->ndim : a;
            if (a >= 0) mask |= 1ull << a;
        }
        return reduced_shape(self, mask, keep, shp);
    }
    int n = 0;
    for (uint64_t k = 0; keep && k < self->ndim; k++) shp[n++] = 1;
    return n;
}

typedef struct {
    int op;
    const aclTensor *self;
    uint64_t mask;
    bool keep, std;
    int64_t correction;
    bool fill_rules;                /* shapeProd <= correction: NaN (a single element) or +inf (correction > 1) */
    aclTensor *o0, *o1;             /* var/std and the optional mean */
    const char *n0, *n1;
} var_req;

static aclnnStatus var_publish(const var_req *v, uint64_t *ws, aclOpExecutor **exo) {
    const int64_t prod = v->self->ndim ? reduced_count(v->self, v->mask) : 1;
    bool fill = false;
    double fv = 0;
    if (v->fill_rules && prod == 1 && v->correction >= 1) fill = true, fv = NAN;
    else if (v->fill_rules && v->correction > 1 && prod <= v->correction) fill = true, fv = INFINITY;
    if (fill && !v->o1) return rd_fill(v->op, v->o0, v->n0, fv, NULL, NULL, 0, ws, exo);
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(v->self, v->mask, v->keep, shp);
    if (v->o1) ACL_TRY(check_shape_result(v->o1, shp, n, v->n1));
    if (!fill) ACL_TRY(check_shape_result(v->o0, shp, n, v->n0)); /* a filled var/std output is filled whole */
    const aclDataType dt = v->self->dtype;
    rd_req q = req(v->self, v->mask, v->keep, v->o0, v->n0, RD_VAR, dt, dt);
    q.o[1] = v->o1;
    q.on[1] = v->n1;
    q.std = v->std;
    q.correction = v->correction;
    q.var_fill = fill;
    q.var_fill_value = fv;
    return rd_publish(v->op, &q, ws, exo);
}

/* Std: dim may be NULL; out of the list, self castable to it; the shape checked only when dims are given */
aclnnStatus opws_Std(const aclTensor *self, const aclIntArray *dim, const int64_t correction, bool keepdim,
                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(Std), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(Std), "out"));
    ACL_TRY(check_can_cast(self->dtype, out->dtype, "self -> out"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(out, "out"));
    const bool given = dim && dim->size;
    if (given) {
        int64_t shp[MAXR] = {0};
        int n = reduced_shape(self, mask, keepdim, shp);
        ACL_TRY(check_shape_exact(out, shp, n, "out"));
    }
    if (acl_tensor_empty(self)) return rd_fill(ACL_OP_Std, out, "out", NAN, NULL, NULL, 0, workspaceSize, executor);
    var_req v = {ACL_OP_Std, self, given && self->ndim ? mask : mask_all(self), keepdim, true, correction, true, out,
                 NULL, "out", NULL};
    return var_publish(&v, workspaceSize, executor);
}

static aclnnStatus var_checks(const aclTensor *self, const aclIntArray *dim, bool keepdim, aclTensor *out,
                              uint64_t *mask) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(Var), "self"));
    ACL_TRY(acl_check_dtype_in(out, DT_LIST(Var), "out"));
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, mask));
    ACL_TRY(check_max_dim(self, "self"));
    int64_t shp[ACL_MAX_TENSOR_DIMS] = {0};
    int n = var_shape(self, dim, keepdim, shp);
    ACL_TRY(check_shape_exact(out, shp, n, "out"));
    if (!(dim && dim->size) || self->ndim == 0) *mask = mask_all(self);
    return 0;
}
aclnnStatus opws_Var(const aclTensor *self, const aclIntArray *dim, bool unbiased, bool keepdim, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    uint64_t mask = 0;
    ACL_TRY(var_checks(self, dim, keepdim, out, &mask));
    if (acl_tensor_empty(self)) return rd_fill(ACL_OP_Var, out, "out", NAN, NULL, NULL, 0, workspaceSize, executor);
    var_req v = {ACL_OP_Var, self, mask, keepdim, false, unbiased ? 1 : 0, false, out, NULL, "out", NULL};
    return var_publish(&v, workspaceSize, executor);
}
aclnnStatus opws_VarCorrection(const aclTensor *self, const aclIntArray *dim, int64_t correction, bool keepdim,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    uint64_t mask = 0;
    ACL_TRY(var_checks(self, dim, keepdim, out, &mask));
    if (acl_tensor_empty(self))
        return rd_fill(ACL_OP_VarCorrection, out, "out", NAN, NULL, NULL, 0, workspaceSize, executor);
    var_req v = {ACL_OP_VarCorrection, self, mask, keepdim, false, correction, true, out, NULL, "out", NULL};
    return var_publish(&v, workspaceSize, executor);
}

/* VarMean: meanOut is checked before varOut (upstream's order) */
aclnnStatus opws_VarMean(const aclTensor *self, const aclIntArray *dim, int64_t correction, bool keepdim,
                         aclTensor *varOut, aclTensor *meanOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(meanOut, "meanOut");
    NN(varOut, "varOut");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(VarMean), "self"));
    ACL_TRY(acl_check_dtype_in(meanOut, DT_LIST(VarMean), "meanOut"));
    ACL_TRY(acl_check_dtype_in(varOut, DT_LIST(VarMean), "varOut"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    int64_t shp[ACL_MAX_TENSOR_DIMS] = {0};
    int n = var_shape(self, dim, keepdim, shp);
    ACL_TRY(check_shape_exact(meanOut, shp, n, "meanOut"));
    ACL_TRY(check_shape_exact(varOut, shp, n, "varOut"));
    if (acl_tensor_empty(self))
        return rd_fill(ACL_OP_VarMean, varOut, "varOut", NAN, meanOut, "meanOut", NAN, workspaceSize, executor);
    if (!(dim && dim->size) || self->ndim == 0) mask = mask_all(self);
    var_req v = {ACL_OP_VarMean, self, mask, keepdim, false, correction, true, varOut, meanOut, "varOut", "meanOut"};
    return var_publish(&v, workspaceSize, executor);
}

aclnnStatus opws_StdMeanCorrection(const aclTensor *self, const aclIntArray *dim, int64_t correction, bool keepdim,
                                   aclTensor *stdOut, aclTensor *meanOut, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    NN(self, "self");
    NN(stdOut, "stdOut");
    NN(meanOut, "meanOut");
    ACL_TRY(acl_check_dtype_in(self, DT_LIST(StdMeanCorrection), "self"));
    ACL_TRY(acl_check_dtype_in(stdOut, DT_LIST(StdMeanCorrection), "stdOut"));
    ACL_TRY(acl_check_dtype_in(meanOut, DT_LIST(StdMeanCorrection), "meanOut"));
    ACL_TRY(check_dtype_is(stdOut, self->dtype, "stdOut"));
    ACL_TRY(check_dtype_is(meanOut, self->dtype, "meanOut"));
    uint64_t mask = 0;
    ACL_TRY(check_dims(self, dim, "dim", DIMS_DUP, &mask));
    ACL_TRY(check_max_dim(self, "self"));
    ACL_TRY(check_max_dim(stdOut, "stdOut"));
    ACL_TRY(check_max_dim(meanOut, "meanOut"));
    const bool given = dim && dim->size;
    if (given) {
        int64_t shp[MAXR] = {0};
        int n = reduced_shape(self, mask, keepdim, shp);
        ACL_TRY(check_shape_exact(stdOut, shp, n, "stdOut"));
        ACL_TRY(check_shape_exact(meanOut, shp, n, "meanOut"));
    }
    if (acl_tensor_empty(self))
        return rd_fill(ACL_OP_StdMeanCorrection, stdOut, "stdOut", NAN, meanOut, "meanOut", NAN, workspaceSize,
                       executor);
    if (!given || self->ndim == 0) mask = mask_all(self);
    var_req v = {ACL_OP_StdMeanCorrection, self, mask, keepdim, true, correction, true, stdOut, meanOut, "stdOut",
                 "meanOut"};
    return var_publish(&v, workspaceSize, executor);
}

/* ---- global pooling: the spatial dims (2..) of an N, C, ... tensor, kept as 1s ---- */

static aclnnStatus global_pool(int op, int kind, const aclTensor *self, aclTensor *out, const aclDataType *list,
                               int nlist, bool exact, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    ACL_TRY(acl_check_dtype_in(out, list, nlist, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "out format %s must be self's format %s.",
                acl_format_name(out->format), acl_format_name(self->format));
    ACLNN_CHECK(self->format == ACL_FORMAT_ND || self->format == ACL_FORMAT_NCHW || self->format == ACL_FORMAT_NCDHW,
                ACLNN_ERR_PARAM_INVALID, "self format %s is not supported (ND, NCHW, NCDHW).",
                acl_format_name(self->format));
    ACLNN_CHECK(self->ndim >= 4, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, fewer than 4.",
                (unsigned long long)self->ndim);
    ACL_TRY(check_max_dim(self, "self"));
    ACLNN_CHECK(out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "out must have %llu dims like self, not %llu.",
                (unsigned long long)self->ndim, (unsigned long long)out->ndim);
    const uint64_t mask = mask_all(self) & ~3ull;
    int64_t shp[MAXR] = {0};
    int n = reduced_shape(self, mask, true, shp);
    if (exact) ACL_TRY(check_shape_exact(out, shp, n, "out"));
    else ACL_TRY(check_shape_result(out, shp, n, "out"));
    /* no empty-input early return upstream: an empty N or C leaves nothing to write; an empty spatial extent gives
     * the mean of nothing (NaN), and the max of nothing leaves out as it is (no value to write) */
    if (acl_tensor_empty(out) || (kind == RD_MAX && acl_tensor_empty(self))) return acl_exec_noop(op, ws, exo);
    rd_req q = req(self, mask, true, out, "out", kind, self->dtype, self->dtype);
    return rd_publish(op, &q, ws, exo);
}
aclnnStatus opws_GlobalMaxPool(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    return global_pool(ACL_OP_GlobalMaxPool, RD_MAX, self, out, DT_LIST(GlobalMaxPool), true, workspaceSize, executor);
}
aclnnStatus opws_GlobalAveragePool(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    return global_pool(ACL_OP_GlobalAveragePool, RD_MEAN, self, out, DT_LIST(GlobalAveragePool), false, workspaceSize,
                       executor);
}

/* ---- the p-norm (ops-nn aclnnNorm, libsrc/ops/norm.c): |x| reduced as RD_NORM in double, computed from x cast to
 * float32, rounded to `rdt`, then converted to out's dtype. An empty x fills out with 0. ---- */
aclnnStatus acl_reduce_norm(int op, const aclTensor *x, uint64_t mask, bool keep, aclTensor *out, double p,
                            aclDataType rdt, uint64_t *ws, aclOpExecutor **exo) {
    if (acl_tensor_empty(x)) return rd_fill(op, out, "out", 0, NULL, NULL, 0, ws, exo);
    rd_req q = req(x, mask, keep, out, "out", RD_NORM, ACL_FLOAT, rdt);
    q.np = p;
    return rd_publish(op, &q, ws, exo);
}
