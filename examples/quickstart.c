/*
 * quickstart.c — the smallest complete use of skss: make a default context,
 * compute a summed-area table, halftone a gradient, solve a small knapsack,
 * and compact an array, checking every status. The default (auto) context
 * runs each primitive on CUDA where it has kernels and a device is present,
 * else on the CPU threads; the program prints which ran each one. Build it
 * against an installed skss with CMake (find_package(skss)) or pkg-config
 * (`pkg-config --cflags --libs skss`).
 */
#include <stdio.h>
#include <stdlib.h>

#include "skss.h"

#define CHECK(ctx, call)                                                                  \
  do {                                                                                    \
    skss_status st_ = (call);                                                             \
    if (st_ != SKSS_OK) {                                                                 \
      fprintf(stderr, "%s failed: %s: %s\n", #call, skss_status_string(st_),              \
              skss_ctx_last_error(ctx));                                                  \
      return 1;                                                                           \
    }                                                                                     \
  } while (0)

/* Which backend runs primitive `op` on this context: "cuda", "cpu", ... */
static const char *runs_on(const skss_ctx *ctx, skss_op op) {
  return skss_backend_name(skss_ctx_op_backend(ctx, op));
}

int main(void) {
  skss_ctx *ctx = NULL;
  CHECK(ctx, skss_ctx_create(NULL, &ctx)); /* NULL desc: the auto backend, all CPU threads */
  printf("skss %s, %s backend, %d CPU threads\n", skss_version(),
         skss_backend_name(skss_ctx_backend(ctx)), skss_ctx_threads(ctx));

  /* Summed-area table of a 3 x 4 matrix of ones: out[i][j] = (i+1)(j+1). */
  uint8_t ones[3 * 4];
  uint32_t sat[3 * 4];
  for (int k = 0; k < 12; k++) ones[k] = 1;
  skss_sat_desc sd = SKSS_SAT_DESC_INIT;
  sd.height = 3;
  sd.width = 4;
  sd.in_type = SKSS_DTYPE_U8;
  sd.out_type = SKSS_DTYPE_U32;
  sd.layout = SKSS_SAT_LAYOUT_INCLUSIVE;
  CHECK(ctx, skss_sat(ctx, &sd, ones, sat, NULL));
  printf("sat (%s): corner %u (expect 12)\n", runs_on(ctx, SKSS_OP_SAT), (unsigned)sat[11]);

  /* Floyd-Steinberg halftone of a 64 x 64 gradient, one byte per pixel. */
  enum { W = 64, H = 64 };
  uint8_t *gray = malloc(W * H), *bw = malloc(W * H);
  if (gray == NULL || bw == NULL) return 1;
  for (int k = 0; k < W * H; k++) gray[k] = (uint8_t)(k % W * 4);
  skss_halftone_desc hd = SKSS_HALFTONE_DESC_INIT;
  hd.height = H;
  hd.width = W;
  hd.kernel = SKSS_DITHER_KERNEL_FLOYD_STEINBERG;
  hd.output = SKSS_HALFTONE_OUTPUT_BYTES;
  CHECK(ctx, skss_halftone(ctx, &hd, gray, bw));
  int white = 0;
  for (int k = 0; k < W * H; k++) white += bw[k] == 255;
  printf("halftone (%s): %d of %d pixels white\n", runs_on(ctx, SKSS_OP_HALFTONE), white, W * H);

  /* 0-1 knapsack: the best of 4 items within capacity 5. */
  int64_t weights[] = {2, 2, 3, 4}, values[] = {4, 2, 3, 1}, best = 0;
  uint8_t taken[4];
  skss_knapsack_desc kd = SKSS_KNAPSACK_DESC_INIT;
  kd.n_items = 4;
  kd.capacity = 5;
  kd.algorithm = SKSS_KNAPSACK_ALGORITHM_AUTO;
  CHECK(ctx, skss_knapsack(ctx, &kd, weights, values, &best, taken));
  printf("knapsack (%s): best value %lld (expect 7), items %d%d%d%d\n", runs_on(ctx, SKSS_OP_KNAPSACK),
         (long long)best, taken[0], taken[1], taken[2], taken[3]);

  /* Keep the elements greater than 2.5, with their indices. */
  float data[] = {1.0f, 3.0f, 2.0f, 5.0f, 2.5f, 7.0f};
  float kept[6];
  int64_t idx[6], count = 0;
  skss_compact_desc cd = SKSS_COMPACT_DESC_INIT;
  cd.n = 6;
  cd.dtype = SKSS_DTYPE_F32;
  cd.keep = SKSS_COMPACT_KEEP_GT;
  cd.a.f = 2.5;
  CHECK(ctx, skss_compact(ctx, &cd, data, kept, idx, &count));
  printf("compact (%s): kept %lld (expect 3), first %g at index %lld\n", runs_on(ctx, SKSS_OP_COMPACT),
         (long long)count, (double)kept[0], (long long)idx[0]);

  free(gray);
  free(bw);
  skss_ctx_destroy(ctx);
  return sat[11] == 12 && best == 7 && count == 3 ? 0 : 1;
}
