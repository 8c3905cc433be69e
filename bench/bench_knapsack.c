/*
 * bench_knapsack.c — 0-1 knapsack cases: n = 1000 items, capacity 10^5 and
 * 10^6, value only and with the chosen items.
 *
 * Instances are Pisinger's strongly correlated class (weights uniform in
 * [1, R], value = weight + R/10), the class that defeats branch and bound
 * and makes dynamic programming the method of choice; R = 4C/n - 1 so the
 * items weigh about twice the capacity. There is no bytes model: the unit is
 * the DP cell update, n x (C + 1) per solve, and the floor is the dependent
 * max-plus chain through the capacities (the issue asks >= 2 G cells/s per
 * core). Optimal values must equal the reference's, and so must the chosen
 * items, which the API defines uniquely.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define KNAPSACK_ITEMS 1000

static const bench_size KNAPSACK_DEFAULT_SIZES[] = {{100000, 0}, {1000000, 0}};

static int knapsack_add_cases(const bench_config *cfg, bench_cases *out) {
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : KNAPSACK_DEFAULT_SIZES;
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 2);
  for (int value_only = 1; value_only >= 0; value_only--) {
    for (int s = 0; s < n_sizes; s++) {
      bench_case *c = bench_cases_add(out, SKSS_OP_KNAPSACK);
      if (c == NULL) return -1;
      int64_t capacity = sizes[s].a;
      char cap_text[24];
      bench_format_count(cap_text, sizeof cap_text, capacity);
      c->p.knapsack.n_items = KNAPSACK_ITEMS;
      c->p.knapsack.capacity = capacity;
      c->p.knapsack.value_only = value_only;
      snprintf(c->spec, sizeof c->spec, "knapsack:%d:%lld:%s", KNAPSACK_ITEMS, (long long)capacity,
               value_only ? "value" : "items");
      snprintf(c->variant, sizeof c->variant, "strong, %s", value_only ? "value only" : "with items");
      snprintf(c->size, sizeof c->size, "n=%d C=%s", KNAPSACK_ITEMS, cap_text);
      c->x = (double)capacity;
      c->items = (double)KNAPSACK_ITEMS * ((double)capacity + 1.0);
      c->unit = "cell";
    }
  }
  return 0;
}

typedef struct knapsack_job {
  skss_knapsack_desc desc;
  int64_t *weights, *values;
  uint8_t *taken, *ref_taken;
  int64_t best, ref_best;
} knapsack_job;

static void knapsack_release(void *p) {
  knapsack_job *job = p;
  if (job == NULL) return;
  free(job->weights);
  free(job->values);
  free(job->taken);
  free(job->ref_taken);
  free(job);
}

/* Strongly correlated items; cpu_peers.py makes the same from the seed. */
static void knapsack_fill(knapsack_job *job, uint64_t seed) {
  int64_t n = job->desc.n_items, range = 4 * job->desc.capacity / n - 1;
  if (range < 1) range = 1;
  for (int64_t j = 0; j < n; j++) {
    job->weights[j] = 1 + (int64_t)(bench_hash(seed, (uint64_t)j) % (uint64_t)range);
    job->values[j] = job->weights[j] + range / 10;
  }
}

static void *knapsack_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref,
                              char err[BENCH_ERRLEN]) {
  knapsack_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (knapsack_job){0};
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = c->p.knapsack.n_items;
  d.capacity = c->p.knapsack.capacity;
  d.value_only = c->p.knapsack.value_only;
  job->desc = d;
  size_t n = (size_t)d.n_items;
  job->weights = bench_alloc(n * sizeof(int64_t), err);
  job->values = job->weights ? bench_alloc(n * sizeof(int64_t), err) : NULL;
  job->taken = job->values ? bench_alloc(n, err) : NULL;
  job->ref_taken = job->taken ? bench_alloc(n, err) : NULL;
  if (job->ref_taken == NULL) {
    knapsack_release(job);
    return NULL;
  }
  knapsack_fill(job, cfg->seed);
  d.algorithm = (skss_knapsack_algorithm)bench_reference_algorithm(SKSS_OP_KNAPSACK);
  skss_status st = skss_knapsack(ref, &d, job->weights, job->values, &job->ref_best,
                                 d.value_only ? NULL : job->ref_taken);
  if (bench_status_error(ref, "reference skss_knapsack", st, err)) {
    knapsack_release(job);
    return NULL;
  }
  c->signature[0] = (double)job->ref_best;
  c->has_signature = 1;
  return job;
}

static skss_status knapsack_run(void *p, skss_ctx *ctx, int algorithm) {
  knapsack_job *job = p;
  skss_knapsack_desc d = job->desc;
  d.algorithm = (skss_knapsack_algorithm)algorithm;
  return skss_knapsack(ctx, &d, job->weights, job->values, &job->best,
                       d.value_only ? NULL : job->taken);
}

static void knapsack_poison(void *p) {
  knapsack_job *job = p;
  memset(&job->best, 0xA5, sizeof job->best);
  memset(job->taken, 0xA5, (size_t)job->desc.n_items);
}

static int knapsack_check(const void *p, char err[BENCH_ERRLEN]) {
  const knapsack_job *job = p;
  if (job->best != job->ref_best) {
    snprintf(err, BENCH_ERRLEN, "best value %lld, reference %lld", (long long)job->best,
             (long long)job->ref_best);
    return -1;
  }
  if (job->desc.value_only) return 0;
  for (int64_t j = 0; j < job->desc.n_items; j++) {
    if (job->taken[j] != job->ref_taken[j]) {
      snprintf(err, BENCH_ERRLEN, "taken[%lld] = %u, reference %u", (long long)j, job->taken[j],
               job->ref_taken[j]);
      return -1;
    }
  }
  return 0;
}

static double knapsack_bytes(const void *p) {
  (void)p;
  return 0;
}

const bench_primitive bench_knapsack = {SKSS_OP_KNAPSACK, "knapsack",     knapsack_add_cases,
                                        knapsack_prepare, knapsack_run,   knapsack_poison,
                                        knapsack_check,   knapsack_bytes, knapsack_release, NULL};
