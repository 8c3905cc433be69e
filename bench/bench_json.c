/*
 * bench_json.c — the report as JSON (schema "skss-bench/1"), built as a cJSON
 * tree. cJSON escapes and formats every value; the file keeps its layout
 * (top-level members and the items of their objects and arrays one per line,
 * each case, row and target on one line) so results diff well in git.
 * Fractions keep 9 significant digits and integers all of theirs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cJSON.h>

#include "bench.h"

/* ---- the tree ------------------------------------------------------------------ */

/* Any failed cJSON allocation clears `ok`; a NULL parent (its own failure,
 * already counted) makes every add below it fail too. */
typedef struct json_build {
  int ok;
} json_build;

static cJSON *checked(json_build *b, cJSON *item) {
  if (item == NULL) b->ok = 0;
  return item;
}

static void put_str(json_build *b, cJSON *obj, const char *key, const char *value) {
  checked(b, cJSON_AddStringToObject(obj, key, value));
}

static void put_bool(json_build *b, cJSON *obj, const char *key, int value) {
  checked(b, cJSON_AddBoolToObject(obj, key, value != 0));
}

static void put_null(json_build *b, cJSON *obj, const char *key) {
  checked(b, cJSON_AddNullToObject(obj, key));
}

/* Integral values below 2^53 print exactly; other values are rounded to 9
 * significant digits, which cJSON then prints as such (it prints the shortest
 * of 15 or 17 digits that reads back the same double). */
static double nine_digits(double v) {
  if (!isfinite(v) || (v == floor(v) && fabs(v) < 9007199254740992.0)) return v;
  char text[32];
  snprintf(text, sizeof text, "%.9g", v);
  return strtod(text, NULL);
}

/* Non-finite numbers print as null. */
static void put_num(json_build *b, cJSON *obj, const char *key, double value) {
  checked(b, cJSON_AddNumberToObject(obj, key, nine_digits(value)));
}

/* Ratios and rates: 0 means "not measured", written as null. */
static void put_opt(json_build *b, cJSON *obj, const char *key, double value) {
  if (value > 0)
    put_num(b, obj, key, value);
  else
    put_null(b, obj, key);
}

/* An empty object or array appended to `array`. */
static cJSON *append_container(json_build *b, cJSON *array, int is_object) {
  cJSON *item = checked(b, is_object ? cJSON_CreateObject() : cJSON_CreateArray());
  if (item != NULL && !cJSON_AddItemToArray(array, item)) {
    cJSON_Delete(item);
    b->ok = 0;
    return NULL;
  }
  return item;
}

static void append_str(json_build *b, cJSON *array, const char *value) {
  cJSON *item = checked(b, cJSON_CreateString(value));
  if (item != NULL && !cJSON_AddItemToArray(array, item)) {
    cJSON_Delete(item);
    b->ok = 0;
  }
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

static void add_machine(json_build *b, cJSON *doc, const bench_report *rep) {
  cJSON *m = checked(b, cJSON_AddObjectToObject(doc, "machine"));
  put_str(b, m, "cpu_model", rep->cpu_model);
  put_num(b, m, "cores", rep->cores);
  put_str(b, m, "kernel", rep->kernel);
  put_str(b, m, "skss_version", skss_version());
  put_str(b, m, "git_commit", rep->git_commit);
  put_str(b, m, "date", rep->date);
  cJSON *copy = checked(b, cJSON_AddObjectToObject(m, "copy_bandwidth"));
  put_num(b, copy, "bytes", (double)rep->copy_bytes);
  put_str(b, copy, "method", "memcpy, median, (read + written bytes) / s");
  put_num(b, copy, "gbs_1_thread", rep->copy_gbs_1);
  put_num(b, copy, "threads", rep->copy_threads);
  put_num(b, copy, "gbs_threads", rep->copy_gbs_n);
  if (rep->gpu_name[0] == '\0') return;
  cJSON *gpu = checked(b, cJSON_AddObjectToObject(m, "gpu"));
  put_str(b, gpu, "name", rep->gpu_name);
  put_num(b, gpu, "multiprocessors", rep->gpu_sms);
  put_num(b, gpu, "memory_gib", rep->gpu_memory_gib);
  put_str(b, gpu, "driver", rep->gpu_driver);
  put_str(b, gpu, "cuda_runtime", rep->cuda_runtime);
  put_num(b, gpu, "copy_bytes", (double)rep->copy_gpu_bytes);
  put_str(b, gpu, "copy_method",
          "cudaMemcpyAsync device to device, CUDA events, median, (read + written bytes) / s");
  put_num(b, gpu, "copy_gbs", rep->copy_gbs_gpu);
  put_str(b, gpu, "timing", "CUDA events per run, runs queued behind a device-side wait, median");
}

static void add_config(json_build *b, cJSON *doc, const bench_config *cfg) {
  cJSON *c = checked(b, cJSON_AddObjectToObject(doc, "config"));
  cJSON *backends = checked(b, cJSON_AddArrayToObject(c, "backends"));
  for (int k = SKSS_BACKEND_CPU_REF; k <= SKSS_BACKEND_CUDA; k++)
    if (cfg->backends & (1u << k)) append_str(b, backends, skss_backend_name((skss_backend)k));
  put_num(b, c, "threads", cfg->threads);
  put_bool(b, c, "quick", cfg->quick);
  put_num(b, c, "repeat", cfg->repeat);
  put_num(b, c, "seed", (double)cfg->seed);
  put_bool(b, c, "peers", cfg->peers);
  put_str(b, c, "python", cfg->python);
}

static void add_peers(json_build *b, cJSON *doc, const bench_report *rep) {
  cJSON *p = checked(b, cJSON_AddObjectToObject(doc, "peers"));
  put_bool(b, p, "ran", rep->peers_ran);
  put_str(b, p, "message", rep->peers_message);
  put_str(b, p, "python", rep->python_version);
  cJSON *versions = checked(b, cJSON_AddObjectToObject(p, "versions"));
  for (int k = 0; k < rep->n_versions; k++) put_str(b, versions, rep->versions[k][0], rep->versions[k][1]);
}

static void add_case(json_build *b, cJSON *cases, size_t index, const bench_case *c) {
  cJSON *o = append_container(b, cases, 1);
  put_num(b, o, "index", (double)index);
  put_str(b, o, "primitive", bench_op_name(c->op));
  put_str(b, o, "spec", c->spec);
  put_str(b, o, "variant", c->variant);
  put_str(b, o, "size", c->size);
  put_num(b, o, "x", c->x);
  put_num(b, o, "items", c->items);
  put_str(b, o, "unit", c->unit);
  put_str(b, o, "table", c->table);
}

static void add_row(json_build *b, cJSON *rows, const bench_report *rep, const bench_row *r) {
  const bench_case *c = &rep->cases.items[r->case_index];
  cJSON *o = append_container(b, rows, 1);
  put_num(b, o, "case", (double)r->case_index);
  put_str(b, o, "algorithm", r->algorithm);
  put_str(b, o, "backend", r->backend);
  put_num(b, o, "threads", r->threads);
  put_str(b, o, "device", r->on_gpu ? "gpu" : "cpu");
  if (r->param > 0) put_num(b, o, "param_r", r->param);
  put_bool(b, o, "peer", r->is_peer);
  put_str(b, o, "outcome", outcome_name(r->outcome));
  put_str(b, o, "message", r->message);
  put_opt(b, o, "median_s", r->t.median_s);
  put_opt(b, o, "min_s", r->t.min_s);
  put_opt(b, o, "p90_s", r->t.p90_s);
  put_num(b, o, "runs", r->t.runs);
  put_opt(b, o, "cores_used", r->t.cores_used);
  put_opt(b, o, "throughput", r->throughput);
  put_str(b, o, "unit", c->unit);
  put_opt(b, o, "bytes", r->bytes);
  put_opt(b, o, "gbs", r->gbps);
  put_opt(b, o, "pct_copy", r->pct_copy);
  put_opt(b, o, "speedup_ref", r->speedup_ref);
  put_opt(b, o, "speedup_peer", r->speedup_peer);
  put_str(b, o, "speedup_peer_against", r->peer_name);
  if (r->speedup_paper > 0) {
    put_num(b, o, "speedup_paper", r->speedup_paper);
    put_str(b, o, "speedup_paper_against", r->paper_name);
    put_bool(b, o, "paper_algorithm", ((c->paper >> r->algorithm_id) & 1u) != 0);
  }
  if (!r->is_peer) return;
  put_str(b, o, "check", r->check);
  if (r->optimal < 0)
    put_null(b, o, "optimal");
  else
    put_bool(b, o, "optimal", r->optimal);
}

static void add_target(json_build *b, cJSON *targets, const bench_target *t) {
  cJSON *o = append_container(b, targets, 1);
  put_str(b, o, "what", t->what);
  put_opt(b, o, "value", t->value);
  put_opt(b, o, "goal", t->goal);
  put_str(b, o, "unit", t->unit);
  put_bool(b, o, "at_most", t->at_most);
  if (t->value > 0 && t->goal > 0)
    put_bool(b, o, "met", t->at_most ? t->value <= t->goal : t->value >= t->goal);
  else
    put_null(b, o, "met");
}

/* The whole report, or NULL when cJSON ran out of memory. */
static cJSON *build_report(const bench_config *cfg, const bench_report *rep) {
  json_build b = {1};
  cJSON *doc = checked(&b, cJSON_CreateObject());
  put_str(&b, doc, "schema", "skss-bench/1");
  add_machine(&b, doc, rep);
  add_config(&b, doc, cfg);
  add_peers(&b, doc, rep);
  cJSON *notes = checked(&b, cJSON_AddArrayToObject(doc, "notes"));
  for (int k = 0; k < rep->n_notes; k++) append_str(&b, notes, rep->notes[k]);
  cJSON *cases = checked(&b, cJSON_AddArrayToObject(doc, "cases"));
  for (size_t k = 0; k < rep->cases.count; k++) add_case(&b, cases, k, &rep->cases.items[k]);
  cJSON *rows = checked(&b, cJSON_AddArrayToObject(doc, "rows"));
  for (size_t k = 0; k < rep->n_rows; k++) add_row(&b, rows, rep, &rep->rows[k]);
  cJSON *targets = checked(&b, cJSON_AddArrayToObject(doc, "targets"));
  for (int k = 0; k < rep->n_targets; k++) add_target(&b, targets, &rep->targets[k]);
  put_num(&b, doc, "total_s", rep->total_s);
  if (b.ok) return doc;
  cJSON_Delete(doc);
  return NULL;
}

/* ---- the layout ---------------------------------------------------------------- */

/* `item` on one line, as cJSON prints it unformatted; -1 when out of memory. */
static int write_compact(FILE *f, const cJSON *item) {
  char *text = cJSON_PrintUnformatted(item);
  if (text == NULL) return -1;
  fputs(text, f);
  cJSON_free(text);
  return 0;
}

/* A member name, quoted and escaped by cJSON. */
static int write_name(FILE *f, const char *name) {
  cJSON *quoted = cJSON_CreateStringReference(name);
  int rc = quoted != NULL ? write_compact(f, quoted) : -1;
  cJSON_Delete(quoted);
  if (rc == 0) fputs(": ", f);
  return rc;
}

/* `v` at nesting level `level` (the document is 0): the items of a non-empty
 * object or array at levels 0 and 1 go on their own lines, indented two
 * spaces a level; deeper values, and empty ones, print on one line. */
static int write_laid_out(FILE *f, const cJSON *v, int level) {
  int is_object = cJSON_IsObject(v);
  if (level >= 2 || !(is_object || cJSON_IsArray(v)) || v->child == NULL) return write_compact(f, v);
  fputc(is_object ? '{' : '[', f);
  for (const cJSON *item = v->child; item != NULL; item = item->next) {
    fprintf(f, "\n%*s", 2 * (level + 1), "");
    if (is_object && write_name(f, item->string) != 0) return -1;
    if (write_laid_out(f, item, level + 1) != 0) return -1;
    if (item->next != NULL) fputc(',', f);
  }
  fprintf(f, "\n%*s%c", 2 * level, "", is_object ? '}' : ']');
  return 0;
}

int bench_write_json(const bench_config *cfg, const bench_report *rep, const char *path,
                     char err[BENCH_ERRLEN]) {
  cJSON *doc = build_report(cfg, rep);
  if (doc == NULL) {
    snprintf(err, BENCH_ERRLEN, "out of memory building the JSON report for %.180s", path);
    return -1;
  }
  int to_stdout = strcmp(path, "-") == 0;
  FILE *f = to_stdout ? stdout : fopen(path, "w");
  if (f == NULL) {
    snprintf(err, BENCH_ERRLEN, "cannot write %.200s: %s", path, strerror(errno));
    cJSON_Delete(doc);
    return -1;
  }
  int oom = write_laid_out(f, doc, 0) != 0;
  cJSON_Delete(doc);
  fputc('\n', f);
  int failed = ferror(f) != 0;
  failed |= to_stdout ? fflush(f) != 0 : fclose(f) != 0;
  if (oom)
    snprintf(err, BENCH_ERRLEN, "out of memory writing %.200s", path);
  else if (failed)
    snprintf(err, BENCH_ERRLEN, "error writing %.200s", path);
  return oom || failed ? -1 : 0;
}
