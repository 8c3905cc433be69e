/*
 * lcs.cu — the length of a longest common subsequence of two long strings on
 * the GPU with skss's task-array scheduler (include/skss_cuda.cuh), checked
 * against a CPU loop. L[i][j] = a[i-1] == b[j-1] ? L[i-1][j-1] + 1 :
 * max(L[i-1][j], L[i][j-1]). Task (I, J) is the 32 x 32 tile of rows 32I+1..
 * and columns 32J+1..; a warp takes a strip of 32 rows (one a lane) and walks
 * its tiles left to right, a diagonal wavefront inside each tile (lane r is
 * 32 + r steps behind). A tile needs the strip above's bottom row, which
 * travels through a ring of two global rows; its rule names task (I-1, J).
 */
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <vector>

#include "skss_cuda.cuh"

/* Task (I, J) waits for (I-1, J); its left neighbour is the warp's own order. */
struct above {
  __device__ int operator()(int I, int J, skss_cuda_task *deps) const {
    if (I == 0) return 0;
    deps[0] = skss_cuda_task{I - 1, J};
    return 1;
  }
};

__global__ void lcs_kernel(skss_cuda_taskarray_view v, const char *a, int m, const char *b, int n, int *ring,
                           int *result) {
  const int lane = threadIdx.x & 31;
  for (int I = skss_cuda_warp_take_row(v); I < v.rows; I = skss_cuda_warp_take_row(v)) {
    const int i = 32 * I + lane + 1; /* this lane's row of L */
    const char ai = i <= m ? a[i - 1] : 0;
    const int *up = ring + (size_t)((I + 1) % 2) * (n + 1); /* row 32I, the strip above's last */
    int *down = ring + (size_t)(I % 2) * (n + 1);           /* row 32I + 32, for the strip below */
    int cur = 0, diag = 0;                                  /* L[i][j-1] and L[i-1][j-1] */
    for (int J = 0; J < v.cols; J++) {
      skss_cuda_warp_wait_task(v, I, J, above());
      for (int t = 0; t < 64; t++) {
        const int j = 32 * J + 1 + t - lane;
        const int from_above = __shfl_up_sync(0xffffffffu, cur, 1); /* lane - 1's L[i-1][j] */
        if (t < lane || t > lane + 31 || j > n || i > m) continue;
        const int upv = lane > 0 ? from_above : (I > 0 ? up[j] : 0);
        const int next = ai == b[j - 1] ? diag + 1 : max(upv, cur);
        diag = upv;
        cur = next;
        if (lane == 31 && I + 1 < v.rows) down[j] = cur;
        if (i == m && j == n) *result = cur;
      }
      skss_cuda_warp_publish(v, I, J + 1);
    }
  }
}

static int lcs_cpu(const std::vector<char> &a, const std::vector<char> &b) {
  std::vector<int> prev(b.size() + 1, 0), row(b.size() + 1, 0);
  for (size_t i = 1; i <= a.size(); i++) {
    for (size_t j = 1; j <= b.size(); j++)
      row[j] = a[i - 1] == b[j - 1] ? prev[j - 1] + 1 : std::max(prev[j], row[j - 1]);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

#define CHECK(call)                                                                              \
  do {                                                                                           \
    if ((call) != 0) {                                                                           \
      fprintf(stderr, "%s failed: %s\n", #call, ctx ? skss_ctx_last_error(ctx) : "CUDA error"); \
      return 1;                                                                                  \
    }                                                                                            \
  } while (0)

int main(int argc, char **argv) {
  const int m = argc > 1 ? atoi(argv[1]) : 20011, n = argc > 2 ? atoi(argv[2]) : 16411;
  if (!skss_backend_available(SKSS_BACKEND_CUDA)) {
    printf("lcs: no CUDA device: nothing to run\n");
    return 0;
  }
  std::vector<char> a(m), b(n);
  unsigned s = 12345;
  for (char &c : a) c = "ACGT"[(s = s * 1103515245u + 12345u) >> 30];
  for (char &c : b) c = "ACGT"[(s = s * 1103515245u + 12345u) >> 30];
  skss_ctx *ctx = NULL;
  CHECK(skss_ctx_create(NULL, &ctx));
  skss_cuda_taskarray_desc d = SKSS_CUDA_TASKARRAY_DESC_INIT;
  d.rows = (m + 31) / 32;
  d.cols = (n + 31) / 32;
  d.kind = SKSS_TASKARRAY_KIND_FAIR;
  skss_cuda_taskarray *ta = NULL;
  CHECK(skss_cuda_taskarray_create(ctx, &d, &ta));
  char *da, *db;
  int *ring, *result, blocks, got = -1;
  CHECK(cudaMalloc(&da, m + 1) || cudaMalloc(&db, n + 1) || cudaMalloc(&ring, 2 * (n + 1) * sizeof(int)) ||
        cudaMalloc(&result, sizeof(int)));
  CHECK(cudaMemcpy(da, a.data(), m, cudaMemcpyHostToDevice) || cudaMemcpy(db, b.data(), n, cudaMemcpyHostToDevice) ||
        cudaMemset(ring, 0, 2 * (n + 1) * sizeof(int)) || cudaMemset(result, 0, sizeof(int)));
  CHECK(skss_cuda_taskarray_blocks(lcs_kernel, 64, 0, 2, d.rows, &blocks));
  skss_cuda_taskarray_view view;
  CHECK(skss_cuda_taskarray_reset(ta, 0) || skss_cuda_taskarray_get_view(ta, &view));
  lcs_kernel<<<blocks, 64>>>(view, da, m, db, n, ring, result);
  CHECK(skss_cuda_taskarray_check(ta, 0, NULL));
  CHECK(cudaMemcpy(&got, result, sizeof got, cudaMemcpyDeviceToHost));
  const int want = lcs_cpu(a, b);
  printf("lcs of %d and %d characters: GPU %d, CPU %d\n", m, n, got, want);
  cudaFree(da);
  cudaFree(db);
  cudaFree(ring);
  cudaFree(result);
  skss_cuda_taskarray_destroy(ta);
  skss_ctx_destroy(ctx);
  return got == want ? 0 : 1;
}
