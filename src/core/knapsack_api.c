/*
 * knapsack_api.c — skss_knapsack(): validation, reduction of the instance to
 * its DP items, algorithm dispatch, and the walk back that turns decision
 * bits into the chosen set (Funasaka, Nakano, Ito, SKSS task arrays, Section V.A; the semantics in skss.h).
 *
 * Reduction (exact for the optimum and for the deterministic chosen set):
 *  - items with v_j = 0, or w_j > C, never change V: never taken;
 *  - items with w_j = 0 add v_j to every V[c]: taken iff v_j > 0;
 *  - the rest ("DP items") run the DP over capacities 0..C' with
 *    C' = min(C, their total weight), since V[c][j] = V[min(c, W_j)][j] for
 *    W_j the weight of the first j items, and the walk back from C' takes the
 *    same items as the walk from C (min(c, W_{j+1}) agrees along both walks).
 * On the CPU backend each DP row also starts at the first capacity the answer
 * can depend on (the `low` bounds of knapsack_impl.h); CPU_REF computes every
 * cell, so the tests compare the two.
 * Walk back: from c = C', item j (last to first) is taken iff its decision
 * bit at c is set, i.e. V[c][j+1] != V[c][j]; then c -= w_j.
 * Threads: whatever the chosen algorithm uses; everything here is sequential.
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cpu/knapsack_impl.h"
#include "internal.h"

static const char *const FN = "skss_knapsack()";

/* The limit on working memory when desc->max_bytes is 0. */
#define DEFAULT_MAX_BYTES ((int64_t)4 << 30)

/* Whether two byte ranges share a byte. */
static bool overlap(const void *a, size_t a_bytes, const void *b, size_t b_bytes) {
  const uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  if (a == NULL || b == NULL || a_bytes == 0 || b_bytes == 0) return false;
  return pa >= pb ? pa - pb < b_bytes : pb - pa < a_bytes;
}

/* values_by_capacity: capacity + 1 entries that fit size_t, apart from the
 * other buffers. */
static skss_status check_table(skss_ctx *ctx, const skss_knapsack_desc *d, const int64_t *weights,
                               const int64_t *values, const int64_t *best_value,
                               const uint8_t *taken) {
  if ((uint64_t)d->capacity >= SIZE_MAX / sizeof(int64_t))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW,
                      "%s: values_by_capacity of capacity %lld + 1 entries overflows size_t", FN,
                      (long long)d->capacity);
  const size_t table = ((size_t)d->capacity + 1) * sizeof(int64_t);
  const size_t items = (size_t)d->n_items * sizeof(int64_t);
  if (overlap(d->values_by_capacity, table, weights, items) ||
      overlap(d->values_by_capacity, table, values, items) ||
      overlap(d->values_by_capacity, table, best_value, sizeof *best_value) ||
      overlap(d->values_by_capacity, table, d->value_only ? NULL : taken, (size_t)d->n_items))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: values_by_capacity overlaps weights, values, best_value or taken", FN);
  return SKSS_OK;
}

/* The caller's desc with defaults for what it lacks: one whose size ends
 * before values_by_capacity (built before it was added) asks for no table. */
static skss_status read_desc(skss_ctx *ctx, const skss_knapsack_desc *desc, skss_knapsack_desc *d) {
  const size_t before_table = offsetof(skss_knapsack_desc, values_by_capacity);
  if (desc == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: desc is NULL", FN);
  if (desc->size != before_table && desc->size < sizeof *d)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: desc->size is %zu, expected sizeof(skss_knapsack_desc) = %zu (or %zu)",
                      FN, desc->size, sizeof *d, before_table);
  const skss_knapsack_desc defaults = SKSS_KNAPSACK_DESC_INIT;
  *d = defaults;
  memcpy(d, desc, desc->size < sizeof *d ? desc->size : sizeof *d);
  return SKSS_OK;
}

static skss_status check_desc(skss_ctx *ctx, const skss_knapsack_desc *d, const int64_t *weights,
                              const int64_t *values, const int64_t *best_value,
                              const uint8_t *taken) {
  if (d->n_items < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: n_items %lld is negative", FN,
                      (long long)d->n_items);
  if (d->capacity < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: capacity %lld is negative", FN,
                      (long long)d->capacity);
  if (d->max_bytes < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: max_bytes %lld is negative", FN,
                      (long long)d->max_bytes);
  if (d->value_only != 0 && d->value_only != 1)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: value_only is %d, expected 0 or 1", FN,
                      d->value_only);
  if (best_value == NULL)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: best_value is NULL", FN);
  if (d->n_items > 0 && (weights == NULL || values == NULL))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s is NULL with %lld items", FN,
                      weights == NULL ? "weights" : "values", (long long)d->n_items);
  if (d->n_items > 0 && !d->value_only && taken == NULL)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: taken is NULL; pass n_items bytes or set value_only", FN);
  return d->values_by_capacity ? check_table(ctx, d, weights, values, best_value, taken) : SKSS_OK;
}

/* Negative items are invalid (the first one is named); the sum of all
 * values must fit int64. */
static skss_status check_items(skss_ctx *ctx, int64_t n, const int64_t *weights,
                               const int64_t *values) {
  int64_t sum = 0;
  for (int64_t j = 0; j < n; j++) {
    if (weights[j] < 0 || values[j] < 0)
      return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: item %lld has %s %lld (must be >= 0)", FN,
                        (long long)j, weights[j] < 0 ? "weight" : "value",
                        (long long)(weights[j] < 0 ? weights[j] : values[j]));
    if (values[j] > INT64_MAX - sum)
      return skss__fail(ctx, SKSS_ERR_OVERFLOW,
                        "%s: the sum of the values overflows int64 at item %lld", FN, (long long)j);
    sum += values[j];
  }
  return SKSS_OK;
}

static bool is_dp_item(int64_t w, int64_t v, int64_t capacity) {
  return w > 0 && w <= capacity && v > 0;
}

/* The reduced problem's sizes: p->items, cap, wide and words. */
static void measure(const skss_knapsack_desc *d, const int64_t *weights, const int64_t *values,
                    skss__knap *p) {
  int64_t items = 0, total_w = 0, total_v = 0;
  for (int64_t j = 0; j < d->n_items; j++) {
    if (!is_dp_item(weights[j], values[j], d->capacity)) continue;
    items++;
    /* Saturate: only min(C, total) matters. */
    total_w = weights[j] > d->capacity - total_w ? d->capacity : total_w + weights[j];
    total_v += values[j];
  }
  p->items = items;
  p->cap = total_w;
  p->wide = total_v > INT32_MAX;
  p->words = p->cap / 64 + 1;
}

/* Copies the DP items into w, v (their input indices into index), fills
 * each row's first needed capacity into low, and returns the value of the
 * zero-weight items. */
static int64_t fill(const skss_knapsack_desc *d, const int64_t *weights, const int64_t *values,
                    const skss__knap *p, int64_t *w, int64_t *v, int64_t *index, int64_t *low) {
  int64_t k = 0, base = 0;
  for (int64_t j = 0; j < d->n_items; j++) {
    if (weights[j] == 0) base += values[j];
    if (!is_dp_item(weights[j], values[j], d->capacity)) continue;
    w[k] = weights[j];
    v[k] = values[j];
    index[k++] = j;
  }
  int64_t need = p->cap;
  for (k = p->items - 1; k >= 0; k--) {
    low[k] = need / 64 * 64;
    need = low[k] > w[k] ? low[k] - w[k] : 0;
  }
  return base;
}

/* Bytes of decision bits (0 in value-only mode); false if that overflows size_t. */
static bool bits_bytes(const skss_knapsack_desc *d, const skss__knap *p, size_t *out) {
  *out = 0;
  if (d->value_only || p->items == 0) return true;
  return (uint64_t)p->words <= SIZE_MAX && skss__mul_size((size_t)p->items, (size_t)p->words, out) &&
         skss__mul_size(*out, 8, out);
}

static bool work_bytes(const skss_ctx *ctx, int algorithm, const skss__knap *p, size_t *bytes) {
  *bytes = 0;
  if (p->items == 0) return true;
  if (algorithm == SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU) return skss__knapsack_taskarray_work(ctx, p, bytes);
  return skss__knapsack_dp_work(p, bytes);
}

/* One scratch block: the DP items' weights, values, indices and first
 * capacities, the decision bits, the algorithm's work; each part 64-byte
 * aligned. When all the bits do not fit the limit, `lowmem` is set, bits is
 * 0 and work holds knapsack_lowmem.c's checkpoints and bits, followed by a
 * byte per DP item for its choice. */
typedef struct layout {
  size_t list, bits, work, total;
  bool lowmem;
} layout;

enum { LISTS = 4 };

static size_t round64(size_t x) { return (x + 63) / 64 * 64; }

/* Fails, before anything is allocated, when the call needs more than
 * max_bytes; `need` says how much ("123 bytes (...)", "more than ..."), and
 * `without_bits` what value-only mode would need (-1: not known). */
static skss_status over_limit(skss_ctx *ctx, const skss_knapsack_desc *d, const skss__knap *p,
                              const char *need, int64_t limit, int64_t without_bits) {
  char alternative[96] = "";
  if (!d->value_only && without_bits < 0)
    snprintf(alternative, sizeof alternative, " or use value_only mode (no decision bits)");
  else if (!d->value_only)
    snprintf(alternative, sizeof alternative,
             " or use value_only mode (no decision bits: %lld bytes)", (long long)without_bits);
  return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY,
                    "%s: needs %s of working memory for %lld items over capacities 0..%lld, over "
                    "the limit max_bytes = %lld; raise max_bytes%s",
                    FN, need, (long long)p->items, (long long)p->cap, (long long)limit, alternative);
}

/* The layout that reconstructs from checkpoints within `limit`, or an
 * over-limit error naming both needs (`full`: with all the bits). */
static skss_status plan_lowmem(skss_ctx *ctx, const skss_knapsack_desc *d, const skss__knap *p,
                               int64_t limit, size_t lists, const char *full, layout *l) {
  size_t least = 0, one_level = 0, items = round64((size_t)p->items);
  char need[256];
  if (!skss__knapsack_lowmem_bytes(p, &least, &one_level) || least > SIZE_MAX - lists - items ||
      lists + items + least > (uint64_t)limit) {
    if (least > SIZE_MAX - lists - items || lists + items + least >= l->total)
      snprintf(need, sizeof need, "%s", full); /* checkpoints would not save memory */
    else
      snprintf(need, sizeof need, "%s, or at least %zu reconstructing from checkpoints", full,
               lists + items + least);
    return over_limit(ctx, d, p, need, limit, (int64_t)(l->total - round64(l->bits)));
  }
  /* As much of the limit as helps: one level of checkpoints is the fastest.
   * least and one_level are multiples of 64, so room's rounding keeps least. */
  const size_t room = ((size_t)limit - lists - items) / 64 * 64;
  l->lowmem = true;
  l->bits = 0;
  l->work = one_level < room ? one_level : room;
  l->total = lists + l->work + items;
  return SKSS_OK;
}

static skss_status plan_memory(skss_ctx *ctx, const skss_knapsack_desc *d, int algorithm,
                               const skss__knap *p, layout *l) {
  const int64_t limit = d->max_bytes ? d->max_bytes : DEFAULT_MAX_BYTES;
  char need[128];
  /* Every algorithm keeps at least two value rows of C' + 1 cells of 4 or 8
   * bytes: past this capacity they alone exceed any limit (and the
   * algorithms' index arithmetic stays far from overflow below it). */
  if (p->cap > SKSS__KNAP_MAX_CAP) {
    snprintf(need, sizeof need, "more than %lld bytes", (long long)INT64_MAX);
    return over_limit(ctx, d, p, need, limit, -1);
  }
  size_t lists;
  bool fits = bits_bytes(d, p, &l->bits) && work_bytes(ctx, algorithm, p, &l->work) &&
              l->work <= SIZE_MAX - 64 && l->bits <= SIZE_MAX - 64 &&
              skss__mul_size((size_t)p->items, sizeof(int64_t), &l->list) &&
              skss__mul_size(round64(l->list), LISTS, &lists) &&
              skss__add_size(lists, round64(l->bits), &l->total) &&
              skss__add_size(l->total, round64(l->work), &l->total);
  if (!fits) {
    snprintf(need, sizeof need, "more than %zu bytes", (size_t)SIZE_MAX);
    return over_limit(ctx, d, p, need, limit, -1);
  }
  if ((uint64_t)l->total > (uint64_t)limit) {
    snprintf(need, sizeof need, "%zu bytes (%zu for value rows, %zu for decision bits)",
             l->total, l->work, l->bits);
    if (l->bits == 0) return over_limit(ctx, d, p, need, limit, -1);
    return plan_lowmem(ctx, d, p, limit, lists, need, l);
  }
  return SKSS_OK;
}

static void run_algorithm(skss_ctx *ctx, int algorithm, skss__knap *p) {
  if (p->items == 0) {
    p->best = 0;
    return;
  }
  /* The oracle backend runs the plain C kernel (its level is SCALAR); the
   * CPU backend the fastest its level allows. */
  p->isa = skss__knap_isa_at(skss__ctx_cpu_isa(ctx));
  if (algorithm == SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU)
    skss__knapsack_taskarray(ctx, p);
  else
    skss__knapsack_dp(p);
}

/* values_by_capacity from the DP items' last row (capacities 0..C'), plus
 * the zero-weight items' values; past C' every DP item fits. */
static void finish_table(const skss_knapsack_desc *d, const skss__knap *p, int64_t base) {
  int64_t *table = d->values_by_capacity;
  if (table == NULL) return;
  const int64_t filled = p->items > 0 ? p->cap + 1 : 0;
  for (int64_t c = 0; c < filled; c++) table[c] += base;
  const int64_t top = filled > 0 ? table[filled - 1] : base;
  for (int64_t c = filled; c <= d->capacity; c++) table[c] = top;
}

/* taken[j] from the decision bits of the DP items and the zero-weight rule. */
static void walk_back(const skss_knapsack_desc *d, const int64_t *weights, const int64_t *values,
                      const skss__knap *p, const int64_t *index, uint8_t *taken) {
  for (int64_t j = 0; j < d->n_items; j++) taken[j] = weights[j] == 0 && values[j] > 0;
  int64_t c = p->cap;
  for (int64_t k = p->items - 1; k >= 0; k--) {
    if ((p->bits[k * p->words + c / 64] >> (c % 64)) & 1u) {
      taken[index[k]] = 1;
      c -= p->w[k];
    }
  }
}

skss_status skss_knapsack(skss_ctx *ctx, const skss_knapsack_desc *desc, const int64_t *weights,
                          const int64_t *values, int64_t *best_value, uint8_t *taken) {
  SKSS__CHECK_CTX(ctx);
  skss_knapsack_desc copy;
  skss_status st = read_desc(ctx, desc, &copy);
  if (st != SKSS_OK) return st;
  desc = &copy;
  st = check_desc(ctx, desc, weights, values, best_value, taken);
  int algorithm = 0;
  if (st == SKSS_OK)
    st = skss__resolve_algorithm(ctx, FN, SKSS_OP_KNAPSACK, (int)desc->algorithm, &algorithm);
  if (st == SKSS_OK) {
    const void *const host[5] = {weights, values, best_value, taken, desc->values_by_capacity};
    const char *const names[5] = {"weights", "values", "best_value", "taken",
                                  "values_by_capacity"};
    st = skss__check_host_pointers(ctx, FN, 5, host, names);
  }
  if (st == SKSS_OK) st = check_items(ctx, desc->n_items, weights, values);
  skss__knap p;
  memset(&p, 0, sizeof p);
  layout l = {0, 0, 0, 0, false};
  if (st == SKSS_OK) measure(desc, weights, values, &p);
  if (st == SKSS_OK) st = plan_memory(ctx, desc, algorithm, &p, &l);
  if (st != SKSS_OK) return st;

  char *mem = skss__scratch(ctx, l.total);
  if (mem == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY,
                      "%s: no memory for %zu bytes of working memory (value rows%s)", FN, l.total,
                      l.bits ? " and decision bits; use value_only mode" : "");
  size_t list = round64(l.list);
  int64_t *w = (int64_t *)mem, *v = (int64_t *)(mem + list), *index = (int64_t *)(mem + 2 * list);
  int64_t *low = (int64_t *)(mem + 3 * list);
  p.w = w;
  p.v = v;
  /* The oracle backend computes every cell; the CPU backend only the ones
   * the answer needs, unless the whole last row is asked for. */
  p.low = ctx->backend == SKSS_BACKEND_CPU_REF || desc->values_by_capacity ? NULL : low;
  p.table = p.items > 0 ? desc->values_by_capacity : NULL;
  p.bits = l.bits ? (uint64_t *)(mem + LISTS * list) : NULL;
  p.work = mem + LISTS * list + round64(l.bits);
  int64_t base = fill(desc, weights, values, &p, w, v, index, low);
  if (l.lowmem) {
    p.isa = skss__knap_isa_at(skss__ctx_cpu_isa(ctx));
    skss__knapsack_lowmem(&p, (char *)p.work, l.work, (uint8_t *)(mem + LISTS * list + l.work));
    finish_table(desc, &p, base);
    const uint8_t *chosen = (const uint8_t *)(mem + LISTS * list + l.work);
    *best_value = base + p.best;
    for (int64_t j = 0; j < desc->n_items; j++) taken[j] = weights[j] == 0 && values[j] > 0;
    for (int64_t k = 0; k < p.items; k++)
      if (chosen[k]) taken[index[k]] = 1;
    return SKSS_OK;
  }
  run_algorithm(ctx, algorithm, &p);
  finish_table(desc, &p, base);
  *best_value = base + p.best;
  if (!desc->value_only) walk_back(desc, weights, values, &p, index, taken);
  return SKSS_OK;
}
