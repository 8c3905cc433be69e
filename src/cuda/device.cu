/*
 * device.cu — CUDA backend groundwork: device discovery for `skss info`,
 * the context's device and stream, and deferred-error synchronisation.
 * The primitives' kernels live in their own folders (sat/, halftone/, ...).
 */
#include <stdlib.h>
#include <string.h>

#include "common.cuh"

extern "C" int skss__cuda_built(void) { return 1; }

extern "C" int skss__cuda_device_count(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky "no driver" error */
    return 0;
  }
  return n;
}

extern "C" skss_status skss__cuda_device_info(int ordinal, skss_device_info *out) {
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) return SKSS_ERR_NO_DEVICE;
  strncpy(out->name, prop.name, sizeof out->name - 1);
  out->major = prop.major;
  out->minor = prop.minor;
  out->multiprocessors = prop.multiProcessorCount;
  out->global_memory = (int64_t)prop.totalGlobalMem;
  return SKSS_OK;
}

extern "C" skss_status skss__cuda_ctx_init(skss_ctx *ctx, int device, void *stream) {
  const char *fn = "skss_ctx_create()";
  if (device < 0 || device >= skss__cuda_device_count())
    return skss__fail(ctx, SKSS_ERR_NO_DEVICE, "%s: no CUDA device %d", fn, device);
  skss__cuda_state *st = static_cast<skss__cuda_state *>(calloc(1, sizeof(skss__cuda_state)));
  if (st == NULL) return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
  ctx->cuda = st;
  st->device = device;
  SKSS_CUDA_TRY(ctx, fn, cudaSetDevice(device));
  if (stream != NULL) {
    st->stream = static_cast<cudaStream_t>(stream);
  } else {
    /* A blocking stream: it orders after work the caller queued on the
     * legacy default stream (e.g. a plain cudaMemcpy of the input). */
    SKSS_CUDA_TRY(ctx, fn, cudaStreamCreate(&st->stream));
    st->owns_stream = true;
  }
  return SKSS_OK;
}

extern "C" void skss__cuda_ctx_release(skss_ctx *ctx) {
  skss__cuda_state *st = skss__cuda(ctx);
  if (st == NULL) return;
  if (st->arena) cudaFree(st->arena);
  if (st->owns_stream) cudaStreamDestroy(st->stream);
  free(st);
  ctx->cuda = NULL;
}

void *skss__cuda_scratch(skss_ctx *ctx, const char *fn, size_t bytes) {
  skss__cuda_state *st = skss__cuda(ctx);
  if (bytes <= st->arena_bytes && st->arena != NULL) return st->arena;
  /* Grow by half again so slowly growing workloads reallocate rarely;
   * cudaFree waits for the device, so no queued kernel still uses it. */
  size_t want = bytes < st->arena_bytes / 2 * 3 ? st->arena_bytes / 2 * 3 : bytes;
  if (st->arena != NULL) cudaFree(st->arena);
  st->arena = NULL;
  st->arena_bytes = 0;
  if (cudaMalloc(&st->arena, want) != cudaSuccess) {
    (void)cudaGetLastError();
    if (want == bytes || cudaMalloc(&st->arena, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      st->arena = NULL;
      skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no device memory for %zu bytes of scratch", fn,
                 bytes);
      return NULL;
    }
    want = bytes;
  }
  st->arena_bytes = want;
  return st->arena;
}

bool skss__cuda_is_device_ptr(const void *ptr) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError(); /* an unregistered host pointer on old runtimes */
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

extern "C" skss_status skss__cuda_synchronize(skss_ctx *ctx) {
  SKSS_CUDA_TRY(ctx, "skss_ctx_synchronize()", cudaStreamSynchronize(skss__cuda(ctx)->stream));
  return SKSS_OK;
}
