#!/usr/bin/env bash
# Build llama.cpp's CANN backend (the copy vendored in the pinned llama-cpp-python sdist) against an emulated
# toolkit tree, then run its own op test program on the emulated device: `test-backend-ops -b CANN0`.
# Not part of CI (it downloads the sdist and builds a large C++ project); `make client-llama` runs it.
#
#   tools/clients/llama_cpp.sh [PREFIX] [WORK]
#
# PREFIX  the toolkit tree (`make install`; default build/cann), used as ASCEND_TOOLKIT_HOME
# WORK    scratch directory: the sdist, its unpacked source, the CMake build, the logs (default build/client-llama)
# Environment: LLAMA_CPP_PYTHON_VERSION (default 0.3.36), JOBS (default 2), SOC_TYPE (default Ascend910B4),
# TEST_ARGS (extra test-backend-ops arguments, e.g. "-o ADD"), STAGE=configure|build|test (stop after that stage),
# CLIENT_BUG_FILTER (the -p regex that skips the client's own bugs, below; empty runs every case).
set -euo pipefail
PREFIX=$(realpath "${1:-build/cann}")
WORK=$(realpath -m "${2:-build/client-llama}")
VERSION=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
JOBS=${JOBS:-2}
SOC=${SOC_TYPE:-Ascend910B4}
STAGE=${STAGE:-test}
PY=${PYTHON:-python3}
mkdir -p "$WORK"
log() { echo "llama_cpp.sh: $*"; }

[ -f "$PREFIX/set_env.sh" ] || { echo "llama_cpp.sh: no toolkit tree at $PREFIX (run make install)" >&2; exit 2; }

# 1. the pinned source distribution (its vendor/llama.cpp is the client)
sdist="$WORK/llama_cpp_python-$VERSION.tar.gz"
if [ ! -f "$sdist" ]; then
  log "downloading llama-cpp-python==$VERSION (sdist)"
  "$PY" -m pip download -q --no-binary :all: --no-deps "llama-cpp-python==$VERSION" -d "$WORK"
fi
SRC="$WORK/llama_cpp_python-$VERSION/vendor/llama.cpp"
if [ ! -d "$SRC/ggml/src/ggml-cann" ]; then
  tar -xzf "$sdist" -C "$WORK"
fi

# 2. the toolkit environment, as a CANN user has it
# shellcheck disable=SC1091
. "$PREFIX/set_env.sh"
export ASCEND_TOOLKIT_HOME="${ASCEND_TOOLKIT_HOME:-$PREFIX}"
log "ASCEND_TOOLKIT_HOME=$ASCEND_TOOLKIT_HOME"

# 3. configure
B="$WORK/build"
log "configuring $SRC (GGML_CANN=on, SOC_TYPE=$SOC); log: $WORK/configure.log"
if ! cmake -S "$SRC" -B "$B" -DCMAKE_BUILD_TYPE=Release -DGGML_CANN=on -DSOC_TYPE="$SOC" \
      -DLLAMA_BUILD_TESTS=ON -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_CURL=OFF \
      -DGGML_NATIVE=OFF >"$WORK/configure.log" 2>&1; then
  tail -n 30 "$WORK/configure.log"; log "FAILED at configure"; exit 1
fi
[ "$STAGE" = configure ] && exit 0

# 4. build test-backend-ops (and the ggml-cann backend library it loads)
log "building test-backend-ops with $JOBS jobs; log: $WORK/build.log"
if ! cmake --build "$B" --target test-backend-ops -j "$JOBS" >"$WORK/build.log" 2>&1; then
  grep -E "error|undefined reference" "$WORK/build.log" | sort -u | head -n 60
  log "FAILED at build"; exit 1
fi
[ "$STAGE" = build ] && exit 0

# 5. run the client's own op tests on the emulated device. Matmul weights stay in ND: the backend's default
# (GGML_CANN_WEIGHT_NZ=on) converts them to the private FRACTAL_NZ layout with aclnnTransMatmulWeight, which the
# emulator does not model; set GGML_CANN_WEIGHT_NZ=on to try it anyway.
export GGML_CANN_WEIGHT_NZ=${GGML_CANN_WEIGHT_NZ:-off}
# The cases below are bugs of the client that a real device shares, so they are filtered out unless
# CLIENT_BUG_FILTER is set (empty: run everything). Evidence in the README's llama.cpp section:
#  - SET_ROWS f16 -> f32: ggml_cann_set_rows' F32 branch hands the f16 source buffer to aclnnInplaceIndexCopy as
#    ACL_FLOAT (supports_op checks only the destination type): wrong values, and an f32 view at a 2-byte-aligned
#    address, which the first phase refuses (161002) and ggml aborts on;
#  - CONCAT of quantised types: supports_op accepts any type, and aclnnCat's A2 dtype list has no INT4 (Q4_0)
#    or undefined (Q4_1, Q5_x) dtype: the real op_api returns 161002 too, and ggml aborts;
#  - GET_ROWS q8_0 of a view (vs0=1): the backend's q8_0 path assumes a contiguous source in its own
#    (weights-then-scales) layout and ignores the view's strides and offset: wrong values, no abort.
FILTER=${CLIENT_BUG_FILTER-'^(?!type_src=f16,type_dst=f32,)(?!type=q[0-9a-z_]+,ne_a=)(?!type=q8_0,n=.*vs0=1)'}
PARGS=()
[ -n "$FILTER" ] && PARGS=(-p "$FILTER")
log "running test-backend-ops -b CANN0 ${PARGS[*]} ${TEST_ARGS:-}; log: $WORK/test.log"
set +e
# shellcheck disable=SC2086
"$B/bin/test-backend-ops" -b CANN0 "${PARGS[@]}" ${TEST_ARGS:-} >"$WORK/test.log" 2>&1
rc=$?
set -e
grep -E "tests passed|Backend .*: (OK|FAIL)|FAIL" "$WORK/test.log" | tail -n 20 || true
log "test-backend-ops exited with $rc"
exit $rc
