/* libhccl.so of the emulator: a world of one rank, exact. Every collective on one rank leaves that rank's data
 * as it is: AllReduce/Reduce/AllGather/ReduceScatter/Scatter/AlltoAll(V) copy the send buffer to the receive
 * buffer (in place when they are the same), Broadcast and Barrier do nothing. Send/Recv need a peer, and there is
 * none (HCCL_E_PARA). A communicator of more than one rank is refused with HCCL_E_NOT_SUPPORT. Messages go to
 * aclGetRecentErrMsg's log through stderr when HCCL calls fail. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "hccl/hccl.h"

#define HCCL_API __attribute__((visibility("default")))

typedef struct { uint32_t magic; uint32_t id; char name[128]; } hccl_comm;
#define COMM_MAGIC 0x48434331u
static uint32_t g_next_id;

static HcclResult fail(HcclResult rc, const char *api, const char *msg) {
    fprintf(stderr, "[ERROR] HCCL %s: %s (HcclResult %d)\n", api, msg, (int)rc);
    return rc;
}

static size_t dtype_size(HcclDataType t) {
    switch (t) {
    case HCCL_DATA_TYPE_INT8: case HCCL_DATA_TYPE_UINT8: return 1;
    case HCCL_DATA_TYPE_INT16: case HCCL_DATA_TYPE_UINT16: case HCCL_DATA_TYPE_FP16: case HCCL_DATA_TYPE_BFP16: return 2;
    case HCCL_DATA_TYPE_INT32: case HCCL_DATA_TYPE_UINT32: case HCCL_DATA_TYPE_FP32: return 4;
    case HCCL_DATA_TYPE_INT64: case HCCL_DATA_TYPE_UINT64: case HCCL_DATA_TYPE_FP64: return 8;
    case HCCL_DATA_TYPE_INT128: return 16;
    default: return 0;
    }
}

static int comm_ok(HcclComm c) { return c && ((hccl_comm *)c)->magic == COMM_MAGIC; }

HCCL_API const char *HcclGetErrorString(HcclResult code) {
    static const char *s[] = {"success", "parameter error", "empty pointer", "memory error", "internal error",
                              "not supported", "not found", "unavailable", "system call error", "timeout",
                              "open file failure", "tcp connect failure", "roce connect failure",
                              "tcp transfer failure", "roce transfer failure", "runtime error", "driver error",
                              "profiling error", "cce error", "network error", "try again", "remote error",
                              "suspending"};
    return ((int)code >= 0 && (int)code < (int)(sizeof s / sizeof *s)) ? s[code] : "unknown error";
}

HCCL_API HcclResult HcclGetRootInfo(HcclRootInfo *rootInfo) {
    if (!rootInfo) return fail(HCCL_E_PTR, "HcclGetRootInfo", "rootInfo must not be NULL");
    memset(rootInfo, 0, sizeof *rootInfo);
    snprintf(rootInfo->internal, sizeof rootInfo->internal, "pyaclnn-hccl pid=%d", (int)getpid());
    return HCCL_SUCCESS;
}

static HcclResult init_comm(const char *api, uint32_t nRanks, uint32_t rank, HcclComm *comm) {
    if (!comm) return fail(HCCL_E_PTR, api, "comm must not be NULL");
    if (nRanks == 0 || rank >= nRanks) return fail(HCCL_E_PARA, api, "rank must be in [0, nRanks) and nRanks >= 1");
    if (nRanks > 1) return fail(HCCL_E_NOT_SUPPORT, api, "the emulator's HCCL supports a world of one rank only");
    hccl_comm *c = calloc(1, sizeof *c);
    if (!c) return fail(HCCL_E_MEMORY, api, "out of memory");
    c->magic = COMM_MAGIC;
    c->id = __atomic_fetch_add(&g_next_id, 1, __ATOMIC_RELAXED);
    snprintf(c->name, sizeof c->name, "pyaclnn_comm_%u", c->id);
    *comm = c;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclCommInitRootInfo(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank, HcclComm *comm) {
    if (!rootInfo) return fail(HCCL_E_PTR, "HcclCommInitRootInfo", "rootInfo must not be NULL");
    return init_comm("HcclCommInitRootInfo", nRanks, rank, comm);
}

HCCL_API HcclResult HcclCommInitRootInfoConfig(uint32_t nRanks, const HcclRootInfo *rootInfo, uint32_t rank,
                                               const HcclCommConfig *config, HcclComm *comm) {
    if (!rootInfo) return fail(HCCL_E_PTR, "HcclCommInitRootInfoConfig", "rootInfo must not be NULL");
    return init_comm("HcclCommInitRootInfoConfig", nRanks, rank, comm);
}

HCCL_API HcclResult HcclCommInitClusterInfo(const char *clusterInfo, uint32_t rank, HcclComm *comm) {
    if (!clusterInfo) return fail(HCCL_E_PTR, "HcclCommInitClusterInfo", "clusterInfo must not be NULL");
    return fail(HCCL_E_NOT_SUPPORT, "HcclCommInitClusterInfo", "rank tables are not supported by the emulator");
}

HCCL_API HcclResult HcclCommInitAll(uint32_t ndev, int32_t *devices, HcclComm *comms) {
    if (!devices || !comms) return fail(HCCL_E_PTR, "HcclCommInitAll", "devices and comms must not be NULL");
    return init_comm("HcclCommInitAll", ndev, 0, comms);
}

HCCL_API HcclResult HcclCommDestroy(HcclComm comm) {
    if (!comm_ok(comm)) return fail(HCCL_E_PARA, "HcclCommDestroy", "comm is not a live communicator");
    ((hccl_comm *)comm)->magic = 0;
    free(comm);
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankSize(HcclComm comm, uint32_t *rankSize) {
    if (!comm_ok(comm) || !rankSize) return fail(HCCL_E_PARA, "HcclGetRankSize", "comm and rankSize must be valid");
    *rankSize = 1;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGetRankId(HcclComm comm, uint32_t *rank) {
    if (!comm_ok(comm) || !rank) return fail(HCCL_E_PARA, "HcclGetRankId", "comm and rank must be valid");
    *rank = 0;
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
    *asyncError = HCCL_SUCCESS;
    return HCCL_SUCCESS;
}

/* One rank: the result of the collective is the input, copied as a task on the collective's stream (ordered after
 * the stream's earlier work, as the device's collective is; the stream checker sees it as such). */
static HcclResult identity(const char *api, const void *send, void *recv, uint64_t count, HcclDataType t,
                           HcclComm comm, aclrtStream stream) {
    if (!comm_ok(comm)) return fail(HCCL_E_PARA, api, "comm is not a live communicator");
    size_t es = dtype_size(t);
    if (!es) return fail(HCCL_E_PARA, api, "dataType is not an HcclDataType");
    if (count && (!send || !recv)) return fail(HCCL_E_PTR, api, "sendBuf and recvBuf must not be NULL");
    if (count > SIZE_MAX / es) return fail(HCCL_E_PARA, api, "count is too large");
    if (count && send != recv) {
        aclError rc = aclrtMemcpyAsync(recv, count * es, send, count * es, ACL_MEMCPY_DEVICE_TO_DEVICE, stream);
        if (rc != ACL_SUCCESS) return fail(HCCL_E_RUNTIME, api, aclGetRecentErrMsg());
    }
    return HCCL_SUCCESS;
}

static int op_ok(HcclReduceOp op) { return op >= HCCL_REDUCE_SUM && op <= HCCL_REDUCE_MIN; }

HCCL_API HcclResult HcclAllReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType,
                                  HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    if (!op_ok(op)) return fail(HCCL_E_PARA, "HcclAllReduce", "op is not an HcclReduceOp");
    return identity("HcclAllReduce", sendBuf, recvBuf, count, dataType, comm, stream);
}

HCCL_API HcclResult HcclReduce(void *sendBuf, void *recvBuf, uint64_t count, HcclDataType dataType, HcclReduceOp op,
                               uint32_t root, HcclComm comm, aclrtStream stream) {
    if (!op_ok(op)) return fail(HCCL_E_PARA, "HcclReduce", "op is not an HcclReduceOp");
    if (root != 0) return fail(HCCL_E_PARA, "HcclReduce", "root must be 0 in a world of one rank");
    return identity("HcclReduce", sendBuf, recvBuf, count, dataType, comm, stream);
}

HCCL_API HcclResult HcclBroadcast(void *buf, uint64_t count, HcclDataType dataType, uint32_t root, HcclComm comm,
                                  aclrtStream stream) {
    if (root != 0) return fail(HCCL_E_PARA, "HcclBroadcast", "root must be 0 in a world of one rank");
    return identity("HcclBroadcast", buf, buf, count, dataType, comm, stream);
}

HCCL_API HcclResult HcclAllGather(void *sendBuf, void *recvBuf, uint64_t sendCount, HcclDataType dataType,
                                  HcclComm comm, aclrtStream stream) {
    return identity("HcclAllGather", sendBuf, recvBuf, sendCount, dataType, comm, stream);
}

HCCL_API HcclResult HcclReduceScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType,
                                      HcclReduceOp op, HcclComm comm, aclrtStream stream) {
    if (!op_ok(op)) return fail(HCCL_E_PARA, "HcclReduceScatter", "op is not an HcclReduceOp");
    return identity("HcclReduceScatter", sendBuf, recvBuf, recvCount, dataType, comm, stream);
}

HCCL_API HcclResult HcclScatter(void *sendBuf, void *recvBuf, uint64_t recvCount, HcclDataType dataType, uint32_t root,
                                HcclComm comm, aclrtStream stream) {
    if (root != 0) return fail(HCCL_E_PARA, "HcclScatter", "root must be 0 in a world of one rank");
    return identity("HcclScatter", sendBuf, recvBuf, recvCount, dataType, comm, stream);
}

HCCL_API HcclResult HcclAlltoAll(const void *sendBuf, uint64_t sendCount, HcclDataType sendType, const void *recvBuf,
                                 uint64_t recvCount, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    if (sendCount != recvCount || sendType != recvType)
        return fail(HCCL_E_PARA, "HcclAlltoAll", "send and receive counts and types must match on one rank");
    return identity("HcclAlltoAll", sendBuf, (void *)recvBuf, sendCount, sendType, comm, stream);
}

HCCL_API HcclResult HcclAlltoAllV(const void *sendBuf, const void *sendCounts, const void *sdispls,
                                  HcclDataType sendType, const void *recvBuf, const void *recvCounts,
                                  const void *rdispls, HcclDataType recvType, HcclComm comm, aclrtStream stream) {
    if (!sendCounts || !sdispls || !recvCounts || !rdispls)
        return fail(HCCL_E_PTR, "HcclAlltoAllV", "counts and displacements must not be NULL");
    uint64_t sc = *(const uint64_t *)sendCounts, rc = *(const uint64_t *)recvCounts;
    uint64_t sd = *(const uint64_t *)sdispls, rd = *(const uint64_t *)rdispls;
    size_t es = dtype_size(sendType);
    if (sc != rc || sendType != recvType || !es)
        return fail(HCCL_E_PARA, "HcclAlltoAllV", "send and receive counts and types must match on one rank");
    if (sc == 0) return comm_ok(comm) ? HCCL_SUCCESS : fail(HCCL_E_PARA, "HcclAlltoAllV", "comm is not live");
    if (!sendBuf || !recvBuf) return fail(HCCL_E_PTR, "HcclAlltoAllV", "sendBuf and recvBuf must not be NULL");
    return identity("HcclAlltoAllV", (const char *)sendBuf + sd * es, (char *)recvBuf + rd * es, sc, sendType, comm,
                    stream);
}

HCCL_API HcclResult HcclBarrier(HcclComm comm, aclrtStream stream) {
    return comm_ok(comm) ? HCCL_SUCCESS : fail(HCCL_E_PARA, "HcclBarrier", "comm is not a live communicator");
}

HCCL_API HcclResult HcclSend(void *sendBuf, uint64_t count, HcclDataType dataType, uint32_t destRank, HcclComm comm,
                             aclrtStream stream) {
    return fail(HCCL_E_PARA, "HcclSend", "a world of one rank has no peer to send to");
}

HCCL_API HcclResult HcclRecv(void *recvBuf, uint64_t count, HcclDataType dataType, uint32_t srcRank, HcclComm comm,
                             aclrtStream stream) {
    return fail(HCCL_E_PARA, "HcclRecv", "a world of one rank has no peer to receive from");
}

static _Thread_local int t_group_depth;

HCCL_API HcclResult HcclGroupStart(void) {
    t_group_depth++;
    return HCCL_SUCCESS;
}

HCCL_API HcclResult HcclGroupEnd(void) {
    if (t_group_depth == 0) return fail(HCCL_E_PARA, "HcclGroupEnd", "no group was started");
    t_group_depth--;
    return HCCL_SUCCESS;
}
