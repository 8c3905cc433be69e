#!/usr/bin/env python3
"""CPU peers of `skss bench`: Pillow, OpenCV, OR-Tools, mknapsack, NumPy and parasail on the bench's cases.

`skss bench` (bench/bench_peers.c) runs this script once with every case's spec,
the seed, the thread count and the timing plan, and reads one JSON document
from stdout. The inputs are rebuilt here with the generator of
bench/bench_data.c (the splitmix64 finaliser of seed and index), so both sides
time the same data; every peer also reports a signature of its own result (a
total, a count, an optimum) that the bench compares with its own.

Specs:
  sat:WxH:IN:OUT:LAYOUT       cv2.integral (padded) at 1 and --threads threads,
                              NumPy cumsum(cumsum(a, 0), 1) (inclusive)
  halftone:WxH:KERNEL         Pillow Image.convert('1') (Floyd-Steinberg only)
  knapsack:N:C:value|items[:wLO-HI:vLO-HI][:xB]
                              OR-Tools' DP, divide-and-conquer and branch-and-bound
                              solvers (they always return the items); without the
                              ranges the strongly correlated class, with them
                              uniform weights and values (suite knapsack-papers),
                              xB: a batch of B instances solved one after another;
  knapsack:N:C:items:kCLASS-R Pisinger's class CLASS (unc, weak, strong, inv,
                              almost, subset) with weights in [1, R] (suite
                              knapsack-classes): OR-Tools and mknapsack's MT1
                              and MT2 (exact), the latter in their own
                              interpreter (mknapsack_peer.py)
  compact:N:DTYPE:values|indices[:gtT]
                              NumPy a[a > x] / np.nonzero(a > x); x = T when
                              given (suite compact-papers: every dtype, the
                              element's top bits of the hash word for integers,
                              [0, 1) for floats), else 0.5 (f32) or 0 (i32)

  align:N:score|trace         parasail's nw_scan_32 (score) and nw_trace_scan_32
                              (traceback: it keeps the whole N x M table, so only
                              up to ALIGN_TRACE_MAX letters), one thread: parasail
                              aligns one pair on one core; a call expected to take
                              over ALIGN_LIMIT_S is not started

A peer whose module is missing is reported with status "unavailable"; a solver
that runs past its limit with status "timeout". The script never fails on a
peer: its exit status is 0 unless its own arguments are wrong.
"""
import argparse
import json
import multiprocessing
import os
import platform
import subprocess
import sys
import time

import numpy as np

GAMMA = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
CHUNK = 1 << 22


# ---- inputs: the same values as bench/bench_data.c ---------------------------

def hash_range(seed, start, stop):
    """bench_hash(seed, k) for k in [start, stop), as uint64."""
    z = np.uint64(seed) + (np.arange(start, stop, dtype=np.uint64) + np.uint64(1)) * GAMMA
    z ^= z >> np.uint64(30)
    z *= MIX1
    z ^= z >> np.uint64(27)
    z *= MIX2
    z ^= z >> np.uint64(31)
    return z


def image_u8(seed, h, w):
    """Diagonal gradient plus noise in [-16, 15], clamped (bench_fill_image_u8)."""
    out = np.empty((h, w), np.uint8)
    gx = np.arange(w, dtype=np.int64) * 255 // max(w - 1, 1)
    rows = max(1, CHUNK // max(w, 1))
    for y0 in range(0, h, rows):
        y1 = min(h, y0 + rows)
        noise = (hash_range(seed, y0 * w, y1 * w) >> np.uint64(59)).astype(np.int64).reshape(y1 - y0, w) - 16
        gy = np.arange(y0, y1, dtype=np.int64) * 255 // max(h - 1, 1)
        out[y0:y1] = np.clip((gx[None, :] + gy[:, None]) // 2 + noise, 0, 255)
    return out


def fill(n, seed, convert):
    """n values from the hash stream, converted chunk by chunk."""
    parts = [convert(hash_range(seed, k, min(n, k + CHUNK))) for k in range(0, n, CHUNK)]
    return np.concatenate(parts) if parts else convert(hash_range(seed, 0, 0))


def unit_f32(n, seed):
    """Floats in [0, 1) with 24 random bits (bench_fill_unit_f32)."""
    return fill(n, seed, lambda z: (z >> np.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24))


def int32s(n, seed):
    """Integers uniform over int32 (bench_fill_i32)."""
    return fill(n, seed, lambda z: (z >> np.uint64(32)).astype(np.uint32).view(np.int32))


def knapsack_items(seed, n, capacity):
    """Strongly correlated items: w in [1, R], v = w + R/10, R = 4C/n - 1."""
    r = max(1, 4 * capacity // n - 1)
    w = (np.uint64(1) + hash_range(seed, 0, n) % np.uint64(r)).astype(np.int64)
    return w.tolist(), (w + r // 10).tolist()


def knapsack_uniform_items(seed, n, instances, weights, values):
    """Uniform weights in [lo, hi] from the high 32 bits of item k's word and
    values from its low 32 bits, k over the whole batch (knapsack_fill_uniform
    of bench/bench_knapsack.c); one (weights, values) pair per instance."""
    z = fill(n * instances, seed, lambda h: h)
    (wlo, whi), (vlo, vhi) = weights, values
    w = (np.uint64(wlo) + (z >> np.uint64(32)) % np.uint64(whi - wlo + 1)).astype(np.int64)
    v = (np.uint64(vlo) + (z & np.uint64(0xFFFFFFFF)) % np.uint64(vhi - vlo + 1)).astype(np.int64)
    w, v = w.reshape(instances, n), v.reshape(instances, n)
    return [(w[k].tolist(), v[k].tolist()) for k in range(instances)]


def knapsack_class_items(seed, n, klass, r):
    """Pisinger's class `klass` with weights in [1, r] (class_item of
    bench/bench_knapsack.c): a, b = the high and low 32 bits of item k's word."""
    z = hash_range(seed, 0, n)
    a = (z >> np.uint64(32)).astype(np.int64)
    b = (z & np.uint64(0xFFFFFFFF)).astype(np.int64)
    tenth, small = r // 10, r // 500
    w = 1 + a % r
    if klass == "unc":
        v = 1 + b % r
    elif klass == "weak":
        v = np.maximum(w - tenth + b % (2 * tenth + 1), 1)
    elif klass == "strong":
        v = w + tenth
    elif klass == "inv":
        v = 1 + a % r
        w = v + tenth
    elif klass == "almost":
        v = w + tenth - small + b % (2 * small + 1)
    elif klass == "subset":
        v = w.copy()
    else:
        raise ValueError(f"knapsack class {klass!r}")
    return w.tolist(), v.tolist()


def knapsack_spec(fields):
    """(n, capacity, instances, ranges, klass) of a knapsack spec's fields
    after the mode: "wLO-HI" and "vLO-HI" ranges (None: the strongly
    correlated class of suite knapsack), "xB" for a batch, "kCLASS-R" for
    one of Pisinger's classes (suite knapsack-classes)."""
    n, capacity, instances, ranges, klass = int(fields[0]), int(fields[1]), 1, {}, None
    for f in fields[3:]:
        if f[0] == "x":
            instances = int(f[1:])
        elif f[0] in "wv":
            lo, hi = f[1:].split("-")
            ranges[f[0]] = (int(lo), int(hi))
        elif f[0] == "k":
            name, r = f[1:].rsplit("-", 1)
            klass = (name, int(r))
        else:
            raise ValueError(f"knapsack spec field {f!r}")
    return n, capacity, instances, (ranges["w"], ranges["v"]) if ranges else None, klass


# ---- timing: the plan of bench/bench_timing.c --------------------------------

class Plan:
    def __init__(self, a):
        self.min_time, self.max_time = a.min_time, a.max_time
        self.min_runs, self.repeat = a.min_runs, a.repeat

    def done(self, runs, elapsed):
        if self.repeat > 0:
            return runs >= self.repeat
        if runs >= 1 and elapsed >= self.max_time:
            return True
        return runs >= self.min_runs and elapsed >= self.min_time


def stats(samples, cpu_s):
    """Median, minimum, p90 (nearest rank) and the cores kept busy (CPU / wall)."""
    s = sorted(samples)
    n = len(s)
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    return {"median_s": median, "min_s": s[0], "p90_s": s[(9 * n + 9) // 10 - 1], "runs": n,
            "cores_used": cpu_s / sum(s) if sum(s) > 0 else 0.0}


def time_call(fn, plan):
    """Runs fn once (its result is returned for the signature) as the warm-up,
    then times it under the plan. A warm-up longer than the plan's limit is the
    only sample: a peer that slow is not worth a second run."""
    t0, c0 = time.perf_counter(), time.process_time()
    result = fn()
    first = time.perf_counter() - t0
    if plan.repeat <= 0 and first >= plan.max_time:
        return result, stats([first], time.process_time() - c0)
    samples, start, c0 = [], time.perf_counter(), time.process_time()
    while not plan.done(len(samples), time.perf_counter() - start):
        t0 = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - t0)
    return result, stats(samples, time.process_time() - c0)


def row(spec, peer, threads=1, **fields):
    out = {"case": spec, "peer": peer, "threads": threads, "status": "ok", "message": ""}
    out.update(fields)
    return out


def failed(spec, peer, exc, threads=1):
    status = "unavailable" if isinstance(exc, ImportError) else "error"
    return row(spec, peer, threads, status=status, message=f"{type(exc).__name__}: {exc}"[:200])


def measured(spec, peer, fn, signature, plan, threads=1, nbytes=0.0, **extra):
    result, st = time_call(fn, plan)
    return row(spec, peer, threads, signature=signature(result), bytes=nbytes, **st, **extra)


# ---- the peers -----------------------------------------------------------------

DTYPES = {"u8": np.uint8, "i32": np.int32, "f32": np.float32, "f64": np.float64}


def sat_peers(spec, fields, a, plan):
    (w, h), tin, tout, layout = map(int, fields[0].split("x")), fields[1], fields[2], fields[3]
    img = image_u8(a.seed, h, w) if tin == "u8" else unit_f32(h * w, a.seed).reshape(h, w)
    out_elems = (h + 1) * (w + 1) if layout == "padded" else h * w
    nbytes = float(img.nbytes + out_elems * np.dtype(DTYPES[tout]).itemsize)
    last = lambda out: [float(out[-1, -1]), 0]
    if layout == "inclusive":
        dt = DTYPES[tout]
        # Outputs are preallocated, as ours are: the peers are timed on the
        # computation, not on faulting in fresh pages for each result.
        tmp, res = np.empty((h, w), dt), np.empty((h, w), dt)
        return [measured(spec, "numpy cumsum",
                         lambda: np.cumsum(np.cumsum(img, 0, dtype=dt, out=tmp), 1, dtype=dt, out=res),
                         last, plan, nbytes=nbytes)]
    rows = []
    for threads in sorted({1, a.threads}):
        try:
            import cv2
            cv2.setNumThreads(threads)
            depth = {"i32": cv2.CV_32S, "f32": cv2.CV_32F, "f64": cv2.CV_64F}[tout]
            res = np.empty((h + 1, w + 1), DTYPES[tout])
            rows.append(measured(spec, "cv2.integral", lambda: cv2.integral(img, res, sdepth=depth), last,
                                 plan, threads, nbytes))
        except Exception as exc:  # a missing or failing peer is a result, not a crash
            rows.append(failed(spec, "cv2.integral", exc, threads))
    return rows


def white_signature(img):
    bits = np.asarray(img).reshape(-1) != 0
    return [int(bits.sum()), int(np.flatnonzero(bits).sum())]


def halftone_peers(spec, fields, a, plan):
    (w, h), kernel = map(int, fields[0].split("x")), fields[1]
    if kernel != "fs":
        return []
    try:
        from PIL import Image
        src = Image.fromarray(image_u8(a.seed, h, w))
        return [measured(spec, "pillow convert('1')", lambda: src.convert("1"), white_signature, plan,
                         nbytes=2.0 * w * h)]
    except Exception as exc:
        return [failed(spec, "pillow convert('1')", exc)]


KNAPSACK_SOLVERS = [("ortools dp", "KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER"),
                    ("ortools divide&conquer", "KNAPSACK_DIVIDE_AND_CONQUER_SOLVER"),
                    ("ortools branch&bound", "KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER")]


def knapsack_child(conn, solver_type, instances, capacity, plan, bb_limit):
    """Runs in a child process so a solver that takes too long can be stopped.
    A batch is solved instance after instance; its optimum is the sum."""
    from ortools.algorithms.python import knapsack_solver as ks
    solver = ks.KnapsackSolver(getattr(ks.SolverType, solver_type), "skss-bench")
    solver.set_time_limit(bb_limit)
    optimal = [True]

    def solve():
        total, optimal[0] = 0, True
        for weights, values in instances:
            solver.init(values, [weights], [capacity])
            total += solver.solve()
            optimal[0] = optimal[0] and bool(solver.is_solution_optimal())
        return total

    best, st = time_call(solve, plan)
    conn.send((best, st, optimal[0]))


def knapsack_solver_row(name, solver_type, items, capacity, plan, a):
    ctx = multiprocessing.get_context("fork")
    recv, send = ctx.Pipe(duplex=False)
    child = ctx.Process(target=knapsack_child,
                        args=(send, solver_type, items, capacity, plan, a.bb_time_limit))
    child.start()
    got = recv.poll(a.solver_limit)
    if not got:
        child.kill()
        child.join()
        return {"peer": name, "status": "timeout",
                "message": f"stopped after {a.solver_limit:g} s (one solve takes longer)"}
    best, st, optimal = recv.recv()
    child.join()
    note = "" if optimal else f"stopped at its {a.bb_time_limit:g} s time limit"
    return {"peer": name, "status": "ok", "message": note, "signature": [best, 0], "optimal": optimal,
            "bytes": 0.0, **st}


def knapsack_peers(spec, fields, a, plan, cache):
    """The value-only and with-items cases share an instance (OR-Tools always
    returns the items), so each instance is solved once; a solver that ran
    out of time on a smaller table (fewer cells over the batch) is not
    started on a larger one."""
    n, capacity, instances, ranges, klass = knapsack_spec(fields)
    try:
        import ortools  # noqa: F401  (only to report a missing module as unavailable)
    except Exception as exc:
        return [failed(spec, name, exc) for name, _ in KNAPSACK_SOLVERS]
    key, cells = ("knapsack",) + tuple(fields[:2] + fields[3:]), n * capacity * instances
    if key not in cache:
        if klass is not None:
            items = [knapsack_class_items(a.seed, n, *klass)]
        elif ranges is None:
            items = [knapsack_items(a.seed, n, capacity)]
        else:
            items = knapsack_uniform_items(a.seed, n, instances, *ranges)
        rows = []
        classes = klass is not None
        for name, solver_type in KNAPSACK_SOLVERS:
            # a solver's time grows with the cells only for the DP: on the
            # classes suite the others are started on every instance
            timed_out_at = cache.get(("timeout", name))
            if (not classes or name == "ortools dp") and timed_out_at is not None and timed_out_at <= cells:
                rows.append({"peer": name, "status": "timeout",
                             "message": f"not started: over {a.solver_limit:g} s on a smaller table"})
                continue
            rows.append(knapsack_solver_row(name, solver_type, items, capacity, plan, a))
            if rows[-1]["status"] == "timeout":
                cache[("timeout", name)] = cells
        if klass is not None:
            rows += mknapsack_rows(items[0], capacity, a)
        cache[key] = rows
    return [row(spec, r["peer"], **{k: v for k, v in r.items() if k != "peer"}) for r in cache[key]]


MKNAPSACK_METHODS = [("mknapsack mt1", "mt1"), ("mknapsack mt2", "mt2")]


def mknapsack_python(a):
    """The interpreter that has mknapsack: its wheels need NumPy 1, so
    scripts/deps.sh installs it in a virtual environment of its own
    (.venv-mknapsack); SKSS_MKNAPSACK_PYTHON overrides."""
    env = os.environ.get("SKSS_MKNAPSACK_PYTHON")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(here, "..", "..", ".venv-mknapsack", "bin", "python")


def mknapsack_rows(items, capacity, a):
    """Martello and Toth's MT1 (branch and bound) and MT2 (exact) through
    mknapsack_peer.py in mknapsack's own interpreter, each stopped after the
    solver limit."""
    weights, values = items
    python = mknapsack_python(a)
    here = os.path.dirname(os.path.abspath(__file__))
    rows = []
    for name, method in MKNAPSACK_METHODS:
        if not os.path.exists(python):
            rows.append({"peer": name, "status": "unavailable",
                         "message": f"no mknapsack interpreter at {python} (scripts/deps.sh makes it)"})
            continue
        job = {"weights": weights, "values": values, "capacity": capacity, "method": method,
               "plan": {"min_time": a.min_time, "max_time": a.max_time, "min_runs": a.min_runs,
                        "repeat": a.repeat}}
        try:
            done = subprocess.run([python, os.path.join(here, "mknapsack_peer.py")], input=json.dumps(job),
                                  capture_output=True, text=True, timeout=a.solver_limit)
        except subprocess.TimeoutExpired:
            rows.append({"peer": name, "status": "timeout",
                         "message": f"stopped after {a.solver_limit:g} s (one solve takes longer)"})
            continue
        try:
            res = json.loads(done.stdout)
        except ValueError:
            rows.append({"peer": name, "status": "error", "message": (done.stderr or "no output")[-200:]})
            continue
        if res.get("status") != "ok":
            rows.append({"peer": name, "status": res.get("status", "error"), "message": res.get("message", "")})
            continue
        rows.append({"peer": name, "status": "ok", "message": "", "signature": [res["best"], 0],
                     "optimal": True, "bytes": 0.0, **res["stats"]})
    return rows


ALIGN_LETTERS = np.frombuffer(b"ACGT", np.uint8)
ALIGN_MUTATION_SALT = 0xA11C
ALIGN_TRACE_MAX = 12000
ALIGN_LIMIT_S = 60.0
ALIGN_PEER_RATE = 1.0e9  # cells/s parasail's scan reaches on one core here or better


def align_pair(seed, n):
    """align_fill of bench/bench_align.c: a random DNA sequence and its copy
    with deletions, insertions and substitutions (about 10%)."""
    a = ALIGN_LETTERS[(hash_range(seed, 0, n) >> np.uint64(62)).astype(np.int64)]
    w = hash_range((seed + ALIGN_MUTATION_SALT) & 0xFFFFFFFFFFFFFFFF, 0, n)
    u = (w % np.uint64(300)).astype(np.int64)
    inserted = ALIGN_LETTERS[((w >> np.uint64(32)) & np.uint64(3)).astype(np.int64)]
    replaced = ALIGN_LETTERS[((w >> np.uint64(34)) & np.uint64(3)).astype(np.int64)]
    kept = np.where((u >= 20) & (u < 30), replaced, a)
    pairs = np.stack([inserted, kept], axis=1)
    mask = np.stack([(u >= 10) & (u < 20), u >= 10], axis=1)
    return a.tobytes().decode(), pairs[mask].tobytes().decode()


def align_peers(spec, fields, a, plan, cache):
    n, what = int(fields[0]), fields[1]
    name = "parasail nw_trace_scan_32" if what == "trace" else "parasail nw_scan_32"
    try:
        import parasail
    except Exception as exc:
        return [failed(spec, name, exc)]
    if ("align", n) not in cache:
        cache[("align", n)] = align_pair(a.seed, n)
    x, y = cache[("align", n)]
    cells = float(len(x)) * len(y)
    if what == "trace" and n > ALIGN_TRACE_MAX:
        return [row(spec, name, status="unavailable",
                    message=f"parasail's traceback keeps the whole table ({cells / 1e9:.0f} G cells); "
                            f"run up to {ALIGN_TRACE_MAX} letters")]
    if cells / ALIGN_PEER_RATE > ALIGN_LIMIT_S:
        return [row(spec, name, status="timeout",
                    message=f"not started: about {cells / ALIGN_PEER_RATE:.0f} s a call on one core "
                            f"(limit {ALIGN_LIMIT_S:g} s)")]
    matrix = parasail.matrix_create("ACGT", 2, -3)
    fn = parasail.nw_trace_scan_32 if what == "trace" else parasail.nw_scan_32
    return [measured(spec, name, lambda: fn(x, y, 5, 2, matrix).score, lambda r: [r, 0], plan,
                     message="one thread: parasail aligns a pair on one core")]


COMPACT_INTS = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
                "i32": np.int32, "u64": np.uint64, "i64": np.int64}


def compact_input(n, seed, dtype):
    """compact_fill of bench/bench_compact.c: floats in [0, 1) (53 random bits
    for f64), integers the top bits of the hash word (signed: the same bits)."""
    if dtype == "f32":
        return unit_f32(n, seed)
    if dtype == "f64":
        return fill(n, seed, lambda z: (z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53)
    t = np.dtype(COMPACT_INTS[dtype])
    unsigned = np.dtype(f"u{t.itemsize}")
    return fill(n, seed, lambda z: (z >> np.uint64(64 - 8 * t.itemsize)).astype(unsigned).view(t))


def compact_peers(spec, fields, a, plan):
    n, dtype, what = int(fields[0]), fields[1], fields[2]
    data = compact_input(n, a.seed, dtype)
    if len(fields) > 3:  # "gtT": the threshold as the data's type (f32: rounded to nearest, as ours)
        if not fields[3].startswith("gt"):
            raise ValueError(f"compact spec field {fields[3]!r}")
        t = fields[3][2:]
        x = data.dtype.type(float(t) if dtype in ("f32", "f64") else int(t))
    else:
        x = np.float32(0.5) if dtype == "f32" else np.int32(0)
    kept = np.flatnonzero(data > x)
    signature = [int(kept.size), int(kept.sum())]
    out_elem = 8 if what == "indices" else data.itemsize
    nbytes = float(data.nbytes + kept.size * out_elem)
    del kept
    if what == "indices":
        return [measured(spec, "numpy nonzero", lambda: np.nonzero(data > x)[0], lambda r: signature, plan,
                         nbytes=nbytes)]
    return [measured(spec, "numpy a[a > x]", lambda: data[data > x], lambda r: signature, plan,
                     nbytes=nbytes)]


def run_case(spec, a, plan, cache):
    kind, *fields = spec.split(":")
    try:
        if kind == "sat":
            return sat_peers(spec, fields, a, plan)
        if kind == "halftone":
            return halftone_peers(spec, fields, a, plan)
        if kind == "knapsack":
            return knapsack_peers(spec, fields, a, plan, cache)
        if kind == "compact":
            return compact_peers(spec, fields, a, plan)
        if kind == "align":
            return align_peers(spec, fields, a, plan, cache)
    except Exception as exc:  # one broken case must not lose the others
        return [failed(spec, kind, exc)]
    return []


def versions():
    out = {"numpy": np.__version__}
    for name, module in (("pillow", "PIL"), ("opencv", "cv2"), ("ortools", "ortools"), ("parasail", "parasail")):
        try:
            out[name] = __import__(module).__version__
        except Exception:
            out[name] = None
    return out


def arg_parser(description):
    """The arguments bench/bench_peers.c passes (gpu_peers.py adds its own)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--case", action="append", default=[], help="a case spec (repeatable)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--min-time", type=float, default=0.5)
    ap.add_argument("--max-time", type=float, default=10.0)
    ap.add_argument("--min-runs", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--solver-limit", type=float, default=None,
                    help="seconds before a knapsack solver is stopped (default 30, quick 5)")
    ap.add_argument("--bb-time-limit", type=float, default=None,
                    help="OR-Tools' own branch-and-bound time limit (default 5, quick 2)")
    return ap


def parse_args(ap):
    a = ap.parse_args()
    a.solver_limit = a.solver_limit or (5.0 if a.quick else 30.0)
    a.bb_time_limit = a.bb_time_limit or (2.0 if a.quick else 5.0)
    return a


def answer(results, extra_versions=None):
    """The JSON document bench_peers.c reads, on stdout."""
    doc = {"schema": "skss-peers/1", "python": platform.python_version(),
           "versions": {**versions(), **(extra_versions or {})}, "results": results}
    json.dump(doc, sys.stdout, allow_nan=False)
    sys.stdout.write("\n")


def main():
    a = parse_args(arg_parser(__doc__.splitlines()[0]))
    plan, cache, results = Plan(a), {}, []
    for spec in a.case:
        results.extend(run_case(spec, a, plan, cache))
    answer(results)


if __name__ == "__main__":
    main()
