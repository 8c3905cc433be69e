/*
 * taskarray.cuh — the device side of Single Kernel Soft Synchronization
 * (Funasaka, Nakano, Ito, SKSS task arrays, §IV), shared by every SKSS kernel (SAT, halftone,
 * knapsack): a warp (or block) takes the next row of the task array from
 * an atomic ticket counter, so it only ever waits on rows whose tickets were
 * taken earlier by warps that are already running — no deadlock whatever
 * the number of resident warps; it publishes its row's progress (a monotone
 * count of finished columns) with a release store, and readers wait for it
 * with acquire loads and __nanosleep back-off. The counters live in device
 * scratch and are reset on the same stream before each run.
 */
#ifndef SKSS_CUDA_TASKARRAY_CUH
#define SKSS_CUDA_TASKARRAY_CUH

#include <cuda/atomic>

#include "common.cuh"
#include "warp_scan.cuh"

typedef struct skss__dev_taskarray {
  unsigned int *ticket;  /* next row to hand out */
  int *progress;         /* per row: columns finished (monotone) */
  int rows;
} skss__dev_taskarray;

/* Device bytes for a task array of `rows` rows (ticket + progress). */
static inline size_t skss__dev_taskarray_bytes(int rows) {
  return skss__cuda_align(sizeof(unsigned int)) + skss__cuda_align((size_t)rows * sizeof(int));
}

/* Carves the counters from `scratch` and zeroes them on `stream`. */
static inline cudaError_t skss__dev_taskarray_reset(skss__dev_taskarray *ta, void *scratch, int rows,
                                                    cudaStream_t stream) {
  uint8_t *p = static_cast<uint8_t *>(scratch);
  ta->ticket = reinterpret_cast<unsigned int *>(p);
  ta->progress = reinterpret_cast<int *>(p + skss__cuda_align(sizeof(unsigned int)));
  ta->rows = rows;
  return cudaMemsetAsync(scratch, 0, skss__dev_taskarray_bytes(rows), stream);
}

/* Lane 0 takes a ticket and the warp learns it; >= rows means "done". */
__device__ __forceinline__ int skss__warp_ticket(const skss__dev_taskarray &ta) {
  int row = 0;
  /* relaxed: the ticket only orders rows; data is published by progress. */
  if ((threadIdx.x & 31) == 0) row = (int)atomicAdd(ta.ticket, 1u);
  return skss_warp::broadcast(row, 0);
}

/* The whole warp waits until `row` has finished at least `need` columns.
 * Lane 0 spins with acquire loads (so the row's data written before its
 * release is visible to it) and __syncwarp() extends that to the warp. */
__device__ __forceinline__ void skss__warp_wait(const skss__dev_taskarray &ta, int row, int need) {
  if ((threadIdx.x & 31) == 0) {
    cuda::atomic_ref<int, cuda::thread_scope_device> p(ta.progress[row]);
    unsigned ns = 32;
    /* spin-wait: `row` was ticketed before ours, so its warp is running. */
    while (p.load(cuda::memory_order_acquire) < need) {
      __nanosleep(ns);
      ns = ns < 1024 ? ns * 2 : 1024;
    }
  }
  /* the lanes read the row's data after lane 0's acquire. */
  __syncwarp();
}

/* The warp publishes that `row` has finished `done` columns: every lane's
 * prior writes are ordered before lane 0's release store. */
__device__ __forceinline__ void skss__warp_publish(const skss__dev_taskarray &ta, int row, int done) {
  /* all lanes' writes of this task happen before lane 0 releases them. */
  __syncwarp();
  if ((threadIdx.x & 31) == 0) {
    /* fence: other lanes' writes become visible device-wide before the flag. */
    __threadfence();
    cuda::atomic_ref<int, cuda::thread_scope_device> p(ta.progress[row]);
    p.store(done, cuda::memory_order_release);
  }
}

#endif
