/*
 * backend_cuda_absent.c — the CUDA entry points of a build without CUDA:
 * no devices, and any attempt to use the backend is "unsupported".
 */
#include "backend_cuda.h"

#ifndef SKSS_WITH_CUDA

int skss__cuda_built(void) { return 0; }
int skss__cuda_device_count(void) { return 0; }
skss_status skss__cuda_device_info(int ordinal, skss_device_info *out) {
  (void)ordinal;
  (void)out;
  return SKSS_ERR_NO_DEVICE;
}
skss_status skss__cuda_ctx_init(skss_ctx *ctx, int device, void *stream) {
  (void)device;
  (void)stream;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_ctx_create(): this build has no CUDA backend");
}
void skss__cuda_ctx_release(skss_ctx *ctx) { (void)ctx; }
skss_status skss__cuda_set_stream(skss_ctx *ctx, void *stream) {
  (void)stream;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_ctx_set_stream(): this build has no CUDA backend");
}
skss_status skss__cuda_synchronize(skss_ctx *ctx) { (void)ctx; return SKSS_OK; }
int skss__cuda_is_device_only(const void *ptr) { (void)ptr; return 0; }
void *skss__cuda_host_scratch(skss_ctx *ctx, const char *fn, size_t bytes) {
  (void)bytes;
  skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: this build of skss has no CUDA backend", fn);
  return NULL;
}
skss_status skss__cuda_sat(skss_ctx *ctx, int algorithm, const skss__sat_call *call) {
  (void)algorithm;
  (void)call;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_sat(): this build has no CUDA backend");
}
skss_status skss__cuda_boxfilter_u8(skss_ctx *ctx, const skss__box_args *args) {
  (void)args;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                    "skss_boxfilter_u8(): this build has no CUDA backend");
}
skss_status skss__cuda_halftone(skss_ctx *ctx, int algorithm, const skss__halftone_call *call) {
  (void)algorithm;
  (void)call;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_halftone(): this build has no CUDA backend");
}
skss_status skss__cuda_knapsack(skss_ctx *ctx, int algorithm, const skss__knapsack_call *call) {
  (void)algorithm;
  (void)call;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_knapsack(): this build has no CUDA backend");
}
skss_status skss__cuda_compact(skss_ctx *ctx, int algorithm, const skss__compact_job *job, int64_t *count) {
  (void)algorithm;
  (void)job;
  (void)count;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_compact(): this build has no CUDA backend");
}
skss_status skss__cuda_align_pass(skss_ctx *ctx, const skss__align_scores *sc, skss__align_pass *p) {
  (void)sc;
  (void)p;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_align(): this build has no CUDA backend");
}
skss_status skss__cuda_align_lanes(skss_ctx *ctx, int want, int *got) {
  (void)want;
  *got = 0;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_align(): this build has no CUDA backend");
}
skss__cuda_align_lane *skss__cuda_align_lane_get(skss_ctx *ctx, int k) {
  (void)ctx;
  (void)k;
  return NULL;
}
skss_status skss__cuda_align_lane_enter(skss__cuda_align_lane *lane) {
  (void)lane;
  return SKSS_ERR_UNSUPPORTED;
}
void skss__cuda_align_lane_leave(skss__cuda_align_lane *lane) { (void)lane; }
skss_status skss__cuda_align_lane_pass(skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                       skss__align_pass *p) {
  (void)lane;
  (void)sc;
  (void)p;
  return SKSS_ERR_UNSUPPORTED;
}
skss_status skss__cuda_align_lane_report(skss_ctx *ctx, const skss__cuda_align_lane *lane) {
  (void)lane;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_align(): this build has no CUDA backend");
}
skss_status skss__cuda_align_segment(skss_ctx *ctx, skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                     const uint8_t *a, const uint8_t *b, int64_t rows, int64_t cols, int start_v,
                                     int end_v, char *ops, int64_t *len, int64_t *score) {
  (void)lane;
  (void)sc;
  (void)a;
  (void)b;
  (void)rows;
  (void)cols;
  (void)start_v;
  (void)end_v;
  (void)ops;
  (void)len;
  (void)score;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_align(): this build has no CUDA backend");
}
size_t skss__cuda_align_bits_budget(skss_ctx *ctx) {
  (void)ctx;
  return 0;
}
double skss__cuda_align_whole_cells(void) { return (double)(1 << 20); }
double skss__cuda_align_big_cells(void) { return (double)(1 << 24); }
skss_status skss__cuda_copy(skss_ctx *ctx, const char *fn, void *dst, const void *src, size_t bytes) {
  (void)dst;
  (void)src;
  (void)bytes;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: this build has no CUDA backend", fn);
}

#else
/* Keeps ISO C happy: a translation unit must declare something. */
typedef int skss__cuda_is_built;
#endif
