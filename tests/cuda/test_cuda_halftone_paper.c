/*
 * test_cuda_halftone_paper.c — the error-diffusion paper's GPU variants
 * (PRAM-style k-delay kernels with and without the data permutation, and
 * the parallelogram blocks: halftone_pram.cu, halftone_parallelogram.cu)
 * against the CPU reference: every dither kernel, awkward sizes (1 x 1,
 * 1 x N, N x 1, 33 x 31, 1000 x 777, 4099 x 17), seeded random and smooth
 * images, several thresholds, host and device pointers; bytes identical.
 * SKSS_TEST_SMALL=1 keeps the small sizes (compute-sanitizer), and
 * SKSS_HT_PAPER_ALGS=lo-hi a range of algorithm ids;
 * SKSS_HT_PAPER_TIME=1 also times every variant on Floyd-Steinberg at
 * 1K, 4K and 16K and on Jarvis-Judice-Ninke at 4K (CUDA events, device
 * pointers) and checks those outputs.
 * Exits 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const int64_t SHAPES[][2] = {{1, 1}, {1, 77}, {77, 1}, {33, 31}, {40, 70}, {1000, 777}, {4099, 17}};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])
#define N_SMALL_SHAPES 5 /* up to 40 x 70: what compute-sanitizer runs */
#define FIRST_ALG 16
#define LAST_ALG 27

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* Whether the run covers `alg`: SKSS_HT_PAPER_ALGS=lo-hi narrows it (the
 * sanitizer runs take the shared-memory variants only), and the CUDA
 * backend must implement it. */
static int covered(int alg) {
  const char *v = getenv("SKSS_HT_PAPER_ALGS");
  int lo = FIRST_ALG, hi = LAST_ALG;
  if (v != NULL && sscanf(v, "%d-%d", &lo, &hi) != 2) lo = hi = atoi(v);
  return alg >= lo && alg <= hi && skss_algorithm_supported(SKSS_OP_HALFTONE, alg, SKSS_BACKEND_CUDA);
}

/* Random bytes (kind 0) or a smooth ramp with a little noise (kind 1), which
 * keeps errors small and long-lived, as in photographs. */
static void fill_image(tu_rng *r, uint8_t *img, int64_t h, int64_t w, int kind) {
  for (int64_t y = 0; y < h; y++)
    for (int64_t x = 0; x < w; x++) {
      int v = kind == 0 ? (int)(tu_next(r) & 255)
                        : (int)((x * 255) / (w > 1 ? w - 1 : 1) + (y * 37) % 11 + tu_range(r, -3, 3));
      img[y * w + x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

typedef struct spec {
  int alg;
  skss_dither_kernel kernel;
  int64_t h, w;
  int threshold, kind, device_ptrs;
} spec;

/* Halftones `in` (h x w, packed) on the CUDA context into `out`. */
static void run_cuda(skss_ctx *cuda, const skss_halftone_desc *d, const uint8_t *in, uint8_t *out,
                     int device_ptrs) {
  const size_t n = (size_t)(d->height * d->width);
  if (!device_ptrs) {
    TU_OK(cuda, skss_halftone(cuda, d, in, out));
    return;
  }
  void *din, *dout;
  assert_int_equal(cudaMalloc(&din, n), cudaSuccess);
  assert_int_equal(cudaMalloc(&dout, n), cudaSuccess);
  cudaMemcpy(din, in, n, cudaMemcpyHostToDevice);
  cudaMemset(dout, 0x5A, n);
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  TU_OK(cuda, skss_halftone(cuda, d, din, dout));
  TU_OK(cuda, skss_ctx_synchronize(cuda));
  cudaMemcpy(out, dout, n, cudaMemcpyDeviceToHost);
  cudaFree(din);
  cudaFree(dout);
}

/* Runs one case; prints why and returns 0 when the bytes differ (the
 * caller counts, so one run reports every failing case). */
static int check_one(skss_ctx *cuda, skss_ctx *ref, tu_rng *r, const spec *s) {
  const size_t n = (size_t)(s->h * s->w);
  uint8_t *in = malloc(n), *want = malloc(n), *got = malloc(n);
  fill_image(r, in, s->h, s->w, s->kind);
  memset(want, 0xA5, n);
  memset(got, 0x5A, n);
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = s->h;
  d.width = s->w;
  d.kernel = s->kernel;
  d.threshold = s->threshold;
  TU_OK(ref, skss_halftone(ref, &d, in, want));
  d.algorithm = (skss_halftone_algorithm)s->alg;
  run_cuda(cuda, &d, in, got, s->device_ptrs);
  const int ok = memcmp(want, got, n) == 0;
  if (!ok) {
    size_t first = 0, bad = 0;
    while (want[first] == got[first]) first++;
    for (size_t k = 0; k < n; k++) bad += want[k] != got[k];
    skss_dither_kernel_info info;
    skss_dither_kernel_get_info(s->kernel, &info);
    print_error("%s %s %lldx%lld T=%d %s %s: %zu pixels differ, first (%zu, %zu): %d, want %d\n",
                skss_algorithm_name(SKSS_OP_HALFTONE, s->alg), info.name, (long long)s->h,
                (long long)s->w, s->threshold, s->kind ? "ramp" : "random",
                s->device_ptrs ? "device" : "host", bad, first / (size_t)s->w, first % (size_t)s->w,
                got[first], want[first]);
  }
  free(in);
  free(want);
  free(got);
  return ok;
}

static void test_every_variant_kernel_and_size(void **state) {
  (void)state;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  int ran = 0, failed = 0;
  for (int alg = FIRST_ALG; alg <= LAST_ALG; alg++) {
    if (!covered(alg)) continue;
    ran++;
    for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++)
      for (size_t sh = 0; sh < (env_on("SKSS_TEST_SMALL") ? N_SMALL_SHAPES : N_SHAPES); sh++) {
        const int thresholds[] = {128, 0, 200, 255, 77};
        spec s = {alg, (skss_dither_kernel)k, SHAPES[sh][0], SHAPES[sh][1],
                  thresholds[(sh + (size_t)k) % 5], (int)((sh + (size_t)k) % 2),
                  (int)((sh + (size_t)alg) % 2)};
        failed += !check_one(cuda, ref, &r, &s);
      }
  }
  if (failed) TU_FAIL("%d cases differ from the CPU reference", failed);
  if (ran == 0) skip();
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* Every variant timed on device pointers (median of 3 after a warm-up; one
 * run at 16K) and its bytes compared with the CPU reference's. */
static void test_timing_floyd_steinberg(void **state) {
  (void)state;
  if (!env_on("SKSS_HT_PAPER_TIME")) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  /* Floyd-Steinberg at 1K, 4K, 16K, then Jarvis-Judice-Ninke (slope 3, 3 rows) at 4K. */
  const int64_t sides[] = {1024, 4096, 16384, 4096};
  const skss_dither_kernel kernels[] = {SKSS_DITHER_FLOYD_STEINBERG, SKSS_DITHER_FLOYD_STEINBERG,
                                        SKSS_DITHER_FLOYD_STEINBERG, SKSS_DITHER_JARVIS_JUDICE_NINKE};
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  printf("%-18s %10s %10s %10s %10s   (ms)\n", "algorithm", "FS 1K", "FS 4K", "FS 16K", "JJN 4K");
  double ms[LAST_ALG + 1][4] = {{0}};
  int failed = 0;
  for (int si = 0; si < 4; si++) {
    const int64_t n = sides[si] * sides[si];
    uint8_t *in = malloc((size_t)n), *want = malloc((size_t)n), *got = malloc((size_t)n);
    fill_image(&r, in, sides[si], sides[si], 1);
    skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
    d.height = d.width = sides[si];
    d.kernel = kernels[si];
    TU_OK(ref, skss_halftone(ref, &d, in, want));
    void *din, *dout;
    assert_int_equal(cudaMalloc(&din, (size_t)n), cudaSuccess);
    assert_int_equal(cudaMalloc(&dout, (size_t)n), cudaSuccess);
    cudaMemcpy(din, in, (size_t)n, cudaMemcpyHostToDevice);
    for (int alg = FIRST_ALG; alg <= LAST_ALG; alg++) {
      if (!covered(alg)) continue;
      d.algorithm = (skss_halftone_algorithm)alg;
      const int reps = si == 2 ? 1 : 3;
      float t[3];
      cudaMemset(dout, 0x5A, (size_t)n);
      TU_OK(cuda, skss_halftone(cuda, &d, din, dout)); /* warm-up: arena, modules */
      TU_OK(cuda, skss_ctx_synchronize(cuda));
      for (int k = 0; k < reps; k++) {
        cudaEventRecord(e0, NULL);
        TU_OK(cuda, skss_halftone(cuda, &d, din, dout));
        cudaEventRecord(e1, NULL);
        TU_OK(cuda, skss_ctx_synchronize(cuda));
        cudaEventSynchronize(e1);
        cudaEventElapsedTime(&t[k], e0, e1);
      }
      for (int a = 0; a < reps; a++) /* sort for the median */
        for (int b = a + 1; b < reps; b++)
          if (t[b] < t[a]) {
            float x = t[a];
            t[a] = t[b];
            t[b] = x;
          }
      ms[alg][si] = t[reps / 2];
      cudaMemcpy(got, dout, (size_t)n, cudaMemcpyDeviceToHost);
      if (memcmp(got, want, (size_t)n) != 0) {
        print_error("%s at %lld (kernel %d): bytes differ from the CPU reference\n",
                    skss_algorithm_name(SKSS_OP_HALFTONE, alg), (long long)sides[si], (int)kernels[si]);
        failed++;
      }
    }
    cudaFree(din);
    cudaFree(dout);
    free(in);
    free(want);
    free(got);
  }
  for (int alg = FIRST_ALG; alg <= LAST_ALG; alg++)
    if (covered(alg))
      printf("%-18s %10.3f %10.3f %10.3f %10.3f\n", skss_algorithm_name(SKSS_OP_HALFTONE, alg),
             ms[alg][0], ms[alg][1], ms[alg][2], ms[alg][3]);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  if (failed) TU_FAIL("%d timed runs differ from the CPU reference", failed);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_variant_kernel_and_size),
      cmocka_unit_test(test_timing_floyd_steinberg),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
