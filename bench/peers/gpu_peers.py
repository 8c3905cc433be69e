#!/usr/bin/env python3
"""GPU-run peers of `skss bench`: torch.cumsum twice on the GPU, cv2.integral on the host.

`skss bench` (bench/bench_peers.c) runs this script instead of cpu_peers.py when
the cuda backend runs, with cpu_peers.py's arguments plus the GPU timing plan
(--gpu-min-time, --gpu-max-time, --gpu-min-runs, --gpu-max-runs). SAT specs
(sat:WxH:IN:OUT:LAYOUT) get:
  torch.cumsum x2   torch.cumsum(torch.cumsum(x, 0, out=tmp), 1, out=res) on the
                    GPU, outputs preallocated; each run between two CUDA events,
                    runs queued behind torch.cuda._sleep so the host's launch
                    latency is not timed (as bench_cuda.cu times ours)
  cv2.integral      on the host CPU with --threads threads, padded (its only
                    layout), the CPU plan
Compaction specs (compact:N:DTYPE:values|indices[:gtT]) get, besides NumPy on
the host (cpu_peers.py):
  torch x[x > t]    values, on the GPU, timed as above (torch syncs for the
                    count, as its users pay)
  torch.nonzero     indices of x > t, on the GPU
Other specs get cpu_peers.py's peers. Inputs come from cpu_peers.py's generator
(f64: 53 random bits, as bench_fill_unit_f64). Signatures are totals; u32 and
i32 tables report theirs modulo 2^32 as the C side stores them.
"""
import time
import types

import numpy as np

import cpu_peers as cp

TORCH = {"u32": "int32", "i32": "int32", "f32": "float32", "f64": "float64"}
SLEEP_CYCLES = 2_000_000  # ~1 ms of device clock: the head start of a batch
MAX_BATCH = 32


def unit_f64(n, seed):
    """Doubles in [0, 1) with 53 random bits (bench_fill_unit_f64)."""
    return cp.fill(n, seed, lambda z: (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)


def sat_input(seed, h, w, tin):
    if tin == "u8":
        return cp.image_u8(seed, h, w)
    if tin == "f64":
        return unit_f64(h * w, seed).reshape(h, w)
    return cp.unit_f32(h * w, seed).reshape(h, w)


def total(value, tout):
    """A table's last element as the bench stores it (integers modulo 2^32)."""
    if tout == "u32":
        return int(value) & 0xFFFFFFFF
    if tout == "i32":
        return (int(value) + 2 ** 31) % 2 ** 32 - 2 ** 31
    return float(value)


def time_gpu(torch, fn, plan, max_runs):
    """Warm-up, then batches of 1, 2, 4, ... 32 runs, each between two events."""
    fn()
    torch.cuda.synchronize()
    samples, start, batch = [], time.perf_counter(), 1
    while len(samples) < max_runs and not plan.done(len(samples), time.perf_counter() - start):
        n = min(batch, max_runs - len(samples))
        events = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(n)]
        torch.cuda._sleep(SLEEP_CYCLES)
        for begin, end in events:
            begin.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        samples += [begin.elapsed_time(end) * 1e-3 for begin, end in events]
        batch = min(2 * batch, MAX_BATCH)
    return cp.stats(samples, 0.0)


def torch_peer(spec, img, tout, a, nbytes):
    name = "torch.cumsum x2"
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch sees no CUDA device")
        dt = getattr(torch, TORCH[tout])
        x = torch.from_numpy(img).cuda()
        tmp, res = torch.empty(x.shape, dtype=dt, device="cuda"), torch.empty(x.shape, dtype=dt, device="cuda")

        def fn():
            return torch.cumsum(torch.cumsum(x, 0, dtype=dt, out=tmp), 1, out=res)

        fn()
        torch.cuda.synchronize()
        signature = [total(res[-1, -1].item(), tout), 0]
        gpu_plan = cp.Plan(types.SimpleNamespace(min_time=a.gpu_min_time, max_time=a.gpu_max_time,
                                                 min_runs=a.gpu_min_runs, repeat=a.repeat))
        st = time_gpu(torch, fn, gpu_plan, a.repeat if a.repeat > 0 else a.gpu_max_runs)
        del x, tmp, res
        torch.cuda.empty_cache()
        return cp.row(spec, name, 0, signature=signature, bytes=nbytes, device="gpu", **st)
    except Exception as exc:  # a missing or failing peer is a result, not a crash
        return {**cp.failed(spec, name, exc, 0), "device": "gpu"}


def cv2_peer(spec, img, tout, a, plan):
    name = "cv2.integral"
    try:
        import cv2
        cv2.setNumThreads(a.threads)
        h, w = img.shape
        depth, dt = {"u32": (cv2.CV_32S, np.int32), "i32": (cv2.CV_32S, np.int32),
                     "f32": (cv2.CV_32F, np.float32), "f64": (cv2.CV_64F, np.float64)}[tout]
        res = np.empty((h + 1, w + 1), dt)
        nbytes = float(img.nbytes + res.nbytes)
        return cp.measured(spec, name, lambda: cv2.integral(img, res, sdepth=depth),
                           lambda out: [total(out[-1, -1], tout), 0], plan, a.threads, nbytes,
                           message="padded table, host CPU")
    except Exception as exc:
        return cp.failed(spec, name, exc, a.threads)


def sat_peers(spec, fields, a, plan):
    (w, h), tin, tout = map(int, fields[0].split("x")), fields[1], fields[2]
    img = sat_input(a.seed, h, w, tin)
    nbytes = float(img.nbytes + h * w * np.dtype(TORCH[tout]).itemsize)
    return [torch_peer(spec, img, tout, a, nbytes), cv2_peer(spec, img, tout, a, plan)]


TORCH_COMPACT = {"u8": "uint8", "i8": "int8", "u16": "uint16", "i16": "int16", "u32": "uint32",
                 "i32": "int32", "u64": "uint64", "i64": "int64", "f32": "float32", "f64": "float64"}


def torch_compact_peer(spec, fields, a):
    """x[x > t] (values) or torch.nonzero(x > t) (indices) on the GPU; the
    signature is the kept count and the sum of kept indices, as the C side's."""
    n, dtype, what = int(fields[0]), fields[1], fields[2]
    name = "torch.nonzero" if what == "indices" else "torch x[x > t]"
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("torch sees no CUDA device")
        data = cp.compact_input(n, a.seed, dtype)
        t = fields[3][2:] if len(fields) > 3 else ("0.5" if dtype == "f32" else "0")
        x = torch.from_numpy(data).cuda()
        tt = torch.tensor(data.dtype.type(float(t) if dtype in ("f32", "f64") else int(t)), device="cuda")
        if what == "indices":
            def fn():
                return torch.nonzero(x > tt).squeeze(1)
        else:
            def fn():
                return x[x > tt]
        kept = torch.nonzero(x > tt).squeeze(1)
        signature = [int(kept.numel()), int(kept.sum().item()) if kept.numel() else 0]
        out_elem = 8 if what == "indices" else data.itemsize
        nbytes = float(data.nbytes + kept.numel() * out_elem)
        del kept
        gpu_plan = cp.Plan(types.SimpleNamespace(min_time=a.gpu_min_time, max_time=a.gpu_max_time,
                                                 min_runs=a.gpu_min_runs, repeat=a.repeat))
        st = time_gpu(torch, fn, gpu_plan, a.repeat if a.repeat > 0 else a.gpu_max_runs)
        del x, tt
        torch.cuda.empty_cache()
        return cp.row(spec, name, 0, signature=signature, bytes=nbytes, device="gpu", **st)
    except Exception as exc:  # a missing torch or an unsupported dtype is a result, not a crash
        return {**cp.failed(spec, name, exc, 0), "device": "gpu"}


def main():
    ap = cp.arg_parser(__doc__.splitlines()[0])
    ap.add_argument("--gpu-min-time", type=float, default=0.1)
    ap.add_argument("--gpu-max-time", type=float, default=2.0)
    ap.add_argument("--gpu-min-runs", type=int, default=10)
    ap.add_argument("--gpu-max-runs", type=int, default=1000)
    a = cp.parse_args(ap)
    plan, cache, results = cp.Plan(a), {}, []
    for spec in a.case:
        kind, *fields = spec.split(":")
        try:
            results.extend(sat_peers(spec, fields, a, plan) if kind == "sat" else cp.run_case(spec, a, plan, cache))
            if kind == "compact":
                results.append(torch_compact_peer(spec, fields, a))
        except Exception as exc:  # one broken case must not lose the others
            results.append(cp.failed(spec, kind, exc))
    try:
        import torch
        extra = {"torch": torch.__version__}
    except Exception:
        extra = {"torch": None}
    cp.answer(results, extra)


if __name__ == "__main__":
    main()
