/*
 * knapsack_impl.h — what the knapsack entry point (core/knapsack_api.c), the
 * sequential DP (knapsack_ref.c) and the task-array DP (knapsack.c) share.
 *
 * The entry point reduces the instance to its "DP items": those with
 * 0 < w_j <= C and v_j > 0 (the others never change V except zero-weight
 * items, which shift every V[.][j] by v_j and are always taken when v_j > 0),
 * and clamps the capacity to C' = min(C, their total weight). Both changes
 * leave every decision V[c][j+1] != V[c][j] of the remaining items as it was.
 * A DP row j maps V[.][j] (prev) to V[.][j+1] (next) over capacities
 * 0..C' and, when reconstructing, stores the decision bits of that row.
 * Row j may start at low[j] instead of 0: the answer V[C'][n] and the walk
 * back read row j only at capacities >= C' - (weight of the items after j),
 * so with low[n-1] = C' rounded down to 64 and low[j-1] = max(0, low[j] - w_j)
 * rounded down, every cell a row reads of its predecessor was computed.
 * Cells and bits below low[j] are left as they were and never read.
 *
 * Only standard headers, the public header and isa.h are included, so
 * white-box tests can include this file to test each instruction-set kernel
 * against the scalar one.
 */
#ifndef SKSS_KNAPSACK_IMPL_H
#define SKSS_KNAPSACK_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "isa.h"
#include "skss.h"

/* Instruction sets of the row kernel; SCALAR is plain C and runs anywhere. */
typedef enum skss__knap_isa {
  SKSS__KNAP_SCALAR = 0,
  SKSS__KNAP_AVX2 = 1,
  SKSS__KNAP_AVX512 = 2
} skss__knap_isa;

/* The largest C' the entry point hands to an algorithm: two value rows of
 * C' + 1 cells of 4 bytes already need more than INT64_MAX bytes beyond it.
 * So cap + 1, cap + a chunk and c + w (w <= cap) never overflow int64. */
#define SKSS__KNAP_MAX_CAP (INT64_MAX / 8)

typedef struct skss__knap {
  int64_t items;        /* DP items */
  int64_t cap;          /* C': capacities 0..cap, cap <= SKSS__KNAP_MAX_CAP */
  const int64_t *w, *v; /* weights and values of the DP items, in input order */
  const int64_t *low;   /* NULL (every row computes 0..cap) or, per row, the first
                           capacity it must compute, a multiple of 64 */
  int wide;             /* 1: int64 cells; 0: int32 cells (sum of values <= INT32_MAX) */
  skss__knap_isa isa;   /* kernel to run */
  uint64_t *bits;       /* NULL (value only) or `items` rows of `words` words:
                           bit c of row j = V[c][j+1] != V[c][j] */
  int64_t words;        /* per row: ceil((cap + 1) / 64) */
  void *work;           /* the algorithm's working memory, 64-byte aligned */
  int64_t *table;       /* NULL, or OUT: V[c][items] for c = 0..cap (then low is NULL) */
  int64_t best;         /* OUT: V[cap][items] */
} skss__knap;

/* The fastest kernel of this build that instruction-set level `level` runs. */
skss__knap_isa skss__knap_isa_at(skss__cpu_isa level);
/* 1 if this build and this CPU can run kernel `isa`. */
int skss__knap_isa_supported(skss__knap_isa isa);

/* Computes next[c] for c in [lo, hi) of the row of an item (w, v) from
 * prev[0, hi): next[c] = prev[c] if c < w, else max(prev[c], prev[c - w] + v),
 * and, when row_bits is not NULL, the decision words covering [lo, hi) (bits
 * at or past hi in the last word are 0). lo is a multiple of 64; prev and next
 * are distinct buffers of int32 cells (wide = 0) or int64 cells (wide = 1). */
void skss__knap_span(skss__knap_isa isa, int wide, const void *prev, void *next, int64_t lo,
                     int64_t hi, int64_t w, int64_t v, uint64_t *row_bits);

/* Bytes of one value row of cap + 1 cells padded to 64 bytes; false if that
 * overflows size_t. */
bool skss__knap_row_bytes(const skss__knap *p, size_t *bytes);
/* Cell c of a value row. */
int64_t skss__knap_cell(const skss__knap *p, const void *row, int64_t c);
/* The last row V[.][items] is `row`: sets p->best and fills p->table. */
void skss__knap_finish(skss__knap *p, const void *row);

/* SKSS_KNAPSACK_ALGORITHM_DP: rows one after another in two value rows. */
bool skss__knapsack_dp_work(const skss__knap *p, size_t *bytes);
void skss__knapsack_dp(skss__knap *p);
/* SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU: rows on a task array of capacity chunks, run
 * on the context's threads; its work holds a ring of value rows and the
 * row-progress counters. */
bool skss__knapsack_taskarray_work(const skss_ctx *ctx, const skss__knap *p, size_t *bytes);
void skss__knapsack_taskarray(skss_ctx *ctx, skss__knap *p);

/* The chosen items without all the decision bits (knapsack_lowmem.c): the
 * same walk from value-row checkpoints, in any memory of at least *least
 * bytes; *one_level bytes suffice for twice the value-only work (SIZE_MAX
 * when no single level does). Both are multiples of 64. False if the sizes
 * overflow size_t. */
bool skss__knapsack_lowmem_bytes(const skss__knap *p, size_t *least, size_t *one_level);
/* Runs rows and walks back in `bytes` (>= *least) bytes of 64-byte aligned
 * `mem`: p->best, and taken[k] = 1 for each chosen DP item k (else 0).
 * Single-threaded; p->bits is not used. */
void skss__knapsack_lowmem(skss__knap *p, char *mem, size_t bytes, uint8_t *taken);

/* SKSS_KNAPSACK_ALGORITHM_CORE (knapsack_core.c): one optimum of the DP
 * items (0 < w_k <= cap, v_k > 0) from an expanding core, sequential; its
 * memory comes from the context's allocator, at most max_bytes of states.
 * SKSS_ERR_TIMEOUT past time_limit_ms (0: none), SKSS_ERR_OUT_OF_MEMORY,
 * SKSS_ERR_OVERFLOW for cap > INT64_MAX / 4. */
typedef struct skss__knap_core {
  int64_t items, cap;
  const int64_t *w, *v;
  int64_t max_bytes, time_limit_ms;
  uint8_t *chosen; /* NULL (value only) or OUT: chosen[k] = 1 for chosen item k */
  int64_t best;    /* OUT */
  pthread_mutex_t *alloc_lock; /* held around the context's allocator (instances at once), or NULL */
} skss__knap_core;
skss_status skss__knapsack_core(skss_ctx *ctx, skss__knap_core *args);

#endif
