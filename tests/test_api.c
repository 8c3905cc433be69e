/*
 * test_api.c — the context and the tables every primitive relies on:
 * creation and destruction on each backend, allocator hooks, thread counts,
 * status strings, backend/dtype/algorithm names and their round trips,
 * AUTO resolution, and misuse of the context API.
 */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static void test_version_and_status_strings(void **state) {
  (void)state;
  assert_string_equal(skss_version(), SKSS_VERSION_STRING);
  for (int s = SKSS_OK; s <= SKSS_ERR_TIMEOUT; s++) {
    const char *text = skss_status_string((skss_status)s);
    assert_non_null(text);
    assert_true(strlen(text) > 3);
  }
  assert_string_equal(skss_status_string((skss_status)999), "unknown status");
}

static void test_backends(void **state) {
  (void)state;
  assert_true(skss_backend_available(SKSS_BACKEND_CPU_REF));
  assert_true(skss_backend_available(SKSS_BACKEND_CPU));
  for (int b = 0; b <= SKSS_BACKEND_CUDA; b++) {
    skss_backend parsed;
    assert_int_equal(skss_backend_from_name(skss_backend_name((skss_backend)b), &parsed), SKSS_OK);
    assert_int_equal(parsed, b);
  }
  skss_backend parsed;
  assert_int_equal(skss_backend_from_name("gpu", &parsed), SKSS_ERR_INVALID_ARG);
  assert_null(skss_backend_name((skss_backend)7));

  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU_REF, 8);
  assert_int_equal(skss_ctx_backend(ctx), SKSS_BACKEND_CPU_REF);
  assert_int_equal(skss_ctx_threads(ctx), 1); /* the reference is sequential */
  assert_string_equal(skss_ctx_last_error(ctx), "");
  assert_int_equal(skss_ctx_synchronize(ctx), SKSS_OK);
  skss_ctx_destroy(ctx);

  ctx = tu_ctx(SKSS_BACKEND_CPU, 3);
  assert_int_equal(skss_ctx_threads(ctx), 3);
  /* a CPU context has no stream to move: NULL is a no-op, any other refused */
  assert_int_equal(skss_ctx_set_stream(ctx, NULL), SKSS_OK);
  int not_a_stream = 0;
  assert_int_equal(skss_ctx_set_stream(ctx, &not_a_stream), SKSS_ERR_UNSUPPORTED);
  assert_non_null(strstr(skss_ctx_last_error(ctx), "skss_ctx_set_stream(): the cpu backend"));
  assert_int_equal(skss_ctx_set_stream(NULL, NULL), SKSS_ERR_INVALID_ARG);
  skss_ctx_destroy(ctx);

  ctx = tu_ctx(SKSS_BACKEND_AUTO, 0);
  skss_backend b = skss_ctx_backend(ctx);
  assert_true(b == SKSS_BACKEND_CPU || b == SKSS_BACKEND_CUDA);
  assert_true(skss_ctx_threads(ctx) >= 1);
  skss_ctx_destroy(ctx);
  skss_ctx_destroy(NULL);
}

static void test_cuda_without_device(void **state) {
  (void)state;
  if (skss_device_count() > 0) skip();
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.backend = SKSS_BACKEND_CUDA;
  skss_ctx *ctx = (skss_ctx *)&d; /* must be overwritten with NULL */
  skss_status st = skss_ctx_create(&d, &ctx);
  assert_true(st == SKSS_ERR_NO_DEVICE || st == SKSS_ERR_UNSUPPORTED);
  assert_null(ctx);
  assert_int_equal(skss_backend_available(SKSS_BACKEND_CUDA), 0);
  skss_device_info info;
  assert_int_equal(skss_device_get_info(0, &info), SKSS_ERR_NO_DEVICE);
}

typedef struct counting_allocator {
  int allocs, frees;
} counting_allocator;

static void *count_alloc(size_t bytes, size_t align, void *user) {
  counting_allocator *c = user;
  void *p = NULL;
  if (posix_memalign(&p, align, bytes) != 0) return NULL;
  c->allocs++;
  return p;
}

static void count_free(void *p, void *user) {
  ((counting_allocator *)user)->frees++;
  free(p);
}

static void test_allocator_hooks_see_every_allocation(void **state) {
  (void)state;
  counting_allocator counts = {0, 0};
  skss_allocator a = {count_alloc, count_free, &counts};
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.backend = SKSS_BACKEND_CPU;
  d.threads = 2;
  d.allocator = &a;
  skss_ctx *ctx = NULL;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_OK);
  uint8_t in[6 * 5];
  uint32_t out[6 * 5];
  memset(in, 3, sizeof in);
  skss_sat_desc sd = SKSS_SAT_DESC_INIT;
  sd.height = 6;
  sd.width = 5;
  TU_OK(ctx, skss_sat(ctx, &sd, in, out, NULL));
  assert_int_equal(out[29], 3u * 30u);
  assert_true(counts.allocs >= 1);
  skss_ctx_destroy(ctx);
  assert_int_equal(counts.allocs, counts.frees);
}

static void test_ctx_misuse(void **state) {
  (void)state;
  assert_int_equal(skss_ctx_create(NULL, NULL), SKSS_ERR_INVALID_ARG);
  skss_ctx *ctx = NULL;
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.size = 3;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  d = (skss_ctx_desc)SKSS_CTX_DESC_INIT;
  d.threads = -1;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  d.threads = 100000;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  d.threads = 0;
  d.backend = (skss_backend)42;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  skss_allocator half = {count_alloc, NULL, NULL};
  d.backend = SKSS_BACKEND_CPU;
  d.allocator = &half;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  assert_null(ctx);
  assert_int_equal(skss_ctx_synchronize(NULL), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_ctx_threads(NULL), 0);
}

/* A failed skss_ctx_create() says why through skss_ctx_last_error(NULL);
 * a successful one clears it. */
static void test_failed_create_says_why(void **state) {
  (void)state;
  skss_ctx *ctx = NULL;
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.threads = 5000;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  assert_non_null(strstr(skss_ctx_last_error(NULL), "skss_ctx_create(): threads 5000"));
  d.threads = 1;
  d.backend = (skss_backend)42;
  assert_int_equal(skss_ctx_create(&d, &ctx), SKSS_ERR_INVALID_ARG);
  assert_non_null(strstr(skss_ctx_last_error(NULL), "unknown backend 42"));
  assert_int_equal(skss_ctx_create(NULL, NULL), SKSS_ERR_INVALID_ARG);
  assert_non_null(strstr(skss_ctx_last_error(NULL), "out is NULL"));
  if (skss_device_count() == 0) {
    d.backend = SKSS_BACKEND_CUDA;
    assert_int_not_equal(skss_ctx_create(&d, &ctx), SKSS_OK);
    assert_non_null(strstr(skss_ctx_last_error(NULL), "skss_ctx_create(): "));
  }
  assert_int_equal(skss_ctx_create(NULL, &ctx), SKSS_OK);
  assert_string_equal(skss_ctx_last_error(NULL), "");
  skss_ctx_destroy(ctx);
}

/* An AUTO context runs every primitive: on CUDA where it has kernels, else
 * on the CPU threads; skss_ctx_op_backend() says which. An explicit backend
 * never falls back. */

/* Items (2, 3), (3, 4), (4, 5) within 5: the optimum 7 from the first two. */
static void check_tiny_knapsack(skss_ctx *ctx) {
  const int64_t w[3] = {2, 3, 4}, v[3] = {3, 4, 5};
  int64_t best = -1;
  uint8_t taken[3] = {9, 9, 9};
  skss_knapsack_desc kd = SKSS_KNAPSACK_DESC_INIT;
  kd.n_items = 3;
  kd.capacity = 5;
  TU_OK(ctx, skss_knapsack(ctx, &kd, w, v, &best, taken));
  assert_int_equal(best, 7);
  assert_true(taken[0] == 1 && taken[1] == 1 && taken[2] == 0);
}

static void test_auto_runs_every_primitive(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_AUTO, 2);
  const skss_backend main_backend = skss_ctx_backend(ctx);
  for (int op = SKSS_OP_SAT; op <= SKSS_OP_COMPACT; op++) {
    skss_backend b = skss_ctx_op_backend(ctx, (skss_op)op);
    assert_true(b == main_backend || b == SKSS_BACKEND_CPU);
    assert_true(skss_algorithm_supported((skss_op)op, 0, b));
  }
  assert_int_equal(skss_ctx_op_backend(ctx, (skss_op)9), SKSS_BACKEND_AUTO);
  assert_int_equal(skss_ctx_op_backend(NULL, SKSS_OP_SAT), SKSS_BACKEND_AUTO);

  check_tiny_knapsack(ctx);

  const float in[5] = {1.f, -2.f, 3.f, 0.f, 5.f};
  float kept[5];
  int64_t count = -1;
  skss_compact_desc cd = SKSS_COMPACT_DESC_INIT;
  cd.n = 5;
  cd.keep = SKSS_COMPACT_KEEP_GT;
  cd.a.f = 0.5;
  TU_OK(ctx, skss_compact(ctx, &cd, in, kept, NULL, &count));
  assert_int_equal(count, 3);
  assert_true(kept[0] == 1.f && kept[1] == 3.f && kept[2] == 5.f);

  /* An explicit CPU algorithm in an AUTO context runs on the CPU. */
  uint8_t img[6] = {1, 2, 3, 4, 5, 6};
  uint32_t sat[6] = {0};
  skss_sat_desc sd = SKSS_SAT_DESC_INIT;
  sd.height = 2;
  sd.width = 3;
  sd.algorithm = SKSS_SAT_ALGORITHM_2R2W_CPU;
  TU_OK(ctx, skss_sat(ctx, &sd, img, sat, NULL));
  assert_int_equal(sat[5], 21);
  skss_ctx_destroy(ctx);
}

/* A primitive the explicit backend lacks is an error that names the way
 * out: compaction, which CUDA has no kernels for (knapsack, SAT and
 * halftoning have them, and run there). */
static void test_explicit_backend_never_falls_back(void **state) {
  (void)state;
  if (skss_device_count() == 0) skip();
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CUDA, 1);
  if (skss_algorithm_supported(SKSS_OP_COMPACT, 0, SKSS_BACKEND_CUDA)) {
    skss_ctx_destroy(ctx);
    skip(); /* CUDA has compaction kernels now: nothing to fall back from */
  }
  assert_int_equal(skss_ctx_op_backend(ctx, SKSS_OP_COMPACT), SKSS_BACKEND_AUTO);
  const int32_t in[3] = {1, 2, 3};
  int32_t kept[3] = {-1, -1, -1};
  int64_t count = -1;
  skss_compact_desc cd = SKSS_COMPACT_DESC_INIT;
  cd.n = 3;
  cd.dtype = SKSS_DTYPE_I32;
  cd.keep = SKSS_COMPACT_KEEP_GT;
  cd.a.i = 1;
  assert_int_equal(skss_compact(ctx, &cd, in, kept, NULL, &count), SKSS_ERR_UNSUPPORTED);
  assert_non_null(strstr(skss_ctx_last_error(ctx), "auto backend"));
  assert_int_equal(count, -1);
  assert_int_equal(kept[0], -1);
  /* A primitive CUDA has runs on CUDA, its CPU algorithms are refused. */
  if (skss_algorithm_supported(SKSS_OP_KNAPSACK, 0, SKSS_BACKEND_CUDA)) {
    assert_int_equal(skss_ctx_op_backend(ctx, SKSS_OP_KNAPSACK), SKSS_BACKEND_CUDA);
    check_tiny_knapsack(ctx);
    const int64_t w[3] = {2, 3, 4}, v[3] = {3, 4, 5};
    int64_t best = -1;
    uint8_t taken[3] = {9, 9, 9};
    skss_knapsack_desc kd = SKSS_KNAPSACK_DESC_INIT;
    kd.n_items = 3;
    kd.capacity = 5;
    kd.algorithm = SKSS_KNAPSACK_ALGORITHM_DP;
    assert_int_equal(skss_knapsack(ctx, &kd, w, v, &best, taken), SKSS_ERR_UNSUPPORTED);
    assert_non_null(strstr(skss_ctx_last_error(ctx), "a CPU algorithm"));
    assert_int_equal(best, -1);
  }
  skss_ctx_destroy(ctx);
}

static void test_dtype_table(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  for (int t = SKSS_DTYPE_U8; t <= SKSS_DTYPE_F64; t++) {
    assert_int_equal(skss_dtype_size((skss_dtype)t), sizes[t]);
    skss_dtype parsed;
    assert_int_equal(skss_dtype_from_name(skss_dtype_name((skss_dtype)t), &parsed), SKSS_OK);
    assert_int_equal(parsed, t);
  }
  skss_dtype parsed;
  assert_int_equal(skss_dtype_size((skss_dtype)0), 0);
  assert_null(skss_dtype_name((skss_dtype)11));
  assert_int_equal(skss_dtype_from_name("float", &parsed), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_dtype_from_name(NULL, &parsed), SKSS_ERR_INVALID_ARG);
}

static void test_algorithm_names_round_trip(void **state) {
  (void)state;
  for (int op = SKSS_OP_SAT; op <= SKSS_OP_COMPACT; op++) {
    assert_string_equal(skss_algorithm_name((skss_op)op, 0), "auto");
    int seen = 0;
    for (int alg = 0; alg < 64; alg++) {
      const char *name = skss_algorithm_name((skss_op)op, alg);
      if (name == NULL) continue;
      seen++;
      int parsed = -1;
      assert_int_equal(skss_algorithm_from_name((skss_op)op, name, &parsed), SKSS_OK);
      assert_int_equal(parsed, alg);
      /* Every named algorithm runs on at least one CPU backend or is CUDA's. */
      assert_true(skss_algorithm_supported((skss_op)op, alg, SKSS_BACKEND_CPU) ||
                  skss_algorithm_supported((skss_op)op, alg, SKSS_BACKEND_CUDA));
      assert_true(skss_algorithm_supported((skss_op)op, alg, SKSS_BACKEND_AUTO));
    }
    assert_true(seen >= 3);
    int parsed;
    assert_int_equal(skss_algorithm_from_name((skss_op)op, "no-such-algorithm", &parsed),
                     SKSS_ERR_INVALID_ARG);
    assert_true(skss_algorithm_supported((skss_op)op, 0, SKSS_BACKEND_CPU_REF));
    assert_true(skss_algorithm_supported((skss_op)op, 0, SKSS_BACKEND_CPU));
  }
  /* The reference backend runs only the papers' sequential algorithms. */
  assert_false(skss_algorithm_supported(SKSS_OP_SAT, SKSS_SAT_ALGORITHM_BANDS_CPU, SKSS_BACKEND_CPU_REF));
  assert_true(skss_algorithm_supported(SKSS_OP_SAT, SKSS_SAT_ALGORITHM_4R1W_CPU, SKSS_BACKEND_CPU_REF));
  assert_null(skss_algorithm_name(SKSS_OP_SAT, 63));
}

static void test_unsupported_algorithm_is_an_error_not_a_fallback(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  uint8_t in[4] = {1, 2, 3, 4};
  uint32_t out[4] = {0};
  skss_sat_desc sd = SKSS_SAT_DESC_INIT;
  sd.height = 2;
  sd.width = 2;
  sd.algorithm = SKSS_SAT_ALGORITHM_BANDS_CPU;
  assert_int_equal(skss_sat(ctx, &sd, in, out, NULL), SKSS_ERR_UNSUPPORTED);
  assert_non_null(strstr(skss_ctx_last_error(ctx), "bands-cpu"));
  assert_int_equal(out[0], 0);
  sd.algorithm = (skss_sat_algorithm)77;
  assert_int_equal(skss_sat(ctx, &sd, in, out, NULL), SKSS_ERR_INVALID_ARG);
  skss_ctx_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_version_and_status_strings),
      cmocka_unit_test(test_backends),
      cmocka_unit_test(test_cuda_without_device),
      cmocka_unit_test(test_allocator_hooks_see_every_allocation),
      cmocka_unit_test(test_ctx_misuse),
      cmocka_unit_test(test_failed_create_says_why),
      cmocka_unit_test(test_auto_runs_every_primitive),
      cmocka_unit_test(test_explicit_backend_never_falls_back),
      cmocka_unit_test(test_dtype_table),
      cmocka_unit_test(test_algorithm_names_round_trip),
      cmocka_unit_test(test_unsupported_algorithm_is_an_error_not_a_fallback),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
