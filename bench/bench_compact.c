/*
 * bench_compact.c — stream-compaction cases.
 *
 * Suite compact: 10^7 and 10^8 elements, about half kept: f32 (keep x > 0.5
 * of uniform [0, 1)) and i32 (keep x > 0 of uniform int32) to values, and
 * f32 to indices (NumPy's np.nonzero).
 *
 * Suite compact-papers, after Pirjan, "Solutions for Optimizing the Stream
 * Compaction Algorithmic Function Using the Compute Unified Device
 * Architecture" (its experiments section):
 *  - "paper Table 1": its 22 input sizes, n = 35 .. 8,388,600 f32 values.
 *    The paper times a function that takes the 0/1 flags as an input and
 *    says only that the vectors were "randomly generated as to cover a wide
 *    range of values": it states no predicate and no share kept, so the
 *    cases keep x > 0.5 of uniform [0, 1), half the elements. Printed in
 *    two tables, at the paper's split between its Figure 6 (n <= 1030) and
 *    Figure 7 (n >= 32768); its own times are notes of the run
 *    (bench_compact_paper_notes).
 *  - "paper Figure 8": every skss_dtype, half kept (integers: all of the
 *    type's range, keep x > -1 signed or x > 2^(bits-1) - 1 unsigned;
 *    floats: [0, 1), keep x > 0.5), over 8 of Table 1's 22 sizes (both ends
 *    of each of its figures and every 4x between: 35, 256, 1030, 32768,
 *    131072, 524288, 2097152, 8388600): all 22 for 10 types would triple
 *    the suite's time for little more of the curve.
 *  - "selectivity": f32 values and indices at 0%, 10%, 50% and 100% kept
 *    (keep x > 1, 0.9, 0.5 and -1), n = 2^20 .. 2^30, stopping at the
 *    largest n whose indices case (20 bytes an element: the input, our
 *    output and the reference) takes at most a quarter of the physical
 *    memory (2^30 needs 80 GiB; a 23 GiB machine stops at 2^28); the
 *    run says where in a note.
 * Every case is timed on the host with the paper's sequential loop on
 * cpu-ref (timed on the reference's context, as the knapsack paper's
 * Sequential row) and every other algorithm the cpu and cuda backends have
 * (scan-cpu; flag-scan-scatter, flag-cpuscan-scatter, onepass). In a GPU
 * run the cuda rows run on device copies of the input (bench_device_ops:
 * device output and count, the call asynchronous), timed with CUDA events,
 * checked on the device against the uploaded reference; the in-process
 * peers (bench_cuda_compact.cu) are cub::DeviceSelect::If and ::Flagged and
 * thrust::copy_if on the same device input, and gpu_peers.py adds torch's
 * x[x > t] and torch.nonzero. --quick: Table 1's 6 smallest sizes, Figure 8 for u8
 * and f64 at those sizes, the selectivity sweep at 2^20. --sizes replaces
 * the n of all three.
 *
 * Inputs: element k from bench_hash(seed, k): its top bits for integers
 * (i32 as bench_fill_i32), bench_fill_unit_f32 / _f64 for floats;
 * cpu_peers.py makes the same, its spec carries the threshold.
 *
 * Bytes model: the input read once plus the kept outputs written once (the
 * element's size per kept value, 8 per kept index). The kept positions are
 * random, so branchy code mispredicts half the time; a good implementation
 * stays near the copy bandwidth. Counts and outputs must equal the
 * reference exactly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int compact_add_suite_cases(const bench_config *cfg, bench_cases *out) {
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

/* ---- suite compact-papers ------------------------------------------------------------ */

#define ALG(a) (1u << (a))
#define BACKEND(b) (1u << (b))

/* Pirjan, "Solutions for Optimizing the Stream Compaction Algorithmic
 * Function Using the Compute Unified Device Architecture", Table 1: the
 * input sizes (f32 elements) of its 22 tests. */
static const int64_t TABLE1_SIZES[] = {35,      128,     256,     260,     512,     1000,    1024,    1030,
                                       32768,   45555,   65536,   131072,  262144,  500111,  524288,  1048555,
                                       1048576, 1048581, 2097152, 2097999, 4194334, 8388600};
#define TABLE1_COUNT ((int)(sizeof TABLE1_SIZES / sizeof TABLE1_SIZES[0]))
/* Its Figure 6 shows n <= 1030, its Figure 7 the rest: two printed tables
 * (the CLI prints at most 16 sizes a table). */
#define TABLE1_SPLIT 1030
#define TABLE1_SMALL "compaction paper Table 1, n <= 1030"
#define TABLE1_LARGE "compaction paper Table 1, n >= 32768"
#define FIGURE8_TITLE "compaction paper Figure 8"
#define SELECTIVITY_TITLE "compaction selectivity"
#define QUICK_SIZES 6

/* Figure 8's sizes: both ends of the paper's Figures 6 and 7 and every 4x
 * between them (see the top of the file). */
static const int64_t FIGURE8_SIZES[] = {35, 256, 1030, 32768, 131072, 524288, 2097152, 8388600};
static const skss_dtype FIGURE8_QUICK_TYPES[] = {SKSS_DTYPE_U8, SKSS_DTYPE_F64};

/* The selectivity sweep: n = 2^20 .. 2^30, shares kept in percent. */
#define SELECTIVITY_MIN_LOG2 20
#define SELECTIVITY_MAX_LOG2 30
/* input, output and reference of the indices case, per element */
#define SELECTIVITY_BYTES_PER_ELEM 20.0
static const int SELECTIVITY_PERCENT[] = {0, 10, 50, 100};

const char *const bench_compact_paper_notes[] = {
    "compaction paper Table 1 (Pirjan, \"Solutions for Optimizing the Stream Compaction Algorithmic "
    "Function Using the Compute Unified Device Architecture\"): ms, mean of 10,000 runs, f32, at the 22 n "
    "of the rows; 4 notes:",
    "paper Table 1, i7-2600K CPU (4.6 GHz) ms: 0.000251 0.000881 0.001751 0.001802 0.003764 0.00809 "
    "0.008283 0.008401 0.306007 0.425129 0.611791 1.231282 2.467049 4.770547 4.925248 9.976362 9.933178 "
    "9.930643 19.905175 19.964916 39.781245 79.936226",
    "paper Table 1, GTX 280 ms: 0.163672 0.165035 0.150721 0.164149 0.167543 0.170796 0.162103 0.335697 "
    "0.34606 0.276806 0.389857 0.374864 0.441118 0.552596 0.599289 0.747874 0.712332 0.86948 1.216657 "
    "1.254584 1.961108 3.212200",
    "paper Table 1, GTX 480 ms: 0.080994 0.055889 0.05853 0.050703 0.076934 0.070327 0.063049 0.117377 "
    "0.132379 0.138398 0.130423 0.158547 0.179466 0.248678 0.249158 0.355804 0.336078 0.402963 0.632166 "
    "0.627385 1.050636 1.935706",
    "paper Table 1, GTX 680 ms: 0.069412 0.102792 0.068543 0.069557 0.068769 0.083748 0.080717 0.090358 "
    "0.144445 0.142196 0.144086 0.147817 0.152783 0.173436 0.166949 0.217646 0.218307 0.238417 0.336693 "
    "0.329394 0.561816 0.947059",
    NULL};

int64_t bench_compact_selectivity_max(void) {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  double memory = pages > 0 && page > 0 ? (double)pages * (double)page : 0;
  int64_t n = (int64_t)1 << SELECTIVITY_MAX_LOG2;
  while (n > ((int64_t)1 << SELECTIVITY_MIN_LOG2) && SELECTIVITY_BYTES_PER_ELEM * (double)n > memory / 4) n >>= 1;
  return n;
}

/* The threshold that keeps half of a type's values: the inputs cover all of
 * an integer type's range, floats are in [0, 1). */
static skss_scalar half_threshold(skss_dtype t) {
  skss_scalar a = {0};
  switch (t) {
    case SKSS_DTYPE_F32:
    case SKSS_DTYPE_F64: a.f = 0.5; break;
    case SKSS_DTYPE_I8:
    case SKSS_DTYPE_I16:
    case SKSS_DTYPE_I32:
    case SKSS_DTYPE_I64: a.i = -1; break;
    default: a.u = (UINT64_C(1) << (8 * skss_dtype_size(t) - 1)) - 1; break;
  }
  return a;
}

/* The threshold as the spec writes it: exact for integers, and for floats
 * digits that read back the same double. */
static void format_threshold(char *buf, size_t len, skss_dtype t, skss_scalar a) {
  if (t == SKSS_DTYPE_F32 || t == SKSS_DTYPE_F64) {
    snprintf(buf, len, "%g", a.f);
    if (strtod(buf, NULL) != a.f) snprintf(buf, len, "%.17g", a.f);
  } else if (t == SKSS_DTYPE_I8 || t == SKSS_DTYPE_I16 || t == SKSS_DTYPE_I32 || t == SKSS_DTYPE_I64) {
    snprintf(buf, len, "%lld", (long long)a.i);
  } else {
    snprintf(buf, len, "%llu", (unsigned long long)a.u);
  }
}

/* A compact-papers case: keep x > above of n elements of type t. */
static bench_case *add_paper_case(bench_cases *out, const char *table, int64_t n, skss_dtype t, int indices,
                                  skss_scalar above, int percent) {
  bench_case *c = bench_cases_add(out, SKSS_OP_COMPACT);
  if (c == NULL) return NULL;
  const char *type = skss_dtype_name(t), *what = indices ? "indices" : "values";
  char gt[40];
  format_threshold(gt, sizeof gt, t, above);
  c->p.compact.n = n;
  c->p.compact.dtype = t;
  c->p.compact.indices = indices;
  c->p.compact.papers = 1;
  c->p.compact.above = above;
  snprintf(c->spec, sizeof c->spec, "compact:%lld:%s:%s:gt%s", (long long)n, type, what, gt);
  snprintf(c->variant, sizeof c->variant, "%s %s, %d%%", type, what, percent);
  snprintf(c->table, sizeof c->table, "%s", table);
  bench_format_count(c->size, sizeof c->size, n);
  c->x = (double)n;
  c->items = (double)n;
  c->unit = "elem";
  /* loop, the paper's sequential row, on the reference's context; every
   * other algorithm of the cpu and cuda backends */
  c->backends = BACKEND(SKSS_BACKEND_CPU) | BACKEND(SKSS_BACKEND_CUDA);
  c->algorithms = ~ALG(SKSS_COMPACT_ALGORITHM_LOOP);
  c->time_reference = 1;
  return c;
}

static int add_table1(const bench_config *cfg, bench_cases *out) {
  const int n_sizes = cfg->n_sizes ? cfg->n_sizes : cfg->quick ? QUICK_SIZES : TABLE1_COUNT;
  for (int s = 0; s < n_sizes; s++) {
    const int64_t n = cfg->n_sizes ? cfg->sizes[s].a : TABLE1_SIZES[s];
    if (add_paper_case(out, n <= TABLE1_SPLIT ? TABLE1_SMALL : TABLE1_LARGE, n, SKSS_DTYPE_F32, 0,
                       half_threshold(SKSS_DTYPE_F32), 50) == NULL)
      return -1;
  }
  return 0;
}

static int add_figure8(const bench_config *cfg, bench_cases *out) {
  const int n_types = cfg->quick ? (int)(sizeof FIGURE8_QUICK_TYPES / sizeof FIGURE8_QUICK_TYPES[0])
                                 : SKSS_DTYPE_F64 - SKSS_DTYPE_U8 + 1;
  const int n_figure = (int)(sizeof FIGURE8_SIZES / sizeof FIGURE8_SIZES[0]);
  const int n_sizes = cfg->n_sizes ? cfg->n_sizes : cfg->quick ? QUICK_SIZES : n_figure;
  for (int k = 0; k < n_types; k++) {
    const skss_dtype t = cfg->quick ? FIGURE8_QUICK_TYPES[k] : (skss_dtype)(SKSS_DTYPE_U8 + k);
    for (int s = 0; s < n_sizes; s++) {
      const int64_t n = cfg->n_sizes ? cfg->sizes[s].a : cfg->quick ? TABLE1_SIZES[s] : FIGURE8_SIZES[s];
      if (add_paper_case(out, FIGURE8_TITLE, n, t, 0, half_threshold(t), 50) == NULL) return -1;
    }
  }
  return 0;
}

/* keep x > t of uniform [0, 1) (24 random bits) keeps about 1 - t */
static skss_scalar selectivity_threshold(int percent) {
  skss_scalar a = {0};
  a.f = percent == 0 ? 1.0 : percent == 100 ? -1.0 : 1.0 - percent / 100.0;
  return a;
}

static int add_selectivity(const bench_config *cfg, bench_cases *out) {
  const int64_t max_n = cfg->quick ? (int64_t)1 << SELECTIVITY_MIN_LOG2 : bench_compact_selectivity_max();
  for (int indices = 0; indices <= 1; indices++) {
    for (size_t p = 0; p < sizeof SELECTIVITY_PERCENT / sizeof SELECTIVITY_PERCENT[0]; p++) {
      const int percent = SELECTIVITY_PERCENT[p];
      int count = cfg->n_sizes;
      if (count == 0)
        for (int64_t n = (int64_t)1 << SELECTIVITY_MIN_LOG2; n <= max_n; n <<= 1) count++;
      for (int s = 0; s < count; s++) {
        const int64_t n = cfg->n_sizes ? cfg->sizes[s].a : (int64_t)1 << (SELECTIVITY_MIN_LOG2 + s);
        bench_case *c = add_paper_case(out, SELECTIVITY_TITLE, n, SKSS_DTYPE_F32, indices,
                                       selectivity_threshold(percent), percent);
        if (c == NULL) return -1;
        if (!cfg->n_sizes) snprintf(c->size, sizeof c->size, "2^%d", SELECTIVITY_MIN_LOG2 + s);
      }
    }
  }
  return 0;
}

static int compact_add_cases(const bench_config *cfg, bench_cases *out) {
  if (cfg->suites & BENCH_SUITE_COMPACT_PAPERS) {
    if (add_table1(cfg, out) != 0 || add_figure8(cfg, out) != 0 || add_selectivity(cfg, out) != 0) return -1;
  }
  if (!(cfg->suites & BENCH_SUITE_COMPACT)) return 0;
  return compact_add_suite_cases(cfg, out);
}

/* ---- jobs -------------------------------------------------------------------------- */

typedef struct compact_job {
  skss_compact_desc desc;
  void *in, *out, *ref;
  int64_t count, ref_count;
  int indices;     /* outputs are indices, not values */
  size_t out_elem; /* bytes of one output: the value's or an index's */
  /* GPU runs: device copies of the input and the reference, a device output and count */
  bench_gpu *gpu;
  void *dev_in, *dev_out, *dev_ref;
  int64_t *dev_count;
} compact_job;

static void compact_release(void *p) {
  compact_job *job = p;
  if (job == NULL) return;
  bench_gpu_free(job->dev_in);
  bench_gpu_free(job->dev_out);
  bench_gpu_free(job->dev_ref);
  bench_gpu_free(job->dev_count);
  free(job->in);
  free(job->out);
  free(job->ref);
  free(job);
}

/* Element k of every type from bench_hash(seed, k): the word's top bits for
 * integers (signed types keep the bits), [0, 1) for floats. */
static void compact_fill(void *in, skss_dtype t, int64_t n, uint64_t seed) {
  switch (t) {
    case SKSS_DTYPE_F32: bench_fill_unit_f32(in, n, seed); return;
    case SKSS_DTYPE_F64: bench_fill_unit_f64(in, n, seed); return;
    case SKSS_DTYPE_I32: bench_fill_i32(in, n, seed); return;
    default: break;
  }
  const size_t size = skss_dtype_size(t);
  const unsigned shift = (unsigned)(64 - 8 * size);
  for (int64_t k = 0; k < n; k++) {
    const uint64_t z = bench_hash(seed, (uint64_t)k) >> shift;
    switch (size) {
      case 1: ((uint8_t *)in)[k] = (uint8_t)z; break;
      case 2: ((uint16_t *)in)[k] = (uint16_t)z; break;
      case 4: ((uint32_t *)in)[k] = (uint32_t)z; break;
      default: ((uint64_t *)in)[k] = z; break;
    }
  }
}

/* Whether element k passes keep x > desc.a, read by the data's type (f32
 * against (float)a.f, as skss_compact does). */
static int compact_kept(const compact_job *job, int64_t k) {
  const void *in = job->in;
  const skss_scalar a = job->desc.a;
  switch (job->desc.dtype) {
    case SKSS_DTYPE_U8: return ((const uint8_t *)in)[k] > a.u;
    case SKSS_DTYPE_I8: return ((const int8_t *)in)[k] > a.i;
    case SKSS_DTYPE_U16: return ((const uint16_t *)in)[k] > a.u;
    case SKSS_DTYPE_I16: return ((const int16_t *)in)[k] > a.i;
    case SKSS_DTYPE_U32: return ((const uint32_t *)in)[k] > a.u;
    case SKSS_DTYPE_I32: return ((const int32_t *)in)[k] > a.i;
    case SKSS_DTYPE_U64: return ((const uint64_t *)in)[k] > a.u;
    case SKSS_DTYPE_I64: return ((const int64_t *)in)[k] > a.i;
    case SKSS_DTYPE_F32: return ((const float *)in)[k] > (float)a.f;
    case SKSS_DTYPE_F64: return ((const double *)in)[k] > a.f;
  }
  return 0;
}

/* The kept count and the sum of kept indices, from the input itself: what
 * the peer reports, so both sides are seen to use the same data. */
static void compact_signature(const compact_job *job, double sig[2]) {
  uint64_t kept = 0, index_sum = 0;
  for (int64_t k = 0; k < job->desc.n; k++) {
    int keep = compact_kept(job, k);
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
  if (c->p.compact.papers)
    d.a = c->p.compact.above;
  else if (d.dtype == SKSS_DTYPE_F32)
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
  compact_fill(job->in, d.dtype, d.n, cfg->seed);
  double t0 = bench_now();
  skss_status st = compact_call(job, ref, bench_reference_algorithm(SKSS_OP_COMPACT), job->ref,
                                &job->ref_count);
  c->ref_s = bench_now() - t0;
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

/* ---- on the device ------------------------------------------------------------------ */

static int compact_device_check(void *p, int algorithm, char err[BENCH_ERRLEN]) {
  compact_job *job = p;
  (void)algorithm;
  return bench_gpu_compact_check(job->gpu, job->dev_out, job->dev_count, job->dev_ref, job->ref_count,
                                 job->out_elem, job->desc.n, err);
}

static int compact_device_poison(void *p, char err[BENCH_ERRLEN]) {
  compact_job *job = p;
  if (bench_gpu_fill(job->gpu, job->dev_count, 0xA5, sizeof(int64_t), err) != 0) return -1;
  return bench_gpu_fill(job->gpu, job->dev_out, 0xA5, (size_t)job->desc.n * job->out_elem, err);
}

/* Device copies of the input and the reference, a device output and count;
 * then the check must reject the poisoned output where anything is kept. */
static int compact_upload(void *p, bench_gpu *gpu, char err[BENCH_ERRLEN]) {
  compact_job *job = p;
  char detail[BENCH_ERRLEN];
  const size_t n = (size_t)job->desc.n, in_bytes = n * skss_dtype_size(job->desc.dtype);
  const size_t ref_bytes = (size_t)job->ref_count * job->out_elem;
  job->gpu = gpu;
  job->dev_in = bench_gpu_alloc(in_bytes, err);
  job->dev_out = job->dev_in ? bench_gpu_alloc(n * job->out_elem, err) : NULL;
  job->dev_ref = job->dev_out ? bench_gpu_alloc(ref_bytes, err) : NULL;
  job->dev_count = job->dev_ref ? bench_gpu_alloc(sizeof(int64_t), err) : NULL;
  if (job->dev_count == NULL || bench_gpu_upload(gpu, job->dev_in, job->in, in_bytes, err) != 0 ||
      bench_gpu_upload(gpu, job->dev_ref, job->ref, ref_bytes, err) != 0 ||
      bench_gpu_upload(gpu, job->dev_count, &job->ref_count, sizeof(int64_t), err) != 0 ||
      bench_gpu_fill(gpu, job->dev_out, 0xA5, n * job->out_elem, err) != 0)
    return -1;
  if (job->ref_count > 0 &&
      bench_gpu_compact_check(gpu, job->dev_out, job->dev_count, job->dev_ref, job->ref_count, job->out_elem,
                              job->desc.n, detail) == 0) {
    snprintf(err, BENCH_ERRLEN, "the device check accepted a poisoned output");
    return -1;
  }
  return 0;
}

static skss_status compact_device_run(void *p, skss_ctx *ctx, int algorithm) {
  compact_job *job = p;
  skss_compact_desc d = job->desc;
  d.algorithm = (skss_compact_algorithm)algorithm;
  return skss_compact(ctx, &d, job->dev_in, job->indices ? NULL : job->dev_out,
                      job->indices ? job->dev_out : NULL, job->dev_count);
}

/* CUB's DeviceSelect::If and ::Flagged and thrust::copy_if on the same
 * device input, each checked against the reference. */
static void compact_device_peers(void *p, const bench_config *cfg, bench_report *rep, size_t case_index) {
  compact_job *job = p;
  const bench_gpu_compact c = {job->desc.n, job->desc.dtype, job->indices, job->desc.a,
                               job->dev_in, job->dev_ref, job->ref_count};
  const bench_plan plan = bench_gpu_plan_for(cfg);
  const double items = rep->cases.items[case_index].items;
  for (int k = 0; k < BENCH_GPU_COMPACT_PEERS; k++) {
    bench_gpu_peer_result res;
    char err[BENCH_ERRLEN] = "";
    const int rc = bench_gpu_compact_peer(job->gpu, k, &c, &plan, &res, err);
    if (rc > 0) continue; /* no instantiation for this dtype: no row */
    bench_row *r = bench_report_add_row(rep, case_index);
    if (r == NULL) return;
    r->is_peer = 1;
    r->on_gpu = 1;
    snprintf(r->algorithm, sizeof r->algorithm, "%s", res.name);
    snprintf(r->backend, sizeof r->backend, "peer");
    snprintf(r->check, sizeof r->check, "n/a");
    if (rc != 0) {
      r->outcome = BENCH_ROW_FAILED;
      snprintf(r->message, sizeof r->message, "%s", err);
      continue;
    }
    r->t = res.t;
    r->bytes = res.bytes;
    r->throughput = items / res.t.median_s;
    snprintf(r->check, sizeof r->check, "%s", res.total < 0 ? "differs" : "agrees");
    if (res.total < 0) snprintf(r->message, sizeof r->message, "%s", err);
    else if (k == BENCH_GPU_COMPACT_CUB_FLAGGED) snprintf(r->message, sizeof r->message, "flags made beforehand");
  }
}

static const bench_device_ops COMPACT_DEVICE = {compact_upload, compact_device_run, compact_device_poison,
                                                compact_device_check, compact_device_peers};

const bench_primitive bench_compact = {SKSS_OP_COMPACT, "compact",     compact_add_cases,
                                       compact_prepare, compact_run,   compact_poison,
                                       compact_check,   compact_bytes, compact_release, &COMPACT_DEVICE};
