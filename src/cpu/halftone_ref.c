/*
 * halftone_ref.c — the four sequential algorithms of Kasagi, Nakano, Ito's parallel error diffusion paper,
 * Section II (Table I), for every dither kernel, on the calling thread. All
 * keep errors as integers and divide a pixel's whole sum once, so all give
 * the same bytes:
 *  - ED:    error diffusion: each pixel pushes w * e into integer accumulator
 *           rows y, y+1, y+2 and reads its own accumulator;
 *  - EC:    error collection: each pixel pulls w * e from the error rows
 *           y, y-1, y-2 in memory;
 *  - ED-RC: ED whose pushes to the next two rows accumulate in 5-entry
 *           register windows and reach memory once per column, and whose
 *           own row's accumulators are read once;
 *  - EC-RC: EC whose errors of the rows above are read once and wait in
 *           registers (skss__ec_rc_span() of halftone_impl.h, also the
 *           inner loop of the task array).
 * Rows live in a ring of 3 (plus 2 zero pad columns on each side, so the
 * image border needs no branches); BITS rows go through one byte row and are
 * packed when the row is done.
 */
#include <string.h>

#include "halftone_impl.h"

enum { RING = 3, PAD = 2 };

/* Elements of one ring row: the image row and its pads. */
static size_t ring_stride(int64_t width) { return (size_t)width + 2 * PAD; }

bool skss__halftone_sequential_scratch(skss_halftone_algorithm algorithm, const skss__halftone_job *job,
                                       size_t *bytes) {
  size_t elem = algorithm == SKSS_HALFTONE_ALGORITHM_ED || algorithm == SKSS_HALFTONE_ALGORITHM_ED_RC ? sizeof(int32_t)
                                                                                 : sizeof(int16_t);
  size_t ring, row_bytes = job->output == SKSS_HALFTONE_OUTPUT_BITS ? (size_t)job->width : 0;
  return (uint64_t)job->width <= SIZE_MAX - 2 * PAD &&
         skss__mul_size(ring_stride(job->width), RING * elem, &ring) &&
         skss__add_size(ring, row_bytes, bytes);
}

/* Row y of the ring (y >= -2), column 0 of the image at index 0. */
#define RING_ROW(base, job, y) \
  ((base) + (size_t)(((y) + RING) % RING) * ring_stride((job)->width) + PAD)

/* Where row y's 0/255 bytes go: the output row (BYTES) or the byte row. */
static uint8_t *row_bytes(const skss__halftone_job *job, int64_t y, uint8_t *byte_row) {
  return job->output == SKSS_HALFTONE_OUTPUT_BYTES ? job->out + (size_t)y * job->out_pitch : byte_row;
}

/* Packs the byte row into output row y when the output is BITS. */
static void row_done(const skss__halftone_job *job, int64_t y, const uint8_t *byte_row) {
  if (job->output == SKSS_HALFTONE_OUTPUT_BITS)
    skss__halftone_pack_bits(byte_row, job->width, job->out + (size_t)y * job->out_pitch);
}

/* Zeroes the ring of `elem`-byte rows at the start of the scratch (rows -2
 * and -1 and every pad hold 0) and returns it; *byte_row is the byte row
 * after it. */
static void *ring_init(const skss__halftone_job *job, size_t elem, uint8_t **byte_row) {
  size_t ring_bytes = RING * ring_stride(job->width) * elem;
  memset(job->scratch, 0, ring_bytes);
  *byte_row = (uint8_t *)job->scratch + ring_bytes;
  return job->scratch;
}

SKSS__HT_INLINE void ed_image(const skss_dither_kernel_info *k, const skss__halftone_job *job) {
  const int64_t width = job->width;
  uint8_t *byte_row;
  int32_t *ring = ring_init(job, sizeof *ring, &byte_row);
  for (int64_t y = 0; y < job->height; y++) {
    /* Accumulators of rows y, y+1, y+2: the sums w * e pushed so far. */
    int32_t *acc0 = RING_ROW(ring, job, y), *acc1 = RING_ROW(ring, job, y + 1),
            *acc2 = RING_ROW(ring, job, y + 2);
    const uint8_t *in = job->in + (size_t)y * job->in_pitch;
    uint8_t *out = row_bytes(job, y, byte_row);
    for (int64_t x = 0; x < width; x++) {
      int e = skss__halftone_pixel(in[x], acc0[x], k->divisor, job->white_above, &out[x]);
      acc0[x + 1] += k->weight[0][3] * e;
      acc0[x + 2] += k->weight[0][4] * e;
      for (int dx = -2; dx <= 2; dx++) {
        acc1[x + dx] += k->weight[1][dx + 2] * e;
        acc2[x + dx] += k->weight[2][dx + 2] * e;
      }
    }
    row_done(job, y, byte_row);
    /* Row y's accumulators become row y+3's, which nothing has pushed to yet. */
    memset(acc0 - PAD, 0, ring_stride(width) * sizeof *acc0);
  }
}

SKSS__HT_INLINE void ec_image(const skss_dither_kernel_info *k, const skss__halftone_job *job) {
  const int64_t width = job->width;
  uint8_t *byte_row;
  int16_t *ring = ring_init(job, sizeof *ring, &byte_row);
  for (int64_t y = 0; y < job->height; y++) {
    int16_t *cur = RING_ROW(ring, job, y);
    const int16_t *up1 = RING_ROW(ring, job, y - 1), *up2 = RING_ROW(ring, job, y - 2);
    const uint8_t *in = job->in + (size_t)y * job->in_pitch;
    uint8_t *out = row_bytes(job, y, byte_row);
    for (int64_t x = 0; x < width; x++) {
      /* Pixel x collects from x - dx of the rows above with weight[dy][dx + 2]. */
      int sum = k->weight[0][3] * cur[x - 1] + k->weight[0][4] * cur[x - 2];
      for (int dx = -2; dx <= 2; dx++)
        sum += k->weight[1][dx + 2] * up1[x - dx] + k->weight[2][dx + 2] * up2[x - dx];
      cur[x] = (int16_t)skss__halftone_pixel(in[x], sum, k->divisor, job->white_above, &out[x]);
    }
    row_done(job, y, byte_row);
  }
}

SKSS__HT_INLINE void ed_rc_image(const skss_dither_kernel_info *k, const skss__halftone_job *job) {
  const int64_t width = job->width;
  uint8_t *byte_row;
  int32_t *ring = ring_init(job, sizeof *ring, &byte_row);
  for (int64_t y = 0; y < job->height; y++) {
    int32_t *acc0 = RING_ROW(ring, job, y), *acc1 = RING_ROW(ring, job, y + 1),
            *acc2 = RING_ROW(ring, job, y + 2);
    const uint8_t *in = job->in + (size_t)y * job->in_pitch;
    uint8_t *out = row_bytes(job, y, byte_row);
    /* r0..r2: row y's accumulators at x..x+2; n1, n2: row y's pushes to rows
     * y+1, y+2 at columns x-2..x+2, stored once a column leaves the window. */
    int r0 = acc0[0], r1 = acc0[1], n1[5] = {0}, n2[5] = {0};
    for (int64_t x = 0; x < width; x++) {
      int r2 = acc0[x + 2];
      int e = skss__halftone_pixel(in[x], r0, k->divisor, job->white_above, &out[x]);
      r1 += k->weight[0][3] * e;
      r2 += k->weight[0][4] * e;
      for (int j = 0; j < 5; j++) {
        n1[j] += k->weight[1][j] * e;
        n2[j] += k->weight[2][j] * e;
      }
      /* Column x-2 has all of row y's pushes; row y+2 had none before. */
      acc1[x - 2] += n1[0];
      acc2[x - 2] = n2[0];
      r0 = r1;
      r1 = r2;
      for (int j = 0; j < 4; j++) {
        n1[j] = n1[j + 1];
        n2[j] = n2[j + 1];
      }
      n1[4] = n2[4] = 0;
    }
    for (int j = 0; j < 2 + PAD; j++) {
      acc1[width - 2 + j] += n1[j];
      acc2[width - 2 + j] = n2[j];
    }
    row_done(job, y, byte_row);
  }
}

SKSS__HT_INLINE void ec_rc_image(const skss_dither_kernel_info *k, const skss__halftone_job *job) {
  const int64_t width = job->width;
  uint8_t *byte_row;
  int16_t *ring = ring_init(job, sizeof *ring, &byte_row);
  for (int64_t y = 0; y < job->height; y++) {
    skss__ec_row row = {.in = job->in + (size_t)y * job->in_pitch,
                        .out = row_bytes(job, y, byte_row),
                        .cur = RING_ROW(ring, job, y),
                        .up1 = RING_ROW(ring, job, y - 1),
                        .up2 = RING_ROW(ring, job, y - 2)};
    skss__ec_rc_span(k, job->white_above, &row, 0, width);
    row_done(job, y, byte_row);
  }
}

void skss__halftone_sequential(skss_halftone_algorithm algorithm, const skss__halftone_job *job) {
#define RUN_ED(k) ed_image(k, job)
#define RUN_EC(k) ec_image(k, job)
#define RUN_ED_RC(k) ed_rc_image(k, job)
#define RUN_EC_RC(k) ec_rc_image(k, job)
  switch (algorithm) {
    case SKSS_HALFTONE_ALGORITHM_ED: SKSS__DITHER_SWITCH(job->kernel, RUN_ED) break;
    case SKSS_HALFTONE_ALGORITHM_EC: SKSS__DITHER_SWITCH(job->kernel, RUN_EC) break;
    case SKSS_HALFTONE_ALGORITHM_ED_RC: SKSS__DITHER_SWITCH(job->kernel, RUN_ED_RC) break;
    case SKSS_HALFTONE_ALGORITHM_EC_RC:
    default: SKSS__DITHER_SWITCH(job->kernel, RUN_EC_RC) break;
  }
#undef RUN_ED
#undef RUN_EC
#undef RUN_ED_RC
#undef RUN_EC_RC
}
