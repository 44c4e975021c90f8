/* Plumbing shared by the norm family's op files (libsrc/ops/norm_*.c): the argument checks the op_api sources
 * repeat (OP_CHECK_MAX_DIM / MIN_DIM / SHAPE_NOT_EQUAL ...), an executor builder that keeps the API position of
 * optional tensors, and the float64 gather/scatter of the views (ops/dense.h). */
#ifndef PYACLNN_OPS_NORM_COMMON_H
#define PYACLNN_OPS_NORM_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/dense.h"

#define NM_MAX_IO 12 /* AddLayerNormQuantV2 has 9 tensor inputs */

/* first member of every norm op's params: the executor slot of each API tensor (-1: NULL / not used) */
typedef struct { int in[NM_MAX_IO], out[NM_MAX_IO]; } nm_io;

/* An executor with the given inputs/outputs (NULL entries skipped, their slot -1); params_size includes nm_io. */
aclnnStatus nm_exec(int op, acl_run_fn run, size_t params_size, const aclTensor *const *ins, const char *const *inn,
                    int nin, const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                    aclOpExecutor **exo, void **params);
static inline const acl_view *nm_in(aclOpExecutor *ex, int k) {
    const nm_io *io = ex->params;
    return io->in[k] < 0 ? NULL : acl_exec_in(ex, io->in[k]);
}
static inline const acl_view *nm_out(aclOpExecutor *ex, int k) {
    const nm_io *io = ex->params;
    return io->out[k] < 0 ? NULL : acl_exec_out(ex, io->out[k]);
}
/* the view as float64 (NULL view -> NULL, *oom set on allocation failure) */
double *nm_load(const acl_view *v, bool *oom);
/* scatter n values (n must be the view's numel) when the view is given */
void nm_store(const double *src, const acl_view *v);
/* an executor whose run fills each given output with its value (the upstream "empty input" paths) */
aclnnStatus nm_fill_exec(int op, aclTensor *const *outs, const char *const *outn, const double *vals, int n,
                         uint64_t *ws, aclOpExecutor **exo);

/* checks, each with a message naming the tensor (161002) */
aclnnStatus nm_max_dim(const aclTensor *t, uint64_t n, const char *name);
aclnnStatus nm_min_dim(const aclTensor *t, uint64_t n, const char *name);
aclnnStatus nm_dim_is(const aclTensor *t, uint64_t n, const char *name);
aclnnStatus nm_same_shape(const aclTensor *a, const char *an, const aclTensor *b, const char *bn);
aclnnStatus nm_shape_is(const aclTensor *t, const int64_t *dims, int n, const char *name);
aclnnStatus nm_dtype_is(const aclTensor *t, aclDataType dt, const char *name);
aclnnStatus nm_numel_is(const aclTensor *t, int64_t n, const char *name);
bool nm_dt_in(aclDataType d, const aclDataType *l, int n);
/* the tensors' dtypes (NULL: any) must match one row of the op's support table (nrows x ncols) -> 161002 */
aclnnStatus nm_combo(const aclDataType *rows, int nrows, int ncols, const aclTensor *const *ts,
                     const char *const *names);
int64_t nm_prod(const aclTensor *t, uint64_t from, uint64_t to); /* product of view dims [from, to) */

/* AdaLayerNorm's rows (libsrc/ops/norm_ada_layer_norm.c, also AdaLayerNormQuant): x [B*S, H] normalised over H
 * (mean/rstd per row, rstd = 1 / sqrt(biased var + eps)), * w + b (NULL: none), then * (1 + scale) + shift, scale
 * and shift [B, H]; and the rule for their shapes: [B..., 1, H] or [B..., H] */
void nm_ada_rows(const double *x, const double *scale, const double *shift, const double *w, const double *b,
                 int64_t B, int64_t S, int64_t H, double eps, double *mean, double *rstd, double *y);
bool nm_ada_ss_shape_ok(const aclTensor *t, const aclTensor *x);
/* AdaLayerNorm's shape rules in its op_api order: x 2 to 8 dims with every size > 0 (B = the leading dims' product,
 * S, H), scale/shift as above, weight/bias (when given) [H]; 161002 naming the argument */
aclnnStatus nm_ada_check_shapes(const aclTensor *x, const aclTensor *scale, const aclTensor *shift, const aclTensor *w,
                                const aclTensor *b, int64_t *B, int64_t *S, int64_t *H);

/* GroupNormSilu's shape rules (libsrc/ops/norm_group_norm.c, also GroupNormSiluQuant), in its op_api order: self 2 to
 * 8 dims, out self's shape, meanOut/rstdOut [N, group], gamma/beta (when given) [C]; 161002 naming the argument */
aclnnStatus nm_group_silu_shapes(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t group,
                                 const aclTensor *out, const aclTensor *meanOut, const aclTensor *rstdOut);

/* ---- the fp32 row kernels' buffers (kernels/norm_f32.h): a view used in place when it is contiguous and of
 * FLOAT / FLOAT16 / BF16, else through a contiguous FLOAT copy (exact: every such dtype widens exactly, and an
 * output rounded from fp32 through float64 gets the same bytes as rounded directly). The same bytes either way. */
#include "kernels/norm_f32.h"
typedef struct { nf_buf b; const acl_view *v; float *own; } nm_fb;
/* an input (v NULL: b.p NULL); false when out of memory */
bool nm_fin(const acl_view *v, nm_fb *f);
/* an output: where the kernel writes; nm_fdone stores a copy back (when store) and frees it */
bool nm_fout(const acl_view *v, nm_fb *f);
bool nm_fdone(nm_fb *f, bool store); /* false: out of memory storing */
/* a small view as fp32 (NULL view -> NULL; *oom set on allocation failure) */
float *nm_loadf(const acl_view *v, bool *oom);
/* n fp32 values into the view (if given), rounded once to its dtype */
bool nm_storef(const float *src, int64_t n, const acl_view *v);

#endif
