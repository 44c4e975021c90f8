/* RoI Align kernels (ops-cv objdetect/roi_align, roi_align_grad): bilinear sampling of a regular grid of points in
 * each output bin of a box, averaged (or, RoiAlign's "max" mode, the largest weighted corner term).
 * Forward: every (roi, channel) owns its output bins. Backward: gather form, every (batch, channel) input plane is
 * owned by one thread, which walks the boxes of that batch in box order (fixed summation order, no atomics). */
#ifndef PYACLNN_KERNELS_ROI_ALIGN_H
#define PYACLNN_KERNELS_ROI_ALIGN_H

#include <stdbool.h>
#include <stdint.h>
#include "meta/meta.h"

/* Sample points per bin and axis (the samplingRatio, or the adaptive ceil(box size / bins)) are capped here: a huge
 * samplingRatio or an astronomically large box would otherwise overflow the tables or never end. Boxes inside the
 * map (the documented domain) of maps up to 1024 x bins pixels are not affected. */
#define ROIA_MAX_GRID 1024

typedef struct {
    int64_t ph, pw;   /* output bins per box */
    int64_t sr;       /* sampling ratio, 0: ceil(box size / bins) per box */
    float scale;      /* spatial scale */
    bool aligned;     /* half-pixel offset, no minimum box size of 1 */
    bool max_mode;    /* RoiAlign mode "max" */
    bool zero_only;   /* empty input: the output (or gradient) is all zeros */
} roia_params;

/* rois: (K, 4) x1 y1 x2 y2 with bidx (K,) int32, or (K, 5) batch x1 y1 x2 y2 with bidx NULL (the float batch index
 * truncated toward zero, as torchvision's). A box whose batch index is outside [0, N) (or NaN) produces zeros (and
 * no gradient). Return 0, or -1 when out of memory. */
int acl_roi_align_fwd_f32(const acl_view *x, const acl_view *rois, const acl_view *bidx, const acl_view *out,
                          const roia_params *p);
int acl_roi_align_fwd_f16(const acl_view *x, const acl_view *rois, const acl_view *bidx, const acl_view *out,
                          const roia_params *p);
int acl_roi_align_bwd_f32(const acl_view *gy, const acl_view *rois, const acl_view *gx, const roia_params *p);

#endif
