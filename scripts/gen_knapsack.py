#!/usr/bin/env python3
"""Generates 0-1 knapsack instances in the standard generator's text format.

Classes follow Pisinger's definitions ("Core problems in knapsack algorithms"):
weights uniform in [1, R]; values uniform in [1, R] (uncorrelated), in
[w - R/10, w + R/10] clamped to >= 1 (weakly correlated), or w + R/10
(strongly correlated). The capacity is half the total weight unless given.
Output: n, then n lines "id value weight", then the capacity.
"""
import argparse
import random
import sys


def generate(kind, n, r, seed, capacity=None):
    rng = random.Random(seed)
    items = []
    for i in range(1, n + 1):
        w = rng.randint(1, r)
        if kind == "uncorrelated":
            v = rng.randint(1, r)
        elif kind == "weak":
            v = max(1, w + rng.randint(-(r // 10), r // 10))
        elif kind == "strong":
            v = w + r // 10
        else:
            raise ValueError(f"unknown kind {kind}")
        items.append((i, v, w))
    if capacity is None:
        capacity = sum(w for _, _, w in items) // 2
    return items, capacity


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=["uncorrelated", "weak", "strong"], default="strong")
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--range", type=int, default=1000, dest="r")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--capacity", type=int)
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    items, capacity = generate(a.kind, a.n, a.r, a.seed, a.capacity)
    lines = [str(len(items))] + [f"{i} {v} {w}" for i, v, w in items] + [str(capacity)]
    text = "\n".join(lines) + "\n"
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
