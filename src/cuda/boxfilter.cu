/*
 * boxfilter.cu — skss_boxfilter_u8() on the CUDA backend: the design of
 * src/cpu/boxfilter.c (Funasaka, Nakano, Ito, SKSS task arrays, §V.B: "the summed area table can
 * be used for applying the average filter") on the device, with results
 * identical to the CPU's byte for byte.
 *  - The padded SAT of the image goes to the context's device arena,
 *    computed by the caller's CUDA SAT algorithm (the dispatcher's family
 *    routing, sat/sat_cuda.cuh): u32 when 255 * (largest window area) fits
 *    in 32 bits, so a rectangle sum taken modulo 2^32 is the exact sum; else
 *    f64, exact while the whole image sums below 2^53.
 *  - One kernel, one thread per output pixel (blocks of 32 columns x 8
 *    rows, grid-stride loops in both directions), takes the window sum
 *    from 4 SAT reads and divides it by the pixel count (CLIP: pixels
 *    inside the image, ZERO: (2r+1)^2), rounding half up:
 *    out = floor((sum + count / 2) / count), exactly.
 *  - Radius 0 copies the image and a ZERO border whose divisor dwarfs any
 *    sum clears it, as on the CPU.
 * Host buffers are staged through the arena (input uploaded, output
 * downloaded, then the call waits); device buffers are used in place and
 * the call returns at once.
 */
#include <climits>

#include "sat/sat_cuda.cuh"
#include "tuning.h"

static const char *const FN = "skss_boxfilter_u8()";

namespace {

/* A ZERO border whose window side exceeds this has a divisor above 2^54,
 * more than twice any window sum (< 2^53): every output is 0. */
constexpr uint64_t MAX_SIDE = (uint64_t)1 << 27;

/* Threads per block: one per output pixel (tuning.h). */
constexpr int BOX_COLS = SKSS_CUDA_BOX_COLS, BOX_ROWS = SKSS_CUDA_BOX_ROWS;

enum box_mode { BOX_COPY, BOX_CLEAR, BOX_FILTER };

/* What a call does, decided as boxfilter.c decides it. */
struct box_plan {
  box_mode mode;
  bool wide;           /* f64 SAT, else u32 */
  uint64_t zero_count; /* ZERO: the divisor (2r+1)^2 */
};

/* min(2r+1, n) without overflow. */
uint64_t window_side(int64_t radius, int64_t n) {
  uint64_t side = 2 * (uint64_t)radius + 1;
  return side < (uint64_t)n ? side : (uint64_t)n;
}

skss_status make_plan(skss_ctx *ctx, const skss__box_args *a, box_plan *p) {
  const uint64_t side = 2 * (uint64_t)a->radius + 1;
  const uint64_t max_area = window_side(a->radius, a->height) * window_side(a->radius, a->width);
  p->wide = max_area > UINT32_MAX / 255;
  if (p->wide && (uint64_t)a->height > ((uint64_t)1 << 53) / 255 / (uint64_t)a->width)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: a %lld x %lld image can sum past 2^53", FN,
                      (long long)a->height, (long long)a->width);
  const bool clear =
      a->border == SKSS_BOXFILTER_BORDER_ZERO && (side > MAX_SIDE || side * side > 510 * max_area);
  p->mode = a->radius == 0 ? BOX_COPY : clear ? BOX_CLEAR : BOX_FILTER;
  p->zero_count = p->mode == BOX_FILTER ? side * side : 0;
  return SKSS_OK;
}

/* A caller's image and where the kernels see it: in place when the device
 * can read it, else a packed copy in the arena. */
struct box_buffer {
  uint8_t *user;
  size_t user_pitch;
  bool on_device;
  bool staged; /* a host buffer this call copies */
  uint8_t *dev;
  size_t dev_pitch;
  size_t at; /* arena offset of the copy */
};

box_buffer buffer_of(const uint8_t *ptr, size_t pitch, int64_t width, bool used) {
  box_buffer b = {};
  b.user = const_cast<uint8_t *>(ptr);
  b.user_pitch = pitch;
  b.on_device = skss__cuda_is_device_ptr(ptr);
  b.staged = used && !b.on_device;
  b.dev = b.user;
  b.dev_pitch = b.staged ? skss__cuda_align((size_t)width) : pitch;
  return b;
}

/* The arena: the SAT algorithm's scratch, the padded SAT, staged buffers. */
struct box_layout {
  size_t sat_pitch, scratch_at, sat_at, total;
};

/* Reserves a 256-aligned block of rows x pitch bytes at *at; false on overflow. */
bool reserve(size_t *total, size_t rows, size_t pitch, size_t *at) {
  size_t bytes = 0;
  if (!skss__mul_size(rows, pitch, &bytes) || bytes > SIZE_MAX - 255) return false;
  *at = *total;
  return skss__add_size(*total, skss__cuda_align(bytes), total);
}

skss_status make_layout(skss_ctx *ctx, const skss__box_args *a, const box_plan *p,
                        box_buffer *in, box_buffer *out, box_layout *l) {
  const size_t h = (size_t)a->height, w = (size_t)a->width;
  size_t row = 0;
  bool ok = true;
  *l = {};
  if (p->mode == BOX_FILTER) {
    const size_t elem = p->wide ? sizeof(double) : sizeof(uint32_t);
    ok = skss__mul_size(w + 1, elem, &row) && row <= SIZE_MAX - 255;
    l->sat_pitch = ok ? skss__cuda_align(row) : 0;
    size_t sat_bytes = 0;
    ok = ok && skss__mul_size(h + 1, l->sat_pitch, &sat_bytes) && sat_bytes <= SIZE_MAX - 255;
    if (ok) {
      const skss__sat_dev_plane sizes = {a->height, a->width,
                                         p->wide ? SKSS__SAT_u8_f64 : SKSS__SAT_u8_u32,
                                         false, NULL, 0, NULL, 0};
      ok = reserve(&l->total, 1, skss__cuda_sat_plane_scratch(ctx, a->sat_algorithm, &sizes),
                   &l->scratch_at) &&
           reserve(&l->total, h + 1, l->sat_pitch, &l->sat_at);
    }
  }
  if (ok && in->staged) ok = reserve(&l->total, h, in->dev_pitch, &in->at);
  if (ok && out->staged) ok = reserve(&l->total, h, out->dev_pitch, &out->at);
  if (!ok)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: the %lld x %lld SAT workspace overflows size_t",
                      FN, (long long)a->height, (long long)a->width);
  return SKSS_OK;
}

/* [lo, hi) of image rows (or columns) in the window centred on k. */
__device__ __forceinline__ void window(int64_t k, int64_t r, int64_t n, int64_t *lo,
                                       int64_t *hi) {
  *lo = k > r ? k - r : 0;
  *hi = r >= n - k ? n : k + r + 1;
}

/* floor(n / count) for a quotient below 256 (n < 2^54, count < 2^55): the
 * float quotient is within 2^-13 of the exact one, so its truncation is off
 * by at most one, which two integer tests correct. */
__device__ __forceinline__ uint8_t floor_div(uint64_t n, uint64_t count) {
  uint64_t q = (uint64_t)((float)n / (float)count);
  q -= q * count > n;
  q += (q + 1) * count <= n;
  return (uint8_t)q;
}

struct box_kernel_args {
  const uint8_t *sat; /* padded: row y holds the sums of image rows < y */
  size_t sat_pitch;
  uint8_t *out;
  size_t out_pitch;
  int64_t height, width, radius;
  bool clip;
  uint64_t zero_count;
};

/* Each output pixel from the four SAT corners of its window; Acc = uint32_t
 * subtracts modulo 2^32 (exact, the true sum being below 2^32), double
 * exactly (integers below 2^53), in the CPU's order. */
template <typename Acc>
__global__ void box_kernel(box_kernel_args k) {
  const int64_t row_step = (int64_t)gridDim.y * blockDim.y;
  const int64_t col_step = (int64_t)gridDim.x * blockDim.x;
  for (int64_t i = (int64_t)blockIdx.y * blockDim.y + threadIdx.y; i < k.height; i += row_step) {
    int64_t y0, y1;
    window(i, k.radius, k.height, &y0, &y1);
    const Acc *__restrict__ top = reinterpret_cast<const Acc *>(k.sat + (size_t)y0 * k.sat_pitch);
    const Acc *__restrict__ bot = reinterpret_cast<const Acc *>(k.sat + (size_t)y1 * k.sat_pitch);
    uint8_t *__restrict__ out = k.out + (size_t)i * k.out_pitch;
    for (int64_t j = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; j < k.width; j += col_step) {
      int64_t x0, x1;
      window(j, k.radius, k.width, &x0, &x1);
      const Acc sum = (bot[x1] - top[x1]) - (bot[x0] - top[x0]);
      const uint64_t count = k.clip ? (uint64_t)(y1 - y0) * (uint64_t)(x1 - x0) : k.zero_count;
      out[j] = floor_div((uint64_t)sum + count / 2, count);
    }
  }
}

uint64_t blocks(int64_t n, int per_block, uint64_t cap) {
  const uint64_t b = ((uint64_t)n + (uint64_t)per_block - 1) / (uint64_t)per_block;
  return b < cap ? b : cap;
}

/* The padded SAT of the (device) input into the arena, then the filter. */
skss_status filter(skss_ctx *ctx, const skss__box_args *a, const box_plan *p,
                   const box_buffer *in, const box_buffer *out, const box_layout *l,
                   uint8_t *arena) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t elem = p->wide ? sizeof(double) : sizeof(uint32_t);
  uint8_t *sat = arena + l->sat_at;
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(sat, 0, ((size_t)a->width + 1) * elem, stream));
  SKSS_CUDA_TRY(ctx, FN, cudaMemset2DAsync(sat, l->sat_pitch, 0, elem, (size_t)a->height + 1,
                                           stream));
  skss__sat_dev_plane plane = {};
  plane.height = a->height;
  plane.width = a->width;
  plane.pair = p->wide ? SKSS__SAT_u8_f64 : SKSS__SAT_u8_u32;
  plane.in = in->dev;
  plane.in_pitch = in->dev_pitch;
  plane.out = sat + l->sat_pitch + elem;
  plane.out_pitch = l->sat_pitch;
  skss_status st = skss__cuda_sat_plane(ctx, a->sat_algorithm, &plane, arena + l->scratch_at);
  if (st != SKSS_OK) return st;
  const box_kernel_args k = {sat,       l->sat_pitch, out->dev, out->dev_pitch,
                             a->height, a->width,     a->radius, a->border == SKSS_BOXFILTER_BORDER_CLIP,
                             p->zero_count};
  const dim3 block(BOX_COLS, BOX_ROWS);
  const dim3 grid((unsigned)blocks(a->width, BOX_COLS, INT_MAX),
                  (unsigned)blocks(a->height, BOX_ROWS, 65535));
  if (p->wide)
    box_kernel<double><<<grid, block, 0, stream>>>(k);
  else
    box_kernel<uint32_t><<<grid, block, 0, stream>>>(k);
  SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  return SKSS_OK;
}

skss_status run_plan(skss_ctx *ctx, const skss__box_args *a, const box_plan *p,
                     const box_buffer *in, const box_buffer *out, const box_layout *l,
                     uint8_t *arena) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t h = (size_t)a->height, w = (size_t)a->width;
  switch (p->mode) {
    case BOX_COPY:
      SKSS_CUDA_TRY(ctx, FN, cudaMemcpy2DAsync(out->dev, out->dev_pitch, in->dev, in->dev_pitch, w,
                                               h, cudaMemcpyDefault, stream));
      return SKSS_OK;
    case BOX_CLEAR:
      SKSS_CUDA_TRY(ctx, FN, cudaMemset2DAsync(out->dev, out->dev_pitch, 0, w, h, stream));
      return SKSS_OK;
    default: return filter(ctx, a, p, in, out, l, arena);
  }
}

}  // namespace

extern "C" skss_status skss__cuda_boxfilter_u8(skss_ctx *ctx, const skss__box_args *a) {
  if (a->height == 0 || a->width == 0) return SKSS_OK;
  box_plan plan;
  skss_status st = make_plan(ctx, a, &plan);
  if (st != SKSS_OK) return st;
  box_buffer in = buffer_of(a->in, a->in_pitch, a->width, plan.mode != BOX_CLEAR);
  box_buffer out = buffer_of(a->out, a->out_pitch, a->width, true);
  box_layout l;
  st = make_layout(ctx, a, &plan, &in, &out, &l);
  if (st != SKSS_OK) return st;
  uint8_t *arena = NULL;
  if (l.total > 0) {
    arena = static_cast<uint8_t *>(skss__cuda_scratch(ctx, FN, l.total));
    if (arena == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  }
  if (in.staged) in.dev = arena + in.at;
  if (out.staged) out.dev = arena + out.at;
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t h = (size_t)a->height, w = (size_t)a->width;
  if (in.staged)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpy2DAsync(in.dev, in.dev_pitch, in.user, in.user_pitch, w, h,
                                             cudaMemcpyHostToDevice, stream));
  st = run_plan(ctx, a, &plan, &in, &out, &l, arena);
  if (st != SKSS_OK) return st;
  if (out.staged)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpy2DAsync(out.user, out.user_pitch, out.dev, out.dev_pitch, w,
                                             h, cudaMemcpyDeviceToHost, stream));
  /* Host results must be in place, and host inputs read, when the call
   * returns; device-only calls stay asynchronous (skss_ctx_synchronize()
   * reports their errors). */
  if (in.staged || out.staged) SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(stream));
  return SKSS_OK;
}
