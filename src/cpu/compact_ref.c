/*
 * compact_ref.c — SKSS_COMPACT_ALGORITHM_LOOP: the sequential stream compaction the
 * paper starts from ("The Stream Compaction Function": valid elements are
 * moved from the input vector to the output one, in order): for each element,
 * test the predicate, copy the element and/or its index to the next output
 * slot, count it. One thread; the oracle every other algorithm is tested
 * against, so it states the predicates literally (C comparisons of the
 * element, widened to int64 / uint64 / float / double, with the scalar).
 */
#include <stdbool.h>

#include "compact_impl.h"

/* The predicate of skss.h on x, with the scalars a, b already in x's
 * comparison type S; `k` is the element's index, for the masks. */
#define SKSS__REF_KEEP(S)                                                                 \
  static inline bool keep_##S(const skss__compact_job *job, S x, S a, S b, int64_t k) {   \
    switch (job->predicate) {                                                             \
      case SKSS_COMPACT_KEEP_LT: return x < a;                                                    \
      case SKSS_COMPACT_KEEP_LE: return x <= a;                                                   \
      case SKSS_COMPACT_KEEP_GT: return x > a;                                                    \
      case SKSS_COMPACT_KEEP_GE: return x >= a;                                                   \
      case SKSS_COMPACT_KEEP_EQ: return x == a;                                                   \
      case SKSS_COMPACT_KEEP_NE: return x != a;                                                   \
      case SKSS_COMPACT_KEEP_RANGE: return a <= x && x < b;                                       \
      case SKSS_COMPACT_KEEP_NONZERO: return x != 0;                                              \
      case SKSS_COMPACT_KEEP_MASK_BYTES: return job->mask[k] != 0;                                \
      case SKSS_COMPACT_KEEP_MASK_BITS: return (job->mask[k / 8] >> (k % 8)) & 1u;                \
    }                                                                                     \
    return false;                                                                         \
  }

SKSS__REF_KEEP(int64_t)
SKSS__REF_KEEP(uint64_t)
SKSS__REF_KEEP(float)
SKSS__REF_KEEP(double)

/* Each dtype: its C type T, the type S it is compared in, and the member of
 * skss_scalar that holds its scalars (f32 compares with (float)a.f). */
#define SKSS__REF_DTYPES(X)                     \
  X(SKSS_DTYPE_U8, uint8_t, uint64_t, u)        \
  X(SKSS_DTYPE_I8, int8_t, int64_t, i)          \
  X(SKSS_DTYPE_U16, uint16_t, uint64_t, u)      \
  X(SKSS_DTYPE_I16, int16_t, int64_t, i)        \
  X(SKSS_DTYPE_U32, uint32_t, uint64_t, u)      \
  X(SKSS_DTYPE_I32, int32_t, int64_t, i)        \
  X(SKSS_DTYPE_U64, uint64_t, uint64_t, u)      \
  X(SKSS_DTYPE_I64, int64_t, int64_t, i)        \
  X(SKSS_DTYPE_F32, float, float, f)            \
  X(SKSS_DTYPE_F64, double, double, f)

/* The loop itself, once per dtype: test, copy, count. */
#define SKSS__REF_LOOP(DTYPE, T, S, FIELD)                                   \
  static int64_t loop_##T(const skss__compact_job *job) {                    \
    const T *in = job->in;                                                   \
    T *values = job->values;                                                 \
    const S a = (S)job->a.FIELD, b = (S)job->b.FIELD;                        \
    int64_t count = 0;                                                       \
    for (int64_t k = 0; k < job->n; k++) {                                   \
      if (!keep_##S(job, (S)in[k], a, b, k)) continue;                       \
      if (values != NULL) values[count] = in[k];                             \
      if (job->indices != NULL) job->indices[count] = k;                     \
      count++;                                                               \
    }                                                                        \
    return count;                                                            \
  }
SKSS__REF_DTYPES(SKSS__REF_LOOP)

int64_t skss__compact_loop(const skss__compact_job *job) {
#define SKSS__REF_CASE(DTYPE, T, S, FIELD) \
  case DTYPE: return loop_##T(job);
  switch (job->dtype) { SKSS__REF_DTYPES(SKSS__REF_CASE) }
#undef SKSS__REF_CASE
  return 0;
}
