#!/usr/bin/env bash
# Installs what `make bench` needs beyond scripts/install-deps.sh: OpenBLAS, the
# reference SGEMM that bench/gemm_bench.cpp compares kiln's matmul against.
# Debian 12 (bookworm). Idempotent: when every package is already installed it
# does nothing.
set -euo pipefail

packages=(
  libopenblas-dev                  # cblas.h + libopenblas (pthread variant by default)
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-bench-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null 2>&1; then
  sudo=(sudo)
else
  echo "install-bench-deps: not root and no sudo; install as root: apt-get install ${missing[*]}" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-bench-deps: done"
