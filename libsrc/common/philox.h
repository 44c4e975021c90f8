/* Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11), the counter-based generator
 * of the device's stateless random kernels and of PyTorch's CUDA generator. One call maps a 128-bit counter and a
 * 64-bit key to four 32-bit words; results are a pure function of their arguments, so any thread may compute any
 * element and the bytes never depend on the thread count.
 *
 * The mapping every random op of this library uses (libsrc/ops/random.c):
 *   key     = seed                     (k0 = low 32 bits, k1 = high 32 bits)
 *   counter = (block, offset)          (c0,c1 = the 64-bit block number, c2,c3 = the 64-bit offset)
 * so each (seed, offset) pair owns its own stream of 2^64 blocks, and element i of an op's output uses the block(s)
 * and words documented at each helper below. */
#ifndef PYACLNN_COMMON_PHILOX_H
#define PYACLNN_COMMON_PHILOX_H

#include <math.h>
#include <stdint.h>

static inline void philox4x32_10(uint64_t seed, uint64_t offset, uint64_t block, uint32_t out[4]) {
    uint32_t c0 = (uint32_t)block, c1 = (uint32_t)(block >> 32), c2 = (uint32_t)offset, c3 = (uint32_t)(offset >> 32);
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int r = 0; r < 10; r++) {
        const uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        const uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1;
        c3 = (uint32_t)p0;
        c0 = n0;
        c2 = n2;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    out[0] = c0;
    out[1] = c1;
    out[2] = c2;
    out[3] = c3;
}

/* A one-block cache for loops over consecutive elements (each block serves 2-4 of them). */
typedef struct { uint64_t block; int valid; uint32_t w[4]; } philox_cache;

static inline const uint32_t *philox_block_cached(philox_cache *c, uint64_t seed, uint64_t offset, uint64_t block) {
    if (!c->valid || c->block != block) {
        philox4x32_10(seed, offset, block, c->w);
        c->block = block;
        c->valid = 1;
    }
    return c->w;
}

/* element i as a float in [0, 1): word i % 4 of block i / 4, its top 24 bits */
static inline float philox_uniform_fc(philox_cache *c, uint64_t seed, uint64_t offset, uint64_t i) {
    return (float)(philox_block_cached(c, seed, offset, i >> 2)[i & 3] >> 8) * 0x1p-24f;
}

static inline float philox_uniform_f(uint64_t seed, uint64_t offset, uint64_t i) {
    uint32_t w[4];
    philox4x32_10(seed, offset, i >> 2, w);
    return (float)(w[i & 3] >> 8) * 0x1p-24f;
}

/* element i as a double in [0, 1): words 2(i % 2), 2(i % 2) + 1 of block i / 2, their top 53 bits */
static inline double philox_uniform_dc(philox_cache *c, uint64_t seed, uint64_t offset, uint64_t i) {
    const uint32_t *w = philox_block_cached(c, seed, offset, i >> 1);
    const unsigned j = (unsigned)(i & 1) * 2;
    return (double)((((uint64_t)w[j] << 32) | w[j + 1]) >> 11) * 0x1p-53;
}

static inline double philox_uniform_d(uint64_t seed, uint64_t offset, uint64_t i) {
    uint32_t w[4];
    philox4x32_10(seed, offset, i >> 1, w);
    const unsigned j = (unsigned)(i & 1) * 2;
    return (double)((((uint64_t)w[j] << 32) | w[j + 1]) >> 11) * 0x1p-53;
}

/* element i as a standard normal (Box-Muller), 24-bit uniforms: block i / 4, pair p = (i % 4) / 2 of its words,
 * u1 = (w[2p] >> 8 + 1) 2^-24 in (0, 1], u2 = (w[2p+1] >> 8) 2^-24; r = sqrt(-2 ln u1);
 * even i -> r cos(2 pi u2), odd i -> r sin(2 pi u2) (computed in double, the caller rounds once) */
static inline double philox_normal_fc(philox_cache *c, uint64_t seed, uint64_t offset, uint64_t i) {
    const uint32_t *w = philox_block_cached(c, seed, offset, i >> 2);
    const unsigned p = (unsigned)((i & 3) >> 1) * 2;
    const double u1 = (double)((w[p] >> 8) + 1) * 0x1p-24, u2 = (double)(w[p + 1] >> 8) * 0x1p-24;
    const double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586476925 * u2;
    return (i & 1) ? r * sin(t) : r * cos(t);
}

/* element i as a standard normal, 53-bit uniforms: block i / 2, u1 from words 0-1 (in (0, 1]), u2 from words 2-3;
 * even i -> cos, odd i -> sin */
static inline double philox_normal_dc(philox_cache *c, uint64_t seed, uint64_t offset, uint64_t i) {
    const uint32_t *w = philox_block_cached(c, seed, offset, i >> 1);
    const double u1 = (double)(((((uint64_t)w[0] << 32) | w[1]) >> 11) + 1) * 0x1p-53;
    const double u2 = (double)((((uint64_t)w[2] << 32) | w[3]) >> 11) * 0x1p-53;
    const double r = sqrt(-2.0 * log(u1)), t = 6.283185307179586476925 * u2;
    return (i & 1) ? r * sin(t) : r * cos(t);
}

#endif
