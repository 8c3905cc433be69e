/*
 * sat_stream.cu — microbenchmark of the traffic floors of a 16K x 16K
 * summed-area table (issue 3): how fast the device moves the SAT's bytes
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
 *   4K ...     memcpy and the f32 tile pattern (64 x 128 and 32 x 128) at
 *              4K x 4K, where issue 3 asks for 50 us: batches of 20
 *              launches, so that the host's launch latency is hidden as in
 *              `skss bench`.
 *
 * Printed: median ms of 5 launches after a warm-up and GB/s (bytes read
 * plus written). The one-pass SAT's share of the copy bandwidth is counted
 * against memcpy; widen says what share of it a kernel writing four bytes
 * per byte read can reach at all.
 * Built in CUDA builds as skss_micro_sat_stream; run by scripts/gpu-check.
 */
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
  CHECK(cudaMemset(a, 1, big));
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
  /* 4K x 4K f32 (issue 3's 50 us target): what the pattern alone takes there */
  const size_t small = (size_t)4096 * 4096 * 4;
  report("4K memcpy", batch_median_ms([&]() { CHECK(cudaMemcpyAsync(b, a, small, cudaMemcpyDeviceToDevice)); }),
         2.0 * small);
  tiled_pair<float, float, 1, 4, 4096>("4K tiled f32", a, b);
  tiled_pair<float, float, 1, 2, 4096>("4K tiled f32", a, b);
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(sink));
  return 0;
}
