/*
 * compact_impl.h — the CPU stream-compaction algorithms behind
 * skss_compact() (src/core/compact_api.c), which validates the arguments and
 * fills one skss__compact_job:
 *  - compact_ref.c: SKSS_COMPACT_ALGORITHM_LOOP, the paper's sequential loop;
 *  - compact.c:     SKSS_COMPACT_ALGORITHM_SCAN_CPU, count / scan / scatter per block
 *                   on the context's threads.
 * The CUDA backend (src/cuda/compact/) takes the same job, whose `rule` the
 * core computed once on the host, so every backend tests the same interval.
 */
#ifndef SKSS_COMPACT_IMPL_H
#define SKSS_COMPACT_IMPL_H

#include <stdint.h>

#include "core/internal.h"

/* Every predicate as one interval test (src/core/compact_api.c computes it
 * from the predicate, the dtype and the scalars; compact.c's top comment
 * states it):
 *  - integers: keep x iff ((x - lo) mod 2^bits <= span) XOR invert, on the
 *    element's bits (lo and span truncated to the element's width);
 *  - floats: keep x iff (lo_f <= x && x <= hi_f) XOR invert, in the
 *    element's format (f32 compares with (float)lo_f, (float)hi_f, which are
 *    exact); a NaN bound makes the interval empty;
 *  - masks: unused (the mask's flags are the test). */
typedef struct skss__compact_rule {
  uint64_t lo, span;
  double lo_f, hi_f;
  uint8_t invert; /* 1 for NE and NONZERO, and for an empty integer interval */
} skss__compact_rule;

/* One validated compaction: `in` holds n elements of dtype (n >= 0, and `in`
 * is non-NULL when n > 0); `mask` is non-NULL for the mask predicates when
 * n > 0; either output may be NULL. */
typedef struct skss__compact_job {
  const void *in;
  int64_t n;
  skss_dtype dtype;
  skss_compact_keep predicate;
  skss_scalar a, b;
  skss__compact_rule rule; /* the predicate as an interval test */
  const uint8_t *mask;
  void *values;
  int64_t *indices;
} skss__compact_job;

/* SKSS_COMPACT_ALGORITHM_LOOP: tests each element in order, copies the kept ones and
 * returns how many were kept. Never fails. */
int64_t skss__compact_loop(const skss__compact_job *job);

/* SKSS_COMPACT_ALGORITHM_SCAN_CPU: writes the kept elements and their number to *count;
 * fails only when its scratch memory cannot be had. */
skss_status skss__compact_scan_cpu(skss_ctx *ctx, const skss__compact_job *job, int64_t *count);

#endif
