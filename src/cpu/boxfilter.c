/*
 * boxfilter.c — the (2r+1) x (2r+1) mean filter of an 8-bit image through a
 * summed-area table (Funasaka, Nakano, Ito, SKSS task arrays, §V.B: "the summed area table can be
 * used for applying the average filter"). The padded SAT of the image goes
 * to the context's arena, computed by the caller's SAT algorithm, then every
 * output pixel is one rectangle sum divided by its pixel count:
 *  - the SAT is u32 ("narrow") when 255 * (largest window area) fits in 32
 *    bits, so a rectangle sum taken modulo 2^32 is the exact sum; else f64
 *    ("wide"), exact while the whole image sums below 2^53;
 *  - CLIP divides by the pixels inside the image, ZERO by (2r+1)^2;
 *  - out = floor((sum + count / 2) / count): narrow by one double multiply
 *    with a bias that makes it exact (see mean_narrow), a loop the compiler
 *    vectorises; wide by a multiply and a one-step integer correction.
 * The filter pass splits the rows into one range per worker; each worker
 * keeps one row of column-window sums (bottom SAT row - top SAT row) so
 * each pixel is a difference of two of them.
 */
#include <string.h>

#include "isa.h"
#include "sat_impl.h"
#include "threadpool.h"

#define ROW(type, base, pitch, i) ((type *)(void *)((base) + (size_t)(i) * (pitch)))

/* A ZERO border whose window side exceeds this has a divisor above 2^54,
 * more than twice any window sum (< 2^53): every output is 0. */
#define BOX_MAX_SIDE ((uint64_t)1 << 27)

typedef struct box_job box_job;
/* Filters output row i with a worker's row of column-window sums. */
typedef void (*box_row_fn)(const box_job *job, int64_t i, void *sums_row);

struct box_job {
  const skss__box_args *a;
  box_row_fn row;     /* for the SAT's type (u32 or f64) and the context's level */
  const uint8_t *sat; /* padded: row y holds the sums of image rows < y */
  size_t sat_pitch;
  uint8_t *sums;      /* one row of column-window sums per worker */
  size_t sums_stride;
  uint64_t zero_count; /* ZERO: the divisor (2r+1)^2 */
};

/* floor((sum + count / 2) / count) for sum <= 255 * count and count < 2^33.
 * With inv = 1/count rounded, n * inv is within 2^-43 of the quotient Q
 * (Q <= 255.5); a fractional Q is at least 1/count > 2^-33 from an integer,
 * so adding 2^-40 and truncating gives floor(Q) in every case. */
static inline uint8_t mean_narrow(uint32_t sum, uint64_t count, double inv) {
  return (uint8_t)(int32_t)(((double)sum + (double)(count / 2)) * inv + 0x1p-40);
}

/* The same for sums below 2^53 and count < 2^54: the rounded quotient is
 * off by at most one, which an integer test corrects. */
static inline uint8_t mean_wide(double sum, uint64_t count, double inv) {
  uint64_t n = (uint64_t)sum + count / 2;
  uint64_t q = (uint64_t)((double)n * inv);
  q -= q * count > n;
  q += (q + 1) * count <= n;
  return (uint8_t)q;
}

/* min(2r+1, n) without overflow. */
static uint64_t window_side(int64_t radius, int64_t n) {
  uint64_t side = 2 * (uint64_t)radius + 1;
  return side < (uint64_t)n ? side : (uint64_t)n;
}

/* [lo, hi) of image rows (or columns) in the window centred on k. */
static inline void window(int64_t k, int64_t r, int64_t n, int64_t *lo, int64_t *hi) {
  *lo = k > r ? k - r : 0;
  *hi = r >= n - k ? n : k + r + 1;
}

#define BOX_ROW_FN(name, ws_t)                                                                          \
  /* One pixel whose window is cut by the left or right edge. */                                        \
  static inline uint8_t box_edge_##name(const box_job *job, const ws_t *v, int64_t j,                   \
                                        uint64_t rows_in) {                                             \
    int64_t x0, x1;                                                                                     \
    window(j, job->a->radius, job->a->width, &x0, &x1);                                                 \
    uint64_t count =                                                                                    \
        job->a->border == SKSS_BOXFILTER_BORDER_CLIP ? rows_in * (uint64_t)(x1 - x0) : job->zero_count; \
    return mean_##name(v[x1] - v[x0], count, 1.0 / (double)count);                                      \
  }

/* One output row, compiled once per level: SUF names the variant, ATTR its
 * target attribute. */
#define BOX_ROW_PASS(name, ws_t, SUF, ATTR)                                                             \
  ATTR static void box_row_##name##SUF(const box_job *job, int64_t i, void *sums_row) {                 \
    const skss__box_args *a = job->a;                                                                   \
    const int64_t w = a->width, r = a->radius;                                                          \
    int64_t y0, y1;                                                                                     \
    window(i, r, a->height, &y0, &y1);                                                                  \
    const ws_t *restrict top = ROW(const ws_t, job->sat, job->sat_pitch, y0);                           \
    const ws_t *restrict bot = ROW(const ws_t, job->sat, job->sat_pitch, y1);                           \
    ws_t *restrict v = sums_row;                                                                        \
    uint8_t *restrict out = a->out + (size_t)i * a->out_pitch;                                          \
    for (int64_t x = 0; x <= w; x++) v[x] = bot[x] - top[x];                                            \
    const uint64_t rows_in = (uint64_t)(y1 - y0);                                                       \
    /* Columns [mid_lo, mid_hi) have whole windows: x0 = j - r, x1 = j + r + 1. */                      \
    const int64_t mid_lo = r < w ? r : w, mid_hi = w - r > mid_lo ? w - r : mid_lo;                     \
    for (int64_t j = 0; j < mid_lo; j++) out[j] = box_edge_##name(job, v, j, rows_in);                  \
    if (mid_hi > mid_lo) {                                                                              \
      const uint64_t count =                                                                            \
          a->border == SKSS_BOXFILTER_BORDER_CLIP ? rows_in * (2 * (uint64_t)r + 1) : job->zero_count;  \
      const double inv = 1.0 / (double)count;                                                           \
      /* Here mid_lo = r: pixel r + k spans columns [k, 2r + 1 + k). */                                 \
      const ws_t *restrict right = v + 2 * r + 1;                                                       \
      uint8_t *restrict mid = out + mid_lo;                                                             \
      for (int64_t k = 0; k < mid_hi - mid_lo; k++)                                                     \
        mid[k] = mean_##name(right[k] - v[k], count, inv);                                              \
    }                                                                                                   \
    for (int64_t j = mid_hi; j < w; j++) out[j] = box_edge_##name(job, v, j, rows_in);                  \
  }
BOX_ROW_FN(narrow, uint32_t)
BOX_ROW_FN(wide, double)
#undef BOX_ROW_FN
BOX_ROW_PASS(narrow, uint32_t, , )
BOX_ROW_PASS(wide, double, , )
#if defined(__x86_64__) && defined(__GNUC__)
#define BOX_AVX2 1
BOX_ROW_PASS(narrow, uint32_t, _avx2, __attribute__((target("avx2"))))
BOX_ROW_PASS(wide, double, _avx2, __attribute__((target("avx2"))))
#endif
#undef BOX_ROW_PASS

static void box_worker(int w, int workers, void *arg) {
  const box_job *job = arg;
  int64_t r0, r1;
  skss__split(job->a->height, workers, w, &r0, &r1);
  void *sums_row = job->sums + (size_t)w * job->sums_stride;
  for (int64_t i = r0; i < r1; i++) job->row(job, i, sums_row);
}

static box_row_fn choose_row(const skss_ctx *ctx, bool wide) {
#if defined(BOX_AVX2)
  if (skss__ctx_cpu_isa(ctx) >= SKSS__CPU_ISA_AVX2)
    return wide ? box_row_wide_avx2 : box_row_narrow_avx2;
#else
  (void)ctx;
#endif
  return wide ? box_row_wide : box_row_narrow;
}

/* Copies (radius 0) or clears (ZERO border whose divisor dwarfs any sum). */
static void fill_rows(const skss__box_args *a, bool copy) {
  for (int64_t i = 0; i < a->height; i++) {
    uint8_t *dst = a->out + (size_t)i * a->out_pitch;
    if (copy)
      memcpy(dst, a->in + (size_t)i * a->in_pitch, (size_t)a->width);
    else
      memset(dst, 0, (size_t)a->width);
  }
}

static size_t round64(size_t n) { return (n + 63) & ~(size_t)63; }

/* Workspace: the padded SAT, then a region shared by the SAT algorithm's
 * scratch and (afterwards) the filter's per-worker rows. */
typedef struct box_layout {
  size_t sat_pitch, sums_stride, region, total;
} box_layout;

static skss_status workspace_layout(skss_ctx *ctx, const char *fn, const skss__box_args *a,
                                    skss__sat_pair pair, int workers, box_layout *l) {
  const size_t elem = skss__sat_acc_size(pair);
  size_t sat_bytes = 0, sums_bytes = 0;
  bool ok = skss__mul_size((size_t)a->width + 1, elem, &l->sat_pitch) &&
            skss__mul_size((size_t)a->height + 1, l->sat_pitch, &sat_bytes) &&
            l->sat_pitch <= SIZE_MAX - 63 && sat_bytes <= SIZE_MAX - 63 &&
            skss__mul_size(round64(l->sat_pitch), (size_t)workers, &sums_bytes);
  if (ok) {
    l->sums_stride = round64(l->sat_pitch);
    l->region = round64(sat_bytes);
    size_t sat_work = skss__sat_work_bytes(ctx, a->sat_algorithm, pair, a->height, a->width);
    ok = skss__add_size(l->region, sat_work > sums_bytes ? sat_work : sums_bytes, &l->total);
  }
  if (!ok)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: the %lld x %lld SAT workspace overflows size_t",
                      fn, (long long)a->height, (long long)a->width);
  return SKSS_OK;
}

skss_status skss__boxfilter_u8(skss_ctx *ctx, const char *fn, const skss__box_args *a) {
  if (a->height == 0 || a->width == 0) return SKSS_OK;
  const uint64_t side = 2 * (uint64_t)a->radius + 1;
  const uint64_t max_area = window_side(a->radius, a->height) * window_side(a->radius, a->width);
  const bool wide = max_area > UINT32_MAX / 255;
  if (wide && (uint64_t)a->height > ((uint64_t)1 << 53) / 255 / (uint64_t)a->width)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: a %lld x %lld image can sum past 2^53", fn,
                      (long long)a->height, (long long)a->width);
  const bool all_zero =
      a->border == SKSS_BOXFILTER_BORDER_ZERO && (side > BOX_MAX_SIDE || side * side > 510 * max_area);
  if (a->radius == 0 || all_zero) {
    fill_rows(a, a->radius == 0);
    return SKSS_OK;
  }
  const skss__sat_pair pair = wide ? SKSS__SAT_u8_f64 : SKSS__SAT_u8_u32;
  const int workers = a->height < ctx->threads ? (int)a->height : ctx->threads;
  box_layout l = {0, 0, 0, 0};
  skss_status st = workspace_layout(ctx, fn, a, pair, workers, &l);
  if (st != SKSS_OK) return st;
  uint8_t *ws = skss__scratch(ctx, l.total);
  if (ws == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for a %zu-byte SAT workspace", fn,
                      l.total);
  const size_t elem = skss__sat_acc_size(pair);
  skss__sat_zero_border(ws, l.sat_pitch, elem, a->height, a->width);
  const skss__sat_plane plane = {
      .height = a->height,
      .width = a->width,
      .pair = pair,
      .square = false,
      .in = a->in,
      .in_pitch = a->in_pitch,
      .out = ws + l.sat_pitch + elem,
      .out_pitch = l.sat_pitch,
      .work = ws + l.region,
  };
  skss__sat_run(ctx, a->sat_algorithm, &plane);
  const box_job job = {
      .a = a,
      .row = choose_row(ctx, wide),
      .sat = ws,
      .sat_pitch = l.sat_pitch,
      .sums = ws + l.region,
      .sums_stride = l.sums_stride,
      .zero_count = side * side,
  };
  skss__parallel(ctx, workers, box_worker, (void *)&job);
  return SKSS_OK;
}
