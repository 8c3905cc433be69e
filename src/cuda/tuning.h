/*
 * tuning.h — the CUDA backend's tuning constants and AUTO's choices, all in
 * one place so that retuning never edits an algorithm. Values are for sm_90
 * (H100/H200). Each comment ends with where docs/performance.md describes
 * the measurement: [SAT: ...] and [HT: ...] name a paragraph of the tuning
 * constants of its SAT and halftoning sections, [untuned] its list of the
 * constants not tuned on sm_90 (the papers' configurations, plain choices).
 */
#ifndef SKSS_CUDA_TUNING_H
#define SKSS_CUDA_TUNING_H

/* ---- SAT: HMM paper family (sat/sat_hmm.cu) ---- */
/* Threads a block of the column, row and diagonal kernels of 2R2W, 4R4W, 4R1W [untuned]. */
#define SKSS_CUDA_SAT_HMM_SCAN_THREADS 64
/* Threads a block of 2R1W's and 1R1W's tile kernels, a 32 x 32 tile each [untuned]. */
#define SKSS_CUDA_SAT_HMM_TILE_THREADS 128
/* (1+r)R1W's r per side sqrt(H * W), X(side, r), interpolated, clamped at the ends [SAT: r]. */
#define SKSS_CUDA_SAT_HMM_R_TABLE(X) \
  X(1024, 0.99)                      \
  X(18432, 0.99)

/* ---- SAT: task-array family (sat/sat_taskarray.cu) ---- */
/* Threads a block of SKSS: two warps, each with its own ticket [untuned]. */
#define SKSS_CUDA_SAT_SKSS_THREADS 64
/* Threads a block of Parallel-Fair, as SKSS's for a fair comparison [untuned]. */
#define SKSS_CUDA_SAT_PF_THREADS 64

/* ---- SAT: register-cache family (sat/sat_regcache.cu) ---- */
/* Warps a BRLT block for 4-byte sums: 8 transpose buffers of 32 x 33 fit 48 KB [untuned]. */
#define SKSS_SAT_RC_BRLT_WARPS_4B 8
/* Warps a BRLT block for 8-byte sums [untuned]. */
#define SKSS_SAT_RC_BRLT_WARPS_8B 4
/* Warps a ScanColumn block for 4-byte sums [untuned]. */
#define SKSS_SAT_RC_COLUMN_WARPS_4B 16
/* Warps a ScanColumn block for 8-byte sums, which spill at 16 [untuned]. */
#define SKSS_SAT_RC_COLUMN_WARPS_8B 8
/* Warps (rows in flight) a ScanRow block [untuned]. */
#define SKSS_SAT_RC_ROW_WARPS 8

/* ---- SAT: one pass, ours (sat/sat_onepass.cu) ---- */
/* Warps a tile of the short and tall shapes [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_WARPS 4
/* Rows a warp of the short shape: 32 x 128 tiles, 12 an SM [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP 8
/* Rows a warp of the tall shape: 64 x 128 tiles where they fill the GPU [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP_TALL 16
/* Rows a warp of the tall shape for inputs narrower than the sums [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP_TALL_NARROW 15
/* Columns a lane: 16-byte accesses of 4-byte elements, 128 columns a tile [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_VEC 4
/* Warps of a big tile of 4-byte sums (96 x 128, 4 an SM) [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_BIG_WARPS 8
/* Rows a warp of a big tile [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_BIG_ROWS_PER_WARP 12
/* Warps of a huge tile of 4-byte sums (192 x 128, 2 an SM) [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_HUGE_WARPS 16
/* Rows a warp of a huge tile [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_HUGE_ROWS_PER_WARP 12
/* Times huge tiles must fill the GPU to replace big ones [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_HUGE_FILLS 6
/* Warps of a raw tile (1-byte inputs kept as bytes, 4-byte sums) [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_RAW_WARPS 8
/* Bytes a lane of a raw tile: 256 columns [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_RAW_VEC 8
/* Rows a warp of a raw tile where such tiles fill the GPU once: 64 x 256 [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP 8
/* Rows a warp of a raw tile where they fill it twice: 96 x 256 [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP_TALL 12
/* Raw-tile blocks an SM (64 registers a thread; five blocks spill) [SAT: tile shapes]. */
#define SKSS_CUDA_SAT_ONEPASS_RAW_BLOCKS 4
/* Blocks an SM of the 4-warp shapes (short, tall) in the kernels that
 * restage misaligned rows (the padded layout's) into aligned words: 80
 * registers a thread (at 12 blocks, 40, the short one spilled, and at 7,
 * 72, the tall one for 1-byte inputs); the short shape runs where all its
 * tiles are resident anyway. Wider shapes keep their blocks (raw tiles
 * spill a few bytes, as their aligned kernels do) [predicted]. */
#ifndef SKSS_CUDA_SAT_ONEPASS_SHIFTED_BLOCKS_4W /* (SKSS_CUDA_SAT_DEFS overrides it, for sweeps) */
#define SKSS_CUDA_SAT_ONEPASS_SHIFTED_BLOCKS_4W 6
#endif
/* Blocks an SM of the short shape computing both tables (plain and squared)
 * in one launch: 64 registers a thread, twice the code spilled at 40 [predicted]. */
#ifndef SKSS_CUDA_SAT_ONEPASS_BOTH_BLOCKS /* (SKSS_CUDA_SAT_DEFS overrides it, for sweeps) */
#define SKSS_CUDA_SAT_ONEPASS_BOTH_BLOCKS 8
#endif
/* Blocks an SM of raw and big tiles computing both tables: 85 registers a
 * thread (64 spilled 8-24 bytes) [predicted]. */
#ifndef SKSS_CUDA_SAT_ONEPASS_BOTH_BIG_BLOCKS /* (SKSS_CUDA_SAT_DEFS overrides it, for sweeps) */
#define SKSS_CUDA_SAT_ONEPASS_BOTH_BIG_BLOCKS 3
#endif
/* Shared memory of an sm_90 SM, which bounds the tiles an SM holds (the CUDA guide's figure, not tuned). */
#define SKSS_CUDA_SAT_ONEPASS_SMEM_PER_SM (228 * 1024)
/* Shared memory an SM reserves for each block (the CUDA guide's figure, not tuned). */
#define SKSS_CUDA_SAT_ONEPASS_SMEM_RESERVED 1024
/* Predecessors a thread loads at once in a look-back [SAT: look-back loads]. */
#ifndef SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS /* (a -D overrides it, for sweeps) */
#define SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS 4
#endif
/* The same for big and huge tiles, not raw ones [SAT: look-back loads]. */
#define SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS_BIG 2

/* ---- SAT: what AUTO runs on the CUDA backend (sat/sat_dispatch.cu) ---- */
/* AUTO per type pair (the kernels' pair: u8 -> i32 runs u8_u32, i32 -> i32
 * i32_u32), layout (0 inclusive, 1 padded) and size: X(pair, padded, side,
 * algorithm), the first row whose side bounds the larger side (0: any),
 * bands around the sat-matrix suite's 1K, 4K and 16K. Onepass was the
 * fastest CUDA algorithm in all 216 cells of suite sat-matrix (H200,
 * 2026-11-27: every pair x layout x plain/squared x pitch at 1K, 4K, 16K;
 * bench/results/gpu-sat-matrix-2026-11-27-h200) [SAT: AUTO]. */
#define SKSS_CUDA_SAT_AUTO_TABLE(X) \
  X(u8_u32, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_u32, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_u32, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_u32, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_u32, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_u32, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f32, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f32, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f32, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f32, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f32, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f32, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f64, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f64, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f64, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f64, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f64, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u8_f64, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(i32_u32, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(i32_u32, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(i32_u32, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(i32_u32, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(i32_u32, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(i32_u32, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u32_u32, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u32_u32, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u32_u32, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u32_u32, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u32_u32, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(u32_u32, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f32, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f32, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f32, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f32, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f32, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f32, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f64, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f64, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f64, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f64, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f64, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f32_f64, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f64_f64, 0, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f64_f64, 0, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f64_f64, 0, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f64_f64, 1, 2048, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f64_f64, 1, 8192, SKSS_SAT_ALGORITHM_ONEPASS) /* [measured] */ \
  X(f64_f64, 1, 0, SKSS_SAT_ALGORITHM_ONEPASS) /* [predicted] */
/* A pair and layout missing from the table (none now) [SAT: AUTO]. */
#define SKSS_CUDA_SAT_AUTO_DEFAULT SKSS_SAT_ALGORITHM_ONEPASS

/* ---- Halftone: the error-diffusion paper's GPU variants
 * (halftone/halftone_pram.cu, halftone_parallelogram.cu) ---- */
/* Threads (image rows of one step) a block of the k-delay kernels [untuned]. */
#define SKSS_CUDA_HT_PRAM_THREADS 128
/* Side of the byte tiles the data permutation transposes through shared memory [untuned]. */
#define SKSS_CUDA_HT_PERM_TILE 32
/* Thread rows of a transpose block, each thread 4 rows of a tile [untuned]. */
#define SKSS_CUDA_HT_PERM_TILE_ROWS 8
/* Threads a block of the row-shift kernels [untuned]. */
#define SKSS_CUDA_HT_PERM_SHIFT_THREADS 256

/* ---- Halftone: SKSS (halftone/halftone_skss.cu; Funasaka, Nakano, Ito, §V.C) ---- */
/* Warps a block, each taking its own 32-row strips by ticket [untuned]. */
#define SKSS_CUDA_HT_SKSS_WARPS 4

/* ---- Halftone: ours (halftone/halftone_strips.cu, halftone_wavefront.cuh) ---- */
/* Compute warps a strip (each with an I/O warp) for batches and wide images [HT: warps]. */
#ifndef SKSS_CUDA_HT_STRIPS_WARPS /* (a -D overrides it, for sweeps) */
#define SKSS_CUDA_HT_STRIPS_WARPS 4
#endif
/* Compute warps a strip for one image whose strips all run at once [HT: warps]. */
#ifndef SKSS_CUDA_HT_STRIPS_WARPS_NARROW
#define SKSS_CUDA_HT_STRIPS_WARPS_NARROW 2
#endif
/* Columns each row lags the row above beyond the kernel's slope [HT: slack]. */
#ifndef SKSS_CUDA_HT_STRIPS_SLACK
#define SKSS_CUDA_HT_STRIPS_SLACK 0
#endif
/* Columns each warp lags the warp above: the 8 steps between block barriers [HT: warp lag]. */
#define SKSS_CUDA_HT_STRIPS_WARP_LAG 8

/* ---- Box filter (boxfilter.cu) ---- */
/* Columns of a block, a thread a pixel: a warp's 4 SAT reads are runs of a row [untuned]. */
#define SKSS_CUDA_BOX_COLS 32
/* Rows of a block [untuned]. */
#define SKSS_CUDA_BOX_ROWS 8

/* ---- knapsack (knapsack/) ---- */
/* Threads a block of the papers' kernels: Parallel-Forward, Parallel-Fair, SKSS [untuned]. */
#define SKSS_CUDA_KNAP_PAPERS_THREADS 128
/* strips: item slots of a block's ring to the strip above, a power of two: the
 * strip's lead on its reader; 32 is 5x the round trip at 1 us an item [untuned]. */
#define SKSS_CUDA_KNAP_STRIPS_RING 32
/* strips: 512 compute threads (8 or 20 cells each) instead of 256 for 4-byte
 * strips of 4096 and 10240 cells that write decision bits: twice the warps
 * hide the ballots' latencies. H200, Table I 512K: with the items 4.58 against
 * 4.82 ms; value only 3.38 against 3.27 ms, so not there [measured]. */
#define SKSS_CUDA_KNAP_STRIPS_WIDE_WITH_BITS 1


/* ---- stream compaction (compact/) ---- */
/* onepass block shapes, per element width. Each block stages its tile's
 * kept elements in shared memory (values: 16 bytes a vector; positions: 2
 * bytes an element) and holds its payload in registers until then, so the
 * shape sets the bytes in flight an SM (threads x vectors x 16 x blocks),
 * the tile a look-back amortises, and the shared memory a block. Every
 * macro may be overridden for a sweep, for this file alone, through the
 * CMake cache variable SKSS_CUDA_COMPACT_DEFS (docs/performance.md,
 * "Prediction for the restructured onepass"); threads a multiple of 32 up
 * to 1024, a tile at most 65536 elements. */
/* onepass shapes, threads x 16-byte vectors a thread x blocks an SM. A look-back settles about
 * 32 tiles an L2 round trip whatever the grid (docs/performance.md, "tile rate"), so at 2^28 a
 * tile must carry about 64 KB: f32 512 x 8 x 2 (16K elements; 4096-element tiles took 1.03 ms at
 * 2^28 0% kept, these 0.47 against CUB's 0.50), i64 256 x 16 x 2 (8K; 512 x 8 x 2 lost at 2^28,
 * 0.64-0.93x CUB against 0.74-1.04x), u8 512 x 2 x 4 (16K: 64K tiles are 16 at 2^20 and fall
 * to 0.74x CUB there; 16K is 1.25-2.07x CUB at 2^20-2^28). H200, 2026-11-28 [measured];
 * u16 512 x 4 x 2 (16K: 32K would need 128 KB of shared memory a block with the positions,
 * too much for 2 an SM) [untuned]. */
#ifndef SKSS_CUDA_COMPACT_ONEPASS_THREADS_1B
#define SKSS_CUDA_COMPACT_ONEPASS_THREADS_1B 512
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_THREADS_2B
#define SKSS_CUDA_COMPACT_ONEPASS_THREADS_2B 512
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_THREADS_4B
#define SKSS_CUDA_COMPACT_ONEPASS_THREADS_4B 512
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_THREADS_8B
#define SKSS_CUDA_COMPACT_ONEPASS_THREADS_8B 256
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_VECTORS_1B
#define SKSS_CUDA_COMPACT_ONEPASS_VECTORS_1B 2
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_VECTORS_2B
#define SKSS_CUDA_COMPACT_ONEPASS_VECTORS_2B 4
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_VECTORS_4B
#define SKSS_CUDA_COMPACT_ONEPASS_VECTORS_4B 8
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_VECTORS_8B
#define SKSS_CUDA_COMPACT_ONEPASS_VECTORS_8B 16
#endif
/* onepass: blocks an SM that __launch_bounds__ caps the registers for (and the persistent grid
 * counts): 2 blocks of 512 threads leave 64 registers a thread (8 vectors spill 4-12 bytes),
 * 2 of 256 leave 128; u8's 4 of 512 leave 32 for its 2 vectors; a tile's shared memory (64 KB of
 * values + 2 bytes an element of positions) lets 2 blocks fit [measured with the shapes above]. */
#ifndef SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_1B
#define SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_1B 4
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_2B
#define SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_2B 2
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_4B
#define SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_4B 2
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_8B
#define SKSS_CUDA_COMPACT_ONEPASS_BLOCKS_8B 2
#endif
/* onepass: 1: as many blocks as the SMs hold (SMs x BLOCKS), each looping over tiles by ticket
 * and taking the next one as a tile starts, so that the atomic's latency hides behind the tile's
 * loads; 0: one block a tile, as before (a block then mostly does one) [untuned]. */
#ifndef SKSS_CUDA_COMPACT_ONEPASS_PERSISTENT
#define SKSS_CUDA_COMPACT_ONEPASS_PERSISTENT 1
#endif
/* onepass, for tests only (through SKSS_CUDA_COMPACT_DEFS): 0 makes the look-back ignore the
 * groups' inclusive prefixes (GROUP_WORDS) or their counters (GROUP_COUNTS), so that a test runs
 * each way a group can be counted, which timing otherwise picks (not both 0). */
#ifndef SKSS_CUDA_COMPACT_ONEPASS_GROUP_WORDS
#define SKSS_CUDA_COMPACT_ONEPASS_GROUP_WORDS 1
#endif
#ifndef SKSS_CUDA_COMPACT_ONEPASS_GROUP_COUNTS
#define SKSS_CUDA_COMPACT_ONEPASS_GROUP_COUNTS 1
#endif
/* onepass: first and longest __nanosleep of a look-back waiting on a predecessor, ns [untuned]. */
#define SKSS_CUDA_COMPACT_SPIN_NS_MIN 32
#define SKSS_CUDA_COMPACT_SPIN_NS_MAX 512
/* flag-scan-scatter: elements a thread, as two groups of four (the paper's Solution 3, not tuned). */
#define SKSS_CUDA_COMPACT_PAPER_ITEMS 8
/* flag-scan-scatter: blocks a copy-back kernel launches per SM (in place) [untuned]. */
#define SKSS_CUDA_COMPACT_COPY_BLOCKS_PER_SM 8

/* ---- pairwise alignment (align/) ---- */
/* Rows a lane keeps in registers (a warp's band is 32 times as many): more
 * rows spread the four shuffles of a column step over more cells. On the
 * H200 with blocks of 4 warps, 24 rows (167 registers, 12 warps an SM) ran
 * the 1 Mbp score pass in 904 ms against 964 at 16, and 300 kbp in 137 ms
 * against 119. With one block an SM, 24 rows need SKSS_CUDA_ALIGN_WARPS 12
 * (at 16 the 128-register cap spills): not measured yet [partly measured]. */
#ifndef SKSS_CUDA_ALIGN_ROWS
#define SKSS_CUDA_ALIGN_ROWS 16
#endif
/* ... and for passes too short to fill the GPU at SKSS_CUDA_ALIGN_ROWS: a
 * pass's time is its columns times one band's step while its bands are few,
 * and a step of 4 rows is about half as long (72 instructions, not 156)
 * with 4x the bands [untuned]. */
#ifndef SKSS_CUDA_ALIGN_ROWS_SHORT
#define SKSS_CUDA_ALIGN_ROWS_SHORT 4
#endif
/* A pass takes SKSS_CUDA_ALIGN_ROWS_SHORT when its bands at
 * SKSS_CUDA_ALIGN_ROWS would be fewer than this many an SM; 0: never. On the
 * H200 (chain probe, 32-column chunks) 4 rows ran 30 kbp in 8.5 ms against
 * 10.4 at 16 and 10 kbp in 2.9 against 3.5; at 100 kbp (1.5 bands an SM at
 * 16 rows) they were level (34.2 against 34.6), and with the old launch 4
 * rows below 4 bands an SM lost 20% there (docs/performance.md) [measured]. */
#ifndef SKSS_CUDA_ALIGN_SHORT_BELOW
#define SKSS_CUDA_ALIGN_SHORT_BELOW 1
#endif
/* Columns of a band's last row per progress count (a multiple of 32): the
 * lag of a band behind the one above it is about this plus 64 steps. On the
 * H200 (chain probe, two rounds, group tickets on) 32 ran the 1 Mbp score
 * pass in 580 ms against 598 at 64, level at 100 and 300 kbp; without group
 * tickets 32 lost 2-14% at 300 kbp (docs/performance.md) [measured]. */
#ifndef SKSS_CUDA_ALIGN_CHUNK
#define SKSS_CUDA_ALIGN_CHUNK 32
#endif
/* Most warps a block (each takes its own bands by ticket): a pass launches
 * one block an SM with as many warps as its share of the bands, up to this
 * (align_cuda.cuh, skss__cuda_align_shape). At 16 warps of 122-128
 * registers the block is alone on its SM. On the H200 blocks of 4 warps,
 * three or four an SM, ran the 1 Mbp score pass in 964 ms, blocks of 16, one
 * an SM, in 674 ms (docs/performance.md) [measured]. */
#ifndef SKSS_CUDA_ALIGN_WARPS
#define SKSS_CUDA_ALIGN_WARPS 16
#endif
/* 1: a block takes its warps' bands together, consecutive (warp w the w-th),
 * so that a band's neighbours share its SM; 0: each warp takes its own
 * ticket, and consecutive bands land on different SMs. On the H200 (chain
 * probe, two rounds) 1 ran the 1 Mbp score pass in 598 ms against 610-678,
 * level at 100 and 300 kbp [measured]. */
#ifndef SKSS_CUDA_ALIGN_GROUP_TICKETS
#define SKSS_CUDA_ALIGN_GROUP_TICKETS 1
#endif
/* Cells above which a traceback piece is split by GPU passes rather than
 * solved by Myers-Miller on one host thread: lower it and the host pieces
 * shrink, at the price of one more level of (band-starved) passes; the CPU
 * backends keep their own 2^24 in cpu/align_trace.c [untuned]. */
#ifndef SKSS_CUDA_ALIGN_BIG_CELLS
#define SKSS_CUDA_ALIGN_BIG_CELLS (1 << 24)
#endif
/* Bytes of direction bits (half a byte a cell) up to which the cuda
 * traceback solves a segment whole: one pass that keeps the bits, and the
 * walk back on one warp, instead of splitting it by passes (at most half the
 * device's free memory). 2 GiB: a 65 kbp square. On the H200 a 1 Mbp pair
 * took 2.82 / 2.89 / 2.83 s with 1 / 2 / 4 GiB, a 100 kbp pair 174 / 155 /
 * 155 ms (docs/performance.md) [measured]. */
#ifndef SKSS_CUDA_ALIGN_BITS_BYTES
#define SKSS_CUDA_ALIGN_BITS_BYTES ((size_t)2 << 30)
#endif
/* Cells from which a segment solved whole goes to the GPU rather than to
 * Myers-Miller on a host thread (when its bits fit) [predicted]. */
#ifndef SKSS_CUDA_ALIGN_BITS_MIN_CELLS
#define SKSS_CUDA_ALIGN_BITS_MIN_CELLS (1 << 20)
#endif
/* Lanes (a stream, device memory and page-locked staging each) a context
 * keeps for the traceback: the big segments of one level are split at once,
 * one host thread and one lane a segment, at most this many at a time
 * (and at most the context's threads); a narrow segment's passes fill only
 * a few SMs (docs/performance.md, "Where the 30 kbp alignment's 98 ms go")
 * [untuned]. */
#ifndef SKSS_CUDA_ALIGN_LANES
#define SKSS_CUDA_ALIGN_LANES 16
#endif

#endif
