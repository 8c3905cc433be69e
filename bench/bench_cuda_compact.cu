/*
 * bench_cuda_compact.cu — the device side of the compaction cases of a GPU
 * run: the check of a device output against the uploaded cpu-ref result
 * (count, kept bytes, poison past the count), and the in-process peers, on
 * the case's device input, keep x > t:
 *  - cub::DeviceSelect::If (values: every dtype; indices: f32, over a
 *    counting iterator with the predicate reading x[i]);
 *  - cub::DeviceSelect::Flagged with the 0/1 flags made beforehand (not
 *    timed; their n bytes count in its bytes model);
 *  - thrust::copy_if (values of f32, i64, u8; indices of f32 with x as the
 *    stencil): thrust returns the end iterator, so each call waits for the
 *    device, as thrust users do.
 * Each peer's count and kept outputs are compared with cpu-ref's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cub/device/device_select.cuh>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cuda/execution_policy.h>

#include "bench.h"

namespace {

int failed(cudaError_t e, const char *what, char err[BENCH_ERRLEN]) {
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError();
  snprintf(err, BENCH_ERRLEN, "%s: %s", what, cudaGetErrorString(e));
  return 1;
}

#define TRY(call)                                  \
  do {                                             \
    if (failed((call), #call, err)) return -1;     \
  } while (0)

/* The first byte (in 0 .. total) where out differs from ref below `kept`
 * bytes or from the poison 0xA5 past it; atomicMin keeps the smallest. */
__global__ void compare_kernel(const uint8_t *out, const uint8_t *ref, unsigned long long kept,
                               unsigned long long total, unsigned long long *first_bad) {
  const unsigned long long step = static_cast<unsigned long long>(gridDim.x) * blockDim.x;
  for (unsigned long long k = static_cast<unsigned long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < total;
       k += step) {
    const uint8_t want = k < kept ? ref[k] : 0xA5;
    if (out[k] != want) atomicMin(first_bad, k);
  }
}

/* Count first, then the bytes (poison checked up to `total` bytes). */
int compare(cudaStream_t stream, const void *out, const long long *count_dev, const void *ref, int64_t ref_count,
            size_t elem, size_t total, char err[BENCH_ERRLEN]) {
  long long count = -1;
  TRY(cudaStreamSynchronize(stream));
  TRY(cudaMemcpy(&count, count_dev, 8, cudaMemcpyDeviceToHost));
  if (count != ref_count) {
    snprintf(err, BENCH_ERRLEN, "count %lld, reference %lld", count, static_cast<long long>(ref_count));
    return -1;
  }
  unsigned long long *bad = NULL, first = 0;
  TRY(cudaMalloc(&bad, sizeof *bad));
  int rc = 0;
  if (failed(cudaMemsetAsync(bad, 0xFF, sizeof *bad, stream), "cudaMemsetAsync", err)) rc = -1;
  const size_t kept = static_cast<size_t>(count) * elem;
  if (rc == 0 && total > 0) {
    const size_t blocks = (total + 255) / 256 < 4096 ? (total + 255) / 256 : 4096;
    compare_kernel<<<static_cast<unsigned>(blocks), 256, 0, stream>>>(static_cast<const uint8_t *>(out),
                                                                       static_cast<const uint8_t *>(ref), kept,
                                                                       total, bad);
    if (failed(cudaGetLastError(), "compare", err)) rc = -1;
  }
  if (rc == 0 && failed(cudaMemcpyAsync(&first, bad, sizeof first, cudaMemcpyDeviceToHost, stream), "download", err))
    rc = -1;
  if (rc == 0 && failed(cudaStreamSynchronize(stream), "compare", err)) rc = -1;
  cudaFree(bad);
  if (rc == 0 && first != ~0ull) {
    snprintf(err, BENCH_ERRLEN, "%s at byte %llu (output %llu)", first < kept ? "differs" : "written past the count",
             first, first / elem);
    rc = -1;
  }
  return rc;
}

/* keep x > t, in the data's type (f32 against (float)t, as skss does). */
template <typename T>
struct above {
  T t;
  __host__ __device__ bool operator()(const T &x) const { return x > t; }
};

/* keep index i when x[i] > t (the indices peers). */
template <typename T>
struct index_above {
  const T *x;
  T t;
  __host__ __device__ bool operator()(const long long &i) const { return x[i] > t; }
};

template <typename T>
__global__ void flags_kernel(const T *x, long long n, T t, uint8_t *flags) {
  const long long step = static_cast<long long>(gridDim.x) * blockDim.x;
  for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; k < n; k += step)
    flags[k] = x[k] > t;
}

template <typename T>
T threshold(const bench_gpu_compact *c) {
  if (c->dtype == SKSS_DTYPE_F32 || c->dtype == SKSS_DTYPE_F64) return static_cast<T>(c->above.f);
  if (c->dtype == SKSS_DTYPE_I8 || c->dtype == SKSS_DTYPE_I16 || c->dtype == SKSS_DTYPE_I32 ||
      c->dtype == SKSS_DTYPE_I64)
    return static_cast<T>(c->above.i);
  return static_cast<T>(c->above.u);
}

/* One peer on one case: its buffers and the call. */
struct peer_call {
  bench_gpu *g;
  cudaStream_t stream;
  int peer;
  const bench_gpu_compact *c;
  void *out, *temp;
  long long *count;
  uint8_t *flags;
  size_t temp_bytes;
  int (*call)(peer_call *, void *temp);
  char *err;
};

template <typename T>
int cub_if(peer_call *p, void *temp) {
  const T *x = static_cast<const T *>(p->c->in_dev);
  const T t = threshold<T>(p->c);
  cudaError_t e;
  if (p->c->indices) {
    thrust::counting_iterator<long long> it(0);
    e = cub::DeviceSelect::If(temp, p->temp_bytes, it, static_cast<long long *>(p->out), p->count,
                              static_cast<long long>(p->c->n), index_above<T>{x, t}, p->stream);
  } else {
    e = cub::DeviceSelect::If(temp, p->temp_bytes, x, static_cast<T *>(p->out), p->count,
                              static_cast<long long>(p->c->n), above<T>{t}, p->stream);
  }
  return failed(e, "cub::DeviceSelect::If", p->err);
}

template <typename T>
int cub_flagged(peer_call *p, void *temp) {
  cudaError_t e;
  if (p->c->indices) {
    thrust::counting_iterator<long long> it(0);
    e = cub::DeviceSelect::Flagged(temp, p->temp_bytes, it, p->flags, static_cast<long long *>(p->out), p->count,
                                   static_cast<long long>(p->c->n), p->stream);
  } else {
    e = cub::DeviceSelect::Flagged(temp, p->temp_bytes, static_cast<const T *>(p->c->in_dev), p->flags,
                                   static_cast<T *>(p->out), p->count, static_cast<long long>(p->c->n), p->stream);
  }
  return failed(e, "cub::DeviceSelect::Flagged", p->err);
}

/* thrust allocates its own temporary storage and waits for the count. */
template <typename T>
int thrust_copy_if(peer_call *p, void *temp) {
  if (temp == NULL) {
    p->temp_bytes = 0;
    return 0;
  }
  const T *x = static_cast<const T *>(p->c->in_dev);
  const T t = threshold<T>(p->c);
  long long kept;
  if (p->c->indices) {
    thrust::counting_iterator<long long> it(0);
    long long *out = static_cast<long long *>(p->out);
    kept = thrust::copy_if(thrust::cuda::par.on(p->stream), it, it + p->c->n, x, out, above<T>{t}) - out;
  } else {
    T *out = static_cast<T *>(p->out);
    kept = thrust::copy_if(thrust::cuda::par.on(p->stream), x, x + p->c->n, out, above<T>{t}) - out;
  }
  return failed(cudaMemcpyAsync(p->count, &kept, 8, cudaMemcpyHostToDevice, p->stream), "thrust::copy_if", p->err) ||
         failed(cudaStreamSynchronize(p->stream), "thrust::copy_if", p->err);
}

const char *const NAMES[BENCH_GPU_COMPACT_PEERS] = {"cub DeviceSelect::If", "cub DeviceSelect::Flagged",
                                                    "thrust::copy_if"};

/* The instantiation of a peer for the case, or NULL (err says why). */
template <typename T>
int (*pick_typed(int peer))(peer_call *, void *) {
  return peer == BENCH_GPU_COMPACT_CUB_IF ? cub_if<T> : peer == BENCH_GPU_COMPACT_CUB_FLAGGED ? cub_flagged<T>
                                                                                               : thrust_copy_if<T>;
}

int (*pick(int peer, const bench_gpu_compact *c))(peer_call *, void *) {
  if (c->indices) return c->dtype == SKSS_DTYPE_F32 ? pick_typed<float>(peer) : NULL;
  if (peer == BENCH_GPU_COMPACT_CUB_FLAGGED) { /* values copied by width: one instantiation a width */
    switch (skss_dtype_size(c->dtype)) {
      case 1: return cub_flagged<uint8_t>;
      case 2: return cub_flagged<uint16_t>;
      case 4: return cub_flagged<uint32_t>;
      default: return cub_flagged<uint64_t>;
    }
  }
  if (peer == BENCH_GPU_COMPACT_THRUST) {
    switch (c->dtype) {
      case SKSS_DTYPE_F32: return thrust_copy_if<float>;
      case SKSS_DTYPE_I64: return thrust_copy_if<long long>;
      case SKSS_DTYPE_U8: return thrust_copy_if<uint8_t>;
      default: return NULL;
    }
  }
  switch (c->dtype) {
    case SKSS_DTYPE_U8: return cub_if<uint8_t>;
    case SKSS_DTYPE_I8: return cub_if<int8_t>;
    case SKSS_DTYPE_U16: return cub_if<uint16_t>;
    case SKSS_DTYPE_I16: return cub_if<int16_t>;
    case SKSS_DTYPE_U32: return cub_if<uint32_t>;
    case SKSS_DTYPE_I32: return cub_if<int32_t>;
    case SKSS_DTYPE_U64: return cub_if<uint64_t>;
    case SKSS_DTYPE_I64: return cub_if<long long>;
    case SKSS_DTYPE_F32: return cub_if<float>;
    case SKSS_DTYPE_F64: return cub_if<double>;
  }
  return NULL;
}

/* The flags Flagged reads: x > t, made once before timing. */
int make_flags(peer_call *p, char err[BENCH_ERRLEN]) {
  const bench_gpu_compact *c = p->c;
  TRY(cudaMalloc(&p->flags, static_cast<size_t>(c->n) + 1));
  const unsigned blocks = 1024;
#define FLAGS(DT, T)                                                                                          \
  case DT:                                                                                                    \
    flags_kernel<T><<<blocks, 256, 0, p->stream>>>(static_cast<const T *>(c->in_dev), c->n, threshold<T>(c), \
                                                   p->flags);                                                 \
    break;
  switch (c->dtype) {
    FLAGS(SKSS_DTYPE_U8, uint8_t)
    FLAGS(SKSS_DTYPE_I8, int8_t)
    FLAGS(SKSS_DTYPE_U16, uint16_t)
    FLAGS(SKSS_DTYPE_I16, int16_t)
    FLAGS(SKSS_DTYPE_U32, uint32_t)
    FLAGS(SKSS_DTYPE_I32, int32_t)
    FLAGS(SKSS_DTYPE_U64, uint64_t)
    FLAGS(SKSS_DTYPE_I64, long long)
    FLAGS(SKSS_DTYPE_F32, float)
    FLAGS(SKSS_DTYPE_F64, double)
  }
#undef FLAGS
  TRY(cudaGetLastError());
  TRY(cudaStreamSynchronize(p->stream));
  return 0;
}

int body(void *arg) {
  peer_call *p = static_cast<peer_call *>(arg);
  return p->call(p, p->temp != NULL ? p->temp : p->out);
}

}  // namespace

extern "C" int bench_gpu_compact_check(bench_gpu *gpu, const void *out, const int64_t *count_dev, const void *ref,
                                       int64_t ref_count, size_t elem, int64_t n, char err[BENCH_ERRLEN]) {
  return compare(static_cast<cudaStream_t>(bench_gpu_stream(gpu)), out, reinterpret_cast<const long long *>(count_dev),
                 ref, ref_count, elem, static_cast<size_t>(n) * elem, err);
}

extern "C" int bench_gpu_compact_peer(bench_gpu *gpu, int peer, const bench_gpu_compact *c, const bench_plan *plan,
                                      bench_gpu_peer_result *res, char err[BENCH_ERRLEN]) {
  memset(res, 0, sizeof *res);
  snprintf(res->name, sizeof res->name, "%s", NAMES[peer]);
  peer_call p;
  memset(&p, 0, sizeof p);
  p.g = gpu;
  p.stream = static_cast<cudaStream_t>(bench_gpu_stream(gpu));
  p.peer = peer;
  p.c = c;
  p.err = err;
  p.call = pick(peer, c);
  if (p.call == NULL) {
    snprintf(err, BENCH_ERRLEN, "no %s instantiation for %s %s", NAMES[peer], skss_dtype_name(c->dtype),
             c->indices ? "indices" : "values");
    return 1;
  }
  const size_t elem = c->indices ? 8 : skss_dtype_size(c->dtype);
  int rc = 0;
  if (peer == BENCH_GPU_COMPACT_CUB_FLAGGED) rc = make_flags(&p, err);
  if (rc == 0 && (failed(cudaMalloc(&p.out, static_cast<size_t>(c->n) * elem + 1), "cudaMalloc", err) ||
                  failed(cudaMalloc(&p.count, 8), "cudaMalloc", err)))
    rc = -1;
  if (rc == 0 && p.call(&p, NULL) != 0) rc = -1; /* sizes the temporary storage */
  if (rc == 0 && p.temp_bytes > 0 && failed(cudaMalloc(&p.temp, p.temp_bytes), "cudaMalloc", err)) rc = -1;
  if (rc == 0 && body(&p) != 0) rc = -1;
  if (rc == 0 && compare(p.stream, p.out, p.count, c->ref_dev, c->ref_count, elem,
                         static_cast<size_t>(c->ref_count) * elem, err) != 0) {
    res->total = -1; /* differs: the caller marks the row */
  }
  if (rc == 0 && body(&p) != 0) rc = -1; /* warm-up */
  if (rc == 0 && bench_gpu_measure(gpu, body, &p, plan, &res->t, err) != 0) rc = -1;
  res->bytes = static_cast<double>(c->n) * static_cast<double>(skss_dtype_size(c->dtype)) +
               static_cast<double>(c->ref_count) * static_cast<double>(elem) +
               (peer == BENCH_GPU_COMPACT_CUB_FLAGGED ? static_cast<double>(c->n) : 0.0);
  cudaStreamSynchronize(p.stream); /* nothing may still use the buffers */
  if (p.out != NULL) cudaFree(p.out);
  if (p.temp != NULL) cudaFree(p.temp);
  if (p.count != NULL) cudaFree(p.count);
  if (p.flags != NULL) cudaFree(p.flags);
  return rc;
}
