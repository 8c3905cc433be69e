#!/usr/bin/env python3
"""mknapsack's MT1 or MT2 (Martello and Toth) on one knapsack, for cpu_peers.py.

Runs in the interpreter that has mknapsack (its wheels need NumPy 1, so it
lives in a virtual environment of its own, .venv-mknapsack). Reads one JSON
job from stdin: weights, values, capacity, method ("mt1" or "mt2", which is
asked for an exact solution) and the timing plan of bench/bench_timing.c;
writes one JSON answer: status, the optimum and the timing statistics
(cpu_peers.py's time_call: the first solve is the warm-up). Items heavier
than the capacity are left out before the call (MT1 and MT2 reject them);
they can never be taken.
"""
import json
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_peers import Plan, time_call  # noqa: E402  (the bench's timing plan, shared)


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

    try:
        best, stats = time_call(solve, Plan(types.SimpleNamespace(**job["plan"])))
    except Exception as exc:
        print(json.dumps({"status": "error", "message": f"{type(exc).__name__}: {exc}"[:200]}))
        return
    print(json.dumps({"status": "ok", "best": best, "stats": stats}))


if __name__ == "__main__":
    main()
