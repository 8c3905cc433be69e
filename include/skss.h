/*
 * skss.h — the public C API of skss, fast primitives built on task arrays.
 *
 * This header is the manual. It is plain C11 (usable from C++), needs no CUDA
 * headers, and is the same for every build: `skss_backend_available()` tells
 * at run time which backends this build has.
 *
 * General contract (holds for every function unless its comment says more):
 *  - Every call returns an skss_status. SKSS_OK (0) is success. On failure
 *    `skss_ctx_last_error(ctx)` holds one line of detail that starts with the
 *    function's name, e.g. "skss_sat(): height * pitch overflows int64".
 *    Outputs are left untouched by argument errors detected before any work.
 *  - The library never prints, exits or aborts. Its only state outside a
 *    context is the reason for the calling thread's last failed
 *    skss_ctx_create() (thread-local), where a context's worker thread puts
 *    an error message until the calling thread reports it (thread-local),
 *    and the CPU's instruction sets, detected once per process.
 *  - A context is used by one host thread at a time; distinct contexts are
 *    independent and may be used from different threads at once.
 *  - Sizes are int64_t and checked: negative sizes, and sizes whose byte count
 *    overflows, give SKSS_ERR_INVALID_ARG or SKSS_ERR_OVERFLOW. Zero-sized
 *    inputs succeed (and still write counts and values they promise).
 *  - Pitches are in bytes; 0 means "tightly packed" (width * element size).
 *  - Memory is the caller's: the library never frees what it did not allocate.
 *    Scratch memory comes from a grow-only arena owned by the context (through
 *    the allocator hooks when given) and is released by skss_ctx_destroy().
 *  - Every primitive takes an algorithm enum whose first value, ..._AUTO,
 *    picks the fastest known algorithm for the backend that runs the call;
 *    the other values name the papers' algorithms and our own, so their
 *    tables can be reproduced. A context created with SKSS_BACKEND_AUTO runs
 *    each primitive (and each algorithm) on the fastest of its backends that
 *    has it: CUDA where it does, else the context's CPU threads
 *    (skss_ctx_op_backend() says which). A context created with an explicit
 *    backend never falls back: an algorithm or primitive that backend lacks
 *    returns SKSS_ERR_UNSUPPORTED.
 *  - CUDA backend (when built): pointers may be device or host memory. With
 *    device pointers calls are asynchronous on the context's stream and
 *    skss_ctx_synchronize() reports deferred errors; host pointers are staged
 *    and the call returns when the results are in host memory. A call that
 *    an AUTO context runs on the CPU takes host (or managed) memory only;
 *    device memory there is SKSS_ERR_INVALID_ARG.
 *  - Names: functions are skss_<noun>_<verb>; the value of an enum skss_<x>
 *    is SKSS_<X>_<VALUE> (skss_sat_layout: SKSS_SAT_LAYOUT_PADDED); status
 *    codes are SKSS_OK and SKSS_ERR_<reason>; descriptors have a `size`
 *    first and an SKSS_<X>_DESC_INIT initialiser.
 */
#ifndef SKSS_H
#define SKSS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32) && defined(SKSS_SHARED_BUILD)
#define SKSS_API __declspec(dllexport)
#elif defined(__GNUC__)
#define SKSS_API __attribute__((visibility("default")))
#else
#define SKSS_API
#endif

/* ------------------------------------------------------------------------ */
/* Version                                                                  */
/* ------------------------------------------------------------------------ */

#define SKSS_VERSION_MAJOR 0
#define SKSS_VERSION_MINOR 1
#define SKSS_VERSION_PATCH 0
#define SKSS_VERSION_STRING "0.1.0"

/* The library's version as "MAJOR.MINOR.PATCH" (static storage). */
SKSS_API const char *skss_version(void);

/* ------------------------------------------------------------------------ */
/* Status codes                                                             */
/* ------------------------------------------------------------------------ */

typedef enum skss_status {
  SKSS_OK = 0,
  SKSS_ERR_INVALID_ARG = 1,   /* a NULL, negative, inconsistent argument   */
  SKSS_ERR_UNSUPPORTED = 2,   /* algorithm/type/backend not implemented    */
  SKSS_ERR_OUT_OF_MEMORY = 3, /* an allocation failed or exceeds a limit   */
  SKSS_ERR_NO_DEVICE = 4,     /* CUDA requested but no usable device       */
  SKSS_ERR_CUDA = 5,          /* the CUDA runtime reported an error        */
  SKSS_ERR_OVERFLOW = 6,      /* a size or a result does not fit its type  */
  SKSS_ERR_CALLBACK = 7,      /* a user callback reported failure          */
  SKSS_ERR_INTERNAL = 8,      /* a bug in skss: please report it           */
  SKSS_ERR_TIMEOUT = 9        /* a caller's time limit ran out first       */
} skss_status;

/* Static English text for a status ("invalid argument", ...). Never NULL. */
SKSS_API const char *skss_status_string(skss_status status);

/* ------------------------------------------------------------------------ */
/* Context and backends                                                     */
/* ------------------------------------------------------------------------ */

typedef enum skss_backend {
  SKSS_BACKEND_AUTO = 0,    /* per primitive: CUDA where it has it, else CPU */
  SKSS_BACKEND_CPU_REF = 1, /* the papers' sequential algorithms (oracles)   */
  SKSS_BACKEND_CPU = 2,     /* multithreaded CPU implementation              */
  SKSS_BACKEND_CUDA = 3     /* NVIDIA GPUs through the CUDA runtime          */
} skss_backend;

/* Name of a backend ("auto", "cpu-ref", "cpu", "cuda"); NULL if unknown. */
SKSS_API const char *skss_backend_name(skss_backend backend);
/* Parses a backend name; returns SKSS_ERR_INVALID_ARG if unknown. */
SKSS_API skss_status skss_backend_from_name(const char *name, skss_backend *out);
/* 1 if this build has the backend and (for CUDA) a device is present. */
SKSS_API int skss_backend_available(skss_backend backend);
/* 1 if this build was compiled with the CUDA backend (device or not). */
SKSS_API int skss_backend_built(skss_backend backend);

/* Optional allocator hooks for the context's host memory. `alloc` returns
 * memory aligned to at least `align` bytes (a power of two <= 4096) or NULL.
 * The hooks may be called from the context's worker threads (never two
 * calls at once), not only from the thread that called the library. */
typedef struct skss_allocator {
  void *(*alloc)(size_t bytes, size_t align, void *user_data);
  void (*free)(void *ptr, void *user_data);
  void *user_data;
} skss_allocator;

typedef struct skss_ctx_desc {
  size_t size;                    /* sizeof(skss_ctx_desc): ABI versioning    */
  skss_backend backend;           /* which backend runs the primitives        */
  int device;                     /* CUDA device ordinal (CUDA backend only)  */
  int threads;                    /* CPU threads; 0 = number of online CPUs   */
  void *cuda_stream;              /* cudaStream_t to run on; NULL = own (blocking)
                                     stream, ordered after the legacy default stream */
  const skss_allocator *allocator; /* NULL = malloc/free; copied at create    */
} skss_ctx_desc;

#define SKSS_CTX_DESC_INIT \
  { sizeof(skss_ctx_desc), SKSS_BACKEND_AUTO, 0, 0, NULL, NULL }

typedef struct skss_ctx skss_ctx;

/* Creates a context. `desc` may be NULL (all defaults: AUTO). On success
 * *out is a new context the caller destroys with skss_ctx_destroy(); on
 * failure *out is NULL and skss_ctx_last_error(NULL), on the same thread,
 * says why. Creating a context with more than one CPU thread starts its
 * worker threads (every backend has them: AUTO contexts run primitives
 * without CUDA kernels on them). The CPU kernels use the widest
 * instruction sets the machine has (AVX2, AVX-512); the environment variable
 * SKSS_CPU_ISA=scalar|avx2|avx512, read here, caps them, and any other value
 * fails with SKSS_ERR_INVALID_ARG. */
SKSS_API skss_status skss_ctx_create(const skss_ctx_desc *desc, skss_ctx **out);
/* Destroys a context, joining its threads and freeing its arena. NULL is a no-op. */
SKSS_API void skss_ctx_destroy(skss_ctx *ctx);
/* The context's main backend (never AUTO): for an AUTO context CUDA when
 * this build has it and a device is present, else CPU. */
SKSS_API skss_backend skss_ctx_backend(const skss_ctx *ctx);
/* Number of CPU worker threads of the context (1 for CPU_REF). */
SKSS_API int skss_ctx_threads(const skss_ctx *ctx);
/* Detail text of the last failed call on this context ("" if none); valid
 * until the next call on the context. With ctx NULL: the reason the calling
 * thread's last skss_ctx_create() failed ("" if it succeeded). Never NULL. */
SKSS_API const char *skss_ctx_last_error(const skss_ctx *ctx);
/* Waits for the context's queued work (CUDA) and returns its deferred error. */
SKSS_API skss_status skss_ctx_synchronize(skss_ctx *ctx);
/* Moves the context's later calls to `cuda_stream` (a cudaStream_t of the
 * context's device; cudaStreamLegacy and cudaStreamPerThread work too), or
 * with NULL to the context's own blocking stream, so that one context
 * follows a caller whose current stream changes (PyTorch's, CuPy's). Work
 * the context queued on its previous stream is ordered before its later
 * work on the new one (an event recorded on the previous stream, which must
 * still exist; no host synchronisation); ordering the caller's own work
 * stays the caller's. Setting the current stream again does nothing. The
 * thread's current device is left as it was. Contexts without CUDA (CPU
 * backends, AUTO without a device): NULL does nothing, any other stream is
 * SKSS_ERR_UNSUPPORTED. */
SKSS_API skss_status skss_ctx_set_stream(skss_ctx *ctx, void *cuda_stream);

/* Information about a CUDA device, for `skss info`. */
typedef struct skss_device_info {
  char name[256];
  int major, minor;         /* compute capability */
  int multiprocessors;
  int64_t global_memory;    /* bytes */
} skss_device_info;

/* Number of CUDA devices visible to this build (0 without CUDA or a GPU). */
SKSS_API int skss_device_count(void);
/* Fills *out for device `ordinal`; SKSS_ERR_NO_DEVICE if there is none. */
SKSS_API skss_status skss_device_get_info(int ordinal, skss_device_info *out);

/* ------------------------------------------------------------------------ */
/* Element types and algorithm names                                        */
/* ------------------------------------------------------------------------ */

typedef enum skss_dtype {
  SKSS_DTYPE_U8 = 1,
  SKSS_DTYPE_I8,
  SKSS_DTYPE_U16,
  SKSS_DTYPE_I16,
  SKSS_DTYPE_U32,
  SKSS_DTYPE_I32,
  SKSS_DTYPE_U64,
  SKSS_DTYPE_I64,
  SKSS_DTYPE_F32,
  SKSS_DTYPE_F64
} skss_dtype;

/* Bytes of one element (0 for an unknown type). */
SKSS_API size_t skss_dtype_size(skss_dtype dtype);
/* Short name: "u8", "i8", ..., "f64"; NULL if unknown. */
SKSS_API const char *skss_dtype_name(skss_dtype dtype);
SKSS_API skss_status skss_dtype_from_name(const char *name, skss_dtype *out);

/* The primitives, for the name tables below. */
typedef enum skss_op {
  SKSS_OP_SAT = 0,
  SKSS_OP_HALFTONE,
  SKSS_OP_KNAPSACK,
  SKSS_OP_COMPACT,
  SKSS_OP_ALIGN
} skss_op;

/* The backend that runs primitive `op` with its AUTO algorithm on this
 * context: the main backend when it has the primitive, else (AUTO contexts)
 * SKSS_BACKEND_CPU; SKSS_BACKEND_AUTO when no backend of the context has it
 * (an explicit CUDA context and a primitive without CUDA kernels), or when
 * ctx is NULL or op unknown. */
SKSS_API skss_backend skss_ctx_op_backend(const skss_ctx *ctx, skss_op op);

/* Name of algorithm `algorithm` of primitive `op` ("auto", "2r2w-cpu", ...),
 * NULL if there is none. Names are stable and are what the CLI accepts. */
SKSS_API const char *skss_algorithm_name(skss_op op, int algorithm);
/* Parses an algorithm name of `op` into *out (an skss_<op>_algorithm value). */
SKSS_API skss_status skss_algorithm_from_name(skss_op op, const char *name, int *out);
/* 1 if `backend` implements the algorithm; for algorithm 0 (AUTO), 1 if the
 * backend has the primitive; for backend AUTO, 1 for every known algorithm. */
SKSS_API int skss_algorithm_supported(skss_op op, int algorithm, skss_backend backend);

/* ------------------------------------------------------------------------ */
/* Summed-area tables                                                       */
/* ------------------------------------------------------------------------ */

/* INCLUSIVE: out[i][j] = sum of in[i'][j'] for i' <= i and j' <= j, H x W.
 * PADDED (OpenCV / NPP convention): (H+1) x (W+1), first row and column 0,
 * out[i+1][j+1] = the inclusive sum at (i, j). */
typedef enum skss_sat_layout {
  SKSS_SAT_LAYOUT_INCLUSIVE = 0,
  SKSS_SAT_LAYOUT_PADDED = 1
} skss_sat_layout;

typedef enum skss_sat_algorithm {
  SKSS_SAT_ALGORITHM_AUTO = 0,
  /* Kasagi, Nakano, Ito (SAT on the asynchronous HMM), sequential CPU
     algorithms, backends CPU_REF and CPU: */
  SKSS_SAT_ALGORITHM_2R2W_CPU = 1, /* column prefix sums in raster order, then rows */
  SKSS_SAT_ALGORITHM_4R1W_CPU = 2, /* b[i][j] = a + b[i][j-1] + b[i-1][j] - b[i-1][j-1] */
  /* ours, CPU: */
  SKSS_SAT_ALGORITHM_ROWSCAN_CPU = 3, /* one pass per row, running sums: 1 read, 1 write */
  SKSS_SAT_ALGORITHM_BANDS_CPU = 4,   /* row bands on threads, band column sums first */
  /* Kasagi, Nakano, Ito (SAT on the asynchronous HMM), CUDA: */
  SKSS_SAT_ALGORITHM_2R2W = 16,    /* column prefix sums, then row prefix sums */
  SKSS_SAT_ALGORITHM_4R4W = 17,    /* 2R2W with diagonal-arrangement transposes */
  SKSS_SAT_ALGORITHM_4R1W = 18,    /* formula (1), one launch per anti-diagonal */
  SKSS_SAT_ALGORITHM_2R1W = 19,    /* block sums, their SAT (recursive), then tiles */
  SKSS_SAT_ALGORITHM_1R1W = 20,    /* one launch per block diagonal */
  SKSS_SAT_ALGORITHM_1PR_R1W = 21, /* (1+r)R1W: 2R1W on the first and last r of the
                                      block diagonals, 1R1W between; r per size */
  /* Funasaka, Nakano, Ito (SKSS task arrays), CUDA: */
  SKSS_SAT_ALGORITHM_SKSS = 22,          /* one kernel, 32 x 32 tasks by row ticket */
  SKSS_SAT_ALGORITHM_PARALLEL_FAIR = 23, /* one launch per task diagonal (baseline) */
  /* Chen et al. (SAT with register caching), CUDA; KS = Kogge-Stone and
     LF = Ladner-Fischer warp scans: */
  SKSS_SAT_ALGORITHM_BRLT_SCANROW_KS = 24,
  SKSS_SAT_ALGORITHM_BRLT_SCANROW_LF = 25,
  SKSS_SAT_ALGORITHM_SCANROW_BRLT_KS = 26,
  SKSS_SAT_ALGORITHM_SCANROW_BRLT_LF = 27,
  SKSS_SAT_ALGORITHM_SCANROWCOLUMN_KS = 28,
  SKSS_SAT_ALGORITHM_SCANROWCOLUMN_LF = 29,
  /* ours, CUDA, AUTO there: one pass, each input element read once and each
     output written once. Float outputs may round differently from run to
     run, always within the bound below (SCANROWCOLUMN_KS repeats bit for
     bit). Keeps device scratch of about 8% of the output table in the
     context for its next call. */
  SKSS_SAT_ALGORITHM_ONEPASS = 30
} skss_sat_algorithm;

/* Supported (in_type, out_type) pairs: u8:u32, u8:i32, u8:f32, u8:f64,
 * i32:i32, u32:u32, f32:f32, f32:f64, f64:f64.
 * Integer outputs are exact modulo 2^32 (every backend gives the same bits;
 * rectangle sums stay right while the true rectangle sum fits the type).
 * Float outputs: |out - exact| <= (i + j + 2) * u * S(i, j) where S is the
 * sum of |in| (of in^2 for squared sums) over the rectangle and u is the unit
 * roundoff of out_type (2^-24 for f32, 2^-53 for f64). Algorithms whose
 * carries are differences of outputs spread each rounding error into the
 * quadrant below it: 4R1W_CPU and 4R1W meet 5 (i + 1)(j + 1) u S(i, j), and
 * 1R1W and 1PR_R1W (per 32 x 32 tile) (70 (i/32 + 1)(j/32 + 1) + i + j + 2)
 * u S(i, j). Squared sums use out_type as well.
 * Buffer pointers and pitches must be multiples of their element size. */
typedef struct skss_sat_desc {
  size_t size;                /* sizeof(skss_sat_desc)                      */
  int64_t height, width;      /* of the input                               */
  skss_dtype in_type, out_type;
  int64_t in_pitch;           /* bytes between input rows; 0 = packed       */
  int64_t out_pitch;          /* bytes between output rows; 0 = packed      */
  int64_t out_sq_pitch;       /* bytes between squared-sum rows; 0 = packed */
  skss_sat_layout layout;
  skss_sat_algorithm algorithm;
} skss_sat_desc;

#define SKSS_SAT_DESC_INIT \
  { sizeof(skss_sat_desc), 0, 0, SKSS_DTYPE_U8, SKSS_DTYPE_U32, 0, 0, 0, \
    SKSS_SAT_LAYOUT_INCLUSIVE, SKSS_SAT_ALGORITHM_AUTO }

/* Computes the SAT of `in` into `out` and, when `out_sq` is not NULL, the SAT
 * of the squared input into `out_sq` (same layout and type). `in` must not
 * overlap the outputs (nor the outputs each other): SKSS_ERR_INVALID_ARG. */
SKSS_API skss_status skss_sat(skss_ctx *ctx, const skss_sat_desc *desc,
                              const void *in, void *out /* OUT */,
                              void *out_sq /* OUT, optional */);

/* 1 if some input of this size and type could make an output element exceed
 * the range of out_type (integers wrap modulo 2^bits; floats lose exactness
 * past 2^24 / 2^53); 0 if every element is exact. Unsupported type pairs
 * and negative sizes give 1. */
SKSS_API int skss_sat_can_wrap(skss_dtype in_type, skss_dtype out_type,
                               int64_t height, int64_t width, int squared);

/* ------------------------------------------------------------------------ */
/* Box (mean) filter through the SAT                                        */
/* ------------------------------------------------------------------------ */

/* Border handling of the (2r+1) x (2r+1) window:
 *  CLIP: the window is clipped to the image and the mean is over the pixels
 *        inside it (no darkening at the edges);
 *  ZERO: pixels outside count as 0 and the divisor is always (2r+1)^2.
 * Rounding: out = floor((sum + count / 2) / count), i.e. half rounds up. */
typedef enum skss_boxfilter_border {
  SKSS_BOXFILTER_BORDER_CLIP = 0,
  SKSS_BOXFILTER_BORDER_ZERO = 1
} skss_boxfilter_border;

typedef struct skss_boxfilter_desc {
  size_t size;                /* sizeof(skss_boxfilter_desc) */
  int64_t height, width;
  int64_t radius;             /* >= 0; 0 copies the image */
  int64_t in_pitch, out_pitch;
  skss_boxfilter_border border;
  skss_sat_algorithm sat_algorithm; /* the SAT algorithm used inside */
} skss_boxfilter_desc;

#define SKSS_BOXFILTER_DESC_INIT \
  { sizeof(skss_boxfilter_desc), 0, 0, 1, 0, 0, SKSS_BOXFILTER_BORDER_CLIP, \
    SKSS_SAT_ALGORITHM_AUTO }

/* Mean filter of an 8-bit gray image; `in` and `out` must not overlap.
 * SKSS_ERR_OVERFLOW if a window can sum past 2^32 and the image past 2^53. */
SKSS_API skss_status skss_boxfilter_u8(skss_ctx *ctx, const skss_boxfilter_desc *desc,
                                       const uint8_t *in, uint8_t *out /* OUT */);

/* ------------------------------------------------------------------------ */
/* Error-diffusion halftoning                                               */
/* ------------------------------------------------------------------------ */

typedef enum skss_dither_kernel {
  SKSS_DITHER_KERNEL_FLOYD_STEINBERG = 0, /* /16, slope 2: exactly Pillow convert('1') */
  SKSS_DITHER_KERNEL_JARVIS_JUDICE_NINKE, /* /48, slope 3 */
  SKSS_DITHER_KERNEL_STUCKI,              /* /42, slope 3 */
  SKSS_DITHER_KERNEL_BURKES,              /* /32, slope 3 */
  SKSS_DITHER_KERNEL_SIERRA3,             /* /32, slope 3 */
  SKSS_DITHER_KERNEL_SIERRA2,             /* /16, slope 3 */
  SKSS_DITHER_KERNEL_SIERRA_LITE,         /* /4,  slope 2 */
  SKSS_DITHER_KERNEL_ATKINSON             /* /8,  slope 2 (diffuses 6/8 of the error) */
} skss_dither_kernel;

#define SKSS_DITHER_KERNEL_COUNT 8

/* A kernel's weights: weight[dy][dx + 2] is the share of the error that goes
 * from pixel (y, x) to (y + dy, x + dx), over `divisor`; weight[0][0..2] = 0. */
typedef struct skss_dither_kernel_info {
  const char *name;     /* "fs", "jjn", "stucki", "burkes", "sierra3", ... */
  int weight[3][5];
  int divisor;
  int rows;             /* 2 or 3: rows touched, including the current one */
  int slope;            /* columns a row must lag the row above (2 or 3)   */
} skss_dither_kernel_info;

SKSS_API skss_status skss_dither_kernel_get_info(skss_dither_kernel kernel,
                                                 skss_dither_kernel_info *out);
SKSS_API skss_status skss_dither_kernel_from_name(const char *name,
                                                  skss_dither_kernel *out);

typedef enum skss_halftone_output {
  SKSS_HALFTONE_OUTPUT_BYTES = 0, /* one byte per pixel: 0 or 255                   */
  SKSS_HALFTONE_OUTPUT_BITS = 1   /* 8 pixels per byte, first pixel in the MSB,
                              bit set = 255 (white), rows padded to bytes   */
} skss_halftone_output;

typedef enum skss_halftone_algorithm {
  SKSS_HALFTONE_ALGORITHM_AUTO = 0,
  /* Kasagi, Nakano, Ito (parallel error diffusion), sequential, backends
     CPU_REF and CPU: */
  SKSS_HALFTONE_ALGORITHM_ED = 1,    /* error diffusion: push errors to neighbours */
  SKSS_HALFTONE_ALGORITHM_EC = 2,    /* error collection: pull errors from neighbours */
  SKSS_HALFTONE_ALGORITHM_ED_RC = 3, /* error diffusion with register caching */
  SKSS_HALFTONE_ALGORITHM_EC_RC = 4, /* error collection with register caching */
  /* ours, CPU: */
  SKSS_HALFTONE_ALGORITHM_TASKARRAY_CPU = 5, /* rows by ticket, each a slope behind; a batch
                                                of >= threads images: an image a thread */
  /* Kasagi, Nakano, Ito (parallel error diffusion), CUDA, on global memory: */
  SKSS_HALFTONE_ALGORITHM_PED3 = 16,        /* 3-delay parallel error diffusion */
  SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC = 17, /* 2-delay PED, pushes by atomicAdd */
  SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH = 18, /* 2-delay PED, an extra launch per step */
  SKSS_HALFTONE_ALGORITHM_PEC2 = 19,        /* 2-delay parallel error collection */
  /* the same four with the row-shift + transpose data permutation: */
  SKSS_HALFTONE_ALGORITHM_PED3_PERM = 20,
  SKSS_HALFTONE_ALGORITHM_PED2_ATOMIC_PERM = 21,
  SKSS_HALFTONE_ALGORITHM_PED2_LAUNCH_PERM = 22,
  SKSS_HALFTONE_ALGORITHM_PEC2_PERM = 23,
  /* parallelogram blocks in shared memory, one launch per diagonal label: */
  SKSS_HALFTONE_ALGORITHM_PED_2D = 24,    /* 2-D parallel error diffusion */
  SKSS_HALFTONE_ALGORITHM_PED_2D_RC = 25, /* 2-D PED with register caching */
  SKSS_HALFTONE_ALGORITHM_PEC_2D = 26,    /* 2-D parallel error collection */
  SKSS_HALFTONE_ALGORITHM_PEC_2D_RC = 27, /* 2-D PEC with register caching */
  /* Funasaka, Nakano, Ito (SKSS task arrays), CUDA: */
  SKSS_HALFTONE_ALGORITHM_SKSS = 28, /* one kernel: strips of 32 x 32 parallelograms
                                        by row ticket */
  /* ours, CUDA, AUTO there: one kernel, strips of rows by row ticket; a
     batch runs all its images at once */
  SKSS_HALFTONE_ALGORITHM_STRIPS = 29
} skss_halftone_algorithm;

/* Semantics (every backend and algorithm gives these bytes): raster order;
 * for each pixel S = sum of weight * e(neighbour) over processed neighbours
 * inside the image, v = clamp(in + S / divisor, 0, 255) with C's truncating
 * division applied once to the whole sum, out = v > threshold ? 255 : 0,
 * e = v - out. With Floyd-Steinberg and threshold 128 this is Pillow's
 * Image.convert('1'). */
typedef struct skss_halftone_desc {
  size_t size;               /* sizeof(skss_halftone_desc) */
  int64_t height, width;
  int64_t in_pitch;          /* bytes; 0 = width */
  int64_t out_pitch;         /* bytes; 0 = width (BYTES) or ceil(width/8) (BITS) */
  skss_dither_kernel kernel;
  int threshold;             /* 0..255; default 128 */
  skss_halftone_output output;
  skss_halftone_algorithm algorithm;
  /* Batch (appended fields: a desc whose `size` ends before `images`
   * means one image): `images` images of the same size, image k at
   * in + k * in_image_stride and out + k * out_image_stride, each halftoned
   * on its own (errors never cross images). 0 counts as 1. A stride of 0
   * means packed (height * pitch); a stride must cover one image. */
  int64_t images;
  int64_t in_image_stride;   /* bytes between images; 0 = height * in_pitch */
  int64_t out_image_stride;  /* bytes between images; 0 = height * out_pitch */
} skss_halftone_desc;

#define SKSS_HALFTONE_DESC_INIT \
  { sizeof(skss_halftone_desc), 0, 0, 0, 0, SKSS_DITHER_KERNEL_FLOYD_STEINBERG, 128, \
    SKSS_HALFTONE_OUTPUT_BYTES, SKSS_HALFTONE_ALGORITHM_AUTO, 1, 0, 0 }

/* Halftones an 8-bit gray image (or a batch of them, above); `in` and `out`
 * must not overlap. On the CUDA backend both may be host or device memory;
 * with device memory the call is asynchronous on the context's stream. */
SKSS_API skss_status skss_halftone(skss_ctx *ctx, const skss_halftone_desc *desc,
                                   const uint8_t *in, void *out /* OUT */);

/* ------------------------------------------------------------------------ */
/* 0-1 knapsack by dynamic programming                                      */
/* ------------------------------------------------------------------------ */

typedef enum skss_knapsack_algorithm {
  SKSS_KNAPSACK_ALGORITHM_AUTO = 0,
  /* Funasaka, Nakano, Ito (SKSS task arrays), sequential, CPU_REF and CPU: */
  SKSS_KNAPSACK_ALGORITHM_DP = 1, /* one item after another over all capacities */
  /* ours, CPU: items as task-array rows, capacity chunks as columns */
  SKSS_KNAPSACK_ALGORITHM_TASKARRAY_CPU = 2,
  /* CUDA, the paper's three, each keeping the whole value table V in device
   * memory: Boyer, El Baz, Elkihel (one launch per item, strips of 32
   * capacities x 1 item); O'Connell (one launch per diagonal of strips of
   * 32 capacities x k items, k = 2..32); SKSS (one kernel, 32-capacity rows
   * of a forward task array taken by ticket) */
  SKSS_KNAPSACK_ALGORITHM_PARALLEL_FORWARD = 3,
  SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_2 = 4,
  SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_4 = 5,
  SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_8 = 6,
  SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_16 = 7,
  SKSS_KNAPSACK_ALGORITHM_PARALLEL_FAIR_32 = 8,
  SKSS_KNAPSACK_ALGORITHM_SKSS = 9,
  /* ours, CUDA: a block per wide capacity strip, its cells on chip, only
   * strip boundaries crossing L2; O(C) device memory plus decision bits */
  SKSS_KNAPSACK_ALGORITHM_STRIPS = 10,
  /* ours after Pisinger (minknap, 1997) and Martello, Pisinger, Toth (combo,
   * 1999), CPU_REF and CPU: one optimum from an expanding core of items
   * around the break item, DP over (weight, value) states with dominance,
   * Dantzig and cardinality bounds; no values_by_capacity. Time and memory
   * follow the instance's hardness, not n x C (docs/algorithms/knapsack.md) */
  SKSS_KNAPSACK_ALGORITHM_CORE = 11
} skss_knapsack_algorithm;

/* V[c][j] = best value of items 0..j-1 within capacity c. The chosen set of
 * the DP algorithms (every one but CORE) is defined for every backend by:
 * walking items from last to first at the current capacity c, item j is
 * taken iff V[c][j+1] != V[c][j]. So items with v_j = 0 or w_j > C are never
 * taken, and items with w_j = 0 are taken iff v_j > 0.
 * CORE returns the same optimum and *a* set of that value within C: items
 * with v_j = 0 or w_j > C are never taken and items with w_j = 0, v_j > 0
 * always, but among equal-valued sets which one it picks depends on its
 * search, not on the rule above (so it may differ from the DP's set). Its
 * memory is the item lists plus its state lists (24 bytes a state, growing
 * as the instance needs; max_bytes bounds them, else SKSS_ERR_OUT_OF_MEMORY),
 * never a table; it needs C <= INT64_MAX / 4 when the items do not all fit.
 * Memory: with n' the items with 0 < w_j <= C and v_j > 0, C' = min(C,
 * their total weight) and R = 4 (C' + 1) bytes a value row (8 when the values
 * sum past 2^31), value-only mode needs about (threads + 1) R bytes (two rows
 * on CPU_REF and with DP), and item reconstruction n' (C' + 1) / 8 bytes of
 * decision bits more. `max_bytes` bounds all of the call's working memory
 * (0 = 4 GiB). When the decision bits do not fit it, the items come from
 * value-row checkpoints instead (the same items; one thread): with
 * 2 R sqrt(n' (C' + 1) / (8 R)) bytes or so in a value-only pass plus a pass
 * with the bits, in as little as (3 + log2 n') R + (C' + 1) / 8 bytes in up
 * to log2 n' more passes. A call that cannot fit even that (or value-only mode's rows) fails
 * with SKSS_ERR_OUT_OF_MEMORY before it allocates, and its error text gives
 * the bytes it needs. The memory comes from the context's arena, which keeps
 * its largest size until skss_ctx_destroy().
 * On CUDA, max_bytes bounds the device memory: the paper's algorithms
 * (PARALLEL_FORWARD, PARALLEL_FAIR_k, SKSS) keep the whole table, (n' + 1)
 * R bytes, in both modes; STRIPS needs the item lists, a few rows per SM's
 * strips and, for the items, the same n' (C' + 1) / 8 bytes of decision bits,
 * or, when those do not fit, value-row checkpoints (s - 1 rows and the bits
 * of n'/s items, the fewest segments s that fit; a value-only pass and a
 * pass with the bits). C' must be below 2^31 - 65536 there. */
typedef struct skss_knapsack_desc {
  size_t size;              /* sizeof(skss_knapsack_desc) */
  int64_t n_items;          /* >= 0 */
  int64_t capacity;         /* >= 0 */
  int value_only;           /* 1: only the optimal value; `taken` may be NULL */
  int64_t max_bytes;        /* limit on working memory; 0 = 4 GiB */
  skss_knapsack_algorithm algorithm;
  int64_t *values_by_capacity; /* OUT, optional: capacity + 1 int64, entry c
                                  the optimal value within capacity c (a desc
                                  whose size ends before it asks for none) */
  /* A batch (a desc whose size ends before `instances` means one): that many
   * independent instances of n_items items and the same capacity; instance
   * k's items at weights + k * n_items and values + k * n_items, its outputs
   * at best_value + k, taken + k * n_items and values_by_capacity +
   * k * (capacity + 1). 0 counts as 1. */
  int64_t instances;
  /* CORE only (the DP algorithms' time is known in advance): stop with
   * SKSS_ERR_TIMEOUT, outputs unwritten, once the search of an instance has
   * run this many milliseconds. 0 = no limit; a desc whose size ends before
   * it has none. */
  int64_t time_limit_ms;
} skss_knapsack_desc;

#define SKSS_KNAPSACK_DESC_INIT \
  { sizeof(skss_knapsack_desc), 0, 0, 0, 0, SKSS_KNAPSACK_ALGORITHM_AUTO, NULL, 1, 0 }

/* AUTO is CORE on the CPU backend without values_by_capacity (with the items
 * or value only) for one instance, and for a batch of instances of at least
 * 64 items and a capacity of at least 4096; else DP (CPU_REF: always DP, the
 * oracle) or the backend's AUTO. Weights and values must be >= 0; the sum of an
 * instance's values must fit int64 (else SKSS_ERR_OVERFLOW). Writes the optimum to *best_value and,
 * unless value_only, taken[j] = 1 for chosen items and 0 otherwise (n bytes).
 * With desc->values_by_capacity, also the optimum for every capacity 0..C
 * (the whole last row of the table, in the same pass; it must not overlap
 * the other buffers; its memory is the caller's, outside max_bytes). The CPU
 * backend runs a batch's instances on its threads at once, one instance a
 * thread with DP or CORE (TASKARRAY_CPU runs them one after another on all
 * threads), and max_bytes bounds all of them together: with CORE each of W
 * threads searches within max_bytes / W, and an instance that needs more is
 * searched again alone afterwards, so a batch runs out of memory only where
 * a call of its own would (time_limit_ms is each instance's, in wall-clock
 * time, while instances share the cores). A failed batch reports its
 * lowest failed instance's error; other instances' outputs may have been
 * written. On the
 * CUDA backend every pointer may be host or device memory; the items are
 * checked and reduced on the host, on the context's threads (device inputs
 * are copied there first), the DP and the walk back run on the device, and
 * the call returns when the outputs are in place. The reduced lists stay in
 * the context between calls, outside max_bytes: about 16 bytes an item and
 * 40 an instance of page-locked host memory, and 10 bytes an item of its
 * ordinary host memory, until skss_ctx_destroy(). STRIPS runs a batch whose instances each fit one
 * strip (C' + 1 <= 10240) in one launch, a block an instance; other batches,
 * and the paper's algorithms, run their instances one after another. */
SKSS_API skss_status skss_knapsack(skss_ctx *ctx, const skss_knapsack_desc *desc,
                                   const int64_t *weights, const int64_t *values,
                                   int64_t *best_value /* OUT */,
                                   uint8_t *taken /* OUT, optional */);

/* ------------------------------------------------------------------------ */
/* Stream compaction                                                        */
/* ------------------------------------------------------------------------ */

typedef enum skss_compact_keep {
  SKSS_COMPACT_KEEP_LT = 0,     /* x <  a */
  SKSS_COMPACT_KEEP_LE,         /* x <= a */
  SKSS_COMPACT_KEEP_GT,         /* x >  a */
  SKSS_COMPACT_KEEP_GE,         /* x >= a */
  SKSS_COMPACT_KEEP_EQ,         /* x == a */
  SKSS_COMPACT_KEEP_NE,         /* x != a (NaN != anything is true)  */
  SKSS_COMPACT_KEEP_RANGE,      /* a <= x < b (half-open)            */
  SKSS_COMPACT_KEEP_NONZERO,    /* x != 0 (NaN counts as nonzero)    */
  SKSS_COMPACT_KEEP_MASK_BYTES, /* mask[k] != 0                      */
  SKSS_COMPACT_KEEP_MASK_BITS   /* bit k%8 (LSB first) of mask[k/8]  */
} skss_compact_keep;

/* A scalar read by the data's type: `.i` for signed integer dtypes, `.u` for
 * unsigned ones, `.f` for f64 and f32. Integers compare exactly, also with a
 * scalar outside the dtype's range (u8: x < 300 keeps all, x == 257 none).
 * A f32 comparison uses (float).f, rounded to nearest (0.1 becomes
 * 0.100000001490116..., 1e300 becomes +inf): NumPy 2's rule for a float32
 * array and a Python float (NEP 50 weak scalars). */
typedef union skss_scalar {
  int64_t i;
  uint64_t u;
  double f;
} skss_scalar;

/* Compaction algorithms. On CUDA every one takes host or device pointers
 * (any mix; host data is staged through the context's device arena and the
 * call then waits), runs on the context's stream, and with `in`, the mask,
 * the outputs and `count` all in device memory returns without waiting
 * (the count is written by the device; skss_ctx_synchronize() reports
 * deferred errors). n may reach 2^40 on CUDA. */
typedef enum skss_compact_algorithm {
  SKSS_COMPACT_ALGORITHM_AUTO = 0,
  SKSS_COMPACT_ALGORITHM_LOOP = 1,    /* sequential, CPU_REF and CPU: test, copy, count */
  SKSS_COMPACT_ALGORITHM_SCAN_CPU = 2, /* ours, CPU: parallel count, scan, scatter */
  /* The paper's three steps on CUDA, one kernel each: flags; an exclusive
   * prefix sum of the flags (warp scans, one warp summing the warps'
   * totals, a level per 8 x 1024 block sums); the scatter. Eight elements
   * a thread as two groups of four; block size and grid from n and the
   * device's threads-per-block limit (the paper's Figure 4). In place it
   * scatters into n elements of device scratch and copies the kept back. */
  SKSS_COMPACT_ALGORITHM_FLAG_SCAN_SCATTER = 3,
  /* The same with step 2 on the host (the paper's Solution 1 ablation):
   * the flags come back to the host, which scans them, and the positions
   * go back to the device. Always waits for the device. */
  SKSS_COMPACT_ALGORITHM_FLAG_CPUSCAN_SCATTER = 4,
  /* Ours, CUDA (AUTO there): one pass, each element read once and each
   * kept element written once; a block's output offset comes from earlier
   * blocks by decoupled look-back, the count is written by the last block.
   * In place with no scratch (docs/algorithms/compact.md says why that is
   * safe). */
  SKSS_COMPACT_ALGORITHM_ONEPASS = 5
} skss_compact_algorithm;

typedef struct skss_compact_desc {
  size_t size;                  /* sizeof(skss_compact_desc) */
  int64_t n;                    /* number of input elements, >= 0 */
  skss_dtype dtype;
  skss_compact_keep keep;       /* which elements to keep */
  skss_scalar a, b;             /* comparison operands (see the predicates) */
  const void *mask;             /* for MASK_BYTES / MASK_BITS; else ignored */
  skss_compact_algorithm algorithm;
} skss_compact_desc;

#define SKSS_COMPACT_DESC_INIT \
  { sizeof(skss_compact_desc), 0, SKSS_DTYPE_F32, SKSS_COMPACT_KEEP_NONZERO, {0}, {0}, NULL, \
    SKSS_COMPACT_ALGORITHM_AUTO }

/* Keeps, in order, the elements of `in` that satisfy the predicate. Writes
 * them to `out_values` (if not NULL, room for n elements), their indices to
 * `out_indices` (if not NULL, room for n int64), and their number to *count
 * (required). NaN compares false except for NE and NONZERO. Outputs must not
 * overlap `in`, the mask or each other (SKSS_ERR_INVALID_ARG), except that
 * out_values may be `in` itself: in place, the kept elements move to the
 * front of `in` (scan-cpu and flag-scan-scatter then use n elements of
 * scratch); slots past *count are never written. On the cuda backend any
 * pointer may be host or device memory, `count` included (see
 * skss_compact_algorithm). `in` and `mask` may be NULL when n == 0. RANGE
 * with a >= b keeps nothing. */
SKSS_API skss_status skss_compact(skss_ctx *ctx, const skss_compact_desc *desc,
                                  const void *in, void *out_values /* OUT, optional */,
                                  int64_t *out_indices /* OUT, optional */,
                                  int64_t *count /* OUT */);

/* ------------------------------------------------------------------------ */
/* Pairwise sequence alignment with affine gaps                             */
/* ------------------------------------------------------------------------ */

/* Sequences a (length m) and b (length n) are byte strings of letters.
 * Scores: s(x, y) for a letter x of a against a letter y of b, and a gap of
 * L >= 1 letters (a run of consecutive I, or of consecutive D, below) costs
 * gap_open + (L - 1) * gap_extend: gap_open is the penalty of a gap's first
 * letter and gap_extend of each further one (parasail's convention; in
 * Biopython's PairwiseAligner that is open_gap_score = -gap_open and
 * extend_gap_score = -gap_extend). 0 <= gap_extend <= gap_open.
 * The score of an alignment is the sum of s over its aligned pairs minus its
 * gap costs; every mode returns the best score (Gotoh's recurrences):
 *  GLOBAL:      a and b aligned end to end (Needleman-Wunsch; parasail nw);
 *  LOCAL:       the best-scoring pair of substrings a[i0, i1) and b[j0, j1),
 *               never below 0 (Smith-Waterman; parasail sw);
 *  SEMI_GLOBAL: free end gaps in both sequences: letters before the
 *               alignment in a *or* in b, and letters after it in a *or* in
 *               b, cost nothing (the alignment starts in the first row or
 *               the first column of the DP table and ends in its last row or
 *               last column); what is left is aligned as in GLOBAL. This is
 *               Biopython's global mode with end_gap_score = 0, and
 *               parasail's sg except that parasail leaves out the empty
 *               alignments in the corner cells (m, 0) and (0, n): when every
 *               other alignment scores below 0 it reports that score, skss
 *               reports 0 (so skss = max(0, parasail's sg)). */
typedef enum skss_align_mode {
  SKSS_ALIGN_MODE_GLOBAL = 0,
  SKSS_ALIGN_MODE_LOCAL = 1,
  SKSS_ALIGN_MODE_SEMI_GLOBAL = 2
} skss_align_mode;

/* Where the letter scores s(x, y) come from:
 *  MATCH_MISMATCH: letters A-Z in either case (a == A); s = match for
 *                  equal letters, mismatch for different ones (both are
 *                  scores: mismatch is usually negative);
 *  BLOSUM62:       the BLOSUM62 matrix over "ARNDCQEGHILKMFPSTWYVBZX*"
 *                  (either case);
 *  MATRIX:         the caller's k x k matrix (row-major; row = letter of a,
 *                  column = letter of b) over the k <= 32 distinct letters of
 *                  `alphabet` (printable ASCII; letters match either case).
 * Any other byte in a or b is SKSS_ERR_INVALID_ARG naming its position. */
typedef enum skss_align_scoring {
  SKSS_ALIGN_SCORING_MATCH_MISMATCH = 0,
  SKSS_ALIGN_SCORING_BLOSUM62 = 1,
  SKSS_ALIGN_SCORING_MATRIX = 2
} skss_align_scoring;

/* What the call computes:
 *  SCORE:     the score and the end of an optimal alignment (a_end, b_end;
 *             the begin fields are -1 unless the mode fixes them: GLOBAL);
 *  ENDS:      the score, its begin and its end (local and semi-global
 *             modes run a second, backward pass for the begin);
 *  ALIGNMENT: everything, with the alignment itself in `ops`. */
typedef enum skss_align_output {
  SKSS_ALIGN_OUTPUT_SCORE = 0,
  SKSS_ALIGN_OUTPUT_ENDS = 1,
  SKSS_ALIGN_OUTPUT_ALIGNMENT = 2
} skss_align_output;

typedef enum skss_align_algorithm {
  SKSS_ALIGN_ALGORITHM_AUTO = 0,
  /* Gotoh's recurrences row after row on one thread; the alignment by
   * Myers and Miller's linear-space divide and conquer (CPU_REF and CPU): */
  SKSS_ALIGN_ALGORITHM_GOTOH = 1,
  /* ours, CPU: tiles of rows x columns as a fair task array on the threads
   * (row bands by ticket, SKSS); the alignment from checkpoint rows of a
   * backward pass, each segment between them found by a forward pass, the
   * segments then solved at once on the threads: */
  SKSS_ALIGN_ALGORITHM_TASKARRAY_CPU = 2,
  /* ours, CUDA: each pass one SKSS kernel (a warp a band of rows by ticket,
   * a diagonal wavefront across its lanes, int32 with Hopper DPX); the
   * alignment as TASKARRAY_CPU with its big passes on the GPU, except that a
   * segment whose direction bits (4 a cell) fit in device memory is solved
   * whole there: one pass that keeps the bits, and the walk back on the GPU: */
  SKSS_ALIGN_ALGORITHM_SKSS = 16
} skss_align_algorithm;

/* Every backend returns the same score, begin and end: among optimal
 * alignments the end is the one with the smallest a_end, then the smallest
 * b_end; the begin (for that end) the one with the largest a_begin, then the
 * largest b_begin. The alignment is one optimal alignment between them; which
 * one (among equal scores) may differ between backends and algorithms, and
 * on CUDA with the device memory free when the call starts (it decides
 * which pieces are solved whole on the device).
 * Positions are 0-based and half-open: the alignment covers
 * a[a_begin, a_end) and b[b_begin, b_end). An empty optimal local alignment
 * (score 0) is at a_begin = a_end = b_begin = b_end = 0. */
typedef struct skss_align_result {
  int64_t score;
  int64_t a_begin, a_end;
  int64_t b_begin, b_end;
  int64_t length;  /* ALIGNMENT: the number of ops written; else 0 */
} skss_align_result;

/* Scores are computed in int32: a call fails with SKSS_ERR_OVERFLOW, before
 * any work, when (m + n + 2) * W >= 2^29, W the largest of |s(x, y)|,
 * gap_open and gap_extend (so no intermediate value can wrap); DNA with
 * scores and penalties up to 10 allows m + n up to 53 million.
 * Memory (host, from the context's allocator; the sequences and ops are the
 * caller's), linear in the lengths: 2 (m + n) bytes of letter codes (with
 * the reversed copies for the begin and the alignment) and 8 (n + 1) bytes
 * for a row of H and F, plus
 *  GOTOH, with the alignment: 18 (n + 1) bytes and 64 KiB;
 *  TASKARRAY_CPU: m bytes of band progress counters and, with the
 *         alignment, 8 (n + 1) bytes for each of up to 15 checkpoint rows
 *         (at most 1 GiB of them) and 18 (w + 1) bytes and 64 KiB per
 *         thread, w the widest piece between checkpoints (at most n).
 *  SKSS (CUDA): as TASKARRAY_CPU; on the device, the context's arena
 *         holds one pass (m + n bytes of codes, 8 (n + 1) bytes for its
 *         last row and as much for each checkpoint row). With the alignment
 *         on more than one thread a level's big segments are split at once:
 *         16 (w + 1) bytes of host rows per segment in flight (one
 *         checkpoint row a split, CUDA's default), and the context keeps up
 *         to 16 lanes until skss_ctx_destroy(), each a CUDA stream with
 *         about m' + n' + 16 (w + 1) bytes of device memory and as much
 *         page-locked host memory, m' x w the largest segment it split.
 *         A segment solved whole takes about m' x w / 2 bytes of direction
 *         bits in the arena, m' x w its size: at most 2 GiB and half the
 *         device's free memory when it starts (SKSS_ALIGN_BITS_BYTES=N in
 *         the environment lowers or raises the 2 GiB; 0 splits every
 *         segment), which the arena keeps until skss_ctx_destroy().
 * Two 1 Mbp sequences align (with the alignment) in under 200 MB of host
 * memory. */
typedef struct skss_align_desc {
  size_t size;                 /* sizeof(skss_align_desc) */
  int64_t a_len, b_len;        /* m and n, >= 0 */
  skss_align_mode mode;
  skss_align_output output;
  skss_align_algorithm algorithm;
  skss_align_scoring scoring;
  int32_t match, mismatch;     /* MATCH_MISMATCH: the scores s(x, x), s(x, y) */
  const char *alphabet;        /* MATRIX: its k letters, NUL-terminated */
  const int32_t *matrix;       /* MATRIX: k * k scores */
  int32_t gap_open, gap_extend; /* penalties, 0 <= gap_extend <= gap_open */
  int64_t ops_capacity;        /* ALIGNMENT: bytes at `ops`, >= m + n */
} skss_align_desc;

#define SKSS_ALIGN_DESC_INIT \
  { sizeof(skss_align_desc), 0, 0, SKSS_ALIGN_MODE_GLOBAL, SKSS_ALIGN_OUTPUT_SCORE, \
    SKSS_ALIGN_ALGORITHM_AUTO, SKSS_ALIGN_SCORING_MATCH_MISMATCH, 1, -1, NULL, NULL, 1, 1, 0 }

/* Aligns a (a_len bytes) with b (b_len bytes) and writes *result. With
 * output ALIGNMENT, `ops` receives result->length bytes, one per alignment
 * column from begin to end: '=' (a letter of a against the same letter of
 * b, the same code in the matrix), 'X' (against a different one), 'I' (a
 * letter of a against a gap: an insertion in a, as in SAM with a the query)
 * or 'D' (a letter of b against a gap). ops_capacity must be at least
 * a_len + b_len, the longest alignment (checked before any work). The CPU
 * backend runs on the context's threads; the CUDA backend runs the passes on
 * the GPU (sequences, result and ops stay host memory; synchronous on the
 * context's stream) and the traceback's small pieces on the threads.
 * a, b may be NULL when their length is 0. */
SKSS_API skss_status skss_align(skss_ctx *ctx, const skss_align_desc *desc, const char *a,
                                const char *b, skss_align_result *result /* OUT */,
                                char *ops /* OUT, ALIGNMENT only */);

/* The CIGAR string of `count` ops (runs of equal ops: "3=1X2I"), NUL-
 * terminated, in out[0, capacity). *length (required) receives its length
 * without the NUL. out may be NULL with capacity 0 to ask for the length
 * (SKSS_OK); a capacity of at most *length is SKSS_ERR_INVALID_ARG (nothing
 * useful written). An op other than =, X, I, D, M is SKSS_ERR_INVALID_ARG. */
SKSS_API skss_status skss_align_cigar(const char *ops, int64_t count, char *out /* OUT */,
                                      size_t capacity, size_t *length /* OUT */);

/* Re-scores an alignment given as ops (the scoring and gap fields of desc;
 * a and b of desc's lengths, the ops starting at a[a_begin] and b[b_begin];
 * '=' and 'X' may also be written 'M'): *score = its score. Fails with
 * SKSS_ERR_INVALID_ARG when the ops run past a or b, or when an '=' or 'X'
 * does not match its letters. For tests and for checking other tools. */
SKSS_API skss_status skss_align_score_ops(skss_ctx *ctx, const skss_align_desc *desc,
                                          const char *a, const char *b, int64_t a_begin,
                                          int64_t b_begin, const char *ops, int64_t count,
                                          int64_t *score /* OUT */);

/* ------------------------------------------------------------------------ */
/* Task arrays (CPU runner)                                                 */
/* ------------------------------------------------------------------------ */

/* A task array has rows x cols tasks t[i][j]; row i runs in column order on
 * one worker. Every task also depends on tasks of earlier rows:
 *   FORWARD:  t[i'][j'] with i' < i and j' <  j
 *   FAIR:     t[i'][j'] with i' < i and j' <= j
 *   BACKWARD: t[i'][j'] with i' < i and j' <= j + reach * (i - i')
 * By default a task waits on the whole set above. A `deps` callback may
 * instead list the exact predecessors of a task (each must lie in the set
 * above); the runner waits for each. */
typedef enum skss_taskarray_kind {
  SKSS_TASKARRAY_KIND_FORWARD = 0,
  SKSS_TASKARRAY_KIND_FAIR = 1,
  SKSS_TASKARRAY_KIND_BACKWARD = 2
} skss_taskarray_kind;

/* How the tasks are run:
 *  SKSS:         the paper's single soft-synchronised pass: workers take rows
 *                from an atomic ticket counter and wait on per-row progress;
 *  CONVENTIONAL: the papers' baseline, Parallel-Forward / Fair (Diagonal) /
 *                Backward: one barrier after each partition of tasks;
 *  SEQUENTIAL:   Sequential Algorithm Horizontal on the calling thread. */
typedef enum skss_taskarray_schedule {
  SKSS_TASKARRAY_SCHEDULE_SKSS = 0,
  SKSS_TASKARRAY_SCHEDULE_CONVENTIONAL = 1,
  SKSS_TASKARRAY_SCHEDULE_SEQUENTIAL = 2
} skss_taskarray_schedule;

/* Runs task (row, col); returns 0 on success. A non-zero return stops the
 * run: no task starts after it is seen, and skss_taskarray_run() returns
 * SKSS_ERR_CALLBACK. Called from worker threads (any of them), never twice
 * for the same task. */
typedef int (*skss_task_fn)(int64_t row, int64_t col, void *user_data);

typedef struct skss_task_ref {
  int64_t row, col;
} skss_task_ref;

/* Writes up to `max` predecessors of task (row, col) from earlier rows to
 * `out` and returns how many (or -1 to stop the run with SKSS_ERR_CALLBACK). */
typedef int (*skss_task_deps_fn)(int64_t row, int64_t col, skss_task_ref *out,
                                 int max, void *user_data);

#define SKSS_TASKARRAY_MAX_DEPS 64

typedef struct skss_taskarray_desc {
  size_t size;                  /* sizeof(skss_taskarray_desc) */
  int64_t rows, cols;           /* >= 0 */
  skss_taskarray_kind kind;
  int64_t reach;                /* BACKWARD only: >= 1 */
  skss_taskarray_schedule schedule;
  skss_task_fn task;            /* required */
  skss_task_deps_fn deps;       /* optional; at most SKSS_TASKARRAY_MAX_DEPS */
  void *user_data;
} skss_taskarray_desc;

#define SKSS_TASKARRAY_DESC_INIT \
  { sizeof(skss_taskarray_desc), 0, 0, SKSS_TASKARRAY_KIND_FORWARD, 1, \
    SKSS_TASKARRAY_SCHEDULE_SKSS, NULL, NULL, NULL }

/* Runs every task once, each after its predecessors, on the context's CPU
 * threads (every backend's context has them). Returns after all tasks ran
 * or the run stopped. */
SKSS_API skss_status skss_taskarray_run(skss_ctx *ctx, const skss_taskarray_desc *desc);

#ifdef __cplusplus
}
#endif

#endif /* SKSS_H */
