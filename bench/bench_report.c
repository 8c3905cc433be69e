/*
 * bench_report.c — relates the rows to each other once all are in: effective
 * bandwidth and its share of the copy bandwidth measured in the same run
 * (rows that kept one core busy against the one-thread copy, rows that kept
 * more busy against the copy on --threads threads, rows timed on the GPU
 * against the device-to-device copy), speedup over the reference algorithm
 * of the same case, speedup over the fastest peer that uses no more threads
 * (GPU rows: the fastest GPU peer), speedup over the fastest of the paper's
 * algorithms of a GPU table, and the CPU and GPU targets of the issue.
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"

/* Which rows of a case qualify; NULL strings and 0 numbers match anything. */
typedef struct row_filter {
  size_t case_index;
  int is_peer;
  const char *algorithm;
  const char *backend;
  int max_threads;
  int exact_threads;
  int device;     /* 0: any; 1: timed on the host; 2: timed on the GPU */
  uint32_t among; /* non-zero: algorithm ids in this mask (ours) */
} row_filter;

static int row_matches(const bench_row *r, const row_filter *f) {
  if (r->case_index != f->case_index || r->is_peer != f->is_peer || r->outcome != BENCH_ROW_OK ||
      r->optimal == 0)
    return 0;
  if (f->device != 0 && r->on_gpu != (f->device == 2)) return 0;
  if (f->among != 0 && !(f->among & (1u << r->algorithm_id))) return 0;
  if (f->algorithm != NULL && strcmp(r->algorithm, f->algorithm) != 0) return 0;
  if (f->backend != NULL && strcmp(r->backend, f->backend) != 0) return 0;
  if (f->max_threads > 0 && r->threads > f->max_threads) return 0;
  return f->exact_threads <= 0 || r->threads == f->exact_threads;
}

/* The fastest qualifying row, or NULL. */
static const bench_row *fastest(const bench_report *rep, const row_filter *f) {
  const bench_row *best = NULL;
  for (size_t k = 0; k < rep->n_rows; k++) {
    const bench_row *r = &rep->rows[k];
    if (row_matches(r, f) && (best == NULL || r->t.median_s < best->t.median_s)) best = r;
  }
  return best;
}

static const bench_row *reference_row(const bench_report *rep, size_t ci) {
  const char *name = skss_algorithm_name(rep->cases.items[ci].op,
                                         bench_reference_algorithm(rep->cases.items[ci].op));
  row_filter on_ref = {ci, 0, name, "cpu-ref", 0, 0, 0, 0}, anywhere = {ci, 0, name, NULL, 0, 0, 0, 0};
  const bench_row *r = fastest(rep, &on_ref);
  return r ? r : fastest(rep, &anywhere);
}

static void relate_row(const bench_report *rep, bench_row *r) {
  if (r->outcome != BENCH_ROW_OK) return;
  double copy = r->on_gpu ? rep->copy_gbs_gpu : r->t.cores_used > 1.5 ? rep->copy_gbs_n : rep->copy_gbs_1;
  if (r->bytes > 0) r->gbps = r->bytes / r->t.median_s * 1e-9;
  if (r->gbps > 0 && copy > 0) r->pct_copy = 100.0 * r->gbps / copy;
  const bench_row *ref = reference_row(rep, r->case_index);
  if (ref != NULL) r->speedup_ref = ref->t.median_s / r->t.median_s;
  if (r->is_peer) return;
  row_filter peers = {r->case_index, 1, NULL, NULL, r->threads > 1 ? r->threads : 1, 0, r->on_gpu ? 2 : 1, 0};
  const bench_row *peer = fastest(rep, &peers);
  if (peer != NULL) {
    r->speedup_peer = peer->t.median_s / r->t.median_s;
    snprintf(r->peer_name, sizeof r->peer_name, "%s", peer->algorithm);
  }
  uint32_t paper_algs = rep->cases.items[r->case_index].paper;
  row_filter paper = {r->case_index, 0, NULL, "cuda", 0, 0, 0, paper_algs};
  const bench_row *best = paper_algs != 0 ? fastest(rep, &paper) : NULL;
  if (best != NULL) {
    r->speedup_paper = best->t.median_s / r->t.median_s;
    snprintf(r->paper_name, sizeof r->paper_name, "%s", best->algorithm);
  }
}

/* Whether our `algorithm` (NULL: any) ran on case ci on `backend`,
 * whatever its outcome. */
static int ran_on(const bench_report *rep, size_t ci, const char *algorithm, const char *backend) {
  for (size_t k = 0; k < rep->n_rows; k++) {
    const bench_row *r = &rep->rows[k];
    if (r->case_index == ci && !r->is_peer && strcmp(r->backend, backend) == 0 &&
        (algorithm == NULL || strcmp(r->algorithm, algorithm) == 0))
      return 1;
  }
  return 0;
}

/* The largest case of a primitive that `want` accepts and on which our
 * `algorithm` (NULL: any) ran on `backend`, or -1: a CPU target is stated
 * only where its rows ran (GPU runs have their own cases). */
typedef int (*case_pred)(const bench_case *c);

static long largest_case(const bench_report *rep, skss_op op, case_pred want, const char *algorithm,
                         const char *backend) {
  long best = -1;
  for (size_t k = 0; k < rep->cases.count; k++) {
    const bench_case *c = &rep->cases.items[k];
    if (c->op == op && want(c) && (best < 0 || c->x > rep->cases.items[best].x) &&
        ran_on(rep, k, algorithm, backend))
      best = (long)k;
  }
  return best;
}

static int is_fs(const bench_case *c) { return c->p.halftone.kernel == SKSS_DITHER_KERNEL_FLOYD_STEINBERG; }
static int is_sat_u8_padded(const bench_case *c) {
  return c->p.sat.in == SKSS_DTYPE_U8 && c->p.sat.out == SKSS_DTYPE_I32 &&
         c->p.sat.layout == SKSS_SAT_LAYOUT_PADDED;
}
static int is_value_only(const bench_case *c) { return c->p.knapsack.value_only; }

static bench_target *add_target(bench_report *rep, double goal, const char *unit) {
  if (rep->n_targets >= BENCH_MAX_TARGETS) return NULL;
  bench_target *t = &rep->targets[rep->n_targets++];
  *t = (bench_target){"", 0, goal, unit, 0};
  return t;
}

/* value = median of `slow` / median of `fast` (0 when either is missing). */
static void ratio_target(bench_report *rep, const bench_row *fast, const bench_row *slow, double goal,
                         const char *what) {
  bench_target *t = add_target(rep, goal, "x");
  if (t == NULL) return;
  snprintf(t->what, sizeof t->what, "%s", what);
  if (fast != NULL && slow != NULL) t->value = slow->t.median_s / fast->t.median_s;
}

static const bench_row *fastest_sequential_halftone(const bench_report *rep, size_t ci) {
  static const char *const SEQUENTIAL[] = {"ed", "ec", "ed-rc", "ec-rc"};
  const bench_row *best = NULL;
  for (size_t k = 0; k < sizeof SEQUENTIAL / sizeof SEQUENTIAL[0]; k++) {
    row_filter f = {ci, 0, SEQUENTIAL[k], NULL, 0, 0, 0, 0};
    const bench_row *r = fastest(rep, &f);
    if (r != NULL && (best == NULL || r->t.median_s < best->t.median_s)) best = r;
  }
  return best;
}

static void halftone_targets(const bench_config *cfg, bench_report *rep) {
  char what[160];
  long ci = largest_case(rep, SKSS_OP_HALFTONE, is_fs, "ec-rc", "cpu-ref");
  if (ci >= 0) {
    row_filter ecrc = {(size_t)ci, 0, "ec-rc", "cpu-ref", 0, 0, 0, 0};
    row_filter pillow = {(size_t)ci, 1, "pillow convert('1')", NULL, 0, 0, 0, 0};
    snprintf(what, sizeof what, "halftone fs %s: sequential ec-rc (cpu-ref) vs Pillow convert('1')",
             rep->cases.items[ci].size);
    ratio_target(rep, fastest(rep, &ecrc), fastest(rep, &pillow), 1.0, what);
  }
  ci = largest_case(rep, SKSS_OP_HALFTONE, is_fs, "taskarray-cpu", "cpu");
  if (ci >= 0) {
    row_filter parallel = {(size_t)ci, 0, "taskarray-cpu", "cpu", 0, 0, 0, 0};
    snprintf(what, sizeof what, "halftone fs %s: taskarray-cpu on %d threads vs the fastest sequential",
             rep->cases.items[ci].size, cfg->threads);
    ratio_target(rep, fastest(rep, &parallel), fastest_sequential_halftone(rep, (size_t)ci), 1.7, what);
  }
}

static void sat_target(const bench_config *cfg, bench_report *rep) {
  long ci = largest_case(rep, SKSS_OP_SAT, is_sat_u8_padded, NULL, "cpu");
  if (ci < 0) return;
  char what[160];
  row_filter ours = {(size_t)ci, 0, NULL, "cpu", 0, 0, 0, 0};
  row_filter cv = {(size_t)ci, 1, "cv2.integral", NULL, 0, cfg->threads, 1, 0};
  snprintf(what, sizeof what, "sat u8->i32 padded %s: fastest cpu algorithm vs cv2.integral, %d threads each",
           rep->cases.items[ci].size, cfg->threads);
  ratio_target(rep, fastest(rep, &ours), fastest(rep, &cv), 1.0, what);
}

/* Cells are the nominal n (C + 1) per solve; "per core" divides by the cores
 * the row kept busy (measured, at least 1). */
static void knapsack_target(bench_report *rep, const char *algorithm, const char *backend) {
  long ci = largest_case(rep, SKSS_OP_KNAPSACK, is_value_only, algorithm, backend);
  if (ci < 0) return;
  bench_target *t = add_target(rep, 2.0, "G cell/s/core");
  if (t == NULL) return;
  row_filter f = {(size_t)ci, 0, algorithm, backend, 0, 0, 0, 0};
  const bench_row *r = fastest(rep, &f);
  snprintf(t->what, sizeof t->what, "knapsack %s value only: %s (%s), nominal cells/s per core used",
           rep->cases.items[ci].size, algorithm, backend);
  if (r != NULL) t->value = r->throughput / (r->t.cores_used > 1 ? r->t.cores_used : 1) * 1e-9;
}

/* ---- the GPU targets, on the cases of the sat suite -------------------------------- */

#define GPU_SUITE_TABLE "sat suite"

/* The sat suite's case of this type pair with side `side` (0: the largest). */
static long gpu_suite_case(const bench_report *rep, skss_dtype in, skss_dtype out, int64_t side) {
  long best = -1;
  for (size_t k = 0; k < rep->cases.count; k++) {
    const bench_case *c = &rep->cases.items[k];
    if (c->op != SKSS_OP_SAT || strcmp(c->table, GPU_SUITE_TABLE) != 0 || c->p.sat.in != in ||
        c->p.sat.out != out)
      continue;
    if (side > 0 ? c->p.sat.width == side && c->p.sat.height == side
                 : best < 0 || c->x > rep->cases.items[best].x)
      best = (long)k;
  }
  return best;
}

static const bench_row *fastest_cuda(const bench_report *rep, long ci) {
  row_filter f = {(size_t)ci, 0, NULL, "cuda", 0, 0, 2, 0};
  return ci < 0 ? NULL : fastest(rep, &f);
}

static const char *variant_of(skss_dtype in) { return in == SKSS_DTYPE_U8 ? "u8->u32" : "f32"; }

static void copy_share_target(bench_report *rep, skss_dtype in, skss_dtype out) {
  long ci = gpu_suite_case(rep, in, out, 0);
  const bench_row *r = fastest_cuda(rep, ci);
  bench_target *t = ci < 0 ? NULL : add_target(rep, 85, "% copy");
  if (t == NULL) return;
  snprintf(t->what, sizeof t->what, "sat %s %s: fastest cuda algorithm (%s), share of the device copy",
           variant_of(in), rep->cases.items[ci].size, r ? r->algorithm : "none");
  if (r != NULL) t->value = r->pct_copy;
}

static void latency_target(bench_report *rep, int64_t side, double goal_us) {
  long ci = gpu_suite_case(rep, SKSS_DTYPE_F32, SKSS_DTYPE_F32, side);
  const bench_row *r = fastest_cuda(rep, ci);
  bench_target *t = ci < 0 ? NULL : add_target(rep, goal_us, "us");
  if (t == NULL) return;
  t->at_most = 1;
  snprintf(t->what, sizeof t->what, "sat f32 %s: fastest cuda algorithm (%s), median device time",
           rep->cases.items[ci].size, r ? r->algorithm : "none");
  if (r != NULL) t->value = r->t.median_s * 1e6;
}

/* Fastest cuda row against the fastest peer whose name starts with `peer`. */
static void gpu_peer_target(bench_report *rep, long ci, const char *peer, double goal, const char *what) {
  const bench_row *best = NULL;
  for (size_t k = 0; k < rep->n_rows; k++) {
    const bench_row *r = &rep->rows[k];
    if ((long)r->case_index == ci && r->is_peer && r->on_gpu && r->outcome == BENCH_ROW_OK &&
        strncmp(r->algorithm, peer, strlen(peer)) == 0 && (best == NULL || r->t.median_s < best->t.median_s))
      best = r;
  }
  char text[160];
  snprintf(text, sizeof text, "%s %s: fastest cuda algorithm vs %s", what, rep->cases.items[ci].size,
           best ? best->algorithm : peer);
  ratio_target(rep, fastest_cuda(rep, ci), best, goal, text);
}

static void gpu_targets(bench_report *rep) {
  long f32 = gpu_suite_case(rep, SKSS_DTYPE_F32, SKSS_DTYPE_F32, 0);
  if (f32 < 0 && gpu_suite_case(rep, SKSS_DTYPE_U8, SKSS_DTYPE_U32, 0) < 0) return;
  copy_share_target(rep, SKSS_DTYPE_F32, SKSS_DTYPE_F32);
  if (f32 >= 0) gpu_peer_target(rep, f32, "torch.cumsum", 10, "sat f32");
  copy_share_target(rep, SKSS_DTYPE_U8, SKSS_DTYPE_U32);
  latency_target(rep, 4096, 50);
  latency_target(rep, 1024, 10);
  for (size_t k = 0; k < rep->cases.count; k++) {
    const bench_case *c = &rep->cases.items[k];
    if (strcmp(c->table, GPU_SUITE_TABLE) == 0 && c->p.sat.in == SKSS_DTYPE_U8 && c->p.sat.width >= 2048)
      gpu_peer_target(rep, (long)k, "npp", 3, "sat u8->u32");
  }
}

/* ---- the GPU compaction targets (issue 22), on suite compact-papers' cases ---------- */

/* The compaction case of `table` with n elements and `variant` ("f32 values, 50%"), or -1. */
static long compact_case(const bench_report *rep, const char *table, int64_t n, const char *variant) {
  for (size_t k = 0; k < rep->cases.count; k++) {
    const bench_case *c = &rep->cases.items[k];
    if (c->op == SKSS_OP_COMPACT && strcmp(c->table, table) == 0 && c->p.compact.n == n &&
        strcmp(c->variant, variant) == 0)
      return (long)k;
  }
  return -1;
}

static void compact_latency_target(bench_report *rep, long ci, double goal_us, const char *what) {
  const bench_row *r = fastest_cuda(rep, ci);
  bench_target *t = ci < 0 || r == NULL ? NULL : add_target(rep, goal_us, "us");
  if (t == NULL) return;
  t->at_most = 1;
  snprintf(t->what, sizeof t->what, "%s: fastest cuda algorithm (%s), median device time", what, r->algorithm);
  t->value = r->t.median_s * 1e6;
}

static void compact_targets(bench_report *rep) {
  static const char *const VARIANTS[] = {"f32 values, 0%", "f32 values, 50%", "f32 values, 100%"};
  const long big = compact_case(rep, "compaction selectivity", (int64_t)1 << 28, "f32 values, 50%");
  if (big >= 0 && fastest_cuda(rep, big) != NULL) {
    const bench_row *r = fastest_cuda(rep, big);
    bench_target *t = add_target(rep, 85, "% copy");
    if (t != NULL) {
      snprintf(t->what, sizeof t->what, "compact f32 2^28 50%%: fastest cuda algorithm (%s), share of the device copy",
               r->algorithm);
      t->value = r->pct_copy;
    }
  }
  for (size_t v = 0; v < sizeof VARIANTS / sizeof VARIANTS[0]; v++)
    for (int lg = 20; lg <= 30; lg += 4) {
      const long ci = compact_case(rep, "compaction selectivity", (int64_t)1 << lg, VARIANTS[v]);
      if (ci < 0 || fastest_cuda(rep, ci) == NULL) continue;
      char what[64];
      snprintf(what, sizeof what, "compact %s", VARIANTS[v]);
      gpu_peer_target(rep, ci, "cub DeviceSelect::If", 1, what);
    }
  compact_latency_target(rep, compact_case(rep, "compaction paper Table 1, n >= 32768", 65536, "f32 values, 50%"), 5,
                         "compact f32 2^16");
  compact_latency_target(rep, compact_case(rep, "compaction paper Table 1, n >= 32768", 8388600, "f32 values, 50%"),
                         20, "compact f32 8,388,600 (the paper's largest)");
}

void bench_relate(const bench_config *cfg, bench_report *rep) {
  for (size_t k = 0; k < rep->n_rows; k++) relate_row(rep, &rep->rows[k]);
  halftone_targets(cfg, rep);
  sat_target(cfg, rep);
  knapsack_target(rep, "dp", "cpu");
  knapsack_target(rep, "taskarray-cpu", "cpu");
  gpu_targets(rep);
  compact_targets(rep);
}
