/*
 * knapsack_papers.cu — the task-array paper's three GPU knapsack DPs
 * (Funasaka, Nakano, Ito, SKSS task arrays, Section V.A), each filling the
 * whole value table V, capacity-contiguous (V[j][c], the paper's transposed
 * layout), row 0 zero:
 *  - PARALLEL_FORWARD (Boyer, El Baz, Elkihel): one launch per item, a warp
 *    per strip of 32 capacities x 1 item;
 *  - PARALLEL_FAIR_k (O'Connell): strips of 32 capacities x k items, one
 *    launch per diagonal r + J of the fair task array (a strip reads lower
 *    strips of its own item group and earlier groups: earlier diagonals);
 *  - SKSS: one kernel; a warp takes a 32-capacity row by ticket
 *    (skss_cuda.cuh) and walks every item, waiting before item j until the
 *    rows holding capacities c - w_j have finished item j - 1.
 * The walk back reads V itself: item j is taken iff V[j+1][c] != V[j][c].
 */
#include "../taskarray.cuh"
#include "../tuning.h"
#include "knapsack_cuda.cuh"

namespace {

const char *const FN = "skss_knapsack()";

constexpr int PF_THREADS = SKSS_CUDA_KNAP_PAPERS_THREADS;

/* Row j + 1 of V from row j for the capacities of this thread. */
template <typename Cell>
__device__ __forceinline__ void cell_update(const Cell *prev, Cell *next, int c, int w, Cell v) {
  const Cell keep = prev[c];
  const Cell cand = c >= w ? prev[c - w] + v : keep;
  next[c] = c >= w && cand > keep ? cand : keep;
}

template <typename Cell>
__global__ void __launch_bounds__(PF_THREADS) forward_kernel(Cell *V, size_t rc, int cap, int j, int w, Cell v) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c <= cap) cell_update(V + (size_t)j * rc, V + (size_t)(j + 1) * rc, c, w, v);
}

/* Diagonal d: warp t runs strip (r, J) with r = r_lo + t, J = d - r. */
template <typename Cell>
__global__ void __launch_bounds__(PF_THREADS) fair_kernel(Cell *V, size_t rc, int cap, const int *W,
                                                         const long long *Vals, int n, int k, int d,
                                                         int r_lo, int r_hi) {
  const int r = r_lo + (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
  if (r > r_hi) return; /* whole warps leave together: r is the same across a warp */
  const int c = r * 32 + (threadIdx.x & 31), J = d - r;
  const int j_end = min(J * k + k, n);
  for (int j = J * k; j < j_end; j++) {
    if (c <= cap) cell_update(V + (size_t)j * rc, V + (size_t)(j + 1) * rc, c, W[j], static_cast<Cell>(Vals[j]));
    /* the next item reads cells of this strip that other lanes wrote */
    __syncwarp();
  }
}

template <typename Cell>
__global__ void skss_kernel(Cell *V, size_t rc, int cap, const int *W, const long long *Vals, int n,
                            skss_cuda_taskarray_view ta) {
  for (;;) {
    const int r = skss_cuda_warp_take_row(ta);
    if (r >= ta.rows) return;
    const int c = r * 32 + (threadIdx.x & 31);
    for (int j = 0; j < n; j++) {
      const int w = W[j];
      /* rows holding capacities 32r - w .. 32r + 31 - w below row r */
      const int lo = 32 * r - w, hi = 32 * r + 31 - w;
      if (hi >= 0 && lo / 32 < r) {
        const int ra = lo < 0 ? 0 : lo / 32, rb = hi / 32;
        if (ra < r) skss_cuda_warp_wait_row_unchecked(ta, ra, j);
        if (rb < r && rb != ra) skss_cuda_warp_wait_row_unchecked(ta, rb, j);
      }
      if (c <= cap) {
        const Cell *prev = V + (size_t)j * rc;
        const Cell keep = __ldcg(prev + c);
        /* .cg: other warps wrote these cells during this kernel */
        const Cell cand = c >= w ? __ldcg(prev + c - w) + static_cast<Cell>(Vals[j]) : keep;
        V[(size_t)(j + 1) * rc + c] = c >= w && cand > keep ? cand : keep;
      }
      skss_cuda_warp_publish(ta, r, j + 1);
    }
  }
}

template <typename Cell>
__global__ void walk_table_kernel(const Cell *V, size_t rc, int cap, const int *W, int n, uint8_t *chosen) {
  int c = cap;
  for (int j = n - 1; j >= 0; j--) {
    const bool take = V[(size_t)(j + 1) * rc + c] != V[(size_t)j * rc + c];
    chosen[j] = take;
    if (take) c -= W[j];
  }
}

template <typename Cell>
skss_status run(skss_ctx *ctx, int algorithm, const skss__knap_dev_inst *in, skss__knap_dev_items items,
                Cell *V, void *scratch) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t rc = (size_t)skss__knap_row_cells(in->cap);
  const int n = in->items, cap = in->cap, m = cap / 32 + 1;
  const int *W = items.w + in->first;
  const long long *Vals = items.v + in->first;
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(V, 0, rc * sizeof(Cell), stream));
  if (algorithm == SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD) {
    const int blocks = (cap + PF_THREADS) / PF_THREADS;
    for (int j = 0; j < n; j++) {
      forward_kernel<Cell><<<blocks, PF_THREADS, 0, stream>>>(V, rc, cap, j, (int)items.host_w[in->first + j],
                                                              static_cast<Cell>(items.host_v[in->first + j]));
      SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    }
    return SKSS_OK;
  }
  if (algorithm == SKSS_KNAPSACK_ALGORITHM_SKSS) {
    skss_cuda_taskarray_view ta;
    SKSS_CUDA_TRY(ctx, FN, skss__dev_taskarray_reset(&ta, scratch, m, n, stream));
    int per_sm = 0, sms = 0;
    SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, skss__cuda(ctx)->device));
    SKSS_CUDA_TRY(ctx, FN, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, skss_kernel<Cell>, PF_THREADS, 0));
    const long long warps = (long long)(per_sm > 0 ? per_sm : 1) * sms * (PF_THREADS / 32);
    const int blocks = (int)((m < warps ? m : warps) + PF_THREADS / 32 - 1) / (PF_THREADS / 32);
    skss_kernel<Cell><<<blocks, PF_THREADS, 0, stream>>>(V, rc, cap, W, Vals, n, ta);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
    return SKSS_OK;
  }
  const int k = 1 << (algorithm - SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_2 + 1);
  const int groups = (n + k - 1) / k;
  for (int d = 0; groups > 0 && d <= m - 1 + groups - 1; d++) {
    const int r_lo = d - groups + 1 > 0 ? d - groups + 1 : 0, r_hi = d < m - 1 ? d : m - 1;
    const long long threads = (long long)(r_hi - r_lo + 1) * 32;
    const int blocks = (int)((threads + PF_THREADS - 1) / PF_THREADS);
    fair_kernel<Cell><<<blocks, PF_THREADS, 0, stream>>>(V, rc, cap, W, Vals, n, k, d, r_lo, r_hi);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  }
  return SKSS_OK;
}

} // namespace

size_t skss__knap_papers_scratch(int algorithm, long long cap) {
  return algorithm == SKSS_KNAPSACK_ALGORITHM_SKSS ? skss__dev_taskarray_bytes((int)(cap / 32 + 1)) : 0;
}

skss_status skss__knap_papers_run(skss_ctx *ctx, int algorithm, int wide, const skss__knap_dev_inst *in,
                                  skss__knap_dev_items items, void *table, void *scratch) {
  return wide ? run<long long>(ctx, algorithm, in, items, static_cast<long long *>(table), scratch)
              : run<int>(ctx, algorithm, in, items, static_cast<int *>(table), scratch);
}

skss_status skss__knap_papers_walk(skss_ctx *ctx, int wide, const skss__knap_dev_inst *in,
                                   skss__knap_dev_items items, const void *table, uint8_t *chosen) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t rc = (size_t)skss__knap_row_cells(in->cap);
  if (wide)
    walk_table_kernel<long long><<<1, 1, 0, stream>>>(static_cast<const long long *>(table), rc, in->cap,
                                                      items.w + in->first, in->items, chosen);
  else
    walk_table_kernel<int><<<1, 1, 0, stream>>>(static_cast<const int *>(table), rc, in->cap,
                                                items.w + in->first, in->items, chosen);
  SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  return SKSS_OK;
}
