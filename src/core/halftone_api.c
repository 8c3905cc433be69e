/*
 * halftone_api.c — the public entry points of error-diffusion halftoning:
 * skss_halftone() validates every argument (a batch's strides and extents
 * too), resolves the algorithm and runs it: on the CUDA backend through
 * skss__cuda_halftone() (src/cuda/halftone/, which stages host data and
 * runs the batch), on the CPU backends image by image with the algorithm's
 * scratch from the context's arena (the sequential algorithms of
 * halftone_ref.c or the task array of halftone.c).
 * skss_dither_kernel_get_info() and skss_dither_kernel_from_name() read the
 * kernel table.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <string.h>

#include "backend_cuda.h"
#include "cpu/halftone_impl.h"
#include "cpu/threadpool.h"
#include "dither_kernels.h"
#include "internal.h"

static const char *const FN = "skss_halftone()";

skss_status skss_dither_kernel_get_info(skss_dither_kernel kernel, skss_dither_kernel_info *out) {
  if (out == NULL || (unsigned)kernel >= SKSS_DITHER_KERNEL_COUNT) return SKSS_ERR_INVALID_ARG;
  *out = skss__dither_kernels[kernel];
  return SKSS_OK;
}

skss_status skss_dither_kernel_from_name(const char *name, skss_dither_kernel *out) {
  if (name == NULL || out == NULL) return SKSS_ERR_INVALID_ARG;
  if (strcmp(name, "floyd-steinberg") == 0) {
    *out = SKSS_DITHER_KERNEL_FLOYD_STEINBERG;
    return SKSS_OK;
  }
  for (int k = 0; k < SKSS_DITHER_KERNEL_COUNT; k++) {
    if (strcmp(name, skss__dither_kernels[k].name) == 0) {
      *out = (skss_dither_kernel)k;
      return SKSS_OK;
    }
  }
  return SKSS_ERR_INVALID_ARG;
}

/* The desc's enums and threshold. */
static skss_status check_options(skss_ctx *ctx, const skss_halftone_desc *d) {
  if ((unsigned)d->kernel >= SKSS_DITHER_KERNEL_COUNT)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown dither kernel %d", FN, (int)d->kernel);
  if (d->threshold < 0 || d->threshold > 255)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: threshold %d is outside 0..255", FN,
                      d->threshold);
  if (d->output != SKSS_HALFTONE_OUTPUT_BYTES && d->output != SKSS_HALFTONE_OUTPUT_BITS)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown output kind %d", FN, (int)d->output);
  return SKSS_OK;
}

/* Bytes from the first to past the last byte of a rows x row_bytes buffer. */
static size_t extent(int64_t rows, size_t row_bytes, size_t pitch) {
  return (size_t)(rows - 1) * pitch + row_bytes;
}

/* Whether [a, a + na) and [b, b + nb) share a byte (without pointer overflow). */
static bool overlap(const void *a, size_t na, const void *b, size_t nb) {
  uintptr_t pa = (uintptr_t)a, pb = (uintptr_t)b;
  return pa >= pb ? pa - pb < nb : pb - pa < na;
}

/* The desc, whose size is this header's or that of the desc before the
 * batch fields were appended (then one image, packed strides). */
static skss_status read_desc(skss_ctx *ctx, const skss_halftone_desc *desc, skss_halftone_desc *d) {
  const size_t before_batch = offsetof(skss_halftone_desc, images);
  if (desc == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: desc is NULL", FN);
  if (desc->size != before_batch && desc->size < sizeof *d)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: desc->size is %zu, expected sizeof(skss_halftone_desc) = %zu (or %zu)", FN,
                      desc->size, sizeof *d, before_batch);
  const skss_halftone_desc defaults = SKSS_HALFTONE_DESC_INIT;
  *d = defaults;
  memcpy(d, desc, desc->size < sizeof *d ? desc->size : sizeof *d);
  if (d->images == 0) d->images = 1;
  return SKSS_OK;
}

/* A batch's stride for one buffer (0 = packed: height * pitch): it must
 * cover one image, and all images' extent must fit; *total = that extent. */
static skss_status check_stride(skss_ctx *ctx, const char *what, int64_t images, int64_t stride,
                                int64_t height, size_t pitch, size_t row_bytes, size_t *stride_out,
                                size_t *total) {
  size_t one = extent(height, row_bytes, pitch);
  if (stride < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s image stride %lld is negative", FN, what,
                      (long long)stride);
  size_t s = stride == 0 ? (size_t)height * pitch : (size_t)stride;
  if (s < one)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                      "%s: %s image stride %zu is less than one image (%zu bytes)", FN, what, s, one);
  size_t rest;
  if (!skss__mul_size((size_t)(images - 1), s, &rest) || !skss__add_size(rest, one, total) ||
      *total > (size_t)INT64_MAX)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %lld %s images of stride %zu overflow size_t", FN,
                      (long long)images, what, s);
  *stride_out = s;
  return SKSS_OK;
}

/* Scratch size of the CPU algorithm for one image. */
static skss_status cpu_scratch_size(skss_ctx *ctx, skss_halftone_algorithm alg, skss__halftone_job *job) {
  bool sized = alg == SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU
                   ? skss__halftone_taskarray_scratch(ctx, job, &job->scratch_bytes)
                   : skss__halftone_sequential_scratch(alg, job, &job->scratch_bytes);
  if (!sized)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: scratch memory for a %lld x %lld image overflows size_t",
                      FN, (long long)job->height, (long long)job->width);
  return SKSS_OK;
}

/* The CPU algorithm's scratch (sized) from the context's arena. */
static skss_status cpu_scratch(skss_ctx *ctx, skss__halftone_job *job) {
  job->scratch = skss__scratch(ctx, job->scratch_bytes);
  if (job->scratch == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of scratch", FN,
                      job->scratch_bytes);
  return SKSS_OK;
}

/* A batch of the task array with at least as many images as threads: an
 * image a thread at a time, each on its thread alone in its own slice of the
 * scratch (no strips waiting on other cores, no pipeline to fill per image). */
typedef struct images_job {
  const skss__halftone_job *job;
  int64_t images;
  size_t in_stride, out_stride, slice;
  uint8_t *scratch;
  _Atomic int64_t next; /* why: images finish at different times; hand them out one at a time */
} images_job;

static void images_worker(int worker, int workers, void *arg) {
  (void)workers;
  images_job *b = arg;
  skss__halftone_job one = *b->job;
  one.scratch = b->scratch + (size_t)worker * b->slice;
  for (int64_t k = atomic_fetch_add(&b->next, 1); k < b->images; k = atomic_fetch_add(&b->next, 1)) {
    one.in = b->job->in + (size_t)k * b->in_stride;
    one.out = b->job->out + (size_t)k * b->out_stride;
    skss__halftone_taskarray_alone(&one);
  }
}

/* The CPU backends: the batch's images one after the other, each on all
 * threads, or (the task array, images >= threads) an image a thread. */
static skss_status run_cpu(skss_ctx *ctx, skss_halftone_algorithm alg, skss__halftone_job *job,
                           int64_t images, size_t in_stride, size_t out_stride) {
  if (alg == SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU && ctx->threads > 1 && images >= ctx->threads) {
    images_job b = {job, images, in_stride, out_stride, 0, NULL, 0};
    size_t one, bytes;
    if (!skss__halftone_taskarray_alone_scratch(job, &one) || !skss__add_size(one, 63, &b.slice) ||
        !skss__mul_size(b.slice / 64 * 64, (size_t)ctx->threads, &bytes))
      return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: scratch memory for %d images at once overflows size_t", FN,
                        ctx->threads);
    b.slice = b.slice / 64 * 64;
    b.scratch = skss__scratch(ctx, bytes);
    if (b.scratch == NULL)
      return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of scratch", FN, bytes);
    skss__parallel(ctx, ctx->threads, images_worker, &b);
    return SKSS_OK;
  }
  skss_status st = cpu_scratch(ctx, job);
  if (st != SKSS_OK) return st;
  const uint8_t *in = job->in;
  uint8_t *out = job->out;
  for (int64_t k = 0; k < images; k++) {
    job->in = in + (size_t)k * in_stride;
    job->out = out + (size_t)k * out_stride;
    if (alg == SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU)
      skss__halftone_taskarray(ctx, job);
    else
      skss__halftone_sequential(alg, job);
  }
  return SKSS_OK;
}

skss_status skss_halftone(skss_ctx *ctx, const skss_halftone_desc *desc, const uint8_t *in,
                          void *out) {
  SKSS__CHECK_CTX(ctx);
  skss_halftone_desc d;
  skss_status st = read_desc(ctx, desc, &d);
  if (st != SKSS_OK) return st;
  int alg = 0;
  st = check_options(ctx, &d);
  if (st == SKSS_OK) st = skss__resolve_algorithm(ctx, FN, SKSS_OP_HALFTONE, (int)d.algorithm, &alg);
  if (st == SKSS_OK && d.images < 0)
    st = skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: images %lld is negative", FN, (long long)d.images);
  skss__halftone_job job = {.height = d.height,
                            .width = d.width,
                            .kernel = d.kernel,
                            .white_above = skss__halftone_white_above(d.threshold),
                            .output = d.output};
  /* A BITS row is ceil(width / 8) bytes. */
  int64_t out_cols = d.output == SKSS_HALFTONE_OUTPUT_BITS ? d.width / 8 + (d.width % 8 != 0) : d.width;
  if (st == SKSS_OK) st = skss__check_2d(ctx, FN, "in", d.height, d.width, 1, d.in_pitch, &job.in_pitch);
  if (st == SKSS_OK)
    st = skss__check_2d(ctx, FN, "out", d.height, out_cols, 1, d.out_pitch, &job.out_pitch);
  if (st != SKSS_OK || d.height == 0 || d.width == 0) return st;
  size_t in_stride, out_stride, in_total, out_total;
  st = check_stride(ctx, "in", d.images, d.in_image_stride, d.height, job.in_pitch, (size_t)d.width,
                    &in_stride, &in_total);
  if (st == SKSS_OK)
    st = check_stride(ctx, "out", d.images, d.out_image_stride, d.height, job.out_pitch,
                      (size_t)out_cols, &out_stride, &out_total);
  if (st != SKSS_OK) return st;
  if (in == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: in is NULL", FN);
  if (out == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: out is NULL", FN);
  const bool on_cuda = skss__algorithm_backend(ctx, SKSS_OP_HALFTONE, alg) == SKSS_BACKEND_CUDA;
  if (!on_cuda) {
    const void *const host[2] = {in, out};
    const char *const names[2] = {"in", "out"};
    st = skss__check_host_pointers(ctx, FN, 2, host, names);
    if (st == SKSS_OK) st = cpu_scratch_size(ctx, (skss_halftone_algorithm)alg, &job);
    if (st != SKSS_OK) return st;
  }
  if (overlap(in, in_total, out, out_total))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: in and out overlap", FN);
  job.in = in;
  job.out = out;
  if (on_cuda) {
    const skss__halftone_call call = {in,         job.in_pitch, in_stride, out,          job.out_pitch,
                                      out_stride, d.height,     d.width,   d.images,     d.kernel,
                                      job.white_above,          d.output};
    return skss__cuda_halftone(ctx, alg, &call);
  }
  return run_cpu(ctx, (skss_halftone_algorithm)alg, &job, d.images, in_stride, out_stride);
}
