/*
 * bench_compact.c — stream-compaction cases: 10^7 and 10^8 elements, about
 * half kept: f32 (keep x > 0.5 of uniform [0, 1)) and i32 (keep x > 0 of
 * uniform int32) to values, and f32 to indices (NumPy's np.nonzero).
 *
 * Bytes model: the input read once plus the kept outputs written once (4
 * bytes per kept value, 8 per kept index). The kept positions are random, so
 * branchy code mispredicts half the time; a good implementation stays near
 * the copy bandwidth. Counts and outputs must equal the reference exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct compact_variant {
  skss_dtype dtype;
  int indices;
  int quick;
} compact_variant;

static const compact_variant COMPACT_VARIANTS[] = {
    {SKSS_DTYPE_F32, 0, 1},
    {SKSS_DTYPE_I32, 0, 0},
    {SKSS_DTYPE_F32, 1, 0},
};

static const bench_size COMPACT_DEFAULT_SIZES[] = {{10000000, 0}, {100000000, 0}};

static int compact_add_cases(const bench_config *cfg, bench_cases *out) {
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : COMPACT_DEFAULT_SIZES;
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 2);
  for (size_t v = 0; v < sizeof COMPACT_VARIANTS / sizeof COMPACT_VARIANTS[0]; v++) {
    const compact_variant *cv = &COMPACT_VARIANTS[v];
    if (cfg->quick && !cv->quick) continue;
    for (int s = 0; s < n_sizes; s++) {
      bench_case *c = bench_cases_add(out, SKSS_OP_COMPACT);
      if (c == NULL) return -1;
      int64_t n = sizes[s].a;
      const char *type = skss_dtype_name(cv->dtype), *what = cv->indices ? "indices" : "values";
      c->p.compact.n = n;
      c->p.compact.dtype = cv->dtype;
      c->p.compact.indices = cv->indices;
      snprintf(c->spec, sizeof c->spec, "compact:%lld:%s:%s", (long long)n, type, what);
      snprintf(c->variant, sizeof c->variant, "%s %s, 50%%", type, what);
      bench_format_count(c->size, sizeof c->size, n);
      c->x = (double)n;
      c->items = (double)n;
      c->unit = "elem";
    }
  }
  return 0;
}

typedef struct compact_job {
  skss_compact_desc desc;
  void *in, *out, *ref;
  int64_t count, ref_count;
  int indices;     /* outputs are indices, not values */
  size_t out_elem; /* bytes of one output: the value's or an index's */
} compact_job;

static void compact_release(void *p) {
  compact_job *job = p;
  if (job == NULL) return;
  free(job->in);
  free(job->out);
  free(job->ref);
  free(job);
}

/* The kept count and the sum of kept indices, from the input itself: what
 * the peer reports, so both sides are seen to use the same data. */
static void compact_signature(const compact_job *job, double sig[2]) {
  uint64_t kept = 0, index_sum = 0;
  for (int64_t k = 0; k < job->desc.n; k++) {
    int keep = job->desc.dtype == SKSS_DTYPE_F32 ? ((const float *)job->in)[k] > 0.5f
                                                 : ((const int32_t *)job->in)[k] > 0;
    kept += (uint64_t)keep;
    index_sum += keep ? (uint64_t)k : 0;
  }
  sig[0] = (double)kept;
  sig[1] = (double)index_sum;
}

static skss_status compact_call(compact_job *job, skss_ctx *ctx, int algorithm, void *out,
                                int64_t *count) {
  skss_compact_desc d = job->desc;
  d.algorithm = (skss_compact_algorithm)algorithm;
  return skss_compact(ctx, &d, job->in, job->indices ? NULL : out, job->indices ? out : NULL, count);
}

static void *compact_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref,
                             char err[BENCH_ERRLEN]) {
  compact_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (compact_job){0};
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = c->p.compact.n;
  d.dtype = c->p.compact.dtype;
  d.keep = SKSS_COMPACT_KEEP_GT;
  if (d.dtype == SKSS_DTYPE_F32)
    d.a.f = 0.5;
  else
    d.a.i = 0;
  job->desc = d;
  size_t n = (size_t)d.n, elem = skss_dtype_size(d.dtype);
  job->indices = c->p.compact.indices;
  job->out_elem = job->indices ? sizeof(int64_t) : elem;
  job->in = bench_alloc(n * elem, err);
  job->out = job->in ? bench_alloc(n * job->out_elem, err) : NULL;
  job->ref = job->out ? bench_alloc(n * job->out_elem, err) : NULL;
  if (job->ref == NULL) {
    compact_release(job);
    return NULL;
  }
  if (d.dtype == SKSS_DTYPE_F32)
    bench_fill_unit_f32(job->in, d.n, cfg->seed);
  else
    bench_fill_i32(job->in, d.n, cfg->seed);
  skss_status st = compact_call(job, ref, bench_reference_algorithm(SKSS_OP_COMPACT), job->ref,
                                &job->ref_count);
  if (bench_status_error(ref, "reference skss_compact", st, err)) {
    compact_release(job);
    return NULL;
  }
  compact_signature(job, c->signature);
  c->has_signature = 1;
  return job;
}

static skss_status compact_run(void *p, skss_ctx *ctx, int algorithm) {
  compact_job *job = p;
  return compact_call(job, ctx, algorithm, job->out, &job->count);
}

static void compact_poison(void *p) {
  compact_job *job = p;
  memset(job->out, 0xA5, (size_t)job->desc.n * job->out_elem);
  memset(&job->count, 0xA5, sizeof job->count);
}

static int compact_check(const void *p, char err[BENCH_ERRLEN]) {
  const compact_job *job = p;
  if (job->count != job->ref_count) {
    snprintf(err, BENCH_ERRLEN, "count %lld, reference %lld", (long long)job->count,
             (long long)job->ref_count);
    return -1;
  }
  const unsigned char *o = job->out, *r = job->ref;
  for (int64_t k = 0; k < job->count; k++) {
    if (memcmp(o + (size_t)k * job->out_elem, r + (size_t)k * job->out_elem, job->out_elem) != 0) {
      snprintf(err, BENCH_ERRLEN, "output %lld differs from the reference", (long long)k);
      return -1;
    }
  }
  return 0;
}

static double compact_bytes(const void *p) {
  const compact_job *job = p;
  return (double)job->desc.n * (double)skss_dtype_size(job->desc.dtype) +
         (double)job->ref_count * (double)job->out_elem;
}

const bench_primitive bench_compact = {SKSS_OP_COMPACT, "compact",     compact_add_cases,
                                       compact_prepare, compact_run,   compact_poison,
                                       compact_check,   compact_bytes, compact_release, NULL};
