#!/usr/bin/env python3
"""Fits a level's two NCCL protocols to a measured AllReduce curve.

docs/cost-model.md §3: a level with `small_efficiency` and `bulk_latency`
prices a collective as the faster of two lines,

    small: hops x latency      + bytes / (W x small_efficiency)
    bulk:  hops x bulk_latency + bytes / (W x efficiency)

where an AllReduce over n GPUs of one node takes 2(n - 1) hops and moves
2(n - 1)/n x V through each GPU's link of W bytes/s. This script finds
`small_efficiency`, `bulk_latency` and `efficiency` that minimise the sum of
squared log errors over every point of a curve of examples/validation/
published.json, with `latency` given (measured on its own, at the smallest
sizes), and prints them with each point's error. It is how the A100 presets
of stdlib/measured.shard got theirs; rerun it to check them:

  python3 scripts/fit_protocols.py --table nccl-a100 --gpus 8 \\
      --link-bw 300e9 --latency 2.41e-6

The search is deterministic: a log-spaced grid, then three rounds of a finer
grid around the best point.

With --in-network the level reduces an AllReduce in its switches (NVLS on
NVLink 4), and the two lines are two algorithms: the small-message one is a
ring with NCCL's LL protocol, the bandwidth one the in-switch reduction,

    small: hops x latency      + 2(n - 1)/n x V / (W x small_efficiency)
    bulk:  hops x bulk_latency +            V / (W x reduction_efficiency)

`bulk_latency` and `reduction_efficiency` are fitted to the points of
--min-bytes and more (least squares of the log error, the bulk line
alone), and `small_efficiency` is what puts the two lines' crossing at the
geometric mean of --switch LO HI, the last size NCCL ran the ring at and
the first it ran the switches at. The sizes are a doubling sweep, so the
crossing lies anywhere in (LO, HI]; the geometric mean is off by at most
sqrt(HI/LO) either way, the least a single point can promise. The H100
presets' constants come from the H200 curve of data/nccl:

  python3 scripts/fit_protocols.py --data data/nccl/h200-allreduce-mleng.csv \\
      --gpus 8 --link-bw 450e9 --latency 0.976e-6 --in-network \\
      --min-bytes 4194304 --switch 1048576 2097152
"""
import argparse
import json
import math
import os
import sys


def model(v, n, w, lat, small_eff, bulk_lat, eff):
    """The two lines' faster time for an AllReduce of V bytes, and which."""
    hops = 2 * (n - 1)
    moved = 2 * (n - 1) / n * v
    small = hops * lat + moved / (w * small_eff)
    bulk = hops * bulk_lat + moved / (w * eff)
    return (small, "small") if small < bulk else (bulk, "bulk")


def loss(points, n, w, lat, params):
    return sum(math.log(model(v, n, w, lat, *params)[0] / t) ** 2
               for v, t in points)


def grid(lo, hi, count, log=True):
    if log:
        return [lo * (hi / lo) ** (i / (count - 1)) for i in range(count)]
    return [lo + (hi - lo) * i / (count - 1) for i in range(count)]


def fit(points, n, w, lat):
    ranges = [(0.005, 1.0), (0.1e-6, 100e-6), (0.05, 1.0)]
    best = None
    for rnd in range(4):
        axes = [grid(lo, hi, 40 if rnd == 0 else 21) for lo, hi in ranges]
        for s in axes[0]:
            for b in axes[1]:
                for e in axes[2]:
                    if s > 1 or e > 1:
                        continue
                    l = loss(points, n, w, lat, (s, b, e))
                    if best is None or l < best[0]:
                        best = (l, (s, b, e))
        # Zoom in: one step of the last grid on each side.
        new = []
        for (lo, hi), x, ax in zip(ranges, best[1], axes):
            step = (hi / lo) ** (1 / (len(ax) - 1))
            new.append((max(x / step, 1e-12), min(x * step, 1.0)
                        if hi <= 1.0 else x * step))
        ranges = new
    return best


def in_network_model(v, n, w, lat, small_eff, bulk_lat, red_eff):
    """--in-network: the LL ring's and the switches' faster time, and which."""
    hops = 2 * (n - 1)
    small = hops * lat + 2 * (n - 1) / n * v / (w * small_eff)
    bulk = hops * bulk_lat + v / (w * red_eff)
    return (small, "small") if small < bulk else (bulk, "bulk")


def fit_in_network(points, n, w):
    """bulk_latency and reduction_efficiency: the least squares of the log
    error of the bulk line over \p points, by the zooming grid of fit()."""
    hops = 2 * (n - 1)
    ranges = [(0.01e-6, 100e-6), (0.05, 1.0)]
    best = None
    for rnd in range(5):
        axes = [grid(lo, hi, 60 if rnd == 0 else 31) for lo, hi in ranges]
        for b in axes[0]:
            for r in axes[1]:
                l = sum(math.log((hops * b + v / (w * r)) / t) ** 2
                        for v, t in points)
                if best is None or l < best[0]:
                    best = (l, (b, r))
        new = []
        for (lo, hi), x, ax in zip(ranges, best[1], axes):
            step = (hi / lo) ** (1 / (len(ax) - 1))
            new.append((x / step, min(x * step, 1.0) if hi <= 1.0
                        else x * step))
        ranges = new
    return best


def small_for_crossing(vx, n, w, lat, bulk_lat, red_eff):
    """The small_efficiency whose LL ring line meets the bulk line at vx."""
    hops = 2 * (n - 1)
    bulk = hops * bulk_lat + vx / (w * red_eff)
    room = bulk - hops * lat
    if room <= 0:
        sys.exit("error: the bulk line is below the latency alone at %d B"
                 % vx)
    return 2 * (n - 1) / n * vx / (w * room)


def read_csv(path):
    """(bytes, seconds) from a curve of data/nccl: bytes and algbw in GB/s."""
    points = []
    with open(path) as f:
        rows = [l for l in f if l.strip() and not l.startswith("#")]
    head = rows[0].strip().split(",")
    for line in rows[1:]:
        row = dict(zip(head, line.strip().split(",")))
        v = int(row["bytes"])
        points.append((v, v / (float(row["algbw_GBps"]) * 1e9)))
    return points


def main_in_network(args, points, labels):
    fitted = [(v, t) for v, t in points if v >= args.min_bytes]
    if len(fitted) < 2:
        sys.exit("error: fewer than two sizes of %d B or more"
                 % args.min_bytes)
    l, (b, r) = fit_in_network(fitted, args.gpus, args.link_bw)
    lo, hi = args.switch
    vx = math.sqrt(lo * hi)
    s = small_for_crossing(vx, args.gpus, args.link_bw, args.latency, b, r)
    print("small_efficiency = %.4f; bulk_latency = %.3f us; "
          "reduction_efficiency = %.4f;" % (s, b * 1e6, r))
    print("(rms log error %.3f over the %d sizes of %d B and more; the "
          "lines cross at %.0f B)" % (math.sqrt(l / len(fitted)),
                                      len(fitted), args.min_bytes, vx))
    print("crossing at %d B: small_efficiency %.4f; at %d B: %.4f" % (
        lo, small_for_crossing(lo, args.gpus, args.link_bw, args.latency,
                               b, r),
        hi, small_for_crossing(hi, args.gpus, args.link_bw, args.latency,
                               b, r)))
    for (v, t), label in zip(points, labels):
        p, which = in_network_model(v, args.gpus, args.link_bw, args.latency,
                                    s, b, r)
        note = "" if v >= args.min_bytes else "  (not fitted)"
        print("%12s  measured %10.1f us  model %10.1f us  %+6.1f%%  %s%s" % (
            label, t * 1e6, p * 1e6, 100 * (p / t - 1), which, note))


def label_of(v):
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if v >= size and v % size == 0:
            return "%d %s" % (v // size, unit)
    return "%d B" % v


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--table",
                     help="a table id of examples/validation/published.json")
    src.add_argument("--data", help="a curve of data/nccl (CSV: bytes, "
                     "algbw_GBps)")
    ap.add_argument("--gpus", type=int, required=True)
    ap.add_argument("--link-bw", type=float, required=True,
                    help="one GPU's link into the level, bytes/s")
    ap.add_argument("--latency", type=float, required=True,
                    help="the level's per-hop latency, seconds")
    ap.add_argument("--in-network", action="store_true",
                    help="the level reduces in its switches: fit the LL "
                    "ring and the in-switch lines")
    ap.add_argument("--min-bytes", type=int, default=0,
                    help="--in-network: fit the bulk line to these sizes "
                    "and up")
    ap.add_argument("--switch", type=int, nargs=2, metavar=("LO", "HI"),
                    help="--in-network: the last size of the ring and the "
                    "first of the switches")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    if args.in_network and not args.switch:
        ap.error("--in-network needs --switch LO HI")
    if args.switch and not 0 < args.switch[0] < args.switch[1]:
        ap.error("--switch needs 0 < LO < HI")
    if args.data:
        points = read_csv(args.data)
        labels = [label_of(v) for v, _ in points]
        if args.in_network:
            return main_in_network(args, points, labels)
        cases = [{"label": l} for l in labels]
        l, (s, b, e) = fit(points, args.gpus, args.link_bw, args.latency)
        return report(args, points, cases, l, s, b, e)
    with open(os.path.join(args.root, "examples", "validation",
                           "published.json")) as f:
        cases = [c for c in json.load(f)["cases"] if c["table"] == args.table]
    if not cases:
        sys.exit("error: no cases in table '%s'" % args.table)
    points = [(c["bytes"], c["measured"]) for c in cases]
    if args.in_network:
        return main_in_network(args, points, [c["label"] for c in cases])
    l, (s, b, e) = fit(points, args.gpus, args.link_bw, args.latency)
    report(args, points, cases, l, s, b, e)


def report(args, points, cases, l, s, b, e):
    print("small_efficiency = %.4f; bulk_latency = %.3f us; "
          "efficiency = %.4f;" % (s, b * 1e6, e))
    print("(rms log error %.3f over %d sizes)" % (math.sqrt(l / len(points)),
                                                  len(points)))
    for (v, t), c in zip(points, cases):
        p, which = model(v, args.gpus, args.link_bw, args.latency, s, b, e)
        print("%12s  measured %10.1f us  model %10.1f us  %+6.1f%%  %s" % (
            c["label"], t * 1e6, p * 1e6, 100 * (p / t - 1), which))


if __name__ == "__main__":
    main()
