/*
 * bench_cuda.cu — the device side of `skss bench` (CUDA builds only): the
 * stream every CUDA context of a GPU run is created on, device buffers,
 * timing with CUDA events, the device copy bandwidth, the check of a device
 * table against the device copy of the cpu-ref result, and the in-process
 * GPU peers of the SAT: CUB (each row scanned by
 * cub::DeviceScan::InclusiveScanByKey keyed by the row index, then a column
 * pass) and NPP's nppiIntegral_8u32s / _8u32f and nppiSqrIntegral_8u32s64f
 * (when CMake found NPP: SKSS_BENCH_NPP, _SQR); the one-call timing and the
 * copy of a case's bytes of suite sat-matrix.
 *
 * Timing: the host enqueues a batch of runs, each between two events,
 * behind a one-thread kernel that keeps the device waiting (1 ms, or 1.5
 * times what the host took to enqueue the previous batch, scaled to this
 * one's size, up to 50 ms); by the time it ends the batch is queued, so each
 * run's events measure what the device spends on it (the gaps between an
 * algorithm's own kernels included), not the host's launch latency. An
 * algorithm whose launches take the host longer than the cap (4R1W: one
 * launch per anti-diagonal) is timed with its launch overhead, which is its
 * real cost. Batches grow 1, 2, 4, ... 32 runs, so a slow row stops after a
 * few runs and a fast one gets hundreds.
 */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/device/device_scan.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#ifdef SKSS_BENCH_NPP
#include <nppi_statistics_functions.h>
#endif

#include "bench.h"
#include "cuda/sat/sat_hooks.h"

#define GPU_BATCH 32
#define GPU_HEAD_START_MIN_S 1e-3
#define GPU_HEAD_START_MAX_S 50e-3

struct bench_gpu {
  int device, sms;
  cudaStream_t stream;
  cudaEvent_t start[GPU_BATCH], stop[GPU_BATCH];
  unsigned long long *first_bad; /* the check's first differing index */
};

namespace {

int cuda_failed(cudaError_t e, const char *what, char err[BENCH_ERRLEN]) {
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError(); /* clear a non-sticky error for the next row */
  snprintf(err, BENCH_ERRLEN, "%s: %s", what, cudaGetErrorString(e));
  return 1;
}

}  // namespace

/* Evaluates a CUDA call; on failure fills err and returns -1. */
#define GPU_TRY(call)                                 \
  do {                                                \
    if (cuda_failed((call), #call, err)) return -1;   \
  } while (0)

namespace {

int open_on(bench_gpu *g, char err[BENCH_ERRLEN]) {
  GPU_TRY(cudaSetDevice(g->device));
  GPU_TRY(cudaDeviceGetAttribute(&g->sms, cudaDevAttrMultiProcessorCount, g->device));
  GPU_TRY(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
  for (int k = 0; k < GPU_BATCH; k++) {
    GPU_TRY(cudaEventCreate(&g->start[k]));
    GPU_TRY(cudaEventCreate(&g->stop[k]));
  }
  GPU_TRY(cudaMalloc(&g->first_bad, sizeof *g->first_bad));
  return 0;
}

/* "580.159.04": the first dotted number of the kernel module's banner
 * ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04 ..."). */
void driver_version(char *out, size_t len) {
  char line[256];
  snprintf(out, len, "unknown");
  FILE *f = fopen("/proc/driver/nvidia/version", "r");
  if (f == NULL) return;
  char *save = NULL;
  for (char *tok = fgets(line, sizeof line, f) ? strtok_r(line, " \t\n", &save) : NULL; tok != NULL;
       tok = strtok_r(NULL, " \t\n", &save)) {
    if (tok[0] >= '0' && tok[0] <= '9' && strchr(tok, '.') != NULL) {
      snprintf(out, len, "%s", tok);
      break;
    }
  }
  fclose(f);
}

__device__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

/* Holds the stream for `ns` so the host can queue a batch behind it. */
__global__ void head_start(unsigned long long ns) {
  const unsigned long long t0 = global_ns();
  while (global_ns() - t0 < ns) __nanosleep(1000);
}

/* One batch of n runs behind a head start of `head_s`; samples in seconds,
 * *enqueue_s the host's time to queue the batch. */
int time_batch(bench_gpu *g, bench_body body, void *arg, int n, double head_s, double *samples,
               double *enqueue_s, char err[BENCH_ERRLEN]) {
  const double t0 = bench_now();
  head_start<<<1, 1, 0, g->stream>>>(static_cast<unsigned long long>(head_s * 1e9));
  GPU_TRY(cudaGetLastError());
  int rc = 0;
  for (int k = 0; k < n && rc == 0; k++) {
    GPU_TRY(cudaEventRecord(g->start[k], g->stream));
    rc = body(arg);
    GPU_TRY(cudaEventRecord(g->stop[k], g->stream));
  }
  *enqueue_s = bench_now() - t0;
  GPU_TRY(cudaStreamSynchronize(g->stream));
  if (rc != 0) return rc;
  for (int k = 0; k < n; k++) {
    float ms = 0;
    GPU_TRY(cudaEventElapsedTime(&ms, g->start[k], g->stop[k]));
    samples[k] = ms * 1e-3;
  }
  return 0;
}

/* ---- the check ------------------------------------------------------------- */

__host__ __device__ double element_bound(int64_t i, int64_t j, double want, bench_tolerance tol,
                                         double unit) {
  const double di = static_cast<double>(i), dj = static_cast<double>(j);
  const double tiles = static_cast<double>(i / 32 + 1) * static_cast<double>(j / 32 + 1);
  return unit * fabs(want) * (tol.lin * (di + dj + 2) + tol.prod * (di + 1) * (dj + 1) + tol.tile * tiles);
}

/* Grid-stride comparison; the smallest differing index wins (atomicMin). With
 * unit 0 (integers) only equal values pass; NaN never does. */
template <typename T>
__global__ void check_table(const T *out, const T *ref, int64_t rows, int64_t cols, bench_tolerance tol,
                            double unit, unsigned long long *first_bad) {
  const int64_t n = rows * cols, step = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t k = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step) {
    const double got = static_cast<double>(out[k]), want = static_cast<double>(ref[k]);
    if (!(fabs(got - want) <= element_bound(k / cols, k % cols, want, tol, unit)))
      atomicMin(first_bad, static_cast<unsigned long long>(k));
  }
}

template <typename T>
int check_typed(bench_gpu *g, const void *out, const void *ref, int64_t rows, int64_t cols,
                bench_tolerance tol, double unit, char err[BENCH_ERRLEN]) {
  const int64_t n = rows * cols;
  GPU_TRY(cudaMemsetAsync(g->first_bad, 0xFF, sizeof *g->first_bad, g->stream));
  if (n > 0) {
    const int64_t blocks = (n + 255) / 256 < 16 * g->sms ? (n + 255) / 256 : 16 * g->sms;
    check_table<T><<<static_cast<unsigned>(blocks), 256, 0, g->stream>>>(
        static_cast<const T *>(out), static_cast<const T *>(ref), rows, cols, tol, unit, g->first_bad);
    GPU_TRY(cudaGetLastError());
  }
  unsigned long long bad = 0;
  GPU_TRY(cudaMemcpyAsync(&bad, g->first_bad, sizeof bad, cudaMemcpyDeviceToHost, g->stream));
  GPU_TRY(cudaStreamSynchronize(g->stream));
  if (bad == ULLONG_MAX) return 0;
  T got, want;
  GPU_TRY(cudaMemcpy(&got, static_cast<const T *>(out) + bad, sizeof got, cudaMemcpyDeviceToHost));
  GPU_TRY(cudaMemcpy(&want, static_cast<const T *>(ref) + bad, sizeof want, cudaMemcpyDeviceToHost));
  const int64_t i = static_cast<int64_t>(bad) / cols, j = static_cast<int64_t>(bad) % cols;
  snprintf(err, BENCH_ERRLEN, "out[%lld][%lld] = %.17g, reference %.17g (bound %.3g)",
           static_cast<long long>(i), static_cast<long long>(j), static_cast<double>(got),
           static_cast<double>(want), element_bound(i, j, static_cast<double>(want), tol, unit));
  return -1;
}

/* ---- the CUB peer ------------------------------------------------------------ */

template <typename In, typename Acc>
struct widen {
  __host__ __device__ Acc operator()(In x) const { return static_cast<Acc>(x); }
};

struct row_of {
  int64_t width;
  __host__ __device__ int64_t operator()(int64_t k) const { return k / width; }
};

constexpr int COL_ROWS = 16;   /* rows per thread of the column pass */
constexpr int COL_GROUPS = 16; /* threads per column: chunks of 256 rows */

/* The CUB peer's column pass over row prefix sums, in place: blocks of 32
 * columns x COL_GROUPS threads walk down in chunks of COL_ROWS * COL_GROUPS
 * rows; each thread scans its COL_ROWS rows in registers (16 loads in
 * flight), the block adds the partial sums of the threads above through
 * shared memory, and a running carry crosses the chunks. */
template <typename Acc>
__global__ void column_pass(Acc *t, int64_t h, int64_t w) {
  __shared__ Acc part[COL_GROUPS][33];
  const int64_t col = static_cast<int64_t>(blockIdx.x) * 32 + threadIdx.x;
  const bool live = col < w;
  Acc carry = Acc(0);
  for (int64_t r0 = 0; r0 < h; r0 += COL_ROWS * COL_GROUPS) {
    const int64_t row = r0 + static_cast<int64_t>(threadIdx.y) * COL_ROWS;
    Acc v[COL_ROWS];
    Acc s = Acc(0);
#pragma unroll
    for (int k = 0; k < COL_ROWS; k++) {
      s += live && row + k < h ? t[(row + k) * w + col] : Acc(0);
      v[k] = s;
    }
    part[threadIdx.y][threadIdx.x] = s;
    __syncthreads(); /* every thread's partial sum is in `part` */
    Acc before = carry, total = carry;
    for (int y = 0; y < COL_GROUPS; y++) {
      const Acc p = part[y][threadIdx.x];
      if (y < static_cast<int>(threadIdx.y)) before += p;
      total += p;
    }
#pragma unroll
    for (int k = 0; k < COL_ROWS; k++)
      if (live && row + k < h) t[(row + k) * w + col] = v[k] + before;
    __syncthreads(); /* `part` is read by all before the next chunk rewrites it */
    carry = total;
  }
}

/* One CUB SAT; with temp == NULL only sizes the temporary storage. */
template <typename In, typename Acc>
cudaError_t cub_sat(void *temp, size_t *temp_bytes, const void *in, void *out, int64_t h, int64_t w,
                    cudaStream_t stream) {
  auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<int64_t>(0), row_of{w});
  auto values = thrust::make_transform_iterator(static_cast<const In *>(in), widen<In, Acc>{});
  cudaError_t e = cub::DeviceScan::InclusiveScanByKey(temp, *temp_bytes, keys, values,
                                                      static_cast<Acc *>(out), ::cuda::std::plus<Acc>{},
                                                      h * w, ::cuda::std::equal_to<int64_t>{}, stream);
  if (e != cudaSuccess || temp == NULL) return e;
  column_pass<Acc><<<static_cast<unsigned>((w + 31) / 32), dim3(32, COL_GROUPS), 0, stream>>>(
      static_cast<Acc *>(out), h, w);
  return cudaGetLastError();
}

typedef cudaError_t (*cub_fn)(void *, size_t *, const void *, void *, int64_t, int64_t, cudaStream_t);

/* The CUB instantiation of a case's type pair (i32 outputs accumulate as
 * u32: the same bits, no signed overflow); NULL when there is none. */
cub_fn cub_for(skss_dtype in, skss_dtype out) {
  if (in == SKSS_DTYPE_U8 && (out == SKSS_DTYPE_U32 || out == SKSS_DTYPE_I32))
    return cub_sat<uint8_t, uint32_t>;
  if (in == SKSS_DTYPE_F32 && out == SKSS_DTYPE_F32) return cub_sat<float, float>;
  if (in == SKSS_DTYPE_F64 && out == SKSS_DTYPE_F64) return cub_sat<double, double>;
  return NULL;
}

/* ---- the NPP peers ------------------------------------------------------------ */

#ifdef SKSS_BENCH_NPP
NppStreamContext npp_stream(const bench_gpu *g) {
  NppStreamContext c;
  memset(&c, 0, sizeof c); /* the workspace handle 0: no workspace */
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, g->device) == cudaSuccess) {
    c.nMultiProcessorCount = p.multiProcessorCount;
    c.nMaxThreadsPerMultiProcessor = p.maxThreadsPerMultiProcessor;
    c.nMaxThreadsPerBlock = p.maxThreadsPerBlock;
    c.nSharedMemPerBlock = p.sharedMemPerBlock;
    c.nCudaDevAttrComputeCapabilityMajor = p.major;
    c.nCudaDevAttrComputeCapabilityMinor = p.minor;
  }
  c.hStream = g->stream;
  c.nCudaDeviceId = g->device;
  cudaStreamGetFlags(g->stream, &c.nStreamFlags);
  return c;
}
#endif

/* ---- peers: one call, check, warm-up, timing ---------------------------------- */

typedef struct peer_call {
  bench_gpu *g;
  bench_gpu_peer peer;
  const bench_gpu_sat *sat;
  cub_fn cub;
  void *out, *temp;
  size_t temp_bytes;
#ifdef SKSS_BENCH_NPP
  NppStreamContext npp;
#endif
  void *sqr; /* NPP_SQR: the squared table (f64) */
  char *err;
} peer_call;

const char *const PEER_NAMES[BENCH_GPU_PEER_COUNT] = {"cub scanbykey+column", "npp integral_8u32s",
                                                       "npp integral_8u32f", "npp sqrintegral_8u32s64f"};

int peer_launch(peer_call *c) {
  const bench_gpu_sat *s = c->sat;
  if (c->peer == BENCH_GPU_PEER_CUB)
    return cuda_failed(c->cub(c->temp, &c->temp_bytes, s->in_dev, c->out, s->height, s->width, c->g->stream),
                       "cub::DeviceScan::InclusiveScanByKey", c->err);
#ifdef SKSS_BENCH_NPP
  const NppiSize roi = {static_cast<int>(s->width), static_cast<int>(s->height)};
  const int src_step = static_cast<int>(s->width), dst_step = static_cast<int>((s->width + 1) * 4);
  const Npp8u *src = static_cast<const Npp8u *>(s->in_dev);
  Npp32s *out_32s = static_cast<Npp32s *>(c->out);
  Npp32f *out_32f = static_cast<Npp32f *>(c->out);
  NppStatus st;
  if (c->peer == BENCH_GPU_PEER_NPP_SQR) {
#ifdef SKSS_BENCH_NPP_SQR
    const int sqr_step = static_cast<int>((s->width + 1) * 8);
    st = nppiSqrIntegral_8u32s64f_C1R_Ctx(src, src_step, out_32s, dst_step, static_cast<Npp64f *>(c->sqr),
                                          sqr_step, roi, 0, 0.0, c->npp);
#else
    st = NPP_NOT_IMPLEMENTED_ERROR;
#endif
  } else {
    st = c->peer == BENCH_GPU_PEER_NPP_32S
             ? nppiIntegral_8u32s_C1R_Ctx(src, src_step, out_32s, dst_step, roi, 0, c->npp)
             : nppiIntegral_8u32f_C1R_Ctx(src, src_step, out_32f, dst_step, roi, 0, c->npp);
  }
  if (st >= 0) return 0;
  snprintf(c->err, BENCH_ERRLEN, "%s: NppStatus %d", PEER_NAMES[c->peer], static_cast<int>(st));
#endif
  return 1;
}

int peer_body(void *arg) { return peer_launch(static_cast<peer_call *>(arg)); }

/* Whether the peer applies, its table's type and size, its buffers. */
int peer_prepare(peer_call *c, bench_gpu_peer_result *res, char err[BENCH_ERRLEN]) {
  const bench_gpu_sat *s = c->sat;
  const size_t px = static_cast<size_t>(s->height) * static_cast<size_t>(s->width);
  size_t out_bytes;
  if (c->peer == BENCH_GPU_PEER_CUB) {
    c->cub = cub_for(s->in, s->out);
    if (c->cub == NULL) {
      snprintf(err, BENCH_ERRLEN, "no CUB instantiation for %s -> %s", skss_dtype_name(s->in),
               skss_dtype_name(s->out));
      return 1;
    }
    res->out = s->out;
    out_bytes = px * skss_dtype_size(s->out);
    GPU_TRY(c->cub(NULL, &c->temp_bytes, s->in_dev, NULL, s->height, s->width, c->g->stream));
    GPU_TRY(cudaMalloc(&c->temp, c->temp_bytes ? c->temp_bytes : 1));
  } else {
#ifndef SKSS_BENCH_NPP
    snprintf(err, BENCH_ERRLEN, "NPP was not found when this bench was built");
    return 1;
#else
    if (s->in != SKSS_DTYPE_U8 || s->width >= INT_MAX / 8 || s->height >= INT_MAX) {
      snprintf(err, BENCH_ERRLEN, "NPP's integral takes u8 images with int sizes");
      return 1;
    }
#ifndef SKSS_BENCH_NPP_SQR
    if (c->peer == BENCH_GPU_PEER_NPP_SQR) {
      snprintf(err, BENCH_ERRLEN, "this NPP has no nppiSqrIntegral_8u32s64f_C1R_Ctx");
      return 1;
    }
#endif
    c->npp = npp_stream(c->g);
    res->out = c->peer == BENCH_GPU_PEER_NPP_32F ? SKSS_DTYPE_F32 : SKSS_DTYPE_I32;
    out_bytes = static_cast<size_t>(s->height + 1) * static_cast<size_t>(s->width + 1) * 4;
    if (c->peer == BENCH_GPU_PEER_NPP_SQR) {
      /* its squared table: the same size in f64, counted in the bytes too */
      const size_t sqr_bytes = static_cast<size_t>(s->height + 1) * static_cast<size_t>(s->width + 1) * 8;
      GPU_TRY(cudaMalloc(&c->sqr, sqr_bytes));
      res->bytes = static_cast<double>(sqr_bytes);
    }
#endif
  }
  res->bytes += static_cast<double>(px * skss_dtype_size(s->in) + out_bytes);
  GPU_TRY(cudaMalloc(&c->out, out_bytes));
  return 0;
}

/* The last element of a device table of `type`, as a number. */
int read_last(const void *table, size_t elements, skss_dtype type, double *out, char err[BENCH_ERRLEN]) {
  union {
    uint32_t u32;
    int32_t i32;
    float f32;
    double f64;
  } v;
  const size_t elem = skss_dtype_size(type);
  GPU_TRY(cudaMemcpy(&v, static_cast<const char *>(table) + (elements - 1) * elem, elem,
                     cudaMemcpyDeviceToHost));
  *out = type == SKSS_DTYPE_U32   ? static_cast<double>(v.u32)
         : type == SKSS_DTYPE_I32 ? static_cast<double>(v.i32)
         : type == SKSS_DTYPE_F32 ? static_cast<double>(v.f32)
                                  : v.f64;
  return 0;
}

int peer_time(peer_call *c, const bench_plan *plan, bench_gpu_peer_result *res, char err[BENCH_ERRLEN]) {
  const bench_gpu_sat *s = c->sat;
  const int64_t pad = c->peer == BENCH_GPU_PEER_CUB ? 0 : 1;
  if (peer_launch(c) != 0) return -1;
  GPU_TRY(cudaStreamSynchronize(c->g->stream));
  const size_t elements = static_cast<size_t>(s->height + pad) * static_cast<size_t>(s->width + pad);
  if (read_last(c->out, elements, res->out, &res->total, err) != 0) return -1;
  if (peer_launch(c) != 0) return -1; /* warm-up */
  int rc = bench_gpu_measure(c->g, peer_body, c, plan, &res->t, err);
  return rc == 0 ? 0 : -1;
}

}  // namespace

/* ---- the C interface ----------------------------------------------------------- */

extern "C" int bench_gpu_open(bench_gpu **out, char err[BENCH_ERRLEN]) {
  *out = NULL;
  bench_gpu *g = static_cast<bench_gpu *>(calloc(1, sizeof(bench_gpu)));
  if (g == NULL) {
    snprintf(err, BENCH_ERRLEN, "out of memory");
    return -1;
  }
  if (open_on(g, err) != 0) {
    bench_gpu_close(g);
    return -1;
  }
  *out = g;
  return 0;
}

extern "C" void bench_gpu_close(bench_gpu *g) {
  if (g == NULL) return;
  for (int k = 0; k < GPU_BATCH; k++) {
    if (g->start[k] != NULL) cudaEventDestroy(g->start[k]);
    if (g->stop[k] != NULL) cudaEventDestroy(g->stop[k]);
  }
  if (g->first_bad != NULL) cudaFree(g->first_bad);
  if (g->stream != NULL) cudaStreamDestroy(g->stream);
  free(g);
}

extern "C" void *bench_gpu_stream(bench_gpu *g) { return g->stream; }

extern "C" void bench_gpu_describe(bench_gpu *g, bench_report *rep) {
  cudaDeviceProp p;
  int runtime = 0;
  if (cudaGetDeviceProperties(&p, g->device) == cudaSuccess) {
    snprintf(rep->gpu_name, sizeof rep->gpu_name, "%s", p.name);
    rep->gpu_sms = p.multiProcessorCount;
    rep->gpu_memory_gib = static_cast<double>(p.totalGlobalMem) / (1u << 30);
  }
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    snprintf(rep->cuda_runtime, sizeof rep->cuda_runtime, "%d.%d", runtime / 1000, runtime % 1000 / 10);
  driver_version(rep->gpu_driver, sizeof rep->gpu_driver);
}

extern "C" double bench_gpu_copy_bandwidth(bench_gpu *g, size_t bytes, int reps) {
  void *src = NULL, *dst = NULL;
  double *samples = static_cast<double *>(malloc(static_cast<size_t>(reps) * sizeof(double)));
  char err[BENCH_ERRLEN];
  int ok = samples != NULL && !cuda_failed(cudaMalloc(&src, bytes), "cudaMalloc", err) &&
           !cuda_failed(cudaMalloc(&dst, bytes), "cudaMalloc", err) &&
           !cuda_failed(cudaMemsetAsync(src, 0x5A, bytes, g->stream), "cudaMemsetAsync", err) &&
           !cuda_failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream), "copy", err);
  for (int r = 0; ok && r < reps; r++) {
    float ms = 0;
    ok = !cuda_failed(cudaEventRecord(g->start[0], g->stream), "cudaEventRecord", err) &&
         !cuda_failed(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream), "copy", err) &&
         !cuda_failed(cudaEventRecord(g->stop[0], g->stream), "cudaEventRecord", err) &&
         !cuda_failed(cudaEventSynchronize(g->stop[0]), "cudaEventSynchronize", err) &&
         !cuda_failed(cudaEventElapsedTime(&ms, g->start[0], g->stop[0]), "cudaEventElapsedTime", err);
    if (ok) samples[r] = ms * 1e-3;
  }
  const double gbs =
      ok && reps > 0 ? 2.0 * static_cast<double>(bytes) / bench_summarize(samples, reps).median_s * 1e-9 : 0;
  cudaStreamSynchronize(g->stream);
  if (src != NULL) cudaFree(src);
  if (dst != NULL) cudaFree(dst);
  free(samples);
  return gbs;
}

/* A buffer for the plan's most runs (*cap of them); NULL and err when out of memory. */
static double *plan_samples(const bench_plan *plan, int *cap, char err[BENCH_ERRLEN]) {
  *cap = plan->fixed_runs > 0 ? plan->fixed_runs : plan->max_runs;
  double *samples = static_cast<double *>(malloc(static_cast<size_t>(*cap) * sizeof(double)));
  if (samples == NULL) snprintf(err, BENCH_ERRLEN, "out of memory");
  return samples;
}

extern "C" int bench_gpu_measure(bench_gpu *g, bench_body body, void *arg, const bench_plan *plan,
                                 bench_stats *out, char err[BENCH_ERRLEN]) {
  int cap;
  double *samples = plan_samples(plan, &cap, err);
  if (samples == NULL) return -1;
  int runs = 0, rc = 0, batch = 1;
  double per_run_s = 0; /* the host's enqueue time per run, last batch */
  const double start = bench_now();
  while (rc == 0 && runs < cap && !bench_plan_done(plan, runs, bench_now() - start)) {
    const int n = batch < cap - runs ? batch : cap - runs;
    double head_s = 1.5 * per_run_s * n, enqueue_s = 0;
    head_s = head_s < GPU_HEAD_START_MIN_S ? GPU_HEAD_START_MIN_S
             : head_s > GPU_HEAD_START_MAX_S ? GPU_HEAD_START_MAX_S
                                             : head_s;
    rc = time_batch(g, body, arg, n, head_s, samples + runs, &enqueue_s, err);
    runs += rc == 0 ? n : 0;
    per_run_s = enqueue_s / n;
    batch = 2 * batch < GPU_BATCH ? 2 * batch : GPU_BATCH;
  }
  if (rc == 0) *out = bench_summarize(samples, runs);
  free(samples);
  return rc;
}

extern "C" int bench_gpu_measure_single(bench_gpu *g, bench_body body, void *arg, const bench_plan *plan,
                                        bench_stats *out, char err[BENCH_ERRLEN]) {
  int cap;
  double *samples = plan_samples(plan, &cap, err);
  if (samples == NULL) return -1;
  int runs = 0, rc = 0;
  const double start = bench_now();
  while (rc == 0 && runs < cap && !bench_plan_done(plan, runs, bench_now() - start)) {
    float ms = 0;
    if (cuda_failed(cudaEventRecord(g->start[0], g->stream), "cudaEventRecord", err)) {
      rc = -1;
      break;
    }
    rc = body(arg);
    if (rc != 0) break;
    /* the next call starts only once this one is done, as a user's would */
    if (cuda_failed(cudaEventRecord(g->stop[0], g->stream), "cudaEventRecord", err) ||
        cuda_failed(cudaEventSynchronize(g->stop[0]), "cudaEventSynchronize", err) ||
        cuda_failed(cudaEventElapsedTime(&ms, g->start[0], g->stop[0]), "cudaEventElapsedTime", err)) {
      rc = -1;
      break;
    }
    samples[runs++] = ms * 1e-3;
  }
  if (rc == 0) *out = bench_summarize(samples, runs);
  free(samples);
  return rc;
}

namespace {
typedef struct copy_call {
  bench_gpu *g;
  void *src, *dst;
  size_t bytes;
  char *err;
} copy_call;

int copy_body(void *arg) {
  copy_call *c = static_cast<copy_call *>(arg);
  return cuda_failed(cudaMemcpyAsync(c->dst, c->src, c->bytes, cudaMemcpyDeviceToDevice, c->g->stream),
                     "cudaMemcpyAsync", c->err);
}
}  // namespace

extern "C" int bench_gpu_copy_time(bench_gpu *g, double bytes, const bench_plan *plan, bench_stats *out,
                                   char err[BENCH_ERRLEN]) {
  copy_call c = {g, NULL, NULL, static_cast<size_t>(bytes / 2), err};
  int rc = -1;
  if (c.bytes == 0) c.bytes = 1;
  if (!cuda_failed(cudaMalloc(&c.src, c.bytes), "cudaMalloc (copy source)", err) &&
      !cuda_failed(cudaMalloc(&c.dst, c.bytes), "cudaMalloc (copy destination)", err) &&
      !cuda_failed(cudaMemsetAsync(c.src, 0x5A, c.bytes, g->stream), "cudaMemsetAsync", err) &&
      copy_body(&c) == 0) { /* warm-up */
    rc = bench_gpu_measure(g, copy_body, &c, plan, out, err) == 0 ? 0 : -1;
  }
  cudaStreamSynchronize(g->stream); /* nothing may still use the buffers */
  if (c.src != NULL) cudaFree(c.src);
  if (c.dst != NULL) cudaFree(c.dst);
  return rc;
}

extern "C" void *bench_gpu_alloc(size_t bytes, char err[BENCH_ERRLEN]) {
  void *p = NULL;
  char what[64];
  snprintf(what, sizeof what, "cudaMalloc(%zu bytes)", bytes);
  return cuda_failed(cudaMalloc(&p, bytes ? bytes : 1), what, err) ? NULL : p;
}

extern "C" void bench_gpu_free(void *ptr) {
  if (ptr != NULL) cudaFree(ptr);
}

extern "C" int bench_gpu_upload(bench_gpu *g, void *dst, const void *src, size_t bytes,
                                char err[BENCH_ERRLEN]) {
  GPU_TRY(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g->stream));
  GPU_TRY(cudaStreamSynchronize(g->stream));
  return 0;
}

extern "C" double bench_gpu_transfer_s(bench_gpu *g, void *dev, void *host, size_t bytes,
                                       int to_device, char err[BENCH_ERRLEN]) {
  enum { REPS = 5 };
  double s[REPS];
  const cudaMemcpyKind kind = to_device ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost;
  for (int k = 0; k <= REPS; k++) { /* k = 0: warm-up */
    const double t0 = bench_now();
    if (cudaMemcpyAsync(to_device ? dev : host, to_device ? host : dev, bytes, kind, g->stream) !=
            cudaSuccess ||
        cudaStreamSynchronize(g->stream) != cudaSuccess) {
      snprintf(err, BENCH_ERRLEN, "cudaMemcpy: %s", cudaGetErrorString(cudaGetLastError()));
      return 0;
    }
    if (k > 0) s[k - 1] = bench_now() - t0;
  }
  for (int a = 0; a < REPS; a++) /* insertion sort of five */
    for (int b = a; b > 0 && s[b] < s[b - 1]; b--) {
      const double x = s[b];
      s[b] = s[b - 1];
      s[b - 1] = x;
    }
  return s[REPS / 2];
}

extern "C" int bench_gpu_fill(bench_gpu *g, void *dst, int byte, size_t bytes, char err[BENCH_ERRLEN]) {
  GPU_TRY(cudaMemsetAsync(dst, byte, bytes, g->stream));
  return 0;
}

extern "C" int bench_gpu_check(bench_gpu *g, skss_dtype type, const void *out, const void *ref, int64_t rows,
                               int64_t cols, const bench_tolerance *tol, char err[BENCH_ERRLEN]) {
  switch (type) {
    case SKSS_DTYPE_U32: return check_typed<uint32_t>(g, out, ref, rows, cols, *tol, 0, err);
    case SKSS_DTYPE_I32: return check_typed<int32_t>(g, out, ref, rows, cols, *tol, 0, err);
    case SKSS_DTYPE_F32: return check_typed<float>(g, out, ref, rows, cols, *tol, 0x1p-24, err);
    case SKSS_DTYPE_F64: return check_typed<double>(g, out, ref, rows, cols, *tol, 0x1p-53, err);
    default: break;
  }
  snprintf(err, BENCH_ERRLEN, "the device check has no %s tables", skss_dtype_name(type));
  return -1;
}

extern "C" int bench_gpu_sat_peer(bench_gpu *g, bench_gpu_peer peer, const bench_gpu_sat *sat,
                                  const bench_plan *plan, bench_gpu_peer_result *res,
                                  char err[BENCH_ERRLEN]) {
  peer_call c;
  memset(&c, 0, sizeof c);
  c.g = g;
  c.peer = peer;
  c.sat = sat;
  c.err = err;
  memset(res, 0, sizeof *res);
  snprintf(res->name, sizeof res->name, "%s", PEER_NAMES[peer]);
  int rc = peer_prepare(&c, res, err);
  if (rc == 0) rc = peer_time(&c, plan, res, err);
  cudaStreamSynchronize(g->stream); /* nothing may still use the buffers */
  if (c.out != NULL) cudaFree(c.out);
  if (c.temp != NULL) cudaFree(c.temp);
  if (c.sqr != NULL) cudaFree(c.sqr);
  return rc;
}

extern "C" skss_status bench_gpu_set_hybrid_r(skss_ctx *ctx, double r) {
  return skss__cuda_sat_set_hybrid_r(ctx, r);
}
