/*
 * tuning.h — the CUDA backend's tuning constants (block sizes, tiles, the
 * AUTO choices): the only place they live, so retuning never edits an
 * algorithm. Values are for sm_90 (H100/H200) and were chosen as each
 * section's comment says.
 */
#ifndef SKSS_CUDA_TUNING_H
#define SKSS_CUDA_TUNING_H

/* ---- SAT: HMM paper family (sat/sat_hmm.cu) ---- */
/* The paper's section VIII configuration: w = 32 (tiles of 32 x 32, one
 * warp scans), 64-thread blocks for the column/row/diagonal kernels of
 * 2R2W, 4R4W and 4R1W, one 128-thread block per tile for 2R1W and 1R1W. */
#define SKSS_CUDA_SAT_HMM_SCAN_THREADS 64
#define SKSS_CUDA_SAT_HMM_TILE_THREADS 128
/* (1+r)R1W: the r minimising the run time per side sqrt(H * W), searched
 * by `skss bench --suite sat-papers` (f64, the HMM paper's 13 sides, r in
 * {0.01, 0.02, 0.05, 0.1, ..., 0.9, 0.99}; H200, bench/results/
 * gpu-sat-2026-11-22-h200-18a0f0f): the largest r tried wins at every side, each
 * r faster than the one below it, because on the H200 a 1R1W launch per
 * block diagonal costs more than 2R1W's second read (16K: 2R1W 2.84 ms,
 * 1R1W 9.37, (1+r)R1W 8.33 at r = 0.05 down to 3.43 at r = 0.99). The
 * paper's GTX 780 Ti minimised at r = 0.07-0.17 (its Table II: 0.168 at 1K
 * falling to 0.0725 at 18K), where its 1R1W beat 2R1W from 7K on.
 * Interpolated linearly, clamped at the ends. X(side, r). */
#define SKSS_CUDA_SAT_HMM_R_TABLE(X) \
  X(1024, 0.99)                      \
  X(18432, 0.99)

/* ---- SAT: task-array family (sat/sat_taskarray.cu) ---- */
/* SKSS: 64-thread blocks (two warps, each its own ticket), as in the paper. */
#define SKSS_CUDA_SAT_SKSS_THREADS 64
/* Parallel-Fair: one warp per tile, 64-thread blocks like SKSS for a fair
 * comparison. */
#define SKSS_CUDA_SAT_PF_THREADS 64

/* ---- SAT: register-cache family (sat/sat_regcache.cu) ---- */
/* Warps per block of the BRLT kernels. Each warp caches a 32 x 32 tile in
 * registers (32 accumulators per thread) and owns a 32 x 33 shared transpose
 * buffer: 8 warps of 4-byte or 4 warps of 8-byte accumulators take 33 KiB,
 * inside the 48 KiB of static shared memory, and leave room for several
 * blocks per SM. (The paper ran 1024 / 512 threads on a P100 with batched
 * buffers; untuned on sm_90 so far.) */
#define SKSS_SAT_RC_BRLT_WARPS_4B 8
#define SKSS_SAT_RC_BRLT_WARPS_8B 4
/* Warps per block of ScanColumn (no transpose buffer): 16 keeps 4-byte
 * tiles in registers; 8-byte tiles spill at 16 (128 registers), not at 8. */
#define SKSS_SAT_RC_COLUMN_WARPS_4B 16
#define SKSS_SAT_RC_COLUMN_WARPS_8B 8
/* Warps (= rows in flight) per block of ScanRow. */
#define SKSS_SAT_RC_ROW_WARPS 8

/* ---- SAT: one pass, ours (sat/sat_onepass.cu) ---- */
/* A block of WARPS warps works on one tile of WARPS * ROWS_PER_WARP rows by
 * 32 * VEC columns (each lane VEC adjacent columns: 16-byte accesses of
 * 4-byte elements), held in shared memory while its carries are found.
 * Tiles wait on their neighbours' carries (look-back), so throughput comes
 * from tiles in flight: as many as fit an SM's shared memory (SMEM_PER_SM,
 * less SMEM_RESERVED a block): 12 of 32 x 128 4-byte elements, 6 of 64 x
 * 128, 7 of 60 x 128. H200, f32 16K (us): 32 x 128 tiles in registers (8 an
 * SM) 931, in shared memory (12 an SM) 668, 64 x 128 tiles (6 an SM) 630. At
 * 1K 32 x 128 is faster (9.9 us against 11.5: more tiles to run at once), so
 * the tall shape runs where its tiles fill the GPU once (4-byte sums; 8-byte
 * ones take the short shape, 32 KB). At 16K the kernel is bound by L2
 * throughput (ncu: 85% of peak, against 74% for DRAM), of which the carry
 * words are ~14%: so for f32 the tall tile is 64 rows (fewer carry words a
 * byte: 610 us, against 619 for 60 rows and 620-716 for 80-128 rows with
 * fewer tiles an SM), while u8 -> u32, which moves fewer bytes a tile,
 * gains from the 7th tile of 60 rows (495 us against 503-523). */
#define SKSS_CUDA_SAT_ONEPASS_WARPS 4
#define SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP 8
#define SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP_TALL 16
#define SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP_TALL_NARROW 15 /* inputs narrower than the sums */
#define SKSS_CUDA_SAT_ONEPASS_VEC 4
/* Big tiles for 4-byte sums of inputs wider than a byte (the 1-byte ones
 * take raw tiles, below): more warps a tile,
 * so that a tile covers more rows (fewer column carry words a byte: the
 * look-back traffic that bounds 16K) with the same rows a warp and warps an
 * SM. 96 rows (8 warps of 12, 4 an SM, 48 KB of dynamic shared memory) where
 * they fill the GPU once; 192 rows (16 warps of 12, 2 an SM) where they fill
 * it HUGE_FILLS times. H200, f32, us (batches of 20 calls), against the
 * 64-row tall tiles: 3K 34.3 -> 32.2, 4K 51.7 -> 49.4, 6K 99.7 -> 94.8 (96
 * rows) or 94.8 (192), 8K 164.7 -> 158.7 or 156.2, 16K 600 -> 587 or 576,
 * 32K 2302 -> 2287 or 2270. Also measured: 128 rows (8 x 16 or 16 x 8, 3
 * an SM) 4K 50.7, 16K 579; 80 rows (8 x 10, 5 an SM) 49.8 / 598; 120 rows
 * (12 x 10, 3 an SM) 50.3 / 580; 192 rows of 8 warps (2 an SM) 56.4 / 601. */
#define SKSS_CUDA_SAT_ONEPASS_BIG_WARPS 8
#define SKSS_CUDA_SAT_ONEPASS_BIG_ROWS_PER_WARP 12
#define SKSS_CUDA_SAT_ONEPASS_HUGE_WARPS 16
#define SKSS_CUDA_SAT_ONEPASS_HUGE_ROWS_PER_WARP 12
#define SKSS_CUDA_SAT_ONEPASS_HUGE_FILLS 6
/* Raw tiles for 1-byte inputs with 4-byte sums: the tile stays in shared
 * memory as its bytes (scanned twice: aggregates, then outputs), 8 warps of 8
 * bytes a lane, so 256 columns, and fewer carry words a byte of data. Four
 * blocks an SM (64 registers; five spill). H200, u8 -> u32, a timing loop
 * (us, host overhead included), against the 60 x 128 tiles of 4-byte sums
 * (7 an SM) they replace: rows a warp 8 / 10 / 12 / 14 / 16 / 18: 16K 456 /
 * 449 / 435 / 436 / 456 / 455 against 486; 32K 1765 / 1677 / 1649 / 1648 /
 * 1648 / 1712 against 1798; 8K 133 / 131 / 129 / 130 / - / - against 143;
 * 4K 43.4 / 44.5 / 48.5 / 47.7 against 45.4. So 96 x 256 tiles where they
 * fill the GPU twice (6K up: 81.8 against 88.6), 64 x 256 where they fill
 * it once (4K), and 8 rows a warp at 6 blocks an SM (spills) 472 at 16K. */
#define SKSS_CUDA_SAT_ONEPASS_RAW_WARPS 8
#define SKSS_CUDA_SAT_ONEPASS_RAW_VEC 8
#define SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP 8
#define SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP_TALL 12
#define SKSS_CUDA_SAT_ONEPASS_RAW_BLOCKS 4
/* Shared memory of an SM (sm_90: 228 KB) and what it reserves a block (1 KB). */
#define SKSS_CUDA_SAT_ONEPASS_SMEM_PER_SM (228 * 1024)
#define SKSS_CUDA_SAT_ONEPASS_SMEM_RESERVED 1024
/* Predecessors a thread loads at once in a look-back. Fewer loads, less L2
 * traffic: 4 against 8 took f32 16K from 638 to 618 us and u8 -> u32 from
 * 524 to 495 (2 or 3: the same as 4); 8 also spills where 12 blocks share
 * an SM. */
#ifndef SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS /* (a -D overrides it, for sweeps) */
#define SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS 4
#endif
/* The same for tiles of sums of more than 4 warps (big and huge; not the
 * raw ones: u8 -> u32 16K 422 -> 437 us with 2), which find their
 * carries sooner with 2 (H200, f32, us, three rounds each: 3K 32.1 -> 31.7,
 * 4K 49.0 -> 48.6, 6K 94.9 -> 94.2, 8K 155.3 -> 154.3, 16K 575.7 -> 574.7;
 * 3 loads: in between). */
#define SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS_BIG 2

/* ---- SAT: what AUTO runs on the CUDA backend (sat/sat_dispatch.cu) ----
 * Measured per size and type on the H200 (bench/results/gpu-sat-*-bff3a82;
 * us, onepass / scanrowcolumn-ks, the next fastest): f32 1K 9.9 / 15.8, 4K
 * 52.7 / 95.0, 16K 602 / 1251; u8->u32 1K 10.4 / 15.6, 4K 41.7 / 84.5, 16K
 * 482 / 1122 (raw tiles, 198701b: 4K 40.2, 16K 432); f64 16K 1407 / 2335. onepass is
 * fastest for every type at every size, so AUTO runs it throughout; so it
 * stayed in all 40 cases of bench/results/gpu-sat-2026-11-22-h200-18a0f0f
 * (f32, u8->u32 and f64, 1K to 32K; the other six type pairs run the same
 * tile shapes, chosen by input and sum size, and were not timed). Its
 * integer results are exact; float ones may round differently from run to
 * run (the order in which its look-backs add carries depends on timing),
 * always within the documented bound: SCANROWCOLUMN_KS, named, is the
 * fastest whose float results repeat bit for bit. */
#define SKSS_CUDA_SAT_AUTO_INTEGER SKSS_SAT_ALGORITHM_ONEPASS
#define SKSS_CUDA_SAT_AUTO_FLOAT SKSS_SAT_ALGORITHM_ONEPASS

/* ---- Halftone: the error-diffusion paper's GPU variants
 * (halftone/halftone_pram.cu, halftone_parallelogram.cu) ---- */
/* PRAM-style k-delay kernels: threads (= image rows of one step) per block.
 * The paper's Section IV speaks of 32-thread blocks; a step has at most
 * W / k + 1 rows, so the block size only matters for the partial last block
 * and 128 keeps the blocks of a 16K step few. */
#define SKSS_CUDA_HT_PRAM_THREADS 128
/* Data permutation: the transpose moves 32 x 32 byte tiles through shared
 * memory with blocks of 32 x 8 threads (each thread 4 rows of a tile). */
#define SKSS_CUDA_HT_PERM_TILE 32
#define SKSS_CUDA_HT_PERM_TILE_ROWS 8
#define SKSS_CUDA_HT_PERM_SHIFT_THREADS 256

/* ---- Halftone: SKSS (halftone/halftone_skss.cu, Funasaka, Nakano, Ito, SKSS task arrays, §V.C) ---- */
/* Warps per block; each warp takes its own strips of 32 rows by ticket. */
#define SKSS_CUDA_HT_SKSS_WARPS 4

/* ---- Halftone: ours (halftone/halftone_strips.cu, halftone_wavefront.cuh) ---- */
/* Compute warps per block (each with an I/O warp): the block's compute
 * warps run one strip of 32 x WARPS rows, handing errors down through
 * shared memory, so only one hand-off in WARPS goes through global memory.
 * Four, for batches and images too wide for the narrow strips below: one
 * compute warp per scheduler of an SM. H200, FS 16K, with the I/O warps,
 * before the border warp moved to the block's warp 0 and one image ran a
 * block an SM: 2 warps 4.52 ms, 4 warps 4.42, 8 warps 5.25 (before the I/O
 * warps, slack 1: 7.37, 7.26, 7.90). */
#ifndef SKSS_CUDA_HT_STRIPS_WARPS /* (a -D overrides it, for sweeps) */
#define SKSS_CUDA_HT_STRIPS_WARPS 4
#endif
/* The same for one image whose strips all run at once, a block an SM (a
 * strip of W + span steps starting slope x rows steps after the one above:
 * for Floyd-Steinberg on 132 SMs, widths to ~16.7K). Two compute warps:
 * with the border warp first in the block, each compute warp then has a
 * scheduler to itself and its I/O warp. H200, FS, ms, 2 against 4 compute
 * warps: one strip 51.5 against 55.8 ns a step, 1K 0.207-0.210 against
 * 0.216-0.225, 4K 0.790-0.793 against 0.822-0.834, 16K 3.18 against
 * 3.28-3.31; but 24K 4.94 against 4.91 and 32K 7.88 against 6.54 (more
 * strips at once than SMs), and a batch of 64 x 4K 203 against 245
 * Gpixels/s: those keep 4. */
#ifndef SKSS_CUDA_HT_STRIPS_WARPS_NARROW
#define SKSS_CUDA_HT_STRIPS_WARPS_NARROW 2
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
 * row of 4M pixels 94 vs 74 ns a step. With the I/O warps (2bcd982): one
 * strip 55 vs 44 ns a step, but 1K 0.262 vs 0.303 ms, 4K 0.987 vs 1.14,
 * 16K 4.03 vs 4.58, 32K 8.61 vs 9.87: still 0. */
#ifndef SKSS_CUDA_HT_STRIPS_SLACK
#define SKSS_CUDA_HT_STRIPS_SLACK 0
#endif
/* Extra columns each warp of a block lags the warp above: the warps meet at
 * a block barrier every 8 steps, so an error made by the warp above is read
 * 8 steps later. Must equal the group of 8 steps (halftone_wavefront.cuh). */
#define SKSS_CUDA_HT_STRIPS_WARP_LAG 8

/* ---- Box filter (boxfilter.cu) ----
 * One thread per output pixel, 32 columns x 8 rows: a warp's four SAT reads
 * are each one contiguous run of 32 elements of one row. */
#define SKSS_CUDA_BOX_COLS 32
#define SKSS_CUDA_BOX_ROWS 8

#endif
