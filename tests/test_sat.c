/*
 * test_sat.c — skss_sat() and skss_sat_can_wrap() on the CPU backends.
 * Oracles: for integer outputs a uint32 recurrence written here (exact
 * modulo 2^32, so every algorithm must give its bits; CPU_REF 2R2W is one of
 * the algorithms checked against it); for float outputs a long double SAT
 * and the header's bound |out - exact| <= (i + j + 2) u S(i, j) (4R1W: the
 * recurrence carries every rounding error into the quadrant below it, so
 * its bound is 5 (i + 1)(j + 1) u S). Every type pair x layout x squared
 * output x algorithm of CPU_REF (the oracle of test_backends.c, which runs
 * every other backend against it) on awkward sizes with pitched, poisoned
 * rows (the padding must stay untouched). Also: constant inputs exact on
 * every CPU algorithm, rectangle sums from the table against brute force,
 * the wrap truth table, and misuse (status, message, outputs untouched).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xA5

typedef struct pair {
  skss_dtype in, out;
} pair;

static const pair PAIRS[] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_U32},  {SKSS_DTYPE_U8, SKSS_DTYPE_I32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F32},  {SKSS_DTYPE_U8, SKSS_DTYPE_F64},
    {SKSS_DTYPE_I32, SKSS_DTYPE_I32}, {SKSS_DTYPE_U32, SKSS_DTYPE_U32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32}, {SKSS_DTYPE_F32, SKSS_DTYPE_F64},
    {SKSS_DTYPE_F64, SKSS_DTYPE_F64},
};
#define N_PAIRS ((int)(sizeof PAIRS / sizeof PAIRS[0]))


/* ---- buffers ------------------------------------------------------------ */

/* A 2-D buffer with `pitch` bytes per row, poisoned between rows. */
typedef struct image {
  int64_t rows, cols;
  size_t elem, pitch;
  uint8_t *data;
} image;

static image image_new(int64_t rows, int64_t cols, size_t elem, size_t extra) {
  image im = {rows, cols, elem, (size_t)cols * elem + extra, NULL};
  size_t bytes = (size_t)rows * im.pitch;
  im.data = malloc(bytes ? bytes : 1);
  assert_non_null(im.data);
  memset(im.data, POISON, bytes ? bytes : 1);
  return im;
}

static void *at(const image *im, int64_t i, int64_t j) {
  return im->data + (size_t)i * im->pitch + (size_t)j * im->elem;
}

/* Fails unless every byte outside the rows' elements is still poison. */
static void check_padding(const image *im, const char *what) {
  size_t row = (size_t)im->cols * im->elem;
  for (int64_t i = 0; i < im->rows; i++)
    for (size_t b = row; b < im->pitch; b++)
      if (im->data[(size_t)i * im->pitch + b] != POISON)
        TU_FAIL("%s: padding byte %zu of row %lld was written", what, b, (long long)i);
}

/* Random input of the type; integers cover their whole range (so sums wrap),
 * floats mix signs and magnitudes. */
static void fill_input(tu_rng *r, image *im, skss_dtype t) {
  for (int64_t i = 0; i < im->rows; i++) {
    for (int64_t j = 0; j < im->cols; j++) {
      void *p = at(im, i, j);
      double f = (tu_unit(r) * 2 - 1) * ldexp(1.0, (int)tu_range(r, -6, 6));
      if (t == SKSS_DTYPE_F32) {
        float v = (float)f;
        memcpy(p, &v, sizeof v);
      } else if (t == SKSS_DTYPE_F64) {
        memcpy(p, &f, sizeof f);
      } else {
        tu_fill_bytes(r, p, im->elem);
      }
    }
  }
}

/* The summand of an integer pair, modulo 2^32 (squares too). */
static uint32_t in_u32(skss_dtype t, const void *p, bool sq) {
  uint32_t v = t == SKSS_DTYPE_U8 ? *(const uint8_t *)p : *(const uint32_t *)p;
  return sq ? v * v : v;
}

/* ---- references --------------------------------------------------------- */

/* The inclusive table of an input (or of its square): exact modulo 2^32 for
 * integer pairs; for floats the long double sum and the sum of |terms|. */
typedef struct reference {
  int64_t h, w;
  uint32_t *mod;
  long double *sum, *abs_sum;
} reference;

static reference reference_new(const image *in, pair pr, bool sq) {
  reference ref = {in->rows, in->cols, NULL, NULL, NULL};
  size_t n = (size_t)(in->rows * in->cols) + 1;
  int64_t w = in->cols;
  if (!tu_dtype_is_float(pr.out)) {
    ref.mod = calloc(n, sizeof *ref.mod);
    assert_non_null(ref.mod);
    for (int64_t i = 0; i < in->rows; i++)
      for (int64_t j = 0; j < w; j++) {
        uint32_t v = in_u32(pr.in, at(in, i, j), sq);
        if (i > 0) v += ref.mod[(i - 1) * w + j];
        if (j > 0) v += ref.mod[i * w + j - 1];
        if (i > 0 && j > 0) v -= ref.mod[(i - 1) * w + j - 1];
        ref.mod[i * w + j] = v;
      }
    return ref;
  }
  ref.sum = calloc(n, sizeof *ref.sum);
  ref.abs_sum = calloc(n, sizeof *ref.abs_sum);
  assert_non_null(ref.sum);
  assert_non_null(ref.abs_sum);
  for (int64_t i = 0; i < in->rows; i++) {
    long double row = 0, abs_row = 0;
    for (int64_t j = 0; j < w; j++) {
      long double x = tu_load(pr.in, at(in, i, j));
      if (sq) x *= x;
      row += x;
      abs_row += fabsl(x);
      ref.sum[i * w + j] = row + (i > 0 ? ref.sum[(i - 1) * w + j] : 0);
      ref.abs_sum[i * w + j] = abs_row + (i > 0 ? ref.abs_sum[(i - 1) * w + j] : 0);
    }
  }
  return ref;
}

static void reference_free(reference *ref) {
  free(ref->mod);
  free(ref->sum);
  free(ref->abs_sum);
}

/* Checks an output against the reference: bits for integers, the stated
 * bound for floats; a PADDED output's border must be exactly zero. */
static void check_output(const image *out, const reference *ref, pair pr, skss_sat_layout layout,
                         int algorithm, const char *what) {
  const int64_t pad = layout == SKSS_SAT_LAYOUT_PADDED;
  const long double u = pr.out == SKSS_DTYPE_F32 ? 0x1p-24L : 0x1p-53L;
  for (int64_t i = 0; i < out->rows; i++) {
    for (int64_t j = 0; j < out->cols; j++) {
      const void *p = at(out, i, j);
      int64_t ri = i - pad, rj = j - pad;
      if (ri < 0 || rj < 0) {
        uint8_t zero[8] = {0};
        if (memcmp(p, zero, out->elem) != 0)
          TU_FAIL("%s: border element (%lld, %lld) is not zero", what, (long long)i, (long long)j);
        continue;
      }
      size_t k = (size_t)(ri * ref->w + rj);
      if (!tu_dtype_is_float(pr.out)) {
        uint32_t got;
        memcpy(&got, p, sizeof got);
        if (got != ref->mod[k])
          TU_FAIL("%s: (%lld, %lld) is %u, expected %u", what, (long long)ri, (long long)rj, got,
                  ref->mod[k]);
        continue;
      }
      long double factor =
          algorithm == SKSS_SAT_ALGORITHM_4R1W_CPU ? 5.0L * (ri + 1) * (rj + 1) : (long double)(ri + rj + 2);
      long double bound = factor * u * ref->abs_sum[k] * 1.001L;
      long double err = fabsl(tu_load(pr.out, p) - ref->sum[k]);
      if (!(err <= bound))
        TU_FAIL("%s: (%lld, %lld) is off by %Lg, bound %Lg", what, (long long)ri, (long long)rj,
                err, bound);
    }
  }
}

/* ---- the main sweep ----------------------------------------------------- */

typedef struct size2 {
  int64_t h, w;
} size2;

static const size2 SIZES[] = {{0, 0},    {0, 7},    {7, 0},    {1, 1},     {1, 37},
                              {37, 1},   {2, 2},    {31, 33},  {32, 32},   {33, 31},
                              {5000, 3}, {3, 5000}, {97, 101}, {127, 129}, {7, 521}};
#define N_SIZES ((int)(sizeof SIZES / sizeof SIZES[0]))

/* The algorithms of CPU_REF; AUTO there is 2R2W_CPU. */
static const skss_sat_algorithm ALGORITHMS[] = {SKSS_SAT_ALGORITHM_AUTO, SKSS_SAT_ALGORITHM_2R2W_CPU,
                                                SKSS_SAT_ALGORITHM_4R1W_CPU};

/* One input of a sweep with its references (plain and squared). */
typedef struct sat_input {
  pair pr;
  size2 size;
  image in;
  reference plain, squared;
  size_t out_extra, sq_extra;
} sat_input;

static void run_one(skss_ctx *ctx, const sat_input *s, skss_sat_layout layout, bool with_sq,
                    skss_sat_algorithm alg) {
  const int64_t pad = layout == SKSS_SAT_LAYOUT_PADDED;
  const size_t oe = skss_dtype_size(s->pr.out);
  image out = image_new(s->size.h + pad, s->size.w + pad, oe, s->out_extra);
  image sq = image_new(s->size.h + pad, s->size.w + pad, oe, s->sq_extra);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = s->size.h;
  d.width = s->size.w;
  d.in_type = s->pr.in;
  d.out_type = s->pr.out;
  d.in_pitch = (int64_t)s->in.pitch;
  d.out_pitch = (int64_t)out.pitch;
  d.out_sq_pitch = (int64_t)sq.pitch;
  d.layout = layout;
  d.algorithm = alg;
  TU_OK(ctx, skss_sat(ctx, &d, s->in.data, out.data, with_sq ? sq.data : NULL));
  char what[160];
  snprintf(what, sizeof what, "%s %d thr, %s, %s:%s, %lldx%lld, %s%s",
           skss_backend_name(skss_ctx_backend(ctx)), skss_ctx_threads(ctx),
           skss_algorithm_name(SKSS_OP_SAT, alg), skss_dtype_name(s->pr.in),
           skss_dtype_name(s->pr.out), (long long)s->size.h, (long long)s->size.w,
           pad ? "padded" : "inclusive", with_sq ? " +sq" : "");
  int resolved = alg == SKSS_SAT_ALGORITHM_AUTO ? SKSS_SAT_ALGORITHM_2R2W_CPU : (int)alg;
  check_output(&out, &s->plain, s->pr, layout, resolved, what);
  check_padding(&out, what);
  check_padding(&sq, what);
  if (with_sq) {
    check_output(&sq, &s->squared, s->pr, layout, resolved, what);
  } else {
    for (size_t b = 0; b < sq.pitch * (size_t)sq.rows; b++)
      if (sq.data[b] != POISON) TU_FAIL("%s: squared output written though not asked for", what);
  }
  free(out.data);
  free(sq.data);
}

static void sweep_input(skss_ctx *ref, const sat_input *s) {
  for (int a = 0; a < (int)(sizeof ALGORITHMS / sizeof ALGORITHMS[0]); a++)
    for (int layout = 0; layout < 2; layout++)
      for (int with_sq = 0; with_sq < 2; with_sq++)
        run_one(ref, s, (skss_sat_layout)layout, with_sq, ALGORITHMS[a]);
}

static void test_reference_every_algorithm_pair_layout(void **state) {
  (void)state;
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  for (int p = 0; p < N_PAIRS; p++) {
    for (int z = 0; z < N_SIZES; z++) {
      sat_input s = {.pr = PAIRS[p], .size = SIZES[z]};
      const size_t ie = skss_dtype_size(s.pr.in), oe = skss_dtype_size(s.pr.out);
      /* Pitched rows on most sizes: extra whole elements after each row. */
      s.in = image_new(s.size.h, s.size.w, ie, (size_t)(z % 3) * ie);
      s.out_extra = (size_t)(z % 2) * 2 * oe;
      s.sq_extra = (size_t)((z + 1) % 3) * oe;
      fill_input(&r, &s.in, s.pr.in);
      s.plain = reference_new(&s.in, s.pr, false);
      s.squared = reference_new(&s.in, s.pr, true);
      sweep_input(ref, &s);
      reference_free(&s.plain);
      reference_free(&s.squared);
      free(s.in.data);
    }
  }
  skss_ctx_destroy(ref);
}

/* Constant inputs make every float sum exact (small integers), so floats
 * must then match the integer formula (i + 1)(j + 1) v exactly. */
static void test_constant_input_exact(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 3);
  const int64_t h = 61, w = 67;
  float in[61 * 67];
  double out[62 * 68];
  for (int k = 0; k < h * w; k++) in[k] = 3.0f;
  for (int a = 1; a <= SKSS_SAT_ALGORITHM_BANDS_CPU; a++) {
    skss_sat_desc d = SKSS_SAT_DESC_INIT;
    d.height = h;
    d.width = w;
    d.in_type = SKSS_DTYPE_F32;
    d.out_type = SKSS_DTYPE_F64;
    d.layout = SKSS_SAT_LAYOUT_PADDED;
    d.algorithm = (skss_sat_algorithm)a;
    TU_OK(ctx, skss_sat(ctx, &d, in, out, NULL));
    for (int64_t i = 0; i <= h; i++)
      for (int64_t j = 0; j <= w; j++)
        if (out[i * (w + 1) + j] != 3.0 * (double)(i * j))
          TU_FAIL("alg %d: (%lld, %lld) = %g", a, (long long)i, (long long)j, out[i * (w + 1) + j]);
  }
  skss_ctx_destroy(ctx);
}

/* ---- rectangle sums ----------------------------------------------------- */

/* Sum over rows [y0, y1) and columns [x0, x1) of a padded table, mod 2^32. */
static uint32_t rect(const uint32_t *t, int64_t w1, int64_t y0, int64_t x0, int64_t y1,
                     int64_t x1) {
  return t[y1 * w1 + x1] - t[y0 * w1 + x1] - t[y1 * w1 + x0] + t[y0 * w1 + x0];
}

static void test_rectangle_sums(void **state) {
  (void)state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  const int64_t h = 173, w = 211;
  uint8_t *in8 = malloc((size_t)(h * w));
  int32_t *in32 = malloc((size_t)(h * w) * sizeof *in32);
  uint32_t *t8 = malloc((size_t)((h + 1) * (w + 1)) * sizeof *t8);
  uint32_t *t32 = malloc((size_t)((h + 1) * (w + 1)) * sizeof *t32);
  assert_true(in8 && in32 && t8 && t32);
  tu_fill_bytes(&r, in8, (size_t)(h * w));
  tu_fill_bytes(&r, in32, (size_t)(h * w) * sizeof *in32);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = h;
  d.width = w;
  d.layout = SKSS_SAT_LAYOUT_PADDED;
  d.out_type = SKSS_DTYPE_U32;
  TU_OK(ctx, skss_sat(ctx, &d, in8, t8, NULL));
  d.in_type = d.out_type = SKSS_DTYPE_I32;
  TU_OK(ctx, skss_sat(ctx, &d, in32, t32, NULL));
  for (int k = 0; k < 2000; k++) {
    int64_t y0 = tu_range(&r, 0, h), y1 = tu_range(&r, 0, h), x0 = tu_range(&r, 0, w),
            x1 = tu_range(&r, 0, w);
    if (y0 > y1) {
      int64_t t = y0;
      y0 = y1;
      y1 = t;
    }
    if (x0 > x1) {
      int64_t t = x0;
      x0 = x1;
      x1 = t;
    }
    uint64_t s8 = 0;
    uint32_t s32 = 0;
    for (int64_t i = y0; i < y1; i++)
      for (int64_t j = x0; j < x1; j++) {
        s8 += in8[i * w + j];
        s32 += (uint32_t)in32[i * w + j];
      }
    if (rect(t8, w + 1, y0, x0, y1, x1) != s8 || rect(t32, w + 1, y0, x0, y1, x1) != s32)
      TU_FAIL("rectangle [%lld, %lld) x [%lld, %lld) sums differ", (long long)y0, (long long)y1,
              (long long)x0, (long long)x1);
  }
  free(in8);
  free(in32);
  free(t8);
  free(t32);
  skss_ctx_destroy(ctx);
}

/* A 0 x 0 input still has a 1 x 1 padded output, which must become 0. */
static void test_empty_padded_writes_zero(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.layout = SKSS_SAT_LAYOUT_PADDED;
  d.out_type = SKSS_DTYPE_F64;
  double out = -1, sq = -1;
  TU_OK(ctx, skss_sat(ctx, &d, NULL, &out, &sq));
  assert_true(out == 0.0 && sq == 0.0);
  d.layout = SKSS_SAT_LAYOUT_INCLUSIVE;
  TU_OK(ctx, skss_sat(ctx, &d, NULL, NULL, NULL));
  d.height = 5;
  uint32_t col[6] = {7, 7, 7, 7, 7, 7};
  d.layout = SKSS_SAT_LAYOUT_PADDED;
  d.out_type = SKSS_DTYPE_U32;
  TU_OK(ctx, skss_sat(ctx, &d, NULL, col, NULL));
  for (int k = 0; k < 6; k++) assert_int_equal(col[k], 0);
  skss_ctx_destroy(ctx);
}

/* ---- skss_sat_can_wrap -------------------------------------------------- */

static void test_can_wrap(void **state) {
  (void)state;
  const int64_t big = INT64_MAX;
  /* u8 -> u32: 255 * n <= 2^32 - 1 exactly when n <= 16843009. */
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_U32, 4097, 4111, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_U32, 1, 16843009, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_U32, 1, 16843010, 0), 1);
  /* u8 -> i32: 255 * n <= 2^31 - 1 when n <= 8421504. */
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_I32, 8421504, 1, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_I32, 8421505, 1, 0), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_I32, 4096, 4096, 0), 1);
  /* squares: 65025 * n <= 2^32 - 1 when n <= 66051. */
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_U32, 66051, 1, 1), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_U32, 66052, 1, 1), 1);
  /* floats fed with u8 are exact up to 2^24 / 2^53. */
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_F32, 65793, 1, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_F32, 65794, 1, 0), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_F64, 1 << 16, 1 << 16, 1), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_F64, 1 << 20, 1 << 20, 1), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U8, SKSS_DTYPE_F64, big, big, 0), 1);
  /* 32-bit inputs: one element fits, two may not; a square never fits. */
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_I32, SKSS_DTYPE_I32, 1, 1, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_I32, SKSS_DTYPE_I32, 1, 2, 0), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_I32, SKSS_DTYPE_I32, 1, 1, 1), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U32, SKSS_DTYPE_U32, 1, 1, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U32, SKSS_DTYPE_U32, 2, 1, 0), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U32, SKSS_DTYPE_U32, 1, 1, 1), 1);
  /* float inputs: two summands can round; one is exact unless squared
   * outside double (a float's square is exact in double). */
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_F32, SKSS_DTYPE_F32, 1, 1, 0), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_F32, SKSS_DTYPE_F32, 1, 1, 1), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_F32, SKSS_DTYPE_F64, 1, 1, 1), 0);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_F64, SKSS_DTYPE_F64, 1, 1, 1), 1);
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_F64, SKSS_DTYPE_F64, 2, 1, 0), 1);
  /* Empty inputs never wrap; unsupported or negative arguments promise nothing. */
  for (int p = 0; p < N_PAIRS; p++) {
    assert_int_equal(skss_sat_can_wrap(PAIRS[p].in, PAIRS[p].out, 0, big, 1), 0);
    assert_int_equal(skss_sat_can_wrap(PAIRS[p].in, PAIRS[p].out, big, 0, 1), 0);
    assert_int_equal(skss_sat_can_wrap(PAIRS[p].in, PAIRS[p].out, -1, 1, 0), 1);
    assert_int_equal(skss_sat_can_wrap(PAIRS[p].in, PAIRS[p].out, big, big, 0), 1);
  }
  assert_int_equal(skss_sat_can_wrap(SKSS_DTYPE_U16, SKSS_DTYPE_U32, 1, 1, 0), 1);
  assert_int_equal(skss_sat_can_wrap((skss_dtype)0, SKSS_DTYPE_U32, 1, 1, 0), 1);
}

/* ---- misuse ------------------------------------------------------------- */

/* Expects `status` with a message starting "skss_sat()" and `out` untouched. */
static void expect_error(skss_ctx *ctx, const skss_sat_desc *d, const void *in, void *out, void *sq,
                         skss_status status, const char *needle) {
  uint8_t before[64];
  if (out) memcpy(before, out, sizeof before);
  skss_status st = skss_sat(ctx, d, in, out, sq);
  if (st != status)
    TU_FAIL("expected %s, got %s (%s)", skss_status_string(status), skss_status_string(st),
            skss_ctx_last_error(ctx));
  const char *msg = skss_ctx_last_error(ctx);
  if (strncmp(msg, "skss_sat(): ", 12) != 0 || strstr(msg, needle) == NULL)
    TU_FAIL("message \"%s\" lacks \"%s\"", msg, needle);
  if (out && memcmp(before, out, sizeof before) != 0) TU_FAIL("output written on error: %s", msg);
}

static void test_misuse(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  _Alignas(16) uint8_t in[64];
  _Alignas(16) uint8_t out[64 * 8], out2[64 * 8];
  memset(in, 1, sizeof in);
  memset(out, POISON, sizeof out);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = 4;
  d.width = 4;
  assert_int_equal(skss_sat(NULL, &d, in, out, NULL), SKSS_ERR_INVALID_ARG);
  expect_error(ctx, NULL, in, out, NULL, SKSS_ERR_INVALID_ARG, "desc is NULL");
  skss_sat_desc e = d;
  e.size = sizeof e - 1;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "desc->size");
  e = d;
  e.height = -1;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "negative");
  e = d;
  e.width = -3;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "negative");
  e = d;
  e.in_type = (skss_dtype)0;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "unknown dtype");
  e = d;
  e.out_type = (skss_dtype)42;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "unknown dtype");
  e = d;
  e.out_type = SKSS_DTYPE_U8;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_UNSUPPORTED, "u8:u8");
  e = d;
  e.in_type = SKSS_DTYPE_F64;
  e.out_type = SKSS_DTYPE_F32;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_UNSUPPORTED, "f64:f32");
  e = d;
  e.layout = (skss_sat_layout)2;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "layout");
  e = d;
  e.algorithm = (skss_sat_algorithm)99;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "unknown sat algorithm");
  e = d;
  e.algorithm = SKSS_SAT_ALGORITHM_ROWSCAN_CPU;
  expect_error(ref, &e, in, out, NULL, SKSS_ERR_UNSUPPORTED, "rowscan-cpu");
  e.algorithm = SKSS_SAT_ALGORITHM_BANDS_CPU;
  expect_error(ref, &e, in, out, NULL, SKSS_ERR_UNSUPPORTED, "bands-cpu");
  expect_error(ctx, &d, NULL, out, NULL, SKSS_ERR_INVALID_ARG, "input is NULL");
  expect_error(ctx, &d, in, NULL, NULL, SKSS_ERR_INVALID_ARG, "output is NULL");
  e = d;
  e.height = 0;
  e.layout = SKSS_SAT_LAYOUT_PADDED;
  expect_error(ctx, &e, NULL, NULL, NULL, SKSS_ERR_INVALID_ARG, "output is NULL");
  e = d;
  e.in_pitch = 3;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "pitch 3 is less than a row");
  e = d;
  e.out_pitch = 12;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "output pitch 12");
  e = d;
  e.out_sq_pitch = 8;
  expect_error(ctx, &e, in, out, out2, SKSS_ERR_INVALID_ARG, "squared output pitch 8");
  e = d;
  e.out_pitch = -4;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "negative");
  e = d;
  e.out_pitch = 18;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_INVALID_ARG, "aligned");
  expect_error(ctx, &d, in, out + 2, NULL, SKSS_ERR_INVALID_ARG, "aligned");
  e = d;
  e.in_type = SKSS_DTYPE_F32;
  e.out_type = SKSS_DTYPE_F32;
  expect_error(ctx, &e, in + 1, out, NULL, SKSS_ERR_INVALID_ARG, "aligned");
  e = d;
  e.height = INT64_MAX / 2;
  e.width = 3;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_OVERFLOW, "overflows");
  e = d;
  e.width = INT64_MAX / 2;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_OVERFLOW, "overflows");
  e = d;
  e.height = INT64_MAX;
  e.width = 0;
  e.layout = SKSS_SAT_LAYOUT_PADDED;
  expect_error(ctx, &e, in, out, NULL, SKSS_ERR_OVERFLOW, "overflows int64");
  expect_error(ctx, &d, out, out, NULL, SKSS_ERR_INVALID_ARG, "overlap");
  expect_error(ctx, &d, in, out, out + 32, SKSS_ERR_INVALID_ARG, "overlap");
  expect_error(ctx, &d, out + 48, out, NULL, SKSS_ERR_INVALID_ARG, "overlap");
  /* Errors clear on the next good call. */
  TU_OK(ctx, skss_sat(ctx, &d, in, out, out2));
  assert_string_equal(skss_ctx_last_error(ctx), "");
  skss_ctx_destroy(ctx);
  skss_ctx_destroy(ref);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_every_algorithm_pair_layout),
      cmocka_unit_test(test_constant_input_exact),
      cmocka_unit_test(test_rectangle_sums),
      cmocka_unit_test(test_empty_padded_writes_zero),
      cmocka_unit_test(test_can_wrap),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
