/*
 * bench_membw.c — the host memory copy bandwidth, the yardstick of every
 * "% of copy" figure in the report.
 *
 * A memcpy between two buffers much larger than the last-level cache reads
 * and writes every byte once, so (2 x bytes) / time is what a streaming
 * primitive could reach at best. With T threads each copies a contiguous
 * 1/T of the buffer; the threads are released together and the time runs
 * until the last one finishes. Buffers are touched before timing so no
 * page fault is counted. The median of `reps` copies is reported.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define BENCH_MAX_COPY_THREADS 256

/* Threads wait for one "go" so they start together. */
typedef struct copy_start {
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int go;
} copy_start;

typedef struct copy_job {
  unsigned char *dst;
  const unsigned char *src;
  size_t bytes;
  copy_start *start;
} copy_job;

static void *copy_slice(void *arg) {
  copy_job *job = arg;
  pthread_mutex_lock(&job->start->lock);
  while (!job->start->go) pthread_cond_wait(&job->start->cond, &job->start->lock);
  pthread_mutex_unlock(&job->start->lock);
  memcpy(job->dst, job->src, job->bytes);
  return NULL;
}

static void release_threads(copy_start *start) {
  pthread_mutex_lock(&start->lock);
  start->go = 1;
  pthread_cond_broadcast(&start->cond);
  pthread_mutex_unlock(&start->lock);
}

/* One parallel copy of `bytes`; returns its duration in seconds, or -1 when
 * a thread could not be started. */
static double timed_copy(unsigned char *dst, const unsigned char *src, size_t bytes, int threads) {
  copy_job jobs[BENCH_MAX_COPY_THREADS];
  pthread_t tids[BENCH_MAX_COPY_THREADS];
  copy_start start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
  size_t slice = bytes / (size_t)threads;
  int started = 0;
  for (int t = 0; t < threads; t++) {
    size_t begin = slice * (size_t)t, end = t == threads - 1 ? bytes : begin + slice;
    jobs[t] = (copy_job){dst + begin, src + begin, end - begin, &start};
    if (pthread_create(&tids[t], NULL, copy_slice, &jobs[t]) != 0) break;
    started++;
  }
  double t0 = bench_now();
  release_threads(&start);
  for (int t = 0; t < started; t++) pthread_join(tids[t], NULL);
  double elapsed = bench_now() - t0;
  return started == threads ? elapsed : -1;
}

double bench_copy_bandwidth(size_t bytes, int threads, int reps) {
  if (threads < 1) threads = 1;
  if (threads > BENCH_MAX_COPY_THREADS) threads = BENCH_MAX_COPY_THREADS;
  if (reps < 1) reps = 1;
  unsigned char *src = malloc(bytes), *dst = malloc(bytes);
  double *samples = malloc((size_t)reps * sizeof *samples);
  double gbs = 0;
  if (src != NULL && dst != NULL && samples != NULL) {
    memset(src, 0x5A, bytes);
    memset(dst, 0, bytes);
    int ok = timed_copy(dst, src, bytes, threads) >= 0; /* warm-up */
    for (int r = 0; ok && r < reps; r++) {
      samples[r] = timed_copy(dst, src, bytes, threads);
      ok = samples[r] > 0;
    }
    if (ok) gbs = 2.0 * (double)bytes / bench_summarize(samples, reps).median_s * 1e-9;
  }
  free(samples);
  free(dst);
  free(src);
  return gbs;
}
