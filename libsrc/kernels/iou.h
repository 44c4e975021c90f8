/* Box overlap kernels (ops-cv objdetect/iou_v2): IoU or IoF of (x0, y0, x1, y1) boxes, eps added to every width
 * and height (the areas' and the intersection's). Each output element is owned by one (b, g) pair. */
#ifndef PYACLNN_KERNELS_IOU_H
#define PYACLNN_KERNELS_IOU_H

#include <stdbool.h>
#include "meta/meta.h"

typedef struct {
    float eps;
    bool iof;     /* intersection over the gtBox area */
    bool aligned; /* row i with row i, out (m, 1); else every pair, out (m, n) */
} iou_params;

void acl_iou_f32(const acl_view *b, const acl_view *g, const acl_view *out, const iou_params *p);
void acl_iou_f16(const acl_view *b, const acl_view *g, const acl_view *out, const iou_params *p);
void acl_iou_bf16(const acl_view *b, const acl_view *g, const acl_view *out, const iou_params *p);

#endif
