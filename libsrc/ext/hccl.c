/* libhccl.so of the emulator.
 *
 * A world of one rank is exact and in-process: every collective leaves that rank's data as it is (a copy from the
 * send to the receive buffer, in place when they are the same); Broadcast and Barrier do nothing; point-to-point
 * calls have no peer (HCCL_E_PARA).
 *
 * Several ranks are separate processes on one machine. HcclGetRootInfo writes a unique token into the root info;
 * HcclCommInitRootInfo(nRanks, rootInfo, rank) opens the POSIX shared-memory object named from that token (the
 * first rank to arrive creates it), records its pid, waits until all nRanks have joined (HCCL_CONNECT_TIMEOUT
 * seconds, default 120) and the last one to join unlinks the name, so the memory goes away with the last process
 * that maps it, whether it ends cleanly or crashes. The object holds a header (barrier, per-rank pids and call
 * descriptions), one staging slot per rank for the collectives, and one single-buffer channel per ordered pair of
 * ranks for point-to-point traffic. Data moves between a rank's device buffers and the shared memory with
 * aclrtMemcpyAsync on the caller's stream (so the runtime checks the buffers and the stream checker sees the
 * accesses as tasks of that stream); large buffers go through in slot-sized pieces.
 *
 * Every collective first compares the calls of all ranks (operation, data type, count, root, reduction) and fails
 * with HCCL_E_PARA on every rank when they differ. Reductions read the ranks' data in the fixed order 0..n-1 on
 * every rank (fp16/bf16 accumulate in fp32 and round once), so every rank gets the same bytes, whatever the
 * arrival order. A wait longer than HCCL_EXEC_TIMEOUT seconds (default 1836), a peer process that has exited, or
 * a failure on another rank ends the call with HCCL_E_TIMEOUT / HCCL_E_REMOTE and marks the communicator broken
 * (every later call on it fails too). Messages go to stderr. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define HCCL_API __attribute__((visibility("default")))

#define COMM_MAGIC 0x48434331u
#define SHM_MAGIC 0x48534d31u
#define MAX_RANKS 64
#define ROOT_PREFIX "pyaclnn-hccl:"

/* ---------------------------------------------------------------- shared layout */
enum { OP_ALLREDUCE = 1, OP_REDUCE, OP_BROADCAST, OP_ALLGATHER, OP_REDUCESCATTER, OP_SCATTER, OP_ALLTOALL,
       OP_ALLTOALLV, OP_ALLGATHERV, OP_REDUCESCATTERV, OP_BARRIER };
static const char *op_names[] = {"?", "HcclAllReduce", "HcclReduce", "HcclBroadcast", "HcclAllGather",
                                 "HcclReduceScatter", "HcclScatter", "HcclAlltoAll", "HcclAlltoAllV",
                                 "HcclAllGatherV", "HcclReduceScatterV", "HcclBarrier"};

typedef struct {
    uint32_t op, dtype, redop, root;
    uint64_t count;
} call_desc;

typedef struct {
    _Atomic uint32_t magic;
    uint32_t nranks;
    uint64_t slot_bytes, chan_bytes, total_bytes;
    _Atomic uint32_t attached;
    _Atomic uint32_t bar_count;
    _Atomic uint32_t bar_gen;
    _Atomic uint32_t broken;      /* 0, or 1 + the rank that failed */
    _Atomic int32_t pids[MAX_RANKS];
    call_desc desc[MAX_RANKS];
} shm_hdr;

typedef struct {
    _Atomic uint32_t full;        /* 1: the sender's piece waits for the receiver */
    uint32_t first;               /* the piece starts a message of msg_bytes */
    uint64_t len, msg_bytes;
    char pad[40];
} chan_ctrl;

typedef struct {
    uint32_t magic;
    uint32_t rank, nranks;
    uint32_t id;
    char name[128];
    /* several ranks only */
    shm_hdr *hdr;
    size_t map_bytes;
    char shm_name[96];
    int broken;
} hccl_comm;

static _Atomic uint32_t g_next_id;

static HcclResult fail(HcclResult rc, const char *api, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
#include <stdarg.h>
static HcclResult fail(HcclResult rc, const char *api, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[ERROR] HCCL %s: %s (HcclResult %d)\n", api, msg, (int)rc);
    return rc;
}

static size_t dtype_size(HcclDataType t) {
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: case HCCL_DATA_TYPE_HIF8: case HCCL_DATA_TYPE_FP8E4M3:
    case HCCL_DATA_TYPE_FP8E5M2: return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64: return 8;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 0;
    }
}

/* Reductions: every integer and floating type; not int128 and the 8-bit float formats. */
static int reducible(HcclDataType t) { return dtype_size(t) && t <= HCCL_DATA_TYPE_BFP16; }

static int comm_ok(HcclComm c) { return c && ((hccl_comm *)c)->magic == COMM_MAGIC; }

static int op_ok(HcclReduceOp op) { return op >= HCCL_REDUCE_SUM && op <= HCCL_REDUCE_MIN; }

HCCL_API const char *HcclGetErrorString(HcclResult code) {
    static const char *s[] = {"success", "parameter error", "empty pointer", "memory error", "internal error",
                              "not supported", "not found", "unavailable", "system call error", "timeout",
                              "open file failure", "tcp connect failure", "roce connect failure",
                              "tcp transfer failure", "roce transfer failure", "runtime error", "driver error",
                              "profiling error", "cce error", "network error", "try again", "remote error",
                              "suspending"};
    return ((int)code >= 0 && (int)code < (int)(sizeof s / sizeof *s)) ? s[code] : "unknown error";
}

/* ---------------------------------------------------------------- waiting */
static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double env_seconds(const char *name, double dflt) {
    const char *s = getenv(name);
    if (s && *s) {
        char *end;
        double v = strtod(s, &end);
        if (end != s && v > 0) return v;
    }
    return dflt;
}

typedef struct {
    double deadline;
    unsigned spins;
    double next_check;
} waiter;

static void waiter_init(waiter *w, int connect) {
    double t = now_s();
    w->deadline = t + (connect ? env_seconds("HCCL_CONNECT_TIMEOUT", 120) : env_seconds("HCCL_EXEC_TIMEOUT", 1836));
    w->spins = 0;
    w->next_check = t + 0.05;
}

static void set_broken(hccl_comm *c) {
    c->broken = 1;
    uint32_t zero = 0;
    atomic_compare_exchange_strong(&c->hdr->broken, &zero, c->rank + 1);
}

/* A process that has exited, reaped or not (a zombie waits for its parent, which may be a launcher that waits for
 * another rank first). */
static int process_alive(int32_t pid) {
    if (kill(pid, 0) != 0 && errno == ESRCH) return 0;
    char path[64], buf[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = 0;
    const char *rp = strrchr(buf, ')');
    return !(rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X'));
}

/* One idle step of a wait: yield first, then sleep; now and then look at the deadline, the broken flag and whether
 * the peers' processes still exist. Returns HCCL_SUCCESS to keep waiting. */
static HcclResult wait_step(hccl_comm *c, waiter *w, const char *api, const char *what) {
    uint32_t b = atomic_load_explicit(&c->hdr->broken, memory_order_acquire);
    if (b && b != c->rank + 1) {
        c->broken = 1;
        return fail(HCCL_E_REMOTE, api, "rank %u failed; the communicator is broken", b - 1);
    }
    if (++w->spins < 64) {
        sched_yield();
        return HCCL_SUCCESS;
    }
    struct timespec ts = {0, w->spins < 2000 ? 20000 : 200000};
    nanosleep(&ts, NULL);
    double t = now_s();
    if (t < w->next_check) return HCCL_SUCCESS;
    w->next_check = t + 0.05;
    for (uint32_t r = 0; r < c->nranks; r++) {
        int32_t pid = atomic_load_explicit(&c->hdr->pids[r], memory_order_acquire);
        if (r != c->rank && pid > 0 && !process_alive(pid)) {
            set_broken(c);
            return fail(HCCL_E_REMOTE, api, "rank %u (pid %d) exited while rank %u waited for %s", r, (int)pid,
                        c->rank, what);
        }
    }
    if (t > w->deadline) {
        set_broken(c);
        return fail(HCCL_E_TIMEOUT, api, "rank %u waited for %s longer than the timeout (HCCL_EXEC_TIMEOUT / "
                    "HCCL_CONNECT_TIMEOUT seconds)", c->rank, what);
    }
    return HCCL_SUCCESS;
}

static HcclResult barrier(hccl_comm *c, const char *api) {
    shm_hdr *h = c->hdr;
    uint32_t gen = atomic_load_explicit(&h->bar_gen, memory_order_acquire);
    if (atomic_fetch_add_explicit(&h->bar_count, 1, memory_order_acq_rel) == c->nranks - 1) {
        atomic_store_explicit(&h->bar_count, 0, memory_order_relaxed);
        atomic_store_explicit(&h->bar_gen, gen + 1, memory_order_release);
        return HCCL_SUCCESS;
    }
    waiter w;
    waiter_init(&w, 0);
    while (atomic_load_explicit(&h->bar_gen, memory_order_acquire) == gen) {
        HcclResult rc = wait_step(c, &w, api, "the other ranks");
        if (rc) return rc;
    }
    return HCCL_SUCCESS;
}

/* ---------------------------------------------------------------- shared memory */
static char *slot(hccl_comm *c, uint32_t r) { return (char *)c->hdr + 4096 + (size_t)r * c->hdr->slot_bytes; }

static chan_ctrl *chan(hccl_comm *c, uint32_t from, uint32_t to) {
    char *base = (char *)c->hdr + 4096 + (size_t)c->nranks * c->hdr->slot_bytes;
    return (chan_ctrl *)(base + ((size_t)from * c->nranks + to) * sizeof(chan_ctrl));
}

static char *chan_data(hccl_comm *c, uint32_t from, uint32_t to) {
    char *base = (char *)c->hdr + 4096 + (size_t)c->nranks * c->hdr->slot_bytes +
                 (size_t)c->nranks * c->nranks * sizeof(chan_ctrl);
    base = (char *)(((uintptr_t)base + 4095) & ~(uintptr_t)4095);
    return base + ((size_t)from * c->nranks + to) * c->hdr->chan_bytes;
}

static void layout(uint32_t n, uint64_t *slot_bytes, uint64_t *chan_bytes, uint64_t *total) {
    uint64_t s = (128ull << 20) / n, p = (64ull << 20) / ((uint64_t)n * n);
    if (s > (4ull << 20)) s = 4ull << 20;
    if (s < (256ull << 10)) s = 256ull << 10;
    if (p > (1ull << 20)) p = 1ull << 20;
    if (p < (64ull << 10)) p = 64ull << 10;
    *slot_bytes = s;
    *chan_bytes = p;
    uint64_t t = 4096 + n * s + (uint64_t)n * n * sizeof(chan_ctrl);
    t = (t + 4095) & ~4095ull;
    *total = t + (uint64_t)n * n * p;
}

static HcclResult shm_join(hccl_comm *c, const char *api, const char *token) {
    snprintf(c->shm_name, sizeof c->shm_name, "/pyaclnn_hccl_%s", token);
    uint64_t sb, cb, total;
    layout(c->nranks, &sb, &cb, &total);
    waiter w;
    waiter_init(&w, 1);
    int created = 0, fd = shm_open(c->shm_name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd >= 0) {
        created = 1;
        if (ftruncate(fd, (off_t)total) != 0) {
            int e = errno;
            close(fd);
            shm_unlink(c->shm_name);
            return fail(HCCL_E_SYSCALL, api, "ftruncate of shared memory %s to %llu bytes failed: %s", c->shm_name,
                        (unsigned long long)total, strerror(e));
        }
    } else if (errno == EEXIST) {
        fd = shm_open(c->shm_name, O_RDWR, 0600);
    }
    if (fd < 0) return fail(HCCL_E_SYSCALL, api, "shm_open(%s) failed: %s", c->shm_name, strerror(errno));
    /* a joiner waits until the creator has sized the object */
    for (;;) {
        struct stat st;
        if (fstat(fd, &st) != 0) {
            close(fd);
            return fail(HCCL_E_SYSCALL, api, "fstat of shared memory %s failed: %s", c->shm_name, strerror(errno));
        }
        if ((uint64_t)st.st_size >= total) break;
        if (now_s() > w.deadline) {
            close(fd);
            return fail(HCCL_E_TIMEOUT, api, "the shared memory %s was not set up within HCCL_CONNECT_TIMEOUT",
                        c->shm_name);
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    void *p = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return fail(HCCL_E_SYSCALL, api, "mmap of %s failed: %s", c->shm_name, strerror(errno));
    c->hdr = p;
    c->map_bytes = total;
    shm_hdr *h = p;
    if (created) {
        h->nranks = c->nranks;
        h->slot_bytes = sb;
        h->chan_bytes = cb;
        h->total_bytes = total;
        atomic_store_explicit(&h->magic, SHM_MAGIC, memory_order_release);
    } else {
        while (atomic_load_explicit(&h->magic, memory_order_acquire) != SHM_MAGIC) {
            if (now_s() > w.deadline) {
                munmap(p, total);
                c->hdr = NULL;
                return fail(HCCL_E_TIMEOUT, api, "the shared memory %s was not set up within HCCL_CONNECT_TIMEOUT",
                            c->shm_name);
            }
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        if (h->nranks != c->nranks || h->total_bytes != total) {
            munmap(p, total);
            c->hdr = NULL;
            return fail(HCCL_E_PARA, api, "nRanks %u differs from the %u of the rank that created the communicator",
                        c->nranks, h->nranks);
        }
    }
    int32_t zero = 0;
    if (!atomic_compare_exchange_strong(&h->pids[c->rank], &zero, (int32_t)getpid())) {
        munmap(p, total);
        c->hdr = NULL;
        return fail(HCCL_E_PARA, api, "rank %u has already joined this root info (pid %d)", c->rank, (int)zero);
    }
    if (atomic_fetch_add(&h->attached, 1) + 1 == c->nranks) shm_unlink(c->shm_name); /* everyone has it mapped */
    while (atomic_load_explicit(&h->attached, memory_order_acquire) < c->nranks) {
        uint32_t b = atomic_load(&h->broken);
        double t = now_s();
        if (b || t > w.deadline) {
            uint32_t joined = atomic_load(&h->attached);
            atomic_store(&h->broken, c->rank + 1);
            shm_unlink(c->shm_name); /* nobody else will join: the name goes, the memory with the last mapping */
            munmap(p, total);
            c->hdr = NULL;
            return b ? fail(HCCL_E_REMOTE, api, "another rank gave up joining %s", c->shm_name)
                     : fail(HCCL_E_TIMEOUT, api, "only %u of %u ranks joined within HCCL_CONNECT_TIMEOUT seconds",
                            joined, c->nranks);
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return HCCL_SUCCESS;
}

/* ---------------------------------------------------------------- communicators */
HCCL_API HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) {
    if (!rootInfo) return fail(HCCL_E_PTR, "HcclGetRootInfo", "rootInfo must not be NULL");
    static _Atomic uint32_t counter;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    memset(rootInfo, 0, sizeof *rootInfo);
    snprintf(rootInfo->internal, sizeof rootInfo->internal, ROOT_PREFIX "%d_%u_%llx", (int)getpid(),
             atomic_fetch_add(&counter, 1), (unsigned long long)ts.tv_sec * 1000000000ull + ts.tv_nsec);
    return HCCL_SUCCESS;
}

static HcclResult init_comm(const char *api, uint32_t nRanks, const HcclRootInfo *root, uint32_t rank,
                            HcclComm *comm) {
    if (!comm) return fail(HCCL_E_PTR, api, "comm must not be NULL");
    if (nRanks == 0 || rank >= nRanks)
        return fail(HCCL_E_PARA, api, "rank %u must be in [0, nRanks %u) and nRanks >= 1", rank, nRanks);
    if (nRanks > MAX_RANKS)
        return fail(HCCL_E_NOT_SUPPORT, api, "nRanks %u: the emulator's HCCL supports up to %d ranks", nRanks,
                    MAX_RANKS);
    char token[64] = "";
    if (nRanks > 1) {
        if (!root) return fail(HCCL_E_PARA, api, "several ranks need the root info of HcclGetRootInfo");
        size_t pl = strlen(ROOT_PREFIX);
        const char *t = root->internal;
        size_t tl = strnlen(t + pl, sizeof token);
        if (strncmp(t, ROOT_PREFIX, pl) != 0 || tl == 0 || tl >= sizeof token ||
            strspn(t + pl, "0123456789abcdef_") != tl)
            return fail(HCCL_E_PARA, api, "rootInfo was not produced by this HcclGetRootInfo");
        memcpy(token, t + pl, tl + 1);
    }
    hccl_comm *c = calloc(1, sizeof *c);
    if (!c) return fail(HCCL_E_MEMORY, api, "out of memory");
    c->rank = rank;
    c->nranks = nRanks;
    c->id = atomic_fetch_add(&g_next_id, 1);
    if (nRanks > 1) {
        HcclResult rc = shm_join(c, api, token);
        if (rc) {
            free(c);
            return rc;
        }
        snprintf(c->name, sizeof c->name, "pyaclnn_comm_%s", token);
    } else {
        snprintf(c->name, sizeof c->name, "pyaclnn_comm_%u", c->id);
    }
    c->magic = COMM_MAGIC;
    *comm = c;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm) {
    if (!rootInfo) return fail(HCCL_E_PTR, "HcclCommInitRootInfo", "rootInfo must not be NULL");
    return init_comm("HcclCommInitRootInfo", nRanks, rootInfo, rank, comm);
}

HCCL_API HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                               const HcclCommConfig *config, HcclComm *comm) {
    if (!rootInfo) return fail(HCCL_E_PTR, "HcclCommInitRootInfoConfig", "rootInfo must not be NULL");
    return init_comm("HcclCommInitRootInfoConfig", nRanks, rootInfo, rank, comm);
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm) {
    if (!clusterInfo) return fail(HCCL_E_PTR, "HcclCommInitClusterInfo", "clusterInfo must not be NULL");
    return fail(HCCL_E_NOT_SUPPORT, "HcclCommInitClusterInfo", "rank tables are not supported by the emulator");
}

/* Several devices in one process would need the collectives of all of them at once on one thread: one device. */
HCCL_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) {
    if (!devices || !comms) return fail(HCCL_E_PTR, "HcclCommInitAll", "devices and comms must not be NULL");
    if (ndev > 1)
        return fail(HCCL_E_NOT_SUPPORT, "HcclCommInitAll", "ndev %u: several ranks must be separate processes "
                    "(HcclCommInitRootInfo)", ndev);
    return init_comm("HcclCommInitAll", ndev, NULL, 0, comms);
}

HCCL_API HcclResult HcclCommDestroy(HcclComm comm) {
    if (!comm_ok(comm)) return fail(HCCL_E_PARA, "HcclCommDestroy", "comm is not a live communicator");
    hccl_comm *c = comm;
    c->magic = 0;
    if (c->hdr) munmap(c->hdr, c->map_bytes);
    free(c);
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) {
    if (!comm_ok(comm) || !rankSize) return fail(HCCL_E_PARA, "HcclGetRankSize", "comm and rankSize must be valid");
    *rankSize = ((hccl_comm *)comm)->nranks;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
    if (!comm_ok(comm) || !rank) return fail(HCCL_E_PARA, "HcclGetRankId", "comm and rank must be valid");
    *rank = ((hccl_comm *)comm)->rank;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetCommName(HcclComm comm, char *commName) {
    if (!comm_ok(comm) || !commName) return fail(HCCL_E_PARA, "HcclGetCommName", "comm and commName must be valid");
    strcpy(commName, ((hccl_comm *)comm)->name);
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetCommAsyncError(HcclComm comm, HcclResult *asyncError) {
    if (!comm_ok(comm) || !asyncError)
        return fail(HCCL_E_PARA, "HcclGetCommAsyncError", "comm and asyncError must be valid");
    hccl_comm *c = comm;
    *asyncError = c->hdr && (c->broken || atomic_load(&c->hdr->broken)) ? HCCL_E_REMOTE : HCCL_SUCCESS;
    return HCCL_SUCCESS;
}

/* ---------------------------------------------------------------- one rank */
/* The result of the collective is the input, copied as a task on the collective's stream (ordered after the
 * stream's earlier work, as the device's collective is; the stream checker sees it as such). */
static HcclResult identity(const char *api, const void *send, void *recv, uint64_t count, size_t es,
                           aclrtStream stream) {
    if (count && (!send || !recv)) return fail(HCCL_E_PTR, api, "sendBuf and recvBuf must not be NULL");
    if (count > SIZE_MAX / es) return fail(HCCL_E_PARA, api, "count is too large");
    if (count && send != recv) {
        aclError rc = aclrtMemcpyAsync(recv, count * es, send, count * es, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
        if (rc != ACL_SUCCESS) return fail(HCCL_E_RUNTIME, api, "%s", aclGetRecentErrMsg());
    }
    return HCCL_SUCCESS;
}

/* ---------------------------------------------------------------- several ranks: data movement */
/* A device buffer to shared memory and back, as tasks of the stream. On failure the communicator is broken (the
 * peers would otherwise wait for this rank's part). */
static HcclResult to_shm(hccl_comm *c, const char *api, void *dst, const void *dev, size_t bytes, aclrtStream s) {
    if (!bytes) return HCCL_SUCCESS;
    if (aclrtMemcpyAsync(dst, bytes, dev, bytes, ACL_MEMCPY_DEVICE_TO_HOST, s) != ACL_SUCCESS) {
        set_broken(c);
        return fail(HCCL_E_RUNTIME, api, "reading the send buffer: %s", aclGetRecentErrMsg());
    }
    return HCCL_SUCCESS;
}

static HcclResult from_shm(hccl_comm *c, const char *api, void *dev, const void *src, size_t bytes, aclrtStream s) {
    if (!bytes) return HCCL_SUCCESS;
    if (aclrtMemcpyAsync(dev, bytes, src, bytes, ACL_MEMCPY_HOST_TO_DEVICE, s) != ACL_SUCCESS) {
        set_broken(c);
        return fail(HCCL_E_RUNTIME, api, "writing the receive buffer: %s", aclGetRecentErrMsg());
    }
    return HCCL_SUCCESS;
}

static float h2f(uint16_t h) {
    _Float16 v;
    memcpy(&v, &h, 2);
    return (float)v;
}
static uint16_t f2h(float f) {
    _Float16 v = (_Float16)f;
    uint16_t h;
    memcpy(&h, &v, 2);
    return h;
}
static float b2f(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static uint16_t f2b(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1)) >> 16);
}

#define RED_FLOAT(a, b, op) \
    ((op) == HCCL_REDUCE_SUM ? (a) + (b) : (op) == HCCL_REDUCE_PROD ? (a) * (b) \
     : (a) != (a) || (b) != (b) ? (a) + (b) : (op) == HCCL_REDUCE_MAX ? ((b) > (a) ? (b) : (a)) : ((b) < (a) ? (b) : (a)))
#define RED_INT(T, U, a, b, op) \
    ((op) == HCCL_REDUCE_SUM ? (T)((U)(a) + (U)(b)) : (op) == HCCL_REDUCE_PROD ? (T)((U)(a) * (U)(b)) \
     : (op) == HCCL_REDUCE_MAX ? ((b) > (a) ? (b) : (a)) : ((b) < (a) ? (b) : (a)))

/* dst[i] = src[0][i] (op) src[1][i] (op) ... in rank order; src[k] = base + k * stride bytes. */
static void reduce_ranks(void *dst, const char *base, size_t stride, uint32_t n, size_t len, HcclDataType t,
                         HcclReduceOp op) {
#define INT_CASE(TAG, T, U)                                                   \
    case TAG: {                                                               \
        T *d = dst;                                                           \
        for (size_t i = 0; i < len; i++) {                                    \
            T acc = ((const T *)base)[i];                                     \
            for (uint32_t k = 1; k < n; k++) {                                \
                T v = ((const T *)(base + k * stride))[i];                    \
                acc = RED_INT(T, U, acc, v, op);                              \
            }                                                                 \
            d[i] = acc;                                                       \
        }                                                                     \
        break;                                                                \
    }
#define FLT_CASE(TAG, S, A, LOAD, STORE)                                      \
    case TAG: {                                                               \
        S *d = dst;                                                           \
        for (size_t i = 0; i < len; i++) {                                    \
            A acc = LOAD(((const S *)base)[i]);                               \
            for (uint32_t k = 1; k < n; k++) {                                \
                A v = LOAD(((const S *)(base + k * stride))[i]);              \
                acc = RED_FLOAT(acc, v, op);                                  \
            }                                                                 \
            d[i] = STORE(acc);                                                \
        }                                                                     \
        break;                                                                \
    }
#define ID(x) (x)
    switch (t) {
    INT_CASE(HCCL_DATA_TYPE_INT8, int8_t, uint8_t)
    INT_CASE(HCCL_DATA_TYPE_INT16, int16_t, uint16_t)
    INT_CASE(HCCL_DATA_TYPE_INT32, int32_t, uint32_t)
    INT_CASE(HCCL_DATA_TYPE_INT64, int64_t, uint64_t)
    INT_CASE(HCCL_DATA_TYPE_UINT8, uint8_t, uint32_t)
    INT_CASE(HCCL_DATA_TYPE_UINT16, uint16_t, uint32_t)
    INT_CASE(HCCL_DATA_TYPE_UINT32, uint32_t, uint32_t)
    INT_CASE(HCCL_DATA_TYPE_UINT64, uint64_t, uint64_t)
    FLT_CASE(HCCL_DATA_TYPE_FP32, float, float, ID, ID)
    FLT_CASE(HCCL_DATA_TYPE_FP64, double, double, ID, ID)
    FLT_CASE(HCCL_DATA_TYPE_FP16, uint16_t, float, h2f, f2h)
    FLT_CASE(HCCL_DATA_TYPE_BFP16, uint16_t, float, b2f, f2b)
    default: break;
    }
#undef INT_CASE
#undef FLT_CASE
#undef ID
}

/* The start of every collective on several ranks: the comm is usable, and all ranks made the same call. */
static HcclResult coll_begin(hccl_comm *c, const call_desc *d) {
    const char *api = op_names[d->op];
    if (c->broken) return fail(HCCL_E_REMOTE, api, "the communicator is broken by an earlier failure");
    c->hdr->desc[c->rank] = *d;
    HcclResult rc = barrier(c, api);
    if (rc) return rc;
    for (uint32_t k = 0; k < c->nranks; k++) {
        const call_desc *o = &c->hdr->desc[k];
        if (memcmp(o, d, sizeof *d) != 0) {
            c->broken = 1;
            return fail(HCCL_E_PARA, api, "rank %u called %s (dataType %u, count %llu, op %u, root %u) while rank "
                        "%u called %s (dataType %u, count %llu, op %u, root %u)", c->rank, api, d->dtype,
                        (unsigned long long)d->count, d->redop, d->root, k, op_names[o->op < OP_BARRIER + 1 ? o->op : 0],
                        o->dtype, (unsigned long long)o->count, o->redop, o->root);
        }
    }
    /* a second barrier: nobody overwrites its description before every rank compared them */
    return barrier(c, api);
}

static HcclResult check_common(hccl_comm *c, const char *api, size_t es, uint64_t count, uint64_t mult,
                               const void *a, const void *b) {
    if (!es) return fail(HCCL_E_PARA, api, "dataType is not an HcclDataType");
    if (mult && count > (uint64_t)PTRDIFF_MAX / es / mult) return fail(HCCL_E_PARA, api, "count is too large");
    if (count && (!a || !b)) return fail(HCCL_E_PTR, api, "sendBuf and recvBuf must not be NULL");
    return HCCL_SUCCESS;
}

/* AllReduce (root = all) and Reduce (only root writes). */
static HcclResult multi_reduce(hccl_comm *c, int opcode, const char *send, char *recv, uint64_t count,
                               HcclDataType t, HcclReduceOp op, uint32_t root, aclrtStream s) {
    const char *api = op_names[opcode];
    size_t es = dtype_size(t);
    call_desc d = {opcode, t, op, opcode == OP_REDUCE ? root : 0, count};
    HcclResult rc = coll_begin(c, &d);
    if (rc) return rc;
    uint64_t L = c->hdr->slot_bytes / es;
    char *scratch = malloc(c->hdr->slot_bytes);
    if (!scratch) {
        set_broken(c);
        return fail(HCCL_E_MEMORY, api, "out of memory");
    }
    for (uint64_t off = 0; off < count && !rc; off += L) {
        uint64_t len = count - off < L ? count - off : L;
        rc = to_shm(c, api, slot(c, c->rank), send + off * es, len * es, s);
        if (!rc) rc = barrier(c, api);
        if (!rc && (opcode == OP_ALLREDUCE || c->rank == root)) {
            reduce_ranks(scratch, slot(c, 0), c->hdr->slot_bytes, c->nranks, len, t, op);
            rc = from_shm(c, api, recv + off * es, scratch, len * es, s);
        }
        if (!rc) rc = barrier(c, api);
    }
    free(scratch);
    return rc;
}

static HcclResult multi_broadcast(hccl_comm *c, char *buf, uint64_t count, HcclDataType t, uint32_t root,
                                  aclrtStream s) {
    const char *api = "HcclBroadcast";
    size_t es = dtype_size(t);
    call_desc d = {OP_BROADCAST, t, 0, root, count};
    HcclResult rc = coll_begin(c, &d);
    uint64_t L = c->hdr->slot_bytes / es;
    for (uint64_t off = 0; off < count && !rc; off += L) {
        uint64_t len = count - off < L ? count - off : L;
        if (c->rank == root) rc = to_shm(c, api, slot(c, root), buf + off * es, len * es, s);
        if (!rc) rc = barrier(c, api);
        if (!rc && c->rank != root) rc = from_shm(c, api, buf + off * es, slot(c, root), len * es, s);
        if (!rc) rc = barrier(c, api);
    }
    return rc;
}

static HcclResult multi_allgather(hccl_comm *c, const char *send, char *recv, uint64_t count, HcclDataType t,
                                  aclrtStream s) {
    const char *api = "HcclAllGather";
    size_t es = dtype_size(t);
    call_desc d = {OP_ALLGATHER, t, 0, 0, count};
    HcclResult rc = coll_begin(c, &d);
    uint64_t L = c->hdr->slot_bytes / es;
    for (uint64_t off = 0; off < count && !rc; off += L) {
        uint64_t len = count - off < L ? count - off : L;
        rc = to_shm(c, api, slot(c, c->rank), send + off * es, len * es, s);
        if (!rc) rc = barrier(c, api);
        for (uint32_t k = 0; k < c->nranks && !rc; k++)
            rc = from_shm(c, api, recv + (k * count + off) * es, slot(c, k), len * es, s);
        if (!rc) rc = barrier(c, api);
    }
    return rc;
}

/* ReduceScatter (reduce), Scatter (root's part j to rank j) and AlltoAll (rank k's part j to rank j's part k):
 * each rank stages its n parts, a piece of L elements of each, side by side in its slot. */
static HcclResult multi_parts(hccl_comm *c, int opcode, const char *send, char *recv, uint64_t count,
                              HcclDataType t, HcclReduceOp op, uint32_t root, aclrtStream s) {
    const char *api = op_names[opcode];
    size_t es = dtype_size(t);
    uint32_t n = c->nranks, me = c->rank;
    call_desc d = {opcode, t, opcode == OP_REDUCESCATTER ? op : 0, opcode == OP_SCATTER ? root : 0, count};
    HcclResult rc = coll_begin(c, &d);
    if (rc) return rc;
    uint64_t L = c->hdr->slot_bytes / es / n;
    char *scratch = opcode == OP_REDUCESCATTER ? malloc(L * es) : NULL;
    if (opcode == OP_REDUCESCATTER && !scratch) {
        set_broken(c);
        return fail(HCCL_E_MEMORY, api, "out of memory");
    }
    for (uint64_t off = 0; off < count && !rc; off += L) {
        uint64_t len = count - off < L ? count - off : L;
        if (opcode != OP_SCATTER || me == root)
            for (uint32_t j = 0; j < n && !rc; j++)
                rc = to_shm(c, api, slot(c, me) + j * L * es, send + (j * count + off) * es, len * es, s);
        if (!rc) rc = barrier(c, api);
        if (!rc && opcode == OP_REDUCESCATTER) {
            reduce_ranks(scratch, slot(c, 0) + me * L * es, c->hdr->slot_bytes, n, len, t, op);
            rc = from_shm(c, api, recv + off * es, scratch, len * es, s);
        } else if (!rc && opcode == OP_SCATTER) {
            rc = from_shm(c, api, recv + off * es, slot(c, root) + me * L * es, len * es, s);
        } else {
            for (uint32_t k = 0; k < n && !rc; k++)
                rc = from_shm(c, api, recv + (k * count + off) * es, slot(c, k) + me * L * es, len * es, s);
        }
        if (!rc) rc = barrier(c, api);
    }
    free(scratch);
    return rc;
}

/* ---------------------------------------------------------------- several ranks: point to point */
typedef struct {
    int send;          /* 1 send, 0 receive */
    char *buf;
    int host;          /* buf is host memory of this library (no runtime copy) */
    uint64_t bytes, done;
    uint32_t peer;
    int started;       /* a message of zero bytes is one empty piece */
} p2p_item;

static int p2p_done(const p2p_item *x) { return x->started && x->done >= x->bytes; }

/* Moves every item to completion, messages to (from) one peer in item order, each through the single buffer of
 * its channel: the sender fills it when it is empty, the receiver empties it. Items of different peers progress
 * together, so any order of sends and receives across ranks completes. */
static HcclResult p2p_run(hccl_comm *c, const char *api, p2p_item *it, uint32_t ni, aclrtStream s) {
    if (c->broken) return fail(HCCL_E_REMOTE, api, "the communicator is broken by an earlier failure");
    uint64_t cap = c->hdr->chan_bytes;
    waiter w;
    waiter_init(&w, 0);
    for (;;) {
        int pending = 0, progress = 0;
        for (uint32_t i = 0; i < ni; i++) {
            p2p_item *x = &it[i];
            if (p2p_done(x)) continue;
            int blocked = 0; /* an earlier unfinished item of the same direction and peer goes first */
            for (uint32_t j = 0; j < i && !blocked; j++)
                blocked = it[j].send == x->send && it[j].peer == x->peer && !p2p_done(&it[j]);
            pending = 1;
            if (blocked) continue;
            chan_ctrl *ch = x->send ? chan(c, c->rank, x->peer) : chan(c, x->peer, c->rank);
            char *data = x->send ? chan_data(c, c->rank, x->peer) : chan_data(c, x->peer, c->rank);
            uint32_t full = atomic_load_explicit(&ch->full, memory_order_acquire);
            uint64_t len;
            if (x->send && !full) {
                len = x->bytes - x->done < cap ? x->bytes - x->done : cap;
                if (x->host) memcpy(data, x->buf + x->done, len);
                else if (to_shm(c, api, data, x->buf + x->done, len, s)) return HCCL_E_RUNTIME;
                ch->len = len;
                ch->first = !x->started;
                ch->msg_bytes = x->bytes;
                atomic_store_explicit(&ch->full, 1, memory_order_release);
            } else if (!x->send && full) {
                len = ch->len;
                if (!x->started != (ch->first != 0) || ch->msg_bytes != x->bytes || len > x->bytes - x->done) {
                    set_broken(c);
                    return fail(HCCL_E_PARA, api, "rank %u expects %llu bytes from rank %u, which sent %llu",
                                c->rank, (unsigned long long)x->bytes, x->peer, (unsigned long long)ch->msg_bytes);
                }
                if (x->host) memcpy(x->buf + x->done, data, len);
                else if (from_shm(c, api, x->buf + x->done, data, len, s)) return HCCL_E_RUNTIME;
                atomic_store_explicit(&ch->full, 0, memory_order_release);
            } else {
                continue;
            }
            x->done += len;
            x->started = 1;
            progress = 1;
        }
        if (!pending) return HCCL_SUCCESS;
        if (progress) {
            w.spins = 0;
            continue;
        }
        HcclResult rc = wait_step(c, &w, api, "a peer's send or receive");
        if (rc) return rc;
    }
}

static HcclResult p2p_check(hccl_comm *c, const char *api, const void *buf, uint64_t count, HcclDataType t,
                            uint32_t peer, uint64_t *bytes) {
    size_t es = dtype_size(t);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)t);
    if (peer >= c->nranks || peer == c->rank)
        return fail(HCCL_E_PARA, api, "remote rank %u must be another rank of [0, %u)", peer, c->nranks);
    if (count > (uint64_t)PTRDIFF_MAX / es) return fail(HCCL_E_PARA, api, "count is too large");
    if (count && !buf) return fail(HCCL_E_PTR, api, "buf must not be NULL");
    *bytes = count * es;
    return HCCL_SUCCESS;
}

/* ---------------------------------------------------------------- groups */
typedef struct {
    hccl_comm *comm;
    aclrtStream stream;
    p2p_item item;
} group_item;

static _Thread_local int t_group_depth;
static _Thread_local group_item *t_group;
static _Thread_local uint32_t t_group_n, t_group_cap;

static HcclResult group_add(const char *api, hccl_comm *c, aclrtStream s, const p2p_item *x) {
    if (t_group_n == t_group_cap) {
        uint32_t cap = t_group_cap ? 2 * t_group_cap : 16;
        group_item *g = realloc(t_group, cap * sizeof *g);
        if (!g) return fail(HCCL_E_MEMORY, api, "out of memory");
        t_group = g;
        t_group_cap = cap;
    }
    t_group[t_group_n++] = (group_item){c, s, *x};
    return HCCL_SUCCESS;
}

static HcclResult send_recv(const char *api, int send, void *buf, uint64_t count, HcclDataType t, uint32_t peer,
                            HcclComm comm, aclrtStream s) {
    if (!comm_ok(comm)) return fail(HCCL_E_PARA, api, "comm is not a live communicator");
    hccl_comm *c = comm;
    if (c->nranks == 1)
        return fail(HCCL_E_PARA, api, send ? "a world of one rank has no peer to send to"
                                           : "a world of one rank has no peer to receive from");
    p2p_item x = {send, buf, 0, 0, 0, peer, 0};
    HcclResult rc = p2p_check(c, api, buf, count, t, peer, &x.bytes);
    if (rc) return rc;
    if (t_group_depth) return group_add(api, c, s, &x);
    return p2p_run(c, api, &x, 1, s);
}

HCCL_API HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                             aclrtStream stream) {
    return send_recv("HcclSend", 1, sendBuf, count, dataType, destRank, comm, stream);
}

HCCL_API HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                             aclrtStream stream) {
    return send_recv("HcclRecv", 0, recvBuf, count, dataType, srcRank, comm, stream);
}

HCCL_API HcclResult HcclBatchSendRecv(HcclSendRecvItem *sendRecvInfo, uint32_t itemNum, HcclComm comm,
                                      aclrtStream stream) {
    const char *api = "HcclBatchSendRecv";
    if (!comm_ok(comm)) return fail(HCCL_E_PARA, api, "comm is not a live communicator");
    if (itemNum && !sendRecvInfo) return fail(HCCL_E_PTR, api, "sendRecvInfo must not be NULL");
    hccl_comm *c = comm;
    if (itemNum && c->nranks == 1) return fail(HCCL_E_PARA, api, "a world of one rank has no peer");
    p2p_item *it = calloc(itemNum ? itemNum : 1, sizeof *it);
    if (!it) return fail(HCCL_E_MEMORY, api, "out of memory");
    HcclResult rc = HCCL_SUCCESS;
    for (uint32_t i = 0; i < itemNum && !rc; i++) {
        const HcclSendRecvItem *x = &sendRecvInfo[i];
        if (x->sendRecvType != HCCL_SEND && x->sendRecvType != HCCL_RECV) {
            rc = fail(HCCL_E_PARA, api, "sendRecvInfo[%u].sendRecvType %d is neither HCCL_SEND nor HCCL_RECV", i,
                      (int)x->sendRecvType);
            break;
        }
        it[i] = (p2p_item){x->sendRecvType == HCCL_SEND, x->buf, 0, 0, 0, x->remoteRank, 0};
        rc = p2p_check(c, api, x->buf, x->count, x->dataType, x->remoteRank, &it[i].bytes);
    }
    if (!rc) rc = p2p_run(c, api, it, itemNum, stream);
    free(it);
    return rc;
}

HCCL_API HcclResult HcclGroupStart(void) {
    t_group_depth++;
    return HCCL_SUCCESS;
}

/* The outermost end runs the point-to-point calls of the group together, one batch per communicator. */
HCCL_API HcclResult HcclGroupEnd(void) {
    if (t_group_depth == 0) return fail(HCCL_E_PARA, "HcclGroupEnd", "no group was started");
    if (--t_group_depth) return HCCL_SUCCESS;
    HcclResult rc = HCCL_SUCCESS;
    p2p_item *batch = t_group_n ? malloc(t_group_n * sizeof *batch) : NULL;
    if (t_group_n && !batch) rc = fail(HCCL_E_MEMORY, "HcclGroupEnd", "out of memory");
    for (uint32_t i = 0; i < t_group_n && !rc; i++) {
        if (!t_group[i].comm) continue;
        hccl_comm *c = t_group[i].comm;
        aclrtStream s = t_group[i].stream;
        uint32_t nb = 0;
        for (uint32_t j = i; j < t_group_n; j++)
            if (t_group[j].comm == c) {
                batch[nb++] = t_group[j].item;
                t_group[j].comm = NULL;
            }
        if (!comm_ok(c)) rc = fail(HCCL_E_PARA, "HcclGroupEnd", "a communicator of the group was destroyed");
        else rc = p2p_run(c, "HcclGroupEnd", batch, nb, s);
    }
    free(batch);
    t_group_n = 0;
    return rc;
}

/* ---------------------------------------------------------------- collectives */
#define GET_COMM(api)                                                                    \
    if (!comm_ok(comm)) return fail(HCCL_E_PARA, api, "comm is not a live communicator"); \
    hccl_comm *c = comm

HCCL_API HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    const char *api = "HcclAllReduce";
    if (!op_ok(op)) return fail(HCCL_E_PARA, api, "op %d is not an HcclReduceOp", (int)op);
    GET_COMM(api);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (!reducible(dataType)) return fail(HCCL_E_NOT_SUPPORT, api, "dataType %d cannot be reduced", (int)dataType);
    if (c->nranks == 1) return identity(api, sendBuf, recvBuf, count, es, stream);
    HcclResult rc = check_common(c, api, es, count, 1, sendBuf, recvBuf);
    return rc ? rc : multi_reduce(c, OP_ALLREDUCE, sendBuf, recvBuf, count, dataType, op, 0, stream);
}

HCCL_API HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                               uint32_t root, HcclComm comm, aclrtStream stream) {
    const char *api = "HcclReduce";
    if (!op_ok(op)) return fail(HCCL_E_PARA, api, "op %d is not an HcclReduceOp", (int)op);
    GET_COMM(api);
    if (root >= c->nranks) return fail(HCCL_E_PARA, api, "root %u must be in [0, %u)", root, c->nranks);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (!reducible(dataType)) return fail(HCCL_E_NOT_SUPPORT, api, "dataType %d cannot be reduced", (int)dataType);
    if (c->nranks == 1) return identity(api, sendBuf, recvBuf, count, es, stream);
    HcclResult rc = check_common(c, api, es, count, 1, sendBuf, c->rank == root ? recvBuf : sendBuf);
    return rc ? rc : multi_reduce(c, OP_REDUCE, sendBuf, recvBuf, count, dataType, op, root, stream);
}

HCCL_API HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                  aclrtStream stream) {
    const char *api = "HcclBroadcast";
    GET_COMM(api);
    if (root >= c->nranks) return fail(HCCL_E_PARA, api, "root %u must be in [0, %u)", root, c->nranks);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (c->nranks == 1) return identity(api, buf, buf, count, es, stream);
    HcclResult rc = check_common(c, api, es, count, 1, buf, buf);
    return rc ? rc : multi_broadcast(c, buf, count, dataType, root, stream);
}

HCCL_API HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                  HcclComm comm, aclrtStream stream) {
    const char *api = "HcclAllGather";
    GET_COMM(api);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (c->nranks == 1) return identity(api, sendBuf, recvBuf, sendCount, es, stream);
    HcclResult rc = check_common(c, api, es, sendCount, c->nranks, sendBuf, recvBuf);
    return rc ? rc : multi_allgather(c, sendBuf, recvBuf, sendCount, dataType, stream);
}

HCCL_API HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                      HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    const char *api = "HcclReduceScatter";
    if (!op_ok(op)) return fail(HCCL_E_PARA, api, "op %d is not an HcclReduceOp", (int)op);
    GET_COMM(api);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (!reducible(dataType)) return fail(HCCL_E_NOT_SUPPORT, api, "dataType %d cannot be reduced", (int)dataType);
    if (c->nranks == 1) return identity(api, sendBuf, recvBuf, recvCount, es, stream);
    HcclResult rc = check_common(c, api, es, recvCount, c->nranks, sendBuf, recvBuf);
    return rc ? rc : multi_parts(c, OP_REDUCESCATTER, sendBuf, recvBuf, recvCount, dataType, op, 0, stream);
}

HCCL_API HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                                HcclComm comm, aclrtStream stream) {
    const char *api = "HcclScatter";
    GET_COMM(api);
    if (root >= c->nranks) return fail(HCCL_E_PARA, api, "root %u must be in [0, %u)", root, c->nranks);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (c->nranks == 1) return identity(api, sendBuf, recvBuf, recvCount, es, stream);
    HcclResult rc = check_common(c, api, es, recvCount, c->nranks, c->rank == root ? sendBuf : recvBuf, recvBuf);
    return rc ? rc : multi_parts(c, OP_SCATTER, sendBuf, recvBuf, recvCount, dataType, 0, root, stream);
}

HCCL_API HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                                 uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    const char *api = "HcclAlltoAll";
    GET_COMM(api);
    if (sendCount != recvCount || sendType != recvType)
        return fail(HCCL_E_PARA, api, "sendCount %llu / sendType %d must equal recvCount %llu / recvType %d",
                    (unsigned long long)sendCount, (int)sendType, (unsigned long long)recvCount, (int)recvType);
    size_t es = dtype_size(sendType);
    if (!es) return fail(HCCL_E_PARA, api, "sendType %d is not an HcclDataType", (int)sendType);
    if (c->nranks == 1) return identity(api, sendBuf, (void *)recvBuf, sendCount, es, stream);
    HcclResult rc = check_common(c, api, es, sendCount, c->nranks, sendBuf, recvBuf);
    return rc ? rc : multi_parts(c, OP_ALLTOALL, sendBuf, (char *)recvBuf, sendCount, sendType, 0, 0, stream);
}

/* The variable-size exchanges: the rank's own part is copied locally, the others go point to point. */
static HcclResult local_copy(hccl_comm *c, const char *api, char *dst, const char *src, size_t bytes,
                             aclrtStream s) {
    if (!bytes || dst == src) return HCCL_SUCCESS;
    if (aclrtMemcpyAsync(dst, bytes, src, bytes, ACL_MEMCPY_DEVICE_TO_DEVICE, s) != ACL_SUCCESS) {
        set_broken(c);
        return fail(HCCL_E_RUNTIME, api, "%s", aclGetRecentErrMsg());
    }
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                  HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                  const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    const char *api = "HcclAlltoAllV";
    if (!sendCounts || !sdispls || !recvCounts || !rdispls)
        return fail(HCCL_E_PTR, api, "counts and displacements must not be NULL");
    GET_COMM(api);
    size_t es = dtype_size(sendType);
    if (!es || sendType != recvType)
        return fail(HCCL_E_PARA, api, "sendType %d and recvType %d must be the same HcclDataType", (int)sendType,
                    (int)recvType);
    const uint64_t *sc = sendCounts, *sd = sdispls, *rcn = recvCounts, *rd = rdispls;
    uint32_t n = c->nranks, me = c->rank;
    for (uint32_t j = 0; j < n; j++) {
        if (sc[j] > (uint64_t)PTRDIFF_MAX / es || sd[j] > (uint64_t)PTRDIFF_MAX / es - sc[j] ||
            rcn[j] > (uint64_t)PTRDIFF_MAX / es || rd[j] > (uint64_t)PTRDIFF_MAX / es - rcn[j])
            return fail(HCCL_E_PARA, api, "count or displacement of rank %u is too large", j);
        if ((sc[j] && !sendBuf) || (rcn[j] && !recvBuf))
            return fail(HCCL_E_PTR, api, "sendBuf and recvBuf must not be NULL");
    }
    if (sc[me] != rcn[me])
        return fail(HCCL_E_PARA, api, "sendCounts[%u] %llu must equal recvCounts[%u] %llu (the rank's own part)", me,
                    (unsigned long long)sc[me], me, (unsigned long long)rcn[me]);
    if (n == 1) {
        if (!sc[0]) return HCCL_SUCCESS;
        return identity(api, (const char *)sendBuf + sd[0] * es, (char *)recvBuf + rd[0] * es, sc[0], es, stream);
    }
    call_desc d = {OP_ALLTOALLV, sendType, 0, 0, 0};
    HcclResult rc = coll_begin(c, &d);
    if (rc) return rc;
    rc = local_copy(c, api, (char *)recvBuf + rd[me] * es, (const char *)sendBuf + sd[me] * es, sc[me] * es, stream);
    if (rc) return rc;
    p2p_item it[2 * MAX_RANKS];
    uint32_t ni = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (j == me) continue;
        it[ni++] = (p2p_item){1, (char *)sendBuf + sd[j] * es, 0, sc[j] * es, 0, j, 0};
        it[ni++] = (p2p_item){0, (char *)recvBuf + rd[j] * es, 0, rcn[j] * es, 0, j, 0};
    }
    /* a zero-byte part is still one (empty) message: a count mismatch is found, not waited for */
    return p2p_run(c, api, it, ni, stream);
}

HCCL_API HcclResult HcclAllGatherV(void *sendBuf, uint64_t sendCount, void *recvBuf, const void *recvCounts,
                                   const void *recvDispls, HcclDataType dataType, HcclComm comm, aclrtStream stream) {
    const char *api = "HcclAllGatherV";
    if (!recvCounts || !recvDispls) return fail(HCCL_E_PTR, api, "recvCounts and recvDispls must not be NULL");
    GET_COMM(api);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    const uint64_t *rcn = recvCounts, *rd = recvDispls;
    uint32_t n = c->nranks, me = c->rank;
    for (uint32_t j = 0; j < n; j++) {
        if (rcn[j] > (uint64_t)PTRDIFF_MAX / es || rd[j] > (uint64_t)PTRDIFF_MAX / es - rcn[j])
            return fail(HCCL_E_PARA, api, "count or displacement of rank %u is too large", j);
        if (rcn[j] && !recvBuf) return fail(HCCL_E_PTR, api, "recvBuf must not be NULL");
    }
    if (sendCount != rcn[me])
        return fail(HCCL_E_PARA, api, "sendCount %llu must equal recvCounts[%u] %llu", (unsigned long long)sendCount,
                    me, (unsigned long long)rcn[me]);
    if (sendCount && !sendBuf) return fail(HCCL_E_PTR, api, "sendBuf must not be NULL");
    if (n == 1) return identity(api, sendBuf, (char *)recvBuf + rd[0] * es, sendCount, es, stream);
    call_desc d = {OP_ALLGATHERV, dataType, 0, 0, 0};
    HcclResult rc = coll_begin(c, &d);
    if (rc) return rc;
    rc = local_copy(c, api, (char *)recvBuf + rd[me] * es, sendBuf, sendCount * es, stream);
    if (rc) return rc;
    p2p_item it[2 * MAX_RANKS];
    uint32_t ni = 0;
    for (uint32_t j = 0; j < n; j++) {
        if (j == me) continue;
        it[ni++] = (p2p_item){1, sendBuf, 0, sendCount * es, 0, j, 0};
        it[ni++] = (p2p_item){0, (char *)recvBuf + rd[j] * es, 0, rcn[j] * es, 0, j, 0};
    }
    return p2p_run(c, api, it, ni, stream);
}

HCCL_API HcclResult HcclReduceScatterV(void *sendBuf, const void *sendCounts, const void *sendDispls, void *recvBuf,
                                       uint64_t recvCount, HcclDataType dataType, HcclReduceOp op, HcclComm comm,
                                       aclrtStream stream) {
    const char *api = "HcclReduceScatterV";
    if (!sendCounts || !sendDispls) return fail(HCCL_E_PTR, api, "sendCounts and sendDispls must not be NULL");
    if (!op_ok(op)) return fail(HCCL_E_PARA, api, "op %d is not an HcclReduceOp", (int)op);
    GET_COMM(api);
    size_t es = dtype_size(dataType);
    if (!es) return fail(HCCL_E_PARA, api, "dataType %d is not an HcclDataType", (int)dataType);
    if (!reducible(dataType)) return fail(HCCL_E_NOT_SUPPORT, api, "dataType %d cannot be reduced", (int)dataType);
    const uint64_t *sc = sendCounts, *sd = sendDispls;
    uint32_t n = c->nranks, me = c->rank;
    for (uint32_t j = 0; j < n; j++) {
        if (sc[j] > (uint64_t)PTRDIFF_MAX / es / n || sd[j] > (uint64_t)PTRDIFF_MAX / es - sc[j])
            return fail(HCCL_E_PARA, api, "count or displacement of rank %u is too large", j);
        if (sc[j] && !sendBuf) return fail(HCCL_E_PTR, api, "sendBuf must not be NULL");
    }
    if (recvCount != sc[me])
        return fail(HCCL_E_PARA, api, "recvCount %llu must equal sendCounts[%u] %llu", (unsigned long long)recvCount,
                    me, (unsigned long long)sc[me]);
    if (recvCount && !recvBuf) return fail(HCCL_E_PTR, api, "recvBuf must not be NULL");
    if (n == 1) return identity(api, (char *)sendBuf + sd[0] * es, recvBuf, recvCount, es, stream);
    call_desc d = {OP_REDUCESCATTERV, dataType, op, 0, 0};
    HcclResult rc = coll_begin(c, &d);
    if (rc) return rc;
    size_t part = recvCount * es;
    char *parts = malloc(part * n + 1), *out = malloc(part + 1);
    if (!parts || !out) {
        free(parts);
        free(out);
        set_broken(c);
        return fail(HCCL_E_MEMORY, api, "out of memory");
    }
    rc = to_shm(c, api, parts + me * part, (char *)sendBuf + sd[me] * es, part, stream);
    p2p_item it[2 * MAX_RANKS];
    uint32_t ni = 0;
    for (uint32_t j = 0; j < n && !rc; j++) {
        if (j == me) continue;
        it[ni++] = (p2p_item){1, (char *)sendBuf + sd[j] * es, 0, sc[j] * es, 0, j, 0};
        it[ni++] = (p2p_item){0, parts + j * part, 1, part, 0, j, 0};
    }
    if (!rc) rc = p2p_run(c, api, it, ni, stream);
    if (!rc) {
        reduce_ranks(out, parts, part, n, recvCount, dataType, op);
        rc = from_shm(c, api, recvBuf, out, part, stream);
    }
    free(parts);
    free(out);
    return rc;
}

HCCL_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
    GET_COMM("HcclBarrier");
    if (c->nranks == 1) return HCCL_SUCCESS;
    if (aclrtSynchronizeStream(stream) != ACL_SUCCESS)
        return fail(HCCL_E_RUNTIME, "HcclBarrier", "%s", aclGetRecentErrMsg());
    call_desc d = {OP_BARRIER, 0, 0, 0, 0};
    return coll_begin(c, &d);
}

/* HCCL_DETERMINISTIC: the emulator's reductions are deterministic whatever is set (rank order 0..n-1); the value is
 * kept so that HcclGetConfig reads it back. */
static int32_t g_deterministic;

HCCL_API HcclResult HcclSetConfig(HcclConfig config, union HcclConfigValue configValue) {
    if (config != HCCL_DETERMINISTIC)
        return fail(HCCL_E_PARA, "HcclSetConfig", "config %d is not an HcclConfig", (int)config);
    if (configValue.value != 0 && configValue.value != 1)
        return fail(HCCL_E_PARA, "HcclSetConfig", "configValue %d of HCCL_DETERMINISTIC must be 0 or 1",
                    (int)configValue.value);
    g_deterministic = configValue.value;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetConfig(HcclConfig config, union HcclConfigValue *configValue) {
    if (!configValue) return fail(HCCL_E_PTR, "HcclGetConfig", "configValue must not be NULL");
    if (config != HCCL_DETERMINISTIC)
        return fail(HCCL_E_PARA, "HcclGetConfig", "config %d is not an HcclConfig", (int)config);
    configValue->value = g_deterministic;
    return HCCL_SUCCESS;
}
