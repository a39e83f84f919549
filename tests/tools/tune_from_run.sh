#!/usr/bin/env bash
# `kiln tune --from STATS.json` on a recorded run: the MLP demo runs with a
# stats file, whose `tunables` name its linear layers' products; kiln tune
# reads them, tunes them with the run's threads and stores the winners; the
# demo run again uses them from its first product (config "database"); a
# second --from skips what the database has; a bad file is an error naming it.
# Usage: tune_from_run.sh KILN_PROGRAM MLP_DEMO
set -euo pipefail
kiln=$1 demo=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KILN_CACHE_DIR=$work/cache KILN_TUNING_DB=$work/tuning.json KILN_NUM_THREADS=2
fail() { echo "FAIL: $*"; exit 1; }

KILN_STATS=$work/run.json "$demo" 20 >/dev/null
python3 - "$work/run.json" <<'PY' || fail "the run's snapshot does not list its linear products"
import json, sys
rows = {t["target"]: t for t in json.load(open(sys.argv[1]))["stats"]["tunables"]}
# mlp_demo: batch 256, 64 inputs, 256 hidden, 10 classes; teacher and student layers.
for target in ("linear 256x64x256", "linear 256x256x10"):
    row = rows[target]
    assert row["threads"] == 2 and row["calls"] >= 40 and row["config"] == "heuristic", row
PY

"$kiln" tune --from "$work/run.json" --budget 1 >"$work/out" 2>"$work/err" || { cat "$work/err"; fail "kiln tune --from failed"; }
cat "$work/err" "$work/out"
grep -q "from $work/run.json: 2 of 2 kernels" "$work/err" || fail "no summary of what was chosen"
grep -qE "^linear 256x64x256 .*kc=" "$work/out" || fail "no table row for the first layer"
grep -qE "^linear 256x256x10 .*kc=" "$work/out" || fail "no table row for the second layer"
python3 - "$work/tuning.json" <<'PY' || fail "the database does not hold the run's two keys at 2 threads"
import json, sys
keys = sorted(json.load(open(sys.argv[1]))["entries"])
assert len(keys) == 2 and all(k.startswith("gemm/f32/nt/t2/") for k in keys), keys
PY

KILN_STATS=$work/again.json "$demo" 2 >/dev/null
python3 - "$work/again.json" <<'PY' || fail "the next run does not use the tuned configs"
import json, sys
rows = json.load(open(sys.argv[1]))["stats"]["tunables"]
assert rows and all(t["config"] == "database" for t in rows), rows
PY

"$kiln" tune --from "$work/run.json" --budget 1 >"$work/out" 2>"$work/err"
grep -q "0 of 2 kernels" "$work/err" || fail "a second --from did not skip the tuned kernels: $(cat "$work/err")"
grep -q "skipped linear 256x64x256: already in the database" "$work/err" || fail "no word on why a kernel was skipped"
grep -q "nothing to tune" "$work/err" || fail "no word that nothing was left"

echo '{"schema": 1, "stats": {' >"$work/bad.json"
"$kiln" tune --from "$work/bad.json" 2>"$work/err" && fail "a truncated snapshot was accepted"
grep -qF "$work/bad.json" "$work/err" || fail "the error does not name the file: $(cat "$work/err")"
"$kiln" tune --from "$work/missing.json" 2>"$work/err" && fail "a missing snapshot was accepted"
grep -qF "$work/missing.json" "$work/err" || fail "the error does not name the missing file: $(cat "$work/err")"
echo "kiln tune --from a recorded run: ok"
