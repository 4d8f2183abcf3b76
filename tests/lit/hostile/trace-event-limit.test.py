"""Summarizes an aggregated trace for hostile/trace-event-limit.test."""
import json
import sys

with open(sys.argv[1]) as f:
    trace = json.load(f)
other = trace["otherData"]
events = trace["traceEvents"]
assert len(events) <= 1000000 + 100, len(events)
print("events %d aggregated %s end %.4g" %
      (len(events), other.get("aggregated"), other["end_s"]))
for e in events:
    args = e.get("args", {})
    if "aggregated_runs" in args:
        print("%s runs %d" % (e["name"], args["aggregated_runs"]))
    if "aggregated_microbatches" in args:
        print("%s microbatches %d" % (e["name"], args["aggregated_microbatches"]))
