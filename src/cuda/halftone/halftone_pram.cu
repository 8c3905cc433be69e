/*
 * halftone_pram.cu — the error-diffusion paper's parallel algorithms "designed
 * for the asynchronous CRCW-PRAM" (Kasagi, Nakano, Ito, parallel error diffusion, Sections III
 * and IV; Table V (2) and (3)), run on global memory as they are.
 *
 * k-delay parallel scan: one processor (CUDA thread) per image row; at step t
 * row i works on column x = t - k i, so each row lags the one above by k
 * columns; the paper's BARRIER_SYNC between steps is a kernel boundary, so
 * every step is one launch (of the rows active in it: at most W / k + 1
 * threads) and (W - 1) + k (H - 1) + 1 steps halftone an H x W image.
 *  - pec2 (2-D PEC): each pixel collects w * e from the errors of its
 *    already processed neighbours (an int16 error plane) and writes its own
 *    error; reads never meet writes inside a step.
 *  - ped3, ped2-atomic, ped2-launch (k-D PED): each pixel reads its int32
 *    accumulator (the sum of the w * e pushed to it so far), divides it once
 *    (integer accumulators, so ED gives EC's bytes) and pushes
 *    w * e to its unprocessed neighbours. At delay 2 two processors of one
 *    step can push to the same pixel (for Floyd-Steinberg: 7/16 to (i, x+1)
 *    from (i, x) and 3/16 from (i-1, x+2)), so ped3 lowers the parallelism
 *    (delay 3), ped2-atomic adds those two pushes by atomicAdd and the rest
 *    by plain read-modify-write, and ped2-launch ends each step's own-row
 *    pushes with an extra launch (the paper's extra BARRIER_SYNC) before the
 *    pushes to the row below; the first launch leaves the pixel's error in
 *    its accumulator for the second (the paper's extra write).
 * Generalised to every dither kernel of skss.h (rows R = 2 or 3, slope s = 2
 * or 3; the paper does Floyd-Steinberg, R = 2, s = 2): "2-delay" becomes
 * s-delay, the least delay at which every pixel's collected neighbours are
 * done; "3-delay" becomes the least delay at which no two processors of a
 * step push to one pixel, computed from the weights (3 for Floyd-Steinberg
 * and Sierra-Lite, 4 for Atkinson, 5 for the 5-wide kernels); ped2-atomic
 * adds by atomicAdd exactly the pushes that can meet another at delay s
 * (both sides of each such pair), computed the same way; ped2-launch makes
 * one launch per kernel row (2 per step for 2-row kernels as in the paper,
 * 3 for 3-row ones, whose pushes to rows i+1 and i+2 meet at delay s too).
 *
 * Planes: accumulators (int32) or errors (int16) of (H + 4) x (W + 4)
 * cells, the image at (2, 2): two pad rows and columns on every side take
 * pushes that leave the image (and are zero where collection reads them).
 *
 * The *-perm variants (Section IV, Figure 4) permute the data so that the
 * threads of a step access consecutive addresses: every row i of a plane
 * (pads included, L = W + 4 cells) is rotated right by k i (row shift), then
 * the plane is transposed, so pixel (i, x) lies at [(x + 2 + k i) mod L][i + 2]
 * and the rows of step t all sit in plane row (t + 2) mod L, their
 * neighbours in plane rows (t + 2 + dx + k dy) mod L. The input is shifted
 * and transposed by two kernels before the scan and the output transposed
 * and shifted back by two after it, inside the timed call as in Table V (3).
 */
#include "halftone_cuda.cuh"
#include "../tuning.h"

namespace {

const char *const FN = "skss_halftone()";
constexpr int PAD = 2; /* pad rows and columns on each side of a plane */
constexpr int THREADS = SKSS_CUDA_HT_PRAM_THREADS;
constexpr int TILE = SKSS_CUDA_HT_PERM_TILE;
constexpr int TILE_ROWS = SKSS_CUDA_HT_PERM_TILE_ROWS;
constexpr int SHIFT_THREADS = SKSS_CUDA_HT_PERM_SHIFT_THREADS;

/* ---- the kernel's pushes, and which of them meet in one step ---- */

/* Whether K pushes w * e to (y + dy, x + j - 2) (collects from (y - dy, x - j + 2)). */
template <typename K>
__host__ __device__ constexpr bool pushes(int dy, int j) {
  return dy < K::rows && (dy > 0 || j >= 3) && K::weight(dy, j) != 0;
}

/* Whether push (dy, j) of the processor at (i, x) and push (dy2, j2) of the
 * one at (i + d, x - k d), d = dy - dy2 >= 1 (both active in one step of the
 * k-delay scan), reach the same pixel. */
template <typename K>
__host__ __device__ constexpr bool collide(int k, int dy, int j, int dy2, int j2) {
  return dy > dy2 && pushes<K>(dy, j) && pushes<K>(dy2, j2) && j - j2 == -k * (dy - dy2);
}

/* Bit 5 dy + j: push (dy, j) may meet another push in one step at delay k. */
template <typename K>
__host__ __device__ constexpr unsigned contended_mask(int k) {
  unsigned m = 0;
  for (int dy = 0; dy < 3; dy++)
    for (int j = 0; j < 5; j++)
      for (int dy2 = 0; dy2 < 3; dy2++)
        for (int j2 = 0; j2 < 5; j2++)
          if (collide<K>(k, dy, j, dy2, j2) || collide<K>(k, dy2, j2, dy, j)) m |= 1u << (5 * dy + j);
  return m;
}

/* ped3's delay: the least k >= slope at which no two pushes of a step meet. */
template <typename K>
constexpr int conflict_free_delay() {
  int k = K::slope;
  while (contended_mask<K>(k) != 0) k++;
  return k;
}

static_assert(conflict_free_delay<skss__ht_kernel<SKSS_DITHER_KERNEL_FLOYD_STEINBERG>>() == 3,
              "Floyd-Steinberg's conflict-free delay is the paper's 3");
static_assert(contended_mask<skss__ht_kernel<SKSS_DITHER_KERNEL_FLOYD_STEINBERG>>(2) ==
                  ((1u << 3) | (1u << (5 + 1))),
              "at delay 2 Floyd-Steinberg's 7/16 and 3/16 pushes meet, as in the paper");

/* ---- one processor's cells ---- */

/* What a step kernel needs: the image (or its permuted copy), the plane. */
struct step_args {
  const uint8_t *in; /* flat: the image; perm: L x H, pixel (i, x) at [(x+2+k i) mod L][i] */
  size_t in_pitch;
  uint8_t *out;      /* as `in` */
  size_t out_pitch;
  void *plane;       /* int32 accumulators (PED) or int16 errors (PEC) */
  int64_t height, width, plane_pitch; /* flat: W + 4 cells; perm: H + 4 */
  int white_above;
};

/* The cells of the processor of row i at step t (pixel (i, x), x = t - k i). */
template <int k, bool PERM>
struct cell {
  int64_t base, pitch, q0, L, i;

  __device__ __forceinline__ cell(const step_args &a, int64_t t, int64_t row) : i(row) {
    pitch = a.plane_pitch;
    L = a.width + 2 * PAD;
    q0 = (t + PAD) % L;
    base = PERM ? q0 * pitch + i + PAD : (i + PAD) * pitch + (t - k * i) + PAD;
  }
  /* Plane cell of (i + dy, x + dx). */
  __device__ __forceinline__ int64_t at(int dy, int dx) const {
    if (!PERM) return base + dy * pitch + dx;
    /* (q0 + dx + k dy) mod L without a 64-bit division per access: one
     * wrap suffices unless the image is narrower than the offset. */
    int64_t q = q0 + dx + k * dy;
    if (q >= L)
      q -= L;
    else if (q < 0)
      q += L;
    if (q < 0 || q >= L) q = (q % L + L) % L;
    return q * pitch + i + PAD + dy;
  }
  /* Byte of pixel (i, x) in the image buffers. */
  __device__ __forceinline__ size_t pixel(size_t image_pitch, int64_t t) const {
    return PERM ? (size_t)q0 * image_pitch + (size_t)i : (size_t)i * image_pitch + (size_t)(t - k * i);
  }
};

/* ---- the step kernels ---- */

/* Adds w * e to the accumulators of row dy below, by atomicAdd where two
 * processors of this step may add to the same pixel (ATOMIC). */
template <typename K, int k, bool ATOMIC, bool PERM>
__device__ __forceinline__ void push_row(int32_t *acc, const cell<k, PERM> &c, int dy, int e) {
  constexpr unsigned CONTENDED = ATOMIC ? contended_mask<K>(k) : 0u;
#pragma unroll
  for (int j = 0; j < 5; j++) {
    if (!pushes<K>(dy, j)) continue;
    int32_t *p = &acc[c.at(dy, j - 2)];
    if ((CONTENDED >> (5 * dy + j)) & 1u)
      atomicAdd(p, K::weight(dy, j) * e); /* another processor of this step adds to this pixel */
    else
      *p += K::weight(dy, j) * e;
  }
}

/* One step of k-D PED for rows i_lo .. i_lo + n - 1. phase < 0: the whole
 * pixel; phase 0, 1, 2: ped2-launch's launches (0: the pixel and its own
 * row's pushes, dy: the pushes dy rows below). */
template <typename K, int k, bool ATOMIC, bool PERM>
__global__ void __launch_bounds__(THREADS)
    ped_step(step_args a, int64_t t, int64_t i_lo, int64_t n, int phase) {
  const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  const cell<k, PERM> c(a, t, i_lo + g);
  int32_t *acc = static_cast<int32_t *>(a.plane);
  int e;
  if (phase <= 0) {
    int white;
    e = skss__ht_pixel<K>(a.in[c.pixel(a.in_pitch, t)], acc[c.at(0, 0)], a.white_above, &white);
    a.out[c.pixel(a.out_pitch, t)] = (uint8_t)white;
    if (phase == 0) acc[c.at(0, 0)] = e; /* the step's later launches push it */
  } else {
    e = acc[c.at(0, 0)];
  }
#pragma unroll
  for (int dy = 0; dy < K::rows; dy++)
    if (phase < 0 || phase == dy) push_row<K, k, ATOMIC, PERM>(acc, c, dy, e);
}

/* One step of k-D PEC for rows i_lo .. i_lo + n - 1. */
template <typename K, int k, bool PERM>
__global__ void __launch_bounds__(THREADS)
    pec_step(step_args a, int64_t t, int64_t i_lo, int64_t n) {
  const int64_t g = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= n) return;
  const cell<k, PERM> c(a, t, i_lo + g);
  int16_t *err = static_cast<int16_t *>(a.plane);
  int sum = 0;
#pragma unroll
  for (int dy = 0; dy < K::rows; dy++)
#pragma unroll
    for (int j = 0; j < 5; j++)
      if (pushes<K>(dy, j)) sum += K::weight(dy, j) * err[c.at(-dy, 2 - j)];
  int white;
  const int e = skss__ht_pixel<K>(a.in[c.pixel(a.in_pitch, t)], sum, a.white_above, &white);
  err[c.at(0, 0)] = (int16_t)e;
  a.out[c.pixel(a.out_pitch, t)] = (uint8_t)white;
}

/* ---- the data permutation (row shift, transpose) ---- */

/* Row shift: forward, dst (H x L) row i gets src (H x W) pixel x at column
 * (x + 2 + k i) mod L; inverse, dst (H x W) pixel x from src (H x L) there. */
__global__ void __launch_bounds__(SHIFT_THREADS)
    shift_rows(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch, int64_t h,
               int64_t w, int k, bool inverse) {
  const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x, L = w + 2 * PAD;
  if (x >= w) return;
  for (int64_t i = blockIdx.y; i < h; i += gridDim.y) {
    const int64_t q = (x + PAD + k * i) % L;
    if (inverse)
      dst[(size_t)i * dst_pitch + x] = src[(size_t)i * src_pitch + q];
    else
      dst[(size_t)i * dst_pitch + q] = src[(size_t)i * src_pitch + x];
  }
}

/* dst (cols x rows) = transpose of src (rows x cols), 32 x 32 tiles through
 * shared memory (a padded row keeps the column reads off one bank word). */
__global__ void __launch_bounds__(TILE * TILE_ROWS)
    transpose_bytes(const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch,
                    int64_t rows, int64_t cols) {
  __shared__ uint8_t tile[TILE][TILE + 4];
  const int64_t c0 = (int64_t)blockIdx.x * TILE;
  for (int64_t r0 = (int64_t)blockIdx.y * TILE; r0 < rows; r0 += (int64_t)gridDim.y * TILE) {
    for (int r = threadIdx.y; r < TILE; r += TILE_ROWS)
      if (r0 + r < rows && c0 + threadIdx.x < cols)
        tile[r][threadIdx.x] = src[(size_t)(r0 + r) * src_pitch + c0 + threadIdx.x];
    __syncthreads(); /* the tile is complete before it is read across */
    for (int c = threadIdx.y; c < TILE; c += TILE_ROWS)
      if (c0 + c < cols && r0 + threadIdx.x < rows)
        dst[(size_t)(c0 + c) * dst_pitch + r0 + threadIdx.x] = tile[threadIdx.x][c];
    __syncthreads(); /* every thread has read the tile before the next one overwrites it */
  }
}

unsigned grid_rows(int64_t rows) { return (unsigned)(rows < 65535 ? rows : 65535); }

skss_status shift(skss_ctx *ctx, const uint8_t *src, size_t src_pitch, uint8_t *dst, size_t dst_pitch,
                  int64_t h, int64_t w, int k, bool inverse) {
  const dim3 grid((unsigned)((w + SHIFT_THREADS - 1) / SHIFT_THREADS), grid_rows(h));
  shift_rows<<<grid, SHIFT_THREADS, 0, skss__cuda(ctx)->stream>>>(src, src_pitch, dst, dst_pitch, h, w,
                                                                   k, inverse);
  SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  return SKSS_OK;
}

skss_status transpose(skss_ctx *ctx, const uint8_t *src, size_t src_pitch, uint8_t *dst,
                      size_t dst_pitch, int64_t rows, int64_t cols) {
  const dim3 grid((unsigned)((cols + TILE - 1) / TILE), grid_rows((rows + TILE - 1) / TILE));
  transpose_bytes<<<grid, dim3(TILE, TILE_ROWS), 0, skss__cuda(ctx)->stream>>>(src, src_pitch, dst,
                                                                              dst_pitch, rows, cols);
  SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  return SKSS_OK;
}

/* ---- the host side ---- */

enum class scheme { ped_low, ped_atomic, ped_launch, pec };

struct variant {
  scheme s;
  bool perm;
};

bool variant_of(int algorithm, variant *v) {
  switch (algorithm) {
    case SKSS_HALFTONE_ALGORITHM_PED3: *v = {scheme::ped_low, false}; return true;
    case SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC: *v = {scheme::ped_atomic, false}; return true;
    case SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH: *v = {scheme::ped_launch, false}; return true;
    case SKSS_HALFTONE_ALGORITHM_PEC2: *v = {scheme::pec, false}; return true;
    case SKSS_HALFTONE_ALGORITHM_PED3_PERM: *v = {scheme::ped_low, true}; return true;
    case SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC_PERM: *v = {scheme::ped_atomic, true}; return true;
    case SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH_PERM: *v = {scheme::ped_launch, true}; return true;
    case SKSS_HALFTONE_ALGORITHM_PEC2_PERM: *v = {scheme::pec, true}; return true;
    default: return false;
  }
}

/* The scratch: the plane, then (perm) the permuted input and output (L x H
 * each) and the row-shifted buffer between shift and transpose (H x L). */
struct layout {
  size_t plane, image; /* bytes of the plane and of one L x H byte image */
  size_t total;
};

bool layout_of(const variant &v, int64_t h, int64_t w, layout *out) {
  const size_t elem = v.s == scheme::pec ? sizeof(int16_t) : sizeof(int32_t);
  size_t cells, image = 0, total;
  if (!skss__mul_size((size_t)h + 2 * PAD, (size_t)w + 2 * PAD, &cells) ||
      !skss__mul_size(cells, elem, &out->plane))
    return false;
  total = skss__cuda_align(out->plane);
  if (v.perm) {
    if (!skss__mul_size((size_t)h, (size_t)w + 2 * PAD, &image)) return false;
    for (int b = 0; b < 3; b++)
      if (!skss__add_size(total, skss__cuda_align(image), &total)) return false;
  }
  out->image = image;
  out->total = total;
  return true;
}

/* Launches the k-delay scan's steps (and, for ped2-launch, its phases). */
template <typename K, int k, bool PERM>
skss_status scan(skss_ctx *ctx, scheme s, const step_args &a) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const int64_t h = a.height, w = a.width, steps = (w - 1) + k * (h - 1) + 1;
  const int phases = s == scheme::ped_launch ? K::rows : 1;
  for (int64_t t = 0; t < steps; t++) {
    const int64_t i_hi = t / k < h - 1 ? t / k : h - 1;
    const int64_t i_lo = t < w ? 0 : (t - (w - 1) + k - 1) / k;
    const int64_t n = i_hi - i_lo + 1;
    if (n <= 0) continue; /* narrower than the delay: no row works at this step */
    const unsigned blocks = (unsigned)((n + THREADS - 1) / THREADS);
    for (int phase = 0; phase < phases; phase++) {
      switch (s) {
        case scheme::ped_low:
          ped_step<K, k, false, PERM><<<blocks, THREADS, 0, stream>>>(a, t, i_lo, n, -1);
          break;
        case scheme::ped_atomic:
          ped_step<K, k, true, PERM><<<blocks, THREADS, 0, stream>>>(a, t, i_lo, n, -1);
          break;
        case scheme::ped_launch:
          ped_step<K, k, false, PERM><<<blocks, THREADS, 0, stream>>>(a, t, i_lo, n, phase);
          break;
        case scheme::pec: pec_step<K, k, PERM><<<blocks, THREADS, 0, stream>>>(a, t, i_lo, n); break;
      }
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    }
  }
  return SKSS_OK;
}

/* The whole call at delay k: zero the plane, permute the input (perm), scan,
 * permute the output back (perm). */
template <typename K, int k>
skss_status run_at(skss_ctx *ctx, const variant &v, const skss__ht_dev_job *job, void *scratch) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const int64_t h = job->height, w = job->width, L = w + 2 * PAD;
  layout lay;
  if (!layout_of(v, h, w, &lay))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: scratch for a %lld x %lld image overflows size_t", FN,
                      (long long)h, (long long)w);
  uint8_t *base = static_cast<uint8_t *>(scratch);
  /* Pads (and, for PED, every accumulator) start at zero. */
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(base, 0, lay.plane, stream));
  step_args a = {};
  a.plane = base;
  a.height = h;
  a.width = w;
  a.white_above = job->white_above;
  if (!v.perm) {
    a.in = job->in;
    a.in_pitch = job->in_pitch;
    a.out = job->out;
    a.out_pitch = job->out_pitch;
    a.plane_pitch = w + 2 * PAD;
    return scan<K, k, false>(ctx, v.s, a);
  }
  uint8_t *in_perm = base + skss__cuda_align(lay.plane);
  uint8_t *out_perm = in_perm + skss__cuda_align(lay.image);
  uint8_t *shifted = out_perm + skss__cuda_align(lay.image);
  skss_status st = shift(ctx, job->in, job->in_pitch, shifted, (size_t)L, h, w, k, false);
  if (st == SKSS_OK) st = transpose(ctx, shifted, (size_t)L, in_perm, (size_t)h, h, L);
  a.in = in_perm;
  a.in_pitch = (size_t)h;
  a.out = out_perm;
  a.out_pitch = (size_t)h;
  a.plane_pitch = h + 2 * PAD;
  if (st == SKSS_OK) st = scan<K, k, true>(ctx, v.s, a);
  if (st == SKSS_OK) st = transpose(ctx, out_perm, (size_t)h, shifted, (size_t)L, L, h);
  if (st == SKSS_OK) st = shift(ctx, shifted, (size_t)L, job->out, job->out_pitch, h, w, k, true);
  return st;
}

struct run_pram {
  template <typename K>
  static skss_status run(skss_ctx *ctx, const variant &v, const skss__ht_dev_job *job, void *scratch) {
    if (v.s == scheme::ped_low) return run_at<K, conflict_free_delay<K>()>(ctx, v, job, scratch);
    return run_at<K, K::slope>(ctx, v, job, scratch);
  }
};

} // namespace

size_t skss__cuda_halftone_pram_scratch(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job) {
  (void)ctx;
  variant v;
  layout lay;
  if (!variant_of(algorithm, &v)) return 0;
  return layout_of(v, job->height, job->width, &lay) ? lay.total : SIZE_MAX;
}

skss_status skss__cuda_halftone_pram(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job,
                                     void *scratch) {
  variant v;
  if (!variant_of(algorithm, &v))
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: algorithm %d is not PRAM-style", FN, algorithm);
  return skss__ht_by_kernel<run_pram>(job->kernel, ctx, v, job, scratch);
}
