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
 *              block per 64-row tile, 128 threads, each lane VEC adjacent
 *              columns of 16 rows, loads and stores straight from
 *              registers; tiles taken in row-major or anti-diagonal order
 *              (as onepass tickets them). f32 -> f32 and u8 -> u32, VEC 4
 *              (128-column tiles, onepass's shape).
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

void report(const char *name, double ms, double bytes) {
  printf("%-22s %8.3f ms %8.0f GB/s\n", name, ms, bytes / (ms * 1e-3) / 1e9);
}

/* The tile of block b: row-major, or the host-made anti-diagonal order. */
template <typename In, typename Out, int VEC>
__global__ void __launch_bounds__(128) tiled(const In *__restrict__ in, Out *__restrict__ out, int across,
                                             const int2 *order) {
  const int b = blockIdx.x;
  const int2 tile = order ? order[b] : make_int2(b / across, b % across);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  constexpr int W = 16384;
  const size_t r0 = (size_t)tile.x * 64 + warp * 16, c0 = (size_t)tile.y * 32 * VEC + lane * VEC;
  struct alignas(sizeof(In) * VEC) InVec { In v[VEC]; };
  struct alignas(16) OutVec { Out v[VEC]; };
  InVec x[16];
#pragma unroll
  for (int k = 0; k < 16; k++) x[k] = *reinterpret_cast<const InVec *>(in + (r0 + k) * W + c0);
#pragma unroll
  for (int k = 0; k < 16; k++) {
    OutVec y;
#pragma unroll
    for (int c = 0; c < VEC; c++) y.v[c] = (Out)x[k].v[c];
    *reinterpret_cast<OutVec *>(out + (r0 + k) * W + c0) = y;
  }
}

/* Anti-diagonal order of a down x across tile grid: diagonal d = ts + tp, from the top. */
std::vector<int2> diagonal_order(int down, int across) {
  std::vector<int2> o;
  for (int d = 0; d < down + across - 1; d++)
    for (int ts = std::max(0, d - across + 1); ts <= std::min(d, down - 1); ts++) o.push_back(make_int2(ts, d - ts));
  return o;
}

template <typename In, typename Out, int VEC>
void tiled_pair(const char *name, const void *a, void *b, const int2 *dev_order) {
  const int across = 16384 / (32 * VEC), down = 16384 / 64;
  for (int k = 0; k < 2; k++) {
    const int2 *ord = k ? dev_order : nullptr;
    const double ms = micro_median_ms([&]() {
      tiled<In, Out, VEC><<<down * across, 128>>>(static_cast<const In *>(a), static_cast<Out *>(b), across, ord);
    });
    char label[64];
    snprintf(label, sizeof label, "%s%s", name, k ? " diag" : " rows");
    report(label, ms, (double)PIXELS * (sizeof(In) + sizeof(Out)));
  }
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
  const std::vector<int2> order = diagonal_order(16384 / 64, 16384 / 128);
  int2 *dev_order = nullptr;
  CHECK(cudaMalloc(&dev_order, order.size() * sizeof(int2)));
  CHECK(cudaMemcpy(dev_order, order.data(), order.size() * sizeof(int2), cudaMemcpyHostToDevice));
  tiled_pair<float, float, 4>("tiled f32 64x128", a, b, dev_order);
  tiled_pair<unsigned char, unsigned, 4>("tiled u8 64x128", a, b, dev_order);
  CHECK(cudaFree(dev_order));
  CHECK(cudaFree(a));
  CHECK(cudaFree(b));
  CHECK(cudaFree(sink));
  return 0;
}
