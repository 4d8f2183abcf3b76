#!/usr/bin/env python3
"""Prices a decode sweep's GEMMs with shardc and compares them to the sweep.

Each GEMM of decode_gemm.csv (scripts/measure_kernels.py --only decode)
becomes one chunk, `y[I, J] = x[I, K] * w[K, J]` in its dtype on one chip
of the named preset, and shardc's op time is compared with the measured
time less the event bracket every timed launch carries (kernel_floor.csv:
a one-element add queued between events, less one in a CUDA graph). Prints
the mean and median |error| and the signed median, by dtype and by rows
(at most 256: memory bound; 512 and more: compute bound).

  evaluate_decode.py data/kernels/h100-2026-11-28/decode --chip H100_measured \\
      --shardc build/bin/shardc
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys
import tempfile


def read(path):
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            return list(csv.DictReader(fh))
    except OSError as err:
        sys.exit(f"error: cannot read {path}: {err.strerror}")


def chunk(row, chip, imports):
    dtype = row["dtype"]
    if dtype not in ("bf16", "fp8"):
        sys.exit(f"error: dtype '{dtype}' is neither bf16 nor fp8 (the decode "
                 "sweep's two)")
    return (f'import "{imports}";\n'
            f"cluster One {{ chip = {chip}; level node {{ size = 1; "
            f"uplink_bw = 1 GB/s; }} }}\n"
            f"mesh M = One[X: 1];\n"
            f"dim I = {row['m']}, J = {row['n']}, K = {row['k']};\n"
            f"tensor x : {dtype}[I, K];\nparam w : {dtype}[K, J];\n"
            f"y[I, J] = x * w;\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", help="a measure_kernels.py --only decode output")
    ap.add_argument("--chip", required=True, help="the chip preset to price on")
    ap.add_argument("--import", dest="imports", default="measured.shard",
                    help="the file that declares it (default measured.shard)")
    ap.add_argument("--shardc", default="shardc")
    args = ap.parse_args()
    floor = {r.get("how"): float(r["time_s"])
             for r in read(os.path.join(args.folder, "kernel_floor.csv"))
             if r.get("kernel") == "add_1"}
    if "queued" not in floor or "graph" not in floor:
        sys.exit("error: kernel_floor.csv has no add_1 rows timed 'queued' "
                 "and 'graph'")
    bracket = floor["queued"] - floor["graph"]
    rows = read(os.path.join(args.folder, "decode_gemm.csv"))
    if not rows:
        sys.exit("error: decode_gemm.csv has no rows")
    # A file of one's own is imported by its absolute path (the chunks are
    # written to a temporary folder); a stdlib name stays as it is.
    imports = (os.path.abspath(args.imports) if os.path.exists(args.imports)
               else args.imports)
    src = "\n// -----\n".join(chunk(r, args.chip, imports) for r in rows)
    with tempfile.NamedTemporaryFile("w", suffix=".shard",
                                     delete=False) as fh:
        fh.write(src)
        path = fh.name
    try:
        out = subprocess.run([args.shardc, "--split-input-file",
                              "--format=json", path], capture_output=True,
                             text=True, check=False)
    finally:
        os.unlink(path)
    try:
        chunks = json.loads(out.stdout)
    except ValueError:
        sys.exit("error: shardc gave no JSON:\n" + out.stderr[-800:])
    if not isinstance(chunks, list) or len(chunks) != len(rows):
        sys.exit(f"error: shardc priced {len(chunks) if isinstance(chunks, list) else 0} "
                 f"of {len(rows)} GEMMs:\n" + out.stderr[-800:])
    groups = {}
    for r, c in zip(rows, chunks):
        ops = [o for o in c.get("ops", []) if o.get("name") == "y"]
        if c.get("status") != "ok" or not ops:
            sys.exit(f"error: shardc could not price {r['m']}x{r['n']}x"
                     f"{r['k']} {r['dtype']}: {c.get('diagnostics')}")
        err = ops[0]["time_s"] / (float(r["time_s"]) - bracket) - 1
        rows_class = "m<=256" if int(r["m"]) <= 256 else "m>=512"
        groups.setdefault((r["dtype"], rows_class), []).append(err)
    print(f"# {args.folder} on {args.chip}: {len(rows)} GEMMs, event "
          f"bracket {bracket * 1e6:.2f} us taken off each")
    for (dtype, rows_class), errs in sorted(groups.items()):
        print(f"{dtype} {rows_class}: {len(errs)} GEMMs, mean |error| "
              f"{statistics.mean(abs(e) for e in errs):.1%}, median "
              f"{statistics.median(abs(e) for e in errs):.1%}, signed median "
              f"{statistics.median(errs):+.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
