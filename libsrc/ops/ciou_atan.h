/* The fast double atan of the Ascend950 CIoU path (cv_objdetect_950.c), in a header of its own so that
 * tools/ciou_atan_check.c can compare it with libm over every float. */
#ifndef PYACLNN_OPS_CIOU_ATAN_H
#define PYACLNN_OPS_CIOU_ATAN_H

#include <stdbool.h>

#ifndef CIOU_VEC
#define CIOU_VEC
#endif

/* atan(r) for finite r >= 0 in double: r > 1 reflected (pi/2 - atan(1/r)), t > tan(pi/8) shifted
 * (pi/4 + atan((t - 1) / (t + 1))), then u * P(u^2) on |u| <= tan(pi/8) (a degree-9 fit of atan(u) / u, relative
 * error below 3e-15). Branch-free, so a loop of it vectorises. */
CIOU_VEC __attribute__((always_inline)) static inline double ciou_atan_d(double r) {
    const bool big = __builtin_isgreater(r, 1.0);
    const double inv = 1.0 / (big ? r : 1.0); /* both sides computed (branch-free), neither traps */
    const double t = big ? inv : r;
    const bool mid = __builtin_isgreater(t, 0.41421356237309503);
    const double sh = (t - 1.0) / (t + 1.0);
    const double u = mid ? sh : t;
    const double q = u * u;
    double p = -0.02535876936665215;
    p = p * q + 0.05028003892806618;
    p = p * q + -0.06507018970325701;
    p = p * q + 0.07673714048995775;
    p = p * q + -0.09089547915846813;
    p = p * q + 0.11111049915101683;
    p = p * q + -0.14285712696930256;
    p = p * q + 0.19999999978980662;
    p = p * q + -0.3333333333322495;
    p = p * q + 0.9999999999999988;
    double a = u * p;
    a = mid ? a + 0.78539816339744828 : a;
    return big ? 1.5707963267948966 - a : a;
}

/* margin of the fast atan: the float rounding of every value within a relative 2^-36 of the fast result (which
 * holds the exact atan and libm's) is one float, else libm decides */
#define CIOU_ATAN_MARGIN 0x1p-36

#endif
