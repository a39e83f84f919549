#!/usr/bin/env bash
# Self-test of scripts/check-layers: a clean fixture tree must pass, and each
# fixture with one bad include must fail, naming exactly that file and line.
# Usage: selftest.sh [path/to/check-layers]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
check=${1:-$here/../../scripts/check-layers}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kiln-layers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
failures=0

put() {  # put ROOT FILE LINE...
  local root=$1 file=$2; shift 2
  mkdir -p "$root/$(dirname "$file")"
  printf '%s\n' "$@" >>"$root/$file"
}

make_clean_tree() {
  local r=$1
  put "$r" include/kiln/kiln.h '#pragma once' '#include "frontend/tensor.h"' '#include <kiln/dtype.h>' '#include <vector>' '#include <memory>'
  put "$r" include/kiln/dtype.h '#pragma once'
  put "$r" include/kiln/frontend/tensor.h '#pragma once' '#include "../dtype.h"' '#include <kiln/profiler/stats.h>'
  put "$r" include/kiln/profiler/stats.h '#pragma once'
  put "$r" profiler/counters.h '#pragma once' '#include <atomic>'
  put "$r" profiler/counters.cpp '#include "profiler/counters.h"' '#include <kiln/profiler/stats.h>' '#include <libunwind.h>'
  put "$r" memory/pool.h '#pragma once' '#include "profiler/counters.h"'
  put "$r" memory/pool.cpp '#include "memory/pool.h"' '#include <kiln/dtype.h>' '#include <tbb/concurrent_hash_map.h>'
  put "$r" autotune/space.h '#pragma once' '#include "profiler/counters.h"'
  put "$r" trace/segment.h '#pragma once' '#include "memory/pool.h"' '#include <xxhash.h>'
  put "$r" trace/ops/elementwise.cpp '#include "trace/segment.h"' '#include "../../memory/pool.h"'
  put "$r" jit/engine.h '#pragma once' '#include "trace/segment.h"' '#include "autotune/space.h"'
  put "$r" jit/orc.cpp '#include "jit/engine.h"' '#include <llvm/ExecutionEngine/Orc/LLJIT.h>' '#include "llvm-c/Core.h"'
  put "$r" frontend/tensor.cpp '#include <kiln/kiln.h>' '#include "jit/engine.h"' '#include "trace/segment.h"'
  put "$r" tools/main.cpp '#include <kiln/kiln.h>' '#include <kiln/profiler/stats.h>' '#include "cli/args.h"'
  put "$r" tools/cli/args.h '#pragma once'
}

# expect NAME STATUS PATTERN FILE LINE...: add FILE with LINEs to a clean tree, run the check,
# expect exit STATUS and (if PATTERN) exactly one report, matching PATTERN.
expect() {
  local name=$1 want=$2 pattern=$3; shift 3
  local r="$tmp/$name"
  make_clean_tree "$r"
  [ $# -gt 0 ] && put "$r" "$@"
  local out status=0
  out=$(bash "$check" "$r" 2>&1) || status=$?
  local lines; lines=$(grep -c . <<<"$out" || true)
  if [ "$status" != "$want" ]; then
    echo "FAIL $name: exit $status, expected $want; output:"; echo "$out"; failures=$((failures + 1))
  elif [ -n "$pattern" ] && { [ "$lines" != 1 ] || ! grep -qE "$pattern" <<<"$out"; }; then
    echo "FAIL $name: expected one report matching '$pattern', got:"; echo "$out"; failures=$((failures + 1))
  elif [ -z "$pattern" ] && [ -n "$out" ]; then
    echo "FAIL $name: expected no output, got:"; echo "$out"; failures=$((failures + 1))
  else
    echo "ok   $name${out:+: $out}"
  fi
}

expect clean               0 ""
expect upward_include      1 '^layering: memory/x\.cpp:2: memory/ includes jit/ \(jit/y\.h\)$' \
       memory/x.cpp '#include "memory/pool.h"' '#include "jit/y.h"'
expect upward_relative     1 'profiler/deep/p\.cpp:1: profiler/ includes memory/' \
       profiler/deep/p.cpp '#include "../../memory/pool.h"'
expect upward_public_path  1 'include/kiln/memory/m\.h:1: memory/ includes frontend/' \
       include/kiln/memory/m.h '#include <kiln/frontend/tensor.h>'
expect umbrella_header     1 'trace/t\.cpp:1: trace/ includes frontend/' \
       trace/t.cpp '#include <kiln/kiln.h>'
expect autotune_to_jit     1 'autotune/a\.cpp:1: autotune/ includes jit/' \
       autotune/a.cpp '  #  include "jit/engine.h"'
expect llvm_outside_jit    1 'frontend/f\.cpp:1: frontend/ includes LLVM' \
       frontend/f.cpp '#include <llvm/IR/Module.h>'
expect tools_private       1 'tools/t\.cpp:1: tools/ includes private header of trace/' \
       tools/t.cpp '#include "trace/segment.h"'
expect public_to_private   1 'include/kiln/dtype2\.h:1: public header includes private header trace/segment\.h' \
       include/kiln/dtype2.h '#include "trace/segment.h"'

if [ "$failures" -gt 0 ]; then
  echo "check-layers self-test: $failures case(s) failed"
  exit 1
fi
echo "check-layers self-test: all cases behave"
