/*
 * taskarray.cuh — how skss's own SKSS kernels (SAT, halftone, knapsack) get
 * the public task-array scheduler of include/skss_cuda.cuh (Funasaka,
 * Nakano, Ito, SKSS task arrays, §IV): the device calls are the public ones;
 * here the view's counters are carved from the context's scratch arena
 * instead of a task array's own memory (taskarray_api.cu uses the same
 * layout), and zeroed on the stream before each run.
 */
#ifndef SKSS_CUDA_TASKARRAY_CUH
#define SKSS_CUDA_TASKARRAY_CUH

#include "common.cuh"
/* every skss kernel on the scheduler runs 1-D blocks: lanes from threadIdx.x */
#define SKSS_CUDA_TASKARRAY_1D_BLOCKS 1
#include "skss_cuda.cuh"

/* Device bytes of a view of `rows` rows: the ticket, the fault record with
 * the check's scan word, then the progress counters. */
static inline size_t skss__dev_taskarray_bytes(int rows) {
  return skss__cuda_align(sizeof(unsigned int)) +
         skss__cuda_align(sizeof(skss_cuda_taskarray_fault) + sizeof(int)) +
         skss__cuda_align((size_t)rows * sizeof(int));
}

/* The check's word after the fault record: the first unfinished row. */
static inline int *skss__dev_taskarray_scan_word(const skss_cuda_taskarray_view *v) {
  return reinterpret_cast<int *>(v->fault + 1);
}

/* Points a view of rows x cols tasks of `kind` into `scratch` (no reset). */
static inline void skss__dev_taskarray_carve(skss_cuda_taskarray_view *v, void *scratch, int rows, int cols,
                                             skss_taskarray_kind kind, int reach) {
  uint8_t *p = static_cast<uint8_t *>(scratch);
  const size_t head = skss__cuda_align(sizeof(unsigned int));
  const size_t fault = skss__cuda_align(sizeof(skss_cuda_taskarray_fault) + sizeof(int));
  v->ticket = reinterpret_cast<unsigned int *>(p);
  v->fault = reinterpret_cast<skss_cuda_taskarray_fault *>(p + head);
  v->progress = reinterpret_cast<int *>(p + head + fault);
  v->rows = rows;
  v->cols = cols;
  v->kind = (int)kind;
  v->reach = reach;
}

/* Carves a backward view (the widest kind: skss's kernels wait through
 * the raw row waits, which check only rows and counts) from `scratch` and
 * zeroes it on `stream`. */
static inline cudaError_t skss__dev_taskarray_reset(skss_cuda_taskarray_view *v, void *scratch, int rows,
                                                    int cols, cudaStream_t stream) {
  skss__dev_taskarray_carve(v, scratch, rows, cols, SKSS_TASKARRAY_KIND_BACKWARD, cols > 0 ? cols : 1);
  return cudaMemsetAsync(scratch, 0, skss__dev_taskarray_bytes(rows), stream);
}

#endif
