/* Multi-scale deformable attention kernels (forward and backward), shared by
 * ops/multi_scale_deformable_attn_function.c and ops/multi_scale_deformable_attention_grad.c.
 *
 * Layouts (element strides in canonical dim order; any non-negative strides):
 *   value  (bs, K, nh, C)            loc   (bs, nq, nh, nl, np, 2)   [..,0] = x (x W), [..,1] = y (x H)
 *   shape  (nl, 2) = (H, W)          attn  (bs, nq, nh, nl, np)
 *   start  (nl)                      rows  (bs, nq, nh, C): gradOutput (backward) or output (forward)
 *   gv     (bs, K, nh, C)            gloc  like loc, gattn like attn (backward outputs)
 *
 * Parallelism: one owner per (b, h) pair. The owner writes gv[b, :, h, :] (backward) or out[b, :, h, :]
 * (forward) and every per-sample output of head h in batch b, walking q, l, p in order: no atomics, and
 * the result does not depend on the thread count.
 *
 * Speed (msda.c, msda_owner.inc): value[b, :, h, :] is staged as a dense fp32 [K][C] block (converted once for
 * fp16/bf16) and gradValue accumulated in one when the output is not dense fp32; per query, the fp32 location /
 * weight / gradient blocks are used in place when dense, converted as rows otherwise, and the strided per-query
 * lines are prefetched a few queries ahead; a point whose four corners are all inside gets its rows by pointer
 * arithmetic; the owner loops exist in a portable, an AVX2 and an AVX-512 variant (C = 32 specialised) that
 * perform the same fp32 operations in the same order, so every variant gives the same bytes. */
#ifndef PYACLNN_KERNELS_MSDA_H
#define PYACLNN_KERNELS_MSDA_H

#include <stdbool.h>
#include <stdint.h>

#include "acl/acl_base.h"

#define MSDA_MAX_LEVELS 16
#define MSDA_MAX_C 256

typedef struct {
    const char *base; /* first element of the view */
    aclDataType dtype;
    int64_t st[6];    /* element strides, canonical order */
} msda_ten;

typedef struct {
    int64_t bs, K, nh, C, nl, nq, np;
    int64_t nstart; /* levelStartIndex entries; a level l >= nstart contributes nothing (no start, no samples) */
    msda_ten value, shape, start, loc, attn, rows;
    msda_ten gv, gloc, gattn; /* backward only */
} msda_problem;

/* Per-thread fp32 scratch, owned by the executor (allocated in phase 1). Each slot holds `slot_floats`
 * floats (64-byte aligned parts): a staged fp32 copy of value[b, :, h, :] when value is not fp32 with unit channel stride, then an
 * fp32 accumulator for gv[b, :, h, :] when gv is not fp32 with unit channel stride. */
typedef struct {
    float *buf;
    int64_t nslots;
    int64_t slot_floats; /* a multiple of 16: every slot and part is 64-byte aligned */
    int64_t gv_offset;   /* floats from the slot start to the gradValue accumulator */
    size_t buf_bytes;    /* bytes behind buf (at least what the slots need) */
    bool stage_value, stage_gv;
} msda_scratch;

/* Phase 1: plans and allocates the scratch for a problem, one slot per thread that can own a (batch, head)
 * pair (at most bs*nh). Returns 0, or 161002 (size overflows int64) / 561000 (out of memory) with a message.
 * The caller releases it with msda_free_scratch. */
int msda_alloc_scratch(const msda_problem *p, bool backward, msda_scratch *s);
void msda_free_scratch(msda_scratch *s);

void msda_forward(const msda_problem *p, const msda_scratch *s);
void msda_backward(const msda_problem *p, const msda_scratch *s);

#endif
