/*
 * bench_halftone.c — error-diffusion cases: Floyd-Steinberg (the kernel of
 * Pillow's convert('1'), slope 2) at 1K, 2K and 4K, and one slope-3 kernel
 * (Jarvis-Judice-Ninke) at the largest size, one output byte per pixel.
 *
 * Bytes model: 1 byte read + 1 byte written per pixel. The real floor is not
 * bandwidth but the dependency chain: each pixel waits for its left
 * neighbour's error, so a sequential run is bound by that latency and the
 * parallel one by rows that lag each other by the kernel's slope.
 * Every algorithm must give the reference's bytes exactly.
 *
 * On the device (GPU runs) the input, the output and the reference live in
 * device memory (bench_device_ops): the library is called on device
 * pointers, checked against the uploaded reference, and each case gets a
 * "latency floor" row: (W + slope (H - 1)) dependent pixel steps times the
 * cost of one step measured in the same run (bench_cuda_halftone.cu); as
 * the case's only GPU peer it makes each cuda row's speedup_peer its
 * distance from that floor (1 = at the floor).
 *
 * Suite halftone-papers (GPU runs), Floyd-Steinberg, one table per group:
 *  - the error-diffusion paper's Table V (1K-16K): its sequential
 *    algorithms (cpu-ref rows, when that backend runs), the four PRAM-style
 *    k-delay variants with and without the data permutation, the four
 *    parallelogram variants, ours (cuda strips, cpu task array), Pillow,
 *    and the host <-> device transfer times of an image (Table V (5));
 *  - the SKSS paper's Table III (1K-32K): SKSS against the conventional
 *    schedule of one launch per anti-diagonal of tasks (Parallel-Backward;
 *    here the parallelogram blocks with register caching, 2d-pec-rc, which
 *    is that schedule), and ours;
 *  - the batch target: 64 images of 4K x 4K in one call.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

static const bench_size HALFTONE_DEFAULT_SIZES[] = {{1024, 0}, {2048, 0}, {4096, 0}};

/* ---- the GPU tables ------------------------------------------------------------ */

#define ALG(a) (1u << (a))
#define SEQ_ALGS                                                                             \
  (ALG(SKSS_HALFTONE_ALGORITHM_ED) | ALG(SKSS_HALFTONE_ALGORITHM_EC) | ALG(SKSS_HALFTONE_ALGORITHM_ED_RC) |               \
   ALG(SKSS_HALFTONE_ALGORITHM_EC_RC))
#define PRAM_ALGS                                                                            \
  (ALG(SKSS_HALFTONE_ALGORITHM_PED3) | ALG(SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC) | ALG(SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH) | \
   ALG(SKSS_HALFTONE_ALGORITHM_PEC2) | ALG(SKSS_HALFTONE_ALGORITHM_PED3_PERM) |                                 \
   ALG(SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC_PERM) | ALG(SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH_PERM) |              \
   ALG(SKSS_HALFTONE_ALGORITHM_PEC2_PERM))
#define PGRAM_ALGS                                                                           \
  (ALG(SKSS_HALFTONE_ALGORITHM_PED_2D) | ALG(SKSS_HALFTONE_ALGORITHM_PED_2D_RC) | ALG(SKSS_HALFTONE_ALGORITHM_PEC_2D) |    \
   ALG(SKSS_HALFTONE_ALGORITHM_PEC_2D_RC))
#define OURS (ALG(SKSS_HALFTONE_ALGORITHM_STRIPS) | ALG(SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU))
#define TABLE3_ALGS (ALG(SKSS_HALFTONE_ALGORITHM_SKSS) | ALG(SKSS_HALFTONE_ALGORITHM_PEC_2D_RC))

/* One table: a Floyd-Steinberg case per side (sides in units of 1024). */
typedef struct halftone_gpu_table {
  const char *title;
  int sides[6];
  int n_sides;
  uint32_t algorithms, paper;
  int peers;      /* Pillow and the in-process GPU rows (latency floor, transfers) */
  int64_t images; /* > 1: one batch call */
} halftone_gpu_table;

static const halftone_gpu_table HALFTONE_GPU_TABLES[] = {
    {"ED paper Table V", {1, 2, 4, 8, 16}, 5, SEQ_ALGS | PRAM_ALGS | PGRAM_ALGS | OURS,
     PRAM_ALGS | PGRAM_ALGS, 1, 1},
    {"SKSS paper Table III", {1, 2, 4, 8, 16, 32}, 6, TABLE3_ALGS | ALG(SKSS_HALFTONE_ALGORITHM_STRIPS),
     TABLE3_ALGS, 1, 1},
    {"batch of 64", {4}, 1, ALG(SKSS_HALFTONE_ALGORITHM_STRIPS) | ALG(SKSS_HALFTONE_ALGORITHM_SKSS), 0, 0, 64},
};

static bench_case *add_case(bench_cases *out, const bench_size *size, skss_dither_kernel kernel,
                            int64_t images) {
  skss_dither_kernel_info info;
  bench_case *c = bench_cases_add(out, SKSS_OP_HALFTONE);
  if (c == NULL || skss_dither_kernel_get_info(kernel, &info) != SKSS_OK) return NULL;
  int64_t w = size->a, h = size->b ? size->b : size->a;
  c->p.halftone.width = w;
  c->p.halftone.height = h;
  c->p.halftone.kernel = kernel;
  c->p.halftone.images = images;
  snprintf(c->spec, sizeof c->spec, "halftone:%lldx%lld:%s", (long long)w, (long long)h, info.name);
  snprintf(c->variant, sizeof c->variant, "%s (slope %d)", info.name, info.slope);
  snprintf(c->size, sizeof c->size, "%lldx%lld", (long long)w, (long long)h);
  if (images > 1) {
    /* the peers read single images: a batch gets its own spec and none */
    snprintf(c->spec, sizeof c->spec, "halftone:%lldx%lld:%s:x%lld", (long long)w, (long long)h,
             info.name, (long long)images);
    snprintf(c->size, sizeof c->size, "%lld x %lldx%lld", (long long)images, (long long)w,
             (long long)h);
    c->no_peers = 1;
  }
  c->x = (double)w * (double)h * (double)images;
  c->items = c->x;
  c->unit = "px";
  return c;
}

/* The papers' tables (suite halftone-papers), or their first side (--quick). */
static int add_gpu_tables(const bench_config *cfg, bench_cases *out) {
  for (size_t t = 0; t < sizeof HALFTONE_GPU_TABLES / sizeof HALFTONE_GPU_TABLES[0]; t++) {
    const halftone_gpu_table *tb = &HALFTONE_GPU_TABLES[t];
    for (int s = 0; s < (cfg->quick ? 1 : tb->n_sides); s++) {
      bench_size size = {(int64_t)tb->sides[s] << 10, 0};
      bench_case *c = add_case(out, &size, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, tb->images);
      if (c == NULL) return -1;
      snprintf(c->table, sizeof c->table, "%s", tb->title);
      c->algorithms = tb->algorithms;
      c->paper = tb->paper;
      c->no_peers = c->no_peers || !tb->peers;
    }
  }
  return 0;
}

static int halftone_add_cases(const bench_config *cfg, bench_cases *out) {
  if (cfg->gpu && (cfg->suites & BENCH_SUITE_HALFTONE_PAPERS) && add_gpu_tables(cfg, out) != 0)
    return -1;
  if (!(cfg->suites & BENCH_SUITE_HALFTONE)) return 0;
  const bench_size *sizes = cfg->n_sizes ? cfg->sizes : HALFTONE_DEFAULT_SIZES;
  int n_sizes = cfg->n_sizes ? cfg->n_sizes : (cfg->quick ? 1 : 3);
  const bench_size *largest = &sizes[0];
  for (int s = 0; s < n_sizes; s++) {
    if (add_case(out, &sizes[s], SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 1) == NULL) return -1;
    if ((double)sizes[s].a * (double)(sizes[s].b ? sizes[s].b : sizes[s].a) >
        (double)largest->a * (double)(largest->b ? largest->b : largest->a))
      largest = &sizes[s];
  }
  return add_case(out, largest, SKSS_DITHER_KERNEL_JARVIS_JUDICE_NINKE, 1) == NULL ? -1 : 0;
}

typedef struct halftone_job {
  skss_halftone_desc desc;
  uint8_t *in, *out, *ref;
  size_t pixels;
  bench_gpu *gpu; /* device copies, once uploaded */
  void *dev_in, *dev_out, *dev_ref;
} halftone_job;

static void halftone_release(void *p) {
  halftone_job *job = p;
  if (job == NULL) return;
  free(job->in);
  free(job->out);
  free(job->ref);
  bench_gpu_free(job->dev_in);
  bench_gpu_free(job->dev_out);
  bench_gpu_free(job->dev_ref);
  free(job);
}

/* White pixels and the sum of their raster indices: what the peer reports. */
static void halftone_signature(const halftone_job *job, double sig[2]) {
  uint64_t white = 0, index_sum = 0;
  for (size_t k = 0; k < job->pixels; k++) {
    if (job->ref[k] != 0) {
      white++;
      index_sum += k;
    }
  }
  sig[0] = (double)white;
  sig[1] = (double)index_sum;
}

static void *halftone_prepare(bench_case *c, const bench_config *cfg, skss_ctx *ref,
                              char err[BENCH_ERRLEN]) {
  halftone_job *job = bench_alloc(sizeof *job, err);
  if (job == NULL) return NULL;
  *job = (halftone_job){0};
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = c->p.halftone.height;
  d.width = c->p.halftone.width;
  d.kernel = c->p.halftone.kernel;
  const int64_t images = c->p.halftone.images > 1 ? c->p.halftone.images : 1;
  if (images > 1) { /* images back to back */
    d.images = images;
    d.in_image_stride = d.out_image_stride = d.height * d.width;
  }
  job->desc = d;
  job->pixels = (size_t)(d.height * d.width * images);
  job->in = bench_alloc(job->pixels, err);
  job->out = job->in ? bench_alloc(job->pixels, err) : NULL;
  job->ref = job->out ? bench_alloc(job->pixels, err) : NULL;
  if (job->ref == NULL) {
    halftone_release(job);
    return NULL;
  }
  bench_fill_image_u8(job->in, d.height, d.width, cfg->seed);
  d.algorithm = (skss_halftone_algorithm)bench_reference_algorithm(SKSS_OP_HALFTONE);
  if (bench_status_error(ref, "reference skss_halftone", skss_halftone(ref, &d, job->in, job->ref), err)) {
    halftone_release(job);
    return NULL;
  }
  halftone_signature(job, c->signature);
  c->has_signature = 1;
  return job;
}

static skss_status halftone_run(void *p, skss_ctx *ctx, int algorithm) {
  halftone_job *job = p;
  skss_halftone_desc d = job->desc;
  d.algorithm = (skss_halftone_algorithm)algorithm;
  return skss_halftone(ctx, &d, job->in, job->out);
}

static void halftone_poison(void *p) {
  halftone_job *job = p;
  memset(job->out, 0xA5, job->pixels);
}

static int halftone_check(const void *p, char err[BENCH_ERRLEN]) {
  const halftone_job *job = p;
  if (memcmp(job->out, job->ref, job->pixels) == 0) return 0;
  size_t k = 0;
  while (job->out[k] == job->ref[k]) k++;
  size_t w = (size_t)job->desc.width;
  snprintf(err, BENCH_ERRLEN, "first difference at (y %zu, x %zu): %u, reference %u", k / w, k % w,
           job->out[k], job->ref[k]);
  return -1;
}

static double halftone_bytes(const void *p) { return 2.0 * (double)((const halftone_job *)p)->pixels; }

/* ---- on the device ------------------------------------------------------------------ */

static int halftone_device_poison(void *p, char err[BENCH_ERRLEN]) {
  halftone_job *job = p;
  return bench_gpu_fill(job->gpu, job->dev_out, 0xA5, job->pixels, err);
}

static int halftone_device_check(void *p, int algorithm, char err[BENCH_ERRLEN]) {
  halftone_job *job = p;
  (void)algorithm;
  const int64_t images = job->desc.images > 1 ? job->desc.images : 1;
  return bench_gpu_check_bytes(job->gpu, job->dev_out, job->dev_ref, job->desc.height * images,
                               job->desc.width, err);
}

/* Device copies of the input and the reference, a poisoned device output;
 * then makes sure the check rejects the poison. */
static int halftone_upload(void *p, bench_gpu *gpu, char err[BENCH_ERRLEN]) {
  halftone_job *job = p;
  char detail[BENCH_ERRLEN];
  job->gpu = gpu;
  job->dev_in = bench_gpu_alloc(job->pixels, err);
  job->dev_out = job->dev_in ? bench_gpu_alloc(job->pixels, err) : NULL;
  job->dev_ref = job->dev_out ? bench_gpu_alloc(job->pixels, err) : NULL;
  if (job->dev_ref == NULL || bench_gpu_upload(gpu, job->dev_in, job->in, job->pixels, err) != 0 ||
      bench_gpu_upload(gpu, job->dev_ref, job->ref, job->pixels, err) != 0 ||
      halftone_device_poison(job, err) != 0)
    return -1;
  if (halftone_device_check(job, 0, detail) == 0) {
    snprintf(err, BENCH_ERRLEN, "the device check accepted a poisoned image");
    return -1;
  }
  return 0;
}

static skss_status halftone_device_run(void *p, skss_ctx *ctx, int algorithm) {
  halftone_job *job = p;
  skss_halftone_desc d = job->desc;
  d.algorithm = (skss_halftone_algorithm)algorithm;
  return skss_halftone(ctx, &d, job->dev_in, job->dev_out);
}

/* One transfer row: the image copied host -> device or back. */
static void transfer_row(halftone_job *job, bench_report *rep, size_t case_index, int to_device) {
  bench_row *r = bench_report_add_row(rep, case_index);
  if (r == NULL) return;
  char err[BENCH_ERRLEN] = "";
  const double s = bench_gpu_transfer_s(job->gpu, to_device ? job->dev_in : job->dev_out,
                                        to_device ? job->in : job->out, job->pixels, to_device, err);
  r->is_peer = 1;
  r->on_gpu = 1;
  snprintf(r->algorithm, sizeof r->algorithm, "transfer %s", to_device ? "host->device" : "device->host");
  snprintf(r->backend, sizeof r->backend, "peer");
  snprintf(r->check, sizeof r->check, "n/a");
  if (s <= 0) {
    r->outcome = BENCH_ROW_FAILED;
    snprintf(r->message, sizeof r->message, "%s", err);
    return;
  }
  r->t.median_s = r->t.min_s = r->t.p90_s = s;
  r->t.runs = 5;
  r->bytes = (double)job->pixels;
  r->throughput = rep->cases.items[case_index].items / s;
  snprintf(r->message, sizeof r->message, "%.2f GB/s, pageable host memory", (double)job->pixels / s * 1e-9);
}

/* The case's latency floor as a GPU peer row (see the top of the file), and
 * in the error-diffusion paper's table the transfer times of its Table V (5). */
static void halftone_device_peers(void *p, const bench_config *cfg, bench_report *rep, size_t case_index) {
  halftone_job *job = p;
  skss_dither_kernel_info info;
  (void)cfg;
  if (strcmp(rep->cases.items[case_index].table, "ED paper Table V") == 0) {
    transfer_row(job, rep, case_index, 1);
    transfer_row(job, rep, case_index, 0);
  }
  bench_row *r = bench_report_add_row(rep, case_index);
  if (r == NULL || skss_dither_kernel_get_info(job->desc.kernel, &info) != SKSS_OK) return;
  char err[BENCH_ERRLEN] = "";
  const double step = bench_gpu_halftone_step_s(job->gpu, job->desc.kernel, err);
  const double steps = (double)job->desc.width + (double)info.slope * (double)(job->desc.height - 1);
  r->is_peer = 1;
  r->on_gpu = 1;
  snprintf(r->algorithm, sizeof r->algorithm, "latency floor");
  snprintf(r->backend, sizeof r->backend, "peer");
  snprintf(r->check, sizeof r->check, "n/a");
  if (step <= 0) {
    r->outcome = BENCH_ROW_FAILED;
    snprintf(r->message, sizeof r->message, "%s", err);
    return;
  }
  r->t.median_s = r->t.min_s = r->t.p90_s = steps * step;
  r->t.runs = 1;
  r->throughput = rep->cases.items[case_index].items / r->t.median_s;
  snprintf(r->message, sizeof r->message, "%.0f dependent steps of %.2f ns", steps, step * 1e9);
}

static const bench_device_ops HALFTONE_DEVICE = {halftone_upload, halftone_device_run, halftone_device_poison,
                                                 halftone_device_check, halftone_device_peers};

const bench_primitive bench_halftone = {SKSS_OP_HALFTONE, "halftone",     halftone_add_cases,
                                        halftone_prepare, halftone_run,   halftone_poison,
                                        halftone_check,   halftone_bytes, halftone_release,
                                        &HALFTONE_DEVICE};
