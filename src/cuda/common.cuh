/*
 * common.cuh — what every CUDA source of skss shares: the per-context CUDA
 * state and the error macros that turn CUDA errors into skss statuses with
 * a one-line message naming the failing call.
 */
#ifndef SKSS_CUDA_COMMON_CUH
#define SKSS_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include "core/backend_cuda.h"

/* CUDA state owned by a context. */
typedef struct skss__cuda_state {
  int device;
  cudaStream_t stream;
  bool owns_stream;
  void *arena;        /* grow-only device scratch */
  size_t arena_bytes;
} skss__cuda_state;

static inline skss__cuda_state *skss__cuda(skss_ctx *ctx) {
  return static_cast<skss__cuda_state *>(ctx->cuda);
}

/* Evaluates a CUDA runtime call; on failure records "fn: call: message" on
 * ctx and returns SKSS_ERR_CUDA from the enclosing function. */
#define SKSS_CUDA_TRY(ctx, fn, call)                                                   \
  do {                                                                                 \
    cudaError_t skss_err_ = (call);                                                    \
    if (skss_err_ != cudaSuccess)                                                      \
      return skss__fail((ctx), SKSS_ERR_CUDA, "%s: %s: %s", (fn), #call,               \
                        cudaGetErrorString(skss_err_));                                \
  } while (0)

/* Checks the last kernel launch (configuration errors are reported at once). */
#define SKSS_CUDA_CHECK_LAUNCH(ctx, fn) SKSS_CUDA_TRY(ctx, fn, cudaGetLastError())

#endif
