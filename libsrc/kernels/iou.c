/* Box overlap kernels: dtype entry points of iou.inc. */
#include "kernels/iou.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "common/parallel.h"
#include "kernels/dtype_io.h"

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/iou.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/iou.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/iou.inc"
#include "kernels/dtype_end.h"
