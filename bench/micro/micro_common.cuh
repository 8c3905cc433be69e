/*
 * micro_common.cuh — what the microbenchmarks of bench/micro/ share: a
 * CUDA call check that ends the program with the call's text, and the
 * median of five timed launches after a warm-up, by CUDA events.
 */
#ifndef SKSS_BENCH_MICRO_COMMON_CUH
#define SKSS_BENCH_MICRO_COMMON_CUH

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cuda_runtime.h>

#define CHECK(x)                                                                           \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      exit(1);                                                                             \
    }                                                                                      \
  } while (0)

/* Median ms of launch() over 5 runs after a warm-up on the default stream. */
template <typename F>
double micro_median_ms(F launch) {
  cudaEvent_t a, b;
  CHECK(cudaEventCreate(&a));
  CHECK(cudaEventCreate(&b));
  std::vector<float> v;
  for (int k = 0; k < 6; k++) {
    CHECK(cudaEventRecord(a));
    launch();
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    CHECK(cudaGetLastError());
    float m = 0;
    CHECK(cudaEventElapsedTime(&m, a, b));
    if (k > 0) v.push_back(m);
  }
  CHECK(cudaEventDestroy(a));
  CHECK(cudaEventDestroy(b));
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

#endif
