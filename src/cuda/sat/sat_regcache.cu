/*
 * sat_regcache.cu — the register-cache SAT algorithms of Chen, Wahib,
 * Takizawa, Takano and Matsuoka, "Efficient Algorithms for the Summed Area
 * Tables Primitive on GPUs" (section IV). Every kernel caches 32 elements
 * per thread in registers, so one warp holds a 32 x 32 tile (C = 32).
 *
 * Building blocks:
 *  - warp scans (sec. III-C2, algs. 3 and 4, in ../warp_scan.cuh):
 *    Kogge-Stone (shfl_up by 1, 2, .., 16) and Ladner-Fischer (shfl from
 *    lane d-1 of each 2d-wide segment); the scan is a template parameter,
 *    so each algorithm below exists once for both;
 *  - BRLT (alg. 5): the warp writes its tile to a 32 x 33 shared buffer row
 *    by row and reads it back column by column, so lane l then holds line l;
 *  - the block partial-sum scan (sec. IV, fig. 3c): every thread's line
 *    total goes to a WarpCount x 32 shared matrix, a warp scan over the
 *    warps gives each tile its exclusive prefix, which is added to its
 *    registers; a per-line carry in shared memory continues the scan over
 *    the block's successive steps along the line.
 *
 * Algorithms (each pass is one launch, blocks stride over 32-line strips):
 *  - BRLT-ScanRow (IV-B): a block walks a 32-row strip left to right, one
 *    32 x 32 tile per warp per step; load coalesced, BRLT, serial scan of
 *    each row in its thread (alg. 2), block partial sums, store transposed
 *    (coalesced) to a W x H scratch. Run twice (in -> scratch -> out).
 *  - ScanRow-BRLT (IV-A): as above, but the row scan is the warp scan over
 *    the lanes before the BRLT; BRLT then makes the transposed store
 *    coalesced. Run twice.
 *  - ScanRowColumn (IV-C): ScanRow, one warp per row, 32 x 32 elements per
 *    step, warp scan per 32 and a shuffled carry (fig. 4), in -> out; then
 *    ScanColumn, a block walks a 32-column strip top to bottom, one tile per
 *    warp per step, serial scan down each column in its thread and block
 *    partial sums, out -> out in place (each thread rewrites what it read).
 *
 * Departures from the paper, each the simplest correct equivalent on sm_90:
 * every warp owns its transpose buffer and syncs only itself (__syncwarp);
 * the paper shared S buffers between warps with a __syncthreads reached only
 * by some warps, which is undefined since Volta. Kogge-Stone adds when
 * lane >= d (alg. 3 prints lane > d, which would drop terms). Partial tiles
 * are loaded as zeros and stored under the H x W bounds; block counts are
 * sized for sm_90 in tuning.h. Exclusive prefixes come from a shuffle of the
 * inclusive scan (never incl - own), so floats stay sums of positive-weight
 * trees: every output is a tree sum of row prefixes that are tree sums, at
 * most i + j additions deep, which meets |err| <= (i + j + 2) u S(i, j).
 */
#include "sat_cuda.cuh"

#include "../tuning.h"
#include "../warp_scan.cuh"

namespace {

constexpr int skss__rc_c = skss_warp::WIDTH; /* tile side = warp size = registers per thread */
constexpr int64_t skss__rc_max_grid = 2147483647;
const char *const skss__rc_fn = "skss_sat()";

/* ---- one warp's 32 x 32 register tile ---- */

template <typename Acc>
using skss__rc_tile = Acc[skss__rc_c];

template <typename T>
__device__ __forceinline__ const T *skss__rc_row(const uint8_t *base, size_t pitch, int64_t row) {
  return reinterpret_cast<const T *>(base + (size_t)row * pitch);
}

template <typename T>
__device__ __forceinline__ T *skss__rc_row(uint8_t *base, size_t pitch, int64_t row) {
  return reinterpret_cast<T *>(base + (size_t)row * pitch);
}

/* data[k] = load(src[r0 + k][c0 + lane]), zero outside rows x cols. */
template <typename Src, typename Acc>
__device__ __forceinline__ void skss__rc_load(skss__rc_tile<Acc> &data, const uint8_t *src,
                                              size_t pitch, int64_t rows, int64_t cols,
                                              int64_t r0, int64_t c0, int lane, bool square) {
  const int64_t col = c0 + lane;
#pragma unroll
  for (int k = 0; k < skss__rc_c; k++) {
    const int64_t row = r0 + k;
    data[k] = row < rows && col < cols
                  ? skss__sat_load<Src, Acc>(skss__rc_row<Src>(src, pitch, row)[col], square)
                  : Acc(0);
  }
}

/* BRLT: lane l's data[k] becomes lane k's data[l]. */
template <typename Acc>
__device__ __forceinline__ void skss__rc_brlt(skss__rc_tile<Acc> &data,
                                              Acc (*buffer)[skss__rc_c + 1], int lane) {
#pragma unroll
  for (int k = 0; k < skss__rc_c; k++) buffer[k][lane] = data[k];
  __syncwarp(); /* the whole tile is in the buffer before any lane reads a column */
#pragma unroll
  for (int k = 0; k < skss__rc_c; k++) data[k] = buffer[lane][k];
  __syncwarp(); /* every lane has read before the next tile overwrites the buffer */
}

template <typename Acc>
__device__ __forceinline__ void skss__rc_serial_scan(skss__rc_tile<Acc> &data) {
#pragma unroll
  for (int k = 1; k < skss__rc_c; k++) data[k] += data[k - 1];
}

/* Block partial-sum scan: each thread holds the scan of line `lane` within
 * its warp's tile; adds the totals of the same line in the warps before it
 * and in the block's earlier steps (carry[lane]), then advances the carry. */
template <typename Scan, int Warps, typename Acc>
__device__ __forceinline__ void skss__rc_block_carry(skss__rc_tile<Acc> &data,
                                                     Acc (*partial)[skss__rc_c + 1], Acc *carry,
                                                     int lane, int warp) {
  __syncthreads(); /* last step's readers of partial[] and the carry reset are done */
  partial[warp][lane] = data[skss__rc_c - 1];
  __syncthreads(); /* every warp's line totals are in partial[] */
  for (int line = warp; line < skss__rc_c; line += Warps) {
    const Acc total = lane < Warps ? partial[lane][line] : Acc(0);
    const Acc inclusive = Scan::scan(total, lane);
    const Acc before = skss_warp::from_below(inclusive, 1);
    const Acc all = skss_warp::broadcast(inclusive, skss__rc_c - 1);
    const Acc base = carry[line];
    __syncwarp(); /* every lane has read carry[line] before lane 0 advances it */
    if (lane < Warps) partial[lane][line] = lane == 0 ? base : base + before;
    if (lane == 0) carry[line] = base + all;
  }
  __syncthreads(); /* partial[] now holds each tile's exclusive prefix */
  const Acc add = partial[warp][lane];
#pragma unroll
  for (int k = 0; k < skss__rc_c; k++) data[k] += add;
}

/* ---- the tile kernels: BRLT-ScanRow, ScanRow-BRLT, ScanColumn ---- */

enum class skss__rc_mode { brlt_scanrow, scanrow_brlt, scancolumn };

template <skss__rc_mode M>
__host__ __device__ constexpr bool skss__rc_transposed() {
  return M != skss__rc_mode::scancolumn;
}

template <skss__rc_mode M, typename Acc>
__host__ __device__ constexpr int skss__rc_warps() {
  if (skss__rc_transposed<M>())
    return sizeof(Acc) == 8 ? SKSS_SAT_RC_BRLT_WARPS_8B : SKSS_SAT_RC_BRLT_WARPS_4B;
  return sizeof(Acc) == 8 ? SKSS_SAT_RC_COLUMN_WARPS_8B : SKSS_SAT_RC_COLUMN_WARPS_4B;
}

/* Brings a loaded tile (lane = column, data[k] = row k) to the line layout
 * (lane = line, data[k] = position k) scanned along each line. */
template <skss__rc_mode M, typename Scan, typename Acc>
__device__ __forceinline__ void skss__rc_scan_tile(skss__rc_tile<Acc> &data,
                                                   Acc (*buffer)[skss__rc_c + 1], int lane) {
  if constexpr (M == skss__rc_mode::scanrow_brlt) {
#pragma unroll
    for (int k = 0; k < skss__rc_c; k++) data[k] = Scan::scan(data[k], lane);
    skss__rc_brlt(data, buffer, lane);
  } else {
    if constexpr (M == skss__rc_mode::brlt_scanrow) skss__rc_brlt(data, buffer, lane);
    skss__rc_serial_scan(data);
  }
}

/* Stores the line-layout tile: transposed modes write dst[c0 + k][r0 + lane]
 * (dst is cols x rows), ScanColumn writes dst[r0 + k][c0 + lane]. */
template <bool Transposed, typename Acc>
__device__ __forceinline__ void skss__rc_store(const skss__rc_tile<Acc> &data, uint8_t *dst,
                                               size_t pitch, int64_t rows, int64_t cols,
                                               int64_t r0, int64_t c0, int lane) {
#pragma unroll
  for (int k = 0; k < skss__rc_c; k++) {
    const int64_t row = Transposed ? r0 + lane : r0 + k, col = Transposed ? c0 + k : c0 + lane;
    if (row < rows && col < cols) {
      if (Transposed)
        skss__rc_row<Acc>(dst, pitch, col)[row] = data[k];
      else
        skss__rc_row<Acc>(dst, pitch, row)[col] = data[k];
    }
  }
}

/* src is rows x cols. A block owns 32-line strips (lines: rows when
 * transposed, else columns) and walks each along the scan direction,
 * Warps tiles per step. dst may equal src for ScanColumn. */
template <typename Src, typename Acc, typename Scan, skss__rc_mode M>
__global__ void __launch_bounds__(skss__rc_warps<M, Acc>() * skss__rc_c)
    skss__rc_tiles(const uint8_t *src, size_t src_pitch, int64_t rows, int64_t cols, bool square,
                   uint8_t *dst, size_t dst_pitch) {
  constexpr int warps = skss__rc_warps<M, Acc>();
  constexpr bool transposed = skss__rc_transposed<M>();
  static_assert(warps <= skss__rc_c, "the block scan keeps one warp per lane");
  __shared__ Acc partial[warps][skss__rc_c + 1];
  __shared__ Acc carry[skss__rc_c];
  __shared__ Acc buffers[transposed ? warps : 1][skss__rc_c][skss__rc_c + 1];
  const int lane = (int)(threadIdx.x % skss__rc_c), warp = (int)(threadIdx.x / skss__rc_c);
  const int64_t lines = transposed ? rows : cols, length = transposed ? cols : rows;
  const int64_t strips = (lines + skss__rc_c - 1) / skss__rc_c;
  for (int64_t strip = blockIdx.x; strip < strips; strip += gridDim.x) {
    if (threadIdx.x < skss__rc_c) carry[threadIdx.x] = Acc(0);
    for (int64_t step = 0; step < length; step += (int64_t)warps * skss__rc_c) {
      const int64_t line0 = strip * skss__rc_c, pos0 = step + (int64_t)warp * skss__rc_c;
      const int64_t r0 = transposed ? line0 : pos0, c0 = transposed ? pos0 : line0;
      Acc data[skss__rc_c];
      skss__rc_load<Src, Acc>(data, src, src_pitch, rows, cols, r0, c0, lane, square);
      skss__rc_scan_tile<M, Scan>(data, buffers[transposed ? warp : 0], lane);
      skss__rc_block_carry<Scan, warps>(data, partial, carry, lane, warp);
      skss__rc_store<transposed>(data, dst, dst_pitch, rows, cols, r0, c0, lane);
    }
  }
}

/* ScanRow (fig. 4): one warp per row, 32 x 32 elements per step. */
template <typename Src, typename Acc, typename Scan>
__global__ void __launch_bounds__(SKSS_SAT_RC_ROW_WARPS *skss__rc_c)
    skss__rc_scanrow(const uint8_t *src, size_t src_pitch, int64_t rows, int64_t cols, bool square,
                     uint8_t *dst, size_t dst_pitch) {
  const int lane = (int)(threadIdx.x % skss__rc_c), warp = (int)(threadIdx.x / skss__rc_c);
  const int64_t stride = (int64_t)gridDim.x * SKSS_SAT_RC_ROW_WARPS;
  for (int64_t row = (int64_t)blockIdx.x * SKSS_SAT_RC_ROW_WARPS + warp; row < rows; row += stride) {
    const Src *in = skss__rc_row<Src>(src, src_pitch, row);
    Acc *out = skss__rc_row<Acc>(dst, dst_pitch, row);
    Acc carry = Acc(0);
    for (int64_t c0 = 0; c0 < cols; c0 += skss__rc_c * skss__rc_c) {
      Acc data[skss__rc_c];
#pragma unroll
      for (int k = 0; k < skss__rc_c; k++) {
        const int64_t col = c0 + (int64_t)k * skss__rc_c + lane;
        data[k] = col < cols ? skss__sat_load<Src, Acc>(in[col], square) : Acc(0);
      }
#pragma unroll
      for (int k = 0; k < skss__rc_c; k++) {
        data[k] = Scan::scan(data[k], lane) + carry;
        carry = skss_warp::broadcast(data[k], skss__rc_c - 1);
      }
#pragma unroll
      for (int k = 0; k < skss__rc_c; k++) {
        const int64_t col = c0 + (int64_t)k * skss__rc_c + lane;
        if (col < cols) out[col] = data[k];
      }
    }
  }
}

/* ---- host side ---- */

unsigned skss__rc_grid(int64_t blocks) {
  return (unsigned)(blocks < skss__rc_max_grid ? blocks : skss__rc_max_grid);
}

template <typename Src, typename Acc, typename Scan, skss__rc_mode M>
skss_status skss__rc_launch_tiles(skss_ctx *ctx, const uint8_t *src, size_t src_pitch,
                                  int64_t rows, int64_t cols, bool square, uint8_t *dst,
                                  size_t dst_pitch) {
  const int64_t lines = skss__rc_transposed<M>() ? rows : cols;
  const unsigned grid = skss__rc_grid((lines + skss__rc_c - 1) / skss__rc_c);
  skss__rc_tiles<Src, Acc, Scan, M>
      <<<grid, skss__rc_warps<M, Acc>() * skss__rc_c, 0, skss__cuda(ctx)->stream>>>(
          src, src_pitch, rows, cols, square, dst, dst_pitch);
  SKSS_CUDA_CHECK_LAUNCH(ctx, skss__rc_fn);
  return SKSS_OK;
}

/* BRLT-ScanRow or ScanRow-BRLT twice: in -> W x H scratch -> out. */
template <typename In, typename Acc, typename Scan, skss__rc_mode M>
skss_status skss__rc_twice(skss_ctx *ctx, const skss__sat_dev_plane *p, void *scratch) {
  uint8_t *transposed = static_cast<uint8_t *>(scratch);
  const size_t transposed_pitch = (size_t)p->height * sizeof(Acc);
  skss_status st = skss__rc_launch_tiles<In, Acc, Scan, M>(
      ctx, p->in, p->in_pitch, p->height, p->width, p->square, transposed, transposed_pitch);
  if (st != SKSS_OK) return st;
  return skss__rc_launch_tiles<Acc, Acc, Scan, M>(ctx, transposed, transposed_pitch, p->width,
                                                  p->height, false, p->out, p->out_pitch);
}

/* ScanRow (in -> out), then ScanColumn in place on out. */
template <typename In, typename Acc, typename Scan>
skss_status skss__rc_row_column(skss_ctx *ctx, const skss__sat_dev_plane *p) {
  const unsigned grid =
      skss__rc_grid((p->height + SKSS_SAT_RC_ROW_WARPS - 1) / SKSS_SAT_RC_ROW_WARPS);
  skss__rc_scanrow<In, Acc, Scan><<<grid, SKSS_SAT_RC_ROW_WARPS * skss__rc_c, 0,
                                    skss__cuda(ctx)->stream>>>(
      p->in, p->in_pitch, p->height, p->width, p->square, p->out, p->out_pitch);
  SKSS_CUDA_CHECK_LAUNCH(ctx, skss__rc_fn);
  return skss__rc_launch_tiles<Acc, Acc, Scan, skss__rc_mode::scancolumn>(
      ctx, p->out, p->out_pitch, p->height, p->width, false, p->out, p->out_pitch);
}

struct skss__rc_run {
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *p, void *scratch) {
    using ks = skss_warp::kogge_stone;
    using lf = skss_warp::ladner_fischer;
    using mode = skss__rc_mode;
    switch (algorithm) {
      case SKSS_SAT_ALGORITHM_BRLT_SCANROW_KS: return skss__rc_twice<In, Acc, ks, mode::brlt_scanrow>(ctx, p, scratch);
      case SKSS_SAT_ALGORITHM_BRLT_SCANROW_LF: return skss__rc_twice<In, Acc, lf, mode::brlt_scanrow>(ctx, p, scratch);
      case SKSS_SAT_ALGORITHM_SCANROW_BRLT_KS: return skss__rc_twice<In, Acc, ks, mode::scanrow_brlt>(ctx, p, scratch);
      case SKSS_SAT_ALGORITHM_SCANROW_BRLT_LF: return skss__rc_twice<In, Acc, lf, mode::scanrow_brlt>(ctx, p, scratch);
      case SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS: return skss__rc_row_column<In, Acc, ks>(ctx, p);
      case SKSS_SAT_ALGORITHM_SCANROWCOLUMN_LF: return skss__rc_row_column<In, Acc, lf>(ctx, p);
      default:
        return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: algorithm %d is not a register-cache one",
                          skss__rc_fn, algorithm);
    }
  }
};

struct skss__rc_acc_bytes {
  template <typename In, typename Acc>
  static skss_status run(size_t *bytes) {
    *bytes = sizeof(Acc);
    return SKSS_OK;
  }
};

bool skss__rc_uses_scratch(int algorithm) {
  return algorithm != SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS && algorithm != SKSS_SAT_ALGORITHM_SCANROWCOLUMN_LF;
}

} /* namespace */

/* The BRLT algorithms keep the W x H transposed row scan between their two
 * passes; its bytes equal the output's H x W, whose extent the entry point
 * has checked, so the product cannot overflow. */
size_t skss__cuda_sat_regcache_scratch(skss_ctx *ctx, int algorithm,
                                       const skss__sat_dev_plane *plane) {
  (void)ctx;
  if (!skss__rc_uses_scratch(algorithm)) return 0;
  size_t acc = 0;
  skss__sat_by_pair<skss__rc_acc_bytes>(plane->pair, &acc);
  return (size_t)plane->height * (size_t)plane->width * acc;
}

skss_status skss__cuda_sat_regcache(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                    void *scratch) {
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown type pair %d", skss__rc_fn,
                      (int)plane->pair);
  return skss__sat_by_pair<skss__rc_run>(plane->pair, ctx, algorithm, plane, scratch);
}
