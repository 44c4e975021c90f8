/* Deferred execution (PYACLNN_ASYNC=1): one FIFO and one worker thread per stream. A task's status at launch is
 * what validation decided; an error while it runs is kept and reported by the next synchronisation of its
 * stream (or of the device). Only one task runs at a time across all streams (a global token), so the OpenMP
 * team of the running kernel is the only one busy: no oversubscription, and every kernel computes exactly what
 * it computes eagerly (bit-identical results). Order between streams comes from events (stream.c). */
#include "runtime/queue.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "common/status.h"

typedef struct acl_task {
    acl_task_fn run;
    void (*drop)(void *);
    void *ctx;
    const char *what;
    struct acl_task *next;
} acl_task;

struct acl_queue {
    pthread_mutex_t mu;
    pthread_cond_t cv_work, cv_idle;
    acl_task *head, *tail;
    int busy, stop, started;
    pthread_t th;
    int err;
    char msg[1024];
    struct acl_queue *next_all;
};

static pthread_mutex_t g_list_mu = PTHREAD_MUTEX_INITIALIZER;
static acl_queue *g_all;
static pthread_mutex_t g_token = PTHREAD_MUTEX_INITIALIZER;
static long g_pending; /* tasks queued or running, all queues (atomic) */
static _Thread_local bool t_worker;

static int g_enabled = -1;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static void read_env(void) {
    const char *a = getenv("PYACLNN_ASYNC"), *s = getenv("PYACLNN_SYNC");
    g_enabled = a && strcmp(a, "1") == 0 && !(s && strcmp(s, "1") == 0);
}
bool acl_q_enabled(void) {
    pthread_once(&g_once, read_env);
    return g_enabled == 1;
}
bool acl_q_in_worker(void) { return t_worker; }

static void queue_init(acl_queue *q) {
    memset(q, 0, sizeof *q);
    pthread_mutex_init(&q->mu, NULL);
    pthread_cond_init(&q->cv_work, NULL);
    pthread_cond_init(&q->cv_idle, NULL);
    pthread_mutex_lock(&g_list_mu);
    q->next_all = g_all;
    g_all = q;
    pthread_mutex_unlock(&g_list_mu);
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

static void *worker(void *arg) {
    acl_queue *q = arg;
    t_worker = true;
    pthread_mutex_lock(&q->mu);
    for (;;) {
        while (!q->head && !q->stop) pthread_cond_wait(&q->cv_work, &q->mu);
        if (!q->head) break;
        acl_task *t = q->head;
        q->head = t->next;
        if (!q->head) q->tail = NULL;
        q->busy = 1;
        pthread_mutex_unlock(&q->mu);

        acl_set_api(t->what);
        pthread_mutex_lock(&g_token);
        int rc = t->run(t->ctx);
        pthread_mutex_unlock(&g_token);
        const char *m = rc ? aclGetRecentErrMsg() : NULL;
        if (t->drop) t->drop(t->ctx);

        pthread_mutex_lock(&q->mu);
        if (rc && !q->err) {
            q->err = rc;
            snprintf(q->msg, sizeof q->msg, "%s", m ? m : t->what);
        }
        free(t);
        q->busy = 0;
        __atomic_sub_fetch(&g_pending, 1, __ATOMIC_ACQ_REL);
        if (!q->head) pthread_cond_broadcast(&q->cv_idle);
    }
    pthread_mutex_unlock(&q->mu);
    return NULL;
}

int acl_q_submit(acl_queue *q, acl_task_fn run, void (*drop)(void *), void *ctx, const char *what) {
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
    *t = (acl_task){run, drop, ctx, what, NULL};
    pthread_mutex_lock(&q->mu);
    if (!q->started) {
        if (pthread_create(&q->th, NULL, worker, q) != 0) {
            pthread_mutex_unlock(&q->mu);
            free(t);
            int rc = run(ctx); /* no thread: run it in the call */
            if (drop) drop(ctx);
            return rc;
        }
        q->started = 1;
    }
    __atomic_add_fetch(&g_pending, 1, __ATOMIC_ACQ_REL);
    if (q->tail) q->tail->next = t;
    else q->head = t;
    q->tail = t;
    pthread_cond_signal(&q->cv_work);
    pthread_mutex_unlock(&q->mu);
    return 0;
}

static void wait_idle_locked(acl_queue *q) {
    while (q->head || q->busy) pthread_cond_wait(&q->cv_idle, &q->mu);
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
    pthread_mutex_lock(&q->mu);
    wait_idle_locked(q);
    int err = take_error_locked(q);
    pthread_mutex_unlock(&q->mu);
    return err;
}

bool acl_q_busy(acl_queue *q) {
    if (!q) return false;
    pthread_mutex_lock(&q->mu);
    bool b = q->head || q->busy;
    pthread_mutex_unlock(&q->mu);
    return b;
}

static int for_all(bool take) {
    if (t_worker || __atomic_load_n(&g_pending, __ATOMIC_ACQUIRE) == 0) {
        if (!take) return 0;
    }
    int first = 0;
    pthread_mutex_lock(&g_list_mu);
    for (acl_queue *q = g_all; q; q = q->next_all) {
        if (t_worker) break;
        pthread_mutex_lock(&q->mu);
        wait_idle_locked(q);
        if (take) {
            int e = take_error_locked(q);
            if (e && !first) first = e;
        }
        pthread_mutex_unlock(&q->mu);
    }
    pthread_mutex_unlock(&g_list_mu);
    return first;
}

int acl_q_sync_all(void) { return acl_q_enabled() ? for_all(true) : 0; }
void acl_q_drain_all(void) {
    if (acl_q_enabled()) for_all(false);
}

int acl_q_destroy(acl_queue *q) {
    if (!q) return 0;
    pthread_mutex_lock(&g_list_mu);
    for (acl_queue **pp = &g_all; *pp; pp = &(*pp)->next_all)
        if (*pp == q) {
            *pp = q->next_all;
            break;
        }
    pthread_mutex_unlock(&g_list_mu);
    pthread_mutex_lock(&q->mu);
    wait_idle_locked(q);
    int err = take_error_locked(q);
    q->stop = 1;
    pthread_cond_signal(&q->cv_work);
    int started = q->started;
    pthread_mutex_unlock(&q->mu);
    if (started) pthread_join(q->th, NULL);
    pthread_mutex_destroy(&q->mu);
    pthread_cond_destroy(&q->cv_work);
    pthread_cond_destroy(&q->cv_idle);
    free(q);
    return err;
}
