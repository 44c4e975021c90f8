/* col2im kernels per dtype (col2im.h). */
#include <omp.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "kernels/col2im.h"
#include "kernels/dtype_io.h"

#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"
