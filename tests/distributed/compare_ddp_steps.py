#!/usr/bin/env python3
"""Runs a data-parallel training program twice (e.g. under mpirun -np 1 and
-np 2) and checks that both print the same per-step global losses ("step K
loss X" lines) within a tolerance.

usage: compare_ddp_steps.py TOLERANCE -- COMMAND_A... -- COMMAND_B...
"""
import re
import subprocess
import sys


def losses(command):
    run = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)
    print(f"$ {' '.join(command)}\n{run.stdout}")
    if run.returncode != 0:
        raise SystemExit(f"FAIL: status {run.returncode}")
    return [(int(k), float(x)) for k, x in re.findall(r"^step (\d+) loss (\S+)$", run.stdout, re.M)]


def main():
    tolerance = float(sys.argv[1])
    split = [i for i, a in enumerate(sys.argv) if a == "--"]
    a, b = losses(sys.argv[split[0] + 1:split[1]]), losses(sys.argv[split[1] + 1:])
    if not a or len(a) != len(b):
        print(f"FAIL: {len(a)} and {len(b)} step losses")
        return 1
    bad = [(ka, xa, xb) for (ka, xa), (_, xb) in zip(a, b) if abs(xa - xb) > tolerance]
    for k, xa, xb in bad:
        print(f"FAIL: step {k}: loss {xa} vs {xb} (tolerance {tolerance})")
    if not bad:
        print(f"ok: {len(a)} step losses agree within {tolerance}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
