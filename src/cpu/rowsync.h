/*
 * rowsync.h — the CPU side of Single Kernel Soft Synchronization: rows of a
 * task array are handed out by an atomic ticket counter, and each row
 * publishes its progress (a monotone "columns done" count) with release
 * stores that waiters read with acquire loads. Because a row only ever waits
 * on rows whose tickets were taken before its own, and those rows are held
 * by running threads, no wait can deadlock whatever the number of workers.
 * Used by skss_taskarray_run() and by the halftone and knapsack schedulers.
 */
#ifndef SKSS_ROWSYNC_H
#define SKSS_ROWSYNC_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "threadpool.h"

/* One progress counter per cache line, so rows on different cores do not
 * invalidate each other's counters. */
typedef struct skss__row_progress {
  _Atomic int64_t done;
  char pad[64 - sizeof(int64_t)];
} skss__row_progress;

typedef struct skss__rowsync {
  _Atomic int64_t next_row;   /* the ticket counter */
  _Atomic int stop;           /* set when a worker fails: waiters give up */
  int64_t rows;
  skss__row_progress *progress;
} skss__rowsync;

/* Bytes of progress storage for `rows` rows (for the caller's scratch). */
static inline size_t skss__rowsync_bytes(int64_t rows) {
  return (size_t)(rows > 0 ? rows : 1) * sizeof(skss__row_progress);
}

/* Resets the counter and every row's progress; `storage` must hold
 * skss__rowsync_bytes(rows) bytes aligned to 64. */
void skss__rowsync_init(skss__rowsync *rs, int64_t rows, void *storage);

/* Takes the next row; -1 when all rows are taken or the run stopped. */
static inline int64_t skss__rowsync_ticket(skss__rowsync *rs) {
  if (atomic_load_explicit(&rs->stop, memory_order_relaxed)) return -1;
  /* relaxed: the ticket only orders rows; data flows through progress. */
  int64_t row = atomic_fetch_add_explicit(&rs->next_row, 1, memory_order_relaxed);
  return row < rs->rows ? row : -1;
}

/* Publishes that `row` has finished its first `done` columns. */
static inline void skss__rowsync_publish(skss__rowsync *rs, int64_t row, int64_t done) {
  /* release: every write of those columns happens-before a reader's acquire. */
  atomic_store_explicit(&rs->progress[row].done, done, memory_order_release);
}

/* Progress of `row` now (acquire: the columns it counts are visible). */
static inline int64_t skss__rowsync_done(skss__rowsync *rs, int64_t row) {
  return atomic_load_explicit(&rs->progress[row].done, memory_order_acquire);
}

/* Waits until `row` has finished at least `need` columns; false if the run
 * was stopped meanwhile. */
static inline bool skss__rowsync_wait(skss__rowsync *rs, int64_t row, int64_t need) {
  if (skss__rowsync_done(rs, row) >= need) return true;
  unsigned spins = 0;
  /* spin-wait: the owner of `row` took its ticket before us and is running. */
  while (skss__rowsync_done(rs, row) < need) {
    if (atomic_load_explicit(&rs->stop, memory_order_relaxed)) return false;
    skss__spin_pause(&spins);
  }
  return true;
}

static inline void skss__rowsync_stop(skss__rowsync *rs) {
  atomic_store_explicit(&rs->stop, 1, memory_order_relaxed);
}

#endif
