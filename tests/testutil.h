/*
 * testutil.h — shared helpers of the cmocka tests: a seeded generator whose
 * seed is printed on failure (SKSS_TEST_SEED overrides it), the awkward
 * sizes every primitive is tested on, elements read as numbers, the
 * generators of knapsack instances and compaction scalars that several tests
 * share, and context helpers.
 */
#ifndef SKSS_TESTUTIL_H
#define SKSS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "skss.h"

/* xoshiro256** state; deterministic from a 64-bit seed. */
typedef struct tu_rng {
  uint64_t s[4];
} tu_rng;

/* The run's base seed: SKSS_TEST_SEED from the environment or a fixed one. */
uint64_t tu_seed(void);
void tu_rng_init(tu_rng *r, uint64_t seed);
uint64_t tu_next(tu_rng *r);
/* Uniform in [lo, hi] (inclusive). */
int64_t tu_range(tu_rng *r, int64_t lo, int64_t hi);
/* Uniform double in [0, 1). */
double tu_unit(tu_rng *r);
/* Fills n bytes with random data. */
void tu_fill_bytes(tu_rng *r, void *p, size_t n);
/* n random letters of alphabet[0 .. letters - 1] (a sequence to align). */
void tu_random_seq(tu_rng *r, char *s, int64_t n, const char *alphabet, int letters);
/* A copy of src with about `rate` substitutions, insertions and deletions
 * and, with gap > 0, `gap` random letters inserted in the middle; returns
 * the length (dst has room for n + n / 2 + gap + 16). */
int64_t tu_mutate_seq(tu_rng *r, const char *src, int64_t n, char *dst, double rate, const char *alphabet,
                      int letters, int64_t gap);

/* Awkward sizes: 1, 2, 31, 32, 33, primes, ... (tu_sizes_count of them). */
extern const int64_t tu_sizes[];
extern const int tu_sizes_count;

/* The element of dtype t at p as a number: exact for every dtype (long
 * double holds every 64-bit integer where it has a 64-bit significand). */
long double tu_load(skss_dtype t, const void *p);
bool tu_dtype_is_float(skss_dtype t);
bool tu_dtype_is_signed(skss_dtype t);

/* A 0-1 knapsack instance: n items (w and v have n + 1 zeroed slots). */
typedef struct tu_knapsack {
  int64_t n, cap;
  int64_t *w, *v;
} tu_knapsack;

/* Pisinger's instance classes, and ZEROS: uncorrelated values mixed with
 * zero weights, zero values and items heavier than the capacity. */
typedef enum tu_knapsack_kind {
  TU_KNAPSACK_UNCORRELATED,
  TU_KNAPSACK_WEAK,
  TU_KNAPSACK_STRONG,
  TU_KNAPSACK_ZEROS,
  TU_KNAPSACK_INVERSE_STRONG, /* values in [1, range], weights value + range / 10 */
  TU_KNAPSACK_SUBSET_SUM,     /* value = weight */
  TU_KNAPSACK_ALMOST_STRONG,  /* value weight + range / 10 +- range / 500 */
  TU_KNAPSACK_SPANNER,        /* Pisinger's spanner(2, 10): multiples of 2 strongly correlated items */
  TU_KNAPSACK_PROFIT_CEILING, /* value 3 ceil(weight / 3) */
  TU_KNAPSACK_KINDS
} tu_knapsack_kind;

/* n zeroed items and capacity cap; fails the test if it can't allocate. */
tu_knapsack tu_knapsack_new(int64_t n, int64_t cap);
/* n items of `kind` with weights in [1, range]; cap < 0: half the total weight. */
tu_knapsack tu_knapsack_random(tu_rng *r, tu_knapsack_kind kind, int64_t n, int64_t range, int64_t cap);
void tu_knapsack_free(tu_knapsack *in);

/* Compaction scalar pair `which` (0 to 3) for dtype t: random, the type's
 * limits, the int64 limits, just outside the type (integers); random,
 * infinities, NaN and 0.5, -0.0 and 0.1, with 1e300 (which f32 rounds to
 * inf) as b (floats). */
void tu_compact_scalars(tu_rng *r, skss_dtype t, int which, skss_scalar *a, skss_scalar *b);

/* n elements of d->dtype for a compaction test: random, a quarter of them
 * awkward (the scalars and their neighbours, 0, +-1, the type's limits;
 * floats also NaN, -NaN, infinities, -0.0, the least subnormal), and a
 * random mask of n bytes whose bits past n are set (to be ignored). */
void tu_compact_fill(tu_rng *r, const skss_compact_desc *d, void *in, uint8_t *mask);
/* Every compaction dtype, and every predicate's CLI name (by skss_compact_keep). */
#define TU_COMPACT_N_DTYPES 10
#define TU_COMPACT_N_KEEPS (SKSS_COMPACT_KEEP_MASK_BITS + 1)
extern const skss_dtype TU_COMPACT_DTYPES[TU_COMPACT_N_DTYPES];
extern const char *const TU_COMPACT_KEEP_NAMES[TU_COMPACT_N_KEEPS];

/* The large compaction cases: a million f32 in [0, 1) kept below 0, 0.5
 * and 2 (selectivities 0, 50 and 100 %), then a million-bit random mask;
 * each is handed to check(arg, desc, input). */
void tu_compact_large(tu_rng *r, void (*check)(void *arg, skss_compact_desc d, const void *in),
                      void *arg);

/* A context of `backend` with `threads` threads; fails the test if it can't. */
skss_ctx *tu_ctx(skss_backend backend, int threads);

/* A misuse of skss_halftone() on `d` must return `want` with a message
 * that names skss_halftone() and contains `needle`, and leave all
 * `out_bytes` of `out` as they were (they are first set to 0xA5). */
void tu_expect_halftone_misuse(skss_ctx *ctx, const skss_halftone_desc *d, const uint8_t *in,
                               uint8_t *out, size_t out_bytes, skss_status want,
                               const char *needle);

/* skss_align() of d (its algorithm as given) on ctx; with the alignment,
 * re-scores the ops and checks they cover [a_begin, a_end) x [b_begin,
 * b_end). `what` and `config` name the case in a failure. */
skss_align_result tu_align_checked(skss_ctx *ctx, skss_align_desc d, const char *a, const char *b,
                                   const char *what, int config);
/* Fails unless got has want's score and ends (and, with with_begin, begins). */
void tu_align_expect_same(const skss_align_result *want, const skss_align_result *got, bool with_begin,
                          const char *what, int config);

/* Asserts st == SKSS_OK, printing the context's error text and the seed. */
#define TU_OK(ctx, call)                                                                 \
  do {                                                                                   \
    skss_status tu_st_ = (call);                                                         \
    if (tu_st_ != SKSS_OK) {                                                             \
      print_error("%s:%d: %s -> %s: %s (seed %llu)\n", __FILE__, __LINE__, #call,        \
                  skss_status_string(tu_st_), skss_ctx_last_error(ctx),                 \
                  (unsigned long long)tu_seed());                                        \
      fail();                                                                            \
    }                                                                                    \
  } while (0)

/* Prints a failure with the seed and fails the test. */
#define TU_FAIL(...)                                                                     \
  do {                                                                                   \
    print_error(__VA_ARGS__);                                                            \
    print_error(" (seed %llu)\n", (unsigned long long)tu_seed());                        \
    fail();                                                                              \
  } while (0)

#endif
