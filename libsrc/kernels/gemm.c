/* The shared GEMM engine (kernels/gemm.h): packed A/B panels, a register-blocked MR x NR micro-kernel, OpenMP over
 * output row blocks (or whole batches). The micro-kernel variants (kernels/gemm.inc) differ in width only: each
 * output element is the same chain acc = fma(a[k], b[k], acc), k ascending from acc = 0. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "kernels/gemm.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#define GEMM_MR 12
#define GEMM_NR 32
#define GEMM_KC 256
#define GEMM_MC 144 /* a multiple of GEMM_MR */
#define GEMM_NC 4096

typedef void (*gemm_uk_fn)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int first);
typedef void (*gemm_ukr_fn)(int64_t kc, const float *a, const float *b, float *c, int64_t ldc, int first, int mr);

#include "kernels/gemm.inc"

static inline int gemm_level(void) { /* inline: unused off x86-64 */
#if defined(__x86_64__)
    static int lvl = -1;
    if (lvl < 0) {
        int s = acl_simd_level();
        int fma = __builtin_cpu_supports("fma");
        lvl = (s >= ACL_SIMD_AVX512 && fma) ? 2 : (s >= ACL_SIMD_AVX2 && fma) ? 1 : 0;
    }
    return lvl;
#else
    return 0;
#endif
}

static gemm_uk_fn gemm_pick_uk(void) {
#if defined(__x86_64__)
    if (gemm_level() == 2) return gemm_uk_avx512;
    if (gemm_level() == 1) return gemm_uk_avx2;
#endif
    return gemm_uk_portable;
}

static gemm_ukr_fn gemm_pick_ukr(void) {
#if defined(__x86_64__)
    if (gemm_level() == 2) return gemm_ukr_avx512;
    if (gemm_level() == 1) return gemm_ukr_avx2;
#endif
    return gemm_ukr_portable;
}

static bool gemm_is_half(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }

/* n elements of src (dtype sdt, element stride ss) -> float dst (stride ds), rounded through `rt` when asked. */
static void gemm_load(float *dst, int64_t ds, const char *src, aclDataType sdt, int64_t ss, int64_t n,
                      aclDataType rt) {
    if (sdt == ACL_FLOAT && ds == 1 && ss == 1) {
        memcpy(dst, src, sizeof(float) * (size_t)n);
    } else if (sdt == ACL_FLOAT) {
        const float *s = (const float *)src;
        for (int64_t i = 0; i < n; i++) dst[i * ds] = s[i * ss];
    } else if (sdt == ACL_FLOAT16) {
        const uint16_t *s = (const uint16_t *)src;
        for (int64_t i = 0; i < n; i++) dst[i * ds] = acl_f16_to_f32(s[i * ss]);
    } else if (sdt == ACL_BF16) {
        const uint16_t *s = (const uint16_t *)src;
        for (int64_t i = 0; i < n; i++) dst[i * ds] = acl_bf16_to_f32(s[i * ss]);
    } else {
        acl_convert(src, sdt, ss, dst, ACL_FLOAT, ds, n);
    }
    if (rt == ACL_FLOAT16 && sdt != ACL_FLOAT16)
        for (int64_t i = 0; i < n; i++) dst[i * ds] = acl_f16_to_f32(acl_f32_to_f16(dst[i * ds]));
    else if (rt == ACL_BF16 && sdt != ACL_BF16)
        for (int64_t i = 0; i < n; i++) dst[i * ds] = acl_bf16_to_f32(acl_f32_to_bf16(dst[i * ds]));
}

/* Packs the mc x kc block of a matrix X (rows i0.., cols k0..; strides rs, cs) as slivers of `w` rows:
 * P[s*w*kc + k*w + r] = X[i0 + s*w + r][k0 + k], zero beyond mc. Used for A (w = MR) and for B^T (w = NR). */
static void gemm_pack(float *P, const char *X, aclDataType dt, int64_t rs, int64_t cs, int64_t i0, int64_t mc,
                      int64_t k0, int64_t kc, int w, aclDataType rt, int64_t s_lo, int64_t s_hi) {
    const size_t es = acl_dtype_size(dt);
    for (int64_t s = s_lo; s < s_hi; s++) {
        float *ps = P + s * w * kc;
        const int64_t rows = mc - s * w < w ? mc - s * w : w;
        const bool by_k = llabs(rs) < llabs(cs) && rows > 1;
        if (by_k) {
            for (int64_t k = 0; k < kc; k++) {
                const char *src = X + ((i0 + s * w) * rs + (k0 + k) * cs) * (int64_t)es;
                gemm_load(ps + k * w, 1, src, dt, rs, rows, rt);
                for (int64_t r = rows; r < w; r++) ps[k * w + r] = 0.0f;
            }
        } else {
            for (int64_t r = 0; r < w; r++) {
                if (r < rows) {
                    const char *src = X + ((i0 + s * w + r) * rs + k0 * cs) * (int64_t)es;
                    gemm_load(ps + r, w, src, dt, cs, kc, rt);
                } else {
                    for (int64_t k = 0; k < kc; k++) ps[k * w + r] = 0.0f;
                }
            }
        }
    }
}

typedef struct {
    const char *a, *b;
    char *c;
} gemm_ptrs;

/* One matrix product (float path). Cb: the f32 accumulator (C itself when `direct`, ldc its row stride).
 * par: fork a team (row blocks are the owners); else the calling thread does all. ap: the caller's A buffer when
 * !par, else the team's (one GEMM_MC*GEMM_KC slice per thread). */
/* One (sliver t, K block pc) step of the small-M path: pack B's sliver into bs, run every A sliver over it. */
static void gemm_small_tile(const gemm_problem *p, gemm_ptrs q, const float *Af, float *bs, float *Cb, int64_t ldc,
                            int64_t t, int64_t pc, int64_t msl, gemm_uk_fn uk, gemm_ukr_fn ukr) {
    const int64_t M = p->M, N = p->N, K = p->K;
    const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
    const int64_t j0 = t * GEMM_NR, nr = N - j0 < GEMM_NR ? N - j0 : GEMM_NR;
    gemm_pack(bs, q.b, p->bdt, p->bcs, p->brs, j0, nr, pc, kc, GEMM_NR, p->round_to, 0, 1);
    for (int64_t s = 0; s < msl; s++) {
        const int64_t r0 = s * GEMM_MR, mr = M - r0 < GEMM_MR ? M - r0 : GEMM_MR;
        const float *as = Af + pc * msl * GEMM_MR + s * GEMM_MR * kc;
        float *ct = Cb + r0 * ldc + j0;
        if (nr == GEMM_NR && mr == GEMM_MR) {
            uk(kc, as, bs, ct, ldc, pc == 0);
        } else if (nr == GEMM_NR) {
            ukr(kc, as, bs, ct, ldc, pc == 0, (int)mr);
        } else {
            float tmp[GEMM_MR * GEMM_NR] __attribute__((aligned(64)));
            memset(tmp, 0, sizeof tmp);
            if (pc != 0)
                for (int64_t r = 0; r < mr; r++) memcpy(tmp + r * GEMM_NR, ct + r * ldc, sizeof(float) * (size_t)nr);
            ukr(kc, as, bs, tmp, GEMM_NR, 0, (int)mr);
            for (int64_t r = 0; r < mr; r++) memcpy(ct + r * ldc, tmp + r * GEMM_NR, sizeof(float) * (size_t)nr);
        }
    }
}

/* Row i of the fp32 result cr: rounded to the op's intermediate dtype (fp16 / bf16) if it has one, then converted
 * into C. */
static void gemm_store_row(const gemm_problem *p, gemm_ptrs q, float *cr, int64_t i) {
    const int64_t N = p->N;
    if (p->mid == ACL_FLOAT16)
        for (int64_t j = 0; j < N; j++) cr[j] = acl_f16_to_f32(acl_f32_to_f16(cr[j]));
    else if (p->mid == ACL_BF16)
        for (int64_t j = 0; j < N; j++) cr[j] = acl_bf16_to_f32(acl_f32_to_bf16(cr[j]));
    acl_convert(cr, ACL_FLOAT, 1, q.c + i * p->crs * (int64_t)acl_dtype_size(p->cdt), p->cdt, p->ccs, N);
}

/* The work of gemm_small_m's team (or of the calling thread alone: its worksharing loops are then orphaned and run
 * whole on this thread, and no OpenMP region is built for a problem below the grain). */
static void gemm_small_m_work(const gemm_problem *p, gemm_ptrs q, float *Af, float *Cb, int64_t ldc, bool direct,
                              gemm_uk_fn uk, gemm_ukr_fn ukr, int64_t msl, int64_t nsl, int64_t npc) {
    const int64_t M = p->M, N = p->N, K = p->K;
    float bs[GEMM_KC * GEMM_NR] __attribute__((aligned(64)));
#pragma omp for schedule(static)
    for (int64_t b = 0; b < npc; b++) {
        const int64_t pc = b * GEMM_KC, kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
        gemm_pack(Af + pc * msl * GEMM_MR, q.a, p->adt, p->ars, p->acs, 0, M, pc, kc, GEMM_MR, p->round_to, 0,
                  msl);
    }
    if (K == 0) {
#pragma omp for schedule(static)
        for (int64_t i = 0; i < M; i++)
            for (int64_t j = 0; j < N; j++) Cb[i * ldc + j] = 0.0f;
    }
    /* B read along k (a transposed B, e.g. a linear layer's weight): a thread's sliver walks its 32 rows of B
     * through all of K. Otherwise K blocks outer (the rows of B a block reads stay few pages), slivers inner: the
     * static schedule gives a thread the same slivers in every block, so no barrier is needed between blocks. */
    if (llabs(p->brs) < llabs(p->bcs)) {
#pragma omp for schedule(static) nowait
        for (int64_t t = 0; t < nsl; t++)
            for (int64_t pc = 0; pc < K; pc += GEMM_KC)
                gemm_small_tile(p, q, Af, bs, Cb, ldc, t, pc, msl, uk, ukr);
    } else {
        for (int64_t pc = 0; pc < K; pc += GEMM_KC) {
#pragma omp for schedule(static) nowait
            for (int64_t t = 0; t < nsl; t++) gemm_small_tile(p, q, Af, bs, Cb, ldc, t, pc, msl, uk, ukr);
        }
    }
#pragma omp barrier
    if (!direct) {
#pragma omp for schedule(static)
        for (int64_t i = 0; i < M; i++) gemm_store_row(p, q, Cb + i * ldc, i);
    }
}

/* Small M (one row block): A packed whole once, the N slivers are the owners; each packs its B sliver per K block
 * into a private buffer and runs every A sliver over it (no team barriers inside the K loop). */
static int gemm_small_m(const gemm_problem *p, gemm_ptrs q, float *Cb, int64_t ldc, bool direct, bool par,
                        gemm_uk_fn uk) {
    const int64_t M = p->M, N = p->N, K = p->K;
    const int64_t msl = (M + GEMM_MR - 1) / GEMM_MR, nsl = (N + GEMM_NR - 1) / GEMM_NR;
    const int64_t npc = (K + GEMM_KC - 1) / GEMM_KC;
    const gemm_ukr_fn ukr = gemm_pick_ukr();
    float *Af = aligned_alloc(64, (sizeof(float) * (size_t)(msl * GEMM_MR * (K > 0 ? K : 1)) + 63) / 64 * 64);
    if (!Af) return -1;
    if (par || omp_in_parallel()) { /* inside a caller's team (batched problems) the worksharing loops need a team
                                      * of their own, or they would split over the caller's threads */
#pragma omp parallel if (par)
        gemm_small_m_work(p, q, Af, Cb, ldc, direct, uk, ukr, msl, nsl, npc);
    } else {
        gemm_small_m_work(p, q, Af, Cb, ldc, direct, uk, ukr, msl, nsl, npc);
    }
    free(Af);
    return 0;
}

static int gemm_single(const gemm_problem *p, gemm_ptrs q, float *Cb, int64_t ldc, bool direct, float *Bp,
                       float *ap, bool par, gemm_uk_fn uk) {
    const int64_t M = p->M, N = p->N, K = p->K;
    if (M <= GEMM_MC && (int64_t)GEMM_MR * K <= ((int64_t)1 << 22)) return gemm_small_m(p, q, Cb, ldc, direct, par, uk);
    const int64_t nmb = (M + GEMM_MC - 1) / GEMM_MC;
#pragma omp parallel if (par)
    {
#ifdef _OPENMP
        float *Ap = par ? ap + (size_t)omp_get_thread_num() * GEMM_MC * GEMM_KC : ap;
#else
        float *Ap = ap;
#endif
        if (K == 0) {
#pragma omp for schedule(static)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) Cb[i * ldc + j] = 0.0f;
        }
        for (int64_t jc = 0; jc < N; jc += GEMM_NC) {
            const int64_t nc = N - jc < GEMM_NC ? N - jc : GEMM_NC;
            const int64_t nsl = (nc + GEMM_NR - 1) / GEMM_NR;
            for (int64_t pc = 0; pc < K; pc += GEMM_KC) {
                const int64_t kc = K - pc < GEMM_KC ? K - pc : GEMM_KC;
                /* B^T block: rows = columns j of B (stride bcs), cols = k (stride brs) */
#pragma omp for schedule(static)
                for (int64_t t = 0; t < nsl; t++)
                    gemm_pack(Bp, q.b, p->bdt, p->bcs, p->brs, jc, nc, pc, kc, GEMM_NR, p->round_to, t, t + 1);
#pragma omp for schedule(static)
                for (int64_t ib = 0; ib < nmb; ib++) {
                    const int64_t i0 = ib * GEMM_MC, mc = M - i0 < GEMM_MC ? M - i0 : GEMM_MC;
                    const int64_t msl = (mc + GEMM_MR - 1) / GEMM_MR;
                    gemm_pack(Ap, q.a, p->adt, p->ars, p->acs, i0, mc, pc, kc, GEMM_MR, p->round_to, 0, msl);
                    for (int64_t t = 0; t < nsl; t++) {
                        const int64_t j0 = jc + t * GEMM_NR, nr = N - j0 < GEMM_NR ? N - j0 : GEMM_NR;
                        for (int64_t s = 0; s < msl; s++) {
                            const int64_t r0 = i0 + s * GEMM_MR, mr = M - r0 < GEMM_MR ? M - r0 : GEMM_MR;
                            float *ct = Cb + r0 * ldc + j0;
                            const float *as = Ap + s * GEMM_MR * kc, *bs = Bp + t * GEMM_NR * kc;
                            if (mr == GEMM_MR && nr == GEMM_NR) {
                                uk(kc, as, bs, ct, ldc, pc == 0);
                            } else {
                                float tmp[GEMM_MR * GEMM_NR] __attribute__((aligned(64)));
                                memset(tmp, 0, sizeof tmp);
                                if (pc != 0)
                                    for (int64_t r = 0; r < mr; r++)
                                        memcpy(tmp + r * GEMM_NR, ct + r * ldc, sizeof(float) * (size_t)nr);
                                uk(kc, as, bs, tmp, GEMM_NR, 0);
                                for (int64_t r = 0; r < mr; r++)
                                    memcpy(ct + r * ldc, tmp + r * GEMM_NR, sizeof(float) * (size_t)nr);
                            }
                        }
                    }
                }
            }
        }
        if (!direct) {
#pragma omp for schedule(static)
            for (int64_t i = 0; i < M; i++) gemm_store_row(p, q, Cb + i * ldc, i);
        }
    }
    return 0;
}

static gemm_ptrs gemm_batch_ptrs(const gemm_problem *p, int64_t bi) {
    int64_t oa = 0, ob = 0, oc = 0;
    for (int d = p->nbd - 1; d >= 0; d--) {
        const int64_t x = bi % p->bshape[d];
        bi /= p->bshape[d];
        oa += x * p->bsa[d];
        ob += x * p->bsb[d];
        oc += x * p->bsc[d];
    }
    gemm_ptrs q = {(const char *)p->a + oa * (int64_t)acl_dtype_size(p->adt),
                   (const char *)p->b + ob * (int64_t)acl_dtype_size(p->bdt),
                   (char *)p->c + oc * (int64_t)acl_dtype_size(p->cdt)};
    return q;
}

static int64_t gemm_nbatch(const gemm_problem *p) {
    int64_t nb = 1;
    for (int d = 0; d < p->nbd; d++) nb *= p->bshape[d];
    return nb;
}

static int gemm_run_float(const gemm_problem *p) {
    const int64_t M = p->M, N = p->N, K = p->K, nb = gemm_nbatch(p);
    const bool direct = p->cdt == ACL_FLOAT && (p->mid == ACL_DT_UNDEFINED || p->mid == ACL_FLOAT) && p->ccs == 1 && (M == 1 || p->crs >= N);
    const gemm_uk_fn uk = gemm_pick_uk();
    const int64_t kcm = K < GEMM_KC ? (K > 0 ? K : 1) : GEMM_KC;
    const int64_t ncm = N < GEMM_NC ? N : GEMM_NC;
    const size_t bsz = (size_t)((ncm + GEMM_NR - 1) / GEMM_NR * GEMM_NR * kcm);
    const size_t asz = (size_t)GEMM_MC * GEMM_KC, csz = direct ? 0 : (size_t)(M * N);
    const int64_t per = M * N * (K > 0 ? K : 1);
    const int nt = acl_max_threads();
    /* many small products: whole batches are the owners */
    if (nb > 1 && nt > 1 && (per < (int64_t)1 << 21 || (nb >= 4 * nt && per < (int64_t)1 << 24))) {
        int fail = 0;
#pragma omp parallel if (acl_parallel_worth(per * nb)) reduction(| : fail)
        {
            float *Bp = malloc(sizeof(float) * bsz), *Ap = aligned_alloc(64, sizeof(float) * asz);
            float *Cb = csz ? malloc(sizeof(float) * csz) : NULL;
            if (!Bp || !Ap || (csz && !Cb)) fail = 1;
#pragma omp for schedule(static)
            for (int64_t bi = 0; bi < nb; bi++) {
                if (!Bp || !Ap || (csz && !Cb)) continue;
                gemm_ptrs q = gemm_batch_ptrs(p, bi);
                if (gemm_single(p, q, direct ? (float *)q.c : Cb, direct ? p->crs : N, direct, Bp, Ap, false, uk))
                    fail = 1;
            }
            free(Bp);
            free(Ap);
            free(Cb);
        }
        return fail ? -1 : 0;
    }
    const bool par = acl_parallel_worth(per);
    float *Bp = malloc(sizeof(float) * bsz);
    float *Ap = aligned_alloc(64, sizeof(float) * asz * (size_t)(par ? nt : 1));
    float *Cb = csz ? malloc(sizeof(float) * csz) : NULL;
    if (!Bp || !Ap || (csz && !Cb)) {
        free(Bp);
        free(Ap);
        free(Cb);
        return -1;
    }
    int rc = 0;
    for (int64_t bi = 0; bi < nb && rc == 0; bi++) {
        gemm_ptrs q = gemm_batch_ptrs(p, bi);
        rc = gemm_single(p, q, direct ? (float *)q.c : Cb, direct ? p->crs : N, direct, Bp, Ap, par, uk);
    }
    free(Bp);
    free(Ap);
    free(Cb);
    return rc;
}

/* f64 (fma chain in double) and integer (wrapping int64) products: straightforward loops, rows are the owners. */
static int gemm_run_generic(const gemm_problem *p) {
    const int64_t M = p->M, N = p->N, K = p->K, nb = gemm_nbatch(p);
    const bool isf = acl_dt_is_float(p->adt) || acl_dt_is_float(p->bdt);
    const size_t aes = acl_dtype_size(p->adt), bes = acl_dtype_size(p->bdt), ces = acl_dtype_size(p->cdt);
    int fail = 0;
#pragma omp parallel if (acl_parallel_worth(nb * M * N * (K > 0 ? K : 1))) reduction(| : fail)
    {
        void *row = malloc(8 * (size_t)(N > 0 ? N : 1));
        if (!row) fail = 1;
#pragma omp for schedule(static)
        for (int64_t t = 0; t < nb * M; t++) {
            if (!row) continue;
            const int64_t bi = t / M, i = t % M;
            gemm_ptrs q = gemm_batch_ptrs(p, bi);
            const char *ar = q.a + i * p->ars * (int64_t)aes;
            for (int64_t j = 0; j < N; j++) {
                const char *bc = q.b + j * p->bcs * (int64_t)bes;
                if (isf) {
                    double acc = 0.0;
                    for (int64_t k = 0; k < K; k++)
                        acc = fma(acl_read_f64(ar + k * p->acs * (int64_t)aes, p->adt),
                                  acl_read_f64(bc + k * p->brs * (int64_t)bes, p->bdt), acc);
                    ((double *)row)[j] = acc;
                } else {
                    uint64_t acc = 0;
                    for (int64_t k = 0; k < K; k++)
                        acc += (uint64_t)acl_read_i64(ar + k * p->acs * (int64_t)aes, p->adt) *
                               (uint64_t)acl_read_i64(bc + k * p->brs * (int64_t)bes, p->bdt);
                    ((int64_t *)row)[j] = (int64_t)acc;
                }
            }
            acl_convert(row, isf ? ACL_DOUBLE : ACL_INT64, 1, q.c + i * p->crs * (int64_t)ces, p->cdt, p->ccs, N);
        }
        free(row);
    }
    return fail ? -1 : 0;
}

int gemm_run(const gemm_problem *p) {
    if (p->M == 0 || p->N == 0 || gemm_nbatch(p) == 0) return 0;
    if (gemm_is_half(p->adt) && gemm_is_half(p->bdt)) return gemm_run_float(p);
    return gemm_run_generic(p);
}
