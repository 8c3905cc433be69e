/*
 * warp_scan.cuh — the scans and collectives of one warp, one value a lane,
 * written once for every CUDA kernel: the Kogge-Stone and Ladner-Fischer
 * inclusive scans as in Chen, Wahib, Takizawa, Takano, Matsuoka, "Efficient
 * Algorithms for the Summed Area Tables Primitive on GPUs" (sec. III-C2,
 * algs. 3 and 4), the shift that turns an inclusive scan into an exclusive
 * one, the tree and butterfly reductions, and the broadcast of one lane.
 * Users: the SAT kernels (sat/sat_onepass.cu, sat_regcache.cu,
 * sat_taskarray.cu, sat_hmm.cu), the halftone strip engine
 * (halftone/halftone_wavefront.cuh).
 */
#ifndef SKSS_CUDA_WARP_SCAN_CUH
#define SKSS_CUDA_WARP_SCAN_CUH

namespace skss_warp {

constexpr int WIDTH = 32;
/* Every function here is called by all 32 lanes of the warp at once (the
 * callers' control flow is warp-uniform there), so every shuffle names the
 * whole warp. */
constexpr unsigned FULL_MASK = 0xffffffffu;

/* The default operator; any other must be associative and commutative. */
struct plus {
  template <typename T>
  __device__ __forceinline__ T operator()(T a, T b) const {
    return a + b;
  }
};

/* Kogge-Stone inclusive scan (alg. 3): log2 32 steps, lane l adds lane l - d
 * when l >= d (the paper prints l > d, which drops terms). */
struct kogge_stone {
  template <typename T, typename Op = plus>
  static __device__ __forceinline__ T scan(T v, int lane, Op op = Op()) {
#pragma unroll
    for (int d = 1; d < WIDTH; d <<= 1) {
      const T up = __shfl_up_sync(FULL_MASK, v, d); /* all lanes: see FULL_MASK */
      if (lane >= d) v = op(v, up);
    }
    return v;
  }
};

/* Ladner-Fischer inclusive scan (alg. 4): at step d every lane of the upper
 * half of a 2d-wide segment adds the lower half's total, read from lane
 * d - 1 of its segment. */
struct ladner_fischer {
  template <typename T, typename Op = plus>
  static __device__ __forceinline__ T scan(T v, int lane, Op op = Op()) {
#pragma unroll
    for (int d = 1; d < WIDTH; d <<= 1) {
      const T low = __shfl_sync(FULL_MASK, v, d - 1, 2 * d); /* all lanes: see FULL_MASK */
      if (lane & d) v = op(v, low);
    }
    return v;
  }
};

/* Lane l gets lane l - d's v; lanes below d get their own v back, which
 * their callers replace or ignore. With d = 1 on an inclusive scan: the
 * exclusive scan of lanes 1 to 31, lane 0 taking the identity or a carry
 * (never inclusive minus own term, which would cancel in floating point). */
template <typename T>
__device__ __forceinline__ T from_below(T v, int d) {
  return __shfl_up_sync(FULL_MASK, v, d); /* all lanes: see FULL_MASK */
}

/* Every lane gets lane `src`'s v. */
template <typename T>
__device__ __forceinline__ T broadcast(T v, int src) {
  return __shfl_sync(FULL_MASK, v, src); /* all lanes: see FULL_MASK */
}

/* The warp's total in lane 0 (a tree: lane l adds lane l + d, d = 16 .. 1);
 * the other lanes hold partial sums. */
template <typename T, typename Op = plus>
__device__ __forceinline__ T reduce_to_lane0(T v, Op op = Op()) {
#pragma unroll
  for (int d = WIDTH / 2; d > 0; d /= 2)
    v = op(v, __shfl_down_sync(FULL_MASK, v, d)); /* all lanes: see FULL_MASK */
  return v;
}

/* The warp's total in every lane (a butterfly: lane l adds lane l ^ d). */
template <typename T, typename Op = plus>
__device__ __forceinline__ T reduce_all(T v, Op op = Op()) {
#pragma unroll
  for (int d = WIDTH / 2; d > 0; d >>= 1)
    v = op(v, __shfl_xor_sync(FULL_MASK, v, d)); /* all lanes: see FULL_MASK */
  return v;
}

} /* namespace skss_warp */

#endif
