/*
 * header_cuda_alone.cu — include/skss_cuda.cuh compiles alone as CUDA C++:
 * this file includes nothing else and instantiates every device call once
 * (warp and block workers, kind and rule waits), so a header that leans on
 * an include it does not make, or warns, fails the build.
 */
#include "skss_cuda.cuh"

namespace {

struct left_and_up {
  __device__ int operator()(int i, int j, skss_cuda_task *deps) const {
    int n = 0;
    if (j > 0) deps[n++] = skss_cuda_task{i, j - 1};
    if (i > 0) deps[n++] = skss_cuda_task{i - 1, j};
    return n;
  }
};

__global__ void warp_workers(skss_cuda_taskarray_view v, int *out) {
  for (int i = skss_cuda_warp_take_row(v); i < v.rows; i = skss_cuda_warp_take_row(v))
    for (int j = 0; j < v.cols; j++) {
      skss_cuda_warp_wait_task(v, i, j);
      skss_cuda_warp_wait_task(v, i, j, left_and_up());
      if (i > 0) skss_cuda_warp_wait_row(v, i, i - 1, j + 1);
      out[i] = j;
      skss_cuda_warp_publish(v, i, j + 1);
    }
}

__global__ void block_workers(skss_cuda_taskarray_view v, int *out) {
  for (int i = skss_cuda_block_take_row(v); i < v.rows; i = skss_cuda_block_take_row(v))
    for (int j = 0; j < v.cols; j++) {
      skss_cuda_block_wait_task(v, i, j);
      skss_cuda_block_wait_task(v, i, j, left_and_up());
      if (i > 0) skss_cuda_block_wait_row(v, i, i - 1, j + 1);
      out[i] = j;
      skss_cuda_block_publish(v, i, j + 1);
    }
}

}  // namespace

/* Host side: the declarations and the grid helper, not called. */
cudaError_t skss_header_cuda_alone_grid(int *warp_blocks, int *block_blocks) {
  cudaError_t e = skss_cuda_taskarray_blocks(warp_workers, 64, 0, 2, 1000, warp_blocks);
  if (e == cudaSuccess) e = skss_cuda_taskarray_blocks(block_workers, 128, 0, 1, 1000, block_blocks);
  const skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
  if (e == cudaSuccess && d.size != sizeof d) e = cudaErrorInvalidValue;
  (void)&skss_cuda_taskarray_create;
  (void)&skss_cuda_taskarray_check;
  return e;
}
