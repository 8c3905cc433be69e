/*
 * sat_onepass.cu — SKSS_SAT_ONEPASS (ours): one pass over the data, each
 * input element read once and each output written once, on the task-array
 * scheme of skss-task-arrays.md §IV with the carries found by decoupled
 * look-back (Merrill & Garland) in both directions.
 *
 * The table is cut into tiles of TILE_H = WARPS * ROWS_PER_WARP rows by
 * TILE_W = 32 * VEC columns, numbered row-major; each block takes the next
 * tile by ticket when it starts (so it only ever waits on tiles ticketed
 * before it, whose blocks are running). One tile per block, not a loop: a
 * fresh block's release fences wait on no stores of an earlier tile. Warp
 * w owns ROWS_PER_WARP rows,
 * lane l the VEC adjacent columns at l * VEC (16-byte accesses of 4-byte
 * elements where pointer and pitch allow, scalar ones otherwise). Per tile:
 *   1. each warp loads its rows and scans each within the tile (lane-local
 *      prefix plus a shuffle scan of the lane totals);
 *   2. each row's sum left of the tile, by looking back along the tile
 *      row: each predecessor has published its row totals (its aggregate)
 *      or its rows' prefixes up to its last column (inclusive); warp 0
 *      reads their states, the whole block adds aggregates up to the
 *      nearest inclusive; then this tile's inclusive prefixes are published;
 *   3. each warp turns its rows into full row prefix sums and accumulates
 *      them down its rows; the warps' column totals go to shared memory;
 *   4. the column sums above the tile likewise along the tile column (an
 *      aggregate is a tile's column totals; the inclusive prefix is the
 *      table's row just above, i.e. the tile above's last output row, read
 *      through L2); then this tile's last row is written and published;
 *   5. each warp adds the carry above plus the totals of the warps above it
 *      and stores its rows.
 * The states are epoch-stamped words that outlive the call (common.cuh) and
 * the ticket a running count, so no memset launch precedes the kernel (at
 * 1K x 1K a launch is a tenth of the run).
 * A tile publishes an aggregate only when its first look-back cannot finish
 * at once, or at once when every tile is resident together ("eager"). Every
 * output is a sum of row prefix sums, with no subtraction: floats stay
 * within (i + j + 2) u S(i, j).
 */
#include <climits>
#include <cstring>
#include <type_traits>

#include <cuda/atomic>

#include "../tuning.h"
#include "sat_cuda.cuh"

static const char *const FN = "skss_sat()";

#define SKSS__OP_WARPS SKSS_CUDA_SAT_ONEPASS_WARPS
#define SKSS__OP_RPW SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP
#define SKSS__OP_VEC SKSS_CUDA_SAT_ONEPASS_VEC
#define SKSS__OP_THREADS (SKSS__OP_WARPS * 32)
#define SKSS__OP_TILE_H (SKSS__OP_WARPS * SKSS__OP_RPW)
#define SKSS__OP_TILE_W (32 * SKSS__OP_VEC)
#define SKSS__OP_ROWS_PER_LANE (SKSS__OP_TILE_H / 32)
#define SKSS__OP_LB_LOADS SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS
#define SKSS__OP_FULL_MASK 0xffffffffu
static_assert(SKSS__OP_TILE_H % 32 == 0, "warp 0 publishes the tile's rows, 32 per round");
static_assert(SKSS__OP_THREADS >= SKSS__OP_TILE_H && SKSS__OP_THREADS >= SKSS__OP_TILE_W,
              "one thread per carry element");

/* A tile's published state along one direction (task-array progress). */
enum { SKSS__OP_PENDING = 0, SKSS__OP_AGGREGATE = 1, SKSS__OP_INCLUSIVE = 2 };

/* The tiling of one plane and where its carries live in scratch. */
typedef struct skss__op_tiles {
  int down, across, count;  /* tile rows, tile columns, their product */
  skss__cuda_epoch_flags ta; /* ticket; words[t]: row state, words[count + t]: column state */
  void *row_vals;           /* per tile, TILE_H aggregates then TILE_H inclusive prefixes */
  void *col_vals;           /* per tile, TILE_W aggregates; tile (s, p) at p * down + s */
  bool eager, vec_in, vec_out;
} skss__op_tiles;

/* What a block shares while it works on one tile. */
template <typename Acc>
struct skss__op_shared {
  Acc row_total[SKSS__OP_TILE_H]; /* each row's sum within the tile */
  Acc row_carry[SKSS__OP_TILE_H]; /* each row's sum left of the tile */
  /* warps' column totals; column (lane * VEC + c) at [c][lane]: no bank conflicts */
  Acc warp_cols[SKSS__OP_WARPS][SKSS__OP_VEC][32];
  Acc col_carry[SKSS__OP_VEC][32]; /* the table's row above the tile */
  Acc partial[SKSS__OP_THREADS];   /* look-back partial sums */
  int tile;                        /* the block's ticket */
  int window;                      /* a look-back window (skss__op_poll) */
};

/* The tile a block works on. */
struct skss__op_tile {
  int t, ts, tp;  /* ticket, tile row, tile column */
  int64_t r0, c0; /* its first row and column */
};

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

/* A tile's state along a direction, acquired: data published with it is visible after. */
__device__ __forceinline__ int skss__op_state(const skss__cuda_epoch_flags &ta, int64_t index) {
  cuda::atomic_ref<int, cuda::thread_scope_device> s(ta.words[index]);
  const int v = s.load(cuda::memory_order_acquire) - ta.epoch * 4;
  /* a word of an earlier call (smaller epoch) reads as pending */
  return v == SKSS__OP_AGGREGATE || v == SKSS__OP_INCLUSIVE ? v : SKSS__OP_PENDING;
}

/* Publishes a state, by one thread, after a block or warp barrier that
 * ordered every writer's stores of the data it announces before it. */
__device__ __forceinline__ void skss__op_publish(const skss__cuda_epoch_flags &ta, int64_t index,
                                                 int state) {
  cuda::atomic_ref<int, cuda::thread_scope_device> s(ta.words[index]);
  /* release (cumulative): the writes ordered before it by the barrier are visible first. */
  s.store(ta.epoch * 4 + state, cuda::memory_order_release);
}

/* Warp 0 publishes a state once each lane has written its part of the data. */
__device__ __forceinline__ void skss__op_warp_publish(const skss__cuda_epoch_flags &ta, int64_t index,
                                                      int state) {
  /* every lane's stores are ordered before lane 0's release */
  __syncwarp();
  if ((threadIdx.x & 31) == 0) skss__op_publish(ta, index, state);
}

/* Along a tile row: predecessor q of tile t is tile t - q; element e is
 * row e of the tile. Aggregate: the rows' totals within the tile;
 * inclusive prefix: their sums up to the tile's last column. */
template <typename Acc>
struct skss__op_row_line {
  const skss__cuda_epoch_flags &ta;
  Acc *vals; /* this tile's TILE_H aggregates, then its TILE_H inclusive prefixes */
  const skss__op_shared<Acc> &sh;
  int t, count; /* count: tiles to the left */

  __device__ int state(int q) const { return skss__op_state(ta, t - q); }
  /* predecessor q's aggregates (half 0) or inclusive prefixes (half 1) */
  __device__ const Acc *at(int q, int half) const {
    return vals + ((ptrdiff_t)half - 2 * (ptrdiff_t)q) * SKSS__OP_TILE_H;
  }
  __device__ Acc aggregate(int q, int e) const { return __ldcg(at(q, 0) + e); }
  __device__ Acc inclusive(int q, int e) const { return __ldcg(at(q, 1) + e); }
  /* warp 0 */
  __device__ void publish_aggregate() const {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int k = 0; k < SKSS__OP_ROWS_PER_LANE; k++)
      __stcg(vals + lane + 32 * k, sh.row_total[lane + 32 * k]);
    skss__op_warp_publish(ta, t, SKSS__OP_AGGREGATE);
  }
};

/* Along a tile column: predecessor q of tile t is tile t - q * across;
 * element e is column e of the tile. Aggregate: the tile's column totals
 * (stored by tile column, so that predecessors are adjacent); inclusive
 * prefix: the tile's last output row. */
template <typename Acc>
struct skss__op_col_line {
  const skss__cuda_epoch_flags &ta;
  Acc *vals; /* this tile's TILE_W aggregates; predecessor q's at vals - q * TILE_W */
  const skss__op_shared<Acc> &sh;
  const skss__sat_dev_plane &p;
  int t, count, across; /* count: tiles above */
  int states;           /* index of tile 0's column state: the tile count */
  int64_t r0, c0;       /* the tile's first row and column */

  __device__ int state(int q) const {
    return skss__op_state(ta, states + (int64_t)t - (int64_t)q * across);
  }
  __device__ Acc aggregate(int q, int e) const {
    return __ldcg(vals - (ptrdiff_t)q * SKSS__OP_TILE_W + e);
  }
  __device__ Acc inclusive(int q, int e) const {
    const int64_t row = r0 - 1 - (int64_t)(q - 1) * SKSS__OP_TILE_H;
    if (c0 + e >= p.width) return 0;
    return __ldcg(reinterpret_cast<const Acc *>(p.out + (size_t)row * p.out_pitch) + c0 + e);
  }
  /* warp 0: lane l writes columns l * VEC + c */
  __device__ void publish_aggregate() const {
    const int lane = threadIdx.x & 31;
    Acc v[SKSS__OP_VEC];
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) {
      v[c] = sh.warp_cols[0][c][lane];
#pragma unroll
      for (int w = 1; w < SKSS__OP_WARPS; w++) v[c] += sh.warp_cols[w][c][lane];
    }
    skss__op_store_vec<false>(vals + lane * SKSS__OP_VEC, v);
    skss__op_warp_publish(ta, states + (int64_t)t, SKSS__OP_AGGREGATE);
  }
};

/* Warp 0: waits until the window of predecessors q0 .. q0 + 31 along
 * `line` can be summed and returns n, the aggregates before the first
 * inclusive prefix (32: none), plus LB_INCL when that inclusive prefix is
 * a tile's (not the line's start). While the window is not ready the tile
 * publishes its own aggregate (unless `published`), so that its successors
 * need not wait for it. */
#define SKSS__OP_LB_INCL 64
template <typename Line>
__device__ int skss__op_poll(const Line &line, int q0, bool &published) {
  const int lane = threadIdx.x & 31;
  unsigned ns = 32;
  for (;;) {
    const int q = q0 + lane;
    /* lanes past the line's start stop the look-back like an inclusive prefix of zero */
    const int state = q <= line.count ? line.state(q) : SKSS__OP_INCLUSIVE;
    const unsigned stops = __ballot_sync(SKSS__OP_FULL_MASK, state == SKSS__OP_INCLUSIVE);
    const int n = stops ? __ffs(stops) - 1 : 32;
    const unsigned nearer = n == 32 ? SKSS__OP_FULL_MASK : (1u << n) - 1u;
    if (!(__ballot_sync(SKSS__OP_FULL_MASK, state == SKSS__OP_PENDING) & nearer))
      return n + (n < 32 && q0 + n <= line.count ? SKSS__OP_LB_INCL : 0);
    if (!published) line.publish_aggregate();
    published = true;
    /* spin-wait: the pending predecessors hold earlier tickets, so their blocks are running. */
    __nanosleep(ns);
    ns = ns < 256 ? ns * 2 : 256;
  }
}

/* The whole block: the carry of element e < ELEMS (returned in thread e)
 * from the tile's predecessors along `line`, by decoupled look-back
 * (Merrill & Garland): warp 0 reads 32 predecessors' states at once, then
 * the THREADS / ELEMS threads of each element add, each every PARTS-th of
 * the window's terms (the aggregates of the nearest predecessors and the
 * first inclusive prefix), LB_LOADS loads in flight, and thread e adds
 * their partial sums. */
template <typename Acc, int ELEMS, typename Line>
__device__ Acc skss__op_lookback(const Line &line, bool published, skss__op_shared<Acc> &sh) {
  constexpr int PARTS = SKSS__OP_THREADS / ELEMS;
  static_assert(SKSS__OP_THREADS % ELEMS == 0, "whole threads per carry element");
  const int e = threadIdx.x % ELEMS, part = threadIdx.x / ELEMS;
  Acc carry = 0;
  for (int q0 = 1;;) {
    if (threadIdx.x < 32) {
      const int window = skss__op_poll(line, q0, published);
      if (threadIdx.x == 0) sh.window = window;
    }
    /* the window is in shared memory, and warp 0's acquires precede every thread's reads */
    __syncthreads();
    const int window = sh.window, n = window % SKSS__OP_LB_INCL;
    const int terms = n + (window >= SKSS__OP_LB_INCL); /* term n: the inclusive prefix */
    for (int k0 = part; k0 < terms; k0 += PARTS * SKSS__OP_LB_LOADS) {
      Acc v[SKSS__OP_LB_LOADS];
#pragma unroll
      for (int i = 0; i < SKSS__OP_LB_LOADS; i++) {
        const int k = k0 + i * PARTS;
        v[i] = k < n ? line.aggregate(q0 + k, e) : k < terms ? line.inclusive(q0 + k, e) : Acc(0);
      }
#pragma unroll
      for (int i = 0; i < SKSS__OP_LB_LOADS; i++)
        if (k0 + i * PARTS < terms) carry += v[i];
    }
    if (n < 32) break;
    q0 += 32;
    /* every thread has read the window before warp 0 rewrites it */
    __syncthreads();
  }
  if (PARTS == 1) return carry;
  sh.partial[threadIdx.x] = carry;
  /* the partial sums are in shared memory */
  __syncthreads();
  if (part == 0) {
#pragma unroll
    for (int k = 1; k < PARTS; k++) carry += sh.partial[k * ELEMS + e];
  }
  return carry;
}

/* Step 2: each row's sum left of the tile into sh.row_carry and, for the
 * tile to the right, the rows' sums up to this tile's last column. */
template <typename Acc>
__device__ void skss__op_row_carries(const skss__op_tiles &g, const skss__op_tile &tl,
                                     skss__op_shared<Acc> &sh) {
  Acc *vals = static_cast<Acc *>(g.row_vals) + (size_t)tl.t * 2 * SKSS__OP_TILE_H;
  const skss__op_row_line<Acc> line = {g.ta, vals, sh, tl.t, tl.tp};
  const bool has_next = tl.tp + 1 < g.across;
  const int r = threadIdx.x;
  Acc carry = 0;
  if (tl.tp > 0) {
    if (g.eager && has_next && threadIdx.x < 32) line.publish_aggregate();
    carry = skss__op_lookback<Acc, SKSS__OP_TILE_H>(line, g.eager || !has_next, sh);
  }
  if (r < SKSS__OP_TILE_H) {
    sh.row_carry[r] = carry;
    if (has_next) __stcg(vals + SKSS__OP_TILE_H + r, carry + sh.row_total[r]);
  }
  /* the row carries are in shared memory and the inclusive prefixes written */
  __syncthreads();
  if (has_next && threadIdx.x == 0) skss__op_publish(g.ta, tl.t, SKSS__OP_INCLUSIVE);
}

/* Step 4: the table's row above the tile into sh.col_carry and, for the
 * tile below, this tile's last output row. */
template <typename Acc>
__device__ void skss__op_col_carries(const skss__sat_dev_plane &p, const skss__op_tiles &g,
                                     const skss__op_tile &tl, skss__op_shared<Acc> &sh) {
  Acc *vals = static_cast<Acc *>(g.col_vals) +
              ((size_t)tl.tp * g.down + tl.ts) * SKSS__OP_TILE_W;
  const skss__op_col_line<Acc> line = {g.ta, vals, sh, p, tl.t, tl.ts, g.across, g.count, tl.r0, tl.c0};
  const bool has_next = tl.ts + 1 < g.down;
  const int e = threadIdx.x, c = e % SKSS__OP_VEC, l = e / SKSS__OP_VEC;
  Acc carry = 0;
  if (tl.ts > 0) {
    if (g.eager && has_next && threadIdx.x < 32) line.publish_aggregate();
    carry = skss__op_lookback<Acc, SKSS__OP_TILE_W>(line, g.eager || !has_next, sh);
  }
  if (e < SKSS__OP_TILE_W) {
    sh.col_carry[c][l] = carry;
    if (has_next && tl.c0 + e < p.width) {
      /* the tile is full height: its last row is the carry plus every warp's totals */
#pragma unroll
      for (int w = 0; w < SKSS__OP_WARPS; w++) carry += sh.warp_cols[w][c][l];
      __stcg(reinterpret_cast<Acc *>(p.out + (size_t)(tl.r0 + SKSS__OP_TILE_H - 1) * p.out_pitch) +
                 tl.c0 + e,
             carry);
    }
  }
  /* the column carries are in shared memory and the last row written */
  __syncthreads();
  if (has_next && threadIdx.x == 0) skss__op_publish(g.ta, (int64_t)g.count + tl.t, SKSS__OP_INCLUSIVE);
}

/* The whole tile `t` (steps 1-5 of the header). */
template <typename In, typename Acc>
__device__ __forceinline__ void skss__op_do_tile(const skss__sat_dev_plane &p,
                                                 const skss__op_tiles &g, int t,
                                                 skss__op_shared<Acc> &sh) {
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  skss__op_tile tl;
  tl.t = t;
  tl.ts = t / g.across;
  tl.tp = t - tl.ts * g.across;
  tl.r0 = (int64_t)tl.ts * SKSS__OP_TILE_H;
  tl.c0 = (int64_t)tl.tp * SKSS__OP_TILE_W;
  const int64_t row0 = tl.r0 + warp * SKSS__OP_RPW, col = tl.c0 + lane * SKSS__OP_VEC;
  const int first = warp * SKSS__OP_RPW; /* the warp's first row within the tile */

  Acc x[SKSS__OP_RPW][SKSS__OP_VEC];
#pragma unroll
  for (int k = 0; k < SKSS__OP_RPW; k++) skss__op_load_row<In, Acc>(p, row0 + k, col, g.vec_in, x[k]);
#pragma unroll
  for (int k = 0; k < SKSS__OP_RPW; k++) {
    const Acc total = skss__op_scan_row<Acc>(x[k]);
    if (lane == 31) sh.row_total[first + k] = total;
  }
  /* row totals are in shared memory */
  __syncthreads();
  skss__op_row_carries<Acc>(g, tl, sh);
  Acc colsum[SKSS__OP_VEC];
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) colsum[c] = 0;
#pragma unroll
  for (int k = 0; k < SKSS__OP_RPW; k++) {
    const Acc left = sh.row_carry[first + k];
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) x[k][c] = colsum[c] += left + x[k][c];
  }
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) sh.warp_cols[warp][c][lane] = colsum[c];
  /* warp totals are in shared memory */
  __syncthreads();
  skss__op_col_carries<Acc>(p, g, tl, sh);
  Acc top[SKSS__OP_VEC];
#pragma unroll
  for (int c = 0; c < SKSS__OP_VEC; c++) {
    top[c] = sh.col_carry[c][lane];
#pragma unroll
    for (int w = 0; w < SKSS__OP_WARPS - 1; w++)
      if (w < warp) top[c] += sh.warp_cols[w][c][lane];
  }
  const bool last_row_stored = tl.ts + 1 < g.down && warp == SKSS__OP_WARPS - 1;
#pragma unroll
  for (int k = 0; k < SKSS__OP_RPW; k++) {
    if (last_row_stored && k == SKSS__OP_RPW - 1) continue;
#pragma unroll
    for (int c = 0; c < SKSS__OP_VEC; c++) x[k][c] = top[c] + x[k][c];
    skss__op_store_row<true>(p, row0 + k, col, g.vec_out, x[k]);
  }
}

template <typename In, typename Acc>
__global__ void __launch_bounds__(SKSS__OP_THREADS, sizeof(Acc) == 4
                                                        ? SKSS_CUDA_SAT_ONEPASS_MIN_BLOCKS_4B
                                                        : SKSS_CUDA_SAT_ONEPASS_MIN_BLOCKS_8B)
    skss__sat_onepass_kernel(skss__sat_dev_plane p, skss__op_tiles g) {
  __shared__ skss__op_shared<Acc> sh;
  /* relaxed: the ticket only orders tiles; data is published by the states. */
  if (threadIdx.x == 0) sh.tile = (int)(atomicAdd(g.ta.ticket, 1ull) - g.ta.ticket_base);
  /* the ticket is in shared memory */
  __syncthreads();
  skss__op_do_tile<In, Acc>(p, g, sh.tile, sh);
}

/* The tiling of a plane; false when the tile count (twice, for the
 * states) does not fit an int. */
static bool onepass_tiles(const skss__sat_dev_plane *plane, int *down, int *across) {
  const int64_t d = (plane->height + SKSS__OP_TILE_H - 1) / SKSS__OP_TILE_H;
  const int64_t a = (plane->width + SKSS__OP_TILE_W - 1) / SKSS__OP_TILE_W;
  if (d > INT_MAX / 2 || a > INT_MAX / 2 || d * a > INT_MAX / 2) return false;
  *down = (int)d;
  *across = (int)a;
  return true;
}

/* Scratch bytes: the row carries, then the column aggregates (the states are epoch flags). */
static size_t onepass_scratch_bytes(int count, size_t acc_size, size_t *row_at, size_t *col_at) {
  *row_at = 0;
  *col_at = *row_at + skss__cuda_align((size_t)count * 2 * SKSS__OP_TILE_H * acc_size);
  return *col_at + skss__cuda_align((size_t)count * SKSS__OP_TILE_W * acc_size);
}

struct skss__sat_onepass_acc_size {
  template <typename In, typename Acc>
  static skss_status run(size_t *size) {
    *size = sizeof(Acc);
    return SKSS_OK;
  }
};

struct skss__sat_onepass_launch {
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, const skss__sat_dev_plane *plane, void *scratch, int down,
                         int across) {
    cudaStream_t stream = skss__cuda(ctx)->stream;
    int per_sm = 0, sms = 0;
    SKSS_CUDA_TRY(ctx, FN,
                  cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                      &per_sm, skss__sat_onepass_kernel<In, Acc>, SKSS__OP_THREADS, 0));
    SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                  skss__cuda(ctx)->device));
    skss__op_tiles g = {};
    g.down = down;
    g.across = across;
    g.count = down * across;
    const int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * sms;
    size_t row_at = 0, col_at = 0;
    onepass_scratch_bytes(g.count, sizeof(Acc), &row_at, &col_at);
    g.row_vals = static_cast<uint8_t *>(scratch) + row_at;
    g.col_vals = static_cast<uint8_t *>(scratch) + col_at;
    /* every tile runs at once: its predecessors are working too, publish aggregates early */
    g.eager = g.count <= resident;
    const size_t in_vec = sizeof(In) * SKSS__OP_VEC, out_vec = sizeof(Acc) * SKSS__OP_VEC;
    g.vec_in = (uintptr_t)plane->in % in_vec == 0 && plane->in_pitch % in_vec == 0;
    g.vec_out = (uintptr_t)plane->out % out_vec == 0 && plane->out_pitch % out_vec == 0;
    /* epoch-stamped states and a running ticket: no reset launch before the kernel */
    skss_status st = skss__cuda_epoch_flags_take(ctx, FN, 2 * (size_t)g.count, (unsigned long long)g.count, &g.ta);
    if (st != SKSS_OK) return st;
    skss__sat_onepass_kernel<In, Acc><<<g.count, SKSS__OP_THREADS, 0, stream>>>(*plane, g);
    if (cudaPeekAtLastError() != cudaSuccess) skss__cuda_epoch_flags_abandon(ctx);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }
};

size_t skss__cuda_sat_onepass_scratch(skss_ctx *ctx, int algorithm,
                                      const skss__sat_dev_plane *plane) {
  (void)ctx;
  (void)algorithm;
  int down = 0, across = 0;
  size_t acc_size = 0, row_at = 0, col_at = 0;
  if (!onepass_tiles(plane, &down, &across)) return 0; /* the run reports it */
  if (skss__sat_by_pair<skss__sat_onepass_acc_size>(plane->pair, &acc_size) != SKSS_OK) return 0;
  return onepass_scratch_bytes(down * across, acc_size, &row_at, &col_at);
}

skss_status skss__cuda_sat_onepass(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                   void *scratch) {
  (void)algorithm;
  int down = 0, across = 0;
  if (!onepass_tiles(plane, &down, &across))
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: %lld x %lld has too many tiles", FN,
                      (long long)plane->height, (long long)plane->width);
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown SAT type pair %d", FN, (int)plane->pair);
  return skss__sat_by_pair<skss__sat_onepass_launch>(plane->pair, ctx, plane, scratch, down,
                                                     across);
}
