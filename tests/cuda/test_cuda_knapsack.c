/*
 * test_cuda_knapsack.c — every CUDA knapsack algorithm (parallel-forward,
 * parallel-fair-2..32, skss, strips: every id the CUDA backend lists, so
 * new ones are covered as they land) against CPU_REF, which test_knapsack.c
 * checks against brute force and a full-table oracle. The optimum, the
 * chosen set (bit for bit: skss.h's deterministic rule) and
 * values_by_capacity must be identical, and no byte past an output may be
 * written (outputs are poisoned with 0xA5 before each call, on the host or
 * on the device).
 * Cases: Pisinger's classes and ours (tu_knapsack: uncorrelated, weakly,
 * strongly and inversely strongly correlated, subset sum, zeros) at
 * awkward n and C (0, 1, 31, 33, primes), with total weights above, near
 * and below C; hand-made edges (zero weights, zero values, items heavier
 * than C, C past the total weight and huge, identical items, weights on
 * powers of two); value sums at INT32_MAX and one past it (4- and 8-byte
 * cells), near 2^61 and exactly INT64_MAX, and past it (SKSS_ERR_OVERFLOW);
 * value-only mode and items, values_by_capacity (also where C' < C);
 * batches of 1, 2 and 37 different instances (and instances = 0, and a
 * desc from before the batch fields); weights, values, best_value, taken
 * and values_by_capacity each in host, device, managed or pinned memory;
 * the memory limit (the paper's algorithms fail cleanly when their value
 * table exceeds max_bytes; strips reconstructs the items from checkpoints
 * below the decision bits' need); a caller's non-blocking stream (the call
 * must be synchronous); misuse; a stress with far more 32-capacity rows and
 * strips than resident warps, repeated; and the SKSS paper's Table I class
 * (n = 4095, C = 65535), timed.
 * SKSS_TEST_SMALL=1 keeps the small cases (compute-sanitizer: C <= 4096,
 * n <= 64 but in the checkpoint case, batches <= 4, fewer repetitions);
 * SKSS_KS_ALGS=lo-hi (or one id) limits the algorithms;
 * SKSS_TEST_ONLY=PATTERN runs the tests whose names match.
 * Exits 77 without a GPU.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda_places.h"
#include "testutil.h"

#define POISON 0xA5
#define GUARD 64                     /* bytes past each output that must stay poisoned */
#define BIG_C 1000000000000000ll     /* 10^15 */
#define MAX_TABLE_CELLS (1ll << 24)  /* values_by_capacity asked for up to this many entries */
#define FIRST_CUDA_ALG SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD
#define LAST_ALG 63

static int env_on(const char *name) {
  const char *v = getenv(name);
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

/* SKSS_TEST_SMALL=1 (scripts/gpu-check under compute-sanitizer): small cases only. */
static int small_only(void) { return env_on("SKSS_TEST_SMALL"); }

/* Whether the run covers `alg`: a CUDA algorithm, in SKSS_KS_ALGS=lo-hi
 * when that is set. */
static int cuda_alg(int alg) {
  const char *v = getenv("SKSS_KS_ALGS");
  int lo = FIRST_CUDA_ALG, hi = LAST_ALG;
  if (v != NULL && v[0] != '\0' && sscanf(v, "%d-%d", &lo, &hi) != 2) lo = hi = atoi(v);
  return alg >= lo && alg <= hi && alg >= FIRST_CUDA_ALG &&
         skss_algorithm_name(SKSS_OP_KNAPSACK, alg) != NULL &&
         skss_algorithm_supported(SKSS_OP_KNAPSACK, alg, SKSS_BACKEND_CUDA);
}

/* The paper's algorithms keep the whole value table; strips (ours) does not. */
static int keeps_table(int alg) {
  return alg >= SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD && alg <= SKSS_KNAPSACK_ALGORITHM_SKSS;
}

static const char *alg_name(int alg) {
  const char *s = skss_algorithm_name(SKSS_OP_KNAPSACK, alg);
  return s ? s : "?";
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Failures are counted and the first ones printed; each test fails at its
 * end if any case failed, so one run reports every broken algorithm. */
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

enum { B_W, B_V, B_BEST, B_TAKEN, B_TABLE, BUFS };
#define PL(buffer, p) ((unsigned)(p) << (2 * (buffer)))
#define ALL_DEVICE (PL(B_W, DEVICE) | PL(B_V, DEVICE) | PL(B_BEST, DEVICE) | PL(B_TAKEN, DEVICE) | PL(B_TABLE, DEVICE))

static place place_of(unsigned where, int buffer) { return (place)((where >> (2 * buffer)) & 3u); }

/* Placements the case loops rotate through: all host, all device, device
 * inputs and host outputs, the reverse, mixes, managed and pinned memory. */
static const unsigned WHERES[] = {
    0,
    ALL_DEVICE,
    PL(B_W, DEVICE) | PL(B_V, DEVICE),
    PL(B_BEST, DEVICE) | PL(B_TAKEN, DEVICE) | PL(B_TABLE, DEVICE),
    PL(B_W, DEVICE) | PL(B_TAKEN, DEVICE),
    PL(B_V, DEVICE) | PL(B_BEST, DEVICE) | PL(B_TABLE, DEVICE),
    PL(B_W, MANAGED) | PL(B_V, PINNED) | PL(B_BEST, MANAGED) | PL(B_TAKEN, PINNED) | PL(B_TABLE, DEVICE),
    PL(B_W, PINNED) | PL(B_V, DEVICE) | PL(B_BEST, PINNED) | PL(B_TAKEN, MANAGED) | PL(B_TABLE, MANAGED),
};
#define N_WHERES ((int)(sizeof WHERES / sizeof WHERES[0]))

static void place_poison(place p, void *ptr, size_t bytes) { place_poison_bytes(p, ptr, POISON, bytes); }

/* ---- instances and runs --------------------------------------------------- */

/* `count` instances of n items and one capacity (a batch when count > 1):
 * instance k's items at w + k * n and v + k * n. */
typedef struct ks_in {
  int64_t n, cap, count;
  int64_t *w, *v;
  char what[64];
} ks_in;

static ks_in in_new(int64_t n, int64_t cap, int64_t count, const char *what) {
  ks_in in;
  in.n = n;
  in.cap = cap;
  in.count = count;
  in.w = calloc((size_t)(n * count) + 1, sizeof(int64_t));
  in.v = calloc((size_t)(n * count) + 1, sizeof(int64_t));
  assert_non_null(in.w);
  assert_non_null(in.v);
  snprintf(in.what, sizeof in.what, "%s", what);
  return in;
}

static void in_free(ks_in *in) {
  free(in->w);
  free(in->v);
}

static int64_t total_weight(const ks_in *in, int64_t k) {
  int64_t t = 0;
  for (int64_t j = 0; j < in->n; j++) t += in->w[k * in->n + j];
  return t;
}

static const char *const KIND_NAMES[TU_KNAPSACK_KINDS] = {"uncorrelated", "weak", "strong", "zeros", "inverse-strong", "subset-sum"};

/* Instance k of `kind` (kind < 0: kind k % KINDS) with weights in [1, range]
 * (tu_knapsack_random); cap < 0: half the first instance's total weight. */
static ks_in in_random(tu_rng *r, int kind, int64_t n, int64_t range, int64_t cap, int64_t count) {
  char what[64];
  snprintf(what, sizeof what, "%s range %lld", kind < 0 ? "mixed" : KIND_NAMES[kind], (long long)range);
  ks_in in = in_new(n, cap < 0 ? 0 : cap, count, what);
  for (int64_t k = 0; k < count; k++) {
    const int kk = kind < 0 ? (int)(k % TU_KNAPSACK_KINDS) : kind;
    tu_knapsack t = tu_knapsack_random(r, (tu_knapsack_kind)kk, n, range, 0);
    memcpy(in.w + k * n, t.w, (size_t)n * sizeof(int64_t));
    memcpy(in.v + k * n, t.v, (size_t)n * sizeof(int64_t));
    tu_knapsack_free(&t);
  }
  if (cap < 0) in.cap = total_weight(&in, 0) / 2;
  return in;
}

/* How a call is made. */
typedef struct ks_opts {
  int alg;
  int value_only;
  int table;       /* ask for values_by_capacity */
  int taken_vo;    /* pass `taken` in value-only mode too: it must stay untouched */
  unsigned where;  /* place_of(where, B_*) */
  int64_t max_bytes;
  int legacy;      /* 1: instances = 0 (one); 2: a desc whose size ends before `instances` */
} ks_opts;

/* Host copies of a call's outputs, each followed by GUARD poisoned bytes. */
typedef struct ks_out {
  skss_status st;
  int64_t *best;
  uint8_t *taken;
  int64_t *table;
} ks_out;

static size_t best_bytes(const ks_in *in) { return (size_t)in->count * sizeof(int64_t); }
static size_t taken_bytes(const ks_in *in) { return (size_t)(in->n * in->count); }
static size_t table_bytes(const ks_in *in) { return (size_t)((in->cap + 1) * in->count) * sizeof(int64_t); }
static int table_fits(const ks_in *in) { return in->cap < MAX_TABLE_CELLS && (in->cap + 1) * in->count <= MAX_TABLE_CELLS; }

static ks_out out_new(const ks_in *in) {
  ks_out o;
  o.st = SKSS_OK;
  o.best = malloc(best_bytes(in) + GUARD);
  o.taken = malloc(taken_bytes(in) + GUARD);
  o.table = table_fits(in) ? malloc(table_bytes(in) + GUARD) : NULL;
  assert_non_null(o.best);
  assert_non_null(o.taken);
  return o;
}

static void out_free(ks_out *o) {
  free(o->best);
  free(o->taken);
  free(o->table);
}

static void describe(char *buf, size_t len, const ks_in *in, const ks_opts *o) {
  char where[BUFS + 1];
  for (int b = 0; b < BUFS; b++) where[b] = PLACE_CHAR[place_of(o->where, b)];
  where[BUFS] = '\0';
  snprintf(buf, len, "%s: n %lld C %lld x%lld (%s), %s%s%s, w/v/best/taken/table %s, max_bytes %lld%s",
           alg_name(o->alg), (long long)in->n, (long long)in->cap, (long long)in->count, in->what,
           o->value_only ? "value only" : "items", o->table ? " + table" : "",
           o->value_only && o->taken_vo ? " (taken passed)" : "", where, (long long)o->max_bytes,
           o->legacy == 1 ? ", instances = 0" : o->legacy == 2 ? ", desc before instances" : "");
}

/* One call with buffers where `o` says, outputs poisoned (and their guards)
 * before it; the outputs, guards included, are copied back into `out`. */
static skss_status solve(skss_ctx *ctx, const ks_in *in, const ks_opts *o, ks_out *out) {
  const size_t items = (size_t)(in->n * in->count) * sizeof(int64_t);
  const size_t bb = best_bytes(in) + GUARD, tb = taken_bytes(in) + GUARD;
  const size_t vb = o->table ? table_bytes(in) + GUARD : 0;
  if (o->table) assert_non_null(out->table);
  place p[BUFS];
  for (int b = 0; b < BUFS; b++) p[b] = place_of(o->where, b);
  void *w = place_alloc(p[B_W], items), *v = place_alloc(p[B_V], items);
  void *best = place_alloc(p[B_BEST], bb), *taken = place_alloc(p[B_TAKEN], tb);
  void *table = o->table ? place_alloc(p[B_TABLE], vb) : NULL;
  place_put(p[B_W], w, in->w, items);
  place_put(p[B_V], v, in->v, items);
  place_poison(p[B_BEST], best, bb);
  place_poison(p[B_TAKEN], taken, tb);
  if (table) place_poison(p[B_TABLE], table, vb);
  /* pageable copies and memsets may still be in flight */
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = in->n;
  d.capacity = in->cap;
  d.value_only = o->value_only;
  d.max_bytes = o->max_bytes;
  d.algorithm = (skss_knapsack_algorithm)o->alg;
  d.values_by_capacity = table;
  d.instances = in->count;
  if (o->legacy) {
    assert_int_equal(in->count, 1);
    d.instances = 0;
    if (o->legacy == 2) d.size = offsetof(skss_knapsack_desc, instances);
  }
  out->st = skss_knapsack(ctx, &d, w, v, best, o->value_only && !o->taken_vo ? NULL : taken);
  place_get(p[B_BEST], out->best, best, bb);
  place_get(p[B_TAKEN], out->taken, taken, tb);
  if (table) place_get(p[B_TABLE], out->table, table, vb);
  place_free(p[B_W], w);
  place_free(p[B_V], v);
  place_free(p[B_BEST], best);
  place_free(p[B_TAKEN], taken);
  if (table) place_free(p[B_TABLE], table);
  return out->st;
}

/* CPU_REF's answer: the items, and values_by_capacity where it fits. */
static ks_out reference(skss_ctx *ref, const ks_in *in) {
  ks_out want = out_new(in);
  ks_opts o = {SKSS_KNAPSACK_ALGORITHM_AUTO, 0, want.table != NULL, 0, 0, 0, 0};
  TU_OK(ref, solve(ref, in, &o, &want));
  return want;
}

static int all_poison(const void *p, size_t bytes) {
  const uint8_t *b = p;
  for (size_t k = 0; k < bytes; k++)
    if (b[k] != POISON) return 0;
  return 1;
}

/* `got` equals `want` in everything `o` asked for, and wrote nothing else. */
static int compare(const ks_in *in, const ks_opts *o, const ks_out *want, const ks_out *got) {
  char label[384];
  describe(label, sizeof label, in, o);
  if (got->st != SKSS_OK) {
    CASE_FAIL("%s: %s", label, skss_status_string(got->st));
    return 0;
  }
  for (int64_t k = 0; k < in->count; k++)
    if (got->best[k] != want->best[k]) {
      CASE_FAIL("%s: instance %lld: optimum %lld, cpu-ref %lld", label, (long long)k,
                (long long)got->best[k], (long long)want->best[k]);
      return 0;
    }
  if (!all_poison((const uint8_t *)got->best + best_bytes(in), GUARD)) {
    CASE_FAIL("%s: best_value written past its %lld instances", label, (long long)in->count);
    return 0;
  }
  if (!o->value_only) {
    for (size_t j = 0; j < taken_bytes(in); j++)
      if (got->taken[j] != want->taken[j]) {
        CASE_FAIL("%s: instance %lld: taken[%lld] = %d, cpu-ref %d", label, (long long)(j / (size_t)in->n),
                  (long long)(j % (size_t)in->n), got->taken[j], want->taken[j]);
        return 0;
      }
    if (!all_poison(got->taken + taken_bytes(in), GUARD)) {
      CASE_FAIL("%s: taken written past n_items x instances", label);
      return 0;
    }
  } else if (o->taken_vo && !all_poison(got->taken, taken_bytes(in) + GUARD)) {
    CASE_FAIL("%s: value-only mode wrote taken", label);
    return 0;
  }
  if (o->table) {
    const size_t cells = table_bytes(in) / sizeof(int64_t);
    for (size_t c = 0; c < cells; c++)
      if (got->table[c] != want->table[c]) {
        CASE_FAIL("%s: instance %lld: values_by_capacity[%lld] = %lld, cpu-ref %lld", label,
                  (long long)(c / (size_t)(in->cap + 1)), (long long)(c % (size_t)(in->cap + 1)),
                  (long long)got->table[c], (long long)want->table[c]);
        return 0;
      }
    if (!all_poison((const uint8_t *)got->table + table_bytes(in), GUARD)) {
      CASE_FAIL("%s: values_by_capacity written past its end", label);
      return 0;
    }
  }
  return 1;
}

/* One CUDA call against CPU_REF's `want`; 1 if it matched. */
static int check(skss_ctx *cuda, const ks_in *in, const ks_opts *o, const ks_out *want) {
  ks_out got = out_new(in);
  ks_opts oo = *o;
  if (got.table == NULL) oo.table = 0;
  solve(cuda, in, &oo, &got);
  const int ok = compare(in, &oo, want, &got);
  if (!ok && got.st != SKSS_OK) print_error("  error text: %s\n", skss_ctx_last_error(cuda));
  out_free(&got);
  return ok;
}

/* Mode m of the four every case loop rotates through. */
static ks_opts mode_opts(int alg, int m, unsigned where) {
  ks_opts o = {alg, 0, 0, 0, where, 0, 0};
  switch (m % 4) {
    case 0: o.table = 1; break;                                       /* items and table */
    case 1: o.value_only = 1; break;                                  /* value only */
    case 2: o.value_only = 1, o.table = 1, o.taken_vo = 1; break;     /* value only, table, taken passed */
    default: break;                                                   /* items only */
  }
  return o;
}

/* The call's error: status `want`, a message from skss_knapsack() that
 * contains `needle` (NULL: any), and no output written. */
static int expect_error(skss_ctx *cuda, const ks_in *in, const ks_opts *o, skss_status want, const char *needle) {
  char label[384];
  describe(label, sizeof label, in, o);
  ks_out got = out_new(in);
  ks_opts oo = *o;
  if (got.table == NULL) oo.table = 0;
  const skss_status st = solve(cuda, in, &oo, &got);
  const char *msg = skss_ctx_last_error(cuda);
  int ok = 1;
  if (st != want || strstr(msg, "skss_knapsack()") != msg || (needle && strstr(msg, needle) == NULL)) {
    CASE_FAIL("%s: got %s \"%s\", expected %s with \"%s\"", label, skss_status_string(st), msg,
              skss_status_string(want), needle ? needle : "");
    ok = 0;
  } else if (!all_poison(got.best, best_bytes(in) + GUARD) || !all_poison(got.taken, taken_bytes(in) + GUARD) ||
             (oo.table && !all_poison(got.table, table_bytes(in) + GUARD))) {
    CASE_FAIL("%s: %s, yet an output was written", label, skss_status_string(st));
    ok = 0;
  }
  out_free(&got);
  return ok;
}

typedef struct fixture {
  skss_ctx *cuda, *ref;
  tu_rng r;
} fixture;

static int setup(void **state) {
  fixture *f = calloc(1, sizeof *f);
  assert_non_null(f);
  f->cuda = tu_ctx(SKSS_BACKEND_CUDA, 0);
  f->ref = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  *state = f;
  return 0;
}

static int teardown(void **state) {
  fixture *f = *state;
  skss_ctx_destroy(f->cuda);
  skss_ctx_destroy(f->ref);
  free(f);
  return 0;
}

/* Every CUDA algorithm on `in` in mode `m` (rotated per algorithm) and a
 * placement from WHERES; `every` > 1 runs only every `every`-th algorithm
 * of the rotation (`idx` picks which). Returns the number of calls. */
static int run_all_algs(fixture *f, const ks_in *in, const ks_out *want, int idx, int every) {
  int calls = 0;
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg) || (idx + alg) % every != 0) continue;
    ks_opts o = mode_opts(alg, idx + alg, WHERES[(idx * 3 + alg) % N_WHERES]);
    check(f->cuda, in, &o, want);
    calls++;
  }
  return calls;
}

/* ---- tests ---------------------------------------------------------------- */

/* Any CUDA algorithm at all: the other tests need one. */
static void test_algorithms_listed(void **state) {
  (void)state;
  int n = 0;
  for (int alg = SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD; alg <= SKSS_KNAPSACK_ALGORITHM_STRIPS; alg++) {
    if (!skss_algorithm_supported(SKSS_OP_KNAPSACK, alg, SKSS_BACKEND_CUDA))
      CASE_FAIL("%s (%d) is not listed for the CUDA backend", alg_name(alg), alg);
    if (skss_algorithm_supported(SKSS_OP_KNAPSACK, alg, SKSS_BACKEND_CPU) ||
        skss_algorithm_supported(SKSS_OP_KNAPSACK, alg, SKSS_BACKEND_CPU_REF))
      CASE_FAIL("%s (%d) is listed for a CPU backend", alg_name(alg), alg);
    n += cuda_alg(alg);
  }
  assert_true(skss_algorithm_supported(SKSS_OP_KNAPSACK, SKSS_KNAPSACK_ALGORITHM_AUTO, SKSS_BACKEND_CUDA));
  if (n == 0 && getenv("SKSS_KS_ALGS") == NULL) CASE_FAIL("no CUDA knapsack algorithm to test");
  finish("listing");
}

/* The instance classes at awkward sizes: total weights about 2C, below C
 * (C' < C) and with many items heavier than C, rotated over the shapes. */
static void test_classes_and_awkward_sizes(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed());
  static const int64_t SHAPES[][2] = {
      {0, 0},   {0, 7},    {1, 0},     {1, 1},      {1, 33},    {2, 64},    {31, 33},
      {33, 31}, {31, 97},  {64, 257},  {64, 1000},  {33, 4096}, {61, 4093}, /* N_SMALL */
      {97, 257}, {257, 97}, {200, 5003}, {257, 16411}, {1000, 65537}};
  const int n_shapes = small_only() ? 13 : (int)(sizeof SHAPES / sizeof SHAPES[0]);
  int idx = 0, calls = 0;
  for (int s = 0; s < n_shapes; s++)
    for (int kind = 0; kind < TU_KNAPSACK_KINDS; kind++, idx++) {
      const int64_t n = SHAPES[s][0], cap = SHAPES[s][1], nn = n > 0 ? n : 1;
      const int spread = (s + kind) % 3;
      const int64_t range = spread == 0 ? 4 * cap / nn + 1 : spread == 1 ? cap / nn / 2 + 1 : 2 * cap + 2;
      ks_in in = in_random(&f->r, kind, n, range, cap, 1);
      ks_out want = reference(f->ref, &in);
      calls += run_all_algs(f, &in, &want, idx, small_only() ? 5 : 1);
      out_free(&want);
      in_free(&in);
    }
  print_message("%d calls\n", calls);
  finish("class");
}

/* Hand-made edges: zero weights, zero values, items heavier than C, C at,
 * just below and past the total weight (and huge), identical items (ties),
 * an item of weight exactly C, C = 0, a single DP item, weights at powers
 * of two and one off (strip and row boundaries), no items at all. */
static void test_edges(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 1);
  tu_rng *r = &f->r;
  const int small = small_only();
  enum { EDGES = 21 };
  for (int e = 0; e < EDGES; e++) {
    ks_in in;
    switch (e) {
      case 0:
      case 1: /* zero weights only: taken iff v > 0 */
        in = in_new(33, e == 0 ? 0 : 10, 1, "zero weights");
        for (int64_t j = 0; j < in.n; j++) in.v[j] = tu_range(r, 0, 9);
        break;
      case 2: /* zero values only */
        in = in_new(40, 100, 1, "zero values");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = tu_range(r, 1, 20);
        break;
      case 3: /* every item heavier than C */
        in = in_new(31, 10, 1, "all heavier than C");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = tu_range(r, 11, 100), in.v[j] = tu_range(r, 1, 50);
        break;
      case 4:
      case 5:
      case 6:
      case 7: { /* C past (by 1 and 1000), at and just below the total weight */
        in = in_random(r, TU_KNAPSACK_WEAK, 50, 20, 0, 1);
        const int64_t t = total_weight(&in, 0);
        in.cap = e == 4 ? t + 1 : e == 5 ? t + 1000 : e == 6 ? t : t - 1;
        snprintf(in.what, sizeof in.what, "C = total weight %+lld", (long long)(in.cap - t));
        break;
      }
      case 8:
      case 9: /* identical items: ties everywhere */
        in = in_new(e == 8 && !small ? 100 : 64, e == 8 ? 50 : 7 * 20 + 3, 1, "identical items");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = 7, in.v[j] = 9;
        break;
      case 10: /* identical items with zero-weight, zero-value ones among them */
        in = in_new(40, 20, 1, "identical and empty items");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = j % 3 ? 3 : 0, in.v[j] = j % 3 ? 5 : 0;
        break;
      case 11: /* one item of weight exactly C */
        in = in_new(1, 37, 1, "w = C");
        in.w[0] = 37, in.v[0] = 5;
        break;
      case 12: /* one item of weight C + 1 */
        in = in_new(1, 37, 1, "w = C + 1");
        in.w[0] = 38, in.v[0] = 5;
        break;
      case 13: /* two items of weight C and equal value: the later one */
        in = in_new(2, 41, 1, "two ties of weight C");
        in.w[0] = in.w[1] = 41, in.v[0] = in.v[1] = 8;
        break;
      case 14: /* no items */
        in = in_new(0, 100, 1, "no items");
        break;
      case 15: /* C = 0: only zero-weight items with value */
        in = in_new(20, 0, 1, "C = 0");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = j % 2 ? 0 : j, in.v[j] = j % 3;
        break;
      case 16: /* one DP item after the reduction */
        in = in_new(20, 50, 1, "one DP item");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = 51 + j, in.v[j] = 3;
        in.w[11] = 17;
        break;
      case 17: /* huge C: clamped to the total weight (no table of 10^15 entries) */
        in = in_random(r, TU_KNAPSACK_STRONG, small ? 20 : 200, small ? 100 : 1000, BIG_C, 1);
        snprintf(in.what, sizeof in.what, "C = 10^15");
        break;
      case 18: /* unit weights, C' below n */
        in = in_new(33, 31, 1, "unit weights");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = 1, in.v[j] = tu_range(r, 1, 1000);
        break;
      case 19: /* weights multiples of 32 */
        in = in_new(small ? 64 : 97, 32 * 100, 1, "weights 32 k");
        for (int64_t j = 0; j < in.n; j++) in.w[j] = 32 * tu_range(r, 1, 40), in.v[j] = tu_range(r, 1, 500);
        break;
      default: { /* weights at powers of two and one off, up to C */
        const int64_t cap = small ? 4096 : 16411;
        in = in_new(64, cap, 1, "weights 2^k - 1, 2^k, 2^k + 1");
        for (int64_t j = 0; j < in.n; j++) {
          const int64_t p = (int64_t)1 << (j / 3 % 13);
          in.w[j] = p + j % 3 - 1 > 0 ? p + j % 3 - 1 : 1;
          in.v[j] = tu_range(r, 1, 1 << 12);
        }
        break;
      }
    }
    ks_out want = reference(f->ref, &in);
    for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
      if (!cuda_alg(alg)) continue;
      for (int m = 0; m < (small ? 1 : 4); m++) {
        ks_opts o = mode_opts(alg, e + alg + m, WHERES[(e + alg + m) % N_WHERES]);
        check(f->cuda, &in, &o, &want);
      }
    }
    out_free(&want);
    in_free(&in);
  }
  /* No items and NULL arrays (taken may be NULL too). */
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
    d.capacity = 5;
    d.algorithm = (skss_knapsack_algorithm)alg;
    int64_t best = -1, table[7];
    memset(table, POISON, sizeof table);
    d.values_by_capacity = table;
    TU_OK(f->cuda, skss_knapsack(f->cuda, &d, NULL, NULL, &best, NULL));
    int64_t poison;
    memset(&poison, POISON, sizeof poison);
    if (best != 0 || table[0] != 0 || table[5] != 0 || table[6] != poison)
      CASE_FAIL("%s: no items: best %lld, table %lld .. %lld, past it %llx", alg_name(alg), (long long)best,
                (long long)table[0], (long long)table[5], (unsigned long long)table[6]);
  }
  finish("edge");
}

/* Value sums at INT32_MAX (4-byte cells) and one past it (8-byte), near
 * 2^61 and exactly INT64_MAX (8-byte cells, no overflow in the DP), a batch
 * mixing the widths, and sums past INT64_MAX: SKSS_ERR_OVERFLOW, from
 * values in host or device memory, also from an item that never fits and
 * from one instance of a batch. */
static void test_cell_widths(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 2);
  tu_rng *r = &f->r;
  const int small = small_only();
  for (int c = 0; c < 6; c++) {
    ks_in in;
    if (c < 2) { /* values summing to INT32_MAX + c */
      in = in_random(r, TU_KNAPSACK_UNCORRELATED, 40, 500, small ? 4000 : 5000, 1);
      int64_t rest = INT32_MAX + (int64_t)c;
      for (int64_t j = 0; j < in.n; j++) {
        in.v[j] = j == in.n - 1 ? rest : tu_range(r, 1, INT32_MAX / 64);
        rest -= in.v[j];
      }
      snprintf(in.what, sizeof in.what, "values sum to INT32_MAX + %d", c);
    } else if (c < 4) { /* three values near 2^61; then summing to INT64_MAX */
      in = in_random(r, TU_KNAPSACK_WEAK, 3, 100, 150, 1);
      for (int64_t j = 0; j < in.n; j++) in.v[j] = ((int64_t)1 << 61) + tu_range(r, 0, 1000);
      if (c == 3) in.v[0] = INT64_MAX - in.v[1] - in.v[2];
      snprintf(in.what, sizeof in.what, c == 2 ? "values near 2^61" : "values sum to INT64_MAX");
    } else if (c == 4) { /* 64 values in [2^55, 2^56): wide cells over many rows */
      in = in_random(r, TU_KNAPSACK_UNCORRELATED, 64, 100, 3000, 1);
      for (int64_t j = 0; j < in.n; j++) in.v[j] = ((int64_t)1 << 55) + tu_range(r, 0, ((int64_t)1 << 55) - 1);
      snprintf(in.what, sizeof in.what, "values near 2^55");
    } else { /* a batch: narrow, past INT32_MAX, near 2^61 */
      in = in_random(r, TU_KNAPSACK_UNCORRELATED, 5, 400, 1000, 3);
      for (int64_t j = 0; j < in.n; j++) {
        in.v[in.n + j] = INT32_MAX / 4 + j;
        in.v[2 * in.n + j] = ((int64_t)1 << 60) + tu_range(r, 0, 1 << 20);
      }
      snprintf(in.what, sizeof in.what, "batch of cell widths");
    }
    ks_out want = reference(f->ref, &in);
    for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
      if (!cuda_alg(alg)) continue;
      for (int m = 0; m < 4; m++) {
        if (small && (c + alg + m) % 2) continue; /* two modes under SKSS_TEST_SMALL */
        ks_opts o = mode_opts(alg, m, WHERES[(c + alg + m) % N_WHERES]);
        check(f->cuda, &in, &o, &want);
      }
    }
    out_free(&want);
    in_free(&in);
  }
  /* Overflow. */
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    ks_in in = in_new(3, 10, 1, "values sum past INT64_MAX");
    in.w[0] = 1, in.w[1] = 2, in.w[2] = 3;
    in.v[0] = INT64_MAX - 5, in.v[1] = 5, in.v[2] = 1;
    for (int m = 0; m < 4; m++) {
      ks_opts o = mode_opts(alg, m, WHERES[m % 2 ? 1 : 2]);
      in.w[2] = m < 2 ? 3 : 100; /* an item that can never be taken counts too */
      expect_error(f->cuda, &in, &o, SKSS_ERR_OVERFLOW, "overflow");
    }
    in_free(&in);
    in = in_new(2, 10, 4, "instance 2 of 4 overflows");
    for (int64_t j = 0; j < 8; j++) in.w[j] = 1 + j, in.v[j] = 1 + j;
    in.v[4] = INT64_MAX - 3;
    in.v[5] = 4;
    ks_opts o = mode_opts(alg, 0, WHERES[alg % 2]);
    expect_error(f->cuda, &in, &o, SKSS_ERR_OVERFLOW, "overflow");
    in_free(&in);
  }
  finish("cell width");
}

/* values_by_capacity where C' < C (entries past the total weight hold the
 * optimum of all items), in a batch whose instances reduce to different
 * C' (one to no DP items at all), with and without the items. */
static void test_values_by_capacity(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 3);
  tu_rng *r = &f->r;
  for (int c = 0; c < 2; c++) {
    ks_in in;
    if (c == 0) {
      in = in_random(r, TU_KNAPSACK_STRONG, 30, 50, 0, 1);
      in.cap = total_weight(&in, 0) + 100;
      snprintf(in.what, sizeof in.what, "C = total weight + 100");
    } else {
      in = in_new(small_only() ? 16 : 40, 3000, 3, "batch of C' = ~20 n, 3000, 0");
      for (int64_t j = 0; j < in.n; j++) {
        in.w[j] = tu_range(r, 1, 40), in.v[j] = tu_range(r, 1, 100);
        in.w[in.n + j] = tu_range(r, 100, 400), in.v[in.n + j] = tu_range(r, 1, 100);
        in.w[2 * in.n + j] = tu_range(r, 0, 400), in.v[2 * in.n + j] = 0;
      }
    }
    ks_out want = reference(f->ref, &in);
    for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
      if (!cuda_alg(alg)) continue;
      const int modes[3] = {0, 2, 0};
      for (int m = 0; m < 3; m++) {
        ks_opts o = mode_opts(alg, modes[m], WHERES[(c + alg + m) % N_WHERES]);
        if (m == 2) o.where = ALL_DEVICE;
        check(f->cuda, &in, &o, &want);
      }
    }
    out_free(&want);
    in_free(&in);
  }
  finish("values_by_capacity");
}

/* Batches of 1, 2 and 37 (under SKSS_TEST_SMALL 4) different instances:
 * every class, some reducing to no DP items (all values 0, or all heavier
 * than C), some with C' < C; items and table, value only with the table,
 * items only, rotated placements; each instance of the 37 also equals a
 * call of its own; instances = 0 and a desc from before the batch fields
 * mean one; a batch of instances without items. */
static void test_batches(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 4);
  tu_rng *r = &f->r;
  const int small = small_only();
  const int64_t counts[3] = {1, 2, small ? 4 : 37};
  for (int ci = 0; ci < 3; ci++) {
    const int64_t count = counts[ci], n = small ? 33 + 31 * (ci % 2) : 64 + 33 * ci;
    const int64_t cap = tu_range(r, small ? 100 : 1000, small ? 1000 : 3000);
    ks_in in = in_random(r, -1, n, 2 * cap / n * 2 + 2, cap, count);
    for (int64_t k = 0; k < count; k++) {
      if (k % 5 == 3) /* no DP items: zero values */
        for (int64_t j = 0; j < n; j++) in.v[k * n + j] = 0;
      if (k % 7 == 4) /* no DP items: all heavier than C */
        for (int64_t j = 0; j < n; j++) in.w[k * n + j] = cap + 1 + j;
      if (k % 6 == 1) /* C' < C */
        for (int64_t j = 0; j < n; j++) in.w[k * n + j] = 1 + j % 5;
    }
    snprintf(in.what, sizeof in.what, "batch of mixed instances");
    ks_out want = reference(f->ref, &in);
    for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
      if (!cuda_alg(alg)) continue;
      const int modes[3] = {0, 2, 3};
      for (int m = 0; m < 3; m++) {
        ks_opts o = mode_opts(alg, modes[m], WHERES[(ci + alg + m) % N_WHERES]);
        check(f->cuda, &in, &o, &want);
      }
      if (count > 30 && !small) { /* instance 5 alone, on the CUDA backend */
        ks_in one = in_new(n, cap, 1, "instance 5 alone");
        memcpy(one.w, in.w + 5 * n, (size_t)n * sizeof(int64_t));
        memcpy(one.v, in.v + 5 * n, (size_t)n * sizeof(int64_t));
        ks_out alone = out_new(&one);
        alone.best[0] = want.best[5];
        memcpy(alone.taken, want.taken + 5 * n, (size_t)n);
        memcpy(alone.table, want.table + 5 * (cap + 1), (size_t)(cap + 1) * sizeof(int64_t));
        ks_opts o = mode_opts(alg, 0, ALL_DEVICE);
        check(f->cuda, &one, &o, &alone);
        out_free(&alone);
        in_free(&one);
      }
    }
    out_free(&want);
    in_free(&in);
  }
  /* instances = 0 and a desc from before `instances`: one instance */
  ks_in in = in_random(r, TU_KNAPSACK_WEAK, 20, 30, -1, 1);
  ks_out want = reference(f->ref, &in);
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    for (int legacy = 1; legacy <= 2; legacy++) {
      ks_opts o = mode_opts(alg, 0, WHERES[alg % N_WHERES]);
      o.legacy = legacy;
      check(f->cuda, &in, &o, &want);
    }
  }
  out_free(&want);
  in_free(&in);
  /* a batch without items: optimum 0, table of zeros */
  in = in_new(0, 17, small ? 3 : 37, "batch without items");
  want = reference(f->ref, &in);
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    ks_opts o = mode_opts(alg, alg, WHERES[alg % N_WHERES]);
    check(f->cuda, &in, &o, &want);
  }
  out_free(&want);
  in_free(&in);
  finish("batch");
}

/* Each buffer on the host or the device, every combination (under
 * SKSS_TEST_SMALL eight a algorithm), and managed and pinned memory, for a
 * batch of three with the items and the table, and value only. */
static void test_pointer_placements(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 5);
  const int small = small_only();
  ks_in in = in_random(&f->r, -1, small ? 61 : 97, 60, small ? 1031 : 1031, 3);
  ks_out want = reference(f->ref, &in);
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    for (unsigned combo = 0; combo < 32; combo++) {
      if (small && (combo + (unsigned)alg) % 4 != 0) continue;
      unsigned where = 0;
      for (int b = 0; b < BUFS; b++)
        if ((combo >> b) & 1u) where |= PL(b, DEVICE);
      ks_opts o = mode_opts(alg, combo % 8 == 5 ? 2 : 0, where);
      check(f->cuda, &in, &o, &want);
    }
    for (int k = 6; k < N_WHERES; k++) { /* managed and pinned */
      ks_opts o = mode_opts(alg, k, WHERES[k]);
      check(f->cuda, &in, &o, &want);
    }
  }
  out_free(&want);
  in_free(&in);
  finish("placement");
}

/* The number after `key` in the context's last error, -1 if none. */
static int64_t number_after(skss_ctx *ctx, const char *key) {
  const char *msg = strstr(skss_ctx_last_error(ctx), key);
  return msg ? strtoll(msg + strlen(key), NULL, 10) : -1;
}

/* The memory limit: the paper's algorithms keep the whole value table
 * ((n' + 1)(C' + 1) cells of 4 bytes, 8 past INT32_MAX) and fail with
 * SKSS_ERR_OUT_OF_MEMORY and a message below it, writing nothing, and the
 * context works after; strips fits in far less. With max_bytes = 1 every
 * algorithm fails and says what it needs; strips, below the need of all
 * its decision bits, reconstructs the same items from checkpoints. */
static void test_memory_limit(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 6);
  tu_rng *r = &f->r;
  const int small = small_only();
  /* n' = n, C' = C: weights in [1, 40], total ~ 4C */
  const int64_t n = small ? 64 : 256, cap = small ? 4000 : 16411;
  for (int wide = 0; wide < 2; wide++) {
    ks_in in = in_random(r, TU_KNAPSACK_UNCORRELATED, n, 4 * 2 * cap / n, cap, 1);
    if (wide) in.v[0] = INT32_MAX; /* 8-byte cells */
    snprintf(in.what, sizeof in.what, "%d-byte cells", wide ? 8 : 4);
    const int64_t cell = wide ? 8 : 4, table = (n + 1) * (cap + 1) * cell;
    ks_out want = reference(f->ref, &in);
    for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
      if (!cuda_alg(alg)) continue;
      /* for the wide cells: room for the table of 4-byte cells, not of 8 */
      ks_opts o = mode_opts(alg, 0, WHERES[alg % N_WHERES]);
      o.max_bytes = wide ? table * 5 / 8 : table / 2;
      if (keeps_table(alg)) {
        expect_error(f->cuda, &in, &o, SKSS_ERR_OUT_OF_MEMORY, "max_bytes");
        /* value only: the table still, or less memory, but never a wrong answer */
        o.value_only = 1;
        ks_out got = out_new(&in);
        if (solve(f->cuda, &in, &o, &got) != SKSS_ERR_OUT_OF_MEMORY) compare(&in, &o, &want, &got);
        else if (strstr(skss_ctx_last_error(f->cuda), "skss_knapsack()") == NULL)
          CASE_FAIL("%s value only: OUT_OF_MEMORY without a message: \"%s\"", alg_name(alg),
                    skss_ctx_last_error(f->cuda));
        out_free(&got);
        o.value_only = 0;
        o.max_bytes = 0; /* the context works after a refusal */
        check(f->cuda, &in, &o, &want);
      } else {
        check(f->cuda, &in, &o, &want); /* strips: far less than the table */
      }
      o.max_bytes = 1;
      if (expect_error(f->cuda, &in, &o, SKSS_ERR_OUT_OF_MEMORY, "needs ") &&
          number_after(f->cuda, "needs ") <= 1)
        CASE_FAIL("%s: max_bytes = 1: no need in \"%s\"", alg_name(alg), skss_ctx_last_error(f->cuda));
    }
    out_free(&want);
    in_free(&in);
  }
  /* strips from checkpoints: n' large enough that checkpoint rows pay
   * (header: (3 + log2 n') R + (C' + 1) / 8 bytes at least against
   * n' (C' + 1) / 8 of bits); the limits just below all the bits' need, the
   * least, and between; with the items only, with the table, device buffers. */
  if (cuda_alg(SKSS_KNAPSACK_ALGORITHM_STRIPS)) {
    const int64_t shapes[3][3] = {{1000, 1000, 1}, {2000, 20000, 1}, {1200, 3000, 3}}; /* n, C, count */
    for (int s = 0; s < (small ? 1 : 3); s++) {
      ks_in in = in_random(r, s == 2 ? -1 : (int)TU_KNAPSACK_UNCORRELATED, shapes[s][0], 2 * 2 * shapes[s][1] / shapes[s][0],
                           shapes[s][1], shapes[s][2]);
      ks_out want = reference(f->ref, &in);
      ks_opts o = mode_opts(SKSS_KNAPSACK_ALGORITHM_STRIPS, 3, 0);
      o.max_bytes = 1;
      expect_error(f->cuda, &in, &o, SKSS_ERR_OUT_OF_MEMORY, "needs ");
      const int64_t need = number_after(f->cuda, "needs "), least = number_after(f->cuda, "or at least ");
      const int64_t bits = in.n * (in.cap + 1) / 8 * in.count; /* at most: n' <= n */
      if (need <= 1 || least <= 0 || least >= need || (in.count == 1 && least >= bits)) {
        CASE_FAIL("strips %s, n %lld C %lld x%lld: needs %lld, or at least %lld, for %lld bytes of "
                  "decision bits: no checkpoint path? \"%s\"", in.what, (long long)in.n, (long long)in.cap,
                  (long long)in.count, (long long)need, (long long)least, (long long)bits,
                  skss_ctx_last_error(f->cuda));
      } else {
        /* each mode and placement asks its own need first: a host table is
         * staged through a device row, a device one is not */
        for (int t = 0; t < 3; t++) {
          o = mode_opts(SKSS_KNAPSACK_ALGORITHM_STRIPS, t == 1 ? 0 : 3, t == 2 ? ALL_DEVICE : WHERES[t]);
          o.max_bytes = 1;
          expect_error(f->cuda, &in, &o, SKSS_ERR_OUT_OF_MEMORY, "needs ");
          const int64_t need_t = number_after(f->cuda, "needs "), least_t = number_after(f->cuda, "or at least ");
          const int64_t limits[3] = {need_t - 1, least_t, least_t + (need_t - least_t) / 7};
          o.max_bytes = limits[t];
          check(f->cuda, &in, &o, &want);
          if (t == 2) o.max_bytes = least_t - 1;
        }
        expect_error(f->cuda, &in, &o, SKSS_ERR_OUT_OF_MEMORY, "max_bytes");
      }
      out_free(&want);
      in_free(&in);
    }
  }
  finish("memory limit");
}

/* Misuse on the CUDA backend: the CPU algorithms, an unknown one, negative
 * values and weights in device memory, a table overlapping a device buffer
 * or overflowing size_t, and a huge C' whose memory cannot exist. */
static void test_misuse(void **state) {
  fixture *f = *state;
  ks_in in = in_new(3, 5, 1, "misuse");
  for (int64_t j = 0; j < 3; j++) in.w[j] = j + 1, in.v[j] = j + 1;
  ks_opts o = mode_opts(SKSS_KNAPSACK_ALGORITHM_DP, 3, ALL_DEVICE);
  expect_error(f->cuda, &in, &o, SKSS_ERR_UNSUPPORTED, "dp");
  o.alg = SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU;
  expect_error(f->cuda, &in, &o, SKSS_ERR_UNSUPPORTED, "taskarray-cpu");
  o.alg = 99;
  expect_error(f->cuda, &in, &o, SKSS_ERR_INVALID_ARG, "unknown knapsack algorithm");
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    o = mode_opts(alg, 0, ALL_DEVICE);
    in.v[1] = -7;
    expect_error(f->cuda, &in, &o, SKSS_ERR_INVALID_ARG, "item 1 has value -7");
    in.v[1] = 2;
    in.w[2] = -4;
    o.where = PL(B_W, DEVICE);
    expect_error(f->cuda, &in, &o, SKSS_ERR_INVALID_ARG, "item 2 has weight -4");
    in.w[2] = 3;
    /* CUDA algorithms are not the CPU backends' */
    skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
    d.n_items = 3;
    d.capacity = 5;
    d.algorithm = (skss_knapsack_algorithm)alg;
    int64_t best = -1;
    uint8_t taken[3];
    if (skss_knapsack(f->ref, &d, in.w, in.v, &best, taken) != SKSS_ERR_UNSUPPORTED || best != -1)
      CASE_FAIL("%s on cpu-ref: not refused", alg_name(alg));
    /* a table overlapping the device weights */
    int64_t *dw = place_alloc(DEVICE, 64 * sizeof(int64_t)), *dv = place_alloc(DEVICE, 64 * sizeof(int64_t));
    place_put(DEVICE, dw, in.w, 3 * sizeof(int64_t));
    place_put(DEVICE, dv, in.v, 3 * sizeof(int64_t));
    d.values_by_capacity = dw + 1;
    best = -1;
    if (skss_knapsack(f->cuda, &d, dw, dv, &best, taken) != SKSS_ERR_INVALID_ARG ||
        strstr(skss_ctx_last_error(f->cuda), "overlaps") == NULL || best != -1)
      CASE_FAIL("%s: a table overlapping the device weights: \"%s\"", alg_name(alg), skss_ctx_last_error(f->cuda));
    d.values_by_capacity = dw + 8;
    d.capacity = INT64_MAX;
    best = -1;
    if (skss_knapsack(f->cuda, &d, dw, dv, &best, taken) != SKSS_ERR_OVERFLOW || best != -1)
      CASE_FAIL("%s: a table of INT64_MAX + 1 entries: \"%s\"", alg_name(alg), skss_ctx_last_error(f->cuda));
    place_free(DEVICE, dw);
    place_free(DEVICE, dv);
    /* C' ~ 10^15: no memory can hold it, in either mode */
    ks_in huge = in_new(3, BIG_C, 1, "C' = 10^15");
    huge.w[0] = BIG_C / 4, huge.w[1] = BIG_C / 2, huge.w[2] = BIG_C / 3;
    huge.v[0] = 1, huge.v[1] = 2, huge.v[2] = 3;
    o = mode_opts(alg, 3, alg % 2 ? ALL_DEVICE : 0);
    expect_error(f->cuda, &huge, &o, SKSS_ERR_OUT_OF_MEMORY, NULL);
    o = mode_opts(alg, 1, 0);
    o.max_bytes = INT64_MAX;
    expect_error(f->cuda, &huge, &o, SKSS_ERR_OUT_OF_MEMORY, NULL);
    in_free(&huge);
    /* and the context still works */
    ks_out want = reference(f->ref, &in);
    o = mode_opts(alg, 0, ALL_DEVICE);
    check(f->cuda, &in, &o, &want);
    out_free(&want);
  }
  in_free(&in);
  finish("misuse");
}

/* A caller's non-blocking stream: the call returns with the results in
 * place, so a copy on another non-blocking stream (ordered after nothing)
 * reads them; AUTO runs strips. */
static void test_callers_stream(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 7);
  cudaStream_t stream, other;
  assert_int_equal(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  assert_int_equal(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), cudaSuccess);
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CUDA;
  cd.cuda_stream = stream;
  skss_ctx *cuda = NULL;
  assert_int_equal(skss_ctx_create(&cd, &cuda), SKSS_OK);
  assert_int_equal(skss_ctx_op_backend(cuda, SKSS_OP_KNAPSACK), SKSS_BACKEND_CUDA);
  const int small = small_only();
  ks_in in = in_random(&f->r, TU_KNAPSACK_STRONG, small ? 64 : 512, small ? 120 : 200, small ? 4096 : 30011, small ? 2 : 3);
  ks_out want = reference(f->ref, &in);
  const size_t items = (size_t)(in.n * in.count) * sizeof(int64_t);
  int64_t *dw = place_alloc(DEVICE, items), *dv = place_alloc(DEVICE, items);
  int64_t *dbest = place_alloc(DEVICE, best_bytes(&in)), *dtable = place_alloc(DEVICE, table_bytes(&in));
  uint8_t *dtaken = place_alloc(DEVICE, taken_bytes(&in));
  place_put(DEVICE, dw, in.w, items);
  place_put(DEVICE, dv, in.v, items);
  ks_out got = out_new(&in);
  for (int alg = 0; alg <= LAST_ALG; alg++) {
    if (alg != SKSS_KNAPSACK_ALGORITHM_AUTO && !cuda_alg(alg)) continue;
    for (int rep = 0; rep < 2; rep++) {
      assert_int_equal(cudaMemsetAsync(dbest, POISON, best_bytes(&in), stream), cudaSuccess);
      assert_int_equal(cudaMemsetAsync(dtaken, POISON, taken_bytes(&in), stream), cudaSuccess);
      assert_int_equal(cudaMemsetAsync(dtable, POISON, table_bytes(&in), stream), cudaSuccess);
      skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
      d.n_items = in.n;
      d.capacity = in.cap;
      d.algorithm = (skss_knapsack_algorithm)alg;
      d.values_by_capacity = dtable;
      d.instances = in.count;
      skss_status st = skss_knapsack(cuda, &d, dw, dv, dbest, dtaken);
      cudaMemcpyAsync(got.best, dbest, best_bytes(&in), cudaMemcpyDeviceToHost, other);
      cudaMemcpyAsync(got.taken, dtaken, taken_bytes(&in), cudaMemcpyDeviceToHost, other);
      cudaMemcpyAsync(got.table, dtable, table_bytes(&in), cudaMemcpyDeviceToHost, other);
      assert_int_equal(cudaStreamSynchronize(other), cudaSuccess);
      memset(got.best + in.count, POISON, GUARD);
      memset(got.taken + taken_bytes(&in), POISON, GUARD);
      memset((uint8_t *)got.table + table_bytes(&in), POISON, GUARD);
      got.st = st;
      ks_opts o = mode_opts(alg, 0, ALL_DEVICE);
      if (!compare(&in, &o, &want, &got)) print_error("  on a caller's non-blocking stream: %s\n", skss_ctx_last_error(cuda));
    }
  }
  TU_OK(cuda, skss_ctx_synchronize(cuda));
  out_free(&got);
  place_free(DEVICE, dw);
  place_free(DEVICE, dv);
  place_free(DEVICE, dbest);
  place_free(DEVICE, dtable);
  place_free(DEVICE, dtaken);
  out_free(&want);
  in_free(&in);
  skss_ctx_destroy(cuda);
  cudaStreamDestroy(stream);
  cudaStreamDestroy(other);
  finish("caller's stream");
}

/* Far more 32-capacity rows (skss: C = 2^20, n = 64: 32K rows an item) and
 * strips (strips: C = 2^22) than resident warps and blocks, and batches of
 * many instances, repeated: the same results every time (tickets and
 * flags must neither deadlock nor run a task twice). Under
 * SKSS_TEST_SMALL: C = 4096, n = 64, a batch of 4, three times. */
static void test_stress_many_rows_and_strips(void **state) {
  fixture *f = *state;
  tu_rng_init(&f->r, tu_seed() + 8);
  tu_rng *r = &f->r;
  const int small = small_only(), reps = small ? 3 : 20;
  const int algs[2] = {SKSS_KNAPSACK_ALGORITHM_SKSS, SKSS_KNAPSACK_ALGORITHM_STRIPS};
  for (int a = 0; a < 2; a++) {
    if (!cuda_alg(algs[a])) continue;
    for (int c = 0; c < 2; c++) {
      ks_in in;
      if (c == 0) { /* one instance, C' = C */
        const int64_t n = small ? 64 : a == 0 ? 64 : 96;
        const int64_t cap = small ? 4096 : a == 0 ? (int64_t)1 << 20 : ((int64_t)1 << 22) + 13;
        in = in_new(n, cap, 1, "stress: one wide instance");
        for (int64_t j = 0; j < n; j++) {
          in.w[j] = tu_range(r, 2 * cap / n, 4 * cap / n); /* total 2C .. 4C */
          in.v[j] = tu_range(r, 1, 1 << 16);
        }
      } else { /* a batch of many instances */
        in = in_random(r, -1, small ? 32 : 48, small ? 100 : 2000, small ? 1000 : (int64_t)1 << 16, small ? 4 : 37);
        snprintf(in.what, sizeof in.what, "stress: a batch");
      }
      ks_out want = reference(f->ref, &in);
      double t0 = now_ms();
      int bad = 0;
      for (int rep = 0; rep < reps; rep++) {
        ks_opts o = mode_opts(algs[a], rep % 2 ? 2 : 0, rep % 3 ? ALL_DEVICE : 0);
        if (rep % 4 == 3) o.table = 0;
        bad += !check(f->cuda, &in, &o, &want);
      }
      print_message("%s %s n %lld C %lld x%lld: %d runs, %.1f ms each, %d differ\n", alg_name(algs[a]), in.what,
                    (long long)in.n, (long long)in.cap, (long long)in.count, reps, (now_ms() - t0) / reps, bad);
      out_free(&want);
      in_free(&in);
    }
  }
  finish("stress");
}

/* The SKSS paper's Table I class: n = 4095, C = 65535, values uniform below
 * 4096, weights uniform in [1, 4C / 4096]; every algorithm with the items
 * (and value only), device buffers, timed (the first call includes its
 * arena's allocation). */
static void test_table_one_class(void **state) {
  fixture *f = *state;
  if (small_only()) skip();
  tu_rng_init(&f->r, tu_seed() + 9);
  const int64_t n = 4095, cap = 65535;
  ks_in in = in_new(n, cap, 1, "Table I class");
  for (int64_t j = 0; j < n; j++) in.w[j] = tu_range(&f->r, 1, 4 * cap / 4096), in.v[j] = tu_range(&f->r, 0, 4095);
  double t0 = now_ms();
  ks_out want = reference(f->ref, &in);
  print_message("cpu-ref: %.1f ms (optimum %lld)\n", now_ms() - t0, (long long)want.best[0]);
  for (int alg = FIRST_CUDA_ALG; alg <= LAST_ALG; alg++) {
    if (!cuda_alg(alg)) continue;
    for (int m = 0; m < 2; m++) {
      ks_opts o = mode_opts(alg, m ? 1 : 3, ALL_DEVICE);
      double best_ms = 1e30;
      for (int rep = 0; rep < 3; rep++) {
        t0 = now_ms();
        check(f->cuda, &in, &o, &want);
        const double ms = now_ms() - t0;
        if (ms < best_ms) best_ms = ms;
      }
      print_message("%-16s %s: %8.2f ms (with copies)\n", alg_name(alg), m ? "value only" : "items     ", best_ms);
    }
  }
  out_free(&want);
  in_free(&in);
  finish("Table I");
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_algorithms_listed),
      cmocka_unit_test_setup_teardown(test_classes_and_awkward_sizes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_edges, setup, teardown),
      cmocka_unit_test_setup_teardown(test_cell_widths, setup, teardown),
      cmocka_unit_test_setup_teardown(test_values_by_capacity, setup, teardown),
      cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
      cmocka_unit_test_setup_teardown(test_pointer_placements, setup, teardown),
      cmocka_unit_test_setup_teardown(test_memory_limit, setup, teardown),
      cmocka_unit_test_setup_teardown(test_misuse, setup, teardown),
      cmocka_unit_test_setup_teardown(test_callers_stream, setup, teardown),
      cmocka_unit_test_setup_teardown(test_stress_many_rows_and_strips, setup, teardown),
      cmocka_unit_test_setup_teardown(test_table_one_class, setup, teardown),
  };
  /* SKSS_TEST_ONLY=PATTERN: the tests whose names match */
  const char *only = getenv("SKSS_TEST_ONLY");
  if (only != NULL && only[0] != '\0') cmocka_set_test_filter(only);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
