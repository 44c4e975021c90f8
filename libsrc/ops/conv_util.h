/* Helpers shared by the convolution ops (convolution.c, convolution_backward.c): a tensor's N / C by its format
 * letters, spatial extents, padding forms, axis positions for the kernels. */
#ifndef PYACLNN_OPS_CONV_UTIL_H
#define PYACLNN_OPS_CONV_UTIL_H

#include <stdbool.h>
#include <string.h>

#include "common/dtype.h"
#include "meta/meta.h"

/* A tensor's N and C as the op_api reads them: by the letters of its view format (1 when absent). */
typedef struct {
    int64_t n, c;
    int nidx, cidx;
    bool clast; /* 'C' is the format's last letter (NDHWC) */
} conv_meta;

static inline int fmt_letter(const aclTensor *t, char letter) {
    const char *f = acl_format_name(t->format);
    const char *hit = strchr(f, letter);
    if (!hit) return -1;
    int i = (int)(hit - f);
    return (uint64_t)i < t->ndim ? i : -1;
}

static inline conv_meta meta_of(const aclTensor *t) {
    conv_meta m;
    m.nidx = fmt_letter(t, 'N');
    m.cidx = fmt_letter(t, 'C');
    m.n = m.nidx < 0 ? 1 : t->dims[m.nidx];
    m.c = m.cidx < 0 ? 1 : t->dims[m.cidx];
    const char *f = acl_format_name(t->format);
    size_t len = strlen(f);
    m.clast = len > 0 && f[len - 1] == 'C';
    return m;
}

/* The spatial extent i of a tensor: dims after N, C (or after N when channels are last). */
static inline int64_t spatial(const aclTensor *t, const conv_meta *m, int64_t i) { return t->dims[(m->clast ? 1 : 2) + i]; }

/* conv1d / conv2d: the padding summed per spatial axis (front + back) from 1/2 or 2/4 values. */
static inline void pad_sums(const aclIntArray *pad, uint64_t rank, int64_t out[3]) {
    const int64_t *v = pad->v;
    if (rank == 3) {
        out[0] = pad->size == 1 ? 2 * v[0] : pad->size == 2 ? v[0] + v[1] : 0;
    } else if (rank == 4) {
        if (pad->size == 2) { out[0] = 2 * v[0]; out[1] = 2 * v[1]; }
        else if (pad->size == 4) { out[0] = v[0] + v[1]; out[1] = v[2] + v[3]; }
        else { out[0] = out[1] = 0; }
    } else {
        for (uint64_t i = 0; i < pad->size && i < 3; i++) out[i] = 2 * v[i];
    }
}

/* The front padding of spatial axis i (top / left for the per-side forms). */
static inline int64_t pad_front(const aclIntArray *pad, uint64_t rank, int64_t i) {
    if (rank == 4 && pad->size == 4) return pad->v[2 * i];
    return pad->v[i];
}

static inline bool fmt_is(const aclTensor *t, aclFormat f) { return t->format == f; }

/* Positions of the axes N, C, D, H, W of a tensor in its view (-1 for axes its rank lacks). */
static inline void axis_positions(const aclTensor *t, int pos[5]) {
    const uint64_t r = t->ndim;
    const bool clast = t->format == ACL_FORMAT_NDHWC;
    pos[0] = 0;
    pos[1] = clast ? (int)r - 1 : 1;
    const int first = clast ? 1 : 2, nsp = (int)r - 2;
    for (int a = 0; a < 3; a++) {
        int sp = a - (3 - nsp); /* spatial index of axis a (D, H, W right-aligned) */
        pos[2 + a] = sp < 0 ? -1 : first + sp;
    }
}

#endif
