#!/usr/bin/env python3
"""Fits a chip's GEMM tile/wave model to a measured GEMM sweep.

The model (docs/cost-model.md, GEMM efficiency by shape): a GEMM is
batch x M x N x K on a chip of `sms` SMs and peak P FLOP/s. Each tile class
(Tm x Tn, `ctas` CTAs resident per SM, efficiency eta) prices it as

    tiles = ceil(M/Tm) * ceil(N/Tn) * batch
    waves = ceil(tiles / (sms * ctas))
    t     = waves * (2*Tm*Tn*K * ctas / (P/sms * eta) + c0)

with c0 the `wave_overhead`. The GEMM takes its fastest class and never
runs above the chip's ceiling (`matmul_efficiency`, the best GEMM
measured): time = max(t, FLOPs / (P * ceiling)). With --epilogue HBM_BW a
batched GEMM (batch > 1: the attention bmm's, whose K or N is a head
dimension) also pays its output bytes / (HBM_BW * epilogue_efficiency).

The fit chooses up to --max-classes classes from the candidates (greedy
forward selection: add the class that lowers the error most, then refit
every constant), and their efficiencies and c0, minimising the mean
|relative time error| over the sweep. The search is deterministic: each
efficiency is found by an exact line search (the error is piecewise linear
in 1/eta, so the sweep over its breakpoints finds the best value on the
line), c0 by a log grid refined by golden section, in rounds of coordinate
descent, restarted from a grid of c0 and polished by a Nelder-Mead simplex
over all constants at once (coordinate steps alone can stop on a kink of
the absolute error). About 13 s of CPU for the A100 sweep. The k-fold error (--folds, default 5; folds from a seeded shuffle)
repeats the whole fit, class choice included, on k-1 folds and predicts the
held-out one.

Input: a CSV whose header names at least m,n,k,batch,dtype,time_s (other
columns, such as source, are kept for --source and otherwise ignored);
lines starting with '#' are comments. Example, the A100 sweep of
data/gemm/a100_cookbook.csv (its linear layers and mm sweeps):

  python3 scripts/fit_gemm.py data/gemm/a100_cookbook.csv --dtype fp16 \\
      --sms 108 --peak 312e12 --ceiling 0.869 --exclude-batched
"""
import argparse
import csv
import json
import math
import random
import sys

REQUIRED = ("m", "n", "k", "batch", "dtype", "time_s")
DEFAULT_TILES = ("256x128", "128x256", "128x128", "256x64", "64x256",
                 "128x64", "64x128", "64x64")
BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2, "fp8": 1, "int8": 1}

# Named shapes whose efficiency the fit prints: the forward GEMMs of the
# Megatron runs at tensor parallelism 8, microbatch 1, sequence 2048
# (M = 2048 tokens), and one backward weight-gradient GEMM (K = tokens).
DEFAULT_CHECKS = (
    "gpt3-175b-qkv=2048x4608x12288", "gpt3-175b-proj=2048x12288x1536",
    "gpt3-175b-fc1=2048x6144x12288", "gpt3-175b-fc2=2048x12288x6144",
    "gpt3-175b-fc1-wgrad=6144x12288x2048",
    "mt-nlg-530b-qkv=2048x7680x20480", "mt-nlg-530b-proj=2048x20480x2560",
    "mt-nlg-530b-fc1=2048x10240x20480", "mt-nlg-530b-fc2=2048x20480x10240",
    "1t-qkv=2048x9600x25600", "1t-fc1=2048x12800x25600",
)


class InputError(Exception):
    pass


# ---------------------------------------------------------------------------
# Reading the sweep
# ---------------------------------------------------------------------------

def parse_int(text, name, where):
    try:
        value = int(text)
    except ValueError:
        raise InputError("%s: error: column '%s' is '%s', not an integer"
                         % (where, name, text))
    if value <= 0:
        raise InputError("%s: error: column '%s' is %d, must be positive"
                         % (where, name, value))
    return value


def read_sweep(path):
    """The rows of a sweep CSV as dicts; InputError names file:line."""
    try:
        f = open(path, newline="")
    except OSError as e:
        raise InputError("%s: error: cannot read: %s" % (path, e.strerror))
    rows = []
    with f:
        lines = [(i + 1, l) for i, l in enumerate(f)
                 if l.strip() and not l.lstrip().startswith("#")]
        if not lines:
            raise InputError("%s: error: no header line" % path)
        header_no, header = lines[0]
        names = [c.strip() for c in next(csv.reader([header]))]
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise InputError("%s:%d: error: the header lacks column%s %s"
                             % (path, header_no, "s" if len(missing) > 1
                                else "", ", ".join(missing)))
        for no, line in lines[1:]:
            where = "%s:%d" % (path, no)
            fields = [c.strip() for c in next(csv.reader([line]))]
            if len(fields) != len(names):
                raise InputError("%s: error: %d fields, the header has %d"
                                 % (where, len(fields), len(names)))
            rec = dict(zip(names, fields))
            row = {c: parse_int(rec[c], c, where)
                   for c in ("m", "n", "k", "batch")}
            try:
                t = float(rec["time_s"])
            except ValueError:
                raise InputError("%s: error: column 'time_s' is '%s', not a "
                                 "number" % (where, rec["time_s"]))
            if not (t > 0 and math.isfinite(t)):
                raise InputError("%s: error: column 'time_s' is %s, must be "
                                 "a positive time in seconds" % (where, rec["time_s"]))
            if not rec["dtype"]:
                raise InputError("%s: error: column 'dtype' is empty" % where)
            row.update(time_s=t, dtype=rec["dtype"],
                       source=rec.get("source", ""), where=where)
            rows.append(row)
    return rows


# ---------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------

class Chip:
    def __init__(self, sms, peak, ceiling, hbm_bw=None, elem_bytes=2):
        self.sms, self.peak, self.ceiling = sms, peak, ceiling
        self.hbm_bw, self.elem_bytes = hbm_bw, elem_bytes


def parse_class(text):
    """'256x128' (ctas 1 and 2 both become candidates) or '256x128x2'."""
    parts = text.lower().split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        dims = []
    if len(dims) not in (2, 3) or min(dims) <= 0:
        raise InputError("error: tile class '%s' is not TMxTN or TMxTNxCTAS"
                         % text)
    if len(dims) == 3:
        return [tuple(dims)]
    return [(dims[0], dims[1], 1), (dims[0], dims[1], 2)]


def class_terms(chip, cls, rows):
    """Per row: the class's compute seconds at eta = 1, and its waves."""
    tm, tn, ctas = cls
    # An SM's `ctas` resident CTAs share its rate.
    per_cta = chip.peak / chip.sms / ctas
    a, w = [], []
    for r in rows:
        tiles = -(-r["m"] // tm) * -(-r["n"] // tn) * r["batch"]
        waves = -(-tiles // (chip.sms * ctas))
        w.append(waves)
        a.append(waves * 2.0 * tm * tn * r["k"] / per_cta)
    return a, w


class Problem:
    """The rows of one fit, with every candidate class's terms."""

    def __init__(self, chip, classes, rows, epilogue):
        self.rows, self.classes = rows, classes
        self.terms = [class_terms(chip, c, rows) for c in classes]
        self.time = [r["time_s"] for r in rows]
        self.weight = [1.0 / (len(rows) * t) for t in self.time]
        self.floor = [2.0 * r["m"] * r["n"] * r["k"] * r["batch"] /
                      (chip.peak * chip.ceiling) for r in rows]
        # Epilogue seconds at epilogue_efficiency 1 (0 for unbatched rows).
        self.epi = [r["m"] * r["n"] * r["batch"] * chip.elem_bytes /
                    chip.hbm_bw if epilogue and r["batch"] > 1 else 0.0
                    for r in rows]
        self.fit_epilogue = epilogue and any(self.epi)


def class_time(prob, ci, inv_eta, c0):
    a, w = prob.terms[ci]
    return [x * inv_eta + y * c0 for x, y in zip(a, w)]


def model_time(prob, params, skip=None):
    """min over the chosen classes (but `skip`), before floor and epilogue."""
    lists = [class_time(prob, ci, x, params["c0"])
             for ci, x in params["classes"].items() if ci != skip]
    if not lists:
        return [math.inf] * len(prob.time)
    return list(map(min, *lists)) if len(lists) > 1 else lists[0]


def predict(prob, params):
    t = model_time(prob, params)
    ie = params.get("inv_epi", 0.0)
    return [max(x, f) + e * ie for x, f, e in zip(t, prob.floor, prob.epi)]


def loss(prob, params):
    return sum(abs(p - t) * w for p, t, w in
               zip(predict(prob, params), prob.time, prob.weight))


# ---------------------------------------------------------------------------
# The search
# ---------------------------------------------------------------------------

def line_search(terms, lo_x, hi_x):
    """argmin over x in [lo_x, hi_x] of sum w*|clamp(a*x + b, lo, hi) - t|.

    Each term is piecewise linear in x with breakpoints where a*x + b meets
    lo, t and hi; sweeping the sorted breakpoints with the running slope
    gives the exact minimum on the interval (the sum need not be convex).
    """
    events, base = [], 0.0
    for a, b, lo, hi, t, w in terms:
        base += w * abs(min(max(a * lo_x + b, lo), hi) - t)
        if a <= 0 or lo >= hi:
            continue
        wa = w * a
        xl, xh, xt = (lo - b) / a, (hi - b) / a, (t - b) / a
        if xt <= xl:
            events += ((xl, wa), (xh, -wa))
        elif xt >= xh:
            events += ((xl, -wa), (xh, wa))
        else:
            events += ((xl, -wa), (xt, 2 * wa), (xh, -wa))
    slope, inside = 0.0, []
    for x, d in events:
        if x <= lo_x:
            slope += d
        elif x < hi_x:
            inside.append((x, d))
    inside.sort()
    best_x, best, cur, at = lo_x, base, base, lo_x
    for x, d in inside:
        cur += slope * (x - at)
        at = x
        slope += d
        if cur < best:
            best, best_x = cur, x
    cur += slope * (hi_x - at)
    if cur < best:
        best, best_x = cur, hi_x
    return best_x, best


INV_ETA = (1.0, 50.0)       # efficiency between 0.02 and 1
C0 = (1e-8, 1e-4)           # wave overhead between 10 ns and 100 us


def fit_class(prob, params, ci):
    """The best 1/eta of class ci, every other constant fixed."""
    rest = model_time(prob, params, skip=ci)
    a, w = prob.terms[ci]
    c0, ie = params["c0"], params.get("inv_epi", 0.0)
    terms = [(ai, wi * c0, f, r if r > f else f, t - e * ie, wt)
             for ai, wi, f, r, t, e, wt in
             zip(a, w, prob.floor, rest, prob.time, prob.epi, prob.weight)]
    return line_search(terms, *INV_ETA)


def fit_epilogue(prob, params):
    base = [max(x, f) for x, f in zip(model_time(prob, params), prob.floor)]
    terms = [(e, b, -math.inf, math.inf, t, wt) for e, b, t, wt in
             zip(prob.epi, base, prob.time, prob.weight)]
    return line_search(terms, 1.0, 50.0)


def fit_c0(prob, params):
    def at(c0):
        return loss(prob, dict(params, c0=c0))
    grid = [C0[0] * (C0[1] / C0[0]) ** (i / 15) for i in range(16)]
    vals = [at(g) for g in grid]
    i = min(range(len(grid)), key=vals.__getitem__)
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    g = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - g * (hi - lo), lo + g * (hi - lo)
    f1, f2 = at(x1), at(x2)
    for _ in range(20):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - g * (hi - lo)
            f1 = at(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + g * (hi - lo)
            f2 = at(x2)
    best = min([(vals[i], grid[i]), (f1, x1), (f2, x2)])
    return best[1], best[0]


def refine(prob, params, rounds):
    """Coordinate descent over every chosen constant."""
    cur = loss(prob, params)
    for _ in range(rounds):
        before = cur
        for ci in list(params["classes"]):
            params["classes"][ci], cur = fit_class(prob, params, ci)
        params["c0"], cur = fit_c0(prob, params)
        if prob.fit_epilogue:
            params["inv_epi"], cur = fit_epilogue(prob, params)
        if before - cur < 1e-7:
            break
    return cur


def nelder_mead(f, x0, step, evals):
    """Minimises f from x0 with a first simplex of edge `step`."""
    n = len(x0)
    pts = [list(x0)] + [[x + step if i == j else x
                          for j, x in enumerate(x0)] for i in range(n)]
    vals = [f(p) for p in pts]
    used = n + 1
    while used < evals:
        order = sorted(range(n + 1), key=vals.__getitem__)
        pts, vals = [pts[i] for i in order], [vals[i] for i in order]
        centre = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]

        def towards(t):
            return [c + t * (w - c) for c, w in zip(centre, pts[-1])]
        r = towards(-1.0)
        fr = f(r)
        used += 1
        if fr < vals[0]:
            e = towards(-2.0)
            fe = f(e)
            used += 1
            pts[-1], vals[-1] = (e, fe) if fe < fr else (r, fr)
        elif fr < vals[-2]:
            pts[-1], vals[-1] = r, fr
        else:
            c = towards(0.5)
            fc = f(c)
            used += 1
            if fc < vals[-1]:
                pts[-1], vals[-1] = c, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [(a + b) / 2 for a, b in zip(pts[0], pts[i])]
                    vals[i] = f(pts[i])
                used += n
    best = min(range(n + 1), key=vals.__getitem__)
    return pts[best], vals[best]


def polish(prob, params, evals):
    """Nelder-Mead over every constant at once, in log space.

    Coordinate descent on a sum of absolute errors can stop where no single
    constant can improve but a joint move can (c0 against the efficiencies,
    which trade against each other along a ridge); the simplex moves them
    together.
    """
    keys = list(params["classes"])
    x0 = [math.log(params["classes"][k]) for k in keys] + \
        [math.log(params["c0"])]
    if prob.fit_epilogue:
        x0.append(math.log(params["inv_epi"]))

    def unpack(x):
        p = {"classes": {k: min(max(math.exp(v), INV_ETA[0]), INV_ETA[1])
                         for k, v in zip(keys, x)},
             "c0": min(max(math.exp(x[len(keys)]), C0[0]), C0[1]),
             "inv_epi": params.get("inv_epi", 0.0)}
        if prob.fit_epilogue:
            p["inv_epi"] = min(max(math.exp(x[-1]), 1.0), 50.0)
        return p
    best, _ = nelder_mead(lambda x: loss(prob, unpack(x)), x0, 0.05, evals)
    return unpack(best)


def prune(prob, params, cur):
    """Drops the classes the fit does as well without (never the fastest)."""
    for ci in list(params["classes"]):
        if len(params["classes"]) == 1:
            break
        trial = dict(params, classes={k: v for k, v in
                                      params["classes"].items() if k != ci})
        l = loss(prob, trial)
        if l <= cur + 1e-12:
            params, cur = trial, l
    return params, cur


def profile_c0(prob, params, cur):
    """Restarts the efficiencies from each c0 of a coarse grid.

    c0 and the efficiencies trade against each other; a coordinate search
    that starts with c0 far off can stop on a kink before it gets there.
    """
    best = (cur, params)
    for i in range(8):
        trial = dict(params, classes=dict(params["classes"]),
                     c0=C0[0] * 10 * (C0[1] / C0[0] / 10) ** (i / 7))
        for ci in list(trial["classes"]):
            trial["classes"][ci], l = fit_class(prob, trial, ci)
        if l < best[0]:
            best = (l, trial)
    return best[1], best[0]


# The greedy search starts from a small wave overhead: a large one lets a
# class of half the true tile (twice the waves, half the overhead each)
# win the first pick and keep the overhead there.
def fit(prob, max_classes, c0=1e-7):
    params = {"classes": {}, "c0": c0, "inv_epi": 1.0 if prob.fit_epilogue
              else 0.0}
    cur = math.inf
    while len(params["classes"]) < max_classes:
        best = None
        for ci in range(len(prob.classes)):
            if ci in params["classes"]:
                continue
            x, l = fit_class(prob, params, ci)
            if best is None or l < best[0] - 1e-12:
                best = (l, ci, x)
        if best is None or best[0] > cur - 1e-4:
            break      # no class lowers the mean error by 0.01 points
        params["classes"][best[1]] = best[2]
        cur = refine(prob, params, 2)
    params, cur = profile_c0(prob, params, cur)
    cur = refine(prob, params, 10)
    polished = polish(prob, params, 150)
    if loss(prob, polished) < cur:
        params = polished
        cur = refine(prob, params, 2)
    return prune(prob, params, cur)


# ---------------------------------------------------------------------------
# Reporting
# ---------------------------------------------------------------------------

def rel_errors(prob, params):
    return [abs(p - t) / t for p, t in zip(predict(prob, params), prob.time)]


def stats(errs):
    s = sorted(errs)
    n = len(s)
    med = s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2
    return {"mean": sum(s) / n, "median": med, "max": s[-1]}


def cross_validate(chip, classes, rows, args):
    order = list(range(len(rows)))
    random.Random(args.seed).shuffle(order)
    errs = [0.0] * len(rows)
    for f in range(args.folds):
        held = [i for j, i in enumerate(order) if j % args.folds == f]
        heldset = set(held)
        train = [rows[i] for i in range(len(rows)) if i not in heldset]
        params, _ = fit(Problem(chip, classes, train, args.epilogue is not None),
                        args.max_classes)
        test = Problem(chip, classes, [rows[i] for i in held],
                       args.epilogue is not None)
        for i, e in zip(held, rel_errors(test, params)):
            errs[i] = e
    return errs


def group_stats(rows, errs):
    """Held-out error per source, batched GEMMs apart from unbatched ones."""
    groups = {}
    for r, e in zip(rows, errs):
        key = (r["source"] or "-") + (" (batched)" if r["batch"] > 1 else "")
        groups.setdefault(key, []).append(e)
    return {k: dict(stats(v), rows=len(v)) for k, v in sorted(groups.items())}


def class_name(cls):
    tm, tn, ctas = cls
    return "t%dx%d" % (tm, tn) + ("" if ctas == 1 else "x%d" % ctas)


def constants(prob, params):
    tiles = [{"name": class_name(prob.classes[ci]), "m": prob.classes[ci][0],
              "n": prob.classes[ci][1], "ctas": prob.classes[ci][2],
              "efficiency": 1.0 / x}
             for ci, x in sorted(params["classes"].items(),
                                 key=lambda kv: prob.classes[kv[0]])]
    out = {"tiles": tiles, "wave_overhead_s": params["c0"]}
    if prob.fit_epilogue:
        out["epilogue_efficiency"] = 1.0 / params["inv_epi"]
    return out


def check_efficiencies(chip, classes, params, checks, epilogue):
    out = []
    for spec in checks:
        name, _, shape = spec.partition("=")
        dims = [int(d) for d in shape.lower().split("x")]
        m, n, k = dims[:3]
        batch = dims[3] if len(dims) > 3 else 1
        row = {"m": m, "n": n, "k": k, "batch": batch, "time_s": 1.0}
        prob = Problem(chip, classes, [row], epilogue)
        t = predict(prob, params)[0]
        out.append({"name": name, "m": m, "n": n, "k": k, "batch": batch,
                    "efficiency": 2.0 * m * n * k * batch / (chip.peak * t)})
    return out


def snippet(consts):
    lines = ["  tile %s { m = %d; n = %d; ctas = %d; efficiency = %.3f; }"
             % (t["name"], t["m"], t["n"], t["ctas"], t["efficiency"])
             for t in consts["tiles"]]
    lines.append("  wave_overhead = %.2f us;" % (consts["wave_overhead_s"] * 1e6))
    if "epilogue_efficiency" in consts:
        lines.append("  epilogue_efficiency = %.3f;"
                     % consts["epilogue_efficiency"])
    return "\n".join(lines)


def parse_evaluate(text):
    """'64x64x1=0.809,64x256x1=0.617' as (classes, {index: 1 / eta})."""
    classes, inv = [], {}
    for item in (t.strip() for t in text.split(",") if t.strip()):
        cls, eq, eta = item.partition("=")
        try:
            eff = float(eta)
        except ValueError:
            eff = 0.0
        parsed = parse_class(cls)
        if not eq or len(parsed) != 1 or not 0 < eff <= 1:
            raise InputError("error: --evaluate '%s' is not TMxTNxCTAS=ETA "
                             "with 0 < ETA <= 1" % item)
        inv[len(classes)] = 1.0 / eff
        classes.append(parsed[0])
    if not classes:
        raise InputError("error: --evaluate names no tile class")
    return classes, inv


def evaluate(chip, rows, args, checks):
    """Prices the rows with given constants: an out-of-sample check."""
    classes, inv = parse_evaluate(args.evaluate)
    prob = Problem(chip, classes, rows, False)
    params = {"classes": inv, "c0": args.wave_overhead}
    pred = predict(prob, params)
    signed = [(p - t) / t for p, t in zip(pred, prob.time)]
    s = stats([abs(e) for e in signed])
    s["signed_mean"] = sum(signed) / len(signed)
    result = {"rows": len(rows), "dtype": rows[0]["dtype"], "evaluated": s,
              "checks": check_efficiencies(chip, classes, params, checks,
                                           False)}
    if args.json:
        json.dump(result, sys.stdout, indent=2, sort_keys=True)
        print()
        return 0
    print("%d %s GEMMs; %d SMs, peak %.4g FLOP/s, ceiling %.3f"
          % (len(rows), rows[0]["dtype"], args.sms, args.peak, args.ceiling))
    print("evaluated (not fitted): %s, wave overhead %.2f us"
          % (", ".join("%s %.3f" % (class_name(c), 1.0 / inv[i])
                       for i, c in enumerate(classes)),
             args.wave_overhead * 1e6))
    print("|relative error|: mean %.2f%%, median %.2f%%, max %.1f%%; "
          "signed mean %+.2f%% (negative: the constants are fast)"
          % (100 * s["mean"], 100 * s["median"], 100 * s["max"],
             100 * s["signed_mean"]))
    for c in result["checks"]:
        shape = "%dx%dx%d" % (c["m"], c["n"], c["k"]) + \
            ("" if c["batch"] == 1 else " b=%d" % c["batch"])
        print("  %-22s %-20s %.3f" % (c["name"], shape, c["efficiency"]))
    return 0


def select_rows(rows, args, path):
    if args.dtype:
        rows = [r for r in rows if r["dtype"] == args.dtype]
    else:
        dtypes = sorted({r["dtype"] for r in rows})
        if len(dtypes) > 1:
            raise InputError("%s: error: rows of several dtypes (%s); pick one "
                             "with --dtype" % (path, ", ".join(dtypes)))
    if args.source:
        rows = [r for r in rows if r["source"] in args.source]
    if args.exclude_batched:
        rows = [r for r in rows if r["batch"] == 1]
    if args.aligned:
        rows = [r for r in rows if r["m"] % args.aligned == 0 and
                r["n"] % args.aligned == 0 and r["k"] % args.aligned == 0]
    rows = [r for r in rows if r["time_s"] >= args.min_time]
    if len(rows) < max(args.folds, 2):
        raise InputError("%s: error: %d row%s left after the filters, too "
                         "few to fit and cross-validate"
                         % (path, len(rows), "" if len(rows) == 1 else "s"))
    return rows


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="\n".join(__doc__.split("\n")[1:]))
    ap.add_argument("csv", help="the GEMM sweep")
    ap.add_argument("--sms", type=int, required=True)
    ap.add_argument("--peak", type=float, required=True,
                    help="dense peak FLOP/s of the dtype")
    ap.add_argument("--ceiling", type=float, required=True,
                    help="the chip's matmul_efficiency (the best GEMM)")
    ap.add_argument("--dtype", help="fit only the rows of this dtype")
    ap.add_argument("--source", action="append",
                    help="fit only rows whose source column is this (repeat)")
    ap.add_argument("--exclude-batched", action="store_true",
                    help="leave out rows with batch > 1")
    ap.add_argument("--aligned", type=int, metavar="A",
                    help="leave out rows whose M, N or K is not a multiple "
                         "of A (unaligned GEMMs miss the tensor-core kernels)")
    ap.add_argument("--min-time", type=float, default=0.0,
                    help="leave out rows faster than this many seconds")
    ap.add_argument("--epilogue", type=float, metavar="HBM_BW",
                    help="fit an epilogue term for batched rows, HBM bytes/s")
    ap.add_argument("--classes", default=",".join(DEFAULT_TILES),
                    help="candidate tile classes, TMxTN[xCTAS] (default: %(default)s,"
                         " each with ctas 1 and 2)")
    ap.add_argument("--max-classes", type=int, default=4)
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", action="append", metavar="NAME=MxNxK[xBATCH]",
                    help="a shape whose efficiency to print (default: the "
                         "Megatron GEMMs at TP 8)")
    ap.add_argument("--evaluate", metavar="TMxTNxCTAS=ETA,...",
                    help="do not fit: price the sweep with these tile "
                         "classes (and --wave-overhead) and print their error, "
                         "e.g. a preset's constants on another chip's sweep")
    ap.add_argument("--wave-overhead", type=float, default=0.0,
                    metavar="SECONDS", help="with --evaluate: the wave overhead")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    try:
        classes = [c for t in args.classes.split(",") if t.strip()
                   for c in parse_class(t.strip())]
        rows = select_rows(read_sweep(args.csv), args, args.csv)
        checks = args.check or list(DEFAULT_CHECKS)
        for spec in checks:
            name, eq, shape = spec.partition("=")
            dims = shape.lower().split("x")
            if not eq or len(dims) not in (3, 4) or \
                    not all(d.isdigit() and int(d) > 0 for d in dims):
                raise InputError("error: --check '%s' is not NAME=MxNxK[xBATCH]"
                                 % spec)
    except InputError as e:
        print(e, file=sys.stderr)
        return 1
    dtype = rows[0]["dtype"]
    elem = BYTES.get(dtype, 1 if dtype.startswith("fp8") else 2)
    chip = Chip(args.sms, args.peak, args.ceiling, args.epilogue, elem)
    epilogue = args.epilogue is not None
    if args.evaluate:
        try:
            return evaluate(chip, rows, args, checks)
        except InputError as e:
            print(e, file=sys.stderr)
            return 1
    prob = Problem(chip, classes, rows, epilogue)
    params, _ = fit(prob, args.max_classes)
    consts = constants(prob, params)
    result = {"rows": len(rows), "dtype": dtype, "sms": args.sms,
              "peak": args.peak, "ceiling": args.ceiling,
              "constants": consts,
              "in_sample": stats(rel_errors(prob, params)),
              "folds": args.folds}
    errs = cross_validate(chip, classes, rows, args)
    cv = stats(errs)
    result["cv"] = cv
    result["cv_by_source"] = group_stats(rows, errs)
    result["cv_mean_rel_error"] = cv["mean"]
    result["checks"] = check_efficiencies(chip, classes, params, checks,
                                          epilogue)
    if args.json:
        json.dump(result, sys.stdout, indent=2, sort_keys=True)
        print()
        return 0
    print("%d %s GEMMs; %d SMs, peak %.4g FLOP/s, ceiling %.3f"
          % (len(rows), dtype, args.sms, args.peak, args.ceiling))
    print("\nfitted constants (mean |relative time error| minimised):")
    print(snippet(consts))
    s = result["in_sample"]
    print("\nin-sample |relative error|: mean %.2f%%, median %.2f%%, max %.1f%%"
          % (100 * s["mean"], 100 * s["median"], 100 * s["max"]))
    print("%d-fold cross-validated:     mean %.2f%%, median %.2f%%, max %.1f%%"
          % (args.folds, 100 * cv["mean"], 100 * cv["median"], 100 * cv["max"]))
    groups = result["cv_by_source"]
    if len(groups) > 1:
        for name, g in groups.items():
            print("  %-24s %5d rows: mean %.2f%%, median %.2f%%, max %.1f%%"
                  % (name, g["rows"], 100 * g["mean"], 100 * g["median"],
                     100 * g["max"]))
    print("\nefficiency the fit gives (of peak; the ceiling caps it at %.3f):"
          % args.ceiling)
    for c in result["checks"]:
        shape = "%dx%dx%d" % (c["m"], c["n"], c["k"]) + \
            ("" if c["batch"] == 1 else " b=%d" % c["batch"])
        print("  %-22s %-20s %.3f" % (c["name"], shape, c["efficiency"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
