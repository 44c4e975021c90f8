/* One seed-sized op (GridSampler2D, f32 N8 C64 64x64 -> 64x64, ~0.3 ms) launched + synchronised in a loop, with the
 * launch, the synchronisation and the whole call timed separately: run it with PYACLNN_SYNC=1 and PYACLNN_ASYNC=1.
 *   queue_seed [calls (400)] [host gap in us between calls, busy (0)] [workspace alloc+free per call (0/1)]
 * Prints min / p10 / median of the calls (us). PYACLNN_QUEUE_STATS=1 adds the queue's own per-task figures.
 * Build: cc -O2 -Iinclude bench/queue_seed.c -o queue_seed -Lbuild/lib -lpyaclnn -Wl,-rpath,$PWD/build/lib */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_grid_sampler2d.h"

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void report(const char *what, double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("%-8s min %8.1f  p10 %8.1f  median %8.1f us\n", what, v[0], v[n / 10], v[n / 2]);
}
static aclTensor *tensor(const int64_t *sh, int nd, void **p) {
    int64_t st[4], n = 1;
    for (int i = nd - 1; i >= 0; i--) {
        st[i] = n;
        n *= sh[i];
    }
    aclrtMalloc(p, (size_t)n * 4, 0);
    float *h = malloc((size_t)n * 4);
    for (int64_t i = 0; i < n; i++) h[i] = (float)((i * 7919) % 2001) / 1000.0f - 1.0f;
    aclrtMemcpy(*p, (size_t)n * 4, h, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    free(h);
    return aclCreateTensor(sh, nd, ACL_FLOAT, st, 0, ACL_FORMAT_ND, sh, nd, *p);
}
int main(int argc, char **argv) {
    int calls = argc > 1 ? atoi(argv[1]) : 400;
    double gap = argc > 2 ? atof(argv[2]) : 0;
    int wsalloc = argc > 3 ? atoi(argv[3]) : 0;
    aclInit(NULL);
    aclrtSetDevice(0);
    aclrtStream s = NULL;
    void *px, *pg, *po;
    int64_t shx[4] = {8, 64, 64, 64}, shg[4] = {8, 64, 64, 2};
    aclTensor *x = tensor(shx, 4, &px), *g = tensor(shg, 4, &pg), *o = tensor(shx, 4, &po);
    double *tl = malloc(sizeof(double) * calls), *ts = malloc(sizeof(double) * calls), *tw = malloc(sizeof(double) * calls);
    for (int i = -20; i < calls; i++) {
        double t0 = now_us();
        uint64_t ws;
        aclOpExecutor *ex;
        if (aclnnGridSampler2DGetWorkspaceSize(x, g, 0, 0, false, o, &ws, &ex)) return 1;
        void *w = NULL;
        if (wsalloc) aclrtMalloc(&w, 4096, 0);
        double t1 = now_us();
        if (aclnnGridSampler2D(w, ws, ex, s)) return 2;
        double t2 = now_us();
        if (aclrtSynchronizeStream(s)) return 3;
        if (wsalloc) aclrtFree(w);
        double t3 = now_us();
        if (i >= 0) {
            tl[i] = t2 - t1;
            ts[i] = t3 - t2;
            tw[i] = t3 - t0;
        }
        for (double e = now_us() + gap; gap > 0 && now_us() < e;) {
        }
    }
    report("launch", tl, calls);
    report("sync", ts, calls);
    report("call", tw, calls);
    aclFinalize();
    return 0;
}
