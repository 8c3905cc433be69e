/*
 * halftone_parallelogram.cu — the error-diffusion paper's algorithms
 * optimised for CUDA (Kasagi, Nakano, Ito, parallel error diffusion, Section V, Table IV;
 * Table V (4)): 2-D PED and 2-D PEC on parallelogram blocks in shared
 * memory, with and without register caching (RC).
 *
 * Partition. The image is cut into strips of w = 32 rows; strip I is cut
 * into parallelogram blocks of 32 rows of 32 pixels, each row shifted left
 * by the kernel's slope s from the row above: row r of block b holds
 * columns 32 b - s r .. 32 b - s r + 31 (local column p = x - 32 b + s r), so
 * NB = (W - 1 + 31 s) / 32 + 1 blocks cover a strip (the paper's
 * sqrt(n)/w + 2 for s = 2). A block's pixels depend on its own earlier
 * columns, on block b - 1 of its strip and on blocks up to b + s of the
 * strip above, so block (I, b) gets label b + (s + 1) I (the paper's 3i + b
 * for s = 2) and the blocks of one label are independent: one launch per
 * label, one CUDA block of one warp per parallelogram block, NB + (s+1)(NS-1)
 * launches for NS strips.
 *
 * Inside a block lane r owns row r and all lanes walk the local columns
 * p = 0..31 together: in local columns every neighbour a pixel collects
 * from (or pushes to) in the rows above (below) lies at a smaller (larger)
 * p, so this is the paper's 2-delay (s-delay) scan on the parallelogram,
 * one __syncwarp() per step where the paper relied on the warp's lockstep.
 * Shared memory: the block's pixels plus a halo, 32 + R - 1 rows (R = the
 * kernel's rows) of G + 32 cells (odd pitch, so the 32 lanes' accesses to
 * one column hit 32 banks: the paper's (w+1) x (w+3) array, Fig. 5), and the
 * 0/255 bytes (packed 4 to a word, 33 words a row, conflict-free), copied
 * out row by row (32 consecutive bytes) at the end.
 *
 * Between blocks only "additional pixels" travel through global memory
 * (n + O(n/w) reads and writes in all): the last R - 1 rows of each strip
 * (natural columns, coalesced) and the last G columns of each block's rows
 * (one 32 x G array per block, a 2-slot ring per strip, coalesced), where G
 * is the widest reach into the left block: G = max over kernel rows dy of
 * s dy + (farthest column right that row dy sends to) — 3 for
 * Floyd-Steinberg, the paper's "three pixels to the left".
 *  - PEC: the shared array holds the input of each pixel until it is done,
 *    then its error (the paper's in-place a[i][j] <- s - r); a pixel collects
 *    w * e from its processed neighbours there. The additional pixels are
 *    errors (int16).
 *  - PED: a shared int32 accumulator per pixel (inputs apart), initialised
 *    with what earlier blocks pushed; each pixel divides its accumulator
 *    once (the same bytes as collection) and pushes w * e to its
 *    neighbours, rows below and the next block's first G columns included;
 *    the pushes beyond the block go out as partial sums: to the next
 *    block's 32 x G array (plain stores) and added into the strip's bottom
 *    accumulator rows (read-modify-write: one block per strip runs per
 *    label, and by the labels' order the strip below reads them only once
 *    every block that pushes to them is done). Where the paper relied on
 *    the lockstep warp to keep lane r's push to its own row apart from lane
 *    r - 1's push to the row below (its 7/16 and 3/16 meet), the pushes go
 *    in phases by target row, a __syncwarp() between phases.
 *  - RC (register caching, Section II): PEC-RC keeps the errors a pixel
 *    collects from its rows above and its own row in per-lane registers
 *    (windows that shift one column per step), so each step reads only the
 *    input, the newest error of each row above and writes the error; PED-RC
 *    keeps its pushes to its own row and to the next rows in register
 *    windows and adds each cell of a row below to shared memory once, when
 *    no more of its pushes can reach it.
 * Generalised to every dither kernel of skss.h through s (slope), R (rows)
 * and G above; pixels outside the image (a strip's rows past H, columns
 * outside 0..W-1) take part with error 0 and are never written, so any size
 * works.
 */
#include "halftone_cuda.cuh"

namespace {

const char *const FN = "skss_halftone()";
constexpr int WARP = 32; /* w: lanes per block, rows per strip, pixels per block row */

/* ---- the kernel's geometry ---- */

template <typename K>
__host__ __device__ constexpr bool pushes(int dy, int j) {
  return dy < K::rows && (dy > 0 || j >= 3) && K::weight(dy, j) != 0;
}

/* Smallest / largest j with a weight in row dy (5 / -1 if none). */
template <typename K>
__host__ __device__ constexpr int j_min(int dy) {
  for (int j = 0; j < 5; j++)
    if (pushes<K>(dy, j)) return j;
  return 5;
}
template <typename K>
__host__ __device__ constexpr int j_max(int dy) {
  for (int j = 4; j >= 0; j--)
    if (pushes<K>(dy, j)) return j;
  return -1;
}

/* G: how far a block's rows reach into the left block's rows (collection)
 * or the right block's (diffusion), in cells. */
template <typename K>
__host__ __device__ constexpr int halo() {
  int g = 0;
  for (int dy = 0; dy < K::rows; dy++)
    if (j_max<K>(dy) >= 0 && K::slope * dy + j_max<K>(dy) - 2 > g) g = K::slope * dy + j_max<K>(dy) - 2;
  return g;
}

__host__ __device__ constexpr int odd(int n) { return n | 1; }

template <typename K>
struct shape {
  static constexpr int S = K::slope, R = K::rows, LABEL_STEP = K::slope + 1;
  static constexpr int G = halo<K>();
  static constexpr int ROWS = WARP + R - 1;      /* shared rows: halo above (PEC) or below (PED) */
  static constexpr int PITCH = odd(WARP + G);    /* PEC: columns -G..31; PED: 0..31+G */
  static_assert(G >= 2 && G <= WARP, "the halo lies in the neighbouring block");
};

/* What every block of a launch needs. */
struct pg_args {
  const uint8_t *in;
  size_t in_pitch;
  uint8_t *out;
  size_t out_pitch;
  int64_t height, width;
  int strips, blocks; /* NS, NB */
  int white_above;
  void *bottom;       /* strips x (R-1) x W: each strip's last rows (PEC, int16) or
                         the pushes to the next strip's first rows (PED, int32) */
  void *side;         /* strips x 2 x 32 x G: a block's last G columns (PEC) or
                         its pushes to the next block's first G (PED) */
};

/* Block (I, b) of a launch: row r, local column p at pixel (y0 + r, x0 - s r + p). */
template <typename K>
struct block_at {
  int I, b;
  int64_t y0, x0;
  __device__ __forceinline__ block_at(int t, int I_lo) {
    I = I_lo + (int)blockIdx.x;
    b = t - shape<K>::LABEL_STEP * I;
    y0 = (int64_t)WARP * I;
    x0 = (int64_t)WARP * b;
  }
  __device__ __forceinline__ int64_t x(int r, int p) const { return x0 - (int64_t)shape<K>::S * r + p; }
  __device__ __forceinline__ bool inside(const pg_args &a, int r, int p) const {
    const int64_t xx = x(r, p);
    return y0 + r < a.height && xx >= 0 && xx < a.width;
  }
  /* Start of the 32 x G side array of this strip's block bb. */
  __device__ __forceinline__ size_t side(int bb) const {
    return ((size_t)I * 2 + (size_t)(bb & 1)) * WARP * shape<K>::G;
  }
  /* Start of bottom row q of strip II. */
  __device__ __forceinline__ size_t bottom(const pg_args &a, int II, int q) const {
    return ((size_t)II * (shape<K>::R - 1) + (size_t)q) * (size_t)a.width;
  }
};

/* Packs lane r's byte of column p into its word; stores every 4th column. */
__device__ __forceinline__ void put_byte(uint32_t (*bytes)[WARP + 1], int r, int p, int white,
                                         uint32_t *word) {
  *word |= (uint32_t)white << (8 * (p & 3));
  if ((p & 3) == 3) {
    bytes[r][p >> 2] = *word;
    *word = 0;
  }
}

/* Copies the block's 0/255 bytes of pixels inside the image out, row by row. */
template <typename K>
__device__ __forceinline__ void store_bytes(const pg_args &a, const block_at<K> &blk,
                                            uint32_t (*bytes)[WARP + 1]) {
  const int lane = threadIdx.x;
  for (int r = 0; r < WARP; r++)
    if (blk.inside(a, r, lane))
      a.out[(size_t)(blk.y0 + r) * a.out_pitch + (size_t)blk.x(r, lane)] =
          reinterpret_cast<const uint8_t *>(bytes[r])[lane];
}

/* ---- 2-D PEC ---- */

template <typename K, bool RC>
__global__ void __launch_bounds__(WARP) pec_block(pg_args a, int t, int I_lo) {
  using P = shape<K>;
  constexpr int S = P::S, R = P::R, G = P::G, UP = R - 1;
  /* E[UP + r][G + p]: input of pixel (r, p) until it is done, then its error;
   * rows r < 0 and columns p < 0 are the halo (errors of earlier blocks). */
  __shared__ int E[P::ROWS][P::PITCH];
  __shared__ uint32_t bytes[WARP][WARP + 1];
  const block_at<K> blk(t, I_lo);
  const int lane = threadIdx.x;
  int16_t *bottom = static_cast<int16_t *>(a.bottom), *side = static_cast<int16_t *>(a.side);

  for (int r = 0; r < WARP; r++)
    E[UP + r][G + lane] =
        blk.inside(a, r, lane) ? a.in[(size_t)(blk.y0 + r) * a.in_pitch + (size_t)blk.x(r, lane)] : 0;
  for (int k = lane; k < WARP * G; k += WARP)
    E[UP + k / G][k % G] = blk.b > 0 ? side[blk.side(blk.b - 1) + k] : 0;
  for (int q = 0; q < UP; q++)
    for (int c = lane; c < G + WARP; c += WARP) {
      const int64_t x = blk.x(q - UP, c - G);
      E[q][c] = blk.I > 0 && x >= 0 && x < a.width ? bottom[blk.bottom(a, blk.I - 1, q) + (size_t)x] : 0;
    }
  __syncwarp(); /* pixels and halo are in shared memory before lanes read each other's */

  const int r = lane;
  int *row = E[UP + r] + G;
  uint32_t word = 0;
  if (!RC) {
    for (int p = 0; p < WARP; p++) {
      int sum = 0;
#pragma unroll
      for (int dy = 0; dy < R; dy++)
#pragma unroll
        for (int j = 0; j < 5; j++)
          if (pushes<K>(dy, j)) sum += K::weight(dy, j) * E[UP + r - dy][G + p - (j - 2) - S * dy];
      int white;
      const int e = skss__ht_pixel<K>(row[p], sum, a.white_above, &white);
      row[p] = blk.inside(a, r, p) ? e : 0;
      put_byte(bytes, r, p, white, &word);
      __syncwarp(); /* lanes r+1, r+2 collect this step's error in later steps */
    }
  } else {
    /* U[dy][j]: error of (r - dy, p + 2 - j - s dy) during step p (j from
     * j_min(dy), the newest, to j_max(dy)); left1, left2: errors at p-1, p-2. */
    int U[3][5] = {};
#pragma unroll
    for (int dy = 1; dy < R; dy++)
#pragma unroll
      for (int j = j_min<K>(dy); j < j_max<K>(dy); j++) U[dy][j] = E[UP + r - dy][G + 1 - j - S * dy];
    int left1 = row[-1], left2 = K::weight(0, 4) != 0 ? row[-2] : 0;
    for (int p = 0; p < WARP; p++) {
      int sum = K::weight(0, 3) * left1 + K::weight(0, 4) * left2;
#pragma unroll
      for (int dy = 1; dy < R; dy++) {
#pragma unroll
        for (int j = 4; j > 0; j--)
          if (j > j_min<K>(dy)) U[dy][j] = U[dy][j - 1];
        U[dy][j_min<K>(dy)] = E[UP + r - dy][G + p + 2 - j_min<K>(dy) - S * dy];
#pragma unroll
        for (int j = 0; j < 5; j++)
          if (pushes<K>(dy, j)) sum += K::weight(dy, j) * U[dy][j];
      }
      int white;
      int e = skss__ht_pixel<K>(row[p], sum, a.white_above, &white);
      e = blk.inside(a, r, p) ? e : 0;
      row[p] = e;
      left2 = left1;
      left1 = e;
      put_byte(bytes, r, p, white, &word);
      __syncwarp(); /* lanes r+1, r+2 read this step's error in later steps */
    }
  }

  /* The last step's __syncwarp() published every error and byte word. */
  store_bytes<K>(a, blk, bytes);
  if (blk.I + 1 < a.strips)
    for (int q = 0; q < UP; q++) {
      const int64_t x = blk.x(WARP - UP + q, lane);
      if (x >= 0 && x < a.width) bottom[blk.bottom(a, blk.I, q) + (size_t)x] = (int16_t)E[WARP + q][G + lane];
    }
  for (int k = lane; k < WARP * G; k += WARP)
    side[blk.side(blk.b) + k] = (int16_t)E[UP + k / G][WARP + k % G];
}

/* ---- 2-D PED ---- */

/* Adds lane r's pushes of error e from (r, p) to row r + dy (non-RC). */
template <typename K>
__device__ __forceinline__ void push_row(int (*A)[shape<K>::PITCH], int r, int p, int dy, int e) {
#pragma unroll
  for (int j = 0; j < 5; j++)
    if (pushes<K>(dy, j)) A[r + dy][p + j - 2 + shape<K>::S * dy] += K::weight(dy, j) * e;
}

template <typename K, bool RC>
__global__ void __launch_bounds__(WARP) ped_block(pg_args a, int t, int I_lo) {
  using P = shape<K>;
  constexpr int S = P::S, R = P::R, G = P::G;
  /* A[r][p]: what pixel (r, p) has been sent so far; rows 32.. (the next
   * strip's first rows) and columns 32.. (the next block's first columns)
   * collect the pushes that leave the block. */
  __shared__ int A[P::ROWS][P::PITCH];
  __shared__ int in[WARP][WARP + 1];
  __shared__ uint32_t bytes[WARP][WARP + 1];
  const block_at<K> blk(t, I_lo);
  const int lane = threadIdx.x;
  int32_t *bottom = static_cast<int32_t *>(a.bottom), *side = static_cast<int32_t *>(a.side);

  for (int r = 0; r < P::ROWS; r++)
    for (int c = lane; c < WARP + G; c += WARP) {
      int v = 0;
      if (r < WARP && c < G && blk.b > 0) v += side[blk.side(blk.b - 1) + (size_t)r * G + c];
      if (r < R - 1 && c < WARP && blk.I > 0) {
        const int64_t x = blk.x(r, c);
        if (x >= 0 && x < a.width) v += bottom[blk.bottom(a, blk.I - 1, r) + (size_t)x];
      }
      A[r][c] = v;
    }
  for (int r = 0; r < WARP; r++)
    in[r][lane] =
        blk.inside(a, r, lane) ? a.in[(size_t)(blk.y0 + r) * a.in_pitch + (size_t)blk.x(r, lane)] : 0;
  __syncwarp(); /* accumulators and inputs are in shared memory before lanes read each other's */

  const int r = lane;
  uint32_t word = 0;
  if (!RC) {
    for (int p = 0; p < WARP; p++) {
      int white;
      int e = skss__ht_pixel<K>(in[r][p], A[r][p], a.white_above, &white);
      e = blk.inside(a, r, p) ? e : 0;
      put_byte(bytes, r, p, white, &word);
      push_row<K>(A, r, p, 0, e);
      /* Lane r-1's pushes to row r (next phase) may reach the cells lane r
       * just pushed to (the lockstep warp kept them apart in the paper). */
      __syncwarp();
      push_row<K>(A, r, p, 1, e);
      __syncwarp(); /* lane r+1 reads its accumulator next step; lane r-1's row+2 pushes may meet these */
      if (R == 3) {
        push_row<K>(A, r, p, 2, e);
        __syncwarp(); /* lane r+2 reads its accumulator next step */
      }
    }
  } else {
    /* own[0], own[1]: pushes to (r, p), (r, p+1) not yet in A; N[dy][j]:
     * pushes to (r + dy, p + j - 2 + s dy) not yet in A. A cell of a row
     * below is added to A when no later push of this lane can reach it. */
    int own0 = 0, own1 = 0, N[3][5] = {};
    for (int p = 0; p < WARP; p++) {
      int white;
      int e = skss__ht_pixel<K>(in[r][p], A[r][p] + own0, a.white_above, &white);
      e = blk.inside(a, r, p) ? e : 0;
      put_byte(bytes, r, p, white, &word);
      own0 = own1 + K::weight(0, 3) * e;
      own1 = K::weight(0, 4) * e;
#pragma unroll
      for (int dy = 1; dy < R; dy++) {
#pragma unroll
        for (int j = 0; j < 5; j++)
          if (pushes<K>(dy, j)) N[dy][j] += K::weight(dy, j) * e;
        A[r + dy][p + j_min<K>(dy) - 2 + S * dy] += N[dy][j_min<K>(dy)];
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (j >= j_min<K>(dy)) N[dy][j] = N[dy][j + 1];
        N[dy][4] = 0;
        /* Lane r+dy reads the cell next steps; lane r-1 adds to row r+2
         * (r+1's row below) in the other phase. */
        __syncwarp();
      }
    }
    /* The windows' remaining pushes reach past column 31: one row a phase. */
    A[r][WARP] += own0;
    if (K::weight(0, 4) != 0) A[r][WARP + 1] += own1;
#pragma unroll
    for (int dy = 1; dy < R; dy++) {
      __syncwarp(); /* the previous phase's lane r+1 (r+2) wrote the row this phase adds to */
#pragma unroll
      for (int j = 0; j < 4; j++)
        if (j >= j_min<K>(dy) && j < j_max<K>(dy)) A[r + dy][WARP + j - 2 + S * dy] += N[dy][j];
    }
  }
  __syncwarp(); /* every lane's pushes and bytes are in shared memory before the copy-out */

  store_bytes<K>(a, blk, bytes);
  for (int k = lane; k < WARP * G; k += WARP) side[blk.side(blk.b) + k] = A[k / G][WARP + k % G];
  if (blk.I + 1 < a.strips)
    for (int q = 0; q < R - 1; q++)
      for (int c = lane; c < WARP + G; c += WARP) {
        const int64_t x = blk.x(WARP + q, c);
        /* Plain read-modify-write: this strip's blocks, the only ones adding
         * here, run one per label (one launch after another). */
        if (blk.y0 + WARP + q < a.height && x >= 0 && x < a.width)
          bottom[blk.bottom(a, blk.I, q) + (size_t)x] += A[WARP + q][c];
      }
}

/* ---- the host side ---- */

struct geometry {
  int rows, halo, label_step; /* R, G, s + 1 */
  int strips, blocks;         /* NS, NB */
  size_t elem, bottom, side;  /* bytes: element, bottom rows, side arrays */
};

struct geometry_of {
  template <typename K>
  static skss_status run(const skss__ht_dev_job *job, bool diffuse, geometry *g) {
    using P = shape<K>;
    g->rows = P::R;
    g->halo = P::G;
    g->label_step = P::LABEL_STEP;
    g->strips = (int)((job->height + WARP - 1) / WARP);
    g->blocks = (int)((job->width - 1 + 31 * P::S) / WARP + 1);
    g->elem = diffuse ? sizeof(int32_t) : sizeof(int16_t);
    return SKSS_OK;
  }
};

bool sizes(const skss__ht_dev_job *job, bool diffuse, geometry *g) {
  if (skss__ht_by_kernel<geometry_of>(job->kernel, job, diffuse, g) != SKSS_OK) return false;
  size_t n;
  return skss__mul_size((size_t)g->strips * (size_t)(g->rows - 1), (size_t)job->width, &n) &&
         skss__mul_size(n, g->elem, &g->bottom) &&
         skss__mul_size((size_t)g->strips * 2 * WARP * (size_t)g->halo, g->elem, &g->side);
}

struct run_labels {
  template <typename K>
  static skss_status run(skss_ctx *ctx, int algorithm, const pg_args &a, const geometry &g) {
    cudaStream_t stream = skss__cuda(ctx)->stream;
    const int labels = g.blocks + g.label_step * (g.strips - 1);
    for (int t = 0; t < labels; t++) {
      const int I_hi = t / g.label_step < g.strips - 1 ? t / g.label_step : g.strips - 1;
      const int I_lo = t < g.blocks ? 0 : (t - g.blocks + g.label_step) / g.label_step;
      if (I_lo > I_hi) continue; /* a strip narrower than the label step: no block has label t */
      const unsigned n = (unsigned)(I_hi - I_lo + 1);
      switch (algorithm) {
        case SKSS_HALFTONE_ALGORITHM_PED_2D: ped_block<K, false><<<n, WARP, 0, stream>>>(a, t, I_lo); break;
        case SKSS_HALFTONE_ALGORITHM_PED_2D_RC: ped_block<K, true><<<n, WARP, 0, stream>>>(a, t, I_lo); break;
        case SKSS_HALFTONE_ALGORITHM_PEC_2D: pec_block<K, false><<<n, WARP, 0, stream>>>(a, t, I_lo); break;
        default: pec_block<K, true><<<n, WARP, 0, stream>>>(a, t, I_lo); break;
      }
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    }
    return SKSS_OK;
  }
};

bool diffuses(int algorithm) {
  return algorithm == SKSS_HALFTONE_ALGORITHM_PED_2D || algorithm == SKSS_HALFTONE_ALGORITHM_PED_2D_RC;
}

bool known(int algorithm) {
  return algorithm == SKSS_HALFTONE_ALGORITHM_PED_2D || algorithm == SKSS_HALFTONE_ALGORITHM_PED_2D_RC ||
         algorithm == SKSS_HALFTONE_ALGORITHM_PEC_2D || algorithm == SKSS_HALFTONE_ALGORITHM_PEC_2D_RC;
}

} // namespace

size_t skss__cuda_halftone_parallelogram_scratch(skss_ctx *ctx, int algorithm,
                                                 const skss__ht_dev_job *job) {
  (void)ctx;
  geometry g;
  if (!known(algorithm)) return 0;
  if (!sizes(job, diffuses(algorithm), &g)) return SIZE_MAX;
  return skss__cuda_align(g.bottom) + skss__cuda_align(g.side);
}

skss_status skss__cuda_halftone_parallelogram(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job,
                                              void *scratch) {
  if (!known(algorithm))
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: algorithm %d is not a parallelogram one", FN, algorithm);
  const bool diffuse = diffuses(algorithm);
  geometry g;
  if (!sizes(job, diffuse, &g))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: scratch for a %lld x %lld image overflows size_t", FN,
                      (long long)job->height, (long long)job->width);
  uint8_t *base = static_cast<uint8_t *>(scratch);
  pg_args a = {};
  a.in = job->in;
  a.in_pitch = job->in_pitch;
  a.out = job->out;
  a.out_pitch = job->out_pitch;
  a.height = job->height;
  a.width = job->width;
  a.strips = g.strips;
  a.blocks = g.blocks;
  a.white_above = job->white_above;
  a.bottom = base;
  a.side = base + skss__cuda_align(g.bottom);
  /* PED adds into the bottom rows, so they start at zero; PEC's are only
   * read where a block above wrote them. */
  if (diffuse && g.bottom > 0)
    SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(a.bottom, 0, g.bottom, skss__cuda(ctx)->stream));
  return skss__ht_by_kernel<run_labels>(job->kernel, ctx, algorithm, a, g);
}
