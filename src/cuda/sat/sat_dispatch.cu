/*
 * sat_dispatch.cu — skss_sat() on the CUDA backend, after the C entry point
 * has validated the call: host buffers are staged through the context's
 * device arena (input uploaded, outputs downloaded, then the call waits),
 * device buffers are used in place and the call returns at once. Onepass
 * writes PADDED borders itself and both planes in one launch; the other
 * families get their borders by cudaMemset2DAsync and run once per plane.
 * AUTO looks up tuning.h's table by type pair, layout and size.
 */
#include "sat_cuda.cuh"
#include "../tuning.h"

static const char *const FN = "skss_sat()";

typedef skss_status (*family_run)(skss_ctx *, int, const skss__sat_dev_plane *, void *);
typedef size_t (*family_scratch)(skss_ctx *, int, const skss__sat_dev_plane *);

typedef struct family {
  family_scratch scratch;
  family_run run;
} family;

static bool find_family(int algorithm, family *f) {
  switch (algorithm) {
    case SKSS_SAT_ALGORITHM_2R2W:
    case SKSS_SAT_ALGORITHM_4R4W:
    case SKSS_SAT_ALGORITHM_4R1W:
    case SKSS_SAT_ALGORITHM_2R1W:
    case SKSS_SAT_ALGORITHM_1R1W:
    case SKSS_SAT_ALGORITHM_1PR_R1W: *f = {skss__cuda_sat_hmm_scratch, skss__cuda_sat_hmm}; return true;
    case SKSS_SAT_ALGORITHM_SKSS:
    case SKSS_SAT_ALGORITHM_PARALLEL_FAIR:
      *f = {skss__cuda_sat_taskarray_scratch, skss__cuda_sat_taskarray};
      return true;
    case SKSS_SAT_ALGORITHM_BRLT_SCANROW_KS:
    case SKSS_SAT_ALGORITHM_BRLT_SCANROW_LF:
    case SKSS_SAT_ALGORITHM_SCANROW_BRLT_KS:
    case SKSS_SAT_ALGORITHM_SCANROW_BRLT_LF:
    case SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS:
    case SKSS_SAT_ALGORITHM_SCANROWCOLUMN_LF:
      *f = {skss__cuda_sat_regcache_scratch, skss__cuda_sat_regcache};
      return true;
    case SKSS_SAT_ALGORITHM_ONEPASS: *f = {skss__cuda_sat_onepass_scratch, skss__cuda_sat_onepass}; return true;
    default: return false;
  }
}

size_t skss__cuda_sat_plane_scratch(skss_ctx *ctx, int algorithm,
                                    const skss__sat_dev_plane *plane) {
  family fam;
  return find_family(algorithm, &fam) ? fam.scratch(ctx, algorithm, plane) : 0;
}

skss_status skss__cuda_sat_plane(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                 void *scratch) {
  family fam;
  if (!find_family(algorithm, &fam))
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: no CUDA family for algorithm %d", FN, algorithm);
  return fam.run(ctx, algorithm, plane, scratch);
}

/* One caller buffer and where the kernels see it. */
typedef struct staged {
  void *user;        /* the caller's pointer */
  size_t user_pitch;
  bool on_device;
  uint8_t *dev;      /* device copy (or the caller's pointer) */
  size_t dev_pitch;
  size_t rows, row_bytes;
} staged;

static staged make_staged(const void *ptr, size_t pitch, size_t rows, size_t row_bytes) {
  staged s = {};
  s.user = const_cast<void *>(ptr);
  s.user_pitch = pitch;
  s.rows = rows;
  s.row_bytes = row_bytes;
  s.on_device = ptr == NULL || skss__cuda_is_device_ptr(ptr);
  s.dev = static_cast<uint8_t *>(s.user);
  s.dev_pitch = pitch;
  return s;
}

/* Device bytes a host buffer needs when staged (rows packed, 256-aligned). */
static size_t stage_bytes(const staged *s) {
  return s->on_device ? 0 : skss__cuda_align(s->rows * skss__cuda_align(s->row_bytes));
}

/* Places a host buffer's device copy at `at`; returns the next free byte. */
static uint8_t *place(staged *s, uint8_t *at) {
  if (s->on_device) return at;
  s->dev = at;
  s->dev_pitch = skss__cuda_align(s->row_bytes);
  return at + stage_bytes(s);
}

static skss_status zero_border(skss_ctx *ctx, const staged *s, size_t elem) {
  cudaStream_t stream = skss__cuda(ctx)->stream;
  SKSS_CUDA_TRY(ctx, FN, cudaMemsetAsync(s->dev, 0, s->row_bytes, stream));
  SKSS_CUDA_TRY(ctx, FN, cudaMemset2DAsync(s->dev, s->dev_pitch, 0, elem, s->rows, stream));
  return SKSS_OK;
}

/* AUTO on the CUDA backend: the first row of tuning.h's table for the type
 * pair and layout whose side bound covers the larger side (the table ends
 * with a row of side 0 for every pair and layout: no bound). */
static int auto_algorithm(skss__sat_pair pair, bool padded, int64_t height, int64_t width) {
  static const struct {
    skss__sat_pair pair;
    int padded;
    int64_t side; /* up to this larger side; 0: any */
    int algorithm;
  } TABLE[] = {
#define SKSS__SAT_AUTO_ROW(p, layout, side, alg) {SKSS__SAT_##p, layout, side, alg},
      SKSS_CUDA_SAT_AUTO_TABLE(SKSS__SAT_AUTO_ROW)
#undef SKSS__SAT_AUTO_ROW
  };
  const int64_t side = height > width ? height : width;
  for (size_t k = 0; k < sizeof TABLE / sizeof TABLE[0]; k++)
    if (TABLE[k].pair == pair && TABLE[k].padded == (int)padded && (TABLE[k].side == 0 || side <= TABLE[k].side))
      return TABLE[k].algorithm;
  return SKSS_CUDA_SAT_AUTO_DEFAULT;
}

extern "C" skss_status skss__cuda_sat(skss_ctx *ctx, int algorithm, const skss__sat_call *c) {
  if (algorithm == SKSS_SAT_ALGORITHM_AUTO) algorithm = auto_algorithm(c->pair, c->padded, c->height, c->width);
  const bool onepass = algorithm == SKSS_SAT_ALGORITHM_ONEPASS;
  family fam;
  if (!find_family(algorithm, &fam))
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: no CUDA family for algorithm %d", FN, algorithm);
  cudaStream_t stream = skss__cuda(ctx)->stream;
  const size_t pad = c->padded ? 1 : 0;
  const size_t h = (size_t)c->height, w = (size_t)c->width;
  staged in = make_staged(c->in, c->in_pitch, h, w * c->in_elem);
  staged outs[2] = {make_staged(c->out, c->out_pitch, h + pad, (w + pad) * c->out_elem),
                    make_staged(c->out_sq, c->out_sq_pitch, h + pad, (w + pad) * c->out_elem)};
  const int n_out = c->out_sq != NULL ? 2 : 1;

  skss__sat_dev_plane plane = {c->height, c->width, c->pair, false, NULL, 0, NULL, 0, false};
  size_t work = h > 0 && w > 0 ? skss__cuda_align(fam.scratch(ctx, algorithm, &plane)) : 0;
  size_t total = work + stage_bytes(&in);
  for (int k = 0; k < n_out; k++) total += stage_bytes(&outs[k]);
  /* no scratch (onepass on device buffers): the arena is not asked for, so
   * even a first call allocates nothing but its carry words */
  uint8_t *arena = NULL;
  if (total > 0) {
    arena = static_cast<uint8_t *>(skss__cuda_scratch(ctx, FN, total));
    if (arena == NULL) return SKSS_ERR_OUT_OF_MEMORY;
    uint8_t *next = place(&in, arena + work);
    for (int k = 0; k < n_out; k++) next = place(&outs[k], next);
  }

  if (!in.on_device && h > 0 && w > 0)
    SKSS_CUDA_TRY(ctx, FN, cudaMemcpy2DAsync(in.dev, in.dev_pitch, in.user, in.user_pitch,
                                             in.row_bytes, h, cudaMemcpyHostToDevice, stream));
  /* onepass on a non-empty table: one launch writes every plane and border */
  if (onepass && h > 0 && w > 0) {
    plane.in = in.dev;
    plane.in_pitch = in.dev_pitch;
    plane.out = outs[0].dev + pad * (outs[0].dev_pitch + c->out_elem);
    plane.out_pitch = outs[0].dev_pitch;
    plane.border = pad != 0;
    skss_status st = n_out == 2 ? skss__cuda_sat_onepass_both(ctx, &plane,
                                                              outs[1].dev + pad * (outs[1].dev_pitch + c->out_elem),
                                                              outs[1].dev_pitch)
                                : fam.run(ctx, algorithm, &plane, arena);
    if (st != SKSS_OK) return st;
  }
  for (int k = 0; k < n_out && !(onepass && h > 0 && w > 0); k++) {
    if (pad) {
      skss_status st = zero_border(ctx, &outs[k], c->out_elem);
      if (st != SKSS_OK) return st;
    }
    if (h == 0 || w == 0) continue;
    plane.square = k == 1;
    plane.in = in.dev;
    plane.in_pitch = in.dev_pitch;
    plane.out = outs[k].dev + pad * (outs[k].dev_pitch + c->out_elem);
    plane.out_pitch = outs[k].dev_pitch;
    skss_status st = fam.run(ctx, algorithm, &plane, arena);
    if (st != SKSS_OK) return st;
  }
  bool any_host = false;
  for (int k = 0; k < n_out; k++) {
    if (outs[k].on_device) continue;
    any_host = true;
    SKSS_CUDA_TRY(ctx, FN,
                  cudaMemcpy2DAsync(outs[k].user, outs[k].user_pitch, outs[k].dev, outs[k].dev_pitch,
                                    outs[k].row_bytes, outs[k].rows, cudaMemcpyDeviceToHost, stream));
  }
  /* Host results must be in place when the call returns; device-only calls
   * stay asynchronous (skss_ctx_synchronize() reports their errors). */
  if (any_host || !in.on_device) SKSS_CUDA_TRY(ctx, FN, cudaStreamSynchronize(stream));
  return SKSS_OK;
}
