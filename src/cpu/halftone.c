/*
 * halftone.c — SKSS_HALFTONE_TASKARRAY_CPU: error collection as a CPU task
 * array (skss-task-arrays.md, Section V.C, with rows as the paper's strips).
 *
 * Pixel (y, x) needs the errors of (y, x-1), (y, x-2) and of rows y-1, y-2 up
 * to column x + slope - 1, so a row may run wherever the row above is at
 * least `slope` columns ahead. Workers take image rows by ticket (rowsync.h)
 * and run each row left to right in spans of at most CHUNK columns: a span
 * runs as far as the progress of the row above (read with acquire) allows,
 * waiting only when it allows nothing, and after each span the row
 * publishes (release) how far it got, so a row trails the row above by
 * about one span. Three-row kernels also read row y-2 and need no wait on
 * it: row y-1 published c columns only after seeing row y-2 finish
 * c + slope - 1, so row y-2 is then ahead of what row y reads by
 * transitivity, and the release/acquire chain y-2 -> y-1 -> y orders its
 * writes before our reads. A ticket is taken only after every earlier
 * row's, so a waited-for row is always held by a running worker: any number
 * of threads works, and one thread runs the rows in order without waiting.
 *
 * The inner loop is the register-caching EC span of halftone_impl.h,
 * compiled per kernel. Errors live in a ring of RING error rows, so memory is
 * O(RING x width) whatever the height (see ring_row() for why 4 suffice).
 */
#include <string.h>

#include "halftone_impl.h"
#include "rowsync.h"

/* CHUNK: the most columns between two publishes (a multiple of 8): large
 * enough that progress cache lines move between cores rarely, small enough
 * that a row follows the row above closely (rows in flight ~ width / CHUNK). */
enum { CHUNK = 512, RING = 4, PAD = 2 };

typedef struct ta_run {
  const skss__halftone_job *job;
  skss__rowsync sync;
  int16_t *ring;  /* RING error rows of `stride` elements */
  size_t stride;  /* PAD zeros, the row, PAD zeros, rounded up to 64 bytes */
} ta_run;

static size_t ta_stride(int64_t width) {
  return ((size_t)width + 2 * PAD + 31) / 32 * 32;
}

bool skss__halftone_taskarray_scratch(const skss__halftone_job *job, size_t *bytes) {
  size_t ring;
  return (uint64_t)job->width <= SIZE_MAX - 64 &&
         skss__mul_size(ta_stride(job->width), RING * sizeof(int16_t), &ring) &&
         (uint64_t)job->height <= SIZE_MAX / sizeof(skss__row_progress) &&
         skss__add_size(ring, skss__rowsync_bytes(job->height), bytes);
}

/*
 * Errors of row y (y >= -2; rows -2 and -1 are the zero rows), column 0 at
 * index 0. Row y + RING reuses row y's slot; only rows y+1 and y+2 read row
 * y, and row y+4 overwrites it safely: before it writes columns < x1 it has
 * seen row y+3 finish min(width, x1 - 1 + slope) columns, which row y+3
 * published only after seeing row y+2 finish min(width, x1 - 2 + 2 slope)
 * >= min(width, x1 + 2) columns (slope >= 2). So rows y+2 and y+1 (further
 * ahead) have finished every pixel that reads row y below column x1 (pixels
 * < x1 + 2), and the release/acquire chain orders those reads before the
 * overwrite. Pads are never written.
 */
static int16_t *ring_row(const ta_run *run, int64_t y) {
  return run->ring + (size_t)((y + RING) % RING) * run->stride + PAD;
}

/* Waits until `row` has finished `need` columns; returns its progress. */
static int64_t wait_for_row(skss__rowsync *sync, int64_t row, int64_t need) {
  int64_t done = skss__rowsync_done(sync, row);
  unsigned spins = 0;
  /* spin-wait: `row` took its ticket before ours, so a running worker owns it. */
  while (done < need) {
    skss__spin_pause(&spins);
    done = skss__rowsync_done(sync, row);
  }
  return done;
}

/* End of the span that starts at x0: at most CHUNK columns, and no further
 * than the row above allows, having finished `above` columns: a span ending
 * at x1 reads it below column x1 + slope - 1. Ends are multiples of 8 (BITS
 * spans pack whole bytes) except the row's end; x0 when nothing may run. */
static int64_t span_end(int64_t x0, int64_t above, int slope, int64_t width) {
  int64_t end = above >= width ? width : (above - (slope - 1)) / 8 * 8;
  if (end < x0) end = x0;
  return x0 + CHUNK < end ? x0 + CHUNK : end;
}

SKSS__HT_INLINE void ta_row(const skss_dither_kernel_info *k, ta_run *run, int64_t y) {
  const skss__halftone_job *job = run->job;
  const int64_t width = job->width;
  const uint8_t *in = job->in + (size_t)y * job->in_pitch;
  uint8_t *out = job->out + (size_t)y * job->out_pitch;
  int16_t *cur = ring_row(run, y);
  const int16_t *up1 = ring_row(run, y - 1), *up2 = ring_row(run, y - 2);
  uint8_t span_bytes[CHUNK];
  int64_t above = y == 0 ? width : 0; /* progress of row y-1 seen so far */
  for (int64_t x0 = 0; x0 < width;) {
    int64_t x1 = span_end(x0, above, k->slope, width);
    if (x1 == x0) {
      /* Wait for 8 more columns' worth (a whole byte of BITS output). */
      int64_t need = x0 + 8 + k->slope - 1;
      above = wait_for_row(&run->sync, y - 1, need < width ? need : width);
      continue;
    }
    if (job->output == SKSS_HALFTONE_BYTES) {
      skss__ec_rc_span(k, job->white_above, in, out + x0, cur, up1, up2, x0, x1);
    } else {
      skss__ec_rc_span(k, job->white_above, in, span_bytes, cur, up1, up2, x0, x1);
      skss__halftone_pack_bits(span_bytes, x1 - x0, out + x0 / 8);
    }
    skss__rowsync_publish(&run->sync, y, x1);
    x0 = x1;
  }
}

SKSS__HT_INLINE void ta_rows(const skss_dither_kernel_info *k, ta_run *run) {
  int64_t y;
  while ((y = skss__rowsync_ticket(&run->sync)) >= 0) ta_row(k, run, y);
}

static void ta_worker(int worker, int workers, void *arg) {
  (void)worker;
  (void)workers;
  ta_run *run = arg;
#define RUN_ROWS(k) ta_rows(k, run)
  SKSS__DITHER_SWITCH(run->job->kernel, RUN_ROWS)
#undef RUN_ROWS
}

void skss__halftone_taskarray(skss_ctx *ctx, const skss__halftone_job *job) {
  ta_run run;
  run.job = job;
  run.stride = ta_stride(job->width);
  run.ring = job->scratch;
  /* The ring first (64-byte aligned rows), the row counters after it. */
  size_t ring_bytes = RING * run.stride * sizeof *run.ring;
  memset(run.ring, 0, ring_bytes);
  skss__rowsync_init(&run.sync, job->height, (uint8_t *)job->scratch + ring_bytes);
  int workers = (int64_t)ctx->threads < job->height ? ctx->threads : (int)job->height;
  skss__parallel(ctx, workers, ta_worker, &run);
}
