"""skss_knapsack() against OR-Tools' knapsack solvers and mknapsack's MT2.

Instances follow Pisinger's classes: weights uniform in [1, R]; values
uniform in [1, R] (uncorrelated), w + R/10 (strongly correlated), and the
weakly, inverse strongly correlated and subset-sum classes; the capacity is
half the total weight. The optimum must equal OR-Tools' (its
dynamic-programming solver, and for uncorrelated instances also its
branch-and-bound solver), on CPU_REF and on CPU with every algorithm, and
the chosen items must weigh at most C and be worth the optimum.
"""
import contextlib
import ctypes
import random

import pytest

from skss_ctypes import LIB, Context

knapsack_solver = pytest.importorskip("ortools.algorithms.python.knapsack_solver")

ALGORITHMS = {"auto": 0, "dp": 1, "taskarray-cpu": 2, "core": 11}


class KnapsackDesc(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("n_items", ctypes.c_int64),
        ("capacity", ctypes.c_int64),
        ("value_only", ctypes.c_int),
        ("max_bytes", ctypes.c_int64),
        ("algorithm", ctypes.c_int),
        ("values_by_capacity", ctypes.POINTER(ctypes.c_int64)),
    ]


I64P = ctypes.POINTER(ctypes.c_int64)
LIB.skss_knapsack.argtypes = [ctypes.c_void_p, ctypes.POINTER(KnapsackDesc), I64P, I64P, I64P,
                              ctypes.POINTER(ctypes.c_uint8)]
LIB.skss_knapsack.restype = ctypes.c_int


def pisinger(kind, n, r, seed):
    """Weights uniform in [1, r]; values by class; C = half the total weight."""
    rng = random.Random(seed)
    weights = [rng.randint(1, r) for _ in range(n)]
    if kind == "inverse":
        values = [rng.randint(1, r) for _ in range(n)]
        weights = [v + r // 10 for v in values]
    elif kind == "subset":
        values = list(weights)
    elif kind == "weak":
        values = [max(1, w - r // 10 + rng.randint(0, 2 * (r // 10))) for w in weights]
    elif kind == "strong":
        values = [w + r // 10 for w in weights]
    else:
        values = [rng.randint(1, r) for _ in range(n)]
    return weights, values, sum(weights) // 2


def ortools_optimum(solver_type, weights, values, capacity):
    solver = knapsack_solver.KnapsackSolver(solver_type, "peer")
    solver.init(values, [weights], [capacity])
    return solver.solve()


def skss_solve(ctx, algorithm, weights, values, capacity, value_only=False):
    n = len(weights)
    desc = KnapsackDesc(ctypes.sizeof(KnapsackDesc), n, capacity, int(value_only), 0,
                        ALGORITHMS[algorithm])
    w = (ctypes.c_int64 * max(n, 1))(*weights)
    v = (ctypes.c_int64 * max(n, 1))(*values)
    taken = (ctypes.c_uint8 * max(n, 1))()
    best = ctypes.c_int64(-1)
    ctx.check(LIB.skss_knapsack(ctx.ptr, ctypes.byref(desc), w, v, ctypes.byref(best),
                                None if value_only else taken))
    return best.value, list(taken)[:n]


CASES = [(kind, n, r, seed)
         for kind in ("uncorrelated", "strong")
         for n, r in ((1, 100), (10, 100), (50, 1000), (120, 1000), (60, 10000))
         for seed in (1, 2, 3)]

CONFIGS = [("cpu-ref", 1, "dp"), ("cpu-ref", 1, "auto"), ("cpu", 1, "dp"),
           ("cpu", 1, "taskarray-cpu"), ("cpu", 2, "taskarray-cpu"), ("cpu", 3, "auto"),
           ("cpu-ref", 1, "core"), ("cpu", 1, "core")]
# Whose item set follows the DP's rule (the same bits everywhere); core (auto
# on cpu) returns some optimal set, checked for weight and value only.
DP_RULE = {("cpu-ref", "dp"), ("cpu-ref", "auto"), ("cpu", "dp"), ("cpu", "taskarray-cpu")}


@pytest.fixture(scope="module")
def contexts():
    with contextlib.ExitStack() as stack:
        yield {(backend, threads): stack.enter_context(Context(backend, threads))
               for backend, threads in {(b, t) for b, t, _ in CONFIGS}}


@pytest.mark.parametrize("kind,n,r,seed", CASES)
def test_optimum_matches_ortools(contexts, kind, n, r, seed):
    weights, values, capacity = pisinger(kind, n, r, seed)
    expected = ortools_optimum(
        knapsack_solver.SolverType.KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER, weights, values, capacity)
    if kind == "uncorrelated":
        assert expected == ortools_optimum(
            knapsack_solver.SolverType.KNAPSACK_MULTIDIMENSION_BRANCH_AND_BOUND_SOLVER,
            weights, values, capacity)
    chosen_sets = []
    for backend, threads, algorithm in CONFIGS:
        ctx = contexts[(backend, threads)]
        best, taken = skss_solve(ctx, algorithm, weights, values, capacity)
        assert best == expected, (backend, threads, algorithm)
        assert skss_solve(ctx, algorithm, weights, values, capacity, value_only=True)[0] == expected
        assert set(taken) <= {0, 1}
        assert sum(w for w, t in zip(weights, taken) if t) <= capacity
        assert sum(v for v, t in zip(values, taken) if t) == expected
        if (backend, algorithm) in DP_RULE:
            chosen_sets.append(taken)
    assert all(t == chosen_sets[0] for t in chosen_sets), "backends chose different items"


@pytest.mark.parametrize("kind,seed", [("uncorrelated", 4), ("strong", 5)])
def test_values_by_capacity_match_ortools(contexts, kind, seed):
    """One call's optimum for every capacity, against OR-Tools at sampled capacities."""
    weights, values, capacity = pisinger(kind, 40, 500, seed)
    n = len(weights)
    table = (ctypes.c_int64 * (capacity + 1))()
    desc = KnapsackDesc(ctypes.sizeof(KnapsackDesc), n, capacity, 1, 0, ALGORITHMS["auto"], table)
    w = (ctypes.c_int64 * n)(*weights)
    v = (ctypes.c_int64 * n)(*values)
    best = ctypes.c_int64(-1)
    ctx = contexts[("cpu", 2)]
    ctx.check(LIB.skss_knapsack(ctx.ptr, ctypes.byref(desc), w, v, ctypes.byref(best), None))
    rng = random.Random(seed)
    for c in [0, 1, min(weights), capacity] + [rng.randint(0, capacity) for _ in range(12)]:
        assert table[c] == ortools_optimum(
            knapsack_solver.SolverType.KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER, weights, values, c), c
    assert best.value == table[capacity]
    assert all(table[c] <= table[c + 1] for c in range(capacity))


def test_old_desc_size_means_no_table(contexts):
    """A desc that ends before values_by_capacity (callers built before it) still works."""
    weights, values, capacity = pisinger("strong", 20, 100, 6)
    desc = KnapsackDesc(KnapsackDesc.values_by_capacity.offset, len(weights), capacity, 1, 0, 0)
    w = (ctypes.c_int64 * len(weights))(*weights)
    v = (ctypes.c_int64 * len(weights))(*values)
    best = ctypes.c_int64(-1)
    ctx = contexts[("cpu", 2)]
    ctx.check(LIB.skss_knapsack(ctx.ptr, ctypes.byref(desc), w, v, ctypes.byref(best), None))
    assert best.value == ortools_optimum(
        knapsack_solver.SolverType.KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER, weights, values, capacity)


def test_large_instance_uses_threads(contexts):
    """Big enough for the task array to run several workers over many chunks."""
    weights, values, capacity = pisinger("strong", 150, 3000, 7)
    expected = ortools_optimum(
        knapsack_solver.SolverType.KNAPSACK_DYNAMIC_PROGRAMMING_SOLVER, weights, values, capacity)
    for threads in (1, 2):
        best, taken = skss_solve(contexts[("cpu", threads)], "taskarray-cpu", weights, values,
                                 capacity)
        assert best == expected
        assert sum(w for w, t in zip(weights, taken) if t) <= capacity
        assert sum(v for v, t in zip(values, taken) if t) == expected


def mknapsack_optimum(weights, values, capacity, method):
    """mknapsack (Martello and Toth) in its own interpreter (scripts/deps.sh
    makes .venv-mknapsack: its wheels need NumPy 1), through the bench's peer."""
    import json
    import os
    import subprocess
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    python = os.environ.get("SKSS_MKNAPSACK_PYTHON",
                            os.path.join(root, ".venv-mknapsack", "bin", "python"))
    if not os.path.exists(python):
        pytest.skip(f"no mknapsack interpreter at {python} (scripts/deps.sh makes it)")
    job = {"weights": weights, "values": values, "capacity": capacity, "method": method,
           "plan": {"min_time": 0, "max_time": 0, "min_runs": 0, "repeat": 1}}
    done = subprocess.run([python, os.path.join(root, "bench", "peers", "mknapsack_peer.py")],
                          input=json.dumps(job), capture_output=True, text=True, timeout=120, check=True)
    res = json.loads(done.stdout)
    if res["status"] == "unavailable":
        pytest.skip(res["message"])
    assert res["status"] == "ok", res
    return res["best"]


@pytest.mark.parametrize("kind,n,r,seed", [("uncorrelated", 2000, 10000, 11), ("weak", 2000, 10000, 12),
                                           ("subset", 2000, 100000, 15)])
def test_core_matches_mknapsack(contexts, kind, n, r, seed):
    """core's optimum equals Martello and Toth's MT2 (exact) on the classes
    MT2 solves in seconds (on strongly and inverse strongly correlated
    instances of these sizes it runs for minutes; OR-Tools checks those)."""
    weights, values, capacity = pisinger(kind, n, r, seed)
    expected = mknapsack_optimum(weights, values, capacity, "mt2")
    for backend in ("cpu-ref", "cpu"):
        best, taken = skss_solve(contexts[(backend, 1)], "core", weights, values, capacity)
        assert best == expected, backend
        assert sum(w for w, t in zip(weights, taken) if t) <= capacity
        assert sum(v for v, t in zip(values, taken) if t) == expected
