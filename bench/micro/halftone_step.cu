/*
 * halftone_step.cu — microbenchmarks of one dependent step of GPU error
 * diffusion: where the ~100 ns a step of the strip engine goes,
 * against the 18.5 ns of the pixel rule alone.
 *
 * Each probe walks a long run of steps in one block and reports ns a step
 * (median of 5 launches after a warm-up), from the bare hardware latencies
 * up to the full engine:
 *   shfl        a chain of dependent warp shuffles;
 *   bar-N       a chain of block barriers among N warps;
 *   rule        the pixel rule alone in one thread (the floor's step);
 *   warp-L      one warp of 32 rows, lane per row, each row LAG = L columns
 *               behind the row above, the row above's error by shuffle each
 *               step (halftone_wavefront.cuh's step, inputs from a register
 *               generator, no memory);
 *   block-N-L   N such warps in one block, warp w+1 fed by warp w's last
 *               row through shared memory, a barrier every 8 steps;
 *   Rrows block-N-L  the same with R rows a lane, the rows of a lane
 *               handing errors on in registers (R = 2 is run; R = 4 took
 *               96-107 ns a step, docs/performance.md);
 *   ... deferred  the row above's error, shuffled at one step, pushed into
 *               the row's sums at the next (lag >= 3 only), so no
 *               instruction of a step waits for a shuffle in flight;
 *   engine R x W  the library's `strips` on an R x W image of device memory
 *               (steps = W + span of its strip engine, printed per step).
 * Built in CUDA builds as skss_micro_halftone; run on the lent GPU.
 */
#include <vector>

#include "cuda/halftone/halftone_wavefront.cuh"
#include "micro_common.cuh"
#include "skss.h"

namespace {

using FS = skss__ht_kernel<SKSS_DITHER_KERNEL_FLOYD_STEINBERG>;
constexpr int GROUP = 8;

__global__ void shfl_chain(int steps, int *sink) {
  int v = threadIdx.x;
  const int src = (threadIdx.x + 31) & 31;
#pragma unroll 8
  for (int t = 0; t < steps; t++) v = __shfl_sync(0xffffffffu, v + 1, src);
  sink[threadIdx.x] = v;
}

__global__ void bar_chain(int steps, int *sink) {
  __shared__ int s[32];
  int v = threadIdx.x;
#pragma unroll 8
  for (int t = 0; t < steps; t++) {
    if ((threadIdx.x & 31) == 0) s[threadIdx.x >> 5] = v;
    __syncthreads();
    v += s[((threadIdx.x >> 5) + 1) % (blockDim.x >> 5)];
  }
  sink[threadIdx.x] = v;
}

__global__ void rule_chain(int steps, int *sink) {
  unsigned g = 12345u;
  int left1 = 0, acc = 0;
#pragma unroll 8
  for (int t = 0; t < steps; t++) {
    g = g * 1664525u + 1013904223u;
    const int in = (int)(g >> 24), rest = (int)((g >> 8) & 0x3ffu) - 512;
    int white;
    left1 = skss_wf::pixel<FS>(in, rest, FS::weight(0, 3), left1, 127, &white);
    acc += white;
  }
  sink[0] = left1 + acc;
}

/* The errors of the row above a warp's lane 0 for group G: warp w-1's
 * lane 31 of the group before (through shared memory), or for warp 0 a
 * stand-in pattern. */
__device__ __forceinline__ void border_of(const int4 (*hist)[2][2][32], int w, int G, int (&b)[GROUP]) {
  if (w > 0) {
    const int4 lo = hist[w - 1][(G - 1) & 1][0][31], hi = hist[w - 1][(G - 1) & 1][1][31];
    b[0] = lo.x; b[1] = lo.y; b[2] = lo.z; b[3] = lo.w;
    b[4] = hi.x; b[5] = hi.y; b[6] = hi.z; b[7] = hi.w;
  } else {
#pragma unroll
    for (int j = 0; j < GROUP; j++) b[j] = (G + j) & 7;
  }
}

/* A warp's errors of group G, for the warp below. */
__device__ __forceinline__ void put_errors(int4 (*hist)[2][2][32], int w, int G, const int (&eh)[GROUP]) {
  const int lane = threadIdx.x & 31;
  hist[w][G & 1][0][lane] = make_int4(eh[0], eh[1], eh[2], eh[3]);
  hist[w][G & 1][1][lane] = make_int4(eh[4], eh[5], eh[6], eh[7]);
}

/* NW warps of 32 rows, lane per row, LAG columns a row (slack LAG - 2),
 * the row above's error by shuffle; warp w's row 0 takes warp w-1's row 31
 * through shared memory, 8 steps late (the engine's warp lag), with a
 * barrier every 8 steps. Inputs from a per-lane generator. */
template <int LAG, int NW, int IO, bool DEFER = false>
__global__ void __launch_bounds__(32 * NW) strip_chain(int groups, int *sink, const uint8_t *img_in,
                                                       uint8_t *img_out, int pitch) {
  constexpr int AH = LAG + 2;
  constexpr int D = GROUP, PRE = 2 * LAG;
  __shared__ alignas(4) uint8_t ring_all[NW][32][36];
  constexpr int DXC = 1 - LAG;
  constexpr int WC = DXC >= -2 ? FS::weight(1, DXC + 2 >= 0 ? DXC + 2 : 0) : 0;
  __shared__ int4 hist[NW][2][2][32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int src1 = (lane + 31) & 31;
  unsigned g = 0x9e3779b9u * (threadIdx.x + 1);
  int ahead[AH];
#pragma unroll
  for (int k = 0; k < AH; k++) ahead[k] = 0;
  int left1 = 0, pend = 0, acc = 0;
  /* DEFER: the row above's error, shuffled the step before, is pushed into
   * ahead[] one step later in program order, so that no instruction of the
   * step waits for a shuffle still in flight (needs slack: LAG >= 3). */
  static_assert(!DEFER || WC == 0, "a deferred push needs a step of slack");
  int u1_prev = 0;
  /* IO 1: the engine's ring (halftone_wavefront.cuh run_strip_rows IO 0):
   * lane j loads column T + j - xoff0 - LAG i of each row i of the warp a
   * chunk ahead, stages it in the ring, takes its own row's 32 pixels. */
  uint8_t (*ring)[36] = ring_all[w];
  const int xoff0 = PRE + LAG * 32 * w + D * w;
  uint8_t pre[32];
  auto load_chunk = [&](int T) {
    const uint8_t *p = img_in + (int64_t)(32 * w) * pitch + T + lane - xoff0;
#pragma unroll
    for (int i = 0; i < 32; i++, p += pitch - LAG) pre[i] = __ldg(p);
  };
  auto stage_chunk = [&]() {
#pragma unroll
    for (int i = 0; i < 32; i++) ring[i][lane] = pre[i];
  };
  auto flush_chunk = [&](int T) {
    uint8_t *p = img_out + (int64_t)(32 * w) * pitch + T + lane - xoff0;
#pragma unroll
    for (int i = 0; i < 32; i++, p += pitch - LAG) *p = ring[i][lane];
  };
  unsigned px[8], ow[8];
  if (IO) {
    load_chunk(0);
    stage_chunk();
  }
  for (int G = 0; G < groups; G++) {
    if (IO && G % 4 == 0) {
      load_chunk((G + 4) * GROUP);
      __syncwarp();
#pragma unroll
      for (int k = 0; k < 8; k++) {
        px[k] = *reinterpret_cast<const unsigned *>(&ring[lane][4 * k]);
        ow[k] = 0;
      }
    }
    int b[GROUP];
    border_of(hist, w, G, b);
    int eh[GROUP];
#pragma unroll
    for (int j = 0; j < GROUP; j++) {
      int in;
      const int jc = (G % 4) * GROUP + j;
      if (IO) {
        in = (int)__byte_perm(px[jc / 4], 0u, 0x4440u | (unsigned)(jc % 4));
      } else {
        g = g * 1664525u + 1013904223u;
        in = (int)(g >> 24);
      }
      int white;
      int e = skss_wf::pixel_late<FS, WC>(in, ahead[0], FS::weight(0, 3), left1, pend, 127, &white);
      if (IO) {
        const unsigned nib = 4u * (unsigned)(jc % 4);
        ow[jc / 4] = __byte_perm(ow[jc / 4], (unsigned)white, (0x3210u & ~(0xfu << nib)) | (4u << nib));
      } else {
        acc += white;
      }
      left1 = e;
#pragma unroll
      for (int k = 0; k + 1 < AH; k++) ahead[k] = ahead[k + 1];
      ahead[AH - 1] = 0;
      if (DEFER) {
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) ahead[LAG + dx - 2] += FS::weight(1, dx + 2) * u1_prev;
      }
      const int v1 = lane == 31 ? b[j] : e;
      const int u1 = __shfl_sync(0xffffffffu, v1, src1);
      if (DEFER) {
        u1_prev = u1;
      } else {
#pragma unroll
        for (int dx = -2; dx <= 2; dx++)
          if (FS::weight(1, dx + 2) != 0 && !(WC != 0 && dx == DXC)) ahead[LAG + dx - 1] += FS::weight(1, dx + 2) * u1;
      }
      pend = u1;
      eh[j] = e;
    }
    if (NW > 1) {
      put_errors(hist, w, G, eh);
      __syncthreads();
    }
    if (IO && G % 4 == 3) {
#pragma unroll
      for (int k = 0; k < 8; k++) *reinterpret_cast<unsigned *>(&ring[lane][4 * k]) = ow[k];
      __syncwarp();
      flush_chunk((G - 3) * GROUP);
      stage_chunk();
    }
  }
  sink[threadIdx.x] = left1 + acc;
}

/* The median of launch()'s timed runs. */
struct timer {
  template <typename F>
  double ms(F launch) { return micro_median_ms(launch); }
};

void report(const char *name, double ms, double steps) {
  printf("%-28s %10.3f ms  %8.2f ns/step\n", name, ms, ms * 1e6 / steps);
}

template <int LAG, int NW, int IO = 0, bool DEFER = false>
void run_strip_chain(timer &tm, int *sink, int steps) {
  const int groups = steps / GROUP;
  char name[64];
  snprintf(name, sizeof name, "%s-%d lag %d%s%s", NW == 1 ? "warp" : "block", NW, LAG, IO ? " ring" : "",
           DEFER ? " deferred" : "");
  uint8_t *in = nullptr, *out = nullptr;
  const int pitch = steps + 4096;
  if (IO) {
    CHECK(cudaMalloc(&in, (size_t)pitch * 32 * NW));
    CHECK(cudaMalloc(&out, (size_t)pitch * 32 * NW));
    CHECK(cudaMemset(in, 100, (size_t)pitch * 32 * NW));
  }
  report(name, tm.ms([&] { strip_chain<LAG, NW, IO, DEFER><<<1, 32 * NW>>>(groups, sink, in + 2048, out + 2048, pitch); }),
         groups * GROUP);
  if (IO) {
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
  }
}

/* R rows a lane: row Ri+k+1 lags row Ri+k by the slope in the
 * same lane (its late term is row Ri+k's error of the step before, no
 * shuffle); row R(i+1) (lane i+1) lags row Ri+R-1 by LAG, its error by
 * shuffle. A step is R independent pixels a lane, so a row costs (2 (R-1)
 * + LAG) / R steps of the wavefront instead of LAG. */
template <int R, int LAG, int NW, bool DEFER = false>
__global__ void __launch_bounds__(32 * NW) strip_rows_chain(int groups, int *sink) {
  static_assert(!DEFER || LAG >= 3, "a deferred push needs a step of slack");
  constexpr int AH = LAG + 2;
  int u1_prev = 0; /* DEFER: the shuffle of the step before, pushed this step */
  __shared__ int4 hist[NW][2][2][32];
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  const int src1 = (lane + 31) & 31;
  unsigned g = 0x9e3779b9u * (threadIdx.x + 1);
  int aa[AH], ab[R][4], l[R], pb[R];
#pragma unroll
  for (int k = 0; k < AH; k++) aa[k] = 0;
#pragma unroll
  for (int r = 0; r < R; r++) {
#pragma unroll
    for (int k = 0; k < 4; k++) ab[r][k] = 0;
    l[r] = pb[r] = 0;
  }
  int acc = 0;
  for (int G = 0; G < groups; G++) {
    int b[GROUP];
    border_of(hist, w, G, b);
    int eh[GROUP];
#pragma unroll
    for (int j = 0; j < GROUP; j++) {
      g = g * 1664525u + 1013904223u;
      int e[R];
#pragma unroll
      for (int r = 0; r < R; r++) {
        const int in = (int)((g >> (8 * (r & 3))) & 255);
        int wh;
        e[r] = r == 0 ? skss_wf::pixel<FS>(in, aa[0], FS::weight(0, 3), l[0], 127, &wh)
                      : skss_wf::pixel_late<FS, 3>(in, ab[r][0], FS::weight(0, 3), l[r], pb[r], 127, &wh);
        acc += wh;
      }
#pragma unroll
      for (int r = 0; r < R; r++) l[r] = e[r];
      /* row r's next pixel is row r-1's this one minus 1: e[r-1]'s shares go
       * to its pixels 0 (late, weight 3), 1 (5) and 2 (1) */
#pragma unroll
      for (int r = 1; r < R; r++) {
        ab[r][0] = ab[r][1];
        ab[r][1] = ab[r][2] + 5 * e[r - 1];
        ab[r][2] = ab[r][3] + 1 * e[r - 1];
        ab[r][3] = 0;
        pb[r] = e[r - 1];
      }
#pragma unroll
      for (int k = 0; k + 1 < AH; k++) aa[k] = aa[k + 1];
      aa[AH - 1] = 0;
      if (DEFER) {
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) aa[LAG + dx - 2] += FS::weight(1, dx + 2) * u1_prev;
      }
      const int v1 = lane == 31 ? b[j] : e[R - 1];
      const int u1 = __shfl_sync(0xffffffffu, v1, src1);
      if (DEFER) {
        u1_prev = u1;
      } else {
#pragma unroll
        for (int dx = -1; dx <= 1; dx++) aa[LAG + dx - 1] += FS::weight(1, dx + 2) * u1;
      }
      eh[j] = e[R - 1];
    }
    if (NW > 1) {
      put_errors(hist, w, G, eh);
      __syncthreads();
    }
  }
  int sum = acc;
#pragma unroll
  for (int r = 0; r < R; r++) sum += l[r];
  sink[threadIdx.x] = sum;
}

template <int R, int LAG, int NW, bool DEFER = false>
void run_strip_rows_chain(timer &tm, int *sink, int steps) {
  const int groups = steps / GROUP;
  char name[64];
  snprintf(name, sizeof name, "%drows block-%d lag %d%s", R, NW, LAG, DEFER ? " deferred" : "");
  report(name, tm.ms([&] { strip_rows_chain<R, LAG, NW, DEFER><<<1, 32 * NW>>>(groups, sink); }), groups * GROUP);
}

void run_engine(timer &tm, skss_ctx *ctx, int64_t rows, int64_t width, int algorithm) {
  uint8_t *in = nullptr, *out = nullptr;
  const size_t n = (size_t)rows * (size_t)width;
  CHECK(cudaMalloc(&in, n));
  CHECK(cudaMalloc(&out, n));
  std::vector<uint8_t> h(n);
  unsigned g = 7;
  for (auto &b : h) b = (uint8_t)((g = g * 1664525u + 1013904223u) >> 24);
  CHECK(cudaMemcpy(in, h.data(), n, cudaMemcpyHostToDevice));
  skss_halftone_desc d = SKSS_HALFTONE_DESC_INIT;
  d.height = rows;
  d.width = width;
  d.algorithm = (skss_halftone_algorithm)algorithm;
  bool ok = true;
  const double ms = tm.ms([&] {
    if (skss_halftone(ctx, &d, in, out) != SKSS_OK) ok = false;
  });
  if (!ok) {
    printf("engine: %s\n", skss_ctx_last_error(ctx));
  } else {
    char name[64];
    snprintf(name, sizeof name, "%s %lld x %lld", algorithm == SKSS_HALFTONE_ALGORITHM_STRIPS ? "strips" : "skss",
             (long long)rows, (long long)width);
    /* the critical path W + 2 (H - 1) of dependent steps */
    report(name, ms, (double)width + 2.0 * (double)(rows - 1));
  }
  CHECK(cudaFree(in));
  CHECK(cudaFree(out));
}

}  // namespace

int main(int argc, char **argv) {
  const int steps = argc > 1 ? atoi(argv[1]) : 1 << 20;
  int *sink = nullptr;
  CHECK(cudaMalloc(&sink, 1024 * sizeof(int)));
  timer tm;
  report("shfl", tm.ms([&] { shfl_chain<<<1, 32>>>(steps, sink); }), steps);
  for (int nw : {2, 4, 8}) {
    char name[32];
    snprintf(name, sizeof name, "bar-%d", nw);
    report(name, tm.ms([&] { bar_chain<<<1, 32 * nw>>>(steps, sink); }), steps);
  }
  report("rule", tm.ms([&] { rule_chain<<<1, 1>>>(steps, sink); }), steps);
  run_strip_chain<2, 1>(tm, sink, steps);
  run_strip_chain<3, 1>(tm, sink, steps);
  run_strip_chain<4, 1>(tm, sink, steps);
  run_strip_chain<2, 4>(tm, sink, steps);
  run_strip_chain<3, 4>(tm, sink, steps);
  run_strip_chain<2, 8>(tm, sink, steps);
  run_strip_chain<3, 8>(tm, sink, steps);
  run_strip_chain<2, 4, 1>(tm, sink, steps);
  run_strip_chain<3, 4, 1>(tm, sink, steps);
  run_strip_rows_chain<2, 3, 1>(tm, sink, steps);
  run_strip_rows_chain<2, 3, 4>(tm, sink, steps);
  run_strip_rows_chain<2, 2, 4>(tm, sink, steps);
  run_strip_chain<3, 1, 0, true>(tm, sink, steps);
  run_strip_chain<4, 1, 0, true>(tm, sink, steps);
  run_strip_chain<3, 4, 0, true>(tm, sink, steps);
  run_strip_rows_chain<2, 3, 1, true>(tm, sink, steps);
  run_strip_rows_chain<2, 3, 4, true>(tm, sink, steps);

  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CUDA;
  skss_ctx *ctx = nullptr;
  if (skss_ctx_create(&cd, &ctx) != SKSS_OK) {
    printf("no CUDA context\n");
    return 1;
  }
  const int64_t W = steps / 4;
  for (int64_t rows : {1, 32, 128, 256, 1024, 4096})
    run_engine(tm, ctx, rows, W, SKSS_HALFTONE_ALGORITHM_STRIPS);
  for (int64_t n : {1024, 4096, 16384, 32768}) run_engine(tm, ctx, n, n, SKSS_HALFTONE_ALGORITHM_STRIPS);
  run_engine(tm, ctx, 128, W, SKSS_HALFTONE_ALGORITHM_SKSS);
  skss_ctx_destroy(ctx);
  CHECK(cudaFree(sink));
  return 0;
}
