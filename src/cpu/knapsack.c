/*
 * knapsack.c — SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU: the 0-1 knapsack DP as a forward
 * task array run by Single Kernel Soft Synchronization on CPU threads
 * (Funasaka, Nakano, Ito, SKSS task arrays, Sections IV and V.A; rowsync.h).
 *
 * Rows are items, columns are chunks of S capacities (S <= CHUNK_CELLS, a
 * multiple of 64, smaller when the capacity is small so that every worker
 * has several chunks). Workers take rows by ticket; row j computes V[.][j+1]
 * from V[.][j] chunk by chunk in increasing capacity and publishes how many
 * chunks it has finished.
 *  - Data: chunk k of row j reads V[c][j] for c in [lo_k - w_j, hi_k), all
 *    in chunks <= k of row j-1, so it waits until row j-1 has finished k+1
 *    chunks.
 *  - Values live in a ring of D = workers + 1 row buffers: row j writes
 *    buffer j mod D and reads buffer (j-1) mod D; the zero row V[.][0] is
 *    "row -1" in buffer D-1. Before row j overwrites chunk k of its buffer,
 *    the buffer's last reader, row j-D+1 (which read it as row j-D's output),
 *    must be done with those capacities: a capacity x is read by that row's
 *    chunks up to (x + w_{j-D+1}) / S, so row j waits until the reader has
 *    finished chunk (hi_k - 1 + w_{j-D+1}) / S. The reader is an earlier row
 *    (ticket taken before ours), so by rowsync's argument no wait can
 *    deadlock. Row j-D, the buffer's previous writer, is past chunk k
 *    already: row j-1 is, and each row waits on its predecessor.
 *    The ring wait almost never spins: a row finishes only after its
 *    predecessor (its last chunk waits for theirs), so the unfinished rows
 *    are consecutive and each is held by a worker; while row j runs, row
 *    j-D+1 = j-workers is finished.
 *  - A row with a lower bound (knapsack_impl.h) publishes the chunks below
 *    it as done at once: nobody reads them, and since the bounds grow with j
 *    every row between j-D and j computed (and waited for) chunk k itself.
 *  - Decision bits of row j are written only by row j (chunks are whole
 *    64-bit words), so they need no synchronisation; the walk back runs after
 *    the parallel pass has joined.
 * Rows run in passes of at most PASS_ROWS rows, each one skss__parallel()
 * call, so the progress counters take O(PASS_ROWS) memory however many items
 * there are; rows of earlier passes are complete and never waited on.
 * With one worker the rows simply run in order and every wait is satisfied.
 */
#include <string.h>

#include "core/internal.h"
#include "knapsack_impl.h"
#include "rowsync.h"
#include "threadpool.h"

/* Tuning: capacities per task (multiples of 64, so tasks own whole decision
 * words; at least CHUNKS_PER_WORKER per worker when the capacity allows),
 * rows per pass, and the fewest cells worth handing to threads. */
enum {
  CHUNK_CELLS = 16384,
  MIN_CHUNK_CELLS = 2048,
  CHUNKS_PER_WORKER = 4,
  PASS_ROWS = 4096,
  MIN_PARALLEL_CELLS = 1 << 20
};

typedef struct knap_run {
  const skss__knap *p;
  char *slots;          /* `depth` value rows */
  size_t slot_bytes;
  int64_t depth;
  int64_t chunk, chunks;
  int64_t base;         /* first DP row of the current pass */
  skss__rowsync sync;   /* progress of rows base .. base + PASS_ROWS - 1 */
} knap_run;

/* The ring buffer of DP row `row` (row -1 is the zero row). */
static char *slot_of(const knap_run *r, int64_t row) {
  return r->slots + (size_t)((row + r->depth) % r->depth) * r->slot_bytes;
}

/* Waits until DP row `row` has finished `need` chunks; false if stopped. */
static bool wait_row(knap_run *r, int64_t row, int64_t need) {
  if (row < r->base) return true; /* earlier passes joined before this one began */
  return skss__rowsync_wait(&r->sync, row - r->base, need);
}

static void run_row(knap_run *r, int64_t row) {
  const skss__knap *p = r->p;
  const char *prev = slot_of(r, row - 1);
  char *next = slot_of(r, row);
  int64_t reader = row - r->depth + 1; /* the last row that read `next`'s old contents */
  uint64_t *row_bits = p->bits ? p->bits + row * p->words : NULL;
  int64_t low = p->low ? p->low[row] : 0, first = low / r->chunk;
  /* Chunks below `low` have nothing to compute (see knapsack_impl.h). */
  if (first > 0) skss__rowsync_publish(&r->sync, row - r->base, first);
  for (int64_t k = first; k < r->chunks; k++) {
    int64_t lo = k * r->chunk, hi = lo + r->chunk <= p->cap ? lo + r->chunk : p->cap + 1;
    if (lo < low) lo = low;
    /* wait (data): the cells [lo - w, hi) of row - 1 lie in its chunks <= k. */
    if (!wait_row(r, row - 1, k + 1)) return;
    if (reader >= 0) {
      int64_t last = (hi - 1 + p->w[reader]) / r->chunk;
      /* wait (ring): the reader's chunks up to `last` read capacities of chunk k. */
      if (!wait_row(r, reader, (last < r->chunks ? last : r->chunks - 1) + 1)) return;
    }
    skss__knap_span(p->isa, p->wide, prev, next, lo, hi, p->w[row], p->v[row], row_bits);
    skss__rowsync_publish(&r->sync, row - r->base, k + 1);
  }
}

static void knap_worker(int worker, int workers, void *arg) {
  (void)worker;
  (void)workers;
  knap_run *r = arg;
  int64_t ticket;
  while ((ticket = skss__rowsync_ticket(&r->sync)) >= 0) run_row(r, r->base + ticket);
}

/* Workers: no more than rows can overlap (a row lags its predecessor by a
 * chunk) and one for small problems, where handing rows over costs more. */
static int plan(const skss_ctx *ctx, const skss__knap *p, int64_t *chunk) {
  int64_t cells = p->cap + 1;
  int workers = ctx->threads;
  if ((double)cells * (double)p->items < MIN_PARALLEL_CELLS || p->items < 2) workers = 1;
  int64_t want = (cells + (int64_t)workers * CHUNKS_PER_WORKER - 1) /
                 ((int64_t)workers * CHUNKS_PER_WORKER);
  want = (want + 63) / 64 * 64;
  *chunk = want > CHUNK_CELLS ? CHUNK_CELLS : want < MIN_CHUNK_CELLS ? MIN_CHUNK_CELLS : want;
  int64_t chunks = (cells + *chunk - 1) / *chunk;
  if (workers > chunks) workers = (int)chunks;
  if (workers > p->items) workers = (int)p->items;
  return workers;
}

/* Work layout: `depth` value rows, then the progress counters of a pass. */
static int64_t pass_rows(const skss__knap *p) { return p->items < PASS_ROWS ? p->items : PASS_ROWS; }

bool skss__knapsack_taskarray_work(const skss_ctx *ctx, const skss__knap *p, size_t *bytes) {
  int64_t chunk;
  size_t row, ring;
  int depth = plan(ctx, p, &chunk) + 1;
  return skss__knap_row_bytes(p, &row) && skss__mul_size(row, (size_t)depth, &ring) &&
         skss__add_size(ring, skss__rowsync_bytes(pass_rows(p)), bytes);
}

void skss__knapsack_taskarray(skss_ctx *ctx, skss__knap *p) {
  knap_run r;
  memset(&r, 0, sizeof r);
  r.p = p;
  int workers = plan(ctx, p, &r.chunk);
  r.chunks = (p->cap + r.chunk) / r.chunk;
  r.depth = workers + 1;
  skss__knap_row_bytes(p, &r.slot_bytes);
  r.slots = p->work;
  void *progress = r.slots + (size_t)r.depth * r.slot_bytes;
  memset(slot_of(&r, -1), 0, r.slot_bytes);
  for (r.base = 0; r.base < p->items; r.base += PASS_ROWS) {
    int64_t rows = p->items - r.base < PASS_ROWS ? p->items - r.base : PASS_ROWS;
    skss__rowsync_init(&r.sync, rows, progress);
    skss__parallel(ctx, workers, knap_worker, &r);
  }
  skss__knap_finish(p, slot_of(&r, p->items - 1));
}
