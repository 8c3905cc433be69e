/*
 * rowsync.c — initialisation of the CPU row-ticket scheduler (rowsync.h).
 */
#include "rowsync.h"

void skss__rowsync_init(skss__rowsync *rs, int64_t rows, void *storage) {
  atomic_init(&rs->next_row, 0);
  atomic_init(&rs->stop, 0);
  rs->rows = rows;
  rs->progress = storage;
  for (int64_t r = 0; r < rows; r++) atomic_init(&rs->progress[r].done, 0);
}
