/*
 * halftone.c — SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU: error collection as a CPU task
 * array (Funasaka, Nakano, Ito, SKSS task arrays, Section V.C: strips of rows, each strip's
 * pixels run as a parallelogram, strips soft-synchronised).
 *
 * Pixel (y, x) needs the errors of (y, x-1), (y, x-2) and of rows y-1, y-2 up
 * to column x + slope - 1, so a row may run wherever the row above is at
 * least `slope` columns ahead. The image is cut into strips of STRIP = 2
 * rows; workers take strips by ticket (rowsync.h). A worker runs its strip's
 * two rows together, the bottom row `slope` columns behind the top one, one
 * pixel of each per step: each row alone is a chain of dependent operations
 * (the loop of EC with register caching, compiled per kernel), and two
 * independent chains let the core overlap them (the CPU's form of the
 * paper's parallelogram, whose 32 rows go to the 32 threads of a warp).
 *
 * A strip runs left to right in spans of at most CHUNK columns: a span goes
 * as far as the progress of the strip above (its bottom row, read with
 * acquire) allows, the strip waits only when that allows less than MIN_SPAN
 * columns, and after each span it publishes (release) its bottom row's
 * progress. Rows two above are never waited for: a row that has finished c
 * columns had seen the row above it finish c - 1 + slope, so by
 * transitivity (and the release/acquire chain, or program order inside a
 * strip) everything a row reads is written before it reads it. A ticket is
 * taken only after every earlier strip's, so a waited-for strip is always
 * held by a running worker: any number of threads works, and one thread
 * runs the strips in order without waiting.
 *
 * Errors live in a ring of RING error rows, so memory is O(RING x width)
 * whatever the height (ring_row() says why 4 suffice); BITS rows are
 * gathered as bytes in two rows per worker and packed when the strip ends.
 */
#include <string.h>

#include "halftone_impl.h"
#include "rowsync.h"

/* CHUNK: the most columns between two publishes; large enough that progress
 * cache lines move between cores rarely, small enough that a strip follows
 * the strip above closely (strips in flight ~ width / CHUNK). MIN_SPAN: the
 * fewest columns worth a span (each reloads the register windows). */
enum { CHUNK = 256, MIN_SPAN = 32, STRIP = 2, RING = 4, PAD = 2 };

typedef struct ta_run {
  const skss__halftone_job *job;
  skss__rowsync sync;  /* one progress counter per strip: its bottom row's */
  int16_t *ring;       /* RING error rows of `stride` elements */
  size_t stride;       /* PAD zeros, the row, PAD zeros, rounded up to 64 bytes */
  uint8_t *byte_rows;  /* BITS: STRIP rows of width bytes per worker; else NULL */
} ta_run;

static int64_t strips_of(int64_t height) { return height / STRIP + (height % STRIP != 0); }

static int workers_for(const skss_ctx *ctx, int64_t height) {
  return (int64_t)ctx->threads < strips_of(height) ? ctx->threads : (int)strips_of(height);
}

static size_t ta_stride(int64_t width) { return ((size_t)width + 2 * PAD + 31) / 32 * 32; }

/* Scratch bytes of the task array on `workers` threads; false on overflow. */
static bool ta_scratch(int workers, const skss__halftone_job *job, size_t *bytes) {
  size_t ring, with_sync, byte_rows = 0;
  int64_t strips = strips_of(job->height);
  bool bits = job->output == SKSS_HALFTONE_OUTPUT_BITS;
  return (uint64_t)job->width <= SIZE_MAX - 64 &&
         skss__mul_size(ta_stride(job->width), RING * sizeof(int16_t), &ring) &&
         (uint64_t)strips <= SIZE_MAX / sizeof(skss__row_progress) &&
         skss__add_size(ring, skss__rowsync_bytes(strips), &with_sync) &&
         (!bits || skss__mul_size((size_t)job->width, (size_t)workers * STRIP, &byte_rows)) &&
         skss__add_size(with_sync, byte_rows, bytes);
}

bool skss__halftone_taskarray_scratch(const skss_ctx *ctx, const skss__halftone_job *job,
                                      size_t *bytes) {
  return ta_scratch(workers_for(ctx, job->height), job, bytes);
}

bool skss__halftone_taskarray_alone_scratch(const skss__halftone_job *job, size_t *bytes) {
  return ta_scratch(1, job, bytes);
}

/*
 * Errors of row y (y >= -2; rows -2 and -1 are the zero rows), column 0 at
 * index 0. Row y + RING reuses row y's slot; only rows y+1 and y+2 read row
 * y, and row y+4 overwrites it safely. Whichever row R writes column c has
 * seen row R-1 finish at least c + slope columns (a top row through the
 * progress of the strip above, a bottom row through its top row, `slope`
 * columns ahead), and row R-1 had seen row R-2 finish c + 2 slope - 1 >= c + 3
 * when it finished c + slope. So row y+2 (and row y+1, further ahead) has
 * finished every pixel that reads row y at or below column c (pixels up to
 * c + 2) before row y+4 writes column c, ordered by the release/acquire chain
 * and program order. Pads are never written.
 */
static int16_t *ring_row(const ta_run *run, int64_t y) {
  return run->ring + (size_t)((y + RING) % RING) * run->stride + PAD;
}

/* Waits until `strip` has published `need` columns; returns its progress. */
static int64_t wait_for_strip(skss__rowsync *sync, int64_t strip, int64_t need) {
  int64_t done = skss__rowsync_done(sync, strip);
  unsigned spins = 0;
  /* spin-wait: `strip` was ticketed before ours, so a running worker owns it. */
  while (done < need) {
    skss__spin_pause(&spins);
    done = skss__rowsync_done(sync, strip);
  }
  return done;
}

/* End of the span that starts at x0: at most CHUNK columns, and no further
 * than the strip above allows, having finished `above` columns of its bottom
 * row: a span ending at x1 reads that row below column x1 + slope - 1. */
static int64_t span_end(int64_t x0, int64_t above, int slope, int64_t width) {
  int64_t end = above >= width ? width : above - (slope - 1);
  if (end < x0) end = x0;
  return x0 + CHUNK < end ? x0 + CHUNK : end;
}

/* Columns [x0, x1) of the top row and [x0 - lag, x1 - lag) of the bottom row
 * (lag = slope), a pixel of each per step; the bottom row reads the top
 * row's errors up to column x - lag + slope - 1 = x - 1, finished the step
 * before. At the row's end the bottom row runs its last columns alone.
 * Returns the bottom row's progress. */
SKSS__HT_INLINE int64_t pair_span(const skss_dither_kernel_info *k, int white_above, skss__ec_row *top,
                                  skss__ec_row *bottom, int64_t x0, int64_t x1, int64_t width) {
  const int64_t lag = k->slope;
  int64_t x = x0;
  skss__ec_row_seek(k, top, x0);
  for (; x < x1 && x < lag; x++) skss__ec_row_step(k, white_above, top, x);
  if (x < x1) {
    skss__ec_row_seek(k, bottom, x - lag);
    for (; x < x1; x++) {
      skss__ec_row_step(k, white_above, top, x);
      skss__ec_row_step(k, white_above, bottom, x - lag);
    }
  }
  int64_t bottom_done = x1 > lag ? x1 - lag : 0;
  if (x1 < width) return bottom_done;
  skss__ec_rc_span(k, white_above, bottom, bottom_done, width);
  return width;
}

/* Row y's state; its bytes go to the output (BYTES) or to `byte_row`. */
static skss__ec_row row_state(const ta_run *run, int64_t y, uint8_t *byte_row) {
  const skss__halftone_job *job = run->job;
  skss__ec_row r = {.in = job->in + (size_t)y * job->in_pitch,
                    .out = job->output == SKSS_HALFTONE_OUTPUT_BYTES ? job->out + (size_t)y * job->out_pitch
                                                              : byte_row,
                    .cur = ring_row(run, y),
                    .up1 = ring_row(run, y - 1),
                    .up2 = ring_row(run, y - 2)};
  return r;
}

SKSS__HT_INLINE void ta_strip(const skss_dither_kernel_info *k, ta_run *run, int64_t strip,
                              uint8_t *byte_rows) {
  const skss__halftone_job *job = run->job;
  const int64_t width = job->width, y = strip * STRIP;
  const int64_t rows = job->height - y < STRIP ? job->height - y : STRIP;
  skss__ec_row top = row_state(run, y, byte_rows),
               bottom = row_state(run, y + rows - 1, byte_rows ? byte_rows + width : NULL);
  int64_t above = strip == 0 ? width : 0; /* progress of the strip above seen so far */
  for (int64_t x0 = 0; x0 < width;) {
    int64_t x1 = span_end(x0, above, k->slope, width);
    if (x1 < width && x1 - x0 < MIN_SPAN) {
      int64_t need = x0 + MIN_SPAN + k->slope - 1;
      above = wait_for_strip(&run->sync, strip - 1, need < width ? need : width);
      continue;
    }
    int64_t done = x1;
    if (rows == STRIP)
      done = pair_span(k, job->white_above, &top, &bottom, x0, x1, width);
    else
      skss__ec_rc_span(k, job->white_above, &top, x0, x1);
    skss__rowsync_publish(&run->sync, strip, done);
    x0 = x1;
  }
  if (byte_rows != NULL)
    for (int64_t r = 0; r < rows; r++)
      skss__halftone_pack_bits(byte_rows + r * width, width, job->out + (size_t)(y + r) * job->out_pitch);
}

SKSS__HT_INLINE void ta_strips(const skss_dither_kernel_info *k, ta_run *run, uint8_t *byte_rows) {
  int64_t strip;
  while ((strip = skss__rowsync_ticket(&run->sync)) >= 0) ta_strip(k, run, strip, byte_rows);
}

static void ta_worker(int worker, int workers, void *arg) {
  (void)workers;
  ta_run *run = arg;
  uint8_t *byte_rows =
      run->byte_rows ? run->byte_rows + (size_t)worker * STRIP * (size_t)run->job->width : NULL;
#define RUN_STRIPS(k) ta_strips(k, run, byte_rows)
  SKSS__DITHER_SWITCH(run->job->kernel, RUN_STRIPS)
#undef RUN_STRIPS
}

/* The run's ring, strip counters and byte rows in job->scratch. */
static void ta_prepare(ta_run *run, const skss__halftone_job *job) {
  run->job = job;
  run->stride = ta_stride(job->width);
  run->ring = job->scratch;
  /* The ring first (64-byte aligned rows), then the strip counters, then the
   * byte rows. */
  size_t ring_bytes = RING * run->stride * sizeof *run->ring;
  int64_t strips = strips_of(job->height);
  memset(run->ring, 0, ring_bytes);
  skss__rowsync_init(&run->sync, strips, (uint8_t *)job->scratch + ring_bytes);
  run->byte_rows = job->output == SKSS_HALFTONE_OUTPUT_BITS
                       ? (uint8_t *)job->scratch + ring_bytes + skss__rowsync_bytes(strips)
                       : NULL;
}

void skss__halftone_taskarray_alone(const skss__halftone_job *job) {
  ta_run run;
  ta_prepare(&run, job);
  ta_worker(0, 1, &run);
}

void skss__halftone_taskarray(skss_ctx *ctx, const skss__halftone_job *job) {
  ta_run run;
  ta_prepare(&run, job);
  skss__parallel(ctx, workers_for(ctx, job->height), ta_worker, &run);
}
