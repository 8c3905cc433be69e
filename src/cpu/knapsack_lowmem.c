/*
 * knapsack_lowmem.c — the chosen items when their decision bits do not fit
 * the memory limit: the same walk back as with all the bits (item j taken
 * iff V[c][j+1] != V[c][j], last item first), from value-row checkpoints.
 *
 * A forward pass over items [lo, hi) from the row V[.][lo] keeps a copy of
 * V[.][s] at the start s of each segment; then, last segment first, each
 * segment's rows are recomputed from its checkpoint with their decision bits
 * and walked. A segment whose bits still do not fit is split the same way
 * with the memory left (its checkpoints stack above the parent's). With room
 * for one level this is twice the value-only work; each further level adds
 * up to one more pass. Sequential: one thread runs every row (Funasaka,
 * Nakano, Ito's DP rows, Section V.A, in the kernel of knapsack_ref.c).
 */
#include <string.h>

#include "core/internal.h"
#include "knapsack_impl.h"

typedef struct lowmem {
  const skss__knap *p;
  size_t row_bytes;  /* one value row */
  size_t bits_bytes; /* one row of decision words */
  char *scratch[2];  /* ping-pong value rows */
  int64_t *c;        /* the walk's capacity, updated as segments are walked */
  uint8_t *taken;    /* per DP item */
} lowmem;

static int64_t row_low(const skss__knap *p, int64_t j) { return p->low ? p->low[j] : 0; }

/* Rows [lo, hi) from `base` = V[.][lo]. With bits: the decision bits of row
 * j go to bits + (j - lo) * words. With every > 0: the row V[.][lo + k * every]
 * for k >= 1 (short of hi) is copied to saved + (k - 1) * row_bytes. */
static void forward(const lowmem *m, int64_t lo, int64_t hi, const char *base, uint64_t *bits,
                    int64_t every, char *saved) {
  const skss__knap *p = m->p;
  const char *prev = base;
  for (int64_t j = lo; j < hi; j++) {
    char *next = m->scratch[(j - lo) & 1];
    skss__knap_span(p->isa, p->wide, prev, next, row_low(p, j), p->cap + 1, p->w[j], p->v[j],
                    bits ? bits + (j - lo) * p->words : NULL);
    prev = next;
    if (every > 0 && (j + 1 - lo) % every == 0)
      memcpy(saved + (size_t)((j + 1 - lo) / every - 1) * m->row_bytes, next, m->row_bytes);
  }
}

/* The fewest segments of n items whose checkpoints and one segment's bits
 * fit `bytes`; 0 when no count does. */
static int64_t segments_that_fit(const lowmem *m, int64_t n, size_t bytes) {
  for (int64_t s = 2; s <= n; s++) {
    if ((size_t)(s - 1) * m->row_bytes > bytes) break;
    const int64_t len = (n + s - 1) / s;
    if ((size_t)(s - 1) * m->row_bytes + (size_t)len * m->bits_bytes <= bytes) return s;
  }
  return 0;
}

/* Walks items [lo, hi) back from *m->c, given base = V[.][lo], with `bytes`
 * bytes of memory at `mem`. */
static void walk(lowmem *m, int64_t lo, int64_t hi, const char *base, char *mem, size_t bytes) {
  const skss__knap *p = m->p;
  const int64_t n = hi - lo;
  if ((size_t)n * m->bits_bytes <= bytes) {
    uint64_t *bits = (uint64_t *)(void *)mem;
    forward(m, lo, hi, base, bits, 0, NULL);
    for (int64_t j = hi - 1; j >= lo; j--) {
      const int64_t c = *m->c;
      if ((bits[(j - lo) * p->words + c / 64] >> (c % 64)) & 1u) {
        m->taken[j] = 1;
        *m->c = c - p->w[j];
      }
    }
    return;
  }
  int64_t s = segments_that_fit(m, n, bytes);
  if (s == 0) s = 2; /* bisect: one checkpoint, the rest of the memory for each half */
  const int64_t len = (n + s - 1) / s;
  s = (n + len - 1) / len;
  forward(m, lo, lo + (s - 1) * len, base, NULL, len, mem);
  const size_t used = (size_t)(s - 1) * m->row_bytes;
  for (int64_t g = s - 1; g >= 0; g--) {
    const int64_t seg_lo = lo + g * len, seg_hi = seg_lo + len < hi ? seg_lo + len : hi;
    const char *seg_base = g == 0 ? base : mem + (size_t)(g - 1) * m->row_bytes;
    walk(m, seg_lo, seg_hi, seg_base, mem + used, bytes - used);
  }
}

bool skss__knapsack_lowmem_bytes(const skss__knap *p, size_t *least, size_t *one_level) {
  size_t row = 0, levels = 0;
  if (!skss__knap_row_bytes(p, &row) || row > SIZE_MAX / 128) return false;
  for (int64_t n = p->items; n > 1; n = (n + 1) / 2) levels++;
  const size_t bits = (size_t)p->words * 8;
  /* A zero row and two scratch rows; then a checkpoint a level down to one
   * row of bits, or the best single level of checkpoints. */
  *least = (3 + levels) * row + bits;
  *one_level = SIZE_MAX;
  for (int64_t s = 2; s <= p->items; s++) {
    const uint64_t len = (uint64_t)((p->items + s - 1) / s);
    if (len > SIZE_MAX / bits || (size_t)(s + 2) > SIZE_MAX / row) break;
    const size_t rows = (size_t)(s + 2) * row, need = rows + (size_t)len * bits;
    if (need < rows) break;
    if (need < *one_level) *one_level = need;
    if (rows > *one_level) break;
  }
  if (*one_level < *least) *least = *one_level;
  /* Whole cache lines, so that a caller's 64-byte rounding never cuts into them. */
  if (*least > SIZE_MAX - 63) return false;
  *least = (*least + 63) / 64 * 64;
  *one_level = *one_level > SIZE_MAX - 63 ? SIZE_MAX : (*one_level + 63) / 64 * 64;
  return true;
}

void skss__knapsack_lowmem(skss__knap *p, char *mem, size_t bytes, uint8_t *taken) {
  lowmem m = {p, 0, (size_t)p->words * 8, {NULL, NULL}, NULL, taken};
  skss__knap_row_bytes(p, &m.row_bytes);
  char *zero = mem;
  m.scratch[0] = mem + m.row_bytes;
  m.scratch[1] = mem + 2 * m.row_bytes;
  memset(zero, 0, m.row_bytes);
  memset(taken, 0, (size_t)p->items);
  /* The value pass: V[cap][items], the walk's start. */
  forward(&m, 0, p->items, zero, NULL, 0, NULL);
  skss__knap_finish(p, m.scratch[(p->items - 1) & 1]);
  int64_t c = p->cap;
  m.c = &c;
  walk(&m, 0, p->items, zero, mem + 3 * m.row_bytes, bytes - 3 * m.row_bytes);
}
