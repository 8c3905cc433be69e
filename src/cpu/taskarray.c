/*
 * taskarray.c — the CPU runner of skss_taskarray_run() (core/taskarray_api.c
 * validates the call): users' own task arrays on the context's threads
 * (Funasaka, Nakano, Ito, SKSS task arrays, Sections II-IV).
 *  - SKSS: the single soft-synchronised pass. Each worker takes a row by
 *    ticket (rowsync.h), runs its tasks left to right, waits before each
 *    task on the predecessors' rows' progress, and publishes its own.
 *  - CONVENTIONAL: Parallel-Forward / Fair (Diagonal) / Backward. Tasks are
 *    grouped into partitions (levels) whose tasks are independent: level j
 *    (forward), i + j (fair), j + (reach + 1) i (backward); workers share
 *    each level and meet at a barrier after it, the CPU analogue of one
 *    kernel launch per partition. Only levels that hold tasks count: when
 *    reach + 1 >= cols (BACKWARD) the rows' levels do not interleave and
 *    every partition is one task, taken in row-major order.
 *  - SEQUENTIAL: Sequential Algorithm Horizontal on the calling thread.
 */
#include <stdatomic.h>
#include <string.h>

#include "core/internal.h"
#include "rowsync.h"
#include "taskarray_impl.h"
#include "threadpool.h"

typedef struct run_state {
  const skss_taskarray_desc *d;
  skss__rowsync sync;
  skss__barrier barrier;
  _Atomic int failure;          /* first skss_status that stopped the run */
  _Atomic int64_t stop_part;    /* CONVENTIONAL: partition of the first failure */
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
    case SKSS_TASKARRAY_KIND_BACKWARD:
      /* c - col <= reach * (row - r), the product saturated (both sides < 2^63). */
      return c <= col || row - r > INT64_MAX / d->reach || c - col <= d->reach * (row - r);
  }
  return false;
}

/* Column count row `row - 1` must have finished before (row, col) may run,
 * for the default dependencies (transitively covering all earlier rows):
 * min(col + 1 (+ reach for BACKWARD), cols), without overflow. */
static int64_t default_need(const skss_taskarray_desc *d, int64_t col) {
  const int64_t ahead = d->kind == SKSS_TASKARRAY_KIND_BACKWARD ? d->reach : 0;
  return ahead >= d->cols - col - 1 ? d->cols : col + ahead + 1;
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

/* Level of task (row, col) in the conventional schedule: col + stride * row
 * (for BACKWARD only called when reach + 1 < cols). */
static int64_t level_stride(const skss_taskarray_desc *d) {
  switch (d->kind) {
    case SKSS_TASKARRAY_KIND_FORWARD: return 0;
    case SKSS_TASKARRAY_KIND_FAIR: return 1;
    case SKSS_TASKARRAY_KIND_BACKWARD: return d->reach + 1;
  }
  return 1;
}

/* Marks partition `part` as failed (the first failing one wins; all failures
 * of one run happen in the same partition, as none starts after a failed one). */
static void stop_at_part(run_state *s, int64_t part) {
  int64_t none = INT64_MAX;
  atomic_compare_exchange_strong(&s->stop_part, &none, part);
}

/* Runs partition number `part`, the tasks (k, lo_col - stride * (k - lo))
 * for rows k = lo..hi, shared round-robin by the workers, then meets the
 * others at the barrier. False when the run stops after it. */
static bool run_partition(run_state *s, int worker, int workers, int64_t part, int64_t lo,
                          int64_t hi, int64_t lo_col, int64_t stride) {
  const skss_taskarray_desc *d = s->d;
  for (int64_t k = lo + worker; k <= hi; k += workers) {
    const int64_t col = lo_col - stride * (k - lo);
    if (atomic_load_explicit(&s->stop_part, memory_order_relaxed) <= part) break;
    if ((d->deps != NULL && !wait_deps(s, k, col)) || !run_task(s, k, col)) {
      stop_at_part(s, part);
      break;
    }
    skss__rowsync_publish(&s->sync, k, col + 1);
  }
  /* barrier: the next partition may read what this one wrote, and every
   * worker sees a failure of this partition (recorded before arriving). */
  skss__barrier_wait(&s->barrier);
  /* Only failures of this partition or earlier count: a faster worker may
   * already be failing in the next one, and all must decide alike. */
  return atomic_load_explicit(&s->stop_part, memory_order_relaxed) > part;
}

static void conventional_worker(int worker, int workers, void *arg) {
  run_state *s = arg;
  const skss_taskarray_desc *d = s->d;
  int64_t part = 0;
  if (d->kind == SKSS_TASKARRAY_KIND_BACKWARD && d->reach >= d->cols - 1) {
    /* With stride = reach + 1 >= cols, row i holds levels [stride * i,
     * stride * i + cols), one task each; the levels between rows are empty. */
    for (int64_t i = 0; i < d->rows; i++)
      for (int64_t j = 0; j < d->cols; j++)
        if (!run_partition(s, worker, workers, part++, i, i, j, 0)) return;
    return;
  }
  /* Every level holds tasks; there are at most rows * cols levels, which
   * fits int64 (core/taskarray_api.c checks it). */
  const int64_t stride = level_stride(d);
  const int64_t levels = stride == 0 ? d->cols : (d->cols - 1) + stride * (d->rows - 1) + 1;
  for (int64_t level = 0; level < levels; level++) {
    /* Rows i with col = level - stride * i in [0, cols): a contiguous range. */
    int64_t lo = 0, hi = d->rows - 1;
    if (stride > 0) {
      lo = level - (d->cols - 1) <= 0 ? 0 : (level - (d->cols - 1) + stride - 1) / stride;
      hi = level / stride < hi ? level / stride : hi;
    }
    if (!run_partition(s, worker, workers, part++, lo, hi, level - stride * lo, stride)) return;
  }
}

skss_status skss__taskarray_cpu(skss_ctx *ctx, const char *fn, const skss_taskarray_desc *desc) {
  void *storage = skss__alloc(ctx, skss__rowsync_bytes(desc->rows));
  if (storage == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for %lld row counters", fn,
                      (long long)desc->rows);
  run_state s;
  memset(&s, 0, sizeof s);
  s.d = desc;
  atomic_init(&s.failure, SKSS_OK);
  atomic_init(&s.stop_part, INT64_MAX);
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
  skss_status st = (skss_status)atomic_load(&s.failure);
  if (st == SKSS_ERR_INVALID_ARG)
    return skss__fail(ctx, st,
                      "%s: deps of task (%lld, %lld) names (%lld, %lld), which is outside the array "
                      "or not allowed for its kind",
                      fn, (long long)s.bad_row, (long long)s.bad_col, (long long)s.bad_dep_row,
                      (long long)s.bad_dep_col);
  if (st == SKSS_ERR_CALLBACK)
    return skss__fail(ctx, st, "%s: a task or deps callback reported failure", fn);
  return st;
}
