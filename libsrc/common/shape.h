/* Overflow-checked int64 index maths shared by validation and kernels. */
#ifndef PYACLNN_COMMON_SHAPE_H
#define PYACLNN_COMMON_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

/* Each returns false (and leaves *out unspecified) when the exact result does not fit in int64. */
static inline bool acl_mul_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_mul_overflow(a, b, out); }
static inline bool acl_add_i64(int64_t a, int64_t b, int64_t *out) { return !__builtin_add_overflow(a, b, out); }

/* Product of dims[0..n); false on overflow or a negative dim. */
bool acl_numel(const int64_t *dims, int64_t n, int64_t *out);

/* Floor division and ceil division for any signs (b > 0). */
static inline int64_t acl_floordiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static inline int64_t acl_ceildiv(int64_t a, int64_t b) { return -acl_floordiv(-a, b); }

static inline int64_t acl_min_i64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t acl_max_i64(int64_t a, int64_t b) { return a > b ? a : b; }

#endif
