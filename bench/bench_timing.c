/*
 * bench_timing.c — wall-clock timing of repeated calls and their statistics.
 *
 * Every row is timed the same way: the caller runs the call once to check it
 * and once more to warm caches and page tables; then bench_measure() times
 * single calls with CLOCK_MONOTONIC until the plan is met (by default at
 * least 5 runs and 0.5 s) and reports the median, the minimum and the 90th
 * percentile. Medians resist the noise of a shared machine; the minimum
 * shows what an undisturbed run achieves. GPU rows follow a plan of their
 * own, timed with CUDA events by bench_gpu_measure() (bench_cuda.cu).
 */
#include <stdlib.h>
#include <time.h>

#include "bench.h"

double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bench_plan bench_plan_for(const bench_config *cfg) {
  bench_plan plan = {0.5, 10.0, 5, 100000, cfg->repeat};
  if (cfg->quick) {
    plan.min_time_s = 0.05;
    plan.max_time_s = 1.0;
    plan.min_runs = 3;
  }
  return plan;
}

/* GPU calls take microseconds to milliseconds: many runs cost little, and a
 * tenth of a second of them gives a stable median. */
bench_plan bench_gpu_plan_for(const bench_config *cfg) {
  bench_plan plan = {0.1, 2.0, 10, 1000, cfg->repeat};
  if (cfg->quick) {
    plan.min_time_s = 0.01;
    plan.max_time_s = 0.5;
    plan.min_runs = 3;
  }
  return plan;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

bench_stats bench_summarize(double *samples, int n) {
  bench_stats s = {0, 0, 0, n, 0};
  if (n <= 0) return s;
  qsort(samples, (size_t)n, sizeof *samples, cmp_double);
  s.min_s = samples[0];
  s.median_s = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  int rank = (9 * n + 9) / 10; /* nearest rank: ceil(0.9 n) */
  s.p90_s = samples[rank - 1];
  return s;
}

static double process_cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_plan_done(const bench_plan *plan, int runs, double elapsed) {
  if (plan->fixed_runs > 0) return runs >= plan->fixed_runs;
  if (runs >= plan->max_runs) return 1;
  if (runs >= 1 && elapsed >= plan->max_time_s) return 1;
  return runs >= plan->min_runs && elapsed >= plan->min_time_s;
}

int bench_measure(bench_body body, void *arg, const bench_plan *plan, bench_stats *out) {
  int cap = plan->fixed_runs > 0 ? plan->fixed_runs : plan->max_runs;
  double *samples = malloc((size_t)cap * sizeof *samples);
  if (samples == NULL) return -1;
  int runs = 0, rc = 0;
  double start = bench_now(), cpu_start = process_cpu_seconds(), timed = 0;
  while (!bench_plan_done(plan, runs, bench_now() - start)) {
    double t0 = bench_now();
    rc = body(arg);
    double t1 = bench_now();
    if (rc != 0) break;
    samples[runs++] = t1 - t0;
    timed += t1 - t0;
  }
  double cpu = process_cpu_seconds() - cpu_start;
  if (rc == 0) {
    *out = bench_summarize(samples, runs);
    out->cores_used = timed > 0 ? cpu / timed : 0;
  }
  free(samples);
  return rc;
}
