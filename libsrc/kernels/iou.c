/* Box overlap kernels: dtype entry points of iou.inc. */
#include "kernels/iou.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/parallel.h"
#include "kernels/dtype_io.h"
#include "kernels/f16_rows.h"

#define KSUFFIX f32
#define IOU_STORE_ROW(d, s, n) KSTORE_ROW(d, s, n)
#include "kernels/dtype_begin.h"
#include "kernels/iou.inc"
#include "kernels/dtype_end.h"

#undef IOU_STORE_ROW
#define IOU_STORE_ROW(d, s, n) acl_row_f32_to_f16_lv(d, s, n) /* the level's converter: the same bits */
#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/iou.inc"
#include "kernels/dtype_end.h"

#undef IOU_STORE_ROW
#define IOU_STORE_ROW(d, s, n) acl_row_f32_to_bf16_lv(d, s, n)
#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/iou.inc"
#include "kernels/dtype_end.h"
