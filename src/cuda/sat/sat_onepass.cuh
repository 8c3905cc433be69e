/*
 * sat_onepass.cuh — what the two layouts of SKSS_SAT_ONEPASS share
 * (sat_onepass_bands.cu: blocks walking bands of rows, the default;
 * sat_onepass_tiles.cu: one tile per block, for tables too short to give
 * every SM a band): each lane's VEC adjacent columns, loaded and stored as
 * 16-byte words where pointer and pitch allow, and the warp's scan of one
 * row of 32 * VEC columns.
 */
#ifndef SKSS_CUDA_SAT_ONEPASS_CUH
#define SKSS_CUDA_SAT_ONEPASS_CUH

#include <cstring>
#include <type_traits>

#include "../tuning.h"
#include "sat_cuda.cuh"

#define SKSS__OP_VEC SKSS_CUDA_SAT_ONEPASS_VEC
#define SKSS__OP_FULL_MASK 0xffffffffu

/* One global-memory word of `bytes` (a multiple of 4): the widest of 16, 8, 4 dividing it. */
template <size_t bytes>
using skss__op_word = typename std::conditional<
    bytes % 16 == 0, uint4, typename std::conditional<bytes % 8 == 0, uint2, unsigned>::type>::type;

/* Loads VEC elements from a pointer aligned to their total size; STREAM
 * marks the lines evict-first (data read once), else it reads through L2
 * (data another block wrote during this kernel). */
template <bool STREAM, typename T>
__device__ __forceinline__ void skss__op_load_vec(const T *src, T (&v)[SKSS__OP_VEC]) {
  constexpr size_t bytes = sizeof(T) * SKSS__OP_VEC;
  static_assert(bytes % 4 == 0, "VEC elements must fill whole 4-byte words");
  using W = skss__op_word<bytes>;
  W raw[bytes / sizeof(W)];
#pragma unroll
  for (size_t i = 0; i < bytes / sizeof(W); i++)
    raw[i] = STREAM ? __ldcs(reinterpret_cast<const W *>(src) + i)
                    : __ldcg(reinterpret_cast<const W *>(src) + i);
  memcpy(v, raw, bytes);
}

/* Stores VEC elements to a pointer aligned to their total size; STREAM as above. */
template <bool STREAM, typename T>
__device__ __forceinline__ void skss__op_store_vec(T *dst, const T (&v)[SKSS__OP_VEC]) {
  constexpr size_t bytes = sizeof(T) * SKSS__OP_VEC;
  using W = skss__op_word<bytes>;
  W raw[bytes / sizeof(W)];
  memcpy(raw, v, bytes);
#pragma unroll
  for (size_t i = 0; i < bytes / sizeof(W); i++) {
    if (STREAM)
      __stcs(reinterpret_cast<W *>(dst) + i, raw[i]);
    else
      __stcg(reinterpret_cast<W *>(dst) + i, raw[i]);
  }
}

/* The lane's VEC inputs of row `row` from column c0, converted (0 outside). */
template <typename In, typename Acc>
__device__ __forceinline__ void skss__op_load_row(const skss__sat_dev_plane &p, int64_t row,
                                                  int64_t c0, bool vec_in,
                                                  Acc (&x)[SKSS__OP_VEC]) {
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) x[c] = 0;
  if (row >= p.height || c0 >= p.width) return;
  const In *src = reinterpret_cast<const In *>(p.in + (size_t)row * p.in_pitch) + c0;
  if (vec_in && c0 + SKSS__OP_VEC <= p.width) {
    In v[SKSS__OP_VEC];
    skss__op_load_vec<true>(src, v);
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) x[c] = skss__sat_load<In, Acc>(v[c], p.square);
    return;
  }
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++)
    if (c0 + c < p.width) x[c] = skss__sat_load<In, Acc>(__ldcs(src + c), p.square);
}

/* Stores the lane's VEC outputs of row `row` from column c0 (inside only);
 * STREAM for rows no other block reads. */
template <bool STREAM, typename Acc>
__device__ __forceinline__ void skss__op_store_row(const skss__sat_dev_plane &p, int64_t row,
                                                   int64_t c0, bool vec_out,
                                                   const Acc (&y)[SKSS__OP_VEC]) {
  if (row >= p.height || c0 >= p.width) return;
  Acc *dst = reinterpret_cast<Acc *>(p.out + (size_t)row * p.out_pitch) + c0;
  if (vec_out && c0 + SKSS__OP_VEC <= p.width) {
    skss__op_store_vec<STREAM>(dst, y);
    return;
  }
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) {
    if (c0 + c >= p.width) continue;
    if (STREAM)
      __stcs(dst + c, y[c]);
    else
      __stcg(dst + c, y[c]);
  }
}

/* Scans one row within the tile: x becomes the row's prefix sums within the
 * tile (lane-local prefix plus the lanes before); returns the row's total
 * within the tile (in lane 31). */
template <typename Acc>
__device__ __forceinline__ Acc skss__op_scan_row(Acc (&x)[SKSS__OP_VEC]) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int c = 1; c < SKSS__OP_VEC; c++) x[c] += x[c - 1];
  Acc incl = x[SKSS__OP_VEC - 1];
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const Acc y = __shfl_up_sync(SKSS__OP_FULL_MASK, incl, d);
    if (lane >= d) incl += y;
  }
  const Acc before = __shfl_up_sync(SKSS__OP_FULL_MASK, incl, 1);
  if (lane > 0) {
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) x[c] = before + x[c];
  }
  return incl;
}


/* The tile layout's scratch bytes and run (sat_onepass_tiles.cu); the
 * family's entry points, which choose the layout, are in sat_onepass_bands.cu. */
size_t skss__cuda_sat_onepass_tiles_scratch(const skss__sat_dev_plane *plane);
skss_status skss__cuda_sat_onepass_tiles(skss_ctx *ctx, const skss__sat_dev_plane *plane,
                                         void *scratch);

#endif
