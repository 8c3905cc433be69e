/*
 * bench_sat.c — summed-area table cases: u8 -> i32 and f32 -> f32, in the
 * padded (OpenCV) and inclusive layouts, on square images of 1K, 2K and 4K.
 *
 * Bytes model: the input read once and the output written once (u8 -> i32:
 * 1 + 4 bytes per pixel; padded outputs count their extra row and column).
 * Integer results must equal the reference bit for bit; float results must
 * lie within twice the documented bound of skss.h of the reference (both are
 * within the bound of the exact sum).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

typedef struct sat_variant {
  skss_dtype in, out;
  skss_sat_layout layout;
  int quick; /* part of --quick */
} sat_variant;

static const sat_variant SAT_VARIANTS[] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_I32, SKSS_SAT_PADDED, 1},
    {SKSS_DTYPE_U8, SKSS_DTYPE_I32, SKSS_SAT_INCLUSIVE, 0},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32, SKSS_SAT_PADDED, 0},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32, SKSS_SAT_INCLUSIVE, 1},
};

static const bench_size SAT_DEFAULT_SIZES[] = {{1024, 0}, {2048, 0}, {4096, 0}};

static const char *layout_name(skss_sat_layout layout) {
  return layout == SKSS_SAT_PADDED ? "padded" : "inclusive";
}

static int sat_add_cases(const bench_config *cfg, bench_cases *out) {
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : SAT_DEFAULT_SIZES;
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 3);
  for (size_t v = 0; v < sizeof SAT_VARIANTS / sizeof SAT_VARIANTS[0]; v++) {
    const sat_variant *sv = &SAT_VARIANTS[v];
    if (cfg->quick && !sv->quick) continue;
    for (int s = 0; s < n_sizes; s++) {
      bench_case *c = bench_cases_add(out, SKSS_OP_SAT);
      if (c == NULL) return -1;
      int64_t w = sizes[s].a, h = sizes[s].b ? sizes[s].b : sizes[s].a;
      const char *in = skss_dtype_name(sv->in), *ot = skss_dtype_name(sv->out);
      c->p.sat.width = w;
      c->p.sat.height = h;
      c->p.sat.in = sv->in;
      c->p.sat.out = sv->out;
      c->p.sat.layout = sv->layout;
      snprintf(c->spec, sizeof c->spec, "sat:%lldx%lld:%s:%s:%s", (long long)w, (long long)h, in, ot,
               layout_name(sv->layout));
      snprintf(c->variant, sizeof c->variant, "%s->%s %s", in, ot, layout_name(sv->layout));
      snprintf(c->size, sizeof c->size, "%lldx%lld", (long long)w, (long long)h);
      c->x = (double)w * (double)h;
      c->items = c->x;
      c->unit = "px";
    }
  }
  return 0;
}

typedef struct sat_job {
  skss_sat_desc desc;
  void *in, *out, *ref;
  int64_t out_h, out_w;
  size_t out_bytes;
  double bytes;
} sat_job;

static void sat_release(void *p) {
  sat_job *job = p;
  if (job == NULL) return;
  free(job->in);
  free(job->out);
  free(job->ref);
  free(job);
}

static double sat_last(const sat_job *job) {
  size_t last = job->out_bytes / skss_dtype_size(job->desc.out_type) - 1;
  return job->desc.out_type == SKSS_DTYPE_F32 ? (double)((const float *)job->ref)[last]
                                              : (double)((const int32_t *)job->ref)[last];
}

static void *sat_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref, char err[BENCH_ERRLEN]) {
  sat_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (sat_job){0};
  int64_t h = c->p.sat.height, w = c->p.sat.width, pad = c->p.sat.layout == SKSS_SAT_PADDED;
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = h;
  d.width = w;
  d.in_type = c->p.sat.in;
  d.out_type = c->p.sat.out;
  d.layout = c->p.sat.layout;
  job->desc = d;
  job->out_h = h + pad;
  job->out_w = w + pad;
  size_t in_bytes = (size_t)(h * w) * skss_dtype_size(d.in_type);
  job->out_bytes = (size_t)(job->out_h * job->out_w) * skss_dtype_size(d.out_type);
  job->bytes = (double)in_bytes + (double)job->out_bytes;
  job->in = bench_alloc(in_bytes, err);
  job->out = job->in ? bench_alloc(job->out_bytes, err) : NULL;
  job->ref = job->out ? bench_alloc(job->out_bytes, err) : NULL;
  if (job->ref == NULL) {
    sat_release(job);
    return NULL;
  }
  if (d.in_type == SKSS_DTYPE_U8)
    bench_fill_image_u8(job->in, h, w, cfg->seed);
  else
    bench_fill_unit_f32(job->in, h * w, cfg->seed);
  d.algorithm = (skss_sat_algorithm)bench_reference_algorithm(SKSS_OP_SAT);
  if (bench_status_error(ref, "reference skss_sat", skss_sat(ref, &d, job->in, job->ref, NULL), err)) {
    sat_release(job);
    return NULL;
  }
  c->signature[0] = sat_last(job);
  c->has_signature = 1;
  return job;
}

static skss_status sat_run(void *p, skss_ctx *ctx, int algorithm) {
  sat_job *job = p;
  skss_sat_desc d = job->desc;
  d.algorithm = (skss_sat_algorithm)algorithm;
  return skss_sat(ctx, &d, job->in, job->out, NULL);
}

static void sat_poison(void *p) {
  sat_job *job = p;
  memset(job->out, 0xA5, job->out_bytes);
}

/* Inputs are >= 0, so the reference itself bounds the rectangle's |sum|. */
static int sat_check_f32(const sat_job *job, char err[BENCH_ERRLEN]) {
  const float *o = job->out, *r = job->ref;
  for (int64_t i = 0; i < job->out_h; i++) {
    for (int64_t j = 0; j < job->out_w; j++) {
      double got = o[i * job->out_w + j], want = r[i * job->out_w + j];
      double bound = 2.0 * (double)(i + j + 2) * 0x1p-24 * fabs(want);
      if (!(fabs(got - want) <= bound)) {
        snprintf(err, BENCH_ERRLEN, "out[%lld][%lld] = %.9g, reference %.9g (bound %.3g)",
                 (long long)i, (long long)j, got, want, bound);
        return -1;
      }
    }
  }
  return 0;
}

static int sat_check(const void *p, char err[BENCH_ERRLEN]) {
  const sat_job *job = p;
  if (job->desc.out_type == SKSS_DTYPE_F32) return sat_check_f32(job, err);
  if (memcmp(job->out, job->ref, job->out_bytes) == 0) return 0;
  const int32_t *o = job->out, *r = job->ref;
  size_t k = 0;
  while (o[k] == r[k]) k++;
  snprintf(err, BENCH_ERRLEN, "out[%lld][%lld] = %ld, reference %ld", (long long)(k / (size_t)job->out_w),
           (long long)(k % (size_t)job->out_w), (long)o[k], (long)r[k]);
  return -1;
}

static double sat_bytes(const void *p) { return ((const sat_job *)p)->bytes; }

const bench_primitive bench_sat = {SKSS_OP_SAT, "sat",     sat_add_cases, sat_prepare, sat_run,
                                   sat_poison,  sat_check, sat_bytes,     sat_release};
