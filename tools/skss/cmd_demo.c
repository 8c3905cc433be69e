/*
 * cmd_demo.c — `skss demo`: the README's tour. Halftones the bundled
 * photograph (Floyd-Steinberg and Jarvis-Judice-Ninke), box-filters it,
 * computes its summed-area table and solves the bundled knapsack instance,
 * on the CPU backend and on CUDA when a device is present; writes the first
 * backend's results to the output directory, checks that every other
 * backend gives the same bytes, and prints each step's time (library call
 * alone). The data directory is --data, else $SKSS_DATA_DIR, else the source
 * tree's data/ (SKSS_SOURCE_DATA_DIR at compile time), else ../share/skss
 * next to the executable, else ./data.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss demo [options]\n\n"
    "Runs every primitive on the bundled data: halftones the photograph\n"
    "astronaut.png with Floyd-Steinberg and Jarvis-Judice-Ninke, box-filters\n"
    "it (radius 8), computes its summed-area table (u8:u32) and solves the\n"
    "knapsack instance knapsack_sc_1000.txt; on the cpu backend and on cuda when\n"
    "a device is present (other backends must give the same bytes). Writes the\n"
    "results to the output directory and prints how long each step took.\n\n"
    "  --out DIR        output directory (default: out), created if missing\n"
    "  --data DIR       where astronaut.png and knapsack_sc_1000.txt are (default:\n"
    "                   $SKSS_DATA_DIR, else the source tree's data/, else\n"
    "                   ../share/skss next to the executable, else ./data)\n"
    "  --backend B      run on this backend only (cpu-ref, cpu, cuda)\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --json           print the steps as one JSON object\n";

#define DEMO_IMAGE "astronaut.png"
#define DEMO_KNAPSACK "knapsack_sc_1000.txt"
#define DEMO_RADIUS 8

typedef struct demo demo;

/* One step's result: bytes to compare across backends, and a summary. */
typedef struct demo_result {
  void *data;
  size_t bytes;
  double ms; /* the library call */
  char summary[128];
} demo_result;

typedef struct demo_step {
  const char *label; /* "halftone fs" */
  const char *file;  /* written under the output directory */
  int param;         /* kernel, or 0 */
  skss_status (*run)(const demo *d, skss_ctx *ctx, const struct demo_step *s, demo_result *r);
  int (*write)(const demo *d, const demo_result *r, const char *path, char err[SKSS_IO_ERRLEN]);
} demo_step;

struct demo {
  cli_cmd cmd;
  const char *out_dir, *data_option;
  char data_dir[PATH_MAX];
  skss_image img;
  skss_knapsack_instance knap;
  cli_json json;
};

/* ----------------------------------------------------------- the steps */

static int alloc_result(demo_result *r, size_t bytes) {
  r->data = malloc(bytes ? bytes : 1);
  r->bytes = bytes;
  return r->data != NULL;
}

static skss_status run_halftone(const demo *d, skss_ctx *ctx, const demo_step *s, demo_result *r) {
  if (!alloc_result(r, (size_t)(d->img.width * d->img.height))) return SKSS_ERR_OUT_OF_MEMORY;
  skss_halftone_desc desc = SKSS_HALFTONE_DESC_INIT;
  desc.height = d->img.height;
  desc.width = d->img.width;
  desc.kernel = (skss_dither_kernel)s->param;
  snprintf(r->summary, sizeof r->summary, "%lld x %lld", (long long)d->img.width,
           (long long)d->img.height);
  double t0 = cli_now_ms();
  skss_status st = skss_halftone(ctx, &desc, d->img.pixels, r->data);
  r->ms = cli_now_ms() - t0;
  return st;
}

static skss_status run_boxfilter(const demo *d, skss_ctx *ctx, const demo_step *s, demo_result *r) {
  (void)s;
  if (!alloc_result(r, (size_t)(d->img.width * d->img.height))) return SKSS_ERR_OUT_OF_MEMORY;
  skss_boxfilter_desc desc = SKSS_BOXFILTER_DESC_INIT;
  desc.height = d->img.height;
  desc.width = d->img.width;
  desc.radius = DEMO_RADIUS;
  snprintf(r->summary, sizeof r->summary, "%lld x %lld, radius %d", (long long)d->img.width,
           (long long)d->img.height, DEMO_RADIUS);
  double t0 = cli_now_ms();
  skss_status st = skss_boxfilter_u8(ctx, &desc, d->img.pixels, r->data);
  r->ms = cli_now_ms() - t0;
  return st;
}

static skss_status run_sat(const demo *d, skss_ctx *ctx, const demo_step *s, demo_result *r) {
  (void)s;
  if (!alloc_result(r, (size_t)(d->img.width * d->img.height) * sizeof(uint32_t)))
    return SKSS_ERR_OUT_OF_MEMORY;
  skss_sat_desc desc = SKSS_SAT_DESC_INIT;
  desc.height = d->img.height;
  desc.width = d->img.width;
  snprintf(r->summary, sizeof r->summary, "%lld x %lld, u8:u32", (long long)d->img.width,
           (long long)d->img.height);
  double t0 = cli_now_ms();
  skss_status st = skss_sat(ctx, &desc, d->img.pixels, r->data, NULL);
  r->ms = cli_now_ms() - t0;
  return st;
}

/* The knapsack result bytes: the optimal value, then one byte per item. */
static skss_status run_knapsack(const demo *d, skss_ctx *ctx, const demo_step *s, demo_result *r) {
  (void)s;
  const skss_knapsack_instance *k = &d->knap;
  if (!alloc_result(r, sizeof(int64_t) + (size_t)k->n)) return SKSS_ERR_OUT_OF_MEMORY;
  skss_knapsack_desc desc = SKSS_KNAPSACK_DESC_INIT;
  desc.n_items = k->n;
  desc.capacity = k->capacity;
  int64_t value = 0;
  uint8_t *taken = (uint8_t *)r->data + sizeof value;
  double t0 = cli_now_ms();
  skss_status st = skss_knapsack(ctx, &desc, k->weights, k->values, &value, taken);
  r->ms = cli_now_ms() - t0;
  memcpy(r->data, &value, sizeof value);
  int64_t chosen = 0;
  for (int64_t j = 0; j < k->n; j++) chosen += taken[j] != 0;
  snprintf(r->summary, sizeof r->summary, "%lld items, capacity %lld: value %lld, %lld chosen",
           (long long)k->n, (long long)k->capacity, (long long)value, (long long)chosen);
  return st;
}

static int write_bilevel(const demo *d, const demo_result *r, const char *path, char err[SKSS_IO_ERRLEN]) {
  return skss_image_write(path, SKSS_IMAGE_PNG_BIT, r->data, d->img.width, d->img.height, err);
}

static int write_gray(const demo *d, const demo_result *r, const char *path, char err[SKSS_IO_ERRLEN]) {
  return skss_image_write(path, SKSS_IMAGE_PNG_GRAY8, r->data, d->img.width, d->img.height, err);
}

static int write_sat(const demo *d, const demo_result *r, const char *path, char err[SKSS_IO_ERRLEN]) {
  const int64_t shape[2] = {d->img.height, d->img.width};
  return skss_npy_write(path, SKSS_DTYPE_U32, 2, shape, r->data, err);
}

/* The solution as text: value, weight, then the chosen ids, one per line. */
static int write_solution(const demo *d, const demo_result *r, const char *path, char err[SKSS_IO_ERRLEN]) {
  const skss_knapsack_instance *k = &d->knap;
  const uint8_t *taken = (const uint8_t *)r->data + sizeof(int64_t);
  int64_t value, weight = 0;
  memcpy(&value, r->data, sizeof value);
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
    {"halftone fs", "astronaut_fs.png", SKSS_DITHER_KERNEL_FLOYD_STEINBERG, run_halftone, write_bilevel},
    {"halftone jjn", "astronaut_jjn.png", SKSS_DITHER_KERNEL_JARVIS_JUDICE_NINKE, run_halftone, write_bilevel},
    {"boxfilter", "astronaut_box8.png", 0, run_boxfilter, write_gray},
    {"sat", "astronaut_sat.npy", 0, run_sat, write_sat},
    {"knapsack", "knapsack_sc_1000_solution.txt", 0, run_knapsack, write_solution},
};
#define N_STEPS (sizeof STEPS / sizeof STEPS[0])

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
  return cli_fail(&d->cmd, EX_NOINPUT,
                  "cannot find the bundled %s: give --data DIR or set SKSS_DATA_DIR", DEMO_IMAGE);
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

/* ------------------------------------------------------------- running */

static void print_step(demo *d, const skss_ctx *ctx, const demo_step *s, const demo_result *r,
                       const char *outcome) {
  if (!d->cmd.json) {
    printf("  %-13s %-52s %10.3f ms  %s\n", s->label, r->summary, r->ms, outcome);
    return;
  }
  cli_json_begin(&d->json, '{');
  cli_json_kv_string(&d->json, "step", s->label);
  cli_json_kv_string(&d->json, "backend", skss_backend_name(skss_ctx_backend(ctx)));
  cli_json_kv_int(&d->json, "threads", skss_ctx_threads(ctx));
  cli_json_kv_string(&d->json, "summary", r->summary);
  cli_json_kv_ms(&d->json, "time_ms", r->ms);
  cli_json_kv_string(&d->json, "result", outcome);
  cli_json_end(&d->json, '}');
}

/* The first backend's result is written out and kept for the others. */
static int save_first(demo *d, const demo_step *s, demo_result *r, demo_result *first,
                      char *outcome, size_t size) {
  char err[SKSS_IO_ERRLEN], path[PATH_MAX];
  snprintf(path, sizeof path, "%s/%s", d->out_dir, s->file);
  snprintf(outcome, size, "-> %s", path);
  int rc = s->write(d, r, path, err) == 0 ? EX_OK : cli_fail(&d->cmd, EX_CANTCREAT, "%s", err);
  *first = *r;
  r->data = NULL;
  return rc;
}

static int compare_first(demo *d, const demo_step *s, const demo_result *r, const demo_result *first,
                         char *outcome, size_t size) {
  int same = r->bytes == first->bytes && memcmp(r->data, first->data, r->bytes) == 0;
  snprintf(outcome, size, "%s", same ? "same as the first backend" : "DIFFERS");
  return same ? EX_OK : cli_fail(&d->cmd, EX_SOFTWARE, "%s: the backends disagree", s->label);
}

static int run_step(demo *d, skss_ctx *ctx, const demo_step *s, demo_result *first) {
  demo_result r = {0};
  char outcome[PATH_MAX + 32];
  skss_status st = s->run(d, ctx, s, &r);
  int rc = st != SKSS_OK          ? cli_fail_status(&d->cmd, ctx, st)
           : first->data == NULL ? save_first(d, s, &r, first, outcome, sizeof outcome)
                                 : compare_first(d, s, &r, first, outcome, sizeof outcome);
  if (rc == EX_OK) print_step(d, ctx, s, &r, outcome);
  free(r.data);
  return rc;
}

static int run_backend(demo *d, const char *backend, demo_result first[N_STEPS]) {
  cli_cmd one = d->cmd;
  one.backend = backend;
  skss_ctx *ctx;
  int rc = cli_context(&one, -1, &ctx, NULL);
  if (rc != EX_OK) return rc;
  int threads = skss_ctx_threads(ctx);
  if (!d->cmd.json)
    printf("backend %s (%d thread%s):\n", skss_backend_name(skss_ctx_backend(ctx)), threads,
           threads == 1 ? "" : "s");
  for (size_t k = 0; k < N_STEPS && rc == EX_OK; k++) rc = run_step(d, ctx, &STEPS[k], &first[k]);
  skss_ctx_destroy(ctx);
  return rc;
}

/* --backend B runs B alone; by default cpu, then cuda when usable. */
static int run_all(demo *d) {
  const char *backends[2] = {"cpu", "cuda"};
  int n = skss_backend_available(SKSS_BACKEND_CUDA) ? 2 : 1;
  if (d->cmd.backend != NULL) {
    backends[0] = d->cmd.backend;
    n = 1;
  }
  demo_result first[N_STEPS] = {{0}};
  int rc = EX_OK;
  if (d->cmd.json) {
    cli_json_key(&d->json, "steps");
    cli_json_begin(&d->json, '[');
  }
  for (int b = 0; b < n && rc == EX_OK; b++) rc = run_backend(d, backends[b], first);
  if (d->cmd.json) cli_json_end(&d->json, ']');
  for (size_t k = 0; k < N_STEPS; k++) free(first[k].data);
  return rc;
}

static int parse_args(demo *d, int argc, char **argv) {
  const cli_opt opts[] = {
      {"--out", 1, &d->out_dir, NULL},
      {"--data", 1, &d->data_option, NULL},
  };
  d->out_dir = "out";
  return cli_parse(&d->cmd, argc, argv, CLI_OPT_BACKEND | CLI_OPT_JSON, opts,
                   sizeof opts / sizeof opts[0], 0, 0);
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
    if (rc == EX_OK && d->cmd.json) {
      cli_json_init(&d->json, stdout);
      cli_json_begin(&d->json, '{');
      cli_json_kv_string(&d->json, "command", "demo");
      cli_json_kv_string(&d->json, "data", d->data_dir);
      cli_json_kv_string(&d->json, "out", d->out_dir);
    } else if (rc == EX_OK) {
      printf("skss demo: data from %s, results in %s/\n", d->data_dir, d->out_dir);
    }
    if (rc == EX_OK) rc = run_all(d);
    if (d->cmd.json && d->json.depth > 0) cli_json_end(&d->json, '}');
  }
  skss_image_free(&d->img);
  skss_knapsack_instance_free(&d->knap);
  free(d);
  return rc;
}
