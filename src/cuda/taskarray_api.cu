/*
 * taskarray_api.cu — the host side of include/skss_cuda.cuh: a task array's
 * own device memory (ticket, fault record, one progress counter a row, in
 * taskarray.cuh's layout), its reset on the caller's stream, and the check
 * after a run, which reads the fault record and scans the rows for one left
 * unfinished (a grid-stride kernel, one thread a row). The scheduler itself
 * is the header's device code (Funasaka, Nakano, Ito, SKSS task arrays, §IV).
 */
#include <climits>
#include <cstdlib>

#include "taskarray.cuh"

struct skss_cuda_taskarray {
  skss_ctx *ctx;
  int device;
  void *mem;
  skss_cuda_taskarray_view view;
};

namespace {

/* Runs `body` with ta's device current, then restores the caller's. */
template <typename Body>
skss_status on_device(skss_ctx *ctx, const char *fn, int device, Body body) {
  int current = -1;
  SKSS_CUDA_TRY(ctx, fn, cudaGetDevice(&current));
  if (current != device) SKSS_CUDA_TRY(ctx, fn, cudaSetDevice(device));
  const skss_status st = body();
  if (current != device) (void)cudaSetDevice(current); /* the caller's device, as it was */
  return st;
}

skss_status validate(skss_ctx *ctx, const char *fn, const skss_cuda_taskarray_desc *d) {
  if (d->rows < 0 || d->cols < 0 || d->rows > SKSS_CUDA_TASKARRAY_MAX_SIZE || d->cols > SKSS_CUDA_TASKARRAY_MAX_SIZE)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: size %lld x %lld is outside 0 .. 2^30", fn,
                      (long long)d->rows, (long long)d->cols);
  if (d->kind != SKSS_TASKARRAY_KIND_FORWARD && d->kind != SKSS_TASKARRAY_KIND_FAIR &&
      d->kind != SKSS_TASKARRAY_KIND_BACKWARD)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown kind %d", fn, (int)d->kind);
  if (d->kind == SKSS_TASKARRAY_KIND_BACKWARD && d->reach < 1)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: a backward array needs reach >= 1 (got %lld)", fn,
                      (long long)d->reach);
  return SKSS_OK;
}

/* One thread a row: the last unfinished row sets the scan word to rows - i
 * at its largest, i.e. for the first such i. */
__global__ void scan_unfinished(const int *progress, int rows, int cols, int *word) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < rows; i += (int64_t)gridDim.x * blockDim.x)
    /* relaxed max: only the largest value matters, read after the kernel. */
    if (progress[i] < cols) atomicMax(word, rows - (int)i);
}

skss_status fault_status(skss_ctx *ctx, const char *fn, const skss_cuda_taskarray_fault &f) {
  switch (f.code) {
    case SKSS_CUDA_TASKARRAY_FAULT_NONE:
      return SKSS_OK;
    case SKSS_CUDA_TASKARRAY_FAULT_DEP_COUNT:
      return skss__fail(ctx, SKSS_ERR_CALLBACK, "%s: the rule of task (%d, %d) returned %d predecessors (0 .. %d)",
                        fn, f.row, f.col, f.dep_col, SKSS_CUDA_TASKARRAY_MAX_DEPS);
    case SKSS_CUDA_TASKARRAY_FAULT_UNFINISHED:
      return skss__fail(ctx, SKSS_ERR_CALLBACK, "%s: row %d published %d columns, not all of them", fn, f.row,
                        f.dep_col);
    default:
      break;
  }
  const char *why = f.code == SKSS_CUDA_TASKARRAY_FAULT_NOT_EARLIER ? "not an earlier task"
                    : f.code == SKSS_CUDA_TASKARRAY_FAULT_KIND   ? "outside the array's kind"
                                                                  : "outside the array";
  if (f.col < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: row %d waited for %d columns of row %d: %s", fn, f.row,
                      f.dep_col + 1, f.dep_row, why);
  return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: task (%d, %d) waited for task (%d, %d): %s", fn, f.row, f.col,
                    f.dep_row, f.dep_col, why);
}

/* After a clean run: the first row whose progress is short of cols, if any. */
skss_status find_unfinished(skss_cuda_taskarray *ta, const char *fn, cudaStream_t stream,
                            skss_cuda_taskarray_fault *f) {
  const skss_cuda_taskarray_view &v = ta->view;
  if (v.rows == 0 || v.cols == 0) return SKSS_OK;
  int *word = skss__dev_taskarray_scan_word(&v);
  SKSS_CUDA_TRY(ta->ctx, fn, cudaMemsetAsync(word, 0, sizeof(int), stream));
  const int64_t blocks = (v.rows + 255) / 256;
  scan_unfinished<<<(unsigned)(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(v.progress, v.rows, v.cols, word);
  SKSS_CUDA_TRY(ta->ctx, fn, cudaGetLastError());
  int first = 0;
  SKSS_CUDA_TRY(ta->ctx, fn, cudaMemcpyAsync(&first, word, sizeof first, cudaMemcpyDeviceToHost, stream));
  SKSS_CUDA_TRY(ta->ctx, fn, cudaStreamSynchronize(stream));
  if (first == 0) return SKSS_OK;
  int done = 0;
  const int row = v.rows - first;
  SKSS_CUDA_TRY(ta->ctx, fn, cudaMemcpy(&done, v.progress + row, sizeof done, cudaMemcpyDeviceToHost));
  *f = skss_cuda_taskarray_fault{SKSS_CUDA_TASKARRAY_FAULT_UNFINISHED, row, -1, row, done};
  return SKSS_OK;
}

}  // namespace

extern "C" skss_status skss_cuda_taskarray_create(skss_ctx *ctx, const skss_cuda_taskarray_desc *desc,
                                                  skss_cuda_taskarray **out) {
  const char *fn = "skss_cuda_taskarray_create()";
  if (out != NULL) *out = NULL;
  SKSS__CHECK_CTX(ctx);
  SKSS__CHECK_DESC(ctx, fn, desc, skss_cuda_taskarray_desc);
  if (out == NULL) return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: out is NULL", fn);
  skss_status st = validate(ctx, fn, desc);
  if (st != SKSS_OK) return st;
  skss__cuda_state *cs = skss__cuda(ctx);
  if (cs == NULL)
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: the context does not run the CUDA backend", fn);
  skss_cuda_taskarray *ta = static_cast<skss_cuda_taskarray *>(calloc(1, sizeof *ta));
  if (ta == NULL) return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no host memory", fn);
  ta->ctx = ctx;
  ta->device = cs->device;
  const int rows = (int)desc->rows, cols = (int)desc->cols;
  const size_t bytes = skss__dev_taskarray_bytes(rows);
  st = on_device(ctx, fn, ta->device, [&]() -> skss_status {
    if (cudaMalloc(&ta->mem, bytes) != cudaSuccess) {
      (void)cudaGetLastError();
      ta->mem = NULL;
      return skss__fail(ctx, SKSS_ERR_OUT_OF_MEMORY, "%s: no device memory for %zu bytes", fn, bytes);
    }
    /* zeroed once here, so that a view is consistent even before the first reset. */
    SKSS_CUDA_TRY(ctx, fn, cudaMemset(ta->mem, 0, bytes));
    return SKSS_OK;
  });
  if (st != SKSS_OK) {
    skss_cuda_taskarray_destroy(ta);
    return st;
  }
  const int64_t reach = desc->kind != SKSS_TASKARRAY_KIND_BACKWARD ? 0
                        : desc->reach < cols                     ? desc->reach
                                                                 : (cols > 0 ? cols : 1);
  skss__dev_taskarray_carve(&ta->view, ta->mem, rows, cols, desc->kind, (int)reach);
  *out = ta;
  return SKSS_OK;
}

extern "C" void skss_cuda_taskarray_destroy(skss_cuda_taskarray *ta) {
  if (ta == NULL) return;
  if (ta->mem != NULL)
    (void)on_device(ta->ctx, "skss_cuda_taskarray_destroy()", ta->device, [&]() -> skss_status {
      (void)cudaFree(ta->mem); /* waits for the device: no kernel still uses it */
      return SKSS_OK;
    });
  free(ta);
}

extern "C" skss_status skss_cuda_taskarray_reset(skss_cuda_taskarray *ta, cudaStream_t stream) {
  const char *fn = "skss_cuda_taskarray_reset()";
  if (ta == NULL) return SKSS_ERR_INVALID_ARG;
  skss__clear_error(ta->ctx);
  return on_device(ta->ctx, fn, ta->device, [&]() -> skss_status {
    SKSS_CUDA_TRY(ta->ctx, fn, cudaMemsetAsync(ta->mem, 0, skss__dev_taskarray_bytes(ta->view.rows), stream));
    return SKSS_OK;
  });
}

extern "C" skss_status skss_cuda_taskarray_get_view(const skss_cuda_taskarray *ta, skss_cuda_taskarray_view *out) {
  if (ta == NULL || out == NULL) return SKSS_ERR_INVALID_ARG;
  *out = ta->view;
  return SKSS_OK;
}

extern "C" skss_status skss_cuda_taskarray_check(skss_cuda_taskarray *ta, cudaStream_t stream,
                                                 skss_cuda_taskarray_fault *fault) {
  const char *fn = "skss_cuda_taskarray_check()";
  if (fault != NULL) *fault = skss_cuda_taskarray_fault{0, 0, 0, 0, 0};
  if (ta == NULL) return SKSS_ERR_INVALID_ARG;
  skss__clear_error(ta->ctx);
  skss_cuda_taskarray_fault f{0, 0, 0, 0, 0};
  const skss_status st = on_device(ta->ctx, fn, ta->device, [&]() -> skss_status {
    SKSS_CUDA_TRY(ta->ctx, fn, cudaStreamSynchronize(stream));
    SKSS_CUDA_TRY(ta->ctx, fn, cudaMemcpy(&f, ta->view.fault, sizeof f, cudaMemcpyDeviceToHost));
    if (f.code != SKSS_CUDA_TASKARRAY_FAULT_NONE) return SKSS_OK;
    return find_unfinished(ta, fn, stream, &f);
  });
  if (st != SKSS_OK) return st;
  if (fault != NULL) *fault = f;
  return fault_status(ta->ctx, fn, f);
}
