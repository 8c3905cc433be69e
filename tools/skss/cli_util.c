/*
 * cli_util.c — option parsing, strict numbers, context setup, errors,
 * timing, staged outputs and JSON (through cJSON) for the skss subcommands
 * (see cli_util.h).
 */
#include "cli_util.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- errors */

static void print_line(const cli_cmd *c, const char *prefix, const char *fmt, va_list ap) {
  /* room for two paths and the io layer's message, so the reason is never cut */
  char msg[2 * PATH_MAX + SKSS_IO_ERRLEN];
  vsnprintf(msg, sizeof msg, fmt, ap);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  fprintf(stderr, "skss %s: %s%s\n", c->name, prefix, msg);
}

int cli_fail(const cli_cmd *c, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_line(c, "", fmt, ap);
  va_end(ap);
  return code;
}

void cli_warn(const cli_cmd *c, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  print_line(c, "warning: ", fmt, ap);
  va_end(ap);
}

static int status_exit_code(skss_status status) {
  switch (status) {
    case SKSS_OK: return EX_OK;
    case SKSS_ERR_INVALID_ARG:
    case SKSS_ERR_OVERFLOW: return EX_DATAERR;
    case SKSS_ERR_UNSUPPORTED:
    case SKSS_ERR_NO_DEVICE: return EX_UNAVAILABLE;
    case SKSS_ERR_OUT_OF_MEMORY: return EX_OSERR;
    case SKSS_ERR_CUDA:
    case SKSS_ERR_CALLBACK:
    case SKSS_ERR_INTERNAL: return EX_SOFTWARE;
    case SKSS_ERR_TIMEOUT: return EX_TEMPFAIL;
  }
  return EX_SOFTWARE;
}

int cli_fail_status(const cli_cmd *c, const skss_ctx *ctx, skss_status status) {
  const char *detail = skss_ctx_last_error(ctx);
  if (detail[0] == '\0') detail = skss_status_string(status);
  return cli_fail(c, status_exit_code(status), "%s", detail);
}

/* --------------------------------------------------------------- numbers */

int cli_parse_i64(const char *s, int64_t lo, int64_t hi, int64_t *out) {
  if (s == NULL || !(s[0] == '-' || s[0] == '+' || (s[0] >= '0' && s[0] <= '9'))) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) return -1;
  *out = (int64_t)v;
  return 0;
}

static int is_nonfinite_word(const char *s) {
  if (*s == '-' || *s == '+') s++;
  return strcmp(s, "nan") == 0 || strcmp(s, "inf") == 0;
}

int cli_parse_double(const char *s, int allow_nonfinite, double *out) {
  if (s == NULL || s[0] == '\0') return -1;
  if (is_nonfinite_word(s)) {
    if (!allow_nonfinite) return -1;
    double v = strstr(s, "nan") ? NAN : INFINITY;
    *out = s[0] == '-' ? -v : v;
    return 0;
  }
  /* Decimal only: a digit or a point must follow the optional sign (this
   * also refuses strtod's hex floats, "infinity" and leading blanks). */
  const char *p = s + (s[0] == '-' || s[0] == '+');
  if (!((*p >= '0' && *p <= '9') || *p == '.') || strpbrk(s, "xX") != NULL) return -1;
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (end == s || *end != '\0' || (errno == ERANGE && isinf(v) && !allow_nonfinite)) return -1;
  *out = v;
  return 0;
}

int cli_option_i64(const cli_cmd *c, const char *name, const char *text, int64_t lo, int64_t hi,
                   int64_t *out) {
  if (text == NULL) return EX_OK;
  if (cli_parse_i64(text, lo, hi, out) == 0) return EX_OK;
  return cli_fail(c, EX_USAGE, "option %s: '%s' is not an integer in %lld..%lld", name, text,
                  (long long)lo, (long long)hi);
}

/* ---------------------------------------------------------------- parser */

/* 'h' for --help, 'v' for --version (the first one given), else 0. */
static int wants_help(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--") == 0) return 0;
    if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) return 'h';
    if (strcmp(argv[k], "--version") == 0) return 'v';
  }
  return 0;
}

/* Where an option's values go: a subcommand option or a common one. */
typedef struct opt_target {
  int nvalues;
  const char **values;
  int *seen;
} opt_target;

static int find_common(cli_cmd *c, unsigned common, const char *name, opt_target *t) {
  static const char *const names[] = {"--backend", "--threads", "--algorithm", "--json", "--max-pixels"};
  const unsigned need[] = {CLI_OPT_BACKEND, CLI_OPT_BACKEND, CLI_OPT_ALGORITHM, CLI_OPT_JSON,
                           CLI_OPT_MAX_PIXELS};
  const char **slots[] = {&c->backend, &c->threads, &c->algorithm, NULL, &c->max_pixels_text};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    if ((common & need[k]) && strcmp(name, names[k]) == 0) {
      t->nvalues = slots[k] ? 1 : 0;
      t->values = slots[k];
      t->seen = slots[k] ? NULL : &c->json;
      return 1;
    }
  }
  return 0;
}

static int find_option(cli_cmd *c, unsigned common, const cli_opt *opts, size_t nopts,
                       const char *name, opt_target *t) {
  for (size_t k = 0; k < nopts; k++) {
    if (strcmp(name, opts[k].name) == 0) {
      *t = (opt_target){opts[k].nvalues, opts[k].values, opts[k].seen};
      return 1;
    }
  }
  return find_common(c, common, name, t);
}

/* Consumes option argv[*k] (with "=value" in `inline_value` if given). */
static int take_option(cli_cmd *c, const opt_target *t, const char *name, const char *inline_value,
                       int argc, char **argv, int *k) {
  if (inline_value != NULL && t->nvalues != 1)
    return cli_fail(c, EX_USAGE, "option %s does not take '=value'", name);
  if (inline_value != NULL) {
    t->values[0] = inline_value;
  } else {
    if (*k + t->nvalues >= argc)
      return cli_fail(c, EX_USAGE, "option %s needs %d value%s", name, t->nvalues,
                      t->nvalues == 1 ? "" : "s");
    for (int v = 0; v < t->nvalues; v++) t->values[v] = argv[*k + 1 + v];
    *k += t->nvalues;
  }
  if (t->seen != NULL) *t->seen = 1;
  return EX_OK;
}

static int parse_one_option(cli_cmd *c, unsigned common, const cli_opt *opts, size_t nopts,
                            int argc, char **argv, int *k) {
  char name[64];
  const char *arg = argv[*k];
  const char *eq = strchr(arg, '=');
  size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
  opt_target t;
  if (len >= sizeof name) len = sizeof name - 1;
  memcpy(name, arg, len);
  name[len] = '\0';
  if (!find_option(c, common, opts, nopts, name, &t))
    return cli_fail(c, EX_USAGE, "unknown option '%s' (see 'skss %s --help')", name, c->name);
  return take_option(c, &t, name, eq ? eq + 1 : NULL, argc, argv, k);
}

int cli_parse(cli_cmd *c, int argc, char **argv, unsigned common, const cli_opt *opts,
              size_t nopts, int min_pos, int max_pos) {
  c->common = common;
  int help = wants_help(argc, argv);
  if (help == 'h') fputs(c->usage, stdout);
  if (help == 'v') printf("skss %s\n", skss_version());
  if (help) {
    c->help = 1;
    return EX_OK;
  }
  int options_done = 0;
  for (int k = 1; k < argc; k++) {
    const char *arg = argv[k];
    if (!options_done && strcmp(arg, "--") == 0) {
      options_done = 1;
    } else if (!options_done && arg[0] == '-' && arg[1] != '\0') {
      int rc = parse_one_option(c, common, opts, nopts, argc, argv, &k);
      if (rc != EX_OK) return rc;
    } else {
      if (c->npos >= max_pos)
        return cli_fail(c, EX_USAGE, "unexpected argument '%s' (see 'skss %s --help')", arg,
                        c->name);
      c->pos[c->npos++] = arg;
    }
  }
  if (c->npos < min_pos)
    return cli_fail(c, EX_USAGE, "missing argument%s (see 'skss %s --help')",
                    min_pos - c->npos > 1 ? "s" : "", c->name);
  return cli_option_i64(c, "--max-pixels", c->max_pixels_text, 1, SKSS_IO_MAX_PIXELS, &c->max_pixels);
}

/* --------------------------------------------------------------- context */

static void list_algorithms(int op, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int a = 0; a < CLI_ALGORITHM_ID_LIMIT && used < size; a++) {
    const char *name = skss_algorithm_name((skss_op)op, a);
    if (name == NULL) continue;
    int n = snprintf(buf + used, size - used, "%s%s", used ? ", " : "", name);
    if (n < 0) break;
    used += (size_t)n;
  }
}

static int parse_algorithm(const cli_cmd *c, int op, int *algorithm) {
  *algorithm = 0;
  if (op < 0 || c->algorithm == NULL) return EX_OK;
  if (skss_algorithm_from_name((skss_op)op, c->algorithm, algorithm) == SKSS_OK) return EX_OK;
  char known[256];
  list_algorithms(op, known, sizeof known);
  return cli_fail(c, EX_USAGE, "unknown algorithm '%s' (known: %s)", c->algorithm, known);
}

static int parse_backend(const cli_cmd *c, skss_ctx_desc *desc) {
  int64_t threads = 0;
  int rc = cli_option_i64(c, "--threads", c->threads, 0, 1024, &threads);
  if (rc != EX_OK) return rc;
  desc->threads = (int)threads;
  if (c->backend != NULL && skss_backend_from_name(c->backend, &desc->backend) != SKSS_OK)
    return cli_fail(c, EX_USAGE, "unknown backend '%s' (known: auto, cpu-ref, cpu, cuda)",
                    c->backend);
  return EX_OK;
}

static int create_context(const cli_cmd *c, const skss_ctx_desc *desc, skss_ctx **ctx) {
  skss_status st = skss_ctx_create(desc, ctx);
  if (st == SKSS_OK) return EX_OK;
  if (st == SKSS_ERR_UNSUPPORTED)
    return cli_fail(c, EX_UNAVAILABLE, "backend '%s' is not built into this skss",
                    skss_backend_name(desc->backend));
  if (st == SKSS_ERR_NO_DEVICE)
    return cli_fail(c, EX_UNAVAILABLE, "backend '%s' has no usable device",
                    skss_backend_name(desc->backend));
  return cli_fail(c, status_exit_code(st), "cannot create a %s context: %s",
                  skss_backend_name(desc->backend), skss_status_string(st));
}

int cli_context(const cli_cmd *c, int op, skss_ctx **ctx, int *algorithm) {
  skss_ctx_desc desc = SKSS_CTX_DESC_INIT;
  int alg = 0;
  *ctx = NULL;
  int rc = parse_backend(c, &desc);
  if (rc == EX_OK) rc = parse_algorithm(c, op, &alg);
  if (rc == EX_OK) rc = create_context(c, &desc, ctx);
  if (rc != EX_OK) return rc;
  skss_backend backend = skss_ctx_backend(*ctx);
  if (op >= 0 && !skss_algorithm_supported((skss_op)op, alg, backend)) {
    skss_ctx_destroy(*ctx);
    *ctx = NULL;
    return cli_fail(c, EX_UNAVAILABLE, "the %s backend has no algorithm '%s'",
                    skss_backend_name(backend), skss_algorithm_name((skss_op)op, alg));
  }
  if (algorithm != NULL) *algorithm = alg;
  return EX_OK;
}

const char *cli_algorithm_label(const cli_cmd *c) { return c->algorithm ? c->algorithm : "auto"; }

void cli_print_run(FILE *out, const cli_cmd *c, const skss_ctx *ctx, double ms) {
  int threads = skss_ctx_threads(ctx);
  fprintf(out, "backend %s (%d thread%s), algorithm %s, %.3f ms\n",
          skss_backend_name(skss_ctx_backend(ctx)), threads, threads == 1 ? "" : "s",
          cli_algorithm_label(c), ms);
}

void cli_json_run(cli_json *j, const cli_cmd *c, const skss_ctx *ctx, double ms) {
  cli_json_kv_string(j, "backend", skss_backend_name(skss_ctx_backend(ctx)));
  cli_json_kv_int(j, "threads", skss_ctx_threads(ctx));
  cli_json_kv_string(j, "algorithm", cli_algorithm_label(c));
  cli_json_kv_ms(j, "time_ms", ms);
}

/* ----------------------------------------------------------------- input */

int cli_io_exit_code(int io_rc, int otherwise) { return io_rc == SKSS_IO_ERR_NOMEM ? EX_OSERR : otherwise; }

int cli_write_exit_code(int io_rc, const char *path) {
  return cli_io_exit_code(io_rc, strcmp(path, "-") == 0 ? EX_IOERR : EX_CANTCREAT);
}

int cli_read_input(const cli_cmd *c, const char *path, uint8_t **data, size_t *size) {
  char err[SKSS_IO_ERRLEN];
  int rc = skss_read_file(path, (size_t)SKSS_IO_MAX_FILE_BYTES, data, size, err);
  if (rc != 0) return cli_fail(c, cli_io_exit_code(rc, EX_NOINPUT), "%s", err);
  return EX_OK;
}

int cli_decode_image(const cli_cmd *c, const char *path, const uint8_t *data, size_t size, skss_image *img) {
  char err[SKSS_IO_ERRLEN];
  int64_t limit = c->max_pixels > 0 ? c->max_pixels : SKSS_IO_DEFAULT_MAX_PIXELS;
  int rc = skss_image_decode_limited(data, size, limit, img, err);
  if (rc == SKSS_IO_ERR_TOO_LARGE && (c->common & CLI_OPT_MAX_PIXELS))
    return cli_fail(c, EX_DATAERR, "%s: %s; --max-pixels N raises the limit", path, err);
  if (rc != 0) return cli_fail(c, cli_io_exit_code(rc, EX_DATAERR), "%s: %s", path, err);
  return EX_OK;
}

int cli_read_image(const cli_cmd *c, const char *path, skss_image *img) {
  uint8_t *data;
  size_t size;
  int rc = cli_read_input(c, path, &data, &size);
  if (rc != EX_OK) return rc;
  rc = cli_decode_image(c, path, data, size, img);
  free(data);
  return rc;
}

int cli_read_npy(const cli_cmd *c, const char *path, skss_npy *arr) {
  uint8_t *data;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_input(c, path, &data, &size);
  if (rc != EX_OK) return rc;
  int io_rc = skss_npy_decode(data, size, arr, err);
  if (io_rc != 0) rc = cli_fail(c, cli_io_exit_code(io_rc, EX_DATAERR), "%s: %s", path, err);
  free(data);
  return rc;
}

int cli_one_stdin(const cli_cmd *c, const char *a, const char *b) {
  if (a != NULL && b != NULL && strcmp(a, "-") == 0 && strcmp(b, "-") == 0)
    return cli_fail(c, EX_USAGE, "only one input can be '-' (stdin)");
  return EX_OK;
}

int cli_output_format(const cli_cmd *c, const char *path, int bilevel, skss_image_format *fmt) {
  char err[SKSS_IO_ERRLEN];
  if (skss_image_format_from_path(path, bilevel, fmt, err) != 0) return cli_fail(c, EX_USAGE, "%s", err);
  return EX_OK;
}

int cli_check_npy_output(const cli_cmd *c, const char *what, const char *path) {
  size_t len = strlen(path);
  if (strcmp(path, "-") == 0 || (len > 4 && strcasecmp(path + len - 4, ".npy") == 0)) return EX_OK;
  return cli_fail(c, EX_USAGE, "%s '%s': arrays are written as .npy, so the name must end in .npy", what,
                  path);
}

/* The absolute path `path` names: its directory resolved by realpath(), then
 * its last component. -1 when the directory does not exist. */
static int resolve_output(const char *path, char out[PATH_MAX]) {
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  char dir[PATH_MAX], real[PATH_MAX];
  size_t dir_len = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);
  if (dir_len >= sizeof dir) return -1;
  if (dir_len == 0) strcpy(dir, ".");
  else memcpy(dir, path, dir_len), dir[dir_len] = '\0';
  if (realpath(dir, real) == NULL) return -1;
  int n = snprintf(out, PATH_MAX, "%s/%s", real, name);
  return n < 0 || n >= PATH_MAX ? -1 : 0;
}

static int same_output(const char *a, const char *b) {
  if (strcmp(a, b) == 0) return 1;
  if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0) return 0;
  struct stat sa, sb;
  if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ra[PATH_MAX], rb[PATH_MAX];
  return resolve_output(a, ra) == 0 && resolve_output(b, rb) == 0 && strcmp(ra, rb) == 0;
}

int cli_check_distinct_outputs(const cli_cmd *c, const char *what_a, const char *a, const char *what_b,
                               const char *b) {
  if (a == NULL || b == NULL || !same_output(a, b)) return EX_OK;
  return cli_fail(c, EX_USAGE, "%s and %s name the same file '%s': one result would be lost", what_a, what_b,
                  b);
}

int cli_image_op(const cli_cmd *c, skss_ctx *ctx, const char *in_path, const char *out_path,
                 skss_image_format fmt, cli_image_fn apply, void *arg, skss_image *img, double *ms) {
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_image(c, in_path, img);
  if (rc != EX_OK) return rc;
  uint8_t *out = cli_alloc(c, img->width * img->height, 1);
  if (out == NULL) return EX_OSERR;
  double t0 = cli_now_ms();
  skss_status st = apply(ctx, img, out, arg);
  *ms = cli_now_ms() - t0;
  int io_rc = 0;
  if (st != SKSS_OK)
    rc = cli_fail_status(c, ctx, st);
  else if ((io_rc = skss_image_write(out_path, fmt, out, img->width, img->height, err)) != 0)
    rc = cli_fail(c, cli_write_exit_code(io_rc, out_path), "%s: %s", out_path, err);
  free(out);
  return rc;
}

int cli_is_npy(const uint8_t *data, size_t size) {
  return size >= 6 && memcmp(data, "\x93NUMPY", 6) == 0;
}

void *cli_alloc(const cli_cmd *c, int64_t count, size_t elem_size) {
  if (count < 0 || (elem_size != 0 && (uint64_t)count > SIZE_MAX / elem_size)) {
    cli_fail(c, EX_OSERR, "out of memory (%lld elements of %zu bytes)", (long long)count, elem_size);
    return NULL;
  }
  size_t bytes = (size_t)count * elem_size;
  void *p = malloc(bytes ? bytes : 1);
  if (p == NULL) cli_fail(c, EX_OSERR, "out of memory (%zu bytes)", bytes);
  return p;
}

double cli_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* --------------------------------------------------------------- staging */

int cli_write_npy_outputs(const cli_cmd *c, const cli_npy_output *outs, int count) {
  char err[SKSS_IO_ERRLEN];
  skss_io_stage_begin();
  for (int k = 0; k < count; k++) {
    if (outs[k].path == NULL) continue;
    int rc = skss_npy_write(outs[k].path, outs[k].dtype, outs[k].ndim, outs[k].shape, outs[k].data, err);
    if (rc != 0) {
      skss_io_stage_abort();
      return cli_fail(c, cli_write_exit_code(rc, outs[k].path), "%s: %s", outs[k].path, err);
    }
  }
  if (skss_io_stage_commit(err) != 0) return cli_fail(c, EX_CANTCREAT, "%s", err);
  return EX_OK;
}

/* ------------------------------------------------------------------ json */

void cli_json_init(cli_json *j, FILE *out) {
  memset(j, 0, sizeof *j);
  j->out = out;
}

/* Puts a new value into the innermost object (under the pending key) or
 * array; returns 0, marking the report failed, when it cannot (a NULL item
 * means cJSON ran out of memory). */
static int json_add(cli_json *j, cJSON *item) {
  const char *key = j->key;
  j->key = NULL;
  cJSON *parent = j->depth > 0 && j->depth <= CLI_JSON_MAX_DEPTH ? j->stack[j->depth - 1] : NULL;
  int added = item == NULL || parent == NULL ? 0
              : cJSON_IsArray(parent)        ? cJSON_AddItemToArray(parent, item)
              : key != NULL                  ? cJSON_AddItemToObject(parent, key, item)
                                             : 0;
  if (!added) {
    cJSON_Delete(item);
    j->failed = 1;
  }
  return added;
}

void cli_json_begin(cli_json *j, char bracket) {
  cJSON *item = bracket == '[' ? cJSON_CreateArray() : cJSON_CreateObject();
  if (j->depth == 0 && item == NULL) j->failed = 1;
  if (j->depth > 0 && !json_add(j, item)) item = NULL;
  if (j->depth < CLI_JSON_MAX_DEPTH)
    j->stack[j->depth] = item;
  else
    j->failed = 1;
  j->depth++;
}

int cli_json_end(cli_json *j, char bracket) {
  (void)bracket; /* the tree knows what it closes */
  if (j->depth == 0) return -1;
  j->depth--;
  if (j->depth > 0) return 0;
  cJSON *root = j->stack[0];
  char *text = j->failed || root == NULL ? NULL : cJSON_PrintUnformatted(root);
  cJSON_Delete(root);
  j->stack[0] = NULL;
  if (text == NULL) return -1;
  fputs(text, j->out);
  fputc('\n', j->out);
  cJSON_free(text);
  return 0;
}

void cli_json_key(cli_json *j, const char *key) { j->key = key; }

void cli_json_string(cli_json *j, const char *s) {
  json_add(j, s == NULL ? cJSON_CreateNull() : cJSON_CreateString(s));
}

void cli_json_int(cli_json *j, int64_t v) {
  char text[24];
  snprintf(text, sizeof text, "%lld", (long long)v);
  json_add(j, cJSON_CreateRaw(text));
}

void cli_json_bool(cli_json *j, int v) { json_add(j, cJSON_CreateBool(v)); }

void cli_json_kv_string(cli_json *j, const char *key, const char *s) {
  cli_json_key(j, key);
  cli_json_string(j, s);
}

void cli_json_kv_int(cli_json *j, const char *key, int64_t v) {
  cli_json_key(j, key);
  cli_json_int(j, v);
}

void cli_json_kv_ms(cli_json *j, const char *key, double ms) {
  cli_json_key(j, key);
  json_add(j, cJSON_CreateNumber(round(ms * 1e3) / 1e3));
}

void cli_json_kv_bool(cli_json *j, const char *key, int v) {
  cli_json_key(j, key);
  cli_json_bool(j, v);
}

int cli_json_finish(const cli_cmd *c, cli_json *j) {
  if (cli_json_end(j, '}') == 0) return EX_OK;
  return cli_fail(c, EX_OSERR, "out of memory building the JSON report");
}
