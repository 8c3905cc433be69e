/*
 * bench_cuda_absent.c — bench.h's CUDA interface in builds without CUDA
 * (bench/CMakeLists.txt compiles bench_cuda.cu instead when SKSS_WITH_CUDA).
 * bench_gpu_open() says so, so no GPU run ever starts and the rest is never
 * reached; each answers "not in this build" all the same.
 */
#include <stdio.h>

#include "bench.h"

static int absent(char err[BENCH_ERRLEN]) {
  snprintf(err, BENCH_ERRLEN, "CUDA is not in this build");
  return -1;
}

int bench_gpu_open(bench_gpu **out, char err[BENCH_ERRLEN]) {
  *out = NULL;
  return absent(err);
}

void bench_gpu_close(bench_gpu *gpu) { (void)gpu; }

void *bench_gpu_stream(bench_gpu *gpu) {
  (void)gpu;
  return NULL;
}

void bench_gpu_describe(bench_gpu *gpu, bench_report *rep) {
  (void)gpu;
  (void)rep;
}

double bench_gpu_copy_bandwidth(bench_gpu *gpu, size_t bytes, int reps) {
  (void)gpu;
  (void)bytes;
  (void)reps;
  return 0;
}

int bench_gpu_measure(bench_gpu *gpu, bench_body body, void *arg, const bench_plan *plan, bench_stats *out,
                      char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)body;
  (void)arg;
  (void)plan;
  (void)out;
  return absent(err);
}

int bench_gpu_measure_single(bench_gpu *gpu, bench_body body, void *arg, const bench_plan *plan,
                             bench_stats *out, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)body;
  (void)arg;
  (void)plan;
  (void)out;
  return absent(err);
}

int bench_gpu_copy_time(bench_gpu *gpu, double bytes, const bench_plan *plan, bench_stats *out,
                        char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)bytes;
  (void)plan;
  (void)out;
  return absent(err);
}

void *bench_gpu_alloc(size_t bytes, char err[BENCH_ERRLEN]) {
  (void)bytes;
  absent(err);
  return NULL;
}

void bench_gpu_free(void *ptr) { (void)ptr; }

int bench_gpu_upload(bench_gpu *gpu, void *dst, const void *src, size_t bytes, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)dst;
  (void)src;
  (void)bytes;
  return absent(err);
}

int bench_gpu_fill(bench_gpu *gpu, void *dst, int byte, size_t bytes, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)dst;
  (void)byte;
  (void)bytes;
  return absent(err);
}

int bench_gpu_check(bench_gpu *gpu, skss_dtype type, const void *out, const void *ref, int64_t rows,
                    int64_t cols, const bench_tolerance *tol, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)type;
  (void)out;
  (void)ref;
  (void)rows;
  (void)cols;
  (void)tol;
  return absent(err);
}

int bench_gpu_sat_peer(bench_gpu *gpu, bench_gpu_peer peer, const bench_gpu_sat *sat, const bench_plan *plan,
                       bench_gpu_peer_result *res, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)peer;
  (void)sat;
  (void)plan;
  (void)res;
  return absent(err);
}

double bench_gpu_transfer_s(bench_gpu *gpu, void *dev, void *host, size_t bytes, int to_device,
                            char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)dev;
  (void)host;
  (void)bytes;
  (void)to_device;
  absent(err);
  return 0;
}

skss_status bench_gpu_set_hybrid_r(skss_ctx *ctx, double r) {
  (void)ctx;
  (void)r;
  return SKSS_ERR_UNSUPPORTED;
}

int bench_gpu_check_bytes(bench_gpu *gpu, const void *out, const void *ref, int64_t rows, int64_t cols,
                          char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)out;
  (void)ref;
  (void)rows;
  (void)cols;
  return absent(err);
}

double bench_gpu_halftone_step_s(bench_gpu *gpu, skss_dither_kernel kernel, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)kernel;
  absent(err);
  return 0;
}

int bench_gpu_compact_check(bench_gpu *gpu, const void *out, const int64_t *count_dev, const void *ref,
                            int64_t ref_count, size_t elem, int64_t n, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)out;
  (void)count_dev;
  (void)ref;
  (void)ref_count;
  (void)elem;
  (void)n;
  return absent(err);
}

int bench_gpu_compact_peer(bench_gpu *gpu, int peer, const bench_gpu_compact *c, const bench_plan *plan,
                           bench_gpu_peer_result *res, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)peer;
  (void)c;
  (void)plan;
  (void)res;
  return absent(err);
}

int bench_gpu_taskarray(bench_gpu *gpu, skss_ctx *ctx, int64_t rows, int64_t cols, const bench_plan *plan,
                        bench_stats *out, int *blocks, char err[BENCH_ERRLEN]) {
  (void)gpu;
  (void)ctx;
  (void)rows;
  (void)cols;
  (void)plan;
  (void)out;
  *blocks = 0;
  return absent(err);
}
