/* three_interpolate backward kernels (three_interpolate.h). */
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/nan_order.h"
#include "common/parallel.h"
#include "kernels/dtype_io.h"
#include "kernels/three_interpolate.h"

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/three_interpolate.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/three_interpolate.inc"
#include "kernels/dtype_end.h"
