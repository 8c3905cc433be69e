/*
 * cuda_places.h — the CUDA tests' buffers in every kind of memory a caller
 * may pass (host, device, managed, pinned): allocate, free, fill, read back
 * and poison one, whatever its kind. Header-only, for tests/cuda/test_*.c.
 */
#ifndef SKSS_TESTS_CUDA_PLACES_H
#define SKSS_TESTS_CUDA_PLACES_H

#include <cuda_runtime.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

typedef enum place { HOST = 0, DEVICE = 1, MANAGED = 2, PINNED = 3, PLACES = 4 } place;
static const char PLACE_CHAR[PLACES] = {'h', 'd', 'm', 'p'};

/* At least one byte, so that an empty buffer is still a distinct pointer. */
static inline void *place_alloc(place p, size_t bytes) {
  void *ptr = NULL;
  if (bytes == 0) bytes = 1;
  cudaError_t e = cudaSuccess;
  if (p == HOST) ptr = malloc(bytes);
  else if (p == DEVICE) e = cudaMalloc(&ptr, bytes);
  else if (p == MANAGED) e = cudaMallocManaged(&ptr, bytes, cudaMemAttachGlobal);
  else e = cudaMallocHost(&ptr, bytes);
  if (e != cudaSuccess || ptr == NULL) TU_FAIL("no %zu bytes of %c memory: %s", bytes, PLACE_CHAR[p], cudaGetErrorString(e));
  return ptr;
}

static inline void place_free(place p, void *ptr) {
  if (p == HOST) free(ptr);
  else if (p == PINNED) cudaFreeHost(ptr);
  else cudaFree(ptr);
}

static inline void place_put(place p, void *dst, const void *src, size_t bytes) {
  if (bytes == 0) return;
  if (p == DEVICE) assert_int_equal(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), cudaSuccess);
  else memcpy(dst, src, bytes);
}

/* Reads back after the device is done (the context's stream included). */
static inline void place_get(place p, void *dst, const void *src, size_t bytes) {
  assert_int_equal(cudaDeviceSynchronize(), cudaSuccess);
  if (bytes == 0) return;
  if (p == DEVICE) assert_int_equal(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  else memcpy(dst, src, bytes);
}

static inline void place_poison_bytes(place p, void *ptr, int byte, size_t bytes) {
  if (p == DEVICE) assert_int_equal(cudaMemset(ptr, byte, bytes), cudaSuccess);
  else memset(ptr, byte, bytes);
}

#endif
