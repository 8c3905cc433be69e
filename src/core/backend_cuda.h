/*
 * backend_cuda.h — the few entry points the C core calls in the CUDA backend
 * (src/cuda/). A build without CUDA links src/core/backend_cuda_absent.c,
 * which answers "not built" to each.
 */
#ifndef SKSS_BACKEND_CUDA_H
#define SKSS_BACKEND_CUDA_H

#include "internal.h"

#ifdef __cplusplus
extern "C" {
#endif

int skss__cuda_built(void);
int skss__cuda_device_count(void);
skss_status skss__cuda_device_info(int ordinal, skss_device_info *out);
skss_status skss__cuda_ctx_init(skss_ctx *ctx, int device, void *stream);
void skss__cuda_ctx_release(skss_ctx *ctx);
skss_status skss__cuda_synchronize(skss_ctx *ctx);

#ifdef __cplusplus
}
#endif

#endif
