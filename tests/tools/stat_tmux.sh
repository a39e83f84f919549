#!/usr/bin/env bash
# `kiln stat` in a real terminal: start it in a detached 80x24 tmux session,
# wait for a frame, quit with the given key (q or C-c), and check that the
# dashboard was on the alternate screen with the cursor hidden, and that
# afterwards the terminal is back on the normal screen with its cursor shown.
# Usage: stat_tmux.sh KILN_PROGRAM SNAPSHOT KEY
set -euo pipefail
kiln=$1 snapshot=$2 key=$3
command -v tmux >/dev/null || { echo "FAIL: tmux is missing (scripts/install-deps.sh installs it)"; exit 1; }

tm() { tmux -L "kiln-test-$$" -f /dev/null "$@"; }
trap 'tm kill-server 2>/dev/null || true' EXIT
tm new-session -d -x 80 -y 24 -s stat "env -i PATH=/usr/bin:/bin TERM=xterm-256color HOME=\$HOME bash --norc --noprofile"
tm set-option -t stat status off >/dev/null

# Waits (up to 10 s) until a line of the pane matches the regex $1 (for the
# exit status, "^EXIT=[0-9]+$": the typed command line holds "EXIT=$?" too).
wait_for() {
  for _ in $(seq 100); do
    tm capture-pane -p -t stat | grep -qE -- "$1" && return 0
    sleep 0.1
  done
  echo "FAIL: the screen never showed '$1'; it shows:"; tm capture-pane -p -t stat; exit 1
}
flag() { tm display-message -p -t stat "#{$1}"; }

tm send-keys -t stat "'$kiln' stat '$snapshot' --interval 0.2; echo EXIT=\$?" Enter
wait_for "CALL SITE"
screen=$(tm capture-pane -p -t stat)
echo "$screen"
[ "$(flag alternate_on)" = 1 ] || { echo "FAIL: the dashboard is not on the alternate screen"; exit 1; }
[ "$(flag cursor_flag)" = 0 ] || { echo "FAIL: the cursor is visible during the dashboard"; exit 1; }
[ "$(wc -l <<<"$screen")" -le 24 ] || { echo "FAIL: more than 24 lines"; exit 1; }
grep -q "STALE (" <<<"$screen" || { echo "FAIL: an old snapshot is not marked stale"; exit 1; }
grep -q "^q quit" <<<"$screen" || { echo "FAIL: no key help on the last line"; exit 1; }

tm send-keys -t stat "$key"
wait_for "^EXIT=[0-9]+$"
after=$(tm capture-pane -p -t stat)
echo "--- after $key:"; echo "$after"
grep -q "EXIT=0" <<<"$after" || { echo "FAIL: kiln stat did not exit with 0"; exit 1; }
[ "$(flag alternate_on)" = 0 ] || { echo "FAIL: still on the alternate screen"; exit 1; }
[ "$(flag cursor_flag)" = 1 ] || { echo "FAIL: the cursor stays hidden"; exit 1; }
! grep -q "CALL SITE" <<<"$after" || { echo "FAIL: the dashboard is left on the normal screen"; exit 1; }
echo "kiln stat in a terminal, quit with $key: ok"
