/*
 * bench_json.c — JSON in and out. The writer emits the report (schema
 * "skss-bench/1", described in bench/NOTES.md): top-level members one per
 * line, each row one line, so results diff well in git. The reader is a
 * small recursive-descent parser (depth-limited) for the peers' answer.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

#define JSON_MAX_DEPTH 32

/* ---- writer ------------------------------------------------------------------ */

typedef struct json_out {
  FILE *f;
  int depth;
  int has_items[JSON_MAX_DEPTH]; /* a comma is due before the next item */
} json_out;

/* Items of containers up to depth 2 go on their own lines; deeper ones
 * (the members of a row) stay on one line. */
static void item_start(json_out *w) {
  if (w->depth == 0) return;
  int first = !w->has_items[w->depth];
  w->has_items[w->depth] = 1;
  if (w->depth <= 2) {
    if (!first) fputc(',', w->f);
    fprintf(w->f, "\n%*s", 2 * w->depth, "");
  } else if (!first) {
    fputs(", ", w->f);
  }
}

static void open_container(json_out *w, char c) {
  item_start(w);
  fputc(c, w->f);
  w->depth++;
  w->has_items[w->depth] = 0;
}

static void close_container(json_out *w, char c) {
  int had = w->has_items[w->depth], inner = w->depth;
  w->depth--;
  if (had && inner <= 2) fprintf(w->f, "\n%*s", 2 * w->depth, "");
  fputc(c, w->f);
}

static void put_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

static void key(json_out *w, const char *k) {
  item_start(w);
  put_string(w->f, k);
  fputs(": ", w->f);
}

/* Values after a key do not start a new item. */
static void str_value(json_out *w, const char *s) { put_string(w->f, s); }
static void num_value(json_out *w, double v) {
  if (isfinite(v))
    fprintf(w->f, "%.9g", v);
  else
    fputs("null", w->f);
}
static void int_value(json_out *w, long long v) { fprintf(w->f, "%lld", v); }
static void bool_value(json_out *w, int v) { fputs(v ? "true" : "false", w->f); }
/* 0 means "not measured" for ratios and rates. */
static void opt_value(json_out *w, double v) {
  if (v > 0)
    num_value(w, v);
  else
    fputs("null", w->f);
}

static void kv_str(json_out *w, const char *k, const char *v) {
  key(w, k);
  str_value(w, v);
}
static void kv_num(json_out *w, const char *k, double v) {
  key(w, k);
  num_value(w, v);
}
static void kv_int(json_out *w, const char *k, long long v) {
  key(w, k);
  int_value(w, v);
}
static void kv_opt(json_out *w, const char *k, double v) {
  key(w, k);
  opt_value(w, v);
}

/* After a key, a container opens in place (no new item). */
static void kv_open(json_out *w, const char *k, char c) {
  key(w, k);
  fputc(c, w->f);
  w->depth++;
  w->has_items[w->depth] = 0;
}

static const char *outcome_name(bench_outcome o) {
  switch (o) {
    case BENCH_ROW_OK: return "ok";
    case BENCH_ROW_FAILED: return "failed";
    case BENCH_ROW_UNAVAILABLE: return "unavailable";
    case BENCH_ROW_TIMEOUT: return "timeout";
  }
  return "failed";
}

static void write_machine(json_out *w, const bench_report *rep) {
  kv_open(w, "machine", '{');
  kv_str(w, "cpu_model", rep->cpu_model);
  kv_int(w, "cores", rep->cores);
  kv_str(w, "kernel", rep->kernel);
  kv_str(w, "skss_version", skss_version());
  kv_str(w, "git_commit", rep->git_commit);
  kv_str(w, "date", rep->date);
  kv_open(w, "copy_bandwidth", '{');
  kv_int(w, "bytes", (long long)rep->copy_bytes);
  kv_str(w, "method", "memcpy, median, (read + written bytes) / s");
  kv_num(w, "gbs_1_thread", rep->copy_gbs_1);
  kv_int(w, "threads", rep->copy_threads);
  kv_num(w, "gbs_threads", rep->copy_gbs_n);
  close_container(w, '}');
  if (rep->gpu_name[0] != '\0') {
    kv_open(w, "gpu", '{');
    kv_str(w, "name", rep->gpu_name);
    kv_int(w, "multiprocessors", rep->gpu_sms);
    kv_num(w, "memory_gib", rep->gpu_memory_gib);
    kv_str(w, "driver", rep->gpu_driver);
    kv_str(w, "cuda_runtime", rep->cuda_runtime);
    kv_int(w, "copy_bytes", (long long)rep->copy_gpu_bytes);
    kv_str(w, "copy_method",
           "cudaMemcpyAsync device to device, CUDA events, median, (read + written bytes) / s");
    kv_num(w, "copy_gbs", rep->copy_gbs_gpu);
    kv_str(w, "timing", "CUDA events per run, runs queued behind a device-side wait, median");
    close_container(w, '}');
  }
  close_container(w, '}');
}

static void write_config(json_out *w, const bench_config *cfg) {
  kv_open(w, "config", '{');
  kv_open(w, "backends", '[');
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
    if (!(cfg->backends & (1u << b))) continue;
    item_start(w);
    str_value(w, skss_backend_name((skss_backend)b));
  }
  close_container(w, ']');
  kv_int(w, "threads", cfg->threads);
  key(w, "quick");
  bool_value(w, cfg->quick);
  kv_int(w, "repeat", cfg->repeat);
  kv_int(w, "seed", (long long)cfg->seed);
  key(w, "peers");
  bool_value(w, cfg->peers);
  kv_str(w, "python", cfg->python);
  close_container(w, '}');
}

static void write_peers(json_out *w, const bench_report *rep) {
  kv_open(w, "peers", '{');
  key(w, "ran");
  bool_value(w, rep->peers_ran);
  kv_str(w, "message", rep->peers_message);
  kv_str(w, "python", rep->python_version);
  kv_open(w, "versions", '{');
  for (int k = 0; k < rep->n_versions; k++) kv_str(w, rep->versions[k][0], rep->versions[k][1]);
  close_container(w, '}');
  close_container(w, '}');
}

static void write_case(json_out *w, size_t index, const bench_case *c) {
  open_container(w, '{');
  kv_int(w, "index", (long long)index);
  kv_str(w, "primitive", bench_op_name(c->op));
  kv_str(w, "spec", c->spec);
  kv_str(w, "variant", c->variant);
  kv_str(w, "size", c->size);
  kv_num(w, "x", c->x);
  kv_num(w, "items", c->items);
  kv_str(w, "unit", c->unit);
  kv_str(w, "table", c->table);
  close_container(w, '}');
}

static void write_row(json_out *w, const bench_report *rep, const bench_row *r) {
  const bench_case *c = &rep->cases.items[r->case_index];
  open_container(w, '{');
  kv_int(w, "case", (long long)r->case_index);
  kv_str(w, "algorithm", r->algorithm);
  kv_str(w, "backend", r->backend);
  kv_int(w, "threads", r->threads);
  kv_str(w, "device", r->on_gpu ? "gpu" : "cpu");
  if (r->param > 0) kv_num(w, "param_r", r->param);
  key(w, "peer");
  bool_value(w, r->is_peer);
  kv_str(w, "outcome", outcome_name(r->outcome));
  kv_str(w, "message", r->message);
  kv_opt(w, "median_s", r->t.median_s);
  kv_opt(w, "min_s", r->t.min_s);
  kv_opt(w, "p90_s", r->t.p90_s);
  kv_int(w, "runs", r->t.runs);
  kv_opt(w, "cores_used", r->t.cores_used);
  kv_opt(w, "throughput", r->throughput);
  kv_str(w, "unit", c->unit);
  kv_opt(w, "bytes", r->bytes);
  kv_opt(w, "gbs", r->gbps);
  kv_opt(w, "pct_copy", r->pct_copy);
  kv_opt(w, "speedup_ref", r->speedup_ref);
  kv_opt(w, "speedup_peer", r->speedup_peer);
  kv_str(w, "speedup_peer_against", r->peer_name);
  if (r->speedup_paper > 0) {
    kv_num(w, "speedup_paper", r->speedup_paper);
    kv_str(w, "speedup_paper_against", r->paper_name);
    key(w, "paper_algorithm");
    bool_value(w, ((c->paper >> r->algorithm_id) & 1u) != 0);
  }
  if (r->is_peer) {
    kv_str(w, "check", r->check);
    key(w, "optimal");
    if (r->optimal < 0)
      fputs("null", w->f);
    else
      bool_value(w, r->optimal);
  }
  close_container(w, '}');
}

static void write_targets(json_out *w, const bench_report *rep) {
  kv_open(w, "targets", '[');
  for (int k = 0; k < rep->n_targets; k++) {
    const bench_target *t = &rep->targets[k];
    open_container(w, '{');
    kv_str(w, "what", t->what);
    kv_opt(w, "value", t->value);
    kv_opt(w, "goal", t->goal);
    kv_str(w, "unit", t->unit);
    key(w, "at_most");
    bool_value(w, t->at_most);
    key(w, "met");
    if (t->value > 0 && t->goal > 0)
      bool_value(w, t->at_most ? t->value <= t->goal : t->value >= t->goal);
    else
      fputs("null", w->f);
    close_container(w, '}');
  }
  close_container(w, ']');
}

static void write_report(FILE *f, const bench_config *cfg, const bench_report *rep) {
  json_out w = {f, 0, {0}};
  open_container(&w, '{');
  kv_str(&w, "schema", "skss-bench/1");
  write_machine(&w, rep);
  write_config(&w, cfg);
  write_peers(&w, rep);
  kv_open(&w, "notes", '[');
  for (int k = 0; k < rep->n_notes; k++) {
    item_start(&w);
    str_value(&w, rep->notes[k]);
  }
  close_container(&w, ']');
  kv_open(&w, "cases", '[');
  for (size_t k = 0; k < rep->cases.count; k++) write_case(&w, k, &rep->cases.items[k]);
  close_container(&w, ']');
  kv_open(&w, "rows", '[');
  for (size_t k = 0; k < rep->n_rows; k++) write_row(&w, rep, &rep->rows[k]);
  close_container(&w, ']');
  write_targets(&w, rep);
  kv_num(&w, "total_s", rep->total_s);
  close_container(&w, '}');
  fputc('\n', f);
}

int bench_write_json(const bench_config *cfg, const bench_report *rep, const char *path,
                     char err[BENCH_ERRLEN]) {
  int to_stdout = strcmp(path, "-") == 0;
  FILE *f = to_stdout ? stdout : fopen(path, "w");
  if (f == NULL) {
    snprintf(err, BENCH_ERRLEN, "cannot write %s", path);
    return -1;
  }
  write_report(f, cfg, rep);
  int failed = ferror(f) != 0;
  failed |= to_stdout ? fflush(f) != 0 : fclose(f) != 0;
  if (failed) snprintf(err, BENCH_ERRLEN, "error writing %s", path);
  return failed ? -1 : 0;
}

/* ---- reader ------------------------------------------------------------------ */

typedef struct json_in {
  const char *start, *p, *end;
  char *err;
} json_in;

static int parse_value(json_in *in, bench_json *out, int depth);

static int fail(json_in *in, const char *what) {
  snprintf(in->err, BENCH_ERRLEN, "JSON: %s at byte %td", what, in->p - in->start);
  return -1;
}

static void skip_space(json_in *in) {
  while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\n' || *in->p == '\r'))
    in->p++;
}

static int literal(json_in *in, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(in->end - in->p) < n || memcmp(in->p, word, n) != 0) return 0;
  in->p += n;
  return 1;
}

/* Appends the UTF-8 encoding of code point `cp` (< 0x10000) to `out`. */
static size_t put_utf8(char *out, unsigned cp) {
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  out[0] = (char)(0xE0 | (cp >> 12));
  out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[2] = (char)(0x80 | (cp & 0x3F));
  return 3;
}

static int parse_escape(json_in *in, char *out, size_t *n) {
  static const char FROM[] = "\"\\/bfnrt", TO[] = "\"\\/\b\f\n\r\t";
  char c = *in->p++;
  const char *k = strchr(FROM, c);
  if (c != 'u') {
    if (c == '\0' || k == NULL) return fail(in, "bad escape");
    out[(*n)++] = TO[k - FROM];
    return 0;
  }
  unsigned cp = 0;
  for (int i = 0; i < 4; i++, in->p++) {
    if (in->p >= in->end) return fail(in, "short \\u escape");
    char h = *in->p;
    unsigned d = h >= '0' && h <= '9' ? (unsigned)(h - '0')
                 : h >= 'a' && h <= 'f' ? (unsigned)(h - 'a' + 10)
                 : h >= 'A' && h <= 'F' ? (unsigned)(h - 'A' + 10)
                                        : 16u;
    if (d == 16) return fail(in, "bad \\u escape");
    cp = cp * 16 + d;
  }
  *n += put_utf8(out + *n, cp);
  return 0;
}

/* The decoded text is never longer than the quoted source. */
static int parse_string(json_in *in, char **out) {
  in->p++;
  const char *start = in->p;
  while (in->p < in->end && *in->p != '"') in->p += *in->p == '\\' ? 2 : 1;
  if (in->p >= in->end) return fail(in, "unterminated string");
  char *s = malloc((size_t)(in->p - start) + 1);
  if (s == NULL) return fail(in, "out of memory");
  const char *stop = in->p;
  size_t n = 0;
  for (in->p = start; in->p < stop;) {
    if (*in->p != '\\') {
      s[n++] = *in->p++;
      continue;
    }
    in->p++;
    if (parse_escape(in, s, &n) != 0) {
      free(s);
      return -1;
    }
  }
  in->p = stop + 1;
  s[n] = '\0';
  *out = s;
  return 0;
}

static int parse_number(json_in *in, bench_json *out) {
  char buf[64];
  size_t n = 0;
  while (in->p + n < in->end && n + 1 < sizeof buf && in->p[n] != '\0' &&
         strchr("+-0123456789.eE", in->p[n]) != NULL)
    n++;
  memcpy(buf, in->p, n);
  buf[n] = '\0';
  char *stop;
  out->number = strtod(buf, &stop);
  if (n == 0 || stop != buf + n) return fail(in, "bad number");
  in->p += n;
  out->kind = BENCH_JSON_NUMBER;
  return 0;
}

/* Parses the items of an array or the members of an object after its '[' or
 * '{' into out->items. */
static int parse_container(json_in *in, bench_json *out, int depth, char close) {
  size_t cap = 0;
  in->p++;
  skip_space(in);
  if (in->p < in->end && *in->p == close) {
    in->p++;
    return 0;
  }
  for (;;) {
    if (out->count == cap) {
      cap = cap ? 2 * cap : 8;
      bench_json *items = realloc(out->items, cap * sizeof *items);
      if (items == NULL) return fail(in, "out of memory");
      out->items = items;
    }
    bench_json *item = &out->items[out->count];
    *item = (bench_json){0};
    out->count++;
    skip_space(in);
    if (close == '}') {
      if (in->p >= in->end || *in->p != '"') return fail(in, "expected a member name");
      if (parse_string(in, &item->key) != 0) return -1;
      skip_space(in);
      if (in->p >= in->end || *in->p++ != ':') return fail(in, "expected ':'");
    }
    if (parse_value(in, item, depth + 1) != 0) return -1;
    skip_space(in);
    if (in->p < in->end && *in->p == ',') {
      in->p++;
      continue;
    }
    if (in->p < in->end && *in->p == close) {
      in->p++;
      return 0;
    }
    return fail(in, "expected ',' or a closing bracket");
  }
}

static int parse_value(json_in *in, bench_json *out, int depth) {
  if (depth > JSON_MAX_DEPTH) return fail(in, "nested too deeply");
  skip_space(in);
  if (in->p >= in->end) return fail(in, "unexpected end");
  switch (*in->p) {
    case '{': out->kind = BENCH_JSON_OBJECT; return parse_container(in, out, depth, '}');
    case '[': out->kind = BENCH_JSON_ARRAY; return parse_container(in, out, depth, ']');
    case '"': out->kind = BENCH_JSON_STRING; return parse_string(in, &out->string);
    default: break;
  }
  if (literal(in, "true")) {
    out->kind = BENCH_JSON_BOOL;
    out->number = 1;
    return 0;
  }
  if (literal(in, "false")) {
    out->kind = BENCH_JSON_BOOL;
    return 0;
  }
  if (literal(in, "null")) {
    out->kind = BENCH_JSON_NULL;
    return 0;
  }
  return parse_number(in, out);
}

static void free_children(bench_json *v) {
  for (size_t k = 0; k < v->count; k++) free_children(&v->items[k]);
  free(v->items);
  free(v->string);
  free(v->key);
}

void bench_json_free(bench_json *v) {
  if (v == NULL) return;
  free_children(v);
  free(v);
}

bench_json *bench_json_parse(const char *text, size_t len, char err[BENCH_ERRLEN]) {
  bench_json *root = calloc(1, sizeof *root);
  json_in in = {text, text, text + len, err};
  if (root == NULL) {
    snprintf(err, BENCH_ERRLEN, "JSON: out of memory");
    return NULL;
  }
  if (text == NULL || parse_value(&in, root, 0) != 0) {
    if (text == NULL) snprintf(err, BENCH_ERRLEN, "JSON: no text");
    bench_json_free(root);
    return NULL;
  }
  skip_space(&in);
  if (in.p != in.end) {
    fail(&in, "trailing text");
    bench_json_free(root);
    return NULL;
  }
  return root;
}

const bench_json *bench_json_get(const bench_json *obj, const char *name) {
  if (obj == NULL || obj->kind != BENCH_JSON_OBJECT) return NULL;
  for (size_t k = 0; k < obj->count; k++)
    if (strcmp(obj->items[k].key, name) == 0) return &obj->items[k];
  return NULL;
}

double bench_json_number(const bench_json *obj, const char *name, double fallback) {
  const bench_json *v = bench_json_get(obj, name);
  return v != NULL && v->kind == BENCH_JSON_NUMBER ? v->number : fallback;
}

const char *bench_json_string(const bench_json *obj, const char *name, const char *fallback) {
  const bench_json *v = bench_json_get(obj, name);
  return v != NULL && v->kind == BENCH_JSON_STRING ? v->string : fallback;
}
