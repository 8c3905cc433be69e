/*
 * test_boxfilter.c — skss_boxfilter_u8() on the CPU backends. Oracle: a
 * brute-force window mean written here from skss.h's rules (CLIP: mean over
 * the pixels inside the image; ZERO: divisor (2r+1)^2; half rounds up).
 * Radii 0, 1, 2, 7, larger than the image, and huge; both borders; odd
 * sizes; pitched, poisoned rows; every SAT algorithm of CPU_REF (the oracle
 * of test_backends.c, which runs every other backend against it). A large
 * image whose windows sum past 2^32
 * takes the f64 workspace path and is checked against closed-form window
 * sums. Misuse fails with the right status and message.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xA5

/* floor((sum + count / 2) / count), or 0 when the divisor dwarfs any sum. */
static uint8_t mean(uint64_t sum, uint64_t side_or_zero, uint64_t count) {
  if (side_or_zero > ((uint64_t)1 << 31)) return 0;
  return (uint8_t)((sum + count / 2) / count);
}

/* The filter by brute force: out[i][j] for a packed h x w image. */
static void brute_force(const uint8_t *in, int64_t h, int64_t w, int64_t r,
                        skss_boxfilter_border border, uint8_t *out) {
  for (int64_t i = 0; i < h; i++) {
    for (int64_t j = 0; j < w; j++) {
      int64_t y0 = i > r ? i - r : 0, y1 = r >= h - i ? h : i + r + 1;
      int64_t x0 = j > r ? j - r : 0, x1 = r >= w - j ? w : j + r + 1;
      uint64_t sum = 0;
      for (int64_t y = y0; y < y1; y++)
        for (int64_t x = x0; x < x1; x++) sum += in[y * w + x];
      uint64_t side = 2 * (uint64_t)r + 1;
      if (border == SKSS_BOXFILTER_BORDER_CLIP)
        out[i * w + j] = mean(sum, 0, (uint64_t)((y1 - y0) * (x1 - x0)));
      else
        out[i * w + j] = mean(sum, side, side <= ((uint64_t)1 << 31) ? side * side : 1);
    }
  }
}

typedef struct run_config {
  skss_backend backend;
  int threads;
} run_config;

/* The SAT algorithms of CPU_REF. */
static const skss_sat_algorithm ALGORITHMS[] = {SKSS_SAT_ALGORITHM_AUTO, SKSS_SAT_ALGORITHM_2R2W_CPU,
                                                SKSS_SAT_ALGORITHM_4R1W_CPU};
#define N_ALGORITHMS ((int)(sizeof ALGORITHMS / sizeof ALGORITHMS[0]))

/* Runs the filter on a pitched, poisoned copy of `in` and compares. */
static void run_case(skss_ctx *ctx, const uint8_t *in, int64_t h, int64_t w, int64_t r,
                     skss_boxfilter_border border, skss_sat_algorithm alg, const uint8_t *expect) {
  const size_t in_pitch = (size_t)w + (size_t)(h % 4), out_pitch = (size_t)w + (size_t)(w % 3) + 1;
  uint8_t *pin = malloc((size_t)h * in_pitch + 1), *pout = malloc((size_t)h * out_pitch + 1);
  assert_true(pin && pout);
  memset(pin, POISON, (size_t)h * in_pitch + 1);
  memset(pout, POISON, (size_t)h * out_pitch + 1);
  for (int64_t i = 0; i < h; i++) memcpy(pin + (size_t)i * in_pitch, in + i * w, (size_t)w);
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = h;
  d.width = w;
  d.radius = r;
  d.in_pitch = (int64_t)in_pitch;
  d.out_pitch = (int64_t)out_pitch;
  d.border = border;
  d.sat_algorithm = alg;
  TU_OK(ctx, skss_boxfilter_u8(ctx, &d, pin, pout));
  for (int64_t i = 0; i < h; i++) {
    for (int64_t j = 0; j < w; j++)
      if (pout[(size_t)i * out_pitch + (size_t)j] != expect[i * w + j])
        TU_FAIL("%s %d thr %s, %lldx%lld r=%lld %s: (%lld, %lld) is %d, expected %d",
                skss_backend_name(skss_ctx_backend(ctx)), skss_ctx_threads(ctx),
                skss_algorithm_name(SKSS_OP_SAT, alg), (long long)h, (long long)w, (long long)r,
                border == SKSS_BOXFILTER_BORDER_CLIP ? "clip" : "zero", (long long)i, (long long)j,
                pout[(size_t)i * out_pitch + (size_t)j], expect[i * w + j]);
    for (size_t b = (size_t)w; b < out_pitch; b++)
      if (pout[(size_t)i * out_pitch + b] != POISON)
        TU_FAIL("padding of row %lld written", (long long)i);
  }
  free(pin);
  free(pout);
}

static void test_reference_against_brute_force(void **state) {
  (void)state;
  static const int64_t sizes[][2] = {{1, 1},   {1, 9},  {9, 1},   {2, 3},
                                     {31, 33}, {17, 5}, {64, 47}, {101, 7}};
  static const int64_t radii[] = {0, 1, 2, 7, 40, (int64_t)1 << 40, INT64_MAX};
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng rng;
  tu_rng_init(&rng, tu_seed());
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    const int64_t h = sizes[z][0], w = sizes[z][1];
    uint8_t *in = malloc((size_t)(h * w)), *expect = malloc((size_t)(h * w));
    assert_true(in && expect);
    tu_fill_bytes(&rng, in, (size_t)(h * w));
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
      for (int border = 0; border < 2; border++) {
        brute_force(in, h, w, radii[k], (skss_boxfilter_border)border, expect);
        for (int a = 0; a < N_ALGORITHMS; a++)
          run_case(ref, in, h, w, radii[k], (skss_boxfilter_border)border, ALGORITHMS[a], expect);
      }
    }
    free(in);
    free(expect);
  }
  skss_ctx_destroy(ref);
}

/* Rounding: a 1 x 2 image with sum 1 over 2 pixels rounds half up to 1; a
 * white image stays white with CLIP and darkens at the corners with ZERO. */
static void test_rounding_and_borders(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = 1;
  d.width = 2;
  uint8_t in2[2] = {0, 1}, out2[2] = {9, 9};
  TU_OK(ctx, skss_boxfilter_u8(ctx, &d, in2, out2));
  assert_int_equal(out2[0], 1);
  assert_int_equal(out2[1], 1);
  uint8_t white[9], out[9];
  memset(white, 255, sizeof white);
  d.height = d.width = 3;
  TU_OK(ctx, skss_boxfilter_u8(ctx, &d, white, out));
  for (int k = 0; k < 9; k++) assert_int_equal(out[k], 255);
  d.border = SKSS_BOXFILTER_BORDER_ZERO;
  TU_OK(ctx, skss_boxfilter_u8(ctx, &d, white, out));
  /* corner: 4 of 9 pixels inside: (1020 + 4) / 9 = 113; edge: 6 -> 170. */
  assert_int_equal(out[0], 113);
  assert_int_equal(out[1], 170);
  assert_int_equal(out[4], 255);
  skss_ctx_destroy(ctx);
}

/* Pixel (i, j) = 200 (i odd) + 55 (j % 3 == 0): window sums in closed form. */
static uint8_t pattern(int64_t i, int64_t j) {
  return (uint8_t)((i % 2) * 200 + (j % 3 == 0) * 55);
}

static uint64_t pattern_sum(int64_t y0, int64_t y1, int64_t x0, int64_t x1) {
  uint64_t odd_rows = (uint64_t)(y1 / 2 - y0 / 2), thirds = (uint64_t)((x1 + 2) / 3 - (x0 + 2) / 3);
  return 200 * odd_rows * (uint64_t)(x1 - x0) + 55 * (uint64_t)(y1 - y0) * thirds;
}

/* Windows of 4105 x 4105 pixels can sum past 2^32: the f64 workspace. */
static void test_wide_workspace(void **state) {
  (void)state;
  const int64_t n = 4200, r = 2052;
  uint8_t *in = malloc((size_t)(n * n)), *out = malloc((size_t)(n * n));
  assert_true(in && out);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++) in[i * n + j] = pattern(i, j);
  static const run_config configs[] = {{SKSS_BACKEND_CPU_REF, 1}, {SKSS_BACKEND_CPU, 2}};
  for (int c = 0; c < 2; c++) {
    skss_ctx *ctx = tu_ctx(configs[c].backend, configs[c].threads);
    for (int border = 0; border < 2; border++) {
      skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
      d.height = d.width = n;
      d.radius = r;
      d.border = (skss_boxfilter_border)border;
      memset(out, POISON, (size_t)(n * n));
      TU_OK(ctx, skss_boxfilter_u8(ctx, &d, in, out));
      for (int64_t i = 0; i < n; i++) {
        int64_t y0 = i > r ? i - r : 0, y1 = i + r + 1 < n ? i + r + 1 : n;
        for (int64_t j = 0; j < n; j++) {
          int64_t x0 = j > r ? j - r : 0, x1 = j + r + 1 < n ? j + r + 1 : n;
          uint64_t count = border == SKSS_BOXFILTER_BORDER_CLIP ? (uint64_t)((y1 - y0) * (x1 - x0))
                                                      : (uint64_t)((2 * r + 1) * (2 * r + 1));
          uint8_t want = (uint8_t)((pattern_sum(y0, y1, x0, x1) + count / 2) / count);
          if (out[i * n + j] != want)
            TU_FAIL("%s border %d: (%lld, %lld) is %d, expected %d",
                    skss_backend_name(configs[c].backend), border, (long long)i, (long long)j,
                    out[i * n + j], want);
        }
      }
    }
    skss_ctx_destroy(ctx);
  }
  free(in);
  free(out);
}

/* ---- misuse ------------------------------------------------------------- */

/* Expects `status` with a message starting "skss_boxfilter_u8()". */
static void expect_status(skss_ctx *ctx, const skss_boxfilter_desc *d, const uint8_t *in,
                          uint8_t *out, skss_status status, const char *needle) {
  skss_status st = skss_boxfilter_u8(ctx, d, in, out);
  if (st != status)
    TU_FAIL("expected %s, got %s (%s)", skss_status_string(status), skss_status_string(st),
            skss_ctx_last_error(ctx));
  const char *msg = skss_ctx_last_error(ctx);
  if (strncmp(msg, "skss_boxfilter_u8(): ", 21) != 0 || strstr(msg, needle) == NULL)
    TU_FAIL("message \"%s\" lacks \"%s\"", msg, needle);
}

/* The same, and the (readable) output must be untouched. */
static void expect_error(skss_ctx *ctx, const skss_boxfilter_desc *d, const uint8_t *in,
                         uint8_t *out, skss_status status, const char *needle) {
  uint8_t before[16];
  if (out) memcpy(before, out, sizeof before);
  expect_status(ctx, d, in, out, status, needle);
  if (out && memcmp(before, out, sizeof before) != 0) TU_FAIL("output written on error");
}

static void test_misuse(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU, 2);
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  uint8_t in[16], out[64];
  memset(in, 3, sizeof in);
  memset(out, POISON, sizeof out);
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = d.width = 4;
  assert_int_equal(skss_boxfilter_u8(NULL, &d, in, out), SKSS_ERR_INVALID_ARG);
  expect_error(ctx, NULL, in, out, SKSS_ERR_INVALID_ARG, "desc is NULL");
  skss_boxfilter_desc e = d;
  e.size = 8;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "desc->size");
  e = d;
  e.height = -2;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "negative");
  e = d;
  e.radius = -1;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "radius -1");
  e = d;
  e.border = (skss_boxfilter_border)7;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "border");
  expect_error(ctx, &d, NULL, out, SKSS_ERR_INVALID_ARG, "input is NULL");
  expect_error(ctx, &d, in, NULL, SKSS_ERR_INVALID_ARG, "output is NULL");
  e = d;
  e.in_pitch = 3;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "input pitch 3");
  e = d;
  e.out_pitch = 2;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "output pitch 2");
  expect_error(ctx, &d, out + 4, out, SKSS_ERR_INVALID_ARG, "overlap");
  e = d;
  e.sat_algorithm = (skss_sat_algorithm)12;
  expect_error(ctx, &e, in, out, SKSS_ERR_INVALID_ARG, "unknown sat algorithm");
  e = d;
  e.sat_algorithm = SKSS_SAT_ALGORITHM_BANDS_CPU;
  expect_error(ref, &e, in, out, SKSS_ERR_UNSUPPORTED, "bands-cpu");
  /* Sizes whose workspace or sums overflow (pointers far apart, never read). */
  const uint8_t *far_in = (const uint8_t *)(uintptr_t)0x1000;
  uint8_t *far_out = (uint8_t *)(uintptr_t)((uint64_t)1 << 63);
  e = d;
  e.height = (int64_t)1 << 61;
  e.width = 2;
  expect_status(ctx, &e, far_in, far_out, SKSS_ERR_OVERFLOW, "workspace overflows");
  e.height = (int64_t)1 << 30;
  e.width = (int64_t)1 << 20;
  e.radius = (int64_t)1 << 40;
  expect_status(ctx, &e, far_in, far_out, SKSS_ERR_OVERFLOW, "2^53");
  /* Zero-sized images succeed without touching anything. */
  e = d;
  e.height = 0;
  TU_OK(ctx, skss_boxfilter_u8(ctx, &e, NULL, NULL));
  e = d;
  e.width = 0;
  e.radius = INT64_MAX;
  TU_OK(ctx, skss_boxfilter_u8(ctx, &e, NULL, NULL));
  skss_ctx_destroy(ctx);
  skss_ctx_destroy(ref);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_reference_against_brute_force),
      cmocka_unit_test(test_rounding_and_borders),
      cmocka_unit_test(test_wide_workspace),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
