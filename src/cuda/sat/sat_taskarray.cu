/*
 * sat_taskarray.cu — the summed-area table as a fair task array
 * (Funasaka, Nakano, Ito, SKSS task arrays, §V.B): the table is cut into 32 x 32 tiles, task
 * (I, J) computes tile (I, J) with one warp, and needs the bottom row of
 * tile (I-1, J) and the right column of tile (I, J-1).
 *
 * Both schedules share the tile computation: each lane owns a column, scans
 * it down in registers, then every row is scanned across the lanes with
 * shuffles (the paper's Parallel Summed Area Table Algorithm on 32 x 32).
 * The left carry is kept strip-local — per row, the sum of the strip's
 * elements left of the tile (the paper's b[.][32J-1] - b[32I-1][32J-1]) —
 * so a tile adds two carries and no corner, and float outputs are sums of
 * positive-weight partial sums (no cancellation of large values).
 *
 * SKSS_SAT_ALGORITHM_SKSS (§IV): one kernel, 64-thread blocks, as many as are
 * resident; a warp takes a strip of 32 rows by ticket and walks its tiles
 * left to right, keeping the left carries in registers; before adding the
 * top carry of tile J it waits for the strip above to have published
 * progress >= J + 1, and it publishes J + 1 after storing the tile.
 *
 * SKSS_SAT_ALGORITHM_PARALLEL_FAIR (§III, the baseline): one launch per task diagonal
 * I + J = k, one warp per tile; the carries come from earlier launches: the
 * top row from the output, the strip-local left column from a scratch
 * column of H accumulators (strip I's part is only touched by tile (I, k-I)
 * of launch k).
 */
#include <climits>

#include "../taskarray.cuh"
#include "../tuning.h"
#include "../warp_scan.cuh"
#include "sat_cuda.cuh"

static const char *const FN = "skss_sat()";

#define SKSS__TILE 32

/* Local SAT of the 32 x 32 tile whose (0, 0) is (i0, j0): on return, lane c
 * holds in v[r] the sum of the tile's elements (r', c') with r' <= r and
 * c' <= c. Elements outside the plane count as 0. */
template <typename In, typename Acc>
__device__ __forceinline__ void skss__tile_local_sat(const skss__sat_dev_plane &p, int64_t i0,
                                                     int64_t j0, Acc (&v)[SKSS__TILE]) {
  const int64_t col = j0 + (threadIdx.x & 31);
  const int64_t rows = p.height - i0;
  const bool col_in = col < p.width;
  const uint8_t *src = p.in + (size_t)i0 * p.in_pitch + (size_t)(col_in ? col : 0) * sizeof(In);
  Acc run = 0;
#pragma unroll
  for (int r = 0; r < SKSS__TILE; r++) {
    if (col_in && r < rows)
      run += skss__sat_load<In, Acc>(*reinterpret_cast<const In *>(src + (size_t)r * p.in_pitch),
                                     p.square);
    v[r] = run;
  }
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int r = 0; r < SKSS__TILE; r++) v[r] = skss_warp::kogge_stone::scan(v[r], lane);
}

/* The warp's top carry: out[i0-1][j0+lane], 0 for the first strip. Read
 * through L2 (__ldcg): another SM wrote it while this SM may hold a stale
 * L1 copy of the line (its right part belongs to a later tile). */
template <typename Acc>
__device__ __forceinline__ Acc skss__tile_top(const skss__sat_dev_plane &p, int64_t i0, int64_t j0) {
  const int64_t col = j0 + (threadIdx.x & 31);
  if (i0 == 0 || col >= p.width) return 0;
  return __ldcg(reinterpret_cast<const Acc *>(p.out + (size_t)(i0 - 1) * p.out_pitch +
                                              (size_t)col * sizeof(Acc)));
}

/* Adds the strip-local left carries (uniform across lanes) and the lane's
 * top carry to the local SAT, stores the tile, and leaves in `left` the
 * strip-local sums up to the tile's right column (valid for full tiles, the
 * only ones with a right neighbour). */
template <typename Acc>
__device__ __forceinline__ void skss__tile_finish(const skss__sat_dev_plane &p, int64_t i0,
                                                  int64_t j0, Acc (&v)[SKSS__TILE],
                                                  Acc (&left)[SKSS__TILE], Acc top) {
  const int64_t col = j0 + (threadIdx.x & 31);
  const int64_t rows = p.height - i0;
  uint8_t *dst = p.out + (size_t)i0 * p.out_pitch + (size_t)(col < p.width ? col : 0) * sizeof(Acc);
#pragma unroll
  for (int r = 0; r < SKSS__TILE; r++) {
    const Acc strip_sum = v[r] + left[r];
    left[r] = skss_warp::broadcast(strip_sum, 31);
    if (col < p.width && r < rows)
      *reinterpret_cast<Acc *>(dst + (size_t)r * p.out_pitch) = strip_sum + top;
  }
}

/* One warp per strip by ticket, tiles left to right (SKSS). */
template <typename In, typename Acc>
__global__ void __launch_bounds__(SKSS_CUDA_SAT_SKSS_THREADS)
    skss__sat_skss_kernel(skss__sat_dev_plane p, skss_cuda_taskarray_view ta, int tile_cols) {
  for (;;) {
    const int strip = skss_cuda_warp_take_row(ta);
    if (strip >= ta.rows) return;
    const int64_t i0 = (int64_t)strip * SKSS__TILE;
    Acc left[SKSS__TILE];
#pragma unroll
    for (int r = 0; r < SKSS__TILE; r++) left[r] = 0;
    for (int tj = 0; tj < tile_cols; tj++) {
      const int64_t j0 = (int64_t)tj * SKSS__TILE;
      Acc v[SKSS__TILE];
      skss__tile_local_sat<In, Acc>(p, i0, j0, v); /* independent of the strip above */
      if (strip > 0) skss_cuda_warp_wait_row_unchecked(ta, strip - 1, tj + 1);
      skss__tile_finish<Acc>(p, i0, j0, v, left, skss__tile_top<Acc>(p, i0, j0));
      skss_cuda_warp_publish(ta, strip, tj + 1);
    }
  }
}

/* One warp per tile of the diagonal I + J = k, I from i_first (Parallel-Fair).
 * `left_col` holds each row's strip-local sum left of the current tile. */
template <typename In, typename Acc>
__global__ void __launch_bounds__(SKSS_CUDA_SAT_PF_THREADS)
    skss__sat_pf_kernel(skss__sat_dev_plane p, Acc *left_col, int k, int i_first, int n_tiles,
                        int tile_cols) {
  const int t = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  if (t >= n_tiles) return; /* warp-uniform */
  const int ti = i_first + t, tj = k - ti;
  const int lane = threadIdx.x & 31;
  const int64_t i0 = (int64_t)ti * SKSS__TILE, j0 = (int64_t)tj * SKSS__TILE;
  const int64_t rows = p.height - i0;
  Acc left[SKSS__TILE];
#pragma unroll
  for (int r = 0; r < SKSS__TILE; r++) left[r] = tj > 0 && r < rows ? left_col[i0 + r] : Acc(0);
  Acc v[SKSS__TILE];
  skss__tile_local_sat<In, Acc>(p, i0, j0, v);
  skss__tile_finish<Acc>(p, i0, j0, v, left, skss__tile_top<Acc>(p, i0, j0));
  if (tj + 1 >= tile_cols) return;
#pragma unroll
  for (int r = 0; r < SKSS__TILE; r++)
    if (lane == r && r < rows) left_col[i0 + r] = left[r];
}

/* The task array's shape; false when a count does not fit an int. */
static bool tile_counts(const skss__sat_dev_plane *plane, int *tile_rows, int *tile_cols) {
  const int64_t r = (plane->height + SKSS__TILE - 1) / SKSS__TILE;
  const int64_t c = (plane->width + SKSS__TILE - 1) / SKSS__TILE;
  if (r > INT_MAX || c > INT_MAX) return false;
  *tile_rows = (int)r;
  *tile_cols = (int)c;
  return true;
}

struct skss__sat_skss_launch {
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, const skss__sat_dev_plane *plane, void *scratch,
                         int tile_rows, int tile_cols) {
    cudaStream_t stream = skss__cuda(ctx)->stream;
    int per_sm = 0, sms = 0;
    SKSS_CUDA_TRY(ctx, FN,
                  cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, skss__sat_skss_kernel<In, Acc>, SKSS_CUDA_SAT_SKSS_THREADS, 0));
    SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                  skss__cuda(ctx)->device));
    const int warps_per_block = SKSS_CUDA_SAT_SKSS_THREADS / 32;
    const int64_t needed = ((int64_t)tile_rows + warps_per_block - 1) / warps_per_block;
    const int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
    const int blocks = (int)(needed < resident ? needed : resident);
    skss_cuda_taskarray_view ta;
    /* the counters start from zero before the kernel, in stream order. */
    SKSS_CUDA_TRY(ctx, FN, skss__dev_taskarray_reset(&ta, scratch, tile_rows, tile_cols, stream));
    skss__sat_skss_kernel<In, Acc>
        <<<blocks, SKSS_CUDA_SAT_SKSS_THREADS, 0, stream>>>(*plane, ta, tile_cols);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }
};

struct skss__sat_pf_launch {
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, const skss__sat_dev_plane *plane, void *scratch,
                         int tile_rows, int tile_cols) {
    cudaStream_t stream = skss__cuda(ctx)->stream;
    Acc *left_col = static_cast<Acc *>(scratch);
    const int warps_per_block = SKSS_CUDA_SAT_PF_THREADS / 32;
    const int64_t diagonals = (int64_t)tile_rows + tile_cols - 1;
    for (int64_t k = 0; k < diagonals; k++) {
      const int64_t first = k - tile_cols + 1 > 0 ? k - tile_cols + 1 : 0;
      const int64_t last = k < tile_rows - 1 ? k : tile_rows - 1;
      const int64_t n_tiles = last - first + 1;
      const unsigned blocks = (unsigned)((n_tiles + warps_per_block - 1) / warps_per_block);
      skss__sat_pf_kernel<In, Acc><<<blocks, SKSS_CUDA_SAT_PF_THREADS, 0, stream>>>(
          *plane, left_col, (int)k, (int)first, (int)n_tiles, tile_cols);
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    }
    return SKSS_OK;
  }
};

size_t skss__cuda_sat_taskarray_scratch(skss_ctx *ctx, int algorithm,
                                        const skss__sat_dev_plane *plane) {
  (void)ctx;
  int tile_rows = 0, tile_cols = 0;
  if (!tile_counts(plane, &tile_rows, &tile_cols)) return 0; /* the run reports it */
  if (algorithm == SKSS_SAT_ALGORITHM_SKSS) return skss__dev_taskarray_bytes(tile_rows);
  /* Parallel-Fair: one left-carry column, sized for the widest accumulator. */
  return (size_t)plane->height * sizeof(double);
}

skss_status skss__cuda_sat_taskarray(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                     void *scratch) {
  int tile_rows = 0, tile_cols = 0;
  if (!tile_counts(plane, &tile_rows, &tile_cols))
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: %lld x %lld has too many 32 x 32 tiles", FN,
                      (long long)plane->height, (long long)plane->width);
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown SAT type pair %d", FN, (int)plane->pair);
  return algorithm == SKSS_SAT_ALGORITHM_SKSS
             ? skss__sat_by_pair<skss__sat_skss_launch>(plane->pair, ctx, plane, scratch,
                                                        tile_rows, tile_cols)
             : skss__sat_by_pair<skss__sat_pf_launch>(plane->pair, ctx, plane, scratch, tile_rows,
                                                      tile_cols);
}
