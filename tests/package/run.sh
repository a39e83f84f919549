#!/usr/bin/env bash
# Builds and runs the consumer project in this folder against kiln.
# Usage: run.sh build-tree|install KILN_BUILD_DIR [CMAKE] [CXX] [GENERATOR]
#   build-tree: find kiln with -Dkiln_DIR=KILN_BUILD_DIR
#   install:    cmake --install KILN_BUILD_DIR --prefix KILN_BUILD_DIR/package-prefix,
#               then find kiln with -DCMAKE_PREFIX_PATH=<that prefix>
set -euo pipefail
mode=${1:?mode: build-tree or install}
kiln_build=$(cd "${2:?kiln build dir}" && pwd)
cmake=${3:-cmake}
cxx=${4:-}
generator=${5:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work="$kiln_build/package-consumer-$mode"

case $mode in
  build-tree)
    find_args=(-Dkiln_DIR="$kiln_build")
    expect_dir="$kiln_build" ;;
  install)
    prefix="$kiln_build/package-prefix"
    rm -rf "$prefix"
    "$cmake" --install "$kiln_build" --prefix "$prefix" >/dev/null
    find_args=(-DCMAKE_PREFIX_PATH="$prefix")
    expect_dir="$prefix/" ;;
  *) echo "run.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac

rm -rf "$work"
args=(-S "$here" -B "$work" -DCMAKE_BUILD_TYPE=Release "${find_args[@]}")
[ -n "$cxx" ] && args+=(-DCMAKE_CXX_COMPILER="$cxx")
[ -n "$generator" ] && args+=(-G "$generator")
"$cmake" "${args[@]}"

# The package must come from where this mode says, not from anywhere else on the machine.
found=$(sed -n 's/^kiln_DIR:[A-Z]*=//p' "$work/CMakeCache.txt")
case "$found" in
  "$expect_dir"*) ;;
  *) echo "run.sh: kiln was found in '$found', expected under '$expect_dir'" >&2; exit 1 ;;
esac

"$cmake" --build "$work"
"$work/kiln_consumer"
[ -x "$work/kiln_consumer_distributed" ] || { echo "run.sh: kiln::distributed was not in the package" >&2; exit 1; }
