/*
 * compact_api.c — skss_compact(): argument checks, algorithm resolution and
 * dispatch to the CPU algorithms (src/cpu/compact_impl.h).
 *
 * Semantics every algorithm keeps (skss.h):
 *  - integer dtypes compare exactly with the int64 (.i) or uint64 (.u)
 *    scalar, also outside the dtype's range (u8: x < 300 keeps all, x == 257
 *    none), as NumPy 2 compares an array with a Python int;
 *  - f32 compares with (float)a.f, rounded to nearest (0.1 becomes
 *    0.100000001490116..., 1e300 becomes +inf, 1e-50 becomes +0): this is
 *    NumPy 2's rule for a float32 array and a Python float (NEP 50 "weak"
 *    scalars), so `a[a < 0.1]` there is what skss keeps;
 *  - NaN compares false except under NE and NONZERO (NaN is nonzero, as in
 *    NumPy); RANGE with a >= b (or a NaN bound) keeps nothing;
 *  - output slots past *count are never written.
 * Choices the header leaves open, fixed here:
 *  - `desc->mask` is ignored by the predicates that do not read a mask, so a
 *    descriptor reused from a mask call still works; the mask predicates need
 *    it non-NULL unless n == 0 (as `in`).
 *  - Buffers that overlap (`in`, `mask`, the outputs as far as the call
 *    reads or writes them, and the 8 bytes at `count`) are refused with
 *    SKSS_ERR_INVALID_ARG, except out_values == in exactly: in place, the
 *    kept elements move to the front of `in` (the loop writes slot k only
 *    after reading it; scan-cpu compacts into scratch and copies back).
 * Every predicate is reduced here, once, to the interval test of
 * skss__compact_rule (compact_impl.h), which the CPU scan and the CUDA
 * kernels apply; the cuda backend gets the job with any mix of host and
 * device pointers (src/cuda/compact/compact_dispatch.cu).
 */
#include <math.h>
#include <stdbool.h>

#include "../cpu/compact_impl.h"
#include "backend_cuda.h"
#include "internal.h"

static const char *const FN = "skss_compact()";

/* Do [p, p + p_bytes) and [q, q + q_bytes) share a byte? NULL or empty never does. */
static bool overlaps(const void *p, size_t p_bytes, const void *q, size_t q_bytes) {
  if (p == NULL || q == NULL || p_bytes == 0 || q_bytes == 0) return false;
  uintptr_t a = (uintptr_t)p, b = (uintptr_t)q;
  return a < b ? b - a < p_bytes : a - b < q_bytes;
}

static bool is_mask_predicate(skss_compact_keep p) {
  return p == SKSS_COMPACT_KEEP_MASK_BYTES || p == SKSS_COMPACT_KEEP_MASK_BITS;
}

/* ---- the predicate as one interval test (skss__compact_rule) ------------- */

static bool is_signed_dtype(skss_dtype t) {
  return t == SKSS_DTYPE_I8 || t == SKSS_DTYPE_I16 || t == SKSS_DTYPE_I32 || t == SKSS_DTYPE_I64;
}

/* Integers in "keys": signed values with the sign bit flipped order like
 * unsigned ones, so one uint64 interval serves every integer dtype. */
static skss__compact_rule integer_rule(const skss_compact_desc *d) {
  const bool is_signed = is_signed_dtype(d->dtype);
  const unsigned bits = 8u * (unsigned)skss_dtype_size(d->dtype);
  const uint64_t flip = is_signed ? UINT64_C(1) << 63 : 0;
  const uint64_t tmin = flip - (is_signed ? UINT64_C(1) << (bits - 1) : 0);
  const uint64_t tmax = tmin + (UINT64_MAX >> (64 - bits));
  const uint64_t a = is_signed ? (uint64_t)d->a.i ^ flip : d->a.u;
  const uint64_t b = is_signed ? (uint64_t)d->b.i ^ flip : d->b.u;
  uint64_t lo = a, hi = a;
  bool empty = false;
  switch (d->keep) {
    case SKSS_COMPACT_KEEP_LT: empty = a == 0; lo = 0; hi = a - 1; break;
    case SKSS_COMPACT_KEEP_LE: lo = 0; break;
    case SKSS_COMPACT_KEEP_GT: empty = a == UINT64_MAX; lo = a + 1; hi = UINT64_MAX; break;
    case SKSS_COMPACT_KEEP_GE: hi = UINT64_MAX; break;
    case SKSS_COMPACT_KEEP_RANGE: empty = b == 0; hi = b - 1; break;
    case SKSS_COMPACT_KEEP_NONZERO: lo = hi = flip; break;
    default: break; /* EQ, NE: [a, a] */
  }
  bool invert = d->keep == SKSS_COMPACT_KEEP_NE || d->keep == SKSS_COMPACT_KEEP_NONZERO;
  if (lo < tmin) lo = tmin;
  if (hi > tmax) hi = tmax;
  if (empty || lo > hi) { /* keeping nothing is inverting everything */
    lo = tmin;
    hi = tmax;
    invert = !invert;
  }
  return (skss__compact_rule){.lo = lo ^ flip, .span = hi - lo, .invert = invert};
}

/* The next value of the dtype's float format above / below v; NaN past an infinity. */
static double float_up(double v, bool single) {
  if (v == INFINITY) return NAN;
  return single ? (double)nextafterf((float)v, INFINITY) : nextafter(v, INFINITY);
}
static double float_down(double v, bool single) {
  if (v == -INFINITY) return NAN;
  return single ? (double)nextafterf((float)v, -INFINITY) : nextafter(v, -INFINITY);
}

/* A strict bound becomes the next float inside it (x < a iff x <= the float
 * below a), so NaN is kept only under invert (NE, NONZERO). */
static skss__compact_rule float_rule(const skss_compact_desc *d) {
  const bool single = d->dtype == SKSS_DTYPE_F32;
  const double a = single ? (double)(float)d->a.f : d->a.f;
  const double b = single ? (double)(float)d->b.f : d->b.f;
  double lo = a, hi = a;
  switch (d->keep) {
    case SKSS_COMPACT_KEEP_LT: lo = -INFINITY; hi = float_down(a, single); break;
    case SKSS_COMPACT_KEEP_LE: lo = -INFINITY; break;
    case SKSS_COMPACT_KEEP_GT: lo = float_up(a, single); hi = INFINITY; break;
    case SKSS_COMPACT_KEEP_GE: hi = INFINITY; break;
    case SKSS_COMPACT_KEEP_RANGE: hi = float_down(b, single); break;
    case SKSS_COMPACT_KEEP_NONZERO: lo = hi = 0.0; break;
    default: break; /* EQ, NE: [a, a] */
  }
  const bool invert = d->keep == SKSS_COMPACT_KEEP_NE || d->keep == SKSS_COMPACT_KEEP_NONZERO;
  return (skss__compact_rule){.lo_f = lo, .hi_f = hi, .invert = invert};
}

static skss__compact_rule rule_of(const skss_compact_desc *d) {
  if (is_mask_predicate(d->keep)) return (skss__compact_rule){.invert = 0};
  if (d->dtype == SKSS_DTYPE_F32 || d->dtype == SKSS_DTYPE_F64) return float_rule(d);
  return integer_rule(d);
}

/* Bytes of each buffer the call touches, overflow-checked. */
typedef struct extents {
  size_t in, mask, values, indices;
} extents;

static skss_status check_extents(skss_ctx *ctx, const skss_compact_desc *d, const void *out_values,
                                 const int64_t *out_indices, extents *e) {
  size_t elem = skss_dtype_size(d->dtype), n = (size_t)d->n;
  if ((uint64_t)d->n > SIZE_MAX || !skss__mul_size(n, elem, &e->in))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: n = %lld elements of %zu bytes overflow size_t", FN,
                      (long long)d->n, elem);
  e->values = out_values != NULL ? e->in : 0;
  e->indices = 0;
  if (out_indices != NULL && !skss__mul_size(n, sizeof(int64_t), &e->indices))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: n = %lld indices of 8 bytes overflow size_t", FN,
                      (long long)d->n);
  e->mask = d->keep == SKSS_COMPACT_KEEP_MASK_BYTES  ? n
            : d->keep == SKSS_COMPACT_KEEP_MASK_BITS ? n / 8 + (n % 8 != 0)
                                                  : 0;
  return SKSS_OK;
}

static skss_status check_overlaps(skss_ctx *ctx, const skss_compact_desc *d, const void *in,
                                  const void *out_values, const int64_t *out_indices,
                                  const int64_t *count, const extents *e) {
  const void *mask = e->mask != 0 ? d->mask : NULL;
  if (overlaps(count, sizeof *count, in, e->in) || overlaps(count, sizeof *count, mask, e->mask) ||
      overlaps(count, sizeof *count, out_values, e->values) ||
      overlaps(count, sizeof *count, out_indices, e->indices))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: count overlaps the input, the mask or an output", FN);
  /* in place: out_values == in exactly (the kept elements move to its front) */
  const bool in_place = out_values != NULL && out_values == in;
  if ((!in_place && overlaps(out_values, e->values, in, e->in)) || overlaps(out_indices, e->indices, in, e->in))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: an output overlaps the input (only out_values == in, in place, is allowed)", FN);
  if (overlaps(out_values, e->values, out_indices, e->indices))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: out_values and out_indices overlap", FN);
  if (overlaps(out_values, e->values, mask, e->mask) || overlaps(out_indices, e->indices, mask, e->mask))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: an output overlaps the mask", FN);
  return SKSS_OK;
}

static skss_status check_args(skss_ctx *ctx, const skss_compact_desc *d, const void *in,
                              const void *out_values, const int64_t *out_indices,
                              const int64_t *count) {
  if (skss_dtype_size(d->dtype) == 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown dtype %d", FN, (int)d->dtype);
  if ((unsigned)d->keep > (unsigned)SKSS_COMPACT_KEEP_MASK_BITS)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown predicate %d", FN, (int)d->keep);
  if (d->n < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: n = %lld is negative", FN, (long long)d->n);
  if (count == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: count is NULL", FN);
  if (in == NULL && d->n > 0) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: in is NULL", FN);
  if (d->mask == NULL && d->n > 0 && is_mask_predicate(d->keep))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: desc->mask is NULL but the predicate reads a mask",
                      FN);
  extents e = {0, 0, 0, 0};
  skss_status st = check_extents(ctx, d, out_values, out_indices, &e);
  if (st != SKSS_OK) return st;
  return check_overlaps(ctx, d, in, out_values, out_indices, count, &e);
}

skss_status skss_compact(skss_ctx *ctx, const skss_compact_desc *desc, const void *in,
                         void *out_values, int64_t *out_indices, int64_t *count) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, FN, desc, skss_compact_desc);
  skss_status st = check_args(ctx, desc, in, out_values, out_indices, count);
  if (st != SKSS_OK) return st;
  int algorithm;
  st = skss__resolve_algorithm(ctx, FN, SKSS_OP_COMPACT, (int)desc->algorithm, &algorithm);
  if (st != SKSS_OK) return st;
  const bool on_cuda =
      skss__algorithm_backend(ctx, SKSS_OP_COMPACT, (int)desc->algorithm) == SKSS_BACKEND_CUDA;
  if (!on_cuda) {
    const void *const host[5] = {in, desc->mask, out_values, out_indices, count};
    const char *const names[5] = {"in", "mask", "out_values", "out_indices", "count"};
    st = skss__check_host_pointers(ctx, FN, 5, host, names);
    if (st != SKSS_OK) return st;
  }
  const skss__compact_job job = {
      .in = in,
      .n = desc->n,
      .dtype = desc->dtype,
      .predicate = desc->keep,
      .a = desc->a,
      .b = desc->b,
      .rule = rule_of(desc),
      .mask = is_mask_predicate(desc->keep) ? desc->mask : NULL,
      .values = out_values,
      .indices = out_indices,
  };
  if (on_cuda) return skss__cuda_compact(ctx, algorithm, &job, count);
  switch ((skss_compact_algorithm)algorithm) {
    case SKSS_COMPACT_ALGORITHM_LOOP: *count = skss__compact_loop(&job); return SKSS_OK;
    case SKSS_COMPACT_ALGORITHM_SCAN_CPU: return skss__compact_scan_cpu(ctx, &job, count);
    default: break;
  }
  return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: no CPU code for algorithm %d", FN, algorithm);
}
