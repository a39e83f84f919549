#!/usr/bin/env bash
# A second run of a program starts compiled: run the demo twice over one
# fresh on-disk kernel cache; the second run must compile nothing, load its
# kernels from disk and run no fused group on tier 0.
# Usage: warm_start.sh PATH_TO_mlp_demo
set -euo pipefail
demo=$1
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
export KILN_CACHE_DIR=$cache KILN_JIT=1
# The first run compiles in the foreground, so that each kernel reaches its
# O3 recompile and the cache holds its final object whatever the machine's
# load: in the background a compile can finish so late that a kernel stops
# at O1, and the second run's upgrade of it would count as a compile.
first=$(KILN_JIT_SYNC=1 "$demo")
second=$("$demo")
echo "--- second run:"; echo "$second"
grep -q "compiles done" <<<"$first" || { echo "FAIL: no JIT line in the first run"; exit 1; }
[ -n "$(ls "$cache")" ] || { echo "FAIL: the first run wrote no object to $cache"; exit 1; }
# The printed stats are "name value" entries separated by commas (counters.def).
grep -Eq "compiles requested 0," <<<"$second" || { echo "FAIL: the second run compiled"; exit 1; }
grep -Eq "group runs interpreted 0," <<<"$second" || { echo "FAIL: the second run interpreted fused groups"; exit 1; }
grep -Eq "disk cache hits [1-9][0-9]*," <<<"$second" || { echo "FAIL: no disk cache hits"; exit 1; }
# Same numbers on both runs.
[ "$(head -1 <<<"$first")" = "$(head -1 <<<"$second")" ] || { echo "FAIL: results differ"; exit 1; }
echo "warm start: ok"
