/*
 * threadpool.c — persistent pthreads owned by a context. A job is published
 * under a mutex with a generation number; workers wake on a condition
 * variable, run their share, and the last to finish signals the caller.
 * Also the spin-wait back-off and the barrier used by the CPU schedulers.
 */
#include "threadpool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define SKSS_CPU_RELAX() _mm_pause()
#elif defined(__aarch64__)
#define SKSS_CPU_RELAX() __asm__ __volatile__("yield")
#else
#define SKSS_CPU_RELAX() ((void)0)
#endif

struct skss__pool {
  skss_ctx *ctx;
  int threads;              /* including the caller */
  pthread_t *tids;
  pthread_mutex_t lock;
  pthread_cond_t wake;      /* workers wait here for a new generation */
  pthread_cond_t done;      /* the caller waits here for `running` == 0 */
  unsigned long generation;
  int workers;              /* workers of the current job */
  int running;              /* helper threads still in the current job */
  int stop;
  skss__pool_fn fn;
  void *arg;
};

typedef struct worker_start {
  skss__pool *pool;
  int index;
} worker_start;

static void *worker_main(void *p) {
  skss__pool *pool = ((worker_start *)p)->pool;
  int index = ((worker_start *)p)->index;
  free(p);
  unsigned long seen = 0;
  pthread_mutex_lock(&pool->lock);
  for (;;) {
    while (!pool->stop && pool->generation == seen) pthread_cond_wait(&pool->wake, &pool->lock);
    if (pool->stop) break;
    seen = pool->generation;
    if (index >= pool->workers) continue;
    skss__pool_fn fn = pool->fn;
    void *arg = pool->arg;
    int workers = pool->workers;
    pthread_mutex_unlock(&pool->lock);
    fn(index, workers, arg);
    pthread_mutex_lock(&pool->lock);
    if (--pool->running == 0) pthread_cond_signal(&pool->done);
  }
  pthread_mutex_unlock(&pool->lock);
  return NULL;
}

skss__pool *skss__pool_create(skss_ctx *ctx, int threads) {
  skss__pool *pool = skss__alloc(ctx, sizeof *pool);
  if (pool == NULL) return NULL;
  *pool = (skss__pool){.ctx = ctx, .threads = 1};
  pool->tids = skss__alloc(ctx, sizeof(pthread_t) * (size_t)threads);
  if (pool->tids == NULL || pthread_mutex_init(&pool->lock, NULL) != 0) {
    skss__free(ctx, pool->tids);
    skss__free(ctx, pool);
    return NULL;
  }
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);
  for (int i = 1; i < threads; i++) {
    worker_start *ws = malloc(sizeof *ws);
    if (ws == NULL) break;
    ws->pool = pool;
    ws->index = i;
    if (pthread_create(&pool->tids[i], NULL, worker_main, ws) != 0) {
      free(ws);
      break;
    }
    pool->threads = i + 1;
  }
  if (pool->threads != threads) {
    skss__pool_destroy(pool);
    return NULL;
  }
  return pool;
}

void skss__pool_destroy(skss__pool *pool) {
  if (pool == NULL) return;
  pthread_mutex_lock(&pool->lock);
  pool->stop = 1;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  for (int i = 1; i < pool->threads; i++) pthread_join(pool->tids[i], NULL);
  pthread_cond_destroy(&pool->wake);
  pthread_cond_destroy(&pool->done);
  pthread_mutex_destroy(&pool->lock);
  skss_ctx *ctx = pool->ctx;
  skss__free(ctx, pool->tids);
  skss__free(ctx, pool);
}

void skss__parallel(skss_ctx *ctx, int workers, skss__pool_fn fn, void *arg) {
  skss__pool *pool = ctx->pool;
  if (pool == NULL || workers <= 1) {
    fn(0, 1, arg);
    return;
  }
  if (workers > pool->threads) workers = pool->threads;
  pthread_mutex_lock(&pool->lock);
  pool->fn = fn;
  pool->arg = arg;
  pool->workers = workers;
  pool->running = workers - 1;
  pool->generation++;
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->lock);
  fn(0, workers, arg);
  pthread_mutex_lock(&pool->lock);
  while (pool->running > 0) pthread_cond_wait(&pool->done, &pool->lock);
  pthread_mutex_unlock(&pool->lock);
}

void skss__spin_pause(unsigned *spins) {
  /* Short waits stay on the core; long ones give it to other threads, which
   * matters when there are more workers than cores. */
  if (*spins < 64) {
    SKSS_CPU_RELAX();
  } else {
    sched_yield();
  }
  (*spins)++;
}

void skss__barrier_init(skss__barrier *b, unsigned count) {
  atomic_init(&b->arrived, 0);
  atomic_init(&b->generation, 0);
  b->count = count;
}

void skss__barrier_wait(skss__barrier *b) {
  /* acquire: see the generation before arriving, so the wait below compares
   * against the barrier instance this worker arrived at. */
  unsigned gen = atomic_load_explicit(&b->generation, memory_order_acquire);
  /* acq_rel: the last arriver must see every other worker's prior writes,
   * and each arrival publishes its own. */
  if (atomic_fetch_add_explicit(&b->arrived, 1, memory_order_acq_rel) + 1 == b->count) {
    atomic_store_explicit(&b->arrived, 0, memory_order_relaxed);
    /* release: hands all writes before the barrier to the waiting workers. */
    atomic_store_explicit(&b->generation, gen + 1, memory_order_release);
    return;
  }
  unsigned spins = 0;
  /* acquire: pairs with the release above, making others' writes visible. */
  while (atomic_load_explicit(&b->generation, memory_order_acquire) == gen) skss__spin_pause(&spins);
}
