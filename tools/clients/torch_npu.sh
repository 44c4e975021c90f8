#!/usr/bin/env bash
# PyTorch through torch_npu on the emulated toolkit: a virtual environment with torch==2.13.0 and
# torch-npu==2.13.0 (from PyPI), set_env.sh sourced, then tests/clients/torch_npu_smoke.py runs ~90 torch ops on
# device "npu" and compares each with the CPU, printing the path each took (aclnn, or the single-operator type
# torch_npu sent to aclopCompileAndExecute); then tests/clients/torch_npu_dist.py runs torch.distributed (backend
# "hccl") with two ranks in separate processes and compares every collective with the CPU; torch_npu_wide.py tries
# ~300 more ops (its table goes to WORK/wide_result.txt).
#
#   tools/clients/torch_npu.sh [PREFIX] [WORK]
#
# PREFIX  the toolkit tree (`make install`; default build/cann)
# WORK    scratch directory holding the virtual environment (default build/client-torch)
# The environment reuses a system-wide torch==2.13.0 when there is one (--system-site-packages), so only the
# torch-npu wheel (~150 MB) is downloaded. torch-npu registers itself as a torch backend (entry point
# torch.backends): every `import torch` in that environment loads it, which is why it lives only here.
set -euo pipefail
PREFIX=$(realpath "${1:-build/cann}")
WORK=$(realpath -m "${2:-build/client-torch}")
PY=${PYTHON:-python3}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$WORK"

if [ ! -x "$WORK/venv/bin/python" ]; then
  if "$PY" -c 'import torch, sys; sys.exit(torch.__version__.split("+")[0] != "2.13.0")' 2>/dev/null; then
    "$PY" -m venv --system-site-packages "$WORK/venv"
  else
    "$PY" -m venv "$WORK/venv"
  fi
fi
V="$WORK/venv/bin/python"
if ! "$V" -c 'import torch, sys; sys.exit(torch.__version__.split("+")[0] != "2.13.0")' 2>/dev/null; then
  "$V" -m pip install -q torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu || "$V" -m pip install -q torch==2.13.0
fi
"$V" -c 'import importlib.metadata as m; assert m.version("torch-npu") == "2.13.0"' 2>/dev/null || \
  "$V" -m pip install -q --no-deps torch-npu==2.13.0

# shellcheck disable=SC1091
source "$PREFIX/set_env.sh"
# Errors raise at the op that failed (no asynchronous task queue, whose first error would end every later op).
export TASK_QUEUE_ENABLE=${TASK_QUEUE_ENABLE:-0}
# torch's CPU threads and the emulator's OpenMP threads share the cores: idle threads sleep instead of spinning.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-PASSIVE}
export PYACLNN_SINGLE_OP_LOG="$WORK/single_op.log"
rm -f "$PYACLNN_SINGLE_OP_LOG"
cd "$WORK"
"$V" "$HERE/tests/clients/torch_npu_smoke.py" 2> "$WORK/stderr.log" | tee "$WORK/result.txt"
# ~300 more torch ops (not required to pass: the table of what runs, through aclnn or the single-op path)
(cd "$HERE/tests/clients" && "$V" torch_npu_wide.py 2>> "$WORK/stderr.log" > "$WORK/wide_result.txt") || true
tail -1 "$WORK/wide_result.txt"
# torch.distributed with backend "hccl": two ranks in separate processes (libhccl.so's shared-memory path)
"$V" "$HERE/tests/clients/torch_npu_dist.py" 2 2>> "$WORK/stderr.log" | tee "$WORK/dist_result.txt"
