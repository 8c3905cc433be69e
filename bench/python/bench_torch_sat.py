#!/usr/bin/env python3
"""skss.sat on a torch CUDA tensor next to torch.cumsum twice, in one process.

For each size N (default 1K, 4K and 16K) an N x N float32 tensor x on the GPU:
  skss.sat          skss.sat(x, out=out), out preallocated (the Python package's
                    whole path: argument checks, the tensor's pointer and stream,
                    the C call on torch's current stream)
  torch.cumsum x2   torch.cumsum(torch.cumsum(x, 0, out=tmp), 1, out=res)
Two numbers each:
  device ms         median of runs, each between two CUDA events, queued behind
                    torch.cuda._sleep so the host's launch latency is not timed
                    (as bench/peers/gpu_peers.py times the same peer)
  host us/call      wall time a call takes to return while the GPU is busy with
                    a sleep (what a Python caller pays per call)
GB/s counts one read of x and one write of the table (8 bytes an element).
Checks first: skss's table against torch's (max |difference| over max |value|).

Usage: bench_torch_sat.py [--sizes 1024 4096 16384] [--runs 30] [--json FILE]
"""
import argparse
import json
import statistics
import sys
import time

import skss

SLEEP_CYCLES = 2_000_000  # ~1 ms of device clock: the head start of a batch
BATCH = 10


def device_ms(torch, fn, runs):
    fn()
    torch.cuda.synchronize()
    samples = []
    while len(samples) < runs:
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(min(BATCH, runs - len(samples)))]
        torch.cuda._sleep(SLEEP_CYCLES)
        for begin, end in events:
            begin.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        samples += [begin.elapsed_time(end) for begin, end in events]
    return statistics.median(samples)


def host_us(torch, fn, calls=50):
    """Seconds a call takes on the host while the GPU is busy (median of 5 rounds)."""
    rounds = []
    for _ in range(5):
        torch.cuda._sleep(SLEEP_CYCLES * 40)  # ~40 ms: the calls below only queue work
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        rounds.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(rounds)


def row(torch, n, runs):
    x = torch.rand(n, n, device="cuda", dtype=torch.float32)
    out = torch.empty_like(x)
    tmp, res = torch.empty_like(x), torch.empty_like(x)

    def ours():
        return skss.sat(x, out=out)

    def theirs():
        return torch.cumsum(torch.cumsum(x, 0, out=tmp), 1, out=res)

    ours()
    theirs()
    torch.cuda.synchronize()
    error = ((out - res).abs().max() / res.abs().max()).item()
    gbytes = 8.0 * n * n / 1e9
    r = {"n": n, "dtype": "float32", "rel_diff": error}
    for name, fn in (("skss", ours), ("torch", theirs)):
        ms = device_ms(torch, fn, runs)
        r[name] = {"device_ms": ms, "gb_per_s": gbytes / (ms * 1e-3), "host_us": host_us(torch, fn)}
    del x, out, tmp, res
    torch.cuda.empty_cache()
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 4096, 16384])
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--json", help="write the rows to this file")
    a = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("bench_torch_sat: needs torch")
    if not torch.cuda.is_available():
        sys.exit("bench_torch_sat: torch sees no CUDA device")
    rows = [row(torch, n, a.runs) for n in a.sizes]
    print(f"skss.sat vs torch.cumsum x2, float32 N x N, {torch.cuda.get_device_name()}, "
          f"torch {torch.__version__}, skss {skss.__version__}")
    print(f"{'N':>6} | {'skss ms':>8} {'GB/s':>7} {'host us':>8} | {'torch ms':>8} {'GB/s':>7} "
          f"{'host us':>8} | {'speedup':>7} | rel diff")
    for r in rows:
        s, t = r["skss"], r["torch"]
        print(f"{r['n']:>6} | {s['device_ms']:8.3f} {s['gb_per_s']:7.0f} {s['host_us']:8.1f} | "
              f"{t['device_ms']:8.3f} {t['gb_per_s']:7.0f} {t['host_us']:8.1f} | "
              f"{t['device_ms'] / s['device_ms']:6.2f}x | {r['rel_diff']:.1e}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "skss": skss.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
