/*
 * test_adversarial.c — the library defects an adversarial pass found, each
 * kept fixed: conventional task arrays with a large BACKWARD reach (empty
 * partitions are skipped; dependency checks saturate), knapsack capacities
 * up to INT64_MAX, max_bytes bounding all of a knapsack call's memory before
 * anything is allocated, skss_compact() refusing a count that overlaps a
 * buffer, and every CPU instruction-set level (SKSS_CPU_ISA) agreeing with
 * the sequential reference. Random data is seeded (testutil.h).
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "testutil.h"

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ---- task arrays ---------------------------------------------------------- */

/* Start and end ticks of every task of a small array. */
typedef struct ticks {
  int64_t rows, cols;
  _Atomic int64_t clock;
  _Atomic int64_t start[64], end[64], runs[64];
} ticks;

static int record_task(int64_t row, int64_t col, void *user) {
  ticks *t = user;
  const int64_t k = row * t->cols + col;
  atomic_store(&t->start[k], atomic_fetch_add(&t->clock, 1) + 1);
  atomic_fetch_add(&t->runs[k], 1);
  atomic_store(&t->end[k], atomic_fetch_add(&t->clock, 1) + 1);
  return 0;
}

/* (r, c) is in the BACKWARD predecessor set of (i, j): c <= j + reach * (i - r),
 * the product saturated. */
static int backward_pred(int64_t reach, int64_t i, int64_t j, int64_t r, int64_t c) {
  return r < i && (c <= j || i - r > INT64_MAX / reach || c - j <= reach * (i - r));
}

/* Every task ran once, after every task of its BACKWARD predecessor set. */
static void check_backward_order(const ticks *t, int64_t reach) {
  for (int64_t i = 0; i < t->rows; i++)
    for (int64_t j = 0; j < t->cols; j++) {
      const int64_t k = i * t->cols + j;
      if (atomic_load(&t->runs[k]) != 1)
        TU_FAIL("task (%lld, %lld) ran %lld times", (long long)i, (long long)j,
                (long long)atomic_load(&t->runs[k]));
      for (int64_t r = 0; r < i; r++)
        for (int64_t c = 0; c < t->cols; c++)
          if (backward_pred(reach, i, j, r, c) &&
              atomic_load(&t->end[r * t->cols + c]) > atomic_load(&t->start[k]))
            TU_FAIL("task (%lld, %lld) started before (%lld, %lld) ended", (long long)i,
                    (long long)j, (long long)r, (long long)c);
    }
}

/* 10 x 10 with reach 10^6 waited at ~10^7 empty barriers (17 s); 3 x 2 with
 * reach 2^61 never finished. Only partitions that hold tasks are run now. */
static void test_conventional_backward_large_reach(void **state) {
  (void)state;
  static const struct {
    int64_t rows, cols, reach;
  } CASES[] = {{10, 5, 1000000},
               {3, 2, (int64_t)1 << 61},
               {4, 3, INT64_MAX / 4},
               {4, 3, INT64_MAX - 1},
               {5, 4, INT64_MAX},
               {6, 8, 3}};
  static const int THREADS[] = {1, 2, 4};
  for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++)
    for (size_t n = 0; n < sizeof THREADS / sizeof THREADS[0]; n++)
      for (int schedule = 0; schedule < 3; schedule++) {
        skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, THREADS[n]);
        ticks *t = calloc(1, sizeof *t);
        assert_non_null(t);
        t->rows = CASES[c].rows;
        t->cols = CASES[c].cols;
        skss_taskarray_desc d = SKSS_TASKARRAY_DESC_INIT;
        d.rows = t->rows;
        d.cols = t->cols;
        d.kind = SKSS_TASKARRAY_KIND_BACKWARD;
        d.reach = CASES[c].reach;
        d.schedule = (skss_taskarray_schedule)schedule;
        d.task = record_task;
        d.user_data = t;
        const double t0 = seconds_now();
        TU_OK(ctx, skss_taskarray_run(ctx, &d));
        const double took = seconds_now() - t0;
        if (took > 5.0)
          TU_FAIL("%lld x %lld, reach %lld, schedule %d, %d threads took %.1f s",
                  (long long)t->rows, (long long)t->cols, (long long)d.reach, schedule,
                  THREADS[n], took);
        check_backward_order(t, d.reach);
        free(t);
        skss_ctx_destroy(ctx);
      }
}

/* deps callback: task (i, j) names (0, cols - 1) and (i - 1, cols - 1), or
 * with `bad` set, (i - 1, j + 2), outside a reach of 1. */
typedef struct deps_case {
  int64_t cols;
  int bad;
} deps_case;

static int far_deps(int64_t row, int64_t col, skss_task_ref *out, int max, void *user) {
  const deps_case *dc = user;
  (void)max;
  if (row == 0) return 0;
  if (dc->bad) {
    out[0] = (skss_task_ref){row - 1, col + 2};
    return col + 2 < dc->cols ? 1 : 0;
  }
  out[0] = (skss_task_ref){0, dc->cols - 1};
  out[1] = (skss_task_ref){row - 1, dc->cols - 1};
  return 2;
}

static int count_task(int64_t row, int64_t col, void *user) {
  (void)row;
  (void)col;
  atomic_fetch_add((_Atomic int64_t *)user, 1);
  return 0;
}

/* deps and task callbacks share the user data: the counter comes first. */
typedef struct deps_run {
  _Atomic int64_t ran;
  deps_case dc;
} deps_run;

static int deps_of_run(int64_t row, int64_t col, skss_task_ref *out, int max, void *user) {
  return far_deps(row, col, out, max, &((deps_run *)user)->dc);
}

/* Checking a listed dependency computed col + reach * (row - r), which
 * overflowed (UBSan) for a reach the validation accepts; it saturates now,
 * and dependencies outside the set are still refused. */
static void test_backward_listed_deps(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  for (int schedule = 0; schedule < 3; schedule++)
    for (int bad = 0; bad < 2; bad++) {
      deps_run run = {0, {4, bad}};
      skss_taskarray_desc d = SKSS_TASKARRAY_DESC_INIT;
      d.rows = 5;
      d.cols = run.dc.cols;
      d.kind = SKSS_TASKARRAY_KIND_BACKWARD;
      d.reach = bad ? 1 : INT64_MAX / 2;
      d.schedule = (skss_taskarray_schedule)schedule;
      d.task = count_task;
      d.deps = deps_of_run;
      d.user_data = &run;
      const skss_status st = skss_taskarray_run(ctx, &d);
      if (!bad) {
        TU_OK(ctx, st);
        assert_int_equal(atomic_load(&run.ran), 20);
        continue;
      }
      assert_int_equal(st, SKSS_ERR_INVALID_ARG);
      assert_non_null(strstr(skss_ctx_last_error(ctx), "not allowed for its kind"));
    }
  skss_ctx_destroy(ctx);
}

/* ---- knapsack --------------------------------------------------------------- */

typedef struct knap_config {
  skss_backend backend;
  int threads;
  skss_knapsack_algorithm algorithm;
} knap_config;

static const knap_config KNAP_CONFIGS[] = {
    {SKSS_BACKEND_CPU_REF, 1, SKSS_KNAPSACK_ALGORITHM_DP},
    {SKSS_BACKEND_CPU, 2, SKSS_KNAPSACK_ALGORITHM_DP},
    {SKSS_BACKEND_CPU, 2, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU},
    {SKSS_BACKEND_CPU, 3, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU},
};
enum { N_KNAP_CONFIGS = sizeof KNAP_CONFIGS / sizeof KNAP_CONFIGS[0] };

/* An allocator that counts the largest block asked for. */
static void *counting_alloc(size_t bytes, size_t align, void *user) {
  size_t *largest = user;
  if (bytes > *largest) *largest = bytes;
  if (bytes > ((size_t)1 << 30)) return NULL;
  return aligned_alloc(align, (bytes + align - 1) / align * align);
}

static void counting_free(void *ptr, void *user) {
  (void)user;
  free(ptr);
}

static skss_ctx *counting_ctx(const knap_config *k, size_t *largest) {
  const skss_allocator alloc = {counting_alloc, counting_free, largest};
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = k->backend;
  cd.threads = k->threads;
  cd.allocator = &alloc;
  skss_ctx *ctx = NULL;
  assert_int_equal(skss_ctx_create(&cd, &ctx), SKSS_OK);
  return ctx;
}

/* Capacity INT64_MAX overflowed capacity + 1 (UBSan in core/knapsack_api.c
 * and cpu/knapsack.c). Small items are solved; a saturated C' is refused
 * as too large before anything is allocated. */
static void test_knapsack_capacity_int64_max(void **state) {
  (void)state;
  const int64_t w[] = {3, 4, INT64_MAX, 0, 5};
  const int64_t v[] = {5, 6, 0, 2, 1};
  const int64_t huge_w[] = {INT64_MAX, 1, INT64_MAX / 2 + 1};
  const int64_t huge_v[] = {5, 3, 4};
  for (int k = 0; k < N_KNAP_CONFIGS; k++)
    for (int value_only = 0; value_only < 2; value_only++) {
      size_t largest = 0;
      skss_ctx *ctx = counting_ctx(&KNAP_CONFIGS[k], &largest);
      skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
      d.n_items = 5;
      d.capacity = INT64_MAX;
      d.value_only = value_only;
      d.algorithm = KNAP_CONFIGS[k].algorithm;
      int64_t best = -1;
      uint8_t taken[5];
      TU_OK(ctx, skss_knapsack(ctx, &d, w, v, &best, value_only ? NULL : taken));
      assert_int_equal(best, 14);
      if (!value_only) {
        const uint8_t want[5] = {1, 1, 0, 1, 1};
        assert_memory_equal(taken, want, 5);
      }
      d.n_items = 3;
      largest = 0;
      assert_int_equal(skss_knapsack(ctx, &d, huge_w, huge_v, &best, value_only ? NULL : taken),
                       SKSS_ERR_OUT_OF_MEMORY);
      assert_non_null(strstr(skss_ctx_last_error(ctx), "skss_knapsack(): needs more than"));
      assert_true(largest < ((size_t)1 << 20));
      skss_ctx_destroy(ctx);
    }
}

/* The 43-byte instance (2 items of weight 5e8, capacity 1e9) took 5.9 GB
 * and 16 s: max_bytes bounded only the decision bits. Now the default 4 GiB
 * bounds all working memory and the call fails before allocating. */
static void test_knapsack_default_limit_bounds_all_memory(void **state) {
  (void)state;
  const int64_t w[] = {500000000, 500000000};
  const int64_t v[] = {10, 20};
  for (int k = 0; k < N_KNAP_CONFIGS; k++)
    for (int value_only = 0; value_only < 2; value_only++) {
      size_t largest = 0;
      skss_ctx *ctx = counting_ctx(&KNAP_CONFIGS[k], &largest);
      skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
      d.n_items = 2;
      d.capacity = 1000000000;
      d.value_only = value_only;
      d.algorithm = KNAP_CONFIGS[k].algorithm;
      int64_t best = -1;
      uint8_t taken[2];
      const double t0 = seconds_now();
      assert_int_equal(skss_knapsack(ctx, &d, w, v, &best, value_only ? NULL : taken),
                       SKSS_ERR_OUT_OF_MEMORY);
      assert_true(seconds_now() - t0 < 1.0);
      assert_true(largest < ((size_t)1 << 20));
      const char *msg = skss_ctx_last_error(ctx);
      assert_non_null(strstr(msg, "max_bytes = 4294967296"));
      long long need = 0;
      const char *at = strstr(msg, "needs ");
      assert_non_null(at);
      assert_int_equal(sscanf(at, "needs %lld bytes", &need), 1);
      assert_true(need > ((long long)4 << 30));
      assert_int_equal(best, -1);
      skss_ctx_destroy(ctx);
    }
}

/* On a small instance the limit is exact: the bytes the error names are
 * enough, one fewer is not, in both modes. */
static void test_knapsack_limit_is_exact(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 41);
  enum { N = 40 };
  int64_t w[N], v[N];
  for (int j = 0; j < N; j++) {
    w[j] = tu_range(&rng, 1, 500);
    v[j] = tu_range(&rng, 1, 1000);
  }
  int64_t want_best = -1;
  for (int k = 0; k < N_KNAP_CONFIGS; k++)
    for (int value_only = 0; value_only < 2; value_only++) {
      skss_ctx *ctx = tu_ctx(KNAP_CONFIGS[k].backend, KNAP_CONFIGS[k].threads);
      skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
      d.n_items = N;
      d.capacity = 3000;
      d.value_only = value_only;
      d.algorithm = KNAP_CONFIGS[k].algorithm;
      d.max_bytes = 1;
      int64_t best = -1;
      uint8_t taken[N];
      assert_int_equal(skss_knapsack(ctx, &d, w, v, &best, taken), SKSS_ERR_OUT_OF_MEMORY);
      long long need = 0;
      const char *at = strstr(skss_ctx_last_error(ctx), "needs ");
      assert_non_null(at);
      assert_int_equal(sscanf(at, "needs %lld bytes", &need), 1);
      assert_non_null(strstr(skss_ctx_last_error(ctx), "max_bytes = 1;"));
      d.max_bytes = need - 1;
      assert_int_equal(skss_knapsack(ctx, &d, w, v, &best, taken), SKSS_ERR_OUT_OF_MEMORY);
      d.max_bytes = need;
      TU_OK(ctx, skss_knapsack(ctx, &d, w, v, &best, taken));
      if (want_best < 0) want_best = best;
      assert_int_equal(best, want_best);
      skss_ctx_destroy(ctx);
    }
}

/* ---- compaction ------------------------------------------------------------- */

/* A count inside `in`, the mask or an output was written by the call and
 * corrupted both; it is refused and nothing is written. */
static void test_compact_count_overlap(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  enum { N = 40 };
  int64_t arena[4 * N];
  for (int alg = SKSS_COMPACT_ALGORITHM_LOOP; alg <= SKSS_COMPACT_ALGORITHM_SCAN_CPU; alg++) {
    for (int k = 0; k < 4 * N; k++) arena[k] = k % 3;
    int64_t *in = arena, *mask = arena + N, *values = arena + 2 * N, *indices = arena + 3 * N;
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.n = N;
    d.dtype = SKSS_DTYPE_I64;
    d.keep = SKSS_COMPACT_KEEP_MASK_BYTES;
    d.mask = mask;
    d.algorithm = (skss_compact_algorithm)alg;
    /* every spot of count that shares a byte with a buffer the call uses */
    int64_t *const spots[] = {in, in + N - 1, (int64_t *)((uint8_t *)mask + N - 1),
                              values + 5, indices + N - 1, (int64_t *)((uint8_t *)in + 3)};
    for (size_t s = 0; s < sizeof spots / sizeof spots[0]; s++) {
      int64_t before[4 * N];
      memcpy(before, arena, sizeof before);
      assert_int_equal(skss_compact(ctx, &d, in, values, indices, spots[s]), SKSS_ERR_INVALID_ARG);
      assert_non_null(strstr(skss_ctx_last_error(ctx), "count overlaps"));
      assert_memory_equal(arena, before, sizeof before);
    }
    /* just past the mask's N bytes: no overlap */
    int64_t count = -1;
    TU_OK(ctx, skss_compact(ctx, &d, in, values, indices, &count));
    int64_t *past_mask = (int64_t *)((uint8_t *)mask + N);
    TU_OK(ctx, skss_compact(ctx, &d, in, values, indices, past_mask));
    assert_int_equal(*past_mask, count);
  }
  skss_ctx_destroy(ctx);
}

/* ---- instruction-set levels ------------------------------------------------- */

/* Whatever level SKSS_CPU_ISA allows, the CPU backend's kernels give the
 * reference's results: SAT (plain u8 has its own AVX2 kernel), box filter,
 * compaction (flags, portable and AVX-512 scatters) and knapsack rows. */
static void compare_levels_once(skss_ctx *cpu, skss_ctx *ref, tu_rng *rng) {
  enum { H = 67, W = 301, N = 200003, ITEMS = 60 };
  uint8_t *img = malloc(H * W);
  uint32_t *sat_cpu = malloc(sizeof(uint32_t) * H * W), *sat_ref = malloc(sizeof(uint32_t) * H * W);
  uint32_t *sq_cpu = malloc(sizeof(uint32_t) * H * W), *sq_ref = malloc(sizeof(uint32_t) * H * W);
  uint8_t *box_cpu = malloc(H * W), *box_ref = malloc(H * W);
  double *x = malloc(sizeof(double) * N), *out_cpu = malloc(sizeof(double) * N),
         *out_ref = malloc(sizeof(double) * N);
  int64_t *idx_cpu = malloc(sizeof(int64_t) * N), *idx_ref = malloc(sizeof(int64_t) * N);
  assert_true(img && sat_cpu && sat_ref && sq_cpu && sq_ref && box_cpu && box_ref && x && out_cpu && out_ref &&
              idx_cpu && idx_ref);
  tu_fill_bytes(rng, img, H * W);
  for (int alg = 0; alg < 2; alg++) {
    skss_sat_desc d = SKSS_SAT_DESC_INIT;
    d.height = H;
    d.width = W;
    d.algorithm = alg ? SKSS_SAT_ALGORITHM_ROWSCAN_CPU : SKSS_SAT_ALGORITHM_BANDS_CPU;
    TU_OK(cpu, skss_sat(cpu, &d, img, sat_cpu, sq_cpu));
    d.algorithm = SKSS_SAT_ALGORITHM_AUTO;
    TU_OK(ref, skss_sat(ref, &d, img, sat_ref, sq_ref));
    assert_memory_equal(sat_cpu, sat_ref, sizeof(uint32_t) * H * W);
    assert_memory_equal(sq_cpu, sq_ref, sizeof(uint32_t) * H * W);
  }
  skss_boxfilter_desc b = SKSS_BOXFILTER_DESC_INIT;
  b.height = H;
  b.width = W;
  b.radius = 3;
  TU_OK(cpu, skss_boxfilter_u8(cpu, &b, img, box_cpu));
  TU_OK(ref, skss_boxfilter_u8(ref, &b, img, box_ref));
  assert_memory_equal(box_cpu, box_ref, H * W);
  for (int k = 0; k < N; k++) x[k] = tu_unit(rng);
  skss_compact_desc c = SKSS_COMPACT_DESC_INIT;
  c.n = N;
  c.dtype = SKSS_DTYPE_F64;
  c.keep = SKSS_COMPACT_KEEP_RANGE;
  c.a.f = 0.2;
  c.b.f = 0.7;
  int64_t n_cpu = -1, n_ref = -2;
  TU_OK(cpu, skss_compact(cpu, &c, x, out_cpu, idx_cpu, &n_cpu));
  TU_OK(ref, skss_compact(ref, &c, x, out_ref, idx_ref, &n_ref));
  assert_int_equal(n_cpu, n_ref);
  assert_memory_equal(out_cpu, out_ref, sizeof(double) * (size_t)n_ref);
  assert_memory_equal(idx_cpu, idx_ref, sizeof(int64_t) * (size_t)n_ref);
  c.n = H * W;
  c.dtype = SKSS_DTYPE_U8;
  c.keep = SKSS_COMPACT_KEEP_GT;
  c.a.u = 100;
  TU_OK(cpu, skss_compact(cpu, &c, img, out_cpu, NULL, &n_cpu));
  TU_OK(ref, skss_compact(ref, &c, img, out_ref, NULL, &n_ref));
  assert_int_equal(n_cpu, n_ref);
  assert_memory_equal(out_cpu, out_ref, (size_t)n_ref);
  int64_t w[ITEMS], v[ITEMS];
  for (int wide = 0; wide < 2; wide++) {
    for (int j = 0; j < ITEMS; j++) {
      w[j] = tu_range(rng, 1, 400);
      v[j] = tu_range(rng, 1, wide ? (int64_t)1 << 40 : 1000);
    }
    skss_knapsack_desc k = SKSS_KNAPSACK_DESC_INIT;
    k.n_items = ITEMS;
    k.capacity = 5000;
    uint8_t t_cpu[ITEMS], t_ref[ITEMS];
    int64_t best_cpu = -1, best_ref = -2;
    TU_OK(cpu, skss_knapsack(cpu, &k, w, v, &best_cpu, t_cpu));
    TU_OK(ref, skss_knapsack(ref, &k, w, v, &best_ref, t_ref));
    assert_int_equal(best_cpu, best_ref);
    assert_memory_equal(t_cpu, t_ref, ITEMS);
  }
  free(img);
  free(sat_cpu);
  free(sat_ref);
  free(sq_cpu);
  free(sq_ref);
  free(box_cpu);
  free(box_ref);
  free(x);
  free(out_cpu);
  free(out_ref);
  free(idx_cpu);
  free(idx_ref);
}

static void test_every_isa_level_matches_reference(void **state) {
  (void)state;
  static const char *const LEVELS[] = {"scalar", "avx2", "avx512", ""};
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 43);
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  for (size_t l = 0; l < sizeof LEVELS / sizeof LEVELS[0]; l++) {
    setenv("SKSS_CPU_ISA", LEVELS[l], 1);
    skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, 2);
    compare_levels_once(cpu, ref, &rng);
    skss_ctx_destroy(cpu);
  }
  unsetenv("SKSS_CPU_ISA");
  skss_ctx_destroy(ref);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_conventional_backward_large_reach),
      cmocka_unit_test(test_backward_listed_deps),
      cmocka_unit_test(test_knapsack_capacity_int64_max),
      cmocka_unit_test(test_knapsack_default_limit_bounds_all_memory),
      cmocka_unit_test(test_knapsack_limit_is_exact),
      cmocka_unit_test(test_compact_count_overlap),
      cmocka_unit_test(test_every_isa_level_matches_reference),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
