/*
 * sat_ref.c — the HMM paper's two sequential CPU algorithms for the summed
 * area table (Kasagi, Nakano, Ito, SAT on the asynchronous HMM, the CPU rows of Table II), the oracles every
 * other SAT is compared with. Both run on the calling thread.
 *  - 2R2W(CPU): column prefix sums in raster order, a[i][j] += a[i-1][j],
 *    then row prefix sums in raster order, a[i][j] += a[i][j-1], both in
 *    place on the output buffer (the input is converted on its way in).
 *  - 4R1W(CPU): formula (1), b[i][j] = a[i][j] + b[i][j-1] + b[i-1][j]
 *    - b[i-1][j-1] (terms outside the table are 0), in raster order.
 * One instantiation per type pair (SKSS__SAT_PAIRS), squared or not.
 */
#include "sat_impl.h"

#define ROW(type, base, pitch, i) ((type *)(void *)((base) + (size_t)(i) * (pitch)))

#define SKSS__SAT_REF_FNS(name, in_t, acc_t)                                                      \
  static void ref_2r2w_##name(const skss__sat_plane *p) {                                         \
    const bool sq = p->square;                                                                    \
    for (int64_t i = 0; i < p->height; i++) {                                                     \
      const in_t *a = ROW(const in_t, p->in, p->in_pitch, i);                                     \
      acc_t *b = ROW(acc_t, p->out, p->out_pitch, i);                                             \
      for (int64_t j = 0; j < p->width; j++) b[j] = skss__sat_load_##name(a[j], sq);              \
      if (i == 0) continue;                                                                       \
      const acc_t *up = ROW(const acc_t, p->out, p->out_pitch, i - 1);                            \
      for (int64_t j = 0; j < p->width; j++) b[j] += up[j];                                       \
    }                                                                                             \
    for (int64_t i = 0; i < p->height; i++) {                                                     \
      acc_t *b = ROW(acc_t, p->out, p->out_pitch, i);                                             \
      for (int64_t j = 1; j < p->width; j++) b[j] += b[j - 1];                                    \
    }                                                                                             \
  }                                                                                               \
                                                                                                  \
  static void ref_4r1w_##name(const skss__sat_plane *p) {                                         \
    const bool sq = p->square;                                                                    \
    for (int64_t i = 0; i < p->height; i++) {                                                     \
      const in_t *a = ROW(const in_t, p->in, p->in_pitch, i);                                     \
      acc_t *b = ROW(acc_t, p->out, p->out_pitch, i);                                             \
      if (i == 0) {                                                                               \
        b[0] = skss__sat_load_##name(a[0], sq);                                                   \
        for (int64_t j = 1; j < p->width; j++) b[j] = skss__sat_load_##name(a[j], sq) + b[j - 1]; \
        continue;                                                                                 \
      }                                                                                           \
      const acc_t *up = ROW(const acc_t, p->out, p->out_pitch, i - 1);                            \
      b[0] = skss__sat_load_##name(a[0], sq) + up[0];                                             \
      for (int64_t j = 1; j < p->width; j++)                                                      \
        b[j] = skss__sat_load_##name(a[j], sq) + b[j - 1] + up[j] - up[j - 1];                    \
    }                                                                                             \
  }
SKSS__SAT_PAIRS(SKSS__SAT_REF_FNS)
#undef SKSS__SAT_REF_FNS

typedef void (*ref_fn)(const skss__sat_plane *p);

static const ref_fn REF_2R2W[SKSS__SAT_PAIR_COUNT] = {
#define SKSS__SAT_REF_ENTRY(name, in_t, acc_t) [SKSS__SAT_##name] = ref_2r2w_##name,
    SKSS__SAT_PAIRS(SKSS__SAT_REF_ENTRY)
#undef SKSS__SAT_REF_ENTRY
};

static const ref_fn REF_4R1W[SKSS__SAT_PAIR_COUNT] = {
#define SKSS__SAT_REF_ENTRY(name, in_t, acc_t) [SKSS__SAT_##name] = ref_4r1w_##name,
    SKSS__SAT_PAIRS(SKSS__SAT_REF_ENTRY)
#undef SKSS__SAT_REF_ENTRY
};

void skss__sat_2r2w(const skss__sat_plane *plane) { REF_2R2W[plane->pair](plane); }

void skss__sat_4r1w(const skss__sat_plane *plane) { REF_4R1W[plane->pair](plane); }
