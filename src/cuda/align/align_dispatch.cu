/*
 * align_dispatch.cu — skss__cuda_align_pass(): a pass of cpu/align_impl.h's
 * contract on the GPU. The host keeps row 0 and column 0 (closed forms) and
 * their candidates, uploads the letter codes (host arrays) to device memory,
 * runs the SKSS kernel (align_kernel.cu) and downloads the last row, the
 * checkpoint rows and the best cell (a 64-bit key and its band's slot).
 * Synchronous; core/align_api.c and cpu/align_trace.c call it wherever a CPU
 * pass would run (cuda backend). A pass runs either on the context (its
 * stream and device arena, failures on its last error) or on a lane
 * (skss__cuda_align_lane_pass(): the lane's stream, memory and page-locked
 * staging, failures kept in the lane), so that the traceback's host workers
 * can each run passes at once (align_lanes.cu makes the lanes).
 */
#include <stdarg.h>
#include <stdio.h>
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

/* Where a pass runs and where its failures go: the context (its stream,
 * device arena and last error: a call's own passes, on the calling thread)
 * or a lane (its stream, memory and failure record: a traceback worker,
 * beside other lanes; nothing of the context is touched). */
struct where {
  skss_ctx *ctx;               /* the context's path, else NULL */
  skss__cuda_align_lane *lane; /* a lane's path, else NULL */
  cudaStream_t stream;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
skss_status fail(const where &w, skss_status status, const char *fmt, ...) {
  char text[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  if (w.lane == NULL) return skss__fail(w.ctx, status, "%s", text);
  return skss__cuda_align_lane_fail(w.lane, status, "%s", text);
}

/* Evaluates a CUDA runtime call; on failure records "skss_align(): call:
 * message" where `w` says and returns SKSS_ERR_CUDA. */
#define AL_TRY(w, call)                                                                               \
  do {                                                                                                \
    const cudaError_t al_err_ = (call);                                                               \
    if (al_err_ != cudaSuccess) return fail((w), SKSS_ERR_CUDA, "%s: %s: %s", FN, #call, cudaGetErrorString(al_err_)); \
  } while (0)

/* Device memory of one pass, carved from the context's arena or the lane's block. */
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

/* A lane's page-locked staging of one pass: what goes up (codes, scores)
 * and what comes down (the last row, the checkpoint rows, the best key and
 * a slot), so that its copies are asynchronous and the pass waits once. */
struct staging {
  size_t a, b, sub, h, f, save_h, save_f, key, slot, total;
};

staging stage_plan(const skss__align_pass *p) {
  staging t;
  const size_t row = skss__cuda_align((size_t)p->cols * sizeof(int32_t));
  const size_t saves = skss__cuda_align((size_t)p->saves * (size_t)(p->cols + 1) * sizeof(int32_t));
  t.a = 0;
  t.b = t.a + skss__cuda_align((size_t)p->rows);
  t.sub = t.b + skss__cuda_align((size_t)p->cols);
  t.h = t.sub + skss__cuda_align(sizeof(int32_t) * SKSS__ALIGN_CODES * SKSS__ALIGN_CODES);
  t.f = t.h + row;
  t.save_h = t.f + row;
  t.save_f = t.save_h + saves;
  t.key = t.save_f + saves;
  t.slot = t.key + 256;
  t.total = t.slot + 256;
  return t;
}

/* Copies the pass's results back and fills in column 0. `host`: the lane's
 * staging (laid out by `t`), or NULL to copy straight into the pass's rows. */
skss_status download(const where &w, const skss__align_scores *sc, skss__align_pass *p, const skss__al_job &job,
                     int bands, uint8_t *host, const staging &t) {
  cudaStream_t stream = w.stream;
  const size_t cols = (size_t)p->cols;
  const size_t bytes = (size_t)p->saves * (cols + 1) * 4;
  int32_t *h = host != NULL ? reinterpret_cast<int32_t *>(host + t.h) : p->h + 1;
  int32_t *f = host != NULL ? reinterpret_cast<int32_t *>(host + t.f) : p->f + 1;
  int32_t *save_h = host != NULL ? reinterpret_cast<int32_t *>(host + t.save_h) : p->save_h;
  int32_t *save_f = host != NULL ? reinterpret_cast<int32_t *>(host + t.save_f) : p->save_f;
  unsigned long long key_here = 0;
  unsigned long long *key = host != NULL ? reinterpret_cast<unsigned long long *>(host + t.key) : &key_here;
  AL_TRY(w, cudaMemcpyAsync(h, job.h + 1, cols * 4, cudaMemcpyDeviceToHost, stream));
  AL_TRY(w, cudaMemcpyAsync(f, job.f + 1, cols * 4, cudaMemcpyDeviceToHost, stream));
  if (p->saves > 0) {
    AL_TRY(w, cudaMemcpyAsync(save_h, job.save_h, bytes, cudaMemcpyDeviceToHost, stream));
    AL_TRY(w, cudaMemcpyAsync(save_f, job.save_f, bytes, cudaMemcpyDeviceToHost, stream));
  }
  AL_TRY(w, cudaMemcpyAsync(key, job.key, sizeof *key, cudaMemcpyDeviceToHost, stream));
  AL_TRY(w, cudaStreamSynchronize(stream));
  if (host != NULL) {
    memcpy(p->h + 1, h, cols * 4);
    memcpy(p->f + 1, f, cols * 4);
    if (p->saves > 0) {
      memcpy(p->save_h, save_h, bytes);
      memcpy(p->save_f, save_f, bytes);
    }
  }
  p->h[0] = col0_h(p, sc, p->rows);
  p->f[0] = col0_f(p, sc, p->rows);
  for (int64_t k = 0; k < p->saves; k++) {
    p->save_h[(size_t)k * (cols + 1)] = col0_h(p, sc, (k + 1) * p->save_every);
    p->save_f[(size_t)k * (cols + 1)] = col0_f(p, sc, (k + 1) * p->save_every);
  }
  if (p->track == SKSS__ALIGN_TRACK_EDGE)
    for (int64_t j = 1; j <= (int64_t)cols; j++) skss__align_consider(&p->best, p->h[j], p->rows, j);
  if (*key != 0) {
    const int band = (int)(0xffffffffull - (*key & 0xffffffffull));
    if (band < 0 || band >= bands)
      return fail(w, SKSS_ERR_INTERNAL, "%s: the pass's best names band %d of %d (a bug)", FN, band, bands);
    int2 at_here;
    int2 *at = host != NULL ? reinterpret_cast<int2 *>(host + t.slot) : &at_here;
    AL_TRY(w, cudaMemcpyAsync(at, job.slot + band, sizeof *at, cudaMemcpyDeviceToHost, stream));
    AL_TRY(w, cudaStreamSynchronize(stream));
    const int64_t score = (int64_t)(int32_t)((unsigned)(*key >> 32) ^ 0x80000000u);
    skss__align_consider(&p->best, score, at->x, at->y);
  }
  return SKSS_OK;
}

/* The device's SM count: the lane's (cached when the lanes were made:
 * skss__cuda_sm_count() writes the context) or the context's. */
cudaError_t sm_count(const where &w, int *sms) {
  if (w.lane == NULL) return skss__cuda_sm_count(w.ctx, sms);
  *sms = w.lane->sms;
  return cudaSuccess;
}

/* A pass's device memory and staging: the lane's blocks (grown to the
 * sizes) or the context's arena (*host NULL: copies go to the host arrays). */
skss_status acquire(const where &w, size_t dev_bytes, size_t host_bytes, uint8_t **dev, uint8_t **host) {
  *host = NULL;
  if (w.lane != NULL) {
    const skss_status st = skss__cuda_align_lane_reserve(w.lane, dev_bytes, host_bytes);
    if (st != SKSS_OK) return st;
    *dev = static_cast<uint8_t *>(w.lane->dev);
    *host = static_cast<uint8_t *>(w.lane->host);
    return SKSS_OK;
  }
  *dev = static_cast<uint8_t *>(skss__cuda_scratch(w.ctx, FN, dev_bytes));
  return *dev != NULL ? SKSS_OK : SKSS_ERR_OUT_OF_MEMORY;
}

/* The job of pass p in device memory `dev` (laid out by l) and its
 * uploads on w's stream: the codes, the scores, the counters zeroed. `host`:
 * the lane's staging (laid out by t; the copies stay asynchronous), or NULL
 * to copy from the host arrays. */
skss_status upload(const where &w, const skss__align_scores *sc, const skss__align_pass *p, int lane_rows,
                   uint8_t *dev, uint8_t *host, const layout &l, const staging &t, skss__al_job *out) {
  cudaStream_t stream = w.stream;
  skss__al_job &job = *out;
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
  const void *up_a = p->a, *up_b = p->b, *up_sub = sc->sub;
  if (host != NULL) {
    memcpy(host + t.a, p->a, (size_t)p->rows);
    memcpy(host + t.b, p->b, (size_t)p->cols);
    memcpy(host + t.sub, sc->sub, sizeof sc->sub);
    up_a = host + t.a;
    up_b = host + t.b;
    up_sub = host + t.sub;
  }
  /* the task array's counters and the best key start at 0 */
  AL_TRY(w, cudaMemsetAsync(dev, 0, l.slot, stream));
  /* the padding after b is read (never used) by the last steady step */
  AL_TRY(w, cudaMemsetAsync(dev + l.b, 0, l.h - l.b, stream));
  AL_TRY(w, cudaMemcpyAsync(dev + l.a, up_a, (size_t)p->rows, cudaMemcpyHostToDevice, stream));
  AL_TRY(w, cudaMemcpyAsync(dev + l.b, up_b, (size_t)p->cols, cudaMemcpyHostToDevice, stream));
  /* match/mismatch too: a table load is cheaper on the GPU than compare and select */
  AL_TRY(w, cudaMemcpyAsync(dev + l.sub, up_sub, sizeof sc->sub, cudaMemcpyHostToDevice, stream));
  return SKSS_OK;
}

/* One pass where `w` says. */
skss_status run_pass(const where &w, const skss__align_scores *sc, skss__align_pass *p) {
  p->best.score = INT64_MIN;
  p->best.i = p->best.j = INT64_MAX;
  edge_candidates(p, sc, &p->best);
  if (p->rows == 0 || p->cols == 0) {
    edge_only(p, sc);
    return SKSS_OK;
  }
  int sms = 0;
  AL_TRY(w, sm_count(w, &sms));
  const int lane_rows = skss__cuda_align_lane_rows(p->rows, sms), band_rows = 32 * lane_rows;
  const int bands = (int)((p->rows + band_rows - 1) / band_rows);
  const layout l = plan(p, bands);
  const staging t = stage_plan(p);
  uint8_t *dev = NULL, *host = NULL;
  const skss_status got = acquire(w, l.total, t.total, &dev, &host);
  if (got != SKSS_OK) return got;
  skss__al_job job;
  const skss_status up = upload(w, sc, p, lane_rows, dev, host, l, t, &job);
  if (up != SKSS_OK) return up;
  cudaStream_t stream = w.stream;
  const int32_t *sub = reinterpret_cast<const int32_t *>(dev + l.sub);
  const char *what = "the pass kernel";
  const cudaError_t e = skss__cuda_align_launch(&job, sub, dev, sms, stream, &what);
  if (e != cudaSuccess) return fail(w, SKSS_ERR_CUDA, "%s: %s: %s", FN, what, cudaGetErrorString(e));
  return download(w, sc, p, job, bands, host, t);
}

/* A traceback segment solved whole where `w` says (skss__cuda_align_segment):
 * a pass anchored as start_v says that writes direction bits, the walk back
 * on one warp, then one copy back of the ops, their count and the last cell. */
skss_status run_segment(const where &w, const skss__align_scores *sc, const uint8_t *a, const uint8_t *b, int64_t rows,
                        int64_t cols, int start_v, int end_v, char *ops, int64_t *len, int64_t *score) {
  if (rows < 1 || cols < 1 || rows > INT32_MAX / 2 || cols > INT32_MAX / 2)
    return fail(w, SKSS_ERR_INTERNAL, "%s: a whole segment of %lld x %lld letters (a bug)", FN, (long long)rows,
                (long long)cols);
  int sms = 0;
  AL_TRY(w, sm_count(w, &sms));
  skss__align_pass p;
  memset(&p, 0, sizeof p);
  p.a = a;
  p.b = b;
  p.rows = rows;
  p.cols = cols;
  p.h00 = start_v ? SKSS__ALIGN_NEG : 0;
  p.f00 = start_v ? 0 : SKSS__ALIGN_NEG;
  const int lane_rows = skss__cuda_align_lane_rows(rows, sms), band_rows = 32 * lane_rows;
  const int bands = (int)((rows + band_rows - 1) / band_rows);
  const size_t moves = (size_t)(rows + cols);
  /* device: the pass's, then its bits, the ops and their count */
  const layout l = plan(&p, bands);
  const size_t bits_at = l.total, ops_at = bits_at + skss__cuda_align(skss__al_bits_bytes(rows, cols, lane_rows));
  const size_t count_at = ops_at + skss__cuda_align(moves), dev_total = count_at + 256;
  /* staging: the pass's uploads, then the ops and the tail (count, H and F of the last cell) */
  const staging t = stage_plan(&p);
  const size_t t_ops = t.total, t_tail = t_ops + skss__cuda_align(moves), host_total = t_tail + 256;
  uint8_t *dev = NULL, *host = NULL;
  const skss_status got = acquire(w, dev_total, host_total, &dev, &host);
  if (got != SKSS_OK) return got;
  skss__al_job job;
  const skss_status up = upload(w, sc, &p, lane_rows, dev, host, l, t, &job);
  if (up != SKSS_OK) return up;
  job.bits = dev + bits_at;
  cudaStream_t stream = w.stream;
  const int32_t *sub = reinterpret_cast<const int32_t *>(dev + l.sub);
  const char *what = "the pass kernel";
  cudaError_t e = skss__cuda_align_launch(&job, sub, dev, sms, stream, &what);
  if (e != cudaSuccess) return fail(w, SKSS_ERR_CUDA, "%s: %s: %s", FN, what, cudaGetErrorString(e));
  char *dev_ops = reinterpret_cast<char *>(dev + ops_at);
  long long *dev_count = reinterpret_cast<long long *>(dev + count_at);
  e = skss__cuda_align_walk(job.bits, lane_rows, (int)rows, (int)cols, job.a, job.b, end_v, dev_ops + moves, dev_count,
                            stream);
  if (e != cudaSuccess) return fail(w, SKSS_ERR_CUDA, "%s: the walk kernel: %s", FN, cudaGetErrorString(e));
  struct tail_t {
    long long count;
    int32_t h, f;
  } tail_here;
  tail_t *tail = host != NULL ? reinterpret_cast<tail_t *>(host + t_tail) : &tail_here;
  char *ops_down = host != NULL ? reinterpret_cast<char *>(host + t_ops) : ops;
  AL_TRY(w, cudaMemcpyAsync(&tail->count, dev_count, sizeof tail->count, cudaMemcpyDeviceToHost, stream));
  AL_TRY(w, cudaMemcpyAsync(&tail->h, job.h + cols, sizeof tail->h, cudaMemcpyDeviceToHost, stream));
  AL_TRY(w, cudaMemcpyAsync(&tail->f, job.f + cols, sizeof tail->f, cudaMemcpyDeviceToHost, stream));
  AL_TRY(w, cudaMemcpyAsync(ops_down, dev_ops, moves, cudaMemcpyDeviceToHost, stream));
  AL_TRY(w, cudaStreamSynchronize(stream));
  const long long count = tail->count;
  if (count < (long long)(rows > cols ? rows : cols) || count > (long long)moves)
    return fail(w, SKSS_ERR_INTERNAL, "%s: the walk back gave %lld moves for %lld x %lld letters (a bug)", FN, count,
                (long long)rows, (long long)cols);
  /* the walk wrote its moves last first, ending at the region's end */
  memmove(ops, ops_down + (moves - (size_t)count), (size_t)count);
  *len = count;
  *score = end_v ? tail->f : tail->h;
  return SKSS_OK;
}

}  // namespace

extern "C" skss_status skss__cuda_align_pass(skss_ctx *ctx, const skss__align_scores *sc, skss__align_pass *p) {
  const where w = {ctx, NULL, skss__cuda(ctx)->stream};
  return run_pass(w, sc, p);
}

extern "C" skss_status skss__cuda_align_lane_pass(skss__cuda_align_lane *lane, const skss__align_scores *sc,
                                                  skss__align_pass *p) {
  const where w = {NULL, lane, lane->stream};
  return run_pass(w, sc, p);
}

extern "C" skss_status skss__cuda_align_segment(skss_ctx *ctx, skss__cuda_align_lane *lane,
                                                const skss__align_scores *sc, const uint8_t *a, const uint8_t *b,
                                                int64_t rows, int64_t cols, int start_v, int end_v, char *ops,
                                                int64_t *len, int64_t *score) {
  if (lane != NULL) {
    const where w = {NULL, lane, lane->stream};
    return run_segment(w, sc, a, b, rows, cols, start_v, end_v, ops, len, score);
  }
  const where w = {ctx, NULL, skss__cuda(ctx)->stream};
  return run_segment(w, sc, a, b, rows, cols, start_v, end_v, ops, len, score);
}
