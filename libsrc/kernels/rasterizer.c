/* Triangle rasterizer kernel (rasterizer.h). Pass 1: each thread owns a fixed band of pixel rows and walks every
 * face in order, so the nearest face per pixel (ties: the smaller face index) does not depend on the thread
 * count. Pass 2: per pixel, the barycentric coordinates of the winning face. */
#include <math.h>
#include <stdlib.h>

#include "common/parallel.h"
#include "kernels/rasterizer.h"

typedef struct { float x[3], y[3], z[3], w[3]; bool ok; } rz_face;

static inline float rz_v(const acl_view *v, int64_t i, int k) {
    return ((const float *)(const void *)v->base)[i * v->strides[0] + k * v->strides[1]];
}

/* vertex indices of face j, false when one is outside [0, V) */
static inline bool rz_face_idx(const acl_view *v, const acl_view *f, int64_t j, int64_t idx[3]) {
    const int32_t *fp = (const int32_t *)(const void *)f->base;
    for (int k = 0; k < 3; k++) idx[k] = 0;
    for (int k = 0; k < 3; k++) {
        idx[k] = fp[j * f->strides[0] + k * f->strides[1]];
        if (idx[k] < 0 || idx[k] >= v->dims[0]) return false;
    }
    return true;
}

#define RZ_ROWS 8 /* pixel rows per work item */

int acl_rasterize_f32(const acl_view *v, const acl_view *f, const acl_view *findices, const acl_view *bary) {
    int64_t H = findices->dims[0], W = findices->dims[1], F = f->dims[0];
    float Wf = (float)W, Hf = (float)H;
    rz_face *faces = malloc((size_t)(F > 0 ? F : 1) * sizeof *faces);
    float *zbuf = malloc((size_t)(H * W) * sizeof *zbuf);
    int32_t *fid = malloc((size_t)(H * W) * sizeof *fid);
    if (!faces || !zbuf || !fid) {
        free(faces); free(zbuf); free(fid);
        return -1;
    }
    /* screen coordinates of the z-buffer pass */
    ACL_FOR(acl_parallel_worth(F * 32), j, 0, F, {
        int64_t idx[3];
        rz_face *t = faces + j;
        t->ok = rz_face_idx(v, f, j, idx);
        if (!t->ok) continue;
        for (int k = 0; k < 3; k++) {
            float x = rz_v(v, idx[k], 0), y = rz_v(v, idx[k], 1), z = rz_v(v, idx[k], 2), w = rz_v(v, idx[k], 3);
            t->x[k] = ((x / w) * 0.5f + 0.5f) * (Wf - 1.0f) + 0.5f;
            t->y[k] = ((y * 0.5f) / w + 0.5f) * (Hf - 1.0f) + 0.5f;
            t->z[k] = (z / w) * 0.49999f + 0.5f;
            t->w[k] = w;
        }
    });
    int64_t bands = (H + RZ_ROWS - 1) / RZ_ROWS;
#pragma omp parallel for schedule(dynamic, 1) if (acl_parallel_worth(F * W))
    for (int64_t bnd = 0; bnd < bands; bnd++) {
        int64_t r0 = bnd * RZ_ROWS, r1 = r0 + RZ_ROWS < H ? r0 + RZ_ROWS : H;
        for (int64_t p = r0 * W; p < r1 * W; p++) { zbuf[p] = 3.40282347e+38f; fid[p] = 0; }
        for (int64_t j = 0; j < F; j++) {
            const rz_face *t = faces + j;
            if (!t->ok) continue;
            float x0 = t->x[0], x1 = t->x[1], x2 = t->x[2], y0 = t->y[0], y1 = t->y[1], y2 = t->y[2];
            float xmin = fmaxf(fminf(fminf(x0, x1), x2), 0.0f), xmax = fminf(fmaxf(fmaxf(x0, x1), x2), Wf - 1.0f);
            float ymin = fmaxf(fminf(fminf(y0, y1), y2), 0.0f), ymax = fminf(fmaxf(fmaxf(y0, y1), y2), Hf - 1.0f);
            float area = (x2 - x0) * (y1 - y0) - (x1 - x0) * (y2 - y0);
            if (area == 0.0f || !(xmin <= xmax) || !(ymin <= ymax)) continue;
            int64_t ya = (int64_t)ymin, yb = (int64_t)ymax + 1, xa = (int64_t)xmin, xb = (int64_t)xmax + 1;
            if (ya < r0) ya = r0;
            if (yb > r1) yb = r1;
            for (int64_t py = ya; py < yb; py++) {
                float cy = (float)py + 0.5f;
                for (int64_t px = xa; px < xb; px++) {
                    float cx = (float)px + 0.5f;
                    float bt = (cy - y0) * (x2 - x0) - (cx - x0) * (y2 - y0);
                    float gt = (cx - x0) * (y1 - y0) - (cy - y0) * (x1 - x0);
                    float beta = bt / area, gamma = gt / area, alpha = 1.0f - beta - gamma;
                    if (!(alpha >= 0.0f && alpha <= 1.0f && beta >= 0.0f && beta <= 1.0f && gamma >= 0.0f &&
                          gamma <= 1.0f))
                        continue;
                    float d = truncf(((alpha * t->z[0] + beta * t->z[1]) + gamma * t->z[2]) * 262144.0f);
                    int64_t p = py * W + px;
                    if (d < zbuf[p]) { zbuf[p] = d; fid[p] = (int32_t)(j + 1); }
                }
            }
        }
    }
    /* barycentric pass: screen coordinates as the second kernel forms them */
    float xm = 0.5f * (Wf - 1.0f), xa = 0.5f * Wf, ym = 0.5f * (Hf - 1.0f), ya = 0.5f * Hf, inv_w = 1.0f / Wf;
    int32_t *fo = (int32_t *)(void *)findices->base;
    float *bo = (float *)(void *)bary->base;
    ACL_FOR(acl_parallel_worth(H * W * 16), p, 0, H * W, {
        int64_t py_i = p / W, px_i = p % W;
        fo[py_i * findices->strides[0] + px_i * findices->strides[1]] = fid[p];
        float *b = bo + py_i * bary->strides[0] + px_i * bary->strides[1];
        int64_t bs = bary->strides[2];
        if (fid[p] == 0) { b[0] = 0.0f; b[bs] = 0.0f; b[2 * bs] = 0.0f; continue; }
        int64_t idx[3] = {0, 0, 0};
        rz_face_idx(v, f, fid[p] - 1, idx); /* valid: the face was drawn */
        float sx[3], sy[3], w[3];
        for (int k = 0; k < 3; k++) {
            w[k] = rz_v(v, idx[k], 3);
            sx[k] = (rz_v(v, idx[k], 0) / w[k]) * xm + xa;
            sy[k] = (rz_v(v, idx[k], 1) / w[k]) * ym + ya;
        }
        float pf = (float)p;
        float fy = floorf(pf * inv_w);
        float cx = (pf - fy * Wf) + 0.5f, cy = fy + 0.5f;
        float pa0 = cx - sx[0], pa1 = cy - sy[0], ba0 = sx[1] - sx[0], ba1 = sy[1] - sy[0];
        float ca0 = sx[2] - sx[0], ca1 = sy[2] - sy[0];
        float bt = ca0 * pa1 - ca1 * pa0, gt = pa0 * ba1 - pa1 * ba0, area = ca0 * ba1 - ca1 * ba0;
        float beta = bt / area, gamma = gt / area, alpha = (beta + gamma) * -1.0f + 1.0f;
        if (area == 0.0f) alpha = beta = gamma = -1.0f;
        alpha = alpha / w[0]; beta = beta / w[1]; gamma = gamma / w[2];
        float s = (alpha + beta) + gamma;
        b[0] = alpha / s; b[bs] = beta / s; b[2 * bs] = gamma / s;
    });
    free(faces); free(zbuf); free(fid);
    return 0;
}
