#!/usr/bin/env python3
"""Measures the components shardc's chip presets need, on one GPU.

shardc prices a step from component figures: how fast a GEMM of a given
shape runs, how fast fused attention runs, what bandwidth a memory-bound
kernel reaches. This script measures those on the GPU it runs on and writes
the sweeps `shardc calibrate` and scripts/fit_gemm.py read:

  gemm.csv         m,n,k,batch,dtype,time_s,...  one row per GEMM shape
  attention.csv    fused attention forward and backward, by sequence and
                   head dimension, causal or not, per kernel backend
  elementwise.csv  memory-bound kernels (norms, activations, dropout, adds,
                   softmax, the optimizer's passes) with the bytes they move
  decode_gemm.csv  serving's GEMMs: few rows (a decode step's batch) against
                   a whole weight matrix, bf16 and fp8, with the bytes each
                   must read and the bandwidth it reached
  decode_attention.csv  one new query per sequence against a KV cache
                   (grouped heads), with the cache bytes and bandwidth
  kernel_floor.csv the least time a kernel takes: an empty-ish kernel queued
                   back to back, replayed from a CUDA graph, and launched
                   from the host one at a time
  meta.json        the GPU, driver, CUDA, cuBLAS/cuDNN and PyTorch versions,
                   clocks and the date: a measurement is only as good as the
                   record of where it was taken

Which GEMM shapes: those of the transformer models shardc ships examples
and validation files for (forward, dgrad and wgrad of each projection at the
tensor-parallel degree and microbatch the file uses), a seeded grid around
them for fitting, and -- with --from-json REPORT -- every GEMM a shardc JSON
report lists (`shardc --format=json FILE > REPORT`), so the sweep covers the
shapes of your own `.shard` file. --shapes CSV adds rows `m,n,k,batch`.

How it times: every kernel is run a few times to warm up (cuBLAS picks its
algorithm, caches fill), then timed one launch at a time between CUDA events,
and the MEDIAN of the timed launches is written (with the 10th and 90th
percentiles beside it). Inputs are random (never zeros: they run faster),
and small GEMMs rotate through enough input copies to defeat the L2 cache,
as a training step's GEMMs find their operands in HBM.

Needs PyTorch with CUDA only to measure; `--dry-run` lists what would be
measured and needs neither (the tests use it). Example:

  python3 scripts/measure_kernels.py --out sweeps/ --budget 300
  shardc --format=json my.shard > my.json
  python3 scripts/measure_kernels.py --from-json my.json --only gemm --out mine/
"""
import argparse
import csv
import datetime
import json
import math
import os
import random
import statistics
import subprocess
import sys
import time
import traceback

# ---------------------------------------------------------------------------
# Shapes
# ---------------------------------------------------------------------------

# The dense transformers of shardc's examples and validation files: hidden
# E, FFN F, heads N, KV heads, head dim H, vocabulary V, tensor parallelism
# t, tokens per microbatch per model-parallel group, gated FFN (SwiGLU).
MODELS = [
    # name, E, F, N, KV, H, V, t, tokens, gated
    ("megatron-22b", 6144, 24576, 64, 64, 96, 51200, 8, 4 * 2048, False),
    ("megatron-175b", 12288, 49152, 96, 96, 128, 51200, 8, 2048, False),
    ("megatron-530b", 20480, 81920, 128, 128, 160, 51200, 8, 2048, False),
    ("megatron-1t", 25600, 102400, 160, 160, 160, 51200, 8, 2048, False),
    ("narayanan-1.7b", 2304, 9216, 24, 24, 96, 51200, 1, 16 * 2048, False),
    ("narayanan-3.6b", 3072, 12288, 32, 32, 96, 51200, 2, 16 * 2048, False),
    ("narayanan-7.5b", 4096, 16384, 32, 32, 128, 51200, 4, 16 * 2048, False),
    ("narayanan-18b", 6144, 24576, 48, 48, 128, 51200, 8, 8 * 2048, False),
    ("narayanan-39b", 8192, 32768, 64, 64, 128, 51200, 8, 4 * 2048, False),
    ("narayanan-76b", 10240, 40960, 80, 80, 128, 51200, 8, 2 * 2048, False),
    ("narayanan-310b", 16384, 65536, 128, 128, 128, 51200, 8, 2048, False),
    ("llama3-8b", 4096, 14336, 32, 8, 128, 128256, 1, 8192, True),
    ("llama3-70b", 8192, 28672, 64, 8, 128, 128256, 8, 8192, True),
    ("llama3-405b", 16384, 53248, 128, 8, 128, 128256, 8, 8192, True),
]


def ceil_div(a, b):
    return -(-a // b)


def model_gemms(name, e, f, n, kv, h, v, t, tokens, gated):
    """Forward, dgrad and wgrad GEMMs of one layer (and the head) per chip.

    Forward y[T, out] = x[T, in] . W[out, in]^T is a GEMM M = T, N = out,
    K = in ("nt", as torch's linear runs it). Its dgrad dx = dy . W is
    M = T, N = in, K = out ("nn"); its wgrad dW = dy^T . x is M = out,
    N = in, K = T ("tn").
    """
    qkv = (n + 2 * kv) * h // t
    proj_in = n * h // t
    ffn_out = (2 if gated else 1) * f // t
    projections = [
        ("qkv", e, qkv),
        ("attn-out", proj_in, e),
        ("fc1", e, ffn_out),
        ("fc2", f // t, e),
        ("head", e, ceil_div(v, t)),
    ]
    rows = []
    for proj, fan_in, fan_out in projections:
        base = f"{name}/{proj}"
        rows.append((tokens, fan_out, fan_in, 1, "nt", base + "/fwd"))
        rows.append((tokens, fan_in, fan_out, 1, "nn", base + "/dgrad"))
        rows.append((fan_out, fan_in, tokens, 1, "tn", base + "/wgrad"))
    # Unfused attention's two batched GEMMs per head: scores = Q K^T
    # (M = N = S, K = H) and context = P V (M = S, N = H, K = S).
    seq = 2048 if name.startswith(("megatron", "narayanan")) else 8192
    if seq * seq * (n // t) * (tokens // seq) * 2 <= 8 << 30:
        batch = (n // t) * max(1, tokens // seq)
        rows.append((seq, seq, h, batch, "nt", f"{name}/scores/fwd"))
        rows.append((seq, h, seq, batch, "nn", f"{name}/context/fwd"))
    return rows


def grid_gemms(count, seed):
    """A seeded spread of shapes for fitting: log-uniform M, N, K, half of
    them off the 128 grid, so that tile quantization shows."""
    rng = random.Random(seed)
    rows = []
    for i in range(count):
        dims = []
        for lo, hi in ((256, 32768), (256, 32768), (256, 32768)):
            x = int(math.exp(rng.uniform(math.log(lo), math.log(hi))))
            x = max(16, (x // 16) * 16) if i % 2 else max(128, (x // 128) * 128)
            dims.append(x)
        m, n, k = dims
        while 2.0 * m * n * k > 4e12:  # keep each launch under ~5 ms
            k = max(256, k // 2)
            if 2.0 * m * n * k > 4e12:
                m = max(256, m // 2)
        rows.append((m, n, k, 1, "nt", f"grid/{i}"))
    return rows


def json_gemms(path):
    """Every object with m, n and k in a shardc JSON report, wherever it sits
    (forward ops and backward GEMMs alike), in document order, labelled with
    the nearest enclosing `name`."""
    with open(path, encoding="utf-8") as fh:
        doc = json.load(fh)
    rows = []

    def walk(node, name):
        if isinstance(node, dict):
            name = str(node.get("name", name))
            if all(isinstance(node.get(key), int) for key in ("m", "n", "k")):
                batch = node.get("batch", 1) or 1
                rows.append((node["m"], node["n"], node["k"], batch, "nt",
                             f"{os.path.basename(path)}/{name}"))
            for value in node.values():
                walk(value, name)
        elif isinstance(node, list):
            for value in node:
                walk(value, name)

    walk(doc, "json")
    return rows


def csv_gemms(path):
    rows = []
    with open(path, encoding="utf-8", newline="") as fh:
        for line_no, rec in enumerate(csv.DictReader(fh), start=2):
            try:
                rows.append((int(rec["m"]), int(rec["n"]), int(rec["k"]),
                             int(rec.get("batch") or 1), "nt",
                             f"{os.path.basename(path)}:{line_no}"))
            except (KeyError, ValueError) as err:
                sys.exit(f"{path}:{line_no}: error: a shape row needs integer "
                         f"m, n, k (and optionally batch): {err}")
    return rows


def dedupe(rows):
    seen, out = set(), []
    for row in rows:
        key = row[:5]
        if key not in seen and all(x > 0 for x in row[:4]):
            seen.add(key)
            out.append(row)
    return out


# Serving: the models of the published serving runs shardc validates
# against (TensorRT-LLM v0.9's tables): name, E, F, N, KV, H, V, gated, and
# the tensor-parallel degrees they ran at.
SERVE_MODELS = [
    ("gptj-6b", 4096, 16384, 16, 16, 256, 50400, False, (1,)),
    ("llama-7b", 4096, 11008, 32, 32, 128, 32000, True, (1,)),
    ("llama-70b", 8192, 28672, 64, 8, 128, 32000, True, (1, 2, 4, 8)),
]
# A decode step's GEMM has M = the batch's tokens (2048: a prompt of
# 2,048 tokens, prefill at batch 1); 1 is bf16 only (fp8
# GEMMs take dims that are multiples of 16).
DECODE_TOKENS = (1, 16, 32, 64, 128, 256, 512, 1024, 2048)
DECODE_BATCH = (1, 16, 64, 256)
DECODE_CONTEXT = (256, 1024, 2048, 4096)


def decode_gemms():
    """(m, n, k, tp, label) of each projection of each serving model at
    each tensor-parallel degree and decode batch: y[T, out] = x[T, in] W^T,
    M = T, N = out, K = in, the weight sharded as Megatron shards it."""
    rows = []
    for name, e, f, n, kv, h, v, gated, tps in SERVE_MODELS:
        for t in tps:
            projections = [
                ("qkv", e, (n + 2 * kv) * h // t),
                ("attn-out", n * h // t, e),
                ("fc1", e, (2 if gated else 1) * f // t),
                ("fc2", f // t, e),
                ("head", e, ceil_div(v, t)),
            ]
            for proj, fan_in, fan_out in projections:
                for m in DECODE_TOKENS:
                    rows.append((m, fan_out, fan_in, t,
                                 f"{name}/tp{t}/{proj}/m{m}"))
    return rows


def decode_attentions():
    """(batch, query heads, kv heads, head dim, context, label) of one
    decode step's attention per chip."""
    rows, seen = [], set()
    for name, e, f, n, kv, h, v, gated, tps in SERVE_MODELS:
        for t in tps:
            heads, kv_heads = n // t, max(1, kv // t)
            for b in DECODE_BATCH:
                for s in DECODE_CONTEXT:
                    key = (b, heads, kv_heads, h, s)
                    # Two bf16 caches of at most 8 GiB.
                    if key in seen or 4 * b * kv_heads * s * h > 8 << 30:
                        continue
                    seen.add(key)
                    rows.append(key + (f"{name}/tp{t}/b{b}/s{s}",))
    return rows


ATTENTION = [
    # (sequence, head dim, causal): 16k tokens per batch and hidden 2048, the
    # setting of the FlashAttention-2 paper's kernel benchmarks.
    (s, d, c) for d in (64, 128) for s in (512, 1024, 2048, 4096, 8192, 16384)
    for c in (False, True)
]

ELEMENTWISE_SIZES = [(8192, 4096), (8192, 8192), (16384, 12288)]

# ---------------------------------------------------------------------------
# Timing (PyTorch from here on)
# ---------------------------------------------------------------------------


SLEEP_RATE = {}


def sleep_cycles_per_s(torch):
    """How many cycles of torch.cuda._sleep the GPU runs per second."""
    if "rate" not in SLEEP_RATE:
        torch.cuda._sleep(1000)
        e0, e1 = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        e0.record()
        torch.cuda._sleep(20_000_000)
        e1.record()
        torch.cuda.synchronize()
        SLEEP_RATE["rate"] = 20_000_000 / (e0.elapsed_time(e1) * 1e-3)
    return SLEEP_RATE["rate"]


def time_launches(torch, fn, target_s=0.03, warmup=3, lo=5, hi=100):
    """Median, p10 and p90 seconds of single launches timed with events,
    the launch count, and how many launches found the GPU idle.

    The GPU is held in a sleep kernel while the timed launches are queued,
    so each starts the moment the one before it ends and its events time
    the kernel, not the host's launch overhead (which a training step hides
    by running ahead of the GPU, or with CUDA graphs). A launch that still
    found the GPU idle before it (the queue ran dry) is counted as starved.
    """
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    fn()
    torch.cuda.synchronize()
    guess = max(time.perf_counter() - t0, 1e-6)
    iters = int(min(hi, max(lo, target_s / guess)))
    starts = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    ends = [torch.cuda.Event(enable_timing=True) for _ in range(iters)]
    # Enough sleep to queue every launch: ~100 us of host time each.
    torch.cuda._sleep(int(sleep_cycles_per_s(torch) * (2e-3 + 1e-4 * iters)))
    for i in range(iters):
        starts[i].record()
        fn()
        ends[i].record()
    torch.cuda.synchronize()
    times = sorted(s.elapsed_time(e) * 1e-3 for s, e in zip(starts, ends))
    starved = sum(ends[i].elapsed_time(starts[i + 1]) > 2e-3
                  for i in range(iters - 1))
    pick = lambda q: times[min(len(times) - 1, int(q * len(times)))]
    return statistics.median(times), pick(0.1), pick(0.9), iters, starved


class Writer:
    """A CSV written row by row and flushed, so a run stopped at its time
    limit still leaves what it measured."""

    def __init__(self, path, columns):
        self.fh = open(path, "w", encoding="utf-8", newline="")
        self.out = csv.DictWriter(self.fh, fieldnames=columns,
                                  lineterminator="\n")
        self.out.writeheader()
        self.count = 0

    def row(self, **values):
        self.out.writerow(values)
        self.fh.flush()
        self.count += 1


def rotation(nbytes, l2_bytes):
    """How many input copies keep the operands out of L2 between launches."""
    return int(min(16, max(1, ceil_div(3 * l2_bytes, max(nbytes, 1)))))


def gemm_runner(torch, m, n, k, batch, layout, dtype, l2_bytes):
    dev = "cuda"
    fp8 = dtype.startswith("fp8")
    store = torch.bfloat16
    elem = 1 if fp8 else 2
    copies = rotation(elem * batch * (m * k + n * k), l2_bytes)

    def rand(*shape):
        return torch.randn(*shape, device=dev, dtype=store)

    if fp8:
        a_type = torch.float8_e5m2 if dtype == "fp8_e5m2" else torch.float8_e4m3fn
        one = torch.tensor(1.0, device=dev, dtype=torch.float32)
        sets = [(rand(m, k).to(a_type), rand(n, k).to(torch.float8_e4m3fn))
                for _ in range(copies)]
        state = {"i": 0}

        def run():
            a, b = sets[state["i"] % copies]
            state["i"] += 1
            torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one,
                             out_dtype=torch.bfloat16)
        return run

    if batch > 1:
        sets = [(rand(batch, m, k), rand(batch, k, n)) for _ in range(copies)]
        op = torch.bmm
    elif layout == "nt":
        sets = [(rand(m, k), rand(n, k)) for _ in range(copies)]
        op = torch.nn.functional.linear
    elif layout == "nn":
        sets = [(rand(m, k), rand(k, n)) for _ in range(copies)]
        op = torch.matmul
    else:  # "tn": dW = dy^T . x with dy stored [K, M]
        sets = [(rand(k, m), rand(k, n)) for _ in range(copies)]
        op = lambda a, b: torch.matmul(a.t(), b)
    state = {"i": 0}

    def run():
        a, b = sets[state["i"] % copies]
        state["i"] += 1
        op(a, b)
    return run


def measure_gemms(torch, rows, dtypes, out_dir, deadline, log):
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    w = Writer(os.path.join(out_dir, "gemm.csv"),
               ["m", "n", "k", "batch", "dtype", "time_s", "p10_s", "p90_s",
                "iters", "starved", "tflops", "layout", "source", "label"])
    for dtype in dtypes:
        for m, n, k, batch, layout, label in rows:
            if time.time() > deadline:
                log(f"gemm: time budget spent, {dtype} stopped at {label}")
                break
            if dtype.startswith("fp8") and (batch > 1 or m % 16 or n % 16 or k % 16):
                continue  # _scaled_mm takes 2-D operands, dims multiple of 16
            try:
                run = gemm_runner(torch, m, n, k, batch, layout, dtype, l2)
                med, p10, p90, iters, starved = time_launches(torch, run)
                del run
            except Exception as err:  # one shape's failure is not the run's
                log(f"gemm {dtype} {label} {m}x{n}x{k}x{batch}: {err!r}")
                torch.cuda.empty_cache()
                continue
            flops = 2.0 * m * n * k * batch
            w.row(m=m, n=n, k=k, batch=batch, dtype=dtype.split("_")[0],
                  time_s=f"{med:.9g}", p10_s=f"{p10:.9g}", p90_s=f"{p90:.9g}",
                  iters=iters, starved=starved,
                  tflops=f"{flops / med / 1e12:.2f}",
                  layout=layout if dtype == "bf16" else dtype,
                  source="measure_kernels.py", label=label)
        torch.cuda.empty_cache()
    log(f"gemm: {w.count} rows")


def measure_attention(torch, out_dir, deadline, log):
    F = torch.nn.functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = [("flash", SDPBackend.FLASH_ATTENTION),
                ("cudnn", SDPBackend.CUDNN_ATTENTION)]
    w = Writer(os.path.join(out_dir, "attention.csv"),
               ["seq", "head_dim", "heads", "batch", "causal", "backend",
                "pass", "time_s", "p10_s", "p90_s", "flops_full",
                "flops_executed", "tflops_executed", "iters", "starved"])
    for seq, hd, causal in ATTENTION:
        if time.time() > deadline:
            log("attention: time budget spent")
            break
        heads, batch = 2048 // hd, max(1, 16384 // seq)
        # FLOPs of the two matmuls, forward: 4 b h s^2 d; causal executes half.
        full = 4.0 * batch * heads * seq * seq * hd
        executed = full / 2 if causal else full
        for bname, backend in backends:
            try:
                q, k, v = (torch.randn(batch, heads, seq, hd, device="cuda",
                                       dtype=torch.bfloat16, requires_grad=True)
                           for _ in range(3))
                with sdpa_kernel([backend]):
                    fwd = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                    out = fwd()
                    dout = torch.randn_like(out)
                    bwd = lambda: torch.autograd.grad(out, (q, k, v), dout,
                                                      retain_graph=True)
                    for pass_name, fn, mult in (("fwd", fwd, 1.0), ("bwd", bwd, 2.5)):
                        med, p10, p90, iters, starved = time_launches(
                            torch, fn, lo=5, hi=40)
                        w.row(seq=seq, head_dim=hd, heads=heads, batch=batch,
                              causal=int(causal), backend=bname, **{"pass": pass_name},
                              time_s=f"{med:.9g}", p10_s=f"{p10:.9g}",
                              p90_s=f"{p90:.9g}", flops_full=f"{full * mult:.6g}",
                              flops_executed=f"{executed * mult:.6g}",
                              tflops_executed=f"{executed * mult / med / 1e12:.2f}",
                              iters=iters, starved=starved)
                del q, k, v, out, dout
            except Exception as err:
                log(f"attention {bname} s={seq} d={hd} causal={causal}: {err!r}")
            torch.cuda.empty_cache()
    log(f"attention: {w.count} rows")


def elementwise_kernels(torch, rows, cols):
    """(name, bytes moved at the least, callable) for one tensor size."""
    F = torch.nn.functional
    bf, f32 = torch.bfloat16, torch.float32
    n = rows * cols
    x = torch.randn(rows, cols, device="cuda", dtype=bf)
    y = torch.randn(rows, cols, device="cuda", dtype=bf)
    g = torch.randn(cols, device="cuda", dtype=bf)
    b = torch.randn(cols, device="cuda", dtype=bf)
    xr = x.detach().clone().requires_grad_(True)
    ln = F.layer_norm(xr, (cols,), g, b)
    rms = F.rms_norm(xr, (cols,), g)
    ge = F.gelu(xr, approximate="tanh")
    dy = torch.randn_like(x)
    p32 = torch.randn(n, device="cuda", dtype=f32)
    master = torch.randn(n, device="cuda", dtype=f32)
    model = torch.empty(n, device="cuda", dtype=bf)
    params = [torch.nn.Parameter(torch.randn(n // 4, device="cuda", dtype=f32))
              for _ in range(4)]
    for p in params:
        p.grad = torch.randn_like(p)
    adam = torch.optim.AdamW(params, lr=1e-4, fused=True)
    adam.step()  # creates the moments
    grad = lambda out: (lambda: torch.autograd.grad(out, xr, dy, retain_graph=True))
    return [
        ("copy", 4 * n, lambda: x.clone()),
        ("add", 6 * n, lambda: x + y),
        ("gelu_fwd", 4 * n, lambda: F.gelu(x, approximate="tanh")),
        ("gelu_bwd", 6 * n, grad(ge)),
        ("silu_mul", 6 * n, lambda: F.silu(x) * y),
        ("dropout_fwd", 5 * n, lambda: F.dropout(x, 0.1, training=True)),
        ("layernorm_fwd", 4 * n, lambda: F.layer_norm(x, (cols,), g, b)),
        ("layernorm_bwd", 6 * n, grad(ln)),
        ("rmsnorm_fwd", 4 * n, lambda: F.rms_norm(x, (cols,), g)),
        ("rmsnorm_bwd", 6 * n, grad(rms)),
        ("softmax_fwd", 4 * n, lambda: torch.softmax(x, dim=-1)),
        ("zero_fill_fp32", 4 * n, lambda: p32.zero_()),
        ("sumsq_fp32", 4 * n, lambda: torch.linalg.vector_norm(master)),
        ("master_to_bf16", 6 * n, lambda: model.copy_(master)),
        ("adamw_fused_fp32", 28 * n, lambda: adam.step()),
    ]


def measure_elementwise(torch, out_dir, deadline, log):
    w = Writer(os.path.join(out_dir, "elementwise.csv"),
               ["kernel", "rows", "cols", "elements", "bytes", "time_s",
                "p10_s", "p90_s", "gbps", "iters", "starved"])
    for rows, cols in ELEMENTWISE_SIZES:
        if time.time() > deadline:
            log("elementwise: time budget spent")
            break
        try:
            kernels = elementwise_kernels(torch, rows, cols)
        except Exception as err:
            log(f"elementwise {rows}x{cols}: {err!r}")
            continue
        for name, nbytes, fn in kernels:
            try:
                med, p10, p90, iters, starved = time_launches(
                    torch, fn, lo=10, hi=100)
            except Exception as err:
                log(f"elementwise {name} {rows}x{cols}: {err!r}")
                continue
            w.row(kernel=name, rows=rows, cols=cols, elements=rows * cols,
                  bytes=nbytes, time_s=f"{med:.9g}", p10_s=f"{p10:.9g}",
                  p90_s=f"{p90:.9g}", gbps=f"{nbytes / med / 1e9:.1f}",
                  iters=iters, starved=starved)
        del kernels
        torch.cuda.empty_cache()
    log(f"elementwise: {w.count} rows")


def measure_decode_gemms(torch, dtypes, out_dir, deadline, log):
    """Serving's GEMMs: bytes = the weight, the activation read and the
    output written, at the GEMM's dtype (fp8: 1-byte weight and input, bf16
    output)."""
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 50 << 20)
    w = Writer(os.path.join(out_dir, "decode_gemm.csv"),
               ["m", "n", "k", "batch", "dtype", "time_s", "p10_s", "p90_s",
                "iters", "starved", "tflops", "bytes", "gbps", "tp", "label"])
    # Shape outer, dtype inner: a run cut short still has both dtypes.
    for m, n, k, tp, label in decode_gemms():
        if time.time() > deadline:
            log(f"decode gemm: time budget spent, stopped at {label}")
            break
        for dtype in [d for d in dtypes if d in ("bf16", "fp8_e4m3")]:
            if dtype.startswith("fp8") and (m % 16 or n % 16 or k % 16):
                continue
            elem = 1 if dtype.startswith("fp8") else 2
            nbytes = elem * (n * k + m * k) + 2 * m * n
            try:
                run = gemm_runner(torch, m, n, k, 1, "nt", dtype, l2)
                med, p10, p90, iters, starved = time_launches(torch, run)
                del run
            except Exception as err:
                log(f"decode gemm {dtype} {label} {m}x{n}x{k}: {err!r}")
                torch.cuda.empty_cache()
                continue
            w.row(m=m, n=n, k=k, batch=1, dtype=dtype.split("_")[0],
                  time_s=f"{med:.9g}", p10_s=f"{p10:.9g}", p90_s=f"{p90:.9g}",
                  iters=iters, starved=starved,
                  tflops=f"{2.0 * m * n * k / med / 1e12:.2f}", bytes=nbytes,
                  gbps=f"{nbytes / med / 1e9:.1f}", tp=tp, label=label)
    torch.cuda.empty_cache()
    log(f"decode gemm: {w.count} rows")


def measure_decode_attention(torch, out_dir, deadline, log):
    """One new query per sequence against a bf16 KV cache of `context`
    tokens (PyTorch's SDPA has no fp8 cache): bytes = both caches read plus
    q and the output; grouped heads through enable_gqa."""
    F = torch.nn.functional
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = [("flash", SDPBackend.FLASH_ATTENTION),
                ("efficient", SDPBackend.EFFICIENT_ATTENTION),
                ("cudnn", SDPBackend.CUDNN_ATTENTION)]
    w = Writer(os.path.join(out_dir, "decode_attention.csv"),
               ["batch", "heads", "kv_heads", "head_dim", "context", "backend",
                "time_s", "p10_s", "p90_s", "bytes", "gbps", "iters",
                "starved", "label"])
    failed = set()  # (backend, grouped): a backend that refused once
    for b, heads, kv_heads, hd, s, label in decode_attentions():
        if time.time() > deadline:
            log("decode attention: time budget spent")
            break
        nbytes = 2 * (2 * b * kv_heads * s * hd + 2 * b * heads * hd)
        try:
            q = torch.randn(b, heads, 1, hd, device="cuda", dtype=torch.bfloat16)
            k, v = (torch.randn(b, kv_heads, s, hd, device="cuda",
                                dtype=torch.bfloat16) for _ in range(2))
        except Exception as err:
            log(f"decode attention {label}: {err!r}")
            torch.cuda.empty_cache()
            continue
        for bname, backend in backends:
            if (bname, kv_heads != heads) in failed:
                continue
            try:
                with sdpa_kernel([backend]):
                    fn = lambda: F.scaled_dot_product_attention(
                        q, k, v, enable_gqa=kv_heads != heads)
                    med, p10, p90, iters, starved = time_launches(torch, fn)
            except Exception as err:
                log(f"decode attention {bname} {label}: {err!r}")
                failed.add((bname, kv_heads != heads))
                continue
            w.row(batch=b, heads=heads, kv_heads=kv_heads, head_dim=hd,
                  context=s, backend=bname, time_s=f"{med:.9g}",
                  p10_s=f"{p10:.9g}", p90_s=f"{p90:.9g}", bytes=nbytes,
                  gbps=f"{nbytes / med / 1e9:.1f}", iters=iters,
                  starved=starved, label=label)
        del q, k, v
        torch.cuda.empty_cache()
    log(f"decode attention: {w.count} rows")


def measure_kernel_floor(torch, out_dir, deadline, log):
    """The least a kernel costs, three ways: `queued` (one tiny kernel timed
    between events while the GPU runs the queue back to back: the kernel and
    the gap to the next), `graph` (a CUDA graph of 1,000 tiny kernels
    replayed: the time per kernel), `host` (1,000 launched from Python with
    no sync: PyTorch's host cost per launch, the floor an eager loop meets).
    Then decode-sized kernels (a norm, an add, SiLU-and-multiply on [B, E])
    queued, each a kernel a decode step runs per layer."""
    F = torch.nn.functional
    w = Writer(os.path.join(out_dir, "kernel_floor.csv"),
               ["kernel", "how", "rows", "cols", "time_s", "p10_s", "p90_s",
                "iters", "starved"])
    x = torch.ones(1, device="cuda", dtype=torch.float32)
    tiny = lambda: x.add_(1.0)
    med, p10, p90, iters, starved = time_launches(torch, tiny, lo=50, hi=200)
    w.row(kernel="add_1", how="queued", rows=1, cols=1, time_s=f"{med:.9g}",
          p10_s=f"{p10:.9g}", p90_s=f"{p90:.9g}", iters=iters, starved=starved)
    count = 1000
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            tiny()
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(count):
            tiny()
    per = []
    for _ in range(7):
        e0, e1 = (torch.cuda.Event(enable_timing=True) for _ in range(2))
        e0.record()
        graph.replay()
        e1.record()
        torch.cuda.synchronize()
        per.append(e0.elapsed_time(e1) * 1e-3 / count)
    per.sort()
    w.row(kernel="add_1", how="graph", rows=1, cols=1,
          time_s=f"{statistics.median(per):.9g}", p10_s=f"{per[0]:.9g}",
          p90_s=f"{per[-1]:.9g}", iters=7 * count, starved=0)
    per = []
    for _ in range(7):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(count):
            tiny()
        t1 = time.perf_counter()
        torch.cuda.synchronize()
        per.append((t1 - t0) / count)
    per.sort()
    w.row(kernel="add_1", how="host", rows=1, cols=1,
          time_s=f"{statistics.median(per):.9g}", p10_s=f"{per[0]:.9g}",
          p90_s=f"{per[-1]:.9g}", iters=7 * count, starved=0)
    for rows in (1, 64, 1024):
        if time.time() > deadline:
            log("kernel floor: time budget spent")
            break
        for cols in (4096, 8192):
            a = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
            c = torch.randn(rows, cols, device="cuda", dtype=torch.bfloat16)
            g = torch.randn(cols, device="cuda", dtype=torch.bfloat16)
            for name, fn in (("rmsnorm", lambda: F.rms_norm(a, (cols,), g)),
                             ("add", lambda: a + c),
                             ("silu_mul", lambda: F.silu(a) * c)):
                try:
                    med, p10, p90, iters, starved = time_launches(
                        torch, fn, lo=20, hi=100)
                except Exception as err:
                    log(f"kernel floor {name} {rows}x{cols}: {err!r}")
                    continue
                w.row(kernel=name, how="queued", rows=rows, cols=cols,
                      time_s=f"{med:.9g}", p10_s=f"{p10:.9g}",
                      p90_s=f"{p90:.9g}", iters=iters, starved=starved)
    log(f"kernel floor: {w.count} rows")


def command_output(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True,
                              timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError) as err:
        return f"unavailable: {err}"


def write_meta(torch, out_dir, args, started):
    props = torch.cuda.get_device_properties(0)
    meta = {
        "date_utc": started,
        "gpu": props.name,
        "sms": props.multi_processor_count,
        "memory_bytes": props.total_memory,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "nvidia_smi": command_output(
            ["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,"
             "clocks.max.sm,clocks.mem,power.limit,temperature.gpu",
             "--format=csv"]),
        "python": sys.version.split()[0],
        "argv": sys.argv[1:],
        "timing": "median of single launches between CUDA events after 3 "
                  "warm-ups, queued behind a sleep kernel so that host launch "
                  "overhead is not timed; random inputs; L2-defeating input "
                  "rotation",
    }
    try:
        import ctypes
        lib = ctypes.CDLL("libcublas.so." + str(torch.version.cuda).split(".")[0])
        ver = ctypes.c_int()
        lib.cublasGetProperty(0, ctypes.byref(ver))
        major = ver.value
        lib.cublasGetProperty(1, ctypes.byref(ver))
        minor = ver.value
        lib.cublasGetProperty(2, ctypes.byref(ver))
        meta["cublas"] = f"{major}.{minor}.{ver.value}"
    except Exception as err:
        meta["cublas"] = f"unavailable: {err!r}"
    with open(os.path.join(out_dir, "meta.json"), "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=2)
        fh.write("\n")
    return meta


def gemm_rows(args):
    rows = []
    if not args.no_models:
        for model in MODELS:
            rows += model_gemms(*model)
    rows += grid_gemms(args.grid, args.seed)
    for path in args.from_json or []:
        rows += json_gemms(path)
    for path in args.shapes or []:
        rows += csv_gemms(path)
    return dedupe(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="sweeps", help="folder for the CSVs")
    ap.add_argument("--budget", type=float, default=300,
                    help="seconds of measuring before the sweeps stop early")
    ap.add_argument("--only", choices=["gemm", "attention", "elementwise",
                                       "decode"],
                    action="append", help="measure only these (repeatable)")
    ap.add_argument("--dtypes", default="bf16,fp8_e4m3,fp8_e5m2",
                    help="GEMM dtypes: bf16, fp8_e4m3 (forward), fp8_e5m2 "
                         "(a gradient times an E4M3 weight)")
    ap.add_argument("--grid", type=int, default=160,
                    help="how many seeded grid shapes beside the models'")
    ap.add_argument("--seed", type=int, default=20261127)
    ap.add_argument("--no-models", action="store_true",
                    help="leave out the built-in models' shapes")
    ap.add_argument("--from-json", action="append",
                    help="a shardc JSON report whose GEMMs to measure")
    ap.add_argument("--shapes", action="append",
                    help="a CSV of m,n,k[,batch] rows to measure")
    ap.add_argument("--dry-run", action="store_true",
                    help="list what would be measured and stop (no GPU)")
    args = ap.parse_args()
    only = set(args.only or ["gemm", "attention", "elementwise", "decode"])
    rows = gemm_rows(args)
    dtypes = [d for d in args.dtypes.split(",") if d]
    for d in dtypes:
        if d not in ("bf16", "fp8_e4m3", "fp8_e5m2"):
            sys.exit(f"error: --dtypes: unknown dtype '{d}' "
                     "(bf16, fp8_e4m3 or fp8_e5m2)")
    if args.dry_run:
        if "gemm" in only:
            for m, n, k, batch, layout, label in rows:
                print(f"gemm {m} {n} {k} {batch} {layout} {label}")
            print(f"# {len(rows)} GEMM shapes x {len(dtypes)} dtypes")
        if "attention" in only:
            print(f"# {len(ATTENTION)} attention settings x 2 backends x fwd/bwd")
        if "elementwise" in only:
            print(f"# elementwise kernels at {len(ELEMENTWISE_SIZES)} sizes")
        if "decode" in only:
            for m, n, k, tp, label in decode_gemms():
                print(f"decode-gemm {m} {n} {k} {label}")
            for b, heads, kv_heads, hd, s, label in decode_attentions():
                print(f"decode-attention {b} {heads} {kv_heads} {hd} {s} {label}")
            print(f"# {len(decode_gemms())} decode GEMMs, "
                  f"{len(decode_attentions())} decode attentions, kernel floor")
        return 0
    try:
        import torch
    except ImportError:
        sys.exit("error: measuring needs PyTorch with CUDA (--dry-run does not)")
    if not torch.cuda.is_available():
        sys.exit("error: PyTorch sees no CUDA GPU")
    os.makedirs(args.out, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    deadline = time.time() + args.budget
    log_fh = open(os.path.join(args.out, "log.txt"), "w", encoding="utf-8")

    def log(msg):
        line = f"[{time.time() - (deadline - args.budget):7.1f}s] {msg}"
        print(line, flush=True)
        log_fh.write(line + "\n")
        log_fh.flush()

    # One small product first: cuBLAS loads lazily, and write_meta reads its
    # version from the loaded library.
    torch.ones(64, 64, device="cuda", dtype=torch.bfloat16) @ torch.ones(
        64, 64, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()
    meta = write_meta(torch, args.out, args, started)
    log(f"{meta['gpu']} ({meta['sms']} SMs), torch {meta['torch']}, "
        f"CUDA {meta['cuda']}, cuBLAS {meta['cublas']}")
    torch.manual_seed(args.seed)
    # Spread the budget: GEMMs first (the fit needs them most).
    steps = [("decode", "kernel floor", measure_kernel_floor, 0.05),
             ("decode", "decode attention", measure_decode_attention, 0.25),
             ("decode", "decode gemm",
              lambda t, o, e, l: measure_decode_gemms(t, dtypes, o, e, l), 0.5),
             ("elementwise", "elementwise", measure_elementwise, 0.10),
             ("attention", "attention", measure_attention, 0.25),
             ("gemm", "gemm", None, 1.0)]
    for group, name, fn, share in steps:
        if group not in only:
            continue
        end = min(deadline, time.time() + share * args.budget) if fn else deadline
        try:
            if fn:
                fn(torch, args.out, end, log)
            else:
                measure_gemms(torch, rows, dtypes, args.out, end, log)
        except Exception:
            log(f"{name}: failed\n{traceback.format_exc()}")
    log("done")
    return 0


if __name__ == "__main__":
    sys.exit(main())
