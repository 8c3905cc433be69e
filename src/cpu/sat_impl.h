/*
 * sat_impl.h — what the SAT entry points (core/sat_api.c) and the box filter
 * hand to the CPU SAT implementations: one validated plane (sizes, type pair,
 * resolved pitches, squared or not, scratch), and the per-type-pair element
 * loads every implementation shares. The public layouts reduce to one case
 * here: `out` points at the inclusive SAT's (0, 0) element (for PADDED, one
 * row and one column into the caller's buffer, whose zero border the entry
 * point writes), so every algorithm computes an inclusive H x W table.
 */
#ifndef SKSS_SAT_IMPL_H
#define SKSS_SAT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/internal.h"

/* The type pairs of skss.h, as (name, input C type, accumulator C type).
 * Integer outputs accumulate in uint32_t (exact modulo 2^32, no signed
 * overflow; u8:i32 and u8:u32 share one instantiation), floats in out_type. */
#define SKSS__SAT_PAIRS(X)       \
  X(u8_u32, uint8_t, uint32_t)   \
  X(u8_f32, uint8_t, float)      \
  X(u8_f64, uint8_t, double)     \
  X(i32_u32, int32_t, uint32_t)  \
  X(u32_u32, uint32_t, uint32_t) \
  X(f32_f32, float, float)       \
  X(f32_f64, float, double)      \
  X(f64_f64, double, double)

typedef enum skss__sat_pair {
#define SKSS__SAT_PAIR_ENUM(name, in_t, acc_t) SKSS__SAT_##name,
  SKSS__SAT_PAIRS(SKSS__SAT_PAIR_ENUM)
#undef SKSS__SAT_PAIR_ENUM
      SKSS__SAT_PAIR_COUNT
} skss__sat_pair;

/* The element an algorithm sums: the input converted to the accumulator
 * type, or its square computed in that type (modulo 2^32 for integers). */
#define SKSS__SAT_LOAD_FN(name, in_t, acc_t)                       \
  static inline acc_t skss__sat_load_##name(in_t x, bool square) { \
    acc_t v = (acc_t)x;                                            \
    return square ? v * v : v;                                     \
  }
SKSS__SAT_PAIRS(SKSS__SAT_LOAD_FN)
#undef SKSS__SAT_LOAD_FN

/* One SAT to compute: the inclusive table of `in` (or of its square) into
 * `out`. Sizes and pitches are validated and the table is not empty;
 * pitches are resolved (never 0). */
typedef struct skss__sat_plane {
  int64_t height, width;
  skss__sat_pair pair;
  bool square;
  const uint8_t *in;
  size_t in_pitch;
  uint8_t *out; /* the inclusive (0, 0) element */
  size_t out_pitch;
  void *work; /* skss__sat_work_bytes() bytes, 64-byte aligned */
} skss__sat_plane;

/* Bytes of one accumulator (= one output element) of a pair. */
size_t skss__sat_acc_size(skss__sat_pair pair);

/* Scratch `algorithm` needs for a plane of this width on `ctx`. Never more
 * than the output itself plus 64 bytes per worker, so it cannot overflow
 * once the output's extent has been checked. */
size_t skss__sat_work_bytes(const skss_ctx *ctx, int algorithm, skss__sat_pair pair, int64_t height,
                            int64_t width);

/* Runs a resolved CPU algorithm on one plane (sat.c): the paper's
 * sequential 2R2W and 4R1W (sat_ref.c), or ours, ROWSCAN and BANDS (sat.c). */
void skss__sat_run(skss_ctx *ctx, int algorithm, const skss__sat_plane *plane);

/* Writes the zero first row and column of a PADDED table of an H x W input
 * whose buffer starts at `base` (sat.c). */
void skss__sat_zero_border(uint8_t *base, size_t pitch, size_t elem, int64_t height, int64_t width);

/* The paper's sequential algorithms (sat_ref.c). */
void skss__sat_2r2w(const skss__sat_plane *plane);
void skss__sat_4r1w(const skss__sat_plane *plane);

/* A validated box filter call (pitches resolved, the SAT algorithm resolved). */
typedef struct skss__box_args {
  int64_t height, width, radius;
  const uint8_t *in;
  size_t in_pitch;
  uint8_t *out;
  size_t out_pitch;
  skss_boxfilter_border border;
  int sat_algorithm;
} skss__box_args;

/* The box filter (boxfilter.c); fails only for workspace size or memory. */
skss_status skss__boxfilter_u8(skss_ctx *ctx, const char *fn, const skss__box_args *args);

#endif
