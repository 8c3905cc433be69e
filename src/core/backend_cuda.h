/*
 * backend_cuda.h — the few entry points the C core calls in the CUDA backend
 * (src/cuda/). A build without CUDA links src/core/backend_cuda_absent.c,
 * which answers "not built" to each.
 */
#ifndef SKSS_BACKEND_CUDA_H
#define SKSS_BACKEND_CUDA_H

#include "internal.h"
#include "cpu/align_impl.h"
#include "cpu/compact_impl.h"
#include "cpu/sat_impl.h"

#ifdef __cplusplus
extern "C" {
#endif

int skss__cuda_built(void);
int skss__cuda_device_count(void);
skss_status skss__cuda_device_info(int ordinal, skss_device_info *out);
skss_status skss__cuda_ctx_init(skss_ctx *ctx, int device, void *stream);
void skss__cuda_ctx_release(skss_ctx *ctx);
skss_status skss__cuda_set_stream(skss_ctx *ctx, void *stream);
skss_status skss__cuda_synchronize(skss_ctx *ctx);
/* 1 if `ptr` is device memory the host cannot read (not managed memory). */
int skss__cuda_is_device_only(const void *ptr);
/* At least `bytes` of page-locked host memory, grow-only, owned by the
 * context and valid until its next call: a call's host-side lists live
 * there, so they are neither faulted in afresh each call nor copied to the
 * device through the driver's pageable staging. NULL (error set) if none. */
void *skss__cuda_host_scratch(skss_ctx *ctx, const char *fn, size_t bytes);

/* A validated SAT call for the CUDA backend: pointers may be host or device
 * memory (src/cuda/sat/sat_dispatch.cu stages host data through the
 * context's device arena); PADDED borders are written there too. */
typedef struct skss__sat_call {
  int64_t height, width; /* of the input, >= 0 */
  skss__sat_pair pair;
  size_t in_elem, out_elem;
  bool padded;
  const void *in;
  size_t in_pitch;
  void *out;             /* the caller's buffer (padded: its (0, 0) border corner) */
  size_t out_pitch;
  void *out_sq;          /* NULL: no squared sums */
  size_t out_sq_pitch;
} skss__sat_call;

/* `algorithm` is a CUDA SAT algorithm or SKSS_SAT_ALGORITHM_AUTO (chosen per type pair). */
skss_status skss__cuda_sat(skss_ctx *ctx, int algorithm, const skss__sat_call *call);

/* skss_boxfilter_u8() on the CUDA backend (src/cuda/boxfilter.cu): a
 * validated call whose pointers may be host or device memory. */
skss_status skss__cuda_boxfilter_u8(skss_ctx *ctx, const skss__box_args *args);

/* A validated halftone call for the CUDA backend (core/halftone_api.c):
 * sizes > 0, `images` >= 1 images of height x width, image k at
 * in + k * in_image_stride and out + k * out_image_stride; pointers may be
 * host or device memory (src/cuda/halftone/halftone_dispatch.cu stages host
 * data through the context's device arena). */
typedef struct skss__halftone_call {
  const uint8_t *in;
  size_t in_pitch, in_image_stride;
  void *out;             /* BYTES or BITS rows, as `output` says */
  size_t out_pitch, out_image_stride;
  int64_t height, width, images;
  skss_dither_kernel kernel;
  int white_above;       /* skss__halftone_white_above(threshold) */
  skss_halftone_output output;
} skss__halftone_call;

/* `algorithm` is a CUDA halftone algorithm (AUTO already resolved). */
skss_status skss__cuda_halftone(skss_ctx *ctx, int algorithm, const skss__halftone_call *call);

/* A validated knapsack call for the CUDA backend, reduced on the host
 * (core/knapsack_api.c): instance k has inst[k].items DP items (0 < w <=
 * its cap, v > 0) at w + inst[k].first, v + inst[k].first (host), over
 * capacities 0..inst[k].cap. src/cuda/knapsack/knapsack_dispatch.cu runs
 * them and writes, on the host, best[k] = V[cap][items] and (unless
 * value_only) chosen[first + j] = 1 for taken DP items; with `table`, the
 * caller's values_by_capacity (host or device memory), entry c of instance
 * k = base[k] + V[min(c, cap)][items]. Synchronous. */
typedef struct skss__knapsack_instance {
  int64_t items, cap, first, base;
} skss__knapsack_instance;

typedef struct skss__knapsack_call {
  int64_t instances;
  const skss__knapsack_instance *inst;
  const int64_t *w, *v;
  int64_t total_items;
  int wide;           /* 8-byte cells: some instance's values sum past INT32_MAX */
  int value_only;
  int64_t limit;      /* bytes of device working memory */
  int64_t capacity;   /* the caller's C */
  int64_t *table;     /* NULL or values_by_capacity */
  int64_t *best;      /* host OUT */
  uint8_t *chosen;    /* host OUT, total_items bytes (NULL when value_only) */
} skss__knapsack_call;

/* The largest C' the CUDA kernels index (int capacities with a strip of headroom). */
#define SKSS__CUDA_KNAP_MAX_CAP ((int64_t)INT32_MAX - 65536)

/* `algorithm` is a CUDA knapsack algorithm (AUTO already resolved). */
skss_status skss__cuda_knapsack(skss_ctx *ctx, int algorithm, const skss__knapsack_call *call);
/* A validated compaction on the CUDA backend (core/compact_api.c): the
 * job's pointers and `count` may each be host or device memory
 * (src/cuda/compact/compact_dispatch.cu stages host data through the
 * context's device arena and then waits; an all-device call is
 * asynchronous). `algorithm` is a CUDA compaction algorithm (AUTO resolved). */
skss_status skss__cuda_compact(skss_ctx *ctx, int algorithm, const skss__compact_job *job, int64_t *count);

/* One pass of cpu/align_impl.h's contract on the GPU (src/cuda/align/): the
 * pass's codes, rows and saves are host memory; runs on the context's stream
 * and waits. */
skss_status skss__cuda_align_pass(skss_ctx *ctx, const skss__align_scores *sc, skss__align_pass *p);

/* Lanes: passes from several host threads at once (cpu/align_trace.c runs a
 * level's big segments so). A lane is a non-blocking stream on the context's
 * device with its own grow-only device memory and page-locked staging; the
 * context keeps up to SKSS_CUDA_ALIGN_LANES (cuda/tuning.h) until it is
 * destroyed. A lane's calls never touch the context: a failure is kept in the
 * lane, and the calling thread reports it after the join. */
typedef struct skss__cuda_align_lane skss__cuda_align_lane;
/* On the calling thread, before any worker starts: makes up to `want` lanes
 * (*got of them, at least 1 on success) and caches the SM count. */
skss_status skss__cuda_align_lanes(skss_ctx *ctx, int want, int *got);
/* Lane k < *got of the last skss__cuda_align_lanes(); the context is only read. */
skss__cuda_align_lane *skss__cuda_align_lane_get(skss_ctx *ctx, int k);
/* On the worker's thread: clears the lane's failure, then makes the
 * context's device current (the thread's own is put back by _leave()). */
skss_status skss__cuda_align_lane_enter(skss__cuda_align_lane *lane);
void skss__cuda_align_lane_leave(skss__cuda_align_lane *lane);
/* skss__cuda_align_pass() on the lane's stream and memory; synchronous. */
skss_status skss__cuda_align_lane_pass(skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                       skss__align_pass *p);
/* On the calling thread after the join: the lane's failure (its message
 * recorded on ctx), or SKSS_OK. */
skss_status skss__cuda_align_lane_report(skss_ctx *ctx, const skss__cuda_align_lane *lane);
/* A traceback segment solved whole on the GPU (cpu/align_trace.c): the best
 * global alignment of a[0, rows) with b[0, cols) that starts and ends as
 * start_v and end_v say (skss__align_seg), by one pass that keeps 4
 * direction bits a cell in device memory (rows x cols / 2 bytes, rounded up
 * to whole bands) and the walk back through them on the GPU. The ops go to
 * ops[0, *len) (room for rows + cols), the optimum to *score. On the lane
 * (not NULL: its stream, memory and failure record) or on the context's
 * stream and arena; synchronous. */
skss_status skss__cuda_align_segment(skss_ctx *ctx, skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                     const uint8_t *a, const uint8_t *b, int64_t rows, int64_t cols, int start_v,
                                     int end_v, char *ops, int64_t *len, int64_t *score);
/* Bytes of direction bits a segment solved whole may take on the context's
 * device, on the calling thread: SKSS_CUDA_ALIGN_BITS_BYTES (cuda/tuning.h),
 * at most half the device's free memory (SKSS_ALIGN_BITS_BYTES=N in the
 * environment overrides the first, for tests and tuning); 0 when the device
 * cannot say (the traceback then splits every segment). */
size_t skss__cuda_align_bits_budget(skss_ctx *ctx);
/* SKSS_CUDA_ALIGN_BITS_MIN_CELLS (cuda/tuning.h): cells from which a segment
 * whose bits fit is solved whole on the GPU rather than on a host thread. */
double skss__cuda_align_whole_cells(void);
/* SKSS_CUDA_ALIGN_BIG_CELLS (cuda/tuning.h): cells above which the cuda
 * traceback splits a piece by passes rather than on one host thread. */
double skss__cuda_align_big_cells(void);

/* Copies `bytes` between any host and device memory, synchronously on the context's stream. */
skss_status skss__cuda_copy(skss_ctx *ctx, const char *fn, void *dst, const void *src, size_t bytes);

#ifdef __cplusplus
}
#endif

#endif
