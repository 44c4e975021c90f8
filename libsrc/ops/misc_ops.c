/* Remaining ops-math ops with short formulas: KlDiv, BatchNormStats, AffineGrid, SignBitsPack, SignBitsUnpack,
 * AmpUpdateScale, ConfusionTranspose, Scale, Im2col. Validation follows each op_api source in order (AmpUpdateScale
 * has none: its generated wrapper checks nulls and the op definition's dtypes, its tiling the shapes and the
 * interval); values in double (AmpUpdateScale in float, as its kernel), rounded once to the kernel's result dtype. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/nan_order.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

enum { MO_KLDIV, MO_BNSTATS, MO_AFFINE, MO_PACK, MO_UNPACK, MO_AMP, MO_IM2COL, MO_SCALE, MO_CONFUSION };
typedef struct {
    int kind;
    aclDataType cdt;                   /* the dtype the kernel returns (cast to out afterwards) */
    double eps, gf, bf;
    int64_t reduction, interval, div;
    bool log_target, align, empty_in; /* empty_in: KlDiv / BatchNormStats with an empty input: outputs filled */
    double fill;                       /* KlDiv with an empty input: the value of its reduced out */
    int nd;
    int64_t bd[ACL_MAX_VIEW_RANK];     /* KlDiv: the broadcast shape */
    int64_t k[2], dil[2], pad[2], st[2];
    int64_t outer, mid, inner;         /* Scale: x as (outer, mid, inner), scale/bias as (mid) */
    bool has_bias;
    int64_t tdims[ACL_MAX_VIEW_RANK], tst[ACL_MAX_VIEW_RANK]; /* ConfusionTranspose: permuted dims, source strides */
} mo_params;

static aclnnStatus run_kldiv(const mo_params *p, aclOpExecutor *ex) {
    const acl_view *o = acl_exec_out(ex, 0);
    if (p->empty_in) { /* mean / sum / batchmean of nothing (none: no executor at all) */
        double v = p->fill;
        return mx_store_via(&v, ACL_DOUBLE, o->dtype, o) ? ACLNN_SUCCESS : OOM;
    }
    int64_t n = 1;
    for (int k = 0; k < p->nd; k++) n *= p->bd[k];
    double *a = malloc(sizeof(double) * (size_t)(n + 1)), *t = malloc(sizeof(double) * (size_t)(n + 1));
    double *r = p->reduction == 0 ? malloc(sizeof(double) * (size_t)(n + 1)) : NULL;
    bool ok = a && t && (r || p->reduction != 0);
    if (ok) {
        mx_load_bcast(acl_exec_in(ex, 0), p->bd, p->nd, ACL_DOUBLE, a);
        mx_load_bcast(acl_exec_in(ex, 1), p->bd, p->nd, ACL_DOUBLE, t);
        double sum = 0;
        for (int64_t i = 0; i < n; i++) {
            /* log target: e^t (t - x); else t (log t - x) with log 0 taken as 0 (the kernel selects 1 for t == 0) */
            double v = p->log_target ? exp(t[i]) * (t[i] - a[i]) : t[i] * (log(t[i] == 0 ? 1.0 : t[i]) - a[i]);
            if (r) r[i] = v;
            else sum += v;
        }
        if (r) {
            ok = mx_store_via(r, ACL_DOUBLE, p->cdt, o);
        } else {
            double v = p->reduction == 2 ? sum : sum / (double)(p->reduction == 1 ? n : p->div);
            ok = mx_store_via(&v, ACL_DOUBLE, p->cdt, o);
        }
    }
    free(a);
    free(t);
    free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_bnstats(const mo_params *p, aclOpExecutor *ex) {
    const acl_view *mo = acl_exec_out(ex, 0), *io = acl_exec_out(ex, 1);
    const int64_t C = mo->dims[0];
    double *mean = malloc(sizeof(double) * (size_t)(C + 1)), *inv = malloc(sizeof(double) * (size_t)(C + 1));
    double *a = p->empty_in ? NULL : dn_load(acl_exec_in(ex, 0));
    bool ok = mean && inv && (a || p->empty_in);
    if (ok && p->empty_in) {
        for (int64_t c = 0; c < C; c++) { mean[c] = 0; inv[c] = NAN; }
    } else if (ok) {
        const acl_view *x = acl_exec_in(ex, 0);
        const int64_t N = x->dims[0], S = acl_view_numel(x) / (N * C);
        const float eps = (float)p->eps;
        ACL_FOR(acl_parallel_worth(N * S * C), c, 0, C, {
            double s = 0, q = 0;
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < S; i++) s += a[(n * C + c) * S + i];
            const double m = s / (double)(N * S);
            for (int64_t n = 0; n < N; n++)
                for (int64_t i = 0; i < S; i++) {
                    double d = a[(n * C + c) * S + i] - m;
                    q += d * d;
                }
            mean[c] = m;
            inv[c] = 1 / sqrt(q / (double)(N * S) + eps);
        });
    }
    if (ok) ok = mx_store_via(mean, ACL_DOUBLE, ACL_FLOAT, mo) && mx_store_via(inv, ACL_DOUBLE, ACL_FLOAT, io);
    free(mean);
    free(inv);
    free(a);
    return ok ? ACLNN_SUCCESS : OOM;
}

/* torch.nn.functional.affine_grid's base coordinate of index i of n: align corners -1..1 on the pixel centers of
 * the ends, else on their edges; a single pixel is at 0 */
static double lin(int64_t i, int64_t n, bool align) {
    if (n <= 1) return 0.0;
    return align ? -1 + 2.0 * (double)i / (double)(n - 1) : -1 + (2.0 * (double)i + 1) / (double)n;
}

static aclnnStatus run_affine(const mo_params *p, aclOpExecutor *ex) {
    const acl_view *o = acl_exec_out(ex, 0);
    const bool d3 = o->ndim == 5;
    const int64_t N = o->dims[0], D = d3 ? o->dims[1] : 1, H = o->dims[d3 ? 2 : 1], W = o->dims[d3 ? 3 : 2];
    const int rows = d3 ? 3 : 2, cols = rows + 1;
    double *a = dn_load(acl_exec_in(ex, 0));
    double *lt = malloc(sizeof(double) * (size_t)(W + H + D)); /* the base coordinates of w, h, d */
    bool *fin = malloc((size_t)N + 1); /* theta[nn] all finite */
    bool ok = a && lt && fin;
    if (ok) {
        for (int64_t nn = 0; nn < N; nn++) {
            fin[nn] = true;
            for (int e = 0; e < rows * cols; e++) fin[nn] = fin[nn] && isfinite(a[nn * rows * cols + e]);
        }
        double *lw = lt, *lh = lt + W, *ld = lt + W + H;
        for (int64_t w = 0; w < W; w++) lw[w] = lin(w, W, p->align);
        for (int64_t h = 0; h < H; h++) lh[h] = lin(h, H, p->align);
        for (int64_t d = 0; d < D; d++) ld[d] = lin(d, D, p->align);
        const int64_t swo = o->strides[o->ndim - 2], sko = o->strides[o->ndim - 1];
        const int64_t es = (int64_t)acl_dtype_size(o->dtype);
        const bool half = o->dtype == ACL_FLOAT16 || o->dtype == ACL_BF16;
        enum { CH = 256 }; /* points a chunk */
        /* a row of W points a task, CH points at a time: their values in double, then rounded into out as the
         * double -> out conversion does (to fp16 / bf16 through fp32) */
        ACL_FOR(acl_parallel_worth(acl_view_numel(o) * 16), t, 0, N * D * H, {
            const int64_t nn = t / (D * H), d = t / H % D, h = t % H;
            const double *th = a + nn * rows * cols;
            char *ob = o->base + (nn * o->strides[0] + (d3 ? d * o->strides[1] : 0) + h * o->strides[d3 ? 2 : 1]) * es;
            double dst[CH * 3];
            float fr[CH * 3];
            for (int64_t w0 = 0; w0 < W; w0 += CH) {
                const int64_t nw = W - w0 < CH ? W - w0 : CH;
                /* ((0 + x t0) + y t1) + 1 t2 (2-D) or (((0 + x t0) + y t1) + z t2) + 1 t3 (3-D), as the loop below
                 * adds them; y t1, z t2 are the row's constants and 1 t is t for every value but a NaN, which the
                 * loop below redoes under the NaN rule */
                double t0[3] = {0, 0, 0}, yt[3] = {0, 0, 0}, zt[3] = {0, 0, 0}, tl[3] = {0, 0, 0};
                for (int k = 0; k < rows; k++) {
                    const double *tk = th + k * cols;
                    t0[k] = tk[0];
                    yt[k] = lh[h] * tk[1];
                    zt[k] = d3 ? ld[d] * tk[2] : 0;
                    tl[k] = tk[cols - 1];
                }
                if (d3)
                    for (int64_t w = 0; w < nw; w++)
                        for (int k = 0; k < 3; k++)
                            dst[w * 3 + k] = (((0.0 + lw[w0 + w] * t0[k]) + yt[k]) + zt[k]) + tl[k];
                else
                    for (int64_t w = 0; w < nw; w++)
                        for (int k = 0; k < 2; k++) dst[w * 2 + k] = ((0.0 + lw[w0 + w] * t0[k]) + yt[k]) + tl[k];
                /* theta of fp32 / fp16 / bf16 all finite: every sum is finite (|base| <= 1, four terms) */
                int nan = 0;
                if (!fin[nn])
                    for (int64_t e = 0; e < nw * rows; e++) nan |= dst[e] != dst[e];
                if (nan)
                    for (int64_t w = 0; w < nw; w++) {
                        /* (x, y[, z], 1) times theta^T: s + base * theta in the written order */
                        double base[4] = {lw[w0 + w], lh[h], 1, 1};
                        if (d3) base[2] = ld[d];
                        for (int k = 0; k < rows; k++) {
                            if (!no_isnan_d(dst[w * rows + k])) continue;
                            double s = 0;
                            for (int c = 0; c < cols; c++) s = no_add_d(s, no_mul_d(base[c], th[k * cols + c]));
                            dst[w * rows + k] = s;
                        }
                    }
                const void *src = dst;
                aclDataType sdt = ACL_DOUBLE;
                if (half) {
                    for (int64_t e = 0; e < nw * rows; e++) fr[e] = (float)dst[e];
                    src = fr;
                    sdt = ACL_FLOAT;
                }
                char *obc = ob + w0 * swo * es;
                if (sko == 1 && swo == rows)
                    acl_convert(src, sdt, 1, obc, o->dtype, 1, nw * rows);
                else
                    for (int64_t w = 0; w < nw; w++)
                        acl_convert((const char *)src + w * rows * (int64_t)acl_dtype_size(sdt), sdt, 1,
                                    obc + w * swo * es, o->dtype, sko, rows);
            }
        });
    }
    free(a);
    free(lt);
    free(fin);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_pack(const mo_params *p, aclOpExecutor *ex) {
    (void)p;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t no = acl_view_numel(o);
    double *a = dn_load(acl_exec_in(ex, 0));
    int64_t *r = calloc((size_t)no + 1, sizeof(int64_t));
    bool ok = a && r;
    if (ok) {
        /* bit i (least significant first) of byte k: element 8k + i is not negative (x < 0 is false: +-0 and NaN
         * give 1); the bits past the last element are 0 */
        const int64_t n = acl_view_numel(acl_exec_in(ex, 0));
        for (int64_t i = 0; i < n && i / 8 < no; i++)
            if (!(a[i] < 0)) r[i / 8] |= (int64_t)1 << (i % 8);
        dn_store_i64(r, o);
    }
    free(a);
    free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_unpack(const mo_params *p, aclOpExecutor *ex) {
    (void)p;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t no = acl_view_numel(o);
    int64_t *a = dn_load_i64(acl_exec_in(ex, 0));
    double *r = malloc(sizeof(double) * (size_t)(no + 1));
    bool ok = a && r;
    if (ok) {
        for (int64_t i = 0; i < no; i++) r[i] = ((a[i / 8] >> (i % 8)) & 1) ? 1.0 : -1.0;
        dn_store(r, o);
    }
    free(a);
    free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_amp(const mo_params *p, aclOpExecutor *ex) {
    /* the kernel reads element 0 of each input and writes element 0 of each output, in float and int32 */
    const acl_view *cs = acl_exec_in(ex, 0), *gt = acl_exec_in(ex, 1), *fi = acl_exec_in(ex, 2);
    const acl_view *us = acl_exec_out(ex, 0), *ug = acl_exec_out(ex, 1);
    float scale, found;
    int32_t tracker;
    acl_convert(cs->base, cs->dtype, 1, &scale, ACL_FLOAT, 1, 1);
    acl_convert(fi->base, fi->dtype, 1, &found, ACL_FLOAT, 1, 1);
    acl_convert(gt->base, gt->dtype, 1, &tracker, ACL_INT32, 1, 1);
    const float gf = (float)p->gf, bf = (float)p->bf;
    if (found != 0) { /* NaN counts as found */
        scale *= bf;
        tracker = 0;
    } else {
        int32_t next = (int32_t)((uint32_t)tracker + 1u);
        if (next == (int32_t)p->interval) {
            float ns = scale * gf;
            if (isfinite(ns)) scale = ns;
            tracker = 0;
        } else {
            tracker = next;
        }
    }
    /* an output holding no element gets nothing (there is no element 0 to write) */
    if (acl_view_numel(us) > 0) acl_convert(&scale, ACL_FLOAT, 1, us->base, us->dtype, 1, 1);
    if (acl_view_numel(ug) > 0) acl_convert(&tracker, ACL_INT32, 1, ug->base, ug->dtype, 1, 1);
    return ACLNN_SUCCESS;
}

/* Im2col when out has x's dtype (fp32 / fp16 / bf16): the elements' bits copied (the double round trip of the
 * general path gives every non-NaN value back unchanged), the padding +0, and a NaN passed through that round trip
 * (acl_convert to double and back, as the general path does) so its bytes stay the general path's. */
#define IM2COL_FAST(NAME, UT, ABSM, INFB)                                                                            \
    static void NAME(const mo_params *p, const acl_view *x, const acl_view *o, int64_t N, int64_t C, int64_t H,    \
                     int64_t W, int64_t oh, int64_t ow) {                                                           \
        const bool bt = x->ndim == 4;                                                                                \
        const int64_t rowsN = C * p->k[0] * p->k[1], xd = x->ndim, od = o->ndim;                                     \
        const int64_t xs0 = bt ? x->strides[0] : 0, xs1 = x->strides[xd - 3], xs2 = x->strides[xd - 2],              \
                      xs3 = x->strides[xd - 1];                                                                      \
        const int64_t os0 = bt ? o->strides[0] : 0, os1 = o->strides[od - 2], os2 = o->strides[od - 1];              \
        const UT *xb = (const UT *)(const void *)x->base;                                                            \
        UT *ob = (UT *)(void *)o->base;                                                                              \
        const int64_t st0 = p->st[0], st1 = p->st[1];                                                                \
        ACL_FOR(acl_parallel_worth(N * rowsN * oh * ow), nr, 0, N * rowsN, {                                         \
            const int64_t n = nr / rowsN, row = nr % rowsN, c = row / (p->k[0] * p->k[1]);                           \
            const int64_t ki = row / p->k[1] % p->k[0], kj = row % p->k[1];                                          \
            const int64_t off = kj * p->dil[1] - p->pad[1]; /* source column of output column j: j st1 + off */     \
            int64_t j0 = off >= 0 ? 0 : (-off + st1 - 1) / st1;                                                      \
            int64_t j1 = W - 1 - off < 0 ? 0 : (W - 1 - off) / st1 + 1;                                              \
            if (j0 > ow) j0 = ow;                                                                                    \
            if (j1 > ow) j1 = ow;                                                                                    \
            if (j1 < j0) j1 = j0;                                                                                    \
            UT *dst = ob + n * os0 + row * os1;                                                                      \
            const UT *src = xb + n * xs0 + c * xs1;                                                                  \
            for (int64_t i = 0; i < oh; i++) {                                                                       \
                const int64_t y = i * st0 - p->pad[0] + ki * p->dil[0];                                              \
                UT *d = dst + i * ow * os2;                                                                          \
                if (y < 0 || y >= H) {                                                                               \
                    for (int64_t j = 0; j < ow; j++) d[j * os2] = 0;                                                 \
                    continue;                                                                                        \
                }                                                                                                    \
                const UT *sr = src + y * xs2 + off * xs3;                                                            \
                for (int64_t j = 0; j < j0; j++) d[j * os2] = 0;                                                     \
                for (int64_t j = j1; j < ow; j++) d[j * os2] = 0;                                                    \
                if (os2 == 1 && xs3 * st1 == 1) {                                                                    \
                    memcpy(d + j0, sr + j0, sizeof(UT) * (size_t)(j1 - j0));                                         \
                } else {                                                                                             \
                    const int64_t sj = st1 * xs3;                                                                    \
                    for (int64_t j = j0; j < j1; j++) d[j * os2] = sr[j * sj];                                       \
                }                                                                                                    \
                int nan = 0;                                                                                         \
                for (int64_t j = j0; j < j1; j++) nan |= (UT)(d[j * os2] & ABSM) > INFB;                             \
                if (nan)                                                                                             \
                    for (int64_t j = j0; j < j1; j++)                                                                \
                        if ((UT)(d[j * os2] & ABSM) > INFB) {                                                        \
                            double v;                                                                                \
                            acl_convert(d + j * os2, x->dtype, 1, &v, ACL_DOUBLE, 1, 1);                             \
                            acl_convert(&v, ACL_DOUBLE, 1, d + j * os2, x->dtype, 1, 1);                             \
                        }                                                                                            \
            }                                                                                                        \
        });                                                                                                          \
    }
IM2COL_FAST(im2col_fast32, uint32_t, 0x7fffffffu, 0x7f800000u)
IM2COL_FAST(im2col_fast16, uint16_t, 0x7fffu, 0x7c00u)
IM2COL_FAST(im2col_fastb16, uint16_t, 0x7fffu, 0x7f80u)
#undef IM2COL_FAST

static aclnnStatus run_im2col(const mo_params *p, aclOpExecutor *ex) {
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const bool batched = x->ndim == 4;
    const int64_t N = batched ? x->dims[0] : 1, C = x->dims[batched ? 1 : 0], H = x->dims[x->ndim - 2],
                  W = x->dims[x->ndim - 1];
    const int64_t oh = (H + 2 * p->pad[0] - p->dil[0] * (p->k[0] - 1) - 1) / p->st[0] + 1;
    const int64_t ow = (W + 2 * p->pad[1] - p->dil[1] * (p->k[1] - 1) - 1) / p->st[1] + 1;
    if (o->dtype == x->dtype && (x->dtype == ACL_FLOAT || x->dtype == ACL_FLOAT16 || x->dtype == ACL_BF16)) {
        (x->dtype == ACL_FLOAT ? im2col_fast32 : x->dtype == ACL_FLOAT16 ? im2col_fast16 : im2col_fastb16)(
            p, x, o, N, C, H, W, oh, ow);
        return ACLNN_SUCCESS;
    }
    const int64_t L = oh * ow, rowsN = C * p->k[0] * p->k[1];
    double *a = dn_load(x), *r = malloc(sizeof(double) * (size_t)(acl_view_numel(o) + 1));
    bool ok = a && r;
    if (ok) {
        ACL_FOR(acl_parallel_worth(N * rowsN * L), nr, 0, N * rowsN, {
            const int64_t n = nr / rowsN, row = nr % rowsN, c = row / (p->k[0] * p->k[1]);
            const int64_t ki = row / p->k[1] % p->k[0], kj = row % p->k[1];
            for (int64_t i = 0; i < oh; i++)
                for (int64_t j = 0; j < ow; j++) {
                    int64_t y = i * p->st[0] - p->pad[0] + ki * p->dil[0];
                    int64_t xx = j * p->st[1] - p->pad[1] + kj * p->dil[1];
                    r[nr * L + i * ow + j] =
                        (y >= 0 && y < H && xx >= 0 && xx < W) ? a[((n * C + c) * H + y) * W + xx] : 0;
                }
        });
        ok = mx_store_via(r, ACL_DOUBLE, x->dtype, o);
    }
    free(a);
    free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_scale(const mo_params *p, aclOpExecutor *ex) {
    const acl_view *o = acl_exec_out(ex, 0);
    double *a = dn_load(acl_exec_in(ex, 0)), *sc = dn_load(acl_exec_in(ex, 1));
    double *b = p->has_bias ? dn_load(acl_exec_in(ex, 2)) : NULL;
    double *r = malloc(sizeof(double) * (size_t)(acl_view_numel(o) + 1));
    bool ok = a && sc && r && (b || !p->has_bias);
    if (ok) {
        for (int64_t o2 = 0; o2 < p->outer; o2++)
            for (int64_t m = 0; m < p->mid; m++)
                for (int64_t i = 0; i < p->inner; i++) {
                    int64_t e = (o2 * p->mid + m) * p->inner + i;
                    r[e] = a[e] * sc[m] + (b ? b[m] : 0);
                }
        ok = mx_store_via(r, ACL_DOUBLE, o->dtype, o);
    }
    free(a);
    free(sc);
    free(b);
    free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_confusion(const mo_params *p, aclOpExecutor *ex) {
    /* x in row-major order (P), its permutation T = P.permute(perm) in row-major order, then out (out's row-major
     * order is T's: out is T itself, or T reshaped) */
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const int64_t n = acl_view_numel(x);
    const size_t es = acl_dtype_size(x->dtype);
    char *xb = malloc(es * (size_t)(n + 1)), *tb = malloc(es * (size_t)(n + 1));
    if (!xb || !tb) { free(xb); free(tb); return OOM; }
    int64_t st[ACL_MAX_VIEW_RANK];
    mx_contig_strides(x->dims, x->ndim, st);
    cp_copy(x->base, x->dtype, x->strides, xb, x->dtype, st, x->dims, x->ndim);
    mx_contig_strides(p->tdims, p->nd, st);
    cp_copy(xb, x->dtype, p->tst, tb, x->dtype, st, p->tdims, p->nd);
    mx_contig_strides(o->dims, o->ndim, st);
    cp_copy(tb, x->dtype, st, o->base, o->dtype, o->strides, o->dims, o->ndim);
    free(xb);
    free(tb);
    return ACLNN_SUCCESS;
}

static aclnnStatus mo_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mo_params *p = ex->params;
    switch (p->kind) {
    case MO_KLDIV: return run_kldiv(p, ex);
    case MO_BNSTATS: return run_bnstats(p, ex);
    case MO_AFFINE: return run_affine(p, ex);
    case MO_PACK: return run_pack(p, ex);
    case MO_UNPACK: return run_unpack(p, ex);
    case MO_AMP: return run_amp(p, ex);
    case MO_IM2COL: return run_im2col(p, ex);
    case MO_SCALE: return run_scale(p, ex);
    case MO_CONFUSION: return run_confusion(p, ex);
    default: return ACLNN_SUCCESS;
    }
}

/* an executor over the given inputs (NULL skipped; needs_data unless the op reads no element) and outputs */
static aclnnStatus mo_exec(int op, const mo_params *pp, const aclTensor *const *ins, const char *const *inn, int nin,
                           bool read_ins, const aclTensor *const *outs, const char *const *outn, int nout,
                           uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, mo_run, sizeof(mo_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++)
        if (ins[i]) rc = acl_exec_add_input(ex, ins[i], inn[i], read_ins && !acl_tensor_empty(ins[i]));
    for (int i = 0; i < nout && !rc; i++)
        rc = acl_tensor_empty(outs[i]) ? acl_exec_add_output_nodata(ex, outs[i], outn[i])
                                       : acl_exec_add_output(ex, outs[i], outn[i]);
    if (rc) return acl_exec_discard(ex, rc);
    *(mo_params *)ex->params = *pp;
    return acl_exec_publish(ex, ws, exo);
}

static aclnnStatus null_in(const void *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus max_dim(const aclTensor *t, uint64_t n, const char *name) {
    ACLNN_CHECK(t->ndim <= n, ACLNN_ERR_PARAM_INVALID, "%s must have at most %llu dims, but has %llu.", name,
                (unsigned long long)n, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

/* gert::Shape::GetDim past the rank gives an invalid (negative) value */
static int64_t dim_or_neg(const aclTensor *t, uint64_t i) { return i < t->ndim ? t->dims[i] : INT64_MIN; }

/* ---- KlDiv ---- */

aclnnStatus opws_KlDiv(const aclTensor *self, const aclTensor *target, int64_t reduction,
                       bool logTarget, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self"));
    ACL_TRY(null_in(target, "target"));
    ACL_TRY(null_in(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_KlDiv, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_KlDiv, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_KlDiv, "out"));
    const aclDataType pt = acl_promote(self->dtype, target->dtype);
    ACLNN_CHECK(pt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "self dtype %s and target dtype %s cannot promote.",
                acl_dtype_name(self->dtype), acl_dtype_name(target->dtype));
    ACLNN_CHECK(acl_can_cast(pt, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "result dtype %s can't be cast to the desired output type %s of out.", acl_dtype_name(pt),
                acl_dtype_name(out->dtype));
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(max_dim(target, 8, "target"));
    ACLNN_CHECK(reduction >= 0 && reduction <= 3, ACLNN_ERR_PARAM_INVALID,
                "Invalid reduction value: %lld. Allowed values are 0 (None), 1 (Mean), 2 (Sum), 3 (Batchmean).",
                (long long)reduction);
    mo_params pp = {.kind = MO_KLDIV, .cdt = pt, .reduction = reduction, .log_target = logTarget};
    const aclTensor *ins[] = {self, target}, *outs[] = {out};
    const char *inn[] = {"self", "target"}, *outn[] = {"out"};
    if (acl_tensor_empty(self) || acl_tensor_empty(target)) {
        if (reduction == 0) return acl_exec_noop(ACL_OP_KlDiv, workspaceSize, executor);
        /* mean of nothing is NaN, sum 0, batchmean NaN when the batch is empty (else 0); a [1] tensor filled and
         * copied into out */
        pp.empty_in = true;
        pp.fill = reduction == 1 || (reduction == 3 && dim_or_neg(self, 0) == 0) ? NAN : 0.0;
        const int64_t one = 1;
        ACL_TRY(mx_check_viewcopy(out, "out", &one, 1));
        return mo_exec(ACL_OP_KlDiv, &pp, ins, inn, 2, false, outs, outn, 1, workspaceSize, executor);
    }
    /* 0-d operands as [1], then broadcast */
    const int64_t one = 1;
    const int64_t *sd = self->ndim ? self->dims : &one, *td = target->ndim ? target->dims : &one;
    ACLNN_CHECK(mx_broadcast(sd, self->ndim ? (int)self->ndim : 1, td, target->ndim ? (int)target->ndim : 1, pp.bd,
                             &pp.nd), ACLNN_ERR_PARAM_INVALID, "self and target cannot be broadcast.");
    if (reduction == 0) {
        if (self->ndim == 0 && target->ndim == 0) ACL_TRY(mx_check_shape(out, "out", NULL, 0));
        else ACL_TRY(mx_check_shape(out, "out", pp.bd, pp.nd));
    } else {
        ACLNN_CHECK(out->ndim == 0 || acl_tensor_numel(out) == 1, ACLNN_ERR_PARAM_INVALID,
                    "out must be a 0-d tensor (or hold one element) for a reduction.");
    }
    pp.div = pp.bd[0];
    return mo_exec(ACL_OP_KlDiv, &pp, ins, inn, 2, true, outs, outn, 1, workspaceSize, executor);
}

/* ---- BatchNormStats ---- */

aclnnStatus opws_BatchNormStats(const aclTensor *input, double eps, aclTensor *mean, aclTensor *invstd,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(input, "input"));
    ACL_TRY(null_in(mean, "mean"));
    ACL_TRY(null_in(invstd, "invstd"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_BatchNormStats, "input"));
    ACL_TRY(acl_check_dtype_in(mean, ACL_DT_LIST_BatchNormStats_mean, "mean"));
    ACL_TRY(acl_check_dtype_in(invstd, ACL_DT_LIST_BatchNormStats_invstd, "invstd"));
    const aclTensor *all[] = {input, mean, invstd};
    const char *names[] = {"input", "mean", "invstd"};
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(!acl_format_is_private(all[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "%s format %s is not supported (ND, NCL, NCHW, NCDHW).", names[i],
                    acl_format_name(all[i]->format));
    ACL_TRY(max_dim(input, 8, "input"));
    ACLNN_CHECK(input->ndim >= 2, ACLNN_ERR_PARAM_INVALID, "input must have at least 2 dims, but has %llu.",
                (unsigned long long)input->ndim);
    ACLNN_CHECK(mean->ndim == 1, ACLNN_ERR_PARAM_INVALID, "mean must be 1-dimensional.");
    ACLNN_CHECK(invstd->ndim == 1, ACLNN_ERR_PARAM_INVALID, "invstd must be 1-dimensional.");
    ACLNN_CHECK(input->dims[1] != 0, ACLNN_ERR_PARAM_INVALID, "Channel size of input should not be zero.");
    ACL_TRY(mx_check_shape(mean, "mean", &input->dims[1], 1));
    ACL_TRY(mx_check_shape(invstd, "invstd", &input->dims[1], 1));
    mo_params pp = {.kind = MO_BNSTATS, .eps = eps, .empty_in = acl_tensor_empty(input)};
    const aclTensor *ins[] = {input}, *outs[] = {mean, invstd};
    const char *inn[] = {"input"}, *outn[] = {"mean", "invstd"};
    /* an empty input: mean filled with 0, invstd with NaN */
    return mo_exec(ACL_OP_BatchNormStats, &pp, ins, inn, 1, !pp.empty_in, outs, outn, 2, workspaceSize, executor);
}

/* ---- AffineGrid ---- */

aclnnStatus opws_AffineGrid(const aclTensor *theta, const aclIntArray *size, bool alignCorners,
                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(theta, "theta"));
    ACL_TRY(null_in(size, "size"));
    ACL_TRY(null_in(out, "out"));
    ACL_TRY(acl_check_dtype_in(theta, ACL_DT_LIST_AffineGrid, "theta"));
    ACLNN_CHECK(out->dtype == theta->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be theta's %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(theta->dtype));
    ACLNN_CHECK(!acl_tensor_empty(theta), ACLNN_ERR_PARAM_INVALID, "Expected theta to be not an empty tensor.");
    ACLNN_CHECK(size->size == 4 || size->size == 5, ACLNN_ERR_PARAM_INVALID,
                "AffineGrid needs a 4-d or 5-d size, got %llu entries.", (unsigned long long)size->size);
    const bool d3 = size->size == 5;
    ACLNN_CHECK(theta->ndim == 3 && theta->dims[1] == (d3 ? 3 : 2) && theta->dims[2] == (d3 ? 4 : 3) &&
                theta->dims[0] == size->v[0], ACLNN_ERR_PARAM_INVALID,
                "Expected a batch of %s affine matrices of shape Nx%dx%d (N = size[0] = %lld) for theta.",
                d3 ? "3D" : "2D", d3 ? 3 : 2, d3 ? 4 : 3, (long long)size->v[0]);
    int64_t od[5] = {size->v[0], size->v[2], size->v[3], d3 ? size->v[4] : 2, 3};
    ACL_TRY(mx_check_shape(out, "out", od, d3 ? 5 : 4));
    mo_params pp = {.kind = MO_AFFINE, .align = alignCorners};
    const aclTensor *ins[] = {theta}, *outs[] = {out};
    const char *inn[] = {"theta"}, *outn[] = {"out"};
    return mo_exec(ACL_OP_AffineGrid, &pp, ins, inn, 1, true, outs, outn, 1, workspaceSize, executor);
}

/* ---- SignBitsPack, SignBitsUnpack ---- */

static aclnnStatus nd_formats(const aclTensor *self, const aclTensor *out) {
    ACLNN_CHECK(self->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, "self format should be ND, it is %s.",
                acl_format_name(self->format));
    ACLNN_CHECK(out->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, "out format should be ND, it is %s.",
                acl_format_name(out->format));
    return ACLNN_SUCCESS;
}

static aclnnStatus bits_common(const aclTensor *self, int64_t size, const aclTensor *out, bool pack, int64_t *cols) {
    ACLNN_CHECK(size > 0, ACLNN_ERR_PARAM_INVALID, "size value must be bigger than zero, got %lld.", (long long)size);
    for (uint64_t i = 0; i < out->ndim; i++)
        ACLNN_CHECK(out->dims[i] >= 0, ACLNN_ERR_PARAM_INVALID, "Dim value of out is negative.");
    const int64_t sd = dim_or_neg(self, 0);
    int64_t total = 0;
    if (pack) {
        ACLNN_CHECK(sd >= 0, ACLNN_ERR_PARAM_INVALID, "Dim value of self is negative.");
        total = sd / 8 + (sd % 8 != 0); /* packed bytes */
        ACLNN_CHECK(total % size == 0, ACLNN_ERR_PARAM_INVALID,
                    "The number of packed bytes %lld cannot be divided by size %lld.", (long long)total,
                    (long long)size);
    } else {
        ACLNN_CHECK(acl_mul_i64(sd, 8, &total) && total % size == 0, ACLNN_ERR_PARAM_INVALID,
                    "The number of elements in self * 8 cannot be divided by size %lld.", (long long)size);
    }
    ACLNN_CHECK(dim_or_neg(out, 0) == size, ACLNN_ERR_PARAM_INVALID,
                "The first dimension of out should be equal to size %lld.", (long long)size);
    ACLNN_CHECK(self->ndim == 1, ACLNN_ERR_PARAM_INVALID, "self dims %llu should be 1.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim == 2, ACLNN_ERR_PARAM_INVALID, "out dims %llu should be 2.", (unsigned long long)out->ndim);
    *cols = total / size;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SignBitsPack(const aclTensor *self, int64_t size, aclTensor *out,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self"));
    ACL_TRY(null_in(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SignBitsPack, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_SignBitsPack_out, "out"));
    ACL_TRY(nd_formats(self, out));
    int64_t cols = 0;
    ACL_TRY(bits_common(self, size, out, true, &cols));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_SignBitsPack, workspaceSize, executor);
    const int64_t od[2] = {size, cols};
    ACL_TRY(mx_check_viewcopy(out, "out", od, 2));
    mo_params pp = {.kind = MO_PACK};
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return mo_exec(ACL_OP_SignBitsPack, &pp, ins, inn, 1, true, outs, outn, 1, workspaceSize, executor);
}

aclnnStatus opws_SignBitsUnpack(const aclTensor *self, int64_t size, aclDataType dtype, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self"));
    ACL_TRY(null_in(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SignBitsUnpack, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_SignBitsUnpack_out, "out"));
    ACLNN_CHECK(out->dtype == dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should match the dtype argument %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(dtype));
    ACL_TRY(nd_formats(self, out));
    int64_t cols = 0;
    ACL_TRY(bits_common(self, size, out, false, &cols));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_SignBitsUnpack, workspaceSize, executor);
    const int64_t od[2] = {size, cols};
    ACL_TRY(mx_check_viewcopy(out, "out", od, 2));
    mo_params pp = {.kind = MO_UNPACK};
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return mo_exec(ACL_OP_SignBitsUnpack, &pp, ins, inn, 1, true, outs, outn, 1, workspaceSize, executor);
}

/* ---- AmpUpdateScale ---- */

aclnnStatus opws_AmpUpdateScale(const aclTensor *currentScale, const aclTensor *growthTracker,
                                const aclTensor *foundInf, double growthFactor, double backoffFactor,
                                int64_t growthInterval, const aclTensor *updatedScale,
                                const aclTensor *updatedGrowthTracker, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    const aclTensor *all[] = {currentScale, growthTracker, foundInf, updatedScale, updatedGrowthTracker};
    const char *names[] = {"currentScale", "growthTracker", "foundInf", "updatedScale", "updatedGrowthTracker"};
    for (int i = 0; i < 5; i++) ACL_TRY(null_in(all[i], names[i]));
    ACL_TRY(acl_check_dtype_in(currentScale, ACL_DT_LIST_AmpUpdateScale, "currentScale"));
    ACL_TRY(acl_check_dtype_in(growthTracker, ACL_DT_LIST_AmpUpdateScale_growthTracker, "growthTracker"));
    ACL_TRY(acl_check_same_dtype(currentScale, "currentScale", foundInf, "foundInf"));
    ACL_TRY(acl_check_same_dtype(currentScale, "currentScale", updatedScale, "updatedScale"));
    ACL_TRY(acl_check_dtype_in(updatedGrowthTracker, ACL_DT_LIST_AmpUpdateScale_updatedGrowthTracker,
                               "updatedGrowthTracker"));
    /* the tiling's checks (ACLNN_ERR_INNER_TILING_ERROR): the interval, then the inputs' storage shapes [1] (a 0-d
     * storage shape counts as [1]) */
    ACLNN_CHECK(growthInterval >= 1 && growthInterval <= INT32_MAX, ACLNN_ERR_INNER_TILING_ERROR,
                "growthInterval %lld must be in [1, 2147483647].", (long long)growthInterval);
    for (int i = 0; i < 3; i++) {
        const aclTensor *t = all[i];
        const uint64_t sn = t->storage_ndim;
        ACLNN_CHECK(sn <= 1, ACLNN_ERR_INNER_TILING_ERROR, "%s must have the storage shape [1], it has %llu dims.",
                    names[i], (unsigned long long)sn);
        ACLNN_CHECK(sn == 0 || t->storage_dims[0] == 1, ACLNN_ERR_INNER_TILING_ERROR,
                    "%s must have the storage shape [1], it holds %lld elements.", names[i],
                    (long long)t->storage_dims[0]);
    }
    /* the kernel reads element 0 of each input: one must exist in each view */
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(!acl_tensor_empty(all[i]), ACLNN_ERR_INNER_TILING_ERROR, "%s holds no element.", names[i]);
    mo_params pp = {.kind = MO_AMP, .gf = growthFactor, .bf = backoffFactor, .interval = growthInterval};
    return mo_exec(ACL_OP_AmpUpdateScale, &pp, all, names, 3, true, all + 3, names + 3, 2, workspaceSize, executor);
}

/* ---- ConfusionTranspose ---- */

aclnnStatus opws_ConfusionTranspose(const aclTensor *x, const aclIntArray *perm,
                                    const aclIntArray *shape, bool transpose_first, aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(x, "x"));
    ACL_TRY(null_in(perm, "perm"));
    ACL_TRY(null_in(shape, "shape"));
    ACL_TRY(null_in(out, "out"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_ConfusionTranspose, "x"));
    ACLNN_CHECK(out->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be x's %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(x->dtype));
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_ConfusionTranspose, workspaceSize, executor);
    /* what the op's kernel launch refuses (ACLNN_ERR_INNER_NULLPTR): ranks over 8, a perm that is not a
     * permutation of the permuted tensor's axes, a shape that does not hold x's elements */
    const int64_t *pd = transpose_first ? x->dims : shape->v; /* the tensor that is permuted */
    const uint64_t pr = transpose_first ? x->ndim : shape->size;
    ACLNN_CHECK(pr <= ACL_MAX_VIEW_RANK && shape->size <= ACL_MAX_VIEW_RANK && x->ndim <= ACL_MAX_VIEW_RANK,
                ACLNN_ERR_INNER_NULLPTR, "x, shape and perm may have at most 8 dims.");
    int64_t m = 0, n = acl_tensor_numel(x);
    ACLNN_CHECK(acl_numel(shape->v, (int64_t)shape->size, &m) && m == n, ACLNN_ERR_INNER_NULLPTR,
                "shape does not hold x's %lld elements.", (long long)n);
    for (uint64_t k = 0; k < shape->size; k++)
        ACLNN_CHECK(shape->v[k] >= 0, ACLNN_ERR_INNER_NULLPTR, "shape[%llu] is negative.", (unsigned long long)k);
    ACLNN_CHECK(perm->size == pr, ACLNN_ERR_INNER_NULLPTR, "perm must have %llu entries, it has %llu.",
                (unsigned long long)pr, (unsigned long long)perm->size);
    mo_params pp = {.kind = MO_CONFUSION, .nd = (int)pr};
    int64_t rowmajor[ACL_MAX_VIEW_RANK];
    mx_contig_strides(pd, (int)pr, rowmajor);
    bool seen[ACL_MAX_VIEW_RANK] = {false};
    for (uint64_t k = 0; k < pr; k++) {
        int64_t d = cp_wrap_dim(perm->v[k], (int64_t)pr);
        ACLNN_CHECK(d >= 0 && !seen[d], ACLNN_ERR_INNER_NULLPTR, "perm[%llu] = %lld is out of range or repeated.",
                    (unsigned long long)k, (long long)perm->v[k]);
        seen[d] = true;
        pp.tdims[k] = pd[d];
        pp.tst[k] = rowmajor[d];
    }
    /* out: the reshaped permutation (transpose first) or the permutation itself */
    ACL_TRY(mx_check_viewcopy(out, "out", transpose_first ? shape->v : pp.tdims,
                              transpose_first ? (int)shape->size : (int)pr));
    const aclTensor *ins[] = {x}, *outs[] = {out};
    const char *inn[] = {"x"}, *outn[] = {"out"};
    return mo_exec(ACL_OP_ConfusionTranspose, &pp, ins, inn, 1, true, outs, outn, 1, workspaceSize, executor);
}

/* ---- Im2col ---- */

aclnnStatus opws_Im2col(const aclTensor *self, const aclIntArray *kernelSize,
                        const aclIntArray *dilation, const aclIntArray *padding,
                        const aclIntArray *stride, const aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self"));
    ACL_TRY(null_in(kernelSize, "kernelSize"));
    ACL_TRY(null_in(dilation, "dilation"));
    ACL_TRY(null_in(padding, "padding"));
    ACL_TRY(null_in(stride, "stride"));
    ACL_TRY(null_in(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Im2col, "self"));
    ACLNN_CHECK(self->ndim == 3 || self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "Expected self dim %llu to be 3 or 4.",
                (unsigned long long)self->ndim);
    const bool batched = self->ndim == 4;
    for (uint64_t i = batched ? 1 : 0; i < self->ndim; i++)
        ACLNN_CHECK(self->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "self's dims are invalid: dim %llu is %lld.",
                    (unsigned long long)i + 1, (long long)self->dims[i]);
    const aclIntArray *arr[] = {kernelSize, dilation, padding, stride};
    const char *an[] = {"kernelSize", "dilation", "padding", "stride"};
    for (int i = 0; i < 4; i++)
        ACLNN_CHECK(arr[i]->size == 2, ACLNN_ERR_PARAM_INVALID, "%s must have 2 entries, it has %llu.", an[i],
                    (unsigned long long)arr[i]->size);
    const int order[] = {0, 3, 1}; /* kernelSize, stride, dilation > 0; then padding >= 0 */
    for (int o = 0; o < 3; o++)
        for (int j = 0; j < 2; j++)
            ACLNN_CHECK(arr[order[o]]->v[j] > 0, ACLNN_ERR_PARAM_INVALID,
                        "%s must be greater than zero, but %s[%d] is %lld.", an[order[o]], an[order[o]], j,
                        (long long)arr[order[o]]->v[j]);
    for (int j = 0; j < 2; j++)
        ACLNN_CHECK(padding->v[j] >= 0, ACLNN_ERR_PARAM_INVALID, "padding[%d] %lld must not be negative.", j,
                    (long long)padding->v[j]);
    mo_params pp = {.kind = MO_IM2COL};
    int64_t *dst[] = {pp.k, pp.dil, pp.pad, pp.st};
    for (int i = 0; i < 4; i++) { dst[i][0] = arr[i]->v[0]; dst[i][1] = arr[i]->v[1]; }
    const int64_t C = self->dims[batched ? 1 : 0], H = self->dims[self->ndim - 2], W = self->dims[self->ndim - 1];
    /* output size: floor((in + 2 pad - (dil (k - 1) + 1)) / stride) + 1, in checked int64 */
    int64_t ohw[2];
    bool fits = true;
    for (int d = 0; d < 2; d++) {
        int64_t in = d ? W : H, t1, t2, span;
        fits = fits && acl_mul_i64(2, pp.pad[d], &t1) && acl_add_i64(in, t1, &t1) &&
               acl_mul_i64(pp.dil[d], pp.k[d] - 1, &span) && acl_add_i64(span, 1, &span) &&
               acl_add_i64(t1, -span, &t2);
        ohw[d] = fits ? acl_floordiv(t2, pp.st[d]) + 1 : 0;
    }
    ACLNN_CHECK(fits && ohw[0] >= 1 && ohw[1] >= 1, ACLNN_ERR_PARAM_INVALID,
                "The output size (%lld, %lld) computed from the other parameters must be at least one.",
                (long long)ohw[0], (long long)ohw[1]);
    int64_t rows = 0, L = 0, od[3];
    fits = acl_mul_i64(C, pp.k[0], &rows) && acl_mul_i64(rows, pp.k[1], &rows) && acl_mul_i64(ohw[0], ohw[1], &L);
    int on = 0;
    if (batched) od[on++] = self->dims[0];
    od[on++] = rows;
    od[on++] = L;
    ACLNN_CHECK(fits, ACLNN_ERR_PARAM_INVALID, "the output shape of im2col overflows.");
    ACL_TRY(mx_check_shape(out, "out", od, on));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Im2col, workspaceSize, executor);
    ACLNN_CHECK(acl_dt_known(out->dtype), ACLNN_ERR_INNER_NULLPTR, "out dtype %s: the result cannot be cast to it.",
                acl_dtype_name(out->dtype));
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return mo_exec(ACL_OP_Im2col, &pp, ins, inn, 1, true, outs, outn, 1, workspaceSize, executor);
}

/* ---- Scale ---- */

aclnnStatus opws_Scale(const aclTensor *x, const aclTensor *scale, const aclTensor *bias, int64_t axis,
                       int64_t numAxes, bool scaleFromBlob, aclTensor *y, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    ACL_TRY(null_in(x, "x"));
    ACL_TRY(null_in(scale, "scale"));
    ACL_TRY(null_in(y, "y"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_Scale, "x"));
    if (bias) ACL_TRY(acl_check_same_dtype(scale, "scale", bias, "bias"));
    ACL_TRY(acl_check_same_dtype(x, "x", scale, "scale"));
    ACL_TRY(acl_check_same_dtype(x, "x", y, "y"));
    ACL_TRY(acl_check_same_shape(y, "y", x, "x"));
    if (bias) ACL_TRY(acl_check_same_shape(bias, "bias", scale, "scale"));
    ACL_TRY(max_dim(x, 8, "x"));
    ACL_TRY(max_dim(scale, 8, "scale"));
    const int64_t r = (int64_t)x->ndim;
    ACLNN_CHECK(axis >= -r && axis < r, ACLNN_ERR_PARAM_INVALID, "axis must be within [%lld, %lld), but it is %lld.",
                (long long)-r, (long long)r, (long long)axis);
    ACLNN_CHECK(numAxes >= -1, ACLNN_ERR_PARAM_INVALID, "numAxes must be >= -1, but it is %lld.", (long long)numAxes);
    const int64_t ax = axis >= 0 ? axis : axis + r;
    const int64_t snum = acl_tensor_numel(scale);
    int64_t len = 0; /* scale covers x's dims [ax, ax + len); 0: a single scale value for every element */
    if (scaleFromBlob) {
        if (numAxes == 0) {
            ACLNN_CHECK(snum == 1, ACLNN_ERR_PARAM_INVALID, "when numAxes is 0, scale must hold one value.");
        } else {
            len = numAxes == -1 ? r - ax : numAxes;
            ACLNN_CHECK(len <= r - ax && len > 0, ACLNN_ERR_PARAM_INVALID, /* numAxes may be huge: no len + ax */
                        "the sum of scale axis (%lld) and numAxes (%lld) must be <= x's rank (%lld).", (long long)ax,
                        (long long)numAxes, (long long)r);
            ACL_TRY(mx_check_shape(scale, "scale", x->dims + ax, (int)len));
        }
    } else {
        len = (int64_t)scale->ndim;
        ACLNN_CHECK(len <= r - ax, ACLNN_ERR_PARAM_INVALID,
                    "the sum of scale axis (%lld) and scale's rank (%lld) must be <= x's rank (%lld).",
                    (long long)ax, (long long)len, (long long)r);
        if (snum == 1 && len <= 1) {
            len = 0;
        } else {
            for (int64_t i = 0; i < len; i++)
                ACLNN_CHECK(x->dims[ax + i] == scale->dims[i], ACLNN_ERR_PARAM_INVALID,
                            "scale's shape must be x's shape from dim %lld.", (long long)ax);
        }
    }
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_Scale, workspaceSize, executor);
    mo_params pp = {.kind = MO_SCALE, .outer = 1, .mid = 1, .inner = 1, .has_bias = bias != NULL};
    for (int64_t k = 0; k < r; k++) {
        if (len == 0) pp.inner *= x->dims[k];
        else if (k < ax) pp.outer *= x->dims[k];
        else if (k < ax + len) pp.mid *= x->dims[k];
        else pp.inner *= x->dims[k];
    }
    const aclTensor *ins[] = {x, scale, bias}, *outs[] = {y};
    const char *inn[] = {"x", "scale", "bias"}, *outn[] = {"y"};
    return mo_exec(ACL_OP_Scale, &pp, ins, inn, 3, true, outs, outn, 1, workspaceSize, executor);
}
