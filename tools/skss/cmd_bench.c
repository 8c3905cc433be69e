/*
 * cmd_bench.c — `skss bench`: parses the options, runs the benchmark engine
 * (bench/bench_run.c) and prints the results: a table on stdout (or stderr
 * when the JSON goes to stdout), the papers' tables of a GPU run laid out as
 * in the papers (algorithms down, sizes across), the targets, and, with
 * --json, the full report.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

#include "bench.h"
#include "commands.h"

static const char BENCH_USAGE[] =
    "usage: skss bench [options]\n"
    "Times every algorithm of every backend on seeded inputs, checked against\n"
    "cpu-ref first, next to the peers (Pillow, OpenCV, OR-Tools, NumPy; on the\n"
    "GPU: CUB, NPP, torch, OpenCV). When the cuda backend runs, SAT and halftone\n"
    "cases live in device memory and are timed with CUDA events.\n"
    "  --backend LIST   cpu-ref, cpu, cuda or all (comma-separated; default all)\n"
    "  --threads N      threads of the cpu backend (default: online CPUs)\n"
    "  --suite LIST     sat, halftone, knapsack, compact, all (those four), or\n"
    "                   sat-papers: the SAT papers' tables on the GPU, or\n"
    "                   halftone-papers: the error-diffusion papers' tables on\n"
    "                   the GPU (with --backend all: the sequential CPU rows), or\n"
    "                   knapsack-papers: the SKSS paper's knapsack Table I, all\n"
    "                   capacities of one instance and a batch, on the GPU and\n"
    "                   the host, or compact-papers: the stream-compaction\n"
    "                   paper's Table 1 and Figure 8 (every dtype) and a\n"
    "                   selectivity sweep, on the host and the GPU, or\n"
    "                   sat-matrix: SAT on the GPU for every type pair x layout\n"
    "                   x plain/squared x packed/256-byte pitch at 1K, 4K, 16K,\n"
    "                   each beside a copy of its bytes, with NPP, or\n"
    "                   taskarray: the GPU task-array scheduler's ns per task\n"
    "                   (a forward array of no-op tasks, 10^4 x 10^4; sizes N\n"
    "                   or RxC), or align: pairwise alignment of a DNA pair (one\n"
    "                   10% mutated copy) of 10 kbp to 10 Mbp, score only and\n"
    "                   with the traceback, in cells/s (GCUPS x 10^9); backends\n"
    "                   whose call would take over a minute on these threads\n"
    "                   are skipped rows, or knapsack-classes: one optimum with\n"
    "                   its items on Pisinger's classes (uncorrelated, weakly,\n"
    "                   strongly, inverse strongly, almost strongly correlated,\n"
    "                   subset sum) and the SKSS paper's instance: core and dp\n"
    "                   next to mknapsack and OR-Tools (none of these suites is\n"
    "                   part of all)\n"
    "  --sizes LIST     sizes for every chosen suite: image side N or WxH (sat,\n"
    "                   halftone), capacity (knapsack, n = 1000; knapsack-papers:\n"
    "                   Table I's W, n = 4095), element count (compact; all of\n"
    "                   compact-papers' tables), sequence length (align);\n"
    "                   K/M/G = 2^10/2^20/2^30, 1eN = 10^N\n"
    "  --table TEXT     only the cases of the tables whose title contains TEXT\n"
    "                   (e.g. \"Figure 8\" of compact-papers)\n"
    "  --quick          a small subset with short timings (< 30 s)\n"
    "  --repeat R       timed runs per row (default: >= 5 runs and >= 0.5 s)\n"
    "  --seed S         seed of the inputs (default 1)\n"
    "  --json FILE      write the full report as JSON ('-' = stdout)\n"
    "  --peers, --no-peers  time the Python peers in the same run (default on)\n"
    "  --python PATH    interpreter for the peers (default python3)\n"
    "  --peers-dir DIR  where cpu_peers.py is (default $SKSS_PEERS_DIR, then the\n"
    "                   source tree)\n"
    "  -v, --verbose    one progress line per row on stderr (default: when a tty)\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("skss bench: ", stderr);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputs(" (see 'skss bench --help')\n", stderr);
  return EX_USAGE;
}

#define BENCH_MAX_COUNT ((int64_t)1 << 36)
#define BENCH_MAX_PIXELS ((int64_t)1 << 34)

/* Parses "123", "4K" (x 2^10), "2M", "1G", or "1e7" up to 2^36; advances *s. */
static int parse_count(const char **s, int64_t *out) {
  char *end;
  unsigned long long v = strtoull(*s, &end, 10);
  if (end == *s || **s == '-' || v == 0 || v > (unsigned long long)BENCH_MAX_COUNT) return -1;
  int64_t n = (int64_t)v, scale = 1;
  if (*end == 'K' || *end == 'M' || *end == 'G') {
    scale = (int64_t)1 << (*end == 'K' ? 10 : *end == 'M' ? 20 : 30);
    end++;
  } else if (*end == 'e') {
    char *exp_end;
    long e = strtol(end + 1, &exp_end, 10);
    if (exp_end == end + 1 || e < 0 || e > 11) return -1;
    while (e-- > 0) scale *= 10;
    end = exp_end;
  }
  if (n > BENCH_MAX_COUNT / scale) return -1;
  *out = n * scale;
  *s = end;
  return 0;
}

static int parse_sizes(const char *arg, bench_config *cfg) {
  const char *s = arg;
  cfg->n_sizes = 0;
  for (;;) {
    bench_size size = {0, 0};
    if (cfg->n_sizes == BENCH_MAX_SIZES || parse_count(&s, &size.a) != 0) return -1;
    if (*s == 'x') {
      s++;
      if (parse_count(&s, &size.b) != 0) return -1;
    }
    cfg->sizes[cfg->n_sizes++] = size;
    if (*s == '\0') return 0;
    if (*s++ != ',') return -1;
  }
}

/* A comma-separated list of names; bit k of *out for names[k], all for "all". */
static int parse_names(const char *arg, const char *const names[], int count, unsigned all,
                       unsigned *out) {
  char buf[256];
  if (strlen(arg) >= sizeof buf) return -1;
  strcpy(buf, arg);
  *out = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    int k = 0;
    while (k < count && (names[k] == NULL || strcmp(tok, names[k]) != 0)) k++;
    if (k == count && strcmp(tok, "all") != 0) return -1;
    *out |= k == count ? all : 1u << k;
  }
  return *out ? 0 : -1;
}

static int parse_int(const char *arg, long lo, long hi, long *out) {
  char *end;
  long v = strtol(arg, &end, 10);
  if (end == arg || *end != '\0' || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

/* Matches "--name VALUE" or "--name=VALUE"; *value is NULL when missing. */
static int take(int argc, char **argv, int *i, const char *name, const char **value) {
  size_t len = strlen(name);
  if (strncmp(argv[*i], name, len) != 0) return 0;
  if (argv[*i][len] == '=') {
    *value = argv[*i] + len + 1;
    return 1;
  }
  if (argv[*i][len] != '\0') return 0;
  *value = *i + 1 < argc ? argv[++*i] : NULL;
  return 1;
}

typedef struct bench_cli {
  bench_config cfg;
  const char *json;
  int verbose;
} bench_cli;

static int set_int(const char *v, long lo, long hi, int *out) {
  long n;
  if (parse_int(v, lo, hi, &n) != 0) return -1;
  *out = (int)n;
  return 0;
}

/* Parses one value option; returns 0, or -1 for a bad value. */
static int set_value(bench_cli *cli, const char *name, const char *v) {
  static const char *const BACKENDS[] = {NULL, "cpu-ref", "cpu", "cuda"};
  static const char *const SUITES[] = {"sat",        "halftone",        "knapsack",       "compact",
                                       "sat-papers", "halftone-papers", "knapsack-papers",
                                       "compact-papers", "sat-matrix", "taskarray", "align", "knapsack-classes"};
  const unsigned all_backends =
      (1u << SKSS_BACKEND_CPU_REF) | (1u << SKSS_BACKEND_CPU) | (1u << SKSS_BACKEND_CUDA);
  bench_config *cfg = &cli->cfg;
  if (strcmp(name, "--backend") == 0) return parse_names(v, BACKENDS, 4, all_backends, &cfg->backends);
  if (strcmp(name, "--suite") == 0) return parse_names(v, SUITES, (int)(sizeof SUITES / sizeof SUITES[0]), BENCH_SUITE_ALL, &cfg->suites);
  if (strcmp(name, "--sizes") == 0) return parse_sizes(v, cfg);
  if (strcmp(name, "--threads") == 0) return set_int(v, 1, 1024, &cfg->threads);
  if (strcmp(name, "--repeat") == 0) return set_int(v, 1, 100000, &cfg->repeat);
  if (strcmp(name, "--seed") == 0) {
    int seed;
    if (set_int(v, 0, 0x7FFFFFFF, &seed) != 0) return -1;
    cfg->seed = (uint64_t)seed;
  } else if (strcmp(name, "--json") == 0) {
    cli->json = v;
  } else if (strcmp(name, "--python") == 0) {
    cfg->python = v;
  } else if (strcmp(name, "--peers-dir") == 0) {
    cfg->peers_dir = v;
  } else if (strcmp(name, "--table") == 0) {
    cfg->table = v;
  }
  return 0;
}

static const char *const VALUE_OPTIONS[] = {"--backend", "--suite", "--sizes",  "--threads", "--repeat",
                                            "--seed",    "--json",  "--python", "--peers-dir", "--table"};
#define N_VALUE_OPTIONS (sizeof VALUE_OPTIONS / sizeof VALUE_OPTIONS[0])

/* A flag without a value; returns 1 when `a` is one. */
static int set_flag(bench_cli *cli, const char *a) {
  if (strcmp(a, "--quick") == 0)
    cli->cfg.quick = 1;
  else if (strcmp(a, "--peers") == 0)
    cli->cfg.peers = 1;
  else if (strcmp(a, "--no-peers") == 0)
    cli->cfg.peers = 0;
  else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0)
    cli->verbose = 1;
  else
    return 0;
  return 1;
}

/* The image suites read a size N as N x N: its pixel count must stay sane. */
static int check_image_sizes(const bench_config *cfg) {
  if (!(cfg->suites & (BENCH_SUITE_SAT | BENCH_SUITE_SAT_PAPERS | BENCH_SUITE_SAT_MATRIX | BENCH_SUITE_HALFTONE |
                       BENCH_SUITE_HALFTONE_PAPERS)))
    return -1;
  for (int k = 0; k < cfg->n_sizes; k++) {
    int64_t w = cfg->sizes[k].a, h = cfg->sizes[k].b ? cfg->sizes[k].b : w;
    if (w > BENCH_MAX_PIXELS / h)
      return usage_error("size %lldx%lld: images are limited to 2^34 pixels", (long long)w, (long long)h);
  }
  return -1;
}

/* Returns -1 when parsed, else the exit code (EX_OK after --help). */
static int parse_args(int argc, char **argv, bench_cli *cli) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = NULL;
    if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
      fputs(BENCH_USAGE, stdout);
      return EX_OK;
    }
    if (strcmp(a, "--version") == 0) {
      printf("skss %s\n", skss_version());
      return EX_OK;
    }
    if (set_flag(cli, a)) continue;
    size_t k = 0;
    while (k < N_VALUE_OPTIONS && !take(argc, argv, &i, VALUE_OPTIONS[k], &v)) k++;
    if (k == N_VALUE_OPTIONS) return usage_error("unknown option '%s'", a);
    if (v == NULL) return usage_error("%s needs a value", VALUE_OPTIONS[k]);
    if (set_value(cli, VALUE_OPTIONS[k], v) != 0) return usage_error("option %s: bad value '%s'", VALUE_OPTIONS[k], v);
  }
  return check_image_sizes(&cli->cfg);
}

/* ---- the table ------------------------------------------------------------- */

static void format_rate(char *buf, size_t len, double per_s, const char *unit) {
  static const struct {
    double scale;
    const char *prefix;
  } SI[] = {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}};
  size_t k = 0;
  while (k + 1 < sizeof SI / sizeof SI[0] && per_s < SI[k].scale) k++;
  snprintf(buf, len, "%.1f %s%s/s", per_s / SI[k].scale, SI[k].prefix, unit);
}

static void format_ratio(char *buf, size_t len, double v) {
  if (v > 0)
    snprintf(buf, len, "%.2fx", v);
  else
    snprintf(buf, len, "-");
}

static void print_header(FILE *f, const bench_config *cfg, const bench_report *rep) {
  fprintf(f, "skss bench — skss %s (%s), %s, %d cores, %s, %s\n", skss_version(), rep->git_commit,
          rep->cpu_model, rep->cores, rep->kernel, rep->date);
  fprintf(f, "copy bandwidth (memcpy of %zu MiB, read + write): 1 thread %.1f GB/s, %d threads %.1f GB/s\n",
          rep->copy_bytes >> 20, rep->copy_gbs_1, rep->copy_threads, rep->copy_gbs_n);
  if (rep->gpu_name[0] != '\0')
    fprintf(f,
            "GPU: %s, %d SMs, %.0f GiB, driver %s, CUDA runtime %s; device copy bandwidth\n"
            "(cudaMemcpyAsync D2D of %zu MiB, read + write): %.0f GB/s; GPU rows: CUDA events, %s\n",
            rep->gpu_name, rep->gpu_sms, rep->gpu_memory_gib, rep->gpu_driver, rep->cuda_runtime,
            rep->copy_gpu_bytes >> 20, rep->copy_gbs_gpu,
            cfg->quick ? ">= 3 runs and >= 0.01 s" : ">= 10 runs and >= 0.1 s (stop at 2 s), median");
  bench_plan plan = bench_plan_for(cfg);
  fprintf(f, "seed %llu; cpu backend on %d threads; %s; ", (unsigned long long)cfg->seed, cfg->threads,
          cfg->quick ? "quick" : "full");
  if (plan.fixed_runs > 0)
    fprintf(f, "%d timed runs per row\n", plan.fixed_runs);
  else
    fprintf(f, "timed runs per row: >= %d and >= %g s (stop at %g s), median\n", plan.min_runs,
            plan.min_time_s, plan.max_time_s);
  fprintf(f, "peers: %s", rep->peers_ran ? "python " : rep->peers_message);
  if (rep->peers_ran) {
    fputs(rep->python_version, f);
    for (int k = 0; k < rep->n_versions; k++)
      fprintf(f, "%s %s %s", k ? "," : ";", rep->versions[k][0], rep->versions[k][1]);
  }
  fputs("\n\n", f);
  fprintf(f, "%-8s %-20s %-13s %-26s %-7s %3s %5s %10s %15s %6s %6s %7s %8s%s\n", "prim", "case", "size",
          "algorithm", "backend", "thr", "cores", "median ms", "throughput", "GB/s", "%copy", "vs ref",
          "vs peer", rep->gpu_name[0] != '\0' ? "  vs paper" : "");
}

static const char *status_text(const bench_row *r) {
  switch (r->outcome) {
    case BENCH_ROW_FAILED: return "FAILED";
    case BENCH_ROW_UNAVAILABLE: return "unavailable";
    case BENCH_ROW_TIMEOUT: return "time limit";
    case BENCH_ROW_OK: break;
  }
  return "";
}

static void print_row(FILE *f, const bench_report *rep, const bench_row *r) {
  const bench_case *c = &rep->cases.items[r->case_index];
  char threads[16] = "-";
  if (r->threads > 0) snprintf(threads, sizeof threads, "%d", r->threads);
  fprintf(f, "%-8s %-20s %-13s %-26s %-7s %3s ", bench_op_name(c->op), c->variant, c->size, r->algorithm,
          r->backend, threads);
  if (r->outcome != BENCH_ROW_OK) {
    fprintf(f, "%s: %s\n", status_text(r), r->message);
    return;
  }
  char rate[32], gbs[16] = "-", pct[16] = "-", vs_ref[16], vs_peer[16];
  format_rate(rate, sizeof rate, r->throughput, c->unit);
  if (r->gbps > 0) snprintf(gbs, sizeof gbs, "%.2f", r->gbps);
  if (r->pct_copy > 0) snprintf(pct, sizeof pct, "%.0f%%", r->pct_copy);
  format_ratio(vs_ref, sizeof vs_ref, r->speedup_ref);
  if (r->is_peer)
    snprintf(vs_peer, sizeof vs_peer, "%s", r->check);
  else
    format_ratio(vs_peer, sizeof vs_peer, r->speedup_peer);
  double ms = r->t.median_s * 1e3;
  if (r->on_gpu)
    fprintf(f, "%5s ", "gpu");
  else
    fprintf(f, "%5.1f ", r->t.cores_used);
  fprintf(f, ms < 1 ? "%10.4f" : "%10.3f", ms);
  fprintf(f, " %15s %6s %6s %7s %8s", rate, gbs, pct, vs_ref, vs_peer);
  if (rep->gpu_name[0] != '\0') {
    char vs_paper[16];
    format_ratio(vs_paper, sizeof vs_paper, r->speedup_paper);
    fprintf(f, " %9s", vs_paper);
  }
  if (r->is_peer && r->optimal == 0) fputs("  not optimal (time limit)", f);
  if (r->message[0] != '\0') fprintf(f, "  (%s)", r->message);
  fputc('\n', f);
}

static void print_rows(FILE *f, const bench_report *rep) {
  for (size_t ci = 0; ci < rep->cases.count; ci++) {
    if (ci > 0 && rep->cases.items[ci].op != rep->cases.items[ci - 1].op) fputc('\n', f);
    for (int peers = 0; peers <= 1; peers++)
      for (size_t k = 0; k < rep->n_rows; k++)
        if (rep->rows[k].case_index == ci && rep->rows[k].is_peer == peers) print_row(f, rep, &rep->rows[k]);
  }
}

/* ---- the papers' tables ------------------------------------------------------- */

#define MAX_TABLE_SIZES 16
#define MAX_TABLE_ROWS 48

/* The cases of one GPU table and variant, in order. */
typedef struct table_view {
  const char *table, *variant;
  size_t cases[MAX_TABLE_SIZES];
  int n_cases;
} table_view;

static int same_table(const bench_case *c, const table_view *v) {
  return strcmp(c->table, v->table) == 0 && strcmp(c->variant, v->variant) == 0;
}

static const bench_row *row_of(const bench_report *rep, size_t ci, const char *algorithm,
                               const char *backend) {
  for (size_t k = 0; k < rep->n_rows; k++) {
    const bench_row *r = &rep->rows[k];
    if (r->case_index == ci && strcmp(r->algorithm, algorithm) == 0 && strcmp(r->backend, backend) == 0)
      return r;
  }
  return NULL;
}

static void print_cell(FILE *f, const bench_row *r) {
  if (r == NULL || r->outcome != BENCH_ROW_OK)
    fprintf(f, " %11s", r == NULL ? "" : status_text(r));
  else
    fprintf(f, r->t.median_s < 1e-2 ? " %11.4f" : " %11.2f", r->t.median_s * 1e3);
}

/* One line per algorithm (ours, then peers), milliseconds per size. */
static void print_table_rows(FILE *f, const bench_report *rep, const table_view *v) {
  const bench_row *seen[MAX_TABLE_ROWS];
  int n_seen = 0;
  for (int peers = 0; peers <= 1; peers++) {
    for (size_t k = 0; k < rep->n_rows && n_seen < MAX_TABLE_ROWS; k++) {
      const bench_row *r = &rep->rows[k];
      int listed = r->is_peer != peers || !same_table(&rep->cases.items[r->case_index], v);
      for (int s = 0; s < n_seen && !listed; s++)
        listed = strcmp(seen[s]->algorithm, r->algorithm) == 0 && strcmp(seen[s]->backend, r->backend) == 0;
      if (listed) continue;
      seen[n_seen++] = r;
      /* the CPU rows of a GPU table name their backend: with --backend all,
       * cpu-ref and cpu both run the sequential algorithms */
      char label[64];
      if (!r->is_peer && strcmp(r->backend, "cuda") != 0)
        snprintf(label, sizeof label, "%s (%s)", r->algorithm, r->backend);
      else
        snprintf(label, sizeof label, "%s", r->algorithm);
      fprintf(f, "  %-28s", label);
      for (int c = 0; c < v->n_cases; c++) print_cell(f, row_of(rep, v->cases[c], r->algorithm, r->backend));
      fputc('\n', f);
    }
  }
}

/* Our fastest GPU algorithm in a table (onepass for the SAT, strips for
 * halftoning), or NULL when the table has neither. */
static const char *ours_in_table(const bench_report *rep, const table_view *v) {
  static const char *const OURS[] = {"onepass", "strips"};
  for (size_t o = 0; o < sizeof OURS / sizeof OURS[0]; o++)
    for (int c = 0; c < v->n_cases; c++)
      if (row_of(rep, v->cases[c], OURS[o], "cuda") != NULL) return OURS[o];
  return NULL;
}

/* One line of our algorithm's speedups, against the paper's fastest
 * algorithm or against the fastest GPU peer. */
static void print_speedups(FILE *f, const bench_report *rep, const table_view *v, const char *ours,
                           int against_peer) {
  char label[64];
  snprintf(label, sizeof label, "%s vs %s", ours, against_peer ? "fastest GPU peer" : "paper's fastest");
  fprintf(f, "  %-28s", label);
  for (int c = 0; c < v->n_cases; c++) {
    const bench_row *r = row_of(rep, v->cases[c], ours, "cuda");
    double x = r == NULL ? 0 : against_peer ? r->speedup_peer : r->speedup_paper;
    if (x > 0)
      fprintf(f, " %10.2fx", x);
    else
      fprintf(f, " %11s", "-");
  }
  fputc('\n', f);
}

/* The task-array paper's claim, checked where a table has its SKSS kernel:
 * the fastest of the table's other paper algorithms on the GPU (neither
 * ours nor a peer) / skss, so above 1 where SKSS wins. */
static void print_skss_vs_others(FILE *f, const bench_report *rep, const table_view *v, const char *ours) {
  int any = 0;
  for (int c = 0; c < v->n_cases && !any; c++) any = row_of(rep, v->cases[c], "skss", "cuda") != NULL;
  if (!any) return;
  fprintf(f, "  %-28s", "skss vs the other papers'");
  for (int c = 0; c < v->n_cases; c++) {
    const bench_row *s = row_of(rep, v->cases[c], "skss", "cuda");
    double best = 0;
    for (size_t k = 0; k < rep->n_rows; k++) {
      const bench_row *r = &rep->rows[k];
      if (r->case_index != v->cases[c] || r->is_peer || r->outcome != BENCH_ROW_OK ||
          strcmp(r->backend, "cuda") != 0 || strcmp(r->algorithm, "skss") == 0 ||
          (ours != NULL && strcmp(r->algorithm, ours) == 0))
        continue;
      if (best == 0 || r->t.median_s < best) best = r->t.median_s;
    }
    if (s != NULL && s->outcome == BENCH_ROW_OK && s->t.median_s > 0 && best > 0)
      fprintf(f, " %10.2fx", best / s->t.median_s);
    else
      fprintf(f, " %11s", "-");
  }
  fputc('\n', f);
}

/* Under the table: our algorithm against the paper's fastest algorithm and
 * (the SAT: halftoning's only GPU "peer" is the latency floor) the fastest
 * GPU peer, and the best r of the sweep where there was one. */
static void print_table_summary(FILE *f, const bench_report *rep, const table_view *v) {
  const char *ours = ours_in_table(rep, v);
  if (ours != NULL) {
    print_speedups(f, rep, v, ours, 0);
    if (strcmp(ours, "onepass") == 0) print_speedups(f, rep, v, ours, 1);
  }
  print_skss_vs_others(f, rep, v, ours);
  if (!rep->cases.items[v->cases[0]].r_sweep) return;
  fprintf(f, "  %-28s", "best r of (1+r)R1W");
  for (int c = 0; c < v->n_cases; c++) {
    const bench_row *best = NULL;
    for (size_t k = 0; k < rep->n_rows; k++) {
      const bench_row *r = &rep->rows[k];
      if (r->case_index == v->cases[c] && r->param > 0 && r->outcome == BENCH_ROW_OK &&
          (best == NULL || r->t.median_s < best->t.median_s))
        best = r;
    }
    if (best != NULL)
      fprintf(f, " %11.2f", best->param);
    else
      fprintf(f, " %11s", "-");
  }
  fputc('\n', f);
}

static void print_paper_tables(FILE *f, const bench_report *rep) {
  for (size_t ci = 0; ci < rep->cases.count; ci++) {
    const bench_case *c = &rep->cases.items[ci];
    table_view v = {c->table, c->variant, {0}, 0};
    int printed = c->table[0] == '\0';
    for (size_t k = 0; k < ci && !printed; k++) printed = same_table(&rep->cases.items[k], &v);
    if (printed) continue;
    for (size_t k = ci; k < rep->cases.count && v.n_cases < MAX_TABLE_SIZES; k++)
      if (same_table(&rep->cases.items[k], &v)) v.cases[v.n_cases++] = k;
    fprintf(f, "\n%s, %s: median ms\n  %-28s", v.table, v.variant, "algorithm");
    for (int k = 0; k < v.n_cases; k++) fprintf(f, " %11s", rep->cases.items[v.cases[k]].size);
    fputc('\n', f);
    print_table_rows(f, rep, &v);
    print_table_summary(f, rep, &v);
  }
}

static void print_footer(FILE *f, const bench_report *rep) {
  fputs("\nthr: the context's threads (sequential algorithms use one; GPU rows' contexts have the\n"
        "run's threads for a call's host-side work, as a default context does); cores: process CPU time /\n"
        "wall time while timing (what the row kept busy; gpu: timed on the device); %copy: against\n"
        "the 1-thread copy when cores < 1.5, else the multithreaded copy, GPU rows against the\n"
        "device copy; vs ref: the reference algorithm's median / this median (same case); vs peer:\n"
        "the fastest optimal peer's median (peers with no more threads than the row; GPU rows: GPU\n"
        "peers) / this median; peer rows show whether the peer's result agrees with ours; vs paper\n"
        "(GPU runs): the fastest of the paper's algorithms of the case's table / this median;\n"
        "under a table, \"skss vs the other papers'\": their fastest GPU row / skss's (above 1: SKSS wins).\n"
        "Knapsack cells are the nominal n (C + 1) per solve.\n",
        f);
  for (int k = 0; k < rep->n_notes; k++) fprintf(f, "note: %s\n", rep->notes[k]);
  if (rep->n_targets > 0) fputs("\ntargets:\n", f);
  for (int k = 0; k < rep->n_targets; k++) {
    const bench_target *t = &rep->targets[k];
    if (t->value <= 0) {
      fprintf(f, "  %-92s   n/a\n", t->what);
      continue;
    }
    int met = t->at_most ? t->value <= t->goal : t->value >= t->goal;
    fprintf(f, "  %-92s %6.2f %s (goal %s %.2f: %s)\n", t->what, t->value, t->unit, t->at_most ? "<=" : ">=",
            t->goal, met ? "met" : "NOT met");
  }
  fprintf(f, "\ntotal %.1f s\n", rep->total_s);
}

int skss_cmd_bench(int argc, char **argv) {
  bench_cli cli = {0};
  bench_config_defaults(&cli.cfg);
  int rc = parse_args(argc, argv, &cli);
  if (rc >= 0) return rc;
  cli.cfg.progress = cli.verbose || isatty(STDERR_FILENO) ? stderr : NULL;
  bench_report rep;
  char err[BENCH_ERRLEN] = "";
  if (bench_run(&cli.cfg, &rep, err) != 0) {
    fprintf(stderr, "skss bench: %s\n", err);
    bench_report_free(&rep);
    return EX_UNAVAILABLE;
  }
  FILE *table = cli.json != NULL && strcmp(cli.json, "-") == 0 ? stderr : stdout;
  print_header(table, &cli.cfg, &rep);
  print_rows(table, &rep);
  print_paper_tables(table, &rep);
  print_footer(table, &rep);
  rc = EX_OK;
  if (cli.json != NULL && bench_write_json(&cli.cfg, &rep, cli.json, err) != 0) {
    fprintf(stderr, "skss bench: %s\n", err);
    rc = EX_CANTCREAT;
  }
  size_t failed = bench_report_failures(&rep);
  if (failed > 0) {
    fprintf(stderr, "skss bench: %zu row(s) failed; see the table\n", failed);
    rc = rc == EX_OK ? EX_SOFTWARE : rc;
  }
  bench_report_free(&rep);
  return rc;
}
