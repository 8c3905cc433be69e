/*
 * bench_cuda_halftone.cu — the device side of the halftone bench (CUDA
 * builds only): the check of a device 0/255 image against the device copy
 * of the cpu-ref result, and the latency floor's step.
 *
 * The floor of error diffusion on an H x W image is its critical path:
 * W + slope (H - 1) pixels, each waiting for the error of the one before
 * (left neighbour, or the row above's pixel `slope` columns right). One
 * step's cost is measured here by a single thread walking 2^20 pixels whose
 * only dependency is that chain, with the library's own pixel rule
 * (src/cuda/halftone/halftone_wavefront.cuh): the weights and the error
 * from the left in, the error out; the other inputs come from a generator
 * that runs beside the chain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "bench.h"
#include "cuda/halftone/halftone_wavefront.cuh"

namespace {

constexpr int FLOOR_STEPS = 1 << 20;

int failed(cudaError_t e, const char *what, char err[BENCH_ERRLEN]) {
  if (e == cudaSuccess) return 0;
  (void)cudaGetLastError(); /* clear a non-sticky error for the next row */
  snprintf(err, BENCH_ERRLEN, "%s: %s", what, cudaGetErrorString(e));
  return 1;
}

/* One thread, `steps` dependent pixels of kernel K (threshold 128). */
template <typename K>
__global__ void pixel_chain(int steps, unsigned seed, int *sink) {
  unsigned g = seed;
  int left1 = 0;
#pragma unroll 8
  for (int t = 0; t < steps; t++) {
    g = g * 1664525u + 1013904223u; /* the pixel and the rest of its sum */
    const int in = (int)(g >> 24), rest = (int)((g >> 8) & 0x3ffu) - 512;
    int white;
    left1 = skss_wf::pixel<K>(in, rest, K::weight(0, 3), left1, 128, &white);
  }
  *sink = left1;
}

struct chain_launch {
  template <typename K>
  static skss_status run(cudaStream_t stream, int *sink) {
    pixel_chain<K><<<1, 1, 0, stream>>>(FLOOR_STEPS, 12345u, sink);
    return cudaGetLastError() == cudaSuccess ? SKSS_OK : SKSS_ERR_CUDA;
  }
};

}  // namespace

extern "C" int bench_gpu_check_bytes(bench_gpu *gpu, const void *out, const void *ref, int64_t rows,
                                     int64_t cols, char err[BENCH_ERRLEN]) {
  const size_t n = (size_t)rows * (size_t)cols;
  cudaStream_t stream = static_cast<cudaStream_t>(bench_gpu_stream(gpu));
  if (failed(cudaStreamSynchronize(stream), "halftone run", err)) return -1;
  uint8_t *a = static_cast<uint8_t *>(malloc(n)), *b = static_cast<uint8_t *>(malloc(n));
  int rc = -1;
  if (a == NULL || b == NULL) {
    snprintf(err, BENCH_ERRLEN, "no host memory for the check");
  } else if (!failed(cudaMemcpy(a, out, n, cudaMemcpyDeviceToHost), "download", err) &&
             !failed(cudaMemcpy(b, ref, n, cudaMemcpyDeviceToHost), "download", err)) {
    if (memcmp(a, b, n) == 0) {
      rc = 0;
    } else {
      size_t k = 0;
      while (a[k] == b[k]) k++;
      snprintf(err, BENCH_ERRLEN, "first difference at (y %zu, x %zu): %u, reference %u",
               k / (size_t)cols, k % (size_t)cols, a[k], b[k]);
    }
  }
  free(a);
  free(b);
  return rc;
}

extern "C" double bench_gpu_halftone_step_s(bench_gpu *gpu, skss_dither_kernel kernel,
                                            char err[BENCH_ERRLEN]) {
  cudaStream_t stream = static_cast<cudaStream_t>(bench_gpu_stream(gpu));
  int *sink = NULL;
  cudaEvent_t e0 = NULL, e1 = NULL;
  float ms[3] = {0, 0, 0};
  double s = 0;
  if (!failed(cudaMalloc(&sink, sizeof(int)), "cudaMalloc", err) &&
      !failed(cudaEventCreate(&e0), "cudaEventCreate", err) &&
      !failed(cudaEventCreate(&e1), "cudaEventCreate", err)) {
    int k = 0;
    /* a warm-up launch, then the median of three */
    for (; k < 4; k++) {
      cudaEventRecord(e0, stream);
      if (skss__ht_by_kernel<chain_launch>(kernel, stream, sink) != SKSS_OK) break;
      cudaEventRecord(e1, stream);
      if (failed(cudaEventSynchronize(e1), "pixel chain", err)) break;
      if (k > 0) cudaEventElapsedTime(&ms[k - 1], e0, e1);
    }
    if (k == 4) {
      for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
          if (ms[b] < ms[a]) {
            const float x = ms[a];
            ms[a] = ms[b];
            ms[b] = x;
          }
      s = ms[1] * 1e-3 / FLOOR_STEPS;
    } else if (err[0] == '\0') {
      snprintf(err, BENCH_ERRLEN, "the pixel chain did not launch");
    }
  }
  if (e0) cudaEventDestroy(e0);
  if (e1) cudaEventDestroy(e1);
  cudaFree(sink);
  return s;
}
