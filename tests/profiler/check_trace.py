"""Checks a Chrome trace-event file as Perfetto reads it.

Usage: check_trace.py FILE [REQUIRED_NAME_PREFIX ...]
The file must parse as JSON (an array of events); every event needs ph, pid,
tid and name; every event but metadata ("M") needs a numeric ts; complete
events ("X") a numeric dur >= 0; instant events ("i") a scope s in g/p/t.
Each REQUIRED_NAME_PREFIX must start the name of at least one event.
Exits 1 with the reason on the first problem.
"""
import json
import sys


def fail(why):
    print(f"check_trace: {sys.argv[1]}: {why}")
    sys.exit(1)


def main():
    with open(sys.argv[1]) as f:
        try:
            events = json.load(f)
        except json.JSONDecodeError as e:
            fail(f"not valid JSON: {e}")
    if not isinstance(events, list):
        fail("top level is not an array")
    for i, e in enumerate(events):
        for field in ("ph", "pid", "tid", "name"):
            if field not in e:
                fail(f"event {i} has no {field}: {e}")
        if e["ph"] != "M" and not isinstance(e.get("ts"), (int, float)):
            fail(f"event {i} has no numeric ts: {e}")
        if e["ph"] == "X" and not (isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0):
            fail(f"complete event {i} has no dur >= 0: {e}")
        if e["ph"] == "i" and e.get("s") not in ("g", "p", "t"):
            fail(f"instant event {i} has no scope s: {e}")
    for prefix in sys.argv[2:]:
        if not any(e["name"].startswith(prefix) for e in events):
            fail(f"no event named {prefix}...")
    print(f"check_trace: {len(events)} events OK")


main()
