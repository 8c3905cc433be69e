/*
 * sat_onepass_bands.cu — SKSS_SAT_ONEPASS (ours), band layout, and the
 * family's entry points (which choose between this layout and the tile
 * layout of sat_onepass_tiles.cu). One pass: each input element is read
 * once and each output written once, in one launch, with no reset launch.
 *
 * The table is cut into bands of BH = WY * RPW rows; each block takes the
 * next band by ticket (skss-task-arrays.md §IV: it only ever waits on bands
 * ticketed before it, whose blocks are running) and walks it left to right
 * in tiles of BH rows by TW = WX * 32 * VEC columns. Its WX * WY compute
 * warps each own RPW rows by 32 * VEC columns of a tile (lane l the VEC
 * adjacent columns at l * VEC); one more warp, the carry warp, does the
 * block's communication. Per tile:
 *   1. the compute warps load the NEXT tile's rows (one tile in flight
 *      while this one is worked on) and scan this tile's rows; each row's
 *      sum left of the tile (its row carry) stays in registers from the
 *      tiles before, so rows never wait on another block;
 *   2. each warp accumulates its full row prefix sums down its rows and
 *      leaves its column totals in shared memory;
 *   3. the carry warp adds them up into the band's column totals at this
 *      tile (its aggregate), finds the sums of the rows above the band at
 *      these columns (the column carry) by decoupled look-back (Merrill &
 *      Garland) over the bands above at the same tile, and publishes the
 *      band's inclusive prefix (carry + aggregate); the aggregate is
 *      published first only when the look-back has to wait;
 *   4. the compute warps add the carry and the totals of the warps above
 *      and store their rows.
 * Bands run as a wavefront, each a little behind the band above, so a
 * look-back usually finds its predecessor's inclusive prefix at once; the
 * carry warp's fences wait only on its own few stores, not on the tile's.
 * States are epoch-stamped words (common.cuh), so no memset precedes the
 * kernel. Every output is a sum of row prefix sums, with no subtraction:
 * floats stay within (i + j + 2) u S(i, j); float results may differ in the
 * last bits between runs (whether a look-back added aggregates or took an
 * inclusive prefix).
 */
#include <climits>

#include <cuda/atomic>

#include "sat_hooks.h"
#include "sat_onepass.cuh"

static const char *const FN = "skss_sat()";

/* A band's published state at one tile (besides "nothing yet"). */
enum { SKSS__OPB_AGGREGATE = 1, SKSS__OPB_INCLUSIVE = 2 };

/* The band layout of one plane. */
typedef struct skss__opb_bands {
  int down, across;             /* bands; tiles per band */
  skss__cuda_epoch_flags flags; /* word (band * across + tile): the band's state there */
  void *vals;                   /* per (band, tile): TW aggregates, then TW inclusive prefixes */
  bool vec_in, vec_out;
} skss__opb_bands;

/* A block shape: WX x WY compute warps, RPW rows each, plus the carry warp. */
template <int WX_, int WY_, int RPW_, int MIN_BLOCKS_>
struct skss__opb_shape {
  static constexpr int WX = WX_, WY = WY_, RPW = RPW_, MIN_BLOCKS = MIN_BLOCKS_;
  static constexpr int WARPS = WX * WY;
  static constexpr int THREADS = 32 * (WARPS + 1);
  static constexpr int BH = WY * RPW;
  static constexpr int TW = WX * 32 * SKSS__OP_VEC;
};

/* What a block's warps share while they walk a band. */
template <typename Acc, typename S>
struct skss__opb_shared {
  Acc part[S::WX > 1 ? S::BH * S::WX : 1];        /* row totals of each warp across: [row][wx] */
  Acc cols[2][S::WY][SKSS__OP_VEC][S::WX * 32];  /* column totals of each warp, by tile parity */
  Acc carry[SKSS__OP_VEC][S::WX * 32];            /* the column carries of the tile */
  int band;                                       /* the block's ticket */
};

/* The lane's VEC raw inputs of one row, as the words they were loaded in
 * (4 bytes hold 4 u8 inputs in one register). */
template <typename In>
struct skss__opb_raw {
  using W = skss__op_word<sizeof(In) * SKSS__OP_VEC>;
  W w[sizeof(In) * SKSS__OP_VEC / sizeof(W)];
};

/* The lane's VEC inputs of `row` from column `col` (0 outside), loaded now
 * and converted only when the tile is worked on, so that the loads of the
 * next tile stay in flight meanwhile. */
template <typename In>
__device__ __forceinline__ void skss__opb_fetch(const skss__sat_dev_plane &p, int64_t row,
                                                int64_t col, bool vec_in, skss__opb_raw<In> &r) {
  In v[SKSS__OP_VEC];
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) v[c] = In(0);
  if (row < p.height && col < p.width) {
    const In *src = reinterpret_cast<const In *>(p.in + (size_t)row * p.in_pitch) + col;
    if (vec_in && col + SKSS__OP_VEC <= p.width) {
      skss__op_load_vec<true>(src, v);
    } else {
#pragma unroll
      for (int c = 0; c < SKSS__OP_VEC; c++)
        if (col + c < p.width) v[c] = __ldcs(src + c);
    }
  }
  memcpy(r.w, v, sizeof v);
}

/* The compute warps' walk (steps 1, 2 and 4 of the header). */
template <typename In, typename Acc, typename S>
__device__ __forceinline__ void skss__opb_compute(const skss__sat_dev_plane &p,
                                                  const skss__opb_bands &g, int band,
                                                  skss__opb_shared<Acc, S> &sh) {
  constexpr int V = SKSS__OP_VEC, RPW = S::RPW;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int wx = warp % S::WX, wy = warp / S::WX, q = wx * 32 + lane;
  const int64_t row0 = (int64_t)band * S::BH + wy * RPW;
  skss__opb_raw<In> raw[RPW];
  Acc rowcarry[RPW];
#pragma unroll
  for (int k = 0; k < RPW; k++) {
    rowcarry[k] = 0;
    skss__opb_fetch<In>(p, row0 + k, (int64_t)q * V, g.vec_in, raw[k]);
  }
  for (int j = 0; j < g.across; j++) {
    const int64_t col = (int64_t)j * S::TW + q * V;
    Acc x[RPW][V];
#pragma unroll
    for (int k = 0; k < RPW; k++) {
      In v[V];
      memcpy(v, raw[k].w, sizeof v);
#pragma unroll
      for (int c = 0; c < V; c++) x[k][c] = skss__sat_load<In, Acc>(v[c], p.square);
    }
    if (j + 1 < g.across) {
#pragma unroll
      for (int k = 0; k < RPW; k++) skss__opb_fetch<In>(p, row0 + k, col + S::TW, g.vec_in, raw[k]);
    }
    Acc left[RPW];
#pragma unroll
    for (int k = 0; k < RPW; k++) {
      const Acc total = __shfl_sync(SKSS__OP_FULL_MASK, skss__op_scan_row<Acc>(x[k]), 31);
      if (S::WX > 1) {
        if (lane == 0) sh.part[(wy * RPW + k) * S::WX + wx] = total;
      } else {
        left[k] = rowcarry[k];
        rowcarry[k] += total;
      }
    }
    if (S::WX > 1) {
      /* the row totals of the warps across are in shared memory */
      __syncthreads();
#pragma unroll
      for (int k = 0; k < RPW; k++) {
        Acc before = 0, all = 0;
#pragma unroll
        for (int w = 0; w < S::WX; w++) {
          const Acc t = sh.part[(wy * RPW + k) * S::WX + w];
          if (w < wx) before += t;
          all += t;
        }
        left[k] = rowcarry[k] + before;
        rowcarry[k] += all;
      }
    }
    const int par = j & 1;
    Acc colsum[V];
#pragma unroll
    for (int c = 0; c < V; c++) colsum[c] = 0;
#pragma unroll
    for (int k = 0; k < RPW; k++)
#pragma unroll
      for (int c = 0; c < V; c++) x[k][c] = colsum[c] += left[k] + x[k][c];
#pragma unroll
    for (int c = 0; c < V; c++) sh.cols[par][wy][c][q] = colsum[c];
    /* the warps' column totals are in shared memory, for the carry warp */
    __syncthreads();
    /* the carry warp has left the tile's column carries in shared memory */
    __syncthreads();
    Acc top[V];
#pragma unroll
    for (int c = 0; c < V; c++) {
      top[c] = sh.carry[c][q];
#pragma unroll
      for (int w = 0; w < S::WY - 1; w++)
        if (w < wy) top[c] += sh.cols[par][w][c][q];
    }
#pragma unroll
    for (int k = 0; k < RPW; k++) {
#pragma unroll
      for (int c = 0; c < V; c++) x[k][c] = top[c] + x[k][c];
      skss__op_store_row<true>(p, row0 + k, col, g.vec_out, x[k]);
    }
  }
}

/* A band's state at a tile, acquired: what it published is visible after. */
__device__ __forceinline__ int skss__opb_state(const skss__opb_bands &g, int64_t word) {
  cuda::atomic_ref<int, cuda::thread_scope_device> s(g.flags.words[word]);
  const int v = s.load(cuda::memory_order_acquire) - g.flags.epoch * 4;
  /* a word of an earlier call (smaller epoch) reads as nothing yet */
  return v == SKSS__OPB_AGGREGATE || v == SKSS__OPB_INCLUSIVE ? v : 0;
}

/* The carry warp stores its TW values of one half (0: aggregate, 1:
 * inclusive prefix) of the band's tile and publishes `state`. */
template <typename Acc, typename S>
__device__ __forceinline__ void skss__opb_publish(const skss__opb_bands &g, int64_t word, int half,
                                                  int state,
                                                  const Acc (&v)[S::WX][SKSS__OP_VEC]) {
  const int lane = threadIdx.x & 31;
  Acc *vals = static_cast<Acc *>(g.vals) + (word * 2 + half) * S::TW;
#pragma unroll
  for (int w = 0; w < S::WX; w++)
    skss__op_store_vec<false>(vals + (w * 32 + lane) * SKSS__OP_VEC, v[w]);
  /* every lane's stores happen before lane 0's release */
  __syncwarp();
  if (lane == 0) {
    /* fence: the other lanes' stores become visible device-wide before the state */
    __threadfence();
    cuda::atomic_ref<int, cuda::thread_scope_device> s(g.flags.words[word]);
    s.store(g.flags.epoch * 4 + state, cuda::memory_order_release);
  }
}

/* Adds one half of band `pb`'s values at the tile to `carry`. */
template <typename Acc, typename S>
__device__ __forceinline__ void skss__opb_add(const skss__opb_bands &g, int64_t word, int half,
                                              Acc (&carry)[S::WX][SKSS__OP_VEC]) {
  const int lane = threadIdx.x & 31;
  const Acc *vals = static_cast<const Acc *>(g.vals) + (word * 2 + half) * S::TW;
#pragma unroll
  for (int w = 0; w < S::WX; w++) {
    Acc v[SKSS__OP_VEC];
    skss__op_load_vec<false>(vals + (w * 32 + lane) * SKSS__OP_VEC, v);
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) carry[w][c] += v[c];
  }
}

/* The carry warp's walk (step 3 of the header). */
template <typename Acc, typename S>
__device__ __forceinline__ void skss__opb_carries(const skss__opb_bands &g, int band,
                                                  skss__opb_shared<Acc, S> &sh) {
  constexpr int V = SKSS__OP_VEC;
  const int lane = threadIdx.x & 31;
  const bool publishes = band + 1 < g.down; /* a band below will read this band's states */
  for (int j = 0; j < g.across; j++) {
    /* the compute warps' row-total barrier (nothing to do here) */
    if (S::WX > 1) __syncthreads();
    /* the compute warps' column totals are in shared memory */
    __syncthreads();
    const int par = j & 1;
    Acc agg[S::WX][V], carry[S::WX][V];
#pragma unroll
    for (int w = 0; w < S::WX; w++)
#pragma unroll
      for (int c = 0; c < V; c++) {
        carry[w][c] = 0;
        agg[w][c] = sh.cols[par][0][c][w * 32 + lane];
#pragma unroll
        for (int y = 1; y < S::WY; y++) agg[w][c] += sh.cols[par][y][c][w * 32 + lane];
      }
    const int64_t word = (int64_t)band * g.across + j;
    bool published = !publishes;
    for (int q0 = 1; band > 0;) {
      /* the window q0 .. q0 + 31 of bands above: n aggregates before the first inclusive */
      int n = 0;
      unsigned ns = 32;
      for (;;) {
        const int pb = band - (q0 + lane);
        /* above band 0: the sums of no rows, an inclusive prefix of zero */
        const int state =
            pb >= 0 ? skss__opb_state(g, (int64_t)pb * g.across + j) : SKSS__OPB_INCLUSIVE;
        const unsigned stops = __ballot_sync(SKSS__OP_FULL_MASK, state == SKSS__OPB_INCLUSIVE);
        n = stops ? __ffs(stops) - 1 : 32;
        const unsigned nearer = n == 32 ? SKSS__OP_FULL_MASK : (1u << n) - 1u;
        if (!(__ballot_sync(SKSS__OP_FULL_MASK, state == 0) & nearer)) break;
        if (!published) skss__opb_publish<Acc, S>(g, word, 0, SKSS__OPB_AGGREGATE, agg);
        published = true;
        /* spin-wait: the bands above hold earlier tickets, so their blocks are running */
        __nanosleep(ns);
        ns = ns < 256 ? ns * 2 : 256;
      }
      /* every lane reads the bands' values after the lanes' acquire loads */
      __syncwarp();
#pragma unroll 4
      for (int i = 0; i < n; i++)
        skss__opb_add<Acc, S>(g, (int64_t)(band - q0 - i) * g.across + j, 0, carry);
      if (n < 32) {
        if (band - q0 - n >= 0)
          skss__opb_add<Acc, S>(g, (int64_t)(band - q0 - n) * g.across + j, 1, carry);
        break;
      }
      q0 += 32;
    }
    if (publishes) {
      Acc incl[S::WX][V];
#pragma unroll
      for (int w = 0; w < S::WX; w++)
#pragma unroll
        for (int c = 0; c < V; c++) incl[w][c] = carry[w][c] + agg[w][c];
      skss__opb_publish<Acc, S>(g, word, 1, SKSS__OPB_INCLUSIVE, incl);
    }
#pragma unroll
    for (int w = 0; w < S::WX; w++)
#pragma unroll
      for (int c = 0; c < V; c++) sh.carry[c][w * 32 + lane] = carry[w][c];
    /* the column carries are in shared memory */
    __syncthreads();
  }
}

template <typename In, typename Acc, typename S>
__global__ void __launch_bounds__(S::THREADS, S::MIN_BLOCKS)
    skss__sat_onepass_bands_kernel(skss__sat_dev_plane p, skss__opb_bands g) {
  __shared__ skss__opb_shared<Acc, S> sh;
  /* relaxed: the ticket only orders bands; data is published by the states */
  if (threadIdx.x == 0) sh.band = (int)(atomicAdd(g.flags.ticket, 1ull) - g.flags.ticket_base);
  /* the ticket is in shared memory */
  __syncthreads();
  if ((int)(threadIdx.x >> 5) == S::WARPS)
    skss__opb_carries<Acc, S>(g, sh.band, sh);
  else
    skss__opb_compute<In, Acc, S>(p, g, sh.band, sh);
}

/* The band shapes (tuning.h), 4-byte and 8-byte accumulators. */
template <typename Acc, int shape>
struct skss__opb_shape_of;
#define SKSS__OPB_SHAPE(n, wx, wy, rpw4, min4, rpw8, min8)                                  \
  template <typename Acc>                                                                   \
  struct skss__opb_shape_of<Acc, n> {                                                       \
    using type = skss__opb_shape<wx, wy, sizeof(Acc) == 4 ? rpw4 : rpw8,                    \
                                 sizeof(Acc) == 4 ? min4 : min8>;                           \
  };
SKSS_CUDA_SAT_ONEPASS_SHAPES(SKSS__OPB_SHAPE)
#undef SKSS__OPB_SHAPE

/* A shape's band height and tile width for accumulators of acc_size bytes. */
static void shape_dims(int shape, size_t acc_size, int *bh, int *tw) {
  switch (shape) {
#define SKSS__OPB_DIMS(n, wx, wy, rpw4, min4, rpw8, min8) \
  case n:                                                 \
    *bh = (wy) * (acc_size == 4 ? (rpw4) : (rpw8));       \
    *tw = (wx) * 32 * SKSS__OP_VEC;                 \
    return;
    SKSS_CUDA_SAT_ONEPASS_SHAPES(SKSS__OPB_DIMS)
#undef SKSS__OPB_DIMS
  }
  *bh = *tw = 0;
}

struct skss__opb_acc_size {
  template <typename In, typename Acc>
  static skss_status run(size_t *size) {
    *size = sizeof(Acc);
    return SKSS_OK;
  }
};

/* The layout for a plane: a band shape (1..SHAPE_COUNT), or 0 for the tile
 * layout. The context's hook (sat_hooks.h) wins; otherwise the first row of
 * tuning.h's table the plane's height reaches, and the tile layout when
 * even the shortest bands would leave SMs idle while the row is long. */
static int choose_layout(skss_ctx *ctx, const skss__sat_dev_plane *plane) {
  const int hook = skss__cuda(ctx)->sat_onepass_shape;
  if (hook > 0) return hook > SKSS_CUDA_SAT_ONEPASS_SHAPE_COUNT ? 0 : hook;
  size_t acc = 0;
  skss__sat_by_pair<skss__opb_acc_size>(plane->pair, &acc);
  int shape = SKSS_CUDA_SAT_ONEPASS_SHAPE_COUNT;
  static const int64_t min_height[] = {SKSS_CUDA_SAT_ONEPASS_AUTO_MIN_HEIGHT};
  for (int s = 1; s <= SKSS_CUDA_SAT_ONEPASS_SHAPE_COUNT; s++) {
    if (plane->height >= min_height[s - 1]) {
      shape = s;
      break;
    }
  }
  int bh = 0, tw = 0;
  shape_dims(shape, acc, &bh, &tw);
  const int64_t bands = (plane->height + bh - 1) / bh, tiles = (plane->width + tw - 1) / tw;
  if (bands < SKSS_CUDA_SAT_ONEPASS_TILES_MAX_BANDS && tiles > SKSS_CUDA_SAT_ONEPASS_TILES_MIN_WALK)
    return 0;
  return shape;
}

/* Bands and tiles per band of a plane in a shape; false when the states do not fit an int. */
static bool band_counts(const skss__sat_dev_plane *plane, int bh, int tw, int *down, int *across) {
  const int64_t d = (plane->height + bh - 1) / bh, a = (plane->width + tw - 1) / tw;
  if (d > INT_MAX / 8 || a > INT_MAX / 8 || d * a > INT_MAX / 8) return false;
  *down = (int)d;
  *across = (int)a;
  return true;
}

struct skss__opb_launch {
  template <typename In, typename Acc, typename S>
  static skss_status go(skss_ctx *ctx, const skss__sat_dev_plane *plane, void *scratch) {
    skss__opb_bands g = {};
    if (!band_counts(plane, S::BH, S::TW, &g.down, &g.across))
      return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: %lld x %lld has too many tiles", FN,
                        (long long)plane->height, (long long)plane->width);
    const size_t words = (size_t)g.down * (size_t)g.across;
    skss_status st = skss__cuda_epoch_flags_take(ctx, FN, words, (unsigned long long)g.down, &g.flags);
    if (st != SKSS_OK) return st;
    g.vals = scratch;
    const size_t in_vec = sizeof(In) * SKSS__OP_VEC, out_vec = sizeof(Acc) * SKSS__OP_VEC;
    g.vec_in = (uintptr_t)plane->in % in_vec == 0 && plane->in_pitch % in_vec == 0;
    g.vec_out = (uintptr_t)plane->out % out_vec == 0 && plane->out_pitch % out_vec == 0;
    skss__sat_onepass_bands_kernel<In, Acc, S>
        <<<g.down, S::THREADS, 0, skss__cuda(ctx)->stream>>>(*plane, g);
    if (cudaPeekAtLastError() != cudaSuccess) skss__cuda_epoch_flags_abandon(ctx);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, const skss__sat_dev_plane *plane, void *scratch,
                         int shape) {
    switch (shape) {
#define SKSS__OPB_CASE(n, ...) \
  case n: return go<In, Acc, typename skss__opb_shape_of<Acc, n>::type>(ctx, plane, scratch);
      SKSS_CUDA_SAT_ONEPASS_SHAPES(SKSS__OPB_CASE)
#undef SKSS__OPB_CASE
      default: return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: no onepass shape %d", FN, shape);
    }
  }
};

size_t skss__cuda_sat_onepass_scratch(skss_ctx *ctx, int algorithm,
                                      const skss__sat_dev_plane *plane) {
  (void)algorithm;
  const int shape = choose_layout(ctx, plane);
  if (shape == 0) return skss__cuda_sat_onepass_tiles_scratch(plane);
  size_t acc = 0;
  if (skss__sat_by_pair<skss__opb_acc_size>(plane->pair, &acc) != SKSS_OK) return 0;
  int bh = 0, tw = 0, down = 0, across = 0;
  shape_dims(shape, acc, &bh, &tw);
  if (!band_counts(plane, bh, tw, &down, &across)) return 0; /* the run reports it */
  return skss__cuda_align((size_t)down * (size_t)across * 2 * (size_t)tw * acc);
}

skss_status skss__cuda_sat_onepass(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                   void *scratch) {
  (void)algorithm;
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown SAT type pair %d", FN, (int)plane->pair);
  const int shape = choose_layout(ctx, plane);
  if (shape == 0) return skss__cuda_sat_onepass_tiles(ctx, plane, scratch);
  return skss__sat_by_pair<skss__opb_launch>(plane->pair, ctx, plane, scratch, shape);
}

extern "C" skss_status skss__cuda_sat_set_onepass_shape(skss_ctx *ctx, int shape) {
  if (ctx == NULL || ctx->cuda == NULL) return SKSS_ERR_INVALID_ARG;
  if (shape < 0 || shape > SKSS_CUDA_SAT_ONEPASS_SHAPE_COUNT + 1)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "skss__cuda_sat_set_onepass_shape(): shape %d is not in 0..%d", shape,
                      SKSS_CUDA_SAT_ONEPASS_SHAPE_COUNT + 1);
  skss__cuda(ctx)->sat_onepass_shape = shape;
  return SKSS_OK;
}
