/*
 * taskarray.c — skss_taskarray_run(): users' own task arrays on the CPU
 * (Funasaka, Nakano, Ito, SKSS task arrays, Sections II-IV).
 *  - SKSS: the single soft-synchronised pass. Each worker takes a row by
 *    ticket (rowsync.h), runs its tasks left to right, waits before each
 *    task on the predecessors' rows' progress, and publishes its own.
 *  - CONVENTIONAL: Parallel-Forward / Fair (Diagonal) / Backward. Tasks are
 *    grouped into partitions (levels) whose tasks are independent: level j
 *    (forward), i + j (fair), j + (reach + 1) i (backward); workers share
 *    each level and meet at a barrier after it, the CPU analogue of one
 *    kernel launch per partition.
 *  - SEQUENTIAL: Sequential Algorithm Horizontal on the calling thread.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/internal.h"
#include "rowsync.h"
#include "threadpool.h"

static const char *const FN = "skss_taskarray_run()";

typedef struct run_state {
  const skss_taskarray_desc *d;
  skss__rowsync sync;
  skss__barrier barrier;
  _Atomic int failure;          /* first skss_status that stopped the run */
  _Atomic int64_t stop_level;   /* CONVENTIONAL: level of the first failure */
  _Atomic int64_t bad_row, bad_col, bad_dep_row, bad_dep_col;
} run_state;

static void record_failure(run_state *s, skss_status st) {
  int expected = SKSS_OK;
  atomic_compare_exchange_strong(&s->failure, &expected, (int)st);
  skss__rowsync_stop(&s->sync);
}

/* Is (r, c) an allowed predecessor of (row, col) for the array's kind? */
static bool dep_allowed(const skss_taskarray_desc *d, int64_t row, int64_t col, int64_t r, int64_t c) {
  if (r < 0 || r >= row || c < 0 || c >= d->cols) return false;
  switch (d->kind) {
    case SKSS_TASKARRAY_KIND_FORWARD: return c < col;
    case SKSS_TASKARRAY_KIND_FAIR: return c <= col;
    case SKSS_TASKARRAY_KIND_BACKWARD: return c <= col + d->reach * (row - r);
  }
  return false;
}

/* Column count row `row - 1` must have finished before (row, col) may run,
 * for the default dependencies (transitively covering all earlier rows). */
static int64_t default_need(const skss_taskarray_desc *d, int64_t col) {
  int64_t need = d->kind == SKSS_TASKARRAY_KIND_BACKWARD ? col + d->reach + 1 : col + 1;
  return need < d->cols ? need : d->cols;
}

/* Waits for every predecessor of (row, col); false if the run stopped. */
static bool wait_deps(run_state *s, int64_t row, int64_t col) {
  const skss_taskarray_desc *d = s->d;
  if (row == 0) return true;
  if (d->deps == NULL) return skss__rowsync_wait(&s->sync, row - 1, default_need(d, col));
  skss_task_ref refs[SKSS_TASKARRAY_MAX_DEPS];
  int n = d->deps(row, col, refs, SKSS_TASKARRAY_MAX_DEPS, d->user_data);
  if (n < 0 || n > SKSS_TASKARRAY_MAX_DEPS) {
    record_failure(s, SKSS_ERR_CALLBACK);
    return false;
  }
  for (int k = 0; k < n; k++) {
    if (!dep_allowed(d, row, col, refs[k].row, refs[k].col)) {
      atomic_store(&s->bad_row, row);
      atomic_store(&s->bad_col, col);
      atomic_store(&s->bad_dep_row, refs[k].row);
      atomic_store(&s->bad_dep_col, refs[k].col);
      record_failure(s, SKSS_ERR_INVALID_ARG);
      return false;
    }
    if (!skss__rowsync_wait(&s->sync, refs[k].row, refs[k].col + 1)) return false;
  }
  return true;
}

static bool run_task(run_state *s, int64_t row, int64_t col) {
  if (s->d->task(row, col, s->d->user_data) != 0) {
    record_failure(s, SKSS_ERR_CALLBACK);
    return false;
  }
  return true;
}

static void skss_worker(int worker, int workers, void *arg) {
  (void)worker;
  (void)workers;
  run_state *s = arg;
  int64_t row;
  while ((row = skss__rowsync_ticket(&s->sync)) >= 0) {
    for (int64_t col = 0; col < s->d->cols; col++) {
      if (!wait_deps(s, row, col) || !run_task(s, row, col)) return;
      skss__rowsync_publish(&s->sync, row, col + 1);
    }
  }
}

/* Level of task (row, col) in the conventional schedule, and its inverse. */
static int64_t level_stride(const skss_taskarray_desc *d) {
  switch (d->kind) {
    case SKSS_TASKARRAY_KIND_FORWARD: return 0;
    case SKSS_TASKARRAY_KIND_FAIR: return 1;
    case SKSS_TASKARRAY_KIND_BACKWARD: return d->reach + 1;
  }
  return 1;
}

/* Marks `level` as failed (the first failing level wins; all failures of one
 * run happen in the same level, as no level starts after a failed one). */
static void stop_at_level(run_state *s, int64_t level) {
  int64_t none = INT64_MAX;
  atomic_compare_exchange_strong(&s->stop_level, &none, level);
}

static void conventional_worker(int worker, int workers, void *arg) {
  run_state *s = arg;
  const skss_taskarray_desc *d = s->d;
  int64_t stride = level_stride(d);
  int64_t levels = stride == 0 ? d->cols : (d->cols - 1) + stride * (d->rows - 1) + 1;
  for (int64_t level = 0; level < levels; level++) {
    /* Rows i with col = level - stride * i in [0, cols): a contiguous range. */
    int64_t lo = 0, hi = d->rows - 1;
    if (stride > 0) {
      lo = level - (d->cols - 1) <= 0 ? 0 : (level - (d->cols - 1) + stride - 1) / stride;
      hi = level / stride < hi ? level / stride : hi;
    }
    for (int64_t k = lo + worker; k <= hi; k += workers) {
      int64_t col = level - stride * k;
      if (atomic_load_explicit(&s->stop_level, memory_order_relaxed) <= level) break;
      if ((d->deps != NULL && !wait_deps(s, k, col)) || !run_task(s, k, col)) {
        stop_at_level(s, level);
        break;
      }
      skss__rowsync_publish(&s->sync, k, col + 1);
    }
    /* barrier: the next partition may read what this one wrote, and every
     * worker sees a failure of this level (it was recorded before arriving). */
    skss__barrier_wait(&s->barrier);
    /* Only failures of this level or earlier count: a faster worker may
     * already be failing in the next level, and all must decide alike. */
    if (atomic_load_explicit(&s->stop_level, memory_order_relaxed) <= level) return;
  }
}

static skss_status validate(skss_ctx *ctx, const skss_taskarray_desc *d) {
  if (d->rows < 0 || d->cols < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: size %lld x %lld is negative", FN,
                      (long long)d->rows, (long long)d->cols);
  if (d->task == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: desc->task is NULL", FN);
  if (d->kind != SKSS_TASKARRAY_KIND_FORWARD && d->kind != SKSS_TASKARRAY_KIND_FAIR &&
      d->kind != SKSS_TASKARRAY_KIND_BACKWARD)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown kind %d", FN, (int)d->kind);
  if (d->kind == SKSS_TASKARRAY_KIND_BACKWARD && (d->reach < 1 || d->reach > INT64_MAX / 4))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: a backward array needs reach >= 1 (got %lld)",
                      FN, (long long)d->reach);
  if (d->schedule != SKSS_TASKARRAY_SCHEDULE_SKSS && d->schedule != SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL &&
      d->schedule != SKSS_TASKARRAY_SCHEDULE_SEQUENTIAL)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown schedule %d", FN, (int)d->schedule);
  int64_t stride = level_stride(d), levels;
  if (d->schedule == SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL && d->rows > 0 &&
      (!skss__mul_i64(stride, d->rows, &levels) || levels > INT64_MAX - d->cols))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: the number of partitions overflows int64", FN);
  return SKSS_OK;
}

skss_status skss_taskarray_run(skss_ctx *ctx, const skss_taskarray_desc *desc) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, FN, desc, skss_taskarray_desc);
  skss_status st = validate(ctx, desc);
  if (st != SKSS_OK || desc->rows == 0 || desc->cols == 0) return st;
  if ((uint64_t)desc->rows > SIZE_MAX / sizeof(skss__row_progress))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %lld rows overflow size_t", FN, (long long)desc->rows);
  void *storage = skss__alloc(ctx, skss__rowsync_bytes(desc->rows));
  if (storage == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for %lld row counters", FN,
                      (long long)desc->rows);
  run_state s;
  memset(&s, 0, sizeof s);
  s.d = desc;
  atomic_init(&s.failure, SKSS_OK);
  atomic_init(&s.stop_level, INT64_MAX);
  skss__rowsync_init(&s.sync, desc->rows, storage);
  int workers = ctx->threads;
  if (desc->schedule == SKSS_TASKARRAY_SCHEDULE_SEQUENTIAL) workers = 1;
  if (desc->schedule == SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL) {
    skss__barrier_init(&s.barrier, (unsigned)workers);
    skss__parallel(ctx, workers, conventional_worker, &s);
  } else {
    skss__parallel(ctx, workers, skss_worker, &s);
  }
  skss__free(ctx, storage);
  st = (skss_status)atomic_load(&s.failure);
  if (st == SKSS_ERR_INVALID_ARG)
    return skss__fail(ctx, st,
                      "%s: deps of task (%lld, %lld) names (%lld, %lld), which is outside the array "
                      "or not allowed for its kind",
                      FN, (long long)s.bad_row, (long long)s.bad_col, (long long)s.bad_dep_row,
                      (long long)s.bad_dep_col);
  if (st == SKSS_ERR_CALLBACK)
    return skss__fail(ctx, st, "%s: a task or deps callback reported failure", FN);
  return st;
}
