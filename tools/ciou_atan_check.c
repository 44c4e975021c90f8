/* Exhaustive check of the Ascend950 CIoU fast atan (libsrc/ops/ciou_atan.h) against libm: for every
 * non-negative finite float r, when the fast path accepts its result (the margin rounds to one float), that float
 * must be (float)atan((double)r). Prints the number of floats checked, accepted, sent to libm, and mismatches
 * (must be 0). Build and run (about a minute):
 *   cc -std=c11 -O2 -ffp-contract=off -Ilibsrc tools/ciou_atan_check.c -lm -o /tmp/ciou_atan_check && /tmp/ciou_atan_check */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ops/ciou_atan.h"

int main(void) {
    uint64_t checked = 0, fast = 0, slow = 0, bad = 0;
    for (uint32_t bits = 0; bits < 0x7f800000u; bits++) {
        float x;
        memcpy(&x, &bits, 4);
        const double a = ciou_atan_d((double)x);
        const float lo = (float)(a * (1.0 - CIOU_ATAN_MARGIN)), hi = (float)(a * (1.0 + CIOU_ATAN_MARGIN));
        checked++;
        if (lo != hi) {
            slow++;
            continue;
        }
        fast++;
        const float ref = (float)atan((double)x);
        if (memcmp(&lo, &ref, 4)) {
            if (bad < 10) printf("mismatch at %a: fast %a libm %a\n", (double)x, (double)lo, (double)ref);
            bad++;
        }
    }
    printf("checked %llu fast %llu libm %llu mismatches %llu\n", (unsigned long long)checked,
           (unsigned long long)fast, (unsigned long long)slow, (unsigned long long)bad);
    return bad != 0;
}
