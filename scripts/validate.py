#!/usr/bin/env python3
"""Checks shardc's predictions against published measurements.

The cases live in examples/validation/published.json (its "tables" and
"cases"; each case names a .shard file of that folder, a chunk of it and a
metric: step_time_s, forward_s, backward_s, tflops_per_gpu, op_time_s,
activations_bytes, or a serving file's tokens_per_s_per_chip or ttft_s).
Each distinct file runs once, `shardc --split-input-file --format=json`, in
parallel; the script prints a table per table of the measured and predicted
values, the signed error (predicted / measured - 1) and whether its |error|
is within the case's bound.

  validate.py --shardc build/bin/shardc --root .            # print the tables
  validate.py --shardc build/bin/shardc --root . --write    # also rewrite the
      generated blocks of docs/validation.md and docs/validation.svg
  validate.py --shardc build/bin/shardc --root . --check    # fail on a case
      outside its bound, a table whose median |error| is above its
      median_target, or docs that --write would change

docs/validation.md is prose with generated blocks between the lines
`<!-- BEGIN GENERATED: ID -->` and `<!-- END GENERATED: ID -->` (ID a
table's id, or `summary`);
--write replaces what is between them and appends a section for a table
without markers.

Exit status: 0 when all is well; 1 when shardc fails on a case (a chunk with
errors, no such metric), or with --check when a case is outside its bound or
the docs are out of date; 2 for bad arguments or a bad published.json.
"""
import argparse
import concurrent.futures
import html
import json
import math
import os
import re
import statistics
import subprocess
import sys

METRICS = {"step_time_s", "forward_s", "backward_s", "tflops_per_gpu",
           "op_time_s", "activations_bytes", "tokens_per_s_per_chip",
           "ttft_s"}
SCALES = {"s": 1.0, "ms": 1e3, "us": 1e6, "\u00b5s": 1e6, "ns": 1e9,
          "FLOP/s": 1.0, "GFLOP/s": 1e-9, "TFLOP/s": 1e-12, "PFLOP/s": 1e-15,
          "MB": 1e-6, "GB": 1e-9, "tok/s": 1.0}
BEGIN = "<!-- BEGIN GENERATED: %s -->"
END = "<!-- END GENERATED: %s -->"
BOLD = "font-size:%dpx;font-weight:bold"
DASH = "stroke:#555;stroke-dasharray:4 3"


class ConfigError(Exception):
    """A bad published.json or command line: reported, exit status 2."""


def load_cases(path):
    """Reads and checks published.json; returns (tables, cases)."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise ConfigError("cannot read %s: %s" % (path, e))
    if not isinstance(data, dict) or not all(
            isinstance(data.get(k), list) for k in ("tables", "cases")):
        raise ConfigError("%s: needs lists 'tables' and 'cases'" % path)
    tables, cases = data["tables"], data["cases"]
    errors, ids = [], set()
    for i, t in enumerate(tables):
        if not isinstance(t, dict) or not all(
                isinstance(t.get(k), str) for k in ("id", "title", "unit")):
            errors.append("tables[%d]: needs strings id, title, unit" % i)
            continue
        bad = [why for cond, why in (
            (t["id"] in ids, "its id is repeated"),
            (t["id"] == "summary", "its id 'summary' is reserved"),
            (not re.fullmatch(r"[\w.-]+", t["id"]), "its id is not [\\w.-]+"),
            (t["unit"] not in SCALES, "its unit is not one of "
             + ", ".join(SCALES))) if cond]
        if bad:
            errors.append("tables[%d] (%s): %s" % (i, t["id"],
                                                   "; ".join(bad)))
        ids.add(t["id"])
    num = (int, float)
    for i, c in enumerate(cases):
        c = c if isinstance(c, dict) else {}
        need = {"table": str, "label": str, "file": str, "chunk": int,
                "metric": str, "measured": num, "bound": num}
        if c.get("metric") == "tflops_per_gpu":
            need.update(flops_per_step=num, gpus=int)
        if c.get("metric") == "op_time_s":
            need["op"] = str
        bad = [k for k, ty in need.items() if not isinstance(c.get(k), ty)
               or isinstance(c.get(k), bool)]
        where = "cases[%d] (%s)" % (i, c.get("label"))
        if bad:
            errors.append("%s: missing or mistyped %s" % (where,
                                                          ", ".join(bad)))
        elif c["table"] not in ids:
            errors.append("%s: no table %r" % (where, c["table"]))
        elif c["metric"] not in METRICS:
            errors.append("%s: metric %r is not one of %s" % (
                where, c["metric"], ", ".join(sorted(METRICS))))
        elif c["measured"] <= 0 or c["bound"] < 0:
            errors.append(where + ": measured must be > 0 and bound >= 0")
        elif "target" in c and (not isinstance(c["target"], (int, float))
                                or c["target"] > c["bound"]):
            errors.append(where + ": target must be a number <= bound")
    if errors:
        raise ConfigError("%s:\n  %s" % (path, "\n  ".join(errors)))
    return tables, cases


def run_file(shardc, folder, name):
    """Runs shardc on one file; returns (chunks by index or None, problem)."""
    cmd = [shardc, "--split-input-file", "--format=json", name]
    try:
        p = subprocess.run(cmd, cwd=folder, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "cannot run shardc: %s" % e
    try:
        chunks = {c["chunk"]: c for c in json.loads(p.stdout)
                  if isinstance(c, dict) and "chunk" in c}
    except (ValueError, TypeError) as e:
        tail = (p.stderr.strip() or p.stdout.strip())[-800:]
        return None, "shardc exited %d without a JSON array (%s):\n%s" % (
            p.returncode, e, tail or "(no output)")
    if p.returncode != 0 and all(c.get("status") == "ok"
                                 for c in chunks.values()):
        return None, "shardc exited %d:\n%s" % (p.returncode,
                                                p.stderr.strip()[-800:])
    return chunks, None


def diagnostics(chunk):
    """Formats a chunk's diagnostics one per line."""
    out = []
    for d in chunk.get("diagnostics", []):
        loc = ":".join(str(d[k]) for k in ("file", "line", "column") if k in d)
        out.append("    %s%s: %s" % (loc + ": " if loc else "",
                                     d.get("severity", "?"), d.get("message")))
    return "\n".join(out) or "    (no diagnostics)"


def predict(case, chunks):
    """Returns (predicted value in SI units or None, problem or None)."""
    chunk = chunks.get(case["chunk"])
    if chunk is None:
        return None, "no chunk %d (the file has %d)" % (case["chunk"],
                                                        len(chunks))
    if chunk.get("status") != "ok":
        return None, "the chunk failed (above)"
    metric, step = case["metric"], chunk.get("step") or {}
    if metric == "op_time_s":
        for op in chunk.get("ops", []):
            if op.get("name") == case["op"] and op.get("phase") == "forward":
                if isinstance(op.get("time_s"), (int, float)):
                    return op["time_s"], None
                return None, "op %r has no time_s" % case["op"]
        names = sorted({str(op.get("name")) for op in chunk.get("ops", [])})
        return None, "no forward op %r (ops: %s)" % (case["op"],
                                                     ", ".join(names[:12]))
    if metric in ("tokens_per_s_per_chip", "ttft_s"):
        serve = chunk.get("serve") or {}
        value = ((serve.get("tokens_per_s") or {}).get("chip")
                 if metric == "tokens_per_s_per_chip" else serve.get("ttft_s"))
        if not isinstance(value, (int, float)):
            return None, "no serve.%s (is it a serving file?)" % (
                "tokens_per_s.chip" if metric == "tokens_per_s_per_chip"
                else "ttft_s")
        return value, None
    if metric == "activations_bytes":
        value = (chunk.get("memory") or {}).get("activations_bytes")
        if not isinstance(value, (int, float)):
            return None, "no memory.activations_bytes (a training file?)"
        return value, None
    key = metric if metric in ("forward_s", "backward_s") else "time_s"
    value = step.get(key)
    if not isinstance(value, (int, float)):
        return None, "no step.%s (is it a training file?)" % key
    if metric == "tflops_per_gpu":
        if value <= 0:
            return None, "step.time_s is %r" % value
        return case["flops_per_step"] / (case["gpus"] * value), None
    return value, None


def sig(value, digits=4):
    """Formats a number with `digits` significant digits, no exponent."""
    if value == 0 or not math.isfinite(value):
        return "0" if value == 0 else str(value)
    value = float("%.*e" % (digits - 1, value))
    exp = math.floor(math.log10(abs(value)))
    return "%.*f" % (max(0, digits - 1 - exp), value)


def pct(x, signed=True):
    """Formats a fraction as a percentage with one decimal."""
    s = ("%+.1f%%" if signed else "%.1f%%") % (x * 100)
    return "+0.0%" if s == "-0.0%" else s


def bound_text(b):
    """Formats a bound (a fraction) as a short percentage."""
    return "%g%%" % round(b * 100, 2)


def median_error(rows):
    """The median |error| of a table's predictions (fitted points left
    out), or None when it has none."""
    done = [r for r in rows if r["error"] is not None]
    preds = [r for r in done if not r["case"].get("fitted")] or done
    return statistics.median(abs(r["error"]) for r in preds) if preds else None


def stats_line(rows, first="Median", median_target=None):
    """The sentence under a table: median and worst |error|, count within."""
    done = [r for r in rows if r["error"] is not None]
    if not done:
        return "No predictions."
    # A fitted point set a preset's factor: not a prediction.
    preds = [r for r in done if not r["case"].get("fitted")] or done
    worst = max(preds, key=lambda r: abs(r["error"]))
    line = "%s |error| %s, worst %s (%s); %d of %d within their bounds" % (
        first, pct(statistics.median(abs(r["error"]) for r in preds), False),
        pct(abs(worst["error"]), False), worst["case"]["label"],
        sum(1 for r in done if r["ok"]), len(rows))
    targeted = [r for r in done if "target" in r["case"]
                and not r["case"].get("fitted")]
    if targeted:
        line += ", %d of %d within the target" % (
            sum(1 for r in targeted if in_target(r)), len(targeted))
    if median_target is not None:
        med = statistics.median(abs(r["error"]) for r in preds)
        line += "; median target %s %s" % (
            bound_text(median_target),
            "met" if med <= median_target + 1e-12 else "**missed**")
    return line + "."


def good(r):
    """What the picture marks as good: within the target when the case has
    one, else within its bound."""
    if r["case"].get("fitted"):
        return True
    return in_target(r) if "target" in r["case"] else r["ok"]


def in_target(r):
    """True when a case with a "target" (a fraction) meets it."""
    return abs(r["error"]) <= r["case"]["target"] + 1e-12


def target_text(r, missed="missed"):
    """The target cell: the target, and whether the case missed it."""
    c = r["case"]
    if c.get("fitted"):
        return "fitted"
    if "target" not in c or r["error"] is None:
        return ""
    return bound_text(c["target"]) + ("" if in_target(r) else " " + missed)


def print_table(table, rows):
    """Prints one table as plain text."""
    unit, scale = table["unit"], SCALES[table["unit"]]
    head = ["case", table.get("reference", "measured"), "predicted", "error",
            "target", "bound", ""]
    body = [[r["case"]["label"], sig(r["case"]["measured"] * scale),
             "-" if r["pred"] is None else sig(r["pred"] * scale),
             "-" if r["error"] is None else pct(r["error"]),
             target_text(r), bound_text(r["case"]["bound"]),
             "ok" if r["ok"] else "FAIL"]
            for r in rows]
    widths = [max(len(x[i]) for x in [head] + body) for i in range(7)]
    print("\n== %s [%s] (%s)" % (table["title"], table["id"], unit))
    for cells in [head] + body:
        print("  " + "  ".join(x.ljust(w) if i == 0 else x.rjust(w)
                               for i, (x, w) in enumerate(zip(cells, widths))))
    print("  " + stats_line(rows, median_target=table.get("median_target")))
    if table.get("target"):
        print("  target: " + table["target"])


def md_block(table, rows):
    """The generated Markdown of one table."""
    scale = SCALES[table["unit"]]
    cell = lambda s: s.replace("|", "\\|").replace("<", "&lt;")
    out = ["| case | %s (%s) | predicted (%s) | error | target | bound "
           "| within |" % (table.get("reference", "measured"), table["unit"],
                           table["unit"]),
           "|---|--:|--:|--:|--:|--:|:-:|"]
    for r in rows:
        c = r["case"]
        target = target_text(r, "**missed**")
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (
            cell(c["label"]), sig(c["measured"] * scale),
            "error" if r["pred"] is None else sig(r["pred"] * scale),
            "" if r["error"] is None else pct(r["error"]), target,
            bound_text(c["bound"]), "yes" if r["ok"] else "**no**"))
    out += ["", stats_line(rows, median_target=table.get("median_target"))]
    notes = ["- %s: %s" % (r["case"]["label"], r["case"]["note"])
             for r in rows if r["case"].get("note")]
    return "\n".join(out + ([""] + notes if notes else []))


def md_summary(tables, rows_by):
    """The generated summary block: one bullet per table."""
    out = []
    for t in tables:
        out.append("- **%s**: %s%s" % (
            t["title"], stats_line(rows_by[t["id"]], "median",
                                   t.get("median_target")),
            " Target: %s." % t["target"].rstrip(".") if t.get("target")
            else ""))
    return "\n".join(out)


def regenerate(text, blocks, titles):
    """Replaces or appends the generated blocks; returns (text, changed)."""
    changed = []
    for key, body in blocks:
        b = re.compile(r"^%s[ \t]*$" % re.escape(BEGIN % key), re.M)
        e = re.compile(r"^%s[ \t]*$" % re.escape(END % key), re.M)
        bs, es = list(b.finditer(text)), list(e.finditer(text))
        if len(bs) > 1 or len(es) > 1 or len(bs) != len(es) or (
                bs and es[0].start() < bs[0].end()):
            raise ConfigError("docs/validation.md: the markers of %r are "
                              "unpaired, repeated or out of order" % key)
        if not bs:
            changed.append(key + " (no markers)")
            text = "%s\n\n## %s\n\n%s\n\n%s\n\n%s\n" % (
                text.rstrip("\n"), titles[key], BEGIN % key, body, END % key)
            continue
        new = "%s\n\n%s\n\n%s" % (text[:bs[0].end()], body,
                                   text[es[0].start():])
        if new != text:
            changed.append(key)
        text = new
    return text, changed


def ticks(lo, hi, log):
    """Tick values for an axis from lo to hi."""
    if log:
        k0, k1 = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
        steps = (1,) if k1 - k0 > 3 else (1, 2, 5)
        return [m * 10.0 ** k for k in range(k0, k1 + 1) for m in steps
                if lo <= m * 10.0 ** k <= hi]
    raw = (hi - lo) / 5
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 5, 10) if m * mag >= raw)
    return [float("%.12g" % (k * step)) for k in range(
        math.ceil(lo / step), math.floor(hi / step) + 1)]


def tick_text(v):
    """A short label for a tick value."""
    s = "%g" % v
    return s.replace("e-0", "e-").replace("e+0", "e").replace("e+", "e")


def text(x, y, s, anchor="middle", style=""):
    """An SVG text element (s escaped)."""
    return '<text x="%.1f" y="%.1f" text-anchor="%s"%s>%s</text>' % (
        x, y, anchor, ' style="%s"' % style if style else "", html.escape(s))


def line(x1, y1, x2, y2, style="stroke:#999"):
    """An SVG line element."""
    return '<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" style="%s"/>' % (
        x1, y1, x2, y2, style)


def svg_panel(out, idx, x0, y0, pw, ph, table, rows):
    """Appends the SVG of one panel (at x0, y0, of size pw x ph) to out."""
    unit, scale = table["unit"], SCALES[table["unit"]]
    room = int((pw - 20) / 7.8)
    title = table["title"] if len(table["title"]) <= room \
        else table["title"][:room - 1].rstrip() + "\u2026"
    out.append(text(x0 + pw / 2, y0 + 20, title, style=BOLD % 13))
    left, top, right, bottom = x0 + 70, y0 + 34, x0 + pw - 20, y0 + ph - 48
    pts = [(r["case"]["measured"] * scale, r["pred"] * scale, r)
           for r in rows if r["pred"] is not None]
    if not pts:
        out.append(text((left + right) / 2, (top + bottom) / 2, "no data"))
        return
    lo, hi = min(min(p[:2]) for p in pts), max(max(p[:2]) for p in pts)
    log = lo > 0 and hi / lo >= 10
    if log:
        lo, hi, f = lo / 1.25, hi * 1.25, math.log10
    else:
        pad = (hi - lo) * 0.1
        lo, hi, f = min(lo - pad, lo * 0.85), max(hi + pad, hi * 1.15), float
    px = lambda v: left + (f(v) - f(lo)) / (f(hi) - f(lo)) * (right - left)
    py = lambda v: bottom - (f(v) - f(lo)) / (f(hi) - f(lo)) * (bottom - top)
    box = 'x="%.1f" y="%.1f" width="%.1f" height="%.1f"' % (
        left, top, right - left, bottom - top)
    out.append('<clipPath id="c%d"><rect %s/></clipPath>' % (idx, box))
    out.append('<rect %s style="fill:#fff;stroke:#999"/>' % box)
    out.append('<g clip-path="url(#c%d)">' % idx)
    for band, color in ((0.10, "#dbe9f6"), (0.05, "#b5d3ec")):
        poly = [(lo, lo * (1 + band)), (hi, hi * (1 + band)),
                (hi, hi * (1 - band)), (lo, lo * (1 - band))]
        out.append('<polygon points="%s" style="fill:%s"/>' % (" ".join(
            "%.1f,%.1f" % (px(x), py(y)) for x, y in poly), color))
    out.append(line(px(lo), py(lo), px(hi), py(hi), DASH) + "</g>")
    for t in ticks(lo, hi, log):
        out += [line(px(t), bottom, px(t), bottom + 4),
                text(px(t), bottom + 16, tick_text(t)),
                line(left - 4, py(t), left, py(t)),
                text(left - 7, py(t) + 4, tick_text(t), "end")]
    out.append(text((left + right) / 2, bottom + 34, "measured (%s)%s" % (
        unit, ", log scale" if log else "")))
    out.append('<g transform="translate(%.1f,%.1f) rotate(-90)">%s</g>' % (
        x0 + 16, (top + bottom) / 2, text(0, 0, "predicted (%s)" % unit)))
    for m, p, r in pts:
        colour = "#1f77b4" if good(r) else "#d62728"
        style = ("fill:#fff;stroke:%s;stroke-width:2" % colour
                 if r["case"].get("fitted") else "fill:%s;stroke:#fff" % colour)
        out.append('<circle cx="%.1f" cy="%.1f" r="4.5" style="%s">'
                   '<title>%s</title></circle>' % (
                       px(m), py(p), style,
                       html.escape("%s: measured %s, predicted %s %s (%s)" % (
                           r["case"]["label"], sig(m), sig(p), unit,
                           pct(r["error"])))))


def svg(tables, rows_by):
    """The whole docs/validation.svg: a legend and a 2-column grid."""
    cols, pw, ph, head = 2, 500, 400, 56
    w = cols * pw
    h = head + max(1, math.ceil(len(tables) / cols)) * ph + 8
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
           'viewBox="0 0 %d %d" style="font-family:sans-serif;font-size:11px;'
           'fill:#222">' % (w, h, w, h),
           '<rect width="%d" height="%d" style="fill:#fff"/>' % (w, h),
           text(w / 2, 22, "shardc: predicted vs measured", style=BOLD % 15)]
    rect = '<rect x="0" y="-6" width="18" height="12" style="fill:%s"/>'
    dot = '<circle cx="9" cy="0" r="4.5" style="fill:%s"/>'
    lx = w // 2 - 380
    for mark, label in ((line(0, 0, 18, 0, DASH), "predicted = measured"),
                        (rect % "#b5d3ec", "\u00b15%"),
                        (rect % "#dbe9f6", "\u00b110%"),
                        (dot % "#1f77b4", "within target"),
                        (dot % "#d62728", "outside target"),
                        ('<circle cx="9" cy="0" r="4" style="fill:#fff;'
                         'stroke:#1f77b4;stroke-width:2"/>',
                         "set the preset (not a prediction)")):
        out.append('<g transform="translate(%d,42)">%s%s</g>' % (
            lx, mark, text(24, 4, label, "start")))
        lx += 40 + 6 * len(label)
    for i, t in enumerate(tables):
        svg_panel(out, i, (i % cols) * pw, head + (i // cols) * ph, pw, ph,
                  t, rows_by[t["id"]])
    return "\n".join(out + ["</svg>"]) + "\n"


def read(path):
    """A file's text, or None when it does not exist."""
    try:
        with open(path, encoding="utf-8", newline="") as f:
            return f.read()
    except FileNotFoundError:
        return None


def write(path, text):
    """Writes text as UTF-8 with LF line ends."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def main():
    """Parses the command line, runs the cases, writes and checks."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shardc", required=True, help="the shardc binary")
    ap.add_argument("--root", required=True, help="the source root")
    ap.add_argument("--write", action="store_true",
                    help="rewrite docs/validation.md's blocks and the SVG")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 on a case outside its bound or stale docs")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    shardc, root = os.path.abspath(args.shardc), os.path.abspath(args.root)
    folder = os.path.join(root, "examples", "validation")
    if not os.access(shardc, os.X_OK) or os.path.isdir(shardc):
        raise ConfigError("--shardc %s is not an executable" % args.shardc)
    tables, cases = load_cases(os.path.join(folder, "published.json"))

    files = sorted({c["file"] for c in cases})
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        runs = dict(zip(files, pool.map(
            lambda name: run_file(shardc, folder, name), files)))
    rows_by, failures = {t["id"]: [] for t in tables}, []
    for name, (chunks, problem) in sorted(runs.items()):
        if problem:
            failures.append("%s: %s" % (name, problem))
        for i, chunk in sorted((chunks or {}).items()):
            if chunk.get("status") != "ok":
                failures.append("%s, chunk %s: status %r:\n%s" % (
                    name, i, chunk.get("status"), diagnostics(chunk)))
    for c in cases:
        chunks, problem = runs[c["file"]]
        pred = err = None
        if chunks is not None:
            pred, problem = predict(c, chunks)
            if problem:
                failures.append("%s, chunk %d (%s / %s): %s" % (
                    c["file"], c["chunk"], c["table"], c["label"], problem))
            else:
                err = pred / c["measured"] - 1
        rows_by[c["table"]].append({"case": c, "pred": pred, "error": err,
                                    "ok": err is not None
                                    and abs(err) <= c["bound"] + 1e-12})
    for t in tables:
        print_table(t, rows_by[t["id"]])
    print()
    for f in failures:
        print("error: " + f)

    if failures and (args.write or args.check):
        print("error: the docs were neither written nor checked, because "
              "of the %d error(s) above" % len(failures))
    if failures or not (args.write or args.check):
        return 1 if failures else 0
    md_path = os.path.join(root, "docs", "validation.md")
    svg_path = os.path.join(root, "docs", "validation.svg")
    blocks = [(t["id"], md_block(t, rows_by[t["id"]])) for t in tables]
    blocks.append(("summary", md_summary(tables, rows_by)))
    titles = dict([(t["id"], t["title"]) for t in tables], summary="Summary")
    old_md = read(md_path)
    new_md, changed = regenerate(old_md or "# Validation\n", blocks, titles)
    new_svg = svg(tables, rows_by)
    stale = [(os.path.relpath(p, root), why) for p, old, new, why in (
        (md_path, old_md, new_md, "generated blocks: " + ", ".join(changed)),
        (svg_path, read(svg_path), new_svg, "")) if old != new]
    if args.write:
        write(md_path, new_md)
        write(svg_path, new_svg)
        print("wrote %s and %s" % (md_path, svg_path))
        stale = []
    if not args.check:
        return 0
    bad = [r for t in tables for r in rows_by[t["id"]] if not r["ok"]]
    for r in bad:
        print("FAIL: %s / %s: error %s is outside its bound %s" % (
            r["case"]["table"], r["case"]["label"], pct(r["error"]),
            bound_text(r["case"]["bound"])))
    # A table's median target guards the whole table: every row drifting a
    # little inside its own bound still fails it.
    for t in tables:
        med = median_error(rows_by[t["id"]])
        if t.get("median_target") is not None and med is not None and (
                med > t["median_target"] + 1e-12):
            bad.append(t)
            print("FAIL: %s: median |error| %s is above its target %s" % (
                t["id"], pct(med, False), bound_text(t["median_target"])))
    for path, why in stale:
        print("FAIL: %s is out of date%s" % (path, " (%s)" % why if old_md
                                             and why else ""))
    if stale:
        print("  run: python3 %s --shardc %s --root %s --write" % (
            sys.argv[0], args.shardc, args.root))
    if not bad and not stale:
        print("check: all %d cases within their bounds; docs up to date"
              % len(cases))
    return 1 if bad or stale else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except ConfigError as e:
        print("error: %s" % e, file=sys.stderr)
        sys.exit(2)
