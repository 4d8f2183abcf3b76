#!/usr/bin/env python3
"""Fits the constants of a decode step's kernels from measured sweeps.

A serving step's GEMMs have few rows (the batch) against a whole weight
matrix: they stream the weight and run on a line, time = latency + bytes /
(hbm_bw x efficiency). This script reads what scripts/measure_kernels.py
--only decode writes and prints the three figures a chip takes from it:

  kernel_latency         the GPU's own time for one kernel: the per-kernel
                         time of a CUDA graph of tiny kernels
                         (kernel_floor.csv, `graph`); every op pays it
  matmul_hbm_efficiency  the share of hbm_bw a GEMM's operand stream
  matmul_latency         reaches, and a GEMM's fixed time: the slope and the
                         intercept of the line fitted to the GEMMs of
                         --max-m rows or fewer (decode_gemm.csv), the
                         intercept less the event bracket every timed launch
                         carries (`queued` minus `graph` in kernel_floor.csv:
                         a tiny kernel timed between events against one in a
                         graph)

with the line's 5-fold cross-validated |time error| (per dtype and pooled),
and, for the record, what decode attention reads the cache at
(decode_attention.csv). Needs only the standard library.

  fit_decode.py data/kernels/h100-2026-11-28/decode --hbm-bw 3.35e12
"""
import argparse
import csv
import os
import random
import statistics
import sys


def read(path):
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    except OSError as err:
        sys.exit(f"error: cannot read {path}: {err.strerror}")


def number(row, key, path, line):
    try:
        value = float(row[key])
    except (KeyError, TypeError, ValueError):
        sys.exit(f"{path}:{line}: error: column '{key}' is not a number")
    if value <= 0:
        sys.exit(f"{path}:{line}: error: column '{key}' must be positive")
    return value


def fit_line(points, intercept=None):
    """Least squares on relative time error: minimises the sum over (bytes,
    time) of ((a + bytes * c) / time - 1)^2 (a GEMM of 5 us counts as much
    as one of 500); `intercept` fixes a. Returns (a, c), c = 1 / bandwidth."""
    s00 = s01 = s11 = r0 = r1 = 0.0
    for x, t in points:
        w = 1.0 / (t * t)
        s00 += w
        s01 += w * x
        s11 += w * x * x
        r0 += w * t
        r1 += w * x * t
    if intercept is not None:
        return intercept, (r1 - intercept * s01) / s11
    det = s00 * s11 - s01 * s01
    return (r0 * s11 - r1 * s01) / det, (s00 * r1 - s01 * r0) / det


def cross_validated(points, intercept, folds=5, seed=1):
    """Mean and median |time error| of held-out points, k-fold."""
    shuffled = points[:]
    random.Random(seed).shuffle(shuffled)
    errors = []
    for i in range(folds):
        test = shuffled[i::folds]
        train = [p for j, p in enumerate(shuffled) if j % folds != i]
        a, c = fit_line(train, intercept)
        errors += [abs((a + x * c) / t - 1) for x, t in test]
    return statistics.mean(errors), statistics.median(errors)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="a measure_kernels.py --only decode output")
    ap.add_argument("--hbm-bw", type=float, required=True,
                    help="the chip's hbm_bw in bytes/s (3.35e12, 4.8e12)")
    ap.add_argument("--max-m", type=int, default=256,
                    help="fit GEMMs of this many rows or fewer (default 256)")
    args = ap.parse_args()
    if args.hbm_bw <= 0:
        sys.exit("error: --hbm-bw must be positive")
    floor_path = os.path.join(args.folder, "kernel_floor.csv")
    floor = {}
    for line, row in enumerate(read(floor_path), start=2):
        if row.get("kernel") == "add_1":
            floor[row.get("how")] = number(row, "time_s", floor_path, line)
    for how in ("graph", "queued"):
        if how not in floor:
            sys.exit(f"{floor_path}: error: no add_1 row timed '{how}'")
    gemm_path = os.path.join(args.folder, "decode_gemm.csv")
    points = {}
    for line, row in enumerate(read(gemm_path), start=2):
        if number(row, "m", gemm_path, line) <= args.max_m:
            points.setdefault(row.get("dtype"), []).append(
                (number(row, "bytes", gemm_path, line),
                 number(row, "time_s", gemm_path, line)))
    pooled = [p for ps in points.values() for p in ps]
    if len(pooled) < 10:
        sys.exit(f"{gemm_path}: error: {len(pooled)} GEMMs of at most "
                 f"{args.max_m} rows; a line needs at least 10")
    print(f"# {args.folder}: {len(pooled)} GEMMs of at most {args.max_m} rows")
    print(f"kernel_latency = {floor['graph'] * 1e6:.2f} us;  "
          f"// one kernel of a CUDA graph")
    bracket = floor["queued"] - floor["graph"]
    print(f"# the event bracket: {floor['queued'] * 1e6:.2f} us queued - "
          f"{floor['graph'] * 1e6:.2f} us in a graph = {bracket * 1e6:.2f} us")
    for name, ps in sorted(points.items()) + [("pooled", pooled)]:
        a, c = fit_line(ps)
        mean, median = cross_validated(ps, None)
        origin, _ = cross_validated(ps, 0.0)
        eff = 1.0 / c / args.hbm_bw
        line = (f"{name}: {len(ps)} GEMMs, {a * 1e6:.2f} us + bytes / "
                f"{1 / c / 1e12:.3f} TB/s, held-out |time error| mean "
                f"{mean:.1%}, median {median:.1%} (one bandwidth, a line "
                f"through the origin: {origin:.1%})")
        if name != "pooled":
            print(f"# {line}")
            continue
        if a <= bracket:
            sys.exit(f"{gemm_path}: error: the line's intercept, "
                     f"{a * 1e6:.2f} us, is not above the event bracket")
        print(f"matmul_hbm_efficiency = {eff:.3f};  // {line}")
        print(f"matmul_latency = {(a - bracket) * 1e6:.2f} us;  // the "
              f"intercept less the event bracket")
    attn_path = os.path.join(args.folder, "decode_attention.csv")
    if os.path.exists(attn_path):
        by_backend = {}
        for line, row in enumerate(read(attn_path), start=2):
            if (number(row, "batch", attn_path, line)
                    * number(row, "context", attn_path, line)) >= 65536:
                by_backend.setdefault(row.get("backend"), []).append(
                    number(row, "bytes", attn_path, line)
                    / number(row, "time_s", attn_path, line))
        for backend, rates in sorted(by_backend.items()):
            print(f"# decode attention {backend}: {len(rates)} calls of >= 64k "
                  f"cached tokens, median {statistics.median(rates) / 1e12:.2f} "
                  f"TB/s ({statistics.median(rates) / args.hbm_bw:.3f} of "
                  f"hbm_bw)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
