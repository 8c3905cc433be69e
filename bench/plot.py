#!/usr/bin/env python3
"""Plots a `skss bench --json` result: throughput against size, ours and the peers, and speedups.

usage: plot.py [--primitive LIST] RESULTS.json OUT.png

One panel per case family (primitive and variant, e.g. "sat u8->i32 padded";
in a GPU run also the paper table the cases reproduce): throughput (pixels, DP
cells or elements per second) against size on log axes, one solid line per
skss algorithm and backend, one dashed line per peer (GPU peers and host peers
alike; the (1+r)R1W sweep's rows are left out). Below, at the largest size of
each family: the fastest skss row against the fastest optimal peer, and every
algorithm of the multithreaded backend against the family's reference
algorithm (GPU runs: our cuda algorithms against the fastest of the paper's
algorithms of their table). Rows that failed or timed out are left out.
The SKSS paper's knapsack Table I (suite knapsack-papers) is drawn as the
paper has it instead: median ms against W + 1, one line per algorithm and
backend, with the paper's own Titan X times as dotted lines beside the
value-only table; so is the stream-compaction paper's Table 1 (suite
compact-papers, its two printed halves in one panel): median ms against n,
with the paper's own CPU and GPU times. --primitive sat,knapsack,compact,...
plots only those primitives' cases. --primitive sat-matrix draws suite
sat-matrix instead: per size a heat map of type pair x cell (layout, plain or
squared, packed or 256-byte pitch) of the fastest cuda row's share of the copy
of the same bytes timed beside it (100% = at the floor), NPP's time over ours
on the cells NPP has, and the one-call times of AUTO at the smallest size.
The title names the machine and the date; the commit stays in the JSON.
"""
import argparse
import json
import math
import sys
from collections import OrderedDict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402  (the backend must be chosen first)

AXIS = {"px": "pixels", "cell": "capacity C (n = 1000 items)", "elem": "elements"}
RATE = {"px": "pixels/s", "cell": "DP cell updates/s", "elem": "elements/s"}

# Tables drawn as time against size, and the times their paper reports: the
# SKSS paper's Table I (Funasaka, Nakano, Ito, "Single Kernel Soft
# Synchronization Technique for Task Arrays on CUDA-enabled GPUs, with
# Applications"), GTX Titan X, ms at W + 1 = 16K .. 512K, n + 1 = 4096 items;
# the value-only DP (bench_knapsack_paper_note in bench/bench_knapsack.c).
# Pirjan, "Solutions for Optimizing the Stream Compaction Algorithmic Function
# Using the Compute Unified Device Architecture", Table 1: ms, mean of 10,000
# runs, f32, on an i7-2600K at 4.6 GHz and three GPUs (bench_compact_paper_notes
# in bench/bench_compact.c). The bench prints the table in two halves (the
# paper's Figures 6 and 7); one panel shows both.
COMPACT_TABLE1 = "compaction paper Table 1"
PANEL_TABLE = {"compaction paper Table 1, n <= 1030": COMPACT_TABLE1,
               "compaction paper Table 1, n >= 32768": COMPACT_TABLE1}
TIME_TABLES = {"SKSS paper Table I": "W + 1 (capacity + 1; n + 1 = 4096 items)",
               COMPACT_TABLE1: "n (f32 elements, half kept)"}
# table -> (sizes, {line: ms}, the variants they go beside)
PAPER_TIMES = {
    "SKSS paper Table I": ([w << 10 for w in (16, 32, 64, 128, 256, 512)], {
        "Parallel-Forward [paper, Titan X]": [14.83, 16.01, 19.61, 27.13, 42.67, 87.8],
        "Parallel-Fair, best k [paper, Titan X]": [6.484, 11.22, 20.48, 33.78, 67.97, 126.3],
        "SKSS [paper, Titan X]": [5.037, 5.515, 9.315, 15.14, 27.24, 52.37],
        "Sequential [paper, Titan X]": [62.87, 109.7, 261.0, 605.5, 1259, 2584],
    }, "value only"),
    COMPACT_TABLE1: ([35, 128, 256, 260, 512, 1000, 1024, 1030, 32768, 45555, 65536, 131072, 262144,
                      500111, 524288, 1048555, 1048576, 1048581, 2097152, 2097999, 4194334, 8388600], {
        "[paper, i7-2600K CPU]": [0.000251, 0.000881, 0.001751, 0.001802, 0.003764, 0.00809, 0.008283,
                                  0.008401, 0.306007, 0.425129, 0.611791, 1.231282, 2.467049, 4.770547,
                                  4.925248, 9.976362, 9.933178, 9.930643, 19.905175, 19.964916, 39.781245,
                                  79.936226],
        "[paper, GTX 280]": [0.163672, 0.165035, 0.150721, 0.164149, 0.167543, 0.170796, 0.162103, 0.335697,
                             0.34606, 0.276806, 0.389857, 0.374864, 0.441118, 0.552596, 0.599289, 0.747874,
                             0.712332, 0.86948, 1.216657, 1.254584, 1.961108, 3.212200],
        "[paper, GTX 480]": [0.080994, 0.055889, 0.05853, 0.050703, 0.076934, 0.070327, 0.063049, 0.117377,
                             0.132379, 0.138398, 0.130423, 0.158547, 0.179466, 0.248678, 0.249158, 0.355804,
                             0.336078, 0.402963, 0.632166, 0.627385, 1.050636, 1.935706],
        "[paper, GTX 680]": [0.069412, 0.102792, 0.068543, 0.069557, 0.068769, 0.083748, 0.080717, 0.090358,
                             0.144445, 0.142196, 0.144086, 0.147817, 0.152783, 0.173436, 0.166949, 0.217646,
                             0.218307, 0.238417, 0.336693, 0.329394, 0.561816, 0.947059],
    }, "f32"),
}


def panel_table(case):
    """The table a case is drawn under ("" for none): halves of one paper table join."""
    table = case.get("table") or ""
    return PANEL_TABLE.get(table, table)


def load(path):
    with open(path) as f:
        doc = json.load(f)
    if doc.get("schema") != "skss-bench/1":
        sys.exit(f"plot.py: {path} is not a skss-bench/1 result")
    return doc


def families(doc, primitives=None):
    """Case families in file order (of the given primitives): name -> case indices."""
    out = OrderedDict()
    for c in doc["cases"]:
        if primitives and c["primitive"] not in primitives:
            continue
        table = f' [{panel_table(c)}]' if c.get("table") else ""
        out.setdefault(f'{c["primitive"]} {c["variant"]}{table}', []).append(c["index"])
    return out


def good_rows(doc):
    return [r for r in doc["rows"] if r["outcome"] == "ok" and r.get("median_s")
            and r.get("optimal") is not False and not r.get("param_r")]


def label(r):
    """Algorithm and backend; ", Nt" when the row kept more than one core busy."""
    busy = (r.get("cores_used") or 0) >= 1.5
    threads = f', {r["threads"]}t' if busy and r["threads"] and r["threads"] > 1 else ""
    if r["peer"]:
        where = " gpu" if r.get("device") == "gpu" else ""
        return f'{r["algorithm"]}{threads} [peer{where}]'
    return f'{r["algorithm"]} ({r["backend"]}{threads})'


def throughput_panel(ax, doc, name, indices, rows):
    cases = {i: doc["cases"][i] for i in indices}
    lines = OrderedDict()
    for r in rows:
        if r["case"] in cases:
            lines.setdefault((r["peer"], label(r)), []).append((cases[r["case"]]["x"], r["throughput"]))
    for (peer, text), points in lines.items():
        points.sort()
        xs, ys = zip(*points)
        ax.plot(xs, ys, "--" if peer else "-", marker="s" if peer else "o", markersize=4, linewidth=1.3,
                label=text)
    unit = doc["cases"][indices[0]]["unit"]
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(name, fontsize=10)
    # the knapsack-papers cases have their own item counts (in their size); an alignment's x is
    # the length of each of its two sequences
    first = doc["cases"][indices[0]]
    if first["primitive"] == "align":
        axis = "length of each sequence (bp)"
    elif unit == "cell" and first.get("table"):
        axis = "capacity C"
    else:
        axis = AXIS.get(unit, unit)
    ax.set_xlabel(axis, fontsize=8)
    ax.set_ylabel(RATE.get(unit, unit), fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="both", alpha=0.3)
    if lines:
        ax.legend(fontsize=6, loc="best")


def time_panel(ax, doc, name, indices, rows):
    """Median ms against the case's x (W + 1), as the paper's table has it, one
    line per algorithm and backend (or peer) whatever the cores each size kept
    busy; the paper's own times beside the value-only cases."""
    cases = {i: doc["cases"][i] for i in indices}
    table = panel_table(cases[indices[0]])
    lines = OrderedDict()
    for r in rows:
        if r["case"] in cases:
            text = f'{r["algorithm"]} [peer]' if r["peer"] else f'{r["algorithm"]} ({r["backend"]})'
            lines.setdefault((r["peer"], text), []).append((cases[r["case"]]["x"], r["median_s"] * 1e3))
    for (peer, text), points in lines.items():
        points.sort()
        xs, ys = zip(*points)
        ax.plot(xs, ys, "--" if peer else "-", marker="s" if peer else "o", markersize=4, linewidth=1.3,
                label=text)
    if table in PAPER_TIMES and PAPER_TIMES[table][2] in cases[indices[0]]["variant"]:
        xs, times, _ = PAPER_TIMES[table]
        for (text, ys), marker in zip(times.items(), "x+dv"):
            ax.plot(xs, ys, ":", marker=marker, markersize=4, linewidth=1.1, color="dimgray", label=text)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_title(name, fontsize=10)
    ax.set_xlabel(TIME_TABLES.get(table, "size"), fontsize=8)
    ax.set_ylabel("median ms", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="both", alpha=0.3)
    if lines:
        ax.legend(fontsize=6, loc="best")


def largest(doc, indices):
    return max(indices, key=lambda i: doc["cases"][i]["x"])


def peer_bars(doc, fams, rows):
    """(names, speedups, notes): the fastest skss row against the fastest peer."""
    names, values, notes = [], [], []
    for name, indices in fams.items():
        ci = largest(doc, indices)
        ours = [r for r in rows if r["case"] == ci and not r["peer"]]
        peers = [r for r in rows if r["case"] == ci and r["peer"]]
        if not ours or not peers:
            continue
        best, peer = min(ours, key=lambda r: r["median_s"]), min(peers, key=lambda r: r["median_s"])
        names.append(f'{name} {doc["cases"][ci]["size"]}')
        values.append(peer["median_s"] / best["median_s"])
        notes.append(f'{label(best)} vs {label(peer)}')
    return names, values, notes


def reference_bars(doc, fams, rows):
    """(names, speedups, notes): each cpu-backend algorithm against the reference,
    each cuda algorithm that is not the paper's (ours) against the fastest of the
    paper's algorithms of its table."""
    names, values, notes = [], [], []
    for name, indices in fams.items():
        ci = largest(doc, indices)
        for r in rows:
            if r["case"] != ci or r["peer"]:
                continue
            if r["backend"] == "cpu" and r.get("speedup_ref"):
                value, note = r["speedup_ref"], f'{r.get("cores_used") or 0:.1f} cores busy'
            elif r["backend"] == "cuda" and r.get("speedup_paper") and not r.get("paper_algorithm"):
                value, note = r["speedup_paper"], f'vs {r["speedup_paper_against"]}'
            else:
                continue
            names.append(f'{name} {doc["cases"][ci]["size"]}: {r["algorithm"]}')
            values.append(value)
            notes.append(note)
    return names, values, notes


def bars(ax, names, values, notes, title):
    ax.set_title(title, fontsize=10)
    if not values:
        ax.text(0.5, 0.5, "no comparable rows", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return
    ys = range(len(values))
    colors = ["tab:green" if v >= 1 else "tab:red" for v in values]
    ax.barh(list(ys), values, color=colors, alpha=0.8)
    ax.set_yticks(list(ys))
    ax.set_yticklabels(names, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.axvline(1.0, color="black", linewidth=0.8)
    for y, v, note in zip(ys, values, notes):
        ax.text(v, y, f" {v:.2f}x  {note}", va="center", fontsize=6)
    lo, hi = min(values + [1.0]), max(values + [1.0])
    ax.set_xlim(lo / 1.5, hi * 12)
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(True, axis="x", which="both", alpha=0.3)


MATRIX_TABLE = "sat matrix"
MATRIX_PAIRS = ["u8->u32", "u8->i32", "u8->f32", "u8->f64", "i32->i32", "u32->u32", "f32->f32", "f32->f64",
                "f64->f64"]
MATRIX_CELLS = [(layout, sq, pitch) for pitch in (False, True) for sq in (False, True)
                for layout in ("inclusive", "padded")]


def matrix_cell(case):
    """(pair, (layout, squared, pitched)) of a sat-matrix case, from its spec."""
    f = case["spec"].split(":")
    return f"{f[2]}->{f[3]}", (f[4], "sq" in f[5:], "pitch256" in f[5:])


def cell_name(cell):
    layout, sq, pitch = cell
    return f'{"incl" if layout == "inclusive" else "pad"}{" sq" if sq else ""}{" p256" if pitch else ""}'


def matrix_grids(doc):
    """size -> {(pair, cell): (pct of copy, NPP time / ours or None, one-call us or None)}."""
    rows = good_rows(doc)
    grids = OrderedDict()
    for c in doc["cases"]:
        if c.get("table") != MATRIX_TABLE:
            continue
        mine = [r for r in rows if r["case"] == c["index"]]
        copy = [r["median_s"] for r in mine if r["backend"] == "copy"]
        ours = [r["median_s"] for r in mine if r["backend"] == "cuda" and not r["peer"]
                and r["algorithm"] != "auto, one call"]
        npp = [r["median_s"] for r in mine if r["peer"] and r["algorithm"].startswith("npp")]
        one = [r["median_s"] for r in mine if r["algorithm"] == "auto, one call"]
        pct = 100.0 * copy[0] / min(ours) if copy and ours else float("nan")
        grids.setdefault(c["size"], {})[matrix_cell(c)] = (
            pct, npp[0] / min(ours) if npp and ours else None, one[0] * 1e6 if one else None)
    return grids


def heat(ax, fig, grid, value, fmt, cmap, vmin, vmax, title_text):
    pairs = [p for p in MATRIX_PAIRS if any(k[0] == p for k in grid)]
    data = [[value(grid.get((p, cell))) for cell in MATRIX_CELLS] for p in pairs]
    im = ax.imshow([[v if v is not None else float("nan") for v in row] for row in data], cmap=cmap,
                   vmin=vmin, vmax=vmax, aspect="auto")
    ax.set_xticks(range(len(MATRIX_CELLS)), [cell_name(c) for c in MATRIX_CELLS], rotation=40, ha="right")
    ax.set_yticks(range(len(pairs)), pairs)
    for i, row in enumerate(data):
        for j, v in enumerate(row):
            text = fmt(grid.get((pairs[i], MATRIX_CELLS[j])))
            if text:
                ax.text(j, i, text, ha="center", va="center", fontsize=7)
    ax.set_title(title_text, fontsize=9)
    fig.colorbar(im, ax=ax, shrink=0.8)


def plot_matrix(doc, out):
    grids = matrix_grids(doc)
    if not grids:
        sys.exit("plot.py: no sat-matrix cases with timed rows")
    one_call = {size: g for size, g in grids.items() if any(v[2] is not None for v in g.values())}
    panels = len(grids) + len(one_call)
    fig, axes = plt.subplots(1, panels, figsize=(6.5 * panels, 6), squeeze=False)

    def pct_text(v):
        if v is None or v[0] != v[0]:
            return ""
        return f"{v[0]:.0f}%" + (f"\nNPP x{v[1]:.1f}" if v[1] else "")

    for k, (size, grid) in enumerate(grids.items()):
        heat(axes[0][k], fig, grid, lambda v: v[0] if v else None, pct_text, "RdYlGn", 0, 100,
             f"{size}: fastest cuda row, % of the copy of its bytes\n(NPP xN: NPP's time / ours)")
    for k, (size, grid) in enumerate(one_call.items()):
        heat(axes[0][len(grids) + k], fig, grid, lambda v: v[2] if v else None,
             lambda v: f"{v[2]:.1f}" if v and v[2] is not None else "", "viridis_r", None, None,
             f"{size}: AUTO, one call, events around it (us)")
    fig.suptitle(title(doc), fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(out, dpi=90, bbox_inches="tight")


def title(doc):
    m = doc["machine"]
    cfg = doc["config"]
    bw = m["copy_bandwidth"]
    gpu = m.get("gpu")
    gpu_text = (f'\n{gpu["name"]} (driver {gpu["driver"]}, CUDA {gpu["cuda_runtime"]}), device copy '
                f'{gpu["copy_gbs"]:.0f} GB/s; GPU rows timed with CUDA events' if gpu else "")
    backends = cfg.get("backends") or []
    cpu_text = f'cpu backend {cfg["threads"]} threads' if "cpu" in backends or not backends else \
        f'backends {", ".join(backends)}'
    return (f'skss {m["skss_version"]} on {m["cpu_model"]}, {m["cores"]} cores, '
            f'{m["date"]}; {cpu_text}; copy bandwidth '
            f'{bw["gbs_1_thread"]:.1f} GB/s (1 thread), '
            f'{bw["gbs_threads"]:.1f} GB/s ({bw["threads"]} threads){gpu_text}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--primitive", help="comma-separated primitives to plot (default: all)")
    ap.add_argument("results")
    ap.add_argument("out")
    a = ap.parse_args()
    doc = load(a.results)
    primitives = set(a.primitive.split(",")) if a.primitive else None
    if primitives == {"sat-matrix"}:
        plot_matrix(doc, a.out)
        return
    fams = families(doc, primitives)
    if not fams:
        sys.exit(f"plot.py: {a.results} has no cases of {a.primitive}")
    kept = {i for indices in fams.values() for i in indices}
    rows = [r for r in good_rows(doc) if r["case"] in kept]
    vs_peer, vs_ref = peer_bars(doc, fams, rows), reference_bars(doc, fams, rows)
    cols = 4
    grid_rows = max(1, math.ceil(len(fams) / cols))
    heights = [3.6] * grid_rows + [0.3 * len(vs_peer[0]) + 1.2, 0.22 * len(vs_ref[0]) + 1.2]
    fig = plt.figure(figsize=(20, sum(heights) + 1))
    spec = fig.add_gridspec(grid_rows + 2, cols, height_ratios=heights)
    for k, (name, indices) in enumerate(fams.items()):
        panel = time_panel if panel_table(doc["cases"][indices[0]]) in TIME_TABLES else throughput_panel
        panel(fig.add_subplot(spec[k // cols, k % cols]), doc, name, indices, rows)
    bars(fig.add_subplot(spec[grid_rows, :]), *vs_peer,
         "speedup: fastest skss row / fastest optimal peer (largest size of each case)")
    bars(fig.add_subplot(spec[grid_rows + 1, :]), *vs_ref,
         "speedup of the cpu backend's algorithms over the reference algorithm on cpu-ref, and of our cuda "
         "algorithms over the fastest of their paper's algorithms (largest size)")
    fig.suptitle(title(doc), fontsize=11)
    fig.tight_layout(rect=(0, 0, 1, 0.98))
    fig.savefig(a.out, dpi=90, bbox_inches="tight")


if __name__ == "__main__":
    main()
