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
ALIASES    := libascendcl.so libacl_rt.so libnnopbase.so libopapi.so libopapi_nn.so libopapi_cv.so libopapi_math.so

WARN       := -Wall -Wextra -Werror -Wno-unused-parameter
CFLAGS_ALL := -std=c11 $(OPT) -g -fPIC -fopenmp -fvisibility=hidden -ffp-contract=off -DFUNC_VISIBILITY \
              -D_GNU_SOURCE $(WARN) -Iinclude -Ilibsrc $(SAN) $(CFLAGS)
CXXFLAGS_ALL := -std=c++11 $(OPT) -g -fPIC -fvisibility=hidden $(WARN) -Iinclude -Ilibsrc $(SAN) $(CXXFLAGS)
LDFLAGS_ALL := -shared -fopenmp -Wl,-soname,$(LIBNAME) -Wl,--exclude-libs,ALL -Wl,-z,defs -Wl,-z,nodelete $(SAN) $(LDFLAGS)

C_SRCS     := $(sort $(wildcard libsrc/common/*.c libsrc/runtime/*.c libsrc/meta/*.c libsrc/ops/*.c \
                                libsrc/kernels/*.c libsrc/kernels/ref/*.c))
CXX_SRCS   := $(sort $(wildcard libsrc/meta/*.cc))
OBJS       := $(C_SRCS:%.c=$(OBJDIR)/%.o) $(CXX_SRCS:%.cc=$(OBJDIR)/%.o)
HEADERS    := $(shell find include libsrc -name '*.h' -o -name '*.inc')

SAMPLE_SRCS := $(sort $(wildcard samples/*.cpp))
SAMPLE_STEMS := $(notdir $(SAMPLE_SRCS:.cpp=))

.PHONY: all lib install cdef samples check-samples demo test test-deps pytest bench asan fuzz help clean \
        check-headers

all: lib

lib: $(LIB)

$(OBJDIR)/%.o: %.c $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

$(OBJDIR)/%.o: %.cc $(HEADERS)
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS_ALL) -c $< -o $@

# -z nodelete: cffi dlcloses the library at interpreter exit; unloading libgomp under its idle worker threads
# would crash the process.
$(LIB): $(OBJS) Makefile
	@mkdir -p $(dir $@)
	$(CXX) $(LDFLAGS_ALL) -o $@ $(OBJS)

# ---- CANN-shaped install tree ----
install: $(LIB)
	@rm -rf $(PREFIX)/include $(PREFIX)/lib64
	@mkdir -p $(PREFIX)/include $(PREFIX)/lib64 $(PREFIX)/opp $(PREFIX)/bin $(PREFIX)/python/site-packages
	cp -r include/acl include/aclnn include/aclnnop $(PREFIX)/include/
	cp $(LIB) $(PREFIX)/lib64/$(LIBNAME)
	cd $(PREFIX)/lib64 && for a in $(ALIASES); do ln -sf $(LIBNAME) $$a; done
	sed "s|@PREFIX@|$$(cd $(PREFIX) && pwd)|" tools/set_env.sh.in > $(PREFIX)/set_env.sh
	cp -r tools/site-packages/. $(PREFIX)/python/site-packages/
	@echo "installed the emulated toolkit in $(PREFIX) (source $(PREFIX)/set_env.sh)"

# ---- Python binding declarations, generated from include/ ----
cdef:
	$(PYTHON) tools/gen_cdef.py include > pyaclnn/_cdef.h

# ---- doc samples: built unchanged with the docs' CMake pattern and with a plain g++ line ----
samples: install
	@mkdir -p $(BUILD)/samples/gxx
	@cd $(BUILD)/samples && rm -rf cmake && mkdir cmake && cd cmake && \
	  ASCEND_CUSTOM_PATH=$$(cd ../../../$(PREFIX) && pwd) cmake ../../../samples -DCMAKE_CXX_COMPILER=$(CXX) \
	    -DCMAKE_SKIP_RPATH=TRUE >cmake.log 2>&1 && $(MAKE) -k >build.log 2>&1; \
	  echo "cmake build of samples: see $(BUILD)/samples/cmake/build.log"
	@for s in $(SAMPLE_STEMS); do \
	  lib=opapi_nn; grep -qE 'grid_sampler|upsample' samples/$$s.cpp && lib=opapi_cv; \
	  rm -f $(BUILD)/samples/gxx/$$s; \
	  $(CXX) samples/$$s.cpp -o $(BUILD)/samples/gxx/$$s -I$(PREFIX)/include -I$(PREFIX)/include/aclnnop \
	    -I$(PREFIX)/include/aclnn -L$(PREFIX)/lib64 -l$$lib -lascendcl -lnnopbase \
	    >$(BUILD)/samples/gxx/$$s.log 2>&1 || echo "g++ build of $$s failed: see $(BUILD)/samples/gxx/$$s.log"; \
	done

check-samples: samples
	@bash tools/check_samples.sh $(PREFIX) $(BUILD)/samples $(SHARED)/golden

demo: samples
	@bash tools/check_samples.sh $(PREFIX) $(BUILD)/samples $(SHARED)/golden --show

# ---- tests ----
test-deps:
	$(PYTHON) -m pip install -q cffi numpy pytest ml_dtypes
	@if [ -z "$(SKIP_TORCH)" ]; then $(PYTHON) -m pip install -q torch==2.13.0 || \
	  echo "torch==2.13.0 not installed: the PyTorch oracle tests will be skipped"; fi

pytest: lib install
	$(PYTHON) -m pytest -q tests $(PYTEST_ARGS)

test: test-deps lib install
	$(PYTHON) -m pytest -q tests $(PYTEST_ARGS)

check-headers:
	$(PYTHON) -m pytest -q tests/test_abi.py -k headers

bench: lib
	$(PYTHON) bench/run.py $(BENCH_ARGS)

# Library and tests under AddressSanitizer + UBSan (Python tests run with the sanitizer runtime preloaded).
asan: lib install
	$(MAKE) BUILD=build/asan OPT=-O1 SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined" lib
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LD_PRELOAD="$$($(CC) -print-file-name=libasan.so) $$($(CC) -print-file-name=libubsan.so)" \
	  PYACLNN_LIBRARY=$(CURDIR)/build/asan/lib/$(LIBNAME) PYACLNN_SKIP_TORCH=1 \
	  $(PYTHON) -m pytest -q -p no:cacheprovider tests $(PYTEST_ARGS)

help:
	@echo "pyaclnn make targets"
	@echo "  make                 build the emulator library ($(LIB))"
	@echo "  make install         lay out a CANN-shaped tree in PREFIX (default build/cann): include/, lib64/ with"
	@echo "                       every library name ($(ALIASES)), set_env.sh"
	@echo "  make demo            the main job: build, install, build the doc samples (CMake + g++), run them and"
	@echo "                       report the match against $(SHARED)/golden"
	@echo "  make test            install test dependencies (torch==2.13.0 unless SKIP_TORCH=1), build, run all tests"
	@echo "  make check-samples   build and run the doc samples, compare stdout with $(SHARED)/golden"
	@echo "  make samples         build the doc samples only"
	@echo "  make cdef            regenerate pyaclnn/_cdef.h from include/"
	@echo "  make bench           time the ops against PyTorch CPU and memory bandwidth (BENCH_ARGS=...)"
	@echo "  make asan            library + tests under AddressSanitizer/UBSan"
	@echo "  make clean           remove build/"

clean:
	rm -rf build
