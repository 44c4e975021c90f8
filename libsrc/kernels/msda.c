/* Multi-scale deformable attention, forward and backward, computed in fp32 (see msda.h for layouts).
 *
 * spatial shapes and level starts are device data that phase 1 never trusted: they are read here, cast to
 * int32 as the hardware does (INT64 values truncated), and every corner's key index is computed in int64 and
 * dropped unless it lies in [0, K). So no value of them can cause an out-of-bounds access. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/msda.h"

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/msda.inc"
#include "kernels/dtype_end.h"
#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/msda.inc"
#include "kernels/dtype_end.h"
#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/msda.inc"
#include "kernels/dtype_end.h"

/* ---- per-dtype dispatch of the row conversions ---- */

typedef struct {
    void (*load_row)(const char *src, int64_t stride, float *dst, int64_t n);
    void (*store_row)(const float *src, char *dst, int64_t stride, int64_t n);
    float (*load1)(const char *p);
    void (*store1)(char *p, float v);
    int64_t es; /* element size in bytes */
} msda_io;

static msda_io io_for(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT16: return (msda_io){msda_load_row_f16, msda_store_row_f16, msda_load1_f16, msda_store1_f16, 2};
    case ACL_BF16: return (msda_io){msda_load_row_bf16, msda_store_row_bf16, msda_load1_bf16, msda_store1_bf16, 2};
    default: return (msda_io){msda_load_row_f32, msda_store_row_f32, msda_load1_f32, msda_store1_f32, 4};
    }
}

/* One element as fp32, inlined (the per-sample loads are too frequent for an indirect call). */
static inline float ld1(const msda_io *io, const char *p) {
    if (io->es == 4) {
        float v;
        memcpy(&v, p, 4);
        return v;
    }
    return io->load1(p);
}

static inline const char *elem(const msda_ten *t, const msda_io *io, int64_t off) { return t->base + off * io->es; }

/* ---- levels: read from device memory at run time, truncated to int32 like the hardware cast ---- */

typedef struct {
    int64_t H, W, S;
    float Hf, Wf;
} msda_level;

static int64_t read_i32(const msda_ten *t, int64_t off) {
    if (t->dtype == ACL_INT64) {
        int64_t v;
        memcpy(&v, t->base + off * 8, 8);
        return (int32_t)(uint32_t)(uint64_t)v; /* keep the low 32 bits, as an INT64 -> INT32 cast does */
    }
    int32_t v;
    memcpy(&v, t->base + off * 4, 4);
    return v;
}

static void read_levels(const msda_problem *p, msda_level *lv) {
    for (int64_t l = 0; l < p->nl; l++) {
        lv[l].H = read_i32(&p->shape, l * p->shape.st[0]);
        lv[l].W = read_i32(&p->shape, l * p->shape.st[0] + p->shape.st[1]);
        lv[l].S = read_i32(&p->start, l * p->start.st[0]);
        lv[l].Hf = (float)lv[l].H;
        lv[l].Wf = (float)lv[l].W;
    }
}

/* Bilinear geometry of one sampling point. False when the point lies outside the validity window
 * (hIm, wIm) in (-1, H) x (-1, W) (NaN included). Otherwise w[] holds the four corner weights
 * (h0,w0), (h0,w0+1), (h0+1,w0), (h0+1,w0+1), f[] = (hh, lh, hw, lw), and key[k] is the corner's key index,
 * or -1 when the corner is outside the level or its key falls outside [0, K). */
static inline bool msda_geom(float lx, float ly, const msda_level *L, int64_t K, int64_t key[4], float w[4],
                             float f[4]) {
    float hIm = ly * L->Hf - 0.5f;
    float wIm = lx * L->Wf - 0.5f;
    if (!(hIm > -1.0f && wIm > -1.0f && hIm < L->Hf && wIm < L->Wf)) return false;
    float hfl = floorf(hIm), wfl = floorf(wIm);
    int64_t h0 = (int64_t)hfl, w0 = (int64_t)wfl; /* in [-1, 2^31) */
    float lh = hIm - hfl, lw = wIm - wfl, hh = 1.0f - lh, hw = 1.0f - lw;
    w[0] = hh * hw;
    w[1] = hh * lw;
    w[2] = lh * hw;
    w[3] = lh * lw;
    f[0] = hh;
    f[1] = lh;
    f[2] = hw;
    f[3] = lw;
    bool r0 = h0 >= 0, r1 = h0 + 1 < L->H, c0 = w0 >= 0, c1 = w0 + 1 < L->W;
    int64_t row0 = L->S + h0 * L->W, row1 = row0 + L->W; /* |values| < 2^63: H, W, S are int32 */
    key[0] = (r0 && c0) ? row0 + w0 : -1;
    key[1] = (r0 && c1) ? row0 + w0 + 1 : -1;
    key[2] = (r1 && c0) ? row1 + w0 : -1;
    key[3] = (r1 && c1) ? row1 + w0 + 1 : -1;
    for (int k = 0; k < 4; k++)
        if (key[k] < 0 || key[k] >= K) key[k] = -1;
    return true;
}

static const float k_zero_row[MSDA_MAX_C] __attribute__((aligned(64)));

/* ---- scratch plan ---- */

static bool plan_scratch(const msda_problem *p, bool backward, int64_t nslots, msda_scratch *s) {
    memset(s, 0, sizeof *s);
    /* Always staged when there is more than one head: value[b, :, h, :] rows are nh*C apart, and a contiguous
     * fp32 copy (and accumulator) keeps the sampling's working set dense in cache and TLB. */
    bool dense_v = p->value.dtype == ACL_FLOAT && p->value.st[3] == 1 && p->value.st[1] == p->C;
    bool dense_g = p->gv.dtype == ACL_FLOAT && p->gv.st[3] == 1 && p->gv.st[1] == p->C;
    s->stage_value = !dense_v;
    s->stage_gv = backward && !dense_g;
    int64_t kc, per = 0;
    if (!__builtin_mul_overflow(p->K, p->C, &kc)) {
        if (s->stage_value) per += kc;
        if (s->stage_gv) per += kc;
    } else {
        return false;
    }
    s->slot_floats = per;
    s->nslots = nslots < 1 ? 1 : nslots;
    int64_t total;
    return !__builtin_mul_overflow(per, s->nslots, &total) && !__builtin_mul_overflow(total, (int64_t)sizeof(float), &total);
}

int msda_alloc_scratch(const msda_problem *p, bool backward, msda_scratch *s) {
    int64_t owners = p->bs * p->nh, nslots = acl_max_threads();
    if (nslots > owners) nslots = owners;
    ACLNN_CHECK(plan_scratch(p, backward, nslots, s), ACLNN_ERR_PARAM_INVALID,
                "value is too large: its fp32 scratch size overflows int64");
    if (s->slot_floats > 0) {
        size_t bytes = (size_t)s->slot_floats * (size_t)s->nslots * sizeof(float);
        s->buf = malloc(bytes);
        ACLNN_CHECK(s->buf != NULL, ACLNN_ERR_INNER, "out of memory allocating %zu bytes of fp32 scratch", bytes);
    }
    return 0;
}

/* The fp32 view of value[b, :, h, :]: staged into `slot` when needed. */
static const float *value_rows(const msda_problem *p, const msda_scratch *s, const msda_io *vio, int64_t b, int64_t h,
                               float *slot, int64_t *key_stride) {
    const msda_ten *v = &p->value;
    if (!s->stage_value) {
        *key_stride = v->st[1];
        return (const float *)v->base + b * v->st[0] + h * v->st[2];
    }
    for (int64_t k = 0; k < p->K; k++)
        vio->load_row(elem(v, vio, b * v->st[0] + k * v->st[1] + h * v->st[2]), v->st[3], slot + k * p->C, p->C);
    *key_stride = p->C;
    return slot;
}

/* ---- backward ---- */

/* Sums over the channels of one sampling point: ga = sum go*val, gw/gh the x/y derivative sums. Eight fixed
 * partial sums (C % 8 == 0), combined in a fixed order, so the loop vectorises and stays deterministic. */
static inline void bwd_point(const float *restrict x1, const float *restrict x2, const float *restrict x3,
                             const float *restrict x4, const float *restrict go, float a, const float w[4],
                             const float f[4], int64_t C, float out[3]) {
    float sa[8] = {0}, sw[8] = {0}, sh[8] = {0};
    const float w1 = w[0], w2 = w[1], w3 = w[2], w4 = w[3];
    const float hh = f[0], lh = f[1], hw = f[2], lw = f[3];
    for (int64_t c0 = 0; c0 < C; c0 += 8) {
        for (int j = 0; j < 8; j++) {
            int64_t c = c0 + j;
            float v1 = x1[c], v2 = x2[c], v3 = x3[c], v4 = x4[c];
            float g = go[c], t = a * g;
            float val = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
            sa[j] += g * val;
            sw[j] += t * (hh * (v2 - v1) + lh * (v4 - v3));
            sh[j] += t * (hw * (v3 - v1) + lw * (v4 - v2));
        }
    }
    out[0] = ((sa[0] + sa[1]) + (sa[2] + sa[3])) + ((sa[4] + sa[5]) + (sa[6] + sa[7]));
    out[1] = ((sw[0] + sw[1]) + (sw[2] + sw[3])) + ((sw[4] + sw[5]) + (sw[6] + sw[7]));
    out[2] = ((sh[0] + sh[1]) + (sh[2] + sh[3])) + ((sh[4] + sh[5]) + (sh[6] + sh[7]));
}

static inline void scatter_row(float *restrict g, const float *restrict go, float a, float wk, int64_t C) {
    for (int64_t c = 0; c < C; c++) g[c] += wk * (a * go[c]);
}

__attribute__((target_clones("avx2", "default")))
static void bwd_owner(const msda_problem *p, const msda_scratch *s, const msda_level *lv, int64_t b, int64_t h,
                      float *slot) {
    const int64_t K = p->K, C = p->C;
    msda_io vio = io_for(p->value.dtype), rio = io_for(p->rows.dtype), lio = io_for(p->loc.dtype),
            aio = io_for(p->attn.dtype), gvio = io_for(p->gv.dtype), glio = io_for(p->gloc.dtype),
            gaio = io_for(p->gattn.dtype);
    int64_t vks, gks;
    const float *vb = value_rows(p, s, &vio, b, h, slot, &vks);
    float *gb;
    const msda_ten *gv = &p->gv;
    if (s->stage_gv) {
        gb = slot + (s->stage_value ? K * C : 0);
        gks = C;
        memset(gb, 0, (size_t)(K * C) * sizeof(float));
    } else {
        gb = (float *)gv->base + b * gv->st[0] + h * gv->st[2];
        gks = gv->st[1];
        for (int64_t k = 0; k < K; k++) memset(gb + k * gks, 0, (size_t)C * sizeof(float));
    }
    float go[MSDA_MAX_C] __attribute__((aligned(64)));
    const msda_ten *L = &p->loc, *A = &p->attn, *R = &p->rows, *GL = &p->gloc, *GA = &p->gattn;
    for (int64_t q = 0; q < p->nq; q++) {
        rio.load_row(elem(R, &rio, b * R->st[0] + q * R->st[1] + h * R->st[2]), R->st[3], go, C);
        int64_t lq = b * L->st[0] + q * L->st[1] + h * L->st[2];
        int64_t aq = b * A->st[0] + q * A->st[1] + h * A->st[2];
        int64_t glq = b * GL->st[0] + q * GL->st[1] + h * GL->st[2];
        int64_t gaq = b * GA->st[0] + q * GA->st[1] + h * GA->st[2];
        for (int64_t l = 0; l < p->nl; l++) {
            for (int64_t pt = 0; pt < p->np; pt++) {
                int64_t lo = lq + l * L->st[3] + pt * L->st[4];
                float a = ld1(&aio, elem(A, &aio, aq + l * A->st[3] + pt * A->st[4]));
                float lx = ld1(&lio, elem(L, &lio, lo)), ly = ld1(&lio, elem(L, &lio, lo + L->st[5]));
                int64_t key[4];
                float w[4], f[4], res[3] = {0.0f, 0.0f, 0.0f};
                float gx = 0.0f, gy = 0.0f;
                if (msda_geom(lx, ly, &lv[l], K, key, w, f)) {
                    const float *x[4];
                    for (int k = 0; k < 4; k++) x[k] = key[k] >= 0 ? vb + key[k] * vks : k_zero_row;
                    bwd_point(x[0], x[1], x[2], x[3], go, a, w, f, C, res);
                    for (int k = 0; k < 4; k++)
                        if (key[k] >= 0) scatter_row(gb + key[k] * gks, go, a, w[k], C);
                    gx = lv[l].Wf * res[1];
                    gy = lv[l].Hf * res[2];
                }
                int64_t glo = glq + l * GL->st[3] + pt * GL->st[4];
                glio.store1((char *)elem(GL, &glio, glo), gx);
                glio.store1((char *)elem(GL, &glio, glo + GL->st[5]), gy);
                gaio.store1((char *)elem(GA, &gaio, gaq + l * GA->st[3] + pt * GA->st[4]), res[0]);
            }
        }
    }
    if (s->stage_gv)
        for (int64_t k = 0; k < K; k++)
            gvio.store_row(gb + k * C, (char *)elem(gv, &gvio, b * gv->st[0] + k * gv->st[1] + h * gv->st[2]),
                           gv->st[3], C);
}

/* ---- forward ---- */

static inline void fwd_point(float *restrict acc, const float *restrict x1, const float *restrict x2,
                             const float *restrict x3, const float *restrict x4, float a, const float w[4], int64_t C) {
    const float w1 = w[0], w2 = w[1], w3 = w[2], w4 = w[3];
    for (int64_t c = 0; c < C; c++) acc[c] += a * (w1 * x1[c] + w2 * x2[c] + w3 * x3[c] + w4 * x4[c]);
}

__attribute__((target_clones("avx2", "default")))
static void fwd_owner(const msda_problem *p, const msda_scratch *s, const msda_level *lv, int64_t b, int64_t h,
                      float *slot) {
    const int64_t K = p->K, C = p->C;
    msda_io vio = io_for(p->value.dtype), rio = io_for(p->rows.dtype), lio = io_for(p->loc.dtype),
            aio = io_for(p->attn.dtype);
    int64_t vks;
    const float *vb = value_rows(p, s, &vio, b, h, slot, &vks);
    float acc[MSDA_MAX_C] __attribute__((aligned(64)));
    const msda_ten *L = &p->loc, *A = &p->attn, *R = &p->rows;
    for (int64_t q = 0; q < p->nq; q++) {
        memset(acc, 0, (size_t)C * sizeof(float));
        int64_t lq = b * L->st[0] + q * L->st[1] + h * L->st[2];
        int64_t aq = b * A->st[0] + q * A->st[1] + h * A->st[2];
        for (int64_t l = 0; l < p->nl; l++) {
            for (int64_t pt = 0; pt < p->np; pt++) {
                int64_t lo = lq + l * L->st[3] + pt * L->st[4];
                float a = ld1(&aio, elem(A, &aio, aq + l * A->st[3] + pt * A->st[4]));
                float lx = ld1(&lio, elem(L, &lio, lo)), ly = ld1(&lio, elem(L, &lio, lo + L->st[5]));
                int64_t key[4];
                float w[4], f[4];
                if (!msda_geom(lx, ly, &lv[l], K, key, w, f)) continue;
                const float *x[4];
                for (int k = 0; k < 4; k++) x[k] = key[k] >= 0 ? vb + key[k] * vks : k_zero_row;
                fwd_point(acc, x[0], x[1], x[2], x[3], a, w, C);
            }
        }
        rio.store_row(acc, (char *)elem(R, &rio, b * R->st[0] + q * R->st[1] + h * R->st[2]), R->st[3], C);
    }
}

/* ---- drivers: one owner per (b, h); the slot of scratch follows the thread, the result does not ---- */

typedef void (*owner_fn)(const msda_problem *, const msda_scratch *, const msda_level *, int64_t, int64_t, float *);

static void run_owners(const msda_problem *p, const msda_scratch *s, owner_fn fn) {
    msda_level lv[MSDA_MAX_LEVELS];
    read_levels(p, lv);
    const int64_t owners = p->bs * p->nh;
    int64_t nt = acl_max_threads();
    if (nt > s->nslots) nt = s->nslots;
    if (nt > owners) nt = owners;
    double work = (double)p->bs * (double)p->nq * (double)p->nh * (double)p->nl * (double)p->np * (double)p->C * 4.0;
    int par = nt > 1 && acl_parallel_worth(work > 1e15 ? (int64_t)1e15 : (int64_t)work);
#pragma omp parallel num_threads((int)nt) if (par)
    {
        int tid = 0;
#ifdef _OPENMP
        tid = omp_get_thread_num();
#endif
        float *slot = s->buf ? s->buf + (int64_t)tid * s->slot_floats : NULL;
#pragma omp for schedule(static)
        for (int64_t o = 0; o < owners; o++) fn(p, s, lv, o / p->nh, o % p->nh, slot);
    }
}

void msda_backward(const msda_problem *p, const msda_scratch *s) { run_owners(p, s, bwd_owner); }

void msda_forward(const msda_problem *p, const msda_scratch *s) { run_owners(p, s, fwd_owner); }
