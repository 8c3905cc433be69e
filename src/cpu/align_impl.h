/*
 * align_impl.h — what the alignment entry point (core/align_api.c), the pass
 * engine (align_pass.c, align_avx2.c) and the traceback (align_trace.c) share.
 * A pass runs Gotoh's recurrences (maximising; o >= e >= 0 penalties)
 *   E(i,j) = max(E(i,j-1) - e, H(i,j-1) - o), F(i,j) = max(F(i-1,j) - e, H(i-1,j) - o),
 *   H(i,j) = max(H(i-1,j-1) + s(a_i, b_j), E, F [, 0 when local])
 * over rows of a[0, rows) and columns of b[0, cols), row 0 and column 0 free
 * (all 0) or anchored at (0,0) with given H and F; backward passes run it on
 * reversed copies. The range check keeps every value above NEG - 2^29.
 */
#ifndef SKSS_ALIGN_IMPL_H
#define SKSS_ALIGN_IMPL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/internal.h"

/* "Minus infinity": far below any real score, far above INT32_MIN. */
#define SKSS__ALIGN_NEG (-(INT32_C(1) << 30))
/* Letter codes are < 32; a score row has 32 entries. */
#define SKSS__ALIGN_CODES 32

/* The sequences' code arrays have this many readable bytes before and
 * after them (the AVX2 rows read 8 letters at a time around a column). */
#define SKSS__ALIGN_PAD 16

typedef struct skss__align_scores {
  int32_t sub[SKSS__ALIGN_CODES * SKSS__ALIGN_CODES]; /* s(x, y) = sub[x * 32 + y] */
  int32_t open, extend;
  int match_mismatch;      /* s is match for equal codes, mismatch otherwise */
  int32_t match, mismatch;
  bool simd;               /* passes run 8 rows at a time with AVX2 (cpu backend) */
  bool cuda;               /* passes given a context run on its GPU (cuda backend) */
  int checkpoints;         /* most checkpoint rows a traceback split takes (1..15) */
} skss__align_scores;

/* Which cells may end (or, backwards, begin) an alignment: none (the score
 * is read from the last row), every cell (local), or the last row and the
 * last column (semi-global). */
typedef enum skss__align_track {
  SKSS__ALIGN_TRACK_NONE = 0,
  SKSS__ALIGN_TRACK_ALL = 1,
  SKSS__ALIGN_TRACK_EDGE = 2
} skss__align_track;

/* The best candidate cell: highest score, then smallest i, then smallest j. */
typedef struct skss__align_best {
  int64_t score, i, j;
} skss__align_best;

static inline void skss__align_consider(skss__align_best *b, int64_t score, int64_t i, int64_t j) {
  if (score > b->score || (score == b->score && (i < b->i || (i == b->i && j < b->j)))) {
    b->score = score;
    b->i = i;
    b->j = j;
  }
}

typedef struct skss__align_pass {
  const uint8_t *a, *b;
  int64_t rows, cols;
  bool free_start;        /* row 0 and column 0 are 0 */
  int32_t h00, f00;       /* anchored start: H(0,0), F(0,0) */
  bool local;             /* H is never below 0 */
  skss__align_track track;
  /* Rows save_every, 2 save_every, ..., saves * save_every (<= rows) are
   * copied to save_h/save_f + k * (cols + 1) (k = row / save_every - 1);
   * save_every is a multiple of SKSS__ALIGN_BAND. */
  int64_t save_every, saves;
  int32_t *save_h, *save_f;
  int32_t *h, *f;         /* cols + 1 each: on return, row `rows` */
  skss__align_best best;  /* OUT: with a track; score INT64_MIN if none */
} skss__align_pass;

#if defined(__x86_64__) && defined(__GNUC__)
#define SKSS__ALIGN_HAVE_AVX2 1
#else
#define SKSS__ALIGN_HAVE_AVX2 0
#endif

/* Rows top..top+7 of a pass over columns [lo, hi) (align_avx2.c): h and f
 * hold row top-1 on entry and row top+7 on return; ch[r], ce[r] are H and E
 * of (top+r, lo-1) on entry and of (top+r, hi-1) on return; corner is
 * H(top-1, lo-1). With TRACK_ALL every cell is a candidate for *best. Only
 * when sc->simd (the CPU runs AVX2). */
void skss__align_rows8_avx2(const struct skss__align_pass *p, const skss__align_scores *sc, int64_t top,
                            int64_t lo, int64_t hi, int32_t *ch, int32_t *ce, int32_t corner,
                            skss__align_best *best);

/* Bytes of work for a pass on `workers` threads (1: sequential). */
size_t skss__align_pass_work(int workers, int64_t rows, int64_t cols);
/* Tile height of the parallel pass: save_every must be a multiple of it. */
#define SKSS__ALIGN_BAND 64
/* Runs a pass; with workers > 1 as a task array of tiles on the context's
 * threads (ctx's pool), else on the calling thread. `work` holds
 * skss__align_pass_work() bytes, 64-byte aligned. */
void skss__align_pass_run(skss_ctx *ctx, int workers, const skss__align_scores *sc,
                          skss__align_pass *p, void *work);

/* Runs a pass where the scores say: on ctx's GPU when sc->cuda and ctx is
 * not NULL (src/cuda/align/; SKSS_ERR_OUT_OF_MEMORY or SKSS_ERR_CUDA can
 * come back), else skss__align_pass_run() (always SKSS_OK). */
skss_status skss__align_pass_exec(skss_ctx *ctx, int workers, const skss__align_scores *sc,
                                  skss__align_pass *p, void *work);

/* One piece of the traceback: the best global alignment of a[i0, i1) with
 * b[j0, j1) that, when start_v, starts with a vertical move continuing a gap
 * opened before it (its first letter costs e) and, when end_v, ends with a
 * vertical move. Its ops go to ops + off (at most (i1-i0) + (j1-j0) bytes). */
typedef struct skss__align_seg {
  int64_t i0, j0, i1, j1;
  int start_v, end_v;
  int64_t expected;       /* its optimal score when known, else INT64_MIN */
  int64_t off, len;       /* where its ops go, and how many it wrote */
} skss__align_seg;

/* The inputs of a traceback: codes of a and b and their reversed copies. */
typedef struct skss__align_seqs {
  const uint8_t *a, *b, *ar, *br;
  int64_t m, n;
} skss__align_seqs;

/* Rows of a backward pass anchored at a segment's end (i1, j1) with
 * end_v 0, kept as its checkpoints: row i1 - every * (k + 1) at h and f +
 * k * (cols + 1), k < count, its column j at index j1 - j. */
typedef struct skss__align_checkpoints {
  int64_t every, count, cols;
  int32_t *h, *f;
} skss__align_checkpoints;

/* How many checkpoint rows (*count, up to 15 and 1 GiB) a split of `rows`
 * x `cols` takes, and their spacing (*every, a multiple of the band). */
void skss__align_checkpoint_plan(int64_t rows, int64_t cols, int most, int64_t *count, int64_t *every);
/* The checkpoints a split takes on a backend: 15 on the CPU (fewest cells),
 * 1 on cuda (passes as tall as possible); SKSS_ALIGN_CHECKPOINTS=1..15 in the
 * environment overrides both (for tests and tuning). */
int skss__align_checkpoints_for(bool cuda);

/* Aligns `root` (global between its corners) into ops + root->off. With
 * `parallel`, big segments are split by passes on all threads and the
 * pieces solved at once (TASKARRAY_CPU), the root at `pre`'s rows when
 * given (a backward pass from its end that already ran: the begin pass);
 * else Myers-Miller on the calling thread (GOTOH). Sets root->len and, when
 * root->expected is INT64_MIN, the score in *score. SKSS_ERR_OUT_OF_MEMORY,
 * or SKSS_ERR_INTERNAL when a piece's score disagrees with its split (a bug). */
skss_status skss__align_traceback(skss_ctx *ctx, bool parallel, const skss__align_scores *sc,
                                  const skss__align_seqs *s, skss__align_seg *root, char *ops,
                                  const skss__align_checkpoints *pre, int64_t *score);

#endif
