/*
 * align_step.cu — microbenchmarks of the alignment pass's cell rate: where the
 * 1 Mbp score pass's 1.1 T cells/s goes against the ~2.9 T the instruction
 * count allows (docs/performance.md, "Pairwise alignment on the GPU").
 *   dpx, imad   8 independent chains a thread of __viaddmax_s32 (VIADDMNMX,
 *               3 of the 4 instructions of a cell's max-plus) or of an integer
 *               multiply-add, every SM full: instructions an SM a clock;
 *   band-only   align_band.cuh's run_band (global, score only) on independent
 *               bands, each warp band 0 of its own pass, so no warp ever waits,
 *               as many warps as a pass keeps resident: the compute's cells an
 *               SM a clock, publishes included;
 *   pass L      skss_align() score only on a random DNA pair of L x L, the
 *               bands' waits and hand-offs included: cells an SM a clock;
 *   chain L     the pass's own kernel code and launch on an L x L pair, each
 *               band's ticket time, end and SM recorded (%globaltimer,
 *               %smid): when bands end along the chain, how they spread.
 *               `skss_micro_align chain L,...` runs only this probe (builds
 *               with other SKSS_CUDA_ALIGN_* or task-array constants).
 * Clocks come from clock64() around each block's work (band-only, dpx, imad)
 * or from the pass's time at the SM clock the band-only probe measured.
 * Built in CUDA builds as skss_micro_align; run by scripts/gpu-check.
 */
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "cuda/align/align_band.cuh"
#include "micro_common.cuh"
#include "skss.h"

/* 1: the chain probe's pass writes direction bits (half a byte a cell:
 * 5 GB at 100 kbp, so lengths up to about 300 kbp) */
#ifndef SKSS_MICRO_ALIGN_BITS
#define SKSS_MICRO_ALIGN_BITS 0
#endif

namespace {

constexpr int CHAINS = 8;

/* OP 0: a = max(a + b, c) by DPX; OP 1: a = a * b + c. */
template <int OP>
__global__ void int_rate(int iters, int seed, int *sink, long long *cycles) {
  int a[CHAINS], c[CHAINS];
#pragma unroll
  for (int k = 0; k < CHAINS; k++) {
    a[k] = (int)threadIdx.x + k * seed;
    c[k] = seed ^ (k * 977);
  }
  const int b = seed | 1;
  /* every warp of the block starts together */
  __syncthreads();
  const long long t0 = clock64();
  for (int i = 0; i < iters; i++) {
#pragma unroll
    for (int k = 0; k < CHAINS; k++) a[k] = OP == 0 ? __viaddmax_s32(a[k], b, c[k]) : a[k] * b + c[k];
  }
  /* the block's last warp is done */
  __syncthreads();
  const long long t1 = clock64();
  int s = 0;
#pragma unroll
  for (int k = 0; k < CHAINS; k++) s ^= a[k];
  sink[blockIdx.x * blockDim.x + threadIdx.x] = s;
  if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

/* Every warp runs band 0 of its own pass: its own row buffers and progress word. */
template <int R>
__global__ void __launch_bounds__(32 * skss__al::WARPS)
    band_only(skss__al_job job, const int32_t *sub, skss_cuda_taskarray_view ta, long long *cycles) {
  __shared__ int32_t ssub[SKSS__ALIGN_CODES * skss__al::SROW];
  skss__al::load_scores(ssub, sub);
  const int lane = (int)(threadIdx.x & 31), w = (int)(blockIdx.x * skss__al::WARPS + threadIdx.x / 32);
  skss__al_job mine = job;
  mine.h = job.h + (size_t)w * (size_t)(job.cols + 1);
  mine.f = job.f + (size_t)w * (size_t)(job.cols + 1);
  skss_cuda_taskarray_view v = ta;
  v.progress = ta.progress + w;
  const long long t0 = clock64();
  skss__al::run_band<R, false, false>(mine, ssub, v, 0, lane);
  /* the block's last warp is done */
  __syncthreads();
  if (threadIdx.x == 0) cycles[blockIdx.x] = clock64() - t0;
}

/* A band of the traced pass: when its warp took it and finished it (ns), and on which SM. */
struct band_trace {
  unsigned long long start, end;
  unsigned sm;
};

__device__ __forceinline__ unsigned long long global_ns() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

/* align_band.cuh's pass_kernel (global, score only), each band traced. */
template <int R>
__global__ void __launch_bounds__(32 * skss__al::WARPS)
    traced_pass(skss__al_job job, const int32_t *sub, skss_cuda_taskarray_view ta, band_trace *trace) {
  __shared__ int32_t ssub[SKSS__ALIGN_CODES * skss__al::SROW];
  skss__al::load_scores(ssub, sub);
  unsigned long long t0 = global_ns();
  skss__al::take_bands<R, false, false, SKSS_MICRO_ALIGN_BITS != 0>(job, ssub, ta, [&](int band) {
    const unsigned long long t1 = global_ns();
    if ((threadIdx.x & 31) == 0) trace[band] = {t0, t1, sm_id()};
    t0 = t1;
  });
}

long long median(std::vector<long long> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int sm_count() {
  int dev = 0, sms = 0;
  CHECK(cudaGetDevice(&dev));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return sms;
}

/* Instructions an SM a clock of OP, 4 blocks of 512 threads an SM. */
template <int OP>
void probe_int(const char *name, int sms) {
  const int blocks = 4 * sms, threads = 512, iters = 1 << 16;
  int *sink;
  long long *cyc;
  CHECK(cudaMalloc(&sink, (size_t)blocks * threads * sizeof(int)));
  CHECK(cudaMalloc(&cyc, (size_t)blocks * sizeof(long long)));
  const double ms = micro_median_ms([&] { int_rate<OP><<<blocks, threads>>>(iters, 12345, sink, cyc); });
  std::vector<long long> c(blocks);
  CHECK(cudaMemcpy(c.data(), cyc, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  const double per_sm = 4.0 * threads / 32 * (double)iters * CHAINS; /* warp instructions an SM */
  printf("%-10s %6.2f warp instructions an SM a clock (%5.1f lanes), %.3f ms, %.0f MHz\n", name,
         per_sm / (double)median(c), 32 * per_sm / (double)median(c), ms, (double)median(c) / ms / 1e3);
  CHECK(cudaFree(sink));
  CHECK(cudaFree(cyc));
}

/* A pass's device data for the probes: a DNA pair, the match 2 / mismatch -3
 * table, `copies` row buffers of cols + 1 (H and F) and a task array of
 * `ta_rows` rows, with the job (global, score only, gaps 5 + 2) over them. */
struct probe_data {
  uint8_t *a = nullptr, *b = nullptr;
  int32_t *sub = nullptr, *h = nullptr, *f = nullptr;
  void *counters = nullptr;
  size_t counter_bytes = 0;
  skss__al_job job;
  skss_cuda_taskarray_view ta;

  probe_data(const std::vector<uint8_t> &ha, const std::vector<uint8_t> &hb, int copies, int ta_rows) {
    const int rows = (int)ha.size(), cols = (int)hb.size();
    std::vector<int32_t> table(SKSS__ALIGN_CODES * SKSS__ALIGN_CODES, -3);
    for (int k = 0; k < 4; k++) table[k * SKSS__ALIGN_CODES + k] = 2;
    counter_bytes = skss__dev_taskarray_bytes(ta_rows);
    CHECK(cudaMalloc(&a, ha.size()));
    CHECK(cudaMalloc(&b, hb.size()));
    CHECK(cudaMalloc(&sub, table.size() * sizeof(int32_t)));
    CHECK(cudaMalloc(&h, (size_t)copies * (cols + 1) * sizeof(int32_t)));
    CHECK(cudaMalloc(&f, (size_t)copies * (cols + 1) * sizeof(int32_t)));
    CHECK(cudaMalloc(&counters, counter_bytes));
    CHECK(cudaMemcpy(a, ha.data(), ha.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), hb.size(), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(sub, table.data(), table.size() * sizeof(int32_t), cudaMemcpyHostToDevice));
    memset(&job, 0, sizeof job);
    job.a = a;
    job.b = b;
    job.rows = rows;
    job.cols = cols;
    job.lane_rows = SKSS_CUDA_ALIGN_ROWS;
    job.track = SKSS__ALIGN_TRACK_NONE;
    job.f00 = SKSS__ALIGN_NEG;
    job.open = 5;
    job.extend = 2;
    job.h = h;
    job.f = f;
    skss__dev_taskarray_carve(&ta, counters, ta_rows, (cols + skss__al::CH - 1) / skss__al::CH,
                              SKSS_TASKARRAY_KIND_FAIR, 1);
  }
  probe_data(const probe_data &) = delete;
  probe_data &operator=(const probe_data &) = delete;
  ~probe_data() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(sub);
    cudaFree(h);
    cudaFree(f);
    cudaFree(counters);
    cudaFree(job.bits);
  }
};

/* Cells an SM a clock of run_band with no waits; returns the SM clock in MHz. */
double probe_band(int sms, int cols) {
  constexpr int R = SKSS_CUDA_ALIGN_ROWS;
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, band_only<R>, 32 * skss__al::WARPS, 0));
  const int blocks = per_sm * sms, warps = blocks * skss__al::WARPS, rows = 32 * R;
  std::mt19937 rng(7);
  std::vector<uint8_t> a(rows), b(cols);
  for (auto &x : a) x = (uint8_t)(rng() % 4);
  for (auto &x : b) x = (uint8_t)(rng() % 4);
  probe_data d(a, b, warps, warps);
  long long *cyc;
  CHECK(cudaMalloc(&cyc, (size_t)blocks * sizeof(long long)));
  const double ms = micro_median_ms([&] {
    CHECK(cudaMemsetAsync(d.counters, 0, d.counter_bytes));
    band_only<R><<<blocks, 32 * skss__al::WARPS>>>(d.job, d.sub, d.ta, cyc);
  });
  std::vector<long long> c(blocks);
  CHECK(cudaMemcpy(c.data(), cyc, c.size() * sizeof(long long), cudaMemcpyDeviceToHost));
  const double cells_sm = (double)per_sm * skss__al::WARPS * rows * (double)cols;
  const double mhz = (double)median(c) / ms / 1e3;
  printf("band-only  %6.2f cells an SM a clock, %d warps an SM of %d rows x %d columns, %.3f ms, %.2f T cells/s\n",
         cells_sm / (double)median(c), per_sm * skss__al::WARPS, rows, cols, ms,
         cells_sm * sms / (ms * 1e-3) / 1e12);
  CHECK(cudaFree(cyc));
  return mhz;
}

/* skss_align() score only, global, on an L x L DNA pair (the second 10% mutated). */
void probe_pass(int sms, double mhz, int len) {
  skss_ctx *ctx = nullptr;
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CUDA;
  if (skss_ctx_create(&cd, &ctx) != SKSS_OK) {
    printf("pass: no cuda context\n");
    return;
  }
  std::mt19937 rng(11);
  const char *dna = "ACGT";
  std::vector<char> a(len), b(len);
  for (int i = 0; i < len; i++) a[i] = dna[rng() % 4];
  for (int i = 0; i < len; i++) b[i] = rng() % 10 == 0 ? dna[rng() % 4] : a[i];
  skss_align_desc d = SKSS_ALIGN_DESC_INIT;
  d.a_len = len;
  d.b_len = len;
  d.match = 2;
  d.mismatch = -3;
  d.gap_open = 5;
  d.gap_extend = 2;
  skss_align_result r;
  std::vector<double> ms;
  for (int k = 0; k < 4; k++) {
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventRecord(e0));
    const skss_status st = skss_align(ctx, &d, a.data(), b.data(), &r, nullptr);
    CHECK(cudaEventRecord(e1));
    CHECK(cudaEventSynchronize(e1));
    if (st != SKSS_OK) {
      printf("pass: %s\n", skss_ctx_last_error(ctx));
      break;
    }
    float m = 0;
    CHECK(cudaEventElapsedTime(&m, e0, e1));
    if (k > 0) ms.push_back(m);
    CHECK(cudaEventDestroy(e0));
    CHECK(cudaEventDestroy(e1));
  }
  if (!ms.empty()) {
    std::sort(ms.begin(), ms.end());
    const double t = ms[ms.size() / 2], cells = (double)len * (double)len;
    printf("pass %-7d%6.2f cells an SM a clock (at %.0f MHz), %.3f ms, %.2f T cells/s\n", len,
           cells / sms / (t * 1e-3 * mhz * 1e6), mhz, t, cells / (t * 1e-3) / 1e12);
  }
  skss_ctx_destroy(ctx);
}

/* The pass's kernel and launch on an L x L DNA pair (10% mutated), traced:
 * its time, when the bands end along the chain, how they spread over the SMs.
 * Band-only's step at the same warps an SM is the run time's floor. */
void probe_chain(int sms, int len) {
  constexpr int R = SKSS_CUDA_ALIGN_ROWS;
  const int bands = (len + 32 * R - 1) / (32 * R);
  std::mt19937 rng(11);
  std::vector<uint8_t> a(len), b(len);
  for (auto &x : a) x = (uint8_t)(rng() % 4);
  for (int i = 0; i < len; i++) b[i] = rng() % 10 == 0 ? (uint8_t)(rng() % 4) : a[i];
  probe_data d(a, b, 1, bands);
  if (SKSS_MICRO_ALIGN_BITS) CHECK(cudaMalloc(&d.job.bits, skss__al_bits_bytes(len, len, R)));
  band_trace *dt;
  CHECK(cudaMalloc(&dt, (size_t)bands * sizeof(band_trace)));
  int warps = 1, blocks = 1;
  skss__cuda_align_shape(bands, sms, &warps, &blocks); /* the library's launch */
  const double ms = micro_median_ms([&] {
    CHECK(cudaMemsetAsync(d.counters, 0, d.counter_bytes));
    traced_pass<R><<<blocks, 32 * warps>>>(d.job, d.sub, d.ta, dt);
  });
  std::vector<band_trace> t(bands);
  CHECK(cudaMemcpy(t.data(), dt, t.size() * sizeof(band_trace), cudaMemcpyDeviceToHost));
  unsigned long long t0 = t[0].start, t1 = 0;
  for (const auto &x : t) {
    t0 = std::min(t0, x.start);
    t1 = std::max(t1, x.end);
  }
  std::vector<long long> run(bands), lag(bands > 1 ? bands - 1 : 1, 0);
  std::vector<int> per_sm(1024, 0);
  int same_sm = 0;
  for (int k = 0; k < bands; k++) {
    run[k] = (long long)(t[k].end - t[k].start);
    per_sm[t[k].sm % 1024]++;
    if (k > 0) {
      lag[k - 1] = (long long)(t[k].start - t[k - 1].start);
      same_sm += t[k].sm == t[k - 1].sm;
    }
  }
  std::vector<long long> sorted = run;
  std::sort(sorted.begin(), sorted.end());
  int lo = bands, hi = 0, used = 0; /* over the SMs that ran a band (%smid need not be dense) */
  for (int k = 0; k < 1024; k++) {
    if (per_sm[k] == 0) continue;
    used++;
    lo = std::min(lo, per_sm[k]);
    hi = std::max(hi, per_sm[k]);
  }
  const double cells = (double)len * (double)len;
  printf("chain %-7d%s R %d CH %d spin %d ns: %.3f ms (%.2f T cells/s), %d bands in %d blocks of %d warps; last start "
         "at %.1f ms (lag a band median %.1f us); run a band min %.1f / median %.1f / max %.1f ms, last band's %.1f ms; "
         "%d SMs ran bands, %d..%d each, next band on the same SM %.0f%%; traced span %.1f ms\n",
         len, SKSS_MICRO_ALIGN_BITS ? " bits" : "", R, skss__al::CH, SKSS_CUDA_TASKARRAY_SPIN_NS_MAX, ms, cells / (ms * 1e-3) / 1e12, bands, blocks, warps,
         (double)(t[bands - 1].start - t0) / 1e6, (double)median(lag) / 1e3, (double)sorted[0] / 1e6,
         (double)sorted[bands / 2] / 1e6, (double)sorted[bands - 1] / 1e6, (double)run[bands - 1] / 1e6, used, lo,
         hi, 100.0 * same_sm / std::max(1, bands - 1), (double)(t1 - t0) / 1e6);
  /* bands take their tickets at once while they all fit on the GPU, so the
   * ramp shows in when they end: bands 0, 1/8, ..., 7/8 of the way and the last */
  printf("chain %-7d ends (ms) at eighths:", len);
  for (int q = 0; q <= 8; q++) printf(" %.1f", (double)(t[std::min(bands - 1, q * bands / 8)].end - t0) / 1e6);
  printf("\n");
  if (SKSS_MICRO_ALIGN_BITS) {
    /* the warp's walk back through the last run's bits, one call with events around it */
    char *ops;
    long long *n, got = 0;
    CHECK(cudaMalloc(&ops, 2 * (size_t)len));
    CHECK(cudaMalloc(&n, sizeof *n));
    const double walk_ms = micro_median_ms([&] {
      CHECK(skss__cuda_align_walk(d.job.bits, R, len, len, d.a, d.b, 0, ops + 2 * (size_t)len, n, 0));
    });
    CHECK(cudaMemcpy(&got, n, sizeof got, cudaMemcpyDeviceToHost));
    printf("chain %-7d walk %.3f ms for %lld ops (%.1f ns an op)\n", len, walk_ms, got, walk_ms * 1e6 / (double)got);
    CHECK(cudaFree(ops));
    CHECK(cudaFree(n));
  }
  CHECK(cudaFree(dt));
}

}  // namespace

int main(int argc, char **argv) {
  const int sms = sm_count();
  if (argc > 1 && strcmp(argv[1], "chain") == 0) {
    /* lengths first, then the probes: a bad list runs nothing */
    std::vector<int> lens;
    for (char *s = argc > 2 ? argv[2] : (char *)""; *s;) {
      char *end = s;
      const long len = strtol(s, &end, 10);
      if (end == s || len < 1 || len > (1 << 30) || (*end != ',' && *end != '\0')) {
        fprintf(stderr, "usage: skss_micro_align chain L[,L...] (positive lengths)\n");
        return 2;
      }
      lens.push_back((int)len);
      s = *end == ',' ? end + 1 : end;
    }
    if (lens.empty()) {
      fprintf(stderr, "usage: skss_micro_align chain L[,L...] (positive lengths)\n");
      return 2;
    }
    for (int len : lens) probe_chain(sms, len);
    return 0;
  }
  const int cols = argc > 1 ? atoi(argv[1]) : 1 << 17;
  probe_int<0>("dpx", sms);
  probe_int<1>("imad", sms);
  const double mhz = probe_band(sms, cols);
  for (int len : {100000, 300000, 1000000}) probe_pass(sms, mhz, len);
  for (int len : {300000, 1000000}) probe_chain(sms, len);
  return 0;
}
