/*
 * compact_onepass.cu — SKSS_COMPACT_ALGORITHM_ONEPASS (ours): stream compaction in one pass,
 * each element read once and each kept element written once; a tile's output offset comes
 * from earlier tiles by decoupled look-back (Merrill & Garland's single-pass scan, our code).
 * Blocks (as many as the SMs hold) take tiles by ticket, the next as a tile starts. Warp w
 * owns VPT chunks of 32 x 16 bytes, lane l the l-th 16-byte vector of each. The block loads its
 * whole tile into registers (a mask first, then the payload only of vectors with a kept
 * element) and counts each chunk by a warp scan; after one barrier every warp scans the warps'
 * totals itself, warp 0 publishes the tile's count, every warp stages its kept elements
 * (values and/or 16-bit positions) compacted in shared memory at their place in the tile, and
 * warp 0 looks back meanwhile (over its group of 32 tiles, then over whole groups, whose
 * counts the tiles add up by atomics) and publishes the tile's prefix. After a second barrier the
 * block writes the tile's kept elements as one contiguous run, with 16-byte stores between an
 * unaligned head and tail. The last tile writes *count. In place is safe:
 * docs/algorithms/compact.md.
 */
#include <climits>

#include <cuda/atomic>

#include "../tuning.h"
#include "../warp_scan.cuh"
#include "compact_cuda.cuh"

namespace {

/* Threads a block, 16-byte vectors a thread and blocks an SM the registers
 * are capped for, per element width (tuning.h). */
template <int BYTES>
struct shape;
template <>
struct shape<1> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_1B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_1B,
                       BLOCKS = SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_1B;
};
template <>
struct shape<2> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_2B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_2B,
                       BLOCKS = SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_2B;
};
template <>
struct shape<4> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_4B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_4B,
                       BLOCKS = SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_4B;
};
template <>
struct shape<8> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_8B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_8B,
                       BLOCKS = SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_8B;
};

/* A tile of UT and its shared memory: the staged values (with 16 bytes
 * past them that the shifted vector reads may touch), then the positions. */
template <typename UT>
struct geometry {
  typedef shape<sizeof(UT)> S;
  static constexpr int THREADS = S::THREADS, VPT = S::VPT, WARPS = THREADS / 32;
  static constexpr int E = 16 / sizeof(UT), CHUNK = 32 * E, SEG = VPT * CHUNK, TILE = WARPS * SEG;
  static constexpr int VALUE_BYTES = TILE * static_cast<int>(sizeof(UT)) + 16, POS_BYTES = TILE * 2;
  static_assert(THREADS % 32 == 0 && WARPS <= 32, "whole warps, one warp scans their totals");
  static_assert(TILE <= 65536, "positions in a tile are 16-bit");
  static_assert(VALUE_BYTES % 16 == 0, "the positions start 16-byte aligned");
  static size_t smem(bool values, bool indices) {
    return (values ? static_cast<size_t>(VALUE_BYTES) : 0) + (indices ? static_cast<size_t>(POS_BYTES) : 0);
  }
};

struct onepass_params {
  const void *in;
  const uint8_t *mask;
  void *values;
  long long *indices, *count;
  long long n, tiles;
  skss__cp_rule rule;
  skss__cp_status st;
  bool vec_in, vec_mask, vec_values, vec_indices, in_place;
};

typedef unsigned long long u64;

__device__ __forceinline__ u64 status_load(u64 *w) {
  return cuda::atomic_ref<u64, cuda::thread_scope_device>(*w).load(cuda::memory_order_relaxed);
}

/* A status word carries its whole message (epoch, kind, value) and is
 * single-copy atomic, so relaxed stores and loads suffice for the counts;
 * in place, fences around them order the tiles' reads before later writes. */
__device__ __forceinline__ void status_put(const onepass_params &p, long long tile, u64 kind, long long value) {
  const u64 w = static_cast<u64>(p.st.epoch) << SKSS__CP_EPOCH_SHIFT | kind << SKSS__CP_KIND_SHIFT |
                static_cast<u64>(value);
  cuda::atomic_ref<u64, cuda::thread_scope_device>(p.st.words[tile]).store(w, cuda::memory_order_relaxed);
}

/* The next tile by ticket (this call's tickets count from ticket_base).
 * Relaxed: the ticket only orders tiles by start; counts travel in the
 * status words. */
__device__ __forceinline__ long long take_ticket(const onepass_params &p) {
  return static_cast<long long>(atomicAdd(p.st.ticket, 1ull) - p.st.ticket_base);
}

/* Which of a window's words have published, and what (kind 0: not yet). */
struct published {
  u64 kind, value;
};

/* Tile j's status word as this call sees it. */
__device__ __forceinline__ published tile_status(const onepass_params &p, long long j) {
  const u64 w = status_load(p.st.words + j);
  const bool ours = (w >> SKSS__CP_EPOCH_SHIFT) == p.st.epoch;
  return {ours ? (w >> SKSS__CP_KIND_SHIFT) & 3u : 0u, w & SKSS__CP_VALUE_MASK};
}

/* Group h (< the caller's): inclusive once its last tile has its prefix
 * (a status word after the tiles'), else its total once all its tiles have
 * added their counts. Both loads are issued before either is looked at. */
__device__ __forceinline__ published group_status(const onepass_params &p, long long h) {
  const u64 w = status_load(p.st.words + p.tiles + h), c = status_load(p.st.group_counts + h);
  if (SKSS_CUDA_COMPACT_ONEPASS_GROUP_WORDS && (w >> SKSS__CP_EPOCH_SHIFT) == p.st.epoch &&
      ((w >> SKSS__CP_KIND_SHIFT) & 3u) == SKSS__CP_INCLUSIVE)
    return {SKSS__CP_INCLUSIVE, w & SKSS__CP_VALUE_MASK};
  const bool whole = SKSS_CUDA_COMPACT_ONEPASS_GROUP_COUNTS && (c >> SKSS__CP_GROUP_COUNT_SHIFT) == SKSS__CP_GROUP;
  return {whole ? SKSS__CP_AGGREGATE : 0u, c & ((1ull << SKSS__CP_GROUP_COUNT_SHIFT) - 1)};
}

/* The sum of a window's values from lane 0 up to its nearest inclusive
 * lane (all 32 without one), once every lane has published; `found` says
 * whether an inclusive lane ended it. Lane l's word comes from at(l). */
template <typename At>
__device__ __forceinline__ long long window_sum(At at, int lane, bool *found) {
  unsigned ns = SKSS_CUDA_COMPACT_SPIN_NS_MIN;
  published s;
  for (;;) {
    s = at(lane);
    if (__all_sync(skss_warp::FULL_MASK, s.kind != 0)) break;
    /* spin-wait: every tile before ours holds an earlier ticket, so its block runs and will publish */
    __nanosleep(ns);
    ns = ns < SKSS_CUDA_COMPACT_SPIN_NS_MAX ? 2 * ns : ns;
  }
  const unsigned inclusive = __ballot_sync(skss_warp::FULL_MASK, s.kind == SKSS__CP_INCLUSIVE);
  const int stop = inclusive != 0 ? __ffs(inclusive) - 1 : 31;
  *found = inclusive != 0;
  return skss_warp::reduce_all<long long>(lane <= stop ? static_cast<long long>(s.value) : 0ll);
}

static_assert(SKSS__CP_GROUP == 32, "a window of 32 lanes covers a group's tiles, then 32 groups");
static_assert(SKSS_CUDA_COMPACT_ONEPASS_GROUP_WORDS || SKSS_CUDA_COMPACT_ONEPASS_GROUP_COUNTS,
              "a group must count by its prefix or by its counter");
static_assert(SKSS__CP_GROUP * 65536ll < 1ll << SKSS__CP_GROUP_COUNT_SHIFT, "a group's count fits below its tiles");

/* The number of elements kept by tiles 0 .. t-1 (t > 0), by the whole warp,
 * in two levels: the tiles of t's group before t (lane l reads tile t-1-l)
 * down to the nearest inclusive prefix; without one, whole groups, 32 a
 * window (lane l of a window at h reads group h-l), down to the nearest
 * group with an inclusive prefix. A walk over tiles would cover the tiles
 * in flight, about one a block, 32 an L2 round trip. */
__device__ long long look_back(const onepass_params &p, long long t, int lane) {
  const long long first = t / SKSS__CP_GROUP * SKSS__CP_GROUP;
  bool found;
  /* lanes past the group's first tile count nothing; tile 0 is inclusive, so group 0 ends here */
  long long sum = window_sum(
      [&](int l) {
        const long long j = t - 1 - l;
        return j >= first ? tile_status(p, j) : published{SKSS__CP_AGGREGATE, 0};
      },
      lane, &found);
  for (long long top = first / SKSS__CP_GROUP - 1; !found; top -= 32)
    sum += window_sum(
        [&](int l) {
          const long long h = top - l;
          return h >= 0 ? group_status(p, h) : published{SKSS__CP_INCLUSIVE, 0}; /* before group 0: nothing */
        },
        lane, &found);
  return sum;
}

/* The mask flags of elements idx .. idx+E-1, all below n: bits, or bytes
 * from a 16-byte-aligned mask (one load, no branch). */
template <int TEST, int E>
__device__ __forceinline__ unsigned full_mask_flags(const uint8_t *mask, long long idx) {
  if constexpr (TEST == SKSS__CP_MASK_BITS) {
    const long long byte = idx / 8;
    if constexpr (E == 16) return mask[byte] | static_cast<unsigned>(mask[byte + 1]) << 8;
    else return (static_cast<unsigned>(mask[byte]) >> (idx % 8)) & ((1u << E) - 1u);
  } else {
    const uint8_t *q = mask + idx;
    if constexpr (E == 16) {
      const uint4 w = *reinterpret_cast<const uint4 *>(q);
      return skss__cp_nonzero4(w.x) | skss__cp_nonzero4(w.y) << 4 | skss__cp_nonzero4(w.z) << 8 |
             skss__cp_nonzero4(w.w) << 12;
    } else if constexpr (E == 8) {
      const uint2 w = *reinterpret_cast<const uint2 *>(q);
      return skss__cp_nonzero4(w.x) | skss__cp_nonzero4(w.y) << 4;
    } else if constexpr (E == 4) {
      return skss__cp_nonzero4(*reinterpret_cast<const unsigned *>(q));
    } else {
      return skss__cp_nonzero4(*reinterpret_cast<const unsigned short *>(q));
    }
  }
}

/* Bytes r .. r+15 of the 32 bytes a, b (r < 16; a multiple of S, the element width). */
template <int S>
__device__ __forceinline__ uint4 bytes_at(const uint4 &a, const uint4 &b, unsigned r) {
  unsigned w0 = a.x, w1 = a.y, w2 = a.z, w3 = a.w, w4 = b.x, w5 = b.y, w6 = b.z, w7 = b.w;
  if (r & 8u) {
    w0 = w2;
    w1 = w3;
    w2 = w4;
    w3 = w5;
    w4 = w6;
    w5 = w7;
  }
  if constexpr (S < 8) {
    if (r & 4u) {
      w0 = w1;
      w1 = w2;
      w2 = w3;
      w3 = w4;
      w4 = w5;
    }
  }
  if constexpr (S < 4) {
    const unsigned sh = 8 * (r & 3u);
    return make_uint4(__funnelshift_r(w0, w1, sh), __funnelshift_r(w1, w2, sh), __funnelshift_r(w2, w3, sh),
                      __funnelshift_r(w3, w4, sh));
  } else {
    return make_uint4(w0, w1, w2, w3);
  }
}

/* The first `count` staged values to out[0 ..]: 16-byte stores from the
 * first 16-byte-aligned slot (`vec`: out is aligned to its element), the
 * head before it and the tail after the last whole vector one by one. */
template <typename UT, int THREADS>
__device__ __forceinline__ void write_values(UT *out, const UT *stage, unsigned count, bool vec) {
  constexpr int S = sizeof(UT), E = 16 / S;
  unsigned head = count;
  if (vec) {
    const unsigned a = static_cast<unsigned>(reinterpret_cast<uintptr_t>(out) % 16);
    head = min(count, (16u - a) % 16u / S);
  }
  const unsigned body = (count - head) / E, tail = head + body * E;
  for (unsigned i = threadIdx.x; i < head; i += THREADS) out[i] = stage[i];
  for (unsigned i = tail + threadIdx.x; i < count; i += THREADS) out[i] = stage[i];
  /* vector i is staged at bytes first + 16 i: two aligned shared loads and a shift */
  const unsigned first = head * S, r = first % 16;
  const uint4 *sv = reinterpret_cast<const uint4 *>(stage) + first / 16;
  uint4 *ov = reinterpret_cast<uint4 *>(out + head);
#pragma unroll 2 /* more holds more registers than the loads before it (spills at 40) */
  for (unsigned i = threadIdx.x; i < body; i += THREADS) {
    const uint4 a = sv[i];
    ov[i] = r == 0 ? a : bytes_at<S>(a, sv[i + 1], r);
  }
}

/* The indices of the first `count` staged positions (tile offsets from
 * base) to out[0 ..], in pairs of 16 bytes from the first aligned slot. */
template <int THREADS>
__device__ __forceinline__ void write_indices(long long *out, const unsigned short *pos, long long base,
                                              unsigned count, bool vec) {
  unsigned head = count;
  if (vec) head = min(count, reinterpret_cast<uintptr_t>(out) % 16 != 0 ? 1u : 0u);
  const unsigned pairs = (count - head) / 2, tail = head + 2 * pairs;
  for (unsigned i = threadIdx.x; i < head; i += THREADS) out[i] = base + pos[i];
  for (unsigned i = tail + threadIdx.x; i < count; i += THREADS) out[i] = base + pos[i];
  longlong2 *ov = reinterpret_cast<longlong2 *>(out + head);
#pragma unroll 2
  for (unsigned i = threadIdx.x; i < pairs; i += THREADS)
    ov[i] = make_longlong2(base + pos[head + 2 * i], base + pos[head + 2 * i + 1]);
}

template <typename UT, int TEST>
__global__ void __launch_bounds__(shape<sizeof(UT)>::THREADS, shape<sizeof(UT)>::BLOCKS)
    onepass_kernel(const onepass_params p) {
  typedef geometry<UT> G;
  constexpr int VPT = G::VPT, WARPS = G::WARPS, E = G::E, CHUNK = G::CHUNK, SEG = G::SEG;
  constexpr long long TILE = G::TILE;
  constexpr bool MASK = TEST == SKSS__CP_MASK_BYTES || TEST == SKSS__CP_MASK_BITS;
  extern __shared__ uint4 s_stage[]; /* geometry<UT>::smem(values wanted, indices wanted) bytes */
  __shared__ unsigned s_warp_total[WARPS];
  __shared__ long long s_tile[2], s_prefix;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const long long n = p.n;
  if (threadIdx.x == 0) s_tile[0] = take_ticket(p);
  /* the first ticket is in shared memory */
  __syncthreads();
  /* tiles in ticket order until the tickets run past the last tile; the
   * next ticket is taken as a tile starts and stored in shared memory once
   * the tile's loads are issued, so its latency hides behind theirs */
  for (int buf = 0;; buf ^= 1) {
    const long long t = s_tile[buf];
    if (t >= p.tiles) return;
    /* the next ticket, issued before the loads (s_tile[buf ^ 1] was read as the last tile began) */
    long long next = 0;
    if (threadIdx.x == 0) next = take_ticket(p);
    const long long seg = t * TILE + static_cast<long long>(warp) * SEG;
    const bool full = (t + 1) * TILE <= n, vec = p.vec_in && full;
    const UT *in = static_cast<const UT *>(p.in);
    const bool want_values = p.values != nullptr, want_indices = p.indices != nullptr;

    /* the whole tile into registers, with each vector's flags: the loads of a
     * loop are independent and branch-free, so all of them are in flight at once */
    uint4 v[VPT];
    unsigned fl[VPT];
    const long long first = seg + lane * E;
    if constexpr (MASK) {
      if (full && (TEST == SKSS__CP_MASK_BITS || p.vec_mask)) {
#pragma unroll
        for (int j = 0; j < VPT; j++) fl[j] = full_mask_flags<TEST, E>(p.mask, first + j * CHUNK);
      } else {
#pragma unroll
        for (int j = 0; j < VPT; j++) {
          const long long idx = first + j * CHUNK;
          fl[j] = idx < n ? skss__cp_mask_flags<TEST, E>(p.mask, idx, n, p.vec_mask) : 0u;
        }
      }
      /* flags before payload: a vector with nothing kept is never read */
#pragma unroll
      for (int j = 0; j < VPT; j++) v[j] = make_uint4(0, 0, 0, 0);
      if (want_values && vec) {
#pragma unroll
        for (int j = 0; j < VPT; j++)
          if (fl[j] != 0) v[j] = *reinterpret_cast<const uint4 *>(in + first + j * CHUNK);
      } else if (want_values) {
#pragma unroll
        for (int j = 0; j < VPT; j++)
          if (fl[j] != 0) v[j] = skss__cp_load<UT>(in, first + j * CHUNK, n, false);
      }
      if (threadIdx.x == 0) s_tile[buf ^ 1] = next;
    } else {
      if (vec) {
#pragma unroll
        for (int j = 0; j < VPT; j++) v[j] = *reinterpret_cast<const uint4 *>(in + first + j * CHUNK);
      } else {
#pragma unroll
        for (int j = 0; j < VPT; j++) v[j] = skss__cp_load<UT>(in, first + j * CHUNK, n, false);
      }
      /* stored here, not held: the atomic returns as the loads do */
      if (threadIdx.x == 0) s_tile[buf ^ 1] = next;
#pragma unroll
      for (int j = 0; j < VPT; j++)
        fl[j] = skss__cp_value_flags<UT, TEST>(v[j], skss__cp_valid<E>(first + j * CHUNK, n), p.rule);
    }
    /* each lane's place among its warp's kept elements (chunk by chunk, lane
     * by lane): two chunks a scan, in 16-bit halves */
    unsigned place[VPT], warp_total = 0;
#pragma unroll
    for (int j = 0; j < VPT; j += 2) {
      const unsigned c0 = __popc(fl[j]), c1 = j + 1 < VPT ? __popc(fl[j + 1]) : 0u;
      const unsigned packed = c0 | c1 << 16;
      const unsigned incl = skss_warp::kogge_stone::scan(packed, lane);
      const unsigned excl = incl - packed, total = skss_warp::broadcast(incl, 31);
      place[j] = warp_total + (excl & 0xffffu);
      warp_total += total & 0xffffu;
      if (j + 1 < VPT) {
        place[j + 1] = warp_total + (excl >> 16);
        warp_total += total >> 16;
      }
    }
    if (lane == 0) s_warp_total[warp] = warp_total;
    /* in place: this thread's loads are performed before the tile publishes (later tiles write over them) */
    if (p.in_place) __threadfence();
    /* the warps' totals are in shared memory, and every load of the tile is done */
    __syncthreads();

    /* every warp: its offset in the tile, and the tile's count */
    const unsigned x = lane < WARPS ? s_warp_total[lane] : 0u;
    const unsigned incl = skss_warp::kogge_stone::scan(x, lane);
    const unsigned warp_excl = skss_warp::broadcast(incl - x, warp);
    const unsigned aggregate = skss_warp::broadcast(incl, 31);
    if (warp == 0 && lane == 0) {
      /* in place: release, so that a tile which sees this status word or the group's count also sees our loads done */
      if (p.in_place) __threadfence();
      status_put(p, t, t == 0 ? SKSS__CP_INCLUSIVE : SKSS__CP_AGGREGATE, aggregate);
      /* relaxed: a reader takes the sum only once all the group's tiles are in it */
      atomicAdd(p.st.group_counts + t / SKSS__CP_GROUP, 1ull << SKSS__CP_GROUP_COUNT_SHIFT | aggregate);
    }

    /* stage the kept elements at their place in the tile while warp 0 looks back;
     * element e of a vector goes after the vector's kept elements below it */
    const bool stage = want_values || want_indices;
    UT *s_vals = reinterpret_cast<UT *>(s_stage);
    unsigned short *s_pos =
        reinterpret_cast<unsigned short *>(reinterpret_cast<uint8_t *>(s_stage) + (want_values ? G::VALUE_BYTES : 0));
    if (stage) {
#pragma unroll
      for (int j = 0; j < VPT; j++) {
        const unsigned at = warp_excl + place[j];
        const unsigned pos = static_cast<unsigned>(warp * SEG + j * CHUNK + lane * E);
#pragma unroll
        for (int e = 0; e < E; e++) {
          const unsigned slot = at + __popc(fl[j] & ((1u << e) - 1u));
          if ((fl[j] >> e) & 1u) {
            if (want_values) s_vals[slot] = skss__cp_get<UT>(v[j], e);
            if (want_indices) s_pos[slot] = static_cast<unsigned short>(pos + e);
          }
        }
      }
    }

    if (warp == 0) {
      long long prefix = 0;
      if (t > 0) {
        prefix = look_back(p, t, lane);
        /* in place: acquire, so our writes follow the loads of every tile counted; then the warp's
         * barrier and lane 0's fence, so that its prefix (which later tiles trust) also follows
         * what every lane read, not only what lane 0 read */
        if (p.in_place) {
          __threadfence();
          __syncwarp();
          if (lane == 0) __threadfence();
        }
        if (lane == 0) status_put(p, t, SKSS__CP_INCLUSIVE, prefix + aggregate);
        /* the group's last tile: the group's inclusive prefix, where later groups' walks stop */
        if (lane == 0 && t % SKSS__CP_GROUP == SKSS__CP_GROUP - 1)
          status_put(p, p.tiles + t / SKSS__CP_GROUP, SKSS__CP_INCLUSIVE, prefix + aggregate);
      }
      if (lane == 0) {
        s_prefix = prefix;
        if (t == p.tiles - 1) *p.count = prefix + aggregate;
      }
    }
    /* the tile's prefix and every staged element are in shared memory. The
     * next tile's shared stores follow this barrier (the ticket, the warps'
     * totals: read before it) or its own first one, which every thread
     * reaches only after its reads of this tile's stage and prefix */
    __syncthreads();
    const long long prefix = s_prefix;
    if (want_values)
      write_values<UT, G::THREADS>(static_cast<UT *>(p.values) + prefix, s_vals, aggregate, p.vec_values);
    if (want_indices) write_indices<G::THREADS>(p.indices + prefix, s_pos, t * TILE, aggregate, p.vec_indices);
    /* the next call's group counters, zeroed a few a tile (that call's kernel follows ours on the stream) */
    for (long long j = t * G::THREADS + threadIdx.x; j < p.st.group_capacity; j += p.tiles * G::THREADS)
      p.st.next_group_counts[j] = 0;
  }
}

struct launch {
  skss_ctx *ctx;
  const char *fn;
  const skss__cp_args *a;
  template <typename UT, int TEST>
  skss_status operator()() const {
    typedef geometry<UT> G;
    const long long tiles = (a->n + G::TILE - 1) / G::TILE;
    if (tiles > INT_MAX)
      return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: n = %lld needs %lld tiles, over the grid's limit", fn,
                        a->n, tiles);
    onepass_params p;
    p.in = a->in;
    p.mask = a->mask;
    p.values = a->values;
    p.indices = a->indices;
    p.count = a->count;
    p.n = a->n;
    p.tiles = tiles;
    p.rule = a->rule;
    p.vec_in = reinterpret_cast<uintptr_t>(a->in) % 16 == 0;
    p.vec_mask = reinterpret_cast<uintptr_t>(a->mask) % 16 == 0;
    /* 16-byte stores need outputs aligned to their element (then some slot is 16-byte aligned) */
    p.vec_values = reinterpret_cast<uintptr_t>(a->values) % sizeof(UT) == 0;
    p.vec_indices = reinterpret_cast<uintptr_t>(a->indices) % 8 == 0;
    p.in_place = a->values != nullptr && a->values == a->in;
    const size_t smem = G::smem(a->values != nullptr, a->indices != nullptr);
    /* tiles past the default 48 KB of dynamic shared memory: the limit is raised to the most a call
     * can ask (values and indices) once per device (devices 0-63), off a small call's critical path */
    static skss__cuda_per_device_once raised;
    const int dev = skss__cuda(ctx)->device;
    if (G::smem(true, true) > 48 * 1024 && raised.pending(dev)) {
      SKSS_CUDA_TRY(ctx, fn,
                    cudaFuncSetAttribute(onepass_kernel<UT, TEST>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(G::smem(true, true))));
      raised.mark(dev);
    }
    /* blocks loop over tiles by ticket: as many as the SMs hold (0: one a tile);
     * each takes one ticket past the last tile, so a call takes tiles + grid */
    long long grid = SKSS_CUDA_COMPACT_ONEPASS_PERSISTENT ? static_cast<long long>(a->device_sms) * G::S::BLOCKS : 0;
    if (grid <= 0 || grid > tiles) grid = tiles;
    /* a word a tile, then one a group (its inclusive prefix) */
    const long long groups = (tiles + SKSS__CP_GROUP - 1) / SKSS__CP_GROUP;
    skss_status st = skss__cp_status_take(ctx, fn, static_cast<size_t>(tiles + groups),
                                          static_cast<unsigned long long>(tiles + grid), &p.st);
    if (st != SKSS_OK) return st;
    onepass_kernel<UT, TEST><<<static_cast<unsigned>(grid), G::THREADS, smem, skss__cuda(ctx)->stream>>>(p);
    if (cudaPeekAtLastError() != cudaSuccess) skss__cp_status_abandon(ctx);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    return SKSS_OK;
  }
};

}  // namespace

skss_status skss__cp_onepass(skss_ctx *ctx, const char *fn, const skss__cp_args *a) {
  return skss__cp_dispatch(a, launch{ctx, fn, a});
}
