/* The Atlas-inference-only objdetect ops of hicann/ops-cv as they run on the Ascend310P (acl_soc() == ACL_SOC_310P).
 * cv_objdetect_a2.c keeps the A2 / A3 / unknown-SoC behaviour (the real checks, then the refusal) and calls into
 * this file when the SoC is the one the ops serve.
 *
 *   BackgroundReplace, BlendImagesCustom, MrgbaCustom: generated aclnn of OpDefs configured for ascend310p only.
 *     Phase 1 is: NULL required tensors in argument order (161001), the OpDef's dtype combination (161002), its ND
 *     format (161002), then the shapes the kernel can address (161002, the docs' "shape" errors: the tiling reads the
 *     mask / alpha element count and the kernel walks HWC pixels of C = 1 or 3 channels; a shape the kernel would
 *     read out of bounds is refused here instead). Inputs may be non-contiguous views (AutoContiguous).
 *     Kernels (op_kernel, facts only): every step in half precision on the device.
 *       BackgroundReplace  out = bkg - bkg * mask + src * mask, mask broadcast over 3 channels when
 *                          numel(bkg) = 3 numel(mask). float16: computed in fp32 in that order, rounded once (the
 *                          library's rule). uint8: as the kernel: u8 -> half exact, each product / difference / sum
 *                          rounded to half (RNE), then half -> u8 with CAST_NONE = rint (saturated, NaN -> 0).
 *       BlendImagesCustom  a = half(alpha) * half(1/255) in half; out = (frame - frame * a) + rgb * a, each step in
 *                          half, then rint to u8 (saturated).
 *       MrgbaCustom        a = half(alpha) * half(1/255) in half; out = floor(half(rgb * a)) (CAST_FLOOR, saturated).
 *   NonMaxSuppression: op_api (aclnn_non_max_suppression.cpp) checks as on A2, then the DAV_2002 path: the l0 op
 *     NonMaxSuppressionV6 (int32 selected_indices only: another dtype cannot be launched, 561103) with
 *     maxBoxesSize = maxOutputBoxesPerClass[0] * num_batches * num_classes.
 *     Output: the rows [maxBoxesSize, 3] in blocks of maxOutputBoxesPerClass rows, one per (batch, class) in
 *     batch-major order; a block holds the boxes NMS keeps for that class, by descending score (ties: lower box index
 *     first), as (batch, class, box); a kept box whose score <= scoreThreshold (0 when the array is NULL or empty) and
 *     every unused row are (-1, -1, -1). selectedIndices receives those values in its row-major order (truncated to
 *     its element count; elements past maxBoxesSize * 3 are -1). Boxes: centerPointBox 0 = (y1, x1, y2, x2) any
 *     diagonal corners, 1 = (x_center, y_center, width, height). A candidate is suppressed by a kept box when
 *     inter > (area_a + area_b) * (iou / (1 + iou)) (the doc's form of IoU > iouThreshold), all in fp32.
 *   Deterministic: every pixel / every (batch, class) block is computed by one thread into its own output. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/nan_order.h"
#include "common/parallel.h"
#include "ops/cv_objdetect_310p.h"
#include "ops/dense.h"
#include "ops/misc_dense.h"

/* x rounded to half precision (RNE), exactly from a double (no double rounding through float) */
static double h_round_slow(double x) {
    if (x != x || x == 0.0 || isinf(x)) return x;
    int e;
    (void)frexp(x, &e);   /* |x| = m * 2^e, m in [0.5, 1) */
    int q = e - 11;       /* half keeps 11 significant bits */
    if (q < -24) q = -24; /* subnormal halves: ulp 2^-24 */
    const double r = ldexp(nearbyint(ldexp(x, -q)), q);
    return fabs(r) > 65504.0 ? copysign(INFINITY, x) : r;
}

/* the common case, x exact in float: one rounding float -> half */
static inline double h_round(double x) {
    const float f = (float)x;
    return (double)f == x ? (double)acl_f16_to_f32(acl_f32_to_f16(f)) : h_round_slow(x);
}

/* half -> u8 of the kernel's Cast: rint (CAST_NONE) or floor (CAST_FLOOR), saturated to [0, 255], NaN -> 0 */
static uint8_t h_to_u8(double h, int floor_mode) {
    if (h != h) return 0;
    const double r = floor_mode ? floor(h) : nearbyint(h);
    return r <= 0.0 ? 0 : r >= 255.0 ? 255 : (uint8_t)r;
}

static const double RATIO_1_255 = 0.003921568627451; /* the kernels' 1/255 constant, converted to half below */

static int64_t numel_t(const aclTensor *t) {
    int64_t n = 1;
    for (uint64_t i = 0; i < t->ndim; i++) n *= t->dims[i];
    return n;
}

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

static aclnnStatus need_nd(const aclTensor *t, const char *op, const char *name) {
    ACLNN_CHECK(t->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID,
                "aclnn%s: %s format %d is not supported on Ascend310P (the OpDef lists ND).", op, name,
                (int)t->format);
    return ACLNN_SUCCESS;
}

static aclnnStatus need_dtype(const aclTensor *t, aclDataType want, const char *op, const char *name,
                              const char *combo) {
    ACLNN_CHECK(t->dtype == want, ACLNN_ERR_PARAM_INVALID,
                "aclnn%s: %s dtype %s matches no dtype combination of the OpDef on Ascend310P (%s).", op, name,
                acl_dtype_name(t->dtype), combo);
    return ACLNN_SUCCESS;
}

/* ================================================================ BackgroundReplace */
typedef struct {
    int64_t npix, chan; /* mask elements, channels per mask element (1 or 3) */
    int u8;
} br_params;

static aclnnStatus br_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const br_params *P = ex->params;
    const int64_t n = P->npix * P->chan;
    if (n == 0) return ACLNN_SUCCESS;
    const aclDataType dt = P->u8 ? ACL_UINT8 : ACL_FLOAT16;
    void *b = md_load(acl_exec_in(ex, 0), dt), *s = md_load(acl_exec_in(ex, 1), dt);
    uint16_t *m = md_load(acl_exec_in(ex, 2), ACL_FLOAT16);
    void *o = md_alloc(n, acl_dtype_size(dt));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!b || !s || !m || !o) rc = OOM;
    else {
        const int64_t C = P->chan;
        ACL_FOR(acl_parallel_worth(n * 8), i, 0, n, {
            if (P->u8) {
                const double bk = ((const uint8_t *)b)[i], sr = ((const uint8_t *)s)[i];
                const double mk = acl_f16_to_f32(m[i / C]);
                const double t1 = h_round(sr * mk), t2 = h_round(bk * mk);
                const double t3 = h_round(bk - t2);
                ((uint8_t *)o)[i] = h_to_u8(h_round(t3 + t1), 0);
            } else {
                const float bk = acl_f16_to_f32(((const uint16_t *)b)[i]);
                const float sr = acl_f16_to_f32(((const uint16_t *)s)[i]);
                const float mk = acl_f16_to_f32(m[i / C]);
                const float r = no_add_f(no_sub_f(bk, no_mul_f(bk, mk)), no_mul_f(sr, mk));
                ((uint16_t *)o)[i] = acl_f32_to_f16(r);
            }
        });
        md_store(o, dt, acl_exec_out(ex, 0));
    }
    free(b);
    free(s);
    free(m);
    free(o);
    return rc;
}

aclnnStatus cv310p_BackgroundReplace(const aclTensor *bkg, const aclTensor *src, const aclTensor *mask,
                                     const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    static const char *OP = "BackgroundReplace", *CB = "(float16, float16, float16, float16) or "
                                                       "(uint8, uint8, float16, uint8)";
    NN(bkg, "bkg");
    NN(src, "src");
    NN(mask, "mask");
    NN(out, "out");
    ACLNN_CHECK(bkg->dtype == ACL_FLOAT16 || bkg->dtype == ACL_UINT8, ACLNN_ERR_PARAM_INVALID,
                "aclnn%s: bkg dtype %s matches no dtype combination of the OpDef on Ascend310P %s.", OP,
                acl_dtype_name(bkg->dtype), CB);
    ACL_TRY(need_dtype(src, bkg->dtype, OP, "src", CB));
    ACL_TRY(need_dtype(mask, ACL_FLOAT16, OP, "mask", CB));
    ACL_TRY(need_dtype(out, bkg->dtype, OP, "out", CB));
    ACL_TRY(need_nd(bkg, OP, "bkg"));
    ACL_TRY(need_nd(src, OP, "src"));
    ACL_TRY(need_nd(mask, OP, "mask"));
    ACL_TRY(need_nd(out, OP, "out"));
    char a[256], c[256];
    acl_shape_str(bkg, a, sizeof a);
    acl_shape_str(src, c, sizeof c);
    ACLNN_CHECK(same_shape(src, bkg), ACLNN_ERR_PARAM_INVALID, "aclnn%s: src shape %s must be bkg's shape %s.", OP,
                c, a);
    acl_shape_str(out, c, sizeof c);
    ACLNN_CHECK(same_shape(out, bkg), ACLNN_ERR_PARAM_INVALID, "aclnn%s: out shape %s must be bkg's shape %s.", OP,
                c, a);
    const int64_t nb = numel_t(bkg), nm = numel_t(mask);
    acl_shape_str(mask, c, sizeof c);
    ACLNN_CHECK(nm == nb || (nb % 3 == 0 && nb / 3 == nm), ACLNN_ERR_PARAM_INVALID,
                "aclnn%s: mask %s must hold one value per element of bkg %s (C = 1) or per pixel of 3 channels "
                "(C = 3).", OP, c, a);
    br_params p = {nm, nm == nb ? 1 : 3, bkg->dtype == ACL_UINT8};
    void *params = NULL;
    const aclTensor *ins[] = {bkg, src, mask}, *outs[] = {out};
    const char *inn[] = {"bkg", "src", "mask"}, *outn[] = {"out"};
    ACL_TRY(dn_exec(ACL_OP_BackgroundReplace, br_run, sizeof p, ins, inn, 3, outs, outn, 1, workspaceSize, executor,
                    &params));
    memcpy(params, &p, sizeof p);
    return ACLNN_SUCCESS;
}

/* ================================================================ BlendImagesCustom, MrgbaCustom */
typedef struct {
    int64_t npix;
} px_params;

static aclnnStatus blend_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const px_params *P = ex->params;
    const int64_t n = P->npix * 3;
    if (n == 0) return ACLNN_SUCCESS;
    uint8_t *rgb = md_load(acl_exec_in(ex, 0), ACL_UINT8), *al = md_load(acl_exec_in(ex, 1), ACL_UINT8);
    uint8_t *fr = md_load(acl_exec_in(ex, 2), ACL_UINT8), *o = md_alloc(n, 1);
    double *va_buf = md_alloc(256 * 256, sizeof(double));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!rgb || !al || !fr || !o || !va_buf) rc = OOM;
    else {
        /* va[alpha][v] = half(v * a(alpha)), a(alpha) = half(half(alpha) * half(1/255)): the kernel's products */
        double(*va)[256] = (double(*)[256])va_buf;
        const double ratio = h_round(RATIO_1_255);
        for (int a = 0; a < 256; a++) {
            const double aa = h_round((double)a * ratio);
            for (int v = 0; v < 256; v++) va[a][v] = h_round((double)v * aa);
        }
        ACL_FOR(acl_parallel_worth(n * 4), p, 0, P->npix, {
            const double *t = va[al[p]];
            for (int64_t i = p * 3; i < p * 3 + 3; i++)
                o[i] = h_to_u8(h_round(h_round((double)fr[i] - t[fr[i]]) + t[rgb[i]]), 0);
        });
        md_store(o, ACL_UINT8, acl_exec_out(ex, 0));
    }
    free(rgb);
    free(al);
    free(fr);
    free(o);
    free(va_buf);
    return rc;
}

static aclnnStatus mrgba_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const px_params *P = ex->params;
    const int64_t n = P->npix * 3;
    if (n == 0) return ACLNN_SUCCESS;
    uint8_t *rgb = md_load(acl_exec_in(ex, 0), ACL_UINT8), *al = md_load(acl_exec_in(ex, 1), ACL_UINT8);
    uint8_t *o = md_alloc(n, 1), *tab_buf = md_alloc(256 * 256, 1);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!rgb || !al || !o || !tab_buf) rc = OOM;
    else {
        /* out depends on (alpha, rgb) only: floor(half(rgb * a(alpha))) for every pair */
        uint8_t(*tab)[256] = (uint8_t(*)[256])tab_buf;
        const double ratio = h_round(RATIO_1_255);
        for (int a = 0; a < 256; a++) {
            const double aa = h_round((double)a * ratio);
            for (int v = 0; v < 256; v++) tab[a][v] = h_to_u8(h_round((double)v * aa), 1);
        }
        ACL_FOR(acl_parallel_worth(n), p, 0, P->npix, {
            const uint8_t *t = tab[al[p]];
            for (int64_t i = p * 3; i < p * 3 + 3; i++) o[i] = t[rgb[i]];
        });
        md_store(o, ACL_UINT8, acl_exec_out(ex, 0));
    }
    free(rgb);
    free(al);
    free(o);
    free(tab_buf);
    return rc;
}

/* rgb / frame / out: 3 channels per alpha element; out has the shape infershape gives it (frame's or rgb's) */
static aclnnStatus px_shapes(const char *op, const aclTensor *rgb, const aclTensor *alpha, const aclTensor *frame,
                             const aclTensor *out, const aclTensor *shape_of, const char *shape_name) {
    char a[256], c[256];
    const int64_t na = numel_t(alpha);
    acl_shape_str(alpha, a, sizeof a);
    acl_shape_str(rgb, c, sizeof c);
    const int64_t nr = numel_t(rgb); /* compared by division: 3 * na may overflow */
    ACLNN_CHECK(nr % 3 == 0 && nr / 3 == na, ACLNN_ERR_PARAM_INVALID,
                "aclnn%s: rgb %s must be HWC with C = 3 over alpha's HWC (C = 1) pixels %s.", op, c, a);
    if (frame) {
        acl_shape_str(frame, c, sizeof c);
        ACLNN_CHECK(same_shape(frame, rgb), ACLNN_ERR_PARAM_INVALID,
                    "aclnn%s: frame %s must have rgb's shape (HWC, C = 3).", op, c);
    }
    acl_shape_str(out, c, sizeof c);
    acl_shape_str(shape_of, a, sizeof a);
    ACLNN_CHECK(same_shape(out, shape_of), ACLNN_ERR_PARAM_INVALID, "aclnn%s: out shape %s must be %s's shape %s.",
                op, c, shape_name, a);
    return ACLNN_SUCCESS;
}

aclnnStatus cv310p_BlendImagesCustom(const aclTensor *rgb, const aclTensor *alpha, const aclTensor *frame,
                                     const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    static const char *OP = "BlendImagesCustom", *CB = "(uint8, uint8, uint8, uint8)";
    NN(rgb, "rgb");
    NN(alpha, "alpha");
    NN(frame, "frame");
    NN(out, "out");
    ACL_TRY(need_dtype(rgb, ACL_UINT8, OP, "rgb", CB));
    ACL_TRY(need_dtype(alpha, ACL_UINT8, OP, "alpha", CB));
    ACL_TRY(need_dtype(frame, ACL_UINT8, OP, "frame", CB));
    ACL_TRY(need_dtype(out, ACL_UINT8, OP, "out", CB));
    ACL_TRY(need_nd(rgb, OP, "rgb"));
    ACL_TRY(need_nd(alpha, OP, "alpha"));
    ACL_TRY(need_nd(frame, OP, "frame"));
    ACL_TRY(need_nd(out, OP, "out"));
    ACL_TRY(px_shapes(OP, rgb, alpha, frame, out, frame, "frame"));
    px_params p = {numel_t(alpha)};
    void *params = NULL;
    const aclTensor *ins[] = {rgb, alpha, frame}, *outs[] = {out};
    const char *inn[] = {"rgb", "alpha", "frame"}, *outn[] = {"out"};
    ACL_TRY(dn_exec(ACL_OP_BlendImagesCustom, blend_run, sizeof p, ins, inn, 3, outs, outn, 1, workspaceSize,
                    executor, &params));
    memcpy(params, &p, sizeof p);
    return ACLNN_SUCCESS;
}

aclnnStatus cv310p_MrgbaCustom(const aclTensor *rgb, const aclTensor *alpha, const aclTensor *out,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    static const char *OP = "MrgbaCustom", *CB = "(uint8, uint8, uint8)";
    NN(rgb, "rgb");
    NN(alpha, "alpha");
    NN(out, "out");
    ACL_TRY(need_dtype(rgb, ACL_UINT8, OP, "rgb", CB));
    ACL_TRY(need_dtype(alpha, ACL_UINT8, OP, "alpha", CB));
    ACL_TRY(need_dtype(out, ACL_UINT8, OP, "out", CB));
    ACL_TRY(need_nd(rgb, OP, "rgb"));
    ACL_TRY(need_nd(alpha, OP, "alpha"));
    ACL_TRY(need_nd(out, OP, "out"));
    ACL_TRY(px_shapes(OP, rgb, alpha, NULL, out, rgb, "rgb"));
    px_params p = {numel_t(alpha)};
    void *params = NULL;
    const aclTensor *ins[] = {rgb, alpha}, *outs[] = {out};
    const char *inn[] = {"rgb", "alpha"}, *outn[] = {"out"};
    ACL_TRY(dn_exec(ACL_OP_MrgbaCustom, mrgba_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor,
                    &params));
    memcpy(params, &p, sizeof p);
    return ACLNN_SUCCESS;
}

/* ================================================================ NonMaxSuppression */
typedef struct {
    int64_t B, C, N, maxOut;
    float iou, sthr;
    int cpb;
} nms_params;

typedef struct {
    float s;
    int64_t i;
} nms_item;

static int nms_cmp(const void *x, const void *y) {
    const nms_item *a = x, *b = y;
    if (a->s != b->s) return a->s > b->s ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* one (batch, class) block: rows [maxOut, 3] */
static void nms_block(const nms_params *P, int64_t b, int64_t c, const float *box, const float *score,
                      int32_t *rows, nms_item *it, int64_t *kept, float *y1, float *x1, float *y2, float *x2,
                      float *area) {
    const int64_t N = P->N, M = P->maxOut;
    for (int64_t k = 0; k < M * 3; k++) rows[k] = -1;
    if (M <= 0 || N == 0) return;
    const float t = P->iou / (1.0f + P->iou);
    for (int64_t i = 0; i < N; i++) {
        const float *q = box + i * 4;
        float a0, a1, a2, a3; /* y1, x1, y2, x2 */
        if (P->cpb == 0) {
            a0 = fminf(q[0], q[2]);
            a2 = fmaxf(q[0], q[2]);
            a1 = fminf(q[1], q[3]);
            a3 = fmaxf(q[1], q[3]);
        } else {
            const float hw = q[2] / 2.0f, hh = q[3] / 2.0f;
            a1 = q[0] - hw;
            a3 = q[0] + hw;
            a0 = q[1] - hh;
            a2 = q[1] + hh;
        }
        y1[i] = a0;
        x1[i] = a1;
        y2[i] = a2;
        x2[i] = a3;
        area[i] = (a2 - a0) * (a3 - a1);
    }
    int64_t n = 0;
    for (int64_t i = 0; i < N; i++) {
        if (score[i] != score[i]) continue; /* a NaN score is never kept (it is not > scoreThreshold) */
        it[n].s = score[i];
        it[n].i = i;
        n++;
    }
    qsort(it, (size_t)n, sizeof *it, nms_cmp);
    int64_t nk = 0;
    for (int64_t j = 0; j < n && nk < M; j++) {
        const int64_t i = it[j].i;
        bool keep = true;
        for (int64_t k = 0; k < nk && keep; k++) {
            const int64_t s = kept[k];
            const float ih = fminf(y2[i], y2[s]) - fmaxf(y1[i], y1[s]);
            const float iw = fminf(x2[i], x2[s]) - fmaxf(x1[i], x1[s]);
            const float inter = (ih > 0.0f && iw > 0.0f) ? ih * iw : 0.0f;
            if (inter > (area[i] + area[s]) * t) keep = false;
        }
        if (!keep) continue;
        kept[nk] = i;
        if (it[j].s > P->sthr) {
            rows[nk * 3 + 0] = (int32_t)b;
            rows[nk * 3 + 1] = (int32_t)c;
            rows[nk * 3 + 2] = (int32_t)i;
        }
        nk++;
    }
}

static aclnnStatus nms_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const nms_params *P = ex->params;
    const acl_view *ov = acl_exec_out(ex, 0);
    const int64_t total = md_numel(ov);
    if (total == 0) return ACLNN_SUCCESS;
    const int64_t B = P->B, C = P->C, N = P->N, M = P->maxOut > 0 ? P->maxOut : 0;
    const int64_t blocks = B * C, rowsz = M * 3;
    int32_t *res = md_alloc(total, sizeof(int32_t));
    float *bx = md_load(acl_exec_in(ex, 0), ACL_FLOAT), *sc = md_load(acl_exec_in(ex, 1), ACL_FLOAT);
    int32_t *full = md_alloc(blocks * rowsz, sizeof(int32_t));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!res || !bx || !sc || !full) rc = OOM;
    else {
        int fail = 0;
#pragma omp parallel if (blocks > 1 && acl_parallel_worth(blocks * N * 16)) reduction(| : fail)
        {
            nms_item *it = md_alloc(N, sizeof(nms_item));
            int64_t *kept = md_alloc(M, sizeof(int64_t));
            float *g = md_alloc(N * 5, sizeof(float));
            if (!it || !kept || !g) fail = 1;
#pragma omp for schedule(static)
            for (int64_t k = 0; k < blocks; k++)
                if (it && kept && g)
                    nms_block(P, k / C, k % C, bx + (k / C) * N * 4, sc + k * N, full + k * rowsz, it, kept, g,
                              g + N, g + 2 * N, g + 3 * N, g + 4 * N);
            free(it);
            free(kept);
            free(g);
        }
        if (fail) rc = OOM;
        else {
            const int64_t have = blocks * rowsz;
            for (int64_t k = 0; k < total; k++) res[k] = k < have ? full[k] : -1;
            md_store(res, ACL_INT32, ov);
        }
    }
    free(res);
    free(bx);
    free(sc);
    free(full);
    return rc;
}

aclnnStatus cv310p_NonMaxSuppression(const aclTensor *boxes, const aclTensor *scores, int64_t maxOut, float iou,
                                     const aclFloatArray *scoreThreshold, int32_t centerPointBox,
                                     aclTensor *selectedIndices, uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the l0 NonMaxSuppressionV6 kernel of the Atlas inference series writes int32 only: another dtype finds no
     * kernel when the op is added to the launch list, and the op_api reports the missing result */
    ACLNN_CHECK(selectedIndices->dtype == ACL_INT32, ACLNN_ERR_INNER_NULLPTR,
                "aclnnNonMaxSuppression: NonMaxSuppressionV6 ADD_TO_LAUNCHER_LIST_AICORE failed: selectedIndices "
                "dtype %s, the Ascend310P kernel writes int32.", acl_dtype_name(selectedIndices->dtype));
    nms_params p = {boxes->dims[0], scores->dims[1], boxes->dims[1], maxOut > 0 ? maxOut : 0, iou,
                    (scoreThreshold && scoreThreshold->size > 0) ? scoreThreshold->v[0] : 0.0f,
                    (int)centerPointBox};
    void *params = NULL;
    const aclTensor *ins[] = {boxes, scores}, *outs[] = {selectedIndices};
    const char *inn[] = {"boxes", "scores"}, *outn[] = {"selectedIndices"};
    ACL_TRY(dn_exec(ACL_OP_NonMaxSuppression, nms_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize,
                    executor, &params));
    memcpy(params, &p, sizeof p);
    return ACLNN_SUCCESS;
}
