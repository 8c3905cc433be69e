#!/usr/bin/env python3
"""mknapsack's MT1 or MT2 (Martello and Toth) on one knapsack, for cpu_peers.py.

Runs in the interpreter that has mknapsack (its wheels need NumPy 1, so it
lives in a virtual environment of its own, .venv-mknapsack). Reads one JSON
job from stdin: weights, values, capacity, method ("mt1" or "mt2", which is
asked for an exact solution) and the timing plan of bench/bench_timing.c;
writes one JSON answer: status, the optimum and the timing statistics (the
first solve is the warm-up). Items heavier than the capacity are left out
before the call (MT1 and MT2 reject them); they can never be taken.
"""
import json
import sys
import time


def main():
    job = json.load(sys.stdin)
    try:
        from mknapsack import solve_single_knapsack
    except Exception as exc:  # a missing peer is a result, not a crash
        print(json.dumps({"status": "unavailable", "message": f"{type(exc).__name__}: {exc}"[:200]}))
        return
    cap = job["capacity"]
    pairs = [(w, v) for w, v in zip(job["weights"], job["values"]) if w <= cap and v > 0]
    weights, values = [w for w, _ in pairs], [v for _, v in pairs]
    kwargs = {"require_exact": 1} if job["method"] == "mt2" else {}

    def solve():
        if len(pairs) < 2:  # MT1 and MT2 need two items; one or none is trivial
            return sum(values) if sum(weights) <= cap else max(values, default=0)
        taken = solve_single_knapsack(values, weights, cap, method=job["method"], method_kwargs=kwargs)
        return int(sum(v for v, t in zip(values, taken) if t))

    plan = job["plan"]
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        best = solve()
        first = time.perf_counter() - t0
        samples = [first]
        if plan["repeat"] > 0 or first < plan["max_time"]:
            samples, start, c0 = [], time.perf_counter(), time.process_time()
            while True:
                runs, elapsed = len(samples), time.perf_counter() - start
                if plan["repeat"] > 0:
                    if runs >= plan["repeat"]:
                        break
                elif (runs >= 1 and elapsed >= plan["max_time"]) or (
                        runs >= plan["min_runs"] and elapsed >= plan["min_time"]):
                    break
                t0 = time.perf_counter()
                solve()
                samples.append(time.perf_counter() - t0)
    except Exception as exc:
        print(json.dumps({"status": "error", "message": f"{type(exc).__name__}: {exc}"[:200]}))
        return
    cpu = time.process_time() - c0
    s = sorted(samples)
    n = len(s)
    median = s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])
    stats = {"median_s": median, "min_s": s[0], "p90_s": s[(9 * n + 9) // 10 - 1], "runs": n,
             "cores_used": cpu / sum(s) if sum(s) > 0 else 0.0}
    print(json.dumps({"status": "ok", "best": best, "stats": stats}))


if __name__ == "__main__":
    main()
