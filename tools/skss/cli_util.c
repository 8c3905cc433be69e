/*
 * cli_util.c — option parsing, strict numbers, context setup, errors,
 * timing, staged outputs and JSON for the skss subcommands (see cli_util.h).
 */
#include "cli_util.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------- errors */

static void print_line(const cli_cmd *c, const char *prefix, const char *fmt, va_list ap) {
  char msg[1024];
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
  if (end == s || *end != '\0' || (errno == ERANGE && isinf(v))) return -1;
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

static int wants_help(int argc, char **argv) {
  for (int k = 1; k < argc; k++) {
    if (strcmp(argv[k], "--") == 0) return 0;
    if (strcmp(argv[k], "--help") == 0 || strcmp(argv[k], "-h") == 0) return 1;
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
  static const char *const names[] = {"--backend", "--threads", "--algorithm", "--json"};
  const unsigned need[] = {CLI_OPT_BACKEND, CLI_OPT_BACKEND, CLI_OPT_ALGORITHM, CLI_OPT_JSON};
  const char **slots[] = {&c->backend, &c->threads, &c->algorithm, NULL};
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
  if (wants_help(argc, argv)) {
    fputs(c->usage, stdout);
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
  return EX_OK;
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

int cli_read_input(const cli_cmd *c, const char *path, uint8_t **data, size_t *size) {
  char err[SKSS_IO_ERRLEN];
  if (skss_read_file(path, (size_t)SKSS_IO_MAX_FILE_BYTES, data, size, err) != 0)
    return cli_fail(c, EX_NOINPUT, "%s", err);
  return EX_OK;
}

int cli_read_image(const cli_cmd *c, const char *path, skss_image *img) {
  uint8_t *data;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_input(c, path, &data, &size);
  if (rc != EX_OK) return rc;
  if (skss_image_decode(data, size, img, err) != 0) rc = cli_fail(c, EX_DATAERR, "%s: %s", path, err);
  free(data);
  return rc;
}

int cli_read_npy(const cli_cmd *c, const char *path, skss_npy *arr) {
  uint8_t *data;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_input(c, path, &data, &size);
  if (rc != EX_OK) return rc;
  if (skss_npy_decode(data, size, arr, err) != 0) rc = cli_fail(c, EX_DATAERR, "%s: %s", path, err);
  free(data);
  return rc;
}

int cli_output_format(const cli_cmd *c, const char *path, int bilevel, skss_image_format *fmt) {
  char err[SKSS_IO_ERRLEN];
  if (skss_image_format_from_path(path, bilevel, fmt, err) != 0) return cli_fail(c, EX_USAGE, "%s", err);
  return EX_OK;
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
  if (st != SKSS_OK)
    rc = cli_fail_status(c, ctx, st);
  else if (skss_image_write(out_path, fmt, out, img->width, img->height, err) != 0)
    rc = cli_fail(c, EX_CANTCREAT, "%s: %s", out_path, err);
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

const char *cli_stage(const cli_cmd *c, cli_staging *s, const char *final_path) {
  if (strcmp(final_path, "-") == 0) return final_path;
  if (s->n >= CLI_MAX_STAGED) {
    cli_fail(c, EX_SOFTWARE, "too many outputs");
    return NULL;
  }
  int n = s->n;
  int len1 = snprintf(s->final_path[n], sizeof s->final_path[n], "%s", final_path);
  int len2 = snprintf(s->temp_path[n], sizeof s->temp_path[n], "%s.skss-stage-%ld-%d", final_path,
                      (long)getpid(), n);
  if (len1 < 0 || len2 < 0 || (size_t)len2 >= sizeof s->temp_path[n]) {
    cli_fail(c, EX_CANTCREAT, "%s: path too long", final_path);
    return NULL;
  }
  s->n++;
  return s->temp_path[n];
}

int cli_stage_commit(const cli_cmd *c, cli_staging *s) {
  int rc = EX_OK;
  for (int k = 0; k < s->n; k++) {
    if (rc == EX_OK && rename(s->temp_path[k], s->final_path[k]) != 0)
      rc = cli_fail(c, EX_CANTCREAT, "%s: cannot rename into place: %s", s->final_path[k],
                    strerror(errno));
    if (rc != EX_OK) remove(s->temp_path[k]);
  }
  s->n = 0;
  return rc;
}

void cli_stage_abort(cli_staging *s) {
  for (int k = 0; k < s->n; k++) remove(s->temp_path[k]);
  s->n = 0;
}

/* ------------------------------------------------------------------ json */

void cli_json_init(cli_json *j, FILE *out) {
  memset(j, 0, sizeof *j);
  j->out = out;
}

/* Writes the comma that separates this value from the previous one. */
static void json_separate(cli_json *j) {
  if (j->after_key) {
    j->after_key = 0;
    return;
  }
  if (j->depth > 0 && j->has_items[j->depth - 1]) fputc(',', j->out);
  if (j->depth > 0) j->has_items[j->depth - 1] = 1;
}

void cli_json_begin(cli_json *j, char bracket) {
  json_separate(j);
  fputc(bracket, j->out);
  if (j->depth < CLI_JSON_MAX_DEPTH) j->has_items[j->depth] = 0;
  j->depth++;
}

void cli_json_end(cli_json *j, char bracket) {
  fputc(bracket, j->out);
  j->depth--;
  if (j->depth == 0) fputc('\n', j->out);
}

static void json_escaped(FILE *out, const char *s) {
  fputc('"', out);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\') {
      fputc('\\', out);
      fputc(*p, out);
    } else if (*p < 0x20) {
      fprintf(out, "\\u%04x", *p);
    } else {
      fputc(*p, out);
    }
  }
  fputc('"', out);
}

void cli_json_key(cli_json *j, const char *key) {
  json_separate(j);
  json_escaped(j->out, key);
  fputc(':', j->out);
  j->after_key = 1;
}

void cli_json_string(cli_json *j, const char *s) {
  json_separate(j);
  if (s == NULL)
    fputs("null", j->out);
  else
    json_escaped(j->out, s);
}

void cli_json_int(cli_json *j, int64_t v) {
  json_separate(j);
  fprintf(j->out, "%lld", (long long)v);
}

void cli_json_bool(cli_json *j, int v) {
  json_separate(j);
  fputs(v ? "true" : "false", j->out);
}

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
  json_separate(j);
  fprintf(j->out, "%.3f", ms);
}

void cli_json_kv_bool(cli_json *j, const char *key, int v) {
  cli_json_key(j, key);
  cli_json_bool(j, v);
}
