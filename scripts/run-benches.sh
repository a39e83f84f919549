#!/usr/bin/env bash
# Runs every benchmark program in <build>/bench with the peers' settings
# (for these commands only, never exported to anything else), writing
# <out>/<name>.json (Google Benchmark JSON) and <out>/<name>.txt (console),
# and <out>/run-env.txt: the settings, the machine, the load. Runs every
# program even if one fails (a result mismatch exits non-zero), then exits
# non-zero if any did.
#
# First the GEMM shapes the programs run are tuned on this machine, at 1 and
# 2 threads, into a database of this run only (<out>/tuning/db.json, read by
# the programs through KILN_TUNING_DB): kiln's rows are its speed after
# tuning, and <out>/tuning/t<threads>.json hold the heuristic's and the
# tuned time of each shape and the tuning time (KILN_TUNE_BUDGET seconds
# per shape, default 20), which bench-report shows.
#   scripts/run-benches.sh <build> <out> <min_time>
set -euo pipefail
build=$1 out=$2 min_time=$3
mkdir -p "$out"
rm -f "$out"/*.json "$out"/*.txt
rm -rf "$out/tuning"

# Peers at their best (bench/README.md, "Settings"): OpenBLAS picks its own
# kernels (a forced CORETYPE/L2 size is removed; but see below), LibTorch's OpenMP threads
# sleep when idle instead of spinning on kiln's cores, glibc keeps
# LibTorch's large temporaries instead of unmapping them after each op, and
# ATen uses its AVX-512 kernels where the CPU has them (it picks AVX2 else).
settings=(OMP_WAIT_POLICY=passive
          GLIBC_TUNABLES=glibc.malloc.mmap_max=0:glibc.malloc.trim_threshold=4294967296)
grep -qw avx512f /proc/cpuinfo && settings+=(ATEN_CPU_CAPABILITY=avx512)
unset_vars=(OPENBLAS_CORETYPE OPENBLAS_L2_SIZE)

# OpenBLAS (built with DYNAMIC_ARCH) picks its kernels by CPU model, and on a
# model newer than the library it falls back to its generic Prescott (SSE3)
# kernels: Debian 12's 0.3.21 on an Intel Xeon of model 207 (AVX-512) ran
# sgemm 512 at 19 GFLOP/s and LibTorch's mm, which calls it, at 24, against
# 127 and 126 with its Cooperlake kernels. Then the peers run the kernels of
# this CPU's vector ISA, named here and in the report.
has_flags() { for f in "$@"; do grep -qw "$f" /proc/cpuinfo || return 1; done; }
openblas_core=$(env -u OPENBLAS_CORETYPE python3 -c '
import ctypes
lib = ctypes.CDLL("libopenblas.so.0")
lib.openblas_get_corename.restype = ctypes.c_char_p
print(lib.openblas_get_corename().decode())' 2>/dev/null || true)
if [ "$openblas_core" = Prescott ]; then
  forced=
  if has_flags avx512f avx512bw avx512vl avx512dq avx512_bf16; then forced=Cooperlake
  elif has_flags avx512f avx512bw avx512vl avx512dq; then forced=SkylakeX
  elif has_flags avx2 fma; then forced=Haswell
  fi
  if [ -n "$forced" ]; then
    echo "OpenBLAS does not know this CPU's model and runs its Prescott kernels: OPENBLAS_CORETYPE=$forced for the peers"
    settings+=(OPENBLAS_CORETYPE="$forced")
    unset_vars=(OPENBLAS_L2_SIZE)
  fi
fi

{
  echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "cores=$(nproc)"
  echo "flags=$(grep -m1 -ow -e avx512f -e avx512bw -e avx512_bf16 -e avx2 -e fma /proc/cpuinfo | sort -u | tr '\n' ' ')"
  echo "memory=$(awk '/MemTotal/ {printf "%.0f GiB", $2 / 1048576}' /proc/meminfo)"
  echo "os=$(. /etc/os-release && echo "$PRETTY_NAME"), $(uname -r)"
  echo "compiler=$(c++ --version | head -1)"
  echo "kiln_commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD 2>/dev/null || echo ' (with uncommitted changes)')"
  echo "settings=${settings[*]}; unset: ${unset_vars[*]}"
  echo "min_time=$min_time"
  echo "load_before=$(cut -d' ' -f1-3 /proc/loadavg)"
} > "$out/run-env.txt"

unset_args=()
for v in "${unset_vars[@]}"; do unset_args+=(-u "$v"); done

# The products of gemm_bench (sgemm N^3), epilogue_bench (128x512x512,
# 1024^3), and the linear layers of peers_bench and training_bench's MLP
# forward passes (batch x inputs x outputs), and the weight gradients of
# training_bench's MLP backward (matmul_tn: 512x128x784 is dyᵀ · x) and an
# input gradient (dy · w: matmul 128x512x784); and the compiled reductions
# of reduction_bench and peers_bench (sum of 16M, softmax 4096x1024).
tune_targets=(matmul 256x256x256 matmul 512x512x512 matmul 1024x1024x1024 matmul 2048x2048x2048
              matmul 128x512x512 linear 1x784x512 linear 1x512x512 linear 128x784x512 linear 128x512x512
              linear 8x512x512 linear 32x512x512 linear 1024x512x512 linear 256x3072x768
              matmul 128x512x784 matmul_tn 512x128x784 matmul_tn 512x128x512
              sum 16777216 softmax 4096x1024)
mkdir -p "$out/tuning"
settings+=(KILN_TUNING_DB="$out/tuning/db.json")
tune_start=$(date +%s)
for threads in 1 2; do
  echo "== kiln tune, $threads thread(s)"
  env "${unset_args[@]}" "${settings[@]}" "$build/tools/kiln-tune" --threads "$threads" --budget "${KILN_TUNE_BUDGET:-20}" \
      --json "${tune_targets[@]}" > "$out/tuning/t$threads.json"
done
echo "tuning_seconds=$(( $(date +%s) - tune_start ))" >> "$out/run-env.txt"
failed=()
found=0
for b in "$build"/bench/*; do
  [ -f "$b" ] && [ -x "$b" ] || continue
  found=1
  name=$(basename "$b")
  echo "== $name"
  if ! env "${unset_args[@]}" "${settings[@]}" "$b" --benchmark_min_time="$min_time" \
         --benchmark_out="$out/$name.json" --benchmark_out_format=json \
         --benchmark_display_aggregates_only=true 2>&1 | tee "$out/$name.txt"; then
    failed+=("$name")
  fi
done
echo "load_after=$(cut -d' ' -f1-3 /proc/loadavg)" >> "$out/run-env.txt"
if [ $found = 0 ]; then
  echo "run-benches: no benchmark programs in $build/bench (Google Benchmark missing?)" >&2
  exit 1
fi
if [ ${#failed[@]} -gt 0 ]; then
  echo "run-benches: FAILED: ${failed[*]} (see $out/<name>.txt)" >&2
  exit 1
fi
