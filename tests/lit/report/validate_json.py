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
# `--array`: the output of several input files, a JSON array of documents.
docs = doc if "--array" in sys.argv[2:] else [doc]
if not isinstance(docs, list):
    print("invalid: expected an array of documents")
    sys.exit(1)
for d in docs:
    try:
        jsonschema.validate(d, schema)
    except jsonschema.ValidationError as e:
        print("invalid:", e.message, "at", list(e.absolute_path))
        sys.exit(1)
if "--array" in sys.argv[2:]:
    print("valid: %d documents" % len(docs))
else:
    print("valid: %d ops, %d tensors" % (len(doc["ops"]), len(doc["tensors"])))
