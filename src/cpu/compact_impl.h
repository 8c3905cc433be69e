/*
 * compact_impl.h — the CPU stream-compaction algorithms behind
 * skss_compact() (src/core/compact_api.c), which validates the arguments and
 * fills one skss__compact_job:
 *  - compact_ref.c: SKSS_COMPACT_ALGORITHM_LOOP, the paper's sequential loop;
 *  - compact.c:     SKSS_COMPACT_ALGORITHM_SCAN_CPU, count / scan / scatter per block
 *                   on the context's threads.
 */
#ifndef SKSS_COMPACT_IMPL_H
#define SKSS_COMPACT_IMPL_H

#include <stdint.h>

#include "core/internal.h"

/* One validated compaction: `in` holds n elements of dtype (n >= 0, and `in`
 * is non-NULL when n > 0); `mask` is non-NULL for the mask predicates when
 * n > 0; either output may be NULL. */
typedef struct skss__compact_job {
  const void *in;
  int64_t n;
  skss_dtype dtype;
  skss_compact_keep predicate;
  skss_scalar a, b;
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
