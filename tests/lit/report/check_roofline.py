"""Checks a --format=svg roofline (stdin) against the program's JSON report.

Usage: check_roofline.py REPORT_JSON [--expect NAME INTENSITY FLOPS_PER_S]... < roofline.svg

Parses the picture as XML (a standalone SVG 1.1 document) and reads the axis
transform off the <svg> element's data-* attributes (log10 decades and the
plot's box in pixels). Then, from the JSON report's numbers alone:
  - every op of the report's `ops` is either drawn (one circle) or listed as
    not drawn, never both, and listed exactly when it has no FLOPs or no HBM
    bytes;
  - each circle lies where its op's intensity (flops_per_chip /
    hbm_bytes_per_chip) and achieved FLOP/s (flops_per_chip / time_s) put
    it, within 0.5 px, inside the plot, coloured by the op's bound;
  - each compute ceiling is at the chip's flops.<dtype> x matmul_efficiency
    and the memory slope's ends are on hbm_bw x hbm_efficiency.
--expect places the op NAME at hand-derived numbers (arithmetic allowed:
`2*64*4096*8192/68681728`), again within 0.5 px.
Prints one summary line; exits 1 on the first failure.
"""
import ast
import json
import math
import operator
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
TOLERANCE_PX = 0.5
COLOURS = {"compute": "#1f77b4", "memory": "#ff7f0e", "comms": "#d62728"}


def fail(msg):
    print("roofline check failed:", msg)
    sys.exit(1)


def arith(text):
    """The value of a +-*/ expression of numbers (no names, no calls)."""
    ops = {ast.Add: operator.add, ast.Sub: operator.sub,
           ast.Mult: operator.mul, ast.Div: operator.truediv}

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value,
                                                         (int, float)):
            return node.value
        if isinstance(node, ast.BinOp) and type(node.op) in ops:
            return ops[type(node.op)](ev(node.left), ev(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        fail("not arithmetic: %r" % text)
    return float(ev(ast.parse(text, mode="eval").body))


args = sys.argv[1:]
if not args:
    fail("usage: check_roofline.py REPORT_JSON [--expect NAME I F]...")
with open(args[0]) as f:
    report = json.load(f)[0]
expects = []
rest = args[1:]
while rest:
    if rest[0] != "--expect" or len(rest) < 4:
        fail("unknown arguments %r" % rest)
    expects.append((rest[1], arith(rest[2]), arith(rest[3])))
    rest = rest[4:]

try:
    root = ET.fromstring(sys.stdin.buffer.read())
except ET.ParseError as e:
    fail("not XML: %s" % e)
if root.tag != SVG + "svg" or root.get("version") != "1.1":
    fail("the root is not an SVG 1.1 <svg> element: %s" % root.tag)
if root.get("data-log") != "10":
    fail("the axes are not log10")
box = {k: float(root.get("data-plot-" + k))
       for k in ("left", "top", "width", "height")}
xlo, xhi = (int(root.get("data-x-%s-log10" % k)) for k in ("min", "max"))
ylo, yhi = (int(root.get("data-y-%s-log10" % k)) for k in ("min", "max"))


def px(v):
    return box["left"] + (math.log10(v) - xlo) / (xhi - xlo) * box["width"]


def py(v):
    return (box["top"] + box["height"]
            - (math.log10(v) - ylo) / (yhi - ylo) * box["height"])


def near(a, b, what):
    if abs(a - b) > TOLERANCE_PX:
        fail("%s is at %.3f px, the report says %.3f px" % (what, a, b))


ops = report["ops"]
circles = [c for c in root.iter(SVG + "circle")
           if c.get("class", "").split()[:1] == ["op"]]
drawn = {}
for c in circles:
    i = int(c.get("data-index"))
    if i in drawn:
        fail("op %d is drawn twice" % i)
    drawn[i] = c
    op = ops[i]
    if c.get("data-op") != op["name"]:
        fail("circle %d is '%s', the report's op is '%s'"
             % (i, c.get("data-op"), op["name"]))
    flops, hbm, t = (op["flops_per_chip"], op["hbm_bytes_per_chip"],
                     op["time_s"])
    intensity, achieved = flops / hbm, flops / t
    if not math.isclose(intensity, op["intensity"], rel_tol=1e-12):
        fail("'%s': FLOPs / bytes is not the report's intensity" % op["name"])
    cx, cy = float(c.get("cx")), float(c.get("cy"))
    near(cx, px(intensity), "'%s' (x)" % op["name"])
    near(cy, py(achieved), "'%s' (y)" % op["name"])
    if not (box["left"] <= cx <= box["left"] + box["width"]
            and box["top"] <= cy <= box["top"] + box["height"]):
        fail("'%s' lies outside the plot" % op["name"])
    bound = op["bound"]
    if bound not in c.get("class").split() or c.get("fill") != COLOURS[bound]:
        fail("'%s' is not coloured %s bound" % (op["name"], bound))

groups = [g for g in root.iter(SVG + "g") if g.get("class") == "not-drawn"]
skipped = ([int(i) for i in groups[0].get("data-indices").split()]
           if groups else [])
for i in skipped:
    if i in drawn:
        fail("'%s' is both drawn and listed as not drawn" % ops[i]["name"])
    if ops[i]["flops_per_chip"] > 0 and ops[i]["hbm_bytes_per_chip"] > 0:
        fail("'%s' has an intensity but is not drawn" % ops[i]["name"])
    if ops[i]["name"] not in "".join(t.text for t in groups[0]):
        fail("'%s' is not named in the caption" % ops[i]["name"])
missing = set(range(len(ops))) - set(drawn) - set(skipped)
if missing:
    fail("ops neither drawn nor listed: %s"
         % ", ".join(ops[i]["name"] for i in sorted(missing)))

chip = report["cluster"]["chip"]
lines = list(root.iter(SVG + "line"))
ceilings = [ln for ln in lines if ln.get("class") == "ceiling"]
for ln in ceilings:
    dtype = ln.get("data-dtype")
    want = chip["flops"][dtype] * chip["matmul_efficiency"]
    near(float(ln.get("y1")), py(want), "the %s ceiling" % dtype)
    near(float(ln.get("y2")), py(want), "the %s ceiling" % dtype)
slope = chip["hbm_bw"] * chip["hbm_efficiency"]
for ln in lines:
    if ln.get("class") != "memory-slope":
        continue
    for end in ("1", "2"):
        x = float(ln.get("x" + end))
        v = 10 ** (xlo + (x - box["left"]) / box["width"] * (xhi - xlo))
        near(float(ln.get("y" + end)), py(slope * v), "the memory slope")

for name, intensity, achieved in expects:
    hits = [c for c in circles if c.get("data-op") == name]
    if len(hits) != 1:
        fail("expected one circle for '%s', found %d" % (name, len(hits)))
    near(float(hits[0].get("cx")), px(intensity), "'%s' (x, by hand)" % name)
    near(float(hits[0].get("cy")), py(achieved), "'%s' (y, by hand)" % name)

print("roofline ok: %d drawn, %d not drawn, %d ceilings (%s)"
      % (len(drawn), len(skipped), len(ceilings),
         " ".join(sorted(ln.get("data-dtype") for ln in ceilings))))
