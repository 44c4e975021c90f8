/* Deferred execution (PYACLNN_ASYNC=1): one FIFO per stream and ONE dispatcher thread for all of them.
 *
 * Rules (README "Deferred execution"):
 * - A task's status at launch is what validation decided; an error while it runs is kept on its stream and reported
 *   (once) by the next synchronisation of that stream or of the device, or by destroying the stream.
 * - Tasks of one stream run in order. A task with a gate (aclrtStreamWaitEvent) is ready when the record it waits
 *   for has run; a gate never blocks a thread, and a wait names a record already issued, so waits cannot deadlock.
 * - One task runs at a time (g_running): its OpenMP team is the only one busy (no oversubscription), and every
 *   kernel computes what it computes eagerly (bit-identical results).
 * - Who runs a task: a host thread that waits for the queues (a synchronisation or a drain) runs the ready tasks
 *   itself, as eager execution would, unless the dispatcher is in a streak; the dispatcher runs tasks only when no
 *   host thread waits (after a grace period GRACE_NS, left to a host that is about to synchronise) or when it is
 *   in a streak (it took a task and keeps going while tasks are ready; hosts then wait). So a launch + synchronise
 *   loop runs every kernel on the host thread with the host's OpenMP pool, exactly as eagerly, and a burst of
 *   launches the program does not wait for runs on the dispatcher's pool; two pools never run at once and the idle
 *   one is never woken by the queue.
 * - The dispatcher never polls while a host thread runs or waits: it sleeps on g_work and is woken by a submission
 *   (when no host waits), by the last host leaving its wait with tasks left, or by a task finishing with tasks
 *   left and no host waiting. (The first version napped in 20 us timed waits while a host ran a task: ~50 wake-ups
 *   of a third thread per ms of kernel on a 2-core machine, the 30-60% slowdown of the seed benches.)
 * - A host thread waiting with a timeout (aclrtSynchronizeStreamWithTimeout) never runs a task (it could not give
 *   up in the middle of one): it lets the dispatcher run them and gives up at the deadline.
 * - fork(): the prepare handler drains every queue and holds the lock; the child starts with empty queues and no
 *   dispatcher (a new one starts at its first queued task). */
#include "runtime/queue.h"

#include <errno.h>
#include <stdint.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "common/status.h"
#include "runtime/runtime.h"

typedef struct acl_task {
    acl_task_fn run;
    bool (*ready)(void *);
    void (*drop)(void *);
    void *ctx;
    const char *what;
    long t_submit; /* now_ns() at submission */
    uintptr_t *wr; /* the allocations (bases; 0: memory the runtime does not know) the task writes */
    int nwr;
    struct acl_task *next;
} acl_task;

struct acl_queue {
    acl_task *head, *tail;
    long pending; /* queued or running tasks of this queue (atomic reads outside g_mu) */
    int busy;
    int err;
    char msg[1024];
    struct acl_queue *next_all;
};

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_work; /* the dispatcher waits here (CLOCK_MONOTONIC for its grace waits) */
static pthread_cond_t g_idle; /* threads waiting for tasks to finish (CLOCK_MONOTONIC for timed waits) */
static acl_queue *g_all;      /* every live queue, under g_mu */
static acl_queue *g_rr;       /* where the next round-robin scan starts */
static long g_total;          /* tasks queued or running, all queues (atomic reads outside g_mu) */
static long g_gen;            /* bumped whenever a task finishes (gates may have opened) */
/* Under g_mu: g_hosts host threads inside wait_zero_locked (they run ready tasks); g_waiters threads blocked on
 * g_idle; g_streak: the dispatcher took a task and keeps the following ready ones (hosts wait meanwhile). */
static int g_started, g_sleeping, g_waiters, g_running, g_stop, g_hosts, g_streak;
static pthread_t g_thread;
static _Thread_local bool t_worker;
static _Thread_local bool t_dispatcher;

/* A host thread waiting for a task the dispatcher (or another host) runs spins this long, once, before it sleeps. */
#define SPIN_NS 20000L
/* The dispatcher leaves a new task this long to a host thread that is about to synchronise (launch + synchronise
 * then runs it on the host: no hand-off, the host's OpenMP pool as eagerly); after it, the dispatcher takes it. */
#define GRACE_NS 20000L

/* PYACLNN_QUEUE_STATS=1: at exit, who ran the tasks and how often the dispatcher woke (stderr). */
static long st_host_runs, st_disp_runs, st_disp_wakes;
static void print_stats(void) {
    fprintf(stderr, "pyaclnn queue: %ld tasks run by host threads, %ld by the dispatcher, %ld dispatcher wake-ups\n",
            st_host_runs, st_disp_runs, st_disp_wakes);
}

static void init_conds(void) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&g_work, &ca);
    pthread_cond_init(&g_idle, &ca);
    pthread_condattr_destroy(&ca);
}

/* Under g_mu: how many queued or running tasks write each allocation (by base; base 0 counts writes to memory the
 * runtime does not know). A first phase waits for the queues only when a tensor argument lies in one of these. */
typedef struct { uintptr_t base; long n; } wr_ent;
static wr_ent *g_wr;
static int g_nwr, g_capwr;

static bool g_wr_lost; /* out of memory once: every pending task counts as writing everything (never reset) */

static void wr_add_locked(const acl_task *t) {
    for (int i = 0; i < t->nwr && !g_wr_lost; i++) {
        int j = 0;
        while (j < g_nwr && g_wr[j].base != t->wr[i]) j++;
        if (j == g_nwr) {
            if (g_nwr == g_capwr) {
                int nc = g_capwr ? 2 * g_capwr : 16;
                wr_ent *nw = realloc(g_wr, (size_t)nc * sizeof *nw);
                if (!nw) {
                    g_wr_lost = true;
                    break;
                }
                g_wr = nw;
                g_capwr = nc;
            }
            g_wr[g_nwr++] = (wr_ent){t->wr[i], 0};
        }
        g_wr[j].n++;
    }
}
static void wr_remove_locked(const acl_task *t) {
    if (g_wr_lost) return;
    for (int i = 0; i < t->nwr; i++)
        for (int j = 0; j < g_nwr; j++)
            if (g_wr[j].base == t->wr[i]) {
                if (--g_wr[j].n == 0) g_wr[j] = g_wr[--g_nwr];
                break;
            }
}

static int g_enabled = -1;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void at_prepare(void);
static void at_parent(void);
static void at_child(void);

static void read_env(void) {
    const char *a = getenv("PYACLNN_ASYNC"), *s = getenv("PYACLNN_SYNC");
    g_enabled = a && strcmp(a, "1") == 0 && !(s && strcmp(s, "1") == 0);
    init_conds();
    if (g_enabled) pthread_atfork(at_prepare, at_parent, at_child);
    const char *st = getenv("PYACLNN_QUEUE_STATS");
    if (g_enabled && st && strcmp(st, "1") == 0) atexit(print_stats);
}
bool acl_q_enabled(void) {
    pthread_once(&g_once, read_env);
    return g_enabled == 1;
}
bool acl_q_in_worker(void) { return t_worker; }

static long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void queue_init(acl_queue *q) {
    memset(q, 0, sizeof *q);
    pthread_mutex_lock(&g_mu);
    q->next_all = g_all;
    g_all = q;
    pthread_mutex_unlock(&g_mu);
}

acl_queue *acl_q_create(void) {
    acl_queue *q = malloc(sizeof *q);
    if (q) queue_init(q);
    return q;
}

static acl_queue g_default;
static pthread_once_t g_default_once = PTHREAD_ONCE_INIT;
static void default_init(void) { queue_init(&g_default); }
acl_queue *acl_q_default(void) {
    pthread_once(&g_default_once, default_init);
    return &g_default;
}

static long g_min_age; /* under g_mu: set by the dispatcher around its scan (0 for host threads) */
static bool head_ready(acl_queue *q) {
    acl_task *t = q->head;
    if (!t || (t->ready && !t->ready(t->ctx))) return false;
    return !g_min_age || now_ns() - t->t_submit >= g_min_age;
}

static acl_task *pop_locked(acl_queue *q) {
    acl_task *t = q->head;
    q->head = t->next;
    if (!q->head) q->tail = NULL;
    q->busy = 1;
    return t;
}

/* Under g_mu: the next ready head (prefer's first, else round robin from g_rr), popped, its queue marked busy;
 * NULL when none. */
static acl_task *take_ready_locked(acl_queue *prefer, acl_queue **out) {
    if (prefer && head_ready(prefer)) {
        *out = prefer;
        return pop_locked(prefer);
    }
    if (!g_all) return NULL;
    acl_queue *start = g_rr ? g_rr : g_all, *q = start;
    do {
        if (head_ready(q)) {
            g_rr = q->next_all ? q->next_all : g_all;
            *out = q;
            return pop_locked(q);
        }
        q = q->next_all ? q->next_all : g_all;
    } while (q != start);
    return NULL;
}

/* Under g_mu (released while the task runs): runs the next ready task when none is running. Returns false when
 * nothing was run. On a host thread the thread's API name and pending messages are kept as they were. */
static bool run_one_locked(acl_queue *prefer, long min_age) {
    if (g_running) return false;
    acl_queue *q = NULL;
    g_min_age = min_age;
    acl_task *t = take_ready_locked(prefer, &q);
    g_min_age = 0;
    if (!t) return false;
    g_running = 1;
    if (t_dispatcher) st_disp_runs++;
    else st_host_runs++;
    pthread_mutex_unlock(&g_mu);

    bool was_worker = t_worker;
    t_worker = true; /* whatever the task calls runs inline and never waits for a queue */
    acl_err_mark mark = acl_err_capture_begin();
    acl_set_api(t->what);
    int rc = t->run(t->ctx);
    char msg[sizeof q->msg];
    acl_err_capture_end(mark, rc ? msg : NULL, rc ? sizeof msg : 0);
    if (rc && !msg[0]) snprintf(msg, sizeof msg, "%s", t->what);
    if (t->drop) t->drop(t->ctx);
    t_worker = was_worker;

    pthread_mutex_lock(&g_mu);
    wr_remove_locked(t);
    free(t->wr);
    free(t);
    if (rc && !q->err) {
        q->err = rc;
        memcpy(q->msg, msg, sizeof msg);
    }
    q->busy = 0;
    g_running = 0;
    long left_q = __atomic_sub_fetch(&q->pending, 1, __ATOMIC_ACQ_REL);
    long left = __atomic_sub_fetch(&g_total, 1, __ATOMIC_ACQ_REL);
    __atomic_add_fetch(&g_gen, 1, __ATOMIC_RELEASE);
    /* Waiters wait for a queue or for all queues to empty; in a streak they need waking only then (the streak's
     * end wakes them too). After a host's task another host may have to take the next one. */
    if (g_waiters && (!left_q || !left || !t_dispatcher)) pthread_cond_broadcast(&g_idle);
    if (g_sleeping && left && !g_hosts) pthread_cond_signal(&g_work);
    return true;
}

static void *dispatcher(void *arg) {
    (void)arg;
    t_worker = true;
    t_dispatcher = true;
    pthread_mutex_lock(&g_mu);
    for (;;) {
        if ((g_streak || !g_hosts) && run_one_locked(NULL, g_streak ? 0 : GRACE_NS)) {
            g_streak = 1;
            continue;
        }
        if (g_streak) { /* nothing ready: the streak is over, waiting hosts may run tasks again */
            g_streak = 0;
            if (g_waiters) pthread_cond_broadcast(&g_idle);
        }
        if (g_stop && !g_total) break;
        if (g_total && !g_hosts && !g_running) {
            /* young work no host has come for yet: look again when it is GRACE_NS old */
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            ts.tv_nsec += GRACE_NS;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&g_work, &g_mu, &ts);
        } else { /* no work, or a host thread runs or waits for it: sleep until someone needs the dispatcher */
            g_sleeping = 1;
            pthread_cond_wait(&g_work, &g_mu);
            g_sleeping = 0;
        }
        st_disp_wakes++;
    }
    pthread_mutex_unlock(&g_mu);
    return NULL;
}

static int submit(acl_queue *q, bool (*ready)(void *), acl_task_fn run, void (*drop)(void *), void *ctx,
                  const char *what, const void *const *writes, int nwrites) {
    if (!q || !acl_q_enabled() || t_worker) {
        int rc = run(ctx);
        if (drop) drop(ctx);
        return rc;
    }
    acl_task *t = malloc(sizeof *t);
    if (!t) {
        if (drop) drop(ctx);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing %s", what);
    }
    *t = (acl_task){run, ready, drop, ctx, what, now_ns(), NULL, 0, NULL};
    /* what it writes, by allocation (one extra slot: memory the runtime does not know counts as base 0) */
    if (nwrites > 0 && !(t->wr = malloc((size_t)nwrites * sizeof *t->wr))) {
        free(t);
        if (drop) drop(ctx);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing %s", what);
    }
    for (int i = 0; i < nwrites; i++) {
        uintptr_t base = 0;
        uint64_t size;
        if (!writes[i]) continue;
        if (!acl_mem_block_of(writes[i], &base, &size)) base = 0;
        t->wr[t->nwr++] = base;
    }
    pthread_mutex_lock(&g_mu);
    if (!g_started) {
        g_stop = 0;
        int e = pthread_create(&g_thread, NULL, dispatcher, NULL);
        if (e != 0) {
            pthread_mutex_unlock(&g_mu);
            free(t->wr);
            free(t);
            return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot start the task dispatcher thread for %s", what);
        }
        g_started = 1;
    }
    __atomic_add_fetch(&q->pending, 1, __ATOMIC_ACQ_REL);
    __atomic_add_fetch(&g_total, 1, __ATOMIC_ACQ_REL);
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
    wr_add_locked(t);
    if (g_sleeping && !g_hosts) pthread_cond_signal(&g_work); /* a waiting host runs it otherwise */
    pthread_mutex_unlock(&g_mu);
    return 0;
}

int acl_q_submit(acl_queue *q, acl_task_fn run, void (*drop)(void *), void *ctx, const char *what,
                 const void *const *writes, int nwrites) {
    return submit(q, NULL, run, drop, ctx, what, writes, nwrites);
}

int acl_q_submit_gated(acl_queue *q, bool (*ready)(void *), acl_task_fn run, void (*drop)(void *), void *ctx,
                       const char *what) {
    return submit(q, ready, run, drop, ctx, what, NULL, 0);
}

bool acl_q_writes_pending(const void *p) {
    if (!acl_q_enabled() || t_worker || __atomic_load_n(&g_total, __ATOMIC_ACQUIRE) == 0) return false;
    uintptr_t base = 0;
    uint64_t size;
    if (!acl_mem_block_of(p, &base, &size)) base = 0; /* unknown memory: only unknown writes may touch it */
    pthread_mutex_lock(&g_mu);
    bool hit = g_wr_lost && g_total > 0;
    for (int j = 0; j < g_nwr && !hit; j++) hit = g_wr[j].base == base;
    pthread_mutex_unlock(&g_mu);
    return hit;
}

/* Waits until *counter is 0, running ready tasks itself (prefer's first) while neither a task is running nor the
 * dispatcher is in a streak; otherwise spins briefly (once), then sleeps on g_idle. Returns with g_mu held. */
static void wait_zero_locked(long *counter, acl_queue *prefer) {
    pthread_mutex_lock(&g_mu);
    g_hosts++;
    bool spun = false;
    while (*counter != 0) {
        if (!g_streak && run_one_locked(prefer, 0)) continue;
        if (*counter == 0) break;
        if (!spun && g_running) {
            spun = true;
            pthread_mutex_unlock(&g_mu);
            long t0 = now_ns(), gen = __atomic_load_n(&g_gen, __ATOMIC_RELAXED);
            for (int i = 0; __atomic_load_n(&g_gen, __ATOMIC_RELAXED) == gen; i++) {
                cpu_relax();
                if ((i & 63) == 63 && now_ns() - t0 > SPIN_NS) break;
            }
            pthread_mutex_lock(&g_mu);
            continue;
        }
        g_waiters++;
        pthread_cond_wait(&g_idle, &g_mu);
        g_waiters--;
    }
    g_hosts--;
    if (!g_hosts && g_total && g_sleeping) pthread_cond_signal(&g_work); /* the rest is the dispatcher's again */
}

static int take_error_locked(acl_queue *q) {
    int err = q->err;
    if (err) {
        ACL_REPORT(err, "a task queued on the stream failed when it ran: %s", q->msg);
        q->err = 0;
        q->msg[0] = '\0';
    }
    return err;
}

int acl_q_sync(acl_queue *q) {
    if (!q || t_worker) return 0;
    wait_zero_locked(&q->pending, q);
    int err = take_error_locked(q);
    pthread_mutex_unlock(&g_mu);
    return err;
}

int acl_q_sync_timeout(acl_queue *q, long timeout_ms) {
    if (timeout_ms < 0) return acl_q_sync(q);
    if (!q || t_worker) return 0;
    struct timespec dl;
    clock_gettime(CLOCK_MONOTONIC, &dl);
    dl.tv_sec += timeout_ms / 1000;
    dl.tv_nsec += (timeout_ms % 1000) * 1000000L;
    if (dl.tv_nsec >= 1000000000L) {
        dl.tv_sec++;
        dl.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&g_mu);
    /* Not a host that runs tasks (it could not stop in the middle of one at the deadline): the dispatcher runs
     * them, at once (no grace: this thread is not going to). */
    bool timed_out = false;
    while (q->pending != 0) {
        if (g_sleeping) pthread_cond_signal(&g_work);
        g_waiters++;
        int e = pthread_cond_timedwait(&g_idle, &g_mu, &dl);
        g_waiters--;
        if (e == ETIMEDOUT && q->pending != 0) {
            timed_out = true;
            break;
        }
    }
    if (timed_out) {
        long left = q->pending;
        pthread_mutex_unlock(&g_mu);
        return ACL_REPORT(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT,
                          "the stream still has %ld queued or running task(s) after the %ld ms timeout", left,
                          timeout_ms);
    }
    int err = take_error_locked(q);
    pthread_mutex_unlock(&g_mu);
    return err;
}

void acl_q_wait(acl_queue *q) {
    if (!q || t_worker) return;
    wait_zero_locked(&q->pending, q);
    pthread_mutex_unlock(&g_mu);
}

bool acl_q_busy(acl_queue *q) {
    return q && __atomic_load_n(&q->pending, __ATOMIC_ACQUIRE) != 0;
}

int acl_q_sync_all(void) {
    if (!acl_q_enabled() || t_worker) return 0;
    wait_zero_locked(&g_total, NULL);
    int first = 0;
    for (acl_queue *q = g_all; q; q = q->next_all) {
        int e = take_error_locked(q);
        if (e && !first) first = e;
    }
    pthread_mutex_unlock(&g_mu);
    return first;
}

bool acl_q_help(void) {
    if (!acl_q_enabled() || t_worker || __atomic_load_n(&g_total, __ATOMIC_ACQUIRE) == 0) return false;
    pthread_mutex_lock(&g_mu);
    bool ran = !g_streak && run_one_locked(NULL, 0);
    pthread_mutex_unlock(&g_mu);
    return ran;
}

void acl_q_drain_all(void) {
    if (!acl_q_enabled() || t_worker || __atomic_load_n(&g_total, __ATOMIC_ACQUIRE) == 0) return;
    wait_zero_locked(&g_total, NULL);
    pthread_mutex_unlock(&g_mu);
}

int acl_q_destroy(acl_queue *q) {
    if (!q) return 0;
    if (t_worker) return 0;
    wait_zero_locked(&q->pending, q);
    int err = take_error_locked(q);
    for (acl_queue **pp = &g_all; *pp; pp = &(*pp)->next_all)
        if (*pp == q) {
            *pp = q->next_all;
            break;
        }
    if (g_rr == q) g_rr = NULL;
    pthread_mutex_unlock(&g_mu);
    if (q != &g_default) free(q);
    return err;
}

void acl_q_shutdown(void) {
    if (!acl_q_enabled() || t_worker) return;
    wait_zero_locked(&g_total, NULL);
    if (!g_started) {
        pthread_mutex_unlock(&g_mu);
        return;
    }
    g_stop = 1;
    pthread_cond_broadcast(&g_work);
    pthread_t th = g_thread;
    g_started = 0;
    pthread_mutex_unlock(&g_mu);
    pthread_join(th, NULL);
}

/* fork(): no task may be half-run in the child, and the child has no dispatcher thread. */
static void at_prepare(void) {
    if (t_worker) {
        pthread_mutex_lock(&g_mu);
        return;
    }
    wait_zero_locked(&g_total, NULL); /* returns holding g_mu */
}
static void at_parent(void) { pthread_mutex_unlock(&g_mu); }
static void at_child(void) {
    pthread_mutex_init(&g_mu, NULL);
    init_conds();
    g_started = g_sleeping = g_waiters = g_running = g_hosts = g_streak = 0;
    t_worker = false;
}
