"""Validates a shardc JSON report (stdin) against docs/report.schema.json.

Used by the lit tests in this folder; needs Debian's python3-jsonschema,
which scripts/setup.sh installs.
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
print("valid: %d ops, %d tensors" % (len(doc["ops"]), len(doc["tensors"])))
