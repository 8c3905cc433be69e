/*
 * sat.c — our CPU summed-area tables (Funasaka, Nakano, Ito, SKSS task arrays, §V.B for the
 * formula; the HMM paper's 2R1W idea for the bands).
 *  - ROWSCAN_CPU: one pass per row on the calling thread: row i of the
 *    table is row i-1 plus the running sum along row i. The input is read
 *    once and the output written once (1R1W); the row above is re-read
 *    from L1/L2, where it was just written. The running sum is an
 *    in-register SIMD prefix of each vector plus a broadcast carry, so the
 *    only serial chain is one vector add per vector; the output is
 *    prefetched a little ahead of the stores.
 *  - BANDS_CPU: the rows split into one band per worker. Phase 1: worker k
 *    sums its band's columns into buffer k+1 (the last worker zeroes buffer
 *    0, band 0's row above). Phase 2, columns split over workers: buffers
 *    become prefix sums over the bands. Phase 3: worker k turns buffer k
 *    into the SAT row above its band (a prefix along the row) and runs the
 *    ROWSCAN pass over its band from it. Barriers separate the phases. The
 *    input is read twice, the output written once (2R1W); ROWSCAN is the
 *    one-band case.
 * One instantiation per type pair (SKSS__SAT_PAIRS), squared or not a
 * compile-time specialisation of the row kernel, compiled for the baseline
 * and, on x86-64, for AVX2 (picked by the context's level, isa.h); plain
 * u8 -> u32 (the common image case, and the box filter's) has an AVX2
 * intrinsics kernel. skss__sat_run() is the CPU backend's SAT dispatch.
 */
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define SKSS__SAT_AVX2 1
#endif

#include "isa.h"
#include "sat_impl.h"
#include "threadpool.h"

/* Tuning: the row kernels prefetch the output this many bytes ahead, so
 * the read-for-ownership of the lines they are about to overwrite starts
 * early (about 10% on an EPYC whose caches the output outgrows). */
#define SKSS__SAT_PREFETCH_BYTES 2048

static inline void prefetch_ahead(const void *p) {
  __builtin_prefetch((const void *)((uintptr_t)p + SKSS__SAT_PREFETCH_BYTES), 0, 3);
}

#define ROW(type, base, pitch, i) ((type *)(void *)((base) + (size_t)(i) * (pitch)))

/* The 32-byte vector helpers below are static and always inlined, so no
 * vector crosses a call and GCC's note on the AVX calling convention does
 * not apply. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wunknown-warning-option"
#endif
#if defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

/* 32-byte vectors of each accumulator type: 8 lanes of u32 or f32, 4 of f64. */
typedef uint32_t vec_uint32_t __attribute__((vector_size(32)));
typedef float vec_float __attribute__((vector_size(32)));
typedef double vec_double __attribute__((vector_size(32)));

/* In-register inclusive prefix of a vector, and its last lane broadcast.
 * The shifts stay inside 16-byte halves (one pslldq each); the low half's
 * total is then added to the high half. */
#define SKSS__VEC8_FNS(t)                                                       \
  static inline __attribute__((always_inline)) vec_##t vprefix_##t(vec_##t v) { \
    const vec_##t z = {0};                                                      \
    v += __builtin_shufflevector(v, z, 8, 0, 1, 2, 8, 4, 5, 6);                 \
    v += __builtin_shufflevector(v, z, 8, 8, 0, 1, 8, 8, 4, 5);                 \
    return v + __builtin_shufflevector(v, z, 8, 8, 8, 8, 3, 3, 3, 3);           \
  }                                                                             \
  static inline __attribute__((always_inline)) vec_##t vlast_##t(vec_##t v) {   \
    return __builtin_shufflevector(v, v, 7, 7, 7, 7, 7, 7, 7, 7);               \
  }
SKSS__VEC8_FNS(uint32_t)
SKSS__VEC8_FNS(float)
#undef SKSS__VEC8_FNS

static inline __attribute__((always_inline)) vec_double vprefix_double(vec_double v) {
  const vec_double z = {0};
  v += __builtin_shufflevector(v, z, 4, 0, 4, 2);
  return v + __builtin_shufflevector(v, z, 4, 4, 1, 1);
}
static inline __attribute__((always_inline)) vec_double vlast_double(vec_double v) {
  return __builtin_shufflevector(v, v, 3, 3, 3, 3);
}

/* The types an input vector is widened through on its way to the
 * accumulator: GCC widens u8 vectors well only one step at a time, and
 * converts i32 (not u16) vectors to floating point. */
#define SKSS__SAT_MID_uint8_t uint16_t
#define SKSS__SAT_MID_int32_t int32_t
#define SKSS__SAT_MID_uint32_t uint32_t
#define SKSS__SAT_MID_float float
#define SKSS__SAT_MID_double double
#define SKSS__SAT_WIDE_uint8_t int32_t
#define SKSS__SAT_WIDE_int32_t int32_t
#define SKSS__SAT_WIDE_uint32_t uint32_t
#define SKSS__SAT_WIDE_float float
#define SKSS__SAT_WIDE_double double

#define SKSS__SAT_FNS(name, in_t, acc_t)                                                         \
  typedef vec_##acc_t name##_vec;                                                                \
  enum { name##_LANES = (int)(sizeof(name##_vec) / sizeof(acc_t)) };                             \
  typedef in_t name##_ivec __attribute__((vector_size(name##_LANES * sizeof(in_t))));            \
  typedef SKSS__SAT_MID_##in_t name##_mvec                                                       \
      __attribute__((vector_size(name##_LANES * sizeof(SKSS__SAT_MID_##in_t))));                 \
  typedef SKSS__SAT_WIDE_##in_t name##_wvec                                                      \
      __attribute__((vector_size(name##_LANES * sizeof(SKSS__SAT_WIDE_##in_t))));                \
                                                                                                 \
  static inline __attribute__((always_inline)) name##_vec name##_vload(const in_t *a, bool sq) { \
    name##_ivec raw;                                                                             \
    memcpy(&raw, a, sizeof raw);                                                                 \
    name##_wvec wide =                                                                           \
        __builtin_convertvector(__builtin_convertvector(raw, name##_mvec), name##_wvec);         \
    name##_vec v = __builtin_convertvector(wide, name##_vec);                                    \
    return sq ? v * v : v;                                                                       \
  }                                                                                              \
                                                                                                 \
  /* out[j] = above[j] + sum of load(a[j']) for j' <= j. */                                      \
  static inline __attribute__((always_inline)) void name##_row(                                  \
      const in_t *restrict a, const acc_t *restrict above, acc_t *restrict out, int64_t w,       \
      bool sq) {                                                                                 \
    const int64_t L = name##_LANES;                                                              \
    int64_t j = 0;                                                                               \
    name##_vec runv = {0};                                                                       \
    for (; j + L <= w; j += L) {                                                                 \
      prefetch_ahead(out + j);                                                                   \
      name##_vec x = vprefix_##acc_t(name##_vload(a + j, sq)), up;                               \
      memcpy(&up, above + j, sizeof up);                                                         \
      up += runv + x;                                                                            \
      runv += vlast_##acc_t(x);                                                                  \
      memcpy(out + j, &up, sizeof up);                                                           \
    }                                                                                            \
    acc_t run = runv[0];                                                                         \
    for (; j < w; j++) {                                                                         \
      run += skss__sat_load_##name(a[j], sq);                                                    \
      out[j] = above[j] + run;                                                                   \
    }                                                                                            \
  }                                                                                              \
                                                                                                 \
  /* Buffers 2..n-1, columns [c0, c1): buf[k] += buf[k - 1] (prefix over bands). */              \
  static void name##_down(uint8_t *bufs, size_t stride, int n, int64_t c0, int64_t c1) {         \
    for (int k = 2; k < n; k++) {                                                                \
      const acc_t *restrict above = ROW(const acc_t, bufs, stride, k - 1);                       \
      acc_t *restrict cur = ROW(acc_t, bufs, stride, k);                                         \
      for (int64_t j = c0; j < c1; j++) cur[j] += above[j];                                      \
    }                                                                                            \
  }                                                                                              \
                                                                                                 \
  /* In-place prefix sum along a row. */                                                         \
  static void name##_scan(void *row, int64_t w) {                                                \
    acc_t *r = row;                                                                              \
    for (int64_t j = 1; j < w; j++) r[j] += r[j - 1];                                            \
  }
SKSS__SAT_PAIRS(SKSS__SAT_FNS)
#undef SKSS__SAT_FNS

/* The passes a worker runs, compiled once per level: SUF names the variant,
 * ATTR its target attribute (the inline helpers above are compiled into each). */
#define SKSS__SAT_PASSES(name, in_t, acc_t, SUF, ATTR)                                           \
  /* Rows [r0, r1) of the plane; `above` is the SAT row above r0. */                             \
  ATTR static void name##_rows##SUF(const skss__sat_plane *p, int64_t r0, int64_t r1,            \
                                         const void *above) {                                    \
    for (int64_t i = r0; i < r1; i++) {                                                          \
      const in_t *a = ROW(const in_t, p->in, p->in_pitch, i);                                    \
      const acc_t *up = i == r0 ? above : ROW(const acc_t, p->out, p->out_pitch, i - 1);         \
      acc_t *o = ROW(acc_t, p->out, p->out_pitch, i);                                            \
      if (p->square)                                                                             \
        name##_row(a, up, o, p->width, true);                                                    \
      else                                                                                       \
        name##_row(a, up, o, p->width, false);                                                   \
    }                                                                                            \
  }                                                                                              \
                                                                                                 \
  /* sums[j] = sum over rows [r0, r1) of load(in[i][j]). */                                      \
  ATTR static void name##_colsum##SUF(const skss__sat_plane *p, int64_t r0, int64_t r1,          \
                                           void *sums) {                                         \
    acc_t *restrict s = sums;                                                                    \
    const bool sq = p->square;                                                                   \
    memset(s, 0, (size_t)p->width * sizeof(acc_t));                                              \
    for (int64_t i = r0; i < r1; i++) {                                                          \
      const in_t *restrict a = ROW(const in_t, p->in, p->in_pitch, i);                           \
      if (sq)                                                                                    \
        for (int64_t j = 0; j < p->width; j++) s[j] += skss__sat_load_##name(a[j], true);        \
      else                                                                                       \
        for (int64_t j = 0; j < p->width; j++) s[j] += skss__sat_load_##name(a[j], false);       \
    }                                                                                            \
  }
#define SKSS__SAT_PASSES_BASE(name, in_t, acc_t) SKSS__SAT_PASSES(name, in_t, acc_t, , )
SKSS__SAT_PAIRS(SKSS__SAT_PASSES_BASE)
#undef SKSS__SAT_PASSES_BASE
#if defined(SKSS__SAT_AVX2)
#define SKSS__SAT_PASSES_AVX2(name, in_t, acc_t) \
  SKSS__SAT_PASSES(name, in_t, acc_t, _avx2, __attribute__((target("avx2"))))
SKSS__SAT_PAIRS(SKSS__SAT_PASSES_AVX2)
#undef SKSS__SAT_PASSES_AVX2
#endif
#undef SKSS__SAT_PASSES

#if defined(SKSS__SAT_AVX2)
/* Plain u8 -> u32 rows with AVX2 intrinsics, 16 pixels per step: a prefix
 * of 8 pixels fits in u16, so the in-lane prefix runs on 16 u16 lanes and
 * is widened afterwards (fewer shuffles per pixel than on 8 u32 lanes;
 * GCC's generic-vector code for the widening and the in-lane shifts is
 * several times longer). The same sums as u8_u32_row. */
__attribute__((target("avx2"))) static void plain_u8_u32_row_avx2(const uint8_t *restrict a,
                                                                  const uint32_t *restrict above,
                                                                  uint32_t *restrict out,
                                                                  int64_t w) {
  const __m256i last = _mm256_set1_epi32(7);
  __m256i runv = _mm256_setzero_si256();
  int64_t j = 0;
  for (; j + 16 <= w; j += 16) {
    prefetch_ahead(out + j);
    __m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)(const void *)(a + j)));
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 2));
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 4));
    x = _mm256_add_epi16(x, _mm256_slli_si256(x, 8));
    __m256i lo = _mm256_cvtepu16_epi32(_mm256_castsi256_si128(x));
    __m256i hi = _mm256_cvtepu16_epi32(_mm256_extracti128_si256(x, 1));
    hi = _mm256_add_epi32(hi, _mm256_permutevar8x32_epi32(lo, last));
    __m256i up0 = _mm256_loadu_si256((const __m256i *)(const void *)(above + j));
    __m256i up1 = _mm256_loadu_si256((const __m256i *)(const void *)(above + j + 8));
    _mm256_storeu_si256((__m256i *)(void *)(out + j),
                        _mm256_add_epi32(up0, _mm256_add_epi32(runv, lo)));
    _mm256_storeu_si256((__m256i *)(void *)(out + j + 8),
                        _mm256_add_epi32(up1, _mm256_add_epi32(runv, hi)));
    runv = _mm256_add_epi32(runv, _mm256_permutevar8x32_epi32(hi, last));
  }
  uint32_t run = (uint32_t)_mm256_cvtsi256_si32(runv);
  for (; j < w; j++) {
    run += a[j];
    out[j] = above[j] + run;
  }
}

static void plain_u8_u32_rows_avx2(const skss__sat_plane *p, int64_t r0, int64_t r1,
                                   const void *above) {
  for (int64_t i = r0; i < r1; i++) {
    const uint32_t *up = i == r0 ? above : ROW(const uint32_t, p->out, p->out_pitch, i - 1);
    plain_u8_u32_row_avx2(ROW(const uint8_t, p->in, p->in_pitch, i), up,
                          ROW(uint32_t, p->out, p->out_pitch, i), p->width);
  }
}
#endif

typedef struct sat_ops {
  size_t acc_size;
  void (*rows)(const skss__sat_plane *p, int64_t r0, int64_t r1, const void *above);
  void (*colsum)(const skss__sat_plane *p, int64_t r0, int64_t r1, void *sums);
  void (*down)(uint8_t *bufs, size_t stride, int n, int64_t c0, int64_t c1);
  void (*scan)(void *row, int64_t w);
} sat_ops;

static const sat_ops OPS[SKSS__SAT_PAIR_COUNT] = {
#define SKSS__SAT_OPS_ENTRY(name, in_t, acc_t) \
  [SKSS__SAT_##name] = {sizeof(acc_t), name##_rows, name##_colsum, name##_down, name##_scan},
    SKSS__SAT_PAIRS(SKSS__SAT_OPS_ENTRY)
#undef SKSS__SAT_OPS_ENTRY
};

#if defined(SKSS__SAT_AVX2)
static const sat_ops OPS_AVX2[SKSS__SAT_PAIR_COUNT] = {
#define SKSS__SAT_OPS_ENTRY(name, in_t, acc_t)                                          \
  [SKSS__SAT_##name] = {sizeof(acc_t), name##_rows_avx2, name##_colsum_avx2, name##_down, \
                        name##_scan},
    SKSS__SAT_PAIRS(SKSS__SAT_OPS_ENTRY)
#undef SKSS__SAT_OPS_ENTRY
};
#endif

/* The passes of a plane at the context's instruction-set level. */
static sat_ops choose_ops(const skss_ctx *ctx, const skss__sat_plane *p) {
#if defined(SKSS__SAT_AVX2)
  if (skss__ctx_cpu_isa(ctx) >= SKSS__CPU_ISA_AVX2) {
    sat_ops ops = OPS_AVX2[p->pair];
    if (p->pair == SKSS__SAT_u8_u32 && !p->square) ops.rows = plain_u8_u32_rows_avx2;
    return ops;
  }
#else
  (void)ctx;
#endif
  return OPS[p->pair];
}

size_t skss__sat_acc_size(skss__sat_pair pair) { return OPS[pair].acc_size; }

/* Bytes between the row buffers: a row rounded up to a cache line, so the
 * workers' buffers never share one. */
static size_t buffer_stride(skss__sat_pair pair, int64_t width) {
  return ((size_t)width * OPS[pair].acc_size + 63) & ~(size_t)63;
}

/* One band per worker, every band at least one row. */
static int band_count(const skss_ctx *ctx, int64_t height) {
  return height < ctx->threads ? (int)height : ctx->threads;
}

size_t skss__sat_work_bytes(const skss_ctx *ctx, int algorithm, skss__sat_pair pair, int64_t height,
                            int64_t width) {
  switch (algorithm) {
    case SKSS_SAT_ALGORITHM_ROWSCAN_CPU: return buffer_stride(pair, width);
    case SKSS_SAT_ALGORITHM_BANDS_CPU: return (size_t)band_count(ctx, height) * buffer_stride(pair, width);
    default: return 0;
  }
}

typedef struct bands_job {
  const skss__sat_plane *plane;
  const sat_ops *ops;
  uint8_t *bufs;
  size_t stride;
  skss__barrier barrier;
} bands_job;

static void bands_worker(int w, int workers, void *arg) {
  bands_job *job = arg;
  const skss__sat_plane *p = job->plane;
  const sat_ops *ops = job->ops;
  int64_t r0, r1, c0, c1;
  skss__split(p->height, workers, w, &r0, &r1);
  if (w + 1 < workers)
    ops->colsum(p, r0, r1, job->bufs + (size_t)(w + 1) * job->stride);
  else
    memset(job->bufs, 0, (size_t)p->width * ops->acc_size);
  skss__barrier_wait(&job->barrier);
  skss__split(p->width, workers, w, &c0, &c1);
  ops->down(job->bufs, job->stride, workers, c0, c1);
  skss__barrier_wait(&job->barrier);
  uint8_t *above = job->bufs + (size_t)w * job->stride;
  if (w > 0) ops->scan(above, p->width);
  ops->rows(p, r0, r1, above);
}

static void run_bands(skss_ctx *ctx, const skss__sat_plane *p, int workers) {
  const sat_ops ops = choose_ops(ctx, p);
  bands_job job = {
      .plane = p,
      .ops = &ops,
      .bufs = p->work,
      .stride = buffer_stride(p->pair, p->width),
  };
  skss__barrier_init(&job.barrier, (unsigned)workers);
  if (workers == 1)
    bands_worker(0, 1, &job);
  else
    skss__parallel(ctx, workers, bands_worker, &job);
}

void skss__sat_run(skss_ctx *ctx, int algorithm, const skss__sat_plane *plane) {
  switch (algorithm) {
    case SKSS_SAT_ALGORITHM_2R2W_CPU: skss__sat_2r2w(plane); break;
    case SKSS_SAT_ALGORITHM_4R1W_CPU: skss__sat_4r1w(plane); break;
    case SKSS_SAT_ALGORITHM_ROWSCAN_CPU: run_bands(ctx, plane, 1); break;
    case SKSS_SAT_ALGORITHM_BANDS_CPU: run_bands(ctx, plane, band_count(ctx, plane->height)); break;
    default: break;
  }
}

void skss__sat_zero_border(uint8_t *base, size_t pitch, size_t elem, int64_t height,
                           int64_t width) {
  memset(base, 0, ((size_t)width + 1) * elem);
  for (int64_t i = 1; i <= height; i++) memset(base + (size_t)i * pitch, 0, elem);
}
