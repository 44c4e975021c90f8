/* Convolution compute (see conv.h): index tables, weight packing, the gather per input dtype (conv.inc) and the
 * register-blocked product. */
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/conv.h"
#include "common/level_fn.h"
#include "common/nan_order.h"
#include "kernels/dtype_io.h"

__extension__ typedef __int128 i128;

#define CONV_COB 4  /* output channels per register block */
#define CONV_PB 24  /* output positions per register block (3 vectors of 8) */
#define CONV_COL_FLOATS 65536 /* target size of one column tile (K x pt floats) */


typedef float v8f __attribute__((vector_size(32), aligned(4)));

/* Input index of output index o through tap kk on one axis, or -1 (padding, or a transposed hole). */
static int64_t axis_src(const conv_plan *p, int a, int64_t o, int64_t kk) {
    if (!p->transposed) {
        i128 i = (i128)o * p->s[a] - p->p[a] + (i128)kk * p->d[a];
        return (i >= 0 && i < p->in[a]) ? (int64_t)i : -1;
    }
    i128 t = (i128)o + p->p[a] - (i128)kk * p->d[a];
    if (t < 0 || t % p->s[a] != 0) return -1;
    t /= p->s[a];
    return t < p->in[a] ? (int64_t)t : -1;
}

static int64_t tile_positions(int64_t K, i128 pos) {
    int64_t pt = CONV_COL_FLOATS / (K > 0 ? K : 1);
    pt = (pt + CONV_PB - 1) / CONV_PB * CONV_PB;
    if (pt < 2 * CONV_PB) pt = 2 * CONV_PB;
    if (pt > 16 * CONV_PB) pt = 16 * CONV_PB;
    i128 pospad = (pos + CONV_PB - 1) / CONV_PB * CONV_PB;
    if (pospad < pt) pt = (int64_t)(pospad > 0 ? pospad : CONV_PB);
    return pt;
}

/* The taps of phase r (output indices r, r + s, ...) of a transposed axis: (r + p - kk * d) divisible by s. */
static int64_t phase_taps(const conv_plan *p, int a, int64_t r, int64_t *taps) {
    int64_t n = 0;
    for (int64_t kk = 0; kk < p->k[a]; kk++) {
        i128 t = (i128)r + p->p[a] - (i128)kk * p->d[a];
        if (t % p->s[a] == 0) {
            if (taps) taps[n] = kk;
            n++;
        }
    }
    return n;
}

#define CONV_MAX_SUBS 4096

/* The sub-problems: one per combination of stride phases of a transposed convolution (each with its own taps), or
 * one with every tap. Everything in one allocation (p->submem). */
static bool build_subs(conv_plan *p) {
    int64_t nph[3];
    bool phased = p->transposed;
    for (int a = 0; a < 3; a++) nph[a] = (!phased || p->s[a] == 1) ? 1 : (p->s[a] < p->out[a] ? p->s[a] : p->out[a]);
    if ((i128)nph[0] * nph[1] * nph[2] > CONV_MAX_SUBS) {
        phased = false;
        nph[0] = nph[1] = nph[2] = 1;
    }
    const int64_t nsub = nph[0] * nph[1] * nph[2];
    /* sizes: per axis and phase, its taps and its table */
    i128 ntap_all = 0, ntab_all = 0;
    for (int a = 0; a < 3; a++)
        for (int64_t r = 0; r < nph[a]; r++) {
            const bool full = !phased || p->s[a] == 1;
            const int64_t cnt = full ? p->out[a] : (p->out[a] - r + p->s[a] - 1) / p->s[a];
            const int64_t nt = full ? p->k[a] : phase_taps(p, a, r, NULL);
            ntap_all += nt;
            ntab_all += (i128)nt * cnt;
        }
    if (ntab_all > ((i128)1 << 32)) return false;
    size_t bytes = (size_t)nsub * sizeof(conv_sub) + (size_t)(nph[0] + nph[1] + nph[2]) * 4 * sizeof(int64_t) +
                   (size_t)(ntap_all + ntab_all) * sizeof(int64_t) + 64;
    char *m = calloc(1, bytes);
    if (!m) return false;
    p->submem = m;
    p->subs = (conv_sub *)m;
    p->nsub = (int)nsub;
    int64_t *ph = (int64_t *)(m + (size_t)nsub * sizeof(conv_sub)); /* per axis and phase: o0, cnt, ntap, index */
    int64_t *store = ph + (nph[0] + nph[1] + nph[2]) * 4;
    int64_t *phase_rec[3];
    /* record each axis' phases; tap and table pointers kept as offsets into `store` */
    int64_t *rec = ph;
    for (int a = 0; a < 3; a++) {
        phase_rec[a] = rec;
        for (int64_t r = 0; r < nph[a]; r++, rec += 4) {
            const bool full = !phased || p->s[a] == 1;
            const int64_t cnt = full ? p->out[a] : (p->out[a] - r + p->s[a] - 1) / p->s[a];
            int64_t *taps = store;
            int64_t nt;
            if (full) {
                for (int64_t kk = 0; kk < p->k[a]; kk++) taps[kk] = kk;
                nt = p->k[a];
            } else {
                nt = phase_taps(p, a, r, taps);
            }
            int64_t *tab = taps + nt;
            const int64_t o0 = full ? 0 : r, os = full ? 1 : p->s[a];
            for (int64_t t = 0; t < nt; t++)
                for (int64_t j = 0; j < cnt; j++) tab[t * cnt + j] = axis_src(p, a, o0 + os * j, taps[t]);
            rec[0] = o0;
            rec[1] = cnt;
            rec[2] = nt;
            rec[3] = taps - (int64_t *)m; /* offset of the taps (the table follows them) */
            store = tab + nt * cnt;
        }
    }
    int64_t idx = 0;
    for (int64_t r0 = 0; r0 < nph[0]; r0++)
        for (int64_t r1 = 0; r1 < nph[1]; r1++)
            for (int64_t r2 = 0; r2 < nph[2]; r2++, idx++) {
                conv_sub *S = &p->subs[idx];
                const int64_t rr[3] = {r0, r1, r2};
                i128 kv = p->cig;
                for (int a = 0; a < 3; a++) {
                    const int64_t *rc = phase_rec[a] + 4 * rr[a];
                    const bool full = !phased || p->s[a] == 1;
                    S->o0[a] = rc[0];
                    S->os[a] = full ? 1 : p->s[a];
                    S->out[a] = rc[1];
                    S->ntap[a] = rc[2];
                    S->tap[a] = (int64_t *)m + rc[3];
                    S->tab[a] = S->tap[a] + rc[2];
                    kv *= rc[2];
                }
                if (kv > ((i128)1 << 31)) return false;
                S->kdim = (int64_t)kv;
                S->pt = tile_positions(S->kdim, (i128)S->out[0] * S->out[1] * S->out[2]);
                if ((i128)S->kdim * S->pt * acl_max_threads() > ((i128)1 << 34)) return false;
            }
    return true;
}

bool conv_plan_build(conv_plan *p) {
    p->cig = p->ci / p->groups;
    p->cog = p->co / p->groups;
    p->cogp = (p->cog + CONV_COB - 1) / CONV_COB * CONV_COB;
    i128 kvol = (i128)p->k[0] * p->k[1] * p->k[2];
    i128 K = kvol * p->cig;
    if (K <= 0 || K > ((i128)1 << 31)) return false;
    p->kdim = (int64_t)K;
    p->pt = tile_positions(p->kdim, (i128)p->out[0] * p->out[1] * p->out[2]);
    /* buffers of phase 2: one column tile per thread and the packed weights */
    if ((i128)p->kdim * p->pt * acl_max_threads() > ((i128)1 << 34) ||
        (i128)p->groups * p->cogp * p->kdim > ((i128)1 << 34))
        return false;
    i128 ntab = (i128)p->k[0] * p->out[0] + (i128)p->k[1] * p->out[1] + (i128)p->k[2] * p->out[2];
    if (ntab > ((i128)1 << 32)) return false;
    int64_t *t = malloc((size_t)ntab * sizeof(int64_t) + 1);
    if (!t) return false;
    p->mem = t;
    for (int a = 0; a < 3; a++) {
        p->tab[a] = t;
        for (int64_t kk = 0; kk < p->k[a]; kk++)
            for (int64_t o = 0; o < p->out[a]; o++) *t++ = axis_src(p, a, o, kk);
    }
    return build_subs(p);
}

void conv_plan_free(void *plan) {
    conv_plan *p = plan;
    if (p) {
        free(p->mem);
        free(p->submem);
    }
    free(p);
}

/* One element of a floating view, exactly as fp32. */
static inline float ld_f32(const acl_view *v, int64_t off) {
    switch (v->dtype) {
    case ACL_FLOAT16: return acl_f16_to_f32(((const uint16_t *)v->base)[off]);
    case ACL_BF16: return acl_bf16_to_f32(((const uint16_t *)v->base)[off]);
    default: return ((const float *)v->base)[off];
    }
}

static inline void st_f32(acl_view *v, int64_t off, float x) {
    switch (v->dtype) {
    case ACL_FLOAT16: ((uint16_t *)v->base)[off] = acl_f32_to_f16(x); break;
    case ACL_BF16: ((uint16_t *)v->base)[off] = acl_f32_to_bf16(x); break;
    default: ((float *)v->base)[off] = x; break;
    }
}

static void axis_strides(const acl_view *v, const int pos[5], int64_t s[5]) {
    for (int i = 0; i < 5; i++) s[i] = pos[i] < 0 ? 0 : v->strides[pos[i]];
}

/* o[COB][PB] = sum over k (ascending) of w[k][cob] * c[k][pb]; c and w in the blocked layouts. Channels
 * [ch0, ch0 + NCH) of the block; every output element is one product and one sum per k in ascending k whatever
 * NCH is, so any split gives the same bits. */
#define CONV_BLOCK_BODY(VT, NCH)                                                                                 \
    for (int ch0 = 0; ch0 < CONV_COB; ch0 += (NCH)) {                                                             \
        enum { L_ = (int)(sizeof(VT) / sizeof(float)), NV_ = CONV_PB / L_ };                                      \
        VT acc[NCH][NV_];                                                                                         \
        for (int q = 0; q < (NCH); q++)                                                                           \
            for (int v = 0; v < NV_; v++) acc[q][v] = (VT){0};                                                    \
        for (int64_t k = 0; k < K; k++) {                                                                         \
            VT cv[NV_];                                                                                           \
            for (int v = 0; v < NV_; v++) cv[v] = *(const VT *)(c + k * CONV_PB + L_ * v);                       \
            const float *wk = w + k * CONV_COB + ch0;                                                             \
            for (int q = 0; q < (NCH); q++) {                                                                     \
                const float wq = wk[q];                                                                           \
                for (int v = 0; v < NV_; v++) acc[q][v] += cv[v] * wq;                                            \
            }                                                                                                     \
        }                                                                                                         \
        for (int q = 0; q < (NCH); q++)                                                                           \
            for (int v = 0; v < NV_; v++) *(VT *)(o + (ch0 + q) * CONV_PB + L_ * v) = acc[q][v];                  \
    }
typedef float v4f __attribute__((vector_size(16), aligned(4)));
/* AVX2 (16 ymm registers): the 4 x 24 block's 12 8-lane accumulators at once. The portable build on x86-64
 * (SSE2) lowered those 32-byte vectors through memory (a store-forwarding chain every k, 11x slower than AVX2):
 * there the block uses 4-lane vectors, one channel at a time (6 accumulators, 6 column vectors). */
#if defined(ACL_LEVEL_FN_X86)
__attribute__((noinline, target("avx2"))) static void conv_block_avx2(const float *restrict c, const float *restrict w,
                                                                      int64_t K, float *restrict o) {
    CONV_BLOCK_BODY(v8f, 4)
}
__attribute__((noinline)) static void conv_block_base(const float *restrict c, const float *restrict w, int64_t K,
                                                      float *restrict o) {
    CONV_BLOCK_BODY(v4f, 1)
}
static inline void conv_block(const float *restrict c, const float *restrict w, int64_t K, float *restrict o) {
    if (acl_simd_level() >= ACL_SIMD_AVX2)
        conv_block_avx2(c, w, K, o);
    else
        conv_block_base(c, w, K, o);
}
#else
static void conv_block(const float *restrict c, const float *restrict w, int64_t K, float *restrict o) {
    CONV_BLOCK_BODY(v8f, 4)
}
#endif

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/conv.inc"
#include "kernels/dtype_end.h"
/* The gather's fp16 loads read a table of acl_f16_to_f32 over all 65536 halves (the same bits as KLOAD): the
 * scalar conversion's branches made the fp16 forward 1.28x the fp32 time (its gather is scalar at every level). */
static float g_conv_f16_tab[65536];
static pthread_once_t g_conv_f16_once = PTHREAD_ONCE_INIT;
static void conv_f16_tab_init(void) {
    for (uint32_t h = 0; h < 65536; h++) g_conv_f16_tab[h] = acl_f16_to_f32((uint16_t)h);
}
#define CONV_GATHER_INIT pthread_once(&g_conv_f16_once, conv_f16_tab_init)
#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#undef KLOAD
#define KLOAD(p) g_conv_f16_tab[*(p)]
#include "kernels/conv.inc"
#include "kernels/dtype_end.h"
#undef CONV_GATHER_INIT
#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/conv.inc"
#include "kernels/dtype_end.h"

/* wp[g][cob][k][COB]: the weights of group g for sub-problem S (its taps) as fp32, output channels padded with
 * zeros to cogp. */
static void pack_weights(const conv_plan *p, const conv_sub *S, const acl_view *w, float *wp) {
    int64_t ws[5];
    axis_strides(w, p->wpos, ws);
    const int64_t K = S->kdim, kD = S->ntap[0], kH = S->ntap[1], kW = S->ntap[2];
    const int64_t nblk = p->groups * (p->cogp / CONV_COB);
    ACL_FOR(acl_parallel_worth(p->groups * p->cogp * K), b, 0, nblk, {
        const int64_t g = b / (p->cogp / CONV_COB), cb = b % (p->cogp / CONV_COB);
        float *dst = wp + b * K * CONV_COB;
        for (int64_t j = 0; j < CONV_COB; j++) {
            const int64_t co = cb * CONV_COB + j;
            int64_t kidx = 0;
            for (int64_t c = 0; c < p->cig; c++)
                for (int64_t td = 0; td < kD; td++)
                    for (int64_t th = 0; th < kH; th++)
                        for (int64_t tw = 0; tw < kW; tw++, kidx++) {
                            float v = 0.0f;
                            if (co < p->cog) {
                                /* forward: weight[g*cog + co][c]; transposed: weight[g*cig + c][co] */
                                int64_t o = p->transposed ? g * p->cig + c : g * p->cog + co;
                                int64_t i = p->transposed ? co : c;
                                v = ld_f32(w, o * ws[0] + i * ws[1] + S->tap[0][td] * ws[2] + S->tap[1][th] * ws[3] +
                                                  S->tap[2][tw] * ws[4]);
                            }
                            dst[kidx * CONV_COB + j] = v;
                        }
        }
    });
}

/* ---- NaN results in the reference order (common/nan_order.h): the block kernels keep their operation order at
 * every level, so which outputs are NaN is level-independent, but which payload survives is not (operand order
 * of the commutative products / sums). An output found NaN at store time is recomputed here in the written
 * order: sum over k ascending of c*w (acc + c*w), then + bias; the weight gradient's acc + g*c over q. ---- */
__attribute__((noinline, cold)) static float conv_elem_nan(const float *c, const float *w, int64_t K, int64_t j,
                                                           int64_t q, float b) {
    float a = 0.0f;
    for (int64_t k = 0; k < K; k++) a = no_add_f(a, no_mul_f(c[k * CONV_PB + q], w[k * CONV_COB + j]));
    return no_add_f(a, b);
}

static void grad_rows_nan(float *restrict acc, const float *restrict g, const float *restrict ct, int64_t K) {
    for (int q = 0; q < CONV_PB; q++)
        for (int64_t k = 0; k < K; k++) acc[k] = no_add_f(acc[k], no_mul_f(g[q], ct[q * K + k]));
}

int conv_forward(const conv_plan *p, const acl_view *x, const acl_view *w, const acl_view *bias, acl_view *y) {
    const int64_t G = p->groups, cog = p->cog, cogp = p->cogp, nsub = p->nsub;
    const int nthr = acl_max_threads();
    /* per sub-problem: its tiles, its first task and its packed weights */
    int64_t *meta = malloc((size_t)(3 * nsub + 1) * sizeof(int64_t));
    if (!meta) return ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the convolution's buffers");
    int64_t *ntile = meta, *first = meta + nsub, *woff = meta + 2 * nsub + 1;
    int64_t ntask = 0, wtotal = 0, colmax = 1, work = 0;
    for (int64_t i = 0; i < nsub; i++) {
        const conv_sub *S = &p->subs[i];
        const int64_t npos = S->out[0] * S->out[1] * S->out[2];
        ntile[i] = (npos + S->pt - 1) / S->pt;
        first[i] = ntask;
        ntask += p->n * G * ntile[i];
        woff[i] = wtotal;
        wtotal += G * cogp * S->kdim;
        if (S->kdim * S->pt > colmax) colmax = S->kdim * S->pt;
        work += npos * S->kdim;
    }
    first[nsub] = ntask;
    float *wp = aligned_alloc(64, ((size_t)wtotal * sizeof(float) + 127) / 64 * 64);
    const int64_t colblk = acl_team_block(colmax, sizeof(float));
    float *colbuf = acl_team_alloc(nthr, colmax, sizeof(float), 0); /* whole lines a thread */
    float *bv = malloc((size_t)p->co * sizeof(float) + 4);
    if (!wp || !colbuf || !bv) {
        free(wp);
        free(colbuf);
        free(bv);
        free(meta);
        return ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the convolution's buffers");
    }
    for (int64_t i = 0; i < nsub; i++) pack_weights(p, &p->subs[i], w, wp + woff[i]);
    for (int64_t c = 0; c < p->co; c++) bv[c] = bias ? ld_f32(bias, c * bias->strides[0]) : 0.0f;
    int64_t xs[5], ys[5];
    axis_strides(x, p->xpos, xs);
    axis_strides(y, p->ypos, ys);
    const bool par = acl_parallel_worth(p->n * p->co * work) && ntask > 1;
#pragma omp parallel num_threads(nthr) if (par)
    {
#ifdef _OPENMP
        float *col = colbuf + (size_t)omp_get_thread_num() * (size_t)colblk;
#else
        float *col = colbuf;
#endif
        float acc[CONV_COB * CONV_PB] __attribute__((aligned(64)));
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntask; t++) {
            int64_t lo = 0, hi = nsub; /* the sub-problem owning task t: first[lo] <= t < first[lo + 1] */
            while (hi - lo > 1) {
                const int64_t mid = (lo + hi) / 2;
                if (first[mid] <= t) lo = mid;
                else hi = mid;
            }
            const conv_sub *S = &p->subs[lo];
            const int64_t K = S->kdim, pt = S->pt, oH = S->out[1], oW = S->out[2];
            const int64_t npos = S->out[0] * oH * oW;
            const int64_t u = t - first[lo];
            const int64_t tile = u % ntile[lo], ng = u / ntile[lo], g = ng % G, n = ng / G;
            const int64_t p0 = tile * pt;
            const int64_t np = npos - p0 < pt ? npos - p0 : pt;
            const int64_t npad = (np + CONV_PB - 1) / CONV_PB * CONV_PB;
            switch (x->dtype) {
            case ACL_FLOAT16: conv_gather_f16(p, S, x, xs, n, g, p0, np, npad, col); break;
            case ACL_BF16: conv_gather_bf16(p, S, x, xs, n, g, p0, np, npad, col); break;
            default: conv_gather_f32(p, S, x, xs, n, g, p0, np, npad, col); break;
            }
            const float *wsub = wp + woff[lo];
            for (int64_t cb = 0; cb < cogp / CONV_COB; cb++) {
                const float *wb = wsub + (g * (cogp / CONV_COB) + cb) * K * CONV_COB;
                for (int64_t pb = 0; pb < npad / CONV_PB; pb++) {
                    conv_block(col + pb * K * CONV_PB, wb, K, acc);
                    for (int64_t j = 0; j < CONV_COB; j++) {
                        const int64_t co = cb * CONV_COB + j;
                        if (co >= cog) break;
                        const int64_t oc = g * cog + co;
                        const float b = bv[oc];
                        for (int64_t q = 0; q < CONV_PB; q++) {
                            const int64_t pos = p0 + pb * CONV_PB + q;
                            if (pos >= p0 + np) break;
                            const int64_t jd = pos / (oH * oW), jh = (pos / oW) % oH, jw = pos % oW;
                            const int64_t od = S->o0[0] + S->os[0] * jd, oh = S->o0[1] + S->os[1] * jh,
                                          ow = S->o0[2] + S->os[2] * jw;
                            float v = acc[j * CONV_PB + q] + b;
                            if (v != v) v = conv_elem_nan(col + pb * K * CONV_PB, wb, K, j, q, b);
                            st_f32(y, n * ys[0] + oc * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4], v);
                        }
                    }
                }
            }
        }
    }
    free(wp);
    free(colbuf);
    free(bv);
    free(meta);
    return 0;
}

/* g[a][q] (a < ca, q < npad): the grad-output channels of group g for positions [p0, p0 + np), zero-padded. */
static void gather_rows(const conv_plan *p, const acl_view *gm, const int64_t gs[5], int64_t n, int64_t g, int64_t p0,
                        int64_t np, int64_t npad, float *dst) {
    const int64_t oH = p->out[1], oW = p->out[2];
    for (int64_t a = 0; a < p->cog; a++) {
        float *row = dst + a * npad;
        const int64_t base = n * gs[0] + (g * p->cog + a) * gs[1];
        for (int64_t q = 0; q < np; q++) {
            const int64_t pos = p0 + q, od = pos / (oH * oW), oh = (pos / oW) % oH, ow = pos % oW;
            row[q] = ld_f32(gm, base + od * gs[2] + oh * gs[3] + ow * gs[4]);
        }
        for (int64_t q = np; q < npad; q++) row[q] = 0.0f;
    }
}

/* acc[k] += g[q] * ct[q][k] for q = 0 .. PB-1 in order (each element's sum in a fixed order; vector over k). */
ACL_LEVEL_FN(, grad_rows, (float *restrict acc, const float *restrict g, const float *restrict ct, int64_t K),
             (acc, g, ct, K)) {
    for (int q = 0; q < CONV_PB; q++) {
        const float gq = g[q];
        const float *row = ct + q * K;
        for (int64_t k = 0; k < K; k++) acc[k] += gq * row[k];
    }
}

int conv_grad_weight(const conv_plan *p, const acl_view *img, const acl_view *gm, acl_view *gw) {
    const int64_t K = p->kdim, pt = p->pt, G = p->groups, ca = p->cog;
    const int64_t npos = p->out[0] * p->out[1] * p->out[2];
    const int64_t ntile = (npos + pt - 1) / pt;
    const int64_t ntask = p->n * G;
    const int nthr = acl_max_threads();
    const size_t per = (size_t)(ca * K);
    float *part = calloc((size_t)ntask * per + 1, sizeof(float));
    /* per thread, whole lines each (acl_team_alloc) */
    const int64_t colblk = acl_team_block(K * pt, sizeof(float)), gblk = acl_team_block(ca * pt + 1, sizeof(float));
    const int64_t tblk = acl_team_block(K * CONV_PB + 1, sizeof(float));
    float *colbuf = acl_team_alloc(nthr, K * pt, sizeof(float), 0);
    float *gbuf = acl_team_alloc(nthr, ca * pt + 1, sizeof(float), 0);
    float *tbuf = acl_team_alloc(nthr, K * CONV_PB + 1, sizeof(float), 0);
    if (!part || !colbuf || !gbuf || !tbuf) {
        free(part);
        free(colbuf);
        free(gbuf);
        free(tbuf);
        return ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the weight gradient's buffers");
    }
    int64_t xs[5], gs[5], ws[5];
    axis_strides(img, p->xpos, xs);
    axis_strides(gm, p->ypos, gs);
    axis_strides(gw, p->wpos, ws);
    const bool par = acl_parallel_worth(p->n * p->co * npos * K) && ntask > 1;
#pragma omp parallel num_threads(nthr) if (par)
    {
#ifdef _OPENMP
        const int tid = omp_get_thread_num();
#else
        const int tid = 0;
#endif
        float *col = colbuf + (size_t)tid * (size_t)colblk;
        float *gr = gbuf + (size_t)tid * (size_t)gblk;
        float *ct = tbuf + (size_t)tid * (size_t)tblk;
#pragma omp for schedule(static)
        for (int64_t t = 0; t < ntask; t++) { /* one (n, g): its own partial sums, tiles in order */
            const int64_t g = t % G, n = t / G;
            float *acc = part + (size_t)t * per;
            /* pass 1 the fast rows; pass 2 (only when the task's partial sums hold a NaN) the same sums once more
             * in the reference order, so the NaN payloads do not depend on the level */
            for (int pass = 0; pass < 2; pass++) {
            if (pass == 1) {
                int nan = 0;
                for (size_t e = 0; e < per; e++) nan |= acc[e] != acc[e];
                if (!nan) break;
                memset(acc, 0, per * sizeof(float));
            }
            for (int64_t tile = 0; tile < ntile; tile++) {
                const int64_t p0 = tile * pt, np = npos - p0 < pt ? npos - p0 : pt;
                const int64_t npad = (np + CONV_PB - 1) / CONV_PB * CONV_PB;
                switch (img->dtype) {
                case ACL_FLOAT16: conv_gather_f16(p, &p->subs[0], img, xs, n, g, p0, np, npad, col); break;
                case ACL_BF16: conv_gather_bf16(p, &p->subs[0], img, xs, n, g, p0, np, npad, col); break;
                default: conv_gather_f32(p, &p->subs[0], img, xs, n, g, p0, np, npad, col); break;
                }
                gather_rows(p, gm, gs, n, g, p0, np, npad, gr);
                for (int64_t pb = 0; pb < npad / CONV_PB; pb++) {
                    const float *cb = col + pb * K * CONV_PB;
                    for (int64_t k = 0; k < K; k++) /* ct[q][k]: the block with k contiguous */
                        for (int q = 0; q < CONV_PB; q++) ct[q * K + k] = cb[k * CONV_PB + q];
                    for (int64_t a = 0; a < ca; a++) {
                        const float *ga = gr + a * npad + pb * CONV_PB;
                        if (pass == 0)
                            grad_rows(acc + a * K, ga, ct, K);
                        else
                            grad_rows_nan(acc + a * K, ga, ct, K);
                    }
                }
            }
            }
        }
    }
    /* the batch sum in ascending n, one owner per weight element */
    const int64_t kvol = p->k[0] * p->k[1] * p->k[2], nel = G * ca * K;
    ACL_FOR(acl_parallel_worth(nel * p->n), e, 0, nel, {
        const int64_t k = e % K, a = (e / K) % ca, g = e / (K * ca);
        float s = 0.0f;
        for (int64_t n = 0; n < p->n; n++) s += part[(size_t)(n * G + g) * per + (size_t)(a * K + k)];
        if (s != s) { /* the reference order's NaN */
            s = 0.0f;
            for (int64_t n = 0; n < p->n; n++) s = no_add_f(s, part[(size_t)(n * G + g) * per + (size_t)(a * K + k)]);
        }
        const int64_t b = k / kvol, r = k % kvol;
        const int64_t kd = r / (p->k[1] * p->k[2]), kh = (r / p->k[2]) % p->k[1], kw = r % p->k[2];
        st_f32(gw, (g * ca + a) * ws[0] + b * ws[1] + kd * ws[2] + kh * ws[3] + kw * ws[4], s);
    });
    free(part);
    free(colbuf);
    free(gbuf);
    free(tbuf);
    return 0;
}

void conv_grad_bias(const acl_view *gy, const int pos[5], int64_t n, int64_t c, const int64_t sp[3], acl_view *gb) {
    int64_t gs[5];
    axis_strides(gy, pos, gs);
    ACL_FOR(acl_parallel_worth(n * c * sp[0] * sp[1] * sp[2]), co, 0, c, {
        float s = 0.0f;
        for (int64_t b = 0; b < n; b++)
            for (int64_t d = 0; d < sp[0]; d++)
                for (int64_t h = 0; h < sp[1]; h++)
                    for (int64_t w = 0; w < sp[2]; w++)
                        s += ld_f32(gy, b * gs[0] + co * gs[1] + d * gs[2] + h * gs[3] + w * gs[4]);
        st_f32(gb, co * gb->strides[0], s);
    });
}

void conv_fill_value(acl_view *v, float value) {
    int64_t n = acl_view_numel(v), idx[ACL_MAX_VIEW_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        for (int i = 0; i < v->ndim; i++) off += idx[i] * v->strides[i];
        st_f32(v, off, value);
        for (int i = v->ndim - 1; i >= 0; i--) {
            if (++idx[i] < v->dims[i]) break;
            idx[i] = 0;
        }
    }
}

void conv_fill_bias(acl_view *v, const acl_view *bias, int axis) {
    int64_t n = acl_view_numel(v), idx[ACL_MAX_VIEW_RANK] = {0};
    for (int64_t e = 0; e < n; e++) {
        int64_t off = 0;
        for (int i = 0; i < v->ndim; i++) off += idx[i] * v->strides[i];
        st_f32(v, off, ld_f32(bias, idx[axis] * bias->strides[0]));
        for (int i = v->ndim - 1; i >= 0; i--) {
            if (++idx[i] < v->dims[i]) break;
            idx[i] = 0;
        }
    }
}

void conv_fill_zero(acl_view *v) { conv_fill_value(v, 0.0f); }

void conv_deform_gather(const acl_view *x, const acl_view *off, const conv_deform *g, float *dst) {
    const int64_t C = g->c, kH = g->kh, kW = g->kw, oH = g->oh, oW = g->ow, K = kH * kW;
    const int64_t cpg = C / g->dg, rowlen = oW * kW;
    const int64_t rows = g->n * C * oH;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * rowlen * 8))
    for (int64_t r = 0; r < rows; r++) { /* one (n, c, oh): kH rows of the sampled image */
        const int64_t oh = r % oH, c = (r / oH) % C, n = r / (oH * C), dgi = c / cpg;
        const int64_t xb = n * x->strides[0] + c * x->strides[1];
        for (int64_t kh = 0; kh < kH; kh++) {
            float *drow = dst + ((n * C + c) * oH * kH + oh * kH + kh) * rowlen;
            for (int64_t ow = 0; ow < oW; ow++)
                for (int64_t kw = 0; kw < kW; kw++) {
                    const int64_t k = kh * kW + kw;
                    const int64_t ob = n * off->strides[0] + oh * off->strides[2] + ow * off->strides[3];
                    const int64_t ch = dgi * K + k;
                    const float dx = ld_f32(off, ob + ch * off->strides[1]);
                    const float dy = ld_f32(off, ob + (g->dg * K + ch) * off->strides[1]);
                    const float m = ld_f32(off, ob + (2 * g->dg * K + ch) * off->strides[1]);
                    const float px = (float)(ow * g->sw - g->pw + kw * g->dw) + dx;
                    const float py = (float)(oh * g->sh - g->ph + kh * g->dh) + dy;
                    float v = 0.0f;
                    if (px > -2.0f && py > -2.0f && px < (float)g->w + 1.0f && py < (float)g->h + 1.0f) {
                        const float fx = floorf(px), fy = floorf(py);
                        const int64_t x0 = (int64_t)fx, y0 = (int64_t)fy, x1 = x0 + 1, y1 = y0 + 1;
                        const float ax = px - fx, ay = py - fy, bx = (fx + 1.0f) - px, by = (fy + 1.0f) - py;
                        const bool vx0 = x0 >= 0 && x0 < g->w, vx1 = x1 >= 0 && x1 < g->w;
                        const bool vy0 = y0 >= 0 && y0 < g->h, vy1 = y1 >= 0 && y1 < g->h;
                        const float wlt = (vx0 && vy0) ? bx * by * m : 0.0f, wlb = (vx0 && vy1) ? bx * ay * m : 0.0f;
                        const float wrt = (vx1 && vy0) ? ax * by * m : 0.0f, wrb = (vx1 && vy1) ? ax * ay * m : 0.0f;
                        const int64_t sh = x->strides[2], sw = x->strides[3];
                        const float lt = (vx0 && vy0) ? ld_f32(x, xb + y0 * sh + x0 * sw) * wlt : 0.0f;
                        const float rt = (vx1 && vy0) ? ld_f32(x, xb + y0 * sh + x1 * sw) * wrt : 0.0f;
                        const float lb = (vx0 && vy1) ? ld_f32(x, xb + y1 * sh + x0 * sw) * wlb : 0.0f;
                        const float rb = (vx1 && vy1) ? ld_f32(x, xb + y1 * sh + x1 * sw) * wrb : 0.0f;
                        v = (lt + rt) + (lb + rb);
                    }
                    drow[ow * kW + kw] = v;
                }
        }
    }
}

void conv_store_view(const float *src, acl_view *v) {
    /* src is the contiguous 4-d image of v's shape */
    const int64_t d1 = v->dims[1], d2 = v->dims[2], d3 = v->dims[3];
    const int64_t rows = v->dims[0] * d1 * d2;
    ACL_FOR(acl_parallel_worth(rows * d3), r, 0, rows, {
        const int64_t i2 = r % d2, i1 = (r / d2) % d1, i0 = r / (d1 * d2);
        const int64_t base = i0 * v->strides[0] + i1 * v->strides[1] + i2 * v->strides[2];
        for (int64_t i3 = 0; i3 < d3; i3++) st_f32(v, base + i3 * v->strides[3], src[r * d3 + i3]);
    });
}

void conv_quant_forward(const conv_plan *p, const acl_view *x, const acl_view *w, const acl_view *scale,
                        const acl_view *bias, acl_view *y) {
    int64_t xs[5], ws[5], ys[5];
    axis_strides(x, p->xpos, xs);
    axis_strides(w, p->wpos, ws);
    axis_strides(y, p->ypos, ys);
    const int8_t *xb = (const int8_t *)x->base, *wb = (const int8_t *)w->base;
    const int64_t oD = p->out[0], oH = p->out[1], oW = p->out[2], cig = p->cig, cog = p->cog;
    const int64_t rows = p->n * p->co * oD * oH;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * oW * p->kdim))
    for (int64_t r = 0; r < rows; r++) { /* one (n, co, od, oh) output row */
        const int64_t oh = r % oH, od = (r / oH) % oD, co = (r / (oH * oD)) % p->co, n = r / (oH * oD * p->co);
        const int64_t g = co / cog;
        const float sc = ld_f32(scale, co * scale->strides[0]);
        const float bs = bias ? ld_f32(bias, co * bias->strides[0]) : 0.0f;
        for (int64_t ow = 0; ow < oW; ow++) {
            int64_t acc = 0; /* exact: int8 products summed in integers */
            for (int64_t c = 0; c < cig; c++)
                for (int64_t kd = 0; kd < p->k[0]; kd++) {
                    const int64_t id = p->tab[0][kd * oD + od];
                    if (id < 0) continue;
                    for (int64_t kh = 0; kh < p->k[1]; kh++) {
                        const int64_t ih = p->tab[1][kh * oH + oh];
                        if (ih < 0) continue;
                        const int8_t *xr = xb + n * xs[0] + (g * cig + c) * xs[1] + id * xs[2] + ih * xs[3];
                        const int8_t *wr = wb + co * ws[0] + c * ws[1] + kd * ws[2] + kh * ws[3];
                        for (int64_t kw = 0; kw < p->k[2]; kw++) {
                            const int64_t iw = p->tab[2][kw * oW + ow];
                            if (iw >= 0) acc += (int64_t)xr[iw * xs[4]] * (int64_t)wr[kw * ws[4]];
                        }
                    }
                }
            st_f32(y, n * ys[0] + co * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4], (float)acc * sc + bs);
        }
    }
}
