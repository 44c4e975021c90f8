/* aclStft (ops-math math/stft) and aclRfft1D (math/rfft1_d): discrete Fourier transforms in double.
 *
 * Stft, per sequence b and frame t (no centring: frames start at t * hopLength):
 *   X[b, w, t] = scale * sum_{k < nFft} win[k] * self[b, t * hopLength + k] * exp(-2 pi i w k / nFft)
 * with win the window (ones when windowOptional is NULL) of winLength entries placed at (nFft - winLength) / 2 in
 * nFft zeros, w < nFft / 2 + 1 (onesided) or nFft, scale 1/sqrt(nFft) when normalized; out is complex, or real with
 * a trailing (re, im) pair. Rfft1D: the first n / 2 + 1 bins of the length-n DFT of self along `dim` (cut or
 * zero-padded to n), scaled by 1 (norm 1, "backward"), 1/n (2, "forward") or 1/sqrt(n) (3, "ortho"), out with a
 * trailing (re, im) pair.
 *
 * Both run one length-n complex DFT per row in double: an iterative radix-2 FFT for powers of two, Bluestein's
 * chirp convolution (a radix-2 FFT of length >= 2n - 1) otherwise. Each row (frame) belongs to one thread and is
 * rounded once to the output dtype, so the bytes do not depend on the thread count. The device computes the fp32
 * cases as a matrix product in fp32 (a DFT matrix), so its results differ from these in the last bits. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

typedef double complex cplx;

/* ================================================================ a DFT of any length */

typedef struct {
    int64_t n, m; /* the DFT length, and the power-of-two length the radix-2 passes run at (n, or >= 2n - 1) */
    cplx *tw;     /* m / 2 twiddles exp(-2 pi i k / m) */
    cplx *chirp;  /* Bluestein: exp(-pi i k^2 / n), k < n */
    cplx *filt;   /* Bluestein: the FFT of the conjugate chirp filter, length m */
} fft_plan;

static bool is_pow2(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

static void fft_plan_free(fft_plan *p) {
    free(p->tw);
    free(p->chirp);
    free(p->filt);
    p->tw = p->chirp = p->filt = NULL;
}

/* in-place forward radix-2 FFT of length m (a power of two) */
static void radix2(cplx *a, int64_t m, const cplx *tw) {
    for (int64_t i = 1, j = 0; i < m; i++) { /* bit-reversal permutation */
        int64_t bit = m >> 1;
        for (; j & bit; bit >>= 1) j ^= bit;
        j ^= bit;
        if (i < j) {
            cplx t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
    for (int64_t len = 2; len <= m; len <<= 1) {
        const int64_t half = len >> 1, step = m / len;
        for (int64_t s = 0; s < m; s += len)
            for (int64_t k = 0; k < half; k++) {
                const cplx u = a[s + k], v = a[s + k + half] * tw[k * step];
                a[s + k] = u + v;
                a[s + k + half] = u - v;
            }
    }
}

static bool fft_plan_init(fft_plan *p, int64_t n) {
    *p = (fft_plan){.n = n};
    int64_t m = 1;
    if (is_pow2(n)) m = n;
    else
        while (m < 2 * n - 1) m <<= 1;
    p->m = m;
    p->tw = malloc(sizeof(cplx) * (size_t)(m / 2 + 1));
    if (!p->tw) return false;
    for (int64_t k = 0; k < m / 2; k++) {
        const double a = -2.0 * M_PI * (double)k / (double)m;
        p->tw[k] = CMPLX(cos(a), sin(a));
    }
    if (m == n) return true;
    p->chirp = malloc(sizeof(cplx) * (size_t)n);
    p->filt = calloc((size_t)m, sizeof(cplx));
    if (!p->chirp || !p->filt) return false;
    for (int64_t k = 0; k < n; k++) {
        /* k^2 mod 2n keeps the angle exact for large k (n <= 2^31 here: the products fit in uint64) */
        const uint64_t r = (uint64_t)k * (uint64_t)k % (uint64_t)(2 * n);
        const double a = -M_PI * (double)r / (double)n;
        p->chirp[k] = CMPLX(cos(a), sin(a));
    }
    p->filt[0] = conj(p->chirp[0]);
    for (int64_t k = 1; k < n; k++) p->filt[k] = p->filt[m - k] = conj(p->chirp[k]);
    radix2(p->filt, m, p->tw);
    return true;
}

/* a[0..n) <- its DFT; work holds m values */
static void fft_exec(const fft_plan *p, cplx *a, cplx *work) {
    if (p->m == p->n) {
        radix2(a, p->n, p->tw);
        return;
    }
    const int64_t n = p->n, m = p->m;
    for (int64_t k = 0; k < n; k++) work[k] = a[k] * p->chirp[k];
    for (int64_t k = n; k < m; k++) work[k] = 0;
    radix2(work, m, p->tw);
    for (int64_t k = 0; k < m; k++) work[k] = conj(work[k] * p->filt[k]); /* the inverse as conj(FFT(conj)) / m */
    radix2(work, m, p->tw);
    for (int64_t k = 0; k < n; k++) a[k] = conj(work[k]) / (double)m * p->chirp[k];
}

/* a view's elements as a contiguous complex128 array (row-major); NULL when out of memory */
static cplx *load_complex(const acl_view *v) {
    const int64_t n = acl_view_numel(v);
    cplx *buf = malloc(sizeof(cplx) * (size_t)(n > 0 ? n : 1));
    if (!buf || n == 0) return buf;
    int64_t st[ACL_MAX_VIEW_RANK], s = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        st[k] = s;
        s *= v->dims[k];
    }
    cp_copy(v->base, v->dtype, v->strides, (char *)buf, ACL_COMPLEX128, st, v->dims, v->ndim);
    return buf;
}

/* n complex values to `dst` (element stride ds) of dtype ddt: complex, or (re, im) pairs of a real dtype whose
 * imaginary part is `im_stride` elements after the real one */
static void store_row(const cplx *src, int64_t n, char *dst, aclDataType ddt, int64_t ds, bool complex_out,
                      int64_t im_stride) {
    if (complex_out) {
        acl_convert(src, ACL_COMPLEX128, 1, dst, ddt, ds, n);
        return;
    }
    const size_t es = acl_dtype_size(ddt);
    acl_convert((const double *)src, ACL_DOUBLE, 2, dst, ddt, ds, n);
    acl_convert((const double *)src + 1, ACL_DOUBLE, 2, dst + im_stride * (int64_t)es, ddt, ds, n);
}

static bool is_complex(aclDataType dt) { return dt == ACL_COMPLEX64 || dt == ACL_COMPLEX128; }

/* ================================================================ aclStft */

typedef struct {
    int64_t B, L, nfft, hop, winlen, N, T; /* B: sequences (1 for a 1-d self), N bins, T frames */
    bool batched, normalized, complex_out, has_window;
} stft_params;

static aclnnStatus stft_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const stft_params *p = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *wv = p->has_window ? acl_exec_in(ex, 1) : NULL;
    const acl_view *ov = acl_exec_out(ex, 0);
    const int64_t nfft = p->nfft, left = (nfft - p->winlen) / 2;
    cplx *x = load_complex(xv), *win = wv ? load_complex(wv) : NULL, *wpad = calloc((size_t)nfft, sizeof(cplx));
    fft_plan plan;
    bool ok = fft_plan_init(&plan, nfft);
    const int nt = acl_max_threads();
    const int64_t blk = ok ? acl_team_block(nfft + plan.m, sizeof(cplx)) : 0;
    cplx *scratch = ok ? acl_team_alloc(nt, nfft + plan.m, sizeof(cplx), 0) : NULL; /* whole lines a thread */
    if (!x || (wv && !win) || !wpad || !ok || !scratch) {
        free(x); free(win); free(wpad); free(scratch);
        fft_plan_free(&plan);
        return OOM;
    }
    /* the window at (nFft - winLength) / 2 in nFft zeros; a window tensor shorter than winLength (which the device
     * does not check when winLength == nFft) contributes only the entries it has */
    const int64_t wl = wv ? acl_view_numel(wv) : p->winlen;
    for (int64_t j = 0; j < p->winlen && j < wl; j++) wpad[left + j] = win ? win[j] : 1.0;
    const double scale = p->normalized ? 1.0 / sqrt((double)nfft) : 1.0;
    const int b0 = p->batched ? 1 : 0; /* out dims: [B,] N, T [, 2] */
    const int64_t sw = ov->strides[b0], st = ov->strides[b0 + 1], sb = p->batched ? ov->strides[0] : 0;
    const int64_t sim = p->complex_out ? 0 : ov->strides[b0 + 2];
    const size_t oes = acl_dtype_size(ov->dtype);
    const int64_t rows = p->B * p->T;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * nfft * 8))
    for (int64_t r = 0; r < rows; r++) {
#ifdef _OPENMP
        cplx *a = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
        cplx *a = scratch;
#endif
        const int64_t b = r / p->T, t = r % p->T;
        const cplx *xs = x + b * p->L + t * p->hop;
        for (int64_t k = 0; k < nfft; k++) a[k] = wpad[k] * xs[k];
        fft_exec(&plan, a, a + nfft);
        for (int64_t w = 0; w < p->N; w++) a[w] *= scale;
        store_row(a, p->N, ov->base + (b * sb + t * st) * (int64_t)oes, ov->dtype, sw, p->complex_out, sim);
    }
    free(x); free(win); free(wpad); free(scratch);
    fft_plan_free(&plan);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Stft(const aclTensor *self, const aclTensor *windowOptional, aclTensor *out, int64_t nFft,
                      int64_t hopLength, int64_t winLength, bool normalized, bool onesided, bool returnComplex,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Stft, "self"));
    if (windowOptional) {
        ACL_TRY(acl_check_dtype_in(windowOptional, ACL_DT_LIST_Stft, "windowOptional"));
        ACL_TRY(acl_check_same_dtype(self, "self", windowOptional, "windowOptional"));
    }
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Stft, "out"));
    ACLNN_CHECK(self->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, "self format must be ND.");
    ACLNN_CHECK(self->ndim >= 1 && self->ndim <= 2, ACLNN_ERR_PARAM_INVALID, "self must have 1 or 2 dims, has %llu.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim >= 2 && out->ndim <= 4, ACLNN_ERR_PARAM_INVALID, "out must have 2 to 4 dims, has %llu.",
                (unsigned long long)out->ndim);
    const bool two = self->ndim == 2;
    const int64_t len = two ? self->dims[1] : self->dims[0], batch = two ? self->dims[0] : 0;
    ACLNN_CHECK(nFft > 0, ACLNN_ERR_PARAM_INVALID, "nFft %lld must be > 0.", (long long)nFft);
    ACLNN_CHECK(len >= nFft, ACLNN_ERR_PARAM_INVALID, "self's length %lld must be >= nFft %lld.", (long long)len,
                (long long)nFft);
    ACLNN_CHECK(hopLength > 0, ACLNN_ERR_PARAM_INVALID, "hopLength %lld must be > 0.", (long long)hopLength);
    ACLNN_CHECK(winLength > 0 && winLength <= nFft, ACLNN_ERR_PARAM_INVALID, "winLength %lld must be in (0, nFft].",
                (long long)winLength);
    bool cin = is_complex(self->dtype);
    if (windowOptional) {
        ACLNN_CHECK(windowOptional->ndim == 1, ACLNN_ERR_PARAM_INVALID, "windowOptional must be 1-d, has %llu dims.",
                    (unsigned long long)windowOptional->ndim);
        ACLNN_CHECK(winLength == nFft || windowOptional->dims[0] == winLength, ACLNN_ERR_PARAM_INVALID,
                    "windowOptional has %lld entries, winLength is %lld.", (long long)windowOptional->dims[0],
                    (long long)winLength);
        cin = cin || is_complex(windowOptional->dtype);
    }
    ACLNN_CHECK(!(cin && onesided), ACLNN_ERR_PARAM_INVALID, "onesided must be false for a complex self or window.");
    /* out's shape as the device derives it: the batch dim only for a 2-d self with a non-zero batch */
    const int64_t N = onesided ? nFft / 2 + 1 : nFft, T = (len - nFft) / hopLength + 1;
    int64_t want[4], nd = 0;
    if (batch > 0) want[nd++] = batch;
    want[nd++] = N;
    want[nd++] = T;
    if (!returnComplex) want[nd++] = 2;
    bool same = (int64_t)out->ndim == nd;
    for (int64_t k = 0; same && k < nd; k++) same = out->dims[k] == want[k];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "out's shape does not match [%s%lld, %lld%s].", batch > 0 ? "batch, " : "",
                (long long)N, (long long)T, returnComplex ? "" : ", 2");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Stft, workspaceSize, executor);
    /* the result's dtype; the final copy into out does not convert (561103 as the device's ViewCopy) */
    const bool dbl = self->dtype == ACL_DOUBLE || self->dtype == ACL_COMPLEX128;
    const aclDataType rdt = returnComplex ? (dbl ? ACL_COMPLEX128 : ACL_COMPLEX64) : (dbl ? ACL_DOUBLE : ACL_FLOAT);
    ACLNN_CHECK(out->dtype == rdt, ACLNN_ERR_INNER_NULLPTR, "out dtype %s should be %s (the result's dtype).",
                acl_dtype_name(out->dtype), acl_dtype_name(rdt));
    ACLNN_CHECK(nFft <= (INT64_C(1) << 31), ACLNN_ERR_PARAM_INVALID, "nFft %lld is too large.", (long long)nFft);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Stft, stft_run, sizeof(stft_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc && windowOptional) rc = acl_exec_add_input(ex, windowOptional, "windowOptional", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(stft_params *)ex->params = (stft_params){.B = two ? batch : 1, .L = len, .nfft = nFft, .hop = hopLength,
                                               .winlen = winLength, .N = N, .T = T, .batched = batch > 0,
                                               .normalized = normalized, .complex_out = returnComplex,
                                               .has_window = windowOptional != NULL};
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ================================================================ aclRfft1D */

typedef struct { int64_t n, dim, len, F, rows; double scale; } rfft_params;

/* element offsets of row r (row-major over every dim but `dim`) in a view whose dims are iterated in order */
static int64_t row_offset(const acl_view *v, int nd, int64_t dim, int64_t r) {
    int64_t off = 0;
    for (int k = nd - 1; k >= 0; k--) {
        if (k == dim) continue;
        off += (r % v->dims[k]) * v->strides[k];
        r /= v->dims[k];
    }
    return off;
}

static aclnnStatus rfft_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rfft_params *p = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *ov = acl_exec_out(ex, 0);
    fft_plan plan;
    bool ok = fft_plan_init(&plan, p->n);
    const int nt = acl_max_threads();
    const int64_t blk = ok ? acl_team_block(p->n + plan.m, sizeof(cplx)) : 0, xblk = acl_team_block(p->len, sizeof(double));
    cplx *scratch = ok ? acl_team_alloc(nt, p->n + plan.m, sizeof(cplx), 0) : NULL; /* whole lines a thread */
    double *xrow = acl_team_alloc(nt, p->len, sizeof(double), 0);
    if (!ok || !scratch || !xrow) {
        free(scratch); free(xrow);
        fft_plan_free(&plan);
        return OOM;
    }
    const size_t ies = acl_dtype_size(xv->dtype), oes = acl_dtype_size(ov->dtype);
    const int nd = xv->ndim;
    const int64_t take = p->len < p->n ? p->len : p->n;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(p->rows * p->n * 8))
    for (int64_t r = 0; r < p->rows; r++) {
#ifdef _OPENMP
        const int tid = omp_get_thread_num();
#else
        const int tid = 0;
#endif
        cplx *a = scratch + (size_t)blk * (size_t)tid;
        double *xr = xrow + (size_t)xblk * (size_t)tid;
        acl_convert(xv->base + row_offset(xv, nd, p->dim, r) * (int64_t)ies, xv->dtype, xv->strides[p->dim], xr,
                    ACL_DOUBLE, 1, take);
        for (int64_t k = 0; k < p->n; k++) a[k] = k < take ? xr[k] : 0.0; /* cut or zero-padded to n */
        fft_exec(&plan, a, a + p->n);
        for (int64_t f = 0; f < p->F; f++) a[f] *= p->scale;
        store_row(a, p->F, ov->base + row_offset(ov, nd, p->dim, r) * (int64_t)oes, ov->dtype, ov->strides[p->dim],
                  false, ov->strides[nd]);
    }
    free(scratch); free(xrow);
    fft_plan_free(&plan);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Rfft1D(const aclTensor *self, int64_t n, int64_t dim, int64_t norm, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Rfft1D, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Rfft1D, "self"));
    const int64_t nd = (int64_t)self->ndim;
    ACLNN_CHECK(nd >= 1 && nd <= 7, ACLNN_ERR_PARAM_INVALID, "self must have 1 to 7 dims, has %lld.", (long long)nd);
    ACLNN_CHECK((n > 0 && n <= 262144) || n == -1, ACLNN_ERR_PARAM_INVALID, "n %lld should be in [1, 262144] or -1.",
                (long long)n);
    ACLNN_CHECK(norm >= 1 && norm <= 3, ACLNN_ERR_PARAM_INVALID,
                "norm %lld should be 1 (backward), 2 (forward) or 3 (ortho).", (long long)norm);
    ACLNN_CHECK(dim >= -nd && dim < nd, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range [%lld, %lld].",
                (long long)dim, (long long)-nd, (long long)(nd - 1));
    const int64_t d = dim < 0 ? dim + nd : dim, len = self->dims[d], nn = n == -1 ? len : n, F = nn / 2 + 1;
    /* the result: self's shape with F bins at dim, then (re, im) */
    bool same = out->ndim == self->ndim + 1 && out->dims[nd] == 2 && out->dtype == ACL_FLOAT;
    for (int64_t k = 0; same && k < nd; k++) same = out->dims[k] == (k == d ? F : self->dims[k]);
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID,
                "out must be FLOAT with self's shape, %lld bins at dim %lld and a trailing 2.", (long long)F,
                (long long)d);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Rfft1D, rfft_run, sizeof(rfft_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(rfft_params *)ex->params = (rfft_params){.n = nn, .dim = d, .len = len, .F = F,
                                               .rows = acl_tensor_numel(self) / len,
                                               .scale = norm == 1 ? 1.0 : norm == 2 ? 1.0 / (double)nn
                                                                                    : 1.0 / sqrt((double)nn)};
    return acl_exec_publish(ex, workspaceSize, executor);
}
