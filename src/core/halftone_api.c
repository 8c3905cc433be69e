/*
 * halftone_api.c — the public entry points of error-diffusion halftoning:
 * skss_halftone() validates every argument, resolves the algorithm, takes
 * the algorithm's scratch from the context's arena and runs it (the
 * sequential algorithms of halftone_ref.c or the task array of halftone.c);
 * skss_dither_kernel_get_info() and skss_dither_kernel_from_name() read the
 * kernel table.
 */
#include <string.h>

#include "cpu/halftone_impl.h"
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
    *out = SKSS_DITHER_FLOYD_STEINBERG;
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
  if (d->output != SKSS_HALFTONE_BYTES && d->output != SKSS_HALFTONE_BITS)
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

/* Pointers and scratch size of a non-empty image whose pitches are checked;
 * completes *job. */
static skss_status check_buffers(skss_ctx *ctx, skss_halftone_algorithm alg, const uint8_t *in,
                                 void *out, size_t out_row_bytes, skss__halftone_job *job) {
  if (in == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: in is NULL", FN);
  if (out == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: out is NULL", FN);
  bool sized = alg == SKSS_HALFTONE_TASKARRAY_CPU
                   ? skss__halftone_taskarray_scratch(ctx, job, &job->scratch_bytes)
                   : skss__halftone_sequential_scratch(alg, job, &job->scratch_bytes);
  if (!sized)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: scratch memory for a %lld x %lld image overflows size_t",
                      FN, (long long)job->height, (long long)job->width);
  if (overlap(in, extent(job->height, (size_t)job->width, job->in_pitch), out,
              extent(job->height, out_row_bytes, job->out_pitch)))
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: in and out overlap", FN);
  job->in = in;
  job->out = out;
  return SKSS_OK;
}

skss_status skss_halftone(skss_ctx *ctx, const skss_halftone_desc *desc, const uint8_t *in,
                          void *out) {
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, FN, desc, skss_halftone_desc);
  int alg = 0;
  skss_status st = check_options(ctx, desc);
  if (st == SKSS_OK) st = skss__resolve_algorithm(ctx, FN, SKSS_OP_HALFTONE, (int)desc->algorithm, &alg);
  skss__halftone_job job = {.height = desc->height,
                            .width = desc->width,
                            .kernel = desc->kernel,
                            .white_above = skss__halftone_white_above(desc->threshold),
                            .output = desc->output};
  /* A BITS row is ceil(width / 8) bytes. */
  int64_t out_cols = desc->output == SKSS_HALFTONE_BITS ? desc->width / 8 + (desc->width % 8 != 0)
                                                        : desc->width;
  if (st == SKSS_OK)
    st = skss__check_2d(ctx, FN, "in", desc->height, desc->width, 1, desc->in_pitch, &job.in_pitch);
  if (st == SKSS_OK)
    st = skss__check_2d(ctx, FN, "out", desc->height, out_cols, 1, desc->out_pitch, &job.out_pitch);
  if (st != SKSS_OK || desc->height == 0 || desc->width == 0) return st;
  st = check_buffers(ctx, (skss_halftone_algorithm)alg, in, out, (size_t)out_cols, &job);
  if (st != SKSS_OK) return st;
  job.scratch = skss__scratch(ctx, job.scratch_bytes);
  if (job.scratch == NULL)
    return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for %zu bytes of scratch", FN,
                      job.scratch_bytes);
  if (alg == SKSS_HALFTONE_TASKARRAY_CPU)
    skss__halftone_taskarray(ctx, &job);
  else
    skss__halftone_sequential((skss_halftone_algorithm)alg, &job);
  return SKSS_OK;
}
