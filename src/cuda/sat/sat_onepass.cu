/*
 * sat_onepass.cu — SKSS_SAT_ONEPASS (ours): the SKSS structure of
 * skss-task-arrays.md §IV with wide tasks, so that each input element is
 * read once and each output written once, plus one boundary row per strip.
 *
 * A block of WARPS warps takes a strip of WARPS * ROWS_PER_WARP rows by
 * ticket and walks it left to right in tiles 32 * VEC columns wide; lane l
 * of every warp owns the VEC adjacent columns at l * VEC (16-byte loads and
 * stores where the pointer and pitch allow, scalar ones otherwise). Per
 * tile, each warp, independently of the strip above:
 *   - turns each of its rows into full row prefix sums (lane-local prefix,
 *     a shuffle scan of the lane totals, plus the row's running sum left of
 *     the tile, kept in registers),
 *   - accumulates them down its rows (column sums relative to the warp's
 *     first row) and puts its column totals into shared memory;
 * then thread 0 waits until the strip above has published this tile, the
 * block synchronises, and each warp adds, per column, the strip above's last
 * row (read through L2) and the column totals of the warps above it, stores
 * its rows, and thread 0 publishes the tile after a second barrier. Every
 * output is top + (sum of row prefix sums), with no subtraction.
 */
#include <climits>

#include <cuda/atomic>

#include "../taskarray.cuh"
#include "../tuning.h"
#include "sat_cuda.cuh"

static const char *const FN = "skss_sat()";

#define SKSS__OP_WARPS SKSS_CUDA_SAT_ONEPASS_WARPS
#define SKSS__OP_RPW SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP
#define SKSS__OP_VEC SKSS_CUDA_SAT_ONEPASS_VEC
#define SKSS__OP_THREADS (SKSS__OP_WARPS * 32)
#define SKSS__OP_STRIP (SKSS__OP_WARPS * SKSS__OP_RPW)
#define SKSS__OP_TILE_W (32 * SKSS__OP_VEC)
#define SKSS__OP_FULL_MASK 0xffffffffu

/* VEC adjacent elements, aligned so that one access moves them all. */
template <typename T>
struct alignas(sizeof(T) * SKSS__OP_VEC) skss__op_vec {
  T v[SKSS__OP_VEC];
};

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
    const skss__op_vec<In> in = *reinterpret_cast<const skss__op_vec<In> *>(src);
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) x[c] = skss__sat_load<In, Acc>(in.v[c], p.square);
    return;
  }
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++)
    if (c0 + c < p.width) x[c] = skss__sat_load<In, Acc>(src[c], p.square);
}

/* Stores the lane's VEC outputs of row `row` from column c0 (inside only). */
template <typename Acc>
__device__ __forceinline__ void skss__op_store_row(const skss__sat_dev_plane &p, int64_t row,
                                                   int64_t c0, bool vec_out,
                                                   const skss__op_vec<Acc> &y) {
  if (row >= p.height || c0 >= p.width) return;
  Acc *dst = reinterpret_cast<Acc *>(p.out + (size_t)row * p.out_pitch) + c0;
  if (vec_out && c0 + SKSS__OP_VEC <= p.width) {
    *reinterpret_cast<skss__op_vec<Acc> *>(dst) = y;
    return;
  }
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++)
    if (c0 + c < p.width) dst[c] = y.v[c];
}

/* Row prefix sums of the lane's VEC elements within the whole row: `left`
 * (the row's sum left of the tile, uniform) + the lanes before + the lane's
 * own prefix; `left` becomes the row's sum up to the tile's last column
 * (meaningful for full tiles, the only ones with a right neighbour). */
template <typename Acc>
__device__ __forceinline__ void skss__op_row_prefix(Acc (&x)[SKSS__OP_VEC], Acc &left) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int c = 1; c < SKSS__OP_VEC; c++) x[c] += x[c - 1];
  Acc incl = x[SKSS__OP_VEC - 1];
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const Acc y = __shfl_up_sync(SKSS__OP_FULL_MASK, incl, d);
    if (lane >= d) incl += y;
  }
  Acc before = __shfl_up_sync(SKSS__OP_FULL_MASK, incl, 1);
  const Acc base = left + (lane == 0 ? Acc(0) : before);
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) x[c] = base + x[c];
  left = __shfl_sync(SKSS__OP_FULL_MASK, x[SKSS__OP_VEC - 1], 31);
}

/* Thread 0 waits until `strip` has finished `need` tiles. */
__device__ __forceinline__ void skss__op_wait(const skss__dev_taskarray &ta, int strip, int need) {
  cuda::atomic_ref<int, cuda::thread_scope_device> prog(ta.progress[strip]);
  unsigned ns = 32;
  /* spin-wait: `strip` was ticketed before ours, so its block is running. */
  while (prog.load(cuda::memory_order_acquire) < need) {
    __nanosleep(ns);
    ns = ns < 1024 ? ns * 2 : 1024;
  }
}

/* Thread 0 publishes `done` tiles of `strip`, after a block barrier that
 * ordered every thread's stores of the tile before it. */
__device__ __forceinline__ void skss__op_publish(const skss__dev_taskarray &ta, int strip, int done) {
  /* fence: the block's stores (ordered by the barrier) reach device scope first. */
  __threadfence();
  cuda::atomic_ref<int, cuda::thread_scope_device> prog(ta.progress[strip]);
  prog.store(done, cuda::memory_order_release);
}

template <typename In, typename Acc>
__global__ void __launch_bounds__(SKSS__OP_THREADS)
    skss__sat_onepass_kernel(skss__sat_dev_plane p, skss__dev_taskarray ta, int tile_cols,
                             bool vec_in, bool vec_out) {
  /* column totals per warp; element (lane * VEC + c) at [c][lane]: no bank conflicts. */
  __shared__ Acc warp_cols[SKSS__OP_WARPS][SKSS__OP_VEC][32];
  __shared__ int strip_shared;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  for (;;) {
    /* relaxed: the ticket only orders strips; data is published by progress. */
    if (threadIdx.x == 0) strip_shared = (int)atomicAdd(ta.ticket, 1u);
    __syncthreads();
    const int strip = strip_shared; /* rewritten only after the tile loop's barriers */
    if (strip >= ta.rows) return;   /* block-uniform */
    const int64_t row0 = (int64_t)strip * SKSS__OP_STRIP + warp * SKSS__OP_RPW;
    Acc left[SKSS__OP_RPW];
#pragma unroll
    for (int k = 0; k < SKSS__OP_RPW; k++) left[k] = 0;
    for (int tj = 0; tj < tile_cols; tj++) {
      const int64_t c0 = (int64_t)tj * SKSS__OP_TILE_W + lane * SKSS__OP_VEC;
      Acc col[SKSS__OP_VEC];
      skss__op_vec<Acc> y[SKSS__OP_RPW];
#pragma unroll
      for (int c = 0; c < SKSS__OP_VEC; c++) col[c] = 0;
#pragma unroll
      for (int k = 0; k < SKSS__OP_RPW; k++) {
        Acc x[SKSS__OP_VEC];
        skss__op_load_row<In, Acc>(p, row0 + k, c0, vec_in, x);
        skss__op_row_prefix<Acc>(x, left[k]);
#pragma unroll
        for (int c = 0; c < SKSS__OP_VEC; c++) y[k].v[c] = col[c] += x[c];
      }
#pragma unroll
      for (int c = 0; c < SKSS__OP_VEC; c++) warp_cols[warp][c][lane] = col[c];
      if (threadIdx.x == 0 && strip > 0) skss__op_wait(ta, strip - 1, tj + 1);
      /* the strip above's row (acquired by thread 0) and warp_cols are visible after this. */
      __syncthreads();
      Acc top[SKSS__OP_VEC];
      const Acc *above = reinterpret_cast<const Acc *>(
          p.out + (size_t)(strip * (int64_t)SKSS__OP_STRIP - (strip > 0)) * p.out_pitch);
#pragma unroll
      for (int c = 0; c < SKSS__OP_VEC; c++)
        /* through L2: this SM's L1 may hold a stale copy of the line. */
        top[c] = strip > 0 && c0 + c < p.width ? __ldcg(above + c0 + c) : Acc(0);
#pragma unroll
      for (int w = 0; w < SKSS__OP_WARPS - 1; w++)
#pragma unroll
        for (int c = 0; c < SKSS__OP_VEC; c++)
          if (w < warp) top[c] += warp_cols[w][c][lane];
#pragma unroll
      for (int k = 0; k < SKSS__OP_RPW; k++) {
#pragma unroll
        for (int c = 0; c < SKSS__OP_VEC; c++) y[k].v[c] = top[c] + y[k].v[c];
        skss__op_store_row<Acc>(p, row0 + k, c0, vec_out, y[k]);
      }
      /* every store of the tile precedes the publish; warp_cols is free again. */
      __syncthreads();
      if (threadIdx.x == 0) skss__op_publish(ta, strip, tj + 1);
    }
  }
}

struct skss__sat_onepass_launch {
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, const skss__sat_dev_plane *plane, void *scratch, int strips,
                         int tile_cols) {
    cudaStream_t stream = skss__cuda(ctx)->stream;
    int per_sm = 0, sms = 0;
    SKSS_CUDA_TRY(ctx, FN,
                  cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, skss__sat_onepass_kernel<In, Acc>, SKSS__OP_THREADS, 0));
    SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                  skss__cuda(ctx)->device));
    const int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
    const int blocks = (int)(strips < resident ? strips : resident);
    const size_t in_vec = sizeof(In) * SKSS__OP_VEC, out_vec = sizeof(Acc) * SKSS__OP_VEC;
    const bool vec_in = (uintptr_t)plane->in % in_vec == 0 && plane->in_pitch % in_vec == 0;
    const bool vec_out = (uintptr_t)plane->out % out_vec == 0 && plane->out_pitch % out_vec == 0;
    skss__dev_taskarray ta;
    /* the counters start from zero before the kernel, in stream order. */
    SKSS_CUDA_TRY(ctx, FN, skss__dev_taskarray_reset(&ta, scratch, strips, stream));
    skss__sat_onepass_kernel<In, Acc>
        <<<blocks, SKSS__OP_THREADS, 0, stream>>>(*plane, ta, tile_cols, vec_in, vec_out);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }
};

/* The strip and tile counts; false when one does not fit an int. */
static bool onepass_counts(const skss__sat_dev_plane *plane, int *strips, int *tile_cols) {
  const int64_t s = (plane->height + SKSS__OP_STRIP - 1) / SKSS__OP_STRIP;
  const int64_t c = (plane->width + SKSS__OP_TILE_W - 1) / SKSS__OP_TILE_W;
  if (s > INT_MAX || c > INT_MAX) return false;
  *strips = (int)s;
  *tile_cols = (int)c;
  return true;
}

size_t skss__cuda_sat_onepass_scratch(skss_ctx *ctx, int algorithm,
                                      const skss__sat_dev_plane *plane) {
  (void)ctx;
  (void)algorithm;
  int strips = 0, tile_cols = 0;
  if (!onepass_counts(plane, &strips, &tile_cols)) return 0; /* the run reports it */
  return skss__dev_taskarray_bytes(strips);
}

skss_status skss__cuda_sat_onepass(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                   void *scratch) {
  (void)algorithm;
  int strips = 0, tile_cols = 0;
  if (!onepass_counts(plane, &strips, &tile_cols))
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: %lld x %lld has too many tiles", FN,
                      (long long)plane->height, (long long)plane->width);
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown SAT type pair %d", FN, (int)plane->pair);
  return skss__sat_by_pair<skss__sat_onepass_launch>(plane->pair, ctx, plane, scratch, strips,
                                                     tile_cols);
}
