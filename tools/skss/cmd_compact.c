/*
 * cmd_compact.c — `skss compact`: stream compaction of a .npy array (any
 * shape, flattened in C order) with skss_compact(): keeps, in order, the
 * elements that satisfy one predicate and writes them (and optionally their
 * indices) as 1-D .npy arrays. The library call alone is timed.
 *
 * Scalars follow NumPy 2's `a > X` for a Python scalar X. On integer arrays
 * the comparison is mathematical: an integer X is exact at any size, a
 * fractional X rounds to the equivalent integer bound (x > 2.5 is x >= 3,
 * x == 2.5 keeps none), and an X outside the dtype's range keeps all or
 * none; each case maps onto the library's exact-typed predicates (an empty
 * RANGE keeps none, GE the minimum keeps all). On float arrays X is a double
 * (rounded to float32 first for f32 arrays, NumPy's weak-scalar rule) and
 * NaN compares false except for --ne.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "commands.h"

static const char USAGE[] =
    "usage: skss compact PREDICATE [options] IN.npy OUT.npy\n\n"
    "Keeps, in order, the elements of IN (any dtype u8..i64, f32, f64, bool as\n"
    "u8; any shape, flattened in C order) that satisfy PREDICATE, writes them\n"
    "to OUT as a 1-D array of IN's dtype and prints their number. '-' reads\n"
    "stdin / writes stdout (the report then goes to stderr).\n\n"
    "PREDICATE, exactly one of:\n"
    "  --gt X, --ge X, --lt X, --le X, --eq X, --ne X   x > X, x >= X, ...\n"
    "  --range LO HI    LO <= x < HI (empty when LO >= HI)\n"
    "  --nonzero        x != 0 (NaN counts as nonzero)\n"
    "  --mask M.npy     M[k] != 0; M is a bool or u8 array with IN's size\n"
    "X compares as NumPy 2's `a > X` with a Python scalar X: exactly, at any\n"
    "size, for integer arrays (--gt 2.5 keeps x >= 3, --gt 300 on u8 keeps\n"
    "none); rounded to float32 for f32 arrays; nan and inf are accepted (a\n"
    "literal beyond the double range, such as 1e309, is +-inf, as in Python),\n"
    "and NaN compares false except for --ne. Only one of IN and M may be '-'.\n\n"
    "options:\n"
    "  --indices F      also write the kept elements' indices (int64) to F\n"
    "                   (a .npy other than OUT)\n"
    "  --backend B      auto (default), cpu-ref, cpu, cuda\n"
    "  --algorithm A    auto (default), loop, scan-cpu; cuda: onepass, flag-scan-scatter,\n"
    "                   flag-cpuscan-scatter\n"
    "  --threads N      CPU threads (default: all online CPUs)\n"
    "  --json           print the report as one JSON object\n";

/* The predicate options, in skss_compact_keep order up to MASK. */
typedef enum pred_option { P_LT, P_LE, P_GT, P_GE, P_EQ, P_NE, P_RANGE, P_NONZERO, P_MASK, P_COUNT } pred_option;

static const struct {
  const char *option, *symbol; /* symbol: for comparisons only */
  int nvalues;
  skss_compact_keep predicate;
} PREDICATES[P_COUNT] = {
    {"--lt", "<", 1, SKSS_COMPACT_KEEP_LT},          {"--le", "<=", 1, SKSS_COMPACT_KEEP_LE},
    {"--gt", ">", 1, SKSS_COMPACT_KEEP_GT},          {"--ge", ">=", 1, SKSS_COMPACT_KEEP_GE},
    {"--eq", "==", 1, SKSS_COMPACT_KEEP_EQ},         {"--ne", "!=", 1, SKSS_COMPACT_KEEP_NE},
    {"--range", NULL, 2, SKSS_COMPACT_KEEP_RANGE},   {"--nonzero", NULL, 0, SKSS_COMPACT_KEEP_NONZERO},
    {"--mask", NULL, 1, SKSS_COMPACT_KEEP_MASK_BYTES},
};

/* An integer of any size, saturated: inf = -1 / +1 below / above +-2^64. */
typedef struct xint {
  int inf;
  int neg;
  uint64_t mag;
} xint;

/* A parsed scalar operand. */
typedef struct xnum {
  int is_int; /* written as an integer: `exact` holds it */
  xint exact;
  double d; /* its value as a double (NaN, +-inf allowed) */
} xnum;

typedef struct compact_args {
  const char *values[P_COUNT][2];
  int seen[P_COUNT];
  pred_option op;
  xnum x[2];
  const char *indices, *in, *out;
  int algorithm;
} compact_args;

/* ------------------------------------------------------------- scalars */

static int parse_integer_literal(const char *s, xint *out) {
  const char *p = s + (s[0] == '-' || s[0] == '+');
  if (*p == '\0' || strspn(p, "0123456789") != strlen(p)) return -1;
  xint v = {0, 0, 0};
  for (; *p; p++) {
    uint64_t digit = (uint64_t)(*p - '0');
    if (v.mag > (UINT64_MAX - digit) / 10) v.inf = 1;
    if (!v.inf) v.mag = v.mag * 10 + digit;
  }
  v.neg = s[0] == '-' && (v.mag != 0 || v.inf);
  if (v.inf && v.neg) v.inf = -1;
  *out = v;
  return 0;
}

static int parse_scalar(const char *s, xnum *out) {
  memset(out, 0, sizeof *out);
  out->is_int = parse_integer_literal(s, &out->exact) == 0;
  if (out->is_int) {
    out->d = strtod(s, NULL);
    return 0;
  }
  return cli_parse_double(s, 1, &out->d);
}

static xint xint_from_integral_double(double v) {
  xint x = {0, 0, 0};
  if (v >= 0x1p64)
    x.inf = 1;
  else if (v <= -0x1p64)
    x.inf = -1;
  else
    x.mag = (uint64_t)fabs(v);
  x.neg = v < 0 && x.mag != 0;
  return x;
}

/* The integer bound equivalent to X for integer x: floor(X) for > and <=,
 * ceil(X) for >=, < and ranges. Returns 0 when X is NaN. */
static int integer_bound(const xnum *x, int round_up, xint *out) {
  if (x->is_int) {
    *out = x->exact;
    return 1;
  }
  if (isnan(x->d)) return 0;
  *out = xint_from_integral_double(round_up ? ceil(x->d) : floor(x->d));
  return 1;
}

static int xint_cmp(xint a, xint b) {
  if (a.inf != b.inf || a.inf != 0) return (a.inf > b.inf) - (a.inf < b.inf);
  if (a.neg != b.neg) return a.neg ? -1 : 1;
  int c = (a.mag > b.mag) - (a.mag < b.mag);
  return a.neg ? -c : c;
}

static int is_signed(skss_dtype t) {
  return t == SKSS_DTYPE_I8 || t == SKSS_DTYPE_I16 || t == SKSS_DTYPE_I32 || t == SKSS_DTYPE_I64;
}

static int is_float(skss_dtype t) { return t == SKSS_DTYPE_F32 || t == SKSS_DTYPE_F64; }

/* [min, max] of an integer dtype. */
static void dtype_range(skss_dtype t, xint range[2]) {
  unsigned bits = (unsigned)skss_dtype_size(t) * 8u;
  if (is_signed(t)) {
    range[0] = (xint){0, 1, (uint64_t)1 << (bits - 1)};
    range[1] = (xint){0, 0, ((uint64_t)1 << (bits - 1)) - 1};
  } else {
    range[0] = (xint){0, 0, 0};
    range[1] = (xint){0, 0, bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1};
  }
}

/* An in-range integer as the library's scalar for dtype t. */
static skss_scalar to_scalar(xint v, skss_dtype t) {
  skss_scalar s = {0};
  if (is_signed(t))
    s.i = v.neg ? -(int64_t)(v.mag - 1) - 1 : (int64_t)v.mag;
  else
    s.u = v.mag;
  return s;
}

/* ---------------------------------------------------- predicate mapping */

static void keep_all(skss_compact_desc *d, const xint range[2]) {
  d->keep = SKSS_COMPACT_KEEP_GE;
  d->a = to_scalar(range[0], d->dtype);
}

static void keep_none(skss_compact_desc *d) {
  d->keep = SKSS_COMPACT_KEEP_RANGE;
  d->a = d->b = to_scalar((xint){0, 0, 0}, d->dtype);
}

static void keep_cmp(skss_compact_desc *d, skss_compact_keep p, xint k) {
  d->keep = p;
  d->a = to_scalar(k, d->dtype);
}

/* lo <= x < hi on integers, with lo and hi already integer bounds. */
static void map_integer_range(skss_compact_desc *d, xint lo, xint hi, const xint range[2]) {
  if (xint_cmp(lo, hi) >= 0 || xint_cmp(lo, range[1]) > 0 || xint_cmp(hi, range[0]) <= 0) {
    keep_none(d);
    return;
  }
  if (xint_cmp(lo, range[0]) < 0) lo = range[0];
  if (xint_cmp(hi, range[1]) > 0) {
    keep_cmp(d, SKSS_COMPACT_KEEP_GE, lo);
    return;
  }
  keep_cmp(d, SKSS_COMPACT_KEEP_RANGE, lo);
  d->b = to_scalar(hi, d->dtype);
}

/* x OP k on integers, k an integer bound; `low`/`high` compare k with the
 * dtype's min/max. */
static void map_integer_cmp(skss_compact_desc *d, pred_option op, xint k, const xint range[2]) {
  int low = xint_cmp(k, range[0]), high = xint_cmp(k, range[1]);
  int inside = low >= 0 && high <= 0;
  skss_compact_keep p = PREDICATES[op].predicate;
  int all = (op == P_GT && low < 0) || (op == P_GE && low <= 0) || (op == P_LT && high > 0) ||
            (op == P_LE && high >= 0) || (op == P_NE && !inside);
  int none = (op == P_GT && high >= 0) || (op == P_GE && high > 0) || (op == P_LT && low <= 0) ||
             (op == P_LE && low < 0) || (op == P_EQ && !inside);
  if (all)
    keep_all(d, range);
  else if (none)
    keep_none(d);
  else
    keep_cmp(d, p, k);
}

static int is_integral(const xnum *x) { return x->is_int || isinf(x->d) || floor(x->d) == x->d; }

static void map_integer(skss_compact_desc *d, pred_option op, const xnum x[2]) {
  xint range[2], k, k2;
  dtype_range(d->dtype, range);
  int round_up = op == P_GE || op == P_LT || op == P_RANGE;
  int valid = integer_bound(&x[0], round_up, &k);
  if (op == P_RANGE) {
    if (valid && integer_bound(&x[1], 1, &k2))
      map_integer_range(d, k, k2, range);
    else
      keep_none(d);
  } else if (!valid || ((op == P_EQ || op == P_NE) && !is_integral(&x[0]))) {
    if (op == P_NE)
      keep_all(d, range);
    else
      keep_none(d);
  } else {
    map_integer_cmp(d, op, k, range);
  }
}

/* NumPy's weak-scalar rule for f32: X rounds to float32 (to +-inf beyond
 * the largest float, as the hardware does, without an out-of-range cast). */
static double to_float_operand(double v, skss_dtype t) {
  if (t != SKSS_DTYPE_F32 || !isfinite(v)) return v;
  if (fabs(v) >= 0x1.ffffffp127) return copysign(INFINITY, v);
  return (double)(float)v;
}

static void map_predicate(skss_compact_desc *d, const compact_args *a) {
  d->keep = PREDICATES[a->op].predicate;
  if (a->op == P_NONZERO || a->op == P_MASK) return;
  if (!is_float(d->dtype)) {
    map_integer(d, a->op, a->x);
    return;
  }
  d->a.f = to_float_operand(a->x[0].d, d->dtype);
  d->b.f = to_float_operand(a->x[1].d, d->dtype);
}

/* ---------------------------------------------------------- arguments */

static int pick_predicate(const cli_cmd *c, compact_args *a) {
  int given = 0;
  for (int p = 0; p < P_COUNT; p++) {
    if (!a->seen[p]) continue;
    given++;
    a->op = (pred_option)p;
  }
  if (given != 1)
    return cli_fail(c, EX_USAGE, "give exactly one predicate (--gt, --ge, --lt, --le, --eq, --ne, "
                                 "--range, --nonzero or --mask), not %d",
                    given);
  if (a->op == P_NONZERO || a->op == P_MASK) return EX_OK;
  for (int v = 0; v < PREDICATES[a->op].nvalues; v++)
    if (parse_scalar(a->values[a->op][v], &a->x[v]) != 0)
      return cli_fail(c, EX_USAGE, "option %s: '%s' is not a number", PREDICATES[a->op].option,
                      a->values[a->op][v]);
  return EX_OK;
}

static int parse_args(cli_cmd *c, int argc, char **argv, compact_args *a) {
  cli_opt opts[P_COUNT + 1];
  for (int p = 0; p < P_COUNT; p++)
    opts[p] = (cli_opt){PREDICATES[p].option, PREDICATES[p].nvalues, a->values[p], &a->seen[p]};
  opts[P_COUNT] = (cli_opt){"--indices", 1, &a->indices, NULL};
  int rc = cli_parse(c, argc, argv, CLI_OPT_BACKEND | CLI_OPT_ALGORITHM | CLI_OPT_JSON, opts,
                     P_COUNT + 1, 2, 2);
  if (rc != EX_OK || c->help) return rc;
  a->in = c->pos[0];
  a->out = c->pos[1];
  if (a->indices != NULL && strcmp(a->indices, "-") == 0 && strcmp(a->out, "-") == 0)
    return cli_fail(c, EX_USAGE, "OUT and --indices cannot both be '-'");
  rc = cli_check_npy_output(c, "OUT", a->out);
  if (rc == EX_OK && a->indices != NULL) rc = cli_check_npy_output(c, "--indices", a->indices);
  if (rc == EX_OK) rc = cli_check_distinct_outputs(c, "OUT", a->out, "--indices", a->indices);
  if (rc == EX_OK) rc = pick_predicate(c, a);
  if (rc == EX_OK && a->op == P_MASK) rc = cli_one_stdin(c, a->in, a->values[P_MASK][0]);
  return rc;
}

/* --------------------------------------------------------------- input */

static int read_mask(const cli_cmd *c, const compact_args *a, const skss_npy *in, skss_npy *mask) {
  const char *path = a->values[P_MASK][0];
  int rc = cli_read_npy(c, path, mask);
  if (rc != EX_OK) return rc;
  if (mask->dtype != SKSS_DTYPE_U8)
    return cli_fail(c, EX_DATAERR, "%s: a mask must be a bool or u8 array, not %s", path,
                    skss_dtype_name(mask->dtype));
  if (mask->count != in->count)
    return cli_fail(c, EX_DATAERR, "%s: the mask has %lld elements but %s has %lld", path,
                    (long long)mask->count, a->in, (long long)in->count);
  return EX_OK;
}

/* -------------------------------------------------------------- output */

/* "x > 2.5", "1 <= x < 7", "x != 0", "mask m.npy": the predicate as given. */
static void describe(const compact_args *a, char *buf, size_t size) {
  const char *const *v = a->values[a->op];
  if (a->op == P_RANGE)
    snprintf(buf, size, "%s <= x < %s", v[0], v[1]);
  else if (a->op == P_NONZERO)
    snprintf(buf, size, "x != 0");
  else if (a->op == P_MASK)
    snprintf(buf, size, "mask %s", v[0]);
  else
    snprintf(buf, size, "x %s %s", PREDICATES[a->op].symbol, v[0]);
}

static int report(const cli_cmd *c, const compact_args *a, const skss_npy *in, const skss_ctx *ctx,
                  int64_t count, double ms) {
  int to_stdout = strcmp(a->out, "-") != 0 && (a->indices == NULL || strcmp(a->indices, "-") != 0);
  FILE *out = to_stdout ? stdout : stderr;
  const char *dtype = in->is_bool ? "bool" : skss_dtype_name(in->dtype);
  char keep[8192];
  describe(a, keep, sizeof keep);
  if (!c->json) {
    fprintf(out, "compact %lld %s elements, keep %s -> %s: %lld kept\n", (long long)in->count,
            dtype, keep, a->out, (long long)count);
    cli_print_run(out, c, ctx, ms);
    return EX_OK;
  }
  cli_json j;
  cli_json_init(&j, out);
  cli_json_begin(&j, '{');
  cli_json_kv_string(&j, "command", "compact");
  cli_json_kv_int(&j, "n", in->count);
  cli_json_kv_string(&j, "dtype", dtype);
  cli_json_kv_string(&j, "predicate", PREDICATES[a->op].option + 2);
  cli_json_kv_string(&j, "keep", keep);
  cli_json_kv_int(&j, "count", count);
  cli_json_kv_string(&j, "output", a->out);
  cli_json_kv_string(&j, "indices", a->indices);
  cli_json_run(&j, c, ctx, ms);
  return cli_json_finish(c, &j);
}

static int write_outputs(const cli_cmd *c, const compact_args *a, skss_dtype dtype, int64_t count,
                         const void *values, const int64_t *indices) {
  const cli_npy_output outs[2] = {{a->out, dtype, 1, &count, values},
                                  {a->indices, SKSS_DTYPE_I64, 1, &count, indices}};
  return cli_write_npy_outputs(c, outs, 2);
}

static int compact(const cli_cmd *c, const compact_args *a, skss_ctx *ctx, const skss_npy *in,
                   const skss_npy *mask) {
  void *values = cli_alloc(c, in->count, skss_dtype_size(in->dtype));
  int64_t *indices = values && a->indices ? cli_alloc(c, in->count, sizeof(int64_t)) : NULL;
  if (values == NULL || (a->indices != NULL && indices == NULL)) {
    free(values);
    return EX_OSERR;
  }
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = in->count;
  d.dtype = in->dtype;
  d.mask = mask->data;
  d.algorithm = (skss_compact_algorithm)a->algorithm;
  map_predicate(&d, a);
  int64_t count = 0;
  double t0 = cli_now_ms();
  skss_status st = skss_compact(ctx, &d, in->data, values, indices, &count);
  double ms = cli_now_ms() - t0;
  int rc = st != SKSS_OK ? cli_fail_status(c, ctx, st) : write_outputs(c, a, in->dtype, count, values, indices);
  if (rc == EX_OK) rc = report(c, a, in, ctx, count, ms);
  free(values);
  free(indices);
  return rc;
}

int skss_cmd_compact(int argc, char **argv) {
  cli_cmd c = {.name = "compact", .usage = USAGE};
  compact_args a = {0};
  int rc = parse_args(&c, argc, argv, &a);
  if (rc != EX_OK || c.help) return rc;
  skss_ctx *ctx;
  rc = cli_context(&c, SKSS_OP_COMPACT, &ctx, &a.algorithm);
  if (rc != EX_OK) return rc;
  skss_npy in = {0}, mask = {0};
  rc = cli_read_npy(&c, a.in, &in);
  if (rc == EX_OK && a.op == P_MASK) rc = read_mask(&c, &a, &in, &mask);
  if (rc == EX_OK) rc = compact(&c, &a, ctx, &in, &mask);
  skss_npy_free(&in);
  skss_npy_free(&mask);
  skss_ctx_destroy(ctx);
  return rc;
}
