/*
 * cmd_demo.c — `skss demo`: the README's tour. Halftones the bundled
 * photograph (Floyd-Steinberg and Jarvis-Judice-Ninke), box-filters it,
 * computes its summed-area table, compacts its bright pixels and solves the
 * bundled knapsack instance on cpu-ref (the sequential reference), on cpu
 * and, when a device is present, on an auto context (each primitive on
 * CUDA where it has kernels, else on the CPU threads). The cpu-ref results
 * are written out; every other row must give the same bytes. Each row is
 * timed warm: one checked call, then the median of several (bench.h's
 * timing); CUDA rows once on device buffers (CUDA events), once end to end.
 */
#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss demo [options]\n\n"
    "Runs every primitive on the bundled data: halftones the photograph\n"
    "astronaut.png with Floyd-Steinberg and Jarvis-Judice-Ninke, box-filters\n"
    "it (radius 8), computes its summed-area table (u8:u32), keeps its pixels\n"
    "brighter than 128 with their indices (compaction) and solves the knapsack\n"
    "instance knapsack_sc_1000.txt. Runs them on cpu-ref (the sequential\n"
    "reference), on cpu and, when a CUDA device is present, on the auto backend\n"
    "(CUDA where it has the primitive, else the CPU threads); every backend must\n"
    "give the same bytes. Writes the cpu-ref results to the output directory and\n"
    "prints a table: each primitive's time on each backend (the median of 5 to\n"
    "15 runs after a warm-up call; CUDA once with device data, once end to end\n"
    "with the host copies) and its speedup over cpu-ref.\n\n"
    "  --out DIR        output directory (default: out), created if missing\n"
    "  --data DIR       where astronaut.png and knapsack_sc_1000.txt are (default:\n"
    "                   $SKSS_DATA_DIR, else the source tree's data/, else\n"
    "                   ../share/skss next to the executable, else ./data)\n"
    "  --backend B      cpu-ref and B only (cpu, cuda or auto)\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --quick          one timed run per row (for tests)\n"
    "  --json           print the table as one JSON object\n";

#define DEMO_IMAGE "astronaut.png"
#define DEMO_KNAPSACK "knapsack_sc_1000.txt"
#define DEMO_RADIUS 8
#define DEMO_BRIGHT 128
#define DEMO_MAX_LANES 4
#define N_STEPS_MAX 8

/* A row's runs: at least 5 and 0.05 s, at most 15 runs, and no new run
 * once 1.5 s are spent (the sequential knapsack takes about 0.3 s a call). */
static const bench_plan DEMO_PLAN = {0.05, 1.5, 5, 15, 0};
static const bench_plan DEMO_QUICK_PLAN = {0, 0, 1, 1, 1};

typedef struct demo demo;

typedef struct demo_step {
  const char *label; /* "halftone fs" */
  skss_op op;        /* which backend of an auto context runs it */
  const char *file;  /* written under the output directory; NULL: none */
  int param;         /* the dither kernel, or 0 */
  /* The element type of the output a cuda row may leave on the device
   * (u8 or u32, checked there); 0: the step runs on host buffers only. */
  skss_dtype device_out;
  size_t (*out_bytes)(const demo *d);
  /* One library call from `in` (the image: host or device) into `out`. */
  skss_status (*call)(const demo *d, skss_ctx *ctx, const struct demo_step *s, const void *in, void *out);
  void (*summarize)(const demo *d, const void *result, char *buf, size_t size);
  int (*write)(const demo *d, const void *result, const char *path, char err[SKSS_IO_ERRLEN]);
} demo_step;

/* A column of the tour: a context, and whether its rows pass device buffers. */
typedef struct demo_lane {
  skss_ctx *ctx;
  int device_data;
} demo_lane;

struct demo {
  cli_cmd cmd;
  const char *out_dir, *data_option;
  int quick;
  char data_dir[PATH_MAX];
  skss_image img;
  skss_knapsack_instance knap;
  demo_lane lanes[DEMO_MAX_LANES];
  int n_lanes;
  skss_ctx *ctxs[DEMO_MAX_LANES]; /* the contexts the lanes share */
  int n_ctxs;
  bench_gpu *gpu; /* the device's stream and timing events; NULL without a cuda lane */
  cJSON *json;    /* the report under --json */
  int json_failed;
  char results[N_STEPS_MAX][PATH_MAX + 256]; /* each step's result line */
};

/* ----------------------------------------------------------- the steps */

static size_t image_bytes(const demo *d) { return (size_t)(d->img.width * d->img.height); }

static size_t sat_bytes(const demo *d) { return image_bytes(d) * sizeof(uint32_t); }

/* The optimal value, then one byte per item. */
static size_t knapsack_bytes(const demo *d) { return sizeof(int64_t) + (size_t)d->knap.n; }

/* The count, then the kept pixels (n bytes), then their indices (n int64). */
static size_t compact_bytes(const demo *d) {
  return sizeof(int64_t) + image_bytes(d) * (1 + sizeof(int64_t));
}

static skss_status call_halftone(const demo *d, skss_ctx *ctx, const demo_step *s, const void *in,
                                 void *out) {
  skss_halftone_desc desc = SKSS_HALFTONE_DESC_INIT;
  desc.height = d->img.height;
  desc.width = d->img.width;
  desc.kernel = (skss_dither_kernel)s->param;
  return skss_halftone(ctx, &desc, in, out);
}

static skss_status call_boxfilter(const demo *d, skss_ctx *ctx, const demo_step *s, const void *in,
                                  void *out) {
  (void)s;
  skss_boxfilter_desc desc = SKSS_BOXFILTER_DESC_INIT;
  desc.height = d->img.height;
  desc.width = d->img.width;
  desc.radius = DEMO_RADIUS;
  return skss_boxfilter_u8(ctx, &desc, in, out);
}

static skss_status call_sat(const demo *d, skss_ctx *ctx, const demo_step *s, const void *in, void *out) {
  (void)s;
  skss_sat_desc desc = SKSS_SAT_DESC_INIT;
  desc.height = d->img.height;
  desc.width = d->img.width;
  return skss_sat(ctx, &desc, in, out, NULL);
}

static skss_status call_compact(const demo *d, skss_ctx *ctx, const demo_step *s, const void *in, void *out) {
  (void)s;
  skss_compact_desc desc = SKSS_COMPACT_DESC_INIT;
  desc.n = (int64_t)image_bytes(d);
  desc.dtype = SKSS_DTYPE_U8;
  desc.keep = SKSS_COMPACT_KEEP_GT;
  desc.a.u = DEMO_BRIGHT;
  uint8_t *bytes = out;
  int64_t *indices = (int64_t *)(bytes + sizeof(int64_t) + image_bytes(d));
  return skss_compact(ctx, &desc, in, bytes + sizeof(int64_t), indices, (int64_t *)out);
}

static skss_status call_knapsack(const demo *d, skss_ctx *ctx, const demo_step *s, const void *in,
                                 void *out) {
  (void)s;
  (void)in;
  const skss_knapsack_instance *k = &d->knap;
  skss_knapsack_desc desc = SKSS_KNAPSACK_DESC_INIT;
  desc.n_items = k->n;
  desc.capacity = k->capacity;
  /* The paper's DP on the CPU too: its item rule makes every row's bytes
   * comparable (AUTO there is the core algorithm, any optimal set). */
  if (skss_ctx_op_backend(ctx, SKSS_OP_KNAPSACK) != SKSS_BACKEND_CUDA)
    desc.algorithm = SKSS_KNAPSACK_ALGORITHM_DP;
  return skss_knapsack(ctx, &desc, k->weights, k->values, out, (uint8_t *)out + sizeof(int64_t));
}

static void summarize_image(const demo *d, const void *result, char *buf, size_t size) {
  (void)result;
  snprintf(buf, size, "%lld x %lld", (long long)d->img.width, (long long)d->img.height);
}

static void summarize_boxfilter(const demo *d, const void *result, char *buf, size_t size) {
  (void)result;
  snprintf(buf, size, "%lld x %lld, radius %d", (long long)d->img.width, (long long)d->img.height,
           DEMO_RADIUS);
}

static void summarize_sat(const demo *d, const void *result, char *buf, size_t size) {
  (void)result;
  snprintf(buf, size, "%lld x %lld, u8:u32", (long long)d->img.width, (long long)d->img.height);
}

static void summarize_compact(const demo *d, const void *result, char *buf, size_t size) {
  int64_t count;
  memcpy(&count, result, sizeof count);
  snprintf(buf, size, "%lld pixels > %d: %lld kept, with their indices", (long long)image_bytes(d),
           DEMO_BRIGHT, (long long)count);
}

static void summarize_knapsack(const demo *d, const void *result, char *buf, size_t size) {
  const skss_knapsack_instance *k = &d->knap;
  const uint8_t *taken = (const uint8_t *)result + sizeof(int64_t);
  int64_t value, chosen = 0;
  memcpy(&value, result, sizeof value);
  for (int64_t j = 0; j < k->n; j++) chosen += taken[j] != 0;
  snprintf(buf, size, "%lld items, capacity %lld: value %lld, %lld chosen", (long long)k->n,
           (long long)k->capacity, (long long)value, (long long)chosen);
}

static int write_bilevel(const demo *d, const void *result, const char *path, char err[SKSS_IO_ERRLEN]) {
  return skss_image_write(path, SKSS_IMAGE_PNG_BIT, result, d->img.width, d->img.height, err);
}

static int write_gray(const demo *d, const void *result, const char *path, char err[SKSS_IO_ERRLEN]) {
  return skss_image_write(path, SKSS_IMAGE_PNG_GRAY8, result, d->img.width, d->img.height, err);
}

static int write_sat(const demo *d, const void *result, const char *path, char err[SKSS_IO_ERRLEN]) {
  const int64_t shape[2] = {d->img.height, d->img.width};
  return skss_npy_write(path, SKSS_DTYPE_U32, 2, shape, result, err);
}

/* The solution as text: value, weight, then the chosen ids, one per line. */
static int write_solution(const demo *d, const void *result, const char *path, char err[SKSS_IO_ERRLEN]) {
  const skss_knapsack_instance *k = &d->knap;
  const uint8_t *taken = (const uint8_t *)result + sizeof(int64_t);
  int64_t value, weight = 0;
  memcpy(&value, result, sizeof value);
  size_t cap = 64 + 24 * (size_t)k->n, len;
  char *text = malloc(cap);
  if (text == NULL) {
    snprintf(err, SKSS_IO_ERRLEN, "out of memory");
    return -1;
  }
  for (int64_t j = 0; j < k->n; j++) weight += taken[j] ? k->weights[j] : 0;
  len = (size_t)snprintf(text, cap, "value %lld\nweight %lld\n", (long long)value, (long long)weight);
  for (int64_t j = 0; j < k->n; j++)
    if (taken[j]) len += (size_t)snprintf(text + len, cap - len, "%lld\n", (long long)k->ids[j]);
  int rc = skss_write_file_atomic(path, text, len, err);
  free(text);
  return rc;
}

static const demo_step STEPS[] = {
    {"halftone fs", SKSS_OP_HALFTONE, "astronaut_fs.png", SKSS_DITHER_KERNEL_FLOYD_STEINBERG, SKSS_DTYPE_U8,
     image_bytes, call_halftone, summarize_image, write_bilevel},
    {"halftone jjn", SKSS_OP_HALFTONE, "astronaut_jjn.png", SKSS_DITHER_KERNEL_JARVIS_JUDICE_NINKE,
     SKSS_DTYPE_U8, image_bytes, call_halftone, summarize_image, write_bilevel},
    {"boxfilter", SKSS_OP_SAT, "astronaut_box8.png", 0, SKSS_DTYPE_U8, image_bytes, call_boxfilter,
     summarize_boxfilter, write_gray},
    {"sat", SKSS_OP_SAT, "astronaut_sat.npy", 0, SKSS_DTYPE_U32, sat_bytes, call_sat, summarize_sat,
     write_sat},
    {"compact", SKSS_OP_COMPACT, NULL, 0, 0, compact_bytes, call_compact, summarize_compact, NULL},
    {"knapsack", SKSS_OP_KNAPSACK, "knapsack_sc_1000_solution.txt", 0, 0, knapsack_bytes, call_knapsack,
     summarize_knapsack, write_solution},
};
#define N_STEPS (sizeof STEPS / sizeof STEPS[0])
_Static_assert(N_STEPS <= N_STEPS_MAX, "demo.results holds a line per step");

/* -------------------------------------------------------------- set-up */

static int has_data(const char *dir) {
  char path[PATH_MAX];
  int n = snprintf(path, sizeof path, "%s/%s", dir, DEMO_IMAGE);
  return n > 0 && (size_t)n < sizeof path && access(path, R_OK) == 0;
}

/* ../share/skss beside the running executable. */
static int installed_data_dir(char *out, size_t size) {
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0;
  exe[n] = '\0';
  char *slash = strrchr(exe, '/');
  if (slash == NULL) return 0;
  *slash = '\0';
  return snprintf(out, size, "%s/../share/skss", exe) < (int)size;
}

static int use_data_dir(demo *d, const char *dir) {
  if (dir == NULL || !has_data(dir)) return 0;
  snprintf(d->data_dir, sizeof d->data_dir, "%s", dir);
  return 1;
}

static int find_data_dir(demo *d) {
  char installed[PATH_MAX];
  const char *source_dir = NULL;
#ifdef SKSS_SOURCE_DATA_DIR
  source_dir = SKSS_SOURCE_DATA_DIR;
#endif
  if (d->data_option != NULL)
    return use_data_dir(d, d->data_option)
               ? EX_OK
               : cli_fail(&d->cmd, EX_NOINPUT, "--data %s: no %s there", d->data_option, DEMO_IMAGE);
  if (use_data_dir(d, getenv("SKSS_DATA_DIR")) || use_data_dir(d, source_dir) ||
      (installed_data_dir(installed, sizeof installed) && use_data_dir(d, installed)) ||
      use_data_dir(d, "data"))
    return EX_OK;
  return cli_fail(&d->cmd, EX_NOINPUT, "cannot find the bundled %s: give --data DIR or set SKSS_DATA_DIR",
                  DEMO_IMAGE);
}

static int load_inputs(demo *d) {
  char path[PATH_MAX + 32];
  uint8_t *text;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  snprintf(path, sizeof path, "%s/%s", d->data_dir, DEMO_IMAGE);
  int rc = cli_read_image(&d->cmd, path, &d->img);
  snprintf(path, sizeof path, "%s/%s", d->data_dir, DEMO_KNAPSACK);
  if (rc == EX_OK) rc = cli_read_input(&d->cmd, path, &text, &size);
  if (rc != EX_OK) return rc;
  if (skss_knapsack_parse((const char *)text, size, -1, &d->knap, err) != 0)
    rc = cli_fail(&d->cmd, EX_DATAERR, "%s: %s", path, err);
  free(text);
  return rc;
}

static int make_out_dir(const demo *d) {
  struct stat st;
  if (mkdir(d->out_dir, 0777) == 0 || (errno == EEXIST && stat(d->out_dir, &st) == 0 && S_ISDIR(st.st_mode)))
    return EX_OK;
  return cli_fail(&d->cmd, EX_CANTCREAT, "cannot create directory %s: %s", d->out_dir,
                  errno == EEXIST ? "a file is in the way" : strerror(errno));
}

static int new_context(demo *d, skss_backend backend, int threads, void *stream, skss_ctx **ctx) {
  skss_ctx_desc desc = SKSS_CTX_DESC_INIT;
  desc.backend = backend;
  desc.threads = threads;
  desc.cuda_stream = stream;
  skss_status st = skss_ctx_create(&desc, ctx);
  if (st != SKSS_OK)
    return cli_fail(&d->cmd,
                    st == SKSS_ERR_UNSUPPORTED || st == SKSS_ERR_NO_DEVICE ? EX_UNAVAILABLE : EX_SOFTWARE,
                    "cannot create a %s context: %s", skss_backend_name(backend), skss_ctx_last_error(NULL));
  d->ctxs[d->n_ctxs++] = *ctx;
  return EX_OK;
}

static void add_lane(demo *d, skss_ctx *ctx, int device_data) {
  d->lanes[d->n_lanes++] = (demo_lane){ctx, device_data};
}

/* cpu-ref always (every speedup is over it); then cpu, then, when a device
 * is present, an auto context on the device's timing stream, whose CUDA
 * rows run twice: on device buffers and on the host buffers. --backend B
 * keeps cpu-ref and B. */
static int make_lanes(demo *d) {
  int64_t threads = 0;
  skss_backend only = SKSS_BACKEND_AUTO;
  int rc = cli_option_i64(&d->cmd, "--threads", d->cmd.threads, 0, 1024, &threads);
  if (rc != EX_OK) return rc;
  if (d->cmd.backend != NULL && skss_backend_from_name(d->cmd.backend, &only) != SKSS_OK)
    return cli_fail(&d->cmd, EX_USAGE, "unknown backend '%s' (known: auto, cpu-ref, cpu, cuda)",
                    d->cmd.backend);
  int want_cpu = d->cmd.backend == NULL || only == SKSS_BACKEND_CPU;
  int want_gpu = d->cmd.backend == NULL ? skss_backend_available(SKSS_BACKEND_CUDA)
                                        : only == SKSS_BACKEND_CUDA || only == SKSS_BACKEND_AUTO;
  skss_ctx *ctx;
  rc = new_context(d, SKSS_BACKEND_CPU_REF, 1, NULL, &ctx);
  if (rc != EX_OK) return rc;
  add_lane(d, ctx, 0);
  if (want_cpu) {
    if ((rc = new_context(d, SKSS_BACKEND_CPU, (int)threads, NULL, &ctx)) != EX_OK) return rc;
    add_lane(d, ctx, 0);
  }
  if (!want_gpu) return EX_OK;
  char err[BENCH_ERRLEN];
  if (skss_backend_available(SKSS_BACKEND_CUDA) && bench_gpu_open(&d->gpu, err) != 0)
    return cli_fail(&d->cmd, EX_UNAVAILABLE, "cannot open the CUDA device: %s", err);
  void *stream = d->gpu != NULL ? bench_gpu_stream(d->gpu) : NULL;
  if ((rc = new_context(d, only == SKSS_BACKEND_CUDA ? only : SKSS_BACKEND_AUTO, (int)threads, stream,
                        &ctx)) != EX_OK)
    return rc;
  if (skss_ctx_backend(ctx) == SKSS_BACKEND_CUDA) add_lane(d, ctx, 1);
  add_lane(d, ctx, 0);
  return EX_OK;
}

/* ------------------------------------------------------------- one row */

typedef struct demo_row {
  char backend[48]; /* as it ran: "cuda, device data", "cpu (no cuda kernel yet)" */
  const char *ran;  /* backend name; NULL: no backend of the lane has the step */
  int threads;      /* CPU threads that ran it; 0 on cuda */
  int device_data;  /* timed on device buffers */
  double ms;        /* median */
  int runs;
} demo_row;

/* One timed call (bench_measure's body). */
typedef struct demo_call {
  const demo *d;
  skss_ctx *ctx;
  const demo_step *s;
  const void *in;
  void *out;
  skss_status status;
} demo_call;

static int call_body(void *arg) {
  demo_call *c = arg;
  c->status = c->s->call(c->d, c->ctx, c->s, c->in, c->out);
  return c->status != SKSS_OK;
}

/* Names the backend a row runs on, as the table shows it. */
static void label_row(const demo_lane *lane, skss_backend ran, demo_row *row) {
  skss_backend main = skss_ctx_backend(lane->ctx);
  int threads = skss_ctx_threads(lane->ctx);
  const char *plural = threads == 1 ? "" : "s";
  row->ran = ran == SKSS_BACKEND_AUTO ? NULL : skss_backend_name(ran);
  row->threads = ran == SKSS_BACKEND_CUDA || ran == SKSS_BACKEND_AUTO ? 0 : threads;
  row->device_data = lane->device_data;
  if (ran == SKSS_BACKEND_AUTO)
    snprintf(row->backend, sizeof row->backend, "%s (no kernel yet)", skss_backend_name(main));
  else if (ran == SKSS_BACKEND_CUDA)
    snprintf(row->backend, sizeof row->backend, "cuda, %s", lane->device_data ? "device data" : "end to end");
  else if (main == SKSS_BACKEND_CUDA)
    snprintf(row->backend, sizeof row->backend, "cpu, %d thread%s (no cuda kernel yet)", threads, plural);
  else if (ran == SKSS_BACKEND_CPU)
    snprintf(row->backend, sizeof row->backend, "cpu, %d thread%s", threads, plural);
  else
    snprintf(row->backend, sizeof row->backend, "cpu-ref");
}

static bench_plan row_plan(const demo *d) { return d->quick ? DEMO_QUICK_PLAN : DEMO_PLAN; }

/* A host row: the checked call (also the warm-up), then the timed runs.
 * The first row's result is kept in *first; later rows must equal it. */
static int run_host_row(demo *d, const demo_lane *lane, const demo_step *s, void **first, demo_row *row) {
  size_t bytes = s->out_bytes(d);
  demo_call c = {d, lane->ctx, s, d->img.pixels, calloc(1, bytes ? bytes : 1), SKSS_OK};
  if (c.out == NULL) return cli_fail(&d->cmd, EX_OSERR, "out of memory");
  int rc = EX_OK;
  bench_stats t;
  bench_plan plan = row_plan(d);
  if (call_body(&c) != 0) {
    rc = cli_fail_status(&d->cmd, lane->ctx, c.status);
  } else if (*first != NULL && memcmp(c.out, *first, bytes) != 0) {
    rc = cli_fail(&d->cmd, EX_SOFTWARE, "%s on %s differs from cpu-ref", s->label, row->backend);
  } else if (bench_measure(call_body, &c, &plan, &t) != 0) {
    rc = c.status != SKSS_OK ? cli_fail_status(&d->cmd, lane->ctx, c.status)
                             : cli_fail(&d->cmd, EX_OSERR, "out of memory");
  } else {
    row->ms = t.median_s * 1e3;
    row->runs = t.runs;
  }
  if (rc == EX_OK && *first == NULL) {
    *first = c.out;
    c.out = NULL;
  }
  free(c.out);
  return rc;
}

static int gpu_error(demo *d, const char *err) { return cli_fail(&d->cmd, EX_SOFTWARE, "%s", err); }

/* Waits for the device's queued calls and reports a deferred error. */
static int synchronize(demo *d, skss_ctx *ctx) {
  skss_status st = skss_ctx_synchronize(ctx);
  return st == SKSS_OK ? EX_OK : cli_fail_status(&d->cmd, ctx, st);
}

/* A device row: the image and the cpu-ref result on the device, the output
 * poisoned, one checked call, then the timed runs (CUDA events). */
static int run_device_row(demo *d, const demo_lane *lane, const demo_step *s, const void *first,
                          demo_row *row) {
  size_t in_bytes = image_bytes(d), bytes = s->out_bytes(d);
  char err[BENCH_ERRLEN];
  void *in = bench_gpu_alloc(in_bytes, err), *out = NULL, *ref = NULL;
  if (in != NULL) out = bench_gpu_alloc(bytes, err);
  if (out != NULL) ref = bench_gpu_alloc(bytes, err);
  int rc = ref == NULL ? gpu_error(d, err) : EX_OK;
  if (rc == EX_OK && (bench_gpu_upload(d->gpu, in, d->img.pixels, in_bytes, err) != 0 ||
                      bench_gpu_upload(d->gpu, ref, first, bytes, err) != 0 ||
                      bench_gpu_fill(d->gpu, out, 0xA5, bytes, err) != 0))
    rc = gpu_error(d, err);
  demo_call c = {d, lane->ctx, s, in, out, SKSS_OK};
  if (rc == EX_OK && call_body(&c) != 0) rc = cli_fail_status(&d->cmd, lane->ctx, c.status);
  if (rc == EX_OK) rc = synchronize(d, lane->ctx);
  if (rc == EX_OK) {
    int64_t h = d->img.height, w = d->img.width;
    const bench_tolerance exact = {0, 0, 0};
    int same = s->device_out == SKSS_DTYPE_U8
                   ? bench_gpu_check_bytes(d->gpu, out, ref, h, w, err)
                   : bench_gpu_check(d->gpu, s->device_out, out, ref, h, w, &exact, err);
    if (same != 0)
      rc = cli_fail(&d->cmd, EX_SOFTWARE, "%s on %s differs from cpu-ref: %s", s->label, row->backend, err);
  }
  bench_stats t;
  bench_plan plan = row_plan(d);
  if (rc == EX_OK) {
    int measured = bench_gpu_measure(d->gpu, call_body, &c, &plan, &t, err);
    if (measured < 0)
      rc = gpu_error(d, err);
    else if (measured > 0)
      rc = cli_fail_status(&d->cmd, lane->ctx, c.status);
  }
  if (rc == EX_OK) rc = synchronize(d, lane->ctx);
  if (rc == EX_OK) {
    row->ms = t.median_s * 1e3;
    row->runs = t.runs;
  }
  bench_gpu_free(in);
  bench_gpu_free(out);
  bench_gpu_free(ref);
  return rc;
}

/* ------------------------------------------------------------ the table */

/* cJSON reports a failed allocation by a NULL result. */
static cJSON *json_check(demo *d, cJSON *item) {
  if (item == NULL) d->json_failed = 1;
  return item;
}

static double rounded(double x, double unit) { return round(x / unit) * unit; }

static void print_row(demo *d, const demo_step *s, const demo_row *row, double ref_ms, cJSON *json_rows) {
  double speedup = row->ran != NULL && row->ms > 0 ? ref_ms / row->ms : 0;
  if (json_rows != NULL) {
    cJSON *r = json_check(d, cJSON_CreateObject());
    if (r == NULL || !cJSON_AddItemToArray(json_rows, r)) {
      cJSON_Delete(r);
      d->json_failed = 1;
      return;
    }
    json_check(d, cJSON_AddStringToObject(r, "backend", row->backend));
    json_check(d, row->ran != NULL ? cJSON_AddStringToObject(r, "ran_on", row->ran)
                                   : cJSON_AddNullToObject(r, "ran_on"));
    json_check(d, cJSON_AddNumberToObject(r, "threads", row->threads));
    json_check(d, cJSON_AddStringToObject(r, "data", row->device_data ? "device" : "host"));
    if (row->ran == NULL) {
      json_check(d, cJSON_AddNullToObject(r, "time_ms"));
      json_check(d, cJSON_AddNullToObject(r, "speedup_vs_cpu_ref"));
    } else {
      json_check(d, cJSON_AddNumberToObject(r, "time_ms", rounded(row->ms, 1e-6)));
      json_check(d, cJSON_AddNumberToObject(r, "speedup_vs_cpu_ref", rounded(speedup, 1e-3)));
    }
    json_check(d, cJSON_AddNumberToObject(r, "runs", row->runs));
    return;
  }
  if (row->ran == NULL)
    printf("  %-13s %-38s %11s %10s\n", s->label, row->backend, "-", "-");
  else if (row->ms < 1)
    printf("  %-13s %-38s %8.1f us %9.1fx\n", s->label, row->backend, row->ms * 1e3, speedup);
  else
    printf("  %-13s %-38s %8.2f ms %9.1fx\n", s->label, row->backend, row->ms, speedup);
}

/* Runs one step on every lane: cpu-ref first, whose result is written. */
static int run_step(demo *d, const demo_step *s, cJSON *json_steps, char *result_line, size_t size) {
  void *first = NULL;
  double ref_ms = 0;
  cJSON *json_rows = NULL;
  if (json_steps != NULL) {
    cJSON *step = json_check(d, cJSON_CreateObject());
    if (step == NULL || !cJSON_AddItemToArray(json_steps, step)) {
      cJSON_Delete(step);
      return cli_fail(&d->cmd, EX_OSERR, "out of memory");
    }
    json_check(d, cJSON_AddStringToObject(step, "step", s->label));
    json_rows = json_check(d, cJSON_AddArrayToObject(step, "rows"));
    if (json_rows == NULL) return cli_fail(&d->cmd, EX_OSERR, "out of memory");
  }
  int rc = EX_OK;
  for (int l = 0; l < d->n_lanes && rc == EX_OK; l++) {
    const demo_lane *lane = &d->lanes[l];
    skss_backend ran = skss_ctx_op_backend(lane->ctx, s->op);
    /* a device lane times only what CUDA runs on device buffers */
    if (lane->device_data && (ran != SKSS_BACKEND_CUDA || s->device_out == 0)) continue;
    demo_row row = {0};
    label_row(lane, ran, &row);
    if (row.ran != NULL)
      rc = lane->device_data ? run_device_row(d, lane, s, first, &row)
                             : run_host_row(d, lane, s, &first, &row);
    if (rc != EX_OK) break;
    if (l == 0) ref_ms = row.ms;
    print_row(d, s, &row, ref_ms, json_rows);
  }
  char summary[128], path[PATH_MAX + 64], err[SKSS_IO_ERRLEN];
  if (rc == EX_OK) {
    s->summarize(d, first, summary, sizeof summary);
    path[0] = '\0';
    if (s->file != NULL) snprintf(path, sizeof path, "%s/%s", d->out_dir, s->file);
    if (s->file != NULL && s->write(d, first, path, err) != 0)
      rc = cli_fail(&d->cmd, EX_CANTCREAT, "%s", err);
    snprintf(result_line, size, "  %-13s %s%s%s", s->label, summary, path[0] ? " -> " : "", path);
    if (json_steps != NULL) {
      cJSON *step = cJSON_GetArrayItem(json_steps, cJSON_GetArraySize(json_steps) - 1);
      json_check(d, cJSON_AddStringToObject(step, "summary", summary));
      json_check(
          d, path[0] ? cJSON_AddStringToObject(step, "output", path) : cJSON_AddNullToObject(step, "output"));
    }
  }
  free(first);
  return rc;
}

static int print_json(demo *d) {
  char *text = d->json_failed ? NULL : cJSON_PrintUnformatted(d->json);
  if (text == NULL) return cli_fail(&d->cmd, EX_OSERR, "out of memory");
  int ok = printf("%s\n", text) >= 0;
  cJSON_free(text);
  return ok ? EX_OK : cli_fail(&d->cmd, EX_IOERR, "cannot write to stdout: %s", strerror(errno));
}

static int run_all(demo *d) {
  cJSON *json_steps = NULL;
  const char *timing =
      d->quick ? "one run after a warm-up call (--quick)" : "the median of 5 to 15 runs after a warm-up call";
  if (d->cmd.json) {
    d->json = json_check(d, cJSON_CreateObject());
    if (d->json == NULL) return cli_fail(&d->cmd, EX_OSERR, "out of memory");
    json_check(d, cJSON_AddStringToObject(d->json, "command", "demo"));
    json_check(d, cJSON_AddStringToObject(d->json, "data", d->data_dir));
    json_check(d, cJSON_AddStringToObject(d->json, "out", d->out_dir));
    json_check(d, cJSON_AddStringToObject(d->json, "timing", timing));
    json_steps = json_check(d, cJSON_AddArrayToObject(d->json, "steps"));
    if (json_steps == NULL) return cli_fail(&d->cmd, EX_OSERR, "out of memory");
  } else {
    printf("skss demo: data from %s, results in %s/\n", d->data_dir, d->out_dir);
    printf("times: %s; speedups over cpu-ref\n", timing);
    if (d->gpu != NULL)
      printf("cuda rows: device data timed with CUDA events, end to end with the host copies\n");
    printf("\n");
    printf("  %-13s %-38s %11s %10s\n", "primitive", "backend", "time", "vs cpu-ref");
    fflush(stdout);
  }
  int rc = EX_OK;
  for (size_t k = 0; k < N_STEPS && rc == EX_OK; k++) {
    rc = run_step(d, &STEPS[k], json_steps, d->results[k], sizeof d->results[k]);
    fflush(stdout);
  }
  if (rc == EX_OK && d->cmd.json) return print_json(d);
  if (rc == EX_OK) {
    printf("\nresults (every backend gave the same bytes):\n");
    for (size_t k = 0; k < N_STEPS; k++) printf("%s\n", d->results[k]);
  }
  return rc;
}

static int parse_args(demo *d, int argc, char **argv) {
  const cli_opt opts[] = {
      {"--out", 1, &d->out_dir, NULL},
      {"--data", 1, &d->data_option, NULL},
      {"--quick", 0, NULL, &d->quick},
  };
  d->out_dir = "out";
  return cli_parse(&d->cmd, argc, argv, CLI_OPT_BACKEND | CLI_OPT_JSON, opts, sizeof opts / sizeof opts[0], 0,
                   0);
}

int skss_cmd_demo(int argc, char **argv) {
  demo *d = calloc(1, sizeof *d);
  if (d == NULL) return EX_OSERR;
  d->cmd = (cli_cmd){.name = "demo", .usage = USAGE};
  int rc = parse_args(d, argc, argv);
  if (rc == EX_OK && !d->cmd.help) {
    rc = find_data_dir(d);
    if (rc == EX_OK) rc = load_inputs(d);
    if (rc == EX_OK) rc = make_out_dir(d);
    if (rc == EX_OK) rc = make_lanes(d);
    if (rc == EX_OK) rc = run_all(d);
  }
  for (int k = 0; k < d->n_ctxs; k++) skss_ctx_destroy(d->ctxs[k]);
  bench_gpu_close(d->gpu);
  cJSON_Delete(d->json);
  skss_image_free(&d->img);
  skss_knapsack_instance_free(&d->knap);
  free(d);
  return rc;
}
