/* The softmax row passes at each SIMD level (softmax_rows.inc included once per level) and the row drivers. */
#include "kernels/softmax_rows.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#include "common/cpu.h"
#include "common/dtype_rules.h"
#include "common/dtype.h"
#include "common/nan_order.h"
#include "kernels/vexp_rows.h"

/* NaN results in the scalar reference's order (common/nan_order.h), at every level: the passes keep their vector
 * code for NaN-free results and send a NaN sum or a block holding a NaN output here. Element i of a line is f[i], or
 * the widened h[i] when h is given. */
#define SMR_AT(f, h, i) ((h) ? acl_bf16_to_f32((h)[i]) : (f)[i])

/* the 16-lane partial sums of a[i] (b == hb == NULL) or a[i] * b[i] (lane i % 16), then the halving tree */
static __attribute__((noinline, cold)) float smr_ref_dot(const float *a, const uint16_t *ha, const float *b,
                                                         const uint16_t *hb, int64_t n) {
    float t[VX_N] = {0};
    const int dot = b || hb;
    for (int64_t i = 0; i < n; i++) {
        const float x = SMR_AT(a, ha, i);
        t[i % VX_N] = no_add_f(t[i % VX_N], dot ? no_mul_f(x, SMR_AT(b, hb, i)) : x);
    }
    for (int w = VX_N / 2; w; w >>= 1)
        for (int j = 0; j < w; j++) t[j] = no_add_f(t[j], t[j + w]);
    return t[0];
}

enum { SMR_FIX_SM, SMR_FIX_LSM, SMR_FIX_EXPSCALE };
/* the NaN elements of r[0..k): y * (g - s) (SM), g - exp(y) * s (LSM), exp(g) * s (EXPSCALE); s[j] per element;
 * e[j]: the passes' exp of y[j] (LSM) or g[j] (EXPSCALE), used where that argument is not a NaN (a NaN argument is
 * its own exp, quietened). Inlined into the passes' cold branch (no call: the loops keep their constants) */
static inline __attribute__((always_inline)) void smr_ref_fix(float *r, const float *g, const uint16_t *hg,
                                                              const float *y, const uint16_t *hy, const float *s,
                                                              const float *e, int64_t k, int op) {
    for (int64_t j = 0; j < k; j++) {
        if (!no_isnan_f(r[j])) continue;
        const float gj = SMR_AT(g, hg, j);
        if (op == SMR_FIX_SM) {
            r[j] = no_mul_f(SMR_AT(y, hy, j), no_sub_f(gj, s[j]));
        } else {
            const float a = op == SMR_FIX_LSM ? SMR_AT(y, hy, j) : gj;
            const float ea = no_isnan_f(a) ? no_quiet_f(a) : e[j];
            r[j] = op == SMR_FIX_LSM ? no_sub_f(gj, no_mul_f(ea, s[j])) : no_mul_f(ea, s[j]);
        }
    }
}

/* A backward / expscale row whose scalar s is NaN: every output is NaN, each in the reference order (the exp
 * factor's value does not reach a NaN result: a NaN argument is its own exp, quietened). A row whose s is not NaN
 * needs nothing: s = sum(g) or dot(g, y) over the whole row leaves g (and y) without NaN, so a NaN output has one
 * NaN source (a NaN y's exp, or lp's) or is the default NaN of inf * 0 / inf - inf - the same bits in any order.
 * o may be g or y: elementwise. */
static __attribute__((noinline, cold)) void smr_row_ref(float *o, uint16_t *ho, const float *g, const uint16_t *hg,
                                                        const float *y, const uint16_t *hy, float s, int64_t n,
                                                        int op) {
    const float one = 1.0f;
    for (int64_t j = 0; j < n; j++) {
        float r = __builtin_nanf("");
        smr_ref_fix(&r, g ? g + j : NULL, hg ? hg + j : NULL, y ? y + j : NULL, hy ? hy + j : NULL, &s, &one, 1, op);
        if (ho) ho[j] = acl_f32_to_bf16(r);
        else o[j] = r;
    }
}

#define SMR_ATTR
#define SMR_SFX _portable
#define SMR_W 4
#include "kernels/softmax_rows.inc"
#undef SMR_W
#undef SMR_ATTR
#undef SMR_SFX

#if defined(__x86_64__) && defined(__GNUC__)
#define SMR_ATTR __attribute__((target("avx2")))
#define SMR_SFX _avx2
#define SMR_W 8
#include "kernels/softmax_rows.inc"
#undef SMR_W
#undef SMR_ATTR
#undef SMR_SFX

#define SMR_ATTR __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2")))
#define SMR_SFX _avx512
#define SMR_W 16
#include "kernels/softmax_rows.inc"
#undef SMR_W
#undef SMR_ATTR
#undef SMR_SFX
#endif

static float smr_etab[65536];
static pthread_once_t smr_etab_once = PTHREAD_ONCE_INIT;

/* (pthread_once, not an OpenMP critical section: a named critical section is an exported .gomp_critical_user_ symbol) */
static void smr_etab_build(void) {
    float *x = malloc(sizeof(float) * 65536);
    if (x) {
        for (uint32_t b = 0; b < 65536; b++) x[b] = acl_bf16_to_f32((uint16_t)b);
        smr_get()->exp(smr_etab, x, 65536);
        free(x);
    } else { /* no memory: the scalar exp of the same polynomial, element by element */
        for (uint32_t b = 0; b < 65536; b++) {
            const float v = acl_bf16_to_f32((uint16_t)b);
            smr_get()->exp(smr_etab + b, &v, 1);
        }
    }
}

const float *smr_exp_bf16_table(void) {
    pthread_once(&smr_etab_once, smr_etab_build);
    return smr_etab;
}

const smr_ops *smr_get(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) return &smr_ops__avx512;
    if (lv >= ACL_SIMD_AVX2) return &smr_ops__avx2;
#endif
    return &smr_ops__portable;
}

void smr_forward(const smr_ops *k, const float *x, float *y, int64_t n, int log_) {
    const float m = k->max(x, n);
    const float s = k->expsum(x, m, log_ ? NULL : y, n);
    if (!(s == s)) { /* a NaN, or +inf - +inf: the whole row is NaN */
        for (int64_t i = 0; i < n; i++) y[i] = NAN;
        return;
    }
    if (log_) k->sub2(y, x, m, logf(s), n);
    else k->div(y, y, s, n);
}

void smr_forward_bf16(const smr_ops *k, const uint16_t *x, uint16_t *y, float *f, int64_t n, int log_) {
    const float m = k->max_bf16(x, n);
    const float s = k->expsum_bf16(x, m, log_ ? NULL : f, n);
    if (!(s == s)) {
        for (int64_t i = 0; i < n; i++) f[i] = NAN;
        k->bf16_out(y, f, n);
        return;
    }
    if (log_) k->sub2_hh(y, x, m, logf(s), n);
    else k->div_eo_bf16(y, f, s, n);
}

void smr_backward(const smr_ops *k, const float *g, const float *y, float *o, int64_t n, int log_) {
    if (log_) k->lsm_bwd(o, g, y, k->sum(g, n), n);
    else k->sm_bwd(o, g, y, k->dot(g, y, n), n);
}

void smr_backward_bf16(const smr_ops *k, const uint16_t *g, const uint16_t *y, uint16_t *o, int64_t n, int log_) {
    k->bwd_bf16(o, g, y, log_ ? k->sum_bf16(g, n) : k->dot_bf16(g, y, n), n, log_ ? smr_exp_bf16_table() : NULL);
}

const float *smr_line_in(const smr_ops *k, const void *p, aclDataType dt, int64_t stride, int64_t n, aclDataType cdt,
                         float *f, uint16_t *h) {
    if (dt == ACL_FLOAT && cdt == ACL_FLOAT && stride == 1) return p;
    if (dt == ACL_BF16 && cdt == ACL_BF16 && stride == 1) {
        k->bf16_in(f, p, n);
        return f;
    }
    if (dt == cdt || cdt == ACL_FLOAT) acl_convert(p, dt, stride, f, ACL_FLOAT, 1, n);
    else { /* the op's cast to a half type first */
        acl_convert(p, dt, stride, h, cdt, 1, n);
        acl_convert(h, cdt, 1, f, ACL_FLOAT, 1, n);
    }
    return f;
}

void smr_line_out(const smr_ops *k, const float *v, void *p, aclDataType dt, int64_t stride, int64_t n,
                  aclDataType cdt, uint16_t *h) {
    if (dt == ACL_FLOAT && stride == 1 && (const void *)v == p) return;
    if (dt == ACL_BF16 && cdt == ACL_BF16 && stride == 1) {
        k->bf16_out(p, v, n);
        return;
    }
    if (cdt == ACL_FLOAT || dt == cdt) acl_convert(v, ACL_FLOAT, 1, p, dt, stride, n);
    else {
        acl_convert(v, ACL_FLOAT, 1, h, cdt, 1, n);
        acl_convert(h, cdt, 1, p, dt, stride, n);
    }
}
