/*
 * halftone_tuning.h — tuning constants of the CUDA halftone kernels of
 * halftone_skss.cu and halftone_strips.cu (to be merged into
 * src/cuda/tuning.h): block shapes and the lag between rows.
 */
#ifndef SKSS_CUDA_HALFTONE_TUNING_H
#define SKSS_CUDA_HALFTONE_TUNING_H

/* ---- Halftone: SKSS (halftone_skss.cu, skss-task-arrays.md §V.C) ---- */
/* Warps per block; each warp takes its own strips of 32 rows by ticket. */
#define SKSS_CUDA_HT_SKSS_WARPS 4

/* ---- Halftone: ours (halftone_strips.cu) ---- */
/* Warps per block: the block's warps run one strip of 32 x WARPS rows,
 * handing errors down through shared memory, so only one hand-off in
 * WARPS goes through global memory. Four: one warp per scheduler of an SM
 * (H200, FS 16K, slack 1: 2 warps 7.37 ms, 4 warps 7.26, 8 warps 7.90). */
#ifndef SKSS_CUDA_HT_STRIPS_WARPS /* (a -D overrides it, for sweeps) */
#define SKSS_CUDA_HT_STRIPS_WARPS 4
#endif
/* Columns each row lags the row above beyond the kernel's slope. 1 takes
 * the shuffle that hands an error to the next lane off the critical path
 * (the value is used two steps after it is made, not one), but a step costs
 * about 150 cycles today (issue- and dependency-bound: ~43 instructions per
 * step and warp, ncu), far more than that shuffle, so the extra column per
 * row only lengthens the wavefront. Measured on an H200, FS: slack 0 vs 1
 * 1K 0.347 vs 0.394 ms, 4K 1.36 vs 1.57, 16K 6.10 vs 7.26, 32K 12.8 vs
 * 15.5, 64 x 4K batch 240 vs 213 Gpixels/s. */
#ifndef SKSS_CUDA_HT_STRIPS_SLACK
#define SKSS_CUDA_HT_STRIPS_SLACK 0
#endif
/* Extra columns each warp of a block lags the warp above: the warps meet at
 * a block barrier every 8 steps, so an error made by the warp above is read
 * 8 steps later. Must equal the group of 8 steps (halftone_wavefront.cuh). */
#define SKSS_CUDA_HT_STRIPS_WARP_LAG 8

#endif
