/*
 * test_halftone_batch.c — the batch fields of skss_halftone_desc (images,
 * in_image_stride, out_image_stride) on the CPU backends: a CPU_REF batch
 * gives each image's bytes of a single-image call (errors never cross
 * images; test_backends.c runs every other backend's batches against it),
 * padding between rows and images stays untouched, packed strides default
 * to height * pitch, a desc of the size before the batch fields means one
 * image, the cpu backend's task array (an image a thread once there are
 * as many images as threads) matches CPU_REF, and every misuse (negative count or stride, a stride shorter than
 * an image, an extent past size_t, overlap across the batch) fails with a
 * clear message and leaves the outputs alone.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xA5

static void fill(tu_rng *r, uint8_t *p, size_t n) {
  for (size_t k = 0; k < n; k++) p[k] = (uint8_t)(tu_next(r) & 255);
}

/* A batch of `images` h x w images with padded rows and gaps between
 * images, BYTES or BITS, against single-image calls on CPU_REF. */
static void check_batch(skss_ctx *ctx, skss_ctx *ref, tu_rng *r, int64_t h, int64_t w, int64_t images,
                        skss_halftone_output output, skss_dither_kernel kernel, int algorithm) {
  const size_t out_row = output == SKSS_HALFTONE_OUTPUT_BITS ? (size_t)(w + 7) / 8 : (size_t)w;
  const size_t in_pitch = (size_t)w + 3, out_pitch = out_row + 2;
  const size_t in_stride = (size_t)h * in_pitch + 5, out_stride = (size_t)h * out_pitch + 7;
  uint8_t *in = malloc((size_t)images * in_stride), *got = malloc((size_t)images * out_stride),
          *want = malloc((size_t)images * out_stride);
  fill(r, in, (size_t)images * in_stride);
  memset(got, POISON, (size_t)images * out_stride);
  memset(want, POISON, (size_t)images * out_stride);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = h;
  d.width = w;
  d.in_pitch = (int64_t)in_pitch;
  d.out_pitch = (int64_t)out_pitch;
  d.kernel = kernel;
  d.output = output;
  for (int64_t k = 0; k < images; k++)
    TU_OK(ref, skss_halftone(ref, &d, in + (size_t)k * in_stride, want + (size_t)k * out_stride));
  d.algorithm = (skss_halftone_algorithm)algorithm;
  d.images = images;
  d.in_image_stride = (int64_t)in_stride;
  d.out_image_stride = (int64_t)out_stride;
  TU_OK(ctx, skss_halftone(ctx, &d, in, got));
  if (memcmp(got, want, (size_t)images * out_stride) != 0)
    TU_FAIL("batch of %lld %lldx%lld (%s, kernel %d, algorithm %d) differs from single images",
            (long long)images, (long long)h, (long long)w, output == SKSS_HALFTONE_OUTPUT_BITS ? "bits" : "bytes",
            (int)kernel, algorithm);
  free(in);
  free(got);
  free(want);
}

static void test_batch_matches_single_images(void **state) {
  (void)state;
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  const int64_t shapes[][3] = {{1, 1, 1}, {1, 77, 4}, {77, 1, 3}, {33, 31, 5}, {40, 70, 2}};
  for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
    for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
      const skss_halftone_output o = (skss_halftone_output)((s + (size_t)k) % 2);
      check_batch(ref, ref, &r, shapes[s][0], shapes[s][1], shapes[s][2], o, (skss_dither_kernel)k,
                  SKSS_HALFTONE_ALGORITHM_EC_RC);
      check_batch(ref, ref, &r, shapes[s][0], shapes[s][1], shapes[s][2], o, (skss_dither_kernel)k,
                  SKSS_HALFTONE_ALGORITHM_AUTO);
    }
  skss_ctx_destroy(ref);
}

/* The cpu backend's task array runs a batch of at least as many images as
 * threads an image a thread, fewer on all threads: both give the bytes of
 * single CPU_REF calls, every kernel, BYTES and BITS, padded strides. */
static void test_cpu_batch_images_at_once(void **state) {
  (void)state;
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 2);
  const int64_t shapes[][3] = {{1, 1, 5}, {33, 31, 7}, {40, 70, 2}, {9, 200, 4}, {64, 17, 3}};
  for (int threads = 2; threads <= 3; threads++) {
    skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, threads);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
        const skss_halftone_output o = (skss_halftone_output)((s + (size_t)k + (size_t)threads) % 2);
        check_batch(cpu, ref, &r, shapes[s][0], shapes[s][1], shapes[s][2], o, (skss_dither_kernel)k,
                    k % 2 ? SKSS_HALFTONE_ALGORITHM_AUTO : SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU);
      }
    skss_ctx_destroy(cpu);
  }
  skss_ctx_destroy(ref);
}

/* Strides of 0 mean packed images; 0 images means one. */
static void test_packed_defaults(void **state) {
  (void)state;
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  enum { H = 9, W = 13, N = 3 };
  uint8_t in[N * H * W], got[N * H * W], want[N * H * W];
  fill(&r, in, sizeof in);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = H;
  d.width = W;
  for (int k = 0; k < N; k++) TU_OK(ref, skss_halftone(ref, &d, in + k * H * W, want + k * H * W));
  d.images = N;
  memset(got, POISON, sizeof got);
  TU_OK(ref, skss_halftone(ref, &d, in, got));
  assert_memory_equal(got, want, sizeof got);
  d.images = 0;
  memset(got, POISON, sizeof got);
  TU_OK(ref, skss_halftone(ref, &d, in, got));
  assert_memory_equal(got, want, (size_t)H * W);
  assert_int_equal(got[H * W], POISON);
  skss_ctx_destroy(ref);
}

/* A caller compiled before the batch fields passes the shorter size. */
static void test_desc_before_the_batch_fields(void **state) {
  (void)state;
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  uint8_t in[8 * 8], got[2 * 8 * 8], want[8 * 8];
  for (int k = 0; k < 64; k++) in[k] = (uint8_t)(k * 37);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = 8;
  d.width = 8;
  TU_OK(ref, skss_halftone(ref, &d, in, want));
  d.size = offsetof(skss_halftone_desc, images);
  d.images = 2; /* beyond the old size: must be ignored */
  memset(got, POISON, sizeof got);
  TU_OK(ref, skss_halftone(ref, &d, in, got));
  assert_memory_equal(got, want, sizeof want);
  assert_int_equal(got[64], POISON);
  d.size = offsetof(skss_halftone_desc, images) + 1; /* neither size */
  assert_int_equal(skss_halftone(ref, &d, in, got), SKSS_ERR_INVALID_ARG);
  skss_ctx_destroy(ref);
}


static void test_misuse(void **state) {
  (void)state;
  skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, 2);
  static uint8_t in[4 * 64], out[4 * 64];
  skss_halftone_desc good = SKSS_HALFTONE_DESC_INIT, d;
  good.height = 8;
  good.width = 8;
  good.images = 4;
  d = good;
  d.images = -1;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "images -1");
  d = good;
  d.in_image_stride = -64;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "in image stride -64");
  d = good;
  d.out_image_stride = 63; /* one 8 x 8 image is 64 bytes */
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_INVALID_ARG, "less than one image");
  d = good;
  d.images = INT64_MAX / 2;
  tu_expect_halftone_misuse(cpu, &d, in, out, sizeof out, SKSS_ERR_OVERFLOW, "overflow");
  d = good;
  /* the fourth input image would run into the output */
  tu_expect_halftone_misuse(cpu, &d, out, out + 3 * 64, 64, SKSS_ERR_INVALID_ARG, "overlap");
  skss_ctx_destroy(cpu);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_batch_matches_single_images),
      cmocka_unit_test(test_cpu_batch_images_at_once),
      cmocka_unit_test(test_packed_defaults),
      cmocka_unit_test(test_desc_before_the_batch_fields),
      cmocka_unit_test(test_misuse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
