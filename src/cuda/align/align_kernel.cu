/*
 * align_kernel.cu — one pass of Gotoh's recurrences as one SKSS kernel (Funasaka,
 * Nakano, Ito, SKSS task arrays, §IV; include/skss_cuda.cuh): a warp takes a band
 * of 32 x SKSS_CUDA_ALIGN_ROWS rows by ticket; lane L keeps rows L*R.. in registers
 * (H - o, E) and runs column t - L at step t, a diagonal wavefront across lanes; H
 * and F of a lane's last row go down by __shfl_up_sync. Lane 31 writes the band's
 * last row over the shared row buffer in place and the warp publishes it every
 * SKSS_CUDA_ALIGN_CHUNK columns; the band below waits for them (a fair task array).
 * Hopper DPX: a cell is two __viaddmax_s32 (E, F), a max and one more
 * __viaddmax_s32 for H - o directly (docs/algorithms/align.md, `skss`). The
 * device code is align_band.cuh; this file launches it.
 */
#include "align_band.cuh"

namespace {

template <bool LOCAL, bool ALL>
skss_status launch(skss_ctx *ctx, const skss__al_job *job, const int32_t *sub, const skss_cuda_taskarray_view &ta) {
  const char *fn = "skss_align()";
  const int threads = 32 * skss__al::WARPS;
  int blocks = 1;
  SKSS_CUDA_TRY(ctx, fn, skss_cuda_taskarray_blocks(skss__al::pass_kernel<LOCAL, ALL>, threads, 0, skss__al::WARPS,
                                                    ta.rows, &blocks));
  skss__al::pass_kernel<LOCAL, ALL><<<blocks, threads, 0, skss__cuda(ctx)->stream>>>(*job, sub, ta);
  SKSS_CUDA_CHECK_LAUNCH(ctx, fn);
  return SKSS_OK;
}

}  // namespace

skss_status skss__cuda_align_launch(skss_ctx *ctx, const skss__al_job *job, const int32_t *sub, void *counters) {
  const int bands = (job->rows + SKSS__CUDA_ALIGN_BAND - 1) / SKSS__CUDA_ALIGN_BAND;
  const int chunks = (job->cols + skss__al::CH - 1) / skss__al::CH;
  skss_cuda_taskarray_view ta;
  skss__dev_taskarray_carve(&ta, counters, bands, chunks, SKSS_TASKARRAY_KIND_FAIR, 1);
  const bool all = job->track == SKSS__ALIGN_TRACK_ALL;
  if (job->local)
    return all ? launch<true, true>(ctx, job, sub, ta) : launch<true, false>(ctx, job, sub, ta);
  return all ? launch<false, true>(ctx, job, sub, ta) : launch<false, false>(ctx, job, sub, ta);
}
