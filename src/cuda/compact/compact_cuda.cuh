/*
 * compact_cuda.cuh — what the CUDA stream-compaction kernels share: the
 * device form of the core's interval test (skss__compact_rule, so the GPU
 * keeps exactly what the CPU backends keep), the (element width, test)
 * pairs the kernels are instantiated for, 16-byte vector loads and mask
 * flags, and the launchers compact_dispatch.cu calls:
 *  - compact_paper.cu:   the paper's flag / scan / scatter (Pirjan), with
 *                        its step 2 on the GPU or on the host;
 *  - compact_onepass.cu: ours, one pass with decoupled look-back.
 */
#ifndef SKSS_CUDA_COMPACT_CUH
#define SKSS_CUDA_COMPACT_CUH

#include <stdint.h>

#include "../common.cuh"

/* How an element is tested: its bits against an integer interval, its
 * value as f32 or f64, or (ignoring it) the mask's byte or bit. */
enum skss__cp_test { SKSS__CP_INT = 0, SKSS__CP_F32, SKSS__CP_F64, SKSS__CP_MASK_BYTES, SKSS__CP_MASK_BITS };

/* skss__compact_rule as the kernels read it (f32 bounds pre-rounded; they are exact). */
struct skss__cp_rule {
  unsigned long long lo, span;
  double lo_f, hi_f;
  float lo32, hi32;
  unsigned invert;
};

/* One compaction whose pointers are all device memory (staged by the dispatcher). */
struct skss__cp_args {
  const void *in;        /* n elements of `width` bytes (read only when needed) */
  const uint8_t *mask;   /* the mask predicates' bytes or bits, else NULL */
  void *values;          /* NULL: no values; may equal `in` (in place) */
  long long *indices;    /* NULL: no indices */
  long long *count;      /* device: written by the device */
  long long n;
  int width;             /* bytes an element: 1, 2, 4, 8 */
  int test;              /* skss__cp_test */
  skss__cp_rule rule;
  int device_sms, device_max_threads;
};

/* The largest n the CUDA kernels take: counts travel in 41 bits of a status word. */
#define SKSS__CP_MAX_N (1ll << 40)

/* Tile status words of the one pass: 64-bit {epoch: 21, kind: 2, value: 41}
 * in a buffer of the context that only compaction writes; a call publishes
 * with a fresh epoch, so words of earlier calls read as "nothing yet" and
 * the words are not reset between calls (zeroed only when the buffer grows
 * or the epochs run out; the group counters below are). Tickets: a 64-bit
 * counter that never resets; this call's first ticket is ticket_base. Groups of SKSS__CP_GROUP tiles: each
 * tile adds {1 << SKSS__CP_GROUP_COUNT_SHIFT | its count} to its group's
 * counter, which must be zero when the call starts: two arrays of counters
 * alternate by epoch, and a call zeroes the other (the next call's) as it
 * goes, all group_capacity of them. */
struct skss__cp_status {
  unsigned long long *words;
  unsigned long long *ticket;
  unsigned long long ticket_base;
  unsigned long long *group_counts, *next_group_counts;
  long long group_capacity;
  unsigned epoch; /* 1 .. SKSS__CP_LAST_EPOCH */
};
#define SKSS__CP_GROUP 32 /* a warp's window: the look-back reads a group's tiles, or 32 groups, at once */
#define SKSS__CP_GROUP_COUNT_SHIFT 48
#define SKSS__CP_EPOCH_SHIFT 43
#define SKSS__CP_KIND_SHIFT 41
#define SKSS__CP_VALUE_MASK ((1ull << SKSS__CP_KIND_SHIFT) - 1)
#define SKSS__CP_LAST_EPOCH ((1u << (64 - SKSS__CP_EPOCH_SHIFT)) - 1)
#define SKSS__CP_AGGREGATE 1ull /* kind: the tile's own count */
#define SKSS__CP_INCLUSIVE 2ull /* kind: the count of the tile and all before it */

skss_status skss__cp_status_take(skss_ctx *ctx, const char *fn, size_t words, unsigned long long tickets,
                                 skss__cp_status *out);
/* After a failed launch (its tickets were never taken): the next take zeroes the buffer. */
void skss__cp_status_abandon(skss_ctx *ctx);

/* The one pass (compact_onepass.cu): writes values / indices and *count. */
skss_status skss__cp_onepass(skss_ctx *ctx, const char *fn, const skss__cp_args *a);

/* The paper's algorithm (compact_paper.cu): its device scratch in bytes,
 * and the run; `cpu_scan` runs step 2 on the host (synchronous). In place
 * (values == in) the scatter goes to scratch and the kept are copied back. */
size_t skss__cp_paper_scratch(const skss__cp_args *a);
skss_status skss__cp_paper(skss_ctx *ctx, const char *fn, const skss__cp_args *a, bool cpu_scan, void *scratch);

/* ---- device helpers ---------------------------------------------------------- */

/* Whether element bits x pass the rule (TEST is INT, F32 or F64). */
template <typename UT, int TEST>
__device__ __forceinline__ unsigned skss__cp_keep(UT x, const skss__cp_rule &r) {
  if constexpr (TEST == SKSS__CP_F32) {
    const float f = __uint_as_float(static_cast<unsigned>(x));
    return static_cast<unsigned>((f >= r.lo32) & (f <= r.hi32)) ^ r.invert;
  } else if constexpr (TEST == SKSS__CP_F64) {
    const double f = __longlong_as_double(static_cast<long long>(x));
    return static_cast<unsigned>((f >= r.lo_f) & (f <= r.hi_f)) ^ r.invert;
  } else {
    return static_cast<unsigned>(static_cast<UT>(x - static_cast<UT>(r.lo)) <= static_cast<UT>(r.span)) ^
           r.invert;
  }
}

/* Element e (a constant after unrolling) of a 16-byte vector of UT. */
template <typename UT>
__device__ __forceinline__ UT skss__cp_get(const uint4 &v, int e) {
  constexpr int S = sizeof(UT);
  const int byte = e * S, wi = byte / 4, sh = 8 * (byte % 4);
  const unsigned w = wi == 0 ? v.x : wi == 1 ? v.y : wi == 2 ? v.z : v.w;
  if constexpr (S == 8) {
    const unsigned hi = wi == 0 ? v.y : v.w;
    return static_cast<UT>(w) | (static_cast<UT>(hi) << 32);
  } else {
    return static_cast<UT>(w >> sh);
  }
}

/* Sets element e of a 16-byte vector of UT. */
template <typename UT>
__device__ __forceinline__ void skss__cp_set(uint4 &v, int e, UT x) {
  constexpr int S = sizeof(UT);
  if constexpr (S == 8) {
    const unsigned lo = static_cast<unsigned>(x), hi = static_cast<unsigned>(static_cast<unsigned long long>(x) >> 32);
    if (e == 0) {
      v.x = lo;
      v.y = hi;
    } else {
      v.z = lo;
      v.w = hi;
    }
  } else {
    const int byte = e * S, wi = byte / 4, sh = 8 * (byte % 4);
    const unsigned keep = S == 4 ? 0u : ~(((1u << (8 * S)) - 1u) << sh);
    const unsigned put = static_cast<unsigned>(x) << sh;
    if (wi == 0) v.x = (v.x & keep) | put;
    else if (wi == 1) v.y = (v.y & keep) | put;
    else if (wi == 2) v.z = (v.z & keep) | put;
    else v.w = (v.w & keep) | put;
  }
}

/* Bits 0 .. E-1 set for the elements idx .. idx+E-1 that are below n. */
template <int E>
__device__ __forceinline__ unsigned skss__cp_valid(long long idx, long long n) {
  constexpr unsigned ALL = E == 32 ? 0xffffffffu : (1u << E) - 1u;
  return idx >= n ? 0u : n - idx >= E ? ALL : (1u << (n - idx)) - 1u;
}

/* Bit k set where byte k of w is nonzero (k = 0..3). */
__device__ __forceinline__ unsigned skss__cp_nonzero4(unsigned w) {
  const unsigned m = __vcmpne4(w, 0u); /* 0xff per nonzero byte */
  return ((m >> 7) & 1u) | ((m >> 14) & 2u) | ((m >> 21) & 4u) | ((m >> 28) & 8u);
}

/* The mask flags of elements idx .. idx+E-1 (idx a multiple of E, E <= 16,
 * idx < n): bytes (`aligned`: the mask pointer is 16-byte aligned) or bits. */
template <int TEST, int E>
__device__ __forceinline__ unsigned skss__cp_mask_flags(const uint8_t *mask, long long idx, long long n,
                                                        bool aligned) {
  const unsigned valid = skss__cp_valid<E>(idx, n);
  if constexpr (TEST == SKSS__CP_MASK_BITS) {
    const long long byte = idx / 8;
    unsigned bits = mask[byte];
    if constexpr (E == 16) {
      if (idx + 8 < n) bits |= static_cast<unsigned>(mask[byte + 1]) << 8; /* the mask's last byte is ceil(n/8)-1 */
    } else {
      bits >>= idx % 8;
    }
    return bits & valid;
  } else {
    unsigned f = 0;
    if (aligned && valid == (E == 32 ? 0xffffffffu : (1u << E) - 1u)) {
      const uint8_t *p = mask + idx;
      if constexpr (E == 16) {
        const uint4 v = *reinterpret_cast<const uint4 *>(p);
        f = skss__cp_nonzero4(v.x) | skss__cp_nonzero4(v.y) << 4 | skss__cp_nonzero4(v.z) << 8 |
            skss__cp_nonzero4(v.w) << 12;
      } else if constexpr (E == 8) {
        const uint2 v = *reinterpret_cast<const uint2 *>(p);
        f = skss__cp_nonzero4(v.x) | skss__cp_nonzero4(v.y) << 4;
      } else if constexpr (E == 4) {
        f = skss__cp_nonzero4(*reinterpret_cast<const unsigned *>(p));
      } else {
        f = skss__cp_nonzero4(*reinterpret_cast<const unsigned short *>(p));
      }
      return f;
    }
#pragma unroll
    for (int e = 0; e < E; e++)
      if ((valid >> e) & 1u) f |= static_cast<unsigned>(mask[idx + e] != 0) << e;
    return f;
  }
}

/* Elements idx .. idx+E-1 of `in` (E = 16 / sizeof(UT)) as one vector:
 * one 16-byte load when `vec` (aligned, all below n), else one load per
 * valid element (the others read as 0). */
template <typename UT>
__device__ __forceinline__ uint4 skss__cp_load(const UT *in, long long idx, long long n, bool vec) {
  constexpr int E = 16 / sizeof(UT);
  if (vec) return *reinterpret_cast<const uint4 *>(in + idx);
  uint4 v = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int e = 0; e < E; e++)
    if (idx + e < n) skss__cp_set<UT>(v, e, in[idx + e]);
  return v;
}

/* The flags of the E elements of v (the valid ones; TEST is INT, F32, F64). */
template <typename UT, int TEST>
__device__ __forceinline__ unsigned skss__cp_value_flags(const uint4 &v, unsigned valid, const skss__cp_rule &r) {
  constexpr int E = 16 / sizeof(UT);
  unsigned f = 0;
#pragma unroll
  for (int e = 0; e < E; e++) f |= skss__cp_keep<UT, TEST>(skss__cp_get<UT>(v, e), r) << e;
  return f & valid;
}

/* Calls F.template operator()<UT, TEST>() for the (width, test) of `a`:
 * the 14 pairs every kernel family is instantiated for. */
template <typename F>
skss_status skss__cp_dispatch(const skss__cp_args *a, F &&f) {
  switch (a->test) {
    case SKSS__CP_F32: return f.template operator()<uint32_t, SKSS__CP_F32>();
    case SKSS__CP_F64: return f.template operator()<uint64_t, SKSS__CP_F64>();
    default: break;
  }
#define SKSS__CP_WIDTHS(TEST)                                                     \
  switch (a->width) {                                                              \
    case 1: return f.template operator()<uint8_t, TEST>();                         \
    case 2: return f.template operator()<uint16_t, TEST>();                        \
    case 4: return f.template operator()<uint32_t, TEST>();                        \
    default: return f.template operator()<uint64_t, TEST>();                       \
  }
  if (a->test == SKSS__CP_MASK_BYTES) SKSS__CP_WIDTHS(SKSS__CP_MASK_BYTES)
  if (a->test == SKSS__CP_MASK_BITS) SKSS__CP_WIDTHS(SKSS__CP_MASK_BITS)
  SKSS__CP_WIDTHS(SKSS__CP_INT)
#undef SKSS__CP_WIDTHS
}

#endif
