/*
 * align_lanes.cu — the alignment traceback's lanes (core/backend_cuda.h):
 * a lane is a non-blocking stream on the context's device with its own
 * grow-only device memory and page-locked staging, so that host workers
 * (cpu/align_trace.c: one a segment of a level) each run their passes
 * (align_dispatch.cu, skss__cuda_align_lane_pass) at once. The calling
 * thread makes the lanes and caches the SM count before the workers start;
 * a worker then touches only its own lane, keeps its failure there, and the
 * calling thread reports it on the context after the join. The context
 * keeps its lanes (at most SKSS_CUDA_ALIGN_LANES) until it is destroyed.
 */
#include <stdlib.h>
#include <string.h>

#include "align_cuda.cuh"

namespace {

const char *const FN = "skss_align()";


/* A lane's grow-only block (device.cu's), its failure kept in the lane. The
 * old block goes first: the lane's stream is idle (every pass waits for its
 * copies). */
skss_status grow(skss__cuda_align_lane *lane, const char *what, void **block, size_t *have, size_t bytes,
                 cudaError_t (*alloc)(void **, size_t), cudaError_t (*release)(void *)) {
  if (skss__cuda_grow(block, have, bytes, alloc, release)) return SKSS_OK;
  return skss__cuda_align_lane_fail(lane, SKSS_ERR_OUT_OF_MEMORY, "%s: no %s for %zu bytes of a lane's scratch", FN,
                                    what, bytes);
}

/* Makes lanes count..want-1 with the context's device current. */
skss_status make_lanes(skss_ctx *ctx, skss__cuda_state *st, int want) {
  for (int k = st->align_lane_count; k < want; k++) {
    skss__cuda_align_lane *lane = &st->align_lanes[k];
    memset(lane, 0, sizeof *lane);
    lane->device = st->device;
    /* non-blocking: a lane's inputs are staged host data, so it needs no
     * order against work on the legacy default stream (and gives it none) */
    SKSS_CUDA_TRY(ctx, FN, cudaStreamCreateWithFlags(&lane->stream, cudaStreamNonBlocking));
    st->align_lane_count = k + 1;
  }
  return SKSS_OK;
}

}  // namespace

extern "C" skss_status skss__cuda_align_lanes(skss_ctx *ctx, int want, int *got) {
  skss__cuda_state *st = skss__cuda(ctx);
  *got = 0;
  if (want > SKSS_CUDA_ALIGN_LANES) want = SKSS_CUDA_ALIGN_LANES;
  if (want < 1) want = 1;
  /* asked here, on the calling thread: skss__cuda_sm_count() writes the
   * context on its first call, and the lanes' passes only read their copy */
  int sms = 0;
  SKSS_CUDA_TRY(ctx, FN, skss__cuda_sm_count(ctx, &sms));
  if (st->align_lanes == NULL) {
    /* all of them at once: a lane's address never changes while the context lives */
    st->align_lanes =
        static_cast<skss__cuda_align_lane *>(calloc(SKSS_CUDA_ALIGN_LANES, sizeof(skss__cuda_align_lane)));
    if (st->align_lanes == NULL) return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: out of host memory", FN);
  }
  if (st->align_lane_count < want) {
    int current = -1;
    SKSS_CUDA_TRY(ctx, FN, cudaGetDevice(&current));
    if (current != st->device) SKSS_CUDA_TRY(ctx, FN, cudaSetDevice(st->device));
    const skss_status made = make_lanes(ctx, st, want); /* streams belong to the current device */
    if (current != st->device) (void)cudaSetDevice(current); /* the caller's device, as it was */
    if (made != SKSS_OK) return made;
  }
  for (int k = 0; k < want; k++) st->align_lanes[k].sms = sms;
  *got = want;
  return SKSS_OK;
}

extern "C" skss__cuda_align_lane *skss__cuda_align_lane_get(skss_ctx *ctx, int k) {
  return &skss__cuda(ctx)->align_lanes[k];
}

void skss__cuda_align_lanes_release(skss__cuda_state *st) {
  for (int k = 0; k < st->align_lane_count; k++) {
    skss__cuda_align_lane *lane = &st->align_lanes[k];
    if (lane->dev) cudaFree(lane->dev);
    if (lane->host) cudaFreeHost(lane->host);
    if (lane->stream) cudaStreamDestroy(lane->stream);
  }
  free(st->align_lanes);
  st->align_lanes = NULL;
  st->align_lane_count = 0;
}

extern "C" skss_status skss__cuda_align_lane_enter(skss__cuda_align_lane *lane) {
  lane->status = SKSS_OK;
  lane->message[0] = '\0';
  lane->saved_device = -1;
  cudaError_t e = cudaGetDevice(&lane->saved_device);
  if (e != cudaSuccess) {
    lane->saved_device = -1;
    return skss__cuda_align_lane_fail(lane, SKSS_ERR_CUDA, "%s: cudaGetDevice(): %s", FN,
                                      cudaGetErrorString(e));
  }
  /* every worker thread: the current device is per thread */
  if (lane->saved_device != lane->device && (e = cudaSetDevice(lane->device)) != cudaSuccess)
    return skss__cuda_align_lane_fail(lane, SKSS_ERR_CUDA, "%s: cudaSetDevice(%d): %s", FN, lane->device,
                                      cudaGetErrorString(e));
  return SKSS_OK;
}

extern "C" void skss__cuda_align_lane_leave(skss__cuda_align_lane *lane) {
  if (lane->saved_device >= 0 && lane->saved_device != lane->device)
    (void)cudaSetDevice(lane->saved_device); /* the thread's device, as it was */
}

skss_status skss__cuda_align_lane_reserve(skss__cuda_align_lane *lane, size_t dev_bytes, size_t host_bytes) {
  skss_status st =
      grow(lane, "device memory", &lane->dev, &lane->dev_bytes, dev_bytes, skss__cuda_device_alloc, cudaFree);
  if (st == SKSS_OK)
    st = grow(lane, "page-locked host memory", &lane->host, &lane->host_bytes, host_bytes,
              skss__cuda_pinned_alloc, cudaFreeHost);
  return st;
}

extern "C" skss_status skss__cuda_align_lane_report(skss_ctx *ctx, const skss__cuda_align_lane *lane) {
  if (lane->status == SKSS_OK) return SKSS_OK;
  return skss__fail(ctx, lane->status, "%s", lane->message);
}

extern "C" double skss__cuda_align_big_cells(void) { return (double)(SKSS_CUDA_ALIGN_BIG_CELLS); }

extern "C" double skss__cuda_align_whole_cells(void) { return (double)(SKSS_CUDA_ALIGN_BITS_MIN_CELLS); }

extern "C" size_t skss__cuda_align_bits_budget(skss_ctx *ctx) {
  (void)ctx; /* the context's device is the calling thread's (as for its arena) */
  size_t free_bytes = 0, total = 0;
  if (cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
    (void)cudaGetLastError(); /* no budget: the traceback splits every segment */
    return 0;
  }
  size_t most = (size_t)(SKSS_CUDA_ALIGN_BITS_BYTES);
  /* SKSS_ALIGN_BITS_BYTES=N overrides it (tests and tuning; 0: split every segment) */
  const char *env = getenv("SKSS_ALIGN_BITS_BYTES");
  if (env != NULL && env[0] >= '0' && env[0] <= '9') most = (size_t)strtoull(env, NULL, 10);
  return free_bytes / 2 < most ? free_bytes / 2 : most;
}
