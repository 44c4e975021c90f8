#include "common/shape.h"

bool acl_numel(const int64_t *dims, int64_t n, int64_t *out) {
    int64_t p = 1;
    bool ok = true, zero = false;
    for (int64_t i = 0; i < n; i++) {
        if (dims[i] < 0) return false;
        if (dims[i] == 0) zero = true;
        if (ok && !acl_mul_i64(p, dims[i], &p)) ok = false;
    }
    /* A zero dim makes the count 0 even if an earlier partial product overflowed (and an overflowed product
     * that happens to wrap to 0 is still an overflow). */
    if (zero) { *out = 0; return true; }
    *out = p;
    return ok;
}
