/*
 * test_cuda_compact.c — every CUDA compaction algorithm (onepass,
 * flag-scan-scatter, flag-cpuscan-scatter: every id the CUDA backend lists)
 * against CPU_REF, which test_compact.c checks against NumPy's rules:
 * every dtype x predicate x scalar pair (random, the type's limits, the
 * int64 limits, just outside the type; floats: infinities, NaN, -0.0, 0.1
 * and 1e300 for f32) on n = 0, 1, 31, 32, 33, primes and larger sizes, the
 * data a quarter awkward values (NaN, -NaN, -0.0, limits, the scalars and
 * their neighbours); masks of bytes and bits (bits past n set); values,
 * indices, both, or the count alone; in place (out_values == in: the kept
 * move to the front, the rest of `in` must stay as it was); `in`, the mask,
 * the outputs and `count` in host, device, managed or pinned memory in
 * rotation (with everything on the device the call is asynchronous and the
 * count is written by the device); a caller's non-blocking stream; 0%, 50%
 * and 100% kept at a million elements; misuse; and n = 2^31 + 7 (u8 values
 * and indices, f32 values, checked by streaming the outputs back; skipped
 * with a message where the device lacks the memory). Outputs are poisoned
 * with 0xA5 before each call and must stay so past *count (and 64 bytes
 * past n). Onepass's edges: n next to multiples of every width's tile;
 * whole tiles kept all, none or in runs; values and indices at every
 * offset mod 16 bytes (its 16-byte stores peel a head and a tail), with
 * nothing written outside; inputs over which onepass's blocks loop (two
 * rounds of tiles); onepass's calls in a row on inputs of 1 to 1057 tiles
 * (its look-back over groups of 32 tiles and their counters).
 * SKSS_TEST_SMALL=1 keeps n <= 4099 (compute-sanitizer), but for the
 * looping test, run on f32 and onepass alone (about 8.7M elements on 132
 * SMs), and 24 calls in a row of up to 97 tiles; SKSS_CP_ALGS=id limits the
 * algorithms; SKSS_TEST_ONLY=PATTERN runs the tests whose names match.
 * Exits 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../src/cuda/tuning.h" /* onepass's shapes: inputs that make its blocks loop */
#include "cuda_places.h"
#include "testutil.h"

#define POISON 0xA5
#define GUARD 64 /* bytes past each output that must stay poisoned */
#define MAX_N 262147
#define BIG_N ((int64_t)(((int64_t)1 << 31) + 7))

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static int small_only(void) { return env_on("SKSS_TEST_SMALL"); }

/* A CUDA compaction algorithm the run covers (SKSS_CP_ALGS=id limits it). */
static int cuda_alg(int alg) {
  const char *v = getenv("SKSS_CP_ALGS");
  if (v != NULL && v[0] != '\0' && atoi(v) != alg) return 0;
  return alg > 0 && skss_algorithm_name(SKSS_OP_COMPACT, alg) != NULL &&
         skss_algorithm_supported(SKSS_OP_COMPACT, alg, SKSS_BACKEND_CUDA);
}
#define LAST_ALG 31

static const char *alg_name(int alg) {
  const char *s = skss_algorithm_name(SKSS_OP_COMPACT, alg);
  return s ? s : "?";
}

#define DTYPES TU_COMPACT_DTYPES
#define N_DTYPES TU_COMPACT_N_DTYPES
#define N_KEEPS TU_COMPACT_N_KEEPS
#define KEEP_NAMES TU_COMPACT_KEEP_NAMES

static int failures;

#define CASE_FAIL(...)                                                                   \
  do {                                                                                   \
    if (failures++ < 40) {                                                               \
      print_error(__VA_ARGS__);                                                          \
      print_error(" (seed %llu)\n", (unsigned long long)tu_seed());                      \
    }                                                                                    \
  } while (0)

static void finish(const char *what) {
  const int f = failures;
  failures = 0;
  if (f) TU_FAIL("%d %s cases failed", f, what);
}

/* ---- memory of every kind ------------------------------------------------ */

enum { B_IN, B_MASK, B_VALUES, B_INDICES, B_COUNT, BUFS };
#define PL(buffer, p) ((unsigned)(p) << (2 * (buffer)))
#define ALL(p) (PL(B_IN, p) | PL(B_MASK, p) | PL(B_VALUES, p) | PL(B_INDICES, p) | PL(B_COUNT, p))

/* Placements the cases rotate through: all device (asynchronous), all host,
 * device inputs with host outputs, the reverse, mixes, managed, pinned. */
static const unsigned WHERES[] = {
    ALL(DEVICE),
    ALL(HOST),
    PL(B_IN, DEVICE) | PL(B_MASK, DEVICE),
    PL(B_VALUES, DEVICE) | PL(B_INDICES, DEVICE) | PL(B_COUNT, DEVICE),
    PL(B_IN, DEVICE) | PL(B_MASK, HOST) | PL(B_VALUES, HOST) | PL(B_INDICES, DEVICE) | PL(B_COUNT, HOST),
    ALL(MANAGED),
    PL(B_IN, PINNED) | PL(B_MASK, PINNED) | PL(B_VALUES, DEVICE) | PL(B_INDICES, PINNED) | PL(B_COUNT, DEVICE),
};
#define N_WHERES ((int)(sizeof WHERES / sizeof WHERES[0]))

static place place_of(unsigned where, int buffer) { return (place)((where >> (2 * buffer)) & 3u); }

/* One preallocated buffer per (place, role), MAX_N * 8 + GUARD bytes. */
static void *BUF[PLACES][BUFS];
static skss_ctx *ORACLE, *CTX;

static void place_poison(place p, void *ptr, size_t bytes) { place_poison_bytes(p, ptr, POISON, bytes); }

static int setup(void **state) {
  (void)state;
  ORACLE = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  CTX = tu_ctx(SKSS_BACKEND_CUDA, 1);
  for (int p = 0; p < PLACES; p++)
    for (int b = 0; b < BUFS; b++) BUF[p][b] = place_alloc((place)p, (size_t)MAX_N * 8 + GUARD);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int p = 0; p < PLACES; p++)
    for (int b = 0; b < BUFS; b++) place_free((place)p, BUF[p][b]);
  skss_ctx_destroy(CTX);
  skss_ctx_destroy(ORACLE);
  return 0;
}

/* ---- one case --------------------------------------------------------------- */

enum { OUT_VALUES = 1, OUT_INDICES = 2, IN_PLACE = 4 };

/* The oracle's answer to one input. */
typedef struct expected {
  int64_t count;
  uint8_t *values;
  int64_t *indices;
} expected;

static bool all_poison(const uint8_t *p, size_t bytes) {
  for (size_t k = 0; k < bytes; k++)
    if (p[k] != POISON) return false;
  return true;
}

/* Runs `alg` on the case with its buffers placed by `where` and checks it.
 * `in`/`mask` are the host copies (mask may be NULL). */
static void run_case(int alg, skss_compact_desc d, const void *in, const uint8_t *mask, const expected *want,
                     unsigned where, int outputs, const char *what) {
  const size_t n = (size_t)d.n, elem = skss_dtype_size(d.dtype);
  const bool in_place = (outputs & IN_PLACE) != 0;
  place pl[BUFS];
  for (int b = 0; b < BUFS; b++) pl[b] = place_of(where, b);
  if (in_place) pl[B_VALUES] = pl[B_IN];
  void *d_in = BUF[pl[B_IN]][B_IN], *d_mask = BUF[pl[B_MASK]][B_MASK];
  void *d_values = in_place ? d_in : BUF[pl[B_VALUES]][B_VALUES];
  int64_t *d_indices = BUF[pl[B_INDICES]][B_INDICES], *d_count = BUF[pl[B_COUNT]][B_COUNT];
  place_put(pl[B_IN], d_in, in, n * elem);
  if (mask != NULL) place_put(pl[B_MASK], d_mask, mask, d.keep == SKSS_COMPACT_KEEP_MASK_BITS ? (n + 7) / 8 : n);
  if (!in_place) place_poison(pl[B_VALUES], d_values, n * elem + GUARD);
  place_poison(pl[B_INDICES], d_indices, n * 8 + GUARD);
  place_poison(pl[B_COUNT], d_count, 8);
  d.algorithm = (skss_compact_algorithm)alg;
  d.mask = mask != NULL ? d_mask : NULL;
  const bool want_values = (outputs & (OUT_VALUES | IN_PLACE)) != 0, want_indices = (outputs & OUT_INDICES) != 0;
  char where_s[BUFS + 1];
  for (int b = 0; b < BUFS; b++) where_s[b] = PLACE_CHAR[pl[b]];
  where_s[BUFS] = '\0';
  const skss_status st = skss_compact(CTX, &d, n ? d_in : NULL, want_values ? d_values : NULL,
                                      want_indices ? d_indices : NULL, d_count);
  if (st != SKSS_OK) {
    CASE_FAIL("%s %s (%s, outputs %d): %s: %s", alg_name(alg), what, where_s, outputs, skss_status_string(st),
              skss_ctx_last_error(CTX));
    return;
  }
  int64_t count = -1;
  place_get(pl[B_COUNT], &count, d_count, 8);
  if (count != want->count) {
    CASE_FAIL("%s %s (%s, outputs %d): count %lld, cpu-ref %lld", alg_name(alg), what, where_s, outputs,
              (long long)count, (long long)want->count);
    return;
  }
  uint8_t *got = malloc(n * 8 + GUARD);
  assert_non_null(got);
  const size_t kept = (size_t)count;
  if (in_place) {
    /* the kept at the front, the rest of `in` as it was */
    place_get(pl[B_IN], got, d_in, n * elem);
    if (memcmp(got, want->values, kept * elem) != 0 ||
        memcmp(got + kept * elem, (const uint8_t *)in + kept * elem, (n - kept) * elem) != 0)
      CASE_FAIL("%s %s (%s, in place): `in` is not the kept elements then the untouched rest", alg_name(alg), what,
                where_s);
  } else {
    place_get(pl[B_VALUES], got, d_values, n * elem + GUARD);
    const bool ok = want_values ? memcmp(got, want->values, kept * elem) == 0 &&
                                      all_poison(got + kept * elem, (n - kept) * elem + GUARD)
                                : all_poison(got, n * elem + GUARD);
    if (!ok)
      CASE_FAIL("%s %s (%s, outputs %d): values differ from cpu-ref or were written past the count", alg_name(alg),
                what, where_s, outputs);
  }
  place_get(pl[B_INDICES], got, d_indices, n * 8 + GUARD);
  const bool ok = want_indices ? memcmp(got, want->indices, kept * 8) == 0 && all_poison(got + kept * 8, (n - kept) * 8 + GUARD)
                               : all_poison(got, n * 8 + GUARD);
  if (!ok)
    CASE_FAIL("%s %s (%s, outputs %d): indices differ from cpu-ref or were written past the count", alg_name(alg),
              what, where_s, outputs);
  free(got);
}

/* The oracle on the host copies, then every CUDA algorithm; `rot` picks
 * placements and outputs so that the rotation covers every pair. */
static void check_all(skss_compact_desc d, const void *in, const uint8_t *mask, int rot, bool every_output) {
  const size_t n = (size_t)d.n, elem = skss_dtype_size(d.dtype);
  expected want = {-1, malloc(n * elem + 1), malloc(n * 8 + 8)};
  assert_true(want.values != NULL && want.indices != NULL);
  d.mask = mask;
  TU_OK(ORACLE, skss_compact(ORACLE, &d, n ? in : NULL, want.values, want.indices, &want.count));
  char what[160];
  snprintf(what, sizeof what, "%s %s n=%lld a=0x%llx b=0x%llx", skss_dtype_name(d.dtype), KEEP_NAMES[d.keep],
           (long long)d.n, (unsigned long long)d.a.u, (unsigned long long)d.b.u);
  static const int OUTPUTS[] = {OUT_VALUES, OUT_VALUES | OUT_INDICES, OUT_INDICES, IN_PLACE, 0, IN_PLACE | OUT_INDICES};
  const int n_outputs = (int)(sizeof OUTPUTS / sizeof OUTPUTS[0]);
  int algs = 0;
  for (int alg = 1; alg <= LAST_ALG; alg++) algs += cuda_alg(alg);
  for (int alg = 1, a = 0; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    /* small runs (compute-sanitizer): one algorithm a case in turn, but every one on every output mode */
    if (small_only() && !every_output && (a++ - rot) % algs != 0) continue;
    for (int o = 0; o < (every_output ? n_outputs : 1); o++) {
      const int k = rot + alg + o;
      const int outputs = every_output ? OUTPUTS[o] : OUTPUTS[k % n_outputs];
      run_case(alg, d, in, mask, &want, WHERES[k % N_WHERES], outputs, what);
    }
  }
  free(want.values);
  free(want.indices);
}

/* ---- tests -------------------------------------------------------------------- */

/* Every dtype x predicate x scalar pair on awkward sizes (the larger sizes
 * with random scalars only), every algorithm, rotating placements and
 * outputs; every output mode at 33 and 4099. */
static void test_every_dtype_predicate_and_size(void **state) {
  (void)state;
  static const int64_t sizes[] = {0, 1, 31, 32, 33, 97, 1021, 4099, 20011, 65537, MAX_N};
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 22);
  int rot = 0;
  void *in = malloc((size_t)MAX_N * 8 + 8);
  uint8_t *mask = malloc((size_t)MAX_N + 8);
  assert_true(in != NULL && mask != NULL);
  for (int t = 0; t < N_DTYPES; t++)
    for (int p = 0; p < N_KEEPS; p++)
      for (int s = 0; s < 4; s++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
          if (s > 0 && (p >= SKSS_COMPACT_KEEP_MASK_BYTES || sizes[z] > (small_only() ? 97 : 4099))) continue;
          if (small_only() && sizes[z] > 4099) continue;
          skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
          d.dtype = DTYPES[t];
          d.keep = (skss_compact_keep)p;
          d.n = sizes[z];
          tu_compact_scalars(&r, d.dtype, s, &d.a, &d.b);
          tu_compact_fill(&r, &d, in, mask);
          /* every output mode (in place too) at 33, and at 4099 (two f32 tiles) unless small */
          const bool every = s == 0 && (sizes[z] == 33 || (sizes[z] == 4099 && !small_only()));
          check_all(d, in, p >= SKSS_COMPACT_KEEP_MASK_BYTES ? mask : NULL, rot++, every);
        }
  free(in);
  free(mask);
  finish("dtype x predicate x size");
}

/* A million f32 kept below 0, 0.5 and 2 (0%, 50%, 100%) and a million-bit mask. */
static void large_case(void *arg, skss_compact_desc d, const void *in) {
  int *rot = arg;
  const uint8_t *mask = d.keep == SKSS_COMPACT_KEEP_MASK_BITS ? d.mask : NULL;
  for (int o = 0; o < 3; o++) check_all(d, in, mask, (*rot)++, false);
}

static void test_selectivities_at_a_million(void **state) {
  (void)state;
  if (small_only()) skip();
  /* the buffers hold MAX_N elements: the million runs on buffers of its own */
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 23);
  const int64_t n = 1000003;
  void *saved[PLACES][BUFS];
  memcpy(saved, BUF, sizeof saved);
  for (int p = 0; p < PLACES; p++)
    for (int b = 0; b < BUFS; b++) BUF[p][b] = place_alloc((place)p, (size_t)n * 8 + GUARD);
  int rot = 0;
  tu_compact_large(&r, large_case, &rot);
  for (int p = 0; p < PLACES; p++)
    for (int b = 0; b < BUFS; b++) place_free((place)p, BUF[p][b]);
  memcpy(BUF, saved, sizeof saved);
  finish("selectivity");
}

/* Unaligned pointers: `in`, the mask and the outputs one element or byte
 * past an aligned address (the vector loads must fall back). */
static void test_unaligned_pointers(void **state) {
  (void)state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 24);
  const int64_t n = small_only() ? 999 : 100003;
  for (int t = 0; t < N_DTYPES; t++) {
    static const skss_compact_keep KEEPS[] = {SKSS_COMPACT_KEEP_GT, SKSS_COMPACT_KEEP_NE, SKSS_COMPACT_KEEP_MASK_BYTES,
                                              SKSS_COMPACT_KEEP_MASK_BITS};
    for (size_t q = 0; q < sizeof KEEPS / sizeof KEEPS[0]; q++) {
      const skss_compact_keep p = KEEPS[q];
      skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
      d.dtype = DTYPES[t];
      d.keep = p;
      d.n = n;
      tu_compact_scalars(&r, d.dtype, 0, &d.a, &d.b);
      const size_t elem = skss_dtype_size(d.dtype);
      uint8_t *h_in = malloc((size_t)n * elem + 16), *mask = malloc((size_t)n + 16);
      assert_true(h_in != NULL && mask != NULL);
      tu_compact_fill(&r, &d, h_in, mask);
      expected want = {-1, malloc((size_t)n * elem), malloc((size_t)n * 8)};
      d.mask = p >= SKSS_COMPACT_KEEP_MASK_BYTES ? mask : NULL;
      TU_OK(ORACLE, skss_compact(ORACLE, &d, h_in, want.values, want.indices, &want.count));
      uint8_t *b_in, *b_mask, *b_out;
      int64_t *b_idx, *b_count;
      assert_int_equal(cudaMalloc((void **)&b_in, (size_t)n * elem + 64), cudaSuccess);
      assert_int_equal(cudaMalloc((void **)&b_mask, (size_t)n + 64), cudaSuccess);
      assert_int_equal(cudaMalloc((void **)&b_out, (size_t)n * elem + 64), cudaSuccess);
      assert_int_equal(cudaMalloc((void **)&b_idx, (size_t)n * 8 + 64), cudaSuccess);
      assert_int_equal(cudaMalloc((void **)&b_count, 64), cudaSuccess);
      uint8_t *u_in = b_in + elem, *u_mask = b_mask + 1, *u_out = b_out + elem;
      assert_int_equal(cudaMemcpy(u_in, h_in, (size_t)n * elem, cudaMemcpyHostToDevice), cudaSuccess);
      assert_int_equal(cudaMemcpy(u_mask, mask, (size_t)n, cudaMemcpyHostToDevice), cudaSuccess);
      if (d.mask != NULL) d.mask = u_mask;
      for (int alg = 1; alg <= LAST_ALG; alg++) {
        if (!cuda_alg(alg)) continue;
        d.algorithm = (skss_compact_algorithm)alg;
        TU_OK(CTX, skss_compact(CTX, &d, u_in, u_out, b_idx + 1, b_count + 1));
        int64_t count = -1;
        uint8_t *got = malloc((size_t)n * 8 + 8);
        assert_int_equal(cudaMemcpy(&count, b_count + 1, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        if (count != want.count) {
          CASE_FAIL("%s unaligned %s %s: count %lld, cpu-ref %lld", alg_name(alg), skss_dtype_name(d.dtype),
                    KEEP_NAMES[p], (long long)count, (long long)want.count);
          free(got);
          continue;
        }
        assert_int_equal(cudaMemcpy(got, u_out, (size_t)count * elem, cudaMemcpyDeviceToHost), cudaSuccess);
        if (memcmp(got, want.values, (size_t)count * elem) != 0)
          CASE_FAIL("%s unaligned %s %s: values differ", alg_name(alg), skss_dtype_name(d.dtype), KEEP_NAMES[p]);
        assert_int_equal(cudaMemcpy(got, b_idx + 1, (size_t)count * 8, cudaMemcpyDeviceToHost), cudaSuccess);
        if (memcmp(got, want.indices, (size_t)count * 8) != 0)
          CASE_FAIL("%s unaligned %s %s: indices differ", alg_name(alg), skss_dtype_name(d.dtype), KEEP_NAMES[p]);
        free(got);
      }
      cudaFree(b_in);
      cudaFree(b_mask);
      cudaFree(b_out);
      cudaFree(b_idx);
      cudaFree(b_count);
      free(h_in);
      free(mask);
      free(want.values);
      free(want.indices);
    }
  }
  finish("unaligned");
}

/* ---- tile edges and output alignment (onepass: tiles of 8192 .. 16384 elements) ---- */

/* Tile lengths of the widths' shapes (tuning.h: 8192 for 8 bytes, 16384 for the others) and of
 * earlier and swept shapes: sizes next to their multiples. */
static const int64_t TILE_LENGTHS[] = {2048, 4096, 8192, 16384};
/* Runs that hold whole tiles of every width. */
#define RUN 16384

static bool is_float(skss_dtype t) { return t == SKSS_DTYPE_F32 || t == SKSS_DTYPE_F64; }

/* Element i of `in` as the small integer x (exact in every dtype). */
static void put_small(skss_dtype t, void *in, int64_t i, int x) {
  switch (skss_dtype_size(t)) {
    case 1: ((uint8_t *)in)[i] = (uint8_t)x; break;
    case 2: ((uint16_t *)in)[i] = (uint16_t)x; break;
    case 4:
      if (t == SKSS_DTYPE_F32) ((float *)in)[i] = (float)x;
      else ((uint32_t *)in)[i] = (uint32_t)x;
      break;
    default:
      if (t == SKSS_DTYPE_F64) ((double *)in)[i] = (double)x;
      else ((uint64_t *)in)[i] = (uint64_t)x;
  }
}

/* Runs of RUN elements kept all, none, or at random (odd and even runs
 * of random length in the third), for `x > 100` and the byte mask alike. */
static void fill_runs(tu_rng *r, skss_compact_desc *d, void *in, uint8_t *mask) {
  d->keep = SKSS_COMPACT_KEEP_GT;
  if (is_float(d->dtype)) d->a.f = 100.0;
  else d->a.i = 100;
  bool keep = false;
  for (int64_t i = 0; i < d->n; i++) {
    const int64_t run = i / RUN;
    if (run % 3 == 0) keep = true;
    else if (run % 3 == 1) keep = false;
    else if (tu_next(r) % 5 == 0) keep = !keep;
    put_small(d->dtype, in, i, keep ? 101 + (int)(i % 27) : (int)(i % 101));
    mask[i] = (uint8_t)(keep ? 1 + i % 255 : 0);
  }
}

/* n just below, at and above multiples of every width's tile, random data;
 * then whole tiles kept all / none / in runs, value and mask predicates,
 * every output mode (in place too). */
static void test_tile_edges(void **state) {
  (void)state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 26);
  void *in = malloc((size_t)MAX_N * 8 + 8);
  uint8_t *mask = malloc((size_t)MAX_N + 8);
  assert_true(in != NULL && mask != NULL);
  int rot = 0;
  for (int t = 0; t < N_DTYPES; t++)
    for (size_t k = 0; k < sizeof TILE_LENGTHS / sizeof TILE_LENGTHS[0]; k++) {
      const int64_t T = TILE_LENGTHS[k];
      const int64_t sizes[] = {T - 1, T, T + 1, 3 * T - 1, 3 * T + 1};
      for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
        if (small_only() && sizes[z] > 4099) continue;
        static const skss_compact_keep KEEPS[] = {SKSS_COMPACT_KEEP_GT, SKSS_COMPACT_KEEP_MASK_BITS};
        for (int q = 0; q < 2; q++) {
          skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
          d.dtype = DTYPES[t];
          d.keep = KEEPS[q];
          d.n = sizes[z];
          tu_compact_scalars(&r, d.dtype, 0, &d.a, &d.b);
          tu_compact_fill(&r, &d, in, mask);
          check_all(d, in, q == 1 ? mask : NULL, rot++, z == 2);
        }
      }
    }
  if (!small_only())
    for (int t = 0; t < N_DTYPES; t++)
      for (int q = 0; q < 2; q++) {
        skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
        d.dtype = DTYPES[t];
        d.n = 6 * RUN + 5;
        fill_runs(&r, &d, in, mask);
        if (q == 1) d.keep = SKSS_COMPACT_KEEP_MASK_BYTES;
        check_all(d, in, q == 1 ? mask : NULL, rot++, true);
      }
  free(in);
  free(mask);
  finish("tile edges");
}

/* Values and indices written at every offset mod 16 bytes that their
 * elements allow (the 16-byte stores peel a head and a tail), on runs of
 * whole tiles kept all, none or at random: the outputs match cpu-ref and
 * nothing before or after them is written. */
static void test_output_offsets(void **state) {
  (void)state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 27);
  const int64_t n = small_only() ? 4099 : 3 * RUN + 77;
  const size_t room = (size_t)n * 8 + 2 * GUARD;
  uint8_t *h_in = malloc((size_t)n * 8), *mask = malloc((size_t)n), *got = malloc(room);
  uint8_t *b_in, *b_mask, *b_out, *b_idx;
  int64_t *b_count;
  assert_true(h_in != NULL && mask != NULL && got != NULL);
  assert_int_equal(cudaMalloc((void **)&b_in, (size_t)n * 8), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&b_mask, (size_t)n), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&b_out, room), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&b_idx, room), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&b_count, 8), cudaSuccess);
  for (int t = 0; t < N_DTYPES; t++)
    for (int q = 0; q < 2; q++) {
      skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
      d.dtype = DTYPES[t];
      d.n = n;
      const size_t elem = skss_dtype_size(d.dtype);
      fill_runs(&r, &d, h_in, mask);
      if (small_only()) /* one run: flip at random */
        for (int64_t i = 0; i < n; i++) mask[i] = (uint8_t)(tu_next(&r) & 1u);
      if (q == 1) d.keep = SKSS_COMPACT_KEEP_MASK_BYTES;
      d.mask = q == 1 ? mask : NULL;
      expected want = {-1, malloc((size_t)n * elem), malloc((size_t)n * 8)};
      assert_true(want.values != NULL && want.indices != NULL);
      TU_OK(ORACLE, skss_compact(ORACLE, &d, h_in, want.values, want.indices, &want.count));
      assert_int_equal(cudaMemcpy(b_in, h_in, (size_t)n * elem, cudaMemcpyHostToDevice), cudaSuccess);
      assert_int_equal(cudaMemcpy(b_mask, mask, (size_t)n, cudaMemcpyHostToDevice), cudaSuccess);
      if (q == 1) d.mask = b_mask;
      const size_t kept = (size_t)want.count;
      for (int alg = 1; alg <= LAST_ALG; alg++) {
        if (!cuda_alg(alg)) continue;
        d.algorithm = (skss_compact_algorithm)alg;
        for (size_t off = 0; off < 16; off += elem) {
          /* values at GUARD + off, indices at GUARD + 8 or + 0 in turn */
          const size_t ioff = GUARD + 8 * ((off / elem) % 2);
          assert_int_equal(cudaMemset(b_out, POISON, room), cudaSuccess);
          assert_int_equal(cudaMemset(b_idx, POISON, room), cudaSuccess);
          TU_OK(CTX, skss_compact(CTX, &d, b_in, b_out + GUARD + off, (int64_t *)(b_idx + ioff), b_count));
          int64_t count = -1;
          assert_int_equal(cudaMemcpy(&count, b_count, 8, cudaMemcpyDeviceToHost), cudaSuccess);
          if (count != want.count) {
            CASE_FAIL("%s offsets %s %s +%zu: count %lld, cpu-ref %lld", alg_name(alg), skss_dtype_name(d.dtype),
                      KEEP_NAMES[d.keep], off, (long long)count, (long long)want.count);
            continue;
          }
          assert_int_equal(cudaMemcpy(got, b_out, room, cudaMemcpyDeviceToHost), cudaSuccess);
          if (!all_poison(got, GUARD + off) || memcmp(got + GUARD + off, want.values, kept * elem) != 0 ||
              !all_poison(got + GUARD + off + kept * elem, room - GUARD - off - kept * elem))
            CASE_FAIL("%s offsets %s %s: values at +%zu differ from cpu-ref or were written outside", alg_name(alg),
                      skss_dtype_name(d.dtype), KEEP_NAMES[d.keep], off);
          assert_int_equal(cudaMemcpy(got, b_idx, room, cudaMemcpyDeviceToHost), cudaSuccess);
          if (!all_poison(got, ioff) || memcmp(got + ioff, want.indices, kept * 8) != 0 ||
              !all_poison(got + ioff + kept * 8, room - ioff - kept * 8))
            CASE_FAIL("%s offsets %s %s: indices at +%zu differ from cpu-ref or were written outside",
                      alg_name(alg), skss_dtype_name(d.dtype), KEEP_NAMES[d.keep], ioff - GUARD);
        }
      }
      free(want.values);
      free(want.indices);
    }
  cudaFree(b_in);
  cudaFree(b_mask);
  cudaFree(b_out);
  cudaFree(b_idx);
  cudaFree(b_count);
  free(h_in);
  free(mask);
  free(got);
  finish("output offsets");
}

/* onepass launches as many blocks as the SMs hold and each loops over
 * tiles: inputs of 2 such rounds of tiles + 77 elements (u8, i16, f32,
 * i64; f32 and onepass alone when small) with values and indices, then in place, on
 * device buffers, against cpu-ref, so that every block reuses its shared
 * memory and takes tickets ahead. */
static const int THREADS[] = {SKSS_CUDA_COMPACT_ONEPASS_THREADS_1B, SKSS_CUDA_COMPACT_ONEPASS_THREADS_2B,
                              SKSS_CUDA_COMPACT_ONEPASS_THREADS_4B, SKSS_CUDA_COMPACT_ONEPASS_THREADS_8B};
static const int VECTORS[] = {SKSS_CUDA_COMPACT_ONEPASS_VECTORS_1B, SKSS_CUDA_COMPACT_ONEPASS_VECTORS_2B,
                              SKSS_CUDA_COMPACT_ONEPASS_VECTORS_4B, SKSS_CUDA_COMPACT_ONEPASS_VECTORS_8B};
static const int BLOCKS[] = {SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_1B, SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_2B,
                             SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_4B, SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_8B};

static int width_of(skss_dtype t) {
  const size_t elem = skss_dtype_size(t);
  return elem == 1 ? 0 : elem == 2 ? 1 : elem == 4 ? 2 : 3;
}

/* Elements a tile of onepass's shape for dtype t (tuning.h). */
static int64_t tile_of(skss_dtype t) {
  const int w = width_of(t);
  return (int64_t)THREADS[w] * VECTORS[w] * (int64_t)(16 / skss_dtype_size(t));
}

static int64_t looping_n(skss_dtype t, int sms) { return 2 * (int64_t)sms * BLOCKS[width_of(t)] * tile_of(t) + 77; }

static void test_blocks_loop_over_tiles(void **state) {
  (void)state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 28);
  int dev = 0, sms = 0;
  assert_int_equal(cudaGetDevice(&dev), cudaSuccess);
  assert_int_equal(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev), cudaSuccess);
  static const skss_dtype TYPES[] = {SKSS_DTYPE_F32, SKSS_DTYPE_U8, SKSS_DTYPE_I16, SKSS_DTYPE_I64};
  for (int k = 0; k < (small_only() ? 1 : 4); k++) {
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.dtype = TYPES[k];
    d.keep = SKSS_COMPACT_KEEP_GT;
    d.n = looping_n(d.dtype, sms);
    const size_t n = (size_t)d.n, elem = skss_dtype_size(d.dtype);
    tu_compact_scalars(&r, d.dtype, 0, &d.a, &d.b);
    uint8_t *h_in = malloc(n * elem), *mask = malloc(n), *got = malloc(n * 8);
    expected want = {-1, malloc(n * elem), malloc(n * 8)};
    assert_true(h_in != NULL && mask != NULL && got != NULL && want.values != NULL && want.indices != NULL);
    tu_compact_fill(&r, &d, h_in, mask);
    TU_OK(ORACLE, skss_compact(ORACLE, &d, h_in, want.values, want.indices, &want.count));
    const size_t kept = (size_t)want.count;
    uint8_t *b_in, *b_out;
    int64_t *b_idx, *b_count;
    assert_int_equal(cudaMalloc((void **)&b_in, n * elem), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&b_out, n * elem), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&b_idx, n * 8), cudaSuccess);
    assert_int_equal(cudaMalloc((void **)&b_count, 8), cudaSuccess);
    for (int alg = 1; alg <= LAST_ALG; alg++) {
      /* small (compute-sanitizer): onepass alone, the one whose blocks loop */
      if (!cuda_alg(alg) || (small_only() && alg != SKSS_COMPACT_ALGORITHM_ONEPASS)) continue;
      d.algorithm = (skss_compact_algorithm)alg;
      for (int in_place = 0; in_place < 2; in_place++) {
        assert_int_equal(cudaMemcpy(b_in, h_in, n * elem, cudaMemcpyHostToDevice), cudaSuccess);
        assert_int_equal(cudaMemset(b_idx, POISON, n * 8), cudaSuccess);
        uint8_t *out = in_place ? b_in : b_out;
        TU_OK(CTX, skss_compact(CTX, &d, b_in, out, in_place ? NULL : b_idx, b_count));
        int64_t count = -1;
        assert_int_equal(cudaMemcpy(&count, b_count, 8, cudaMemcpyDeviceToHost), cudaSuccess);
        if (count != want.count) {
          CASE_FAIL("%s loop %s n=%zu%s: count %lld, cpu-ref %lld", alg_name(alg), skss_dtype_name(d.dtype), n,
                    in_place ? " in place" : "", (long long)count, (long long)want.count);
          continue;
        }
        assert_int_equal(cudaMemcpy(got, out, n * elem, cudaMemcpyDeviceToHost), cudaSuccess);
        if (memcmp(got, want.values, kept * elem) != 0 ||
            (in_place && memcmp(got + kept * elem, h_in + kept * elem, (n - kept) * elem) != 0))
          CASE_FAIL("%s loop %s n=%zu%s: values differ from cpu-ref", alg_name(alg), skss_dtype_name(d.dtype), n,
                    in_place ? " in place (or the rest of `in` changed)" : "");
        if (!in_place) {
          assert_int_equal(cudaMemcpy(got, b_idx, n * 8, cudaMemcpyDeviceToHost), cudaSuccess);
          if (memcmp(got, want.indices, kept * 8) != 0 || !all_poison(got + kept * 8, (n - kept) * 8))
            CASE_FAIL("%s loop %s n=%zu: indices differ from cpu-ref or were written past the count", alg_name(alg),
                      skss_dtype_name(d.dtype), n);
        }
      }
    }
    cudaFree(b_in);
    cudaFree(b_out);
    cudaFree(b_idx);
    cudaFree(b_count);
    free(h_in);
    free(mask);
    free(got);
    free(want.values);
    free(want.indices);
  }
  finish("blocks looping over tiles");
}

/* Onepass's calls in a row on one context, on inputs of 1 to 1057 tiles
 * (n next to multiples of 32 tiles, where its look-back goes over groups of
 * 32 tiles, whose counters two calls apart share an array that the call
 * between zeroes), f32 and i64 in turn, half in place, against cpu-ref. */
static void test_calls_in_a_row(void **state) {
  (void)state;
  if (!cuda_alg(SKSS_COMPACT_ALGORITHM_ONEPASS)) skip();
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 29);
  static const int64_t TILES[] = {1, 31, 32, 33, 63, 64, 65, 96, 97, 1055, 1056, 1057};
  static const skss_dtype TYPES[] = {SKSS_DTYPE_F32, SKSS_DTYPE_I64};
  const int calls = small_only() ? 24 : 150, kinds = small_only() ? 9 : 12; /* small: up to 97 tiles */
  size_t max_elems = 0, max_bytes = 0; /* of the largest input of either type */
  for (int k = 0; k < 2; k++) {
    const size_t n = (size_t)(TILES[kinds - 1] * tile_of(TYPES[k]) + 1), bytes = n * skss_dtype_size(TYPES[k]);
    max_elems = n > max_elems ? n : max_elems;
    max_bytes = bytes > max_bytes ? bytes : max_bytes;
  }
  uint8_t *h_in = malloc(max_bytes), *mask = malloc(max_elems), *got = malloc(max_bytes);
  expected want = {-1, malloc(max_bytes), NULL};
  uint8_t *b_in, *b_out;
  int64_t *b_count;
  assert_true(h_in != NULL && mask != NULL && got != NULL && want.values != NULL);
  assert_int_equal(cudaMalloc((void **)&b_in, max_bytes), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&b_out, max_bytes), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&b_count, 8), cudaSuccess);
  for (int c = 0; c < calls; c++) {
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.dtype = TYPES[c % 2];
    d.keep = SKSS_COMPACT_KEEP_GT;
    const int64_t tiles = TILES[tu_next(&r) % (uint64_t)kinds];
    d.n = tiles * tile_of(d.dtype) + (int64_t)(tu_next(&r) % 3) - 1; /* a tile's end, one short or one past */
    const size_t n = (size_t)d.n, elem = skss_dtype_size(d.dtype);
    const bool in_place = (c / 2) % 2 == 1;
    tu_compact_scalars(&r, d.dtype, 0, &d.a, &d.b);
    tu_compact_fill(&r, &d, h_in, mask);
    TU_OK(ORACLE, skss_compact(ORACLE, &d, h_in, want.values, NULL, &want.count));
    d.algorithm = SKSS_COMPACT_ALGORITHM_ONEPASS; /* after the oracle: cpu-ref has no onepass */
    const size_t kept = (size_t)want.count;
    assert_int_equal(cudaMemcpy(b_in, h_in, n * elem, cudaMemcpyHostToDevice), cudaSuccess);
    assert_int_equal(cudaMemset(b_out, POISON, n * elem), cudaSuccess);
    uint8_t *out = in_place ? b_in : b_out;
    TU_OK(CTX, skss_compact(CTX, &d, b_in, out, NULL, b_count));
    int64_t count = -1;
    assert_int_equal(cudaMemcpy(&count, b_count, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    if (count != want.count) {
      CASE_FAIL("call %d, %s n=%zu (%lld tiles)%s: count %lld, cpu-ref %lld", c, skss_dtype_name(d.dtype), n,
                (long long)tiles, in_place ? " in place" : "", (long long)count, (long long)want.count);
      continue;
    }
    assert_int_equal(cudaMemcpy(got, out, n * elem, cudaMemcpyDeviceToHost), cudaSuccess);
    const bool ok = memcmp(got, want.values, kept * elem) == 0 &&
                    (in_place ? memcmp(got + kept * elem, h_in + kept * elem, (n - kept) * elem) == 0
                              : all_poison(got + kept * elem, (n - kept) * elem));
    if (!ok)
      CASE_FAIL("call %d, %s n=%zu (%lld tiles)%s: values differ from cpu-ref, or %s", c, skss_dtype_name(d.dtype), n,
                (long long)tiles, in_place ? " in place" : "",
                in_place ? "the rest of `in` changed" : "were written past the count");
  }
  cudaFree(b_in);
  cudaFree(b_out);
  cudaFree(b_count);
  free(h_in);
  free(mask);
  free(got);
  free(want.values);
  finish("calls in a row");
}

/* A context on the caller's non-blocking stream: an all-device call returns
 * without waiting (the count is written by the device, read after the
 * stream); calls in a row on the stream see each other's results. AUTO is
 * onepass on this backend. */
static void test_callers_stream_and_auto(void **state) {
  (void)state;
  cudaStream_t stream;
  assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CUDA;
  cd.cuda_stream = stream;
  skss_ctx *ctx = NULL;
  assert_int_equal(skss_ctx_create(&cd, &ctx), SKSS_OK);
  assert_int_equal(skss_ctx_op_backend(ctx, SKSS_OP_COMPACT), SKSS_BACKEND_CUDA);
  const int64_t n = small_only() ? 3001 : 1 << 20;
  int32_t *h = malloc((size_t)n * 4);
  assert_non_null(h);
  for (int64_t k = 0; k < n; k++) h[k] = (int32_t)((k * 2654435761u) >> 7) - (1 << 24);
  int32_t *d_in, *d_out;
  int64_t *d_count;
  assert_int_equal(cudaMalloc((void **)&d_in, (size_t)n * 4), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_out, (size_t)n * 4), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_count, 16), cudaSuccess);
  assert_int_equal(cudaMemcpy(d_in, h, (size_t)n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = n;
  d.dtype = SKSS_DTYPE_I32;
  d.keep = SKSS_COMPACT_KEEP_GT;
  d.a.i = 0;
  /* keep x > 0, then of those x >= 2^22, chained on the stream without waiting */
  TU_OK(ctx, skss_compact(ctx, &d, d_in, d_out, NULL, d_count));
  int64_t want1 = 0, want2 = 0;
  for (int64_t k = 0; k < n; k++) {
    want1 += h[k] > 0;
    want2 += h[k] >= (1 << 22);
  }
  d.keep = SKSS_COMPACT_KEEP_GE;
  d.a.i = 1 << 22;
  d.n = want1;
  TU_OK(ctx, skss_compact(ctx, &d, d_out, d_out, NULL, d_count + 1));
  TU_OK(ctx, skss_ctx_synchronize(ctx));
  assert_int_equal(cudaStreamSynchronize(stream), cudaSuccess);
  int64_t got[2];
  assert_int_equal(cudaMemcpy(got, d_count, 16, cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(got[0], want1);
  assert_int_equal(got[1], want2);
  skss_ctx_destroy(ctx);
  cudaStreamDestroy(stream);
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_count);
  free(h);
}

/* Misuse is refused before anything runs; n past 2^40 is unsupported here. */
static void test_misuse(void **state) {
  (void)state;
  /* count below `in`, so that 2^40 bytes from `in` cannot reach it */
  uint8_t *lo, *hi;
  assert_int_equal(cudaMalloc((void **)&lo, 1024), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&hi, 1024), cudaSuccess);
  if (lo > hi) {
    uint8_t *t = lo;
    lo = hi;
    hi = t;
  }
  int32_t *d_in = (int32_t *)(void *)hi;
  int64_t *d_count = (int64_t *)(void *)lo;
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.dtype = SKSS_DTYPE_U8;
  d.keep = SKSS_COMPACT_KEEP_NONZERO;
  d.n = ((int64_t)1 << 40) + 1;
  for (int alg = 1; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    d.algorithm = (skss_compact_algorithm)alg;
    assert_int_equal(skss_compact(CTX, &d, d_in, NULL, NULL, d_count), SKSS_ERR_UNSUPPORTED);
    assert_non_null(strstr(skss_ctx_last_error(CTX), "2^40"));
  }
  d.n = 16;
  d.algorithm = SKSS_COMPACT_ALGORITHM_ONEPASS;
  assert_int_equal(skss_compact(CTX, &d, d_in, NULL, NULL, NULL), SKSS_ERR_INVALID_ARG);
  /* an output overlapping `in` other than exactly in place */
  assert_int_equal(skss_compact(CTX, &d, d_in, (uint8_t *)d_in + 1, NULL, d_count), SKSS_ERR_INVALID_ARG);
  /* loop is a CPU algorithm */
  d.algorithm = SKSS_COMPACT_ALGORITHM_LOOP;
  assert_int_equal(skss_compact(CTX, &d, d_in, NULL, NULL, d_count), SKSS_ERR_UNSUPPORTED);
  cudaFree(lo);
  cudaFree(hi);
}

/* Element k of the big case: hash bits, so the expected output can be
 * recomputed while streaming the device's output back. */
static uint32_t big_bits(int64_t k) {
  uint64_t z = (uint64_t)k * 0x9E3779B97F4A7C15ull;
  z ^= z >> 29;
  z *= 0xBF58476D1CE4E5B9ull;
  return (uint32_t)(z >> 32);
}

/* Streams `count` outputs of `bytes` each back in chunks and compares them
 * with next(k) for the kept k in order; returns the number of mismatches. */
typedef bool (*keep_fn)(int64_t k, void *want);
static int64_t big_stream_check(const uint8_t *dev, size_t bytes, int64_t count, int64_t n, keep_fn keep) {
  enum { CHUNK = 1 << 24 };
  uint8_t *h = malloc((size_t)CHUNK * bytes), want[8];
  assert_non_null(h);
  int64_t k = 0, bad = 0;
  for (int64_t at = 0; at < count; at += CHUNK) {
    const int64_t m = count - at < CHUNK ? count - at : CHUNK;
    assert_int_equal(cudaMemcpy(h, dev + (size_t)at * bytes, (size_t)m * bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    for (int64_t i = 0; i < m; i++) {
      while (k < n && !keep(k, want)) k++;
      if (bytes == 8 && want[0] == 0xFF) memcpy(want, &k, 8); /* indices: the index itself */
      if (k >= n || memcmp(h + (size_t)i * bytes, want, bytes) != 0) bad++;
      k++;
    }
  }
  free(h);
  return bad;
}

static bool keep_u8(int64_t k, void *want) {
  const uint8_t x = (uint8_t)big_bits(k);
  *(uint8_t *)want = x;
  return x > 127;
}
static bool keep_u8_index(int64_t k, void *want) {
  memset(want, 0xFF, 8);
  return (uint8_t)big_bits(k) > 127;
}
static bool keep_f32(int64_t k, void *want) {
  const float x = (float)(big_bits(k) >> 8) * 0x1p-24f;
  memcpy(want, &x, 4);
  return x < 0.25f;
}

/* n = 2^31 + 7: counts, indices and byte offsets past 32 bits. u8 values
 * and indices (x > 127, half kept) and f32 values (x < 0.25) from device
 * memory, every algorithm; run where the device has the memory. */
static void test_past_2_to_the_31(void **state) {
  (void)state;
  if (small_only()) skip();
  const int64_t n = BIG_N;
  size_t free_b = 0, total_b = 0;
  assert_int_equal(cudaMemGetInfo(&free_b, &total_b), cudaSuccess);
  /* f32: in + values + the paper's scratch (3 bytes an element) + slack */
  const double need = (double)n * (4 + 4 + 3 + 1 + 8 + 1) + (1 << 30);
  if ((double)free_b < need) {
    printf("test_past_2_to_the_31: skipped, needs %.1f GiB of device memory, %.1f GiB free\n", need / (1 << 30),
           (double)free_b / (1 << 30));
    skip();
  }
  uint8_t *d_in, *d_out;
  int64_t *d_idx, *d_count;
  assert_int_equal(cudaMalloc((void **)&d_in, (size_t)n * 4), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_out, (size_t)n * 4), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_idx, (size_t)n * 8), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_count, 8), cudaSuccess);
  uint8_t *h = malloc((size_t)n * 4);
  assert_non_null(h);
  int64_t want_u8 = 0, want_f32 = 0;
  for (int64_t k = 0; k < n; k++) {
    uint8_t w[8];
    h[k] = (uint8_t)big_bits(k);
    want_u8 += keep_u8(k, w);
  }
  assert_int_equal(cudaMemcpy(d_in, h, (size_t)n, cudaMemcpyHostToDevice), cudaSuccess);
  for (int alg = 1; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.n = n;
    d.dtype = SKSS_DTYPE_U8;
    d.keep = SKSS_COMPACT_KEEP_GT;
    d.a.u = 127;
    d.algorithm = (skss_compact_algorithm)alg;
    TU_OK(CTX, skss_compact(CTX, &d, d_in, d_out, d_idx, d_count));
    int64_t count = -1;
    assert_int_equal(cudaMemcpy(&count, d_count, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    printf("%s: u8 n = 2^31 + 7: %lld kept\n", alg_name(alg), (long long)count);
    if (count != want_u8) {
      CASE_FAIL("%s 2^31+7 u8: count %lld, want %lld", alg_name(alg), (long long)count, (long long)want_u8);
      continue;
    }
    const int64_t bad_v = big_stream_check(d_out, 1, count, n, keep_u8);
    const int64_t bad_i = big_stream_check((const uint8_t *)d_idx, 8, count, n, keep_u8_index);
    if (bad_v || bad_i)
      CASE_FAIL("%s 2^31+7 u8: %lld values and %lld indices differ", alg_name(alg), (long long)bad_v, (long long)bad_i);
  }
  for (int64_t k = 0; k < n; k++) {
    uint8_t w[8];
    want_f32 += keep_f32(k, w);
    memcpy(h + 4 * k, w, 4);
  }
  assert_int_equal(cudaMemcpy(d_in, h, (size_t)n * 4, cudaMemcpyHostToDevice), cudaSuccess);
  free(h);
  for (int alg = 1; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
    d.n = n;
    d.dtype = SKSS_DTYPE_F32;
    d.keep = SKSS_COMPACT_KEEP_LT;
    d.a.f = 0.25;
    d.algorithm = (skss_compact_algorithm)alg;
    TU_OK(CTX, skss_compact(CTX, &d, d_in, d_out, NULL, d_count));
    int64_t count = -1;
    assert_int_equal(cudaMemcpy(&count, d_count, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    if (count != want_f32) {
      CASE_FAIL("%s 2^31+7 f32: count %lld, want %lld", alg_name(alg), (long long)count, (long long)want_f32);
      continue;
    }
    const int64_t bad = big_stream_check(d_out, 4, count, n, keep_f32);
    if (bad) CASE_FAIL("%s 2^31+7 f32: %lld values differ", alg_name(alg), (long long)bad);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_idx);
  cudaFree(d_count);
  finish("2^31 + 7");
}

/* Small calls with everything on the device are launch-bound: the median
 * of 200 calls at n = 2^16, printed (the bench times them properly). */
static void test_small_call_time(void **state) {
  (void)state;
  if (small_only()) skip();
  const int64_t n = 1 << 16;
  float *d_in, *d_out;
  int64_t *d_count;
  assert_int_equal(cudaMalloc((void **)&d_in, (size_t)n * 4), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_out, (size_t)n * 4), cudaSuccess);
  assert_int_equal(cudaMalloc((void **)&d_count, 8), cudaSuccess);
  assert_int_equal(cudaMemset(d_in, 0x3f, (size_t)n * 4), cudaSuccess);
  skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
  d.n = n;
  d.keep = SKSS_COMPACT_KEEP_GT;
  d.a.f = 0.5;
  for (int alg = 1; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    d.algorithm = (skss_compact_algorithm)alg;
    TU_OK(CTX, skss_compact(CTX, &d, d_in, d_out, NULL, d_count));
    TU_OK(CTX, skss_ctx_synchronize(CTX));
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int k = 0; k < 200; k++) TU_OK(CTX, skss_compact(CTX, &d, d_in, d_out, NULL, d_count));
    TU_OK(CTX, skss_ctx_synchronize(CTX));
    clock_gettime(CLOCK_MONOTONIC, &b);
    const double us = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / 1e3 / 200;
    printf("%s: n = 2^16 f32 on the device, %.2f us a call (back to back)\n", alg_name(alg), us);
  }
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_count);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_dtype_predicate_and_size),
      cmocka_unit_test(test_selectivities_at_a_million),
      cmocka_unit_test(test_unaligned_pointers),
      cmocka_unit_test(test_tile_edges),
      cmocka_unit_test(test_output_offsets),
      cmocka_unit_test(test_blocks_loop_over_tiles),
      cmocka_unit_test(test_calls_in_a_row),
      cmocka_unit_test(test_callers_stream_and_auto),
      cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_small_call_time),
      cmocka_unit_test(test_past_2_to_the_31),
  };
  const char *only = getenv("SKSS_TEST_ONLY");
  if (only != NULL && only[0] != '\0') cmocka_set_test_filter(only);
  return cmocka_run_group_tests(tests, setup, teardown);
}
