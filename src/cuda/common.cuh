/*
 * common.cuh — what every CUDA source of skss shares: the per-context CUDA
 * state and the error macros that turn CUDA errors into skss statuses with
 * a one-line message naming the failing call.
 */
#ifndef SKSS_CUDA_COMMON_CUH
#define SKSS_CUDA_COMMON_CUH

#include <cuda_runtime.h>

#include <atomic>

#include "core/backend_cuda.h"

/* CUDA state owned by a context. */
typedef struct skss__cuda_state {
  int device;
  cudaStream_t stream;      /* where calls run now (skss_ctx_set_stream() moves it) */
  cudaStream_t own_stream;  /* the context's own blocking stream, NULL until needed */
  cudaEvent_t switch_event; /* orders the old stream's work before the new one's */
  void *arena;        /* grow-only device scratch */
  size_t arena_bytes;
  void *host_arena;   /* grow-only page-locked host scratch */
  size_t host_arena_bytes;
  double sat_hybrid_r; /* (1+r)R1W's r when > 0 (sat/sat_hooks.h), else tuning.h's */
  /* skss__cuda_epoch_flags_take(): a zeroed buffer only it hands out */
  void *epoch_buf;
  size_t epoch_words;
  int epoch;
  unsigned long long epoch_tickets; /* tickets handed out since the buffer was zeroed */
  /* compaction's tile status words, 64-bit {epoch, kind, value}, and their
   * ticket counter (compact/compact_dispatch.cu: skss__cp_status_take) */
  void *cp_status;
  size_t cp_status_words;
  unsigned cp_epoch;
  unsigned long long cp_tickets;
  int sms; /* the device's multiprocessors, 0 until skss__cuda_sm_count() asks */
  /* the alignment traceback's lanes (align/align_lanes.cu), grow-only */
  struct skss__cuda_align_lane *align_lanes;
  int align_lane_count;
} skss__cuda_state;

/* Releases the context's alignment lanes (align/align_lanes.cu). */
void skss__cuda_align_lanes_release(skss__cuda_state *st);

static inline skss__cuda_state *skss__cuda(skss_ctx *ctx) {
  return static_cast<skss__cuda_state *>(ctx->cuda);
}

/* The device's multiprocessor count, asked once per context (a per-call
 * cudaDeviceGetAttribute sits on a small call's critical path). */
static inline cudaError_t skss__cuda_sm_count(skss_ctx *ctx, int *out) {
  skss__cuda_state *st = skss__cuda(ctx);
  if (st->sms <= 0) {
    cudaError_t e = cudaDeviceGetAttribute(&st->sms, cudaDevAttrMultiProcessorCount, st->device);
    if (e != cudaSuccess) {
      st->sms = 0;
      return e;
    }
  }
  *out = st->sms;
  return cudaSuccess;
}

/* Which devices (0-63) a kernel's attributes were set on, so that they are
 * set once per device, off a small call's critical path: a function-local
 * static per kernel. pending() is always true on devices past 63. */
struct skss__cuda_per_device_once {
  std::atomic<unsigned long long> done{0};
  static unsigned long long bit(int device) { return device >= 0 && device < 64 ? 1ull << device : 0; }
  bool pending(int device) const {
    const unsigned long long b = bit(device);
    return b == 0 || !(done.load(std::memory_order_relaxed) & b);
  }
  /* relaxed: two threads that both set the attributes set the same values */
  void mark(int device) { done.fetch_or(bit(device), std::memory_order_relaxed); }
};

/* Evaluates a CUDA runtime call; on failure records "fn: call: message" on
 * ctx and returns SKSS_ERR_CUDA from the enclosing function. */
#define SKSS_CUDA_TRY(ctx, fn, call)                                                   \
  do {                                                                                 \
    cudaError_t skss_err_ = (call);                                                    \
    if (skss_err_ != cudaSuccess)                                                      \
      return skss__fail((ctx), SKSS_ERR_CUDA, "%s: %s: %s", (fn), #call,               \
                        cudaGetErrorString(skss_err_));                                \
  } while (0)

/* Checks the last kernel launch (configuration errors are reported at once).
 * Define SKSS_CUDA_SYNC_EACH_LAUNCH to also synchronise after each launch,
 * which pins an asynchronous fault on the launch that caused it. */
#ifdef SKSS_CUDA_SYNC_EACH_LAUNCH
#define SKSS_CUDA_CHECK_LAUNCH(ctx, fn)                                \
  do {                                                                 \
    SKSS_CUDA_TRY(ctx, fn, cudaGetLastError());                        \
    SKSS_CUDA_TRY(ctx, fn, cudaStreamSynchronize(skss__cuda(ctx)->stream)); \
  } while (0)
#else
#define SKSS_CUDA_CHECK_LAUNCH(ctx, fn) SKSS_CUDA_TRY(ctx, fn, cudaGetLastError())
#endif

/* Device scratch of at least `bytes` from the context's grow-only arena
 * (256-byte aligned); valid until the next call. NULL (with the error
 * recorded on ctx) when the device is out of memory. */
void *skss__cuda_scratch(skss_ctx *ctx, const char *fn, size_t bytes);
/* device.cu's grow-only block (the context's arenas, the alignment's lanes):
 * at least `bytes` at *block, *have its size; false if none (not reported). */
cudaError_t skss__cuda_device_alloc(void **p, size_t bytes);
cudaError_t skss__cuda_pinned_alloc(void **p, size_t bytes);
bool skss__cuda_grow(void **block, size_t *have, size_t bytes, cudaError_t (*alloc)(void **, size_t),
                     cudaError_t (*release)(void *));

/* State words and a ticket counter for a kernel that publishes per-task
 * states without a reset launch before it (a memset is a launch of a few
 * microseconds, as long as a whole small SAT): the words stay in a buffer
 * of the context that nothing else writes, each call gets a fresh epoch and
 * publishes `epoch * 4 + state` (state 1..3), so that words of earlier calls
 * read as "nothing yet"; tickets are a 64-bit count that never resets, and a
 * call's first ticket is `ticket_base`. The buffer is zeroed (on the stream)
 * only when it grows or the epochs run out. */
typedef struct skss__cuda_epoch_flags {
  int *words;                       /* `count` state words */
  unsigned long long *ticket;       /* the counter */
  unsigned long long ticket_base;   /* its value when this call's kernel starts */
  int epoch;                        /* >= 1 */
} skss__cuda_epoch_flags;

/* `count` state words and `tickets` tickets for one call on ctx's stream. */
skss_status skss__cuda_epoch_flags_take(skss_ctx *ctx, const char *fn, size_t count,
                                        unsigned long long tickets, skss__cuda_epoch_flags *out);

/* After a failed launch (its tickets were never taken): the next take
 * zeroes the buffer and restarts the count. */
void skss__cuda_epoch_flags_abandon(skss_ctx *ctx);

/* Rounds up to the arena's alignment, for carving one scratch block. */
static inline size_t skss__cuda_align(size_t bytes) { return (bytes + 255) & ~(size_t)255; }

/* Whether the device can dereference `ptr` (device or managed memory). */
bool skss__cuda_is_device_ptr(const void *ptr);

#endif
