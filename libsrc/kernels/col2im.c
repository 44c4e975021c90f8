/* col2im kernels per dtype (col2im.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/nan_order.h"
#include "common/parallel.h"
#include "kernels/col2im.h"
#include "kernels/dtype_io.h"

#define KSUFFIX f32
#define KSUFFIX_IS_F32 1
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#undef KSUFFIX_IS_F32
#define KSUFFIX_IS_F32 0
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"
