/*
 * test_cuda_align.c — skss_align() on the CUDA backend (algorithm skss, and
 * AUTO on a cuda and an auto context) against cpu-ref, which test_align.c
 * checks against a full-table oracle. Score, begin and end must be identical
 * (skss.h's tie rule); every returned alignment is re-scored with
 * skss_align_score_ops() and must equal the score and cover begin..end.
 * Cases: random and mutated DNA pairs of awkward sizes (0, 1, 31, 33, primes,
 * around a warp's band of 512 rows and its 64-column chunks, up to tens of
 * kbp), long insertions across bands and checkpoint rows, every mode and
 * output, gap penalties with e = 0 and e = o, BLOSUM62 proteins and a user
 * matrix, scores near the int32 range check, one and several CPU threads for
 * the traceback's pieces, a repeat that must give the same bytes, and the
 * traceback's segments solved whole (direction bits) and split.
 * SKSS_TEST_SMALL=1 keeps a few sizes <= 1000 and fewer calls (compute-sanitizer: racecheck
 * tracks the score table's shared-memory load of every cell); SKSS_TEST_ONLY=PATTERN
 * runs the matching tests. Exits 77 without a GPU.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static int small_only(void) {
  const char *v = getenv("SKSS_TEST_SMALL");
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

typedef struct config {
  skss_backend backend;
  int threads;
  skss_align_algorithm algorithm;
} config;

/* Config 0 is the reference. */
static const config CONFIGS[] = {
    {SKSS_BACKEND_CPU_REF, 1, SKSS_ALIGN_ALGORITHM_AUTO},
    {SKSS_BACKEND_CUDA, 1, SKSS_ALIGN_ALGORITHM_SKSS},
    {SKSS_BACKEND_CUDA, 4, SKSS_ALIGN_ALGORITHM_AUTO},
    {SKSS_BACKEND_AUTO, 2, SKSS_ALIGN_ALGORITHM_AUTO},
};
#define N_CONFIGS ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

static skss_ctx *ctxs[N_CONFIGS];

static int setup(void **state) {
  (void)state;
  for (int k = 0; k < N_CONFIGS; k++) ctxs[k] = tu_ctx(CONFIGS[k].backend, CONFIGS[k].threads);
  return 0;
}

static int teardown(void **state) {
  (void)state;
  for (int k = 0; k < N_CONFIGS; k++) skss_ctx_destroy(ctxs[k]);
  return 0;
}

/* Runs one config; with the alignment, re-scores it and checks its extent. */
static skss_align_result run_one(int k, skss_align_desc d, const char *a, const char *b, const char *what) {
  d.algorithm = CONFIGS[k].algorithm;
  return tu_align_checked(ctxs[k], d, a, b, what, k);
}

/* cpu-ref against every CUDA config, every output (big pairs: the
 * alignment only, which runs every pass of the others). */
static void check_pair(const char *what, skss_align_desc d, const char *a, const char *b) {
  const int first = (double)d.a_len * (double)d.b_len > 4e6 ? SKSS_ALIGN_OUTPUT_ALIGNMENT : 0;
  for (int out = first; out < 3; out++) {
    d.output = (skss_align_output)out;
    const skss_align_result want = run_one(0, d, a, b, what);
    for (int k = 1; k < N_CONFIGS; k++) {
      const skss_align_result got = run_one(k, d, a, b, what);
      const int fixed = out != SKSS_ALIGN_OUTPUT_SCORE || d.mode == SKSS_ALIGN_MODE_GLOBAL;
      char named[160];
      snprintf(named, sizeof named, "%s output %d", what, out);
      tu_align_expect_same(&want, &got, fixed, named, k);
      if (!fixed) assert_true(got.a_begin == -1 && got.b_begin == -1);
    }
  }
}

static skss_align_desc dna_desc(skss_align_mode mode) {
  skss_align_desc d = SKSS_ALIGN_DESC_INIT;
  d.mode = mode;
  d.match = 2;
  d.mismatch = -3;
  d.gap_open = 5;
  d.gap_extend = 2;
  return d;
}

static const char PROTEIN[] = "ARNDCQEGHILKMFPSTWYVBZX*";

/* The algorithm is listed for cuda (and AUTO there), not for the CPUs. */
static void test_listed(void **state) {
  (void)state;
  int id = -1;
  assert_int_equal(skss_algorithm_from_name(SKSS_OP_ALIGN, "skss", &id), SKSS_OK);
  assert_int_equal(id, SKSS_ALIGN_ALGORITHM_SKSS);
  assert_int_equal(skss_algorithm_supported(SKSS_OP_ALIGN, SKSS_ALIGN_ALGORITHM_SKSS, SKSS_BACKEND_CUDA), 1);
  assert_int_equal(skss_algorithm_supported(SKSS_OP_ALIGN, SKSS_ALIGN_ALGORITHM_SKSS, SKSS_BACKEND_CPU), 0);
  assert_int_equal(skss_algorithm_supported(SKSS_OP_ALIGN, 0, SKSS_BACKEND_CUDA), 1);
  assert_int_equal(skss_ctx_op_backend(ctxs[1], SKSS_OP_ALIGN), SKSS_BACKEND_CUDA);
}

/* Small random pairs: every mode, gap pair, DNA alphabet size and output. */
static void test_small_random(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0xA11C);
  static const int32_t GAPS[][2] = {{5, 2}, {3, 3}, {0, 0}, {11, 1}, {1, 0}};
  char a[80], b[80], what[96];
  const int reps = small_only() ? 4 : 60;
  for (int rep = 0; rep < reps; rep++) {
    const int64_t m = tu_range(&rng, 0, 70), n = tu_range(&rng, 0, 70);
    const int letters = (int)tu_range(&rng, 1, 4);
    tu_random_seq(&rng, a, m, "ACGT", letters);
    tu_random_seq(&rng, b, n, "acgt", letters);
    for (int mode = 0; mode < 3; mode++) {
      const int g = (int)tu_range(&rng, 0, 4);
      skss_align_desc d = dna_desc((skss_align_mode)mode);
      d.a_len = m;
      d.b_len = n;
      d.match = (int32_t)tu_range(&rng, 0, 4);
      d.mismatch = (int32_t)tu_range(&rng, -5, 1);
      d.gap_open = GAPS[g][0];
      d.gap_extend = GAPS[g][1];
      snprintf(what, sizeof what, "rep %d %lldx%lld mode %d gaps %d", rep, (long long)m, (long long)n, mode, g);
      check_pair(what, d, a, b);
    }
  }
}

/* Awkward sizes: random pairs and mutated copies, DNA, every mode. */
static void test_awkward_sizes(void **state) {
  (void)state;
  static const int64_t SIZES[] = {0,   1,   2,   31,  33,  63,  64,   65,   97,   511,
                                  512, 513, 547, 1021, 1024, 1031, 4099, 10007, 24593};
  const int count = (int)(sizeof SIZES / sizeof SIZES[0]);
  const int64_t cap = small_only() ? 600 : 30000;
  /* under a sanitizer: band edges only (one and two bands, a short last one), one partner */
  static const int64_t SMALL_SIZES[] = {0, 1, 2, 31, 33, 64, 65, 513, 547};
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0x5EED);
  char *a = malloc(30000), *b = malloc(30000 * 2 + 64);
  assert_true(a != NULL && b != NULL);
  char what[96];
  for (int x = 0; x < count; x++) {
    if (SIZES[x] > cap) continue;
    int listed = !small_only();
    for (size_t k = 0; k < sizeof SMALL_SIZES / sizeof SMALL_SIZES[0]; k++) listed |= SMALL_SIZES[k] == SIZES[x];
    if (!listed) continue;
    /* a few partners per size: the same, a prime near it, and a random one */
    const int64_t partners[3] = {SIZES[x], SIZES[(x * 7 + 3) % count], tu_range(&rng, 0, SIZES[x] + 40)};
    for (int p = small_only() ? 2 : 0; p < 3; p++) {
      const int64_t m = SIZES[x], n0 = partners[p] > cap ? cap : partners[p];
      tu_random_seq(&rng, a, m, "ACGT", 4);
      const int mutated = p != 1 && m > 0;
      int64_t n = n0;
      if (mutated) n = tu_mutate_seq(&rng, a, m, b, 0.08, "ACGT", 4, 0);
      else tu_random_seq(&rng, b, n, "ACGT", 4);
      for (int mode = 0; mode < 3; mode++) {
        if ((double)m * (double)n > 1e8 && mode != (x % 3)) continue; /* the biggest: one mode each */
        skss_align_desc d = dna_desc((skss_align_mode)mode);
        d.a_len = m;
        d.b_len = n;
        snprintf(what, sizeof what, "%s %lldx%lld mode %d", mutated ? "mutated" : "random", (long long)m,
                 (long long)n, mode);
        check_pair(what, d, a, b);
      }
    }
  }
  free(a);
  free(b);
}

/* Long insertions in the middle (across bands and checkpoint rows) and
 * local alignments of a motif buried in noise. */
static void test_long_gaps(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0x6A95);
  const int64_t m = small_only() ? 300 : 9001;
  char *a = malloc((size_t)m), *b = malloc((size_t)(m * 2 + 4000));
  assert_true(a != NULL && b != NULL);
  char what[96];
  static const int64_t GAP[] = {1, 40, 600, 1500};
  for (int g = 0; g < (small_only() ? 3 : 4); g++) {
    tu_random_seq(&rng, a, m, "ACGT", 4);
    const int64_t n = tu_mutate_seq(&rng, a, m, b, 0.02, "ACGT", 4, GAP[g]);
    for (int swap = 0; swap < 2; swap++)
      for (int mode = 0; mode < 3; mode++) {
        skss_align_desc d = dna_desc((skss_align_mode)mode);
        d.gap_open = 10;
        d.gap_extend = g == 3 ? 0 : 1;
        d.a_len = swap ? n : m;
        d.b_len = swap ? m : n;
        snprintf(what, sizeof what, "gap %lld swap %d mode %d", (long long)GAP[g], swap, mode);
        check_pair(what, d, swap ? b : a, swap ? a : b);
      }
  }
  free(a);
  free(b);
}

/* Proteins with BLOSUM62 and a user matrix (the kernel's table path). */
static void test_matrices(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0xB10);
  static const int64_t SIZES[] = {1, 29, 97, 600, 2003, 7001};
  const int64_t cap = small_only() ? 100 : 8000;
  char *a = malloc(8000), *b = malloc(8000 * 2 + 64);
  assert_true(a != NULL && b != NULL);
  static const char ALPHA[] = "acgtRYN";
  int32_t matrix[49];
  for (int k = 0; k < 49; k++) matrix[k] = (int32_t)tu_range(&rng, -6, 6);
  for (int k = 0; k < 7; k++) matrix[k * 8] = (int32_t)tu_range(&rng, 3, 9);
  char what[96];
  for (int s = 0; s < 6; s++) {
    const int64_t m = SIZES[s];
    if (m > cap) continue;
    for (int which = 0; which < 2; which++) {
      const char *letters = which == 0 ? PROTEIN : ALPHA;
      const int k = which == 0 ? 24 : 7;
      tu_random_seq(&rng, a, m, letters, k);
      const int64_t n = tu_mutate_seq(&rng, a, m, b, 0.2, letters, k, s == 3 ? 50 : 0);
      for (int mode = 0; mode < 3; mode++) {
        skss_align_desc d = SKSS_ALIGN_DESC_INIT;
        d.mode = (skss_align_mode)mode;
        d.scoring = which == 0 ? SKSS_ALIGN_SCORING_BLOSUM62 : SKSS_ALIGN_SCORING_MATRIX;
        d.alphabet = ALPHA;
        d.matrix = matrix;
        d.gap_open = which == 0 ? 11 : 4;
        d.gap_extend = which == 0 ? 1 : 4;
        d.a_len = m;
        d.b_len = n;
        snprintf(what, sizeof what, "%s %lldx%lld mode %d", which ? "matrix" : "blosum62", (long long)m,
                 (long long)n, mode);
        check_pair(what, d, a, b);
      }
    }
  }
  free(a);
  free(b);
}

/* Scores and penalties as large as the int32 range check allows. */
static void test_wide_scores(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0x3B17);
  char a[700], b[1100], what[96];
  const int64_t m = 600;
  tu_random_seq(&rng, a, m, "ACGT", 4);
  const int64_t n = tu_mutate_seq(&rng, a, m, b, 0.1, "ACGT", 4, 30);
  const int64_t w = ((INT64_C(1) << 29) - 1) / (m + n + 2) - 1;
  for (int mode = 0; mode < 3; mode++) {
    skss_align_desc d = dna_desc((skss_align_mode)mode);
    d.match = (int32_t)(w / 3);
    d.mismatch = (int32_t)-w;
    d.gap_open = (int32_t)w;
    d.gap_extend = (int32_t)(w / 2);
    d.a_len = m;
    d.b_len = n;
    snprintf(what, sizeof what, "wide %lld mode %d", (long long)w, mode);
    check_pair(what, d, a, b);
  }
}

/* The same call twice gives the same result and the same ops (a race shows
 * as a difference); the pair is big enough for many bands a pass. */
static void test_repeatable(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0x4E9);
  const int64_t m = small_only() ? 600 : 40000;
  char *a = malloc((size_t)m), *b = malloc((size_t)(m * 2 + 64));
  char *ops[2] = {malloc((size_t)(m * 3 + 64)), malloc((size_t)(m * 3 + 64))};
  assert_true(a != NULL && b != NULL && ops[0] != NULL && ops[1] != NULL);
  tu_random_seq(&rng, a, m, "ACGT", 4);
  const int64_t n = tu_mutate_seq(&rng, a, m, b, 0.1, "ACGT", 4, 100);
  for (int mode = 0; mode < 3; mode++) {
    skss_align_desc d = dna_desc((skss_align_mode)mode);
    d.output = SKSS_ALIGN_OUTPUT_ALIGNMENT;
    d.algorithm = SKSS_ALIGN_ALGORITHM_SKSS;
    d.a_len = m;
    d.b_len = n;
    d.ops_capacity = m + n;
    skss_align_result r[2];
    for (int rep = 0; rep < 2; rep++) TU_OK(ctxs[1], skss_align(ctxs[1], &d, a, b, &r[rep], ops[rep]));
    assert_memory_equal(&r[0], &r[1], sizeof r[0]);
    assert_memory_equal(ops[0], ops[1], (size_t)r[0].length);
    d.output = SKSS_ALIGN_OUTPUT_SCORE;
    for (int rep = 0; rep < 2; rep++) TU_OK(ctxs[1], skss_align(ctxs[1], &d, a, b, &r[rep], NULL));
    assert_memory_equal(&r[0], &r[1], sizeof r[0]);
  }
  free(a);
  free(b);
  free(ops[0]);
  free(ops[1]);
}

/* Segments solved whole on the GPU (their direction bits fit) and split by
 * passes: the default budget (the root whole), none (every big segment
 * split, as before the bits), and one that splits the root and solves its
 * pieces whole (after a vertical gap across a split row too). */
static void test_whole_and_split(void **state) {
  (void)state;
  tu_rng rng;
  tu_rng_init(&rng, tu_seed() ^ 0xB175);
  const int64_t m = small_only() ? 1100 : 9001;
  char *a = malloc((size_t)m), *b = malloc((size_t)(m * 2 + 4000));
  assert_true(a != NULL && b != NULL);
  static const char *const BUDGETS[] = {NULL, "0", "4000000"};
  char what[96];
  for (int k = 0; k < (small_only() ? 1 : 3); k++) {
    /* NULL: the default, whatever the environment the test runs in says */
    if (BUDGETS[k] != NULL) setenv("SKSS_ALIGN_BITS_BYTES", BUDGETS[k], 1);
    else unsetenv("SKSS_ALIGN_BITS_BYTES");
    tu_random_seq(&rng, a, m, "ACGT", 4);
    const int64_t n = tu_mutate_seq(&rng, a, m, b, 0.05, "ACGT", 4, small_only() ? 40 : 700);
    for (int mode = 0; mode < 3; mode++) {
      skss_align_desc d = dna_desc((skss_align_mode)mode);
      d.gap_open = 10;
      d.gap_extend = 1;
      d.a_len = n;
      d.b_len = m;
      snprintf(what, sizeof what, "bits budget %s mode %d", BUDGETS[k] ? BUDGETS[k] : "default", mode);
      check_pair(what, d, b, a);
    }
    unsetenv("SKSS_ALIGN_BITS_BYTES");
  }
  free(a);
  free(b);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_listed, setup, teardown),
      cmocka_unit_test_setup_teardown(test_small_random, setup, teardown),
      cmocka_unit_test_setup_teardown(test_awkward_sizes, setup, teardown),
      cmocka_unit_test_setup_teardown(test_long_gaps, setup, teardown),
      cmocka_unit_test_setup_teardown(test_matrices, setup, teardown),
      cmocka_unit_test_setup_teardown(test_wide_scores, setup, teardown),
      cmocka_unit_test_setup_teardown(test_repeatable, setup, teardown),
      cmocka_unit_test_setup_teardown(test_whole_and_split, setup, teardown),
  };
  /* SKSS_TEST_ONLY=PATTERN: the tests whose names match */
  const char *only = getenv("SKSS_TEST_ONLY");
  if (only != NULL && only[0] != '\0') cmocka_set_test_filter(only);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
