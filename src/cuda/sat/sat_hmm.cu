/*
 * sat_hmm.cu — the SAT algorithms of Kasagi, Nakano and Ito, "Parallel
 * algorithms for the summed area table on the asynchronous hierarchical
 * memory machine" (sections IV-VII), with the paper's section VIII
 * configuration: w = 32, a kernel boundary for every barrier.
 *
 * 2R2W (IV): one thread per column walks down (coalesced across threads),
 *   then one thread per row walks across the output (strided).
 * 4R4W (IV): column sums, transpose into scratch, column sums there,
 *   transpose back; transposes go through a 32 x 32 shared tile in the
 *   diagonal arrangement (element (r, c) at [r][(r + c) mod 32]), which
 *   makes both row and column accesses bank-conflict free (Lemma 1).
 * 4R1W (VI): formula (1), b = a + b[i][j-1] + b[i-1][j] - b[i-1][j-1] in the
 *   CPU reference's order, one thread per element, one launch per
 *   anti-diagonal i + j = k.
 * 2R1W (V): 32 x 32 tiles, one 128-thread block each (all threads copy,
 *   one warp sums or scans the diagonally arranged shared tile). Kernel 1
 *   (step 1): per tile the column sums C (into Cs, tile rows x W), the row
 *   sums R (into Rt, transposed: tile columns x H, so scanning it is
 *   coalesced) and the tile's sum (into S, tile rows x tile columns).
 *   Step 2: Cs scanned down each column, Rt along each row (one thread per
 *   column / row), and the SAT of S: by one block when S fits a 32 x 32
 *   tile, else by 2R1W itself on S, recursively (16K x 16K: S is 512 x 512,
 *   its own S 16 x 16, so one level of recursion, the paper's k = 1).
 *   Kernel 3 (step 3): each tile reads its input again, adds Cs[I-1] to its
 *   top row, Rt[J-1] to its left column and SAT(S)[I-1][J-1] (=
 *   b[32I-1][32J-1]) to its corner, computes its SAT and writes it.
 * 1R1W (VI): one launch per tile diagonal I + J = k; each tile derives the
 *   same three carries from final outputs: C[c] = b[top][c] - b[top][c-1],
 *   R[r] = b[r][left] - b[r-1][left] (the corner b[top][left] standing in for
 *   index -1), S = the corner, then finishes like 2R1W's kernel 3.
 * (1+r)R1W (VII): tile diagonals [0, kA) by a 2R1W batch, [kA, kB) by 1R1W,
 *   [kB, K) by a 2R1W batch, kA = K - kB = round(sqrt(r) min(tiles down,
 *   tiles across)) (triangles of r/2 of the area each), r from the tuning
 *   table. A batch covers the tiles with k_lo <= I + J < k_hi. Its carries
 *   only need tiles above and to the left; those inside the batch come from
 *   its own tile sums, those before it (I + J < k_lo) are final outputs, so
 *   the scans start from seeds read off them: the column sum above the
 *   batch's first tile of tile column J (first = k_lo - J) is
 *   b[32 first - 1][j] - b[32 first - 1][j - 1] (stored in Cs[first - 1]),
 *   the row sum left of it likewise (in Rt[first - 1]), and the corners
 *   Sp[I][J] = b[32I-1][32J-1] are a running sum down tile column J from
 *   the seed b[32 first - 1][32J - 1], adding per tile row its 32 scanned
 *   row sums Rt[J-1] (one warp a tile column; the paper leaves how (B) gets
 *   its corners open, and a SAT of S cannot see the final outputs). Every
 *   seed's element lies on tile diagonal k_lo - 1 or k_lo - 2, final before
 *   the batch starts. For k_lo = 0 there are no seeds: the batch is plain
 *   2R1W, recursion included, on the triangle (S is zero outside it).
 *
 * Float error (u = 2^-24 f32, 2^-53 f64; S = sum of |load| over the
 * rectangle): 2R2W, 4R4W and 2R1W add every output as one sum of at most
 * i + j + 3 rounded partial sums of nonnegative-weight terms, so they meet
 * (i + j + 2) u S to first order; 4R1W meets the CPU 4R1W's
 * 5 (i + 1)(j + 1) u S (its operations are the same); 1R1W and (1+r)R1W,
 * whose carries are differences of outputs, meet about
 * 70 (i/32 + 1)(j/32 + 1) u S (the errors of formula (1) at tile level,
 * each tile adding at most ~70 u S). Integers are exact modulo 2^32.
 */
#include <math.h>

#include "cuda/tuning.h"
#include "cuda/warp_scan.cuh"
#include "sat_cuda.cuh"
#include "sat_hooks.h"

namespace {

const char *const FN = "skss_sat()";
constexpr int TILE = skss_warp::WIDTH; /* w: the warp width and the tile side */
constexpr int SCAN_THREADS = SKSS_CUDA_SAT_HMM_SCAN_THREADS;
constexpr int TILE_THREADS = SKSS_CUDA_SAT_HMM_TILE_THREADS;
static_assert(SCAN_THREADS % TILE == 0, "whole warps");
static_assert(TILE_THREADS % TILE == 0 && TILE_THREADS >= 2 * TILE, "tile sums use two warps");

/* A pitched 2-D buffer on the device (input, output or scratch). */
struct view {
  uint8_t *base;
  size_t pitch; /* bytes */
};

template <typename T>
__device__ __forceinline__ T &at(view v, int64_t i, int64_t j) {
  return reinterpret_cast<T *>(v.base + static_cast<size_t>(i) * v.pitch)[j];
}

/* One plane as the kernels see it. */
struct sat_args {
  view in, out;
  bool square;
  int64_t h, w;
};

/* The 2R1W carries' scratch: Cs (tile rows x W), Rt (tile columns x H),
 * Sp (seeded corners), S (tile sums) and its SAT (each tile rows x tile
 * columns); `sub`: the scratch of the recursion on S. */
struct tile_sums {
  view cs, rt, sp, s, sat;
  uint8_t *sub;
};

/* The tiles a 2R1W batch covers: k_lo <= I + J < k_hi. */
struct region {
  int64_t k_lo, k_hi;
};

__host__ __device__ __forceinline__ int64_t tiles(int64_t n) { return (n + TILE - 1) / TILE; }

/* Position of element (r, c) in the diagonal arrangement. */
__device__ __forceinline__ int diag(int r, int c) { return (r + c) & (TILE - 1); }

/* A tile's origin and extent inside the plane. */
struct tile_at {
  int64_t I, J, row0, col0;
  int rows, cols;
};

__device__ __forceinline__ tile_at tile_of(int64_t I, int64_t J, const sat_args &a) {
  tile_at t;
  t.I = I;
  t.J = J;
  t.row0 = I * TILE;
  t.col0 = J * TILE;
  t.rows = static_cast<int>(min(static_cast<int64_t>(TILE), a.h - t.row0));
  t.cols = static_cast<int>(min(static_cast<int64_t>(TILE), a.w - t.col0));
  return t;
}

/* All threads copy the tile's loads into shared memory, zeros outside the
 * plane; ends with a barrier. */
template <typename In, typename Acc>
__device__ void load_tile(Acc (*sh)[TILE], const sat_args &a, const tile_at &t) {
  const int lane = threadIdx.x % TILE;
  for (int r = threadIdx.x / TILE; r < TILE; r += blockDim.x / TILE) {
    Acc v = Acc(0);
    if (r < t.rows && lane < t.cols)
      v = skss__sat_load<In, Acc>(at<In>(a.in, t.row0 + r, t.col0 + lane), a.square);
    sh[r][diag(r, lane)] = v;
  }
  __syncthreads(); /* the whole tile is in shared memory before a warp reads it */
}

/* All threads write the tile's part inside the plane; starts with a barrier. */
template <typename Acc>
__device__ void store_tile(Acc (*sh)[TILE], const sat_args &a, const tile_at &t) {
  __syncthreads(); /* the scanning warp has finished the tile */
  const int lane = threadIdx.x % TILE;
  for (int r = threadIdx.x / TILE; r < t.rows; r += blockDim.x / TILE)
    if (lane < t.cols) at<Acc>(a.out, t.row0 + r, t.col0 + lane) = sh[r][diag(r, lane)];
}

template <typename Acc>
__device__ __forceinline__ Acc column_sum(Acc (*sh)[TILE], int c) {
  Acc s = Acc(0);
  for (int r = 0; r < TILE; r++) s += sh[r][diag(r, c)];
  return s;
}

template <typename Acc>
__device__ __forceinline__ Acc row_sum(Acc (*sh)[TILE], int r) {
  Acc s = Acc(0);
  for (int c = 0; c < TILE; c++) s += sh[r][diag(r, c)];
  return s;
}

/* What a tile adds before its SAT: lane c's column sum above the tile
 * (top), lane r's row sum left of it (left), and the sum above-left of it
 * (corner, used by lane 0). */
template <typename Acc>
struct carries {
  Acc top, left, corner;
};

/* Warp 0 only: adds the carries to the top row, left column and corner,
 * then the tile's SAT: row prefix sums (lane = row), column prefix sums
 * (lane = column), both conflict-free in the diagonal arrangement. */
template <typename Acc>
__device__ void carry_and_scan(Acc (*sh)[TILE], int lane, const carries<Acc> &carry) {
  sh[0][diag(0, lane)] += carry.top;
  __syncwarp(); /* lane 0 wrote (0, 0) above and writes it again below */
  sh[lane][diag(lane, 0)] += carry.left;
  if (lane == 0) sh[0][0] += carry.corner;
  __syncwarp(); /* carries in place before rows are scanned across lanes */
  Acc s = Acc(0);
  for (int c = 0; c < TILE; c++) s = sh[lane][diag(lane, c)] += s;
  __syncwarp(); /* every row scanned before the columns read them */
  s = Acc(0);
  for (int r = 0; r < TILE; r++) s = sh[r][diag(r, lane)] += s;
}

/* ---- 2R2W and 4R4W ---- */

/* dst[i][j] = sum of load(src[i'][j]), i' <= i; one thread per column.
 * In place when src == dst (In = Acc, square false). */
template <typename In, typename Acc>
__global__ void column_scan(view src, bool square, view dst, int64_t rows, int64_t cols) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  Acc s = Acc(0);
  for (int64_t i = 0; i < rows; i++) {
    s += skss__sat_load<In, Acc>(at<In>(src, i, j), square);
    at<Acc>(dst, i, j) = s;
  }
}

/* buf[i][j] = sum of buf[i][j'], j' <= j; one thread per row. */
template <typename Acc>
__global__ void row_scan(view buf, int64_t rows, int64_t cols) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= rows) return;
  Acc s = Acc(0);
  for (int64_t j = 0; j < cols; j++) s = at<Acc>(buf, i, j) += s;
}

/* dst (cols x rows) = transpose of src (rows x cols), one 32 x 32 tile per
 * block through the diagonal arrangement: read rows, write rows. */
template <typename Acc>
__global__ void transpose(view src, view dst, int64_t rows, int64_t cols) {
  __shared__ Acc sh[TILE][TILE];
  const int64_t across = tiles(cols);
  const int64_t r0 = blockIdx.x / across * TILE, c0 = blockIdx.x % across * TILE;
  const int lane = threadIdx.x % TILE, warps = blockDim.x / TILE;
  for (int r = threadIdx.x / TILE; r < TILE; r += warps)
    if (r0 + r < rows && c0 + lane < cols) sh[r][diag(r, lane)] = at<Acc>(src, r0 + r, c0 + lane);
  __syncthreads(); /* the tile is complete before it is read by columns */
  for (int c = threadIdx.x / TILE; c < TILE; c += warps)
    if (c0 + c < cols && r0 + lane < rows) at<Acc>(dst, c0 + c, r0 + lane) = sh[lane][diag(lane, c)];
}

/* ---- 4R1W ---- */

/* Formula (1) for the elements of anti-diagonal k, one thread each. */
template <typename In, typename Acc>
__global__ void formula1_diagonal(sat_args a, int64_t k, int64_t i_first, int64_t count) {
  const int64_t t = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= count) return;
  const int64_t i = i_first + t, j = k - i;
  Acc b = skss__sat_load<In, Acc>(at<In>(a.in, i, j), a.square);
  if (j > 0) b += at<Acc>(a.out, i, j - 1);
  if (i > 0) b += at<Acc>(a.out, i - 1, j);
  if (i > 0 && j > 0) b -= at<Acc>(a.out, i - 1, j - 1);
  at<Acc>(a.out, i, j) = b;
}

/* ---- 2R1W batches ---- */

__device__ __forceinline__ bool in_region(region g, int64_t I, int64_t J) {
  return I + J >= g.k_lo && I + J < g.k_hi;
}

/* Kernel 1: column sums into Cs[I], row sums into Rt[J]. */
template <typename In, typename Acc>
__global__ void tile_sums_kernel(sat_args a, tile_sums s, region g) {
  __shared__ Acc sh[TILE][TILE];
  const int64_t across = tiles(a.w);
  const int64_t I = blockIdx.x / across, J = blockIdx.x % across;
  if (!in_region(g, I, J)) return; /* block-uniform, before any barrier */
  const tile_at t = tile_of(I, J, a);
  load_tile<In, Acc>(sh, a, t);
  const int warp = threadIdx.x / TILE, lane = threadIdx.x % TILE;
  if (warp == 0) {
    /* outside the plane the tile holds zeros, so every lane's sum counts */
    const Acc c = column_sum(sh, lane);
    if (lane < t.cols) at<Acc>(s.cs, I, t.col0 + lane) = c;
    const Acc total = skss_warp::reduce_to_lane0(c);
    if (lane == 0) at<Acc>(s.s, I, J) = total;
  }
  if (warp == 1 && lane < t.rows) at<Acc>(s.rt, J, t.row0 + lane) = row_sum(sh, lane);
}

/* The first and end (exclusive) tile index along a tile line (tile column
 * J: tile rows; tile row I: tile columns) that lies in the region. */
__device__ __forceinline__ void line_span(region g, int64_t line, int64_t count, int64_t *first,
                                          int64_t *end) {
  *first = max(static_cast<int64_t>(0), g.k_lo - line);
  *end = min(count, g.k_hi - line);
}

/* Kernel 2a: Cs scanned down column j over the region's tiles, from the
 * seed above them. */
template <typename Acc>
__global__ void column_carry_scan(sat_args a, tile_sums s, region g) {
  const int64_t j = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= a.w) return;
  int64_t first, end;
  line_span(g, j / TILE, tiles(a.h), &first, &end);
  if (first >= end) return;
  Acc sum = Acc(0);
  if (first > 0) {
    const int64_t i = first * TILE - 1;
    sum = at<Acc>(a.out, i, j) - (j > 0 ? at<Acc>(a.out, i, j - 1) : Acc(0));
    at<Acc>(s.cs, first - 1, j) = sum;
  }
  for (int64_t I = first; I < end; I++) sum = at<Acc>(s.cs, I, j) += sum;
}

/* Kernel 2b: Rt scanned along row i over the region's tiles, from the seed
 * left of them. */
template <typename Acc>
__global__ void row_carry_scan(sat_args a, tile_sums s, region g) {
  const int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= a.h) return;
  int64_t first, end;
  line_span(g, i / TILE, tiles(a.w), &first, &end);
  if (first >= end) return;
  Acc sum = Acc(0);
  if (first > 0) {
    const int64_t j = first * TILE - 1;
    sum = at<Acc>(a.out, i, j) - (i > 0 ? at<Acc>(a.out, i - 1, j) : Acc(0));
    at<Acc>(s.rt, first - 1, i) = sum;
  }
  for (int64_t J = first; J < end; J++) sum = at<Acc>(s.rt, J, i) += sum;
}

/* Kernel 2c, after 2b, for a batch with seeds (k_lo > 0): Sp[I][J] =
 * b[32I-1][32J-1] for the region's tiles of tile column J >= 1, one warp per
 * tile column: the seed corner plus, per tile row, the sum of its 32 rows'
 * row sums left of column 32J. */
template <typename Acc>
__global__ void corner_carry_scan(sat_args a, tile_sums s, region g) {
  const int64_t J = (static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / TILE + 1;
  const int lane = threadIdx.x % TILE;
  if (J >= tiles(a.w)) return; /* warp-uniform */
  int64_t first, end;
  line_span(g, J, tiles(a.h), &first, &end);
  if (first >= end) return;
  Acc corner = first > 0 ? at<Acc>(a.out, first * TILE - 1, J * TILE - 1) : Acc(0);
  if (lane == 0) at<Acc>(s.sp, first, J) = corner;
  for (int64_t I = first; I + 1 < end; I++) { /* tile row I is full: I < tiles(h) - 1 */
    /* the total is in lane 0, which alone writes */
    corner += skss_warp::reduce_to_lane0(at<Acc>(s.rt, J - 1, I * TILE + lane));
    if (lane == 0) at<Acc>(s.sp, I + 1, J) = corner;
  }
}

/* Kernel 3: each tile of the region reads its input again, adds its
 * carries from Cs, Rt and Sp, and writes its SAT. */
template <typename In, typename Acc>
__global__ void tile_finish_kernel(sat_args a, tile_sums s, region g) {
  __shared__ Acc sh[TILE][TILE];
  const int64_t across = tiles(a.w);
  const int64_t I = blockIdx.x / across, J = blockIdx.x % across;
  if (!in_region(g, I, J)) return; /* block-uniform, before any barrier */
  const tile_at t = tile_of(I, J, a);
  load_tile<In, Acc>(sh, a, t);
  const int lane = threadIdx.x % TILE;
  if (threadIdx.x < TILE) {
    carries<Acc> carry;
    carry.top = I > 0 && lane < t.cols ? at<Acc>(s.cs, I - 1, t.col0 + lane) : Acc(0);
    carry.left = J > 0 && lane < t.rows ? at<Acc>(s.rt, J - 1, t.row0 + lane) : Acc(0);
    carry.corner = I == 0 || J == 0 ? Acc(0) : g.k_lo == 0 ? at<Acc>(s.sat, I - 1, J - 1) : at<Acc>(s.sp, I, J);
    carry_and_scan(sh, lane, carry);
  }
  store_tile(sh, a, t);
}

/* ---- 1R1W ---- */

/* The carries of tile t from the final outputs above and left of it. */
template <typename Acc>
__device__ carries<Acc> carries_from_outputs(const sat_args &a, const tile_at &t, int lane) {
  const Acc corner = t.I > 0 && t.J > 0 ? at<Acc>(a.out, t.row0 - 1, t.col0 - 1) : Acc(0);
  const Acc up = t.I > 0 && lane < t.cols ? at<Acc>(a.out, t.row0 - 1, t.col0 + lane) : Acc(0);
  const Acc side = t.J > 0 && lane < t.rows ? at<Acc>(a.out, t.row0 + lane, t.col0 - 1) : Acc(0);
  Acc up_before = skss_warp::from_below(up, 1);
  Acc side_before = skss_warp::from_below(side, 1);
  if (lane == 0) up_before = side_before = corner;
  carries<Acc> carry;
  carry.top = lane < t.cols ? up - up_before : Acc(0);
  carry.left = lane < t.rows ? side - side_before : Acc(0);
  carry.corner = corner;
  return carry;
}

/* One stage: the tiles (I_first + blockIdx.x, k - I) of tile diagonal k. */
template <typename In, typename Acc>
__global__ void tile_diagonal_kernel(sat_args a, int64_t k, int64_t i_first) {
  __shared__ Acc sh[TILE][TILE];
  const int64_t I = i_first + blockIdx.x;
  const tile_at t = tile_of(I, k - I, a);
  load_tile<In, Acc>(sh, a, t);
  if (threadIdx.x < TILE) {
    const int lane = static_cast<int>(threadIdx.x);
    carry_and_scan(sh, lane, carries_from_outputs<Acc>(a, t, lane));
  }
  store_tile(sh, a, t);
}

/* ---- host side ---- */

unsigned blocks_for(int64_t items, int threads) {
  return static_cast<unsigned>((items + threads - 1) / threads);
}

/* The first index and the count of a diagonal k's cells in a rows x cols grid. */
void diagonal_span(int64_t k, int64_t rows, int64_t cols, int64_t *first, int64_t *count) {
  *first = k - cols + 1 > 0 ? k - cols + 1 : 0;
  const int64_t last = k < rows - 1 ? k : rows - 1;
  *count = last - *first + 1;
}

/* Whether the SAT of an h x w plane's tile sums takes a recursion (S does
 * not fit one tile) rather than one block. */
bool sums_recurse(int64_t h, int64_t w) { return tiles(h) > TILE || tiles(w) > TILE; }

struct sums_layout {
  size_t rt, sp, s, sat, sub, total; /* byte offsets (Cs at 0) and the size */
};

/* Grows with h and w, so a plane's scratch also holds any smaller plane's
 * (the triangle batches of (1+r)R1W recurse on part of S). */
sums_layout layout_sums(int64_t h, int64_t w, size_t acc) {
  const size_t th = static_cast<size_t>(tiles(h)), tw = static_cast<size_t>(tiles(w));
  const size_t grid = skss__cuda_align(th * tw * acc);
  sums_layout l;
  l.rt = skss__cuda_align(th * static_cast<size_t>(w) * acc);
  l.sp = l.rt + skss__cuda_align(tw * static_cast<size_t>(h) * acc);
  l.s = l.sp + grid;
  l.sat = l.s + grid;
  l.sub = l.sat + grid;
  l.total = l.sub + (sums_recurse(h, w) ? layout_sums(tiles(h), tiles(w), acc).total : 0);
  return l;
}

template <typename Acc>
tile_sums sums_in(void *scratch, int64_t h, int64_t w) {
  uint8_t *base = static_cast<uint8_t *>(scratch);
  const sums_layout l = layout_sums(h, w, sizeof(Acc));
  const size_t across = static_cast<size_t>(tiles(w)) * sizeof(Acc);
  tile_sums s;
  s.cs = {base, static_cast<size_t>(w) * sizeof(Acc)};
  s.rt = {base + l.rt, static_cast<size_t>(h) * sizeof(Acc)};
  s.sp = {base + l.sp, across};
  s.s = {base + l.s, across};
  s.sat = {base + l.sat, across};
  s.sub = base + l.sub;
  return s;
}

/* (1+r)R1W's r for this plane: Table II interpolated in sqrt(H * W). */
double hybrid_r(int64_t h, int64_t w) {
#define SKSS__HMM_SIDE(side, r) side,
#define SKSS__HMM_R(side, r) r,
  static const double sides[] = {SKSS_CUDA_SAT_HMM_R_TABLE(SKSS__HMM_SIDE)};
  static const double rs[] = {SKSS_CUDA_SAT_HMM_R_TABLE(SKSS__HMM_R)};
#undef SKSS__HMM_SIDE
#undef SKSS__HMM_R
  const int n = static_cast<int>(sizeof(sides) / sizeof(sides[0]));
  const double side = sqrt(static_cast<double>(h) * static_cast<double>(w));
  if (side <= sides[0]) return rs[0];
  for (int i = 1; i < n; i++)
    if (side <= sides[i])
      return rs[i - 1] + (rs[i] - rs[i - 1]) * (side - sides[i - 1]) / (sides[i] - sides[i - 1]);
  return rs[n - 1];
}

struct launcher {
  skss_ctx *ctx;
  cudaStream_t stream;
  sat_args a;

  template <typename In, typename Acc>
  skss_status sat_2r2w() {
    column_scan<In, Acc><<<blocks_for(a.w, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(
        a.in, a.square, a.out, a.h, a.w);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    row_scan<Acc><<<blocks_for(a.h, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(a.out, a.h, a.w);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }

  /* Steps 1-4 of section IV; `scratch` holds the W x H transpose. */
  template <typename In, typename Acc>
  skss_status sat_4r4w(void *scratch) {
    const view t = {static_cast<uint8_t *>(scratch), static_cast<size_t>(a.h) * sizeof(Acc)};
    const unsigned tile_blocks = static_cast<unsigned>(tiles(a.h) * tiles(a.w));
    column_scan<In, Acc><<<blocks_for(a.w, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(
        a.in, a.square, a.out, a.h, a.w);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    transpose<Acc><<<tile_blocks, SCAN_THREADS, 0, stream>>>(a.out, t, a.h, a.w);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    column_scan<Acc, Acc><<<blocks_for(a.h, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(
        t, false, t, a.w, a.h);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    transpose<Acc><<<tile_blocks, SCAN_THREADS, 0, stream>>>(t, a.out, a.w, a.h);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }

  template <typename In, typename Acc>
  skss_status sat_4r1w() {
    for (int64_t k = 0; k < a.h + a.w - 1; k++) {
      int64_t first, count;
      diagonal_span(k, a.h, a.w, &first, &count);
      formula1_diagonal<In, Acc><<<blocks_for(count, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(
          a, k, first, count);
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    }
    return SKSS_OK;
  }

  /* The 2R1W batch of tile diagonals [k_lo, k_hi). */
  template <typename In, typename Acc>
  skss_status batch(const tile_sums &s, region g) {
    if (g.k_lo >= g.k_hi) return SKSS_OK;
    const int64_t tw = tiles(a.w);
    const unsigned tile_blocks = static_cast<unsigned>(tiles(a.h) * tw);
    tile_sums_kernel<In, Acc><<<tile_blocks, TILE_THREADS, 0, stream>>>(a, s, g);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    column_carry_scan<Acc><<<blocks_for(a.w, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(a, s, g);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    row_carry_scan<Acc><<<blocks_for(a.h, SCAN_THREADS), SCAN_THREADS, 0, stream>>>(a, s, g);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    if (g.k_lo > 0 && tw > 1) {
      corner_carry_scan<Acc><<<blocks_for((tw - 1) * TILE, TILE_THREADS), TILE_THREADS, 0, stream>>>(
          a, s, g);
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    } else if (g.k_lo == 0 && tiles(a.h) > 1 && tw > 1) {
      const skss_status st = sums_sat<Acc>(s, g);
      if (st != SKSS_OK) return st;
    }
    tile_finish_kernel<In, Acc><<<tile_blocks, TILE_THREADS, 0, stream>>>(a, s, g);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }

  /* Step 2's SAT of the tile sums S of a batch from diagonal 0: only its
   * tiles' corners are read, all within the first k_hi tile rows and
   * columns; when the batch is a triangle, S is zero outside it. */
  template <typename Acc>
  skss_status sums_sat(const tile_sums &s, region g) {
    const int64_t th = tiles(a.h), tw = tiles(a.w);
    const int64_t rows = th < g.k_hi ? th : g.k_hi, cols = tw < g.k_hi ? tw : g.k_hi;
    launcher sub = {ctx, stream, {s.s, s.sat, false, rows, cols}};
    if (rows <= TILE && cols <= TILE) {
      /* one DMM: the lone tile of S, no carries */
      tile_diagonal_kernel<Acc, Acc><<<1, TILE_THREADS, 0, stream>>>(sub.a, 0, 0);
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
      return SKSS_OK;
    }
    return sub.batch<Acc, Acc>(sums_in<Acc>(s.sub, rows, cols), region{0, tiles(rows) + tiles(cols) - 1});
  }

  /* 1R1W stages k_lo .. k_hi - 1. */
  template <typename In, typename Acc>
  skss_status stages(int64_t k_lo, int64_t k_hi) {
    for (int64_t k = k_lo; k < k_hi; k++) {
      int64_t first, count;
      diagonal_span(k, tiles(a.h), tiles(a.w), &first, &count);
      tile_diagonal_kernel<In, Acc><<<static_cast<unsigned>(count), TILE_THREADS, 0, stream>>>(
          a, k, first);
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    }
    return SKSS_OK;
  }

  template <typename In, typename Acc>
  skss_status sat_hybrid(void *scratch) {
    const int64_t th = tiles(a.h), tw = tiles(a.w), diagonals = th + tw - 1;
    const double side = static_cast<double>(th < tw ? th : tw);
    const double set_r = skss__cuda(ctx)->sat_hybrid_r; /* the bench's sweep (sat_hooks.h) */
    const double r = set_r > 0 ? set_r : hybrid_r(a.h, a.w);
    int64_t ka = llround(sqrt(r) * side);
    if (ka > diagonals / 2) ka = diagonals / 2;
    const tile_sums s = sums_in<Acc>(scratch, a.h, a.w);
    /* triangle A's tile sums are zero outside it (the SAT of S reads them) */
    if (ka > 0)
      SKSS_CUDA_TRY(ctx, FN, cudaMemset2DAsync(s.s.base, s.s.pitch, 0, static_cast<size_t>(tw) * sizeof(Acc),
                                               static_cast<size_t>(th), stream));
    skss_status st = batch<In, Acc>(s, region{0, ka});
    if (st == SKSS_OK) st = stages<In, Acc>(ka, diagonals - ka);
    if (st == SKSS_OK) st = batch<In, Acc>(s, region{diagonals - ka, diagonals});
    return st;
  }
};

/* skss__sat_by_pair functor: runs `algorithm` on the plane's type pair. */
struct hmm_run {
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *p, void *scratch) {
    launcher L = {ctx, skss__cuda(ctx)->stream,
                  {{const_cast<uint8_t *>(p->in), p->in_pitch}, {p->out, p->out_pitch}, p->square,
                   p->height, p->width}};
    const int64_t diagonals = tiles(p->height) + tiles(p->width) - 1;
    switch (algorithm) {
      case SKSS_SAT_ALGORITHM_2R2W: return L.sat_2r2w<In, Acc>();
      case SKSS_SAT_ALGORITHM_4R4W: return L.sat_4r4w<In, Acc>(scratch);
      case SKSS_SAT_ALGORITHM_4R1W: return L.sat_4r1w<In, Acc>();
      case SKSS_SAT_ALGORITHM_2R1W:
        return L.batch<In, Acc>(sums_in<Acc>(scratch, p->height, p->width), region{0, diagonals});
      case SKSS_SAT_ALGORITHM_1R1W: return L.stages<In, Acc>(0, diagonals);
      case SKSS_SAT_ALGORITHM_1PR_R1W: return L.sat_hybrid<In, Acc>(scratch);
      default:
        return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: algorithm %d is not an HMM one", FN,
                          algorithm);
    }
  }
};

/* skss__sat_by_pair functor: the pair's accumulator size. */
struct acc_size {
  template <typename In, typename Acc>
  static skss_status run(size_t *bytes) {
    *bytes = sizeof(Acc);
    return SKSS_OK;
  }
};

}  // namespace

size_t skss__cuda_sat_hmm_scratch(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane) {
  (void)ctx;
  size_t acc = 0;
  if (skss__sat_by_pair<acc_size>(plane->pair, &acc) != SKSS_OK) return 0;
  switch (algorithm) {
    case SKSS_SAT_ALGORITHM_4R4W:
      return static_cast<size_t>(plane->height) * static_cast<size_t>(plane->width) * acc;
    case SKSS_SAT_ALGORITHM_2R1W:
    case SKSS_SAT_ALGORITHM_1PR_R1W: return layout_sums(plane->height, plane->width, acc).total;
    default: return 0;
  }
}

skss_status skss__cuda_sat_hmm(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                               void *scratch) {
  if (static_cast<unsigned>(plane->pair) >= SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown type pair %d", FN,
                      static_cast<int>(plane->pair));
  return skss__sat_by_pair<hmm_run>(plane->pair, ctx, algorithm, plane, scratch);
}

extern "C" skss_status skss__cuda_sat_set_hybrid_r(skss_ctx *ctx, double r) {
  if (ctx == NULL || ctx->cuda == NULL) return SKSS_ERR_INVALID_ARG;
  if (!(r >= 0 && r < 1))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "skss__cuda_sat_set_hybrid_r(): r = %g is not in [0, 1)", r);
  skss__cuda(ctx)->sat_hybrid_r = r;
  return SKSS_OK;
}
