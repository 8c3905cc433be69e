/*
 * knapsack_core.c — SKSS_KNAPSACK_ALGORITHM_CORE: one optimum of the 0-1
 * knapsack after Pisinger's minknap (Oper. Res. 45(5), 1997) and Martello,
 * Pisinger, Toth's combo (Manage. Sci. 45(3), 1999): items partly sorted
 * around the break item, a core grown a side at a time (copies of an item
 * 1, 2, 4 ... at once), DP over (weight, profit) states with dominance,
 * Dantzig and cardinality bounds, divisibility, combo's pairing, and our
 * per-state Lagrangian cut. Sequential. Derivations and measurements:
 * docs/algorithms/knapsack.md, docs/performance.md (issue 25).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "knapsack_impl.h"

__extension__ typedef __int128 i128;

/* Intervals at most this long are sorted outright. */
#define SMALL 16
/* The cut (and aspiration) start when at least 4096 states are alive past 16
 * core items and the states merged so far cost more than WORK n (preparing
 * them costs some 40 LPs over the n items). */
#define WORK 16

/* Decisions a state remembers: the last 48 core items; the top 16 bits of
 * its word count its items less the break solution's (mod 2^16). */
#define TRACE 48
#define HIST (((uint64_t)1 << TRACE) - 1)

typedef struct item {
  int64_t w, p, id;
} item;

typedef struct state {
  int64_t w, p;
  uint64_t v; /* bit k < TRACE: the k-th latest core item is flipped from the break solution */
} state;

enum { LEFT = 1, CORE = 2, OUT = 4 };

typedef struct span {
  int64_t lo, hi;
  bool fixed; /* every item fixed (see sort_right) */
} span;

/* One case of cut_states: its multiplier as a profit shift, its cardinality
 * k, its bound over all solutions, and the items of shifted profit > 0 by
 * shifted efficiency, the outside ones and their prefix sums (w, q). */
typedef struct cut_side {
  int64_t shift, k, n;
  i128 global;
  item *items, *out; /* out: the outside ones among them */
  i128 *w, *q;
} cut_side;

typedef struct solver {
  skss_ctx *ctx;
  pthread_mutex_t *alloc_lock; /* the caller's, when instances are solved at once (else NULL) */
  item *it;
  int64_t n, cap;
  int64_t b, wb, pb;      /* break item; weight and profit of items 0..b-1 */
  int64_t s, t;           /* core [s, t]: items decided by the states */
  int64_t first, last;    /* sorted positions [first, last] */
  span *lstack, *rstack;  /* unsorted intervals left and right of them, nearest on top */
  int64_t nl, nr;
  span lfixed, rfixed;    /* the last fixed intervals reached on each side */
  state *block;           /* one allocation of 2 * room states: */
  state *a, *o;           /* the state list and the merge output, its halves */
  int64_t na, room;
  int64_t wleft;          /* weight of items 0..s-1 (what a state can still drop) */
  int64_t g;              /* gcd of the profits: every solution's value is a multiple */
  int64_t z;              /* incumbent */
  int64_t zt;             /* the next multiple of g above z, less 1: the bounds must beat it */
  bool have;              /* a state reached z (else z is only a lower bound) */
  uint64_t zv;
  int64_t zdepth;
  int64_t zextra;         /* id of an item outside the core the incumbent flips, or -1 */
  int64_t *hist, depth;   /* core "items" in the order they came: first position */
  int64_t *copies;        /* ... and how many copies of one item from there */
  int64_t flips;          /* copies in the core in all */
  int64_t work;           /* states merged in all */
  int64_t upper;          /* global upper bound */
  int64_t kmax, kmin;     /* cardinality limits (kmax < 0: not computed), see card_bound */
  int64_t pair_at;        /* depth of the next pairing */
  int64_t *xs;            /* scratch: n values */
  item *lp;               /* scratch: n items */
  item *byw;              /* the items by weight (for pairing), built on first use */
  bool byw_ready;
  uint8_t *mark;          /* by id: LEFT (in the break solution), CORE (in [s, t]), OUT (cut_states) */
  cut_side cut[2];        /* cut_states: at most b items, at least b + 1 */
  int64_t cut_at;
  bool cut_tried, cut_on;
  bool may_aim, aim_now;  /* the search may stop for aspire(); it did */
  bool keep_cut;          /* aspire()'s solves keep the cut prepared */
  int64_t max_bytes;
  struct timespec deadline;
  bool timed;
} solver;

/* The context's allocator, one caller at a time when instances run at once
 * (allocator hooks need not be thread-safe). */
static void *core_alloc(solver *q, size_t bytes) {
  if (q->alloc_lock != NULL) pthread_mutex_lock(q->alloc_lock);
  void *p = skss__alloc(q->ctx, bytes);
  if (q->alloc_lock != NULL) pthread_mutex_unlock(q->alloc_lock);
  return p;
}

static void core_free(solver *q, void *p) {
  if (p == NULL) return;
  if (q->alloc_lock != NULL) pthread_mutex_lock(q->alloc_lock);
  skss__free(q->ctx, p);
  if (q->alloc_lock != NULL) pthread_mutex_unlock(q->alloc_lock);
}

/* Equal efficiencies in an order that mixes weights (subset sum wants them
 * mixed near the break item) yet keeps copies of an item together. */
static inline uint64_t scramble(int64_t w) {
  uint64_t h = (uint64_t)w * UINT64_C(0x9E3779B97F4A7C15);
  return h ^ (h >> 29);
}

/* e_x > e_y, efficiencies p / w compared exactly (ties by scramble(w)). */
static inline bool better(const item *x, const item *y) {
  const i128 a = (i128)x->p * y->w, b = (i128)y->p * x->w;
  return a > b || (a == b && scramble(x->w) < scramble(y->w));
}

static int64_t gcd(int64_t a, int64_t b) {
  while (b != 0) {
    const int64_t t = a % b;
    a = b;
    b = t;
  }
  return a;
}

static void swap_items(item *a, item *b) {
  const item t = *a;
  *a = *b;
  *b = t;
}

/* Descending efficiency; small runs only. */
static void insertion_sort(item *a, int64_t lo, int64_t hi) {
  for (int64_t i = lo + 1; i <= hi; i++) {
    const item x = a[i];
    int64_t j = i - 1;
    while (j >= lo && better(&x, &a[j])) {
      a[j + 1] = a[j];
      j--;
    }
    a[j + 1] = x;
  }
}

/* Hoare partition of [lo, hi] (hi > lo) around a median of three: returns m
 * with lo < m <= hi, [lo, m) at least as efficient as [m, hi]. */
static int64_t partition(item *a, int64_t lo, int64_t hi) {
  const int64_t mid = lo + (hi - lo) / 2;
  if (better(&a[mid], &a[lo])) swap_items(&a[mid], &a[lo]);
  if (better(&a[hi], &a[lo])) swap_items(&a[hi], &a[lo]);
  if (better(&a[hi], &a[mid])) swap_items(&a[hi], &a[mid]);
  const item pivot = a[mid];
  int64_t i = lo - 1, j = hi + 1;
  for (;;) {
    do i++; while (better(&a[i], &pivot));
    do j--; while (better(&pivot, &a[j]));
    if (i >= j) return j + 1;
    swap_items(&a[i], &a[j]);
  }
}

/* The incumbent becomes z; a state must reach the next multiple of g to beat it. */
static inline void set_z(solver *q, int64_t z) {
  q->z = z;
  q->zt = z < 0 ? -1 : (z / q->g + 1) * q->g - 1;
}

/* floor(p + d * r.p / r.w) <= z, i.e. the bound cannot beat z. */
static inline bool cannot_beat(int64_t p, int64_t d, const item *r, int64_t z) {
  return (i128)(p - z - 1) * r->w + (i128)d * r->p < 0;
}

/* Item x (right of the break item or not) given the value the break solution
 * does not give it cannot beat z (Dantzig's bound at e_b): it keeps its
 * break-solution value. This stays true as z grows. */
static bool fixable(const solver *q, const item *x, bool right) {
  const item *r = &q->it[q->b];
  if (right) return cannot_beat(q->pb + x->p, q->cap - q->wb - x->w, r, q->zt);
  return cannot_beat(q->pb - x->p, q->cap - q->wb + x->w, r, q->zt);
}

/* Moves the items of [lo, hi] that fixable() fixes to the end far from the
 * core (the high end right of the break item, the low end left of it);
 * returns the first of them (right) or the last (left). */
static int64_t split_fixed(solver *q, int64_t lo, int64_t hi, bool right) {
  item *it = q->it;
  if (right) {
    int64_t m = lo;
    for (int64_t k = lo; k <= hi; k++)
      if (!fixable(q, &it[k], true)) swap_items(&it[m++], &it[k]);
    return m;
  }
  int64_t m = hi;
  for (int64_t k = hi; k >= lo; k--)
    if (!fixable(q, &it[k], false)) swap_items(&it[m--], &it[k]);
  return m;
}

/* Sorts the next interval right of the sorted run (the one at last + 1). Its
 * items that can be fixed go to its far end as a "fixed" interval, skipped
 * whole when the core reaches it (every item left in the intervals beyond is
 * at most as efficient, so the bounds may read the fixed ones). */
static void sort_right(solver *q) {
  span sp = q->rstack[--q->nr];
  if (sp.fixed) {
    q->last = sp.hi;
    q->rfixed = sp;
    return;
  }
  const int64_t m = split_fixed(q, sp.lo, sp.hi, true);
  if (m <= sp.hi) {
    q->rstack[q->nr++] = (span){m, sp.hi, true};
    if (m == sp.lo) {
      sort_right(q);
      return;
    }
    sp.hi = m - 1;
  }
  while (sp.hi - sp.lo + 1 > SMALL) {
    const int64_t mid = partition(q->it, sp.lo, sp.hi);
    q->rstack[q->nr++] = (span){mid, sp.hi, false};
    sp.hi = mid - 1;
  }
  insertion_sort(q->it, sp.lo, sp.hi);
  q->last = sp.hi;
}

static void sort_left(solver *q) {
  span sp = q->lstack[--q->nl];
  if (sp.fixed) {
    q->first = sp.lo;
    q->lfixed = sp;
    return;
  }
  const int64_t m = split_fixed(q, sp.lo, sp.hi, false);
  if (m >= sp.lo) {
    q->lstack[q->nl++] = (span){sp.lo, m, true};
    if (m == sp.hi) {
      sort_left(q);
      return;
    }
    sp.lo = m + 1;
  }
  while (sp.hi - sp.lo + 1 > SMALL) {
    const int64_t mid = partition(q->it, sp.lo, sp.hi);
    q->lstack[q->nl++] = (span){sp.lo, mid - 1, false};
    sp.lo = mid;
  }
  insertion_sort(q->it, sp.lo, sp.hi);
  q->first = sp.lo;
}

/* Position `pos` sorted (it lies next to the sorted run, or inside it). */
static void ensure_sorted(solver *q, int64_t pos) {
  if (pos < 0 || pos >= q->n) return;
  if (pos > q->last) sort_right(q);
  if (pos < q->first) sort_left(q);
}

/* Finds the break item by partitioning (Pisinger's partial sort): the items
 * before it are the most efficient ones and their weight is <= cap < their
 * weight with it. Needs the total weight > cap. */
static void find_break(solver *q) {
  int64_t lo = 0, hi = q->n - 1, wl = 0;
  while (hi - lo + 1 > SMALL) {
    const int64_t m = partition(q->it, lo, hi);
    int64_t ws = 0;
    for (int64_t k = lo; k < m && ws <= q->cap; k++) ws += q->it[k].w;
    if (ws > q->cap - wl) {
      q->rstack[q->nr++] = (span){m, hi, false};
      hi = m - 1;
    } else {
      q->lstack[q->nl++] = (span){lo, m - 1, false};
      wl += ws;
      lo = m;
    }
  }
  insertion_sort(q->it, lo, hi);
  q->first = lo;
  q->last = hi;
  int64_t b = lo;
  while (q->it[b].w <= q->cap - wl) wl += q->it[b++].w;
  q->b = b;
  q->wb = wl;
  int64_t pb = 0;
  for (int64_t k = 0; k < b; k++) pb += q->it[k].p;
  q->pb = pb;
}

static skss_status grow(solver *q, int64_t need) {
  if (need <= q->room) return SKSS_OK;
  int64_t room = q->room * 2 > need ? q->room * 2 : need;
  size_t bytes;
  if (!skss__mul_size((size_t)room, 2 * sizeof(state), &bytes) || (uint64_t)bytes > (uint64_t)q->max_bytes)
    return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY,
                      "skss_knapsack(): the core algorithm's state lists need more than max_bytes = "
                      "%lld bytes (%lld states); raise max_bytes",
                      (long long)q->max_bytes, (long long)need);
  state *a = core_alloc(q, bytes);
  if (a == NULL)
    return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY,
                      "skss_knapsack(): no memory for %zu bytes of core states", bytes);
  if (q->na > 0) memcpy(a, q->a, sizeof(state) * (size_t)q->na);
  if (q->block != NULL) core_free(q, q->block);
  q->block = a;
  q->a = a;
  q->o = a + room;
  q->room = room;
  return SKSS_OK;
}

/* Adds `copies` copies of one item, at positions j.., to the core as one
 * item: each state with them all flipped (dw, dp: +cw, +cp right of the
 * break item, -cw, -cp left of it), merged with the states as they were. A
 * state is kept unless dominated by the last one kept (states come in
 * increasing weight; profits kept strictly increasing) or unable to beat z by
 * Pisinger's bound: the Lagrangian bound at the efficiency of the next item
 * out of the core (it[t + 1] below C, it[s - 1] above, which must also leave
 * enough weight to drop). What the loop reads stays in locals (the state
 * stores would otherwise reload them). */
static skss_status add_item(solver *q, int64_t j, int64_t copies) {
  skss_status st = grow(q, 2 * q->na);
  if (st != SKSS_OK) return st;
  const bool right = j >= q->b;
  const int64_t dw = right ? copies * q->it[j].w : -copies * q->it[j].w;
  const int64_t dp = right ? copies * q->it[j].p : -copies * q->it[j].p;
  const uint64_t dc = right ? (uint64_t)copies << TRACE : (uint64_t)0 - ((uint64_t)copies << TRACE);
  q->hist[q->depth] = j;
  q->copies[q->depth++] = copies;
  q->flips += copies;
  for (int64_t c = j; c < j + copies; c++) q->mark[q->it[c].id] |= CORE;
  if (right) q->t = j + copies - 1;
  else {
    q->s = j;
    q->wleft += dw;
  }
  /* No more items right: a state below C is final (rw = 1, rp = 0: it must
   * beat z); none left: a state above C is dead (drop = -1). */
  const bool more_right = q->t + 1 < q->n, more_left = q->s > 0;
  const int64_t rw = more_right ? q->it[q->t + 1].w : 1, rp = more_right ? q->it[q->t + 1].p : 0;
  const int64_t lw = more_left ? q->it[q->s - 1].w : 1, lp = more_left ? q->it[q->s - 1].p : 0;
  const int64_t cap = q->cap, drop = more_left ? q->wleft : -1, na = q->na;
  const int64_t g = q->g;
  int64_t zt = q->zt, zp = -1;
  uint64_t zv = 0;
  const state *a = q->a;
  state *o = q->o;
  int64_t no = 0, top = -1, last = INT64_MIN; /* last: o[no - 1].w */
  for (int64_t i = 0, k = 0; i < na || k < na;) {
    state x;
    if (k >= na || (i < na && a[i].w <= a[k].w + dw)) {
      x = a[i++];
      x.v = (x.v << 1 & HIST) | (x.v & ~HIST);
    } else {
      x = a[k++];
      x.w += dw;
      x.p += dp;
      x.v = (x.v << 1 & HIST) | ((x.v & ~HIST) + dc) | 1u;
    }
    if (x.p <= top) continue;
    top = x.p;
    const bool under = x.w <= cap;
    if (under && x.p > zt) { /* a better incumbent */
      zp = x.p;
      zv = x.v;
      zt = (x.p / g + 1) * g - 1;
    }
    if (!under && x.w - cap > drop) continue;
    const int64_t mw = under ? rw : lw, mp = under ? rp : lp;
    if ((i128)(x.p - zt - 1) * mw + (i128)(cap - x.w) * mp < 0) continue;
    if (x.w == last) no--;
    o[no++] = x;
    last = x.w;
  }
  if (zp >= 0) {
    set_z(q, zp);
    q->have = true;
    q->zv = zv;
    q->zdepth = q->depth;
    q->zextra = -1;
  }
  q->a = o;
  q->o = (state *)a;
  q->na = no;
  q->work += na;
  return SKSS_OK;
}

/* floor of the LP bound of the items with profits p + shift (those still
 * positive) within the capacity, and its fractional cardinality as
 * full + rest / brk (brk = 0: every such item fits). Weighted quickselect in
 * scratch `a` (n items). */
static i128 lp_bound(const solver *q, item *a, int64_t shift, int64_t *full, int64_t *rest,
                     int64_t *brk) {
  int64_t m = 0;
  for (int64_t k = 0; k < q->n; k++) {
    if (q->it[k].p + shift <= 0) continue;
    a[m] = q->it[k];
    a[m++].p += shift;
  }
  int64_t lo = 0, hi = m - 1, wl = 0, cnt = 0;
  i128 pl = 0;
  while (lo <= hi) {
    if (hi - lo + 1 <= SMALL) {
      insertion_sort(a, lo, hi);
      while (lo <= hi && a[lo].w <= q->cap - wl) {
        wl += a[lo].w;
        pl += a[lo++].p;
        cnt++;
      }
      break;
    }
    const int64_t mid = partition(a, lo, hi);
    int64_t ws = 0;
    i128 ps = 0;
    for (int64_t k = lo; k < mid && ws <= q->cap; k++) {
      ws += a[k].w;
      ps += a[k].p;
    }
    if (ws > q->cap - wl) {
      hi = mid - 1;
    } else {
      wl += ws;
      pl += ps;
      cnt += mid - lo;
      lo = mid;
    }
  }
  *full = cnt;
  *rest = q->cap - wl;
  *brk = lo < m ? a[lo].w : 0;
  if (lo >= m) return pl;
  return pl + (i128)(q->cap - wl) * a[lo].p / a[lo].w;
}

/* How many of x[0..m) (all > 0) fit within lim when taken in increasing order
 * of sign * x (sign = 1: smallest first, -1: largest first): a weighted
 * quickselect that permutes x. */
static int64_t fit_count(int64_t *x, int64_t m, int64_t sign, i128 lim) {
  int64_t lo = 0, hi = m - 1, cnt = 0;
  i128 sum = 0;
  while (hi - lo + 1 > SMALL) {
    const int64_t pv = sign * x[lo + (hi - lo) / 2];
    int64_t i = lo, j = hi;
    while (i <= j) { /* then [lo, j] <= pv, (j, i) == pv, [i, hi] >= pv, lo < i, j < hi */
      while (sign * x[i] < pv) i++;
      while (sign * x[j] > pv) j--;
      if (i <= j) {
        const int64_t t = x[i];
        x[i++] = x[j];
        x[j--] = t;
      }
    }
    i128 part = 0;
    for (int64_t k = lo; k <= j; k++) part += x[k];
    if (sum + part > lim) {
      hi = j;
      continue;
    }
    sum += part;
    cnt += j + 1 - lo;
    const int64_t each = sign * pv, equal = i - 1 - j;
    const i128 room = (lim - sum) / each;
    if (room < equal) return cnt + (int64_t)room;
    sum += (i128)equal * each;
    cnt += equal;
    lo = i;
  }
  for (int64_t k = lo + 1; k <= hi; k++) { /* insertion sort of the rest */
    const int64_t v = x[k];
    int64_t j = k - 1;
    while (j >= lo && sign * x[j] > sign * v) {
      x[j + 1] = x[j];
      j--;
    }
    x[j + 1] = v;
  }
  for (int64_t k = lo; k <= hi && sum + x[k] <= lim; k++) {
    sum += x[k];
    cnt++;
  }
  return cnt;
}

/* Cardinality of the LP solution at `shift` against k: -1 below, 0 equal, 1 above. */
static int card_vs(const solver *q, int64_t shift, int64_t k, i128 *bound) {
  int64_t full, rest, brk;
  *bound = lp_bound(q, q->lp, shift, &full, &rest, &brk);
  if (full > k) return 1;
  if (full == k) return brk > 0 && rest > 0 ? 1 : 0;
  return -1;
}

/* One side of card_bound: min over integer mu >= 0 of the Lagrangian bound,
 * sign -1: mu k + LP(p - mu) (at most k items), sign 1: LP(p + mu) - mu k (at
 * least k). Bisection on the LP's cardinality (the slope's sign) for the
 * smallest mu on the far side of k, from [0, hi] (doubled until it holds);
 * every multiplier tried gives a bound, and the search stops once one cannot
 * beat z. Returns the least of `best` and those bounds; *arg: the multiplier
 * of the least of those. */
static i128 card_side(solver *q, int64_t k, int64_t sign, int64_t hi, i128 best, int64_t *arg) {
  const int64_t lim = (int64_t)1 << 41;
  i128 bd, own = -1; /* own: the least bound found (at *arg), -1: none yet */
#define TRY(mu)                                        \
  if (own < 0 || bd - (i128)sign * (mu) * k < own) {   \
    own = bd - (i128)sign * (mu) * k;                  \
    *arg = (mu);                                       \
    if (own < best) best = own;                        \
  }
  for (;;) {
    const int c = card_vs(q, sign * hi, k, &bd);
    TRY(hi)
    if (best <= q->zt || (sign < 0 ? c <= 0 : c >= 0)) break;
    if (hi >= lim) return best;
    hi *= 2;
  }
  int64_t lo = 0;
  while (lo < hi && best > q->zt) {
    const int64_t mid = lo + (hi - lo) / 2;
    const int c = card_vs(q, sign * mid, k, &bd);
    TRY(mid)
    if (sign < 0 ? c <= 0 : c >= 0) hi = mid;
    else lo = mid + 1;
  }
  if (lo > 0 && best > q->zt) { /* the minimum is at lo or lo - 1 */
    (void)card_vs(q, sign * (lo - 1), k, &bd);
    TRY(lo - 1)
  }
#undef TRY
  return best;
}

/* The combo paper's bounds from cardinality: every solution has at most kmax
 * items (the lightest kmax fit, kmax + 1 do not); every solution better than z
 * has at least kmin (the kmin - 1 most profitable sum to <= z). Each gives a
 * Lagrangian bound (card_side), below Dantzig's only when the LP holds more
 * than kmax items (kmax = b: the break item split) or fewer than kmin
 * (kmin > b). kmax's is computed once; kmin's again when z has raised kmin. */
static void card_bound(solver *q) {
  const int64_t lim = (int64_t)1 << 40;
  int64_t pmax = 0;
  for (int64_t k = 0; k < q->n; k++) {
    if (q->it[k].p >= lim || q->it[k].w >= lim) return; /* keep int128 products safe */
    if (q->it[k].p > pmax) pmax = q->it[k].p;
  }
  const bool first = q->kmax < 0;
  int64_t mu = 0;
  if (first) {
    for (int64_t k = 0; k < q->n; k++) q->xs[k] = q->it[k].w;
    q->kmax = fit_count(q->xs, q->n, 1, q->cap);
  }
  for (int64_t k = 0; k < q->n; k++) q->xs[k] = q->it[k].p;
  const int64_t kmin = fit_count(q->xs, q->n, -1, q->z) + 1;
  i128 best = q->upper;
  if (kmin > q->n || kmin > q->kmax) best = q->z; /* nothing beats z */
  if (first && best > q->zt && q->kmax == q->b && q->cap > q->wb)
    best = card_side(q, q->kmax, -1, pmax, best, &mu);
  if (kmin > q->kmin && kmin > q->b && best > q->zt) best = card_side(q, kmin, 1, pmax, best, &mu);
  q->kmin = kmin;
  if (best < q->upper) {
    const int64_t u = best <= q->z ? q->z : (int64_t)best;
    q->upper = u - u % q->g < q->z ? q->z : u - u % q->g;
  }
}

/* Sorts the items by weight into q->byw (LSD radix sort, bytes the weights use). */
static void sort_by_weight(solver *q) {
  item *a = q->byw, *b = q->lp;
  int64_t wmax = 0;
  for (int64_t k = 0; k < q->n; k++) {
    a[k] = q->it[k];
    if (a[k].w > wmax) wmax = a[k].w;
  }
  for (int shift = 0; shift < 64 && (wmax >> shift) > 0; shift += 8) {
    int64_t count[257] = {0};
    for (int64_t k = 0; k < q->n; k++) count[((a[k].w >> shift) & 255) + 1]++;
    for (int d = 0; d < 256; d++) count[d + 1] += count[d];
    for (int64_t k = 0; k < q->n; k++) b[count[(a[k].w >> shift) & 255]++] = a[k];
    item *t = a;
    a = b;
    b = t;
  }
  if (a != q->byw) memcpy(q->byw, a, sizeof(item) * (size_t)q->n);
  q->byw_ready = true;
}

/* Pairing (combo): each state completed by one item outside the core, added
 * (the most profitable that fits) or removed (the least profitable that makes
 * it fit), for a better incumbent. r: the items right of the core by weight,
 * each with the most profitable one up to it; l: those left of it, each with
 * the least profitable one from it on. */
static void pair_states(solver *q) {
  if (!q->byw_ready) sort_by_weight(q);
  item *r = q->lp, *l = q->lp + q->n;
  int64_t nr = 0, nl = 0;
  for (int64_t k = 0; k < q->n; k++) {
    const item *x = &q->byw[k];
    if ((q->mark[x->id] & (LEFT | CORE)) != 0) continue; /* OUT is cut_states' */
    r[nr] = *x;
    if (nr > 0 && r[nr].p < r[nr - 1].p) {
      r[nr].p = r[nr - 1].p;
      r[nr].id = r[nr - 1].id;
    }
    nr++;
  }
  for (int64_t k = q->n - 1; k >= 0; k--) /* l fills from the top, the heaviest first */
    if ((q->mark[q->byw[k].id] & (LEFT | CORE)) == LEFT) *--l = q->byw[k];
  nl = q->lp + q->n - l;
  for (int64_t k = nl - 2; k >= 0; k--) /* l[k]: the least profitable of l[k..] */
    if (l[k].p > l[k + 1].p) {
      l[k].p = l[k + 1].p;
      l[k].id = l[k + 1].id;
    }
  for (int64_t i = 0; i < q->na; i++) {
    const state *x = &q->a[i];
    int64_t best = -1, id = -1;
    if (x->w <= q->cap) {
      const int64_t d = q->cap - x->w;
      int64_t lo = 0, hi = nr; /* first with w > d */
      while (lo < hi) {
        const int64_t m = lo + (hi - lo) / 2;
        if (r[m].w <= d) lo = m + 1;
        else hi = m;
      }
      if (lo > 0) {
        best = x->p + r[lo - 1].p;
        id = r[lo - 1].id;
      }
    } else {
      const int64_t e = x->w - q->cap;
      int64_t lo = 0, hi = nl; /* first with w >= e */
      while (lo < hi) {
        const int64_t m = lo + (hi - lo) / 2;
        if (l[m].w < e) lo = m + 1;
        else hi = m;
      }
      if (lo < nl) {
        best = x->p - l[lo].p;
        id = l[lo].id;
      }
    }
    if (id >= 0 && best > q->z) {
      set_z(q, best);
      q->have = true;
      q->zv = x->v;
      q->zdepth = q->depth;
      q->zextra = id;
    }
  }
}

static int cmp_efficiency(const void *x, const void *y) {
  const item *a = x, *b = y;
  return better(a, b) ? -1 : better(b, a) ? 1 : 0;
}

/* The Lagrangian bounds per state (ours, from combo's cardinality bounds).
 * Every solution holds at most b items or at least b + 1 (the LP holds b and
 * a fraction), and each case has its Lagrangian bound with profits p + shift
 * (shift = -mu <= 0 for "at most k = b", nu >= 0 for "at least k = b + 1" or
 * kmin): LP(p + shift) - shift k. Restricted to the completions of a state
 * (w, p) of c items, that is -shift k + p + shift c - P_L + LP(C - w + W_L):
 * the LP over the items outside the core, those left of it (which the state
 * holds, P_L and W_L their shifted profits and weights) free to drop. A state
 * dies when each case's bound, or the case's bound over all solutions, cannot
 * beat z. cut_prepare finds the multipliers and sorts the items by shifted
 * efficiency once; cut_states walks the states by weight against each LP's
 * breakpoints, the outside items in that order. */
static skss_status cut_prepare(solver *q) {
  const int64_t lim = (int64_t)1 << 40;
  int64_t pmax = 0;
  for (int64_t k = 0; k < q->n; k++) {
    if (q->it[k].p >= lim || q->it[k].w >= lim) return SKSS_OK;
    if (q->it[k].p > pmax) pmax = q->it[k].p;
  }
  if (q->cut[0].items == NULL) /* kept for the re-solves (no more items) */
    for (int c = 0; c < 2; c++) {
      q->cut[c].items = core_alloc(q, sizeof(item) * (size_t)(q->n + 1));
      q->cut[c].out = core_alloc(q, sizeof(item) * (size_t)(q->n + 1));
      q->cut[c].w = core_alloc(q, sizeof(i128) * (size_t)(q->n + 1));
      q->cut[c].q = core_alloc(q, sizeof(i128) * (size_t)(q->n + 1));
      if (q->cut[c].items == NULL || q->cut[c].out == NULL || q->cut[c].w == NULL || q->cut[c].q == NULL)
        return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_knapsack(): no memory for core bounds");
    }
  if (q->kmax < 0) { /* a re-solve skips card_bound */
    for (int64_t k = 0; k < q->n; k++) q->xs[k] = q->it[k].w;
    q->kmax = fit_count(q->xs, q->n, 1, q->cap);
  }
  int64_t mu = 0, nu = 0;
  cut_side *lo = &q->cut[0], *hi = &q->cut[1];
  lo->k = q->b;
  lo->global = q->kmin > q->b ? -1 : card_side(q, lo->k, -1, pmax, q->upper, &mu);
  lo->shift = -mu;
  hi->k = q->kmin > q->b + 1 ? q->kmin : q->b + 1;
  hi->global = q->kmax <= q->b ? -1 : card_side(q, hi->k, 1, pmax, q->upper, &nu);
  hi->shift = nu;
  const i128 best = lo->global > hi->global ? lo->global : hi->global;
  if (best < q->upper) {
    const int64_t u = best <= q->z ? q->z : (int64_t)best;
    q->upper = u - u % q->g < q->z ? q->z : u - u % q->g;
  }
  for (int c = 0; c < 2; c++) {
    cut_side *x = &q->cut[c];
    x->n = 0;
    for (int64_t j = 0; j < q->n; j++)
      if (q->it[j].p + x->shift > 0) x->items[x->n++] = (item){q->it[j].w, q->it[j].p + x->shift, q->it[j].id};
    qsort(x->items, (size_t)x->n, sizeof(item), cmp_efficiency);
  }
  q->cut_on = true;
  return SKSS_OK;
}

/* The breakpoints of one case's LP over the items outside the core (marked
 * OUT): prefix weights and shifted profits. */
static int64_t cut_breakpoints(const solver *q, cut_side *x) {
  int64_t m = 0;
  x->w[0] = x->q[0] = 0;
  for (int64_t k = 0; k < x->n; k++)
    if (q->mark[x->items[k].id] & OUT) {
      x->out[m] = x->items[k];
      x->w[m + 1] = x->w[m] + x->items[k].w;
      x->q[m + 1] = x->q[m] + x->items[k].p;
      m++;
    }
  return m;
}

/* Drops the states whose bounds cannot reach `need` (need = zt + 1), or
 * with `count_only`, only counts the others; returns how many are left. */
static int64_t cut_states(solver *q, i128 need, bool count_only) {
  if (q->flips >= 32767) return q->na; /* counts are kept mod 2^16 */
  bool live[2];
  for (int c = 0; c < 2; c++) live[c] = q->cut[c].global >= need;
  int64_t wl = 0, n_left = 0;
  i128 pl = 0;
  for (int64_t k = 0; k < q->n; k++) {
    const item *x = &q->it[k];
    if (k < q->s || k > q->t) q->mark[x->id] |= OUT;
    else q->mark[x->id] &= (uint8_t)~OUT;
    if (k < q->s) {
      wl += x->w;
      pl += x->p;
      n_left++;
    }
  }
  int64_t m[2] = {0, 0}, ptr[2] = {0, 0};
  i128 base[2] = {0, 0};
  for (int c = 0; c < 2; c++)
    if (live[c]) {
      cut_side *x = &q->cut[c];
      m[c] = cut_breakpoints(q, x);
      base[c] = -(i128)x->shift * x->k - (pl + (i128)x->shift * n_left);
    }
  const i128 cap = q->cap;
  int64_t at = q->na;
  for (int64_t i = q->na - 1; i >= 0; i--) { /* by weight down: the LPs' capacity up */
    const state *s = &q->a[i];
    const i128 r = cap - s->w + wl;
    if (r < 0) continue;
    const int64_t cnt = q->b + (int16_t)(s->v >> TRACE);
    bool keep = false;
    for (int c = 0; c < 2 && !keep; c++) {
      if (!live[c]) continue;
      const cut_side *x = &q->cut[c];
      while (ptr[c] < m[c] && x->w[ptr[c] + 1] <= r) ptr[c]++;
      const int64_t j = ptr[c];
      const i128 gap = need - (base[c] + s->p + (i128)x->shift * cnt + x->q[j]);
      keep = j == m[c] ? gap <= 0 : (r - x->w[j]) * x->out[j].p >= gap * x->out[j].w;
    }
    if (keep) q->o[--at] = *s;
  }
  const int64_t kept = q->na - at;
  if (count_only) return kept;
  memmove(q->o, q->o + at, sizeof(state) * (size_t)kept);
  state *t = q->a;
  q->a = q->o;
  q->o = t;
  q->na = kept;
  return kept;
}

/* aspire()'s first aim: the bound less 1/256 of the gap to z, in multiples of g. */
static int64_t first_aim(const solver *q) {
  return q->upper - ((q->upper - q->z) / 256 / q->g + 1) * q->g;
}

static bool past_deadline(const solver *q) {
  if (!q->timed) return false;
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec > q->deadline.tv_sec ||
         (now.tv_sec == q->deadline.tv_sec && now.tv_nsec >= q->deadline.tv_nsec);
}

static skss_status timeout(const solver *q, int64_t ms) {
  return skss__fail(q->ctx, SKSS_ERR_TIMEOUT,
                    "skss_knapsack(): the core algorithm stopped at time_limit_ms = %lld with %lld "
                    "core items and %lld states; the best value found so far is %lld, not proven "
                    "optimal (raise time_limit_ms or set it to 0)",
                    (long long)ms, (long long)q->depth, (long long)q->na, (long long)q->z);
}

/* The expanding core: one item right, one left, until no state can beat z or
 * no item is left; pairing (and the kmin bound, for a better z) after 8, 32,
 * 128 ... core items. */
static skss_status expand(solver *q, int64_t ms) {
  while (q->na > 0 && q->z < q->upper && (q->s > 0 || q->t < q->n - 1)) {
    if (past_deadline(q)) return timeout(q, ms);
    if (q->depth >= q->pair_at) {
      q->pair_at *= 4;
      pair_states(q);
      card_bound(q);
      if (q->z >= q->upper) break;
    }
    if (!q->cut_tried && q->depth >= 16 && q->na >= 4096 && q->work >= WORK * q->n) {
      q->cut_tried = true;
      const skss_status st = cut_prepare(q);
      if (st != SKSS_OK) return st;
      q->cut_at = q->depth;
      if (q->z >= q->upper) break;
      /* Aspiration pays where aiming at its first aim would cut most states. */
      if (q->may_aim && q->cut_on && q->depth <= 64 &&
          cut_states(q, first_aim(q), true) < q->na / 4) {
        q->aim_now = true;
        return SKSS_OK;
      }
    }
    if (q->cut_on && q->depth >= q->cut_at) {
      cut_states(q, (i128)q->zt + 1, false);
      q->cut_at = q->depth + 8;
    }
    for (int side = 0; side < 2; side++) {
      const int64_t j = side == 0 ? q->t + 1 : q->s - 1;
      if (j < 0 || j >= q->n) continue;
      ensure_sorted(q, j);
      if (side == 0 && q->rfixed.fixed && j >= q->rfixed.lo && j <= q->rfixed.hi) {
        q->t = q->rfixed.hi; /* a fixed interval, skipped whole */
        continue;
      }
      if (side == 1 && q->lfixed.fixed && j >= q->lfixed.lo && j <= q->lfixed.hi) {
        for (int64_t k = q->lfixed.lo; k <= j; k++) q->wleft -= q->it[k].w;
        q->s = q->lfixed.lo;
        continue;
      }
      if (fixable(q, &q->it[j], side == 0)) {
        q->mark[q->it[j].id] |= CORE;
        if (side == 0) q->t = j;
        else {
          q->s = j;
          q->wleft -= q->it[j].w;
        }
        continue;
      }
      /* The copies of item j, next to it once sorted (sorting on while they
       * last; never in a fixed interval: they would be fixable too), join as
       * 1, 2, 4 ... copies at a time (binary splitting: any number of them
       * is a set of these). */
      const item x = q->it[j];
      int64_t m = 1;
      for (;;) {
        const int64_t at = side == 0 ? j + m : j - m;
        if (at < 0 || at >= q->n || (side == 0 && m >= q->cap / x.w)) break;
        ensure_sorted(q, at);
        if (q->it[at].w != x.w || q->it[at].p != x.p) break;
        m++;
      }
      /* Both neighbours of the core after them, for the bounds. */
      ensure_sorted(q, side == 0 ? j + m : q->t + 1);
      ensure_sorted(q, side == 0 ? q->s - 1 : j - m);
      for (int64_t size = 1, done = 0; done < m; size *= 2) {
        const int64_t k = size < m - done ? size : m - done;
        const skss_status st = add_item(q, side == 0 ? j + done : j - done - k + 1, k);
        if (st != SKSS_OK) return st;
        done += k;
      }
    }
  }
  return SKSS_OK;
}

/* One solve of items it[0..n) within cap (total weight > cap); `known` > 0:
 * the optimum is known to be that value (a re-solve), find a set of it;
 * `aim` > 0: only solutions worth at least that are of interest; `upper` >
 * 0: a bound already proven. */
static skss_status solve(solver *q, int64_t known, int64_t aim, int64_t upper, bool may_aim,
                         int64_t ms) {
  q->nl = q->nr = 0;
  find_break(q);
  q->g = 0;
  for (int64_t k = 0; k < q->n; k++) {
    q->g = gcd(q->it[k].p, q->g);
    q->mark[q->it[k].id] = k < q->b ? LEFT : 0;
  }
  q->s = q->b;
  q->t = q->b - 1;
  q->lfixed = q->rfixed = (span){0, -1, false};
  q->wleft = q->wb;
  set_z(q, q->pb);
  q->have = true;
  q->zv = 0;
  q->zdepth = 0;
  q->zextra = -1;
  const int64_t floor_value = known > aim ? known : aim;
  if (floor_value - 1 > q->z) {
    set_z(q, floor_value - 1);
    q->have = false;
  }
  const item *r = &q->it[q->b];
  q->upper = (int64_t)(q->pb + (i128)(q->cap - q->wb) * r->p / r->w);
  q->upper -= q->upper % q->g;
  if (known > 0 && known < q->upper) q->upper = known;
  if (upper > 0 && upper < q->upper) q->upper = upper < q->z ? q->z : upper;
  q->kmax = q->kmin = -1;
  q->byw_ready = false;
  q->pair_at = 8;
  q->depth = q->flips = q->work = 0;
  q->na = 1;
  q->a[0] = (state){q->wb, q->pb, 0};
  if (q->keep_cut) q->cut_at = 8; /* aspire(): the same items, the same cut */
  else q->cut_tried = q->cut_on = false;
  q->aim_now = false;
  q->may_aim = may_aim;
  if (known <= 0) card_bound(q);
  return expand(q, ms);
}

/* Aspiration (ours), for a first pass that turned hard early (the cut
 * prepared within 64 core items): the states explode while z is still far
 * from the optimum, and the bounds prune in proportion to z. So the search
 * restarts aiming at `upper - step`: states that cannot reach the aim die at
 * once. If a state reaches it, the search goes on as usual from there and its
 * answer is the optimum (what was pruned could not reach the aim); if none
 * does, nothing is worth the aim, the bound drops below it and the step grows
 * 4x. Below the first try's incumbent the search runs plain, bound proven.
 * Every try has the same items: the cut stays prepared and starts at once. */
static skss_status aspire(solver *q, int64_t ms) {
  const int64_t g = q->g, floor_z = q->z;
  int64_t upper = q->upper, step = upper - first_aim(q);
  skss_status st;
  q->keep_cut = true;
  for (;;) {
    const int64_t aim = upper - step;
    if (aim <= floor_z) {
      st = solve(q, 0, 0, upper, false, ms);
      break;
    }
    st = solve(q, 0, aim, upper, false, ms);
    if (st != SKSS_OK || q->have) break;
    upper = aim - g;
    step = step > INT64_MAX / 8 ? step : step * 4;
  }
  q->keep_cut = false;
  return st;
}

/* Marks the solution's items in `chosen` (by id) from the break solution and
 * the flips it remembers, and fixes all but the core items it cannot tell
 * (the first zdepth - TRACE: every other item has its break-solution value,
 * or the remembered flip); returns how many those are. */
static int64_t mark_solution(const solver *q, uint8_t *chosen, uint8_t *fixed) {
  for (int64_t k = 0; k < q->n; k++) {
    chosen[q->it[k].id] = k < q->b;
    fixed[q->it[k].id] = 1;
  }
  const int64_t known = q->zdepth < TRACE ? q->zdepth : TRACE;
  for (int64_t k = 0; k < q->zdepth - known; k++)
    for (int64_t c = q->hist[k]; c < q->hist[k] + q->copies[k]; c++) fixed[q->it[c].id] = 0;
  for (int64_t k = 0; k < known; k++) {
    const int64_t d = q->zdepth - 1 - k;
    if ((q->zv >> k) & 1u)
      for (int64_t c = q->hist[d]; c < q->hist[d] + q->copies[d]; c++) chosen[q->it[c].id] ^= 1u;
  }
  if (q->zextra >= 0) {
    chosen[q->zextra] ^= 1u;
    fixed[q->zextra] = 1;
  }
  return q->zdepth - known;
}

static skss_status alloc_solver(solver *q, skss__knap_core *args) {
  const int64_t n = args->items;
  q->it = core_alloc(q, sizeof(item) * (size_t)n);
  q->lstack = core_alloc(q, sizeof(span) * (size_t)(n + 1));
  q->rstack = core_alloc(q, sizeof(span) * (size_t)(n + 1));
  q->hist = core_alloc(q, sizeof(int64_t) * (size_t)(n + 1));
  q->copies = core_alloc(q, sizeof(int64_t) * (size_t)(n + 1));
  q->xs = core_alloc(q, sizeof(int64_t) * (size_t)(n + 1));
  q->lp = core_alloc(q, sizeof(item) * (size_t)(n + 1));
  q->byw = core_alloc(q, sizeof(item) * (size_t)(n + 1));
  q->mark = core_alloc(q, (size_t)(n + 1));
  q->room = 0;
  q->na = 0;
  q->a = q->block = NULL;
  if (q->it == NULL || q->lstack == NULL || q->rstack == NULL || q->hist == NULL ||
      q->copies == NULL || q->xs == NULL ||
      q->lp == NULL || q->byw == NULL || q->mark == NULL)
    return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_knapsack(): no memory for %lld core items",
                      (long long)n);
  return grow(q, 64);
}

static void free_solver(solver *q) {
  core_free(q, q->it);
  core_free(q, q->lstack);
  core_free(q, q->rstack);
  core_free(q, q->hist);
  core_free(q, q->copies);
  core_free(q, q->xs);
  core_free(q, q->lp);
  core_free(q, q->byw);
  core_free(q, q->mark);
  if (q->block != NULL) core_free(q, q->block);
  for (int c = 0; c < 2; c++) {
    core_free(q, q->cut[c].items);
    core_free(q, q->cut[c].out);
    core_free(q, q->cut[c].w);
    core_free(q, q->cut[c].q);
  }
}

/* Loads the items not yet fixed into the solver; false if they all fit. The
 * capacity is rounded down to a multiple of the weights' gcd (combo's
 * rudimentary divisibility: no solution weighs more). */
static bool load(solver *q, const skss__knap_core *args, const uint8_t *fixed, int64_t cap) {
  int64_t n = 0, total = 0, g = 0;
  for (int64_t k = 0; k < args->items; k++) {
    if (fixed != NULL && fixed[k]) continue;
    q->it[n++] = (item){args->w[k], args->v[k], k};
    total = args->w[k] > cap - total ? cap + 1 : total + args->w[k];
    g = gcd(args->w[k], g);
  }
  q->n = n;
  q->cap = g > 0 ? cap - cap % g : cap;
  q->nl = q->nr = 0;
  return total > cap;
}

skss_status skss__knapsack_core(skss_ctx *ctx, skss__knap_core *args) {
  if (args->cap > INT64_MAX / 4)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW,
                      "skss_knapsack(): the core algorithm needs capacity <= %lld (got %lld with "
                      "items that do not all fit); use algorithm dp",
                      (long long)(INT64_MAX / 4), (long long)args->cap);
  solver q;
  memset(&q, 0, sizeof q);
  q.ctx = ctx;
  q.alloc_lock = args->alloc_lock;
  q.max_bytes = args->max_bytes;
  q.timed = args->time_limit_ms > 0;
  if (q.timed) {
    clock_gettime(CLOCK_MONOTONIC, &q.deadline);
    q.deadline.tv_sec += (time_t)(args->time_limit_ms / 1000);
    q.deadline.tv_nsec += (long)(args->time_limit_ms % 1000) * 1000000L;
    if (q.deadline.tv_nsec >= 1000000000L) {
      q.deadline.tv_sec++;
      q.deadline.tv_nsec -= 1000000000L;
    }
  }
  skss_status st = alloc_solver(&q, args);
  uint8_t *fixed = NULL;
  if (st == SKSS_OK && args->chosen != NULL) {
    fixed = core_alloc(&q, (size_t)args->items + 1);
    if (fixed == NULL) st = skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_knapsack(): no memory");
    else memset(fixed, 0, (size_t)args->items + 1);
  }
  if (st == SKSS_OK && args->chosen != NULL) memset(args->chosen, 0, (size_t)args->items);
  /* Each pass fixes the items its solution remembers; the next pass solves
   * the rest for the value still missing (Pisinger's re-solve). */
  int64_t cap = args->cap, want = 0, got = 0;
  bool first = true;
  while (st == SKSS_OK) {
    if (!load(&q, args, fixed, cap)) {
      int64_t sum = 0;
      for (int64_t k = 0; k < q.n; k++) {
        sum += q.it[k].p;
        if (args->chosen) args->chosen[q.it[k].id] = 1;
      }
      if (first) got = sum;
      break;
    }
    st = solve(&q, first ? 0 : want, 0, 0, first, args->time_limit_ms);
    if (st == SKSS_OK && q.aim_now) st = aspire(&q, args->time_limit_ms);
    if (st != SKSS_OK) break;
    if (first) got = q.z;
    if (args->chosen == NULL) break;
    if (!q.have) {
      st = skss__fail(ctx, SKSS_ERR_INTERNAL, "skss_knapsack(): the core re-solve lost the optimum");
      break;
    }
    const int64_t open = mark_solution(&q, args->chosen, fixed);
    if (open == 0) {
      for (int64_t k = 0; k < q.n; k++) fixed[q.it[k].id] = 1;
      break;
    }
    /* Items outside the remembered window go back into the next pass. */
    for (int64_t k = 0; k < q.n; k++)
      if (!fixed[q.it[k].id]) args->chosen[q.it[k].id] = 0;
    int64_t wsum = 0, psum = 0;
    for (int64_t k = 0; k < args->items; k++)
      if (fixed[k] && args->chosen[k]) {
        wsum += args->w[k];
        psum += args->v[k];
      }
    cap = args->cap - wsum;
    want = got - psum;
    first = false;
  }
  args->best = got;
  core_free(&q, fixed);
  free_solver(&q);
  return st;
}
