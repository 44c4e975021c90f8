/* Streams and events. Ops run inside their second phase (SPEC Decision 5); what a queue would make visible is
 * enforced by the stream checker (streamcheck.c), which these calls feed with the program's synchronisation:
 * stream order, events recorded and waited for, host synchronisation. Events record a host timestamp. */
#include <stdlib.h>
#include <time.h>

#include "common/registry.h"
#include "common/status.h"
#include "runtime/runtime.h"

typedef struct { int32_t unused; } acl_stream;
typedef struct { int recorded; double t_ms; } acl_event;

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
    if (!s || !acl_reg_add(s, ACL_KIND_STREAM)) {
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
    free(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStream(aclrtStream stream) {
    acl_set_api("aclrtSynchronizeStream");
    ACL_TRY(check_stream(stream));
    acl_sc_sync_stream(stream);
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout) {
    acl_set_api("aclrtSynchronizeStreamWithTimeout");
    if (timeout < -1) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "timeout %d must be -1 or >= 0", (int)timeout);
    ACL_TRY(check_stream(stream));
    acl_sc_sync_stream(stream);
    return ACL_SUCCESS;
}

aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status) {
    acl_set_api("aclrtStreamQuery");
    if (!status) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "status must not be NULL");
    ACL_TRY(check_stream(stream));
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

aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event) {
    acl_set_api("aclrtStreamWaitEvent");
    ACL_TRY(check_event(event));
    ACL_TRY(check_stream(stream));
    acl_sc_wait_event(stream, event);
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
    free(event);
    return ACL_SUCCESS;
}

aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream) {
    acl_set_api("aclrtRecordEvent");
    ACL_TRY(check_event(event));
    ACL_TRY(check_stream(stream));
    acl_event *e = event;
    e->t_ms = now_ms();
    e->recorded = 1;
    acl_sc_record_event(event, stream);
    return ACL_SUCCESS;
}

aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream) {
    acl_set_api("aclrtResetEvent");
    ACL_TRY(check_event(event));
    ACL_TRY(check_stream(stream));
    ((acl_event *)event)->recorded = 0;
    return ACL_SUCCESS;
}

aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status) {
    acl_set_api("aclrtQueryEventStatus");
    if (!status) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "status must not be NULL");
    ACL_TRY(check_event(event));
    *status = ((acl_event *)event)->recorded ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    if (((acl_event *)event)->recorded) acl_sc_sync_event(event); /* a completed event is a synchronisation */
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeEvent(aclrtEvent event) {
    acl_set_api("aclrtSynchronizeEvent");
    ACL_TRY(check_event(event));
    acl_sc_sync_event(event);
    return ACL_SUCCESS;
}

aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent) {
    acl_set_api("aclrtEventElapsedTime");
    if (!ms) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "ms must not be NULL");
    ACL_TRY(check_event(startEvent));
    ACL_TRY(check_event(endEvent));
    acl_event *a = startEvent, *b = endEvent;
    if (!a->recorded || !b->recorded)
        return ACL_REPORT(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, "both events must be recorded before timing them");
    *ms = (float)(b->t_ms - a->t_ms);
    return ACL_SUCCESS;
}
