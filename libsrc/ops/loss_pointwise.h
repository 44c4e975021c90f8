/* The elementwise losses of ops-nn `loss/` (MseLoss, L1Loss, SmoothL1Loss, SoftMarginLoss, BinaryCrossEntropy,
 * BinaryCrossEntropyWithLogits, KlDiv's backward) and their backwards share one engine: every operand broadcast to
 * the op's shape and read as double, one formula per element, then either the elementwise result or its sum / mean
 * (fixed-size blocks summed in index order, the block sums in order: the same bytes for any thread count), rounded
 * to the op's compute dtype and cast into out. Validation stays in each op's file, in its op_api order. */
#ifndef PYACLNN_OPS_LOSS_POINTWISE_H
#define PYACLNN_OPS_LOSS_POINTWISE_H

#include <stdbool.h>
#include <stdint.h>

#include "common/shape.h"
#include "meta/meta.h"

enum { LP_MSE, LP_L1, LP_SMOOTHL1, LP_SOFTMARGIN, LP_BCE, LP_BCEL, LP_KLDIV };
/* operand roles, also their API order: gradOutput, self, target, weight, posWeight */
enum { LR_GRAD, LR_X, LR_T, LR_W, LR_PW, LR_N };

typedef struct {
    int kind;
    bool backward;
    bool wrt_target;          /* KlDivTargetBackward: the derivative with respect to target */
    bool log_target;          /* KlDiv */
    bool reduce_dim0;         /* MseLossOut: mean / sum over the first dim of the broadcast shape only */
    int64_t reduction;        /* 0 none, 1 mean, 2 sum (KlDiv: 3 batchmean) */
    double beta;              /* SmoothL1 */
    double div;               /* mean's divisor (0: the broadcast element count) */
    aclDataType cdt;          /* the dtype the result is rounded to before the cast into out */
    bool fill_only;           /* an empty problem: out filled with `fill` */
    double fill;
    int nd;
    int64_t bd[ACL_MAX_VIEW_RANK];
} lp_params;

/* the broadcast shape of the given tensors (NULL skipped; [] when all are 0-d); false when they do not broadcast */
bool lp_broadcast(const aclTensor *const *ts, int n, int64_t *bd, int *nd);

/* an executor over ins[LR_N] (by role; NULL skipped, added in role order) and out */
aclnnStatus lp_exec(int op, const lp_params *p, const aclTensor *const *ins, aclTensor *out, const char *outname,
                    uint64_t *ws, aclOpExecutor **exo);

/* small checks the loss op_api sources share (161001 / 161002, naming the argument) */
aclnnStatus lp_null(const void *t, const char *name, aclnnStatus code);
aclnnStatus lp_max_dim(const aclTensor *t, const char *name);
aclnnStatus lp_same_dtype(const aclTensor *a, const char *an, const aclTensor *b, const char *bn);
aclnnStatus lp_reduction(int64_t reduction, int64_t hi);
aclnnStatus lp_out_scalar(const aclTensor *out, const char *name);

#endif
