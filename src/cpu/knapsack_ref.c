/*
 * knapsack_ref.c — SKSS_KNAPSACK_ALGORITHM_DP, the sequential dynamic programme of the
 * 0-1 knapsack problem (Funasaka, Nakano, Ito, SKSS task arrays, Section V.A):
 *   V[c][0] = 0;  V[c][j+1] = V[c][j] if c < w_j, else max(V[c][j], V[c-w_j][j] + v_j),
 * one item (row) after another over the capacities (all of them on CPU_REF,
 * from the row's lower bound on the CPU backend, see knapsack_impl.h), in two
 * row buffers, with the decision bits V[c][j+1] != V[c][j] when
 * reconstructing. Single-threaded.
 *
 * Also the row kernel both DP algorithms run (skss__knap_span): plain C for
 * CPU_REF (the oracle), AVX2 or AVX-512 for the CPU backend, as the
 * context's instruction-set level (isa.h) allows. A kernel works
 * on 64 capacities at a time so that the 64 decision bits of a word come out
 * of vector compares (movemask / mask registers) without a branch per cell.
 */
#include <string.h>

#include "core/internal.h"
#include "knapsack_impl.h"

#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#define SKSS__KNAP_X86 1
#define SKSS__TARGET(isa) __attribute__((target(isa)))
#else
#define SKSS__KNAP_X86 0
#endif

#if defined(__GNUC__)
#define SKSS__INLINE static inline __attribute__((always_inline))
#else
#define SKSS__INLINE static inline
#endif

/* Capacities of one decision word. */
#define WORD_CELLS 64

/*
 * Per cell type T: the scalar kernel of a partial word [c, e) (c the word's
 * first capacity) and the generic span, parameterised by the kernel of a
 * whole word whose capacities are all >= w. The span copies capacities of
 * whole words below w (their bits are 0), runs partial words and the word
 * holding w in plain C and every other word through `block`.
 */
#define SKSS__KNAP_GENERIC(T, SUF)                                                             \
  SKSS__INLINE uint64_t scalar_word_##SUF(const T *restrict prev, T *restrict next, int64_t c,  \
                                          int64_t e, int64_t w, T v) {                         \
    uint64_t word = 0;                                                                         \
    for (int64_t x = c; x < e; x++) {                                                          \
      T keep = prev[x];                                                                        \
      T with = x >= w ? (T)(prev[x - w] + v) : keep;                                           \
      int take = with > keep;                                                                  \
      next[x] = take ? with : keep;                                                            \
      word |= (uint64_t)take << (x - c);                                                       \
    }                                                                                          \
    return word;                                                                               \
  }                                                                                            \
  SKSS__INLINE uint64_t scalar_block_##SUF(const T *restrict prev_c, const T *restrict prev_cw, \
                                           T *restrict next_c, T v) {                          \
    uint64_t word = 0;                                                                         \
    for (int k = 0; k < WORD_CELLS; k++) {                                                     \
      T with = (T)(prev_cw[k] + v);                                                            \
      int take = with > prev_c[k];                                                             \
      next_c[k] = take ? with : prev_c[k];                                                     \
      word |= (uint64_t)take << k;                                                             \
    }                                                                                          \
    return word;                                                                               \
  }                                                                                            \
  typedef uint64_t (*block_fn_##SUF)(const T *, const T *, T *, T);                            \
  SKSS__INLINE void span_##SUF(const T *restrict prev, T *restrict next, int64_t lo, int64_t hi, \
                               int64_t w, T v, uint64_t *restrict bits, block_fn_##SUF block) { \
    int64_t c = lo;                                                                            \
    int64_t copy_end = (hi < w ? hi : w) / WORD_CELLS * WORD_CELLS;                            \
    if (copy_end > c) {                                                                        \
      memcpy(next + c, prev + c, (size_t)(copy_end - c) * sizeof(T));                          \
      if (bits) memset(bits + c / WORD_CELLS, 0, (size_t)(copy_end - c) / 8);                  \
      c = copy_end;                                                                            \
    }                                                                                          \
    for (; c < hi; c += WORD_CELLS) {                                                          \
      int64_t e = hi - c < WORD_CELLS ? hi : c + WORD_CELLS;                                   \
      uint64_t word = e - c == WORD_CELLS && c >= w                                            \
                          ? block(prev + c, prev + c - w, next + c, v)                         \
                          : scalar_word_##SUF(prev, next, c, e, w, v);                         \
      if (bits) bits[c / WORD_CELLS] = word;                                                   \
    }                                                                                          \
  }

SKSS__KNAP_GENERIC(int32_t, i32)
SKSS__KNAP_GENERIC(int64_t, i64)

#if SKSS__KNAP_X86
/* AVX2: 8 (int32) or 4 (int64) capacities per compare; movemask packs the bits. */
SKSS__INLINE SKSS__TARGET("avx2") uint64_t avx2_block_i32(const int32_t *prev_c,
                                                          const int32_t *prev_cw,
                                                          int32_t *next_c, int32_t v) {
  __m256i vv = _mm256_set1_epi32(v);
  uint64_t word = 0;
  for (int k = 0; k < WORD_CELLS / 8; k++) {
    __m256i keep = _mm256_loadu_si256((const __m256i *)(prev_c + 8 * k));
    __m256i with = _mm256_add_epi32(_mm256_loadu_si256((const __m256i *)(prev_cw + 8 * k)), vv);
    __m256i take = _mm256_cmpgt_epi32(with, keep);
    _mm256_storeu_si256((__m256i *)(next_c + 8 * k), _mm256_max_epi32(keep, with));
    word |= (uint64_t)(unsigned)_mm256_movemask_ps(_mm256_castsi256_ps(take)) << (8 * k);
  }
  return word;
}

SKSS__INLINE SKSS__TARGET("avx2") uint64_t avx2_block_i64(const int64_t *prev_c,
                                                          const int64_t *prev_cw,
                                                          int64_t *next_c, int64_t v) {
  __m256i vv = _mm256_set1_epi64x(v);
  uint64_t word = 0;
  for (int k = 0; k < WORD_CELLS / 4; k++) {
    __m256i keep = _mm256_loadu_si256((const __m256i *)(prev_c + 4 * k));
    __m256i with = _mm256_add_epi64(_mm256_loadu_si256((const __m256i *)(prev_cw + 4 * k)), vv);
    __m256i take = _mm256_cmpgt_epi64(with, keep);
    _mm256_storeu_si256((__m256i *)(next_c + 4 * k), _mm256_blendv_epi8(keep, with, take));
    word |= (uint64_t)(unsigned)_mm256_movemask_pd(_mm256_castsi256_pd(take)) << (4 * k);
  }
  return word;
}

/* AVX-512: 16 (int32) or 8 (int64) capacities per compare into a mask register. */
SKSS__INLINE SKSS__TARGET("avx512f") uint64_t avx512_block_i32(const int32_t *prev_c,
                                                               const int32_t *prev_cw,
                                                               int32_t *next_c, int32_t v) {
  __m512i vv = _mm512_set1_epi32(v);
  uint64_t word = 0;
  for (int k = 0; k < WORD_CELLS / 16; k++) {
    __m512i keep = _mm512_loadu_si512(prev_c + 16 * k);
    __m512i with = _mm512_add_epi32(_mm512_loadu_si512(prev_cw + 16 * k), vv);
    __mmask16 take = _mm512_cmpgt_epi32_mask(with, keep);
    _mm512_storeu_si512(next_c + 16 * k, _mm512_mask_mov_epi32(keep, take, with));
    word |= (uint64_t)take << (16 * k);
  }
  return word;
}

SKSS__INLINE SKSS__TARGET("avx512f") uint64_t avx512_block_i64(const int64_t *prev_c,
                                                               const int64_t *prev_cw,
                                                               int64_t *next_c, int64_t v) {
  __m512i vv = _mm512_set1_epi64(v);
  uint64_t word = 0;
  for (int k = 0; k < WORD_CELLS / 8; k++) {
    __m512i keep = _mm512_loadu_si512(prev_c + 8 * k);
    __m512i with = _mm512_add_epi64(_mm512_loadu_si512(prev_cw + 8 * k), vv);
    __mmask8 take = _mm512_cmpgt_epi64_mask(with, keep);
    _mm512_storeu_si512(next_c + 8 * k, _mm512_mask_mov_epi64(keep, take, with));
    word |= (uint64_t)take << (8 * k);
  }
  return word;
}
#endif

/* One span function per (instruction set, cell type): the generic span with
 * that set's word kernel inlined, compiled for that set. */
#define SKSS__KNAP_SPAN_FN(NAME, ATTR, T, SUF, BLOCK)                                          \
  static ATTR void NAME(const void *prev, void *next, int64_t lo, int64_t hi, int64_t w,       \
                        int64_t v, uint64_t *bits) {                                           \
    span_##SUF((const T *)prev, (T *)next, lo, hi, w, (T)v, bits, BLOCK);                      \
  }

#define SKSS__NO_ATTR
SKSS__KNAP_SPAN_FN(scalar_span_i32, SKSS__NO_ATTR, int32_t, i32, scalar_block_i32)
SKSS__KNAP_SPAN_FN(scalar_span_i64, SKSS__NO_ATTR, int64_t, i64, scalar_block_i64)
#if SKSS__KNAP_X86
SKSS__KNAP_SPAN_FN(avx2_span_i32, SKSS__TARGET("avx2"), int32_t, i32, avx2_block_i32)
SKSS__KNAP_SPAN_FN(avx2_span_i64, SKSS__TARGET("avx2"), int64_t, i64, avx2_block_i64)
SKSS__KNAP_SPAN_FN(avx512_span_i32, SKSS__TARGET("avx512f"), int32_t, i32, avx512_block_i32)
SKSS__KNAP_SPAN_FN(avx512_span_i64, SKSS__TARGET("avx512f"), int64_t, i64, avx512_block_i64)
#endif

skss__knap_isa skss__knap_isa_at(skss__cpu_isa level) {
#if SKSS__KNAP_X86
  if (level >= SKSS__CPU_ISA_AVX512) return SKSS__KNAP_AVX512;
  if (level >= SKSS__CPU_ISA_AVX2) return SKSS__KNAP_AVX2;
#else
  (void)level;
#endif
  return SKSS__KNAP_SCALAR;
}

int skss__knap_isa_supported(skss__knap_isa isa) {
  return isa <= skss__knap_isa_at(skss__cpu_isa_detected());
}

void skss__knap_span(skss__knap_isa isa, int wide, const void *prev, void *next, int64_t lo,
                     int64_t hi, int64_t w, int64_t v, uint64_t *row_bits) {
  switch (isa) {
#if SKSS__KNAP_X86
    case SKSS__KNAP_AVX512:
      (wide ? avx512_span_i64 : avx512_span_i32)(prev, next, lo, hi, w, v, row_bits);
      return;
    case SKSS__KNAP_AVX2:
      (wide ? avx2_span_i64 : avx2_span_i32)(prev, next, lo, hi, w, v, row_bits);
      return;
#endif
    default:
      (wide ? scalar_span_i64 : scalar_span_i32)(prev, next, lo, hi, w, v, row_bits);
      return;
  }
}

bool skss__knap_row_bytes(const skss__knap *p, size_t *bytes) {
  /* Whole words of cells, so every row of a ring starts on a cache line. */
  uint64_t cells = ((uint64_t)p->cap + WORD_CELLS) / WORD_CELLS * WORD_CELLS;
  return cells <= SIZE_MAX && skss__mul_size((size_t)cells, p->wide ? 8 : 4, bytes);
}

int64_t skss__knap_cell(const skss__knap *p, const void *row, int64_t c) {
  return p->wide ? ((const int64_t *)row)[c] : ((const int32_t *)row)[c];
}

void skss__knap_finish(skss__knap *p, const void *row) {
  p->best = skss__knap_cell(p, row, p->cap);
  if (p->table == NULL) return;
  for (int64_t c = 0; c <= p->cap; c++) p->table[c] = skss__knap_cell(p, row, c);
}

bool skss__knapsack_dp_work(const skss__knap *p, size_t *bytes) {
  size_t row;
  return skss__knap_row_bytes(p, &row) && skss__mul_size(row, 2, bytes);
}

void skss__knapsack_dp(skss__knap *p) {
  size_t row_bytes = 0;
  skss__knap_row_bytes(p, &row_bytes);
  char *rows = p->work;
  /* Buffer (j & 1) holds V[.][j+1]; buffer 1 starts as V[.][0] = 0. */
  memset(rows + row_bytes, 0, row_bytes);
  for (int64_t j = 0; j < p->items; j++) {
    uint64_t *row_bits = p->bits ? p->bits + j * p->words : NULL;
    skss__knap_span(p->isa, p->wide, rows + (size_t)((j + 1) & 1) * row_bytes,
                    rows + (size_t)(j & 1) * row_bytes, p->low ? p->low[j] : 0, p->cap + 1, p->w[j],
                    p->v[j], row_bits);
  }
  skss__knap_finish(p, rows + (size_t)((p->items + 1) & 1) * row_bytes);
}
