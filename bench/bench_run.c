/*
 * bench_run.c — the driver of `skss bench`: cases, contexts, and for every
 * (case, backend, algorithm) one checked and timed row.
 *
 * Per case: the primitive makes its seeded inputs and the CPU_REF reference
 * once; then every backend asked for runs every algorithm it implements
 * (skss_algorithm_supported): outputs poisoned, one call, comparison with the
 * reference (a mismatch fails the row, the benchmark goes on), one warm-up
 * call, and the timed calls of bench_measure(). The CPU backend's threads
 * come from --threads; CPU_REF is sequential by definition.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define BENCH_COPY_BYTES ((size_t)256 << 20)
#define BENCH_COPY_BYTES_QUICK ((size_t)128 << 20)

static const bench_primitive *const PRIMITIVES[] = {
    [SKSS_OP_SAT] = &bench_sat,
    [SKSS_OP_HALFTONE] = &bench_halftone,
    [SKSS_OP_KNAPSACK] = &bench_knapsack,
    [SKSS_OP_COMPACT] = &bench_compact,
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

static void progress(const bench_config *cfg, const bench_case *c, const bench_row *r) {
  if (cfg->progress == NULL) return;
  fprintf(cfg->progress, "  %-8s %-20s %-13s %-16s %-7s", PRIMITIVES[c->op]->name, c->variant,
          c->size, r->algorithm, r->backend);
  if (r->outcome == BENCH_ROW_OK)
    fprintf(cfg->progress, " %10.3f ms (%d runs)\n", r->t.median_s * 1e3, r->t.runs);
  else
    fprintf(cfg->progress, " FAILED: %s\n", r->message);
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

/* The algorithms a backend runs: every named one it implements, or AUTO
 * alone when it implements none by name. */
static int backend_algorithms(skss_op op, skss_backend backend, int *out, int max) {
  int n = 0;
  for (int a = 1; skss_algorithm_name(op, a) != NULL && n < max; a++)
    if (skss_algorithm_supported(op, a, backend)) out[n++] = a;
  if (n == 0 && skss_algorithm_supported(op, 0, backend)) out[n++] = 0;
  return n;
}

static void run_case(const bench_config *cfg, bench_report *rep, size_t ci, skss_ctx *ref,
                     skss_ctx *const ctxs[]) {
  bench_case *c = &rep->cases.items[ci];
  const bench_primitive *prim = PRIMITIVES[c->op];
  char err[BENCH_ERRLEN] = "";
  void *job = prim->prepare(c, cfg, ref, err);
  if (job == NULL) {
    bench_row *r = bench_report_add_row(rep, ci);
    if (r == NULL) return;
    const char *ref_name = skss_algorithm_name(c->op, bench_reference_algorithm(c->op));
    snprintf(r->algorithm, sizeof r->algorithm, "%s", ref_name);
    snprintf(r->backend, sizeof r->backend, "cpu-ref");
    r->threads = 1;
    r->outcome = BENCH_ROW_FAILED;
    snprintf(r->message, sizeof r->message, "%s", err);
    progress(cfg, c, r);
    return;
  }
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
    if (ctxs[b] == NULL) continue;
    int algs[32];
    int n = backend_algorithms(c->op, (skss_backend)b, algs, 32);
    for (int k = 0; k < n; k++) {
      bench_row *r = bench_report_add_row(rep, ci);
      if (r == NULL) break;
      snprintf(r->algorithm, sizeof r->algorithm, "%s", skss_algorithm_name(c->op, algs[k]));
      snprintf(r->backend, sizeof r->backend, "%s", skss_backend_name((skss_backend)b));
      r->threads = b == SKSS_BACKEND_CUDA ? 0 : skss_ctx_threads(ctxs[b]);
      timed_call call = {prim, job, ctxs[b], algs[k]};
      measure_row(cfg, c, &call, r);
      progress(cfg, c, r);
    }
  }
  prim->release(job);
}

static skss_ctx *make_context(const bench_config *cfg, bench_report *rep, skss_backend b) {
  char note[BENCH_ERRLEN];
  if (!skss_backend_available(b)) {
    snprintf(note, sizeof note, "backend %s: not available (%s); skipped", skss_backend_name(b),
             skss_backend_built(b) ? "no usable device" : "not in this build");
    add_note(rep, note);
    return NULL;
  }
  skss_ctx_desc desc = SKSS_CTX_DESC_INIT;
  desc.backend = b;
  desc.threads = b == SKSS_BACKEND_CPU ? cfg->threads : 1;
  skss_ctx *ctx = NULL;
  skss_status st = skss_ctx_create(&desc, &ctx);
  if (st != SKSS_OK) {
    snprintf(note, sizeof note, "backend %s: context creation failed: %s", skss_backend_name(b),
             skss_status_string(st));
    add_note(rep, note);
  }
  return ctx;
}

static int add_all_cases(const bench_config *cfg, bench_report *rep, char err[BENCH_ERRLEN]) {
  for (int op = SKSS_OP_SAT; op <= SKSS_OP_COMPACT; op++) {
    if (!(cfg->suites & (1u << op))) continue;
    if (PRIMITIVES[op]->add_cases(cfg, &rep->cases) != 0) {
      snprintf(err, BENCH_ERRLEN, "out of memory listing the %s cases", PRIMITIVES[op]->name);
      return -1;
    }
  }
  return 0;
}

static void probe_copy_bandwidth(const bench_config *cfg, bench_report *rep) {
  int reps = cfg->quick ? 3 : 7;
  rep->copy_bytes = cfg->quick ? BENCH_COPY_BYTES_QUICK : BENCH_COPY_BYTES;
  rep->copy_threads = cfg->threads;
  rep->copy_gbs_1 = bench_copy_bandwidth(rep->copy_bytes, 1, reps);
  rep->copy_gbs_n = cfg->threads > 1 ? bench_copy_bandwidth(rep->copy_bytes, cfg->threads, reps)
                                     : rep->copy_gbs_1;
  if (rep->copy_gbs_1 <= 0) add_note(rep, "copy bandwidth: buffers could not be allocated");
}

/* The contexts of the requested backends; returns how many could be made. */
static int make_contexts(const bench_config *cfg, bench_report *rep, skss_ctx *ctxs[]) {
  int made = 0;
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
    if (cfg->backends & (1u << b)) ctxs[b] = make_context(cfg, rep, (skss_backend)b);
    made += ctxs[b] != NULL;
  }
  return made;
}

static void destroy_contexts(skss_ctx *ref, skss_ctx *ctxs[]) {
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) skss_ctx_destroy(ctxs[b]);
  skss_ctx_destroy(ref);
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
  if (make_contexts(cfg, rep, ctxs) == 0) {
    snprintf(err, BENCH_ERRLEN, "none of the requested backends can run (%.200s)",
             rep->n_notes > 0 ? rep->notes[0] : "none requested");
    destroy_contexts(ref, ctxs);
    return -1;
  }
  bench_describe_machine(rep);
  if (add_all_cases(cfg, rep, err) != 0) {
    destroy_contexts(ref, ctxs);
    return -1;
  }
  probe_copy_bandwidth(cfg, rep);
  for (size_t ci = 0; ci < rep->cases.count; ci++) run_case(cfg, rep, ci, ref, ctxs);
  destroy_contexts(ref, ctxs);
  if (cfg->peers)
    bench_run_peers(cfg, rep);
  else
    snprintf(rep->peers_message, sizeof rep->peers_message, "not run (--no-peers)");
  bench_relate(cfg, rep);
  rep->total_s = bench_now() - start;
  return 0;
}
