/*
 * test_halftone.c — skss_halftone() and the dither-kernel table on the CPU
 * backends. Oracle: the rule of skss.h written out here with a full error
 * image. CPU_REF (the oracle of test_backends.c, which runs every other
 * backend and algorithm against it) x kernel x output kind must give its
 * bytes on seeded random images, smooth gradients and flat blocks (noise
 * alone hides bugs at the clamps and in long runs), on awkward and pitched
 * sizes, every algorithm of CPU_REF for the thresholds' edges; the CPU task
 * array on contexts of 1, 2, 3 and 5 threads, repeat runs identical; misuse
 * fails with the right status and message and leaves the output untouched.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xA5

/* ---- images -------------------------------------------------------------- */

typedef enum image_kind { RANDOM, GRADIENT, BLOCKS } image_kind;
static const char *const IMAGE_NAMES[] = {"random", "gradient", "blocks"};

/* An h x w image with `pitch` bytes per row; bytes past the row are junk. */
static uint8_t *make_image(tu_rng *rng, image_kind kind, int64_t h, int64_t w, size_t pitch) {
  uint8_t *img = malloc((size_t)h * pitch);
  assert_non_null(img);
  tu_fill_bytes(rng, img, (size_t)h * pitch);
  static const uint8_t levels[] = {0, 255, 1, 254, 128, 127, 64, 200};
  for (int64_t y = 0; y < h; y++) {
    for (int64_t x = 0; x < w; x++) {
      uint8_t *p = &img[(size_t)y * pitch + (size_t)x];
      if (kind == GRADIENT)
        *p = (uint8_t)((x * 180 / (w > 1 ? w - 1 : 1) + y * 75 / (h > 1 ? h - 1 : 1)) % 256);
      else if (kind == BLOCKS)
        *p = levels[((x / 37) * 3 + (y / 23) * 5) % 8];
    }
  }
  return img;
}

static int64_t out_row_bytes(skss_halftone_output output, int64_t w) {
  return output == SKSS_HALFTONE_OUTPUT_BITS ? (w + 7) / 8 : w;
}

static void pack_bits(const uint8_t *bytes, int64_t h, int64_t w, uint8_t *bits) {
  int64_t row = (w + 7) / 8;
  memset(bits, 0, (size_t)(h * row));
  for (int64_t y = 0; y < h; y++)
    for (int64_t x = 0; x < w; x++)
      if (bytes[y * w + x] == 255) bits[y * row + x / 8] |= (uint8_t)(0x80 >> (x % 8));
}

/* ---- the oracle: skss.h's rule, word for word ------------------------------ */

static void oracle(const uint8_t *in, size_t in_pitch, int64_t h, int64_t w, skss_dither_kernel kernel,
                   int threshold, uint8_t *out) {
  skss_dither_kernel_info k;
  assert_int_equal(skss_dither_kernel_get_info(kernel, &k), SKSS_OK);
  int *err = calloc((size_t)(h * w), sizeof *err);
  assert_non_null(err);
  for (int64_t y = 0; y < h; y++) {
    for (int64_t x = 0; x < w; x++) {
      int sum = 0; /* neighbour (y - dy, x - dx) sent weight[dy][dx + 2] of its error here */
      for (int dy = 0; dy < 3; dy++) {
        for (int dx = -2; dx <= 2; dx++) {
          int64_t sy = y - dy, sx = x - dx;
          bool processed = sy < y || (sy == y && sx < x);
          if (sy >= 0 && sx >= 0 && sx < w && processed) sum += k.weight[dy][dx + 2] * err[sy * w + sx];
        }
      }
      int v = in[(size_t)y * in_pitch + (size_t)x] + sum / k.divisor;
      v = v < 0 ? 0 : v > 255 ? 255 : v;
      int o = v > threshold ? 255 : 0;
      out[y * w + x] = (uint8_t)o;
      err[y * w + x] = v - o;
    }
  }
  free(err);
}

/* ---- running skss_halftone ----------------------------------------------- */

typedef struct run_opts {
  skss_dither_kernel kernel;
  int threshold;
  skss_halftone_output output;
  skss_halftone_algorithm algorithm;
  bool in_pitched;         /* pass the image's pitch; else a packed copy, pitch 0 */
  int64_t out_pad;         /* extra output bytes per row; 0 = pitch 0 (packed) */
} run_opts;

/* Runs the call on a poisoned, possibly pitched output; checks the padding
 * is untouched and returns the packed output rows (caller frees). */
static uint8_t *run(skss_ctx *ctx, const run_opts *o, const uint8_t *in, size_t in_pitch, int64_t h,
                    int64_t w) {
  uint8_t *packed_in = NULL;
  if (!o->in_pitched) {
    packed_in = malloc((size_t)(h * w));
    assert_non_null(packed_in);
    for (int64_t y = 0; y < h; y++) memcpy(packed_in + y * w, in + (size_t)y * in_pitch, (size_t)w);
    in = packed_in;
  }
  int64_t row = out_row_bytes(o->output, w);
  size_t pitch = (size_t)(row + o->out_pad);
  uint8_t *buf = malloc((size_t)h * pitch + 1), *packed = malloc((size_t)(h * row) + 1);
  assert_non_null(buf);
  assert_non_null(packed);
  memset(buf, POISON, (size_t)h * pitch + 1);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = h;
  d.width = w;
  d.in_pitch = o->in_pitched ? (int64_t)in_pitch : 0;
  d.out_pitch = o->out_pad ? (int64_t)pitch : 0;
  d.kernel = o->kernel;
  d.threshold = o->threshold;
  d.output = o->output;
  d.algorithm = o->algorithm;
  TU_OK(ctx, skss_halftone(ctx, &d, in, buf));
  for (int64_t y = 0; y < h; y++) {
    memcpy(packed + y * row, buf + (size_t)y * pitch, (size_t)row);
    for (size_t b = (size_t)row; b < pitch; b++)
      if (buf[(size_t)y * pitch + b] != POISON)
        TU_FAIL("padding byte %zu of row %lld was written (%s)", b, (long long)y,
                skss_algorithm_name(SKSS_OP_HALFTONE, o->algorithm));
  }
  if (buf[(size_t)h * pitch] != POISON) TU_FAIL("the byte after the output was written");
  free(buf);
  free(packed_in);
  return packed;
}

static void expect_same(const uint8_t *want, const uint8_t *got, int64_t h, int64_t row,
                        const char *what, const run_opts *o, skss_ctx *ctx) {
  for (int64_t i = 0; i < h * row; i++) {
    if (want[i] != got[i])
      TU_FAIL("%s: %s/%s kernel %d threshold %d output %d, %lld x %lld: byte (%lld, %lld) is %d, "
              "expected %d",
              what, skss_backend_name(skss_ctx_backend(ctx)),
              skss_algorithm_name(SKSS_OP_HALFTONE, o->algorithm), (int)o->kernel, o->threshold,
              (int)o->output, (long long)h, (long long)row, (long long)(i / row),
              (long long)(i % row), want[i], got[i]);
  }
}

/* The algorithms of CPU_REF (AUTO included). */
static const skss_halftone_algorithm REF_ALGS[] = {SKSS_HALFTONE_ALGORITHM_AUTO, SKSS_HALFTONE_ALGORITHM_ED, SKSS_HALFTONE_ALGORITHM_EC,
                                                   SKSS_HALFTONE_ALGORITHM_ED_RC, SKSS_HALFTONE_ALGORITHM_EC_RC};
#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Every algorithm of CPU_REF (ctx), both output kinds, against `want` (bytes). */
static void check_all_algorithms(skss_ctx *ctx, const uint8_t *want, const uint8_t *in, size_t in_pitch,
                                 int64_t h, int64_t w, skss_dither_kernel kernel, int threshold,
                                 bool pitched) {
  uint8_t *want_bits = malloc((size_t)(h * ((w + 7) / 8)) + 1);
  assert_non_null(want_bits);
  pack_bits(want, h, w, want_bits);
  for (int a = 0; a < COUNT(REF_ALGS); a++) {
    for (int output = 0; output < 2; output++) {
      run_opts o = {kernel, threshold, (skss_halftone_output)output, REF_ALGS[a], pitched,
                    pitched ? 5 : 0};
      uint8_t *got = run(ctx, &o, in, in_pitch, h, w);
      expect_same(output ? want_bits : want, got, h, out_row_bytes(o.output, w), "vs reference", &o, ctx);
      free(got);
    }
  }
  free(want_bits);
}

/* ---- tests --------------------------------------------------------------- */

/* A hand-worked row: 7/16 of -113 is -49.4, truncated to -49 (floor would
 * give -50 and a black third pixel). */
static void test_truncating_division(void **state) {
  (void)state;
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  const uint8_t in[3] = {100, 99, 178};
  uint8_t out[3] = {POISON, POISON, POISON}, bits = POISON;
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = 1;
  d.width = 3;
  TU_OK(ctx, skss_halftone(ctx, &d, in, out));
  assert_int_equal(out[0], 0);
  assert_int_equal(out[1], 255);
  assert_int_equal(out[2], 255);
  d.output = SKSS_HALFTONE_OUTPUT_BITS;
  TU_OK(ctx, skss_halftone(ctx, &d, in, &bits));
  assert_int_equal(bits, 0x60);
  skss_ctx_destroy(ctx);
}

static void test_kernel_table(void **state) {
  (void)state;
  static const char *const names[] = {"fs",      "jjn",     "stucki",      "burkes",
                                      "sierra3", "sierra2", "sierra-lite", "atkinson"};
  static const int divisors[] = {16, 48, 42, 32, 32, 16, 4, 8};
  assert_int_equal(COUNT(names), SKSS_DITHER_KERNEL_COUNT);
  for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
    skss_dither_kernel_info info;
    assert_int_equal(skss_dither_kernel_get_info((skss_dither_kernel)k, &info), SKSS_OK);
    assert_string_equal(info.name, names[k]);
    assert_int_equal(info.divisor, divisors[k]);
    skss_dither_kernel parsed;
    assert_int_equal(skss_dither_kernel_from_name(names[k], &parsed), SKSS_OK);
    assert_int_equal(parsed, k);
    int total = 0, reach = 0, third_row = 0;
    for (int dy = 0; dy < 3; dy++) {
      for (int j = 0; j < 5; j++) {
        int wgt = info.weight[dy][j];
        assert_true(wgt >= 0);
        if (dy == 0 && j <= 2) assert_int_equal(wgt, 0);
        total += wgt;
        if (dy >= 1 && wgt != 0 && 2 - j > reach) reach = 2 - j; /* dx = j - 2 */
        if (dy == 2 && wgt != 0) third_row = 1;
      }
    }
    /* slope = 1 + the farthest column to the right read in the rows above */
    assert_int_equal(info.slope, 1 + reach);
    assert_int_equal(info.rows, 2 + third_row);
    assert_int_equal(total, k == SKSS_DITHER_KERNEL_ATKINSON ? 6 : info.divisor);
  }
  skss_dither_kernel_info fs;
  assert_int_equal(skss_dither_kernel_get_info(SKSS_DITHER_KERNEL_FLOYD_STEINBERG, &fs), SKSS_OK);
  assert_int_equal(fs.weight[0][3], 7);
  assert_int_equal(fs.weight[1][1], 3);
  assert_int_equal(fs.weight[1][2], 5);
  assert_int_equal(fs.weight[1][3], 1);
  skss_dither_kernel parsed = SKSS_DITHER_KERNEL_ATKINSON;
  assert_int_equal(skss_dither_kernel_from_name("floyd-steinberg", &parsed), SKSS_OK);
  assert_int_equal(parsed, SKSS_DITHER_KERNEL_FLOYD_STEINBERG);
  assert_int_equal(skss_dither_kernel_from_name("FS", &parsed), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_dither_kernel_from_name("", &parsed), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_dither_kernel_from_name(NULL, &parsed), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_dither_kernel_from_name("fs", NULL), SKSS_ERR_INVALID_ARG);
  skss_dither_kernel_info info;
  assert_int_equal(skss_dither_kernel_get_info((skss_dither_kernel)SKSS_DITHER_KERNEL_COUNT, &info),
                   SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_dither_kernel_get_info((skss_dither_kernel)-1, &info), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_dither_kernel_get_info(SKSS_DITHER_KERNEL_STUCKI, NULL), SKSS_ERR_INVALID_ARG);
}

/* The oracle against every algorithm of CPU_REF, every threshold edge. */
static void test_thresholds(void **state) {
  (void)state;
  static const int thresholds[] = {0, 1, 127, 128, 254, 255};
  static const int64_t sizes[][2] = {{33, 31}, {7, 130}, {61, 9}};
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 1);
  for (int s = 0; s < COUNT(sizes); s++) {
    int64_t h = sizes[s][0], w = sizes[s][1];
    for (int kind = RANDOM; kind <= BLOCKS; kind++) {
      uint8_t *img = make_image(&rng, (image_kind)kind, h, w, (size_t)w + 3);
      uint8_t *want = malloc((size_t)(h * w));
      assert_non_null(want);
      for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
        for (int t = 0; t < COUNT(thresholds); t++) {
          oracle(img, (size_t)w + 3, h, w, (skss_dither_kernel)k, thresholds[t], want);
          check_all_algorithms(ref, want, img, (size_t)w + 3, h, w, (skss_dither_kernel)k, thresholds[t], true);
        }
      }
      free(want);
      free(img);
    }
  }
  skss_ctx_destroy(ref);
}

/* T = 255: nothing is white; T = 0 on a black image: nothing is white. */
static void test_threshold_extremes(void **state) {
  (void)state;
  skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, 2);
  uint8_t in[40 * 50], out[40 * 50];
  memset(in, 255, sizeof in);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = 40;
  d.width = 50;
  d.threshold = 255;
  TU_OK(cpu, skss_halftone(cpu, &d, in, out));
  for (size_t i = 0; i < sizeof out; i++) assert_int_equal(out[i], 0);
  memset(in, 0, sizeof in);
  d.threshold = 0;
  TU_OK(cpu, skss_halftone(cpu, &d, in, out));
  for (size_t i = 0; i < sizeof out; i++) assert_int_equal(out[i], 0);
  skss_ctx_destroy(cpu);
}

/* The size matrix: CPU_REF's AUTO (the oracle of test_backends.c, which
 * checks every other algorithm against it) x kernel x output kind against
 * the rule, pitched and packed. */
static void test_sizes(void **state) {
  (void)state;
  static const int64_t sizes[][2] = {{1, 1},    {1, 1021}, {1021, 1}, {33, 31}, {2, 2},
                                     {3, 5},    {1000, 777}, {4099, 17}, {17, 4099}};
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 2);
  for (int s = 0; s < COUNT(sizes); s++) {
    int64_t h = sizes[s][0], w = sizes[s][1];
    for (int kind = RANDOM; kind <= GRADIENT; kind++) {
      uint8_t *img = make_image(&rng, (image_kind)kind, h, w, (size_t)w + 3);
      uint8_t *want = malloc((size_t)(h * w)), *want_bits = malloc((size_t)(h * ((w + 7) / 8)) + 1);
      assert_non_null(want);
      assert_non_null(want_bits);
      for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
        oracle(img, (size_t)w + 3, h, w, (skss_dither_kernel)k, 128, want);
        pack_bits(want, h, w, want_bits);
        bool pitched = (k + s) % 2 == 0;
        for (int output = 0; output < 2; output++) {
          run_opts o = {(skss_dither_kernel)k, 128, (skss_halftone_output)output,
                        SKSS_HALFTONE_ALGORITHM_AUTO, pitched, pitched ? 5 : 0};
          uint8_t *got = run(ref, &o, img, (size_t)w + 3, h, w);
          expect_same(output ? want_bits : want, got, h, out_row_bytes(o.output, w), IMAGE_NAMES[kind],
                      &o, ref);
          free(got);
        }
      }
      free(want);
      free(want_bits);
      free(img);
    }
  }
  skss_ctx_destroy(ref);
}

/* The task array on 1, 2, 3 and 5 threads, many more rows than threads,
 * several chunks per row; repeat runs give the same bytes. */
static void test_threads(void **state) {
  (void)state;
  static const int threads[] = {1, 2, 3, 5};
  static const int64_t sizes[][2] = {{4099, 17}, {300, 1500}, {64, 4099}, {9, 8}};
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 3);
  for (int t = 0; t < COUNT(threads); t++) {
    skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, threads[t]);
    for (int s = 0; s < COUNT(sizes); s++) {
      int64_t h = sizes[s][0], w = sizes[s][1];
      uint8_t *img = make_image(&rng, (image_kind)(s % 3), h, w, (size_t)w);
      for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
        for (int output = 0; output < 2; output++) {
          run_opts o = {(skss_dither_kernel)k, 128, (skss_halftone_output)output, SKSS_HALFTONE_ALGORITHM_ED, false, 0};
          uint8_t *want = run(ref, &o, img, (size_t)w, h, w);
          o.algorithm = SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU;
          o.out_pad = output ? 2 : 0;
          uint8_t *first = run(cpu, &o, img, (size_t)w, h, w);
          uint8_t *again = run(cpu, &o, img, (size_t)w, h, w);
          expect_same(want, first, h, out_row_bytes(o.output, w), "threads", &o, cpu);
          expect_same(first, again, h, out_row_bytes(o.output, w), "repeat run", &o, cpu);
          free(want);
          free(first);
          free(again);
        }
      }
      free(img);
    }
    skss_ctx_destroy(cpu);
  }
  skss_ctx_destroy(ref);
}

/* Zero-sized images succeed without touching anything (NULL allowed). */
static void test_empty(void **state) {
  (void)state;
  skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, 2);
  uint8_t out = POISON;
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.algorithm = SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU;
  d.width = 5;
  TU_OK(cpu, skss_halftone(cpu, &d, NULL, NULL));
  d.height = 5;
  d.width = 0;
  TU_OK(cpu, skss_halftone(cpu, &d, NULL, &out));
  assert_int_equal(out, POISON);
  skss_ctx_destroy(cpu);
}


static void test_misuse(void **state) {
  (void)state;
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1), *cpu = tu_ctx(SKSS_BACKEND_CPU, 2);
  uint8_t in[64 * 64] = {0}, out[64 * 64];
  skss_halftone_desc good = SKSS_HALFTONE_DESC_INIT, d;
  good.height = 8;
  good.width = 8;
  assert_int_equal(skss_halftone(NULL, &good, in, out), SKSS_ERR_INVALID_ARG);
  tu_expect_halftone_misuse(cpu, NULL, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "desc is NULL");
  d = good;
  d.size = sizeof d - 1;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "desc->size");
  tu_expect_halftone_misuse(cpu, &good, NULL, out, sizeof out, SKSS_ERR_INVALID_ARG, "in is NULL");
  assert_int_equal(skss_halftone(cpu, &good, in, NULL), SKSS_ERR_INVALID_ARG);
  d = good;
  d.threshold = 256;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "threshold 256");
  d.threshold = -1;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "threshold -1");
  d = good;
  d.kernel = (skss_dither_kernel)SKSS_DITHER_KERNEL_COUNT;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "kernel");
  d.kernel = (skss_dither_kernel)-1;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "kernel");
  d = good;
  d.output = (skss_halftone_output)2;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "output");
  d = good;
  d.algorithm = (skss_halftone_algorithm)99;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "algorithm");
  d.algorithm = SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU;
  tu_expect_halftone_misuse(ref, &d, in, out, sizeof out, SKSS_ERR_UNSUPPORTED, "taskarray-cpu");
  d = good;
  d.height = -1;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "negative");
  d = good;
  d.width = -8;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "negative");
  d = good;
  d.in_pitch = 7;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "pitch");
  d = good;
  d.out_pitch = 7;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "pitch");
  d.output = SKSS_HALFTONE_OUTPUT_BITS; /* a BITS row of 8 pixels is 1 byte: pitch 7 is fine, 0 is not */
  d.out_pitch = -1;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "pitch");
  d = good;
  d.height = INT64_MAX / 4;
  d.width = 1 << 20;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_OVERFLOW, "overflow");
  d = good;
  d.height = 3;
  d.in_pitch = INT64_MAX / 2;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_OVERFLOW, "overflow");
  d = good;
  d.height = 1;
  d.width = INT64_MAX / 2; /* the row fits in size_t, its error rows do not */
  d.algorithm = SKSS_HALFTONE_ALGORITHM_ED;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_OVERFLOW, "overflow");
  d = good;
  tu_expect_halftone_misuse(cpu, &d, out + 4, out, sizeof out, SKSS_ERR_INVALID_ARG, "overlap");
  /* A pitched BITS output of 8 x 8 needs 1 byte a row: it may sit right after in. */
  d.output = SKSS_HALFTONE_OUTPUT_BITS;
  memset(out, POISON, sizeof out);
  TU_OK(cpu, skss_halftone(cpu, &d, out, out + 64));
  skss_ctx_destroy(ref);
  skss_ctx_destroy(cpu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_truncating_division), cmocka_unit_test(test_kernel_table),
      cmocka_unit_test(test_thresholds),          cmocka_unit_test(test_threshold_extremes),
      cmocka_unit_test(test_sizes),               cmocka_unit_test(test_threads),
      cmocka_unit_test(test_empty),               cmocka_unit_test(test_misuse),
  };
  printf("seed %llu\n", (unsigned long long)tu_seed());
  return cmocka_run_group_tests(tests, NULL, NULL);
}
