#!/usr/bin/env python3
"""Converts EleutherAI/cookbook's A100 GEMM benchmark logs to a GEMM sweep CSV.

The logs are the raw outputs of Anthony et al. 2024, "The Case for
Co-Designing Model Architectures with Hardware" (arXiv 2401.14489). Each
GEMM appears as two lines, an elapsed time rounded to a few decimals and a
throughput in TFLOP/s with three decimals; the time kept here is the
FLOPs divided by the throughput (the elapsed-time line has too few digits).

Three line forms (the logs' own dimension names, then what they mean):

  mm sweeps (benchmark_mm: torch.mm(A[m, n], B[n, k])):
    Throughput (in TFLOP/s) for MxNxK: T
      -> M = m, K = n (contracted), N = k
  layer sweep, linear layers (benchmark_mm_b: F.linear(A[b, m, n], B[k, n])):
    Throughput (in TFLOP/s) for LABEL (mxnxk, b=B): T
      -> one GEMM of M = b*m rows (linear flattens the leading dims),
         K = n, N = k
  layer sweep, attention bmm's (benchmark_bmm: torch.bmm(A[b, m, n], B[b, n, k])):
    Throughput (in TFLOP/s) for LABEL (bxmxnxk): T
      -> batch = b, M = m, K = n, N = k

The layer sweep's configuration lines (num_attention_heads, hidden_size,
tensor_mp_size) give the `hidden` and `tp` columns.

  python3 scripts/cookbook_to_csv.py --mm ksweep_low=FILE ... \\
      --layers h_sweep=FILE > data/gemm/a100_cookbook.csv

Every benchmark time is the slowest of its timed iterations (np.amax over
200 iterations after 50 warm-up ones), so the times are a little
pessimistic; they are written as published (data/README.md).
"""
import argparse
import re
import sys

HEADER = "m,n,k,batch,dtype,time_s,source,layer,hidden,tp"

MM = re.compile(r"^Throughput \(in TFLOP/s\) for (\d+)x(\d+)x(\d+): ([0-9.]+)$")
LINEAR = re.compile(r"^Throughput \(in TFLOP/s\) for (\w+) "
                    r"\((\d+)x(\d+)x(\d+), b=(\d+)\): ([0-9.]+)$")
BMM = re.compile(r"^Throughput \(in TFLOP/s\) for (\w+) "
                 r"\((\d+)x(\d+)x(\d+)x(\d+)\): ([0-9.]+)$")
CONFIG = re.compile(r"^num_attention_heads: (\d+), hidden_size: (\d+), .*"
                    r"tensor_mp_size: (\d+),")


def row(m, n, k, batch, tflops, source, layer="", hidden="", tp=""):
    flops = 2.0 * m * n * k * batch
    if tflops <= 0:
        raise ValueError("throughput 0: the GEMM is below the log's rounding")
    time_s = flops / (tflops * 1e12)
    return "%d,%d,%d,%d,fp16,%.6g,%s,%s,%s,%s" % (
        m, n, k, batch, time_s, source, layer, hidden, tp)


def convert_mm(path, source, out):
    with open(path) as f:
        for line in f:
            g = MM.match(line.strip())
            if g:
                m, kk, n = int(g[1]), int(g[2]), int(g[3])
                out.append(row(m, n, kk, 1, float(g[4]), source))


def convert_layers(path, source, out):
    hidden = tp = ""
    with open(path) as f:
        for line in f:
            line = line.strip()
            g = CONFIG.match(line)
            if g:
                hidden, tp = g[2], g[3]
                continue
            g = LINEAR.match(line)
            if g:
                mb, kk, n, b = int(g[2]), int(g[3]), int(g[4]), int(g[5])
                out.append(row(b * mb, n, kk, 1, float(g[6]), source,
                               g[1], hidden, tp))
                continue
            g = BMM.match(line)
            if g:
                b, m, kk, n = int(g[2]), int(g[3]), int(g[4]), int(g[5])
                out.append(row(m, n, kk, b, float(g[6]), source,
                               g[1], hidden, tp))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mm", action="append", default=[],
                    metavar="SOURCE=FILE", help="an mm sweep log")
    ap.add_argument("--layers", action="append", default=[],
                    metavar="SOURCE=FILE", help="a transformer layer sweep log")
    args = ap.parse_args()
    out = []
    for spec, fn in [(s, convert_mm) for s in args.mm] + \
                    [(s, convert_layers) for s in args.layers]:
        source, _, path = spec.partition("=")
        fn(path, source, out)
    sys.stdout.write(HEADER + "\n" + "\n".join(out) + "\n")


if __name__ == "__main__":
    main()
