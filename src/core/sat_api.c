/*
 * sat_api.c — the public entry points skss_sat(), skss_sat_can_wrap() and
 * skss_boxfilter_u8(): every argument is validated here (sizes, types,
 * layouts, pitches, alignment, NULLs, overlaps), the algorithm resolved for
 * the context's backend, and the work handed to src/cpu (sat_impl.h) as
 * planes whose output is the inclusive table: a PADDED output gets its zero
 * border here and the algorithm writes the rest.
 */
#include <string.h>

#include "backend_cuda.h"
#include "cpu/sat_impl.h"
#include "internal.h"

static const char *const SAT_FN = "skss_sat()";
static const char *const BOX_FN = "skss_boxfilter_u8()";

typedef struct pair_row {
  skss_dtype in, out;
  skss__sat_pair pair;
} pair_row;

static const pair_row PAIRS[] = {
    {SKSS_DTYPE_U8, SKSS_DTYPE_U32, SKSS__SAT_u8_u32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_I32, SKSS__SAT_u8_u32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F32, SKSS__SAT_u8_f32},
    {SKSS_DTYPE_U8, SKSS_DTYPE_F64, SKSS__SAT_u8_f64},
    {SKSS_DTYPE_I32, SKSS_DTYPE_I32, SKSS__SAT_i32_u32},
    {SKSS_DTYPE_U32, SKSS_DTYPE_U32, SKSS__SAT_u32_u32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F32, SKSS__SAT_f32_f32},
    {SKSS_DTYPE_F32, SKSS_DTYPE_F64, SKSS__SAT_f32_f64},
    {SKSS_DTYPE_F64, SKSS_DTYPE_F64, SKSS__SAT_f64_f64},
};

static const pair_row *find_pair(skss_dtype in, skss_dtype out) {
  for (size_t k = 0; k < sizeof PAIRS / sizeof PAIRS[0]; k++)
    if (PAIRS[k].in == in && PAIRS[k].out == out) return &PAIRS[k];
  return NULL;
}

/* Bytes from a buffer's first byte to just past its last element. */
static size_t extent(int64_t rows, int64_t cols, size_t elem, size_t pitch) {
  if (rows == 0 || cols == 0) return 0;
  return (size_t)(rows - 1) * pitch + (size_t)cols * elem;
}

/* Whether two byte ranges share a byte (no sum that could wrap). */
static bool overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  if (a_bytes == 0 || b_bytes == 0) return false;
  return pa >= pb ? pa - pb < b_bytes : pb - pa < a_bytes;
}

/* One caller buffer as the entry points see it. */
typedef struct buffer {
  const char *what;
  const void *ptr;
  int64_t rows, cols;
  size_t elem;
  int64_t pitch_arg;
  size_t pitch; /* resolved */
  size_t bytes; /* extent */
} buffer;

/* Sizes, pitch, NULL and alignment of one buffer; resolves its pitch. */
static skss_status check_buffer(skss_ctx *ctx, const char *fn, buffer *b) {
  skss_status st =
      skss__check_2d(ctx, fn, b->what, b->rows, b->cols, b->elem, b->pitch_arg, &b->pitch);
  if (st != SKSS_OK) return st;
  b->bytes = extent(b->rows, b->cols, b->elem, b->pitch);
  if (b->ptr == NULL && b->bytes > 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s is NULL", fn, b->what);
  if ((uintptr_t)b->ptr % b->elem != 0 || b->pitch % b->elem != 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: %s and its pitch must be aligned to its element size (%zu bytes)", fn,
                      b->what, b->elem);
  return SKSS_OK;
}

static skss_status check_disjoint(skss_ctx *ctx, const char *fn, const buffer *a, const buffer *b) {
  if (overlap(a->ptr, a->bytes, b->ptr, b->bytes))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s and %s overlap", fn, a->what, b->what);
  return SKSS_OK;
}

/* Validates the types and layout of a SAT call; finds the pair. */
static skss_status check_sat_kind(skss_ctx *ctx, const skss_sat_desc *d, const pair_row **pair) {
  if (skss_dtype_size(d->in_type) == 0 || skss_dtype_size(d->out_type) == 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown dtype (in %d, out %d)", SAT_FN,
                      (int)d->in_type, (int)d->out_type);
  *pair = find_pair(d->in_type, d->out_type);
  if (*pair == NULL)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                      "%s: type pair %s:%s is not supported (u8:u32, u8:i32, u8:f32, u8:f64, "
                      "i32:i32, u32:u32, f32:f32, f32:f64, f64:f64)",
                      SAT_FN, skss_dtype_name(d->in_type), skss_dtype_name(d->out_type));
  if (d->layout != SKSS_SAT_LAYOUT_INCLUSIVE && d->layout != SKSS_SAT_LAYOUT_PADDED)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown layout %d", SAT_FN, (int)d->layout);
  if (d->layout == SKSS_SAT_LAYOUT_PADDED && (d->height == INT64_MAX || d->width == INT64_MAX))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: padded size %lld+1 x %lld+1 overflows int64",
                      SAT_FN, (long long)d->height, (long long)d->width);
  return SKSS_OK;
}

/* Validates the three buffers of a SAT call. */
static skss_status check_sat_buffers(skss_ctx *ctx, buffer *in, buffer *out, buffer *sq) {
  skss_status st = check_buffer(ctx, SAT_FN, in);
  if (st == SKSS_OK) st = check_buffer(ctx, SAT_FN, out);
  if (st == SKSS_OK && sq->ptr != NULL) st = check_buffer(ctx, SAT_FN, sq);
  if (st == SKSS_OK) st = check_disjoint(ctx, SAT_FN, in, out);
  if (st == SKSS_OK && sq->ptr != NULL) st = check_disjoint(ctx, SAT_FN, in, sq);
  if (st == SKSS_OK && sq->ptr != NULL) st = check_disjoint(ctx, SAT_FN, out, sq);
  return st;
}

skss_status skss_sat(skss_ctx *ctx, const skss_sat_desc *desc, const void *in, void *out,
                     void *out_sq) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, SAT_FN, desc, skss_sat_desc);
  const skss_sat_desc d = *desc;
  if (d.height < 0 || d.width < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: size %lld x %lld is negative", SAT_FN,
                      (long long)d.height, (long long)d.width);
  const pair_row *pair = NULL;
  skss_status st = check_sat_kind(ctx, &d, &pair);
  if (st != SKSS_OK) return st;
  const int64_t pad = d.layout == SKSS_SAT_LAYOUT_PADDED;
  const size_t in_elem = skss_dtype_size(d.in_type), out_elem = skss_dtype_size(d.out_type);
  buffer bin = {"input", in, d.height, d.width, in_elem, d.in_pitch, 0, 0};
  buffer bout = {"output", out, d.height + pad, d.width + pad, out_elem, d.out_pitch, 0, 0};
  buffer bsq = {
      "squared output", out_sq, d.height + pad, d.width + pad, out_elem, d.out_sq_pitch, 0, 0};
  st = check_sat_buffers(ctx, &bin, &bout, &bsq);
  if (st != SKSS_OK) return st;
  int alg;
  st = skss__resolve_algorithm(ctx, SAT_FN, SKSS_OP_SAT, (int)d.algorithm, &alg);
  if (st != SKSS_OK) return st;
  if (skss__algorithm_backend(ctx, SKSS_OP_SAT, alg) == SKSS_BACKEND_CUDA) {
    const skss__sat_call call = {d.height, d.width, pair->pair, in_elem,  out_elem,   pad != 0,
                                 in,       bin.pitch, out,      bout.pitch, out_sq, bsq.pitch};
    /* AUTO is refined per type pair, layout and size on the device side (cuda/tuning.h). */
    return skss__cuda_sat(ctx, d.algorithm == SKSS_SAT_ALGORITHM_AUTO ? SKSS_SAT_ALGORITHM_AUTO : alg, &call);
  }
  const void *const host[3] = {in, out, out_sq};
  const char *const names[3] = {"in", "out", "out_sq"};
  st = skss__check_host_pointers(ctx, SAT_FN, 3, host, names);
  if (st != SKSS_OK) return st;
  void *work = skss__scratch(ctx, skss__sat_work_bytes(ctx, alg, pair->pair, d.height, d.width));
  if (work == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for the %s scratch", SAT_FN,
                      skss_algorithm_name(SKSS_OP_SAT, alg));
  uint8_t *const targets[2] = {out, out_sq};
  const size_t pitches[2] = {bout.pitch, bsq.pitch};
  for (int k = 0; k < 2 && targets[k] != NULL; k++) {
    if (pad) skss__sat_zero_border(targets[k], pitches[k], out_elem, d.height, d.width);
    if (d.height == 0 || d.width == 0) continue;
    const skss__sat_plane plane = {
        .height = d.height,
        .width = d.width,
        .pair = pair->pair,
        .square = k == 1,
        .in = in,
        .in_pitch = bin.pitch,
        .out = targets[k] + (pad ? pitches[k] + out_elem : 0),
        .out_pitch = pitches[k],
        .work = work,
    };
    skss__sat_run(ctx, alg, &plane);
  }
  return SKSS_OK;
}

/* The largest positive and negative magnitudes one summand can have. */
typedef struct magnitude {
  uint64_t pos, neg;
} magnitude;

static magnitude summand_magnitude(skss_dtype in, bool squared) {
  switch (in) {
    case SKSS_DTYPE_U8: return squared ? (magnitude){255u * 255u, 0} : (magnitude){255u, 0};
    case SKSS_DTYPE_U32:
      return squared ? (magnitude){(uint64_t)UINT32_MAX * UINT32_MAX, 0}
                     : (magnitude){UINT32_MAX, 0};
    default: /* i32 */
      return squared ? (magnitude){(uint64_t)1 << 62, 0}
                     : (magnitude){INT32_MAX, (uint64_t)1 << 31};
  }
}

/* The magnitudes out_type holds exactly (as integers, for floats). */
static magnitude exact_range(skss_dtype out) {
  switch (out) {
    case SKSS_DTYPE_U32: return (magnitude){UINT32_MAX, 0};
    case SKSS_DTYPE_I32: return (magnitude){INT32_MAX, (uint64_t)1 << 31};
    case SKSS_DTYPE_F32: return (magnitude){(uint64_t)1 << 24, (uint64_t)1 << 24};
    default: return (magnitude){(uint64_t)1 << 53, (uint64_t)1 << 53};
  }
}

/* Whether count = height * width summands of magnitude m can exceed limit. */
static bool exceeds(int64_t height, int64_t width, uint64_t m, uint64_t limit) {
  if (m == 0) return false;
  if (m > limit) return true;
  return (uint64_t)height > limit / m / (uint64_t)width;
}

int skss_sat_can_wrap(skss_dtype in_type, skss_dtype out_type, int64_t height, int64_t width,
                      int squared) {
  const pair_row *pair = find_pair(in_type, out_type);
  if (pair == NULL || height < 0 || width < 0) return 1;
  if (height == 0 || width == 0) return 0;
  if (in_type == SKSS_DTYPE_F32 || in_type == SKSS_DTYPE_F64) {
    /* Adding two floats can round; one element is exact unless its square
     * rounds (a float's square is exact only in double). */
    if (height > 1 || width > 1) return 1;
    return squared && !(in_type == SKSS_DTYPE_F32 && out_type == SKSS_DTYPE_F64);
  }
  magnitude m = summand_magnitude(in_type, squared != 0), r = exact_range(out_type);
  return exceeds(height, width, m.pos, r.pos) || exceeds(height, width, m.neg, r.neg);
}

/* Validates the options of a box filter call. */
static skss_status check_box_options(skss_ctx *ctx, const skss_boxfilter_desc *d) {
  if (d->height < 0 || d->width < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: size %lld x %lld is negative", BOX_FN,
                      (long long)d->height, (long long)d->width);
  if (d->radius < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: radius %lld is negative", BOX_FN,
                      (long long)d->radius);
  if (d->border != SKSS_BOXFILTER_BORDER_CLIP && d->border != SKSS_BOXFILTER_BORDER_ZERO)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown border %d", BOX_FN, (int)d->border);
  return SKSS_OK;
}

skss_status skss_boxfilter_u8(skss_ctx *ctx, const skss_boxfilter_desc *desc, const uint8_t *in,
                              uint8_t *out) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, BOX_FN, desc, skss_boxfilter_desc);
  const skss_boxfilter_desc d = *desc;
  skss_status st = check_box_options(ctx, &d);
  if (st != SKSS_OK) return st;
  buffer bin = {"input", in, d.height, d.width, 1, d.in_pitch, 0, 0};
  buffer bout = {"output", out, d.height, d.width, 1, d.out_pitch, 0, 0};
  st = check_buffer(ctx, BOX_FN, &bin);
  if (st == SKSS_OK) st = check_buffer(ctx, BOX_FN, &bout);
  if (st == SKSS_OK) st = check_disjoint(ctx, BOX_FN, &bin, &bout);
  if (st != SKSS_OK) return st;
  int alg;
  st = skss__resolve_algorithm(ctx, BOX_FN, SKSS_OP_SAT, (int)d.sat_algorithm, &alg);
  if (st != SKSS_OK) return st;
  const skss__box_args args = {
      .height = d.height,
      .width = d.width,
      .radius = d.radius,
      .in = in,
      .in_pitch = bin.pitch,
      .out = out,
      .out_pitch = bout.pitch,
      .border = d.border,
      .sat_algorithm = alg,
  };
  if (skss__algorithm_backend(ctx, SKSS_OP_SAT, alg) == SKSS_BACKEND_CUDA)
    return skss__cuda_boxfilter_u8(ctx, &args);
  const void *const host[2] = {in, out};
  const char *const names[2] = {"in", "out"};
  st = skss__check_host_pointers(ctx, BOX_FN, 2, host, names);
  if (st != SKSS_OK) return st;
  return skss__boxfilter_u8(ctx, BOX_FN, &args);
}
