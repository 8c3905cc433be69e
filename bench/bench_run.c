/*
 * bench_run.c — the driver of `skss bench`: cases, contexts, and for every
 * (case, backend, algorithm) one checked and timed row.
 *
 * Per case: the primitive makes its seeded inputs and the CPU_REF reference
 * once; then every backend asked for (and among the case's backends, when
 * it names them) runs every algorithm it implements
 * (skss_algorithm_supported) that the case lists: outputs poisoned, one
 * call, comparison with the reference (a mismatch fails the row, the
 * benchmark goes on), one warm-up call, and the timed calls of
 * bench_measure(). The CPU backend's threads come from --threads; CPU_REF is
 * sequential by definition.
 *
 * GPU runs (the cuda backend is asked for and has a device): one stream
 * (bench_cuda.cu) carries every CUDA context; primitives with device
 * operations get their cases uploaded once, and their cuda rows call the
 * library on device pointers, are checked on the device and timed with CUDA
 * events (bench_gpu_measure); then the (1+r)R1W sweep and the in-process GPU
 * peers of the case. The device copy bandwidth is measured in the same run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define BENCH_COPY_BYTES ((size_t)256 << 20)
#define BENCH_COPY_BYTES_QUICK ((size_t)128 << 20)
#define BENCH_GPU_COPY_BYTES ((size_t)1 << 30)
/* Algorithm ids are below this (the masks of bench_case are 32 bits). */
#define BENCH_MAX_ALGORITHM 32
/* The reference row of a GPU table is not timed when one call took longer. */
#define BENCH_REFERENCE_LIMIT_S 10.0

static const bench_primitive *const PRIMITIVES[] = {
    [SKSS_OP_SAT] = &bench_sat,
    [SKSS_OP_HALFTONE] = &bench_halftone,
    [SKSS_OP_KNAPSACK] = &bench_knapsack,
    [SKSS_OP_COMPACT] = &bench_compact,
    [SKSS_OP_ALIGN] = &bench_align,
};

const char *bench_op_name(skss_op op) { return PRIMITIVES[op]->name; }

void bench_config_defaults(bench_config *cfg) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  *cfg = (bench_config){0};
  cfg->backends = (1u << SKSS_BACKEND_CPU_REF) | (1u << SKSS_BACKEND_CPU) | (1u << SKSS_BACKEND_CUDA);
  cfg->threads = cpus > 0 ? (int)cpus : 1;
  cfg->suites = BENCH_SUITE_ALL;
  cfg->peers = 1;
  cfg->python = "python3";
  cfg->seed = 1;
}

void *bench_alloc(size_t bytes, char err[BENCH_ERRLEN]) {
  void *p = malloc(bytes ? bytes : 1);
  if (p == NULL) snprintf(err, BENCH_ERRLEN, "out of memory allocating %zu bytes", bytes);
  return p;
}

int bench_status_error(skss_ctx *ctx, const char *what, skss_status status, char err[BENCH_ERRLEN]) {
  if (status == SKSS_OK) return 0;
  snprintf(err, BENCH_ERRLEN, "%s: %s: %s", what, skss_status_string(status), skss_ctx_last_error(ctx));
  return -1;
}

void bench_format_count(char *buf, size_t len, int64_t n) {
  int exp = 0;
  int64_t m = n;
  while (m >= 10 && m % 10 == 0) {
    m /= 10;
    exp++;
  }
  if (m == 1 && exp >= 4)
    snprintf(buf, len, "1e%d", exp);
  else
    snprintf(buf, len, "%lld", (long long)n);
}

int bench_reference_algorithm(skss_op op) {
  for (int a = 1; skss_algorithm_name(op, a) != NULL; a++)
    if (skss_algorithm_supported(op, a, SKSS_BACKEND_CPU_REF)) return a;
  return 0;
}

bench_case *bench_cases_add(bench_cases *list, skss_op op) {
  if (list->count == list->cap) {
    size_t cap = list->cap ? 2 * list->cap : 32;
    bench_case *items = realloc(list->items, cap * sizeof *items);
    if (items == NULL) return NULL;
    list->items = items;
    list->cap = cap;
  }
  bench_case *c = &list->items[list->count++];
  *c = (bench_case){0};
  c->op = op;
  return c;
}

bench_row *bench_report_add_row(bench_report *rep, size_t case_index) {
  if (rep->n_rows == rep->cap_rows) {
    size_t cap = rep->cap_rows ? 2 * rep->cap_rows : 64;
    bench_row *rows = realloc(rep->rows, cap * sizeof *rows);
    if (rows == NULL) return NULL;
    rep->rows = rows;
    rep->cap_rows = cap;
  }
  bench_row *r = &rep->rows[rep->n_rows++];
  *r = (bench_row){0};
  r->case_index = case_index;
  r->optimal = -1;
  return r;
}

void bench_report_free(bench_report *rep) {
  free(rep->cases.items);
  free(rep->rows);
  *rep = (bench_report){0};
}

size_t bench_report_failures(const bench_report *rep) {
  size_t failed = 0;
  for (size_t k = 0; k < rep->n_rows; k++)
    failed += !rep->rows[k].is_peer && rep->rows[k].outcome == BENCH_ROW_FAILED;
  return failed;
}

static void add_note(bench_report *rep, const char *text) {
  if (rep->n_notes < (int)(sizeof rep->notes / sizeof rep->notes[0]))
    snprintf(rep->notes[rep->n_notes++], BENCH_ERRLEN, "%s", text);
}

/* One timed call of an algorithm on a context. */
typedef struct timed_call {
  const bench_primitive *prim;
  void *job;
  skss_ctx *ctx;
  int algorithm;
} timed_call;

static int timed_body(void *arg) {
  timed_call *call = arg;
  return call->prim->run(call->job, call->ctx, call->algorithm) != SKSS_OK;
}

static int device_body(void *arg) {
  timed_call *call = arg;
  return call->prim->device->run(call->job, call->ctx, call->algorithm) != SKSS_OK;
}

static void progress(const bench_config *cfg, const bench_case *c, const bench_row *r) {
  if (cfg->progress == NULL) return;
  fprintf(cfg->progress, "  %-8s %-20s %-13s %-22s %-7s", PRIMITIVES[c->op]->name, c->variant,
          c->size, r->algorithm, r->backend);
  if (r->outcome == BENCH_ROW_OK)
    fprintf(cfg->progress, " %10.4f ms (%d runs)\n", r->t.median_s * 1e3, r->t.runs);
  else
    fprintf(cfg->progress, " %s: %s\n", r->outcome == BENCH_ROW_FAILED ? "FAILED" : "not timed",
            r->message);
  fflush(cfg->progress);
}

/* Poisons the outputs, runs once, compares with the reference, and warms up
 * with a second call; returns 0, or -1 with err set. */
static int check_and_warm_up(const timed_call *call, char err[BENCH_ERRLEN]) {
  const bench_primitive *prim = call->prim;
  char what[48], detail[BENCH_ERRLEN];
  snprintf(what, sizeof what, "skss_%s", prim->name);
  prim->poison(call->job);
  if (bench_status_error(call->ctx, what, prim->run(call->job, call->ctx, call->algorithm), err)) return -1;
  if (prim->check(call->job, detail) != 0) {
    snprintf(err, BENCH_ERRLEN, "differs from the cpu-ref result: %.200s", detail);
    return -1;
  }
  return bench_status_error(call->ctx, what, prim->run(call->job, call->ctx, call->algorithm), err);
}

/* Checks and times one algorithm; the outcome goes into `r`. */
static void measure_row(const bench_config *cfg, const bench_case *c, timed_call *call, bench_row *r) {
  char err[BENCH_ERRLEN] = "";
  if (check_and_warm_up(call, err) == 0) {
    bench_plan plan = bench_plan_for(cfg);
    if (bench_measure(timed_body, call, &plan, &r->t) == 0) {
      r->bytes = call->prim->bytes(call->job);
      r->throughput = c->items / r->t.median_s;
      return;
    }
    snprintf(err, sizeof err, "a timed call failed: %s", skss_ctx_last_error(call->ctx));
  }
  r->outcome = BENCH_ROW_FAILED;
  snprintf(r->message, sizeof r->message, "%s", err);
}

/* Poisons the device outputs, runs once, waits (deferred errors surface
 * here), compares with the device reference, and warms up; 0 or -1. */
static int device_check_and_warm_up(const timed_call *call, char err[BENCH_ERRLEN]) {
  const bench_device_ops *dev = call->prim->device;
  char what[48], detail[BENCH_ERRLEN];
  snprintf(what, sizeof what, "skss_%s", call->prim->name);
  if (dev->poison(call->job, err) != 0 ||
      bench_status_error(call->ctx, what, dev->run(call->job, call->ctx, call->algorithm), err) ||
      bench_status_error(call->ctx, what, skss_ctx_synchronize(call->ctx), err))
    return -1;
  if (dev->check(call->job, call->algorithm, detail) != 0) {
    snprintf(err, BENCH_ERRLEN, "differs from the cpu-ref result: %.200s", detail);
    return -1;
  }
  return bench_status_error(call->ctx, what, dev->run(call->job, call->ctx, call->algorithm), err);
}

/* A cuda row on the device buffers, timed with CUDA events. */
static void measure_device_row(const bench_config *cfg, bench_gpu *gpu, const bench_case *c,
                               timed_call *call, bench_row *r) {
  char err[BENCH_ERRLEN] = "";
  r->on_gpu = 1;
  if (device_check_and_warm_up(call, err) == 0) {
    bench_plan plan = bench_gpu_plan_for(cfg);
    int rc = bench_gpu_measure(gpu, device_body, call, &plan, &r->t, err);
    if (rc > 0) snprintf(err, sizeof err, "a timed call failed: %s", skss_ctx_last_error(call->ctx));
    if (rc == 0 && bench_status_error(call->ctx, "skss_sat", skss_ctx_synchronize(call->ctx), err) == 0) {
      r->bytes = call->prim->bytes(call->job);
      r->throughput = c->items / r->t.median_s;
      return;
    }
  }
  r->outcome = BENCH_ROW_FAILED;
  snprintf(r->message, sizeof r->message, "%s", err);
}

/* The algorithms a backend runs: every named one it implements (the ids
 * have gaps: SAT's CUDA algorithms start at 16), or AUTO alone when it
 * implements none by name. */
static int backend_algorithms(skss_op op, skss_backend backend, int *out, int max) {
  int n = 0;
  for (int a = 1; a < BENCH_MAX_ALGORITHM && n < max; a++)
    if (skss_algorithm_name(op, a) != NULL && skss_algorithm_supported(op, a, backend)) out[n++] = a;
  if (n == 0 && skss_algorithm_supported(op, 0, backend)) out[n++] = 0;
  return n;
}

/* One case's run: where its rows go and how its cuda rows are timed. */
typedef struct case_run {
  const bench_config *cfg;
  bench_report *rep;
  size_t ci;
  const bench_primitive *prim;
  void *job;
  bench_gpu *gpu;                /* non-NULL: cuda rows on device buffers */
  char device_err[BENCH_ERRLEN]; /* the upload failed: every cuda row fails so */
} case_run;

static bench_row *add_our_row(case_run *cr, int algorithm, skss_backend b, skss_ctx *ctx) {
  bench_row *r = bench_report_add_row(cr->rep, cr->ci);
  if (r == NULL) return NULL;
  skss_op op = cr->rep->cases.items[cr->ci].op;
  snprintf(r->algorithm, sizeof r->algorithm, "%s", skss_algorithm_name(op, algorithm));
  snprintf(r->backend, sizeof r->backend, "%s", skss_backend_name(b));
  r->algorithm_id = algorithm;
  r->threads = b == SKSS_BACKEND_CUDA ? 0 : skss_ctx_threads(ctx);
  return r;
}

/* Checks and times one algorithm of one backend (the row is in place). */
static void measure_any_row(case_run *cr, skss_backend b, timed_call *call, bench_row *r) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  if (b != SKSS_BACKEND_CUDA || cr->prim->device == NULL || cr->gpu == NULL) {
    measure_row(cr->cfg, c, call, r);
  } else if (cr->device_err[0] != '\0') {
    r->on_gpu = 1;
    r->outcome = BENCH_ROW_FAILED;
    snprintf(r->message, sizeof r->message, "%s", cr->device_err);
  } else {
    measure_device_row(cr->cfg, cr->gpu, c, call, r);
  }
  progress(cr->cfg, c, r);
}

/* The GPU tables list the sequential reference (the papers' "Sequential"
 * rows): when cpu-ref is not among the backends (or not among the case's)
 * it is timed here, on the
 * reference context, unchecked (it is the reference) and without a second
 * warm-up (prepare just ran it), unless that one call took too long. */
static void measure_reference_row(case_run *cr, skss_ctx *ref, int algorithm) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  bench_row *r = add_our_row(cr, algorithm, SKSS_BACKEND_CPU_REF, ref);
  if (r == NULL) return;
  timed_call call = {cr->prim, cr->job, ref, algorithm};
  bench_plan plan = bench_plan_for(cr->cfg);
  plan.max_time_s = cr->cfg->quick ? 1.0 : 3.0;
  if (c->ref_s >= BENCH_REFERENCE_LIMIT_S) {
    r->outcome = BENCH_ROW_TIMEOUT;
    snprintf(r->message, sizeof r->message, "one call took %.1f s (limit %.0f s)", c->ref_s,
             BENCH_REFERENCE_LIMIT_S);
  } else if (bench_measure(timed_body, &call, &plan, &r->t) == 0) {
    r->bytes = cr->prim->bytes(cr->job);
    r->throughput = c->items / r->t.median_s;
  } else {
    r->outcome = BENCH_ROW_FAILED;
    snprintf(r->message, sizeof r->message, "%s", skss_ctx_last_error(ref));
  }
  progress(cr->cfg, c, r);
}

/* (1+r)R1W at each r of the HMM paper's sweep, then back to the tuning. */
static void sweep_hybrid_r(case_run *cr, skss_ctx *ctx) {
  static const double R[] = BENCH_R_SWEEP;
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  for (size_t k = 0; k < sizeof R / sizeof R[0]; k++) {
    bench_row *r = add_our_row(cr, SKSS_SAT_ALGORITHM_1PR_R1W, SKSS_BACKEND_CUDA, ctx);
    if (r == NULL) break;
    snprintf(r->algorithm, sizeof r->algorithm, "1+r-r1w r=%.2f", R[k]);
    r->param = R[k];
    timed_call call = {cr->prim, cr->job, ctx, SKSS_SAT_ALGORITHM_1PR_R1W};
    if (bench_status_error(ctx, "set r", bench_gpu_set_hybrid_r(ctx, R[k]), r->message) == 0) {
      measure_any_row(cr, SKSS_BACKEND_CUDA, &call, r);
    } else {
      r->on_gpu = 1;
      r->outcome = BENCH_ROW_FAILED;
      progress(cr->cfg, c, r);
    }
  }
  bench_gpu_set_hybrid_r(ctx, 0);
}

/* AUTO one call at a time, events around the call (bench_gpu_measure_single):
 * what a user who times one call sees, host work included. */
static void measure_single_call(case_run *cr, skss_ctx *ctx) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  bench_row *r = add_our_row(cr, 0, SKSS_BACKEND_CUDA, ctx);
  if (r == NULL) return;
  snprintf(r->algorithm, sizeof r->algorithm, "auto, one call");
  timed_call call = {cr->prim, cr->job, ctx, 0};
  char err[BENCH_ERRLEN] = "";
  r->on_gpu = 1;
  if (device_check_and_warm_up(&call, err) == 0) {
    bench_plan plan = bench_gpu_plan_for(cr->cfg);
    int rc = bench_gpu_measure_single(cr->gpu, device_body, &call, &plan, &r->t, err);
    if (rc > 0) snprintf(err, sizeof err, "a timed call failed: %s", skss_ctx_last_error(ctx));
    if (rc == 0) {
      r->bytes = cr->prim->bytes(cr->job);
      r->throughput = c->items / r->t.median_s;
      progress(cr->cfg, c, r);
      return;
    }
  }
  r->outcome = BENCH_ROW_FAILED;
  snprintf(r->message, sizeof r->message, "%s", err);
  progress(cr->cfg, c, r);
}

/* A device-to-device copy of the case's bytes (read + written), timed as
 * the cuda rows are: their floor, measured beside them. */
static void measure_copy_row(case_run *cr) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  bench_row *r = bench_report_add_row(cr->rep, cr->ci);
  if (r == NULL) return;
  snprintf(r->algorithm, sizeof r->algorithm, "d2d copy, same bytes");
  snprintf(r->backend, sizeof r->backend, "copy");
  r->on_gpu = 1;
  snprintf(r->check, sizeof r->check, "n/a");
  const double bytes = cr->prim->bytes(cr->job);
  bench_plan plan = bench_gpu_plan_for(cr->cfg);
  if (bench_gpu_copy_time(cr->gpu, bytes, &plan, &r->t, r->message) == 0) {
    r->bytes = bytes;
    r->throughput = c->items / r->t.median_s;
  } else {
    r->outcome = BENCH_ROW_FAILED;
  }
  progress(cr->cfg, c, r);
}

/* After a case's cuda rows: the one-call and copy rows, the r sweep and
 * the in-process GPU peers. */
static void device_extras(case_run *cr, skss_ctx *ctx) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  if (cr->gpu == NULL || cr->prim->device == NULL || cr->device_err[0] != '\0') return;
  if (c->single_call) measure_single_call(cr, ctx);
  if (c->copy_row) measure_copy_row(cr);
  if (c->r_sweep) sweep_hybrid_r(cr, ctx);
  if (c->no_peers || !cr->cfg->peers) return;
  size_t first = cr->rep->n_rows;
  cr->prim->device->peers(cr->job, cr->cfg, cr->rep, cr->ci);
  for (size_t k = first; k < cr->rep->n_rows; k++) progress(cr->cfg, c, &cr->rep->rows[k]);
}

static void run_backend(case_run *cr, skss_backend b, skss_ctx *ctx) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  int algs[32];
  int n = backend_algorithms(c->op, b, algs, 32);
  for (int k = 0; k < n; k++) {
    if (c->algorithms != 0 && !(c->algorithms & (1u << algs[k]))) continue;
    bench_row *r = add_our_row(cr, algs[k], b, ctx);
    if (r == NULL) return;
    timed_call call = {cr->prim, cr->job, ctx, algs[k]};
    measure_any_row(cr, b, &call, r);
  }
  if (b == SKSS_BACKEND_CUDA) device_extras(cr, ctx);
}

/* A backend the case leaves out for time: one row that says so. */
static void skipped_row(case_run *cr, skss_backend b, skss_ctx *ctx) {
  const bench_case *c = &cr->rep->cases.items[cr->ci];
  bench_row *r = add_our_row(cr, 0, b, ctx);
  if (r == NULL) return;
  r->outcome = BENCH_ROW_TIMEOUT;
  snprintf(r->message, sizeof r->message, "%s", c->skip_reason);
  progress(cr->cfg, c, r);
}

static void run_case(const bench_config *cfg, bench_report *rep, size_t ci, skss_ctx *ref,
                     skss_ctx *const ctxs[], bench_gpu *gpu) {
  bench_case *c = &rep->cases.items[ci];
  case_run cr = {cfg, rep, ci, PRIMITIVES[c->op], NULL, NULL, ""};
  char err[BENCH_ERRLEN] = "";
  cr.job = cr.prim->prepare(c, cfg, ref, err);
  if (cr.job == NULL) {
    bench_row *r = add_our_row(&cr, bench_reference_algorithm(c->op), SKSS_BACKEND_CPU_REF, ref);
    if (r == NULL) return;
    r->outcome = BENCH_ROW_FAILED;
    snprintf(r->message, sizeof r->message, "%s", err);
    progress(cfg, c, r);
    return;
  }
  const int ref_backend_runs = ctxs[SKSS_BACKEND_CPU_REF] != NULL &&
                               (c->backends == 0 || (c->backends >> SKSS_BACKEND_CPU_REF) & 1u);
  if (c->time_reference && !ref_backend_runs) {
    measure_reference_row(&cr, ref, bench_reference_algorithm(c->op));
    /* the table's other sequential rows (the HMM paper's 4R1W(CPU)) */
    for (int a = 1; a < 32; a++)
      if ((c->reference_extra >> a) & 1u) measure_reference_row(&cr, ref, a);
  }
  if (gpu != NULL && ctxs[SKSS_BACKEND_CUDA] != NULL && cr.prim->device != NULL) {
    cr.gpu = gpu;
    if (cr.prim->device->upload(cr.job, gpu, cr.device_err) != 0 && cr.device_err[0] == '\0')
      snprintf(cr.device_err, sizeof cr.device_err, "the upload to the device failed");
  }
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
    if (ctxs[b] != NULL && (c->backends == 0 || (c->backends >> b) & 1u))
      run_backend(&cr, (skss_backend)b, ctxs[b]);
    if (ctxs[b] != NULL && (c->skipped >> b) & 1u) skipped_row(&cr, (skss_backend)b, ctxs[b]);
  }
  cr.prim->release(cr.job);
}

static skss_ctx *make_context(const bench_config *cfg, bench_report *rep, skss_backend b, bench_gpu *gpu) {
  char note[BENCH_ERRLEN];
  if (!skss_backend_available(b)) {
    snprintf(note, sizeof note, "backend %s: not available (%s); skipped", skss_backend_name(b),
             skss_backend_built(b) ? "no usable device" : "not in this build");
    add_note(rep, note);
    return NULL;
  }
  skss_ctx_desc desc = SKSS_CTX_DESC_INIT;
  desc.backend = b;
  /* cuda: the run's host threads too, as a default context has them, for
   * the host-side parts of a call (knapsack lists, alignment pieces) */
  desc.threads = b == SKSS_BACKEND_CPU_REF ? 1 : cfg->threads;
  if (b == SKSS_BACKEND_CUDA && gpu != NULL) desc.cuda_stream = bench_gpu_stream(gpu);
  skss_ctx *ctx = NULL;
  skss_status st = skss_ctx_create(&desc, &ctx);
  if (st != SKSS_OK) {
    snprintf(note, sizeof note, "backend %s: context creation failed: %s", skss_backend_name(b),
             skss_status_string(st));
    add_note(rep, note);
  }
  return ctx;
}

/* --table: keeps the cases whose table title contains `part` (one paper
 * table of a long suite, run on its own). */
static void keep_table(const char *part, bench_cases *cases) {
  size_t kept = 0;
  for (size_t k = 0; k < cases->count; k++)
    if (strstr(cases->items[k].table, part) != NULL) cases->items[kept++] = cases->items[k];
  cases->count = kept;
}

static int add_all_cases(const bench_config *cfg, bench_report *rep, char err[BENCH_ERRLEN]) {
  if ((cfg->suites & BENCH_SUITE_SAT_MATRIX) && !cfg->gpu)
    add_note(rep, "suite sat-matrix: a GPU suite; the cuda backend does not run");
  if ((cfg->suites & BENCH_SUITE_SAT_PAPERS) && !cfg->gpu)
    add_note(rep, "suite sat-papers: the papers' tables are GPU tables; the cuda backend does not run");
  if ((cfg->suites & BENCH_SUITE_HALFTONE_PAPERS) && !cfg->gpu)
    add_note(rep, "suite halftone-papers: the papers' tables are GPU tables; the cuda backend does not run");
  if ((cfg->suites & BENCH_SUITE_KNAPSACK_PAPERS) && !cfg->gpu)
    add_note(rep, "suite knapsack-papers: the cuda backend does not run: the host rows only (the paper's "
                  "algorithms and strips are cuda algorithms)");
  if (cfg->suites & BENCH_SUITE_KNAPSACK_PAPERS) {
    add_note(rep, bench_knapsack_paper_note);
    add_note(rep, bench_knapsack_claim_note);
  }
  if (cfg->suites & BENCH_SUITE_COMPACT_PAPERS) {
    char note[BENCH_ERRLEN];
    if (!cfg->gpu)
      add_note(rep, "suite compact-papers: the cuda backend does not run: the host rows only");
    if (!cfg->quick && cfg->n_sizes == 0 && bench_compact_selectivity_max() < (int64_t)1 << 30) {
      int log2 = 0;
      while (((int64_t)1 << (log2 + 1)) <= bench_compact_selectivity_max()) log2++;
      snprintf(note, sizeof note, "suite compact-papers: the selectivity sweep stops at n = 2^%d, not 2^30: "
               "its indices cases need 20 bytes an element, at most a quarter of this machine's memory", log2);
      add_note(rep, note);
    }
    for (int k = 0; bench_compact_paper_notes[k] != NULL; k++) add_note(rep, bench_compact_paper_notes[k]);
  }
  for (int op = SKSS_OP_SAT; op <= SKSS_OP_ALIGN; op++) {
    unsigned bits = op == SKSS_OP_ALIGN ? (unsigned)BENCH_SUITE_ALIGN :
                    1u << op |
                    (op == SKSS_OP_SAT ? (unsigned)(BENCH_SUITE_SAT_PAPERS | BENCH_SUITE_SAT_MATRIX) : 0u) |
                    (op == SKSS_OP_HALFTONE ? (unsigned)BENCH_SUITE_HALFTONE_PAPERS : 0u) |
                    (op == SKSS_OP_KNAPSACK ? (unsigned)(BENCH_SUITE_KNAPSACK_PAPERS | BENCH_SUITE_KNAPSACK_CLASSES) : 0u) |
                    (op == SKSS_OP_COMPACT ? (unsigned)BENCH_SUITE_COMPACT_PAPERS : 0u);
    if (!(cfg->suites & bits)) continue;
    if (PRIMITIVES[op]->add_cases(cfg, &rep->cases) != 0) {
      snprintf(err, BENCH_ERRLEN, "out of memory listing the %s cases", PRIMITIVES[op]->name);
      return -1;
    }
  }
  if (cfg->table != NULL) {
    keep_table(cfg->table, &rep->cases);
    if (rep->cases.count == 0) {
      snprintf(err, BENCH_ERRLEN, "--table %.100s: no case of the chosen suites is in a table so named", cfg->table);
      return -1;
    }
  }
  return 0;
}

static void probe_copy_bandwidth(const bench_config *cfg, bench_report *rep, bench_gpu *gpu) {
  int reps = cfg->quick ? 3 : 7;
  rep->copy_bytes = cfg->quick ? BENCH_COPY_BYTES_QUICK : BENCH_COPY_BYTES;
  rep->copy_threads = cfg->threads;
  rep->copy_gbs_1 = bench_copy_bandwidth(rep->copy_bytes, 1, reps);
  rep->copy_gbs_n = cfg->threads > 1 ? bench_copy_bandwidth(rep->copy_bytes, cfg->threads, reps)
                                     : rep->copy_gbs_1;
  if (rep->copy_gbs_1 <= 0) add_note(rep, "copy bandwidth: buffers could not be allocated");
  if (gpu == NULL) return;
  rep->copy_gpu_bytes = BENCH_GPU_COPY_BYTES;
  rep->copy_gbs_gpu = bench_gpu_copy_bandwidth(gpu, rep->copy_gpu_bytes, cfg->quick ? 5 : 15);
  if (rep->copy_gbs_gpu <= 0) add_note(rep, "device copy bandwidth: buffers could not be allocated");
}

/* Suite taskarray: the GPU scheduler's ns per task at each size (rows x
 * cols; default 10^4 x 10^4, --quick 2000 x 2000), a note and a target
 * (<= 2 ns a task) each. */
static void run_taskarray_suite(const bench_config *cfg, bench_report *rep, skss_ctx *cuda, bench_gpu *gpu) {
  if (!cfg->gpu) {
    add_note(rep, "suite taskarray: the scheduler's cost is a GPU measure; the cuda backend does not run");
    return;
  }
  const bench_size quick = {cfg->quick ? 2000 : 10000, 0};
  const bench_size *sizes = cfg->n_sizes > 0 ? cfg->sizes : &quick;
  const bench_plan plan = bench_gpu_plan_for(cfg);
  for (int k = 0; k < (cfg->n_sizes > 0 ? cfg->n_sizes : 1); k++) {
    const int64_t rows = sizes[k].a, cols = sizes[k].b ? sizes[k].b : sizes[k].a;
    char err[BENCH_ERRLEN], note[BENCH_ERRLEN], r[24], c[24];
    bench_format_count(r, sizeof r, rows);
    bench_format_count(c, sizeof c, cols);
    bench_stats t;
    int blocks = 0;
    const int rc = bench_gpu_taskarray(gpu, cuda, rows, cols, &plan, &t, &blocks, err);
    const double tasks = (double)rows * (double)cols, ns = rc == 0 && tasks > 0 ? t.median_s * 1e9 / tasks : 0;
    if (rc == 0)
      snprintf(note, sizeof note, "taskarray: %s x %s forward no-op tasks, %d blocks of 2 warp workers: %.3f ms, "
               "%.3f ns/task (median of %d runs)", r, c, blocks, t.median_s * 1e3, ns, t.runs);
    else
      snprintf(note, sizeof note, "taskarray: %s x %s failed: %.180s", r, c, err);
    add_note(rep, note);
    if (cfg->progress != NULL) fprintf(cfg->progress, "  %s\n", note);
    if (rep->n_targets >= BENCH_MAX_TARGETS) continue;
    bench_target *tg = &rep->targets[rep->n_targets++];
    *tg = (bench_target){"", ns, 2.0, "ns/task", 1};
    snprintf(tg->what, sizeof tg->what, "task-array scheduler, %s x %s forward no-op tasks (GPU)", r, c);
  }
}

/* The device of a GPU run: when the cuda backend is asked for and has one. */
static bench_gpu *open_gpu(const bench_config *cfg, bench_report *rep) {
  bench_gpu *gpu = NULL;
  char err[BENCH_ERRLEN], note[BENCH_ERRLEN];
  if (!(cfg->backends & (1u << SKSS_BACKEND_CUDA)) || !skss_backend_available(SKSS_BACKEND_CUDA)) return NULL;
  if (bench_gpu_open(&gpu, err) != 0) {
    snprintf(note, sizeof note, "GPU timing unavailable (%.200s): cuda rows use host buffers", err);
    add_note(rep, note);
  }
  return gpu;
}

/* The contexts of the requested backends; returns how many could be made. */
static int make_contexts(const bench_config *cfg, bench_report *rep, skss_ctx *ctxs[], bench_gpu *gpu) {
  int made = 0;
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
    if (cfg->backends & (1u << b)) ctxs[b] = make_context(cfg, rep, (skss_backend)b, gpu);
    made += ctxs[b] != NULL;
  }
  return made;
}

static void destroy_contexts(skss_ctx *ref, skss_ctx *ctxs[]) {
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) skss_ctx_destroy(ctxs[b]);
  skss_ctx_destroy(ref);
}

/* The GPU's contexts and buffers are gone before the peers start, so the
 * Python GPU peers get the whole device. */
static void destroy_all(skss_ctx *ref, skss_ctx *ctxs[], bench_gpu *gpu) {
  destroy_contexts(ref, ctxs);
  bench_gpu_close(gpu);
}

int bench_run(const bench_config *cfg, bench_report *rep, char err[BENCH_ERRLEN]) {
  double start = bench_now();
  *rep = (bench_report){0};
  skss_ctx *ref = NULL, *ctxs[SKSS_BACKEND_CUDA + 1] = {NULL};
  skss_ctx_desc ref_desc = SKSS_CTX_DESC_INIT;
  ref_desc.backend = SKSS_BACKEND_CPU_REF;
  skss_status st = skss_ctx_create(&ref_desc, &ref);
  if (st != SKSS_OK) {
    snprintf(err, BENCH_ERRLEN, "cannot create the cpu-ref context: %s", skss_status_string(st));
    return -1;
  }
  bench_gpu *gpu = open_gpu(cfg, rep);
  if (make_contexts(cfg, rep, ctxs, gpu) == 0) {
    snprintf(err, BENCH_ERRLEN, "none of the requested backends can run (%.200s)",
             rep->n_notes > 0 ? rep->notes[0] : "none requested");
    destroy_all(ref, ctxs, gpu);
    return -1;
  }
  bench_config run_cfg = *cfg;
  run_cfg.gpu = gpu != NULL && ctxs[SKSS_BACKEND_CUDA] != NULL;
  bench_describe_machine(rep);
  if (gpu != NULL) bench_gpu_describe(gpu, rep);
  if (add_all_cases(&run_cfg, rep, err) != 0) {
    destroy_all(ref, ctxs, gpu);
    return -1;
  }
  probe_copy_bandwidth(&run_cfg, rep, gpu);
  for (size_t ci = 0; ci < rep->cases.count; ci++) run_case(&run_cfg, rep, ci, ref, ctxs, gpu);
  if (cfg->suites & BENCH_SUITE_TASKARRAY) run_taskarray_suite(&run_cfg, rep, ctxs[SKSS_BACKEND_CUDA], gpu);
  destroy_all(ref, ctxs, gpu);
  if (cfg->peers)
    bench_run_peers(&run_cfg, rep);
  else
    snprintf(rep->peers_message, sizeof rep->peers_message, "not run (--no-peers)");
  bench_relate(&run_cfg, rep);
  rep->total_s = bench_now() - start;
  return 0;
}
