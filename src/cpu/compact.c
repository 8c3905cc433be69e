/*
 * compact.c — SKSS_COMPACT_ALGORITHM_SCAN_CPU: multithreaded stream compaction with the
 * paper's three steps ("Designing an efficient stream compaction algorithmic
 * function": flag each element, exclusive prefix sum of the flags, scatter
 * each kept element to its slot), done per block of SKSS__COMPACT_BLOCK
 * elements so that the input is read from memory once:
 *  1. flag: the predicate of the block's elements becomes one bit each
 *     (64 per word, branch-free and vectorisable), and the block's count is
 *     their popcount; the block's input is now in this core's cache;
 *  2. scan: the exclusive prefix of the block counts, by decoupled look-back
 *     (Merrill and Garland's single-pass scan, as in CUB): a block publishes
 *     its count, then walks back over earlier blocks' published counts to the
 *     nearest published prefix, then publishes its own prefix. A block whose
 *     owner has not counted it yet (descheduled, on a busy machine) is
 *     counted by the walker itself after a short wait, so no thread ever
 *     waits on another;
 *  3. scatter: the kept elements and/or indices go to their slots, read back
 *     from cache: with AVX-512 (VBMI2) compress and masked stores when the
 *     context's level (isa.h) has them; portably, bit by bit for sparse
 *     words, with branch-free stores for dense ones, as one run for full
 *     ones. Nothing is ever written past the count.
 * Threads take blocks in order from an atomic ticket counter; there is no
 * barrier and no wait that can block, whatever the number of threads.
 * The flag and portable scatter loops are compiled for the baseline and, in
 * GCC builds for x86-64, for x86-64-v3 and x86-64-v4, and picked by the
 * context's level.
 *
 * Every predicate is first reduced to one interval test, so the inner loops
 * are specialised per element width only, with no per-element switch:
 *  - integers: keep x iff ((x - lo) mod 2^bits <= span) XOR invert, where
 *    [lo, lo + span] is the predicate's interval clamped to the type's range;
 *  - floats: keep x iff (lo <= x && x <= hi) XOR invert, where a strict bound
 *    becomes the next float inside (x < a iff x <= nextafter(a, -inf)) and a
 *    NaN bound empties the interval, so NaN is kept only under invert
 *    (NE, NONZERO);
 *  - masks: the bytes' != 0 flags, or the bit mask's words as they are.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "compact_impl.h"
#include "isa.h"
#include "threadpool.h"

/* Tuning: elements per block (a multiple of 64; 8192 f64 are 64 KiB, kept in
 * L2 between the flag and scatter steps); the fewest kept elements in a word
 * for which branch-free stores beat walking the set bits; how many pauses
 * the look-back waits for a block's owner before counting the block itself
 * (about the time one block's flag step takes). */
#define SKSS__COMPACT_BLOCK 8192
#define SKSS__COMPACT_DENSE_MIN 40
#define SKSS__COMPACT_PATIENCE 64

#define BLOCK_WORDS (SKSS__COMPACT_BLOCK / 64)

/* The hot loops are compiled once per level (SKSS__LEVEL_FNS below); the
 * inline helpers are compiled into each. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define SKSS__COMPACT_LEVELS 1
#define SKSS__V3 __attribute__((target("arch=x86-64-v3")))
#define SKSS__V4 __attribute__((target("arch=x86-64-v4")))
#endif
#define SKSS__INLINE static inline __attribute__((always_inline))

/* The predicate as one interval test (see the top of the file), computed by
 * the core (compact_impl.h). */
typedef skss__compact_rule keep_test;

typedef struct scan_state scan_state;
/* Flags the block's elements [begin, begin + len) into bits[]; returns how many are kept. */
typedef int64_t (*flag_fn)(const scan_state *s, int64_t begin, int len, uint64_t *bits);
/* Writes the block's kept elements to slots [first, first + kept). */
typedef void (*scatter_fn)(const scan_state *s, int64_t begin, int len, const uint64_t *bits,
                           int64_t first, int64_t kept);

/* A block's status word, on its own cache line: STATUS_UNKNOWN, then the
 * block's count c as -1 - c, then its inclusive prefix p >= 0 (the count of
 * this block and all before it). */
typedef struct block_status {
  _Atomic int64_t word;
  char pad[64 - sizeof(int64_t)];
} block_status;
#define STATUS_UNKNOWN INT64_MIN

struct scan_state {
  const skss__compact_job *job;
  const void *flag_source;  /* what the flags read: the input or the mask */
  keep_test test;
  flag_fn flag;
  scatter_fn scatter;       /* NULL when only the count is wanted */
  int64_t blocks;
  block_status *status;     /* one per block */
  /* the ticket counter, on its own cache line: taking a ticket must not evict
   * the fields above from the other workers' caches */
  _Alignas(64) _Atomic int64_t next_block;
  char pad[64 - sizeof(int64_t)];
};

/* ---- step 1: flags ------------------------------------------------------ */

/* 8 bytes as a little-endian word (one load on little-endian machines). */
SKSS__INLINE uint64_t load_le64(const uint8_t *p) {
  uint64_t v = 0;
  for (int k = 7; k >= 0; k--) v = v << 8 | p[k];
  return v;
}

/* 64 flags of 0 or 1, one per byte, into one word with flag j at bit j: the
 * multiply moves byte j's bit to bit 56 + j without carries. */
SKSS__INLINE uint64_t pack_flags(const uint8_t f[64]) {
  uint64_t bits = 0;
  for (int g = 0; g < 8; g++)
    bits |= ((load_le64(f + 8 * g) * UINT64_C(0x0102040810204080)) >> 56) << (8 * g);
  return bits;
}

SKSS__INLINE int64_t popcount64(uint64_t w) { return (int64_t)__builtin_popcountll(w); }

/* The per-element tests, on the element's bits (integers) or value (floats). */
#define SKSS__INT_TEST(UT)                                                   \
  SKSS__INLINE uint8_t test_##UT(UT x, const keep_test *t) {                 \
    return (uint8_t)(((UT)(x - (UT)t->lo) <= (UT)t->span) ^ t->invert);      \
  }
SKSS__INT_TEST(uint8_t)
SKSS__INT_TEST(uint16_t)
SKSS__INT_TEST(uint32_t)
SKSS__INT_TEST(uint64_t)

SKSS__INLINE uint8_t test_float(float x, const keep_test *t) {
  return (uint8_t)(((x >= (float)t->lo_f) & (x <= (float)t->hi_f)) ^ t->invert);
}
SKSS__INLINE uint8_t test_double(double x, const keep_test *t) {
  return (uint8_t)(((x >= t->lo_f) & (x <= t->hi_f)) ^ t->invert);
}
SKSS__INLINE uint8_t test_mask_byte(uint8_t m, const keep_test *t) {
  (void)t;
  return m != 0;
}

/* word_<NAME>: the flags of 64 elements of type T with test TEST. */
#define SKSS__FLAGS_WORD(NAME, T, TEST)                                                           \
  SKSS__INLINE uint64_t word_##NAME(const T *restrict x, const keep_test *t) {                    \
    uint8_t f[64];                                                                                \
    for (int j = 0; j < 64; j++) f[j] = TEST(x[j], t);                                            \
    return pack_flags(f);                                                                         \
  }
SKSS__FLAGS_WORD(u8, uint8_t, test_uint8_t)
SKSS__FLAGS_WORD(u16, uint16_t, test_uint16_t)
SKSS__FLAGS_WORD(u32, uint32_t, test_uint32_t)
SKSS__FLAGS_WORD(u64, uint64_t, test_uint64_t)
SKSS__FLAGS_WORD(f32, float, test_float)
SKSS__FLAGS_WORD(f64, double, test_double)
SKSS__FLAGS_WORD(mask_bytes, uint8_t, test_mask_byte)
#undef SKSS__FLAGS_WORD

/* flags_<NAME><SUF>: the flag step over elements of type T, compiled with
 * ATTR. A partial last word is tested on a zero-padded copy and its padding
 * bits cleared. */
#define SKSS__FLAGS(NAME, T, SUF, ATTR)                                                           \
  static ATTR int64_t flags_##NAME##SUF(const scan_state *s, int64_t begin, int len,              \
                                        uint64_t *restrict bits) {                                \
    const T *x = (const T *)s->flag_source + begin;                                               \
    const keep_test t = s->test;                                                                  \
    const int full = len / 64, rest = len % 64;                                                   \
    int64_t kept = 0;                                                                             \
    for (int w = 0; w < full; w++) {                                                              \
      bits[w] = word_##NAME(x + 64 * w, &t);                                                      \
      kept += popcount64(bits[w]);                                                                \
    }                                                                                             \
    if (rest != 0) {                                                                              \
      T padded[64] = {0};                                                                         \
      memcpy(padded, x + 64 * full, sizeof(T) * (size_t)rest);                                    \
      bits[full] = word_##NAME(padded, &t) & ((UINT64_C(1) << rest) - 1);                         \
      kept += popcount64(bits[full]);                                                             \
    }                                                                                             \
    return kept;                                                                                  \
  }

/* The bit mask is already the flags: bit k of the little-endian words. */
#define SKSS__FLAGS_MASK_BITS(SUF, ATTR)                                                          \
  static ATTR int64_t flags_mask_bits##SUF(const scan_state *s, int64_t begin, int len,           \
                                           uint64_t *bits) {                                      \
    const uint8_t *m = (const uint8_t *)s->flag_source + begin / 8;                               \
    const int full = len / 64, rest = len % 64;                                                   \
    int64_t kept = 0;                                                                             \
    for (int w = 0; w < full; w++) {                                                              \
      bits[w] = load_le64(m + 8 * w);                                                             \
      kept += popcount64(bits[w]);                                                                \
    }                                                                                             \
    if (rest != 0) {                                                                              \
      uint8_t tail[8] = {0};                                                                      \
      memcpy(tail, m + 8 * full, (size_t)(rest + 7) / 8);                                         \
      bits[full] = load_le64(tail) & ((UINT64_C(1) << rest) - 1);                                 \
      kept += popcount64(bits[full]);                                                             \
    }                                                                                             \
    return kept;                                                                                  \
  }

/* ---- step 3: scatter ---------------------------------------------------- */

/* The element widths (values are copied as bits: NaN payloads and -0.0 stay)
 * and the output sets a scatter writes; X(UT, OUT, WANT_VALUES, WANT_INDICES). */
#define SKSS__WIDTHS(X, ...) \
  X(uint8_t, __VA_ARGS__) X(uint16_t, __VA_ARGS__) X(uint32_t, __VA_ARGS__) X(uint64_t, __VA_ARGS__)
#define SKSS__OUTPUTS(X, UT)     \
  X(UT, values, true, false)     \
  X(UT, indices, false, true)    \
  X(UT, both, true, true)

/* Portable: set bits one by one for sparse words, branch-free stores for
 * dense ones (a word's speculative stores stay below `end`, inside this
 * block's slots), one run for full words. */
#define SKSS__SCATTER_WORDS(UT, UNUSED)                                                           \
  SKSS__INLINE int64_t sparse_##UT(const UT *restrict x, uint64_t word, int64_t index,            \
                                   UT *restrict values, int64_t *restrict indices, int64_t c) {   \
    for (; word != 0; word &= word - 1, c++) {                                                    \
      const int j = __builtin_ctzll(word);                                                        \
      if (values != NULL) values[c] = x[j];                                                       \
      if (indices != NULL) indices[c] = index + j;                                                \
    }                                                                                             \
    return c;                                                                                     \
  }                                                                                               \
  SKSS__INLINE int64_t dense_##UT(const UT *restrict x, uint64_t word, int64_t index,             \
                                  UT *restrict values, int64_t *restrict indices, int64_t c) {    \
    for (int j = 0; j < 64; j++) {                                                                \
      if (values != NULL) values[c] = x[j];                                                       \
      if (indices != NULL) indices[c] = index + j;                                                \
      c += (int64_t)((word >> j) & 1u);                                                           \
    }                                                                                             \
    return c;                                                                                     \
  }                                                                                               \
  SKSS__INLINE int64_t run_##UT(const UT *restrict x, int64_t index, UT *restrict values,         \
                                int64_t *restrict indices, int64_t c) {                           \
    for (int j = 0; j < 64; j++) {                                                                \
      if (values != NULL) values[c + j] = x[j];                                                   \
      if (indices != NULL) indices[c + j] = index + j;                                            \
    }                                                                                             \
    return c + 64;                                                                                \
  }                                                                                               \
  SKSS__INLINE void scatter_##UT(const scan_state *s, int64_t begin, int len,                     \
                                 const uint64_t *bits, int64_t c, int64_t kept, bool want_values, \
                                 bool want_indices) {                                             \
    const UT *x = (const UT *)s->job->in + begin;                                                 \
    UT *values = want_values ? (UT *)s->job->values : NULL;                                       \
    int64_t *indices = want_indices ? s->job->indices : NULL;                                     \
    const int64_t end = c + kept;                                                                 \
    for (int w = 0; 64 * w < len; w++) {                                                          \
      const int64_t pop = popcount64(bits[w]), index = begin + 64 * w;                            \
      if (pop == 64)                                                                              \
        c = run_##UT(x + 64 * w, index, values, indices, c);                                      \
      else if (pop >= SKSS__COMPACT_DENSE_MIN && c + pop < end && 64 * (w + 1) <= len)            \
        c = dense_##UT(x + 64 * w, bits[w], index, values, indices, c);                           \
      else                                                                                        \
        c = sparse_##UT(x + 64 * w, bits[w], index, values, indices, c);                          \
    }                                                                                             \
  }
SKSS__WIDTHS(SKSS__SCATTER_WORDS, ~)

#define SKSS__SCATTER(UT, OUT, WANT_VALUES, WANT_INDICES, SUF, ATTR)                              \
  static ATTR void scatter_##UT##_##OUT##SUF(const scan_state *s, int64_t begin, int len,         \
                                             const uint64_t *bits, int64_t first, int64_t kept) { \
    scatter_##UT(s, begin, len, bits, first, kept, WANT_VALUES, WANT_INDICES);                    \
  }
#define SKSS__SCATTERS(UT, SUF, ATTR)                 \
  SKSS__SCATTER(UT, values, true, false, SUF, ATTR)   \
  SKSS__SCATTER(UT, indices, false, true, SUF, ATTR)  \
  SKSS__SCATTER(UT, both, true, true, SUF, ATTR)

/* Every flag and portable scatter function of one level. */
#define SKSS__LEVEL_FNS(SUF, ATTR)                                              \
  SKSS__FLAGS(u8, uint8_t, SUF, ATTR) SKSS__FLAGS(u16, uint16_t, SUF, ATTR)     \
  SKSS__FLAGS(u32, uint32_t, SUF, ATTR) SKSS__FLAGS(u64, uint64_t, SUF, ATTR)   \
  SKSS__FLAGS(f32, float, SUF, ATTR) SKSS__FLAGS(f64, double, SUF, ATTR)        \
  SKSS__FLAGS(mask_bytes, uint8_t, SUF, ATTR) SKSS__FLAGS_MASK_BITS(SUF, ATTR)  \
  SKSS__SCATTERS(uint8_t, SUF, ATTR) SKSS__SCATTERS(uint16_t, SUF, ATTR)        \
  SKSS__SCATTERS(uint32_t, SUF, ATTR) SKSS__SCATTERS(uint64_t, SUF, ATTR)
SKSS__LEVEL_FNS(, )
#if defined(SKSS__COMPACT_LEVELS)
SKSS__LEVEL_FNS(_v3, SKSS__V3)
SKSS__LEVEL_FNS(_v4, SKSS__V4)
#endif

/* AVX-512 (x86-64 with VBMI2, chosen at run time): per vector of one word,
 * masked load of the kept lanes, compress them together, masked store of
 * exactly that many, so nothing is written past a block's slots. */
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define SKSS__HAVE_AVX512 1
#define SKSS__AVX512_TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,bmi2,popcnt")))

#define SKSS__VALUES512(UT, BITS, LANES, MASK)                                                   \
  static inline __attribute__((always_inline)) SKSS__AVX512_TARGET int64_t values512_##UT(      \
      const UT *x, uint64_t word, UT *values, int64_t c) {                                      \
    for (int g = 0; g < 64 / LANES; g++) {                                                      \
      const MASK m = (MASK)(word >> (g * LANES));                                               \
      const __m512i in = _mm512_maskz_loadu_epi##BITS(m, x + g * LANES);                       \
      const __m512i v = _mm512_maskz_compress_epi##BITS(m, in);                                 \
      const unsigned kept = (unsigned)__builtin_popcountll(m);                                  \
      _mm512_mask_storeu_epi##BITS(values + c, (MASK)_bzhi_u64(~UINT64_C(0), kept), v);         \
      c += kept;                                                                                \
    }                                                                                           \
    return c;                                                                                   \
  }
SKSS__VALUES512(uint8_t, 8, 64, __mmask64)
SKSS__VALUES512(uint16_t, 16, 32, __mmask32)
SKSS__VALUES512(uint32_t, 32, 16, __mmask16)
SKSS__VALUES512(uint64_t, 64, 8, __mmask8)

static inline __attribute__((always_inline)) SKSS__AVX512_TARGET int64_t indices512(
    int64_t index, uint64_t word, int64_t *indices, int64_t c) {
  const __m512i iota = _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0);
  for (int g = 0; g < 8; g++) {
    const __mmask8 m = (__mmask8)(word >> (8 * g));
    const __m512i v = _mm512_add_epi64(_mm512_set1_epi64(index + 8 * g), iota);
    const unsigned kept = (unsigned)__builtin_popcount(m);
    const __m512i packed = _mm512_maskz_compress_epi64(m, v);
    _mm512_mask_storeu_epi64(indices + c, (__mmask8)_bzhi_u32(0xffu, kept), packed);
    c += kept;
  }
  return c;
}

#define SKSS__SCATTER512(UT, OUT, WANT_VALUES, WANT_INDICES)                                     \
  static SKSS__AVX512_TARGET void scatter512_##UT##_##OUT(const scan_state *s, int64_t begin,   \
                                                          int len, const uint64_t *bits,        \
                                                          int64_t c, int64_t kept) {            \
    (void)kept;                                                                                 \
    const UT *x = (const UT *)s->job->in + begin;                                               \
    for (int w = 0; 64 * w < len; w++) {                                                        \
      if (WANT_VALUES) values512_##UT(x + 64 * w, bits[w], (UT *)s->job->values, c);           \
      if (WANT_INDICES) indices512(begin + 64 * w, bits[w], s->job->indices, c);                \
      c += popcount64(bits[w]);                                                                 \
    }                                                                                           \
  }
#define SKSS__SCATTERS512(UT, UNUSED) SKSS__OUTPUTS(SKSS__SCATTER512, UT)
SKSS__WIDTHS(SKSS__SCATTERS512, ~)

#endif

/* ---- choosing the instantiations ------------------------------------- */

/* One level's functions: flags by input kind, portable scatters by element
 * width (1, 2, 4, 8 bytes) and outputs (values / indices / both). */
typedef struct level_fns {
  flag_fn u8, u16, u32, u64, f32, f64, mask_bytes, mask_bits;
  scatter_fn scatter[9][3];
} level_fns;

#define SKSS__SCATTER_ROW(PREFIX, UT, SUF) \
  [sizeof(UT)] = {PREFIX##UT##_values##SUF, PREFIX##UT##_indices##SUF, PREFIX##UT##_both##SUF},
#define SKSS__LEVEL_TABLE(SUF)                                                                  \
  {flags_u8##SUF, flags_u16##SUF, flags_u32##SUF, flags_u64##SUF, flags_f32##SUF,               \
   flags_f64##SUF, flags_mask_bytes##SUF, flags_mask_bits##SUF,                                 \
   {SKSS__SCATTER_ROW(scatter_, uint8_t, SUF) SKSS__SCATTER_ROW(scatter_, uint16_t, SUF)        \
    SKSS__SCATTER_ROW(scatter_, uint32_t, SUF) SKSS__SCATTER_ROW(scatter_, uint64_t, SUF)}}

static const level_fns *level_of(skss__cpu_isa isa) {
  static const level_fns base = SKSS__LEVEL_TABLE();
#if defined(SKSS__COMPACT_LEVELS)
  static const level_fns v3 = SKSS__LEVEL_TABLE(_v3), v4 = SKSS__LEVEL_TABLE(_v4);
  if (isa >= SKSS__CPU_ISA_AVX512) return &v4;
  if (isa >= SKSS__CPU_ISA_AVX2) return &v3;
#else
  (void)isa;
#endif
  return &base;
}

static flag_fn choose_flag(const level_fns *fns, skss_compact_keep predicate, skss_dtype dtype) {
  if (predicate == SKSS_COMPACT_KEEP_MASK_BYTES) return fns->mask_bytes;
  if (predicate == SKSS_COMPACT_KEEP_MASK_BITS) return fns->mask_bits;
  switch (dtype) {
    case SKSS_DTYPE_F32: return fns->f32;
    case SKSS_DTYPE_F64: return fns->f64;
    default: break;
  }
  switch (skss_dtype_size(dtype)) {
    case 1: return fns->u8;
    case 2: return fns->u16;
    case 4: return fns->u32;
    default: return fns->u64;
  }
}

static scatter_fn choose_scatter(skss__cpu_isa isa, size_t width, bool want_values,
                                 bool want_indices) {
  if (!want_values && !want_indices) return NULL;
  const int column = want_values ? (want_indices ? 2 : 0) : 1;
#ifdef SKSS__HAVE_AVX512
  static const scatter_fn simd[9][3] = {
      SKSS__SCATTER_ROW(scatter512_, uint8_t, ) SKSS__SCATTER_ROW(scatter512_, uint16_t, )
      SKSS__SCATTER_ROW(scatter512_, uint32_t, ) SKSS__SCATTER_ROW(scatter512_, uint64_t, )};
  if (isa >= SKSS__CPU_ISA_AVX512_VBMI2) return simd[width][column];
#endif
  return level_of(isa)->scatter[width][column];
}

/* ---- the pipeline ------------------------------------------------------- */

/* Status words carry their whole message (a count or a prefix); nothing else
 * is published through them, so they are relaxed atomics; the caller reads
 * the last prefix after skss__parallel() has joined the workers. */
static int64_t load_status(scan_state *s, int64_t block) {
  return atomic_load_explicit(&s->status[block].word, memory_order_relaxed);
}

/* Publishes a block's count unless someone did already; returns the word now there. */
static int64_t publish_count(scan_state *s, int64_t block, int64_t count) {
  int64_t expected = STATUS_UNKNOWN;
  /* relaxed CAS: only UNKNOWN may become a count, so a prefix is never overwritten. */
  if (atomic_compare_exchange_strong_explicit(&s->status[block].word, &expected, -1 - count,
                                              memory_order_relaxed, memory_order_relaxed))
    return -1 - count;
  return expected;
}

static int block_length(const scan_state *s, int64_t block) {
  const int64_t left = s->job->n - block * SKSS__COMPACT_BLOCK;
  return left < SKSS__COMPACT_BLOCK ? (int)left : SKSS__COMPACT_BLOCK;
}

/* Block `block`'s status word, waiting a little for its owner and then
 * counting the block here if the owner still has not. */
static int64_t status_or_help(scan_state *s, int64_t block) {
  for (unsigned spins = 0; spins < SKSS__COMPACT_PATIENCE;) {
    const int64_t word = load_status(s, block);
    if (word != STATUS_UNKNOWN) return word;
    /* spin-wait, bounded: the owner took its ticket first and is most likely flagging. */
    skss__spin_pause(&spins);
  }
  uint64_t bits[BLOCK_WORDS];
  const int64_t count = s->flag(s, block * SKSS__COMPACT_BLOCK, block_length(s, block), bits);
  return publish_count(s, block, count);
}

/* The number of elements kept by the blocks before `block`. */
static int64_t prefix_before(scan_state *s, int64_t block) {
  int64_t sum = 0;
  for (int64_t j = block - 1; j >= 0; j--) {
    const int64_t word = status_or_help(s, j);
    if (word >= 0) return sum + word;
    sum += -1 - word;
  }
  return sum;
}

static void scan_worker(int worker, int workers, void *arg) {
  (void)worker;
  (void)workers;
  scan_state *s = arg;
  uint64_t bits[BLOCK_WORDS];
  for (;;) {
    /* relaxed: the ticket only hands out blocks; counts travel in the status words. */
    const int64_t block = atomic_fetch_add_explicit(&s->next_block, 1, memory_order_relaxed);
    if (block >= s->blocks) return;
    const int64_t begin = block * SKSS__COMPACT_BLOCK;
    const int len = block_length(s, block);
    const int64_t kept = s->flag(s, begin, len, bits);
    if (block > 0) publish_count(s, block, kept);
    const int64_t first = prefix_before(s, block);
    /* relaxed (see load_status): later blocks' look-backs stop here. */
    atomic_store_explicit(&s->status[block].word, first + kept, memory_order_relaxed);
    if (s->scatter != NULL) s->scatter(s, begin, len, bits, first, kept);
  }
}

skss_status skss__compact_scan_cpu(skss_ctx *ctx, const skss__compact_job *in_job, int64_t *count) {
  const int64_t blocks = in_job->n / SKSS__COMPACT_BLOCK + (in_job->n % SKSS__COMPACT_BLOCK != 0);
  if (blocks == 0) {
    *count = 0;
    return SKSS_OK;
  }
  /* In place, a block's slots can hold input an earlier block has not read
   * yet: the values go to scratch after the counters, and are copied back. */
  const bool in_place = in_job->values != NULL && in_job->values == in_job->in;
  const size_t elem = skss_dtype_size(in_job->dtype);
  const size_t counters = ((size_t)blocks * sizeof(block_status) + 63) / 64 * 64;
  block_status *status = skss__scratch(ctx, counters + (in_place ? (size_t)in_job->n * elem : 0));
  if (status == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_compact(): no memory for %lld block counters%s",
                      (long long)blocks, in_place ? " and the in-place copy" : "");
  skss__compact_job staged = *in_job;
  if (in_place) staged.values = (char *)status + counters;
  const skss__compact_job *job = &staged;
  for (int64_t b = 0; b < blocks; b++) atomic_init(&status[b].word, STATUS_UNKNOWN);
  const bool mask = job->predicate == SKSS_COMPACT_KEEP_MASK_BYTES || job->predicate == SKSS_COMPACT_KEEP_MASK_BITS;
  const skss__cpu_isa isa = skss__ctx_cpu_isa(ctx);
  scan_state s = {
      .job = job,
      .flag_source = mask ? (const void *)job->mask : job->in,
      .test = job->rule,
      .flag = choose_flag(level_of(isa), job->predicate, job->dtype),
      .scatter = choose_scatter(isa, skss_dtype_size(job->dtype), job->values != NULL,
                                job->indices != NULL),
      .blocks = blocks,
      .status = status,
  };
  atomic_init(&s.next_block, 0);
  const int workers = blocks < ctx->threads ? (int)blocks : ctx->threads;
  skss__parallel(ctx, workers, scan_worker, &s);
  *count = load_status(&s, blocks - 1);
  if (in_place) memcpy(in_job->values, staged.values, (size_t)*count * elem);
  return SKSS_OK;
}
