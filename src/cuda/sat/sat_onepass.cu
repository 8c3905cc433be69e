/*
 * sat_onepass.cu — SKSS_SAT_ALGORITHM_ONEPASS (ours): one pass over the data, each
 * input element read once and each output written once, on the task-array
 * scheme of Funasaka, Nakano, Ito, SKSS task arrays, §IV with every carry found by decoupled
 * look-back (Merrill & Garland), one element at a time.
 *
 * The table is cut into tiles of TILE_H = WARPS * RPW rows by TILE_W = 32 *
 * VEC columns (4 warps of 8 rows by 128 columns; for 4-byte sums where
 * taller tiles fill the GPU, 8 or 16 warps of 12 rows, or 4 warps of 15-16;
 * 1-byte inputs with 4-byte sums: 8 warps of 8 or 12 rows by 256 columns;
 * tuning.h; tiles over 40 KB in dynamic shared memory). Each
 * block takes the next tile by ticket when it starts, tiles ticketed by
 * anti-diagonals, so it only ever waits on tiles ticketed before it, whose
 * blocks are running. Warp w owns RPW rows, lane l the VEC adjacent columns
 * at l * VEC. The tile is copied asynchronously into shared memory (copies
 * of up to 16 bytes where pointer and pitch allow; scalar loads otherwise)
 * and stays there while its carries are found, so a block needs few
 * registers and many tiles fit an SM. A tile of sums holds its own table
 * once the inputs are in; a raw tile (1-byte inputs) keeps the inputs and
 * scans them twice, first for the aggregates and again for the outputs,
 * so that four times the elements fit the same shared memory.
 *
 * An output of tile (s, p), whose first row and column are r0 and c0, is
 *   S(r, c) = corner + above(c) + left(r) + local(r, c)
 * with corner = S(r0 - 1, c0 - 1), above(c) the sum of rows < r0 over the
 * tile's columns c0..c, left(r) the sum of rows r0..r over columns < c0, and
 * local the tile's own table. Each term is a scan of its own, so no carry
 * waits for another:
 *   - above(c), per column, down the tile column: aggregate = the tile's
 *     local column total, inclusive = above(c) + that total;
 *   - left, per row, along the tile row: aggregate = the row's total in the
 *     tile, inclusive = the row's sum up to the tile's last column (left(r)
 *     adds these up down the tile's rows);
 *   - corner, along the tile row above: aggregate = that tile's inclusive
 *     column total at its last column (its strip's sum down to its last
 *     row), inclusive = its bottom-right output.
 * Each aggregate is published as soon as the tile is loaded and each
 * inclusive as soon as it is known, so a look-back waits only on loads and
 * on other look-backs, never on a whole tile. Every carry element lives in
 * 8-byte words {4 value bits, tag = epoch * 4 + kind} stored and polled
 * relaxed: a word is single-copy atomic, so a tag of this call vouches for
 * its value with no fence and no barrier (8-byte values take two words,
 * which must agree). The words are epoch flags (common.cuh), so nothing is
 * reset between calls; each thread looks back along its own element, loading
 * LOOKBACK_LOADS predecessors at once (few: at 16K the kernel is bound by L2
 * throughput, and the look-backs' loads are its largest traffic after the
 * data's; tuning.h). Thread e < TILE_W looks back along column e; the last
 * TILE_H threads then (or, in tiles of more warps, at the same time) along
 * the rows, thread 32 along the corners, so a tile waits for the longer of
 * two chains, not for all three.
 * Every output is a sum of row prefix sums, with no subtraction: floats stay
 * within (i + j + 2) u S(i, j).
 * Rows of outputs that are not 16-byte aligned (the padded layout's) are
 * restaged into aligned words, the padded border is written by the kernel,
 * and a call with squared sums computes both tables in one launch, each tile
 * read once (docs/algorithms/sat.md).
 */
#include <climits>
#include <cstring>
#include <type_traits>

#include <cuda/atomic>
#include <cuda_pipeline.h>

#include "../tuning.h"
#include "../warp_scan.cuh"
#include "sat_cuda.cuh"

static const char *const FN = "skss_sat()";

/* A tile shape: WARPS warps of RPW rows (TILE_H rows) by TILE_W = 32 * VEC
 * columns, kept in static shared memory: as sums (Acc), or, RAW, as the raw
 * inputs (In), scanned twice (once for the aggregates, once for the
 * outputs) so that a tile of narrow inputs covers more elements a byte of
 * shared memory, and its carries are fewer a byte of data. BLOCKS of them
 * fit an SM's shared memory (and its 2048 threads), which bounds the
 * registers a thread may have. */
template <typename In, typename Acc, int WARPS_, int VEC_, int RPW_, bool RAW_, int MAX_BLOCKS = 32>
struct skss__op_shape {
  static constexpr int WARPS = WARPS_, VEC = VEC_, RPW = RPW_, THREADS = 32 * WARPS_,
                       TILE_W = 32 * VEC_, TILE_H = WARPS_ * RPW_;
  static constexpr bool RAW = RAW_;
  typedef typename std::conditional<RAW_, In, Acc>::type Cell; /* a tile element in shared memory */
  /* Whether a warp restages each row of outputs in its tile row before it
   * stores it (skss__op_restage_row): where a lane's outputs are more than
   * 16 bytes (8-byte sums), its own stores would leave each warp
   * instruction writing half of every 32-byte sector it touches. H200, f64,
   * us: 2K 44.8 -> 43.3, 4K 116.5 -> 109, 8K 389 -> 360, 16K 1423 -> 1327;
   * but 1K 17.7 -> ~20 (tiles that do not fill the GPU wait on their
   * latency, which the restaging lengthens: not restaged there). Raw tiles
   * (1-byte inputs, 4-byte sums, 8 a lane) lost with a row of their own:
   * u8 -> u32 16K 436 -> 450 us. */
  static constexpr bool RESTAGE = sizeof(Acc) * VEC_ > 16 && !RAW_;
  /* a block's shared memory (skss__op_shared) and what the SM reserves for it */
  static constexpr int SMEM = TILE_H * TILE_W * (int)sizeof(Cell) +
                              ((RAW ? WARPS * TILE_W : 4) + TILE_W + 2 * TILE_H + 1) * (int)sizeof(Acc) +
                              3 * 16 + SKSS_CUDA_SAT_ONEPASS_SMEM_RESERVED;
  static constexpr int SMEM_BLOCKS = SKSS_CUDA_SAT_ONEPASS_SMEM_PER_SM / SMEM;
  static constexpr int FIT = SMEM_BLOCKS < 2048 / THREADS ? SMEM_BLOCKS : 2048 / THREADS;
  static constexpr int BLOCKS = FIT < MAX_BLOCKS ? FIT : MAX_BLOCKS;
  /* tiles of sums of more than 4 warps (tuning.h's big and huge shapes)
   * scan each row as soon as its copy is in and look back 2 words at a time */
  static constexpr bool BIG = WARPS_ > 4 && !RAW_;
  /* a block needing over 40 KB keeps it in dynamic shared memory (static is capped at 48 KB) */
  static constexpr bool DYNAMIC = SMEM - SKSS_CUDA_SAT_ONEPASS_SMEM_RESERVED > 40 * 1024;
  static_assert(TILE_W <= THREADS, "thread e looks back along column e");
  static_assert(TILE_H <= THREADS - 64,
                "the last warps look back along the rows, one thread a row; thread 32 the corner");
  static_assert(!RAW || sizeof(In) < sizeof(Acc), "raw tiles are for inputs narrower than their sums");
};

/* Shape S with at most M blocks an SM, so more registers a thread: the
 * kernels that restage misaligned rows (SH) run so, and the aligned ones
 * keep their tuned occupancy and code. */
template <typename S, int M>
struct skss__op_capped;
template <typename In, typename Acc, int W, int V, int R, bool RAW, int MB, int M>
struct skss__op_capped<skss__op_shape<In, Acc, W, V, R, RAW, MB>, M> {
  typedef skss__op_shape<In, Acc, W, V, R, RAW, (MB < M ? MB : M)> type;
};

/* A carry word's kind (the tag less epoch * 4); 0 is "nothing yet". */
enum { SKSS__OP_PENDING = 0, SKSS__OP_AGGREGATE = 1, SKSS__OP_INCLUSIVE = 2 };

typedef unsigned long long skss__op_u64;

/* The tiling of one plane and where its carry words live. */
typedef struct skss__op_tiles {
  int down, across, count;  /* tile rows, tile columns, their product */
  skss__cuda_epoch_flags ta; /* the ticket and the epoch */
  skss__op_u64 *rows;        /* per tile, TILE_H row elements */
  skss__op_u64 *cols;        /* per tile, TILE_W column elements (thread order) */
  skss__op_u64 *corners;     /* per tile, one corner element */
  bool vec_in, vec_out;      /* vec_out: every row of every output plane is aligned */
  /* skss__cuda_sat_onepass_both(): the squared table, scanned from the same
   * tiles right after the plain one, with its carries plane_words further on */
  bool both;
  uint8_t *out_sq;
  size_t out_sq_pitch;
  size_t plane_words;
} skss__op_tiles;

/* 8-byte words per carry element of type Acc. */
template <typename Acc>
constexpr int skss__op_words() {
  static_assert(sizeof(Acc) % 4 == 0, "carries are whole 4-byte words");
  return (int)(sizeof(Acc) / 4);
}

/* Carry words of all three kinds for `count` tiles. */
template <typename S, typename Acc>
static size_t onepass_words(int count) {
  return (size_t)count * (S::TILE_H + S::TILE_W + 1) * skss__op_words<Acc>();
}

/* What a block shares while it works on one tile. */
template <typename S, typename Acc>
struct skss__op_shared {
  /* the tile: loaded here (asynchronously, as stored in global memory, where
   * aligned), then, unless RAW, its own table down each warp's rows; the data
   * lives in shared memory, not registers, so that more tiles fit an SM */
  alignas(16) typename S::Cell tile[S::TILE_H][S::TILE_W];
  /* RAW: each warp's column totals (its table's last row); a 16-byte stub
   * otherwise, where they are the tile's own rows */
  alignas(16) Acc warp_cols[S::RAW ? S::WARPS : 1][S::RAW ? S::TILE_W : 4];
  alignas(16) Acc col_above[S::TILE_W]; /* above(c) */
  Acc row_total[S::TILE_H];             /* each row's sum within the tile */
  Acc row_left[S::TILE_H];              /* each row's sum left of the tile */
  Acc corner;
  int ticket; /* the block's */
  int ts, tp; /* its tile's place, for the padded border after the tile */
};

/* One global-memory word of `bytes` (a multiple of 4): the widest of 16, 8, 4 dividing it. */
template <size_t bytes>
using skss__op_word = typename std::conditional<
    bytes % 16 == 0, uint4, typename std::conditional<bytes % 8 == 0, uint2, unsigned>::type>::type;

/* Stores V elements to a pointer aligned to their total size; STREAM
 * marks the lines evict-first (rows no block reads back). */
template <bool STREAM, int V, typename T>
__device__ __forceinline__ void skss__op_store_vec(T *dst, const T (&v)[V]) {
  constexpr size_t bytes = sizeof(T) * V;
  using W = skss__op_word<bytes>;
  W raw[bytes / sizeof(W)];
  memcpy(raw, v, bytes);
#pragma unroll
  for (size_t i = 0; i < bytes / sizeof(W); i++) {
    if (STREAM)
      __stcs(reinterpret_cast<W *>(dst) + i, raw[i]);
    else
      __stcg(reinterpret_cast<W *>(dst) + i, raw[i]);
  }
}

/* V elements of type T at a shared-memory address aligned to their total
 * size (or 16), in the widest words their size allows. */
template <int V, typename T>
__device__ __forceinline__ void skss__op_smem_get(const void *at, T (&v)[V]) {
  constexpr size_t bytes = sizeof(T) * V;
  using W = skss__op_word<bytes>;
  W raw[bytes / sizeof(W)];
#pragma unroll
  for (size_t i = 0; i < bytes / sizeof(W); i++) raw[i] = static_cast<const W *>(at)[i];
  memcpy(v, raw, bytes);
}

template <int V, typename T>
__device__ __forceinline__ void skss__op_smem_put(void *at, const T (&v)[V]) {
  constexpr size_t bytes = sizeof(T) * V;
  using W = skss__op_word<bytes>;
  W raw[bytes / sizeof(W)];
  memcpy(raw, v, bytes);
#pragma unroll
  for (size_t i = 0; i < bytes / sizeof(W); i++) static_cast<W *>(at)[i] = raw[i];
}

/* The lane's V inputs of row `row` from column c0, converted to T by
 * `convert` (T(0) outside), one element at a time: rows that are not aligned
 * and whole (skss__op_copy_row copies the others asynchronously). */
template <int V, typename In, typename T, typename F>
__device__ __forceinline__ void skss__op_load_row(const skss__sat_dev_plane &p, int64_t row,
                                                  int64_t c0, T (&x)[V], F convert) {
#pragma unroll
  for (int c = 0; c < V; c++) x[c] = T(0);
  if (row >= p.height || c0 >= p.width) return;
  const In *src = reinterpret_cast<const In *>(p.in + (size_t)row * p.in_pitch) + c0;
#pragma unroll
  for (int c = 0; c < V; c++)
    if (c0 + c < p.width) x[c] = convert(__ldcs(src + c));
}

/* Starts loading the lane's V inputs of row `row` from column c0 into its
 * slot of the tile (of Cell: Acc, or In for a raw tile): an asynchronous
 * copy of the raw inputs where they are aligned and whole (returns true:
 * convert them once they are in), else loaded and converted to Cell at once
 * (0 outside). */
template <int V, bool RAW, typename In, typename Acc, typename Cell>
__device__ __forceinline__ bool skss__op_copy_row(const skss__sat_dev_plane &p, int64_t row,
                                                  int64_t c0, bool vec_in, Cell *slot) {
  if (vec_in && row < p.height && c0 + V <= p.width) {
    constexpr size_t bytes = sizeof(In) * V, chunk = bytes < 16 ? bytes : 16;
    static_assert(sizeof(In) <= sizeof(Cell), "the raw inputs fit the slot of their sums");
    const char *src = reinterpret_cast<const char *>(p.in + (size_t)row * p.in_pitch) + c0 * sizeof(In);
#pragma unroll
    for (size_t i = 0; i < bytes / chunk; i++)
      __pipeline_memcpy_async(reinterpret_cast<char *>(slot) + i * chunk, src + i * chunk, chunk);
    return true;
  }
  Cell x[V];
  if (RAW)
    skss__op_load_row<V, In>(p, row, c0, x, [](In v) { return (Cell)v; });
  else
    skss__op_load_row<V, In>(p, row, c0, x, [&](In v) { return (Cell)skss__sat_load<In, Acc>(v, p.square); });
  skss__op_smem_put<V, Cell>(slot, x);
  return RAW;
}

/* Stores the lane's V outputs of row `row` from column c0 (inside only);
 * STREAM for rows no other block reads. */
template <bool STREAM, int V, typename Acc>
__device__ __forceinline__ void skss__op_store_row(const skss__sat_dev_plane &p, int64_t row,
                                                   int64_t c0, bool vec_out, const Acc (&y)[V]) {
  if (row >= p.height || c0 >= p.width) return;
  Acc *dst = reinterpret_cast<Acc *>(p.out + (size_t)row * p.out_pitch) + c0;
  if (vec_out && c0 + V <= p.width) {
    skss__op_store_vec<STREAM, V>(dst, y);
    return;
  }
#pragma unroll
  for (int c = 0; c < V; c++) {
    if (c0 + c >= p.width) continue;
    if (STREAM)
      __stcs(dst + c, y[c]);
    else
      __stcg(dst + c, y[c]);
  }
}

/* Stores a whole tile row of outputs from column c0 whose address is not
 * 16-byte aligned (the padded layout's rows start one element past an
 * aligned address, and with a pitch of (W + 1) elements each row by a
 * different amount), through `line`, a row of TILE_W elements in shared
 * memory the warp owns: each lane puts its V outputs there, then the lanes
 * store the row's aligned 16-byte words in turn (word i from tile column
 * i * E - a, a the row's misalignment in elements), so that each store
 * instruction covers 512 adjacent bytes; the two words the row only partly
 * covers are stored element by element, inside the tile only. Warp-uniform. */
template <int TILE_W, int V, typename Acc>
__device__ __forceinline__ void skss__op_restage_shifted(const skss__sat_dev_plane &p, int64_t row, int64_t c0,
                                                         Acc *line, const Acc (&y)[V]) {
  constexpr int E = 16 / (int)sizeof(Acc); /* elements a 16-byte word */
  static_assert(16 % sizeof(Acc) == 0 && TILE_W % E == 0, "a row is whole 16-byte words of elements");
  if (row >= p.height) return; /* (warp-uniform) */
  const int lane = threadIdx.x & 31;
  skss__op_smem_put<V, Acc>(line + lane * V, y);
  /* the row is whole */
  __syncwarp();
  Acc *dst = reinterpret_cast<Acc *>(p.out + (size_t)row * p.out_pitch) + c0;
  const int a = (int)((reinterpret_cast<uintptr_t>(dst) & 15) / sizeof(Acc)); /* (element-aligned: validated) */
  Acc *at = dst - a; /* 16-byte aligned: word i at at + i * E */
  for (int i = lane; i <= TILE_W / E; i += 32) {
    const int col = i * E - a; /* the word's first tile column */
    Acc w[E];
#pragma unroll
    for (int e = 0; e < E; e++) w[e] = col + e >= 0 && col + e < TILE_W ? line[col + e] : Acc(0);
    if (col >= 0 && col + E <= TILE_W) {
      skss__op_store_vec<true, E>(at + i * E, w);
    } else {
#pragma unroll
      for (int e = 0; e < E; e++)
        if (col + e >= 0 && col + e < TILE_W) __stcs(at + i * E + e, w[e]);
    }
  }
  /* every lane has read the row before it is written again */
  __syncwarp();
}

/* The padded layout's zero border next to tile (ts, tp) of plane p, whose
 * `out` is the padded table's (1, 1): the row above the table over the
 * tile's columns (and the corner, by the first tile), the column left of it
 * over the tile's rows; the kernel writes it so that a call needs no memset. */
template <int THREADS, int TILE_H, int TILE_W, typename Acc>
__device__ __forceinline__ void skss__op_border(const skss__sat_dev_plane &p, int ts, int tp, int64_t r0,
                                                int64_t c0) {
  if (ts == 0) {
    Acc *above = reinterpret_cast<Acc *>(p.out - p.out_pitch);
    for (int e = threadIdx.x; e < TILE_W; e += THREADS)
      if (c0 + e < p.width) __stcs(above + c0 + e, Acc(0));
    if (tp == 0 && threadIdx.x == 0) __stcs(above - 1, Acc(0));
  }
  if (tp == 0) {
    for (int r = threadIdx.x; r < TILE_H; r += THREADS)
      if (r0 + r < p.height) __stcs(reinterpret_cast<Acc *>(p.out + (size_t)(r0 + r) * p.out_pitch) - 1, Acc(0));
  }
}

/* Stores the lane's V outputs of row `row` (a whole tile row from column
 * c0, 16-byte aligned) through `line`, a row of TILE_W elements in shared
 * memory the warp owns: each lane puts its V outputs there, then stores
 * 16-byte words lane by lane, so that each store instruction covers 512
 * adjacent bytes (bench/micro/sat_stream.cu, H200, the tile pattern alone
 * at 16K: f32 64 x 256 tiles 0.69 ms with each lane storing its own 32
 * bytes, 0.55 restaged). */
template <int TILE_W, int V, typename Acc>
__device__ __forceinline__ void skss__op_restage_row(const skss__sat_dev_plane &p, int64_t row, int64_t c0,
                                                     Acc *line, const Acc (&y)[V]) {
  constexpr int WORDS = TILE_W * (int)sizeof(Acc) / 16 / 32; /* 16-byte words a lane */
  static_assert(TILE_W * sizeof(Acc) % (16 * 32) == 0, "a row is whole 16-byte words for every lane");
  if (row >= p.height) return; /* (warp-uniform) */
  const int lane = threadIdx.x & 31;
  skss__op_smem_put<V, Acc>(line + lane * V, y);
  /* the row is whole */
  __syncwarp();
  uint4 *dst = reinterpret_cast<uint4 *>(reinterpret_cast<Acc *>(p.out + (size_t)row * p.out_pitch) + c0);
#pragma unroll
  for (int i = 0; i < WORDS; i++) __stcs(dst + i * 32 + lane, reinterpret_cast<const uint4 *>(line)[i * 32 + lane]);
  /* every lane has read the row before it is written again */
  __syncwarp();
}

/* Scans one row within the tile: x becomes the row's prefix sums within the
 * tile (lane-local prefix plus the lanes before); returns the row's total
 * within the tile (in lane 31). */
template <int V, typename Acc>
__device__ __forceinline__ Acc skss__op_scan_row(Acc (&x)[V]) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int c = 1; c < V; c++) x[c] += x[c - 1];
  const Acc incl = skss_warp::kogge_stone::scan(x[V - 1], lane);
  const Acc before = skss_warp::from_below(incl, 1);
  if (lane > 0) {
#pragma unroll
    for (int c = 0; c < V; c++) x[c] = before + x[c];
  }
  return incl;
}


/* Publishes a carry element: each 4-byte part with the tag, relaxed (the
 * word is its own flag). */
template <typename Acc>
__device__ __forceinline__ void skss__op_put(skss__op_u64 *w, Acc v, int epoch, int kind) {
  constexpr int N = skss__op_words<Acc>();
  unsigned bits[N];
  memcpy(bits, &v, sizeof v);
  const skss__op_u64 tag = (skss__op_u64)(unsigned)(epoch * 4 + kind) << 32;
#pragma unroll
  for (int i = 0; i < N; i++)
    cuda::atomic_ref<skss__op_u64, cuda::thread_scope_device>(w[i]).store(tag | bits[i],
                                                                           cuda::memory_order_relaxed);
}

/* The kind of a carry element's loaded words and, unless pending, its value:
 * a tag of an earlier call, or parts of different kinds (read between an
 * aggregate's and an inclusive's stores), read as pending. */
template <typename Acc>
__device__ __forceinline__ int skss__op_decode(const skss__op_u64 (&raw)[skss__op_words<Acc>()],
                                               int epoch, Acc &v) {
  constexpr int N = skss__op_words<Acc>();
  const unsigned kind = (unsigned)(raw[0] >> 32) - (unsigned)(epoch * 4);
  bool agree = kind == SKSS__OP_AGGREGATE || kind == SKSS__OP_INCLUSIVE;
  unsigned bits[N];
#pragma unroll
  for (int i = 0; i < N; i++) {
    agree = agree && (raw[i] >> 32) == (raw[0] >> 32);
    bits[i] = (unsigned)raw[i];
  }
  if (!agree) return SKSS__OP_PENDING;
  memcpy(&v, bits, sizeof v);
  return (int)kind;
}

/* The carry of one element: the sum over its predecessors q = 1 ..
 * `count` along a line, predecessor q's words at self - q * stride, by
 * decoupled look-back: aggregates are added until an inclusive (or the
 * line's start), G predecessors loaded at once. */
template <typename Acc, int G>
__device__ Acc skss__op_lookback(const skss__op_u64 *self, ptrdiff_t stride, int count, int epoch) {
  constexpr int N = skss__op_words<Acc>();
  Acc sum = 0;
  unsigned ns = 32;
  for (int done = 0; done < count;) {
    skss__op_u64 raw[G][N];
#pragma unroll
    for (int g = 0; g < G; g++) {
      const skss__op_u64 *w = self - (ptrdiff_t)(done + g + 1) * stride;
#pragma unroll
      for (int i = 0; i < N; i++)
        raw[g][i] = done + g < count
                        ? cuda::atomic_ref<skss__op_u64, cuda::thread_scope_device>(
                              const_cast<skss__op_u64 &>(w[i]))
                              .load(cuda::memory_order_relaxed)
                        : 0;
    }
    bool more = true, finished = false;
    int took = 0;
#pragma unroll
    for (int g = 0; g < G; g++) {
      if (!more) continue;
      if (done + g >= count) { /* the line's start: nothing before it */
        finished = true;
        more = false;
        continue;
      }
      Acc v;
      const int kind = skss__op_decode<Acc>(raw[g], epoch, v);
      if (kind == SKSS__OP_PENDING) {
        more = false;
        continue;
      }
      sum += v;
      took++;
      if (kind == SKSS__OP_INCLUSIVE) {
        finished = true;
        more = false;
      }
    }
    if (finished) return sum;
    done += took;
    if (took == 0) {
      /* spin-wait: the pending predecessor holds an earlier ticket, so its block is running */
      __nanosleep(ns);
      ns = ns < 256 ? ns * 2 : 256;
    }
  }
  return sum;
}

/* Ticket t's tile (ts, tp), in anti-diagonal order: diagonal d = ts + tp
 * holds the tiles whose row and column predecessors are on diagonal d - 1,
 * so each look-back starts at a tile ticketed a diagonal (up to min(down,
 * across) tiles) earlier, whose aggregate is most often out; in row-major
 * order a row predecessor is the tile ticketed just before, still loading
 * (H200, f32 16K: row look-back 3.8 -> 0.9 us a tile, 0.94 -> 0.83 ms). */
__device__ __forceinline__ void skss__op_diagonal_tile(int t, int down, int across, int &ts, int &tp) {
  const int m = min(down, across), count = down * across;
  const long long ramp = (long long)m * (m - 1) / 2; /* diagonals 0 .. m - 2: 1 .. m - 1 tiles */
  const bool back = t >= count - ramp;                /* the last m - 1 diagonals, counted back */
  const long long u = back ? (long long)count - 1 - t : t;
  int d, i; /* diagonal and position along it (from the top) */
  if (u < ramp) {
    d = (int)((sqrt(8.0 * (double)u + 1.0) - 1.0) / 2.0);
    /* the float root can be one off: d(d + 1) / 2 <= u < (d + 1)(d + 2) / 2 */
    while ((long long)d * (d + 1) / 2 > u) d--;
    while ((long long)(d + 1) * (d + 2) / 2 <= u) d++;
    i = (int)(u - (long long)d * (d + 1) / 2);
  } else {
    d = m - 1 + (int)((u - ramp) / m);
    i = (int)((u - ramp) % m);
  }
  if (back) { /* the mirror image: diagonal d from the end, position i from the bottom */
    const int size = d + 1;
    d = down + across - 2 - d;
    i = size - 1 - i;
  }
  ts = max(0, d - across + 1) + i;
  tp = d - ts;
}

/* The lane's V sums of a tile slot: raw inputs converted, or sums as they are. */
template <int V, bool RAW, typename In, typename Acc, typename Cell>
__device__ __forceinline__ void skss__op_slot_get(const skss__sat_dev_plane &p, const Cell *slot, Acc (&x)[V]) {
  if (RAW) {
    In raw[V];
    skss__op_smem_get<V, In>(slot, raw);
#pragma unroll
    for (int c = 0; c < V; c++) x[c] = skss__sat_load<In, Acc>(raw[c], p.square);
  } else {
    skss__op_smem_get<V, Acc>(slot, x);
  }
}

/* The whole tile of ticket `t` (see the header); RS: output rows are
 * restaged (S::RESTAGE shapes where the tiles fill the GPU); SH: output
 * rows are not all 16-byte aligned, and whole ones are restaged into aligned
 * words (skss__op_restage_shifted); again: the
 * block's second plane of the same tile (the squared one), whose raw
 * inputs, in a RAW tile, are still in shared memory (other tiles load their
 * inputs again, which the first pass has just brought into L2). */
template <typename S, typename In, typename Acc, bool RS, bool SH>
__device__ __forceinline__ void skss__op_do_tile(const skss__sat_dev_plane &p,
                                                 const skss__op_tiles &g, int ticket,
                                                 skss__op_shared<S, Acc> &sh, bool again) {
  constexpr int N = skss__op_words<Acc>(), RPW = S::RPW, TILE_H = S::TILE_H, V = S::VEC;
  /* predecessors a look-back loads at once */
  constexpr int G = S::BIG ? SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS_BIG : SKSS_CUDA_SAT_ONEPASS_LOOKBACK_LOADS;
  typedef typename S::Cell Cell;
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  int ts, tp;
  skss__op_diagonal_tile(ticket, g.down, g.across, ts, tp);
  const int t = ts * g.across + tp; /* the tile's row-major index: where its words are */
  const int64_t r0 = (int64_t)ts * TILE_H, c0 = (int64_t)tp * S::TILE_W;
  const int64_t row0 = r0 + warp * RPW, col = c0 + lane * V;
  const int first = warp * RPW; /* the warp's first row within the tile */
  const bool has_below = ts + 1 < g.down, has_right = tp + 1 < g.across;
  if (SH && threadIdx.x == 0) { /* (the padded layout's rows are never aligned: its kernels are SH) */
    sh.ts = ts;
    sh.tp = tp;
  }

  /* 1. load (own slots only: no barrier before reading them back); BIG
   * tiles commit each row's copy on its own and scan a row as soon as it
   * is in (H200, f32, us: 4K 49.4 -> 49.0, 8K 155.6 -> 154.3; the 4-warp
   * shapes lost: 2K 15.1 -> 15.6, u8 -> u32 16K 423 -> 425) */
  unsigned raw_rows = 0; /* rows whose slot holds raw inputs */
  if (!(S::RAW && again)) {
#pragma unroll
    for (int k = 0; k < RPW; k++) {
      if (skss__op_copy_row<V, S::RAW, In, Acc>(p, row0 + k, col, g.vec_in, &sh.tile[first + k][lane * V]))
        raw_rows |= 1u << k;
      if (S::BIG) __pipeline_commit();
    }
  }
  if (!S::BIG) {
    __pipeline_commit();
    __pipeline_wait_prior(0);
  }
  /* each row's prefix within the tile, then summed down the warp's rows
   * (kept in the tile unless it is RAW, where only their totals are) */
  Acc colsum[V];
#pragma unroll
  for (int c = 0; c < V; c++) colsum[c] = 0;
#pragma unroll
  for (int k = 0; k < RPW; k++) {
    Cell *slot = &sh.tile[first + k][lane * V];
    if (S::BIG) __pipeline_wait_prior(RPW - 1 - k); /* row k's copy is in */
    Acc x[V];
    if (S::RAW || raw_rows >> k & 1)
      skss__op_slot_get<V, true, In, Acc>(p, slot, x);
    else
      skss__op_slot_get<V, false, In, Acc>(p, slot, x);
    const Acc total = skss__op_scan_row<V, Acc>(x);
    if (lane == 31) sh.row_total[first + k] = total;
#pragma unroll
    for (int c = 0; c < V; c++) colsum[c] = x[c] = colsum[c] + x[c];
    if (!S::RAW) skss__op_smem_put<V, Acc>(slot, x);
  }
  if constexpr (S::RAW) skss__op_smem_put<V, Acc>(&sh.warp_cols[warp][lane * V], colsum);
  /* row totals and every warp's table (or its column totals) are in shared memory */
  __syncthreads();
  /* warp w's column totals (its table's last row) at column e */
  auto warp_total = [&](int w, int e) -> const Acc * {
    if constexpr (S::RAW)
      return &sh.warp_cols[w][e];
    else
      return &sh.tile[w * RPW + RPW - 1][e];
  };

  /* 2. the aggregates: thread e < TILE_W has column e, the last TILE_H threads a row each */
  /* the row, corner and column look-backs run on different threads after the
   * column one: the tile waits for the longer chain, not for all three */
  const int row = (int)threadIdx.x - (S::THREADS - TILE_H);
  /* (every thread has a column where there are as many: known at compile time) */
  const bool row_duty = row >= 0, col_duty = S::THREADS == S::TILE_W || threadIdx.x < S::TILE_W;
  skss__op_u64 *col_word = g.cols + ((size_t)t * S::TILE_W + threadIdx.x) * N;
  skss__op_u64 *row_word = g.rows + ((size_t)t * TILE_H + row) * N;
  Acc col_total = 0, row_total = 0;
  if (col_duty) {
#pragma unroll
    for (int w = 0; w < S::WARPS; w++) col_total += *warp_total(w, threadIdx.x);
    if (has_below) skss__op_put<Acc>(col_word, col_total, g.ta.epoch, SKSS__OP_AGGREGATE);
  }
  if (row_duty) {
    row_total = sh.row_total[row];
    if (has_right) skss__op_put<Acc>(row_word, row_total, g.ta.epoch, SKSS__OP_AGGREGATE);
  }

  /* 3. the look-backs, each inclusive published as soon as it is known */
  if (col_duty) {
    const Acc above =
        ts > 0 ? skss__op_lookback<Acc, G>(col_word, (ptrdiff_t)g.across * S::TILE_W * N, ts, g.ta.epoch)
               : Acc(0);
    if (has_below) {
      skss__op_put<Acc>(col_word, above + col_total, g.ta.epoch, SKSS__OP_INCLUSIVE);
      /* the last column's: the corner scan's aggregate for the tile row below */
      if (has_right && threadIdx.x == S::TILE_W - 1)
        skss__op_put<Acc>(g.corners + (size_t)t * N, above + col_total, g.ta.epoch,
                          SKSS__OP_AGGREGATE);
    }
    sh.col_above[threadIdx.x] = above;
  }
  if (row_duty) {
    const Acc left = tp > 0 ? skss__op_lookback<Acc, G>(row_word, (ptrdiff_t)TILE_H * N, tp,
                                                     g.ta.epoch)
                            : Acc(0);
    if (has_right) skss__op_put<Acc>(row_word, left + row_total, g.ta.epoch, SKSS__OP_INCLUSIVE);
    sh.row_left[row] = left;
  }
  if (threadIdx.x == 32)
    /* S(r0 - 1, c0 - 1): along the tile row above, from the tile above-left back */
    sh.corner = ts > 0 && tp > 0
                    ? skss__op_lookback<Acc, G>(g.corners + ((size_t)t - g.across) * N, N, tp, g.ta.epoch)
                    : Acc(0);
  /* every carry is in shared memory */
  __syncthreads();

  /* 4. the outputs: corner + above + left (down the tile's rows) + local */
  Acc top[V];
  skss__op_smem_get<V, Acc>(&sh.col_above[lane * V], top);
#pragma unroll
  for (int c = 0; c < V; c++) top[c] += sh.corner;
#pragma unroll
  for (int w = 0; w < S::WARPS - 1; w++) {
    if (w >= warp) break;
    Acc above_warp[V]; /* the totals of a warp above */
    skss__op_smem_get<V, Acc>(warp_total(w, lane * V), above_warp);
#pragma unroll
    for (int c = 0; c < V; c++) top[c] += above_warp[c];
  }
  /* RS: whole tile rows are restaged (the same for every warp; a row
   * below the image is skipped); whole rows that are not aligned are
   * restaged into aligned words (skss__op_restage_shifted) */
  const bool restage = RS && c0 + S::TILE_W <= p.width;
  const bool shifted = SH && c0 + S::TILE_W <= p.width;
  Acc left = 0;
  if constexpr (TILE_H - RPW <= 64) {
#pragma unroll
    for (int r = 0; r < TILE_H - RPW; r++)
      if (r < first) left += sh.row_left[r];
  } else { /* many rows above: the warp's lanes share them */
    for (int r = lane; r < first; r += 32) left += sh.row_left[r];
    left = skss_warp::reduce_all(left);
  }
  /* RAW, shifted: every warp has read the column totals of the warps above
   * it before they serve as the warps' rows of outputs (block-uniform) */
  if (S::RAW && shifted) __syncthreads();
  Acc x[V];
#pragma unroll
  for (int k = 0; k < RPW; k++) {
    left += sh.row_left[first + k];
    const Cell *slot = &sh.tile[first + k][lane * V];
    if constexpr (S::RAW) { /* the row's table again from the raw inputs, summed down into top */
      skss__op_slot_get<V, S::RAW, In, Acc>(p, slot, x);
      skss__op_scan_row<V, Acc>(x);
#pragma unroll
      for (int c = 0; c < V; c++) x[c] = (top[c] += x[c]) + left;
    } else {
      skss__op_smem_get<V, Acc>(slot, x);
#pragma unroll
      for (int c = 0; c < V; c++) x[c] = top[c] + left + x[c];
    }
    if (RS && restage) {
      /* in the tile row just read (each lane read its own slots above, and
       * overwrites only those before the warp's barrier); the warp's last
       * row, which later warps read for their `top`, in the row before it,
       * whose outputs are out */
      static_assert(!S::RESTAGE || RPW >= 2, "a warp's last row restages in the row before");
      const int line = k < RPW - 1 ? first + k : first + RPW - 2;
      skss__op_restage_row<S::TILE_W, V>(p, row0 + k, c0, reinterpret_cast<Acc *>(&sh.tile[line][0]), x);
    } else if (shifted) {
      /* RAW: the warp's column totals, free since the barrier above; else
       * the tile row just read, as restaged rows use it */
      Acc *line;
      if constexpr (S::RAW)
        line = &sh.warp_cols[warp][0];
      else
        line = reinterpret_cast<Acc *>(&sh.tile[k < RPW - 1 ? first + k : first + RPW - 2][0]);
      skss__op_restage_shifted<S::TILE_W, V>(p, row0 + k, c0, line, x);
    } else {
      skss__op_store_row<true, V>(p, row0 + k, col, g.vec_out, x);
    }
  }
  /* the bottom-right output: the corner scan's inclusive for the tile row below */
  if (has_below && has_right && threadIdx.x == S::THREADS - 1)
    skss__op_put<Acc>(g.corners + (size_t)t * N, x[V - 1], g.ta.epoch, SKSS__OP_INCLUSIVE);
}

template <typename S, typename In, typename Acc, bool RS, bool BOTH, bool SH>
__global__ void __launch_bounds__(S::THREADS, S::BLOCKS)
    skss__sat_onepass_kernel(skss__sat_dev_plane p, skss__op_tiles g) {
  __shared__ typename std::conditional<S::DYNAMIC, char, skss__op_shared<S, Acc>>::type sh_static;
  extern __shared__ __align__(16) unsigned char skss__op_dynamic[];
  skss__op_shared<S, Acc> &sh = *reinterpret_cast<skss__op_shared<S, Acc> *>(
      S::DYNAMIC ? static_cast<void *>(skss__op_dynamic) : static_cast<void *>(&sh_static));
  /* relaxed: the ticket only orders tiles; data is published by the carry words. */
  if (threadIdx.x == 0) sh.ticket = (int)(atomicAdd(g.ta.ticket, 1ull) - g.ta.ticket_base);
  /* the ticket is in shared memory */
  __syncthreads();
  const int ticket = sh.ticket;
  skss__op_do_tile<S, In, Acc, RS, SH>(p, g, ticket, sh, false);
  /* the padded border, last, where its registers are free (the tile's place
   * from shared memory: the tile's barriers have published it) */
  if (SH && p.border) {
    const int ts = sh.ts, tp = sh.tp;
    if (ts == 0 || tp == 0)
      skss__op_border<S::THREADS, S::TILE_H, S::TILE_W, Acc>(p, ts, tp, (int64_t)ts * S::TILE_H,
                                                             (int64_t)tp * S::TILE_W);
    if (BOTH && (ts == 0 || tp == 0)) {
      skss__sat_dev_plane q = p;
      q.out = g.out_sq;
      q.out_pitch = g.out_sq_pitch;
      skss__op_border<S::THREADS, S::TILE_H, S::TILE_W, Acc>(q, ts, tp, (int64_t)ts * S::TILE_H,
                                                             (int64_t)tp * S::TILE_W);
    }
  }
  if constexpr (BOTH) {
    /* the squared table of the same tile: a block only waits on tiles of
     * earlier tickets, in either plane, so no deadlock */
    skss__sat_dev_plane q = p;
    q.out = g.out_sq;
    q.out_pitch = g.out_sq_pitch;
    q.square = true;
    skss__op_tiles h = g;
    h.rows += g.plane_words;
    h.cols += g.plane_words;
    h.corners += g.plane_words;
    /* every thread is done with the first plane's shared memory before the second reuses it */
    __syncthreads();
    skss__op_do_tile<S, In, Acc, RS, SH>(q, h, ticket, sh, true);
  }
}

/* The tiling of a plane; false when the tile count does not fit an int. */
template <typename S>
static bool onepass_tiles(const skss__sat_dev_plane *plane, int *down, int *across) {
  constexpr int TILE_H = S::TILE_H;
  const int64_t d = (plane->height + TILE_H - 1) / TILE_H;
  const int64_t a = (plane->width + S::TILE_W - 1) / S::TILE_W;
  if (d > INT_MAX || a > INT_MAX || d * a > INT_MAX) return false;
  *down = (int)d;
  *across = (int)a;
  return true;
}

/* Launches the kernel over a plane's tiles; its carry words and tickets are taken. */
template <typename S, typename In, typename Acc, bool RS, bool BOTH, bool SH>
static skss_status onepass_launch(skss_ctx *ctx, const skss__op_tiles &g, const skss__sat_dev_plane *plane,
                                  cudaStream_t stream) {
  const size_t dynamic = S::DYNAMIC ? sizeof(skss__op_shared<S, Acc>) : 0;
  /* the kernel's attributes are set once per device (devices 0-63), off a small call's critical path */
  static skss__cuda_per_device_once set;
  const int dev = skss__cuda(ctx)->device;
  if (set.pending(dev)) {
    /* the tile is in shared memory: take the whole carveout for it (the kernel reads through L2) */
    SKSS_CUDA_TRY(ctx, FN, cudaFuncSetAttribute(skss__sat_onepass_kernel<S, In, Acc, RS, BOTH, SH>,
                                                cudaFuncAttributePreferredSharedMemoryCarveout,
                                                (int)cudaSharedmemCarveoutMaxShared));
    if (S::DYNAMIC)
      SKSS_CUDA_TRY(ctx, FN, cudaFuncSetAttribute(skss__sat_onepass_kernel<S, In, Acc, RS, BOTH, SH>,
                                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)dynamic));
    set.mark(dev);
  }
  skss__sat_onepass_kernel<S, In, Acc, RS, BOTH, SH><<<g.count, S::THREADS, dynamic, stream>>>(*plane, g);
  if (cudaPeekAtLastError() != cudaSuccess) skss__cuda_epoch_flags_abandon(ctx);
  SKSS_CUDA_CHECK_LAUNCH(ctx, FN);
  return SKSS_OK;
}

/* One plane in tiles of shape S; BOTH: and its squared table into out_sq. */
template <typename S, typename In, typename Acc, bool BOTH>
static skss_status onepass_run(skss_ctx *ctx, const skss__sat_dev_plane *plane, uint8_t *out_sq,
                               size_t out_sq_pitch) {
  constexpr int N = skss__op_words<Acc>();
  static_assert(sizeof(skss__op_shared<S, Acc>) + SKSS_CUDA_SAT_ONEPASS_SMEM_RESERVED <= (size_t)S::SMEM,
                "the shape's shared-memory estimate (and so its blocks an SM) covers the block's");
  cudaStream_t stream = skss__cuda(ctx)->stream;
  int down = 0, across = 0;
  if (!onepass_tiles<S>(plane, &down, &across))
    return skss__fail(ctx, SKSS_ERR_UNSUPPORTED, "%s: %lld x %lld has too many tiles", FN,
                      (long long)plane->height, (long long)plane->width);
  skss__op_tiles g = {};
  g.down = down;
  g.across = across;
  g.count = down * across;
  const size_t in_vec = sizeof(In) * S::VEC, out_vec = sizeof(Acc) * S::VEC;
  g.vec_in = (uintptr_t)plane->in % in_vec == 0 && plane->in_pitch % in_vec == 0;
  g.vec_out = (uintptr_t)plane->out % out_vec == 0 && plane->out_pitch % out_vec == 0;
  g.both = BOTH;
  if (BOTH) {
    g.out_sq = out_sq;
    g.out_sq_pitch = out_sq_pitch;
    g.vec_out = g.vec_out && (uintptr_t)out_sq % out_vec == 0 && out_sq_pitch % out_vec == 0;
  }
  /* S::RESTAGE shapes restage their output rows where those are aligned and
   * the tiles fill the GPU; a kernel of its own, so that the other keeps
   * its code (f64 1K: 14.7 us, against 16.5 with a run-time switch) */
  bool restage = false;
  if (S::RESTAGE && !BOTH && g.vec_out) {
    int sms = 0;
    SKSS_CUDA_TRY(ctx, FN, skss__cuda_sm_count(ctx, &sms));
    restage = (int64_t)g.count >= (int64_t)S::BLOCKS * sms;
  }
  /* the carry words are epoch flags (two ints each): nothing to reset before the kernel */
  const size_t words = onepass_words<S, Acc>(g.count);
  g.plane_words = words;
  skss_status st = skss__cuda_epoch_flags_take(ctx, FN, 2 * words * (g.both ? 2 : 1),
                                               (unsigned long long)g.count, &g.ta);
  if (st != SKSS_OK) return st;
  g.rows = reinterpret_cast<skss__op_u64 *>(g.ta.words);
  g.cols = g.rows + (size_t)g.count * S::TILE_H * N;
  g.corners = g.cols + (size_t)g.count * S::TILE_W * N;
  if (!g.vec_out || plane->border) { /* rows restaged into aligned words, with the registers that takes */
    constexpr int CAP = S::WARPS == 4 ? SKSS_CUDA_SAT_ONEPASS_SHIFTED_BLOCKS_4W : S::BLOCKS;
    typedef typename skss__op_capped<S, CAP>::type C;
    return onepass_launch<C, In, Acc, false, BOTH, true>(ctx, g, plane, stream);
  }
  if constexpr (BOTH) {
    return onepass_launch<S, In, Acc, false, true, false>(ctx, g, plane, stream);
  } else {
    if constexpr (S::RESTAGE) {
      if (restage) return onepass_launch<S, In, Acc, true, false, false>(ctx, g, plane, stream);
    }
    return onepass_launch<S, In, Acc, false, false, false>(ctx, g, plane, stream);
  }
}

/* Taller tiles (fewer look-backs a byte) where they fill the GPU at least
 * once, short ones (more tiles, more parallelism) below that and for
 * 8-byte sums (tiles of 8 warps of those gained 1-3% from 4K up and lost at
 * 2K: docs/performance.md). 4-byte sums of inputs wider than a byte take big
 * tiles of 8 warps (96 rows) where those fill the GPU, and huge ones of 16
 * warps (192 rows) where those fill it several times; 1-byte inputs with
 * 4-byte sums take raw tiles of 256 columns instead where those fill the GPU
 * (the taller of them where they fill it twice), and tall tiles of 4 warps,
 * a little shorter so that one more fits an SM, just below that. tuning.h
 * has the measurements. */
struct skss__sat_onepass_launch {
  template <typename S>
  static int64_t tiles_of(const skss__sat_dev_plane *plane) {
    return (plane->height + S::TILE_H - 1) / S::TILE_H * ((plane->width + S::TILE_W - 1) / S::TILE_W);
  }
  /* Both tables in one launch: fewer shapes (each is a kernel of twice the
   * code), with fewer blocks an SM than their one-table kernels, so that
   * twice the code gets the registers it needs (tuning.h): raw tiles where
   * they fill the GPU, big tiles of 4-byte sums where those do, the short
   * shape otherwise; no restaged rows. */
  template <typename In, typename Acc>
  static skss_status both(skss_ctx *ctx, const skss__sat_dev_plane *plane, uint8_t *out_sq, size_t out_sq_pitch) {
    constexpr bool RAW = sizeof(In) == 1 && sizeof(Acc) == 4;
    constexpr int BLOCKS = SKSS_CUDA_SAT_ONEPASS_BOTH_BLOCKS, BIG_BLOCKS = SKSS_CUDA_SAT_ONEPASS_BOTH_BIG_BLOCKS;
    typedef skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_WARPS, SKSS_CUDA_SAT_ONEPASS_VEC,
                           SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP, false, BLOCKS>
        ShortBoth;
    int sms = 0;
    SKSS_CUDA_TRY(ctx, FN, skss__cuda_sm_count(ctx, &sms));
    if constexpr (RAW) {
      typedef skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_RAW_WARPS, SKSS_CUDA_SAT_ONEPASS_RAW_VEC,
                             SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP, true, BIG_BLOCKS>
          RawBoth;
      if (tiles_of<RawBoth>(plane) >= (int64_t)RawBoth::BLOCKS * sms)
        return onepass_run<RawBoth, In, Acc, true>(ctx, plane, out_sq, out_sq_pitch);
    } else if constexpr (sizeof(Acc) == 4) {
      typedef skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_BIG_WARPS, SKSS_CUDA_SAT_ONEPASS_VEC,
                             SKSS_CUDA_SAT_ONEPASS_BIG_ROWS_PER_WARP, false, BIG_BLOCKS>
          BigBoth;
      if (tiles_of<BigBoth>(plane) >= (int64_t)BigBoth::BLOCKS * sms)
        return onepass_run<BigBoth, In, Acc, true>(ctx, plane, out_sq, out_sq_pitch);
    }
    return onepass_run<ShortBoth, In, Acc, true>(ctx, plane, out_sq, out_sq_pitch);
  }
  template <typename In, typename Acc>
  static skss_status run(skss_ctx *ctx, const skss__sat_dev_plane *plane, uint8_t *out_sq, size_t out_sq_pitch) {
    constexpr int SHORT = SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP, WARPS = SKSS_CUDA_SAT_ONEPASS_WARPS,
                  VEC = SKSS_CUDA_SAT_ONEPASS_VEC;
    /* (8-byte sums: the short shape twice, so that the tall one is never instantiated) */
    constexpr int TALL = sizeof(Acc) != 4            ? SHORT
                         : sizeof(In) < sizeof(Acc) ? SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP_TALL_NARROW
                                                    : SKSS_CUDA_SAT_ONEPASS_ROWS_PER_WARP_TALL;
    typedef skss__op_shape<In, Acc, WARPS, VEC, SHORT, false> Short;
    typedef skss__op_shape<In, Acc, WARPS, VEC, TALL, false> Tall;
    /* (other pairs: the tall shape again, never run) */
    constexpr bool RAW = sizeof(In) == 1 && sizeof(Acc) == 4;
    typedef typename std::conditional<
        RAW,
        skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_RAW_WARPS, SKSS_CUDA_SAT_ONEPASS_RAW_VEC,
                       SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP, true, SKSS_CUDA_SAT_ONEPASS_RAW_BLOCKS>,
        Tall>::type Raw;
    typedef typename std::conditional<
        RAW,
        skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_RAW_WARPS, SKSS_CUDA_SAT_ONEPASS_RAW_VEC,
                       SKSS_CUDA_SAT_ONEPASS_RAW_ROWS_PER_WARP_TALL, true, SKSS_CUDA_SAT_ONEPASS_RAW_BLOCKS>,
        Tall>::type RawTall;
    if (out_sq != NULL) return both<In, Acc>(ctx, plane, out_sq, out_sq_pitch);
    if (sizeof(Acc) != 4) return onepass_run<Short, In, Acc, false>(ctx, plane, NULL, 0);
    int sms = 0;
    SKSS_CUDA_TRY(ctx, FN, skss__cuda_sm_count(ctx, &sms));
    if (RAW && tiles_of<RawTall>(plane) >= 2 * (int64_t)RawTall::BLOCKS * sms)
      return onepass_run<RawTall, In, Acc, false>(ctx, plane, NULL, 0);
    if (RAW && tiles_of<Raw>(plane) >= (int64_t)Raw::BLOCKS * sms) return onepass_run<Raw, In, Acc, false>(ctx, plane, NULL, 0);
    if constexpr (sizeof(Acc) == 4 && !RAW) {
      typedef skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_BIG_WARPS, VEC,
                             SKSS_CUDA_SAT_ONEPASS_BIG_ROWS_PER_WARP, false>
          Big;
      typedef skss__op_shape<In, Acc, SKSS_CUDA_SAT_ONEPASS_HUGE_WARPS, VEC,
                             SKSS_CUDA_SAT_ONEPASS_HUGE_ROWS_PER_WARP, false>
          Huge;
      if (tiles_of<Huge>(plane) >= SKSS_CUDA_SAT_ONEPASS_HUGE_FILLS * (int64_t)Huge::BLOCKS * sms)
        return onepass_run<Huge, In, Acc, false>(ctx, plane, NULL, 0);
      if (tiles_of<Big>(plane) >= (int64_t)Big::BLOCKS * sms) return onepass_run<Big, In, Acc, false>(ctx, plane, NULL, 0);
    }
    if (tiles_of<Tall>(plane) >= (int64_t)Tall::BLOCKS * sms) return onepass_run<Tall, In, Acc, false>(ctx, plane, NULL, 0);
    return onepass_run<Short, In, Acc, false>(ctx, plane, NULL, 0);
  }
};

size_t skss__cuda_sat_onepass_scratch(skss_ctx *ctx, int algorithm,
                                      const skss__sat_dev_plane *plane) {
  /* the carries live in the context's epoch flags, not in the arena */
  (void)ctx;
  (void)algorithm;
  (void)plane;
  return 0;
}

skss_status skss__cuda_sat_onepass(skss_ctx *ctx, int algorithm, const skss__sat_dev_plane *plane,
                                   void *scratch) {
  (void)algorithm;
  (void)scratch;
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown SAT type pair %d", FN, (int)plane->pair);
  return skss__sat_by_pair<skss__sat_onepass_launch>(plane->pair, ctx, plane, (uint8_t *)NULL, (size_t)0);
}

skss_status skss__cuda_sat_onepass_both(skss_ctx *ctx, const skss__sat_dev_plane *plane, uint8_t *out_sq,
                                        size_t out_sq_pitch) {
  if ((unsigned)plane->pair >= (unsigned)SKSS__SAT_PAIR_COUNT)
    return skss__fail(ctx, SKSS_ERR_INTERNAL, "%s: unknown SAT type pair %d", FN, (int)plane->pair);
  skss__sat_dev_plane plain = *plane;
  plain.square = false;
  return skss__sat_by_pair<skss__sat_onepass_launch>(plane->pair, ctx, &plain, out_sq, out_sq_pitch);
}
