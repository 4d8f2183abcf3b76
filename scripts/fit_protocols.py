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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", required=True,
                    help="a table id of examples/validation/published.json")
    ap.add_argument("--gpus", type=int, required=True)
    ap.add_argument("--link-bw", type=float, required=True,
                    help="one GPU's link into the level, bytes/s")
    ap.add_argument("--latency", type=float, required=True,
                    help="the level's per-hop latency, seconds")
    ap.add_argument("--root", default=os.path.join(os.path.dirname(
        os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    with open(os.path.join(args.root, "examples", "validation",
                           "published.json")) as f:
        cases = [c for c in json.load(f)["cases"] if c["table"] == args.table]
    if not cases:
        sys.exit("error: no cases in table '%s'" % args.table)
    points = [(c["bytes"], c["measured"]) for c in cases]
    l, (s, b, e) = fit(points, args.gpus, args.link_bw, args.latency)
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
