#!/usr/bin/env bash
# Installs what kiln needs to build and test on Debian 12 (bookworm), and nothing
# else; with arguments, those packages instead (`make bench` adds OpenBLAS, the
# peer of the GEMM benchmark). Idempotent: when every package is already
# installed it does nothing.
set -euo pipefail

packages=(
  build-essential cmake
  llvm-19-dev libzstd-dev          # LLVM 19 (libLLVM-19.so) and what its CMake package looks for
  libtbb-dev libxxhash-dev libunwind-dev
  zlib1g-dev                       # data::datasets::MNIST reads gzip-compressed IDX files
  libopenmpi-dev openmpi-bin       # kiln_distributed (frontend/distributed/) and its mpirun tests
  nlohmann-json3-dev               # autotune/ reads and writes the tuning database as JSON
  dataset-fashion-mnist            # real IDX files for the data tests (/usr/share/datasets/fashion-mnist)
  googletest libgtest-dev libbenchmark-dev
  tmux                             # drives `kiln stat` in a real terminal in its tests
  python3                          # tests/profiler/check_trace.py validates trace-event JSON
  clang-14 libfuzzer-14-dev        # make fuzz: the libFuzzer targets of tests/fuzz
)
[ $# -gt 0 ] && packages=("$@")

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-deps: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done"
