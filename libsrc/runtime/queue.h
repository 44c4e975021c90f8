/* Per-stream task queues run by one dispatcher thread (queue.c): deferred execution, the default (PYACLNN_SYNC=1 or PYACLNN_ASYNC=0: eager). */
#ifndef PYACLNN_RUNTIME_QUEUE_H
#define PYACLNN_RUNTIME_QUEUE_H

#include <stdbool.h>
#include <stdint.h>

typedef struct acl_queue acl_queue;
typedef int (*acl_task_fn)(void *ctx);

/* True unless PYACLNN_SYNC=1 or PYACLNN_ASYNC=0 (read once per process): queued is the default. */
bool acl_q_enabled(void);
/* True on the dispatcher thread (a task must never wait for a queue). */
bool acl_q_in_worker(void);
acl_queue *acl_q_create(void);
/* The queue of the default stream (NULL stream). */
acl_queue *acl_q_default(void);
/* Waits for the queue's tasks and frees it; returns the first unreported task error. */
int acl_q_destroy(acl_queue *q);
/* Eager: runs the task now and returns its status. Queued: appends it and returns 0; `drop` (may be NULL) is
 * called once after the task ran (or when it is discarded). `what` names the task in a deferred error; `writes`
 * (nwrites pointers, NULLs skipped) are the memory it writes (see acl_q_writes_pending). */
int acl_q_submit(acl_queue *q, acl_task_fn run, void (*drop)(void *), void *ctx, const char *what,
                 const void *const *writes, int nwrites);
/* As acl_q_submit, the memory it writes given as the bases of its allocations (acl_mem_block_of; 0 for memory the
 * runtime does not know), looked up by the caller. */
int acl_q_submit_at(acl_queue *q, acl_task_fn run, void (*drop)(void *), void *ctx, const char *what,
                    const uintptr_t *bases, int nbases);
/* True when a queued or running task (of any stream) writes the allocation p lies in (memory the runtime does not
 * know: when a task writes such memory). A first phase that may read p's data waits for the queues then. */
bool acl_q_writes_pending(const void *p);
/* As acl_q_submit, but the task runs only once ready(ctx) is true (checked by the dispatcher under its lock; it
 * must not block). Used by aclrtStreamWaitEvent: the stream waits, the dispatcher does not. */
int acl_q_submit_gated(acl_queue *q, bool (*ready)(void *), acl_task_fn run, void (*drop)(void *), void *ctx,
                       const char *what);
/* Waits until every task queued on q has run; returns (and reports) the first error of those tasks, once. */
int acl_q_sync(acl_queue *q);
/* As acl_q_sync, giving up after timeout_ms (< 0: no limit) with ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (the tasks stay
 * queued). The calling thread runs no task: the dispatcher does. */
int acl_q_sync_timeout(acl_queue *q, long timeout_ms);
/* Waits until every task queued on q has run; errors stay for the next synchronisation. */
void acl_q_wait(acl_queue *q);
/* As acl_q_sync for every queue. */
int acl_q_sync_all(void);
/* Waits until every queue is empty; task errors stay for the next synchronisation. */
void acl_q_drain_all(void);
/* aclFinalize: waits for every task, then stops and joins the dispatcher thread (a later task starts a new one). */
void acl_q_shutdown(void);
/* Runs the next ready task on the calling thread when none is running; false when nothing was run. */
bool acl_q_help(void);
/* True when q has tasks not yet finished. */
bool acl_q_busy(acl_queue *q);

#endif
