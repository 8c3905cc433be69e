/*
 * testutil.c — implementation of the shared test helpers (testutil.h).
 */
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const int64_t tu_sizes[] = {1, 2, 3, 7, 31, 32, 33, 63, 64, 65, 97, 127, 128, 129, 257, 521};
const int tu_sizes_count = (int)(sizeof tu_sizes / sizeof tu_sizes[0]);

uint64_t tu_seed(void) {
  const char *s = getenv("SKSS_TEST_SEED");
  return s && *s ? strtoull(s, NULL, 0) : 20261121u;
}

static uint64_t splitmix(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

void tu_rng_init(tu_rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int k = 0; k < 4; k++) r->s[k] = splitmix(&x);
}

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t tu_next(tu_rng *r) {
  uint64_t *s = r->s;
  uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return result;
}

int64_t tu_range(tu_rng *r, int64_t lo, int64_t hi) {
  uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
  return span == 0 ? (int64_t)tu_next(r) : lo + (int64_t)(tu_next(r) % span);
}

double tu_unit(tu_rng *r) { return (double)(tu_next(r) >> 11) * 0x1.0p-53; }

void tu_fill_bytes(tu_rng *r, void *p, size_t n) {
  unsigned char *b = p;
  for (size_t k = 0; k < n; k++) b[k] = (unsigned char)tu_next(r);
}

void tu_random_seq(tu_rng *r, char *s, int64_t n, const char *alphabet, int letters) {
  for (int64_t k = 0; k < n; k++) s[k] = alphabet[tu_range(r, 0, letters - 1)];
}

int64_t tu_mutate_seq(tu_rng *r, const char *src, int64_t n, char *dst, double rate, const char *alphabet,
                      int letters, int64_t gap) {
  int64_t out = 0;
  for (int64_t k = 0; k < n; k++) {
    if (gap > 0 && k == n / 2)
      for (int64_t g = 0; g < gap; g++) dst[out++] = alphabet[tu_range(r, 0, letters - 1)];
    const double u = tu_unit(r);
    if (u < rate / 3) continue;
    if (u < 2 * rate / 3 && out < n + n / 2) dst[out++] = alphabet[tu_range(r, 0, letters - 1)];
    dst[out++] = u < rate ? alphabet[tu_range(r, 0, letters - 1)] : src[k];
  }
  return out;
}

long double tu_load(skss_dtype t, const void *p) {
#define TU_LOAD(DT, T) \
  case DT: { T v; memcpy(&v, p, sizeof v); return v; }
  switch (t) {
    TU_LOAD(SKSS_DTYPE_U8, uint8_t)
    TU_LOAD(SKSS_DTYPE_I8, int8_t)
    TU_LOAD(SKSS_DTYPE_U16, uint16_t)
    TU_LOAD(SKSS_DTYPE_I16, int16_t)
    TU_LOAD(SKSS_DTYPE_U32, uint32_t)
    TU_LOAD(SKSS_DTYPE_I32, int32_t)
    TU_LOAD(SKSS_DTYPE_U64, uint64_t)
    TU_LOAD(SKSS_DTYPE_I64, int64_t)
    TU_LOAD(SKSS_DTYPE_F32, float)
    TU_LOAD(SKSS_DTYPE_F64, double)
  }
#undef TU_LOAD
  print_error("tu_load(): unknown dtype %d\n", (int)t);
  fail();
  return 0;
}

bool tu_dtype_is_float(skss_dtype t) { return t == SKSS_DTYPE_F32 || t == SKSS_DTYPE_F64; }

bool tu_dtype_is_signed(skss_dtype t) {
  return t == SKSS_DTYPE_I8 || t == SKSS_DTYPE_I16 || t == SKSS_DTYPE_I32 || t == SKSS_DTYPE_I64;
}

tu_knapsack tu_knapsack_new(int64_t n, int64_t cap) {
  tu_knapsack in = {n, cap, calloc((size_t)n + 1, sizeof(int64_t)), calloc((size_t)n + 1, sizeof(int64_t))};
  assert_non_null(in.w);
  assert_non_null(in.v);
  return in;
}

tu_knapsack tu_knapsack_random(tu_rng *r, tu_knapsack_kind kind, int64_t n, int64_t range, int64_t cap) {
  tu_knapsack in = tu_knapsack_new(n, 0);
  int64_t total = 0, span_w[2] = {1, 1}, span_v[2] = {1, 1};
  for (int64_t j = 0; j < n; j++) {
    int64_t w = tu_range(r, 1, range);
    int64_t v = kind == TU_KNAPSACK_STRONG ? w + range / 10
                : kind == TU_KNAPSACK_WEAK ? w + tu_range(r, -(range / 10), range / 10)
                                           : tu_range(r, 1, range);
    if (kind == TU_KNAPSACK_INVERSE_STRONG) {
      v = w;
      w = v + range / 10;
    }
    if (kind == TU_KNAPSACK_SUBSET_SUM) v = w;
    if (kind == TU_KNAPSACK_ALMOST_STRONG) v = w + range / 10 + tu_range(r, -(range / 500), range / 500);
    if (kind == TU_KNAPSACK_PROFIT_CEILING) v = 3 * ((w + 2) / 3);
    if (kind == TU_KNAPSACK_SPANNER) { /* item j: a multiple of one of two small spanner items */
      if (j == 0) {
        for (int k = 0; k < 2; k++) {
          span_w[k] = tu_range(r, 1, range) / 5 + 1;
          span_v[k] = span_w[k] + range / 50 + 1;
        }
      }
      const int64_t a = tu_range(r, 1, 10), k = tu_range(r, 0, 1);
      w = a * span_w[k];
      v = a * span_v[k];
    }
    if (kind == TU_KNAPSACK_ZEROS) {
      const int64_t pick = tu_range(r, 0, 5);
      if (pick == 0) w = 0;
      if (pick == 1) v = 0;
      if (pick == 2) w = range * 4;
    }
    in.w[j] = w;
    in.v[j] = v < 1 && kind == TU_KNAPSACK_WEAK ? 1 : v;
    total += w;
  }
  in.cap = cap >= 0 ? cap : total / 2;
  return in;
}

void tu_knapsack_free(tu_knapsack *in) {
  free(in->w);
  free(in->v);
}

/* Uniform in [lo, hi], any int64 bounds (tu_range's span overflows on the full range). */
static int64_t between(tu_rng *r, int64_t lo, int64_t hi) {
  const uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
  return (int64_t)((uint64_t)lo + (span == 0 ? tu_next(r) : tu_next(r) % span));
}

void tu_compact_scalars(tu_rng *r, skss_dtype t, int which, skss_scalar *a, skss_scalar *b) {
  a->u = b->u = 0;
  if (tu_dtype_is_float(t)) {
    static const double pairs[3][2] = {{-INFINITY, INFINITY}, {NAN, 0.5}, {-0.0, 0.1}};
    a->f = which ? pairs[which - 1][0] : (tu_unit(r) - 0.5) * 8.0;
    b->f = which ? pairs[which - 1][1] : (tu_unit(r) - 0.5) * 8.0;
    if (which == 3 && t == SKSS_DTYPE_F32) b->f = 1e300;
    return;
  }
  const unsigned bits = 8u * (unsigned)skss_dtype_size(t);
  const uint64_t all = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  if (tu_dtype_is_signed(t)) {
    const int64_t top = (int64_t)(all >> 1), low = -top - 1;
    const int64_t choices[4][2] = {{between(r, low, top), between(r, low, top)},
                                   {low, top},
                                   {INT64_MIN, INT64_MAX},
                                   {low == INT64_MIN ? low : low - 1, top == INT64_MAX ? top : top + 1}};
    a->i = choices[which][0];
    b->i = choices[which][1];
  } else {
    const uint64_t choices[4][2] = {{tu_next(r) & all, tu_next(r) & all}, {0, all}, {UINT64_MAX, 0},
                                    {all == UINT64_MAX ? all : all + 1, 1}};
    a->u = choices[which][0];
    b->u = choices[which][1];
  }
}

/* Element k of type t from a double (floats), or from raw bits (integers, wrapping). */
static void compact_store(skss_dtype t, void *data, int64_t k, uint64_t bits, double f) {
  uint8_t *p = (uint8_t *)data + (size_t)k * skss_dtype_size(t);
  if (t == SKSS_DTYPE_F32) {
    const float v = (float)f;
    memcpy(p, &v, 4);
  } else if (t == SKSS_DTYPE_F64) {
    memcpy(p, &f, 8);
  } else {
    for (size_t b = 0; b < skss_dtype_size(t); b++) p[b] = (uint8_t)(bits >> (8 * b));
  }
}

static uint64_t compact_max(skss_dtype t) { /* the largest value's bits */
  const unsigned bits = 8u * (unsigned)skss_dtype_size(t);
  const uint64_t all = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
  return tu_dtype_is_signed(t) ? all >> 1 : all;
}

/* The dtype's awkward values: the scalars and their neighbours, 0, +-1, the
 * limits; for floats also NaN, -NaN, infinities, -0.0 and the least
 * subnormal. Integers as raw bits (stored wrapping), floats as doubles. */
static int compact_specials(const skss_compact_desc *d, uint64_t *bits, double *f) {
  int n = 0;
  if (tu_dtype_is_float(d->dtype)) {
    const bool single = d->dtype == SKSS_DTYPE_F32;
    const double fixed[] = {0.0, 1.0, -1.0, NAN, -NAN, INFINITY, -INFINITY, -0.0,
                            single ? 0x1p-149 : 0x1p-1074, single ? 0x1.fffffep127 : 0x1.fffffffffffffp1023};
    for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) f[n++] = fixed[k];
    const double sc[2] = {single ? (double)(float)d->a.f : d->a.f, single ? (double)(float)d->b.f : d->b.f};
    for (int s = 0; s < 2; s++) {
      f[n++] = sc[s];
      f[n++] = single ? (double)nextafterf((float)sc[s], INFINITY) : nextafter(sc[s], INFINITY);
      f[n++] = single ? (double)nextafterf((float)sc[s], -INFINITY) : nextafter(sc[s], -INFINITY);
    }
    return n;
  }
  const uint64_t hi = compact_max(d->dtype), fixed[] = {0, 1, ~(uint64_t)0, hi, ~hi, d->a.u, d->b.u};
  for (size_t k = 0; k < sizeof fixed / sizeof fixed[0]; k++) bits[n++] = fixed[k];
  for (int s = 0; s < 2; s++) {
    bits[n++] = (s ? d->b.u : d->a.u) + 1;
    bits[n++] = (s ? d->b.u : d->a.u) - 1;
  }
  return n;
}

/* Random elements, a quarter of them awkward; masks random with bits past
 * n set (to be ignored). */
const skss_dtype TU_COMPACT_DTYPES[TU_COMPACT_N_DTYPES] = {
    SKSS_DTYPE_U8,  SKSS_DTYPE_I8,  SKSS_DTYPE_U16, SKSS_DTYPE_I16, SKSS_DTYPE_U32,
    SKSS_DTYPE_I32, SKSS_DTYPE_U64, SKSS_DTYPE_I64, SKSS_DTYPE_F32, SKSS_DTYPE_F64};
const char *const TU_COMPACT_KEEP_NAMES[TU_COMPACT_N_KEEPS] = {"lt", "le", "gt", "ge", "eq", "ne", "range",
                                                             "nonzero", "mask-bytes", "mask-bits"};

void tu_compact_fill(tu_rng *r, const skss_compact_desc *d, void *in, uint8_t *mask) {
  uint64_t bits[16] = {0};
  double f[16] = {0};
  const int n_specials = compact_specials(d, bits, f);
  for (int64_t k = 0; k < d->n; k++) {
    if (tu_range(r, 0, 3) == 0) {
      const int64_t pick = tu_range(r, 0, n_specials - 1);
      compact_store(d->dtype, in, k, bits[pick], f[pick]);
    } else {
      compact_store(d->dtype, in, k, tu_next(r), (tu_unit(r) - 0.5) * 8.0);
    }
  }
  for (int64_t k = 0; k < d->n; k++) mask[k] = tu_range(r, 0, 1) ? (uint8_t)tu_range(r, 1, 255) : 0;
  if (d->keep == SKSS_COMPACT_KEEP_MASK_BITS && d->n % 8 != 0)
    mask[d->n / 8] |= (uint8_t)(0xFF << (d->n % 8));
}

void tu_compact_large(tu_rng *r, void (*check)(void *arg, skss_compact_desc d, const void *in),
                      void *arg) {
  const int64_t n = 1000003;
  float *in = malloc((size_t)n * sizeof *in);
  uint8_t *mask = malloc((size_t)n);
  assert_true(in != NULL && mask != NULL);
  for (int64_t k = 0; k < n; k++) in[k] = (float)tu_unit(r);
  for (int64_t k = 0; k < n; k++) mask[k] = (uint8_t)(tu_range(r, 0, 2) == 0);
  static const double cut[] = {0.0, 0.5, 2.0};
  for (int s = 0; s < 3; s++) {
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.n = n;
    d.keep = SKSS_COMPACT_KEEP_LT;
    d.a.f = cut[s];
    check(arg, d, in);
  }
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = n;
  d.dtype = SKSS_DTYPE_U8;
  d.keep = SKSS_COMPACT_KEEP_MASK_BITS;
  d.mask = mask;
  check(arg, d, mask);
  free(in);
  free(mask);
}

skss_ctx *tu_ctx(skss_backend backend, int threads) {
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.backend = backend;
  d.threads = threads;
  skss_ctx *ctx = NULL;
  skss_status st = skss_ctx_create(&d, &ctx);
  if (st != SKSS_OK) {
    print_error("skss_ctx_create(%s, %d threads): %s\n", skss_backend_name(backend), threads,
                skss_status_string(st));
    fail();
  }
  return ctx;
}

void tu_expect_halftone_misuse(skss_ctx *ctx, const skss_halftone_desc *d, const uint8_t *in,
                               uint8_t *out, size_t out_bytes, skss_status want,
                               const char *needle) {
  memset(out, 0xA5, out_bytes);
  skss_status st = skss_halftone(ctx, d, in, out);
  if (st != want)
    TU_FAIL("expected %s, got %s: %s", skss_status_string(want), skss_status_string(st),
            skss_ctx_last_error(ctx));
  const char *msg = skss_ctx_last_error(ctx);
  if (strncmp(msg, "skss_halftone(): ", 17) != 0 || strstr(msg, needle) == NULL)
    TU_FAIL("message \"%s\" lacks \"%s\"", msg, needle);
  for (size_t i = 0; i < out_bytes; i++) assert_int_equal(out[i], 0xA5);
}

skss_align_result tu_align_checked(skss_ctx *ctx, skss_align_desc d, const char *a, const char *b,
                                   const char *what, int config) {
  d.ops_capacity = d.a_len + d.b_len;
  char *ops = malloc((size_t)d.ops_capacity + 1);
  assert_non_null(ops);
  skss_align_result r;
  memset(&r, 0x5A, sizeof r);
  TU_OK(ctx, skss_align(ctx, &d, a, b, &r, ops));
  if (d.output == SKSS_ALIGN_OUTPUT_ALIGNMENT) {
    int64_t score = 0, da = 0, db = 0;
    TU_OK(ctx, skss_align_score_ops(ctx, &d, a, b, r.a_begin, r.b_begin, ops, r.length, &score));
    for (int64_t x = 0; x < r.length; x++) {
      da += ops[x] != 'D';
      db += ops[x] != 'I';
    }
    if (score != r.score || da != r.a_end - r.a_begin || db != r.b_end - r.b_begin)
      TU_FAIL("%s, config %d mode %d: ops re-score to %lld (reported %lld), cover %lld x %lld (want %lld x %lld)",
              what, config, (int)d.mode, (long long)score, (long long)r.score, (long long)da, (long long)db,
              (long long)(r.a_end - r.a_begin), (long long)(r.b_end - r.b_begin));
  } else {
    assert_int_equal(r.length, 0);
  }
  free(ops);
  return r;
}

void tu_align_expect_same(const skss_align_result *want, const skss_align_result *got, bool with_begin,
                          const char *what, int config) {
  if (want->score != got->score || want->a_end != got->a_end || want->b_end != got->b_end ||
      (with_begin && (want->a_begin != got->a_begin || want->b_begin != got->b_begin)))
    TU_FAIL("%s, config %d: score %lld [%lld,%lld) x [%lld,%lld), want %lld [%lld,%lld) x [%lld,%lld)", what,
            config, (long long)got->score, (long long)got->a_begin, (long long)got->a_end, (long long)got->b_begin,
            (long long)got->b_end, (long long)want->score, (long long)want->a_begin, (long long)want->a_end,
            (long long)want->b_begin, (long long)want->b_end);
}
