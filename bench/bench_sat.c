/*
 * bench_sat.c — summed-area table cases.
 *
 * Suite sat-matrix (GPU): every type pair x layout x plain/squared x packed
 * rows or rows padded to 256 bytes at 1K, 4K and 16K, onepass and
 * ScanRowColumn (KS) beside a device copy of the case's bytes (input read
 * once, each table written once: its floor), AUTO timed one call at a time
 * at the smallest size, NPP where it has the cell (padded, packed u8 -> i32,
 * u8 -> f32, and u8 -> i32 with f64 squares); references from the cpu
 * backend, every row checked against them on the device.
 *
 * CPU runs: u8 -> i32 and f32 -> f32, in the padded (OpenCV) and inclusive
 * layouts, on square images of 1K, 2K and 4K.
 *
 * GPU runs (the cuda backend runs), inclusive layout, one table per group:
 *  - suite sat: f32 and u8 -> u32 at 1K, 4K and 16K, every algorithm, every
 *    peer; the GPU targets are read off these cases;
 *  - suite sat-papers: the SKSS paper's Table II (f32, 1K-32K: 2R1W, 1R1W,
 *    (1+r)R1W, SKSS, and the sequential 2r2w-cpu), the HMM paper's Table II
 *    (f64, its 13 sizes 1K-18K: its six algorithms, (1+r)R1W at each r of
 *    BENCH_R_SWEEP, and the sequential 2r2w-cpu and 4r1w-cpu), and the
 *    register-cache paper's comparisons (u8 -> u32, f32 and f64 at 1K-16K:
 *    its six variants, with the CUB, NPP, torch and
 *    OpenCV peers). Our onepass runs in every table.
 * On the device the inputs, outputs and the reference live in device memory
 * (bench_device_ops): the library is called on device pointers and checked
 * on the device against the uploaded reference.
 *
 * Bytes model: the input read once and the output written once (u8 -> i32:
 * 1 + 4 bytes per pixel; padded outputs count their extra row and column).
 * Integer results must equal the reference bit for bit. Float results: on
 * the CPU within twice the (i + j + 2) u S bound of skss.h (both results are
 * within it of the exact sum); on the device within the algorithm's own
 * bound of skss.h (looser for 4R1W, 1R1W and (1+r)R1W) plus the
 * reference's (i + j + 2) u S.
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
    {SKSS_DTYPE_U8, SKSS_DTYPE_I32, SKSS_SAT_LAYOUT_PADDED, 1},
    {SKSS_DTYPE_U8, SKSS_DTYPE_I32, SKSS_SAT_LAYOUT_INCLUSIVE, 0},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32, SKSS_SAT_LAYOUT_PADDED, 0},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32, SKSS_SAT_LAYOUT_INCLUSIVE, 1},
};

static const bench_size SAT_DEFAULT_SIZES[] = {{1024, 0}, {2048, 0}, {4096, 0}};

/* ---- the GPU tables ------------------------------------------------------------ */

#define ALG(a) (1u << (a))
#define HMM_ALGS                                                                              \
  (ALG(SKSS_SAT_ALGORITHM_2R2W) | ALG(SKSS_SAT_ALGORITHM_4R4W) | ALG(SKSS_SAT_ALGORITHM_4R1W) | ALG(SKSS_SAT_ALGORITHM_2R1W) |         \
   ALG(SKSS_SAT_ALGORITHM_1R1W) | ALG(SKSS_SAT_ALGORITHM_1PR_R1W))
#define SKSS_PAPER_ALGS \
  (ALG(SKSS_SAT_ALGORITHM_2R1W) | ALG(SKSS_SAT_ALGORITHM_1R1W) | ALG(SKSS_SAT_ALGORITHM_1PR_R1W) | ALG(SKSS_SAT_ALGORITHM_SKSS))
#define REGCACHE_ALGS                                                                        \
  (ALG(SKSS_SAT_ALGORITHM_BRLT_SCANROW_KS) | ALG(SKSS_SAT_ALGORITHM_BRLT_SCANROW_LF) | ALG(SKSS_SAT_ALGORITHM_SCANROW_BRLT_KS) | \
   ALG(SKSS_SAT_ALGORITHM_SCANROW_BRLT_LF) | ALG(SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS) | ALG(SKSS_SAT_ALGORITHM_SCANROWCOLUMN_LF))
#define PAPERS_ALGS (HMM_ALGS | SKSS_PAPER_ALGS | ALG(SKSS_SAT_ALGORITHM_PARALLEL_FAIR) | REGCACHE_ALGS)
#define OURS ALG(SKSS_SAT_ALGORITHM_ONEPASS)

/* One table: a case per type pair and side (sides in units of 1024). */
typedef struct sat_gpu_table {
  unsigned suite;
  const char *title;
  skss_dtype in[3], out[3];
  int n_types;
  int sides[16];
  int n_sides;
  uint32_t algorithms, paper; /* algorithms 0: every one */
  int peers, time_reference, r_sweep;
  uint32_t reference_extra; /* cpu-ref algorithms timed beside the reference */
} sat_gpu_table;

static const sat_gpu_table SAT_GPU_TABLES[] = {
    {BENCH_SUITE_SAT, "sat suite", {SKSS_DTYPE_F32, SKSS_DTYPE_U8}, {SKSS_DTYPE_F32, SKSS_DTYPE_U32}, 2,
     {1, 4, 16}, 3, 0, PAPERS_ALGS, 1, 0, 0, 0},
    {BENCH_SUITE_SAT_PAPERS, "SKSS paper Table II", {SKSS_DTYPE_F32}, {SKSS_DTYPE_F32}, 1,
     {1, 2, 4, 8, 16, 32}, 6, SKSS_PAPER_ALGS | OURS, SKSS_PAPER_ALGS, 0, 1, 0, 0},
    {BENCH_SUITE_SAT_PAPERS, "HMM paper Table II", {SKSS_DTYPE_F64}, {SKSS_DTYPE_F64}, 1,
     {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18}, 13, HMM_ALGS | OURS, HMM_ALGS, 0, 1, 1,
     ALG(SKSS_SAT_ALGORITHM_4R1W_CPU)},
    {BENCH_SUITE_SAT_PAPERS, "register-cache paper", {SKSS_DTYPE_U8, SKSS_DTYPE_F32, SKSS_DTYPE_F64},
     {SKSS_DTYPE_U32, SKSS_DTYPE_F32, SKSS_DTYPE_F64}, 3, {1, 2, 4, 8, 16}, 5, REGCACHE_ALGS | OURS,
     REGCACHE_ALGS, 1, 0, 0, 0},
};

/* ---- suite sat-matrix --------------------------------------------------------------- */

#define MATRIX_TABLE "sat matrix"
static const skss_dtype MATRIX_PAIRS[][2] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_U32},  {SKSS_DTYPE_U8, SKSS_DTYPE_I32},  {SKSS_DTYPE_U8, SKSS_DTYPE_F32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F64},  {SKSS_DTYPE_I32, SKSS_DTYPE_I32}, {SKSS_DTYPE_U32, SKSS_DTYPE_U32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32}, {SKSS_DTYPE_F32, SKSS_DTYPE_F64}, {SKSS_DTYPE_F64, SKSS_DTYPE_F64},
};
static const int MATRIX_SIDES[] = {1, 4, 16}; /* in units of 1024 */
#define MATRIX_ALGS (OURS | ALG(SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS))

/* The NPP peer of a matrix cell, or -1: NPP's integrals are padded, packed u8 ones. */
static int matrix_npp_peer(const bench_case *c) {
  if (c->p.sat.in != SKSS_DTYPE_U8 || c->p.sat.layout != SKSS_SAT_LAYOUT_PADDED || c->p.sat.pitched) return -1;
  if (c->p.sat.squared) return c->p.sat.out == SKSS_DTYPE_I32 ? BENCH_GPU_PEER_NPP_SQR : -1;
  if (c->p.sat.out == SKSS_DTYPE_I32) return BENCH_GPU_PEER_NPP_32S;
  return c->p.sat.out == SKSS_DTYPE_F32 ? BENCH_GPU_PEER_NPP_32F : -1;
}

static const char *layout_name(skss_sat_layout layout) {
  return layout == SKSS_SAT_LAYOUT_PADDED ? "padded" : "inclusive";
}

static bench_case *add_case(bench_cases *out, int64_t w, int64_t h, skss_dtype in, skss_dtype ot,
                            skss_sat_layout layout) {
  bench_case *c = bench_cases_add(out, SKSS_OP_SAT);
  if (c == NULL) return NULL;
  const char *in_name = skss_dtype_name(in), *out_name = skss_dtype_name(ot);
  c->p.sat.width = w;
  c->p.sat.height = h;
  c->p.sat.in = in;
  c->p.sat.out = ot;
  c->p.sat.layout = layout;
  snprintf(c->spec, sizeof c->spec, "sat:%lldx%lld:%s:%s:%s", (long long)w, (long long)h, in_name, out_name,
           layout_name(layout));
  snprintf(c->variant, sizeof c->variant, "%s->%s %s", in_name, out_name, layout_name(layout));
  snprintf(c->size, sizeof c->size, "%lldx%lld", (long long)w, (long long)h);
  c->x = (double)w * (double)h;
  c->items = c->x;
  c->unit = "px";
  return c;
}

static int add_cpu_cases(const bench_config *cfg, bench_cases *out) {
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : SAT_DEFAULT_SIZES;
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 3);
  if (!(cfg->suites & BENCH_SUITE_SAT)) return 0;
  for (size_t v = 0; v < sizeof SAT_VARIANTS / sizeof SAT_VARIANTS[0]; v++) {
    const sat_variant *sv = &SAT_VARIANTS[v];
    if (cfg->quick && !sv->quick) continue;
    for (int s = 0; s < n_sizes; s++) {
      int64_t w = sizes[s].a, h = sizes[s].b ? sizes[s].b : sizes[s].a;
      if (add_case(out, w, h, sv->in, sv->out, sv->layout) == NULL) return -1;
    }
  }
  return 0;
}

/* The table's sides, or --sizes (every table), or its first side (--quick). */
static int add_table_cases(const bench_config *cfg, const sat_gpu_table *t, bench_cases *out) {
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : cfg->quick ? 1 : t->n_sides;
  for (int k = 0; k < t->n_types; k++) {
    for (int s = 0; s < n_sizes; s++) {
      int64_t w = cfg->n_sizes ? cfg->sizes[s].a : (int64_t)t->sides[s] << 10;
      int64_t h = cfg->n_sizes && cfg->sizes[s].b ? cfg->sizes[s].b : w;
      bench_case *c = add_case(out, w, h, t->in[k], t->out[k], SKSS_SAT_LAYOUT_INCLUSIVE);
      if (c == NULL) return -1;
      snprintf(c->table, sizeof c->table, "%s", t->title);
      c->algorithms = t->algorithms;
      c->paper = t->paper;
      c->no_peers = !t->peers;
      c->time_reference = t->time_reference;
      c->reference_extra = t->reference_extra;
      c->r_sweep = t->r_sweep;
    }
  }
  return 0;
}

/* Every cell of the matrix at the suite's sides, or --sizes, or 1K (--quick). */
static int add_matrix_cases(const bench_config *cfg, bench_cases *out) {
  const int n_sides = (int)(sizeof MATRIX_SIDES / sizeof MATRIX_SIDES[0]);
  const int n_sizes = cfg->n_sizes ? cfg->n_sizes : cfg->quick ? 1 : n_sides;
  for (int s = 0; s < n_sizes; s++) {
    const int64_t w = cfg->n_sizes ? cfg->sizes[s].a : (int64_t)MATRIX_SIDES[s] << 10;
    const int64_t h = cfg->n_sizes && cfg->sizes[s].b ? cfg->sizes[s].b : w;
    for (size_t p = 0; p < sizeof MATRIX_PAIRS / sizeof MATRIX_PAIRS[0]; p++)
      for (int cell = 0; cell < 8; cell++) {
        const skss_sat_layout layout = cell & 1 ? SKSS_SAT_LAYOUT_PADDED : SKSS_SAT_LAYOUT_INCLUSIVE;
        const int squared = cell >> 1 & 1, pitched = cell >> 2 & 1;
        bench_case *c = add_case(out, w, h, MATRIX_PAIRS[p][0], MATRIX_PAIRS[p][1], layout);
        if (c == NULL) return -1;
        c->p.sat.squared = squared;
        c->p.sat.pitched = pitched;
        const size_t spec_len = strlen(c->spec), variant_len = strlen(c->variant);
        snprintf(c->spec + spec_len, sizeof c->spec - spec_len, "%s%s", squared ? ":sq" : "",
                 pitched ? ":pitch256" : "");
        snprintf(c->variant + variant_len, sizeof c->variant - variant_len, "%s%s", squared ? " sq" : "",
                 pitched ? " p256" : "");
        snprintf(c->table, sizeof c->table, "%s", MATRIX_TABLE);
        c->algorithms = MATRIX_ALGS;
        c->backends = 1u << SKSS_BACKEND_CUDA;
        c->no_script_peers = 1;
        c->no_peers = matrix_npp_peer(c) < 0;
        c->copy_row = 1;
        c->single_call = w * h <= ((int64_t)1 << 20);
      }
  }
  return 0;
}

static int sat_add_cases(const bench_config *cfg, bench_cases *out) {
  if (!cfg->gpu) return add_cpu_cases(cfg, out);
  for (size_t k = 0; k < sizeof SAT_GPU_TABLES / sizeof SAT_GPU_TABLES[0]; k++)
    if ((cfg->suites & SAT_GPU_TABLES[k].suite) && add_table_cases(cfg, &SAT_GPU_TABLES[k], out) != 0)
      return -1;
  if ((cfg->suites & BENCH_SUITE_SAT_MATRIX) && add_matrix_cases(cfg, out) != 0) return -1;
  return 0;
}

/* ---- jobs ------------------------------------------------------------------------ */

typedef struct sat_job {
  skss_sat_desc desc;
  void *in, *out, *ref;
  void *out_sq, *ref_sq; /* squared tables (matrix cells), else NULL */
  int64_t out_h, out_w;
  size_t in_bytes, out_bytes; /* as laid out, with their pitches */
  double bytes;
  double ref_total;   /* the reference's last element */
  double exact_total; /* u8 inputs: the image's exact sum */
  bench_gpu *gpu;     /* device copies, once uploaded */
  void *dev_in, *dev_out, *dev_ref, *dev_out_sq, *dev_ref_sq;
} sat_job;

static void sat_release(void *p) {
  sat_job *job = p;
  if (job == NULL) return;
  free(job->in);
  free(job->out);
  free(job->ref);
  free(job->out_sq);
  free(job->ref_sq);
  bench_gpu_free(job->dev_in);
  bench_gpu_free(job->dev_out);
  bench_gpu_free(job->dev_ref);
  bench_gpu_free(job->dev_out_sq);
  bench_gpu_free(job->dev_ref_sq);
  free(job);
}

static double sat_value(skss_dtype type, const void *p, size_t k) {
  switch (type) {
    case SKSS_DTYPE_U32: return ((const uint32_t *)p)[k];
    case SKSS_DTYPE_I32: return ((const int32_t *)p)[k];
    case SKSS_DTYPE_F32: return ((const float *)p)[k];
    default: return ((const double *)p)[k];
  }
}

static int is_float(skss_dtype type) { return type == SKSS_DTYPE_F32 || type == SKSS_DTYPE_F64; }

static void fill_input(sat_job *job, uint64_t seed) {
  const skss_sat_desc *d = &job->desc;
  if (d->in_type == SKSS_DTYPE_U8) {
    bench_fill_image_u8(job->in, d->height, d->width, seed);
    uint64_t sum = 0;
    for (size_t k = 0; k < job->in_bytes; k++) sum += ((const uint8_t *)job->in)[k];
    job->exact_total = (double)sum;
  } else if (d->in_type == SKSS_DTYPE_F64) {
    bench_fill_unit_f64(job->in, d->height * d->width, seed);
  } else {
    bench_fill_unit_f32(job->in, d->height * d->width, seed);
  }
}

/* Rows of `row_bytes` packed in `buf` spread to `pitch` apart, in place
 * (from the last row back), the gaps filled with 0x5A. */
static void spread_rows(uint8_t *buf, int64_t rows, size_t row_bytes, size_t pitch) {
  for (int64_t i = rows - 1; i >= 0; i--) {
    memmove(buf + (size_t)i * pitch, buf + (size_t)i * row_bytes, row_bytes);
    memset(buf + (size_t)i * pitch + row_bytes, 0x5A, pitch - row_bytes);
  }
}

static size_t pitch_256(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* The reference of a matrix cell: the cpu backend on every thread (the
 * 16K cells would take minutes on cpu-ref); that of other cases: cpu-ref. */
static skss_status reference_sat(const bench_case *c, const bench_config *cfg, skss_ctx *ref, sat_job *job,
                                 skss_sat_desc d, char err[BENCH_ERRLEN]) {
  if (strcmp(c->table, MATRIX_TABLE) != 0) {
    d.algorithm = (skss_sat_algorithm)bench_reference_algorithm(SKSS_OP_SAT);
    skss_status st = skss_sat(ref, &d, job->in, job->ref, job->ref_sq);
    bench_status_error(ref, "reference skss_sat", st, err);
    return st;
  }
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CPU;
  cd.threads = cfg->threads;
  skss_ctx *cpu = NULL;
  skss_status st = skss_ctx_create(&cd, &cpu);
  if (st != SKSS_OK) {
    snprintf(err, BENCH_ERRLEN, "reference context: %s", skss_status_string(st));
    return st;
  }
  d.algorithm = SKSS_SAT_ALGORITHM_AUTO;
  st = skss_sat(cpu, &d, job->in, job->ref, job->ref_sq);
  bench_status_error(cpu, "reference skss_sat (cpu backend)", st, err);
  skss_ctx_destroy(cpu);
  return st;
}

static void *sat_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref, char err[BENCH_ERRLEN]) {
  sat_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (sat_job){0};
  int64_t h = c->p.sat.height, w = c->p.sat.width, pad = c->p.sat.layout == SKSS_SAT_LAYOUT_PADDED;
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = h;
  d.width = w;
  d.in_type = c->p.sat.in;
  d.out_type = c->p.sat.out;
  d.layout = c->p.sat.layout;
  const size_t ie = skss_dtype_size(d.in_type), oe = skss_dtype_size(d.out_type);
  const size_t in_row = (size_t)w * ie, out_row = (size_t)(w + pad) * oe;
  const size_t in_pitch = c->p.sat.pitched ? pitch_256(in_row) : in_row;
  const size_t out_pitch = c->p.sat.pitched ? pitch_256(out_row) : out_row;
  d.in_pitch = (int64_t)in_pitch;
  d.out_pitch = d.out_sq_pitch = (int64_t)out_pitch;
  job->desc = d;
  job->out_h = h + pad;
  job->out_w = w + pad;
  job->in_bytes = (size_t)h * in_row; /* packed while the input is made */
  job->out_bytes = (size_t)job->out_h * out_pitch;
  /* the bytes model: the input read once, each table written once (not the pitches' gaps) */
  job->bytes = (double)((size_t)h * in_row) + (double)(c->p.sat.squared ? 2 : 1) * (double)job->out_h * (double)out_row;
  job->in = bench_alloc((size_t)h * in_pitch, err);
  job->out = job->in ? bench_alloc(job->out_bytes, err) : NULL;
  job->ref = job->out ? bench_alloc(job->out_bytes, err) : NULL;
  if (job->ref != NULL && c->p.sat.squared) {
    job->out_sq = bench_alloc(job->out_bytes, err);
    job->ref_sq = job->out_sq ? bench_alloc(job->out_bytes, err) : NULL;
  }
  if (job->ref == NULL || (c->p.sat.squared && job->ref_sq == NULL)) {
    sat_release(job);
    return NULL;
  }
  fill_input(job, cfg->seed);
  if (in_pitch != in_row) spread_rows(job->in, h, in_row, in_pitch);
  job->in_bytes = (size_t)h * in_pitch;
  /* the pitches' gaps as the poisoned device outputs will have them */
  if (out_pitch != out_row || c->p.sat.squared) {
    memset(job->ref, 0xA5, job->out_bytes);
    if (job->ref_sq != NULL) memset(job->ref_sq, 0xA5, job->out_bytes);
  }
  double t0 = bench_now();
  if (reference_sat(c, cfg, ref, job, d, err) != SKSS_OK) {
    sat_release(job);
    return NULL;
  }
  c->ref_s = bench_now() - t0;
  job->ref_total = sat_value(d.out_type, job->ref, (size_t)(job->out_h - 1) * (out_pitch / oe) + (size_t)job->out_w - 1);
  c->signature[0] = job->ref_total;
  c->has_signature = 1;
  return job;
}

static skss_status sat_run(void *p, skss_ctx *ctx, int algorithm) {
  sat_job *job = p;
  skss_sat_desc d = job->desc;
  d.algorithm = (skss_sat_algorithm)algorithm;
  return skss_sat(ctx, &d, job->in, job->out, job->out_sq);
}

static void sat_poison(void *p) {
  sat_job *job = p;
  memset(job->out, 0xA5, job->out_bytes);
  if (job->out_sq != NULL) memset(job->out_sq, 0xA5, job->out_bytes);
}

/* Inputs are >= 0, so the reference itself bounds the rectangle's |sum|. */
static int sat_check_float(const sat_job *job, const void *out, const void *ref, char err[BENCH_ERRLEN]) {
  const skss_dtype type = job->desc.out_type;
  const double unit = type == SKSS_DTYPE_F32 ? 0x1p-24 : 0x1p-53;
  const size_t stride = (size_t)job->desc.out_pitch / skss_dtype_size(type);
  for (int64_t i = 0; i < job->out_h; i++) {
    for (int64_t j = 0; j < job->out_w; j++) {
      size_t k = (size_t)i * stride + (size_t)j;
      double got = sat_value(type, out, k), want = sat_value(type, ref, k);
      double bound = 2.0 * (double)(i + j + 2) * unit * fabs(want);
      if (!(fabs(got - want) <= bound)) {
        snprintf(err, BENCH_ERRLEN, "out[%lld][%lld] = %.17g, reference %.17g (bound %.3g)", (long long)i,
                 (long long)j, got, want, bound);
        return -1;
      }
    }
  }
  return 0;
}

static int sat_check_table(const sat_job *job, const void *out, const void *ref, char err[BENCH_ERRLEN]) {
  const skss_dtype type = job->desc.out_type;
  const size_t stride = (size_t)job->desc.out_pitch / skss_dtype_size(type);
  if (is_float(type)) return sat_check_float(job, out, ref, err);
  if (memcmp(out, ref, job->out_bytes) == 0) return 0;
  size_t k = 0;
  while (sat_value(type, out, k) == sat_value(type, ref, k)) k++;
  snprintf(err, BENCH_ERRLEN, "out[%lld][%lld] = %.0f, reference %.0f", (long long)(k / stride),
           (long long)(k % stride), sat_value(type, out, k), sat_value(type, ref, k));
  return -1;
}

static int sat_check(const void *p, char err[BENCH_ERRLEN]) {
  const sat_job *job = p;
  if (sat_check_table(job, job->out, job->ref, err) != 0) return -1;
  return job->out_sq != NULL ? sat_check_table(job, job->out_sq, job->ref_sq, err) : 0;
}

static double sat_bytes(const void *p) { return ((const sat_job *)p)->bytes; }

/* ---- on the device ------------------------------------------------------------------ */

/* skss.h's float bound for the algorithm, plus the reference's own
 * (i + j + 2) u S: both results lie within their bounds of the exact sum. */
static bench_tolerance sat_tolerance(int algorithm) {
  bench_tolerance t = {2, 0, 0};
  if (algorithm == SKSS_SAT_ALGORITHM_4R1W || algorithm == SKSS_SAT_ALGORITHM_4R1W_CPU) t.lin = 1, t.prod = 5;
  if (algorithm == SKSS_SAT_ALGORITHM_1R1W || algorithm == SKSS_SAT_ALGORITHM_1PR_R1W) t.tile = 70;
  return t;
}

/* Both tables over their pitches: a gap the call wrote differs from the
 * reference's poison there. */
static int sat_device_check(void *p, int algorithm, char err[BENCH_ERRLEN]) {
  sat_job *job = p;
  bench_tolerance tol = sat_tolerance(algorithm);
  const int64_t cols = job->desc.out_pitch / (int64_t)skss_dtype_size(job->desc.out_type);
  if (bench_gpu_check(job->gpu, job->desc.out_type, job->dev_out, job->dev_ref, job->out_h, cols, &tol, err) != 0)
    return -1;
  if (job->dev_out_sq == NULL) return 0;
  char detail[BENCH_ERRLEN];
  if (bench_gpu_check(job->gpu, job->desc.out_type, job->dev_out_sq, job->dev_ref_sq, job->out_h, cols, &tol,
                      detail) == 0)
    return 0;
  snprintf(err, BENCH_ERRLEN, "squared: %.200s", detail);
  return -1;
}

static int sat_device_poison(void *p, char err[BENCH_ERRLEN]) {
  sat_job *job = p;
  if (bench_gpu_fill(job->gpu, job->dev_out, 0xA5, job->out_bytes, err) != 0) return -1;
  return job->dev_out_sq != NULL ? bench_gpu_fill(job->gpu, job->dev_out_sq, 0xA5, job->out_bytes, err) : 0;
}

/* Device copies of the input and the reference, a device output; then the
 * check must reject the poisoned output, or it could not catch anything. */
static int sat_upload(void *p, bench_gpu *gpu, char err[BENCH_ERRLEN]) {
  sat_job *job = p;
  char detail[BENCH_ERRLEN];
  job->gpu = gpu;
  job->dev_in = bench_gpu_alloc(job->in_bytes, err);
  job->dev_out = job->dev_in ? bench_gpu_alloc(job->out_bytes, err) : NULL;
  job->dev_ref = job->dev_out ? bench_gpu_alloc(job->out_bytes, err) : NULL;
  if (job->dev_ref != NULL && job->ref_sq != NULL) {
    job->dev_out_sq = bench_gpu_alloc(job->out_bytes, err);
    job->dev_ref_sq = job->dev_out_sq ? bench_gpu_alloc(job->out_bytes, err) : NULL;
    if (job->dev_ref_sq == NULL || bench_gpu_upload(gpu, job->dev_ref_sq, job->ref_sq, job->out_bytes, err) != 0)
      return -1;
  }
  if (job->dev_ref == NULL || bench_gpu_upload(gpu, job->dev_in, job->in, job->in_bytes, err) != 0 ||
      bench_gpu_upload(gpu, job->dev_ref, job->ref, job->out_bytes, err) != 0 ||
      sat_device_poison(job, err) != 0)
    return -1;
  if (sat_device_check(job, SKSS_SAT_ALGORITHM_1R1W, detail) == 0) {
    snprintf(err, BENCH_ERRLEN, "the device check accepted a poisoned table");
    return -1;
  }
  return 0;
}

static skss_status sat_device_run(void *p, skss_ctx *ctx, int algorithm) {
  sat_job *job = p;
  skss_sat_desc d = job->desc;
  d.algorithm = (skss_sat_algorithm)algorithm;
  return skss_sat(ctx, &d, job->dev_in, job->dev_out, job->dev_out_sq);
}

/* A peer's total against the exact sum (u8 inputs) or our total (float
 * inputs): integer tables modulo 2^32, float tables within a relative 1e-3
 * (f32) or 1e-9 (f64); the peers add in other orders. */
static int sat_peer_agrees(const sat_job *job, const bench_gpu_peer_result *res) {
  const double want = job->desc.in_type == SKSS_DTYPE_U8 ? job->exact_total : job->ref_total;
  if (!is_float(res->out)) return (uint32_t)(int64_t)res->total == (uint32_t)(uint64_t)want;
  return fabs(res->total - want) <= (res->out == SKSS_DTYPE_F32 ? 1e-3 : 1e-9) * fabs(want);
}

static void sat_device_peers(void *p, const bench_config *cfg, bench_report *rep, size_t case_index) {
  sat_job *job = p;
  const bench_gpu_sat sat = {job->desc.height, job->desc.width, job->desc.in_type, job->desc.out_type,
                             job->dev_in};
  const bench_plan plan = bench_gpu_plan_for(cfg);
  const bench_case *c = &rep->cases.items[case_index];
  const double items = c->items;
  const int matrix = strcmp(c->table, MATRIX_TABLE) == 0;
  for (int k = 0; k < BENCH_GPU_PEER_COUNT; k++) {
    if (matrix ? k != matrix_npp_peer(c) : k == BENCH_GPU_PEER_NPP_SQR) continue; /* the cell's own NPP */
    if (k != BENCH_GPU_PEER_CUB && job->desc.in_type != SKSS_DTYPE_U8) continue; /* NPP: u8 images */
    bench_gpu_peer_result res;
    char err[BENCH_ERRLEN] = "";
    int rc = bench_gpu_sat_peer(job->gpu, (bench_gpu_peer)k, &sat, &plan, &res, err);
    bench_row *r = bench_report_add_row(rep, case_index);
    if (r == NULL) return;
    r->is_peer = 1;
    r->on_gpu = 1;
    snprintf(r->algorithm, sizeof r->algorithm, "%s", res.name);
    snprintf(r->backend, sizeof r->backend, "peer");
    snprintf(r->check, sizeof r->check, "n/a");
    if (rc != 0) {
      r->outcome = rc > 0 ? BENCH_ROW_UNAVAILABLE : BENCH_ROW_FAILED;
      snprintf(r->message, sizeof r->message, "%s", err);
      continue;
    }
    r->t = res.t;
    r->bytes = res.bytes;
    r->throughput = items / res.t.median_s;
    snprintf(r->check, sizeof r->check, "%s", sat_peer_agrees(job, &res) ? "agrees" : "differs");
    if (k == BENCH_GPU_PEER_NPP_SQR)
      snprintf(r->message, sizeof r->message, "i32 table and f64 squares, padded");
    else if (k != BENCH_GPU_PEER_CUB)
      snprintf(r->message, sizeof r->message, "%s table, padded", skss_dtype_name(res.out));
  }
}

static const bench_device_ops SAT_DEVICE = {sat_upload, sat_device_run, sat_device_poison, sat_device_check,
                                            sat_device_peers};

const bench_primitive bench_sat = {SKSS_OP_SAT, "sat",     sat_add_cases, sat_prepare, sat_run,    sat_poison,
                                   sat_check,   sat_bytes, sat_release,   &SAT_DEVICE};
