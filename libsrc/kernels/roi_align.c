/* RoI Align kernels: box geometry and per-axis sample tables (shared), dtype entry points (roi_align.inc). */
#include "kernels/roi_align.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/parallel.h"
#include "common/cpu.h"
#include "common/half_rows.h"
#include "kernels/dtype_io.h"
#include "kernels/f16_rows.h"

/* One sample coordinate along an axis: the two neighbouring rows (columns) and their weights; valid false when
 * the point lies outside [-1, size] (it then contributes zero, but still counts in the average). */
typedef struct {
    int64_t lo, hi;
    float wl, wh; /* weight of lo, weight of hi */
    bool valid;
} roia_pt;

/* The geometry of one box: bins' sample points along y (ph * gh) and x (pw * gw), and the divisor. */
typedef struct {
    int64_t gh, gw;
    float count;
    roia_pt *ys, *xs;
    int64_t cap_y, cap_x;
} roia_geo;

static int64_t roia_grid(float extent, int64_t bins, int64_t sr) {
    if (sr > 0) return sr > ROIA_MAX_GRID ? ROIA_MAX_GRID : sr;
    float g = ceilf(extent / (float)bins);
    if (!(g >= 1.0f)) return 0; /* NaN, zero or negative extent: no sample point */
    return g > (float)ROIA_MAX_GRID ? ROIA_MAX_GRID : (int64_t)g;
}

static void roia_axis(roia_pt *pts, float start, float bin, int64_t bins, int64_t g, int64_t size) {
    for (int64_t b = 0; b < bins; b++)
        for (int64_t i = 0; i < g; i++) {
            roia_pt *q = &pts[b * g + i];
            float v = start + (float)b * bin + ((float)i + 0.5f) * bin / (float)g;
            q->valid = v >= -1.0f && v <= (float)size; /* false for NaN too */
            if (!q->valid) {
                q->lo = q->hi = 0;
                q->wl = q->wh = 0.0f;
                continue;
            }
            if (v <= 0.0f) v = 0.0f;
            int64_t lo = (int64_t)v, hi;
            if (lo >= size - 1) {
                hi = lo = size - 1;
                v = (float)lo;
            } else {
                hi = lo + 1;
            }
            float l = v - (float)lo;
            q->lo = lo;
            q->hi = hi;
            q->wl = 1.0f - l;
            q->wh = l;
        }
}

/* Fills g for box coordinates (x1, y1, x2, y2) on an h x w plane; 0, or -1 when out of memory. */
static int roia_geometry(roia_geo *g, const float c[4], int64_t h, int64_t w, const roia_params *p) {
    float off = p->aligned ? 0.5f : 0.0f;
    float sw = c[0] * p->scale - off, sh = c[1] * p->scale - off;
    float ew = c[2] * p->scale - off, eh = c[3] * p->scale - off;
    float rw = ew - sw, rh = eh - sh;
    if (!p->aligned) {
        rw = fmaxf(rw, 1.0f);
        rh = fmaxf(rh, 1.0f);
    }
    float bh = rh / (float)p->ph, bw = rw / (float)p->pw;
    g->gh = roia_grid(rh, p->ph, p->sr);
    g->gw = roia_grid(rw, p->pw, p->sr);
    int64_t cnt = g->gh * g->gw;
    g->count = (float)(cnt > 1 ? cnt : 1);
    int64_t ny = p->ph * g->gh, nx = p->pw * g->gw;
    if (ny > g->cap_y) {
        roia_pt *t = realloc(g->ys, (size_t)ny * sizeof(roia_pt));
        if (!t) return -1;
        g->ys = t;
        g->cap_y = ny;
    }
    if (nx > g->cap_x) {
        roia_pt *t = realloc(g->xs, (size_t)nx * sizeof(roia_pt));
        if (!t) return -1;
        g->xs = t;
        g->cap_x = nx;
    }
    roia_axis(g->ys, sh, bh, p->ph, g->gh, h);
    roia_axis(g->xs, sw, bw, p->pw, g->gw, w);
    return 0;
}

static void roia_geo_free(roia_geo *g) {
    free(g->ys);
    free(g->xs);
}

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/roi_align.inc"
#include "kernels/dtype_end.h"

/* fp16 samples through a 65536-entry table of acl_f16_to_f32 (the same bits; the scalar conversion's branches made the
 * fp16 forward 2.4x the fp32 one: four loads a sampling point), built once */
static float g_roia_h2f[65536];
static pthread_once_t g_roia_once = PTHREAD_ONCE_INIT;
static bool g_roia_f16c;
static void roia_build_h2f(void) {
    g_roia_f16c = acl_simd_level() >= ACL_SIMD_AVX2;
    for (uint32_t h = 0; h < 65536; h++) g_roia_h2f[h] = acl_f16_to_f32((uint16_t)h);
}
/* (An F16C copy of this kernel - one vcvtph2ps a sample instead of the table's second load - was 4-6% faster at
 * one thread but not byte-identical: compiled separately, GCC ordered the operands of some additions otherwise,
 * so a NaN + NaN kept the other payload (0x7e01 vs 0x7e00). Every level runs this one compiled kernel.) */
/* The fp16 forward converts, per (box, channel), the input window its sample points read (the rows and columns
 * between the smallest and largest valid lo/hi) to fp32 once - F16C 8 at a time at AVX2 and above (a block holding
 * a NaN through the table), the table otherwise: the bits of acl_f16_to_f32 either way - and samples that window
 * with box tables whose lo/hi are offsets into it, instead of converting the four corners of every sample point
 * through the table. Only when the window holds no more elements than the corner loads it replaces. */
typedef struct {
    int64_t y0, x0, rows, bw;
    bool ok, vec;
    roia_pt *ys, *xs; /* g's tables, lo/hi as offsets into the window */
    int64_t cap_y, cap_x, cap;
    float *buf;
} roia_window;

static void roia_span(const roia_pt *pts, int64_t n, int64_t *lo, int64_t *hi, int64_t *nv) {
    int64_t a = INT64_MAX, b = -1, c = 0;
    for (int64_t i = 0; i < n; i++)
        if (pts[i].valid) {
            c++;
            if (pts[i].lo < a) a = pts[i].lo;
            if (pts[i].hi > b) b = pts[i].hi;
        }
    *lo = a, *hi = b, *nv = c;
}

static int roia_rel(roia_pt **dst, int64_t *cap, const roia_pt *src, int64_t n, int64_t org, int64_t mul) {
    if (n > *cap) {
        roia_pt *t = realloc(*dst, (size_t)n * sizeof(roia_pt));
        if (!t) return -1;
        *dst = t;
        *cap = n;
    }
    for (int64_t i = 0; i < n; i++) {
        (*dst)[i] = src[i];
        if (src[i].valid) {
            (*dst)[i].lo = (src[i].lo - org) * mul;
            (*dst)[i].hi = (src[i].hi - org) * mul;
        }
    }
    return 0;
}

/* The window of the box in g on a W-wide plane read at column stride sw; 0, or -1 when out of memory. (This and
 * roia_stage are kept out of line: inlined into the kernel, the sampling loop's registers spilled and the fp16
 * forward measured ~20% slower.) */
__attribute__((noinline)) static int roia_window_of(roia_window *st, const roia_geo *g, const roia_params *p,
                                                    int64_t W, int64_t sw) {
    int64_t y0, y1, x0, x1, nvy, nvx;
    const int64_t ny = p->ph * g->gh, nx = p->pw * g->gw;
    roia_span(g->ys, ny, &y0, &y1, &nvy);
    roia_span(g->xs, nx, &x0, &x1, &nvx);
    st->ok = false;
    if (nvy == 0 || nvx == 0) return 0; /* no sample point reads the input */
    int64_t bw = x1 - x0 + 1;
    st->vec = false;
    if (g_roia_f16c && sw == 1) { /* whole 8-blocks, the window moved left when it would leave the row */
        const int64_t b8 = (bw + 7) & ~(int64_t)7;
        if (b8 <= W) {
            if (x0 > W - b8) x0 = W - b8;
            bw = b8;
            st->vec = true;
        }
    }
    const int64_t area = (y1 - y0 + 1) * bw;
    if (area > 4 * nvy * nvx) return 0;
    if (area > st->cap) {
        float *t = realloc(st->buf, (size_t)area * sizeof(float));
        if (!t) return -1;
        st->buf = t;
        st->cap = area;
    }
    if (roia_rel(&st->ys, &st->cap_y, g->ys, ny, y0, bw) || roia_rel(&st->xs, &st->cap_x, g->xs, nx, x0, 1)) return -1;
    st->y0 = y0, st->x0 = x0, st->rows = y1 - y0 + 1, st->bw = bw;
    st->ok = true;
    return 0;
}

static void roia_window_free(roia_window *st) {
    free(st->buf);
    free(st->ys);
    free(st->xs);
}

#ifdef ACL_F16_ROWS_F16C
__attribute__((target("avx2,f16c"))) static void roia_stage_f16c(float *dst, const uint16_t *src, int64_t sh,
                                                                  int64_t rows, int64_t bw) {
    for (int64_t r = 0; r < rows; r++, src += sh, dst += bw)
        for (int64_t j = 0; j < bw; j += 8) {
            const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + j));
            const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
            if (!_mm_testz_si128(nan, nan)) {
                for (int q = 0; q < 8; q++) dst[j + q] = g_roia_h2f[src[j + q]];
                continue;
            }
            _mm256_storeu_ps(dst + j, _mm256_cvtph_ps(h));
        }
}
#endif

/* the window of the plane at ip into st->buf */
__attribute__((noinline)) static void roia_stage(roia_window *st, const uint16_t *ip, int64_t sh, int64_t sw) {
    const uint16_t *src = ip + st->y0 * sh + st->x0 * sw;
#ifdef ACL_F16_ROWS_F16C
    if (st->vec) {
        roia_stage_f16c(st->buf, src, sh, st->rows, st->bw);
        return;
    }
#endif
    float *dst = st->buf;
    for (int64_t r = 0; r < st->rows; r++, src += sh, dst += st->bw)
        for (int64_t j = 0; j < st->bw; j++) dst[j] = g_roia_h2f[src[j * sw]];
}

/* Channel blocks (the fp16 forward, "avg" mode, a box whose window is staged): the bins of ROIA_CB channels of one
 * box are sampled together from their windows widened to fp32 and laid out channels last, [pixel][channel], so a
 * sample point's four corners are four 64-byte rows and its weights are formed once for the 16 channels instead of
 * once per channel. Each channel's arithmetic is the per-channel loop's, lane by lane: v += ((w1*v1 + w2*v2) +
 * w3*v3) + w4*v4 over the bin's points in order, then v / count (an invalid point, whose terms are four +0 products,
 * is skipped: v + +0 is v, v never being -0), so every non-NaN bin has the same bits. A channel with a NaN bin is
 * sampled again by the per-channel loop (where two NaNs meet, the payload kept follows that loop's compiled operand
 * order, as before). The block is built when a thread first needs one of its channels and reused for the others. */
#define ROIA_CB 16
typedef float roia_v4 __attribute__((vector_size(16)));
typedef struct {
    int64_t k, c0;    /* the block held: box k, channels c0 .. c0 + ROIA_CB - 1 (k = -1: none) */
    float *win;       /* [(row * bw + col) * ROIA_CB + lane], 64-byte aligned */
    float *res;       /* res[lane * bins + bin] */
    float *row;       /* one window row widened */
    int64_t win_cap, res_cap, row_cap;
    bool nan[ROIA_CB];
} roia_block;

static int roia_grow(float **buf, int64_t *cap, int64_t n, bool align64) {
    if (n <= *cap) return 0;
    float *t = align64 ? aligned_alloc(64, (size_t)((n + 15) & ~(int64_t)15) * sizeof(float))
                       : malloc((size_t)n * sizeof(float));
    if (!t) return -1;
    free(*buf);
    *buf = t;
    *cap = n;
    return 0;
}

static void roia_block_free(roia_block *bk) {
    free(bk->win);
    free(bk->res);
    free(bk->row);
}

/* Builds the block of channels c0 .. c0 + nc - 1 (plane of channel c0 at ip0, channel stride sc); 0, or -1 when out
 * of memory (the caller then keeps the per-channel path). */
__attribute__((noinline)) static int roia_block_run(roia_block *bk, const roia_window *st, const roia_geo *g,
                                                    const roia_params *p, const uint16_t *ip0, int64_t sc, int64_t sh,
                                                    int64_t sw, int64_t nc) {
    const int64_t bw = st->bw, rows = st->rows, area = rows * bw, nb = p->ph * p->pw;
    if (area > ((int64_t)1 << 40) || roia_grow(&bk->win, &bk->win_cap, area * ROIA_CB, true) ||
        roia_grow(&bk->res, &bk->res_cap, nb * ROIA_CB, false) || roia_grow(&bk->row, &bk->row_cap, bw, false))
        return -1;
    float *restrict win = bk->win, *restrict rb = bk->row;
    for (int64_t j = 0; j < nc; j++) {
        const uint16_t *src = ip0 + j * sc + st->y0 * sh + st->x0 * sw;
        for (int64_t r = 0; r < rows; r++, src += sh) {
            if (sw == 1) {
                acl_row_f16_to_f32(rb, src, bw); /* the bits of acl_f16_to_f32 (the table), NaN payloads included */
            } else {
                for (int64_t x = 0; x < bw; x++) rb[x] = g_roia_h2f[src[x * sw]];
            }
            float *d = win + r * bw * ROIA_CB + j;
            for (int64_t x = 0; x < bw; x++) d[x * ROIA_CB] = rb[x];
        }
    }
    for (int64_t j = nc; j < ROIA_CB; j++) /* lanes without a channel: zeros (their results are not used) */
        for (int64_t i = 0; i < area; i++) win[i * ROIA_CB + j] = 0.0f;
    const roia_v4 *vw = (const roia_v4 *)(const void *)win;
    for (int64_t by = 0; by < p->ph; by++)
        for (int64_t bx = 0; bx < p->pw; bx++) {
            roia_v4 a0 = {0, 0, 0, 0}, a1 = a0, a2 = a0, a3 = a0;
            for (int64_t iy = 0; iy < g->gh; iy++) {
                const roia_pt *y = &st->ys[by * g->gh + iy];
                if (!y->valid) continue;
                for (int64_t ix = 0; ix < g->gw; ix++) {
                    const roia_pt *xp = &st->xs[bx * g->gw + ix];
                    if (!xp->valid) continue;
                    const float w1 = y->wl * xp->wl, w2 = y->wl * xp->wh, w3 = y->wh * xp->wl, w4 = y->wh * xp->wh;
                    /* st's offsets: rows times bw, columns; 4 vectors a pixel */
                    const roia_v4 *x1 = vw + (y->lo + xp->lo) * 4, *x2 = vw + (y->lo + xp->hi) * 4,
                                  *x3 = vw + (y->hi + xp->lo) * 4, *x4 = vw + (y->hi + xp->hi) * 4;
                    a0 += w1 * x1[0] + w2 * x2[0] + w3 * x3[0] + w4 * x4[0];
                    a1 += w1 * x1[1] + w2 * x2[1] + w3 * x3[1] + w4 * x4[1];
                    a2 += w1 * x1[2] + w2 * x2[2] + w3 * x3[2] + w4 * x4[2];
                    a3 += w1 * x1[3] + w2 * x2[3] + w3 * x3[3] + w4 * x4[3];
                }
            }
            const float cnt = g->count;
            a0 /= cnt, a1 /= cnt, a2 /= cnt, a3 /= cnt;
            float o[ROIA_CB];
            memcpy(o, &a0, 16), memcpy(o + 4, &a1, 16), memcpy(o + 8, &a2, 16), memcpy(o + 12, &a3, 16);
            for (int j = 0; j < ROIA_CB; j++) bk->res[j * nb + by * p->pw + bx] = o[j];
        }
    for (int64_t j = 0; j < ROIA_CB; j++) {
        bool nan = false;
        for (int64_t i = 0; i < nb; i++) nan |= bk->res[j * nb + i] != bk->res[j * nb + i];
        bk->nan[j] = nan;
    }
    return 0;
}

/* Channel c's bins of box k from the block holding it (built first when needed), or NULL: the per-channel path
 * (a NaN bin, or out of memory). ip is channel c's plane. */
static const float *roia_block_bins(roia_block *bk, const roia_window *st, const roia_geo *g, const roia_params *p,
                                    int64_t k, int64_t c, int64_t C, const uint16_t *ip, int64_t sc, int64_t sh,
                                    int64_t sw) {
    const int64_t c0 = c - c % ROIA_CB;
    if (bk->k != k || bk->c0 != c0) {
        bk->k = -1;
        const int64_t nc = C - c0 < ROIA_CB ? C - c0 : ROIA_CB;
        if (roia_block_run(bk, st, g, p, ip - (c - c0) * sc, sc, sh, sw, nc)) return NULL;
        bk->k = k;
        bk->c0 = c0;
    }
    return bk->nan[c - c0] ? NULL : bk->res + (c - c0) * p->ph * p->pw;
}

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#undef KLOAD
#define KLOAD(p) g_roia_h2f[*(const uint16_t *)(p)]
#define ROIA_PREP() pthread_once(&g_roia_once, roia_build_h2f)
#define ROIA_STAGE 1
#include "kernels/roi_align.inc"
#undef ROIA_PREP
#undef ROIA_STAGE
#include "kernels/dtype_end.h"

/* ---- backward (float32 only, the A2 list): per-plane owner, gather over the boxes of the plane's batch ---- */

int acl_roi_align_bwd_f32(const acl_view *gy, const acl_view *rois, const acl_view *gx, const roia_params *p) {
    const int64_t N = gx->dims[0], C = gx->dims[1], H = gx->dims[2], W = gx->dims[3];
    const int64_t K = p->zero_only ? 0 : rois->dims[0];
    if (N == 0 || C == 0 || H == 0 || W == 0) return 0;
    /* boxes grouped by batch, box order kept (counting sort): the fixed summation order of every plane */
    int64_t *start = calloc((size_t)N + 1, sizeof(int64_t));
    int64_t *order = malloc((size_t)(K > 0 ? K : 1) * sizeof(int64_t));
    int64_t *bat = malloc((size_t)(K > 0 ? K : 1) * sizeof(int64_t));
    if (!start || !order || !bat) {
        free(start), free(order), free(bat);
        return -1;
    }
    for (int64_t k = 0; k < K; k++) {
        float b = ((const float *)rois->base)[k * rois->strides[0]];
        bat[k] = (b > -1.0f && b < (float)N) ? (int64_t)b : -1; /* truncated toward zero, as the forward */
        if (bat[k] >= 0) start[bat[k] + 1]++;
    }
    for (int64_t n = 0; n < N; n++) start[n + 1] += start[n];
    {
        int64_t *fill = calloc((size_t)N, sizeof(int64_t));
        if (!fill) {
            free(start), free(order), free(bat);
            return -1;
        }
        for (int64_t k = 0; k < K; k++)
            if (bat[k] >= 0) order[start[bat[k]] + fill[bat[k]]++] = k;
        free(fill);
    }
    int failed = 0;
    const int64_t planes = N * C;
    const int64_t work = planes * H * W + (K > 0 ? C * K * p->ph * p->pw * 4 : 0);
#pragma omp parallel if (acl_parallel_worth(work)) reduction(| : failed)
    {
        float *acc = malloc((size_t)(H * W) * sizeof(float));
        roia_geo g = {0};
        int mine_failed = acc == NULL;
#pragma omp for schedule(static)
        for (int64_t pl = 0; pl < planes; pl++) {
            if (mine_failed) continue;
            int64_t n = pl / C, c = pl % C;
            memset(acc, 0, (size_t)(H * W) * sizeof(float));
            for (int64_t j = start[n]; j < start[n + 1] && !mine_failed; j++) {
                int64_t k = order[j];
                const float *r = (const float *)rois->base + k * rois->strides[0];
                float cc[4];
                for (int i = 0; i < 4; i++) cc[i] = r[(i + 1) * rois->strides[1]];
                if (roia_geometry(&g, cc, H, W, p)) {
                    mine_failed = 1;
                    break;
                }
                const float *gp = (const float *)gy->base + k * gy->strides[0] + c * gy->strides[1];
                for (int64_t by = 0; by < p->ph; by++)
                    for (int64_t bx = 0; bx < p->pw; bx++) {
                        float gb = gp[by * gy->strides[2] + bx * gy->strides[3]] / g.count;
                        for (int64_t iy = 0; iy < g.gh; iy++) {
                            const roia_pt *y = &g.ys[by * g.gh + iy];
                            if (!y->valid) continue;
                            float *rl = acc + y->lo * W, *rh = acc + y->hi * W;
                            for (int64_t ix = 0; ix < g.gw; ix++) {
                                const roia_pt *x = &g.xs[bx * g.gw + ix];
                                if (!x->valid) continue;
                                rl[x->lo] += gb * (y->wl * x->wl);
                                rl[x->hi] += gb * (y->wl * x->wh);
                                rh[x->lo] += gb * (y->wh * x->wl);
                                rh[x->hi] += gb * (y->wh * x->wh);
                            }
                        }
                    }
            }
            float *op = (float *)gx->base + n * gx->strides[0] + c * gx->strides[1];
            for (int64_t i = 0; i < H; i++)
                for (int64_t jj = 0; jj < W; jj++) op[i * gx->strides[2] + jj * gx->strides[3]] = acc[i * W + jj];
        }
        failed |= mine_failed;
        free(acc);
        roia_geo_free(&g);
    }
    free(start), free(order), free(bat);
    return failed ? -1 : 0;
}
