/* Multi-scale deformable attention, forward and backward, computed in fp32 (see msda.h for layouts).
 *
 * spatial shapes and level starts are device data that phase 1 never trusted: they are read here, cast to
 * int32 as the hardware does (INT64 values truncated), and every corner's key index is computed in int64 and
 * dropped unless it lies in [0, K). So no value of them can cause an out-of-bounds access. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "common/cpu.h"
#include "common/nan_order.h"
#include "kernels/f16_rows.h"
#include "kernels/msda.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define MSDA_HAVE_AVX2 1 /* the AVX2 and AVX-512 owner loops are built and chosen at run time */
#endif

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

/* ---- per-dtype dispatch of the strided conversions (dense rows and blocks use cvt_load / cvt_store) ---- */

typedef struct {
    void (*load_row)(const char *src, int64_t stride, float *dst, int64_t n);
    void (*store_row)(const float *src, char *dst, int64_t stride, int64_t n);
    void (*load_block)(const char *src, const int64_t st[3], int64_t n0, int64_t n1, int64_t n2, float *dst);
    void (*store_block)(const float *src, char *dst, const int64_t st[3], int64_t n0, int64_t n1, int64_t n2);
    int64_t es; /* element size in bytes */
} msda_io;

/* fp16 -> fp32 without branches, so contiguous rows vectorise; bit-identical to acl_f16_to_f32 for all 65536
 * inputs (NaN payloads kept, no quieting). */
static inline float f16_to_f32_nb(uint16_t h) {
    const uint32_t em = h & 0x7fffu;
    const uint32_t norm = (em << 13) + 0x38000000u;  /* normal: rebias the exponent */
    const uint32_t special = (em << 13) | 0x7f800000u; /* inf / NaN: all-ones exponent, payload kept */
    const float subf = (float)(int32_t)em * 5.9604644775390625e-08f; /* subnormal or zero: em * 2^-24, exact */
    uint32_t sub;
    memcpy(&sub, &subf, 4);
    const uint32_t is_special = 0u - (uint32_t)(em >= 0x7c00u), is_sub = 0u - (uint32_t)(em < 0x0400u);
    uint32_t bits = (norm & ~(is_special | is_sub)) | (special & is_special) | (sub & is_sub); /* masks: no branch */
    bits |= (uint32_t)(h & 0x8000u) << 16;
    float out;
    memcpy(&out, &bits, 4);
    return out;
}

static msda_io io_for(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT16:
        return (msda_io){msda_load_row_f16, msda_store_row_f16, msda_load_block_f16, msda_store_block_f16, 2};
    case ACL_BF16:
        return (msda_io){msda_load_row_bf16, msda_store_row_bf16, msda_load_block_bf16, msda_store_block_bf16, 2};
    default: return (msda_io){msda_load_row_f32, msda_store_row_f32, msda_load_block_f32, msda_store_block_f32, 4};
    }
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
        if (l >= p->nstart) { /* no levelStartIndex entry: a NaN extent puts every point outside the level */
            lv[l] = (msda_level){.H = 0, .W = 0, .S = 0, .Hf = NAN, .Wf = NAN};
            continue;
        }
        lv[l].H = read_i32(&p->shape, l * p->shape.st[0]);
        lv[l].W = read_i32(&p->shape, l * p->shape.st[0] + p->shape.st[1]);
        lv[l].S = read_i32(&p->start, l * p->start.st[0]);
        lv[l].Hf = (float)lv[l].H;
        lv[l].Wf = (float)lv[l].W;
    }
}

#define MSDA_INLINE static inline __attribute__((always_inline))
#define MSDA_MAX_PTS (MSDA_MAX_LEVELS * 16) /* levels x points per query (both at most 16) */

/* Bilinear geometry of one sampling point: w[] the four corner weights (h0,w0), (h0,w0+1), (h0+1,w0),
 * (h0+1,w0+1), f[] = (hh, lh, hw, lw); the corners' keys either as k0 (all four in range: k0, k0+1, k0+W,
 * k0+W+1) or as key[k], -1 for a corner outside the level or whose key falls outside [0, K). */
typedef struct {
    float w[4], f[4];
    int64_t k0;
    int64_t key[4];
} msda_pt;

enum { MSDA_OUT = 0, MSDA_INNER = 1, MSDA_EDGE = 2 };

/* MSDA_OUT when the point lies outside the validity window (hIm, wIm) in (-1, H) x (-1, W) (NaN included);
 * MSDA_INNER when all four corners are inside the level and their keys inside [0, K) (g->k0 set);
 * MSDA_EDGE otherwise (g->key[] set). */
MSDA_INLINE int msda_geom(float lx, float ly, const msda_level *L, int64_t K, msda_pt *g) {
    const float hIm = ly * L->Hf - 0.5f;
    const float wIm = lx * L->Wf - 0.5f;
    if (!(hIm > -1.0f && wIm > -1.0f && hIm < L->Hf && wIm < L->Wf)) return MSDA_OUT;
    const float hfl = floorf(hIm), wfl = floorf(wIm);
    const int64_t h0 = (int64_t)hfl, w0 = (int64_t)wfl; /* in [-1, 2^31) */
    const float lh = hIm - hfl, lw = wIm - wfl, hh = 1.0f - lh, hw = 1.0f - lw;
    g->w[0] = hh * hw;
    g->w[1] = hh * lw;
    g->w[2] = lh * hw;
    g->w[3] = lh * lw;
    g->f[0] = hh;
    g->f[1] = lh;
    g->f[2] = hw;
    g->f[3] = lw;
    const int64_t row0 = L->S + h0 * L->W, row1 = row0 + L->W; /* |values| < 2^63: H, W, S are int32 */
    if (h0 >= 0 && h0 + 1 < L->H && w0 >= 0 && w0 + 1 < L->W && row0 + w0 >= 0 && row1 + w0 + 1 < K) {
        g->k0 = row0 + w0;
        return MSDA_INNER;
    }
    const bool r0 = h0 >= 0, r1 = h0 + 1 < L->H, c0 = w0 >= 0, c1 = w0 + 1 < L->W;
    g->key[0] = (r0 && c0) ? row0 + w0 : -1;
    g->key[1] = (r0 && c1) ? row0 + w0 + 1 : -1;
    g->key[2] = (r1 && c0) ? row1 + w0 : -1;
    g->key[3] = (r1 && c1) ? row1 + w0 + 1 : -1;
    for (int k = 0; k < 4; k++)
        if (g->key[k] < 0 || g->key[k] >= K) g->key[k] = -1;
    return MSDA_EDGE;
}

static const float k_zero_row[MSDA_MAX_C] __attribute__((aligned(64)));

/* The four corner rows of a point: value rows x[] (k_zero_row for a missing corner) and, when gb is not NULL,
 * the gradValue accumulator rows gr[] (NULL for a missing corner). */
MSDA_INLINE void msda_corner_rows(const msda_pt *g, int kind, const msda_level *L, const float *vb, int64_t vks,
                                  float *gb, int64_t gks, const float *x[4], float *gr[4]) {
    if (kind == MSDA_INNER) {
        x[0] = vb + g->k0 * vks;
        x[1] = x[0] + vks;
        x[2] = x[0] + L->W * vks;
        x[3] = x[2] + vks;
        if (gb) {
            gr[0] = gb + g->k0 * gks;
            gr[1] = gr[0] + gks;
            gr[2] = gr[0] + L->W * gks;
            gr[3] = gr[2] + gks;
        } else {
            gr[0] = gr[1] = gr[2] = gr[3] = NULL;
        }
        return;
    }
    for (int k = 0; k < 4; k++) {
        x[k] = g->key[k] >= 0 ? vb + g->key[k] * vks : k_zero_row;
        gr[k] = gb && g->key[k] >= 0 ? gb + g->key[k] * gks : NULL;
    }
}

/* ---- scratch plan ---- */

static bool plan_scratch(const msda_problem *p, bool backward, int64_t nslots, msda_scratch *s) {
    memset(s, 0, sizeof *s);
    /* Always staged when there is more than one head: value[b, :, h, :] rows are nh*C apart, and a contiguous
     * fp32 copy (and accumulator) keeps the sampling's working set dense in cache and TLB. */
    bool dense_v = p->value.dtype == ACL_FLOAT && p->value.st[3] == 1 && p->value.st[1] == p->C;
    bool dense_g = p->gv.dtype == ACL_FLOAT && p->gv.st[3] == 1 && p->gv.st[1] == p->C;
    s->stage_value = !dense_v;
    s->stage_gv = backward && !dense_g;
    /* each part starts on a 64-byte line: kc rounded up to 16 floats (kc < 2^62 after the check) */
    int64_t kc, per = 0;
    if (__builtin_mul_overflow(p->K, p->C, &kc) || kc > ((int64_t)1 << 62)) return false;
    kc = (kc + 15) & ~(int64_t)15;
    if (s->stage_value) per += kc;
    s->gv_offset = per;
    if (s->stage_gv) per += kc;
    s->slot_floats = per;
    s->nslots = nslots < 1 ? 1 : nslots;
    int64_t total;
    return !__builtin_mul_overflow(per, s->nslots, &total) && !__builtin_mul_overflow(total, (int64_t)sizeof(float), &total);
}

/* One scratch buffer is kept between executors (the largest recently freed): a training loop calls the op with
 * the same sizes every step, and fresh pages would be faulted in and zeroed by the kernel on every call. Large
 * buffers sit on 2 MiB boundaries with transparent huge pages requested, since the sampling reads and
 * accumulates all over them. */
static pthread_mutex_t g_scratch_lock = PTHREAD_MUTEX_INITIALIZER;
static void *g_scratch_buf;
static size_t g_scratch_bytes;
#define MSDA_HUGE ((size_t)2 << 20)
#define MSDA_KEEP_MAX ((size_t)256 << 20) /* larger buffers are not kept */

static void *scratch_get(size_t bytes, size_t *got) {
    pthread_mutex_lock(&g_scratch_lock);
    void *p = g_scratch_buf;
    size_t have = g_scratch_bytes;
    if (p && have >= bytes) {
        g_scratch_buf = NULL;
        g_scratch_bytes = 0;
    } else {
        p = NULL;
    }
    pthread_mutex_unlock(&g_scratch_lock);
    if (p) {
        *got = have;
        return p;
    }
    if (bytes >= MSDA_HUGE) {
        const size_t rounded = (bytes + MSDA_HUGE - 1) / MSDA_HUGE * MSDA_HUGE;
        if (posix_memalign(&p, MSDA_HUGE, rounded) != 0) return NULL;
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: failure changes nothing */
        *got = rounded;
        return p;
    }
    *got = bytes;
    return aligned_alloc(64, bytes); /* bytes is a multiple of 64: slot_floats is a multiple of 16 */
}

void msda_free_scratch(msda_scratch *s) {
    void *p = s->buf;
    size_t bytes = s->buf_bytes;
    s->buf = NULL;
    if (!p) return;
    if (bytes <= MSDA_KEEP_MAX) {
        pthread_mutex_lock(&g_scratch_lock);
        if (bytes > g_scratch_bytes) { /* keep the larger one */
            void *old = g_scratch_buf;
            g_scratch_buf = p;
            g_scratch_bytes = bytes;
            p = old;
        }
        pthread_mutex_unlock(&g_scratch_lock);
    }
    free(p);
}

int msda_alloc_scratch(const msda_problem *p, bool backward, msda_scratch *s) {
    int64_t owners = p->bs * p->nh, nslots = acl_max_threads();
    if (nslots > owners) nslots = owners;
    ACLNN_CHECK(plan_scratch(p, backward, nslots, s), ACLNN_ERR_PARAM_INVALID,
                "value is too large: its fp32 scratch size overflows int64");
    if (s->slot_floats > 0) {
        size_t bytes = (size_t)s->slot_floats * (size_t)s->nslots * sizeof(float);
        s->buf = scratch_get(bytes, &s->buf_bytes);
        ACLNN_CHECK(s->buf != NULL, ACLNN_ERR_INNER, "out of memory allocating %zu bytes of fp32 scratch", bytes);
    }
    return 0;
}

/* ---- software prefetch of the strided per-query streams (hints only: never dereferenced) ---- */

#define MSDA_PF_ROWS 16 /* rows ahead when staging or storing value-shaped blocks */
#define MSDA_PF_QUERIES 6 /* queries ahead whose input/output lines are prefetched */
#define MSDA_PF_MAX_BYTES 512

/* Bytes spanned by an (n0, n1, n2) block with element strides s0..s2 (non-negative), or 0 when it is larger
 * than MSDA_PF_MAX_BYTES (then it is not prefetched). */
static int64_t msda_span(int64_t s0, int64_t n0, int64_t n1, int64_t s1, int64_t n2, int64_t s2, int64_t es) {
    int64_t last = (n0 - 1) * s0 + (n1 - 1) * s1 + (n2 - 1) * s2 + 1;
    return last > 0 && last * es <= MSDA_PF_MAX_BYTES ? last * es : 0;
}

static inline void pf_read(const char *p, int64_t bytes) {
    if (bytes <= 0) return;
    const uintptr_t end = (uintptr_t)p + (uintptr_t)bytes;
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < end; a += 64) __builtin_prefetch((const void *)a, 0, 3);
}

static inline void pf_write(const char *p, int64_t bytes) {
    if (bytes <= 0) return;
    const uintptr_t end = (uintptr_t)p + (uintptr_t)bytes;
    for (uintptr_t a = (uintptr_t)p & ~(uintptr_t)63; a < end; a += 64) __builtin_prefetch((const void *)a, 1, 3);
}

/* Dense row conversions, inlined into each owner variant (bit-identical to acl_f16_to_f32 / acl_f32_to_f16 / the
 * bf16 pair for every input). The fp16 and bf16 rows go through common/half_rows.h's row converters: staging
 * one owner's value rows (20000 keys x 32) took 0.25 ms portable / 0.12 ms AVX-512 with the element loops GCC
 * vectorised, 0.07 / 0.05 ms with those. */
/* The level of the fp16 row conversions (acl_simd_level, read once: the owner loops test it per row). With F16C /
 * AVX-512 they are kernels/f16_rows.h's, bit-identical to the portable ones (NaN blocks by the element functions):
 * fp16 forward 1 thread, SIMD default, Deformable-DETR encoder: the SSE2 rows of the per-query blocks and the
 * staged value rows were 1.1x the fp32 row's time. */
static int g_msda_cvt_level;
static pthread_once_t g_msda_cvt_once = PTHREAD_ONCE_INIT;
static void msda_cvt_init(void) { g_msda_cvt_level = acl_simd_level(); }

MSDA_INLINE void cvt_load(aclDataType dt, const char *src, float *restrict dst, int64_t n) {
    if (dt == ACL_FLOAT) {
        memcpy(dst, src, (size_t)n * sizeof(float));
        return;
    }
    const uint16_t *restrict s = (const uint16_t *)(const void *)src;
    if (dt == ACL_FLOAT16) {
#ifdef ACL_F16_ROWS_F16C
        if (g_msda_cvt_level >= ACL_SIMD_AVX512) {
            acl_f16_to_f32_row_avx512(dst, s, n);
            return;
        }
        if (g_msda_cvt_level >= ACL_SIMD_AVX2) {
            acl_f16_to_f32_row_f16c(dst, s, n);
            return;
        }
#endif
        acl_row_f16_to_f32(dst, s, n);
    } else {
        for (int64_t i = 0; i < n; i++) dst[i] = acl_bf16_to_f32(s[i]);
    }
}

MSDA_INLINE void cvt_store(aclDataType dt, const float *restrict src, char *dst, int64_t n) {
    if (dt == ACL_FLOAT) {
        memcpy(dst, src, (size_t)n * sizeof(float));
        return;
    }
    uint16_t *restrict d = (uint16_t *)(void *)dst;
    if (dt == ACL_FLOAT16) {
#ifdef ACL_F16_ROWS_F16C
        if (g_msda_cvt_level >= ACL_SIMD_AVX512) {
            acl_f32_to_f16_row_avx512(d, src, n);
            return;
        }
        if (g_msda_cvt_level >= ACL_SIMD_AVX2) {
            acl_f32_to_f16_row_f16c(d, src, n);
            return;
        }
#endif
        acl_row_f32_to_f16(d, src, n);
    } else {
        acl_row_f32_to_bf16(d, src, n);
    }
}

/* The fp32 view of value[b, :, h, :]: staged into `slot` when needed. */
MSDA_INLINE const float *value_rows(const msda_problem *p, const msda_scratch *s, const msda_io *vio, int64_t b, int64_t h,
                               float *slot, int64_t *key_stride) {
    const msda_ten *v = &p->value;
    if (!s->stage_value) {
        *key_stride = v->st[1];
        return (const float *)v->base + b * v->st[0] + h * v->st[2];
    }
    const int64_t span = msda_span(v->st[3], p->C, 1, 0, 1, 0, vio->es);
    for (int64_t k = 0; k < p->K; k++) {
        if (k + MSDA_PF_ROWS < p->K) pf_read(elem(v, vio, b * v->st[0] + (k + MSDA_PF_ROWS) * v->st[1] + h * v->st[2]), span);
        const char *row = elem(v, vio, b * v->st[0] + k * v->st[1] + h * v->st[2]);
        if (v->st[3] == 1) {
            cvt_load(v->dtype, row, slot + k * p->C, p->C);
        } else {
            vio->load_row(row, v->st[3], slot + k * p->C, p->C);
        }
    }
    *key_stride = p->C;
    return slot;
}

/* ---- gradValue rows: the output itself (fp32, unit channel stride) or the slot's fp32 accumulator ---- */

static float *grad_rows(const msda_problem *p, const msda_scratch *s, int64_t b, int64_t h, float *slot,
                        int64_t *key_stride) {
    const msda_ten *gv = &p->gv;
    const int64_t K = p->K, C = p->C;
    if (s->stage_gv) {
        float *gb = slot + s->gv_offset;
        memset(gb, 0, (size_t)(K * C) * sizeof(float));
        *key_stride = C;
        return gb;
    }
    float *gb = (float *)gv->base + b * gv->st[0] + h * gv->st[2];
    *key_stride = gv->st[1];
    for (int64_t k = 0; k < K; k++) memset(gb + k * gv->st[1], 0, (size_t)C * sizeof(float));
    return gb;
}

MSDA_INLINE void store_grad_rows(const msda_problem *p, const msda_scratch *s, const msda_io *gvio, int64_t b, int64_t h,
                            const float *gb) {
    if (!s->stage_gv) return;
    const msda_ten *gv = &p->gv;
    const int64_t K = p->K, C = p->C;
    const int64_t span = msda_span(gv->st[3], C, 1, 0, 1, 0, gvio->es);
    for (int64_t k = 0; k < K; k++) {
        if (k + MSDA_PF_ROWS < K)
            pf_write(elem(gv, gvio, b * gv->st[0] + (k + MSDA_PF_ROWS) * gv->st[1] + h * gv->st[2]), span);
        char *row = (char *)elem(gv, gvio, b * gv->st[0] + k * gv->st[1] + h * gv->st[2]);
        if (gv->st[3] == 1) {
            cvt_store(gv->dtype, gb + k * C, row, C);
        } else {
            gvio->store_row(gb + k * C, row, gv->st[3], C);
        }
    }
}

/* ---- per-query streams: the locations / attention weights of one (b, q, h) as fp32 blocks, read in place when
 * they are fp32 and dense in (l, p, xy), converted into a buffer otherwise; the same for the outputs ---- */

typedef struct {
    const char *L, *A, *R;
    char *GL, *GA;
    int64_t Lst[6], Ast[5], Rst[4], GLst[6], GAst[5];
    int64_t nl, np;
    aclDataType ldt, adt, rdt, gldt, gadt;
    bool loc_dense, attn_dense, gloc_dense, gattn_dense;      /* the block is one contiguous run */
    bool loc_direct, attn_direct, gloc_direct, gattn_direct; /* ... and fp32: used in place */
    int64_t lspan, aspan, rspan, glspan, gaspan;
} msda_qio;

static void msda_qio_init(msda_qio *io, const msda_problem *p, const msda_io *lio, const msda_io *aio,
                          const msda_io *rio, const msda_io *glio, const msda_io *gaio, bool backward) {
    const int64_t nl = p->nl, np = p->np, C = p->C;
    memset(io, 0, sizeof *io);
    io->nl = nl;
    io->np = np;
    io->ldt = p->loc.dtype;
    io->adt = p->attn.dtype;
    io->rdt = p->rows.dtype;
    io->L = p->loc.base;
    io->A = p->attn.base;
    io->R = p->rows.base;
    memcpy(io->Lst, p->loc.st, sizeof io->Lst);
    memcpy(io->Ast, p->attn.st, 5 * sizeof(int64_t));
    memcpy(io->Rst, p->rows.st, 4 * sizeof(int64_t));
    io->loc_dense = io->Lst[5] == 1 && io->Lst[4] == 2 && io->Lst[3] == 2 * np;
    io->attn_dense = io->Ast[4] == 1 && io->Ast[3] == np;
    io->loc_direct = p->loc.dtype == ACL_FLOAT && io->loc_dense;
    io->attn_direct = p->attn.dtype == ACL_FLOAT && io->attn_dense;
    io->lspan = msda_span(io->Lst[3], nl, np, io->Lst[4], 2, io->Lst[5], lio->es);
    io->aspan = msda_span(io->Ast[3], nl, np, io->Ast[4], 1, 0, aio->es);
    io->rspan = msda_span(io->Rst[3], C, 1, 0, 1, 0, rio->es);
    if (!backward) return;
    io->gldt = p->gloc.dtype;
    io->gadt = p->gattn.dtype;
    io->GL = (char *)p->gloc.base;
    io->GA = (char *)p->gattn.base;
    memcpy(io->GLst, p->gloc.st, sizeof io->GLst);
    memcpy(io->GAst, p->gattn.st, 5 * sizeof(int64_t));
    io->gloc_dense = io->GLst[5] == 1 && io->GLst[4] == 2 && io->GLst[3] == 2 * np;
    io->gattn_dense = io->GAst[4] == 1 && io->GAst[3] == np;
    io->gloc_direct = p->gloc.dtype == ACL_FLOAT && io->gloc_dense;
    io->gattn_direct = p->gattn.dtype == ACL_FLOAT && io->gattn_dense;
    io->glspan = msda_span(io->GLst[3], nl, np, io->GLst[4], 2, io->GLst[5], glio->es);
    io->gaspan = msda_span(io->GAst[3], nl, np, io->GAst[4], 1, 0, gaio->es);
}

/* Prefetches the lines of query qf (if it exists). */
MSDA_INLINE void msda_qio_prefetch(const msda_qio *io, const msda_problem *p, int64_t b, int64_t qf, int64_t h,
                                   bool backward) {
    if (qf >= p->nq) return;
    const int64_t les = p->loc.dtype == ACL_FLOAT ? 4 : 2, aes = p->attn.dtype == ACL_FLOAT ? 4 : 2,
                  res = p->rows.dtype == ACL_FLOAT ? 4 : 2;
    pf_read(io->L + (b * io->Lst[0] + qf * io->Lst[1] + h * io->Lst[2]) * les, io->lspan);
    pf_read(io->A + (b * io->Ast[0] + qf * io->Ast[1] + h * io->Ast[2]) * aes, io->aspan);
    if (!backward) {
        pf_write(io->R + (b * io->Rst[0] + qf * io->Rst[1] + h * io->Rst[2]) * res, io->rspan);
        return;
    }
    const int64_t gles = p->gloc.dtype == ACL_FLOAT ? 4 : 2, gaes = p->gattn.dtype == ACL_FLOAT ? 4 : 2;
    pf_read(io->R + (b * io->Rst[0] + qf * io->Rst[1] + h * io->Rst[2]) * res, io->rspan);
    pf_write(io->GL + (b * io->GLst[0] + qf * io->GLst[1] + h * io->GLst[2]) * gles, io->glspan);
    pf_write(io->GA + (b * io->GAst[0] + qf * io->GAst[1] + h * io->GAst[2]) * gaes, io->gaspan);
}

MSDA_INLINE const float *msda_qio_loc(const msda_qio *io, const msda_io *lio, int64_t b, int64_t q, int64_t h,
                                      float *buf) {
    const char *base = io->L + (b * io->Lst[0] + q * io->Lst[1] + h * io->Lst[2]) * lio->es;
    if (io->loc_direct) return (const float *)(const void *)base;
    if (io->loc_dense) {
        cvt_load(io->ldt, base, buf, io->nl * io->np * 2);
        return buf;
    }
    lio->load_block(base, io->Lst + 3, io->nl, io->np, 2, buf);
    return buf;
}

MSDA_INLINE const float *msda_qio_attn(const msda_qio *io, const msda_io *aio, int64_t b, int64_t q, int64_t h,
                                       float *buf) {
    const char *base = io->A + (b * io->Ast[0] + q * io->Ast[1] + h * io->Ast[2]) * aio->es;
    if (io->attn_direct) return (const float *)(const void *)base;
    if (io->attn_dense) {
        cvt_load(io->adt, base, buf, io->nl * io->np);
        return buf;
    }
    const int64_t st[3] = {io->Ast[3], io->Ast[4], 0};
    aio->load_block(base, st, io->nl, io->np, 1, buf);
    return buf;
}

/* Stores a query's gradLocation / gradAttnWeight block from buf (fp32, (l, p, xy) order) when it was not
 * written in place. */
MSDA_INLINE void msda_qio_store(const msda_qio *io, const msda_io *glio, const msda_io *gaio, int64_t b, int64_t q,
                                int64_t h, const float *glbuf, const float *gabuf) {
    const int64_t n = io->nl * io->np;
    if (!io->gloc_direct) {
        char *base = io->GL + (b * io->GLst[0] + q * io->GLst[1] + h * io->GLst[2]) * glio->es;
        if (io->gloc_dense) {
            cvt_store(io->gldt, glbuf, base, 2 * n);
        } else {
            glio->store_block(glbuf, base, io->GLst + 3, io->nl, io->np, 2);
        }
    }
    if (!io->gattn_direct) {
        char *base = io->GA + (b * io->GAst[0] + q * io->GAst[1] + h * io->GAst[2]) * gaio->es;
        if (io->gattn_dense) {
            cvt_store(io->gadt, gabuf, base, n);
        } else {
            const int64_t st[3] = {io->GAst[3], io->GAst[4], 0};
            gaio->store_block(gabuf, base, st, io->nl, io->np, 1);
        }
    }
}

/* ---- channel sums of one backward sampling point ---- */

/* ga = sum_c go*val, gw / gh the x / y derivative sums (tg = a*go is t[]). Eight fixed partial sums (C % 8 == 0)
 * over c = j, j+8, j+16, ..., combined as ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)): deterministic, and the same
 * operations as the AVX2 version below. */
MSDA_INLINE void bwd_point_c(const float *restrict x1, const float *restrict x2, const float *restrict x3,
                             const float *restrict x4, const float *restrict go, const float *restrict t,
                             const float w[4], const float f[4], const int64_t C, float out[3]) {
    float sa[8] = {0}, sw[8] = {0}, sh[8] = {0};
    const float w1 = w[0], w2 = w[1], w3 = w[2], w4 = w[3];
    const float hh = f[0], lh = f[1], hw = f[2], lw = f[3];
    for (int64_t c0 = 0; c0 < C; c0 += 8) {
        for (int j = 0; j < 8; j++) {
            const int64_t c = c0 + j;
            const float v1 = x1[c], v2 = x2[c], v3 = x3[c], v4 = x4[c];
            const float val = w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4;
            sa[j] += go[c] * val;
            sw[j] += t[c] * (hh * (v2 - v1) + lh * (v4 - v3));
            sh[j] += t[c] * (hw * (v3 - v1) + lw * (v4 - v2));
        }
    }
    out[0] = ((sa[0] + sa[1]) + (sa[2] + sa[3])) + ((sa[4] + sa[5]) + (sa[6] + sa[7]));
    out[1] = ((sw[0] + sw[1]) + (sw[2] + sw[3])) + ((sw[4] + sw[5]) + (sw[6] + sw[7]));
    out[2] = ((sh[0] + sh[1]) + (sh[2] + sh[3])) + ((sh[4] + sh[5]) + (sh[6] + sh[7]));
}


/* ---- NaN results in the reference order (common/nan_order.h) ----
 * The owner loops keep their fast paths; an output whose fast result is NaN is recomputed here in the written
 * order of the portable loops with no_add_f / no_mul_f (no operation is fused anywhere: -ffp-contract=off and no
 * FMA intrinsics), so its NaN payload is the same at every SIMD level. A non-NaN result is the same either way. */

MSDA_INLINE int msda_row_nan(const float *restrict r, int64_t n) {
    int any = 0;
    for (int64_t i = 0; i < n; i++) any |= r[i] != r[i];
    return any;
}

/* any Inf / NaN among r[0..n) (integer tests on the bits: they vectorise) */
MSDA_INLINE int msda_nonfinite(const float *restrict r, int64_t n) {
    int any = 0;
    for (int64_t i = 0; i < n; i++) {
        uint32_t u;
        memcpy(&u, r + i, 4);
        any |= (u & 0x7f800000u) == 0x7f800000u;
    }
    return any;
}

/* The forward row of one query (acc[c] += a*(((w1*x1 + w2*x2) + w3*x3) + w4*x4) over the points in order). */
static void msda_fwd_nan(const msda_level *lv, const float *locb, const float *attb,
                         int64_t nl, int64_t np, int64_t K, const float *vb, int64_t vks, float *acc, int64_t C) {
    for (int64_t c = 0; c < C; c++) acc[c] = 0.0f;
    for (int64_t l = 0; l < nl; l++) {
        for (int64_t pt = 0; pt < np; pt++) {
            const int64_t i = l * np + pt;
            msda_pt g;
            const int kind = msda_geom(locb[2 * i], locb[2 * i + 1], &lv[l], K, &g);
            if (!kind) continue;
            const float *x[4];
            float *gr[4];
            msda_corner_rows(&g, kind, &lv[l], vb, vks, NULL, 0, x, gr);
            const float a = attb[i];
            for (int64_t c = 0; c < C; c++) {
                float v = no_add_f(no_mul_f(g.w[0], x[0][c]), no_mul_f(g.w[1], x[1][c]));
                v = no_add_f(v, no_mul_f(g.w[2], x[2][c]));
                v = no_add_f(v, no_mul_f(g.w[3], x[3][c]));
                acc[c] = no_add_f(acc[c], no_mul_f(a, v));
            }
        }
    }
}

/* Any NaN in the K rows of gradValue (row stride ks)? */
static int msda_rows_nan(const float *gb, int64_t ks, int64_t K, int64_t C) {
    int any = 0;
    for (int64_t k = 0; k < K; k++) any |= msda_row_nan(gb + k * ks, C);
    return any;
}

static void msda_bwd_point_nan(const float *const x[4], const float *go, float a, const float w[4], const float f[4],
                               int64_t C, float out[3]);

/* The forward of one (b, h) owner once more, a query's row in the reference order (msda_fwd_nan) and stored
 * again when it holds a NaN: called when the fast pass produced a NaN somewhere in the owner. */
static __attribute__((noinline)) void msda_fwd_redo(const msda_problem *p, const msda_level *lv, int64_t b, int64_t h,
                                                    const float *vb, int64_t vks) {
    const int64_t C = p->C;
    const msda_io rio = io_for(p->rows.dtype), lio = io_for(p->loc.dtype), aio = io_for(p->attn.dtype);
    float acc[MSDA_MAX_C];
    float locbuf[2 * MSDA_MAX_PTS], attbuf[MSDA_MAX_PTS];
    msda_qio qio;
    msda_qio_init(&qio, p, &lio, &aio, &rio, NULL, NULL, false);
    for (int64_t q = 0; q < p->nq; q++) {
        const float *locb = msda_qio_loc(&qio, &lio, b, q, h, locbuf);
        const float *attb = msda_qio_attn(&qio, &aio, b, q, h, attbuf);
        msda_fwd_nan(lv, locb, attb, p->nl, p->np, p->K, vb, vks, acc, C);
        if (!msda_row_nan(acc, C)) continue;
        char *row = (char *)qio.R + (b * qio.Rst[0] + q * qio.Rst[1] + h * qio.Rst[2]) * rio.es;
        rio.store_row(acc, row, qio.Rst[3], C);
    }
}

/* The backward of one (b, h) owner once more, in the reference order, where the fast pass left a NaN: every
 * point's gradLocation / gradAttnWeight (msda_bwd_point_nan; a finite result is the fast one) and, when
 * gradValue holds a NaN, gradValue (gv[k] += w_k*(a*go) over q, l, p in order). */
static __attribute__((noinline)) void msda_bwd_redo(const msda_problem *p, const msda_level *lv, int64_t b, int64_t h,
                                                    const float *vb, int64_t vks, float *gb, int64_t gks) {
    const int64_t K = p->K, C = p->C, nl = p->nl, np = p->np;
    const msda_io rio = io_for(p->rows.dtype), lio = io_for(p->loc.dtype), aio = io_for(p->attn.dtype),
                  glio = io_for(p->gloc.dtype), gaio = io_for(p->gattn.dtype);
    float go[MSDA_MAX_C], t[MSDA_MAX_C];
    float locbuf[2 * MSDA_MAX_PTS], attbuf[MSDA_MAX_PTS], glbuf[2 * MSDA_MAX_PTS], gabuf[MSDA_MAX_PTS];
    msda_qio qio;
    msda_qio_init(&qio, p, &lio, &aio, &rio, &glio, &gaio, true);
    const int do_gv = msda_rows_nan(gb, gks, K, C);
    if (do_gv)
        for (int64_t k = 0; k < K; k++) memset(gb + k * gks, 0, (size_t)C * sizeof(float));
    for (int64_t q = 0; q < p->nq; q++) {
        const char *row = qio.R + (b * qio.Rst[0] + q * qio.Rst[1] + h * qio.Rst[2]) * rio.es;
        rio.load_row(row, qio.Rst[3], go, C);
        const float *locb = msda_qio_loc(&qio, &lio, b, q, h, locbuf);
        const float *attb = msda_qio_attn(&qio, &aio, b, q, h, attbuf);
        float *glb = qio.gloc_direct ? (float *)(void *)(qio.GL + (b * qio.GLst[0] + q * qio.GLst[1] + h * qio.GLst[2]) * 4)
                                     : glbuf;
        float *gab = qio.gattn_direct ? (float *)(void *)(qio.GA + (b * qio.GAst[0] + q * qio.GAst[1] + h * qio.GAst[2]) * 4)
                                      : gabuf;
        for (int64_t l = 0; l < nl; l++) {
            const msda_level *lvl = &lv[l];
            for (int64_t pt = 0; pt < np; pt++) {
                const int64_t i = l * np + pt;
                msda_pt g;
                const int kind = msda_geom(locb[2 * i], locb[2 * i + 1], lvl, K, &g);
                if (!kind) {
                    glb[2 * i] = 0.0f;
                    glb[2 * i + 1] = 0.0f;
                    gab[i] = 0.0f;
                    continue;
                }
                const float *x[4];
                float *gr[4];
                msda_corner_rows(&g, kind, lvl, vb, vks, gb, gks, x, gr);
                float res[3];
                msda_bwd_point_nan(x, go, attb[i], g.w, g.f, C, res);
                glb[2 * i] = lvl->Wf * res[1];
                glb[2 * i + 1] = lvl->Hf * res[2];
                gab[i] = res[0];
                if (!do_gv) continue;
                for (int64_t c = 0; c < C; c++) t[c] = no_mul_f(attb[i], go[c]);
                for (int kk = 0; kk < 4; kk++) {
                    if (!gr[kk]) continue;
                    for (int64_t c = 0; c < C; c++) gr[kk][c] = no_add_f(gr[kk][c], no_mul_f(g.w[kk], t[c]));
                }
            }
        }
        msda_qio_store(&qio, &glio, &gaio, b, q, h, glbuf, gabuf);
    }
}

static inline float msda_tree8_nan(const float s[8]) {
    return no_add_f(no_add_f(no_add_f(s[0], s[1]), no_add_f(s[2], s[3])),
                    no_add_f(no_add_f(s[4], s[5]), no_add_f(s[6], s[7])));
}

/* bwd_point_c's channel sums of one point (t = a*go computed here). */
static void msda_bwd_point_nan(const float *const x[4], const float *go, float a, const float w[4], const float f[4],
                               int64_t C, float out[3]) {
    float sa[8] = {0}, sw[8] = {0}, sh[8] = {0};
    for (int64_t c0 = 0; c0 < C; c0 += 8) {
        for (int j = 0; j < 8; j++) {
            const int64_t c = c0 + j;
            const float v1 = x[0][c], v2 = x[1][c], v3 = x[2][c], v4 = x[3][c], t = no_mul_f(a, go[c]);
            float val = no_add_f(no_mul_f(w[0], v1), no_mul_f(w[1], v2));
            val = no_add_f(val, no_mul_f(w[2], v3));
            val = no_add_f(val, no_mul_f(w[3], v4));
            sa[j] = no_add_f(sa[j], no_mul_f(go[c], val));
            sw[j] = no_add_f(sw[j], no_mul_f(t, no_add_f(no_mul_f(f[0], no_sub_f(v2, v1)), no_mul_f(f[1], no_sub_f(v4, v3)))));
            sh[j] = no_add_f(sh[j], no_mul_f(t, no_add_f(no_mul_f(f[2], no_sub_f(v3, v1)), no_mul_f(f[3], no_sub_f(v4, v2)))));
        }
    }
    out[0] = msda_tree8_nan(sa);
    out[1] = msda_tree8_nan(sw);
    out[2] = msda_tree8_nan(sh);
}
#ifdef MSDA_HAVE_AVX2
#define MSDA_AVX2_INLINE __attribute__((target("avx2"))) static inline __attribute__((always_inline))
#define MSDA_AVX512_INLINE __attribute__((target("avx2,avx512f,avx512vl,avx512dq"))) static inline \
    __attribute__((always_inline))

/* The per-channel terms of one backward point for eight channels: val = ((w1*v1 + w2*v2) + w3*v3) + w4*v4,
 * sa += g*val, sw += tc*(hh*(v2-v1) + lh*(v4-v3)), sh += tc*(hw*(v3-v1) + lw*(v4-v2)) (bwd_point_c's body). */
MSDA_AVX2_INLINE void bwd_acc8(const float *x1, const float *x2, const float *x3, const float *x4, __m256 g,
                               __m256 tc, const __m256 w[4], const __m256 f[4], __m256 *sa, __m256 *sw, __m256 *sh) {
    const __m256 v1 = _mm256_loadu_ps(x1), v2 = _mm256_loadu_ps(x2), v3 = _mm256_loadu_ps(x3), v4 = _mm256_loadu_ps(x4);
    __m256 val = _mm256_add_ps(_mm256_mul_ps(w[0], v1), _mm256_mul_ps(w[1], v2));
    val = _mm256_add_ps(val, _mm256_mul_ps(w[2], v3));
    val = _mm256_add_ps(val, _mm256_mul_ps(w[3], v4));
    *sa = _mm256_add_ps(*sa, _mm256_mul_ps(g, val));
    const __m256 dx = _mm256_add_ps(_mm256_mul_ps(f[0], _mm256_sub_ps(v2, v1)), _mm256_mul_ps(f[1], _mm256_sub_ps(v4, v3)));
    const __m256 dy = _mm256_add_ps(_mm256_mul_ps(f[2], _mm256_sub_ps(v3, v1)), _mm256_mul_ps(f[3], _mm256_sub_ps(v4, v2)));
    *sw = _mm256_add_ps(*sw, _mm256_mul_ps(tc, dx));
    *sh = _mm256_add_ps(*sh, _mm256_mul_ps(tc, dy));
}

/* bwd_acc8 for sixteen channels: the products in 512-bit registers (element-wise, so the same values), the
 * running sums still eight channels at a time in C order (channels c..c+7, then c+8..c+15). */
MSDA_AVX512_INLINE void bwd_acc16(const float *x1, const float *x2, const float *x3, const float *x4, __m512 g,
                                  __m512 tc, const __m512 w[4], const __m512 f[4], __m256 *sa, __m256 *sw,
                                  __m256 *sh) {
    const __m512 v1 = _mm512_loadu_ps(x1), v2 = _mm512_loadu_ps(x2), v3 = _mm512_loadu_ps(x3), v4 = _mm512_loadu_ps(x4);
    __m512 val = _mm512_add_ps(_mm512_mul_ps(w[0], v1), _mm512_mul_ps(w[1], v2));
    val = _mm512_add_ps(val, _mm512_mul_ps(w[2], v3));
    val = _mm512_add_ps(val, _mm512_mul_ps(w[3], v4));
    const __m512 pa = _mm512_mul_ps(g, val);
    const __m512 dx = _mm512_add_ps(_mm512_mul_ps(f[0], _mm512_sub_ps(v2, v1)), _mm512_mul_ps(f[1], _mm512_sub_ps(v4, v3)));
    const __m512 dy = _mm512_add_ps(_mm512_mul_ps(f[2], _mm512_sub_ps(v3, v1)), _mm512_mul_ps(f[3], _mm512_sub_ps(v4, v2)));
    const __m512 pw = _mm512_mul_ps(tc, dx), ph = _mm512_mul_ps(tc, dy);
    *sa = _mm256_add_ps(*sa, _mm512_castps512_ps256(pa));
    *sw = _mm256_add_ps(*sw, _mm512_castps512_ps256(pw));
    *sh = _mm256_add_ps(*sh, _mm512_castps512_ps256(ph));
    *sa = _mm256_add_ps(*sa, _mm512_extractf32x8_ps(pa, 1));
    *sw = _mm256_add_ps(*sw, _mm512_extractf32x8_ps(pw, 1));
    *sh = _mm256_add_ps(*sh, _mm512_extractf32x8_ps(ph, 1));
}

/* out = the eight-lane trees ((s0+s1)+(s2+s3))+((s4+s5)+(s6+s7)) of sa, sw, sh: vhaddps pairs exactly so */
MSDA_AVX2_INLINE void hsum3(__m256 sa, __m256 sw, __m256 sh, float out[3]) {
    const __m256 aw = _mm256_hadd_ps(sa, sw), hhs = _mm256_hadd_ps(sh, sh);
    const __m256 r = _mm256_hadd_ps(aw, hhs);
    const __m128 s = _mm_add_ps(_mm256_castps256_ps128(r), _mm256_extractf128_ps(r, 1));
    float o[4];
    _mm_storeu_ps(o, s);
    out[0] = o[0];
    out[1] = o[1];
    out[2] = o[2];
}

/* bwd_point_c with AVX2 intrinsics, operation for operation (no FMA: each product is rounded, as in C). The
 * horizontal sums use vhaddps, whose pairwise sums are exactly the (s0+s1), (s2+s3), ... of the C tree. */
MSDA_AVX2_INLINE void bwd_point_avx2(const float *restrict x1, const float *restrict x2, const float *restrict x3,
                                     const float *restrict x4, const float *restrict go, const float *restrict t,
                                     const float w[4], const float f[4], const int64_t C, float out[3]) {
    const __m256 wv[4] = {_mm256_set1_ps(w[0]), _mm256_set1_ps(w[1]), _mm256_set1_ps(w[2]), _mm256_set1_ps(w[3])};
    const __m256 fv[4] = {_mm256_set1_ps(f[0]), _mm256_set1_ps(f[1]), _mm256_set1_ps(f[2]), _mm256_set1_ps(f[3])};
    __m256 sa = _mm256_setzero_ps(), sw = _mm256_setzero_ps(), sh = _mm256_setzero_ps();
    for (int64_t c = 0; c < C; c += 8)
        bwd_acc8(x1 + c, x2 + c, x3 + c, x4 + c, _mm256_loadu_ps(go + c), _mm256_loadu_ps(t + c), wv, fv, &sa, &sw, &sh);
    hsum3(sa, sw, sh, out);
}

/* bwd_point_c once more, with the per-channel products computed sixteen channels at a time in 512-bit registers
 * (element-wise, so the same values) and the eight running sums still accumulated eight channels at a time in
 * the C order: lanes of channels c0..c0+7 first, then c0+8..c0+15. */
MSDA_AVX512_INLINE void bwd_point_avx512(const float *restrict x1, const float *restrict x2, const float *restrict x3,
                                         const float *restrict x4, const float *restrict go, const float *restrict t,
                                         const float w[4], const float f[4], const int64_t C, float out[3]) {
    const __m512 wv[4] = {_mm512_set1_ps(w[0]), _mm512_set1_ps(w[1]), _mm512_set1_ps(w[2]), _mm512_set1_ps(w[3])};
    const __m512 fv[4] = {_mm512_set1_ps(f[0]), _mm512_set1_ps(f[1]), _mm512_set1_ps(f[2]), _mm512_set1_ps(f[3])};
    __m256 sa = _mm256_setzero_ps(), sw = _mm256_setzero_ps(), sh = _mm256_setzero_ps();
    int64_t c = 0;
    for (; c + 16 <= C; c += 16)
        bwd_acc16(x1 + c, x2 + c, x3 + c, x4 + c, _mm512_loadu_ps(go + c), _mm512_loadu_ps(t + c), wv, fv, &sa, &sw,
                  &sh);
    if (c < C) { /* C % 16 == 8: the last eight channels */
        const __m256 w8[4] = {_mm512_castps512_ps256(wv[0]), _mm512_castps512_ps256(wv[1]),
                              _mm512_castps512_ps256(wv[2]), _mm512_castps512_ps256(wv[3])};
        const __m256 f8[4] = {_mm512_castps512_ps256(fv[0]), _mm512_castps512_ps256(fv[1]),
                              _mm512_castps512_ps256(fv[2]), _mm512_castps512_ps256(fv[3])};
        bwd_acc8(x1 + c, x2 + c, x3 + c, x4 + c, _mm256_loadu_ps(go + c), _mm256_loadu_ps(t + c), w8, f8, &sa, &sw, &sh);
    }
    hsum3(sa, sw, sh, out);
}
/* One whole backward sampling point for C = 32 in 512-bit registers: tg = a*go, the channel sums of
 * bwd_point_avx512, then the four gradValue rows += w_k*tg, corner by corner. The same operations in the same
 * order as the generic path (t[] kept in registers), so the same bytes. */
MSDA_AVX512_INLINE void bwd_sample32_avx512(const float *const x[4], float *const gr[4], const float *restrict go,
                                            float a, const float w[4], const float f[4], float out[3]) {
    const __m512 av = _mm512_set1_ps(a);
    const __m512 g0 = _mm512_loadu_ps(go), g1 = _mm512_loadu_ps(go + 16);
    const __m512 t0 = _mm512_mul_ps(av, g0), t1 = _mm512_mul_ps(av, g1);
    const __m512 wv[4] = {_mm512_set1_ps(w[0]), _mm512_set1_ps(w[1]), _mm512_set1_ps(w[2]), _mm512_set1_ps(w[3])};
    const __m512 fv[4] = {_mm512_set1_ps(f[0]), _mm512_set1_ps(f[1]), _mm512_set1_ps(f[2]), _mm512_set1_ps(f[3])};
    __m256 sa = _mm256_setzero_ps(), sw = _mm256_setzero_ps(), sh = _mm256_setzero_ps();
    bwd_acc16(x[0], x[1], x[2], x[3], g0, t0, wv, fv, &sa, &sw, &sh);
    bwd_acc16(x[0] + 16, x[1] + 16, x[2] + 16, x[3] + 16, g1, t1, wv, fv, &sa, &sw, &sh);
    for (int k = 0; k < 4; k++) {
        if (!gr[k]) continue;
        float *gk = gr[k];
        _mm512_storeu_ps(gk, _mm512_add_ps(_mm512_loadu_ps(gk), _mm512_mul_ps(wv[k], t0)));
        _mm512_storeu_ps(gk + 16, _mm512_add_ps(_mm512_loadu_ps(gk + 16), _mm512_mul_ps(wv[k], t1)));
    }
    hsum3(sa, sw, sh, out);
}
/* The forward of one query for C = 32, the running sums in two 512-bit registers: acc[c] = sum over the points,
 * in order, of a*(((w1*x1 + w2*x2) + w3*x3) + w4*x4), exactly as the generic loop, stored to acc at the end. */
__attribute__((target("avx2,avx512f,avx512vl,avx512dq"))) static inline __attribute__((always_inline)) void
fwd_query32_avx512(const msda_level *lv, const float *locb, const float *attb, int64_t nl, int64_t np, int64_t K,
                   const float *vb, int64_t vks, float *acc) {
    __m512 s0 = _mm512_setzero_ps(), s1 = _mm512_setzero_ps();
    for (int64_t l = 0; l < nl; l++) {
        const msda_level *lvl = &lv[l];
        for (int64_t pt = 0; pt < np; pt++) {
            const int64_t i = l * np + pt;
            msda_pt g;
            const int kind = msda_geom(locb[2 * i], locb[2 * i + 1], lvl, K, &g);
            if (!kind) continue;
            const float *x[4];
            float *gr[4];
            msda_corner_rows(&g, kind, lvl, vb, vks, NULL, 0, x, gr);
            const __m512 av = _mm512_set1_ps(attb[i]);
            const __m512 w1 = _mm512_set1_ps(g.w[0]), w2 = _mm512_set1_ps(g.w[1]), w3 = _mm512_set1_ps(g.w[2]),
                         w4 = _mm512_set1_ps(g.w[3]);
            __m512 v0 = _mm512_add_ps(_mm512_mul_ps(w1, _mm512_loadu_ps(x[0])), _mm512_mul_ps(w2, _mm512_loadu_ps(x[1])));
            __m512 v1 = _mm512_add_ps(_mm512_mul_ps(w1, _mm512_loadu_ps(x[0] + 16)),
                                      _mm512_mul_ps(w2, _mm512_loadu_ps(x[1] + 16)));
            v0 = _mm512_add_ps(v0, _mm512_mul_ps(w3, _mm512_loadu_ps(x[2])));
            v1 = _mm512_add_ps(v1, _mm512_mul_ps(w3, _mm512_loadu_ps(x[2] + 16)));
            v0 = _mm512_add_ps(v0, _mm512_mul_ps(w4, _mm512_loadu_ps(x[3])));
            v1 = _mm512_add_ps(v1, _mm512_mul_ps(w4, _mm512_loadu_ps(x[3] + 16)));
            s0 = _mm512_add_ps(s0, _mm512_mul_ps(av, v0));
            s1 = _mm512_add_ps(s1, _mm512_mul_ps(av, v1));
        }
    }
    _mm512_storeu_ps(acc, s0);
    _mm512_storeu_ps(acc + 16, s1);
}
#endif

#ifdef MSDA_HAVE_AVX2
/* bwd_sample32_avx512 and fwd_query32_avx512 for AVX2 (four 256-bit registers per row): the same operations
 * in the same order. */
MSDA_AVX2_INLINE void bwd_sample32_avx2(const float *const x[4], float *const gr[4], const float *restrict go,
                                        float a, const float w[4], const float f[4], float out[3]) {
    const __m256 av = _mm256_set1_ps(a);
    __m256 t[4];
    for (int j = 0; j < 4; j++) t[j] = _mm256_mul_ps(av, _mm256_loadu_ps(go + 8 * j));
    const __m256 wv[4] = {_mm256_set1_ps(w[0]), _mm256_set1_ps(w[1]), _mm256_set1_ps(w[2]), _mm256_set1_ps(w[3])};
    const __m256 fv[4] = {_mm256_set1_ps(f[0]), _mm256_set1_ps(f[1]), _mm256_set1_ps(f[2]), _mm256_set1_ps(f[3])};
    __m256 sa = _mm256_setzero_ps(), sw = _mm256_setzero_ps(), sh = _mm256_setzero_ps();
    for (int j = 0; j < 4; j++) {
        const int64_t c = 8 * j;
        bwd_acc8(x[0] + c, x[1] + c, x[2] + c, x[3] + c, _mm256_loadu_ps(go + c), t[j], wv, fv, &sa, &sw, &sh);
    }
    for (int k = 0; k < 4; k++) {
        if (!gr[k]) continue;
        float *gk = gr[k];
        for (int j = 0; j < 4; j++)
            _mm256_storeu_ps(gk + 8 * j, _mm256_add_ps(_mm256_loadu_ps(gk + 8 * j), _mm256_mul_ps(wv[k], t[j])));
    }
    hsum3(sa, sw, sh, out);
}

__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void
fwd_query32_avx2(const msda_level *lv, const float *locb, const float *attb, int64_t nl, int64_t np, int64_t K,
                 const float *vb, int64_t vks, float *acc) {
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (int64_t l = 0; l < nl; l++) {
        const msda_level *lvl = &lv[l];
        for (int64_t pt = 0; pt < np; pt++) {
            const int64_t i = l * np + pt;
            msda_pt g;
            const int kind = msda_geom(locb[2 * i], locb[2 * i + 1], lvl, K, &g);
            if (!kind) continue;
            const float *x[4];
            float *gr[4];
            msda_corner_rows(&g, kind, lvl, vb, vks, NULL, 0, x, gr);
            const __m256 av = _mm256_set1_ps(attb[i]);
            const __m256 w1 = _mm256_set1_ps(g.w[0]), w2 = _mm256_set1_ps(g.w[1]), w3 = _mm256_set1_ps(g.w[2]),
                         w4 = _mm256_set1_ps(g.w[3]);
            for (int j = 0; j < 4; j++) {
                const int64_t c = 8 * j;
                __m256 v = _mm256_add_ps(_mm256_mul_ps(w1, _mm256_loadu_ps(x[0] + c)),
                                         _mm256_mul_ps(w2, _mm256_loadu_ps(x[1] + c)));
                v = _mm256_add_ps(v, _mm256_mul_ps(w3, _mm256_loadu_ps(x[2] + c)));
                v = _mm256_add_ps(v, _mm256_mul_ps(w4, _mm256_loadu_ps(x[3] + c)));
                s[j] = _mm256_add_ps(s[j], _mm256_mul_ps(av, v));
            }
        }
    }
    for (int j = 0; j < 4; j++) _mm256_storeu_ps(acc + 8 * j, s[j]);
}

#endif

/* ---- the portable forward query: GCC vector extensions (SSE2 on x86-64, NEON on aarch64) ----
 * The points' geometry is computed once per query (corner rows, weights, attention weight of every point that
 * is inside its level), then each block of channels is summed over the points with its running sums in
 * registers. Per channel the operations and their order are those of the scalar loop in msda_owner.inc:
 * acc[c] += a*(((w1*x1[c] + w2*x2[c]) + w3*x3[c]) + w4*x4[c]) over the points in (l, p) order, each lane an
 * fp32 operation (-ffp-contract=off: nothing fused), so the bytes are the scalar loop's. */

typedef float msda_v4 __attribute__((vector_size(16), aligned(4), may_alias)); /* unaligned loads / stores */
typedef float msda_v4a __attribute__((vector_size(16)));

typedef struct {
    const float *x[4];
    float w[4], a;
} msda_fpt;

MSDA_INLINE void msda_fwd_block_c(const msda_fpt *pts, int64_t n, int64_t c0, float *acc, const int NV) {
    msda_v4a s[8];
    for (int j = 0; j < NV; j++) s[j] = (msda_v4a){0.0f, 0.0f, 0.0f, 0.0f};
    for (int64_t i = 0; i < n; i++) {
        const msda_fpt *pt = &pts[i];
        const float *restrict x1 = pt->x[0] + c0, *restrict x2 = pt->x[1] + c0, *restrict x3 = pt->x[2] + c0,
                            *restrict x4 = pt->x[3] + c0;
        const msda_v4a w1 = {pt->w[0], pt->w[0], pt->w[0], pt->w[0]}, w2 = {pt->w[1], pt->w[1], pt->w[1], pt->w[1]},
                       w3 = {pt->w[2], pt->w[2], pt->w[2], pt->w[2]}, w4 = {pt->w[3], pt->w[3], pt->w[3], pt->w[3]},
                       av = {pt->a, pt->a, pt->a, pt->a};
        for (int j = 0; j < NV; j++) {
            msda_v4a v = w1 * *(const msda_v4 *)(x1 + 4 * j) + w2 * *(const msda_v4 *)(x2 + 4 * j);
            v = v + w3 * *(const msda_v4 *)(x3 + 4 * j);
            v = v + w4 * *(const msda_v4 *)(x4 + 4 * j);
            s[j] = s[j] + av * v;
        }
    }
    for (int j = 0; j < NV; j++) *(msda_v4 *)(acc + c0 + 4 * j) = s[j];
}

typedef int32_t msda_v4i __attribute__((vector_size(16)));

/* The geometry of msda_geom for up to 4 points of one level at once (lanes >= m invalid): the same fp32
 * operations per lane. floorf(hIm) for hIm in (-1, H) is the truncation, minus one when that exceeds hIm (only in
 * (-1, 0); hIm is never -0: x - 0.5 is +0 when exact); an invalid lane (outside, NaN) is set to 0 first. */
MSDA_INLINE int64_t msda_geom4(const float *locb, const float *attb, int64_t i0, int m, const msda_level *lvl,
                               int64_t K, const float *vb, int64_t vks, msda_fpt *out) {
    msda_v4a lx = {0, 0, 0, 0}, ly = {0, 0, 0, 0};
    for (int j = 0; j < m; j++) {
        lx[j] = locb[2 * (i0 + j)];
        ly[j] = locb[2 * (i0 + j) + 1];
    }
    const float Hf = lvl->Hf, Wf = lvl->Wf;
    const msda_v4a hIm = ly * Hf - 0.5f, wIm = lx * Wf - 0.5f;
    msda_v4i ok = (hIm > -1.0f) & (wIm > -1.0f) & (hIm < Hf) & (wIm < Wf);
    for (int j = m; j < 4; j++) ok[j] = 0;
    if (!(ok[0] | ok[1] | ok[2] | ok[3])) return 0;
    const msda_v4a hs = (msda_v4a)((msda_v4i)hIm & ok), ws = (msda_v4a)((msda_v4i)wIm & ok);
    msda_v4i th = __builtin_convertvector(hs, msda_v4i), tw = __builtin_convertvector(ws, msda_v4i);
    msda_v4a fh = __builtin_convertvector(th, msda_v4a), fw = __builtin_convertvector(tw, msda_v4a);
    const msda_v4i gh = fh > hs, gw = fw > ws; /* -1 where the truncation is above */
    th = th + gh;
    tw = tw + gw;
    fh = fh + __builtin_convertvector(gh, msda_v4a); /* - 1 exactly, or + 0 (fh is never -0) */
    fw = fw + __builtin_convertvector(gw, msda_v4a);
    const msda_v4a lh = hs - fh, lw = ws - fw, hh = 1.0f - lh, hw = 1.0f - lw;
    const msda_v4a w0 = hh * hw, w1 = hh * lw, w2 = lh * hw, w3 = lh * lw;
    int64_t n = 0;
    for (int j = 0; j < m; j++) {
        if (!ok[j]) continue;
        const int64_t h0 = th[j], wc = tw[j];
        const int64_t row0 = lvl->S + h0 * lvl->W, row1 = row0 + lvl->W;
        msda_fpt *pt = &out[n++];
        if (h0 >= 0 && h0 + 1 < lvl->H && wc >= 0 && wc + 1 < lvl->W && row0 + wc >= 0 && row1 + wc + 1 < K) {
            pt->x[0] = vb + (row0 + wc) * vks;
            pt->x[1] = pt->x[0] + vks;
            pt->x[2] = pt->x[0] + lvl->W * vks;
            pt->x[3] = pt->x[2] + vks;
        } else {
            const bool r0 = h0 >= 0, r1 = h0 + 1 < lvl->H, c0 = wc >= 0, c1 = wc + 1 < lvl->W;
            int64_t key[4] = {(r0 && c0) ? row0 + wc : -1, (r0 && c1) ? row0 + wc + 1 : -1,
                              (r1 && c0) ? row1 + wc : -1, (r1 && c1) ? row1 + wc + 1 : -1};
            for (int k = 0; k < 4; k++) pt->x[k] = key[k] >= 0 && key[k] < K ? vb + key[k] * vks : k_zero_row;
        }
        pt->w[0] = w0[j];
        pt->w[1] = w1[j];
        pt->w[2] = w2[j];
        pt->w[3] = w3[j];
        pt->a = attb[i0 + j];
    }
    return n;
}

static void fwd_query_c(const msda_level *lv, const float *locb, const float *attb, int64_t nl, int64_t np,
                        int64_t K, const float *vb, int64_t vks, float *restrict acc, int64_t C) {
    msda_fpt pts[MSDA_MAX_PTS];
    int64_t n = 0;
    for (int64_t l = 0; l < nl; l++)
        for (int64_t p0 = 0; p0 < np; p0 += 4)
            n += msda_geom4(locb, attb, l * np + p0, np - p0 < 4 ? (int)(np - p0) : 4, &lv[l], K, vb, vks, pts + n);
    int64_t c0 = 0;
    for (; c0 + 32 <= C; c0 += 32) msda_fwd_block_c(pts, n, c0, acc, 8);
    if (c0 + 16 <= C) {
        msda_fwd_block_c(pts, n, c0, acc, 4);
        c0 += 16;
    }
    if (c0 + 8 <= C) {
        msda_fwd_block_c(pts, n, c0, acc, 2);
        c0 += 8;
    }
    if (c0 + 4 <= C) {
        msda_fwd_block_c(pts, n, c0, acc, 1);
        c0 += 4;
    }
    for (; c0 < C; c0++) { /* the last C % 4 channels, one at a time */
        float s = 0.0f;
        for (int64_t i = 0; i < n; i++) {
            const msda_fpt *pt = &pts[i];
            s += pt->a * (pt->w[0] * pt->x[0][c0] + pt->w[1] * pt->x[1][c0] + pt->w[2] * pt->x[2][c0] +
                          pt->w[3] * pt->x[3][c0]);
        }
        acc[c0] = s;
    }
}

/* ---- the owner loops, once portable and once for AVX2 ---- */

#define MSDA_CLONE_ATTR
#define MSDA_SFX c
#define MSDA_BWD_POINT bwd_point_c
#define MSDA_FWD_QUERY fwd_query_c
#include "kernels/msda_owner.inc"
#undef MSDA_SFX
#undef MSDA_BWD_POINT
#undef MSDA_FWD_QUERY
#undef MSDA_CLONE_ATTR

#ifdef MSDA_HAVE_AVX2
#define MSDA_CLONE_ATTR __attribute__((target("avx2")))
#define MSDA_SFX avx2
#define MSDA_BWD_POINT bwd_point_avx2
#define MSDA_BWD_SAMPLE32 bwd_sample32_avx2
#define MSDA_FWD_QUERY32 fwd_query32_avx2
#include "kernels/msda_owner.inc"
#undef MSDA_SFX
#undef MSDA_BWD_POINT
#undef MSDA_BWD_SAMPLE32
#undef MSDA_FWD_QUERY32
#undef MSDA_CLONE_ATTR

/* The same AVX2 code with the AVX-512VL encoding available: 32 vector registers instead of 16, so the
 * four corner rows and the running sums stay in registers (same 256-bit operations, same results). */
#define MSDA_CLONE_ATTR __attribute__((target("avx2,avx512f,avx512vl,avx512dq")))
#define MSDA_SFX avx512
#define MSDA_BWD_POINT bwd_point_avx512
#define MSDA_BWD_SAMPLE32 bwd_sample32_avx512
#define MSDA_FWD_QUERY32 fwd_query32_avx512
#include "kernels/msda_owner.inc"
#undef MSDA_SFX
#undef MSDA_BWD_POINT
#undef MSDA_BWD_SAMPLE32
#undef MSDA_FWD_QUERY32
#undef MSDA_CLONE_ATTR
#endif

/* ---- drivers: one owner per (b, h); the slot of scratch follows the thread, the result does not ---- */

typedef void (*owner_fn)(const msda_problem *, const msda_scratch *, const msda_level *, int64_t, int64_t, float *);

static void run_owners(const msda_problem *p, const msda_scratch *s, owner_fn fn) {
    pthread_once(&g_msda_cvt_once, msda_cvt_init);
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

/* the owner-loop variant: 0 portable, 1 AVX2, 2 AVX2 with the AVX-512VL register file (common/cpu.h) */
#ifdef MSDA_HAVE_AVX2
static int msda_isa(void) { return acl_simd_level(); }
#endif

void msda_backward(const msda_problem *p, const msda_scratch *s) {
    owner_fn fn = p->C == 32 ? bwd_owner_c32_c : bwd_owner_any_c;
#ifdef MSDA_HAVE_AVX2
    const int isa = msda_isa();
    if (isa == 1) fn = p->C == 32 ? bwd_owner_c32_avx2 : bwd_owner_any_avx2;
    if (isa == 2) fn = p->C == 32 ? bwd_owner_c32_avx512 : bwd_owner_any_avx512;
#endif
    run_owners(p, s, fn);
}

void msda_forward(const msda_problem *p, const msda_scratch *s) {
    owner_fn fn = p->C == 32 ? fwd_owner_c32_c : fwd_owner_any_c;
#ifdef MSDA_HAVE_AVX2
    const int isa = msda_isa();
    if (isa == 1) fn = p->C == 32 ? fwd_owner_c32_avx2 : fwd_owner_any_avx2;
    if (isa == 2) fn = p->C == 32 ? fwd_owner_c32_avx512 : fwd_owner_any_avx512;
#endif
    run_owners(p, s, fn);
}
