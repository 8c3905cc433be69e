/*
 * halftone_paper_tuning.h — tuning constants of the error-diffusion paper's
 * GPU variants (halftone_pram.cu, halftone_parallelogram.cu), kept apart
 * from the algorithms so that retuning never edits one; to be merged into
 * cuda/tuning.h.
 */
#ifndef SKSS_CUDA_HALFTONE_PAPER_TUNING_H
#define SKSS_CUDA_HALFTONE_PAPER_TUNING_H

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

#endif
