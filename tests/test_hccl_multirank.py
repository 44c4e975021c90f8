"""libhccl.so with several ranks: separate processes on one machine meeting in POSIX shared memory.

The test starts 2 to 4 worker processes (this file run as a script), each one rank; every rank builds the inputs of
all ranks from fixed seeds, runs the collectives through ctypes on device buffers and compares its results with a
numpy reference computed in the same rank order. Also: the result bytes are the same on every rank, a mismatched
call fails on every rank with HCCL_E_PARA, a rank that dies makes the others fail with HCCL_E_REMOTE instead of
hanging, a rank that never calls makes the others time out (HCCL_E_TIMEOUT), and no shared-memory object is left."""
import ctypes
import glob
import hashlib
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)

# HcclDataType -> (numpy dtype, element size); bf16 is carried as uint16 bits
DT = {"int8": 0, "int16": 1, "int32": 2, "fp16": 3, "fp32": 4, "int64": 5, "uint64": 6, "uint8": 7, "uint16": 8,
      "uint32": 9, "fp64": 10, "bf16": 11}
NP = {"int8": np.int8, "int16": np.int16, "int32": np.int32, "fp16": np.float16, "fp32": np.float32,
      "int64": np.int64, "uint64": np.uint64, "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32,
      "fp64": np.float64, "bf16": np.uint16}
SUM, PROD, MAX, MIN = 0, 1, 2, 3
E_PARA, E_TIMEOUT, E_REMOTE = 1, 9, 21


# ---------------------------------------------------------------- reference helpers
def bf16_from_f32(x):
    u = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


def bf16_to_f32(b):
    return (np.asarray(b, np.uint16).astype(np.uint32) << 16).view(np.float32)


def rank_input(name, rank, count, small=False):
    """The send data of one rank (every rank can compute every rank's)."""
    rng = np.random.default_rng(1000 + 17 * rank + DT[name])
    if name in ("fp32", "fp64", "fp16", "bf16"):
        v = rng.integers(-3, 4, count).astype(np.float32) / 2 if small else rng.standard_normal(count).astype(np.float32)
        if name == "bf16":
            return bf16_from_f32(v)
        return v.astype(NP[name])
    lo = 0 if name.startswith("uint") else -3
    return rng.integers(lo, 4, count).astype(NP[name])


def reduce_ref(name, arrays, op):
    """Rank order 0..n-1; fp16/bf16 accumulate in fp32 and round once; integers wrap."""
    if name == "fp16":
        arrays = [a.astype(np.float32) for a in arrays]
    if name == "bf16":
        arrays = [bf16_to_f32(a) for a in arrays]
    acc = arrays[0].copy()
    with np.errstate(over="ignore"):
        for a in arrays[1:]:
            acc = {SUM: lambda x, y: x + y, PROD: lambda x, y: x * y, MAX: np.maximum, MIN: np.minimum}[op](acc, a)
    if name == "fp16":
        return acc.astype(np.float16)
    if name == "bf16":
        return bf16_from_f32(acc)
    return acc.astype(NP[name])


# ---------------------------------------------------------------- the worker (one rank)
class Rank:
    def __init__(self, hccl_path, n, rank, root_hex):
        sys.path.insert(0, REPO)
        import pyaclnn
        from pyaclnn import ffi, lib
        pyaclnn.ensure_device()
        self.ffi, self.lib = ffi, lib
        self.h = ctypes.CDLL(hccl_path)
        self.n, self.rank = n, rank
        self.root = ctypes.create_string_buffer(bytes.fromhex(root_hex), 4108)
        self.bufs = []

    def init(self):
        comm = ctypes.c_void_p()
        rc = self.h.HcclCommInitRootInfo(ctypes.c_uint32(self.n), self.root, ctypes.c_uint32(self.rank),
                                         ctypes.byref(comm))
        assert rc == 0, rc
        return comm

    def dev(self, arr_or_nbytes):
        nbytes = arr_or_nbytes if isinstance(arr_or_nbytes, int) else arr_or_nbytes.nbytes
        p = self.ffi.new("void **")
        assert self.lib.aclrtMalloc(p, max(nbytes, 1), 0) == 0
        self.bufs.append(p[0])
        if not isinstance(arr_or_nbytes, int) and nbytes:
            a = np.ascontiguousarray(arr_or_nbytes)
            assert self.lib.aclrtMemcpy(p[0], nbytes, self.ffi.from_buffer(a), nbytes, 1) == 0
        return ctypes.c_void_p(int(self.ffi.cast("uintptr_t", p[0])))

    def read(self, ptr, dtype, count):
        assert self.lib.aclrtSynchronizeStream(self.ffi.NULL) == 0
        out = np.zeros(count, dtype)
        if count:
            assert self.lib.aclrtMemcpy(self.ffi.from_buffer(out), out.nbytes, self.ffi.cast("void *", ptr.value),
                                        out.nbytes, 2) == 0
        return out


def u64(v):
    return ctypes.c_uint64(v)


def u64s(vals):
    return (ctypes.c_uint64 * len(vals))(*vals)


def scenario_full(R):
    h, n, me = R.h, R.n, R.rank
    comm = R.init()
    size, rid = ctypes.c_uint32(), ctypes.c_uint32()
    assert h.HcclGetRankSize(comm, ctypes.byref(size)) == 0 and size.value == n
    assert h.HcclGetRankId(comm, ctypes.byref(rid)) == 0 and rid.value == me
    digest = hashlib.sha256()
    cnt = 37
    # AllReduce: every dtype HCCL reduces, every operation
    for name in DT:
        for op in (SUM, PROD, MAX, MIN):
            small = op == PROD
            ins = [rank_input(name, r, cnt, small) for r in range(n)]
            s, d = R.dev(ins[me]), R.dev(ins[me].nbytes)
            assert h.HcclAllReduce(s, d, u64(cnt), DT[name], op, comm, None) == 0, (name, op)
            got = R.read(d, NP[name], cnt)
            want = reduce_ref(name, ins, op)
            assert got.tobytes() == want.tobytes(), (name, op, got, want)
            digest.update(got.tobytes())
    # in place, and more than one staging slot's worth (the pieces)
    big = 1_500_000
    ins = [rank_input("fp32", r, big) for r in range(n)]
    b = R.dev(ins[me])
    assert h.HcclAllReduce(b, b, u64(big), DT["fp32"], SUM, comm, None) == 0
    got = R.read(b, np.float32, big)
    assert got.tobytes() == reduce_ref("fp32", ins, SUM).tobytes()
    digest.update(got.tobytes())
    # on a stream of its own: the result is a task of that stream (the stream checker refuses reading it unsynchronised)
    st = R.ffi.new("aclrtStream *")
    assert R.lib.aclrtCreateStream(st) == 0
    ins = [rank_input("fp32", r, cnt) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(cnt * 4)
    assert h.HcclAllReduce(s, d, u64(cnt), DT["fp32"], SUM, comm, ctypes.c_void_p(int(R.ffi.cast("uintptr_t", st[0])))) == 0
    early = np.zeros(cnt, np.float32)
    assert R.lib.aclrtMemcpy(R.ffi.from_buffer(early), early.nbytes, R.ffi.cast("void *", d.value), early.nbytes, 2) \
        == 507004
    assert R.lib.aclrtSynchronizeStream(st[0]) == 0
    assert R.read(d, np.float32, cnt).tobytes() == reduce_ref("fp32", ins, SUM).tobytes()
    assert R.lib.aclrtDestroyStream(st[0]) == 0
    # Reduce to root 1
    ins = [rank_input("fp16", r, cnt) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(np.zeros(cnt, np.float16))
    assert h.HcclReduce(s, d, u64(cnt), DT["fp16"], MAX, 1, comm, None) == 0
    want = reduce_ref("fp16", ins, MAX) if me == 1 else np.zeros(cnt, np.float16)
    assert R.read(d, np.float16, cnt).tobytes() == want.tobytes()
    # Broadcast from the last rank, every dtype's size
    for name in ("int8", "bf16", "fp32", "int64"):
        root = n - 1
        mine = rank_input(name, me, cnt)
        b = R.dev(mine)
        assert h.HcclBroadcast(b, u64(cnt), DT[name], root, comm, None) == 0
        assert R.read(b, NP[name], cnt).tobytes() == rank_input(name, root, cnt).tobytes()
    # AllGather
    ins = [rank_input("int32", r, cnt) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(cnt * n * 4)
    assert h.HcclAllGather(s, d, u64(cnt), DT["int32"], comm, None) == 0
    assert np.array_equal(R.read(d, np.int32, cnt * n), np.concatenate(ins))
    # ReduceScatter
    ins = [rank_input("bf16", r, cnt * n) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(cnt * 2)
    assert h.HcclReduceScatter(s, d, u64(cnt), DT["bf16"], SUM, comm, None) == 0
    want = reduce_ref("bf16", [a[me * cnt:(me + 1) * cnt] for a in ins], SUM)
    assert R.read(d, np.uint16, cnt).tobytes() == want.tobytes()
    # Scatter from root 0
    ins = [rank_input("fp64", r, cnt * n) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(cnt * 8)
    assert h.HcclScatter(s, d, u64(cnt), DT["fp64"], 0, comm, None) == 0
    assert np.array_equal(R.read(d, np.float64, cnt), ins[0][me * cnt:(me + 1) * cnt])
    # AlltoAll
    ins = [rank_input("int16", r, cnt * n) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(cnt * n * 2)
    assert h.HcclAlltoAll(s, u64(cnt), DT["int16"], d, u64(cnt), DT["int16"], comm, None) == 0
    want = np.concatenate([ins[k][me * cnt:(me + 1) * cnt] for k in range(n)])
    assert np.array_equal(R.read(d, np.int16, cnt * n), want)
    # AlltoAllV: rank k sends (k + j + 1) elements to rank j (zero for one pair), packed in rank order
    def cnt_kj(k, j):
        return 0 if (k, j) == (0, n - 1) else k + 2 * j + 1
    ins = [rank_input("fp32", r, sum(cnt_kj(r, j) for j in range(n))) for r in range(n)]
    scs = [cnt_kj(me, j) for j in range(n)]
    sds = list(np.cumsum([0] + scs[:-1]))
    rcs = [cnt_kj(k, me) for k in range(n)]
    rds = list(np.cumsum([0] + rcs[:-1]))
    s, d = R.dev(ins[me]), R.dev(sum(rcs) * 4)
    assert h.HcclAlltoAllV(s, u64s(scs), u64s([int(x) for x in sds]), DT["fp32"], d, u64s(rcs),
                           u64s([int(x) for x in rds]), DT["fp32"], comm, None) == 0
    want = []
    for k in range(n):
        off = sum(cnt_kj(k, j) for j in range(me))
        want.append(ins[k][off:off + cnt_kj(k, me)])
    assert np.array_equal(R.read(d, np.float32, sum(rcs)), np.concatenate(want))
    # AllGatherV: rank k contributes k + 3 elements
    rcs = [k + 3 for k in range(n)]
    rds = [int(x) for x in np.cumsum([0] + rcs[:-1])]
    ins = [rank_input("uint8", r, rcs[r]) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(sum(rcs))
    assert h.HcclAllGatherV(s, u64(rcs[me]), d, u64s(rcs), u64s(rds), DT["uint8"], comm, None) == 0
    assert np.array_equal(R.read(d, np.uint8, sum(rcs)), np.concatenate(ins))
    # ReduceScatterV: rank j receives j + 2 elements
    scs = [j + 2 for j in range(n)]
    sds = [int(x) for x in np.cumsum([0] + scs[:-1])]
    ins = [rank_input("fp32", r, sum(scs)) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(scs[me] * 4)
    assert h.HcclReduceScatterV(s, u64s(scs), u64s(sds), d, u64(scs[me]), DT["fp32"], SUM, comm, None) == 0
    want = reduce_ref("fp32", [a[sds[me]:sds[me] + scs[me]] for a in ins], SUM)
    assert R.read(d, np.float32, scs[me]).tobytes() == want.tobytes()
    # Send/Recv: a ring through HcclBatchSendRecv (everyone sends first: no deadlock), bigger than a channel
    ring = 300_000
    nxt, prv = (me + 1) % n, (me - 1) % n
    ins = [rank_input("fp32", r, ring) for r in range(n)]
    s, d = R.dev(ins[me]), R.dev(ring * 4)

    class Item(ctypes.Structure):
        _fields_ = [("type", ctypes.c_int), ("buf", ctypes.c_void_p), ("count", ctypes.c_uint64),
                    ("dataType", ctypes.c_int), ("remoteRank", ctypes.c_uint32)]
    items = (Item * 2)(Item(0, s.value, ring, DT["fp32"], nxt), Item(1, d.value, ring, DT["fp32"], prv))
    assert h.HcclBatchSendRecv(items, 2, comm, None) == 0
    assert np.array_equal(R.read(d, np.float32, ring), ins[prv])
    # the same ring with HcclSend/HcclRecv inside a group
    d2 = R.dev(ring * 4)
    assert h.HcclGroupStart() == 0
    assert h.HcclSend(s, u64(ring), DT["fp32"], nxt, comm, None) == 0
    assert h.HcclRecv(d2, u64(ring), DT["fp32"], prv, comm, None) == 0
    assert h.HcclGroupEnd() == 0
    assert np.array_equal(R.read(d2, np.float32, ring), ins[prv])
    # plain Send / Recv between ranks 0 and 1 (small: the channel buffers it), several messages in order
    if me == 0:
        for i in range(3):
            assert h.HcclSend(R.dev(np.full(5, i, np.int64)), u64(5), DT["int64"], 1, comm, None) == 0
    elif me == 1:
        for i in range(3):
            d = R.dev(40)
            assert h.HcclRecv(d, u64(5), DT["int64"], 0, comm, None) == 0
            assert np.array_equal(R.read(d, np.int64, 5), np.full(5, i, np.int64))
    assert h.HcclBarrier(comm, None) == 0
    # invalid arguments found before any communication
    assert h.HcclSend(s, u64(1), DT["fp32"], me, comm, None) == E_PARA        # to itself
    assert h.HcclRecv(s, u64(1), DT["fp32"], n, comm, None) == E_PARA         # no such rank
    assert h.HcclAllReduce(s, s, u64(1), 99, SUM, comm, None) == E_PARA       # data type
    assert h.HcclAllReduce(s, s, u64(1), DT["fp32"], 7, comm, None) == E_PARA  # operation
    assert h.HcclBroadcast(s, u64(1), DT["fp32"], n, comm, None) == E_PARA    # root
    assert h.HcclAllReduce(s, s, u64(1), 12, SUM, comm, None) == 5            # int128 cannot be reduced
    err = ctypes.c_int(7)
    assert h.HcclGetCommAsyncError(comm, ctypes.byref(err)) == 0 and err.value == 0
    # a mismatched call (rank 0 a different count) fails on every rank
    s = R.dev(np.ones(8, np.float32))
    rc = h.HcclAllReduce(s, s, u64(4 if me == 0 else 8), DT["fp32"], SUM, comm, None)
    assert rc == E_PARA, rc
    assert h.HcclCommDestroy(comm) == 0
    print("DIGEST", digest.hexdigest(), flush=True)


def scenario_p2p_mismatch(R):
    """Rank 0 sends 5 elements, rank 1 expects 6: the receiver fails with HCCL_E_PARA naming both sizes, the
    communicator is broken on both ranks."""
    comm = R.init()
    s = R.dev(np.ones(6, np.float32))
    if R.rank == 0:
        assert R.h.HcclSend(s, u64(5), DT["fp32"], 1, comm, None) == 0  # buffered: the receiver finds the mismatch
        rc = R.h.HcclBarrier(comm, None)
        assert rc == E_REMOTE, rc
    else:
        assert R.h.HcclRecv(s, u64(6), DT["fp32"], 0, comm, None) == E_PARA
    assert R.h.HcclAllReduce(s, s, u64(1), DT["fp32"], SUM, comm, None) in (E_REMOTE, E_PARA)
    assert R.h.HcclCommDestroy(comm) == 0


def scenario_die(R):
    """Rank 1 exits without a word; rank 0 gets HCCL_E_REMOTE well before the timeout."""
    comm = R.init()
    s = R.dev(np.ones(4, np.float32))
    assert R.h.HcclAllReduce(s, s, u64(4), DT["fp32"], SUM, comm, None) == 0
    if R.rank == 1:
        os._exit(0)
    rc = R.h.HcclAllReduce(s, s, u64(4), DT["fp32"], SUM, comm, None)
    assert rc == E_REMOTE, rc
    assert R.h.HcclAllReduce(s, s, u64(4), DT["fp32"], SUM, comm, None) == E_REMOTE  # broken from now on
    err = ctypes.c_int(0)
    assert R.h.HcclGetCommAsyncError(comm, ctypes.byref(err)) == 0 and err.value == E_REMOTE
    assert R.h.HcclCommDestroy(comm) == 0


def scenario_timeout(R):
    """Rank 1 stays alive but never calls: rank 0 times out (HCCL_EXEC_TIMEOUT=1) instead of hanging."""
    comm = R.init()
    s = R.dev(np.ones(4, np.float32))
    if R.rank == 0:
        rc = R.h.HcclBroadcast(s, u64(4), DT["fp32"], 0, comm, None)
        assert rc == E_TIMEOUT, rc
    else:
        import time
        time.sleep(2.5)
    assert R.h.HcclCommDestroy(comm) == 0


def scenario_join_timeout(R):
    """Only rank 0 of 2 arrives: HCCL_E_TIMEOUT after HCCL_CONNECT_TIMEOUT, and the shared memory is unlinked."""
    comm = ctypes.c_void_p()
    rc = R.h.HcclCommInitRootInfo(ctypes.c_uint32(2), R.root, ctypes.c_uint32(0), ctypes.byref(comm))
    assert rc == E_TIMEOUT, rc


def worker_main(argv):
    scenario, hccl_path, n, rank, root_hex = argv
    R = Rank(hccl_path, int(n), int(rank), root_hex)
    globals()["scenario_" + scenario](R)
    print("RANK_OK", rank, flush=True)


# ---------------------------------------------------------------- the test (the launcher)
def root_info(hccl_path):
    h = ctypes.CDLL(hccl_path)
    root = ctypes.create_string_buffer(4108)
    assert h.HcclGetRootInfo(root) == 0
    raw = root.raw.rstrip(b"\0")
    assert raw.startswith(b"pyaclnn-hccl:")
    return raw.hex(), raw.decode().split(":", 1)[1]


def launch(installed_tree, scenario, n, env_extra=None, ranks=None):
    hccl_path = os.path.join(installed_tree, "lib64", "libhccl.so")
    root_hex, token = root_info(hccl_path)
    env = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE", **(env_extra or {}))
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), scenario, hccl_path, str(n), str(r),
                               root_hex], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for r in (ranks if ranks is not None else range(n))]
    outs = [p.communicate(timeout=120) for p in procs]
    assert not glob.glob(f"/dev/shm/pyaclnn_hccl_{token}*"), "the shared memory was left behind"
    return procs, outs


def check_ok(procs, outs, ranks):
    for r, p, (out, err) in zip(ranks, procs, outs):
        assert p.returncode == 0 and f"RANK_OK {r}" in out, f"rank {r} failed:\n{out}\n{err[-3000:]}"


def test_collectives_three_ranks(installed_tree):
    procs, outs = launch(installed_tree, "full", 3)
    check_ok(procs, outs, range(3))
    digests = {[ln for ln in out.splitlines() if ln.startswith("DIGEST")][0] for out, _ in outs}
    assert len(digests) == 1  # every rank holds the same bytes
    assert "HcclAllReduce" in outs[0][1] and "rank 0 called HcclAllReduce" in outs[1][1]  # the mismatch named


def test_collectives_two_and_four_ranks(installed_tree):
    for n in (2, 4):
        procs, outs = launch(installed_tree, "full", n)
        check_ok(procs, outs, range(n))


def test_dead_rank_is_an_error_not_a_hang(installed_tree):
    procs, outs = launch(installed_tree, "die", 2, {"HCCL_EXEC_TIMEOUT": "60"})
    check_ok(procs[:1], outs[:1], [0])
    assert "exited" in outs[0][1] and "rank 1" in outs[0][1]


def test_point_to_point_size_mismatch(installed_tree):
    procs, outs = launch(installed_tree, "p2p_mismatch", 2, {"HCCL_EXEC_TIMEOUT": "60"})
    check_ok(procs, outs, range(2))
    assert "expects 24 bytes from rank 0, which sent 20" in outs[1][1]


def test_timeouts(installed_tree):
    procs, outs = launch(installed_tree, "timeout", 2, {"HCCL_EXEC_TIMEOUT": "1"})
    check_ok(procs, outs, range(2))
    assert "timeout" in outs[0][1]
    procs, outs = launch(installed_tree, "join_timeout", 2, {"HCCL_CONNECT_TIMEOUT": "1"}, ranks=[0])
    check_ok(procs, outs, [0])
    assert "only 1 of 2 ranks joined" in outs[0][1]


if __name__ == "__main__":
    worker_main(sys.argv[1:])
