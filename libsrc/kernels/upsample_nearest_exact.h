/* Nearest-exact 2-D upsampling kernels: the backward (an owner-computes gather over per-axis inverse-range
 * tables) and the forward (a pure gather over per-axis source-index tables). The tables are built once in the
 * first phase (see libsrc/ops/upsample_nearest_exact2d*.c) and are read-only here. */
#ifndef PYACLNN_KERNELS_UPSAMPLE_NEAREST_EXACT_H
#define PYACLNN_KERNELS_UPSAMPLE_NEAREST_EXACT_H

#include <stdint.h>
#include "meta/meta.h"

/* A block of 16 consecutive gradient-input columns [j0, j0 + 16) whose W ranges hold at most 2 columns each,
 * all inside the window [base, base + 32) of a gradOutput row (SIMD path, see upnx_bwd_blocks). Lane l sums
 * window elements ia[l] and (when bit l of bmask is set) ib[l]; a lane whose range is empty (bit l of amask clear)
 * contributes +0. Window elements t with bit t of lmask set are loaded; lanes with bit l of smask are stored.
 * Masked loads and stores are used only where they are needed (the last block of a row): on AMD Zen 5 an AVX-512
 * masked load from memory not in L1 costs about as much as a cache miss even with every bit set (measured:
 * the x2 backward 4.5 ms with masked loads vs 1.7 ms without, one thread), so whole windows and whole 16-lane
 * stores go through plain loads and stores. */
typedef struct {
    int32_t ia[16], ib[16];
    int64_t base;
    uint32_t lmask;
    uint16_t amask, bmask, smask;
    uint8_t in_row; /* base + 32 <= the row's width: the window is loaded whole, without a mask */
} upnx_wblk;

/* When an op moves at least this many bytes (read + written), its SIMD path writes whole aligned 64-byte
 * lines with non-temporal stores: an output that size would not stay in the 2 MiB L2 anyway, and streaming it
 * saves the read-for-ownership of every line and keeps the input's lines in L3. Measured on the bench shapes
 * (8x64 planes, 13-40 MiB): 10-25% faster with the caches evicted before each call, never slower warm. */
#define UPNX_NT_BYTES ((int64_t)16 << 20)

/* Backward plan. For gradient-input row i the gradOutput rows [h_lo[i], h_hi[i]) are summed, for column j the
 * columns [w_lo[j], w_hi[j]). hk/wk > 0 when the ranges are uniform blocks [k*i, k*i + k) (fast paths). */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    int64_t *h_lo, *h_hi, *w_lo, *w_hi; /* one allocation, h_lo owns it */
    int64_t hk, wk;
    /* When every W range has at most 2 columns (and wk is 0): the columns summed for j are i0[j] and i1[j], a
     * missing one being w_hi[wi - 1] (where the kernel puts a -0.0 pad). NULL otherwise. In the same allocation. */
    int32_t *w_i0, *w_i1;
    /* The W blocks of the SIMD path (ceil(wi / 16) of them), or NULL when some W range is longer than 2 or the
     * CPU lacks AVX-512. Own allocation. */
    upnx_wblk *wb;
    int nt; /* the SIMD path writes whole aligned vectors with non-temporal stores (see UPNX_NT_BYTES) */
} upnx_bwd_plan;

/* A block of one 64-byte vector of output elements [j0, j0 + 64 / es) of the forward's SIMD path: lane l is
 * element idx[l] (an int32, int16 or int8 lane index by element size) of the two vectors loaded at base
 * (lanes of lmask0) and base + 64 / es (lanes of lmask1); lanes of smask are stored. */
typedef struct {
    uint8_t idx[64];
    int64_t base;
    uint64_t lmask0, lmask1, smask;
    /* how each of the two vectors at base is loaded: UPNX_LD_ZERO (no lane needs it), UPNX_LD_PLAIN (it lies
     * inside the row: no mask, see upnx_wblk) or UPNX_LD_MASKED (it runs past the row's end) */
    uint8_t ld0, ld1;
} upnx_fblk;

enum { UPNX_LD_ZERO, UPNX_LD_PLAIN, UPNX_LD_MASKED };

/* Forward plan: out[.., y, x] = in[.., h_src[y], w_src[x]]. wk == 2 when w_src[x] == x / 2 for all x. */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    int64_t *h_src, *w_src; /* one allocation, h_src owns it */
    int64_t wk;
    int nhwc; /* views are (N, H, W, C) instead of (N, C, H, W) */
    /* The SIMD path's blocks (ceil(wo * es / 64) of them) for elements of es bytes, or NULL (a source window
     * wider than two vectors, or no AVX-512). Own allocation. */
    upnx_fblk *fb;
    int64_t fb_es;
    int nt; /* the SIMD path writes whole aligned vectors with non-temporal stores (see UPNX_NT_BYTES) */
} upnx_fwd_plan;

/* Backward per dtype. g and o are (N, C, Ho, Wo) / (N, C, Hi, Wi) views; scratch holds
 * upnx_bwd_scratch_floats(p) floats per thread for acl_max_threads() threads. */
int64_t upnx_bwd_scratch_floats(const upnx_bwd_plan *p);
/* Builds p->wb from the W tables when the SIMD path applies (leaves it NULL otherwise) and sets p->nt for
 * elements of es bytes. Returns 0 when out of memory, else 1. Free p->wb with free(). */
int upnx_bwd_blocks(upnx_bwd_plan *p, int64_t es);
void upnx_bwd_f32(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, float *scratch);
void upnx_bwd_f16(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, float *scratch);
void upnx_bwd_bf16(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, float *scratch);

/* Forward: a bit-exact gather of elements of 1, 2, 4 or 8 bytes. x and y are in canonical (N, C, H, W) order
 * (the op permutes NHWC views before calling). */
void upnx_fwd_gather(const acl_view *x, const acl_view *y, const upnx_fwd_plan *p);
/* Builds p->fb for elements of es bytes when the SIMD path applies (leaves it NULL otherwise) and sets p->nt.
 * Returns 0 when out of memory, else 1. Free p->fb with free(). */
int upnx_fwd_blocks(upnx_fwd_plan *p, int64_t es);

#endif
