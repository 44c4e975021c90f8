/* A seeded structured fuzzer for the whole exported C ABI (runtime, meta objects, the eight seed ops with
 * hand-written cases, and every op of the op table through the generated registry fuzz_table.inc).
 *
 * Every case starts from a valid call and mutates it with hostile arguments: NULL anywhere, destroyed and
 * foreign objects, unknown dtypes/formats (values outside the enums too), negative and huge dims (element
 * counts whose byte size overflows int64), strides/offsets that reach outside the allocation, tensor data that
 * is not device memory, aliased inputs and outputs, out-of-range attributes, executors used twice, run by the
 * wrong op, destroyed, or run after their memory was freed. Checked after every call:
 *   - the status is in the documented set (SPEC 1.4) and, for the ops, in {0, 161001, 161002, 361001, 561xxx};
 *   - a non-zero status comes with a non-empty aclGetRecentErrMsg();
 *   - a failed first phase leaves *executor untouched; specific misuse gives its specific code;
 *   - nothing crashes or hangs (SIGALRM per case), and the sanitizers (make fuzz runs the ASan+UBSan build) stay
 *     silent.
 * Only pointers the library promises to detect are passed (registry-checked objects and memory ranges); never
 * arbitrary wild pointers.
 *
 * usage: fuzz [-t seconds] [-n max_cases] [-s seed] [-c case]    (-c replays one case of the seed)
 * Prints one line per target (cases, phase-1 successes, runs) and "fuzz ok". Exit 1 on a violation. */
#define _GNU_SOURCE
#include <math.h>
#include <signal.h>
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
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_avgpool2d.h"
#include "aclnnop/aclnn_avgpool2d_backward.h"
#include "aclnnop/aclnn_grid_sampler2d.h"
#include "aclnnop/aclnn_grid_sampler2d_backward.h"
#include "aclnnop/aclnn_multi_scale_deformable_attention_grad.h"
#include "aclnnop/aclnn_multi_scale_deformable_attn_function.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d.h"
#include "aclnnop/aclnn_upsample_nearest_exact2d_backward.h"

/* C++ operator delete[] (what aclGetViewShape & co. document for their arrays), callable from C; link -lstdc++. */
void _ZdaPv(void *p);

/* ------------------------------------------------------------------ random numbers */
static uint64_t g_rng;
static uint64_t rnd(void) {
    g_rng ^= g_rng >> 12; g_rng ^= g_rng << 25; g_rng ^= g_rng >> 27;
    return g_rng * 0x2545F4914F6CDD1DULL;
}
static int64_t rint_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }
static bool chance(double p) { return (double)(rnd() >> 11) * (1.0 / 9007199254740992.0) < p; }
static double runif(double lo, double hi) { return lo + (hi - lo) * (double)(rnd() >> 11) * (1.0 / 9007199254740992.0); }
#define PICK(arr) ((arr)[rnd() % (sizeof(arr) / sizeof((arr)[0]))])

/* ------------------------------------------------------------------ checking */
static long g_case = -1;
static uint64_t g_seed;
static const char *g_where = "";
static int g_fail;

/* every status code the public headers define (acl/error_codes, acl_base, aclnn_base) */
static const int k_documented[] = {
    0,
    100000, 100001, 100002, 100003, 100004, 100005, 100006, 100007, 100008, 100009, 100010, 100011,
    100012, 100013, 100014, 100015, 100016, 100017, 100018, 100019, 100020, 100021, 100022, 100023,
    100024, 100025, 100026, 100027, 100028, 100029, 100030, 100031, 100032, 100033, 100034, 100035,
    100036, 100037, 100038, 100039, 100040, 100041, 100042, 100043, 100044, 100045, 107000, 107001,
    107002, 107003, 107004, 107005, 107006, 107007, 107008, 107009, 107010, 107011, 107012, 107013,
    107014, 107015, 107016, 107017, 107018, 107019, 107020, 107021, 145000, 145001, 148046, 148047,
    148048, 148049, 148050, 148051, 148052, 148053, 161001, 161002, 200000, 200001, 200002, 200003,
    200004, 200005, 200006, 200007, 207000, 207001, 207002, 207003, 207004, 207005, 207006, 207007,
    207008, 207009, 207010, 207011, 300000, 361001, 500000, 500001, 500002, 500003, 500004, 500005,
    507000, 507001, 507002, 507003, 507004, 507005, 507006, 507007, 507008, 507009, 507010, 507011, 507046, 507047,
    507899, 507900, 545000, 561000, 561001, 561002, 561003, 561101, 561102, 561103, 561104, 561105,
    561106, 561107, 561108, 561109, 561110, 561111, 561112, 561113, 561114, 561115, 561116, 561117,
    561118, 561119,
};

static void violation(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void violation(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stdout, "VIOLATION (seed %llu case %ld, %s): ", (unsigned long long)g_seed, g_case, g_where);
    vfprintf(stdout, fmt, ap);
    fprintf(stdout, "\n");
    fflush(stdout);
    va_end(ap);
    g_fail = 1;
}

static void drain(void) { (void)aclGetRecentErrMsg(); }

/* A status: documented, in `allowed` when given (0-terminated list; 0 itself always allowed), and with a
 * message when non-zero. */
static int check_rc(int rc, const char *api, const int *allowed) {
    bool doc = false;
    for (size_t i = 0; i < sizeof k_documented / sizeof k_documented[0]; i++) doc |= rc == k_documented[i];
    if (!doc) violation("%s returned undocumented status %d", api, rc);
    if (rc != 0 && allowed) {
        bool ok = false;
        for (const int *a = allowed; *a; a++) ok |= rc == *a;
        if (!ok) violation("%s returned %d, not one of the codes it documents", api, rc);
    }
    const char *m = aclGetRecentErrMsg();
    if (rc != 0 && (m == NULL || m[0] == '\0')) violation("%s returned %d without a message", api, rc);
    return rc;
}
static void expect_rc(int rc, int want, const char *api) {
    check_rc(rc, api, NULL);
    if (rc != want) violation("%s returned %d, expected %d", api, rc, want);
}
#define CALL(expr, allowed) (drain(), check_rc((expr), #expr, (allowed)))
#define EXPECT(expr, want) (drain(), expect_rc((expr), (want), #expr))

/* 561002: a failed tiling in the first phase of an interface generated from an op definition (opbase
 * individual_op/executor/indv_executor.cpp returns ACLNN_ERR_INNER_TILING_ERROR), e.g. aclnnStridedSliceAssignV2;
 * 361001: an op_api that refuses the SoC (ACLNN_ERR_RUNTIME_ERROR), e.g. aclnnCIoU and aclnnNonMaxSuppression on A2 */
static const int k_op_codes[] = {161001, 161002, 361001, 561000, 561002, 561101, 561103, 0};
static const int k_run_codes[] = {161001, 161002, 361001, 0};
/* this case made a tensor with no address: phase 1 may accept it, and running it is 0 (the op does not read it)
 * or 161001 */
static bool g_null_data;
static void expect_run(int rc, const char *api) {
    if (g_null_data && rc == 161001) { check_rc(rc, api, k_run_codes); return; }
    expect_rc(rc, 0, api);
}
#define EXPECT_RUN(expr) (drain(), expect_run((expr), #expr))
static const int k_meta_codes[] = {161001, 161002, 561000, 561103, 0};

static void on_alarm(int sig) {
    (void)sig;
    char buf[160];
    int n = snprintf(buf, sizeof buf, "HANG: seed %llu case %ld (%s) did not finish in time\n",
                     (unsigned long long)g_seed, g_case, g_where);
    if (n > 0) { ssize_t w = write(1, buf, (size_t)n); (void)w; }
    _exit(2);
}

/* ------------------------------------------------------------------ per-case resources */
#define MAXRES 256
typedef struct { void *p; size_t size; } dbuf;
static dbuf g_bufs[MAXRES];
static int g_nbufs;
static aclTensor *g_tensors[MAXRES];
static int g_ntensors;
static void *g_arrays[MAXRES]; /* int arrays */
static int g_narrays;
static void *g_barrays[MAXRES];
static int g_nbarrays;
static aclFloatArray *g_farrays[MAXRES];
static int g_nfarrays;
static aclScalar *g_scalars[MAXRES];
static int g_nscalars;
static aclTensorList *g_lists[MAXRES]; /* lists (and scalar lists) are destroyed first: they own their elements */
static int g_nlists;
static aclScalarList *g_slists[MAXRES];
static int g_nslists;
static void *g_hostreg[8];
static int g_nhostreg;
static aclrtStream g_stream, g_dead_stream;
static void *g_last_data;     /* the previous tensor's data, for aliasing */
static char g_stack_junk[256]; /* "not device memory" (static, but no allocation knows it) */

static void *dev_alloc(size_t bytes) {
    void *p = NULL;
    if (bytes == 0) bytes = 4;
    if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) != 0 || g_nbufs >= MAXRES) {
        drain();
        if (p) aclrtFree(p);
        return NULL;
    }
    g_bufs[g_nbufs++] = (dbuf){p, bytes};
    return p;
}

static void free_case_resources(void) {
    g_null_data = false;
    for (int i = 0; i < g_nlists; i++) aclDestroyTensorList(g_lists[i]);
    for (int i = 0; i < g_nslists; i++) aclDestroyScalarList(g_slists[i]);
    for (int i = 0; i < g_nscalars; i++) aclDestroyScalar(g_scalars[i]);
    for (int i = 0; i < g_nfarrays; i++) aclDestroyFloatArray(g_farrays[i]);
    g_nlists = g_nslists = g_nscalars = g_nfarrays = 0;
    for (int i = 0; i < g_ntensors; i++) aclDestroyTensor(g_tensors[i]); /* destroyed ones just report */
    for (int i = 0; i < g_narrays; i++) aclDestroyIntArray(g_arrays[i]);
    for (int i = 0; i < g_nbarrays; i++) aclDestroyBoolArray(g_barrays[i]);
    aclrtSynchronizeDevice(); /* the case's queued work is finished before its memory goes (stream checker) */
    for (int i = 0; i < g_nbufs; i++) if (g_bufs[i].p) aclrtFree(g_bufs[i].p);
    for (int i = 0; i < g_nhostreg; i++) { aclrtHostUnregister(g_hostreg[i]); free(g_hostreg[i]); }
    g_ntensors = g_narrays = g_nbarrays = g_nbufs = g_nhostreg = 0;
    g_last_data = NULL;
    drain();
}

static void free_all_buffers(void) {
    aclrtSynchronizeDevice();
    for (int i = 0; i < g_nbufs; i++) {
        if (g_bufs[i].p) { aclrtFree(g_bufs[i].p); g_bufs[i].p = NULL; }
    }
    drain();
}

/* ------------------------------------------------------------------ tensors */
enum { FILL_FLOAT, FILL_GRID, FILL_SHAPES, FILL_STARTS };
typedef struct {
    int ndim;
    int64_t dims[12];
    aclDataType dt;
    aclFormat fmt;
    int fill;
    int64_t aux[32]; /* FILL_SHAPES: (H, W) per level; FILL_STARTS: starts */
} tdesc;

static size_t dtype_bytes(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT: case ACL_INT32: case ACL_UINT32: return 4;
    case ACL_FLOAT16: case ACL_BF16: case ACL_INT16: case ACL_UINT16: return 2;
    case ACL_DOUBLE: case ACL_INT64: case ACL_UINT64: case ACL_COMPLEX64: return 8;
    case ACL_INT8: case ACL_UINT8: case ACL_BOOL: return 1;
    case ACL_COMPLEX128: return 16;
    default: return 4; /* buffer sizing only; the library decides what the dtype really is */
    }
}

static float interesting_float(int fill) {
    if (chance(0.02)) return NAN;
    if (chance(0.02)) return chance(0.5) ? INFINITY : -INFINITY;
    if (fill == FILL_GRID && chance(0.03)) return (float)PICK(((double[]){1e30, -1e30, 3e9, -3e9, 1e6, 65504.0}));
    if (fill == FILL_GRID) return (float)runif(-1.3, 1.3);
    return (float)runif(-2.0, 2.0);
}

static void store_elem(char *p, aclDataType dt, double v) {
    switch (dt) {
    case ACL_FLOAT: { float f = (float)v; memcpy(p, &f, 4); break; }
    case ACL_DOUBLE: memcpy(p, &v, 8); break;
    case ACL_FLOAT16: { aclFloat16 h = aclFloatToFloat16((float)v); memcpy(p, &h, 2); break; }
    case ACL_BF16: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); uint16_t b = (uint16_t)(u >> 16); memcpy(p, &b, 2); break; }
    case ACL_INT32: { int32_t i = isfinite(v) ? (int32_t)fmax(fmin(v, 2e9), -2e9) : 0; memcpy(p, &i, 4); break; }
    case ACL_INT64: { int64_t i = isfinite(v) ? (int64_t)fmax(fmin(v, 9e18), -9e18) : 0; memcpy(p, &i, 8); break; }
    case ACL_INT8: case ACL_UINT8: { int8_t i = isfinite(v) ? (int8_t)(int)fmax(fmin(v, 100), -100) : 0; memcpy(p, &i, 1); break; }
    case ACL_BOOL: { uint8_t b = chance(0.97) ? (uint8_t)(v > 0) : (uint8_t)rnd(); memcpy(p, &b, 1); break; }
    case ACL_INT16: { int16_t i = isfinite(v) ? (int16_t)fmax(fmin(v, 3e4), -3e4) : 0; memcpy(p, &i, 2); break; }
    case ACL_COMPLEX64: { float f[2] = {(float)v, (float)-v}; memcpy(p, f, 8); break; }
    case ACL_COMPLEX128: { double f[2] = {v, -v}; memcpy(p, f, 16); break; }
    default: { uint32_t u = (uint32_t)rnd(); size_t n = dtype_bytes(dt); memcpy(p, &u, n < 4 ? n : 4); break; }
    }
}

/* Fills `count` contiguous elements with the role's content (or hostile content). */
static void fill_buffer(void *buf, size_t bytes, const tdesc *d, bool hostile) {
    size_t es = dtype_bytes(d->dt), n = bytes / es;
    char *p = buf;
    for (size_t i = 0; i < n; i++) {
        double v;
        if (hostile) v = chance(0.5) ? (double)(int64_t)rnd() : (double)rint_in(-70000, 70000);
        else if (d->fill == FILL_SHAPES) v = (double)d->aux[i % 32];
        else if (d->fill == FILL_STARTS) v = (double)d->aux[i % 32];
        else v = interesting_float(d->fill);
        store_elem(p + i * es, d->dt, v);
    }
}

static const int64_t k_bad_dims[] = {-1, -7, 0, 1, 3, 100, 1LL << 31, 1LL << 40, 1LL << 62, INT64_MAX, INT64_MIN};
static const int k_dtypes_any[] = {-1, 0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17, 27, 28, 29, 33, 40, 100,
                                   0x7fffffff, -0x7fffffff};
static const int k_formats_any[] = {-1, 0, 1, 2, 3, 4, 29, 30, 47, 50, 100, 255, 0x7fffffff, -12345};

enum { M_NULL, M_DESTROYED, M_FOREIGN, M_DTYPE, M_FORMAT, M_DIM, M_RANK, M_STRIDE, M_BADSTRIDE, M_OFFSET, M_DATA,
       M_STORAGE, M_ALIAS, M_HUGE, M_CONTENT, M_COUNT };

static aclTensor *track_tensor(aclTensor *t) {
    if (t && g_ntensors < MAXRES) g_tensors[g_ntensors++] = t;
    return t;
}

/* A tensor for descriptor d; with probability pmut one or two hostile mutations. */
static aclTensor *make_tensor(tdesc d, double pmut) {
    int muts[2] = {-1, -1};
    if (chance(pmut)) {
        muts[0] = (int)(rnd() % M_COUNT);
        if (chance(0.3)) muts[1] = (int)(rnd() % M_COUNT);
    }
    bool has[M_COUNT] = {false};
    for (int i = 0; i < 2; i++) if (muts[i] >= 0) has[muts[i]] = true;

    if (has[M_NULL]) return NULL;
    if (has[M_FOREIGN]) {
        int k = (int)(rnd() % 3);
        if (k == 0) {
            int64_t v[2] = {1, 2};
            aclIntArray *a = aclCreateIntArray(v, 2);
            if (a && g_narrays < MAXRES) g_arrays[g_narrays++] = a;
            return (aclTensor *)a;
        }
        if (k == 1) return (aclTensor *)g_stream;
        return (aclTensor *)g_dead_stream;
    }
    if (has[M_DTYPE]) d.dt = (aclDataType)PICK(k_dtypes_any);
    if (has[M_FORMAT]) d.fmt = (aclFormat)PICK(k_formats_any);
    if (has[M_RANK]) {
        int nd = (int)rint_in(0, 10);
        for (int i = d.ndim; i < nd; i++) d.dims[i] = rint_in(1, 3);
        d.ndim = nd;
    }
    if (has[M_DIM] && d.ndim > 0) d.dims[rnd() % (uint64_t)d.ndim] = PICK(k_bad_dims);
    if (has[M_HUGE] && d.ndim >= 2) {
        d.dims[0] = 1LL << 31;
        d.dims[1] = 1LL << 33; /* 2^64 elements: any byte size overflows int64 */
    }

    /* contiguous strides of the (possibly mutated) view; element count with overflow check */
    int64_t strides[12], numel = 1;
    bool overflow = false;
    for (int i = d.ndim - 1; i >= 0; i--) {
        strides[i] = numel;
        int64_t dd = d.dims[i] > 0 ? d.dims[i] : (d.dims[i] == 0 ? 0 : 1);
        if (__builtin_mul_overflow(numel, dd > 0 ? dd : 1, &numel)) { overflow = true; numel = 1; }
        if (dd == 0) numel = 0;
    }
    for (int i = 0; i < d.ndim; i++) if (d.dims[i] == 0) numel = 0;
    int64_t *sp = NULL;
    size_t es = dtype_bytes(d.dt);
    size_t bytes = overflow || numel > (1 << 18) ? 256 : (size_t)(numel ? numel : 1) * es;
    int64_t offset = 0;
    bool small_dims = true;
    for (int i = 0; i < d.ndim; i++) small_dims &= d.dims[i] >= 1 && d.dims[i] <= (1 << 16);
    if (has[M_STRIDE] && d.ndim > 0 && small_dims && !overflow && numel > 0 && numel <= (1 << 16)) {
        /* a valid non-contiguous view: the last dim strided by 2 after a one-element offset, or the first two
         * dims' strides swapped (a transposed view) */
        if (chance(0.5) || d.ndim < 2) {
            int64_t s = 2;
            for (int i = d.ndim - 1; i >= 0; i--) { strides[i] = s; s *= d.dims[i] > 0 ? d.dims[i] : 1; }
            offset = 1;
        } else {
            int64_t t = strides[0]; strides[0] = strides[1]; strides[1] = t;
        }
        int64_t hi = offset;
        for (int i = 0; i < d.ndim; i++) hi += (d.dims[i] - 1) * strides[i];
        bytes = (size_t)(hi + 1) * es;
        sp = strides;
    }
    void *data = dev_alloc(bytes);
    if (data) fill_buffer(data, bytes, &d, has[M_CONTENT]);
    if (has[M_DATA]) {
        int k = (int)(rnd() % 7);
        if (k == 0) { data = NULL; g_null_data = true; } /* allowed at phase 1, refused (161001) at run time */
        else if (k == 1) data = g_stack_junk;
        else if (k == 2 && data) data = (char *)data + bytes - 1; /* the view runs past the end */
        else if (k == 3) { /* a freed device buffer */
            void *p = NULL;
            if (aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST) == 0) { aclrtFree(p); data = p; }
        } else if (k == 4 && g_nhostreg < 8) { /* registered host memory: valid device memory */
            void *h = aligned_alloc(64, (bytes + 63) / 64 * 64), *dp = NULL;
            if (h && aclrtHostRegister(h, bytes, ACL_HOST_REGISTER_MAPPED, &dp) == 0) {
                g_hostreg[g_nhostreg++] = h;
                fill_buffer(h, bytes, &d, false);
                data = dp;
            } else free(h);
        } else if (k == 5) {
            data = (char *)data - 64; /* before the allocation */
        } else if (data) {
            data = (char *)data + es; /* misaligned by one element: the view's end leaves the buffer */
        }
        drain();
    }
    if (has[M_ALIAS] && g_last_data) data = g_last_data;
    g_last_data = data;

    int64_t storage[12];
    uint64_t nstorage = (uint64_t)d.ndim;
    memcpy(storage, d.dims, sizeof storage);
    const int64_t *stp = storage;
    if (has[M_STORAGE]) {
        int k = (int)(rnd() % 3);
        if (k == 0) { stp = NULL; nstorage = 0; }
        else if (k == 1) { storage[0] = -5; nstorage = 1; }
        else nstorage = 100; /* more than the 64 dims aclCreateTensor takes -> NULL */
        if (nstorage > 12) stp = storage; /* reads only 12 entries? no: the library refuses before reading */
    }
    drain();
    aclTensor *t = aclCreateTensor(d.dims, (uint64_t)d.ndim, d.dt, sp, offset, d.fmt, stp, nstorage, data);
    const char *m = aclGetRecentErrMsg();
    if (t == NULL && nstorage <= 64 && d.ndim <= 64) violation("aclCreateTensor returned NULL for a well-formed call");
    if (t == NULL && (m == NULL || !m[0])) violation("aclCreateTensor returned NULL without a message");
    track_tensor(t);
    if (has[M_DESTROYED] && t) {
        aclDestroyTensor(t);
        drain();
    }
    return t;
}

static aclIntArray *make_int_array(const int64_t *v, uint64_t n, double pmut) {
    int64_t buf[8];
    memcpy(buf, v, n * sizeof *v);
    if (chance(pmut)) {
        switch (rnd() % 6) {
        case 0: return NULL;
        case 1: { aclIntArray *a = aclCreateIntArray(buf, n); aclDestroyIntArray(a); drain(); return a; }
        case 2: { bool b[2] = {true, false}; aclBoolArray *a = aclCreateBoolArray(b, 2);
                  if (a && g_nbarrays < MAXRES) g_barrays[g_nbarrays++] = a;
                  return (aclIntArray *)a; }
        case 3: n = (uint64_t)rint_in(0, 5); for (uint64_t i = 0; i < n; i++) buf[i] = rint_in(-3, 9); break;
        default: if (n) buf[rnd() % n] = PICK(k_bad_dims); break;
        }
    }
    aclIntArray *a = aclCreateIntArray(n ? buf : NULL, n);
    if (a && g_narrays < MAXRES) g_arrays[g_narrays++] = a;
    return a;
}

static int64_t attr_i64(int64_t valid, double pmut) {
    if (!chance(pmut)) return valid;
    return PICK(((int64_t[]){-1, 0, 1, 2, 3, 4, 5, 255, 256, -256, 1LL << 31, INT64_MAX, INT64_MIN}));
}
static double attr_f64(double valid, double pmut) {
    if (!chance(pmut)) return valid;
    return PICK(((double[]){0.0, -1.0, 0.5, 2.0, 1e-300, 1e300, NAN, INFINITY, -INFINITY, 1e-8, 3.0}));
}

/* ------------------------------------------------------------------ the ops */
typedef aclnnStatus (*run_fn)(void *, uint64_t, aclOpExecutor *, aclrtStream);
enum { OP_AVG, OP_AVGB, OP_GS, OP_GSB, OP_MSDA, OP_MSDAG, OP_UP, OP_UPB, N_OPS };
static const char *const k_op_names[N_OPS] = {"AvgPool2d", "AvgPool2dBackward", "GridSampler2D",
                                              "GridSampler2DBackward", "MultiScaleDeformableAttnFunction",
                                              "MultiScaleDeformableAttentionGrad", "UpsampleNearestExact2d",
                                              "UpsampleNearestExact2dBackward"};
static const run_fn k_runs[N_OPS] = {aclnnAvgPool2d, aclnnAvgPool2dBackward, aclnnGridSampler2D,
                                     aclnnGridSampler2DBackward, aclnnMultiScaleDeformableAttnFunction,
                                     aclnnMultiScaleDeformableAttentionGrad, aclnnUpsampleNearestExact2d,
                                     aclnnUpsampleNearestExact2dBackward};
typedef struct {
    const char *name;
    const char *kinds;
    aclnnStatus (*ws)(void *const *a, const int64_t *n, const double *f, uint64_t *w, aclOpExecutor **e);
    run_fn run;
} fz_table_op;
#include "fuzz_table.inc"
#define N_TABLE ((int)(sizeof k_table_ops / sizeof k_table_ops[0]) - 1)
#define N_ALL (N_OPS + N_TABLE)
/* per op: cases, successful first phases, second phases; the runtime sequences in the last slot */
static long g_cases[N_ALL + 1], g_ok1[N_ALL + 1], g_runs[N_ALL + 1];
static double g_secs[N_ALL + 1]; /* wall time spent in each target's cases (the slowest are printed) */
#define RT_SLOT N_ALL
static const char *op_name(int op) { return op < N_OPS ? k_op_names[op] : k_table_ops[op - N_OPS].name; }
static run_fn op_run(int op) { return op < N_OPS ? k_runs[op] : k_table_ops[op - N_OPS].run; }

static aclDataType float_dtype(void) {
    return (aclDataType)PICK(((int[]){ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_FLOAT, ACL_DOUBLE}));
}

static tdesc T(aclDataType dt, aclFormat fmt, int fill, int nd, ...) {
    tdesc d;
    memset(&d, 0, sizeof d);
    d.dt = dt; d.fmt = fmt; d.fill = fill; d.ndim = nd;
    va_list ap;
    va_start(ap, nd);
    for (int i = 0; i < nd; i++) d.dims[i] = va_arg(ap, int64_t);
    va_end(ap);
    return d;
}
#define D(x) ((int64_t)(x))

/* Phase 1 of a table op from its argument kinds alone: one shape and dtype shared by most tensors (so elementwise ops
 * usually validate and run), random scalars, small int arrays and attributes, then make_tensor's mutations. */
static int table_phase1(const fz_table_op *t, double pm, uint64_t *ws, aclOpExecutor **ex) {
    static const int dts[] = {ACL_FLOAT, ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT32, ACL_INT64, ACL_INT8,
                              ACL_UINT8, ACL_INT16, ACL_BOOL, ACL_COMPLEX64};
    aclDataType dt = (aclDataType)PICK(dts);
    int nd = (int)rint_in(0, 4);
    int64_t dims[4];
    for (int i = 0; i < nd; i++) dims[i] = chance(0.05) ? 0 : rint_in(1, 5);
    enum { FZ_MAX_ARGS = 64 }; /* FusedInferAttentionScoreV2 has 39 first-phase arguments */
    void *a[FZ_MAX_ARGS] = {0};
    int64_t n[FZ_MAX_ARGS] = {0};
    double f[FZ_MAX_ARGS] = {0};
    static int64_t outint[FZ_MAX_ARGS];
    static bool outbool[FZ_MAX_ARGS];
    static char strs[][8] = {"mean", "sum", "none", "left", "right", "", "zz", "avg", "max", "iou", "iof"};
    size_t nk = strlen(t->kinds);
    if (nk > FZ_MAX_ARGS) {
        fprintf(stderr, "fuzz: %s has %zu arguments, more than the table harness holds\n", t->name, nk);
        exit(2);
    }
    for (size_t k = 0; k < nk; k++) {
        char c = t->kinds[k];
        tdesc d;
        memset(&d, 0, sizeof d);
        d.dt = chance(0.8) ? dt : (aclDataType)PICK(dts);
        d.fmt = ACL_FORMAT_ND;
        d.fill = FILL_FLOAT;
        d.ndim = chance(0.85) ? nd : (int)rint_in(0, 4);
        for (int i = 0; i < d.ndim; i++) d.dims[i] = i < nd && d.ndim == nd ? dims[i] : rint_in(1, 4);
        if (chance(0.1) && d.ndim > 0) d.dims[rnd() % (uint64_t)d.ndim] = 1; /* broadcast */
        switch (c) {
        case 't': case 'o': a[k] = make_tensor(d, pm); break;
        case 's': {
            if (chance(pm * 0.3)) break;
            double v = chance(0.5) ? (double)rint_in(-3, 3) : runif(-3, 3);
            union { double d; float f; int64_t i; int32_t i32; uint8_t b; char raw[16]; } u;
            memset(&u, 0, sizeof u);
            aclDataType sdt = (aclDataType)PICK(((int[]){ACL_FLOAT, ACL_DOUBLE, ACL_INT64, ACL_INT32, ACL_BOOL}));
            if (sdt == ACL_FLOAT) u.f = (float)v;
            else if (sdt == ACL_DOUBLE) u.d = v;
            else if (sdt == ACL_INT64) u.i = (int64_t)v;
            else if (sdt == ACL_INT32) u.i32 = (int32_t)v;
            else u.b = v > 0;
            aclScalar *sc = aclCreateScalar(u.raw, sdt);
            if (sc && g_nscalars < MAXRES) g_scalars[g_nscalars++] = sc;
            a[k] = sc;
            break;
        }
        case 'i': {
            int64_t v[8];
            uint64_t len = (uint64_t)rint_in(0, 4);
            for (uint64_t i = 0; i < len; i++) v[i] = rint_in(-3, 4);
            a[k] = make_int_array(v, len, pm);
            break;
        }
        case 'f': case 'b': {
            float fv[4];
            bool bv[4];
            uint64_t len = (uint64_t)rint_in(0, 4);
            for (uint64_t i = 0; i < len; i++) { fv[i] = (float)runif(-2, 2); bv[i] = chance(0.5); }
            if (c == 'f') {
                aclFloatArray *fa = aclCreateFloatArray(len ? fv : NULL, len);
                if (fa && g_nfarrays < MAXRES) g_farrays[g_nfarrays++] = fa;
                a[k] = fa;
            } else {
                aclBoolArray *ba = aclCreateBoolArray(len ? bv : NULL, len);
                if (ba && g_nbarrays < MAXRES) g_barrays[g_nbarrays++] = ba;
                a[k] = ba;
            }
            break;
        }
        case 'L': case 'O': {
            aclTensor *ts[4];
            uint64_t len = (uint64_t)rint_in(chance(pm) ? 0 : 1, 3);
            for (uint64_t i = 0; i < len; i++) ts[i] = make_tensor(d, pm * 0.5);
            aclTensorList *l = aclCreateTensorList(len ? (const aclTensor *const *)ts : NULL, len);
            if (l && g_nlists < MAXRES) g_lists[g_nlists++] = l;
            a[k] = l;
            break;
        }
        case 'S': {
            aclScalar *ss[3];
            uint64_t len = (uint64_t)rint_in(0, 3);
            for (uint64_t i = 0; i < len; i++) {
                float v = (float)runif(-2, 2);
                ss[i] = aclCreateScalar(&v, ACL_FLOAT);
                if (ss[i] && g_nscalars < MAXRES) g_scalars[g_nscalars++] = ss[i];
            }
            aclScalarList *l = aclCreateScalarList(len ? (const aclScalar *const *)ss : NULL, len);
            if (l && g_nslists < MAXRES) g_slists[g_nslists++] = l;
            a[k] = l;
            break;
        }
        case 'n': n[k] = attr_i64(rint_in(-2, 4), pm); break;
        case 'B': n[k] = chance(0.5); break;
        case 'y': n[k] = chance(pm) ? PICK(k_dtypes_any) : PICK(dts); break;
        case 'd': f[k] = attr_f64(runif(-2, 2), pm); break;
        case 'c': a[k] = chance(pm * 0.2) ? NULL : strs[rnd() % (sizeof strs / sizeof strs[0])]; break;
        case 'p': a[k] = chance(0.5) ? (void *)&outint[k] : (void *)&outbool[k]; break;
        default: break;
        }
    }
    return t->ws(a, n, f, chance(0.02) ? NULL : ws, chance(0.02) ? NULL : ex);
}

/* Phase 1 of op `op` with (mostly valid, sometimes hostile) arguments. */
static int phase1(int op, double pm, uint64_t *ws, aclOpExecutor **ex) {
    if (op >= N_OPS) return table_phase1(&k_table_ops[op - N_OPS], pm, ws, ex);
    uint64_t *wsp = chance(0.02) ? NULL : ws;
    aclOpExecutor **exp = chance(0.02) ? NULL : ex;
    aclDataType dt = float_dtype();
    int64_t n = rint_in(0, 2) ? 1 : rint_in(0, 2), c = rint_in(1, 3);
    switch (op) {
    case OP_AVG: case OP_AVGB: {
        int64_t h = rint_in(1, 9), w = rint_in(1, 9), k = rint_in(1, 4), s = rint_in(1, 3), p = rint_in(0, k / 2);
        bool ceil = chance(0.3), cip = chance(0.5);
        int64_t div = chance(0.2) ? rint_in(-3, 5) : 0;
        int64_t oh = ceil ? (h + 2 * p - k + s - 1) / s + 1 : (h + 2 * p - k) / s + 1;
        int64_t ow = ceil ? (w + 2 * p - k + s - 1) / s + 1 : (w + 2 * p - k) / s + 1;
        if (ceil && (oh - 1) * s >= h + p) oh--;
        if (ceil && (ow - 1) * s >= w + p) ow--;
        if (oh < 1) oh = 1;
        if (ow < 1) ow = 1;
        bool r3 = chance(0.2);
        aclFormat f = r3 ? ACL_FORMAT_NCL : ACL_FORMAT_NCHW;
        tdesc xd = r3 ? T(dt, f, FILL_FLOAT, 3, c, h, w) : T(dt, f, FILL_FLOAT, 4, n, c, h, w);
        tdesc yd = r3 ? T(dt, f, FILL_FLOAT, 3, c, oh, ow) : T(dt, f, FILL_FLOAT, 4, n, c, oh, ow);
        int64_t kk[2] = {k, k}, ss[2] = {s, s}, pp[2] = {p, p};
        int8_t cube = (int8_t)(chance(pm) ? PICK(((int[]){-1, 1, 2, 3, 4, 5, 127, -128})) : 0);
        if (op == OP_AVG) {
            aclTensor *x = make_tensor(xd, pm), *y = make_tensor(yd, pm);
            return aclnnAvgPool2dGetWorkspaceSize(x, make_int_array(kk, rint_in(1, 2), pm),
                                                  make_int_array(ss, rint_in(0, 2), pm), make_int_array(pp, 2, pm),
                                                  ceil, cip, attr_i64(div, pm), cube, y, wsp, exp);
        }
        aclTensor *g = make_tensor(yd, pm), *x = make_tensor(xd, pm), *gi = make_tensor(xd, pm);
        return aclnnAvgPool2dBackwardGetWorkspaceSize(g, x, make_int_array(kk, 2, pm), make_int_array(ss, 2, pm),
                                                      make_int_array(pp, 2, pm), ceil, cip, attr_i64(div, pm), cube,
                                                      gi, wsp, exp);
    }
    case OP_GS: case OP_GSB: {
        int64_t h = rint_in(1, 6), w = rint_in(1, 6), gh = rint_in(1, 5), gw = rint_in(1, 5);
        int64_t mode = attr_i64(rint_in(0, 2), pm), pad = attr_i64(rint_in(0, 2), pm);
        bool align = chance(0.5);
        tdesc xd = T(dt, ACL_FORMAT_ND, FILL_FLOAT, 4, n, c, h, w);
        tdesc gd = T(dt, ACL_FORMAT_ND, FILL_GRID, 4, n, gh, gw, D(2));
        tdesc yd = T(dt, ACL_FORMAT_ND, FILL_FLOAT, 4, n, c, gh, gw);
        if (op == OP_GS) {
            aclTensor *x = make_tensor(xd, pm), *g = make_tensor(gd, pm), *y = make_tensor(yd, pm);
            return aclnnGridSampler2DGetWorkspaceSize(x, g, mode, pad, align, y, wsp, exp);
        }
        aclTensor *go = make_tensor(yd, pm), *x = make_tensor(xd, pm), *g = make_tensor(gd, pm);
        bool mask[3] = {chance(0.8), chance(0.8), true};
        uint64_t mlen = chance(pm) ? (uint64_t)rint_in(0, 3) : 2;
        aclBoolArray *m = chance(pm * 0.3) ? NULL : aclCreateBoolArray(mlen ? mask : NULL, mlen);
        if (m && g_nbarrays < MAXRES) g_barrays[g_nbarrays++] = m;
        aclTensor *gi = make_tensor(xd, pm), *gg = make_tensor(gd, pm);
        return aclnnGridSampler2DBackwardGetWorkspaceSize(go, x, g, mode, pad, align, m, gi, gg, wsp, exp);
    }
    case OP_MSDA: case OP_MSDAG: {
        int64_t nh = rint_in(1, 2), C = 8 * rint_in(1, 2), nl = rint_in(1, 3), np = rint_in(1, 2), nq = 32;
        int64_t bs = n ? n : (chance(0.5) ? 0 : 1);
        aclDataType it = chance(0.5) ? ACL_INT64 : ACL_INT32;
        tdesc sd = T(it, ACL_FORMAT_ND, FILL_SHAPES, 2, nl, D(2));
        tdesc ld = T(it, ACL_FORMAT_ND, FILL_STARTS, 1, nl);
        int64_t K = 0;
        for (int64_t l = 0; l < nl; l++) {
            int64_t hh = rint_in(1, 3), ww = rint_in(1, 3);
            sd.aux[2 * l] = hh; sd.aux[2 * l + 1] = ww;
            ld.aux[l] = K;
            K += hh * ww;
        }
        tdesc vd = T(dt, ACL_FORMAT_ND, FILL_FLOAT, 4, bs, K, nh, C);
        tdesc locd = T(dt, ACL_FORMAT_ND, FILL_GRID, 6, bs, nq, nh, nl, np, D(2));
        tdesc ad = T(dt, ACL_FORMAT_ND, FILL_FLOAT, 5, bs, nq, nh, nl, np);
        tdesc od = chance(0.7) ? T(dt, ACL_FORMAT_ND, FILL_FLOAT, 3, bs, nq, nh * C)
                               : T(dt, ACL_FORMAT_ND, FILL_FLOAT, 4, bs, nq, nh, C);
        aclTensor *v = make_tensor(vd, pm), *s = make_tensor(sd, pm), *l = make_tensor(ld, pm),
                  *loc = make_tensor(locd, pm), *a = make_tensor(ad, pm);
        if (op == OP_MSDA) {
            if (od.ndim == 4) od = T(dt, ACL_FORMAT_ND, FILL_FLOAT, 3, bs, nq, nh * C);
            aclTensor *o = make_tensor(od, pm);
            return aclnnMultiScaleDeformableAttnFunctionGetWorkspaceSize(v, s, l, loc, a, o, wsp, exp);
        }
        aclTensor *go = make_tensor(od, pm), *gv = make_tensor(vd, pm), *gl = make_tensor(locd, pm),
                  *ga = make_tensor(ad, pm);
        return aclnnMultiScaleDeformableAttentionGradGetWorkspaceSize(v, s, l, loc, a, go, gv, gl, ga, wsp, exp);
    }
    default: { /* OP_UP, OP_UPB */
        int64_t h = rint_in(1, 5), w = rint_in(1, 5), oh = rint_in(1, 9), ow = rint_in(1, 9);
        bool nhwc = op == OP_UP && chance(0.2);
        aclFormat f = nhwc ? ACL_FORMAT_NHWC : (chance(0.5) ? ACL_FORMAT_NCHW : ACL_FORMAT_ND);
        tdesc xd = nhwc ? T(dt, f, FILL_FLOAT, 4, n, h, w, c) : T(dt, f, FILL_FLOAT, 4, n, c, h, w);
        tdesc yd = nhwc ? T(dt, f, FILL_FLOAT, 4, n, oh, ow, c) : T(dt, f, FILL_FLOAT, 4, n, c, oh, ow);
        int64_t os[2] = {oh, ow}, is[4] = {n, c, h, w};
        double sh = attr_f64(chance(0.5) ? 0.0 : (double)oh / (double)h, pm);
        double sw = attr_f64(chance(0.5) ? 0.0 : (double)ow / (double)w, pm);
        if (op == OP_UP) {
            aclTensor *x = make_tensor(xd, pm), *y = make_tensor(yd, pm);
            return aclnnUpsampleNearestExact2dGetWorkspaceSize(x, make_int_array(os, 2, pm), sh, sw, y, wsp, exp);
        }
        aclTensor *g = make_tensor(yd, pm), *gi = make_tensor(xd, pm);
        return aclnnUpsampleNearestExact2dBackwardGetWorkspaceSize(g, make_int_array(os, 2, pm),
                                                                   make_int_array(is, 4, pm), sh, sw, gi, wsp, exp);
    }
    }
}

/* Half of the op cases go to the seed ops (hand-written cases), half to the table ops. */
/* -o NAME[,NAME...]: fuzz only these ops (exact names without the aclnn prefix); no runtime sequences */
static int g_only_ops[4096], g_n_only;

static int pick_op(void) {
    if (g_n_only) return g_only_ops[rnd() % (uint64_t)g_n_only];
    if (N_TABLE == 0 || chance(0.5)) return (int)(rnd() % N_OPS);
    return N_OPS + (int)(rnd() % (uint64_t)N_TABLE);
}

static int select_ops(char *list) {
    for (char *tok = strtok(list, ","); tok; tok = strtok(NULL, ",")) {
        int found = 0;
        for (int op = 0; op < N_OPS + N_TABLE && g_n_only < 4096; op++)
            if (strcmp(op_name(op), tok) == 0) { g_only_ops[g_n_only++] = op; found = 1; }
        if (!found) { fprintf(stderr, "fuzz: no op named %s\n", tok); return 0; }
    }
    return 1;
}

/* One op case: phase 1, then a random second-phase scenario. */
static void op_case(int op) {
    g_where = op_name(op);
    double pm = chance(0.15) ? 0.0 : runif(0.05, 0.5);
    uint64_t ws = 12345;
    aclOpExecutor *ex = NULL;
    aclrtSynchronizeDevice(); /* earlier cases' queued work is finished: this case's runs race nothing */
    drain();
    int rc = check_rc(phase1(op, pm, &ws, &ex), "GetWorkspaceSize", k_op_codes);
    g_cases[op]++;
    if (rc != 0) {
        if (ex != NULL) violation("a failed first phase (%d) wrote *executor", rc);
        return;
    }
    g_ok1[op]++;
    if (ex == NULL) { violation("a successful first phase returned no executor"); return; }
    if (ws != 0) violation("workspace size %llu (the emulator needs none)", (unsigned long long)ws);
    run_fn run = op_run(op);
    int other = (op + 1 + (int)(rnd() % (N_ALL - 1))) % N_ALL;
    switch (rnd() % 10) {
    case 0: /* run twice: the second call sees a consumed executor */
        EXPECT_RUN(run(NULL, 0, ex, g_stream));
        EXPECT(run(NULL, 0, ex, g_stream), 161002);
        break;
    case 1: /* another op's second phase: refused, the executor survives */
        EXPECT(op_run(other)(NULL, 0, ex, g_stream), 161002);
        EXPECT_RUN(run(NULL, 0, ex, NULL));
        break;
    case 2: /* workspaceSize > 0 with a NULL workspace: 161001 and the executor is gone */
        EXPECT(run(NULL, 64, ex, g_stream), 161001);
        EXPECT(run(NULL, 0, ex, g_stream), 161002);
        break;
    case 3: /* a destroyed stream */
        EXPECT(run(NULL, 0, ex, g_dead_stream), 361001);
        break;
    case 4: { /* repeatable: run, retarget, run, destroy twice, run */
        EXPECT(aclSetAclOpExecutorRepeatable(ex), 0);
        EXPECT_RUN(run(NULL, 0, ex, g_stream));
        aclTensor *t = g_ntensors ? g_tensors[rnd() % (uint64_t)g_ntensors] : NULL;
        void *addr = NULL;
        if (t) aclGetRawTensorAddr(t, &addr);
        drain();
        size_t idx = (size_t)rint_in(0, 12);
        int k = (int)(rnd() % 3);
        int r = k == 0 ? aclSetInputTensorAddr(ex, idx, t, addr)
              : k == 1 ? aclSetOutputTensorAddr(ex, idx, t, addr) : aclSetTensorAddr(ex, idx, t, addr);
        check_rc(r, "aclSet*TensorAddr", k_meta_codes);
        CALL(run(NULL, 0, ex, g_stream), k_run_codes);
        EXPECT(aclDestroyAclOpExecutor(ex), 0);
        EXPECT(aclDestroyAclOpExecutor(ex), 561000);
        EXPECT(run(NULL, 0, ex, g_stream), 161002);
        break;
    }
    case 5: /* destroyed without running */
        EXPECT(aclDestroyAclOpExecutor(ex), 0);
        EXPECT(run(NULL, 0, ex, g_stream), 161002);
        break;
    case 6: /* the memory is released between the phases: reported, never used */
        free_all_buffers();
        CALL(run(NULL, 0, ex, g_stream), g_null_data ? ((const int[]){161001, 161002, 0}) : ((const int[]){161002, 0}));
        break;
    case 7: /* a tensor pointer passed as the executor */
        if (g_ntensors) EXPECT(run(NULL, 0, (aclOpExecutor *)g_tensors[0], g_stream), 161002);
        EXPECT_RUN(run(NULL, 0, ex, g_stream));
        break;
    default:
        EXPECT_RUN(run(NULL, 0, ex, g_stream));
        break;
    }
    g_runs[op]++;
}

/* ------------------------------------------------------------------ runtime and meta objects */
static void runtime_case(void) {
    g_where = "runtime/meta";
    g_cases[RT_SLOT]++;
    for (int step = 0; step < 12; step++) {
        switch (rnd() % 26) {
        case 0: { void *p = NULL; size_t sz = (size_t)PICK(((uint64_t[]){0, 1, 31, 32, 1000, SIZE_MAX, SIZE_MAX - 100, SIZE_MAX - 127}));
                  int r = CALL(aclrtMalloc(chance(0.1) ? NULL : &p, sz, ACL_MEM_MALLOC_HUGE_FIRST), NULL);
                  if (r == 0 && p && g_nbufs < MAXRES) g_bufs[g_nbufs++] = (dbuf){p, sz}; else if (r == 0) aclrtFree(p);
                  break; }
        case 1: { if (!g_nbufs) break; dbuf *b = &g_bufs[rnd() % (uint64_t)g_nbufs];
                  if (!b->p) break;
                  /* a queued task may use it: the stream checker refuses the free (507004) until a sync */
                  if (CALL(aclrtFree(b->p), ((const int[]){507004, 0})) == 507004) {
                      EXPECT(aclrtSynchronizeDevice(), 0); EXPECT(aclrtFree(b->p), 0); }
                  EXPECT(aclrtFree(b->p), 107000); b->p = NULL; break; }
        case 2: { if (!g_nbufs || !g_bufs[0].p) break; EXPECT(aclrtFree((char *)g_bufs[0].p + 1), 107000); break; }
        case 3: EXPECT(aclrtFree(NULL), 100000); EXPECT(aclrtFree(g_stack_junk), 107000); break;
        case 4: { void *d = dev_alloc(64), *e = dev_alloc(32); if (!d || !e) break;
                  int kind = (int)rint_in(-2, 9);
                  size_t cnt = (size_t)PICK(((uint64_t[]){0, 1, 32, 64, 65, 100, SIZE_MAX}));
                  size_t dmax = (size_t)PICK(((uint64_t[]){0, 32, 64, 128, SIZE_MAX}));
                  void *src = chance(0.5) ? (void *)g_stack_junk : e, *dst = chance(0.2) ? (void *)g_stack_junk : d;
                  if (chance(0.1)) dst = NULL;
                  if (chance(0.1)) src = NULL;
                  int r = CALL(aclrtMemcpy(dst, dmax, src, cnt, (aclrtMemcpyKind)kind), NULL);
                  /* any copy beyond 256 bytes must be refused: no buffer here is that large */
                  if (r == 0 && cnt > 256) violation("aclrtMemcpy of %zu bytes accepted", cnt);
                  break; }
        case 5: { void *d = dev_alloc(64); if (!d) break;
                  size_t cnt = (size_t)PICK(((uint64_t[]){0, 1, 64, 65, 96, 97, 1000, SIZE_MAX}));
                  int r = CALL(aclrtMemset(chance(0.2) ? (void *)g_stack_junk : d, SIZE_MAX, (int)rnd(), cnt), NULL);
                  /* aclrtMalloc(64) really holds 64 + 32 bytes (SPEC 1.5); a memset may use them, not one more */
                  if (r == 0 && cnt > 96) violation("aclrtMemset of %zu bytes accepted", cnt);
                  r = CALL(aclrtMemsetAsync(d, 64, 0, 64, chance(0.3) ? g_dead_stream : g_stream), NULL);
                  break; }
        case 6: { if (g_nhostreg >= 8) break; void *h = malloc(256), *dp = NULL;
                  int r = CALL(aclrtHostRegister(h, (uint64_t)PICK(((uint64_t[]){0, 1, 256, UINT64_MAX})),
                                                 (aclrtHostRegisterType)rint_in(-1, 1), &dp), NULL);
                  if (r == 0) { EXPECT(aclrtHostRegister(h, 8, ACL_HOST_REGISTER_MAPPED, &dp), 107000);
                                g_hostreg[g_nhostreg++] = h; }
                  else free(h);
                  break; }
        case 7: EXPECT(aclrtHostUnregister(g_stack_junk), 107000); EXPECT(aclrtHostUnregister(NULL), 100000); break;
        case 8: { aclrtStream s = NULL; EXPECT(aclrtCreateStream(&s), 0); EXPECT(aclrtSynchronizeStream(s), 0);
                  EXPECT(aclrtDestroyStream(s), 0); EXPECT(aclrtDestroyStream(s), 107000);
                  EXPECT(aclrtSynchronizeStream(s), 107000); EXPECT(aclrtCreateStream(NULL), 100000);
                  CALL(aclrtSynchronizeStreamWithTimeout(g_stream, (int32_t)rint_in(-3, 3)), NULL);
                  aclrtStreamStatus st; CALL(aclrtStreamQuery(chance(0.5) ? g_dead_stream : g_stream, chance(0.2) ? NULL : &st), NULL);
                  break; }
        case 9: { aclrtEvent e = NULL, e2 = NULL; EXPECT(aclrtCreateEvent(&e), 0); EXPECT(aclrtCreateEvent(&e2), 0);
                  float ms; CALL(aclrtEventElapsedTime(&ms, e, e2), NULL);
                  EXPECT(aclrtRecordEvent(e, g_stream), 0); EXPECT(aclrtRecordEvent(e2, g_dead_stream), 107000);
                  aclrtEventRecordedStatus es; EXPECT(aclrtQueryEventStatus(e, &es), 0);
                  CALL(aclrtStreamWaitEvent(g_stream, chance(0.5) ? e : (aclrtEvent)g_stream), NULL);
                  CALL(aclrtResetEvent(e, g_stream), NULL); CALL(aclrtSynchronizeEvent(e2), NULL);
                  EXPECT(aclrtDestroyEvent(e), 0); EXPECT(aclrtDestroyEvent(e2), 0); EXPECT(aclrtDestroyEvent(e), 107000);
                  EXPECT(aclrtRecordEvent(e, g_stream), 107000); EXPECT(aclrtCreateEvent(NULL), 100000);
                  break; }
        case 10: { aclrtContext c = NULL, cur = NULL; int32_t dev = (int32_t)rint_in(-2, 2);
                   int r = CALL(aclrtCreateContext(&c, dev), NULL);
                   if (r == 0) { CALL(aclrtGetCurrentContext(&cur), NULL); EXPECT(aclrtDestroyContext(c), 0);
                                 EXPECT(aclrtDestroyContext(c), 107000); EXPECT(aclrtSetCurrentContext(c), 107000); }
                   CALL(aclrtSetDevice(0), NULL); /* back to the default context */
                   CALL(aclrtSetDevice(dev), NULL); CALL(aclrtResetDevice(dev + 5), NULL);
                   int32_t d2; uint32_t cnt; CALL(aclrtGetDevice(chance(0.2) ? NULL : &d2), NULL);
                   CALL(aclrtGetDeviceCount(chance(0.2) ? NULL : &cnt), NULL);
                   aclrtRunMode mode; CALL(aclrtGetRunMode(chance(0.2) ? NULL : &mode), NULL);
                   if (!aclrtGetSocName()) violation("aclrtGetSocName returned NULL");
                   CALL(aclrtSynchronizeDevice(), NULL);
                   break; }
        case 11: { int opt = (int)rint_in(-2, 5); int64_t v = 0;
                   CALL(aclrtSetSysParamOpt((aclSysParamOpt)opt, (int64_t)rnd()), NULL);
                   CALL(aclrtGetSysParamOpt((aclSysParamOpt)opt, chance(0.2) ? NULL : &v), NULL);
                   CALL(aclrtCtxSetSysParamOpt((aclSysParamOpt)opt, rint_in(0, 1)), NULL);
                   CALL(aclrtCtxGetSysParamOpt((aclSysParamOpt)opt, chance(0.2) ? NULL : &v), NULL);
                   aclrtSetSysParamOpt(ACL_OPT_DETERMINISTIC, 0); drain();
                   size_t fr, tot; CALL(aclrtGetMemInfo((aclrtMemAttr)rint_in(-1, 8), chance(0.1) ? NULL : &fr, &tot), NULL);
                   int32_t a, b, c2; CALL(aclrtGetVersion(&a, chance(0.2) ? NULL : &b, &c2), NULL);
                   break; }
        case 24: case 25: { /* the stream checker: a random order of queued copies/memsets/ops on two streams, events,
                   host accesses, frees and synchronisations (queued for real with PYACLNN_ASYNC=1); only 0 or 507004, and after a device synchronisation
                   every host access and free must succeed */
                   aclrtStream s2 = NULL; aclrtEvent ev = NULL;
                   if (aclrtCreateStream(&s2) != 0 || aclrtCreateEvent(&ev) != 0) { violation("stream/event"); break; }
                   void *b[3] = {dev_alloc(64), dev_alloc(64), dev_alloc(64)};
                   if (!b[0] || !b[1] || !b[2]) { aclrtDestroyEvent(ev); aclrtDestroyStream(s2); break; }
                   char host[64];
                   static const int ok_or_race[] = {507004, 0};
                   for (int k = 0; k < 10; k++) {
                       aclrtStream st = chance(0.5) ? g_stream : s2;
                       void *x = b[rnd() % 3], *y = b[rnd() % 3];
                       switch (rnd() % 11) {
                       case 0: CALL(aclrtMemcpyAsync(x, 64, y, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, st), ok_or_race); break;
                       case 1: CALL(aclrtMemsetAsync(x, 64, (int)(rnd() & 255), 64, st), ok_or_race); break;
                       case 2: CALL(aclrtMemcpy(host, 64, x, 64, ACL_MEMCPY_DEVICE_TO_HOST), ok_or_race); break;
                       case 3: CALL(aclrtMemset(x, 64, 0, 64), ok_or_race); break;
                       case 4: EXPECT(aclrtRecordEvent(ev, st), 0); break;
                       case 5: EXPECT(aclrtStreamWaitEvent(st, ev), 0); break;
                       case 6: EXPECT(aclrtSynchronizeStream(st), 0); break;
                       case 7: EXPECT(aclrtSynchronizeEvent(ev), 0); break;
                       case 9: { /* an op in the sequence: x = y + z on st (queued with PYACLNN_ASYNC=1) */
                                 static const int ok_or_op_race[] = {361001, 0};
                                 int64_t n16[1] = {16}, s1[1] = {1};
                                 void *z = b[rnd() % 3];
                                 aclTensor *tx = aclCreateTensor(n16, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, n16, 1, x),
                                           *ty = aclCreateTensor(n16, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, n16, 1, y),
                                           *tz = aclCreateTensor(n16, 1, ACL_FLOAT, s1, 0, ACL_FORMAT_ND, n16, 1, z);
                                 float one = 1.0f;
                                 aclScalar *al = aclCreateScalar(&one, ACL_FLOAT);
                                 uint64_t ws = 0; aclOpExecutor *ex = NULL;
                                 drain();
                                 int r1 = aclnnAddGetWorkspaceSize(ty, tz, al, tx, &ws, &ex);
                                 expect_rc(r1, 0, "aclnnAddGetWorkspaceSize");
                                 if (r1 == 0) CALL(aclnnAdd(NULL, 0, ex, st), ok_or_op_race);
                                 aclDestroyTensor(tx); aclDestroyTensor(ty); aclDestroyTensor(tz); aclDestroyScalar(al);
                                 break; }
                       case 10: { /* a free in the sequence: refused while a queued task uses it, else replaced */
                                 int i = (int)(rnd() % 3);
                                 if (CALL(aclrtFree(b[i]), ok_or_race) == 0) {
                                     for (int j = 0; j < g_nbufs; j++) if (g_bufs[j].p == b[i]) g_bufs[j].p = NULL;
                                     if (!(b[i] = dev_alloc(64))) { violation("dev_alloc"); k = 10; }
                                 }
                                 break; }
                       default: if (CALL(aclrtDestroyStream(s2), ok_or_race) == 0) {
                                    s2 = NULL;
                                    if (aclrtCreateStream(&s2) != 0) { violation("aclrtCreateStream"); k = 10; }
                                } break;
                       }
                   }
                   EXPECT(aclrtSynchronizeDevice(), 0);
                   for (int i = 0; i < 3; i++) {
                       EXPECT(aclrtMemcpy(host, 64, b[i], 64, ACL_MEMCPY_DEVICE_TO_HOST), 0);
                       EXPECT(aclrtMemset(b[i], 64, 0, 64), 0);
                   }
                   EXPECT(aclrtDestroyEvent(ev), 0);
                   if (s2) EXPECT(aclrtDestroyStream(s2), 0);
                   break; }
        case 12: { EXPECT(aclInit(NULL), 100002); uint64_t ref = 0;
                   EXPECT(aclFinalizeReference(&ref), 0);
                   CALL(aclInit("/nonexistent/acl.json"), NULL);
                   CALL(aclnnInit(NULL), NULL); CALL(aclnnFinalize(), NULL);
                   break; }
        case 13: { /* tensors: malformed creation, getters on NULL / destroyed / foreign objects */
                   int64_t dims[70] = {2, 3, 4};
                   for (int i = 3; i < 70; i++) dims[i] = rint_in(-1, 3);
                   drain();
                   if (aclCreateTensor(NULL, 3, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, NULL, 0, NULL) != NULL)
                       violation("aclCreateTensor(NULL dims, 3) returned a tensor");
                   if (!aclGetRecentErrMsg()) violation("aclCreateTensor NULL without a message");
                   if (aclCreateTensor(dims, 65, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 0, NULL) != NULL)
                       violation("aclCreateTensor with 65 dims returned a tensor");
                   drain();
                   aclTensor *t = aclCreateTensor(dims, 3, (aclDataType)PICK(k_dtypes_any), NULL, (int64_t)rnd(),
                                                  (aclFormat)PICK(k_formats_any), dims, 3, g_stack_junk);
                   if (!t) { violation("aclCreateTensor failed"); break; }
                   int64_t *v = NULL; uint64_t nv = 0; int64_t off; aclFormat f; aclDataType dt; void *addr;
                   void *obj = chance(0.5) ? (void *)t : (chance(0.5) ? (void *)g_stream : NULL);
                   int k = (int)(rnd() % 8);
                   if (chance(0.3)) { EXPECT(aclDestroyTensor(t), 0); obj = t; k = (int)(rnd() % 8); }
                   else track_tensor(t);
                   int r;
                   switch (k) {
                   case 0: r = CALL(aclGetViewShape(obj, chance(0.2) ? NULL : &v, &nv), k_meta_codes); break;
                   case 1: r = CALL(aclGetStorageShape(obj, &v, chance(0.2) ? NULL : &nv), k_meta_codes); break;
                   case 2: r = CALL(aclGetViewStrides(obj, &v, &nv), k_meta_codes); break;
                   case 3: r = CALL(aclGetViewOffset(obj, chance(0.2) ? NULL : &off), k_meta_codes); break;
                   case 4: r = CALL(aclGetFormat(obj, &f), k_meta_codes); break;
                   case 5: r = CALL(aclGetDataType(obj, &dt), k_meta_codes); break;
                   case 6: r = CALL(aclGetRawTensorAddr(obj, &addr), k_meta_codes); break;
                   default: r = CALL(aclInitTensor(obj, chance(0.5) ? dims : NULL, (uint64_t)rint_in(0, 70),
                                                   ACL_FLOAT, NULL, -1, ACL_FORMAT_ND, NULL, 0, NULL), k_meta_codes);
                   }
                   if (r == 0 && k <= 2) _ZdaPv(v); /* the getters' arrays are released with delete[] */
                   CALL(aclSetRawTensorAddr(obj, NULL), k_meta_codes);
                   if (obj != t || chance(0.5)) CALL(aclDestroyTensor(obj), k_meta_codes);
                   break; }
        case 14: { /* arrays and lists */
                   int64_t iv[4] = {1, 2, 3, 4}; float fv[2] = {1, 2}; bool bv[2] = {true, false};
                   aclIntArray *ia = aclCreateIntArray(chance(0.2) ? NULL : iv, (uint64_t)rint_in(0, 4));
                   aclFloatArray *fa = aclCreateFloatArray(chance(0.2) ? NULL : fv, (uint64_t)rint_in(0, 2));
                   aclBoolArray *ba = aclCreateBoolArray(chance(0.2) ? NULL : bv, (uint64_t)rint_in(0, 2));
                   drain();
                   if (aclCreateIntArray(iv, UINT64_MAX) != NULL) violation("an int array of 2^64 elements");
                   drain();
                   uint64_t sz;
                   CALL(aclGetIntArraySize(ia, chance(0.2) ? NULL : &sz), k_meta_codes);
                   CALL(aclGetFloatArraySize((aclFloatArray *)(chance(0.3) ? (void *)ia : (void *)fa), &sz), k_meta_codes);
                   CALL(aclGetBoolArraySize(ba, &sz), k_meta_codes);
                   CALL(aclGetTensorListSize((aclTensorList *)ba, &sz), k_meta_codes);
                   CALL(aclGetScalarListSize(NULL, &sz), k_meta_codes);
                   EXPECT(aclDestroyIntArray(ia), 0); EXPECT(aclDestroyIntArray(ia), 161002);
                   CALL(aclDestroyFloatArray((aclFloatArray *)(chance(0.3) ? (void *)ba : (void *)fa)), k_meta_codes);
                   CALL(aclDestroyFloatArray(fa), k_meta_codes);
                   CALL(aclDestroyBoolArray(ba), k_meta_codes);
                   EXPECT(aclDestroyBoolArray(ba), 161002);
                   int64_t dims[1] = {4};
                   aclTensor *ts[3];
                   for (int i = 0; i < 3; i++) ts[i] = aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, NULL);
                   if (chance(0.3)) { aclDestroyTensor(ts[1]); drain(); }
                   aclTensorList *tl = aclCreateTensorList((const aclTensor *const *)ts, 3);
                   drain();
                   if (tl) {
                       CALL(aclGetTensorListSize(tl, &sz), k_meta_codes);
                       CALL(aclSetDynamicInputTensorAddr((aclOpExecutor *)(chance(0.5) ? NULL : (void *)tl), 0,
                                                         (size_t)rint_in(0, 4), tl, g_stack_junk), k_meta_codes);
                       CALL(aclSetDynamicOutputTensorAddr(NULL, 0, 0, chance(0.5) ? NULL : tl, NULL), k_meta_codes);
                       CALL(aclSetDynamicTensorAddr(NULL, 0, 9, tl, NULL), k_meta_codes);
                       EXPECT(aclDestroyTensorList(tl), 0); /* destroys the tensors too */
                       EXPECT(aclDestroyTensorList(tl), 161002);
                       EXPECT(aclDestroyTensor(ts[0]), 161002);
                   } else {
                       for (int i = 0; i < 3; i++) { aclDestroyTensor(ts[i]); drain(); }
                   }
                   double dv = 1.5; unsigned char i8[16] = {3}; /* room for any scalar dtype */
                   aclScalar *s1 = aclCreateScalar(&dv, ACL_DOUBLE), *s2 = aclCreateScalar(i8, (aclDataType)PICK(k_dtypes_any));
                   drain();
                   if (aclCreateScalar(NULL, ACL_FLOAT) != NULL) violation("aclCreateScalar(NULL) returned a scalar");
                   drain();
                   const aclScalar *sl[2] = {s1, s2};
                   aclScalarList *sls = aclCreateScalarList(sl, s2 ? 2 : 1);
                   drain();
                   if (sls) { EXPECT(aclDestroyScalarList(sls), 0); EXPECT(aclDestroyScalar(s1), 161002); }
                   else { CALL(aclDestroyScalar(s1), k_meta_codes); CALL(aclDestroyScalar(s2), k_meta_codes); }
                   EXPECT(aclDestroyScalarList((aclScalarList *)g_stream), 161002);
                   break; }
        case 15: { /* executor API on NULL / foreign / destroyed objects */
                   EXPECT(aclSetAclOpExecutorRepeatable(NULL), 561103);
                   EXPECT(aclDestroyAclOpExecutor(NULL), 561103);
                   EXPECT(aclSetAclOpExecutorRepeatable((aclOpExecutor *)g_stream), 561000);
                   EXPECT(aclDestroyAclOpExecutor((aclOpExecutor *)g_stack_junk), 561000);
                   int64_t dims[1] = {4};
                   aclTensor *t = track_tensor(aclCreateTensor(dims, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, dims, 1, NULL));
                   EXPECT(aclSetInputTensorAddr(NULL, 0, t, NULL), 561103);
                   EXPECT(aclSetOutputTensorAddr((aclOpExecutor *)t, 0, NULL, NULL), 561103);
                   CALL(aclSetTensorAddr((aclOpExecutor *)t, 0, t, NULL), k_meta_codes);
                   CALL(AclSetInputTensorAddr(NULL, 0, t, NULL), k_meta_codes);
                   CALL(AclSetOutputTensorAddr(NULL, 0, t, NULL), k_meta_codes);
                   CALL(AclSetTensorAddr(NULL, 0, t, NULL), k_meta_codes);
                   CALL(AclSetDynamicInputTensorAddr(NULL, 0, 0, NULL, NULL), k_meta_codes);
                   CALL(AclSetDynamicOutputTensorAddr(NULL, 0, 0, NULL, NULL), k_meta_codes);
                   CALL(AclSetDynamicTensorAddr(NULL, 0, 0, NULL, NULL), k_meta_codes);
                   /* every second phase on a NULL / foreign executor: the seed ops and 16 table ops drawn at random
                    * per case (all ~800 each time made this one case three quarters of the fuzzer's time) */
                   for (int k = 0; k < N_OPS + 16; k++) {
                       const int op = k < N_OPS ? k : N_OPS + (int)(rnd() % (uint64_t)(N_ALL - N_OPS));
                       EXPECT(op_run(op)(NULL, 0, NULL, NULL), 161001);
                       EXPECT(op_run(op)(NULL, 0, (aclOpExecutor *)t, NULL), 161002);
                   }
                   break; }
        case 16: { float f = (float)runif(-1e6, 1e6); if (chance(0.2)) f = NAN; if (chance(0.2)) f = INFINITY;
                   (void)aclFloat16ToFloat(aclFloatToFloat16(f)); (void)aclFloat16ToFloat((aclFloat16)rnd());
                   (void)aclDataTypeSize((aclDataType)PICK(k_dtypes_any)); break; }
        default: op_case(pick_op()); g_where = "runtime/meta"; break;
        }
    }
}

/* ------------------------------------------------------------------ main */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    double budget = 10;
    long max_cases = -1, only = -1;
    g_seed = 1;
    int opt;
    while ((opt = getopt(argc, argv, "t:n:s:c:o:")) != -1) {
        if (opt == 't') budget = atof(optarg);
        else if (opt == 'n') max_cases = atol(optarg);
        else if (opt == 's') g_seed = strtoull(optarg, NULL, 10);
        else if (opt == 'c') only = atol(optarg);
        else if (opt == 'o') { if (!select_ops(optarg)) return 64; }
        else { fprintf(stderr, "usage: fuzz [-t seconds] [-n cases] [-s seed] [-c case] [-o Op1,Op2]\n"); return 64; }
    }
    const char *per_case = getenv("FUZZ_CASE_TIMEOUT");
    unsigned timeout = per_case ? (unsigned)atoi(per_case) : 20;
    signal(SIGALRM, on_alarm);
    if (aclInit(NULL) != 0 || aclrtSetDevice(0) != 0 || aclrtCreateStream(&g_stream) != 0 ||
        aclrtCreateStream(&g_dead_stream) != 0 || aclrtDestroyStream(g_dead_stream) != 0) {
        printf("set-up failed: %s\n", aclGetRecentErrMsg());
        return 1;
    }
    drain();
    double t0 = now_s();
    long done = 0;
    for (long i = (only >= 0 ? only : 0); ; i++) {
        if (only >= 0 && i > only) break;
        if (only < 0 && (now_s() - t0 >= budget || (max_cases >= 0 && done >= max_cases))) break;
        g_case = i;
        g_rng = (g_seed * 0x9E3779B97F4A7C15ULL) ^ ((uint64_t)i * 0xD1B54A32D192ED03ULL) ^ 0x5851F42D4C957F2DULL;
        for (int w = 0; w < 4; w++) rnd();
        alarm(timeout);
        const double tc = now_s();
        int slot = RT_SLOT;
        if (rnd() % 10 == 0 && !g_n_only) runtime_case();
        else op_case(slot = pick_op());
        g_secs[slot] += now_s() - tc;
        free_case_resources();
        alarm(0);
        done++;
        if (g_fail) break;
    }
    double dt = now_s() - t0;
    long total = 0, tcases = 0, tok = 0, truns = 0;
    const bool verbose = getenv("FUZZ_VERBOSE") != NULL;
    for (int op = 0; op < N_ALL; op++) {
        if (op < N_OPS || verbose)
            printf("%-36s cases %7ld  phase-1 ok %6ld  second phases %6ld\n", op_name(op), g_cases[op], g_ok1[op],
                   g_runs[op]);
        if (op >= N_OPS) { tcases += g_cases[op]; tok += g_ok1[op]; truns += g_runs[op]; }
        total += g_cases[op];
    }
    printf("%-36s cases %7ld  phase-1 ok %6ld  second phases %6ld  (%d ops; FUZZ_VERBOSE=1 lists them)\n",
           "table ops", tcases, tok, truns, N_TABLE);
    printf("%-36s cases %7ld\n", "runtime/meta sequences (12 calls each)", g_cases[RT_SLOT]);
    /* Where the time goes: the five targets that took the longest (a slow op's cases cut everyone's share). */
    printf("slowest targets:");
    bool shown[N_ALL + 1] = {false};
    for (int rank = 0; rank < 5; rank++) {
        int best = -1;
        for (int op = 0; op <= N_ALL; op++)
            if (g_cases[op] && !shown[op] && (best < 0 || g_secs[op] > g_secs[best])) best = op;
        if (best < 0) break;
        shown[best] = true;
        printf("%s %s %.1f s (%ld cases)", rank ? "," : "", best == RT_SLOT ? "runtime" : op_name(best), g_secs[best],
               g_cases[best]);
    }
    printf("\n");
    printf("total %ld op cases + %ld runtime sequences in %.1f s (seed %llu)\n", total, g_cases[RT_SLOT], dt,
           (unsigned long long)g_seed);
    aclrtDestroyStream(g_stream);
    aclrtResetDevice(0);
    aclFinalize();
    if (g_fail) return 1;
    printf("fuzz ok\n");
    return 0;
}
