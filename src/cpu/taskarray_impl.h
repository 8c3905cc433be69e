/*
 * taskarray_impl.h — the CPU runner behind skss_taskarray_run(), which
 * (core/taskarray_api.c) validates the descriptor first.
 */
#ifndef SKSS_TASKARRAY_IMPL_H
#define SKSS_TASKARRAY_IMPL_H

#include "core/internal.h"

/* Runs a validated, non-empty task array (rows * cols fits int64, and
 * `rows` progress counters fit size_t) on the context's threads with the
 * descriptor's schedule; errors are reported as `fn`'s. */
skss_status skss__taskarray_cpu(skss_ctx *ctx, const char *fn, const skss_taskarray_desc *desc);

#endif
