/*
 * test_knapsack.c — skss_knapsack() on the CPU backends. Oracles: brute
 * force over all subsets (n <= 16) and a full (n+1) x (C+1) table with the
 * deterministic walk back written out here, which every algorithm of
 * CPU_REF (the oracle of test_backends.c, which runs every other backend
 * against it) must match exactly on instance classes (uncorrelated, weakly
 * and strongly correlated, zero weights and values, w > C, C = 0, n = 0 and
 * 1, huge C) and the int32 and int64 cell paths. Also: each instruction-set
 * kernel against the plain C one, and on every CPU backend, algorithm and
 * thread count value overflow, the memory limit, allocation failure and
 * misuse.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cpu/knapsack_impl.h"
#include "testutil.h"

#define POISON 0xA5
#define BIG_C 1000000000000000ll /* 10^15 */

/* ---- oracles -------------------------------------------------------------- */

static int64_t brute_force(const tu_knapsack *in) {
  int64_t best = 0;
  for (uint64_t s = 0; s < (1ull << in->n); s++) {
    int64_t w = 0, v = 0;
    for (int64_t j = 0; j < in->n; j++)
      if ((s >> j) & 1u) w += in->w[j], v += in->v[j];
    if (w <= in->cap && v > best) best = v;
  }
  return best;
}

/* The full table V[c][j] (no clamping, no reduction) and the rule's walk. */
static int64_t table_oracle(const tu_knapsack *in, uint8_t *taken) {
  int64_t rows = in->cap + 1;
  int64_t *V = calloc((size_t)(rows * (in->n + 1)), sizeof(int64_t));
  assert_non_null(V);
#define AT(c, j) V[(j) * rows + (c)]
  for (int64_t j = 0; j < in->n; j++) {
    for (int64_t c = 0; c <= in->cap; c++) {
      int64_t keep = AT(c, j);
      AT(c, j + 1) = c < in->w[j] || AT(c - in->w[j], j) + in->v[j] <= keep
                         ? keep
                         : AT(c - in->w[j], j) + in->v[j];
    }
  }
  int64_t c = in->cap, best = AT(c, in->n);
  for (int64_t j = in->n - 1; j >= 0; j--) {
    taken[j] = AT(c, j + 1) != AT(c, j);
    if (taken[j]) c -= in->w[j];
  }
#undef AT
  free(V);
  return best;
}

/* ---- running ------------------------------------------------------------- */

typedef struct config {
  skss_backend backend;
  int threads;
  skss_knapsack_algorithm algorithm;
} config;

static const config CONFIGS[] = {
    {SKSS_BACKEND_CPU_REF, 1, SKSS_KNAPSACK_ALGORITHM_AUTO},          {SKSS_BACKEND_CPU_REF, 1, SKSS_KNAPSACK_ALGORITHM_DP},
    {SKSS_BACKEND_CPU, 1, SKSS_KNAPSACK_ALGORITHM_DP},                {SKSS_BACKEND_CPU, 2, SKSS_KNAPSACK_ALGORITHM_DP},
    {SKSS_BACKEND_CPU, 1, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU},     {SKSS_BACKEND_CPU, 2, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU},
    {SKSS_BACKEND_CPU, 3, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU},     {SKSS_BACKEND_CPU, 5, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU},
    {SKSS_BACKEND_CPU, 2, SKSS_KNAPSACK_ALGORITHM_AUTO},
    {SKSS_BACKEND_CPU_REF, 1, SKSS_KNAPSACK_ALGORITHM_CORE},          {SKSS_BACKEND_CPU, 1, SKSS_KNAPSACK_ALGORITHM_CORE},
    {SKSS_BACKEND_CPU, 3, SKSS_KNAPSACK_ALGORITHM_CORE},
};
/* The configs that run CORE by name: the last three. */
#define FIRST_CORE (NCONFIGS - 3)
#define NCONFIGS ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

/* Whether config k's one-instance calls without a table run CORE, whose set
 * is any optimal one rather than the DP's rule (AUTO on the CPU backend). */
static bool runs_core(int k) {
  return CONFIGS[k].algorithm == SKSS_KNAPSACK_ALGORITHM_CORE ||
         (CONFIGS[k].backend == SKSS_BACKEND_CPU && CONFIGS[k].algorithm == SKSS_KNAPSACK_ALGORITHM_AUTO);
}

typedef struct fixture {
  skss_ctx *ctx[NCONFIGS];
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  for (int k = 0; k < NCONFIGS; k++) f->ctx[k] = tu_ctx(CONFIGS[k].backend, CONFIGS[k].threads);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  for (int k = 0; k < NCONFIGS; k++) skss_ctx_destroy(f->ctx[k]);
  free(f);
  return 0;
}

static void print_config(int k, const tu_knapsack *in) {
  print_error("config %s/%d threads/%s, n = %lld, C = %lld\n",
              skss_backend_name(CONFIGS[k].backend), CONFIGS[k].threads,
              skss_algorithm_name(SKSS_OP_KNAPSACK, CONFIGS[k].algorithm), (long long)in->n,
              (long long)in->cap);
}

/* Solves `in` with config k, poisoning the outputs first; returns the status. */
static skss_status solve(const fixture *f, int k, const tu_knapsack *in, int value_only, int64_t max_bytes,
                         int64_t *best, uint8_t *taken) {
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = in->n;
  d.capacity = in->cap;
  d.value_only = value_only;
  d.max_bytes = max_bytes;
  d.algorithm = CONFIGS[k].algorithm;
  memset(best, POISON, sizeof *best);
  if (taken) memset(taken, POISON, (size_t)in->n + 1);
  return skss_knapsack(f->ctx[k], &d, in->w, in->v, best, taken);
}

/* The chosen set is feasible and worth `best`. */
static void check_feasible(const tu_knapsack *in, const uint8_t *taken, int64_t best, int k) {
  int64_t w = 0, v = 0;
  for (int64_t j = 0; j < in->n; j++) {
    if (taken[j] > 1) {
      print_config(k, in);
      TU_FAIL("taken[%lld] = %d", (long long)j, taken[j]);
    }
    if (taken[j]) w += in->w[j], v += in->v[j];
  }
  if (w > in->cap || v != best) {
    print_config(k, in);
    TU_FAIL("chosen set weighs %lld (C = %lld) and is worth %lld, optimum %lld", (long long)w,
            (long long)in->cap, (long long)v, (long long)best);
  }
}

/* Every CPU_REF config gives `best` and exactly `expect_taken` (when not
 * NULL; else the first config's choice), in reconstruction and value-only
 * mode; every config that runs CORE gives `best` and a valid set of it. */
static void check_all(const fixture *f, const tu_knapsack *in, int64_t expect_best,
                      const uint8_t *expect_taken) {
  uint8_t *taken = malloc((size_t)in->n + 1), *first = malloc((size_t)in->n + 1);
  assert_non_null(taken);
  assert_non_null(first);
  for (int k = 0; k < NCONFIGS; k++) {
    if (CONFIGS[k].backend != SKSS_BACKEND_CPU_REF && !runs_core(k)) continue;
    int64_t best, best_vo;
    TU_OK(f->ctx[k], solve(f, k, in, 0, 0, &best, taken));
    TU_OK(f->ctx[k], solve(f, k, in, 1, 0, &best_vo, NULL));
    if (best != expect_best || best_vo != expect_best) {
      print_config(k, in);
      TU_FAIL("optimum %lld (value only %lld), expected %lld", (long long)best, (long long)best_vo,
              (long long)expect_best);
    }
    check_feasible(in, taken, best, k);
    if (taken[in->n] != POISON) TU_FAIL("taken written past n_items");
    if (runs_core(k)) continue;
    if (k == 0) memcpy(first, taken, (size_t)in->n);
    const uint8_t *want = expect_taken ? expect_taken : first;
    for (int64_t j = 0; j < in->n; j++) {
      if (taken[j] != want[j]) {
        print_config(k, in);
        TU_FAIL("taken[%lld] = %d, expected %d", (long long)j, taken[j], want[j]);
      }
    }
  }
  free(taken);
  free(first);
}

/* Checks against the full-table oracle (and brute force when n <= 16). */
static void check_with_table(const fixture *f, const tu_knapsack *in) {
  uint8_t *taken = malloc((size_t)in->n + 1);
  assert_non_null(taken);
  int64_t best = table_oracle(in, taken);
  if (in->n <= 16 && brute_force(in) != best) TU_FAIL("table oracle disagrees with brute force");
  check_all(f, in, best, taken);
  free(taken);
}

/* ---- tests ------------------------------------------------------------------ */

static void test_brute_force_small(void **state) {
  tu_rng rng;
  tu_rng_init(&rng, tu_seed());
  for (int round = 0; round < 60; round++) {
    int64_t n = round % 17;
    tu_knapsack in = tu_knapsack_random(&rng, (tu_knapsack_kind)(round % TU_KNAPSACK_KINDS), n, tu_range(&rng, 1, 40), -1);
    if (round % 5 == 0) in.cap = tu_range(&rng, 0, 60);
    check_with_table(*state, &in);
    tu_knapsack_free(&in);
  }
}

/* The paper's example (Figure 6): items (v, w) = (2,4), (2,2), (3,3), (4,1). */
static void test_paper_example(void **state) {
  tu_knapsack in = tu_knapsack_new(4, 5);
  int64_t v[] = {2, 2, 3, 4}, w[] = {4, 2, 3, 1};
  memcpy(in.v, v, sizeof v);
  memcpy(in.w, w, sizeof w);
  uint8_t expect[] = {0, 0, 1, 1};
  check_all(*state, &in, 7, expect);
  tu_knapsack_free(&in);
}

/* Ties: many subsets reach the optimum; the rule still fixes one. */
static void test_ties(void **state) {
  tu_knapsack in = tu_knapsack_new(12, 30);
  for (int j = 0; j < 12; j++) in.w[j] = 5, in.v[j] = 7;
  check_with_table(*state, &in);
  for (int j = 0; j < 12; j++) in.w[j] = 1 + j % 3, in.v[j] = 2 * (1 + j % 3);
  check_with_table(*state, &in);
  tu_knapsack_free(&in);
}

static void test_edge_sizes(void **state) {
  tu_knapsack in = tu_knapsack_new(0, 0);
  check_all(*state, &in, 0, NULL); /* n = 0 */
  in.cap = 17;
  check_all(*state, &in, 0, NULL);
  tu_knapsack_free(&in);
  in = tu_knapsack_new(1, 0); /* n = 1, C = 0 */
  in.w[0] = 3, in.v[0] = 9;
  uint8_t no[] = {0}, yes[] = {1};
  check_all(*state, &in, 0, no);
  in.cap = 3;
  check_all(*state, &in, 9, yes);
  in.cap = 2;
  check_all(*state, &in, 0, no);
  in.w[0] = 0; /* zero weight fits C = 0 */
  in.cap = 0;
  check_all(*state, &in, 9, yes);
  in.v[0] = 0;
  check_all(*state, &in, 0, no);
  tu_knapsack_free(&in);
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 1);
  for (int k = 0; k < tu_sizes_count; k++) { /* C = 0 with some zero weights */
    in = tu_knapsack_random(&rng, TU_KNAPSACK_ZEROS, tu_sizes[k], 20, 0);
    check_with_table(*state, &in);
    tu_knapsack_free(&in);
  }
}

/* Awkward capacities around word and chunk boundaries, all classes. */
static void test_random_classes(void **state) {
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 2);
  static const int64_t caps[] = {1, 63, 64, 65, 127, 128, 129, 2047, 2048, 2049, 4095, 16383, 16384, 16385};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
    for (int kind = TU_KNAPSACK_UNCORRELATED; kind <= TU_KNAPSACK_ZEROS; kind++) {
      int64_t n = tu_sizes[(k + (size_t)kind) % (size_t)tu_sizes_count] % 97 + 1;
      const int64_t range = tu_range(&rng, 1, caps[k] + 50);
      tu_knapsack in = tu_knapsack_random(&rng, (tu_knapsack_kind)kind, n, range, caps[k]);
      check_with_table(*state, &in);
      tu_knapsack_free(&in);
    }
  }
}

/* A huge capacity with small weights is clamped to their total. */
static void test_huge_capacity(void **state) {
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 5);
  tu_knapsack in = tu_knapsack_random(&rng, TU_KNAPSACK_STRONG, 200, 1000, BIG_C);
  int64_t all = 0;
  for (int64_t j = 0; j < in.n; j++) all += in.v[j];
  uint8_t *every = malloc((size_t)in.n);
  memset(every, 1, (size_t)in.n);
  check_all(*state, &in, all, every);
  free(every);
  tu_knapsack_free(&in);
  /* Capacities past, at and just under the total weight, against the unclamped table. */
  for (int kind = TU_KNAPSACK_UNCORRELATED; kind <= TU_KNAPSACK_ZEROS; kind++) {
    in = tu_knapsack_random(&rng, (tu_knapsack_kind)kind, 30, 50, 0);
    int64_t total = 0;
    for (int64_t j = 0; j < in.n; j++) total += in.w[j];
    for (int64_t cap = total + 500; cap >= total - 1; cap -= cap > total ? 500 : 1) {
      in.cap = cap;
      check_with_table(*state, &in);
    }
    tu_knapsack_free(&in);
  }
}

/* Values summing to exactly INT32_MAX (int32 cells) and one more (int64). */
static void test_cell_widths(void **state) {
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 6);
  for (int64_t extra = 0; extra <= 1; extra++) {
    tu_knapsack in = tu_knapsack_random(&rng, TU_KNAPSACK_UNCORRELATED, 40, 500, 5000);
    int64_t rest = INT32_MAX + extra;
    for (int64_t j = 0; j < in.n; j++) {
      in.v[j] = j == in.n - 1 ? rest : tu_range(&rng, 1, INT32_MAX / 64);
      rest -= in.v[j];
    }
    check_with_table(*state, &in);
    tu_knapsack_free(&in);
  }
  /* Values near 2^61: int64 cells with sums far past 2^31. */
  tu_knapsack in = tu_knapsack_random(&rng, TU_KNAPSACK_WEAK, 3, 100, 150);
  for (int64_t j = 0; j < in.n; j++) in.v[j] = ((int64_t)1 << 61) + tu_range(&rng, 0, 1000);
  check_with_table(*state, &in);
  in.v[0] = INT64_MAX - in.v[1] - in.v[2]; /* the sum is exactly INT64_MAX */
  check_with_table(*state, &in);
  tu_knapsack_free(&in);
}

/* Each instruction-set kernel equals the plain C kernel on random rows. */
static void test_kernels(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 7);
  enum { CELLS = 3000, ALLOC = (CELLS + 8) * 8 };
  int64_t *prev = aligned_alloc(64, ALLOC), *got = aligned_alloc(64, ALLOC),
          *want = aligned_alloc(64, ALLOC);
  uint64_t got_bits[CELLS / 64 + 1], want_bits[CELLS / 64 + 1];
  for (int isa = SKSS__KNAP_AVX2; isa <= SKSS__KNAP_AVX512; isa++) {
    if (!skss__knap_isa_supported((skss__knap_isa)isa)) continue;
    for (int round = 0; round < 400; round++) {
      int wide = round & 1;
      int64_t limit = wide ? (int64_t)1 << 60 : (int64_t)1 << 29;
      for (int c = 0; c < CELLS; c++) {
        int64_t x = tu_range(&rng, 0, limit);
        if (wide) prev[c] = x;
        else ((int32_t *)prev)[c] = (int32_t)x;
      }
      int64_t lo = tu_range(&rng, 0, 20) * 64, hi = tu_range(&rng, lo, CELLS);
      int64_t w = tu_range(&rng, 1, round % 3 ? 200 : CELLS), v = tu_range(&rng, 0, limit);
      memset(got, POISON, ALLOC);
      memset(want, POISON, ALLOC);
      memset(got_bits, POISON, sizeof got_bits);
      memset(want_bits, POISON, sizeof want_bits);
      skss__knap_span(SKSS__KNAP_SCALAR, wide, prev, want, lo, hi, w, v, want_bits);
      skss__knap_span((skss__knap_isa)isa, wide, prev, got, lo, hi, w, v, got_bits);
      size_t cell = wide ? 8 : 4;
      if (memcmp(got, want, ALLOC) != 0 || memcmp(got_bits, want_bits, sizeof got_bits) != 0)
        TU_FAIL("kernel %d (wide %d) differs from C on [%lld, %lld), w %lld", isa, wide,
                (long long)lo, (long long)hi, (long long)w);
      for (size_t b = 0; b < ALLOC; b++)
        if ((b < (size_t)lo * cell || b >= (size_t)hi * cell) && ((uint8_t *)want)[b] != POISON)
          TU_FAIL("kernel wrote outside [%lld, %lld)", (long long)lo, (long long)hi);
    }
  }
  free(prev);
  free(got);
  free(want);
}

static void expect_error(const fixture *f, int k, const skss_knapsack_desc *d, const int64_t *w,
                         const int64_t *v, int64_t *best, uint8_t *taken, skss_status want,
                         const char *text) {
  int64_t poison;
  memset(&poison, POISON, sizeof poison);
  if (best) *best = poison;
  skss_status st = skss_knapsack(f->ctx[k], d, w, v, best, taken);
  const char *msg = skss_ctx_last_error(f->ctx[k]);
  if (st != want || strstr(msg, "skss_knapsack(): ") != msg || strstr(msg, text) == NULL)
    TU_FAIL("got %s \"%s\", expected %s with \"%s\"", skss_status_string(st), msg,
            skss_status_string(want), text);
  if (best && *best != poison) TU_FAIL("best_value written on error");
}

static void test_overflow(void **state) {
  fixture *f = *state;
  int64_t w[] = {1, 2, 3}, v[] = {INT64_MAX - 5, 5, 1}, best;
  uint8_t taken[3];
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = 3;
  d.capacity = 10;
  for (int k = 0; k < NCONFIGS; k++)
    expect_error(f, k, &d, w, v, &best, taken, SKSS_ERR_OVERFLOW, "overflows int64 at item 2");
  w[2] = 100; /* even an item that can never be taken counts */
  expect_error(f, 4, &d, w, v, &best, taken, SKSS_ERR_OVERFLOW, "overflow");
}

/* The bytes a call over its max_bytes says it needs ("needs N bytes (...)"). */
static int64_t needed_bytes(const fixture *f, int k, const skss_knapsack_desc *d, const int64_t *w,
                            const int64_t *v, uint8_t *taken, const char *parts) {
  int64_t best;
  expect_error(f, k, d, w, v, &best, taken, SKSS_ERR_OUT_OF_MEMORY, parts);
  const char *msg = strstr(skss_ctx_last_error(f->ctx[k]), "needs ");
  assert_non_null(msg);
  return strtoll(msg + 6, NULL, 10);
}

/* The optimum of `in` for every capacity 0..in->cap by the textbook DP. */
static int64_t *oracle_table(const tu_knapsack *in) {
  int64_t *t = calloc((size_t)in->cap + 1, sizeof *t);
  assert_non_null(t);
  for (int64_t j = 0; j < in->n; j++)
    for (int64_t c = in->cap; c >= in->w[j]; c--)
      if (t[c - in->w[j]] + in->v[j] > t[c]) t[c] = t[c - in->w[j]] + in->v[j];
  return t;
}

/* values_by_capacity is the optimum for every capacity, on every config,
 * with and without the items, from all the decision bits or from
 * checkpoints, with capacities below and past the total weight. */
static void test_values_by_capacity(void **state) {
  fixture *f = *state;
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  for (int round = 0; round < 16; round++) {
    const int64_t n = round < 4 ? round : 5 + round * 37 % 150, range = round % 2 ? 30 : 120;
    const int64_t cap = round % 3 == 0 ? tu_range(&r, 0, 3000) : -1;
    tu_knapsack in = tu_knapsack_random(&r, (tu_knapsack_kind)(round % 4), n, range, cap);
    int64_t *want = oracle_table(&in);
    int64_t *got = malloc(((size_t)in.cap + 2) * sizeof *got);
    uint8_t *taken = malloc((size_t)n + 1);
    assert_non_null(got);
    assert_non_null(taken);
    for (int k = 0; k < NCONFIGS; k++)
      for (int mode = 0; mode < 3; mode++) {
        if (CONFIGS[k].algorithm == SKSS_KNAPSACK_ALGORITHM_CORE) continue; /* no table: test_core_misuse */
        skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
        d.n_items = in.n;
        d.capacity = in.cap;
        d.value_only = mode == 0;
        d.algorithm = CONFIGS[k].algorithm;
        d.values_by_capacity = got;
        int64_t best = 0;
        if (mode == 2) { /* the least memory that finds the items, if checkpoints help */
          d.max_bytes = 1;
          if (skss_knapsack(f->ctx[k], &d, in.w, in.v, &best, taken) == SKSS_OK) continue;
          const char *at = strstr(skss_ctx_last_error(f->ctx[k]), "or at least ");
          if (at == NULL) continue;
          d.max_bytes = strtoll(at + 12, NULL, 10);
        }
        memset(got, POISON, ((size_t)in.cap + 2) * sizeof *got);
        TU_OK(f->ctx[k], skss_knapsack(f->ctx[k], &d, in.w, in.v, &best, mode ? taken : NULL));
        for (int64_t c = 0; c <= in.cap; c++)
          if (got[c] != want[c]) {
            print_config(k, &in);
            TU_FAIL("mode %d: values_by_capacity[%lld] = %lld, want %lld", mode, (long long)c,
                    (long long)got[c], (long long)want[c]);
          }
        int64_t poison;
        memset(&poison, POISON, sizeof poison);
        if (best != want[in.cap] || got[in.cap + 1] != poison)
          TU_FAIL("best %lld (want %lld), or a write past the table", (long long)best,
                  (long long)want[in.cap]);
        if (mode) check_feasible(&in, taken, best, k);
      }
    free(want);
    free(got);
    free(taken);
    tu_knapsack_free(&in);
  }
  /* Errors: a table overlapping another buffer, a capacity whose table overflows. */
  int64_t w[2] = {1, 2}, v[2] = {3, 4}, best = 0, table[4];
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = 2;
  d.capacity = 3;
  d.value_only = 1;
  d.values_by_capacity = w;
  expect_error(f, 0, &d, w, v, &best, NULL, SKSS_ERR_INVALID_ARG, "overlaps");
  d.values_by_capacity = table;
  expect_error(f, 0, &d, w, v, table + 2, NULL, SKSS_ERR_INVALID_ARG, "overlaps");
  d.capacity = INT64_MAX;
  expect_error(f, 0, &d, w, v, &best, NULL, SKSS_ERR_OVERFLOW, "values_by_capacity");
}

/* A batch gives each instance exactly what a call of its own gives, on
 * every config, with the items, the table or neither, also when the memory
 * limit leaves room for fewer workers than instances; errors name the
 * instance. */
static void test_batch(void **state) {
  fixture *f = *state;
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  static const int64_t COUNTS[] = {0, 1, 2, 7, 33};
  for (int round = 0; round < 10; round++) {
    const int64_t count = COUNTS[round % 5], slots = count ? count : 1;
    const int64_t n = round % 4 == 3 ? 0 : 1 + round * 13 % 60, cap = tu_range(&r, 0, 400);
    int64_t *w = calloc((size_t)(slots * n + 1), sizeof *w), *v = calloc((size_t)(slots * n + 1), sizeof *v);
    int64_t *best = malloc((size_t)slots * sizeof *best), *table = malloc((size_t)(slots * (cap + 1)) * sizeof *table);
    uint8_t *taken = malloc((size_t)(slots * n + 1));
    int64_t one_table[401];
    uint8_t one_taken[61];
    assert_true(w && v && best && table && taken);
    for (int64_t k = 0; k < slots; k++) {
      tu_knapsack in = tu_knapsack_random(&r, (tu_knapsack_kind)((round + k) % TU_KNAPSACK_KINDS), n, 80, cap);
      memcpy(w + k * n, in.w, (size_t)n * sizeof *w);
      memcpy(v + k * n, in.v, (size_t)n * sizeof *v);
      tu_knapsack_free(&in);
    }
    for (int k = 0; k < NCONFIGS; k++)
      for (int mode = 0; mode < 3; mode++) {
        const bool core = CONFIGS[k].algorithm == SKSS_KNAPSACK_ALGORITHM_CORE;
        if (core && mode < 2) continue; /* no table */
        skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
        d.n_items = n;
        d.capacity = cap;
        d.value_only = mode == 0;
        d.algorithm = CONFIGS[k].algorithm;
        d.values_by_capacity = mode == 2 ? NULL : table;
        d.instances = count;
        /* mode 2: room for two instances' memory at a time */
        if (mode == 2) d.max_bytes = 2 * 64 * ((n + 1) * 40 + (cap + 64) / 64 * 8 * (n + 1) + 8 * (cap + 64)) + 4096;
        memset(best, POISON, (size_t)slots * sizeof *best);
        memset(taken, POISON, (size_t)(slots * n + 1));
        TU_OK(f->ctx[k], skss_knapsack(f->ctx[k], &d, w, v, best, d.value_only ? NULL : taken));
        for (int64_t i = 0; i < slots; i++) {
          skss_knapsack_desc one = d;
          one.instances = 1;
          one.values_by_capacity = d.values_by_capacity ? one_table : NULL;
          int64_t one_best = -1;
          TU_OK(f->ctx[k], skss_knapsack(f->ctx[k], &one, w + i * n, v + i * n, &one_best,
                                         d.value_only ? NULL : one_taken));
          /* A lone call without a table may run CORE (any optimal set). */
          const bool same_set = !runs_core(k) || d.values_by_capacity != NULL;
          if (!d.value_only && !same_set) {
            tu_knapsack one_in = {n, cap, w + i * n, v + i * n};
            check_feasible(&one_in, one_taken, one_best, k);
          }
          if (best[i] != one_best ||
              (!d.value_only && same_set && memcmp(taken + i * n, one_taken, (size_t)n) != 0) ||
              (d.values_by_capacity &&
               memcmp(table + i * (cap + 1), one_table, (size_t)(cap + 1) * sizeof *table) != 0))
            TU_FAIL("config %d mode %d: instance %lld of %lld (n = %lld, C = %lld) differs from a call "
                    "of its own: best %lld, alone %lld", k, mode, (long long)i, (long long)count,
                    (long long)n, (long long)cap, (long long)best[i], (long long)one_best);
        }
      }
    if (count > 3 && n > 0) { /* an error names its instance, and writes nothing */
      skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
      d.n_items = n;
      d.capacity = cap;
      d.value_only = 1;
      d.instances = count;
      v[3 * n] = -5;
      expect_error(f, 1, &d, w, v, best, NULL, SKSS_ERR_INVALID_ARG, "instance 3 item 0 has value -5");
      v[3 * n] = 1;
    }
    free(w);
    free(v);
    free(best);
    free(table);
    free(taken);
  }
  int64_t w1 = 1, v1 = 1, best = -1;
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = 1;
  d.capacity = 1;
  d.value_only = 1;
  d.instances = -1;
  expect_error(f, 0, &d, &w1, &v1, &best, NULL, SKSS_ERR_INVALID_ARG, "instances -1");
  d.instances = INT64_MAX / 2;
  d.n_items = 4;
  expect_error(f, 0, &d, &w1, &v1, &best, NULL, SKSS_ERR_OVERFLOW, "overflow");
  d.n_items = 1; /* a desc from before the batch fields: one instance */
  d.size = offsetof(skss_knapsack_desc, instances);
  TU_OK(f->ctx[0], skss_knapsack(f->ctx[0], &d, &w1, &v1, &best, NULL));
  assert_int_equal(best, 1);
}

/* The number after `key` in the context's last error. */
static int64_t number_after(const fixture *f, int k, const char *key) {
  const char *msg = strstr(skss_ctx_last_error(f->ctx[k]), key);
  if (msg == NULL) TU_FAIL("no \"%s\" in \"%s\"", key, skss_ctx_last_error(f->ctx[k]));
  return strtoll(msg + strlen(key), NULL, 10);
}

/* Under a memory limit too small for all the decision bits the items come
 * from value-row checkpoints (one level, several, or bisection down to one
 * row of bits): the same set as with all the bits, on every config. */
static void test_checkpoint_reconstruction(void **state) {
  fixture *f = *state;
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  /* cpu-ref (every cell), cpu (from each row's lower bound), the task array */
  static const int configs[3] = {0, 2, 5};
  for (int round = 0; round < 6; round++) {
    /* Checkpoint rows (4 bytes a capacity) pay only past ~100 items. */
    const int64_t n = 300 + round * 211 % 700, range = round % 2 ? 40 : 12;
    tu_knapsack in = tu_knapsack_random(&r, (tu_knapsack_kind)(round % 4), n, range, -1);
    int64_t want = 0, best = 0;
    uint8_t *want_taken = malloc((size_t)n + 1), *taken = malloc((size_t)n + 1);
    assert_non_null(want_taken);
    assert_non_null(taken);
    TU_OK(f->ctx[0], solve(f, 0, &in, 0, 0, &want, want_taken));
    for (int c = 0; c < 3; c++) {
      const int k = configs[c];
      skss_status st = solve(f, k, &in, 0, 1, &best, taken);
      if (st != SKSS_ERR_OUT_OF_MEMORY) TU_FAIL("max_bytes = 1 gave %s", skss_status_string(st));
      const int64_t need = number_after(f, k, "needs "), least = number_after(f, k, "or at least ");
      const int64_t limits[3] = {least, least + (need - least) / 7, need - 1};
      for (int t = 0; t < 3; t++) {
        TU_OK(f->ctx[k], solve(f, k, &in, 0, limits[t], &best, taken));
        if (best != want || memcmp(taken, want_taken, (size_t)n) != 0) {
          print_config(k, &in);
          TU_FAIL("max_bytes = %lld (all bits: %lld, least: %lld): best %lld, want %lld, or "
                  "another set", (long long)limits[t], (long long)need, (long long)least,
                  (long long)best, (long long)want);
        }
      }
    }
    free(want_taken);
    free(taken);
    tu_knapsack_free(&in);
  }
}


/* max_bytes bounds all of a call's working memory: a call fails with the
 * bytes it needs, and succeeds with exactly that limit. */
static void test_memory_limit(void **state) {
  fixture *f = *state;
  /* 3 items of weight 100, C = 1000: C' = 300, 5 words per item, 120 bytes of decision bits. */
  int64_t w[] = {100, 100, 100}, v[] = {1, 2, 3}, best;
  uint8_t taken[3];
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = 3;
  d.capacity = 1000;
  for (int k = 0; k < NCONFIGS; k++) {
    if (runs_core(k)) continue; /* CORE's limit: test_core_misuse */
    d.algorithm = CONFIGS[k].algorithm;
    d.value_only = 0;
    d.max_bytes = 1;
    expect_error(f, k, &d, w, v, &best, taken, SKSS_ERR_OUT_OF_MEMORY, "use value_only mode");
    const int64_t need = needed_bytes(f, k, &d, w, v, taken, "120 for decision bits");
    /* Three items: checkpoint rows would cost more than all their bits. */
    assert_null(strstr(skss_ctx_last_error(f->ctx[k]), "checkpoints"));
    d.max_bytes = need - 1;
    expect_error(f, k, &d, w, v, &best, taken, SKSS_ERR_OUT_OF_MEMORY, "max_bytes");
    d.max_bytes = need;
    TU_OK(f->ctx[k], skss_knapsack(f->ctx[k], &d, w, v, &best, taken));
    assert_int_equal(best, 6);
    d.value_only = 1;
    d.max_bytes = 1;
    const int64_t need_values = needed_bytes(f, k, &d, w, v, NULL, "0 for decision bits");
    if (need_values >= need) TU_FAIL("value-only mode needs %lld bytes, reconstruction %lld",
                                     (long long)need_values, (long long)need);
    d.max_bytes = need_values - 1;
    expect_error(f, k, &d, w, v, &best, NULL, SKSS_ERR_OUT_OF_MEMORY, "max_bytes");
    d.max_bytes = need_values;
    TU_OK(f->ctx[k], skss_knapsack(f->ctx[k], &d, w, v, &best, NULL));
    assert_int_equal(best, 6);
  }
  /* Huge weights and capacity: far past the default 4 GiB of bits. */
  int64_t hw[] = {BIG_C / 4, BIG_C / 2, BIG_C / 3};
  d.capacity = BIG_C;
  d.value_only = 0;
  d.max_bytes = 0;
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_AUTO;
  expect_error(f, 0, &d, hw, v, &best, taken, SKSS_ERR_OUT_OF_MEMORY, "use value_only mode");
}

/* An allocator that refuses blocks over 1 MiB: failed allocations of value
 * rows and decision bits are reported, not crashed on. */
static void *small_alloc(size_t bytes, size_t align, void *user) {
  (void)user;
  return bytes > ((size_t)1 << 20) ? NULL : aligned_alloc(align, (bytes + align - 1) / align * align);
}

static void small_free(void *ptr, void *user) {
  (void)user;
  free(ptr);
}

static void test_allocation_failure(void **state) {
  (void)state;
  skss_allocator alloc = {small_alloc, small_free, NULL};
  static const config configs[] = {{SKSS_BACKEND_CPU_REF, 1, SKSS_KNAPSACK_ALGORITHM_DP},
                                   {SKSS_BACKEND_CPU, 2, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU}};
  for (int k = 0; k < 2; k++) {
    skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
    cd.backend = configs[k].backend;
    cd.threads = configs[k].threads;
    cd.allocator = &alloc;
    fixture f;
    assert_int_equal(skss_ctx_create(&cd, &f.ctx[k]), SKSS_OK);
    /* Value rows of 10^15 capacities in value-only mode. */
    int64_t w[] = {BIG_C / 4, BIG_C / 2, BIG_C / 3}, v[] = {1, 2, 3}, best;
    uint8_t taken[3];
    skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
    d.n_items = 3;
    d.capacity = BIG_C;
    d.value_only = 1;
    d.algorithm = configs[k].algorithm;
    expect_error(&f, k, &d, w, v, &best, taken, SKSS_ERR_OUT_OF_MEMORY, "working memory");
    /* 2 MiB of decision bits, within max_bytes but not within the allocator. */
    int64_t w2[] = {1 << 20, 1 << 20, 1 << 20, 1 << 20}, v2[] = {1, 2, 3, 4};
    uint8_t taken2[4];
    d.n_items = 4;
    d.capacity = 4 << 20;
    d.value_only = 0;
    expect_error(&f, k, &d, w2, v2, &best, taken2, SKSS_ERR_OUT_OF_MEMORY, "use value_only mode");
    skss_ctx_destroy(f.ctx[k]);
  }
}

static void test_misuse(void **state) {
  fixture *f = *state;
  int64_t w[] = {1, 2, 3, -4}, v[] = {1, 2, 3, 4}, best;
  uint8_t taken[4];
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = 3;
  d.capacity = 5;
  assert_int_equal(skss_knapsack(NULL, &d, w, v, &best, taken), SKSS_ERR_INVALID_ARG);
  expect_error(f, 2, NULL, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "desc is NULL");
  d.size = sizeof d - 1;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "desc->size");
  d.size = sizeof d;
  d.n_items = -1;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "n_items -1 is negative");
  d.n_items = 3;
  d.capacity = -2;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "capacity -2 is negative");
  d.capacity = 5;
  d.max_bytes = -1;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "max_bytes");
  d.max_bytes = 0;
  d.value_only = 2;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "value_only");
  d.value_only = 0;
  expect_error(f, 2, &d, NULL, v, &best, taken, SKSS_ERR_INVALID_ARG, "weights is NULL");
  expect_error(f, 2, &d, w, NULL, &best, taken, SKSS_ERR_INVALID_ARG, "values is NULL");
  expect_error(f, 2, &d, w, v, NULL, taken, SKSS_ERR_INVALID_ARG, "best_value is NULL");
  expect_error(f, 2, &d, w, v, &best, NULL, SKSS_ERR_INVALID_ARG, "taken is NULL");
  d.n_items = 4;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "item 3 has weight -4");
  w[3] = 4;
  v[1] = -7;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "item 1 has value -7");
  v[1] = 2;
  d.algorithm = (skss_knapsack_algorithm)99;
  expect_error(f, 2, &d, w, v, &best, taken, SKSS_ERR_INVALID_ARG, "unknown knapsack algorithm");
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU;
  expect_error(f, 0, &d, w, v, &best, taken, SKSS_ERR_UNSUPPORTED, "taskarray-cpu");
  /* NULL arrays are fine without items; taken may be NULL in value-only mode. */
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_AUTO;
  d.n_items = 0;
  TU_OK(f->ctx[2], skss_knapsack(f->ctx[2], &d, NULL, NULL, &best, NULL));
  assert_int_equal(best, 0);
  d.n_items = 4;
  d.value_only = 1;
  memset(taken, POISON, sizeof taken);
  TU_OK(f->ctx[2], skss_knapsack(f->ctx[2], &d, w, v, &best, taken));
  assert_int_equal(best, 5); /* items {0, 3} or {1, 2} */
  for (int j = 0; j < 4; j++) assert_int_equal(taken[j], POISON);
}

/* ---- CORE ----------------------------------------------------------------- */

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SLOW 10 /* sanitizers: time limits x 10 */
#else
#define SLOW 1
#endif

/* CORE on both CPU backends against the DP's optimum (CPU backend, value
 * only: test_backends.c ties it to cpu-ref) and a valid set of it. */
static void check_core(const fixture *f, const tu_knapsack *in) {
  int64_t want;
  TU_OK(f->ctx[2], solve(f, 2, in, 1, 0, &want, NULL));
  uint8_t *taken = malloc((size_t)in->n + 1);
  assert_non_null(taken);
  for (int k = FIRST_CORE; k < NCONFIGS; k++) {
    int64_t best, best_vo;
    TU_OK(f->ctx[k], solve(f, k, in, 0, 0, &best, taken));
    TU_OK(f->ctx[k], solve(f, k, in, 1, 0, &best_vo, NULL));
    if (best != want || best_vo != want) {
      print_config(k, in);
      TU_FAIL("core optimum %lld (value only %lld), dp %lld", (long long)best, (long long)best_vo,
              (long long)want);
    }
    check_feasible(in, taken, best, k);
    if (taken[in->n] != POISON) TU_FAIL("taken written past n_items");
  }
  free(taken);
}

/* Every class at sizes 0, 1, 2, 31 and larger, ranges 10 .. 10^4, capacities
 * half the total, small and random: the core search, its bounds and the
 * re-solve for solutions older than 64 core items. */
static void test_core_classes(void **state) {
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 11);
  static const int64_t sizes[] = {0, 1, 2, 31, 64, 200, 500};
  static const int64_t ranges[] = {10, 100, 1000, 10000};
  for (int kind = 0; kind < TU_KNAPSACK_KINDS; kind++)
    for (size_t a = 0; a < sizeof sizes / sizeof sizes[0]; a++)
      for (size_t b = 0; b < sizeof ranges / sizeof ranges[0]; b++)
        for (int round = 0; round < 3; round++) {
          if (sizes[a] * ranges[b] > 2000000) continue; /* DP cells stay small */
          const int64_t cap = round == 1 ? tu_range(&r, 0, ranges[b] * 3) : -1;
          tu_knapsack in = tu_knapsack_random(&r, (tu_knapsack_kind)kind, sizes[a], ranges[b], cap);
          if (round == 2) in.cap = tu_range(&r, 0, in.cap * 2 + 1);
          check_core(*state, &in);
          tu_knapsack_free(&in);
        }
}

/* Ties, zero weights and values, w > C, C past the total, values summing to
 * INT64_MAX, a capacity of 10^15 with few items. */
static void test_core_edges(void **state) {
  fixture *f = *state;
  tu_knapsack in = tu_knapsack_new(12, 30);
  for (int j = 0; j < 12; j++) in.w[j] = 5, in.v[j] = 7;
  check_core(f, &in);
  for (int j = 0; j < 12; j++) in.w[j] = 1 + j % 3, in.v[j] = 2 * (1 + j % 3);
  check_core(f, &in);
  for (int j = 0; j < 12; j++) in.w[j] = j % 4 == 0 ? 0 : j % 4 == 1 ? 40 : j, in.v[j] = j % 3 ? j : 0;
  check_core(f, &in);
  in.cap = 1000;
  check_core(f, &in);
  tu_knapsack_free(&in);
  in = tu_knapsack_new(3, 150); /* values near 2^61, summing to exactly INT64_MAX */
  for (int64_t j = 0; j < 3; j++) in.w[j] = 60 + j * 11, in.v[j] = ((int64_t)1 << 61) + j;
  in.v[0] = INT64_MAX - in.v[1] - in.v[2];
  check_core(f, &in);
  tu_knapsack_free(&in);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 12);
  in = tu_knapsack_random(&r, TU_KNAPSACK_WEAK, 40, 1000, -1); /* big values, big weights */
  for (int64_t j = 0; j < in.n; j++) in.v[j] *= (int64_t)1 << 40;
  check_core(f, &in);
  tu_knapsack_free(&in);
  in = tu_knapsack_new(16, BIG_C / 2); /* brute force on 16 huge items */
  for (int64_t j = 0; j < 16; j++) in.w[j] = tu_range(&r, 1, BIG_C / 8), in.v[j] = tu_range(&r, 1, 1 << 30);
  const int64_t want = brute_force(&in);
  uint8_t taken[17];
  for (int k = FIRST_CORE; k < NCONFIGS; k++) {
    int64_t best;
    TU_OK(f->ctx[k], solve(f, k, &in, 0, 0, &best, taken));
    assert_int_equal(best, want);
    check_feasible(&in, taken, best, k);
  }
  tu_knapsack_free(&in);
}

/* The paths of the harder classes against the DP, n = 1000 (R = 10^4: the
 * DP's table has 2.5 x 10^9 cells; R = 1000 for the small run): almost
 * strongly correlated (the per-state cardinality cut and aspiration once the
 * states explode, re-solves of the items older than the 48 a state
 * remembers), spanner (copies of an item joining the core 1, 2, 4 ... at a
 * time), profit ceiling (values share the divisor 3), weights sharing the
 * divisor 7 below a capacity that does not (the capacity rounds down), and
 * many copies of few items on both sides of the break item. */
static void test_core_hard(void **state) {
  fixture *f = *state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 15);
  const int64_t range = getenv("SKSS_TEST_SMALL") != NULL ? 1000 : 10000;
  static const tu_knapsack_kind kinds[] = {TU_KNAPSACK_ALMOST_STRONG, TU_KNAPSACK_ALMOST_STRONG,
                                           TU_KNAPSACK_SPANNER, TU_KNAPSACK_PROFIT_CEILING};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    tu_knapsack in = tu_knapsack_random(&r, kinds[k], 1000, range, -1);
    check_core(f, &in);
    tu_knapsack_free(&in);
  }
  tu_knapsack in = tu_knapsack_random(&r, TU_KNAPSACK_UNCORRELATED, 500, 1000, -1);
  for (int64_t j = 0; j < in.n; j++) in.w[j] *= 7;
  in.cap = in.cap * 7 + 3;
  check_core(f, &in);
  tu_knapsack_free(&in);
  for (int64_t range_small = 3; range_small <= 30; range_small *= 10) {
    in = tu_knapsack_random(&r, TU_KNAPSACK_UNCORRELATED, 3000, range_small, -1);
    check_core(f, &in);
    tu_knapsack_free(&in);
    in = tu_knapsack_random(&r, TU_KNAPSACK_STRONG, 3000, range_small * 10, -1);
    check_core(f, &in);
    tu_knapsack_free(&in);
  }
}

/* n = 10^4, R = 10^5 of every class, each within 1 s (the time limit fails
 * the test past it; each takes at most 70 ms on one core of the project's
 * CPU machine); the set is checked. */
static void test_core_large(void **state) {
  fixture *f = *state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 13);
  static const tu_knapsack_kind kinds[] = {
      TU_KNAPSACK_UNCORRELATED,   TU_KNAPSACK_WEAK,           TU_KNAPSACK_SUBSET_SUM,
      TU_KNAPSACK_STRONG,         TU_KNAPSACK_INVERSE_STRONG, TU_KNAPSACK_PROFIT_CEILING,
      TU_KNAPSACK_SPANNER,        TU_KNAPSACK_ALMOST_STRONG};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    tu_knapsack in = tu_knapsack_random(&r, kinds[k], 10000, 100000, -1);
    uint8_t *taken = malloc((size_t)in.n);
    assert_non_null(taken);
    skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
    d.n_items = in.n;
    d.capacity = in.cap;
    d.algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
    d.time_limit_ms = 1000 * SLOW;
    int64_t best;
    TU_OK(f->ctx[NCONFIGS - 1], skss_knapsack(f->ctx[NCONFIGS - 1], &d, in.w, in.v, &best, taken));
    check_feasible(&in, taken, best, NCONFIGS - 1);
    free(taken);
    tu_knapsack_free(&in);
  }
}

/* A batch by core on several threads (an instance a thread at a time) gives
 * what calls of their own give; an instance that needs more than its share
 * of max_bytes is solved again alone (so the batch fails only where a call
 * of its own would); a failing instance's message reaches the context. */
static void test_core_batch_at_once(void **state) {
  fixture *f = *state;
  const int k3 = NCONFIGS - 1; /* CORE on 3 threads */
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 15);
  enum { COUNT = 7, N = 150 };
  const int64_t cap = 20000;
  int64_t *w = malloc(sizeof(int64_t) * COUNT * N), *v = malloc(sizeof(int64_t) * COUNT * N);
  uint8_t *taken = malloc(COUNT * N), one_taken[N];
  int64_t best[COUNT], one_best;
  assert_true(w && v && taken);
  for (int i = 0; i < COUNT; i++) {
    tu_knapsack in = tu_knapsack_random(&r, (tu_knapsack_kind)(i % 3), N, 1000, cap);
    memcpy(w + i * N, in.w, sizeof(int64_t) * N);
    memcpy(v + i * N, in.v, sizeof(int64_t) * N);
    tu_knapsack_free(&in);
  }
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = N;
  d.capacity = cap;
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
  /* the smallest max_bytes instance 0 runs in alone */
  skss_knapsack_desc one = d;
  int64_t lo = 1, hi = (int64_t)1 << 30;
  while (hi - lo > 1) {
    one.max_bytes = lo + (hi - lo) / 2;
    if (skss_knapsack(f->ctx[k3], &one, w, v, &one_best, one_taken) == SKSS_OK) hi = one.max_bytes;
    else lo = one.max_bytes;
  }
  const int64_t least = hi;
  /* three copies of instance 0: at 2 x least each of 3 threads' share is too small */
  for (int i = 1; i < 3; i++) {
    memcpy(w + i * N, w, sizeof(int64_t) * N);
    memcpy(v + i * N, v, sizeof(int64_t) * N);
  }
  for (int round = 0; round < 2; round++) {
    d.instances = round == 0 ? COUNT : 3;
    d.max_bytes = round == 0 ? 0 : 2 * least;
    memset(taken, POISON, COUNT * N);
    TU_OK(f->ctx[k3], skss_knapsack(f->ctx[k3], &d, w, v, best, taken));
    one.max_bytes = d.max_bytes;
    for (int i = 0; i < d.instances; i++) {
      TU_OK(f->ctx[k3], skss_knapsack(f->ctx[k3], &one, w + i * N, v + i * N, &one_best, one_taken));
      if (best[i] != one_best || memcmp(taken + i * N, one_taken, N) != 0)
        TU_FAIL("round %d: instance %d differs from a call of its own (best %lld, alone %lld)", round, i,
                (long long)best[i], (long long)one_best);
    }
  }
  d.instances = 3;
  d.max_bytes = least - 1; /* too small alone too */
  expect_error(f, k3, &d, w, v, best, taken, SKSS_ERR_OUT_OF_MEMORY, "max_bytes");
  /* AUTO on the cpu backend runs a batch of 150 items and C = 20000 by core: the same as core alone */
  int auto_cpu = -1;
  for (int k = 0; k < NCONFIGS; k++)
    if (CONFIGS[k].backend == SKSS_BACKEND_CPU && CONFIGS[k].algorithm == SKSS_KNAPSACK_ALGORITHM_AUTO) auto_cpu = k;
  assert_true(auto_cpu >= 0);
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_AUTO;
  d.instances = COUNT;
  d.max_bytes = 0;
  one.max_bytes = 0;
  TU_OK(f->ctx[auto_cpu], skss_knapsack(f->ctx[auto_cpu], &d, w, v, best, taken));
  for (int i = 0; i < COUNT; i++) {
    TU_OK(f->ctx[k3], skss_knapsack(f->ctx[k3], &one, w + i * N, v + i * N, &one_best, one_taken));
    if (best[i] != one_best || memcmp(taken + i * N, one_taken, N) != 0)
      TU_FAIL("AUTO batch: instance %d differs from core alone (best %lld, alone %lld)", i, (long long)best[i],
              (long long)one_best);
  }
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
  /* instances 2 and 4 out of memory even alone, the others trivial (all items fit): instance 2's
   * error, as the calls one after another give it */
  char want[512];
  one.max_bytes = 4096;
  assert_int_equal(skss_knapsack(f->ctx[k3], &one, w + 3 * N, v + 3 * N, &one_best, one_taken),
                   SKSS_ERR_OUT_OF_MEMORY);
  snprintf(want, sizeof want, "%s", skss_ctx_last_error(f->ctx[k3]));
  assert_int_equal(skss_knapsack(f->ctx[k3], &one, w + 5 * N, v + 5 * N, &one_best, one_taken),
                   SKSS_ERR_OUT_OF_MEMORY);
  int64_t *w2 = malloc(sizeof(int64_t) * 6 * N), *v2 = malloc(sizeof(int64_t) * 6 * N);
  assert_true(w2 && v2);
  for (int i = 0; i < 6 * N; i++) w2[i] = v2[i] = 1;
  memcpy(w2 + 2 * N, w + 3 * N, sizeof(int64_t) * N);
  memcpy(v2 + 2 * N, v + 3 * N, sizeof(int64_t) * N);
  memcpy(w2 + 4 * N, w + 5 * N, sizeof(int64_t) * N);
  memcpy(v2 + 4 * N, v + 5 * N, sizeof(int64_t) * N);
  d.instances = 6;
  d.max_bytes = 4096;
  best[0] = best[1] = -1;
  assert_int_equal(skss_knapsack(f->ctx[k3], &d, w2, v2, best, taken), SKSS_ERR_OUT_OF_MEMORY);
  assert_string_equal(skss_ctx_last_error(f->ctx[k3]), want);
  assert_true(best[0] == N && best[1] == N); /* the instances below the failed one are solved */
  free(w2);
  free(v2);
  /* instances 2 and 4 cannot run core (their items do not all fit in a capacity over INT64_MAX / 4) */
  d.instances = 6;
  d.max_bytes = 0;
  d.n_items = 5;
  d.capacity = INT64_MAX / 2;
  for (int i = 0; i < 6 * 5; i++) {
    w[i] = (i / 5 == 2 || i / 5 == 4) ? (int64_t)1 << 60 : 1 + i;
    v[i] = 1 + i % 5;
  }
  const skss_status st = skss_knapsack(f->ctx[k3], &d, w, v, best, taken);
  const char *msg = skss_ctx_last_error(f->ctx[k3]);
  if (st != SKSS_ERR_OVERFLOW || strstr(msg, "skss_knapsack(): ") != msg || strstr(msg, "capacity <=") == NULL)
    TU_FAIL("got %s \"%s\", expected overflow with \"capacity <=\"", skss_status_string(st), msg);
  free(w);
  free(v);
  free(taken);
}

/* The time limit stops a hard search with SKSS_ERR_TIMEOUT and writes
 * nothing; a table is refused; max_bytes bounds the states; an old desc
 * size (before time_limit_ms) still works. */
static void test_core_misuse(void **state) {
  fixture *f = *state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 14);
  /* Even weights and one item of weight 3 and value 1 (so neither the weights
   * nor the values share a divisor), odd capacity: no set is worth C, every
   * bound says C, and the search never closes the gap of 1. */
  tu_knapsack in = tu_knapsack_random(&r, TU_KNAPSACK_SUBSET_SUM, 20000, 1000000, -1);
  for (int64_t j = 0; j < in.n; j++) in.w[j] = in.v[j] = 2 * in.w[j];
  in.w[0] = 3;
  in.v[0] = 1;
  in.cap |= 1;
  uint8_t *taken = malloc((size_t)in.n);
  assert_non_null(taken);
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = in.n;
  d.capacity = in.cap;
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
  d.time_limit_ms = 20;
  int64_t best;
  memset(taken, POISON, (size_t)in.n);
  expect_error(f, NCONFIGS - 1, &d, in.w, in.v, &best, taken, SKSS_ERR_TIMEOUT, "time_limit_ms = 20");
  for (int64_t j = 0; j < in.n; j++) assert_int_equal(taken[j], POISON);
  d.time_limit_ms = -1;
  expect_error(f, NCONFIGS - 1, &d, in.w, in.v, &best, taken, SKSS_ERR_INVALID_ARG, "time_limit_ms");
  d.time_limit_ms = 0;
  d.max_bytes = 4096;
  expect_error(f, NCONFIGS - 1, &d, in.w, in.v, &best, taken, SKSS_ERR_OUT_OF_MEMORY, "max_bytes");
  free(taken);
  tu_knapsack_free(&in);
  int64_t w[] = {3, 4, 5}, v[] = {4, 5, 6}, table[8];
  uint8_t t3[3];
  d = (skss_knapsack_desc)SKSS_KNAPSACK_DESC_INIT;
  d.n_items = 3;
  d.capacity = 7;
  d.algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
  d.values_by_capacity = table;
  expect_error(f, NCONFIGS - 2, &d, w, v, &best, t3, SKSS_ERR_UNSUPPORTED, "values_by_capacity");
  d.values_by_capacity = NULL;
  d.size = offsetof(skss_knapsack_desc, time_limit_ms);
  TU_OK(f->ctx[NCONFIGS - 2], skss_knapsack(f->ctx[NCONFIGS - 2], &d, w, v, &best, t3));
  assert_int_equal(best, 9);
  assert_string_equal(skss_algorithm_name(SKSS_OP_KNAPSACK, SKSS_KNAPSACK_ALGORITHM_CORE), "core");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_brute_force_small), cmocka_unit_test(test_paper_example),
      cmocka_unit_test(test_ties),              cmocka_unit_test(test_edge_sizes),
      cmocka_unit_test(test_random_classes),    cmocka_unit_test(test_huge_capacity),
      cmocka_unit_test(test_cell_widths),       cmocka_unit_test(test_kernels),
      cmocka_unit_test(test_overflow),          cmocka_unit_test(test_memory_limit),
      cmocka_unit_test(test_checkpoint_reconstruction),
      cmocka_unit_test(test_values_by_capacity),
      cmocka_unit_test(test_batch),
      cmocka_unit_test(test_allocation_failure), cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_core_classes),      cmocka_unit_test(test_core_edges),
      cmocka_unit_test(test_core_hard),         cmocka_unit_test(test_core_large),
      cmocka_unit_test(test_core_batch_at_once), cmocka_unit_test(test_core_misuse),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
