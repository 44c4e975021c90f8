/* Launch + aclrtSynchronizeStream of an Add, repeated: compare PYACLNN_SYNC=1 (eager) with PYACLNN_ASYNC=1 (queued).
 *   overhead_queue [elements (16)] [iterations (20000)]
 * Prints the best of 5 rounds in us per launch + synchronise (the machine is shared: the minimum is the stable one).
 * Build: cc -O2 -Iinclude bench/overhead_queue.c -o overhead_queue -Lbuild/lib -lpyaclnn -Wl,-rpath,$PWD/build/lib */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
int main(int argc, char **argv) {
    int64_t n = argc > 1 ? atoll(argv[1]) : 16;
    int iters = argc > 2 ? atoi(argv[2]) : 20000;
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream s;
    aclrtCreateStream(&s);
    int64_t sh[1] = {n}, st[1] = {1};
    void *x, *o;
    aclrtMalloc(&x, (size_t)n * 4, 0);
    aclrtMalloc(&o, (size_t)n * 4, 0);
    aclrtMemset(x, (size_t)n * 4, 0, (size_t)n * 4);
    aclTensor *tx = aclCreateTensor(sh, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sh, 1, x),
              *to = aclCreateTensor(sh, 1, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sh, 1, o);
    float one = 1;
    aclScalar *a = aclCreateScalar(&one, ACL_FLOAT);
    double best = 1e30;
    for (int round = 0; round < 5; round++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (int i = 0; i < iters; i++) {
            uint64_t ws;
            aclOpExecutor *ex;
            aclnnAddGetWorkspaceSize(tx, tx, a, to, &ws, &ex);
            aclnnAdd(NULL, 0, ex, s);
            aclrtSynchronizeStream(s);
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        double us = ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / 1e3 / iters;
        if (us < best) best = us;
    }
    printf("%lld elements: %.2f us per op+sync (best of 5 x %d)\n", (long long)n, best, iters);
    return 0;
}
