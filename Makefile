# kiln: the commands of README.md. Each installs what is missing (Debian 12),
# configures once, builds incrementally and runs. Never more than 2 jobs.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

JOBS        ?= 2
BUILD       ?= build
BUILD_ASAN  ?= build-asan
BUILD_TSAN  ?= build-tsan
BUILD_FUZZ  ?= build-fuzz
FUZZ_SECONDS ?= 20
CMAKE       ?= cmake
CTEST       ?= ctest
BENCH_OUT   ?= bench/results
BENCH_MIN_TIME ?= 0.3

# Sanitizer builds: same options every time (re-running CMake on an unchanged tree
# rebuilds nothing).
SANITIZE_CMAKE_ARGS := -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_BUILD_BENCH=OFF -DKILN_BUILD_EXAMPLES=OFF
ASAN_ENV := ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Debian's libtbb is not TSan-instrumented: TBB-internal reports are suppressed
# (tests/tsan.supp), and kernels run on the calling thread so that TBB hand-offs
# cannot produce reports in kiln's frames. Override TSAN_KILN_ENV to change that.
TSAN_KILN_ENV ?= KILN_NUM_THREADS=1
TSAN_ENV := TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$(CURDIR)/tests/tsan.supp" $(TSAN_KILN_ENV)
# Sanitizer runtimes of GCC 12 fail on kernels with high ASLR entropy
# (vm.mmap_rnd_bits > 28); run them with ASLR off where the machine allows it.
NO_ASLR := $(shell setarch $$(uname -m) -R true >/dev/null 2>&1 && echo "setarch $$(uname -m) -R")

.PHONY: all deps build demo train train-ddp test test-distributed test-sanitize test-asan test-tsan fuzz bench bench-readme clean

all: build

deps:
	@bash scripts/install-deps.sh

build: deps
	@if [ ! -f $(BUILD)/CMakeCache.txt ]; then \
	  $(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release; \
	fi
	$(CMAKE) --build $(BUILD) -j$(JOBS)

# The inference demo, then one epoch of the Fashion-MNIST MLP (test accuracy
# and the JIT's statistics at the end); `make train MODEL=cnn EPOCHS=5`
# trains the CNN, or longer.
MODEL ?= mlp
EPOCHS ?= 1
demo: build
	KILN_JIT=1 ./$(BUILD)/examples/mlp_demo
	KILN_JIT=1 ./$(BUILD)/examples/fashion_mnist mlp 1

train: build
	KILN_JIT=1 ./$(BUILD)/examples/fashion_mnist $(MODEL) $(EPOCHS)

# The same training data parallel over NP processes of one machine
# (examples/fashion_mnist_ddp.cpp): `make train-ddp NP=3 MODEL=cnn`. mpirun's
# flags are the tests' (KILN_MPIRUN_FLAGS of cmake/KilnMpirun.cmake, read
# from the build's cache); each rank runs its kernels on one thread.
NP ?= 2
train-ddp: build
	flags=$$(sed -n 's/^KILN_MPIRUN_FLAGS:STRING=//p' $(BUILD)/CMakeCache.txt | tr ';' ' '); \
	KILN_JIT=1 KILN_NUM_THREADS=1 mpirun -np $(NP) $$flags ./$(BUILD)/examples/fashion_mnist_ddp $(MODEL) $(EPOCHS)

test: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -j$(JOBS)

# The MPI suite alone: tests/distributed under mpirun -np 2 and -np 3, and
# the failure modes (a rank that throws, a rank that stops answering);
# mpirun's flags are KILN_MPIRUN_FLAGS (cmake/KilnMpirun.cmake).
test-distributed: build
	$(CTEST) --test-dir $(BUILD) --output-on-failure -L distributed

# ASan+UBSan on every suite labeled `sanitize`, then TSan on the `threads` suite.
test-sanitize: test-asan test-tsan

test-asan: deps
	$(CMAKE) -S . -B $(BUILD_ASAN) $(SANITIZE_CMAKE_ARGS) -DKILN_SANITIZE="address,undefined"
	$(CMAKE) --build $(BUILD_ASAN) -j$(JOBS)
	$(ASAN_ENV) $(NO_ASLR) $(CTEST) --test-dir $(BUILD_ASAN) --output-on-failure -j$(JOBS) -L sanitize -LE 'package|layering'

test-tsan: deps
	$(CMAKE) -S . -B $(BUILD_TSAN) $(SANITIZE_CMAKE_ARGS) -DKILN_SANITIZE=thread
	$(CMAKE) --build $(BUILD_TSAN) -j$(JOBS) --target tests-threads
	$(TSAN_ENV) $(NO_ASLR) $(CTEST) --test-dir $(BUILD_TSAN) --output-on-failure -j$(JOBS) -L threads

# libFuzzer: the snapshot reader, the tuning database reader and the kernel
# cache's file check (tests/fuzz/*_fuzz.cpp), built with clang-14 and
# -fsanitize=fuzzer,address in their own build tree, each run for
# FUZZ_SECONDS from its corpus folder (build-fuzz/corpus/<name>, kept between
# runs). A crash, a leak or an abort fails the target; the reproducer is
# build-fuzz/<name>-crash-<sha1> (run the target on it to replay).
fuzz: deps
	CC=clang-14 CXX=clang++-14 $(CMAKE) -S . -B $(BUILD_FUZZ) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILN_BUILD_FUZZ=ON \
	  -DKILN_BUILD_TESTS=OFF -DKILN_BUILD_BENCH=OFF -DKILN_BUILD_EXAMPLES=OFF
	$(CMAKE) --build $(BUILD_FUZZ) -j$(JOBS) --target fuzz-targets
	@for src in tests/fuzz/*_fuzz.cpp; do \
	  name=$$(basename $$src .cpp); mkdir -p $(BUILD_FUZZ)/corpus/$$name; \
	  echo "fuzz: $$name for $(FUZZ_SECONDS) s"; \
	  $(BUILD_FUZZ)/tests/fuzz/$$name -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(BUILD_FUZZ)/$$name- $(BUILD_FUZZ)/corpus/$$name; \
	done

# Runs every benchmark program of a Release build beside its peers, then
# merges the results: bench/results/<name>.json and <name>.txt per program,
# latest.json (merged), latest.md (the table) and speedup.svg (the plot).
# The peers are installed first (LibTorch, OpenBLAS; gnuplot and python3 for
# the report); the build is (re)configured as Release so that it finds them.
# scripts/run-benches.sh sets the peers' environment for the bench commands
# only (bench/README.md, "Settings"); a program that fails (a result
# mismatch) fails `make bench`, after the others ran and the report marked
# its rows. `make bench-readme` copies the table into README.md and the plot
# into docs/bench/.
BENCH_PACKAGES := libtorch-dev libopenblas-dev gnuplot-nox python3

bench: deps
	@bash scripts/install-deps.sh $(BENCH_PACKAGES)
	$(CMAKE) -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DKILN_BUILD_BENCH=ON
	$(CMAKE) --build $(BUILD) -j$(JOBS) --target benches
	@status=0; bash scripts/run-benches.sh $(BUILD) $(BENCH_OUT) $(BENCH_MIN_TIME) || status=$$?; \
	python3 scripts/bench-report.py $(BENCH_OUT); \
	if [ $$status != 0 ]; then echo "bench: a benchmark program failed (see above); the report marks its rows FAILED"; fi; \
	exit $$status

bench-readme:
	python3 scripts/bench-report.py $(BENCH_OUT) --readme README.md --svg docs/bench/speedup.svg

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_TSAN) $(BUILD_FUZZ)
