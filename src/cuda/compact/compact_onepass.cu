/*
 * compact_onepass.cu — SKSS_COMPACT_ALGORITHM_ONEPASS (ours): stream compaction in one pass,
 * each element read once and each kept element written once; a tile's output offset comes
 * from earlier tiles by decoupled look-back (Merrill & Garland's single-pass scan, our code).
 * A block takes the next tile by ticket. Warp w owns VPT chunks of 32 x 16 bytes, lane l the
 * l-th 16-byte vector of each. The block loads its whole tile into registers (a mask first,
 * then the payload only of vectors with a kept element), counts each chunk by a warp scan,
 * one warp scans the warps' totals, publishes the tile's count, looks back, publishes its
 * prefix; then each warp stages a chunk's kept elements in shared memory and writes them
 * out coalesced. The last tile writes *count. In place is safe: docs/algorithms/compact.md.
 */
#include <climits>

#include <cuda/atomic>

#include "../tuning.h"
#include "../warp_scan.cuh"
#include "compact_cuda.cuh"

namespace {

/* Threads a block and 16-byte vectors a thread, per element width (tuning.h). */
template <int BYTES>
struct shape;
template <>
struct shape<1> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_1B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_1B;
};
template <>
struct shape<2> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_2B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_2B;
};
template <>
struct shape<4> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_4B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_4B;
};
template <>
struct shape<8> {
  static constexpr int THREADS = SKSS_CUDA_COMPACT_ONEPASS_THREADS_8B, VPT = SKSS_CUDA_COMPACT_ONEPASS_VECTORS_8B;
};

struct onepass_params {
  const void *in;
  const uint8_t *mask;
  void *values;
  long long *indices, *count;
  long long n, tiles;
  skss__cp_rule rule;
  skss__cp_status st;
  bool vec_in, vec_mask, in_place;
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

/* The number of elements kept by tiles 0 .. t-1 (t > 0), by the whole warp:
 * lane l reads tile top - l, the window waits until each of its 32 tiles
 * has published, then adds counts up to the nearest inclusive prefix; with
 * none in the window it moves 32 tiles back. */
__device__ long long look_back(const onepass_params &p, long long t, int lane) {
  long long sum = 0;
  unsigned ns = SKSS_CUDA_COMPACT_SPIN_NS_MIN;
  for (long long top = t - 1;; top -= 32) {
    const long long j = top - lane;
    u64 kind = SKSS__CP_INCLUSIVE, value = 0; /* before tile 0: nothing kept */
    for (;;) {
      if (j >= 0) {
        const u64 w = status_load(p.st.words + j);
        kind = (w >> SKSS__CP_EPOCH_SHIFT) == p.st.epoch ? (w >> SKSS__CP_KIND_SHIFT) & 3u : 0u;
        value = w & SKSS__CP_VALUE_MASK;
      }
      if (__all_sync(skss_warp::FULL_MASK, kind != 0)) break;
      /* spin-wait: every tile before t holds an earlier ticket, so its block runs and will publish */
      __nanosleep(ns);
      ns = ns < SKSS_CUDA_COMPACT_SPIN_NS_MAX ? 2 * ns : ns;
    }
    const unsigned inclusive = __ballot_sync(skss_warp::FULL_MASK, kind == SKSS__CP_INCLUSIVE);
    const int stop = inclusive != 0 ? __ffs(inclusive) - 1 : 31;
    sum += skss_warp::reduce_all<long long>(lane <= stop ? static_cast<long long>(value) : 0ll);
    if (inclusive != 0) return sum;
  }
}

template <typename UT, int TEST>
__global__ void __launch_bounds__(shape<sizeof(UT)>::THREADS) onepass_kernel(const onepass_params p) {
  constexpr int THREADS = shape<sizeof(UT)>::THREADS, VPT = shape<sizeof(UT)>::VPT, WARPS = THREADS / 32;
  constexpr int E = 16 / sizeof(UT), CHUNK = 32 * E, SEG = VPT * CHUNK;
  constexpr long long TILE = static_cast<long long>(WARPS) * SEG;
  constexpr bool MASK = TEST == SKSS__CP_MASK_BYTES || TEST == SKSS__CP_MASK_BITS;
  static_assert(VPT * CHUNK < 65536 && CHUNK <= 65536, "chunk positions are 16-bit");
  __shared__ UT s_vals[WARPS][CHUNK];
  __shared__ unsigned short s_pos[WARPS][CHUNK];
  __shared__ unsigned s_warp_total[WARPS];
  __shared__ long long s_warp_excl[WARPS];
  __shared__ long long s_tile, s_prefix;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  /* relaxed: the ticket only orders tiles by start; counts travel in the status words */
  if (threadIdx.x == 0) s_tile = static_cast<long long>(atomicAdd(p.st.ticket, 1ull) - p.st.ticket_base);
  /* the ticket is in shared memory */
  __syncthreads();
  const long long t = s_tile, n = p.n;
  const long long seg = t * TILE + static_cast<long long>(warp) * SEG;
  const bool vec = p.vec_in && (t + 1) * TILE <= n;
  const UT *in = static_cast<const UT *>(p.in);
  const bool want_values = p.values != nullptr, want_indices = p.indices != nullptr;

  /* the whole tile into registers, with each vector's flags */
  uint4 v[VPT];
  unsigned fl[VPT];
#pragma unroll
  for (int j = 0; j < VPT; j++) {
    const long long idx = seg + static_cast<long long>(j) * CHUNK + lane * E;
    v[j] = make_uint4(0, 0, 0, 0);
    if constexpr (MASK) {
      fl[j] = idx < n ? skss__cp_mask_flags<TEST, E>(p.mask, idx, n, p.vec_mask) : 0u;
      /* flags before payload: a vector with nothing kept is never read */
      if (want_values && fl[j] != 0) v[j] = skss__cp_load<UT>(in, idx, n, vec);
    } else {
      v[j] = skss__cp_load<UT>(in, idx, n, vec);
      fl[j] = skss__cp_value_flags<UT, TEST>(v[j], skss__cp_valid<E>(idx, n), p.rule);
    }
  }
  /* each chunk's count and this lane's place in it: two chunks a scan, in 16-bit halves */
  unsigned lp[VPT], ct[VPT], warp_total = 0;
#pragma unroll
  for (int j = 0; j < VPT; j += 2) {
    const unsigned c0 = __popc(fl[j]), c1 = j + 1 < VPT ? __popc(fl[j + 1]) : 0u;
    const unsigned packed = c0 | c1 << 16;
    const unsigned incl = skss_warp::kogge_stone::scan(packed, lane);
    const unsigned excl = incl - packed, total = skss_warp::broadcast(incl, 31);
    lp[j] = excl & 0xffffu;
    ct[j] = total & 0xffffu;
    if (j + 1 < VPT) {
      lp[j + 1] = excl >> 16;
      ct[j + 1] = total >> 16;
    }
  }
#pragma unroll
  for (int j = 0; j < VPT; j++) warp_total += ct[j];
  if (lane == 0) s_warp_total[warp] = warp_total;
  /* in place: this thread's loads are performed before the tile publishes (later tiles write over them) */
  if (p.in_place) __threadfence();
  /* the warps' totals are in shared memory, and every load of the tile is done */
  __syncthreads();

  if (warp == 0) {
    const unsigned x = lane < WARPS ? s_warp_total[lane] : 0u;
    const unsigned incl = skss_warp::kogge_stone::scan(x, lane);
    if (lane < WARPS) s_warp_excl[lane] = incl - x;
    const long long aggregate = skss_warp::broadcast(incl, 31);
    long long prefix = 0;
    /* in place: release, so that a tile which sees this status word also sees our loads done */
    if (p.in_place && lane == 0) __threadfence();
    if (t == 0) {
      if (lane == 0) status_put(p, t, SKSS__CP_INCLUSIVE, aggregate);
    } else {
      if (lane == 0) status_put(p, t, SKSS__CP_AGGREGATE, aggregate);
      prefix = look_back(p, t, lane);
      /* in place: acquire, so our writes follow the loads of every tile counted */
      if (p.in_place) __threadfence();
      if (lane == 0) status_put(p, t, SKSS__CP_INCLUSIVE, prefix + aggregate);
    }
    if (lane == 0) {
      s_prefix = prefix;
      if (t == p.tiles - 1) *p.count = prefix + aggregate;
    }
  }
  /* the tile's prefix and the warps' offsets are in shared memory */
  __syncthreads();
  if (!want_values && !want_indices) return;

  long long out = s_prefix + s_warp_excl[warp];
  UT *values = static_cast<UT *>(p.values);
#pragma unroll
  for (int j = 0; j < VPT; j++) {
    unsigned r = lp[j];
#pragma unroll
    for (int e = 0; e < E; e++) {
      if ((fl[j] >> e) & 1u) {
        if (want_values) s_vals[warp][r] = skss__cp_get<UT>(v[j], e);
        if (want_indices) s_pos[warp][r] = static_cast<unsigned short>(lane * E + e);
        r++;
      }
    }
    /* the chunk's kept elements are staged: each lane now writes others' */
    __syncwarp();
    const long long chunk = seg + static_cast<long long>(j) * CHUNK;
    for (unsigned i = lane; i < ct[j]; i += 32) {
      if (want_values) values[out + i] = s_vals[warp][i];
      if (want_indices) p.indices[out + i] = chunk + s_pos[warp][i];
    }
    out += ct[j];
    /* every lane has read the stage before the next chunk overwrites it */
    __syncwarp();
  }
}

struct launch {
  skss_ctx *ctx;
  const char *fn;
  const skss__cp_args *a;
  template <typename UT, int TEST>
  skss_status operator()() const {
    typedef shape<sizeof(UT)> S;
    constexpr long long TILE = static_cast<long long>(S::THREADS / 32) * S::VPT * 32 * (16 / sizeof(UT));
    const long long tiles = (a->n + TILE - 1) / TILE;
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
    p.in_place = a->values != nullptr && a->values == a->in;
    skss_status st = skss__cp_status_take(ctx, fn, static_cast<size_t>(tiles), static_cast<unsigned long long>(tiles),
                                          &p.st);
    if (st != SKSS_OK) return st;
    onepass_kernel<UT, TEST><<<static_cast<unsigned>(tiles), S::THREADS, 0, skss__cuda(ctx)->stream>>>(p);
    if (cudaPeekAtLastError() != cudaSuccess) skss__cp_status_abandon(ctx);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    return SKSS_OK;
  }
};

}  // namespace

skss_status skss__cp_onepass(skss_ctx *ctx, const char *fn, const skss__cp_args *a) {
  return skss__cp_dispatch(a, launch{ctx, fn, a});
}
