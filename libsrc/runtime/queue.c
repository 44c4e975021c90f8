/* Deferred execution (the default; PYACLNN_SYNC=1 or PYACLNN_ASYNC=0: eager): one FIFO per stream and ONE dispatcher thread for all of them.
 *
 * Rules (README "Deferred execution"):
 * - A task's status at launch is what validation decided; an error while it runs is kept on its stream and reported
 *   (once) by the next synchronisation of that stream or of the device, or by destroying the stream.
 * - Tasks of one stream run in order. A task with a gate (aclrtStreamWaitEvent) is ready when the record it waits
 *   for has run; a gate never blocks a thread, and a wait names a record already issued, so waits cannot deadlock.
 * - One task runs at a time (g_running): its OpenMP team is the only one busy (no oversubscription), and every
 *   kernel computes what it computes eagerly (bit-identical results).
 * - Who runs a task: a host thread that waits for the queues (a synchronisation or a drain) runs the ready tasks
 *   itself with its own OpenMP team, as eager execution would. The dispatcher runs tasks only while no host thread
 *   waits, once a task is GRACE_NS old (the time left to a host about to synchronise), then the following ready ones
 *   at once (a streak) until a host comes; it runs them on its own thread alone (a team of one), so the process
 *   never has a second OpenMP pool (see dispatcher()). A launch + synchronise loop thus runs every kernel on the
 *   host's pool exactly as eagerly, and a burst of launches the program does not wait for runs on one core beside
 *   the host.
 * - The dispatcher never polls: it sleeps in poll() and is woken by its timer (armed by a submission when no host
 *   waits and the timer is not armed: at most one wake-up per GRACE_NS in a launch + synchronise loop), by the last
 *   host leaving its wait with tasks left, by a task finishing with tasks left and no host waiting, or by a thread
 *   waiting with a timeout.
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
#include <poll.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>

#ifdef _OPENMP
#include <omp.h>
#endif

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
    uintptr_t wr_small[4]; /* wr when it has at most 4 entries (no allocation) */
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
/* The dispatcher sleeps in poll() on two descriptors: g_evfd (an eventfd: "look now") and g_tfd (a one-shot
 * CLOCK_MONOTONIC timerfd: "look when the oldest task is GRACE_NS old"). A submission only arms the timer when it is
 * not armed (a system call, no thread woken): a launch + synchronise loop wakes the dispatcher at most once per
 * GRACE_NS. (With a condition variable every submission had to wake it, and its 20 us grace wait then expired in
 * the middle of the host's kernel: two wake-ups of a third thread per task on a 2-core machine, one of them
 * preempting a thread of the running OpenMP team.) */
static int g_evfd = -1, g_tfd = -1;
static long g_timer_at; /* under g_mu: the armed deadline (now_ns clock), 0 = disarmed */
static int g_woken;     /* under g_mu: g_evfd written since the dispatcher last went to sleep */
static pthread_cond_t g_idle; /* threads waiting for tasks to finish (CLOCK_MONOTONIC for timed waits) */
static acl_queue *g_all;      /* every live queue, under g_mu */
static acl_queue *g_rr;       /* where the next round-robin scan starts */
static long g_total;          /* tasks queued or running, all queues (atomic reads outside g_mu) */
static long g_gen;            /* bumped whenever a task finishes (gates may have opened) */
/* Under g_mu: g_hosts host threads inside wait_zero_locked (they run ready tasks; the dispatcher takes none while
 * one is there); g_waiters threads blocked on g_idle. */
static int g_started, g_sleeping, g_waiters, g_running, g_stop, g_hosts;
static int g_urgent; /* under g_mu: threads in acl_q_sync_timeout (they run no task: the dispatcher takes them now) */
static pthread_t g_thread;
static _Thread_local bool t_worker;
static _Thread_local bool t_dispatcher;

/* A host thread waiting for a task the dispatcher (or another host) runs spins this long, once, before it sleeps. */
#define SPIN_NS 20000L
/* The dispatcher leaves a new task this long to a host thread that is about to synchronise (launch + synchronise
 * then runs it on the host: no hand-off, the host's OpenMP pool as eagerly); after it, the dispatcher takes it.
 * Longer than a scheduler tick (4 ms at HZ=250): a timer that far ahead is not the CPU's next one, so arming and
 * disarming it does not reprogram the clock-event device (measured in a VM: 0.4 + 0.7 us at 5 ms, 8 + 8 us at
 * 20 us, each reprogramming a VM exit), and a host descheduled for a few ms still runs its own tasks. */
#define GRACE_NS 5000000L

/* PYACLNN_QUEUE_STATS=1: at exit, who ran the tasks and how often the dispatcher woke (stderr). */
static long st_host_runs, st_disp_runs, st_disp_wakes, st_wakes_busy;
/* per kind of runner (0 host, 1 dispatcher): sum and min of the task's run time, sum of submit->start (one task
 * runs at a time: updated by its runner alone) */
static long st_run_sum[2], st_run_min[2] = {1L << 62, 1L << 62}, st_lat_sum[2];
static void print_stats(void) {
    fprintf(stderr, "pyaclnn queue: %ld tasks run by host threads, %ld by the dispatcher, %ld dispatcher wake-ups"
            " (%ld while a task ran)\n", st_host_runs, st_disp_runs, st_disp_wakes, st_wakes_busy);
    for (int k = 0; k < 2; k++) {
        long n = k ? st_disp_runs : st_host_runs;
        if (n)
            fprintf(stderr, "pyaclnn queue: %s: run mean %.1f us min %.1f us, submit->start mean %.1f us\n",
                    k ? "dispatcher" : "host", st_run_sum[k] / 1e3 / n, st_run_min[k] / 1e3, st_lat_sum[k] / 1e3 / n);
    }
}
static int g_stats;

static void init_conds(void) {
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
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
    /* queued is the default (issue 14); PYACLNN_SYNC=1 or PYACLNN_ASYNC=0 run every task inside its call */
    g_enabled = !(a && strcmp(a, "0") == 0) && !(s && strcmp(s, "1") == 0);
    init_conds();
    if (g_enabled) pthread_atfork(at_prepare, at_parent, at_child);
    const char *st = getenv("PYACLNN_QUEUE_STATS");
    if (g_enabled && st && strcmp(st, "1") == 0) {
        g_stats = 1;
        atexit(print_stats);
    }
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

/* Under g_mu: the dispatcher looks at the queues now. */
static void wake_locked(void) {
    if (g_woken || g_evfd < 0) return;
    uint64_t one = 1;
    if (write(g_evfd, &one, sizeof one) == (ssize_t)sizeof one) g_woken = 1;
}
/* Under g_mu: the dispatcher looks at the queues at `at` (now_ns clock) at the latest. */
static void arm_locked(long at) {
    if (g_tfd < 0 || (g_timer_at && g_timer_at <= at)) return;
    struct itimerspec it = {{0, 0}, {at / 1000000000L, at % 1000000000L}};
    if (timerfd_settime(g_tfd, TFD_TIMER_ABSTIME, &it, NULL) == 0) g_timer_at = at;
    else wake_locked();
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
    long t_start = g_stats ? now_ns() : 0;
    int rc = t->run(t->ctx);
    if (g_stats) {
        int k = t_dispatcher ? 1 : 0;
        long d = now_ns() - t_start;
        __atomic_add_fetch(&st_run_sum[k], d, __ATOMIC_RELAXED);
        __atomic_add_fetch(&st_lat_sum[k], t_start - t->t_submit, __ATOMIC_RELAXED);
        if (d < st_run_min[k]) st_run_min[k] = d;
    }
    char msg[sizeof q->msg];
    acl_err_capture_end(mark, rc ? msg : NULL, rc ? sizeof msg : 0);
    if (rc && !msg[0]) snprintf(msg, sizeof msg, "%s", t->what);
    if (t->drop) t->drop(t->ctx);
    t_worker = was_worker;

    pthread_mutex_lock(&g_mu);
    wr_remove_locked(t);
    if (t->wr != t->wr_small) free(t->wr);
    free(t);
    if (rc && !q->err) {
        q->err = rc;
        memcpy(q->msg, msg, sizeof msg);
    }
    q->busy = 0;
    g_running = 0;
    __atomic_sub_fetch(&q->pending, 1, __ATOMIC_ACQ_REL);
    long left = __atomic_sub_fetch(&g_total, 1, __ATOMIC_ACQ_REL);
    __atomic_add_fetch(&g_gen, 1, __ATOMIC_RELEASE);
    if (g_waiters) pthread_cond_broadcast(&g_idle); /* a waiting host may take the next task (its whole team) */
    if (g_sleeping && left && !g_hosts) wake_locked();
    return true;
}

static void *dispatcher(void *arg) {
    (void)arg;
    t_worker = true;
    t_dispatcher = true;
#ifdef _OPENMP
    /* Kernels run here on this thread alone: no OpenMP pool of its own. A second pool in the process (more libgomp
     * threads than CPUs) makes libgomp throttle the idle-wait spinning of EVERY pool, for the rest of the process:
     * the host's teams then sleep between parallel regions and each region waits for futex wake-ups (measured on
     * the 2-vCPU VM: eager grid_sampler forward 353 -> 657 us once an idle second pool exists). */
    omp_set_num_threads(1);
#endif
    bool streak = false; /* it ran a task and no host came: the following ready tasks need no grace */
    pthread_mutex_lock(&g_mu);
    for (;;) {
        if (!g_hosts && run_one_locked(NULL, streak || g_urgent ? 0 : GRACE_NS)) {
            streak = true;
            continue;
        }
        streak = false;
        if (g_stop && !g_total) break;
        if (g_total && !g_hosts && !g_running) {
            /* young ready work no host has come for yet: look again when the oldest is GRACE_NS old (gated heads
             * open when a task ends, which wakes the dispatcher) */
            long oldest = 0;
            for (acl_queue *q = g_all; q; q = q->next_all)
                if (q->head && (!q->head->ready || q->head->ready(q->head->ctx)) &&
                    (!oldest || q->head->t_submit < oldest))
                    oldest = q->head->t_submit;
            if (oldest) arm_locked(oldest + GRACE_NS);
        }
        /* sleep until a wake-up or the timer; neither is lost between the unlock and poll() */
        g_sleeping = 1;
        g_woken = 0;
        pthread_mutex_unlock(&g_mu);
        struct pollfd pf[2] = {{g_evfd, POLLIN, 0}, {g_tfd, POLLIN, 0}};
        while (poll(pf, 2, -1) < 0 && errno == EINTR) {
        }
        uint64_t drain;
        if (pf[0].revents & POLLIN) (void)!read(g_evfd, &drain, sizeof drain);
        if (pf[1].revents & POLLIN) (void)!read(g_tfd, &drain, sizeof drain);
        pthread_mutex_lock(&g_mu);
        g_sleeping = 0;
        if (g_timer_at && now_ns() >= g_timer_at) g_timer_at = 0; /* it went off: the next submission re-arms it */
        st_disp_wakes++;
        if (g_running) st_wakes_busy++;
    }
    pthread_mutex_unlock(&g_mu);
    return NULL;
}

static int submit(acl_queue *q, bool (*ready)(void *), acl_task_fn run, void (*drop)(void *), void *ctx,
                  const char *what, const void *const *writes, const uintptr_t *bases, int nwrites) {
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
    *t = (acl_task){run, ready, drop, ctx, what, now_ns(), NULL, 0, {0}, NULL};
    /* what it writes, by allocation (memory the runtime does not know counts as base 0) */
    if (nwrites > 0 && nwrites <= (int)(sizeof t->wr_small / sizeof t->wr_small[0])) t->wr = t->wr_small;
    else if (nwrites > 0 && !(t->wr = malloc((size_t)nwrites * sizeof *t->wr))) {
        free(t);
        if (drop) drop(ctx);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing %s", what);
    }
    for (int i = 0; i < nwrites; i++) {
        uintptr_t base = 0;
        uint64_t size;
        if (bases) {
            base = bases[i];
        } else {
            if (!writes[i]) continue;
            if (!acl_mem_block_of(writes[i], &base, &size)) base = 0;
        }
        t->wr[t->nwr++] = base;
    }
    pthread_mutex_lock(&g_mu);
    if (!g_started) {
        g_stop = 0;
        if (g_evfd < 0) g_evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (g_tfd < 0) g_tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
        if (g_evfd < 0 || g_tfd < 0) {
            pthread_mutex_unlock(&g_mu);
            if (t->wr != t->wr_small) free(t->wr);
            free(t);
            return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot create the task dispatcher's descriptors for %s",
                              what);
        }
        int e = pthread_create(&g_thread, NULL, dispatcher, NULL);
        if (e != 0) {
            pthread_mutex_unlock(&g_mu);
            if (t->wr != t->wr_small) free(t->wr);
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
    /* no thread is woken: the dispatcher's timer is armed for when the task is GRACE_NS old, unless a host waits
     * (it runs the task) */
    if (g_sleeping && !g_hosts) arm_locked(t->t_submit + GRACE_NS);
    pthread_mutex_unlock(&g_mu);
    return 0;
}

int acl_q_submit(acl_queue *q, acl_task_fn run, void (*drop)(void *), void *ctx, const char *what,
                 const void *const *writes, int nwrites) {
    return submit(q, NULL, run, drop, ctx, what, writes, NULL, nwrites);
}

int acl_q_submit_at(acl_queue *q, acl_task_fn run, void (*drop)(void *), void *ctx, const char *what,
                    const uintptr_t *bases, int nbases) {
    return submit(q, NULL, run, drop, ctx, what, NULL, bases, nbases);
}

int acl_q_submit_gated(acl_queue *q, bool (*ready)(void *), acl_task_fn run, void (*drop)(void *), void *ctx,
                       const char *what) {
    return submit(q, ready, run, drop, ctx, what, NULL, NULL, 0);
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

/* Waits until *counter is 0, running ready tasks itself (prefer's first) whenever no task is running; otherwise
 * spins briefly (once), then sleeps on g_idle (woken when a task ends). Returns with g_mu held. */
static void wait_zero_locked(long *counter, acl_queue *prefer) {
    pthread_mutex_lock(&g_mu);
    g_hosts++; /* the dispatcher's timer stays armed (disarming costs a system call per synchronisation; it goes off
                * at most once per GRACE_NS, and the dispatcher, seeing a host, sleeps again) */
    bool spun = false;
    while (*counter != 0) {
        if (run_one_locked(prefer, 0)) continue;
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
    if (!g_hosts && g_total && g_sleeping) wake_locked(); /* the rest is the dispatcher's again */
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
    g_urgent++;
    while (q->pending != 0) {
        if (g_sleeping) wake_locked();
        g_waiters++;
        int e = pthread_cond_timedwait(&g_idle, &g_mu, &dl);
        g_waiters--;
        if (e == ETIMEDOUT && q->pending != 0) {
            timed_out = true;
            break;
        }
    }
    g_urgent--;
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
    bool ran = run_one_locked(NULL, 0);
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
    wake_locked();
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
    g_started = g_sleeping = g_waiters = g_running = g_hosts = g_woken = g_urgent = 0;
    g_timer_at = 0;
    /* the parent's descriptors are shared with it (the same timer): the child makes its own */
    if (g_evfd >= 0) close(g_evfd);
    if (g_tfd >= 0) close(g_tfd);
    g_evfd = g_tfd = -1;
    t_worker = false;
}
