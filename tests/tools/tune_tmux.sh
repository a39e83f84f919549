#!/usr/bin/env bash
# `kiln tune` in a real terminal and in a pipe: in a detached 160x24 tmux
# session it draws a progress bar and ends with a table of every target;
# Ctrl-C during a search stops it with status 130, storing nothing of it
# and leaving the database valid; without a terminal the progress is plain
# lines; `ls` and `clear` show and remove the entries.
# Usage: tune_tmux.sh KILN_PROGRAM
set -euo pipefail
kiln=$1
command -v tmux >/dev/null || { echo "FAIL: tmux is missing (scripts/install-deps.sh installs it)"; exit 1; }
work=$(mktemp -d)
db=$work/tuning.json

tm() { tmux -L "kiln-tune-test-$$" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
tm new-session -d -x 160 -y 24 -s tune "env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=\$HOME bash --norc --noprofile"
tm set-option -t tune status off >/dev/null

# Waits (up to $2 s, default 30) until a line of the pane matches the regex $1
# (for the exit status, "^EXIT=[0-9]+$": the typed command line holds "EXIT=$?" too).
wait_for() {
  for _ in $(seq $(( ${2:-30} * 10 ))); do
    tm capture-pane -p -t tune | grep -qE -- "$1" && return 0
    sleep 0.1
  done
  echo "FAIL: the screen never showed '$1'; it shows:"; tm capture-pane -p -t tune; exit 1
}
valid_db() {
  python3 - "$db" "$1" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "kiln-tuning/1", d["schema"]
assert len(d["entries"]) == int(sys.argv[2]), sorted(d["entries"])
PY
}

tm send-keys -t tune "'$kiln' tune --budget 2 --db '$db' matmul 48x64x80 linear 8x128x64; echo EXIT=\$?" Enter
wait_for "\[1/2\] matmul 48x64x80"
wait_for "^EXIT=[0-9]+$" 60
screen=$(tm capture-pane -p -t tune)
echo "$screen"
grep -q "EXIT=0" <<<"$screen" || { echo "FAIL: kiln tune did not exit with 0"; exit 1; }
grep -qE "\[2/2\] linear 8x128x64 +\[#+\] 100%" <<<"$screen" || { echo "FAIL: no finished bar for the second target"; exit 1; }
grep -qE "^matmul 48x64x80 .*kc=" <<<"$screen" || { echo "FAIL: no table row for matmul"; exit 1; }
grep -qE "^linear 8x128x64 .*kc=" <<<"$screen" || { echo "FAIL: no table row for linear"; exit 1; }
valid_db 2 || { echo "FAIL: the database does not hold the two winners"; exit 1; }

tm send-keys -t tune "clear; '$kiln' tune --budget 120 --db '$db' matmul 512x512x512; echo EXIT=\$?" Enter
wait_for "\[1/1\] matmul 512x512x512"
tm send-keys -t tune C-c
wait_for "^EXIT=[0-9]+$" 30
after=$(tm capture-pane -p -t tune)
echo "--- after C-c:"; echo "$after"
grep -q "EXIT=130" <<<"$after" || { echo "FAIL: an interrupted kiln tune did not exit with 130"; exit 1; }
grep -q "interrupted; nothing stored for matmul 512x512x512" <<<"$after" || { echo "FAIL: no word on the interruption"; exit 1; }
valid_db 2 || { echo "FAIL: the database changed or broke on Ctrl-C"; exit 1; }
! ls "$work" | grep -q tmp || { echo "FAIL: temporary files left: $(ls "$work")"; exit 1; }

# Not a terminal: plain progress lines, the table on stdout.
"$kiln" tune --budget 1 --db "$db" matmul 16x32x32 >"$work/out" 2>"$work/err"
grep -qE "^\[1/1\] matmul 16x32x32: [0-9]+/[0-9]+ candidates" "$work/err" || { echo "FAIL: no plain progress lines:"; cat "$work/err"; exit 1; }
! grep -q $'\r' "$work/err" || { echo "FAIL: carriage returns in piped progress"; exit 1; }
grep -q "^matmul 16x32x32 " "$work/out" || { echo "FAIL: no table on stdout"; cat "$work/out"; exit 1; }

"$kiln" tune ls --db "$db" >"$work/ls"
grep -q ": 3 entries" "$work/ls" || { echo "FAIL: ls does not count 3 entries:"; cat "$work/ls"; exit 1; }
grep -q "^gemm/f32/nt/" "$work/ls" || { echo "FAIL: ls does not show the linear layer's key"; cat "$work/ls"; exit 1; }
"$kiln" tune clear gemm/f32/nt --db "$db" | grep -q "removed 1 entries" || { echo "FAIL: clear PREFIX"; exit 1; }
valid_db 2
"$kiln" tune matmul 12x12 --db "$db" 2>"$work/bad" && { echo "FAIL: a bad shape was accepted"; exit 1; }
grep -q "takes 3 extents" "$work/bad" || { echo "FAIL: no error naming the shape"; cat "$work/bad"; exit 1; }
for bad in "--budget -1" "--threads 1.5" "--threads" "--bogus"; do
  # shellcheck disable=SC2086
  "$kiln" tune $bad matmul 8x8x8 --db "$db" 2>"$work/bad" && { echo "FAIL: '$bad' was accepted"; exit 1; }
  grep -qF -- "${bad%% *}" "$work/bad" || { echo "FAIL: the error for '$bad' does not name it:"; cat "$work/bad"; exit 1; }
done
KILN_CACHE_DIR=off "$kiln" tune ls 2>"$work/bad" && { echo "FAIL: ls without a database succeeded"; exit 1; }
grep -q "no tuning database" "$work/bad" || { echo "FAIL: ls without a database does not say so"; exit 1; }
echo "kiln tune in a terminal and a pipe, Ctrl-C, ls, clear, bad options: ok"
