/*
 * align_pass.c — one pass of Gotoh's recurrences over a rectangle, keeping one
 * row of H and F (docs/algorithms/align.md). Sequentially (GOTOH, small
 * passes) rows run one after another over the whole width, 8 at a time with
 * AVX2 on the cpu backend (align_avx2.c). In parallel (TASKARRAY_CPU) tiles of
 * 64 rows x 2048 columns form a fair task array (Funasaka, Nakano, Ito, SKSS
 * task arrays, Sections II and IV; rowsync.h): workers take bands by ticket,
 * chunk k of band r waits for band r-1's chunk k and updates the shared rows in
 * place; a band carries H and E left of its chunk and the H above-left of it.
 */
#include <string.h>

#include "align_impl.h"
#include "core/backend_cuda.h"
#include "rowsync.h"
#include "threadpool.h"

/* Tuning: columns per tile, and the fewest cells worth a parallel pass. */
enum { CHUNK = 2048, MIN_PARALLEL_CELLS = 1 << 22 };

static inline int32_t max32(int32_t x, int32_t y) { return x > y ? x : y; }

/* Row i of cells [lo, hi): h and f hold row i-1 on entry and row i on
 * return; *hl, *el are H and E of (i, lo-1) on entry and of (i, hi-1) on
 * return; diag is H(i-1, lo-1). With `all`, every cell is a candidate. */
static inline void row_span(const int32_t *srow, const uint8_t *b, int32_t *h, int32_t *f,
                            int64_t lo, int64_t hi, int32_t *hl, int32_t *el, int32_t diag,
                            int32_t o, int32_t e, bool local, bool all, skss__align_best *best,
                            int64_t i) {
  int32_t left = *hl, ev = *el;
  for (int64_t j = lo; j < hi; j++) {
    const int32_t up = h[j];
    const int32_t fv = max32(f[j] - e, up - o);
    ev = max32(ev - e, left - o);
    int32_t hv = max32(diag + srow[b[j - 1]], max32(ev, fv));
    if (local) hv = max32(hv, 0);
    if (all && hv >= best->score) skss__align_consider(best, hv, i, j);
    diag = up;
    h[j] = hv;
    f[j] = fv;
    left = hv;
  }
  *hl = left;
  *el = ev;
}

/* The same with the flags as constants, so each use compiles to its own loop. */
static void span(const skss__align_pass *p, const skss__align_scores *sc, int64_t i, int64_t lo,
                 int64_t hi, int32_t *hl, int32_t *el, int32_t diag, skss__align_best *best) {
  const int32_t *srow = sc->sub + (size_t)p->a[i - 1] * SKSS__ALIGN_CODES;
  const bool all = p->track == SKSS__ALIGN_TRACK_ALL;
  const int32_t o = sc->open, e = sc->extend;
  if (p->local && all)
    row_span(srow, p->b, p->h, p->f, lo, hi, hl, el, diag, o, e, true, true, best, i);
  else if (all)
    row_span(srow, p->b, p->h, p->f, lo, hi, hl, el, diag, o, e, false, true, best, i);
  else if (p->local)
    row_span(srow, p->b, p->h, p->f, lo, hi, hl, el, diag, o, e, true, false, best, i);
  else
    row_span(srow, p->b, p->h, p->f, lo, hi, hl, el, diag, o, e, false, false, best, i);
}

/* Candidates of the last column and the last row (semi-global) after row
 * i's cells [lo, hi) were computed. */
static void edge_candidates(const skss__align_pass *p, int64_t i, int64_t lo, int64_t hi,
                            skss__align_best *best) {
  if (p->track != SKSS__ALIGN_TRACK_EDGE) return;
  if (i == p->rows)
    for (int64_t j = lo; j < hi; j++) skss__align_consider(best, p->h[j], i, j);
  else if (hi == p->cols + 1 && hi > lo)
    skss__align_consider(best, p->h[p->cols], i, p->cols);
}

/* Row 0 of the pass into h and f, and its candidates. */
static void first_row(const skss__align_pass *p, const skss__align_scores *sc, skss__align_best *best) {
  int32_t ev = SKSS__ALIGN_NEG;
  p->h[0] = p->free_start ? 0 : p->h00;
  p->f[0] = p->free_start ? SKSS__ALIGN_NEG : p->f00;
  for (int64_t j = 1; j <= p->cols; j++) {
    ev = max32(ev - sc->extend, p->h[j - 1] - sc->open);
    p->h[j] = p->free_start ? 0 : ev;
    p->f[j] = SKSS__ALIGN_NEG;
  }
  if (p->track == SKSS__ALIGN_TRACK_NONE) return;
  const bool whole = p->track == SKSS__ALIGN_TRACK_ALL || p->rows == 0;
  for (int64_t j = whole ? 0 : p->cols; j <= p->cols; j++) skss__align_consider(best, p->h[j], 0, j);
}

/* Column 0 of row i from row i-1's (in h[0], f[0]); H(i,0) into *h0. */
static void column_zero(const skss__align_pass *p, const skss__align_scores *sc, int64_t i,
                        int32_t *h0, skss__align_best *best) {
  if (p->free_start) {
    p->f[0] = SKSS__ALIGN_NEG;
    p->h[0] = 0;
  } else {
    p->f[0] = max32(p->f[0] - sc->extend, p->h[0] - sc->open);
    p->h[0] = p->f[0];
  }
  *h0 = p->h[0];
  if (p->track == SKSS__ALIGN_TRACK_ALL ||
      (p->track == SKSS__ALIGN_TRACK_EDGE && (i == p->rows || p->cols == 0)))
    skss__align_consider(best, p->h[0], i, 0);
}

/* Copies columns [lo, hi) of row i into its save slot, if it has one. */
static void save_row(const skss__align_pass *p, int64_t i, int64_t lo, int64_t hi) {
  if (p->saves == 0 || i % p->save_every != 0 || i / p->save_every > p->saves) return;
  const size_t at = (size_t)(i / p->save_every - 1) * (size_t)(p->cols + 1);
  memcpy(p->save_h + at + lo, p->h + lo, sizeof(int32_t) * (size_t)(hi - lo));
  memcpy(p->save_f + at + lo, p->f + lo, sizeof(int32_t) * (size_t)(hi - lo));
}

/* Rows top..bot (a band, or 8 rows) over columns [lo, hi): 8 at a time
 * with AVX2 when the scores allow it, the rest row by row. ch, ce: the rows'
 * H and E left of lo (updated to hi-1); diag: H(top-1, lo-1). */
static void rows_span(const skss__align_pass *p, const skss__align_scores *sc, int64_t top, int64_t bot,
                      int64_t lo, int64_t hi, int32_t *ch, int32_t *ce, int32_t diag, skss__align_best *best) {
  int64_t i = top;
  while (i <= bot) {
#if SKSS__ALIGN_HAVE_AVX2
    if (sc->simd && bot - i >= 7 && hi > lo) {
      const int32_t next = ch[i + 7 - top];
      skss__align_rows8_avx2(p, sc, i, lo, hi, ch + (i - top), ce + (i - top), diag, best);
      if (p->track == SKSS__ALIGN_TRACK_EDGE) {
        if (hi == p->cols + 1)
          for (int r = 0; r < 8; r++) skss__align_consider(best, ch[i - top + r], i + r, p->cols);
        if (i + 7 == p->rows) edge_candidates(p, i + 7, lo, hi, best);
      }
      diag = next;
      i += 8;
      continue;
    }
#endif
    const int32_t left = ch[i - top];
    span(p, sc, i, lo, hi, &ch[i - top], &ce[i - top], diag, best);
    edge_candidates(p, i, lo, hi, best);
    diag = left;
    i++;
  }
}

static void run_sequential(const skss__align_scores *sc, skss__align_pass *p) {
  int32_t ch[8], ce[8];
  for (int64_t top = 1; top <= p->rows; top += 8) {
    const int64_t bot = top + 7 < p->rows ? top + 7 : p->rows;
    const int32_t diag = p->h[0];
    for (int64_t i = top; i <= bot; i++) {
      column_zero(p, sc, i, &ch[i - top], &p->best);
      ce[i - top] = SKSS__ALIGN_NEG;
    }
    rows_span(p, sc, top, bot, 1, p->cols + 1, ch, ce, diag, &p->best);
    save_row(p, bot, 0, p->cols + 1);
  }
}

typedef struct pass_run {
  const skss__align_scores *sc;
  skss__align_pass *p;
  int64_t bands, chunks;
  skss__rowsync sync;
  int32_t *carry;               /* per worker: BAND H values, then BAND E values */
  skss__align_best *best;       /* per worker */
} pass_run;

/* Chunk k of band `band` (rows top..bot): waits for the band above, then
 * updates the shared rows over the chunk's columns. */
static void run_chunk(pass_run *r, int64_t top, int64_t bot, int64_t k, int32_t *ch, int32_t *ce,
                      int32_t *corner, skss__align_best *best) {
  skss__align_pass *p = r->p;
  const int64_t lo = 1 + k * CHUNK, hi = lo + CHUNK < p->cols + 1 ? lo + CHUNK : p->cols + 1;
  int32_t diag = *corner;
  if (k == 0) {
    diag = p->h[0];
    for (int64_t i = top; i <= bot; i++) {
      column_zero(p, r->sc, i, &ch[i - top], best);
      ce[i - top] = SKSS__ALIGN_NEG;
    }
  }
  /* The band above's H at hi-1: the above-left corner of the next chunk. */
  if (hi > lo) *corner = p->h[hi - 1];
  rows_span(p, r->sc, top, bot, lo, hi, ch, ce, diag, best);
  save_row(p, bot, k == 0 ? 0 : lo, hi);
}

static void pass_worker(int worker, int workers, void *arg) {
  (void)workers;
  pass_run *r = arg;
  skss__align_pass *p = r->p;
  int32_t *ch = r->carry + (size_t)worker * 2 * SKSS__ALIGN_BAND, *ce = ch + SKSS__ALIGN_BAND;
  skss__align_best *best = &r->best[worker];
  int64_t band;
  while ((band = skss__rowsync_ticket(&r->sync)) >= 0) {
    const int64_t top = band * SKSS__ALIGN_BAND + 1;
    const int64_t bot = top + SKSS__ALIGN_BAND - 1 < p->rows ? top + SKSS__ALIGN_BAND - 1 : p->rows;
    int32_t corner = 0;
    for (int64_t k = 0; k < r->chunks; k++) {
      /* wait (data): chunk k of the band above, its last row, is in the shared rows. */
      if (band > 0 && !skss__rowsync_wait(&r->sync, band - 1, k + 1)) return;
      run_chunk(r, top, bot, k, ch, ce, &corner, best);
      /* publish (release): the band's last row over chunk k is in the shared rows. */
      skss__rowsync_publish(&r->sync, band, k + 1);
    }
  }
}

size_t skss__align_pass_work(int workers, int64_t rows, int64_t cols) {
  (void)cols;
  if (workers <= 1) return 0;
  const int64_t bands = (rows + SKSS__ALIGN_BAND - 1) / SKSS__ALIGN_BAND;
  return skss__rowsync_bytes(bands) + (size_t)workers * (2 * SKSS__ALIGN_BAND * sizeof(int32_t) +
                                                         sizeof(skss__align_best) + 64);
}

void skss__align_pass_run(skss_ctx *ctx, int workers, const skss__align_scores *sc,
                          skss__align_pass *p, void *work) {
  p->best.score = INT64_MIN;
  p->best.i = p->best.j = INT64_MAX;
  first_row(p, sc, &p->best);
  if (workers <= 1 || (double)p->rows * (double)p->cols < MIN_PARALLEL_CELLS) {
    run_sequential(sc, p);
    return;
  }
  pass_run r;
  memset(&r, 0, sizeof r);
  r.sc = sc;
  r.p = p;
  r.bands = (p->rows + SKSS__ALIGN_BAND - 1) / SKSS__ALIGN_BAND;
  r.chunks = (p->cols + CHUNK - 1) / CHUNK;
  if (r.chunks == 0) r.chunks = 1;
  char *mem = work;
  skss__rowsync_init(&r.sync, r.bands, mem);
  mem += skss__rowsync_bytes(r.bands);
  r.best = (skss__align_best *)(void *)mem;
  mem += (size_t)workers * sizeof(skss__align_best);
  r.carry = (int32_t *)(void *)mem;
  for (int w = 0; w < workers; w++) r.best[w] = p->best;
  if (workers > r.bands) workers = (int)r.bands;
  skss__parallel(ctx, workers, pass_worker, &r);
  for (int w = 0; w < workers; w++)
    if (r.best[w].score != INT64_MIN) skss__align_consider(&p->best, r.best[w].score, r.best[w].i, r.best[w].j);
}

skss_status skss__align_pass_exec(skss_ctx *ctx, int workers, const skss__align_scores *sc,
                                  skss__align_pass *p, void *work) {
  if (sc->cuda && ctx != NULL) return skss__cuda_align_pass(ctx, sc, p);
  skss__align_pass_run(ctx, workers, sc, p, work);
  return SKSS_OK;
}
