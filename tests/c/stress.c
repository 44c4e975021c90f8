/* Thread-safety stress test: N threads (default 8) run all eight ops concurrently, each on its own stream with
 * its own device buffers, for a bounded time; every result is compared bit for bit with the result the same
 * problem gave when run serially first. Alongside, each thread:
 *   - provokes an error whose message names a value unique to the thread and checks that aclGetRecentErrMsg()
 *     returns exactly its own message (never another thread's) and nothing after a successful call;
 *   - takes and drops aclInit references (aclInit -> 100002, aclFinalizeReference), and cycles
 *     aclrtResetDevice / aclrtSetDevice and private contexts while the others keep working;
 *   - allocates and frees all its buffers every iteration (the allocation registry under contention).
 *
 * usage: stress [-T threads] [-t seconds] [-S scale]     prints per-op run counts and timings, then "stress ok"
 * Exit 1 on a mismatch or a failed check. Built and run by tests/test_stress.py (sanitized under make asan). */
#define _GNU_SOURCE
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "aclnnop/aclnn_multi_scale_deformable_attn_function.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"

#define MAX_T 8
typedef struct {
    int nd;
    int64_t dims[6];
    aclDataType dt;
    aclFormat fmt;
    size_t bytes;
    void *host; /* inputs: contents; outputs: the serial reference result */
} tspec;

enum { OP_AVG, OP_AVGB, OP_GS, OP_GSB, OP_MSDA, OP_MSDAG, OP_UP, OP_UPB, N_OPS };
static const char *const k_names[N_OPS] = {"AvgPool2d", "AvgPool2dBackward", "GridSampler2D",
                                           "GridSampler2DBackward", "MultiScaleDeformableAttnFunction",
                                           "MultiScaleDeformableAttentionGrad", "UpsampleNearestExact2d",
                                           "UpsampleNearestExact2dBackward"};
typedef struct {
    int nin, nout;
    tspec t[MAX_T]; /* inputs, then outputs */
} problem;
static problem g_prob[N_OPS];

static volatile int g_fail;
static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL: ");
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    g_fail = 1;
}

static size_t esize(aclDataType dt) { return dt == ACL_FLOAT16 || dt == ACL_BF16 ? 2 : dt == ACL_INT64 ? 8 : 4; }

static uint64_t g_seed = 12345;
static double frand(void) {
    g_seed = g_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(g_seed >> 11) * (1.0 / 9007199254740992.0);
}

static tspec mk(aclDataType dt, aclFormat fmt, int nd, const int64_t *dims) {
    tspec s;
    memset(&s, 0, sizeof s);
    s.nd = nd;
    s.dt = dt;
    s.fmt = fmt;
    int64_t n = 1;
    for (int i = 0; i < nd; i++) { s.dims[i] = dims[i]; n *= dims[i]; }
    s.bytes = (size_t)n * esize(dt);
    s.host = calloc(1, s.bytes);
    return s;
}

/* fills a float tensor with uniform values in [lo, hi) */
static void fill(tspec *s, double lo, double hi) {
    size_t n = s->bytes / esize(s->dt);
    for (size_t i = 0; i < n; i++) {
        float v = (float)(lo + (hi - lo) * frand());
        if (s->dt == ACL_FLOAT) ((float *)s->host)[i] = v;
        else if (s->dt == ACL_FLOAT16) ((aclFloat16 *)s->host)[i] = aclFloatToFloat16(v);
        else { uint32_t u; memcpy(&u, &v, 4); ((uint16_t *)s->host)[i] = (uint16_t)(u >> 16); }
    }
}

#define DIMS(...) (const int64_t[]){__VA_ARGS__}, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t))
static tspec mkd(aclDataType dt, aclFormat fmt, const int64_t *dims, int nd) { return mk(dt, fmt, nd, dims); }

static int64_t S = 4; /* problem scale (-S): channels and queries are multiplied by it */

static void setup_problems(void) {
    const aclFormat NCHW = ACL_FORMAT_NCHW, ND = ACL_FORMAT_ND;
    problem *p;
    /* avg pool (fp32 forward, fp16 backward) */
    p = &g_prob[OP_AVG]; p->nin = 1; p->nout = 1;
    p->t[0] = mkd(ACL_FLOAT, NCHW, DIMS(2, 4 * S, 16, 16)); fill(&p->t[0], -1, 1);
    p->t[1] = mkd(ACL_FLOAT, NCHW, DIMS(2, 4 * S, 8, 8));
    p = &g_prob[OP_AVGB]; p->nin = 2; p->nout = 1;
    p->t[0] = mkd(ACL_FLOAT16, NCHW, DIMS(2, 4 * S, 8, 8)); fill(&p->t[0], -1, 1);
    p->t[1] = mkd(ACL_FLOAT16, NCHW, DIMS(2, 4 * S, 16, 16)); fill(&p->t[1], -1, 1);
    p->t[2] = mkd(ACL_FLOAT16, NCHW, DIMS(2, 4 * S, 16, 16));
    /* grid sampler (fp32 forward, bf16 backward) */
    p = &g_prob[OP_GS]; p->nin = 2; p->nout = 1;
    p->t[0] = mkd(ACL_FLOAT, ND, DIMS(2, 4 * S, 12, 12)); fill(&p->t[0], -1, 1);
    p->t[1] = mkd(ACL_FLOAT, ND, DIMS(2, 10, 10, 2)); fill(&p->t[1], -1.1, 1.1);
    p->t[2] = mkd(ACL_FLOAT, ND, DIMS(2, 4 * S, 10, 10));
    p = &g_prob[OP_GSB]; p->nin = 3; p->nout = 2;
    p->t[0] = mkd(ACL_BF16, ND, DIMS(2, 4 * S, 10, 10)); fill(&p->t[0], -1, 1);
    p->t[1] = mkd(ACL_BF16, ND, DIMS(2, 4 * S, 12, 12)); fill(&p->t[1], -1, 1);
    p->t[2] = mkd(ACL_BF16, ND, DIMS(2, 10, 10, 2)); fill(&p->t[2], -1.1, 1.1);
    p->t[3] = mkd(ACL_BF16, ND, DIMS(2, 4 * S, 12, 12));
    p->t[4] = mkd(ACL_BF16, ND, DIMS(2, 10, 10, 2));
    /* MSDA: levels (4, 4) and (2, 2) -> 20 keys, 32 queries, 2 heads, 8 channels, 2 points */
    for (int op = OP_MSDA; op <= OP_MSDAG; op++) {
        p = &g_prob[op];
        p->nin = op == OP_MSDA ? 5 : 6;
        p->nout = op == OP_MSDA ? 1 : 2; /* + the attention-weight gradient, g_msdag_gattn */
        p->t[0] = mkd(ACL_FLOAT, ND, DIMS(1, 20, 2, 8)); fill(&p->t[0], -1, 1);
        p->t[1] = mkd(ACL_INT64, ND, DIMS(2, 2));
        int64_t shp[4] = {4, 4, 2, 2}, st[2] = {0, 16};
        memcpy(p->t[1].host, shp, sizeof shp);
        p->t[2] = mkd(ACL_INT64, ND, DIMS(2));
        memcpy(p->t[2].host, st, sizeof st);
        p->t[3] = mkd(ACL_FLOAT, ND, DIMS(1, 32 * S, 2, 2, 2, 2)); fill(&p->t[3], -0.1, 1.1);
        p->t[4] = mkd(ACL_FLOAT, ND, DIMS(1, 32 * S, 2, 2, 2)); fill(&p->t[4], 0, 0.5);
        if (op == OP_MSDA) {
            p->t[5] = mkd(ACL_FLOAT, ND, DIMS(1, 32 * S, 16));
        } else {
            p->t[5] = mkd(ACL_FLOAT, ND, DIMS(1, 32 * S, 16)); fill(&p->t[5], -1, 1);
            p->t[6] = mkd(ACL_FLOAT, ND, DIMS(1, 20, 2, 8));
            p->t[7] = mkd(ACL_FLOAT, ND, DIMS(1, 32 * S, 2, 2, 2, 2));
        }
    }
    /* upsample (fp32 forward, fp16 backward) */
    p = &g_prob[OP_UP]; p->nin = 1; p->nout = 1;
    p->t[0] = mkd(ACL_FLOAT, NCHW, DIMS(2, 4 * S, 6, 6)); fill(&p->t[0], -1, 1);
    p->t[1] = mkd(ACL_FLOAT, NCHW, DIMS(2, 4 * S, 13, 9));
    p = &g_prob[OP_UPB]; p->nin = 1; p->nout = 1;
    p->t[0] = mkd(ACL_FLOAT16, NCHW, DIMS(2, 4 * S, 13, 9)); fill(&p->t[0], -1, 1);
    p->t[1] = mkd(ACL_FLOAT16, NCHW, DIMS(2, 4 * S, 6, 6));
}
static tspec g_msdag_gattn; /* MSDA grad's third output */

#define CHECK0(expr)                                                                                      \
    do {                                                                                                  \
        int rc_ = (expr);                                                                                 \
        if (rc_ != 0) {                                                                                   \
            const char *m_ = aclGetRecentErrMsg();                                                        \
            fail("%s:%d %s -> %d (%s)", __FILE__, __LINE__, #expr, rc_, m_ ? m_ : "no message");         \
            goto out;                                                                                     \
        }                                                                                                 \
    } while (0)

/* Runs problem `op` on `stream` with fresh device buffers; writes the outputs to out[] (host buffers). */
static int run_problem(int op, aclrtStream stream, void **out) {
    problem *p = &g_prob[op];
    int nt = p->nin + p->nout + (op == OP_MSDAG ? 1 : 0);
    tspec *ts[MAX_T + 1];
    for (int i = 0; i < p->nin + p->nout; i++) ts[i] = &p->t[i];
    if (op == OP_MSDAG) ts[nt - 1] = &g_msdag_gattn;
    void *dev[MAX_T + 1] = {0};
    aclTensor *t[MAX_T + 1] = {0};
    aclIntArray *a1 = NULL, *a2 = NULL, *a3 = NULL;
    aclBoolArray *mask = NULL;
    int ok = 0;
    for (int i = 0; i < nt; i++) {
        CHECK0(aclrtMalloc(&dev[i], ts[i]->bytes, ACL_MEM_MALLOC_HUGE_FIRST));
        if (i < p->nin) CHECK0(aclrtMemcpy(dev[i], ts[i]->bytes, ts[i]->host, ts[i]->bytes, ACL_MEMCPY_HOST_TO_DEVICE));
        else CHECK0(aclrtMemset(dev[i], ts[i]->bytes, 0, ts[i]->bytes));
        t[i] = aclCreateTensor(ts[i]->dims, (uint64_t)ts[i]->nd, ts[i]->dt, NULL, 0, ts[i]->fmt, ts[i]->dims,
                               (uint64_t)ts[i]->nd, dev[i]);
        if (!t[i]) { fail("aclCreateTensor failed"); goto out; }
    }
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    aclnnStatus (*run)(void *, uint64_t, aclOpExecutor *, aclrtStream) = NULL;
    switch (op) {
    case OP_AVG: case OP_AVGB: {
        int64_t k[2] = {3, 3}, s[2] = {2, 2}, pd[2] = {1, 1};
        a1 = aclCreateIntArray(k, 2); a2 = aclCreateIntArray(s, 2); a3 = aclCreateIntArray(pd, 2);
        if (op == OP_AVG) {
            CHECK0(aclnnAvgPool2dGetWorkspaceSize(t[0], a1, a2, a3, false, true, 0, 0, t[1], &ws, &ex));
            run = aclnnAvgPool2d;
        } else {
            CHECK0(aclnnAvgPool2dBackwardGetWorkspaceSize(t[0], t[1], a1, a2, a3, false, false, 0, 0, t[2], &ws, &ex));
            run = aclnnAvgPool2dBackward;
        }
        break;
    }
    case OP_GS:
        CHECK0(aclnnGridSampler2DGetWorkspaceSize(t[0], t[1], 0, 1, false, t[2], &ws, &ex));
        run = aclnnGridSampler2D;
        break;
    case OP_GSB: {
        bool m[2] = {true, true};
        mask = aclCreateBoolArray(m, 2);
        CHECK0(aclnnGridSampler2DBackwardGetWorkspaceSize(t[0], t[1], t[2], 0, 0, true, mask, t[3], t[4], &ws, &ex));
        run = aclnnGridSampler2DBackward;
        break;
    }
    case OP_MSDA:
        CHECK0(aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], &ws, &ex));
        run = aclnnMultiScaleDeformableAttnFunction;
        break;
    case OP_MSDAG:
        CHECK0(aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7],
                                                                      t[8], &ws, &ex));
        run = aclnnMultiScaleDeformableAttentionGrad;
        break;
    case OP_UP: {
        int64_t os[2] = {13, 9};
        a1 = aclCreateIntArray(os, 2);
        CHECK0(aclnnUpsampleNearestExact2dGetWorkspaceSize(t[0], a1, 0.0, 0.0, t[1], &ws, &ex));
        run = aclnnUpsampleNearestExact2d;
        break;
    }
    default: {
        int64_t os[2] = {13, 9}, is[4] = {2, 4 * S, 6, 6};
        a1 = aclCreateIntArray(os, 2); a2 = aclCreateIntArray(is, 4);
        CHECK0(aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(t[0], a1, a2, 0.0, 0.0, t[1], &ws, &ex));
        run = aclnnUpsampleNearestExact2dBackward;
        break;
    }
    }
    void *wsp = NULL;
    if (ws > 0) CHECK0(aclrtMalloc(&wsp, ws, ACL_MEM_MALLOC_HUGE_FIRST));
    int rc = run(wsp, ws, ex, stream);
    if (wsp) aclrtFree(wsp);
    CHECK0(rc);
    CHECK0(aclrtSynchronizeStream(stream));
    for (int i = p->nin; i < nt; i++)
        CHECK0(aclrtMemcpy(out[i - p->nin], ts[i]->bytes, dev[i], ts[i]->bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    ok = 1;
out:
    for (int i = 0; i < nt; i++) {
        aclDestroyTensor(t[i]);
        if (dev[i]) aclrtFree(dev[i]);
    }
    aclDestroyIntArray(a1);
    aclDestroyIntArray(a2);
    aclDestroyIntArray(a3);
    aclDestroyBoolArray(mask);
    return ok;
}

static int n_outputs(int op) { return g_prob[op].nout + (op == OP_MSDAG ? 1 : 0); }
static tspec *out_spec(int op, int i) {
    return i < g_prob[op].nout ? &g_prob[op].t[g_prob[op].nin + i] : &g_msdag_gattn;
}

/* ------------------------------------------------------------------ threads */
static double g_seconds = 3;
static int g_threads = 8;
static double g_t_end;
static long g_runs[MAX_T + 8][N_OPS];
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t g_max_out;

static void *worker(void *arg) {
    int tid = (int)(intptr_t)arg;
    void *out[4] = {0};
    for (int i = 0; i < 4; i++) out[i] = malloc(g_max_out);
    int rc = aclInit(NULL);
    if (rc != ACL_ERROR_REPEAT_INITIALIZE) fail("thread %d: aclInit while initialised gave %d, not 100002", tid, rc);
    (void)aclGetRecentErrMsg();
    if (aclrtSetDevice(0) != 0) { fail("thread %d: aclrtSetDevice", tid); return NULL; }
    aclrtStream stream = NULL;
    if (aclrtCreateStream(&stream) != 0) { fail("thread %d: aclrtCreateStream", tid); return NULL; }
    char mine[64];
    long it = 0;
    while (!g_fail && now_s() < g_t_end) {
        int op = (int)((tid + it) % N_OPS);
        if (!run_problem(op, stream, out)) break;
        for (int o = 0; o < n_outputs(op); o++) {
            tspec *s = out_spec(op, o);
            if (memcmp(out[o], s->host, s->bytes) != 0) {
                fail("thread %d: %s output %d differs from the serial result (iteration %ld)", tid, k_names[op], o, it);
                break;
            }
        }
        g_runs[tid][op]++;
        /* errors are per thread: a message naming this thread's own (never allocated) address */
        void *bogus = (void *)(uintptr_t)(0x100000 + 0x1000 * (uintptr_t)tid + 16 * (uintptr_t)(it % 64));
        snprintf(mine, sizeof mine, "%p", bogus);
        if (aclrtFree(bogus) != ACL_ERROR_RT_PARAM_INVALID) fail("thread %d: aclrtFree(bogus) did not fail", tid);
        const char *m = aclGetRecentErrMsg();
        if (!m || !strstr(m, mine) || strchr(m, '\n'))
            fail("thread %d: expected only its own message naming %s, got \"%s\"", tid, mine, m ? m : "(null)");
        if (aclGetRecentErrMsg() != NULL) fail("thread %d: a message appeared without an error", tid);
        /* init references, device resets and private contexts under contention */
        switch (it % 4) {
        case 1: {
            uint64_t ref = 0;
            if (aclInit(NULL) != ACL_ERROR_REPEAT_INITIALIZE) fail("thread %d: aclInit", tid);
            (void)aclGetRecentErrMsg();
            if (aclFinalizeReference(&ref) != 0 || ref < 2) fail("thread %d: aclFinalizeReference ref %llu", tid,
                                                                 (unsigned long long)ref);
            break;
        }
        case 2: {
            int32_t d = -1;
            if (aclrtResetDevice(0) != 0 || aclrtGetDevice(&d) != ACL_ERROR_RT_CONTEXT_NULL)
                fail("thread %d: after aclrtResetDevice the thread still has a device", tid);
            (void)aclGetRecentErrMsg();
            if (aclrtSetDevice(0) != 0 || aclrtGetDevice(&d) != 0 || d != 0) fail("thread %d: aclrtSetDevice again", tid);
            int64_t v = -1;
            if (aclrtCtxSetSysParamOpt(ACL_OPT_DETERMINISTIC, 1) != 0 ||
                aclrtCtxGetSysParamOpt(ACL_OPT_DETERMINISTIC, &v) != 0 || v != 1)
                fail("thread %d: context sys param", tid);
            break;
        }
        case 3: {
            aclrtContext c = NULL;
            if (aclrtCreateContext(&c, 0) != 0 || aclrtDestroyContext(c) != 0) fail("thread %d: private context", tid);
            if (aclrtSetDevice(0) != 0) fail("thread %d: aclrtSetDevice after a private context", tid);
            break;
        }
        default: break;
        }
        it++;
    }
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    uint64_t ref = 0;
    if (aclFinalizeReference(&ref) != 0) fail("thread %d: final aclFinalizeReference", tid);
    (void)aclGetRecentErrMsg();
    for (int i = 0; i < 4; i++) free(out[i]);
    return NULL;
}

int main(int argc, char **argv) {
    int opt;
    while ((opt = getopt(argc, argv, "T:t:S:")) != -1) {
        if (opt == 'T') g_threads = atoi(optarg);
        else if (opt == 'S') S = atoi(optarg) > 0 ? atoi(optarg) : 1;
        else if (opt == 't') g_seconds = atof(optarg);
    }
    if (g_threads < 1 || g_threads > MAX_T + 8) g_threads = 8;
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0) { printf("set-up failed\n"); return 1; }
    setup_problems();
    g_msdag_gattn = mkd(ACL_FLOAT, ACL_FORMAT_ND, DIMS(1, 32 * S, 2, 2, 2));
    aclrtStream s0;
    if (aclrtCreateStream(&s0) != 0) return 1;
    for (int op = 0; op < N_OPS; op++)
        for (int o = 0; o < n_outputs(op); o++)
            if (out_spec(op, o)->bytes > g_max_out) g_max_out = out_spec(op, o)->bytes;

    /* serial reference results, and the serial time of one round of the eight ops */
    for (int op = 0; op < N_OPS; op++) {
        void *out[4];
        for (int o = 0; o < n_outputs(op); o++) out[o] = out_spec(op, o)->host;
        if (!run_problem(op, s0, out)) return 1;
    }
    double t0 = now_s();
    int rounds = 0;
    while (now_s() - t0 < 0.5 || rounds < 3) {
        void *out[4];
        for (int op = 0; op < N_OPS; op++) {
            for (int o = 0; o < n_outputs(op); o++) out[o] = malloc(out_spec(op, o)->bytes);
            if (!run_problem(op, s0, out)) return 1;
            for (int o = 0; o < n_outputs(op); o++) {
                if (memcmp(out[o], out_spec(op, o)->host, out_spec(op, o)->bytes) != 0)
                    fail("serial rerun of %s differs", k_names[op]);
                free(out[o]);
            }
        }
        rounds++;
    }
    double serial_round_ms = (now_s() - t0) * 1e3 / rounds;

    pthread_t th[MAX_T + 8];
    double t1 = now_s();
    g_t_end = t1 + g_seconds;
    for (int i = 0; i < g_threads; i++) pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < g_threads; i++) pthread_join(th[i], NULL);
    double wall = now_s() - t1;
    long total = 0;
    for (int op = 0; op < N_OPS; op++) {
        long n = 0;
        for (int i = 0; i < g_threads; i++) n += g_runs[i][op];
        total += n;
        printf("%-36s %7ld concurrent runs, all bit-identical to the serial result\n", k_names[op], n);
    }
    const char *omp = getenv("OMP_NUM_THREADS");
    printf("scale %lld, threads %d, OMP_NUM_THREADS=%s: %ld runs in %.2f s = %.2f ms per round of 8 ops "
           "(serial: %.2f ms per round)\n", (long long)S, g_threads, omp ? omp : "(unset)", total, wall,
           total ? wall * 1e3 * N_OPS / (double)total : 0.0, serial_round_ms);
    int32_t d;
    if (aclrtGetDevice(&d) != 0 || d != 0) fail("main thread lost its device after the workers' resets");
    aclrtDestroyStream(s0);
    aclrtResetDevice(0);
    if (aclFinalize() != 0) fail("aclFinalize");
    for (int op = 0; op < N_OPS; op++)
        for (int i = 0; i < g_prob[op].nin + g_prob[op].nout; i++) free(g_prob[op].t[i].host);
    free(g_msdag_gattn.host);
    if (g_fail) return 1;
    printf("stress ok\n");
    return 0;
}
