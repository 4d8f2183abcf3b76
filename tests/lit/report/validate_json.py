"""Validates shardc's JSON output (stdin) against docs/report.schema.json.

Used by the lit tests in this folder; needs Debian's python3-jsonschema,
which scripts/setup.sh installs. The output is an array of entries, one per
input file or chunk; the summary line counts them and the report ones' ops.
"""
import json
import sys

import jsonschema

with open(sys.argv[1]) as f:
    schema = json.load(f)
doc = json.load(sys.stdin)
try:
    jsonschema.validate(doc, schema)
except jsonschema.ValidationError as e:
    print("invalid:", e.message, "at", list(e.absolute_path))
    sys.exit(1)
ok = [d for d in doc if d["status"] == "ok"]
print("valid: %d entries, %d reports, %d ops, %d tensors" % (
    len(doc), len(ok), sum(len(d["ops"]) for d in ok),
    sum(len(d["tensors"]) for d in ok)))
