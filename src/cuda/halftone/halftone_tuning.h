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
 * far more than that shuffle, so the extra column per row only lengthens
 * the wavefront. Measured on an H200, FS: slack 0 vs 1, run_strip() (~43
 * instructions a step) 1K 0.347 vs 0.394 ms, 4K 1.36 vs 1.57, 16K 6.10 vs
 * 7.26, 32K 12.8 vs 15.5, 64 x 4K batch 240 vs 213 Gpixels/s;
 * run_strip_rows() (~17 a step in the interior) 1K 0.345 vs 0.369, 4K 1.32
 * vs 1.46, 16K 5.77 vs 6.37, 32K 12.1 vs 13.4, batch 215 vs 200; on one
 * row of 4M pixels 94 vs 74 ns a step. */
#ifndef SKSS_CUDA_HT_STRIPS_SLACK
#define SKSS_CUDA_HT_STRIPS_SLACK 0
#endif
/* How the warps of a block hand errors down: 0, a block barrier after every
 * group of 8 steps; 1, per-warp progress words in shared memory (release /
 * acquire, 4 slots, back-pressure from the warp below), no barrier. The
 * barrier is cheaper: H200, FS, slack 0, barrier vs flags 1K 0.344 vs 0.385
 * ms, 4K 1.33 vs 1.50, 16K 5.77 vs 6.44, 32K 12.1 vs 13.7, 64 x 4K batch 214
 * vs 191 Gpixels/s (the warps spin on the flags through the same shared
 * memory pipe as the step's shuffle). */
#ifndef SKSS_CUDA_HT_STRIPS_SYNC
#define SKSS_CUDA_HT_STRIPS_SYNC 0
#endif
/* How pixels reach the lanes: 0, the warp loads and stores 32 columns of its
 * 32 rows per chunk coalesced row by row through a shared-memory ring; 1,
 * each lane its own row as aligned words in registers (9 loads, 8 stores
 * and ~26 byte permutes per 32 steps instead of ~11 instructions a step).
 * 1 issues fewer instructions but each of its accesses touches 32 rows,
 * and it is slower: H200, FS, slack 0, ring vs words 1K 0.345 vs 0.426 ms,
 * 4K 1.32 vs 1.66, 16K 5.77 vs 8.28, 32K 12.1 vs 19.7. */
#ifndef SKSS_CUDA_HT_STRIPS_ROW_IO
#define SKSS_CUDA_HT_STRIPS_ROW_IO 0
#endif
/* Extra columns each warp of a block lags the warp above: the warps meet at
 * a block barrier every 8 steps, so an error made by the warp above is read
 * 8 steps later. Must equal the group of 8 steps (halftone_wavefront.cuh). */
#define SKSS_CUDA_HT_STRIPS_WARP_LAG 8

#endif
