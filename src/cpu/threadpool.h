/*
 * threadpool.h — the context's CPU workers. skss__pool_run() runs one
 * function on N workers at once (the calling thread is worker 0) and returns
 * when all have finished; the pool keeps its threads between calls.
 */
#ifndef SKSS_THREADPOOL_H
#define SKSS_THREADPOOL_H

#include <stdint.h>

#include "core/internal.h"

typedef void (*skss__pool_fn)(int worker, int workers, void *arg);

skss__pool *skss__pool_create(skss_ctx *ctx, int threads);
void skss__pool_destroy(skss__pool *pool);

/* Runs fn(w, workers, arg) for w = 0..workers-1 concurrently, workers <= the
 * context's threads; fn runs inline when workers == 1 or there is no pool. */
void skss__parallel(skss_ctx *ctx, int workers, skss__pool_fn fn, void *arg);

/* Static split of [0, n) into `parts` nearly equal ranges: range `k`. */
static inline void skss__split(int64_t n, int parts, int k, int64_t *begin, int64_t *end) {
  int64_t q = n / parts, r = n % parts;
  *begin = k * q + (k < r ? k : r);
  *end = *begin + q + (k < r ? 1 : 0);
}

/* Spin-wait helper: call with an increasing counter while waiting; pauses the
 * core briefly and, after a while, yields so oversubscribed threads progress. */
void skss__spin_pause(unsigned *spins);

/* A reusable barrier for `count` workers of one skss__parallel() call. */
typedef struct skss__barrier {
  _Atomic unsigned arrived;
  _Atomic unsigned generation;
  unsigned count;
} skss__barrier;

void skss__barrier_init(skss__barrier *b, unsigned count);
void skss__barrier_wait(skss__barrier *b);

#endif
