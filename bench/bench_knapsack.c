/*
 * bench_knapsack.c — 0-1 knapsack cases.
 *
 * Suite knapsack: n = 1000 items, capacity 10^5 and 10^6, value only and
 * with the chosen items. Instances are Pisinger's strongly correlated class
 * (weights uniform in [1, R], value = weight + R/10), the class that defeats
 * branch and bound and makes dynamic programming the method of choice;
 * R = 4C/n - 1 so the items weigh about twice the capacity.
 *
 * Suite knapsack-papers, one table per group (items uniform and independent:
 * weight and value from the same random word, bench_hash of the item's index
 * over the whole batch; cpu_peers.py makes the same from the seed):
 *  - "SKSS paper Table I": Funasaka, Nakano, Ito, "Single Kernel Soft
 *    Synchronization Technique for Task Arrays on CUDA-enabled GPUs, with
 *    Applications": n = 4095 items (n + 1 = 4096), W + 1 = 16K .. 512K,
 *    values uniform in [0, 4095], weights uniform in [1, 4W/4096] (at most
 *    4W/4096, as the paper's). Value only, as the paper timed the DP: on
 *    cuda the paper's Parallel-Forward, Parallel-Fair (k = 2..32) and SKSS
 *    (which keep the whole (n + 1)(W + 1) table of 4-byte values in device
 *    memory, 8.6 GB at 512K: max_bytes is raised to 16 GiB) and our strips;
 *    on the host dp and taskarray-cpu on the cpu backend, and the paper's
 *    Sequential row, dp on cpu-ref, timed on the reference's context (at
 *    most 3 s of runs after prepare's call, whatever the backends). Then
 *    strips with the items, alone. The paper's own times are a note of the
 *    run (bench_knapsack_paper_note).
 *  - "all capacities": n = 10^4, weights uniform in [1, 10^4], values
 *    uncorrelated, uniform in [1, 10^4], C = 2.5 x 10^7 (about half the
 *    total weight), with the optimum for every capacity (values_by_capacity,
 *    value only): strips and taskarray-cpu. The whole table is checked.
 *  - "batch": 10^4 instances of n = 100, C = 10^4, weights uniform in
 *    [1, 400] (about twice the capacity in all: it binds), values uniform in
 *    [1, 1000], with the items: strips and the cpu backend's dp and core
 *    (each an instance a thread; AUTO there is core). Every instance's
 *    optimum and items are checked (core's: feasible, of the optimum's value).
 * Suite knapsack-classes: one optimum with its items on Pisinger's classes
 * ("Where are the hard knapsack problems?", Computers & Operations Research
 * 32(9), 2005), C = half the total weight, item k from bench_hash(seed, k):
 * a = its high 32 bits, b = its low 32; w = 1 + a mod R and v by class:
 * uncorrelated 1 + b mod R; weakly correlated w - R/10 + b mod (2 R/10 + 1)
 * (at least 1); strongly correlated w + R/10; inverse strongly correlated
 * v = 1 + a mod R, w = v + R/10; almost strongly correlated w + R/10 - R/500
 * + b mod (2 R/500 + 1); subset sum w. Plus the SKSS paper's Table I
 * instance at W + 1 = 512K. Rows: core and (where n (C + 1) <= 4 x 10^9) dp on
 * the cpu backend; the reference is core on cpu-ref (dp would take hours),
 * every row's set is checked for weight and value; peers mknapsack (MT1 and
 * MT2, exact) and OR-Tools. cpu_peers.py makes the same instances.
 * The last two references are 2.5 x 10^11 and 10^10 cells, hours and
 * minutes on cpu-ref: they come from the cpu backend (AUTO, --threads
 * threads) instead, computed once in prepare; the tests check that backend
 * against cpu-ref. --quick keeps Table I's smallest W and shrinks the other
 * two (n = 1000 with weights in [1, 1000] and C = 2.5 x 10^5; 100 instances).
 * --sizes replaces Table I's capacities W (n stays 4095).
 *
 * There is no bytes model: the unit is the DP cell update, n x (C + 1) per
 * solve summed over the instances, and the floor is the dependent max-plus
 * chain through the capacities (the issue asks >= 2 G cells/s per core).
 * Optimal values must equal the reference's, and so must the chosen items,
 * which the API defines uniquely. Knapsack has no device operations: cuda
 * rows call the library on host buffers (the inputs are n x 16 bytes; the
 * outputs' copy back is part of the row's time).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define KNAPSACK_ITEMS 1000

static const bench_size KNAPSACK_DEFAULT_SIZES[] = {{100000, 0}, {1000000, 0}};

const char bench_knapsack_paper_note[] =
    "SKSS paper Table I on a Titan X, ms at W+1 = 16K..512K: Parallel-Forward 14.83 16.01 19.61 27.13 "
    "42.67 87.8; Parallel-Fair best k 6.484 11.22 20.48 33.78 67.97 126.3; SKSS 5.037 5.515 9.315 "
    "15.14 27.24 52.37; Sequential 62.87 109.7 261.0 605.5 1259 2584";
const char bench_knapsack_claim_note[] =
    "The paper has SKSS ahead of both others at every W: the table's \"skss vs the other papers'\" line "
    "says by how much it is here; docs/performance.md says why not where it is not";

/* ---- the cases --------------------------------------------------------------------- */

static int knapsack_add_suite_cases(const bench_config *cfg, bench_cases *out) {
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : KNAPSACK_DEFAULT_SIZES;
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 2);
  for (int value_only = 1; value_only >= 0; value_only--) {
    for (int s = 0; s < n_sizes; s++) {
      bench_case *c = bench_cases_add(out, SKSS_OP_KNAPSACK);
      if (c == NULL) return -1;
      int64_t capacity = sizes[s].a;
      char cap_text[24];
      bench_format_count(cap_text, sizeof cap_text, capacity);
      c->p.knapsack.n_items = KNAPSACK_ITEMS;
      c->p.knapsack.capacity = capacity;
      c->p.knapsack.value_only = value_only;
      snprintf(c->spec, sizeof c->spec, "knapsack:%d:%lld:%s", KNAPSACK_ITEMS, (long long)capacity,
               value_only ? "value" : "items");
      snprintf(c->variant, sizeof c->variant, "strong, %s", value_only ? "value only" : "with items");
      snprintf(c->size, sizeof c->size, "n=%d C=%s", KNAPSACK_ITEMS, cap_text);
      c->x = (double)capacity;
      c->items = (double)KNAPSACK_ITEMS * ((double)capacity + 1.0);
      c->unit = "cell";
    }
  }
  return 0;
}

/* ---- suite knapsack-papers ------------------------------------------------------------- */

#define ALG(a) (1u << (a))
#define BACKEND(b) (1u << (b))
#define PAPER_ALGS                                                                                       \
  (ALG(SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD) | ALG(SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_2) |         \
   ALG(SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_4) | ALG(SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_8) |          \
   ALG(SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_16) | ALG(SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_32) |        \
   ALG(SKSS_KNAPSACK_ALGORITHM_SKSS))
#define HOST_ALGS (ALG(SKSS_KNAPSACK_ALGORITHM_DP) | ALG(SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU))
#define STRIPS ALG(SKSS_KNAPSACK_ALGORITHM_STRIPS)

/* Table I's instance: 4095 items; its sizes are W + 1 in units of 1024. */
#define TABLE1_ITEMS 4095
#define TABLE1_TITLE "SKSS paper Table I"
static const int TABLE1_SIDES[] = {16, 32, 64, 128, 256, 512};

/* The paper algorithms keep (n' + 1)(C' + 1) 4-byte values: 8.6 GB at 512K. */
#define PAPERS_MAX_BYTES ((int64_t)16 << 30)

/* One uniform instance (or batch) of the papers' suite. */
typedef struct knapsack_uniform {
  int64_t n_items, capacity, instances;
  int64_t max_weight; /* weights in [1, max_weight] */
  int64_t min_value, max_value;
  int value_only, by_capacity;
} knapsack_uniform;

/* "1e4" for powers of ten, "2.5e7" for 25 x 10^6, else the digits. */
static void format_capacity(char *buf, size_t len, int64_t n) {
  int exp = 0;
  int64_t m = n;
  while (m >= 10 && m % 10 == 0) {
    m /= 10;
    exp++;
  }
  if (m >= 10 && m < 100 && exp >= 3)
    snprintf(buf, len, "%lld.%llde%d", (long long)(m / 10), (long long)(m % 10), exp + 1);
  else
    bench_format_count(buf, len, n);
}

static bench_case *add_uniform_case(bench_cases *out, const knapsack_uniform *u, const char *table) {
  bench_case *c = bench_cases_add(out, SKSS_OP_KNAPSACK);
  if (c == NULL) return NULL;
  const int64_t instances = u->instances > 1 ? u->instances : 1;
  c->p.knapsack.n_items = u->n_items;
  c->p.knapsack.capacity = u->capacity;
  c->p.knapsack.value_only = u->value_only;
  c->p.knapsack.instances = instances;
  c->p.knapsack.min_weight = 1;
  c->p.knapsack.max_weight = u->max_weight;
  c->p.knapsack.min_value = u->min_value;
  c->p.knapsack.max_value = u->max_value;
  c->p.knapsack.by_capacity = u->by_capacity;
  c->p.knapsack.max_bytes = PAPERS_MAX_BYTES;
  int at = snprintf(c->spec, sizeof c->spec, "knapsack:%lld:%lld:%s:w1-%lld:v%lld-%lld", (long long)u->n_items,
                    (long long)u->capacity, u->value_only ? "value" : "items", (long long)u->max_weight,
                    (long long)u->min_value, (long long)u->max_value);
  if (instances > 1 && at > 0 && (size_t)at < sizeof c->spec)
    snprintf(c->spec + at, sizeof c->spec - (size_t)at, ":x%lld", (long long)instances);
  snprintf(c->table, sizeof c->table, "%s", table);
  c->x = (double)u->capacity;
  c->items = (double)instances * (double)u->n_items * ((double)u->capacity + 1.0);
  c->unit = "cell";
  return c;
}

/* Table I at W + 1 = 16K .. 512K (--sizes: those capacities W; --quick: the
 * first), value only, then strips with the items at the same sizes. */
static int add_table1(const bench_config *cfg, bench_cases *out) {
  const int n_sides = (int)(sizeof TABLE1_SIDES / sizeof TABLE1_SIDES[0]);
  const int n_sizes = cfg->n_sizes ? cfg->n_sizes : cfg->quick ? 1 : n_sides;
  for (int value_only = 1; value_only >= 0; value_only--) {
    if (!value_only && !cfg->gpu) break; /* a cuda row alone */
    for (int s = 0; s < n_sizes; s++) {
      const int64_t capacity = cfg->n_sizes ? cfg->sizes[s].a : ((int64_t)TABLE1_SIDES[s] << 10) - 1;
      const int64_t max_weight = 4 * capacity / (TABLE1_ITEMS + 1);
      const knapsack_uniform u = {TABLE1_ITEMS, capacity, 1, max_weight > 1 ? max_weight : 1, 0, 4095,
                                  value_only, 0};
      bench_case *c = add_uniform_case(out, &u, TABLE1_TITLE);
      if (c == NULL) return -1;
      snprintf(c->variant, sizeof c->variant, "n=%d uniform, %s", TABLE1_ITEMS,
               value_only ? "value only" : "with items");
      const int64_t w1 = capacity + 1;
      if (w1 % 1024 == 0)
        snprintf(c->size, sizeof c->size, "W+1=%lldK", (long long)(w1 >> 10));
      else
        snprintf(c->size, sizeof c->size, "W+1=%lld", (long long)w1);
      c->x = (double)w1; /* the paper's axis */
      if (value_only) {
        c->algorithms = PAPER_ALGS | STRIPS | HOST_ALGS;
        c->paper = PAPER_ALGS;
        c->backends = BACKEND(SKSS_BACKEND_CPU) | BACKEND(SKSS_BACKEND_CUDA);
        c->time_reference = 1; /* cpu-ref's dp, the paper's Sequential, from the reference */
      } else {
        c->algorithms = STRIPS;
        c->backends = BACKEND(SKSS_BACKEND_CUDA);
      }
    }
  }
  return 0;
}

/* The optimum at every capacity of one big instance: strips and
 * taskarray-cpu. OR-Tools answers one capacity: no peers. */
static int add_all_capacities(const bench_config *cfg, bench_cases *out) {
  const knapsack_uniform u = cfg->quick ? (knapsack_uniform){1000, 250000, 1, 1000, 1, 10000, 1, 1}
                                        : (knapsack_uniform){10000, 25000000, 1, 10000, 1, 10000, 1, 1};
  bench_case *c = add_uniform_case(out, &u, "all capacities");
  if (c == NULL) return -1;
  char n_text[16], c_text[16];
  bench_format_count(n_text, sizeof n_text, u.n_items);
  format_capacity(c_text, sizeof c_text, u.capacity);
  snprintf(c->variant, sizeof c->variant, "uncorrelated, by capacity");
  snprintf(c->size, sizeof c->size, "n=%s C=%s", n_text, c_text);
  c->algorithms = ALG(SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU) | STRIPS;
  c->backends = BACKEND(SKSS_BACKEND_CPU) | BACKEND(SKSS_BACKEND_CUDA);
  c->p.knapsack.reference_on_cpu = 1;
  c->no_peers = 1;
  return 0;
}

/* Many small instances in one call, with the items: strips and the cpu
 * backend's dp and core (each an instance a thread; taskarray-cpu would run
 * them one after another; AUTO on the cpu backend is core here). */
static int add_batch(const bench_config *cfg, bench_cases *out) {
  const knapsack_uniform u = {100, 10000, cfg->quick ? 100 : 10000, 400, 1, 1000, 0, 0};
  bench_case *c = add_uniform_case(out, &u, "batch");
  if (c == NULL) return -1;
  char b_text[12], n_text[12], c_text[12];
  bench_format_count(b_text, sizeof b_text, u.instances);
  bench_format_count(n_text, sizeof n_text, u.n_items);
  bench_format_count(c_text, sizeof c_text, u.capacity);
  snprintf(c->variant, sizeof c->variant, "uncorrelated, with items");
  snprintf(c->size, sizeof c->size, "%s x n=%s C=%s", b_text, n_text, c_text);
  c->algorithms = ALG(SKSS_KNAPSACK_ALGORITHM_DP) | ALG(SKSS_KNAPSACK_ALGORITHM_CORE) | STRIPS;
  c->backends = BACKEND(SKSS_BACKEND_CPU) | BACKEND(SKSS_BACKEND_CUDA);
  c->p.knapsack.reference_on_cpu = 1;
  return 0;
}

/* ---- suite knapsack-classes ------------------------------------------------------------ */

enum { CLASS_NONE, CLASS_UNCORRELATED, CLASS_WEAK, CLASS_STRONG, CLASS_INVERSE, CLASS_ALMOST, CLASS_SUBSET };
static const char *const CLASS_NAMES[] = {"", "uncorrelated", "weakly correlated", "strongly correlated",
                                          "inverse strongly correlated", "almost strongly correlated",
                                          "subset sum"};
/* the spec's short names (cpu_peers.py reads them) */
static const char *const CLASS_KEYS[] = {"", "unc", "weak", "strong", "inv", "almost", "subset"};
#define CLASSES_TITLE "knapsack classes"
/* dp runs where its table is at most this many cells (a few seconds a call) */
#define CLASSES_DP_MAX_CELLS 4.0e9

/* Item k of class `klass` with weights in [1, range] (see the top of the file). */
static void class_item(int klass, int64_t range, uint64_t seed, uint64_t k, int64_t *w, int64_t *v) {
  const uint64_t z = bench_hash(seed, k), a = z >> 32, b = z & UINT32_MAX, r = (uint64_t)range;
  const int64_t tenth = range / 10, fivehundredth = range / 500;
  *w = 1 + (int64_t)(a % r);
  switch (klass) {
  case CLASS_UNCORRELATED: *v = 1 + (int64_t)(b % r); break;
  case CLASS_WEAK: {
    const int64_t x = *w - tenth + (int64_t)(b % (uint64_t)(2 * tenth + 1));
    *v = x > 0 ? x : 1;
    break;
  }
  case CLASS_STRONG: *v = *w + tenth; break;
  case CLASS_INVERSE:
    *v = 1 + (int64_t)(a % r);
    *w = *v + tenth;
    break;
  case CLASS_ALMOST: *v = *w + tenth - fivehundredth + (int64_t)(b % (uint64_t)(2 * fivehundredth + 1)); break;
  default: *v = *w; break; /* subset sum */
  }
}

typedef struct class_spec {
  int klass;
  int64_t n, range;
} class_spec;

/* The table and the grid around it: n 10^3 .. 10^4, R 10^3 .. 10^5. */
static const class_spec CLASS_CASES[] = {
    {CLASS_UNCORRELATED, 1000, 1000},    {CLASS_UNCORRELATED, 10000, 1000}, {CLASS_UNCORRELATED, 10000, 100000},
    {CLASS_WEAK, 10000, 10000},          {CLASS_STRONG, 1000, 1000},        {CLASS_STRONG, 10000, 10000},
    {CLASS_STRONG, 5000, 100000},        {CLASS_INVERSE, 10000, 100000},    {CLASS_ALMOST, 10000, 10000},
    {CLASS_SUBSET, 10000, 100000},
};
static const class_spec CLASS_QUICK[] = {{CLASS_UNCORRELATED, 1000, 1000}, {CLASS_STRONG, 1000, 1000}};

static int add_class_case(bench_cases *out, const class_spec *k, uint64_t seed) {
  int64_t total = 0, w, v;
  for (int64_t j = 0; j < k->n; j++) {
    class_item(k->klass, k->range, seed, (uint64_t)j, &w, &v);
    total += w;
  }
  bench_case *c = bench_cases_add(out, SKSS_OP_KNAPSACK);
  if (c == NULL) return -1;
  c->p.knapsack.n_items = k->n;
  c->p.knapsack.capacity = total / 2;
  c->p.knapsack.klass = k->klass;
  c->p.knapsack.range = k->range;
  c->p.knapsack.reference_core = 1;
  char n_text[16], r_text[16];
  bench_format_count(n_text, sizeof n_text, k->n);
  bench_format_count(r_text, sizeof r_text, k->range);
  snprintf(c->spec, sizeof c->spec, "knapsack:%lld:%lld:items:k%s-%lld", (long long)k->n,
           (long long)c->p.knapsack.capacity, CLASS_KEYS[k->klass], (long long)k->range);
  snprintf(c->variant, sizeof c->variant, "%s", CLASS_NAMES[k->klass]);
  snprintf(c->size, sizeof c->size, "n=%s R=%s", n_text, r_text);
  snprintf(c->table, sizeof c->table, "%s", CLASSES_TITLE);
  c->x = (double)k->n;
  c->items = (double)k->n * ((double)c->p.knapsack.capacity + 1.0);
  c->unit = "cell";
  c->algorithms = ALG(SKSS_KNAPSACK_ALGORITHM_CORE) |
                  (c->items <= CLASSES_DP_MAX_CELLS ? ALG(SKSS_KNAPSACK_ALGORITHM_DP) : 0u);
  c->backends = BACKEND(SKSS_BACKEND_CPU);
  return 0;
}

static int add_classes(const bench_config *cfg, bench_cases *out) {
  const class_spec *list = cfg->quick ? CLASS_QUICK : CLASS_CASES;
  const size_t count = cfg->quick ? sizeof CLASS_QUICK / sizeof CLASS_QUICK[0]
                                  : sizeof CLASS_CASES / sizeof CLASS_CASES[0];
  for (size_t k = 0; k < count; k++)
    if (add_class_case(out, &list[k], cfg->seed) != 0) return -1;
  if (cfg->quick) return 0;
  /* the SKSS paper's Table I instance at W + 1 = 512K, one optimum with the items */
  const int64_t capacity = ((int64_t)512 << 10) - 1;
  const knapsack_uniform u = {TABLE1_ITEMS, capacity, 1, 4 * capacity / (TABLE1_ITEMS + 1), 0, 4095, 0, 0};
  bench_case *c = add_uniform_case(out, &u, CLASSES_TITLE);
  if (c == NULL) return -1;
  c->p.knapsack.max_bytes = 0;
  c->p.knapsack.reference_core = 1;
  snprintf(c->variant, sizeof c->variant, "SKSS paper Table I");
  snprintf(c->size, sizeof c->size, "n=%d W+1=512K", TABLE1_ITEMS);
  c->algorithms = ALG(SKSS_KNAPSACK_ALGORITHM_CORE) | ALG(SKSS_KNAPSACK_ALGORITHM_DP);
  c->backends = BACKEND(SKSS_BACKEND_CPU);
  return 0;
}

static int knapsack_add_cases(const bench_config *cfg, bench_cases *out) {
  if ((cfg->suites & BENCH_SUITE_KNAPSACK_CLASSES) && add_classes(cfg, out) != 0) return -1;
  if (cfg->suites & BENCH_SUITE_KNAPSACK_PAPERS) {
    if (add_table1(cfg, out) != 0 || add_all_capacities(cfg, out) != 0 || add_batch(cfg, out) != 0) return -1;
  }
  if (!(cfg->suites & BENCH_SUITE_KNAPSACK)) return 0;
  return knapsack_add_suite_cases(cfg, out);
}

/* ---- jobs -------------------------------------------------------------------------- */

typedef struct knapsack_job {
  skss_knapsack_desc desc;
  int64_t instances;
  size_t n_total;         /* items over all instances */
  size_t table_entries;   /* values_by_capacity: (C + 1) per instance; 0 = not asked */
  int64_t *weights, *values;
  uint8_t *taken, *ref_taken;
  int64_t *best, *ref_best; /* one per instance */
  int64_t *table, *ref_table;
  int any_set;              /* the last run was CORE: any optimal set, not the DP rule's */
  int ref_any_set;          /* the reference is CORE: check every row's set, not against it */
} knapsack_job;

static void knapsack_release(void *p) {
  knapsack_job *job = p;
  if (job == NULL) return;
  free(job->weights);
  free(job->values);
  free(job->taken);
  free(job->ref_taken);
  free(job->best);
  free(job->ref_best);
  free(job->table);
  free(job->ref_table);
  free(job);
}

/* Strongly correlated items; cpu_peers.py makes the same from the seed. */
static void knapsack_fill_strong(knapsack_job *job, uint64_t seed) {
  int64_t n = job->desc.n_items, range = 4 * job->desc.capacity / n - 1;
  if (range < 1) range = 1;
  for (int64_t j = 0; j < n; j++) {
    job->weights[j] = 1 + (int64_t)(bench_hash(seed, (uint64_t)j) % (uint64_t)range);
    job->values[j] = job->weights[j] + range / 10;
  }
}

/* Uniform, independent weights (high 32 bits of the item's word) and values
 * (low 32 bits), item k of the whole batch from bench_hash(seed, k);
 * cpu_peers.py makes the same. */
static void knapsack_fill_uniform(knapsack_job *job, const bench_case *c, uint64_t seed) {
  const uint64_t w_span = (uint64_t)(c->p.knapsack.max_weight - c->p.knapsack.min_weight + 1);
  const uint64_t v_span = (uint64_t)(c->p.knapsack.max_value - c->p.knapsack.min_value + 1);
  for (size_t k = 0; k < job->n_total; k++) {
    const uint64_t z = bench_hash(seed, (uint64_t)k);
    job->weights[k] = c->p.knapsack.min_weight + (int64_t)((z >> 32) % w_span);
    job->values[k] = c->p.knapsack.min_value + (int64_t)((z & UINT32_MAX) % v_span);
  }
}

static int knapsack_alloc(knapsack_job *job, char err[BENCH_ERRLEN]) {
  const size_t n = job->n_total, b = (size_t)job->instances, t = job->table_entries;
  job->weights = bench_alloc(n * sizeof(int64_t), err);
  job->values = job->weights ? bench_alloc(n * sizeof(int64_t), err) : NULL;
  job->taken = job->values ? bench_alloc(n, err) : NULL;
  job->ref_taken = job->taken ? bench_alloc(n, err) : NULL;
  job->best = job->ref_taken ? bench_alloc(b * sizeof(int64_t), err) : NULL;
  job->ref_best = job->best ? bench_alloc(b * sizeof(int64_t), err) : NULL;
  if (job->ref_best == NULL) return -1;
  if (t == 0) return 0;
  job->table = bench_alloc(t * sizeof(int64_t), err);
  job->ref_table = job->table ? bench_alloc(t * sizeof(int64_t), err) : NULL;
  return job->ref_table == NULL ? -1 : 0;
}

/* The reference into ref_best, ref_taken and ref_table: on cpu-ref with its
 * algorithm, or (reference_on_cpu) on a cpu backend context of --threads
 * threads with AUTO (dp for a batch). Records the call's seconds in c->ref_s. */
static int knapsack_reference(knapsack_job *job, bench_case *c, const bench_config *cfg, skss_ctx *ref,
                              char err[BENCH_ERRLEN]) {
  skss_knapsack_desc d = job->desc;
  skss_ctx *ctx = ref, *own = NULL;
  d.algorithm = (skss_knapsack_algorithm)bench_reference_algorithm(SKSS_OP_KNAPSACK);
  /* one optimum of an instance dp would take hours on: core, any optimal set */
  if (c->p.knapsack.reference_core) d.algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
  job->ref_any_set = c->p.knapsack.reference_core;
  if (c->p.knapsack.reference_on_cpu) {
    skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
    cd.backend = SKSS_BACKEND_CPU;
    cd.threads = cfg->threads;
    skss_status st = skss_ctx_create(&cd, &own);
    if (st != SKSS_OK) {
      snprintf(err, BENCH_ERRLEN, "the cpu backend context of the reference: %s", skss_status_string(st));
      return -1;
    }
    ctx = own;
    /* a batch: dp, whose item sets are the rule's (AUTO may run core there) */
    d.algorithm = d.instances > 1 ? SKSS_KNAPSACK_ALGORITHM_DP : SKSS_KNAPSACK_ALGORITHM_AUTO;
  }
  d.values_by_capacity = job->ref_table;
  double t0 = bench_now();
  skss_status st = skss_knapsack(ctx, &d, job->weights, job->values, job->ref_best,
                                 d.value_only ? NULL : job->ref_taken);
  c->ref_s = bench_now() - t0;
  int rc = bench_status_error(ctx, own ? "reference skss_knapsack (cpu backend)" : "reference skss_knapsack",
                              st, err);
  skss_ctx_destroy(own);
  return rc;
}

static void *knapsack_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref,
                              char err[BENCH_ERRLEN]) {
  knapsack_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (knapsack_job){0};
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = c->p.knapsack.n_items;
  d.capacity = c->p.knapsack.capacity;
  d.value_only = c->p.knapsack.value_only;
  d.max_bytes = c->p.knapsack.max_bytes;
  d.instances = c->p.knapsack.instances > 1 ? c->p.knapsack.instances : 1;
  job->desc = d;
  job->instances = d.instances;
  job->n_total = (size_t)(d.n_items * d.instances);
  job->table_entries = c->p.knapsack.by_capacity ? (size_t)((d.capacity + 1) * d.instances) : 0;
  if (knapsack_alloc(job, err) != 0) {
    knapsack_release(job);
    return NULL;
  }
  if (c->p.knapsack.klass != CLASS_NONE) {
    for (size_t k = 0; k < job->n_total; k++)
      class_item(c->p.knapsack.klass, c->p.knapsack.range, cfg->seed, (uint64_t)k, &job->weights[k],
                 &job->values[k]);
  } else if (c->p.knapsack.max_weight > 0)
    knapsack_fill_uniform(job, c, cfg->seed);
  else
    knapsack_fill_strong(job, cfg->seed);
  if (knapsack_reference(job, c, cfg, ref, err) != 0) {
    knapsack_release(job);
    return NULL;
  }
  double total = 0; /* what the peers report: the optima summed over the batch */
  for (int64_t k = 0; k < job->instances; k++) total += (double)job->ref_best[k];
  c->signature[0] = total;
  c->has_signature = 1;
  return job;
}

static skss_status knapsack_run(void *p, skss_ctx *ctx, int algorithm) {
  knapsack_job *job = p;
  skss_knapsack_desc d = job->desc;
  d.algorithm = (skss_knapsack_algorithm)algorithm;
  d.values_by_capacity = job->table;
  /* AUTO on the cpu backend runs core as skss.h says: one instance, or a batch of 64+ items, C >= 4096 */
  job->any_set = algorithm == SKSS_KNAPSACK_ALGORITHM_CORE ||
                 (algorithm == SKSS_KNAPSACK_ALGORITHM_AUTO && job->table == NULL &&
                  skss_ctx_op_backend(ctx, SKSS_OP_KNAPSACK) == SKSS_BACKEND_CPU &&
                  (job->instances == 1 || (d.n_items >= 64 && d.capacity >= 4096)));
  return skss_knapsack(ctx, &d, job->weights, job->values, job->best, d.value_only ? NULL : job->taken);
}

static void knapsack_poison(void *p) {
  knapsack_job *job = p;
  memset(job->best, 0xA5, (size_t)job->instances * sizeof(int64_t));
  memset(job->taken, 0xA5, job->n_total);
  if (job->table != NULL) memset(job->table, 0xA5, job->table_entries * sizeof(int64_t));
}

/* "instance k: " in batches, "" otherwise. */
static void instance_prefix(const knapsack_job *job, size_t k, char *buf, size_t len) {
  if (job->instances > 1)
    snprintf(buf, len, "instance %zu: ", k);
  else
    buf[0] = '\0';
}

/* A set of CORE: 0 or 1 per item, within C, worth the optimum. */
static int knapsack_check_set(const knapsack_job *job, char err[BENCH_ERRLEN]) {
  const size_t n = (size_t)job->desc.n_items;
  for (size_t k = 0; k < (size_t)job->instances; k++) {
    int64_t w = 0, v = 0;
    for (size_t j = k * n; j < (k + 1) * n; j++) {
      if (job->taken[j] > 1) {
        snprintf(err, BENCH_ERRLEN, "taken[%zu] = %u", j % n, job->taken[j]);
        return -1;
      }
      if (job->taken[j]) w += job->weights[j], v += job->values[j];
    }
    if (w > job->desc.capacity || v != job->best[k]) {
      snprintf(err, BENCH_ERRLEN, "items of weight %lld (C = %lld) worth %lld, optimum %lld", (long long)w,
               (long long)job->desc.capacity, (long long)v, (long long)job->best[k]);
      return -1;
    }
  }
  return 0;
}

static int knapsack_check(const void *p, char err[BENCH_ERRLEN]) {
  const knapsack_job *job = p;
  const size_t n = (size_t)job->desc.n_items, row = (size_t)job->desc.capacity + 1;
  char at[48];
  for (size_t k = 0; k < (size_t)job->instances; k++) {
    if (job->best[k] != job->ref_best[k]) {
      instance_prefix(job, k, at, sizeof at);
      snprintf(err, BENCH_ERRLEN, "%sbest value %lld, reference %lld", at, (long long)job->best[k],
               (long long)job->ref_best[k]);
      return -1;
    }
  }
  for (size_t e = 0; e < job->table_entries; e++) {
    if (job->table[e] != job->ref_table[e]) {
      instance_prefix(job, e / row, at, sizeof at);
      snprintf(err, BENCH_ERRLEN, "%svalues_by_capacity[%zu] = %lld, reference %lld", at, e % row,
               (long long)job->table[e], (long long)job->ref_table[e]);
      return -1;
    }
  }
  if (job->desc.value_only) return 0;
  if (job->any_set || job->ref_any_set) return knapsack_check_set(job, err);
  for (size_t j = 0; j < job->n_total; j++) {
    if (job->taken[j] != job->ref_taken[j]) {
      instance_prefix(job, j / n, at, sizeof at);
      snprintf(err, BENCH_ERRLEN, "%staken[%zu] = %u, reference %u", at, j % n, job->taken[j], job->ref_taken[j]);
      return -1;
    }
  }
  return 0;
}

static double knapsack_bytes(const void *p) {
  (void)p;
  return 0;
}

const bench_primitive bench_knapsack = {SKSS_OP_KNAPSACK, "knapsack",     knapsack_add_cases,
                                        knapsack_prepare, knapsack_run,   knapsack_poison,
                                        knapsack_check,   knapsack_bytes, knapsack_release, NULL};
