/*
 * halftone_dispatch.cu — skss_halftone() on the CUDA backend, after the C
 * entry point has validated the call (core/halftone_api.c):
 *  - a host input is uploaded into the context's device arena;
 *  - the families (halftone_cuda.cuh) always write 0/255 bytes: straight
 *    into the caller's device buffer for BYTES, else into a byte buffer in
 *    the arena, which a small kernel packs into BITS rows (8 pixels a byte,
 *    first pixel in the MSB) and/or which is downloaded to a host output;
 *  - a batched family runs the whole batch in one go, any other once per
 *    image;
 *  - host outputs are in place when the call returns; device-only calls stay
 *    asynchronous on the context's stream.
 * The arena holds, in order: the family's scratch, the staged input, the
 * byte buffer, the staged BITS buffer (each only when needed).
 */
#include "halftone_cuda.cuh"

static const char *const FN = "skss_halftone()";

typedef size_t (*family_scratch)(skss_ctx *, int, const skss__ht_dev_job *);
typedef skss_status (*family_run)(skss_ctx *, int, const skss__ht_dev_job *, void *);

typedef struct family {
  family_scratch scratch;
  family_run run;
  bool batched; /* runs job->images > 1 itself */
} family;

/* Algorithm -> family: the error-diffusion paper's PRAM-style variants
 * (16-23, halftone_pram.cu) and parallelogram blocks (24-27,
 * halftone_parallelogram.cu), SKSS (28, halftone_skss.cu) and ours (29,
 * halftone_strips.cu), both of which run a whole batch in one kernel. */
static bool find_family(int algorithm, family *f) {
  switch (algorithm) {
    case SKSS_HALFTONE_ALGORITHM_PED3:
    case SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC:
    case SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH:
    case SKSS_HALFTONE_ALGORITHM_PEC2:
    case SKSS_HALFTONE_ALGORITHM_PED3_PERM:
    case SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC_PERM:
    case SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH_PERM:
    case SKSS_HALFTONE_ALGORITHM_PEC2_PERM:
      *f = {skss__cuda_halftone_pram_scratch, skss__cuda_halftone_pram, false};
      return true;
    case SKSS_HALFTONE_ALGORITHM_PED_2D:
    case SKSS_HALFTONE_ALGORITHM_PED_2D_RC:
    case SKSS_HALFTONE_ALGORITHM_PEC_2D:
    case SKSS_HALFTONE_ALGORITHM_PEC_2D_RC:
      *f = {skss__cuda_halftone_parallelogram_scratch, skss__cuda_halftone_parallelogram, false};
      return true;
    case SKSS_HALFTONE_ALGORITHM_SKSS:
      *f = {skss__cuda_halftone_skss_scratch, skss__cuda_halftone_skss, true};
      return true;
    case SKSS_HALFTONE_ALGORITHM_STRIPS:
      *f = {skss__cuda_halftone_strips_scratch, skss__cuda_halftone_strips, true};
      return true;
    default: return false;
  }
}

/* One caller buffer of `images` images and where the kernels see it. */
typedef struct staged {
  uint8_t *user;     /* the caller's pointer */
  size_t user_pitch, user_stride;
  bool on_device;
  uint8_t *dev;      /* device copy (or the caller's pointer) */
  size_t dev_pitch, dev_stride;
  size_t rows, row_bytes; /* per image */
} staged;

static staged make_staged(const void *ptr, bool on_device, size_t pitch, size_t stride, size_t rows,
                          size_t row_bytes) {
  staged s = {};
  s.user = static_cast<uint8_t *>(const_cast<void *>(ptr));
  s.user_pitch = pitch;
  s.user_stride = stride;
  s.on_device = on_device;
  s.dev = s.user;
  s.dev_pitch = pitch;
  s.dev_stride = stride;
  s.rows = rows;
  s.row_bytes = row_bytes;
  return s;
}

/* Device bytes of a packed copy of `images` images (rows 256-aligned). */
static size_t copy_bytes(const staged *s, int64_t images) {
  return skss__cuda_align((size_t)images * s->rows * skss__cuda_align(s->row_bytes));
}

/* Gives a staged buffer its packed device copy at `at`; returns the next
 * free byte. */
static uint8_t *place(staged *s, uint8_t *at, int64_t images) {
  s->dev = at;
  s->dev_pitch = skss__cuda_align(s->row_bytes);
  s->dev_stride = s->rows * s->dev_pitch;
  return at + copy_bytes(s, images);
}

/* Copies every image between the caller's buffer and its device copy. */
static skss_status copy_images(skss_ctx *ctx, const staged *s, int64_t images, cudaMemcpyKind kind) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  for (int64_t k = 0; k < images; k++) {
    uint8_t *user = s->user + (size_t)k * s->user_stride, *dev = s->dev + (size_t)k * s->dev_stride;
    if (kind == cudaMemcpyHostToDevice)
      SKSS_CUDA_TRY(ctx, FN, cudaMemcpy2DAsync(dev, s->dev_pitch, user, s->user_pitch, s->row_bytes,
                                               s->rows, kind, stream));
    else
      SKSS_CUDA_TRY(ctx, FN, cudaMemcpy2DAsync(user, s->user_pitch, dev, s->dev_pitch, s->row_bytes,
                                               s->rows, kind, stream));
  }
  return SKSS_OK;
}

/* BITS row r (of all images' rows) from byte row r: thread c packs bytes
 * 8c .. 8c+7 (the byte buffer is ours, rows 256-aligned, so one 8-byte load
 * except in a row's last partial group, whose missing pixels count as 0). */
__global__ void skss__ht_pack_bits(const uint8_t *bytes, size_t byte_pitch, size_t byte_stride,
                                   uint8_t *bits, size_t bit_pitch, size_t bit_stride, int height,
                                   int width, long long rows) {
  const int cols = (width + 7) / 8;
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  for (long long r = blockIdx.y; r < rows; r += gridDim.y) {
    const long long k = r / height, y = r % height;
    const uint8_t *src = bytes + (size_t)k * byte_stride + (size_t)y * byte_pitch + 8 * (size_t)c;
    unsigned v = 0;
    if (8 * c + 8 <= width) {
      const unsigned long long w = *reinterpret_cast<const unsigned long long *>(src);
      for (int j = 0; j < 8; j++) v = (v << 1) | (unsigned)((w >> (8 * j + 7)) & 1u);
    } else {
      for (int j = 0; j < 8; j++) v = (v << 1) | (8 * c + j < width ? (unsigned)(src[j] >> 7) : 0u);
    }
    bits[(size_t)k * bit_stride + (size_t)y * bit_pitch + c] = (uint8_t)v;
  }
}

static skss_status pack_bits(skss_ctx *ctx, const skss__ht_dev_job *job, const staged *bits) {
  const int cols = (int)((job->width + 7) / 8);
  const long long rows = (long long)job->images * job->height;
  const dim3 block(128), grid((unsigned)((cols + 127) / 128), (unsigned)(rows < 65535 ? rows : 65535));
  skss__ht_pack_bits<<<grid, block, 0, skss__cuda(ctx)->stream>>>(
      job->out, job->out_pitch, job->out_image_stride, bits->dev, bits->dev_pitch, bits->dev_stride,
      (int)job->height, (int)job->width, rows);
  SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  return SKSS_OK;
}

/* Runs the family over the batch: at once when it is batched, else image by
 * image (the scratch was sized for what one run gets). */
static skss_status run_family(skss_ctx *ctx, int algorithm, const family *fam,
                              const skss__ht_dev_job *job, void *scratch) {
  if (fam->batched || job->images == 1) return fam->run(ctx, algorithm, job, scratch);
  skss__ht_dev_job one = *job;
  one.images = 1;
  for (int64_t k = 0; k < job->images; k++) {
    one.in = job->in + (size_t)k * job->in_image_stride;
    one.out = job->out + (size_t)k * job->out_image_stride;
    skss_status st = fam->run(ctx, algorithm, &one, scratch);
    if (st != SKSS_OK) return st;
  }
  return SKSS_OK;
}

extern "C" skss_status skss__cuda_halftone(skss_ctx *ctx, int algorithm, const skss__halftone_call *c) {
  family fam;
  if (!find_family(algorithm, &fam))
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: no CUDA family for algorithm %d", FN, algorithm);
  if (c->height > INT32_MAX || c->width > INT32_MAX)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: the CUDA backend takes at most %d rows and columns",
                      FN, INT32_MAX);
  const bool bits = c->output == SKSS_HALFTONE_OUTPUT_BITS;
  const size_t h = (size_t)c->height, w = (size_t)c->width;
  staged in = make_staged(c->in, skss__cuda_is_device_ptr(c->in), c->in_pitch, c->in_image_stride, h, w);
  const bool out_on_device = skss__cuda_is_device_ptr(c->out);
  /* The caller's buffer as it is (BYTES) or as BITS rows. */
  staged out = make_staged(c->out, out_on_device, c->out_pitch, c->out_image_stride, h,
                           bits ? (w + 7) / 8 : w);
  /* Where the family writes bytes: the caller's device BYTES buffer, or ours. */
  staged bytes = make_staged(c->out, out_on_device && !bits, c->out_pitch, c->out_image_stride, h, w);

  skss__ht_dev_job job = {};
  job.height = c->height;
  job.width = c->width;
  job.images = fam.batched ? c->images : 1;
  job.kernel = c->kernel;
  job.white_above = c->white_above;
  const size_t work = skss__cuda_align(fam.scratch(ctx, algorithm, &job));
  size_t total = work + (in.on_device ? 0 : copy_bytes(&in, c->images)) +
                 (bytes.on_device ? 0 : copy_bytes(&bytes, c->images)) +
                 (bits && !out.on_device ? copy_bytes(&out, c->images) : 0);
  uint8_t *arena = static_cast<uint8_t *>(skss__cuda_scratch(ctx, FN, total ? total : 1));
  if (arena == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  uint8_t *next = arena + work;
  if (!in.on_device) next = place(&in, next, c->images);
  if (!bytes.on_device) next = place(&bytes, next, c->images);
  if (bits && !out.on_device) next = place(&out, next, c->images);

  if (!in.on_device) {
    skss_status st = copy_images(ctx, &in, c->images, cudaMemcpyHostToDevice);
    if (st != SKSS_OK) return st;
  }
  job.images = c->images;
  job.in = in.dev;
  job.in_pitch = in.dev_pitch;
  job.in_image_stride = in.dev_stride;
  job.out = bytes.dev;
  job.out_pitch = bytes.dev_pitch;
  job.out_image_stride = bytes.dev_stride;
  skss_status st = run_family(ctx, algorithm, &fam, &job, arena);
  if (st == SKSS_OK && bits) st = pack_bits(ctx, &job, &out);
  if (st == SKSS_OK && !out.on_device)
    st = copy_images(ctx, bits ? &out : &bytes, c->images, cudaMemcpyDeviceToHost);
  if (st != SKSS_OK) return st;
  /* Host results must be in place when the call returns; device-only calls
   * stay asynchronous (skss_ctx_synchronize() reports their errors). */
  if (!out.on_device || !in.on_device)
    SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(skss__cuda(ctx)->stream));
  return SKSS_OK;
}
