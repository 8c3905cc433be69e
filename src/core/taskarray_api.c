/*
 * taskarray_api.c — skss_taskarray_run(): validates a user's task array
 * (sizes, kind, reach, schedule, callbacks) and runs it on the context's CPU
 * threads (src/cpu/taskarray.c; Funasaka, Nakano, Ito, "Single Kernel Soft
 * Synchronization Technique for Task Arrays on CUDA-enabled GPUs, with
 * Applications", Sections II-IV). Every backend's context runs task arrays
 * on its host threads.
 */
#include "cpu/rowsync.h"
#include "cpu/taskarray_impl.h"
#include "internal.h"

static const char *const FN = "skss_taskarray_run()";

static skss_status validate(skss_ctx *ctx, const skss_taskarray_desc *d) {
  if (d->rows < 0 || d->cols < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: size %lld x %lld is negative", FN,
                      (long long)d->rows, (long long)d->cols);
  if (d->task == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: desc->task is NULL", FN);
  if (d->kind != SKSS_TASKARRAY_KIND_FORWARD && d->kind != SKSS_TASKARRAY_KIND_FAIR &&
      d->kind != SKSS_TASKARRAY_KIND_BACKWARD)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown kind %d", FN, (int)d->kind);
  if (d->kind == SKSS_TASKARRAY_KIND_BACKWARD && d->reach < 1)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: a backward array needs reach >= 1 (got %lld)",
                      FN, (long long)d->reach);
  if (d->schedule != SKSS_TASKARRAY_SCHEDULE_SKSS &&
      d->schedule != SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL &&
      d->schedule != SKSS_TASKARRAY_SCHEDULE_SEQUENTIAL)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown schedule %d", FN, (int)d->schedule);
  int64_t tasks;
  if (!skss__mul_i64(d->rows, d->cols, &tasks))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %lld x %lld tasks overflow int64", FN,
                      (long long)d->rows, (long long)d->cols);
  if ((uint64_t)d->rows > SIZE_MAX / sizeof(skss__row_progress))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %lld rows overflow size_t", FN,
                      (long long)d->rows);
  return SKSS_OK;
}

skss_status skss_taskarray_run(skss_ctx *ctx, const skss_taskarray_desc *desc) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, FN, desc, skss_taskarray_desc);
  skss_status st = validate(ctx, desc);
  if (st != SKSS_OK || desc->rows == 0 || desc->cols == 0) return st;
  return skss__taskarray_cpu(ctx, FN, desc);
}
