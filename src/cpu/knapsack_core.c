/*
 * knapsack_core.c — SKSS_KNAPSACK_ALGORITHM_CORE: one optimum of the 0-1
 * knapsack from a small core of items around the break item, after Pisinger,
 * "A minimal algorithm for the 0-1 knapsack problem" (Oper. Res. 45(5), 1997)
 * and Martello, Pisinger, Toth, "Dynamic programming and strong bounds for the
 * 0-1 knapsack problem" (Manage. Sci. 45(3), 1999): items partly sorted by
 * efficiency around the break item, a core [s, t] grown one item a side at a
 * time, DP over a list of (weight, profit) states with dominance, Dantzig-type
 * bounds fathoming states and fixing items, a global bound tightened by
 * cardinality constraints (Lagrangian, exact integers), and combo's pairing of
 * each state with one item outside the core for the incumbent. Sequential.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "knapsack_impl.h"

__extension__ typedef __int128 i128;

/* Intervals at most this long are sorted outright. */
#define SMALL 16
/* Decisions a state remembers: the last 64 core items. */
#define TRACE 64

typedef struct item {
  int64_t w, p, id;
} item;

typedef struct state {
  int64_t w, p;
  uint64_t v; /* bit k: the k-th latest core item is flipped from the break solution */
} state;

typedef struct span {
  int64_t lo, hi;
} span;

typedef struct solver {
  skss_ctx *ctx;
  item *it;
  int64_t n, cap;
  int64_t b, wb, pb;      /* break item; weight and profit of items 0..b-1 */
  int64_t s, t;           /* core [s, t]: items decided by the states */
  int64_t first, last;    /* sorted positions [first, last] */
  span *lstack, *rstack;  /* unsorted intervals left and right of them, nearest on top */
  int64_t nl, nr;
  state *block;           /* one allocation of 2 * room states: */
  state *a, *o;           /* the state list and the merge output, its halves */
  int64_t na, room;
  int64_t wleft;          /* weight of items 0..s-1 (what a state can still drop) */
  int64_t z;              /* incumbent */
  bool have;              /* a state reached z (else z is only a lower bound) */
  uint64_t zv;
  int64_t zdepth;
  int64_t zextra;         /* id of an item outside the core the incumbent flips, or -1 */
  int64_t *hist, depth;   /* positions of core items, in the order they came */
  int64_t upper;          /* global upper bound */
  int64_t card_at;        /* depth at which the cardinality bound is next computed */
  int64_t max_bytes;
  struct timespec deadline;
  bool timed;
} solver;

/* e_x > e_y, efficiencies p / w compared exactly. */
static inline bool better(const item *x, const item *y) {
  return (i128)x->p * y->w > (i128)y->p * x->w;
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

/* Sorts positions up to `pos` on the right of the sorted run (pos = last + 1). */
static void sort_right(solver *q) {
  span sp = q->rstack[--q->nr];
  while (sp.hi - sp.lo + 1 > SMALL) {
    const int64_t m = partition(q->it, sp.lo, sp.hi);
    q->rstack[q->nr++] = (span){m, sp.hi};
    sp.hi = m - 1;
  }
  insertion_sort(q->it, sp.lo, sp.hi);
  q->last = sp.hi;
}

static void sort_left(solver *q) {
  span sp = q->lstack[--q->nl];
  while (sp.hi - sp.lo + 1 > SMALL) {
    const int64_t m = partition(q->it, sp.lo, sp.hi);
    q->lstack[q->nl++] = (span){sp.lo, m - 1};
    sp.lo = m;
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
      q->rstack[q->nr++] = (span){m, hi};
      hi = m - 1;
    } else {
      q->lstack[q->nl++] = (span){lo, m - 1};
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

/* floor(p + d * r.p / r.w) <= z, i.e. the bound cannot beat z. */
static inline bool cannot_beat(int64_t p, int64_t d, const item *r, int64_t z) {
  return (i128)(p - z - 1) * r->w + (i128)d * r->p < 0;
}

/* Whether state x can still lead past z with core [s, t] (Pisinger's bound:
 * the Lagrangian bound at the efficiency of the next item out of the core). */
static inline bool alive(const solver *q, const state *x) {
  if (x->w <= q->cap) {
    if (q->t + 1 >= q->n) return x->p > q->z;
    return !cannot_beat(x->p, q->cap - x->w, &q->it[q->t + 1], q->z);
  }
  if (q->s == 0 || x->w - q->cap > q->wleft) return false;
  return !cannot_beat(x->p, q->cap - x->w, &q->it[q->s - 1], q->z);
}

/* Item j fixed to the value the break solution does not give it cannot beat z. */
static bool fixable(const solver *q, int64_t j) {
  const item *x = &q->it[j], *r = &q->it[q->b];
  if (j >= q->b) return cannot_beat(q->pb + x->p, q->cap - q->wb - x->w, r, q->z);
  return cannot_beat(q->pb - x->p, q->cap - q->wb + x->w, r, q->z);
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
  state *a = skss__alloc(q->ctx, bytes);
  if (a == NULL)
    return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY,
                      "skss_knapsack(): no memory for %zu bytes of core states", bytes);
  if (q->na > 0) memcpy(a, q->a, sizeof(state) * (size_t)q->na);
  if (q->block != NULL) skss__free(q->ctx, q->block);
  q->block = a;
  q->a = a;
  q->o = a + room;
  q->room = room;
  return SKSS_OK;
}

/* Appends x to the output unless dominated by the last one kept (states come
 * in increasing weight; profits kept strictly increasing). */
static inline void emit(solver *q, int64_t *no, int64_t *top, const state *x) {
  if (x->p <= *top) return;
  *top = x->p;
  if (x->w <= q->cap && x->p > q->z) {
    q->z = x->p;
    q->have = true;
    q->zv = x->v;
    q->zdepth = q->depth;
    q->zextra = -1;
  }
  if (!alive(q, x)) return;
  if (*no > 0 && q->o[*no - 1].w == x->w) (*no)--;
  q->o[(*no)++] = *x;
}

/* Adds core item j: each state with it flipped (dw, dp: +w, +p right of the
 * break item, -w, -p left of it), merged with the states as they were. */
static skss_status add_item(solver *q, int64_t j) {
  skss_status st = grow(q, 2 * q->na);
  if (st != SKSS_OK) return st;
  const bool right = j >= q->b;
  const int64_t dw = right ? q->it[j].w : -q->it[j].w, dp = right ? q->it[j].p : -q->it[j].p;
  q->hist[q->depth++] = j;
  if (right) q->t = j;
  else {
    q->s = j;
    q->wleft -= q->it[j].w;
  }
  int64_t i = 0, k = 0, no = 0, top = -1;
  const int64_t na = q->na;
  while (i < na || k < na) {
    state x;
    if (k >= na || (i < na && q->a[i].w <= q->a[k].w + dw)) {
      x = q->a[i++];
      x.v <<= 1;
    } else {
      x = q->a[k++];
      x.w += dw;
      x.p += dp;
      x.v = x.v << 1 | 1u;
    }
    emit(q, &no, &top, &x);
  }
  state *tmp = q->a;
  q->a = q->o;
  q->o = tmp;
  q->na = no;
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

static int cmp_i64(const void *x, const void *y) {
  const int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
  return (a > b) - (a < b);
}

/* Cardinality of the LP solution at `shift` against k: -1 below, 0 equal, 1 above. */
static int card_vs(const solver *q, item *a, int64_t shift, int64_t k, i128 *bound) {
  int64_t full, rest, brk;
  *bound = lp_bound(q, a, shift, &full, &rest, &brk);
  if (full > k) return 1;
  if (full == k) return brk > 0 && rest > 0 ? 1 : 0;
  return -1;
}

/* The combo paper's bounds from cardinality: every solution has at most kmax
 * items (the lightest kmax fit, kmax + 1 do not); every solution better than z
 * has at least kmin (the kmin - 1 most profitable sum to <= z). Each gives the
 * Lagrangian bound k mu + LP(p -+ mu), minimised over integer mu by bisection
 * on the sign of the slope (the LP's cardinality). */
static skss_status card_bound(solver *q) {
  const int64_t lim = (int64_t)1 << 40;
  for (int64_t k = 0; k < q->n; k++)
    if (q->it[k].p >= lim || q->it[k].w >= lim) return SKSS_OK; /* keep int128 products safe */
  int64_t *x = skss__alloc(q->ctx, sizeof(int64_t) * (size_t)q->n);
  item *a = skss__alloc(q->ctx, sizeof(item) * (size_t)q->n);
  if (x == NULL || a == NULL) {
    skss__free(q->ctx, x);
    skss__free(q->ctx, a);
    return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_knapsack(): no memory for core bounds");
  }
  for (int64_t k = 0; k < q->n; k++) x[k] = q->it[k].w;
  qsort(x, (size_t)q->n, sizeof *x, cmp_i64);
  int64_t kmax = 0, sum = 0;
  while (kmax < q->n && x[kmax] <= q->cap - sum) sum += x[kmax++];
  for (int64_t k = 0; k < q->n; k++) x[k] = q->it[k].p;
  qsort(x, (size_t)q->n, sizeof *x, cmp_i64);
  int64_t kmin = 0;
  i128 psum = 0;
  while (kmin < q->n && psum <= q->z) psum += x[q->n - 1 - kmin++];
  i128 best = q->upper;
  if (psum <= q->z || kmin > kmax) best = q->z; /* nothing beats z */
  for (int side = 0; side < 2 && best > q->z; side++) {
    /* side 0: profits p - mu, bound mu kmax + LP; side 1: p + nu, LP - nu kmin */
    const int64_t k = side == 0 ? kmax : kmin, sign = side == 0 ? -1 : 1;
    int64_t lo = 0, hi = lim; /* smallest mu with the LP's cardinality on the right side of k */
    i128 bd;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const int c = card_vs(q, a, sign * mid, k, &bd);
      if (side == 0 ? c <= 0 : c >= 0) hi = mid;
      else lo = mid + 1;
    }
    for (int64_t mu = lo > 0 ? lo - 1 : 0; mu <= lo; mu++) {
      (void)card_vs(q, a, sign * mu, k, &bd);
      const i128 l = side == 0 ? bd + (i128)mu * k : bd - (i128)mu * k;
      if (l < best) best = l;
    }
  }
  skss__free(q->ctx, x);
  skss__free(q->ctx, a);
  if (best < q->upper) q->upper = best < q->z ? q->z : (int64_t)best;
  return SKSS_OK;
}

static int cmp_item_w(const void *x, const void *y) {
  const int64_t a = ((const item *)x)->w, b = ((const item *)y)->w;
  return (a > b) - (a < b);
}

/* Pairing (combo): each state completed by one item outside the core, added
 * (the most profitable that fits) or removed (the least profitable that makes
 * it fit), for a better incumbent. */
static skss_status pair_states(solver *q) {
  const int64_t nr = q->n - 1 - q->t, nl = q->s;
  if (nr + nl == 0) return SKSS_OK;
  item *r = skss__alloc(q->ctx, sizeof(item) * (size_t)(nr + nl + 1));
  if (r == NULL) return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_knapsack(): no memory for pairing");
  item *l = r + nr;
  memcpy(r, q->it + q->t + 1, sizeof(item) * (size_t)nr);
  memcpy(l, q->it, sizeof(item) * (size_t)nl);
  qsort(r, (size_t)nr, sizeof(item), cmp_item_w);
  qsort(l, (size_t)nl, sizeof(item), cmp_item_w);
  for (int64_t k = 1; k < nr; k++) /* r[k]: the most profitable of r[0..k] */
    if (r[k].p < r[k - 1].p) {
      r[k].p = r[k - 1].p;
      r[k].id = r[k - 1].id;
    }
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
      q->z = best;
      q->have = true;
      q->zv = x->v;
      q->zdepth = q->depth;
      q->zextra = id;
    }
  }
  skss__free(q->ctx, r);
  return SKSS_OK;
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
 * no item is left. */
static skss_status expand(solver *q, int64_t ms) {
  while (q->na > 0 && q->z < q->upper && (q->s > 0 || q->t < q->n - 1)) {
    if (past_deadline(q)) return timeout(q, ms);
    if (q->depth >= q->card_at) {
      skss_status st = card_bound(q);
      if (st != SKSS_OK) return st;
      q->card_at *= 4;
      st = pair_states(q);
      if (st != SKSS_OK) return st;
      if (q->z >= q->upper) break;
    }
    for (int side = 0; side < 2; side++) {
      const int64_t j = side == 0 ? q->t + 1 : q->s - 1;
      if (j < 0 || j >= q->n) continue;
      /* The item and both neighbours of the core after it, for the bounds. */
      ensure_sorted(q, j);
      ensure_sorted(q, side == 0 ? j + 1 : q->t + 1);
      ensure_sorted(q, side == 0 ? q->s - 1 : j - 1);
      if (fixable(q, j)) {
        if (side == 0) q->t = j;
        else {
          q->s = j;
          q->wleft -= q->it[j].w;
        }
        continue;
      }
      skss_status st = add_item(q, j);
      if (st != SKSS_OK) return st;
    }
  }
  return SKSS_OK;
}

/* One solve of items it[0..n) within cap (total weight > cap), with every
 * answer below `floor` of no interest. */
static skss_status solve(solver *q, int64_t floor_value, int64_t ms) {
  find_break(q);
  q->s = q->b;
  q->t = q->b - 1;
  q->wleft = q->wb;
  q->z = q->pb;
  q->have = true;
  q->zv = 0;
  q->zdepth = 0;
  q->zextra = -1;
  if (floor_value - 1 > q->z) {
    q->z = floor_value - 1;
    q->have = false;
  }
  const item *r = &q->it[q->b];
  q->upper = (int64_t)(q->pb + (i128)(q->cap - q->wb) * r->p / r->w);
  q->card_at = 32;
  q->depth = 0;
  q->na = 1;
  q->a[0] = (state){q->wb, q->pb, 0};
  return expand(q, ms);
}

/* Marks the solution's items in `chosen` (by id) from the break solution and
 * the flips it remembers; returns how many core items it cannot tell. */
static int64_t mark(const solver *q, uint8_t *chosen, uint8_t *fixed) {
  for (int64_t k = 0; k < q->b; k++) chosen[q->it[k].id] = 1;
  const int64_t known = q->zdepth < TRACE ? q->zdepth : TRACE;
  for (int64_t k = 0; k < known; k++) {
    const int64_t pos = q->hist[q->zdepth - 1 - k];
    if ((q->zv >> k) & 1u) chosen[q->it[pos].id] ^= 1u;
    fixed[q->it[pos].id] = 1;
  }
  if (q->zextra >= 0) {
    chosen[q->zextra] ^= 1u;
    fixed[q->zextra] = 1;
  }
  return q->zdepth - known;
}

static skss_status alloc_solver(solver *q, skss__knap_core *args) {
  const int64_t n = args->items;
  q->it = skss__alloc(q->ctx, sizeof(item) * (size_t)n);
  q->lstack = skss__alloc(q->ctx, sizeof(span) * (size_t)(n + 1));
  q->rstack = skss__alloc(q->ctx, sizeof(span) * (size_t)(n + 1));
  q->hist = skss__alloc(q->ctx, sizeof(int64_t) * (size_t)(n + 1));
  q->room = 0;
  q->na = 0;
  q->a = q->block = NULL;
  if (q->it == NULL || q->lstack == NULL || q->rstack == NULL || q->hist == NULL)
    return skss__fail(q->ctx, SKSS_ERR_OUT_OF_MEMORY, "skss_knapsack(): no memory for %lld core items",
                      (long long)n);
  return grow(q, 64);
}

static void free_solver(solver *q) {
  skss__free(q->ctx, q->it);
  skss__free(q->ctx, q->lstack);
  skss__free(q->ctx, q->rstack);
  skss__free(q->ctx, q->hist);
  if (q->block != NULL) skss__free(q->ctx, q->block);
}

/* Loads the items not yet fixed into the solver; false if they all fit. */
static bool load(solver *q, const skss__knap_core *args, const uint8_t *fixed, int64_t cap) {
  int64_t n = 0, total = 0;
  for (int64_t k = 0; k < args->items; k++) {
    if (fixed != NULL && fixed[k]) continue;
    q->it[n++] = (item){args->w[k], args->v[k], k};
    total = args->w[k] > cap - total ? cap + 1 : total + args->w[k];
  }
  q->n = n;
  q->cap = cap;
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
    fixed = skss__alloc(ctx, (size_t)args->items + 1);
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
    st = solve(&q, first ? 0 : want, args->time_limit_ms);
    if (st != SKSS_OK) break;
    if (first) got = q.z;
    if (args->chosen == NULL) break;
    if (!q.have) {
      st = skss__fail(ctx, SKSS_ERR_INTERNAL, "skss_knapsack(): the core re-solve lost the optimum");
      break;
    }
    const int64_t open = mark(&q, args->chosen, fixed);
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
  skss__free(ctx, fixed);
  free_solver(&q);
  return st;
}
