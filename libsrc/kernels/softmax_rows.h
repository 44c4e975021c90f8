/* fp32 row passes for softmax / log_softmax (+ backward) and cross entropy over contiguous rows (vexp_rows.h):
 * fixed 16-lane partials and one exp polynomial, so the results are the same bytes at every PYACLNN_SIMD level. */
#ifndef PYACLNN_KERNELS_SOFTMAX_ROWS_H
#define PYACLNN_KERNELS_SOFTMAX_ROWS_H

#include <stdint.h>

typedef struct {
    float (*max)(const float *x, int64_t n);                            /* NaN elements are skipped */
    float (*expsum)(const float *x, float m, float *e, int64_t n);      /* e = exp(x - m) (e may be NULL), sum */
    void (*div)(float *y, const float *e, float s, int64_t n);          /* y = e / s */
    void (*sub2)(float *y, const float *x, float a, float b, int64_t n); /* y = (x - a) - b */
    float (*sum)(const float *x, int64_t n);
    float (*dot)(const float *a, const float *b, int64_t n);
    void (*sm_bwd)(float *o, const float *g, const float *y, float s, int64_t n);  /* y * (g - s) */
    void (*lsm_bwd)(float *o, const float *g, const float *y, float s, int64_t n); /* g - exp(y) * s */
    void (*expscale)(float *o, const float *x, float a, int64_t n);                /* exp(x) * a */
    void (*bf16_in)(float *dst, const uint16_t *src, int64_t n);   /* = acl_bf16_to_f32 per element */
    void (*bf16_out)(uint16_t *dst, const float *src, int64_t n);  /* = acl_f32_to_bf16 per element */
    /* 16 lines in the lanes of a tile t[len][16]: forward (o may be t) and backward (o may be g or y) */
    void (*cols_fwd)(const float *t, float *o, int64_t len, int log_);
    void (*cols_bwd)(const float *g, const float *y, float *o, int64_t len, int log_);
    /* fused bf16 pass: the bits of div then bf16_out */
    void (*div_bf16)(uint16_t *dst, const float *e, float s, int64_t n);
    /* the bits of bf16_in then sum / dot / sm_bwd or lsm_bwd then bf16_out / expscale then bf16_out */
    float (*sum_bf16)(const uint16_t *x, int64_t n);
    float (*dot_bf16)(const uint16_t *a, const uint16_t *b, int64_t n);
    /* etab: smr_exp_bf16_table() for the log_softmax form (exp(y) looked up), NULL for the softmax form */
    void (*bwd_bf16)(uint16_t *o, const uint16_t *g, const uint16_t *y, float s, int64_t n, const float *etab);
    void (*expscale_bf16)(uint16_t *o, const uint16_t *x, float a, int64_t n, const float *etab);
    void (*exp)(float *e, const float *x, int64_t n); /* e = exp(x), the bits of every pass's exp */
    /* straight from the bf16 row (no widened copy): the bits of bf16_in then max / expsum / sub2 then bf16_out */
    float (*max_bf16)(const uint16_t *x, int64_t n);
    /* e (may be NULL): exp(x - m) in a layout of the level's own, for div_eo_bf16 only */
    float (*expsum_bf16)(const uint16_t *x, float m, float *e, int64_t n);
    void (*sub2_hh)(uint16_t *y, const uint16_t *x, float a, float b, int64_t n); /* y may be x */
    void (*div_eo_bf16)(uint16_t *y, const float *e, float s, int64_t n); /* y = e / s, e from expsum_bf16 */
} smr_ops;

/* The 65536 exps of the bf16 bit patterns (built once, by the passes' exp: the same bits), for the passes whose
 * exp argument is a bf16 element itself (log_softmax backward, cross entropy gradient). */
const float *smr_exp_bf16_table(void);

/* the passes of the current SIMD level (acl_simd_level()) */
const smr_ops *smr_get(void);

/* One softmax (log_ == 0) or log_softmax row: y = f(x), y may be x. */
void smr_forward(const smr_ops *k, const float *x, float *y, int64_t n, int log_);
/* One softmax / log_softmax row from contiguous bf16 x to contiguous bf16 y (f: n floats of scratch); the bytes
 * of smr_forward on the widened row, rounded once. */
void smr_forward_bf16(const smr_ops *k, const uint16_t *x, uint16_t *y, float *f, int64_t n, int log_);
/* One backward row: o = y * (g - sum(g * y)) or g - exp(y) * sum(g); o may be g or y. */
void smr_backward(const smr_ops *k, const float *g, const float *y, float *o, int64_t n, int log_);
/* The same from contiguous bf16 rows to a contiguous bf16 row, rounded once: the bytes of smr_backward on the widened
 * rows (o may be g or y). */
void smr_backward_bf16(const smr_ops *k, const uint16_t *g, const uint16_t *y, uint16_t *o, int64_t n, int log_);

#endif

#include "common/dtype.h"

/* A line of n elements of dtype dt at p, p + stride, ... (element strides) as fp32, after the op's cast to cdt
 * (f32/f16/bf16): p itself for a contiguous f32 line, else converted into f (n floats; h: n halves of scratch). */
const float *smr_line_in(const smr_ops *k, const void *p, aclDataType dt, int64_t stride, int64_t n, aclDataType cdt, float *f,
                         uint16_t *h);
/* fp32 values rounded once to cdt, then cast into the line (dt, stride) at p (h: n halves of scratch). */
void smr_line_out(const smr_ops *k, const float *v, void *p, aclDataType dt, int64_t stride, int64_t n, aclDataType cdt, uint16_t *h);
