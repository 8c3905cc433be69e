/*
 * bench_cuda_taskarray.cu — suite taskarray of `skss bench`: what the
 * task-array scheduler of include/skss_cuda.cuh (Funasaka, Nakano, Ito, SKSS
 * task arrays, §IV) costs a task. A rows x cols forward task array whose tasks
 * do nothing but wait for the row above and publish, run by warp workers
 * (64-thread blocks, as many as are resident) on the bench's stream, so the
 * time is the scheduler's alone: tickets, acquire loads, fences and release
 * stores along the array's critical path. The run is checked (every row
 * published every column) before it is timed.
 */
#include <cuda_runtime.h>
#include <stdio.h>

#include "bench.h"
#include "skss_cuda.cuh"

namespace {

constexpr int THREADS = 64;

__global__ void __launch_bounds__(THREADS) noop_tasks(skss_cuda_taskarray_view v) {
  for (int i = skss_cuda_warp_take_row(v); i < v.rows; i = skss_cuda_warp_take_row(v))
    for (int j = 0; j < v.cols; j++) {
      skss_cuda_warp_wait_task(v, i, j);
      skss_cuda_warp_publish(v, i, j + 1);
    }
}

struct run {
  skss_cuda_taskarray *ta;
  skss_cuda_taskarray_view view;
  cudaStream_t stream;
  int blocks;
};

/* One timed run: the reset and the kernel, on the bench's stream. */
int body(void *arg) {
  run *r = static_cast<run *>(arg);
  if (skss_cuda_taskarray_reset(r->ta, r->stream) != SKSS_OK) return 1;
  noop_tasks<<<r->blocks, THREADS, 0, r->stream>>>(r->view);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

}  // namespace

int bench_gpu_taskarray(bench_gpu *gpu, skss_ctx *ctx, int64_t rows, int64_t cols, const bench_plan *plan,
                        bench_stats *out, int *blocks, char err[BENCH_ERRLEN]) {
  run r = {};
  r.stream = static_cast<cudaStream_t>(bench_gpu_stream(gpu));
  skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
  d.rows = rows;
  d.cols = cols;
  d.kind = SKSS_TASKARRAY_KIND_FORWARD;
  skss_status st = skss_cuda_taskarray_create(ctx, &d, &r.ta);
  if (st == SKSS_OK) st = skss_cuda_taskarray_get_view(r.ta, &r.view);
  if (st != SKSS_OK) {
    bench_status_error(ctx, "taskarray", st, err);
    skss_cuda_taskarray_destroy(r.ta);
    return -1;
  }
  const cudaError_t ce = skss_cuda_taskarray_blocks(noop_tasks, THREADS, 0, THREADS / 32, rows, &r.blocks);
  int rc = -1;
  if (ce != cudaSuccess) {
    snprintf(err, BENCH_ERRLEN, "taskarray: occupancy: %s", cudaGetErrorString(ce));
  } else if (body(&r) != 0 || (st = skss_cuda_taskarray_check(r.ta, r.stream, NULL)) != SKSS_OK) {
    bench_status_error(ctx, "taskarray: the checked run", st != SKSS_OK ? st : SKSS_ERR_CUDA, err);
  } else if (body(&r) == 0) { /* warm-up */
    rc = bench_gpu_measure(gpu, body, &r, plan, out, err);
  }
  *blocks = r.blocks;
  skss_cuda_taskarray_destroy(r.ta);
  return rc;
}
