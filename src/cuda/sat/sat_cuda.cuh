/*
 * sat_cuda.cuh — the interface between the CUDA SAT dispatcher
 * (sat_dispatch.cu: validation is done, host data staged, PADDED borders
 * written) and the kernel families, one file each: sat_hmm.cu (HMM paper),
 * sat_taskarray.cu (SKSS and Parallel-Fair), sat_regcache.cu (register-cache
 * paper), sat_onepass.cu (ours). Every family computes the inclusive H x W
 * table of a plane whose pointers are device memory, on the context's stream,
 * asynchronously, using at most the scratch it declared.
 */
#ifndef SKSS_CUDA_SAT_CUH
#define SKSS_CUDA_SAT_CUH

#include "../common.cuh"

/* One plane on the device: `out` is the inclusive table's (0, 0) element. */
typedef struct skss__sat_dev_plane {
  int64_t height, width; /* > 0 */
  skss__sat_pair pair;
  bool square;
  const uint8_t *in;
  size_t in_pitch;
  uint8_t *out;
  size_t out_pitch;
  /* PADDED (onepass only): the kernel also writes the zero row above and the
   * zero column left of `out`, so the dispatcher needs no memset */
  bool border;
} skss__sat_dev_plane;

/* Each family: the device scratch it needs (bytes) and the launch(es). */
#define SKSS__CUDA_SAT_FAMILY(fam)                                                          \
  size_t skss__cuda_sat_##fam##_scratch(skss_ctx *ctx, int algorithm,                       \
                                        const skss__sat_dev_plane *plane);                  \
  skss_status skss__cuda_sat_##fam(skss_ctx *ctx, int algorithm,                            \
                                   const skss__sat_dev_plane *plane, void *scratch);

SKSS__CUDA_SAT_FAMILY(hmm)
SKSS__CUDA_SAT_FAMILY(taskarray)
SKSS__CUDA_SAT_FAMILY(regcache)
SKSS__CUDA_SAT_FAMILY(onepass)

/* Onepass's plain and squared tables of one input in one launch: each tile
 * is read once and scanned for both (`plane->square` is ignored; the squared
 * table goes to out_sq with out_sq_pitch, the same layout as plane->out). */
skss_status skss__cuda_sat_onepass_both(skss_ctx *ctx, const skss__sat_dev_plane *plane, uint8_t *out_sq,
                                        size_t out_sq_pitch);

/* The dispatcher's routing for callers that compute a SAT inside their own
 * work (the box filter): the scratch `algorithm` needs for a plane, and one
 * run of its family on device pointers (sat_dispatch.cu). */
size_t skss__cuda_sat_plane_scratch(skss_ctx *ctx, int algorithm,
                                    const skss__sat_dev_plane *plane);
skss_status skss__cuda_sat_plane(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                 void *scratch);

/* The element a SAT sums, as the CPU backends define it (sat_impl.h):
 * the input converted to the accumulator type, or its square in that type
 * (modulo 2^32 for integers). */
template <typename In, typename Acc>
__device__ __forceinline__ Acc skss__sat_load(In x, bool square) {
  Acc v = static_cast<Acc>(x);
  return square ? v * v : v;
}

/* Calls F::template run<In, Acc>(args...) for the plane's type pair. */
template <typename F, typename... Args>
skss_status skss__sat_by_pair(skss__sat_pair pair, Args &&...args) {
  switch (pair) {
#define SKSS__SAT_PAIR_CASE(name, in_t, acc_t) \
  case SKSS__SAT_##name: return F::template run<in_t, acc_t>(args...);
    SKSS__SAT_PAIRS(SKSS__SAT_PAIR_CASE)
#undef SKSS__SAT_PAIR_CASE
    default: return SKSS_ERR_INTERNAL;
  }
}

#endif
