/* The Ascend950 paths of aclnnCIoU, aclnnRoiPoolingWithArgMax and aclnnRoiPoolingGradWithArgMax (hicann/ops-cv
 * objdetect/ciou, roi_pooling_with_arg_max, roi_pooling_grad_with_arg_max). cv_objdetect_a2.c calls these when
 * acl_soc() is ACL_SOC_950; every other SoC keeps the A2 refusal there.
 *
 * Each first phase runs the op_api's checks for a regbase SoC in their order with their codes, then the op_api's
 * empty-tensor early success, then what the l0 op's OpDef / tiling refuse (561103, as a failed launch). The kernels
 * follow the arch35 kernels' formulas (facts only):
 *   CIoU      fp32 throughout (fp16 loaded exactly, stored once with round to nearest even); corners from
 *             (x0, y0, x1, y1) or (cx, cy, w, h) with widths/heights clamped at 0; eps = 1e-7 and the 1e-4 floors
 *             of every denominator; overlap = IoU (or IoF: intersection over the gtBox area) - rho^2 / c^2, and for
 *             "iou" also - alpha * v with v = 4/pi^2 * atanSub^2, alpha = v / max(1 - IoU + v, 1e-4);
 *             atanSub = atan(w_b / h_b) - atan(w_g / h_g) (bBoxes first). atan is evaluated in double and rounded
 *             to float (the correctly rounded value in practice). Min/max keep a NaN operand (a's first).
 *   RoiPoolingWithArgMax  Fast R-CNN max pooling without roi rounding: roi corners scaled ((x2 + 1) * s for the
 *             far ones), bin [floor(pw * bw + x1), ceil((pw + 1) * bw + x1)) clipped to [0, W]; a roi with
 *             (x2 - x1 + 1) * s <= 0 (or the same in y) and an empty bin give y = 0, argmax = -1; else the first
 *             strictly greatest value (NaN never wins: a bin of NaN / -inf gives y = -inf, argmax = -1) and
 *             argmax = h * W + w in the batch/channel plane. All roi arithmetic is fp32 (fp16 rois loaded
 *             exactly; the device may subtract two fp16 corners in fp16 first, which only matters at the
 *             roi-is-empty boundary).
 *   RoiPoolingGradWithArgMax  gradInput = 0, then gradOutput[i] added at argmax[i] of the plane
 *             (batch of roi n, channel c), (n, c) from the flat index with the pooledH / pooledW attributes, as the
 *             kernel decomposes it. The device adds with atomics into an fp32 workspace; here one thread owns a
 *             gradInput plane and adds in ascending gradOutput index order (fp32, rounded once), so the bytes are
 *             the same for every OMP_NUM_THREADS.
 * Where the device would read or write outside a tensor (a roi batch index outside [0, N), an argmax outside
 * [0, H*W) other than -1), the emulator skips the element (forward: y = 0, argmax = -1) instead. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/cv_objdetect_950.h"

#include "common/dtype.h"
#include "common/half_rows.h"
#include "common/level_fn.h"
#include "kernels/f16_rows.h"
#include "common/nan_order.h"
#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

static const aclDataType F32_F16[] = {ACL_FLOAT, ACL_FLOAT16};
static const aclDataType I32[] = {ACL_INT32};
static const aclFormat ND[] = {ACL_FORMAT_ND};

/* ---------------------------------------------------------------- element access (f32 / f16 views) */
static inline float ld(const acl_view *v, int64_t off) {
    return v->dtype == ACL_FLOAT16 ? acl_f16_to_f32(((const uint16_t *)v->base)[off]) : ((const float *)v->base)[off];
}
static inline void st(const acl_view *v, int64_t off, float x) {
    if (v->dtype == ACL_FLOAT16)
        ((uint16_t *)v->base)[off] = acl_f32_to_f16(x);
    else
        ((float *)v->base)[off] = x;
}
/* NaN-keeping max / min (the NaN rule: a's payload first) */
static inline float mx(float a, float b) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    return a > b ? a : b;
}
static inline float mn(float a, float b) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    return a < b ? a : b;
}
/* float -> int64 without undefined behaviour: truncation, saturated; NaN -> 0 */
static inline int64_t f2i(float f) {
    if (no_isnan_f(f)) return 0;
    if (f >= 9.2e18f) return INT64_MAX;
    if (f <= -9.2e18f) return INT64_MIN;
    return (int64_t)f;
}

/* ================================================================ CIoU */
typedef struct {
    bool trans, iof;
} ciou950_params;

#define CIOU_EPS 1e-7f
#define CIOU_FLOOR 1e-4f
#define CIOU_4_PI2 0.4052847345693511f

/* One element, the reference way (the NaN rule at every step; libm's atan). */
static void ciou_one(const acl_view *b, const acl_view *g, const acl_view *ov, const acl_view *at, bool trans, bool iof,
                     int64_t i) {
    float a[4], c[4];
    for (int k = 0; k < 4; k++) {
        a[k] = ld(b, k * b->strides[0] + i * b->strides[1]);
        c[k] = ld(g, k * g->strides[0] + i * g->strides[1]);
    }
    float x1a, y1a, x2a, y2a, x1b, y1b, x2b, y2b, w1, h1, w2, h2;
    if (trans) {
        w1 = mx(a[2], 0.0f), h1 = mx(a[3], 0.0f), w2 = mx(c[2], 0.0f), h2 = mx(c[3], 0.0f);
        const float t1 = no_mul_f(w1, 0.5f), t2 = no_mul_f(h1, 0.5f);
        const float t3 = no_mul_f(w2, 0.5f), t4 = no_mul_f(h2, 0.5f);
        x1a = no_sub_f(a[0], t1), x2a = no_add_f(a[0], t1), y1a = no_sub_f(a[1], t2), y2a = no_add_f(a[1], t2);
        x1b = no_sub_f(c[0], t3), x2b = no_add_f(c[0], t3), y1b = no_sub_f(c[1], t4), y2b = no_add_f(c[1], t4);
    } else {
        x1a = a[0], y1a = a[1], x2a = a[2], y2a = a[3];
        x1b = c[0], y1b = c[1], x2b = c[2], y2b = c[3];
        w1 = mx(no_sub_f(x2a, x1a), 0.0f), h1 = mx(no_sub_f(y2a, y1a), 0.0f);
        w2 = mx(no_sub_f(x2b, x1b), 0.0f), h2 = mx(no_sub_f(y2b, y1b), 0.0f);
    }
    /* overlap: IoU or IoF */
    const float iw = mx(no_sub_f(mn(x2a, x2b), mx(x1a, x1b)), 0.0f);
    const float ih = mx(no_sub_f(mn(y2a, y2b), mx(y1a, y1b)), 0.0f);
    const float inter = no_mul_f(iw, ih), area2 = no_mul_f(w2, h2);
    float den = iof ? no_add_f(area2, CIOU_EPS)
                    : no_add_f(no_sub_f(no_add_f(no_mul_f(w1, h1), area2), inter), CIOU_EPS);
    float o = no_div_f(inter, mx(den, CIOU_FLOOR));
    /* atanSub, and the aspect-ratio penalty for "iou" */
    const float r1 = no_div_f(w1, mx(no_add_f(h1, CIOU_EPS), CIOU_FLOOR));
    const float r2 = no_div_f(w2, mx(no_add_f(h2, CIOU_EPS), CIOU_FLOOR));
    const float as = no_sub_f((float)atan((double)r1), (float)atan((double)r2));
    if (!iof) {
        const float v = no_mul_f(no_mul_f(as, as), CIOU_4_PI2);
        const float t = mx(no_sub_f(no_add_f(v, 1.0f), o), CIOU_FLOOR);
        o = no_sub_f(o, no_mul_f(no_div_f(v, t), v));
    }
    /* centre distance over the enclosing box's diagonal */
    const float dx = no_mul_f(no_sub_f(no_add_f(x1a, x2a), no_add_f(x1b, x2b)), 0.5f);
    const float dy = no_mul_f(no_sub_f(no_add_f(y1a, y2a), no_add_f(y1b, y2b)), 0.5f);
    const float rho = no_add_f(no_mul_f(dx, dx), no_mul_f(dy, dy));
    const float cw = no_sub_f(mx(x2a, x2b), mn(x1a, x1b)), ch = no_sub_f(mx(y2a, y2b), mn(y1a, y1b));
    const float c2 = mx(no_add_f(no_add_f(no_mul_f(cw, cw), no_mul_f(ch, ch)), CIOU_EPS), CIOU_FLOOR);
    o = no_sub_f(o, no_div_f(rho, c2));
    st(ov, i * ov->strides[1], o);
    st(at, i * at->strides[1], as);
}

/* the fast CIoU path's functions: no-trapping-math lets GCC turn their selects into vector blends (no value
 * changes: nothing reads the FP exception flags; no reassociation, no FMA) */
#define CIOU_VEC __attribute__((optimize("no-trapping-math", "fp-contract=off")))
#include "ops/ciou_atan.h"

#define CIOU_BLK 256
/* (float)atan((double)r[k]) for a block: the fast double atan, rounded to float when the whole margin rounds to
 * one float (then libm's double rounds to it too); NaN, infinities, negative values and the rare near-ties take
 * libm. Checked against libm for every non-negative float (tools/ciou_atan_check.c). */
ACL_LEVEL_FN(CIOU_VEC, ciou_atan_fast, (float *restrict y, unsigned char *restrict slow, const float *restrict r,
                                        int64_t n), (y, slow, r, n)) {
    for (int64_t k = 0; k < n; k++) {
        const float x = r[k];
        const bool ok = __builtin_isgreaterequal(x, 0.0f) & __builtin_isless(x, INFINITY);
        const double a = ciou_atan_d(ok ? (double)x : 0.0);
        const float lo = (float)(a * (1.0 - CIOU_ATAN_MARGIN)), hi = (float)(a * (1.0 + CIOU_ATAN_MARGIN));
        y[k] = lo;
        slow[k] = !ok | (lo != hi);
    }
}

static void ciou_atanf_block(float *restrict y, const float *restrict r, int64_t n) {
    unsigned char slow[CIOU_BLK];
    ciou_atan_fast(y, slow, r, n);
    unsigned any = 0;
    for (int64_t k = 0; k < n; k++) any |= slow[k];
    if (any)
        for (int64_t k = 0; k < n; k++)
            if (slow[k]) y[k] = (float)atan((double)r[k]);
}

/* any NaN among the 4 rows of n floats of a CIOU_BLK block (integer compares of the bits: they vectorise) */
static bool ciou_any_nan(const float *rows, int64_t n) {
    uint32_t any = 0;
    for (int k = 0; k < 4; k++) {
        const float *row = rows + k * CIOU_BLK;
        for (int64_t j = 0; j < n; j++) {
            uint32_t u;
            memcpy(&u, row + j, 4);
            any |= (uint32_t)((u & 0x7fffffffu) > 0x7f800000u);
        }
    }
    return any != 0;
}

/* mx / mn as selects (quiet comparisons, so the compiler may evaluate every side) */
CIOU_VEC __attribute__((always_inline)) static inline float ciou_mx(float a, float b) {
    const float m = __builtin_isgreater(a, b) ? a : b;
    return a != a ? a : b != b ? b : m;
}
CIOU_VEC __attribute__((always_inline)) static inline float ciou_mn(float a, float b) {
    const float m = __builtin_isless(a, b) ? a : b;
    return a != a ? a : b != b ? b : m;
}

/* A block of elements with no NaN input: plain operations in the reference's order. Every NaN that can arise is
 * then the processor's default NaN, which the NaN rule's steps keep unchanged, so the bytes are ciou_one's. */
CIOU_VEC static inline __attribute__((always_inline)) void ciou_block_t(const float *restrict A, const float *restrict G,
                                                                float *restrict o_out, float *restrict as_out,
                                                                const bool trans, const bool iof, int64_t n) {
    float r1[CIOU_BLK], r2[CIOU_BLK], q[CIOU_BLK], t1[CIOU_BLK], t2[CIOU_BLK];
    const float *a0 = A, *a1 = A + CIOU_BLK, *a2 = A + 2 * CIOU_BLK, *a3 = A + 3 * CIOU_BLK;
    const float *c0 = G, *c1 = G + CIOU_BLK, *c2 = G + 2 * CIOU_BLK, *c3 = G + 3 * CIOU_BLK;
    for (int64_t k = 0; k < n; k++) {
        float x1a, y1a, x2a, y2a, x1b, y1b, x2b, y2b, w1, h1, w2, h2;
        if (trans) {
            w1 = ciou_mx(a2[k], 0.0f), h1 = ciou_mx(a3[k], 0.0f), w2 = ciou_mx(c2[k], 0.0f), h2 = ciou_mx(c3[k], 0.0f);
            const float u1 = w1 * 0.5f, u2 = h1 * 0.5f, u3 = w2 * 0.5f, u4 = h2 * 0.5f;
            x1a = a0[k] - u1, x2a = a0[k] + u1, y1a = a1[k] - u2, y2a = a1[k] + u2;
            x1b = c0[k] - u3, x2b = c0[k] + u3, y1b = c1[k] - u4, y2b = c1[k] + u4;
        } else {
            x1a = a0[k], y1a = a1[k], x2a = a2[k], y2a = a3[k];
            x1b = c0[k], y1b = c1[k], x2b = c2[k], y2b = c3[k];
            w1 = ciou_mx(x2a - x1a, 0.0f), h1 = ciou_mx(y2a - y1a, 0.0f);
            w2 = ciou_mx(x2b - x1b, 0.0f), h2 = ciou_mx(y2b - y1b, 0.0f);
        }
        const float iw = ciou_mx(ciou_mn(x2a, x2b) - ciou_mx(x1a, x1b), 0.0f);
        const float ih = ciou_mx(ciou_mn(y2a, y2b) - ciou_mx(y1a, y1b), 0.0f);
        const float inter = iw * ih, area2 = w2 * h2;
        const float den = iof ? area2 + CIOU_EPS : ((w1 * h1 + area2) - inter) + CIOU_EPS;
        o_out[k] = inter / ciou_mx(den, CIOU_FLOOR);
        r1[k] = w1 / ciou_mx(h1 + CIOU_EPS, CIOU_FLOOR);
        r2[k] = w2 / ciou_mx(h2 + CIOU_EPS, CIOU_FLOOR);
        const float dx = ((x1a + x2a) - (x1b + x2b)) * 0.5f;
        const float dy = ((y1a + y2a) - (y1b + y2b)) * 0.5f;
        const float rho = dx * dx + dy * dy;
        const float cw = ciou_mx(x2a, x2b) - ciou_mn(x1a, x1b), ch = ciou_mx(y2a, y2b) - ciou_mn(y1a, y1b);
        q[k] = rho / ciou_mx((cw * cw + ch * ch) + CIOU_EPS, CIOU_FLOOR);
    }
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized" /* r1, r2: the first n written above */
    ciou_atanf_block(t1, r1, n);
    ciou_atanf_block(t2, r2, n);
#pragma GCC diagnostic pop
    for (int64_t k = 0; k < n; k++) {
        const float as = t1[k] - t2[k];
        float o = o_out[k];
        if (!iof) {
            const float v = (as * as) * CIOU_4_PI2;
            const float t = ciou_mx((v + 1.0f) - o, CIOU_FLOOR);
            o = o - (v / t) * v;
        }
        o_out[k] = o - q[k];
        as_out[k] = as;
    }
}

ACL_LEVEL_FN(CIOU_VEC, ciou_block, (const float *A, const float *G, float *o_out, float *as_out, bool trans, bool iof,
                                    int64_t n), (A, G, o_out, as_out, trans, iof, n)) {
    if (trans && iof) ciou_block_t(A, G, o_out, as_out, true, true, n);
    else if (trans) ciou_block_t(A, G, o_out, as_out, true, false, n);
    else if (iof) ciou_block_t(A, G, o_out, as_out, false, true, n);
    else ciou_block_t(A, G, o_out, as_out, false, false, n);
}

/* n elements of a (4, N) view from column i0 into 4 float rows of CIOU_BLK */
static void ciou_load(float *dst, const acl_view *v, int64_t i0, int64_t n) {
    for (int k = 0; k < 4; k++) {
        const int64_t o = k * v->strides[0] + i0 * v->strides[1];
        if (v->strides[1] == 1 && v->dtype == ACL_FLOAT16)
            acl_row_f16_to_f32_lv(dst + k * CIOU_BLK, (const uint16_t *)v->base + o, n);
        else if (v->strides[1] == 1)
            memcpy(dst + k * CIOU_BLK, (const float *)v->base + o, sizeof(float) * (size_t)n);
        else
            for (int64_t j = 0; j < n; j++) dst[k * CIOU_BLK + j] = ld(v, o + j * v->strides[1]);
    }
}

static void ciou_store(const acl_view *v, int64_t i0, const float *src, int64_t n) {
    const int64_t o = i0 * v->strides[1];
    if (v->strides[1] == 1 && v->dtype == ACL_FLOAT16)
        acl_row_f32_to_f16_lv((uint16_t *)v->base + o, src, n);
    else if (v->strides[1] == 1)
        memcpy((float *)v->base + o, src, sizeof(float) * (size_t)n);
    else
        for (int64_t j = 0; j < n; j++) st(v, o + j * v->strides[1], src[j]);
}

static aclnnStatus ciou_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws, (void)ws_size;
    const ciou950_params *p = ex->params;
    const acl_view *b = acl_exec_in(ex, 0), *g = acl_exec_in(ex, 1);
    const acl_view *ov = acl_exec_out(ex, 0), *at = acl_exec_out(ex, 1);
    const int64_t n = b->dims[1], nblk = (n + CIOU_BLK - 1) / CIOU_BLK;
    const bool trans = p->trans, iof = p->iof;
    ACL_FOR(acl_parallel_worth(n * 64), blk, 0, nblk, {
        float A[4 * CIOU_BLK], G[4 * CIOU_BLK], O[CIOU_BLK], S[CIOU_BLK];
        const int64_t i0 = blk * CIOU_BLK, cnt = n - i0 < CIOU_BLK ? n - i0 : CIOU_BLK;
        ciou_load(A, b, i0, cnt);
        ciou_load(G, g, i0, cnt);
        if (ciou_any_nan(A, cnt) || ciou_any_nan(G, cnt)) { /* a NaN input: the block the reference way */
            for (int64_t i = i0; i < i0 + cnt; i++) ciou_one(b, g, ov, at, trans, iof, i);
        } else {
            ciou_block(A, G, O, S, trans, iof, cnt);
            ciou_store(ov, i0, O, cnt);
            ciou_store(at, i0, S, cnt);
        }
    });
    return ACLNN_SUCCESS;
}

aclnnStatus acl950_CIoU(const aclTensor *bBoxes, const aclTensor *gtBoxes, bool trans, bool isCross, const char *mode,
                        aclTensor *overlap, aclTensor *atanSub, uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* CheckNotNull */
    ACL_TRY(acl_check_tensor(bBoxes, "bBoxes"));
    ACL_TRY(acl_check_tensor(gtBoxes, "gtBoxes"));
    ACL_TRY(acl_check_tensor(overlap, "overlap"));
    ACL_TRY(acl_check_tensor(atanSub, "atanSub"));
    /* CheckDtypeValid: bBoxes's dtype shared by all, then the list, then formats ND */
    ACL_TRY(acl_check_same_dtype(gtBoxes, "gtBoxes", bBoxes, "bBoxes"));
    ACL_TRY(acl_check_same_dtype(overlap, "overlap", bBoxes, "bBoxes"));
    ACL_TRY(acl_check_same_dtype(atanSub, "atanSub", bBoxes, "bBoxes"));
    ACL_TRY(acl_check_dtype_in(bBoxes, F32_F16, 2, "bBoxes"));
    ACL_TRY(acl_check_dtype_in(gtBoxes, F32_F16, 2, "gtBoxes"));
    ACL_TRY(acl_check_dtype_in(overlap, F32_F16, 2, "overlap"));
    ACL_TRY(acl_check_dtype_in(atanSub, F32_F16, 2, "atanSub"));
    ACLNN_CHECK(bBoxes->format == ACL_FORMAT_ND && gtBoxes->format == ACL_FORMAT_ND &&
                    overlap->format == ACL_FORMAT_ND && atanSub->format == ACL_FORMAT_ND,
                ACLNN_ERR_PARAM_INVALID, "bBoxes, gtBoxes, overlap and atanSub should use format ND.");
    /* CheckAttr */
    ACLNN_CHECK(mode != NULL, ACLNN_ERR_PARAM_INVALID, "mode is null, it should be \"iou\" or \"iof\".");
    ACLNN_CHECK(!isCross, ACLNN_ERR_PARAM_INVALID, "isCross should currently only support false, but it is true.");
    ACLNN_CHECK(strcmp(mode, "iou") == 0 || strcmp(mode, "iof") == 0, ACLNN_ERR_PARAM_INVALID,
                "mode should be \"iou\" or \"iof\", but it is \"%s\".", mode);
    /* CheckShape (isCross is false here) */
    ACLNN_CHECK(bBoxes->ndim == 2 && gtBoxes->ndim == 2 && overlap->ndim == 2 && atanSub->ndim == 2,
                ACLNN_ERR_PARAM_INVALID,
                "bBoxes, gtBoxes, overlap and atanSub should be 2-D, but they have %llu, %llu, %llu and %llu dims.",
                (unsigned long long)bBoxes->ndim, (unsigned long long)gtBoxes->ndim,
                (unsigned long long)overlap->ndim, (unsigned long long)atanSub->ndim);
    ACLNN_CHECK(bBoxes->dims[0] == 4 && gtBoxes->dims[0] == 4, ACLNN_ERR_PARAM_INVALID,
                "the first dim of bBoxes [%lld] and gtBoxes [%lld] should be 4.", (long long)bBoxes->dims[0],
                (long long)gtBoxes->dims[0]);
    ACLNN_CHECK(bBoxes->dims[1] % 1024 == 0 && gtBoxes->dims[1] % 1024 == 0, ACLNN_ERR_PARAM_INVALID,
                "the second dim of bBoxes [%lld] and gtBoxes [%lld] should be a multiple of 1024.",
                (long long)bBoxes->dims[1], (long long)gtBoxes->dims[1]);
    const int64_t n = bBoxes->dims[1];
    ACLNN_CHECK(gtBoxes->dims[1] == n && overlap->dims[1] == n && atanSub->dims[1] == n, ACLNN_ERR_PARAM_INVALID,
                "the second dim of bBoxes [%lld], gtBoxes [%lld], overlap [%lld] and atanSub [%lld] should be equal "
                "when isCross is false.",
                (long long)n, (long long)gtBoxes->dims[1], (long long)overlap->dims[1], (long long)atanSub->dims[1]);
    ACLNN_CHECK(overlap->dims[0] == 1 && atanSub->dims[0] == 1, ACLNN_ERR_PARAM_INVALID,
                "the first dim of overlap [%lld] and atanSub [%lld] should be 1 when isCross is false.",
                (long long)overlap->dims[0], (long long)atanSub->dims[0]);
    if (acl_tensor_empty(bBoxes) || acl_tensor_empty(gtBoxes))
        return acl_exec_noop(ACL_OP_CIoU, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_CIoU, ciou_run, sizeof(ciou950_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, bBoxes, "bBoxes", true);
    if (rc == 0) rc = acl_exec_add_input(ex, gtBoxes, "gtBoxes", true);
    if (rc == 0) rc = acl_exec_add_output(ex, overlap, "overlap");
    if (rc == 0) rc = acl_exec_add_output(ex, atanSub, "atanSub");
    if (rc) return acl_exec_discard(ex, rc);
    *(ciou950_params *)ex->params = (ciou950_params){trans, strcmp(mode, "iof") == 0};
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ================================================================ RoiPoolingWithArgMax */
typedef struct {
    int64_t ph, pw;
    float ssh, ssw;
} roipool950_params;

static aclnnStatus roipool_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws, (void)ws_size;
    const roipool950_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *r = acl_exec_in(ex, 1);
    const acl_view *y = acl_exec_out(ex, 0), *am = acl_exec_out(ex, 1);
    const int64_t N = x->dims[0], C = x->dims[1], H = x->dims[2], W = x->dims[3];
    const int64_t R = r->dims[0], PH = p->ph, PW = p->pw;
    const float ssh = p->ssh, ssw = p->ssw;
    const int64_t count = R * C * PH * PW;
    /* a roi at a time: its bin edges once (the same expressions as per bin), then every channel's bins */
    ACL_FOR(acl_parallel_worth(count * 16), n, 0, R, {
        const int64_t ro = n * r->strides[0];
        const float rb = ld(r, ro), rx1 = ld(r, ro + r->strides[1]), ry1 = ld(r, ro + 2 * r->strides[1]);
        const float rx2 = ld(r, ro + 3 * r->strides[1]), ry2 = ld(r, ro + 4 * r->strides[1]);
        const int64_t b = f2i(rb);
        const float rw = (rx2 - rx1 + 1.0f) * ssw, rh = (ry2 - ry1 + 1.0f) * ssh;
        const bool live = !(rw <= 0.0f || rh <= 0.0f) && b >= 0 && b < N;
        int64_t stack_edges[4 * 32], *edges = stack_edges;
        if (live && PH + PW > 64) edges = malloc(sizeof(int64_t) * 2 * (size_t)(PH + PW));
        int64_t *hae = edges, *hbe = edges, *wae = edges, *wbe = edges;
        if (edges) hbe = edges + PH, wae = edges + 2 * PH, wbe = edges + 2 * PH + PW;
        if (live && edges) {
            const float x1 = rx1 * ssw, y1 = ry1 * ssh;
            const float x2 = (rx2 + 1.0f) * ssw, y2 = (ry2 + 1.0f) * ssh;
            const float bw = (x2 - x1) / (float)PW, bh = (y2 - y1) / (float)PH;
            for (int64_t ph = 0; ph < PH; ph++) {
                int64_t ha = f2i(floorf((float)ph * bh + y1)), hb = f2i(ceilf((float)(ph + 1) * bh + y1));
                hae[ph] = ha < 0 ? 0 : ha > H ? H : ha;
                hbe[ph] = hb < 0 ? 0 : hb > H ? H : hb;
            }
            for (int64_t pw = 0; pw < PW; pw++) {
                int64_t wa = f2i(floorf((float)pw * bw + x1)), wb = f2i(ceilf((float)(pw + 1) * bw + x1));
                wae[pw] = wa < 0 ? 0 : wa > W ? W : wa;
                wbe[pw] = wb < 0 ? 0 : wb > W ? W : wb;
            }
        }
        const bool f16 = x->dtype == ACL_FLOAT16;
        for (int64_t c = 0; c < C; c++) {
            const int64_t xo = b * x->strides[0] + c * x->strides[1];
            for (int64_t ph = 0; ph < PH; ph++)
                for (int64_t pw = 0; pw < PW; pw++) {
                    const int64_t yo = n * y->strides[0] + c * y->strides[1] + ph * y->strides[2] + pw * y->strides[3];
                    const int64_t ao =
                        n * am->strides[0] + c * am->strides[1] + ph * am->strides[2] + pw * am->strides[3];
                    float out = 0.0f;
                    int64_t arg = -1;
                    if (live && !edges) { /* no memory for the edges: the same values bin by bin */
                        const float x1 = rx1 * ssw, y1 = ry1 * ssh;
                        const float x2 = (rx2 + 1.0f) * ssw, y2 = (ry2 + 1.0f) * ssh;
                        const float bw = (x2 - x1) / (float)PW, bh = (y2 - y1) / (float)PH;
                        int64_t wa = f2i(floorf((float)pw * bw + x1)), ha = f2i(floorf((float)ph * bh + y1));
                        int64_t wb = f2i(ceilf((float)(pw + 1) * bw + x1)), hb = f2i(ceilf((float)(ph + 1) * bh + y1));
                        wa = wa < 0 ? 0 : wa > W ? W : wa;
                        ha = ha < 0 ? 0 : ha > H ? H : ha;
                        wb = wb < 0 ? 0 : wb > W ? W : wb;
                        hb = hb < 0 ? 0 : hb > H ? H : hb;
                        if (hb > ha && wb > wa) {
                            float best = -INFINITY;
                            for (int64_t h = ha; h < hb; h++)
                                for (int64_t w = wa; w < wb; w++) {
                                    const float v = ld(x, xo + h * x->strides[2] + w * x->strides[3]);
                                    if (v > best) best = v, arg = h * W + w;
                                }
                            out = best;
                        }
                    } else if (live) {
                        const int64_t ha = hae[ph], hb = hbe[ph], wa = wae[pw], wb = wbe[pw];
                        if (hb > ha && wb > wa) {
                            float best = -INFINITY;
                            for (int64_t h = ha; h < hb; h++) {
                                const int64_t rowo = xo + h * x->strides[2];
                                if (f16) {
                                    const uint16_t *xp = (const uint16_t *)x->base + rowo;
                                    for (int64_t w = wa; w < wb; w++) {
                                        const float v = acl_f16_to_f32(xp[w * x->strides[3]]);
                                        if (v > best) best = v, arg = h * W + w;
                                    }
                                } else {
                                    const float *xp = (const float *)x->base + rowo;
                                    for (int64_t w = wa; w < wb; w++) {
                                        const float v = xp[w * x->strides[3]];
                                        if (v > best) best = v, arg = h * W + w;
                                    }
                                }
                            }
                            out = best;
                        }
                    }
                    st(y, yo, out);
                    ((int32_t *)am->base)[ao] = (int32_t)arg;
                }
        }
        if (edges != stack_edges) free(edges);
    });
    return ACLNN_SUCCESS;
}

aclnnStatus acl950_RoiPoolingWithArgMax(const aclTensor *x, const aclTensor *rois, int64_t pooled_h, int64_t pooled_w,
                                        float spatial_scale_h, float spatial_scale_w, aclTensor *y, aclTensor *argmax,
                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* CheckNotNull */
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_tensor(rois, "rois"));
    ACL_TRY(acl_check_tensor(y, "y"));
    ACL_TRY(acl_check_tensor(argmax, "argmax"));
    /* CheckDtype */
    ACL_TRY(acl_check_dtype_in(x, F32_F16, 2, "x"));
    ACL_TRY(acl_check_dtype_in(rois, F32_F16, 2, "rois"));
    ACL_TRY(acl_check_dtype_in(y, F32_F16, 2, "y"));
    ACL_TRY(acl_check_same_dtype(rois, "rois", x, "x"));
    ACL_TRY(acl_check_same_dtype(y, "y", x, "x"));
    ACL_TRY(acl_check_dtype_in(argmax, I32, 1, "argmax"));
    /* CheckFormatValid */
    ACL_TRY(acl_check_format_in(x, ND, 1, "x"));
    ACL_TRY(acl_check_format_in(rois, ND, 1, "rois"));
    ACL_TRY(acl_check_format_in(y, ND, 1, "y"));
    ACL_TRY(acl_check_format_in(argmax, ND, 1, "argmax"));
    /* CheckShape */
    ACL_TRY(acl_check_rank(x, 4, "x"));
    ACL_TRY(acl_check_rank(rois, 2, "rois"));
    ACLNN_CHECK(rois->dims[1] == 5, ACLNN_ERR_PARAM_INVALID, "rois shape dim1 must be 5, got %lld.",
                (long long)rois->dims[1]);
    ACL_TRY(acl_check_rank(y, 4, "y"));
    ACL_TRY(acl_check_rank(argmax, 4, "argmax"));
    const int64_t R = rois->dims[0], C = x->dims[1];
    ACLNN_CHECK(y->dims[0] == R && y->dims[1] == C && y->dims[2] == pooled_h && y->dims[3] == pooled_w,
                ACLNN_ERR_PARAM_INVALID, "y shape must be [%lld, %lld, %lld, %lld].", (long long)R, (long long)C,
                (long long)pooled_h, (long long)pooled_w);
    ACLNN_CHECK(argmax->dims[0] == R && argmax->dims[1] == C && argmax->dims[2] == pooled_h &&
                    argmax->dims[3] == pooled_w,
                ACLNN_ERR_PARAM_INVALID, "argmax shape must be [%lld, %lld, %lld, %lld].", (long long)R,
                (long long)C, (long long)pooled_h, (long long)pooled_w);
    /* CheckAttr */
    ACLNN_CHECK(pooled_h > 0 && pooled_w > 0, ACLNN_ERR_PARAM_INVALID,
                "pooled_h and pooled_w must be positive, got %lld and %lld.", (long long)pooled_h,
                (long long)pooled_w);
    ACLNN_CHECK(!(spatial_scale_h <= 0.0f || spatial_scale_w <= 0.0f), ACLNN_ERR_PARAM_INVALID,
                "spatial_scale_h and spatial_scale_w must be positive, got %g and %g.", (double)spatial_scale_h,
                (double)spatial_scale_w);
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_RoiPoolingWithArgMax, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_RoiPoolingWithArgMax, roipool_run, sizeof(roipool950_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, x, "x", true);
    if (rc == 0) rc = acl_exec_add_input(ex, rois, "rois", true);
    if (rc == 0) rc = acl_exec_add_output(ex, y, "y");
    if (rc == 0) rc = acl_exec_add_output(ex, argmax, "argmax");
    if (rc) return acl_exec_discard(ex, rc);
    *(roipool950_params *)ex->params = (roipool950_params){pooled_h, pooled_w, spatial_scale_h, spatial_scale_w};
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ================================================================ RoiPoolingGradWithArgMax */
typedef struct {
    int64_t ph, pw; /* the attributes: the kernel decomposes the flat gradOutput index with them */
} roipoolgrad950_params;

#define RPG_CB 8 /* channel planes per task of the backward (8 fp32 planes of 64x64: 128 KiB) */

/* acc[argmax[i]] += gradOutput[i] for i = base .. base + P - 1 (stopping at total), in ascending i: the flat index
 * is decomposed once and then walked (argmax has gradOutput's dims), the offsets follow each view's strides. An
 * argmax of -1 (no maximum) or outside the plane [0, HW) is skipped. */
static inline void rpg_add_slice(float *acc, int64_t base, int64_t P, int64_t total, int64_t HW, const acl_view *go,
                                 const acl_view *am) {
    const int64_t cnt = total - base < P ? total - base : P;
    if (cnt <= 0) return;
    int64_t d[4], rem = base;
    for (int q = 3; q >= 0; q--) {
        const int64_t t = rem / go->dims[q];
        d[q] = rem - t * go->dims[q];
        rem = t;
    }
    int64_t oa = 0, og = 0;
    for (int q = 0; q < 4; q++) oa += d[q] * am->strides[q], og += d[q] * go->strides[q];
    const int32_t *amp = (const int32_t *)am->base;
    const bool f16 = go->dtype == ACL_FLOAT16;
    const uint16_t *go16 = (const uint16_t *)go->base;
    const float *go32 = (const float *)go->base;
    for (int64_t k = 0; k < cnt; k++) {
        const int32_t a = amp[oa];
        if (a >= 0 && a < HW) acc[a] = no_add_f(acc[a], f16 ? acl_f16_to_f32(go16[og]) : go32[og]);
        if (++d[3] < go->dims[3]) {
            oa += am->strides[3], og += go->strides[3];
            continue;
        }
        d[3] = 0;
        for (int q = 2; q >= 0 && ++d[q] == go->dims[q]; q--) d[q] = 0;
        oa = og = 0;
        for (int q = 0; q < 4; q++) oa += d[q] * am->strides[q], og += d[q] * go->strides[q];
    }
}

static aclnnStatus roipoolgrad_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws, (void)ws_size;
    const roipoolgrad950_params *p = ex->params;
    const acl_view *go = acl_exec_in(ex, 0), *r = acl_exec_in(ex, 1), *am = acl_exec_in(ex, 2);
    const acl_view *gi = acl_exec_out(ex, 0);
    const int64_t total = acl_view_numel(go), C = go->dims[1], P = p->ph * p->pw;
    const int64_t N = gi->dims[0], H = gi->dims[2], W = gi->dims[3], HW = H * W, R = r->dims[0];
    const int64_t groups = (total + P - 1) / P; /* (n, c) groups the kernel's decomposition reaches */
    int64_t nmax = (groups + C - 1) / C;
    if (nmax > R) nmax = R;
    /* rois of each batch in ascending n (counting sort), and the fp32 gradInput planes (the device's workspace) */
    int64_t *start = calloc((size_t)N + 2, sizeof(int64_t)), *list = malloc(sizeof(int64_t) * (size_t)(nmax + 1));
    int64_t *bat = malloc(sizeof(int64_t) * (size_t)(nmax + 1));
    float *acc_all = malloc(sizeof(float) * (size_t)(N * C * HW > 0 ? N * C * HW : 1));
    if (!start || !list || !bat || !acc_all) {
        free(start), free(list), free(bat), free(acc_all);
        return ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the gradient planes");
    }
    for (int64_t n = 0; n < nmax; n++) {
        const float f = ld(r, n * r->strides[0]);
        /* the kernel converts the batch value to int32 (truncation) */
        const int64_t b = (no_isnan_f(f) || f >= 2147483648.0f || f < -2147483648.0f) ? -1 : (int64_t)f;
        bat[n] = (b >= 0 && b < N) ? b : -1;
        if (bat[n] >= 0) start[bat[n] + 2]++;
    }
    for (int64_t b = 0; b < N; b++) start[b + 2] += start[b + 1];
    for (int64_t n = 0; n < nmax; n++) /* start[b + 1] walks batch b's slots; afterwards it is b's end */
        if (bat[n] >= 0) list[start[bat[n] + 1]++] = n;
    /* a task owns RPG_CB consecutive channel planes of one batch and walks that batch's rois once, each roi's
     * RPG_CB gradOutput slices in a row (adjacent in memory): every plane still adds its elements in ascending
     * gradOutput index order, as one plane at a time would */
    const int64_t cchunks = (C + RPG_CB - 1) / RPG_CB;
    bool contig = true; /* gradOutput and argmax row-major: element offset = flat index */
    for (int64_t q = 3, step = 1; q >= 0; step *= go->dims[q], q--)
        contig = contig && (go->dims[q] == 1 || (go->strides[q] == step && am->strides[q] == step));
    ACL_FOR(acl_parallel_worth((N * C) * (HW + 64)), task, 0, N * cchunks, {
        const int64_t b = task / cchunks, c0 = (task % cchunks) * RPG_CB;
        const int64_t c1 = c0 + RPG_CB < C ? c0 + RPG_CB : C;
        float *acc0 = acc_all + (b * C + c0) * HW;
        for (int64_t k = 0; k < (c1 - c0) * HW; k++) acc0[k] = 0.0f;
        /* contiguous fp16 gradOutput and argmax: a roi's RPG_CB slices are one run of flat indices, converted to
         * fp32 as a row first (the same values as element by element) */
        float *row = (contig && go->dtype == ACL_FLOAT16) ? malloc(sizeof(float) * (size_t)(RPG_CB * P)) : NULL;
        for (int64_t j = start[b]; j < start[b + 1]; j++) {
            const int64_t base0 = (list[j] * C + c0) * P;
            if (row && base0 < total) {
                const int64_t run = (c1 - c0) * P < total - base0 ? (c1 - c0) * P : total - base0;
                acl_row_f16_to_f32_lv(row, (const uint16_t *)go->base + base0, run);
                const int32_t *amp = (const int32_t *)am->base + base0;
                for (int64_t c = c0; c < c1; c++) {
                    float *acc = acc0 + (c - c0) * HW;
                    const int64_t k0 = (c - c0) * P, k1 = k0 + P < run ? k0 + P : run;
                    for (int64_t k = k0; k < k1; k++) {
                        const int32_t a = amp[k];
                        if (a >= 0 && a < HW) acc[a] = no_add_f(acc[a], row[k]);
                    }
                }
                continue;
            }
            for (int64_t c = c0; c < c1; c++)
                rpg_add_slice(acc0 + (c - c0) * HW, (list[j] * C + c) * P, P, total, HW, go, am);
        }
        free(row);
        for (int64_t c = c0; c < c1; c++) {
            const float *acc = acc0 + (c - c0) * HW;
            const int64_t o = b * gi->strides[0] + c * gi->strides[1];
            if (gi->dtype == ACL_FLOAT16) {
                uint16_t *g16 = (uint16_t *)gi->base;
                for (int64_t h = 0; h < H; h++)
                    for (int64_t w = 0; w < W; w++)
                        g16[o + h * gi->strides[2] + w * gi->strides[3]] = acl_f32_to_f16(acc[h * W + w]);
            } else {
                float *g32 = (float *)gi->base;
                for (int64_t h = 0; h < H; h++)
                    for (int64_t w = 0; w < W; w++) g32[o + h * gi->strides[2] + w * gi->strides[3]] = acc[h * W + w];
            }
        }
    });
    free(start), free(list), free(bat), free(acc_all);
    return ACLNN_SUCCESS;
}

/* The op_api's parameter checks of RoiPoolingGradWithArgMax in its order (the format rules on regbase SoCs only):
 * shared by the A2 refusal (cv_objdetect_a2.c) and the Ascend950 path below. */
aclnnStatus acl950_roipoolgrad_checks(const aclTensor *gradOutput, const aclTensor *gradInputRef, const aclTensor *rois,
                                      const aclTensor *argmax, int64_t pooledH, int64_t pooledW, bool regbase) {
    /* CheckNotNull */
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(rois, "rois"));
    ACL_TRY(acl_check_tensor(argmax, "argmax"));
    ACL_TRY(acl_check_tensor(gradInputRef, "gradInputRef"));
    /* CheckDtype */
    ACL_TRY(acl_check_dtype_in(gradOutput, F32_F16, 2, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(rois, F32_F16, 2, "rois"));
    ACL_TRY(acl_check_dtype_in(argmax, I32, 1, "argmax"));
    ACL_TRY(acl_check_dtype_in(gradInputRef, F32_F16, 2, "gradInputRef"));
    if (regbase) { /* CheckFormat: on regbase SoCs only - no private format, one view format for all four */
        ACLNN_CHECK(!acl_format_is_private(gradOutput->format) && !acl_format_is_private(rois->format) &&
                        !acl_format_is_private(argmax->format) && !acl_format_is_private(gradInputRef->format),
                    ACLNN_ERR_PARAM_INVALID, "Format only support ND: gradOutput, rois, argmax and gradInputRef must not "
                                             "use a private format.");
        ACLNN_CHECK(gradOutput->format == rois->format && gradOutput->format == argmax->format &&
                        gradOutput->format == gradInputRef->format,
                    ACLNN_ERR_PARAM_INVALID,
                    "Format of input and output should be equal, gradOutput [%s], rois [%s], argmax [%s], gradInputRef "
                    "[%s].",
                    acl_format_name(gradOutput->format), acl_format_name(rois->format), acl_format_name(argmax->format),
                    acl_format_name(gradInputRef->format));
    }
    /* CheckShape */
    ACLNN_CHECK(gradOutput->ndim == 4, ACLNN_ERR_PARAM_INVALID, "gradOutput must be 4-D, got %llu dims",
                (unsigned long long)gradOutput->ndim);
    ACLNN_CHECK(rois->ndim == 2, ACLNN_ERR_PARAM_INVALID, "rois must be 2-D, got %llu dims",
                (unsigned long long)rois->ndim);
    ACLNN_CHECK(argmax->ndim == 4, ACLNN_ERR_PARAM_INVALID, "argmax must be 4-D, got %llu dims",
                (unsigned long long)argmax->ndim);
    ACLNN_CHECK(gradInputRef->ndim == 4, ACLNN_ERR_PARAM_INVALID, "gradInputRef must be 4-D, got %llu dims",
                (unsigned long long)gradInputRef->ndim);
    ACLNN_CHECK(rois->dims[0] == gradOutput->dims[0], ACLNN_ERR_PARAM_INVALID,
                "rois dim 0 (%lld) must equal gradOutput dim 0 (%lld)", (long long)rois->dims[0],
                (long long)gradOutput->dims[0]);
    ACLNN_CHECK(rois->dims[1] == 5, ACLNN_ERR_PARAM_INVALID, "rois dim 1 must be 5, got %lld",
                (long long)rois->dims[1]);
    ACLNN_CHECK(rois->dims[0] <= 1024, ACLNN_ERR_PARAM_INVALID, "rois dim 0 (%lld) must be <= 1024",
                (long long)rois->dims[0]);
    ACLNN_CHECK(gradInputRef->dims[0] <= 1024, ACLNN_ERR_PARAM_INVALID, "gradInputRef dim 0 (%lld) must be <= 1024",
                (long long)gradInputRef->dims[0]);
    bool same = true;
    for (int i = 0; i < 4; i++) same = same && argmax->dims[i] == gradOutput->dims[i];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "argmax must have gradOutput's shape");
    /* the op_api refuses only when both pooled sizes differ */
    ACLNN_CHECK(argmax->dims[2] == pooledH || argmax->dims[3] == pooledW, ACLNN_ERR_PARAM_INVALID,
                "argmax dims 2, 3 (%lld, %lld) must be pooledH, pooledW (%lld, %lld)", (long long)argmax->dims[2],
                (long long)argmax->dims[3], (long long)pooledH, (long long)pooledW);
    ACLNN_CHECK(argmax->dims[1] == gradInputRef->dims[1], ACLNN_ERR_PARAM_INVALID,
                "argmax dim 1 (%lld) must equal gradInputRef dim 1 (%lld)", (long long)argmax->dims[1],
                (long long)gradInputRef->dims[1]);
    /* CheckAttr */
    ACLNN_CHECK(pooledH > 0 && pooledW > 0, ACLNN_ERR_PARAM_INVALID,
                "pooledH and pooledW must be > 0, got %lld, %lld", (long long)pooledH, (long long)pooledW);
    return ACLNN_SUCCESS;
}

aclnnStatus acl950_RoiPoolingGradWithArgMax(const aclTensor *gradOutput, const aclTensor *gradInputRef,
                                            const aclTensor *rois, const aclTensor *argmax, int64_t pooledH,
                                            int64_t pooledW, double spatialScale, uint64_t *workspaceSize,
                                            aclOpExecutor **executor) {
    (void)spatialScale; /* passed to the kernel, which does not read it */
    ACL_TRY(acl950_roipoolgrad_checks(gradOutput, gradInputRef, rois, argmax, pooledH, pooledW, true));
    if (acl_tensor_empty(gradOutput)) return acl_exec_noop(ACL_OP_RoiPoolingGradWithArgMax, workspaceSize, executor);
    /* the l0 op: its OpDef pairs grad, x (gradInputRef) and rois in one dtype, and the tiling wants a non-empty
     * gradInput and both sizes within int32; a launch that fails is 561103 */
    ACLNN_CHECK(rois->dtype == gradOutput->dtype && gradInputRef->dtype == gradOutput->dtype, ACLNN_ERR_INNER_NULLPTR,
                "RoiPoolingGradWithArgMax has no ascend950 kernel for gradOutput %s, gradInputRef %s, rois %s (one "
                "dtype for all three).",
                acl_dtype_name(gradOutput->dtype), acl_dtype_name(gradInputRef->dtype), acl_dtype_name(rois->dtype));
    const int64_t go_n = acl_tensor_numel(gradOutput), gi_n = acl_tensor_numel(gradInputRef);
    ACLNN_CHECK(go_n > 0 && go_n <= INT32_MAX, ACLNN_ERR_INNER_NULLPTR,
                "RoiPoolingGradWithArgMax tiling: gradOutput has %lld elements, at most 2^31-1.", (long long)go_n);
    ACLNN_CHECK(gi_n > 0 && gi_n <= INT32_MAX, ACLNN_ERR_INNER_NULLPTR,
                "RoiPoolingGradWithArgMax tiling: gradInputRef has %lld elements, it must hold 1 to 2^31-1.",
                (long long)gi_n);
    aclOpExecutor *ex =
        acl_exec_create(ACL_OP_RoiPoolingGradWithArgMax, roipoolgrad_run, sizeof(roipoolgrad950_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_input(ex, rois, "rois", true);
    if (rc == 0) rc = acl_exec_add_input(ex, argmax, "argmax", true);
    if (rc == 0) rc = acl_exec_add_output(ex, gradInputRef, "gradInputRef");
    if (rc) return acl_exec_discard(ex, rc);
    *(roipoolgrad950_params *)ex->params = (roipoolgrad950_params){pooledH, pooledW};
    return acl_exec_publish(ex, workspaceSize, executor);
}
