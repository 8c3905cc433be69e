/*
 * context.c — the skss_ctx: backend choice, worker threads, allocator hooks,
 * the grow-only scratch arena, and per-context error text. A failed
 * skss_ctx_create() has no context to hold its reason, so that one text is
 * kept per thread (the only state outside a context), read back with
 * skss_ctx_last_error(NULL).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend_cuda.h"
#include "internal.h"
#include "../cpu/isa.h"
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
    case SKSS_ERR_TIMEOUT: return "time limit reached";
  }
  return "unknown status";
}

/* Where skss__fail() writes on this thread instead of the context (NULL:
 * the context): a worker of a call keeps its own message, which the calling
 * thread reports after the join. */
static _Thread_local char *fail_sink;
static _Thread_local size_t fail_sink_size;

void skss__fail_to(char *sink, size_t size) {
  fail_sink = sink;
  fail_sink_size = size;
}

char *skss__fail_sink(void) { return fail_sink; }
size_t skss__fail_sink_size(void) { return fail_sink_size; }

skss_status skss__fail(skss_ctx *ctx, skss_status status, const char *fmt, ...) {
  char *out = fail_sink != NULL ? fail_sink : ctx != NULL ? ctx->error : NULL;
  const size_t size = fail_sink != NULL ? fail_sink_size : sizeof ctx->error;
  if (out != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, size, fmt, ap);
    va_end(ap);
  }
  return status;
}

void skss__clear_error(skss_ctx *ctx) { ctx->error[0] = '\0'; }

/* The reason the calling thread's last skss_ctx_create() failed ("" if it
 * succeeded): thread-local, so threads creating contexts never race. */
static _Thread_local char create_error[512];

static skss_status create_fail(skss_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static skss_status create_fail(skss_status status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(create_error, sizeof create_error, fmt, ap);
  va_end(ap);
  return status;
}

const char *skss_ctx_last_error(const skss_ctx *ctx) { return ctx ? ctx->error : create_error; }

skss_status skss__check_host_pointers(skss_ctx *ctx, const char *fn, int count,
                                      const void *const *pointers, const char *const *names) {
  if (ctx->cuda == NULL) return SKSS_OK; /* no device: every pointer is host memory */
  for (int k = 0; k < count; k++)
    if (pointers[k] != NULL && skss__cuda_is_device_only(pointers[k]))
      return skss__fail(ctx, SKSS_ERR_INVALID_ARG,
                        "%s: %s is device memory, but this primitive runs on the CPU (the cuda "
                        "backend has no kernels for it yet): pass host memory",
                        fn, names[k]);
  return SKSS_OK;
}

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

bool skss__alloc_thread_safe(const skss_ctx *ctx) { return ctx->alloc.alloc == default_alloc; }

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

static const char *const CREATE_FN = "skss_ctx_create()";

/* The backend a context is created for (AUTO resolved), or a failure. */
static skss_status pick_backend(skss_backend requested, skss_backend *out) {
  switch (requested) {
    case SKSS_BACKEND_AUTO:
      *out = skss_backend_available(SKSS_BACKEND_CUDA) ? SKSS_BACKEND_CUDA : SKSS_BACKEND_CPU;
      return SKSS_OK;
    case SKSS_BACKEND_CPU_REF:
    case SKSS_BACKEND_CPU: *out = requested; return SKSS_OK;
    case SKSS_BACKEND_CUDA:
      *out = requested;
      if (!skss_backend_built(SKSS_BACKEND_CUDA))
        return create_fail(SKSS_ERR_UNSUPPORTED, "%s: this build has no CUDA backend", CREATE_FN);
      if (!skss_backend_available(SKSS_BACKEND_CUDA))
        return create_fail(SKSS_ERR_NO_DEVICE, "%s: the cuda backend found no CUDA device",
                           CREATE_FN);
      return SKSS_OK;
  }
  return create_fail(SKSS_ERR_INVALID_ARG, "%s: unknown backend %d", CREATE_FN, (int)requested);
}

/* Checks a desc; returns its values (defaults for NULL) in *d. */
static skss_status read_ctx_desc(const skss_ctx_desc *desc, skss_ctx_desc *d) {
  const skss_ctx_desc defaults = SKSS_CTX_DESC_INIT;
  *d = defaults;
  if (desc == NULL) return SKSS_OK;
  if (desc->size < sizeof(skss_ctx_desc))
    return create_fail(SKSS_ERR_INVALID_ARG, "%s: desc->size is %zu, expected %zu", CREATE_FN,
                       desc->size, sizeof(skss_ctx_desc));
  *d = *desc;
  if (d->threads < 0 || d->threads > 1024)
    return create_fail(SKSS_ERR_INVALID_ARG, "%s: threads %d is outside 0..1024", CREATE_FN,
                       d->threads);
  if (d->allocator && (d->allocator->alloc == NULL || d->allocator->free == NULL))
    return create_fail(SKSS_ERR_INVALID_ARG, "%s: the allocator's %s hook is NULL", CREATE_FN,
                       d->allocator->alloc == NULL ? "alloc" : "free");
  return SKSS_OK;
}

skss_status skss_ctx_create(const skss_ctx_desc *desc, skss_ctx **out) {
  create_error[0] = '\0';
  if (out == NULL) return create_fail(SKSS_ERR_INVALID_ARG, "%s: out is NULL", CREATE_FN);
  *out = NULL;
  skss_ctx_desc d;
  skss_backend backend = SKSS_BACKEND_AUTO;
  skss_status st = read_ctx_desc(desc, &d);
  if (st == SKSS_OK) st = pick_backend(d.backend, &backend);
  if (st != SKSS_OK) return st;
  skss__cpu_isa isa = SKSS__CPU_ISA_SCALAR;
  const char *isa_name = NULL;
  if (backend != SKSS_BACKEND_CPU_REF && skss__cpu_isa_choose(&isa, &isa_name) != SKSS_OK)
    return create_fail(SKSS_ERR_INVALID_ARG,
                       "%s: SKSS_CPU_ISA=%s is not one of scalar, avx2, avx512", CREATE_FN,
                       isa_name);
  skss_allocator alloc = {default_alloc, default_free, NULL};
  if (d.allocator) alloc = *d.allocator;
  skss_ctx *ctx = alloc.alloc(sizeof *ctx, 64, alloc.user_data);
  if (ctx == NULL)
    return create_fail(SKSS_ERR_OUT_OF_MEMORY, "%s: no memory for the context", CREATE_FN);
  memset(ctx, 0, sizeof *ctx);
  ctx->backend = backend;
  ctx->auto_backend = d.backend == SKSS_BACKEND_AUTO;
  ctx->alloc = alloc;
  ctx->device = d.device;
  ctx->cpu_isa = (int)isa;
  ctx->threads = backend == SKSS_BACKEND_CPU_REF ? 1 : (d.threads ? d.threads : online_cpus());
  if (ctx->threads > 1) {
    ctx->pool = skss__pool_create(ctx, ctx->threads);
    if (ctx->pool == NULL) {
      alloc.free(ctx, alloc.user_data);
      return create_fail(SKSS_ERR_OUT_OF_MEMORY, "%s: could not start %d worker threads",
                         CREATE_FN, d.threads ? d.threads : online_cpus());
    }
  }
  if (backend == SKSS_BACKEND_CUDA) {
    st = skss__cuda_ctx_init(ctx, d.device, d.cuda_stream);
    if (st != SKSS_OK) {
      create_fail(st, "%s", ctx->error[0] ? ctx->error : "skss_ctx_create(): CUDA setup failed");
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

skss_status skss_ctx_set_stream(skss_ctx *ctx, void *cuda_stream) {
  SKSS__CHECK_CTX(ctx);
  if (ctx->cuda != NULL) return skss__cuda_set_stream(ctx, cuda_stream);
  if (cuda_stream == NULL) return SKSS_OK;
  return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "skss_ctx_set_stream(): the %s backend has no CUDA stream",
                    skss_backend_name(ctx->backend));
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
