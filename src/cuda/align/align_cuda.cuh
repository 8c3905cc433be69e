/*
 * align_cuda.cuh — what the alignment pass's host side (align_dispatch.cu)
 * and its SKSS kernel (align_kernel.cu) share: the job of one pass of
 * Gotoh's recurrences over rows 1..rows, columns 1..cols (cpu/align_impl.h
 * gives the contract; row 0 and column 0 are closed forms, kept on the host),
 * the band shape and the best-cell record (docs/algorithms/align.md, GPU).
 */
#ifndef SKSS_CUDA_ALIGN_CUH
#define SKSS_CUDA_ALIGN_CUH

#include <stdarg.h>
#include <stdio.h>

#include "../common.cuh"
#include "../taskarray.cuh"
#include "../tuning.h"
#include "cpu/align_impl.h"

/* Rows a lane keeps: SKSS_CUDA_ALIGN_ROWS, or SKSS_CUDA_ALIGN_ROWS_SHORT for
 * a pass of `rows` whose bands would be fewer than SKSS_CUDA_ALIGN_SHORT_BELOW
 * an SM on `sms` multiprocessors. A warp's band is 32 lanes' rows. */
static inline int skss__cuda_align_lane_rows(int64_t rows, int sms) {
  const int64_t band = 32 * SKSS_CUDA_ALIGN_ROWS;
  return (rows + band - 1) / band < (int64_t)SKSS_CUDA_ALIGN_SHORT_BELOW * sms ? SKSS_CUDA_ALIGN_ROWS_SHORT
                                                                               : SKSS_CUDA_ALIGN_ROWS;
}

/* The launch of a pass of `bands` bands on `sms` SMs: one block an SM (or a
 * band), each of the warps its share of the bands needs, at most
 * SKSS_CUDA_ALIGN_WARPS. An SM then runs at most ceil(bands / SMs) bands, all
 * of one block (warps past the last band find no ticket and leave): the
 * chain of bands runs at the pace of its slowest band, and bands of younger
 * blocks stacked on an SM fell behind (docs/performance.md). */
static inline void skss__cuda_align_shape(int64_t bands, int sms, int *warps, int *blocks) {
  const int64_t s = sms > 0 ? sms : 1, b = bands > 0 ? bands : 1;
  const int64_t w = (b + s - 1) / s;
  *warps = (int)(w < SKSS_CUDA_ALIGN_WARPS ? w : SKSS_CUDA_ALIGN_WARPS);
  *blocks = (int)(b < s ? b : s);
}

/* One device pass. Device pointers; the row buffers hold row 0 on entry only
 * in spirit: band 0 computes row 0 itself, every band overwrites columns
 * 1..cols with its last row (in place, as the CPU's task array does). */
typedef struct skss__al_job {
  const uint8_t *a, *b;          /* codes of rows 1..rows and columns 1..cols */
  int rows, cols;
  int lane_rows;                 /* rows a lane keeps: a band is 32 x lane_rows rows */
  int free_start, local;         /* as in skss__align_pass */
  int track;                     /* skss__align_track */
  int32_t h00, f00;              /* anchored start */
  int32_t open, extend;
  int save_every, saves;         /* checkpoint rows (saves 0: none) */
  int32_t *save_h, *save_f;      /* saves * (cols + 1) each; columns 1..cols written */
  int32_t *h, *f;                /* cols + 1 each: row `rows` on return (columns 1..cols) */
  unsigned long long *key;       /* best: (score + 2^31) << 32 | (2^32 - 1 - band); 0 = none */
  int2 *slot;                    /* per band: (i, j) of its best cell */
  /* NULL, or bands x 32 x cols words of direction bits (a global pass with no
   * track only), a word lane_rows / 2 bytes (little-endian): cell (i, j)'s
   * nibble (SKSS__AL_FROM_*, SKSS__AL_*_EXT) at bit 4 ((i - 1) % lane_rows)
   * of word ((i - 1) / lane_rows) * cols + j - 1 (skss__al_nibble) */
  void *bits;
} skss__al_job;

/* A cell's direction nibble: where H came from (the diagonal on ties, then
 * E over F), and whether E and F extended a gap (extension on ties). */
#define SKSS__AL_FROM_DIAG 0u
#define SKSS__AL_FROM_E 1u
#define SKSS__AL_FROM_F 2u
#define SKSS__AL_E_EXT 4u
#define SKSS__AL_F_EXT 8u

/* One move of the walk back through a pass's direction bits: from cell (i, j)
 * in `state` (SKSS__AL_FROM_DIAG for H, _E, _F) with the cell's nibble, the
 * op of the move ('=' or 'X' diagonal, 'I' up, 'D' left, as the CPU leaves
 * write them) and the cell it leads to, or 0 when only the state changed.
 * same: whether a's letter i and b's letter j are the same. */
__host__ __device__ static inline char skss__al_walk_step(unsigned nib, unsigned *state, int *i, int *j, bool same) {
  if (*state == SKSS__AL_FROM_DIAG) {
    *state = nib & 3u;
    if (*state != SKSS__AL_FROM_DIAG) return 0;
    const char op = same ? '=' : 'X';
    --*i;
    --*j;
    return op;
  }
  if (*state == SKSS__AL_FROM_F) {
    *state = (nib & SKSS__AL_F_EXT) ? SKSS__AL_FROM_F : SKSS__AL_FROM_DIAG;
    --*i;
    return 'I';
  }
  *state = (nib & SKSS__AL_E_EXT) ? SKSS__AL_FROM_E : SKSS__AL_FROM_DIAG;
  --*j;
  return 'D';
}

/* Cell (i, j)'s nibble in a pass's direction bits (layout as skss__al_job.bits). */
__host__ __device__ static inline unsigned skss__al_nibble(const void *bits, int lane_rows, int cols, int i, int j) {
  const int r = (i - 1) % lane_rows;
  const size_t word = (size_t)((i - 1) / lane_rows) * (size_t)cols + (size_t)(j - 1);
  const uint8_t byte = static_cast<const uint8_t *>(bits)[word * (size_t)(lane_rows / 2) + (size_t)(r / 2)];
  return (unsigned)(byte >> (4 * (r & 1))) & 15u;
}

/* Bytes of a pass's direction bits: 32 words of lane_rows / 2 bytes a band
 * and column (half a byte a cell, the last band's rows past the pass too). */
static inline size_t skss__al_bits_bytes(int64_t rows, int64_t cols, int lane_rows) {
  const int64_t band = 32 * (int64_t)lane_rows, bands = (rows + band - 1) / band;
  return (size_t)bands * 32 * (size_t)cols * (size_t)(lane_rows / 2);
}

/* The path back from (rows, cols) to (0, 0) through a pass's direction bits,
 * starting in H, or in F with end_v (the segment must end with a vertical
 * move); row 0 and column 0 are straight gaps from (0, 0). Writes the ops
 * last first, ending at ops_end; returns how many. The host's walk (the GPU's
 * is walk_kernel in align_band.cuh). */
static inline int64_t skss__al_walk_bits(const void *bits, int lane_rows, int rows, int cols,
                                         const uint8_t *a, const uint8_t *b, int end_v, char *ops_end) {
  char *out = ops_end;
  int i = rows, j = cols;
  unsigned state = end_v ? SKSS__AL_FROM_F : SKSS__AL_FROM_DIAG;
  while (i > 0 && j > 0) {
    const char op =
        skss__al_walk_step(skss__al_nibble(bits, lane_rows, cols, i, j), &state, &i, &j, a[i - 1] == b[j - 1]);
    if (op) *--out = op;
  }
  for (; i > 0; i--) *--out = 'I';
  for (; j > 0; j--) *--out = 'D';
  return (int64_t)(ops_end - out);
}

/* H(i, 0) and F(i, 0) for i >= 1, and H(0, j) for j >= 1: closed forms of
 * the CPU's column_zero and first_row (o >= e, so the gaps only extend). */
__host__ __device__ static inline int32_t skss__al_col0(int free_start, int32_t h00, int32_t f00, int32_t o,
                                                       int32_t e, int64_t i) {
  if (free_start) return 0;
  const int32_t f1 = f00 - e > h00 - o ? f00 - e : h00 - o;
  return (int32_t)(f1 - (i - 1) * (int64_t)e);
}
__host__ __device__ static inline int32_t skss__al_row0(int free_start, int32_t h00, int32_t o, int32_t e,
                                                       int64_t j) {
  if (free_start) return 0;
  const int32_t ev1 = SKSS__ALIGN_NEG - e > h00 - o ? SKSS__ALIGN_NEG - e : h00 - o;
  return (int32_t)(ev1 - (j - 1) * (int64_t)e);
}

/* Launches the pass's kernel on `stream`; `sub`: the 32 x 32 scores
 * (device memory; every scoring, match/mismatch too). counters: the task
 * array's (skss__dev_taskarray_bytes(bands)), already zeroed; sms: the
 * device's multiprocessors (skss__cuda_align_shape). Touches no context,
 * so lanes on several host threads may launch at once; on failure *what
 * names the CUDA call that failed. */
cudaError_t skss__cuda_align_launch(const skss__al_job *job, const int32_t *sub, void *counters, int sms,
                                    cudaStream_t stream, const char **what);

/* Launches walk_kernel (align_band.cuh) on `stream`: the path back through a
 * pass's direction bits (device memory, as skss__al_job.bits) from (rows,
 * cols); ops last first ending at ops_end and their count to *len, both
 * device memory (align_dispatch.cu's segments solved whole). */
cudaError_t skss__cuda_align_walk(const void *bits, int lane_rows, int rows, int cols,
                                  const uint8_t *a, const uint8_t *b, int end_v, char *ops_end, long long *len,
                                  cudaStream_t stream);

/* A lane (backend_cuda.h): what one host thread needs to run passes beside
 * other lanes' without the context's stream, arena or last error. Its
 * blocks grow only, on the thread that runs it (align_lanes.cu). */
struct skss__cuda_align_lane {
  int device;          /* the context's */
  int sms;             /* its multiprocessors, read from the context before the workers start */
  int saved_device;    /* the thread's current device before skss__cuda_align_lane_enter() */
  cudaStream_t stream; /* non-blocking, on `device` */
  void *dev;           /* grow-only device memory of one pass */
  size_t dev_bytes;
  void *host;          /* grow-only page-locked staging of one pass's copies */
  size_t host_bytes;
  skss_status status;  /* the first failure since _enter(), SKSS_OK if none */
  char message[512];   /* its text ("skss_align(): call: reason") */
};

/* At least `dev_bytes` of device memory at lane->dev and `host_bytes` of
 * page-locked memory at lane->host (256-byte aligned). On failure the status
 * and message are the lane's. The lane's stream holds no work on entry. */
skss_status skss__cuda_align_lane_reserve(skss__cuda_align_lane *lane, size_t dev_bytes, size_t host_bytes);
/* Records a failure in the lane (the first one stays) and returns status.
 * Inline: the emulated dispatch (tests/emu) links no align_lanes.cu. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static inline skss_status skss__cuda_align_lane_fail(skss__cuda_align_lane *lane, skss_status status,
                                                     const char *fmt, ...) {
  if (lane->status != SKSS_OK) return status;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(lane->message, sizeof lane->message, fmt, ap);
  va_end(ap);
  lane->status = status;
  return status;
}

#endif
