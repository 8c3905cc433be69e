/*
 * test_cuda_taskarray.cu — the public task-array scheduler (include/skss_cuda.cuh;
 * Funasaka, Nakano, Ito, SKSS task arrays, §IV) on users' kernels: every kind,
 * kind/rule/raw waits, warp workers (64-thread blocks) and block workers (96
 * threads), awkward shapes up to 200003 rows, resident/1-block/oversized grids.
 * Task (i, j) runs on a thread other than its predecessors', counts itself,
 * checks their stamps are set and its value; faults and unfinished rows must
 * come back from check() (a watchdog fails a hang). SKSS_TEST_SMALL=1: small
 * shapes, no stress (compute-sanitizer); SKSS_TEST_ONLY=PATTERN. 77: no GPU.
 */
#include <cuda_runtime.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vector>

extern "C" {
#include <cmocka.h>

#include "testutil.h"
}
#include "skss_cuda.cuh"

#define WARP_THREADS 64  /* two warp workers a block */
#define BLOCK_THREADS 96 /* one block worker of three warps */
#define HANG_SECONDS 120.0
#define FAULT_ROWS 43 /* the fault tests' array: faults at row 40 */
#define FAULT_COLS 37

enum wait_mode { WAIT_KIND = 0, WAIT_RULE = 1, WAIT_ROW = 2, WAIT_ROW_UNCHECKED = 3 };

/* ---- dependency rules (host and device) ---------------------------------- */

/* The tasks a kind's task waits for directly: its left neighbour and the
 * frontier of row i - 1 (the rest of the kind's set follows by induction). */
struct kind_rule {
  int kind, reach, cols;
  __host__ __device__ int operator()(int i, int j, skss_cuda_task *d) const {
    int n = 0;
    if (j > 0) d[n++] = skss_cuda_task{i, j - 1};
    if (i == 0) return n;
    if (kind == SKSS_TASKARRAY_KIND_FORWARD) {
      if (j > 0) d[n++] = skss_cuda_task{i - 1, j - 1};
    } else if (kind == SKSS_TASKARRAY_KIND_FAIR) {
      d[n++] = skss_cuda_task{i - 1, j};
    } else {
      d[n++] = skss_cuda_task{i - 1, j + reach < cols ? j + reach : cols - 1};
    }
    return n;
  }
};

/* A fair rule with far rows: (i-1, j), (i/2, j/2), (i-3, j) and the left neighbour. */
struct far_rule {
  __host__ __device__ int operator()(int i, int j, skss_cuda_task *d) const {
    int n = 0;
    if (j > 0) d[n++] = skss_cuda_task{i, j - 1};
    if (i >= 1) d[n++] = skss_cuda_task{i - 1, j};
    if (i >= 1) d[n++] = skss_cuda_task{i / 2, j / 2};
    if (i >= 3) d[n++] = skss_cuda_task{i - 3, j};
    return n;
  }
};

/* A backward rule of reach 2 that reaches two rows up: (i-1, j+2), (i-2, j+4). */
struct reach2_rule {
  int cols;
  __host__ __device__ int operator()(int i, int j, skss_cuda_task *d) const {
    int n = 0;
    if (i >= 1) d[n++] = skss_cuda_task{i - 1, j + 2 < cols ? j + 2 : cols - 1};
    if (i >= 2) d[n++] = skss_cuda_task{i - 2, j + 4 < cols ? j + 4 : cols - 1};
    return n;
  }
};

/* Valid predecessors but at task (at_row, at_col): `bad` (or `count` of them). */
struct faulty_rule {
  int forward; /* valid ones: (i-1, j-1) when forward, else (i-1, j) */
  int at_row, at_col;
  skss_cuda_task bad;
  int count;   /* > 0: return this many at the faulty task instead */
  __host__ __device__ int operator()(int i, int j, skss_cuda_task *d) const {
    if (i == at_row && j == at_col) {
      if (count > 0) return count;
      d[0] = bad;
      return 1;
    }
    if (i == 0 || (forward && j == 0)) return 0;
    d[0] = skss_cuda_task{i - 1, forward ? j - 1 : j};
    return 1;
  }
};

/* ---- the kernel ----------------------------------------------------------- */

struct bufs {
  int *count;               /* per task: times run */
  unsigned long long *stamp; /* per task: completion order from 1; 0 = not yet */
  unsigned long long *clock;
  int *value;               /* per task: 1 + max of its predecessors' */
  int *bad;                 /* [0] tasks that saw an unfinished predecessor, [1..4] the first */
  int check;                /* 0: faulty rules, only count */
  int skip_row;             /* this row never publishes its last column (-1: none) */
  int raw_row, raw_col, raw_dep_row, raw_done; /* WAIT_ROW: this task's wait instead */
};

/* Runs task (i, j) on one thread: checks, values, counts and stamps it. */
template <typename Rule>
__device__ void do_task(const skss_cuda_taskarray_view &v, const bufs &b, const Rule &rule, int i, int j) {
  const size_t me = (size_t)i * v.cols + j;
  if (b.check) {
    skss_cuda_task d[SKSS_CUDA_TASKARRAY_MAX_DEPS];
    const int n = rule(i, j, d);
    int best = 0;
    for (int k = 0; k < n; k++) {
      const size_t t = (size_t)d[k].row * v.cols + d[k].col;
      /* plain loads: the wait's acquire and barrier make the writes visible;
       * relaxed count: its first incrementer alone records the task */
      if (b.stamp[t] == 0 && atomicAdd(b.bad, 1) == 0) {
        b.bad[1] = i;
        b.bad[2] = j;
        b.bad[3] = d[k].row;
        b.bad[4] = d[k].col;
      }
      best = max(best, b.value[t]);
    }
    b.value[me] = best + 1;
  }
  /* relaxed: counted once per run, read after the kernel */
  atomicAdd(b.count + me, 1);
  /* relaxed: the clock only has to grow; the stamp travels with the publish */
  b.stamp[me] = atomicAdd(b.clock, 1ull) + 1;
}

template <bool BLOCK>
__device__ __forceinline__ int take(const skss_cuda_taskarray_view &v) {
  if constexpr (BLOCK) return skss_cuda_block_take_row(v);
  else return skss_cuda_warp_take_row(v);
}

template <bool BLOCK>
__device__ __forceinline__ void wait_row(const skss_cuda_taskarray_view &v, int i, int row, int done) {
  if constexpr (BLOCK) skss_cuda_block_wait_row(v, i, row, done);
  else skss_cuda_warp_wait_row(v, i, row, done);
}

/* The kind's need, written out again: the raw form of the kind's wait. */
__device__ int raw_need(const skss_cuda_taskarray_view &v, int j) {
  if (v.kind == SKSS_TASKARRAY_KIND_FORWARD) return j;
  if (v.kind == SKSS_TASKARRAY_KIND_FAIR) return j + 1;
  return j + v.reach + 1 < v.cols ? j + v.reach + 1 : v.cols;
}

template <bool BLOCK, int MODE, typename Rule>
__device__ __forceinline__ void wait_for(const skss_cuda_taskarray_view &v, const bufs &b, const Rule &rule, int i,
                                         int j) {
  if constexpr (MODE == WAIT_KIND) {
    if constexpr (BLOCK) skss_cuda_block_wait_task(v, i, j);
    else skss_cuda_warp_wait_task(v, i, j);
  } else if constexpr (MODE == WAIT_RULE) {
    if constexpr (BLOCK) skss_cuda_block_wait_task(v, i, j, rule);
    else skss_cuda_warp_wait_task(v, i, j, rule);
  } else if constexpr (MODE == WAIT_ROW_UNCHECKED) {
    if (i > 0) {
      if constexpr (BLOCK) skss_cuda_block_wait_row_unchecked(v, i - 1, raw_need(v, j));
      else skss_cuda_warp_wait_row_unchecked(v, i - 1, raw_need(v, j));
    }
  } else if (i == b.raw_row && j == b.raw_col) {
    wait_row<BLOCK>(v, i, b.raw_dep_row, b.raw_done);
  } else if (i > 0) {
    wait_row<BLOCK>(v, i, i - 1, raw_need(v, j));
  }
}

/* Workers take rows until none is left; task (i, j) runs on worker thread
 * (7 i + 3 j) mod its threads, never the one that ran (i-1, j) or (i, j-1). */
template <bool BLOCK, int MODE, typename Rule>
__global__ void run_kernel(skss_cuda_taskarray_view v, bufs b, Rule rule) {
  const int threads = BLOCK ? (int)blockDim.x : 32;
  const int me = BLOCK ? (int)threadIdx.x : (int)(threadIdx.x & 31);
  for (int i = take<BLOCK>(v); i < v.rows; i = take<BLOCK>(v)) {
    for (int j = 0; j < v.cols; j++) {
      wait_for<BLOCK, MODE>(v, b, rule, i, j);
      if (me == (int)(((int64_t)i * 7 + (int64_t)j * 3) % threads)) do_task(v, b, rule, i, j);
      if (i == b.skip_row && j == v.cols - 1) continue;
      if constexpr (BLOCK) skss_cuda_block_publish(v, i, j + 1);
      else skss_cuda_warp_publish(v, i, j + 1);
    }
  }
}

/* ---- host side ------------------------------------------------------------ */

/* SKSS_TEST_SMALL=1: small shapes only (compute-sanitizer). */
static bool small_only(void) {
  const char *v = getenv("SKSS_TEST_SMALL");
  return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Waits for the stream; a run still going after HANG_SECONDS is a deadlock. */
static void wait_or_hang(cudaStream_t s, const char *what) {
  const double t0 = now_s();
  cudaError_t e;
  while ((e = cudaStreamQuery(s)) == cudaErrorNotReady) {
    if (now_s() - t0 > HANG_SECONDS) {
      fprintf(stderr, "HANG: %s still running after %.0f s\n", what, HANG_SECONDS);
      fflush(stderr);
      _exit(1); /* the kernel never ends: only leaving the process stops it */
    }
    usleep(200);
  }
  if (e != cudaSuccess) TU_FAIL("%s: %s", what, cudaGetErrorString(e));
}

struct fixture {
  skss_ctx *ctx;
  cudaStream_t stream;
};

static fixture open_fixture(void) {
  fixture f;
  assert_int_equal(cudaStreamCreateWithFlags(&f.stream, cudaStreamNonBlocking), cudaSuccess);
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  d.backend = SKSS_BACKEND_CUDA;
  d.cuda_stream = f.stream;
  f.ctx = NULL;
  TU_OK(NULL, skss_ctx_create(&d, &f.ctx));
  return f;
}

static void close_fixture(fixture *f) {
  skss_ctx_destroy(f->ctx);
  cudaStreamDestroy(f->stream);
}

/* A run: its shape, how it waits, its workers and grid (0 = resident). */
struct spec {
  int rows, cols;
  skss_taskarray_kind kind;
  int reach;
  int mode;
  bool block;
  int blocks;
};

struct device_bufs {
  bufs b;
  size_t cells;
};

static device_bufs alloc_bufs(size_t cells) {
  device_bufs d;
  memset(&d, 0, sizeof d);
  d.cells = cells;
  const size_t n = cells > 0 ? cells : 1;
  assert_int_equal(cudaMalloc(&d.b.count, n * sizeof(int)), cudaSuccess);
  assert_int_equal(cudaMalloc(&d.b.stamp, n * sizeof(unsigned long long)), cudaSuccess);
  assert_int_equal(cudaMalloc(&d.b.value, n * sizeof(int)), cudaSuccess);
  assert_int_equal(cudaMalloc(&d.b.clock, sizeof(unsigned long long)), cudaSuccess);
  assert_int_equal(cudaMalloc(&d.b.bad, 8 * sizeof(int)), cudaSuccess);
  d.b.check = 1;
  d.b.skip_row = -1;
  d.b.raw_row = -1;
  return d;
}

static void clear_bufs(device_bufs *d, cudaStream_t s) {
  const size_t n = d->cells > 0 ? d->cells : 1;
  assert_int_equal(cudaMemsetAsync(d->b.count, 0, n * sizeof(int), s), cudaSuccess);
  assert_int_equal(cudaMemsetAsync(d->b.stamp, 0, n * sizeof(unsigned long long), s), cudaSuccess);
  /* poison: a value read before it is written shows up in the host's recomputation */
  assert_int_equal(cudaMemsetAsync(d->b.value, 0x5A, n * sizeof(int), s), cudaSuccess);
  assert_int_equal(cudaMemsetAsync(d->b.clock, 0, sizeof(unsigned long long), s), cudaSuccess);
  assert_int_equal(cudaMemsetAsync(d->b.bad, 0, 8 * sizeof(int), s), cudaSuccess);
}

static void free_bufs(device_bufs *d) {
  cudaFree(d->b.count);
  cudaFree(d->b.stamp);
  cudaFree(d->b.value);
  cudaFree(d->b.clock);
  cudaFree(d->b.bad);
}

static skss_cuda_taskarray *make_array(fixture *f, int rows, int cols, skss_taskarray_kind kind, int reach) {
  skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
  d.rows = rows;
  d.cols = cols;
  d.kind = kind;
  d.reach = reach;
  skss_cuda_taskarray *ta = NULL;
  TU_OK(f->ctx, skss_cuda_taskarray_create(f->ctx, &d, &ta));
  return ta;
}

/* Resets, launches and waits (watchdog); returns the check's status. */
template <bool BLOCK, int MODE, typename Rule>
static skss_status launch(fixture *f, skss_cuda_taskarray *ta, const spec &s, device_bufs *d, const Rule &rule,
                          skss_cuda_taskarray_fault *fault) {
  auto kern = run_kernel<BLOCK, MODE, Rule>;
  const int threads = BLOCK ? BLOCK_THREADS : WARP_THREADS;
  int blocks = s.blocks;
  if (blocks == 0)
    assert_int_equal(skss_cuda_taskarray_blocks(kern, threads, 0, BLOCK ? 1 : threads / 32, s.rows, &blocks),
                     cudaSuccess);
  clear_bufs(d, f->stream);
  TU_OK(f->ctx, skss_cuda_taskarray_reset(ta, f->stream));
  skss_cuda_taskarray_view v;
  TU_OK(f->ctx, skss_cuda_taskarray_get_view(ta, &v));
  kern<<<blocks, threads, 0, f->stream>>>(v, d->b, rule);
  assert_int_equal(cudaGetLastError(), cudaSuccess);
  char what[160];
  snprintf(what, sizeof what, "%d x %d kind %d reach %d mode %d %s, %d blocks", s.rows, s.cols, (int)s.kind, s.reach,
           s.mode, BLOCK ? "block" : "warp", blocks);
  wait_or_hang(f->stream, what);
  return skss_cuda_taskarray_check(ta, f->stream, fault);
}

/* Every task once, no task before its predecessors, values as on the host. */
template <typename Rule>
static void verify(const spec &s, device_bufs *d, const Rule &rule) {
  const size_t cells = (size_t)s.rows * (size_t)s.cols;
  std::vector<int> count(cells + 1), value(cells + 1), want(cells + 1);
  std::vector<unsigned long long> stamp(cells + 1);
  int bad[8];
  assert_int_equal(cudaMemcpy(count.data(), d->b.count, cells * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(cudaMemcpy(value.data(), d->b.value, cells * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
  assert_int_equal(cudaMemcpy(stamp.data(), d->b.stamp, cells * sizeof(unsigned long long), cudaMemcpyDeviceToHost),
                   cudaSuccess);
  assert_int_equal(cudaMemcpy(bad, d->b.bad, sizeof bad, cudaMemcpyDeviceToHost), cudaSuccess);
  const char *how = s.block ? "block" : "warp";
  if (bad[0] != 0)
    TU_FAIL("%d x %d kind %d reach %d mode %d %s: %d tasks started before a predecessor, first (%d, %d) before "
            "(%d, %d)",
            s.rows, s.cols, (int)s.kind, s.reach, s.mode, how, bad[0], bad[1], bad[2], bad[3], bad[4]);
  for (int i = 0; i < s.rows; i++)
    for (int j = 0; j < s.cols; j++) {
      const size_t me = (size_t)i * s.cols + j;
      if (count[me] != 1)
        TU_FAIL("%d x %d kind %d mode %d %s: task (%d, %d) ran %d times", s.rows, s.cols, (int)s.kind, s.mode, how, i,
                j, count[me]);
      skss_cuda_task dep[SKSS_CUDA_TASKARRAY_MAX_DEPS];
      const int n = rule(i, j, dep);
      int best = 0;
      for (int k = 0; k < n; k++) {
        const size_t t = (size_t)dep[k].row * s.cols + dep[k].col;
        best = want[t] > best ? want[t] : best;
        if (stamp[t] >= stamp[me])
          TU_FAIL("%d x %d kind %d mode %d %s: task (%d, %d) finished (stamp %llu) before its predecessor "
                  "(%d, %d) (stamp %llu)",
                  s.rows, s.cols, (int)s.kind, s.mode, how, i, j, stamp[me], dep[k].row, dep[k].col, stamp[t]);
      }
      want[me] = best + 1;
      if (value[me] != want[me])
        TU_FAIL("%d x %d kind %d mode %d %s: task (%d, %d) computed %d, want %d (a stale predecessor)", s.rows,
                s.cols, (int)s.kind, s.mode, how, i, j, value[me], want[me]);
    }
}

/* One full run of spec s with rule (the waits' rule in WAIT_RULE mode, the
 * checked predecessors in every mode), checked clean. */
template <bool BLOCK, int MODE, typename Rule>
static void run_clean(fixture *f, const spec &s, const Rule &rule) {
  skss_cuda_taskarray *ta = make_array(f, s.rows, s.cols, s.kind, s.reach);
  device_bufs d = alloc_bufs((size_t)s.rows * (size_t)s.cols);
  skss_cuda_taskarray_fault fault;
  TU_OK(f->ctx, (launch<BLOCK, MODE, Rule>(f, ta, s, &d, rule, &fault)));
  assert_int_equal(fault.code, SKSS_CUDA_TASKARRAY_FAULT_NONE);
  verify(s, &d, rule);
  free_bufs(&d);
  skss_cuda_taskarray_destroy(ta);
}

template <bool BLOCK, int MODE>
static void run_kind(fixture *f, spec s) {
  s.block = BLOCK;
  s.mode = MODE;
  run_clean<BLOCK, MODE>(f, s, kind_rule{(int)s.kind, s.reach, s.cols});
}

/* The first SMALL_SHAPES are the small ones. */
static const int SHAPES[][2] = {{1, 1},   {2, 2},   {1, 1000}, {1000, 1},  {31, 33},   {33, 31},
                                {32, 32}, {97, 61}, {3001, 7}, {61, 257}, {100003, 3}};
#define SMALL_SHAPES 6
#define N_SHAPES (small_only() ? (size_t)SMALL_SHAPES : sizeof SHAPES / sizeof SHAPES[0])

/* (kind, reach): forward, fair, backward 1..3 */
static const int KINDS[][2] = {{SKSS_TASKARRAY_KIND_FORWARD, 1},
                               {SKSS_TASKARRAY_KIND_FAIR, 1},
                               {SKSS_TASKARRAY_KIND_BACKWARD, 1},
                               {SKSS_TASKARRAY_KIND_BACKWARD, 2},
                               {SKSS_TASKARRAY_KIND_BACKWARD, 3}};
#define N_KINDS (sizeof KINDS / sizeof KINDS[0])

static spec make_spec(size_t shape, size_t kind) {
  spec s;
  s.rows = SHAPES[shape][0];
  s.cols = SHAPES[shape][1];
  s.kind = (skss_taskarray_kind)KINDS[kind][0];
  s.reach = KINDS[kind][1];
  s.mode = WAIT_KIND;
  s.block = false;
  s.blocks = 0;
  return s;
}

static void test_every_kind_warp_workers(void **state) {
  (void)state;
  fixture f = open_fixture();
  for (size_t k = 0; k < N_KINDS; k++)
    for (size_t sh = 0; sh < N_SHAPES; sh++) run_kind<false, WAIT_KIND>(&f, make_spec(sh, k));
  close_fixture(&f);
}

static void test_every_kind_block_workers(void **state) {
  (void)state;
  fixture f = open_fixture();
  for (size_t k = 0; k < N_KINDS; k++)
    for (size_t sh = 0; sh < N_SHAPES; sh++) run_kind<true, WAIT_KIND>(&f, make_spec(sh, k));
  close_fixture(&f);
}

/* The kind's rule written as a rule, and raw row waits (checked and unchecked), for every kind. */
static void test_rule_and_row_waits_of_every_kind(void **state) {
  (void)state;
  fixture f = open_fixture();
  for (size_t k = 0; k < N_KINDS; k++)
    for (size_t sh = 0; sh < N_SHAPES; sh++) {
      spec s = make_spec(sh, k);
      const kind_rule rule{(int)s.kind, s.reach, s.cols};
      s.mode = WAIT_RULE;
      run_clean<false, WAIT_RULE>(&f, s, rule);
      s.block = true;
      run_clean<true, WAIT_RULE>(&f, s, rule);
      s.mode = WAIT_ROW;
      run_clean<true, WAIT_ROW>(&f, s, rule);
      s.block = false;
      run_clean<false, WAIT_ROW>(&f, s, rule);
      s.mode = WAIT_ROW_UNCHECKED;
      run_clean<false, WAIT_ROW_UNCHECKED>(&f, s, rule);
      s.block = true;
      run_clean<true, WAIT_ROW_UNCHECKED>(&f, s, rule);
    }
  close_fixture(&f);
}

/* Rules that reach rows further up than the one above. */
static void test_far_rules(void **state) {
  (void)state;
  fixture f = open_fixture();
  for (size_t sh = 0; sh < N_SHAPES; sh++) {
    spec s = make_spec(sh, 1); /* fair */
    s.mode = WAIT_RULE;
    run_clean<false, WAIT_RULE>(&f, s, far_rule{});
    s.block = true;
    run_clean<true, WAIT_RULE>(&f, s, far_rule{});
    s = make_spec(sh, 3); /* backward, reach 2 */
    s.mode = WAIT_RULE;
    run_clean<false, WAIT_RULE>(&f, s, reach2_rule{s.cols});
    s.block = true;
    run_clean<true, WAIT_RULE>(&f, s, reach2_rule{s.cols});
  }
  close_fixture(&f);
}

/* One block (one or two workers for every row), and far more blocks than rows. */
static void test_grids(void **state) {
  (void)state;
  fixture f = open_fixture();
  static const int shapes[] = {4, 7, 8}; /* 31 x 33, 97 x 61, 3001 x 7 */
  for (size_t k = 0; k < N_KINDS; k++)
    for (size_t q = 0; q < (small_only() ? 1 : sizeof shapes / sizeof shapes[0]); q++) {
      spec s = make_spec((size_t)shapes[q], k);
      s.blocks = 1;
      run_kind<false, WAIT_KIND>(&f, s);
      run_kind<true, WAIT_KIND>(&f, s);
      s.blocks = s.rows + 100;
      run_kind<false, WAIT_KIND>(&f, s);
      run_kind<true, WAIT_KIND>(&f, s);
    }
  close_fixture(&f);
}

/* Far more rows than resident warps, every kind, repeated: no deadlock, no race. */
static void test_stress_more_rows_than_workers(void **state) {
  (void)state;
  if (small_only()) skip();
  fixture f = open_fixture();
  for (int rep = 0; rep < 3; rep++)
    for (size_t k = 0; k < N_KINDS; k++) {
      spec s = make_spec(0, k);
      s.rows = 200003;
      s.cols = 2;
      run_kind<false, WAIT_KIND>(&f, s);
      s.rows = 20011;
      s.cols = 41;
      run_kind<false, WAIT_KIND>(&f, s);
      run_kind<true, WAIT_KIND>(&f, s);
    }
  close_fixture(&f);
}

/* The fault tests' array. */
static spec fault_spec(skss_taskarray_kind kind, int mode, bool block) {
  spec s = make_spec(0, 0);
  s.rows = FAULT_ROWS;
  s.cols = FAULT_COLS;
  s.kind = kind;
  s.mode = mode;
  s.block = block;
  return s;
}

/* A faulty rule at one task: the check's status and fault, and no hang. */
static void expect_rule_fault(fixture *f, bool block, skss_taskarray_kind kind, const faulty_rule &rule,
                              skss_status want_status, unsigned want_code, int want_dep_row, int want_dep_col) {
  const spec s = fault_spec(kind, WAIT_RULE, block);
  skss_cuda_taskarray *ta = make_array(f, s.rows, s.cols, s.kind, s.reach);
  device_bufs d = alloc_bufs((size_t)s.rows * (size_t)s.cols);
  d.b.check = 0;
  skss_cuda_taskarray_fault fault;
  const skss_status st = block ? launch<true, WAIT_RULE>(f, ta, s, &d, rule, &fault)
                               : launch<false, WAIT_RULE>(f, ta, s, &d, rule, &fault);
  if (st != want_status || fault.code != want_code)
    TU_FAIL("faulty rule (%s): status %s, fault %u, want %s, fault %u: %s", block ? "block" : "warp",
            skss_status_string(st), fault.code, skss_status_string(want_status), want_code,
            skss_ctx_last_error(f->ctx));
  assert_int_equal(fault.row, rule.at_row);
  assert_int_equal(fault.col, rule.at_col);
  assert_int_equal(fault.dep_row, want_dep_row);
  assert_int_equal(fault.dep_col, want_dep_col);
  assert_non_null(strstr(skss_ctx_last_error(f->ctx), "skss_cuda_taskarray_check()"));
  /* the same array runs clean after a reset: the fault went with it */
  const faulty_rule good = {rule.forward, -1, -1, skss_cuda_task{0, 0}, 0};
  d.b.check = 1;
  TU_OK(f->ctx, (launch<false, WAIT_RULE>(f, ta, s, &d, good, &fault)));
  verify(s, &d, good);
  free_bufs(&d);
  skss_cuda_taskarray_destroy(ta);
}

static void test_faulty_rules_are_reported(void **state) {
  (void)state;
  fixture f = open_fixture();
  const skss_taskarray_kind FAIR = SKSS_TASKARRAY_KIND_FAIR, FWD = SKSS_TASKARRAY_KIND_FORWARD;
  for (int b = 0; b < 2; b++) {
    const bool block = b == 1;
    /* a later row: would wait on a worker that may not be running */
    expect_rule_fault(&f, block, FAIR, faulty_rule{0, 40, 30, skss_cuda_task{41, 30}, 0}, SKSS_ERR_INVALID_ARG,
                      SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER, 41, 30);
    /* itself: would wait forever on its own publish */
    expect_rule_fault(&f, block, FAIR, faulty_rule{0, 40, 30, skss_cuda_task{40, 30}, 0}, SKSS_ERR_INVALID_ARG,
                      SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER, 40, 30);
    /* a column past the array: progress never gets there */
    expect_rule_fault(&f, block, FAIR, faulty_rule{0, 40, 30, skss_cuda_task{39, FAULT_COLS}, 0},
                      SKSS_ERR_INVALID_ARG, SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE, 39, FAULT_COLS);
    expect_rule_fault(&f, block, FAIR, faulty_rule{0, 40, 30, skss_cuda_task{-1, 3}, 0}, SKSS_ERR_INVALID_ARG,
                      SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE, -1, 3);
    /* a forward array's task may not wait on the same column of an earlier row */
    expect_rule_fault(&f, block, FWD, faulty_rule{1, 40, 30, skss_cuda_task{39, 30}, 0}, SKSS_ERR_INVALID_ARG,
                      SKSS_CUDA_TASKARRAY_FAULT_KIND, 39, 30);
    /* too many predecessors */
    expect_rule_fault(&f, block, FAIR, faulty_rule{0, 40, 30, skss_cuda_task{0, 0}, SKSS_CUDA_TASKARRAY_MAX_DEPS + 1},
                      SKSS_ERR_CALLBACK, SKSS_CUDA_TASKARRAY_FAULT_DEP_COUNT, -1, SKSS_CUDA_TASKARRAY_MAX_DEPS + 1);
  }
  close_fixture(&f);
}

/* Raw waits on a later row, the own row and past the columns; an unfinished row. */
static void test_faulty_row_waits_and_unfinished_rows(void **state) {
  (void)state;
  fixture f = open_fixture();
  const kind_rule rule{SKSS_TASKARRAY_KIND_FAIR, 1, FAULT_COLS};
  static const int cases[][4] = {/* dep row, done, code, status */
                                 {41, 1, SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER, SKSS_ERR_INVALID_ARG},
                                 {40, 1, SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER, SKSS_ERR_INVALID_ARG},
                                 {39, FAULT_COLS + 1, SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE, SKSS_ERR_INVALID_ARG},
                                 {-1, 1, SKSS_CUDA_TASKARRAY_FAULT_OUT_OF_RANGE, SKSS_ERR_INVALID_ARG}};
  for (int b = 0; b < 2; b++)
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
      const spec s = fault_spec(SKSS_TASKARRAY_KIND_FAIR, WAIT_ROW, b == 1);
      skss_cuda_taskarray *ta = make_array(&f, s.rows, s.cols, s.kind, s.reach);
      device_bufs d = alloc_bufs((size_t)s.rows * (size_t)s.cols);
      d.b.check = 0;
      d.b.raw_row = 40;
      d.b.raw_col = 20;
      d.b.raw_dep_row = cases[c][0];
      d.b.raw_done = cases[c][1];
      skss_cuda_taskarray_fault fault;
      const skss_status st = s.block ? launch<true, WAIT_ROW>(&f, ta, s, &d, rule, &fault)
                                     : launch<false, WAIT_ROW>(&f, ta, s, &d, rule, &fault);
      assert_int_equal(st, cases[c][3]);
      assert_int_equal(fault.code, (unsigned)cases[c][2]);
      assert_int_equal(fault.row, 40);
      assert_int_equal(fault.col, -1);
      assert_int_equal(fault.dep_row, cases[c][0]);
      assert_int_equal(fault.dep_col, cases[c][1] - 1);
      free_bufs(&d);
      skss_cuda_taskarray_destroy(ta);
    }
  /* the last row (nobody waits on it) leaves its last column unpublished */
  for (int b = 0; b < 2; b++) {
    const spec s = fault_spec(SKSS_TASKARRAY_KIND_FAIR, WAIT_KIND, b == 1);
    skss_cuda_taskarray *ta = make_array(&f, s.rows, s.cols, s.kind, s.reach);
    device_bufs d = alloc_bufs((size_t)s.rows * (size_t)s.cols);
    d.b.skip_row = s.rows - 1;
    skss_cuda_taskarray_fault fault;
    const skss_status st = s.block ? launch<true, WAIT_KIND>(&f, ta, s, &d, rule, &fault)
                                   : launch<false, WAIT_KIND>(&f, ta, s, &d, rule, &fault);
    assert_int_equal(st, SKSS_ERR_CALLBACK);
    assert_int_equal(fault.code, SKSS_CUDA_TASKARRAY_FAULT_UNFINISHED);
    assert_int_equal(fault.row, s.rows - 1);
    assert_int_equal(fault.dep_col, s.cols - 1);
    verify(s, &d, rule); /* every task still ran once */
    free_bufs(&d);
    skss_cuda_taskarray_destroy(ta);
  }
  close_fixture(&f);
}

/* Empty arrays run and check clean; bad descriptors and contexts fail cleanly. */
static void test_empty_and_misuse(void **state) {
  (void)state;
  fixture f = open_fixture();
  const int empties[][2] = {{0, 0}, {0, 5}, {5, 0}};
  for (int e = 0; e < 3; e++) {
    spec s = make_spec(0, 1);
    s.rows = empties[e][0];
    s.cols = empties[e][1];
    run_kind<false, WAIT_KIND>(&f, s);
    run_kind<true, WAIT_KIND>(&f, s);
  }
  skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
  skss_cuda_taskarray *ta = (skss_cuda_taskarray *)&d; /* must be set to NULL on failure */
  d.rows = -1;
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, &d, &ta), SKSS_ERR_INVALID_ARG);
  assert_null(ta);
  assert_non_null(strstr(skss_ctx_last_error(f.ctx), "skss_cuda_taskarray_create()"));
  d.rows = SKSS_CUDA_TASKARRAY_MAX_SIZE + 1;
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, &d, &ta), SKSS_ERR_INVALID_ARG);
  d.rows = 4;
  d.cols = 4;
  d.kind = (skss_taskarray_kind)7;
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, &d, &ta), SKSS_ERR_INVALID_ARG);
  d.kind = SKSS_TASKARRAY_KIND_BACKWARD;
  d.reach = 0;
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, &d, &ta), SKSS_ERR_INVALID_ARG);
  d.reach = 1;
  d.size = 4;
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, &d, &ta), SKSS_ERR_INVALID_ARG);
  d.size = sizeof d;
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, NULL, &ta), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_cuda_taskarray_create(f.ctx, &d, NULL), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_cuda_taskarray_create(NULL, &d, &ta), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_cuda_taskarray_reset(NULL, f.stream), SKSS_ERR_INVALID_ARG);
  assert_int_equal(skss_cuda_taskarray_check(NULL, f.stream, NULL), SKSS_ERR_INVALID_ARG);
  skss_cuda_taskarray_view v;
  assert_int_equal(skss_cuda_taskarray_get_view(NULL, &v), SKSS_ERR_INVALID_ARG);
  skss_cuda_taskarray_destroy(NULL);
  /* a CPU context has no device to put the counters on */
  skss_ctx *cpu = tu_ctx(SKSS_BACKEND_CPU, 1);
  assert_int_equal(skss_cuda_taskarray_create(cpu, &d, &ta), SKSS_ERR_UNSUPPORTED);
  assert_null(ta);
  skss_ctx_destroy(cpu);
  /* a huge reach means "every later column": the view holds it at cols */
  d.reach = 1000;
  TU_OK(f.ctx, skss_cuda_taskarray_create(f.ctx, &d, &ta));
  TU_OK(f.ctx, skss_cuda_taskarray_get_view(ta, &v));
  assert_int_equal(v.rows, 4);
  assert_int_equal(v.cols, 4);
  assert_int_equal(v.reach, 4);
  assert_int_equal(v.kind, SKSS_TASKARRAY_KIND_BACKWARD);
  /* checked before any run: nothing published, so every row is unfinished */
  skss_cuda_taskarray_fault fault;
  assert_int_equal(skss_cuda_taskarray_check(ta, f.stream, &fault), SKSS_ERR_CALLBACK);
  assert_int_equal(fault.code, SKSS_CUDA_TASKARRAY_FAULT_UNFINISHED);
  assert_int_equal(fault.row, 0);
  skss_cuda_taskarray_destroy(ta);
  close_fixture(&f);
}

int main(void) {
  if (!skss_backend_built(SKSS_BACKEND_CUDA) || skss_device_count() == 0) {
    printf("no CUDA backend or no GPU: skipped\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_kind_warp_workers),
      cmocka_unit_test(test_every_kind_block_workers),
      cmocka_unit_test(test_rule_and_row_waits_of_every_kind),
      cmocka_unit_test(test_far_rules),
      cmocka_unit_test(test_grids),
      cmocka_unit_test(test_stress_more_rows_than_workers),
      cmocka_unit_test(test_faulty_rules_are_reported),
      cmocka_unit_test(test_faulty_row_waits_and_unfinished_rows),
      cmocka_unit_test(test_empty_and_misuse),
  };
  /* SKSS_TEST_ONLY=PATTERN: the tests whose names match */
  const char *only = getenv("SKSS_TEST_ONLY");
  if (only != NULL && only[0] != '\0') cmocka_set_test_filter(only);
  return cmocka_run_group_tests(tests, NULL, NULL);
}
