/* Triangle rasterizer (aclnnRasterizer): z-buffer of the nearest face per pixel, then the perspective-corrected
 * barycentric coordinates of that face at the pixel centre. fp32 throughout, in the docs' operation order. */
#ifndef PYACLNN_KERNELS_RASTERIZER_H
#define PYACLNN_KERNELS_RASTERIZER_H

#include "meta/meta.h"

/* v [V, 4] f32, f [F, 3] int32, findices [H, W] int32 (face + 1, 0 = no face), bary [H, W, 3] f32.
 * Faces with a vertex index outside [0, V) are skipped. Returns 0 or -1 (out of memory). */
int acl_rasterize_f32(const acl_view *v, const acl_view *f, const acl_view *findices, const acl_view *bary);

#endif
