#!/usr/bin/env python3
"""Checks that files are Chrome trace JSON as Perfetto and chrome://tracing load it (the JSON
object format: traceEvents with complete "X" events and "M" metadata events), and that an
mtengine trace has what a reader looks for: named tracks, step spans, and collectives with their
operation, bytes and sequence number.

  check_trace.py TRACE.json [TRACE.json ...]
"""
import json
import sys


def check(path):
    trace = json.load(open(path))
    assert isinstance(trace, dict) and isinstance(trace.get("traceEvents"), list), "no traceEvents list"
    tracks, kinds = {}, {}
    for event in trace["traceEvents"]:
        ph = event.get("ph")
        assert ph in ("X", "M"), f"unexpected phase {ph!r}"
        assert isinstance(event.get("name"), str) and isinstance(event.get("pid"), int) and isinstance(event.get("tid"), int), event
        if ph == "M":
            tracks[event["tid"]] = event["args"]["name"]
            continue
        assert isinstance(event.get("ts"), (int, float)) and isinstance(event.get("dur"), (int, float)), event
        assert event["dur"] >= 0, event
        kinds[event["cat"]] = kinds.get(event["cat"], 0) + 1
        if event["cat"] == "collective":
            args = event["args"]
            assert args["op"] and args["bytes"] > 0 and isinstance(args["sequence"], int), event
    assert set(tracks.values()) >= {"steps", "compute", "communication"}, tracks
    for needed in ("step", "forward", "backward", "optimizer"):
        assert kinds.get(needed), f"no {needed} spans"
    return kinds


for path in sys.argv[1:]:
    kinds = check(path)
    print(f"ok: {path}: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
