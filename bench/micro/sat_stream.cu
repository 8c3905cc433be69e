/*
 * sat_stream.cu — microbenchmark of the traffic floors of a 16K x 16K
 * summed-area table: how fast the device moves the SAT's bytes
 * with no arithmetic and no carries between blocks.
 *
 *   memcpy     cudaMemcpyAsync device to device, 1 GiB (f32 -> f32's bytes)
 *   copy       a streaming kernel: 16-byte loads, 16-byte stores, 1 GiB
 *   widen      u8 -> u32: 4-byte loads, 16-byte stores (u8 -> u32's bytes:
 *              256 MiB read, 1 GiB written)
 *   write      16-byte stores only, 1 GiB
 *   read       16-byte loads only, 1 GiB (summed so they are not dropped)
 *   tiled ...  the one-pass SAT's access pattern without its carries: a
 *              block per tile of 16 x warps rows, each warp 128 adjacent
 *              columns an instruction, loads and stores straight from
 *              registers; tiles taken in row-major or anti-diagonal order
 *              (as onepass tickets them). f32 -> f32 and u8 -> u32 in
 *              onepass's shape (64 x 128), and u8 -> u32 in larger tiles
 *              (64 x 256, 128 x 256, 64 x 512): what a u8 one-pass kernel
 *              with fewer carries a byte could reach.
 *   staged ... the tile pattern staged through shared memory as onepass
 *              stages it, a block of 4 warps a tile: loaded by cp.async
 *              (onepass's way) or by the bulk copy engine (cp.async.bulk, a
 *              copy a row, on an mbarrier), stored from registers (each
 *              lane its own adjacent columns: more than 16 bytes a lane
 *              leaves each store instruction writing half of every sector
 *              it touches), restaged through a row in shared memory (16-byte
 *              words lane by lane) or by bulk copies; in both orders. Each
 *              form is checked on sampled elements before it is timed.
 *   4K ...     memcpy and the f32 tile pattern (64 x 128 and 32 x 128) at
 *              4K x 4K, where the target is 50 us: batches of 20
 *              launches, so that the host's launch latency is hidden as in
 *              `skss bench`.
 *
 * Printed: median ms of 5 launches after a warm-up and GB/s (bytes read
 * plus written). The one-pass SAT's share of the copy bandwidth is counted
 * against memcpy; widen says what share of it a kernel writing four bytes
 * per byte read can reach at all.
 * Built in CUDA builds as skss_micro_sat_stream; run by scripts/gpu-check.
 */
#include <cstring>

#include <cuda_pipeline.h>

#include "micro_common.cuh"

namespace {

constexpr size_t PIXELS = (size_t)16384 * 16384;

/* Each thread handles 16-byte words i, i + stride, ... (grid-stride). */
__global__ void copy16(const uint4 *__restrict__ in, uint4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    __stcs(out + i, __ldcs(in + i));
}

__global__ void widen(const uchar4 *__restrict__ in, uint4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uchar4 v = __ldcs(in + i);
    __stcs(out + i, make_uint4(v.x, v.y, v.z, v.w));
  }
}

__global__ void write16(uint4 *__restrict__ out, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    __stcs(out + i, make_uint4((unsigned)i, 0, 0, 0));
}

__global__ void read16(const uint4 *__restrict__ in, size_t n, unsigned *sink) {
  unsigned acc = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    const uint4 v = __ldcs(in + i);
    acc += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc; /* keeps the loads */
}

/* A pattern to copy, so that a misplaced row shows in the check. */
__global__ void fill(unsigned *a, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = (unsigned)(i * 2654435761u) & 0x3f7fffffu; /* finite floats */
}

/* Small cases: ms per launch of batches of 20 back-to-back launches (the
 * host's launch latency hidden behind the queue), median of 5. */
template <typename F>
double batch_median_ms(F launch) {
  return micro_median_ms([&]() {
           for (int k = 0; k < 20; k++) launch();
         }) /
         20;
}

void report(const char *name, double ms, double bytes) {
  printf("%-22s %8.3f ms %8.0f GB/s\n", name, ms, bytes / (ms * 1e-3) / 1e9);
}

/* The tile of block b: row-major, or the host-made anti-diagonal order.
 * A tile is WARPS x 16 rows of 128 J columns; lane l of warp w moves
 * columns 128 j + 4 l .. + 3 (j < J) of 16 rows, so that every load and
 * store instruction of a warp covers 128 adjacent columns. */
template <typename In, typename Out, int J, int WARPS, int W>
__global__ void __launch_bounds__(32 * WARPS) tiled(const In *__restrict__ in, Out *__restrict__ out, int across,
                                                    const int2 *order) {
  const int b = blockIdx.x;
  const int2 tile = order ? order[b] : make_int2(b / across, b % across);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const size_t r0 = (size_t)tile.x * 16 * WARPS + warp * 16, c0 = (size_t)tile.y * 128 * J + lane * 4;
  struct alignas(sizeof(In) * 4) InVec { In v[4]; };
  struct alignas(16) OutVec { Out v[4]; };
  InVec x[16][J];
#pragma unroll
  for (int k = 0; k < 16; k++)
#pragma unroll
    for (int j = 0; j < J; j++) x[k][j] = *reinterpret_cast<const InVec *>(in + (r0 + k) * W + c0 + 128 * j);
#pragma unroll
  for (int k = 0; k < 16; k++)
#pragma unroll
    for (int j = 0; j < J; j++) {
      OutVec y;
#pragma unroll
      for (int c = 0; c < 4; c++) y.v[c] = (Out)x[k][j].v[c];
      *reinterpret_cast<OutVec *>(out + (r0 + k) * W + c0 + 128 * j) = y;
    }
}

/* Anti-diagonal order of a down x across tile grid: diagonal d = ts + tp, from the top. */
std::vector<int2> diagonal_order(int down, int across) {
  std::vector<int2> o;
  for (int d = 0; d < down + across - 1; d++)
    for (int ts = std::max(0, d - across + 1); ts <= std::min(d, down - 1); ts++) o.push_back(make_int2(ts, d - ts));
  return o;
}

/* (the width a template argument: a run-time one made the 16K kernels 3-60%
 * slower, their row addresses no longer constants) */
template <typename In, typename Out, int J = 1, int WARPS = 4, int n = 16384>
void tiled_pair(const char *name, const void *a, void *b) {
  const int across = n / (128 * J), down = n / (16 * WARPS);
  const std::vector<int2> order = diagonal_order(down, across);
  int2 *dev_order = nullptr;
  CHECK(cudaMalloc(&dev_order, order.size() * sizeof(int2)));
  CHECK(cudaMemcpy(dev_order, order.data(), order.size() * sizeof(int2), cudaMemcpyHostToDevice));
  for (int k = 0; k < 2; k++) {
    const int2 *ord = k ? dev_order : nullptr;
    auto run = [&]() {
      tiled<In, Out, J, WARPS, n><<<down * across, 32 * WARPS>>>(static_cast<const In *>(a),
                                                                   static_cast<Out *>(b), across, ord);
    };
    const double ms = n < 16384 ? batch_median_ms(run) : micro_median_ms(run);
    char label[64];
    snprintf(label, sizeof label, "%s %dx%d%s", name, 16 * WARPS, 128 * J, k ? " diag" : " rows");
    report(label, ms, (double)n * n * (sizeof(In) + sizeof(Out)));
  }
  CHECK(cudaFree(dev_order));
}


/* ---- the tile pattern staged through shared memory, as onepass stages it ----
 * A block of 4 warps per tile of ROWS x COLS; the tile is loaded into shared
 * memory by cp.async (16 bytes, or the lane's bytes if fewer, a lane: onepass's
 * way) or by the Hopper bulk copy engine (cp.async.bulk, one copy a row,
 * completing on an mbarrier), and stored from registers (__stcs, the lane's
 * columns) or by bulk copies from a tile of outputs in shared memory. */
enum { LOAD_CPASYNC = 0, LOAD_BULK = 1 };
enum { STORE_REGS = 0, STORE_BULK = 1, STORE_RESTAGE = 2 };

__device__ __forceinline__ unsigned smem_u32(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

template <typename In, typename Out, int ROWS, int COLS, int LOAD, int STORE, int n>
__global__ void __launch_bounds__(128) staged(const In *__restrict__ in, Out *__restrict__ out, int across,
                                              const int2 *order) {
  constexpr bool SAME = sizeof(In) == sizeof(Out);
  constexpr int V = COLS / 32, RPW = ROWS / 4, RB = COLS * (int)sizeof(In), OB = COLS * (int)sizeof(Out);
  static_assert(RB % 16 == 0 && OB % 16 == 0, "bulk copies move multiples of 16 bytes");
  extern __shared__ __align__(128) unsigned char smem[];
  unsigned long long *bar = reinterpret_cast<unsigned long long *>(smem);
  In *tin = reinterpret_cast<In *>(smem + 128);
  Out *tout = SAME ? reinterpret_cast<Out *>(tin) : reinterpret_cast<Out *>(smem + 128 + ROWS * RB);
  const int b = blockIdx.x;
  const int2 tile = order ? order[b] : make_int2(b / across, b % across);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const size_t r0 = (size_t)tile.x * ROWS, c0 = (size_t)tile.y * COLS;
  /* STORE_RESTAGE: a row of outputs a warp, so that each store instruction covers adjacent 16-byte words */
  __shared__ __align__(16) Out restage[STORE == STORE_RESTAGE ? 4 : 1][STORE == STORE_RESTAGE ? COLS : 1];
  if (LOAD == LOAD_BULK) {
    if (threadIdx.x == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(ROWS) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    /* the barrier is initialised before anyone arrives on it */
    __syncthreads();
    for (int r = threadIdx.x; r < ROWS; r += 128) {
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(RB)
                   : "memory");
      asm volatile(
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
              smem_u32(tin + r * COLS)),
          "l"(in + (r0 + r) * n + c0), "r"(RB), "r"(smem_u32(bar))
          : "memory");
    }
    unsigned ok = 0;
    do /* spin-wait on phase 0: the whole tile is in */
      asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                   : "=r"(ok)
                   : "r"(smem_u32(bar))
                   : "memory");
    while (!ok);
  } else {
    constexpr int LB = V * (int)sizeof(In), CH = LB < 16 ? LB : 16;
#pragma unroll
    for (int k = 0; k < RPW; k++) {
      const int r = warp * RPW + k;
      const char *src = reinterpret_cast<const char *>(in + (r0 + r) * n + c0 + lane * V);
      char *dst = reinterpret_cast<char *>(tin + r * COLS + lane * V);
#pragma unroll
      for (int i = 0; i < LB / CH; i++) __pipeline_memcpy_async(dst + i * CH, src + i * CH, CH);
    }
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  /* each lane's own slots from here on (cp.async: its own copies are in) */
#pragma unroll
  for (int k = 0; k < RPW; k++) {
    const int r = warp * RPW + k;
    struct alignas(sizeof(In) * V) InV { In v[V]; };
    struct alignas(sizeof(Out) * V > 16 ? 16 : sizeof(Out) * V) OutV { Out v[V]; };
    const InV x = *reinterpret_cast<const InV *>(tin + r * COLS + lane * V);
    OutV y;
#pragma unroll
    for (int c = 0; c < V; c++) y.v[c] = (Out)x.v[c];
    if (STORE == STORE_RESTAGE) {
      /* the lane's V outputs into the warp's row, then 16-byte words lane by lane */
      Out *row = restage[warp];
      *reinterpret_cast<OutV *>(row + lane * V) = y;
      /* the row is whole */
      __syncwarp();
      constexpr int WORDS = COLS * (int)sizeof(Out) / 16 / 32; /* 16-byte words a lane */
      uint4 *dst = reinterpret_cast<uint4 *>(out + (r0 + r) * n + c0);
#pragma unroll
      for (int i = 0; i < WORDS; i++) __stcs(dst + i * 32 + lane, reinterpret_cast<const uint4 *>(row)[i * 32 + lane]);
      /* every lane has read the row before the next one is written */
      __syncwarp();
    } else if (STORE == STORE_REGS) {
      constexpr int OW = sizeof(Out) * V >= 16 ? 16 : sizeof(Out) * V;
      static_assert(OW == 16, "lanes store 16-byte words");
      const uint4 *w = reinterpret_cast<const uint4 *>(&y);
      uint4 *dst = reinterpret_cast<uint4 *>(out + (r0 + r) * n + c0 + lane * V);
#pragma unroll
      for (int i = 0; i < (int)(sizeof(Out) * V / 16); i++) __stcs(dst + i, w[i]);
    } else if (!SAME) {
      *reinterpret_cast<OutV *>(tout + r * COLS + lane * V) = y;
    }
  }
  if (STORE == STORE_BULK) {
    /* generic-proxy writes of the output tile are seen by the bulk copies */
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    /* every row of the output tile is written */
    __syncthreads();
    for (int r = threadIdx.x; r < ROWS; r += 128) {
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + (r0 + r) * n + c0),
                   "r"(smem_u32(tout + r * COLS)), "r"(OB)
                   : "memory");
    }
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    /* the shared tile stays until the copies have read it */
    asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
  }
}

template <typename In, typename Out, int ROWS, int COLS, int LOAD, int STORE, int n = 16384>
void staged_pair(const char *name, const void *a, void *b) {
  const int across = n / COLS, down = n / ROWS;
  const std::vector<int2> order = diagonal_order(down, across);
  int2 *dev_order = nullptr;
  CHECK(cudaMalloc(&dev_order, order.size() * sizeof(int2)));
  CHECK(cudaMemcpy(dev_order, order.data(), order.size() * sizeof(int2), cudaMemcpyHostToDevice));
  constexpr bool SAME = sizeof(In) == sizeof(Out);
  const int smem = 128 + ROWS * COLS * (int)sizeof(In) + (STORE == STORE_BULK && !SAME ? ROWS * COLS * (int)sizeof(Out) : 0);
  auto kernel = staged<In, Out, ROWS, COLS, LOAD, STORE, n>;
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                             (int)cudaSharedmemCarveoutMaxShared));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 128, smem));
  { /* a check that the copies land: every sampled output is its input widened */
    CHECK(cudaMemset(b, 0, (size_t)n * n * sizeof(Out)));
    kernel<<<down * across, 128, smem>>>(static_cast<const In *>(a), static_cast<Out *>(b), across, dev_order);
    CHECK(cudaDeviceSynchronize());
    const size_t at[4] = {0, (size_t)n * n / 2 + 77, (size_t)n * n - 1, (size_t)n * 5 + n - 3};
    for (size_t i : at) {
      In x;
      Out y;
      CHECK(cudaMemcpy(&x, static_cast<const In *>(a) + i, sizeof x, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(&y, static_cast<const Out *>(b) + i, sizeof y, cudaMemcpyDeviceToHost));
      if (memcmp(&y, &x, sizeof(In)) != 0 && !(sizeof(In) != sizeof(Out) && y == (Out)x)) {
        fprintf(stderr, "%s %dx%d: element %zu wrong\n", name, ROWS, COLS, i);
        exit(1);
      }
    }
  }
  for (int k = 0; k < 2; k++) {
    const int2 *ord = k ? dev_order : nullptr;
    auto run = [&]() {
      kernel<<<down * across, 128, smem>>>(static_cast<const In *>(a), static_cast<Out *>(b), across, ord);
    };
    const double ms = n < 16384 ? batch_median_ms(run) : micro_median_ms(run);
    char label[96];
    snprintf(label, sizeof label, "%s %dx%d %s/%s %d/SM%s", name, ROWS, COLS, LOAD ? "bulk" : "cpasync",
             STORE == STORE_BULK ? "bulk" : STORE == STORE_RESTAGE ? "restage" : "regs", per_sm, k ? " diag" : " rows");
    report(label, ms, (double)n * n * (sizeof(In) + sizeof(Out)));
  }
  CHECK(cudaFree(dev_order));
}

} // namespace

int main() {
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int grid = sms * 16, block = 256;
  unsigned char *a = nullptr, *b = nullptr;
  unsigned *sink = nullptr;
  const size_t big = PIXELS * 4;
  CHECK(cudaMalloc(&a, big));
  CHECK(cudaMalloc(&b, big));
  CHECK(cudaMalloc(&sink, sizeof *sink));
  fill<<<grid, block>>>(reinterpret_cast<unsigned *>(a), big / 4);
  CHECK(cudaDeviceSynchronize());
  printf("16K x 16K traffic floors (%d SMs, %d blocks of %d)\n", sms, grid, block);
  const size_t words = big / 16;
  report("memcpy", micro_median_ms([&]() { CHECK(cudaMemcpyAsync(b, a, big, cudaMemcpyDeviceToDevice)); }),
         2.0 * big);
  report("copy", micro_median_ms([&]() {
           copy16<<<grid, block>>>(reinterpret_cast<const uint4 *>(a), reinterpret_cast<uint4 *>(b), words);
         }),
         2.0 * big);
  report("widen", micro_median_ms([&]() {
           widen<<<grid, block>>>(reinterpret_cast<const uchar4 *>(a), reinterpret_cast<uint4 *>(b), PIXELS / 4);
         }),
         (double)PIXELS * 5);
  report("write", micro_median_ms([&]() { write16<<<grid, block>>>(reinterpret_cast<uint4 *>(b), words); }),
         (double)big);
  report("read", micro_median_ms([&]() { read16<<<grid, block>>>(reinterpret_cast<const uint4 *>(a), words, sink); }),
         (double)big);
  tiled_pair<float, float>("tiled f32", a, b);
  tiled_pair<unsigned char, unsigned>("tiled u8", a, b);
  /* larger u8 tiles: fewer carries a byte, if their pattern keeps up */
  tiled_pair<unsigned char, unsigned, 2>("tiled u8", a, b);
  tiled_pair<unsigned char, unsigned, 2, 8>("tiled u8", a, b);
  tiled_pair<unsigned char, unsigned, 4>("tiled u8", a, b);
  /* 4K x 4K f32 (the 50 us target): what the pattern alone takes there */
  const size_t small = (size_t)4096 * 4096 * 4;
  report("4K memcpy", batch_median_ms([&]() { CHECK(cudaMemcpyAsync(b, a, small, cudaMemcpyDeviceToDevice)); }),
         2.0 * small);
  tiled_pair<float, float, 1, 4, 4096>("4K tiled f32", a, b);
  tiled_pair<float, float, 1, 2, 4096>("4K tiled f32", a, b);
  /* staged through shared memory as onepass stages its tiles: cp.async or
   * the bulk copy engine in, registers or the bulk copy engine out */
  staged_pair<float, float, 64, 128, LOAD_CPASYNC, STORE_REGS>("staged f32", a, b);
  staged_pair<float, float, 64, 128, LOAD_BULK, STORE_REGS>("staged f32", a, b);
  staged_pair<float, float, 64, 128, LOAD_BULK, STORE_BULK>("staged f32", a, b);
  staged_pair<float, float, 64, 128, LOAD_CPASYNC, STORE_BULK>("staged f32", a, b);
  staged_pair<float, float, 64, 256, LOAD_CPASYNC, STORE_REGS>("staged f32", a, b);
  staged_pair<float, float, 64, 256, LOAD_BULK, STORE_BULK>("staged f32", a, b);
  staged_pair<float, float, 128, 128, LOAD_CPASYNC, STORE_REGS>("staged f32", a, b);
  staged_pair<float, float, 32, 512, LOAD_CPASYNC, STORE_REGS>("staged f32", a, b);
  staged_pair<unsigned char, unsigned, 128, 256, LOAD_CPASYNC, STORE_REGS>("staged u8", a, b);
  staged_pair<unsigned char, unsigned, 128, 256, LOAD_BULK, STORE_REGS>("staged u8", a, b);
  staged_pair<unsigned char, unsigned, 128, 256, LOAD_CPASYNC, STORE_RESTAGE>("staged u8", a, b);
  staged_pair<unsigned char, unsigned, 64, 256, LOAD_CPASYNC, STORE_RESTAGE>("staged u8", a, b);
  staged_pair<unsigned char, unsigned, 64, 256, LOAD_CPASYNC, STORE_REGS>("staged u8", a, b);
  staged_pair<float, float, 64, 256, LOAD_CPASYNC, STORE_RESTAGE>("staged f32", a, b);
  staged_pair<unsigned char, unsigned, 32, 256, LOAD_BULK, STORE_BULK>("staged u8", a, b);
  staged_pair<unsigned char, unsigned, 64, 128, LOAD_BULK, STORE_BULK>("staged u8", a, b);
  staged_pair<float, float, 64, 128, LOAD_CPASYNC, STORE_REGS, 4096>("4K staged f32", a, b);
  staged_pair<float, float, 64, 128, LOAD_BULK, STORE_REGS, 4096>("4K staged f32", a, b);
  staged_pair<float, float, 64, 128, LOAD_BULK, STORE_BULK, 4096>("4K staged f32", a, b);
  staged_pair<float, float, 64, 256, LOAD_CPASYNC, STORE_REGS, 4096>("4K staged f32", a, b);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(sink));
  return 0;
}
