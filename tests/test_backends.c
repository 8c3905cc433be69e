/*
 * test_backends.c — one table-driven harness for every backend, after
 * ggml's test-backend-ops: each (primitive, algorithm, backend) that
 * skss_algorithm_supported() lists runs the same seeded cases and is
 * compared with the cpu-ref backend's AUTO result, computed once per case
 * (the per-primitive tests check cpu-ref itself against independent
 * oracles). Bytes and integers must be identical, SAT floats within the
 * bound skss.h states for the algorithm; outputs start poisoned, and
 * padding and unrequested outputs must stay so. A new kernel is tested by
 * being listed in the name table. Contexts: cpu-ref; CPU of 1, 2, 3 and 5
 * threads and one limited to the portable code (each on every small case,
 * in turn on large ones); CUDA, host pointers, every case, where present.
 * SKSS_TEST_BACKENDS=cpu-ref,cpu,cuda picks backends (none available: exit
 * 77), SKSS_TEST_SMALL=1 keeps the small cases, SKSS_TEST_ONLY=PATTERN the
 * tests whose names match, SKSS_TEST_SEED the seed.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define POISON 0xA5
#define MAX_ALGORITHM 64
#define SMALL_WORK 20000 /* elements (or DP cells / 64) up to which a case is small */

/* ---- contexts ----------------------------------------------------------- */

typedef struct target {
  skss_backend backend;
  int threads;
  bool portable; /* made with SKSS_CPU_ISA=scalar: the CPU's SIMD paths off */
  skss_ctx *ctx; /* NULL when the backend is not run */
} target;

static target TARGETS[] = {
    {SKSS_BACKEND_CPU_REF, 1, false, NULL}, {SKSS_BACKEND_CPU, 1, false, NULL},
    {SKSS_BACKEND_CPU, 2, false, NULL},     {SKSS_BACKEND_CPU, 3, false, NULL},
    {SKSS_BACKEND_CPU, 5, false, NULL},     {SKSS_BACKEND_CPU, 2, true, NULL},
    {SKSS_BACKEND_CUDA, 0, false, NULL},
};
#define N_TARGETS ((int)(sizeof TARGETS / sizeof TARGETS[0]))
#define N_HOST_TARGETS 6 /* the first ones: cpu-ref and CPU */

static skss_ctx *ORACLE; /* cpu-ref with AUTO: the expected results */

/* Runs per (primitive, algorithm, backend), to show that each listed one ran. */
static int RUNS[4][MAX_ALGORITHM][SKSS_BACKEND_CUDA + 1];

/* The case being run, for failure messages. */
static char CASE[200];

static bool small_only(void) {
  const char *v = getenv("SKSS_TEST_SMALL");
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static bool backend_wanted(skss_backend b) {
  const char *list = getenv("SKSS_TEST_BACKENDS");
  if (list == NULL || list[0] == '\0') return true;
  const char *name = skss_backend_name(b);
  size_t len = strlen(name);
  for (const char *p = list; (p = strstr(p, name)) != NULL; p += len)
    if ((p == list || p[-1] == ',') && (p[len] == '\0' || p[len] == ',')) return true;
  return false;
}

static int setup(void **state) {
  (void)state;
  ORACLE = tu_ctx(SKSS_BACKEND_CPU_REF, 1);
  for (int t = 0; t < N_TARGETS; t++) {
    target *tg = &TARGETS[t];
    if (!backend_wanted(tg->backend) || !skss_backend_available(tg->backend)) continue;
    if (tg->portable) setenv("SKSS_CPU_ISA", "scalar", 1); /* read at creation */
    tg->ctx = tu_ctx(tg->backend, tg->threads);
    unsetenv("SKSS_CPU_ISA");
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int t = 0; t < N_TARGETS; t++) skss_ctx_destroy(TARGETS[t].ctx);
  skss_ctx_destroy(ORACLE);
  return 0;
}

/* CUDA runs every case; the host targets every small case and, in turn,
 * one large case each. */
static bool target_runs(int t, int index, int64_t work) {
  if (TARGETS[t].ctx == NULL) return false;
  if (TARGETS[t].backend == SKSS_BACKEND_CUDA || work <= SMALL_WORK) return true;
  return t == index % N_HOST_TARGETS;
}

typedef void (*run_fn)(void *c, const target *t, int algorithm);

/* Runs `run` for every algorithm of `op` on every target that has it. */
static void for_each_candidate(skss_op op, int index, int64_t work, run_fn run, void *c) {
  for (int t = 0; t < N_TARGETS; t++) {
    if (!target_runs(t, index, work)) continue;
    for (int alg = 0; alg < MAX_ALGORITHM; alg++) {
      if (skss_algorithm_name(op, alg) == NULL ||
          !skss_algorithm_supported(op, alg, TARGETS[t].backend))
        continue;
      run(c, &TARGETS[t], alg);
      RUNS[op][alg][TARGETS[t].backend]++;
    }
  }
}

/* Fails unless every algorithm that a run backend lists ran at least once. */
static void expect_every_algorithm_ran(skss_op op) {
  for (int t = 0; t < N_TARGETS; t++) {
    if (TARGETS[t].ctx == NULL) continue;
    const skss_backend b = TARGETS[t].backend;
    for (int alg = 0; alg < MAX_ALGORITHM; alg++)
      if (skss_algorithm_name(op, alg) != NULL && skss_algorithm_supported(op, alg, b) &&
          RUNS[op][alg][b] == 0)
        TU_FAIL("%s on %s is listed but no case ran it", skss_algorithm_name(op, alg),
                skss_backend_name(b));
  }
}

/* "sat 2r2w-cpu on cpu x3" */
static const char *who(skss_op op, const target *t, int alg, char *buf, size_t len) {
  static const char *const ops[] = {"sat", "halftone", "knapsack", "compact"};
  char threads[32] = "";
  if (t->backend == SKSS_BACKEND_CPU)
    snprintf(threads, sizeof threads, " x%d%s", skss_ctx_threads(t->ctx), t->portable ? " portable" : "");
  snprintf(buf, len, "%s %s on %s%s", ops[op], skss_algorithm_name(op, alg),
           skss_backend_name(t->backend), threads);
  return buf;
}

#define FAIL_RUN(op, t, alg, ...)                                                   \
  do {                                                                            \
    char who_[96];                                                                \
    print_error("%s, %s: ", who(op, t, alg, who_, sizeof who_), CASE);            \
    TU_FAIL(__VA_ARGS__);                                                         \
  } while (0)

#define RUN_OK(op, t, alg, call)                                                  \
  do {                                                                            \
    skss_status st_ = (call);                                                     \
    if (st_ != SKSS_OK)                                                           \
      FAIL_RUN(op, t, alg, "%s: %s", skss_status_string(st_),                     \
               skss_ctx_last_error((t)->ctx));                                    \
  } while (0)

static uint8_t *poisoned(size_t bytes) {
  uint8_t *p = malloc(bytes + 1);
  assert_non_null(p);
  memset(p, POISON, bytes + 1);
  return p;
}

static bool all_poison(const uint8_t *p, size_t bytes) {
  for (size_t k = 0; k < bytes; k++)
    if (p[k] != POISON) return false;
  return true;
}

/* The first byte where a and b differ (bytes if none). */
static size_t first_difference(const uint8_t *a, const uint8_t *b, size_t bytes) {
  size_t k = 0;
  while (k < bytes && a[k] == b[k]) k++;
  return k;
}

/* ---- summed-area tables -------------------------------------------------- */

typedef struct sat_pair {
  skss_dtype in, out;
} sat_pair;

static const sat_pair SAT_PAIRS[] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_U32},  {SKSS_DTYPE_U8, SKSS_DTYPE_I32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F32},  {SKSS_DTYPE_U8, SKSS_DTYPE_F64},
    {SKSS_DTYPE_I32, SKSS_DTYPE_I32}, {SKSS_DTYPE_U32, SKSS_DTYPE_U32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32}, {SKSS_DTYPE_F32, SKSS_DTYPE_F64},
    {SKSS_DTYPE_F64, SKSS_DTYPE_F64},
};
#define N_SAT_PAIRS ((int)(sizeof SAT_PAIRS / sizeof SAT_PAIRS[0]))

/* One output table (plain or squared) of a SAT case. */
typedef struct sat_table {
  size_t pitch;
  uint8_t *want;            /* cpu-ref's, padding poisoned */
  long double *exact, *abs; /* float outputs: the exact sums and S(i, j), h x w */
} sat_table;

typedef struct sat_case {
  sat_pair pr;
  int64_t h, w, pad; /* pad: 1 for the PADDED layout */
  skss_sat_layout layout;
  bool squared;
  size_t in_pitch;
  uint8_t *in;
  sat_table plain, sq;
} sat_case;

/* Integers cover their whole range (sums wrap); floats mix signs and magnitudes. */
static void sat_fill(tu_rng *r, sat_case *c) {
  const size_t ie = skss_dtype_size(c->pr.in);
  tu_fill_bytes(r, c->in, (size_t)c->h * c->in_pitch);
  for (int64_t i = 0; i < c->h; i++)
    for (int64_t j = 0; j < c->w; j++) {
      uint8_t *p = c->in + (size_t)i * c->in_pitch + (size_t)j * ie;
      double f = (tu_unit(r) * 2 - 1) * ldexp(1.0, (int)tu_range(r, -6, 6));
      if (c->pr.in == SKSS_DTYPE_F32) {
        float v = (float)f;
        memcpy(p, &v, 4);
      } else if (c->pr.in == SKSS_DTYPE_F64) {
        memcpy(p, &f, 8);
      }
    }
}

static void sat_exact(const sat_case *c, sat_table *t, bool squared) {
  const size_t n = (size_t)(c->h * c->w) + 1, ie = skss_dtype_size(c->pr.in);
  t->exact = calloc(n, sizeof *t->exact);
  t->abs = calloc(n, sizeof *t->abs);
  assert_true(t->exact != NULL && t->abs != NULL);
  for (int64_t i = 0; i < c->h; i++) {
    long double row = 0, abs_row = 0;
    for (int64_t j = 0; j < c->w; j++) {
      long double x = tu_load(c->pr.in, c->in + (size_t)i * c->in_pitch + (size_t)j * ie);
      if (squared) x *= x;
      row += x;
      abs_row += fabsl(x);
      const size_t k = (size_t)(i * c->w + j);
      t->exact[k] = row + (i > 0 ? t->exact[k - (size_t)c->w] : 0);
      t->abs[k] = abs_row + (i > 0 ? t->abs[k - (size_t)c->w] : 0);
    }
  }
}

static size_t sat_bytes(const sat_case *c, const sat_table *t) {
  return (size_t)(c->h + c->pad) * t->pitch;
}

static skss_sat_desc sat_desc(const sat_case *c, int alg) {
  skss_sat_desc d = SKSS_SAT_DESC_INIT;
  d.height = c->h;
  d.width = c->w;
  d.in_type = c->pr.in;
  d.out_type = c->pr.out;
  d.in_pitch = (int64_t)c->in_pitch;
  d.out_pitch = (int64_t)c->plain.pitch;
  d.out_sq_pitch = (int64_t)c->sq.pitch;
  d.layout = c->layout;
  d.algorithm = (skss_sat_algorithm)alg;
  return d;
}

/* skss.h's float bound factor: |out - exact| <= factor u S(i, j). AUTO runs
 * an algorithm of the first kind on every backend (2r2w-cpu, bands-cpu,
 * onepass). */
static long double sat_bound_factor(int alg, int64_t i, int64_t j) {
  switch (alg) {
    case SKSS_SAT_ALGORITHM_4R1W_CPU:
    case SKSS_SAT_ALGORITHM_4R1W: return 5.0L * (long double)((i + 1) * (j + 1));
    case SKSS_SAT_ALGORITHM_1R1W:
    case SKSS_SAT_ALGORITHM_1PR_R1W:
      return 70.0L * (long double)((i / 32 + 1) * (j / 32 + 1)) + (long double)(i + j + 2);
    default: return (long double)(i + j + 2);
  }
}

static void sat_check(const sat_case *c, const sat_table *t, const uint8_t *got, const target *tg,
                      int alg, const char *which) {
  const size_t oe = skss_dtype_size(c->pr.out), row = (size_t)(c->w + c->pad) * oe;
  const int64_t rows = c->h + c->pad;
  for (int64_t i = 0; i < rows; i++)
    if (!all_poison(got + (size_t)i * t->pitch + row, t->pitch - row))
      FAIL_RUN(SKSS_OP_SAT, tg, alg, "%s: padding of row %lld written", which, (long long)i);
  if (!tu_dtype_is_float(c->pr.out)) {
    const size_t bytes = sat_bytes(c, t), k = first_difference(got, t->want, bytes);
    if (k < bytes)
      FAIL_RUN(SKSS_OP_SAT, tg, alg, "%s: element (%lld, %lld) differs from cpu-ref", which,
               (long long)(k / t->pitch), (long long)(k % t->pitch / oe));
    return;
  }
  const long double u = c->pr.out == SKSS_DTYPE_F32 ? 0x1p-24L : 0x1p-53L;
  for (int64_t i = 0; i < rows; i++) {
    for (int64_t j = 0; j < c->w + c->pad; j++) {
      const uint8_t *p = got + (size_t)i * t->pitch + (size_t)j * oe;
      const int64_t ri = i - c->pad, rj = j - c->pad;
      if (ri < 0 || rj < 0) {
        const uint8_t zero[8] = {0};
        if (memcmp(p, zero, oe) != 0)
          FAIL_RUN(SKSS_OP_SAT, tg, alg, "%s: border (%lld, %lld) is not zero", which, (long long)i,
                   (long long)j);
        continue;
      }
      const size_t k = (size_t)(ri * c->w + rj);
      const long double v = oe == 4 ? tu_load(SKSS_DTYPE_F32, p) : tu_load(SKSS_DTYPE_F64, p);
      const long double err = fabsl(v - t->exact[k]);
      const long double bound = sat_bound_factor(alg, ri, rj) * u * t->abs[k] * 1.001L;
      if (!(err <= bound))
        FAIL_RUN(SKSS_OP_SAT, tg, alg, "%s: (%lld, %lld) is off by %Lg, bound %Lg", which,
                 (long long)ri, (long long)rj, err, bound);
    }
  }
}

static void sat_run(void *p, const target *tg, int alg) {
  const sat_case *c = p;
  uint8_t *got = poisoned(sat_bytes(c, &c->plain)), *got_sq = poisoned(sat_bytes(c, &c->sq));
  const skss_sat_desc d = sat_desc(c, alg);
  RUN_OK(SKSS_OP_SAT, tg, alg, skss_sat(tg->ctx, &d, c->in, got, c->squared ? got_sq : NULL));
  sat_check(c, &c->plain, got, tg, alg, "sums");
  if (c->squared)
    sat_check(c, &c->sq, got_sq, tg, alg, "squared sums");
  else if (!all_poison(got_sq, sat_bytes(c, &c->sq)))
    FAIL_RUN(SKSS_OP_SAT, tg, alg, "squared output written though not asked for");
  free(got);
  free(got_sq);
}

static void sat_one(tu_rng *r, int index, sat_pair pr, int64_t h, int64_t w, skss_sat_layout layout,
                    bool squared, int pitch_kind) {
  const size_t ie = skss_dtype_size(pr.in), oe = skss_dtype_size(pr.out);
  sat_case c = {pr, h, w, layout == SKSS_SAT_LAYOUT_PADDED, layout, squared, 0, NULL, {0}, {0}};
  /* extra whole elements after each row, a different number per buffer */
  c.in_pitch = (size_t)w * ie + (size_t)(pitch_kind % 3) * ie;
  c.plain.pitch = (size_t)(w + c.pad) * oe + (size_t)(pitch_kind % 2) * 2 * oe;
  c.sq.pitch = (size_t)(w + c.pad) * oe + (size_t)((pitch_kind + 1) % 3) * oe;
  c.in = malloc((size_t)h * c.in_pitch + 1);
  assert_non_null(c.in);
  sat_fill(r, &c);
  c.plain.want = poisoned(sat_bytes(&c, &c.plain));
  c.sq.want = poisoned(sat_bytes(&c, &c.sq));
  snprintf(CASE, sizeof CASE, "%s:%s %lldx%lld %s%s, pitches %zu/%zu/%zu", skss_dtype_name(pr.in),
           skss_dtype_name(pr.out), (long long)h, (long long)w,
           c.pad ? "padded" : "inclusive", squared ? " +squared" : "", c.in_pitch, c.plain.pitch,
           c.sq.pitch);
  const skss_sat_desc d = sat_desc(&c, SKSS_SAT_ALGORITHM_AUTO);
  TU_OK(ORACLE, skss_sat(ORACLE, &d, c.in, c.plain.want, squared ? c.sq.want : NULL));
  if (tu_dtype_is_float(pr.out)) {
    sat_exact(&c, &c.plain, false);
    if (squared) sat_exact(&c, &c.sq, true);
  }
  for_each_candidate(SKSS_OP_SAT, index, h * w, sat_run, &c);
  free(c.in);
  free(c.plain.want);
  free(c.sq.want);
  free(c.plain.exact);
  free(c.plain.abs);
  free(c.sq.exact);
  free(c.sq.abs);
}

typedef struct size2 {
  int64_t h, w;
} size2;

/* Every pair x layout x squared output on small sizes; on large ones (1024
 * and 1100 x 1057: more than 32 x 32 tiles each way, where 2R1W recurses)
 * each pair once, layout, squares and pitches taking turns. */
static void test_sat(void **state) {
  (void)state;
  static const size2 small[] = {{0, 0},   {0, 7},   {7, 0},   {1, 1},     {1, 37},
                                {37, 1},  {2, 2},   {31, 33}, {32, 32},   {33, 31},
                                {97, 101}, {7, 521}, {127, 129}};
  static const size2 large[] = {{5000, 3}, {3, 5000}, {257, 131}, {1024, 1024}, {1100, 1057}};
  tu_rng r;
  tu_rng_init(&r, tu_seed());
  int index = 0;
  for (size_t z = 0; z < sizeof small / sizeof small[0]; z++)
    for (int p = 0; p < N_SAT_PAIRS; p++)
      for (int layout = 0; layout < 2; layout++)
        for (int sq = 0; sq < 2; sq++, index++)
          sat_one(&r, index, SAT_PAIRS[p], small[z].h, small[z].w, (skss_sat_layout)layout, sq,
                  index);
  for (size_t z = 0; z < (small_only() ? 0 : sizeof large / sizeof large[0]); z++)
    for (int p = 0; p < N_SAT_PAIRS; p++, index++)
      sat_one(&r, index, SAT_PAIRS[p], large[z].h, large[z].w, (skss_sat_layout)(index % 2),
              (index / 2) % 2, index);
  expect_every_algorithm_ran(SKSS_OP_SAT);
}

/* ---- box filter (the SAT algorithm inside) -------------------------------- */

typedef struct box_case {
  skss_boxfilter_desc d;
  const uint8_t *in;
  const uint8_t *want;
  size_t out_bytes;
} box_case;

static void box_run(void *p, const target *tg, int alg) {
  const box_case *c = p;
  uint8_t *got = poisoned(c->out_bytes);
  skss_boxfilter_desc d = c->d;
  d.sat_algorithm = (skss_sat_algorithm)alg;
  RUN_OK(SKSS_OP_SAT, tg, alg, skss_boxfilter_u8(tg->ctx, &d, c->in, got));
  for (int64_t i = 0; i < d.height; i++)
    if (!all_poison(got + (size_t)(i * d.out_pitch + d.width), (size_t)(d.out_pitch - d.width)))
      FAIL_RUN(SKSS_OP_SAT, tg, alg, "box filter: padding of row %lld written", (long long)i);
  const size_t k = first_difference(got, c->want, c->out_bytes + 1);
  if (k <= c->out_bytes)
    FAIL_RUN(SKSS_OP_SAT, tg, alg, "box filter: pixel (%lld, %lld) is %d, cpu-ref %d",
             (long long)(k / (size_t)d.out_pitch), (long long)(k % (size_t)d.out_pitch), got[k],
             c->want[k]);
  free(got);
}

/* Radii 0, 1, 2, 7, 40, past the image and huge, both borders, pitched
 * rows; every SAT algorithm as the filter's inside. */
static void test_boxfilter(void **state) {
  (void)state;
  static const size2 sizes[] = {{1, 1},   {1, 9},  {9, 1},   {2, 3},   {31, 33},  {17, 5},
                                {64, 47}, {101, 7}, {1, 300}, {300, 1}, {1000, 777}};
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 1);
  int index = 0;
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    const int64_t h = sizes[z].h, w = sizes[z].w;
    if (small_only() && h * w > SMALL_WORK) continue;
    const int64_t radii[] = {0, 1, 2, 7, 40, (h > w ? h : w) + 3, (int64_t)1 << 40, INT64_MAX};
    const size_t in_pitch = (size_t)w + z % 4, out_pitch = (size_t)w + (size_t)(w % 3) + 1;
    uint8_t *in = malloc((size_t)h * in_pitch);
    assert_non_null(in);
    tu_fill_bytes(&r, in, (size_t)h * in_pitch);
    for (size_t k = 0; k < sizeof radii / sizeof radii[0]; k++) {
      for (int border = 0; border < 2; border++, index++) {
        box_case c = {SKSS_BOXFILTER_DESC_INIT, in, NULL, (size_t)h * out_pitch};
        c.d.height = h;
        c.d.width = w;
        c.d.radius = radii[k];
        c.d.in_pitch = (int64_t)in_pitch;
        c.d.out_pitch = (int64_t)out_pitch;
        c.d.border = (skss_boxfilter_border)border;
        snprintf(CASE, sizeof CASE, "box filter %lldx%lld r=%lld %s, pitches %zu/%zu", (long long)h,
                 (long long)w, (long long)radii[k], border ? "zero" : "clip", in_pitch, out_pitch);
        uint8_t *want = poisoned(c.out_bytes);
        TU_OK(ORACLE, skss_boxfilter_u8(ORACLE, &c.d, in, want));
        c.want = want;
        for_each_candidate(SKSS_OP_SAT, index, h * w, box_run, &c);
        free(want);
      }
    }
    free(in);
  }
}

/* ---- halftoning ------------------------------------------------------------ */

typedef enum image_kind { RANDOM, GRADIENT, BLOCKS, RAMP } image_kind;
static const char *const IMAGE_KINDS[] = {"random", "gradient", "blocks", "ramp"};

/* Noise alone hides bugs at the clamps and in long runs: also a gradient,
 * flat blocks of extreme levels, and a ramp with a little noise. */
static void ht_image(tu_rng *r, image_kind kind, uint8_t *img, int64_t h, int64_t w, size_t pitch) {
  static const uint8_t levels[] = {0, 255, 1, 254, 128, 127, 64, 200};
  for (int64_t y = 0; y < h; y++) {
    for (int64_t x = 0; x < w; x++) {
      int v;
      switch (kind) {
        case GRADIENT: v = (int)((x * 180 / (w > 1 ? w - 1 : 1) + y * 75 / (h > 1 ? h - 1 : 1)) % 256); break;
        case BLOCKS: v = levels[((x / 37) * 3 + (y / 23) * 5) % 8]; break;
        case RAMP: v = (int)((x * 255) / (w > 1 ? w - 1 : 1) + (y * 37) % 11 + tu_range(r, -3, 3)); break;
        default: v = (int)(tu_next(r) & 255); break;
      }
      img[(size_t)y * pitch + (size_t)x] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
  }
}

typedef struct ht_case {
  skss_halftone_desc d;
  size_t out_row, out_pitch, out_stride, out_bytes;
  const uint8_t *in, *want;
} ht_case;

static void ht_run(void *p, const target *tg, int alg) {
  const ht_case *c = p;
  uint8_t *got = poisoned(c->out_bytes);
  skss_halftone_desc d = c->d;
  d.algorithm = (skss_halftone_algorithm)alg;
  RUN_OK(SKSS_OP_HALFTONE, tg, alg, skss_halftone(tg->ctx, &d, c->in, got));
  for (int64_t k = 0; k < d.images; k++) {
    const uint8_t *img = got + (size_t)k * c->out_stride;
    for (int64_t y = 0; y < d.height; y++)
      if (!all_poison(img + (size_t)y * c->out_pitch + c->out_row, c->out_pitch - c->out_row))
        FAIL_RUN(SKSS_OP_HALFTONE, tg, alg, "padding of image %lld row %lld written", (long long)k,
                 (long long)y);
    if (!all_poison(img + (size_t)d.height * c->out_pitch,
                    c->out_stride - (size_t)d.height * c->out_pitch))
      FAIL_RUN(SKSS_OP_HALFTONE, tg, alg, "the gap after image %lld was written", (long long)k);
  }
  const size_t k = first_difference(got, c->want, c->out_bytes + 1);
  if (k <= c->out_bytes)
    FAIL_RUN(SKSS_OP_HALFTONE, tg, alg, "image %zu row %zu byte %zu is 0x%02x, cpu-ref 0x%02x",
             k / c->out_stride, k % c->out_stride / c->out_pitch, k % c->out_stride % c->out_pitch,
             got[k], c->want[k]);
  free(got);
}

/* `images` h x w images; pitched: padding after each row and image, else
 * packed (pitches and strides 0, the defaults). */
static void ht_one(tu_rng *r, int index, int64_t h, int64_t w, int64_t images, skss_dither_kernel kernel,
                   int threshold, skss_halftone_output output, bool pitched, image_kind kind) {
  ht_case c = {SKSS_HALFTONE_DESC_INIT, 0, 0, 0, 0, NULL, NULL};
  c.out_row = output == SKSS_HALFTONE_OUTPUT_BITS ? (size_t)(w + 7) / 8 : (size_t)w;
  const size_t in_pitch = (size_t)w + (pitched ? 13 : 0);
  const size_t in_stride = (size_t)h * in_pitch + (pitched ? 7 : 0);
  c.out_pitch = c.out_row + (pitched ? 5 : 0);
  c.out_stride = (size_t)h * c.out_pitch + (pitched ? 3 : 0);
  c.out_bytes = (size_t)images * c.out_stride;
  c.d.height = h;
  c.d.width = w;
  c.d.kernel = kernel;
  c.d.threshold = threshold;
  c.d.output = output;
  c.d.images = images;
  if (pitched) {
    c.d.in_pitch = (int64_t)in_pitch;
    c.d.out_pitch = (int64_t)c.out_pitch;
    c.d.in_image_stride = (int64_t)in_stride;
    c.d.out_image_stride = (int64_t)c.out_stride;
  }
  uint8_t *in = malloc((size_t)images * in_stride + 1);
  assert_non_null(in);
  tu_fill_bytes(r, in, (size_t)images * in_stride + 1);
  for (int64_t k = 0; k < images; k++) ht_image(r, kind, in + (size_t)k * in_stride, h, w, in_pitch);
  skss_dither_kernel_info info;
  assert_int_equal(skss_dither_kernel_get_info(kernel, &info), SKSS_OK);
  snprintf(CASE, sizeof CASE, "%lld x %lldx%lld %s %s T=%d %s%s", (long long)images, (long long)h,
           (long long)w, IMAGE_KINDS[kind], info.name, threshold,
           output == SKSS_HALFTONE_OUTPUT_BITS ? "bits" : "bytes", pitched ? " pitched" : "");
  uint8_t *want = poisoned(c.out_bytes);
  TU_OK(ORACLE, skss_halftone(ORACLE, &c.d, in, want));
  c.in = in;
  c.want = want;
  for_each_candidate(SKSS_OP_HALFTONE, index, h * w * images, ht_run, &c);
  free(in);
  free(want);
}

/* Every kernel x output kind on awkward sizes, thresholds 0..255's edges,
 * image kinds and pitches taking turns; then batches. */
static void test_halftone(void **state) {
  (void)state;
  static const size2 sizes[] = {{1, 1},   {1, 77},  {77, 1},   {2, 2},      {3, 5},
                                {33, 31}, {40, 70}, {130, 9},  {7, 130},    {61, 9},
                                {1, 1021}, {1021, 1}, {4099, 17}, {17, 4099}, {1000, 777}};
  static const int thresholds[] = {128, 0, 1, 127, 254, 255, 200, 77};
  static const int64_t batches[][3] = {{1, 1, 1},   {1, 77, 4},  {77, 1, 3}, {33, 31, 5},
                                       {40, 70, 2}, {37, 45, 3}, {300, 211, 7}};
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 2);
  int index = 0;
  for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
    if (small_only() && sizes[z].h * sizes[z].w > SMALL_WORK) continue;
    for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++)
      for (int output = 0; output < 2; output++, index++)
        ht_one(&r, index, sizes[z].h, sizes[z].w, 1, (skss_dither_kernel)k, thresholds[index % 8],
               (skss_halftone_output)output, (index / 2) % 2, (image_kind)(index % 4));
  }
  for (size_t b = 0; b < sizeof batches / sizeof batches[0]; b++) {
    if (small_only() && batches[b][0] * batches[b][1] * batches[b][2] > SMALL_WORK) continue;
    for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++, index++)
      ht_one(&r, index, batches[b][0], batches[b][1], batches[b][2], (skss_dither_kernel)k, 128,
             (skss_halftone_output)(index % 2), (index / 2) % 2, (image_kind)(index % 4));
  }
  expect_every_algorithm_ran(SKSS_OP_HALFTONE);
}

/* ---- knapsack ------------------------------------------------------------- */

/* An instance and cpu-ref's answer to it. */
typedef struct ks_case {
  const tu_knapsack *in;
  int64_t best;
  uint8_t *taken;
} ks_case;

static void ks_run(void *p, const target *tg, int alg) {
  const ks_case *c = p;
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = c->in->n;
  d.capacity = c->in->cap;
  d.algorithm = (skss_knapsack_algorithm)alg;
  uint8_t *taken = poisoned((size_t)c->in->n);
  int64_t best;
  memset(&best, POISON, sizeof best);
  RUN_OK(SKSS_OP_KNAPSACK, tg, alg, skss_knapsack(tg->ctx, &d, c->in->w, c->in->v, &best, taken));
  if (best != c->best)
    FAIL_RUN(SKSS_OP_KNAPSACK, tg, alg, "optimum %lld, cpu-ref %lld", (long long)best,
             (long long)c->best);
  /* CORE (AUTO's choice on the CPU backend) returns some optimal set, the
   * DP algorithms the rule's set. */
  const bool core = alg == SKSS_KNAPSACK_ALGORITHM_CORE ||
                    (alg == SKSS_KNAPSACK_ALGORITHM_AUTO &&
                     skss_ctx_op_backend(tg->ctx, SKSS_OP_KNAPSACK) == SKSS_BACKEND_CPU);
  int64_t sw = 0, sv = 0;
  for (int64_t j = 0; core && j < c->in->n; j++)
    if (taken[j] == 1) sw += c->in->w[j], sv += c->in->v[j];
    else if (taken[j] != 0) FAIL_RUN(SKSS_OP_KNAPSACK, tg, alg, "taken[%lld] = %d", (long long)j, taken[j]);
  if (core && (sw > c->in->cap || sv != best || taken[c->in->n] != POISON))
    FAIL_RUN(SKSS_OP_KNAPSACK, tg, alg, "set of weight %lld (C = %lld) and value %lld, optimum %lld",
             (long long)sw, (long long)c->in->cap, (long long)sv, (long long)best);
  const size_t k = core ? (size_t)c->in->n + 1 : first_difference(taken, c->taken, (size_t)c->in->n + 1);
  if (k <= (size_t)c->in->n)
    FAIL_RUN(SKSS_OP_KNAPSACK, tg, alg, "taken[%zu] = %d, cpu-ref %d", k, taken[k], c->taken[k]);
  /* value only: the same optimum, `taken` untouched */
  d.value_only = 1;
  memset(taken, POISON, (size_t)c->in->n + 1);
  memset(&best, POISON, sizeof best);
  RUN_OK(SKSS_OP_KNAPSACK, tg, alg, skss_knapsack(tg->ctx, &d, c->in->w, c->in->v, &best, taken));
  if (best != c->best)
    FAIL_RUN(SKSS_OP_KNAPSACK, tg, alg, "value-only optimum %lld, cpu-ref %lld", (long long)best,
             (long long)c->best);
  if (!all_poison(taken, (size_t)c->in->n + 1))
    FAIL_RUN(SKSS_OP_KNAPSACK, tg, alg, "value-only mode wrote taken");
  free(taken);
}

static const char *const KS_KINDS[] = {"uncorrelated",   "weak",          "strong",
                                       "zeros",          "inverse strong", "subset sum",
                                       "almost strong",  "spanner",       "profit ceiling",
                                       "fixed"};

/* Runs the instance on every candidate and frees it. */
static void ks_one(int index, tu_knapsack *in, int kind) {
  snprintf(CASE, sizeof CASE, "%s n=%lld C=%lld", KS_KINDS[kind], (long long)in->n, (long long)in->cap);
  skss_knapsack_desc d = SKSS_KNAPSACK_DESC_INIT;
  d.n_items = in->n;
  d.capacity = in->cap;
  ks_case c = {in, 0, poisoned((size_t)in->n)};
  TU_OK(ORACLE, skss_knapsack(ORACLE, &d, in->w, in->v, &c.best, c.taken));
  /* the DP's cells, over 64: a case of many cells is large */
  int64_t total = 0;
  for (int64_t j = 0; j < in->n; j++) total += in->w[j];
  const int64_t cells = in->n * ((total < in->cap ? total : in->cap) + 1);
  for_each_candidate(SKSS_OP_KNAPSACK, index, cells / 64, ks_run, &c);
  tu_knapsack_free(in);
  free(c.taken);
}

/* The paper's example, ties, n = 0 and 1, C = 0, zero weights and values,
 * w > C, the classes at capacities around word and chunk boundaries, sizes
 * that fill the task array's passes and ring, a huge capacity, and values
 * at the int32 / int64 cell boundaries. */
static void test_knapsack(void **state) {
  (void)state;
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 3);
  int index = 0;
  const int fixed = TU_KNAPSACK_KINDS; /* KS_KINDS' last */
  tu_knapsack c = tu_knapsack_new(4, 5); /* the task-array paper's example (Figure 6) */
  const int64_t pw[] = {4, 2, 3, 1}, pv[] = {2, 2, 3, 4};
  memcpy(c.w, pw, sizeof pw);
  memcpy(c.v, pv, sizeof pv);
  ks_one(index++, &c, fixed);
  for (int t = 0; t < 2; t++) { /* ties: many subsets reach the optimum */
    c = tu_knapsack_new(12, 30);
    for (int j = 0; j < 12; j++) c.w[j] = t ? 1 + j % 3 : 5, c.v[j] = t ? 2 * (1 + j % 3) : 7;
    ks_one(index++, &c, fixed);
  }
  for (int k = 0; k < 8; k++) { /* n = 0, 1 */
    static const int64_t one[][4] = {{0, 0, 0, 0}, {0, 17, 0, 0}, {1, 0, 3, 9}, {1, 3, 3, 9},
                                     {1, 2, 3, 9}, {1, 0, 0, 9},  {1, 0, 0, 0}, {1, 5, 6, 0}};
    c = tu_knapsack_new(one[k][0], one[k][1]);
    c.w[0] = one[k][2];
    c.v[0] = one[k][3];
    ks_one(index++, &c, fixed);
  }
  for (int k = 0; k < tu_sizes_count; k++) { /* C = 0 with some zero weights */
    c = tu_knapsack_random(&r, TU_KNAPSACK_ZEROS, tu_sizes[k], 20, 0);
    ks_one(index++, &c, TU_KNAPSACK_ZEROS);
  }
  for (int round = 0; round < 60; round++) {
    c = tu_knapsack_random(&r, (tu_knapsack_kind)(round % 4), round % 17, tu_range(&r, 1, 40), -1);
    if (round % 5 == 0) c.cap = tu_range(&r, 0, 60);
    ks_one(index++, &c, round % 4);
  }
  static const int64_t caps[] = {1, 63, 64, 65, 127, 128, 129, 2047, 2048, 2049, 4095, 16383, 16384, 16385};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++)
    for (int kind = TU_KNAPSACK_UNCORRELATED; kind < TU_KNAPSACK_KINDS; kind++) {
      const int64_t n = tu_sizes[(k + (size_t)kind) % (size_t)tu_sizes_count] % 97 + 1;
      c = tu_knapsack_random(&r, (tu_knapsack_kind)kind, n, tu_range(&r, 1, caps[k] + 50), caps[k]);
      ks_one(index++, &c, kind);
    }
  if (!small_only()) {
    static const int64_t big[][3] = {{120, 300, 60000}, {97, 40000, 150001}, {64, 30000, -1}, {31, 3000, 200003}};
    for (size_t k = 0; k < sizeof big / sizeof big[0]; k++)
      for (int kind = TU_KNAPSACK_UNCORRELATED; kind < TU_KNAPSACK_KINDS; kind++) {
        c = tu_knapsack_random(&r, (tu_knapsack_kind)kind, big[k][0], big[k][1], big[k][2]);
        ks_one(index++, &c, kind);
      }
    c = tu_knapsack_random(&r, TU_KNAPSACK_UNCORRELATED, 4500, 40, 9000); /* more rows than a pass holds */
    ks_one(index++, &c, TU_KNAPSACK_UNCORRELATED);
    c = tu_knapsack_random(&r, TU_KNAPSACK_STRONG, 200, 1000, 1000000000000000); /* C clamped to the total */
    ks_one(index++, &c, TU_KNAPSACK_STRONG);
  }
  /* C around the total weight */
  for (int kind = TU_KNAPSACK_UNCORRELATED; kind < TU_KNAPSACK_KINDS; kind++) {
    tu_knapsack base = tu_knapsack_random(&r, (tu_knapsack_kind)kind, 30, 50, 0);
    int64_t total = 0;
    for (int64_t j = 0; j < base.n; j++) total += base.w[j];
    for (int64_t cap = total + 500; cap >= total - 1; cap -= cap > total ? 500 : 1) {
      c = tu_knapsack_new(base.n, cap);
      memcpy(c.w, base.w, (size_t)base.n * 8);
      memcpy(c.v, base.v, (size_t)base.n * 8);
      ks_one(index++, &c, kind);
    }
    tu_knapsack_free(&base);
  }
  for (int64_t extra = 0; extra <= 1; extra++) { /* values summing to INT32_MAX (+ 1) */
    c = tu_knapsack_random(&r, TU_KNAPSACK_UNCORRELATED, 40, 500, 5000);
    int64_t rest = INT32_MAX + extra;
    for (int64_t j = 0; j < c.n; j++) {
      c.v[j] = j == c.n - 1 ? rest : tu_range(&r, 1, INT32_MAX / 64);
      rest -= c.v[j];
    }
    ks_one(index++, &c, TU_KNAPSACK_UNCORRELATED);
  }
  for (int k = 0; k < 2; k++) { /* values near 2^61; then summing to exactly INT64_MAX */
    c = tu_knapsack_random(&r, TU_KNAPSACK_WEAK, 3, 100, 150);
    for (int64_t j = 0; j < c.n; j++) c.v[j] = ((int64_t)1 << 61) + tu_range(&r, 0, 1000);
    if (k) c.v[0] = INT64_MAX - c.v[1] - c.v[2];
    ks_one(index++, &c, TU_KNAPSACK_WEAK);
  }
  c = tu_knapsack_random(&r, TU_KNAPSACK_WEAK, 300, 3000, small_only() ? 1000 : 100000); /* int64 cells */
  for (int64_t j = 0; j < c.n; j++) c.v[j] = ((int64_t)1 << 40) + c.w[j] * 997;
  ks_one(index++, &c, TU_KNAPSACK_WEAK);
  expect_every_algorithm_ran(SKSS_OP_KNAPSACK);
}

/* ---- stream compaction ----------------------------------------------------- */

#define DTYPES TU_COMPACT_DTYPES
#define N_DTYPES TU_COMPACT_N_DTYPES
#define N_KEEPS TU_COMPACT_N_KEEPS
#define KEEP_NAMES TU_COMPACT_KEEP_NAMES

typedef struct cp_case {
  skss_compact_desc d;
  const void *in;
  int64_t count;
  const uint8_t *values;
  const int64_t *indices;
} cp_case;

enum { OUT_VALUES = 1, OUT_INDICES = 2 };

static void cp_run(void *p, const target *tg, int alg) {
  const cp_case *c = p;
  skss_compact_desc d = c->d;
  d.algorithm = (skss_compact_algorithm)alg;
  const size_t n = (size_t)d.n, elem = skss_dtype_size(d.dtype);
  for (int outputs = 0; outputs < 4; outputs++) {
    uint8_t *values = poisoned(n * elem), *indices = poisoned(n * 8);
    int64_t count = -7;
    RUN_OK(SKSS_OP_COMPACT, tg, alg,
           skss_compact(tg->ctx, &d, c->in, (outputs & OUT_VALUES) ? values : NULL,
                        (outputs & OUT_INDICES) ? (int64_t *)(void *)indices : NULL, &count));
    if (count != c->count)
      FAIL_RUN(SKSS_OP_COMPACT, tg, alg, "outputs %d: count %lld, cpu-ref %lld", outputs,
               (long long)count, (long long)c->count);
    const size_t kept = (size_t)count;
    const bool values_ok = (outputs & OUT_VALUES)
                               ? memcmp(values, c->values, kept * elem) == 0 &&
                                     all_poison(values + kept * elem, (n - kept) * elem + 1)
                               : all_poison(values, n * elem + 1);
    const bool indices_ok = (outputs & OUT_INDICES)
                                ? memcmp(indices, c->indices, kept * 8) == 0 &&
                                      all_poison(indices + kept * 8, (n - kept) * 8 + 1)
                                : all_poison(indices, n * 8 + 1);
    if (!values_ok || !indices_ok)
      FAIL_RUN(SKSS_OP_COMPACT, tg, alg, "outputs %d: %s differ from cpu-ref or were written past the count",
               outputs, values_ok ? "indices" : "values");
    free(values);
    free(indices);
  }
}

static void cp_one(int index, skss_compact_desc d, const void *in) {
  snprintf(CASE, sizeof CASE, "%s %s n=%lld a=0x%llx b=0x%llx", skss_dtype_name(d.dtype),
           KEEP_NAMES[d.keep], (long long)d.n, (unsigned long long)d.a.u, (unsigned long long)d.b.u);
  const size_t n = (size_t)d.n;
  uint8_t *values = poisoned(n * skss_dtype_size(d.dtype)), *indices = poisoned(n * 8);
  cp_case c = {d, in, -1, values, (const int64_t *)(void *)indices};
  TU_OK(ORACLE, skss_compact(ORACLE, &d, in, values, (int64_t *)(void *)indices, &c.count));
  for_each_candidate(SKSS_OP_COMPACT, index, d.n, cp_run, &c);
  free(values);
  free(indices);
}

/* Runs one of tu_compact_large()'s cases; `next` counts the cases. */
static void cp_large(void *next, skss_compact_desc d, const void *in) {
  int *index = next;
  cp_one((*index)++, d, in);
}

/* Every dtype x predicate x scalar pair on awkward sizes (the masks and the
 * sizes only the chain of blocks needs with one pair), then a million f32
 * at selectivities 0, 50 and 100 % and a million-bit mask. */
static void test_compact(void **state) {
  (void)state;
  static const int64_t sizes[] = {0, 1, 31, 32, 33, 63, 64, 65, 127, 8191, 8193, 20011};
  tu_rng r;
  tu_rng_init(&r, tu_seed() + 4);
  int index = 0;
  for (int t = 0; t < N_DTYPES; t++)
    for (int p = 0; p < N_KEEPS; p++)
      for (int s = 0; s < 4; s++)
        for (size_t z = 0; z < sizeof sizes / sizeof sizes[0]; z++) {
          if (s > 0 && (p >= SKSS_COMPACT_KEEP_MASK_BYTES || sizes[z] > 8192)) continue;
          if (small_only() && sizes[z] > 8192) continue;
          skss_compact_desc d = SKSS_COMPACT_DESC_INIT;
          d.dtype = DTYPES[t];
          d.keep = (skss_compact_keep)p;
          d.n = sizes[z];
          tu_compact_scalars(&r, d.dtype, s, &d.a, &d.b);
          void *in = malloc((size_t)d.n * 8 + 1);
          uint8_t *mask = malloc((size_t)d.n + 1);
          assert_true(in != NULL && mask != NULL);
          d.mask = p >= SKSS_COMPACT_KEEP_MASK_BYTES ? mask : NULL;
          tu_compact_fill(&r, &d, in, mask);
          cp_one(index++, d, d.n == 0 ? NULL : in);
          free(in);
          free(mask);
        }
  if (!small_only()) tu_compact_large(&r, cp_large, &index);
  expect_every_algorithm_ran(SKSS_OP_COMPACT);
}

int main(void) {
  int backends = 0;
  for (int b = SKSS_BACKEND_CPU_REF; b <= SKSS_BACKEND_CUDA; b++) {
    const bool run = backend_wanted((skss_backend)b) && skss_backend_available((skss_backend)b);
    printf("%-8s %s\n", skss_backend_name((skss_backend)b),
           run ? "runs" : b == SKSS_BACKEND_CPU_REF ? "skipped (its AUTO stays the oracle)" : "skipped");
    backends += run;
  }
  if (backends == 0) {
    printf("none of the backends asked for is available: skipped\n");
    return 77;
  }
  printf("seed %llu\n", (unsigned long long)tu_seed());
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sat),      cmocka_unit_test(test_boxfilter),
      cmocka_unit_test(test_halftone), cmocka_unit_test(test_knapsack),
      cmocka_unit_test(test_compact),
  };
  const char *only = getenv("SKSS_TEST_ONLY"); /* the tests whose names match */
  if (only != NULL && only[0] != '\0') cmocka_set_test_filter(only);
  return cmocka_run_group_tests(tests, setup, teardown);
}
