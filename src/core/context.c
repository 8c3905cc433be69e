/*
 * context.c — the skss_ctx: backend choice, worker threads, allocator hooks,
 * the grow-only scratch arena, and per-context error text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_cuda.h"
#include "internal.h"
#include "../cpu/threadpool.h"

const char *skss_version(void) { return SKSS_VERSION_STRING; }

const char *skss_status_string(skss_status status) {
  switch (status) {
    case SKSS_OK: return "success";
    case SKSS_ERR_INVALID_ARG: return "invalid argument";
    case SKSS_ERR_UNSUPPORTED: return "unsupported";
    case SKSS_ERR_OUT_OF_MEMORY: return "out of memory";
    case SKSS_ERR_NO_DEVICE: return "no CUDA device";
    case SKSS_ERR_CUDA: return "CUDA error";
    case SKSS_ERR_OVERFLOW: return "overflow";
    case SKSS_ERR_CALLBACK: return "callback failed";
    case SKSS_ERR_INTERNAL: return "internal error";
  }
  return "unknown status";
}

skss_status skss__fail(skss_ctx *ctx, skss_status status, const char *fmt, ...) {
  if (ctx != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->error, sizeof ctx->error, fmt, ap);
    va_end(ap);
  }
  return status;
}

void skss__clear_error(skss_ctx *ctx) { ctx->error[0] = '\0'; }

const char *skss_ctx_last_error(const skss_ctx *ctx) { return ctx ? ctx->error : ""; }

static void *default_alloc(size_t bytes, size_t align, void *user) {
  (void)user;
  void *p = NULL;
  if (bytes == 0) bytes = 1;
  if (posix_memalign(&p, align < sizeof(void *) ? sizeof(void *) : align, bytes) != 0) return NULL;
  return p;
}

static void default_free(void *ptr, void *user) {
  (void)user;
  free(ptr);
}

void *skss__alloc(skss_ctx *ctx, size_t bytes) {
  return ctx->alloc.alloc(bytes == 0 ? 1 : bytes, 64, ctx->alloc.user_data);
}

void skss__free(skss_ctx *ctx, void *ptr) {
  if (ptr != NULL) ctx->alloc.free(ptr, ctx->alloc.user_data);
}

void *skss__scratch(skss_ctx *ctx, size_t bytes) {
  if (bytes <= ctx->arena_bytes && ctx->arena != NULL) return ctx->arena;
  /* Grow by at least half again so a slowly growing workload reallocates rarely. */
  size_t want = bytes;
  if (ctx->arena_bytes <= SIZE_MAX / 3 && want < ctx->arena_bytes / 2 * 3) want = ctx->arena_bytes / 2 * 3;
  skss__free(ctx, ctx->arena);
  ctx->arena = skss__alloc(ctx, want);
  ctx->arena_bytes = ctx->arena ? want : 0;
  if (ctx->arena == NULL && want != bytes) {
    ctx->arena = skss__alloc(ctx, bytes);
    ctx->arena_bytes = ctx->arena ? bytes : 0;
  }
  return ctx->arena;
}

skss_status skss__check_2d(skss_ctx *ctx, const char *fn, const char *what, int64_t rows,
                           int64_t cols, size_t elem, int64_t pitch, size_t *pitch_out) {
  if (rows < 0 || cols < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s size %lld x %lld is negative", fn, what,
                      (long long)rows, (long long)cols);
  if (pitch < 0)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s pitch %lld is negative", fn, what,
                      (long long)pitch);
  size_t row_bytes;
  if ((uint64_t)cols > SIZE_MAX || !skss__mul_size((size_t)cols, elem, &row_bytes))
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %s width %lld * %zu bytes overflows size_t", fn,
                      what, (long long)cols, elem);
  size_t p = pitch == 0 ? row_bytes : (size_t)pitch;
  if (p < row_bytes)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: %s pitch %zu is less than a row (%zu bytes)",
                      fn, what, p, row_bytes);
  size_t total;
  if ((uint64_t)rows > SIZE_MAX || !skss__mul_size((size_t)rows, p, &total) || total > (size_t)INT64_MAX)
    return skss__fail(ctx, SKSS_ERR_OVERFLOW, "%s: %s height %lld * pitch %zu overflows size_t", fn,
                      what, (long long)rows, p);
  *pitch_out = p;
  return SKSS_OK;
}

static int online_cpus(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n < 1 ? 1 : (n > 1024 ? 1024 : (int)n);
}

skss_status skss_ctx_create(const skss_ctx_desc *desc, skss_ctx **out) {
  if (out == NULL) return SKSS_ERR_INVALID_ARG;
  *out = NULL;
  skss_ctx_desc d = SKSS_CTX_DESC_INIT;
  if (desc != NULL) {
    if (desc->size < sizeof(skss_ctx_desc)) return SKSS_ERR_INVALID_ARG;
    d = *desc;
  }
  if (d.threads < 0 || d.threads > 1024) return SKSS_ERR_INVALID_ARG;
  if (d.allocator && (d.allocator->alloc == NULL || d.allocator->free == NULL))
    return SKSS_ERR_INVALID_ARG;
  skss_backend backend = d.backend;
  switch (backend) {
    case SKSS_BACKEND_AUTO:
      backend = skss_backend_available(SKSS_BACKEND_CUDA) ? SKSS_BACKEND_CUDA : SKSS_BACKEND_CPU;
      break;
    case SKSS_BACKEND_CPU_REF:
    case SKSS_BACKEND_CPU: break;
    case SKSS_BACKEND_CUDA:
      if (!skss_backend_built(SKSS_BACKEND_CUDA)) return SKSS_ERR_UNSUPPORTED;
      if (!skss_backend_available(SKSS_BACKEND_CUDA)) return SKSS_ERR_NO_DEVICE;
      break;
    default: return SKSS_ERR_INVALID_ARG;
  }
  skss_allocator alloc = {default_alloc, default_free, NULL};
  if (d.allocator) alloc = *d.allocator;
  skss_ctx *ctx = alloc.alloc(sizeof *ctx, 64, alloc.user_data);
  if (ctx == NULL) return SKSS_ERR_OUT_OF_MEMORY;
  memset(ctx, 0, sizeof *ctx);
  ctx->backend = backend;
  ctx->alloc = alloc;
  ctx->device = d.device;
  ctx->threads = backend == SKSS_BACKEND_CPU_REF ? 1 : (d.threads ? d.threads : online_cpus());
  if (ctx->threads > 1) {
    ctx->pool = skss__pool_create(ctx, ctx->threads);
    if (ctx->pool == NULL) {
      alloc.free(ctx, alloc.user_data);
      return SKSS_ERR_OUT_OF_MEMORY;
    }
  }
  if (backend == SKSS_BACKEND_CUDA) {
    skss_status st = skss__cuda_ctx_init(ctx, d.device, d.cuda_stream);
    if (st != SKSS_OK) {
      skss_ctx_destroy(ctx);
      return st;
    }
  }
  *out = ctx;
  return SKSS_OK;
}

void skss_ctx_destroy(skss_ctx *ctx) {
  if (ctx == NULL) return;
  if (ctx->cuda) skss__cuda_ctx_release(ctx);
  if (ctx->pool) skss__pool_destroy(ctx->pool);
  skss__free(ctx, ctx->arena);
  skss_allocator alloc = ctx->alloc;
  alloc.free(ctx, alloc.user_data);
}

skss_backend skss_ctx_backend(const skss_ctx *ctx) { return ctx ? ctx->backend : SKSS_BACKEND_AUTO; }

int skss_ctx_threads(const skss_ctx *ctx) { return ctx ? ctx->threads : 0; }

skss_status skss_ctx_synchronize(skss_ctx *ctx) {
  SKSS__CHECK_CTX(ctx);
  if (ctx->backend == SKSS_BACKEND_CUDA) return skss__cuda_synchronize(ctx);
  return SKSS_OK;
}

int skss_backend_built(skss_backend backend) {
  switch (backend) {
    case SKSS_BACKEND_AUTO:
    case SKSS_BACKEND_CPU_REF:
    case SKSS_BACKEND_CPU: return 1;
    case SKSS_BACKEND_CUDA: return skss__cuda_built();
  }
  return 0;
}

int skss_backend_available(skss_backend backend) {
  if (backend == SKSS_BACKEND_CUDA) return skss__cuda_built() && skss_device_count() > 0;
  return skss_backend_built(backend);
}

int skss_device_count(void) { return skss__cuda_device_count(); }

skss_status skss_device_get_info(int ordinal, skss_device_info *out) {
  if (out == NULL) return SKSS_ERR_INVALID_ARG;
  memset(out, 0, sizeof *out);
  if (ordinal < 0 || ordinal >= skss_device_count()) return SKSS_ERR_NO_DEVICE;
  return skss__cuda_device_info(ordinal, out);
}
