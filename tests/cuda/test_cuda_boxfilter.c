/*
 * test_cuda_boxfilter.c — skss_boxfilter_u8() on the CUDA backend against
 * the CPU backend, byte for byte, where it differs from the host-pointer
 * cases of test_backends.c: every CUDA SAT algorithm, radii 0, 1, 2, 7, 40,
 * larger than the image and huge, both borders, sizes 1 x 1, 1 x N, N x 1,
 * 33 x 31, 1000 x 777, pitched rows, with a device input, output or both;
 * 4200 x 4200 bright images (host and device) whose windows sum just below
 * 2^32 (r = 2051: the u32 SAT, which wraps) and past it (r = 2052: the f64
 * SAT); and the CUDA-side errors. Exits 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* SKSS_TEST_SMALL=1 (scripts/gpu-check under compute-sanitizer): small cases only. */
static int small_only(void) {
  const char *v = getenv("SKSS_TEST_SMALL");
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* A host image with `pad` spare bytes per row. */
typedef struct image {
  int64_t h, w;
  size_t pitch;
  uint8_t *px;
} image;

/* Random pixels, or (bright) 255 but for about one in 10000: windows of
 * area > 2^32 / 255 then sum past 2^32. */
static image make_image(tu_rng *r, int64_t h, int64_t w, size_t pad, int bright) {
  image im = {h, w, (size_t)w + pad, NULL};
  const size_t bytes = (size_t)h * im.pitch;
  im.px = malloc(bytes);
  assert_non_null(im.px);
  tu_fill_bytes(r, im.px, bytes);
  if (bright)
    for (size_t k = 0; k < bytes; k++)
      if (tu_next(r) % 10000 != 0) im.px[k] = 255;
  return im;
}

/* The CPU backend's result, packed (pitch = width). */
static uint8_t *reference(skss_ctx *cpu, const image *im, int64_t radius,
                          skss_boxfilter_border border) {
  uint8_t *want = malloc((size_t)(im->h * im->w));
  assert_non_null(want);
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = im->h;
  d.width = im->w;
  d.radius = radius;
  d.in_pitch = (int64_t)im->pitch;
  d.border = border;
  TU_OK(cpu, skss_boxfilter_u8(cpu, &d, im->px, want));
  return want;
}

/* One CUDA call: which pointers are device memory, the output's spare bytes. */
typedef struct cuda_call {
  int alg;
  int64_t radius;
  skss_boxfilter_border border;
  int in_dev, out_dev;
  size_t out_pad;
} cuda_call;

static void *to_device(const void *host, size_t bytes) {
  void *dev = NULL;
  assert_int_equal(cudaMalloc(&dev, bytes), cudaSuccess);
  assert_int_equal(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  /* A copy from pageable memory may return before it lands on the device,
   * and the context's stream does not wait for the legacy stream. */
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  return dev;
}

/* Runs the call on a poisoned output; compares rows with `want` and checks
 * that the rows' spare bytes are untouched. */
static void check_call(skss_ctx *cuda, const image *im, const cuda_call *c, const uint8_t *want) {
  const size_t out_pitch = (size_t)im->w + c->out_pad, out_bytes = (size_t)im->h * out_pitch;
  const size_t in_bytes = (size_t)im->h * im->pitch;
  uint8_t *got = malloc(out_bytes);
  assert_non_null(got);
  memset(got, 0xA5, out_bytes);
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = im->h;
  d.width = im->w;
  d.radius = c->radius;
  d.in_pitch = (int64_t)im->pitch;
  d.out_pitch = (int64_t)out_pitch;
  d.border = c->border;
  d.sat_algorithm = (skss_sat_algorithm)c->alg;
  void *in = c->in_dev ? to_device(im->px, in_bytes) : im->px;
  void *out = c->out_dev ? to_device(got, out_bytes) : got;
  TU_OK(cuda, skss_boxfilter_u8(cuda, &d, in, out));
  TU_OK(cuda, skss_ctx_synchronize(cuda));
  if (c->out_dev) {
    assert_int_equal(cudaMemcpy(got, out, out_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(out);
  }
  if (c->in_dev) cudaFree(in);
  for (int64_t i = 0; i < im->h; i++) {
    const uint8_t *g = got + (size_t)i * out_pitch, *w = want + (size_t)(i * im->w);
    for (int64_t j = 0; j < im->w; j++)
      if (g[j] != w[j])
        TU_FAIL("%s %lldx%lld r=%lld %s in %s out %s pad %zu: (%lld, %lld) got %d, cpu %d",
                skss_algorithm_name(SKSS_OP_SAT, c->alg), (long long)im->h, (long long)im->w,
                (long long)c->radius, c->border == SKSS_BOXFILTER_BORDER_CLIP ? "clip" : "zero",
                c->in_dev ? "device" : "host", c->out_dev ? "device" : "host", c->out_pad,
                (long long)i, (long long)j, g[j], w[j]);
    for (size_t k = (size_t)im->w; k < out_pitch; k++)
      if (g[k] != 0xA5) TU_FAIL("row %lld: spare byte %zu written", (long long)i, k);
  }
  free(got);
}

/* The CUDA SAT algorithms, and AUTO. */
static int cuda_algorithms(int *algs) {
  int n = 0;
  algs[n++] = SKSS_SAT_ALGORITHM_AUTO;
  for (int alg = 1; alg < 64; alg++)
    if (skss_algorithm_supported(SKSS_OP_SAT, alg, SKSS_BACKEND_CUDA)) algs[n++] = alg;
  return n;
}

/* Every algorithm, border and radius on one image; host/device pointer
 * pairs and output pitches rotate over the radii and borders, so that with
 * 4 radii or more each algorithm meets every pair; `device_only` makes the
 * host-only pair device-only (test_backends.c runs host pointers). */
static void check_image(skss_ctx *cuda, skss_ctx *cpu, const image *im, const int64_t *radii,
                        int n_radii, int device_only) {
  int algs[64];
  const int n_algs = cuda_algorithms(algs);
  for (int b = 0; b < 2; b++) {
    for (int k = 0; k < n_radii; k++) {
      const skss_boxfilter_border border = b ? SKSS_BOXFILTER_BORDER_ZERO : SKSS_BOXFILTER_BORDER_CLIP;
      uint8_t *want = reference(cpu, im, radii[k], border);
      for (int a = 0; a < n_algs; a++) {
        const int kind = a + k + 3 * b, both_device = device_only && kind % 4 == 0;
        const cuda_call c = {algs[a], radii[k], border, kind % 2 || both_device,
                             (kind / 2) % 2 || both_device, (size_t)(kind % 3) * 3};
        check_call(cuda, im, &c, want);
      }
      free(want);
    }
  }
}

static void test_every_algorithm_on_device_pointers(void **state) {
  (void)state;
  static const int64_t shapes[][2] = {{1, 1}, {1, 300}, {300, 1}, {33, 31}, {1000, 777}};
  const int n_shapes = small_only() ? 4 : 5;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *cpu = tu_ctx(SKSS_BACKEND_CPU, 3);
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  for (int s = 0; s < n_shapes; s++) {
    const int64_t h = shapes[s][0], w = shapes[s][1];
    const int64_t beyond = (h > w ? h : w) + 3;
    const int64_t all[] = {0, 1, 2, 7, 40, beyond, (int64_t)1 << 40};
    const int64_t small[] = {0, 2, beyond, (int64_t)1 << 40};
    image im = make_image(&r, h, w, (size_t)(s % 2) * 5, 0);
    if (small_only())
      check_image(cuda, cpu, &im, small, 4, 1);
    else
      check_image(cuda, cpu, &im, all, 7, 1);
    free(im.px);
  }
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(cpu);
}

/* 4200 x 4200, 255 but for a few pixels: r = 2051 windows (4103^2 pixels)
 * sum to just under 2^32 in a u32 SAT that wraps; r = 2052 windows (4105^2)
 * sum past 2^32 and need the f64 SAT. */
static void test_windows_near_and_past_2_32(void **state) {
  (void)state;
  if (small_only()) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *cpu = tu_ctx(SKSS_BACKEND_CPU, 0);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  image im = make_image(&r, 4200, 4200, 0, 1);
  const int64_t radii[] = {2051, 2052};
  check_image(cuda, cpu, &im, radii, 2, 0);
  free(im.px);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(cpu);
}

static void expect_status(skss_ctx *ctx, const skss_boxfilter_desc *d, const uint8_t *in,
                          uint8_t *out, skss_status want, const char *needle) {
  assert_int_equal(skss_boxfilter_u8(ctx, d, in, out), want);
  const char *msg = skss_ctx_last_error(ctx);
  if (strstr(msg, "skss_boxfilter_u8()") != msg || strstr(msg, needle) == NULL)
    TU_FAIL("message '%s' lacks '%s'", msg, needle);
}

static void test_errors_and_empty_images(void **state) {
  (void)state;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0);
  uint8_t in[12] = {0}, out[12];
  skss_boxfilter_desc d = SKSS_BOXFILTER_DESC_INIT;
  d.height = 3;
  d.width = 4;
  skss_boxfilter_desc e = d;
  e.sat_algorithm = SKSS_SAT_ALGORITHM_BANDS_CPU;
  expect_status(cuda, &e, in, out, SKSS_ERR_UNSUPPORTED, "bands-cpu");
  expect_status(cuda, &d, NULL, out, SKSS_ERR_INVALID_ARG, "input is NULL");
  /* Sizes whose workspace or sums overflow (pointers far apart, never read). */
  const uint8_t *far_in = (const uint8_t *)(uintptr_t)0x1000;
  uint8_t *far_out = (uint8_t *)(uintptr_t)((uint64_t)1 << 63);
  e = d;
  e.height = (int64_t)1 << 61;
  e.width = 2;
  expect_status(cuda, &e, far_in, far_out, SKSS_ERR_OVERFLOW, "workspace overflows");
  e.height = (int64_t)1 << 30;
  e.width = (int64_t)1 << 20;
  e.radius = (int64_t)1 << 40;
  expect_status(cuda, &e, far_in, far_out, SKSS_ERR_OVERFLOW, "2^53");
  /* Zero-sized images succeed without touching anything. */
  e = d;
  e.height = 0;
  TU_OK(cuda, skss_boxfilter_u8(cuda, &e, NULL, NULL));
  e = d;
  e.width = 0;
  e.radius = INT64_MAX;
  TU_OK(cuda, skss_boxfilter_u8(cuda, &e, NULL, NULL));
  /* A ZERO border of radius INT64_MAX clears; CLIP gives the image's mean. */
  memset(out, 0xA5, sizeof out);
  e = d;
  e.radius = INT64_MAX;
  e.border = SKSS_BOXFILTER_BORDER_ZERO;
  for (int k = 0; k < 12; k++) in[k] = (uint8_t)(k * 20);
  TU_OK(cuda, skss_boxfilter_u8(cuda, &e, in, out));
  for (int k = 0; k < 12; k++) assert_int_equal(out[k], 0);
  e.border = SKSS_BOXFILTER_BORDER_CLIP;
  TU_OK(cuda, skss_boxfilter_u8(cuda, &e, in, out));
  for (int k = 0; k < 12; k++) assert_int_equal(out[k], 110); /* 1320 / 12 */
  skss_ctx_destroy(cuda);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_algorithm_on_device_pointers),
      cmocka_unit_test(test_windows_near_and_past_2_32),
      cmocka_unit_test(test_errors_and_empty_images),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
