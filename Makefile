# pyaclnn — a CPU emulator of Huawei CANN's aclnn C API.  `make help` lists the targets.

SHELL      := /bin/bash
PYTHON     ?= python3
CC         ?= gcc
CXX        ?= g++
PREFIX     ?= build/cann
SHARED     ?= ../shared
BUILD      ?= build
OPT        ?= -O3
SAN        ?=

LIBNAME    := libpyaclnn.so
LIB        := $(BUILD)/lib/$(LIBNAME)
OBJDIR     := $(BUILD)/obj
# Every library name that user build files link; each resolves to the one implementation.
ALIASES    := libascendcl.so libacl_rt.so libruntime.so libnnopbase.so libopapi.so libopapi_nn.so libopapi_cv.so libopapi_math.so \
              libacl_op_compiler.so libge_runner.so libgraph.so libacl_tdt_channel.so
# The non-acl names a framework binds (Hccl* collectives, Msprof* reporters, rt* kernel registration): a separate
# small library, so libpyaclnn.so exports only acl*/aclnn*/Acl*. Installed as libhccl.so (torch_npu needs it).
EXT_LIB    := $(BUILD)/lib/libhccl.so
EXT_SRCS   := $(sort $(wildcard libsrc/ext/*.c))

WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS_ALL := -std=c11 $(OPT) -g -fPIC -fopenmp -fvisibility=hidden -ffp-contract=off -DFUNC_VISIBILITY \
              -D_GNU_SOURCE $(WARN) -Iinclude -Ilibsrc $(SAN) $(CFLAGS)
CXXFLAGS_ALL := -std=c++11 $(OPT) -g -fPIC -fvisibility=hidden $(WARN) -Iinclude -Ilibsrc $(SAN) $(CXXFLAGS)
LDFLAGS_ALL := -shared -fopenmp -Wl,-soname,$(LIBNAME) -Wl,--exclude-libs,ALL -Wl,-z,defs -Wl,-z,nodelete $(SAN) $(LDFLAGS)

# The op table (tools/optable) generates the public headers of its ops, ops.inc and libsrc/ops/gen/*.c; they are
# committed, and refreshed here on every make (a no-op when current) so a table edit never builds stale code.
GEN_STATUS := $(shell $(PYTHON) tools/gen_ops.py >/dev/null 2>&1 && echo ok)
ifneq ($(GEN_STATUS),ok)
$(error tools/gen_ops.py failed: run `python3 tools/gen_ops.py` to see why)
endif

C_SRCS     := $(sort $(wildcard libsrc/common/*.c libsrc/runtime/*.c libsrc/meta/*.c libsrc/ops/*.c \
                                libsrc/ops/gen/*.c libsrc/kernels/*.c libsrc/kernels/ref/*.c))
CXX_SRCS   := $(sort $(wildcard libsrc/meta/*.cc))
OBJS       := $(C_SRCS:%.c=$(OBJDIR)/%.o) $(CXX_SRCS:%.cc=$(OBJDIR)/%.o)
HEADERS    := $(shell find include libsrc -name '*.h' -o -name '*.inc')

SAMPLE_SRCS := $(sort $(wildcard samples/*.cpp))
SAMPLE_STEMS := $(notdir $(SAMPLE_SRCS:.cpp=))

.PHONY: FORCE all lib install cdef gen samples check-samples demo test test-deps pytest bench asan asan-lib fuzz \
        memcheck ci help clean check-headers wheel cross-check client-asnumpy client-llama client-llama-python client-torch

all: lib

lib: $(LIB) $(EXT_LIB)

# Objects are rebuilt when the compiler flags change (e.g. SAN=... for the sanitizer builds).
FLAGS_STAMP := $(OBJDIR)/.flags
$(FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS_ALL) | $(CXX) $(CXXFLAGS_ALL)' | cmp -s - $@ || \
	  echo '$(CC) $(CFLAGS_ALL) | $(CXX) $(CXXFLAGS_ALL)' > $@
FORCE:

# -MMD: each object depends on exactly the headers it includes (the .d files below).
# The files of the fp32 vector kernels (libsrc/kernels/vmath.h; `vec` table ops, libsrc/ops/elementwise.h): their
# formulas' selects become vector blends only without trapping-math (no value changes: no reassociation, no FMA).
VEC_OBJS   := $(addprefix $(OBJDIR)/libsrc/ops/,gen/nn_activation.o gen/math_unary.o gelu_backward_v2.o glu.o)
$(VEC_OBJS): CFLAGS_ALL += -fno-trapping-math

$(OBJDIR)/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -MMD -MP -c $< -o $@

$(OBJDIR)/%.o: %.cc $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_ALL) -MMD -MP -c $< -o $@

-include $(OBJS:.o=.d)

# -z nodelete: cffi dlcloses the library at interpreter exit; unloading libgomp under its idle worker threads
# would crash the process.
$(LIB): $(OBJS) Makefile
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS_ALL) -o $@ $(OBJS)

$(EXT_LIB): $(EXT_SRCS) $(LIB) include/hccl/hccl.h include/hccl/hccl_types.h Makefile
	$(CC) -std=c11 $(OPT) -g -fPIC -shared -fvisibility=hidden -D_GNU_SOURCE $(WARN) -Iinclude $(SAN) \
	  -Wl,-soname,libhccl.so -Wl,-z,defs -o $@ $(EXT_SRCS) -L$(BUILD)/lib -lpyaclnn -Wl,-rpath,'$$ORIGIN'

# ---- CANN-shaped install tree ----
# include/{acl,aclnn,aclnnop}, lib64/ (libpyaclnn.so + every alias name), set_env.sh, python/site-packages/ (the
# repo's tools/site-packages/), samples/ (the doc samples, their CMakeLists.txt and expected/ stdout), opp/, bin/.
# ALIASES_AS=symlinks: each alias is a symlink to libpyaclnn.so.
# ALIASES_AS=filters: each alias is a small real ELF "filter" library (for wheels, which cannot hold symlinks): it
#   carries the same dynamic symbol table, so `-lopapi_cv` links, and DT_FILTER libpyaclnn.so + RUNPATH $$ORIGIN,
#   so the dynamic loader (link or dlopen) binds every symbol to the one loaded libpyaclnn.so. Its own function
#   bodies are never called.
# INSTALL_STRIP=1 strips debug info from the installed library. SET_ENV_FALLBACK is the path set_env.sh uses
# when it cannot locate itself (empty: none).
ALIASES_AS       ?= symlinks
# The version the tree's version.info files report (read by frameworks such as torch_npu).
CANN_VERSION     ?= 8.5.0
INSTALL_STRIP    ?=
SET_ENV_FALLBACK ?= $(abspath $(PREFIX))
ALIAS_STUB       := $(BUILD)/lib/alias_filter.c

$(ALIAS_STUB): $(LIB)
	@mkdir -p $(dir $@)
	nm -D --defined-only $(LIB) | awk '$$2 == "T" { print "void " $$3 "(void) { __builtin_trap(); }" }' > $@

install: $(LIB) $(EXT_LIB) $(if $(filter filters,$(ALIASES_AS)),$(ALIAS_STUB))
	@case "$(ALIASES_AS)" in symlinks|filters) ;; *) echo "ALIASES_AS must be symlinks or filters"; exit 1;; esac
	@rm -rf $(PREFIX)/include $(PREFIX)/lib64 $(PREFIX)/samples $(PREFIX)/python
	@mkdir -p $(PREFIX)/include $(PREFIX)/lib64 $(PREFIX)/opp $(PREFIX)/bin $(PREFIX)/python/site-packages \
	  $(PREFIX)/samples $(PREFIX)/runtime $(PREFIX)/compiler $(PREFIX)/hccl
	cp -r include/acl include/aclnn include/aclnnop include/hccl $(PREFIX)/include/
	cp $(LIB) $(PREFIX)/lib64/$(LIBNAME)
	cp $(EXT_LIB) $(PREFIX)/lib64/libhccl.so
	for d in runtime compiler opp hccl; do printf 'Version=$(CANN_VERSION)\nversion_dir=$(CANN_VERSION)\n' \
	  > $(PREFIX)/$$d/version.info; done
	printf 'Version=$(CANN_VERSION)\nversion_dir=$(CANN_VERSION)\n' > $(PREFIX)/version.info
	$(if $(INSTALL_STRIP),strip --strip-unneeded $(PREFIX)/lib64/$(LIBNAME))
ifeq ($(ALIASES_AS),filters)
	for a in $(ALIASES); do \
	  $(CC) -shared -fPIC -O1 -nostdlib -s -o $(PREFIX)/lib64/$$a $(ALIAS_STUB) -Wl,-soname,$$a \
	    -Wl,--filter,$(LIBNAME) -Wl,-rpath,'$$ORIGIN' -Wl,-z,noseparate-code || exit 1; \
	done
else
	cd $(PREFIX)/lib64 && for a in $(ALIASES); do ln -sf $(LIBNAME) $$a; done
endif
	if [ -d tools/site-packages ]; then cp -r tools/site-packages/. $(PREFIX)/python/site-packages/ && \
	  find $(PREFIX)/python/site-packages -name __pycache__ -prune -exec rm -rf {} +; fi
	cp samples/*.cpp samples/CMakeLists.txt $(PREFIX)/samples/ && cp -r samples/expected $(PREFIX)/samples/
	sed "s|@PREFIX@|$(SET_ENV_FALLBACK)|" tools/set_env.sh.in > $(PREFIX)/set_env.sh
	@echo "installed the emulated toolkit in $(PREFIX) (source $(PREFIX)/set_env.sh)"

# ---- generated from the op table (also refreshed at every make, see GEN_STATUS) ----
gen:
	$(PYTHON) tools/gen_ops.py
	$(PYTHON) tools/gen_cdef.py include > pyaclnn/_cdef.h

# ---- Python binding declarations, generated from include/ ----
cdef:
	$(PYTHON) tools/gen_cdef.py include > pyaclnn/_cdef.h

# ---- doc samples: built unchanged with the docs' CMake pattern and with `pyaclnn cc`, run, stdout compared ----
# The same code as `python -m pyaclnn samples` (run as a script: needs only python3, no cffi/numpy).
GOLDEN       ?= samples/expected
SAMPLES_ARGS  = --prefix $(PREFIX) --build-dir $(BUILD)/samples --expected $(GOLDEN)

check-samples: install
	@$(PYTHON) pyaclnn/_toolkit.py samples $(SAMPLES_ARGS)

samples: check-samples

demo: install
	@$(PYTHON) pyaclnn/_toolkit.py samples $(SAMPLES_ARGS) --show

# ---- Python distribution: a wheel carrying the library and the CANN-shaped tree (setup.py) ----
wheel:
	$(PYTHON) -m pip wheel --no-deps -w dist .

# ---- tests ----
test-deps:
	$(PYTHON) -m pip install -q cffi numpy pytest ml_dtypes hypothesis setuptools
	@if [ -z "$(SKIP_TORCH)" ]; then $(PYTHON) -m pip install -q torch==2.13.0 || \
	  echo "torch==2.13.0 not installed: the PyTorch oracle tests will be skipped"; fi

pytest: lib install
	$(PYTHON) -m pytest -q tests $(PYTEST_ARGS)

# Everything CI runs (.ci/run): the tests, the tests under the sanitizers, a bounded fuzzing budget.
test: test-deps lib install
	$(PYTHON) -m pytest -q tests $(PYTEST_ARGS)
	$(MAKE) asan
	$(MAKE) fuzz FUZZ_SECONDS=$(CI_FUZZ_SECONDS)
	$(MAKE) client-torch

ci: test

CI_FUZZ_SECONDS ?= 45

check-headers:
	$(PYTHON) -m pytest -q tests/test_abi.py -k headers

bench: lib
	$(CC) -std=c11 -O2 -Iinclude bench/overhead.c -o $(BUILD)/overhead -L$(BUILD)/lib -lpyaclnn -Wl,-rpath,$(abspath $(BUILD)/lib)
	OMP_NUM_THREADS=2 $(BUILD)/overhead
	$(CC) -std=c11 -O2 -Iinclude bench/overhead_ops.c -o $(BUILD)/overhead_ops -L$(BUILD)/lib -lpyaclnn -Wl,-rpath,$(abspath $(BUILD)/lib)
	for op in add abs nll softmax; do OMP_NUM_THREADS=1 $(BUILD)/overhead_ops $$op 20000; done
	$(PYTHON) bench/run.py $(BENCH_ARGS)

# ---- reliability: sanitizers, fuzzing, valgrind (README "Reliability") ----
SAN_FLAGS  := -fsanitize=address,undefined,float-cast-overflow -fno-omit-frame-pointer -fno-sanitize-recover=all
ASAN_BUILD ?= build/asan
ASAN_LIB   := $(CURDIR)/$(ASAN_BUILD)/lib/$(LIBNAME)
# detect_leaks=0: CPython itself leaks under LSan; leaks are valgrind's job (make memcheck).
# allocator_may_return_null=1: a huge allocation request is an error to report (207001), not an abort.
# OMP_WAIT_POLICY=passive: on a loaded machine spinning OpenMP workers make every parallel region cost a
# scheduler time slice (README); results do not depend on it.
SAN_ENV    := ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:allocator_may_return_null=1 \
              UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 OMP_WAIT_POLICY=passive
HARNESS_CFLAGS := -std=c11 -O1 -g -Wall -Wextra -Werror -Iinclude
FUZZ_SECONDS ?= 50
FUZZ_SEED  ?= 1
FUZZ_OPS   ?=
# The ops the Atlas A2 refuses run their kernels under the SoC they serve (PYACLNN_SOC_NAME): after the main run, each
# SoC:ops pair below gets FUZZ_SOC_SECONDS of its own (README "Other SoCs").
FUZZ_SOC_SECONDS ?= 5
FUZZ_SOC_RUNS := Ascend310P3:NonMaxSuppression,BackgroundReplace,BlendImagesCustom,MrgbaCustom \
                 Ascend950PR_9599:CIoU,RoiPoolingWithArgMax,RoiPoolingGradWithArgMax

asan-lib:
	$(MAKE) BUILD=$(ASAN_BUILD) OPT=-O1 SAN="$(SAN_FLAGS)" lib

# Library and tests under AddressSanitizer + UBSan: the Python tests run with the sanitizer runtimes preloaded;
# the C harnesses the tests build (fuzz, stress, api_smoke, dtype_dump) are compiled with the same sanitizers
# (PYACLNN_SANITIZE), and the doc samples run against the sanitized install tree (PYACLNN_MAKE_ARGS).
asan: lib install asan-lib
	$(SAN_ENV) LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  PYACLNN_LIBRARY=$(ASAN_LIB) PYACLNN_SKIP_TORCH=1 PYACLNN_SKIP_SLOW=1 PYACLNN_SANITIZE=address,undefined,float-cast-overflow \
	  PYACLNN_MAKE_ARGS="BUILD=$(ASAN_BUILD) PREFIX=$(ASAN_BUILD)/cann OPT=-O1 SAN='$(SAN_FLAGS)'" \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests $(PYTEST_ARGS)

# The C ABI fuzzer on the ASan+UBSan build for a bounded budget (FUZZ_SECONDS, FUZZ_SEED).
fuzz: asan-lib
	$(CC) $(HARNESS_CFLAGS) $(SAN_FLAGS) tests/c/fuzz.c -o $(ASAN_BUILD)/fuzz -L$(ASAN_BUILD)/lib -lpyaclnn -lstdc++ \
	  -Wl,-rpath,$(CURDIR)/$(ASAN_BUILD)/lib -lm
	$(SAN_ENV) $(ASAN_BUILD)/fuzz -t $(FUZZ_SECONDS) -s $(FUZZ_SEED) $(if $(FUZZ_OPS),-o $(FUZZ_OPS))
	$(if $(FUZZ_OPS),,$(foreach r,$(FUZZ_SOC_RUNS),PYACLNN_SOC_NAME=$(word 1,$(subst :, ,$(r))) $(SAN_ENV) \
	  $(ASAN_BUILD)/fuzz -t $(FUZZ_SOC_SECONDS) -s $(FUZZ_SEED) -o $(word 2,$(subst :, ,$(r))) &&) true)

# Cross-build for CROSS_ARCH (default aarch64) and run the doc samples + api_smoke under qemu-user.
CROSS_ARCH ?= aarch64
cross-check:
	tools/cross_check.sh $(CROSS_ARCH)

# A real client: hicann/asnumpy built against this tree in a virtual environment, then its own pytest suite
# (not in CI: the AsNumpy source is not available there). ASNUMPY_SRC: a checkout or a bare git mirror.
ASNUMPY_SRC ?=
client-asnumpy: install
	@[ -n "$(ASNUMPY_SRC)" ] || { echo "make client-asnumpy ASNUMPY_SRC=<asnumpy checkout or bare mirror>"; exit 2; }
	tools/clients/asnumpy.sh $(ASNUMPY_SRC) $(PREFIX) $(BUILD)/client-asnumpy

# A real client: llama.cpp's CANN backend (vendored in the pinned llama-cpp-python sdist, downloaded with pip) built
# with -DGGML_CANN=on against this tree, then its own `test-backend-ops -b CANN0` (not in CI: network, long build).
client-llama: install
	tools/clients/llama_cpp.sh $(PREFIX) $(BUILD)/client-llama

# llama-cpp-python itself (the same sdist, pip-installed with CMAKE_ARGS="-DGGML_CANN=on" into a venv in
# $(BUILD)/client-llama-python): a tiny random-weight llama model, greedy generation on the CPU backend and on CANN0
# compared token for token (f32 and f16 weights). Not in CI: the pip build takes 20-40 minutes on 2 cores.
client-llama-python: install
	tools/clients/llama_python.sh $(PREFIX) $(BUILD)/client-llama-python

# A real client: PyTorch through torch_npu (torch==2.13.0 + torch-npu==2.13.0 from PyPI in a virtual environment in
# $(BUILD)/client-torch), ~90 + ~300 torch ops on device "npu" compared with the CPU, and torch.distributed with two
# ranks. The last step of `make test` (about 20 s once the wheel is downloaded; PyPI is reachable in CI).
client-torch: install
	tools/clients/torch_npu.sh $(PREFIX) $(BUILD)/client-torch

# valgrind on every doc sample and the C harnesses (suppressions: tools/valgrind.supp, libgomp's thread pool only).
VALGRIND   := valgrind --error-exitcode=1 --leak-check=full --show-leak-kinds=definite,indirect,possible \
              --errors-for-leak-kinds=definite,indirect,possible --suppressions=$(CURDIR)/tools/valgrind.supp \
              --track-origins=yes -q
memcheck: samples
	@command -v valgrind >/dev/null || { echo "valgrind is not installed"; exit 1; }
	@mkdir -p $(BUILD)/memcheck
	$(CC) $(HARNESS_CFLAGS) tests/c/api_smoke.c -o $(BUILD)/memcheck/api_smoke -L$(BUILD)/lib -lpyaclnn -lstdc++ \
	  -Wl,-rpath,$(CURDIR)/$(BUILD)/lib
	$(CC) $(HARNESS_CFLAGS) tests/c/stress.c -o $(BUILD)/memcheck/stress -L$(BUILD)/lib -lpyaclnn \
	  -Wl,-rpath,$(CURDIR)/$(BUILD)/lib -pthread -lm
	$(CC) $(HARNESS_CFLAGS) tests/c/fuzz.c -o $(BUILD)/memcheck/fuzz -L$(BUILD)/lib -lpyaclnn -lstdc++ \
	  -Wl,-rpath,$(CURDIR)/$(BUILD)/lib -lm
	$(CC) $(HARNESS_CFLAGS) tests/c/stream_check.c -o $(BUILD)/memcheck/stream_check -L$(BUILD)/lib -lpyaclnn \
	  -Wl,-rpath,$(CURDIR)/$(BUILD)/lib
	@source $(PREFIX)/set_env.sh && fail=0 && \
	for s in $(SAMPLE_STEMS); do \
	  printf '%-24s ' "$$s"; \
	  if OMP_WAIT_POLICY=passive $(VALGRIND) --log-file=$(BUILD)/memcheck/$$s.log $(BUILD)/samples/cc/$$s >/dev/null; \
	  then echo "valgrind clean"; else echo "valgrind ERRORS: see $(BUILD)/memcheck/$$s.log"; fail=1; fi; \
	done; \
	for h in "api_smoke" "stream_check" "stress -T 4 -t 2 -S 1" "fuzz -n 300 -s 5"; do \
	  printf '%-24s ' "$${h%% *}"; \
	  if OMP_WAIT_POLICY=passive FUZZ_CASE_TIMEOUT=120 $(VALGRIND) --log-file=$(BUILD)/memcheck/$${h%% *}.log \
	     $(BUILD)/memcheck/$$h >/dev/null; \
	  then echo "valgrind clean"; else echo "valgrind ERRORS: see $(BUILD)/memcheck/$${h%% *}.log"; fail=1; fi; \
	done; exit $$fail

help:
	@echo "pyaclnn make targets"
	@echo "  make                 build the emulator library ($(LIB))"
	@echo "  make install         lay out a CANN-shaped tree in PREFIX (default build/cann): include/, lib64/ with"
	@echo "                       every library name ($(ALIASES)),"
	@echo "                       set_env.sh, python/site-packages/ (tools/site-packages/), samples/ (+ expected/)"
	@echo "                       ALIASES_AS=filters: aliases as small ELF filter libraries instead of symlinks"
	@echo "                       INSTALL_STRIP=1: strip debug info from the installed library"
	@echo "  make client-torch    PyTorch through torch_npu on device \"npu\" against this tree, compared with the CPU"
	@echo "  make demo            the main job: build, install, build the doc samples (CMake + pyaclnn cc), run them"
	@echo "                       and report the match against $(GOLDEN) (a copy of $(SHARED)/golden)"
	@echo "  make test            everything CI runs: install test dependencies (torch==2.13.0 unless SKIP_TORCH=1),"
	@echo "                       build, run all tests, then make asan, then make fuzz (CI_FUZZ_SECONDS=45)"
	@echo "  make ci              the same as make test"
	@echo "  make pytest          build and run the test suite only (no dependency install, no sanitizers)"
	@echo "  make check-samples   as demo without printing the outputs (exit status 1 on a mismatch); also: make samples"
	@echo "  make wheel           build a wheel in dist/ (library + CANN-shaped tree inside the package)"
	@echo "  make gen             regenerate what the op table (tools/optable) implies: headers, ops.inc,"
	@echo "                       libsrc/ops/gen/, pyaclnn/_optable.py, then pyaclnn/_cdef.h (docs/OP_TABLE.md)"
	@echo "  make cdef            regenerate pyaclnn/_cdef.h from include/"
	@echo "  make bench           time the ops against PyTorch CPU and memory bandwidth (BENCH_ARGS=..., e.g. --simd-levels)"
	@echo "  make asan            library + all tests (C harnesses and samples included) under ASan/UBSan"
	@echo "  make fuzz            the C ABI fuzzer on the ASan/UBSan build (FUZZ_SECONDS=$(FUZZ_SECONDS), FUZZ_SEED=1;"
	@echo "                       FUZZ_OPS=Roll,Diag: only those ops; ASAN_BUILD=dir: where the sanitized build goes;"
	@echo "                       then FUZZ_SOC_SECONDS=$(FUZZ_SOC_SECONDS) per SoC for the ops that run only under another SoC)"
	@echo "  make cross-check     cross-build for CROSS_ARCH (default aarch64), run the doc samples + api_smoke under qemu"
	@echo "  make client-asnumpy  build hicann/asnumpy (ASNUMPY_SRC=checkout or mirror) against the tree in a venv and"
	@echo "                       run its own test suite (PYTEST_ARGS=...; not in CI)"
	@echo "  make client-llama    build llama.cpp's CANN backend (llama-cpp-python 0.3.36 sdist) against the tree and"
	@echo "                       run its test-backend-ops -b CANN0 (TEST_ARGS=..., STAGE=configure|build; not in CI)"
	@echo "  make client-llama-python  pip-install llama-cpp-python with -DGGML_CANN=on against the tree; greedy 32 tokens"
	@echo "                       of a tiny random llama model on the CPU backend and on CANN0 compared (not in CI)"
	@echo "  make memcheck        valgrind on every doc sample and the C harnesses (api_smoke, stream_check, stress, fuzz)"
	@echo "  make clean           remove build/"
	@echo "Python package commands (after make install or pip install .): python -m pyaclnn {prefix,info,cc,samples}"

clean:
	rm -rf build
