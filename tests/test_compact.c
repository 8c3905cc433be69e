/*
 * test_compact.c — skss_compact() on the CPU backends. Oracles: a brute-force
 * compaction written here from skss.h's rules (a three-way comparison in the
 * dtype's own class, NaN unordered), hand-computed expectations for the edge
 * values (type limits, out-of-range scalars, -0.0, NaN, infinities, the
 * float32 rounding of the scalar, empty ranges), and properties (indices
 * increase, values[i] == in[indices[i]], complementary predicates add up).
 * Every dtype x predicate x output set (values, indices, both, neither) runs
 * on CPU_REF (the oracle of test_backends.c, which runs every other backend
 * against it); outputs are poisoned so a byte written past the count is
 * caught. The properties hold on CPU with LOOP, SCAN_CPU (1, 2, 3, 5
 * threads) and AUTO; SCAN_CPU on 32 threads (owners descheduled mid-block,
 * so the look-back counts their blocks) with the SIMD scatter on and off.
 * Misuse fails with the right status and message and leaves *count
 * untouched.
 */
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xA5

static const skss_dtype DTYPES[] = {SKSS_DTYPE_U8,  SKSS_DTYPE_I8,  SKSS_DTYPE_U16, SKSS_DTYPE_I16,
                                    SKSS_DTYPE_U32, SKSS_DTYPE_I32, SKSS_DTYPE_U64, SKSS_DTYPE_I64,
                                    SKSS_DTYPE_F32, SKSS_DTYPE_F64};
#define N_DTYPES ((int)(sizeof DTYPES / sizeof DTYPES[0]))
#define N_PREDICATES (SKSS_COMPACT_KEEP_MASK_BITS + 1)

static const char *const PREDICATE_NAMES[N_PREDICATES] = {
    "lt", "le", "gt", "ge", "eq", "ne", "range", "nonzero", "mask-bytes", "mask-bits"};

/* Which outputs a call asks for. */
enum { OUT_VALUES = 1, OUT_INDICES = 2 };

/* ---- elements as numbers ----------------------------------------------- */

/* An element or a scalar in its dtype's class: exactly one member is used. */
typedef struct number {
  int64_t i;
  uint64_t u;
  double f;
} number;

/* Each dtype: its C type and the member of `number` that holds it. */
#define TEST_DTYPES(X)                                                    \
  X(SKSS_DTYPE_U8, uint8_t, u) X(SKSS_DTYPE_I8, int8_t, i)                \
  X(SKSS_DTYPE_U16, uint16_t, u) X(SKSS_DTYPE_I16, int16_t, i)            \
  X(SKSS_DTYPE_U32, uint32_t, u) X(SKSS_DTYPE_I32, int32_t, i)            \
  X(SKSS_DTYPE_U64, uint64_t, u) X(SKSS_DTYPE_I64, int64_t, i)            \
  X(SKSS_DTYPE_F32, float, f) X(SKSS_DTYPE_F64, double, f)

static number element(skss_dtype t, const void *data, int64_t k) {
  const char *p = (const char *)data + (size_t)k * skss_dtype_size(t);
  number x = {0, 0, 0.0};
#define LOAD(DT, T, FIELD) \
  case DT: { T v; memcpy(&v, p, sizeof v); x.FIELD = v; } break;
  switch (t) { TEST_DTYPES(LOAD) }
#undef LOAD
  return x;
}

/* The scalar as skss.h reads it: .i, .u, or .f (rounded to float for f32). */
static number scalar(skss_dtype t, skss_scalar s) {
  number x = {0, 0, 0.0};
  if (t == SKSS_DTYPE_F32) x.f = (double)(float)s.f;
  else if (tu_dtype_is_float(t)) x.f = s.f;
  else if (tu_dtype_is_signed(t)) x.i = s.i;
  else x.u = s.u;
  return x;
}

/* -1, 0, 1, or 2 when unordered (a NaN). */
static int compare(skss_dtype t, number x, number y) {
  if (tu_dtype_is_float(t)) {
    if (isnan(x.f) || isnan(y.f)) return 2;
    return x.f < y.f ? -1 : x.f > y.f ? 1 : 0;
  }
  if (tu_dtype_is_signed(t)) return x.i < y.i ? -1 : x.i > y.i ? 1 : 0;
  return x.u < y.u ? -1 : x.u > y.u ? 1 : 0;
}

static bool brute_keep(const skss_compact_desc *d, const void *in, int64_t k) {
  const uint8_t *mask = d->mask;
  if (d->keep == SKSS_COMPACT_KEEP_MASK_BYTES) return mask[k] != 0;
  if (d->keep == SKSS_COMPACT_KEEP_MASK_BITS) return (mask[k / 8] >> (k % 8)) & 1;
  number x = element(d->dtype, in, k);
  int ca = compare(d->dtype, x, scalar(d->dtype, d->a));
  switch (d->keep) {
    case SKSS_COMPACT_KEEP_LT: return ca == -1;
    case SKSS_COMPACT_KEEP_LE: return ca == -1 || ca == 0;
    case SKSS_COMPACT_KEEP_GT: return ca == 1;
    case SKSS_COMPACT_KEEP_GE: return ca == 1 || ca == 0;
    case SKSS_COMPACT_KEEP_EQ: return ca == 0;
    case SKSS_COMPACT_KEEP_NE: return ca != 0;
    case SKSS_COMPACT_KEEP_RANGE: return (ca == 1 || ca == 0) && compare(d->dtype, x, scalar(d->dtype, d->b)) == -1;
    case SKSS_COMPACT_KEEP_NONZERO: {
      number zero = {0, 0, 0.0};
      return compare(d->dtype, x, zero) != 0;
    }
    default: break;
  }
  return false;
}

/* ---- the compaction under test against brute force ---------------------- */

typedef struct expected {
  int64_t count;
  uint8_t *values;
  int64_t *indices;
} expected;

static expected brute_compact(const skss_compact_desc *d, const void *in) {
  size_t elem = skss_dtype_size(d->dtype);
  expected e = {0, malloc((size_t)d->n * elem + 1), malloc((size_t)d->n * 8 + 1)};
  assert_true(e.values != NULL && e.indices != NULL);
  for (int64_t k = 0; k < d->n; k++) {
    if (!brute_keep(d, in, k)) continue;
    memcpy(e.values + (size_t)e.count * elem, (const char *)in + (size_t)k * elem, elem);
    e.indices[e.count++] = k;
  }
  return e;
}

static void free_expected(expected *e) {
  free(e->values);
  free(e->indices);
}

static bool all_poison(const uint8_t *p, size_t bytes) {
  for (size_t k = 0; k < bytes; k++)
    if (p[k] != POISON) return false;
  return true;
}

/* One call with the outputs `outputs` asks for, checked against `e`. */
static void check_call(skss_ctx *ctx, const skss_compact_desc *d, const void *in, int outputs,
                       const expected *e, const char *what) {
  size_t elem = skss_dtype_size(d->dtype), n = (size_t)d->n;
  uint8_t *values = malloc(n * elem + 1);
  int64_t *indices = malloc(n * 8 + 8);
  assert_true(values != NULL && indices != NULL);
  memset(values, POISON, n * elem + 1);
  memset(indices, POISON, n * 8 + 8);
  int64_t count = -7;
  TU_OK(ctx, skss_compact(ctx, d, in, (outputs & OUT_VALUES) ? values : NULL,
                          (outputs & OUT_INDICES) ? indices : NULL, &count));
  const char *backend = skss_backend_name(skss_ctx_backend(ctx));
  const char *alg = skss_algorithm_name(SKSS_OP_COMPACT, d->algorithm);
  const char *dt = skss_dtype_name(d->dtype), *pr = PREDICATE_NAMES[d->keep];
  int threads = skss_ctx_threads(ctx);
  if (count != e->count)
    TU_FAIL("%s: %s/%s x%d %s %s n=%lld outputs=%d: count %lld, expected %lld", what, backend, alg,
            threads, dt, pr, (long long)d->n, outputs, (long long)count, (long long)e->count);
  size_t kept = (size_t)count;
  bool values_ok = (outputs & OUT_VALUES) ? memcmp(values, e->values, kept * elem) == 0 &&
                                                all_poison(values + kept * elem, (n - kept) * elem + 1)
                                          : all_poison(values, n * elem + 1);
  bool indices_ok = (outputs & OUT_INDICES)
                        ? memcmp(indices, e->indices, kept * 8) == 0 &&
                              all_poison((uint8_t *)(indices + kept), (n - kept) * 8 + 8)
                        : all_poison((uint8_t *)indices, n * 8 + 8);
  if (!values_ok || !indices_ok)
    TU_FAIL("%s: %s/%s x%d %s %s n=%lld outputs=%d: %s differ or were written past the count", what,
            backend, alg, threads, dt, pr, (long long)d->n, outputs, values_ok ? "indices" : "values");
  free(values);
  free(indices);
}

/* ---- contexts and algorithms --------------------------------------------- */

typedef struct config {
  skss_backend backend;
  int threads;
  skss_compact_algorithm algorithm;
} config;

static const config CONFIGS[] = {
    {SKSS_BACKEND_CPU_REF, 1, SKSS_COMPACT_ALGORITHM_AUTO}, {SKSS_BACKEND_CPU, 1, SKSS_COMPACT_ALGORITHM_LOOP},
    {SKSS_BACKEND_CPU, 1, SKSS_COMPACT_ALGORITHM_SCAN_CPU}, {SKSS_BACKEND_CPU, 2, SKSS_COMPACT_ALGORITHM_SCAN_CPU},
    {SKSS_BACKEND_CPU, 3, SKSS_COMPACT_ALGORITHM_SCAN_CPU}, {SKSS_BACKEND_CPU, 5, SKSS_COMPACT_ALGORITHM_SCAN_CPU},
    {SKSS_BACKEND_CPU, 2, SKSS_COMPACT_ALGORITHM_AUTO},
};
#define N_CONFIGS ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

typedef struct contexts {
  skss_ctx *ctx[N_CONFIGS];
} contexts;

static int setup_contexts(void **state) {
  contexts *c = malloc(sizeof *c);
  assert_non_null(c);
  for (int k = 0; k < N_CONFIGS; k++) c->ctx[k] = tu_ctx(CONFIGS[k].backend, CONFIGS[k].threads);
  *state = c;
  return 0;
}

static int teardown_contexts(void **state) {
  contexts *c = *state;
  for (int k = 0; k < N_CONFIGS; k++) skss_ctx_destroy(c->ctx[k]);
  free(c);
  return 0;
}

/* Every CPU_REF configuration and output set against brute force. */
static void check_reference(const contexts *c, skss_compact_desc d, const void *in, const char *what) {
  expected e = brute_compact(&d, in);
  for (int k = 0; k < N_CONFIGS; k++) {
    if (CONFIGS[k].backend != SKSS_BACKEND_CPU_REF) continue;
    d.algorithm = CONFIGS[k].algorithm;
    for (int outputs = 0; outputs < 4; outputs++) check_call(c->ctx[k], &d, in, outputs, &e, what);
  }
  free_expected(&e);
}

/* ---- data ---------------------------------------------------------------- */

/* Stores number x as element k of dtype t (integers wrap into the type). */
static void store(skss_dtype t, void *data, int64_t k, number x) {
  char *p = (char *)data + (size_t)k * skss_dtype_size(t);
#define STORE(DT, T, FIELD) \
  case DT: { T v = (T)x.FIELD; memcpy(p, &v, sizeof v); } break;
  switch (t) { TEST_DTYPES(STORE) }
#undef STORE
}

static number type_min(skss_dtype t) {
  number x = {0, 0, 0.0};
  unsigned bits = 8u * (unsigned)skss_dtype_size(t);
  if (tu_dtype_is_float(t)) x.f = -INFINITY;
  else if (tu_dtype_is_signed(t)) x.i = bits == 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
  return x;
}

static number type_max(skss_dtype t) {
  number x = {0, 0, 0.0};
  unsigned bits = 8u * (unsigned)skss_dtype_size(t);
  if (tu_dtype_is_float(t)) x.f = t == SKSS_DTYPE_F32 ? FLT_MAX : DBL_MAX;
  else if (tu_dtype_is_signed(t)) x.i = bits == 64 ? INT64_MAX : ((int64_t)1 << (bits - 1)) - 1;
  else x.u = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  return x;
}

/* The dtype's awkward values near the scalars a and b, and its limits. */
static int specials(skss_dtype t, const skss_compact_desc *d, number *out) {
  int n = 0;
  number lim[2] = {type_min(t), type_max(t)}, sc[2] = {scalar(t, d->a), scalar(t, d->b)};
  out[n++] = lim[0];
  out[n++] = lim[1];
  out[n++] = (number){0, 0, 0.0};
  out[n++] = (number){1, 1, 1.0};
  out[n++] = (number){-1, 0, -1.0};
  for (int s = 0; s < 2; s++) {
    if (tu_dtype_is_float(t)) {
      bool single = t == SKSS_DTYPE_F32;
      out[n++] = sc[s];
      out[n++] = (number){0, 0, single ? nextafterf((float)sc[s].f, INFINITY) : nextafter(sc[s].f, INFINITY)};
      out[n++] = (number){0, 0, single ? nextafterf((float)sc[s].f, -INFINITY) : nextafter(sc[s].f, -INFINITY)};
    } else if (compare(t, sc[s], lim[0]) != -1 && compare(t, sc[s], lim[1]) != 1) {
      out[n++] = sc[s];
      out[n++] = (number){sc[s].i + (sc[s].i != INT64_MAX), sc[s].u + (sc[s].u != UINT64_MAX), 0.0};
      out[n++] = (number){sc[s].i - (sc[s].i != INT64_MIN), sc[s].u - (sc[s].u != 0), 0.0};
    }
  }
  if (tu_dtype_is_float(t)) {
    out[n++] = (number){0, 0, NAN};
    out[n++] = (number){0, 0, -NAN};
    out[n++] = (number){0, 0, INFINITY};
    out[n++] = (number){0, 0, -0.0};
    out[n++] = (number){0, 0, t == SKSS_DTYPE_F32 ? (double)FLT_TRUE_MIN : DBL_TRUE_MIN};
  }
  return n;
}

/* Random elements, a quarter of them awkward; masks random (bits past n set,
 * to be ignored). */
static void fill(tu_rng *rng, const skss_compact_desc *d, void *in, uint8_t *mask) {
  number sp[32];
  int nsp = specials(d->dtype, d, sp);
  for (int64_t k = 0; k < d->n; k++) {
    number x = {(int64_t)tu_next(rng), tu_next(rng), (tu_unit(rng) - 0.5) * 8.0};
    if (tu_range(rng, 0, 3) == 0) x = sp[tu_range(rng, 0, nsp - 1)];
    store(d->dtype, in, k, x);
  }
  for (int64_t k = 0; k < d->n; k++) mask[k] = tu_range(rng, 0, 1) ? (uint8_t)tu_range(rng, 1, 255) : 0;
  if (d->keep == SKSS_COMPACT_KEEP_MASK_BITS && d->n % 8 != 0) mask[d->n / 8] |= (uint8_t)(0xFF << (d->n % 8));
}

/* The scalar pairs of tu_compact_scalars(). */
#define N_SCALARS 4

/* ---- the matrix: every dtype x predicate x output set on CPU_REF ---------- */

static const int64_t MATRIX_SIZES[] = {0, 1, 31, 32, 33, 63, 64, 65, 127, 8191, 8193, 20011};

/* One random case (fill() data, scalar pair `scalars`) checked by `check`. */
typedef void (*case_check)(const contexts *c, skss_compact_desc d, const void *in, const char *what);
static void random_case(const contexts *c, tu_rng *rng, skss_dtype dtype, skss_compact_keep keep, int64_t n,
                        int scalars, case_check check, const char *what) {
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.dtype = dtype;
  d.keep = keep;
  d.n = n;
  tu_compact_scalars(rng, d.dtype, scalars, &d.a, &d.b);
  void *in = malloc((size_t)n * 8 + 1);
  uint8_t *mask = malloc((size_t)n + 1);
  assert_true(in != NULL && mask != NULL);
  d.mask = keep >= SKSS_COMPACT_KEEP_MASK_BYTES ? mask : NULL;
  fill(rng, &d, in, mask);
  check(c, d, n == 0 ? NULL : in, what);
  free(in);
  free(mask);
}

static void test_matrix(void **state) {
  const contexts *c = *state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed());
  for (int t = 0; t < N_DTYPES; t++) {
    for (int p = 0; p < N_PREDICATES; p++) {
      for (int s = 0; s < N_SCALARS; s++) {
        for (size_t z = 0; z < sizeof MATRIX_SIZES / sizeof MATRIX_SIZES[0]; z++) {
          /* the masks and the sizes that only the chain of blocks needs: one scalar pair */
          if (s > 0 && (p >= SKSS_COMPACT_KEEP_MASK_BYTES || MATRIX_SIZES[z] > 8192)) continue;
          random_case(c, &rng, DTYPES[t], (skss_compact_keep)p, MATRIX_SIZES[z], s, check_reference,
                      "matrix");
        }
      }
    }
  }
}

/* ---- in place: out_values == in ------------------------------------------- */

/* Every configuration compacts a copy of `in` into itself: the kept elements
 * at the front, the slots past the count as they were, the indices as out
 * of place. */
static void check_in_place(const contexts *c, skss_compact_desc d, const void *in, const char *what) {
  expected e = brute_compact(&d, in);
  size_t elem = skss_dtype_size(d.dtype), n = (size_t)d.n;
  uint8_t *buf = malloc(n * elem + 1);
  int64_t *indices = malloc(n * 8 + 8);
  assert_true(buf != NULL && indices != NULL);
  for (int k = 0; k < N_CONFIGS; k++) {
    d.algorithm = CONFIGS[k].algorithm;
    for (int with_indices = 0; with_indices < 2; with_indices++) {
      if (n > 0) memcpy(buf, in, n * elem);
      memset(indices, POISON, n * 8 + 8);
      int64_t count = -7;
      TU_OK(c->ctx[k], skss_compact(c->ctx[k], &d, n > 0 ? buf : NULL, n > 0 ? buf : NULL,
                                    with_indices ? indices : NULL, &count));
      const size_t kept = (size_t)count;
      const bool ok = count == e.count && (kept == 0 || memcmp(buf, e.values, kept * elem) == 0) &&
                      (kept == n || memcmp(buf + kept * elem, (const uint8_t *)in + kept * elem,
                                           (n - kept) * elem) == 0) &&
                      (!with_indices || kept == 0 || memcmp(indices, e.indices, kept * 8) == 0) &&
                      all_poison((uint8_t *)(indices + (with_indices ? kept : 0)),
                                 (n - (with_indices ? kept : 0)) * 8 + 8);
      if (!ok)
        TU_FAIL("%s: %s/%s x%d %s %s n=%lld indices=%d: count %lld (expected %lld), or the "
                "front, the rest of the input or the indices differ",
                what, skss_backend_name(CONFIGS[k].backend), skss_algorithm_name(SKSS_OP_COMPACT, d.algorithm),
                CONFIGS[k].threads, skss_dtype_name(d.dtype), PREDICATE_NAMES[d.keep], (long long)d.n,
                with_indices, (long long)count, (long long)e.count);
    }
  }
  free(buf);
  free(indices);
  free_expected(&e);
}

static void test_in_place(void **state) {
  const contexts *c = *state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 7);
  static const int64_t sizes[] = {0, 1, 31, 33, 257, 8193, 65537, 300007};
  for (int t = 0; t < N_DTYPES; t++) {
    for (int p = 0; p < N_PREDICATES; p++) {
      for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        if (sizes[z] > 8193 && t % 3 != 0) continue; /* the block chain on a few widths */
        random_case(c, &rng, DTYPES[t], (skss_compact_keep)p, sizes[z], (int)(z % N_SCALARS),
                    check_in_place, "in place");
      }
    }
  }
  /* any other overlap with the input is still refused */
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = 64;
  float in[65] = {0};
  int64_t count = 0;
  skss_ctx *ctx = c->ctx[0];
  assert_int_equal(skss_compact(ctx, &d, in, in + 1, NULL, &count), SKSS_ERR_INVALID_ARG);
  assert_non_null(strstr(skss_ctx_last_error(ctx), "only out_values == in"));
  assert_int_equal(skss_compact(ctx, &d, in + 1, in, NULL, &count), SKSS_ERR_INVALID_ARG);
}

/* ---- large inputs, selectivity 0, 50 and 100 % ------------------------------ */

static void check_large(void *c, skss_compact_desc d, const void *in) {
  check_reference(c, d, in, d.keep == SKSS_COMPACT_KEEP_MASK_BITS ? "large bit mask" : "large f32");
}

static void test_large(void **state) {
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 1);
  tu_compact_large(&rng, check_large, *state);
}

/* Far more threads than cores, so block owners get descheduled mid-block and
 * the look-back counts their blocks for them (the path a quiet machine rarely
 * takes); repeated, on the SIMD and portable scatters (a context made with
 * SKSS_CPU_ISA=scalar). */
static void test_oversubscribed(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 3);
  const int64_t n = 2000003;
  double *in = malloc((size_t)n * sizeof(double));
  assert_non_null(in);
  for (int64_t k = 0; k < n; k++) in[k] = tu_unit(&rng);
  skss_ctx *ctx = NULL;
  for (int round = 0; round < 8; round++) {
    if (round % 4 == 0) {
      if (round == 4) setenv("SKSS_CPU_ISA", "scalar", 1); /* read at creation */
      skss_ctx_destroy(ctx);
      ctx = tu_ctx(SKSS_BACKEND_CPU, 32);
      unsetenv("SKSS_CPU_ISA");
    }
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.n = n;
    d.dtype = SKSS_DTYPE_F64;
    d.keep = round % 2 ? SKSS_COMPACT_KEEP_GT : SKSS_COMPACT_KEEP_RANGE;
    d.a.f = 0.25 * (round % 3);
    d.b.f = 0.9;
    d.algorithm = SKSS_COMPACT_ALGORITHM_SCAN_CPU;
    expected e = brute_compact(&d, in);
    check_call(ctx, &d, in, round % 4 < 2 ? OUT_VALUES : OUT_VALUES | OUT_INDICES, &e, "oversubscribed");
    free_expected(&e);
  }
  free(in);
  skss_ctx_destroy(ctx);
}

/* ---- hand-computed edge cases -------------------------------------------- */

typedef struct edge_case {
  skss_dtype dtype;
  skss_compact_keep predicate;
  skss_scalar a, b;
  uint64_t kept; /* bit k: element k is kept */
} edge_case;

/* The elements the edge cases run on, per class. */
static const float F32_EDGES[] = {NAN, -INFINITY, -0.0f, 0.0f, 1.0f, INFINITY, FLT_TRUE_MIN, 0.1f, FLT_MAX};
static const double F64_EDGES[] = {NAN, -INFINITY, -0.0, 0.0, 1.0, INFINITY, DBL_TRUE_MIN, 0.1, DBL_MAX};
static const int8_t I8_EDGES[] = {INT8_MIN, -1, 0, 1, INT8_MAX};
static const uint8_t U8_EDGES[] = {0, 1, 127, 128, UINT8_MAX};
static const int64_t I64_EDGES[] = {INT64_MIN, -1, 0, 1, INT64_MAX};
static const uint64_t U64_EDGES[] = {0, 1, UINT64_MAX - 1, UINT64_MAX};

#define F(x) {.f = (x)}
#define I(x) {.i = (x)}
#define U(x) {.u = (x)}
static const edge_case EDGES[] = {
    /* floats: NaN never compares, except NE and NONZERO */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_LT, F(0.0), F(0), 0x002},         /* -inf */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_LE, F(-0.0), F(0), 0x00E},        /* -inf, -0, +0 */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_GT, F(0.0), F(0), 0x1F0},         /* 1, inf, tiny, 0.1, max */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_EQ, F(NAN), F(0), 0x000},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_NE, F(NAN), F(0), 0x1FF},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_NE, F(0.0), F(0), 0x1F3},         /* NaN != 0 */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_NONZERO, F(0), F(0), 0x1F3},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_LT, F(-INFINITY), F(0), 0x000},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_LE, F(-INFINITY), F(0), 0x002},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_GT, F(INFINITY), F(0), 0x000},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_GE, F(INFINITY), F(0), 0x020},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_GE, F(1e300), F(0), 0x020},       /* (float)1e300 = inf */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_EQ, F(0.1), F(0), 0x080},         /* (float)0.1 == 0.1f */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_LT, F(1e-50), F(0), 0x002},       /* (float)1e-50 = +0 */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_RANGE, F(-INFINITY), F(INFINITY), 0x1DE},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_RANGE, F(-INFINITY), F(-INFINITY), 0x000},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_RANGE, F(1.0), F(1.0), 0x000},    /* a >= b: empty */
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_RANGE, F(2.0), F(1.0), 0x000},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_RANGE, F(0.0), F(NAN), 0x000},
    {SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_RANGE, F(-0.0), F(FLT_TRUE_MIN), 0x00C}, /* both zeros */
    {SKSS_DTYPE_F64, SKSS_COMPACT_KEEP_EQ, F(0.1), F(0), 0x080},
    {SKSS_DTYPE_F64, SKSS_COMPACT_KEEP_GE, F(1e300), F(0), 0x120},       /* inf, DBL_MAX */
    {SKSS_DTYPE_F64, SKSS_COMPACT_KEEP_NONZERO, F(0), F(0), 0x1F3},
    {SKSS_DTYPE_F64, SKSS_COMPACT_KEEP_GT, F(-INFINITY), F(0), 0x1FC},
    {SKSS_DTYPE_F64, SKSS_COMPACT_KEEP_LE, F(NAN), F(0), 0x000},
    /* integers: scalars outside the type compare exactly */
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_LT, I(300), I(0), 0x1F},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_GT, I(300), I(0), 0x00},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_GE, I(-300), I(0), 0x1F},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_EQ, I(256), I(0), 0x00},           /* not 0 mod 256 */
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_NE, I(-129), I(0), 0x1F},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_LT, I(INT64_MIN), I(0), 0x00},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_LE, I(INT8_MIN), I(0), 0x01},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_RANGE, I(INT64_MIN), I(INT64_MAX), 0x1F},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_RANGE, I(-1), I(1), 0x06},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_RANGE, I(1), I(-1), 0x00},
    {SKSS_DTYPE_I8, SKSS_COMPACT_KEEP_NONZERO, I(0), I(0), 0x1B},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_LE, U(UINT64_MAX), U(0), 0x1F},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_GT, U(UINT64_MAX), U(0), 0x00},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_EQ, U(256 + 1), U(0), 0x00},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_NE, U(256), U(0), 0x1F},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_GE, U(128), U(0), 0x18},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_LT, U(0), U(0), 0x00},
    {SKSS_DTYPE_U8, SKSS_COMPACT_KEEP_RANGE, U(1), U(1000), 0x1E},
    {SKSS_DTYPE_I64, SKSS_COMPACT_KEEP_LT, I(INT64_MIN), I(0), 0x00},
    {SKSS_DTYPE_I64, SKSS_COMPACT_KEEP_GE, I(INT64_MIN), I(0), 0x1F},
    {SKSS_DTYPE_I64, SKSS_COMPACT_KEEP_GT, I(INT64_MAX), I(0), 0x00},
    {SKSS_DTYPE_I64, SKSS_COMPACT_KEEP_LE, I(INT64_MAX), I(0), 0x1F},
    {SKSS_DTYPE_I64, SKSS_COMPACT_KEEP_RANGE, I(INT64_MIN), I(INT64_MAX), 0x0F},
    {SKSS_DTYPE_I64, SKSS_COMPACT_KEEP_EQ, I(INT64_MIN), I(0), 0x01},
    {SKSS_DTYPE_U64, SKSS_COMPACT_KEEP_GT, U(UINT64_MAX), U(0), 0x0},
    {SKSS_DTYPE_U64, SKSS_COMPACT_KEEP_GE, U(UINT64_MAX), U(0), 0x8},
    {SKSS_DTYPE_U64, SKSS_COMPACT_KEEP_LT, U(UINT64_MAX), U(0), 0x7},
    {SKSS_DTYPE_U64, SKSS_COMPACT_KEEP_RANGE, U(1), U(UINT64_MAX), 0x6},
    {SKSS_DTYPE_U64, SKSS_COMPACT_KEEP_NONZERO, U(0), U(0), 0xE},
};

static const void *edge_data(skss_dtype t, int64_t *n) {
#define EDGE_DATA(DT, ARR) \
  case DT: *n = (int64_t)(sizeof ARR / sizeof ARR[0]); return ARR;
  switch (t) {
    EDGE_DATA(SKSS_DTYPE_F32, F32_EDGES)
    EDGE_DATA(SKSS_DTYPE_F64, F64_EDGES)
    EDGE_DATA(SKSS_DTYPE_I8, I8_EDGES)
    EDGE_DATA(SKSS_DTYPE_U8, U8_EDGES)
    EDGE_DATA(SKSS_DTYPE_I64, I64_EDGES)
    EDGE_DATA(SKSS_DTYPE_U64, U64_EDGES)
    default: break;
  }
#undef EDGE_DATA
  *n = 0;
  return NULL;
}

/* The hand-computed answer, from brute force and CPU_REF. */
static void test_edges(void **state) {
  const contexts *c = *state;
  for (size_t k = 0; k < sizeof EDGES / sizeof EDGES[0]; k++) {
    const edge_case *ec = &EDGES[k];
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.dtype = ec->dtype;
    d.keep = ec->predicate;
    d.a = ec->a;
    d.b = ec->b;
    const void *in = edge_data(ec->dtype, &d.n);
    expected e = brute_compact(&d, in);
    uint64_t got = 0;
    for (int64_t j = 0; j < e.count; j++) got |= UINT64_C(1) << e.indices[j];
    if (got != ec->kept)
      TU_FAIL("edge case %zu (%s %s): brute force keeps 0x%llx, expected 0x%llx", k,
              skss_dtype_name(d.dtype), PREDICATE_NAMES[d.keep], (unsigned long long)got,
              (unsigned long long)ec->kept);
    free_expected(&e);
    check_reference(c, d, in, "edge case");
  }
}

/* ---- properties ------------------------------------------------------------ */

static int64_t count_of(skss_ctx *ctx, skss_compact_desc d, skss_compact_keep p, const void *in) {
  int64_t count = -1;
  d.keep = p;
  TU_OK(ctx, skss_compact(ctx, &d, in, NULL, NULL, &count));
  return count;
}

/* Indices increase and point at the values; LT + GE = LE + GT = EQ + NE - NaNs
 * = n - NaNs; RANGE [a, b) = GE a - GE b when a <= b. */
static void test_properties(void **state) {
  const contexts *c = *state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 2);
  const int64_t n = 50021;
  double *in = malloc((size_t)n * 8), *values = malloc((size_t)n * 8);
  int64_t *indices = malloc((size_t)n * 8);
  assert_true(in != NULL && values != NULL && indices != NULL);
  int64_t nans = 0;
  for (int64_t k = 0; k < n; k++) {
    in[k] = tu_range(&rng, 0, 20) == 0 ? NAN : (double)tu_range(&rng, -50, 50);
    nans += isnan(in[k]);
  }
  for (int k = 0; k < N_CONFIGS; k++) {
    skss_ctx *ctx = c->ctx[k];
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.n = n;
    d.dtype = SKSS_DTYPE_F64;
    d.algorithm = CONFIGS[k].algorithm;
    d.a.f = 7.0;
    d.b.f = 30.0;
    int64_t count = -1;
    d.keep = SKSS_COMPACT_KEEP_RANGE;
    TU_OK(ctx, skss_compact(ctx, &d, in, values, indices, &count));
    for (int64_t j = 0; j < count; j++) {
      assert_true(j == 0 || indices[j] > indices[j - 1]);
      assert_true(memcmp(&values[j], &in[indices[j]], 8) == 0);
      assert_true(values[j] >= 7.0 && values[j] < 30.0);
    }
    assert_int_equal(count_of(ctx, d, SKSS_COMPACT_KEEP_LT, in) + count_of(ctx, d, SKSS_COMPACT_KEEP_GE, in), n - nans);
    assert_int_equal(count_of(ctx, d, SKSS_COMPACT_KEEP_LE, in) + count_of(ctx, d, SKSS_COMPACT_KEEP_GT, in), n - nans);
    assert_int_equal(count_of(ctx, d, SKSS_COMPACT_KEEP_EQ, in) + count_of(ctx, d, SKSS_COMPACT_KEEP_NE, in), n);
    skss_compact_desc at_b = d;
    at_b.a.f = 30.0;
    assert_int_equal(count, count_of(ctx, d, SKSS_COMPACT_KEEP_GE, in) - count_of(ctx, at_b, SKSS_COMPACT_KEEP_GE, in));
    /* repeat runs give the same count */
    assert_int_equal(count, count_of(ctx, d, SKSS_COMPACT_KEEP_RANGE, in));
  }
  free(in);
  free(values);
  free(indices);
}

/* ---- misuse ------------------------------------------------------------------ */

static void expect_error(skss_ctx *ctx, const skss_compact_desc *d, const void *in, void *values,
                         int64_t *indices, int64_t *count, skss_status want, const char *needle) {
  int64_t before = count != NULL ? *count : 0;
  skss_status st = skss_compact(ctx, d, in, values, indices, count);
  const char *msg = skss_ctx_last_error(ctx);
  if (st != want || strncmp(msg, "skss_compact(): ", 16) != 0 || strstr(msg, needle) == NULL)
    TU_FAIL("expected %s with \"%s\", got %s: \"%s\"", skss_status_string(want), needle,
            skss_status_string(st), msg);
  if (count != NULL) assert_int_equal(*count, before);
}

static void test_misuse(void **state) {
  const contexts *c = *state;
  skss_ctx *ctx = c->ctx[2], *ref = c->ctx[0];
  float in[16] = {0}, values[16];
  int64_t indices[16], count = 12345;
  uint8_t mask[16] = {0};
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = 16;
  assert_int_equal(skss_compact(NULL, &d, in, values, indices, &count), SKSS_ERR_INVALID_ARG);
  expect_error(ctx, NULL, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "desc is NULL");
  skss_compact_desc small = d;
  small.size = sizeof small - 1;
  expect_error(ctx, &small, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "desc->size");
  skss_compact_desc bad = d;
  bad.dtype = (skss_dtype)0;
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "dtype");
  bad.dtype = (skss_dtype)(SKSS_DTYPE_F64 + 1);
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "dtype");
  bad = d;
  bad.keep = (skss_compact_keep)(SKSS_COMPACT_KEEP_MASK_BITS + 1);
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "predicate");
  bad.keep = (skss_compact_keep)-1;
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "predicate");
  bad = d;
  bad.n = -1;
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "negative");
  expect_error(ctx, &d, in, values, indices, NULL, SKSS_ERR_INVALID_ARG, "count is NULL");
  expect_error(ctx, &d, NULL, values, indices, &count, SKSS_ERR_INVALID_ARG, "in is NULL");
  bad = d;
  bad.keep = SKSS_COMPACT_KEEP_MASK_BYTES;
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "mask is NULL");
  bad.keep = SKSS_COMPACT_KEEP_MASK_BITS;
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "mask is NULL");
  /* byte counts past size_t: never run, so the tiny buffers are safe */
  bad = d;
  bad.dtype = SKSS_DTYPE_F64;
  bad.n = INT64_MAX / 2;
  expect_error(ctx, &bad, in, NULL, NULL, &count, SKSS_ERR_OVERFLOW, "overflow");
  bad.dtype = SKSS_DTYPE_U8;
  expect_error(ctx, &bad, in, NULL, indices, &count, SKSS_ERR_OVERFLOW, "overflow");
  /* overlapping buffers */
  expect_error(ctx, &d, in, in + 8, NULL, &count, SKSS_ERR_INVALID_ARG, "overlaps the input");
  expect_error(ctx, &d, in, NULL, (int64_t *)(void *)in, &count, SKSS_ERR_INVALID_ARG, "overlaps the input");
  expect_error(ctx, &d, in, values, (int64_t *)(void *)values, &count, SKSS_ERR_INVALID_ARG,
               "out_values and out_indices overlap");
  bad = d;
  bad.keep = SKSS_COMPACT_KEEP_MASK_BYTES;
  bad.mask = values;
  expect_error(ctx, &bad, in, values, NULL, &count, SKSS_ERR_INVALID_ARG, "overlaps the mask");
  /* algorithms */
  bad = d;
  bad.algorithm = SKSS_COMPACT_ALGORITHM_SCAN_CPU;
  expect_error(ref, &bad, in, values, indices, &count, SKSS_ERR_UNSUPPORTED, "scan-cpu");
  bad.algorithm = (skss_compact_algorithm)99;
  expect_error(ctx, &bad, in, values, indices, &count, SKSS_ERR_INVALID_ARG, "algorithm");
  /* allowed: n == 0 with NULL buffers, a mask ignored by a value predicate */
  skss_compact_desc empty = d;
  empty.n = 0;
  empty.keep = SKSS_COMPACT_KEEP_MASK_BITS;
  TU_OK(ctx, skss_compact(ctx, &empty, NULL, NULL, NULL, &count));
  assert_int_equal(count, 0);
  skss_compact_desc ignored = d;
  ignored.keep = SKSS_COMPACT_KEEP_EQ;
  ignored.mask = mask;
  mask[3] = 1;
  TU_OK(ctx, skss_compact(ctx, &ignored, in, values, indices, &count));
  assert_int_equal(count, 16);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_edges),
      cmocka_unit_test(test_in_place),
      cmocka_unit_test(test_properties),
      cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_large),
      cmocka_unit_test(test_oversubscribed),
      cmocka_unit_test(test_matrix),
  };
  return cmocka_run_group_tests(tests, setup_contexts, teardown_contexts);
}
