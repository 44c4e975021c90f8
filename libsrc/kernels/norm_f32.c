/* fp32 row kernels of the norm family (norm_f32.h). */
#include "kernels/norm_f32.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "common/half_rows.h"
#include "common/nan_order.h"
#include "common/parallel.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define NF_L 16       /* lanes of every row reduction */
#define NF_CHUNK 1024 /* elements summed in the inner lanes before they fold into the outer ones */

/* The 16 lanes are held as NF_K = 16 / NF_W vectors of NF_W fp32 lanes, NF_W the level's register width (16 at
 * AVX-512, 8 at AVX2, 4 in the portable build: SSE2 / NEON); GCC lowers a generic vector wider than the target's
 * registers through the stack, so each level names its own width. Lane l of the 16 is lane l % NF_W of vector
 * l / NF_W: element i of a row still adds into lane i % 16, so every level computes the same sums. */
typedef float nf_v4 __attribute__((vector_size(16)));
typedef float nf_v8 __attribute__((vector_size(32)));
typedef float nf_v16 __attribute__((vector_size(64)));
typedef uint32_t nf_u4 __attribute__((vector_size(16)));
typedef uint32_t nf_u8 __attribute__((vector_size(32)));
typedef uint32_t nf_u16 __attribute__((vector_size(64)));
typedef int32_t nf_i4 __attribute__((vector_size(16)));
typedef int32_t nf_i8 __attribute__((vector_size(32)));
typedef int32_t nf_i16 __attribute__((vector_size(64)));
typedef uint16_t nf_h4 __attribute__((vector_size(8)));
typedef uint16_t nf_h8 __attribute__((vector_size(16)));
typedef uint16_t nf_h16 __attribute__((vector_size(32)));
#define NF_CAT_(a, b) a##b
#define NF_CAT(a, b) NF_CAT_(a, b)
#define NF_VT NF_CAT(nf_v, NF_W) /* the level's vector types */
#define NF_UT NF_CAT(nf_u, NF_W)
#define NF_IT NF_CAT(nf_i, NF_W)
#define NF_HT NF_CAT(nf_h, NF_W)
#define NF_K (NF_L / NF_W)
#define NF_UNROLL _Pragma("GCC unroll 16")
#define NF_SPLAT(x) ((NF_VT){0} + (x))
#define nf_ld(p)                                                                                                     \
    __extension__({                                                                                                  \
        NF_VT v_;                                                                                                    \
        memcpy(&v_, (p), sizeof v_);                                                                                 \
        v_;                                                                                                          \
    })
static inline __attribute__((always_inline)) float nf_tree(float *a) {
    for (int w = NF_L / 2; w; w >>= 1)
        for (int l = 0; l < w; l++) a[l] += a[l + w];
    return a[0];
}

/* S1 = sum of E1 (and S2 of E2) over i < N. VE: the term of the NF_W elements from index b_ + k_ * NF_W (V(p)
 * loads them, VH(p) widens them from bf16), E: the scalar term of element i. Lane l adds the elements i = l
 * (mod 16) of each 1024-element chunk, the chunks fold into the outer lanes in order, the tail adds into outer
 * lanes 0.. directly, then the tree. */
#define NF_V(p) nf_ld((p) + b_ + k_ * NF_W)
#define NF_VH(p) NF_FN(ldh)((p) + b_ + k_ * NF_W)
#define NF_REDUCE2_(P, N, S1, VE1, E1, S2, VE2, E2)                                                                   \
    do {                                                                                                             \
        NF_VT o1_[NF_K], o2_[NF_K];                                                                                  \
        NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) o1_[k_] = o2_[k_] = (NF_VT){0};                                  \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            NF_VT a1_[NF_K], a2_[NF_K];                                                                              \
            NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) a1_[k_] = a2_[k_] = (NF_VT){0};                              \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L) {                                                                            \
                NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) {                                                        \
                    a1_[k_] += (VE1);                                                                                \
                    a2_[k_] += (VE2);                                                                                \
                }                                                                                                    \
            }                                                                                                        \
            NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) {                                                            \
                o1_[k_] += a1_[k_];                                                                                  \
                o2_[k_] += a2_[k_];                                                                                  \
            }                                                                                                        \
        }                                                                                                            \
        float f1_[NF_L], f2_[NF_L];                                                                                  \
        memcpy(f1_, o1_, sizeof f1_);                                                                                \
        memcpy(f2_, o2_, sizeof f2_);                                                                                \
        if (P) {                                                                                                     \
            NF_FN(unperm)(f1_);                                                                                      \
            NF_FN(unperm)(f2_);                                                                                      \
        }                                                                                                            \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            f1_[l_] += (E1);                                                                                         \
            f2_[l_] += (E2);                                                                                         \
        }                                                                                                            \
        S1 = nf_tree(f1_);                                                                                           \
        S2 = nf_tree(f2_);                                                                                           \
    } while (0)

#define NF_REDUCE1_(P, N, S1, VE1, E1)                                                                                \
    do {                                                                                                             \
        NF_VT o1_[NF_K];                                                                                             \
        NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) o1_[k_] = (NF_VT){0};                                            \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            NF_VT a1_[NF_K];                                                                                         \
            NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) a1_[k_] = (NF_VT){0};                                        \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L) {                                                                            \
                NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) a1_[k_] += (VE1);                                        \
            }                                                                                                        \
            NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) o1_[k_] += a1_[k_];                                          \
        }                                                                                                            \
        float f1_[NF_L];                                                                                             \
        memcpy(f1_, o1_, sizeof f1_);                                                                                \
        if (P) NF_FN(unperm)(f1_);                                                                                   \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            f1_[l_] += (E1);                                                                                         \
        }                                                                                                            \
        S1 = nf_tree(f1_);                                                                                           \
    } while (0)

#define NF_REDUCE1(...) NF_REDUCE1_(0, __VA_ARGS__)
#define NF_REDUCE2(...) NF_REDUCE2_(0, __VA_ARGS__)

/* The same with the terms VE of VHP loads: the level's cheapest widening of 16 bf16, whose vector k_ holds the
 * elements NF_PE(k_, 0..NF_W) of the step (SSE2 / AVX2: the even and the odd elements of a 16 or 32-byte load, by
 * one shift or one mask); the lanes are put back in element order before the tail and the tree, so each lane adds
 * the same elements in the same order as above: the same sums. Every term must be elementwise over VHP loads and
 * splats (no NF_V of an fp32 row). */
#define NF_VHP(p) NF_FN(ldhp)((p) + b_, k_)
#define NF_REDUCE1P(...) NF_REDUCE1_(1, __VA_ARGS__)
#define NF_REDUCE2P(...) NF_REDUCE2_(1, __VA_ARGS__)

/* out[i] = E for i < N into the BF16 row O: 16 elements a step as VE (the NF_K vectors k_ of the step b_), rounded
 * in registers by the level's NF_FN(sth) and stored, the tail by the element function; VE and E compute the same
 * operations, so the bytes are those of E rounded by acl_f32_to_bf16 */
#define NF_EMITH_(ST, O, N, VE, E, P1, P2)                                                                           \
    do {                                                                                                             \
        uint16_t *oh_ = (O);                                                                                         \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        for (; b_ < full_; b_ += NF_L) {                                                                             \
            NF_VT r_[NF_K];                                                                                          \
            NF_UNROLL for (int k_ = 0; k_ < NF_K; k_++) r_[k_] = (VE);                                               \
            NF_FN(ST)(oh_ + b_, r_);                                                                                 \
            if (P1) __builtin_prefetch((P1) + b_, 0, 3);                                                             \
            if (P2) __builtin_prefetch((P2) + b_, 0, 3);                                                             \
        }                                                                                                            \
        for (int64_t i = b_; i < (N); i++) oh_[i] = acl_f32_to_bf16_bf(E);                                           \
    } while (0)
#define NF_EMITH(O, N, VE, E) NF_EMITH_(sth, O, N, VE, E, (const uint16_t *)NULL, (const uint16_t *)NULL)
/* VE over VHP loads, its vectors stored back in element order */
#define NF_EMITHP(O, N, VE, E) NF_EMITH_(sthp, O, N, VE, E, (const uint16_t *)NULL, (const uint16_t *)NULL)
/* the same, prefetching the BF16 rows P1 and P2 (NULL: none) at the same offsets: the next row's bytes come from
 * memory while this row computes (each row's first pass would otherwise wait for them) */
#define NF_EMITHPF(O, N, VE, E, P1, P2) NF_EMITH_(sthp, O, N, VE, E, P1, P2)

/* ---- row access: a FLOAT row is used in place, a half row widened into scratch */

static inline __attribute__((always_inline)) const float *row_in(nf_buf b, int64_t off, int64_t n, float *scr) {
    switch (b.dt) {
    case ACL_FLOAT: return (const float *)b.p + off;
    case ACL_FLOAT16: acl_row_f16_to_f32(scr, (const uint16_t *)b.p + off, n); return scr;
    default: acl_row_bf16_to_f32(scr, (const uint16_t *)b.p + off, n); return scr;
    }
}
/* where to compute an output row: the FLOAT row itself, else scratch (then row_put) */
static inline __attribute__((always_inline)) float *row_dst(nf_buf b, int64_t off, float *scr) {
    return b.dt == ACL_FLOAT ? (float *)b.p + off : scr;
}
static inline __attribute__((always_inline)) void row_put(nf_buf b, int64_t off, int64_t n, const float *src) {
    switch (b.dt) {
    case ACL_FLOAT:
        if ((const float *)b.p + off != src) memcpy((float *)b.p + off, src, sizeof(float) * (size_t)n);
        break;
    case ACL_FLOAT16: acl_row_f32_to_f16((uint16_t *)b.p + off, src, n); break;
    default: acl_row_f32_to_bf16((uint16_t *)b.p + off, src, n); break;
    }
}

static inline int nf_tid(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ------------------------------------------------------------------ the level variants */

typedef struct {
    nf_buf x, x2, y, y2, xs;
    int64_t n;
    const float *w, *b;
    double eps;
    bool centre;
    float *mean, *rstd;
    int64_t rows;
    const float *w0, *b0; /* w / b in element order (w / b may be in a level's lane order) */
    bool ok;              /* w and b finite */
} nf_fwd_ctx;
typedef struct {
    nf_buf dy, x, dx;
    int64_t rows, n, rpb;
    const float *mean, *rstd, *w;
    float *pw; /* per block: n sums of dy * xhat, then n of dy (NULL: no weight gradients) */
    const float *w0; /* w in element order */
    bool ok;         /* w finite */
    int pos[NF_L];   /* the partials' position of element l of a full 16-element step */
} nf_bwd_ctx;
typedef struct {
    nf_buf x, y;
    int64_t S, G, cg;
    const float *gamma, *beta;
    double eps, scale;
    bool act;
    float *mean, *rstd;
    int64_t rows;
    bool ok; /* gamma and beta finite */
} nf_gfwd_ctx;
typedef struct {
    nf_buf dy, x, dx;
    int64_t C, S, G, cg, rows;
    const float *mean, *rstd, *gamma;
    double *sd; /* per (n, c): sum dy, sum dy * xhat */
    bool ok;    /* gamma finite */
} nf_gbwd_ctx;


/* ------------------------------------------------------------------ NaN rows in the reference order
 *
 * A row whose statistics or sums are not finite, or whose weights are not (a per-call flag), may hold NaNs that
 * met in an addition or product: which payload survives is then the compiled operand order, different at each
 * level. Such rows (only they) are computed here instead, at every level, by scalar code in the kernels' written
 * order with common/nan_order.h's rule: the same lanes, chunks and tree, so their finite results are the kernels'
 * bits too. (A row with finite statistics and weights has finite inputs: a NaN there is the default NaN of an
 * overflow's Inf * 0, the same bits in any order.) */
static inline int nf_fin(float v) { return fabsf(v) <= 3.40282347e38f; }
static inline int nf_all_fin(const float *v, int64_t n) {
    int ok = 1;
    if (v)
        for (int64_t i = 0; i < n; i++) ok &= nf_fin(v[i]);
    return ok;
}
static inline int nf_all_fin_bf16(const uint16_t *h, int64_t n) {
    int ok = 1;
    for (int64_t i = 0; i < n; i++) ok &= (h[i] & 0x7f80) != 0x7f80;
    return ok;
}
static inline float nf_get(nf_buf b, int64_t i) {
    switch (b.dt) {
    case ACL_FLOAT: return ((const float *)b.p)[i];
    case ACL_FLOAT16: return acl_f16_to_f32(((const uint16_t *)b.p)[i]);
    default: return acl_bf16_to_f32(((const uint16_t *)b.p)[i]);
    }
}
static inline void nf_set(nf_buf b, int64_t i, float v) {
    switch (b.dt) {
    case ACL_FLOAT: ((float *)b.p)[i] = v; break;
    case ACL_FLOAT16: ((uint16_t *)b.p)[i] = acl_f32_to_f16(v); break;
    default: ((uint16_t *)b.p)[i] = acl_f32_to_bf16_bf(v); break;
    }
}
/* S = the sum of E (of index i) for i < N in NF_REDUCE's order */
#define NF_REF_SUM(N, S, E)                                                                                          \
    do {                                                                                                             \
        float o_[NF_L] = {0};                                                                                        \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            float a_[NF_L] = {0};                                                                                    \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L)                                                                              \
                for (int l_ = 0; l_ < NF_L; l_++) {                                                                  \
                    const int64_t i = b_ + l_;                                                                       \
                    a_[l_] = no_add_f(a_[l_], (E));                                                                  \
                }                                                                                                    \
            for (int l_ = 0; l_ < NF_L; l_++) o_[l_] = no_add_f(o_[l_], a_[l_]);                                     \
        }                                                                                                            \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            o_[l_] = no_add_f(o_[l_], (E));                                                                          \
        }                                                                                                            \
        for (int w_ = NF_L / 2; w_; w_ >>= 1)                                                                        \
            for (int l_ = 0; l_ < w_; l_++) o_[l_] = no_add_f(o_[l_], o_[l_ + w_]);                                  \
        S = o_[0];                                                                                                   \
    } while (0)

/* fwd_row / fwd_row_bf16 of row r */
static __attribute__((noinline, cold)) void nf_ref_fwd(const nf_fwd_ctx *c, int64_t r) {
    const int64_t n = c->n, off = r * n;
#define NF_XV(i) (c->x2.p ? no_add_f(nf_get(c->x, off + (i)), nf_get(c->x2, off + (i))) : nf_get(c->x, off + (i)))
    float m = 0, s;
    if (c->centre) {
        NF_REF_SUM(n, s, NF_XV(i));
        m = s / (float)n;
        NF_REF_SUM(n, s, no_mul_f(no_sub_f(NF_XV(i), m), no_sub_f(NF_XV(i), m)));
    } else {
        NF_REF_SUM(n, s, no_mul_f(NF_XV(i), NF_XV(i)));
    }
    const float var = s / (float)n;
    const float rs = (float)(1.0 / sqrt((double)var + c->eps));
    if (c->mean) c->mean[r] = m;
    if (c->rstd) c->rstd[r] = rs;
    for (int64_t j = 0; j < n; j++) { /* y may be x: each element read before it is written */
        const float xv = NF_XV(j);
        float v = no_mul_f(no_sub_f(xv, m), rs);
        if (c->w0) v = no_mul_f(v, c->w0[j]);
        if (c->b0) v = no_add_f(v, c->b0[j]);
        if (c->y.p) nf_set(c->y, off + j, v);
        if (c->y2.p) nf_set(c->y2, off + j, v);
        if (c->xs.p) nf_set(c->xs, off + j, xv);
    }
#undef NF_XV
}

/* the partials' update of row r (bw / bb: its block's, positions c->pos within each full step) */
static void nf_ref_bwd_parts(const nf_bwd_ctx *c, int64_t r, float *bw, float *bb) {
    const int64_t n = c->n, off = r * n, full = n / NF_L * NF_L;
    const float m = c->mean ? c->mean[r] : 0.0f, rs = c->rstd[r];
    for (int64_t j = 0; j < n; j++) {
        const int64_t p = j < full ? j - j % NF_L + c->pos[j % NF_L] : j;
        const float d = nf_get(c->dy, off + j);
        bw[p] = no_add_f(bw[p], no_mul_f(d, no_mul_f(no_sub_f(nf_get(c->x, off + j), m), rs)));
        bb[p] = no_add_f(bb[p], d);
    }
}
/* bwd_block's row r: the partials (bw non-NULL) and dx */
static __attribute__((noinline, cold)) void nf_ref_bwd(const nf_bwd_ctx *c, int64_t r, float *bw, float *bb) {
    const int64_t n = c->n, off = r * n;
    if (bw) nf_ref_bwd_parts(c, r, bw, bb);
    if (!c->dx.p) return;
    const float m = c->mean ? c->mean[r] : 0.0f, rs = c->rstd[r], invn = 1.0f / (float)n;
#define NF_G(i) (c->w0 ? no_mul_f(nf_get(c->dy, off + (i)), c->w0[i]) : nf_get(c->dy, off + (i)))
    float sg, sgx;
    NF_REF_SUM(n, sg, NF_G(i));
    NF_REF_SUM(n, sgx, no_mul_f(NF_G(i), no_sub_f(nf_get(c->x, off + i), m)));
    const float mg = c->mean ? no_mul_f(sg, invn) : 0.0f, mgx = no_mul_f(no_mul_f(sgx, rs), invn);
    for (int64_t j = 0; j < n; j++) {
        const float xh = no_mul_f(no_sub_f(nf_get(c->x, off + j), m), rs);
        nf_set(c->dx, off + j, no_mul_f(rs, no_sub_f(no_sub_f(NF_G(j), mg), no_mul_f(xh, mgx))));
    }
#undef NF_G
}
/* a block's partials again from its first row through row r (a row found unclean after its fused update) */
static __attribute__((noinline, cold)) void nf_ref_bwd_replay(const nf_bwd_ctx *c, int64_t k, int64_t r, float *bw,
                                                              float *bb) {
    memset(bw, 0, sizeof(float) * (size_t)c->n);
    memset(bb, 0, sizeof(float) * (size_t)c->n);
    for (int64_t q = k * c->rpb; q < r; q++) nf_ref_bwd_parts(c, q, bw, bb);
}

/* gfwd_row / gfwd_row_bf16 of block ng */
static __attribute__((noinline, cold)) void nf_ref_gfwd(const nf_gfwd_ctx *c, int64_t ng) {
    const int64_t S = c->S, cg = c->cg, len = cg * S, off = ng * len, c0 = (ng % c->G) * cg;
    float s;
    NF_REF_SUM(len, s, nf_get(c->x, off + i));
    const float m = s / (float)len;
    NF_REF_SUM(len, s, no_mul_f(no_sub_f(nf_get(c->x, off + i), m), no_sub_f(nf_get(c->x, off + i), m)));
    const float var = s / (float)len;
    const float rs = (float)(1.0 / sqrt((double)var + c->eps));
    c->mean[ng] = m;
    c->rstd[ng] = rs;
    for (int64_t ch = 0; ch < cg; ch++) {
        const float k = c->gamma ? no_mul_f(rs, c->gamma[c0 + ch]) : rs, o = c->beta ? c->beta[c0 + ch] : 0.0f;
        for (int64_t q = 0; q < S; q++) {
            const int64_t i = off + ch * S + q;
            float y = no_add_f(no_mul_f(no_sub_f(nf_get(c->x, i), m), k), o);
            if (c->act) y = (float)((double)y / (1.0 + exp(-c->scale * y)));
            nf_set(c->y, i, y);
        }
    }
}

/* gbwd_row / gbwd_row_bf16 of block ng (its sd entries and dx) */
static __attribute__((noinline, cold)) void nf_ref_gbwd(const nf_gbwd_ctx *c, int64_t ng) {
    const int64_t S = c->S, cg = c->cg, len = cg * S, off = ng * len, c0 = (ng % c->G) * cg, n0 = ng / c->G;
    const float m = c->mean[ng], rs = c->rstd[ng];
    double sg = 0, sgx = 0;
    for (int64_t ch = 0; ch < cg; ch++) {
        const int64_t o = off + ch * S;
        float a, q;
        NF_REF_SUM(S, a, nf_get(c->dy, o + i));
        NF_REF_SUM(S, q, no_mul_f(nf_get(c->dy, o + i), no_sub_f(nf_get(c->x, o + i), m)));
        const float gm = c->gamma ? c->gamma[c0 + ch] : 1.0f;
        c->sd[2 * (n0 * c->C + c0 + ch)] = a;
        c->sd[2 * (n0 * c->C + c0 + ch) + 1] = no_mul_d((double)q, (double)rs);
        sg = no_add_d(sg, no_mul_d((double)gm, (double)a));
        sgx = no_add_d(sgx, no_mul_d((double)gm, (double)q));
    }
    if (!c->dx.p) return;
    const float mg = (float)(sg / (double)len), mgx = (float)(no_mul_d(sgx, (double)rs) / (double)len);
    for (int64_t ch = 0; ch < cg; ch++) {
        const float gm = c->gamma ? c->gamma[c0 + ch] : 1.0f;
        for (int64_t q = 0; q < S; q++) {
            const int64_t i = off + ch * S + q;
            const float xh = no_mul_f(no_sub_f(nf_get(c->x, i), m), rs);
            nf_set(c->dx, i, no_mul_f(rs, no_sub_f(no_sub_f(no_mul_f(nf_get(c->dy, i), gm), mg), no_mul_f(xh, mgx))));
        }
    }
}

/* NF_ISA: 0 portable without SSE2 intrinsics, 1 portable x86-64 (SSE2), 2 AVX2, 3 AVX-512 */
#define NF_ATTR
#define NF_FN(name) nf_##name##_portable
#define NF_W 4
#if defined(__SSE2__) && defined(__x86_64__) && !defined(PYACLNN_NO_SSE2_ROWS) /* (as common/half_rows.h) */
#define NF_ISA 1
#else
#define NF_ISA 0
#endif
#include "kernels/norm_f32.inc"
#undef NF_ATTR
#undef NF_FN
#undef NF_W
#undef NF_ISA
#undef NF_PE

#if defined(__x86_64__) && defined(__GNUC__)
#define NF_X86 1
#define NF_ATTR __attribute__((target("avx2")))
#define NF_FN(name) nf_##name##_avx2
#define NF_W 8
#define NF_ISA 2
#include "kernels/norm_f32.inc"
#undef NF_ATTR
#undef NF_FN
#undef NF_W
#undef NF_ISA
#undef NF_PE
#define NF_ATTR __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq")))
#define NF_FN(name) nf_##name##_avx512
#define NF_W 16
#define NF_ISA 3
#include "kernels/norm_f32.inc"
#undef NF_ATTR
#undef NF_FN
#undef NF_W
#undef NF_ISA
#undef NF_PE
#endif

typedef void (*nf_fwd_fn)(const nf_fwd_ctx *, int64_t, float *);
typedef void (*nf_bwd_fn)(const nf_bwd_ctx *, int64_t, float *);
typedef void (*nf_gfwd_fn)(const nf_gfwd_ctx *, int64_t, float *);
typedef void (*nf_gbwd_fn)(const nf_gbwd_ctx *, int64_t, float *);
typedef void (*nf_perm_fn)(float *, const float *, int64_t);
typedef void (*nf_pe_fn)(int *);

/* the level's variant of a row function */
#ifdef NF_X86
#define NF_PICK(name)                                                                                                \
    (acl_simd_level() >= ACL_SIMD_AVX512 ? nf_##name##_avx512                                                        \
     : acl_simd_level() >= ACL_SIMD_AVX2 ? nf_##name##_avx2                                                          \
                                         : nf_##name##_portable)
#else
#define NF_PICK(name) nf_##name##_portable
#endif

/* the per-thread scratch: slices of a multiple of 16 floats from a 64-byte aligned block (the BF16 kernels may
 * load their widened rows back with aligned vector loads) */
static size_t nf_per(size_t floats) { return (floats + 16) / 16 * 16; }
static float *nf_scratch(size_t per, int nt) {
    return aligned_alloc(64, sizeof(float) * per * (size_t)(nt > 0 ? nt : 1));
}

/* ------------------------------------------------------------------ rows */

int nf_rows_fwd(nf_buf x, nf_buf x2, int64_t rows, int64_t n, const float *w, const float *b, double eps, bool centre,
                nf_buf y, nf_buf y2, nf_buf xs, float *mean, float *rstd) {
    nf_fwd_ctx c = {x, x2, y, y2, xs, n, w, b, eps, centre, mean, rstd, rows, w, b, false};
    c.ok = nf_all_fin(w, n) && nf_all_fin(b, n);
    /* BF16 in and out (no second input or output): read and rounded in registers, w / b in the level's VHP order */
    const bool hb = x.dt == ACL_BF16 && y.p && y.dt == ACL_BF16 && !x2.p && !y2.p && !xs.p;
    const nf_fwd_fn fn = hb ? NF_PICK(fwd_row_bf16) : NF_PICK(fwd_row);
    float *wb = NULL;
    if (hb && (w || b)) {
        const nf_perm_fn perm = NF_PICK(perm);
        wb = nf_scratch(nf_per((size_t)n), 2); /* aligned: the kernels load w / b with aligned vector loads */
        if (!wb) return -1;
        if (w) perm(wb, w, n);
        if (b) perm(wb + nf_per((size_t)n), b, n);
        c.w = w ? wb : NULL;
        c.b = b ? wb + nf_per((size_t)n) : NULL;
    }
    const int nt = acl_max_threads();
    const size_t per = nf_per((size_t)4 * (size_t)n);
    float *scratch = nf_scratch(per, nt);
    if (!scratch) {
        free(wb);
        return -1;
    }
    const bool par = acl_parallel_worth(rows * n); /* serial: slot 0 (inside a caller's team too) */
    ACL_FOR(par, r, 0, rows, fn(&c, r, scratch + per * (size_t)(par ? nf_tid() : 0)););
    free(scratch);
    free(wb);
    return 0;
}

/* the fixed row blocks of the weight gradients: a function of the shape only */
static int64_t grad_blocks(int64_t rows, int64_t n) {
    int64_t nb = rows < 64 ? rows : 64;
    const int64_t cap = ((int64_t)1 << 23) / (n > 0 ? n : 1); /* at most 2 x 32 MiB of partials */
    if (nb > cap) nb = cap;
    return nb > 0 ? nb : 1;
}

int nf_rows_bwd(nf_buf dy, nf_buf x, int64_t rows, int64_t n, const float *mean, const float *rstd, const float *w,
                nf_buf dx, double *dw, double *db) {
    const bool parts = dw || db;
    /* without weight gradients every row is its own block */
    const int64_t nb = parts ? grad_blocks(rows, n) : rows, rpb = (rows + nb - 1) / nb;
    const int nt = acl_max_threads();
    const size_t per = nf_per((size_t)3 * (size_t)n);
    float *scratch = nf_scratch(per, nt);
    float *pw = parts ? calloc((size_t)(2 * nb) * (size_t)n + 1, sizeof(float)) : NULL;
    if (!scratch || (parts && !pw)) {
        free(scratch);
        free(pw);
        return -1;
    }
    nf_bwd_ctx c = {dy, x, dx, rows, n, rpb, mean, rstd, w, pw, w, false, {0}};
    c.ok = nf_all_fin(w, n);
    const bool hb = dy.dt == ACL_BF16 && x.dt == ACL_BF16 && (!dx.p || dx.dt == ACL_BF16);
    const nf_bwd_fn fn = hb ? NF_PICK(bwd_block_bf16) : NF_PICK(bwd_block);
    /* the BF16 blocks take w and keep their partials in the level's VHP lane order: pe[l] is the element of a
     * 16-element step held at position l */
    int pe[NF_L];
    for (int l = 0; l < NF_L; l++) pe[l] = l;
    float *wp = NULL;
    if (hb) {
        NF_PICK(pe_table)(pe);
        if (w) {
            wp = nf_scratch(nf_per((size_t)n), 1); /* aligned (the kernels' aligned vector loads) */
            if (!wp) {
                free(scratch);
                free(pw);
                return -1;
            }
            NF_PICK(perm)(wp, w, n);
            c.w = wp;
        }
    }
    for (int l = 0; l < NF_L; l++) c.pos[pe[l]] = l;
    const bool par = acl_parallel_worth(rows * n); /* serial: slot 0 (inside a caller's team too) */
    ACL_FOR(par, k, 0, nb, fn(&c, k, scratch + per * (size_t)(par ? nf_tid() : 0)););
    if (parts) {
        const int64_t full = n / NF_L * NF_L;
        ACL_FOR(acl_parallel_worth(nb * n), j, 0, n, {
            double a = 0, q = 0;
            for (int64_t k = 0; k < nb; k++) {
                a += pw[(size_t)(2 * k) * (size_t)n + (size_t)j];
                q += pw[(size_t)(2 * k + 1) * (size_t)n + (size_t)j];
            }
            const int64_t e = j < full ? j - j % NF_L + pe[j % NF_L] : j; /* the column position j holds */
            if (dw) dw[e] = a;
            if (db) db[e] = q;
        });
    }
    free(wp);
    free(scratch);
    free(pw);
    return 0;
}

/* ------------------------------------------------------------------ group norm */

int nf_group_fwd(nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *gamma, const float *beta,
                 double eps, bool act, double scale, nf_buf y, float *mean, float *rstd) {
    const int64_t cg = C / G, len = cg * S;
    const nf_gfwd_ctx c = {x, y, S, G, cg, gamma, beta, eps, scale, act, mean, rstd, N * G,
                           nf_all_fin(gamma, C) && nf_all_fin(beta, C)};
    const nf_gfwd_fn fn = x.dt == ACL_BF16 && !act ? NF_PICK(gfwd_row_bf16) : NF_PICK(gfwd_row);
    const int nt = acl_max_threads();
    const size_t per = nf_per((size_t)2 * (size_t)len);
    float *scratch = nf_scratch(per, nt);
    if (!scratch) return -1;
    const bool par = acl_parallel_worth(N * C * S); /* serial: slot 0 (inside a caller's team too) */
    ACL_FOR(par, ng, 0, N * G, fn(&c, ng, scratch + per * (size_t)(par ? nf_tid() : 0)););
    free(scratch);
    return 0;
}

int nf_group_bwd(nf_buf dy, nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *mean,
                 const float *rstd, const float *gamma, nf_buf dx, double *dgamma, double *dbeta) {
    const int64_t cg = C / G, len = cg * S;
    const int nt = acl_max_threads();
    const size_t per = nf_per((size_t)3 * (size_t)len);
    float *scratch = nf_scratch(per, nt);
    double *sd = malloc(sizeof(double) * (size_t)(2 * N * C));
    if (!scratch || !sd) {
        free(scratch);
        free(sd);
        return -1;
    }
    const nf_gbwd_ctx c = {dy, x, dx, C, S, G, cg, N * G, mean, rstd, gamma, sd, nf_all_fin(gamma, C)};
    /* BF16 rows are read in place; the dx scratch is then one row */
    const nf_gbwd_fn fn = dy.dt == ACL_BF16 && x.dt == ACL_BF16 ? NF_PICK(gbwd_row_bf16) : NF_PICK(gbwd_row);
    const bool par = acl_parallel_worth(N * C * S); /* serial: slot 0 (inside a caller's team too) */
    ACL_FOR(par, ng, 0, N * G, fn(&c, ng, scratch + per * (size_t)(par ? nf_tid() : 0)););
    if (dgamma || dbeta)
        for (int64_t ch = 0; ch < C; ch++) {
            double a = 0, q = 0;
            for (int64_t b = 0; b < N; b++) {
                a += sd[2 * (b * C + ch)];
                q += sd[2 * (b * C + ch) + 1];
            }
            if (dgamma) dgamma[ch] = q;
            if (dbeta) dbeta[ch] = a;
        }
    free(scratch);
    free(sd);
    return 0;
}
