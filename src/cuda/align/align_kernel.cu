/*
 * align_kernel.cu — one pass of Gotoh's recurrences as one SKSS kernel (Funasaka,
 * Nakano, Ito, SKSS task arrays, §IV; include/skss_cuda.cuh): a warp takes a band
 * of 32 x R rows by ticket (R: the job's lane_rows); lane L keeps rows L*R.. in registers
 * (H - o, E) and runs column t - L at step t, a diagonal wavefront across lanes; H
 * and F of a lane's last row go down by __shfl_up_sync. Lane 31 writes the band's
 * last row over the shared row buffer in place and the warp publishes it every
 * SKSS_CUDA_ALIGN_CHUNK columns; the band below waits for them (a fair task array).
 * Hopper DPX: a cell is two __viaddmax_s32 (E, F), a max and one more
 * __viaddmax_s32 for H - o directly (docs/algorithms/align.md, `skss`). The
 * device code is align_band.cuh; this file launches it, one block an SM with
 * its share of the bands (skss__cuda_align_shape), on the stream it is given
 * (the context's, or a traceback lane's: align_lanes.cu).
 */
#include "align_band.cuh"

namespace {

template <int R, bool LOCAL, bool ALL, bool BITS = false>
cudaError_t launch(const skss__al_job *job, const int32_t *sub, const skss_cuda_taskarray_view &ta, int sms,
                   cudaStream_t stream, const char **what) {
  int warps = 1, blocks = 1;
  skss__cuda_align_shape(ta.rows, sms, &warps, &blocks);
  skss__al::pass_kernel<R, LOCAL, ALL, BITS><<<blocks, 32 * warps, 0, stream>>>(*job, sub, ta);
  *what = "the pass kernel's launch";
  cudaError_t e = cudaGetLastError();
#ifdef SKSS_CUDA_SYNC_EACH_LAUNCH
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
#endif
  return e;
}

/* The kernel of the job's mode and best-cell track. */
template <int R>
cudaError_t launch_rows(const skss__al_job *job, const int32_t *sub, const skss_cuda_taskarray_view &ta, int sms,
                        cudaStream_t stream, const char **what) {
  const bool all = job->track == SKSS__ALIGN_TRACK_ALL;
  if (job->bits != NULL) {
    /* direction bits: a global pass, no track, no checkpoint rows */
    if (job->local || job->track != SKSS__ALIGN_TRACK_NONE || job->saves > 0) {
      *what = "a pass with direction bits (global, no track, no checkpoint rows only)";
      return cudaErrorInvalidValue;
    }
    return launch<R, false, false, true>(job, sub, ta, sms, stream, what);
  }
  if (job->local)
    return all ? launch<R, true, true>(job, sub, ta, sms, stream, what)
               : launch<R, true, false>(job, sub, ta, sms, stream, what);
  return all ? launch<R, false, true>(job, sub, ta, sms, stream, what)
             : launch<R, false, false>(job, sub, ta, sms, stream, what);
}

}  // namespace

cudaError_t skss__cuda_align_launch(const skss__al_job *job, const int32_t *sub, void *counters, int sms,
                                    cudaStream_t stream, const char **what) {
  const int bands = (job->rows + 32 * job->lane_rows - 1) / (32 * job->lane_rows);
  const int chunks = (job->cols + skss__al::CH - 1) / skss__al::CH;
  skss_cuda_taskarray_view ta;
  skss__dev_taskarray_carve(&ta, counters, bands, chunks, SKSS_TASKARRAY_KIND_FAIR, 1);
  if (job->lane_rows == SKSS_CUDA_ALIGN_ROWS_SHORT)
    return launch_rows<SKSS_CUDA_ALIGN_ROWS_SHORT>(job, sub, ta, sms, stream, what);
  return launch_rows<SKSS_CUDA_ALIGN_ROWS>(job, sub, ta, sms, stream, what);
}

cudaError_t skss__cuda_align_walk(const void *bits, int lane_rows, int rows, int cols,
                                  const uint8_t *a, const uint8_t *b, int end_v, char *ops_end, long long *len,
                                  cudaStream_t stream) {
  if (lane_rows == SKSS_CUDA_ALIGN_ROWS_SHORT)
    skss__al::walk_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT><<<1, 32, 0, stream>>>(bits, rows, cols, a, b, end_v, ops_end,
                                                                           len);
  else
    skss__al::walk_kernel<SKSS_CUDA_ALIGN_ROWS><<<1, 32, 0, stream>>>(bits, rows, cols, a, b, end_v, ops_end, len);
  cudaError_t e = cudaGetLastError();
#ifdef SKSS_CUDA_SYNC_EACH_LAUNCH
  if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
#endif
  return e;
}
