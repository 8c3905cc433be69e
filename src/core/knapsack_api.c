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
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend_cuda.h"
#include "cpu/knapsack_impl.h"
#include "cpu/threadpool.h"
#include "internal.h"

static const char *const FN = "skss_knapsack()";

/* The limit on working memory when desc->max_bytes is 0. */
#define DEFAULT_MAX_BYTES ((int64_t)4 << 30)

/* AUTO solves a batch on the CPU backend with core (an instance a thread at a
 * time) from this many items and this capacity up, else with dp (likewise):
 * on 2 cores core took 0.1-0.8x dp's time there (uncorrelated, strongly
 * correlated, subset sum), and up to 7x below (n = 10 .. 30, or C < 4096). */
#define CORE_BATCH_MIN_ITEMS 64
#define CORE_BATCH_MIN_CAPACITY 4096

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
  size_t table;
  if ((uint64_t)d->capacity >= SIZE_MAX / sizeof(int64_t) ||
      !skss__mul_size(((size_t)d->capacity + 1) * sizeof(int64_t), (size_t)d->instances, &table))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW,
                      "%s: values_by_capacity of %lld x (capacity %lld + 1) entries overflows size_t",
                      FN, (long long)d->instances, (long long)d->capacity);
  const size_t items = (size_t)(d->n_items * d->instances) * sizeof(int64_t);
  if (overlap(d->values_by_capacity, table, weights, items) ||
      overlap(d->values_by_capacity, table, values, items) ||
      overlap(d->values_by_capacity, table, best_value, sizeof *best_value * (size_t)d->instances) ||
      overlap(d->values_by_capacity, table, d->value_only ? NULL : taken,
              (size_t)(d->n_items * d->instances)))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: values_by_capacity overlaps weights, values, best_value or taken", FN);
  return SKSS_OK;
}

/* The caller's desc with defaults for what it lacks: one whose size ends
 * before values_by_capacity, instances or time_limit_ms (built before they
 * were added) asks for no table, one instance or no time limit. */
static skss_status read_desc(skss_ctx *ctx, const skss_knapsack_desc *desc, skss_knapsack_desc *d) {
  const size_t before_table = offsetof(skss_knapsack_desc, values_by_capacity);
  const size_t before_batch = offsetof(skss_knapsack_desc, instances);
  const size_t before_time = offsetof(skss_knapsack_desc, time_limit_ms);
  if (desc == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: desc is NULL", FN);
  if (desc->size != before_table && desc->size != before_batch && desc->size != before_time &&
      desc->size < sizeof *d)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: desc->size is %zu, expected sizeof(skss_knapsack_desc) = %zu (or %zu, "
                      "%zu, %zu)",
                      FN, desc->size, sizeof *d, before_table, before_batch, before_time);
  const skss_knapsack_desc defaults = SKSS_KNAPSACK_DESC_INIT;
  *d = defaults;
  memcpy(d, desc, desc->size < sizeof *d ? desc->size : sizeof *d);
  if (d->instances == 0) d->instances = 1;
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
  if (d->time_limit_ms < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: time_limit_ms %lld is negative", FN,
                      (long long)d->time_limit_ms);
  if (d->value_only != 0 && d->value_only != 1)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: value_only is %d, expected 0 or 1", FN,
                      d->value_only);
  int64_t all_items;
  if (d->instances < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: instances %lld is negative", FN,
                      (long long)d->instances);
  if (!skss__mul_i64(d->n_items, d->instances, &all_items) || all_items > INT64_MAX / 8)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %lld instances of %lld items overflow int64", FN,
                      (long long)d->instances, (long long)d->n_items);
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

/* Negative items are invalid (the first one is named); the sum of an
 * instance's values must fit int64. */
static skss_status check_items(skss_ctx *ctx, const skss_knapsack_desc *d, const int64_t *weights,
                               const int64_t *values) {
  for (int64_t k = 0; k < d->instances; k++) {
    const int64_t *w = weights + k * d->n_items, *v = values + k * d->n_items;
    int64_t sum = 0;
    for (int64_t j = 0; j < d->n_items; j++) {
      if (w[j] >= 0 && v[j] >= 0 && v[j] <= INT64_MAX - sum) {
        sum += v[j];
        continue;
      }
      char where[48] = ""; /* formatted only for the message */
      if (d->instances > 1) snprintf(where, sizeof where, "instance %lld ", (long long)k);
      if (w[j] < 0 || v[j] < 0)
        return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %sitem %lld has %s %lld (must be >= 0)",
                          FN, where, (long long)j, w[j] < 0 ? "weight" : "value",
                          (long long)(w[j] < 0 ? w[j] : v[j]));
      if (v[j] > INT64_MAX - sum)
        return skss__fail(ctx, SKSS_ERR_OVERFLOW,
                          "%s: %sthe sum of the values overflows int64 at item %lld", FN, where,
                          (long long)j);
    }
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
 * each row's first needed capacity into low (unless NULL), and returns the
 * value of the zero-weight items. */
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
  for (k = low != NULL ? p->items - 1 : -1; k >= 0; k--) {
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
                    "%s: needs %s of working memory for %lld item%s over capacities 0..%lld, over "
                    "the limit max_bytes = %lld; raise max_bytes%s",
                    FN, need, (long long)p->items, p->items == 1 ? "" : "s", (long long)p->cap,
                    (long long)limit, alternative);
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

/* One instance of a call: its items and outputs (taken NULL in value-only
 * mode, table NULL when not asked for). */
typedef struct instance {
  const int64_t *w, *v;
  int64_t *best;
  uint8_t *taken;
  int64_t *table;
} instance;

static instance instance_at(const skss_knapsack_desc *d, const int64_t *weights,
                            const int64_t *values, int64_t *best_value, uint8_t *taken, int64_t k) {
  const int64_t n = d->n_items;
  const instance in = {
      n > 0 ? weights + k * n : NULL,
      n > 0 ? values + k * n : NULL,
      best_value + k,
      n > 0 && !d->value_only ? taken + k * n : NULL,
      d->values_by_capacity ? d->values_by_capacity + k * (d->capacity + 1) : NULL,
  };
  return in;
}

/* values_by_capacity from the DP items' last row (capacities 0..C'), plus
 * the zero-weight items' values; past C' every DP item fits. */
static void finish_table(const skss_knapsack_desc *d, const skss__knap *p, int64_t *table,
                         int64_t base) {
  if (table == NULL) return;
  const int64_t filled = p->items > 0 ? p->cap + 1 : 0;
  for (int64_t c = 0; c < filled; c++) table[c] += base;
  const int64_t top = filled > 0 ? table[filled - 1] : base;
  for (int64_t c = filled; c <= d->capacity; c++) table[c] = top;
}

/* taken[j] from the decision bits of the DP items and the zero-weight rule. */
static void walk_back(const skss_knapsack_desc *d, const int64_t *weights, const int64_t *values,
                      const skss__knap *p, const int64_t *index, uint8_t *taken) {
  if (taken == NULL) return;
  for (int64_t j = 0; j < d->n_items; j++) taken[j] = weights[j] == 0 && values[j] > 0;
  int64_t c = p->cap;
  for (int64_t k = p->items - 1; k >= 0; k--) {
    if ((p->bits[k * p->words + c / 64] >> (c % 64)) & 1u) {
      taken[index[k]] = 1;
      c -= p->w[k];
    }
  }
}

/* The sizes and memory plan of one instance. */
static skss_status plan_instance(skss_ctx *ctx, const skss_knapsack_desc *d, int algorithm,
                                 const instance *in, skss__knap *p, layout *l) {
  memset(p, 0, sizeof *p);
  memset(l, 0, sizeof *l);
  measure(d, in->w, in->v, p);
  return plan_memory(ctx, d, algorithm, p, l);
}

/* Solves one planned instance in `mem` (l->total bytes, 64-byte aligned). */
static void solve_instance(skss_ctx *ctx, const skss_knapsack_desc *d, int algorithm,
                           const instance *in, skss__knap *p, const layout *l, char *mem) {
  const size_t list = round64(l->list);
  int64_t *w = (int64_t *)(void *)mem, *v = (int64_t *)(void *)(mem + list);
  int64_t *index = (int64_t *)(void *)(mem + 2 * list), *low = (int64_t *)(void *)(mem + 3 * list);
  p->w = w;
  p->v = v;
  /* The oracle backend computes every cell; the CPU backend only the ones
   * the answer needs, unless the whole last row is asked for. */
  p->low = ctx->backend == SKSS_BACKEND_CPU_REF || in->table ? NULL : low;
  p->table = p->items > 0 ? in->table : NULL;
  p->bits = l->bits ? (uint64_t *)(void *)(mem + LISTS * list) : NULL;
  p->work = mem + LISTS * list + round64(l->bits);
  const int64_t base = fill(d, in->w, in->v, p, w, v, index, low);
  if (l->lowmem) {
    uint8_t *chosen = (uint8_t *)(mem + LISTS * list + l->work);
    p->isa = skss__knap_isa_at(skss__ctx_cpu_isa(ctx));
    skss__knapsack_lowmem(p, (char *)p->work, l->work, chosen);
    finish_table(d, p, in->table, base);
    *in->best = base + p->best;
    for (int64_t j = 0; j < d->n_items; j++) in->taken[j] = in->w[j] == 0 && in->v[j] > 0;
    for (int64_t k = 0; k < p->items; k++)
      if (chosen[k]) in->taken[index[k]] = 1;
    return;
  }
  run_algorithm(ctx, algorithm, p);
  finish_table(d, p, in->table, base);
  *in->best = base + p->best;
  walk_back(d, in->w, in->v, p, index, in->taken);
}

/* A batch run on several workers at once: each takes the next instance and
 * solves it with a sequential algorithm in its own slice of the scratch. */
typedef struct batch_job {
  skss_ctx *ctx;
  const skss_knapsack_desc *d;
  const int64_t *weights, *values;
  int64_t *best_value;
  uint8_t *taken;
  int algorithm;
  char *mem;
  size_t stride;
  _Atomic int64_t next; /* why: uneven instances balance when handed out one at a time */
} batch_job;

static void batch_worker(int worker, int workers, void *arg) {
  batch_job *job = arg;
  (void)workers;
  char *mem = job->mem + (size_t)worker * job->stride;
  for (int64_t k = atomic_fetch_add(&job->next, 1); k < job->d->instances;
       k = atomic_fetch_add(&job->next, 1)) {
    const instance in = instance_at(job->d, job->weights, job->values, job->best_value, job->taken, k);
    skss__knap p;
    layout l;
    /* Planned once already: the same sizes come out, so this cannot fail. */
    if (plan_instance(job->ctx, job->d, job->algorithm, &in, &p, &l) == SKSS_OK)
      solve_instance(job->ctx, job->d, job->algorithm, &in, &p, &l, mem);
  }
}

/* The most working memory any instance needs (each alone within the limit). */
static skss_status plan_batch(skss_ctx *ctx, const skss_knapsack_desc *d, int algorithm,
                              const int64_t *weights, const int64_t *values, int64_t *best_value,
                              uint8_t *taken, size_t *most) {
  *most = 0;
  for (int64_t k = 0; k < d->instances; k++) {
    const instance in = instance_at(d, weights, values, best_value, taken, k);
    skss__knap p;
    layout l;
    skss_status st = plan_instance(ctx, d, algorithm, &in, &p, &l);
    if (st != SKSS_OK) return st;
    if (l.total > *most) *most = l.total;
  }
  return SKSS_OK;
}

/* taken[j] of one instance from the chosen DP items and the zero-weight rule. */
static void map_taken(const skss_knapsack_desc *d, const int64_t *w, const int64_t *v,
                      const int64_t *index, const uint8_t *chosen, int64_t items, uint8_t *taken) {
  for (int64_t j = 0; j < d->n_items; j++) taken[j] = w[j] == 0 && v[j] > 0;
  for (int64_t k = 0; k < items; k++)
    if (chosen[k]) taken[index[k]] = 1;
}

/* The host's view of a CUDA call: its inputs (copied from the device when
 * they live there), the reduced lists and the outputs before they go back.
 * What is copied to or from the device (instances, items, best values)
 * lives in the context's page-locked host scratch, written in order; what
 * only the host reads back (input indices, chosen and taken flags) in its
 * ordinary scratch: page-locked memory can be slow to read. Both are kept
 * between calls, so no call faults its lists in afresh. */
typedef struct cuda_host {
  int64_t *w_in, *v_in;          /* copies of device inputs, or NULL */
  skss__knapsack_instance *inst;
  int64_t *w, *v, *index;
  int64_t *best;
  uint8_t *chosen, *taken;
} cuda_host;

static void cuda_host_free(cuda_host *h) {
  free(h->w_in);
  free(h->v_in);
}

/* Sums parts[0..count) rounded to 64 bytes into *total; false on overflow. */
static bool parts_total(const size_t *parts, int count, size_t *total) {
  *total = 0;
  for (int i = 0; i < count; i++)
    if (parts[i] > SIZE_MAX - 64 - *total) return false;
    else *total += round64(parts[i]);
  return true;
}

/* Carves the lists of K instances of `all` items in total (64-byte aligned parts). */
static skss_status cuda_host_lists(skss_ctx *ctx, const skss_knapsack_desc *d, size_t all, cuda_host *h) {
  const size_t K = (size_t)d->instances, lists = all > 0 ? all : 1;
  size_t pinned[4] = {0}, plain[3] = {0}, pinned_bytes = 0, plain_bytes = 0;
  if (!skss__mul_size(sizeof *h->inst, K, &pinned[0]) || !skss__mul_size(sizeof(int64_t), lists, &pinned[1]) ||
      !skss__mul_size(sizeof(int64_t), K, &pinned[3]))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: the item lists' size overflows size_t", FN);
  pinned[2] = plain[0] = pinned[1];
  plain[1] = plain[2] = d->value_only ? 0 : lists;
  if (!parts_total(pinned, 4, &pinned_bytes) || !parts_total(plain, 3, &plain_bytes))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: the item lists' size overflows size_t", FN);
  uint8_t *p = skss__cuda_host_scratch(ctx, FN, pinned_bytes);
  if (p == NULL) return SKSS_ERR_OUT_OF_MEMORY; /* the scratch said why */
  uint8_t *q = skss__scratch(ctx, plain_bytes);
  if (q == NULL) return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no host memory for the item lists", FN);
  h->inst = (void *)p;
  h->w = (void *)(p += round64(pinned[0]));
  h->v = (void *)(p += round64(pinned[1]));
  h->best = (void *)(p + round64(pinned[2]));
  h->index = (void *)q;
  h->chosen = d->value_only ? NULL : (void *)(q += round64(plain[0]));
  h->taken = d->value_only ? NULL : (void *)(q + round64(plain[1]));
  return SKSS_OK;
}

/* The host side of a CUDA call, split over the context's threads by
 * instance, in three phases: each instance's checks and reduced sizes; its
 * lists (after the list offsets are summed); after the device, its best
 * value and taken flags. */
typedef enum { PREP_MEASURE, PREP_FILL, PREP_TAKEN } prep_phase;

typedef struct cuda_prep {
  const skss_knapsack_desc *d;
  const int64_t *w, *v;
  cuda_host *h;
  int64_t *wide; /* an instance's flag: its values sum past int32 */
  atomic_llong bad; /* the first instance whose items fail check_items, or K */
  prep_phase phase;
} cuda_prep;

/* Instance k's items pass check_items' tests. */
static bool items_ok(const int64_t *w, const int64_t *v, int64_t n) {
  int64_t sum = 0;
  for (int64_t j = 0; j < n; j++) {
    if (w[j] < 0 || v[j] < 0 || v[j] > INT64_MAX - sum) return false;
    sum += v[j];
  }
  return true;
}

static void prep_worker(int worker, int workers, void *arg) {
  cuda_prep *job = arg;
  const skss_knapsack_desc *d = job->d;
  const int64_t n = d->n_items;
  cuda_host *h = job->h;
  int64_t begin, end;
  skss__split(d->instances, workers, worker, &begin, &end);
  for (int64_t k = begin; k < end; k++) {
    const int64_t *w = job->w + k * n, *v = job->v + k * n;
    skss__knap p;
    memset(&p, 0, sizeof p);
    if (job->phase == PREP_MEASURE) {
      if (!items_ok(w, v, n)) {
        /* atomic minimum: workers report bad instances in any order, the message names the first */
        long long seen = atomic_load(&job->bad);
        while (k < seen && !atomic_compare_exchange_weak(&job->bad, &seen, k)) {
        }
        return; /* check_items reports it, alone */
      }
      measure(d, w, v, &p);
      const skss__knapsack_instance in = {p.items, p.cap, 0, 0};
      h->inst[k] = in;
      job->wide[k] = p.wide;
    } else if (job->phase == PREP_FILL) {
      p.items = h->inst[k].items;
      p.cap = h->inst[k].cap;
      const int64_t first = h->inst[k].first;
      h->inst[k].base = fill(d, w, v, &p, h->w + first, h->v + first, h->index + first, NULL);
    } else {
      h->best[k] += h->inst[k].base;
      if (!d->value_only)
        map_taken(d, w, v, h->index + h->inst[k].first, h->chosen + h->inst[k].first, h->inst[k].items,
                  h->taken + k * n);
    }
  }
}

/* An input array on the host: the caller's, or a copy of its device memory. */
static skss_status host_input(skss_ctx *ctx, const int64_t *ptr, size_t bytes, int64_t **copy,
                              const int64_t **out) {
  *out = ptr;
  if (ptr == NULL || bytes == 0 || !skss__cuda_is_device_only(ptr)) return SKSS_OK;
  *copy = malloc(bytes);
  if (*copy == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no host memory for %zu bytes of items", FN, bytes);
  *out = *copy;
  return skss__cuda_copy(ctx, FN, *copy, ptr, bytes);
}

/* The CUDA backend: inputs checked and reduced on the host, the DP and the
 * walk back on the device (src/cuda/knapsack/), outputs written to host or
 * device memory; returns when they are in place. */
static skss_status solve_cuda(skss_ctx *ctx, const skss_knapsack_desc *d, int algorithm,
                              const int64_t *weights, const int64_t *values, int64_t *best_value,
                              uint8_t *taken) {
  const int64_t n = d->n_items, K = d->instances;
  const size_t all = (size_t)(n * K), bytes = all * sizeof(int64_t);
  cuda_host h = {0};
  const int64_t *w = NULL, *v = NULL;
  skss_status st = host_input(ctx, weights, bytes, &h.w_in, &w);
  if (st == SKSS_OK) st = host_input(ctx, values, bytes, &h.v_in, &v);
  if (st == SKSS_OK) st = cuda_host_lists(ctx, d, all, &h);
  int64_t *wide = st == SKSS_OK ? malloc(sizeof(int64_t) * (size_t)(K > 0 ? K : 1)) : NULL;
  if (st == SKSS_OK && wide == NULL)
    st = skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no host memory for the instance list", FN);
  if (st != SKSS_OK) {
    cuda_host_free(&h);
    return st;
  }
  /* a worker an instance at most, and some thousands of items a worker at least */
  int64_t most = all / 4096 + 1;
  if (most > K) most = K;
  const int workers = most < ctx->threads ? (int)(most > 0 ? most : 1) : ctx->threads;
  cuda_prep job = {d, w, v, &h, wide, K, PREP_MEASURE};
  skss__parallel(ctx, workers, prep_worker, &job);
  if (atomic_load(&job.bad) < K) { /* the first bad instance, reported as check_items words it */
    st = check_items(ctx, d, w, v);
    free(wide);
    cuda_host_free(&h);
    return st != SKSS_OK ? st : skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: the items failed their check", FN);
  }
  int64_t first = 0;
  int any_wide = 0;
  for (int64_t k = 0; k < K; k++) {
    h.inst[k].first = first;
    first += h.inst[k].items;
    any_wide |= wide[k] != 0;
  }
  free(wide);
  job.phase = PREP_FILL;
  skss__parallel(ctx, workers, prep_worker, &job);
  const skss__knapsack_call call = {
      K, h.inst, h.w, h.v, first, any_wide, d->value_only,
      d->max_bytes ? d->max_bytes : DEFAULT_MAX_BYTES, d->capacity, d->values_by_capacity,
      h.best, h.chosen,
  };
  st = skss__cuda_knapsack(ctx, algorithm, &call);
  job.phase = PREP_TAKEN;
  if (st == SKSS_OK) skss__parallel(ctx, workers, prep_worker, &job);
  if (st == SKSS_OK) st = skss__cuda_copy(ctx, FN, best_value, h.best, sizeof(int64_t) * (size_t)K);
  if (st == SKSS_OK && !d->value_only) st = skss__cuda_copy(ctx, FN, taken, h.taken, all);
  cuda_host_free(&h);
  return st;
}

/* CORE: each instance reduced as for the DP, then knapsack_core.c on its DP
 * items within C' (a batch's instances at once, below; the lists in the arena).
 * One instance by core in `mem` (its lists: core_mem bytes), within
 * max_bytes of state lists; alloc_lock as in skss__knap_core. */
static size_t core_mem(const skss_knapsack_desc *d) {
  /* cannot wrap: the caller's weights and values, 16 n bytes, are in memory */
  const size_t n = (size_t)d->n_items;
  return 3 * round64(n * sizeof(int64_t) + 1) + round64(n + 1);
}

static skss_status core_instance(skss_ctx *ctx, const skss_knapsack_desc *d, const instance *in, char *mem,
                                 int64_t max_bytes, pthread_mutex_t *alloc_lock) {
  const size_t n = (size_t)d->n_items, list = round64(n * sizeof(int64_t) + 1);
  int64_t *w = (int64_t *)(void *)mem, *v = (int64_t *)(void *)(mem + list);
  int64_t *index = (int64_t *)(void *)(mem + 2 * list);
  uint8_t *chosen = (uint8_t *)(mem + 3 * list);
  skss__knap p;
  memset(&p, 0, sizeof p);
  measure(d, in->w, in->v, &p);
  const int64_t base = fill(d, in->w, in->v, &p, w, v, index, NULL);
  skss__knap_core args = {p.items, p.cap, w, v, max_bytes, d->time_limit_ms,
                          in->taken != NULL ? chosen : NULL, 0, alloc_lock};
  if (p.items > 0) {
    const skss_status st = skss__knapsack_core(ctx, &args);
    if (st != SKSS_OK) return st;
  }
  *in->best = base + args.best;
  if (in->taken != NULL) map_taken(d, in->w, in->v, index, chosen, p.items, in->taken);
  return SKSS_OK;
}

/* A batch by core on the context's threads, an instance a thread at a time
 * (batch_job's hand-out), each within an equal share of max_bytes. An
 * instance that runs out of its share is marked and solved again alone
 * afterwards, so the batch runs out of memory only where a call of its own
 * would; any other failure stops the handing out, and the lowest failed
 * instance's message is reported after the join. */
typedef struct core_job {
  batch_job b;            /* algorithm: CORE */
  int64_t share;
  uint8_t *again;         /* by instance: 1 = ran out of its share */
  pthread_mutex_t lock;   /* why: the caller's allocator hooks need not be thread-safe */
  pthread_mutex_t *alloc_lock; /* &lock with the caller's hooks, NULL with malloc */
  _Atomic int64_t next;   /* why: instances differ in cost; hand them out one at a time */
  _Atomic int64_t failed; /* why: the first failed instance (INT64_MAX: none) stops the others */
  struct {
    int64_t instance;
    skss_status st;
    char error[512];
  } *first;               /* one per worker: the lowest instance that failed on it */
} core_job;

static void core_worker(int worker, int workers, void *arg) {
  (void)workers;
  core_job *job = arg;
  const batch_job *b = &job->b;
  char *mem = b->mem + (size_t)worker * b->stride;
  char *const was_sink = skss__fail_sink();
  const size_t was_size = skss__fail_sink_size();
  skss__fail_to(job->first[worker].error, sizeof job->first[worker].error);
  for (int64_t k = atomic_fetch_add(&job->b.next, 1); k < b->d->instances && k < atomic_load(&job->failed);
       k = atomic_fetch_add(&job->b.next, 1)) {
    const instance in = instance_at(b->d, b->weights, b->values, b->best_value, b->taken, k);
    const skss_status st = core_instance(b->ctx, b->d, &in, mem, job->share, job->alloc_lock);
    job->again[k] = st == SKSS_ERR_OUT_OF_MEMORY;
    if (st == SKSS_OK || st == SKSS_ERR_OUT_OF_MEMORY) continue;
    job->first[worker].instance = k;
    job->first[worker].st = st;
    int64_t was = atomic_load(&job->failed);
    while (k < was && !atomic_compare_exchange_weak(&job->failed, &was, k)) {
    }
    break;
  }
  skss__fail_to(was_sink, was_size);
}

static skss_status solve_core(skss_ctx *ctx, const skss_knapsack_desc *d, const int64_t *weights,
                              const int64_t *values, int64_t *best_value, uint8_t *taken) {
  if (d->values_by_capacity != NULL)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                      "%s: algorithm core gives one optimum, not values_by_capacity (use dp)", FN);
  const int64_t max_bytes = d->max_bytes ? d->max_bytes : DEFAULT_MAX_BYTES;
  const size_t stride = core_mem(d);
  const int workers = d->instances < ctx->threads ? (int)d->instances : ctx->threads;
  if (workers <= 1) {
    char *mem = skss__scratch(ctx, stride);
    if (mem == NULL)
      return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for the lists of %lld items", FN,
                        (long long)d->n_items);
    for (int64_t k = 0; k < d->instances; k++) {
      const instance in = instance_at(d, weights, values, best_value, taken, k);
      const skss_status st = core_instance(ctx, d, &in, mem, max_bytes, NULL);
      if (st != SKSS_OK) return st;
    }
    return SKSS_OK;
  }
  core_job job;
  memset(&job, 0, sizeof job);
  job.b = (batch_job){ctx, d, weights, values, best_value, taken, SKSS_KNAPSACK_ALGORITHM_CORE, NULL, stride, 0};
  job.share = max_bytes / workers;
  job.alloc_lock = skss__alloc_thread_safe(ctx) ? NULL : &job.lock;
  const size_t firsts = round64((size_t)workers * sizeof *job.first);
  size_t lists, bytes;
  if (!skss__mul_size((size_t)workers, stride, &lists) || !skss__add_size(lists, firsts, &bytes) ||
      (uint64_t)d->instances > SIZE_MAX - 64 || !skss__add_size(bytes, round64((size_t)d->instances), &bytes))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: the lists of %d x %lld items overflow size_t", FN, workers,
                      (long long)d->n_items);
  char *mem = skss__scratch(ctx, bytes);
  if (mem == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for the lists of %d x %lld items", FN,
                      workers, (long long)d->n_items);
  job.b.mem = mem;
  job.first = (void *)(mem + lists);
  job.again = (uint8_t *)(mem + lists + firsts);
  memset(job.again, 0, (size_t)d->instances);
  for (int w = 0; w < workers; w++) {
    job.first[w].instance = INT64_MAX;
    job.first[w].error[0] = '\0';
  }
  atomic_init(&job.failed, INT64_MAX);
  if (job.alloc_lock != NULL && pthread_mutex_init(job.alloc_lock, NULL) != 0)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: could not create a mutex", FN);
  skss__parallel(ctx, workers, core_worker, &job);
  if (job.alloc_lock != NULL) pthread_mutex_destroy(job.alloc_lock);
  /* the lowest failed instance, reported as a call of its own would be; those
   * below it that ran out of their share get the whole max_bytes first */
  const int64_t failed = atomic_load(&job.failed);
  for (int64_t k = 0; k < d->instances && k < failed; k++) {
    if (!job.again[k]) continue;
    const instance in = instance_at(d, weights, values, best_value, taken, k);
    const skss_status st = core_instance(ctx, d, &in, mem, max_bytes, NULL);
    if (st != SKSS_OK) return st;
  }
  for (int w = 0; w < workers; w++)
    if (job.first[w].instance == failed && failed != INT64_MAX)
      return skss__fail(ctx, job.first[w].st, "%s", job.first[w].error);
  return SKSS_OK;
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
  /* The CUDA backend takes host or device memory; the CPU backends host memory. */
  if (st == SKSS_OK && skss__algorithm_backend(ctx, SKSS_OP_KNAPSACK, algorithm) == SKSS_BACKEND_CUDA)
    return solve_cuda(ctx, desc, algorithm, weights, values, best_value, taken);
  if (st == SKSS_OK) {
    const void *const host[5] = {weights, values, best_value, taken, desc->values_by_capacity};
    const char *const names[5] = {"weights", "values", "best_value", "taken",
                                  "values_by_capacity"};
    st = skss__check_host_pointers(ctx, FN, 5, host, names);
  }
  if (st == SKSS_OK) st = check_items(ctx, desc, weights, values);
  /* One optimum on the CPU backend: the core algorithm (CPU_REF keeps DP, the
   * oracle), for one instance and for a batch of instances that are not small. */
  if (st == SKSS_OK && desc->algorithm == SKSS_KNAPSACK_ALGORITHM_AUTO &&
      skss__algorithm_backend(ctx, SKSS_OP_KNAPSACK, 0) == SKSS_BACKEND_CPU &&
      desc->values_by_capacity == NULL &&
      (desc->instances == 1 ||
       (desc->n_items >= CORE_BATCH_MIN_ITEMS && desc->capacity >= CORE_BATCH_MIN_CAPACITY)))
    algorithm = SKSS_KNAPSACK_ALGORITHM_CORE;
  if (st == SKSS_OK && algorithm == SKSS_KNAPSACK_ALGORITHM_CORE)
    return solve_core(ctx, desc, weights, values, best_value, taken);
  /* A batch runs its instances at once, each on one thread with DP, unless
   * the task array was asked for by name (then one after another). AUTO
   * becomes DP first: the cpu backend resolves it to the task array. */
  if (desc->instances > 1 && desc->algorithm == SKSS_KNAPSACK_ALGORITHM_AUTO)
    algorithm = SKSS_KNAPSACK_ALGORITHM_DP;
  const bool at_once = desc->instances > 1 && algorithm != SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU;
  size_t most = 0;
  if (st == SKSS_OK)
    st = plan_batch(ctx, desc, algorithm, weights, values, best_value, taken, &most);
  if (st != SKSS_OK) return st;

  const int64_t limit = desc->max_bytes ? desc->max_bytes : DEFAULT_MAX_BYTES;
  const size_t stride = round64(most);
  int workers = at_once ? (desc->instances < ctx->threads ? (int)desc->instances : ctx->threads) : 1;
  if (stride > 0 && (uint64_t)workers * stride > (uint64_t)limit) workers = (int)((uint64_t)limit / stride);
  if (workers < 1) workers = 1;
  char *mem = skss__scratch(ctx, (size_t)workers * stride);
  if (mem == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY,
                      "%s: no memory for %zu bytes of working memory (value rows%s)", FN,
                      (size_t)workers * stride,
                      desc->value_only ? "" : " and decision bits; use value_only mode");
  if (workers == 1) {
    for (int64_t k = 0; k < desc->instances; k++) {
      const instance in = instance_at(desc, weights, values, best_value, taken, k);
      skss__knap p;
      layout l;
      st = plan_instance(ctx, desc, algorithm, &in, &p, &l);
      if (st != SKSS_OK) return st;
      solve_instance(ctx, desc, algorithm, &in, &p, &l, mem);
    }
    return SKSS_OK;
  }
  batch_job job = {ctx, desc, weights, values, best_value, taken, algorithm, mem, stride, 0};
  skss__parallel(ctx, workers, batch_worker, &job);
  return SKSS_OK;
}
