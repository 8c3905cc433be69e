/*
 * halftone_skss.cu — SKSS_HALFTONE_ALGORITHM_SKSS: error collection as a backward
 * task array run by one kernel (Funasaka, Nakano, Ito, SKSS task arrays, §V.C, Fig. 9-11).
 *
 * The image is cut into strips of 32 rows; each strip into parallelograms of
 * 32 x 32 pixels whose rows slide `slope` columns left per row (the paper's
 * slide of 2, 3 for the kernels that reach 2 columns right). Task (s, p) is
 * parallelogram p of strip s, run by one warp, lane i doing row i (Parallel
 * Algorithm Forward, one pixel per lane and step); it needs tasks
 * (s-1, .. p + slope) of the strip above. One kernel, as many 128-thread
 * blocks as are resident; each warp takes a strip by ticket through the
 * public scheduler (skss_cuda.cuh), walks its parallelograms left to
 * right, waits before each for the strip above's progress (acquire, with
 * back-off) and publishes its own after it (release). The strip's two
 * bottom rows of errors go to global memory (a ring of two strips per
 * image: strip s-2's rows are read by s-1 before s gets that far), where the
 * next strip's first lanes read them; inside the strip the errors move
 * between lanes by shuffle (halftone_wavefront.cuh: rows lag by exactly the
 * slope, so each step waits for the shuffle of the step before).
 * Batches: tickets run over every strip of every image.
 */
#include "../taskarray.cuh"
#include "../tuning.h"
#include "halftone_wavefront.cuh"

namespace {

using namespace skss_wf;

constexpr int WARPS = SKSS_CUDA_HT_SKSS_WARPS;

/* The paper's exchange: error rows in global memory, progress flags. */
template <int LAG>
struct skss_exchange {
  skss_cuda_taskarray_view ta;
  int16_t *rows;  /* [image][strip % 2][row 0/1][width] */
  int chunks;     /* tasks per strip */
  int b1, b2;     /* lane j: what lane 0 needs at step T + j from rows r-1, r-2 */

  __device__ int16_t *slot(const strip_pos &p, int strip, int row) const {
    return rows + ((size_t)(p.image * 2 + (strip & 1)) * 2 + row) * (size_t)p.width;
  }

  __device__ void chunk_begin(const strip_pos &p, int c) {
    b1 = b2 = 0;
    if (p.strip == 0) return;
    const int need = c + LAG + 1;
    skss_cuda_warp_wait_row_unchecked(ta, p.g - 1, need < chunks ? need : chunks);
    const int lane = threadIdx.x & 31, T = c * CHUNK;
    const int x0 = T + lane - pre_steps<LAG>(); /* lane 0's column at step T + lane */
    const int c1 = x0 + LAG, c2 = x0 + 2 * LAG;
    /* through L2: this SM may hold stale lines of the ring slot. */
    if (c1 >= 0 && c1 < p.width) b1 = __ldcg(slot(p, p.strip - 1, 0) + c1);
    if (c2 >= 0 && c2 < p.width) b2 = __ldcg(slot(p, p.strip - 1, 1) + c2);
  }

  __device__ int group_words(const strip_pos &, int T8) {
    const int lane = threadIdx.x & 31, src = (T8 & (CHUNK - 1)) + (lane & 7);
    const int v1 = __shfl_sync(FULL, b1, src), v2 = __shfl_sync(FULL, b2, src);
    return lane < 8 ? v1 : lane < 16 ? v2 : 0;
  }

  __device__ void group_end(const strip_pos &p, const warp_smem *sm, int T8) {
    if (p.last) return;
    int row;
    const int x = bottom_column<LAG, 1, 0>(T8, &row);
    if (x >= 0 && x < p.width)
      slot(p, p.strip, row)[x] = (int16_t)sm->xs[(T8 + (threadIdx.x & 7)) & (CHUNK - 1)][31 - row];
  }

  __device__ void chunk_end(const strip_pos &p, int c) {
    if (!p.last) skss_cuda_warp_publish(ta, p.g, c + 1);
  }
};

template <typename K>
__global__ void __launch_bounds__(32 * WARPS) skss_kernel(skss__ht_dev_job job, skss_cuda_taskarray_view ta,
                                                          int16_t *rows, int strips, int total) {
  __shared__ warp_smem smem[WARPS];
  skss_exchange<K::slope> ex;
  ex.ta = ta;
  ex.rows = rows;
  ex.chunks = (pre_steps<K::slope>() + (int)job.width + 31 * K::slope + CHUNK - 1) / CHUNK;
  for (;;) {
    const int g = skss_cuda_warp_take_row(ta);
    if (g >= total) return;
    const strip_pos p = locate(job, g, strips, 32);
    run_strip<K, K::slope, 1, 0>(p, job.white_above, smem, ex);
  }
}

int strips_of(const skss__ht_dev_job *job) { return (int)((job->height + 31) / 32); }

size_t rows_bytes(const skss__ht_dev_job *job) {
  return skss__cuda_align((size_t)job->images * 4 * (size_t)job->width * sizeof(int16_t));
}

struct launch {
  template <typename K>
  static skss_status run(skss_ctx *ctx, const skss__ht_dev_job *job, void *scratch) {
    const char *fn = "skss_halftone()";
    cudaStream_t stream = skss__cuda(ctx)->stream;
    const int strips = strips_of(job), total = strips * (int)job->images;
    /* the kernel's tasks a strip (skss_kernel's ex.chunks) */
    const int chunks = (pre_steps<K::slope>() + (int)job->width + 31 * K::slope + CHUNK - 1) / CHUNK;
    skss_cuda_taskarray_view ta;
    SKSS_CUDA_TRY(ctx, fn, skss__dev_taskarray_reset(&ta, scratch, total, chunks, stream));
    int16_t *rows = reinterpret_cast<int16_t *>(static_cast<uint8_t *>(scratch) +
                                                skss__dev_taskarray_bytes(total));
    int sms = 0, per_sm = 0;
    SKSS_CUDA_TRY(ctx, fn, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount,
                                                  skss__cuda(ctx)->device));
    SKSS_CUDA_TRY(ctx, fn, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, skss_kernel<K>,
                                                                         32 * WARPS, 0));
    const int want = (total + WARPS - 1) / WARPS, resident = sms * (per_sm > 0 ? per_sm : 1);
    skss_kernel<K><<<want < resident ? want : resident, 32 * WARPS, 0, stream>>>(*job, ta, rows,
                                                                                 strips, total);
    SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
    return SKSS_OK;
  }
};

}  // namespace

size_t skss__cuda_halftone_skss_scratch(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job) {
  (void)ctx;
  (void)algorithm;
  return skss__dev_taskarray_bytes(strips_of(job) * (int)job->images) + rows_bytes(job);
}

skss_status skss__cuda_halftone_skss(skss_ctx *ctx, int algorithm, const skss__ht_dev_job *job,
                                     void *scratch) {
  (void)algorithm;
  if (job->width > (1 << 30) || job->height > (1 << 30) ||
      (job->height + 31) / 32 * job->images > INT32_MAX)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                      "skss_halftone(): 'skss' takes at most 2^30 rows and columns and 2^31 strips");
  return skss__ht_by_kernel<launch>(job->kernel, ctx, job, scratch);
}
