/*
 * names.c — the name tables (backends, dtypes, algorithms) and which backend
 * implements which algorithm. Adding an algorithm means one row here.
 */
#include <string.h>

#include "internal.h"

typedef struct alg_row {
  int id;
  const char *name;
  unsigned backends; /* bit (1 << skss_backend) per backend that implements it */
} alg_row;

#define B_REF (1u << SKSS_BACKEND_CPU_REF)
#define B_CPU (1u << SKSS_BACKEND_CPU)
#define B_CUDA (1u << SKSS_BACKEND_CUDA)
#define B_ALL (B_REF | B_CPU | B_CUDA)

static const alg_row SAT_ALGS[] = {
    {SKSS_SAT_ALGORITHM_AUTO, "auto", B_ALL},
    {SKSS_SAT_ALGORITHM_2R2W_CPU, "2r2w-cpu", B_REF | B_CPU},
    {SKSS_SAT_ALGORITHM_4R1W_CPU, "4r1w-cpu", B_REF | B_CPU},
    {SKSS_SAT_ALGORITHM_ROWSCAN_CPU, "rowscan-cpu", B_CPU},
    {SKSS_SAT_ALGORITHM_BANDS_CPU, "bands-cpu", B_CPU},
    {SKSS_SAT_ALGORITHM_2R2W, "2r2w", B_CUDA},
    {SKSS_SAT_ALGORITHM_4R4W, "4r4w", B_CUDA},
    {SKSS_SAT_ALGORITHM_4R1W, "4r1w", B_CUDA},
    {SKSS_SAT_ALGORITHM_2R1W, "2r1w", B_CUDA},
    {SKSS_SAT_ALGORITHM_1R1W, "1r1w", B_CUDA},
    {SKSS_SAT_ALGORITHM_1PR_R1W, "1+r-r1w", B_CUDA},
    {SKSS_SAT_ALGORITHM_SKSS, "skss", B_CUDA},
    {SKSS_SAT_ALGORITHM_PARALLEL_FAIR, "parallel-fair", B_CUDA},
    {SKSS_SAT_ALGORITHM_BRLT_SCANROW_KS, "brlt-scanrow-ks", B_CUDA},
    {SKSS_SAT_ALGORITHM_BRLT_SCANROW_LF, "brlt-scanrow-lf", B_CUDA},
    {SKSS_SAT_ALGORITHM_SCANROW_BRLT_KS, "scanrow-brlt-ks", B_CUDA},
    {SKSS_SAT_ALGORITHM_SCANROW_BRLT_LF, "scanrow-brlt-lf", B_CUDA},
    {SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS, "scanrowcolumn-ks", B_CUDA},
    {SKSS_SAT_ALGORITHM_SCANROWCOLUMN_LF, "scanrowcolumn-lf", B_CUDA},
    {SKSS_SAT_ALGORITHM_ONEPASS, "onepass", B_CUDA},
};
static const alg_row HALFTONE_ALGS[] = {
    {SKSS_HALFTONE_ALGORITHM_AUTO, "auto", B_ALL},
    {SKSS_HALFTONE_ALGORITHM_ED, "ed", B_REF | B_CPU},
    {SKSS_HALFTONE_ALGORITHM_EC, "ec", B_REF | B_CPU},
    {SKSS_HALFTONE_ALGORITHM_ED_RC, "ed-rc", B_REF | B_CPU},
    {SKSS_HALFTONE_ALGORITHM_EC_RC, "ec-rc", B_REF | B_CPU},
    {SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU, "taskarray-cpu", B_CPU},
    {SKSS_HALFTONE_ALGORITHM_PED3, "ped3", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC, "ped2-atomic", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH, "ped2-launch", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PEC2, "pec2", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED3_PERM, "ped3-perm", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC_PERM, "ped2-atomic-perm", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH_PERM, "ped2-launch-perm", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PEC2_PERM, "pec2-perm", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED_2D, "2d-ped", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PED_2D_RC, "2d-ped-rc", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PEC_2D, "2d-pec", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_PEC_2D_RC, "2d-pec-rc", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_SKSS, "skss", B_CUDA},
    {SKSS_HALFTONE_ALGORITHM_STRIPS, "strips", B_CUDA},
};
static const alg_row KNAPSACK_ALGS[] = {
    {SKSS_KNAPSACK_ALGORITHM_AUTO, "auto", B_ALL},
    {SKSS_KNAPSACK_ALGORITHM_DP, "dp", B_REF | B_CPU},
    {SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU, "taskarray-cpu", B_CPU},
    {SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD, "parallel-forward", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_2, "parallel-fair-2", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_4, "parallel-fair-4", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_8, "parallel-fair-8", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_16, "parallel-fair-16", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_32, "parallel-fair-32", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_SKSS, "skss", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_STRIPS, "strips", B_CUDA},
    {SKSS_KNAPSACK_ALGORITHM_CORE, "core", B_REF | B_CPU},
};
static const alg_row COMPACT_ALGS[] = {
    {SKSS_COMPACT_ALGORITHM_AUTO, "auto", B_ALL},
    {SKSS_COMPACT_ALGORITHM_LOOP, "loop", B_REF | B_CPU},
    {SKSS_COMPACT_ALGORITHM_SCAN_CPU, "scan-cpu", B_CPU},
    {SKSS_COMPACT_ALGORITHM_FLAG_SCAN_SCATTER, "flag-scan-scatter", B_CUDA},
    {SKSS_COMPACT_ALGORITHM_FLAG_CPUSCAN_SCATTER, "flag-cpuscan-scatter", B_CUDA},
    {SKSS_COMPACT_ALGORITHM_ONEPASS, "onepass", B_CUDA},
};

static const alg_row ALIGN_ALGS[] = {
    {SKSS_ALIGN_ALGORITHM_AUTO, "auto", B_ALL},
    {SKSS_ALIGN_ALGORITHM_GOTOH, "gotoh", B_REF | B_CPU},
    {SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU, "taskarray-cpu", B_CPU},
    {SKSS_ALIGN_ALGORITHM_SKSS, "skss", B_CUDA},
};

/* What AUTO means per backend: the oracle on CPU_REF, the fastest on CPU.
 * The CUDA column is -1 for primitives whose CUDA kernels have not landed. */
typedef struct auto_row {
  int cpu_ref, cpu, cuda;
} auto_row;

static const auto_row AUTOS[] = {
    [SKSS_OP_SAT] = {SKSS_SAT_ALGORITHM_2R2W_CPU, SKSS_SAT_ALGORITHM_BANDS_CPU, SKSS_SAT_ALGORITHM_ONEPASS},
    [SKSS_OP_HALFTONE] = {SKSS_HALFTONE_ALGORITHM_ED, SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU, SKSS_HALFTONE_ALGORITHM_STRIPS},
    [SKSS_OP_KNAPSACK] = {SKSS_KNAPSACK_ALGORITHM_DP, SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU, SKSS_KNAPSACK_ALGORITHM_STRIPS},
    [SKSS_OP_COMPACT] = {SKSS_COMPACT_ALGORITHM_LOOP, SKSS_COMPACT_ALGORITHM_SCAN_CPU, SKSS_COMPACT_ALGORITHM_ONEPASS},
    [SKSS_OP_ALIGN] = {SKSS_ALIGN_ALGORITHM_GOTOH, SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU, SKSS_ALIGN_ALGORITHM_SKSS},
};

static const char *const OP_NAMES[] = {"sat", "halftone", "knapsack", "compact", "align"};

static const alg_row *table(skss_op op, size_t *n) {
#define T(arr) (*n = sizeof(arr) / sizeof(arr[0]), arr)
  switch (op) {
    case SKSS_OP_SAT: return T(SAT_ALGS);
    case SKSS_OP_HALFTONE: return T(HALFTONE_ALGS);
    case SKSS_OP_KNAPSACK: return T(KNAPSACK_ALGS);
    case SKSS_OP_COMPACT: return T(COMPACT_ALGS);
    case SKSS_OP_ALIGN: return T(ALIGN_ALGS);
  }
#undef T
  *n = 0;
  return NULL;
}

static const alg_row *find(skss_op op, int alg) {
  size_t n;
  const alg_row *t = table(op, &n);
  for (size_t k = 0; k < n; k++)
    if (t[k].id == alg) return &t[k];
  return NULL;
}

const char *skss_algorithm_name(skss_op op, int algorithm) {
  const alg_row *r = find(op, algorithm);
  return r ? r->name : NULL;
}

skss_status skss_algorithm_from_name(skss_op op, const char *name, int *out) {
  size_t n;
  const alg_row *t = table(op, &n);
  if (name == NULL || out == NULL) return SKSS_ERR_INVALID_ARG;
  for (size_t k = 0; k < n; k++) {
    if (strcmp(t[k].name, name) == 0) {
      *out = t[k].id;
      return SKSS_OK;
    }
  }
  return SKSS_ERR_INVALID_ARG;
}

/* The algorithm AUTO stands for on `backend`; -1 where it has no kernels. */
static int auto_algorithm(skss_op op, skss_backend backend) {
  const auto_row *a = &AUTOS[op];
  return backend == SKSS_BACKEND_CPU_REF ? a->cpu_ref : backend == SKSS_BACKEND_CPU ? a->cpu : a->cuda;
}

int skss_algorithm_supported(skss_op op, int algorithm, skss_backend backend) {
  const alg_row *r = find(op, algorithm);
  if (r == NULL || (unsigned)backend > SKSS_BACKEND_CUDA) return 0;
  if (backend == SKSS_BACKEND_AUTO) return 1;
  if (algorithm == 0) return auto_algorithm(op, backend) >= 0;
  return (r->backends >> backend) & 1u;
}

skss_backend skss__algorithm_backend(const skss_ctx *ctx, skss_op op, int algorithm) {
  if (ctx == NULL || (unsigned)op > SKSS_OP_ALIGN) return SKSS_BACKEND_AUTO;
  if (skss_algorithm_supported(op, algorithm, ctx->backend)) return ctx->backend;
  /* why: an AUTO context on a GPU runs what CUDA lacks on its CPU threads */
  if (ctx->auto_backend && ctx->backend == SKSS_BACKEND_CUDA &&
      skss_algorithm_supported(op, algorithm, SKSS_BACKEND_CPU))
    return SKSS_BACKEND_CPU;
  return SKSS_BACKEND_AUTO;
}

skss_backend skss_ctx_op_backend(const skss_ctx *ctx, skss_op op) {
  return skss__algorithm_backend(ctx, op, 0);
}

skss_status skss__resolve_algorithm(skss_ctx *ctx, const char *fn, skss_op op, int requested,
                                    int *resolved) {
  const alg_row *r = find(op, requested);
  if (r == NULL)
    return skss__fail(ctx, SKSS_ERR_INVALID_ARG, "%s: unknown %s algorithm %d", fn, OP_NAMES[op],
                      requested);
  skss_backend backend = skss__algorithm_backend(ctx, op, requested);
  if (backend == SKSS_BACKEND_AUTO) {
    const char *name = skss_backend_name(ctx->backend);
    if (requested == 0)
      return skss__fail(ctx, SKSS_ERR_UNSUPPORTED,
                        "%s: the %s backend has no %s kernels yet (a context created with the auto "
                        "backend runs %s on the CPU)",
                        fn, name, OP_NAMES[op], OP_NAMES[op]);
    const char *why = (r->backends & B_CUDA) == 0 ? "a CPU algorithm: use the cpu, cpu-ref or auto backend"
                      : ctx->auto_backend       ? "a CUDA algorithm, and this machine has no CUDA device"
                                                : "a CUDA algorithm: use the cuda or auto backend";
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: the %s backend has no %s algorithm '%s' (%s)",
                      fn, name, OP_NAMES[op], r->name, why);
  }
  *resolved = requested != 0 ? requested : auto_algorithm(op, backend);
  return SKSS_OK;
}

static const char *const BACKEND_NAMES[] = {"auto", "cpu-ref", "cpu", "cuda"};

const char *skss_backend_name(skss_backend backend) {
  return (unsigned)backend <= SKSS_BACKEND_CUDA ? BACKEND_NAMES[backend] : NULL;
}

skss_status skss_backend_from_name(const char *name, skss_backend *out) {
  if (name == NULL || out == NULL) return SKSS_ERR_INVALID_ARG;
  for (int b = 0; b <= SKSS_BACKEND_CUDA; b++) {
    if (strcmp(name, BACKEND_NAMES[b]) == 0) {
      *out = (skss_backend)b;
      return SKSS_OK;
    }
  }
  return SKSS_ERR_INVALID_ARG;
}

static const struct {
  const char *name;
  size_t bytes;
} DTYPES[] = {
    [SKSS_DTYPE_U8] = {"u8", 1},   [SKSS_DTYPE_I8] = {"i8", 1},   [SKSS_DTYPE_U16] = {"u16", 2},
    [SKSS_DTYPE_I16] = {"i16", 2}, [SKSS_DTYPE_U32] = {"u32", 4}, [SKSS_DTYPE_I32] = {"i32", 4},
    [SKSS_DTYPE_U64] = {"u64", 8}, [SKSS_DTYPE_I64] = {"i64", 8}, [SKSS_DTYPE_F32] = {"f32", 4},
    [SKSS_DTYPE_F64] = {"f64", 8},
};

size_t skss_dtype_size(skss_dtype dtype) {
  return dtype >= SKSS_DTYPE_U8 && dtype <= SKSS_DTYPE_F64 ? DTYPES[dtype].bytes : 0;
}

const char *skss_dtype_name(skss_dtype dtype) {
  return dtype >= SKSS_DTYPE_U8 && dtype <= SKSS_DTYPE_F64 ? DTYPES[dtype].name : NULL;
}

skss_status skss_dtype_from_name(const char *name, skss_dtype *out) {
  if (name == NULL || out == NULL) return SKSS_ERR_INVALID_ARG;
  for (int t = SKSS_DTYPE_U8; t <= SKSS_DTYPE_F64; t++) {
    if (strcmp(name, DTYPES[t].name) == 0) {
      *out = (skss_dtype)t;
      return SKSS_OK;
    }
  }
  return SKSS_ERR_INVALID_ARG;
}
