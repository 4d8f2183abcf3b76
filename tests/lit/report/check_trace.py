"""Checks a --format=trace timeline (stdin) against its schema and the report.

Usage: check_trace.py SCHEMA REPORT_JSON < trace.json

Validates the trace against docs/trace.schema.json, then checks it end to
end against the same program's JSON report (--format=json):
  - no two statement slices of one stream overlap;
  - every microbatch slice holds its statements (and a pipeline's send),
    which add up to it;
  - per stage, each microbatch's forward adds up to the report's forward
    time of that stage, each backward after the first to its backward time;
  - the schedule ends at the report's T_pipe, the step (syncs and the
    optimizer) at its step time.
Prints one summary line; exits 1 on the first failure.
"""
import json
import sys
from collections import defaultdict

import jsonschema

REL = 1e-9


def close(a, b):
    return abs(a - b) <= REL * max(1.0, abs(a), abs(b)) + 1e-6


def fail(msg):
    print("trace check failed:", msg)
    sys.exit(1)


with open(sys.argv[1]) as f:
    schema = json.load(f)
with open(sys.argv[2]) as f:
    report = json.load(f)[0]
trace = json.load(sys.stdin)
try:
    jsonschema.validate(trace, schema)
except jsonschema.ValidationError as e:
    fail("invalid: %s at %s" % (e.message, list(e.absolute_path)))

if "step" not in report:
    # A program without `train`: its trace is the forward alone, with no
    # step to check the slices against.
    print("trace ok: schema only (the report has no training step)")
    sys.exit(0)
step = report["step"]
slices = [e for e in trace["traceEvents"] if e["ph"] == "X"]
stages = trace["otherData"]["stages"]
groups = [e for e in slices if e["cat"] == "microbatch"]
work = [e for e in slices if e["cat"] != "microbatch"]

# No overlap on a stream (microseconds, so compare with a tolerance).
by_track = defaultdict(list)
for e in work:
    by_track[(e["pid"], e["tid"])].append(e)
for track, evs in by_track.items():
    evs.sort(key=lambda e: e["ts"])
    for a, b in zip(evs, evs[1:]):
        if a["ts"] + a["dur"] > b["ts"] + 1e-3:
            fail("overlap on stage %d stream %d: %s and %s" %
                 (track[0], track[1], a["name"], b["name"]))

# Each microbatch slice is the sum of its compute statements and send.
sums = defaultdict(float)
for e in work:
    if e["tid"] == 0 and e["cat"] in ("forward", "backward", "send"):
        key = (e["pid"], e["args"].get("microbatch"), e["args"].get("chunk", 0),
               e["cat"] == "backward" or e["name"].startswith("send gradient"))
        sums[key] += e["dur"]
per_stage = defaultdict(lambda: defaultdict(float))
for g in groups:
    bwd = g["name"].startswith("backward")
    key = (g["pid"], g["args"]["microbatch"], g["args"].get("chunk", 0), bwd)
    if not close(sums[key], g["dur"]):
        fail("%s on stage %d: its slices add up to %g us, not %g" %
             (g["name"], g["pid"], sums[key], g["dur"]))
    per_stage[(g["pid"], bwd)][g["args"]["microbatch"]] += g["dur"] / 1e6

# Against the report's per-stage (or the step's) forward and backward.
if "pipeline" in step:
    want = [(s["forward_s"], s["backward_s"])
            for s in step["pipeline"]["stages"]]
else:
    want = [(step["forward_s"], step["backward_s"])]
if len(want) != stages:
    fail("%d stages in the trace, %d in the report" % (stages, len(want)))
for s, (fwd, bwd) in enumerate(want):
    for mb, t in per_stage[(s, False)].items():
        if not close(t, fwd):
            fail("stage %d forward of microbatch %d: %g s, report %g s" %
                 (s, mb, t, fwd))
    for mb, t in per_stage[(s, True)].items():
        if mb > 0 and not close(t, bwd):
            fail("stage %d backward of microbatch %d: %g s, report %g s" %
                 (s, mb, t, bwd))

end_pipe = max(g["ts"] + g["dur"] for g in groups) / 1e6
if not close(end_pipe, step["pipeline_s"]):
    fail("the schedule ends at %g s, the report's T_pipe is %g s" %
         (end_pipe, step["pipeline_s"]))
end = max(e["ts"] + e["dur"] for e in slices) / 1e6
if not close(end, step["time_s"]):
    fail("the step ends at %g s, the report's step time is %g s" %
         (end, step["time_s"]))
print("trace ok: %d slices, %d stages, %d microbatch slices, ends at %.6g s" %
      (len(slices), stages, len(groups), end))
