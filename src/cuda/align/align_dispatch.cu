/*
 * align_dispatch.cu — skss__cuda_align_pass(): a pass of cpu/align_impl.h's
 * contract on the GPU. The host keeps row 0 and column 0 (closed forms) and
 * their candidates, uploads the letter codes (host arrays) to the context's
 * device arena, runs the SKSS kernel (align_kernel.cu) on the context's
 * stream and downloads the last row, the checkpoint rows and the best cell
 * (a 64-bit key and its band's slot). Synchronous; core/align_api.c and
 * cpu/align_trace.c call it wherever a CPU pass would run (cuda backend).
 */
#include <string.h>

#include "align_cuda.cuh"

namespace {

const char *const FN = "skss_align()";

int32_t col0_f(const skss__align_pass *p, const skss__align_scores *sc, int64_t i) {
  return p->free_start ? SKSS__ALIGN_NEG : skss__al_col0(0, p->h00, p->f00, sc->open, sc->extend, i);
}
int32_t col0_h(const skss__align_pass *p, const skss__align_scores *sc, int64_t i) {
  return skss__al_col0(p->free_start, p->h00, p->f00, sc->open, sc->extend, i);
}

/* Candidates of row 0 and column 0 as the CPU pass considers them: along
 * each, H only falls after its first cell (gaps extend), so the first two
 * cells stand for the whole edge (the tie rule keeps the smallest index). */
void edge_candidates(const skss__align_pass *p, const skss__align_scores *sc, skss__align_best *b) {
  if (p->track == SKSS__ALIGN_TRACK_NONE) return;
  const int32_t h00 = p->free_start ? 0 : p->h00;
  const bool whole = p->track == SKSS__ALIGN_TRACK_ALL || p->rows == 0;
  if (whole) {
    skss__align_consider(b, h00, 0, 0);
    if (p->cols >= 1) skss__align_consider(b, skss__al_row0(p->free_start, p->h00, sc->open, sc->extend, 1), 0, 1);
  } else {
    skss__align_consider(b, p->cols == 0 ? h00 : skss__al_row0(p->free_start, p->h00, sc->open, sc->extend, p->cols),
                         0, p->cols);
  }
  if (p->rows == 0) return;
  if (p->track == SKSS__ALIGN_TRACK_ALL || p->cols == 0) skss__align_consider(b, col0_h(p, sc, 1), 1, 0);
  if (p->track == SKSS__ALIGN_TRACK_EDGE) skss__align_consider(b, col0_h(p, sc, p->rows), p->rows, 0);
}

/* Passes without cells (rows or cols 0): everything is row 0 or column 0. */
void edge_only(const skss__align_pass *p, const skss__align_scores *sc) {
  if (p->rows == 0) {
    p->h[0] = p->free_start ? 0 : p->h00;
    p->f[0] = p->free_start ? SKSS__ALIGN_NEG : p->f00;
    for (int64_t j = 1; j <= p->cols; j++) {
      p->h[j] = skss__al_row0(p->free_start, p->h00, sc->open, sc->extend, j);
      p->f[j] = SKSS__ALIGN_NEG;
    }
    return;
  }
  p->h[0] = col0_h(p, sc, p->rows);
  p->f[0] = col0_f(p, sc, p->rows);
  for (int64_t k = 0; k < p->saves; k++) {
    p->save_h[k] = col0_h(p, sc, (k + 1) * p->save_every);
    p->save_f[k] = col0_f(p, sc, (k + 1) * p->save_every);
  }
}

/* Device memory of one pass, carved from the context's arena. */
struct layout {
  size_t counters, key, slot, sub, a, b, h, f, save_h, save_f, total;
};

layout plan(const skss__align_pass *p, int bands) {
  layout l;
  const size_t row = skss__cuda_align((size_t)(p->cols + 1) * sizeof(int32_t));
  const size_t saves = skss__cuda_align((size_t)p->saves * (size_t)(p->cols + 1) * sizeof(int32_t));
  l.counters = 0;
  l.key = skss__dev_taskarray_bytes(bands);
  l.slot = l.key + 256;
  l.sub = l.slot + skss__cuda_align((size_t)bands * sizeof(int2));
  l.a = l.sub + skss__cuda_align(sizeof(int32_t) * SKSS__ALIGN_CODES * SKSS__ALIGN_CODES);
  /* 64 bytes past b: the kernel's last steady step reads one code ahead */
  l.b = l.a + skss__cuda_align((size_t)p->rows + 64);
  l.h = l.b + skss__cuda_align((size_t)p->cols + 64);
  l.f = l.h + row;
  l.save_h = l.f + row;
  l.save_f = l.save_h + saves;
  l.total = l.save_f + saves;
  return l;
}

/* Copies the pass's results back and fills in column 0. */
skss_status download(skss_ctx *ctx, const skss__align_scores *sc, skss__align_pass *p, const skss__al_job &job,
                     int bands) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t cols = (size_t)p->cols;
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(p->h + 1, job.h + 1, cols * 4, cudaMemcpyDeviceToHost, stream));
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(p->f + 1, job.f + 1, cols * 4, cudaMemcpyDeviceToHost, stream));
  if (p->saves > 0) {
    const size_t bytes = (size_t)p->saves * (cols + 1) * 4;
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(p->save_h, job.save_h, bytes, cudaMemcpyDeviceToHost, stream));
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(p->save_f, job.save_f, bytes, cudaMemcpyDeviceToHost, stream));
  }
  unsigned long long key = 0;
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(&key, job.key, sizeof key, cudaMemcpyDeviceToHost, stream));
  SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(stream));
  p->h[0] = col0_h(p, sc, p->rows);
  p->f[0] = col0_f(p, sc, p->rows);
  for (int64_t k = 0; k < p->saves; k++) {
    p->save_h[(size_t)k * (cols + 1)] = col0_h(p, sc, (k + 1) * p->save_every);
    p->save_f[(size_t)k * (cols + 1)] = col0_f(p, sc, (k + 1) * p->save_every);
  }
  if (p->track == SKSS__ALIGN_TRACK_EDGE)
    for (int64_t j = 1; j <= (int64_t)cols; j++) skss__align_consider(&p->best, p->h[j], p->rows, j);
  if (key != 0) {
    const int band = (int)(0xffffffffull - (key & 0xffffffffull));
    if (band < 0 || band >= bands)
      return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: the pass's best names band %d of %d (a bug)", FN, band, bands);
    int2 at;
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(&at, job.slot + band, sizeof at, cudaMemcpyDeviceToHost, stream));
    SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(stream));
    const int64_t score = (int64_t)(int32_t)((unsigned)(key >> 32) ^ 0x80000000u);
    skss__align_consider(&p->best, score, at.x, at.y);
  }
  return SKSS_OK;
}

}  // namespace

extern "C" skss_status skss__cuda_align_pass(skss_ctx *ctx, const skss__align_scores *sc, skss__align_pass *p) {
  p->best.score = INT64_MIN;
  p->best.i = p->best.j = INT64_MAX;
  edge_candidates(p, sc, &p->best);
  if (p->rows == 0 || p->cols == 0) {
    edge_only(p, sc);
    return SKSS_OK;
  }
  int sms = 0;
  SKSS_CUDA_TRY(ctx, FN, skss__cuda_sm_count(ctx, &sms));
  const int lane_rows = skss__cuda_align_lane_rows(p->rows, sms), band_rows = 32 * lane_rows;
  const int bands = (int)((p->rows + band_rows - 1) / band_rows);
  const layout l = plan(p, bands);
  uint8_t *dev = static_cast<uint8_t *>(skss__cuda_scratch(ctx, FN, l.total));
  if (dev == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  cudaStream_t stream = skss__cuda(ctx)->stream;
  skss__al_job job;
  memset(&job, 0, sizeof job);
  job.a = dev + l.a;
  job.b = dev + l.b;
  job.rows = (int)p->rows;
  job.cols = (int)p->cols;
  job.lane_rows = lane_rows;
  job.free_start = p->free_start;
  job.local = p->local;
  job.track = (int)p->track;
  job.h00 = p->h00;
  job.f00 = p->f00;
  job.open = sc->open;
  job.extend = sc->extend;
  job.save_every = (int)p->save_every;
  job.saves = p->saves > 0 ? (int)p->saves : 0;
  job.save_h = reinterpret_cast<int32_t *>(dev + l.save_h);
  job.save_f = reinterpret_cast<int32_t *>(dev + l.save_f);
  job.h = reinterpret_cast<int32_t *>(dev + l.h);
  job.f = reinterpret_cast<int32_t *>(dev + l.f);
  job.key = reinterpret_cast<unsigned long long *>(dev + l.key);
  job.slot = reinterpret_cast<int2 *>(dev + l.slot);
  /* the task array's counters and the best key start at 0 */
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(dev, 0, l.slot, stream));
  /* the padding after b is read (never used) by the last steady step */
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(dev + l.b, 0, l.h - l.b, stream));
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(dev + l.a, p->a, (size_t)p->rows, cudaMemcpyHostToDevice, stream));
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(dev + l.b, p->b, (size_t)p->cols, cudaMemcpyHostToDevice, stream));
  /* match/mismatch too: a table load is cheaper on the GPU than compare and select */
  const int32_t *sub = reinterpret_cast<const int32_t *>(dev + l.sub);
  SKSS_CUDA_TRY(ctx, FN, cudaMemcpyAsync(dev + l.sub, sc->sub, sizeof sc->sub, cudaMemcpyHostToDevice, stream));
  skss_status st = skss__cuda_align_launch(ctx, &job, sub, dev);
  if (st == SKSS_OK) st = download(ctx, sc, p, job, bands);
  return st;
}
