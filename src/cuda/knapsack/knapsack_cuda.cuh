/*
 * knapsack_cuda.cuh — what the CUDA knapsack sources share: the device view
 * of a call's instances (DP items already reduced on the host by
 * core/knapsack_api.c), the two families' entry points, and the kernels the
 * dispatcher (knapsack_dispatch.cu) runs after either: the walk back and the
 * table of optima. Families: the task-array paper's three, keeping the whole
 * value table (knapsack_papers.cu), and ours, strips on chip
 * (knapsack_strips.cu). Derivations: docs/algorithms/knapsack.md.
 */
#ifndef SKSS_CUDA_KNAPSACK_CUH
#define SKSS_CUDA_KNAPSACK_CUH

#include <stdint.h>

#include "../common.cuh"

/* One instance on the device: items [first, first + items) of the call's
 * lists, capacities 0..cap; its decision bits start at bits_off (32-bit
 * words; rows of row_words words, bit c of row j = V[c][j+1] != V[c][j]) and
 * its output row at row_off (cells). */
typedef struct skss__knap_dev_inst {
  int items, cap;
  long long first;
  long long bits_off, row_words;
  long long row_off;
} skss__knap_dev_inst;

/* The lists of a call: weights (int32, each <= its cap) and values on the
 * device, and the same items on the host (for the families that launch a
 * kernel an item). */
typedef struct skss__knap_dev_items {
  const int *w;
  const long long *v;
  const int64_t *host_w, *host_v;
} skss__knap_dev_items;

/* Cells a value row of capacities 0..cap takes, padded to 4 (16 bytes of
 * int32) so rows stay aligned for 16-byte copies. */
__host__ __device__ inline long long skss__knap_row_cells(long long cap) { return (cap + 1 + 3) / 4 * 4; }
/* 32-bit words of decision bits a row takes: the CPU layout, 64-bit words. */
__host__ __device__ inline long long skss__knap_row_words(long long cap) { return (cap / 64 + 1) * 2; }

/* ---- the papers' family (knapsack_papers.cu): whole table V ---- */
/* Fills table V ((items + 1) rows of skss__knap_row_cells(cap) cells) of
 * instance `in` by `algorithm` (PARALLEL_FORWARD, PARALLEL_FAIR_k, SKSS);
 * `scratch` holds the SKSS task array (skss__knap_papers_scratch bytes). */
size_t skss__knap_papers_scratch(int algorithm, long long cap);
skss_status skss__knap_papers_run(skss_ctx *ctx, int algorithm, int wide, const skss__knap_dev_inst *in,
                                  skss__knap_dev_items items, void *table, void *scratch);
/* The walk back over table V on the device: chosen[j] for j < items. */
skss_status skss__knap_papers_walk(skss_ctx *ctx, int wide, const skss__knap_dev_inst *in,
                                   skss__knap_dev_items items, const void *table, uint8_t *chosen);

/* ---- ours (knapsack_strips.cu) ---- */
/* One run of the strips kernel over items [lo, hi) of one instance (or of
 * each instance of a batch whose rows fit one strip): from `init` (NULL:
 * zeros) to the output row `out` (NULL: none), with decision bits from item
 * lo on (NULL: none), a checkpoint row copied to ckpt + k * row cells after
 * every `save_every` items (0: none), best value into best[instance]. */
typedef struct skss__knap_strips_job {
  int wide;
  const skss__knap_dev_inst *inst; /* device array */
  const skss__knap_dev_inst *host_inst; /* the same, on the host */
  int instances;
  skss__knap_dev_items items;
  int lo, hi;                /* item range (single instance); batch: all */
  const void *init;
  void *out;
  uint32_t *bits;
  void *ckpt;
  int save_every;
  long long *best;
} skss__knap_strips_job;

/* The plan of a strips run: strip width, blocks, and the scratch it takes. */
typedef struct skss__knap_strips_plan {
  int strip;        /* S cells a strip */
  int strips;       /* m strips an instance */
  int blocks;       /* P co-resident blocks (m when one band) */
  int threads;      /* compute threads a block */
  int halo;         /* Hmax */
  bool onchip;      /* false: heavier items than a strip takes (rows in device memory) */
  size_t scratch;   /* bytes */
} skss__knap_strips_plan;

skss_status skss__knap_strips_plan_for(skss_ctx *ctx, int wide, int bits, int max_weight, long long cap,
                                       long long items, int instances, skss__knap_strips_plan *plan);
skss_status skss__knap_strips_run(skss_ctx *ctx, const skss__knap_strips_job *job,
                                  const skss__knap_strips_plan *plan, void *scratch);

#endif
