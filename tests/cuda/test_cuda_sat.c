/*
 * test_cuda_sat.c — the CUDA SAT algorithms where the CUDA backend differs
 * from the host-pointer cases of test_backends.c (which runs every listed
 * algorithm against cpu-ref): device pointers for all type pairs, both
 * layouts, with and without squared sums, awkward sizes (1 x 1, 31 x 33,
 * primes, 1 x N, N x 1, 5000 x 3, 1100 x 1057 where 2R1W recurses, pitched
 * rows with either layout), every algorithm on a caller's stream, onepass's
 * tile shapes where they fill the GPU, and a stress whose strips far
 * outnumber the resident warps (SKSS-style kernels must neither deadlock nor
 * run a task twice). Integers must be identical; floats within the header's
 * bound against a long double reference. Exits 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef struct pair_case {
  skss_dtype in, out;
} pair_case;

static const pair_case PAIRS[] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_U32},  {SKSS_DTYPE_U8, SKSS_DTYPE_I32},  {SKSS_DTYPE_U8, SKSS_DTYPE_F32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F64},  {SKSS_DTYPE_I32, SKSS_DTYPE_I32}, {SKSS_DTYPE_U32, SKSS_DTYPE_U32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32}, {SKSS_DTYPE_F32, SKSS_DTYPE_F64}, {SKSS_DTYPE_F64, SKSS_DTYPE_F64},
};
#define N_PAIRS (sizeof PAIRS / sizeof PAIRS[0])

static const int64_t SHAPES[][2] = {{1, 1},  {1, 77},  {77, 1},   {31, 33},  {32, 32},   {33, 31},
                                    {97, 101}, {5000, 3}, {3, 5000}, {257, 131}, {1024, 1024},
                                    /* more than 32 tiles each way: 2R1W's SAT of its tile
                                       sums recurses (35 x 34 tile sums) */
                                    {1100, 1057}};
#define N_SHAPES (sizeof SHAPES / sizeof SHAPES[0])
#define N_SMALL_SHAPES 7 /* up to 97 x 101: what compute-sanitizer runs */

/* SKSS_TEST_SMALL=1 (scripts/gpu-check under compute-sanitizer): small cases only. */
static int small_only(void) {
  const char *v = getenv("SKSS_TEST_SMALL");
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static void fill_input(tu_rng *r, uint8_t *buf, size_t bytes, skss_dtype t) {
  size_t n = bytes / skss_dtype_size(t);
  for (size_t k = 0; k < n; k++) {
    if (t == SKSS_DTYPE_F32) {
      float v = (float)(tu_unit(r) * 2.0 - 0.5);
      memcpy(buf + 4 * k, &v, 4);
    } else if (t == SKSS_DTYPE_F64) {
      double v = tu_unit(r) * 2.0 - 0.5;
      memcpy(buf + 8 * k, &v, 8);
    } else if (t == SKSS_DTYPE_U8) {
      buf[k] = (uint8_t)tu_next(r);
    } else {
      uint32_t v = (uint32_t)tu_next(r);
      memcpy(buf + 4 * k, &v, 4);
    }
  }
}

/* The factor of the float bound |got - exact| <= factor * u * S(i, j)
 * (skss.h): i + j + 2, except where an algorithm's carries are differences
 * of outputs, which spread errors as formula (1) does: per element (4R1W)
 * or per 32 x 32 tile (1R1W and the hybrid). */
static double bound_factor(int alg, int64_t i, int64_t j) {
  if (alg == SKSS_SAT_ALGORITHM_4R1W) return 5.0 * (double)(i + 1) * (double)(j + 1);
  if (alg == SKSS_SAT_ALGORITHM_1R1W || alg == SKSS_SAT_ALGORITHM_1PR_R1W)
    return 70.0 * (double)(i / 32 + 1) * (double)(j / 32 + 1) + (double)(i + j + 2);
  return (double)(i + j + 2);
}

/* Float check against a long double SAT, S from a SAT of |load(x)|. */
static int check_float(const uint8_t *in, size_t in_pitch, skss_dtype tin, const uint8_t *got,
                       size_t out_pitch, skss_dtype tout, int64_t h, int64_t w, int square, int alg,
                       char *why, size_t why_len) {
  long double *exact = calloc((size_t)(w + 1), sizeof(long double));
  long double *absum = calloc((size_t)(w + 1), sizeof(long double));
  double u = tout == SKSS_DTYPE_F32 ? 0x1p-24 : 0x1p-53;
  int ok = 1;
  for (int64_t i = 0; i < h && ok; i++) {
    long double row = 0, arow = 0;
    for (int64_t j = 0; j < w; j++) {
      long double x = tu_load(tin, in + (size_t)i * in_pitch + (size_t)j * skss_dtype_size(tin));
      if (tout == SKSS_DTYPE_F32 && tin != SKSS_DTYPE_F64) x = (float)x;
      if (square) x = tout == SKSS_DTYPE_F32 ? (long double)((float)x * (float)x) : x * x;
      row += x;
      arow += fabsl(x);
      exact[j + 1] += row;
      absum[j + 1] += arow;
      double g = (double)tu_load(tout, got + (size_t)i * out_pitch + (size_t)j * skss_dtype_size(tout));
      double factor = bound_factor(alg, i, j);
      if (fabsl((long double)g - exact[j + 1]) > factor * u * absum[j + 1] + 1e-300) {
        snprintf(why, why_len, "(%lld, %lld): got %.17g, exact %.17Lg, bound %.3g", (long long)i,
                 (long long)j, g, exact[j + 1], factor * u * (double)absum[j + 1]);
        ok = 0;
        break;
      }
    }
  }
  free(exact);
  free(absum);
  return ok;
}

typedef struct run_spec {
  int alg;
  pair_case pair;
  int64_t h, w;
  skss_sat_layout layout;
  int squared, device_ptrs;
  int64_t in_pad, out_pad; /* extra bytes per row (multiples of the element size) */
  int64_t in_off, out_off; /* device pointers this many bytes past an allocation (elements) */
} run_spec;

static void run_one(skss_ctx *cuda, skss_ctx *ref, tu_rng *r, const run_spec *s) {
  const size_t ie = skss_dtype_size(s->pair.in), oe = skss_dtype_size(s->pair.out);
  const int64_t pad = s->layout == SKSS_SAT_LAYOUT_PADDED;
  const size_t in_pitch = (size_t)s->w * ie + (size_t)s->in_pad;
  const size_t out_pitch = (size_t)(s->w + pad) * oe + (size_t)s->out_pad;
  const size_t in_bytes = (size_t)s->h * in_pitch, out_bytes = (size_t)(s->h + pad) * out_pitch;
  uint8_t *in = malloc(in_bytes), *want = malloc(out_bytes), *want_sq = malloc(out_bytes);
  uint8_t *got = malloc(out_bytes), *got_sq = malloc(out_bytes);
  fill_input(r, in, in_bytes, s->pair.in);
  memset(want, 0xA5, out_bytes);
  memset(want_sq, 0xA5, out_bytes);
  memset(got, 0xA5, out_bytes);
  memset(got_sq, 0xA5, out_bytes);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = s->h;
  d.width = s->w;
  d.in_type = s->pair.in;
  d.out_type = s->pair.out;
  d.in_pitch = (int64_t)in_pitch;
  d.out_pitch = d.out_sq_pitch = (int64_t)out_pitch;
  d.layout = s->layout;
  TU_OK(ref, skss_sat(ref, &d, in, want, s->squared ? want_sq : NULL));
  d.algorithm = (skss_sat_algorithm)s->alg;
  if (s->device_ptrs) {
    void *din, *dout, *dsq;
    const size_t io = (size_t)s->in_off, oo = (size_t)s->out_off;
    assert_int_equal(cudaMalloc(&din, in_bytes + io), cudaSuccess);
    assert_int_equal(cudaMalloc(&dout, out_bytes + oo), cudaSuccess);
    assert_int_equal(cudaMalloc(&dsq, out_bytes + oo), cudaSuccess);
    uint8_t *pin = (uint8_t *)din + io, *pout = (uint8_t *)dout + oo, *psq = (uint8_t *)dsq + oo;
    cudaMemcpy(pin, in, in_bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(pout, got, out_bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(psq, got_sq, out_bytes, cudaMemcpyHostToDevice);
    /* pageable copies may still be in flight; a caller's stream need not wait */
    assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
    TU_OK(cuda, skss_sat(cuda, &d, pin, pout, s->squared ? psq : NULL));
    TU_OK(cuda, skss_ctx_synchronize(cuda));
    cudaMemcpy(got, pout, out_bytes, cudaMemcpyDeviceToHost);
    cudaMemcpy(got_sq, psq, out_bytes, cudaMemcpyDeviceToHost);
    cudaFree(din);
    cudaFree(dout);
    cudaFree(dsq);
  } else {
    TU_OK(cuda, skss_sat(cuda, &d, in, got, s->squared ? got_sq : NULL));
  }
  const char *name = skss_algorithm_name(SKSS_OP_SAT, s->alg);
  for (int k = 0; k < 1 + s->squared; k++) {
    const uint8_t *w = k ? want_sq : want, *g = k ? got_sq : got;
    int ok;
    char why[256] = "";
    if (!tu_dtype_is_float(s->pair.out)) {
      ok = memcmp(w, g, out_bytes) == 0;
      if (!ok) {
        size_t first = 0;
        while (w[first] == g[first]) first++;
        snprintf(why, sizeof why, "first differing byte %zu (row %zu)", first, first / out_pitch);
      }
    } else {
      /* padding and border bytes identical, the table within the bound */
      ok = check_float(in, in_pitch, s->pair.in, g + pad * (out_pitch + oe), out_pitch, s->pair.out,
                       s->h, s->w, k, s->alg, why, sizeof why);
      for (int64_t i = 0; ok && i < s->h + pad; i++) {
        size_t row = (size_t)i * out_pitch;
        if (pad && memcmp(w + row, g + row, oe) != 0) ok = 0;
        if (memcmp(w + row + (size_t)(s->w + pad) * oe, g + row + (size_t)(s->w + pad) * oe,
                   (size_t)s->out_pad) != 0)
          ok = 0;
      }
      if (ok && pad && memcmp(w, g, (size_t)(s->w + 1) * oe) != 0) ok = 0;
      if (!ok && why[0] == '\0') snprintf(why, sizeof why, "border or padding bytes differ");
    }
    if (!ok)
      TU_FAIL("%s %s:%s %lldx%lld %s%s%s pads %lld/%lld offsets %lld/%lld: %s", name,
              skss_dtype_name(s->pair.in), skss_dtype_name(s->pair.out), (long long)s->h, (long long)s->w,
              pad ? "padded" : "inclusive", k ? " squared" : "", s->device_ptrs ? " device" : " host",
              (long long)s->in_pad, (long long)s->out_pad, (long long)s->in_off, (long long)s->out_off, why);
  }
  free(in);
  free(want);
  free(want_sq);
  free(got);
  free(got_sq);
}

/* Every algorithm x pair x shape on device pointers (test_backends.c runs
 * the host-pointer calls; these run under the sanitizers in gpu-check). */
static void test_every_algorithm_on_device_pointers(void **state) {
  (void)state;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  for (int alg = 1; alg < 64; alg++) {
    if (!skss_algorithm_supported(SKSS_OP_SAT, alg, SKSS_BACKEND_CUDA)) continue;
    for (size_t p = 0; p < N_PAIRS; p++) {
      for (size_t s = 0; s < (small_only() ? N_SMALL_SHAPES : N_SHAPES); s++) {
        run_spec spec = {alg, PAIRS[p], SHAPES[s][0], SHAPES[s][1], SKSS_SAT_LAYOUT_INCLUSIVE, 0, 1, 0, 0, 0, 0};
        spec.layout = (s % 2) ? SKSS_SAT_LAYOUT_PADDED : SKSS_SAT_LAYOUT_INCLUSIVE;
        spec.squared = (int)((s + p) % 3 == 0);
        if ((s + p) % 3 == 1) { /* pitched rows with either layout */
          spec.in_pad = (int64_t)skss_dtype_size(PAIRS[p].in) * 3;
          spec.out_pad = (int64_t)skss_dtype_size(PAIRS[p].out) * 5;
        }
        run_one(cuda, ref, &r, &spec);
      }
    }
  }
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

static void test_callers_stream_and_auto(void **state) {
  (void)state;
  cudaStream_t stream;
  assert_int_equal(cudaStreamCreate(&stream), cudaSuccess);
  skss_ctx_desc desc = SKSS_CTX_DESC_INIT;
  desc.backend = SKSS_BACKEND_CUDA;
  desc.cuda_stream = stream;
  skss_ctx *cuda = NULL;
  assert_int_equal(skss_ctx_create(&desc, &cuda), SKSS_OK);
  skss_ctx *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  /* every algorithm, so that the multi-launch ones and the task arrays'
   * counter resets are all ordered on the caller's stream */
  for (int alg = 0; alg < 64; alg++) {
    if (alg != SKSS_SAT_ALGORITHM_AUTO && !skss_algorithm_supported(SKSS_OP_SAT, alg, SKSS_BACKEND_CUDA)) continue;
    /* under the sanitizers, fewer launches of the one-per-diagonal kinds */
    const int64_t h = small_only() ? 70 : 333, w = small_only() ? 45 : 517;
    run_spec spec = {alg, PAIRS[0], h, w, SKSS_SAT_LAYOUT_PADDED, 1, 1, 0, 0, 0, 0};
    run_one(cuda, ref, &r, &spec);
    spec.device_ptrs = 0;
    spec.pair = PAIRS[6];
    spec.layout = SKSS_SAT_LAYOUT_INCLUSIVE;
    run_one(cuda, ref, &r, &spec);
  }
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
  cudaStreamDestroy(stream);
}

static void test_empty_inputs_write_the_padded_border(void **state) {
  (void)state;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0);
  uint32_t out[8];
  memset(out, 0xA5, sizeof out);
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = 0;
  d.width = 3;
  d.layout = SKSS_SAT_LAYOUT_PADDED;
  TU_OK(cuda, skss_sat(cuda, &d, NULL, out, NULL));
  for (int k = 0; k < 4; k++) assert_int_equal(out[k], 0);
  assert_int_equal(out[4], 0xA5A5A5A5u);
  skss_ctx_destroy(cuda);
}

/* Strips of 32 rows far outnumber the resident warps (about 8.4K on an H100). */
static void test_stress_more_strips_than_resident_warps(void **state) {
  (void)state;
  if (small_only()) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU, 0);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 2);
  const int algs[] = {SKSS_SAT_ALGORITHM_SKSS, SKSS_SAT_ALGORITHM_ONEPASS};
  for (int a = 0; a < 2; a++) {
    if (!skss_algorithm_supported(SKSS_OP_SAT, algs[a], SKSS_BACKEND_CUDA)) continue;
    for (int rep = 0; rep < 3; rep++) {
      run_spec spec = {algs[a], PAIRS[0], 32 * 20000 + 7, 45, SKSS_SAT_LAYOUT_INCLUSIVE, 0, 1, 0, 0, 0, 0};
      run_one(cuda, ref, &r, &spec);
    }
  }
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* onepass picks taller tiles for 4-byte sums where they fill the GPU
 * (sat_onepass.cu, tuning.h), by tile counts against the device's SMs: at
 * 4099 x 2053, big tiles (96 x 128: 731 of them, enough for 4 an SM on up
 * to 182 SMs); at 65 rows, tall ones (64 x 128: two tile rows, where a big
 * tile has one, 3.5 SMs' worth of tile columns: enough for 6 tall tiles an
 * SM, not for 4 big ones); at 1000 rows, huge ones (192 x 128: six tile
 * rows, the last of 40, and 2 SMs' worth of tile columns, 37 wide at the
 * end: 12 tiles an SM, which is 6 fills of 2). Every 4-byte pair at the
 * first, f32 and i32 at the others, device pointers, both layouts, a
 * pitch. */
static void test_onepass_tall_big_and_huge_tiles(void **state) {
  (void)state;
  if (small_only()) skip();
  skss_device_info info;
  TU_OK(NULL, skss_device_get_info(0, &info));
  const int64_t sms = info.multiprocessors;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU, 0);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 3);
  int wide = 0; /* pairs run at the tall and huge sizes too */
  for (size_t k = 0; k < N_PAIRS; k++) {
    if (skss_dtype_size(PAIRS[k].out) != 4) continue;
    run_spec spec = {SKSS_SAT_ALGORITHM_ONEPASS, PAIRS[k], 4099, 2053, SKSS_SAT_LAYOUT_INCLUSIVE, (int)(k % 2), 1, 0, 0, 0, 0};
    run_one(cuda, ref, &r, &spec);
    if (PAIRS[k].in != PAIRS[k].out || (PAIRS[k].in != SKSS_DTYPE_F32 && PAIRS[k].in != SKSS_DTYPE_I32))
      continue;
    spec.layout = SKSS_SAT_LAYOUT_PADDED;
    spec.in_pad = 16;
    spec.out_pad = 4;
    run_one(cuda, ref, &r, &spec);
    run_spec tall = {SKSS_SAT_ALGORITHM_ONEPASS, PAIRS[k], 65, 128 * (7 * sms / 2), SKSS_SAT_LAYOUT_INCLUSIVE, 0, 1, 0, 0, 0, 0};
    run_one(cuda, ref, &r, &tall);
    run_spec huge = {SKSS_SAT_ALGORITHM_ONEPASS, PAIRS[k], 1000, 128 * (2 * sms + 1) + 37, SKSS_SAT_LAYOUT_PADDED, 1, 1, 8, 0, 0, 0};
    run_one(cuda, ref, &r, &huge);
    wide++;
  }
  assert_int_equal(wide, 2); /* f32 and i32 */
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* onepass keeps tiles of 1-byte inputs raw (256 columns, scanned twice)
 * where they fill the GPU (sat_onepass.cu): 64-row ones at 4099 x 4100
 * (1105 tiles, while the 96-row ones, 731, do not fill a GPU of 92 or more
 * SMs twice) and 96-row ones at 4099 x 9000 (1548 tiles: twice a GPU of up
 * to 180 SMs); every 1-byte to 4-byte pair, aligned and unaligned rows,
 * squared sums, both layouts, and a width (4097) whose last tile column is
 * a single column. */
static void test_onepass_raw_tiles(void **state) {
  (void)state;
  if (small_only()) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU, 0);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 4);
  const int64_t widths[] = {4100, 9000, 4097};
  int runs = 0;
  for (size_t k = 0; k < N_PAIRS; k++) {
    if (skss_dtype_size(PAIRS[k].in) != 1 || skss_dtype_size(PAIRS[k].out) != 4) continue;
    for (int s = 0; s < 3; s++) {
      run_spec spec = {SKSS_SAT_ALGORITHM_ONEPASS, PAIRS[k], 4099, widths[s], SKSS_SAT_LAYOUT_INCLUSIVE, 0, 1, 8, 0, 0, 0};
      if (runs % 4 == 1 || runs == 6) { /* unaligned input rows and padded, unaligned outputs: one run of each width */
        spec.layout = SKSS_SAT_LAYOUT_PADDED;
        spec.in_pad = 3;
        spec.out_pad = 4 * 5;
        spec.squared = 1;
        spec.device_ptrs = 0;
      }
      run_one(cuda, ref, &r, &spec);
      runs++;
    }
  }
  assert_int_equal(runs, 9);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* onepass restages each row of 8-byte sums in shared memory before storing
 * it (sat_onepass.cu) where the tiles fill the GPU and the output rows are
 * aligned: every pair with 8-byte sums at 4099 x 2053 (2193 tiles of 32 x
 * 128: more than a GPU of up to 180 SMs holds at once; the last tile column
 * is 5 wide and stored lane by lane), aligned, then with padded, unaligned
 * outputs (no restaging), host and device pointers. */
static void test_onepass_restaged_rows(void **state) {
  (void)state;
  if (small_only()) skip();
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU, 0);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 5);
  int runs = 0;
  for (size_t k = 0; k < N_PAIRS; k++) {
    if (skss_dtype_size(PAIRS[k].out) != 8) continue;
    run_spec spec = {SKSS_SAT_ALGORITHM_ONEPASS, PAIRS[k], 4099, 2053, SKSS_SAT_LAYOUT_INCLUSIVE, (int)(k % 2), 1, 0, 0, 0, 0};
    run_one(cuda, ref, &r, &spec);
    spec.layout = SKSS_SAT_LAYOUT_PADDED;
    spec.out_pad = 8;
    spec.device_ptrs = 0;
    run_one(cuda, ref, &r, &spec);
    runs++;
  }
  assert_int_equal(runs, 3);
  skss_ctx_destroy(cuda);
  skss_ctx_destroy(ref);
}

/* onepass on rows that are not 16-byte aligned (sat_onepass.cu shifts whole
 * tile rows of outputs into aligned words; the padded layout's rows start
 * one element past an aligned address and, with a pitch of W + 1 elements,
 * each by a different amount), the padded border written by the kernel, and
 * both tables of a squared call in one launch, against cpu-ref: every pair,
 * through onepass and AUTO, at odd widths around the tile widths (128 and
 * 256 columns), with device pointers one element past an allocation and
 * pitches of odd element counts. SKSS_TEST_SMALL=1 keeps the small shapes;
 * the full run adds sizes whose tiles fill the GPU (raw tiles of 1-byte
 * inputs, big tiles of 4-byte sums, both in one launch). */
static void test_onepass_misaligned_rows_and_both_planes(void **state) {
  (void)state;
  skss_ctx *cuda = tu_ctx(SKSS_BACKEND_CUDA, 0), *ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 6);
  static const int64_t small[][2] = {{3, 1}, {5, 127}, {37, 129}, {33, 257}};
  static const int64_t large[][2] = {{1031, 1001}, {2113, 4100}};
  const int n_small = (int)(sizeof small / sizeof small[0]);
  const int n = n_small + (small_only() ? 0 : (int)(sizeof large / sizeof large[0]));
  int runs = 0;
  for (size_t p = 0; p < N_PAIRS; p++) {
    const int64_t ie = (int64_t)skss_dtype_size(PAIRS[p].in), oe = (int64_t)skss_dtype_size(PAIRS[p].out);
    for (int k = 0; k < n; k++) {
      const int64_t h = k < n_small ? small[k][0] : large[k - n_small][0];
      const int64_t w = k < n_small ? small[k][1] : large[k - n_small][1];
      const int alg = (k + (int)p) % 2 ? SKSS_SAT_ALGORITHM_AUTO : SKSS_SAT_ALGORITHM_ONEPASS;
      /* padded, packed rows (the cv2.integral call), plain then both tables */
      run_spec spec = {alg, PAIRS[p], h, w, SKSS_SAT_LAYOUT_PADDED, 0, 1, 0, 0, 0, 0};
      run_one(cuda, ref, &r, &spec);
      spec.squared = 1;
      run_one(cuda, ref, &r, &spec);
      /* inclusive and padded, pointers one element past an allocation, pitches of odd element counts */
      run_spec odd = {alg, PAIRS[p], h, w, (k % 2) ? SKSS_SAT_LAYOUT_PADDED : SKSS_SAT_LAYOUT_INCLUSIVE,
                      (int)(k % 3 == 0), 1, 3 * ie, 5 * oe, ie, oe};
      run_one(cuda, ref, &r, &odd);
      runs += 3;
    }
  }
  assert_int_equal(runs, 3 * (int)N_PAIRS * n);
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
      cmocka_unit_test(test_callers_stream_and_auto),
      cmocka_unit_test(test_empty_inputs_write_the_padded_border),
      cmocka_unit_test(test_stress_more_strips_than_resident_warps),
      cmocka_unit_test(test_onepass_tall_big_and_huge_tiles),
      cmocka_unit_test(test_onepass_raw_tiles),
      cmocka_unit_test(test_onepass_restaged_rows),
      cmocka_unit_test(test_onepass_misaligned_rows_and_both_planes),
  };
  /* SKSS_TEST_ONLY=PATTERN: the tests whose names match (scripts/gpu-check
   * runs test_onepass_restaged_rows and test_onepass_tall_big_and_huge_tiles
   * under the sanitizers at full size) */
  const char *only = getenv("SKSS_TEST_ONLY");
  if (only != NULL && only[0] != '\0') cmocka_set_test_filter(only);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
