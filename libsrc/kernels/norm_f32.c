/* fp32 row kernels of the norm family (norm_f32.h). */
#include "kernels/norm_f32.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/half_rows.h"
#include "common/parallel.h"

#define NF_L 16       /* lanes of every row reduction */
#define NF_CHUNK 1024 /* elements summed in the inner lanes before they fold into the outer ones */

/* 16 fp32 lanes as one GCC vector: every level lowers the lane-wise operations to its registers (1 zmm, 2 ymm,
 * 4 xmm or 4 NEON q), each lane computed exactly as the scalar C says */
typedef float nf_v __attribute__((vector_size(NF_L * sizeof(float))));
#define nf_ld(p)                                                                                                     \
    __extension__({                                                                                                  \
        nf_v v_;                                                                                                     \
        memcpy(&v_, (p), sizeof v_);                                                                                 \
        v_;                                                                                                          \
    })
/* 16 bf16 lanes widened to fp32 (a shift of the bits) */
typedef uint16_t nf_h __attribute__((vector_size(NF_L * sizeof(uint16_t))));
typedef uint32_t nf_u __attribute__((vector_size(NF_L * sizeof(uint32_t))));
#define nf_ldh(p)                                                                                                    \
    __extension__({                                                                                                  \
        nf_h h_;                                                                                                     \
        memcpy(&h_, (p), sizeof h_);                                                                                 \
        nf_u u_ = __builtin_convertvector(h_, nf_u) << 16;                                                           \
        nf_v f_;                                                                                                     \
        memcpy(&f_, &u_, sizeof f_);                                                                                 \
        f_;                                                                                                          \
    })
static inline __attribute__((always_inline)) float nf_tree(const nf_v *v) {
    float a[NF_L];
    memcpy(a, v, sizeof a);
    for (int w = NF_L / 2; w; w >>= 1)
        for (int l = 0; l < w; l++) a[l] += a[l + w];
    return a[0];
}

/* S1 = sum of E1 (and S2 of E2) over i < N. VE: the term of the 16 elements from index b_ (V(p) loads p[b_..]),
 * E: the scalar term of element i. Lane l adds the elements i = l (mod 16) of each 1024-element chunk, the chunks
 * fold into the outer lanes in order, the tail adds into outer lanes 0.. directly, then the tree. */
#define NF_V(p) nf_ld((p) + b_)
#define NF_VH(p) nf_ldh((p) + b_)
#define NF_REDUCE2(N, S1, VE1, E1, S2, VE2, E2)                                                                      \
    do {                                                                                                             \
        nf_v o1_ = {0}, o2_ = {0};                                                                                   \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            nf_v a1_ = {0}, a2_ = {0};                                                                               \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L) {                                                                            \
                a1_ += (VE1);                                                                                        \
                a2_ += (VE2);                                                                                        \
            }                                                                                                        \
            o1_ += a1_;                                                                                              \
            o2_ += a2_;                                                                                              \
        }                                                                                                            \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            o1_[l_] += (E1);                                                                                         \
            o2_[l_] += (E2);                                                                                         \
        }                                                                                                            \
        S1 = nf_tree(&o1_);                                                                                           \
        S2 = nf_tree(&o2_);                                                                                           \
    } while (0)

#define NF_REDUCE1(N, S1, VE1, E1)                                                                                   \
    do {                                                                                                             \
        nf_v o1_ = {0};                                                                                              \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            nf_v a1_ = {0};                                                                                          \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L) a1_ += (VE1);                                                                \
            o1_ += a1_;                                                                                              \
        }                                                                                                            \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            o1_[l_] += (E1);                                                                                         \
        }                                                                                                            \
        S1 = nf_tree(&o1_);                                                                                           \
    } while (0)

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
} nf_fwd_ctx;
typedef struct {
    nf_buf dy, x, dx;
    int64_t rows, n, rpb;
    const float *mean, *rstd, *w;
    float *pw; /* per block: n sums of dy * xhat, then n of dy (NULL: no weight gradients) */
} nf_bwd_ctx;
typedef struct {
    nf_buf x, y;
    int64_t S, G, cg;
    const float *gamma, *beta;
    double eps, scale;
    bool act;
    float *mean, *rstd;
} nf_gfwd_ctx;
typedef struct {
    nf_buf dy, x, dx;
    int64_t C, S, G, cg, rows;
    const float *mean, *rstd, *gamma;
    double *sd; /* per (n, c): sum dy, sum dy * xhat */
} nf_gbwd_ctx;

#define NF_ATTR
#define NF_FN(name) nf_##name##_portable
#include "kernels/norm_f32.inc"
#undef NF_ATTR
#undef NF_FN

#if defined(__x86_64__) && defined(__GNUC__)
#define NF_X86 1
#define NF_ATTR __attribute__((target("avx2")))
#define NF_FN(name) nf_##name##_avx2
#include "kernels/norm_f32.inc"
#undef NF_ATTR
#undef NF_FN
#define NF_ATTR __attribute__((target("avx2,avx512f,avx512bw,avx512vl,avx512dq")))
#define NF_FN(name) nf_##name##_avx512
#include "kernels/norm_f32.inc"
#undef NF_ATTR
#undef NF_FN
#endif

typedef void (*nf_fwd_fn)(const nf_fwd_ctx *, int64_t, float *);
typedef void (*nf_bwd_fn)(const nf_bwd_ctx *, int64_t, float *);
typedef void (*nf_gfwd_fn)(const nf_gfwd_ctx *, int64_t, float *);
typedef void (*nf_gbwd_fn)(const nf_gbwd_ctx *, int64_t, float *);

/* the level's variant of a row function */
#ifdef NF_X86
#define NF_PICK(name)                                                                                                \
    (acl_simd_level() >= ACL_SIMD_AVX512 ? nf_##name##_avx512                                                        \
     : acl_simd_level() >= ACL_SIMD_AVX2 ? nf_##name##_avx2                                                          \
                                         : nf_##name##_portable)
#else
#define NF_PICK(name) nf_##name##_portable
#endif

/* ------------------------------------------------------------------ rows */

int nf_rows_fwd(nf_buf x, nf_buf x2, int64_t rows, int64_t n, const float *w, const float *b, double eps, bool centre,
                nf_buf y, nf_buf y2, nf_buf xs, float *mean, float *rstd) {
    const nf_fwd_ctx c = {x, x2, y, y2, xs, n, w, b, eps, centre, mean, rstd};
    const nf_fwd_fn fn = NF_PICK(fwd_row);
    const int nt = acl_max_threads();
    const size_t per = (size_t)4 * (size_t)n;
    float *scratch = malloc(sizeof(float) * (per + 1) * (size_t)nt);
    if (!scratch) return -1;
#pragma omp parallel if (acl_parallel_worth(rows * n))
    {
        float *s0 = scratch + per * (size_t)nf_tid();
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; r++) fn(&c, r, s0);
    }
    free(scratch);
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
    const size_t per = (size_t)3 * (size_t)n;
    float *scratch = malloc(sizeof(float) * (per + 1) * (size_t)nt);
    float *pw = parts ? calloc((size_t)(2 * nb) * (size_t)n + 1, sizeof(float)) : NULL;
    if (!scratch || (parts && !pw)) {
        free(scratch);
        free(pw);
        return -1;
    }
    const nf_bwd_ctx c = {dy, x, dx, rows, n, rpb, mean, rstd, w, pw};
    const nf_bwd_fn fn = NF_PICK(bwd_block);
#pragma omp parallel if (acl_parallel_worth(rows * n))
    {
        float *s0 = scratch + per * (size_t)nf_tid();
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nb; k++) fn(&c, k, s0);
    }
    if (parts) {
#pragma omp parallel for schedule(static) if (acl_parallel_worth(nb * n))
        for (int64_t j = 0; j < n; j++) {
            double a = 0, q = 0;
            for (int64_t k = 0; k < nb; k++) {
                a += pw[(size_t)(2 * k) * (size_t)n + (size_t)j];
                q += pw[(size_t)(2 * k + 1) * (size_t)n + (size_t)j];
            }
            if (dw) dw[j] = a;
            if (db) db[j] = q;
        }
    }
    free(scratch);
    free(pw);
    return 0;
}

/* ------------------------------------------------------------------ group norm */

int nf_group_fwd(nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *gamma, const float *beta,
                 double eps, bool act, double scale, nf_buf y, float *mean, float *rstd) {
    const int64_t cg = C / G, len = cg * S;
    const nf_gfwd_ctx c = {x, y, S, G, cg, gamma, beta, eps, scale, act, mean, rstd};
    const nf_gfwd_fn fn = x.dt == ACL_BF16 && !act ? NF_PICK(gfwd_row_bf16) : NF_PICK(gfwd_row);
    const int nt = acl_max_threads();
    const size_t per = (size_t)2 * (size_t)len;
    float *scratch = malloc(sizeof(float) * (per + 1) * (size_t)nt);
    if (!scratch) return -1;
#pragma omp parallel if (acl_parallel_worth(N * C * S))
    {
        float *s0 = scratch + per * (size_t)nf_tid();
#pragma omp for schedule(static)
        for (int64_t ng = 0; ng < N * G; ng++) fn(&c, ng, s0);
    }
    free(scratch);
    return 0;
}

int nf_group_bwd(nf_buf dy, nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *mean,
                 const float *rstd, const float *gamma, nf_buf dx, double *dgamma, double *dbeta) {
    const int64_t cg = C / G, len = cg * S;
    const int nt = acl_max_threads();
    const size_t per = (size_t)3 * (size_t)len;
    float *scratch = malloc(sizeof(float) * (per + 1) * (size_t)nt);
    double *sd = malloc(sizeof(double) * (size_t)(2 * N * C));
    if (!scratch || !sd) {
        free(scratch);
        free(sd);
        return -1;
    }
    const nf_gbwd_ctx c = {dy, x, dx, C, S, G, cg, N * G, mean, rstd, gamma, sd};
    /* BF16 rows are read in place; the dx scratch is then one row */
    const nf_gbwd_fn fn = dy.dt == ACL_BF16 && x.dt == ACL_BF16 ? NF_PICK(gbwd_row_bf16) : NF_PICK(gbwd_row);
#pragma omp parallel if (acl_parallel_worth(N * C * S))
    {
        float *s0 = scratch + per * (size_t)nf_tid();
#pragma omp for schedule(static)
        for (int64_t ng = 0; ng < N * G; ng++) fn(&c, ng, s0);
    }
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
