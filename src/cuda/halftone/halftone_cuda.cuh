/*
 * halftone_cuda.cuh — the interface between the CUDA halftone dispatcher
 * (halftone_dispatch.cu: validation is done in the core, host data staged,
 * BITS packed) and the kernel families, one file each:
 *   halftone_pram.cu           PRAM-style k-delay PED/PEC, with and without
 *                              the data permutation (ids 16-23);
 *   halftone_parallelogram.cu  2-D PED/PEC on parallelogram blocks (24-27);
 *   halftone_skss.cu           SKSS error collection (28);
 *   halftone_strips.cu         ours: tall warp strips with slack (29).
 * Every family halftones device images into 0/255 BYTES (the dispatcher
 * packs BITS), on the context's stream, asynchronously, using at most the
 * scratch it declared; bytes identical to CPU_REF's (core/halftone_api.c).
 *
 * The device helpers below are what every family shares: the dither
 * kernels as compile-time constants (one type per kernel, made from the
 * X-macro lines of cpu/halftone_impl.h, so CPU and GPU read the same
 * table), a switch that instantiates a family per kernel, and the
 * per-pixel rule, bit-identical to skss__halftone_pixel().
 */
#ifndef SKSS_CUDA_HALFTONE_CUH
#define SKSS_CUDA_HALFTONE_CUH

#include <initializer_list>

#include "../common.cuh"

/* halftone_impl.h is C; its one C-only keyword is `restrict`. */
#define restrict __restrict__
#include "cpu/halftone_impl.h"
#undef restrict

/* One call's images on the device: `images` images of height x width, image
 * k's pixel (y, x) at in[k * in_image_stride + y * in_pitch + x]; the
 * family writes 0 or 255 to out[k * out_image_stride + y * out_pitch + x]. */
typedef struct skss__ht_dev_job {
  const uint8_t *in;
  size_t in_pitch, in_image_stride;
  uint8_t *out;
  size_t out_pitch, out_image_stride;
  int64_t height, width; /* > 0 */
  int64_t images;        /* >= 1; 1 for families that are not `batched` */
  skss_dither_kernel kernel;
  int white_above;       /* skss__halftone_white_above(threshold) */
} skss__ht_dev_job;

/* Each family: the device scratch it needs for `job` (bytes; the job's
 * pointers are NULL when sizing) and the launch(es), which may use
 * `scratch` (256-byte aligned, not zeroed) as they like. */
#define SKSS__CUDA_HT_FAMILY(fam)                                                         \
  size_t skss__cuda_halftone_##fam##_scratch(skss_ctx *ctx, int algorithm,                \
                                             const skss__ht_dev_job *job);                \
  skss_status skss__cuda_halftone_##fam(skss_ctx *ctx, int algorithm,                     \
                                        const skss__ht_dev_job *job, void *scratch);

SKSS__CUDA_HT_FAMILY(pram)
SKSS__CUDA_HT_FAMILY(parallelogram)
SKSS__CUDA_HT_FAMILY(skss)
SKSS__CUDA_HT_FAMILY(strips)

/* 15 weights of 4 bits (each <= 8) in one integer: a scalar constexpr is
 * usable in device code and folds to immediates. */
constexpr unsigned long long skss__ht_pack_weights(std::initializer_list<int> w) {
  unsigned long long p = 0;
  int i = 0;
  for (int v : w) p |= (unsigned long long)v << (4 * i++);
  return p;
}

/* A dither kernel as constants: weight(dy, j) = the share (over divisor)
 * of a pixel's error that goes to dy rows below, dx = j - 2 columns right;
 * in collection form pixel (y, x) takes weight(dy, j) * e(y - dy, x - j + 2).
 * reach = slope - 1: the farthest column right of x read in the rows above. */
template <skss_dither_kernel K>
struct skss__ht_kernel;

#define SKSS__HT_DEV_KERNEL(arg, suffix, name_, divisor_, rows_, slope_, row0, row1, row2)       \
  template <>                                                                                    \
  struct skss__ht_kernel<SKSS_DITHER_KERNEL_##suffix> {                                                 \
    static constexpr skss_dither_kernel id = SKSS_DITHER_KERNEL_##suffix;                               \
    static constexpr int divisor = divisor_, rows = rows_, slope = slope_, reach = slope_ - 1;   \
    static constexpr unsigned long long packed = skss__ht_pack_weights(                         \
        {0, 0, 0, SKSS__HT_UNPACK row0, SKSS__HT_UNPACK row1, SKSS__HT_UNPACK row2});            \
    __host__ __device__ static constexpr int weight(int dy, int j) {                             \
      return (int)((packed >> (4 * (5 * dy + j))) & 15u);                                        \
    }                                                                                            \
  };
SKSS__DITHER_KERNELS(SKSS__HT_DEV_KERNEL, 0)
#undef SKSS__HT_DEV_KERNEL

/* Calls F::template run<skss__ht_kernel<K>>(args...) for the job's kernel K:
 * each family is compiled once per kernel with its weights as constants. */
template <typename F, typename... Args>
skss_status skss__ht_by_kernel(skss_dither_kernel kernel, Args &&...args) {
  switch (kernel) {
#define SKSS__HT_KERNEL_CASE(arg, suffix, ...) \
  case SKSS_DITHER_KERNEL_##suffix: return F::template run<skss__ht_kernel<SKSS_DITHER_KERNEL_##suffix>>(args...);
    SKSS__DITHER_KERNELS(SKSS__HT_KERNEL_CASE, 0)
#undef SKSS__HT_KERNEL_CASE
    default: return SKSS_ERR_INTERNAL;
  }
}

/* The rule of skss.h for one pixel of input `in` whose neighbours sent it
 * sum / K::divisor (one truncating division of the whole integer sum):
 * sets *white to 0 or 255 and returns the pixel's error. As on the CPU, the
 * threshold is tested on the quotient (q > white_above - in), which does
 * not wait for the clamp. */
template <typename K>
__device__ __forceinline__ int skss__ht_pixel(int in, int sum, int white_above, int *white) {
  const int q = sum / K::divisor, u = in + q;
  const int v = min(max(u, 0), 255);
  *white = q > white_above - in ? 255 : 0;
  return v - *white;
}

#endif
