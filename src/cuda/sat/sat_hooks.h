/*
 * sat_hooks.h — internal knobs of the CUDA SAT for the benchmark (bench/),
 * not public API: plain C, no CUDA headers, so the C bench can include it.
 * Each knob is a field of the context's CUDA state (common.cuh) that the
 * kernels read at launch; its default (0) means "the tuning table decides".
 */
#ifndef SKSS_CUDA_SAT_HOOKS_H
#define SKSS_CUDA_SAT_HOOKS_H

#include "skss.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The r of (1+r)R1W (SKSS_SAT_ALGORITHM_1PR_R1W) for later calls on `ctx`: the first
 * and last r/2 of the tile area go to 2R1W batches (sat_hmm.cu), as in the
 * HMM paper's sweep of Table II. 0 < r < 1; 0 restores the r of the tuning
 * table (tuning.h). SKSS_ERR_INVALID_ARG for another r or a context that is
 * not on the CUDA backend. */
skss_status skss__cuda_sat_set_hybrid_r(skss_ctx *ctx, double r);

#ifdef __cplusplus
}
#endif

#endif
