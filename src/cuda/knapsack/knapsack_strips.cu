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
 *  - the cells an item needs from below arrive by cp.async one item
 *    ahead, straight into the halo of the row that item reads;
 *  - decision bits come out of __ballot_sync as 32-bit words in the CPU
 *    backend's layout; a warp holds 32 E consecutive capacities, so its E
 *    words of an item go out in one store;
 *  - a batch whose instances fit one strip runs a block an instance;
 *  - items heavier than the widest strip: one launch an item over two rows
 *    in device memory (rows_kernel).
 * Derivation and measurements: docs/algorithms/knapsack.md.
 */
#include <cuda/atomic>
#include <cuda/std/limits>

#include <stdlib.h>

#include "../tuning.h"
#include "knapsack_cuda.cuh"

namespace {

constexpr int R = SKSS_CUDA_KNAP_STRIPS_RING;     /* ring slots a block */
static_assert(R >= 4 && (R & (R - 1)) == 0, "a ring of a power of two slots, past the prefetch");

template <typename Cell>
struct strips_params {
  const skss__knap_dev_inst *inst;
  int units;     /* instances (m == 1) or strips of the one instance */
  const int *w;
  const long long *v;
  int m, S, H;
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
/* The block's shared flags: atomics (racecheck leaves them alone, as it
 * does not ordinary accesses) with block fences for acquire and release. */
__device__ __forceinline__ int load_cta(int *p) {
  const int v = atomicAdd(p, 0);
  /* fence: what the poster wrote before the flag is read after it */
  __threadfence_block();
  return v;
}
__device__ __forceinline__ void store_cta(int *p, int v) {
  /* fence: this thread's writes (and those a barrier ordered before it) precede the flag */
  __threadfence_block();
  atomicExch(p, v);
}
/* A compute thread waits for a value the comm warp posts in shared memory;
 * returns the value seen (>= need). */
__device__ __forceinline__ int wait_cta(int *p, int need) {
  int seen;
  /* spin-wait: the comm warp of this block posts it, and never waits on us;
   * the sleep leaves the issue slots to the warps that have work */
  while ((seen = load_cta(p)) < need) __nanosleep(20);
  return seen;
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

template <typename Cell, int KT, int E>
__global__ void __launch_bounds__(KT + 32, 1) strips_kernel(strips_params<Cell> a) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  /* Two rows, each [H halo cells][S strip cells]: item j reads row (j+1)&1
   * (V_{j-1}, with capacities c0 - H .. c0 - 1 of the strip below in its
   * halo) and writes row j&1, so one barrier an item suffices. Every cell
   * reads row[H + l - w] with no test: in the bottom strip the halo holds
   * the lowest Cell, and lowest + v < 0 <= V takes nothing. Item j + 1's
   * halo lands by cp.async in row j & 1 while item j runs. */
  Cell *smem = reinterpret_cast<Cell *>(smem_raw);
  const int H = a.H, RW = H + KT * E; /* cells a row */
  __shared__ int s_done, s_avail, s_freed, s_go;
  /* the items, KT at a time, two chunks staged: weight, halo width, value */
  __shared__ int s_w[2][KT], s_hp[2][KT];
  __shared__ Cell s_v[2][KT];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  /* a warp's cells are 32 E consecutive capacities, cell e of a lane at
   * mine + 32 e: a warp's decision bits of an item are E consecutive words */
  const int mine = warp * 32 * E + lane;
  const int P = gridDim.x, p = blockIdx.x;
  constexpr int S = KT * E;
  constexpr int V4 = 16 / sizeof(Cell); /* cells a 16-byte copy */
  const Cell lowest = cuda::std::numeric_limits<Cell>::min();

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
    /* chunk k of the items into buffer k & 1 (read after a barrier) */
    auto stage_items = [&](int k) {
      const int j = k * KT + tid;
      if (j < n) {
        const int w = W[j];
        s_w[k & 1][tid] = w;
        s_hp[k & 1][tid] = round4(min(w, H));
        s_v[k & 1][tid] = static_cast<Cell>(Vv[j]);
      }
    };
    stage_items(0);
    stage_items(1);
    Cell own[E];
    Cell *row1 = smem + RW; /* V_{-1}: read by item 0 */
#pragma unroll
    for (int e = 0; e < E; e++) {
      const int l = mine + e * 32, c = c0 + l;
      own[e] = a.init != nullptr && c <= cap ? a.init[I.row_off + c] : Cell(0);
    }
    if (!below)
      for (int q = tid; q < H; q += KT) smem[q] = row1[q] = lowest;
    wait_cta(&s_go, 1);
    /* the first two chunks of items are staged for every thread */
    compute_sync<KT>();

    /* hp = w rounded up to 4 (at most H): the halo cells an item reads */
    auto halo_of = [&](int j) { return s_hp[(j / KT) & 1][j % KT]; };
    /* Cells [c0 - hp, c0) of V_{j-1} into the halo of row (j + 1) & 1,
     * which item j reads, from the strip below's publication of item
     * j - 1 (`init` for j = 0, zeros without); the strip below's progress
     * is >= j (checked before). One cp.async group each call. */
    auto fetch_halo = [&](int j) {
      if (below && j < n) {
        const int hp = halo_of(j);
        Cell *dst = smem + ((j + 1) & 1) * RW + (H - hp);
        /* the source of the halo; only the threads that copy compute it */
        auto from_of = [&]() -> const Cell * {
          return j == 0 ? a.init + I.row_off + c0 - hp
                        : (src_bnd ? src + (size_t)(j - 1) * H : src + (size_t)((j - 1) & (R - 1)) * H) + (H - hp);
        };
        if (j == 0 && a.init == nullptr) {
          for (int q = tid; q < hp; q += KT) dst[q] = Cell(0);
        } else if (H <= KT * V4) { /* a chunk a thread at most: no loop */
          if (tid < hp / V4) cp_async16(dst + tid * V4, from_of() + tid * V4);
        } else {
          const Cell *from = from_of();
#pragma unroll 1
          for (int q = tid; q < hp / V4; q += KT) cp_async16(dst + q * V4, from + q * V4);
        }
      }
      cp_async_commit();
    };
#pragma unroll
    for (int e = 0; e < E; e++) row1[H + mine + e * 32] = own[e];
    fetch_halo(0);
    cp_async_wait<0>();
    /* item 0 fetches item 1's halo: the strip below is past item 0 */
    if (tid == 0 && below && 1 < n) wait_cta(&s_avail, 1);
    /* the first row and its halo are in place for every thread */
    compute_sync<KT>();

    int to_ckpt = a.save_every; /* items to the next checkpoint row */
    /* thread 0's last sight of the neighbours' progress: a post is read
     * only when the last one seen does not cover the next item */
    int seen_avail = 1, seen_freed = 0;
    for (int j = 0; j < n; j++) {
      /* chunk j / KT - 1 is done with: its buffer takes the chunk after this one */
      if (j % KT == 0 && j > 0) stage_items(j / KT + 1);
      /* the next prefetch: the strip below's progress was checked before the barrier */
      fetch_halo(j + 1);
      const int w = s_w[(j / KT) & 1][j % KT];
      const Cell v = s_v[(j / KT) & 1][j % KT];
      Cell *rd = smem + ((j + 1) & 1) * RW, *wr = smem + (j & 1) * RW;
      /* V_{j-1}[c - w] for this thread's capacities c = c0 + mine + 32 e */
      const Cell *shifted = rd + H + mine - w;
      /* G shifted cells are loaded before any is stored: the compiler cannot
       * tell the two rows apart, and would otherwise wait out a shared-memory
       * load's latency a cell */
      constexpr int G = E % 16 == 0 ? 16 : E % 8 == 0 ? 8 : E;
      if (a.bits == nullptr) {
#pragma unroll
        for (int g = 0; g < E; g += G) {
          Cell sh[G];
#pragma unroll
          for (int e = 0; e < G; e++) sh[e] = shifted[(g + e) * 32];
#pragma unroll
          for (int e = 0; e < G; e++) {
            own[g + e] = max(own[g + e], sh[e] + v);
            wr[H + mine + (g + e) * 32] = own[g + e];
          }
        }
      } else {
        /* this warp's E words of item j; lane e & 31 keeps word e in wb[e / 32],
         * and the warp stores them together */
        uint32_t *brow = a.bits + I.bits_off + (size_t)j * I.row_words + c0 / 32 + warp * E;
        const int room = cap - (c0 + warp * 32 * E); /* capacities of word 0 at or below cap, less 1 */
        uint32_t wb[(E + 31) / 32] = {};
#pragma unroll
        for (int g = 0; g < E; g += G) {
          Cell sh[G];
#pragma unroll
          for (int e = 0; e < G; e++) sh[e] = shifted[(g + e) * 32];
#pragma unroll
          for (int i = 0; i < G; i++) {
            const int e = g + i;
            const Cell cand = sh[i] + v;
            const bool take = cand > own[e];
            if (take) own[e] = cand;
            wr[H + mine + e * 32] = own[e];
            const unsigned word = __ballot_sync(0xffffffffu, take);
            if (lane == (e & 31)) wb[e / 32] = word;
          }
        }
#pragma unroll
        for (int q = 0; q < (E + 31) / 32; q++) {
          const int e = q * 32 + lane, left = room - e * 32;
          if (e < E && left >= 0) brow[e] = left < 31 ? wb[q] & (0xffffffffu >> (31 - left)) : wb[q]; /* no bits past cap */
        }
      }
      /* V_j's top cells, those the strip above reads for item j + 1, from the registers */
      if (reader && j + 1 < n && (warp + 1) * 32 * E > S - halo_of(j + 1)) {
        /* this warp holds some of the top cells: the others skip the slot's address too */
        const int hp = halo_of(j + 1);
        Cell *slot = (pub_bnd ? pub + (size_t)j * H : pub + (size_t)(j & (R - 1)) * H) + (H - S);
        /* from the top cell group down, and no further than the halo: the
         * break is the same for every thread, so the groups below it cost
         * nothing (a test of every group was 40% of an item's instructions) */
#pragma unroll
        for (int e = E - 1; e >= 0; e--) {
          if (warp * 32 * E + e * 32 + 31 < S - hp) break; /* the same for the whole warp */
          if (mine + e * 32 >= S - hp) slot[mine + e * 32] = own[e];
        }
      }
      /* after a segment's items, the strip as a checkpoint row */
      if (a.save_every > 0 && --to_ckpt == 0 && j + 1 < n) {
        to_ckpt = a.save_every;
        Cell *row = a.ckpt + (size_t)((j + 1) / a.save_every - 1) * skss__knap_row_cells(cap);
#pragma unroll
        for (int e = 0; e < E; e++)
          if (c0 + mine + e * 32 <= cap) row[c0 + mine + e * 32] = own[e];
      }
      cp_async_wait<0>();
      if (tid == 0 && a.m > 1) {
        /* what the next item needs of the neighbours: the strip below's
         * item j + 1 for the next fetch, the reader past the slot to reuse */
        if (below && j + 2 < n && seen_avail < j + 2) seen_avail = wait_cta(&s_avail, j + 2);
        if (reader && !pub_bnd && j + 2 < n && seen_freed < j + 2 - R) seen_freed = wait_cta(&s_freed, j + 2 - R);
      }
      /* row j&1, its halo, the published cells and the next item's slot are in place */
      compute_sync<KT>();
      /* V_0 .. V_j are out and the halos through item j + 1 are read: the comm warp tells the neighbours */
      if (tid == 0 && a.m > 1) store_cta(&s_done, j + 1);
    }

#pragma unroll
    for (int e = 0; e < E; e++) {
      const int c = c0 + mine + e * 32;
      if (a.out != nullptr && c <= cap) a.out[I.row_off + c] = own[e];
      if (a.best != nullptr && c == cap) a.best[k_inst] = static_cast<long long>(own[e]);
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

/* The kernel configurations: KT threads with E cells each, strips of
 * KT E cells (no register spills at KT + 32 threads a block on sm_90). */
constexpr int KT = 256;
constexpr int CELLS[] = {4, 8, 16, 24, 40};
constexpr int N_CONFIGS = sizeof CELLS / sizeof CELLS[0];
constexpr int MAX_STRIP = KT * CELLS[N_CONFIGS - 1];

/* ... and with 4-byte cells, 512 threads of 8 or 20 cells for the strips
 * of 4096 and 10240: twice the warps to hide an item's latencies. */
constexpr int KT_WIDE = 512;

template <typename Cell>
void *kernel_of(int strip, int threads = KT) {
  if constexpr (sizeof(Cell) == 4) {
    if (threads == KT_WIDE) return strip == KT_WIDE * 8 ? reinterpret_cast<void *>(strips_kernel<Cell, KT_WIDE, 8>)
                                                        : reinterpret_cast<void *>(strips_kernel<Cell, KT_WIDE, 20>);
  }
  switch (strip / KT) {
  case 4: return reinterpret_cast<void *>(strips_kernel<Cell, KT, 4>);
  case 8: return reinterpret_cast<void *>(strips_kernel<Cell, KT, 8>);
  case 16: return reinterpret_cast<void *>(strips_kernel<Cell, KT, 16>);
  case 24: return reinterpret_cast<void *>(strips_kernel<Cell, KT, 24>);
  default: return reinterpret_cast<void *>(strips_kernel<Cell, KT, 40>);
  }
}

/* The narrowest strip of a configuration holding `cells` (MAX_STRIP past all). */
static int strip_for(long long cells) {
  for (int e : CELLS)
    if (cells <= (long long)KT * e) return KT * e;
  return MAX_STRIP;
}

/* Dynamic shared memory of a strip: two rows with their halos. */
static size_t smem_of(int strip, int halo, size_t cell) {
  return 2 * ((size_t)strip + (size_t)halo) * cell;
}

const char *const FN = "skss_knapsack()";

/* Threads of a strip's block: KT_WIDE for 4-byte strips of 4096 or 10240
 * cells that write decision bits (tuning.h), else KT. */
static int threads_for(int strip, size_t cell, int bits) {
  const bool wide_block = SKSS_CUDA_KNAP_STRIPS_WIDE_WITH_BITS && bits;
  return wide_block && cell == 4 && (strip == KT_WIDE * 8 || strip == KT_WIDE * 20) ? KT_WIDE : KT;
}

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
  strips_params<Cell> a = {};
  a.inst = job->inst;
  a.units = plan->strips == 1 ? job->instances : plan->strips;
  a.w = job->items.w;
  a.v = job->items.v;
  a.m = plan->strips;
  a.S = plan->strip;
  a.H = plan->halo;
  a.lo = job->lo;
  a.hi = job->hi;
  a.init = static_cast<const Cell *>(job->init);
  a.out = static_cast<Cell *>(job->out);
  a.bits = job->bits;
  a.ckpt = static_cast<Cell *>(job->ckpt);
  a.save_every = job->save_every;
  a.best = job->best;
  void *kern = kernel_of<Cell>(plan->strip, plan->threads);
  const size_t smem = smem_of(plan->strip, a.H, sizeof(Cell));
  SKSS_CUDA_TRY(ctx, FN, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  if (plan->strips == 1) {
    const int blocks = job->instances;
    void *args[] = {&a};
    SKSS_CUDA_TRY(ctx, FN, cudaLaunchKernel(kern, dim3(blocks), dim3(plan->threads + 32), args, smem, stream));
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
  SKSS_CUDA_TRY(ctx, FN,
                cudaLaunchCooperativeKernel(kern, dim3(plan->blocks), dim3(plan->threads + 32), args, smem, stream));
  return SKSS_OK;
}

} // namespace

skss_status skss__knap_strips_plan_for(skss_ctx *ctx, int wide, int bits, int max_weight, long long cap,
                                       long long items, int instances, skss__knap_strips_plan *plan) {
  const size_t cell = wide ? 8 : 4;
  int dev = skss__cuda(ctx)->device, sms = 0, smem_max = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  SKSS_CUDA_TRY(ctx, FN, cudaDeviceGetAttribute(&smem_max, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  /* the kernel's own counters share the block's shared memory with the dynamic part */
  cudaFuncAttributes attr;
  SKSS_CUDA_TRY(ctx, FN, cudaFuncGetAttributes(&attr, wide ? kernel_of<long long>(KT * CELLS[0])
                                                           : kernel_of<int>(KT * CELLS[0])));
  smem_max -= (int)attr.sharedSizeBytes;
  *plan = {};
  plan->threads = KT;
  plan->halo = (max_weight + 3) & ~3;
  if (plan->halo < 4) plan->halo = 4;
  const long long cells = cap + 1;
  /* a batch of instances that each fit a strip: a block an instance */
  if (instances > 1 || cells <= (long long)KT * CELLS[1]) {
    const int width = strip_for(cells);
    if (cells <= width && plan->halo <= width && smem_of(width, plan->halo, cell) <= (size_t)smem_max) {
      plan->strip = width;
      plan->strips = 1;
      plan->blocks = instances;
      plan->onchip = true;
      plan->scratch = 0;
      plan->threads = threads_for(width, cell, bits);
      return SKSS_OK;
    }
    if (instances > 1) {
      plan->strips = 0; /* the caller runs the instances one at a time */
      return SKSS_OK;
    }
  }
  /* one instance: the narrowest strips that leave no SM without one, so
   * that few strips pass halos (a knob for tuning: SKSS_KNAP_STRIP cells) */
  long long want = (cells + sms - 1) / sms;
  const char *knob = getenv("SKSS_KNAP_STRIP");
  if (knob != nullptr && atoll(knob) > 0) want = atoll(knob);
  int strip = strip_for(want > plan->halo ? want : plan->halo);
  /* narrower while the shared memory does not hold it */
  int c = N_CONFIGS - 1;
  while (c >= 0 && KT * CELLS[c] > strip) c--;
  while (c >= 0 && smem_of(KT * CELLS[c], plan->halo, cell) > (size_t)smem_max) c--;
  if (c < 0 || KT * CELLS[c] < plan->halo) {
    plan->onchip = false; /* items heavier than any strip: rows in device memory */
    plan->strips = 1;
    plan->scratch = 2 * (size_t)skss__knap_row_cells(cap) * cell;
    return SKSS_OK;
  }
  plan->strip = KT * CELLS[c];
  plan->strips = (int)((cells + plan->strip - 1) / plan->strip);
  plan->onchip = true;
  plan->threads = threads_for(plan->strip, cell, bits);
  const size_t smem = smem_of(plan->strip, plan->halo, cell);
  void *kern = wide ? kernel_of<long long>(plan->strip, plan->threads) : kernel_of<int>(plan->strip, plan->threads);
  int per_sm = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
  SKSS_CUDA_TRY(ctx, FN, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kern, plan->threads + 32, smem));
  if (per_sm < 1) per_sm = 1;
  const long long resident = (long long)per_sm * sms;
  plan->blocks = (int)(plan->strips < resident ? plan->strips : resident);
  if (plan->strips == 1) {
    plan->scratch = 0;
    return SKSS_OK;
  }
  size_t bnd = plan->strips > plan->blocks ? 2 * (size_t)items * plan->halo * cell : 0;
  plan->scratch = skss__cuda_align(sizeof(int) * (size_t)plan->strips) +
                  skss__cuda_align((size_t)plan->blocks * R * plan->halo * cell) + skss__cuda_align(bnd);
  return SKSS_OK;
}

skss_status skss__knap_strips_run(skss_ctx *ctx, const skss__knap_strips_job *job,
                                  const skss__knap_strips_plan *plan, void *scratch) {
  return job->wide ? run_strips<long long>(ctx, job, plan, scratch) : run_strips<int>(ctx, job, plan, scratch);
}
