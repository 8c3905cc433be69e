/*
 * cmd_knapsack.c — `skss knapsack`: solves a 0-1 knapsack instance (the
 * standard generator's text format, or "weight,value" CSV lines) with
 * skss_knapsack() and prints the optimal value, total weight and chosen item
 * ids, and with --values-by-capacity the optimum for every capacity 0..C as
 * an int64 .npy. The library's working memory is bounded (--max-memory, default 4 GiB):
 * a 43-byte file can ask for a capacity of 10^9. The library call alone is
 * timed.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss knapsack [options] FILE\n\n"
    "Solves the 0-1 knapsack instance in FILE ('-' = stdin) by dynamic\n"
    "programming and prints the optimal value, the total weight and the ids of\n"
    "the chosen items (every backend chooses the same set). FILE is either the\n"
    "standard generator's text: n, then n lines 'id value weight', then the\n"
    "capacity; or CSV lines 'weight,value' (optional header), items numbered\n"
    "from 1, with --capacity.\n\n"
    "  --capacity C     knapsack capacity, an integer >= 0 (replaces the file's)\n"
    "  --value-only     only the optimal value (O(C) memory, no item list)\n"
    "  --max-memory M   the most working memory the solver may use, in bytes\n"
    "                   or with a suffix K, M, G, T (powers of 1024); default 4G.\n"
    "                   When the item list's decision bits do not fit, the items\n"
    "                   come from value-row checkpoints (same items, slower);\n"
    "                   when even that does not fit, the run fails at once\n"
    "                   (exit 71) and says how many bytes it would need\n"
    "  --values-by-capacity OUT.npy\n"
    "                   also write the optimum for every capacity 0..C (C + 1\n"
    "                   int64) from the same pass\n"
    "  --backend B      auto (default), cpu-ref, cpu, cuda\n"
    "  --time-limit MS  stop the core search after MS milliseconds (exit 75,\n"
    "                   no answer); default: none\n"
    "  --algorithm A    auto (default); cpu-ref, cpu: core (one optimum from\n"
    "                   an expanding core: auto on cpu without\n"
    "                   --values-by-capacity; its item set is any optimal one),\n"
    "                   dp; cpu: taskarray-cpu;\n"
    "                   cuda: parallel-forward, parallel-fair-K (K = 2, 4, 8,\n"
    "                   16, 32), skss (the paper's, each keeping the whole\n"
    "                   value table in device memory), strips (ours, auto)\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --json           print {\"value\", \"weight\", \"items\", \"n\", \"capacity\",\n"
    "                   \"time_ms\", ...} (value-only: no weight or items)\n";

/* The default of --max-memory: 4 GiB. */
#define KNAPSACK_DEFAULT_MAX_BYTES ((int64_t)4 << 30)

typedef struct knapsack_args {
  const char *capacity_text, *max_memory_text, *table_out, *time_limit_text;
  int64_t time_limit_ms;
  int64_t capacity; /* -1: the file's */
  int64_t max_bytes;
  int value_only;
  const char *in;
} knapsack_args;

typedef struct knapsack_result {
  int64_t value, weight, chosen;
  uint8_t *taken; /* NULL in value-only mode */
  double ms;
} knapsack_result;

/* A byte count: decimal digits and an optional K, M, G or T (x 1024^k). */
static int parse_size(const char *s, int64_t *out) {
  size_t digits = strspn(s, "0123456789");
  static const char SUFFIXES[] = "KMGT";
  const char *suffix = s[digits] != '\0' ? strchr(SUFFIXES, s[digits]) : NULL;
  if (digits == 0 || digits > 18 || (s[digits] != '\0' && (suffix == NULL || s[digits + 1] != '\0')))
    return -1;
  int64_t v = 0;
  for (size_t k = 0; k < digits; k++) v = v * 10 + (s[k] - '0');
  int shift = suffix ? 10 * (int)(suffix - SUFFIXES + 1) : 0;
  if (v > (INT64_MAX >> shift)) return -1;
  *out = v << shift;
  return 0;
}

static int parse_args(cli_cmd *c, int argc, char **argv, knapsack_args *a) {
  const cli_opt opts[] = {
      {"--capacity", 1, &a->capacity_text, NULL},
      {"--value-only", 0, NULL, &a->value_only},
      {"--max-memory", 1, &a->max_memory_text, NULL},
      {"--values-by-capacity", 1, &a->table_out, NULL},
      {"--time-limit", 1, &a->time_limit_text, NULL},
  };
  int rc = cli_parse(c, argc, argv, CLI_OPT_BACKEND | CLI_OPT_ALGORITHM | CLI_OPT_JSON, opts,
                     sizeof opts / sizeof opts[0], 1, 1);
  if (rc != EX_OK || c->help) return rc;
  a->in = c->pos[0];
  a->capacity = -1;
  a->max_bytes = KNAPSACK_DEFAULT_MAX_BYTES;
  if (a->max_memory_text != NULL && (parse_size(a->max_memory_text, &a->max_bytes) != 0 || a->max_bytes == 0))
    return cli_fail(c, EX_USAGE, "option --max-memory: '%s' is not a size such as 512M or 8G",
                    a->max_memory_text);
  if (a->table_out != NULL) {
    rc = cli_check_npy_output(c, "--values-by-capacity", a->table_out);
    if (rc != EX_OK) return rc;
    if (strcmp(a->table_out, "-") == 0)
      return cli_fail(c, EX_USAGE, "--values-by-capacity: stdout holds the report; give a .npy file");
  }
  rc = cli_option_i64(c, "--time-limit", a->time_limit_text, 1, INT64_MAX, &a->time_limit_ms);
  if (rc != EX_OK) return rc;
  return cli_option_i64(c, "--capacity", a->capacity_text, 0, INT64_MAX, &a->capacity);
}

static int read_instance(const cli_cmd *c, const knapsack_args *a, skss_knapsack_instance *inst) {
  uint8_t *data;
  size_t size;
  char err[SKSS_IO_ERRLEN];
  int rc = cli_read_input(c, a->in, &data, &size);
  if (rc != EX_OK) return rc;
  int io_rc = skss_knapsack_parse((const char *)data, size, a->capacity, inst, err);
  if (io_rc != 0) rc = cli_fail(c, cli_io_exit_code(io_rc, EX_DATAERR), "%s: %s", a->in, err);
  free(data);
  return rc;
}

static void print_text(const cli_cmd *c, const skss_knapsack_instance *inst, const skss_ctx *ctx,
                       const knapsack_result *r) {
  printf("knapsack: %lld items, capacity %lld\n", (long long)inst->n, (long long)inst->capacity);
  printf("optimal value: %lld\n", (long long)r->value);
  if (r->taken != NULL) {
    printf("total weight: %lld\n", (long long)r->weight);
    printf("chosen items (%lld):", (long long)r->chosen);
    for (int64_t j = 0; j < inst->n; j++)
      if (r->taken[j]) printf(" %lld", (long long)inst->ids[j]);
    putchar('\n');
  }
  cli_print_run(stdout, c, ctx, r->ms);
}

static int print_json(const cli_cmd *c, const skss_knapsack_instance *inst, const skss_ctx *ctx,
                      const knapsack_result *r) {
  cli_json j;
  cli_json_init(&j, stdout);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "command", "knapsack");
  cli_json_kv_int(&j, "value", r->value);
  if (r->taken != NULL) {
    cli_json_kv_int(&j, "weight", r->weight);
    cli_json_key(&j, "items");
    cli_json_begin(&j, '[');
    for (int64_t k = 0; k < inst->n; k++)
      if (r->taken[k]) cli_json_int(&j, inst->ids[k]);
    cli_json_end(&j, ']');
  }
  cli_json_kv_int(&j, "n", inst->n);
  cli_json_kv_int(&j, "capacity", inst->capacity);
  cli_json_run(&j, c, ctx, r->ms);
  return cli_json_finish(c, &j);
}

/* Totals of the chosen items; weights sum to at most the capacity. */
static void tally(const skss_knapsack_instance *inst, knapsack_result *r) {
  r->weight = 0;
  r->chosen = 0;
  for (int64_t k = 0; k < inst->n; k++) {
    if (!r->taken[k]) continue;
    r->weight += inst->weights[k];
    r->chosen++;
  }
}

static int solve(const cli_cmd *c, const knapsack_args *a, skss_ctx *ctx, int algorithm,
                 const skss_knapsack_instance *inst) {
  knapsack_result r = {0};
  if (!a->value_only && (r.taken = cli_alloc(c, inst->n, 1)) == NULL) return EX_OSERR;
  int64_t *table = NULL;
  if (a->table_out != NULL) {
    if (inst->capacity >= INT64_MAX / 8) {
      free(r.taken);
      return cli_fail(c, EX_USAGE, "--values-by-capacity: capacity %lld is too large for a table",
                      (long long)inst->capacity);
    }
    if ((table = cli_alloc(c, inst->capacity + 1, sizeof *table)) == NULL) {
      free(r.taken);
      return EX_OSERR;
    }
  }
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = inst->n;
  d.capacity = inst->capacity;
  d.value_only = a->value_only;
  d.max_bytes = a->max_bytes;
  d.algorithm = (skss_knapsack_algorithm)algorithm;
  d.values_by_capacity = table;
  d.time_limit_ms = a->time_limit_ms;
  double t0 = cli_now_ms();
  skss_status st = skss_knapsack(ctx, &d, inst->weights, inst->values, &r.value, r.taken);
  r.ms = cli_now_ms() - t0;
  int rc = st == SKSS_OK                   ? EX_OK
           : st == SKSS_ERR_OUT_OF_MEMORY ? cli_fail(c, EX_OSERR, "%s; --max-memory SIZE sets max_bytes",
                                                     skss_ctx_last_error(ctx))
                                          : cli_fail_status(c, ctx, st);
  if (rc == EX_OK && r.taken != NULL) tally(inst, &r);
  if (rc == EX_OK && table != NULL) {
    const int64_t shape = inst->capacity + 1;
    const cli_npy_output out = {a->table_out, SKSS_DTYPE_I64, 1, &shape, table};
    rc = cli_write_npy_outputs(c, &out, 1);
  }
  if (rc == EX_OK && c->json) rc = print_json(c, inst, ctx, &r);
  if (rc == EX_OK && !c->json) print_text(c, inst, ctx, &r);
  free(table);
  free(r.taken);
  return rc;
}

int skss_cmd_knapsack(int argc, char **argv) {
  cli_cmd c = {.name = "knapsack", .usage = USAGE};
  knapsack_args a = {0};
  int rc = parse_args(&c, argc, argv, &a);
  if (rc != EX_OK || c.help) return rc;
  skss_ctx *ctx;
  int algorithm;
  rc = cli_context(&c, SKSS_OP_KNAPSACK, &ctx, &algorithm);
  if (rc != EX_OK) return rc;
  skss_knapsack_instance inst = {0};
  rc = read_instance(&c, &a, &inst);
  if (rc == EX_OK) rc = solve(&c, &a, ctx, algorithm, &inst);
  skss_knapsack_instance_free(&inst);
  skss_ctx_destroy(ctx);
  return rc;
}
