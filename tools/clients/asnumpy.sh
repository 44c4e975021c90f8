#!/usr/bin/env bash
# Build hicann/asnumpy (a real pybind11 client of aclnn) against an emulated toolkit tree and run its own pytest
# suite.  Not part of CI (CI has no copy of the AsNumpy source); `make client-asnumpy ASNUMPY_SRC=<path>` runs it.
#
#   tools/clients/asnumpy.sh ASNUMPY_SRC [PREFIX] [WORK]
#
# ASNUMPY_SRC  a checkout of hicann/asnumpy, or a bare git mirror of it (cloned into WORK/src)
# PREFIX       the toolkit tree (`make install`; default build/cann)
# WORK         scratch directory: the source copy, the virtual environment, the logs (default build/client-asnumpy)
# Extra pytest arguments: PYTEST_ARGS="-k sort -x".  Debian's libfmt-dev and libspdlog-dev are needed (installed
# with apt-get when missing and running as root).
set -euo pipefail
SRC=${1:?usage: asnumpy.sh ASNUMPY_SRC [PREFIX] [WORK]}
PREFIX=$(realpath "${2:-build/cann}")
WORK=$(realpath -m "${3:-build/client-asnumpy}")
PY=${PYTHON:-python3}
mkdir -p "$WORK"

if ! [ -d /usr/lib/x86_64-linux-gnu/cmake/fmt ] && ! [ -d /usr/lib/aarch64-linux-gnu/cmake/fmt ] \
   && ! [ -d /usr/lib/cmake/fmt ]; then
  if [ "$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq libfmt-dev libspdlog-dev >/dev/null
  else echo "asnumpy.sh: install libfmt-dev and libspdlog-dev first" >&2; exit 2; fi
fi
multiarch=$(gcc -print-multiarch 2>/dev/null || true)
cmdir=/usr/lib/${multiarch:+$multiarch/}cmake

# A fresh copy of the source (its build writes into the tree).
rm -rf "$WORK/src"
if [ -d "$SRC/.git" ] || git -C "$SRC" rev-parse --is-bare-repository >/dev/null 2>&1; then
  git clone -q "$SRC" "$WORK/src"
else
  cp -r "$SRC" "$WORK/src"
fi

if [ ! -x "$WORK/venv/bin/python" ]; then
  "$PY" -m venv "$WORK/venv"
fi
V="$WORK/venv/bin/python"
"$V" -m pip install -q --upgrade pip >/dev/null
"$V" -m pip install -q "scikit-build-core>=1.0.0" "pybind11>=3.0.0" "numpy>=2.0" "setuptools-scm==9.2.2" \
  "towncrier>=24" loguru pytest ninja

# The emulated toolkit: headers and libraries from PREFIX, found as a real CANN install would be.
# shellcheck disable=SC1091
source "$PREFIX/set_env.sh"
export ASCEND_TOOLKIT_HOME="$PREFIX"
export SETUPTOOLS_SCM_PRETEND_VERSION=${SETUPTOOLS_SCM_PRETEND_VERSION:-0.0.0}
export CMAKE_ARGS="-Dfmt_DIR=$cmdir/fmt -Dspdlog_DIR=$cmdir/spdlog ${CMAKE_ARGS:-}"
echo "== building AsNumpy against $PREFIX (log: $WORK/build.log)"
if ! (cd "$WORK/src" && "$V" -m pip install -v --no-build-isolation . ) > "$WORK/build.log" 2>&1; then
  tail -n 40 "$WORK/build.log"; echo "asnumpy.sh: the build failed" >&2; exit 1
fi
echo "== running AsNumpy's test suite (log: $WORK/pytest.log)"
cd "$WORK/src"
set +e
# shellcheck disable=SC2086
"$V" -m pytest -q -p no:cacheprovider tests -o addopts="--import-mode=importlib" ${PYTEST_ARGS:-} \
  > "$WORK/pytest.log" 2>&1
rc=$?
set -e
tail -n 5 "$WORK/pytest.log"
exit $rc
