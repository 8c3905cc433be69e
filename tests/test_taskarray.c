/*
 * test_taskarray.c — the public CPU task-array runner: every task runs
 * exactly once and only after every task it depends on has finished, for
 * forward/fair/backward arrays, all three schedules, 1..8 threads, far more
 * rows than threads, custom dependency callbacks, failing callbacks, and
 * misuse of the API.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct trace {
  int64_t rows, cols;
  _Atomic int64_t clock;
  _Atomic int64_t *start, *end, *runs;
  int64_t fail_row, fail_col; /* task that reports failure, or -1 */
  int64_t max_back;           /* for the random forward deps */
  uint64_t seed;
} trace;

static trace *trace_new(int64_t rows, int64_t cols) {
  trace *t = calloc(1, sizeof *t);
  size_t n = (size_t)(rows * cols > 0 ? rows * cols : 1);
  t->rows = rows;
  t->cols = cols;
  t->start = calloc(n, sizeof *t->start);
  t->end = calloc(n, sizeof *t->end);
  t->runs = calloc(n, sizeof *t->runs);
  t->fail_row = t->fail_col = -1;
  assert_non_null(t->start);
  assert_non_null(t->end);
  assert_non_null(t->runs);
  return t;
}

static void trace_free(trace *t) {
  free(t->start);
  free(t->end);
  free(t->runs);
  free(t);
}

static int record_task(int64_t row, int64_t col, void *user) {
  trace *t = user;
  int64_t k = row * t->cols + col;
  atomic_store(&t->start[k], atomic_fetch_add(&t->clock, 1) + 1);
  atomic_fetch_add(&t->runs[k], 1);
  if (row == t->fail_row && col == t->fail_col) return 1;
  atomic_store(&t->end[k], atomic_fetch_add(&t->clock, 1) + 1);
  return 0;
}

/* Is (r, c) a predecessor of (i, j) in the full set of the kind? */
static int in_full_set(skss_taskarray_kind kind, int64_t reach, int64_t i, int64_t j, int64_t r,
                       int64_t c) {
  if (r >= i) return r == i && c < j;
  switch (kind) {
    case SKSS_TASKARRAY_KIND_FORWARD: return c < j;
    case SKSS_TASKARRAY_KIND_FAIR: return c <= j;
    case SKSS_TASKARRAY_KIND_BACKWARD: return c <= j + reach * (i - r);
  }
  return 0;
}

static void check_order(const trace *t, skss_taskarray_kind kind, int64_t reach) {
  for (int64_t i = 0; i < t->rows; i++) {
    for (int64_t j = 0; j < t->cols; j++) {
      int64_t k = i * t->cols + j;
      if (t->runs[k] != 1) TU_FAIL("task (%lld, %lld) ran %lld times", (long long)i, (long long)j,
                                   (long long)t->runs[k]);
      for (int64_t r = 0; r <= i; r++) {
        for (int64_t c = 0; c < t->cols; c++) {
          if (!in_full_set(kind, reach, i, j, r, c)) continue;
          if (t->end[r * t->cols + c] >= t->start[k])
            TU_FAIL("task (%lld, %lld) started before (%lld, %lld) ended", (long long)i, (long long)j,
                    (long long)r, (long long)c);
        }
      }
    }
  }
}

static void run_case(int threads, skss_taskarray_kind kind, int64_t reach,
                     skss_taskarray_schedule schedule, int64_t rows, int64_t cols) {
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, threads);
  trace *t = trace_new(rows, cols);
  skss_taskarray_desc d = SKSS_TASKARRAY_DESC_INIT;
  d.rows = rows;
  d.cols = cols;
  d.kind = kind;
  d.reach = reach;
  d.schedule = schedule;
  d.task = record_task;
  d.user_data = t;
  TU_OK(ctx, skss_taskarray_run(ctx, &d));
  check_order(t, kind, reach);
  trace_free(t);
  skss_ctx_destroy(ctx);
}

static void test_every_kind_schedule_and_thread_count(void **state) {
  (void)state;
  const int threads[] = {1, 2, 3, 5, 8};
  const int64_t shapes[][2] = {{1, 1}, {1, 9}, {9, 1}, {40, 7}, {7, 13}, {97, 5}};
  for (size_t a = 0; a < sizeof threads / sizeof threads[0]; a++)
    for (int kind = 0; kind < 3; kind++)
      for (int64_t reach = 1; reach <= (kind == SKSS_TASKARRAY_KIND_BACKWARD ? 3 : 1); reach++)
        for (int sched = 0; sched < 3; sched++)
          for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
            run_case(threads[a], (skss_taskarray_kind)kind, reach, (skss_taskarray_schedule)sched,
                     shapes[s][0], shapes[s][1]);
}

static void test_many_more_rows_than_threads(void **state) {
  (void)state;
  run_case(5, SKSS_TASKARRAY_KIND_BACKWARD, 2, SKSS_TASKARRAY_SCHEDULE_SKSS, 600, 6);
  run_case(3, SKSS_TASKARRAY_KIND_FAIR, 1, SKSS_TASKARRAY_SCHEDULE_SKSS, 1000, 3);
}

static void test_empty_arrays_run_nothing(void **state) {
  (void)state;
  run_case(2, SKSS_TASKARRAY_KIND_FAIR, 1, SKSS_TASKARRAY_SCHEDULE_SKSS, 0, 5);
  run_case(2, SKSS_TASKARRAY_KIND_FAIR, 1, SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL, 5, 0);
}

/* Knapsack-like forward deps: task (i, j) needs (i - k, j - 1) for a
 * pseudo-random k in [0, max_back], plus (i - 1, j - 1). */
static int knapsack_like_deps(int64_t row, int64_t col, skss_task_ref *out, int max, void *user) {
  trace *t = user;
  if (col == 0 || max < 2) return 0;
  uint64_t h = (uint64_t)(row * 7919 + col * 104729) ^ t->seed;
  int64_t back = (int64_t)(h % (uint64_t)(t->max_back + 1));
  int n = 0;
  out[n++] = (skss_task_ref){row - 1, col - 1};
  if (row - back >= 0 && back > 1) out[n++] = (skss_task_ref){row - back, col - 1};
  return n;
}

static void test_custom_deps_are_waited_for(void **state) {
  (void)state;
  const int threads[] = {1, 2, 5};
  for (size_t a = 0; a < 3; a++) {
    for (int sched = 0; sched < 3; sched++) {
      skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, threads[a]);
      trace *t = trace_new(120, 9);
      t->max_back = 30;
      t->seed = tu_seed();
      skss_taskarray_desc d = SKSS_TASKARRAY_DESC_INIT;
      d.rows = 120;
      d.cols = 9;
      d.kind = SKSS_TASKARRAY_KIND_FORWARD;
      d.schedule = (skss_taskarray_schedule)sched;
      d.task = record_task;
      d.deps = knapsack_like_deps;
      d.user_data = t;
      TU_OK(ctx, skss_taskarray_run(ctx, &d));
      for (int64_t i = 1; i < t->rows; i++) {
        for (int64_t j = 1; j < t->cols; j++) {
          skss_task_ref refs[4];
          int n = knapsack_like_deps(i, j, refs, 4, t);
          for (int k = 0; k < n; k++)
            assert_true(t->end[refs[k].row * t->cols + refs[k].col] < t->start[i * t->cols + j]);
          assert_int_equal(t->runs[i * t->cols + j], 1);
        }
      }
      trace_free(t);
      skss_ctx_destroy(ctx);
    }
  }
}

static int bad_deps(int64_t row, int64_t col, skss_task_ref *out, int max, void *user) {
  (void)user;
  (void)max;
  if (row == 0) return 0;
  out[0] = (skss_task_ref){row - 1, col}; /* same column: not allowed for FORWARD */
  return 1;
}

static int failing_deps(int64_t row, int64_t col, skss_task_ref *out, int max, void *user) {
  (void)out;
  (void)max;
  (void)user;
  return row == 3 && col == 1 ? -1 : 0;
}

static void test_failures_stop_the_run(void **state) {
  (void)state;
  for (int sched = 0; sched < 3; sched++) {
    skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 3);
    trace *t = trace_new(50, 8);
    t->fail_row = 10;
    t->fail_col = 4;
    skss_taskarray_desc d = SKSS_TASKARRAY_DESC_INIT;
    d.rows = 50;
    d.cols = 8;
    d.kind = SKSS_TASKARRAY_KIND_FAIR;
    d.schedule = (skss_taskarray_schedule)sched;
    d.task = record_task;
    d.user_data = t;
    assert_int_equal(skss_taskarray_run(ctx, &d), SKSS_ERR_CALLBACK);
    assert_non_null(strstr(skss_ctx_last_error(ctx), "skss_taskarray_run()"));
    /* Tasks that depend on the failed one never run. */
    for (int64_t j = 4; j < 8; j++) assert_int_equal(t->runs[11 * 8 + j], 0);
    for (int64_t k = 0; k < 50 * 8; k++) assert_true(t->runs[k] <= 1);

    trace *u = trace_new(6, 4);
    d.rows = 6;
    d.cols = 4;
    d.user_data = u;
    d.kind = SKSS_TASKARRAY_KIND_FORWARD;
    d.deps = bad_deps;
    assert_int_equal(skss_taskarray_run(ctx, &d), SKSS_ERR_INVALID_ARG);
    assert_non_null(strstr(skss_ctx_last_error(ctx), "not allowed"));
    d.deps = failing_deps;
    assert_int_equal(skss_taskarray_run(ctx, &d), SKSS_ERR_CALLBACK);
    trace_free(u);
    trace_free(t);
    skss_ctx_destroy(ctx);
  }
}

static void test_misuse(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU_REF, 0);
  trace *t = trace_new(2, 2);
  skss_taskarray_desc d = SKSS_TASKARRAY_DESC_INIT;
  d.rows = 2;
  d.cols = 2;
  d.task = record_task;
  d.user_data = t;
  assert_int_equal(skss_taskarray_run(NULL, &d), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_taskarray_run(ctx, NULL), SKSS_ERR_INVALID_ARG);
  skss_taskarray_desc bad = d;
  bad.size = 4;
  assert_int_equal(skss_taskarray_run(ctx, &bad), SKSS_ERR_INVALID_ARG);
  bad = d;
  bad.task = NULL;
  assert_int_equal(skss_taskarray_run(ctx, &bad), SKSS_ERR_INVALID_ARG);
  bad = d;
  bad.rows = -1;
  assert_int_equal(skss_taskarray_run(ctx, &bad), SKSS_ERR_INVALID_ARG);
  bad = d;
  bad.kind = SKSS_TASKARRAY_KIND_BACKWARD;
  bad.reach = 0;
  assert_int_equal(skss_taskarray_run(ctx, &bad), SKSS_ERR_INVALID_ARG);
  assert_non_null(strstr(skss_ctx_last_error(ctx), "reach"));
  bad = d;
  bad.schedule = (skss_taskarray_schedule)9;
  assert_int_equal(skss_taskarray_run(ctx, &bad), SKSS_ERR_INVALID_ARG);
  bad = d;
  bad.kind = SKSS_TASKARRAY_KIND_BACKWARD;
  bad.reach = INT64_MAX / 8;
  bad.rows = INT64_MAX / 2;
  bad.schedule = SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL;
  assert_int_equal(skss_taskarray_run(ctx, &bad), SKSS_ERR_OVERFLOW);
  for (int64_t k = 0; k < 4; k++) assert_int_equal(t->runs[k], 0);
  trace_free(t);
  skss_ctx_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_kind_schedule_and_thread_count),
      cmocka_unit_test(test_many_more_rows_than_threads),
      cmocka_unit_test(test_empty_arrays_run_nothing),
      cmocka_unit_test(test_custom_deps_are_waited_for),
      cmocka_unit_test(test_failures_stop_the_run),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
