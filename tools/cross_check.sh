#!/usr/bin/env bash
# Cross-build the library for another architecture (default aarch64) and run the doc samples and the C API smoke
# harness under qemu-user, comparing the samples' stdout with samples/expected/, then the exhaustive check of the
# fp16/bf16 row converters (tests/c/half_rows_check.c; a few minutes under qemu). Needs a cross compiler and
# qemu-user (Debian: apt-get install gcc-aarch64-linux-gnu g++-aarch64-linux-gnu qemu-user).
# usage: tools/cross_check.sh [ARCH]        (make cross-check [CROSS_ARCH=aarch64])
set -euo pipefail
cd "$(dirname "$0")/.."
arch=${1:-aarch64}
triple=$arch-linux-gnu
for t in "$triple-gcc" "$triple-g++" "qemu-$arch"; do
  command -v "$t" >/dev/null || { echo "cross-check: $t not found (install a $arch cross compiler and qemu-user)"; exit 2; }
done
build=build/cross-$arch
make -s -j2 lib install BUILD="$build" PREFIX="$build/cann" CC="$triple-gcc" CXX="$triple-g++" >/dev/null
prefix=$build/cann
mkdir -p "$build/run"
export QEMU_LD_PREFIX=/usr/$triple LD_LIBRARY_PATH=$PWD/$prefix/lib64
fail=0
for src in samples/*.cpp; do
  stem=$(basename "$src" .cpp)
  "$triple-g++" "$src" -o "$build/run/$stem" -I"$prefix/include" -I"$prefix/include/aclnnop" -I"$prefix/include/aclnn" \
    -L"$prefix/lib64" -lopapi_nn -lopapi_cv -lascendcl -lnnopbase
  if qemu-"$arch" "$build/run/$stem" > "$build/run/$stem.stdout" 2>"$build/run/$stem.stderr" &&
     cmp -s "$build/run/$stem.stdout" "samples/expected/$stem.stdout"; then
    echo "$stem  match ($arch, qemu)"
  else
    echo "$stem  MISMATCH ($arch): see $build/run/$stem.stdout"; fail=1
  fi
done
"$triple-gcc" -std=c11 -O1 -Iinclude tests/c/api_smoke.c -o "$build/run/api_smoke" -L"$prefix/lib64" -lpyaclnn -lstdc++ -lm
if qemu-"$arch" "$build/run/api_smoke" | grep -q "api_smoke ok"; then echo "api_smoke  ok ($arch, qemu)"; else echo "api_smoke FAILED ($arch)"; fail=1; fi
# the fp16/bf16 row converters (libsrc/common/half_rows.h: _Float16 fcvt + NEON there) against the scalar
# conversions, exhaustively (all 2^32 floats; HALF_ROWS_STEP=N checks every N-th block of 65536 for a quick run)
"$triple-gcc" -std=c11 -O3 -fopenmp -ffp-contract=off -Wall -Wextra -Werror -Iinclude -Ilibsrc tests/c/half_rows_check.c \
  -o "$build/run/half_rows_check"
if out=$(qemu-"$arch" "$build/run/half_rows_check" "${HALF_ROWS_STEP:-1}"); then echo "$out  ($arch, qemu)"
else echo "$out"; echo "half_rows FAILED ($arch)"; fail=1; fi
exit $fail
