#!/usr/bin/env bash
# llama-cpp-python itself on the emulated CANN device (issue 16, second acceptance row): install the pinned sdist
# with CMAKE_ARGS="-DGGML_CANN=on" into a virtual environment against an emulated toolkit tree, write a tiny
# llama-architecture model with random weights with the `gguf` package (f32 and f16 variants), load each with
# llama_cpp.Llama twice - n_gpu_layers=0 (CPU backend) and n_gpu_layers=-1 (every layer on CANN0) - and compare
# their greedy generations of 32 tokens and the time per token. Not part of `make test` (the pip build compiles
# llama.cpp: 20-40 minutes on 2 cores); `make client-llama-python` runs it.
#
#   tools/clients/llama_python.sh [PREFIX] [WORK]
#
# PREFIX  the toolkit tree (`make install`; default build/cann): its set_env.sh is sourced for the build and the run
# WORK    scratch directory: the sdist, the venv, the CMake build, the models, the logs
#         (default build/client-llama-python)
# Environment: LLAMA_CPP_PYTHON_VERSION (default 0.3.36), JOBS (default 2), SOC_TYPE (default Ascend910B4),
# STAGE=install|test (stop after that stage), REBUILD=1 (reinstall even if the venv has the same build),
# RUN_ARGS (extra arguments of tools/clients/llama_python_run.py, e.g. "--tokens 8 --models f32").
# The sdist is taken from WORK, else from build/client-llama (make client-llama's download), else pip downloads it.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PREFIX=$(realpath "${1:-build/cann}")
WORK=$(realpath -m "${2:-build/client-llama-python}")
VERSION=${LLAMA_CPP_PYTHON_VERSION:-0.3.36}
JOBS=${JOBS:-2}
SOC=${SOC_TYPE:-Ascend910B4}
STAGE=${STAGE:-test}
PY=${PYTHON:-python3}
mkdir -p "$WORK"
log() { echo "llama_python.sh: $*"; }

[ -f "$PREFIX/set_env.sh" ] || { echo "llama_python.sh: no toolkit tree at $PREFIX (run make install)" >&2; exit 2; }

# 1. the pinned source distribution
sdist="$WORK/llama_cpp_python-$VERSION.tar.gz"
if [ ! -f "$sdist" ]; then
  other="$(dirname "$WORK")/client-llama/llama_cpp_python-$VERSION.tar.gz"
  if [ -f "$other" ]; then
    cp "$other" "$sdist"
  else
    log "downloading llama-cpp-python==$VERSION (sdist)"
    "$PY" -m pip download -q --no-binary :all: --no-deps "llama-cpp-python==$VERSION" -d "$WORK"
  fi
fi

# unpacked in WORK and built from there: a stable source path keeps the CMake tree in WORK/skbuild reusable
SRC="$WORK/llama_cpp_python-$VERSION"
[ -f "$SRC/pyproject.toml" ] || tar -xzf "$sdist" -C "$WORK"

# 2. the toolkit environment, as a CANN user has it (as tools/clients/llama_cpp.sh does)
# shellcheck disable=SC1091
. "$PREFIX/set_env.sh"
export ASCEND_TOOLKIT_HOME="${ASCEND_TOOLKIT_HOME:-$PREFIX}"
log "ASCEND_TOOLKIT_HOME=$ASCEND_TOOLKIT_HOME"

# 3. the virtual environment: numpy and gguf from PyPI, llama-cpp-python built from the sdist with the CANN backend.
# The build keeps its CMake tree in WORK/skbuild, so a rebuild (REBUILD=1) is incremental. GGML_NATIVE=OFF keeps the
# CPU backend portable; LLAVA_BUILD=OFF skips the multimodal library nobody here loads.
VENV="$WORK/venv"
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
VPY="$VENV/bin/python"
CMAKE_ARGS_CANN="-DGGML_CANN=on -DSOC_TYPE=$SOC -DGGML_NATIVE=OFF -DLLAVA_BUILD=OFF -DCMAKE_BUILD_TYPE=Release"
stamp="$VENV/.llama-cpp-python-build"
want="$VERSION $CMAKE_ARGS_CANN"
if [ "${REBUILD:-0}" != 0 ] || [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  # numpy, gguf, and llama-cpp-python's own pure-Python dependencies (its pyproject's list)
  log "pip install numpy gguf typing-extensions diskcache jinja2; log: $WORK/pip.log"
  "$VPY" -m pip install numpy gguf typing-extensions diskcache jinja2 >"$WORK/pip.log" 2>&1 || { tail -n 20 "$WORK/pip.log"; log "FAILED at pip install"; exit 1; }
  cache="$WORK/skbuild/CMakeCache.txt"  # a CMake tree configured for another source directory cannot be reused
  if [ -f "$cache" ] && ! grep -qx "CMAKE_HOME_DIRECTORY:INTERNAL=$SRC" "$cache"; then rm -rf "$WORK/skbuild"; fi
  log "pip install $SRC with CMAKE_ARGS=\"$CMAKE_ARGS_CANN\" ($JOBS jobs); log: $WORK/build.log"
  if ! CMAKE_ARGS="$CMAKE_ARGS_CANN" CMAKE_BUILD_PARALLEL_LEVEL="$JOBS" SKBUILD_BUILD_DIR="$WORK/skbuild" \
        "$VPY" -m pip install -v --no-cache-dir --force-reinstall --no-deps "$SRC" >"$WORK/build.log" 2>&1; then
    grep -E "error|undefined reference|CMake Error" "$WORK/build.log" | sort -u | head -n 40
    log "FAILED at the llama-cpp-python build"; exit 1
  fi
  echo "$want" >"$stamp"
fi
# llama-cpp-python 0.3.36's CMakeLists installs its backend libraries by target name and spells the CANN one
# `ggml-can`, so libggml-cann.so (which libggml.so needs) stays in the build tree and `import llama_cpp` fails with
# "libggml-cann.so.0: cannot open shared object file" on any CANN machine: copy it next to the others.
LIBDIR=$("$VPY" -c 'import os, sysconfig; print(os.path.join(sysconfig.get_paths()["purelib"], "llama_cpp", "lib"))')
# (pip's uninstall does not know the copy: refresh it whenever the build tree's is different)
if ! cmp -s "$WORK/skbuild/bin/libggml-cann.so.0" "$LIBDIR/libggml-cann.so.0"; then
  log "installing libggml-cann.so* from $WORK/skbuild/bin into $LIBDIR (the client's install list misses it)"
  cp -a "$WORK"/skbuild/bin/libggml-cann.so* "$LIBDIR"/
fi
[ "$STAGE" = install ] && exit 0

# 4. the models and the comparison. Matmul weights stay in ND (see tools/clients/llama_cpp.sh: the FRACTAL_NZ
# conversion of GGML_CANN_WEIGHT_NZ=on is not modelled).
export GGML_CANN_WEIGHT_NZ=${GGML_CANN_WEIGHT_NZ:-off}
# shellcheck disable=SC2086
"$VPY" "$HERE/llama_python_run.py" --work "$WORK" ${RUN_ARGS:-} 2>&1 | tee "$WORK/run.log"
exit "${PIPESTATUS[0]}"
