/*
 * test_align.c — skss_align() on the CPU backends. Oracle: a full-matrix Gotoh
 * written here (end by the documented rule, begin by aligning every candidate
 * start to the end). Larger random and mutated pairs of awkward sizes, long
 * gaps across split rows and pairs big enough for the checkpoint splits
 * compare every backend, algorithm and thread count with cpu-ref; every
 * alignment is re-scored and must cover begin..end. Also: empty and one-letter
 * sequences, BLOSUM62 and a user matrix, invalid letters, the int32 range
 * check, misuse, the CIGAR, and the CUDA algorithm's listing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define NEG_INF (INT64_MIN / 4)

/* BLOSUM62 (Henikoff and Henikoff, 1992), as NCBI publishes it. */
static const char B62_LETTERS[] = "ARNDCQEGHILKMFPSTWYVBZX*";
static const int B62[24][24] = {
    {4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4},
    {-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4},
    {-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4},
    {-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4},
    {-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4},
    {-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4},
    {-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4},
    {-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4},
    {-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4},
    {-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4},
    {-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4},
    {-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4},
    {-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4},
    {1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4},
    {0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4},
    {-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4},
    {-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4},
    {0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4},
    {-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4},
    {-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4},
    {0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4},
    {-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1},
};

/* ---- oracle ----------------------------------------------------------- */

static int64_t sub_score(const skss_align_desc *d, char x, char y) {
  const char X = (char)(x >= 'a' && x <= 'z' ? x - 32 : x), Y = (char)(y >= 'a' && y <= 'z' ? y - 32 : y);
  if (d->scoring == SKSS_ALIGN_SCORING_MATCH_MISMATCH) return X == Y ? d->match : d->mismatch;
  if (d->scoring == SKSS_ALIGN_SCORING_BLOSUM62)
    return B62[strchr(B62_LETTERS, X) - B62_LETTERS][strchr(B62_LETTERS, Y) - B62_LETTERS];
  const int64_t k = (int64_t)strlen(d->alphabet);
  int64_t xi = -1, yi = -1;
  for (int64_t c = 0; c < k; c++) {
    const char L = (char)(d->alphabet[c] >= 'a' && d->alphabet[c] <= 'z' ? d->alphabet[c] - 32 : d->alphabet[c]);
    if (L == X) xi = c;
    if (L == Y) yi = c;
  }
  assert_true(xi >= 0 && yi >= 0);
  return d->matrix[xi * k + yi];
}

static int64_t max2(int64_t x, int64_t y) { return x > y ? x : y; }

/* Gotoh over a[0, m) x b[0, n) with every cell's H in H ((m+1) x (n+1)). */
static void gotoh_table(const skss_align_desc *d, const char *a, int64_t m, const char *b, int64_t n,
                        bool free_start, bool local, int64_t *H) {
  const int64_t o = d->gap_open, e = d->gap_extend, W = n + 1;
  int64_t *E = malloc(sizeof(int64_t) * (size_t)((m + 1) * W));
  int64_t *F = malloc(sizeof(int64_t) * (size_t)((m + 1) * W));
  assert_true(E != NULL && F != NULL);
  for (int64_t i = 0; i <= m; i++)
    for (int64_t j = 0; j <= n; j++) {
      const int64_t at = i * W + j;
      if (i == 0 && j == 0) {
        H[at] = 0;
        E[at] = F[at] = NEG_INF;
      } else if (i == 0) {
        E[at] = free_start ? NEG_INF : -(o + (j - 1) * e);
        F[at] = NEG_INF;
        H[at] = free_start ? 0 : E[at];
      } else if (j == 0) {
        F[at] = free_start ? NEG_INF : -(o + (i - 1) * e);
        E[at] = NEG_INF;
        H[at] = free_start ? 0 : F[at];
      } else {
        E[at] = max2(E[at - 1] - e, H[at - 1] - o);
        F[at] = max2(F[at - W] - e, H[at - W] - o);
        H[at] = max2(H[at - W - 1] + sub_score(d, a[i - 1], b[j - 1]), max2(E[at], F[at]));
        if (local) H[at] = max2(H[at], 0);
      }
    }
  free(E);
  free(F);
}

/* The global score of a[i0, i1) with b[j0, j1). */
static int64_t global_score(const skss_align_desc *d, const char *a, int64_t i0, int64_t i1, const char *b,
                            int64_t j0, int64_t j1) {
  int64_t *H = malloc(sizeof(int64_t) * (size_t)((i1 - i0 + 1) * (j1 - j0 + 1)));
  assert_non_null(H);
  gotoh_table(d, a + i0, i1 - i0, b + j0, j1 - j0, false, false, H);
  const int64_t s = H[(i1 - i0 + 1) * (j1 - j0 + 1) - 1];
  free(H);
  return s;
}

/* Score, end (smallest i, then j) and begin (largest i, then j) by the rules. */
static skss_align_result oracle(const skss_align_desc *d, const char *a, const char *b) {
  const int64_t m = d->a_len, n = d->b_len, W = n + 1;
  skss_align_result r = {NEG_INF, 0, m, 0, n, 0};
  if (d->mode == SKSS_ALIGN_MODE_GLOBAL) {
    r.score = global_score(d, a, 0, m, b, 0, n);
    return r;
  }
  const bool local = d->mode == SKSS_ALIGN_MODE_LOCAL;
  int64_t *H = malloc(sizeof(int64_t) * (size_t)((m + 1) * W));
  assert_non_null(H);
  gotoh_table(d, a, m, b, n, true, local, H);
  for (int64_t i = 0; i <= m; i++)
    for (int64_t j = 0; j <= n; j++)
      if ((local || i == m || j == n) && H[i * W + j] > r.score) {
        r.score = H[i * W + j];
        r.a_end = i;
        r.b_end = j;
      }
  free(H);
  r.a_begin = -1;
  for (int64_t i = r.a_end; i >= 0 && r.a_begin < 0; i--)
    for (int64_t j = r.b_end; j >= 0; j--)
      if ((local || i == 0 || j == 0) && global_score(d, a, i, r.a_end, b, j, r.b_end) == r.score) {
        r.a_begin = i;
        r.b_begin = j;
        break;
      }
  return r;
}

/* ---- helpers ---------------------------------------------------------- */

typedef struct config {
  skss_backend backend;
  int threads;
  skss_align_algorithm algorithm;
  bool portable; /* made with SKSS_CPU_ISA=scalar: the cpu backend's plain C rows */
} config;

static const config CONFIGS[] = {
    {SKSS_BACKEND_CPU_REF, 1, SKSS_ALIGN_ALGORITHM_AUTO, false},
    {SKSS_BACKEND_CPU, 1, SKSS_ALIGN_ALGORITHM_GOTOH, false},
    {SKSS_BACKEND_CPU, 1, SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU, false},
    {SKSS_BACKEND_CPU, 3, SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU, false},
    {SKSS_BACKEND_AUTO, 2, SKSS_ALIGN_ALGORITHM_AUTO, false},
    {SKSS_BACKEND_CPU, 2, SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU, true},
};
#define N_CONFIGS ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

static skss_ctx *ctxs[N_CONFIGS];

static int setup(void **state) {
  (void)state;
  for (int k = 0; k < N_CONFIGS; k++) {
    if (CONFIGS[k].portable) setenv("SKSS_CPU_ISA", "scalar", 1); /* read at creation */
    ctxs[k] = tu_ctx(CONFIGS[k].backend, CONFIGS[k].threads);
    unsetenv("SKSS_CPU_ISA");
  }
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int k = 0; k < N_CONFIGS; k++) skss_ctx_destroy(ctxs[k]);
  return 0;
}

/* Runs one config; with the alignment, re-scores it and checks its extent. */
static skss_align_result run_one(int k, skss_align_desc d, const char *a, const char *b) {
  d.algorithm = CONFIGS[k].algorithm;
  return tu_align_checked(ctxs[k], d, a, b, "run", k);
}

static skss_align_desc dna_desc(skss_align_mode mode, skss_align_output output) {
  skss_align_desc d = SKSS_ALIGN_DESC_INIT;
  d.mode = mode;
  d.output = output;
  d.match = 2;
  d.mismatch = -3;
  d.gap_open = 5;
  d.gap_extend = 2;
  return d;
}

/* ---- tests ------------------------------------------------------------ */

/* Every mode, output and config against the oracle on tiny pairs. */
static void test_tiny_against_oracle(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed());
  static const int32_t GAPS[][2] = {{5, 2}, {3, 3}, {0, 0}, {11, 1}, {1, 0}};
  char a[32], b[32];
  for (int rep = 0; rep < 150; rep++) {
    const int64_t m = tu_range(&rng, 0, 14), n = tu_range(&rng, 0, 14);
    const int letters = (int)tu_range(&rng, 1, 4);
    tu_random_seq(&rng, a, m, "ACGT", letters);
    tu_random_seq(&rng, b, n, "acgt", letters);
    for (int mode = 0; mode < 3; mode++)
      for (int g = 0; g < 5; g++) {
        skss_align_desc d = dna_desc((skss_align_mode)mode, SKSS_ALIGN_OUTPUT_ALIGNMENT);
        d.a_len = m;
        d.b_len = n;
        d.match = (int32_t)tu_range(&rng, 0, 4);
        d.mismatch = (int32_t)tu_range(&rng, -5, 1);
        d.gap_open = GAPS[g][0];
        d.gap_extend = GAPS[g][1];
        const skss_align_result want = oracle(&d, a, b);
        for (int out = 0; out < 3; out++) {
          d.output = (skss_align_output)out;
          for (int k = 0; k < N_CONFIGS; k++) {
            const skss_align_result got = run_one(k, d, a, b);
            char what[96];
            snprintf(what, sizeof what, "rep %d %lldx%lld mode %d gaps %d output %d", rep, (long long)m,
                     (long long)n, mode, g, out);
            const bool fixed = out != SKSS_ALIGN_OUTPUT_SCORE || mode == SKSS_ALIGN_MODE_GLOBAL;
            tu_align_expect_same(&want, &got, fixed, what, k);
            if (!fixed) assert_true(got.a_begin == -1 && got.b_begin == -1);
          }
        }
      }
  }
}

/* Empty and one-letter sequences: the answers follow from the rules. */
static void test_empty_and_single(void **state) {
  (void)state;
  skss_align_desc d = dna_desc(SKSS_ALIGN_MODE_GLOBAL, SKSS_ALIGN_OUTPUT_ALIGNMENT);
  for (int k = 0; k < N_CONFIGS; k++) {
    d.mode = SKSS_ALIGN_MODE_GLOBAL;
    d.a_len = d.b_len = 0;
    skss_align_result r = run_one(k, d, NULL, NULL);
    assert_true(r.score == 0 && r.length == 0 && r.a_end == 0 && r.b_end == 0);
    d.a_len = 4;
    r = run_one(k, d, "ACGT", NULL);
    assert_true(r.score == -(5 + 3 * 2) && r.length == 4);
    d.mode = SKSS_ALIGN_MODE_LOCAL;
    r = run_one(k, d, "ACGT", NULL);
    assert_true(r.score == 0 && r.length == 0 && r.a_begin == 0 && r.a_end == 0);
    d.mode = SKSS_ALIGN_MODE_SEMI_GLOBAL;
    d.b_len = 1;
    r = run_one(k, d, "ACGT", "G");
    assert_true(r.score == 2 && r.a_begin == 2 && r.a_end == 3 && r.b_begin == 0 && r.b_end == 1);
    d.mode = SKSS_ALIGN_MODE_LOCAL;
    d.a_len = 1;
    r = run_one(k, d, "T", "G");
    assert_true(r.score == 0 && r.a_end == 0 && r.b_end == 0 && r.length == 0);
  }
}

/* cpu-ref against every other config on pairs of awkward sizes: random,
 * mutated copies, and long insertions that cross the split rows. */
static void check_pair(const char *what, skss_align_desc d, const char *a, const char *b) {
  const int first = d.a_len * d.b_len > 100000 ? SKSS_ALIGN_OUTPUT_ALIGNMENT : 0;
  for (int out = first; out < 3; out++) {
    d.output = (skss_align_output)out;
    const skss_align_result want = run_one(0, d, a, b);
    for (int k = 1; k < N_CONFIGS; k++) {
      const skss_align_result got = run_one(k, d, a, b);
      tu_align_expect_same(&want, &got, out != SKSS_ALIGN_OUTPUT_SCORE, what, k);
    }
  }
}

static void test_backends_agree(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 1);
  static const int64_t SIZES[] = {0, 1, 31, 33, 97, 257, 1031, 2053};
  const int ns = (int)(sizeof SIZES / sizeof SIZES[0]);
  char *a = malloc(8192), *b = malloc(8192);
  assert_true(a != NULL && b != NULL);
  for (int x = 0; x < ns; x++)
    for (int y = 0; y < ns; y += 1 + (x > 4)) {
      const int64_t m = SIZES[x];
      tu_random_seq(&rng, a, m, "ACGT", 4);
      int64_t n = SIZES[y];
      if ((x + y) % 2) n = tu_mutate_seq(&rng, a, m, b, 0.1, "ACGT", 4, y == x ? 40 : 0);
      else tu_random_seq(&rng, b, n, "ACGT", 4);
      for (int mode = 0; mode < 3; mode++) {
        skss_align_desc d = dna_desc((skss_align_mode)mode, SKSS_ALIGN_OUTPUT_SCORE);
        d.a_len = m;
        d.b_len = n;
        char what[64];
        snprintf(what, sizeof what, "%lld x %lld mode %d", (long long)m, (long long)n, mode);
        check_pair(what, d, a, b);
      }
    }
  free(a);
  free(b);
}

/* Long vertical and horizontal gaps through the middle rows (Myers-Miller
 * splits 1500 x 800 pieces), and pairs big enough for the task-array passes
 * and the checkpoint splits (over 2^24 cells). The alignment output checks
 * score, begin and end at once. */
static void test_long_gaps_and_splits(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 2);
  static const int64_t CASES[][3] = {{1500, 700, 3}, {1300, 0, 1}, {4500, 900, 3}, {4099, 0, 1}};
  /* SKSS_TEST_SMALL (the TSan run): one Myers-Miller case and one split case. */
  const char *small = getenv("SKSS_TEST_SMALL");
  const bool few = small != NULL && small[0] != '\0' && small[0] != '0';
  char *a = malloc(16384), *b = malloc(16384);
  assert_true(a != NULL && b != NULL);
  for (size_t c = 0; c < sizeof CASES / sizeof CASES[0]; c++) {
    if (few && (c == 1 || c == 2)) continue;
    const int64_t base = CASES[c][0], gap = CASES[c][1];
    tu_random_seq(&rng, b, base, "ACGT", 4);
    const int64_t m = tu_mutate_seq(&rng, b, base, a, 0.08, "ACGT", 4, gap); /* a has the insertion: 'I' */
    for (int mode = 0; mode < (few ? 1 : CASES[c][2]); mode++) {
      skss_align_desc d = dna_desc((skss_align_mode)mode, SKSS_ALIGN_OUTPUT_ALIGNMENT);
      char what[64];
      snprintf(what, sizeof what, "gap case %zu (%lld x %lld) mode %d", c, (long long)m, (long long)base, mode);
      const bool flip = (c + (size_t)mode) % 2 == 1; /* a long 'D' instead */
      d.a_len = flip ? base : m;
      d.b_len = flip ? m : base;
      const char *x = flip ? b : a, *y = flip ? a : b;
      const skss_align_result want = run_one(0, d, x, y);
      for (int k = 1; k < N_CONFIGS; k++) {
        const skss_align_result got = run_one(k, d, x, y);
        tu_align_expect_same(&want, &got, true, what, k);
      }
    }
  }
  free(a);
  free(b);
}

/* BLOSUM62 and a user matrix against the oracle, lower case included. */
static void test_matrices(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() + 3);
  static const int32_t M3[9] = {3, -1, -2, -1, 4, 0, -2, 0, 2};
  char a[40], b[40];
  for (int rep = 0; rep < 40; rep++) {
    const int64_t m = tu_range(&rng, 0, 20), n = tu_range(&rng, 0, 20);
    for (int kind = 0; kind < 2; kind++) {
      skss_align_desc d = dna_desc((skss_align_mode)(rep % 3), SKSS_ALIGN_OUTPUT_ALIGNMENT);
      d.a_len = m;
      d.b_len = n;
      d.gap_open = 11;
      d.gap_extend = 1;
      if (kind == 0) {
        d.scoring = SKSS_ALIGN_SCORING_BLOSUM62;
        tu_random_seq(&rng, a, m, "ARNDCQEGHILKMFPSTWYVBZX*acdefghiklmnpqrstvwy", 44);
        tu_random_seq(&rng, b, n, "ARNDCQEGHILKMFPSTWYVBZX*", 24);
      } else {
        d.scoring = SKSS_ALIGN_SCORING_MATRIX;
        d.alphabet = "xY#";
        d.matrix = M3;
        d.gap_open = 2;
        tu_random_seq(&rng, a, m, "XyY#x", 5);
        tu_random_seq(&rng, b, n, "xY#", 3);
      }
      const skss_align_result want = oracle(&d, a, b);
      for (int k = 0; k < N_CONFIGS; k++) {
        const skss_align_result got = run_one(k, d, a, b);
        tu_align_expect_same(&want, &got, true, kind ? "matrix" : "blosum62", k);
      }
    }
  }
}

/* Bad letters, gap penalties, sizes and buffers: one clear error each. */
static void expect_fail(skss_ctx *ctx, const skss_align_desc *d, const char *a, const char *b, char *ops,
                        skss_status want, const char *needle) {
  skss_align_result r = {7, 7, 7, 7, 7, 7};
  const skss_status st = skss_align(ctx, d, a, b, &r, ops);
  if (st != want || strstr(skss_ctx_last_error(ctx), needle) == NULL ||
      strncmp(skss_ctx_last_error(ctx), "skss_align()", 12) != 0)
    TU_FAIL("expected %s with '%s', got %s: %s", skss_status_string(want), needle, skss_status_string(st),
            skss_ctx_last_error(ctx));
  assert_true(r.score == 7 && r.a_end == 7 && r.length == 7);
}

static void test_misuse(void **state) {
  (void)state;
  skss_ctx *ctx = ctxs[3];
  char ops[64];
  skss_align_desc d = dna_desc(SKSS_ALIGN_MODE_GLOBAL, SKSS_ALIGN_OUTPUT_SCORE);
  d.a_len = 4;
  d.b_len = 3;
  expect_fail(ctx, &d, "AC1T", "ACT", ops, SKSS_ERR_INVALID_ARG, "a[2] is '1'");
  expect_fail(ctx, &d, "ACGT", "A\nT", ops, SKSS_ERR_INVALID_ARG, "b[1] is byte 0x0a");
  d.scoring = SKSS_ALIGN_SCORING_BLOSUM62;
  expect_fail(ctx, &d, "ACGT", "AJT", ops, SKSS_ERR_INVALID_ARG, "b[1] is 'J'");
  d.scoring = SKSS_ALIGN_SCORING_MATRIX;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "alphabet and matrix");
  static const int32_t M2[4] = {1, 0, 0, 1};
  d.matrix = M2;
  d.alphabet = "aA";
  expect_fail(ctx, &d, "AAAA", "AAA", ops, SKSS_ERR_INVALID_ARG, "repeated");
  d.scoring = SKSS_ALIGN_SCORING_MATCH_MISMATCH;
  d.gap_open = 1;
  d.gap_extend = 2;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "gap_extend <= gap_open");
  d.gap_extend = -1;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "gap_extend <= gap_open");
  d.gap_open = 5;
  d.gap_extend = 2;
  d.a_len = -1;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "must be >= 0");
  d.a_len = 4;
  expect_fail(ctx, &d, NULL, "ACT", ops, SKSS_ERR_INVALID_ARG, "a is NULL");
  d.output = SKSS_ALIGN_OUTPUT_ALIGNMENT;
  d.ops_capacity = 6;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "ops_capacity 6");
  d.ops_capacity = 7;
  expect_fail(ctx, &d, "ACGT", "ACT", NULL, SKSS_ERR_INVALID_ARG, "needs ops");
  d.mode = (skss_align_mode)7;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "unknown mode");
  d.mode = SKSS_ALIGN_MODE_LOCAL;
  d.algorithm = (skss_align_algorithm)40;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "unknown align algorithm");
  d.algorithm = SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU;
  expect_fail(ctxs[0], &d, "ACGT", "ACT", ops, SKSS_ERR_UNSUPPORTED, "taskarray-cpu");
  d.algorithm = SKSS_ALIGN_ALGORITHM_AUTO;
  skss_align_result r;
  assert_int_equal(skss_align(NULL, &d, "ACGT", "ACT", &r, ops), SKSS_ERR_INVALID_ARG);
  int64_t score = 0;
  d.mode = SKSS_ALIGN_MODE_GLOBAL;
  assert_int_equal(skss_align_score_ops(ctx, &d, NULL, "ACT", 0, 0, "=", 1, &score), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_align_score_ops(ctx, &d, "ACGT", "ACT", 5, 0, "=", 1, &score), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_align_score_ops(ctx, &d, "ACGT", "ACT", 3, 3, "=", 1, &score), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_align_score_ops(ctx, &d, "ACGT", "ACT", 0, 0, "X", 1, &score), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_align_score_ops(ctx, &d, "ACGT", "ACT", 0, 0, "=IID", 4, &score), SKSS_OK);
  assert_int_equal(score, 2 - 5 - 2 - 5);
  d.size = 8;
  expect_fail(ctx, &d, "ACGT", "ACT", ops, SKSS_ERR_INVALID_ARG, "desc->size");
}

/* Scores that could pass the int32 range fail before any work. */
static void test_range(void **state) {
  (void)state;
  skss_ctx *ctx = ctxs[1];
  char ops[16];
  skss_align_desc d = dna_desc(SKSS_ALIGN_MODE_LOCAL, SKSS_ALIGN_OUTPUT_ALIGNMENT);
  d.a_len = 4;
  d.b_len = 4;
  d.ops_capacity = 8;
  d.match = 100000000; /* 4 matches would be 4e8 < 2^31, but (m + n + 2) W is past 2^29 */
  expect_fail(ctx, &d, "ACGT", "ACGT", ops, SKSS_ERR_OVERFLOW, "2^29");
  d.match = INT32_MAX;
  expect_fail(ctx, &d, "A", "A", ops, SKSS_ERR_OVERFLOW, "2^29");
  d.match = 2;
  d.mismatch = INT32_MIN;
  expect_fail(ctx, &d, "A", "A", ops, SKSS_ERR_OVERFLOW, "2^29");
  d.mismatch = -1;
  d.gap_open = d.gap_extend = 1 << 28;
  expect_fail(ctx, &d, "A", "A", ops, SKSS_ERR_OVERFLOW, "2^29");
  /* Just inside the limit: (4 + 4 + 2) * W < 2^29 scores exactly. */
  d.gap_open = d.gap_extend = 1;
  d.match = (1 << 29) / 10 - 1;
  skss_align_result r;
  TU_OK(ctx, skss_align(ctx, &d, "ACGT", "ACGT", &r, ops));
  assert_true(r.score == 4 * (int64_t)d.match && r.length == 4);
}

static void test_cigar(void **state) {
  (void)state;
  char out[32];
  size_t len = 0;
  assert_int_equal(skss_align_cigar("===XIIDDDDDDDDDDD=", 18, NULL, 0, &len), SKSS_OK);
  assert_int_equal(len, 11);
  assert_int_equal(skss_align_cigar("===XIIDDDDDDDDDDD=", 18, out, sizeof out, &len), SKSS_OK);
  assert_string_equal(out, "3=1X2I11D1=");
  assert_int_equal(skss_align_cigar("===XIIDDDDDDDDDDD=", 18, out, 11, &len), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_align_cigar("MMI", 3, out, sizeof out, &len), SKSS_OK);
  assert_string_equal(out, "2M1I");
  assert_int_equal(skss_align_cigar("", 0, out, 1, &len), SKSS_OK);
  assert_string_equal(out, "");
  assert_int_equal(skss_align_cigar("=Q", 2, out, sizeof out, &len), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_align_cigar("=", 1, out, sizeof out, NULL), SKSS_ERR_INVALID_ARG);
}

/* The CUDA algorithm is listed for cuda only: a CPU context refuses it,
 * never a silent fallback; with a GPU, one small call (tests/cuda/
 * test_cuda_align.c compares the backend with cpu-ref at length). */
static void test_cuda_listed(void **state) {
  (void)state;
  assert_int_equal(skss_algorithm_supported(SKSS_OP_ALIGN, 0, SKSS_BACKEND_CUDA), 1);
  assert_int_equal(skss_algorithm_supported(SKSS_OP_ALIGN, SKSS_ALIGN_ALGORITHM_SKSS, SKSS_BACKEND_CUDA), 1);
  assert_int_equal(skss_algorithm_supported(SKSS_OP_ALIGN, SKSS_ALIGN_ALGORITHM_SKSS, SKSS_BACKEND_CPU), 0);
  assert_string_equal(skss_algorithm_name(SKSS_OP_ALIGN, SKSS_ALIGN_ALGORITHM_SKSS), "skss");
  skss_align_desc d = dna_desc(SKSS_ALIGN_MODE_GLOBAL, SKSS_ALIGN_OUTPUT_SCORE);
  d.a_len = d.b_len = 1;
  d.algorithm = SKSS_ALIGN_ALGORITHM_SKSS;
  expect_fail(ctxs[1], &d, "A", "A", NULL, SKSS_ERR_UNSUPPORTED, "a CUDA algorithm");
  if (skss_device_count() == 0) skip();
  skss_ctx *ctx = tu_ctx(SKSS_BACKEND_CUDA, 1);
  d.a_len = 4;
  d.b_len = 3;
  d.output = SKSS_ALIGN_OUTPUT_ALIGNMENT;
  d.ops_capacity = 7;
  char ops[8];
  skss_align_result r;
  TU_OK(ctx, skss_align(ctx, &d, "ACGT", "AGT", &r, ops));
  assert_int_equal(r.score, 2 * 3 - 5);
  assert_int_equal(r.length, 4);
  skss_ctx_destroy(ctx);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_tiny_against_oracle), cmocka_unit_test(test_empty_and_single),
      cmocka_unit_test(test_backends_agree),      cmocka_unit_test(test_long_gaps_and_splits),
      cmocka_unit_test(test_matrices),            cmocka_unit_test(test_misuse),
      cmocka_unit_test(test_range),               cmocka_unit_test(test_cigar),
      cmocka_unit_test(test_cuda_listed),
  };
  if (getenv("SKSS_TEST_FILTER") != NULL) cmocka_set_test_filter(getenv("SKSS_TEST_FILTER"));
  return cmocka_run_group_tests(tests, setup, teardown);
}
