/*
 * device.cu — CUDA backend groundwork: device discovery for `skss info`,
 * the context's device and stream, and deferred-error synchronisation.
 * The primitives' kernels live in their own folders (sat/, halftone/, ...).
 */
#include <limits.h>
#include <stdint.h>
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
    SKSS_CUDA_TRY(ctx, fn, cudaStreamCreate(&st->own_stream));
    st->stream = st->own_stream;
  }
  return SKSS_OK;
}

/* The body of skss_ctx_set_stream() with the context's device current
 * (cudaStreamLegacy, cudaStreamCreate and cudaEventCreate mean the current
 * device's). */
static skss_status set_stream_on_device(skss_ctx *ctx, skss__cuda_state *st, cudaStream_t next) {
  const char *fn = "skss_ctx_set_stream()";
  if (next == NULL) {
    if (st->own_stream == NULL) SKSS_CUDA_TRY(ctx, fn, cudaStreamCreate(&st->own_stream));
    next = st->own_stream;
  }
  if (next == st->stream) return SKSS_OK;
  if (st->switch_event == NULL)
    SKSS_CUDA_TRY(ctx, fn, cudaEventCreateWithFlags(&st->switch_event, cudaEventDisableTiming));
  /* the arena and the task-array flags may still be in use on the old stream */
  SKSS_CUDA_TRY(ctx, fn, cudaEventRecord(st->switch_event, st->stream));
  SKSS_CUDA_TRY(ctx, fn, cudaStreamWaitEvent(next, st->switch_event, 0));
  st->stream = next;
  return SKSS_OK;
}

extern "C" skss_status skss__cuda_set_stream(skss_ctx *ctx, void *stream) {
  skss__cuda_state *st = skss__cuda(ctx);
  int current = -1;
  SKSS_CUDA_TRY(ctx, "skss_ctx_set_stream()", cudaGetDevice(&current));
  if (current != st->device) SKSS_CUDA_TRY(ctx, "skss_ctx_set_stream()", cudaSetDevice(st->device));
  const skss_status result = set_stream_on_device(ctx, st, static_cast<cudaStream_t>(stream));
  if (current != st->device) (void)cudaSetDevice(current); /* the caller's device, as it was */
  return result;
}

extern "C" void skss__cuda_ctx_release(skss_ctx *ctx) {
  skss__cuda_state *st = skss__cuda(ctx);
  if (st == NULL) return;
  skss__cuda_align_lanes_release(st);
  if (st->arena) cudaFree(st->arena);
  if (st->host_arena) cudaFreeHost(st->host_arena);
  if (st->epoch_buf) cudaFree(st->epoch_buf);
  if (st->cp_status) cudaFree(st->cp_status);
  if (st->switch_event) cudaEventDestroy(st->switch_event);
  if (st->own_stream) cudaStreamDestroy(st->own_stream);
  free(st);
  ctx->cuda = NULL;
}

cudaError_t skss__cuda_device_alloc(void **p, size_t bytes) { return cudaMalloc(p, bytes); }
cudaError_t skss__cuda_pinned_alloc(void **p, size_t bytes) {
  return cudaHostAlloc(p, bytes, cudaHostAllocDefault);
}

/* A grow-only block of at least `bytes` at *block (*have bytes): grown by
 * half again so slowly growing workloads reallocate rarely, or to exactly
 * `bytes` when that much more does not fit. The old block is released first;
 * cudaFree and cudaFreeHost wait for the device, so no queued kernel or copy
 * still uses it. false (the block NULL) if there is none; the caller reports. */
bool skss__cuda_grow(void **block, size_t *have, size_t bytes, cudaError_t (*alloc)(void **, size_t),
                     cudaError_t (*release)(void *)) {
  if (bytes <= *have && *block != NULL) return true;
  size_t want = bytes < *have / 2 * 3 ? *have / 2 * 3 : bytes;
  if (*block != NULL) release(*block);
  *block = NULL;
  *have = 0;
  if (alloc(block, want) != cudaSuccess) {
    (void)cudaGetLastError();
    if (want == bytes || alloc(block, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      *block = NULL;
      return false;
    }
    want = bytes;
  }
  *have = want;
  return true;
}

namespace {

/* The context's grow-only block; NULL (the error set, naming `what`) if none. */
void *grow(skss_ctx *ctx, const char *fn, const char *what, void **block, size_t *have, size_t bytes,
           cudaError_t (*alloc)(void **, size_t), cudaError_t (*release)(void *)) {
  if (skss__cuda_grow(block, have, bytes, alloc, release)) return *block;
  skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no %s for %zu bytes of scratch", fn, what, bytes);
  return NULL;
}

}  // namespace

void *skss__cuda_scratch(skss_ctx *ctx, const char *fn, size_t bytes) {
  skss__cuda_state *st = skss__cuda(ctx);
  return grow(ctx, fn, "device memory", &st->arena, &st->arena_bytes, bytes, skss__cuda_device_alloc,
              cudaFree);
}

extern "C" void *skss__cuda_host_scratch(skss_ctx *ctx, const char *fn, size_t bytes) {
  skss__cuda_state *st = skss__cuda(ctx);
  return grow(ctx, fn, "page-locked host memory", &st->host_arena, &st->host_arena_bytes, bytes,
              skss__cuda_pinned_alloc, cudaFreeHost);
}

skss_status skss__cuda_epoch_flags_take(skss_ctx *ctx, const char *fn, size_t count,
                                        unsigned long long tickets, skss__cuda_epoch_flags *out) {
  skss__cuda_state *st = skss__cuda(ctx);
  /* an epoch is published as epoch * 4 + 3 at most, in an int */
  const int last_epoch = (INT_MAX - 3) / 4;
  bool zero = st->epoch >= last_epoch;
  if (count > st->epoch_words || st->epoch_buf == NULL) {
    size_t want = count < st->epoch_words / 2 * 3 ? st->epoch_words / 2 * 3 : count;
    if (want > (SIZE_MAX - 256) / sizeof(int))
      return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %zu state words overflow size_t", fn, count);
    /* cudaFree waits for the device: no queued kernel still reads the old words */
    if (st->epoch_buf != NULL) cudaFree(st->epoch_buf);
    st->epoch_buf = NULL;
    st->epoch_words = 0;
    if (cudaMalloc(&st->epoch_buf, 256 + want * sizeof(int)) != cudaSuccess) {
      (void)cudaGetLastError();
      st->epoch_buf = NULL;
      return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no device memory for %zu state words",
                        fn, want);
    }
    st->epoch_words = want;
    zero = true;
  }
  if (zero) {
    SKSS_CUDA_TRY(ctx, fn, cudaMemsetAsync(st->epoch_buf, 0, 256 + st->epoch_words * sizeof(int),
                                           st->stream));
    st->epoch = 0;
    st->epoch_tickets = 0;
  }
  st->epoch++;
  out->ticket = static_cast<unsigned long long *>(st->epoch_buf);
  out->words = reinterpret_cast<int *>(static_cast<uint8_t *>(st->epoch_buf) + 256);
  out->ticket_base = st->epoch_tickets;
  out->epoch = st->epoch;
  st->epoch_tickets += tickets;
  return SKSS_OK;
}

void skss__cuda_epoch_flags_abandon(skss_ctx *ctx) { skss__cuda(ctx)->epoch = INT_MAX; }

bool skss__cuda_is_device_ptr(const void *ptr) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError(); /* an unregistered host pointer on old runtimes */
    return false;
  }
  return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged;
}

extern "C" int skss__cuda_is_device_only(const void *ptr) {
  cudaPointerAttributes attr;
  if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess) {
    (void)cudaGetLastError(); /* an unregistered host pointer on old runtimes */
    return 0;
  }
  return attr.type == cudaMemoryTypeDevice;
}

extern "C" skss_status skss__cuda_synchronize(skss_ctx *ctx) {
  SKSS_CUDA_TRY(ctx, "skss_ctx_synchronize()", cudaStreamSynchronize(skss__cuda(ctx)->stream));
  return SKSS_OK;
}
