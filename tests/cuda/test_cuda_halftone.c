/*
 * test_cuda_halftone.c — every CUDA halftone algorithm (every name the CUDA
 * backend supports, so new ones are covered as they land) against CPU_REF
 * where the CUDA backend differs from the host-pointer cases of
 * test_backends.c: device pointers for every dither kernel, sizes 1 x 1,
 * 1 x N, N x 1, 33 x 31, 1000 x 777, 4099 x 17, seeded random and
 * natural-like (a ramp with noise) images, several thresholds, BYTES and
 * BITS, pitched rows, and batches of images with strides; a real
 * photograph (data/astronaut.png through the CLI's reader, whole and as
 * crops read in place with its pitch, host and device pointers); the
 * caller's stream; a stress with far more strips than resident warps
 * (under SKSS_TEST_SMALL, a smaller one: each block of `strips` takes a few
 * strips of one image); bytes identical.
 * SKSS_TEST_SMALL=1 keeps the small sizes (compute-sanitizer), and
 * SKSS_HT_ALGS=lo-hi a range of algorithm ids;
 * SKSS_HT_TIME=1 also times SKSS and ours (CUDA events, device pointers;
 * SKSS_HT_TIME_ONLY=1 skips the other tests):
 * Floyd-Steinberg 1K .. 32K, a 64 x 4K batch, and one 1 x 4M row, whose
 * time per column is the cost of one dependent pixel step (the latency
 * floor of H x W is then (W + slope (H - 1)) steps).
 * Exits 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#ifdef SKSS_TEST_DATA_DIR
#include "skss_io.h"
#endif

#define FIRST_CUDA_ALG 16
#define LAST_ALG 63

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* Whether the run covers `alg`: a CUDA algorithm, in SKSS_HT_ALGS=lo-hi
 * when that is set. */
static int cuda_alg(int alg) {
  const char *v = getenv("SKSS_HT_ALGS");
  int lo = FIRST_CUDA_ALG, hi = LAST_ALG;
  if (v != NULL && sscanf(v, "%d-%d", &lo, &hi) != 2) lo = hi = atoi(v);
  return alg >= lo && alg <= hi && alg >= FIRST_CUDA_ALG &&
         skss_algorithm_name(SKSS_OP_HALFTONE, alg) != NULL &&
         skss_algorithm_supported(SKSS_OP_HALFTONE, alg, SKSS_BACKEND_CUDA);
}

/* Random bytes (kind 0) or a ramp with a little noise (kind 1), whose errors
 * stay small and long-lived, as in photographs. */
static void fill_image(tu_rng *r, uint8_t *img, int64_t h, int64_t w, size_t pitch, int kind) {
  for (int64_t y = 0; y < h; y++)
    for (int64_t x = 0; x < w; x++) {
      int v = kind == 0 ? (int)(tu_next(r) & 255)
                        : (int)((x * 255) / (w > 1 ? w - 1 : 1) + (y * 37) % 11 + tu_range(r, -3, 3));
      img[(size_t)y * pitch + (size_t)x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
}

typedef struct layout {
  int64_t h, w, images;
  size_t in_pitch, out_pitch, in_stride, out_stride;
  skss_halftone_output output;
} layout;

static size_t out_row_bytes(const layout *l) {
  return l->output == SKSS_HALFTONE_OUTPUT_BITS ? (size_t)(l->w + 7) / 8 : (size_t)l->w;
}

/* A layout with optional padding after each row and each image. */
static layout make_layout(int64_t h, int64_t w, int64_t images, int pitched, skss_halftone_output o) {
  layout l = {h, w, images, 0, 0, 0, 0, o};
  l.in_pitch = (size_t)w + (pitched ? 13 : 0);
  l.out_pitch = out_row_bytes(&l) + (pitched ? 5 : 0);
  l.in_stride = (size_t)h * l.in_pitch + (pitched ? 7 : 0);
  l.out_stride = (size_t)h * l.out_pitch + (pitched ? 3 : 0);
  return l;
}

static size_t in_bytes(const layout *l) { return (size_t)l->images * l->in_stride; }
static size_t out_bytes(const layout *l) { return (size_t)l->images * l->out_stride; }

static skss_halftone_desc make_desc(const layout *l, skss_dither_kernel k, int threshold, int alg) {
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = l->h;
  d.width = l->w;
  d.in_pitch = (int64_t)l->in_pitch;
  d.out_pitch = (int64_t)l->out_pitch;
  d.kernel = k;
  d.threshold = threshold;
  d.output = l->output;
  d.algorithm = (skss_halftone_algorithm)alg;
  d.images = l->images;
  d.in_image_stride = (int64_t)l->in_stride;
  d.out_image_stride = (int64_t)l->out_stride;
  return d;
}

/* What CPU_REF makes of the batch, image by image (the batch path of the
 * CUDA call is what is under test). Padding bytes of `want` are left as
 * `poison`. */
static void reference(skss_ctx *ref, const layout *l, skss_dither_kernel k, int threshold,
                      const uint8_t *in, uint8_t *want) {
  layout one = *l;
  one.images = 1;
  skss_halftone_desc d = make_desc(&one, k, threshold, SKSS_HALFTONE_ALGORITHM_ED);
  d.images = 1;
  for (int64_t i = 0; i < l->images; i++)
    TU_OK(ref, skss_halftone(ref, &d, in + (size_t)i * l->in_stride, want + (size_t)i * l->out_stride));
}

/* Runs `d` on the CUDA context with host or device buffers; out starts as
 * `poison` everywhere. */
static void run_cuda(skss_ctx *cuda, const skss_halftone_desc *d, const layout *l, const uint8_t *in,
                     uint8_t *out, int device_ptrs, uint8_t poison) {
  memset(out, poison, out_bytes(l));
  if (!device_ptrs) {
    TU_OK(cuda, skss_halftone(cuda, d, in, out));
    return;
  }
  void *din, *dout;
  assert_int_equal(cudaMalloc(&din, in_bytes(l)), cudaSuccess);
  assert_int_equal(cudaMalloc(&dout, out_bytes(l)), cudaSuccess);
  assert_int_equal(cudaMemcpy(din, in, in_bytes(l), cudaMemcpyHostToDevice), cudaSuccess);
  assert_int_equal(cudaMemcpy(dout, out, out_bytes(l), cudaMemcpyHostToDevice), cudaSuccess);
  TU_OK(cuda, skss_halftone(cuda, d, din, dout));
  TU_OK(cuda, skss_ctx_synchronize(cuda));
  assert_int_equal(cudaMemcpy(out, dout, out_bytes(l), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(din);
  cudaFree(dout);
}

typedef struct spec {
  int alg;
  skss_dither_kernel kernel;
  layout l;
  int threshold, kind, device_ptrs;
} spec;

/* Whether the CUDA call makes of `in` (the layout's input) what CPU_REF
 * does, byte for byte, padding included (it must stay untouched); when not,
 * prints why (`what` names the input) and returns 0. */
static int matches_reference(skss_ctx *cuda, skss_ctx *ref, const spec *s, const uint8_t *in,
                             const char *what) {
  const layout *l = &s->l;
  uint8_t *want = malloc(out_bytes(l)), *got = malloc(out_bytes(l));
  memset(want, 0xA5, out_bytes(l));
  reference(ref, l, s->kernel, s->threshold, in, want);
  const skss_halftone_desc d = make_desc(l, s->kernel, s->threshold, s->alg);
  run_cuda(cuda, &d, l, in, got, s->device_ptrs, 0xA5);
  const int ok = memcmp(want, got, out_bytes(l)) == 0;
  if (!ok) {
    size_t first = 0, bad = 0;
    while (want[first] == got[first]) first++;
    for (size_t k = 0; k < out_bytes(l); k++) bad += want[k] != got[k];
    skss_dither_kernel_info info;
    skss_dither_kernel_get_info(s->kernel, &info);
    const size_t img = first / l->out_stride, off = first % l->out_stride;
    const size_t row = off / l->out_pitch, col = off % l->out_pitch;
    /* the first differing pixel: a byte of BYTES, a bit (first pixel in
     * the MSB) of BITS; past the width or height it is padding */
    int64_t x = (int64_t)col;
    if (l->output == SKSS_HALFTONE_OUTPUT_BITS) {
      int bit = 0;
      while (!(((want[first] ^ got[first]) << bit) & 0x80)) bit++;
      x = (int64_t)col * 8 + bit;
    }
    const int padding = (int64_t)row >= l->h || x >= l->w;
    print_error("%s %s %lldx%lld x%lld T=%d %s %s %s pitch %zu: %zu bytes differ, first image %zu "
                "(%zu, %lld)%s: byte %d, want %d\n",
                skss_algorithm_name(SKSS_OP_HALFTONE, s->alg), info.name, (long long)l->h,
                (long long)l->w, (long long)l->images, s->threshold, what,
                l->output == SKSS_HALFTONE_OUTPUT_BITS ? "bits" : "bytes", s->device_ptrs ? "device" : "host",
                l->in_pitch, bad, img, row, (long long)x, padding ? " (padding)" : "", got[first],
                want[first]);
  }
  free(want);
  free(got);
  return ok;
}

/* One case on a seeded random or ramp image (s->kind). */
static int check_one(skss_ctx *cuda, skss_ctx *ref, tu_rng *r, const spec *s) {
  const layout *l = &s->l;
  uint8_t *in = malloc(in_bytes(l));
  memset(in, 0x33, in_bytes(l));
  for (int64_t i = 0; i < l->images; i++)
    fill_image(r, in + (size_t)i * l->in_stride, l->h, l->w, l->in_pitch, s->kind);
  const int ok = matches_reference(cuda, ref, s, in, s->kind ? "ramp" : "random");
  free(in);
  return ok;
}

/* Under the sanitizers (which pay per launch), the PRAM family, a launch
 * per step, runs only one 2-row slope-2 and one 3-row slope-3 kernel (its
 * code differs between kernels only in the weights). */
static int sanitizer_skips(int alg, int kernel) {
  return alg <= SKSS_HALFTONE_ALGORITHM_PEC2_PERM && kernel != SKSS_DITHER_KERNEL_FLOYD_STEINBERG &&
         kernel != SKSS_DITHER_KERNEL_JARVIS_JUDICE_NINKE;
}

static const int64_t SHAPES[][2] = {{1, 1}, {1, 77}, {77, 1}, {33, 31}, {40, 70}, {130, 9},
                                    {1000, 777}, {4099, 17}};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])
#define N_SMALL_SHAPES 5 /* up to 40 x 70: what compute-sanitizer runs */

/* Every CUDA algorithm x kernel x shape on device pointers (test_backends.c
 * runs the host-pointer calls; these run under the sanitizers in
 * gpu-check); the options cycle so that each algorithm meets BYTES and
 * BITS, packed and pitched. */
static void test_every_algorithm_on_device_pointers(void **state) {
  (void)state;
  if (env_on("SKSS_HT_TIME_ONLY")) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  int failed = 0, ran = 0;
  const int small = env_on("SKSS_TEST_SMALL");
  const size_t n_shapes = small ? N_SMALL_SHAPES : N_SHAPES;
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
      if (small && sanitizer_skips(alg, k)) continue;
      for (size_t sh = 0; sh < n_shapes; sh++) {
        const int thresholds[] = {128, 0, 200, 255, 77};
        const size_t v = sh + (size_t)k + (size_t)alg;
        spec s = {alg, (skss_dither_kernel)k,
                  make_layout(SHAPES[sh][0], SHAPES[sh][1], 1, (int)(v / 2 % 2),
                              (skss_halftone_output)(v / 4 % 2)),
                  thresholds[v % 5], (int)(v % 3 != 0), 1};
        failed += !check_one(cuda, ref, &r, &s);
        ran++;
      }
    }
  }
  printf("%d cases\n", ran);
  if (failed) TU_FAIL("%d cases differ from the CPU reference", failed);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* Batches with padded rows and images, BYTES and BITS, on device pointers. */
static void test_batches(void **state) {
  (void)state;
  if (env_on("SKSS_HT_TIME_ONLY")) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  const int small = env_on("SKSS_TEST_SMALL");
  int failed = 0;
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    /* small (the sanitizers): two variants, one of each output kind and pitch
     * and a slope 2 and 3 kernel between them; racecheck pays per launch */
    for (int v = 0; v < 8; v += small ? 5 : 1) {
      const skss_dither_kernel k = (skss_dither_kernel)((alg + v) % SKSS_DITHER_KERNEL_COUNT);
      /* the PRAM family launches once per step (and image): under racecheck,
       * which pays per launch, a small batch of small images */
      const int pram = alg <= SKSS_HALFTONE_ALGORITHM_PEC2_PERM;
      const int64_t h = small ? (pram ? 11 : 37) : 300, w = small ? (pram ? 13 : 45) : 211,
                    images = small ? (pram ? 2 : 3) : 7;
      spec s = {alg, k, make_layout(h, w, images, v % 2, (skss_halftone_output)(v / 2 % 2)), 128,
                v % 3 != 0, 1};
      failed += !check_one(cuda, ref, &r, &s);
    }
  }
  if (failed) TU_FAIL("%d batches differ from the CPU reference", failed);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* On a caller's stream, device pointers: the call is asynchronous there. */
static void test_callers_stream(void **state) {
  (void)state;
  if (env_on("SKSS_HT_TIME_ONLY")) skip();
  cudaStream_t stream;
  assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CUDA;
  cd.cuda_stream = stream;
  skss_ctx *cuda = NULL, *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  assert_int_equal(skss_ctx_create(&cd, &cuda), SKSS_OK);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 2);
  const int small = env_on("SKSS_TEST_SMALL");
  const layout l = make_layout(small ? 65 : 513, small ? 57 : 257, 2, 1, SKSS_HALFTONE_OUTPUT_BYTES);
  uint8_t *in = malloc(in_bytes(&l)), *want = malloc(out_bytes(&l)), *got = malloc(out_bytes(&l));
  memset(in, 0, in_bytes(&l));
  for (int i = 0; i < 2; i++) fill_image(&r, in + (size_t)i * l.in_stride, l.h, l.w, l.in_pitch, 1);
  memset(want, 0x11, out_bytes(&l));
  reference(ref, &l, SKSS_DITHER_KERNEL_STUCKI, 128, in, want);
  void *din, *dout;
  assert_int_equal(cudaMalloc(&din, in_bytes(&l)), cudaSuccess);
  assert_int_equal(cudaMalloc(&dout, out_bytes(&l)), cudaSuccess);
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    cudaMemcpyAsync(din, in, in_bytes(&l), cudaMemcpyHostToDevice, stream);
    cudaMemsetAsync(dout, 0x11, out_bytes(&l), stream);
    const skss_halftone_desc d = make_desc(&l, SKSS_DITHER_KERNEL_STUCKI, 128, alg);
    TU_OK(cuda, skss_halftone(cuda, &d, din, dout));
    cudaMemcpyAsync(got, dout, out_bytes(&l), cudaMemcpyDeviceToHost, stream);
    assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
    if (memcmp(got, want, out_bytes(&l)) != 0)
      TU_FAIL("%s on the caller's stream differs", skss_algorithm_name(SKSS_OP_HALFTONE, alg));
  }
  /* AUTO on CUDA is one of the CUDA algorithms. */
  const skss_halftone_desc d = make_desc(&l, SKSS_DITHER_KERNEL_STUCKI, 128, SKSS_HALFTONE_ALGORITHM_AUTO);
  TU_OK(cuda, skss_halftone(cuda, &d, din, dout));
  cudaMemcpyAsync(got, dout, out_bytes(&l), cudaMemcpyDeviceToHost, stream);
  assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
  assert_memory_equal(got, want, out_bytes(&l));
  cudaFree(din);
  cudaFree(dout);
  free(in);
  free(want);
  free(got);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
  cudaStreamDestroy(stream);
}

/* Far more strips than resident warps: a tall narrow image and a batch of
 * many small images, for SKSS and ours (row tickets keep it deadlock-free). */
static void test_stress_many_strips(void **state) {
  (void)state;
  if (env_on("SKSS_HT_TIME_ONLY")) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 3);
  const int algs[] = {SKSS_HALFTONE_ALGORITHM_SKSS, SKSS_HALFTONE_ALGORITHM_STRIPS};
  int failed = 0;
  skss_device_info info;
  TU_OK(NULL, skss_device_get_info(0, &info));
  if (env_on("SKSS_TEST_SMALL")) {
    /* Under the sanitizers: one image of more than twice as many strips as
     * SMs (of 64 or 128 rows), so that each block of `strips` (a block an
     * SM for one image) takes several strips in turn, reusing its rings. */
    const int64_t rows = (2 * (int64_t)info.multiprocessors + 3) * 128 + 5;
    spec tall = {SKSS_HALFTONE_ALGORITHM_STRIPS, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, make_layout(rows, 9, 1, 0, SKSS_HALFTONE_OUTPUT_BYTES),
                 128, 0, 1};
    if (cuda_alg(tall.alg)) failed += !check_one(cuda, ref, &r, &tall);
    if (failed) TU_FAIL("the small stress case differs from the CPU reference");
    skss_ctx_destroy(cuda);
    skss_ctx_destroy(ref);
    return;
  }
  for (int a = 0; a < 2; a++)
    for (int k = 0; k < 2 && cuda_alg(algs[a]); k++) {
      const skss_dither_kernel kernel = k ? SKSS_DITHER_KERNEL_JARVIS_JUDICE_NINKE : SKSS_DITHER_KERNEL_FLOYD_STEINBERG;
      spec tall = {algs[a], kernel, make_layout(1 << 20, 9, 1, 0, SKSS_HALFTONE_OUTPUT_BYTES), 128, 0, 1};
      spec many = {algs[a], kernel, make_layout(70, 61, 3000, 1, SKSS_HALFTONE_OUTPUT_BITS), 100, 1, 1};
      failed += !check_one(cuda, ref, &r, &tall);
      failed += !check_one(cuda, ref, &r, &many);
      if (algs[a] == SKSS_HALFTONE_ALGORITHM_STRIPS) {
        /* one image too wide for the narrow strips of one image (they need
         * width + span <= SMs x slope x 64: here wider for slopes 2 and 3),
         * so it takes the wide strips, a block an SM */
        const int64_t w = (int64_t)info.multiprocessors * 3 * 64 + 1001;
        spec wide = {algs[a], kernel, make_layout(300, w, 1, 1, SKSS_HALFTONE_OUTPUT_BYTES), 128, 0, 1};
        failed += !check_one(cuda, ref, &r, &wide);
      }
    }
  if (failed) TU_FAIL("%d stress cases differ from the CPU reference", failed);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* h x w pixels of the photograph from (row, col), read in place. */
typedef struct photo_crop {
  int64_t h, w, row, col;
} photo_crop;

/* A real photograph: the synthetic images lack its long smooth gradients
 * next to sharp edges. data/astronaut.png
 * (NASA, public domain) is read by the CLI's own reader, which makes colour
 * gray as the CLI does (Pillow's convert('L')); every CUDA algorithm x
 * kernel, on the whole photo and on awkward crops read in place (pitch =
 * the photo's width), host and device pointers, BYTES and BITS.
 * SKSS_TEST_SMALL: one 33 x 31 crop. */
static void test_photograph(void **state) {
  (void)state;
  if (env_on("SKSS_HT_TIME_ONLY")) skip();
#ifndef SKSS_TEST_DATA_DIR
  skip(); /* built without the CLI's image reader (SKSS_BUILD_TOOLS=OFF) */
#else
  skss_image photo = {0};
  char err[SKSS_IO_ERRLEN];
  if (skss_image_read(SKSS_TEST_DATA_DIR "/astronaut.png", &photo, err) != 0) TU_FAIL("%s\n", err);
  /* the photo and one spare row: with device pointers, run_cuda copies
   * h whole pitched rows from a crop's first pixel */
  const size_t pitch = (size_t)photo.width, photo_bytes = pitch * (size_t)photo.height;
  uint8_t *pixels = malloc(photo_bytes + pitch);
  memcpy(pixels, photo.pixels, photo_bytes);
  memset(pixels + photo_bytes, 0x33, pitch);
  const photo_crop crops[] = {
      {33, 31, 100, 200},                 /* the one crop under SKSS_TEST_SMALL */
      {photo.height, photo.width, 0, 0},  /* the whole photo */
      {511, 17, 0, 1},                    /* tall and narrow */
      {17, 511, 1, 0},                    /* short and wide */
  };
  const int small = env_on("SKSS_TEST_SMALL");
  const size_t n_crops = small ? 1 : sizeof crops / sizeof crops[0];
  for (size_t c = 0; c < n_crops; c++)
    if (crops[c].row + crops[c].h > photo.height || crops[c].col + crops[c].w > photo.width)
      TU_FAIL("the %lldx%lld photo has no %lldx%lld crop at (%lld, %lld)\n", (long long)photo.height,
              (long long)photo.width, (long long)crops[c].h, (long long)crops[c].w,
              (long long)crops[c].row, (long long)crops[c].col);
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  int failed = 0;
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
      if (small && sanitizer_skips(alg, k)) continue;
      for (size_t c = 0; c < n_crops; c++) {
        const photo_crop *crop = &crops[c];
        char what[64];
        snprintf(what, sizeof what, "photo at (%lld, %lld)", (long long)crop->row, (long long)crop->col);
        for (int device_ptrs = 0; device_ptrs < 2; device_ptrs++) {
          /* host and device get different outputs, which alternate between cases */
          const size_t v = c + (size_t)k + (size_t)alg + (size_t)device_ptrs;
          spec s = {alg, (skss_dither_kernel)k,
                    make_layout(crop->h, crop->w, 1, 0, (skss_halftone_output)(v % 2)), 128, 0,
                    device_ptrs};
          s.l.in_pitch = pitch;
          s.l.in_stride = (size_t)crop->h * pitch;
          failed += !matches_reference(cuda, ref, &s,
                                       pixels + (size_t)crop->row * pitch + (size_t)crop->col, what);
        }
      }
    }
  }
  if (failed) TU_FAIL("%d photograph cases differ from the CPU reference", failed);
  free(pixels);
  skss_image_free(&photo);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
#endif
}

/* Median of `reps` timed calls (after a warm-up) on device buffers, ms. */
static double time_call(skss_ctx *cuda, const skss_halftone_desc *d, const void *din, void *dout,
                        int reps) {
  cudaEvent_t e0, e1;
  cudaEventCreate(&e0);
  cudaEventCreate(&e1);
  float t[15];
  TU_OK(cuda, skss_halftone(cuda, d, din, dout));
  TU_OK(cuda, skss_ctx_synchronize(cuda));
  for (int k = 0; k < reps; k++) {
    cudaEventRecord(e0, NULL);
    TU_OK(cuda, skss_halftone(cuda, d, din, dout));
    cudaEventRecord(e1, NULL);
    TU_OK(cuda, skss_ctx_synchronize(cuda));
    cudaEventSynchronize(e1);
    cudaEventElapsedTime(&t[k], e0, e1);
  }
  for (int a = 0; a < reps; a++)
    for (int b = a + 1; b < reps; b++)
      if (t[b] < t[a]) {
        float x = t[a];
        t[a] = t[b];
        t[b] = x;
      }
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return t[reps / 2];
}

/* SKSS and ours timed: FS squares (checked against CPU_REF up to 16K), the
 * step cost from one long row, and a 64 x 4K batch. */
static void test_timing(void **state) {
  (void)state;
  if (!env_on("SKSS_HT_TIME")) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 4);
  const int algs[] = {SKSS_HALFTONE_ALGORITHM_SKSS, SKSS_HALFTONE_ALGORITHM_STRIPS};
  const int64_t sides[] = {1024, 4096, 16384, 32768};
  const size_t max_n = (size_t)64 << 24; /* the batch: 64 x 4K x 4K */
  uint8_t *in = malloc(max_n), *want = malloc((size_t)1 << 28), *got = malloc((size_t)1 << 28);
  void *din, *dout;
  assert_int_equal(cudaMalloc(&din, max_n), cudaSuccess);
  assert_int_equal(cudaMalloc(&dout, max_n), cudaSuccess);
  int failed = 0;
  /* One natural-like 16K image, repeated to fill 1 GiB; smaller images and
   * the batch read its first bytes as their own rows. */
  fill_image(&r, in, 16384, 16384, 16384, 1);
  for (int c = 1; c < 4; c++) memcpy(in + ((size_t)c << 28), in, (size_t)1 << 28);
  assert_int_equal(cudaMemcpy(din, in, max_n, cudaMemcpyHostToDevice), cudaSuccess);
  /* The step: one row of 4M pixels; rows below would only add their lag. */
  {
    const int64_t w = (int64_t)1 << 22;
    for (int a = 0; a < 2; a++) {
      if (!cuda_alg(algs[a])) continue;
      layout l = make_layout(1, w, 1, 0, SKSS_HALFTONE_OUTPUT_BYTES);
      skss_halftone_desc d = make_desc(&l, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 128, algs[a]);
      const double ms = time_call(cuda, &d, din, dout, 3);
      printf("%-7s FS 1 x 4M: %.3f ms = %.2f ns per dependent pixel step\n",
             skss_algorithm_name(SKSS_OP_HALFTONE, algs[a]), ms, ms * 1e6 / (double)w);
    }
  }
  for (int si = 0; si < 4; si++) {
    const int64_t s = sides[si];
    const size_t n = (size_t)(s * s);
    layout l = make_layout(s, s, 1, 0, SKSS_HALFTONE_OUTPUT_BYTES);
    if (si < 3) reference(ref, &l, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 128, in, want);
    for (int a = 0; a < 2; a++) {
      if (!cuda_alg(algs[a])) continue;
      skss_halftone_desc d = make_desc(&l, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 128, algs[a]);
      const double ms = time_call(cuda, &d, din, dout, si < 3 ? 7 : 3);
      printf("%-7s FS %5lld: %9.3f ms  %7.2f Gpixels/s\n", skss_algorithm_name(SKSS_OP_HALFTONE, algs[a]),
             (long long)s, ms, (double)n / ms / 1e6);
      if (si < 3) {
        cudaMemcpy(got, dout, n, cudaMemcpyDeviceToHost);
        if (memcmp(got, want, n) != 0) {
          print_error("%s FS %lld differs from CPU_REF\n", skss_algorithm_name(SKSS_OP_HALFTONE, algs[a]),
                      (long long)s);
          failed++;
        }
      }
    }
  }
  {
    const int64_t s = 4096, images = 64;
    layout l = make_layout(s, s, images, 0, SKSS_HALFTONE_OUTPUT_BYTES);
    for (int a = 0; a < 2; a++) {
      if (!cuda_alg(algs[a])) continue;
      skss_halftone_desc d = make_desc(&l, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 128, algs[a]);
      const double ms = time_call(cuda, &d, din, dout, 3);
      printf("%-7s FS 64 x 4K batch: %9.3f ms  %7.2f Gpixels/s\n",
             skss_algorithm_name(SKSS_OP_HALFTONE, algs[a]), ms, (double)max_n / ms / 1e6);
    }
    /* image 37 of the batch against CPU_REF */
    layout one = make_layout(s, s, 1, 0, SKSS_HALFTONE_OUTPUT_BYTES);
    reference(ref, &one, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 128, in + (size_t)37 * s * s, want);
    cudaMemcpy(got, (uint8_t *)dout + (size_t)37 * s * s, (size_t)(s * s), cudaMemcpyDeviceToHost);
    if (memcmp(got, want, (size_t)(s * s)) != 0) {
      print_error("batch image 37 differs from CPU_REF\n");
      failed++;
    }
  }
  cudaFree(din);
  cudaFree(dout);
  free(in);
  free(want);
  free(got);
  if (failed) TU_FAIL("%d timed runs differ from CPU_REF", failed);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_algorithm_on_device_pointers),
      cmocka_unit_test(test_batches),
      cmocka_unit_test(test_callers_stream),
      cmocka_unit_test(test_stress_many_strips),
      cmocka_unit_test(test_photograph),
      cmocka_unit_test(test_timing),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
