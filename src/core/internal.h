/*
 * internal.h — what every part of the library shares but users never see:
 * the context structure, error reporting, checked size arithmetic and the
 * scratch arena. Private names start with skss__ so they never collide.
 */
#ifndef SKSS_INTERNAL_H
#define SKSS_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skss.h"

#ifdef __cplusplus
extern "C" { /* the CUDA sources (C++) call into the C core */
#endif

typedef struct skss__pool skss__pool;

struct skss_ctx {
  skss_backend backend;   /* the main backend: CUDA, CPU or CPU_REF (never AUTO) */
  bool auto_backend;      /* created as AUTO: primitives CUDA lacks run on the CPU */
  int threads;
  int device;
  skss_allocator alloc;
  skss__pool *pool;       /* CPU worker threads (NULL when threads == 1) */
  int cpu_isa;            /* skss__cpu_isa (src/cpu/isa.h) the CPU kernels run at */
  void *arena;            /* grow-only host scratch */
  size_t arena_bytes;
  void *cuda;             /* CUDA backend state (src/cuda), NULL otherwise */
  char error[512];
};

/* Records a formatted one-line error on ctx and returns `status`. */
skss_status skss__fail(skss_ctx *ctx, skss_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* Clears the last error at the start of a public call. */
void skss__clear_error(skss_ctx *ctx);
/* Sends this thread's later skss__fail() messages to sink (size bytes)
 * instead of the context, until called with NULL (workers of a call). */
void skss__fail_to(char *sink, size_t size);
/* This thread's sink and its size (NULL, 0: the context), to restore after. */
char *skss__fail_sink(void);
size_t skss__fail_sink_size(void);

/* Whether the context's allocator is malloc's (callable from several
 * threads at once), not hooks of the caller's. */
bool skss__alloc_thread_safe(const skss_ctx *ctx);
/* Host memory through the context's allocator (64-byte aligned). */
void *skss__alloc(skss_ctx *ctx, size_t bytes);
void skss__free(skss_ctx *ctx, void *ptr);
/* Scratch of at least `bytes` from the grow-only arena; valid until the next
 * skss__scratch() call on the context. NULL when out of memory. */
void *skss__scratch(skss_ctx *ctx, size_t bytes);

/* Checked arithmetic: return false on overflow (or a negative operand). */
static inline bool skss__mul_size(size_t a, size_t b, size_t *out) {
  if (a != 0 && b > SIZE_MAX / a) return false;
  *out = a * b;
  return true;
}
static inline bool skss__add_size(size_t a, size_t b, size_t *out) {
  if (b > SIZE_MAX - a) return false;
  *out = a + b;
  return true;
}
static inline bool skss__mul_i64(int64_t a, int64_t b, int64_t *out) {
  if (a < 0 || b < 0) return false;
  if (a != 0 && b > INT64_MAX / a) return false;
  *out = a * b;
  return true;
}

/* Validates a 2-D buffer: rows x cols elements of elem bytes with `pitch`
 * bytes between rows (0 = packed, resolved into *pitch_out). Checks that the
 * pitch covers a row and that the whole extent fits in size_t. */
skss_status skss__check_2d(skss_ctx *ctx, const char *fn, const char *what, int64_t rows,
                           int64_t cols, size_t elem, int64_t pitch, size_t *pitch_out);

/* Common entry checks: ctx and desc non-NULL, desc->size large enough. */
#define SKSS__CHECK_CTX(ctx)                   \
  do {                                         \
    if ((ctx) == NULL) return SKSS_ERR_INVALID_ARG; \
    skss__clear_error(ctx);                    \
  } while (0)

#define SKSS__CHECK_DESC(ctx, fn, desc, type)                                              \
  do {                                                                                     \
    if ((desc) == NULL)                                                                    \
      return skss__fail((ctx), SKSS_ERR_INVALID_ARG, "%s: desc is NULL", (fn));            \
    if ((desc)->size < sizeof(type))                                                       \
      return skss__fail((ctx), SKSS_ERR_INVALID_ARG,                                       \
                        "%s: desc->size is %zu, expected sizeof(" #type ") = %zu", (fn),   \
                        (size_t)(desc)->size, sizeof(type));                               \
  } while (0)

/* Resolves an algorithm for the context: AUTO becomes the default of the
 * backend that runs the primitive (skss__algorithm_backend); an algorithm no
 * backend of the context has is SKSS_ERR_UNSUPPORTED. */
skss_status skss__resolve_algorithm(skss_ctx *ctx, const char *fn, skss_op op, int requested,
                                    int *resolved);

/* The backend of `ctx` that runs `algorithm` of `op` (0 = AUTO): the main
 * backend when it has it, else, for an AUTO context, the CPU threads;
 * SKSS_BACKEND_AUTO when none does. */
skss_backend skss__algorithm_backend(const skss_ctx *ctx, skss_op op, int algorithm);

/* For a call that runs on the CPU in a context that also holds a CUDA
 * device (AUTO): fails with SKSS_ERR_INVALID_ARG when one of the `count`
 * pointers is device memory, which the CPU cannot read. */
skss_status skss__check_host_pointers(skss_ctx *ctx, const char *fn, int count,
                                      const void *const *pointers, const char *const *names);

#ifdef __cplusplus
}
#endif

#endif
