/* Exhaustive check of the row converters of libsrc/common/half_rows.h against the scalar conversions of
 * libsrc/common/dtype.h: every one of the 65536 fp16 and bf16 patterns widened, and every one of the 2^32 fp32
 * patterns narrowed to fp16 and to bf16, through the row functions (the vectorised code) and the element ones.
 * Compiled by tests/test_half_rows.py with the library's flags; also cross-compiled by tools/cross_check.sh.
 * usage: half_rows_check [STEP]   (STEP > 1 checks every STEP-th block of 65536 floats: a quick run)
 * On x86-64 also the AVX2 / AVX-512 / AVX512_BF16 bf16 rows and the AVX-512 fp16 narrowing of kernels/f16_rows.h,
 * where the CPU has them. The SIMD rows take an exact path for blocks outside their fast case: finite halves in
 * blocks with an Inf, and normal floats in blocks with a subnormal one (every 5th block of 65536), go through it too.
 * Prints "half_rows ok" and exits 0, or the first mismatches and exits 1. */
#include <stdio.h>
#include <stdlib.h>

#include "common/half_rows.h"
#include "kernels/f16_rows.h" /* x86-64: the F16C / AVX2 / AVX-512 rows, checked where the CPU has them */

#ifdef ACL_F16_ROWS_F16C
static int g_avx2, g_avx512, g_bf16;
/* the fp32 -> bf16 rows of kernels/f16_rows.h: 0 AVX2, 1 AVX-512, 2 AVX512_BF16 */
static int have_lv(int lv) { return lv == 0 ? g_avx2 : lv == 1 ? g_avx512 : g_bf16; }
static void (*const bf16_row[3])(uint16_t *, const float *, int64_t) = {
    acl_f32_to_bf16_row_avx2, acl_f32_to_bf16_row_avx512, acl_f32_to_bf16_row_avx512bf16};
static const char *const bf16_row_name[3] = {"f32_to_bf16_row_avx2", "f32_to_bf16_row_avx512",
                                             "f32_to_bf16_row_avx512bf16"};
#endif

#define BLOCK 65536

static void report(const char *what, uint32_t in, uint32_t got, uint32_t want, int *bad) {
    if (*bad < 10) printf("%s(0x%08x) = 0x%08x, scalar gives 0x%08x\n", what, in, got, want);
    ++*bad;
}

int main(int argc, char **argv) {
    const long step = argc > 1 ? atol(argv[1]) : 1;
#ifdef ACL_F16_ROWS_F16C
    __builtin_cpu_init();
    g_avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c");
    g_avx512 = g_avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512vl");
    g_bf16 = g_avx512 && __builtin_cpu_supports("avx512bf16");
#endif
    static uint16_t h[BLOCK];
    static float fr[BLOCK];
    int bad = 0;
    for (uint32_t i = 0; i < BLOCK; i++) h[i] = (uint16_t)i;
    acl_row_f16_to_f32(fr, h, BLOCK);
    for (uint32_t i = 0; i < BLOCK; i++) {
        uint32_t got, want, el;
        float w = acl_f16_to_f32(h[i]), e = acl_f16_to_f32_bf(h[i]);
        memcpy(&got, &fr[i], 4);
        memcpy(&want, &w, 4);
        memcpy(&el, &e, 4);
        if (got != want) report("row_f16_to_f32", i, got, want, &bad);
        if (el != want) report("f16_to_f32_bf", i, el, want, &bad);
    }
    acl_row_bf16_to_f32(fr, h, BLOCK);
    for (uint32_t i = 0; i < BLOCK; i++) {
        uint32_t got, want;
        float w = acl_bf16_to_f32(h[i]);
        memcpy(&got, &fr[i], 4);
        memcpy(&want, &w, 4);
        if (got != want) report("row_bf16_to_f32", i, got, want, &bad);
    }
    /* the widening's exact path on finite halves: every 8-lane block made special by an Inf in lane 7 (then in
     * lane 0), so each half also goes through it */
    for (int lane = 7; lane >= 0; lane -= 7) {
        static uint16_t hm[BLOCK];
        for (uint32_t i = 0; i < BLOCK; i++) hm[i] = i % 8 == (uint32_t)lane ? 0x7c00 : (uint16_t)i;
        acl_row_f16_to_f32(fr, hm, BLOCK);
        for (uint32_t i = 0; i < BLOCK; i++) {
            float w = acl_f16_to_f32(hm[i]);
            if (memcmp(&fr[i], &w, 4)) report("row_f16_to_f32 (special blocks)", hm[i], 0, 0, &bad);
        }
    }
#ifdef ACL_F16_ROWS_F16C
    if (g_avx512) {
        acl_bf16_to_f32_row_avx512(fr, h, BLOCK);
        for (uint32_t i = 0; i < BLOCK; i++) {
            float w = acl_bf16_to_f32(h[i]);
            if (memcmp(&fr[i], &w, 4)) report("bf16_to_f32_row_avx512", i, 0, 0, &bad);
        }
    }
#endif
    /* every length 0..40 at every offset 0..7 (the 8-wide blocks and their scalar tails), on values around the
     * fp16 rounding boundaries, with a NaN in some */
    {
        static float src[64];
        static uint16_t hs[64], out16[64];
        static float out32[64];
        for (int k = 0; k < 64; k++) {
            uint32_t u = 0x38800000u + (uint32_t)k * 0x01001fffu; /* spans subnormal..overflow, odd low bits */
            if (k % 23 == 5) u = 0x7f800001u + (uint32_t)k;    /* a signalling NaN */
            memcpy(&src[k], &u, 4);
            hs[k] = (uint16_t)(u >> 13);
        }
        for (int off = 0; off < 8; off++)
            for (int len = 0; off + len <= 48 && len <= 40; len++) {
                acl_row_f32_to_f16(out16 + off, src + off, len);
                for (int k = off; k < off + len; k++)
                    if (out16[k] != acl_f32_to_f16(src[k])) report("row_f32_to_f16 tail", (uint32_t)k, out16[k], acl_f32_to_f16(src[k]), &bad);
                acl_row_f32_to_bf16(out16 + off, src + off, len);
                for (int k = off; k < off + len; k++)
                    if (out16[k] != acl_f32_to_bf16(src[k])) report("row_f32_to_bf16 tail", (uint32_t)k, out16[k], acl_f32_to_bf16(src[k]), &bad);
#ifdef ACL_F16_ROWS_F16C
                for (int lv = 0; lv < 3; lv++) {
                    if (!have_lv(lv)) continue;
                    bf16_row[lv](out16 + off, src + off, len);
                    for (int k = off; k < off + len; k++)
                        if (out16[k] != acl_f32_to_bf16(src[k]))
                            report(bf16_row_name[lv], (uint32_t)k, out16[k], acl_f32_to_bf16(src[k]), &bad);
                }
                if (g_avx512) {
                    acl_f32_to_f16_row_avx512(out16 + off, src + off, len); /* its masked tail */
                    for (int k = off; k < off + len; k++)
                        if (out16[k] != acl_f32_to_f16(src[k]))
                            report("f32_to_f16_row_avx512 tail", (uint32_t)k, out16[k], acl_f32_to_f16(src[k]), &bad);
                    acl_bf16_to_f32_row_avx512(out32 + off, hs + off, len);
                    for (int k = off; k < off + len; k++) {
                        float w = acl_bf16_to_f32(hs[k]);
                        if (memcmp(&out32[k], &w, 4)) report("bf16_to_f32_row_avx512 tail", (uint32_t)k, 0, 0, &bad);
                    }
                }
#endif
                acl_row_f16_to_f32(out32 + off, hs + off, len);
                for (int k = off; k < off + len; k++) {
                    float w = acl_f16_to_f32(hs[k]);
                    if (memcmp(&out32[k], &w, 4)) report("row_f16_to_f32 tail", (uint32_t)k, 0, 0, &bad);
                }
                acl_row_bf16_to_f32(out32 + off, hs + off, len);
                for (int k = off; k < off + len; k++) {
                    float w = acl_bf16_to_f32(hs[k]);
                    if (memcmp(&out32[k], &w, 4)) report("row_bf16_to_f32 tail", (uint32_t)k, 0, 0, &bad);
                }
            }
    }
    const long nblocks = (long)((1ull << 32) / BLOCK), todo = (nblocks + step - 1) / step;
    int nbad = 0; /* the narrowing sweep, blocks shared among threads (a test, not a kernel: any order) */
#pragma omp parallel reduction(+ : nbad)
    {
        float *x = malloc(BLOCK * sizeof(float));
        uint16_t *y = malloc(BLOCK * sizeof(uint16_t));
        int mine = 0;
#pragma omp for schedule(dynamic, 16)
        for (long k = 0; k < todo; k++) {
            const uint32_t base = (uint32_t)((uint64_t)k * (uint64_t)step * BLOCK);
            for (uint32_t i = 0; i < BLOCK; i++) {
                uint32_t u = base + i;
                memcpy(&x[i], &u, 4);
            }
            acl_row_f32_to_f16(y, x, BLOCK);
            for (uint32_t i = 0; i < BLOCK; i++) {
                uint16_t want = acl_f32_to_f16(x[i]), el = acl_f32_to_f16_bf(x[i]);
                if (y[i] != want) report("row_f32_to_f16", base + i, y[i], want, &mine);
                if (el != want) report("f32_to_f16_bf", base + i, el, want, &mine);
            }
            if (k % 5 == 0) { /* the exact path on normal halves: lane 7 of every block a subnormal float */
                for (uint32_t i = 7; i < BLOCK; i += 8) {
                    uint32_t u = 1u + (i & 0x3ffu);
                    memcpy(&x[i], &u, 4);
                }
                acl_row_f32_to_f16(y, x, BLOCK);
                for (uint32_t i = 0; i < BLOCK; i++)
                    if (y[i] != acl_f32_to_f16(x[i])) report("row_f32_to_f16 (mixed blocks)", base + i, y[i], acl_f32_to_f16(x[i]), &mine);
                for (uint32_t i = 7; i < BLOCK; i += 8) {
                    uint32_t u = base + i;
                    memcpy(&x[i], &u, 4);
                }
            }
            acl_row_f32_to_bf16(y, x, BLOCK);
            for (uint32_t i = 0; i < BLOCK; i++) {
                uint16_t want = acl_f32_to_bf16(x[i]), el = acl_f32_to_bf16_bf(x[i]);
                if (y[i] != want) report("row_f32_to_bf16", base + i, y[i], want, &mine);
                if (el != want) report("f32_to_bf16_bf", base + i, el, want, &mine);
            }
#ifdef ACL_F16_ROWS_F16C
            if (g_avx512) {
                acl_f32_to_f16_row_avx512(y, x, BLOCK);
                for (uint32_t i = 0; i < BLOCK; i++)
                    if (y[i] != acl_f32_to_f16(x[i]))
                        report("f32_to_f16_row_avx512", base + i, y[i], acl_f32_to_f16(x[i]), &mine);
            }
            for (int lv = 0; lv < 3; lv++) {
                if (!have_lv(lv)) continue;
                bf16_row[lv](y, x, BLOCK);
                for (uint32_t i = 0; i < BLOCK; i++) {
                    uint16_t want = acl_f32_to_bf16(x[i]);
                    if (y[i] != want) report(bf16_row_name[lv], base + i, y[i], want, &mine);
                }
            }
#endif
        }
        free(x);
        free(y);
        nbad += mine;
    }
    bad += nbad;
    const long blocks = todo;
    if (bad) {
        printf("half_rows FAILED: %d mismatches\n", bad);
        return 1;
    }
    printf("half_rows ok (%ld blocks of %d floats)\n", blocks, BLOCK);
    return 0;
}
