/*
 * skss_cuda.cuh — the task-array scheduler of skss for your own CUDA kernels
 * (Single Kernel Soft Synchronization: Funasaka, Nakano, Ito, "Single Kernel
 * Soft Synchronization Technique for Task Arrays on CUDA-enabled GPUs, with
 * Applications", Section IV). One kernel runs an m x n task array: each
 * worker (a warp, or a whole block) takes the next row from an atomic ticket
 * counter, runs that row's tasks left to right, waits before a task until its
 * predecessors in earlier rows are done, and publishes its row's progress
 * after each task. CUDA C++17; needs skss.h, the CUDA runtime, and libskss for
 * the host calls (CMake: find_package(skss COMPONENTS cuda), skss::skss).
 */

/*
 * ---- Use -----------------------------------------------------------------
 *
 *   skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
 *   d.rows = m; d.cols = n; d.kind = SKSS_TASKARRAY_KIND_FAIR;
 *   skss_cuda_taskarray *ta;  skss_cuda_taskarray_view v;
 *   skss_cuda_taskarray_create(ctx, &d, &ta);     (once; owns device memory)
 *   skss_cuda_taskarray_reset(ta, stream);        (before every run)
 *   skss_cuda_taskarray_get_view(ta, &v);
 *   my_kernel<<<blocks, 64, 0, stream>>>(v, ...);
 *   skss_cuda_taskarray_check(ta, stream, NULL);  (optional: waits, reports faults)
 *
 *   __global__ void my_kernel(skss_cuda_taskarray_view v, ...) {
 *     for (int i = skss_cuda_warp_take_row(v); i < v.rows; i = skss_cuda_warp_take_row(v))
 *       for (int j = 0; j < v.cols; j++) {
 *         skss_cuda_warp_wait_task(v, i, j);      (the kind's predecessors)
 *         ... task (i, j), by the 32 lanes ...
 *         skss_cuda_warp_publish(v, i, j + 1);    (row i has done j + 1 columns)
 *       }
 *   }
 *
 * Any number of blocks is correct (skss_cuda_taskarray_blocks() gives the
 * number that keeps every worker resident and none idle).
 */

/*
 * ---- Dependencies --------------------------------------------------------
 *
 * Task (i, j) runs after (i, j-1) (the worker's own order) and after tasks of
 * earlier rows, as the array's kind says (the same kinds as skss_taskarray_run()):
 *   FORWARD:  (i', j') with i' < i, j' <  j
 *   FAIR:     (i', j') with i' < i, j' <= j
 *   BACKWARD: (i', j') with i' < i, j' <= j + reach (i - i')
 * skss_cuda_*_wait_task(v, i, j) waits for all of them, through row i - 1
 * alone (row i - 1 waited for row i - 2 before it got there). With a rule,
 * skss_cuda_*_wait_task(v, i, j, rule) waits for the predecessors the rule
 * names instead: a functor called as `int rule(int i, int j, skss_cuda_task
 * *deps)` on one thread of the worker, which writes at most
 * SKSS_CUDA_TASKARRAY_MAX_DEPS tasks to deps and returns how many. Each must
 * lie inside the array and inside the kind's set, or be an earlier task of
 * row i (already done). skss_cuda_*_wait_row(v, i, r, k) is the raw form:
 * wait until row r < i has published k <= cols columns.
 */

/*
 * ---- Memory model --------------------------------------------------------
 *
 * Progress is one int a row: the count of its columns done, monotone. A
 * publish by the worker of row r is __syncwarp() (block: __syncthreads()),
 * then, on the worker's first thread, __threadfence() and a store of the
 * count with cuda::memory_order_release at cuda::thread_scope_device (a
 * cuda::atomic_ref<int>). A wait is a loop on the worker's first thread of
 * loads with cuda::memory_order_acquire at device scope, then __syncwarp()
 * (__syncthreads()). So every write that any thread of row r's worker made
 * before publishing k columns happens before every read that any thread of a
 * worker makes after its wait for >= k columns of row r returns: the barrier
 * orders the other threads' writes before the release, the acquire
 * synchronises with it, and the barrier after the acquire extends it to the
 * waiter's threads. skss's own kernels read such data with __ldcg (through
 * L2) and you may too. Waiting lanes sleep between loads (__nanosleep from
 * 32 ns doubling to 1 us, SKSS_CUDA_TASKARRAY_SPIN_NS_MAX). Tickets are a
 * relaxed atomicAdd: they order rows, not data.
 */

/*
 * ---- Why no wait can deadlock --------------------------------------------
 *
 * Tickets are handed out in order, and only by workers already running. A
 * worker only waits on rows ticketed before its own (every wait is checked),
 * so on running workers; the earliest unfinished row waits on rows that are
 * all finished, so it always progresses. This holds whatever the number of
 * blocks and in whatever order the hardware starts them.
 */

/*
 * ---- What a kernel must not do -------------------------------------------
 *
 *  - call a warp function on fewer than all 32 lanes of a warp, or a block
 *    function on fewer than all threads of the block, or with arguments that
 *    differ between them (the first thread's are the ones used);
 *  - take a ticket in one warp and work its row in another without a
 *    __syncthreads() between (use the block functions for block workers);
 *  - let warps of one block that hold different rows meet at a
 *    __syncthreads() (a warp may be waiting on a row another one holds);
 *  - take its next ticket before publishing every column of its row, leave
 *    a row unfinished (early return, a trap) or publish a count that goes
 *    down: workers of later rows would wait forever (check() reports rows
 *    left unfinished, after the fact);
 *  - publish a row it does not hold, or run a task before waiting for it.
 * A wait that names a later row, the waiter's own row, a column past the
 * array or outside the kind's set does not wait: it records a fault (the
 * first one) in device memory, which skss_cuda_taskarray_check() returns.
 *
 * Lanes: the warp functions find lane 0 by reading %laneid, right for any
 * block shape. A translation unit whose kernels on the scheduler all run
 * 1-D blocks may #define SKSS_CUDA_TASKARRAY_1D_BLOCKS before including
 * this header: lanes then come from threadIdx.x & 31, which the compiler
 * sees through and schedules around (skss's own kernels do; the functions
 * are force-inlined, so units may choose differently).
 *
 * Sleeps: a waiting lane sleeps 32 ns after its first look, doubling up to
 * SKSS_CUDA_TASKARRAY_SPIN_NS_MAX (1024 unless a unit #defines it before
 * including this header): longer sleeps leave the issue slots to the
 * workers, shorter ones wake closer to the publication a waiter needs.
 */
#ifndef SKSS_CUDA_CUH
#define SKSS_CUDA_CUH

#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

#include "skss.h"

/* ------------------------------------------------------------------------ */
/* Types shared by host and device                                          */
/* ------------------------------------------------------------------------ */

/* A task by row and column. */
typedef struct skss_cuda_task {
  int row, col;
} skss_cuda_task;

/* The longest sleep of a waiting lane between two loads, ns (see above). */
#ifndef SKSS_CUDA_TASKARRAY_SPIN_NS_MAX
#define SKSS_CUDA_TASKARRAY_SPIN_NS_MAX 1024
#endif

/* The most predecessors a rule may name for one task. */
#define SKSS_CUDA_TASKARRAY_MAX_DEPS 8

/* The largest rows and cols (tickets past the last row stay below 2^31). */
#define SKSS_CUDA_TASKARRAY_MAX_SIZE ((int64_t)1 << 30)

typedef enum skss_cuda_taskarray_fault_code {
  SKSS_CUDA_TASKARRAY_FAULT_NONE = 0,
  SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER = 1,  /* a wait on the waiter's own or a later task */
  SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE = 2, /* a row or column outside the array */
  SKSS_CUDA_TASKARRAY_FAULT_KIND = 3,         /* a predecessor outside the kind's set */
  SKSS_CUDA_TASKARRAY_FAULT_DEP_COUNT = 4,    /* a rule returned < 0 or > MAX_DEPS */
  SKSS_CUDA_TASKARRAY_FAULT_UNFINISHED = 5    /* check(): a row did not publish all columns */
} skss_cuda_taskarray_fault_code;

/* The first fault of a run. row, col: the waiting task (col -1 for a raw
 * wait); dep_row, dep_col: what it asked for (a raw wait's count minus 1;
 * a rule's count in dep_col for DEP_COUNT); UNFINISHED: row and its count
 * in dep_col. */
typedef struct skss_cuda_taskarray_fault {
  unsigned int code; /* skss_cuda_taskarray_fault_code */
  int row, col;
  int dep_row, dep_col;
} skss_cuda_taskarray_fault;

/* What a kernel gets, by value: device pointers into the task array's
 * memory and its shape. Plain data; valid until the task array is destroyed. */
typedef struct skss_cuda_taskarray_view {
  unsigned int *ticket;             /* the next row to hand out */
  int *progress;                    /* per row: columns done (monotone) */
  skss_cuda_taskarray_fault *fault; /* the first fault; code 0 = none */
  int rows, cols;
  int kind;                         /* skss_taskarray_kind */
  int reach;                        /* BACKWARD: >= 1 (at most cols) */
} skss_cuda_taskarray_view;

/* ------------------------------------------------------------------------ */
/* Host: the task-array object (libskss, CUDA builds)                       */
/* ------------------------------------------------------------------------ */

typedef struct skss_cuda_taskarray_desc {
  size_t size;              /* sizeof(skss_cuda_taskarray_desc) */
  int64_t rows, cols;       /* 0 .. SKSS_CUDA_TASKARRAY_MAX_SIZE */
  skss_taskarray_kind kind; /* FORWARD, FAIR or BACKWARD */
  int64_t reach;            /* BACKWARD only: >= 1 */
} skss_cuda_taskarray_desc;

#define SKSS_CUDA_TASKARRAY_DESC_INIT \
  { sizeof(skss_cuda_taskarray_desc), 0, 0, SKSS_TASKARRAY_KIND_FORWARD, 1 }

typedef struct skss_cuda_taskarray skss_cuda_taskarray;

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a task array on ctx's device (ctx must run the CUDA backend:
 * else SKSS_ERR_UNSUPPORTED) with its own device memory (a few hundred bytes
 * and 4 bytes a row), which it keeps until destroyed. ctx records the detail
 * of every failure of the task array's calls and must outlive it; like ctx,
 * one host thread at a time calls it. Runs of one task array must not
 * overlap (reset, kernel, reset, kernel, in stream order). *out is NULL on
 * failure. */
SKSS_API skss_status skss_cuda_taskarray_create(skss_ctx *ctx, const skss_cuda_taskarray_desc *desc,
                                                skss_cuda_taskarray **out /* OUT */);
/* Frees the task array (waits for the device first). NULL is a no-op. */
SKSS_API void skss_cuda_taskarray_destroy(skss_cuda_taskarray *ta);
/* Zeroes the ticket, the progress and the fault on `stream` (asynchronous):
 * call it before every kernel that runs the task array, on that kernel's
 * stream (or order the two otherwise). */
SKSS_API skss_status skss_cuda_taskarray_reset(skss_cuda_taskarray *ta, cudaStream_t stream);
/* The view to pass to kernels. */
SKSS_API skss_status skss_cuda_taskarray_get_view(const skss_cuda_taskarray *ta,
                                                  skss_cuda_taskarray_view *out /* OUT */);
/* Waits for `stream` and reports the run: SKSS_OK; SKSS_ERR_CUDA when the
 * stream holds an error (a kernel fault); SKSS_ERR_INVALID_ARG when a wait
 * named a task it may not wait for (NOT_EARLIER, OUT_OF_RANGE, KIND);
 * SKSS_ERR_CALLBACK when a rule returned a bad count or a row was left
 * unfinished (its progress short of cols). `fault` (optional) receives the
 * first fault, code 0 when none; the context's last error names the tasks. */
SKSS_API skss_status skss_cuda_taskarray_check(skss_cuda_taskarray *ta, cudaStream_t stream,
                                               skss_cuda_taskarray_fault *fault /* OUT, optional */);

#ifdef __cplusplus
}
#endif

/* Blocks of `threads` threads of `kernel` (with `smem` bytes of dynamic
 * shared memory) to launch for `rows` rows at `workers_per_block` workers a
 * block: as many as are resident on the current device at once, but no more
 * than the rows need, and at least 1. Header-only. */
template <typename... Args>
inline cudaError_t skss_cuda_taskarray_blocks(void (*kernel)(Args...), int threads, size_t smem,
                                              int workers_per_block, int64_t rows, int *blocks /* OUT */) {
  int device = 0, sms = 0, per_sm = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, smem);
  if (err != cudaSuccess) return err;
  const int64_t per = workers_per_block > 0 ? workers_per_block : 1;
  const int64_t needed = (rows + per - 1) / per;
  const int64_t resident = (int64_t)(per_sm > 0 ? per_sm : 1) * (sms > 0 ? sms : 1);
  const int64_t n = needed < resident ? needed : resident;
  *blocks = n > 0 ? (int)n : 1;
  return cudaSuccess;
}

/* ------------------------------------------------------------------------ */
/* Device                                                                   */
/* ------------------------------------------------------------------------ */

#ifdef __CUDACC__

namespace skss_cuda_detail {

constexpr unsigned FULL_MASK = 0xffffffffu;

/* The lane of the calling thread. With SKSS_CUDA_TASKARRAY_1D_BLOCKS it is
 * threadIdx.x & 31, which the compiler can see through (reading %laneid made
 * skss's halftone strips kernel schedule worse, 2%); otherwise %laneid,
 * right for any block shape. */
__device__ __forceinline__ unsigned lane_id() {
#ifdef SKSS_CUDA_TASKARRAY_1D_BLOCKS
  return threadIdx.x & 31u;
#else
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
#endif
}

__device__ __forceinline__ bool block_leader() {
  return threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0;
}

/* Records the run's first fault; the host reads it after the kernel. */
__device__ __forceinline__ void record_fault(const skss_cuda_taskarray_view &v, unsigned code, int row, int col,
                                             int dep_row, int dep_col) {
  skss_cuda_taskarray_fault *f = v.fault;
  /* relaxed CAS: only which fault is first matters; the kernel's end publishes it. */
  if (atomicCAS(&f->code, 0u, code) != 0u) return;
  f->row = row;
  f->col = col;
  f->dep_row = dep_row;
  f->dep_col = dep_col;
}

/* Loops until `row` has published at least `done` columns. */
__device__ __forceinline__ void spin_until(const skss_cuda_taskarray_view &v, int row, int done) {
  cuda::atomic_ref<int, cuda::thread_scope_device> p(v.progress[row]);
  unsigned ns = 32;
  /* spin-wait with acquire loads: `row` was ticketed before the waiter's row, so its worker runs. */
  while (p.load(cuda::memory_order_acquire) < done) {
    __nanosleep(ns);
    ns = ns < SKSS_CUDA_TASKARRAY_SPIN_NS_MAX ? ns * 2 : SKSS_CUDA_TASKARRAY_SPIN_NS_MAX;
  }
}

/* Whether row `mine` may wait for row `row` to publish `done` columns; records the fault if not. */
__device__ __forceinline__ bool row_wait_ok(const skss_cuda_taskarray_view &v, int mine, int row, int done) {
  unsigned code = SKSS_CUDA_TASKARRAY_FAULT_NONE;
  if (row < 0 || done < 0 || done > v.cols || mine >= v.rows)
    code = SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE;
  else if (row >= mine)
    code = SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER;
  if (code != SKSS_CUDA_TASKARRAY_FAULT_NONE) record_fault(v, code, mine, -1, row, done - 1);
  return code == SKSS_CUDA_TASKARRAY_FAULT_NONE;
}

/* Columns of row i - 1 that task (i, j) of the array's kind needs done. */
__device__ __forceinline__ int kind_need(const skss_cuda_taskarray_view &v, int j) {
  if (v.kind == SKSS_TASKARRAY_KIND_FORWARD) return j;
  if (v.kind == SKSS_TASKARRAY_KIND_FAIR) return j + 1;
  return v.reach >= v.cols - j - 1 ? v.cols : j + v.reach + 1;
}

/* The kind's wait for task (i, j), on the worker's first thread. */
__device__ __forceinline__ void kind_wait(const skss_cuda_taskarray_view &v, int i, int j) {
  if (i < 0 || i >= v.rows || j < 0 || j >= v.cols) {
    record_fault(v, SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE, i, j, -1, -1);
    return;
  }
  if (i > 0) spin_until(v, i - 1, kind_need(v, j));
}

/* The fault of predecessor d of task (i, j), or NONE. */
__device__ __forceinline__ unsigned dep_fault(const skss_cuda_taskarray_view &v, int i, int j, skss_cuda_task d) {
  if (i < 0 || i >= v.rows || j < 0 || j >= v.cols || d.row < 0 || d.row >= v.rows || d.col < 0 ||
      d.col >= v.cols)
    return SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE;
  if (d.row > i || (d.row == i && d.col >= j)) return SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER;
  if (d.row == i) return SKSS_CUDA_TASKARRAY_FAULT_NONE;
  if (v.kind == SKSS_TASKARRAY_KIND_FORWARD && d.col >= j) return SKSS_CUDA_TASKARRAY_FAULT_KIND;
  if (v.kind == SKSS_TASKARRAY_KIND_FAIR && d.col > j) return SKSS_CUDA_TASKARRAY_FAULT_KIND;
  if (v.kind == SKSS_TASKARRAY_KIND_BACKWARD && (int64_t)d.col > (int64_t)j + (int64_t)v.reach * (i - d.row))
    return SKSS_CUDA_TASKARRAY_FAULT_KIND;
  return SKSS_CUDA_TASKARRAY_FAULT_NONE;
}

/* A rule's wait for task (i, j), on the worker's first thread. */
template <typename Rule>
__device__ __forceinline__ void rule_wait(const skss_cuda_taskarray_view &v, int i, int j, const Rule &rule) {
  skss_cuda_task deps[SKSS_CUDA_TASKARRAY_MAX_DEPS];
  const int n = rule(i, j, deps);
  if (n < 0 || n > SKSS_CUDA_TASKARRAY_MAX_DEPS) {
    record_fault(v, SKSS_CUDA_TASKARRAY_FAULT_DEP_COUNT, i, j, -1, n);
    return;
  }
  for (int k = 0; k < n; k++) {
    const unsigned code = dep_fault(v, i, j, deps[k]);
    if (code != SKSS_CUDA_TASKARRAY_FAULT_NONE) {
      record_fault(v, code, i, j, deps[k].row, deps[k].col);
      return;
    }
    if (deps[k].row < i) spin_until(v, deps[k].row, deps[k].col + 1);
  }
}

/* Publishes on the worker's first thread, after the worker's barrier. */
__device__ __forceinline__ void release_progress(const skss_cuda_taskarray_view &v, int row, int done) {
  /* fence: the worker's other threads' writes become visible device-wide before the count. */
  __threadfence();
  cuda::atomic_ref<int, cuda::thread_scope_device> p(v.progress[row]);
  /* release: a waiter that reads `done` with acquire sees the row's data. */
  p.store(done, cuda::memory_order_release);
}

}  // namespace skss_cuda_detail

/* ---- warp workers: every call by all 32 lanes, with the same arguments ---- */

/* Takes the next row for the warp; >= v.rows means none is left. */
__device__ __forceinline__ int skss_cuda_warp_take_row(const skss_cuda_taskarray_view &v) {
  int row = 0;
  /* relaxed: the ticket only orders rows; data is ordered by publish and wait. */
  if (skss_cuda_detail::lane_id() == 0) row = (int)atomicAdd(v.ticket, 1u);
  return __shfl_sync(skss_cuda_detail::FULL_MASK, row, 0);
}

/* Waits until row `row` (< mine, the warp's row) has published `done` columns. */
__device__ __forceinline__ void skss_cuda_warp_wait_row(const skss_cuda_taskarray_view &v, int mine, int row,
                                                        int done) {
  if (skss_cuda_detail::lane_id() == 0 && skss_cuda_detail::row_wait_ok(v, mine, row, done))
    skss_cuda_detail::spin_until(v, row, done);
  /* the lanes read the row's data after lane 0's acquire. */
  __syncwarp();
}

/* skss_cuda_warp_wait_row without its checks, for kernels whose rows are
 * earlier by construction (skss's own): one acquire spin, no fault record.
 * A row >= mine may never finish: a wrong argument hangs, it is not reported. */
__device__ __forceinline__ void skss_cuda_warp_wait_row_unchecked(const skss_cuda_taskarray_view &v, int row,
                                                                  int done) {
  if (skss_cuda_detail::lane_id() == 0) skss_cuda_detail::spin_until(v, row, done);
  /* the lanes read the row's data after lane 0's acquire. */
  __syncwarp();
}

/* Waits for the predecessors of task (i, j) that the array's kind gives. */
__device__ __forceinline__ void skss_cuda_warp_wait_task(const skss_cuda_taskarray_view &v, int i, int j) {
  if (skss_cuda_detail::lane_id() == 0) skss_cuda_detail::kind_wait(v, i, j);
  /* the lanes read the predecessors' data after lane 0's acquire. */
  __syncwarp();
}

/* Waits for the predecessors of task (i, j) that `rule` names (on lane 0). */
template <typename Rule>
__device__ __forceinline__ void skss_cuda_warp_wait_task(const skss_cuda_taskarray_view &v, int i, int j,
                                                         const Rule &rule) {
  if (skss_cuda_detail::lane_id() == 0) skss_cuda_detail::rule_wait(v, i, j, rule);
  /* the lanes read the predecessors' data after lane 0's acquire. */
  __syncwarp();
}

/* Publishes that row `row` (the warp's) has done its first `done` columns. */
__device__ __forceinline__ void skss_cuda_warp_publish(const skss_cuda_taskarray_view &v, int row, int done) {
  /* all lanes' writes of the task happen before lane 0 releases them. */
  __syncwarp();
  if (skss_cuda_detail::lane_id() == 0) skss_cuda_detail::release_progress(v, row, done);
}

/* ---- block workers: every call by all threads of the block ---------------- */

/* Takes the next row for the block; >= v.rows means none is left. */
__device__ __forceinline__ int skss_cuda_block_take_row(const skss_cuda_taskarray_view &v) {
  __shared__ int skss_cuda_block_row;
  /* relaxed: the ticket only orders rows; data is ordered by publish and wait. */
  if (skss_cuda_detail::block_leader()) skss_cuda_block_row = (int)atomicAdd(v.ticket, 1u);
  /* every thread reads the leader's ticket after this barrier... */
  __syncthreads();
  const int row = skss_cuda_block_row;
  /* ...and has read it before the leader may write the next one. */
  __syncthreads();
  return row;
}

/* Waits until row `row` (< mine, the block's row) has published `done` columns. */
__device__ __forceinline__ void skss_cuda_block_wait_row(const skss_cuda_taskarray_view &v, int mine, int row,
                                                         int done) {
  if (skss_cuda_detail::block_leader() && skss_cuda_detail::row_wait_ok(v, mine, row, done))
    skss_cuda_detail::spin_until(v, row, done);
  /* the block reads the row's data after its first thread's acquire. */
  __syncthreads();
}

/* skss_cuda_block_wait_row without its checks (see the warp form). */
__device__ __forceinline__ void skss_cuda_block_wait_row_unchecked(const skss_cuda_taskarray_view &v, int row,
                                                                   int done) {
  if (skss_cuda_detail::block_leader()) skss_cuda_detail::spin_until(v, row, done);
  /* the block reads the row's data after its first thread's acquire. */
  __syncthreads();
}

/* Waits for the predecessors of task (i, j) that the array's kind gives. */
__device__ __forceinline__ void skss_cuda_block_wait_task(const skss_cuda_taskarray_view &v, int i, int j) {
  if (skss_cuda_detail::block_leader()) skss_cuda_detail::kind_wait(v, i, j);
  /* the block reads the predecessors' data after its first thread's acquire. */
  __syncthreads();
}

/* Waits for the predecessors of task (i, j) that `rule` names (on the first thread). */
template <typename Rule>
__device__ __forceinline__ void skss_cuda_block_wait_task(const skss_cuda_taskarray_view &v, int i, int j,
                                                          const Rule &rule) {
  if (skss_cuda_detail::block_leader()) skss_cuda_detail::rule_wait(v, i, j, rule);
  /* the block reads the predecessors' data after its first thread's acquire. */
  __syncthreads();
}

/* Publishes that row `row` (the block's) has done its first `done` columns. */
__device__ __forceinline__ void skss_cuda_block_publish(const skss_cuda_taskarray_view &v, int row, int done) {
  /* every thread's writes of the task happen before the first thread releases them. */
  __syncthreads();
  if (skss_cuda_detail::block_leader()) skss_cuda_detail::release_progress(v, row, done);
}

#endif /* __CUDACC__ */

#endif /* SKSS_CUDA_CUH */
