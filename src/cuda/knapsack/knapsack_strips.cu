/*
 * knapsack_strips.cu — SKSS_KNAPSACK_ALGORITHM_STRIPS, our dense DP: a block
 * owns a strip of S capacities (S >= the heaviest item), keeps its cells in
 * registers and shared memory, and walks the items; only the top cells the
 * next item needs (w_{j+1} of them) leave the SM, for the strip above.
 *  - strips are the rows of a forward task array, a block a strip at a time
 *    in bands of P co-resident blocks (a cooperative launch): strip b reads
 *    strip b-1's published cells through a ring of R item slots, strip b-1
 *    waits for its reader only when the ring is full; the top strip of a
 *    band writes every item's cells to a boundary buffer instead, which the
 *    next band's bottom strip reads (two buffers, alternating);
 *  - the cells an item needs from below arrive by cp.async D-1 items ahead;
 *  - decision bits come out of __ballot_sync as 32-bit words (a warp holds
 *    32 consecutive capacities), in the CPU backend's layout;
 *  - a batch whose instances fit one strip runs a block an instance;
 *  - items heavier than the widest strip: one launch an item over two rows
 *    in device memory (rows_kernel).
 * Derivation and measurements: docs/algorithms/knapsack.md.
 */
#include <cuda/atomic>

#include <stdlib.h>

#include "../tuning.h"
#include "knapsack_cuda.cuh"

namespace {

constexpr int D = SKSS_CUDA_KNAP_STRIPS_PREFETCH; /* halo slots in flight + 1 */
constexpr int R = SKSS_CUDA_KNAP_STRIPS_RING;     /* ring slots a block */
static_assert(D >= 2 && D - 1 < R, "the ring must outlast the prefetch");

template <typename Cell>
struct strips_params {
  const skss__knap_dev_inst *inst;
  int units;     /* instances (m == 1) or strips of the one instance */
  const int *w;
  const long long *v;
  int m, S, ne, H;
  int lo, hi;    /* hi < 0: every instance's items */
  const Cell *init;
  Cell *out;
  uint32_t *bits;
  Cell *ckpt;
  int save_every;
  long long *best;
  Cell *ring, *bnd;
  int *progress;
};

/* Thread 0's wait for a strip's progress: returns the value seen (>= need).
 * The strip waited on took its block earlier or is co-resident (the
 * cooperative launch), so it is running. */
__device__ int wait_progress(int *flag, int need) {
  cuda::atomic_ref<int, cuda::thread_scope_device> p(*flag);
  int seen = p.load(cuda::memory_order_acquire);
  unsigned ns = 32;
  /* spin-wait: the strip below (or the reader above) runs on a resident block. */
  while (seen < need) {
    __nanosleep(ns);
    ns = ns < 512 ? ns * 2 : 512;
    seen = p.load(cuda::memory_order_acquire);
  }
  return seen;
}

/* Thread 0 publishes a strip's progress: the block's earlier writes (ordered
 * before thread 0 by the barrier that precedes this) become visible first. */
__device__ void publish(int *flag, int value) {
  /* fence: the block's published cells before the count that announces them. */
  __threadfence();
  cuda::atomic_ref<int, cuda::thread_scope_device> p(*flag);
  p.store(value, cuda::memory_order_release);
}

__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  /* .cg: through L2 only; a ring slot is rewritten, so L1 could hold a stale copy. */
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory"); }

__device__ __forceinline__ int round4(int x) { return (x + 3) & ~3; }

__device__ __forceinline__ int ld_relaxed(int *p) {
  return cuda::atomic_ref<int, cuda::thread_scope_device>(*p).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ int load_cta(int *p) {
  return cuda::atomic_ref<int, cuda::thread_scope_block>(*p).load(cuda::memory_order_acquire);
}
__device__ __forceinline__ void store_cta(int *p, int v) {
  cuda::atomic_ref<int, cuda::thread_scope_block>(*p).store(v, cuda::memory_order_release);
}
/* A compute thread waits for a value the comm warp posts in shared memory. */
__device__ __forceinline__ void wait_cta(int *p, int need) {
  /* spin-wait: the comm warp of this block posts it, and never waits on us;
   * the sleep leaves the issue slots to the warps that have work */
  while (load_cta(p) < need) __nanosleep(20);
}

/* The comm warp's lane 0: every global wait and publication of a strip, so
 * that no compute warp ever stalls on a fence or an L2 round trip. It
 * publishes the items the compute warps say are out (s_done), and posts
 * the progress of the strip below (s_avail) and of the reader (s_freed). */
__device__ void comm_loop(int *progress, int b, int P, int n, bool below, bool reader, bool pub_bnd,
                          int *s_done, int *s_avail, int *s_freed, int *s_go) {
  /* our ring (or boundary buffer) was last read by a strip of an earlier band */
  if (reader && !pub_bnd && b >= P) wait_progress(&progress[b - P + 1], n + 1);
  if (pub_bnd && b >= 2 * P) wait_progress(&progress[b - 2 * P + 1], n + 1);
  store_cta(s_go, 1);
  int published = -1, avail = 0, freed = 0;
  for (;;) {
    bool busy = false;
    const int d = load_cta(s_done);
    if (d > published) {
      publish(&progress[b], d);
      published = d;
      busy = true;
      if (d == n + 1) return;
    }
    /* both neighbours' counts in flight at once; the fence after them makes
     * the loads acquire what those strips published before their counts */
    const int x = below && avail < n - 1 ? ld_relaxed(&progress[b - 1]) : avail;
    const int y = reader && !pub_bnd && freed < n ? ld_relaxed(&progress[b + 1]) : freed;
    if (x > avail || y > freed) {
      /* fence: acquire for the loads above, before the posts below */
      cuda::atomic_thread_fence(cuda::memory_order_acq_rel, cuda::thread_scope_device);
      if (x > avail) store_cta(s_avail, avail = x);
      if (y > freed) store_cta(s_freed, freed = y);
      busy = true;
    }
    /* spin-wait: for the compute warps or a neighbour strip, both running */
    if (!busy) __nanosleep(64);
  }
}

/* KT compute threads and one comm warp; compute warps meet at barrier 1. */
template <int KT>
__device__ __forceinline__ void compute_sync() {
  asm volatile("bar.sync 1, %0;\n" ::"n"(KT) : "memory");
}

template <typename Cell, int KT, int EMAX>
__global__ void __launch_bounds__(KT + 32) strips_kernel(strips_params<Cell> a) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  /* D halo slots of H cells, then the strip's S cells: one array, so that
   * a cell below the strip and one in it are read the same way */
  Cell *smem = reinterpret_cast<Cell *>(smem_raw);
  const int cbase = D * a.H;
  __shared__ int s_done, s_avail, s_freed, s_go;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int P = gridDim.x, p = blockIdx.x, S = a.S, H = a.H;
  constexpr int V4 = 16 / sizeof(Cell); /* cells a 16-byte copy */

  for (int u = p; u < a.units; u += P) {
    const int k_inst = a.m == 1 ? u : 0, b = a.m == 1 ? 0 : u;
    const skss__knap_dev_inst I = a.inst[k_inst];
    const int lo = a.hi < 0 ? 0 : a.lo, n = (a.hi < 0 ? I.items : a.hi) - lo, cap = I.cap;
    const int *W = a.w + I.first + lo;
    const long long *Vv = a.v + I.first + lo;
    const int c0 = b * S;
    const bool below = b > 0, reader = b + 1 < a.m;
    const bool pub_bnd = reader && (b + 1) % P == 0, src_bnd = below && b % P == 0;
    Cell *pub = !reader ? nullptr
                : pub_bnd ? a.bnd + (size_t)((b / P) & 1) * n * H
                          : a.ring + (size_t)p * R * H;
    const Cell *src = !below ? nullptr
                      : src_bnd ? a.bnd + (size_t)(((b - 1) / P) & 1) * n * H
                                : a.ring + (size_t)(p - 1) * R * H;
    if (tid == 0) {
      s_done = -1;
      s_avail = 0;
      s_freed = 0;
      s_go = a.m == 1;
    }
    /* the unit's shared state is reset before either side reads it */
    __syncthreads();
    if (tid >= KT) {
      if (a.m > 1 && lane == 0)
        comm_loop(a.progress, b, P, n, below, reader, pub_bnd, &s_done, &s_avail, &s_freed, &s_go);
      /* the comm warp meets the block's last barrier converged */
      __syncwarp();
    } else {
    Cell own[EMAX];
#pragma unroll
    for (int e = 0; e < EMAX; e++) {
      if (e < a.ne) {
        const int l = e * KT + tid, c = c0 + l;
        own[e] = a.init != nullptr && c <= cap ? a.init[I.row_off + c] : Cell(0);
        smem[cbase + l] = own[e];
      }
    }
    wait_cta(&s_go, 1);

    /* Cells [c0 - hp, c0) of V_{j-1} (hp = w_j rounded up to 4) into halo
     * slot j % D, from the row below's publication (or `init` for j = 0). */
    auto issue_halo = [&](int j) {
      if (below && j < n) {
        const int hp = round4(min(W[j], H));
        Cell *dst = smem + (j % D) * H + (H - hp);
        const Cell *from;
        if (j == 0) {
          if (a.init == nullptr) {
            for (int q = tid; q < hp; q += KT) dst[q] = Cell(0);
            from = nullptr;
          } else {
            from = a.init + I.row_off + c0 - hp;
          }
        } else {
          wait_cta(&s_avail, j); /* V_{j-1} of the strip below is out */
          from = (src_bnd ? src + (size_t)(j - 1) * H : src + (size_t)((j - 1) % R) * H) + (H - hp);
        }
        if (from != nullptr)
          for (int q = tid; q < hp / V4; q += KT) cp_async16(dst + q * V4, from + q * V4);
      }
      cp_async_commit();
    };
#pragma unroll
    for (int j = 0; j < D - 1; j++) issue_halo(j);
    cp_async_wait<D - 2>();
    compute_sync<KT>();

    for (int j = 0; j < n; j++) {
      issue_halo(j + D - 1);
      const int w = W[j];
      const Cell v = static_cast<Cell>(Vv[j]);
      /* the cells hold V_{j-1} until the barrier below: publish its top
       * cells the reader needs (w_j of them) and, at a segment's end, the
       * whole strip as a checkpoint */
      if (reader && j >= 1) {
        const int hp = round4(min(w, H));
        if (!pub_bnd) wait_cta(&s_freed, j - R); /* the reader is past V_{j-1-R}, this slot's last */
        Cell *slot = (pub_bnd ? pub + (size_t)(j - 1) * H : pub + (size_t)((j - 1) % R) * H) + (H - hp);
        for (int q = tid; q < hp; q += KT) slot[q] = smem[cbase + S - hp + q];
      }
      if (a.save_every > 0 && j >= 1 && j % a.save_every == 0) {
        Cell *row = a.ckpt + (size_t)(j / a.save_every - 1) * skss__knap_row_cells(cap);
        for (int q = tid; q < S && c0 + q <= cap; q += KT) row[c0 + q] = smem[cbase + q];
      }
      const int hbase = (j % D) * H + H; /* smem[hbase - k]: capacity c0 - k */
#pragma unroll
      for (int e = 0; e < EMAX; e++) {
        if (e < a.ne) {
          const int l = e * KT + tid, c = c0 + l, sh = l - w;
          const bool ok = c >= w;
          const int at = ok ? (sh < 0 ? hbase : cbase) + sh : cbase;
          const Cell cand = smem[at] + v;
          const bool take = ok && cand > own[e];
          if (take) own[e] = cand;
          if (a.bits != nullptr) {
            const unsigned word = __ballot_sync(0xffffffffu, take && c <= cap);
            const int cw = c0 + e * KT + warp * 32;
            if (lane == 0 && cw <= cap) a.bits[I.bits_off + (size_t)j * I.row_words + cw / 32] = word;
          }
        }
      }
      /* every read of V_{j-1} is done before the cells are overwritten */
      compute_sync<KT>();
#pragma unroll
      for (int e = 0; e < EMAX; e++)
        if (e < a.ne) smem[cbase + e * KT + tid] = own[e];
      /* V_0 .. V_{j-1} are out (written before the barrier above) and
       * V_{j-1} below is read: the comm warp tells the neighbours */
      if (tid == 0 && a.m > 1) store_cta(&s_done, j);
      cp_async_wait<D - 2>();
      /* the next item's halo and this item's cells are in place for every thread */
      compute_sync<KT>();
    }

#pragma unroll
    for (int e = 0; e < EMAX; e++) {
      if (e < a.ne) {
        const int c = c0 + e * KT + tid;
        if (a.out != nullptr && c <= cap) a.out[I.row_off + c] = own[e];
        if (a.best != nullptr && c == cap) a.best[k_inst] = static_cast<long long>(own[e]);
      }
    }
    cp_async_wait<0>();
    /* all of this strip's reads and writes are done before it says so */
    compute_sync<KT>();
    if (tid == 0 && a.m > 1) store_cta(&s_done, n + 1);
    } /* compute threads */
    /* the unit is over for every thread before the next resets its state */
    __syncthreads();
  }
}

/* Items heavier than a strip: one launch an item over rows in device memory. */
template <typename Cell>
__global__ void rows_kernel(const Cell *prev, Cell *next, int cap, int w, Cell v, uint32_t *bits) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  bool take = false;
  if (c <= cap) {
    const Cell keep = prev[c];
    const Cell cand = c >= w ? prev[c - w] + v : keep;
    take = c >= w && cand > keep;
    next[c] = take ? cand : keep;
  }
  if (bits != nullptr) {
    const unsigned word = __ballot_sync(0xffffffffu, take);
    if ((threadIdx.x & 31) == 0 && c - (c & 31) <= cap) bits[c / 32] = word;
  }
}

template <typename Cell>
__global__ void best_kernel(const Cell *row, int cap, long long *best) {
  *best = static_cast<long long>(row[cap]);
}

/* The kernel configurations: KT threads with at most EMAX cells each (no
 * register spills at KT + 32 threads a block on sm_90). */
struct config {
  int kt, emax;
};
constexpr config CONFIGS[] = {{256, 8}, {256, 16}, {512, 16}, {512, 20}};
constexpr int MAX_STRIP = 512 * 20;

template <typename Cell>
void *kernel_of(int kt, int emax) {
  if (kt == 256 && emax == 8) return reinterpret_cast<void *>(strips_kernel<Cell, 256, 8>);
  if (kt == 256) return reinterpret_cast<void *>(strips_kernel<Cell, 256, 16>);
  if (emax == 16) return reinterpret_cast<void *>(strips_kernel<Cell, 512, 16>);
  return reinterpret_cast<void *>(strips_kernel<Cell, 512, 20>);
}

/* The smallest configuration whose strips hold `strip` cells. */
static config config_for(int strip) {
  for (const config &k : CONFIGS)
    if (strip <= k.kt * k.emax) return k;
  return CONFIGS[3];
}

const char *const FN = "skss_knapsack()";

template <typename Cell>
skss_status run_rows(skss_ctx *ctx, const skss__knap_strips_job *job, void *scratch) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const skss__knap_dev_inst &I = job->host_inst[0];
  const size_t row = (size_t)skss__knap_row_cells(I.cap);
  Cell *rows[2] = {static_cast<Cell *>(scratch), static_cast<Cell *>(scratch) + row};
  if (job->init != nullptr)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(rows[0], static_cast<const Cell *>(job->init) + I.row_off,
                                           row * sizeof(Cell), cudaMemcpyDeviceToDevice, stream));
  else
    SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(rows[0], 0, row * sizeof(Cell), stream));
  const int n = job->hi - job->lo;
  const int64_t *w = job->items.host_w + I.first + job->lo, *v = job->items.host_v + I.first + job->lo;
  cudaError_t err = cudaSuccess;
  const int threads = 256, blocks = (I.cap + threads) / threads;
  int cur = 0;
  for (int j = 0; j < n && err == cudaSuccess; j++) {
    uint32_t *bits = job->bits != nullptr ? job->bits + I.bits_off + (size_t)j * I.row_words : nullptr;
    rows_kernel<Cell><<<blocks, threads, 0, stream>>>(rows[cur], rows[cur ^ 1], I.cap, (int)w[j],
                                                       static_cast<Cell>(v[j]), bits);
    err = cudaGetLastError();
    cur ^= 1;
    if (err == cudaSuccess && job->save_every > 0 && (j + 1) % job->save_every == 0 && j + 1 < n)
      err = cudaMemcpyAsync(static_cast<Cell *>(job->ckpt) + (size_t)((j + 1) / job->save_every - 1) * row,
                            rows[cur], row * sizeof(Cell), cudaMemcpyDeviceToDevice, stream);
  }
  SKSS_CUDA_TRY(ctx, FN, err);
  if (job->out != nullptr)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(static_cast<Cell *>(job->out) + I.row_off, rows[cur],
                                           ((size_t)I.cap + 1) * sizeof(Cell), cudaMemcpyDeviceToDevice,
                                           stream));
  if (job->best != nullptr) {
    best_kernel<Cell><<<1, 1, 0, stream>>>(rows[cur], I.cap, job->best);
    SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  }
  return SKSS_OK;
}

template <typename Cell>
skss_status run_strips(skss_ctx *ctx, const skss__knap_strips_job *job,
                       const skss__knap_strips_plan *plan, void *scratch) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  if (!plan->onchip) return run_rows<Cell>(ctx, job, scratch);
  const config k = config_for(plan->strip);
  strips_params<Cell> a = {};
  a.inst = job->inst;
  a.units = plan->strips == 1 ? job->instances : plan->strips;
  a.w = job->items.w;
  a.v = job->items.v;
  a.m = plan->strips;
  a.S = plan->strip;
  a.ne = plan->strip / k.kt;
  a.H = plan->strips > 1 ? plan->halo : 0;
  a.lo = job->lo;
  a.hi = job->hi;
  a.init = static_cast<const Cell *>(job->init);
  a.out = static_cast<Cell *>(job->out);
  a.bits = job->bits;
  a.ckpt = static_cast<Cell *>(job->ckpt);
  a.save_every = job->save_every;
  a.best = job->best;
  void *kern = kernel_of<Cell>(k.kt, k.emax);
  const size_t smem = ((size_t)a.S + (size_t)D * a.H) * sizeof(Cell);
  SKSS_CUDA_TRY(ctx, FN, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  if (plan->strips == 1) {
    const int blocks = job->instances;
    void *args[] = {&a};
    SKSS_CUDA_TRY(ctx, FN, cudaLaunchKernel(kern, dim3(blocks), dim3(k.kt + 32), args, smem, stream));
    return SKSS_OK;
  }
  /* scratch: progress counters, the blocks' rings, two boundary buffers */
  uint8_t *s = static_cast<uint8_t *>(scratch);
  a.progress = reinterpret_cast<int *>(s);
  s += skss__cuda_align(sizeof(int) * (size_t)plan->strips);
  a.ring = reinterpret_cast<Cell *>(s);
  s += skss__cuda_align((size_t)plan->blocks * R * a.H * sizeof(Cell));
  a.bnd = reinterpret_cast<Cell *>(s);
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(a.progress, 0, sizeof(int) * (size_t)plan->strips, stream));
  void *args[] = {&a};
  /* cooperative: every block of a band is resident, so a strip may wait for its reader */
  SKSS_CUDA_TRY(ctx, FN, cudaLaunchCooperativeKernel(kern, dim3(plan->blocks), dim3(k.kt + 32), args, smem, stream));
  return SKSS_OK;
}

} // namespace

skss_status skss__knap_strips_plan_for(skss_ctx *ctx, int wide, int max_weight, long long cap,
                                       long long items, int instances, skss__knap_strips_plan *plan) {
  const size_t cell = wide ? 8 : 4;
  int dev = skss__cuda(ctx)->device, sms = 0, smem_max = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  /* the kernel's own counters share the block's shared memory with the dynamic part */
  cudaFuncAttributes attr;
  SKSS_CUDA_TRY(ctx, FN, cudaFuncGetAttributes(&attr, wide ? kernel_of<long long>(CONFIGS[0].kt, CONFIGS[0].emax)
                                                           : kernel_of<int>(CONFIGS[0].kt, CONFIGS[0].emax)));
  smem_max -= (int)attr.sharedSizeBytes;
  *plan = {};
  plan->halo = (max_weight + 3) & ~3;
  if (plan->halo < 4) plan->halo = 4;
  const long long cells = cap + 1;
  /* a batch of instances that each fit a strip: a block an instance */
  if (instances > 1 || cells <= 32 * 256) {
    const long long width = (cells + 31) / 32 * 32;
    if (width <= MAX_STRIP && (size_t)width * cell <= (size_t)smem_max) {
      const config k = config_for((int)width);
      plan->strip = (int)((width + k.kt - 1) / k.kt * k.kt);
      plan->strips = 1;
      plan->blocks = instances;
      plan->onchip = true;
      plan->scratch = 0;
      return SKSS_OK;
    }
    if (instances > 1) {
      plan->strips = 0; /* the caller runs the instances one at a time */
      return SKSS_OK;
    }
  }
  /* one instance: about two strips an SM (a knob for tuning: SKSS_KNAP_STRIP cells) */
  long long strip = (cells + 2LL * sms - 1) / (2LL * sms);
  const char *knob = getenv("SKSS_KNAP_STRIP");
  if (knob != nullptr && atoll(knob) > 0) strip = atoll(knob);
  if (strip < plan->halo) strip = plan->halo;
  /* the width a strip of `st` cells takes: rounded up to its configuration's threads */
  auto rounded = [](long long st) {
    const config k = config_for((int)st);
    return (st + k.kt - 1) / k.kt * k.kt;
  };
  strip = (strip + 255) / 256 * 256;
  if (strip > MAX_STRIP) strip = MAX_STRIP;
  while (strip >= plan->halo && (size_t)(rounded(strip) + (long long)D * plan->halo) * cell > (size_t)smem_max)
    strip -= 256;
  if (strip < plan->halo || strip < 256) {
    plan->onchip = false; /* items heavier than any strip: rows in device memory */
    plan->strips = 1;
    plan->scratch = 2 * (size_t)skss__knap_row_cells(cap) * cell;
    return SKSS_OK;
  }
  const config k = config_for((int)strip);
  plan->strip = (int)((strip + k.kt - 1) / k.kt * k.kt);
  plan->strips = (int)((cells + plan->strip - 1) / plan->strip);
  plan->onchip = true;
  const size_t smem = ((size_t)plan->strip + (size_t)D * plan->halo) * cell;
  void *kern = wide ? kernel_of<long long>(k.kt, k.emax) : kernel_of<int>(k.kt, k.emax);
  int per_sm = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  SKSS_CUDA_TRY(ctx, FN, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, k.kt + 32, smem));
  if (per_sm < 1) per_sm = 1;
  const long long resident = (long long)per_sm * sms;
  plan->blocks = (int)(plan->strips < resident ? plan->strips : resident);
  if (plan->strips == 1) plan->halo = 0;
  size_t bnd = plan->strips > plan->blocks ? 2 * (size_t)items * plan->halo * cell : 0;
  plan->scratch = skss__cuda_align(sizeof(int) * (size_t)plan->strips) +
                  skss__cuda_align((size_t)plan->blocks * R * plan->halo * cell) + skss__cuda_align(bnd);
  return SKSS_OK;
}

skss_status skss__knap_strips_run(skss_ctx *ctx, const skss__knap_strips_job *job,
                                  const skss__knap_strips_plan *plan, void *scratch) {
  return job->wide ? run_strips<long long>(ctx, job, plan, scratch) : run_strips<int>(ctx, job, plan, scratch);
}
