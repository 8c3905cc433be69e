/*
 * bench.h — the engine behind `skss bench`: benchmark cases per primitive,
 * seeded inputs, timing with medians, the host and device copy-bandwidth
 * probes, the Python peers (bench/peers/cpu_peers.py, gpu_peers.py), the
 * in-process GPU peers (CUB, NPP) and the JSON report (through cJSON).
 *
 * A run is: probe the copy bandwidth; for every case (primitive x variant x
 * size) make the inputs, compute the CPU_REF reference once, then for every
 * backend and every algorithm it implements: poison the outputs, run once,
 * compare with the reference, warm up, and time. The peers then time the
 * same cases (same sizes, same seed, the same input generator in NumPy) in
 * a subprocess, and the report relates every row to the reference
 * algorithm, the best peer and the copy bandwidth. The CLI front end
 * (tools/skss/cmd_bench.c) only parses arguments and prints.
 *
 * When the cuda backend runs (a GPU run), primitives with device operations
 * (SAT) keep their inputs, outputs and reference on the device: cuda rows
 * call the library on device pointers, are checked against the device copy
 * of the reference and timed with CUDA events (bench_cuda.cu), the cases are
 * the GPU suites' (bench_sat.c), and the peers are gpu_peers.py's plus CUB
 * and NPP in process.
 */
#ifndef SKSS_BENCH_H
#define SKSS_BENCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "skss.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BENCH_ERRLEN 256
#define BENCH_MAX_SIZES 16
#define BENCH_MAX_VERSIONS 8
#define BENCH_MAX_TARGETS 32

/* ---- configuration -------------------------------------------------------- */

enum {
  BENCH_SUITE_SAT = 1u << SKSS_OP_SAT,
  BENCH_SUITE_HALFTONE = 1u << SKSS_OP_HALFTONE,
  BENCH_SUITE_KNAPSACK = 1u << SKSS_OP_KNAPSACK,
  BENCH_SUITE_COMPACT = 1u << SKSS_OP_COMPACT,
  BENCH_SUITE_ALL = BENCH_SUITE_SAT | BENCH_SUITE_HALFTONE | BENCH_SUITE_KNAPSACK | BENCH_SUITE_COMPACT,
  /* The SAT papers' tables on the GPU (not part of "all": name it). */
  BENCH_SUITE_SAT_PAPERS = 1u << (SKSS_OP_COMPACT + 1),
  /* The halftone papers' tables on the GPU (not part of "all": name it). */
  BENCH_SUITE_HALFTONE_PAPERS = 1u << (SKSS_OP_COMPACT + 2),
  /* The knapsack paper's Table I and two more GPU cases, with their host
   * rows (not part of "all": name it). */
  BENCH_SUITE_KNAPSACK_PAPERS = 1u << (SKSS_OP_COMPACT + 3),
  /* The stream-compaction paper's Table 1 and Figure 8 and a selectivity
   * sweep, host rows and whatever cuda algorithms exist (not part of "all":
   * name it). */
  BENCH_SUITE_COMPACT_PAPERS = 1u << (SKSS_OP_COMPACT + 4),
  /* SAT on the GPU for every type pair x layout x plain/squared x packed/
   * 256-byte pitch at 1K, 4K and 16K, each with a copy of its bytes (not
   * part of "all": name it; bench_sat.c) */
  BENCH_SUITE_SAT_MATRIX = 1u << (SKSS_OP_COMPACT + 5),
  /* The task-array scheduler's cost a task on the GPU (skss_cuda.cuh: a
   * forward array of no-op tasks; not part of "all": name it). */
  BENCH_SUITE_TASKARRAY = 1u << (SKSS_OP_COMPACT + 6),
  /* Pairwise alignment, 10 kbp to 10 Mbp (not part of "all": name it). */
  BENCH_SUITE_ALIGN = 1u << (SKSS_OP_COMPACT + 7),
  /* One optimum on Pisinger's instance classes: core, dp, mknapsack and
   * OR-Tools (not part of "all": name it; bench_knapsack.c) */
  BENCH_SUITE_KNAPSACK_CLASSES = 1u << (SKSS_OP_COMPACT + 8)
};

/* One --sizes token: "N" (a = N, b = 0) or "AxB". Images read it as width x
 * height (N alone: N x N), knapsack as the capacity, compaction as n. */
typedef struct bench_size {
  int64_t a, b;
} bench_size;

typedef struct bench_config {
  unsigned backends;         /* bit (1 << skss_backend) per backend to run */
  int threads;               /* CPU backend threads, >= 1 */
  unsigned suites;           /* BENCH_SUITE_* bits */
  bench_size sizes[BENCH_MAX_SIZES];
  int n_sizes;               /* 0 = the defaults of each suite */
  int quick;                 /* a small subset with short timings */
  int repeat;                /* timed runs per row; 0 = the automatic rule */
  int peers;                 /* run bench/peers/cpu_peers.py */
  const char *python;        /* interpreter for the peers */
  const char *peers_dir;     /* NULL = $SKSS_PEERS_DIR, then the source tree */
  uint64_t seed;
  const char *table;         /* --table: only cases whose table title contains it; NULL = all */
  FILE *progress;            /* one line per row while running; NULL = quiet */
  int gpu;                   /* set by bench_run: the cuda backend runs on a device */
} bench_config;

void bench_config_defaults(bench_config *cfg);

/* ---- timing ----------------------------------------------------------------- */

/* When to stop timing: after at least min_runs runs and min_time_s seconds,
 * or after fixed_runs runs when that is > 0; never past max_time_s once at
 * least one run is in (a slow row stops early rather than take minutes). */
typedef struct bench_plan {
  double min_time_s, max_time_s;
  int min_runs, max_runs, fixed_runs;
} bench_plan;

typedef struct bench_stats {
  double median_s, min_s, p90_s;
  int runs;
  double cores_used; /* process CPU time / wall time over the timed runs */
} bench_stats;

/* Seconds from CLOCK_MONOTONIC. */
double bench_now(void);
/* The plan the config asks for (--quick, --repeat). */
bench_plan bench_plan_for(const bench_config *cfg);
/* One timed call; returns 0 on success (its failure stops the timing). */
typedef int (*bench_body)(void *arg);
/* The plan of GPU rows (timed with CUDA events): at least 10 runs and 0.1 s,
 * stop at 2 s, at most 1000 runs (--quick: 3 runs, 0.01 s, stop at 0.5 s). */
bench_plan bench_gpu_plan_for(const bench_config *cfg);
/* Whether a plan is met after `runs` runs and `elapsed` wall seconds. */
int bench_plan_done(const bench_plan *plan, int runs, double elapsed);
/* Runs `body` under the plan (no warm-up: the caller does it); returns the
 * body's first non-zero result, or 0 with *out filled. The process's CPU time
 * over the runs says how many cores the body kept busy (worker threads that
 * spin count; other processes on a shared machine do not). */
int bench_measure(bench_body body, void *arg, const bench_plan *plan, bench_stats *out);
/* Median, minimum and 90th percentile (nearest rank) of n > 0 samples;
 * sorts `samples` in place. */
bench_stats bench_summarize(double *samples, int n);

/* Host copy bandwidth: memcpy of `bytes` (much larger than the L3) split over
 * `threads` threads, median of `reps` runs, counted as bytes read + written.
 * Returns GB/s (1e9 bytes), or 0 when the buffers cannot be allocated. */
double bench_copy_bandwidth(size_t bytes, int threads, int reps);

/* ---- seeded inputs (mirrored exactly by bench/peers/cpu_peers.py) ----------- */

/* splitmix64 finaliser of seed and index: the k-th random word of a stream. */
uint64_t bench_hash(uint64_t seed, uint64_t k);
/* Gray image: a diagonal gradient plus uniform noise in [-16, 15], clamped. */
void bench_fill_image_u8(uint8_t *px, int64_t height, int64_t width, uint64_t seed);
/* Floats uniform in [0, 1) with 24 random bits each. */
void bench_fill_unit_f32(float *out, int64_t n, uint64_t seed);
/* Doubles uniform in [0, 1) with 53 random bits each. */
void bench_fill_unit_f64(double *out, int64_t n, uint64_t seed);
/* Integers uniform over all of int32. */
void bench_fill_i32(int32_t *out, int64_t n, uint64_t seed);

/* ---- cases ------------------------------------------------------------------ */

typedef struct bench_case {
  skss_op op;
  char spec[96];      /* what the peers read, e.g. "sat:4096x4096:u8:i32:padded" */
  char variant[40];   /* for people, e.g. "u8->i32 padded" */
  char size[48];      /* for people, e.g. "4096x4096" */
  double x;           /* size axis of the plots: pixels, capacity or elements */
  double items;       /* work per run: pixels, DP cells or input elements */
  const char *unit;   /* "px", "cell" or "elem" */
  double signature[2]; /* of the reference result; peers report the same */
  int has_signature;
  /* GPU suites (bench_sat.c). Algorithm sets are bit (1 << id) masks. */
  char table[48];     /* the paper table the case reproduces; "" = none */
  uint32_t algorithms; /* the algorithms timed on this case; 0 = every one */
  uint32_t paper;     /* the table's algorithms from the paper (speedup_paper) */
  int no_peers;       /* the case gets no peers */
  int time_reference; /* time the reference on cpu-ref even when that backend is not run */
  uint32_t reference_extra; /* with time_reference: more cpu-ref algorithms timed so (mask) */
  int r_sweep;        /* also time (1+r)R1W at each r of BENCH_R_SWEEP */
  uint32_t backends;  /* bit (1 << skss_backend) per backend that runs the case;
                         0 = every one asked for */
  int no_script_peers; /* the Python peers skip the case (the in-process ones still run) */
  int single_call;    /* GPU: also time AUTO one call at a time, events around the call */
  int copy_row;       /* GPU: also time a device-to-device copy of the case's bytes */
  uint32_t skipped;   /* backends left out for time: a skipped row each, saying skip_reason */
  char skip_reason[96];
  double ref_s;       /* seconds of the reference's one call in prepare */
  union {
    struct {
      int64_t height, width; skss_dtype in, out; skss_sat_layout layout;
      int squared; /* the squared table too (suite sat-matrix) */
      int pitched; /* rows padded to 256 bytes (suite sat-matrix) */
    } sat;
    struct { int64_t height, width; skss_dither_kernel kernel; int64_t images; } halftone;
    struct {
      int64_t n_items, capacity; int value_only;
      /* suite knapsack-papers (bench_knapsack.c); zero in the knapsack suite */
      int64_t instances;                /* a batch of this many; 0 = one */
      int64_t min_weight, max_weight;   /* uniform weights; max_weight 0: strongly correlated */
      int64_t min_value, max_value;     /* uniform values, drawn with the weights */
      int by_capacity;                  /* ask for values_by_capacity too */
      int reference_on_cpu;             /* the reference from the cpu backend, not cpu-ref */
      int64_t max_bytes;                /* skss_knapsack_desc.max_bytes; 0 = the default */
      /* suite knapsack-classes: Pisinger's class (bench_knapsack.c; 0 = none)
       * with weights in [1, range]; the reference is `core` on cpu-ref */
      int klass;
      int64_t range;
      int reference_core;
    } knapsack;
    struct {
      int64_t n; skss_dtype dtype; int indices;
      /* suite compact-papers (bench_compact.c): keep x > above; zero in the
       * compact suite, which keeps f32 x > 0.5 and i32 x > 0 */
      int papers;
      skss_scalar above;
    } compact;
    struct { int64_t n; int traceback; } align; /* a of n letters, b its mutated copy */
  } p;
} bench_case;

typedef struct bench_cases {
  bench_case *items;
  size_t count, cap;
} bench_cases;

/* Appends a zeroed case of primitive `op`; NULL when out of memory. */
bench_case *bench_cases_add(bench_cases *list, skss_op op);

typedef struct bench_gpu bench_gpu;
struct bench_report;

/* A primitive's cuda rows on device buffers (bench_sat.c, CUDA builds).
 * `upload` makes device copies of the inputs and of the reference and
 * device outputs (once per case); `run` is one asynchronous call on them;
 * `poison` fills the device outputs with 0xA5; `check` waits for the device
 * and compares its outputs with the device reference under the algorithm's
 * bound; `peers` times the in-process GPU peers (CUB, NPP) on the same
 * buffers and appends their rows. The job's `release` frees the buffers. */
typedef struct bench_device_ops {
  int (*upload)(void *job, bench_gpu *gpu, char err[BENCH_ERRLEN]);
  skss_status (*run)(void *job, skss_ctx *ctx, int algorithm);
  int (*poison)(void *job, char err[BENCH_ERRLEN]);
  int (*check)(void *job, int algorithm, char err[BENCH_ERRLEN]);
  void (*peers)(void *job, const bench_config *cfg, struct bench_report *rep, size_t case_index);
} bench_device_ops;

/* What the driver needs from each primitive (bench_<primitive>.c). `prepare`
 * makes the inputs, outputs and the CPU_REF reference (and the case's
 * signature); `run` is the timed call; `poison` fills the outputs with 0xA5;
 * `check` compares the outputs with the reference; `bytes` is the declared
 * traffic of one call (0: no bytes model). */
typedef struct bench_primitive {
  skss_op op;
  const char *name;
  int (*add_cases)(const bench_config *cfg, bench_cases *out);
  void *(*prepare)(bench_case *c, const bench_config *cfg, skss_ctx *ref, char err[BENCH_ERRLEN]);
  skss_status (*run)(void *job, skss_ctx *ctx, int algorithm);
  void (*poison)(void *job);
  int (*check)(const void *job, char err[BENCH_ERRLEN]);
  double (*bytes)(const void *job);
  void (*release)(void *job);
  const bench_device_ops *device; /* NULL: cuda rows run on the host buffers */
} bench_primitive;

extern const bench_primitive bench_sat;
extern const bench_primitive bench_halftone;
extern const bench_primitive bench_knapsack;
extern const bench_primitive bench_compact;
extern const bench_primitive bench_align;

/* The SKSS paper's own Table I times (Titan X), a note of every run of
 * suite knapsack-papers (bench_knapsack.c). */
extern const char bench_knapsack_paper_note[];
extern const char bench_knapsack_claim_note[];
/* The compaction paper's own Table 1 times (its CPU and three GPUs), notes of
 * every run of suite compact-papers (bench_compact.c); NULL-terminated. */
extern const char *const bench_compact_paper_notes[];
/* The largest n of suite compact-papers' selectivity sweep on this machine
 * (memory bound; bench_compact.c). */
int64_t bench_compact_selectivity_max(void);

/* "sat", "halftone", "knapsack" or "compact". */
const char *bench_op_name(skss_op op);
/* The algorithm every other is compared with: the papers' first sequential
 * algorithm of the primitive (2r2w-cpu, ed, dp, loop). */
int bench_reference_algorithm(skss_op op);
/* Turns a failed call's status into "what: status text: context detail" in
 * err; returns 0 for SKSS_OK and -1 otherwise. */
int bench_status_error(skss_ctx *ctx, const char *what, skss_status status, char err[BENCH_ERRLEN]);
/* Writes n as "1e7" when it is a power of ten >= 10^4, else in digits. */
void bench_format_count(char *buf, size_t len, int64_t n);
/* malloc that fills err on failure. */
void *bench_alloc(size_t bytes, char err[BENCH_ERRLEN]);

/* ---- results ---------------------------------------------------------------- */

typedef enum bench_outcome {
  BENCH_ROW_OK = 0,
  BENCH_ROW_FAILED,      /* error or mismatch with the reference */
  BENCH_ROW_UNAVAILABLE, /* a peer that is not installed */
  BENCH_ROW_TIMEOUT      /* a peer stopped at its time limit */
} bench_outcome;

typedef struct bench_row {
  size_t case_index;
  char algorithm[40];    /* ours: the algorithm's name; peers: the peer's */
  int algorithm_id;      /* ours: the skss_<op>_algorithm value */
  double param;          /* (1+r)R1W sweep: r; 0 = the library's own choice */
  int on_gpu;            /* timed on the device (cuda rows, GPU peers) */
  char backend[16];      /* "cpu-ref", "cpu", "cuda" or "peer" */
  int threads;
  int is_peer;
  bench_outcome outcome;
  char message[BENCH_ERRLEN];
  bench_stats t;
  double bytes;          /* per run; 0 = no bytes model */
  double throughput;     /* case items per second */
  double gbps;           /* bytes / median; 0 without a bytes model */
  double pct_copy;       /* gbps / copy bandwidth at the row's threads */
  double speedup_ref;    /* reference median / this median; 0 = none */
  double speedup_peer;   /* best comparable peer median / this median; 0 = none */
  char peer_name[40];    /* which peer speedup_peer is against */
  double speedup_paper;  /* GPU tables: the fastest of the paper's algorithms / this */
  char paper_name[40];   /* which algorithm speedup_paper is against */
  int optimal;           /* knapsack peers: 1 optimal, 0 not, -1 n/a */
  char check[12];        /* peers: "agrees", "differs" or "n/a" */
} bench_row;

typedef struct bench_target {
  char what[160];
  double value;          /* 0 = could not be measured */
  double goal;           /* 0 = no stated goal */
  const char *unit;      /* "x", "G cell/s/core", "% copy", "us" or "ns/task" */
  int at_most;           /* the goal is an upper bound (times) */
} bench_target;

typedef struct bench_report {
  bench_cases cases;
  bench_row *rows;
  size_t n_rows, cap_rows;
  double copy_gbs_1;     /* one thread */
  double copy_gbs_n;     /* cfg->threads threads */
  int copy_threads;
  size_t copy_bytes;
  char cpu_model[128];
  int cores;
  char git_commit[64];
  char date[32];
  char kernel[200];
  int peers_ran;
  char peers_message[BENCH_ERRLEN];
  char python_version[32];
  char versions[BENCH_MAX_VERSIONS][2][48]; /* peer module, version */
  int n_versions;
  bench_target targets[BENCH_MAX_TARGETS];
  int n_targets;
  char notes[16][BENCH_ERRLEN]; /* e.g. a backend that is not available */
  int n_notes;
  double total_s;
  /* GPU runs: the device and its copy bandwidth (cudaMemcpyAsync D2D). */
  char gpu_name[128];
  char gpu_driver[32];
  char cuda_runtime[16];
  int gpu_sms;
  double gpu_memory_gib;
  double copy_gbs_gpu;
  size_t copy_gpu_bytes;
} bench_report;

/* The whole benchmark. Returns 0, or -1 with err set when nothing could run
 * (no requested backend available, out of memory); rows that fail are
 * recorded in the report, not returned. Free the report either way. */
int bench_run(const bench_config *cfg, bench_report *rep, char err[BENCH_ERRLEN]);
void bench_report_free(bench_report *rep);
/* Appends a zeroed row; NULL when out of memory. */
bench_row *bench_report_add_row(bench_report *rep, size_t case_index);
/* Number of our rows (not peers) that failed. */
size_t bench_report_failures(const bench_report *rep);

/* Machine description, git commit and date into the report. */
void bench_describe_machine(bench_report *rep);
/* Runs the peers for every case and appends their rows. Missing Python or
 * peer modules are recorded, never an error. */
void bench_run_peers(const bench_config *cfg, bench_report *rep);
/* Speedups, copy-bandwidth shares and the targets. */
void bench_relate(const bench_config *cfg, bench_report *rep);

/* Runs argv (argv[0] looked up in PATH) and captures its stdout; stderr is
 * inherited or discarded. Returns the exit status (>= 0; 127 when argv[0]
 * cannot be run), or -1 with err set. *out is NUL-terminated; free() it. */
int bench_capture(char *const argv[], int discard_stderr, char **out, size_t *out_len,
                  char err[BENCH_ERRLEN]);

/* ---- JSON ------------------------------------------------------------------- */

/* Writes the report (configuration, machine, rows, targets) to `path`
 * ("-" = stdout) through cJSON. Returns 0 or -1 with err set. */
int bench_write_json(const bench_config *cfg, const bench_report *rep, const char *path,
                     char err[BENCH_ERRLEN]);

/* ---- CUDA (bench_cuda.cu; only in builds with SKSS_BENCH_CUDA) ------------ */

/* (1+r)R1W's r values the HMM table sweeps: the paper tried every r = (m w)^2 / n,
 * i.e. every side m of the 2R1W triangles in blocks; this grid spans (0, 1) the same
 * way (0.25 is the paper's 1.25R1W row; 0.99 leaves 1R1W one block diagonal). */
#define BENCH_R_SWEEP {0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.99}

/* The device of a GPU run (device 0): the stream every CUDA context of the
 * run is created on, and the events that time it. */
int bench_gpu_open(bench_gpu **out, char err[BENCH_ERRLEN]);
void bench_gpu_close(bench_gpu *gpu);
void *bench_gpu_stream(bench_gpu *gpu);
/* GPU name, driver, CUDA runtime, SMs and memory into the report. */
void bench_gpu_describe(bench_gpu *gpu, struct bench_report *rep);
/* cudaMemcpyAsync device to device of `bytes`, median of `reps`, counted as
 * bytes read + written; GB/s, or 0 when the buffers cannot be allocated. */
double bench_gpu_copy_bandwidth(bench_gpu *gpu, size_t bytes, int reps);
/* Times `body` (which enqueues work on the stream) with a pair of CUDA events
 * per run, in batches that a short device-side wait lets the host enqueue
 * ahead, so a sample is the device's time, not the host's launch latency.
 * No warm-up (the caller does it). Returns 0 with *out filled, the body's
 * non-zero result, or -1 with err set for a CUDA error. */
int bench_gpu_measure(bench_gpu *gpu, bench_body body, void *arg, const bench_plan *plan,
                      bench_stats *out, char err[BENCH_ERRLEN]);
void *bench_gpu_alloc(size_t bytes, char err[BENCH_ERRLEN]);
void bench_gpu_free(void *ptr);
/* Host to device copy, waited for. */
int bench_gpu_upload(bench_gpu *gpu, void *dst, const void *src, size_t bytes, char err[BENCH_ERRLEN]);
/* Fills device memory with `byte` on the stream. */
int bench_gpu_fill(bench_gpu *gpu, void *dst, int byte, size_t bytes, char err[BENCH_ERRLEN]);

/* A float bound in units of u |reference|: lin (i + j + 2) + prod (i + 1)
 * (j + 1) + tile (i/32 + 1)(j/32 + 1) at (i, j); integers are compared
 * exactly whatever the bound. */
typedef struct bench_tolerance {
  double lin, prod, tile;
} bench_tolerance;
/* Waits for the stream, then compares a rows x cols device table (packed,
 * of `type`: u32, i32, f32 or f64) with the device reference; 0, or -1 with
 * the first differing element (or the CUDA error) in err. */
int bench_gpu_check(bench_gpu *gpu, skss_dtype type, const void *out, const void *ref, int64_t rows,
                    int64_t cols, const bench_tolerance *tol, char err[BENCH_ERRLEN]);

/* Halftone (bench_cuda_halftone.cu): waits for the stream, then compares a
 * rows x cols device byte image with the device reference; 0, or -1 with
 * the first difference (or the CUDA error) in err. */
int bench_gpu_check_bytes(bench_gpu *gpu, const void *out, const void *ref, int64_t rows, int64_t cols,
                          char err[BENCH_ERRLEN]);
/* Seconds of one dependent pixel step of `kernel` (the chain from the left
 * neighbour's error to the pixel's), measured by one thread walking 2^20 of
 * them; 0 with err set on failure. The latency floor of H x W is
 * (W + slope (H - 1)) such steps. */
double bench_gpu_halftone_step_s(bench_gpu *gpu, skss_dither_kernel kernel, char err[BENCH_ERRLEN]);

/* Times `body` as a user times one call: events around it, then waits for
 * the stop event before the next run (no batch queued ahead, so the host's
 * work in the call is inside the sample). No warm-up. 0, the body's
 * non-zero result, or -1 with err set. */
int bench_gpu_measure_single(bench_gpu *gpu, bench_body body, void *arg, const bench_plan *plan,
                             bench_stats *out, char err[BENCH_ERRLEN]);
/* Times cudaMemcpyAsync device to device of bytes / 2 (bytes read +
 * written), with bench_gpu_measure; 0, or -1 with err set. */
int bench_gpu_copy_time(bench_gpu *gpu, double bytes, const bench_plan *plan, bench_stats *out,
                        char err[BENCH_ERRLEN]);

/* Median seconds of copying `bytes` between pageable host memory and the
 * device (to_device: host -> device, else back) on the bench's stream, as
 * a user's cudaMemcpy of an image would: the error-diffusion paper's
 * transfer rows (its Table V (5)). 0 with err set on failure. */
double bench_gpu_transfer_s(bench_gpu *gpu, void *dev, void *host, size_t bytes, int to_device,
                            char err[BENCH_ERRLEN]);

/* The in-process GPU peers of a SAT case. */
typedef enum bench_gpu_peer {
  BENCH_GPU_PEER_CUB = 0, /* DeviceScan::InclusiveScanByKey per row, then a column pass */
  BENCH_GPU_PEER_NPP_32S, /* nppiIntegral_8u32s_C1R_Ctx (padded) */
  BENCH_GPU_PEER_NPP_32F, /* nppiIntegral_8u32f_C1R_Ctx (padded) */
  BENCH_GPU_PEER_NPP_SQR, /* nppiSqrIntegral_8u32s64f_C1R_Ctx (padded i32 and f64 squares) */
  BENCH_GPU_PEER_COUNT
} bench_gpu_peer;

typedef struct bench_gpu_sat {
  int64_t height, width;
  skss_dtype in, out;
  const void *in_dev; /* packed */
} bench_gpu_sat;

typedef struct bench_gpu_peer_result {
  char name[40];
  bench_stats t;
  double bytes;   /* the peer's own input + output */
  skss_dtype out; /* the type of the peer's table */
  double total;   /* its last element (the signature) */
} bench_gpu_peer_result;

/* Runs a peer once on the case's device input with its own outputs (for the
 * signature), warms up and times it. Returns 0, 1 when the peer does not
 * apply (NPP on a float input or not found at build time, CUB on an
 * unsupported type pair; err says why), or -1 with err set. */
int bench_gpu_sat_peer(bench_gpu *gpu, bench_gpu_peer peer, const bench_gpu_sat *sat,
                       const bench_plan *plan, bench_gpu_peer_result *res, char err[BENCH_ERRLEN]);

/* Compaction (bench_cuda_compact.cu). Waits for the stream, then checks a
 * device output of n elements of `elem` bytes and its device count against
 * the device copy of the reference (ref_count elements): the count, the
 * kept bytes, and 0xA5 past them; 0, or -1 with err set. */
int bench_gpu_compact_check(bench_gpu *gpu, const void *out, const int64_t *count_dev, const void *ref,
                            int64_t ref_count, size_t elem, int64_t n, char err[BENCH_ERRLEN]);

/* The in-process GPU peers of a compaction case (keep x > above). */
enum {
  BENCH_GPU_COMPACT_CUB_IF = 0,  /* cub::DeviceSelect::If */
  BENCH_GPU_COMPACT_CUB_FLAGGED, /* cub::DeviceSelect::Flagged, flags made beforehand */
  BENCH_GPU_COMPACT_THRUST,      /* thrust::copy_if */
  BENCH_GPU_COMPACT_PEERS
};

typedef struct bench_gpu_compact {
  int64_t n;
  skss_dtype dtype;
  int indices;         /* outputs are int64 indices, not values */
  skss_scalar above;
  const void *in_dev;
  const void *ref_dev; /* the reference outputs on the device */
  int64_t ref_count;
} bench_gpu_compact;

/* Runs a peer once (its count and outputs are compared with the reference:
 * res->total is 0 when they agree, -1 when not), warms up and times it.
 * Returns 0, 1 when the peer has no instantiation for the case (err says
 * so), or -1 with err set. */
int bench_gpu_compact_peer(bench_gpu *gpu, int peer, const bench_gpu_compact *c, const bench_plan *plan,
                           bench_gpu_peer_result *res, char err[BENCH_ERRLEN]);

/* Suite taskarray (bench_cuda_taskarray.cu): a rows x cols forward task
 * array of no-op tasks (each only waits for the row above and publishes) on
 * skss_cuda.cuh's scheduler, warp workers in 64-thread blocks, as many as
 * are resident (*blocks), on the bench's stream through ctx (a cuda
 * context). Checked once, warmed up, then timed under the plan. Returns 0
 * with *out filled, or -1 with err set. */
int bench_gpu_taskarray(bench_gpu *gpu, skss_ctx *ctx, int64_t rows, int64_t cols, const bench_plan *plan,
                        bench_stats *out, int *blocks, char err[BENCH_ERRLEN]);

/* skss__cuda_sat_set_hybrid_r() (src/cuda/sat/sat_hooks.h), for the sweep. */
skss_status bench_gpu_set_hybrid_r(skss_ctx *ctx, double r);

#ifdef __cplusplus
}
#endif

#endif
