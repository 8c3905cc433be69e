/*
 * bench_align.c — pairwise alignment cases (suite align, not in all): a random
 * DNA sequence of N letters (10 kbp to 10 Mbp) against a copy with about 10%
 * deletions, insertions and substitutions (align_fill; cpu_peers.py builds the
 * same), global, match 2, mismatch -3, gaps 5 + 2 (L - 1), score only and with
 * the traceback; the unit is the cell, so cells/s are GCUPS x 10^9. A backend
 * whose call should take over ALIGN_CALL_LIMIT_S gets a skipped row saying so
 * (cuda: algorithm skss, its passes on the GPU). The reference score comes
 * from cpu-ref for quick cases, else from the cpu backend on the run's
 * threads (or cpu-ref); ops are re-scored and must cover both.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define ALIGN_MUTATION_SALT UINT64_C(0xA11C)
#define ALIGN_CALL_LIMIT_S 60.0
/* Seconds up to which cpu-ref gives the reference even where the cpu backend is faster. */
#define ALIGN_REF_QUICK_S 2.0
/* Conservative cells per second per thread, for the skip rule only: cpu-ref
 * runs plain C rows, cpu 8 rows at a time (about 0.55 and 2.6 G measured on
 * one core of an EPYC VM). */
#define ALIGN_RATE_REF 4e8
#define ALIGN_RATE_CPU 1.5e9
/* cuda: a quarter of the 2 T cells/s predicted on an H200 (docs/performance.md). */
#define ALIGN_RATE_CUDA 5e11

static const bench_size ALIGN_DEFAULT_SIZES[] = {{10000, 0}, {100000, 0}, {1000000, 0}, {10000000, 0}};

static const char LETTERS[] = "ACGT";

/* Seconds one call of `backend` should take at most, by the rates above
 * (the global traceback costs about two score passes). */
static double estimate_s(const bench_case *c, skss_backend backend, int threads) {
  const double passes = c->p.align.traceback ? 2.0 : 1.0;
  const double rate = backend == SKSS_BACKEND_CUDA  ? ALIGN_RATE_CUDA
                      : backend == SKSS_BACKEND_CPU ? ALIGN_RATE_CPU * threads
                                                    : ALIGN_RATE_REF;
  return c->items * passes / rate;
}

static int align_add_cases(const bench_config *cfg, bench_cases *out) {
  if (!(cfg->suites & BENCH_SUITE_ALIGN)) return 0;
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : ALIGN_DEFAULT_SIZES;
  const int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 4);
  for (int traceback = 0; traceback <= 1; traceback++) {
    for (int s = 0; s < n_sizes; s++) {
      bench_case *c = bench_cases_add(out, SKSS_OP_ALIGN);
      if (c == NULL) return -1;
      const int64_t n = sizes[s].a;
      char text[24];
      bench_format_count(text, sizeof text, n);
      c->p.align.n = n;
      c->p.align.traceback = traceback;
      snprintf(c->spec, sizeof c->spec, "align:%lld:%s", (long long)n, traceback ? "trace" : "score");
      snprintf(c->variant, sizeof c->variant, "dna 10%% mutated, %s", traceback ? "traceback" : "score only");
      snprintf(c->size, sizeof c->size, "%s bp", text);
      c->x = (double)n;
      c->items = (double)n * (double)n; /* |b| is about n: prepare sets it exactly */
      c->unit = "cell";
      for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
        if (estimate_s(c, (skss_backend)b, cfg->threads) <= ALIGN_CALL_LIMIT_S)
          c->backends |= 1u << b;
        else
          c->skipped |= 1u << b;
      }
      snprintf(c->skip_reason, sizeof c->skip_reason,
               "skipped: about %.0f s (cpu-ref) / %.0f s (cpu) / %.0f s (cuda) a call; limit %.0f s",
               estimate_s(c, SKSS_BACKEND_CPU_REF, 1), estimate_s(c, SKSS_BACKEND_CPU, cfg->threads),
               estimate_s(c, SKSS_BACKEND_CUDA, 1), ALIGN_CALL_LIMIT_S);
    }
  }
  return 0;
}

typedef struct align_job {
  skss_align_desc desc;
  char *a, *b, *ops;
  skss_align_result result, ref;
  int has_ref;
} align_job;

static void align_release(void *p) {
  align_job *job = p;
  if (job == NULL) return;
  free(job->a);
  free(job->b);
  free(job->ops);
  free(job);
}

/* a: two bits of bench_hash(seed, k) a letter. b: per letter k of a, the word
 * w = bench_hash(seed + ALIGN_MUTATION_SALT, k) and u = w mod 300: u < 10
 * deletes it, u < 20 inserts LETTERS[w >> 32 & 3] before it, u < 30 replaces
 * it by LETTERS[w >> 34 & 3]. Returns |b| (at most 2n). */
static int64_t align_fill(char *a, char *b, int64_t n, uint64_t seed) {
  int64_t m = 0;
  for (int64_t k = 0; k < n; k++) a[k] = LETTERS[bench_hash(seed, (uint64_t)k) >> 62];
  for (int64_t k = 0; k < n; k++) {
    const uint64_t w = bench_hash(seed + ALIGN_MUTATION_SALT, (uint64_t)k);
    const uint64_t u = w % 300;
    if (u < 10) continue;
    if (u < 20) b[m++] = LETTERS[(w >> 32) & 3];
    b[m++] = u >= 20 && u < 30 ? LETTERS[(w >> 34) & 3] : a[k];
  }
  return m;
}

static void *align_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref, char err[BENCH_ERRLEN]) {
  align_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (align_job){0};
  const int64_t n = c->p.align.n;
  job->a = bench_alloc((size_t)n + 1, err);
  job->b = job->a ? bench_alloc((size_t)(2 * n) + 1, err) : NULL;
  job->ops = job->b && c->p.align.traceback ? bench_alloc((size_t)(3 * n) + 1, err) : NULL;
  if (job->b == NULL || (c->p.align.traceback && job->ops == NULL)) {
    align_release(job);
    return NULL;
  }
  skss_align_desc d = SKSS_ALIGN_DESC_INIT;
  d.a_len = n;
  d.b_len = align_fill(job->a, job->b, n, cfg->seed);
  d.match = 2;
  d.mismatch = -3;
  d.gap_open = 5;
  d.gap_extend = 2;
  d.output = c->p.align.traceback ? SKSS_ALIGN_OUTPUT_ALIGNMENT : SKSS_ALIGN_OUTPUT_SCORE;
  d.ops_capacity = c->p.align.traceback ? d.a_len + d.b_len : 0;
  job->desc = d;
  c->items = (double)d.a_len * (double)d.b_len;
  /* The reference: cpu-ref when it runs the case in about ALIGN_REF_QUICK_S,
   * else the cpu backend on the run's threads when it runs the case (a GPU
   * machine's many cores), else cpu-ref when it runs it at all. */
  const bool by_ref = (c->backends & (1u << SKSS_BACKEND_CPU_REF)) != 0;
  const bool by_cpu = (c->backends & (1u << SKSS_BACKEND_CPU)) != 0;
  const bool ref_quick = by_ref && estimate_s(c, SKSS_BACKEND_CPU_REF, 1) <= ALIGN_REF_QUICK_S;
  skss_ctx *ctx = NULL, *own = NULL;
  if (ref_quick || (by_ref && !by_cpu)) {
    ctx = ref;
  } else if (by_cpu) {
    skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
    cd.backend = SKSS_BACKEND_CPU;
    cd.threads = cfg->threads;
    if (skss_ctx_create(&cd, &own) == SKSS_OK) ctx = own;
  }
  if (ctx != NULL) {
    d.algorithm = SKSS_ALIGN_ALGORITHM_AUTO;
    double t0 = bench_now();
    const skss_status st = skss_align(ctx, &d, job->a, job->b, &job->ref, job->ops);
    c->ref_s = bench_now() - t0;
    const int rc = bench_status_error(ctx, "reference skss_align", st, err);
    skss_ctx_destroy(own);
    if (rc != 0) {
      align_release(job);
      return NULL;
    }
    job->has_ref = 1;
    c->signature[0] = (double)job->ref.score;
    c->has_signature = 1;
  }
  return job;
}

static skss_status align_run(void *p, skss_ctx *ctx, int algorithm) {
  align_job *job = p;
  skss_align_desc d = job->desc;
  d.algorithm = (skss_align_algorithm)algorithm;
  return skss_align(ctx, &d, job->a, job->b, &job->result, job->ops);
}

static void align_poison(void *p) {
  align_job *job = p;
  memset(&job->result, 0xA5, sizeof job->result);
  if (job->ops != NULL) memset(job->ops, 0xA5, (size_t)job->desc.ops_capacity);
}

/* The ops re-score to the score and cover both sequences whole (global). */
static int align_check_ops(const align_job *job, char err[BENCH_ERRLEN]) {
  const skss_align_result *r = &job->result;
  int64_t da = 0, db = 0, score = 0;
  for (int64_t k = 0; k < r->length; k++) {
    da += job->ops[k] != 'D';
    db += job->ops[k] != 'I';
  }
  if (da != job->desc.a_len || db != job->desc.b_len) {
    snprintf(err, BENCH_ERRLEN, "the ops cover %lld x %lld letters, not %lld x %lld", (long long)da,
             (long long)db, (long long)job->desc.a_len, (long long)job->desc.b_len);
    return -1;
  }
  skss_ctx *ctx = NULL;
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CPU_REF;
  if (skss_ctx_create(&cd, &ctx) != SKSS_OK) return 0;
  const skss_status st =
      skss_align_score_ops(ctx, &job->desc, job->a, job->b, 0, 0, job->ops, r->length, &score);
  const int rc = bench_status_error(ctx, "skss_align_score_ops", st, err);
  skss_ctx_destroy(ctx);
  if (rc == 0 && score != r->score) {
    snprintf(err, BENCH_ERRLEN, "the ops re-score to %lld, the call says %lld", (long long)score,
             (long long)r->score);
    return -1;
  }
  return rc;
}

static int align_check(const void *p, char err[BENCH_ERRLEN]) {
  const align_job *job = p;
  if (job->has_ref && job->result.score != job->ref.score) {
    snprintf(err, BENCH_ERRLEN, "score %lld, reference %lld", (long long)job->result.score,
             (long long)job->ref.score);
    return -1;
  }
  return job->ops != NULL ? align_check_ops(job, err) : 0;
}

static double align_bytes(const void *p) {
  (void)p;
  return 0;
}

const bench_primitive bench_align = {SKSS_OP_ALIGN, "align",     align_add_cases, align_prepare, align_run,
                                     align_poison,  align_check, align_bytes,     align_release, NULL};
