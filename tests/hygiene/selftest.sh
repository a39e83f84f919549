#!/usr/bin/env bash
# Self-test of scripts/check-tracked-files: a clean fixture repository passes;
# one with an ELF file, an executable text file without #!, a file over 1 MB
# and a .gitignore that lets build/ through fails, naming each.
# Usage: selftest.sh [path/to/check-tracked-files]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
check=${1:-$here/../../scripts/check-tracked-files}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kiln-hygiene.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
command -v git >/dev/null || { echo "no git: skipped"; exit 77; }

repo() {  # a repository with the real .gitignore, a script and a source file
  local r=$1
  git init -q "$r"
  cp "$here/../../.gitignore" "$r/.gitignore"
  printf '#!/bin/sh\necho ok\n' >"$r/run.sh" && chmod +x "$r/run.sh"
  printf 'int main() {}\n' >"$r/main.cpp"
  git -C "$r" add -A
}

repo "$tmp/clean"
"$check" "$tmp/clean" >"$tmp/clean.out" || { echo "FAIL: a clean repository was refused:"; cat "$tmp/clean.out"; exit 1; }

repo "$tmp/dirty"
printf '\177ELF\002\001\001' >"$tmp/dirty/tool"
printf 'echo no shebang\n' >"$tmp/dirty/notes.txt" && chmod +x "$tmp/dirty/notes.txt"
head -c $((1024 * 1024 + 1)) /dev/zero >"$tmp/dirty/big.dat"
printf '!/build/\n' >>"$tmp/dirty/.gitignore"
git -C "$tmp/dirty" add -A
if "$check" "$tmp/dirty" >"$tmp/dirty.out"; then
  echo "FAIL: a repository with a binary, a bad executable and a big file passed"; cat "$tmp/dirty.out"; exit 1
fi
for expected in "tool: an ELF binary" "notes.txt: executable but not a script" "big.dat: 1048577 bytes, over the 1 MB" \
                ".gitignore: build/CMakeCache.txt is not ignored"; do
  grep -qF "$expected" "$tmp/dirty.out" || { echo "FAIL: no '$expected' in:"; cat "$tmp/dirty.out"; exit 1; }
done
echo "ok: clean passes, each problem is named"
