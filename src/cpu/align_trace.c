/*
 * align_trace.c — the alignment in O(m + n) memory after Myers and Miller
 * ("Optimal alignments in linear space", 1988): a segment (a global alignment
 * between two corners) is split where its optimal path crosses checkpoint rows,
 * found by matching a backward pass's rows with forward passes' last rows; a
 * gap through a crossing ends the upper piece vertically (end_v) and starts the
 * lower one continuing it (start_v). Small pieces trace back a full DP. GOTOH:
 * the middle row, one thread. TASKARRAY_CPU: up to 15 rows, passes on all
 * threads, then the small pieces at once, one a thread (docs/algorithms/align.md).
 * cuda (SKSS): the same rounds with the passes on the GPU; a round's big
 * segments are split at once, one host worker and one lane (its own stream
 * and device memory, core/backend_cuda.h) a segment, taken by ticket; a
 * segment whose direction bits fit in device memory is not split but solved
 * whole on the GPU (one pass that keeps them, and the walk back).
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "align_impl.h"
#include "core/backend_cuda.h"
#include "threadpool.h"

/* Tuning: cells of a leaf's direction table, the most checkpoints a split
 * takes and their memory, and the cells above which a piece is split on all
 * threads (cuda: SKSS_CUDA_ALIGN_BIG_CELLS, cuda/tuning.h). */
enum { LEAF_CELLS = 1 << 16, MAX_CHECKPOINTS = 15 };
#define CHECKPOINT_BYTES ((size_t)1 << 30)
#define BIG_CELLS ((double)(1 << 24))

/* Direction byte of a leaf cell: where H came from, and whether E and F
 * extended a gap (else opened one). */
enum { SRC_DIAG = 0, SRC_F = 1, SRC_E = 2, E_EXT = 4, F_EXT = 8 };

typedef struct seg_mem {
  uint8_t *dirs;
  size_t dirs_bytes;
  int32_t *h, *f, *sh, *sf; /* width + 1 each */
  int64_t width;
} seg_mem;

static int64_t rows_of(const skss__align_seg *g) { return g->i1 - g->i0; }
static int64_t cols_of(const skss__align_seg *g) { return g->j1 - g->j0; }

static bool is_leaf(const skss__align_seg *g) {
  const int64_t r = rows_of(g), c = cols_of(g);
  return r <= 1 || (double)(r + 1) * (double)(c + 1) <= LEAF_CELLS;
}

static size_t leaf_bytes(int64_t width) {
  const size_t two = 2 * (size_t)(width + 1);
  return two > LEAF_CELLS ? two : LEAF_CELLS;
}

/* Agrees a piece's optimum with what its split promised (or records it). */
static skss_status settle(skss__align_seg *g, int64_t got) {
  if (g->expected == INT64_MIN) g->expected = got;
  return g->expected == got ? SKSS_OK : SKSS_ERR_INTERNAL;
}

/* Full DP of a small segment into m->dirs, then the walk back. */
static skss_status leaf(const skss__align_scores *sc, const skss__align_seqs *s, skss__align_seg *g,
                        char *ops, seg_mem *m) {
  const int64_t R = rows_of(g), C = cols_of(g), W = C + 1;
  const uint8_t *a = s->a + g->i0, *b = s->b + g->j0;
  const int32_t o = sc->open, e = sc->extend, NEG = SKSS__ALIGN_NEG;
  int32_t *hp = m->h, *fp = m->f, *hc = m->sh, *fc = m->sf;
  uint8_t *dirs = m->dirs;
  hp[0] = g->start_v ? NEG : 0;
  fp[0] = g->start_v ? 0 : NEG;
  dirs[0] = 0;
  int32_t ev = NEG;
  for (int64_t j = 1; j <= C; j++) {
    const int32_t ee = ev - e, eo = hp[j - 1] - o;
    ev = ee >= eo ? ee : eo;
    hp[j] = ev;
    fp[j] = NEG;
    dirs[j] = (uint8_t)(SRC_E | (ee >= eo ? E_EXT : 0));
  }
  for (int64_t i = 1; i <= R; i++) {
    uint8_t *row = dirs + i * W;
    const int32_t *srow = sc->sub + (size_t)a[i - 1] * SKSS__ALIGN_CODES;
    int32_t fe = fp[0] - e, fo = hp[0] - o;
    fc[0] = hc[0] = fe >= fo ? fe : fo;
    row[0] = (uint8_t)(SRC_F | (fe >= fo ? F_EXT : 0));
    ev = NEG;
    for (int64_t j = 1; j <= C; j++) {
      fe = fp[j] - e;
      fo = hp[j] - o;
      const int32_t fv = fe >= fo ? fe : fo;
      const int32_t ee = ev - e, eo = hc[j - 1] - o;
      ev = ee >= eo ? ee : eo;
      const int32_t dv = hp[j - 1] + srow[b[j - 1]];
      uint8_t d = (uint8_t)((fe >= fo ? F_EXT : 0) | (ee >= eo ? E_EXT : 0));
      int32_t hv;
      if (dv >= fv && dv >= ev) {
        hv = dv;
      } else if (fv >= ev) {
        hv = fv;
        d |= SRC_F;
      } else {
        hv = ev;
        d |= SRC_E;
      }
      row[j] = d;
      hc[j] = hv;
      fc[j] = fv;
    }
    int32_t *t = hp;
    hp = hc;
    hc = t;
    t = fp;
    fp = fc;
    fc = t;
  }
  const skss_status st = settle(g, g->end_v ? fp[C] : hp[C]);
  if (st != SKSS_OK) return st;
  /* Walk back from the end in the state the segment must end in; the ops
   * come out last first, at the end of the segment's region. */
  char *end = ops + g->off + R + C, *out = end;
  int64_t i = R, j = C;
  int state = g->end_v ? SRC_F : SRC_DIAG;
  while (i > 0 || j > 0) {
    const uint8_t d = dirs[i * W + j];
    if (state == SRC_DIAG) {
      state = d & 3;
      if (state != SRC_DIAG) continue;
      *--out = a[i - 1] == b[j - 1] ? '=' : 'X';
      i--;
      j--;
    } else if (state == SRC_F) {
      *--out = 'I';
      state = (d & F_EXT) ? SRC_F : SRC_DIAG;
      i--;
    } else {
      *--out = 'D';
      state = (d & E_EXT) ? SRC_E : SRC_DIAG;
      j--;
    }
  }
  g->len = end - out;
  memmove(ops + g->off, out, (size_t)g->len);
  return SKSS_OK;
}

/* A pass over a[ai, ai + rows) x b[bj, bj + cols) of `seq`, anchored. */
static void anchored(skss__align_pass *p, const uint8_t *a, const uint8_t *b, int64_t rows,
                     int64_t cols, int32_t h00, int32_t f00, int32_t *h, int32_t *f) {
  memset(p, 0, sizeof *p);
  p->a = a;
  p->b = b;
  p->rows = rows;
  p->cols = cols;
  p->h00 = h00;
  p->f00 = f00;
  p->h = h;
  p->f = f;
}

/* The backward pass of segment g: `rows` rows up from its end, its row r
 * in the saves every `every` rows (or, with saves 0, the last row in h/f). */
static void backward(skss__align_pass *p, const skss__align_scores *sc, const skss__align_seqs *s,
                     const skss__align_seg *g, int64_t rows, int64_t every, int64_t saves, int32_t *h, int32_t *f,
                     int32_t *save_h, int32_t *save_f) {
  anchored(p, s->ar + (s->m - g->i1), s->br + (s->n - g->j1), rows, cols_of(g),
           g->end_v ? SKSS__ALIGN_NEG : 0, g->end_v ? sc->extend - sc->open : SKSS__ALIGN_NEG, h, f);
  p->save_every = every;
  p->saves = saves;
  p->save_h = save_h;
  p->save_f = save_f;
}

/* Where a path from `cur` crosses row c: forward row (hf, ff) over columns
 * cur->j0..g->j1, backward row (hb, fb) over g's columns reversed. Appends
 * the piece above the crossing to `out` and moves cur to the crossing. */
static int64_t cross(const skss__align_scores *sc, const skss__align_seg *g, skss__align_seg *cur,
                     int64_t c, const int32_t *hf, const int32_t *ff, const int32_t *hb,
                     const int32_t *fb, skss__align_seg *piece) {
  const int64_t width = g->j1 - cur->j0, join = (int64_t)sc->open - sc->extend;
  int64_t best = INT64_MIN, at = 0;
  int vgap = 0;
  for (int64_t x = 0; x <= width; x++) {
    const int64_t y = width - x;
    const int64_t through = (int64_t)hf[x] + hb[y], gap = (int64_t)ff[x] + fb[y] + join;
    if (through > best) {
      best = through;
      at = x;
      vgap = 0;
    }
    if (gap > best) {
      best = gap;
      at = x;
      vgap = 1;
    }
  }
  const int64_t y = width - at;
  *piece = *cur;
  piece->i1 = c;
  piece->j1 = cur->j0 + at;
  piece->end_v = vgap;
  piece->expected = vgap ? ff[at] : hf[at];
  cur->i0 = c;
  cur->j0 = piece->j1;
  cur->start_v = vgap;
  cur->expected = vgap ? (int64_t)fb[y] + join : hb[y];
  return best;
}

/* Offsets of the pieces: each one's region starts where its corner says. */
static void place(const skss__align_seg *g, skss__align_seg *piece) {
  piece->off = g->off + (piece->i0 - g->i0) + (piece->j0 - g->j0);
  piece->len = 0;
}

/* Moves the pieces' ops together at g's region; sets g->len. */
static void gather(skss__align_seg *g, const skss__align_seg *pieces, int64_t count, char *ops) {
  int64_t pos = g->off;
  for (int64_t k = 0; k < count; k++) {
    memmove(ops + pos, ops + pieces[k].off, (size_t)pieces[k].len);
    pos += pieces[k].len;
  }
  g->len = pos - g->off;
}

/* Myers-Miller on one thread: split at the middle row, solve both halves. */
static skss_status solve_seq(const skss__align_scores *sc, const skss__align_seqs *s, skss__align_seg *g,
                             char *ops, seg_mem *m) {
  if (is_leaf(g)) return leaf(sc, s, g, ops, m);
  const int64_t R = rows_of(g), down = R - R / 2, c = g->i1 - down;
  skss__align_pass p;
  backward(&p, sc, s, g, down, 0, 0, m->sh, m->sf, NULL, NULL);
  skss__align_pass_run(NULL, 1, sc, &p, NULL);
  anchored(&p, s->a + g->i0, s->b + g->j0, c - g->i0, cols_of(g), g->start_v ? SKSS__ALIGN_NEG : 0,
           g->start_v ? 0 : SKSS__ALIGN_NEG, m->h, m->f);
  skss__align_pass_run(NULL, 1, sc, &p, NULL);
  skss__align_seg pieces[2], cur = *g;
  skss_status st = settle(g, cross(sc, g, &cur, c, m->h, m->f, m->sh, m->sf, &pieces[0]));
  pieces[1] = cur;
  for (int k = 0; k < 2 && st == SKSS_OK; k++) {
    place(g, &pieces[k]);
    st = solve_seq(sc, s, &pieces[k], ops, m);
  }
  if (st == SKSS_OK) gather(g, pieces, 2, ops);
  return st;
}

/* Memory of one sequential solver for pieces up to `width` columns. */
static size_t seg_mem_bytes(int64_t width) {
  return 4 * (((size_t)(width + 1) * sizeof(int32_t) + 63) / 64 * 64) + (leaf_bytes(width) + 63) / 64 * 64;
}

static void seg_mem_init(seg_mem *m, char *mem, int64_t width) {
  const size_t row = ((size_t)(width + 1) * sizeof(int32_t) + 63) / 64 * 64;
  m->h = (int32_t *)(void *)mem;
  m->f = (int32_t *)(void *)(mem + row);
  m->sh = (int32_t *)(void *)(mem + 2 * row);
  m->sf = (int32_t *)(void *)(mem + 3 * row);
  m->dirs = (uint8_t *)(mem + 4 * row);
  m->dirs_bytes = leaf_bytes(width);
  m->width = width;
}

/* ---- the parallel driver (TASKARRAY_CPU) ---- */

typedef struct piece_list {
  skss__align_seg *at;
  int64_t count, room;
} piece_list;

static bool push(skss_ctx *ctx, piece_list *l, const skss__align_seg *g) {
  if (l->count == l->room) {
    const int64_t room = l->room ? 2 * l->room : 64;
    skss__align_seg *at = skss__alloc(ctx, (size_t)room * sizeof *at);
    if (at == NULL) return false;
    if (l->count) memcpy(at, l->at, (size_t)l->count * sizeof *at);
    skss__free(ctx, l->at);
    l->at = at;
    l->room = room;
  }
  l->at[l->count++] = *g;
  return true;
}

typedef struct big_mem {
  int32_t *h, *f, *save_h, *save_f;
  int64_t saves;   /* checkpoint rows that fit */
  void *work;
  skss__cuda_align_lane *lane; /* a level's worker (cuda): its passes' lane; else NULL */
  size_t bits_budget;          /* cuda: bytes of direction bits a segment solved whole may take; else 0 */
  double whole_cells;          /* cuda: cells from which such a segment goes to the GPU */
} big_mem;

/* Whether g is solved whole on the GPU (cuda): its direction bits (half a
 * byte a cell, counted here with room for the last band's rows past it) fit
 * the budget, and it is worth a pass and a walk. The walk takes about 120 ns
 * a move on the H200 (docs/performance.md) where a host thread's two passes
 * take about 1 ns a cell, so a thin piece (fewer than WHOLE_CELLS_A_MOVE
 * cells a move of its path, r x c < 256 (r + c)) stays on the host. */
enum { WHOLE_CELLS_A_MOVE = 256 };
static bool is_whole(const skss__align_seg *g, const big_mem *bm) {
  const double r = (double)rows_of(g), c = (double)cols_of(g);
  return bm->bits_budget > 0 && r >= 1 && c >= 1 && r * c >= bm->whole_cells &&
         r * c >= WHOLE_CELLS_A_MOVE * (r + c) && (r + 1024) * c / 2 <= (double)bm->bits_budget;
}

/* A pass of a split: on the worker's lane, or where the scores say (the
 * context's stream on cuda, all threads on the CPU). */
static skss_status split_pass(skss_ctx *ctx, const skss__align_scores *sc, const big_mem *bm, skss__align_pass *p) {
  if (bm->lane != NULL) return skss__cuda_align_lane_pass(bm->lane, sc, p);
  return skss__align_pass_exec(ctx, ctx->threads, sc, p, bm->work);
}

int skss__align_checkpoints_for(bool cuda) {
  const char *env = getenv("SKSS_ALIGN_CHECKPOINTS");
  if (env != NULL && env[0] >= '1' && env[0] <= '9') {
    const long k = strtol(env, NULL, 10);
    if (k >= 1 && k <= MAX_CHECKPOINTS) return (int)k;
  }
  /* A GPU pass's time is its columns times a band's step while its bands
   * are fewer than the GPU holds, so the D-row forward passes between K
   * checkpoints each cost about a full pass: one split point (two passes a
   * level) beats 15 (16 passes a level) there; the CPU is bound by cells. */
  return cuda ? 1 : MAX_CHECKPOINTS;
}

void skss__align_checkpoint_plan(int64_t rows, int64_t cols, int most, int64_t *count, int64_t *every) {
  int64_t k = rows / SKSS__ALIGN_BAND - 1;
  const int64_t fit = (int64_t)(CHECKPOINT_BYTES / (8 * (size_t)(cols + 1)));
  if (k > fit) k = fit;
  if (k > most) k = most;
  *count = k > 0 ? k : 0;
  *every = k > 0 ? rows / (k + 1) / SKSS__ALIGN_BAND * SKSS__ALIGN_BAND : 0;
}

/* Splits a big segment at its K checkpoint rows with passes on all threads
 * (or bm's lane) and appends its pieces (in order) to `out`. The rows are
 * `pre`'s (a backward pass from g's end that already ran) or, without it,
 * those of a backward pass run here. At most bm->saves + 1 pieces (or
 * pre->count + 1) are appended. */
static skss_status split_parallel(skss_ctx *ctx, const skss__align_scores *sc, const skss__align_seqs *s,
                                  skss__align_seg *g, const big_mem *bm, const skss__align_checkpoints *pre,
                                  piece_list *out) {
  const int64_t R = rows_of(g);
  int64_t K, D, stride;
  const int32_t *save_h, *save_f;
  if (pre != NULL) {
    D = pre->every;
    K = (R - 1) / D < pre->count ? (R - 1) / D : pre->count; /* rows strictly inside g */
    stride = pre->cols + 1;
    save_h = pre->h;
    save_f = pre->f;
  } else {
    skss__align_checkpoint_plan(R, cols_of(g), sc->checkpoints, &K, &D);
    if (K > bm->saves) K = bm->saves;
    stride = cols_of(g) + 1;
    save_h = bm->save_h;
    save_f = bm->save_f;
    skss__align_pass bp;
    backward(&bp, sc, s, g, K * D, D, K, bm->h, bm->f, bm->save_h, bm->save_f);
    const skss_status bst = split_pass(ctx, sc, bm, &bp);
    if (bst != SKSS_OK) return bst;
  }
  skss__align_seg cur = *g;
  skss_status st = SKSS_OK;
  for (int64_t q = K - 1; q >= 0 && st == SKSS_OK; q--) {
    const int64_t c = g->i1 - (q + 1) * D;
    skss__align_pass p;
    anchored(&p, s->a + cur.i0, s->b + cur.j0, c - cur.i0, g->j1 - cur.j0,
             cur.start_v ? SKSS__ALIGN_NEG : 0, cur.start_v ? 0 : SKSS__ALIGN_NEG, bm->h, bm->f);
    st = split_pass(ctx, sc, bm, &p);
    if (st != SKSS_OK) break;
    skss__align_seg piece;
    const int64_t best = cross(sc, g, &cur, c, bm->h, bm->f, save_h + q * stride, save_f + q * stride, &piece);
    if (q == K - 1) st = settle(g, best);
    place(g, &piece);
    if (st == SKSS_OK && !push(ctx, out, &piece)) st = SKSS_ERR_OUT_OF_MEMORY;
  }
  place(g, &cur);
  if (st == SKSS_OK && !push(ctx, out, &cur)) st = SKSS_ERR_OUT_OF_MEMORY;
  return st;
}

typedef struct leaf_job {
  const skss__align_scores *sc;
  const skss__align_seqs *s;
  skss__align_seg *pieces;
  int64_t count;
  char *ops, *mem;
  size_t stride;
  int64_t width;
  const uint8_t *on_gpu;  /* per piece: 1 when it was solved whole on the GPU (skipped here) */
  _Atomic int64_t next;   /* why: pieces differ in size; hand them out one at a time */
  _Atomic int failure;    /* why: workers report the first failing status without a lock */
} leaf_job;

static void leaf_worker(int worker, int workers, void *arg) {
  (void)workers;
  leaf_job *job = arg;
  seg_mem m;
  seg_mem_init(&m, job->mem + (size_t)worker * job->stride, job->width);
  for (int64_t k = atomic_fetch_add(&job->next, 1); k < job->count; k = atomic_fetch_add(&job->next, 1)) {
    if (job->on_gpu[k]) continue;
    const skss_status st = solve_seq(job->sc, job->s, &job->pieces[k], job->ops, &m);
    int expected = SKSS_OK;
    /* compare-exchange: only the first failure is kept; the pieces' ops are disjoint. */
    if (st != SKSS_OK) atomic_compare_exchange_strong(&job->failure, &expected, (int)st);
  }
}

/* Whether g is split by passes (else solved whole: by Myers-Miller on one
 * thread, or on the GPU). */
static bool is_big(const skss__align_scores *sc, const skss__align_seg *g, const big_mem *bm,
                   const skss__align_checkpoints *rows) {
  const double big_cells = sc->cuda ? skss__cuda_align_big_cells() : BIG_CELLS;
  return (double)rows_of(g) * (double)cols_of(g) > big_cells && rows_of(g) >= 2 * SKSS__ALIGN_BAND &&
         (bm->saves > 0 || rows != NULL) && !is_whole(g, bm);
}

/* A segment solved whole on the GPU, on the calling thread and the
 * context's stream: its ops at its region, its score settled. */
static skss_status solve_whole(skss_ctx *ctx, const skss__align_scores *sc, const skss__align_seqs *s,
                               skss__align_seg *g, char *ops) {
  int64_t len = 0, got = 0;
  const skss_status st = skss__cuda_align_segment(ctx, NULL, sc, s->a + g->i0, s->b + g->j0, rows_of(g),
                                                  cols_of(g), g->start_v, g->end_v, ops + g->off, &len, &got);
  if (st != SKSS_OK) return st;
  g->len = len;
  return settle(g, got);
}

/* One round's big segments split at once (cuda): segment k of `which` by
 * whichever worker takes it, its pieces into its own outs[k]. */
typedef struct level_job {
  skss_ctx *ctx;
  const skss__align_scores *sc;
  const skss__align_seqs *s;
  skss__align_seg *segs;    /* the round's segments */
  const int64_t *which;     /* indices of the big ones, in order */
  int64_t bigs;
  piece_list *outs;         /* one per big segment, room for saves + 1: push() never allocates */
  skss_status *status;      /* one per big segment */
  int *lane_of;             /* the worker (lane) that split it */
  big_mem *mems;            /* one per worker: its rows and its lane */
  _Atomic int64_t next;     /* why: segments differ in size; hand them out one at a time */
  _Atomic int failed;       /* why: after a failure no worker takes a new segment (reported after the join) */
} level_job;

static void level_worker(int worker, int workers, void *arg) {
  (void)workers;
  level_job *job = arg;
  const big_mem *bm = &job->mems[worker];
  if (skss__cuda_align_lane_enter(bm->lane) != SKSS_OK) {
    atomic_store(&job->failed, 1);
    skss__cuda_align_lane_leave(bm->lane);
    return;
  }
  for (int64_t k = atomic_fetch_add(&job->next, 1); k < job->bigs && !atomic_load(&job->failed);
       k = atomic_fetch_add(&job->next, 1)) {
    job->lane_of[k] = worker;
    const skss_status st =
        split_parallel(job->ctx, job->sc, job->s, &job->segs[job->which[k]], bm, NULL, &job->outs[k]);
    job->status[k] = st;
    if (st != SKSS_OK) atomic_store(&job->failed, 1);
  }
  skss__cuda_align_lane_leave(bm->lane);
}

/* The first failure of a level, reported through the context from the
 * calling thread: a segment's in order (with its lane's message when the
 * lane recorded one), else a lane's that failed to start. */
static skss_status level_failure(skss_ctx *ctx, const level_job *job, int workers) {
  for (int64_t k = 0; k < job->bigs; k++) {
    if (job->status[k] == SKSS_OK) continue;
    const skss_status lane = skss__cuda_align_lane_report(ctx, job->mems[job->lane_of[k]].lane);
    return lane != SKSS_OK ? lane : job->status[k];
  }
  for (int w = 0; w < workers; w++) {
    const skss_status lane = skss__cuda_align_lane_report(ctx, job->mems[w].lane);
    if (lane != SKSS_OK) return lane;
  }
  return SKSS_ERR_INTERNAL; /* a worker stopped without saying why (a bug) */
}

/* Splits the round's big segments (`bigs` of now's, which are not the
 * root) at once on the context's lanes and writes the round's pieces to
 * `next` in the order the sequential loop gives: pieces of segment k before
 * those of k + 1, a small segment as itself. */
static skss_status split_level(skss_ctx *ctx, const skss__align_scores *sc, const skss__align_seqs *s,
                               const piece_list *now, piece_list *next, int64_t bigs, const big_mem *bm) {
  int want = ctx->threads, workers = 0;
  if (bigs < want) want = (int)bigs;
  skss_status st = skss__cuda_align_lanes(ctx, want, &workers);
  if (st != SKSS_OK) return st;
  int64_t width = 0;
  for (int64_t k = 0; k < now->count; k++)
    if (is_big(sc, &now->at[k], bm, NULL) && cols_of(&now->at[k]) > width) width = cols_of(&now->at[k]);
  /* one block: the lists' pieces, the bookkeeping, then each worker's rows */
  const int64_t room = bm->saves + 1, stride = width + 1;
  const size_t row = ((size_t)stride * sizeof(int32_t) + 63) / 64 * 64;
  const size_t book = ((size_t)bigs * ((size_t)room * sizeof(skss__align_seg) + sizeof(int64_t) +
                                       sizeof(piece_list) + sizeof(skss_status) + sizeof(int)) +
                       (size_t)workers * sizeof(big_mem) + 63) / 64 * 64;
  const size_t rows = (2 + 2 * (size_t)bm->saves) * row;
  char *mem = skss__alloc(ctx, book + (size_t)workers * rows);
  if (mem == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  skss__align_seg *pieces = (skss__align_seg *)(void *)mem;
  big_mem *mems = (big_mem *)(void *)(pieces + bigs * room);
  piece_list *outs = (piece_list *)(void *)(mems + workers);
  int64_t *which = (int64_t *)(void *)(outs + bigs);
  skss_status *status = (skss_status *)(void *)(which + bigs);
  int *lane_of = (int *)(void *)(status + bigs);
  for (int64_t k = 0, b = 0; k < now->count; k++)
    if (is_big(sc, &now->at[k], bm, NULL)) which[b++] = k;
  for (int64_t b = 0; b < bigs; b++) {
    outs[b].at = pieces + b * room;
    outs[b].count = 0;
    outs[b].room = room;
    status[b] = SKSS_OK;
    lane_of[b] = 0;
  }
  for (int w = 0; w < workers; w++) {
    int32_t *at = (int32_t *)(void *)(mem + book + (size_t)w * rows);
    const size_t step = row / sizeof(int32_t);
    mems[w].h = at;
    mems[w].f = at + step;
    mems[w].save_h = at + 2 * step;
    mems[w].save_f = at + (2 + (size_t)bm->saves) * step;
    mems[w].saves = bm->saves;
    mems[w].work = NULL; /* the lanes' passes run on the GPU */
    mems[w].lane = skss__cuda_align_lane_get(ctx, w);
    mems[w].bits_budget = bm->bits_budget;
    mems[w].whole_cells = bm->whole_cells;
  }
  level_job job = {ctx, sc, s, now->at, which, bigs, outs, status, lane_of, mems, 0, 0};
  skss__parallel(ctx, workers, level_worker, &job);
  /* after the join: the workers' lists, statuses and lanes are the calling thread's again */
  if (atomic_load(&job.failed)) st = level_failure(ctx, &job, workers);
  for (int64_t k = 0, b = 0; k < now->count && st == SKSS_OK; k++) {
    if (b < bigs && which[b] == k) {
      for (int64_t q = 0; q < outs[b].count && st == SKSS_OK; q++)
        if (!push(ctx, next, &outs[b].at[q])) st = SKSS_ERR_OUT_OF_MEMORY;
      b++;
    } else if (!push(ctx, next, &now->at[k])) {
      st = SKSS_ERR_OUT_OF_MEMORY;
    }
  }
  skss__free(ctx, mem);
  return st;
}

/* Splits until every piece is small, then solves the pieces at once. */
static skss_status solve_parallel(skss_ctx *ctx, const skss__align_scores *sc, const skss__align_seqs *s,
                                  skss__align_seg *root, char *ops, piece_list *lists, big_mem *bm,
                                  const skss__align_checkpoints *pre) {
  piece_list *now = &lists[0], *next = &lists[1];
  if (!push(ctx, now, root)) return SKSS_ERR_OUT_OF_MEMORY;
  bool split = true;
  for (int round = 0; split; round++) {
    split = false;
    next->count = 0;
    /* cuda: a round's big segments at once, each on its own lane (the root
     * alone on the context's stream, at `pre`'s rows when it has them) */
    int64_t bigs = 0;
    if (sc->cuda && ctx->threads > 1 && round > 0)
      for (int64_t k = 0; k < now->count; k++) bigs += is_big(sc, &now->at[k], bm, NULL);
    if (bigs >= 2) {
      const skss_status st = split_level(ctx, sc, s, now, next, bigs, bm);
      if (st != SKSS_OK) return st;
      split = true;
    } else {
      for (int64_t k = 0; k < now->count; k++) {
        skss__align_seg *g = &now->at[k];
        /* The root may come with its backward pass's rows (the begin pass). */
        const bool is_root = round == 0;
        const skss__align_checkpoints *rows = is_root && pre != NULL && pre->every > 0 &&
                                                      (rows_of(g) - 1) / pre->every >= 1
                                                  ? pre
                                                  : NULL;
        const bool big = is_big(sc, g, bm, rows);
        skss_status st = big ? split_parallel(ctx, sc, s, g, bm, rows, next)
                             : (push(ctx, next, g) ? SKSS_OK : SKSS_ERR_OUT_OF_MEMORY);
        if (st != SKSS_OK) return st;
        if (big && is_root) root->expected = g->expected;
        split |= big;
      }
    }
    piece_list *t = now;
    now = next;
    next = t;
  }
  /* the pieces whose bits fit on the GPU, one after another (each pass fills
   * it); when the device has no memory for one, it and the rest go to the
   * host threads instead (the device's message is not the call's) */
  uint8_t *on_gpu = skss__alloc(ctx, (size_t)now->count);
  if (on_gpu == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  int64_t width = 0, host = 0;
  bool gpu = true;
  for (int64_t k = 0; k < now->count; k++) {
    on_gpu[k] = 0;
    if (gpu && is_whole(&now->at[k], bm)) {
      const skss_status st = solve_whole(ctx, sc, s, &now->at[k], ops);
      if (st == SKSS_OK) {
        on_gpu[k] = 1;
        continue;
      }
      if (st != SKSS_ERR_OUT_OF_MEMORY) {
        skss__free(ctx, on_gpu);
        return st;
      }
      skss__clear_error(ctx);
      gpu = false;
    }
    host++;
    if (cols_of(&now->at[k]) > width) width = cols_of(&now->at[k]);
  }
  /* the rest at once, one a host thread */
  skss_status st = SKSS_OK;
  if (host > 0) {
    const int workers = host < ctx->threads ? (int)host : ctx->threads;
    const size_t stride = seg_mem_bytes(width);
    char *mem = skss__alloc(ctx, stride * (size_t)workers);
    if (mem == NULL) {
      skss__free(ctx, on_gpu);
      return SKSS_ERR_OUT_OF_MEMORY;
    }
    leaf_job job = {sc, s, now->at, now->count, ops, mem, stride, width, on_gpu, 0, SKSS_OK};
    skss__parallel(ctx, workers, leaf_worker, &job);
    skss__free(ctx, mem);
    st = (skss_status)atomic_load(&job.failure);
  }
  skss__free(ctx, on_gpu);
  if (st == SKSS_OK && now->count == 1 && root->expected == INT64_MIN) root->expected = now->at[0].expected;
  if (st == SKSS_OK) gather(root, now->at, now->count, ops);
  return st;
}

static skss_status traceback_parallel(skss_ctx *ctx, const skss__align_scores *sc,
                                      const skss__align_seqs *s, skss__align_seg *root, char *ops,
                                      const skss__align_checkpoints *pre) {
  const int64_t width = cols_of(root), stride = width + 1;
  big_mem bm;
  memset(&bm, 0, sizeof bm);
  if (sc->cuda) {
    bm.bits_budget = skss__cuda_align_bits_budget(ctx);
    bm.whole_cells = skss__cuda_align_whole_cells();
  }
  const size_t row = (size_t)stride * sizeof(int32_t);
  bm.saves = (int64_t)(CHECKPOINT_BYTES / (2 * row));
  if (bm.saves > sc->checkpoints) bm.saves = sc->checkpoints;
  const size_t work = skss__align_pass_work(ctx->threads, rows_of(root), width);
  char *mem = skss__alloc(ctx, 2 * row + 2 * (size_t)bm.saves * row + work + 64);
  if (mem == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  bm.h = (int32_t *)(void *)mem;
  bm.f = bm.h + stride;
  bm.save_h = bm.f + stride;
  bm.save_f = bm.save_h + bm.saves * stride;
  bm.work = (char *)mem + ((2 * row + 2 * (size_t)bm.saves * row + 63) / 64 * 64);
  piece_list lists[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
  const skss_status st = solve_parallel(ctx, sc, s, root, ops, lists, &bm, pre);
  skss__free(ctx, lists[0].at);
  skss__free(ctx, lists[1].at);
  skss__free(ctx, mem);
  return st;
}

skss_status skss__align_traceback(skss_ctx *ctx, bool parallel, const skss__align_scores *sc,
                                  const skss__align_seqs *s, skss__align_seg *root, char *ops,
                                  const skss__align_checkpoints *pre, int64_t *score) {
  skss_status st;
  /* the cuda backend splits on the GPU even for one CPU thread */
  if (parallel && (ctx->threads > 1 || sc->cuda) && !is_leaf(root)) {
    st = traceback_parallel(ctx, sc, s, root, ops, pre);
  } else {
    char *mem = skss__alloc(ctx, seg_mem_bytes(cols_of(root)));
    if (mem == NULL) return SKSS_ERR_OUT_OF_MEMORY;
    seg_mem m;
    seg_mem_init(&m, mem, cols_of(root));
    st = solve_seq(sc, s, root, ops, &m);
    skss__free(ctx, mem);
  }
  if (st == SKSS_OK) *score = root->expected;
  return st;
}
