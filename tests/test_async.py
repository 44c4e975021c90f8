"""Queued execution (PYACLNN_ASYNC=1, libsrc/runtime/queue.c), issue 14.

The queue is chosen once per process from the environment, so every row runs a child process: the C harness
tests/c/async_queue.c (deferral, order, events, elapsed time, drains), the checker's harness tests/c/stream_check.c
and the 8-thread stress test with the queue on, and the Python package with the queue on."""
import os
import subprocess
import sys

import pytest

import native

ASYNC = {"PYACLNN_ASYNC": "1", "PYACLNN_SYNC": "0"}
EAGER = {"PYACLNN_ASYNC": "0", "PYACLNN_SYNC": "0"}
SYNC = {"PYACLNN_ASYNC": "0", "PYACLNN_SYNC": "1"}
MODES = {"async": ASYNC, "eager": EAGER, "sync": SYNC}


def _py_env(extra):
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = native.REPO + os.pathsep + env.get("PYTHONPATH", "")
    return env


@pytest.fixture(scope="module")
def aq(tmp_path_factory):
    return native.build("async_queue.c", tmp_path_factory.mktemp("aq") / "async_queue")


def _digest(out):
    return [line for line in out.splitlines() if line.startswith("digest ")]


@pytest.mark.parametrize("checker", ["on", "off"])
def test_queue_rows_bit_identical_in_every_mode(aq, checker):
    digests = {}
    for mode, env in MODES.items():
        res = native.run(aq, mode, checker, env_extra={**env, "PYACLNN_STREAM_CHECK": checker})
        assert res.returncode == 0 and "async_queue ok" in res.stdout, mode + "\n" + res.stdout + res.stderr
        digests[mode] = _digest(res.stdout)
    assert digests["async"] == digests["eager"] == digests["sync"] and digests["async"], digests


@pytest.mark.parametrize("omp", ["1", "3"])
def test_queue_rows_any_thread_count(aq, omp):
    res = native.run(aq, "async", "on", env_extra={**ASYNC, "OMP_NUM_THREADS": omp})
    assert res.returncode == 0 and "async_queue ok" in res.stdout, res.stdout + res.stderr


@pytest.fixture(scope="module")
def sc(tmp_path_factory):
    return native.build("stream_check.c", tmp_path_factory.mktemp("sc") / "stream_check")


@pytest.mark.parametrize("mode", ["on", "warn", "off"])
def test_checker_rules_with_the_queue(sc, mode):
    env = {**ASYNC, "PYACLNN_STREAM_CHECK": mode}
    for _ in range(3):  # the queue's timing varies from run to run; the checker's decisions must not
        res = native.run(sc, *([] if mode == "on" else ["off"]), env_extra=env, timeout=120)
        assert res.returncode == 0 and "stream_check ok" in res.stdout, res.stdout + res.stderr
        if mode == "warn":
            assert "pyaclnn warning: stream check:" in res.stderr
        else:
            assert "stream check" not in res.stderr


def test_eight_threads_with_streams_in_flight(tmp_path):
    exe = native.build("stress.c", tmp_path / "stress")
    res = native.run(exe, "-T", "8", "-t", "1", "-S", "2", env_extra={**ASYNC, "OMP_NUM_THREADS": "2"}, timeout=240)
    assert res.returncode == 0 and "stress ok" in res.stdout, res.stdout[-4000:] + res.stderr[-4000:]


PY = r"""
import numpy as np, pyaclnn
from pyaclnn import lib, ffi
from pyaclnn.errors import AclRuntimeError
from pyaclnn.ops._common import launch
from pyaclnn.runtime import Stream
x = np.arange(12, dtype=np.float32).reshape(3, 4)
out = np.zeros_like(x)
s = Stream()
pyaclnn.call("Add", x, x, 1.0, out, stream=s)  # public functions synchronise: out is final
assert (out == x + x).all()
a = pyaclnn.AclTensor.from_array(np.ones((256, 256), np.float32))
o = pyaclnn.AclTensor((256, 256), np.float32)
alpha = lib.aclCreateScalar(ffi.new("float *", 1.0), lib.ACL_FLOAT)
launch("Add", a, a, alpha, o, stream=s, synchronize=False)
try:
    o.numpy()
    raise SystemExit("an unsynchronised read was not reported")
except AclRuntimeError as e:
    assert e.code == 507004 and "aclnnAdd" in str(e), str(e)
s.synchronize()
assert (o.numpy() == 2).all()
for i in range(50):  # many launches in flight on one stream, one synchronisation
    launch("Add", o, a, alpha, o, stream=s, synchronize=False)
s.synchronize()
assert (o.numpy() == 52).all()
lib.aclDestroyScalar(alpha)
print("python async ok")
"""


@pytest.mark.parametrize("mode", ["async", "eager"])
def test_python_package_with_the_queue(mode):
    res = subprocess.run([sys.executable, "-c", PY], capture_output=True, text=True, env=_py_env(MODES[mode]),
                         timeout=240)
    assert res.returncode == 0 and "python async ok" in res.stdout, res.stdout + res.stderr


def test_fork_with_the_queue():
    """A child forked while tasks are queued starts with empty queues and a working queue of its own. (The child
    runs no kernel: GNU OpenMP's thread pool does not survive fork, eager or queued.)"""
    code = r"""
import os, numpy as np, pyaclnn
from pyaclnn import lib, ffi
from pyaclnn.runtime import Stream
x = np.arange(1 << 16, dtype=np.float32)
out = np.zeros_like(x)
s = Stream()
pyaclnn.call("Add", x, x, 1.0, out, stream=s)
n = 1 << 20
p = ffi.new("void **")
assert lib.aclrtMalloc(p, n, 0) == 0
assert lib.aclrtMemsetAsync(p[0], n, 5, n, s.handle) == 0   # in flight at the fork: the fork waits for it
pid = os.fork()
if pid == 0:
    ok = lib.aclrtMemsetAsync(p[0], n, 9, n, s.handle) == 0 and lib.aclrtSynchronizeStream(s.handle) == 0
    h = np.zeros(n, np.uint8)
    ok = ok and lib.aclrtMemcpy(ffi.from_buffer(h), n, p[0], n, 2) == 0 and (h == 9).all()
    os._exit(0 if ok else 3)
_, st = os.waitpid(pid, 0)
assert os.WEXITSTATUS(st) == 0, st
assert lib.aclrtSynchronizeStream(s.handle) == 0
h = np.zeros(n, np.uint8)
assert lib.aclrtMemcpy(ffi.from_buffer(h), n, p[0], n, 2) == 0 and (h == 5).all()
assert (out == x + x).all()
print("fork ok")
"""
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_py_env(ASYNC),
                         timeout=120)
    assert res.returncode == 0 and "fork ok" in res.stdout, res.stdout + res.stderr


def test_fuzzer_with_the_queue(tmp_path):
    """The fuzzer's runtime sequences (queued copies, memsets and ops on two streams, events, host accesses, frees,
    synchronisations in random order) and its op cases, with every second phase queued."""
    exe = native.build("fuzz.c", tmp_path / "fuzz")
    res = native.run(exe, "-t", "8", "-s", "11", env_extra=ASYNC, timeout=240)
    assert res.returncode == 0 and "fuzz ok" in res.stdout, res.stdout[-4000:] + res.stderr[-4000:]


DISPATCHER = r"""
import os, re, time, numpy as np, pyaclnn
from pyaclnn import lib, ffi
from pyaclnn.ops._common import launch
from pyaclnn.runtime import Stream
s = Stream()
alpha = lib.aclCreateScalar(ffi.new("float *", 1.0), lib.ACL_FLOAT)
a = pyaclnn.AclTensor.from_array(np.ones(1 << 20, np.float32))  # parallel-worthy
o = pyaclnn.AclTensor((1 << 20,), np.float32)
launch("Add", a, a, alpha, o, stream=s)  # launch + synchronise: the host runs it (its pool exists from here)
threads = len(os.listdir("/proc/self/task"))
launch("Add", o, a, alpha, o, stream=s, synchronize=False)  # nobody waits: the dispatcher runs it after its grace
st = ffi.new("aclrtStreamStatus *")
t_end = time.time() + 60
while time.time() < t_end:
    assert lib.aclrtStreamQuery(s.handle, st) == 0
    if st[0] == lib.ACL_STREAM_STATUS_COMPLETE:
        break
    time.sleep(0.001)
assert st[0] == lib.ACL_STREAM_STATUS_COMPLETE, "the dispatcher did not run an unwaited task"
# the dispatcher ran a parallel-worthy kernel on its own thread alone: no second OpenMP pool
assert len(os.listdir("/proc/self/task")) == threads, (threads, os.listdir("/proc/self/task"))
s.synchronize()
assert (o.numpy() == 3).all()
x = pyaclnn.AclTensor.from_array(np.ones(16, np.float32))
y = pyaclnn.AclTensor((16,), np.float32)
n, t0 = 3000, time.monotonic()
for _ in range(n):
    launch("Add", x, x, alpha, y, stream=s)
print("loop_ms %.1f tasks %d" % ((time.monotonic() - t0) * 1e3, n))
lib.aclDestroyScalar(alpha)
"""


def test_dispatcher_runs_unwaited_tasks_without_a_second_pool():
    """Tasks nobody waits for run on the dispatcher (after its grace) on one thread: a second OpenMP pool would make
    libgomp throttle every pool's spinning for the rest of the process (the host's kernels then wait for futex
    wake-ups). A launch + synchronise loop runs on the host and wakes the dispatcher at most about once per 5 ms
    grace (the first queue woke it at every launch and again inside the host's kernel)."""
    env = _py_env({**ASYNC, "OMP_NUM_THREADS": "2", "PYACLNN_QUEUE_STATS": "1"})
    res = subprocess.run([sys.executable, "-c", DISPATCHER], capture_output=True, text=True, env=env, timeout=240)
    assert res.returncode == 0 and "loop_ms" in res.stdout, res.stdout + res.stderr
    import re
    loop_ms = float(re.search(r"loop_ms ([\d.]+)", res.stdout).group(1))
    m = re.search(r"(\d+) tasks run by host threads, (\d+) by the dispatcher, (\d+) dispatcher wake-ups", res.stderr)
    assert m, res.stderr
    host, disp, wakes = map(int, m.groups())
    assert disp >= 1 and host >= 2900, res.stderr
    assert wakes <= loop_ms / 5 + 20 and wakes < 300, (wakes, loop_ms, res.stderr)
