#!/usr/bin/env python3
"""Runs an MPI job that must fail: checks that it exits non-zero within a
time bound and that its output matches a pattern.

usage: run_failure.py SECONDS PATTERN -- mpirun ARGS...
"""
import re
import subprocess
import sys
import time


def main():
    seconds, pattern = float(sys.argv[1]), sys.argv[2]
    command = sys.argv[sys.argv.index("--") + 1:]
    start = time.monotonic()
    try:
        run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=seconds)
    except subprocess.TimeoutExpired as e:
        print(e.output or "")
        print(f"FAIL: the job still ran after {seconds} s: it hangs instead of ending")
        return 1
    elapsed = time.monotonic() - start
    print(run.stdout)
    if run.returncode == 0:
        print("FAIL: the job exited with status 0")
        return 1
    if not re.search(pattern, run.stdout):
        print(f"FAIL: the output does not match {pattern!r}")
        return 1
    print(f"ok: status {run.returncode} after {elapsed:.1f} s, output matches {pattern!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
