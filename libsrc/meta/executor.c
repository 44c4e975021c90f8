/* aclOpExecutor: created by an op's first phase, run (and normally consumed) by its second phase. Live executors
 * are registered, so a consumed, destroyed or foreign pointer gives an error instead of a use-after-free. */
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "meta/meta.h"
#include "ops/ops.h"
#include "runtime/queue.h"
#include "runtime/runtime.h"

static const char *const k_names[] = {
#define ACL_OP(name, prefix) #prefix #name,
#include "ops/ops.inc"
#undef ACL_OP
};
static const char *const k_ws_names[] = {
#define ACL_OP(name, prefix) #prefix #name "GetWorkspaceSize",
#include "ops/ops.inc"
#undef ACL_OP
};

const char *acl_op_name(int op) { return (op >= 0 && op < ACL_OP_COUNT) ? k_names[op] : "aclnn<unknown>"; }
const char *acl_op_ws_name(int op) { return (op >= 0 && op < ACL_OP_COUNT) ? k_ws_names[op] : "aclnn<unknown>"; }

/* malloc + memset rather than calloc: glibc's calloc bypasses the per-thread cache, and an executor is made and
 * freed on every call */
aclOpExecutor *acl_exec_create(int op, acl_run_fn run, size_t params_size) {
    aclOpExecutor *ex = malloc(sizeof *ex);
    if (!ex) goto oom;
    memset(ex, 0, sizeof *ex);
    ex->op = op;
    ex->run = run;
    if (params_size) {
        ex->params = malloc(params_size);
        if (!ex->params) { free(ex); goto oom; }
        memset(ex->params, 0, params_size);
    }
    return ex;
oom:
    ACL_REPORT(ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory creating the executor");
    return NULL;
}

static void exec_free(aclOpExecutor *ex) {
    if (ex->free_params) ex->free_params(ex->params);
    else free(ex->params);
    free(ex->io); /* io_name and io_needs_data live in the same block */
    free(ex);
}

/* io, io_name and io_needs_data in one block (one allocation per executor for them all); 6 slots first: under the
 * size glibc keeps in its per-thread cache */
static int grow_io(aclOpExecutor *ex) {
    int cap = ex->io_cap ? ex->io_cap * 2 : 6;
    char *blk = malloc((sizeof(acl_view) + sizeof(char *) + sizeof(bool)) * (size_t)cap);
    ACLNN_CHECK(blk != NULL, ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory adding a tensor to the executor");
    acl_view *io = (acl_view *)blk;
    const char **nm = (const char **)(blk + sizeof(acl_view) * (size_t)cap);
    bool *nd = (bool *)(blk + (sizeof(acl_view) + sizeof(char *)) * (size_t)cap);
    const int n = ex->n_in + ex->n_out;
    if (n > 0) {
        memcpy(io, ex->io, sizeof(acl_view) * (size_t)n);
        memcpy(nm, ex->io_name, sizeof(char *) * (size_t)n);
        memcpy(nd, ex->io_needs_data, sizeof(bool) * (size_t)n);
    }
    free(ex->io);
    ex->io = io;
    ex->io_name = nm;
    ex->io_needs_data = nd;
    ex->io_cap = cap;
    return 0;
}

static int add_io(aclOpExecutor *ex, const aclTensor *t, const char *name, bool needs_data) {
    int i = ex->n_in + ex->n_out;
    ACLNN_CHECK(i < ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "too many tensors for one executor (at most %d)",
                ACL_EXEC_MAX_IO);
    if (i >= ex->io_cap) ACL_TRY(grow_io(ex));
    ACL_TRY(acl_view_init(&ex->io[i], t, name, needs_data));
    ex->io_needs_data[i] = needs_data;
    ex->io_name[i] = name;
    return 0;
}

int acl_exec_add_input(aclOpExecutor *ex, const aclTensor *t, const char *name, bool needs_data) {
    ACLNN_CHECK(ex->n_out == 0, ACLNN_ERR_INNER, "inputs must be added before outputs");
    ACL_TRY(add_io(ex, t, name, needs_data));
    ex->n_in++;
    return 0;
}

int acl_exec_add_output(aclOpExecutor *ex, const aclTensor *t, const char *name) {
    ACL_TRY(add_io(ex, t, name, true));
    ex->n_out++;
    return 0;
}

int acl_exec_add_output_nodata(aclOpExecutor *ex, const aclTensor *t, const char *name) {
    ACL_TRY(add_io(ex, t, name, false));
    ex->n_out++;
    return 0;
}

aclnnStatus acl_exec_publish(aclOpExecutor *ex, uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (!acl_reg_add(ex, ACL_KIND_EXECUTOR)) {
        exec_free(ex);
        return ACL_REPORT(ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory registering the executor");
    }
    *workspaceSize = ex->workspace_size;
    *executor = ex;
    return ACLNN_SUCCESS;
}

aclnnStatus acl_exec_discard(aclOpExecutor *ex, aclnnStatus rc) {
    if (ex) exec_free(ex);
    return rc;
}

aclnnStatus acl_exec_noop(int op, uint64_t *workspaceSize, aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(op, NULL, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    return acl_exec_publish(ex, workspaceSize, executor);
}

static void exec_destroy(aclOpExecutor *ex) {
    if (acl_reg_remove(ex, ACL_KIND_EXECUTOR)) exec_free(ex);
}

/* The task's memory, each buffer looked up once. Phase 2 re-checks that every view still lies in live memory: a buffer
 * freed (or unregistered) between the two phases would otherwise be read or written after its release. The same
 * lookups give the stream checker its accesses (inputs read, outputs and the workspace written; recorded before the
 * run), m->acc[0, m->n) with their allocations (have / base as acl_mem_block_of gives them). */
typedef struct {
    acl_sc_access acc[ACL_SC_MAX_ACCESS];
    uintptr_t base[ACL_SC_MAX_ACCESS];
    bool have[ACL_SC_MAX_ACCESS];
    int n;
} task_mem;

static aclnnStatus check_io_memory(const aclOpExecutor *ex, void *workspace, task_mem *m) {
    m->n = 0;
    for (int i = 0; i < ex->n_in + ex->n_out; i++) {
        if (!ex->io_needs_data[i]) continue;
        uintptr_t base = 0;
        bool have = false;
        ACL_TRY(acl_view_check_memory(&ex->io[i], ex->io_name[i], &base, &have));
        if (ex->io[i].data && m->n < ACL_SC_MAX_ACCESS - 1) {
            m->acc[m->n] = (acl_sc_access){ex->io[i].data, i >= ex->n_in};
            m->base[m->n] = base;
            m->have[m->n++] = have;
        }
    }
    if (workspace) {
        uint64_t size;
        m->acc[m->n] = (acl_sc_access){workspace, true};
        m->have[m->n] = acl_mem_block_of(workspace, &m->base[m->n], &size);
        m->n++;
    }
    return ACLNN_SUCCESS;
}

/* The allocation `p` (io slot i's data, an output) lies in, for the queue: from a lookup check_io_memory made for
 * the same address (accesses are in io order: *k walks them), else looked up now; 0 when the runtime does not know
 * it. */
static uintptr_t write_base(const aclOpExecutor *ex, const task_mem *m, int i, int *k) {
    const void *p = ex->io[i].data;
    while (*k < m->n && m->acc[*k].p != p) (*k)++;
    if (*k < m->n) return m->have[*k] ? m->base[*k] : 0;
    uintptr_t base = 0;
    uint64_t size;
    return acl_mem_block_of(p, &base, &size) ? base : 0;
}

/* A queued second phase (PYACLNN_ASYNC=1): the task owns a one-shot executor (freed after it ran); a repeatable
 * one stays the caller's, and destroying or retargeting it first drains the queues. */
typedef struct { aclOpExecutor *ex; void *workspace; uint64_t size; bool owned; } run_task;

static int run_queued(void *ctx) {
    run_task *t = ctx;
    return t->ex->run(t->ex, t->workspace, t->size);
}

static void drop_queued(void *ctx) {
    run_task *t = ctx;
    if (t->owned) exec_free(t->ex);
    free(t);
}

aclnnStatus acl_exec_launch(int op, void *workspace, uint64_t workspaceSize, aclOpExecutor *ex, aclrtStream stream) {
    acl_set_api(acl_op_name(op));
    ACLNN_CHECK(ex != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper executor but got null.");
    ACLNN_CHECK(acl_reg_is(ex, ACL_KIND_EXECUTOR), ACLNN_ERR_PARAM_INVALID,
                "executor %p is not a live executor (already run and consumed, destroyed, or never created)",
                (void *)ex);
    ACLNN_CHECK(ex->op == op, ACLNN_ERR_PARAM_INVALID, "executor was created by %s, not by %s",
                acl_op_ws_name(ex->op), acl_op_ws_name(op));
    /* A one-shot executor is claimed before it runs, so two threads handed the same executor cannot both run
     * (and free) it: exactly one of them takes it out of the registry. */
    const bool repeatable = ex->repeatable;
    ACLNN_CHECK(repeatable || acl_reg_remove(ex, ACL_KIND_EXECUTOR), ACLNN_ERR_PARAM_INVALID,
                "executor %p was consumed by another call while this one started", (void *)ex);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (workspaceSize > 0 && workspace == NULL) {
        rc = ACL_REPORT(ACLNN_ERR_PARAM_NULLPTR, "workspace is NULL but workspaceSize is %llu",
                        (unsigned long long)workspaceSize);
    } else if (workspaceSize < ex->workspace_size) {
        rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "workspaceSize %llu is smaller than the %llu bytes %s asked for",
                        (unsigned long long)workspaceSize, (unsigned long long)ex->workspace_size, acl_op_ws_name(op));
    } else if (!acl_stream_valid(stream)) {
        rc = ACL_REPORT(ACLNN_ERR_RUNTIME_ERROR, "stream %p is not a live stream", stream);
    } else if (ex->run) {
        task_mem m;
        rc = check_io_memory(ex, workspace, &m);
        if (rc == ACLNN_SUCCESS)
            rc = acl_sc_task_at(stream, m.acc, m.base, m.have, m.n, acl_op_name(op), ACLNN_ERR_RUNTIME_ERROR);
        acl_queue *q = rc == ACLNN_SUCCESS ? acl_stream_queue(stream) : NULL;
        if (q) {
            run_task *t = malloc(sizeof *t);
            if (!t) {
                rc = ACL_REPORT(ACLNN_ERR_INNER, "out of memory queueing the task");
            } else {
                *t = (run_task){ex, workspace, workspaceSize, !repeatable};
                /* what it writes (its outputs and workspace): a first phase reading them waits for it */
                uintptr_t wr_small[8];
                uintptr_t *wr = ex->n_out + 1 <= 8 ? wr_small : malloc(((size_t)ex->n_out + 1) * sizeof *wr);
                if (!wr) {
                    free(t);
                    rc = ACL_REPORT(ACLNN_ERR_INNER, "out of memory queueing the task");
                    goto done;
                }
                int nwr = 0, k = 0;
                for (int i = ex->n_in; i < ex->n_in + ex->n_out; i++)
                    if (ex->io[i].data) wr[nwr++] = write_base(ex, &m, i, &k);
                if (workspace) wr[nwr++] = m.have[m.n - 1] ? m.base[m.n - 1] : 0;
                rc = acl_q_submit_at(q, run_queued, drop_queued, t, acl_op_name(op), wr, nwr);
                if (wr != wr_small) free(wr);
                return rc;
            }
        } else if (rc == ACLNN_SUCCESS) {
            rc = ex->run(ex, workspace, workspaceSize);
        }
    }
done:
    if (!repeatable) exec_free(ex);
    return rc;
}

/* ---- public executor API ---- */

static aclnnStatus check_exec(const aclOpExecutor *ex) {
    ACLNN_CHECK(ex != NULL, ACLNN_ERR_INNER_NULLPTR, "executor must not be NULL");
    ACLNN_CHECK(acl_reg_is(ex, ACL_KIND_EXECUTOR), ACLNN_ERR_INNER, "%p is not a live aclOpExecutor", (const void *)ex);
    return 0;
}

aclnnStatus aclSetAclOpExecutorRepeatable(aclOpExecutor *executor) {
    acl_set_api("aclSetAclOpExecutorRepeatable");
    ACL_TRY(check_exec(executor));
    executor->repeatable = true;
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyAclOpExecutor(aclOpExecutor *executor) {
    acl_set_api("aclDestroyAclOpExecutor");
    ACL_TRY(check_exec(executor));
    acl_q_drain_all(); /* a queued run of it finishes first */
    exec_destroy(executor);
    return ACLNN_SUCCESS;
}

/* Retargets io slot `slot` (already bounds-checked) to the tensor's new address, re-checking the memory. */
static aclnnStatus retarget(aclOpExecutor *ex, int slot, aclTensor *tensor) {
    acl_view v;
    ACL_TRY(acl_view_init(&v, tensor, ex->io_name[slot], ex->io_needs_data[slot]));
    acl_view *old = &ex->io[slot];
    bool same = v.ndim == old->ndim && v.dtype == old->dtype;
    for (int i = 0; same && i < v.ndim; i++) same = v.dims[i] == old->dims[i] && v.strides[i] == old->strides[i];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID,
                "the tensor given for %s has a different shape, strides or dtype than the one the executor was "
                "planned for", ex->io_name[slot]);
    *old = v;
    return ACLNN_SUCCESS;
}

typedef enum { SLOT_INPUT, SLOT_OUTPUT, SLOT_ANY } slot_space;

static aclnnStatus set_addr(aclOpExecutor *ex, size_t index, aclTensor *tensor, void *addr, slot_space space) {
    ACLNN_CHECK(tensor != NULL, ACLNN_ERR_INNER_NULLPTR, "tensor must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    tensor->data = addr;
    ACL_TRY(check_exec(ex));
    if (!ex->run) return ACLNN_SUCCESS; /* an empty-input executor has nothing to retarget */
    acl_q_drain_all(); /* a queued run still uses the old addresses */
    size_t n = space == SLOT_INPUT ? (size_t)ex->n_in : space == SLOT_OUTPUT ? (size_t)ex->n_out
                                                                             : (size_t)(ex->n_in + ex->n_out);
    ACLNN_CHECK(index < n, ACLNN_ERR_PARAM_INVALID, "index %zu is out of range: %s has %zu %s tensors", index,
                acl_op_name(ex->op), n, space == SLOT_INPUT ? "input" : space == SLOT_OUTPUT ? "output" : "");
    int slot = (int)index + (space == SLOT_OUTPUT ? ex->n_in : 0);
    return retarget(ex, slot, tensor);
}

aclnnStatus aclSetInputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) {
    acl_set_api("aclSetInputTensorAddr");
    return set_addr(executor, index, tensor, addr, SLOT_INPUT);
}

aclnnStatus aclSetOutputTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) {
    acl_set_api("aclSetOutputTensorAddr");
    return set_addr(executor, index, tensor, addr, SLOT_OUTPUT);
}

aclnnStatus aclSetTensorAddr(aclOpExecutor *executor, const size_t index, aclTensor *tensor, void *addr) {
    acl_set_api("aclSetTensorAddr");
    return set_addr(executor, index, tensor, addr, SLOT_ANY);
}

static aclnnStatus set_dynamic(aclOpExecutor *ex, size_t irIndex, size_t rel, aclTensorList *list, void *addr) {
    ACLNN_CHECK(list != NULL, ACLNN_ERR_INNER_NULLPTR, "tensors must not be NULL");
    ACLNN_CHECK(acl_reg_is(list, ACL_KIND_TENSOR_LIST), ACLNN_ERR_PARAM_INVALID, "tensors is not a live aclTensorList");
    ACLNN_CHECK(rel < list->size, ACLNN_ERR_PARAM_INVALID, "relativeIndex %zu is out of range (list size %llu)", rel,
                (unsigned long long)list->size);
    ACL_TRY(acl_check_tensor(list->v[rel], "tensors[relativeIndex]"));
    list->v[rel]->data = addr;
    ACL_TRY(check_exec(ex));
    if (!ex->run) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has no tensor-list argument at irIndex %zu", acl_op_name(ex->op),
                      irIndex);
}

aclnnStatus aclSetDynamicInputTensorAddr(aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex,
                                         aclTensorList *tensors, void *addr) {
    acl_set_api("aclSetDynamicInputTensorAddr");
    return set_dynamic(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus aclSetDynamicOutputTensorAddr(aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex,
                                          aclTensorList *tensors, void *addr) {
    acl_set_api("aclSetDynamicOutputTensorAddr");
    return set_dynamic(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus aclSetDynamicTensorAddr(aclOpExecutor *executor, size_t irIndex, const size_t relativeIndex,
                                    aclTensorList *tensors, void *addr) {
    acl_set_api("aclSetDynamicTensorAddr");
    return set_dynamic(executor, irIndex, relativeIndex, tensors, addr);
}

aclnnStatus AclSetInputTensorAddr(aclOpExecutor *e, const size_t i, aclTensor *t, void *a) { return aclSetInputTensorAddr(e, i, t, a); }
aclnnStatus AclSetOutputTensorAddr(aclOpExecutor *e, const size_t i, aclTensor *t, void *a) { return aclSetOutputTensorAddr(e, i, t, a); }
aclnnStatus AclSetTensorAddr(aclOpExecutor *e, const size_t i, aclTensor *t, void *a) { return aclSetTensorAddr(e, i, t, a); }
aclnnStatus AclSetDynamicInputTensorAddr(aclOpExecutor *e, size_t ir, const size_t r, aclTensorList *l, void *a) {
    return aclSetDynamicInputTensorAddr(e, ir, r, l, a);
}
aclnnStatus AclSetDynamicOutputTensorAddr(aclOpExecutor *e, size_t ir, const size_t r, aclTensorList *l, void *a) {
    return aclSetDynamicOutputTensorAddr(e, ir, r, l, a);
}
aclnnStatus AclSetDynamicTensorAddr(aclOpExecutor *e, size_t ir, const size_t r, aclTensorList *l, void *a) {
    return aclSetDynamicTensorAddr(e, ir, r, l, a);
}

/* ---- framework init ---- */

aclnnStatus aclnnInit(const char *configPath) {
    (void)configPath; /* nothing to load: every kernel is built in */
    return ACLNN_SUCCESS;
}

aclnnStatus aclnnFinalize(void) { return ACLNN_SUCCESS; }
