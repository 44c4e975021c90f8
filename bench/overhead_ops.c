/* Per-call overhead of four tiny ops in C, for timing and for callgrind: phase 1 + phase 2 + aclrtSynchronizeStream
 * (what pyaclnn.launch does) of
 *   add      aclnnAdd, 4 fp32 elements
 *   abs      aclnnAbs, 1 fp32 element
 *   nll      aclnnNLLLoss, self (4, 8) fp32, target (4,) int64, weight (8,), reduction mean
 *   softmax  aclnnSoftmax, (2, 8) fp32, dim 1
 * Usage: overhead_ops OP [N [nosync]]. Prints the mean microseconds per call of the fastest of 5 passes of N calls,
 * wall time and the calling thread's CPU time.
 * Under callgrind, collect only measure():
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=measure overhead_ops add 2000
 * and divide the instructions by N * 5. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_abs.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_nll_loss.h"
#include "aclnnop/aclnn_softmax.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
static double now_thread(void) { /* this thread's CPU time: what the calls cost it, whatever else the machine runs */
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static aclTensor *tensor(const int64_t *shape, uint64_t nd, aclDataType dt, size_t es) {
    int64_t strides[8], n = 1;
    for (uint64_t i = nd; i-- > 0;) {
        strides[i] = n;
        n *= shape[i];
    }
    void *p = NULL;
    if (aclrtMalloc(&p, (size_t)n * es, ACL_MEM_MALLOC_HUGE_FIRST)) exit(3);
    if (aclrtMemset(p, (size_t)n * es, 0, (size_t)n * es)) exit(3);
    return aclCreateTensor(shape, nd, dt, strides, 0, ACL_FORMAT_ND, shape, nd, p);
}

static int g_op, g_sync = 1;
static aclTensor *ta, *tb, *to, *tw, *tt, *tw2;
static aclScalar *alpha;
static aclrtStream g_stream;

static int one_call(void) {
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int rc;
    switch (g_op) {
    case 0:
        rc = aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex);
        if (!rc) rc = aclnnAdd(NULL, ws, ex, g_stream);
        break;
    case 1:
        rc = aclnnAbsGetWorkspaceSize(ta, to, &ws, &ex);
        if (!rc) rc = aclnnAbs(NULL, ws, ex, g_stream);
        break;
    case 2:
        rc = aclnnNLLLossGetWorkspaceSize(ta, tt, tw, 1, -100, to, tw2, &ws, &ex);
        if (!rc) rc = aclnnNLLLoss(NULL, ws, ex, g_stream); /* the workspace is 0 for these shapes */
        break;
    default:
        rc = aclnnSoftmaxGetWorkspaceSize(ta, 1, to, &ws, &ex);
        if (!rc) rc = aclnnSoftmax(NULL, ws, ex, g_stream);
        break;
    }
    if (!rc && ws) return 9;
    if (!rc && g_sync) rc = aclrtSynchronizeStream(g_stream);
    return rc;
}

__attribute__((noinline)) int measure(int n) {
    for (int i = 0; i < n; i++)
        if (one_call()) return 1;
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 1;
    const char *op = argv[1];
    int n = argc > 2 ? atoi(argv[2]) : 200000;
    g_sync = !(argc > 3 && !strcmp(argv[3], "nosync"));
    if (aclInit(NULL) || aclrtSetDevice(0)) return 1;
    aclrtCreateStream(&g_stream);
    float one = 1.0f;
    alpha = aclCreateScalar(&one, ACL_FLOAT);
    if (!strcmp(op, "add")) {
        int64_t s[1] = {4};
        g_op = 0;
        ta = tensor(s, 1, ACL_FLOAT, 4), tb = tensor(s, 1, ACL_FLOAT, 4), to = tensor(s, 1, ACL_FLOAT, 4);
    } else if (!strcmp(op, "abs")) {
        int64_t s[1] = {1};
        g_op = 1;
        ta = tensor(s, 1, ACL_FLOAT, 4), to = tensor(s, 1, ACL_FLOAT, 4);
    } else if (!strcmp(op, "nll")) {
        int64_t s[2] = {4, 8}, c[1] = {8}, t[1] = {4};
        g_op = 2;
        ta = tensor(s, 2, ACL_FLOAT, 4), tw = tensor(c, 1, ACL_FLOAT, 4), tt = tensor(t, 1, ACL_INT64, 8);
        to = tensor(NULL, 0, ACL_FLOAT, 4), tw2 = tensor(NULL, 0, ACL_FLOAT, 4);
        float w[8] = {1, 2, 3, 4, 5, 6, 7, 8};
        int64_t tg[4] = {0, 3, 7, 1};
        void *wp = NULL, *tp = NULL;
        aclGetRawTensorAddr(tw, &wp);
        aclGetRawTensorAddr(tt, &tp);
        aclrtMemcpy(wp, sizeof w, w, sizeof w, ACL_MEMCPY_HOST_TO_DEVICE);
        aclrtMemcpy(tp, sizeof tg, tg, sizeof tg, ACL_MEMCPY_HOST_TO_DEVICE);
    } else if (!strcmp(op, "softmax")) {
        int64_t s[2] = {2, 8};
        g_op = 3;
        ta = tensor(s, 2, ACL_FLOAT, 4), to = tensor(s, 2, ACL_FLOAT, 4);
    } else {
        return 1;
    }
    if (measure(100)) {
        fprintf(stderr, "%s failed: %s\n", op, aclGetRecentErrMsg());
        return 2;
    }
    double best = 1e30, best_cpu = 1e30;
    for (int pass = 0; pass < 5; pass++) {
        double t0 = now(), c0 = now_thread();
        if (measure(n)) return 2;
        double us = (now() - t0) / n * 1e6, cpu = (now_thread() - c0) / n * 1e6;
        if (us < best) best = us;
        if (cpu < best_cpu) best_cpu = cpu;
    }
    aclrtSynchronizeStream(g_stream);
    printf("overhead_ops %-8s %7.3f us per call, thread CPU %7.3f us (phase 1 + phase 2%s)\n", op, best, best_cpu,
           g_sync ? " + sync" : "");
    return 0;
}
