/*
 * halftone_impl.h — what the halftone entry point (core/halftone_api.c), the
 * papers' sequential algorithms (halftone_ref.c) and our task array
 * (halftone.c) share:
 *  - the dither kernels (core/dither_kernels.h), so that every algorithm is
 *    compiled once per kernel with its weights as constants;
 *  - the per-pixel rule of skss.h and BITS packing;
 *  - error collection with register caching (Kasagi, Nakano, Ito, parallel error diffusion,
 *    Section II) over a span of one row: the inner loop of the sequential
 *    EC-RC and of the task array.
 */
#ifndef SKSS_HALFTONE_IMPL_H
#define SKSS_HALFTONE_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/dither_kernels.h"
#include "core/internal.h"

#if defined(__GNUC__)
#define SKSS__HT_INLINE static inline __attribute__((always_inline))
#else
#define SKSS__HT_INLINE static inline
#endif

/* One validated halftone call (sizes > 0, pointers valid, pitches resolved). */
typedef struct skss__halftone_job {
  const uint8_t *in;
  uint8_t *out;
  size_t in_pitch, out_pitch; /* bytes */
  int64_t height, width;
  skss_dither_kernel kernel;
  int white_above; /* skss__halftone_white_above(threshold) */
  skss_halftone_output output;
  void *scratch;        /* the algorithm's scratch, 64-byte aligned */
  size_t scratch_bytes; /* its size */
} skss__halftone_job;

/* The pixel rule's threshold as a bound on the unclamped value u = in +
 * sum / divisor: for T < 255, clamp(u) > T exactly when u > T (clamping up to
 * 0 cannot pass T >= 0; clamping down to 255 stays above T), and for T = 255
 * no pixel is white. Testing u lets the test run beside the clamp. */
static inline int skss__halftone_white_above(int threshold) {
  return threshold < 255 ? threshold : INT32_MAX;
}

/* The rule of skss.h for one pixel whose neighbours sent it `sum` / divisor,
 * without branches (the outcome is unpredictable): writes 0 or 255 to *out
 * and returns the pixel's error. The quotient is compared with
 * white_above - in, which does not wait for the sum, so the test and the
 * clamp run side by side on the loop's critical path. */
SKSS__HT_INLINE int skss__halftone_pixel(int in, int sum, int divisor, int white_above,
                                         uint8_t *out) {
  int q = sum / divisor, u = in + q;
  int v = u < 0 ? 0 : (u > 255 ? 255 : u);
  int white = -(int)(q > white_above - in) & 255;
  *out = (uint8_t)white;
  return v - white;
}

/* Packs n bytes of 0/255 into ceil(n / 8) bytes, first pixel in the MSB,
 * the last byte's unused bits 0. */
static inline void skss__halftone_pack_bits(const uint8_t *restrict bytes, int64_t n,
                                            uint8_t *restrict bits) {
  for (int64_t b = 0; b < n / 8; b++) {
    unsigned v = 0;
    for (int j = 0; j < 8; j++) v = (v << 1) | (unsigned)(bytes[8 * b + j] >> 7);
    bits[b] = (uint8_t)v;
  }
  if (n % 8 != 0) {
    unsigned v = 0;
    for (int64_t j = n / 8 * 8; j < n; j++) v = (v << 1) | (unsigned)(bytes[j] >> 7);
    bits[n / 8] = (uint8_t)(v << (8 - n % 8));
  }
}

/*
 * Error collection with register caching, one row at a time: pixel x
 * collects the errors of its row at x-1, x-2 and of the rows above at
 * x-2 .. x+reach (reach = slope - 1). Each error of the rows above is read
 * from memory once, at column x + reach, and what it sends to pixels
 * x .. x+4 waits in registers: the paper caches the five neighbours
 * themselves (Section II); we cache their weighted sums, one register per
 * pixel ahead instead of one per neighbour and row, which keeps two rows'
 * state in registers for 3-row kernels too. With the two errors to the left,
 * also in registers, each pixel reads its input and one error of each row
 * above, and writes its output and its error. The state lives in a local
 * skss__ec_row, which the compiler keeps in registers.
 */
typedef struct skss__ec_row {
  const uint8_t *in;         /* the row's pixels, by column */
  uint8_t *out;              /* its 0/255 bytes, by column */
  int16_t *cur;              /* its errors, by column; the pads at -2, -1, */
  const int16_t *up1, *up2;  /* width and width+1 of these hold 0. up1 and
                                up2: rows y-1 and y-2 (up2 unread when the
                                kernel has 2 rows) */
  int ahead[5];              /* ahead[j]: what pixel x+j has from the rows
                                above read so far */
  int left1, left2;          /* errors of this row at x-1 and x-2 */
} skss__ec_row;

/* Adds what column c of the rows above (errors e1, e2) sends to pixel x + j,
 * for the pixel x whose step reads column c = x + offset. */
SKSS__HT_INLINE void skss__ec_row_collect(const skss_dither_kernel_info *k, skss__ec_row *r,
                                          int offset, int e1, int e2) {
  /* Column c sends weight[dy][dx + 2] to x + j = c + dx. */
  for (int j = 0; j < 5; j++) {
    int dx = j - offset;
    if (dx >= -2 && dx <= 2) r->ahead[j] += k->weight[1][dx + 2] * e1 + k->weight[2][dx + 2] * e2;
  }
}

/* Loads the registers for pixel x0: columns x0-2 .. x0+reach-1 of the rows
 * above (reads up1, up2 below x0 + reach). */
SKSS__HT_INLINE void skss__ec_row_seek(const skss_dither_kernel_info *k, skss__ec_row *r, int64_t x0) {
  const int reach = k->slope - 1;
  for (int j = 0; j < 5; j++) r->ahead[j] = 0;
  for (int offset = -2; offset < reach; offset++)
    skss__ec_row_collect(k, r, offset, r->up1[x0 + offset], k->rows == 3 ? r->up2[x0 + offset] : 0);
  r->left1 = r->cur[x0 - 1];
  r->left2 = r->cur[x0 - 2];
}

/* Pixel x, the one after the last seek or step (reads up1, up2 at x + reach). */
SKSS__HT_INLINE void skss__ec_row_step(const skss_dither_kernel_info *k, int white_above,
                                       skss__ec_row *r, int64_t x) {
  const int reach = k->slope - 1;
  skss__ec_row_collect(k, r, reach, r->up1[x + reach], k->rows == 3 ? r->up2[x + reach] : 0);
  int sum = r->ahead[0] + k->weight[0][4] * r->left2 + k->weight[0][3] * r->left1;
  int e = skss__halftone_pixel(r->in[x], sum, k->divisor, white_above, &r->out[x]);
  r->cur[x] = (int16_t)e;
  r->left2 = r->left1;
  r->left1 = e;
  for (int j = 0; j < 4; j++) r->ahead[j] = r->ahead[j + 1];
  r->ahead[4] = 0;
}

/* EC-RC over columns [x0, x1) of one row. */
SKSS__HT_INLINE void skss__ec_rc_span(const skss_dither_kernel_info *k, int white_above,
                                      skss__ec_row *r, int64_t x0, int64_t x1) {
  skss__ec_row_seek(k, r, x0);
  for (int64_t x = x0; x < x1; x++) skss__ec_row_step(k, white_above, r, x);
}

/* Scratch bytes the sequential `algorithm` needs; false on overflow. */
bool skss__halftone_sequential_scratch(skss_halftone_algorithm algorithm, const skss__halftone_job *job,
                                       size_t *bytes);
/* SKSS_HALFTONE_ALGORITHM_ED, EC, ED_RC, EC_RC on the calling thread. */
void skss__halftone_sequential(skss_halftone_algorithm algorithm, const skss__halftone_job *job);

/* Scratch bytes of the task array on ctx's threads; false on overflow. */
bool skss__halftone_taskarray_scratch(const skss_ctx *ctx, const skss__halftone_job *job,
                                      size_t *bytes);
/* SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU on the context's threads. */
void skss__halftone_taskarray(skss_ctx *ctx, const skss__halftone_job *job);
/* The same on the calling thread alone (the strips in order, no waits), in
 * job->scratch of skss__halftone_taskarray_alone_scratch() bytes. */
void skss__halftone_taskarray_alone(const skss__halftone_job *job);
bool skss__halftone_taskarray_alone_scratch(const skss__halftone_job *job, size_t *bytes);

#endif
