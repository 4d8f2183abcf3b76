#!/usr/bin/env python3
"""Derives a chip's measured kernel rates from the sweeps of
scripts/measure_kernels.py: `elementwise_efficiency` (memory-bound kernels'
share of hbm_bw) and `attention_efficiency` / `attention_backward_efficiency`
(fused attention's share of the matmul peak).

One constant stands for many kernels, so the script says how well it does:
each constant is the geometric mean of the kernels' efficiencies (which
minimises the sum of squared log errors of their times), and its k-fold
(k = 5, folds by sorted kernel name, deterministic) cross-validated error is
the mean |relative time error| of each held-out kernel predicted from the
others' constant.

  python3 scripts/fit_kernels.py data/kernels/h200-2026-11-27/run1 \\
      --hbm-bw 4.8e12 --peak 989e12

Which rows count:
- elementwise: the kernels a training step's memory-bound statements stand
  for (norms forward and backward, activations, dropout, residual adds,
  softmax) at the largest measured size, which is the size of a layer's
  activations; the optimizer's passes, zero fills and copies are reported
  beside them but not fitted (a step prices them as their own ops);
- attention: the `--backend` kernel (default cudnn, the fastest PyTorch
  runs on Hopper), head dim `--head-dim` (128), causal or not as
  `--causal`, sequence >= `--min-seq`; efficiency from the FLOPs the kernel
  executes (a causal mask's skipped half not counted).

Stdlib only: the tests run it.
"""
import argparse
import csv
import json
import math
import os
import sys

STEP_KERNELS = ("add", "gelu_fwd", "gelu_bwd", "dropout_fwd", "layernorm_fwd",
                "layernorm_bwd", "rmsnorm_fwd", "rmsnorm_bwd", "softmax_fwd",
                "silu_mul")


def read_csv(path, required):
    try:
        fh = open(path, encoding="utf-8", newline="")
    except OSError as err:
        sys.exit(f"{path}: error: cannot read: {err.strerror}")
    with fh:
        reader = csv.DictReader(fh)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"{path}:1: error: missing column(s) {', '.join(missing)}")
        rows = []
        for line, rec in enumerate(reader, start=2):
            try:
                for c in required:
                    if c in ("kernel", "backend", "pass"):
                        continue
                    try:
                        value = float(rec[c])
                    except (TypeError, ValueError):
                        value = math.nan
                    if not math.isfinite(value) or value < 0:
                        raise ValueError(f"{c} = {rec[c]!r}")
                    rec[c] = value
            except (TypeError, ValueError) as err:
                sys.exit(f"{path}:{line}: error: not a measurement: {err}")
            if rec.get("time_s", 1) <= 0:
                sys.exit(f"{path}:{line}: error: time_s must be positive")
            rows.append(rec)
    return rows


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def kfold(items, k=5):
    """Mean |relative time error| of each item predicted by the geometric
    mean of the efficiencies outside its fold; items are (name, efficiency).
    A time at efficiency e predicted at e' is off by e / e' - 1."""
    items = sorted(items)
    if len(items) < 2:
        return None
    k = min(k, len(items))
    errors = []
    for fold in range(k):
        held = [e for i, (_, e) in enumerate(items) if i % k == fold]
        rest = [e for i, (_, e) in enumerate(items) if i % k != fold]
        constant = geomean(rest)
        errors += [abs(e / constant - 1) for e in held]
    return sum(errors) / len(errors)


def fit_elementwise(rows, hbm_bw):
    largest = max(r["elements"] for r in rows)
    fitted, beside = [], []
    for r in rows:
        if r["elements"] != largest:
            continue
        eff = r["bytes"] / r["time_s"] / hbm_bw
        (fitted if r["kernel"] in STEP_KERNELS else beside).append((r["kernel"], eff))
    if not fitted:
        sys.exit("error: no elementwise kernel of a training step in the sweep")
    const = geomean([e for _, e in fitted])
    return {"elementwise_efficiency": const, "cv_error": kfold(fitted),
            "elements": int(largest), "kernels": dict(sorted(fitted)),
            "not_fitted": dict(sorted(beside))}


def fit_attention(rows, peak, args):
    out = {}
    for pass_name, key in (("fwd", "attention_efficiency"),
                           ("bwd", "attention_backward_efficiency")):
        items = []
        for r in rows:
            if (r["backend"] == args.backend and r["pass"] == pass_name
                    and int(r["head_dim"]) == args.head_dim
                    and int(r["causal"]) == int(args.causal)
                    and r["seq"] >= args.min_seq):
                eff = r["flops_executed"] / r["time_s"] / peak
                items.append((f"s{int(r['seq'])}", eff))
        if not items:
            sys.exit(f"error: no {args.backend} {pass_name} attention rows with "
                     f"head_dim {args.head_dim}, causal {int(args.causal)}, "
                     f"seq >= {args.min_seq}")
        out[key] = {"value": geomean([e for _, e in items]),
                    "cv_error": kfold(items), "points": dict(items)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("sweep", help="a folder with elementwise.csv and attention.csv")
    ap.add_argument("--hbm-bw", type=float, required=True,
                    help="the chip's hbm_bw in bytes/s (H200 4.8e12)")
    ap.add_argument("--peak", type=float, required=True,
                    help="the matmul peak in FLOP/s for attention's dtype")
    ap.add_argument("--backend", default="cudnn")
    ap.add_argument("--head-dim", type=int, default=128)
    ap.add_argument("--causal", action="store_true")
    ap.add_argument("--min-seq", type=float, default=2048)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ew = fit_elementwise(read_csv(
        os.path.join(args.sweep, "elementwise.csv"),
        ["kernel", "elements", "bytes", "time_s"]), args.hbm_bw)
    at = fit_attention(read_csv(
        os.path.join(args.sweep, "attention.csv"),
        ["seq", "head_dim", "causal", "backend", "pass", "time_s",
         "flops_executed"]), args.peak, args)
    if args.json:
        json.dump({"elementwise": ew, "attention": at}, sys.stdout, indent=2,
                  sort_keys=True)
        print()
        return 0
    print(f"elementwise kernels at {ew['elements']:,} elements "
          f"(share of {args.hbm_bw / 1e12:g} TB/s):")
    for name, eff in ew["kernels"].items():
        print(f"  {name:16s} {eff:.3f}")
    for name, eff in ew["not_fitted"].items():
        print(f"  {name:16s} {eff:.3f}  (not fitted: priced as its own op)")
    print(f"  elementwise_efficiency = {ew['elementwise_efficiency']:.3f};"
          f"  // 5-fold CV |time error| {100 * ew['cv_error']:.1f}%")
    for key, fit in at.items():
        pts = ", ".join(f"{k} {v:.3f}" for k, v in fit["points"].items())
        print(f"{key}: {pts}")
        print(f"  {key} = {fit['value']:.3f};  // 5-fold CV |time error| "
              f"{100 * fit['cv_error']:.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
