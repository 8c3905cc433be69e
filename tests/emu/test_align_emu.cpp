/*
 * test_align_emu.cpp — the cuda backend's alignment pass without a GPU: the
 * host side (src/cuda/align/align_dispatch.cu, via align_emu_dispatch.cpp) and
 * the kernel's device code (align_band.cuh) on CPU threads (align_emu.h: one
 * block of 1 to 4 warps taking bands by ticket, waiting and publishing as on
 * the GPU) against the CPU pass (cpu/align_impl.h) on random passes: rows and
 * columns around the band (512 rows), the 32-step blocks and the 64-column
 * chunks, 0 and 1 included; every best-cell track, free and anchored starts,
 * the local clamp, checkpoint rows, scores near the int32 range, both rows a
 * lane (SKSS_CUDA_ALIGN_ROWS and _SHORT, by the SM count), on the context's
 * path and (every other case) a traceback lane's, with its page-locked
 * staging. The last row's H and F, the checkpoint rows and the best cell
 * must be identical. Emulated device and staging memory start poisoned; a
 * failed launch on a lane must leave its message in the lane, not the context. SKSS_TEST_SMALL=1: fewer cases;
 * SKSS_TEST_SEED overrides the seed. Not a timing: the GPU runs tests/cuda/.
 */
#include <cuda_runtime.h>

#include "cuda/align/align_cuda.cuh"
#include "align_emu.h"
#include "cuda/align/align_band.cuh"

#include <memory>
#include <random>
#include <vector>

extern "C" skss_status skss_emu_align_pass(skss_ctx *ctx, const skss__align_scores *sc, skss__align_pass *p);
extern "C" skss_status skss_emu_align_lane_pass(skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                                skss__align_pass *p);
extern "C" skss_status skss_emu_align_segment(skss_ctx *ctx, skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                              const uint8_t *a, const uint8_t *b, int64_t rows, int64_t cols,
                                              int start_v, int end_v, char *ops, int64_t *len, int64_t *score);
extern "C" void skss_emu_ref_pass(const skss__align_scores *sc, skss__align_pass *p);

using skss__al::CH;
using skss__al::pass_kernel;

extern "C" {
cudaError_t skss_emu_memcpy_async(void *dst, const void *src, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memcpy(dst, src, n);
  return cudaSuccess;
}
cudaError_t skss_emu_memset_async(void *p, int v, size_t n, cudaStream_t) {
  std::memset(p, v, n);
  return cudaSuccess;
}
cudaError_t skss_emu_stream_synchronize(cudaStream_t) { return cudaSuccess; }
const char *skss_emu_error_string(cudaError_t) { return "emulated"; }
/* never reached: each case sets the emulated context's SM count */
cudaError_t skss_emu_device_get_attribute(int *, cudaDeviceAttr, int) { return cudaErrorNoDevice; }
}

static std::vector<unsigned char> arena;
void *skss_emu_scratch(skss_ctx *, const char *, size_t bytes) {
  arena.assign(bytes + 256, 0xA5); /* poison: nothing may be read before it is written */
  return reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(arena.data()) + 255) & ~(uintptr_t)255);
}

static std::vector<unsigned char> lane_dev, lane_host;
skss_status skss_emu_lane_reserve(skss__cuda_align_lane *lane, size_t dev_bytes, size_t host_bytes) {
  lane_dev.assign(dev_bytes + 256, 0xA5); /* poison, as the arena */
  lane_host.assign(host_bytes + 256, 0x5A);
  lane->dev = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(lane_dev.data()) + 255) & ~(uintptr_t)255);
  lane->host = reinterpret_cast<void *>((reinterpret_cast<uintptr_t>(lane_host.data()) + 255) & ~(uintptr_t)255);
  lane->dev_bytes = dev_bytes;
  lane->host_bytes = host_bytes;
  return SKSS_OK;
}

static int emu_warps = 4;
static int emu_lane_rows_seen = 0; /* bit 0: a short-rows pass ran, bit 1: a full one */
static cudaError_t emu_launch_error = cudaSuccess; /* the launch's answer when not cudaSuccess */

cudaError_t skss_emu_align_launch(const skss__al_job *job, const int32_t *sub, void *counters, int /* sms */,
                                  cudaStream_t, const char **what) {
  if (emu_launch_error != cudaSuccess) {
    *what = "the emulated launch";
    return emu_launch_error;
  }
  const int bands = (job->rows + 32 * job->lane_rows - 1) / (32 * job->lane_rows);
  const int chunks = (job->cols + CH - 1) / CH;
  skss_cuda_taskarray_view ta;
  skss__dev_taskarray_carve(&ta, counters, bands, chunks, SKSS_TASKARRAY_KIND_FAIR, 1);
  const bool all = job->track == SKSS__ALIGN_TRACK_ALL;
  using kernel = void (*)(skss__al_job, const int32_t *, skss_cuda_taskarray_view);
  const bool shrt = job->lane_rows == SKSS_CUDA_ALIGN_ROWS_SHORT;
  if (!shrt && job->lane_rows != SKSS_CUDA_ALIGN_ROWS) {
    std::fprintf(stderr, "lane_rows %d\n", job->lane_rows);
    emu_faults++;
    return cudaSuccess;
  }
  const kernel k =
      job->bits != nullptr ? (shrt ? pass_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT, false, false, true>
                                   : pass_kernel<SKSS_CUDA_ALIGN_ROWS, false, false, true>) :
      shrt ? (job->local ? (all ? pass_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT, true, true> : pass_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT, true, false>)
                         : (all ? pass_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT, false, true> : pass_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT, false, false>))
           : (job->local ? (all ? pass_kernel<SKSS_CUDA_ALIGN_ROWS, true, true> : pass_kernel<SKSS_CUDA_ALIGN_ROWS, true, false>)
                         : (all ? pass_kernel<SKSS_CUDA_ALIGN_ROWS, false, true> : pass_kernel<SKSS_CUDA_ALIGN_ROWS, false, false>));
  emu_lane_rows_seen |= shrt ? 1 : 2;
  const int n = 32 * emu_warps;
  std::barrier<> blockbar(n);
  emu_block = &blockbar;
  emu_block_dim = n;
  auto warps = std::make_unique<emu_warp[]>((size_t)emu_warps);
  std::vector<std::thread> th;
  const skss__al_job j = *job;
  for (int t = 0; t < n; t++)
    th.emplace_back([&, t] {
      emu_tid = t;
      emu_lane = t & 31;
      emu_w = &warps[t / 32];
      k(j, sub, ta);
    });
  for (auto &x : th) x.join();
  for (int b = 0; b < bands; b++)
    if (ta.progress[b] != chunks) { std::fprintf(stderr, "band %d published %d of %d\n", b, ta.progress[b], chunks); emu_faults++; }
  return cudaSuccess;
}

/* walk_kernel on one emulated warp. */
static void emu_walk(const void *bits, int lane_rows, int rows, int cols, const uint8_t *a,
                     const uint8_t *b, int end_v, char *ops_end, long long *len) {
  std::barrier<> blockbar(32);
  emu_block = &blockbar;
  emu_block_dim = 32;
  emu_warp w;
  std::vector<std::thread> th;
  for (int t = 0; t < 32; t++)
    th.emplace_back([&, t] {
      emu_tid = t;
      emu_lane = t;
      emu_w = &w;
      if (lane_rows == SKSS_CUDA_ALIGN_ROWS_SHORT)
        skss__al::walk_kernel<SKSS_CUDA_ALIGN_ROWS_SHORT>(bits, rows, cols, a, b, end_v, ops_end, len);
      else
        skss__al::walk_kernel<SKSS_CUDA_ALIGN_ROWS>(bits, rows, cols, a, b, end_v, ops_end, len);
    });
  for (auto &x : th) x.join();
}

cudaError_t skss_emu_align_walk(const void *bits, int lane_rows, int rows, int cols, const uint8_t *a,
                                const uint8_t *b, int end_v, char *ops_end, long long *len, cudaStream_t) {
  emu_walk(bits, lane_rows, rows, cols, a, b, end_v, ops_end, len);
  return cudaSuccess;
}

/* The score of ops[0, len) from (0, 0): its end in *i, *j; a first
 * vertical gap costs e with start_v; INT64_MIN when an op is wrong ('=' on
 * different letters, 'X' on equal ones, a move past row `rows` or column
 * `cols`) or, with end_v, the last is not 'I'. */
static int64_t rescore(const char *op, int64_t len, const uint8_t *a, int64_t rows, const uint8_t *b, int64_t cols,
                       const int32_t *sub, int32_t o, int32_t e, bool start_v, bool end_v, int64_t *i, int64_t *j) {
  int64_t score = 0;
  char prev = start_v ? 'I' : 0;
  for (int64_t k = 0; k < len; k++) {
    if ((op[k] != 'D' && *i >= rows) || (op[k] != 'I' && *j >= cols)) return INT64_MIN; /* past the segment */
    if (op[k] == '=' || op[k] == 'X') {
      if ((op[k] == '=') != (a[*i] == b[*j])) return INT64_MIN;
      score += sub[a[(*i)++] * 32 + b[(*j)++]];
    } else if (op[k] == 'I' || op[k] == 'D') {
      score -= op[k] == prev ? e : o;
      (op[k] == 'I' ? *i : *j)++;
    } else {
      return INT64_MIN;
    }
    prev = op[k];
  }
  return end_v && (len == 0 || op[len - 1] != 'I') ? INT64_MIN : score;
}

/* Direction bits: a global pass with bits, run on emulated warps, against the
 * nibble of every cell from a full-matrix Gotoh with the same borders (the
 * closed forms of row 0 and column 0) and the same ties (the diagonal, then E
 * over F; a gap extends on ties). Returns the number of cells that differ. */
static long bits_cases(std::mt19937 &rng, int cases) {
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  long bad = 0, walks = 0;
  for (int c = 0; c < cases && bad == 0; c++) {
    const int rows = rnd(1, 700), cols = rnd(1, 300), letters = rnd(1, 24);
    const int lane_rows = rnd(0, 1) ? SKSS_CUDA_ALIGN_ROWS : SKSS_CUDA_ALIGN_ROWS_SHORT;
    emu_warps = rnd(1, 4);
    std::vector<int32_t> sub(SKSS__ALIGN_CODES * SKSS__ALIGN_CODES, 0);
    for (int x = 0; x < letters; x++)
      for (int y = 0; y < letters; y++) sub[x * 32 + y] = x == y ? rnd(0, 9) : rnd(-6, 2);
    const int32_t o = rnd(0, 12), e = rnd(0, o);
    std::vector<uint8_t> a(rows + SKSS__ALIGN_PAD), b(cols + 64);
    for (int i = 0; i < rows; i++) a[i] = (uint8_t)rnd(0, letters - 1);
    for (int j = 0; j < cols; j++) b[j] = (uint8_t)rnd(0, letters - 1);
    const int bands = (rows + 32 * lane_rows - 1) / (32 * lane_rows);
    const int chunks = (cols + CH - 1) / CH;
    std::vector<int32_t> h(cols + 1), f(cols + 1);
    std::vector<uint8_t> bits(skss__al_bits_bytes(rows, cols, lane_rows), 0xFF);
    std::vector<uint8_t> counters(skss__dev_taskarray_bytes(bands), 0);
    skss__al_job job;
    std::memset(&job, 0, sizeof job);
    job.a = a.data();
    job.b = b.data();
    job.rows = rows;
    job.cols = cols;
    job.lane_rows = lane_rows;
    /* every other case a traceback segment, whose path the walk checks:
     * from (0, 0), or (start_v) continuing a vertical gap opened before it */
    const bool plain = c % 2 == 0, start_v = plain && c % 4 == 2;
    job.free_start = plain ? 0 : rnd(0, 1);
    job.h00 = start_v ? SKSS__ALIGN_NEG : job.free_start || plain ? 0 : rnd(-7, 0);
    job.f00 = start_v ? 0 : plain || rnd(0, 1) ? SKSS__ALIGN_NEG : e - o;
    job.open = o;
    job.extend = e;
    job.h = h.data();
    job.f = f.data();
    job.bits = bits.data();
    const char *what = "";
    if (skss_emu_align_launch(&job, sub.data(), counters.data(), 1, nullptr, &what) != cudaSuccess) return -1;
    /* the reference, in 64 bits: H, E, F of rows i - 1 and i */
    const int64_t NEG = SKSS__ALIGN_NEG;
    std::vector<int64_t> H0(cols + 1), F0(cols + 1, NEG), H1(cols + 1), F1(cols + 1);
    H0[0] = job.free_start ? 0 : job.h00;
    for (int j = 1; j <= cols; j++) H0[j] = skss__al_row0(job.free_start, job.h00, o, e, j);
    for (int i = 1; i <= rows; i++) {
      H1[0] = skss__al_col0(job.free_start, job.h00, job.f00, o, e, i);
      int64_t E = NEG;
      for (int j = 1; j <= cols; j++) {
        const bool e_ext = E - e >= H1[j - 1] - o, f_ext = F0[j] - e >= H0[j] - o;
        E = std::max(E - e, H1[j - 1] - o);
        F1[j] = std::max(F0[j] - e, H0[j] - o);
        const int64_t d = H0[j - 1] + sub[a[i - 1] * 32 + b[j - 1]], mx = std::max(E, F1[j]);
        H1[j] = std::max(d, mx);
        const unsigned want = (d >= mx ? SKSS__AL_FROM_DIAG : E >= F1[j] ? SKSS__AL_FROM_E : SKSS__AL_FROM_F) |
                              (e_ext ? SKSS__AL_E_EXT : 0u) | (f_ext ? SKSS__AL_F_EXT : 0u);
        const unsigned got = skss__al_nibble(bits.data(), lane_rows, cols, i, j);
        if (got != want && bad++ == 0)
          std::printf("bits case %d (%dx%d, %d rows a lane): cell (%d, %d) has %x, want %x\n", c, rows, cols,
                      lane_rows, i, j, got, want);
      }
      std::swap(H0, H1);
      std::swap(F0, F1);
    }
    if (emu_faults) bad++;
    /* the walk's path scores the optimum (ending in H, or with end_v in F; a
     * first vertical gap with start_v costs e a letter), and the warp's walk
     * takes the same path */
    /* (one row cannot both continue a vertical gap and end with another) */
    for (int end_v = 0; end_v < (start_v && rows < 2 ? 1 : 2) && plain && bad == 0; end_v++) {
      std::vector<char> ops((size_t)rows + cols), gpu_ops((size_t)rows + cols);
      const int64_t len = skss__al_walk_bits(bits.data(), lane_rows, rows, cols, a.data(), b.data(), end_v,
                                             ops.data() + ops.size());
      long long gpu_len = -1;
      emu_walk(bits.data(), lane_rows, rows, cols, a.data(), b.data(), end_v, gpu_ops.data() + gpu_ops.size(),
               &gpu_len);
      if (gpu_len != len || !std::equal(ops.end() - len, ops.end(), gpu_ops.end() - len)) {
        std::printf("bits case %d: the warp's walk (%lld ops) differs from the host's (%lld)\n", c, gpu_len,
                    (long long)len);
        bad++;
      }
      const int64_t want = end_v ? F0[cols] : H0[cols];
      int64_t i = 0, j = 0;
      const int64_t score = rescore(ops.data() + ops.size() - len, len, a.data(), rows, b.data(), cols, sub.data(), o,
                                    e, start_v, end_v, &i, &j);
      if (i != rows || j != cols || score != want) {
        std::printf("bits case %d (end_v %d): the walk ends at (%lld, %lld) with %lld, want (%d, %d) with %lld\n",
                    c, end_v, (long long)i, (long long)j, (long long)score, rows, cols, (long long)want);
        bad++;
      }
      walks++;
    }
  }
  if (walks == 0 && bad == 0) {
    std::printf("bits cases: no walk was checked\n");
    bad++;
  }
  return bad;
}

/* Segments solved whole (align_dispatch.cu's skss__cuda_align_segment: the
 * bits pass, the warp's walk, the copies back), on the context's path and a
 * lane's: the optimum must be the CPU pass's (anchored as start_v says, H or
 * with end_v F of the last cell) and the ops must score it. */
static long segment_cases(std::mt19937 &rng, skss_ctx *ctx, skss__cuda_state &state, skss__cuda_align_lane &lane,
                          int cases) {
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  long bad = 0;
  for (int c = 0; c < cases && bad == 0; c++) {
    static const int RS[] = {1, 2, 31, 33, 127, 129, 511, 513, 700, 1600};
    static const int CS[] = {1, 2, 31, 33, 64, 65, 97, 300};
    const int rows = RS[rnd(0, 9)], cols = CS[rnd(0, 7)], letters = rnd(1, 24), start_v = rnd(0, 1);
    /* one row cannot both continue a vertical gap and end with another (no split makes that piece) */
    const int end_v = start_v && rows < 2 ? 0 : rnd(0, 1);
    emu_warps = rnd(1, 4);
    state.sms = lane.sms = rnd(0, 1) ? 1 : 132; /* 16 or 4 rows a lane */
    skss__align_scores sc;
    std::memset(&sc, 0, sizeof sc);
    for (int x = 0; x < letters; x++)
      for (int y = 0; y < letters; y++) sc.sub[x * 32 + y] = x == y ? rnd(0, 9) : rnd(-6, 2);
    sc.open = rnd(0, 12);
    sc.extend = rnd(0, sc.open);
    std::vector<uint8_t> a(rows + SKSS__ALIGN_PAD), b(cols + SKSS__ALIGN_PAD);
    for (int i = 0; i < rows; i++) a[i] = (uint8_t)rnd(0, letters - 1);
    for (int j = 0; j < cols; j++) b[j] = (uint8_t)rnd(0, letters - 1);
    std::vector<int32_t> h(cols + 1), f(cols + 1);
    skss__align_pass q;
    std::memset(&q, 0, sizeof q);
    q.a = a.data();
    q.b = b.data();
    q.rows = rows;
    q.cols = cols;
    q.h00 = start_v ? SKSS__ALIGN_NEG : 0;
    q.f00 = start_v ? 0 : SKSS__ALIGN_NEG;
    q.h = h.data();
    q.f = f.data();
    skss_emu_ref_pass(&sc, &q);
    const int64_t want = end_v ? f[cols] : h[cols];
    const bool on_lane = c % 2 == 1;
    std::vector<char> ops((size_t)rows + cols, '?');
    int64_t len = -1, got = INT64_MIN;
    const skss_status st = skss_emu_align_segment(ctx, on_lane ? &lane : nullptr, &sc, a.data(), b.data(), rows, cols,
                                                  start_v, end_v, ops.data(), &len, &got);
    int64_t i = 0, j = 0;
    const int64_t score = st == SKSS_OK ? rescore(ops.data(), len, a.data(), rows, b.data(), cols, sc.sub, sc.open,
                                                  sc.extend, start_v, end_v, &i, &j)
                                        : INT64_MIN;
    if (st != SKSS_OK || got != want || score != want || i != rows || j != cols || emu_faults) {
      std::printf("segment case %d (%dx%d start_v %d end_v %d%s): %s, optimum %lld (want %lld), ops score %lld "
                  "ending at (%lld, %lld)\n",
                  c, rows, cols, start_v, end_v, on_lane ? " lane" : "",
                  st == SKSS_OK ? "ok" : on_lane ? lane.message : skss_ctx_last_error(ctx), (long long)got,
                  (long long)want, (long long)score, (long long)i, (long long)j);
      bad++;
    }
  }
  return bad;
}

int main(int argc, char **argv) {
  const char *env_seed = std::getenv("SKSS_TEST_SEED"), *small = std::getenv("SKSS_TEST_SMALL");
  const unsigned seed = argc > 1 ? (unsigned)std::atoi(argv[1]) : env_seed ? (unsigned)std::atoi(env_seed) : 1u;
  const int cases = argc > 2 ? std::atoi(argv[2]) : small != nullptr && std::strcmp(small, "0") != 0 ? 15 : 80;
  std::printf("seed %u, %d cases\n", seed, cases);
  std::mt19937 rng(seed);
  auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  skss_ctx_desc cd = SKSS_CTX_DESC_INIT;
  cd.backend = SKSS_BACKEND_CPU_REF;
  skss_ctx *ctx = nullptr;
  if (skss_ctx_create(&cd, &ctx) != SKSS_OK) return 2;
  skss__cuda_state state;
  std::memset(&state, 0, sizeof state);
  ctx->cuda = &state;
  skss__cuda_align_lane lane;
  std::memset(&lane, 0, sizeof lane);
  /* the launch's shape: one block an SM (or a band), each with the fewest
   * warps that give every band a warp, up to the cap (then every SM full) */
  for (int sms : {1, 2, 114, 132})
    for (int64_t bands : {0, 1, 2, 31, 131, 132, 133, 586, 1954, 2112, 2113, 20000}) {
      int w = 0, bl = 0;
      skss__cuda_align_shape(bands, sms, &w, &bl);
      const int64_t need = std::max<int64_t>(bands, 1);
      const bool cover = (int64_t)w * bl >= need || (w == SKSS_CUDA_ALIGN_WARPS && bl == sms);
      if (w < 1 || w > SKSS_CUDA_ALIGN_WARPS || bl != std::min<int64_t>(need, sms) || !cover ||
          (int64_t)(w - 1) * bl >= need) {
        std::printf("shape: %lld bands on %d SMs gave %d blocks of %d warps\n", (long long)bands, sms, bl, w);
        return 1;
      }
    }
  std::printf("launch shapes: ok\n");
  {
    const long bad = bits_cases(rng, cases / 2 + 2);
    std::printf("direction bits: %s\n", bad == 0 ? "ok" : "MISMATCH");
    if (bad != 0) return 1;
  }
  {
    const long bad = segment_cases(rng, ctx, state, lane, cases / 2 + 2);
    std::printf("segments solved whole: %s\n", bad == 0 ? "ok" : "MISMATCH");
    if (bad != 0) return 1;
  }
  /* rows around both band heights (128 and 512 rows); over 1536 a pass on
   * one SM keeps 16 rows a lane (4 bands), below it takes 4 (the chooser) */
  static const int RS[] = {0, 1, 2, 5, 31, 32, 33, 100, 127, 128, 129, 511, 512, 513, 700, 1100, 1600, 2100};
  static const int CS[] = {0, 1, 2, 31, 32, 33, 63, 64, 65, 95, 96, 97, 130, 300, 1000};
  for (int c = 0; c < cases; c++) {
    emu_warps = rnd(1, 4);
    skss__align_scores sc;
    std::memset(&sc, 0, sizeof sc);
    const int letters = rnd(1, 24);
    for (int x = 0; x < letters; x++)
      for (int y = 0; y < letters; y++) sc.sub[x * 32 + y] = x == y ? rnd(0, 9) : rnd(-6, 2);
    sc.open = rnd(0, 12);
    sc.extend = rnd(0, sc.open);
    if (rnd(0, 9) == 0) {
      sc.open = 200000; sc.extend = rnd(0, 200000);
      for (int x = 0; x < letters * 32; x++) sc.sub[x] *= 20000;
    }
    int rows = RS[rnd(0, 17)];
    const int cols = CS[rnd(0, 14)];
    /* the rows' chooser sees one SM or an H100's: every 5th case takes 16
     * rows a lane for sure (one SM, >= 4 bands of 512), every 4th 4 rows */
    state.sms = c % 4 == 3 ? 132 : 1;
    if (c % 5 == 4) rows = c % 10 == 4 ? 1600 : 2100;
    std::vector<uint8_t> a(rows + 1), b(cols + 1);
    for (auto &x : a) x = (uint8_t)rnd(0, letters - 1);
    for (auto &x : b) x = (uint8_t)rnd(0, letters - 1);
    skss__align_pass p;
    std::memset(&p, 0, sizeof p);
    p.a = a.data(); p.b = b.data(); p.rows = rows; p.cols = cols;
    p.free_start = rnd(0, 1); p.local = rnd(0, 2) == 0; p.track = (skss__align_track)rnd(0, 2);
    static const int32_t H00[] = {0, SKSS__ALIGN_NEG, -7};
    p.h00 = H00[rnd(0, 2)];
    p.f00 = rnd(0, 1) ? SKSS__ALIGN_NEG : sc.extend - sc.open;
    if (rows >= 64 && rnd(0, 1)) {
      p.save_every = 64 * rnd(1, std::max(1, rows / 128));
      p.saves = rnd(1, rows / (int)p.save_every);
    }
    const size_t W = (size_t)cols + 1, S = (size_t)p.saves * W;
    std::vector<int32_t> h1(W), f1(W), h2(W), f2(W), sh1(S + 1), sf1(S + 1), sh2(S + 1), sf2(S + 1);
    skss__align_pass q = p;
    p.h = h1.data(); p.f = f1.data(); p.save_h = sh1.data(); p.save_f = sf1.data();
    q.h = h2.data(); q.f = f2.data(); q.save_h = sh2.data(); q.save_f = sf2.data();
    skss_emu_ref_pass(&sc, &q);
    const bool on_lane = c % 2 == 1;
    lane.sms = state.sms;
    if (on_lane ? skss_emu_align_lane_pass(&lane, &sc, &p) != SKSS_OK : skss_emu_align_pass(ctx, &sc, &p) != SKSS_OK) {
      std::printf("case %d: failed: %s\n", c, on_lane ? lane.message : skss_ctx_last_error(ctx));
      return 1;
    }
    bool same = h1 == h2 && f1 == f2 && sh1 == sh2 && sf1 == sf2 && p.best.score == q.best.score &&
                (p.track == SKSS__ALIGN_TRACK_NONE || (p.best.i == q.best.i && p.best.j == q.best.j));
    std::printf("case %d: %dx%d warps %d local %d track %d free %d saves %lld/%lld%s: %s\n", c, rows, cols,
                emu_warps, (int)p.local, (int)p.track, (int)p.free_start, (long long)p.saves, (long long)p.save_every,
                on_lane ? " lane" : "", same && emu_faults == 0 ? "ok" : "MISMATCH");
    if (!same || emu_faults) {
      std::printf("  best %lld (%lld,%lld) want %lld (%lld,%lld); h %d f %d saves %d %d\n", (long long)p.best.score,
                  (long long)p.best.i, (long long)p.best.j, (long long)q.best.score, (long long)q.best.i,
                  (long long)q.best.j, h1 == h2, f1 == f2, sh1 == sh2, sf1 == sf2);
      return 1;
    }
  }
  {
    /* a failure on a lane stays in the lane (the context's last error is the calling thread's) */
    skss__align_scores sc;
    std::memset(&sc, 0, sizeof sc);
    sc.open = 2;
    sc.extend = 1;
    std::vector<uint8_t> a(100, 1), b(100, 2);
    std::vector<int32_t> h(101), f(101);
    skss__align_pass p;
    std::memset(&p, 0, sizeof p);
    p.a = a.data(); p.b = b.data(); p.rows = 100; p.cols = 100; p.h = h.data(); p.f = f.data();
    p.f00 = SKSS__ALIGN_NEG;
    emu_launch_error = cudaErrorLaunchFailure;
    const skss_status st = skss_emu_align_lane_pass(&lane, &sc, &p);
    emu_launch_error = cudaSuccess;
    const bool kept = st == SKSS_ERR_CUDA && lane.status == SKSS_ERR_CUDA &&
                      std::strstr(lane.message, "the emulated launch") != nullptr &&
                      skss_ctx_last_error(ctx)[0] == '\0';
    std::printf("lane failure: %s (%s)\n", kept ? "ok" : "WRONG", lane.message);
    if (!kept) return 1;
  }
  ctx->cuda = nullptr;
  skss_ctx_destroy(ctx);
  if (cases >= 5 && emu_lane_rows_seen != 3) {
    std::printf("the cases ran %s lane rows only\n", emu_lane_rows_seen == 1 ? "short" : "full");
    return 1;
  }
  return 0;
}
