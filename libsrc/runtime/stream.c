/* Streams and events. By default the second phase of an op is queued on its stream (queue.c; issue 14 supersedes
 * SPEC Decision 5, which PYACLNN_SYNC=1 or PYACLNN_ASYNC=0 bring back: every task runs inside its call);
 * records / waits of events are tasks too. What a queue makes visible is
 * enforced by the stream checker (streamcheck.c), which these calls feed with the program's synchronisation:
 * stream order, events recorded and waited for, host synchronisation. Events record a host timestamp. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "common/registry.h"
#include "common/status.h"
#include "runtime/queue.h"
#include "runtime/runtime.h"

/* With PYACLNN_ASYNC=1 a stream owns a task queue (queue.c); an event counts the records issued (rec_gen) and
 * the records whose task has run (done_gen), under g_ev_mu, so waits and queries see the queued state. */
typedef struct { acl_queue *q; } acl_stream;
typedef struct { int recorded; double t_ms; uint64_t rec_gen, done_gen; } acl_event;

static pthread_mutex_t g_ev_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_ev_cv = PTHREAD_COND_INITIALIZER;

acl_queue *acl_stream_queue(aclrtStream stream) {
    if (!acl_q_enabled()) return NULL;
    return stream ? ((acl_stream *)stream)->q : acl_q_default();
}

bool acl_stream_valid(aclrtStream stream) {
    return stream == NULL || acl_reg_is(stream, ACL_KIND_STREAM);
}

static int check_stream(aclrtStream stream) {
    if (!acl_stream_valid(stream))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "stream %p is not a live stream", stream);
    return ACL_SUCCESS;
}

aclError aclrtCreateStream(aclrtStream *stream) {
    acl_set_api("aclrtCreateStream");
    if (!stream) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "stream must not be NULL");
    ACL_TRY(acl_require_context());
    acl_stream *s = calloc(1, sizeof *s);
    if (s && acl_q_enabled() && !(s->q = acl_q_create())) {
        free(s);
        s = NULL;
    }
    if (!s || !acl_reg_add(s, ACL_KIND_STREAM)) {
        if (s) acl_q_destroy(s->q);
        free(s);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory creating a stream");
    }
    *stream = s;
    return ACL_SUCCESS;
}

aclError aclrtDestroyStream(aclrtStream stream) {
    acl_set_api("aclrtDestroyStream");
    if (!stream) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "stream must not be NULL");
    if (!acl_reg_is(stream, ACL_KIND_STREAM))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "stream %p is not a live stream (destroyed twice?)", stream);
    ACL_TRY(acl_sc_destroy_stream(stream));
    if (!acl_reg_remove(stream, ACL_KIND_STREAM))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "stream %p is not a live stream (destroyed twice?)", stream);
    int rc = acl_q_destroy(((acl_stream *)stream)->q); /* drains: its tasks run before it goes */
    free(stream);
    return rc;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    acl_set_api("aclrtSynchronizeStream");
    ACL_TRY(check_stream(stream));
    int rc = acl_q_sync(acl_stream_queue(stream));
    acl_sc_sync_stream(stream);
    return rc;
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    acl_set_api("aclrtSynchronizeStreamWithTimeout");
    if (timeout < -1) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "timeout %d must be -1 or >= 0", (int)timeout);
    ACL_TRY(check_stream(stream));
    /* -1 (and 0) wait for ever; > 0: at most that many milliseconds, then ACL_ERROR_RT_STREAM_SYNC_TIMEOUT with the
     * tasks still queued (the host is not synchronised with them: the stream checker keeps them pending). */
    int rc = acl_q_sync_timeout(acl_stream_queue(stream), timeout > 0 ? (long)timeout : -1L);
    if (rc == ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) return rc;
    acl_sc_sync_stream(stream);
    return rc;
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
    acl_set_api("aclrtStreamQuery");
    if (!status) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "status must not be NULL");
    ACL_TRY(check_stream(stream));
    if (acl_q_busy(acl_stream_queue(stream))) {
        *status = ACL_STREAM_STATUS_NOT_READY;
        return ACL_SUCCESS;
    }
    *status = ACL_STREAM_STATUS_COMPLETE; /* every task has run: the host now knows it */
    acl_sc_sync_stream(stream);
    return ACL_SUCCESS;
}

static int check_event(aclrtEvent event) {
    if (!event) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "event must not be NULL");
    if (!acl_reg_is(event, ACL_KIND_EVENT))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "event %p is not a live event", event);
    return ACL_SUCCESS;
}

typedef struct { acl_event *e; uint64_t gen; } ev_task;

/* The gate of a queued wait: open once the record issued as generation gen has run. The wait itself does nothing
 * (the dispatcher never blocks in it; the stream simply does not advance until the gate opens). */
static bool wait_ready(void *ctx) {
    ev_task *t = ctx;
    pthread_mutex_lock(&g_ev_mu);
    bool ok = t->e->done_gen >= t->gen;
    pthread_mutex_unlock(&g_ev_mu);
    return ok;
}
static int run_wait(void *ctx) {
    (void)ctx;
    return 0;
}

static double now_ms(void);

/* The record's task: the timestamp is taken when the stream reaches it. */
static int run_record(void *ctx) {
    ev_task *t = ctx;
    double now = now_ms();
    pthread_mutex_lock(&g_ev_mu);
    t->e->t_ms = now;
    t->e->recorded = 1;
    if (t->e->done_gen < t->gen) t->e->done_gen = t->gen;
    pthread_cond_broadcast(&g_ev_cv);
    pthread_mutex_unlock(&g_ev_mu);
    return 0;
}

/* Waits until every record of e issued so far has run. */
static void wait_event_done(acl_event *e) {
    pthread_mutex_lock(&g_ev_mu);
    while (e->done_gen < e->rec_gen) {
        pthread_mutex_unlock(&g_ev_mu);
        bool ran = acl_q_help(); /* run queued tasks here rather than only wait for the dispatcher */
        pthread_mutex_lock(&g_ev_mu);
        if (!ran && e->done_gen < e->rec_gen) pthread_cond_wait(&g_ev_cv, &g_ev_mu);
    }
    pthread_mutex_unlock(&g_ev_mu);
}

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    acl_set_api("aclrtStreamWaitEvent");
    ACL_TRY(check_event(event));
    ACL_TRY(check_stream(stream));
    acl_sc_wait_event(stream, event);
    acl_queue *q = acl_stream_queue(stream);
    if (q) {
        pthread_mutex_lock(&g_ev_mu);
        uint64_t gen = ((acl_event *)event)->rec_gen, done = ((acl_event *)event)->done_gen;
        pthread_mutex_unlock(&g_ev_mu);
        if (gen == 0 || done >= gen) return ACL_SUCCESS; /* never recorded, or its record has run: nothing to wait for */
        ev_task *t = malloc(sizeof *t);
        if (!t) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing the wait");
        *t = (ev_task){event, gen};
        return acl_q_submit_gated(q, wait_ready, run_wait, free, t, "aclrtStreamWaitEvent");
    }
    return ACL_SUCCESS;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

aclError aclrtCreateEvent(aclrtEvent *event) {
    acl_set_api("aclrtCreateEvent");
    if (!event) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "event must not be NULL");
    acl_event *e = calloc(1, sizeof *e);
    if (!e || !acl_reg_add(e, ACL_KIND_EVENT)) {
        free(e);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory creating an event");
    }
    *event = e;
    return ACL_SUCCESS;
}

aclError aclrtDestroyEvent(aclrtEvent event) {
    acl_set_api("aclrtDestroyEvent");
    if (!event) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "event must not be NULL");
    if (!acl_reg_remove(event, ACL_KIND_EVENT))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "event %p is not a live event (destroyed twice?)", event);
    acl_sc_destroy_event(event);
    acl_q_drain_all(); /* no queued record or wait may still use it */
    free(event);
    return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    acl_set_api("aclrtRecordEvent");
    ACL_TRY(check_event(event));
    ACL_TRY(check_stream(stream));
    acl_event *e = event;
    acl_sc_record_event(event, stream);
    acl_queue *q = acl_stream_queue(stream);
    if (!q) {
        e->t_ms = now_ms();
        e->recorded = 1;
        return ACL_SUCCESS;
    }
    ev_task *t = malloc(sizeof *t);
    if (!t) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing the record");
    pthread_mutex_lock(&g_ev_mu);
    t->e = e;
    t->gen = ++e->rec_gen;
    pthread_mutex_unlock(&g_ev_mu);
    return acl_q_submit(q, run_record, free, t, "aclrtRecordEvent", NULL, 0);
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
    acl_set_api("aclrtResetEvent");
    ACL_TRY(check_event(event));
    ACL_TRY(check_stream(stream));
    if (acl_q_enabled()) wait_event_done(event);
    ((acl_event *)event)->recorded = 0;
    return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    acl_set_api("aclrtQueryEventStatus");
    if (!status) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "status must not be NULL");
    ACL_TRY(check_event(event));
    if (acl_q_enabled()) {
        acl_event *e = event;
        pthread_mutex_lock(&g_ev_mu);
        bool pending = e->done_gen < e->rec_gen;
        pthread_mutex_unlock(&g_ev_mu);
        if (pending) {
            *status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
            return ACL_SUCCESS;
        }
    }
    *status = ((acl_event *)event)->recorded ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    if (((acl_event *)event)->recorded) acl_sc_sync_event(event); /* a completed event is a synchronisation */
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
    acl_set_api("aclrtSynchronizeEvent");
    ACL_TRY(check_event(event));
    if (acl_q_enabled()) wait_event_done(event);
    acl_sc_sync_event(event);
    return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    acl_set_api("aclrtEventElapsedTime");
    if (!ms) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "ms must not be NULL");
    ACL_TRY(check_event(startEvent));
    ACL_TRY(check_event(endEvent));
    acl_event *a = startEvent, *b = endEvent;
    if (acl_q_enabled()) { /* the stamps are taken when the records run: wait for them */
        wait_event_done(a);
        wait_event_done(b);
    }
    if (!a->recorded || !b->recorded)
        return ACL_REPORT(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "both events must be recorded before timing them");
    *ms = (float)(b->t_ms - a->t_ms);
    return ACL_SUCCESS;
}
