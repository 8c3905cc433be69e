/*
 * minplus.cu — a 2-D min-plus recurrence on the GPU with skss's task-array
 * scheduler (include/skss_cuda.cuh), checked against a CPU loop:
 * D[i][j] = c[i][j] + min(D[i-1][j], D[i][j-1], D[i-1][j-1]), D[0][0] = c[0][0]
 * (a cheapest monotone path through a cost grid). Task (i, J) is columns
 * 32J .. 32J+31 of row i, run by a warp (lane k: column 32J + k). Along the
 * row D[i][j] = min(D[i][j-1] + c, min(up, up-left) + c): lane k holds the
 * map x -> min(x + a, b), a warp scan composes the maps, and the row's carry
 * D[i][32J-1] goes in. A fair task array: (i, J) needs row i-1 up to tile J.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "skss_cuda.cuh"

#define INF (INT_MAX / 4)

struct map { /* x -> min(x + a, b) */
  int a, b;
};

/* `hi` after `lo`. */
__device__ map then(map lo, map hi) { return map{lo.a + hi.a, min(lo.b + hi.a, hi.b)}; }

__global__ void minplus_kernel(skss_cuda_taskarray_view v, const int *c, int *D, int h, int w) {
  const int lane = threadIdx.x & 31;
  for (int i = skss_cuda_warp_take_row(v); i < v.rows; i = skss_cuda_warp_take_row(v)) {
    int carry = INF; /* D[i][32J - 1] */
    for (int J = 0; J < v.cols; J++) {
      skss_cuda_warp_wait_task(v, i, J); /* row i-1 has done tiles 0..J */
      const int j = 32 * J + lane;
      map f{0, INF}; /* the identity, past the last column */
      if (j < w) {
        const int up = i > 0 ? D[(size_t)(i - 1) * w + j] : INF;
        const int up_left = i > 0 && j > 0 ? D[(size_t)(i - 1) * w + j - 1] : (i == 0 && j == 0 ? 0 : INF);
        const int cost = c[(size_t)i * w + j];
        f = map{cost, min(up, up_left) + cost};
      }
      for (int d = 1; d < 32; d *= 2) { /* inclusive scan of the maps, lane order */
        const map lo{__shfl_up_sync(0xffffffffu, f.a, d), __shfl_up_sync(0xffffffffu, f.b, d)};
        if (lane >= d) f = then(lo, f);
      }
      const int x = min(carry + f.a, f.b);
      if (j < w) D[(size_t)i * w + j] = x;
      carry = __shfl_sync(0xffffffffu, x, 31);
      skss_cuda_warp_publish(v, i, J + 1);
    }
  }
}

static void minplus_cpu(const std::vector<int> &c, std::vector<int> &D, int h, int w) {
  for (int i = 0; i < h; i++)
    for (int j = 0; j < w; j++) {
      int best = i == 0 && j == 0 ? 0 : INF;
      if (i > 0) best = std::min(best, D[(size_t)(i - 1) * w + j]);
      if (j > 0) best = std::min(best, D[(size_t)i * w + j - 1]);
      if (i > 0 && j > 0) best = std::min(best, D[(size_t)(i - 1) * w + j - 1]);
      D[(size_t)i * w + j] = c[(size_t)i * w + j] + best;
    }
}

#define CHECK(call)                                                                              \
  do {                                                                                           \
    if ((call) != 0) {                                                                           \
      fprintf(stderr, "%s failed: %s\n", #call, ctx ? skss_ctx_last_error(ctx) : "CUDA error"); \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

int main(int argc, char **argv) {
  const int h = argc > 1 ? atoi(argv[1]) : 3001, w = argc > 2 ? atoi(argv[2]) : 4099;
  if (!skss_backend_available(SKSS_BACKEND_CUDA)) {
    printf("minplus: no CUDA device: nothing to run\n");
    return 0;
  }
  const size_t cells = (size_t)h * w;
  std::vector<int> c(cells), got(cells), want(cells);
  unsigned s = 2024;
  for (int &x : c) x = (int)((s = s * 1103515245u + 12345u) >> 25); /* 0 .. 127 */
  skss_ctx *ctx = NULL;
  CHECK(skss_ctx_create(NULL, &ctx));
  skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
  d.rows = h;
  d.cols = (w + 31) / 32;
  d.kind = SKSS_TASKARRAY_KIND_FAIR;
  skss_cuda_taskarray *ta = NULL;
  CHECK(skss_cuda_taskarray_create(ctx, &d, &ta));
  int *dc, *dD, blocks;
  CHECK(cudaMalloc(&dc, cells * sizeof(int)) || cudaMalloc(&dD, cells * sizeof(int)));
  CHECK(cudaMemcpy(dc, c.data(), cells * sizeof(int), cudaMemcpyHostToDevice));
  CHECK(skss_cuda_taskarray_blocks(minplus_kernel, 64, 0, 2, d.rows, &blocks));
  skss_cuda_taskarray_view view;
  CHECK(skss_cuda_taskarray_reset(ta, 0) || skss_cuda_taskarray_get_view(ta, &view));
  minplus_kernel<<<blocks, 64>>>(view, dc, dD, h, w);
  CHECK(skss_cuda_taskarray_check(ta, 0, NULL));
  CHECK(cudaMemcpy(got.data(), dD, cells * sizeof(int), cudaMemcpyDeviceToHost));
  minplus_cpu(c, want, h, w);
  const bool same = got == want;
  printf("min-plus %d x %d: D[h-1][w-1] GPU %d, CPU %d, tables %s\n", h, w, got[cells - 1], want[cells - 1],
         same ? "equal" : "DIFFER");
  cudaFree(dc);
  cudaFree(dD);
  skss_cuda_taskarray_destroy(ta);
  skss_ctx_destroy(ctx);
  return same ? 0 : 1;
}
