#!/usr/bin/env python3
"""check_fit.py JSON KEY BOUND: fails unless fit_gemm.py's --json output has
KEY (a dotted path) at most BOUND; prints the value either way."""
import json
import sys

value = json.load(open(sys.argv[1]))
for part in sys.argv[2].split("."):
    value = value[part]
bound = float(sys.argv[3])
print("%s = %.4f (bound %.4f): %s" % (sys.argv[2], value, bound,
                                      "ok" if value <= bound else "FAILED"))
sys.exit(0 if value <= bound else 1)
